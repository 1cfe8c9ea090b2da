/*
 * engine-restore.c — crash recovery: a running job's placement out of the
 * engine and back into a fresh one, the bad marks whose virtual leaves
 * history chose, and the history counters. See engine.h ("Crash
 * recovery") for what makes the state and the order of a restore.
 *
 * Stored placements may be corrupt or belong to another spec, so every
 * restore checks all it can before it touches anything (the binding steps
 * of job_restore and bind_exact abort on a conflict, which is right for
 * rollback and wrong for data); only Theorem 1, a property of all the
 * bindings together, is checked after binding, and a breach is undone by
 * releasing the job, which gives back exactly the state before.
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

#define FAIL(...) do { bufprintf(why, len, __VA_ARGS__); goto fail; } while (0)

bool
engine_job_placement(const struct engine *e, int job, struct engine_placement *pl)
{
	const struct ejob *j;

	if (job < 0 || job >= e->njobs || !e->jobs[job].live)
		return false;
	j = &e->jobs[job];
	memset(pl, 0, sizeof *pl);
	pl->id = job;
	pl->name = j->name;
	pl->vc = j->vc;
	pl->priority = j->prio;
	pl->orig_priority = j->orig_prio;
	pl->lazy = j->lazy;
	pl->downgraded = j->downgraded;
	pl->borrowed = j->borrowed;
	pl->chain = j->chain;
	pl->pin = j->pin;
	pl->npods = j->npods;
	pl->pod_first = j->pod_first;
	pl->leaves = j->leaves;
	pl->vleaves = j->vleaves;
	pl->nleaves = j->nleaves;
	return true;
}

static int *
dup_ints(const int *v, int n)
{
	int *r;

	if (v == NULL)
		return NULL;
	r = xmalloc((size_t)n * sizeof *r + 1);
	memcpy(r, v, (size_t)n * sizeof *r);
	return r;
}

void
engine_placement_dup(struct engine_placement *dst, const struct engine_placement *src)
{
	*dst = *src;
	dst->name = NULL;
	dst->pod_first = dup_ints(src->pod_first, src->npods + 1);
	dst->leaves = dup_ints(src->leaves, src->nleaves);
	dst->vleaves = dup_ints(src->vleaves, src->nleaves);
}

void
engine_placement_free_arrays(struct engine_placement *pl)
{
	free((void *)pl->pod_first);
	free((void *)pl->leaves);
	free((void *)pl->vleaves);
	pl->pod_first = pl->leaves = pl->vleaves = NULL;
}

void
engine_stats_restore(struct engine *e, const struct engine_stats *st)
{
	e->st.binds = st->binds;
	e->st.unbinds = st->unbinds;
	e->st.splits = st->splits;
	e->st.merges = st->merges;
}

static bool
is_leaf(const struct engine *e, int c)
{
	return c >= 0 && c < e->np && e->s->cells[c].nchild == 0;
}

static bool
is_vleaf(const struct engine *e, int v)
{
	return v >= 0 && v < e->nv && v_level(e, v) == 1;
}

/* Is p free, or inside a free cell (so buddy_take_exact can take it)? */
static bool
takeable(const struct engine *e, int p)
{
	for (; p >= 0; p = e->s->cells[p].parent)
		if (e->pcs[p].free)
			return true;
	return false;
}

/* Is a an ancestor of (or equal to) c? */
static bool
contains(const struct engine *e, int a, int c)
{
	for (; c >= 0; c = e->s->cells[c].parent)
		if (c == a)
			return true;
	return false;
}

struct pair {
	int	v;
	int	p;
};

static int
cmp_v(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return (x->p > y->p) - (x->p < y->p);
}

static int
cmp_p(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->v > y->v) - (x->v < y->v);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * The virtual side of a placement: every (virtual, physical) pair from
 * each leaf up to its root must be one-to-one, agree with the bindings
 * the engine has, and bind new roots only to cells the buddy free lists
 * can give, no two of them overlapping.
 */
static int
check_vleaves(const struct engine *e, const struct engine_placement *pl, char *why,
    size_t len)
{
	const struct vview *w;
	struct pair *pr = NULL;
	int *roots = NULL, npr = 0, nroots = 0, k, i, v, p, view = -1;
	size_t cap;

	cap = (size_t)pl->nleaves * (L1 + 1);
	pr = xcalloc(cap, sizeof *pr);
	roots = xcalloc((size_t)pl->nleaves + 1, sizeof *roots);
	for (k = 0; k < pl->nleaves; k++) {
		v = pl->vleaves[k];
		p = pl->leaves[k];
		if (!is_vleaf(e, v))
			FAIL("job '%s': virtual leaf %d is not a leaf virtual cell", pl->name, v);
		if (view < 0)
			view = e->vcs[v].view;
		if (e->vcs[v].view != view)
			FAIL("job '%s': virtual leaves %d and %d are in different views",
			    pl->name, pl->vleaves[0], v);
		if (e->vcs[v].job >= 0)
			FAIL("job '%s': virtual leaf %d is in use by job %d", pl->name, v,
			    e->vcs[v].job);
		for (;;) {
			if (v_level(e, v) != p_level(e, p))
				FAIL("job '%s': virtual cell %d (level %d) cannot be bound to "
				    "cell %d (level %d)", pl->name, v, v_level(e, v), p,
				    p_level(e, p));
			pr[npr].v = v;
			pr[npr].p = p;
			npr++;
			if (v_parent(e, v) < 0)
				break;
			v = v_parent(e, v);
			p = e->s->cells[p].parent;
			if (p < 0)
				FAIL("job '%s': virtual cell %d has no physical counterpart",
				    pl->name, v);
		}
	}
	w = &e->views[view];
	if (w->vc != pl->vc || w->chain != pl->chain || w->pin != pl->pin)
		FAIL("job '%s': its virtual leaves belong to vc '%s', chain %d, pin %d, "
		    "not to vc '%s', chain %d, pin %d", pl->name, e->s->vcs[w->vc].name,
		    w->chain, w->pin, e->s->vcs[pl->vc].name, pl->chain, pl->pin);
	/* one-to-one: a virtual cell has one physical cell and back */
	qsort(pr, (size_t)npr, sizeof *pr, cmp_v);
	for (i = 1; i < npr; i++) {
		if (pr[i].v == pr[i - 1].v && pr[i].p == pr[i - 1].p) {
			if (v_level(e, pr[i].v) == 1)
				FAIL("job '%s': virtual leaf %d is listed twice", pl->name,
				    pr[i].v);
			continue;
		}
		if (pr[i].v == pr[i - 1].v)
			FAIL("job '%s': virtual cell %d would be bound to cells %d and %d",
			    pl->name, pr[i].v, pr[i - 1].p, pr[i].p);
	}
	qsort(pr, (size_t)npr, sizeof *pr, cmp_p);
	for (i = 1; i < npr; i++)
		if (pr[i].p == pr[i - 1].p && pr[i].v != pr[i - 1].v)
			FAIL("job '%s': cell %d would be bound to virtual cells %d and %d",
			    pl->name, pr[i].p, pr[i - 1].v, pr[i].v);
	/* against the engine's bindings */
	for (i = 0; i < npr; i++) {
		if (i > 0 && pr[i].p == pr[i - 1].p)
			continue;
		v = pr[i].v;
		p = pr[i].p;
		if (e->vcs[v].phys >= 0 && e->vcs[v].phys != p)
			FAIL("job '%s': virtual cell %d is bound to cell %d, not %d", pl->name,
			    v, e->vcs[v].phys, p);
		if (e->pcs[p].vbind >= 0 && e->pcs[p].vbind != v)
			FAIL("job '%s': cell %d is bound to virtual cell %d, not %d", pl->name,
			    p, e->pcs[p].vbind, v);
		if (e->vcs[v].phys < 0 && e->vcs[v].root) {
			if (!takeable(e, p))
				FAIL("job '%s': cell %d is not free for virtual cell %d", pl->name,
				    p, v);
			roots[nroots++] = p;
		}
	}
	for (i = 0; i < nroots; i++)
		for (k = 0; k < nroots; k++)
			if (i != k && contains(e, roots[i], roots[k]))
				FAIL("job '%s': cells %d and %d would both be bound, one inside "
				    "the other", pl->name, roots[i], roots[k]);
	free(pr);
	free(roots);
	return 0;
fail:
	free(pr);
	free(roots);
	return -1;
}

/* Each pod inside one cell of the lowest level that holds it (invariant 7). */
static int
check_pods(const struct engine *e, const struct engine_placement *pl, char *why, size_t len)
{
	const struct spec *s = e->s;
	int pod, g, L, k, a, b;

	if (pl->npods < 1 || pl->npods > ENGINE_MAX_PODS || pl->pod_first == NULL ||
	    pl->pod_first[0] != 0 || pl->pod_first[pl->npods] != pl->nleaves)
		FAIL("job '%s': %d pods do not cover its %d leaves", pl->name, pl->npods,
		    pl->nleaves);
	for (pod = 0; pod < pl->npods; pod++)
		if (pl->pod_first[pod + 1] <= pl->pod_first[pod])
			FAIL("job '%s': pod %d is empty or out of order", pl->name, pod);
	for (pod = 0; pod < pl->npods; pod++) {
		g = pl->pod_first[pod + 1] - pl->pod_first[pod];
		for (L = 1; L <= s->chains[pl->chain].levels; L++)
			if (spec_units(s, pl->chain, L, 1) >= g)
				break;
		if (L > s->chains[pl->chain].levels)
			FAIL("job '%s': pod %d of %d gpus is larger than any cell", pl->name,
			    pod, g);
		a = pl->leaves[pl->pod_first[pod]];
		for (k = pl->pod_first[pod] + 1; k < pl->pod_first[pod + 1] && a >= 0; k++) {
			b = pl->leaves[k];
			while (a != b && a >= 0 && b >= 0) {
				if (s->cells[a].level <= s->cells[b].level)
					a = s->cells[a].parent;
				else
					b = s->cells[b].parent;
			}
			if (b < 0)
				a = -1;
		}
		if (a < 0)
			FAIL("job '%s': pod %d of %d gpus spans several top-level cells",
			    pl->name, pod, g);
		if (s->cells[a].level > L)
			FAIL("job '%s': pod %d of %d gpus spans a level-%d cell", pl->name, pod,
			    g, s->cells[a].level);
	}
	return 0;
fail:
	return -1;
}

static int
check_placement(const struct engine *e, const struct engine_placement *pl, char *why,
    size_t len)
{
	const struct spec *s = e->s;
	bool opp = pl->priority < 0, want_v;
	int k, *sorted = NULL;

	if (pl->name == NULL || pl->name[0] == '\0' ||
	    strlen(pl->name) >= sizeof e->jobs[0].name)
		FAIL("job name must be 1 to %zu characters", sizeof e->jobs[0].name - 1);
	if (pl->id < 0 || pl->id >= s->gpus)
		FAIL("job '%s': id %d is out of range 0..%lld", pl->name, pl->id, s->gpus - 1);
	if (pl->id < e->njobs && e->jobs[pl->id].live)
		FAIL("job '%s': id %d is taken by job '%s'", pl->name, pl->id,
		    e->jobs[pl->id].name);
	if (engine_job_find(e, pl->name) >= 0)
		FAIL("job '%s' exists", pl->name);
	if (pl->vc < 0 || pl->vc >= s->nvcs)
		FAIL("job '%s': no vc %d", pl->name, pl->vc);
	if (pl->chain < 0 || pl->chain >= s->nchains)
		FAIL("job '%s': no chain %d", pl->name, pl->chain);
	if (pl->priority < ENGINE_PRIO_OPPORTUNISTIC || pl->priority > ENGINE_PRIO_MAX ||
	    pl->orig_priority < ENGINE_PRIO_OPPORTUNISTIC ||
	    pl->orig_priority > ENGINE_PRIO_MAX)
		FAIL("job '%s': priority %d (requested %d) is out of range -1..%d", pl->name,
		    pl->priority, pl->orig_priority, ENGINE_PRIO_MAX);
	if (pl->downgraded ? e->mode != ENGINE_HIVED || !pl->lazy || !opp ||
	    pl->orig_priority < 0 : pl->priority != pl->orig_priority)
		FAIL("job '%s': priority %d, requested %d, %s: not a state the engine "
		    "makes in %s mode", pl->name, pl->priority, pl->orig_priority,
		    pl->downgraded ? "downgraded" : "not downgraded",
		    engine_mode_name(e->mode));
	if (pl->pin >= 0 && (pl->pin >= s->npins || s->pins[pl->pin].vc != pl->vc ||
	    pl->orig_priority < 0 || e->mode == ENGINE_QUOTA))
		FAIL("job '%s': pinned cell %d is not one vc '%s' can use here", pl->name,
		    pl->pin, s->vcs[pl->vc].name);
	if (pl->pin < -1)
		FAIL("job '%s': pin %d is out of range", pl->name, pl->pin);
	if (pl->nleaves < 1 || pl->nleaves > s->gpus || pl->leaves == NULL)
		FAIL("job '%s': %d leaves", pl->name, pl->nleaves);
	if (pl->borrowed && (!e->borrow || opp))
		FAIL("job '%s': borrowed, but %s", pl->name, opp ? "opportunistic" :
		    "this engine does not lend");
	if (e->mode == ENGINE_QUOTA && !opp && !pl->borrowed &&
	    e->vc_gused[pl->vc] + pl->nleaves > e->vc_quota[pl->vc])
		FAIL("job '%s': vc '%s' would use %lld of its %lld gpus", pl->name,
		    s->vcs[pl->vc].name, e->vc_gused[pl->vc] + pl->nleaves,
		    e->vc_quota[pl->vc]);
	for (k = 0; k < pl->nleaves; k++) {
		int p = pl->leaves[k];
		if (!is_leaf(e, p) || p_chain(e, p) != pl->chain)
			FAIL("job '%s': cell %d is not a leaf of chain %d", pl->name, p,
			    pl->chain);
		if (e->pcs[p].job >= 0)
			FAIL("job '%s': leaf %d is in use by job '%s'", pl->name, p,
			    e->jobs[e->pcs[p].job].name);
	}
	sorted = xreallocarray(NULL, (size_t)pl->nleaves, sizeof *sorted);
	memcpy(sorted, pl->leaves, (size_t)pl->nleaves * sizeof *sorted);
	qsort(sorted, (size_t)pl->nleaves, sizeof *sorted, cmp_int);
	for (k = 1; k < pl->nleaves; k++)
		if (sorted[k] == sorted[k - 1])
			FAIL("job '%s': leaf %d is listed twice", pl->name, sorted[k]);
	free(sorted);
	sorted = NULL;
	if (check_pods(e, pl, why, len) < 0)
		return -1;
	want_v = e->mode == ENGINE_PRIVATE || (e->mode == ENGINE_HIVED && !opp);
	if (want_v != (pl->vleaves != NULL))
		FAIL("job '%s': %s job in %s mode %s virtual leaves", pl->name,
		    opp ? "an opportunistic" : "a guaranteed", engine_mode_name(e->mode),
		    want_v ? "needs" : "has no");
	if (want_v)
		return check_vleaves(e, pl, why, len);
	return 0;
fail:
	free(sorted);
	return -1;
}

int
engine_restore_job(struct engine *e, const struct engine_placement *pl, char *why,
    size_t len)
{
	struct engine_stats st = e->st;
	struct snap sn;
	long long fr[L1] = { 0 };
	int l, bad, chain = pl->chain;

	if (check_placement(e, pl, why, len) < 0)
		return -1;
	memset(&sn, 0, sizeof sn);
	sn.id = pl->id;
	sn.j.live = true;
	bufprintf(sn.j.name, sizeof sn.j.name, "%s", pl->name);
	sn.j.vc = pl->vc;
	sn.j.prio = pl->priority;
	sn.j.orig_prio = pl->orig_priority;
	sn.j.lazy = pl->lazy;
	sn.j.downgraded = pl->downgraded;
	sn.j.borrowed = pl->borrowed;
	sn.j.chain = chain;
	sn.j.pin = pl->pin;
	sn.j.npods = pl->npods;
	sn.j.nleaves = pl->nleaves;
	/* job_restore copies the arrays and never writes through these */
	sn.j.pod_first = (int *)pl->pod_first;
	sn.j.leaves = (int *)pl->leaves;
	sn.j.vleaves = (int *)pl->vleaves;
	job_restore(e, &sn);
	if (e->mode != ENGINE_QUOTA) {
		for (l = 1; l <= e->s->chains[chain].levels; l++)
			fr[l] = e->pc[chain].fl_clean[l].count + e->pc[chain].fl_dirty[l].count;
		if (!theorem1_holds(e->s, chain, e->pc[chain].owed, fr, &bad)) {
			e->no_rebalance = true;
			job_release(e, pl->id);
			e->no_rebalance = false;
			e->st = st;
			engine_debug_check(e, "restore rollback");
			bufprintf(why, len, "job '%s': its cells would leave chain '%s' "
			    "owing more level-%d cells than are free (theorem 1)", pl->name,
			    e->s->types[e->s->chains[chain].top_type].name, bad);
			return -1;
		}
	}
	if (e->mode == ENGINE_HIVED && e->pc[chain].nbad > 0)
		doom_rebalance(e, chain);
	engine_debug_check(e, "restore");
	return 0;
}

/* The root virtual cell above v. */
static int
v_root_of(const struct engine *e, int v)
{
	while (v_parent(e, v) >= 0)
		v = v_parent(e, v);
	return v;
}

int
engine_marks(const struct engine *e, struct engine_mark *out, int max)
{
	int v, n = 0;

	if (e->mode == ENGINE_QUOTA || e->st.bad == 0)
		return 0;
	for (v = 0; v < e->nv; v++) {
		/* a bad root leaf is static or doomed: bound again without help */
		if (e->vcs[v].phys < 0 || e->vcs[v].bad == 0 || e->vcs[v].job >= 0 ||
		    v_level(e, v) != 1 || v_parent(e, v) < 0 ||
		    e->vcs[v_root_of(e, v)].doomed)
			continue;
		if (n < max) {
			out[n].vleaf = v;
			out[n].leaf = e->vcs[v].phys;
		}
		n++;
	}
	return n;
}

int
engine_restore_mark(struct engine *e, const struct engine_mark *mk, char *why, size_t len)
{
	int v = mk->vleaf, p = mk->leaf, j;

	if (e->mode == ENGINE_QUOTA)
		FAIL("no bad marks in quota mode");
	if (!is_vleaf(e, v) || !is_leaf(e, p))
		FAIL("bad mark %d -> %d: not a virtual leaf and a leaf cell", v, p);
	if (vv_of(e, v)->chain != p_chain(e, p))
		FAIL("bad mark %d -> %d: virtual leaf and leaf are in different chains", v, p);
	if (e->vcs[v].phys >= 0 || e->vcs[v].job >= 0 || e->vcs[v].want > 0)
		FAIL("bad mark %d -> %d: the virtual leaf is bound or in use", v, p);
	j = e->pcs[p].job;
	if (e->pcs[p].vbind >= 0 || (j >= 0 && !e->pcs[p].isopp))
		FAIL("bad mark %d -> %d: the leaf is bound or used by a guaranteed job", v, p);
	/* up to the nearest bound ancestor, which must match */
	for (;;) {
		if (v_level(e, v) != p_level(e, p))
			FAIL("bad mark %d -> %d: levels differ above", mk->vleaf, mk->leaf);
		if (e->vcs[v].phys >= 0) {
			if (e->vcs[v].phys != p)
				FAIL("bad mark %d -> %d: virtual cell %d is bound to cell %d, "
				    "not %d", mk->vleaf, mk->leaf, v, e->vcs[v].phys, p);
			break;
		}
		if (e->pcs[p].vbind >= 0)
			FAIL("bad mark %d -> %d: cell %d is bound to virtual cell %d",
			    mk->vleaf, mk->leaf, p, e->pcs[p].vbind);
		if (v_parent(e, v) < 0)
			FAIL("bad mark %d -> %d: not inside a cell its vc holds", mk->vleaf,
			    mk->leaf);
		v = v_parent(e, v);
		p = e->s->cells[p].parent;
		if (p < 0)
			FAIL("bad mark %d -> %d: levels differ above", mk->vleaf, mk->leaf);
	}
	bind_exact(e, mk->vleaf, mk->leaf);
	phys_set_bad(e, mk->leaf, true);
	engine_debug_check(e, "restore mark");
	return 0;
fail:
	return -1;
}
