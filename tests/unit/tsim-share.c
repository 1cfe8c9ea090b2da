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
 *    undone;
 *  - priorities (emu.h): within a tier, slot time goes by weight; across
 *    tiers, a job is never suspended while a lower-priority one runs;
 *  - without time-slicing (AntMan's Gandiva baseline): a job that cannot
 *    pack waits, a losing pack is undone and the later job waits, a
 *    winning one is kept; nothing is ever suspended.
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
		mb[i].prio = 0;
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
	mb[5].prio = 1;					/* tiers differ */
	CHECK(!share_plan_pack(mb, 6, 4, 16, out));
	mb[5].prio = 0;
	mb[5].util = 2;					/* no profile */
	CHECK(!share_plan_pack(mb, 6, 4, 16, out));
	/* the model table has both kinds of pairs (Gandiva Table 1) */
	CHECK(2 * share_packed_factor(0, 2 * model_table[lstm].gpu_util, 2) > 1.5);
	CHECK(2 * share_packed_factor(0, 2 * model_table[resnet].gpu_util, 2) < 1);
	CHECK(share_slice_rate((double[]){ 1, 1, 1, 1, 1, 1 }, 6, 4, 0.3, 60) < 4);
}

/* Run jobs on one node of `gpus` GPUs under `policy` until `until`. */
static void
run_gpus(const char *policy, int gpus, bool pack, bool no_slice, struct job *jobs,
    int n, double until, struct emu_report *r, int *suspends)
{
	struct spec *s = one_node(gpus);
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
	ep.no_slice = no_slice;
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

/* Run jobs on one 4-GPU node under `policy` until `until`. */
static void
run_node(const char *policy, bool pack, struct job *jobs, int n, double until,
    struct emu_report *r, int *suspends)
{
	run_gpus(policy, 4, pack, false, jobs, n, until, r, suspends);
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
	/* at most --max-height (2) members per GPU: of nine jobs on the 4
	   GPUs, eight share them and the ninth waits */
	{
		struct job nine[9];
		struct emu_report rn;
		int nsus;

		for (i = 0; i < 9; i++) {
			add(nine, i, 0, 0, 1, 100000);
			nine[i].model = model_find("resnet50");
		}
		run_node("gandiva", false, nine, 9, 3600, &rn, &nsus);
		CHECKF(rn.guests == 4, "%lld guests", (long long)rn.guests);
		CHECKF(nine[8].first_start < 0, "the ninth job started at %g",
		    nine[8].first_start);
		for (i = 0; i < 8; i++)
			CHECK(nine[i].first_start >= 0);
		emu_report_release(&rn);
	}
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

/* Within one tier, slices by weight: four 1-GPU jobs on a 2-GPU node,
   weights 2, 1, 2, 1 (a host and a guest of each weight), get 2/3 and 1/3
   of a GPU; with weights all 1, 1/2 each (the contrast). */
static void
test_weights(void)
{
	static const int w[] = { 2, 1, 2, 1 };
	struct spec *s = one_node(2);
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	struct job jobs[4];
	struct emu *m;
	char *cause = NULL;
	double T = 6 * 3600, share, want;
	int i, pass;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 4; i++) {
			add(jobs, i, 0, 0, 1, 1e6);
			jobs[i].model = model_find("resnet50");
			jobs[i].weight = pass == 0 ? w[i] : 1;
		}
		policy_params_init(&pp);
		emu_params_init(&ep);
		ep.pack = false;
		CHECK(policy_init(&p, policy_find("gandiva"), &pp, &cause) == 0);
		m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, 4, &cause);
		CHECKF(m != NULL, "%s", cause ? cause : "");
		CHECK(emu_run(m, T, NULL, NULL, &cause) >= 0);
		for (i = 0; i < 4; i++) {
			share = jobs[i].run_time / T;
			want = pass == 0 ? 2.0 * w[i] / 6 : 0.5;
			CHECKF(fabs(share - want) < 0.05, "pass %d job %d (weight %d) "
			    "ran %.3f of the time, want %.3f", pass, i, jobs[i].weight,
			    share, want);
		}
		emu_free(m);
		policy_release(&p);
	}
	spec_free(s);
}

/*
 * Strict tiers over a long run: 40 one-GPU jobs of priorities 0-2 and
 * weights 1-2 arrive over four hours on one 4-GPU node (one sharing
 * group, packing on). At every tick boundary in steps of 7 s, no job is
 * suspended while one of a lower priority runs; and the case is not
 * empty: lower jobs are suspended while higher ones run many times, and
 * jobs while others of their own priority run.
 */
static void
test_tiers(void)
{
	struct spec *s = one_node(4);
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	struct job jobs[40];
	struct emu *m;
	char *cause = NULL;
	unsigned long long x = 12345;
	double t;
	int i, k, bad = 0, below = 0, same = 0;

	for (i = 0; i < 40; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		add(jobs, i, 0, (double)(x >> 33) / (1ULL << 31) * 4 * 3600, 1,
		    600 + (double)((x >> 20) % 6600));
		jobs[i].model = model_find(i % 3 == 0 ? "lstm" : "resnet50");
		jobs[i].priority = (int)((x >> 40) % 3);
		jobs[i].weight = 1 + (int)((x >> 45) % 2);
	}
	policy_params_init(&pp);
	emu_params_init(&ep);
	CHECK(policy_init(&p, policy_find("gandiva"), &pp, &cause) == 0);
	m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, 40, &cause);
	CHECKF(m != NULL, "%s", cause ? cause : "");
	for (t = 0; !emu_done(m) && t < 48 * 3600; t += 7) {
		CHECK(emu_run(m, t, NULL, NULL, &cause) >= 0);
		for (i = 0; i < 40; i++) {
			if (jobs[i].state != JOB_SUSPENDED)
				continue;
			for (k = 0; k < 40; k++) {
				if (jobs[k].state != JOB_RUNNING)
					continue;
				bad += jobs[k].priority < jobs[i].priority;
				below += jobs[k].priority > jobs[i].priority;
				same += jobs[k].priority == jobs[i].priority;
			}
		}
	}
	CHECK(emu_done(m));
	for (i = 0; i < 40; i++)
		CHECK(jobs[i].state == JOB_COMPLETED);
	CHECKF(bad == 0, "%d times a job was suspended while a lower one ran", bad);
	CHECKF(below > 100, "lower jobs suspended for higher ones only %d times", below);
	/* and a tier still time-slices among itself */
	CHECKF(same > 100, "suspended for a job of its own priority only %d times", same);
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

/*
 * Packing without time-slicing: two one-hour 1-GPU jobs of a model on one
 * 1-GPU node. Transformers (2 x 14 GiB > 16) cannot pack: the second
 * waits for the first's GPU, never time-sliced (time-slicing, the
 * contrast, starts it at once and suspends it). LSTMs pack and the pack
 * is kept: both run from the start and end well before two hours.
 * ResNet-50s pack, lose their trial slice (Gandiva Table 1), and the later
 * one is checkpointed and waits. No run suspends anything.
 */
static void
test_noslice(void)
{
	static const struct {
		const char *model;
		bool packs, kept;
	} cases[] = {
		{ "transformer", false, false }, { "lstm", true, true },
		{ "resnet50", true, false },
	};
	struct job jobs[2];
	struct emu_report r;
	int c, i, sus;

	for (c = 0; c < 3; c++) {
		const char *md = cases[c].model;
		for (i = 0; i < 2; i++) {
			add(jobs, i, 0, 0, 1, 3600);
			jobs[i].model = model_find(md);
		}
		run_gpus("gandiva", 1, true, true, jobs, 2, INFINITY, &r, &sus);
		CHECKF(r.all.done == 2, "%s: %d done", md, r.all.done);
		CHECKF(sus == 0 && r.all.suspensions == 0 && jobs[0].suspensions == 0 &&
		    jobs[1].suspensions == 0, "%s: %d suspensions", md, sus);
		CHECKF(r.guests == 0, "%s: %lld time-sliced starts", md, r.guests);
		CHECKF(r.packs == (cases[c].packs ? 1 : 0), "%s: %lld packs", md, r.packs);
		CHECKF(r.unpacks == (cases[c].packs && !cases[c].kept ? 1 : 0),
		    "%s: %lld unpacks", md, r.unpacks);
		CHECK(jobs[0].first_start == 0 && jobs[0].preemptions == 0);
		if (!cases[c].packs)	/* waited for the GPU, all the first's hour */
			CHECKF(jobs[1].first_start >= jobs[0].end - 1e-6 &&
			    jobs[1].preemptions == 0, "%s: second started at %g, first "
			    "ended at %g", md, jobs[1].first_start, jobs[0].end);
		else if (cases[c].kept)	/* packed for good: ~1.8x together */
			CHECKF(jobs[1].first_start == 0 && r.makespan < 1.2 * 3600,
			    "%s: makespan %g", md, r.makespan);
		else			/* packed one slice, then waited */
			CHECKF(jobs[1].first_start == 0 && jobs[1].preemptions == 1 &&
			    r.makespan > 2 * 3600, "%s: %d preemptions, makespan %g", md,
			    jobs[1].preemptions, r.makespan);
		emu_report_release(&r);
	}
	/* the contrast: with time-slicing the transformer is a guest at once */
	for (i = 0; i < 2; i++) {
		add(jobs, i, 0, 0, 1, 3600);
		jobs[i].model = model_find("transformer");
	}
	run_gpus("gandiva", 1, true, false, jobs, 2, INFINITY, &r, &sus);
	CHECKF(r.guests == 1 && sus > 10 && jobs[1].first_start == 0,
	    "sliced: %lld guests, %d suspensions", r.guests, sus);
	emu_report_release(&r);
}

static const struct test tests[] = {
	{ "plans", test_plans },
	{ "fig9", test_fig9 },
	{ "table1", test_table1 },
	{ "weights", test_weights },
	{ "tiers", test_tiers },
	{ "noslice", test_noslice },
};

TEST_MAIN(tests)
