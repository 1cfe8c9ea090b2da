/*
 * sched.h — the scheduler: one policy applied inside every VC, turned into
 * engine placements. Pure (no I/O, no clock); shared by the emulator and the
 * real backends.
 *
 * Jobs live in the caller's array (struct job *jobs, indexed by job id); the
 * scheduler keeps indices. A job is handed over with sched_submit when it
 * becomes PENDING and comes back either as a START action (the engine has
 * committed its cells; j->engine_id and j->opportunistic are set). Running
 * jobs leave through sched_release (their cells are
 * freed) or as PREEMPT actions (cells already freed by the engine).
 *
 * Queues: per domain (a VC; the whole cluster's opportunistic jobs form one
 * more), pending jobs sit in one heap per gang shape, ordered by the
 * policy's key. A pass takes the best head among the shapes that have not
 * failed yet, so a pass costs O(shapes x log n) plus one engine call per start
 * and per failing shape, never a walk of the whole queue (the policy contract
 * makes a failed head imply that everything behind it in that shape fails).
 * Strict (non-POLICY_SKIP) policies stop a domain at its first failure
 * (head-of-line blocking).
 *
 * Affinity: a job whose gang does not fit waits (hard affinity), unless it
 * has soft affinity: then its pods are halved (doubling their number) until
 * it fits or a pod is one GPU; the emulator's speed model charges the
 * looser placement.
 *
 * Classes: a guaranteed job is placed with engine priority = the policy's
 * class, so the engine preempts only strictly lower classes in the same VC
 * (and opportunistic jobs on the VC's cells). sched_rekey updates a running
 * job's class when the policy says it changed.
 *
 * Invariants (sched_check):
 *  1. Every job given to sched_submit and not yet started or released is in exactly one heap, PENDING; every started one holds
 *     engine cells (engine_id >= 0) and is in no heap.
 *  2. Heap order: each parent's key <= its children's (keys cached at
 *     submit / rekey).
 */
#ifndef CELLAR_SCHED_H
#define CELLAR_SCHED_H

#include <stdbool.h>

#include "engine/engine.h"
#include "job/job.h"
#include "policy/policy.h"

struct sched;

enum sched_action_kind {
	SCHED_START,		/* job started (cells committed) */
	SCHED_PREEMPT,		/* running job lost its cells to `by` */
	SCHED_DOWNGRADE,	/* running job became opportunistic (lazy preemption) */
};

struct sched_action {
	enum sched_action_kind	 kind;
	int			 job;
	int			 by;	/* PREEMPT/DOWNGRADE: the job that took the cells */
};

struct sched_stats {
	long long	 passes, attempts, starts, preemptions, fast_rejects;
	long long	 relaxed;	/* soft-affinity jobs started as smaller pods */
};

/* The engine and the jobs array must outlive the scheduler. */
struct sched	*sched_create(struct engine *e, const struct policy *p,
		    struct job *jobs, int njobs);
void		 sched_free(struct sched *s);

/* A job became PENDING at now (submitted, requeued). */
void		 sched_submit(struct sched *s, int job, double now);
/* A running job stops (completed, failed, cancelled): free its cells. */
void		 sched_release(struct sched *s, int job);
/* A job's key or class changed (policy.change / wait_change came due). */
void		 sched_rekey(struct sched *s, int job, double now);
/* The job holding engine job id eid, or -1. */
int		 sched_job_of(const struct sched *s, int eid);
/* Something outside changed placement chances (node health): retry all. */
void		 sched_touch_all(struct sched *s);

/*
 * Start what the policy and the cells allow at time now. Appends actions to
 * *acts (grown with XGROW; *nacts and *cap updated) in the order they happened;
 * a START follows the PREEMPT/DOWNGRADE actions that made its room. Pending
 * jobs that stay pending get j->reason. Returns the number of actions added.
 */
int		 sched_pass(struct sched *s, double now, struct sched_action **acts,
		    int *nacts, int *cap);

void		 sched_stats(const struct sched *s, struct sched_stats *st);
/* Number of pending jobs. */
int		 sched_pending(const struct sched *s);
bool		 sched_check(const struct sched *s, char *why, size_t len);

#endif
