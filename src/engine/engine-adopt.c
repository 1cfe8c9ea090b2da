/*
 * engine-adopt.c — take over a running job at physical leaves chosen
 * elsewhere, choosing its virtual cells here. HiveD does this when it
 * restarts and finds pods already bound to machines; cellar does it when a
 * changed spec is loaded while jobs run (reconfiguration), where the stored
 * virtual bindings mean nothing to the new spec's views.
 *
 * The virtual cells are planned read-only first, then the job is re-created
 * through engine_restore_job with those bindings, so adoption and crash
 * recovery share one mutation path. Per pod: the physical cell P of the
 * pod's level that holds its leaves gets a virtual cell of the job's VC —
 * the one already bound to P or to an ancestor (descending through unbound
 * virtual children), else a fresh unbound root of the VC at the lowest level
 * above, if that physical ancestor is still free. Each leaf then descends
 * from P the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

/* Bindings planned in this call but not made yet (a few per pod). */
struct plan {
	int	*p, *v;
	int	 n;
	size_t	 cap;
};

static void
plan_add(struct plan *pl, int p, int v)
{
	size_t cap = pl->cap;

	XGROW(pl->p, cap, (size_t)pl->n + 1);
	XGROW(pl->v, pl->cap, (size_t)pl->n + 1);
	pl->p[pl->n] = p;
	pl->v[pl->n] = v;
	pl->n++;
}

static int
bound_p(const struct engine *e, const struct plan *pl, int p)
{
	int i;

	if (e->pcs[p].vbind >= 0)
		return e->pcs[p].vbind;
	for (i = 0; i < pl->n; i++)
		if (pl->p[i] == p)
			return pl->v[i];
	return -1;
}

static bool
taken_v(const struct engine *e, const struct plan *pl, int v)
{
	int i;

	if (e->vcs[v].phys >= 0 || e->vcs[v].want > 0 || e->vcs[v].used > 0)
		return true;
	for (i = 0; i < pl->n; i++)
		if (pl->v[i] == v)
			return true;
	return false;
}

static bool
is_ancestor(const struct engine *e, int a, int c)
{
	while (c >= 0 && p_level(e, c) < p_level(e, a))
		c = e->s->cells[c].parent;
	return c == a;
}

/* Can physical cell a become a root binding: inside a free cell, and not
   above anything bound or planned? */
static bool
takeable(const struct engine *e, const struct plan *pl, int a)
{
	int x = a, i;

	if (e->pcs[a].split)
		return false;
	while (x >= 0 && !e->pcs[x].free)
		x = e->s->cells[x].parent;
	if (x < 0)
		return false;
	for (i = 0; i < pl->n; i++)
		if (is_ancestor(e, a, pl->p[i]) || is_ancestor(e, pl->p[i], a))
			return false;
	return true;
}

/* The ancestor-or-self of c at level l. */
static int
up_to(const struct engine *e, int c, int l)
{
	while (c >= 0 && p_level(e, c) < l)
		c = e->s->cells[c].parent;
	return c;
}

/*
 * Map the virtual cell v bound (or planned) to physical cell a down the
 * physical path to its descendant c, planning unbound virtual children on
 * the way. Returns c's virtual cell or -1.
 */
static int
descend(const struct engine *e, struct plan *pl, int a, int v, int c)
{
	int path[L1], n = 0, x, k, w, i;

	for (x = c; x != a; x = e->s->cells[x].parent)
		path[n++] = x;
	for (i = n - 1; i >= 0; i--) {
		x = path[i];
		if ((w = bound_p(e, pl, x)) >= 0) {
			if (v_parent(e, w) != v)
				return -1;
			v = w;
			continue;
		}
		for (k = 0, w = -1; k < v_nchild(e, v); k++)
			if (!taken_v(e, pl, v_child0(e, v) + k)) {
				w = v_child0(e, v) + k;
				break;
			}
		if (w < 0)
			return -1;
		plan_add(pl, x, w);
		v = w;
	}
	return v;
}

static const char *
cell_name(const struct engine *e, int c, char *buf, size_t len)
{
	return spec_cell_path(e->s, c, buf, len);
}

/* A virtual cell of the request's VC for physical cell P (planned), or -1. */
static int
virt_for(const struct engine *e, struct plan *pl, const struct engine_req *r,
    int chain, int P, char *why, size_t len)
{
	const struct vview *w;
	char nb[256];
	int a, v, i, l, best = -1, bestl = 0;

	for (a = P; a >= 0 && bound_p(e, pl, a) < 0; a = e->s->cells[a].parent)
		;
	if (a >= 0) {
		v = bound_p(e, pl, a);
		w = vv_of(e, v);
		if (w->vc != r->vc || w->pin != r->pin) {
			bufprintf(why, len, "cell '%s' belongs to VC '%s'",
			    cell_name(e, a, nb, sizeof nb), e->s->vcs[w->vc].name);
			return -1;
		}
		if ((v = descend(e, pl, a, v, P)) < 0)
			bufprintf(why, len, "VC '%s' has no free virtual cell for '%s'",
			    e->s->vcs[r->vc].name, cell_name(e, P, nb, sizeof nb));
		return v;
	}
	/* nothing bound above: a fresh root of the VC, lowest level first */
	for (i = e->vc_views[r->vc]; i < e->vc_views[r->vc + 1]; i++) {
		w = &e->views[i];
		if (w->chain != chain || w->pin >= 0)
			continue;
		for (v = w->base; v < w->base + w->ncells; v++) {
			if (!e->vcs[v].root || taken_v(e, pl, v) || e->vcs[v].doomed)
				continue;
			l = v_level(e, v);
			if (l < p_level(e, P) || (best >= 0 && l >= bestl))
				continue;
			if (!takeable(e, pl, up_to(e, P, l)))
				continue;
			best = v;
			bestl = l;
		}
	}
	if (best < 0) {
		bufprintf(why, len, "'%s' does not fit VC '%s' (no free cell of its "
		    "assignment there)", cell_name(e, P, nb, sizeof nb),
		    e->s->vcs[r->vc].name);
		return -1;
	}
	a = up_to(e, P, bestl);
	plan_add(pl, a, best);
	return descend(e, pl, a, best, P);
}

/* The lowest level of the chain whose cells hold n leaves. */
static int
pod_level(const struct engine *e, int chain, int n)
{
	int l, levels = e->s->chains[chain].levels;

	for (l = 1; l < levels; l++)
		if (spec_units(e->s, chain, l, 1) >= n)
			return l;
	return levels;
}

static int
plan_vleaves(const struct engine *e, const struct engine_req *r, int chain,
    const int *pod_first, int npods, const int *leaves, int *vleaves,
    char *why, size_t len)
{
	struct plan pl = { 0 };
	char nb[256];
	int k, i, P, vP, rc = -1;

	for (k = 0; k < npods; k++) {
		int lo = pod_first[k], hi = pod_first[k + 1];
		int lp = pod_level(e, chain, hi - lo);
		P = up_to(e, leaves[lo], lp);
		for (i = lo; i < hi; i++)
			if (up_to(e, leaves[i], lp) != P) {
				bufprintf(why, len, "pod %d is no longer inside one "
				    "cell of level %d (spec changed)", k, lp);
				goto out;
			}
		if ((vP = virt_for(e, &pl, r, chain, P, why, len)) < 0)
			goto out;
		for (i = lo; i < hi; i++)
			if ((vleaves[i] = descend(e, &pl, P, vP, leaves[i])) < 0) {
				bufprintf(why, len, "VC '%s' has no free virtual "
				    "leaf for '%s'", e->s->vcs[r->vc].name,
				    cell_name(e, leaves[i], nb, sizeof nb));
				goto out;
			}
	}
	rc = 0;
out:
	free(pl.p);
	free(pl.v);
	return rc;
}

int
engine_adopt(struct engine *e, const struct engine_req *r, int chain,
    const int *pod_first, int npods, const int *leaves, int nleaves,
    char *why, size_t len)
{
	struct engine_placement pl;
	int *vl = NULL, id, i, bad;
	bool opp = r->priority < 0;
	long long fr[L1] = { 0 };

	if (r->vc < 0 || r->vc >= e->s->nvcs || chain < 0 ||
	    chain >= e->s->nchains || npods <= 0 || nleaves <= 0 ||
	    pod_first[0] != 0 || pod_first[npods] != nleaves) {
		bufprintf(why, len, "job '%s': malformed placement", r->name);
		return -1;
	}
	for (i = 0; i < nleaves; i++)
		if (leaves[i] < 0 || leaves[i] >= e->np ||
		    e->s->cells[leaves[i]].level != 1 ||
		    e->s->cells[leaves[i]].chain != chain) {
			bufprintf(why, len, "job '%s': leaf %d is not a GPU of its "
			    "chain", r->name, leaves[i]);
			return -1;
		}
	if (!opp && e->mode == ENGINE_QUOTA &&
	    e->vc_gused[r->vc] + nleaves > e->vc_quota[r->vc]) {
		bufprintf(why, len, "VC '%s' quota is full", e->s->vcs[r->vc].name);
		return -1;
	}
	if (e->mode == ENGINE_PRIVATE || (!opp && e->mode == ENGINE_HIVED)) {
		vl = xcalloc((size_t)nleaves, sizeof *vl);
		if (plan_vleaves(e, r, chain, pod_first, npods, leaves, vl, why, len) < 0) {
			free(vl);
			return -1;
		}
	}
	memset(&pl, 0, sizeof pl);
	pl.id = e->job_free.count > 0 ? bitset_next(&e->job_free, 0) : e->njobs;
	pl.name = r->name;
	pl.vc = r->vc;
	pl.priority = pl.orig_priority = r->priority;
	pl.lazy = r->lazy;
	pl.chain = chain;
	pl.pin = r->pin;
	pl.npods = npods;
	pl.pod_first = pod_first;
	pl.leaves = leaves;
	pl.vleaves = vl;
	pl.nleaves = nleaves;
	id = engine_restore_job(e, &pl, why, len) < 0 ? -1 : pl.id;
	free(vl);
	if (id < 0 || e->mode != ENGINE_HIVED)
		return id;
	for (i = 1; i <= e->s->chains[chain].levels; i++)
		fr[i] = e->pc[chain].fl_clean[i].count + e->pc[chain].fl_dirty[i].count;
	if (!theorem1_holds(e->s, chain, e->pc[chain].owed, fr, &bad)) {
		engine_release(e, id);
		bufprintf(why, len, "job '%s' there would leave other VCs short at "
		    "level %d (sharing safety)", r->name, bad);
		return -1;
	}
	return id;
}

/*
 * engine_move: the job is released without rebalancing doomed cells, its
 * new leaves get virtual cells as adoption chooses them, and it is
 * re-created under its own id; any refusal puts the snapshot back, so the
 * engine is bit for bit as before (history counters included).
 */
int
engine_move(struct engine *e, int job, const int *pod_first, int npods,
    const int *leaves, int nleaves, char *why, size_t len)
{
	struct engine_stats st = e->st;
	struct engine_req r;
	struct engine_placement pl;
	struct snap sn;
	struct ejob *j;
	int *vl = NULL, *pf, *lv, i, rc = -1;

	if (job < 0 || job >= e->njobs || !e->jobs[job].live) {
		bufprintf(why, len, "no engine job %d", job);
		return -1;
	}
	j = &e->jobs[job];
	if (j->prio < 0 || j->downgraded || j->pin >= 0) {
		bufprintf(why, len, "job '%s' is %s: only unpinned guaranteed jobs "
		    "move", j->name, j->pin >= 0 ? "pinned" : "opportunistic");
		return -1;
	}
	for (i = 0; i < j->nleaves; i++)
		if (e->pcs[j->leaves[i]].bad > 0) {
			bufprintf(why, len, "job '%s' runs on a bad GPU", j->name);
			return -1;
		}
	if (npods <= 0 || nleaves <= 0 || pod_first[0] != 0 ||
	    pod_first[npods] != nleaves) {
		bufprintf(why, len, "job '%s': malformed placement", j->name);
		return -1;
	}
	for (i = 0; i < nleaves; i++)
		if (leaves[i] < 0 || leaves[i] >= e->np ||
		    e->s->cells[leaves[i]].level != 1 ||
		    e->s->cells[leaves[i]].chain != j->chain) {
			bufprintf(why, len, "job '%s': leaf %d is not a GPU of its "
			    "chain", j->name, leaves[i]);
			return -1;
		}
	/* copies: the caller may pass the job's own arrays, which
	   job_release frees; the snapshot owns its copies too */
	pf = xmalloc((size_t)(npods + 1) * sizeof *pf);
	memcpy(pf, pod_first, (size_t)(npods + 1) * sizeof *pf);
	lv = xmalloc((size_t)nleaves * sizeof *lv);
	memcpy(lv, leaves, (size_t)nleaves * sizeof *lv);
	pod_first = pf;
	leaves = lv;
	sn.id = job;
	sn.j = *j;
	sn.j.pod_first = xmalloc((size_t)(j->npods + 1) * sizeof(int));
	memcpy(sn.j.pod_first, j->pod_first, (size_t)(j->npods + 1) * sizeof(int));
	sn.j.leaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
	memcpy(sn.j.leaves, j->leaves, (size_t)j->nleaves * sizeof(int));
	sn.j.vleaves = NULL;
	if (j->vleaves != NULL) {
		sn.j.vleaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
		memcpy(sn.j.vleaves, j->vleaves, (size_t)j->nleaves * sizeof(int));
	}
	memset(&r, 0, sizeof r);
	r.name = sn.j.name;
	r.vc = sn.j.vc;
	r.priority = sn.j.prio;
	r.pin = -1;
	r.lazy = sn.j.lazy;

	e->no_rebalance = true;
	job_release(e, job);
	if (e->mode == ENGINE_QUOTA && !sn.j.borrowed &&
	    e->vc_gused[r.vc] + nleaves > e->vc_quota[r.vc]) {
		bufprintf(why, len, "VC '%s' quota is full", e->s->vcs[r.vc].name);
		goto undo;
	}
	if (e->mode != ENGINE_QUOTA) {
		vl = xcalloc((size_t)nleaves, sizeof *vl);
		if (plan_vleaves(e, &r, sn.j.chain, pod_first, npods, leaves, vl,
		    why, len) < 0)
			goto undo;
	}
	memset(&pl, 0, sizeof pl);
	pl.id = job;
	pl.name = sn.j.name;
	pl.vc = sn.j.vc;
	pl.priority = sn.j.prio;
	pl.orig_priority = sn.j.orig_prio;
	pl.lazy = sn.j.lazy;
	pl.borrowed = sn.j.borrowed;	/* a borrower moves as one */
	pl.chain = sn.j.chain;
	pl.pin = -1;
	pl.npods = npods;
	pl.pod_first = pod_first;
	pl.leaves = leaves;
	pl.vleaves = vl;
	pl.nleaves = nleaves;
	/* validated, bound, theorem 1 checked (its own breach undone) */
	if (engine_restore_job(e, &pl, why, len) < 0)
		goto undo;
	rc = 0;
	goto out;
undo:
	job_restore(e, &sn);
	e->st = st;
	engine_debug_check(e, "move rollback");
out:
	e->no_rebalance = false;
	free(vl);
	free(pf);
	free(lv);
	free(sn.j.pod_first);
	free(sn.j.leaves);
	free(sn.j.vleaves);
	return rc;
}
