/*
 * policy.h — scheduling policies behind one table (struct policy_ops). Pure:
 * no I/O, no clock, no globals, no randomness; `now` is an argument.
 *
 * A policy does not place anything. It answers three questions about a job,
 * and the scheduler (sched.h) turns the answers into engine placements inside
 * each VC's view (HiveD's separation of concerns):
 *
 *   key    the job's place in its queue: smaller keys go first. A key is up
 *          to three numbers compared in order, then the job id (the
 *          deterministic tie-break). Each policy file lists its rules as a
 *          numbered list and fills k[0], k[1], k[2] following those numbers.
 *   klass  its preemption class, 0 .. POLICY_MAX_CLASS: a job may preempt
 *          running jobs of its VC with a strictly lower class, never equal
 *          or higher. Non-preemptive policies return 0 for every job.
 *   change when (in attained GPU-seconds) a running job's key or class next
 *          changes, so the emulator can schedule a re-key instead of polling.
 *
 * Invariants every policy keeps (tests/unit/tpolicy-*.c check them):
 *  1. key and klass depend only on the job's request, its attained service
 *     and work done, its queued time and `now`, never on other jobs (and on
 *     the policy's parameters and state: gittins learning from done() moves
 *     its index table; keys cached before keep their values until the job
 *     is re-keyed).
 *  2. Monotone: key(a) < key(b) implies klass(a) >= klass(b), so the head of
 *     a queue has the highest class of everything behind it.
 *  3. A pending job's key changes only at the time wait_change returns
 *     (by the promotion policy_promote makes then, or by time for the
 *     others); a running job's only at the attained service `change`
 *     returns. Boundaries are inclusive: at exactly that time or service the
 *     new key holds. Exceptions: an oracle's key is the remaining time, which
 *     falls continuously while the job runs, and gittins' index moves at
 *     every sample point; their `change` reports the class, the only part
 *     of a running job's rank the scheduler uses (a requeued job is ranked
 *     afresh).
 *  4. Policies that read j->duration (oracles) set POLICY_ORACLE.
 *
 * Promotion (las, gittins) resets a job's service (policy_promote): the
 * reset lives in the job (promo_attained, promo_wait), so invariant 1 holds.
 */
#ifndef CELLAR_POLICY_H
#define CELLAR_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "job/job.h"

struct strbuf;

#define POLICY_MAX_QUEUES	16
#define POLICY_MAX_CLASS	ENGINE_PRIO_MAX

/* Tunables; policy_params_init sets the papers' defaults. */
struct policy_params {
	int		 nqueues;	/* K: 2 */
	double		 thresholds[POLICY_MAX_QUEUES];	/* GPU-seconds, K-1 used: 3600 */
	double		 promote_knob;	/* promote when wait >= knob x run time
					   since the last promotion; 0 = off */
	/* gittins: a sample of job service (GPU-seconds), e.g. yarn-gput*.csv;
	   NULL = learn from completed jobs (policy_ops.done) */
	const double	*service;
	size_t		 nservice;
};

struct policy_key {
	double		 k[3];
	int		 id;		/* job id: the final tie-break */
};

#define POLICY_PREEMPTIVE	0x1	/* klass differs between jobs */
#define POLICY_SKIP		0x2	/* a blocked job lets later ones that fit pass */
#define POLICY_ORACLE		0x4	/* reads j->duration */
/* Asks the backend to over-subscribe: a guaranteed job that cannot get
   cells at arrival is time-sliced (or packed) with jobs of its VC of the
   same size on one node (Gandiva; sim/share.h). Not about the order. */
#define POLICY_OVERSUB		0x8
/* Asks the backend for AntMan's sharing: opportunistic jobs (and auto
   ones that cannot start as guaranteed) borrow GPUs without cells, under
   memory and SM control (sim/antman.h); the scheduler leaves the
   opportunistic pool to the backend. Not about the order. */
#define POLICY_OPPSHARE		0x10

struct policy;

struct policy_ops {
	const char	*name;		/* "las" */
	const char	*summary;	/* one line for help and reports */
	unsigned	 flags;		/* POLICY_* */
	/* Build tables from the params; optional. Returns 0 or -1 with *cause. */
	int		(*init)(struct policy *p, char **cause);
	void		(*release)(struct policy *p);
	void		(*key)(const struct policy *p, const struct job *j, double now,
			    struct policy_key *out);
	int		(*klass)(const struct policy *p, const struct job *j, double now);
	/* Attained service (GPU-seconds) at which a running job's key or class
	   next changes; INFINITY if never. Oracles convert their remaining
	   time with the job's average speed so far (work_done / run_time):
	   a job slower than that is asked again, a little closer each time. */
	double		(*change)(const struct policy *p, const struct job *j);
	/* Oracles only (NULL otherwise): the work_done (ideal-speed seconds)
	   at which a running job's class next changes; INFINITY if never.
	   Exact at any speed: an emulator that knows the job's speed should
	   prefer it to change(). */
	double		(*change_work)(const struct policy *p, const struct job *j);
	/* Time at which a pending job's key next changes; INFINITY if never. */
	double		(*wait_change)(const struct policy *p, const struct job *j, double now);
	/* A job finished (learning policies); optional. */
	void		(*done)(struct policy *p, const struct job *j);
};

struct policy {
	const struct policy_ops	*ops;
	struct policy_params	 par;
	void			*state;		/* the policy's own, owned */
};

/* Every policy, NULL-terminated, in the order help lists them. */
extern const struct policy_ops *const policy_table[];

void	 policy_params_init(struct policy_params *par);
/*
 * Parse a threshold list "3600,36000" (GPU-seconds; suffixes s m h for
 * GPU-seconds, -minutes, -hours) into par. Returns 0 or -1 with *cause.
 */
int	 policy_params_thresholds(struct policy_params *par, const char *list, char **cause);
const struct policy_ops *policy_find(const char *name);
/* Every policy's name, ", "-separated, in table order (help, messages). */
void	 policy_names(struct strbuf *sb);
/* "unknown policy 'NAME' (did you mean 'X'? policies: ...)", malloc'ed:
   the one message for a name policy_find does not know. */
char	*policy_unknown(const char *name);

/* Set up / tear down a policy; params are copied (the sample is not). */
int	 policy_init(struct policy *p, const struct policy_ops *ops,
	    const struct policy_params *par, char **cause);
void	 policy_release(struct policy *p);

/* Compare two keys: <0 if a goes first. Total: ties end at the job id. */
int	 policy_key_cmp(const struct policy_key *a, const struct policy_key *b);

/* The queue (0 = highest) attained service a falls in, for las/gittins. */
int	 policy_queue_of(const struct policy_params *par, double attained);

/*
 * Helpers for las and gittins (and for showing a job's rank).
 *
 * policy_wait: seconds the job has spent PENDING since it first ran, up to
 * now (Tiresias counts no wait before the first run).
 *
 * policy_service: the service a job is ranked by: its attained service
 * since its last promotion (all of it without one).
 *
 * Promotion (PROMOTEKNOB, promote_knob > 0), as the Tiresias simulator
 * does it: a pending job of a queue below the first whose wait since its
 * last promotion (counted once it has run since then) reaches knob x the
 * seconds it ran since then is promoted: its service and its wait count
 * from zero again (job.h promo_attained, promo_wait), so it is back in the
 * first queue as if new. policy_promote_at is that moment (INFINITY: none
 * coming); policy_promote, called then by the emulator, makes the reset
 * and says whether it did.
 *
 * policy_service_reaches: for a running job, the smallest attained service
 * at which policy_service is >= s.
 */
double	 policy_wait(const struct job *j, double now);
double	 policy_service(const struct policy_params *par, const struct job *j, double now);
double	 policy_service_reaches(const struct policy_params *par, const struct job *j,
	    double s);
double	 policy_promote_at(const struct policy_params *par, const struct job *j,
	    double now);
bool	 policy_promote(const struct policy_params *par, struct job *j, double now);

/* The policies, defined in policy-*.c. */
extern const struct policy_ops policy_fifo;
extern const struct policy_ops policy_fifo_skip;
extern const struct policy_ops policy_las;
extern const struct policy_ops policy_gittins;
extern const struct policy_ops policy_srtf;
extern const struct policy_ops policy_srsf;
extern const struct policy_ops policy_gandiva;
extern const struct policy_ops policy_antman;
extern const struct policy_ops policy_priority;

#endif
