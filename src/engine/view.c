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

#define CAP(v, c)	((v)->cap[(v)->level[c]])
#define LOC(v, c)	((c) - (v)->first[(v)->level[c]])

static int *
dupints(const int *a, int n)
{
	int *p = xmalloc((size_t)(n ? n : 1) * sizeof *p);

	memcpy(p, a, (size_t)n * sizeof *p);
	return p;
}

void
view_init(struct view *v, int ncells, const int *level, const int *parent,
    const int *child0, const int *nchild, const int *cap_by_level)
{
	int c, l;

	memset(v, 0, sizeof *v);
	v->ncells = ncells;
	v->level = dupints(level, ncells);
	v->parent = dupints(parent, ncells);
	v->child0 = dupints(child0, ncells);
	v->nchild = dupints(nchild, ncells);
	v->avail = xcalloc((size_t)(ncells ? ncells : 1), sizeof *v->avail);
	for (l = 0; l <= SPEC_MAX_LEVELS + 1; l++)
		v->first[l] = -1;
	for (c = 0; c < ncells; c++) {
		l = level[c];
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
view_release(struct view *v)
{
	int l;

	for (l = 1; l <= v->top; l++) {
		bitset_release(&v->part[l]);
		bitset_release(&v->maxf[l]);
	}
	free(v->level);
	free(v->parent);
	free(v->child0);
	free(v->nchild);
	free(v->avail);
	memset(v, 0, sizeof *v);
}

static inline bool
full(const struct view *v, int c)
{
	return v->avail[c] == CAP(v, c);
}

static inline void
part_update(struct view *v, int c, int old, int new)
{
	int l = v->level[c], cap = v->cap[l];

	if (old > 0 && old < cap)
		bitset_clear(&v->part[l], old * v->count[l] + LOC(v, c));
	if (new > 0 && new < cap)
		bitset_set(&v->part[l], new * v->count[l] + LOC(v, c));
}

static inline void
maxf_update(struct view *v, int c)
{
	int p = v->parent[c];

	if (full(v, c) && (p < 0 || !full(v, p)))
		bitset_set(&v->maxf[v->level[c]], LOC(v, c));
	else
		bitset_clear(&v->maxf[v->level[c]], LOC(v, c));
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
		if (v->level[c] == 1)
			v->avail[c] = leaf_avail[c] ? 1 : 0;
		else {
			v->avail[c] = 0;
			for (k = 0; k < v->nchild[c]; k++)
				v->avail[c] += v->avail[v->child0[c] + k];
		}
		part_update(v, c, 0, v->avail[c]);
	}
	for (c = 0; c < v->ncells; c++)
		maxf_update(v, c);
}

void
view_leaf_set(struct view *v, int leaf, bool avail)
{
	int d = avail ? 1 : -1, c, old, k, n = 0;
	int flipped[SPEC_MAX_LEVELS + 2];

	if ((v->avail[leaf] != 0) == avail)
		return;
	for (c = leaf; c >= 0; c = v->parent[c]) {
		old = v->avail[c];
		v->avail[c] = old + d;
		part_update(v, c, old, old + d);
		if ((old == CAP(v, c)) != (old + d == CAP(v, c)))
			flipped[n++] = c;
	}
	/* Fullness changed on these cells: their own and their children's
	   "maximal free" status may have changed. */
	while (n-- > 0) {
		c = flipped[n];
		maxf_update(v, c);
		for (k = 0; k < v->nchild[c]; k++)
			maxf_update(v, v->child0[c] + k);
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
		while (v->level[c] > L)
			c = v->child0[c];
		return c;
	}
	return -1;
}

/* Take g available leaves inside c (g <= avail[c]); append them to out. */
static void
fill(struct view *v, int c, int g, int *out, int *n)
{
	int k, ch, best, most;

	if (v->level[c] == 1) {
		out[(*n)++] = c;
		view_leaf_set(v, c, false);
		return;
	}
	while (g > 0) {
		best = most = -1;
		for (k = 0; k < v->nchild[c]; k++) {
			ch = v->child0[c] + k;
			if (v->avail[ch] >= g &&
			    (best < 0 || v->avail[ch] < v->avail[best]))
				best = ch;
			if (v->avail[ch] > 0 &&
			    (most < 0 || v->avail[ch] > v->avail[most]))
				most = ch;
		}
		if (best >= 0) {
			fill(v, best, g, out, n);
			return;
		}
		g -= v->avail[most];
		fill(v, most, v->avail[most], out, n);
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
		l = v->level[c];
		cap = v->cap[l];
		if (l == 1) {
			if (v->avail[c] < 0 || v->avail[c] > 1)
				goto bad_leaf;
		} else {
			for (sum = 0, k = 0; k < v->nchild[c]; k++)
				sum += v->avail[v->child0[c] + k];
			if (sum != v->avail[c]) {
				bufprintf(why, len, "view cell %d: avail %d, children sum %d",
				    c, v->avail[c], sum);
				return false;
			}
		}
		if (v->avail[c] > 0 && v->avail[c] < cap &&
		    !bitset_test(&v->part[l], v->avail[c] * v->count[l] + LOC(v, c))) {
			bufprintf(why, len, "view cell %d missing from its bucket", c);
			return false;
		}
		{
			int p = v->parent[c];
			bool want = full(v, c) && (p < 0 || !full(v, p));
			if (want != bitset_test(&v->maxf[l], LOC(v, c))) {
				bufprintf(why, len, "view cell %d: maximal-free set wrong", c);
				return false;
			}
		}
	}
	for (l = 1; l <= v->top; l++) {
		for (keys = 0, c = v->first[l]; c < v->first[l] + v->count[l]; c++)
			keys += v->avail[c] > 0 && v->avail[c] < v->cap[l];
		if (keys != v->part[l].count) {
			bufprintf(why, len, "view level %d: %d bucket keys, %d partial cells",
			    l, v->part[l].count, keys);
			return false;
		}
	}
	return true;
bad_leaf:
	bufprintf(why, len, "view leaf %d: avail %d", c, v->avail[c]);
	return false;
}
