/*
 * bench-trace.c — how fast the trace readers are on the full public traces:
 * Philly (82,247 unsorted rows, wall-clock dates) and the largest ITP
 * cluster (cluster04, 15,801 rows), plus trace_to_jobs of Philly onto
 * specs/philly.yaml. The traces are not in the repository: they are looked
 * for in $CELLAR_TRACES, /work/shared/traces and ../shared/traces; without
 * them the benchmark says so and measures nothing.
 *
 * Each load is repeated (best of 5, the first run warms the page cache):
 *   trace philly jobs=82247 load_ms=.. rows_per_s=.. bytes=..
 *   trace itp-cluster04 jobs=15801 load_ms=.. rows_per_s=.. bytes=..
 *   trace philly to_jobs_ms=.. jobs=.. dropped=..
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bench.h"
#include "core/strbuf.h"
#include "sim/trace.h"
#include "spec/spec.h"

/* Best-of-5 load time of one file; keeps the last trace in *t. */
static int
bench_load(const char *label, const char *path, struct trace *t)
{
	double best = 1e30, t0, ms;
	struct stat st;
	char *cause = NULL;
	int i;

	for (i = 0; i < 5; i++) {
		if (i > 0)
			trace_release(t);
		t0 = bench_now() * 1e3;
		if (trace_load(path, TRACE_AUTO, t, &cause) < 0) {
			fprintf(stderr, "bench-trace: %s\n", cause);
			free(cause);
			return -1;
		}
		ms = (bench_now() * 1e3) - t0;
		if (ms < best)
			best = ms;
	}
	stat(path, &st);
	printf("trace %s jobs=%d load_ms=%.1f rows_per_s=%.0f bytes=%lld\n", label,
	    t->njobs, best, t->njobs / (best / 1e3), (long long)st.st_size);
	return 0;
}

int
main(void)
{
	const char *dir = bench_traces_dir();
	char path[4096], *cause = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct trace t;
	struct spec *s;
	struct job *jobs;
	double t0;
	int n, skipped, dropped;

	if (dir == NULL) {
		printf("# bench-trace: no traces directory (/work/shared/traces, "
		    "../shared/traces or $CELLAR_TRACES); nothing measured\n");
		return 0;
	}
	snprintf(path, sizeof path, "%s/philly.csv", dir);
	if (bench_load("philly", path, &t) < 0)
		return 1;
	trace_summary(&t, &sb);
	printf("# %s\n", sb.buf);
	s = spec_load("specs/philly.yaml", NULL);
	if (s != NULL) {
		t0 = bench_now() * 1e3;
		if (trace_to_jobs(&t, s, "*=-", 1, false, &jobs, &n, &skipped, &dropped,
		    &cause) < 0) {
			fprintf(stderr, "bench-trace: %s\n", cause);
			return 1;
		}
		printf("trace philly to_jobs_ms=%.1f jobs=%d dropped=%d\n", (bench_now() * 1e3) - t0,
		    n, dropped);
		free(jobs);
		spec_free(s);
	}
	trace_release(&t);
	snprintf(path, sizeof path, "%s/itp/cluster04.csv", dir);
	if (bench_load("itp-cluster04", path, &t) < 0)
		return 1;
	trace_release(&t);
	strbuf_release(&sb);
	return 0;
}
