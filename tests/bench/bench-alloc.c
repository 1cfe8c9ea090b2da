/*
 * bench-alloc.c — placement and release cost of the engine at the HiveD
 * paper's scale (65,536 GPUs = 8 racks x 1,024 nodes x 8 GPUs, levels GPU /
 * PCIe switch / socket / node / rack) and at 8,192 and 524,288 GPUs.
 *
 * VCs cover ~90% of the cluster with cells at rack, node and socket level.
 * After a warm-up that fills the cluster to ~70%, a fixed-seed stream of
 * random-size guaranteed requests (Philly-like sizes: mostly 1 GPU, up to
 * 4 x 8-GPU gangs) is mixed with releases; each engine_alloc (placement +
 * commit, including buddy binding) and engine_release is timed alone.
 * One line per size, stable for comparison across runs:
 *   alloc gpus=G requests=N place_mean_us=.. place_median_us=..
 *     place_p99_us=.. release_mean_us=.. release_p99_us=..
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/strbuf.h"
#include "engine/engine.h"
#include "spec/spec.h"

static unsigned long long rng = 0x853c49e6748fea9bULL;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 17);
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define NVC 10

static char *
gen(int racks)
{
	struct strbuf sb = STRBUF_INIT;
	int r, n, v, nodes = racks * 1024, rack_vc = racks >= 8 ? 1 : 0;
	int per_nodes, per_socks;

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
	/* ~85% as node cells, ~5% as sockets, one whole rack (when >= 8) */
	per_nodes = (int)((nodes - rack_vc * 1024) * 0.85) / NVC;
	per_socks = (int)(nodes * 0.05 * 2) / NVC;
	strbuf_adds(&sb, "virtualClusters:\n");
	for (v = 0; v < NVC; v++) {
		strbuf_addf(&sb, "  vc%d:\n    virtualCells:\n", v);
		if (v == 0 && rack_vc)
			strbuf_adds(&sb, "    - {cellType: RACK, cellNumber: 1}\n");
		strbuf_addf(&sb, "    - {cellType: RACK.NODE, cellNumber: %d}\n", per_nodes);
		strbuf_addf(&sb, "    - {cellType: RACK.NODE.SOCK, cellNumber: %d}\n", per_socks);
	}
	return strbuf_detach(&sb, NULL);
}

struct live {
	int id;
};

static void
run(int racks, int requests)
{
	char *text = gen(racks), *cause = NULL, name[32];
	struct spec_diags d;
	struct spec *s;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	double t0, t1, tload, tcreate, *pl, *rl, psum = 0, rsum = 0;
	int *live, nlive = 0, np = 0, nr = 0, seq = 0, i, fails = 0;
	long long gpus;
	static const int sizes[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8 };

	spec_diags_init(&d);
	t0 = now_us();
	s = spec_load_string("bench.yaml", text, strlen(text), &d);
	tload = now_us() - t0;
	if (s == NULL) {
		fprintf(stderr, "bench spec: %s\n", d.n ? d.v[0].text : "?");
		exit(1);
	}
	t0 = now_us();
	e = engine_create(s, ENGINE_HIVED, &cause);
	tcreate = now_us() - t0;
	if (e == NULL) {
		fprintf(stderr, "engine: %s\n", cause);
		exit(1);
	}
	gpus = s->gpus;
	pl = malloc(sizeof(double) * (size_t)requests);
	rl = malloc(sizeof(double) * (size_t)requests * 2);
	live = malloc(sizeof(int) * (size_t)(requests + 1000000));
	engine_plan_init(&p);
	memset(&r, 0, sizeof r);
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	/* warm-up to ~70% of the cluster, untimed */
	{
		struct engine_stats st;
		for (;;) {
			engine_stats(e, &st);
			if (st.used >= gpus * 7 / 10)
				break;
			snprintf(name, sizeof name, "w%d", seq++);
			r.name = name;
			r.vc = (int)(xr() % NVC);
			r.members[0].pods = 1;
			r.members[0].gpus = sizes[xr() % (sizeof sizes / sizeof sizes[0])];
			i = engine_alloc(e, &r, &p);
			if (i >= 0)
				live[nlive++] = i;
			else if (++fails > 100000)
				break;
		}
	}
	while (np < requests) {
		if (nlive > 0 && xr() % 100 < 45) {
			int k = (int)(xr() % (unsigned)nlive);
			t0 = now_us();
			engine_release(e, live[k]);
			t1 = now_us();
			rl[nr++] = t1 - t0;
			rsum += t1 - t0;
			live[k] = live[--nlive];
			continue;
		}
		snprintf(name, sizeof name, "j%d", seq++);
		r.name = name;
		r.vc = (int)(xr() % NVC);
		if (xr() % 100 < 5) {
			r.members[0].pods = 2 + (int)(xr() % 3);
			r.members[0].gpus = 8;
		} else {
			r.members[0].pods = 1;
			r.members[0].gpus = sizes[xr() % (sizeof sizes / sizeof sizes[0])];
		}
		r.priority = 0;
		t0 = now_us();
		i = engine_alloc(e, &r, &p);
		t1 = now_us();
		pl[np++] = t1 - t0;
		psum += t1 - t0;
		if (i >= 0)
			live[nlive++] = i;
		else
			fails++;
	}
	qsort(pl, (size_t)np, sizeof *pl, cmpd);
	qsort(rl, (size_t)nr, sizeof *rl, cmpd);
	printf("alloc gpus=%lld requests=%d place_mean_us=%.3f place_median_us=%.3f "
	    "place_p99_us=%.3f release_mean_us=%.3f release_p99_us=%.3f\n",
	    gpus, np, psum / np, pl[np / 2], pl[np * 99 / 100], nr ? rsum / nr : 0.0,
	    nr ? rl[nr * 99 / 100] : 0.0);
	printf("# gpus=%lld spec_load_ms=%.1f engine_create_ms=%.1f releases=%d "
	    "unplaceable=%d (VC full at that moment)\n",
	    gpus, tload / 1e3, tcreate / 1e3, nr, fails);
	fflush(stdout);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
	spec_diags_release(&d);
	free(text);
	free(pl);
	free(rl);
	free(live);
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20000;

	run(1, n);
	run(8, n);
	run(64, n);
	return 0;
}
