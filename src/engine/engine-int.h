/*
 * engine-int.h — the engine's private state, shared by the engine-*.c files
 * only. See engine.h for the model and the numbered invariants.
 *
 * Physical cells use the spec's cell indices. Virtual cells are numbered
 * per view (one view per VC and chain for its assigned cells, one per pinned
 * cell), breadth-first like physical ones, so each view is a `struct view`
 * over a contiguous id range.
 *
 * Physical cell states (engine_cell_state):
 *   FREE      pcs[].free set: in its chain's buddy free list (maximal)
 *   inside a free cell: not listed, reported FREE
 *   SPLIT     pcs[].split set: some descendant is bound or split off
 *   BOUND     pcs[].vbind >= 0
 *   RESERVED  inside a bound cell, not bound itself
 * Transitions: FREE -> SPLIT [buddy_split], SPLIT -> FREE [buddy_merge],
 * FREE -> BOUND [buddy_take + bind], BOUND -> FREE [unbind + buddy_free],
 * RESERVED -> BOUND [bind], BOUND -> RESERVED [unbind].
 */
#ifndef CELLAR_ENGINE_INT_H
#define CELLAR_ENGINE_INT_H

#include "core/bitset.h"
#include "core/strmap.h"
#include "engine/engine.h"
#include "engine/view.h"

#define L1 (SPEC_MAX_LEVELS + 1)
#define ENGINE_MAX_PODS 4096	/* pods of one request, expanded */

/* Per physical chain: buddy free lists, owed counters, opportunistic views. */
struct pchain {
	int		 base;		/* spec id of the chain's first cell */
	int		 ncells;
	int		 top;
	int		 node_level;
	struct bitset	 fl_clean[L1];	/* free, healthy, no opportunistic use */
	struct bitset	 fl_dirty[L1];	/* free, bad or with opportunistic use */
	struct bitset	 ub_clean[L1];	/* unbound, clean, parent bound */
	long long	 owed[L1];	/* unbound non-pinned preassigned virtual cells */
	long long	 nbad;		/* bad leaves in the chain */
	int		 units[L1];	/* leaves under a cell of each level */
	struct view	 t1;		/* idle healthy leaves on unreserved nodes */
	struct view	 t2;		/* idle healthy leaves */
	/* Leaves (chain-local ids) whose t1/t2 entries may be out of date:
	   only opportunistic and quota placement read the two views, so a
	   leaf's change is applied there (phys_opp_flush), not on every
	   assign. Each stale leaf is in stale_v once; a leaf not stale has
	   both entries right (engine_check). */
	unsigned char	*stale;
	int		*stale_v;
	int		 nstale;
};

/* A VC's view: its cells of one chain, or one pinned cell. */
struct vview {
	int		 vc;
	int		 chain;
	int		 pin;		/* spec pin index, -1 for the chain view */
	int		 base;		/* first virtual cell id */
	int		 ncells;
	int		 nbad;		/* leaves marked bad */
	struct view	 view;
};

struct ejob {
	bool		 live;
	char		 name[64];
	int		 vc;
	int		 prio;		/* current: -1 when opportunistic */
	int		 orig_prio;
	bool		 lazy;
	bool		 downgraded;
	bool		 borrowed;	/* quota + borrowing: runs over its VC's quota */
	int		 chain;
	int		 pin;
	int		 npods;
	int		*pod_first;	/* npods + 1 */
	int		*leaves;	/* physical leaves */
	int		*vleaves;	/* virtual leaves, NULL when opportunistic */
	int		 nleaves;
};

/* A job as it was, to put back exactly (rollback, restore). */
struct snap {
	struct ejob	 j;
	int		 id;
};

/*
 * A physical cell's state, one struct per cell (by spec index) rather
 * than an array per field: releasing a job touched some twenty arrays per
 * node it ran on, a cache miss each once the cluster was large (bench-batch
 * at 10,000 jobs).
 */
struct pcell {
	int		 vbind;		/* bound virtual cell or -1 */
	int		 used;		/* leaves below used by guaranteed jobs */
	int		 opp;		/* leaves below used by opportunistic jobs */
	int		 bad;		/* bad leaves below */
	int		 job;		/* leaves: job id or -1 */
	int		 node;		/* node-level cell at or above, -1 above */
	unsigned char	 free;		/* in its chain's buddy free list */
	unsigned char	 split;
	unsigned char	 res;		/* node cells: reserved (keeps opportunistic off) */
	unsigned char	 isopp;		/* leaves: the job uses it opportunistically */
};

/* A virtual cell's state, likewise one struct per cell. */
struct vcell {
	int		 view;
	int		 phys;		/* bound physical cell or -1 */
	int		 used;		/* leaves below used by a job */
	int		 bad;		/* leaves below marked bad */
	int		 want;		/* leaves below chosen by the placement in progress */
	int		 job;		/* leaves: job id or -1 */
	unsigned char	 root;		/* preassigned (top of an assigned cell) */
	unsigned char	 doomed;
	unsigned char	 keep;		/* never unbound: pinned, private mode or
					   static binding (engine_bind_static) */
};

struct engine {
	const struct spec	*s;
	enum engine_mode	 mode;
	char			 why[256];

	/* physical cells, by spec index */
	int		 np;
	struct pcell	*pcs;		/* their state */
	unsigned long long use_serial;	/* bumped at each change of used, opp, bad */
	struct pchain	*pc;

	/* virtual cells */
	int		 nv;
	struct vcell	*vcs;		/* their state */
	struct vview	*views;
	int		 nviews;
	int		*vc_views;	/* per VC: first index into views_of */
	int		*views_of;	/* view ids grouped by VC */

	/* jobs */
	struct ejob	*jobs;
	int		 njobs;		/* slots allocated */
	struct bitset	 job_free;	/* free slots (lowest first) */
	struct strmap	 names;		/* live job name -> id (keys: jobs[id].name) */

	long long	*vc_quota;	/* GPUs per VC (quota mode) */
	long long	*vc_gused;	/* GPUs used by each VC's guaranteed jobs
					   within its quota (borrowed ones not) */
	long long	*vc_borrowed;	/* GPUs of each VC's borrowed jobs */
	bool		 borrow;	/* quota: over-quota jobs borrow idle GPUs */
	struct engine_stats st;
	bool		 bind_static;	/* hived: preassigned cells bound for good */
	bool		 no_rebalance;	/* set while a dry run rolls back */
	bool		 diagnose;	/* dry run: find the finest failure reason */
	int		*vc_prio;	/* per VC: running jobs per priority + 1 */
	/*
	 * Per VC, so engine_vc_usage costs O(levels), not a walk of the VC's
	 * cells and of every job (invariant 9): kept by prio_count (jobs and
	 * their leaves), bind_cell / unbind_cell (bound preassigned cells) and
	 * doom_set. vc_assigned and vc_bound are nvcs x L1, by level.
	 */
	long long	*vc_used, *vc_opp;	/* leaves of running guaranteed / opp jobs */
	int		*vc_jobs, *vc_opp_jobs;
	int		*vc_assigned, *vc_bound;
	int		*vc_doomed;	/* doomed preassigned cells */
};

/*
 * Quota mode: a guaranteed job's GPUs count toward its VC's quota
 * (vc_gused) or, borrowed, toward vc_borrowed; sign +1 at start, -1 at
 * release. The one place both counters move, so a release gives back to
 * the counter its start took from.
 */
static inline void
quota_count(struct engine *e, const struct ejob *j, int sign)
{
	if (e->mode != ENGINE_QUOTA || j->prio < 0)
		return;
	if (j->borrowed)
		e->vc_borrowed[j->vc] += sign * j->nleaves;
	else
		e->vc_gused[j->vc] += sign * j->nleaves;
}

/* Virtual cell shape lives in its view; these map ids. */
static inline struct vview *
vv_of(const struct engine *e, int v)
{
	return &e->views[e->vcs[v].view];
}
static inline int
v_loc(const struct engine *e, int v)
{
	return v - e->views[e->vcs[v].view].base;
}
static inline int
v_level(const struct engine *e, int v)
{
	const struct vview *w = vv_of(e, v);
	return w->view.cell[v - w->base].level;
}
static inline int
v_parent(const struct engine *e, int v)
{
	const struct vview *w = vv_of(e, v);
	int p = w->view.cell[v - w->base].parent;
	return p < 0 ? -1 : p + w->base;
}
static inline int
v_child0(const struct engine *e, int v)
{
	const struct vview *w = vv_of(e, v);
	int c = w->view.cell[v - w->base].child0;
	return c < 0 ? -1 : c + w->base;
}
static inline int
v_nchild(const struct engine *e, int v)
{
	const struct vview *w = vv_of(e, v);
	return w->view.cell[v - w->base].nchild;
}

/* engine-phys.c */
/*
 * Theorem 1 for one chain given per-level owed and free counts: at every
 * level l, cells owed at levels >= l (in level-l units) <= free ones.
 * Returns true, or false with the first failing level in *bad_level.
 */
bool	theorem1_holds(const struct spec *s, int chain, const long long *owed,
	    const long long *fr, int *bad_level);
/* First and last leaf (spec index) under cell c; leaves are contiguous. */
void	leaf_range(const struct engine *e, int c, int *lo, int *hi);
void	phys_leaf_assign(struct engine *e, int leaf, int job, bool opp);
void	phys_reindex(struct engine *e, int c);
void	phys_set_bad(struct engine *e, int leaf, bool bad);
void	phys_opp_flush(struct engine *e, int chain);
int	buddy_take(struct engine *e, int chain, int level);
void	buddy_take_exact(struct engine *e, int p);
void	buddy_free(struct engine *e, int p);
void	bind_cell(struct engine *e, int v, int p);
void	unbind_cell(struct engine *e, int v);
int	ensure_bound(struct engine *e, int v);
void	bind_exact(struct engine *e, int v, int p);
void	vleaf_set_job(struct engine *e, int vleaf, int job);
void	vleaf_prune(struct engine *e, int vleaf);
void	vleaf_want(struct engine *e, int vleaf, bool want);
void	node_refresh(struct engine *e, int node);
void	doom_set(struct engine *e, int v, bool doomed);
bool	p_clean(const struct engine *e, int c);
int	p_level(const struct engine *e, int c);
int	p_chain(const struct engine *e, int c);

/* engine-health.c */
void	doom_rebalance(struct engine *e, int chain);

/* engine.c */
/* Rows of e->vc_prio per VC: priorities -1 .. ENGINE_PRIO_MAX. */
#define ENGINE_NPRIO	(ENGINE_PRIO_MAX + 2)
/* Room for n job slots (new ones free; the name map follows them). */
void	engine_jobs_reserve(struct engine *e, int n);
int	job_new(struct engine *e, const char *name);
void	job_drop(struct engine *e, int id);
/* Free a job's cells (rebalancing doomed cells unless no_rebalance). */
void	job_release(struct engine *e, int id);
/* Re-create sn->j at id sn->id; every leaf and binding must be free. */
void	job_restore(struct engine *e, const struct snap *sn);
void	engine_debug_check(struct engine *e, const char *where);

#endif
