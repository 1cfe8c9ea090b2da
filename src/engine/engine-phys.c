/*
 * engine-phys.c — physical cells: leaf use counters, the buddy free lists,
 * and binding of virtual cells to physical ones.
 *
 * Every change to a physical cell's cleanliness (bad or opportunistic use),
 * freedom or binding goes through phys_reindex(), which puts the cell in
 * exactly the index sets its state calls for (engine.h invariant 8). Binding
 * is lazy (HiveD): a virtual cell is bound only while a leaf below it is in
 * use, or while it is doomed or static; bad physical leaves inside a bound
 * cell are bound to virtual leaves marked bad so the VC's view sees them.
 */
#include <stdlib.h>
#include <string.h>

#include <stddef.h>

#include "core/xmalloc.h"
#include "engine/engine-int.h"

int
p_level(const struct engine *e, int c)
{
	return e->s->cells[c].level;
}

int
p_chain(const struct engine *e, int c)
{
	return e->s->cells[c].chain;
}

bool
p_clean(const struct engine *e, int c)
{
	return e->pcs[c].bad == 0 && e->pcs[c].opp == 0;
}

bool
theorem1_holds(const struct spec *s, int chain, const long long *owed,
    const long long *fr, int *bad_level)
{
	int l, m, levels = s->chains[chain].levels;
	long long need, have, u;

	for (l = 1; l <= levels; l++) {
		need = have = 0;
		for (m = l; m <= levels; m++) {
			u = spec_units(s, chain, m, l);
			need += owed[m] * u;
			have += fr[m] * u;
		}
		if (need > have) {
			*bad_level = l;
			return false;
		}
	}
	return true;
}

void
leaf_range(const struct engine *e, int c, int *lo, int *hi)
{
	int l;

	*lo = *hi = c;
	for (l = p_level(e, c); l > 1; l--) {
		*lo = e->s->cells[*lo].first_child;
		*hi = e->s->cells[*hi].first_child + e->s->cells[*hi].nchild - 1;
	}
}

static inline int
p_loc(const struct engine *e, int c)
{
	const struct spec_chain *ch = &e->s->chains[p_chain(e, c)];
	return c - ch->level_first[p_level(e, c)];
}

void
phys_reindex(struct engine *e, int c)
{
	struct pchain *pc = &e->pc[p_chain(e, c)];
	int l = p_level(e, c), loc = p_loc(e, c), par = e->s->cells[c].parent;
	bool clean = p_clean(e, c);

	if (e->pcs[c].free && clean)
		bitset_set(&pc->fl_clean[l], loc);
	else
		bitset_clear(&pc->fl_clean[l], loc);
	if (e->pcs[c].free && !clean)
		bitset_set(&pc->fl_dirty[l], loc);
	else
		bitset_clear(&pc->fl_dirty[l], loc);
	if (clean && e->pcs[c].vbind < 0 && par >= 0 && e->pcs[par].vbind >= 0)
		bitset_set(&pc->ub_clean[l], loc);
	else
		bitset_clear(&pc->ub_clean[l], loc);
}

static void
reindex_children(struct engine *e, int c)
{
	const struct spec_cell *sc = &e->s->cells[c];
	int k;

	for (k = 0; k < sc->nchild; k++)
		phys_reindex(e, sc->first_child + k);
}

/*
 * A leaf's availability in the opportunistic views may have changed: mark
 * it stale. Applying it on every assign cost two root paths of view
 * updates per leaf (a tenth of a hand command at 65,536 GPUs) for views
 * that only opportunistic and quota placement read.
 */
static void
opp_views_update(struct engine *e, int leaf)
{
	struct pchain *pc = &e->pc[p_chain(e, leaf)];
	int loc = leaf - pc->base;

	if (!pc->stale[loc]) {
		pc->stale[loc] = 1;
		pc->stale_v[pc->nstale++] = loc;
	}
}

/* Bring a chain's opportunistic views up to date (before they are read). */
void
phys_opp_flush(struct engine *e, int chain)
{
	struct pchain *pc = &e->pc[chain];
	int i;

	for (i = 0; i < pc->nstale; i++) {
		int loc = pc->stale_v[i], leaf = pc->base + loc;
		int node = e->pcs[leaf].node;
		bool idle = e->pcs[leaf].job < 0 && e->pcs[leaf].bad == 0;

		view_leaf_set(&pc->t2, loc, idle);
		view_leaf_set(&pc->t1, loc, idle && !(node >= 0 && e->pcs[node].res));
		pc->stale[loc] = 0;
	}
	pc->nstale = 0;
}

/*
 * A node is reserved (kept away from opportunistic jobs while other nodes
 * are idle) when a VC binds it or something inside it, or a guaranteed job
 * uses it.
 */
void
node_refresh(struct engine *e, int node)
{
	bool r;
	int lo, hi, leaf;

	if (node < 0)
		return;
	r = e->pcs[node].vbind >= 0 || e->pcs[node].split || e->pcs[node].used > 0;
	if (r == (e->pcs[node].res != 0))
		return;
	e->pcs[node].res = r;
	leaf_range(e, node, &lo, &hi);
	for (leaf = lo; leaf <= hi; leaf++)
		opp_views_update(e, leaf);
}

/* The counters path_add and vpath_add keep, by their offset in the cell. */
#define P_USED	offsetof(struct pcell, used)
#define P_OPP	offsetof(struct pcell, opp)
#define P_BAD	offsetof(struct pcell, bad)
#define V_USED	offsetof(struct vcell, used)
#define V_BAD	offsetof(struct vcell, bad)
#define V_WANT	offsetof(struct vcell, want)

/* Add d to counter `at` along the root path of leaf; reindex on clean flips. */
static void
path_add(struct engine *e, size_t at, int leaf, int d)
{
	int c;
	bool was;

	e->use_serial++;
	for (c = leaf; c >= 0; c = e->s->cells[c].parent) {
		was = p_clean(e, c);
		*(int *)(void *)((char *)&e->pcs[c] + at) += d;
		if (was != p_clean(e, c))
			phys_reindex(e, c);
	}
}

void
phys_leaf_assign(struct engine *e, int leaf, int job, bool opp)
{
	int old = e->pcs[leaf].job, node = e->pcs[leaf].node;

	if (old >= 0) {
		bool was_opp = e->pcs[leaf].isopp;
		path_add(e, was_opp ? P_OPP : P_USED, leaf, -1);
		if (was_opp)
			e->st.opp--;
		else
			e->st.used--;
	}
	e->pcs[leaf].job = job;
	e->pcs[leaf].isopp = job >= 0 && opp;
	if (job >= 0) {
		path_add(e, opp ? P_OPP : P_USED, leaf, +1);
		if (opp)
			e->st.opp++;
		else
			e->st.used++;
	}
	opp_views_update(e, leaf);
	node_refresh(e, node);
}

/* ---- buddy free lists ---- */

static void
set_free(struct engine *e, int p, bool f)
{
	e->pcs[p].free = f;
	phys_reindex(e, p);
}

/* Split free cell x: its children become free cells. */
static void
buddy_split(struct engine *e, int x)
{
	const struct spec_cell *sc = &e->s->cells[x];
	int k;

	set_free(e, x, false);
	e->pcs[x].split = 1;
	for (k = 0; k < sc->nchild; k++)
		set_free(e, sc->first_child + k, true);
	if (p_level(e, x) == e->pc[p_chain(e, x)].node_level)
		node_refresh(e, x);
	e->st.splits++;
}

/* The best free cell among a level's free lists: clean first, else the
   healthiest with least opportunistic use. healthy_only skips bad cells. */
static int
free_best(struct engine *e, int chain, int l, bool healthy_only)
{
	struct pchain *pc = &e->pc[chain];
	const struct spec_chain *ch = &e->s->chains[chain];
	int i, c, best = -1;

	i = bitset_next(&pc->fl_clean[l], 0);
	if (i >= 0)
		return ch->level_first[l] + i;
	for (i = bitset_next(&pc->fl_dirty[l], 0); i >= 0;
	    i = bitset_next(&pc->fl_dirty[l], i + 1)) {
		c = ch->level_first[l] + i;
		if (healthy_only && e->pcs[c].bad > 0)
			continue;
		if (best < 0 || e->pcs[c].bad < e->pcs[best].bad ||
		    (e->pcs[c].bad == e->pcs[best].bad && e->pcs[c].opp < e->pcs[best].opp))
			best = c;
	}
	return best;
}

static long long
nfree(const struct engine *e, int chain, int l)
{
	return e->pc[chain].fl_clean[l].count + e->pc[chain].fl_dirty[l].count;
}

/*
 * Would Theorem 1 still hold if one free cell at level j were split down to
 * level k and one level-k cell bound? (Only asked when level k has free
 * cells, all bad: splitting when level k is empty is always safe.)
 */
static bool
split_safe(const struct engine *e, int chain, int j, int k)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	long long fr[L1] = { 0 }, ow[L1] = { 0 };
	int l, bad;

	for (l = 1; l <= ch->levels; l++) {
		fr[l] = nfree(e, chain, l);
		ow[l] = e->pc[chain].owed[l];
	}
	/* the split cell leaves level j; every level below gains its children
	   but one (split further, or at level k the one bound) */
	fr[j]--;
	for (l = j - 1; l >= k; l--)
		fr[l] += e->s->types[ch->level_type[l + 1]].nchild - 1;
	/* the bound cell was owed at level k */
	ow[k]--;
	return theorem1_holds(e->s, chain, ow, fr, &bad);
}

/* Split from level j down to level k along the best children; return the
   level-k cell (not yet taken). */
static int
split_down(struct engine *e, int x, int k)
{
	int chain = p_chain(e, x);

	while (p_level(e, x) > k) {
		buddy_split(e, x);
		x = free_best(e, chain, p_level(e, x) - 1, false);
	}
	return x;
}

int
buddy_take(struct engine *e, int chain, int k)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	int x, j;

	/* 1. a healthy free cell at level k */
	x = free_best(e, chain, k, true);
	if (x < 0) {
		/* 2. split the lowest healthy higher cell, when safe */
		for (j = k + 1; j <= ch->levels && x < 0; j++) {
			int y = free_best(e, chain, j, true);
			if (y >= 0 && (nfree(e, chain, k) == 0 || split_safe(e, chain, j, k)))
				x = split_down(e, y, k);
		}
	}
	/* 3. a bad one at level k, 4. split any higher one */
	if (x < 0)
		x = free_best(e, chain, k, false);
	for (j = k + 1; j <= ch->levels && x < 0; j++) {
		int y = free_best(e, chain, j, false);
		if (y >= 0)
			x = split_down(e, y, k);
	}
	if (x < 0)
		return -1;
	set_free(e, x, false);
	return x;
}

/* Take exactly cell p out of the free lists (splitting its free ancestor). */
void
buddy_take_exact(struct engine *e, int p)
{
	int a = p, path[L1], n = 0, k;

	if (e->pcs[p].free) {
		set_free(e, p, false);
		return;
	}
	while (a >= 0 && !e->pcs[a].free) {
		path[n++] = a;
		a = e->s->cells[a].parent;
	}
	if (a < 0)
		fatal("buddy_take_exact: cell %d has no free ancestor", p);
	/* split a, then each ancestor on the path down to p's parent */
	buddy_split(e, a);
	for (k = n - 1; k >= 1; k--)
		buddy_split(e, path[k]);
	set_free(e, p, false);
}

void
buddy_free(struct engine *e, int p)
{
	int q, k;
	const struct spec_cell *qc;

	set_free(e, p, true);
	for (q = e->s->cells[p].parent; q >= 0; q = e->s->cells[q].parent) {
		qc = &e->s->cells[q];
		for (k = 0; k < qc->nchild; k++)
			if (!e->pcs[qc->first_child + k].free)
				return;
		for (k = 0; k < qc->nchild; k++)
			set_free(e, qc->first_child + k, false);
		e->pcs[q].split = 0;
		set_free(e, q, true);
		e->st.merges++;
		if (p_level(e, q) == e->pc[p_chain(e, q)].node_level)
			node_refresh(e, q);
	}
}

/* ---- binding ---- */

static void
vview_leaf(struct engine *e, int vleaf)
{
	struct vview *w = vv_of(e, vleaf);
	bool avail = e->vcs[vleaf].job < 0 && e->vcs[vleaf].bad == 0 &&
	    e->vcs[vleaf].want == 0;

	view_leaf_set(&w->view, vleaf - w->base, avail);
}

static void
vpath_add(struct engine *e, size_t at, int v, int d)
{
	if (at == V_BAD)
		vv_of(e, v)->nbad += d;
	for (; v >= 0; v = v_parent(e, v))
		*(int *)(void *)((char *)&e->vcs[v] + at) += d;
}

/* An unbound virtual child of v, preferring one the placement in progress
   does not want; -1 if none. */
static int
free_vchild(struct engine *e, int v)
{
	int k, c, n = v_nchild(e, v), fallback = -1;

	for (k = 0; k < n; k++) {
		c = v_child0(e, v) + k;
		if (e->vcs[c].phys >= 0)
			continue;
		if (e->vcs[c].want == 0)
			return c;
		if (fallback < 0)
			fallback = c;
	}
	return fallback;
}

/* Mark bad physical leaves under bound cell v/p by binding them to virtual
   leaves flagged bad (HiveD: the VC sees its bad cells). */
static void
bind_bad_below(struct engine *e, int v, int p)
{
	const struct spec_cell *sc = &e->s->cells[p];
	int k, pc, vc;

	if (sc->nchild == 0) {
		if (e->pcs[p].bad && e->vcs[v].bad == 0) {
			vpath_add(e, V_BAD, v, +1);
			vview_leaf(e, v);
		}
		return;
	}
	for (k = 0; k < sc->nchild; k++) {
		pc = sc->first_child + k;
		if (e->pcs[pc].bad == 0)
			continue;
		if (e->pcs[pc].vbind >= 0) {
			bind_bad_below(e, e->pcs[pc].vbind, pc);
			continue;
		}
		vc = free_vchild(e, v);
		if (vc < 0)
			fatal("bind_bad_below: no unbound virtual child");
		bind_cell(e, vc, pc);
	}
}

/* A preassigned cell's share of its VC's bound counts (invariant 9). */
static void
vc_bound_add(struct engine *e, int v, int d)
{
	if (e->vcs[v].root)
		e->vc_bound[vv_of(e, v)->vc * L1 + v_level(e, v)] += d;
}

/* Mark or clear a doomed virtual cell, counted per VC when preassigned. */
void
doom_set(struct engine *e, int v, bool doomed)
{
	if ((e->vcs[v].doomed != 0) == doomed)
		return;
	e->vcs[v].doomed = doomed;
	if (e->vcs[v].root)
		e->vc_doomed[vv_of(e, v)->vc] += doomed ? 1 : -1;
}

void
bind_cell(struct engine *e, int v, int p)
{
	if (e->vcs[v].phys < 0)
		vc_bound_add(e, v, +1);
	e->vcs[v].phys = p;
	e->pcs[p].vbind = v;
	phys_reindex(e, p);
	reindex_children(e, p);
	e->st.binds++;
	node_refresh(e, e->pcs[p].node);
	if (e->pcs[p].bad > 0)
		bind_bad_below(e, v, p);
}

void
unbind_cell(struct engine *e, int v)
{
	int p = e->vcs[v].phys, k, n = v_nchild(e, v), c;
	const struct vview *w = vv_of(e, v);

	if (p < 0)
		return;
	for (k = 0; k < n; k++) {
		c = v_child0(e, v) + k;
		if (e->vcs[c].phys >= 0)
			unbind_cell(e, c);
	}
	if (n == 0 && e->vcs[v].bad) {
		vpath_add(e, V_BAD, v, -1);
		vview_leaf(e, v);
	}
	vc_bound_add(e, v, -1);
	e->vcs[v].phys = -1;
	e->pcs[p].vbind = -1;
	phys_reindex(e, p);
	reindex_children(e, p);
	e->st.unbinds++;
	if (e->vcs[v].root) {
		doom_set(e, v, false);
		if (w->pin < 0)
			e->pc[p_chain(e, p)].owed[p_level(e, p)]++;
		buddy_free(e, p);
	}
	node_refresh(e, e->pcs[p].node);
}

/* Choose an unbound physical child of bound p at the given level for a
   virtual child: clean first (lowest index), else fewest bad/opportunistic. */
static int
pick_child(struct engine *e, int p)
{
	const struct spec_cell *sc = &e->s->cells[p];
	struct pchain *pc = &e->pc[p_chain(e, p)];
	const struct spec_chain *ch = &e->s->chains[p_chain(e, p)];
	int l = p_level(e, p) - 1, lo = sc->first_child - ch->level_first[l];
	int i, k, c, best = -1;

	i = bitset_next(&pc->ub_clean[l], lo);
	if (i >= 0 && i < lo + sc->nchild)
		return ch->level_first[l] + i;
	for (k = 0; k < sc->nchild; k++) {
		c = sc->first_child + k;
		if (e->pcs[c].vbind >= 0)
			continue;
		if (best < 0 || e->pcs[c].bad < e->pcs[best].bad ||
		    (e->pcs[c].bad == e->pcs[best].bad && e->pcs[c].opp < e->pcs[best].opp))
			best = c;
	}
	return best;
}

/* Bind v (and its unbound ancestors); returns its physical cell or -1. */
int
ensure_bound(struct engine *e, int v)
{
	int par, p, chain = vv_of(e, v)->chain;

	if (e->vcs[v].phys >= 0)
		return e->vcs[v].phys;
	if (e->vcs[v].root) {
		p = buddy_take(e, chain, v_level(e, v));
		if (p < 0)
			return -1;
		if (vv_of(e, v)->pin < 0)
			e->pc[chain].owed[v_level(e, v)]--;
	} else {
		par = ensure_bound(e, v_parent(e, v));
		if (par < 0)
			return -1;
		/* binding the parent may have bound v to a bad cell already */
		if (e->vcs[v].phys >= 0)
			return e->vcs[v].phys;
		p = pick_child(e, par);
		if (p < 0)
			return -1;
	}
	bind_cell(e, v, p);
	return p;
}

/* Bind v exactly to p (recovery and rollback), ancestors included. */
void
bind_exact(struct engine *e, int v, int p)
{
	if (e->vcs[v].phys == p)
		return;
	if (e->vcs[v].phys >= 0 || e->pcs[p].vbind >= 0)
		fatal("bind_exact: virtual %d or physical %d already bound", v, p);
	if (e->vcs[v].root) {
		buddy_take_exact(e, p);
		if (vv_of(e, v)->pin < 0)
			e->pc[p_chain(e, p)].owed[p_level(e, p)]--;
	} else
		bind_exact(e, v_parent(e, v), e->s->cells[p].parent);
	if (e->vcs[v].phys == p)
		return;
	if (e->pcs[p].vbind >= 0) {
		/* a bad-marked binding took p while binding the parent: move it */
		int other = e->pcs[p].vbind;
		unbind_cell(e, other);
	}
	bind_cell(e, v, p);
}

void
vleaf_set_job(struct engine *e, int vleaf, int job)
{
	int old = e->vcs[vleaf].job;

	if ((old >= 0) == (job >= 0)) {
		e->vcs[vleaf].job = job;
		return;
	}
	e->vcs[vleaf].job = job;
	vpath_add(e, V_USED, vleaf, job >= 0 ? +1 : -1);
	vview_leaf(e, vleaf);
}

void
vleaf_want(struct engine *e, int vleaf, bool want)
{
	vpath_add(e, V_WANT, vleaf, want ? +1 : -1);
	vview_leaf(e, vleaf);
}

static bool
v_held(const struct engine *e, int v)
{
	return e->vcs[v].used > 0 || e->vcs[v].doomed || e->vcs[v].keep || e->vcs[v].want > 0;
}

/* Unbind what is no longer in use under v, keeping bad paths bound while
   the parent stays bound. */
static void
prune(struct engine *e, int v)
{
	int k, n, c;

	if (e->vcs[v].phys < 0 || v_held(e, v))
		return;
	if (e->pcs[e->vcs[v].phys].bad == 0 || v_parent(e, v) < 0 ||
	    e->vcs[v_parent(e, v)].phys < 0) {
		unbind_cell(e, v);
		return;
	}
	n = v_nchild(e, v);
	for (k = 0; k < n; k++) {
		c = v_child0(e, v) + k;
		prune(e, c);
	}
}

/* After a leaf lost its job: unbind the largest unused subtree around it. */
void
vleaf_prune(struct engine *e, int vleaf)
{
	int u = vleaf, par;

	if (v_held(e, u))
		return;
	while ((par = v_parent(e, u)) >= 0 && !v_held(e, par))
		u = par;
	prune(e, u);
}

void
phys_set_bad(struct engine *e, int leaf, bool bad)
{
	int c, v;

	if ((e->pcs[leaf].bad != 0) == bad)
		return;
	path_add(e, P_BAD, leaf, bad ? +1 : -1);
	e->pc[p_chain(e, leaf)].nbad += bad ? 1 : -1;
	e->st.bad += bad ? 1 : -1;
	opp_views_update(e, leaf);
	if (bad) {
		/* inside a bound cell: the VC must see it */
		for (c = leaf; c >= 0 && e->pcs[c].vbind < 0; c = e->s->cells[c].parent)
			;
		if (c >= 0) {
			v = e->pcs[c].vbind;
			bind_bad_below(e, v, c);
		}
	} else if ((v = e->pcs[leaf].vbind) >= 0 && e->vcs[v].bad) {
		vpath_add(e, V_BAD, v, -1);
		vview_leaf(e, v);
		vleaf_prune(e, v);
	}
}
