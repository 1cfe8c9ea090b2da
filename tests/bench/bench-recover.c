/*
 * bench-recover.c — time from a state store to a ready engine after a
 * crash, at the HiveD paper's scale: a session run on a 65,536-GPU spec
 * (8 racks x 1,024 nodes x 8 GPUs, the cluster of bench-alloc) holding
 * 100,000 jobs — the running ones with the placements a real engine gave
 * them (~70% of the GPUs, Philly-like sizes), the rest finished — plus bad
 * nodes and the engine's saved marks and counters. The database is a file
 * in $TMPDIR, WAL, as cellar runs it.
 *
 * Timed, best of 3, each in a fresh session: session_log_recover, which
 * opens the store, reads the run and its spec text, parses the spec,
 * creates the engine, loads every job with its placement, restores the
 * running ones, the marks, the bad nodes and the counters, and runs
 * engine_check. The recovered engine is compared with the one that wrote
 * the store (same running jobs at the same leaves, same counters).
 * One line, with the target (1 s) said met or missed:
 *   recover jobs=100000 running=R gpus=65536 ... ready_ms=.. target=met
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine.h"
#include "job/job.h"
#include "spec/spec.h"
#include "store/store.h"

#define NJOBS	100000
#define RACKS	8
#define NVC	10

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "bench-recover: %s: %s\n", what, cause ? cause : "?");
	exit(1);
}

/* bench-alloc's cluster: VCs hold ~90% of it at rack, node, socket level. */

/* The store as a crashed session left it; returns the writing engine. */
static struct engine *
build(const char *path, struct spec *s, int *running)
{
	static const int sizes[] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8 };
	struct engine_placement pl;
	struct engine_stats st;
	struct engine_plan p;
	struct engine_req r;
	struct store_run run;
	struct strbuf eng = STRBUF_INIT;
	struct engine *e;
	struct store *db;
	struct job j;
	char *cause = NULL, name[32], *nodes, *gpus;
	int64_t spec;
	int i, id, fails = 0;

	if ((e = engine_create(s, ENGINE_HIVED, &cause)) == NULL)
		die("engine", cause);
	if (store_open(path, STORE_WRITE, &db, &cause) != 0)
		die("open", cause);
	store_run_init(&run);
	if (store_spec_put(db, s, &spec, &cause) != 0)
		die("spec", cause);
	run.spec = spec;
	run.kind = STORE_RUN_SESSION;
	run.mode = (char *)"hived";
	run.state = STORE_RUN_RUNNING;
	if (store_run_create(db, &run, &cause) != 0 || store_begin(db, &cause) != 0)
		die("run", cause);
	engine_plan_init(&p);
	memset(&r, 0, sizeof r);
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	*running = 0;
	for (i = 0; i < NJOBS; i++) {
		snprintf(name, sizeof name, "job-%06d", i);
		job_init(&j, i, name, (int)(bench_rand() % NVC), i);
		job_set_shape(&j, 1, sizes[bench_rand() % (sizeof sizes / sizeof sizes[0])]);
		engine_stats(e, &st);
		id = -1;
		/* Up to ~70% of the GPUs run; the others have finished. */
		if (st.used < st.gpus * 7 / 10 && fails < 1000) {
			r.name = name;
			r.vc = j.vc;
			r.members[0] = j.members[0];
			r.lazy = bench_rand() % 4 == 0;
			if ((id = engine_alloc(e, &r, &p)) < 0)
				fails++;
		}
		job_apply(&j, JOB_EV_START, i, name, sizeof name);
		snprintf(j.name, sizeof j.name, "job-%06d", i);
		if (id >= 0) {
			j.engine_id = id;
			(*running)++;
		} else {
			job_apply(&j, JOB_EV_COMPLETE, i + 60, name, sizeof name);
			snprintf(j.name, sizeof j.name, "job-%06d", i);
		}
		if (store_job_put(db, run.id, &j, &cause) != 0)
			die("job", cause);
		if (id >= 0 && engine_job_placement(e, id, &pl)) {
			nodes = session_leaf_nodes(s, pl.leaves, pl.nleaves);
			gpus = session_leaf_gpus(s, pl.leaves, pl.nleaves);
			if (store_placement_put(db, run.id, i, &pl, nodes, gpus, &cause) != 0)
				die("placement", cause);
			free(nodes);
			free(gpus);
		}
	}
	/* A few bad nodes among the busy ones, recorded as the session does. */
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof name, "r%dn%d", i % RACKS, (int)(bench_rand() % 1024));
		if (engine_node_set_bad(e, name, true, NULL, 0) >= 0 &&
		    store_health_set(db, run.id, name, true, 0, &cause) != 0)
			die("health", cause);
	}
	session_engine_state(e, &eng);
	if (store_run_set_engine(db, run.id, eng.buf, eng.len, &cause) != 0 ||
	    store_commit(db, &cause) != 0)
		die("commit", cause);
	strbuf_release(&eng);
	engine_plan_release(&p);
	store_close(db);
	return e;
}

/* The recovered engine runs the same jobs at the same leaves. */
static int
same(const struct engine *a, const struct engine *b)
{
	struct engine_stats x, y;
	struct engine_placement pa, pb;
	int id, lim = engine_job_limit(a);

	engine_stats(a, &x);
	engine_stats(b, &y);
	if (x.used != y.used || x.opp != y.opp || x.bad != y.bad || x.jobs != y.jobs ||
	    x.binds != y.binds || x.unbinds != y.unbinds || x.splits != y.splits ||
	    x.merges != y.merges)
		return 0;
	for (id = 0; id < lim; id++) {
		bool ha = engine_job_placement(a, id, &pa);
		bool hb = engine_job_placement(b, id, &pb);

		if (ha != hb)
			return 0;
		if (ha && (pa.nleaves != pb.nleaves || strcmp(pa.name, pb.name) != 0 ||
		    memcmp(pa.leaves, pb.leaves, sizeof *pa.leaves * (size_t)pa.nleaves)))
			return 0;
	}
	return 1;
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *text = bench_spec_text(RACKS, NVC), *cause = NULL, *path, *x;
	struct spec_diags d;
	struct spec *s;
	struct engine *orig;
	double best = 1e30, t0, t;
	int running, k, ok = 1;

	path = xasprintf("%s/bench-recover-%d.db", tmp, (int)getpid());
	spec_diags_init(&d);
	if ((s = spec_load_string("bench-65536.yaml", text, strlen(text), &d)) == NULL)
		die("spec", d.n ? d.v[0].text : "?");
	orig = build(path, s, &running);
	for (k = 0; k < 3; k++) {
		struct session sess;
		struct strbuf diags = STRBUF_INIT;

		session_init(&sess);
		session_set_db(&sess, path);
		t0 = bench_now() * 1e3;
		if (session_log_recover(&sess, &diags, &cause) != 1)
			die("recover", cause);
		t = (bench_now() * 1e3) - t0;
		if (t < best)
			best = t;
		if (diags.len > 0)
			die("recover said", diags.buf);
		ok = ok && same(orig, sess.engine);
		strbuf_release(&diags);
		session_release(&sess);
	}
	printf("recover jobs=%d running=%d gpus=%lld ready_ms=%.0f same=%s "
	    "target=%s (1000 ms)\n", NJOBS, running, s->gpus, best, ok ? "yes" : "NO",
	    best <= 1000 ? "met" : "MISSED");
	engine_free(orig);
	spec_free(s);
	spec_diags_release(&d);
	unlink(path);
	x = xasprintf("%s-wal", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-shm", path);
	unlink(x);
	free(x);
	free(path);
	free(text);
	return ok ? 0 : 1;
}
