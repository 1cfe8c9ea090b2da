/*
 * engine-health.c — bad hardware: a node marked bad or good
 * (engine_node_set_bad), and doomed cells (HiveD).
 *
 * When a chain's healthy free cells can no longer cover what its VCs are
 * still owed, some VC must end up with bad hardware whatever the binding;
 * HiveD binds ("dooms") a bad free cell to such a VC right away, so the
 * VC's scheduler sees the loss instead of discovering it when binding
 * fails. doom_rebalance() recomputes this from scratch for one chain after
 * any health change: it releases every doom, then, level by level from the
 * top, dooms bad free cells while the owed cells exceed the healthy ones.
 */
#include <string.h>

#include "engine/engine-int.h"

/* Healthy level-k cells inside c. */
static long long
healthy_units(const struct engine *e, int c, int k)
{
	const struct spec_cell *sc = &e->s->cells[c];
	long long n = 0;
	int i;

	if (e->pcs[c].bad == 0)
		return spec_units(e->s, sc->chain, sc->level, k);
	if (sc->level <= k)
		return 0;
	for (i = 0; i < sc->nchild; i++)
		n += healthy_units(e, sc->first_child + i, k);
	return n;
}

static long long
healthy_free(const struct engine *e, int chain, int k)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	const struct pchain *pc = &e->pc[chain];
	long long n = 0;
	int j, i;

	for (j = k; j <= ch->levels; j++) {
		n += pc->fl_clean[j].count * spec_units(e->s, chain, j, k);
		for (i = bitset_next(&pc->fl_dirty[j], 0); i >= 0;
		    i = bitset_next(&pc->fl_dirty[j], i + 1))
			n += healthy_units(e, ch->level_first[j] + i, k);
	}
	return n;
}

static long long
owed_units(const struct engine *e, int chain, int k)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	long long n = 0;
	int j;

	for (j = k; j <= ch->levels; j++)
		n += e->pc[chain].owed[j] * spec_units(e->s, chain, j, k);
	return n;
}

/* A bad level-k cell inside a free cell (most bad leaves first), or -1. */
static int
bad_free_cell(const struct engine *e, int chain, int k)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	const struct pchain *pc = &e->pc[chain];
	int j, i, c, best = -1, m;

	for (j = k; j <= ch->levels && best < 0; j++)
		for (i = bitset_next(&pc->fl_dirty[j], 0); i >= 0;
		    i = bitset_next(&pc->fl_dirty[j], i + 1)) {
			c = ch->level_first[j] + i;
			if (e->pcs[c].bad > 0 && (best < 0 || e->pcs[c].bad > e->pcs[best].bad))
				best = c;
		}
	if (best < 0)
		return -1;
	/* descend to level k along the baddest child */
	while (e->s->cells[best].level > k) {
		const struct spec_cell *sc = &e->s->cells[best];
		c = sc->first_child;
		for (m = 1; m < sc->nchild; m++)
			if (e->pcs[sc->first_child + m].bad > e->pcs[c].bad)
				c = sc->first_child + m;
		best = c;
	}
	return best;
}

/* An unbound non-pinned root at (chain, k) of the VC owed most there. */
static int
owed_root(const struct engine *e, int chain, int k)
{
	int i, v, best = -1, bestn = 0, n;

	for (i = 0; i < e->nviews; i++) {
		const struct vview *w = &e->views[i];
		int first = -1;
		if (w->chain != chain || w->pin >= 0)
			continue;
		n = 0;
		for (v = w->base; v < w->base + w->ncells; v++)
			if (e->vcs[v].root && e->vcs[v].phys < 0 &&
			    w->view.cell[v - w->base].level == k) {
				if (first < 0)
					first = v;
				n++;
			}
		if (n > bestn) {
			bestn = n;
			best = first;
		}
	}
	return best;
}

void
doom_rebalance(struct engine *e, int chain)
{
	const struct spec_chain *ch = &e->s->chains[chain];
	int i, v, k, x;

	if (e->mode != ENGINE_HIVED)
		return;
	/* 1. release every doom of the chain (in-use cells stay bound) */
	for (i = 0; i < e->nviews; i++) {
		const struct vview *w = &e->views[i];
		if (w->chain != chain || w->pin >= 0)
			continue;
		for (v = w->base; v < w->base + w->ncells; v++)
			if (e->vcs[v].root && e->vcs[v].doomed) {
				doom_set(e, v, false);
				if (e->vcs[v].used == 0 && e->vcs[v].want == 0 && !e->vcs[v].keep)
					unbind_cell(e, v);
			}
	}
	/* 2. doom top-down while owed cells exceed healthy free ones */
	for (k = ch->levels; k >= 1; k--) {
		while (e->pc[chain].owed[k] > 0 &&
		    owed_units(e, chain, k) > healthy_free(e, chain, k)) {
			x = bad_free_cell(e, chain, k);
			v = owed_root(e, chain, k);
			if (x < 0 || v < 0)
				break;
			buddy_take_exact(e, x);
			e->pc[chain].owed[k]--;
			bind_cell(e, v, x);
			doom_set(e, v, true);
		}
	}
}

/* A node marked bad or good by hand or by a health hook: its leaves
   follow (engine.h). */
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
			int jb = e->pcs[i].job;
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
