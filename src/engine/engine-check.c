/*
 * engine-check.c — engine_check(): every numbered invariant of engine.h,
 * recomputed from scratch. Debug and test builds (CELLAR_DEBUG) run it
 * after every mutation through engine_debug_check().
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

#define FAIL(...) do { bufprintf(why, len, __VA_ARGS__); return false; } while (0)

static bool
check_counters(const struct engine *e, char *why, size_t len)
{
	const struct spec *s = e->s;
	int c, k, u, o, b;

	for (c = s->ncells - 1; c >= 0; c--) {
		const struct spec_cell *sc = &s->cells[c];
		if (sc->nchild == 0) {
			int j = e->pcs[c].job;
			u = j >= 0 && !e->pcs[c].isopp;
			o = j >= 0 && e->pcs[c].isopp;
			b = e->pcs[c].bad;
			if (b < 0 || b > 1)
				FAIL("leaf %d: bad count %d", c, b);
			if (j >= 0 && (j >= e->njobs || !e->jobs[j].live))
				FAIL("leaf %d: used by dead job %d", c, j);
		} else {
			u = o = b = 0;
			for (k = 0; k < sc->nchild; k++) {
				u += e->pcs[sc->first_child + k].used;
				o += e->pcs[sc->first_child + k].opp;
				b += e->pcs[sc->first_child + k].bad;
			}
		}
		if (u != e->pcs[c].used || o != e->pcs[c].opp || b != e->pcs[c].bad)
			FAIL("cell %d: counters used/opp/bad %d/%d/%d, leaves say %d/%d/%d",
			    c, e->pcs[c].used, e->pcs[c].opp, e->pcs[c].bad, u, o, b);
	}
	return true;
}

static bool
check_views(const struct engine *e, char *why, size_t len)
{
	int i, c, v;

	for (i = 0; i < e->s->nchains; i++) {
		const struct pchain *pc = &e->pc[i];
		if (!view_check(&pc->t1, why, len) || !view_check(&pc->t2, why, len))
			return false;
		for (c = 0, v = 0; c < pc->ncells; c++)
			v += pc->stale[c] != 0;
		if (v != pc->nstale)
			FAIL("chain %d: %d leaves marked stale, %d listed", i, v, pc->nstale);
		for (c = 0; c < pc->nstale; c++)
			if (!pc->stale[pc->stale_v[c]])
				FAIL("chain %d: listed leaf %d not marked stale", i, pc->stale_v[c]);
		for (c = 0; c < pc->ncells; c++) {
			int p = pc->base + c, node = e->pcs[p].node;
			bool idle;
			if (e->s->cells[p].nchild)
				continue;
			idle = e->pcs[p].job < 0 && e->pcs[p].bad == 0;
			if (pc->stale[c])	/* phys_opp_flush applies it */
				continue;
			if (view_leaf_avail(&pc->t2, c) != idle)
				FAIL("leaf %d: idle view says %d", p, pc->t2.cell[c].avail);
			if (view_leaf_avail(&pc->t1, c) != (idle && !(node >= 0 && e->pcs[node].res)))
				FAIL("leaf %d: unreserved-idle view wrong", p);
		}
		for (c = 0; c < pc->ncells; c++) {
			int p = pc->base + c;
			bool r;
			if (e->pcs[p].node != p)
				continue;
			r = e->pcs[p].vbind >= 0 || e->pcs[p].split || e->pcs[p].used > 0;
			if (r != (e->pcs[p].res != 0))
				FAIL("node cell %d: reserved flag stale", p);
		}
	}
	for (i = 0; i < e->nviews; i++) {
		const struct vview *w = &e->views[i];
		if (!view_check(&w->view, why, len))
			return false;
		for (v = w->base; v < w->base + w->ncells; v++) {
			if (w->view.cell[v - w->base].level != 1)
				continue;
			if (view_leaf_avail(&w->view, v - w->base) !=
			    (e->vcs[v].job < 0 && e->vcs[v].bad == 0 && e->vcs[v].want == 0))
				FAIL("virtual leaf %d: view availability stale", v);
		}
	}
	return true;
}

static bool
check_binding(const struct engine *e, char *why, size_t len)
{
	int v, p, par;

	for (v = 0; v < e->nv; v++) {
		p = e->vcs[v].phys;
		if (p < 0) {
			if (e->vcs[v].used || e->vcs[v].doomed || e->vcs[v].keep || e->vcs[v].bad)
				FAIL("virtual cell %d is held but unbound", v);
			continue;
		}
		if (e->pcs[p].vbind != v)
			FAIL("virtual %d -> physical %d is not mutual", v, p);
		if (p_level(e, p) != v_level(e, v) || p_chain(e, p) != vv_of(e, v)->chain)
			FAIL("virtual %d bound across levels or chains", v);
		par = v_parent(e, v);
		if (par >= 0 && e->vcs[par].phys != e->s->cells[p].parent)
			FAIL("virtual %d: parent not bound to the physical parent", v);
		if (!(e->vcs[v].used || e->vcs[v].doomed || e->vcs[v].keep || e->vcs[v].want ||
		    (e->vcs[v].bad > 0 && par >= 0 && e->vcs[par].phys >= 0)))
			FAIL("virtual cell %d is bound but not in use", v);
		if (v_nchild(e, v) == 0 && (e->pcs[p].bad != 0) != (e->vcs[v].bad != 0))
			FAIL("virtual leaf %d: bad mark disagrees with physical %d", v, p);
		if (v_nchild(e, v) == 0 && e->vcs[v].job >= 0 && e->pcs[p].job != e->vcs[v].job)
			FAIL("virtual leaf %d: job %d, physical leaf has %d", v,
			    e->vcs[v].job, e->pcs[p].job);
	}
	for (p = 0; p < e->np; p++) {
		v = e->pcs[p].vbind;
		if (v >= 0 && e->vcs[v].phys != p)
			FAIL("physical %d -> virtual %d is not mutual", p, v);
		/* a bad leaf under a bound cell must be bound (marked) */
		if (e->s->cells[p].nchild == 0 && e->pcs[p].bad && v < 0) {
			int a;
			for (a = e->s->cells[p].parent; a >= 0; a = e->s->cells[a].parent)
				if (e->pcs[a].vbind >= 0)
					FAIL("bad leaf %d inside bound cell %d is not marked", p, a);
		}
	}
	return true;
}

static bool
check_buddy(const struct engine *e, char *why, size_t len)
{
	const struct spec *s = e->s;
	int c, a, k, nfree_kids;

	if (e->mode == ENGINE_QUOTA)
		return true;
	for (c = 0; c < s->ncells; c++) {
		const struct spec_cell *sc = &s->cells[c];
		if (e->pcs[c].free) {
			if (e->pcs[c].vbind >= 0 || e->pcs[c].split)
				FAIL("free cell %d is bound or split", c);
			for (a = sc->parent; a >= 0; a = s->cells[a].parent)
				if (!e->pcs[a].split)
					FAIL("free cell %d has an unsplit ancestor %d", c, a);
		}
		if (e->pcs[c].split) {
			for (nfree_kids = 0, k = 0; k < sc->nchild; k++)
				nfree_kids += e->pcs[sc->first_child + k].free;
			if (nfree_kids == sc->nchild)
				FAIL("split cell %d has all children free (unmerged buddies)", c);
			if (e->pcs[c].vbind >= 0)
				FAIL("split cell %d is bound", c);
		}
		if (sc->parent < 0 && !e->pcs[c].free && !e->pcs[c].split && e->pcs[c].vbind < 0)
			FAIL("top-level cell %d is neither free, split nor bound", c);
		/* a split cell's children are each free, split or bound */
		if (sc->parent >= 0 && e->pcs[sc->parent].split && !e->pcs[c].free &&
		    !e->pcs[c].split && e->pcs[c].vbind < 0)
			FAIL("cell %d under split %d is neither free, split nor bound",
			    c, sc->parent);
		/* index sets */
		{
			const struct pchain *pc = &e->pc[sc->chain];
			const struct spec_chain *ch = &s->chains[sc->chain];
			int loc = c - ch->level_first[sc->level], l = sc->level;
			bool clean = e->pcs[c].bad == 0 && e->pcs[c].opp == 0;
			bool ub = clean && e->pcs[c].vbind < 0 && sc->parent >= 0 &&
			    e->pcs[sc->parent].vbind >= 0;
			if (bitset_test(&pc->fl_clean[l], loc) != (e->pcs[c].free && clean) ||
			    bitset_test(&pc->fl_dirty[l], loc) != (e->pcs[c].free && !clean) ||
			    bitset_test(&pc->ub_clean[l], loc) != ub)
				FAIL("cell %d: free-list or clean-child index stale", c);
		}
	}
	return true;
}

static bool
check_theorem1(const struct engine *e, char *why, size_t len)
{
	const struct spec *s = e->s;
	int i, l, v, bad;
	long long owed[L1], fr[L1];

	if (e->mode == ENGINE_QUOTA)
		return true;
	for (i = 0; i < s->nchains; i++) {
		memset(owed, 0, sizeof owed);
		for (v = 0; v < e->nv; v++)
			if (e->vcs[v].root && e->vcs[v].phys < 0 && vv_of(e, v)->chain == i &&
			    vv_of(e, v)->pin < 0)
				owed[v_level(e, v)]++;
		for (l = 1; l <= s->chains[i].levels; l++)
			if (owed[l] != e->pc[i].owed[l])
				FAIL("chain %d level %d: owed counter %lld, actual %lld",
				    i, l, e->pc[i].owed[l], owed[l]);
		for (l = 1; l <= s->chains[i].levels; l++)
			fr[l] = e->pc[i].fl_clean[l].count + e->pc[i].fl_dirty[l].count;
		if (!theorem1_holds(s, i, owed, fr, &bad))
			FAIL("theorem 1 broken: chain '%s' level %d owes more cells than "
			    "are free", s->types[s->chains[i].top_type].name, bad);
	}
	return true;
}

static bool
check_jobs(const struct engine *e, char *why, size_t len)
{
	const struct spec *s = e->s;
	long long *gused = xcalloc((size_t)(2 * s->nvcs) + 1, sizeof *gused);
	long long *lent = gused + s->nvcs;	/* invariant 10: borrowed GPUs */
	int id, k, pod, g, L, a, b;
	bool ok = true;

	for (id = 0; id < e->njobs && ok; id++) {
		const struct ejob *j = &e->jobs[id];
		if (!j->live) {
			if (!bitset_test(&e->job_free, id)) {
				bufprintf(why, len, "job slot %d dead but not free", id);
				ok = false;
			}
			continue;
		}
		if (engine_job_find(e, j->name) != id) {
			bufprintf(why, len, "job '%s' missing from the name map", j->name);
			ok = false;
			break;
		}
		for (k = 0; k < j->nleaves && ok; k++) {
			int p = j->leaves[k];
			if (e->pcs[p].job != id || (e->pcs[p].isopp != 0) != (j->prio < 0)) {
				bufprintf(why, len, "job '%s' leaf %d not held as such", j->name, p);
				ok = false;
			}
			if (j->vleaves && (e->vcs[j->vleaves[k]].job != id ||
			    e->vcs[j->vleaves[k]].phys != p ||
			    vv_of(e, j->vleaves[k])->vc != j->vc)) {
				bufprintf(why, len, "job '%s' virtual leaf %d not bound to %d",
				    j->name, j->vleaves[k], p);
				ok = false;
			}
			if (p_chain(e, p) != j->chain) {
				bufprintf(why, len, "job '%s' spans chains", j->name);
				ok = false;
			}
		}
		if (e->mode == ENGINE_HIVED && j->prio >= 0 && j->vleaves == NULL) {
			bufprintf(why, len, "guaranteed job '%s' has no virtual cells", j->name);
			ok = false;
		}
		if (j->borrowed && (!e->borrow || j->prio < 0)) {
			bufprintf(why, len, "job '%s' is borrowed %s", j->name, e->borrow ?
			    "but opportunistic" : "without borrowing");
			ok = false;
		}
		if (j->prio >= 0)
			(j->borrowed ? lent : gused)[j->vc] += j->nleaves;
		/* invariant 7: each pod inside one cell of its level */
		for (pod = 0; pod < j->npods && ok; pod++) {
			g = j->pod_first[pod + 1] - j->pod_first[pod];
			for (L = 1; L <= s->chains[j->chain].levels; L++)
				if (spec_units(s, j->chain, L, 1) >= g)
					break;
			a = j->leaves[j->pod_first[pod]];
			for (k = j->pod_first[pod] + 1; k < j->pod_first[pod + 1]; k++) {
				b = j->leaves[k];
				while (a != b) {
					if (s->cells[a].level <= s->cells[b].level)
						a = s->cells[a].parent;
					else
						b = s->cells[b].parent;
				}
			}
			if (s->cells[a].level > L) {
				bufprintf(why, len, "job '%s' pod %d of %d gpus spans a level-%d "
				    "cell (should fit level %d)", j->name, pod, g,
				    s->cells[a].level, L);
				ok = false;
			}
		}
	}
	if (ok && e->mode == ENGINE_QUOTA)
		for (k = 0; k < s->nvcs; k++) {
			if (gused[k] != e->vc_gused[k] || gused[k] > e->vc_quota[k]) {
				bufprintf(why, len, "vc '%s' quota use %lld (counter %lld, "
				    "quota %lld)", s->vcs[k].name, gused[k], e->vc_gused[k],
				    e->vc_quota[k]);
				ok = false;
			} else if (lent[k] != e->vc_borrowed[k]) {
				bufprintf(why, len, "vc '%s' borrowed %lld gpus (counter %lld)",
				    s->vcs[k].name, lent[k], e->vc_borrowed[k]);
				ok = false;
			}
		}
	free(gused);
	return ok;
}

/* Invariant 9: the per-VC usage counters, recounted from cells and jobs. */
static bool
check_vc_usage(const struct engine *e, char *why, size_t len)
{
	int vc, i, v, l, j, bad;

	for (vc = 0; vc < e->s->nvcs; vc++) {
		long long used = 0, opp = 0;
		int jobs = 0, opp_jobs = 0, doomed = 0, bound[L1] = { 0 };

		for (i = e->vc_views[vc]; i < e->vc_views[vc + 1]; i++) {
			const struct vview *w = &e->views[i];

			bad = 0;
			for (v = w->base; v < w->base + w->ncells; v++) {
				l = w->view.cell[v - w->base].level;
				if (e->vcs[v].root) {
					bound[l] += e->vcs[v].phys >= 0;
					doomed += e->vcs[v].doomed != 0;
				}
				if (l == 1)
					bad += e->vcs[v].bad != 0;
			}
			if (bad != w->nbad)
				FAIL("vc %d view %d: %d bad leaves counted, %d marked",
				    vc, i, w->nbad, bad);
		}
		for (j = 0; j < e->njobs; j++) {
			const struct ejob *jb = &e->jobs[j];

			if (!jb->live || jb->vc != vc)
				continue;
			if (jb->prio >= 0) {
				jobs++;
				used += jb->nleaves;
			} else {
				opp_jobs++;
				opp += jb->nleaves;
			}
		}
		if (used != e->vc_used[vc] || opp != e->vc_opp[vc] ||
		    jobs != e->vc_jobs[vc] || opp_jobs != e->vc_opp_jobs[vc])
			FAIL("vc %d: counted %lld/%lld GPUs in %d/%d jobs, jobs say "
			    "%lld/%lld in %d/%d", vc, e->vc_used[vc], e->vc_opp[vc],
			    e->vc_jobs[vc], e->vc_opp_jobs[vc], used, opp, jobs, opp_jobs);
		if (doomed != e->vc_doomed[vc])
			FAIL("vc %d: %d doomed cells counted, %d marked", vc,
			    e->vc_doomed[vc], doomed);
		for (l = 1; l < L1; l++)
			if (bound[l] != e->vc_bound[vc * L1 + l])
				FAIL("vc %d level %d: %d bound cells counted, %d bound",
				    vc, l, e->vc_bound[vc * L1 + l], bound[l]);
	}
	return true;
}

bool
engine_check(const struct engine *e, char *why, size_t len)
{
	return check_counters(e, why, len) && check_views(e, why, len) &&
	    check_binding(e, why, len) && check_buddy(e, why, len) &&
	    check_theorem1(e, why, len) && check_jobs(e, why, len) &&
	    check_vc_usage(e, why, len);
}

#ifdef CELLAR_DEBUG
void
engine_debug_check(struct engine *e, const char *where)
{
	char why[512];

	if (!engine_check(e, why, sizeof why))
		fatal("engine_check after %s: %s", where, why);
}
#else
void
engine_debug_check(struct engine *e, const char *where)
{
	(void)e;
	(void)where;
}
#endif
