/*
 * tsim-grow.c — Gandiva's grow-shrink in the emulator, on one 4-GPU node
 * that VC A holds (and three that VC B holds), in ideal mode so the
 * times can be worked by hand:
 *  1. an elastic 2-GPU job of 3600 s grows to 4 GPUs once the other two
 *     have been idle for --grow-after, and goes twice as fast from then;
 *     without an elastic range, or with a later timeout, it does not;
 *  2. a new job of A that finds no cells takes the grown GPUs back at
 *     once (it starts, not time-sliced); a new job of B does not;
 *  3. GPUs grown into are the VC's: conservation (service == busy GPU
 *     time) holds, and fifo never grows anything.
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

struct out {
	double		 end[4];
	double		 start[4];
	struct emu_report rep;
	int		 ngrow, nshrink;
	double		 service, busy;
};

static void
run(const char *policy, struct job *jobs, int n, double grow_after, struct out *o)
{
	struct spec *s = rack4_two_vcs(1);
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	struct emu *m;
	const struct rec *jn;
	char *cause = NULL;
	int i, nj;

	memset(o, 0, sizeof *o);
	policy_params_init(&pp);
	emu_params_init(&ep);
	ep.ideal = true;
	ep.grow_after = grow_after;
	CHECK(policy_init(&p, policy_find(policy), &pp, &cause) == 0);
	m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, n, &cause);
	CHECKF(m != NULL, "%s", cause ? cause : "");
	if (m == NULL)
		return;
	CHECKF(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0, "%s", cause ? cause : "");
	jn = emu_journal(m, &nj);
	for (i = 0; i < nj; i++) {
		o->ngrow += jn[i].kind == REC_GROW;
		o->nshrink += jn[i].kind == REC_SHRINK;
	}
	for (i = 0; i < n && i < 4; i++) {
		o->end[i] = jobs[i].end;
		o->start[i] = jobs[i].first_start;
		o->service += jobs[i].attained;
	}
	emu_report(m, &o->rep);
	o->busy = o->rep.util * s->gpus * o->rep.makespan;
	emu_report_release(&o->rep);	/* its per-VC rows; the totals stay */
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

static void
elastic(struct job *j, int max)
{
	j->elastic_min = j->gpus;
	j->elastic_max = max;
}

static void
test_grow(void)
{
	struct job jobs[1];
	struct out o;

	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 4);
	run("gandiva", jobs, 1, 300, &o);
	/* 300 s at 2 GPUs, then 3300 s of work at twice the speed */
	CHECKF(fabs(o.end[0] - 1950) < 1e-6, "end %g", o.end[0]);
	CHECK_INTEQ(o.rep.grows, 2);
	CHECK_INTEQ(o.ngrow, 2);	/* one GPU per grow, journalled */
	CHECK_INTEQ(o.rep.shrinks, 0);
	CHECKF(fabs(o.service - (300 * 2 + 1650 * 4)) < 1e-6, "service %g", o.service);
	CHECKF(fabs(o.service - o.busy) < 1e-6, "service %g, busy %g", o.service, o.busy);

	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 4);
	run("gandiva", jobs, 1, 1000, &o);
	CHECKF(fabs(o.end[0] - 2300) < 1e-6, "end %g", o.end[0]);

	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 3);
	run("gandiva", jobs, 1, 300, &o);
	CHECKF(fabs(o.end[0] - (300 + 3300 / 1.5)) < 1e-6, "end %g", o.end[0]);
	CHECK_INTEQ(o.rep.grows, 1);

	add(jobs, 0, 0, 0, 2, 3600);
	run("gandiva", jobs, 1, 300, &o);
	CHECKF(fabs(o.end[0] - 3600) < 1e-6, "end %g", o.end[0]);
	CHECK_INTEQ(o.rep.grows, 0);

	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 4);
	run("fifo", jobs, 1, 300, &o);
	CHECKF(fabs(o.end[0] - 3600) < 1e-6, "end %g", o.end[0]);
	CHECK_INTEQ(o.rep.grows, 0);
}

static void
test_shrink(void)
{
	struct job jobs[3];
	struct out o;

	/* j0 grows at 300; j1 of A arrives at 1000 and needs two GPUs */
	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 4);
	add(jobs, 1, 0, 1000, 2, 1e6);
	run("gandiva", jobs, 2, 300, &o);
	CHECKF(o.start[1] == 1000, "j1 started at %g", o.start[1]);
	CHECK_INTEQ(o.rep.guests, 0);	/* it got cells, not a time slice */
	CHECK_INTEQ(o.rep.shrinks, 2);
	CHECK_INTEQ(o.nshrink, 1);
	/* work by 1000: 300 + 700 x 2 = 1700; the other 1900 at speed 1 */
	CHECKF(fabs(o.end[0] - 2900) < 1e-6, "end %g", o.end[0]);
	CHECKF(fabs(o.service - o.busy) < 1e-3, "service %g, busy %g", o.service, o.busy);

	/* a job of B has B's own nodes: j0 keeps its GPUs */
	add(jobs, 0, 0, 0, 2, 3600);
	elastic(&jobs[0], 4);
	add(jobs, 1, 1, 1000, 4, 100);
	run("gandiva", jobs, 2, 300, &o);
	CHECK_INTEQ(o.rep.shrinks, 0);
	CHECKF(fabs(o.end[0] - 1950) < 1e-6, "end %g", o.end[0]);
}

static const struct test tests[] = {
	{ "grow", test_grow },
	{ "shrink", test_shrink },
};
TEST_MAIN(tests)
