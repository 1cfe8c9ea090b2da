/*
 * tsim-antman.c — AntMan's GPU sharing (sim/antman.c, sim/emu-antman.c)
 * reproduced in shape on hand-made workloads. Every figure comes from
 * running the emulator's model; nothing is a stored result.
 *
 *  - the plans: the host keeps its demand, guests shrink to what is left,
 *    a guest that does not fit is paused, plain packing runs out of memory;
 *  - the cap curve: models that lose little and models that lose a lot;
 *  - AntMan Table 2: one free 32 GB GPU, an opportunistic 3.5 GB job, then
 *    a guaranteed 30 GB job. antman: the guaranteed job finishes within a
 *    few percent of its exclusive time and the opportunistic job survives
 *    (and grows back when the guaranteed one's demand falls); plain
 *    packing: the guaranteed job runs out of memory; preemption (HiveD's
 *    opportunistic jobs): the opportunistic job is killed; FIFO: the
 *    guaranteed job waits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/antman.h"
#include "sim/emu.h"
#include "test.h"
#include "emu-work.h"

static void
test_plans(void)
{
	struct am_user u[3];
	struct am_grant g[3];
	int bert = model_find("bert-large"), mob = model_find("mobilenet");
	int vgg = model_find("vgg16"), res = model_find("resnet50");

	CHECK(bert >= 0 && mob >= 0);
	/* a host of 30 GiB and 0.85 SM, a guest of 3.5 GiB and 0.4 SM, 32 GiB */
	u[0] = (struct am_user){ true, 0.85, 30, bert };
	u[1] = (struct am_user){ false, 0.40, 3.5, mob };
	am_plan_gpu(u, 2, 32, true, g);
	CHECKF(fabs(g[0].mem - 30) < 1e-9 && fabs(g[0].sm - 0.85) < 1e-9, "host %g %g",
	    g[0].mem, g[0].sm);
	CHECKF(g[0].factor >= 1 - AM_RESIDUAL && g[0].factor < 1, "host factor %g",
	    g[0].factor);
	CHECKF(fabs(g[1].mem - 2) < 1e-9 && fabs(g[1].sm - 0.15) < 1e-9, "guest %g %g",
	    g[1].mem, g[1].sm);
	CHECKF(g[1].factor > 0 && g[1].factor < 0.15 / 0.4, "guest factor %g", g[1].factor);
	CHECK(g[0].mem + g[1].mem <= 32 && g[0].sm + g[1].sm <= 1 + 1e-12);
	/* a second guest whose minimum (3.5 GiB) no longer fits is paused */
	u[2] = (struct am_user){ false, 0.90, 7, res };
	am_plan_gpu(u, 3, 32, true, g);
	CHECK(g[1].factor > 0 && g[2].factor == 0 && g[2].mem == 0 && !g[2].oom);
	/* no host: the guest runs as if alone */
	am_plan_gpu(&u[1], 1, 32, true, g);
	CHECK(g[0].factor == 1 && g[0].mem == 3.5);
	/* plain packing: the later arrival runs out of memory */
	u[0] = (struct am_user){ false, 0.40, 3.5, mob };
	u[1] = (struct am_user){ true, 0.85, 30, bert };
	am_plan_gpu(u, 2, 32, false, g);
	CHECK(!g[0].oom && g[1].oom && g[1].factor == 0);
	/* the cap curve (AntMan Fig. 10 in shape): at half their memory, a
	   ResNet keeps most of its speed, a VGG loses most */
	CHECK(model_cap_speed(&model_table[res], 3.5, 7) > 0.8);
	CHECK(model_cap_speed(&model_table[vgg], 5, 10) < 0.4);
	CHECK(model_cap_speed(&model_table[vgg], 10, 10) == 1);
	CHECK(model_cap_speed(&model_table[vgg], 4, 10) == 0);	/* below mem_min */
}

struct outcome {
	struct emu_report	 r;
	int			 fails, preempts, pauses, resumes, upgrades;
	char			 fail_detail[REC_DETAIL_MAX];
};

/* Run jobs on one one-GPU node of gpu_mem GiB under `policy`. */
static void
run(const char *policy, bool control, struct job *jobs, int n, struct outcome *o)
{
	struct spec *s = one_node(1);
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	const struct rec *log;
	struct emu *m;
	char *cause = NULL;
	int i, nlog;

	memset(o, 0, sizeof *o);
	policy_params_init(&pp);
	emu_params_init(&ep);
	ep.gpu_mem = 32;
	ep.opp_control = control;
	CHECK(policy_init(&p, policy_find(policy), &pp, &cause) == 0);
	m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, n, &cause);
	CHECKF(m != NULL, "%s", cause ? cause : "");
	CHECKF(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0, "%s", cause ? cause : "");
	log = emu_journal(m, &nlog);
	for (i = 0; i < nlog; i++) {
		if (log[i].kind == REC_FAIL) {
			o->fails++;
			snprintf(o->fail_detail, sizeof o->fail_detail, "%s", log[i].detail);
		}
		o->preempts += log[i].kind == REC_PREEMPT;
		o->pauses += log[i].kind == REC_SUSPEND;
		o->resumes += log[i].kind == REC_RESUME;
		o->upgrades += log[i].kind == REC_UPGRADE;
	}
	emu_report(m, &o->r);
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

/* Table 2's pair: opportunistic mobilenet at 0, guaranteed bert at 600. */
static void
pair(struct job *jobs, enum job_class first)
{
	add(jobs, 0, 0, 0, 1, 4 * 3600);
	jobs[0].model = model_find("mobilenet");
	jobs[0].klass = first;
	add(jobs, 1, 0, 600, 1, 3600);
	jobs[1].model = model_find("bert-large");
	jobs[1].klass = JOB_GUARANTEED;
}

static void
test_table2(void)
{
	struct job jobs[2], alone[1];
	struct outcome o, ex;
	double exclusive, jct;

	/* the guaranteed job alone: its exclusive time */
	add(alone, 0, 0, 600, 1, 3600);
	alone[0].model = model_find("bert-large");
	run("antman", true, alone, 1, &ex);
	exclusive = alone[0].end - alone[0].submit;
	CHECKF(fabs(exclusive - 3600) < 1e-6, "exclusive %g", exclusive);
	emu_report_release(&ex.r);

	/* antman: both run; the guaranteed job as if alone, within a few % */
	pair(jobs, JOB_OPPORTUNISTIC);
	run("antman", true, jobs, 2, &o);
	CHECK(jobs[0].state == JOB_COMPLETED && jobs[1].state == JOB_COMPLETED);
	CHECK(jobs[1].first_start == 600 && jobs[1].queued == 0);
	jct = jobs[1].end - jobs[1].submit;
	CHECKF(jct > exclusive && jct < 1.03 * exclusive, "guaranteed %g, exclusive %g",
	    jct, exclusive);
	/* the opportunistic job survived: never preempted, never failed, one
	   start, slower while shrunk (4 h of work took longer than 4 h) */
	CHECK(jobs[0].preemptions == 0 && jobs[0].restarts == 0 && o.fails == 0);
	CHECKF(jobs[0].end > 4 * 3600 + 600, "opportunistic end %g", jobs[0].end);
	CHECK(o.r.opp_shared && o.r.opp_guests == 1 && o.r.opp_done == 1);
	CHECKF(o.r.interference > 0 && o.r.interference < AM_RESIDUAL,
	    "interference %g", o.r.interference);
	CHECK(o.r.sm_util > 0 && o.r.mem_util > 0 && o.r.ooms == 0);
	emu_report_release(&o.r);

	/* plain packing (no memory control): the guaranteed job runs out of
	   memory as soon as it trains (its start phase needs half its peak) */
	pair(jobs, JOB_OPPORTUNISTIC);
	run("antman", false, jobs, 2, &o);
	CHECKF(jobs[1].state == JOB_FAILED && jobs[1].end > 600 &&
	    jobs[1].end < 600 + 0.05 * 3600, "%s at %g", job_state_name(jobs[1].state),
	    jobs[1].end);
	CHECKF(strcmp(o.fail_detail, "out of memory") == 0, "'%s'", o.fail_detail);
	CHECK(jobs[0].state == JOB_COMPLETED && o.r.ooms == 1);
	emu_report_release(&o.r);

	/* preemption (HiveD's opportunistic jobs, fifo): the opportunistic
	   job is killed when the guaranteed one needs the GPU */
	pair(jobs, JOB_OPPORTUNISTIC);
	run("fifo", true, jobs, 2, &o);
	CHECK(jobs[0].preemptions == 1 && o.preempts == 1);
	CHECK(jobs[1].first_start == 600 && jobs[1].state == JOB_COMPLETED);
	CHECK(!o.r.opp_shared);
	emu_report_release(&o.r);

	/* FIFO, both exclusive: the guaranteed job waits for the other */
	pair(jobs, JOB_GUARANTEED);
	run("fifo", true, jobs, 2, &o);
	CHECKF(jobs[1].first_start == jobs[0].end && jobs[1].queued > 3 * 3600,
	    "waited %g", jobs[1].queued);
	emu_report_release(&o.r);
}

/*
 * The submission window's measures (emu_report win_util, win_sm): one GPU,
 * a guaranteed lstm from 0, an auto mobilenet at 100, the last arrival at
 * 2000. fifo: the GPU is busy the whole window, its SM at the lstm's
 * demand by phase (the start phase's 2% of the work at 0.3 x); antman:
 * the same busy GPU, more SM (the mobilenet runs beside the lstm).
 */
static void
window_jobs(struct job *jobs)
{
	add(jobs, 0, 0, 0, 1, 3600);
	jobs[0].model = model_find("lstm");
	add(jobs, 1, 0, 100, 1, 3600);
	jobs[1].model = model_find("mobilenet");
	jobs[1].klass = JOB_AUTO;
	add(jobs, 2, 0, 2000, 1, 60);
	jobs[2].model = model_find("lstm");
}

static void
test_window(void)
{
	const struct model *lstm = &model_table[model_find("lstm")];
	struct job jobs[3];
	struct outcome f, a;
	double start = model_phases[0].until * 3600 / lstm->speed[LOC_SWITCH], want;

	window_jobs(jobs);
	run("fifo", true, jobs, 3, &f);
	CHECK(jobs[1].first_start >= 2000);	/* waited: no sharing */
	CHECK(f.r.win_start == 0 && f.r.win_end == 2000);
	CHECKF(fabs(f.r.win_util - 1) < 1e-9, "fifo window util %g", f.r.win_util);
	want = lstm->gpu_util * (start * model_phases[0].sm +
	    (2000 - start) * model_phases[1].sm) / 2000;
	CHECKF(fabs(f.r.win_sm - want) < 1e-9, "fifo window SM %g, want %g",
	    f.r.win_sm, want);
	/* over the makespan, SM is not a fifo figure; the window's is */
	CHECK(f.r.sm_util == 0);

	window_jobs(jobs);
	run("antman", true, jobs, 3, &a);
	CHECK(jobs[1].first_start == 100 && a.r.opp_guests >= 1);
	CHECKF(fabs(a.r.win_util - 1) < 1e-9, "antman window util %g", a.r.win_util);
	CHECKF(a.r.win_sm > f.r.win_sm + 0.2 && a.r.win_sm <= 1,
	    "antman window SM %g, fifo %g", a.r.win_sm, f.r.win_sm);
	emu_report_release(&f.r);
	emu_report_release(&a.r);

	/* an idle stretch inside the window lowers the busy share: the
	   lstm alone (done at 3600), the last arrival at 7200 */
	add(jobs, 0, 0, 0, 1, 3600);
	jobs[0].model = model_find("lstm");
	add(jobs, 1, 0, 7200, 1, 60);
	run("fifo", true, jobs, 2, &f);
	CHECKF(fabs(f.r.win_util - 0.5) < 1e-9, "half-idle window util %g", f.r.win_util);
	emu_report_release(&f.r);
}

static const struct test tests[] = {
	{ "plans", test_plans },
	{ "table2", test_table2 },
	{ "window", test_window },
};

TEST_MAIN(tests)
