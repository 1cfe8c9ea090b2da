/*
 * view.h — a counted forest of cells with placement indices. Pure.
 *
 * A view is one tree-shaped resource pool: a VC's virtual cells of one chain,
 * one pinned cell, or a physical chain seen by opportunistic jobs. Cells sit
 * at levels 1 (leaf) .. top, numbered breadth-first per level so that a
 * cell's children are contiguous; roots may sit at any level. Each cell
 * counts its available leaves (`avail`); what "available" means is the
 * owner's business (free virtual GPU, idle physical GPU, ...).
 *
 * Placement of a pod of g leaves (view_take_pod): the pod lives inside one
 * cell of the lowest level L whose cells hold >= g leaves (HiveD's affinity
 * rule). That cell is chosen by
 *   1. best fit among partly available level-L cells: least avail >= g,
 *      lowest index on ties (fills holes, keeps whole cells whole), else
 *   2. buddy order: a fully available cell from the lowest level >= L that
 *      has a maximal one (one whose parent is not fully available), lowest
 *      index, descending by first child to level L (breaks the smallest
 *      whole block).
 * Inside it, leaves are taken child by child: the best-fitting child when
 * one holds the rest, else the child with most room, wholly.
 *
 * Ownership: a view owns its arrays. Indices are view-local cell ids.
 * Invariants (view_check):
 *  1. avail[c] == sum of avail over c's children; a leaf's avail is 0 or 1.
 *  2. part[l] holds key avail*count[l] + (c - first[l]) exactly for the
 *     level-l cells with 0 < avail < cap[l].
 *  3. maxf[l] holds (c - first[l]) exactly for the level-l cells with
 *     avail == cap[l] whose parent is a root-less or not fully available.
 */
#ifndef CELLAR_VIEW_H
#define CELLAR_VIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "core/bitset.h"
#include "spec/spec.h"

/* A cell of a view: its availability beside its shape, in one struct (the
   walks up and down read them together: one cache line, not five). */
struct view_cell {
	int		 avail;
	int		 parent;			/* -1 for roots */
	int		 child0;			/* first child, -1 for leaves */
	int		 nchild;
	int		 level;
};

struct view {
	int		 ncells;
	int		 top;				/* highest level */
	int		 first[SPEC_MAX_LEVELS + 2];	/* first cell of each level */
	int		 count[SPEC_MAX_LEVELS + 2];	/* cells at each level */
	int		 cap[SPEC_MAX_LEVELS + 2];	/* leaves per cell at each level */
	struct view_cell *cell;				/* ncells, one struct each */
	struct bitset	 part[SPEC_MAX_LEVELS + 2];
	struct bitset	 maxf[SPEC_MAX_LEVELS + 2];
};

/*
 * Create a view over ncells cells; shape arrays are copied. count[] and
 * first[] are derived from level[], which must be non-increasing in id
 * (top level first) with children contiguous. All cells start with avail 0.
 */
void	view_init(struct view *v, int ncells, const int *level, const int *parent,
	    const int *child0, const int *nchild, const int *cap_by_level);
/* Create a view of shape's cells and levels, every cell unavailable. */
void	view_init_like(struct view *v, const struct view *shape);
void	view_release(struct view *v);
/* Set each leaf's availability (indexed by leaf id; non-leaves ignored) and
   rebuild every count and index. */
void	view_reset(struct view *v, const unsigned char *leaf_avail);
/* Make a leaf available (+1) or not (-1); no-op if already so. */
void	view_leaf_set(struct view *v, int leaf, bool avail);
static inline bool
view_leaf_avail(const struct view *v, int leaf)
{
	return v->cell[leaf].avail != 0;
}
/* Lowest level whose cells hold >= g leaves, or -1 when none does. */
int	view_pod_level(const struct view *v, int g);
/* Choose the cell for a pod of g leaves (rules above); -1 if none. */
int	view_choose(const struct view *v, int g);
/*
 * Place a pod of g leaves: choose, take the leaves (they become
 * unavailable) and write their ids to out. Returns 0, or -1 with nothing
 * taken.
 */
int	view_take_pod(struct view *v, int g, int *out);
bool	view_check(const struct view *v, char *why, size_t len);

#endif
