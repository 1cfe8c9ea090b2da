/*
 * store.h — the state store: cellar's runs, jobs, placements, events, time
 * series, node health and audit log in one SQLite database (the only code
 * that includes <sqlite3.h> is store/; this header names no SQLite type).
 *
 * The API speaks the domain: a database holds runs (a 'session', the
 * operator's live cluster, or a 'replay' of a trace), each on a stored
 * spec; everything else belongs to one run. The schema is
 * store/schema.sql, embedded at build time and versioned with PRAGMA
 * user_version; store_open migrates an older database forward and refuses
 * a newer one.
 *
 * Writes are batched: a caller wraps one tick's writes in store_begin /
 * store_commit (one transaction), or store_rollback on any failure. Outside
 * a transaction each write commits on its own. Reads see the last
 * committed state, also while another process writes (WAL mode); writers
 * queue for up to the busy timeout (5 s, CELLAR_BUSY_TIMEOUT ms).
 *
 * Return values: 0 on success; -1 with *cause set (malloc'ed, one line
 * naming the file) when the store cannot be opened, read or written (the
 * caller exits with status 4); STORE_NOTFOUND (1) from lookups and reads
 * of a missing database, with *cause set to a plain message; STORE_INVALID
 * (2) for input the store refuses (a malformed or conflicting import, an
 * unknown name), with *cause set.
 *
 * Ownership: a struct store owns its connection and prepared statements;
 * store_close frees them (rolling back an open transaction). Strings and
 * arrays in structs filled by store_*_get / _load are owned by the struct
 * and freed by its _release function; those handed to a callback are valid
 * during the call only.
 *
 * Invariants:
 *  1. Nothing outside store/ sees a SQLite type; no SQL is ever built from
 *     caller text (every statement is a constant, values are bound).
 *  2. Between store_begin and store_commit every write goes into one
 *     transaction; a failed write leaves it open for store_rollback, which
 *     is always safe to call (also when SQLite already rolled back).
 *  3. Events are append-only: seq grows with every append, and no function
 *     changes or deletes an event.
 *  4. For a job's events in a run, prev links each event to the one before
 *     it, and the job's head names the newest (db check verifies).
 *  5. A database opened read-only is never written, and a read-only open of
 *     a missing file creates nothing — except that a read-only open of an
 *     older schema version first migrates it (a writing open, one
 *     transaction) when this process may write it, and otherwise fails
 *     saying what to run.
 *  6. A new database appears whole (schema made, WAL mode) or not at
 *     all: it is built as PATH.new.PID and linked to PATH. A failed open,
 *     or one killed on the way, leaves no PATH; a killed builder's file
 *     is removed by the next creator that finds its pid gone.
 *  7. A transaction that writes job rows or placements of a run commits
 *     one job_changes row for it: a change number above every one of the
 *     run committed before, and the ids of those jobs (a write outside a
 *     transaction is one of its own). So a reader that has read every row
 *     of a run up to change number c finds all that changed since in
 *     store_job_load_since(c).
 *  8. A job is its id in its run. A replay's job names are unique in
 *     the run (written by store_job_put_many, the rows marked traced, by
 *     its trace); a session's name is held by at most one job that has
 *     not ended, and may name jobs that ended before it (a reused name:
 *     by name, the newest, the highest id, is meant). db check verifies
 *     both (schema.sql).
 *  9. In a group, a command's store_commit is durable only once
 *     store_group_commit returns 0; until then nothing outside the
 *     process may act on it (no hook runs, no reply is sent).
 */
#ifndef CELLAR_STORE_H
#define CELLAR_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "engine/engine.h"
#include "job/job.h"
#include "job/record.h"
#include "job/series.h"
#include "spec/spec.h"

/* The schema version this binary creates and reads (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION	11
/* PRAGMA application_id of a cellar database: "Cell". */
#define STORE_APPLICATION_ID	0x43656c6c

#define STORE_NOTFOUND		1
#define STORE_INVALID		2

/* The default busy timeout, in milliseconds (CELLAR_BUSY_TIMEOUT overrides). */
#define STORE_BUSY_MS		5000

struct store;

/* ---- opening ---- */

/*
 * The default database: $XDG_STATE_HOME/cellar/cellar.db when
 * XDG_STATE_HOME is an absolute path, else ~/.local/state/cellar/cellar.db.
 * Returns a malloc'ed path, or NULL with *cause when neither is known.
 */
char		*store_default_path(char **cause);
/* True for ":memory:" (a throw-away database of one connection). */
bool		 store_is_memory(const char *path);
/* True when a file is at path (never for :memory:). */
bool		 store_exists(const char *path);

#define STORE_WRITE	0x1	/* open read-write; create a missing file */
#define STORE_MKDIR	0x2	/* with STORE_WRITE: create missing directories */

/*
 * Open the database at path. With STORE_WRITE a missing file is created
 * (mode 0600; with STORE_MKDIR its missing directories too, mode 0700) and
 * the schema is created or migrated. Without, a missing file gives
 * STORE_NOTFOUND with the message "no state store at 'PATH' (nothing
 * recorded yet)" and creates nothing; an older schema is migrated first
 * when the file can be written (invariant 5).
 */
int		 store_open(const char *path, unsigned flags, struct store **out,
		    char **cause);
void		 store_close(struct store *st);
const char	*store_path(const struct store *st);

/*
 * WAL checkpoints on a thread of their own. A connection copies the WAL
 * into the database itself when a commit leaves it over 10,000 pages
 * (STORE_WAL_PAGES), with two fsyncs: for a recorded replay, a third of
 * its writer's time.
 * store_wal_autocheckpoint(st, false) stops st doing so (true: again); a
 * second connection to the same file (store_open_checkpointer: no schema
 * work, no test hooks) does it instead with store_wal_checkpoint,
 * whenever its thread is told to.
 * That checkpoint is passive: it never waits for and never blocks the
 * writer or readers, and what it cannot copy yet stays in the WAL, where
 * readers and a recovery read it; closing the last connection copies the
 * rest. For a store in memory (no WAL) *out is NULL and there is nothing
 * to do.
 */
int		 store_wal_autocheckpoint(struct store *st, bool on, char **cause);
int		 store_open_checkpointer(const struct store *st, struct store **out,
		    char **cause);
/* *wal: the pages the WAL holds after it, *done: how many of them are
   in the database (all, unless a reader or another checkpoint held it). */
int		 store_wal_checkpoint(struct store *ck, int *wal, int *done,
		    char **cause);
bool		 store_writable(const struct store *st);

/*
 * A number that changes whenever another connection commits to the
 * database (PRAGMA data_version): a follower's cheap "anything new?" check.
 */
int		 store_data_version(struct store *st, int64_t *v, char **cause);
int		 store_begin(struct store *st, char **cause);
int		 store_commit(struct store *st, char **cause);
void		 store_rollback(struct store *st);
bool		 store_in_txn(const struct store *st);
/*
 * Group commit (a server's poll round): between store_group_begin and
 * store_group_commit each store_begin .. store_commit is a savepoint of
 * one outer transaction, so a round of N commands costs one COMMIT. A
 * store_rollback undoes its own command alone. store_group_commit makes
 * every command of the group durable, or -1: none of them is (also when
 * SQLite rolled the group back under an earlier failed write), and the
 * caller must report none of them done (invariant 9).
 */
int		 store_group_begin(struct store *st, char **cause);
int		 store_group_commit(struct store *st, char **cause);
void		 store_group_rollback(struct store *st);
bool		 store_in_group(const struct store *st);
/* A command of the open group committed its savepoint (wrote something). */
bool		 store_group_wrote(const struct store *st);

/* Wall-clock Unix seconds, and the Unix user (getpwuid, else $USER). */
double		 store_wall_now(void);
const char	*store_user(void);

/* ---- specs ---- */

struct store_vc {
	char		*name;
	long long	 gpus;
};

struct store_spec {
	int64_t		 id;
	char		*hash;		/* 16 hex digits of FNV-1a-64 */
	char		*path;
	char		*text;
	size_t		 text_len;
	struct store_vc	*vcs;		/* by spec VC index */
	int		 nvcs;
};

/* Store s (its text, path, hash and VCs) unless an equal text is there. */
int		 store_spec_put(struct store *st, const struct spec *s, int64_t *id,
		    char **cause);
int		 store_spec_get(struct store *st, int64_t id, struct store_spec *out,
		    char **cause);
void		 store_spec_release(struct store_spec *sp);

/* ---- runs ---- */

enum store_run_kind {
	STORE_RUN_SESSION,
	STORE_RUN_REPLAY,
};

enum store_run_state {
	STORE_RUN_RUNNING,
	STORE_RUN_DONE,
	STORE_RUN_INTERRUPTED,
};

struct store_run {
	int64_t			 id;
	enum store_run_kind	 kind;
	int64_t			 spec;
	char			*mode;		/* engine_mode_name */
	char			*policy;	/* or NULL */
	char			*trace;		/* or NULL */
	char			*params;	/* JSON object text */
	uint64_t		 seed;
	enum store_run_state	 state;
	double			 now;		/* the run's clock at its last write */
	double			 created, updated;	/* wall clock */
	char			*user;
	char			*report;	/* JSON object text, or NULL */
	/* Filled by store_run_get and store_run_list, ignored on create. */
	char			*spec_path;
	char			*spec_hash;
	long long		 njobs;
	long long		 nevents;
};

void		 store_run_init(struct store_run *r);
void		 store_run_release(struct store_run *r);
const char	*store_run_kind_name(enum store_run_kind k);
const char	*store_run_state_name(enum store_run_state s);

/*
 * Create a run from r's kind, spec, mode, policy, trace, params (NULL:
 * "{}"), seed, state and now; created/updated are now, the user is
 * store_user(). Sets r->id.
 */
int		 store_run_create(struct store *st, struct store_run *r, char **cause);
int		 store_run_get(struct store *st, int64_t id, struct store_run *r,
		    char **cause);
/* The newest run (of that kind; kind < 0: any). */
int		 store_run_last(struct store *st, int kind, int64_t *id, char **cause);
/* Every run, oldest first; fn returns 0 to go on, nonzero to stop. */
int		 store_run_list(struct store *st,
		    int (*fn)(void *arg, const struct store_run *r), void *arg,
		    char **cause);
/* State and clock (updated becomes the wall clock). */
int		 store_run_set_state(struct store *st, int64_t id,
		    enum store_run_state state, double now, char **cause);
/* The clock only (a write that leaves the state as it is). */
int		 store_run_touch(struct store *st, int64_t id, double now, char **cause);
int		 store_run_set_report(struct store *st, int64_t id, const char *json,
		    char **cause);
/* The emulator's opaque state: set (NULL, 0 clears) and get (malloc'ed). */
int		 store_run_set_blob(struct store *st, int64_t id, const void *data,
		    size_t len, char **cause);
int		 store_run_get_blob(struct store *st, int64_t id, void **data,
		    size_t *len, char **cause);
/*
 * Reconfiguration: the run goes on on spec (a store_spec_put id) in mode;
 * the spec it was on is kept for its events up to seq upto (run_specs in
 * schema.sql), which must be the newest event of the run.
 */
int		 store_run_set_spec(struct store *st, int64_t id, int64_t spec,
		    const char *mode, int64_t upto, char **cause);
/* A session's engine state beyond its placements (opaque; NULL, 0 clears). */
int		 store_run_set_engine(struct store *st, int64_t id, const void *data,
		    size_t len, char **cause);
int		 store_run_get_engine(struct store *st, int64_t id, void **data,
		    size_t *len, char **cause);
/* Mark every running session other than `keep` interrupted; *n gets how many. */
int		 store_run_interrupt_sessions(struct store *st, int64_t keep, int *n,
		    char **cause);

/* ---- jobs and placements ---- */

/*
 * A placement with its arrays owned (store_job_release frees them, with
 * the job that holds it) and the people's view: nodes (a hostlist) and
 * gpus (addresses per node).
 */
struct store_placement {
	struct engine_placement	 pl;	/* pl.name points to the job's name */
	char			*nodes;
	char			*gpus;
};

struct store_job {
	struct job		 job;
	bool			 placed;	/* holds cells: pl is set */
	struct store_placement	 pl;
	void			*blob;		/* per-job emulator state, or NULL */
	size_t			 blob_len;
	int64_t			 last_seq;	/* newest event, 0 if none */
	/* Invariant 7: store_job_load gives every job the run's newest
	   change number as the read began, store_job_load_since the newest
	   that named the job. */
	int64_t			 chg;
};

void		 store_job_init(struct store_job *sj);
void		 store_job_release(struct store_job *sj);

/* Insert or update every field of j in run (by run and j->id). */
int		 store_job_put(struct store *st, int64_t run, const struct job *j,
		    char **cause);
/*
 * Update only what a state change moves (state, reason, times, counters,
 * engine_id, priority, weight) of j's existing row: a tenth of the whole-
 * row upsert's cost, and jobs_name is left alone. No row: STORE_NOTFOUND.
 */
int		 store_job_put_state(struct store *st, int64_t run,
		    const struct job *j, char **cause);
/*
 * n jobs of a replay, each with its emulator state (blob NULL: none), in
 * one statement (a job named twice ends as its last row says): what a
 * replay's checkpoint writes for every job that changed. The rows are a
 * replay's (traced: invariant 8), so their names must be unique in the
 * run already.
 */
struct store_jobrow {
	const struct job	*job;
	const void		*blob;		/* the emulator's state, or NULL */
	size_t			 len;
};
int		 store_job_put_many(struct store *st, int64_t run,
		    const struct store_jobrow *rows, int n, char **cause);
/* The per-job emulator state (NULL, 0 clears). */
int		 store_job_set_blob(struct store *st, int64_t run, int job,
		    const void *data, size_t len, char **cause);
/*
 * A live job's log (replacing what was there): the newest STORE_LOG_MAX
 * bytes of text are kept, whatever len is. The job must have its row.
 */
#define STORE_LOG_MAX	65536
int		 store_job_log_put(struct store *st, int64_t run, int job,
		    const char *text, size_t len, char **cause);
/* The log of a job, malloc'ed and NUL-terminated in *text ("" if none). */
int		 store_job_log_get(struct store *st, int64_t run, int job,
		    char **text, size_t *len, char **cause);
/* Record where job runs (replacing what was there) / that it holds nothing. */
int		 store_placement_put(struct store *st, int64_t run, int job,
		    const struct engine_placement *pl, const char *nodes,
		    const char *gpus, char **cause);
int		 store_placement_delete(struct store *st, int64_t run, int job,
		    char **cause);

/*
 * One job by id or by name. By name in a session's run: index probes,
 * however many jobs it holds, also for a name it lacks, and the newest
 * job of the name; in a replay's run its rows are read (their names are
 * not in jobs_name: invariant 8). store_job_find also takes "%ID"
 * (name_ref_id), the job of that id.
 */
int		 store_job_get(struct store *st, int64_t run, int id,
		    struct store_job *out, char **cause);
int		 store_job_find(struct store *st, int64_t run, const char *name,
		    struct store_job *out, char **cause);
/* store_job_find for a session's run without the placement (left empty). */
int		 store_job_find_bare(struct store *st, int64_t run, const char *name,
		    struct store_job *out, char **cause);
/* The ids of a session run's jobs of that name, ascending (*ids
   malloc'ed, NULL when none; a reused name has several). */
int		 store_job_ids_named(struct store *st, int64_t run, const char *name,
		    int **ids, int *n, char **cause);
/* The newest run with a job of that name; for "%ID", the newest session
   run with a job of that id. */
int		 store_job_last_run(struct store *st, const char *name, int64_t *run,
		    char **cause);
/* One more than the highest job id of the run (0 for none). */
int		 store_job_next_id(struct store *st, int64_t run, int *id, char **cause);
/*
 * Every job of run in id order, with its placement and blob: the recovery
 * path. fn returns 0 to go on, nonzero to stop (store_job_load then
 * returns that value). The struct is valid during the call only.
 */
int		 store_job_load(struct store *st, int64_t run,
		    int (*fn)(void *arg, const struct store_job *sj), void *arg,
		    char **cause);

/*
 * The jobs of run named by a change above `after` (invariant 7), each once
 * in id order, as they are now, as store_job_load but without last_seq
 * (0): what a follower reads at each poll (the job_changes rows above
 * `after`, then each job by its key) instead of every job.
 */
int		 store_job_load_since(struct store *st, int64_t run, int64_t after,
		    int (*fn)(void *arg, const struct store_job *sj), void *arg,
		    char **cause);

/* ---- node health ---- */

int		 store_health_set(struct store *st, int64_t run, const char *node,
		    bool bad, double since, char **cause);
/* Forget a node's health (a reconfiguration removed the node). */
int		 store_health_delete(struct store *st, int64_t run, const char *node,
		    char **cause);
int		 store_health_load(struct store *st, int64_t run,
		    int (*fn)(void *arg, const char *node, bool bad, double since),
		    void *arg, char **cause);

/* ---- events ---- */

/* An event as read back: the record, and names resolved in its run. */
struct store_event {
	int64_t		 seq;
	int64_t		 run;
	struct rec	 rec;
	const char	*job_name;	/* NULL when rec.job < 0 or unknown */
	const char	*by_name;
	const char	*vc_name;
	int64_t		 spec;		/* the spec its VC and cell indices are of */
};

/*
 * Append r to run's log; *seq (may be NULL) gets its seq, and the event a
 * link to the job's previous one. The newest event of each job (its head)
 * is kept in memory and checkpointed at a store_commit every 65,536 events
 * or so (readers find the rest in the run's tail). Outside a transaction
 * the append commits on its own.
 */
int		 store_event_append(struct store *st, int64_t run, const struct rec *r,
		    int64_t *seq, char **cause);

struct store_event_filter {
	int64_t		 run;		/* 0: every run */
	bool		 has_since;
	double		 since;		/* t >= since */
	int		 vc;		/* -1: any (an index: of the event's own spec) */
	/* NULL: any; else the VC of that name in the event's own spec, which
	   is what a reconfigured run needs (indices move with the spec). */
	const char	*vc_name;
	int		 job;		/* -1: any (needs run) */
	int		 kind;		/* enum rec_kind, -1: any */
	int64_t		 after;		/* seq > after */
	long long	 limit;		/* the newest `limit`, 0: all */
};

void		 store_event_filter_init(struct store_event_filter *f);
/* The matching events in seq order; fn as for store_run_list. */
int		 store_event_query(struct store *st, const struct store_event_filter *f,
		    int (*fn)(void *arg, const struct store_event *ev), void *arg,
		    char **cause);
/* The highest seq of the store (of run; 0: any), 0 when none. */
int		 store_event_last_seq(struct store *st, int64_t run, int64_t *seq,
		    char **cause);

/* ---- time series ---- */

int		 store_series_put(struct store *st, int64_t run,
		    const struct emu_sample *x, int n, char **cause);
/* All points of run in time order into *out (malloc'ed), *n of them. */
int		 store_series_load(struct store *st, int64_t run,
		    struct emu_sample **out, int *n, char **cause);

/* ---- audit ---- */

struct store_audit {
	int64_t		 id;
	double		 at;		/* 0 to add: now */
	const char	*user;		/* NULL to add: store_user() */
	int64_t		 run;		/* 0: none */
	const char	*cmdline;
	int		 status;
	const char	*reason;	/* why it failed or was refused, or NULL */
	bool		 refused;	/* a server refused it: it did not run */
	long long	 count;		/* identical refusals it stands for (1) */
};

/* Append an audit row now, as store_user(); run 0: none. */
int		 store_audit_append(struct store *st, int64_t run, const char *cmdline,
		    int status, char **cause);
/* The same on behalf of user (a server's caller; NULL: store_user()). */
int		 store_audit_append_as(struct store *st, int64_t run, const char *user,
		    const char *cmdline, int status, char **cause);
/* Append row a (its id ignored); its new id to *id unless NULL. */
int		 store_audit_add(struct store *st, const struct store_audit *a,
		    int64_t *id, char **cause);
/* Set the count of row id (refusals coalesced into it since). */
int		 store_audit_set_count(struct store *st, int64_t id, long long count,
		    char **cause);
int		 store_audit_list(struct store *st,
		    int (*fn)(void *arg, const struct store_audit *a), void *arg,
		    char **cause);

/* Which audit rows store_audit_query gives; store_audit_filter_init: all. */
struct store_audit_filter {
	const char	*user;		/* only this user's, or NULL */
	double		 since;		/* at or after (wall clock), or 0 */
	bool		 refused;	/* only refusals */
	long long	 limit;		/* only the newest N, or 0 */
};

void		 store_audit_filter_init(struct store_audit_filter *f);
/* The matching rows in id order; fn as for store_run_list. */
int		 store_audit_query(struct store *st, const struct store_audit_filter *f,
		    int (*fn)(void *arg, const struct store_audit *a), void *arg,
		    char **cause);

/* ---- maintenance ---- */

/*
 * Check the database: SQLite's integrity_check and foreign_key_check, then
 * the domain invariants (every job once per run, no leaf held by two jobs
 * of a run, placements exactly for the running jobs that hold engine
 * cells (a time-sliced or packed guest holds none), events only about
 * existing jobs, the event chains of invariant 4). Each problem goes to fn
 * as one line; *nproblems gets their number.
 */
int		 store_check(struct store *st,
		    void (*fn)(void *arg, const char *problem), void *arg,
		    int *nproblems, char **cause);
/* VACUUM and a WAL checkpoint; sizes of the file before and after. */
int		 store_vacuum(struct store *st, long long *before, long long *after,
		    char **cause);
/* Bytes of the database file (and its WAL), 0 for :memory:. */
long long	 store_size(const struct store *st);

/* Counts of what a dump or an import held. */
struct store_counts {
	long long	 specs, runs, jobs, placements, events, series, health, audit;
};

/*
 * A portable dump: one JSON document (see cellar(1), "export") holding
 * every table's rows, appended to out.
 */
int		 store_export(struct store *st, struct strbuf *out,
		    struct store_counts *n, char **cause);
/*
 * Load a dump. Into an empty database every id is kept; with as_new the
 * dump's runs are added under fresh ids (specs shared by hash and text).
 * A non-empty database without as_new, a dump of another schema version or
 * a malformed document is STORE_INVALID; nothing is written then.
 */
int		 store_import(struct store *st, const char *text, size_t len,
		    bool as_new, struct store_counts *n, char **cause);

#endif
