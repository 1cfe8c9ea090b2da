/*
 * antman.h — AntMan's (OSDI'20) GPU sharing arithmetic for one GPU: how
 * much memory and SM time each job on it gets and how fast that lets it
 * go. Pure functions of their arguments (no state, no I/O); the emulator
 * (emu-antman.c) owns which jobs are on which GPU.
 *
 * On a GPU there is at most one host (a guaranteed job holding the GPU's
 * engine cell; the engine binds cells exclusively, so VC quotas and
 * sharing safety stay the engine's) and any number of guests
 * (opportunistic jobs that hold no cells and borrow the GPU).
 *
 * Controlled sharing (AntMan): the host gets its whole memory need and
 * SM demand, as if alone, less AM_RESIDUAL x the guests' SM share (the
 * interference GpuOpManager cannot hide). Guests split what is left: each
 * first its mem_min, in the given order, while it fits (a guest that does
 * not fit is paused, its memory moved to the host: it survives); then
 * the rest pro rata to what they still need; SM time pro rata to demand.
 * A guest runs at (SM granted / demand) x model_cap_speed(memory granted).
 *
 * Plain packing (no control, as a GPU shared without AntMan): jobs take
 * their memory in the given order (arrival on the GPU); the first whose
 * need no longer fits, and every later one, runs out of memory; the rest
 * share SM time as packed jobs do (share_packed_factor).
 *
 * Invariants (tests/unit/tsim-antman.c):
 *  1. Controlled: the host's factor is >= 1 - AM_RESIDUAL; memory granted
 *     never exceeds the GPU; SM granted sums to at most 1.
 *  2. A guest with factor 0 is paused (never a guest running at speed 0).
 *  3. A plan is a function of its inputs, order included.
 */
#ifndef CELLAR_ANTMAN_H
#define CELLAR_ANTMAN_H

#include <stdbool.h>

/* Speed a host loses per unit of SM time its guests get (ours: AntMan
   reports guaranteed jobs within a few percent of running alone). */
#define AM_RESIDUAL	0.03

/* One job on the GPU, as the plan sees it. */
struct am_user {
	bool		 host;		/* guaranteed, holds the GPU's cell */
	double		 sm;		/* SM demand now, 0..1 */
	double		 need;		/* GiB it would use now */
	int		 model;		/* model_table index (for the cap curve) */
};

/* What the plan gives it (same order as the input). */
struct am_grant {
	double		 factor;	/* x its speed alone; 0: paused */
	double		 mem;		/* GiB granted */
	double		 sm;		/* SM time granted */
	bool		 oom;		/* plain packing: out of memory */
};

/* Plan one GPU of gpu_mem GiB; the host, if any, must come first. */
void	 am_plan_gpu(const struct am_user *u, int n, double gpu_mem, bool control,
	    struct am_grant *out);

#endif
