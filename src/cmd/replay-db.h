/*
 * replay-db.h — a replay that records itself in the state store while it
 * runs, and picks up where it stopped after a crash.
 *
 * Write-ahead for the emulator: the emulated cluster is rebuilt from the
 * last committed checkpoint, so a checkpoint is simply everything that
 * changed since the previous one — jobs (every field, placement, emulator
 * state), the event log, node health, new time-series points, the
 * engine's bad marks and counters (for readers), the emulator's own state
 * and the run's clock — in one transaction, at a tick boundary. A kill at
 * any instant loses at most the ticks since the last commit, which the
 * deterministic emulator replays identically on resume.
 *
 * Checkpoints are written by a thread of the rdb's own (replay-db.c), so
 * the store's work overlaps the replay's: rdb_checkpoint hands over a
 * self-contained copy and returns, waiting only while one checkpoint
 * already waits. A third thread, on a connection of its own, copies the
 * WAL into the database after each commit (store_wal_checkpoint), so the
 * writer neither copies nor waits for an fsync. A failed write is reported by the next rdb_checkpoint
 * (the same cause, d->failed set) and nothing after it is written; the
 * final checkpoint, rdb_drain, rdb_finish, rdb_abandon and rdb_release
 * wait for everything handed over. Between rdb_open and the end of the
 * writer (rdb_finish, rdb_abandon, rdb_release) only the writer uses the
 * store, but for the time between an rdb_drain and the next checkpoint.
 * The writer holds the rdb's address: it must not move until released.
 *
 * A run is resumed when the store holds an unfinished replay run with the
 * same spec text and the same parameters (the params JSON, byte for byte);
 * fresh starts a new run regardless. When the newest such run is done, the
 * replay is not run again (a retry after a kill between the last commit
 * and the exit): rdb_open says so.
 *
 * One process writes a run at a time: its writer holds a lease on the run
 * (ipc_lease on STORE.runs.lock, key the run id) from rdb_open to
 * rdb_release, taken in the transaction that finds or creates the run, so
 * a second process finds the run leased and stops instead of writing it
 * too. The kernel drops the lease of a killed process: a kill -9 leaves
 * the run resumable. A store in memory needs no lease.
 *
 * Ownership: an rdb borrows the store and the spec (both outlive it) and
 * owns what it loaded for a resume; rdb_release frees that.
 */
#ifndef CELLAR_REPLAY_DB_H
#define CELLAR_REPLAY_DB_H

#include <stdbool.h>
#include <stdint.h>

#include "ipc/ipc.h"
#include "sim/emu.h"
#include "sim/replay.h"
#include "store/store.h"

struct rdb_writer;

struct rdb {
	struct store		*st;
	const struct spec	*s;
	int64_t			 run;
	bool			 resumed;
	double			 resumed_at;	/* the run's clock when resumed */
	/* Written by the writer thread: read them after rdb_drain. */
	double			 now;		/* the clock of the last commit */
	long long		 commits;
	double			 writer_cpu;	/* its CPU seconds, once it ended */
	/* The replay's side. */
	bool			 failed;	/* a checkpoint could not be written */
	long long		 queued;	/* checkpoints handed to the writer */
	int			 nseries;	/* series points handed over */
	/* Jobs the store holds a placement row for, as of the checkpoints
	   handed over, by job id: a job that never held cells needs no
	   delete. */
	bool			*held;
	int			 nheld;
	struct rdb_writer	*w;		/* the writer thread, from rdb_open */
	struct ipc_lock		 lease;		/* on the run; fd -1: none */
	pid_t			 holder;	/* RDB_BUSY: the lease's holder */

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

/* What rdb_open found besides a run to write. */
#define RDB_BUSY	1	/* d->run is being written by d->holder */
#define RDB_DONE	2	/* d->run already holds this replay, done */

/*
 * Find the run to resume or create one (kind replay, from proto's mode,
 * policy, trace, params and seed). On resume, d->saved and d->jobs are
 * ready for replay_hooks. Returns 0, RDB_BUSY or RDB_DONE (nothing to
 * write: rdb_release), or -1 with *cause (a store error).
 */
int	rdb_open(struct rdb *d, struct store *st, const struct replay *r,
	    const struct store_run *proto, bool fresh, char **cause);
/* replay_hooks.checkpoint: arg is the rdb. */
int	rdb_checkpoint(void *arg, struct emu *m, const struct job *jobs, bool final,
	    char **cause);
/*
 * Wait until every checkpoint handed over is committed; -1 with the first
 * failed write's cause (d->failed set).
 */
int	rdb_drain(struct rdb *d, char **cause);
/* The run is done: its report (JSON text) and state. */
int	rdb_finish(struct rdb *d, const char *report, char **cause);
/* The run stopped without finishing (interrupted, failed). */
void	rdb_abandon(struct rdb *d);
void	rdb_release(struct rdb *d);

#endif
