/*
 * engine.h — the cell allocation engine (HiveD, OSDI'20). Pure: no I/O, no
 * clock, no globals, no randomness; same calls, same results.
 *
 * The engine owns the physical cell trees of a spec, one virtual cell view
 * per VC, the buddy free lists that bind virtual cells to physical cells only
 * while they are in use, the running jobs ("groups") and node health. It
 * answers placement requests (gangs of pods) and reports victims; it never
 * carries anything out — the caller tells the backend.
 *
 * Ownership: engine_create copies nothing from the spec but keeps a pointer
 * to it; the spec must outlive the engine. Strings returned by the query
 * functions point into the engine or the spec and stay valid until the next
 * mutating call. A struct engine_plan owns its arrays; engine_plan_release
 * frees them.
 *
 * Invariants (engine_check() verifies every one and names the first broken):
 *  1. Counters: every cell's used / opportunistic / bad leaf counts equal the
 *     sums over its leaves; every view's per-cell availability equals the sum
 *     over its leaves. The opportunistic views are right for every leaf not
 *     marked stale (applied before opportunistic or quota placement reads
 *     them).
 *  2. Binding is a partial one-to-one map between a VC's virtual cells and
 *     physical cells of the same chain and level; a bound virtual cell's
 *     parent is bound to the physical parent (below the preassigned level).
 *  3. A virtual cell is bound iff some leaf below it is used by a job, is
 *     marked bad, or it is doomed, pinned or static (a preassigned cell in
 *     private mode or under static binding).
 *  4. Buddy free lists hold exactly the maximal physical cells with no bound
 *     cell in or above them; no two buddies (all children of one parent) are
 *     all free (they would have been merged).
 *  5. Theorem 1 (sharing safety): for every chain and level l, the cells
 *     still owed to VCs (unbound preassigned virtual cells at levels >= l,
 *     counted in level-l cells) <= the free cells at levels >= l, counted the
 *     same way.
 *  6. A guaranteed job's leaves lie inside its VC's bound cells (hived,
 *     private) or count toward its VC's quota (quota); an opportunistic job's
 *     leaves are all idle of guaranteed use. Quota mode: each VC's
 *     in-quota GPUs (its guaranteed jobs not borrowed) <= its quota; a
 *     borrowed job (borrowing on, invariant 10) counts toward the VC's
 *     borrowed GPUs instead, never toward both.
 *  7. Each pod's leaves lie inside one cell of the lowest level whose cells
 *     hold that many leaves.
 *  8. Every index (free-count buckets, free lists, clean-child sets) contains
 *     exactly the cells its definition says.
 *  9. Each VC's usage counters (GPUs and jobs of its running guaranteed and
 *     opportunistic jobs, bound and doomed preassigned cells, bad virtual
 *     leaves) equal what its jobs and virtual cells say, so
 *     engine_vc_usage walks nothing.
 * 10. Borrowing (quota mode with engine_set_borrow; YARN-CS's elastic
 *     capacity without preemption): only then do borrowed jobs exist; each
 *     VC's borrowed counter equals the GPUs of its borrowed jobs. A job is
 *     borrowed for its whole run iff, when it started, its GPUs did not
 *     fit in what was left of its VC's quota: it took idle GPUs only, and
 *     no request preempts it for its GPUs (it is guaranteed), so a VC
 *     whose quota it lent waits until it ends.
 */
#ifndef CELLAR_ENGINE_H
#define CELLAR_ENGINE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec/spec.h"

struct engine;

enum engine_mode {
	ENGINE_HIVED,		/* virtual cells + buddy binding (HiveD) */
	ENGINE_QUOTA,		/* GPU-count quota, cluster-wide packing (YARN-CS;
				   engine_set_borrow: with borrowing) */
	ENGINE_PRIVATE,		/* each VC alone on a private copy of its cells */
};

#define ENGINE_PRIO_OPPORTUNISTIC	(-1)
#define ENGINE_PRIO_MAX			1000
#define ENGINE_MAX_MEMBERS		8

/* One gang member: `pods` pods of `gpus` leaf cells each. */
struct engine_member {
	int	pods;
	int	gpus;
};

struct engine_req {
	const char		*name;		/* job name, unique among running jobs */
	int			 vc;		/* spec VC index */
	int			 priority;	/* 0..1000 guaranteed, -1 opportunistic */
	int			 leaf_type;	/* spec leaf type index, -1 = any */
	int			 pin;		/* spec pin index, -1 = none */
	bool			 lazy;		/* as a victim, may be downgraded to
						   opportunistic instead of killed */
	int			 nmembers;
	struct engine_member	 members[ENGINE_MAX_MEMBERS];
};

/* Why a request cannot be placed, for an operator to act on. */
enum engine_fail {
	ENGINE_OK = 0,
	ENGINE_EBADREQ,		/* malformed: unknown VC, zero GPUs, name in use... */
	ENGINE_ENOTYPE,		/* no cell of that leaf type (in the VC / cluster) */
	ENGINE_ETOOBIG,		/* more than the VC could ever offer (a pod larger than any
				   of its cells; a dry run also: a gang it has too few
				   cells for, over its quota) */
	ENGINE_EVCFULL,		/* VC has no room at that level now */
	ENGINE_EBADONLY,	/* room only on bad nodes */
	ENGINE_EPINBUSY,	/* the pinned cell has no room */
	ENGINE_EPREEMPT,	/* would need preemption of higher/equal priority */
	ENGINE_ECLUSTERFULL,	/* opportunistic: no idle cells anywhere */
	ENGINE_EQUOTA,		/* quota mode: over the VC's GPU quota (with
				   borrowing: and no idle GPUs to borrow) */
};

enum engine_victim_kind {
	ENGINE_VICTIM_PREEMPT,	/* the job loses its cells (killed / requeued) */
	ENGINE_VICTIM_LAZY,	/* downgraded to opportunistic, keeps running */
};

struct engine_victim {
	int			 job;		/* engine job id */
	char			 name[64];
	enum engine_victim_kind	 kind;
};

/*
 * A placement: for each pod (members expanded in request order, largest
 * first within the engine's choice), its leaves as physical cell indices.
 */
struct engine_plan {
	enum engine_fail	 fail;
	char			 why[256];	/* one line, lowercase, names in quotes */
	int			 job;		/* job id after engine_alloc, else -1 */
	int			 chain;		/* spec chain used */
	bool			 opportunistic;	/* placed as an opportunistic job */
	bool			 borrowed;	/* placed over its VC's quota (invariant 10) */
	int			 npods;
	int			*pod_first;	/* npods + 1 offsets into leaves */
	int			*leaves;	/* physical leaf cell indices */
	int			 nleaves;
	struct engine_victim	*victims;
	int			 nvictims;
	size_t			 leaves_cap, victims_cap;
};

void	 engine_plan_init(struct engine_plan *p);
void	 engine_plan_release(struct engine_plan *p);

/*
 * Build an engine for a validated spec. Returns NULL with *cause set (and
 * malloc'ed) if the spec cannot be used in that mode.
 */
struct engine	*engine_create(const struct spec *s, enum engine_mode mode, char **cause);
void		 engine_free(struct engine *e);
const struct spec *engine_spec(const struct engine *e);
enum engine_mode engine_mode(const struct engine *e);
const char	*engine_mode_name(enum engine_mode m);
/* Parse "hived" / "quota" / "private"; -1 if unknown. */
int		 engine_mode_parse(const char *name);
/* "unknown mode 'NAME' (did you mean 'X'? modes: hived, quota, private)",
   malloc'ed: the one message for a name engine_mode_parse refuses. */
char		*engine_mode_unknown(const char *name);

/*
 * Static binding (HiveD §5.3's baseline, Fig. 10): bind every preassigned
 * cell of every VC to a physical cell now, in buddy order, for good, so a
 * guaranteed job lands on its VC's fixed cells whatever runs there (no
 * choice of cells with fewer opportunistic GPUs, no moving off bad
 * hardware). Cells below the preassigned level still bind inside them as
 * they are used. Hived mode only (private mode is static already, quota
 * has no cells: both a no-op), on an engine without jobs: call it right
 * after engine_create. 0, or -1 with *cause (malloc'ed).
 */
int	 engine_bind_static(struct engine *e, char **cause);
/* Whether preassigned cells never re-bind (static binding or private). */
bool	 engine_binding_static(const struct engine *e);

/*
 * Borrowing (YARN-CS's maximum capacity without preemption, the baseline
 * of AntMan's Fig. 13a and Tiresias's YARN-CS): a guaranteed request over
 * its VC's quota, refused with ENGINE_EQUOTA otherwise, runs on idle GPUs
 * as a borrowed job (invariant 10), which nothing preempts for its GPUs.
 * Quota mode only (else -1 with *cause, malloc'ed), on an engine without
 * jobs: call it right after engine_create. HiveD's own quota baseline
 * (§5) runs over-quota jobs as preemptible low-priority ones instead:
 * opportunistic requests, no borrowing.
 */
int	 engine_set_borrow(struct engine *e, char **cause);
bool	 engine_borrow(const struct engine *e);

/*
 * Dry run: where would this request land and whom would it preempt. Leaves
 * the engine exactly as it was. Returns 0 if it can be placed (plan filled),
 * -1 if not (plan->fail and plan->why say why).
 */
int	 engine_place(struct engine *e, const struct engine_req *r, struct engine_plan *plan);

/*
 * Place and commit: victims are preempted (their cells released, or
 * downgraded to opportunistic for lazy victims whose GPUs the new placement
 * could avoid) and the job starts. Returns the new job id (>= 0) or -1.
 */
int	 engine_alloc(struct engine *e, const struct engine_req *r, struct engine_plan *plan);

/* Release a job's cells. Returns 0, or -1 if no such job. */
int	 engine_release(struct engine *e, int job);

/*
 * Change a running guaranteed job's priority (a policy re-ranked it); it
 * keeps its cells. Returns -1 for no such job, an opportunistic job or a
 * priority out of 0..ENGINE_PRIO_MAX.
 */
int	 engine_job_set_priority(struct engine *e, int job, int prio);

/*
 * Mark a node bad or healthy (by name; a node may span several chains).
 * Jobs with a leaf on a node that goes bad are listed in affected (job ids,
 * up to max) and their count returned; they keep their cells until released.
 * Returns -1 if there is no such node.
 */
int	 engine_node_set_bad(struct engine *e, const char *node, bool bad,
	    int *affected, int max);

/*
 * Take over a job running at the given physical leaves (of one chain, in
 * pods as pod_first says), choosing virtual cells of its VC for them the
 * way HiveD does after a restart: reconfiguration adopts jobs this way when
 * the stored bindings mean nothing to a new spec. r->priority -1 adopts it
 * as opportunistic (idle leaves anywhere; in private mode, its VC's own).
 * Returns the new job id, or -1 with a message in why when the leaves are
 * in use, outside the VC's assignment or over its quota, or when adopting
 * would break sharing safety; the engine is then unchanged.
 */
int	 engine_adopt(struct engine *e, const struct engine_req *r, int chain,
	    const int *pod_first, int npods, const int *leaves, int nleaves,
	    char *why, size_t len);

/*
 * Move a running guaranteed job (unpinned, not downgraded, on healthy
 * GPUs) to other leaves of its chain, pods as pod_first says, keeping its
 * id, name, VC and priorities: its cells are released and virtual cells of
 * its VC chosen for the new leaves as engine_adopt does. Growing (the old
 * leaves plus more, as extra pods), shrinking (a subset) and migrating are
 * all a move. Atomic: when the new leaves are in use, outside the VC's
 * cells, over its quota or would break sharing safety, -1 with a message
 * in why and the job is back where it was, the engine unchanged (history
 * counters included). Returns 0 on success.
 */
int	 engine_move(struct engine *e, int job, const int *pod_first, int npods,
	    const int *leaves, int nleaves, char *why, size_t len);

/* Returns true when every invariant holds; otherwise false and a message. */
bool	 engine_check(const struct engine *e, char *why, size_t len);

/* ---- queries (read-only) ---- */

enum engine_job_state {
	ENGINE_JOB_FREE = 0,		/* unused slot */
	ENGINE_JOB_RUNNING,		/* guaranteed in its VC, or opportunistic */
};

struct engine_job_info {
	const char	*name;
	int		 vc;
	int		 priority;	/* -1 once downgraded to opportunistic */
	int		 orig_priority;	/* as requested */
	bool		 lazy;
	bool		 downgraded;	/* lazily preempted, running opportunistic */
	bool		 borrowed;	/* over its VC's quota (invariant 10) */
	int		 chain;
	int		 npods;
	const int	*pod_first;	/* npods + 1 offsets into leaves */
	const int	*leaves;	/* physical leaf cell indices */
	int		 nleaves;
};

/*
 * Crash recovery (the store). The engine's whole state is a function of
 *   (a) the running jobs' placements (struct engine_placement: leaves and
 *       the virtual leaves they are bound to),
 *   (b) the bad marks (struct engine_mark): which of a VC's virtual leaves
 *       shows each bad physical leaf inside a cell the VC holds for its
 *       jobs or for good (pinned cells, private mode). Which virtual leaf
 *       carries a mark depends on the order things happened in, not on
 *       (a) and the health alone, and later placements depend on it;
 *   (c) the bad nodes. Doomed cells are a function of (a), (b) and the
 *       health: doom_rebalance runs after every alloc, release and health
 *       change of a chain with bad leaves and recomputes them from scratch
 *       (a doomed cell is never in use at rest);
 * plus the history counters of struct engine_stats. To rebuild an engine
 * exactly, on a fresh engine of the same spec and mode: engine_restore_job
 * for every running job, then engine_restore_mark for every mark, then
 * engine_node_set_bad for every bad node (which marks the rest and dooms
 * cells exactly as the original engine had them), then
 * engine_stats_restore. The restore functions validate everything first
 * and never abort on stored data: -1 with a message in why, the engine
 * unchanged.
 *
 * engine_job_placement fills a placement with pointers into the engine
 * (valid until the next mutating call); engine_restore_job copies.
 */
struct engine_placement {
	int		 id;		/* engine job id */
	const char	*name;
	int		 vc;
	int		 priority;	/* current: -1 when opportunistic */
	int		 orig_priority;
	bool		 lazy;
	bool		 downgraded;
	bool		 borrowed;	/* quota mode with borrowing: over quota */
	int		 chain;
	int		 pin;		/* spec pin index, -1 none */
	int		 npods;
	const int	*pod_first;	/* npods + 1 offsets into leaves */
	const int	*leaves;	/* physical leaf cells */
	const int	*vleaves;	/* bound virtual leaves; NULL in quota mode
					   and for opportunistic jobs in hived mode */
	int		 nleaves;
};

bool	 engine_job_placement(const struct engine *e, int job, struct engine_placement *pl);
/*
 * A placement that owns its arrays (a stored one kept past the read that
 * produced it): dup copies src's arrays into dst (name is the caller's:
 * set to NULL), free_arrays frees what dup allocated.
 */
void	 engine_placement_dup(struct engine_placement *dst, const struct engine_placement *src);
void	 engine_placement_free_arrays(struct engine_placement *pl);

/*
 * Re-create a job exactly as recorded: same id, leaves and virtual cell
 * bindings. Checked first: the id is free and below the cluster's GPU
 * count, the name unused, VC, chain, pin, priorities and pods consistent
 * with each other and the mode, the leaves distinct unused leaf cells of
 * the chain, the virtual leaves (when the mode calls for them) distinct
 * unused leaves of one view of the VC whose binding agrees with the
 * engine's and fits the buddy free lists. Theorem 1 is checked after
 * binding, and a breach undone. Returns 0, or -1 with a message in why;
 * the engine is then unchanged.
 */
int	 engine_restore_job(struct engine *e, const struct engine_placement *pl,
	    char *why, size_t len);

/* A bad physical leaf and the virtual leaf that shows it to its VC. */
struct engine_mark {
	int		 vleaf;		/* virtual cell id */
	int		 leaf;		/* spec cell index */
};

/*
 * The marks a restore needs (b above): bound bad virtual leaves without a
 * job, below a root that is not doomed (a bad root leaf is pinned, private
 * or doomed: bound again without help), lowest virtual id first. Writes up to max and
 * returns how many there are.
 */
int	 engine_marks(const struct engine *e, struct engine_mark *out, int max);

/*
 * Bind mk->vleaf to mk->leaf and mark the leaf bad. The virtual leaf must
 * be unbound and unused, the leaf unbound and not used by a guaranteed
 * job, and the nearest bound ancestor of the virtual leaf bound to the
 * matching physical ancestor. Doomed cells are not recomputed (the
 * engine_node_set_bad calls that follow do it). Returns 0, or -1 with a
 * message in why; the engine is then unchanged.
 */
int	 engine_restore_mark(struct engine *e, const struct engine_mark *mk,
	    char *why, size_t len);

/* Job ids are small integers; iterate 0 .. engine_job_limit()-1. */
int	 engine_job_limit(const struct engine *e);
/* Fill info for a running job; false for a free slot or bad id. */
bool	 engine_job(const struct engine *e, int job, struct engine_job_info *info);
int	 engine_job_find(const struct engine *e, const char *name);

enum engine_cell_state {
	ENGINE_CELL_FREE,		/* in a buddy free list (or inside one) */
	ENGINE_CELL_SPLIT,		/* above bound cells, not bound itself */
	ENGINE_CELL_BOUND,		/* bound to a VC's virtual cell */
	ENGINE_CELL_RESERVED,		/* inside a bound cell, not bound itself */
};

struct engine_cell_info {
	enum engine_cell_state	 state;
	int			 vc;		/* bound VC (bound/reserved), else -1 */
	bool			 doomed;	/* bound to a VC because it is bad */
	bool			 pinned;	/* part of a pinned cell */
	int			 leaves;	/* leaf cells below (1 for a leaf) */
	int			 used;		/* leaves used by guaranteed jobs */
	int			 opp;		/* leaves used by opportunistic jobs */
	int			 bad;		/* bad leaves */
	int			 job;		/* for a leaf: the job using it, else -1 */
	int			 priority;	/* for a used leaf: its job's priority */
};

void	 engine_cell(const struct engine *e, int cell, struct engine_cell_info *info);
/*
 * A leaf's hot-path facts, equal to engine_cell's job, vc and bad for it
 * without the fields that cost (leaf counts, pins, doom): O(tree depth).
 */
void	 engine_leaf(const struct engine *e, int leaf, int *job, int *vc, int *bad);
/* A leaf's job only (engine_cell's job), O(1): the emulator's scans. */
int	 engine_leaf_job(const struct engine *e, int leaf);
/*
 * A number that changes whenever any cell's used, opp or bad count does
 * (engine_cell_use): a caller's cache of those counts is good while it
 * stays the same. It may change when they end up as they were (a dry
 * run, a refused adoption), never the other way.
 */
unsigned long long engine_use_serial(const struct engine *e);
/* The VC a cell is bound to or inside (engine_cell's vc), -1. */
int	 engine_cell_vc(const struct engine *e, int cell);
/* A cell's counts only (engine_cell's leaves, used, opp, bad). */
void	 engine_cell_use(const struct engine *e, int cell, int *leaves, int *used,
	    int *opp, int *bad);

struct engine_vc_usage {
	/* Leaves (GPUs) of the VC's assignment, from its own view. */
	long long	 gpus;		/* assigned (virtual cells + pinned) */
	long long	 used;		/* used by its guaranteed jobs */
	long long	 bad;		/* bound to bad hardware (doomed or gone bad) */
	long long	 free;		/* gpus - used - bad */
	long long	 opp;		/* GPUs its opportunistic jobs use anywhere */
	long long	 borrowed;	/* of used: GPUs of borrowed jobs (quota) */
	int		 jobs;		/* running guaranteed jobs */
	int		 opp_jobs;	/* running opportunistic jobs */
	/* Per chain and level: cells assigned and how many are bound now. */
	int		 assigned[SPEC_MAX_LEVELS + 1];	/* summed over chains */
	int		 bound[SPEC_MAX_LEVELS + 1];
	int		 doomed;	/* doomed (bad-bound) preassigned cells */
};

/* O(levels): from counters (invariant 9), for dashboards drawn every frame. */
void	 engine_vc_usage(const struct engine *e, int vc, struct engine_vc_usage *u);

/* Cluster-wide counters. */
struct engine_stats {
	long long	 gpus, used, opp, bad;
	int		 jobs, opp_jobs;
	long long	 binds, unbinds, splits, merges;
};
void	 engine_stats(const struct engine *e, struct engine_stats *st);
/*
 * Set the history counters (binds, unbinds, splits, merges) to those of a
 * saved engine_stats; the others describe the state and stay as they are.
 */
void	 engine_stats_restore(struct engine *e, const struct engine_stats *st);

/* Free cells (buddy free list) and owed cells of a chain at a level. */
long long engine_free_cells(const struct engine *e, int chain, int level);
long long engine_owed_cells(const struct engine *e, int chain, int level);

/* Human-readable names for enums (lowercase). */
const char	*engine_fail_name(enum engine_fail f);
const char	*engine_cell_state_name(enum engine_cell_state s);

#endif
