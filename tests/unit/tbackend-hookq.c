/*
 * tbackend-hookq.c — the hook queue (backend.h, hookq.c) on real children
 * of the local backend (sh -c): a hook that exits 0 or not, one killed at
 * its timeout with its whole process group, retries after a doubling
 * backoff, output merged and bounded, a status hook's late answer, many
 * runs at once each handed back exactly once, hold, and hookq_free
 * reaping what still runs.
 *
 * The queue's clock is the caller's: the tests keep a virtual `now` and
 * move it past a timeout or a backoff themselves, so nothing waits for
 * time to pass; they only wait (hookq_wait, bounded by a wall-clock limit
 * that fails the test) for children to exit.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "test.h"

/* Wall-clock seconds a wait may take before the test fails (a loaded
   machine gets ample room; a passing run takes milliseconds). */
#define WALL_LIMIT	60.0

#define SPEC								\
	"physicalCluster:\n"						\
	"  cellTypes:\n"						\
	"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n" \
	"  physicalCells:\n"						\
	"  - {cellType: NODE, cellAddress: n1}\n"			\
	"virtualClusters:\n"						\
	"  a: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n"	\
	"backend: {type: local, hooks: hk}\n"

/* The queue under test, on a local backend whose hooks the test sets. */
struct rig {
	struct spec		*spec;
	struct backend		*b;
	struct hookq		*q;
	double			 now;		/* the queue's virtual clock */
	struct hook_done	*done;		/* handed back so far */
	int			 n;
};

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A queue whose `hook` runs `cmd`, timeout and retries as given. */
static int
rig_open(struct rig *r, enum spec_hook hook, const char *cmd, double timeout,
    int retries, double backoff)
{
	char *cause = NULL;

	memset(r, 0, sizeof *r);
	r->spec = spec_load_string("t.yaml", SPEC, strlen(SPEC), NULL);
	CHECK(r->spec != NULL);
	if (r->spec == NULL)
		return -1;
	free(r->spec->backend.hooks[hook]);
	r->spec->backend.hooks[hook] = cmd != NULL ? xstrdup(cmd) : NULL;
	r->spec->backend.timeout = timeout;
	r->spec->backend.retries = retries;
	r->spec->backend.backoff = backoff;
	r->b = backend_create(r->spec, &cause);
	CHECKF(r->b != NULL, "%s", cause ? cause : "");
	free(cause);
	if (r->b == NULL) {
		spec_free(r->spec);
		return -1;
	}
	r->q = hookq_create(r->b);
	r->now = 1000;
	return 0;
}

static void
rig_close(struct rig *r)
{
	int i;

	hookq_free(r->q);
	for (i = 0; i < r->n; i++)
		hookq_done_release(&r->done[i]);
	free(r->done);
	backend_free(r->b);
	spec_free(r->spec);
}

static void
submit(struct rig *r, enum spec_hook hook, long tag, const char *env)
{
	struct hook_req req = { .job = (int)tag, .node = 0, .hook = hook,
	    .tag = tag, .env = STRVEC_INIT };

	if (env != NULL)
		strvec_push(&req.env, env);
	hookq_submit(r->q, &req);
}

/*
 * Service at the virtual now until `want` runs are back in all, or the
 * queue waits on the clock alone (no child, no pipe to read: a backoff);
 * false only when the wall-clock limit passed first.
 */
static bool
drive(struct rig *r, int want)
{
	struct pollfd fds[1];
	double until = wall() + WALL_LIMIT, next;

	for (;;) {
		hookq_service(r->q, r->now, &r->done, &r->n);
		if (r->n >= want)
			return true;
		next = hookq_next(r->q, r->now);
		if (next < 0 || (next > 0.05 && hookq_pollfds(r->q, fds, 1) == 0))
			return true;
		if (wall() > until)
			return false;
		hookq_wait(r->q, r->now, 100, -1);
	}
}

static const struct hook_done *
find(const struct rig *r, long tag)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (r->done[i].tag == tag)
			return &r->done[i];
	return NULL;
}

/*
 * Wait (bounded) until pid is dead: gone, or a zombie its new parent has
 * not reaped yet (a hook runs under the local backend's watchdog shell,
 * so it is the queue's grandchild). True when it is.
 */
static bool
dies(const struct rig *r, long pid)
{
	double until = wall() + WALL_LIMIT;
	char st[64], line[256], state = 'R';
	FILE *f;

	snprintf(st, sizeof st, "/proc/%ld/stat", pid);
	while (wall() < until) {
		state = 'X';
		if ((f = fopen(st, "r")) != NULL) {
			if (fgets(line, sizeof line, f) != NULL &&
			    strrchr(line, ')') != NULL)
				state = strrchr(line, ')')[2];
			fclose(f);
		}
		if (state == 'X' || state == 'Z')
			return true;
		if (r->q != NULL)
			hookq_wait(r->q, r->now, 20, -1);
		else
			poll(NULL, 0, 20);
	}
	kill((pid_t)pid, SIGKILL);
	return false;
}

/* The pid a hook wrote to path (written with mv: whole or absent). */
static long
read_pid(const struct rig *r, const char *path)
{
	double until = wall() + WALL_LIMIT;
	long pid = 0;
	FILE *f;

	while (access(path, F_OK) != 0 && wall() < until)
		hookq_wait(r->q, r->now, 20, -1);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%ld", &pid) != 1)
			pid = 0;
		fclose(f);
	}
	return pid;
}

static void
test_exit_zero(void)
{
	struct rig r;
	const struct hook_done *d;

	if (rig_open(&r, SPEC_HOOK_START,
	    "echo out $CELLAR_T; echo err >&2; exit 0", 30, 2, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 7, "CELLAR_T=seven");
	CHECK_INTEQ(hookq_pending(r.q), 1);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	CHECK_INTEQ(hookq_pending(r.q), 0);
	if ((d = find(&r, 7)) != NULL) {
		CHECK_INTEQ(d->status, 0);
		CHECK_INTEQ(d->attempts, 1);
		CHECK(!d->timed_out);
		CHECK_INTEQ(d->job, 7);
		CHECK(d->hook == SPEC_HOOK_START);
		/* stdout and stderr in one stream, the job in the environment */
		CHECK_STREQ(d->out, "out seven\nerr\n");
		CHECK_INTEQ(d->dropped, 0);
	} else
		CHECK(d != NULL);
	rig_close(&r);
}

static void
test_exit_nonzero(void)
{
	struct rig r;

	if (rig_open(&r, SPEC_HOOK_STOP, "echo no; exit 3", 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_STOP, 1, NULL);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1) {
		CHECK_INTEQ(r.done[0].status, 3);
		CHECK_INTEQ(r.done[0].attempts, 1);	/* retries: 0 */
		CHECK(!r.done[0].timed_out);
		CHECK_STREQ(r.done[0].out, "no\n");
	}
	rig_close(&r);
}

/* A hook the spec does not have fails at once, as a missing program. */
static void
test_missing_hook(void)
{
	struct rig r;

	if (rig_open(&r, SPEC_HOOK_MIGRATE, NULL, 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_MIGRATE, 1, NULL);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1) {
		CHECK_INTEQ(r.done[0].status, 127);
		CHECKF(strstr(r.done[0].out, "no 'migrate' hook") != NULL, "%s",
		    r.done[0].out);
	}
	rig_close(&r);
}

/*
 * Killed at the timeout, background children too (the hook's process
 * group): the virtual clock passes the deadline while `sleep`s run.
 */
static void
test_timeout_kills_group(void)
{
	char dir[] = "/tmp/thookq.XXXXXX", cmd[512], path[64];
	struct rig r;
	double t0 = wall();
	long bg;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/bg", dir);
	snprintf(cmd, sizeof cmd, "sleep 300 & echo $! >%s.tmp; mv %s.tmp %s; "
	    "exec sleep 300", path, path, path);
	if (rig_open(&r, SPEC_HOOK_START, cmd, 5, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 1, NULL);
	hookq_service(r.q, r.now, &r.done, &r.n);	/* starts it */
	bg = read_pid(&r, path);			/* it runs */
	CHECK(bg > 1);
	hookq_service(r.q, r.now + 4.9, &r.done, &r.n);
	CHECK_INTEQ(r.n, 0);				/* not yet */
	r.now += 5;					/* the deadline */
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1) {
		CHECK(r.done[0].timed_out);
		CHECK_INTEQ(r.done[0].status, -1);
		CHECK_INTEQ(r.done[0].attempts, 1);
	}
	CHECKF(wall() - t0 < WALL_LIMIT, "took %.1f s", wall() - t0);
	/* the background sleep went with the group */
	CHECKF(bg > 1 && dies(&r, bg), "pid %ld lives on", bg);
	unlink(path);
	rmdir(dir);
	rig_close(&r);
}

/* Retried after backoff, 2 x backoff, ...: the clock has to get there. */
static void
test_retries_with_backoff(void)
{
	struct rig r;
	double next;

	if (rig_open(&r, SPEC_HOOK_STOP, "echo try; exit 5", 30, 2, 10) != 0)
		return;
	submit(&r, SPEC_HOOK_STOP, 1, NULL);
	CHECK(drive(&r, 1));				/* stops on the clock */
	CHECK_INTEQ(r.n, 0);
	next = hookq_next(r.q, r.now);
	CHECKF(next > 9.99 && next <= 10.0, "next %.3f", next);
	hookq_service(r.q, r.now + 9.9, &r.done, &r.n);
	CHECK_INTEQ(hookq_pollfds(r.q, (struct pollfd[4]){ { 0 } }, 4), 0);
	r.now += 10;
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 0);
	next = hookq_next(r.q, r.now);
	CHECKF(next > 19.99 && next <= 20.0, "next %.3f (doubled)", next);
	r.now += 20;
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);				/* 1 + 2 retries */
	if (r.n == 1) {
		CHECK_INTEQ(r.done[0].status, 5);
		CHECK_INTEQ(r.done[0].attempts, 3);
		CHECK_STREQ(r.done[0].out, "try\n");	/* the last attempt's */
	}
	CHECK_INTEQ(hookq_pending(r.q), 0);
	rig_close(&r);
}

/* A failure then a success: back once, with status 0 and two attempts. */
static void
test_retry_succeeds(void)
{
	char dir[] = "/tmp/thookq.XXXXXX", cmd[256];
	struct rig r;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(cmd, sizeof cmd, "if [ -e %s/once ]; then echo ok; exit 0; fi; "
	    ": >%s/once; exit 1", dir, dir);
	if (rig_open(&r, SPEC_HOOK_START, cmd, 30, 3, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 1, NULL);
	CHECK(drive(&r, 1));
	r.now += 1;
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1) {
		CHECK_INTEQ(r.done[0].status, 0);
		CHECK_INTEQ(r.done[0].attempts, 2);
		CHECK_STREQ(r.done[0].out, "ok\n");
	}
	snprintf(cmd, sizeof cmd, "%s/once", dir);
	unlink(cmd);
	rmdir(dir);
	rig_close(&r);
}

/* Output beyond HOOK_OUT_MAX is counted, not kept; the child still ends. */
static void
test_output_bounded(void)
{
	struct rig r;
	size_t total = 4 * HOOK_OUT_MAX + 123, i;
	char cmd[128];

	snprintf(cmd, sizeof cmd, "head -c %zu /dev/zero | tr '\\0' x", total);
	if (rig_open(&r, SPEC_HOOK_START, cmd, 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 1, NULL);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1) {
		CHECK_INTEQ(r.done[0].status, 0);
		CHECK_INTEQ(strlen(r.done[0].out), HOOK_OUT_MAX);
		CHECK_INTEQ(r.done[0].dropped, total - HOOK_OUT_MAX);
		for (i = 0; i < HOOK_OUT_MAX && r.done[0].out[i] == 'x'; i++)
			;
		CHECK_INTEQ(i, HOOK_OUT_MAX);
	}
	rig_close(&r);
}

/*
 * A status hook that exits 0 while a child of it still holds the pipe:
 * its late answer is read until end of file (ssh ControlMaster). Another
 * hook's run ends when the hook does, whatever its children hold.
 */
static void
test_status_late_answer(void)
{
	struct rig r;
	double t0 = wall();

	if (rig_open(&r, SPEC_HOOK_STATUS,
	    "(sleep 0.3; echo late) & echo early", 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_STATUS, 1, NULL);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1)
		CHECK_STREQ(r.done[0].out, "early\nlate\n");
	rig_close(&r);

	if (rig_open(&r, SPEC_HOOK_START,
	    "(sleep 30; echo late) & echo early", 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 1, NULL);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1)
		CHECK_STREQ(r.done[0].out, "early\n");
	CHECKF(wall() - t0 < 30, "waited %.1f s for a background child",
	    wall() - t0);
	rig_close(&r);
}

/* Many runs at once: each comes back exactly once, with its own answer. */
static void
test_many_at_once(void)
{
	enum { N = 64 };
	struct rig r;
	char env[32], want[32];
	int seen[N] = { 0 }, i, maxfds = 0, nfds;
	struct pollfd fds[N];

	if (rig_open(&r, SPEC_HOOK_HEALTH,
	    "echo n$CELLAR_I; exit $((CELLAR_I % 3))", 30, 0, 1) != 0)
		return;
	for (i = 0; i < N; i++) {
		snprintf(env, sizeof env, "CELLAR_I=%d", i);
		submit(&r, SPEC_HOOK_HEALTH, i, env);
	}
	CHECK_INTEQ(hookq_pending(r.q), N);
	hookq_service(r.q, r.now, &r.done, &r.n);
	nfds = hookq_pollfds(r.q, fds, N);
	if (nfds > maxfds)
		maxfds = nfds;
	CHECK(drive(&r, N));
	CHECK_INTEQ(r.n, N);
	CHECKF(maxfds > 1, "only %d ran at once", maxfds);
	for (i = 0; i < r.n; i++) {
		const struct hook_done *d = &r.done[i];

		if (d->tag < 0 || d->tag >= N) {
			CHECKF(0, "tag %ld", d->tag);
			continue;
		}
		seen[d->tag]++;
		snprintf(want, sizeof want, "n%ld\n", d->tag);
		CHECK_STREQ(d->out, want);
		CHECK_INTEQ(d->status, d->tag % 3);
	}
	for (i = 0; i < N; i++)
		CHECKF(seen[i] == 1, "run %d back %d times", i, seen[i]);
	CHECK_INTEQ(hookq_pending(r.q), 0);
	CHECK(hookq_next(r.q, r.now) < 0);		/* idle */
	rig_close(&r);
}

/* While held, nothing starts; released, the run goes. */
static void
test_hold(void)
{
	struct rig r;
	struct pollfd fds[2];

	if (rig_open(&r, SPEC_HOOK_START, "echo went", 30, 0, 1) != 0)
		return;
	hookq_hold(r.q, true);
	submit(&r, SPEC_HOOK_START, 1, NULL);
	hookq_service(r.q, r.now, &r.done, &r.n);
	hookq_service(r.q, r.now + 100, &r.done, &r.n);
	CHECK_INTEQ(hookq_pollfds(r.q, fds, 2), 0);	/* no child */
	CHECK_INTEQ(r.n, 0);
	CHECK_INTEQ(hookq_pending(r.q), 1);
	hookq_hold(r.q, false);
	CHECK(drive(&r, 1));
	CHECK_INTEQ(r.n, 1);
	if (r.n == 1)
		CHECK_STREQ(r.done[0].out, "went\n");
	rig_close(&r);
}

/* hookq_free kills what still runs (the hook's whole process group). */
static void
test_free_reaps(void)
{
	char dir[] = "/tmp/thookq.XXXXXX", cmd[512], path[64];
	struct rig r;
	long pid;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/pid", dir);
	snprintf(cmd, sizeof cmd, "echo $$ >%s.tmp; mv %s.tmp %s; exec sleep 300",
	    path, path, path);
	if (rig_open(&r, SPEC_HOOK_START, cmd, 30, 0, 1) != 0)
		return;
	submit(&r, SPEC_HOOK_START, 1, NULL);
	hookq_service(r.q, r.now, &r.done, &r.n);
	pid = read_pid(&r, path);
	CHECK(pid > 1 && kill((pid_t)pid, 0) == 0);	/* runs */
	hookq_free(r.q);
	r.q = NULL;
	CHECK_INTEQ(r.n, 0);		/* cancelled: nothing handed back */
	CHECKF(pid > 1 && dies(&r, pid), "pid %ld lives on", pid);
	unlink(path);
	rmdir(dir);
	rig_close(&r);
}

/* hookq_wait says whether the caller's descriptor became readable. */
static void
test_wait_on_fd(void)
{
	struct rig r;
	int p[2];

	if (rig_open(&r, SPEC_HOOK_START, "true", 30, 0, 1) != 0)
		return;
	CHECK(pipe(p) == 0);
	CHECK(!hookq_wait(r.q, r.now, 0, p[0]));
	CHECK(write(p[1], "x", 1) == 1);
	CHECK(hookq_wait(r.q, r.now, 10000, p[0]));
	close(p[0]);
	close(p[1]);
	rig_close(&r);
}

static const struct test tests[] = {
	{ "exit-zero", test_exit_zero },
	{ "exit-nonzero", test_exit_nonzero },
	{ "missing-hook", test_missing_hook },
	{ "timeout-kills-group", test_timeout_kills_group },
	{ "retries-with-backoff", test_retries_with_backoff },
	{ "retry-succeeds", test_retry_succeeds },
	{ "output-bounded", test_output_bounded },
	{ "status-late-answer", test_status_late_answer },
	{ "many-at-once", test_many_at_once },
	{ "hold", test_hold },
	{ "free-reaps", test_free_reaps },
	{ "wait-on-fd", test_wait_on_fd },
};

TEST_MAIN(tests)
