/*
 * tpolicy-live.c — the scheduler as a live session uses it: jobs added
 * after the scheduler was made (sched_grow, the array moving), cancelled
 * while pending or running (sched_cancel), and a higher priority
 * preempting a lower one under the `priority` policy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "engine/engine.h"
#include "policy/sched.h"
#include "spec/spec.h"
#include "test.h"

static const char small[] =
    "physicalCluster:\n"
    "  cellTypes:\n"
    "    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
    "  physicalCells:\n"
    "  - {cellType: NODE, cellAddress: n1}\n"
    "  - {cellType: NODE, cellAddress: n2}\n"
    "virtualClusters:\n"
    "  a: {virtualCells: [{cellType: NODE, cellNumber: 2}]}\n";

struct live {
	struct spec	*spec;
	struct engine	*e;
	struct policy	 p;
	struct sched	*s;
	struct job	*jobs;
	int		 n;
	struct sched_action *acts;
	int		 nacts, cap;
};

static bool
live_init(struct live *l)
{
	struct policy_params par;
	char *cause = NULL;

	memset(l, 0, sizeof *l);
	l->spec = spec_load_string("small", small, sizeof small - 1, NULL);
	if (l->spec == NULL)
		return false;
	l->e = engine_create(l->spec, ENGINE_HIVED, &cause);
	policy_params_init(&par);
	if (l->e == NULL || policy_init(&l->p, &policy_priority, &par, &cause) != 0) {
		free(cause);
		return false;
	}
	l->s = sched_create(l->e, &l->p, NULL, 0);
	return true;
}

/* A new job of g GPUs at priority prio, submitted at t. */
static int
add(struct live *l, int g, int prio, double t)
{
	int id = l->n++;
	char name[16];

	/* realloc every time: the array moves, as a live session's does */
	l->jobs = xreallocarray(l->jobs, (size_t)l->n, sizeof *l->jobs);
	snprintf(name, sizeof name, "j%d", id);
	job_init(&l->jobs[id], id, name, 0, t);
	job_set_shape(&l->jobs[id], 1, g);
	l->jobs[id].priority = prio;
	sched_grow(l->s, l->jobs, l->n);
	job_apply(&l->jobs[id], JOB_EV_SUBMIT, t, NULL, 0);
	sched_submit(l->s, id, t);
	return id;
}

static int
pass(struct live *l, double t)
{
	l->nacts = 0;
	return sched_pass(l->s, t, &l->acts, &l->nacts, &l->cap);
}

static void
live_free(struct live *l)
{
	sched_free(l->s);
	policy_release(&l->p);
	engine_free(l->e);
	spec_free(l->spec);
	free(l->jobs);
	free(l->acts);
}

static void
test_grow_cancel(void)
{
	struct live l;
	char why[256];
	int a, b, c;

	if (!live_init(&l)) {
		CHECK(!"setup");
		return;
	}
	a = add(&l, 4, 0, 1);
	b = add(&l, 4, 0, 2);
	c = add(&l, 4, 0, 3);
	CHECK_INTEQ(sched_pending(l.s), 3);
	CHECK_INTEQ(pass(&l, 4), 2);
	CHECK(l.acts[0].kind == SCHED_START && l.acts[0].job == a);
	CHECK(l.acts[1].kind == SCHED_START && l.acts[1].job == b);
	CHECK_INTEQ(sched_pending(l.s), 1);
	sched_cancel(l.s, c);			/* pending: leaves its queue */
	CHECK_INTEQ(sched_pending(l.s), 0);
	CHECK(sched_check(l.s, why, sizeof why));
	sched_cancel(l.s, a);			/* running: its cells are freed */
	CHECK(l.jobs[a].engine_id < 0);
	c = add(&l, 4, 0, 5);
	CHECK_INTEQ(pass(&l, 6), 1);
	CHECK(l.acts[0].kind == SCHED_START && l.acts[0].job == c);
	CHECKF(sched_check(l.s, why, sizeof why), "%s", why);
	live_free(&l);
}

static void
test_priority_preempts(void)
{
	struct live l;
	char why[256];
	int lo1, lo2, hi;

	if (!live_init(&l)) {
		CHECK(!"setup");
		return;
	}
	lo1 = add(&l, 4, 1, 1);
	lo2 = add(&l, 4, 1, 1);
	CHECK_INTEQ(pass(&l, 2), 2);
	hi = add(&l, 4, 5, 3);
	CHECK_INTEQ(pass(&l, 4), 2);
	CHECK(l.acts[0].kind == SCHED_PREEMPT && l.acts[0].by == hi &&
	    (l.acts[0].job == lo1 || l.acts[0].job == lo2));
	CHECK(l.acts[1].kind == SCHED_START && l.acts[1].job == hi);
	/* an equal priority does not preempt */
	add(&l, 4, 1, 5);
	CHECK_INTEQ(pass(&l, 6), 0);
	CHECKF(sched_check(l.s, why, sizeof why), "%s", why);
	live_free(&l);
}

static const struct test tests[] = {
	{ "grow-cancel", test_grow_cancel },
	{ "priority-preempts", test_priority_preempts },
};

TEST_MAIN(tests)
