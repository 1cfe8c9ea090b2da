/*
 * bench.h — what the benchmarks share: a clock, a seeded generator, where
 * the public traces are, and the synthetic HiveD-paper-scale spec. Header
 * only (static inline), so each benchmark stays one file and one binary.
 */
#ifndef CELLAR_BENCH_H
#define CELLAR_BENCH_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/strbuf.h"

/* Monotonic seconds. */
static inline double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's CPU seconds: what a frame costs whatever else the
   machine runs (wall time on a shared 2-core machine measures the other
   processes too; caches shared with them still count). */
static inline double
bench_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift64, one fixed seed per benchmark: the same workload every run. */
static unsigned long long bench_rng = 0x853c49e6748fea9bULL;

static inline unsigned
bench_rand(void)
{
	bench_rng ^= bench_rng << 13;
	bench_rng ^= bench_rng >> 7;
	bench_rng ^= bench_rng << 17;
	return (unsigned)(bench_rng >> 17);
}

/* $CELLAR_TRACES, /work/shared/traces or ../shared/traces; NULL if none. */
static inline const char *
bench_traces_dir(void)
{
	static const char *const dirs[] = { "/work/shared/traces", "../shared/traces" };
	const char *e = getenv("CELLAR_TRACES");
	size_t i;

	if (e != NULL && access(e, R_OK) == 0)
		return e;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		if (access(dirs[i], R_OK) == 0)
			return dirs[i];
	return NULL;
}

/*
 * The cellar binary beside this benchmark (build/VARIANT/tests/bench/NAME
 * -> build/VARIANT/cellar) into buf, and a fresh directory under $TMPDIR
 * into tdir; what names the benchmark. 0; 1 when there is no binary (said
 * on stdout: the benchmark is skipped, it needs `make variant-all`); -1
 * when the directory cannot be made (said on stderr).
 */
static inline int
bench_cellar(const char *what, const char *argv0, char *buf, size_t len,
    char *tdir, size_t tlen)
{
	const char *tmp = getenv("TMPDIR");
	char *slash;
	int k;

	snprintf(buf, len, "%s", argv0 != NULL ? argv0 : "");
	for (k = 0; k < 3 && (slash = strrchr(buf, '/')) != NULL; k++)
		*slash = '\0';
	if (k < 3 || strlen(buf) + 8 >= len) {
		printf("%s: cannot find the cellar binary; skipped\n", what);
		return 1;
	}
	strcat(buf, "/cellar");
	if (access(buf, X_OK) != 0) {
		printf("%s: no %s (make variant-all); skipped\n", what, buf);
		return 1;
	}
	snprintf(tdir, tlen, "%s/cellar-bench-XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(tdir) == NULL) {
		fprintf(stderr, "bench-%s: mkdtemp %s: %s\n", what, tdir,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The HiveD paper's scale: racks of 1,024 nodes x 2 sockets x 2 PCIe
 * switches x 2 GPUs (8 racks: 65,536 GPUs), nvc VCs holding ~85% of the
 * nodes as node cells, ~5% as sockets, and (8 racks or more) one whole
 * rack. Spec text, malloc'ed.
 */
static inline char *
bench_spec_text(int racks, int nvc)
{
	struct strbuf sb = STRBUF_INIT;
	int r, n, v, nodes = racks * 1024, rack_vc = racks >= 8 ? 1 : 0;
	int per_nodes = (int)((nodes - rack_vc * 1024) * 0.85) / nvc;
	int per_socks = (int)(nodes * 0.05 * 2) / nvc;

	strbuf_adds(&sb,
	    "physicalCluster:\n  cellTypes:\n"
	    "    SW: {childCellType: GPU, childCellNumber: 2}\n"
	    "    SOCK: {childCellType: SW, childCellNumber: 2}\n"
	    "    NODE: {childCellType: SOCK, childCellNumber: 2, isNodeLevel: true}\n"
	    "    RACK: {childCellType: NODE, childCellNumber: 1024}\n"
	    "  physicalCells:\n");
	for (r = 0; r < racks; r++) {
		strbuf_adds(&sb, "  - cellType: RACK\n    cellChildren:\n");
		for (n = 0; n < 1024; n++)
			strbuf_addf(&sb, "    - cellAddress: r%dn%d\n", r, n);
	}
	strbuf_adds(&sb, "virtualClusters:\n");
	for (v = 0; v < nvc; v++) {
		strbuf_addf(&sb, "  vc%d:\n    virtualCells:\n", v);
		if (v == 0 && rack_vc)
			strbuf_adds(&sb, "    - {cellType: RACK, cellNumber: 1}\n");
		strbuf_addf(&sb, "    - {cellType: RACK.NODE, cellNumber: %d}\n", per_nodes);
		strbuf_addf(&sb, "    - {cellType: RACK.NODE.SOCK, cellNumber: %d}\n", per_socks);
	}
	return strbuf_detach(&sb, NULL);
}

#endif
