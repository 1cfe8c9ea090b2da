/*
 * tsim-share.c — GPU sharing (sim/share.c) and Gandiva's mechanisms in the
 * emulator, reproduced in shape on hand-made workloads. Every figure below
 * comes from running the emulator's model; nothing is a stored result.
 *
 *  - the plans: shares add up to the slots, packing pairs the lowest
 *    utilizations and refuses what does not fit;
 *  - Gandiva Fig. 9: six 1-GPU jobs on one 4-GPU node each get ~4/6 of a
 *    GPU, and the node's aggregate throughput drops by less than a few
 *    percent (the suspend+resume cost per slice);
 *  - Gandiva Table 1 in shape: packing low-utilization jobs beats
 *    time-slicing and is kept; packing high-utilization jobs loses and is
 *    undone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/emu.h"
#include "sim/share.h"
#include "test.h"
#include "emu-work.h"

static void
test_plans(void)
{
	struct share_member mb[6];
	struct share_slot out[6];
	double sum;
	int i, lstm = model_find("lstm"), resnet = model_find("resnet50");

	for (i = 0; i < 6; i++) {
		mb[i].job = i;
		mb[i].util = 0.3 + 0.1 * (5 - i);	/* job 5 lowest */
		mb[i].mem = 4;
	}
	share_plan_slice(mb, 6, 4, out);
	for (sum = 0, i = 0; i < 6; i++)
		sum += out[i].run ? out[i].share : 0;
	CHECKF(fabs(sum - 4) < 1e-12, "slice shares %g", sum);
	CHECK(out[0].run && out[3].run && !out[4].run && !out[5].run);
	CHECK(share_plan_pack(mb, 6, 4, 16, out));
	for (sum = 0, i = 0; i < 6; i++) {
		CHECK(out[i].run);
		sum += out[i].share;
	}
	CHECKF(fabs(sum - 4) < 1e-12, "pack shares %g", sum);
	/* the two lowest pairs: 5 with 4, 3 with 2 */
	CHECK(out[5].partner == 4 && out[4].partner == 5);
	CHECK(out[3].partner == 2 && out[1].partner == -1 && out[0].partner == -1);
	CHECK(!share_plan_pack(mb, 6, 2, 16, out));	/* three on a slot */
	CHECK(!share_plan_pack(mb, 6, 4, 7, out));	/* 4 + 4 GiB > 7 */
	mb[5].util = 2;					/* no profile */
	CHECK(!share_plan_pack(mb, 6, 4, 16, out));
	/* the model table has both kinds of pairs (Gandiva Table 1) */
	CHECK(2 * share_packed_factor(0, 2 * model_table[lstm].gpu_util, 2) > 1.5);
	CHECK(2 * share_packed_factor(0, 2 * model_table[resnet].gpu_util, 2) < 1);
	CHECK(share_slice_rate((double[]){ 1, 1, 1, 1, 1, 1 }, 6, 4, 0.3, 60) < 4);
}

/* Run jobs on one 4-GPU node under `policy` until `until`. */
static void
run_node(const char *policy, bool pack, struct job *jobs, int n, double until,
    struct emu_report *r, int *suspends)
{
	struct spec *s = one_node(4);
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	const struct rec *log;
	struct emu *m;
	char *cause = NULL;
	int i, nlog;

	policy_params_init(&pp);
	emu_params_init(&ep);
	ep.pack = pack;
	CHECK(policy_init(&p, policy_find(policy), &pp, &cause) == 0);
	m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, n, &cause);
	CHECKF(m != NULL, "%s", cause ? cause : "");
	CHECK(emu_run(m, until, NULL, NULL, &cause) >= 0);
	log = emu_journal(m, &nlog);
	for (*suspends = 0, i = 0; i < nlog; i++)
		*suspends += log[i].kind == REC_SUSPEND;
	emu_report(m, r);
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

static void
six_jobs(struct job *jobs, const char *model, double dur)
{
	int i;

	for (i = 0; i < 6; i++) {
		add(jobs, i, 0, 0, 1, dur);
		jobs[i].model = model_find(model);
	}
}

/* Gandiva Fig. 9: 6 jobs time-sliced on 4 GPUs. */
static void
test_fig9(void)
{
	struct job jobs[6], fifo[6];
	struct emu_report r, rf;
	double T = 6 * 3600, work = 0, share;
	int i, sus, fsus;

	six_jobs(jobs, "resnet50", 100000);
	run_node("gandiva", false, jobs, 6, T, &r, &sus);
	for (i = 0; i < 6; i++) {
		share = jobs[i].run_time / T;
		CHECKF(fabs(share - 4.0 / 6) < 0.02, "job %d ran %.3f of the time", i, share);
		CHECK(jobs[i].suspensions > 10);
		work += jobs[i].work_done;
	}
	/* aggregate throughput against 4 GPUs busy alone: a few percent off */
	CHECKF(work / (4 * T) > 0.97 && work / (4 * T) < 1, "aggregate %.4f", work / (4 * T));
	CHECK(r.guests == 2 && sus > 100);
	CHECK(r.all.suspensions == sus && r.all.suspend_gpu_hours > 0);
	/* FIFO: two jobs wait the whole time, the others run alone */
	six_jobs(fifo, "resnet50", 100000);
	run_node("fifo", false, fifo, 6, T, &rf, &fsus);
	CHECK(fsus == 0 && fifo[4].first_start < 0 && fifo[5].first_start < 0);
	CHECK(fifo[0].first_start == 0 && fifo[3].first_start == 0);
	emu_report_release(&r);
	emu_report_release(&rf);
}

/*
 * Gandiva Table 1 in shape: six one-hour jobs on four GPUs, packed or
 * time-sliced. Light jobs packed finish far sooner (the pack is kept);
 * heavy ones lose one trial slice and go back to time-slicing.
 */
static void
test_table1(void)
{
	static const struct { const char *model; bool wins; } cases[] = {
		{ "lstm", true }, { "dcgan", true }, { "resnet50", false },
	};
	struct job a[6], b[6];
	struct emu_report ra, rb;
	int c, sa, sb;

	for (c = 0; c < 3; c++) {
		six_jobs(a, cases[c].model, 3600);
		six_jobs(b, cases[c].model, 3600);
		run_node("gandiva", true, a, 6, INFINITY, &ra, &sa);
		run_node("gandiva", false, b, 6, INFINITY, &rb, &sb);
		CHECK(ra.all.done == 6 && rb.all.done == 6);
		/* sliced: 6 x 1 h of work on 4 GPUs, a few percent of switches */
		CHECKF(rb.makespan > 5400 && rb.makespan < 5400 * 1.03, "%s: sliced %g",
		    cases[c].model, rb.makespan);
		CHECKF(ra.packs >= 1, "%s: %lld packs", cases[c].model, ra.packs);
		if (cases[c].wins)
			CHECKF(ra.unpacks == 0 && ra.makespan < 0.8 * rb.makespan,
			    "%s: packed %g sliced %g, %lld undone", cases[c].model,
			    ra.makespan, rb.makespan, ra.unpacks);
		else
			CHECKF(ra.unpacks >= 1 && ra.makespan > rb.makespan &&
			    ra.makespan < 1.02 * rb.makespan, "%s: packed %g sliced %g, "
			    "%lld of %lld undone", cases[c].model, ra.makespan, rb.makespan,
			    ra.unpacks, ra.packs);
		emu_report_release(&ra);
		emu_report_release(&rb);
	}
}

static const struct test tests[] = {
	{ "plans", test_plans },
	{ "fig9", test_fig9 },
	{ "table1", test_table1 },
};

TEST_MAIN(tests)
