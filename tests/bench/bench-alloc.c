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

#include "bench.h"
#include "core/strbuf.h"
#include "engine/engine.h"
#include "spec/spec.h"

static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define NVC 10

struct live {
	int id;
};

static void
run(int racks, int requests)
{
	char *text = bench_spec_text(racks, NVC), *cause = NULL, name[32];
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
	t0 = bench_now() * 1e6;
	s = spec_load_string("bench.yaml", text, strlen(text), &d);
	tload = (bench_now() * 1e6) - t0;
	if (s == NULL) {
		fprintf(stderr, "bench spec: %s\n", d.n ? d.v[0].text : "?");
		exit(1);
	}
	t0 = bench_now() * 1e6;
	e = engine_create(s, ENGINE_HIVED, &cause);
	tcreate = (bench_now() * 1e6) - t0;
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
			r.vc = (int)(bench_rand() % NVC);
			r.members[0].pods = 1;
			r.members[0].gpus = sizes[bench_rand() % (sizeof sizes / sizeof sizes[0])];
			i = engine_alloc(e, &r, &p);
			if (i >= 0)
				live[nlive++] = i;
			else if (++fails > 100000)
				break;
		}
	}
	while (np < requests) {
		if (nlive > 0 && bench_rand() % 100 < 45) {
			int k = (int)(bench_rand() % (unsigned)nlive);
			t0 = bench_now() * 1e6;
			engine_release(e, live[k]);
			t1 = bench_now() * 1e6;
			rl[nr++] = t1 - t0;
			rsum += t1 - t0;
			live[k] = live[--nlive];
			continue;
		}
		snprintf(name, sizeof name, "j%d", seq++);
		r.name = name;
		r.vc = (int)(bench_rand() % NVC);
		if (bench_rand() % 100 < 5) {
			r.members[0].pods = 2 + (int)(bench_rand() % 3);
			r.members[0].gpus = 8;
		} else {
			r.members[0].pods = 1;
			r.members[0].gpus = sizes[bench_rand() % (sizeof sizes / sizeof sizes[0])];
		}
		r.priority = 0;
		t0 = bench_now() * 1e6;
		i = engine_alloc(e, &r, &p);
		t1 = bench_now() * 1e6;
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
