/*
 * view.c — counted forests with best-fit and buddy indices (view.h). The
 * engine keeps one per VC and chain (virtual cells) and two per physical
 * chain (for opportunistic jobs); every placement decision is made here.
 */
#include "engine/view.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"

#define CAP(v, c)	((v)->cap[(v)->cell[c].level])
#define LOC(v, c)	((c) - (v)->first[(v)->cell[c].level])

/* The levels' counts and indices, once cell[].level is set. */
static void
view_levels(struct view *v, const int *cap_by_level)
{
	int c, l;

	for (l = 0; l <= SPEC_MAX_LEVELS + 1; l++)
		v->first[l] = -1;
	for (c = 0; c < v->ncells; c++) {
		l = v->cell[c].level;
		if (l > v->top)
			v->top = l;
		if (v->first[l] < 0)
			v->first[l] = c;
		v->count[l]++;
	}
	for (l = 1; l <= v->top; l++) {
		v->cap[l] = cap_by_level[l];
		if (v->first[l] < 0)
			v->first[l] = 0;
		bitset_init(&v->part[l], v->count[l] * (v->cap[l] > 1 ? v->cap[l] : 1));
		bitset_init(&v->maxf[l], v->count[l]);
	}
}

void
view_init(struct view *v, int ncells, const int *level, const int *parent,
    const int *child0, const int *nchild, const int *cap_by_level)
{
	int c;

	memset(v, 0, sizeof *v);
	v->ncells = ncells;
	v->cell = xcalloc((size_t)(ncells ? ncells : 1), sizeof *v->cell);
	for (c = 0; c < ncells; c++) {
		v->cell[c].level = level[c];
		v->cell[c].parent = parent[c];
		v->cell[c].child0 = child0[c];
		v->cell[c].nchild = nchild[c];
	}
	view_levels(v, cap_by_level);
}

void
view_init_like(struct view *v, const struct view *shape)
{
	int c;

	memset(v, 0, sizeof *v);
	v->ncells = shape->ncells;
	v->cell = xcalloc((size_t)(v->ncells ? v->ncells : 1), sizeof *v->cell);
	for (c = 0; c < v->ncells; c++) {
		v->cell[c] = shape->cell[c];
		v->cell[c].avail = 0;
	}
	view_levels(v, shape->cap);
}

void
view_release(struct view *v)
{
	int l;

	for (l = 1; l <= v->top; l++) {
		bitset_release(&v->part[l]);
		bitset_release(&v->maxf[l]);
	}
	free(v->cell);
	memset(v, 0, sizeof *v);
}

static inline bool
full(const struct view *v, int c)
{
	return v->cell[c].avail == CAP(v, c);
}

static inline void
part_update(struct view *v, int c, int old, int new)
{
	int l = v->cell[c].level, cap = v->cap[l];

	if (old > 0 && old < cap)
		bitset_clear(&v->part[l], old * v->count[l] + LOC(v, c));
	if (new > 0 && new < cap)
		bitset_set(&v->part[l], new * v->count[l] + LOC(v, c));
}

static inline void
maxf_update(struct view *v, int c)
{
	int p = v->cell[c].parent;

	if (full(v, c) && (p < 0 || !full(v, p)))
		bitset_set(&v->maxf[v->cell[c].level], LOC(v, c));
	else
		bitset_clear(&v->maxf[v->cell[c].level], LOC(v, c));
}

void
view_reset(struct view *v, const unsigned char *leaf_avail)
{
	int c, l, k;

	for (l = 1; l <= v->top; l++) {
		bitset_clear_all(&v->part[l]);
		bitset_clear_all(&v->maxf[l]);
	}
	/* Bottom-up: ids are ordered top level first, so walk backwards. */
	for (c = v->ncells - 1; c >= 0; c--) {
		if (v->cell[c].level == 1)
			v->cell[c].avail = leaf_avail[c] ? 1 : 0;
		else {
			v->cell[c].avail = 0;
			for (k = 0; k < v->cell[c].nchild; k++)
				v->cell[c].avail += v->cell[v->cell[c].child0 + k].avail;
		}
		part_update(v, c, 0, v->cell[c].avail);
	}
	for (c = 0; c < v->ncells; c++)
		maxf_update(v, c);
}

void
view_leaf_set(struct view *v, int leaf, bool avail)
{
	int d = avail ? 1 : -1, c, old, k, n = 0;
	int flipped[SPEC_MAX_LEVELS + 2];

	if ((v->cell[leaf].avail != 0) == avail)
		return;
	for (c = leaf; c >= 0; c = v->cell[c].parent) {
		old = v->cell[c].avail;
		v->cell[c].avail = old + d;
		part_update(v, c, old, old + d);
		if ((old == CAP(v, c)) != (old + d == CAP(v, c)))
			flipped[n++] = c;
	}
	/* Fullness changed on these cells: their own and their children's
	   "maximal free" status may have changed. */
	while (n-- > 0) {
		c = flipped[n];
		maxf_update(v, c);
		for (k = 0; k < v->cell[c].nchild; k++)
			maxf_update(v, v->cell[c].child0 + k);
	}
}

int
view_pod_level(const struct view *v, int g)
{
	int l;

	for (l = 1; l <= v->top; l++)
		if (v->cap[l] >= g && v->count[l] > 0)
			return l;
	return -1;
}

int
view_choose(const struct view *v, int g)
{
	int L = view_pod_level(v, g), l, i, c;

	if (L < 0 || g <= 0)
		return -1;
	/* 1. best fit among partly available cells of level L */
	if (g < v->cap[L]) {
		i = bitset_next(&v->part[L], g * v->count[L]);
		if (i >= 0)
			return v->first[L] + i % v->count[L];
	}
	/* 2. the smallest whole block, broken down to level L */
	for (l = L; l <= v->top; l++) {
		if (v->maxf[l].count == 0)
			continue;
		c = v->first[l] + bitset_next(&v->maxf[l], 0);
		while (v->cell[c].level > L)
			c = v->cell[c].child0;
		return c;
	}
	return -1;
}

/* Take g available leaves inside c (g <= avail[c]); append them to out. */
static void
fill(struct view *v, int c, int g, int *out, int *n)
{
	int k, ch, best, most;

	if (v->cell[c].level == 1) {
		out[(*n)++] = c;
		view_leaf_set(v, c, false);
		return;
	}
	while (g > 0) {
		best = most = -1;
		for (k = 0; k < v->cell[c].nchild; k++) {
			ch = v->cell[c].child0 + k;
			if (v->cell[ch].avail >= g &&
			    (best < 0 || v->cell[ch].avail < v->cell[best].avail))
				best = ch;
			if (v->cell[ch].avail > 0 &&
			    (most < 0 || v->cell[ch].avail > v->cell[most].avail))
				most = ch;
		}
		if (best >= 0) {
			fill(v, best, g, out, n);
			return;
		}
		g -= v->cell[most].avail;
		fill(v, most, v->cell[most].avail, out, n);
	}
}

int
view_take_pod(struct view *v, int g, int *out)
{
	int c = view_choose(v, g), n = 0;

	if (c < 0)
		return -1;
	fill(v, c, g, out, &n);
	return 0;
}

bool
view_check(const struct view *v, char *why, size_t len)
{
	int c, k, sum, l, cap, keys;

	for (c = 0; c < v->ncells; c++) {
		l = v->cell[c].level;
		cap = v->cap[l];
		if (l == 1) {
			if (v->cell[c].avail < 0 || v->cell[c].avail > 1)
				goto bad_leaf;
		} else {
			for (sum = 0, k = 0; k < v->cell[c].nchild; k++)
				sum += v->cell[v->cell[c].child0 + k].avail;
			if (sum != v->cell[c].avail) {
				bufprintf(why, len, "view cell %d: avail %d, children sum %d",
				    c, v->cell[c].avail, sum);
				return false;
			}
		}
		if (v->cell[c].avail > 0 && v->cell[c].avail < cap &&
		    !bitset_test(&v->part[l], v->cell[c].avail * v->count[l] + LOC(v, c))) {
			bufprintf(why, len, "view cell %d missing from its bucket", c);
			return false;
		}
		{
			int p = v->cell[c].parent;
			bool want = full(v, c) && (p < 0 || !full(v, p));
			if (want != bitset_test(&v->maxf[l], LOC(v, c))) {
				bufprintf(why, len, "view cell %d: maximal-free set wrong", c);
				return false;
			}
		}
	}
	for (l = 1; l <= v->top; l++) {
		for (keys = 0, c = v->first[l]; c < v->first[l] + v->count[l]; c++)
			keys += v->cell[c].avail > 0 && v->cell[c].avail < v->cap[l];
		if (keys != v->part[l].count) {
			bufprintf(why, len, "view level %d: %d bucket keys, %d partial cells",
			    l, v->part[l].count, keys);
			return false;
		}
	}
	return true;
bad_leaf:
	bufprintf(why, len, "view leaf %d: avail %d", c, v->cell[c].avail);
	return false;
}
