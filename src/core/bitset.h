/*
 * bitset.h — a fixed-size set of small integers with fast "next member at or
 * after i" (a 64-ary summary tree over the bits, after van Emde Boas-lite).
 *
 * The engine keeps every ordered index (free lists, free-count buckets) in
 * bitsets rather than linked lists: membership alone decides order (lowest
 * index first), so an index is a pure function of the engine's logical
 * state, and undoing a change restores it exactly.
 *
 * Ownership: a bitset owns its words; bitset_release frees them.
 * Invariants:
 *  1. Bit j of summary level k+1 is set iff word j of level k is non-zero.
 *  2. count == number of members.
 */
#ifndef CELLAR_BITSET_H
#define CELLAR_BITSET_H

#include <stdbool.h>
#include <stdint.h>

#define BITSET_MAXLV 5

struct bitset {
	int		 n;		/* universe: members are 0 .. n-1 */
	int		 nlv;		/* levels in use (1 .. BITSET_MAXLV) */
	int		 count;
	uint64_t	*lv[BITSET_MAXLV];
	int		 nwords[BITSET_MAXLV];
};

void	bitset_init(struct bitset *b, int n);
void	bitset_release(struct bitset *b);
void	bitset_clear_all(struct bitset *b);
/* Add i; no-op when present. */
void	bitset_set(struct bitset *b, int i);
/* Remove i; no-op when absent. */
void	bitset_clear(struct bitset *b, int i);
static inline bool
bitset_test(const struct bitset *b, int i)
{
	return (b->lv[0][i >> 6] >> (i & 63)) & 1;
}
/* The smallest member >= from, or -1. */
int	bitset_next(const struct bitset *b, int from);
/* Debug: recount and verify the summaries; true when consistent. */
bool	bitset_valid(const struct bitset *b);

#endif
