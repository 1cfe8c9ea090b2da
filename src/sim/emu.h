/*
 * emu.h — the emulated cluster: a deterministic discrete-event backend that
 * replays jobs on a spec under a policy and a sharing mode. No I/O, no wall
 * clock: time is virtual (seconds), events are ordered by (time, sequence),
 * so the same spec, jobs, policy and seed give the same results anywhere.
 *
 * Speed model: a running job progresses at speed = model.speed[locality]
 * (job/model-class.h), where locality is the lowest cell holding all its GPUs;
 * 1 with --ideal. Attained service (what las and gittins rank by) grows at
 * GPUs x wall time while a job holds its cells, whatever its speed.
 *
 * Costs (all zero with --ideal):
 *  - preemption: the victim checkpoints (model ckpt_save seconds) before it
 *    is requeued, and a restarted job stalls ckpt_restore seconds holding
 *    its cells before it progresses; nothing is lost to a preemption.
 *  - failure: a node that goes bad fails the jobs on it; they lose the work
 *    since their last periodic checkpoint (every ckpt_interval seconds of
 *    progress) and are requeued.
 * The preemptor starts at once (the victim's save overlaps it); a known
 * simplification.
 *
 * Sharing (policies with POLICY_OVERSUB, i.e. gandiva; sim/share.h): jobs
 * that got no cells at arrival join a node's sharing group as guests
 * (running without engine cells on hosts' slots); a suspended member
 * attains nothing, a packed one attains its share of the slot, so
 * invariant 2 holds; a switched-in member stalls its model's suspend
 * cost, a migrated one its migrate cost. Groups, guests, round-robin
 * order and packing trials are saved (blob version 2) like the rest.
 *
 * Migration (POLICY_OVERSUB, par.migrate; emu-migrate.c): jobs holding
 * cells move through engine_move, inside their VC, stalling their model's
 * migration cost: spread jobs onto nodes departures freed, and every
 * defrag_every the most-free busy node emptied. Nothing of it is saved.
 *
 * Priorities in a group (struct job's priority and weight; ours, since
 * Gandiva only says "weighted shares by priority"): strict tiers. The
 * slots go to the highest priority present; a lower tier runs only in
 * slots no higher job wants, is evicted first and is never packed with a
 * higher one, so a job is never suspended (or slowed) for a lower one.
 * Within a tier, round robin by weight: a member of weight w runs w
 * slices in a row (counted from its last resume, job state_since) before
 * it goes to the back, so shares go as the weights. Neither needs saved
 * state of its own.
 *
 * AntMan sharing (policies with POLICY_OPPSHARE, i.e. antman; sim/antman.h,
 * emu-antman.c): opportunistic jobs run as guests on GPUs they hold no
 * cells of; a guest attains the share of its GPUs that have no host, so
 * invariant 2 holds with the guests' shares counted as busy GPUs. Guests'
 * GPUs, phases and the GPUs' utilization are saved (blob version 3).
 *
 * Ticks: emu_run pops every event due at one instant, then runs one
 * scheduler pass and carries out its actions. Between two ticks (when
 * emu_run returns, and in the progress callback, which is only called
 * there) the state is complete: the journal, the dirty set and the saved
 * state below describe it, and emu_restore rebuilds it.
 *
 * Crash recovery: the state is every struct job, each running job's engine
 * placement, one blob per job (emu_job_save) and one per run (emu_save),
 * and the time series. The blobs hold only what cannot be re-derived:
 * arrivals (event sequence = job index, pending iff the job's submit is
 * after the last tick) and fault events (the sequences after, pending iff
 * after the last tick) are made again, as are the bad nodes (the fault
 * events up to the last tick, in order), the engine's doomed cells and the
 * scheduler's heaps (from the cached keys); learning policies are fed the
 * completed jobs again in completion order. Stale events (of jobs that
 * moved on) are kept: the event count and the sampling depend on them.
 * A finished job's blob is needed too: its completion ordinal (the order
 * learning policies are fed in, checked against the run's count), its
 * failures, migrations and costs (the report) and its arrival (ver). Job
 * blobs of version 4 write only the fields that differ from a fresh
 * job's; version 5 adds grow-shrink's (extra GPUs, wake-up) and a 64-bit
 * mask; versions 1-4 still restore.
 *
 * Ownership: the emulator owns its engine, scheduler and event heap, and
 * borrows the spec, the policy and the jobs array (which it updates in
 * place), all of which must outlive it. The journal and the dirty set are
 * the emulator's, valid until the next emu_run or emu_drain.
 *
 * Invariants (checked by tests/unit/tsim-emu.c and tsim-resume.c):
 *  1. Every job reaches a final state exactly once, or stays pending because
 *     nothing could ever place it (counted as never started).
 *  2. Sum of jobs' attained service == the integral of busy GPUs over time.
 *  3. The engine's invariants hold after every event (debug builds).
 *  4. Save at a tick boundary + restore + run to the end == run to the end:
 *     the same jobs, report, series and journal, bit for bit; a restored
 *     emulator saves to the very bytes it was restored from (blobs of the
 *     current versions; older ones come back in the current encoding).
 *  5. A job not in the dirty set has the same struct job, emu_job_save
 *     bytes and placement as at the last drain.
 */
#ifndef CELLAR_EMU_H
#define CELLAR_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "engine/engine.h"
#include "job/job.h"
#include "job/model-class.h"
#include "job/record.h"
#include "job/series.h"
#include "policy/policy.h"
#include "spec/spec.h"

/* A node failure to inject: bad at `at`, healthy again at `until` (< 0 never). */
struct emu_fault {
	char		 node[64];
	double		 at;
	double		 until;
};

/* Points of the time series at each period (at least: two per job), the
   first at sample_interval, the next at twice that, and so on. A year of
   hours. */
#define EMU_SERIES_STEP	8760

struct emu_params {
	bool			 ideal;		/* speed 1 everywhere, free preemption */
	double			 ckpt_interval;	/* seconds of progress: 1800 */
	double			 cost_scale;	/* x model checkpoint costs: 1 */
	double			 sample_interval; /* time series period: 3600; 0 none
						     (doubled as the series grows:
						     EMU_SERIES_STEP) */
	const struct emu_fault	*faults;
	int			 nfaults;
	/* events between progress calls (a store's checkpoints fall on
	   some of them: replay_hooks.every): 4096; no effect on the results */
	int			 progress_every;
	/* sharing, for policies with POLICY_OVERSUB (gandiva) */
	double			 slice;		/* time-slice interval: 60 s */
	int			 height;	/* max members per slot: 2 */
	bool			 pack;		/* try packing: true */
	/* no time-slicing: a guest joins only where it packs, a lost pack
	   evicts the later job to wait (AntMan's Gandiva baseline): false */
	bool			 no_slice;
	double			 gpu_mem;	/* GiB per GPU, for packing: 16 */
	double			 suspend_scale;	/* x model suspend+resume costs: 1 */
	double			 migrate_scale;	/* x model migration costs: 1 */
	/* early feedback: time until a job has run this long: 600 s */
	double			 feedback;
	/* grow-shrink (POLICY_OVERSUB): an elastic job (struct job
	   elastic_max > gpus) grows into GPUs of its node idle this long: 300 s */
	double			 grow_after;
	/* migration (POLICY_OVERSUB; emu-migrate.c): on departures, spread
	   jobs move to compact places; every defrag_every seconds (0: never)
	   the most-free non-idle node is emptied. Both only where the cost is
	   small against the job's remaining time. migrate false: neither. */
	bool			 migrate;	/* true */
	double			 defrag_every;	/* 60 s */
	/* AntMan sharing, for policies with POLICY_OPPSHARE (antman):
	   opportunistic jobs go only on GPUs whose SM utilization, averaged
	   over opp_window seconds, is below opp_threshold; opp_control off
	   is plain packing (no memory or SM control: jobs can run out of
	   memory). GPU memory is gpu_mem. */
	double			 opp_threshold;	/* M: 0.8 */
	double			 opp_window;	/* 300 s */
	bool			 opp_control;	/* true */
	/* hived mode: bind every VC's preassigned cells at the start, for
	   good (engine_bind_static; HiveD Fig. 10's baseline): false */
	bool			 static_binding;
	/* quota mode (others ignore it): a job over its VC's quota borrows
	   idle GPUs and keeps them until it ends (engine_set_borrow; YARN-CS
	   without preemption): false */
	bool			 borrow;
	/* speed model: a job with soft affinity runs at the speed of its
	   GPUs placed compactly, however relaxed (HiveD Fig. 9's best
	   case): false */
	bool			 no_affinity_slowdown;
};

void	emu_params_init(struct emu_params *par);

/* Summary statistics of a set of values (seconds). */
struct emu_dist {
	int		 n;
	double		 avg, median, p95, p99, max;
};

struct emu_group {
	char		 name[64];	/* VC name, or "all" */
	int		 jobs;		/* submitted */
	int		 done;		/* completed */
	int		 never;		/* never started */
	struct emu_dist	 jct;		/* completed jobs: end - submit */
	struct emu_dist	 queue;		/* completed jobs: time spent pending */
	double		 gpu_hours;	/* service received */
	int		 preemptions;
	long long	 preempted_gpus;	/* sum over preemptions of the victim's GPUs */
	double		 preempted_gpu_hours;	/* GPUs x time run of the runs
						   preemptions cut short */
	int		 failures;	/* restarts after node failures */
	double		 lost_gpu_hours;	/* lost work + checkpoint costs */
	struct emu_dist	 feedback;	/* completed jobs: until run par.feedback */
	int		 suspensions;
	double		 suspend_gpu_hours;	/* suspend+resume stalls */
	int		 migrations;
	double		 migrate_gpu_hours;	/* migration stalls */
	int		 borrowed_jobs;		/* started over quota at least once */
	double		 borrowed_gpu_hours;	/* GPUs x time held borrowed */
};

struct emu_report {
	struct emu_group	 all;
	/* by class: [0] guaranteed, [1] opportunistic, as each job ran (a
	   completed or running one) or asked (a pending one) */
	struct emu_group	 klass[2];
	struct emu_group	*vcs;		/* one per spec VC */
	int			 nvcs;
	double			 makespan;	/* last completion - first submit */
	double			 util;		/* busy GPU-time / (GPUs x makespan) */
	double			 frag_avg;	/* mean of the samples' frag */
	double			 frag_node_avg;	/* mean of their frag_node */
	/*
	 * The submission window (first to last arrival: the same for every
	 * policy on one trace, so these compare policies where util cannot,
	 * busy GPU-time being the work the trace asks for): busy GPU-time,
	 * and SM time used (GPUs x model SM demand in the job's phase x its
	 * packing factor while progressing; under AntMan the GPUs' plans),
	 * each / (GPUs x window). 0 when the window is empty.
	 */
	double			 win_start, win_end;
	double			 win_util;
	double			 win_sm;
	long long		 events;
	long long		 sched_passes;
	long long		 engine_attempts;
	long long		 upgrade_skips;	/* antman: attempts known to fail, not made */
	long long		 relaxed;	/* soft-affinity starts as smaller pods */
	long long		 guests;	/* starts time-sliced on others' cells */
	long long		 packs;		/* pack trials */
	long long		 unpacks;	/* trials that lost and were undone */
	long long		 grows;		/* GPUs elastic jobs took (one per grow) */
	long long		 shrinks;	/* GPUs they gave back for new jobs */
	bool			 borrow;	/* quota mode lent (emu_params.borrow) */
	/* AntMan sharing (POLICY_OPPSHARE; all 0 otherwise) */
	bool			 opp_shared;	/* the policy shared GPUs this way */
	double			 sm_util;	/* SM time used / all GPU time */
	double			 mem_util;	/* GiB-time used / all GPU memory-time */
	double			 interference;	/* guaranteed progress lost to guests */
	long long		 opp_guests;	/* starts as opportunistic guests */
	long long		 opp_done;	/* guests that completed */
	long long		 upgrades;	/* guests upgraded to guaranteed */
	long long		 upgrades_moved;	/* of which migrated (the rest: in place) */
	long long		 ooms;		/* jobs that ran out of memory */
};

struct emu_progress {
	long long	 events;
	int		 done;		/* jobs completed */
	int		 njobs;
	double		 now;
};

struct emu;

/*
 * Build an emulator over jobs (ids 0..njobs-1 == their index, all PENDING,
 * not yet submitted). Returns NULL with *cause if the spec cannot be used in
 * that mode or a job is malformed.
 */
struct emu	*emu_create(const struct spec *s, enum engine_mode mode,
		    const struct policy *p, const struct emu_params *par,
		    struct job *jobs, int njobs, char **cause);
void		 emu_free(struct emu *m);

/*
 * Run the ticks at times <= `until` (INFINITY: to the end). progress, if
 * not NULL, is called every few thousand events, at a tick boundary (it
 * may save), and stops the run by returning false (the emulator can go on
 * later). Returns the number of events processed, or -1 with *cause when
 * stopped or an invariant broke.
 */
long long	 emu_run(struct emu *m, double until,
		    bool (*progress)(void *arg, const struct emu_progress *pr),
		    void *arg, char **cause);
bool		 emu_done(const struct emu *m);

/*
 * Read-only views for a dashboard: the clock (the time of the last tick, or
 * of `until` of the last emu_run), the engine, the scheduler and the jobs
 * as the emulator has them now. Valid until the next emu_run or emu_free;
 * callers must not change them (the emulator's invariants rest on it).
 */
double		 emu_now(const struct emu *m);
const struct engine *emu_engine(const struct emu *m);
struct sched;
const struct sched *emu_sched(const struct emu *m);
const struct job *emu_jobs(const struct emu *m, int *n);
/* A job's progress now: seconds of work per second (0: not running, paused
   or stalled restoring), as the last tick left it. */
double		 emu_job_rate(const struct emu *m, int job);
/*
 * AntMan's placement index against the full scan it replaces (tests): the
 * per-GPU and per-node candidate marks, the cached loads, and for every
 * pending job the GPUs place() would choose now, both ways. The number of
 * jobs compared, or -1 with the first difference in why. Leaves the run's
 * state as it was.
 */
int		 emu_am_check(struct emu *m, char *why, size_t len);

/* The report (malloc'ed vcs; emu_report_release frees it). */
void		 emu_report(const struct emu *m, struct emu_report *r);
void		 emu_report_release(struct emu_report *r);
const struct emu_sample *emu_series(const struct emu *m, int *n);

/*
 * ---- for a store: what changed, and the state to come back to ----
 *
 * The journal lists what a person would want in the event log since the
 * last drain, in order: submit, start (detail: the nodes, as a hostlist,
 * "(opportunistic)" when so), preempt and downgrade (by: the job that took
 * the cells), requeue, complete, fail (cell and detail: the failed node),
 * node-bad and node-ok (cell: the node's first cell, detail: its name).
 * The dirty set lists, once each, the jobs whose struct job or emulator
 * state (emu_job_save) changed since the last drain. Both are valid until
 * the next emu_run or emu_drain; emu_drain empties both.
 */
const struct rec *emu_journal(const struct emu *m, int *n);
const int	*emu_dirty(const struct emu *m, int *n);
void		 emu_drain(struct emu *m);

/*
 * The same journal copied out compactly, for a writer on another thread:
 * a struct rec is 152 bytes, mostly an empty detail, and a Philly
 * replay's 250,000 records would be 38 MB expanded and copied again.
 * emu_journal_copy replaces what log held (keeping its buffers);
 * emu_jlog_rec expands record i as emu_journal gives it.
 */
struct emu_jrec {
	double		 t;
	int		 job, vc, cell, by;
	int		 detail;	/* offset in details, -1 none */
	int		 kind;		/* enum rec_kind */
};
struct emu_jlog {
	struct emu_jrec	*v;
	int		 n;
	size_t		 cap;
	struct strbuf	 details;	/* NUL-terminated strings */
};
void		 emu_jlog_init(struct emu_jlog *log);
void		 emu_jlog_release(struct emu_jlog *log);
void		 emu_journal_copy(const struct emu *m, struct emu_jlog *log);
void		 emu_jlog_rec(const struct emu_jlog *log, int i, struct rec *r);

/* A job's placement while it holds cells (engine.h); false otherwise. */
bool		 emu_job_placement(const struct emu *m, int job, struct engine_placement *pl);

/*
 * Append the encoded state of one job (emu_job_save: its versions, clocks,
 * costs, completion order and the scheduler's cached key and class) or of
 * the run (emu_save: the clock, counters, pending events other than
 * arrivals and faults, the scheduler's dirty domains and counters, the
 * engine's bad marks and history counters). Portable and versioned
 * (core/pack.h). Call between emu_run calls or from the progress
 * callback: at a tick boundary.
 */
struct strbuf;
void		 emu_job_save(const struct emu *m, int job, struct strbuf *out);
void		 emu_save(const struct emu *m, struct strbuf *out);

struct emu_blob {
	const void	*data;
	size_t		 len;
};

/*
 * The scheduler's key and class of a job as emu_job_save stored them (the
 * rank the policy gave it at that tick): what a reader of the store shows
 * as the policy's order without rebuilding the emulator. An empty blob is
 * a job never touched (key zero, class 0). 0, or -1 with why.
 */
int		 emu_job_saved_key(const struct emu_blob *b, int job,
		    struct policy_key *key, int *klass, char *why, size_t len);

/* What a store kept at one tick boundary. */
struct emu_saved {
	const struct engine_placement *placements;	/* every job holding cells */
	int			 nplacements;
	const struct emu_blob	*job_state;	/* per job (njobs), from emu_job_save;
						   len 0 (or NULL for all): never touched */
	struct emu_blob		 run;		/* from emu_save */
	const struct emu_sample	*series;	/* emu_series */
	int			 nseries;
};

/*
 * Rebuild an emulator from saved state: the same spec, mode, policy
 * (freshly initialized: completed jobs are replayed to its done() in their
 * completion order) and params (faults included) as the saved one, and
 * the jobs (struct job) as saved, which it borrows as emu_create does.
 * Every stored byte is checked; NULL with *cause when anything does not
 * fit. Continuing with emu_run gives what the saved emulator would have.
 */
struct emu	*emu_restore(const struct spec *s, enum engine_mode mode,
		    const struct policy *p, const struct emu_params *par,
		    struct job *jobs, int njobs, const struct emu_saved *sv, char **cause);

/* The locality tier of a set of leaves (spec cell indices) of one chain. */
enum locality	 emu_locality(const struct spec *s, const int *leaves, int n);
/* The tier of `gpus` GPUs of a chain placed as compactly as it allows
   (sim/affinity.c): what a relaxed job keeps under no_affinity_slowdown. */
enum locality	 emu_compact_locality(const struct spec *s, int chain, int gpus);

/* Distribution of n values (sorted in place). */
void		 emu_dist(double *v, int n, struct emu_dist *d);

#endif
