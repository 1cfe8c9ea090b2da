/*
 * replay-db.h — a replay that records itself in the state store while it
 * runs, and picks up where it stopped after a crash.
 *
 * Write-ahead for the emulator: the emulated cluster is rebuilt from the
 * last committed checkpoint, so a checkpoint is simply everything that
 * changed since the previous one — jobs (every field, placement, emulator
 * state), the event log, new time-series points, the emulator's own state
 * and the run's clock — in one transaction, at a tick boundary. A kill at
 * any instant loses at most the ticks since the last commit, which the
 * deterministic emulator replays identically on resume.
 *
 * A run is resumed when the store holds an unfinished replay run with the
 * same spec text and the same parameters (the params JSON, byte for byte);
 * fresh starts a new run regardless. One process writes a run at a time.
 *
 * Ownership: an rdb borrows the store and the spec (both outlive it) and
 * owns what it loaded for a resume; rdb_release frees that.
 */
#ifndef CELLAR_REPLAY_DB_H
#define CELLAR_REPLAY_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/emu.h"
#include "sim/replay.h"
#include "store/store.h"

struct rdb {
	struct store		*st;
	const struct spec	*s;
	int64_t			 run;
	bool			 resumed;
	double			 resumed_at;	/* the run's clock when resumed */
	double			 now;		/* the clock of the last checkpoint */
	bool			 failed;	/* a checkpoint could not be written */
	int			 nseries;	/* series points already stored */
	long long		 commits;
	struct strbuf		 buf;
	/* Jobs the store holds a placement row for (as of our last commit,
	   or the transaction being written), by job id: a job that never
	   held cells needs no delete. */
	bool			*held;
	int			 nheld;

	/* what a resume starts from */
	int			 njobs;
	struct job		*jobs;
	struct engine_placement	*pl;
	int			 npl;
	struct emu_blob		*jb;
	void			*runblob;
	size_t			 runlen;
	struct emu_sample	*series;
	struct emu_saved	 saved;
};

/*
 * Find the run to resume or create one (kind replay, from proto's mode,
 * policy, trace, params and seed). On resume, d->saved and d->jobs are
 * ready for replay_hooks. Returns 0, or -1 with *cause (a store error).
 */
int	rdb_open(struct rdb *d, struct store *st, const struct replay *r,
	    const struct store_run *proto, bool fresh, char **cause);
/* replay_hooks.checkpoint: arg is the rdb. */
int	rdb_checkpoint(void *arg, struct emu *m, const struct job *jobs, bool final,
	    char **cause);
/* The run is done: its report (JSON text) and state. */
int	rdb_finish(struct rdb *d, const char *report, char **cause);
/* The run stopped without finishing (interrupted, failed). */
void	rdb_abandon(struct rdb *d);
void	rdb_release(struct rdb *d);

#endif
