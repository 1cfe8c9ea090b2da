/*
 * policy-las.c — Tiresias' Discretized 2D-LAS (Gu et al., NSDI'19): least
 * attained service first, where service is two-dimensional (GPUs x time)
 * and discretized into K queues so jobs are not preempted for every small
 * difference in service.
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Lower queue first (k[0]). A job's queue is set by its service
 *     (policy_service: the attained GPU-seconds since the last promotion
 *     of rule 3) against the thresholds T0 < T1 < ...: queue q holds
 *     [T(q-1), Tq). A job preempts running jobs of lower queues only:
 *     class = K-1-queue.
 *  2. Inside a queue, first in first out by the original submission (k[1]).
 *     No preemption inside a queue (equal classes); a job that does not fit
 *     lets the ones behind it try (POLICY_SKIP).
 *  3. Promotion against starvation, when promote_knob (PROMOTEKNOB) > 0:
 *     a pending job below Q0 whose wait since its last promotion (counted
 *     once it has run since) reaches knob x its run time since then is
 *     promoted: its service restarts at 0, Q0, as if new (policy.h,
 *     policy_promote). wait_change is that moment; change, for a running
 *     job, the attained service at which it reaches its queue's upper
 *     threshold.
 *  4. The job id.
 *
 * What the Tiresias simulator does (SymbioticLab/Tiresias, simulator/
 * run_sim.py, dlas_sim_jobs with gputime) and where we differ:
 *  - Queues and demotion: the same (executed time x GPUs against
 *    queue_limit; the next demotion is an event, like our change()).
 *  - Order inside a queue: the simulator keeps each queue as a list; new
 *    jobs are appended to Q0, demoted and promoted jobs to the end of their
 *    new queue, and after every pass the pending jobs are moved behind the
 *    running ones (so running jobs are never preempted from inside their
 *    queue, and a job preempted from below keeps its place ahead of jobs
 *    that were already waiting). "Arrival" there is the time a job entered
 *    its queue. That time is history the job record does not keep, and a
 *    key must be a function of the job (invariant 1 of policy.h), so rule 2
 *    uses the original submission instead, which the simulator itself uses
 *    as the FIFO tie-break of its Gittins sort (r_submit_time). For jobs in
 *    Q0 without promotion both orders agree; in lower queues ours orders by
 *    age rather than by demotion time.
 *  - Promotion: the same rule, the simulator's (a pending job of a queue
 *    > 0 whose pending time since its last promotion, counted once it has
 *    run since then, reaches knob x its executed time since then goes to
 *    Q0 with both counters zeroed). Its executed time is ours as service /
 *    GPUs. An earlier version credited waiting continuously instead of
 *    resetting (to keep keys memoryless); a job never forgot its wait, so
 *    long-waiting jobs flipped between queues, and preemptions grew with
 *    the knob (1.36 M for 1,001 jobs at knob 1 on the synthetic n32g4
 *    workload; 789 without promotion).
 *
 * Tiresias' Figure 7 example, by hand. One machine of 2 GPUs, three jobs
 * submitted at 0: J0 (2 GPUs, 2 units), J1 (1 GPU, 8 units), J2 (2 GPUs,
 * 6 units), ties by job index, no preemption cost. SRSF gives J0 2, J1 10,
 * J2 16: average JCT 28/3. Here K = 2 with the threshold T0 = 6 GPU-units
 * (every crossing falls on a whole unit, so a 1-unit scheduling interval
 * changes nothing):
 *   t=0   all in Q0, equal keys: J0 takes both GPUs; J1 and J2 wait (same
 *         queue, so no preemption).
 *   t=2   J0 completes at 4 GPU-units, never demoted. J1 starts on one GPU;
 *         J2 needs two and J1 is in its own queue: J2 waits.
 *   t=8   J1 reaches 6 GPU-units: Q1, class 0. J2 (Q0, class 1) preempts
 *         it and starts.
 *   t=11  J2 reaches 6: Q1 too. J1 waits: same class, no preemption.
 *   t=14  J2 completes; J1 resumes with 2 units left and completes at 16.
 * JCT 2, 16, 14: average 32/3, worse than SRSF. LAS cannot see that J1 is
 * the smaller job in GPU-time (8 against 12): once J1 has used a
 * threshold's worth it looks older than J2, which then runs to the end
 * while J1 holds 2 units of work. With T0 = 2 every job is demoted once
 * (J0 is preempted at t=1 for J1 and finishes at 10 behind J2 at 9, J1 at
 * 16): 35/3. With T0 > 12 nobody is demoted and LAS is fifo-skip: 28/3,
 * the SRSF schedule.
 */
#include <math.h>

#include "policy/policy.h"

static double
service_now(const struct policy *p, const struct job *j, double now)
{
	return policy_service(&p->par, j, now);
}

static void
las_key(const struct policy *p, const struct job *j, double now,
    struct policy_key *out)
{
	/* rules 1 and 3 */
	out->k[0] = policy_queue_of(&p->par, service_now(p, j, now));
	out->k[1] = j->submit;		/* rule 2 */
	out->k[2] = 0;
	out->id = j->id;		/* rule 4 */
}

static int
las_klass(const struct policy *p, const struct job *j, double now)
{
	return p->par.nqueues - 1 - policy_queue_of(&p->par, service_now(p, j, now));
}

static double
las_change(const struct policy *p, const struct job *j)
{
	int q = policy_queue_of(&p->par, service_now(p, j, j->state_since));

	if (q >= p->par.nqueues - 1)
		return INFINITY;
	return policy_service_reaches(&p->par, j, p->par.thresholds[q]);
}

static double
las_wait_change(const struct policy *p, const struct job *j, double now)
{
	return policy_promote_at(&p->par, j, now);	/* rule 3 */
}

const struct policy_ops policy_las = {
	.name = "las",
	.summary = "Tiresias discretized 2D-LAS: queues by attained GPU-time, FIFO inside",
	.flags = POLICY_PREEMPTIVE | POLICY_SKIP,
	.key = las_key,
	.klass = las_klass,
	.change = las_change,
	.wait_change = las_wait_change,
};
