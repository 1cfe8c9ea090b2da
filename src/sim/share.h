/*
 * share.h — GPU sharing arithmetic for the emulator: which members of a
 * sharing group run in a time slice, how fast jobs packed onto the same
 * GPUs go, and whether a pack fits in GPU memory. Pure functions of their
 * arguments (no state, no I/O); the emulator (emu-share.c) owns the groups.
 *
 * A sharing group is the set of jobs of one VC, all of one GPU count g,
 * that share one node's g-GPU slots (Gandiva's "same affinity"): the hosts
 * hold engine cells (each host is one slot: the engine keeps binding
 * cells, VC quotas count only the hosts' GPUs, so sharing safety is the
 * engine's as before), the guests hold none and borrow the hosts' slots.
 * Members never span VCs.
 *
 * Two ways to share the slots:
 *  - time-slicing: each slice, the first `slots` members in round-robin
 *    order run alone at full speed, the others are suspended (share 1).
 *  - packing: every member runs; the lowest-utilization members are
 *    paired on one slot, and each member of a pair runs at
 *    share_packed_factor of its speed, attaining half the slot's time.
 *
 * Invariants (tests/unit/tsim-share.c):
 *  1. The shares of the running members sum to `slots` (when there are at
 *     least as many members), so service attained == busy GPU time.
 *  2. A plan is a function of its inputs (order included), nothing else.
 *  3. Packing never puts more than two members on one slot, and only when
 *     members <= 2 x slots.
 *  4. Packing never pairs members of different priorities: a job is never
 *     slowed for one of a lower priority (the caller's round-robin order
 *     puts higher priorities first, so slicing never suspends one for a
 *     lower one either).
 */
#ifndef CELLAR_SHARE_H
#define CELLAR_SHARE_H

#include <stdbool.h>

/* One member as the plan sees it, in round-robin order. */
struct share_member {
	int		 job;
	double		 util;		/* 0..1 alone on its GPUs; > 1: no profile */
	double		 mem;		/* GiB per GPU at peak */
	int		 prio;		/* priority tier (struct job's priority) */
};

/* What a plan gives one member (same order as the input). */
struct share_slot {
	bool		 run;
	double		 factor;	/* x its alone speed while it runs */
	double		 share;		/* x its GPUs' time it attains */
	int		 partner;	/* packed with this member index, else -1 */
};

/*
 * Speed, as a fraction of its alone speed, of a job of utilization u
 * packed with others whose utilizations sum (its own included) to
 * total, n jobs in all: the GPU's capacity divided by demand when demand
 * exceeds it, less a fixed cost of sharing a GPU (context switches,
 * caches) per co-runner and a contention cost that grows with the excess
 * demand. See share.c for the constants and where they come from.
 */
double	 share_packed_factor(double u, double total, int n);

/*
 * Time-slicing plan: the first `slots` members (in the given round-robin
 * order) run alone, the rest are suspended.
 */
void	 share_plan_slice(const struct share_member *mb, int n, int slots,
	    struct share_slot *out);

/*
 * Packing plan: n - slots pairs made of the lowest-utilization members
 * (ties by job id), each pair on one slot; everyone runs. Returns false
 * (out untouched) when it cannot pack: more than 2 x slots members, a
 * member without a profile, members of different priorities, or a pair
 * that does not fit in gpu_mem GiB.
 */
bool	 share_plan_pack(const struct share_member *mb, int n, int slots,
	    double gpu_mem, struct share_slot *out);

/*
 * Aggregate progress rate (sum of speed factors x alone speeds) a
 * time-sliced group keeps: slots of the n members run at a time, less
 * the suspend+resume cost per slice (cost seconds per slice of `slice`
 * seconds). alone[] are the members' alone speeds.
 */
double	 share_slice_rate(const double *alone, int n, int slots, double cost,
	    double slice);

#endif
