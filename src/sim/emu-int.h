/*
 * emu-int.h — the emulator's private state and its inner interfaces, for
 * the emulator's own files only (src/sim/emu*.c): the loop (emu.c), the
 * steps (emu-step.c), the sharing mechanisms behind struct emu_mech
 * (emu-share.c, emu-grow.c, emu-migrate.c, emu-antman.c) and saving and
 * restoring (emu-restore.c); and tests/unit/tsim-mech.c, which checks the
 * mechanism table. Calls run one way: emu.c and emu-restore.c -> a
 * mechanism's hooks -> emu-step.c -> engine, scheduler, job; the steps
 * reach a mechanism only through the hooks of m->on. See emu.h.
 */
#ifndef CELLAR_EMU_INT_H
#define CELLAR_EMU_INT_H

#include "core/strbuf.h"
#include "policy/sched.h"
#include "sim/antman.h"
#include "sim/emu.h"

#define EMU_MECH_MAX	8	/* sharing mechanisms a build may have */

struct emu_mech;

enum ev_kind {
	EV_ARRIVE,
	EV_FINISH,
	EV_REKEY,	/* a running job's key or class changes */
	EV_PROMOTE,	/* a pending job's key changes */
	EV_REQUEUE,	/* a preempted job finished checkpointing */
	EV_NODE_BAD,
	EV_NODE_OK,
	EV_SAMPLE,
	EV_SLICE,	/* a sharing group's slice or pack trial ends (arg: group) */
	EV_PHASE,	/* a running job enters its next phase (AntMan sharing) */
	EV_GROW,	/* an idle GPU's grow timeout ends: a tick to grow in */
};

struct ev {
	double		 t;
	uint64_t	 seq;
	int		 kind;
	int		 arg;		/* job or fault index */
	unsigned	 ver;		/* the job's version when scheduled */
};

/* The heap's order, (t, seq); inline: the loop's hottest comparison. */
static inline bool
emu_ev_before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

/* The emulator's own view of a job, beside struct job. */
struct ejob_state {
	unsigned	 ver;		/* bumped when its pending events go stale */
	double		 since;		/* accounted up to */
	double		 stall_until;	/* restoring: no progress before this */
	double		 speed;
	double		 costs;		/* seconds of checkpoint save + restore */
	double		 preempted;	/* seconds the runs preemptions cut short had run */
	/* quota with borrowing (engine.h invariant 10): seconds it held
	   borrowed GPUs, and (restore only) whether the saved placement was
	   borrowed, which the engine says otherwise (emu_job_lent) */
	double		 lent_time;
	bool		 lent;
	double		 target;	/* the re-key is due at this service / work */
	bool		 by_work;	/* target is work_done (oracles), else attained */
	int		 done;		/* completion ordinal (1, 2, ...), 0 if not */
	/* sharing (sim/share.h; all as below when never shared) */
	int		 grp;		/* its sharing group, -1 none */
	bool		 guest;		/* runs on a host's cells, holds none */
	long long	 rr;		/* round-robin order in the group: smaller first */
	double		 alone;		/* speed alone on its slot (locality) */
	double		 factor;	/* x alone while running: 1, < 1 packed */
	double		 share;		/* x its GPUs' time it attains: 1, 0.5 packed */
	double		 swcost;	/* seconds of suspend+resume stalls */
	int		 migrations;
	double		 migcost;	/* seconds of migration stalls */
	double		 feedback;	/* when its run time reached par.feedback; -1 */
	/* grow-shrink: GPUs beyond its gang (the engine placement's last
	   `extra` one-GPU pods) and the time of its pending EV_GROW, -1 */
	int		 extra;
	double		 grow_at;
	/* AntMan sharing (POLICY_OPPSHARE, emu-antman.c; 0 / NULL otherwise) */
	bool		 am;		/* a guest: runs on GPUs it holds no cells of */
	int		*gpus;		/* GPUs (gpu indices) it runs on, host or guest */
	int		 ngpus;
	long long	 am_seq;	/* order of arrival on its GPUs */
	int		 phase;		/* model_phases index while running */
	/* its terms in the emulator's sums, so leaving takes back exactly them */
	double		 c_busy;	/* guest: gpus x share while running */
	double		 c_host;	/* host: gpus while running */
	double		 c_lost;	/* host: gpus x (1 - factor) while running */
};

/*
 * AntMan: one GPU (spec leaf). Guests in order of arrival (am_seq); the
 * host is whoever holds the leaf's engine cell. grant[0..ng] is the last
 * plan (the host's first when there is one), kept to read factors.
 */
struct agpu {
	int		*guests;
	int		 ng;
	size_t		 cap;
	struct am_grant	*grant;
	int		*users;		/* the job of each grant */
	size_t		 grant_cap, users_cap;
	int		 nusers;	/* entries of grant and users in use */
	int		 host;		/* job of the last plan's host, -1 */
	double		 util_avg;	/* SM busy, averaged over par.opp_window */
	double		 util_t;	/* util_avg as of this time */
	double		 util_now;	/* SM busy now */
	double		 mem_now;	/* GiB granted now */
	bool		 dirty;		/* to plan again at the end of the tick */
	/* the placement index (emu-antman.c; rebuilt on restore, never saved) */
	bool		 cand;		/* util_now < opp_threshold: may take a guest */
	bool		 load_ok;	/* load is gpu_load's value at load_t */
	double		 load, load_t;
};

/* Group modes (how the slots are shared). */
enum sg_mode {
	SG_SLICE,	/* time-slicing, round robin */
	SG_TRIAL,	/* packed, measured until the next EV_SLICE */
	SG_PACKED,	/* packed, and it beat time-slicing */
	SG_NOPACK,	/* a pack lost: time-slicing until the members change */
};

/*
 * A sharing group (sim/share.h): one VC's jobs of one GPU count on one
 * node. Members are kept sorted by job id (so a restored group is the
 * same); nmb == 0 is a free entry. EV_SLICE events carry the version.
 */
struct sgroup {
	int		 node, vc, gpus;
	int		 mode;		/* enum sg_mode */
	unsigned	 ver;
	double		 eval_t;	/* SG_TRIAL: since when */
	double		 eval_work;	/* SG_TRIAL: the members' work then */
	int		*mb;
	int		 nmb;
	size_t		 cap;
};

/*
 * One journal entry, compact (24 bytes; the full Philly replay makes
 * about 270,000): emu_journal expands it to a struct rec.
 */
struct jent {
	double		 t;
	int		 job;
	int		 arg;		/* by (preempt, downgrade) or cell (fail, node) */
	int		 detail;	/* offset into the detail strings, -1 none */
	unsigned char	 kind;		/* enum rec_kind */
};

/* The journal expanded, kept until the next drain (filled by a const emu). */
struct jcache {
	struct rec	*v;
	int		 n;
	size_t		 cap;
};

/* Time-slicing's state (emu-share.c): groups, round-robin counters,
   arrivals of this tick. Gandiva's grow-shrink and migration read the
   groups and arrivals (a shared job neither grows nor moves). */
struct emu_share {
	struct sgroup		*grp;
	int			 ngrp;
	size_t			 grp_cap;
	long long		 rr_back, rr_front;
	long long		 packs, unpacks, guests;
	int			*arrived;	/* empty at every tick boundary */
	int			 narrived;
	size_t			 arrived_cap;
};

/* Grow-shrink's state (emu-grow.c), zero when off. */
struct emu_grow {
	/*
	 * grow-shrink (POLICY_OVERSUB and elastic jobs): the elastic jobs
	 * holding cells, by job id; per leaf (spec cell) since when it has
	 * been seen idle (-1: busy or not watched), watched on the nodes of
	 * those jobs at every tick; per node the tick it was last watched at.
	 */
	bool			 on;
	int			*jobs;
	int			 njobs;
	size_t			 cap;
	double			*idle_at;
	double			*node_seen;
	long long		 grows, shrinks;
};

/* Migration's state (emu-migrate.c), zero when off. */
struct emu_migrate {
	/* on: POLICY_OVERSUB and par.migrate. The
	   nodes departures freed cells on this tick (empty at every tick
	   boundary), flagged per node; per spec cell scratch counts */
	bool			 on;
	int			*nodes;
	int			 nnodes;
	size_t			 nodes_cap;
	unsigned char		*flag;
	int			*cnt;
	/* the engine ids multi-GPU jobs got (sorted; stale ones dropped as
	   found), so locality moves look at those only; derived, never
	   saved: multi_ok is false until filled from the engine */
	int			*multi;
	int			 nmulti;
	size_t			 multi_cap;
	bool			 multi_ok;
	/* per job: its locality and the best its GPU count could have, as
	   cur * 16 + best, or -1 when its cells changed since (derived) */
	int			*loc;
	/* defrag's per-node counts (node_use), good while the engine's use
	   serial is serial (derived: use_ok false until filled) */
	bool			 use_ok;
	unsigned long long	 serial;
	unsigned char		*busy;
	int			*free;
	unsigned char		*other;	/* opportunistic or bad leaves */
};

/* AntMan's state (emu-antman.c), zero when off. */
struct emu_antman {
	/* on: POLICY_OPPSHARE */
	bool			 on;
	struct agpu		*gpu;		/* per GPU (s->gpus), NULL when off */
	int			*leaf_gpu;	/* per spec cell: GPU index, -1 */
	int			*gpu_leaf;	/* per GPU: spec cell */
	int			 ngpu;
	int			*node_off;	/* per node: first entry in node_gpu */
	int			*node_gpu;	/* GPUs by node */
	int			*node_cand;	/* per node: its GPUs with cand set */
	/* place()'s scratch, per GPU, valid where the stamp is this call's */
	unsigned		*taken, *seen, serial;
	double			*load;
	int			*dist, *cand;
	int			*wait;	/* pending non-guaranteed jobs, (submit, id) */
	int			 nwait;
	size_t			 wait_cap;
	/* what upgrades() asks at every departure, kept instead of a walk
	   of every job: the guests of class auto, by job id, and per VC
	   the pending guaranteed-class jobs that have arrived */
	int			*autos;
	int			 nauto;
	size_t			 auto_cap;
	int			*gwait;
	int			*dirty;	/* GPUs marked dirty this tick */
	int			 ndirty;
	size_t			 dirty_cap;
	bool			 freed;	/* a host left this tick: try upgrades */
	long long		 seq;
	double			 busy;	/* sum of guests' c_busy */
	double			 host;	/* sum of hosts' c_host */
	double			 lost;	/* sum of hosts' c_lost */
	double			 sm;		/* sum of GPUs' util_now */
	double			 mem;	/* sum of GPUs' mem_now */
	double			 int_sm, int_mem, int_host, int_lost;
	long long		 done;	/* guests that completed */
	long long		 upgrades, ooms, guests;
	long long		 moved;	/* upgrades that migrated */
	long long		 skips;	/* upgrade attempts known to fail (not saved) */
};

/*
 * The emulator. Invariants, at every tick boundary (emu_check asserts
 * 1, 3, 4 and of 2 that every listed job is flagged, in debug builds,
 * after each tick and each restore):
 *  1. heap[0..nheap) is a binary heap in emu_ev_before order; live counts
 *     its entries that are not EV_SAMPLE; every entry's seq is below seq.
 *  2. dirty[0..ndirty) holds distinct jobs, exactly those with dflag set.
 *  3. on[0..non) are the entries of emu_mechs whose init returned true,
 *     in that order; own_sm is the OR of their EMU_MECH_OWN_SM.
 *  4. horizon is -inf (no tick yet) or now, the last tick's time.
 *  5. nfinal jobs are completed, with done 1..nfinal in completion order
 *     (emu_restore checks it); a job's events carry its js ver, older
 *     ones are stale.
 *  6. A job in a sharing group (js grp >= 0) holds cells or is a guest on
 *     a host's, and is a member of sh.grp[grp] (sorted by job id).
 *  7. Sums kept for speed equal their walks: am.busy, am.host, am.lost of
 *     the jobs' c_busy, c_host, c_lost (emu_am_check walks them).
 */
struct emu {
	const struct spec	*s;
	const struct policy	*p;
	struct emu_params	 par;
	struct engine		*e;
	struct sched		*sch;
	struct job		*jobs;
	int			 njobs;
	struct ejob_state	*js;
	/* the sharing mechanisms on in this run, in emu_mechs order */
	const struct emu_mech	*on[EMU_MECH_MAX];
	int			 non;
	bool			 own_sm;	/* one counts SM time (EMU_MECH_OWN_SM) */
	bool			 lend;		/* the engine lends (engine_borrow) */

	struct ev		*heap;
	int			 nheap;
	size_t			 heap_cap;
	uint64_t		 seq;
	double			 now;
	long long		 events;
	long long		 next_progress;	/* event count of the next progress call */
	int			 nfinal;		/* jobs completed */
	int			 live;		/* events other than samples queued */

	struct sched_action	*acts;
	int			 nacts, acts_cap;

	double			 busy_since;	/* busy GPU-time integral */
	double			 busy_gpu_time;
	double			 first_submit, last_end;
	/* the submission window (first to last arrival): busy GPU-time and
	   SM time used in it (emu_report's win_util, win_sm) */
	double			 win0, win1;
	double			 win_busy, win_sm;
	struct emu_sample	*series;
	int			 nseries;
	size_t			 series_cap;
	int			*failures;	/* per job: restarts after failures */

	/* the sharing mechanisms' own state (each file's alone) */
	struct emu_share	 sh;
	struct emu_grow		 gr;
	struct emu_migrate	 mg;
	struct emu_antman	 am;
	/* restore points */
	double			 horizon;	/* time of the last tick; -inf before */
	int			 nfault_ev;	/* fault events made by emu_create */

	/* for a store: journal and changed jobs since the last drain */
	struct jent		*jn;
	int			 njn;
	size_t			 jn_cap;
	struct strbuf		 jdetail;	/* NUL-terminated details, by offset */
	struct jcache		*jc;
	int			*dirty;
	int			 ndirty;
	size_t			 dirty_cap;
	unsigned char		*dflag;		/* per job: listed in dirty */
};

/*
 * A sharing mechanism (time-slicing and packing, grow-shrink, migration,
 * AntMan): its hooks, any of them NULL but init. The loop (emu.c) and the
 * steps (emu-step.c) call the hooks of the mechanisms on in this run, in
 * the table's order (emu.c emu_mechs); init, free, save, restore and
 * report go to every mechanism, an off one writing and checking its
 * defaults (the run blob's layout does not depend on the policy).
 */
enum emu_leave {
	EMU_LEAVE_FINISH,	/* completed */
	EMU_LEAVE_PREEMPT,	/* preempted or evicted: requeued later */
	EMU_LEAVE_FAIL,		/* its node went bad: requeued now */
};

/* The run blob's version (emu-restore.c says what each added). */
#define RUN_BLOB_VERSION	6
#define RUN_V_GROW		6	/* the first run version with grow-shrink */

/* The run blob, decoded (emu-restore.c), for the mechanisms' restore. */
struct emu_run_state {
	int			 njobs, nfaults, nseries;
	double			 now, horizon, busy_since, busy_gpu_time;
	double			 first_submit, last_end;
	uint64_t		 seq;
	long long		 events, next_progress;
	int			 nfinal, live;
	struct ev		*ev;
	int			 nev;
	unsigned char		*dirty;
	int			 ndoms;
	struct sched_stats	 ss;
	struct engine_stats	 es;
	struct engine_mark	*marks;
	int			 nmarks;
	long long		 rr_back, rr_front, packs, unpacks, guests;
	struct sgroup		*grp;	/* nmb: the count stored, mb unused */
	int			 ngrp;
	/* AntMan (version 3) */
	long long		 am_seq, am_done, am_upgrades, am_ooms, am_guests;
	double			 am[9];		/* busy host lost sm mem, 4 integrals */
	double			*gpu;		/* 4 per GPU */
	int			 ngpu;
	/* version 4 */
	double			 win_busy, win_sm;
	/* version 5 */
	long long		 am_moved;
	/* grow-shrink (version 6) */
	long long		 grows, shrinks;
	int			*idle_cell;
	double			*idle_t;
	int			 nidle;
};

struct emu_mech {
	const char	*name;
	/* Set its state up for this run; false: off (its state stays zero). */
	bool		(*init)(struct emu *m);
	void		(*free)(struct emu *m);
	/* A job was submitted (arrival, requeue) / arrived (EV_ARRIVE only). */
	void		(*submit)(struct emu *m, int job);
	void		(*arrive)(struct emu *m, int job);
	/* Job got cells of its own (started, or a guest promoted). */
	void		(*cells)(struct emu *m, int job);
	/* Job started on its cells: planned and journalled. */
	void		(*start)(struct emu *m, int job);
	/* A running job's finish and re-key were planned again. */
	void		(*planned)(struct emu *m, int job);
	/* Job's cells changed (grown, shrunk, moved). */
	void		(*moved)(struct emu *m, int job);
	/* Job is about to give its cells back to the engine. */
	void		(*release)(struct emu *m, int job);
	/* Job stopped running (why); its own state is already applied. */
	void		(*leave)(struct emu *m, int job, enum emu_leave why);
	/* Node went bad: the mechanism's jobs there fail (emu_fail). */
	void		(*node_bad)(struct emu *m, int node, int cell, int name, int *why);
	/* An event of the mechanism's own kind (EV_SLICE, EV_PHASE, EV_GROW). */
	void		(*event)(struct emu *m, const struct ev *x);
	/* The clock is about to move to t. */
	void		(*integrate)(struct emu *m, double t);
	/* GPUs busy beside those the engine counts (guests' shares). */
	double		(*busy)(const struct emu *m);
	/* After the tick's scheduler pass; true: the scheduler passes again. */
	bool		(*tick)(struct emu *m);
	/* After every mechanism's tick. */
	void		(*settle)(struct emu *m);
	/* The scheduler's placement hook (sched_on_place): the first on wins. */
	int		(*place)(void *arg, int job, const struct engine_req *r);
	/* Its part of the run blob's section (2 .. RUN_BLOB_VERSION). */
	void		(*save)(const struct emu *m, int section, struct strbuf *out);
	/* Its state from the decoded run blob, checked; -1 with why. */
	int		(*restore)(struct emu *m, const struct emu_run_state *rs, char *why,
			    size_t len);
	void		(*report)(const struct emu *m, struct emu_report *r);
	unsigned	 flags;
};

/* It counts the SM time itself (integrate): the jobs' spans are 0. */
#define EMU_MECH_OWN_SM		0x1

/* The mechanisms, in the order their hooks run (emu.c). */
extern const struct emu_mech *const emu_mechs[];

/* Call hook of every mechanism on in this run, with the arguments after it. */
#define EMU_EACH(m, hook, ...) do { \
	int emu_i_; \
	for (emu_i_ = 0; emu_i_ < (m)->non; emu_i_++) \
		if ((m)->on[emu_i_]->hook != NULL) \
			(m)->on[emu_i_]->hook((m), __VA_ARGS__); \
} while (0)

/* emu.c */
/* The allocations of an emulator for njobs jobs: no engine, no scheduler. */
struct emu	*emu_alloc(const struct spec *s, const struct policy *p,
		    const struct emu_params *par, struct job *jobs, int njobs);
/*
 * The fault events emu_create makes, in its order, with sequences from
 * seq0 (written to out when not NULL); returns how many.
 */
int		 emu_fault_events(const struct emu_params *par, struct ev *out, uint64_t seq0);
/* struct emu's invariants, those its comment says are checked; false with why. */
bool		 emu_check(const struct emu *m, char *why, size_t len);
/* Give the scheduler the emulator's callbacks (changes; a mechanism's placement). */
void		 emu_sched_hooks(struct emu *m);

/*
 * emu-step.c: the steps the loop and the mechanisms share. They call
 * nothing of emu.c's or a mechanism's but through the hooks of m->on.
 */
/* A job's emulator state before it ever ran (no group, no feedback yet). */
void		 emu_js_init(struct ejob_state *x);
/* Put x in the heap as it is (sequence included); counts live events. */
void		 emu_ev_insert(struct emu *m, const struct ev *x);
void		 emu_push(struct emu *m, double t, int kind, int arg, unsigned ver);
/* The job joins the set changed since the last drain. */
void		 emu_mark(struct emu *m, int job);
/* The scheduler's change callback: the job joins the dirty set. */
void		 emu_job_changed(void *arg, int job);
int		 emu_detail_add(struct emu *m, const char *text);
/* Where a job started: its nodes as a hostlist ("r0n[01-02]"). */
int		 emu_detail_nodes(struct emu *m, const struct job *j);
/* Append a journal entry; arg is the job that took the cells or the cell. */
void		 emu_log(struct emu *m, enum rec_kind kind, int job, int arg, int detail);
double		 emu_job_speed(const struct emu *m, const struct job *j);
/* Checkpoint save (restore: its restore) cost of j, seconds. */
double		 emu_cost(const struct emu *m, const struct job *j, bool restore);
/* Suspend+resume (migrate: migration) cost of j, seconds. */
double		 emu_model_cost(const struct emu *m, const struct job *j, bool migrate);
/* Length of [a, b] inside the submission window. */
double		 emu_in_window(const struct emu *m, double a, double b);
double		 emu_sm_span(const struct emu *m, int job, double t1);
void		 emu_account(struct emu *m, int job);
bool		 emu_job_lent(const struct emu *m, int job);
void		 emu_apply(struct emu *m, int job, enum job_event ev);
void		 emu_plan_running(struct emu *m, int job);
void		 emu_plan_pending(struct emu *m, int job);
void		 emu_rekey(struct emu *m, int job);
void		 emu_submit(struct emu *m, int job);
void		 emu_start(struct emu *m, int job);
void		 emu_preempt(struct emu *m, int job, int by);
void		 emu_suspend(struct emu *m, int job);
void		 emu_set_speed(struct emu *m, int job, double factor, double share);
void		 emu_resume(struct emu *m, int job, double factor, double share);
void		 emu_finish(struct emu *m, int job);
void		 emu_fail(struct emu *m, int job, int cell, int name, int *why);
/* Job got cells of its own / its cells changed: the mechanisms hear of it. */
void		 emu_cells(struct emu *m, int job);
void		 emu_moved(struct emu *m, int job);

#endif
