/*
 * engine.c — building the engine from a spec, placing and committing
 * requests, releasing jobs, the dry run, queries and engine_check().
 *
 * Placement of a guaranteed request (hived, private):
 *   1. expand the gang into pods, largest first;
 *   2. in the VC's views (its pinned cell's view if the request names one,
 *      else one per chain of the right leaf type, in spec order) place the
 *      pods on free virtual leaves (view.h's rules);
 *   3. failing that, on leaves that are free or used by lower-priority jobs
 *      of the same VC: their jobs are the victims;
 *   4. commit: victims are preempted, or downgraded to opportunistic when
 *      they allow it (lazy preemption); the chosen virtual leaves are bound
 *      (buddy allocation for unbound preassigned cells) and opportunistic
 *      jobs found on the bound physical leaves are preempted.
 * Opportunistic requests (hived, quota) go to idle physical leaves, first on
 * nodes no VC holds, then anywhere. Quota mode places guaranteed requests on
 * idle physical leaves cluster-wide within the VC's GPU quota.
 *
 * A dry run (engine_place) commits and then rolls back: the new job is
 * released and its victims restored at their exact cells. Every index is a
 * function of the logical state (bitsets, no history), so the engine ends
 * exactly as it started.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/strmap.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

#define MAX_PODS ENGINE_MAX_PODS
#define NPRIO (ENGINE_PRIO_MAX + 2)	/* priorities -1 .. 1000 */

/* ---- names ---- */

int
engine_job_find(const struct engine *e, const char *name)
{
	return strmap_get(&e->names, name);
}

/*
 * The name map borrows each live job's own name (no copy per job: allocs
 * and dry runs are the hot path); when the job array moves, its keys are
 * pointed at the names' new home (strmap_rekey: no rehash).
 */
static const char *
name_of(void *arg, int id)
{
	const struct engine *e = arg;

	return e->jobs[id].name;
}

/* ---- job slots ---- */

static void
jobs_reserve(struct engine *e, int n)
{
	int old = e->njobs, i;
	struct bitset nb;

	if (n <= old)
		return;
	n = n < 64 ? 64 : n;
	if (n < old * 2)
		n = old * 2;
	e->jobs = xreallocarray(e->jobs, (size_t)n, sizeof *e->jobs);
	memset(e->jobs + old, 0, (size_t)(n - old) * sizeof *e->jobs);
	bitset_init(&nb, n);
	for (i = 0; i < n; i++)
		if (i >= old || bitset_test(&e->job_free, i))
			bitset_set(&nb, i);
	if (old)
		bitset_release(&e->job_free);
	e->job_free = nb;
	e->njobs = n;
	strmap_rekey(&e->names, name_of, e);	/* the names may have moved */
}

/* Take a job slot (the lowest free one, or `want` when >= 0). */
static int
job_take(struct engine *e, const char *name, int want)
{
	int id;

	if (want >= 0)
		jobs_reserve(e, want + 1);
	else if (e->job_free.count == 0)
		jobs_reserve(e, e->njobs + 1);
	id = want >= 0 ? want : bitset_next(&e->job_free, 0);
	if (!bitset_test(&e->job_free, id))
		fatal("job slot %d is taken", id);
	bitset_clear(&e->job_free, id);
	memset(&e->jobs[id], 0, sizeof e->jobs[id]);
	e->jobs[id].live = true;
	bufprintf(e->jobs[id].name, sizeof e->jobs[id].name, "%s", name);
	e->jobs[id].pin = -1;
	strmap_put(&e->names, e->jobs[id].name, id);
	return id;
}

int
job_new(struct engine *e, const char *name)
{
	return job_take(e, name, -1);
}

void
job_drop(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];

	strmap_del(&e->names, j->name);
	free(j->pod_first);
	free(j->leaves);
	free(j->vleaves);
	memset(j, 0, sizeof *j);
	bitset_set(&e->job_free, id);
}

/* ---- creation ---- */

static const char *const mode_names[] = {
	[ENGINE_HIVED] = "hived", [ENGINE_QUOTA] = "quota", [ENGINE_PRIVATE] = "private",
};

const char *
engine_mode_name(enum engine_mode m)
{
	return (unsigned)m < sizeof mode_names / sizeof mode_names[0] ? mode_names[m] : "?";
}

int
engine_mode_parse(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof mode_names / sizeof mode_names[0]; i++)
		if (strcmp(name, mode_names[i]) == 0)
			return (int)i;
	return -1;
}

char *
engine_mode_unknown(const char *name)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "unknown mode '%s'", name);
	suggest_hint(&sb, name, mode_names, sizeof mode_names / sizeof mode_names[0],
	    "modes");
	return strbuf_detach(&sb, NULL);
}

static void
pchain_init(struct engine *e, int chain)
{
	const struct spec *s = e->s;
	const struct spec_chain *ch = &s->chains[chain];
	struct pchain *pc = &e->pc[chain];
	int l, c, n, *lv, *par, *c0, *nc, cap[L1 + 1];
	unsigned char *ones;

	pc->top = ch->levels;
	pc->node_level = ch->node_level;
	pc->base = ch->level_first[ch->levels];
	n = 0;
	for (l = 1; l <= ch->levels; l++) {
		n += ch->level_count[l];
		bitset_init(&pc->fl_clean[l], ch->level_count[l]);
		bitset_init(&pc->fl_dirty[l], ch->level_count[l]);
		bitset_init(&pc->ub_clean[l], ch->level_count[l]);
		cap[l] = (int)spec_units(s, chain, l, 1);
		pc->units[l] = cap[l];
	}
	pc->ncells = n;
	lv = xcalloc((size_t)n, sizeof *lv);
	par = xcalloc((size_t)n, sizeof *par);
	c0 = xcalloc((size_t)n, sizeof *c0);
	nc = xcalloc((size_t)n, sizeof *nc);
	ones = xmalloc((size_t)n);
	memset(ones, 1, (size_t)n);
	for (c = 0; c < n; c++) {
		const struct spec_cell *sc = &s->cells[pc->base + c];
		lv[c] = sc->level;
		par[c] = sc->parent < 0 ? -1 : sc->parent - pc->base;
		c0[c] = sc->first_child < 0 ? -1 : sc->first_child - pc->base;
		nc[c] = sc->nchild;
	}
	view_init(&pc->t1, n, lv, par, c0, nc, cap);
	view_init(&pc->t2, n, lv, par, c0, nc, cap);
	view_reset(&pc->t1, ones);
	view_reset(&pc->t2, ones);
	free(lv);
	free(par);
	free(c0);
	free(nc);
	free(ones);
	for (c = 0; c < ch->level_count[ch->levels]; c++)
		e->p_free[pc->base + c] = 1;
	for (c = pc->base; c < pc->base + n; c++)
		phys_reindex(e, c);
}

/*
 * Build one view: roots[l] preassigned cells at each level l of a chain.
 * Children of each cell at level l+1 come first at level l, then the
 * roots of level l, so children stay contiguous.
 */
static int
vview_build(struct engine *e, int vc, int chain, int pin, const int *roots, int top)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	struct vview *w;
	int cnt[L1 + 1] = { 0 }, first[L1 + 1], l, n = 0, c, k, i;
	int *lv, *par, *c0, *nc, cap[L1 + 1];
	unsigned char *ones;

	for (l = top; l >= 1; l--) {
		int per = l < top ? e->s->types[ch->level_type[l + 1]].nchild : 0;
		cnt[l] = (l < top ? cnt[l + 1] * per : 0) + roots[l];
		first[l] = n;
		n += cnt[l];
	}
	e->views = xreallocarray(e->views, (size_t)e->nviews + 1, sizeof *e->views);
	w = &e->views[e->nviews];
	memset(w, 0, sizeof *w);
	w->vc = vc;
	w->chain = chain;
	w->pin = pin;
	w->base = e->nv;
	w->ncells = n;
	lv = xcalloc((size_t)n, sizeof *lv);
	par = xcalloc((size_t)n, sizeof *par);
	c0 = xcalloc((size_t)n, sizeof *c0);
	nc = xcalloc((size_t)n, sizeof *nc);
	for (l = top; l >= 1; l--) {
		/* children of level l+1 cells, then roots */
		int nparents = l < top ? cnt[l + 1] : 0;
		i = first[l];
		for (k = 0; k < nparents; k++) {
			int p = first[l + 1] + k, m;
			int pper = e->s->types[ch->level_type[l + 1]].nchild;
			c0[p] = i;
			nc[p] = pper;
			for (m = 0; m < pper; m++, i++) {
				lv[i] = l;
				par[i] = p;
			}
		}
		for (k = 0; k < roots[l]; k++, i++) {
			lv[i] = l;
			par[i] = -1;
		}
		cap[l] = (int)spec_units(e->s, chain, l, 1);
	}
	for (c = 0; c < n; c++)
		if (lv[c] == 1) {
			c0[c] = -1;
			nc[c] = 0;
		}
	view_init(&w->view, n, lv, par, c0, nc, cap);
	ones = xmalloc((size_t)(n ? n : 1));
	memset(ones, 1, (size_t)(n ? n : 1));
	view_reset(&w->view, ones);
	free(ones);
	free(lv);
	free(par);
	free(c0);
	free(nc);
	e->nv += n;
	return e->nviews++;
}

static void
vcells_alloc(struct engine *e)
{
	int n = e->nv, i, v;

	e->v_view = xcalloc((size_t)n + 1, sizeof(int));
	e->v_phys = xcalloc((size_t)n + 1, sizeof(int));
	e->v_used = xcalloc((size_t)n + 1, sizeof(int));
	e->v_bad = xcalloc((size_t)n + 1, sizeof(int));
	e->v_want = xcalloc((size_t)n + 1, sizeof(int));
	e->v_job = xcalloc((size_t)n + 1, sizeof(int));
	e->v_root = xcalloc((size_t)n + 1, 1);
	e->v_doomed = xcalloc((size_t)n + 1, 1);
	e->v_static = xcalloc((size_t)n + 1, 1);
	for (v = 0; v < n; v++)
		e->v_phys[v] = e->v_job[v] = -1;
	e->vc_used = xcalloc((size_t)e->s->nvcs + 1, sizeof(long long));
	e->vc_opp = xcalloc((size_t)e->s->nvcs + 1, sizeof(long long));
	e->vc_jobs = xcalloc((size_t)e->s->nvcs + 1, sizeof(int));
	e->vc_opp_jobs = xcalloc((size_t)e->s->nvcs + 1, sizeof(int));
	e->vc_assigned = xcalloc((size_t)(e->s->nvcs + 1) * L1, sizeof(int));
	e->vc_bound = xcalloc((size_t)(e->s->nvcs + 1) * L1, sizeof(int));
	e->vc_doomed = xcalloc((size_t)e->s->nvcs + 1, sizeof(int));
	for (i = 0; i < e->nviews; i++) {
		struct vview *w = &e->views[i];
		for (v = w->base; v < w->base + w->ncells; v++) {
			e->v_view[v] = i;
			e->v_root[v] = w->view.parent[v - w->base] < 0;
			if (e->v_root[v])
				e->vc_assigned[w->vc * L1 + w->view.level[v - w->base]]++;
		}
	}
}

static bool
theorem1_ok(const struct engine *e, int chain, int *bad_level)
{
	long long fr[L1] = { 0 };
	int l;

	for (l = 1; l <= e->s->chains[chain].levels; l++)
		fr[l] = e->pc[chain].fl_clean[l].count + e->pc[chain].fl_dirty[l].count;
	return theorem1_holds(e->s, chain, e->pc[chain].owed, fr, bad_level);
}

/*
 * Bind every preassigned (non-pinned) virtual cell for good, in buddy
 * order. Theorem 1 held at creation, so the free lists cover them all.
 */
static void
bind_roots_static(struct engine *e)
{
	int i, v;

	for (i = 0; i < e->nviews; i++) {
		struct vview *w = &e->views[i];
		if (w->pin >= 0)
			continue;
		for (v = w->base; v < w->base + w->ncells; v++)
			if (e->v_root[v] && !e->v_static[v]) {
				e->v_static[v] = 1;
				if (ensure_bound(e, v) < 0)
					fatal("static binding: cannot bind root %d", v);
			}
	}
}

int
engine_bind_static(struct engine *e, char **cause)
{
	int i;

	if (e->mode != ENGINE_HIVED)
		return 0;
	for (i = 0; i < e->njobs; i++)
		if (e->jobs[i].live) {
			*cause = xstrdup("static binding needs an engine without jobs");
			return -1;
		}
	bind_roots_static(e);
	e->bind_static = true;
	engine_debug_check(e, "bind_static");
	return 0;
}

bool
engine_binding_static(const struct engine *e)
{
	return e->mode == ENGINE_PRIVATE || e->bind_static;
}

struct engine *
engine_create(const struct spec *s, enum engine_mode mode, char **cause)
{
	struct engine *e = xcalloc(1, sizeof *e);
	int i, c, vc, k, l, bad;

	e->s = s;
	e->mode = mode;
	strmap_init(&e->names, STRMAP_BORROW);
	e->np = s->ncells;
	e->p_vbind = xmalloc((size_t)(e->np + 1) * sizeof(int));
	e->p_free = xcalloc((size_t)e->np + 1, 1);
	e->p_split = xcalloc((size_t)e->np + 1, 1);
	e->p_res = xcalloc((size_t)e->np + 1, 1);
	e->p_used = xcalloc((size_t)e->np + 1, sizeof(int));
	e->p_opp = xcalloc((size_t)e->np + 1, sizeof(int));
	e->p_bad = xcalloc((size_t)e->np + 1, sizeof(int));
	e->p_job = xmalloc((size_t)(e->np + 1) * sizeof(int));
	e->p_isopp = xcalloc((size_t)e->np + 1, 1);
	e->p_node = xmalloc((size_t)(e->np + 1) * sizeof(int));
	for (c = 0; c < e->np; c++) {
		int a = c, nl = s->chains[s->cells[c].chain].node_level;
		e->p_vbind[c] = e->p_job[c] = -1;
		while (a >= 0 && s->cells[a].level < nl)
			a = s->cells[a].parent;
		e->p_node[c] = (a >= 0 && s->cells[a].level == nl) ? a : -1;
	}
	e->pc = xcalloc((size_t)s->nchains + 1, sizeof *e->pc);
	for (i = 0; i < s->nchains; i++)
		pchain_init(e, i);
	e->st.gpus = s->gpus;

	/* views: per VC, one per chain it holds cells of, then one per pin */
	e->vc_views = xcalloc((size_t)s->nvcs + 1, sizeof(int));
	e->vc_quota = xcalloc((size_t)s->nvcs + 1, sizeof(long long));
	e->vc_gused = xcalloc((size_t)s->nvcs + 1, sizeof(long long));
	e->vc_prio = xcalloc((size_t)(s->nvcs + 1) * NPRIO, sizeof(int));
	for (vc = 0; vc < s->nvcs; vc++) {
		const struct spec_vc *sv = &s->vcs[vc];
		e->vc_views[vc] = e->nviews;
		for (i = 0; i < s->nchains; i++) {
			int roots[L1 + 1] = { 0 }, top = 0;
			for (k = 0; k < sv->ncells; k++)
				if (sv->cells[k].chain == i) {
					roots[sv->cells[k].level] += sv->cells[k].number;
					if (sv->cells[k].level > top)
						top = sv->cells[k].level;
				}
			if (top == 0)
				continue;
			vview_build(e, vc, i, -1, roots, top);
			for (l = 1; l <= top; l++) {
				e->pc[i].owed[l] += roots[l];
				e->vc_quota[vc] += roots[l] * spec_units(s, i, l, 1);
			}
		}
		for (k = 0; k < sv->npins; k++) {
			const struct spec_pin *pin = &s->pins[sv->pins[k]];
			const struct spec_cell *pcell = &s->cells[pin->cell];
			int roots[L1 + 1] = { 0 };
			roots[pcell->level] = 1;
			vview_build(e, vc, pcell->chain, sv->pins[k], roots, pcell->level);
			e->vc_quota[vc] += spec_units(s, pcell->chain, pcell->level, 1);
		}
	}
	e->vc_views[s->nvcs] = e->nviews;
	vcells_alloc(e);

	if (mode != ENGINE_QUOTA) {
		/* pinned cells are bound to their VC for good */
		for (i = 0; i < e->nviews; i++) {
			struct vview *w = &e->views[i];
			if (w->pin < 0)
				continue;
			bind_exact(e, w->base, s->pins[w->pin].cell);
			e->v_static[w->base] = 1;
		}
		for (i = 0; i < s->nchains; i++)
			if (!theorem1_ok(e, i, &bad)) {
				*cause = xasprintf("chain '%s' level %d: the VCs are assigned "
				    "more cells than the chain has",
				    s->types[s->chains[i].top_type].name, bad);
				engine_free(e);
				return NULL;
			}
		/* private mode: every VC owns its cells statically */
		if (mode == ENGINE_PRIVATE)
			bind_roots_static(e);
	}
	jobs_reserve(e, 64);
	engine_debug_check(e, "create");
	return e;
}

void
engine_free(struct engine *e)
{
	int i, l;

	if (e == NULL)
		return;
	for (i = 0; i < e->njobs; i++)
		if (e->jobs[i].live)
			job_drop(e, i);
	free(e->jobs);
	if (e->njobs)
		bitset_release(&e->job_free);
	strmap_release(&e->names);
	for (i = 0; e->pc && i < e->s->nchains; i++) {
		for (l = 1; l <= e->pc[i].top; l++) {
			bitset_release(&e->pc[i].fl_clean[l]);
			bitset_release(&e->pc[i].fl_dirty[l]);
			bitset_release(&e->pc[i].ub_clean[l]);
		}
		view_release(&e->pc[i].t1);
		view_release(&e->pc[i].t2);
	}
	free(e->pc);
	for (i = 0; i < e->nviews; i++)
		view_release(&e->views[i].view);
	free(e->views);
	free(e->vc_views);
	free(e->vc_quota);
	free(e->vc_gused);
	free(e->vc_prio);
	free(e->vc_used); free(e->vc_opp); free(e->vc_jobs); free(e->vc_opp_jobs);
	free(e->vc_assigned); free(e->vc_bound); free(e->vc_doomed);
	free(e->v_view); free(e->v_phys); free(e->v_used); free(e->v_bad);
	free(e->v_want); free(e->v_job); free(e->v_root); free(e->v_doomed);
	free(e->v_static);
	free(e->p_vbind); free(e->p_free); free(e->p_split); free(e->p_res);
	free(e->p_used); free(e->p_opp); free(e->p_bad); free(e->p_job);
	free(e->p_isopp); free(e->p_node);
	free(e);
}

const struct spec *
engine_spec(const struct engine *e)
{
	return e->s;
}

enum engine_mode
engine_mode(const struct engine *e)
{
	return e->mode;
}

/* ---- plans ---- */

void
engine_plan_init(struct engine_plan *p)
{
	memset(p, 0, sizeof *p);
	p->job = -1;
	p->chain = -1;
}

void
engine_plan_release(struct engine_plan *p)
{
	free(p->pod_first);
	free(p->leaves);
	free(p->victims);
	engine_plan_init(p);
}

static void
plan_reset(struct engine_plan *p)
{
	int *pf = p->pod_first, *lv = p->leaves;
	struct engine_victim *vi = p->victims;
	size_t lc = p->leaves_cap, vcap = p->victims_cap;

	engine_plan_init(p);
	p->pod_first = pf;
	p->leaves = lv;
	p->victims = vi;
	p->leaves_cap = lc;
	p->victims_cap = vcap;
}

static int
plan_fail(struct engine_plan *p, enum engine_fail f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
plan_fail(struct engine_plan *p, enum engine_fail f, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	bufprintf(p->why, sizeof p->why, "%s", sb.buf);
	strbuf_release(&sb);
	p->fail = f;
	p->nleaves = p->npods = 0;
	p->nvictims = 0;
	return -1;
}

static void
plan_victim(struct engine *e, struct engine_plan *p, int job, enum engine_victim_kind k)
{
	int i;

	for (i = 0; i < p->nvictims; i++)
		if (p->victims[i].job == job) {
			p->victims[i].kind = k;
			return;
		}
	XGROW(p->victims, p->victims_cap, (size_t)p->nvictims + 1);
	p->victims[p->nvictims].job = job;
	bufprintf(p->victims[p->nvictims].name, sizeof p->victims[0].name, "%s",
	    e->jobs[job].name);
	p->victims[p->nvictims].kind = k;
	p->nvictims++;
}

/* ---- snapshots for rollback (struct snap: engine-int.h) ---- */

struct txn {
	struct snap	*v;
	int		 n;
	size_t		 cap;
};

static void
txn_save(struct engine *e, struct txn *t, int id)
{
	struct ejob *j = &e->jobs[id];
	struct snap *sn;
	int i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return;
	XGROW(t->v, t->cap, (size_t)t->n + 1);
	sn = &t->v[t->n++];
	sn->id = id;
	sn->j = *j;
	sn->j.pod_first = xmalloc((size_t)(j->npods + 1) * sizeof(int));
	memcpy(sn->j.pod_first, j->pod_first, (size_t)(j->npods + 1) * sizeof(int));
	sn->j.leaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
	memcpy(sn->j.leaves, j->leaves, (size_t)j->nleaves * sizeof(int));
	if (j->vleaves) {
		sn->j.vleaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
		memcpy(sn->j.vleaves, j->vleaves, (size_t)j->nleaves * sizeof(int));
	}
}

static void
txn_free(struct txn *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].j.pod_first);
		free(t->v[i].j.leaves);
		free(t->v[i].j.vleaves);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* ---- release ---- */


/* Count a running job in its VC's priority histogram (d = +1 / -1). */
static void
prio_count(struct engine *e, const struct ejob *j, int d)
{
	e->vc_prio[j->vc * NPRIO + j->prio + 1] += d;
	if (j->prio < 0) {
		e->st.opp_jobs += d;
		e->vc_opp_jobs[j->vc] += d;
		e->vc_opp[j->vc] += (long long)d * j->nleaves;
	} else {
		e->st.jobs += d;
		e->vc_jobs[j->vc] += d;
		e->vc_used[j->vc] += (long long)d * j->nleaves;
	}
}

/* Does the VC run any job below this priority (a possible victim)? */
static bool
vc_has_lower(const struct engine *e, int vc, int prio)
{
	const int *h = e->vc_prio + vc * NPRIO;
	int i;

	for (i = 0; i <= prio; i++)
		if (h[i])
			return true;
	return false;
}

void
job_release(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];
	int i, chain = j->chain;
	bool opp = j->prio < 0;

	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], -1, false);
	if (j->vleaves) {
		for (i = 0; i < j->nleaves; i++)
			vleaf_set_job(e, j->vleaves[i], -1);
		for (i = 0; i < j->nleaves; i++)
			vleaf_prune(e, j->vleaves[i]);
	}
	if (e->mode == ENGINE_QUOTA && !opp)
		e->vc_gused[j->vc] -= j->nleaves;
	prio_count(e, j, -1);
	job_drop(e, id);
	if (!e->no_rebalance && e->mode == ENGINE_HIVED && chain >= 0 &&
	    e->pc[chain].nbad > 0)
		doom_rebalance(e, chain);
}

/*
 * Re-create a job exactly where a snapshot says it was. The caller has made
 * sure it fits (rollback: it was there; engine_restore_job: validated).
 */
void
job_restore(struct engine *e, const struct snap *sn)
{
	const struct ejob *s = &sn->j;
	struct ejob *j;
	int id = job_take(e, s->name, sn->id), i;
	bool opp = s->prio < 0;

	j = &e->jobs[id];
	*j = *s;
	j->live = true;
	j->pod_first = xmalloc((size_t)(s->npods + 1) * sizeof(int));
	memcpy(j->pod_first, s->pod_first, (size_t)(s->npods + 1) * sizeof(int));
	j->leaves = xmalloc((size_t)s->nleaves * sizeof(int) + 1);
	memcpy(j->leaves, s->leaves, (size_t)s->nleaves * sizeof(int));
	j->vleaves = NULL;
	if (s->vleaves) {
		j->vleaves = xmalloc((size_t)s->nleaves * sizeof(int) + 1);
		memcpy(j->vleaves, s->vleaves, (size_t)s->nleaves * sizeof(int));
		for (i = 0; i < s->nleaves; i++)
			vleaf_want(e, s->vleaves[i], true);
		for (i = 0; i < s->nleaves; i++)
			bind_exact(e, s->vleaves[i], s->leaves[i]);
		for (i = 0; i < s->nleaves; i++) {
			vleaf_set_job(e, s->vleaves[i], id);
			vleaf_want(e, s->vleaves[i], false);
		}
	}
	for (i = 0; i < s->nleaves; i++) {
		if (e->p_job[s->leaves[i]] >= 0)
			fatal("job_restore: leaf %d is in use", s->leaves[i]);
		phys_leaf_assign(e, s->leaves[i], id, opp);
	}
	if (e->mode == ENGINE_QUOTA && !opp)
		e->vc_gused[j->vc] += j->nleaves;
	prio_count(e, j, +1);
}

int
engine_release(struct engine *e, int job)
{
	if (job < 0 || job >= e->njobs || !e->jobs[job].live)
		return -1;
	job_release(e, job);
	engine_debug_check(e, "release");
	return 0;
}

int
engine_job_set_priority(struct engine *e, int job, int prio)
{
	struct ejob *j;

	if (job < 0 || job >= e->njobs || !e->jobs[job].live ||
	    prio < 0 || prio > ENGINE_PRIO_MAX || e->jobs[job].prio < 0)
		return -1;
	j = &e->jobs[job];
	prio_count(e, j, -1);
	j->prio = j->orig_prio = prio;
	prio_count(e, j, +1);
	engine_debug_check(e, "set priority");
	return 0;
}

/* Lazy preemption: the job gives up its virtual cells and runs on. */
static void
job_downgrade(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];
	int i, *vl = j->vleaves;

	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], -1, false);
	for (i = 0; i < j->nleaves; i++)
		vleaf_set_job(e, vl[i], -1);
	prio_count(e, j, -1);
	j->prio = ENGINE_PRIO_OPPORTUNISTIC;
	j->downgraded = true;
	j->vleaves = NULL;
	prio_count(e, j, +1);
	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], id, true);
	for (i = 0; i < j->nleaves; i++)
		vleaf_prune(e, vl[i]);
	free(vl);
}

/* ---- placement ---- */

static int
cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

/* Expand members into pod sizes, largest first; -1 on a malformed gang. */
static int
expand(const struct engine_req *r, int *sizes, int *total)
{
	int m, k, n = 0;

	*total = 0;
	if (r->nmembers < 1 || r->nmembers > ENGINE_MAX_MEMBERS)
		return -1;
	for (m = 0; m < r->nmembers; m++) {
		if (r->members[m].pods < 1 || r->members[m].gpus < 1 ||
		    r->members[m].pods > MAX_PODS - n)
			return -1;
		for (k = 0; k < r->members[m].pods; k++) {
			sizes[n++] = r->members[m].gpus;
			*total += r->members[m].gpus;
		}
	}
	qsort(sizes, (size_t)n, sizeof *sizes, cmp_desc);
	return n;
}

/* Place pods in view v; leaves (view-local) go to out. All or nothing. */
static int
view_place(struct view *v, const int *sizes, int npods, int *out)
{
	int i, n = 0, k;

	for (i = 0; i < npods; i++) {
		if (view_take_pod(v, sizes[i], out + n) < 0) {
			for (k = 0; k < n; k++)
				view_leaf_set(v, out[k], true);
			return -1;
		}
		n += sizes[i];
	}
	return 0;
}

enum tier { T_FREE, T_LOWER, T_ANY, T_IGNBAD };

/* Place on a scratch copy of a view whose leaves are available per tier. */
static int
scratch_place(struct engine *e, const struct view *shape, const int *sizes, int npods,
    int *out, unsigned char *(*avail)(struct engine *, const struct view *, void *),
    void *arg)
{
	struct view tmp;
	unsigned char *a;
	int rc;

	view_init(&tmp, shape->ncells, shape->level, shape->parent, shape->child0,
	    shape->nchild, shape->cap);
	a = avail(e, shape, arg);
	view_reset(&tmp, a);
	free(a);
	rc = view_place(&tmp, sizes, npods, out);
	view_release(&tmp);
	return rc;
}

struct vtier {
	int	base;
	int	tier;
	int	prio;
	int	vc;
};

static unsigned char *
vtier_avail(struct engine *e, const struct view *shape, void *arg)
{
	const struct vtier *t = arg;
	unsigned char *a = xcalloc((size_t)shape->ncells + 1, 1);
	int c, v, job;

	for (c = 0; c < shape->ncells; c++) {
		if (shape->level[c] != 1)
			continue;
		v = t->base + c;
		job = e->v_job[v];
		if (e->v_want[v])
			continue;
		if (t->tier != T_IGNBAD && e->v_bad[v])
			continue;
		if (t->tier == T_LOWER && job >= 0 && e->jobs[job].prio >= t->prio)
			continue;
		a[c] = 1;
	}
	return a;
}

/* Candidate views of a request, in order; returns how many. */
static int
candidate_views(const struct engine *e, const struct engine_req *r, int *out)
{
	int i, n = 0;

	for (i = e->vc_views[r->vc]; i < e->vc_views[r->vc + 1]; i++) {
		const struct vview *w = &e->views[i];
		if (r->pin >= 0 ? w->pin != r->pin : w->pin >= 0)
			continue;
		if (r->leaf_type >= 0 && e->s->chains[w->chain].leaf_type != r->leaf_type)
			continue;
		out[n++] = i;
	}
	return n;
}

static const char *
vc_name(const struct engine *e, int vc)
{
	return e->s->vcs[vc].name;
}

/*
 * The cell type a pod of g GPUs goes in (HiveD's affinity level) in the
 * first candidate view that has one, and how many cells of that type the
 * views hold; -1 when no view has a cell that large. Error messages name
 * the type, not the level number.
 */
static int
pod_cell_type(const struct engine *e, const int *views, int nv, int g, int *ncells)
{
	int i, l, t, type = -1;

	*ncells = 0;
	for (i = 0; i < nv; i++) {
		const struct vview *w = &e->views[views[i]];

		if ((l = view_pod_level(&w->view, g)) < 0)
			continue;
		t = e->s->chains[w->chain].level_type[l];
		if (type < 0)
			type = t;
		if (t == type)
			*ncells += w->view.count[l];
	}
	return type;
}

/*
 * Guaranteed placement inside the VC (hived, private). On success the
 * chosen virtual leaves are in vleaves (global ids), *view set, victims
 * (same-VC jobs of lower priority) listed in the plan.
 */
static int
place_in_vc(struct engine *e, const struct engine_req *r, const int *sizes, int npods,
    int total, int *vleaves, int *viewp, struct engine_plan *plan)
{
	int views[64], nv = candidate_views(e, r, views), i, k, tier, fits = 0;
	int type, ncells;
	struct vtier t;
	enum engine_fail f;

	if (nv == 0) {
		if (r->pin >= 0)
			return plan_fail(plan, ENGINE_EBADREQ, "vc '%s' does not hold pinned cell '%s'",
			    vc_name(e, r->vc), e->s->pins[r->pin].id);
		return plan_fail(plan, ENGINE_ENOTYPE, "vc '%s' has no cells of type '%s'",
		    vc_name(e, r->vc), r->leaf_type >= 0 ?
		    e->s->types[r->leaf_type].name : "any");
	}
	for (i = 0; i < nv; i++) {
		const struct view *v = &e->views[views[i]].view;
		bool ok = true;
		for (k = 0; k < npods; k++)
			if (view_pod_level(v, sizes[k]) < 0)
				ok = false;
		fits += ok;
	}
	if (fits == 0)
		return plan_fail(plan, ENGINE_ETOOBIG, "a pod of %d gpus is larger than any "
		    "cell vc '%s' holds", sizes[0], vc_name(e, r->vc));
	/* tier 0: free leaves, on the live view */
	for (i = 0; i < nv; i++) {
		struct vview *w = &e->views[views[i]];
		if (view_place(&w->view, sizes, npods, vleaves) == 0) {
			for (k = 0; k < total; k++)
				vleaves[k] += w->base;
			*viewp = views[i];
			return 0;
		}
	}
	/* tiers 1..3 on scratch copies: lower-priority victims, then diagnose;
	   each only when it can change the answer (they copy whole views) */
	for (tier = T_LOWER; tier <= T_IGNBAD; tier++)
		for (i = 0; i < nv; i++) {
			struct vview *w = &e->views[views[i]];
			if (tier == T_LOWER && !vc_has_lower(e, r->vc, r->priority))
				continue;
			if (tier == T_ANY && !e->diagnose)
				continue;
			if (tier == T_IGNBAD && w->nbad == 0)
				continue;
			t.base = w->base;
			t.tier = tier;
			t.prio = r->priority;
			t.vc = r->vc;
			if (scratch_place(e, &w->view, sizes, npods, vleaves, vtier_avail, &t) < 0)
				continue;
			if (tier == T_LOWER) {
				for (k = 0; k < total; k++) {
					vleaves[k] += w->base;
					if (e->v_job[vleaves[k]] >= 0)
						plan_victim(e, plan, e->v_job[vleaves[k]],
						    e->jobs[e->v_job[vleaves[k]]].lazy &&
						    e->mode == ENGINE_HIVED ?
						    ENGINE_VICTIM_LAZY : ENGINE_VICTIM_PREEMPT);
				}
				*viewp = views[i];
				return 0;
			}
			f = tier == T_ANY ? ENGINE_EPREEMPT : ENGINE_EBADONLY;
			if (f == ENGINE_EPREEMPT && r->pin >= 0)
				return plan_fail(plan, ENGINE_EPINBUSY, "pinned cell '%s' is busy: "
				    "room only by preempting jobs of priority >= %d",
				    e->s->pins[r->pin].id, r->priority);
			if (f == ENGINE_EPREEMPT)
				return plan_fail(plan, f, "vc '%s' is full: room only by preempting "
				    "jobs of priority >= %d", vc_name(e, r->vc), r->priority);
			return plan_fail(plan, f, "vc '%s' has room only on bad nodes",
			    vc_name(e, r->vc));
		}
	if (r->pin >= 0)
		return plan_fail(plan, ENGINE_EPINBUSY, "pinned cell '%s' has no room for %d gpus",
		    e->s->pins[r->pin].id, total);
	type = pod_cell_type(e, views, nv, sizes[0], &ncells);
	/* a dry run tried every tier: even with all the VC's cells free and
	   healthy the gang does not fit, so it never will */
	if (e->diagnose)
		return plan_fail(plan, ENGINE_ETOOBIG, "vc '%s' can never hold %d pod%s "
		    "of %d gpu%s: each takes a cell of type '%s' and it has %d",
		    vc_name(e, r->vc), npods, npods == 1 ? "" : "s", sizes[0],
		    sizes[0] == 1 ? "" : "s", e->s->types[type].name, ncells);
	return plan_fail(plan, ENGINE_EVCFULL, "vc '%s' has no room for %d pod%s of %d "
	    "gpu%s (each in a cell of type '%s')", vc_name(e, r->vc), npods,
	    npods == 1 ? "" : "s", sizes[0], sizes[0] == 1 ? "" : "s",
	    e->s->types[type].name);
}

struct ptier {
	int	base;
	int	chain;
	bool	guaranteed;	/* quota: opportunistic leaves count as free */
};

static unsigned char *
ptier_avail(struct engine *e, const struct view *shape, void *arg)
{
	const struct ptier *t = arg;
	unsigned char *a = xcalloc((size_t)shape->ncells + 1, 1);
	int c, p;

	for (c = 0; c < shape->ncells; c++) {
		if (shape->level[c] != 1)
			continue;
		p = t->base + c;
		if (e->p_bad[p])
			continue;
		if (e->p_job[p] >= 0 && !(t->guaranteed && e->p_isopp[p]))
			continue;
		a[c] = 1;
	}
	return a;
}

/*
 * Physical placement (opportunistic jobs; guaranteed jobs in quota mode):
 * idle leaves on unreserved nodes, then any idle leaves, then (guaranteed
 * only) leaves of opportunistic jobs, whose jobs become victims.
 */
static int
place_physical(struct engine *e, const struct engine_req *r, const int *sizes, int npods,
    int total, int *leaves, int *chainp, struct engine_plan *plan)
{
	int c, k, pass, any = 0, fits = 0;
	bool guaranteed = r->priority >= 0;

	/* a pod larger than any cell of its type's chains never fits */
	for (c = 0; c < e->s->nchains; c++)
		if ((r->leaf_type < 0 || e->s->chains[c].leaf_type == r->leaf_type) &&
		    view_pod_level(&e->pc[c].t1, sizes[0]) >= 0)
			fits = 1;
	for (c = 0; c < e->s->nchains && !fits; c++)
		if (r->leaf_type < 0 || e->s->chains[c].leaf_type == r->leaf_type)
			return plan_fail(plan, ENGINE_ETOOBIG, "a pod of %d gpus is larger "
			    "than any cell of the cluster", sizes[0]);
	for (pass = 0; pass < 3; pass++) {
		if (pass == 2 && !guaranteed)
			break;
		for (c = 0; c < e->s->nchains; c++) {
			struct pchain *pc = &e->pc[c];
			if (r->leaf_type >= 0 && e->s->chains[c].leaf_type != r->leaf_type)
				continue;
			any = 1;
			if (pass < 2) {
				struct view *v = pass == 0 ? &pc->t1 : &pc->t2;
				if (view_place(v, sizes, npods, leaves) < 0)
					continue;
				/* the other view learns of it when leaves are assigned;
				   undo here so the commit sees a consistent state */
				for (k = 0; k < total; k++)
					view_leaf_set(v, leaves[k], true);
			} else {
				struct ptier t = { pc->base, c, true };
				if (scratch_place(e, &pc->t2, sizes, npods, leaves, ptier_avail, &t) < 0)
					continue;
			}
			for (k = 0; k < total; k++) {
				leaves[k] += pc->base;
				if (e->p_job[leaves[k]] >= 0)
					plan_victim(e, plan, e->p_job[leaves[k]], ENGINE_VICTIM_PREEMPT);
			}
			*chainp = c;
			return 0;
		}
	}
	if (!any)
		return plan_fail(plan, ENGINE_ENOTYPE, "the cluster has no cells of type '%s'",
		    r->leaf_type >= 0 ? e->s->types[r->leaf_type].name : "any");
	if (guaranteed)
		return plan_fail(plan, ENGINE_EVCFULL, "no idle cells for %d pod(s) of %d gpus "
		    "in the cluster", npods, sizes[0]);
	return plan_fail(plan, ENGINE_ECLUSTERFULL, "no idle cells for %d pod(s) of %d gpus "
	    "anywhere in the cluster", npods, sizes[0]);
}

static void
plan_fill(struct engine *e, struct engine_plan *plan, int id)
{
	struct ejob *j = &e->jobs[id];

	plan->job = id;
	plan->chain = j->chain;
	plan->opportunistic = j->prio < 0;
	plan->npods = j->npods;
	plan->nleaves = j->nleaves;
	free(plan->pod_first);
	plan->pod_first = xmalloc((size_t)(j->npods + 1) * sizeof(int));
	memcpy(plan->pod_first, j->pod_first, (size_t)(j->npods + 1) * sizeof(int));
	XGROW(plan->leaves, plan->leaves_cap, (size_t)j->nleaves + 1);
	memcpy(plan->leaves, j->leaves, (size_t)j->nleaves * sizeof(int));
}

static int
validate(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	if (r->name == NULL || r->name[0] == '\0' || strlen(r->name) >= sizeof e->jobs[0].name)
		return plan_fail(plan, ENGINE_EBADREQ, "job name must be 1 to %zu characters",
		    sizeof e->jobs[0].name - 1);
	if (engine_job_find(e, r->name) >= 0)
		return plan_fail(plan, ENGINE_EBADREQ, "job '%s' exists", r->name);
	if (r->vc < 0 || r->vc >= e->s->nvcs)
		return plan_fail(plan, ENGINE_EBADREQ, "no such vc");
	if (r->priority < ENGINE_PRIO_OPPORTUNISTIC || r->priority > ENGINE_PRIO_MAX)
		return plan_fail(plan, ENGINE_EBADREQ, "priority %d is out of range -1..%d",
		    r->priority, ENGINE_PRIO_MAX);
	if (r->pin >= 0 && (r->pin >= e->s->npins || r->priority < 0))
		return plan_fail(plan, ENGINE_EBADREQ, r->pin >= e->s->npins ?
		    "no such pinned cell" : "opportunistic jobs cannot use pinned cells");
	if (r->pin >= 0 && e->mode == ENGINE_QUOTA)
		return plan_fail(plan, ENGINE_EBADREQ, "pinned cells need hived or private mode");
	if (r->leaf_type >= 0 && (r->leaf_type >= e->s->ntypes ||
	    !e->s->types[r->leaf_type].is_leaf))
		return plan_fail(plan, ENGINE_EBADREQ, "not a leaf cell type");
	return 0;
}

static int
alloc_internal(struct engine *e, const struct engine_req *r, struct engine_plan *plan,
    struct txn *tx)
{
	int sizes[MAX_PODS], npods, total, *leaves, view = -1, chain = -1, i, id, k, pf;
	bool in_vc;

	plan_reset(plan);
	if (validate(e, r, plan) < 0)
		return -1;
	npods = expand(r, sizes, &total);
	if (npods < 0)
		return plan_fail(plan, ENGINE_EBADREQ, "a gang needs 1 to %d members of at "
		    "least one pod of at least one gpu", ENGINE_MAX_MEMBERS);
	if (e->mode == ENGINE_QUOTA && r->priority >= 0 && e->diagnose &&
	    total > e->vc_quota[r->vc])
		return plan_fail(plan, ENGINE_ETOOBIG, "vc '%s' can never hold %d gpus: "
		    "its quota is %lld", vc_name(e, r->vc), total, e->vc_quota[r->vc]);
	if (e->mode == ENGINE_QUOTA && r->priority >= 0 &&
	    e->vc_gused[r->vc] + total > e->vc_quota[r->vc])
		return plan_fail(plan, ENGINE_EQUOTA, "vc '%s' would use %lld of its %lld gpus",
		    vc_name(e, r->vc), e->vc_gused[r->vc] + total, e->vc_quota[r->vc]);
	leaves = xmalloc((size_t)total * sizeof(int));
	in_vc = e->mode == ENGINE_PRIVATE || (e->mode == ENGINE_HIVED && r->priority >= 0);
	if (in_vc) {
		if (place_in_vc(e, r, sizes, npods, total, leaves, &view, plan) < 0)
			goto fail;
		chain = e->views[view].chain;
	} else if (place_physical(e, r, sizes, npods, total, leaves, &chain, plan) < 0)
		goto fail;

	/* victims first: same-VC lower priority, or opportunistic (quota) */
	for (i = 0; i < plan->nvictims; i++) {
		int vj = plan->victims[i].job;
		txn_save(e, tx, vj);
		if (plan->victims[i].kind == ENGINE_VICTIM_LAZY)
			job_downgrade(e, vj);
		else
			job_release(e, vj);
	}
	/* hold the chosen leaves against bad-cell binding and pruning (after
	   the victims: a downgraded victim must be free to unbind them) */
	if (in_vc)
		for (k = 0; k < total; k++)
			vleaf_want(e, leaves[k], true);

	id = job_new(e, r->name);
	{
		struct ejob *j = &e->jobs[id];
		j->vc = r->vc;
		j->prio = j->orig_prio = r->priority;
		j->lazy = r->lazy;
		j->chain = chain;
		j->pin = r->pin;
		j->npods = npods;
		j->nleaves = total;
		j->pod_first = xmalloc((size_t)(npods + 1) * sizeof(int));
		for (pf = 0, i = 0; i < npods; i++) {
			j->pod_first[i] = pf;
			pf += sizes[i];
		}
		j->pod_first[npods] = pf;
		j->leaves = xmalloc((size_t)total * sizeof(int));
	}
	if (in_vc) {
		int *vl = leaves;
		bool conflict = false;
		/* bind the chosen virtual leaves; opportunistic jobs met on the
		   physical side are preempted (their VC claims its cells) */
		for (k = 0; k < total; k++)
			if (ensure_bound(e, vl[k]) < 0)
				fatal("binding failed for a legal placement");
		for (k = 0; k < total; k++)
			if (e->v_bad[vl[k]])
				conflict = true;
		if (conflict) {
			/* only bad cells were left to bind: undo everything */
			for (k = 0; k < total; k++)
				vleaf_want(e, vl[k], false);
			for (k = 0; k < total; k++)
				vleaf_prune(e, vl[k]);
			job_drop(e, id);
			for (i = tx->n - 1; i >= 0; i--)
				if (e->jobs[tx->v[i].id].live)
					job_release(e, tx->v[i].id);
			for (i = 0; i < tx->n; i++)
				job_restore(e, &tx->v[i]);
			plan_fail(plan, ENGINE_EBADONLY, "vc '%s' has room only on bad nodes",
			    vc_name(e, r->vc));
			goto fail;
		}
		for (k = 0; k < total; k++) {
			int pl = e->v_phys[vl[k]], oj = e->p_job[pl];
			if (oj >= 0) {
				txn_save(e, tx, oj);
				plan_victim(e, plan, oj, ENGINE_VICTIM_PREEMPT);
				job_release(e, oj);
			}
		}
		for (k = 0; k < total; k++) {
			int pl = e->v_phys[vl[k]];
			e->jobs[id].leaves[k] = pl;
			vleaf_set_job(e, vl[k], id);
			vleaf_want(e, vl[k], false);
			phys_leaf_assign(e, pl, id, r->priority < 0);
		}
		e->jobs[id].vleaves = vl;
		leaves = NULL;
	} else {
		for (k = 0; k < total; k++) {
			e->jobs[id].leaves[k] = leaves[k];
			phys_leaf_assign(e, leaves[k], id, r->priority < 0);
		}
		if (e->mode == ENGINE_QUOTA && r->priority >= 0)
			e->vc_gused[r->vc] += total;
		free(leaves);
	}
	prio_count(e, &e->jobs[id], +1);
	plan_fill(e, plan, id);
	return id;
fail:
	free(leaves);
	return -1;
}

int
engine_alloc(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	struct txn tx = { 0 };
	int id, c;

	e->no_rebalance = true;
	id = alloc_internal(e, r, plan, &tx);
	e->no_rebalance = false;
	txn_free(&tx);
	if (e->mode == ENGINE_HIVED)
		for (c = 0; c < e->s->nchains; c++)
			if (e->pc[c].nbad > 0)
				doom_rebalance(e, c);
	engine_debug_check(e, "alloc");
	return id;
}

int
engine_place(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	struct engine_stats st = e->st;
	struct txn tx = { 0 };
	int id, i;

	e->no_rebalance = true;
	e->diagnose = true;
	id = alloc_internal(e, r, plan, &tx);
	e->diagnose = false;
	if (id >= 0) {
		job_release(e, id);
		/* restore victims; a downgraded one runs on as opportunistic
		   and must give that up first */
		for (i = tx.n - 1; i >= 0; i--) {
			if (e->jobs[tx.v[i].id].live)
				job_release(e, tx.v[i].id);
		}
		for (i = 0; i < tx.n; i++)
			job_restore(e, &tx.v[i]);
		plan->job = -1;
	}
	txn_free(&tx);
	e->no_rebalance = false;
	e->st = st;
	engine_debug_check(e, "place");
	return id >= 0 ? 0 : -1;
}

/* ---- health ---- */

int
engine_node_set_bad(struct engine *e, const char *node, bool bad, int *affected, int max)
{
	int n = spec_find_node(e->s, node), k, c, lo, hi, na = 0, i, j;
	const struct spec_node *sn;

	if (n < 0)
		return -1;
	sn = &e->s->nodes[n];
	for (k = 0; k < sn->ncells; k++) {
		c = sn->cells[k];
		leaf_range(e, c, &lo, &hi);
		for (i = lo; i <= hi; i++) {
			int jb = e->p_job[i];
			phys_set_bad(e, i, bad);
			if (bad && jb >= 0) {
				for (j = 0; j < na && j < max; j++)
					if (affected[j] == jb)
						break;
				if (j == na || j == max) {
					if (na < max)
						affected[na] = jb;
					na++;
				}
			}
		}
		if (e->mode == ENGINE_HIVED)
			doom_rebalance(e, p_chain(e, c));
	}
	engine_debug_check(e, "node health");
	return na;
}

/* ---- queries ---- */

int
engine_job_limit(const struct engine *e)
{
	return e->njobs;
}

bool
engine_job(const struct engine *e, int id, struct engine_job_info *info)
{
	const struct ejob *j;

	if (id < 0 || id >= e->njobs || !e->jobs[id].live)
		return false;
	j = &e->jobs[id];
	info->name = j->name;
	info->vc = j->vc;
	info->priority = j->prio;
	info->orig_priority = j->orig_prio;
	info->lazy = j->lazy;
	info->downgraded = j->downgraded;
	info->chain = j->chain;
	info->npods = j->npods;
	info->pod_first = j->pod_first;
	info->leaves = j->leaves;
	info->nleaves = j->nleaves;
	return true;
}

static bool
inside_bound(const struct engine *e, int c, int *vcp)
{
	for (c = e->s->cells[c].parent; c >= 0; c = e->s->cells[c].parent)
		if (e->p_vbind[c] >= 0) {
			*vcp = vv_of(e, e->p_vbind[c])->vc;
			return true;
		}
	return false;
}

void
engine_cell(const struct engine *e, int c, struct engine_cell_info *in)
{
	int vc = -1, v, a;

	memset(in, 0, sizeof *in);
	in->vc = -1;
	in->job = -1;
	v = e->p_vbind[c];
	if (v >= 0) {
		in->state = ENGINE_CELL_BOUND;
		in->vc = vv_of(e, v)->vc;
		/* doomed if this cell or the preassigned cell above it is */
		for (a = v; a >= 0; a = v_parent(e, a))
			if (e->v_doomed[a])
				in->doomed = true;
	} else if (inside_bound(e, c, &vc)) {
		in->state = ENGINE_CELL_RESERVED;
		in->vc = vc;
	} else if (e->p_split[c])
		in->state = ENGINE_CELL_SPLIT;
	else
		in->state = ENGINE_CELL_FREE;
	for (a = c; a >= 0; a = e->s->cells[a].parent)
		if (e->s->cells[a].pin >= 0 && e->s->pins[e->s->cells[a].pin].vc >= 0)
			in->pinned = true;
	in->leaves = (int)spec_units(e->s, p_chain(e, c), p_level(e, c), 1);
	in->used = e->p_used[c];
	in->opp = e->p_opp[c];
	in->bad = e->p_bad[c];
	if (e->s->cells[c].nchild == 0 && e->p_job[c] >= 0) {
		in->job = e->p_job[c];
		in->priority = e->jobs[in->job].prio;
	}
}

void
engine_leaf(const struct engine *e, int c, int *job, int *vc, int *bad)
{
	int v = e->p_vbind[c];

	*vc = -1;
	if (v >= 0)
		*vc = vv_of(e, v)->vc;
	else
		(void)inside_bound(e, c, vc);
	*job = e->s->cells[c].nchild == 0 ? e->p_job[c] : -1;
	*bad = e->p_bad[c];
}

unsigned long long
engine_use_serial(const struct engine *e)
{
	return e->use_serial;
}

int
engine_cell_vc(const struct engine *e, int c)
{
	int vc = -1;

	if (e->p_vbind[c] >= 0)
		return vv_of(e, e->p_vbind[c])->vc;
	(void)inside_bound(e, c, &vc);
	return vc;
}

int
engine_leaf_job(const struct engine *e, int leaf)
{
	return e->s->cells[leaf].nchild == 0 ? e->p_job[leaf] : -1;
}

void
engine_cell_use(const struct engine *e, int c, int *leaves, int *used, int *opp, int *bad)
{
	*leaves = e->pc[p_chain(e, c)].units[p_level(e, c)];
	*used = e->p_used[c];
	*opp = e->p_opp[c];
	*bad = e->p_bad[c];
}

void
engine_vc_usage(const struct engine *e, int vc, struct engine_vc_usage *u)
{
	int i, l;

	memset(u, 0, sizeof *u);
	if (vc < 0 || vc >= e->s->nvcs)
		return;
	/* counters kept by every mutation (invariant 9): no walk of cells or jobs */
	u->gpus = e->vc_quota[vc];
	for (l = 1; l <= SPEC_MAX_LEVELS; l++) {
		u->assigned[l] = e->vc_assigned[vc * L1 + l];
		u->bound[l] = e->vc_bound[vc * L1 + l];
	}
	u->doomed = e->vc_doomed[vc];
	if (e->mode != ENGINE_QUOTA)
		for (i = e->vc_views[vc]; i < e->vc_views[vc + 1]; i++)
			u->bad += e->views[i].nbad;
	u->jobs = e->vc_jobs[vc];
	u->used = e->vc_used[vc];
	u->opp_jobs = e->vc_opp_jobs[vc];
	u->opp = e->vc_opp[vc];
	u->free = u->gpus - u->used - u->bad;
	if (u->free < 0)
		u->free = 0;
}

void
engine_stats(const struct engine *e, struct engine_stats *st)
{
	*st = e->st;
}

long long
engine_free_cells(const struct engine *e, int chain, int level)
{
	if (chain < 0 || chain >= e->s->nchains || level < 1 || level > e->pc[chain].top)
		return 0;
	return e->pc[chain].fl_clean[level].count + e->pc[chain].fl_dirty[level].count;
}

long long
engine_owed_cells(const struct engine *e, int chain, int level)
{
	if (chain < 0 || chain >= e->s->nchains || level < 1 || level > e->pc[chain].top)
		return 0;
	return e->pc[chain].owed[level];
}

static const char *const fail_names[] = {
	[ENGINE_OK] = "ok", [ENGINE_EBADREQ] = "bad-request", [ENGINE_ENOTYPE] = "no-such-type",
	[ENGINE_ETOOBIG] = "too-big", [ENGINE_EVCFULL] = "vc-full",
	[ENGINE_EBADONLY] = "bad-nodes-only", [ENGINE_EPINBUSY] = "pinned-cell-busy",
	[ENGINE_EPREEMPT] = "needs-preemption", [ENGINE_ECLUSTERFULL] = "cluster-full",
	[ENGINE_EQUOTA] = "over-quota",
};

const char *
engine_fail_name(enum engine_fail f)
{
	return (unsigned)f < sizeof fail_names / sizeof fail_names[0] ? fail_names[f] : "?";
}

static const char *const state_names[] = {
	[ENGINE_CELL_FREE] = "free", [ENGINE_CELL_SPLIT] = "split",
	[ENGINE_CELL_BOUND] = "bound", [ENGINE_CELL_RESERVED] = "reserved",
};

const char *
engine_cell_state_name(enum engine_cell_state s)
{
	return (unsigned)s < 4 ? state_names[s] : "?";
}
