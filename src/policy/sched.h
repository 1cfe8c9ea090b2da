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
 * Crash recovery: a pass depends on the pending jobs' cached keys and
 * classes (cached at submit / rekey: ranking again later can differ, e.g.
 * gittins after a table rebuild), the running jobs' classes and engine
 * ids, and the domains' dirty flags; reports read the counters. All of
 * that can be read out and restored (sched_job_key, sched_restore_*,
 * sched_domain_dirty, sched_stats_restore). Nothing else matters at rest:
 * the heaps' layouts and the order of shapes in a domain do not (keys are
 * a total order ending with the job id, so the best head of a shape and
 * among the shapes is the same whatever the layout), failed marks are
 * cleared at the start of each domain's pass, and the per-VC sums are
 * recomputed from the running jobs.
 *
 * Invariants (sched_check):
 *  1. Every job given to sched_submit and not yet started or released is
 *     in exactly one heap, PENDING; every started one holds engine cells
 *     (engine_id >= 0) and is in no heap.
 *  2. Heap order: each parent's key <= its children's (keys cached at
 *     submit / rekey).
 *  3. Every write to a field of a struct job (reason, engine_id,
 *     opportunistic) is reported to the change callback, if one is set.
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

/*
 * The caller's jobs array moved or grew to njobs (a live session adds jobs
 * as they are submitted): new jobs are neither queued nor running.
 */
void		 sched_grow(struct sched *s, struct job *jobs, int njobs);
/* A job became PENDING at now (submitted, requeued). */
void		 sched_submit(struct sched *s, int job, double now);
/* A running job stops (completed, failed, cancelled): free its cells. */
void		 sched_release(struct sched *s, int job);
/* A job leaves for good (cancelled): out of its queue, or its cells freed. */
void		 sched_cancel(struct sched *s, int job);
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

/*
 * Sharing backends (the emulator's time-sliced guests, which run on other
 * jobs' cells): sched_take removes a PENDING job from its queue for good
 * (the backend runs it without cells; its cached key and class stay);
 * sched_start_now gives a job that is neither queued nor running cells of
 * its own at once, as a pass would (victims and START appended to acts),
 * or returns false and gives it a reason.
 */
void		 sched_take(struct sched *s, int job);
bool		 sched_start_now(struct sched *s, int job, struct sched_action **acts,
		    int *nacts, int *cap);

/*
 * Call fn(arg, job) after the scheduler writes a field of jobs[job]
 * (invariant 3): a backend that saves changed jobs learns of the reasons
 * a pass gives. NULL turns it off.
 */
void		 sched_on_change(struct sched *s, void (*fn)(void *arg, int job),
		    void *arg);

/*
 * A backend's own node choice (the emulator's Gandiva Algorithm 1): for a
 * guaranteed start, fn is asked first with the engine request; it returns
 * the engine job id of a placement it committed itself on idle leaves
 * (engine_adopt: the engine still checks the VC, the quota and sharing
 * safety; no victims), or -1 to let the engine place as usual. fn must be
 * a function of the engine's and the jobs' state only, so passes stay
 * deterministic. NULL turns it off.
 */
void		 sched_on_place(struct sched *s,
		    int (*fn)(void *arg, int job, const struct engine_req *r), void *arg);

/* ---- crash recovery ---- */

/* A job's cached key and class (as of its last submit / rekey). */
void		 sched_job_key(const struct sched *s, int job, struct policy_key *key,
		    int *klass);
/*
 * Put a PENDING job back in its heap with its cached key and class (not
 * ranked again; no domain made dirty). Returns 0, or -1 with a message
 * when the job, key or class cannot be what a scheduler had.
 */
int		 sched_restore_pending(struct sched *s, int job, const struct policy_key *key,
		    int klass, char *why, size_t len);
/*
 * Count a job as running: it holds engine job j->engine_id (already
 * restored in the engine), as opportunistic when j->opportunistic, with
 * class klass. Returns 0, or -1 with a message when the engine does not
 * agree (no such engine job, another VC, size or priority).
 */
int		 sched_restore_running(struct sched *s, int job, const struct policy_key *key,
		    int klass, char *why, size_t len);
/* A job neither queued nor running: its cached key and class only. */
int		 sched_restore_key(struct sched *s, int job, const struct policy_key *key,
		    int klass, char *why, size_t len);
/* Domains (one per VC, then the opportunistic pools) and their dirty flags. */
int		 sched_domains(const struct sched *s);
bool		 sched_domain_dirty(const struct sched *s, int dom);
void		 sched_set_domain_dirty(struct sched *s, int dom, bool dirty);
void		 sched_stats_restore(struct sched *s, const struct sched_stats *st);
/* Number of pending jobs. */
int		 sched_pending(const struct sched *s);
/* Pending guaranteed jobs of one VC (its domain's heaps): O(shapes). */
int		 sched_pending_vc(const struct sched *s, int vc);
bool		 sched_check(const struct sched *s, char *why, size_t len);

#endif
