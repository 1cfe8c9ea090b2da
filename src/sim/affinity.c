/*
 * affinity.c — the locality a job's GPUs would have if placed as compactly
 * as the cluster allows, for the speed model's --no-affinity-slowdown
 * (HiveD §5.2, Fig. 9's best case: a job with soft affinity loses no speed
 * when its pods are relaxed). Pure: reads the spec only.
 */
#include <stdlib.h>

#include "core/xmalloc.h"
#include "sim/emu.h"

enum locality
emu_compact_locality(const struct spec *s, int chain, int gpus)
{
	const struct spec_chain *ch = &s->chains[chain];
	int n = gpus < ch->level_count[1] ? gpus : ch->level_count[1], i, *leaves;
	enum locality loc;

	if (n <= 0)
		return LOC_SWITCH;
	/* cells are numbered breadth-first, so the chain's first n leaves
	   lie in the lowest cell (or the fewest cells) that hold n */
	leaves = xcalloc((size_t)n, sizeof *leaves);
	for (i = 0; i < n; i++)
		leaves[i] = ch->level_first[1] + i;
	loc = emu_locality(s, leaves, n);
	free(leaves);
	return loc;
}
