/*
 * bench-batch.c — what a hand command costs as the session's run grows: a
 * batch of gang allocs and releases through the command dispatcher
 * (cmd_group_dispatch with one session, as `cellar -f FILE` runs a file:
 * up to 256 commands share a commit, cmd/group.h), recorded in
 * a state store on a file in $TMPDIR (WAL, as cellar runs it), on the
 * 65,536-GPU cluster of bench-alloc (8 racks x 1,024 nodes x 8 GPUs, 10
 * VCs).
 *
 * The batch: N allocs (default 10,000) `alloc jI --vc vcV --gpus G` or,
 * above 8 GPUs, `--gang Px8`, of 1 to 64 GPUs (fixed seed, mostly small),
 * with releases of random running jobs interleaved so that there are
 * N * 7467 / 10000 of them, spread evenly. Every command is timed alone
 * in CPU time (CLOCK_PROCESS_CPUTIME_ID: user and system, the store's
 * writes included) and in wall time. The engine's own share is the same
 * sequence of engine_alloc / engine_release on an engine of its own (the
 * engine is deterministic: it places every job where the session's did).
 * The batch runs twice, the store on a file and then in memory (`--db
 * :memory:`: the same SQL without the WAL's writes, locks and checkpoints).
 *
 * One line per store and window of stored jobs (the run's jobs: every
 * placed alloc so far, running or released), around 1,000 and just
 * before N, with the target (20 us of CPU per command) said met or missed:
 *   batch store=file|memory jobs=LO-HI cmds=.. cmd_us=.. alloc_us=..
 *         release_us=.. engine_us=.. commit_us=.. wall_us=.. target=met
 * commit_us is the group commits' share of cmd_us: what the commands that
 * closed a group (one in 256, each carrying its group's commit) cost
 * above the others, spread over all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "cluster/session.h"
#include "cmd/cmd.h"
#include "cmd/group.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine.h"
#include "spec/spec.h"

#define RACKS		8
#define NVC		10
#define TARGET_US	20.0

/* One command of the batch, kept so the engine alone can run it again. */
struct op {
	int	 job;		/* alloc: its number (name jN); release: whose */
	int	 vc, gpus, pods;
	bool	 release;
	bool	 placed;	/* alloc: the dispatcher placed it */
	int	 stored;	/* the run's jobs when the command ran */
	bool	 closed;	/* it closed its group: the commit is its */
	double	 cpu, wall;	/* us */
};

/* The windows: stored jobs in [lo, hi). */
struct window {
	int	 lo, hi;
	int	 nalloc, nrel, nclosed;
	double	 alloc, rel, wall, engine, closed;
};

static void
die(const char *what, const char *cause)
{
	fprintf(stderr, "bench-batch: %s: %s\n", what, cause ? cause : "?");
	exit(1);
}

static double
cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* A command's result, once its group committed: an alloc may not fit. */
static void
emit(void *arg, void *tag, struct strbuf *out, struct strbuf *err,
    struct cmd_result *res)
{
	struct op *o = tag;

	(void)arg;
	(void)out;
	(void)err;
	if (res->status != 0 && !(res->status == CMD_EXIT_FAIL && !o->release))
		die(o->release ? "release" : "alloc", res->cause);
}

static void
lost(void *arg, void *tag, const struct cmd_result *res, const char *cause)
{
	(void)arg;
	(void)tag;
	(void)res;
	die("commit", cause);
}

static const struct cmd_group_ops group_ops = { emit, lost };

/* Run one command as `cellar -f FILE` does (commits shared, group.h). */
static void
dispatch(struct cmd_group *g, int argc, char **argv, struct op *o)
{
	double c0, w0;

	w0 = bench_now();
	c0 = cpu_us();
	cmd_group_dispatch(g, argc, argv, o);
	o->cpu = cpu_us() - c0;
	o->wall = (bench_now() - w0) * 1e6;
	o->closed = !g->open;
}

/* The batch through the dispatcher; ops gets what ran. Returns their count. */
static int
run_batch(struct session *s, int nalloc, struct op *ops)
{
	struct cmd_group grp, *gp = &grp;
	double c0, w0;
	static const int sizes[] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 4, 4, 4, 8, 8, 8,
	    16, 16, 32, 64 };
	int *live = xcalloc((size_t)nalloc, sizeof *live);
	int nlive = 0, nops = 0, stored = 0, released = 0, i, k, g;
	int nrel = (int)((long long)nalloc * 7467 / 10000);
	char name[32], vc[16], gpus[16], gang[32];

	cmd_group_init(gp, s, &group_ops, NULL);
	gp->enabled = true;
	for (i = 0; i < nalloc; i++) {
		struct op *o = &ops[nops++];

		memset(o, 0, sizeof *o);
		o->job = i;
		o->vc = (int)(bench_rand() % NVC);
		g = sizes[bench_rand() % (sizeof sizes / sizeof sizes[0])];
		o->gpus = g > 8 ? 8 : g;
		o->pods = g > 8 ? g / 8 : 1;
		o->stored = stored;
		snprintf(name, sizeof name, "j%d", i);
		snprintf(vc, sizeof vc, "vc%d", o->vc);
		if (o->pods == 1) {
			char *argv[] = { "alloc", name, "--vc", vc, "--gpus", gpus, NULL };

			snprintf(gpus, sizeof gpus, "%d", o->gpus);
			dispatch(gp, 6, argv, o);
		} else {
			char *argv[] = { "alloc", name, "--vc", vc, "--gang", gang, NULL };

			snprintf(gang, sizeof gang, "%dx%d", o->pods, o->gpus);
			dispatch(gp, 6, argv, o);
		}
		o->placed = engine_job_find(s->engine, name) >= 0;
		if (o->placed) {
			live[nlive++] = i;
			stored++;
		}
		/* Releases keep pace: (i + 1) * nrel / nalloc of them by now. */
		while (nlive > 0 && released < (long long)(i + 1) * nrel / nalloc) {
			char *argv[] = { "release", name, NULL };

			o = &ops[nops++];
			memset(o, 0, sizeof *o);
			k = (int)(bench_rand() % (unsigned)nlive);
			o->job = live[k];
			o->release = true;
			o->stored = stored;
			live[k] = live[--nlive];
			snprintf(name, sizeof name, "j%d", o->job);
			dispatch(gp, 2, argv, o);
			released++;
		}
	}
	/* the last group's commit is the last command's */
	w0 = bench_now();
	c0 = cpu_us();
	cmd_group_release(gp, NULL);
	ops[nops - 1].cpu += cpu_us() - c0;
	ops[nops - 1].wall += (bench_now() - w0) * 1e6;
	free(live);
	return nops;
}

/* The same commands on the engine alone: each op's engine time into w. */
static void
run_engine(const struct spec *sp, const struct op *ops, int nops,
    struct window *w, int nw)
{
	struct engine_plan p;
	struct engine_req r;
	struct engine *e;
	char *cause = NULL, name[32];
	double c0, t;
	int i, k, id;

	if ((e = engine_create(sp, ENGINE_HIVED, &cause)) == NULL)
		die("engine", cause);
	engine_plan_init(&p);
	for (i = 0; i < nops; i++) {
		const struct op *o = &ops[i];

		snprintf(name, sizeof name, "j%d", o->job);
		c0 = cpu_us();
		if (o->release) {
			if ((id = engine_job_find(e, name)) < 0)
				die("engine release", name);
			engine_release(e, id);
		} else {
			memset(&r, 0, sizeof r);
			r.name = name;
			r.vc = o->vc;
			r.leaf_type = -1;
			r.pin = -1;
			r.nmembers = 1;
			r.members[0].pods = o->pods;
			r.members[0].gpus = o->gpus;
			if ((engine_alloc(e, &r, &p) >= 0) != o->placed)
				die("engine alloc", "placed otherwise than by the dispatcher");
		}
		t = cpu_us() - c0;
		for (k = 0; k < nw; k++)
			if (o->stored >= w[k].lo && o->stored < w[k].hi)
				w[k].engine += t;
	}
	engine_plan_release(&p);
	engine_free(e);
}

static void
rm(const char *path, const char *suffix)
{
	char *x = xasprintf("%s%s", path, suffix);

	unlink(x);
	free(x);
}

/* Per-window CPU and wall time of the dispatcher's commands. */
static void
windows_fill(const struct op *ops, int nops, struct window *w, int nw)
{
	int i, k;

	for (i = 0; i < nops; i++)
		for (k = 0; k < nw; k++) {
			if (ops[i].stored < w[k].lo || ops[i].stored >= w[k].hi)
				continue;
			if (ops[i].closed) {
				w[k].nclosed++;
				w[k].closed += ops[i].cpu;
			}
			if (ops[i].release) {
				w[k].nrel++;
				w[k].rel += ops[i].cpu;
			} else {
				w[k].nalloc++;
				w[k].alloc += ops[i].cpu;
			}
			w[k].wall += ops[i].wall;
		}
}

/*
 * The group commits' share of a command: what the commands that closed a
 * group cost above the others, spread over all.
 */
static double
commit_share(const struct window *x)
{
	int n = x->nalloc + x->nrel;

	if (x->nclosed == 0 || x->nclosed == n)
		return 0;
	return (x->closed / x->nclosed - (x->alloc + x->rel - x->closed) /
	    (n - x->nclosed)) * x->nclosed / n;
}

/* The batch in a new session on store db and spec file yaml. */
static int
batch(const char *db, const char *yaml, int nalloc, struct op *ops)
{
	struct strbuf diags = STRBUF_INIT;
	struct session s;
	char *cause = NULL;
	int nops;

	session_init(&s);
	session_set_db(&s, db);
	if (session_load(&s, yaml, ENGINE_HIVED, &diags, NULL, &cause) != 0)
		die("load", cause);
	nops = run_batch(&s, nalloc, ops);
	session_release(&s);
	strbuf_release(&diags);
	return nops;
}

int
main(int argc, char **argv)
{
	static const char *const stores[] = { "file", "memory" };
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int nalloc = argc > 1 ? atoi(argv[1]) : 10000;
	char *text = bench_spec_text(RACKS, NVC), *db, *yaml;
	unsigned long long seed = bench_rng;
	struct window w[2][2];
	struct spec_diags d;
	struct spec *sp;
	struct op *ops;
	double c0, clock_us, t0, batch_s = 0;
	int nops = 0, i, k, m, placed = 0, nrel = 0;
	FILE *f;

	if (nalloc < 2000)
		nalloc = 2000;
	db = xasprintf("%s/bench-batch-%d.db", tmp, (int)getpid());
	yaml = xasprintf("%s/bench-batch-%d.yaml", tmp, (int)getpid());
	if ((f = fopen(yaml, "w")) == NULL || fputs(text, f) == EOF || fclose(f) != 0)
		die("spec file", yaml);
	spec_diags_init(&d);
	if ((sp = spec_load_string("bench-65536.yaml", text, strlen(text), &d)) == NULL)
		die("spec", d.n ? d.v[0].text : "?");
	ops = xcalloc((size_t)nalloc * 2 + 1, sizeof *ops);
	memset(w, 0, sizeof w);
	/* The same batch twice: the store on a file, then in memory. */
	for (m = 0; m < 2; m++) {
		for (k = 0; k < 2; k++) {
			w[m][k].lo = k == 0 ? 500 : nalloc - 1000;
			w[m][k].hi = k == 0 ? 1500 : nalloc;
		}
		bench_rng = seed;
		t0 = bench_now();
		nops = batch(m == 0 ? db : ":memory:", yaml, nalloc, ops);
		if (m == 0)
			batch_s = bench_now() - t0;
		windows_fill(ops, nops, w[m], 2);
	}
	for (i = 0; i < nops; i++) {
		placed += !ops[i].release && ops[i].placed;
		nrel += ops[i].release;
	}
	run_engine(sp, ops, nops, w[0], 2);
	c0 = cpu_us();
	for (i = 0; i < 1000; i++)
		(void)cpu_us();
	clock_us = (cpu_us() - c0) / 1000;

	for (m = 0; m < 2; m++)
		for (k = 0; k < 2; k++) {
			const struct window *x = &w[m][k];
			int n = x->nalloc + x->nrel;
			double cmd = (x->alloc + x->rel) / n;

			printf("batch store=%s jobs=%d-%d cmds=%d cmd_us=%.1f "
			    "alloc_us=%.1f release_us=%.1f engine_us=%.1f commit_us=%.1f "
			    "wall_us=%.1f target=%s (%.0f us)\n", stores[m], x->lo, x->hi,
			    n, cmd, x->alloc / x->nalloc, x->rel / x->nrel,
			    w[0][k].engine / n, commit_share(x), x->wall / n, cmd <= TARGET_US ? "met" : "MISSED", TARGET_US);
		}
	printf("# gpus=%lld allocs=%d placed=%d releases=%d cmds=%d batch_s=%.1f "
	    "(store on a file) clock_call_us=%.2f (two per timed command)\n",
	    sp->gpus, nalloc, placed, nrel, nops, batch_s, clock_us);
	fflush(stdout);

	spec_free(sp);
	spec_diags_release(&d);
	unlink(yaml);
	unlink(db);
	rm(db, "-wal");
	rm(db, "-shm");
	free(db);
	free(yaml);
	free(ops);
	free(text);
	return 0;
}
