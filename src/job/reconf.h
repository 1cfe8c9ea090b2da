/*
 * reconf.h — carry running jobs over to a changed spec (reconfiguration).
 * Pure: no I/O; `now` is an argument.
 *
 * When cellar starts (or `load`s) a spec that differs from the one its jobs
 * were placed on, every job that holds cells is taken over by a fresh engine
 * built from the new spec, following HiveD's rule:
 *   - kept: its GPUs still exist (same cell addresses) and still fit its
 *     VC's assignment; it keeps running where it is;
 *   - downgraded: its GPUs exist but no longer fit the VC's assignment (or
 *     quota); it keeps running as an opportunistic job, preemptible;
 *   - requeued: a GPU is gone, or not even idle for an opportunistic job;
 *     it is preempted and waits again (checkpoint kept);
 *   - cancelled: its VC is gone from the new spec. This happens only with
 *     `force`; without it reconf_apply refuses and names the VCs.
 * Guaranteed jobs are adopted first, highest priority first, so that the
 * VCs' cells go to their own jobs before anyone is downgraded. Pending jobs
 * keep waiting (their VC index remapped), or are cancelled with their VC.
 *
 * Every decision other than "kept" is returned as an event-log record
 * (job/record.h) for the caller to store and report.
 *
 * Ownership: the caller owns jobs (updated in place: vc, state, engine_id,
 * opportunistic), both specs and the engine; *recs is malloc'ed.
 */
#ifndef CELLAR_RECONF_H
#define CELLAR_RECONF_H

#include <stdbool.h>

#include "engine/engine.h"
#include "job/job.h"
#include "job/record.h"

struct reconf_stats {
	int	kept, downgraded, requeued, cancelled;
};

/*
 * Move jobs placed on spec `from` (placements[i] is job i's, nleaves 0 when
 * it holds none) into engine e, built from the new spec in any mode.
 * Returns 0, or -1 with a message in why (nothing changed) when the new
 * spec removes a VC that still has jobs and force is false.
 */
int	reconf_apply(const struct spec *from, struct engine *e, struct job *jobs,
	    int njobs, const struct engine_placement *placements, bool force,
	    double now, struct rec **recs, int *nrecs, struct reconf_stats *st,
	    char *why, size_t len);

#endif
