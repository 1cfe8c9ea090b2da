/*
 * policy-gandiva.c — Gandiva (OSDI'18) as a queue order: who goes next
 * among the jobs the cells can take. Gandiva's mechanisms (over-
 * subscription with suspend/resume time-slicing, packing, the node choice
 * of its Algorithm 1 for time-sliced jobs) are the emulator's, asked for
 * by POLICY_OVERSUB (sim/emu.h, sim/share.h); the policy itself is FIFO
 * that lets jobs that fit pass a blocked one, as Gandiva's scheduler
 * places every job it can at arrival.
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Earlier submission first.
 *  2. The job id.
 *
 * Gandiva never preempts to reorder (it suspends instead): every job is
 * class 0, and keys never change.
 */
#include <math.h>

#include "policy/policy.h"

static void
gandiva_key(const struct policy *p, const struct job *j, double now,
    struct policy_key *out)
{
	(void)p;
	(void)now;
	out->k[0] = j->submit;		/* rule 1 */
	out->k[1] = 0;
	out->k[2] = 0;
	out->id = j->id;		/* rule 2 */
}

static int
gandiva_klass(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return 0;
}

static double
gandiva_change(const struct policy *p, const struct job *j)
{
	(void)p;
	(void)j;
	return INFINITY;
}

static double
gandiva_wait_change(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return INFINITY;
}

const struct policy_ops policy_gandiva = {
	.name = "gandiva",
	.summary = "Gandiva: time-slicing over-subscription, packing; FIFO with skipping",
	.flags = POLICY_SKIP | POLICY_OVERSUB,
	.key = gandiva_key,
	.klass = gandiva_klass,
	.change = gandiva_change,
	.wait_change = gandiva_wait_change,
};
