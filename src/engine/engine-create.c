/*
 * engine-create.c — an engine from a spec (engine_create, engine_free):
 * the physical chains' indexes, each VC's virtual views and cells, and
 * static binding (engine_bind_static: HiveD Fig. 10's baseline).
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/strmap.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

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
	pc->stale = xcalloc((size_t)n, 1);
	pc->stale_v = xcalloc((size_t)n, sizeof *pc->stale_v);
	free(lv);
	free(par);
	free(c0);
	free(nc);
	free(ones);
	for (c = 0; c < ch->level_count[ch->levels]; c++)
		e->pcs[pc->base + c].free = 1;
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

	e->vcs = xcalloc((size_t)n + 1, sizeof *e->vcs);
	for (v = 0; v < n; v++)
		e->vcs[v].phys = e->vcs[v].job = -1;
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
			e->vcs[v].view = i;
			e->vcs[v].root = w->view.cell[v - w->base].parent < 0;
			if (e->vcs[v].root)
				e->vc_assigned[w->vc * L1 + w->view.cell[v - w->base].level]++;
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
			if (e->vcs[v].root && !e->vcs[v].keep) {
				e->vcs[v].keep = 1;
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

int
engine_set_borrow(struct engine *e, char **cause)
{
	int i;

	if (e->mode != ENGINE_QUOTA) {
		*cause = xasprintf("borrowing needs quota mode, not '%s'",
		    engine_mode_name(e->mode));
		return -1;
	}
	for (i = 0; i < e->njobs; i++)
		if (e->jobs[i].live) {
			*cause = xstrdup("borrowing needs an engine without jobs");
			return -1;
		}
	e->borrow = true;
	engine_debug_check(e, "set_borrow");
	return 0;
}

bool
engine_borrow(const struct engine *e)
{
	return e->borrow;
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
	e->pcs = xcalloc((size_t)e->np + 1, sizeof *e->pcs);
	for (c = 0; c < e->np; c++) {
		int a = c, nl = s->chains[s->cells[c].chain].node_level;
		e->pcs[c].vbind = e->pcs[c].job = -1;
		while (a >= 0 && s->cells[a].level < nl)
			a = s->cells[a].parent;
		e->pcs[c].node = (a >= 0 && s->cells[a].level == nl) ? a : -1;
	}
	e->pc = xcalloc((size_t)s->nchains + 1, sizeof *e->pc);
	for (i = 0; i < s->nchains; i++)
		pchain_init(e, i);
	e->st.gpus = s->gpus;

	/* views: per VC, one per chain it holds cells of, then one per pin */
	e->vc_views = xcalloc((size_t)s->nvcs + 1, sizeof(int));
	e->vc_quota = xcalloc((size_t)s->nvcs + 1, sizeof(long long));
	e->vc_gused = xcalloc((size_t)s->nvcs + 1, sizeof(long long));
	e->vc_borrowed = xcalloc((size_t)s->nvcs + 1, sizeof(long long));
	e->vc_prio = xcalloc((size_t)(s->nvcs + 1) * ENGINE_NPRIO, sizeof(int));
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
			e->vcs[w->base].keep = 1;
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
	engine_jobs_reserve(e, 64);
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
		free(e->pc[i].stale);
		free(e->pc[i].stale_v);
	}
	free(e->pc);
	for (i = 0; i < e->nviews; i++)
		view_release(&e->views[i].view);
	free(e->views);
	free(e->vc_views);
	free(e->vc_quota);
	free(e->vc_gused);
	free(e->vc_borrowed);
	free(e->vc_prio);
	free(e->vc_used); free(e->vc_opp); free(e->vc_jobs); free(e->vc_opp_jobs);
	free(e->vc_assigned); free(e->vc_bound); free(e->vc_doomed);
	free(e->vcs);
	free(e->pcs);
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
