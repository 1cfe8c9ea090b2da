/*
 * live-int.h — what the files of the live loop (src/live/) share; the
 * public face is console.h. console.c is the core: create and free,
 * submit and cancel, the tick with the policy's pass. The others hold one
 * concern each:
 *
 *   live-store.c	a job's log and its records (row, sealed blob, events)
 *   live-hooks.c	hooks out (each pod's environment) and hooks back
 *   live-phase.c	decisions, and what finished hooks lead to (settle)
 *   live-suspend.c	suspension: where a job is pinned, resuming it there
 *   live-migrate.c	'job migrate'
 *   live-recover.c	a restarted run's live jobs taken over
 *   live-health.c	health hooks back, nodes marked bad and healthy
 *   live-read.c	what commands and the dashboard read (queue, snapshot)
 *
 * Ownership: a console owns its jobs (lent to the scheduler), live and
 * health arrays, hook queue, backend, policy and scheduler; a struct live
 * owns its words, pods, strings and log. The session and its spec, engine
 * and store are borrowed (c->s).
 *
 * Invariants (with console.h's):
 *  1. jobs[i] and live[i] are one job for i < n; i is its index in the
 *     scheduler and in the hook queue (hook_req.job) and never changes (a
 *     committed job is never removed), but both arrays move as they grow:
 *     no pointer into them is kept across a submit or a recovery.
 *  2. A decision is written between begin and commit (one transaction)
 *     before any hook that carries it out is handed to the queue.
 *  3. Only src/live/ includes this header (tests/layers.sh).
 */
#ifndef CELLAR_LIVE_INT_H
#define CELLAR_LIVE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/backend.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "job/record.h"
#include "live/console.h"
#include "policy/sched.h"

struct pod {
	int		 node;		/* spec node index */
	char		*gpus;		/* "0,1": CUDA_VISIBLE_DEVICES */
	bool		 started;	/* its start hook succeeded */
	bool		 done;		/* status said completed */
	bool		 checked;	/* status answered since a restart */
};

struct live {
	enum console_phase	 phase;
	enum job_event		 after;		/* STOPPING: REQUEUE, or none (-1) */
	struct strvec		 argv;
	struct strvec		 env;
	struct pod		*pods;
	int			 npods;
	int			 hooks_out;	/* invariant 2 */
	bool			 failed;	/* a start or status said so */
	bool			 launched;	/* start hooks handed out */
	bool			 sent;		/* STOPPING, SUSPENDING, RESUMING: the
						   phase's hooks handed out */
	bool			 recovered;	/* taken over from the store after a
						   restart: its pods are asked first */
	double			 next_status;
	char			*last_error;
	char			*waits;		/* SUSPENDED: why the last try to
						   resume failed, or NULL */
	int			 mig_pod;	/* a migration: the pod moved, from */
	int			 from_node;	/* this node and */
	char			*from_gpus;	/* these GPUs (else NULL) */
	int			 mig_step;	/* 0: the pod may still run at the
						   source (its stop hook next or
						   out), 1: stopped there, the
						   migrate hook next or out */
	int			 mig_ended;	/* step 0's stop found the pod
						   ended on its own: 1 completed,
						   2 failed (else 0) */
	struct strbuf		 log;
	bool			 log_dirty;	/* not in the store yet */
	char			 run_user[64];	/* CELLAR_USER once looked up, or
						   "" (live-hooks.c) */
	/* STOPPING: a stop hook of this round failed or timed out, so the
	   job's processes may still run on its GPUs: it stays STOPPING (its
	   nodes blocked, live_blocked) and the stop is sent again at
	   next_stop; stop_fails rounds in a row have failed (from
	   LIVE_STOP_FAILS on, its nodes are marked bad too). */
	bool			 stop_failed;
	int			 stop_fails;
	double			 next_stop;
};

/* Failed rounds in a row after which a node is marked bad: of a job's
   stop hooks there (the job keeps its GPUs regardless), of any status
   hook there (a hanging status hook left its job R forever). */
#define LIVE_STOP_FAILS		2
#define LIVE_STATUS_FAILS	3

/* A node's health as the health hook reports it. */
struct health {
	bool		 out;		/* a health hook is running */
	bool		 failed;	/* its last run failed (after retries) */
	bool		 bad;		/* marked bad by us (not by an operator) */
	double		 next;		/* when to run it again */
	char		*why;		/* the failed run's output, first line */
	int		 status_fails;	/* status hooks failed here in a row */
	bool		 status_bad;	/* marked bad for it: until the health
					   hook passes again */
};

struct console {
	struct session		*s;
	struct health		*health;	/* per spec node */
	struct backend		*b;
	struct hookq		*q;
	struct policy		 policy;
	struct sched		*sched;
	struct job		*jobs;		/* sched's array, by live index */
	struct live		*live;
	int			 n;
	size_t			 cap;
	struct sched_action	*acts;
	int			 nacts, acap;
	struct hook_done	*done;
	int			 ndone;
	bool			 dirty;		/* run a pass at the next tick */
	char			*halted;	/* why the loop stopped (a store
						   failure), or NULL */
	struct strbuf		 notes;		/* what a restart could not take over */
	void			(*say)(void *arg, const char *line);
	void			*say_arg;	/* console_set_log */
	int			 nstuck;	/* STOPPING jobs with stop_fails >=
						   LIVE_STOP_FAILS */
	int			*alive;		/* invariant 5: the jobs not retired */
	int			 nalive;
	size_t			 alive_cap;
};

/* Where a suspended job ran, as the engine's placement of its pods. */
struct pinned {
	int	 chain;
	int	*pod_first;	/* npods + 1 */
	int	*leaves;
	int	 nleaves;
};

/* console.c: the core */
void	 live_release(struct live *l);
bool	 live_halted(const struct console *c, char **cause);
void	 live_alive_add(struct console *c, int i);
int	 live_begin(struct console *c, bool *created, char **cause);
int	 live_commit(struct console *c, bool created, char **cause);

/* live-store.c: the job's log, its records */
/* A hook's output as it came (its bytes, NULs included), bounded as live_logf. */
void	 live_log_add(struct live *l, const char *buf, size_t len);
void	 live_logf(struct live *l, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 live_set_error(struct live *l, const char *msg);
void	 live_rec_set(struct rec *r, double t, enum rec_kind kind,
	    const struct job *j, const char *detail);
int	 live_unpack_live(const struct spec *sp, const void *blob, size_t len,
	    struct live *l, int *priority, char *why, size_t wlen);
int	 live_put_log(struct console *c, int i, char **cause);
int	 live_put_job(struct console *c, int i, char **cause);
int	 live_append(struct console *c, const struct rec *r, char **cause);

/* live-hooks.c: hooks out and back */
void	 live_hook_pod(struct console *c, int i, int pod, enum spec_hook hook);
void	 live_hook_source(struct console *c, int i);
void	 live_mig_clear(struct live *l);
void	 live_take_pods(struct console *c, int i);
void	 live_stop_pods(struct console *c, int i, enum job_event after);
void	 live_phase_pods(struct console *c, int i, enum spec_hook hook);
bool	 live_blocked(const struct console *c, int i);
void	 live_hook_back(struct console *c, const struct hook_done *d);

/* live-phase.c: decisions, and what hooks back lead to */
void	 live_leave(struct job *j, enum job_event ev, double now);
int	 live_commit_placed(struct console *c, int i, struct rec *rec,
	    const char *verb, const int *leaves, int nleaves, char **cause);
int	 live_decide_start(struct console *c, int i, double now, char **cause);
int	 live_decide_stop(struct console *c, int i, enum job_event ev,
	    enum rec_kind kind, int by, const char *detail, double now,
	    char **cause);
int	 live_settle(struct console *c, int i, double now, char **cause);

/* live-suspend.c: suspension and resuming */
void	 live_pinned_release(struct pinned *pl);
int	 live_pinned_of(const struct console *c, int i, struct pinned *pl, char *why,
	    size_t len);
bool	 live_can_suspend(const struct console *c, int i);
int	 live_decide_suspend(struct console *c, int i, int by, double now,
	    char **cause);
int	 live_resume_pass(struct console *c, double now, char **cause);

/* live-health.c: nodes */
void	 live_health_back(struct console *c, const struct hook_done *d);
bool	 live_node_bad_now(const struct console *c, int node);
int	 live_node_settle(struct console *c, int node, double now, char **cause);

/* live-recover.c: after a restart */
int	 live_recover(struct console *c, struct strbuf *notes, char **cause);

#endif
