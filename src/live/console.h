/*
 * console.h — the live session: real jobs submitted by the operator,
 * scheduled by src/policy/sched.c on the session's engine and carried out
 * by a hook backend (src/backend). console_tick is the whole pipeline in
 * one place:
 *
 *   hooks finished -> store -> engine/job -> policy pass -> store -> hooks
 *
 * Write-ahead (as session-log.h): every decision (start, preempt, cancel,
 * fail, complete) is committed to the store before the hooks that carry
 * it out are started; what a hook answers is committed when it arrives.
 * A job's live data (command, environment, priority, phase) is its blob
 * in the store.
 *
 * Job phases (besides the struct job state):
 *
 *   QUEUED   -> STARTING [sched START: decision committed, start hooks]
 *   STARTING -> RUNNING  [every pod's start hook exited 0]
 *   STARTING -> STOPPING [a start hook failed: the gang fails as a unit]
 *   RUNNING  -> STOPPING [preempted, cancelled, a pod failed]
 *   RUNNING  -> DONE     [every pod's status says completed]
 *   STOPPING -> QUEUED   [stop hooks done after a preemption: requeued]
 *   STOPPING -> DONE     [stop hooks done after cancel or failure]
 *   STOPPING -> STOPPING [a stop hook failed: its processes may still run,
 *                         so its nodes stay blocked; stopped again every
 *                         statusInterval, its nodes marked bad after
 *                         LIVE_STOP_FAILS rounds (live-health.c)]
 *
 * Suspension (a hook set with suspend and resume; guaranteed jobs only):
 *
 *   RUNNING    -> SUSPENDING [preempted: cells given up, suspend hooks]
 *   SUSPENDING -> SUSPENDED  [every suspend hook exited 0]
 *   SUSPENDING -> STOPPING   [a suspend hook failed: stopped, requeued]
 *   SUSPENDED  -> RESUMING   [its own cells free again and no higher
 *                             queued job wants them: pinned to exactly
 *                             those cells (engine_adopt), resume hooks]
 *   SUSPENDED  -> STOPPING   [its cells cannot come back (bad node, not
 *                             in the spec), or status says it is gone:
 *                             stopped, requeued to start afresh]
 *   SUSPENDED  -> DONE       [every pod's status says completed]
 *   RESUMING   -> RUNNING    [every resume hook exited 0]
 *   RESUMING   -> STOPPING   [a resume hook failed: stopped, requeued]
 *
 * Migration (the operator's 'job migrate', a migrate hook):
 *
 *   RUNNING   -> MIGRATING [engine_move: one pod's cells moved (the job
 *                           keeps its engine id; its VC, quota and sharing
 *                           safety checked, nothing changed if refused);
 *                           the decision committed, then step 0: the stop
 *                           hook for the pod at its source (CELLAR_TO_NODE,
 *                           CELLAR_TO_GPUS: the process set checkpoints)]
 *   MIGRATING -> MIGRATING [the stop exited 0: step 1 committed, then the
 *                           migrate hook on the new node (CELLAR_FROM_NODE,
 *                           CELLAR_FROM_GPUS), once nothing else still
 *                           holds its GPUs there]
 *   MIGRATING -> RUNNING   [the migrate hook exited 0]
 *   MIGRATING -> STOPPING  [either hook failed, or a node went bad, or a
 *                           cancel: stopped, requeued (cancel: not)]
 *
 * While step 0 is not done the pod may still run at its source: a stop
 * of the job then stops it there too, and a start on the source node
 * waits. Step 1 is committed before the migrate hook so a restart never
 * stops the source again (a slurm or kubernetes pod's record is keyed by
 * job and pod, not node: that stop would hit the new one); both hooks
 * must be idempotent (a restart runs the current step again).

 * A suspended job is SUSPENDED in struct job but holds no cells (the
 * preemptor needs them); its pods (node, GPUs) say where it may resume.
 *
 * A start waits while another job is STOPPING or SUSPENDING on one of its
 * nodes, or MIGRATING away from one, so the GPUs are free (or the process
 * stopped or gone) before the next job is given them.
 *
 * Health: each node's health hook runs every healthInterval; a node whose
 * hook fails (after retries), whose status hooks failed LIVE_STATUS_FAILS
 * times in a row (until its health hook passes again), or where a
 * stopping job's stops keep failing, is marked bad in the engine and the store
 * (node_settle), and the live jobs on it fail with reason NodeFail and go
 * STOPPING -> QUEUED; it is marked ok when the hook passes again, in the
 * same console. A node that is bad when the console would mark it (an
 * operator marked it by hand, or this console before a restart) is not
 * touched: it stays bad until 'node ok'. At most healthConcurrency
 * health hooks run at once; the nodes due longest go first.
 *
 * Restart: console_get on a session that recovered its run from the store
 * takes the run's live jobs over from their blobs (phase, request, pods):
 * QUEUED ones are queued, STOPPING ones stopped again, STARTING and
 * RUNNING ones keep their recovered cells and become RUNNING with every
 * pod asked (status) first; a pod that answers "absent" never started and
 * gets its start hook then. SUSPENDED ones stay suspended (without cells)
 * and are asked too: a pod that is gone has the job requeued; SUSPENDING
 * and RESUMING ones get their (idempotent) suspend or resume hooks again. Nothing is started twice as long as start and
 * stop hooks are idempotent (the shipped sets are).
 *
 * Ownership: a console belongs to one session (sess->console, freed
 * through sess->console_release, which console_get sets to console_free)
 * and borrows its engine and store; console_free kills hooks still
 * running (the jobs they started run on: their nodes own them).
 * Snapshots are the caller's.
 *
 * Invariants:
 *  1. A job holds engine cells exactly while STARTING, RUNNING, RESUMING or
 *     MIGRATING.
 *  2. Every hook run handed to the queue comes back to exactly one job
 *     (or node), which counts it in hooks_out until then.
 *  3. Job logs are bounded (CONSOLE_LOG_MAX bytes per job, the newest kept)
 *     and reach the store (job_logs) with the decisions they tell of, the
 *     rest at the end of the tick that produced them; a restart takes a
 *     live job's stored log over, and a finished job's log is read from
 *     the store (console_log_stored).
 *  4. No hook is started for a decision the store does not hold: a store
 *     failure after a scheduler pass acted on the engine halts the console
 *     (the engine and the jobs stay ahead of the store until a restart).
 *  5. The loops of a tick, a submit and the queue visit only the jobs not
 *     retired (alive, in submission order): a job is retired once DONE
 *     with no hook out and its log stored, and never comes back, so a
 *     server's cost per request follows its live jobs, not its history.
 */
#ifndef CELLAR_CONSOLE_H
#define CELLAR_CONSOLE_H

#include <stdbool.h>

#include "core/strbuf.h"
#include "job/job.h"

#define CONSOLE_LOG_MAX	65536	/* = STORE_LOG_MAX */

struct session;
struct console;
struct pollfd;

enum console_phase {
	CONSOLE_QUEUED,
	CONSOLE_STARTING,
	CONSOLE_RUNNING,
	CONSOLE_STOPPING,
	CONSOLE_DONE,
	/* after DONE: stored blobs of version 2 hold the phases above */
	CONSOLE_SUSPENDING,
	CONSOLE_SUSPENDED,
	CONSOLE_RESUMING,
	CONSOLE_MIGRATING,
};

const char	*console_phase_name(enum console_phase p);

/* A submission: argv (the job's command) and env ("K=V") are copied. */
struct console_submit {
	const char	*name;
	int		 vc;
	int		 pods, gpus;		/* gang: pods x gpus */
	int		 priority;		/* -1: opportunistic */
	char *const	*argv;
	int		 argc;
	char *const	*env;
	int		 nenv;
};

/* The session's console, made on first use (its spec needs a backend).
   0; -1 with *cause; -2 with *cause when this process is not the
   store's server (s->serving): no other process runs hooks. */
int		 console_get(struct session *s, struct console **out, char **cause);
/* Call say with one line for each decision recorded (an event). */
void		 console_set_log(struct console *c,
		    void (*say)(void *arg, const char *line), void *arg);
/* The hooks' fds to poll (at most max), and ms cut to the next hook's
   due time (a retry, a timeout): what a server's poll(2) adds. */
int		 console_pollfds(const struct console *c, struct pollfd *fds, int max);
int		 console_timeout(const struct console *c, int ms);
void		 console_free(struct console *c);

/* Submit a job (committed to the store). 0, or -1 with *cause; *status
   gets the exit status to use (1, or 4 for the store). */
int		 console_submit(struct console *c, const struct console_submit *sub,
		    int *status, char **cause);
/* Cancel a job by name (pending or running). */
int		 console_cancel(struct console *c, const char *name, int *status,
		    char **cause);
/*
 * Move pod `pod` of running job NAME to free healthy GPUs of node (its
 * own: other GPUs there; NULL: the first other node in the spec's order
 * with room, else other GPUs of its own) with engine_move, commit the
 * decision (a migrate event), then MIGRATING's two steps (above). Needs
 * a migrate hook; only guaranteed jobs move (engine_move's rule).
 */
int		 console_migrate(struct console *c, const char *name, const char *node,
		    int pod, int *status, char **cause);
/*
 * One pass of the pipeline at the wall clock. -1 with *cause on a store
 * failure: the console is then halted (invariant 4) and every later tick,
 * submit and cancel fails.
 */
int		 console_tick(struct console *c, char **cause);
/*
 * Wait up to ms milliseconds for a hook to finish or fd (>= 0, e.g. stdin)
 * to become readable, then tick. Returns 1 if fd is readable, 0 otherwise,
 * -1 on a store failure.
 */
int		 console_wait(struct console *c, int ms, int fd, char **cause);
/* What taking over a recovered run's live jobs could not do, or NULL. */
const char	*console_notes(const struct console *c);
/* Halt it from outside: a server's group of requests did not commit
   (store.h invariant 9), so the console holds decisions the store lacks. */
void		 console_halt(struct console *c, const char *why);
/* Why the console halted (a store failure), or NULL while it runs. */
const char	*console_halted(const struct console *c);
/* Hooks in flight. */
int		 console_busy(const struct console *c);

/* ---- a read-only snapshot (for commands and the dashboard) ---- */

struct console_job {
	struct job		 job;		/* a copy */
	enum console_phase	 phase;
	char			*nodes;		/* hostlist of its pods, or "" */
	int			 hooks_out;
	char			*last_error;	/* or NULL */
};

struct console_snapshot {
	struct console_job	*jobs;
	int			 njobs;
	int			 hooks_running;
};

void		 console_snapshot(const struct console *c, struct console_snapshot *out);
void		 console_snapshot_release(struct console_snapshot *snap);
/*
 * The jobs not done, in the order the policy serves them: per VC in the
 * spec's order, first the jobs that hold or are giving back cells, or
 * are suspended (by the time of their last change), then the queued
 * ones in the policy's order (its cached keys: what the next pass tries
 * first). order[] (room for every job)
 * gets job indices, pos[] (per job index) the 1-based place of a queued
 * job in its VC's queue, 0 for the others. Returns how many.
 */
int		 console_queue(const struct console *c, int *order, int *pos);
/* A job's index by name (the newest of that name) or by "%ID" (its id,
   name_ref_id), or -1. */
int		 console_find(const struct console *c, const char *name);
/* Job i (as console_find gives it), read-only. */
const struct job *console_job(const struct console *c, int i);
/* The captured hook output of job i (bounded), *len bytes: the hooks'
   bytes as they came (a NUL included), NUL-terminated. */
const char	*console_log(const struct console *c, int i, size_t *len);
/* The stored log of a job of this session's run the console does not
   hold (finished before a restart): *text malloc'ed, *len bytes. 0, or
   -1 with *cause ("no job 'NAME' in this session" when the run has none). */
int		 console_log_stored(struct console *c, const char *name, char **text,
		    size_t *len, char **cause);

#endif
