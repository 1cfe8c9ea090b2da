/*
 * bitset.c — the summary-tree bitset of bitset.h. Every operation touches one
 * word per level, so set, clear and next cost O(log64 n).
 */
#include "core/bitset.h"

#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

void
bitset_init(struct bitset *b, int n)
{
	int k, words = n;

	memset(b, 0, sizeof *b);
	b->n = n;
	for (k = 0; k < BITSET_MAXLV; k++) {
		words = (words + 63) / 64;
		if (words < 1)
			words = 1;
		b->nwords[k] = words;
		b->lv[k] = xcalloc((size_t)words, sizeof(uint64_t));
		b->nlv = k + 1;
		if (words == 1)
			break;
	}
	if (b->nwords[b->nlv - 1] != 1)
		fatal("bitset of %d members is too large", n);
}

void
bitset_release(struct bitset *b)
{
	int k;

	for (k = 0; k < b->nlv; k++)
		free(b->lv[k]);
	memset(b, 0, sizeof *b);
}

void
bitset_clear_all(struct bitset *b)
{
	int k;

	for (k = 0; k < b->nlv; k++)
		memset(b->lv[k], 0, (size_t)b->nwords[k] * sizeof(uint64_t));
	b->count = 0;
}

void
bitset_set(struct bitset *b, int i)
{
	int k;
	uint64_t bit, *w;

	if (bitset_test(b, i))
		return;
	b->count++;
	for (k = 0; k < b->nlv; k++) {
		w = &b->lv[k][i >> 6];
		bit = (uint64_t)1 << (i & 63);
		if (*w != 0) {
			*w |= bit;
			return;
		}
		*w |= bit;
		i >>= 6;
	}
}

void
bitset_clear(struct bitset *b, int i)
{
	int k;
	uint64_t *w;

	if (!bitset_test(b, i))
		return;
	b->count--;
	for (k = 0; k < b->nlv; k++) {
		w = &b->lv[k][i >> 6];
		*w &= ~((uint64_t)1 << (i & 63));
		if (*w != 0)
			return;
		i >>= 6;
	}
}

int
bitset_next(const struct bitset *b, int from)
{
	int k, i;
	uint64_t w;

	if (from < 0)
		from = 0;
	if (from >= b->n || b->count == 0)
		return -1;
	/* Climb until a level has a set bit at or after our position. */
	i = from;
	for (k = 0; k < b->nlv; k++) {
		if ((i >> 6) >= b->nwords[k])
			return -1;
		w = b->lv[k][i >> 6] & (~(uint64_t)0 << (i & 63));
		if (w != 0) {
			i = (i & ~63) + __builtin_ctzll(w);
			break;
		}
		i = (i >> 6) + 1;
		if (k + 1 == b->nlv)
			return -1;
	}
	if (k == b->nlv)
		return -1;
	/* Descend: at each lower level take the first set bit of that word. */
	while (k > 0) {
		k--;
		w = b->lv[k][i];
		i = i * 64 + __builtin_ctzll(w);
	}
	return i < b->n ? i : -1;
}

bool
bitset_valid(const struct bitset *b)
{
	int k, j, c = 0;

	for (j = 0; j < b->nwords[0]; j++)
		c += __builtin_popcountll(b->lv[0][j]);
	if (c != b->count)
		return false;
	for (k = 0; k + 1 < b->nlv; k++)
		for (j = 0; j < b->nwords[k]; j++) {
			bool up = (b->lv[k + 1][j >> 6] >> (j & 63)) & 1;
			if (up != (b->lv[k][j] != 0))
				return false;
		}
	return true;
}
