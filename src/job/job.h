/*
 * job.h — a training job and its lifecycle, shared by the scheduler, the
 * emulator, the store and the backends. Pure: no I/O, no clock; `now` is an
 * argument (seconds on the backend's clock, virtual for the emulator).
 *
 * The state machine (every transition goes through job_apply, nothing else
 * writes j->state):
 *
 *   SUBMIT            -> PENDING
 *   START     PENDING -> RUNNING
 *   SUSPEND   RUNNING -> SUSPENDED           (time-slicing; keeps its cells)
 *   RESUME  SUSPENDED -> RUNNING
 *   PREEMPT   RUNNING|SUSPENDED -> PREEMPTED (lost its cells, checkpointing)
 *   REQUEUE   PREEMPTED|FAILED -> PENDING    (restarts + 1)
 *   FINISH    RUNNING -> COMPLETING          (work done, cleaning up)
 *   COMPLETE  COMPLETING -> COMPLETED
 *   FAIL      RUNNING|SUSPENDED|COMPLETING -> FAILED
 *   CANCEL    PENDING|RUNNING|SUSPENDED|PREEMPTED|FAILED -> CANCELLED
 *
 * COMPLETED, CANCELLED are final; FAILED is final unless requeued.
 * job_apply keeps the time accounting that depends only on states: queued
 * time (time spent PENDING), first start, end. Service and progress depend on
 * the backend's speed model and are added by job_account.
 *
 * Invariants:
 *  1. state_since <= now for every applied event; times never go back.
 *  2. queued + (time running, suspended, preempted) == end - submit for a
 *     job in a final state (checked by tests, not at run time).
 *  3. work_done <= work (duration at ideal speed); lost_work <= work ever done.
 */
#ifndef CELLAR_JOB_H
#define CELLAR_JOB_H

#include <stdbool.h>

#include "engine/engine.h"

#define JOB_NAME_MAX	64
#define JOB_USER_MAX	32

enum job_state {
	JOB_PENDING,
	JOB_RUNNING,
	JOB_SUSPENDED,
	JOB_PREEMPTED,
	JOB_COMPLETING,
	JOB_COMPLETED,
	JOB_FAILED,
	JOB_CANCELLED,
	JOB_NSTATES
};

enum job_event {
	JOB_EV_SUBMIT,
	JOB_EV_START,
	JOB_EV_SUSPEND,
	JOB_EV_RESUME,
	JOB_EV_PREEMPT,
	JOB_EV_REQUEUE,
	JOB_EV_FINISH,
	JOB_EV_COMPLETE,
	JOB_EV_FAIL,
	JOB_EV_CANCEL,
	JOB_NEVENTS
};

/* Why a pending job waits; short words as Slurm prints them (help states). */
enum job_reason {
	JOB_REASON_NONE,	/* not pending, or not looked at yet */
	JOB_REASON_RESOURCES,	/* no idle GPUs of that kind anywhere (opportunistic) */
	JOB_REASON_VCFULL,	/* its VC's cells (or quota) are all in use */
	JOB_REASON_FRAGMENTED,	/* enough free GPUs in the VC, not in one cell */
	JOB_REASON_BADNODES,	/* room only on bad nodes */
	JOB_REASON_PRIORITY,	/* jobs ahead of it in the policy's order */
	JOB_REASON_GANG,	/* some pods of its gang fit, not all at once */
	JOB_REASON_PREEMPTING,	/* victims are checkpointing to make room */
	JOB_REASON_NODEFAIL,	/* requeued after its node failed */
	JOB_NREASONS
};

/* Priority class of a job in its VC (HiveD). */
enum job_class {
	JOB_GUARANTEED,		/* uses its VC's cells; may preempt opportunistic */
	JOB_OPPORTUNISTIC,	/* idle cells anywhere; preempted when needed */
	JOB_AUTO,		/* guaranteed while its VC has room, else opportunistic */
};

struct job {
	/* ---- the request (set once, from a trace or a submission) ---- */
	char			 name[JOB_NAME_MAX];
	char			 user[JOB_USER_MAX];
	int			 id;		/* index in its table; the final tie-break */
	int			 vc;		/* spec VC index */
	double			 submit;
	int			 nmembers;	/* gang: members of pods x gpus */
	struct engine_member	 members[ENGINE_MAX_MEMBERS];
	int			 gpus;		/* total, sum of pods x gpus */
	int			 leaf_type;	/* spec type index, -1 = any */
	enum job_class		 klass;
	bool			 class_given;	/* klass is the job's own (a trace's
						   class column): a run's default
						   class leaves it */
	int			 priority;	/* 0..1000 from a submission (policy
						   'priority'); 0 for traces */
	int			 weight;	/* time-slice weight within its priority
						   (gandiva's sharing groups): 1 */
	int			 uid;		/* a live job runs as (its submitter's,
						   or access.runAs); -1: unknown */
	int			 gid;
	bool			 soft_affinity;	/* may run with relaxed locality */
	bool			 affinity_given;	/* soft_affinity is the job's own (a
						   trace's affinity column): a run's
						   --affinity leaves it */
	double			 duration;	/* seconds at ideal placement; < 0 unknown */
	int			 model;		/* model class (job/model-class.h) */
	int			 elastic_min;	/* GPUs; 0 = not elastic */
	int			 elastic_max;

	/* ---- the lifecycle (job_apply / job_account only) ---- */
	enum job_state		 state;
	enum job_reason		 reason;	/* meaningful while PENDING */
	double			 state_since;	/* time of the last transition */
	double			 first_start;	/* < 0 until it first runs */
	double			 end;		/* < 0 until final */
	double			 queued;	/* seconds spent PENDING */
	double			 attained;	/* GPU-seconds of service received */
	/* Tiresias' promotion (policy.h): attained and policy_wait at the
	   last promotion, from which a job's queue service and its wait
	   count again. promo_wait is < 0 from a promotion to the next start:
	   a job's wait counts once it has run since (job_apply sets it). */
	double			 promo_attained;
	double			 promo_wait;
	double			 run_time;	/* seconds RUNNING (wall, any speed) */
	double			 work_done;	/* seconds of ideal-speed progress */
	double			 ckpt_work;	/* work_done at the last checkpoint */
	double			 lost_work;	/* ideal-speed seconds lost to failures */
	int			 restarts;	/* requeues */
	int			 preemptions;
	int			 suspensions;
	bool			 opportunistic;	/* running as opportunistic now; in
						   the emulator a completed job
						   keeps how it ran last (its
						   report's class rows) */
	int			 engine_id;	/* engine job id while holding cells, else -1 */
};

/* Fill a request with defaults: guaranteed, any type, unknown duration. */
void		 job_init(struct job *j, int id, const char *name, int vc, double submit);
/* Set a one-member gang of pods x gpus (gpus recomputed). */
void		 job_set_shape(struct job *j, int pods, int gpus);

/*
 * Apply an event at time now. Returns 0, or -1 (state unchanged) with a
 * message in why (lowercase, names the job in quotes) when the event is not
 * allowed in the current state or time goes back.
 */
int		 job_apply(struct job *j, enum job_event ev, double now, char *why, size_t len);
/* The state ev leads to from s, or -1. */
int		 job_next_state(enum job_state s, enum job_event ev);

/*
 * Account dt seconds of running at `speed` (ideal = 1): attained service,
 * run time and progress (capped at the job's duration when known).
 */
void		 job_account(struct job *j, double dt, double speed);
/*
 * The same for a job that has its GPUs only in part (packed with others
 * on them): service grows at gpus x share, so the jobs on a GPU never
 * attain more than the GPU's time.
 */
void		 job_account_shared(struct job *j, double dt, double speed, double share);

/*
 * Seconds pending up to now, the open period included: queued grows only
 * when a job leaves PENDING, so a job waiting for the first time read 0.
 */
double		 job_queued_at(const struct job *j, double now);
/*
 * Seconds running up to now for a job whose run time is accounted when it
 * leaves RUNNING (a live or alloc'd job: job_account at the transition),
 * the open period included. Not for the emulator's jobs, which account as
 * they go (their run_time is current to the emulator's clock).
 */
double		 job_run_time_at(const struct job *j, double now);

bool		 job_is_final(const struct job *j);
/* Holds cells now: RUNNING, SUSPENDED or COMPLETING. */
bool		 job_holds_cells(const struct job *j);

/* Names and codes, from one table each. */
const char	*job_state_name(enum job_state s);	/* "pending" */
const char	*job_state_code(enum job_state s);	/* "PD" (Slurm) */
const char	*job_state_help(enum job_state s);
const char	*job_event_name(enum job_event ev);
const char	*job_reason_name(enum job_reason r);	/* "VCFull"; "None" */
const char	*job_reason_help(enum job_reason r);
const char	*job_class_name(enum job_class c);	/* "guaranteed" */
int		 job_class_parse(const char *s);
/* The reason a failed placement gives a pending job. */
enum job_reason	 job_reason_from_engine(enum engine_fail f);

#endif
