/*
 * tsim-migrate.c — Gandiva's migration in the emulator (emu-migrate.c),
 * on one rack of four 4-GPU nodes (n0..n3):
 *  - locality: a 2-pod job spread over two nodes moves onto one node when
 *    a departure frees one (par.migrate off: it stays spread); on a node
 *    of two sockets, a job spread over both moves into one;
 *  - VCs: with two VCs, a node another VC's job frees is not taken (the
 *    engine refuses), a node of the job's own VC is, and every migrated
 *    job's cells are its VC's; random churn on specs/default.yaml in
 *    every mode keeps the engine's invariants and, where cells are bound
 *    to VCs (hived, private), every migrated job on its VC's cells;
 *  - cost: the migrated job finishes exactly its model's migration cost
 *    later than with --migrate-cost 0, and the report charges it;
 *  - defragmentation: a lone 1-GPU job is moved off its node onto the
 *    fullest other busy node, so fewer nodes are in use (off: not).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/emu.h"
#include "test.h"
#include "emu-work.h"

static int
vc_of(const struct spec *s, const char *name)
{
	int i;

	for (i = 0; i < s->nvcs; i++)
		if (strcmp(s->vcs[i].name, name) == 0)
			return i;
	return -1;
}

/* The distinct nodes under a job's placement now (0: holds no cells). */
static int
job_nodes(const struct emu *m, const struct spec *s, int job)
{
	struct engine_placement pl;
	int k, i, n = 0, seen[64];

	if (!emu_job_placement(m, job, &pl))
		return 0;
	for (k = 0; k < pl.nleaves; k++) {
		int node = s->cells[pl.leaves[k]].node;
		for (i = 0; i < n && seen[i] != node; i++)
			;
		if (i == n && n < 64)
			seen[n++] = node;
	}
	return n;
}

/* Nodes with a leaf in use by a guaranteed job. */
static int
nodes_in_use(const struct emu *m, const struct spec *s)
{
	struct engine_cell_info ci;
	int i, k, n = 0;

	for (i = 0; i < s->nnodes; i++) {
		int used = 0;
		for (k = 0; k < s->nodes[i].ncells; k++) {
			engine_cell(emu_engine(m), s->nodes[i].cells[k], &ci);
			used += ci.used;
		}
		n += used > 0;
	}
	return n;
}

/* Every leaf of job's placement is bound to VC vc. */
static bool
cells_of_vc(const struct emu *m, int job, int vc)
{
	struct engine_placement pl;
	struct engine_cell_info ci;
	int k;

	if (!emu_job_placement(m, job, &pl))
		return false;
	for (k = 0; k < pl.nleaves; k++) {
		engine_cell(emu_engine(m), pl.leaves[k], &ci);
		if (ci.vc != vc)
			return false;
	}
	return true;
}

/* Distinct nodes in the journal's start records. */
static int
start_nodes(const struct emu *m)
{
	const struct rec *log;
	int i, k, n, d = 0;

	log = emu_journal(m, &n);
	for (i = 0; i < n; i++) {
		if (log[i].kind != REC_START)
			continue;
		for (k = 0; k < i; k++)
			if (log[k].kind == REC_START && strcmp(log[k].detail, log[i].detail) == 0)
				break;
		d += k == i;
	}
	return d;
}

static int
count_kind(const struct emu *m, enum rec_kind kind, int job)
{
	const struct rec *log;
	int i, n, c = 0;

	log = emu_journal(m, &n);
	for (i = 0; i < n; i++)
		c += log[i].kind == kind && (job < 0 || log[i].job == job);
	return c;
}

/*
 * Four 3-GPU jobs, one per node (j0, j1 end at 1000), then j4 of two
 * 1-GPU pods: only single free GPUs are left, so it spreads over two
 * nodes. Model of j4: vgg16 (slow across nodes, ~3 s to migrate).
 */
static void
spread_jobs(struct job *jobs, int vc)
{
	int i;

	for (i = 0; i < 4; i++)
		add(jobs, i, vc, 0, 3, i < 2 ? 1000 : 1e5);
	add(jobs, 4, vc, 1, 2, 50000);
	job_set_shape(&jobs[4], 2, 1);
	jobs[4].duration = 50000;
	jobs[4].model = model_find("vgg16");
}

struct run {
	struct policy	 p;
	struct emu	*m;
};

static void
start_in(struct run *r, const struct spec *s, enum engine_mode mode,
    struct emu_params *ep, struct job *jobs, int n)
{
	struct policy_params pp;
	char *cause = NULL;

	policy_params_init(&pp);
	if (policy_init(&r->p, policy_find("gandiva"), &pp, &cause) < 0)
		abort();
	r->m = emu_create(s, mode, &r->p, ep, jobs, n, &cause);
	CHECKF(r->m != NULL, "%s", cause ? cause : "");
	if (r->m == NULL)
		abort();
}

static void
start(struct run *r, const struct spec *s, struct emu_params *ep, struct job *jobs,
    int n)
{
	start_in(r, s, ENGINE_HIVED, ep, jobs, n);
}

static void
stop(struct run *r)
{
	emu_free(r->m);
	policy_release(&r->p);
}

static void
test_locality(void)
{
	struct spec *s = rack4();
	struct emu_params ep;
	struct job jobs[5];
	struct run r;
	char *cause = NULL;
	int on, vc = vc_of(s, "A");
	double end[2];

	for (on = 0; on <= 1; on++) {
		spread_jobs(jobs, vc);
		emu_params_init(&ep);
		ep.migrate = on;
		start(&r, s, &ep, jobs, 5);
		CHECK(emu_run(r.m, 999, NULL, NULL, &cause) >= 0);
		CHECK_INTEQ(job_nodes(r.m, s, 4), 2);
		CHECK(emu_run(r.m, 1100, NULL, NULL, &cause) >= 0);
		CHECKF(job_nodes(r.m, s, 4) == (on ? 1 : 2), "migrate %d: j4 on %d nodes",
		    on, job_nodes(r.m, s, 4));
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 4), on ? 1 : 0);
		CHECK(cells_of_vc(r.m, 4, vc));
		CHECK(emu_run(r.m, INFINITY, NULL, NULL, &cause) >= 0);
		CHECK(emu_done(r.m));
		end[on] = jobs[4].end;
		stop(&r);
	}
	/* compact, vgg16 runs at full speed instead of its cross-node 0.35 */
	CHECKF(end[1] < 1000 + (end[0] - 1000) * 0.5, "ends at %g, spread at %g",
	    end[1], end[0]);
	spec_free(s);
}

/* Distinct sockets (the node cell's children) under a job's placement. */
static int
job_sockets(const struct emu *m, const struct spec *s, int job)
{
	struct engine_placement pl;
	int k, i, n = 0, seen[64];

	if (!emu_job_placement(m, job, &pl))
		return 0;
	for (k = 0; k < pl.nleaves; k++) {
		int sock = s->cells[pl.leaves[k]].parent;
		for (i = 0; i < n && seen[i] != sock; i++)
			;
		if (i == n && n < 64)
			seen[n++] = sock;
	}
	return n;
}

/*
 * Sockets: one 8-GPU node of two 4-GPU sockets; a 3-GPU job in each
 * (j0 ends at 1000), then a job of two 1-GPU pods gets the last GPU of
 * each socket.
 * When j0 ends, it moves into j0's socket (off: it stays spread).
 */
static void
test_sockets(void)
{
	struct spec *s = load_text(
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    SOCKET: {childCellType: GPU, childCellNumber: 4}\n"
	    "    NODE: {childCellType: SOCKET, childCellNumber: 2, isNodeLevel: true}\n"
	    "  physicalCells:\n"
	    "  - {cellType: NODE, cellAddress: n0}\n"
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: NODE, cellNumber: 1}\n");
	struct emu_params ep;
	struct job jobs[3];
	struct run r;
	char *cause = NULL;
	int on, vc = vc_of(s, "A");

	for (on = 0; on <= 1; on++) {
		add(jobs, 0, vc, 0, 3, 1000);
		add(jobs, 1, vc, 0, 3, 1e5);
		add(jobs, 2, vc, 1, 2, 50000);
		job_set_shape(&jobs[2], 2, 1);	/* one 2-GPU pod would need one socket */
		jobs[2].duration = 50000;
		jobs[2].model = model_find("vgg16");
		emu_params_init(&ep);
		ep.migrate = on;
		start(&r, s, &ep, jobs, 3);
		CHECK(emu_run(r.m, 999, NULL, NULL, &cause) >= 0);
		CHECK_INTEQ(job_sockets(r.m, s, 0), 1);
		CHECK_INTEQ(job_sockets(r.m, s, 1), 1);
		CHECK_INTEQ(job_sockets(r.m, s, 2), 2);
		CHECK(emu_run(r.m, 1100, NULL, NULL, &cause) >= 0);
		CHECK_INTEQ(jobs[0].state, JOB_COMPLETED);
		CHECKF(job_sockets(r.m, s, 2) == (on ? 1 : 2), "migrate %d: j2 on %d sockets",
		    on, job_sockets(r.m, s, 2));
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 2), on ? 1 : 0);
		stop(&r);
	}
	spec_free(s);
}

static void
test_vcs(void)
{
	struct spec *s = rack4_two_vcs(2);
	struct emu_params ep;
	struct job jobs[5];
	struct run r;
	char *cause = NULL;
	int a = vc_of(s, "A"), b = vc_of(s, "B");

	/* A: a0 (ends at 2000), a1 and the spread a4; B: b2 (ends at 1000), b3 */
	spread_jobs(jobs, a);
	jobs[0].duration = 2000;
	jobs[1].duration = 1e5;
	jobs[2].vc = b;
	jobs[2].duration = 1000;
	jobs[3].vc = b;
	emu_params_init(&ep);
	start(&r, s, &ep, jobs, 5);
	CHECK(emu_run(r.m, 999, NULL, NULL, &cause) >= 0);
	CHECK_INTEQ(job_nodes(r.m, s, 4), 2);
	/* B's node frees: a whole free node, but A holds its two already */
	CHECK(emu_run(r.m, 1500, NULL, NULL, &cause) >= 0);
	CHECK_INTEQ(jobs[2].state, JOB_COMPLETED);
	CHECK_INTEQ(job_nodes(r.m, s, 4), 2);
	CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, -1), 0);
	/* A's own node frees: there it goes */
	CHECK(emu_run(r.m, 2100, NULL, NULL, &cause) >= 0);
	CHECK_INTEQ(job_nodes(r.m, s, 4), 1);
	CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 4), 1);
	CHECK(cells_of_vc(r.m, 4, a));
	CHECK(cells_of_vc(r.m, 3, b));
	CHECK(emu_run(r.m, INFINITY, NULL, NULL, &cause) >= 0);
	stop(&r);
	spec_free(s);
}

/*
 * Random churn on specs/default.yaml in every mode: the engine's
 * invariants hold, and in hived and private mode (where cells are bound
 * to VCs) every migrated job sits on its VC's cells.
 */
static void
churn(const struct spec *s, enum engine_mode mode, struct job *jobs, int n)
{
	const char *mname = engine_mode_name(mode);
	struct engine_placement pl;
	const struct rec *log;
	struct emu_params ep;
	struct run r;
	char *cause = NULL, why[256];
	int i, k, nlog, moved = 0, step;

	random_jobs(s, jobs, n, 5);
	for (i = 0; i < n; i++) {
		jobs[i].submit /= 4;
		jobs[i].state_since = jobs[i].submit;
	}
	emu_params_init(&ep);
	ep.migrate_scale = 0.01;	/* cheap: more jobs qualify */
	start_in(&r, s, mode, &ep, jobs, n);
	for (step = 1; step < 100000 && !emu_done(r.m); step++) {
		CHECK(emu_run(r.m, step * 300.0, NULL, NULL, &cause) >= 0);
		log = emu_journal(r.m, &nlog);
		for (k = 0; k < nlog; k++) {
			int job = log[k].job;
			if (log[k].kind != REC_MIGRATE || !emu_job_placement(r.m, job, &pl))
				continue;
			moved++;
			CHECKF(mode == ENGINE_QUOTA || cells_of_vc(r.m, job, jobs[job].vc),
			    "%s: job %d migrated out of its VC", mname, job);
		}
		emu_drain(r.m);
		CHECKF(engine_check(emu_engine(r.m), why, sizeof why), "%s: %s", mname,
		    why);
	}
	CHECK(emu_done(r.m));
	CHECKF(moved > 0, "%s: %d migrations to check", mname, moved);
	stop(&r);
}

static void
test_vcs_random(void)
{
	static const enum engine_mode modes[] = {
		ENGINE_HIVED, ENGINE_PRIVATE, ENGINE_QUOTA,
	};
	struct spec *s = load_file("specs/default.yaml");
	int n = 300, mi;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);

	for (mi = 0; mi < 3; mi++)
		churn(s, modes[mi], jobs, n);
	free(jobs);
	spec_free(s);
}

static void
test_cost(void)
{
	struct spec *s = rack4();
	struct emu_params ep;
	struct emu_report rep[2];
	struct job jobs[2][5];
	struct run r;
	char *cause = NULL;
	double c = model_table[model_find("vgg16")].migrate;
	int k, vc = vc_of(s, "A");

	CHECK(c >= 1 && c <= 3.5);
	for (k = 0; k < 2; k++) {
		spread_jobs(jobs[k], vc);
		emu_params_init(&ep);
		ep.migrate_scale = k;	/* 0: free, 1: the model's cost */
		start(&r, s, &ep, jobs[k], 5);
		CHECK(emu_run(r.m, 1000, NULL, NULL, &cause) >= 0);
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 4), 1);
		/* stalled by the move: no progress yet */
		if (k == 1)
			CHECKF(emu_job_rate(r.m, 4) == 0, "rate %g", emu_job_rate(r.m, 4));
		CHECK(emu_run(r.m, INFINITY, NULL, NULL, &cause) >= 0);
		CHECK(emu_done(r.m));
		emu_report(r.m, &rep[k]);
		stop(&r);
	}
	CHECKF(fabs((jobs[1][4].end - jobs[0][4].end) - c) < 1e-6,
	    "finished %.9f later, the cost is %g", jobs[1][4].end - jobs[0][4].end, c);
	CHECK_INTEQ(rep[1].all.migrations, 1);
	CHECKF(fabs(rep[1].all.migrate_gpu_hours - c * 2 / 3600) < 1e-12, "%g GPU-h",
	    rep[1].all.migrate_gpu_hours);
	CHECK(rep[0].all.migrate_gpu_hours == 0);
	emu_report_release(&rep[0]);
	emu_report_release(&rep[1]);
	/* worth it only when the job has 20x the cost left to run: j4 has
	   about (50000 - 350) / 0.35 = 142,000 s left at 1000, so a cost of
	   20,000 s (less than that, more than a twentieth) keeps it spread */
	spread_jobs(jobs[0], vc);
	emu_params_init(&ep);
	ep.migrate_scale = 20000 / c;
	start(&r, s, &ep, jobs[0], 5);
	CHECK(emu_run(r.m, 1100, NULL, NULL, &cause) >= 0);
	CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 4), 0);
	CHECK_INTEQ(job_nodes(r.m, s, 4), 2);
	stop(&r);
	spec_free(s);
}

static void
test_defrag(void)
{
	struct spec *s = rack4();
	struct emu_params ep;
	struct job jobs[3];
	struct run r;
	char *cause = NULL;
	int on, vc = vc_of(s, "A");

	for (on = 0; on <= 1; on++) {
		/* 3 + 3 + 1 GPUs: Algorithm 1 gives each an unallocated node */
		add(jobs, 0, vc, 0, 3, 1e5);
		add(jobs, 1, vc, 0, 3, 1e5);
		add(jobs, 2, vc, 0, 1, 1e5);
		jobs[2].model = model_find("resnet50");
		emu_params_init(&ep);
		ep.migrate = on;
		start(&r, s, &ep, jobs, 3);
		CHECK(emu_run(r.m, 200, NULL, NULL, &cause) >= 0);
		/* they started on three nodes (the first tick's pass may have
		   moved j2 already) */
		CHECK_INTEQ(start_nodes(r.m), 3);
		CHECKF(nodes_in_use(r.m, s) == (on ? 2 : 3), "migrate %d: %d nodes in use",
		    on, nodes_in_use(r.m, s));
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, 2), on ? 1 : 0);
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, -1), on ? 1 : 0);
		/* the next passes find nothing more to empty */
		CHECK(emu_run(r.m, 2000, NULL, NULL, &cause) >= 0);
		CHECK_INTEQ(count_kind(r.m, REC_MIGRATE, -1), on ? 1 : 0);
		stop(&r);
	}
	/* --defrag-every 0: no pass */
	add(jobs, 0, vc, 0, 3, 1e5);
	add(jobs, 1, vc, 0, 3, 1e5);
	add(jobs, 2, vc, 0, 1, 1e5);
	emu_params_init(&ep);
	ep.defrag_every = 0;
	start(&r, s, &ep, jobs, 3);
	CHECK(emu_run(r.m, 2000, NULL, NULL, &cause) >= 0);
	CHECK_INTEQ(nodes_in_use(r.m, s), 3);
	stop(&r);
	spec_free(s);
}

static const struct test tests[] = {
	{ "locality", test_locality },
	{ "sockets", test_sockets },
	{ "vcs", test_vcs },
	{ "vcs-random", test_vcs_random },
	{ "cost", test_cost },
	{ "defrag", test_defrag },
};

TEST_MAIN(tests)
