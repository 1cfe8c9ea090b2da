/*
 * bench-follow.c — what one poll of `dash --follow` costs on a big store:
 * the full Philly trace (specs/philly.yaml, las, hived) recorded by the
 * cellar binary next to this benchmark (build/VARIANT/cellar --db), then
 * followed in this process (dash_source_store) while a second connection
 * plays the writer: each round rewrites K jobs (attained + 1) in one
 * transaction and the follower polls once. It prints the first read (the
 * whole run) and the median poll for K = 1, 100 and 1,000, each also as a
 * share of the first read (a ratio within one run, so the shared
 * machine's load falls on both), and fails when a poll reports another
 * set of changed jobs than the K written.
 *
 *   follow philly jobs=.. open_ms=..
 *   follow philly k=K polls=.. poll_ms=.. of_open=..
 *
 * Without the trace (CELLAR_TRACES, /work/shared/traces, ../shared/traces)
 * or the binary it says so and skips.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "core/xmalloc.h"
#include "dash/source.h"
#include "store/store.h"

#define ROUNDS	9

static void
unlink_db(const char *db)
{
	char p[4300];

	unlink(db);
	snprintf(p, sizeof p, "%s-wal", db);
	unlink(p);
	snprintf(p, sizeof p, "%s-shm", db);
	unlink(p);
}

/* Record the Philly replay into db with the cellar binary; 0 or -1. */
static int
record(const char *cellar, const char *trace, const char *db, const char *xdg)
{
	pid_t pid;
	int st, fd;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 1);
		setenv("XDG_STATE_HOME", xdg, 1);
		execl(cellar, cellar, "--db", db, "replay", trace, "--spec",
		    "specs/philly.yaml", "--vc-map", "*=-", "--policy", "las",
		    (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

static void
no_rec(void *arg, const struct rec *r)
{
	(void)arg;
	(void)r;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int
cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * K distinct job ids below n (sorted), rewritten by the writer with their
 * attained service one second more (from the follower's copy of the
 * records, which are the stored ones: store_job_get would also look for
 * each job's newest event); 0 or -1.
 */
static int
write_round(struct store *w, int64_t run, const struct job *jobs, int n, int k,
    int *ids, char **cause)
{
	struct job j;
	int i, x, got = 0;

	while (got < k) {
		int id = (int)(bench_rand() % (unsigned)n);

		for (x = 0; x < got && ids[x] != id; x++)
			;
		if (x == got && jobs[id].name[0] != '-')
			ids[got++] = id;
	}
	qsort(ids, (size_t)k, sizeof *ids, cmp_int);
	if (store_begin(w, cause) != 0)
		return -1;
	for (i = 0; i < k; i++) {
		j = jobs[ids[i]];
		j.attained += 1;
		if (store_job_put(w, run, &j, cause) != 0) {
			store_rollback(w);
			return -1;
		}
	}
	return store_commit(w, cause);
}

int
main(int argc, char **argv)
{
	static const int ks[] = { 1, 100, 1000 };
	const char *dir = bench_traces_dir();
	char trace[4096], cellar[4096], tdir[4096], db[4200], *cause = NULL;
	struct dash_source src = { NULL, NULL };
	struct dash_changes ch;
	struct dash_data d;
	struct store *w = NULL;
	double t0, open_ms, poll[ROUNDS];
	int64_t run;
	int *ids, *seen, i, k, r, rc = 1;

	if (dir == NULL) {
		printf("follow: no traces found (set CELLAR_TRACES); skipped\n");
		return 0;
	}
	if ((k = bench_cellar("follow", argc > 0 ? argv[0] : NULL, cellar,
	    sizeof cellar, tdir, sizeof tdir)) != 0)
		return k < 0;
	snprintf(trace, sizeof trace, "%s/philly.csv", dir);
	snprintf(db, sizeof db, "%s/follow.db", tdir);
	if (record(cellar, trace, db, tdir) != 0) {
		fprintf(stderr, "bench-follow: cellar replay --db failed\n");
		goto out;
	}
	t0 = bench_now();
	if (dash_source_store(&src, db, &cause) != 0)
		goto fail;
	open_ms = (bench_now() - t0) * 1e3;
	src.ops->data(src.self, &d);
	src.ops->changes(src.self, &ch);		/* the first read's: all */
	printf("follow philly jobs=%d open_ms=%.1f\n", d.njobs, open_ms);
	if (d.njobs < 1000) {
		fprintf(stderr, "bench-follow: only %d jobs recorded\n", d.njobs);
		goto out;
	}
	if (store_open(db, STORE_WRITE, &w, &cause) != 0 ||
	    store_run_last(w, -1, &run, &cause) != 0)
		goto fail;
	ids = xcalloc(1000, sizeof *ids);
	seen = xcalloc(1000, sizeof *seen);
	for (i = 0; i < (int)(sizeof ks / sizeof ks[0]); i++) {
		k = ks[i];
		for (r = 0; r < ROUNDS; r++) {
			src.ops->data(src.self, &d);
			if (write_round(w, run, d.jobs, d.njobs, k, ids, &cause) != 0)
				goto fail;
			t0 = bench_now();
			if (src.ops->advance(src.self, 0, no_rec, NULL, &cause) != 0)
				goto fail;
			poll[r] = (bench_now() - t0) * 1e3;
			src.ops->changes(src.self, &ch);
			/* exactly the jobs written: the poll saw them all */
			memcpy(seen, ch.jobs, (size_t)(ch.njobs < k ? ch.njobs : k) *
			    sizeof *seen);
			qsort(seen, (size_t)(ch.njobs < k ? ch.njobs : k), sizeof *seen,
			    cmp_int);
			if (ch.all || ch.njobs != k ||
			    memcmp(seen, ids, (size_t)k * sizeof *ids) != 0) {
				fprintf(stderr, "bench-follow: k=%d round %d: the poll "
				    "reported %d jobs%s, not the %d written\n", k, r,
				    ch.njobs, ch.all ? " (all)" : "", k);
				goto out;
			}
		}
		qsort(poll, ROUNDS, sizeof poll[0], cmp_double);
		printf("follow philly k=%d polls=%d poll_ms=%.2f of_open=%.4f\n", k,
		    ROUNDS, poll[ROUNDS / 2], poll[ROUNDS / 2] / open_ms);
		fflush(stdout);
	}
	free(ids);
	free(seen);
	rc = 0;
	goto out;
fail:
	fprintf(stderr, "bench-follow: %s\n", cause != NULL ? cause : "failed");
	free(cause);
out:
	if (w != NULL)
		store_close(w);
	if (src.ops != NULL)
		dash_source_free(&src);
	unlink_db(db);
	rmdir(tdir);
	return rc;
}
