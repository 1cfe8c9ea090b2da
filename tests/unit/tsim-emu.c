/*
 * tsim-emu.c — the emulator and the scheduler on hand-checkable cases
 * (Tiresias' Figure 7, FIFO head-of-line blocking, LAS demotion and
 * preemption, node failure) and on random workloads (conservation,
 * determinism, no GPU held twice — the engine checks that after every
 * event in debug builds).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "job/record.h"
#include "policy/policy.h"
#include "sim/emu.h"
#include "spec/spec.h"
#include "test.h"
#include "emu-work.h"

/* Run jobs to the end under the named policy; returns the report. */
static int
run_with(const struct spec *s, enum engine_mode mode, const char *policy,
    const struct policy_params *pp, bool ideal, struct job *jobs, int n,
    const struct emu_fault *faults, int nfaults, struct emu_report *r)
{
	struct policy p;
	struct emu_params par;
	struct emu *m;
	char *cause = NULL;
	long long ev;

	if (policy_init(&p, policy_find(policy), pp, &cause) < 0) {
		fprintf(stderr, "policy_init: %s\n", cause);
		free(cause);
		return -1;
	}
	emu_params_init(&par);
	par.ideal = ideal;
	par.faults = faults;
	par.nfaults = nfaults;
	m = emu_create(s, mode, &p, &par, jobs, n, &cause);
	if (m == NULL) {
		fprintf(stderr, "emu_create: %s\n", cause);
		free(cause);
		policy_release(&p);
		return -1;
	}
	ev = emu_run(m, INFINITY, NULL, NULL, &cause);
	if (ev < 0) {
		fprintf(stderr, "emu_run: %s\n", cause);
		free(cause);
	}
	emu_report(m, r);
	emu_free(m);
	policy_release(&p);
	return ev < 0 ? -1 : 0;
}

static int
run(const struct spec *s, enum engine_mode mode, const char *policy, bool ideal,
    struct job *jobs, int n, const struct emu_fault *faults, int nfaults,
    struct emu_report *r)
{
	struct policy_params pp;

	policy_params_init(&pp);
	return run_with(s, mode, policy, &pp, ideal, jobs, n, faults, nfaults, r);
}

static void
test_fig7_srsf(void)
{
	struct spec *s = one_node(2);
	struct job jobs[3];
	struct emu_report r;

	add(jobs, 0, 0, 0, 2, 2);
	add(jobs, 1, 0, 0, 1, 8);
	add(jobs, 2, 0, 0, 2, 6);
	CHECK(run(s, ENGINE_HIVED, "srsf", true, jobs, 3, NULL, 0, &r) == 0);
	CHECK(jobs[0].end == 2);
	CHECK(jobs[1].end == 10);
	CHECK(jobs[2].end == 16);
	CHECKF(fabs(r.all.jct.avg - 28.0 / 3) < 1e-9, "avg jct %g", r.all.jct.avg);
	CHECK_INTEQ(r.all.done, 3);
	emu_report_release(&r);
	spec_free(s);
}

/*
 * The same example under LAS (threshold 6 GPU-units) and Gittins (service
 * sample {4, 8, 12}, quantum 6), worked by hand in policy-las.c and
 * policy-gittins.c: J1 is demoted at t=8 and J2 preempts it; J2 is demoted
 * at t=11 and keeps its GPUs (same queue); J1 resumes at 14. JCTs 2, 16, 14.
 */
static void
test_fig7_las_gittins(void)
{
	static const double sample[] = { 4, 8, 12 };
	static const char *const names[] = { "las", "gittins" };
	struct spec *s = one_node(2);
	struct policy_params pp;
	struct job jobs[3];
	struct emu_report r;
	int i;

	for (i = 0; i < 2; i++) {
		policy_params_init(&pp);
		pp.thresholds[0] = 6;
		pp.service = sample;
		pp.nservice = 3;
		add(jobs, 0, 0, 0, 2, 2);
		add(jobs, 1, 0, 0, 1, 8);
		add(jobs, 2, 0, 0, 2, 6);
		CHECK(run_with(s, ENGINE_HIVED, names[i], &pp, true, jobs, 3, NULL, 0,
		    &r) == 0);
		CHECKF(jobs[0].end == 2 && jobs[1].end == 16 && jobs[2].end == 14,
		    "%s: ends %g %g %g", names[i], jobs[0].end, jobs[1].end, jobs[2].end);
		CHECKF(fabs(r.all.jct.avg - 32.0 / 3) < 1e-9, "%s: avg jct %g", names[i],
		    r.all.jct.avg);
		CHECK_INTEQ(jobs[1].preemptions, 1);
		emu_report_release(&r);
	}
	spec_free(s);
}

/* FIFO blocks behind a job that does not fit; fifo-skip lets later ones by. */
static void
test_fifo_blocking(void)
{
	struct spec *s = one_node(2);
	struct job jobs[3];
	struct emu_report r;
	int skip;

	for (skip = 0; skip < 2; skip++) {
		add(jobs, 0, 0, 0, 1, 100);
		add(jobs, 1, 0, 1, 2, 10);
		add(jobs, 2, 0, 2, 1, 10);
		CHECK(run(s, ENGINE_HIVED, skip ? "fifo-skip" : "fifo", true, jobs, 3,
		    NULL, 0, &r) == 0);
		CHECK(jobs[0].end == 100);
		if (skip) {
			CHECKF(jobs[2].first_start == 2, "j2 starts at %g", jobs[2].first_start);
			CHECK(jobs[1].first_start == 100);
		} else {
			CHECK(jobs[1].first_start == 100);
			CHECKF(jobs[2].first_start == 110, "j2 starts at %g", jobs[2].first_start);
			CHECKF(jobs[2].queued == 108, "j2 queued %g", jobs[2].queued);
		}
		emu_report_release(&r);
	}
	spec_free(s);
}

/* LAS: a long job crosses 1 GPU-hour, drops a queue, and a new job preempts it. */
static void
test_las_preempt(void)
{
	struct spec *s = one_node(2);
	struct job jobs[2];
	struct emu_report r;

	add(jobs, 0, 0, 0, 2, 3 * 3600);
	add(jobs, 1, 0, 3600, 2, 600);
	CHECK(run(s, ENGINE_HIVED, "las", true, jobs, 2, NULL, 0, &r) == 0);
	CHECK(jobs[1].first_start == 3600);
	CHECK(jobs[1].end == 4200);
	CHECK_INTEQ(jobs[0].preemptions, 1);
	CHECK_INTEQ(jobs[0].restarts, 1);
	CHECKF(jobs[0].end == 11400, "j0 ends at %g", jobs[0].end);
	CHECK(jobs[0].queued == 600);
	CHECK(jobs[0].attained == 2 * 3 * 3600);
	emu_report_release(&r);
	/* FIFO would have let it finish first */
	add(jobs, 0, 0, 0, 2, 3 * 3600);
	add(jobs, 1, 0, 3600, 2, 600);
	CHECK(run(s, ENGINE_HIVED, "fifo", true, jobs, 2, NULL, 0, &r) == 0);
	CHECK(jobs[0].end == 10800 && jobs[1].end == 11400);
	CHECK_INTEQ(jobs[0].preemptions, 0);
	emu_report_release(&r);
	spec_free(s);
}

/* The cost model: a preempted job pays save + restore, a failed one loses work. */
static void
test_costs_and_failure(void)
{
	struct spec *s = one_node(2);
	struct job jobs[2];
	struct emu_report r;
	struct emu_fault f = { "n0", 2700, 2800 };

	add(jobs, 0, 0, 0, 2, 3600);
	jobs[0].model = model_find("resnet50");
	/* checkpoint every 1800 s of progress: at 2700 it loses 900 s */
	CHECK(run(s, ENGINE_HIVED, "fifo", false, jobs, 1, &f, 1, &r) == 0);
	CHECK_INTEQ(jobs[0].restarts, 1);
	CHECK(jobs[0].lost_work == 900);
	CHECK(jobs[0].state == JOB_COMPLETED);
	/* restarts at 2800 (node back), restores 6 s, then 1800 s left */
	CHECKF(jobs[0].end == 2800 + 6 + 1800, "ends at %g", jobs[0].end);
	CHECK_INTEQ(r.all.failures, 1);
	CHECK(r.all.lost_gpu_hours > 0);
	emu_report_release(&r);

	/* locality: vgg16 over two nodes of a rack runs at its rack speed */
	spec_free(s);
	s = load_file("specs/hived-fig3.yaml");
	add(jobs, 0, spec_find_vc(s, "C"), 0, 8, 1000);
	job_set_shape(&jobs[0], 2, 8);
	jobs[0].model = model_find("vgg16");
	CHECK(run(s, ENGINE_HIVED, "fifo", false, jobs, 1, NULL, 0, &r) == 0);
	CHECKF(fabs(jobs[0].end - 1000 / model_table[jobs[0].model].speed[LOC_RACK]) < 1e-6,
	    "vgg16 across nodes ends at %g", jobs[0].end);
	emu_report_release(&r);
	spec_free(s);
}

/*
 * Affinity: two 2-GPU nodes, one GPU busy on each; a 2-GPU job waits for a
 * whole node (hard) or runs now as 2 pods x 1 GPU across nodes (soft), at
 * its model's speed across nodes.
 */
static void
test_affinity(void)
{
	static const char text[] =
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 2, isNodeLevel: true}\n"
	    "    RACK: {childCellType: NODE, childCellNumber: 2}\n"
	    "  physicalCells:\n"
	    "  - cellType: RACK\n"
	    "    cellChildren:\n"
	    "    - cellAddress: n0\n"
	    "    - cellAddress: n1\n"
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK, cellNumber: 1}\n";
	struct spec *s = spec_load_string("two.yaml", text, strlen(text), NULL);
	struct job jobs[4];
	struct emu_report r;
	int soft, vgg = model_find("vgg16");

	CHECK(s != NULL);
	if (s == NULL)
		return;
	for (soft = 0; soft < 2; soft++) {
		/* A and B pack n0; D goes to n1; B leaves: one GPU free on each */
		add(jobs, 0, 0, 0, 1, 1000);
		add(jobs, 1, 0, 0, 1, 1);
		add(jobs, 2, 0, 0.5, 1, 1000);
		add(jobs, 3, 0, 10, 2, 350);
		jobs[3].soft_affinity = soft;
		jobs[3].model = vgg;
		CHECK(run(s, ENGINE_HIVED, "fifo-skip", false, jobs, 4, NULL, 0, &r) == 0);
		if (soft) {
			CHECKF(jobs[3].first_start == 10, "soft starts at %g", jobs[3].first_start);
			CHECKF(fabs(jobs[3].end - (10 + 350 / model_table[vgg].speed[LOC_RACK])) < 1e-6,
			    "soft ends at %g", jobs[3].end);
			CHECK(r.relaxed == 1);
		} else {
			CHECKF(jobs[3].first_start == 1000, "hard starts at %g", jobs[3].first_start);
			CHECK(jobs[3].end == 1350);
			CHECK(r.relaxed == 0);
		}
		emu_report_release(&r);
	}
	spec_free(s);
}

static void
test_conservation(void)
{
	static const char *const policies[] = { "fifo", "fifo-skip", "las", "gittins", "srtf", "srsf",
		"gandiva" };
	static const enum engine_mode modes[] = { ENGINE_HIVED, ENGINE_QUOTA, ENGINE_PRIVATE };
	struct spec *s = load_file("specs/default.yaml");
	int n = test_long ? 3000 : 200, i, pi, mi, bad;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct job *again = xcalloc((size_t)n, sizeof *again);
	struct emu_report r;
	double attained;

	for (pi = 0; pi < 7; pi++)
		for (mi = 0; mi < 3; mi++) {
			random_jobs(s, jobs, n, 7 + pi);
			CHECK(run(s, modes[mi], policies[pi], false, jobs, n, NULL, 0, &r) == 0);
			attained = 0;
			bad = 0;
			for (i = 0; i < n; i++) {
				attained += jobs[i].attained;
				if (jobs[i].state != JOB_COMPLETED || jobs[i].work_done !=
				    jobs[i].duration || jobs[i].end < jobs[i].submit +
				    jobs[i].duration - 1e-6)
					bad++;
			}
			CHECKF(bad == 0, "%s/%s: %d jobs did not complete properly",
			    policies[pi], engine_mode_name(modes[mi]), bad);
			CHECK_INTEQ(r.all.done, n);
			CHECKF(fabs(attained - r.util * (double)s->gpus * r.makespan) <
			    1e-6 * attained, "%s: attained %g vs busy %g", policies[pi],
			    attained, r.util * (double)s->gpus * r.makespan);
			emu_report_release(&r);
			/* determinism: the same inputs, the same outcome */
			random_jobs(s, again, n, 7 + pi);
			CHECK(run(s, modes[mi], policies[pi], false, again, n, NULL, 0, &r) == 0);
			for (bad = 0, i = 0; i < n; i++)
				bad += again[i].end != jobs[i].end ||
				    again[i].preemptions != jobs[i].preemptions;
			CHECKF(bad == 0, "%s: %d jobs differ between two runs",
			    policies[pi], bad);
			emu_report_release(&r);
		}
	free(jobs);
	free(again);
	spec_free(s);
}

static bool
stop_now(void *arg, const struct emu_progress *pr)
{
	(*(int *)arg)++;
	(void)pr;
	return false;
}

/* A progress callback that says stop stops the run, which can go on later. */
static void
test_progress_stop(void)
{
	struct spec *s = load_file("specs/default.yaml");
	struct job jobs[200];
	struct policy p;
	struct policy_params pp;
	struct emu_params par;
	struct emu *m;
	char *cause = NULL;
	int calls = 0;

	random_jobs(s, jobs, 200, 3);
	policy_params_init(&pp);
	CHECK(policy_init(&p, policy_find("las"), &pp, &cause) == 0);
	emu_params_init(&par);
	m = emu_create(s, ENGINE_HIVED, &p, &par, jobs, 200, &cause);
	CHECK(m != NULL);
	if (m == NULL)
		return;
	CHECK(emu_run(m, INFINITY, stop_now, &calls, &cause) < 0);
	CHECKF(cause != NULL && strstr(cause, "interrupted") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(!emu_done(m));
	CHECK(emu_run(m, INFINITY, NULL, NULL, &cause) > 0);
	CHECK(emu_done(m));
	CHECK(calls >= 1);
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

static void
test_locality(void)
{
	struct spec *s = load_file("specs/hived-fig3.yaml");
	int node0 = s->nodes[0].cells[0], leaves[4], c, n = 0;

	/* the first GPUs of node1: fig3 is RACK > NODE > CPU-SOCKET > PCIE-SWITCH > GPU */
	for (c = 0; c < s->ncells && n < 4; c++) {
		int a = c;
		while (a >= 0 && a != node0)
			a = s->cells[a].parent;
		if (a == node0 && s->cells[c].level == 1)
			leaves[n++] = c;
	}
	CHECK_INTEQ(n, 4);
	CHECK(emu_locality(s, leaves, 1) == LOC_SWITCH);
	CHECK(emu_locality(s, leaves, 2) == LOC_SWITCH);
	CHECKF(emu_locality(s, leaves, 3) == LOC_SOCKET, "got %s",
	    locality_name(emu_locality(s, leaves, 3)));
	spec_free(s);
}

/* Run jobs to the end and copy the journal out; returns its length. */
static int
journal_of(const struct spec *s, const char *policy, bool ideal, struct job *jobs, int n,
    const struct emu_fault *faults, int nfaults, struct rec *out, int max)
{
	struct policy p;
	struct policy_params pp;
	struct emu_params par;
	struct emu *m;
	const struct rec *r;
	struct emu_jlog log;
	struct rec x;
	const int *d;
	char *cause = NULL;
	int nr, nd, i;

	policy_params_init(&pp);
	if (policy_init(&p, policy_find(policy), &pp, &cause) < 0)
		return -1;
	emu_params_init(&par);
	par.ideal = ideal;
	par.faults = faults;
	par.nfaults = nfaults;
	m = emu_create(s, ENGINE_HIVED, &p, &par, jobs, n, &cause);
	if (m == NULL)
		return -1;
	CHECK(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0);
	r = emu_journal(m, &nr);
	for (i = 0; i < nr && i < max; i++)
		out[i] = r[i];
	/* the compact copy expands to the same records */
	emu_jlog_init(&log);
	emu_journal_copy(m, &log);
	CHECK_INTEQ(log.n, nr);
	for (i = 0; i < nr && i < log.n; i++) {
		memset(&x, 0x5a, sizeof x);
		emu_jlog_rec(&log, i, &x);
		CHECKF(x.t == r[i].t && x.kind == r[i].kind && x.job == r[i].job &&
		    x.vc == r[i].vc && x.cell == r[i].cell && x.by == r[i].by &&
		    strcmp(x.detail, r[i].detail) == 0,
		    "record %d: copy %s job %d '%s', journal %s job %d '%s'", i,
		    rec_kind_name(x.kind), x.job, x.detail,
		    rec_kind_name(r[i].kind), r[i].job, r[i].detail);
	}
	/* every job changed, once each; a drain empties both */
	d = emu_dirty(m, &nd);
	CHECK_INTEQ(nd, n);
	for (i = 0; i < nd; i++)
		CHECK(d[i] >= 0 && d[i] < n);
	emu_drain(m);
	CHECK(emu_journal(m, &i) != NULL && i == 0);
	CHECK(emu_dirty(m, &i) != NULL && i == 0);
	emu_journal_copy(m, &log);	/* reused: emptied */
	CHECK_INTEQ(log.n, 0);
	CHECK_INTEQ((int)log.details.len, 0);
	emu_jlog_release(&log);
	emu_free(m);
	policy_release(&p);
	return nr;
}

static void
check_rec(const struct rec *r, double t, enum rec_kind kind, int job, int by, int cell,
    const char *detail)
{
	CHECKF(r->t == t && r->kind == kind && r->job == job && r->by == by &&
	    r->cell == cell && strcmp(r->detail, detail) == 0 &&
	    r->vc == (job >= 0 ? 0 : -1),
	    "want %g %s job %d by %d cell %d '%s', got %g %s job %d by %d cell %d '%s' vc %d",
	    t, rec_kind_name(kind), job, by, cell, detail, r->t, rec_kind_name(r->kind),
	    r->job, r->by, r->cell, r->detail, r->vc);
}

/* The journal says what happened, in order: LAS preemption, a node failure. */
static void
test_journal(void)
{
	struct spec *s = one_node(2);
	struct job jobs[4];
	struct rec r[32];
	struct emu_fault f = { "n0", 2700, 2800 };
	int n, node_cell = s->nodes[0].cells[0];

	/* j1 preempts j0 at 3600 (j0 left the first queue); free checkpoints:
	   j0 is requeued at the same instant, in a second tick */
	add(jobs, 0, 0, 0, 2, 3 * 3600);
	add(jobs, 1, 0, 3600, 2, 600);
	n = journal_of(s, "las", true, jobs, 2, NULL, 0, r, 32);
	CHECK_INTEQ(n, 9);
	if (n == 9) {
		check_rec(&r[0], 0, REC_SUBMIT, 0, -1, -1, "");
		check_rec(&r[1], 0, REC_START, 0, -1, -1, "n0");
		check_rec(&r[2], 3600, REC_SUBMIT, 1, -1, -1, "");
		check_rec(&r[3], 3600, REC_PREEMPT, 0, 1, -1, "");
		check_rec(&r[4], 3600, REC_START, 1, -1, -1, "n0");
		check_rec(&r[5], 3600, REC_REQUEUE, 0, -1, -1, "");
		check_rec(&r[6], 4200, REC_COMPLETE, 1, -1, -1, "");
		check_rec(&r[7], 4200, REC_START, 0, -1, -1, "n0");
		check_rec(&r[8], 11400, REC_COMPLETE, 0, -1, -1, "");
	}
	/* the node fails under j0 and comes back */
	add(jobs, 0, 0, 0, 2, 3600);
	jobs[0].model = model_find("resnet50");
	n = journal_of(s, "fifo", false, jobs, 1, &f, 1, r, 32);
	CHECK_INTEQ(n, 8);
	if (n == 8) {
		check_rec(&r[2], 2700, REC_NODE_BAD, -1, -1, node_cell, "n0");
		check_rec(&r[3], 2700, REC_FAIL, 0, -1, node_cell, "n0");
		check_rec(&r[4], 2700, REC_REQUEUE, 0, -1, -1, "after a node failure");
		check_rec(&r[5], 2800, REC_NODE_OK, -1, -1, node_cell, "n0");
		check_rec(&r[6], 2800, REC_START, 0, -1, -1, "n0");
		CHECK(r[7].kind == REC_COMPLETE && r[7].t == 2800 + 6 + 1800);
	}
	spec_free(s);
	/* across nodes: a hostlist; opportunistic: said so */
	s = load_file("specs/hived-fig3.yaml");
	add(jobs, 0, spec_find_vc(s, "C"), 0, 8, 1000);
	job_set_shape(&jobs[0], 2, 8);
	add(jobs, 1, spec_find_vc(s, "A"), 0, 1, 1000);
	jobs[1].klass = JOB_OPPORTUNISTIC;
	n = journal_of(s, "fifo", true, jobs, 2, NULL, 0, r, 32);
	CHECK_INTEQ(n, 6);
	if (n == 6) {
		CHECKF(r[2].kind == REC_START && strcmp(r[2].detail, "node[1-2]") == 0,
		    "'%s'", r[2].detail);
		CHECKF(r[3].kind == REC_START && strstr(r[3].detail, " (opportunistic)") != NULL,
		    "'%s'", r[3].detail);
	}
	spec_free(s);
}

static const struct test tests[] = {
	{ "journal", test_journal },
	{ "fig7-srsf", test_fig7_srsf },
	{ "fig7-las-gittins", test_fig7_las_gittins },
	{ "fifo-blocking", test_fifo_blocking },
	{ "las-preempt", test_las_preempt },
	{ "costs-and-failure", test_costs_and_failure },
	{ "locality", test_locality },
	{ "affinity", test_affinity },
	{ "progress-stop", test_progress_stop },
	{ "conservation", test_conservation },
};

TEST_MAIN(tests)
