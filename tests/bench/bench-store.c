/*
 * bench-store.c — the state store's speed, on a database file in a scratch
 * directory ($TMPDIR), WAL mode and synchronous=NORMAL as cellar runs it:
 *
 *   store ingest      events appended in transactions of 10,000 (one per
 *                     scheduling tick), jobs drawn at random among 100,000:
 *                     events/s with the schema's prev links (until schema
 *                     4 also with an index on events(run, job) for
 *                     comparison; events are a virtual table over packed
 *                     blocks since, which takes no index)
 *   store upsert      100,000 jobs inserted, then each updated once: jobs/s
 *   store load        a fresh connection loads 100,000 running jobs with
 *                     placements (store_job_load, the recovery path); and,
 *                     for the layout choice, a scan of the same columns kept
 *                     in one wide table
 *   store history     one job's events from a log of 1,000,000, by links
 *
 * tests/bench/README.md holds its current figures; targets: ingest >=
 * 200,000 events/s, load well under 1 s (a line says when a run misses
 * them; the exit status does not, since a busy machine would).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/xmalloc.h"
#include "store/store-int.h"

#define NJOBS		100000
#define NEVENTS		1000000
#define BATCH		10000

static void
die(const char *what, char *cause)
{
	fprintf(stderr, "bench-store: %s: %s\n", what, cause ? cause : "?");
	exit(1);
}

static char dir[256];

static char *
db_path(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void
remove_db(const char *path)
{
	char *x;

	unlink(path);
	x = xasprintf("%s-wal", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-shm", path);
	unlink(x);
	free(x);
}

/* A fresh store with one run and NJOBS jobs (all running with 8 GPUs). */
static struct store *
setup(const char *path, int64_t *run, bool placements, double *upsert_s,
    double *update_s)
{
	struct spec *s = spec_load_string("default", default_spec_yaml,
	    default_spec_yaml_len, NULL);
	int pod_first[] = { 0, 8 }, leaves[8];
	struct engine_placement pl = {
		.vc = 0, .priority = 0, .chain = 1, .pin = -1, .npods = 1,
		.pod_first = pod_first, .leaves = leaves, .nleaves = 8,
	};
	struct store_run r;
	struct store *st;
	struct job j;
	char *cause = NULL, name[32];
	double t0;
	int64_t spec;
	int i, k;

	remove_db(path);
	if (store_open(path, STORE_WRITE, &st, &cause) != 0)
		die("open", cause);
	store_run_init(&r);
	if (store_spec_put(st, s, &spec, &cause) != 0)
		die("spec", cause);
	r.spec = spec;
	r.kind = STORE_RUN_REPLAY;
	if (store_run_create(st, &r, &cause) != 0)
		die("run", cause);
	*run = r.id;
	t0 = bench_now();
	if (store_begin(st, &cause) != 0)
		die("begin", cause);
	for (i = 0; i < NJOBS; i++) {
		snprintf(name, sizeof name, "job-%06d", i);
		job_init(&j, i, name, i % 4, i * 1.5);
		job_set_shape(&j, 1, 8);
		j.state = JOB_RUNNING;
		j.engine_id = i;
		j.first_start = i * 1.5 + 3;
		if (store_job_put(st, *run, &j, &cause) != 0)
			die("job", cause);
		if (placements) {
			for (k = 0; k < 8; k++)
				leaves[k] = i * 8 + k;
			pl.id = i;
			pl.name = name;
			if (store_placement_put(st, *run, i, &pl, "r0n00", "r0n00:0-7",
			    &cause) != 0)
				die("placement", cause);
		}
	}
	if (store_commit(st, &cause) != 0)
		die("commit", cause);
	*upsert_s = bench_now() - t0;
	t0 = bench_now();
	if (store_begin(st, &cause) != 0)
		die("begin", cause);
	for (i = 0; i < NJOBS; i++) {
		snprintf(name, sizeof name, "job-%06d", i);
		job_init(&j, i, name, i % 4, i * 1.5);
		job_set_shape(&j, 1, 8);
		j.state = JOB_RUNNING;
		j.engine_id = i;
		j.attained = i * 8.0;
		if (store_job_put(st, *run, &j, &cause) != 0)
			die("job update", cause);
	}
	if (store_commit(st, &cause) != 0)
		die("commit", cause);
	*update_s = bench_now() - t0;
	spec_free(s);
	return st;
}

/* NEVENTS events on random jobs, BATCH per transaction; events/s. */
static double
ingest(struct store *st, int64_t run)
{
	struct rec r;
	char *cause = NULL;
	double t0;
	unsigned x = 1;
	int i;

	memset(&r, 0, sizeof r);
	r.cell = -1;
	r.by = -1;
	t0 = bench_now();
	for (i = 0; i < NEVENTS; i++) {
		if (i % BATCH == 0 && (i > 0 ? store_commit(st, &cause) : 0) != 0)
			die("commit", cause);
		if (i % BATCH == 0 && store_begin(st, &cause) != 0)
			die("begin", cause);
		x = x * 1103515245u + 12345u;
		r.job = (int)((x >> 8) % NJOBS);
		r.vc = r.job % 4;
		r.t = i * 0.25;
		r.kind = (enum rec_kind)(i % 4);
		snprintf(r.detail, sizeof r.detail, "%s", i % 4 == 1 ? "r0n00:0-7" : "");
		if (store_event_append(st, run, &r, NULL, &cause) != 0)
			die("append", cause);
	}
	if (store_commit(st, &cause) != 0)
		die("commit", cause);
	return NEVENTS / (bench_now() - t0);
}

static int
count_job(void *arg, const struct store_job *sj)
{
	long long *n = arg;

	*n += sj->placed ? sj->pl.pl.nleaves : 0;
	return 0;
}

static int
count_event(void *arg, const struct store_event *ev)
{
	(void)ev;
	(*(long long *)arg)++;
	return 0;
}

int
main(void)
{
	struct store_event_filter f;
	struct store *st;
	char *cause = NULL, *a = NULL;
	double upsert, update, rate, t0, load_ms, wide_ms, hist_ms;
	long long n = 0, nev = 0;
	int64_t run;
	int i;

	snprintf(dir, sizeof dir, "%s/bench-store.XXXXXX",
	    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(dir) == NULL)
		die("mkdtemp", NULL);
	a = db_path("a.db");

	/* Upserts and ingest with the schema as it is. */
	st = setup(a, &run, true, &upsert, &update);
	printf("store upsert jobs=%d insert_jobs_per_s=%.0f update_jobs_per_s=%.0f "
	    "(with placements)\n", NJOBS, NJOBS / upsert, NJOBS / update);
	rate = ingest(st, run);
	printf("store ingest events=%d batch=%d events_per_s=%.0f (prev links)\n",
	    NEVENTS, BATCH, rate);
	/* One job's history by its links. */
	store_event_filter_init(&f);
	f.run = run;
	t0 = bench_now();
	for (i = 0; i < 100; i++) {
		f.job = (i * 7919) % NJOBS;
		if (store_event_query(st, &f, count_event, &nev, &cause) != 0)
			die("history", cause);
	}
	hist_ms = (bench_now() - t0) * 1e3 / 100;
	printf("store history log=%d jobs=100 events=%lld ms_per_job=%.3f\n",
	    NEVENTS, nev, hist_ms);
	store_close(st);

	/* Recovery: a fresh connection loads every job with its placement. */
	if (store_open(a, 0, &st, &cause) != 0)
		die("reopen", cause);
	t0 = bench_now();
	if (store_job_load(st, run, count_job, &n, &cause) != 0)
		die("load", cause);
	load_ms = (bench_now() - t0) * 1e3;
	printf("store load jobs=%d leaves=%lld load_ms=%.1f (jobs + placements "
	    "tables)\n", NJOBS, n, load_ms);
	store_close(st);
	/* The layout not taken: placement columns in the job row. */
	if (store_open(a, STORE_WRITE, &st, &cause) != 0 ||
	    store_exec(st, "CREATE TABLE wide AS SELECT j.*, p.engine_id AS pe, "
	    "p.chain, p.pin, p.priority, p.orig_priority, p.lazy, p.downgraded, "
	    "p.pod_first, p.leaves, p.vleaves, p.nodes, p.gpus AS pg FROM jobs j "
	    "LEFT JOIN placements p ON p.run = j.run AND p.job = j.id; "
	    "CREATE UNIQUE INDEX wide_pk ON wide(run, id)", &cause) != 0)
		die("wide", cause);
	store_close(st);
	if (store_open(a, 0, &st, &cause) != 0)
		die("reopen", cause);
	{
		sqlite3_stmt *q;
		long long sum = 0;
		int c, nc;

		t0 = bench_now();
		if (sqlite3_prepare_v2(st->db, "SELECT * FROM wide WHERE run = ?1 "
		    "ORDER BY id", -1, &q, NULL) != SQLITE_OK)
			die("wide", xstrdup(sqlite3_errmsg(st->db)));
		sqlite3_bind_int64(q, 1, run);
		while (sqlite3_step(q) == SQLITE_ROW) {
			nc = sqlite3_column_count(q);
			for (c = 0; c < nc; c++)
				sum += sqlite3_column_bytes(q, c);
		}
		sqlite3_finalize(q);
		wide_ms = (bench_now() - t0) * 1e3;
		printf("store load jobs=%d scan_ms=%.1f (one wide table, columns "
		    "only: not used) bytes=%lld\n", NJOBS, wide_ms, sum);
	}
	store_close(st);
	remove_db(a);
	rmdir(dir);
	free(a);
	/* A figure, not a test: a busy machine must not fail make bench. */
	if (rate < 200000 || load_ms > 1000)
		printf("store: below target (ingest >= 200000 events/s, load < 1000 ms)\n");
	return 0;
}
