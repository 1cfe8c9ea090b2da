/*
 * policy-fifo.c — first in, first out: YARN-CS as the Tiresias, Gandiva and
 * HiveD papers compare against it (`fifo`), and the same order letting jobs
 * that fit pass a blocked one (`fifo-skip`, Tiresias' "best-effort").
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Earlier submission first (k[0] = submit time; a requeued job keeps
 *     its original submission, so it goes back to where it was).
 *  2. The job id.
 *
 * No preemption among guaranteed jobs: every job is class 0. `fifo` stops a
 * VC at the first job that does not fit (head-of-line blocking, as YARN's
 * capacity scheduler does with one queue per VC); `fifo-skip` sets
 * POLICY_SKIP so the scheduler goes on with the jobs behind it. Attained
 * service and duration are never read, so keys never change.
 *
 * `gandiva` (OSDI'18) is the same order: Gandiva places every job it can at
 * arrival and never preempts to reorder (it suspends instead). Its
 * mechanisms — over-subscription with suspend/resume time-slicing, packing,
 * the node choice of its Algorithm 1 for time-sliced jobs — are the
 * emulator's, asked for by POLICY_OVERSUB (sim/emu.h, sim/share.h).
 *
 * `antman` (OSDI'20) is strict FIFO for guaranteed jobs: a VC's queue
 * stops at a gang that does not fit, so the GPUs free for it stay free
 * (AntMan's gang reservation; no smaller job passes and takes them), and
 * opportunistic jobs use them meanwhile. Its mechanisms — opportunistic
 * jobs sharing GPUs under memory and SM control, auto-classification,
 * upgrades — are the emulator's, asked for by POLICY_OPPSHARE
 * (sim/antman.h, sim/emu-antman.c).
 */
#include <math.h>

#include "policy/policy.h"

static void
fifo_key(const struct policy *p, const struct job *j, double now,
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
fifo_klass(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return 0;
}

static double
fifo_change(const struct policy *p, const struct job *j)
{
	(void)p;
	(void)j;
	return INFINITY;
}

static double
fifo_wait_change(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return INFINITY;
}

const struct policy_ops policy_fifo = {
	.name = "fifo",
	.summary = "YARN-CS: arrival order, head-of-line blocking, no preemption",
	.flags = 0,
	.key = fifo_key,
	.klass = fifo_klass,
	.change = fifo_change,
	.wait_change = fifo_wait_change,
};

const struct policy_ops policy_fifo_skip = {
	.name = "fifo-skip",
	.summary = "arrival order; jobs that fit pass a blocked one (best-effort)",
	.flags = POLICY_SKIP,
	.key = fifo_key,
	.klass = fifo_klass,
	.change = fifo_change,
	.wait_change = fifo_wait_change,
};

const struct policy_ops policy_gandiva = {
	.name = "gandiva",
	.summary = "Gandiva: time-slicing over-subscription, packing; FIFO with skipping",
	.flags = POLICY_SKIP | POLICY_OVERSUB,
	.key = fifo_key,
	.klass = fifo_klass,
	.change = fifo_change,
	.wait_change = fifo_wait_change,
};

const struct policy_ops policy_antman = {
	.name = "antman",
	.summary = "AntMan: opportunistic jobs share GPUs under memory/SM control; FIFO",
	.flags = POLICY_OPPSHARE,
	.key = fifo_key,
	.klass = fifo_klass,
	.change = fifo_change,
	.wait_change = fifo_wait_change,
};
