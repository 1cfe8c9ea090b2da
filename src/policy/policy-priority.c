/*
 * policy-priority.c — strict priority, then arrival: what an operator means
 * by `submit --priority P` on the live cluster (HiveD's own ordering inside
 * a VC). The default policy of live sessions.
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Higher priority first (k[0] = -priority).
 *  2. Earlier submission first (k[1] = submit time; a requeued job keeps
 *     its place).
 *  3. The job id.
 *
 * Class = the priority (0..POLICY_MAX_CLASS): a job preempts running jobs
 * of its VC with a strictly lower priority. Jobs that fit pass a blocked
 * one (POLICY_SKIP). Service and duration are never read, so keys never
 * change.
 */
#include <math.h>

#include "policy/policy.h"

static int
clamp_priority(const struct job *j)
{
	return j->priority < 0 ? 0 : j->priority > POLICY_MAX_CLASS ?
	    POLICY_MAX_CLASS : j->priority;
}

static void
prio_key(const struct policy *p, const struct job *j, double now,
    struct policy_key *out)
{
	(void)p;
	(void)now;
	out->k[0] = -(double)clamp_priority(j);	/* rule 1 */
	out->k[1] = j->submit;			/* rule 2 */
	out->k[2] = 0;
	out->id = j->id;			/* rule 3 */
}

static int
prio_klass(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)now;
	return clamp_priority(j);
}

static double
prio_change(const struct policy *p, const struct job *j)
{
	(void)p;
	(void)j;
	return INFINITY;
}

static double
prio_wait_change(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return INFINITY;
}

const struct policy_ops policy_priority = {
	.name = "priority",
	.summary = "higher priority first, then arrival; preempts lower priorities",
	.flags = POLICY_SKIP | POLICY_PREEMPTIVE,
	.key = prio_key,
	.klass = prio_klass,
	.change = prio_change,
	.wait_change = prio_wait_change,
};
