/*
 * store-int.h — what the files of store/ share: the connection, the cache of
 * prepared statements, the buffers that live across a transaction, the
 * in-memory event chains, error mapping and the migration machinery
 * (exposed here so tests/unit/tstore-migrate.c can run a fake step).
 * Private to store/ and its unit tests.
 *
 * The files, each owning one part, lowest first: a file calls only files
 * listed before it, never one after, so calls run one way.
 *   store-mem.c      SQLite's allocator: freed blocks cached per size
 *                    class (sqlite3 alone)
 *   store-vfs.c      the cellar-wal VFS: a writer's WAL transaction in
 *                    one write (sqlite3 alone)
 *   store-sql.c      the statements (SQL and flags), errors, step and bind
 *                    helpers, the wall clock and user name rows record
 *   store-txn.c      transactions and groups; the buffer registry
 *   store-events.c   the event log in packed blocks; the pending block
 *   store-jobrows.c  the job_rows virtual table (jobs written in bulk)
 *   store-chain.c    the job event chains: events appended and queried,
 *                    the job heads that link them
 *   store-job.c      jobs, placements, change numbers
 *   store-migrate.c  the schema's versions and the steps between them
 *   store-open.c     opening (creating, checking, migrating), closing
 *   store-spec.c, store-run.c, store-health.c, store-series.c,
 *   store-audit.c    one table each, on store-sql.c alone
 *   store-check.c, store-dump.c   db check and vacuum; export and import
 *
 * Invariants:
 *  1. stmt[i] is NULL or the prepared form of store_sql[i].sql; statements
 *     are reset after every use (store_stmt hands them out reset and
 *     unbound).
 *  2. A loaded entry of heads[] holds, for its run, every job's newest
 *     event (0: none) as the database has it including our own writes; it
 *     is dropped when a transaction finds another connection committed
 *     since our last one (PRAGMA data_version), and on a rollback.
 *  3. A connection store_open makes has its buffers registered before
 *     its first statement: the event block, the job heads, the changed
 *     jobs, in the order their flushes must run (heads checkpoint events,
 *     change rows come last). The WAL checkpointer's connection runs no
 *     transaction and has none. The transaction code reaches them only
 *     through buf[], so store-txn.c and store-sql.c name no function of
 *     the files listed after them.
 *  4. Every statement of store_sql[] that reads the event log (events,
 *     event_blocks) is flagged STORE_SQL_LOG; SQ_EVBLOCK_INSERT, which
 *     writes it, is not.
 */
#ifndef CELLAR_STORE_INT_H
#define CELLAR_STORE_INT_H

#include <sqlite3.h>

#include "store/store.h"

/*
 * A statement's flags in store-sql.c's table. STORE_SQL_LOG: it reads the
 * event log, so store_stmt runs the buffers' settle hooks first (a group's
 * pending events go in before anything reads the log).
 */
#define STORE_SQL_LOG	0x1

/* Every statement the store runs, by number; the SQL is in store-sql.c. */
enum store_stmt_id {
	SQ_BEGIN,
	SQ_COMMIT,
	SQ_ROLLBACK,
	SQ_SAVEPOINT,
	SQ_RELEASE,
	SQ_ROLLBACK_TO,
	SQ_SPEC_BY_HASH,
	SQ_SPEC_INSERT,
	SQ_SPEC_VC_INSERT,
	SQ_SPEC_GET,
	SQ_SPEC_VCS,
	SQ_RUN_INSERT,
	SQ_RUN_GET,
	SQ_RUN_LAST,
	SQ_RUN_LAST_KIND,
	SQ_RUN_LIST,
	SQ_RUN_STATE,
	SQ_RUN_TOUCH,
	SQ_RUN_REPORT,
	SQ_RUN_BLOB_SET,
	SQ_RUN_BLOB_GET,
	SQ_RUN_SPEC_KEEP,
	SQ_RUN_SPEC_SET,
	SQ_RUN_ENGINE_SET,
	SQ_RUN_ENGINE_GET,
	SQ_RUN_INTERRUPT,
	SQ_JOB_UPSERT,
	SQ_JOB_UPSERT_EMU,
	SQ_JOB_BLOB,
	SQ_JOB_LOG_PUT,
	SQ_JOB_LOG_GET,
	SQ_HEAD_GET,
	SQ_HEAD_SET,
	SQ_EVENT_TAIL,
	SQ_EVENT_TAIL_JOB,
	SQ_DATA_VERSION,
	SQ_JOB_GET,
	SQ_JOB_GET_IDS,
	SQ_JOB_FIND,
	SQ_JOB_FIND_TRACED,
	SQ_JOB_IDS_NAMED,
	SQ_JOB_FIND_BARE,
	SQ_JOB_STATE_PUT,
	SQ_JOB_LAST_RUN,
	SQ_JOB_LAST_RUN_ID,
	SQ_JOB_NEXT_ID,
	SQ_JOB_LOAD,
	SQ_CHG_LAST,
	SQ_CHG_INSERT,
	SQ_CHG_SINCE,
	SQ_PL_PUT,
	SQ_PL_DELETE,
	SQ_HEALTH_SET,
	SQ_HEALTH_DELETE,
	SQ_HEALTH_LOAD,
	SQ_EVBLOCK_INSERT,
	SQ_EVENT_GET,
	SQ_EVENT_RUN,
	SQ_EVENT_RUN_NEWEST,
	SQ_EVENT_ALL,
	SQ_EVENT_ALL_NEWEST,
	SQ_EVENT_LAST,
	SQ_EVENT_LAST_RUN,
	SQ_SERIES_PUT,
	SQ_SERIES_LOAD,
	SQ_AUDIT_INSERT,
	SQ_AUDIT_LIST,
	SQ_AUDIT_QUERY,
	SQ_AUDIT_COUNT,
	SQ_COUNT
};

/* The newest event of every job of one run (the prev of its next event). */
struct store_heads {
	int64_t		 run;		/* 0: unused */
	int64_t		*seq;		/* by job id, 0: none */
	size_t		 n;		/* entries of seq */
	int64_t		 upto;		/* the checkpoint in the heads table */
	int64_t		 last;		/* newest event of the run we know of */
	uint64_t	 used;		/* when last used, for eviction */
	bool		 dirty;		/* events appended in the open transaction */
};

/* A job written in the open transaction (struct store's chg). */
struct store_chg {
	int64_t			 run;
	int			 job;
};

/* Job ids one SQ_JOB_GET_IDS reads (its parameters ?2 to ?65). */
#define STORE_IDS_PER_READ	64

#define STORE_HEADS_RUNS	4	/* runs written by one connection at once */
#define STORE_HEADS_EVERY	65536	/* events between checkpoints */
#define STORE_BUFFERS		4	/* on one connection, at most */
/*
 * WAL pages past which a writer's commit copies the WAL into the database
 * (SQLite's default is 1,000). A checkpoint copies each page once however
 * often the WAL holds it, with two fsyncs: a group of 256 commands on a
 * run of 10,000 jobs writes ~200 pages, mostly the same few hundred of the
 * jobs and placements tables, so a longer WAL copies each far fewer times
 * (bench-batch). The cost: the WAL file grows to about this many pages
 * (~40 MB at 4 KB) and a crashed writer's store reads it back on opening.
 */
#define STORE_WAL_PAGES		10000

struct store {
	sqlite3			*db;
	char			*path;
	bool			 write;
	bool			 memory;
	bool			 immutable;	/* read as it is: store_read_mode */
	int			 guard;		/* its shared lock's fd, or -1 */
	bool			 txn;		/* between store_begin and commit/rollback */
	bool			 group;		/* between store_group_begin and its
						   commit: txn is a savepoint */
	bool			 group_wrote;	/* a savepoint of it was kept */
	int			 busy_ms;
	sqlite3_stmt		*stmt[SQ_COUNT];
	/* The buffers, in the order they registered (store_buffer_add). */
	const struct store_buffer *buf[STORE_BUFFERS];
	int			 nbuf;
	struct store_heads	 heads[STORE_HEADS_RUNS];	/* of the runs written */
	long long		 heads_every;	/* STORE_HEADS_EVERY; tests set less */
	int			 wal_pages;	/* STORE_WAL_PAGES; tests set less */
	uint64_t		 heads_clock;	/* ticks of store_heads.used */
	int64_t			 data_version;	/* at our last transaction */
	long long		 steps;		/* write steps, for kill_at, fail_at */
	long long		 kill_at;	/* CELLAR_STORE_KILL: 0 off */
	long long		 fail_at;	/* CELLAR_STORE_FAIL: 0 off, < 0 done */
	/* The pending event block (store-events.c): ev_n events of run
	   ev_run from seq ev_first, packed in ev_buf; ev_next is the next
	   free seq, 0 until read in this transaction. */
	struct strbuf		 ev_buf;
	int			 ev_n;
	int64_t			 ev_run;
	int64_t			 ev_first;
	int64_t			 ev_next;
	/* In a group the pending block outlives each command's savepoint
	   (one event_blocks row per group, not per command). ev_mark_* is
	   where the open command's events start; ev_keep holds the events
	   before them once a flush inside the command took them into its
	   savepoint (ev_kept), for a rollback of that command to put back. */
	size_t			 ev_mark_len;
	int			 ev_mark_n;
	int64_t			 ev_mark_next;
	struct strbuf		 ev_keep;
	bool			 ev_kept;
	int			 ev_keep_n;
	int64_t			 ev_keep_run;
	int64_t			 ev_keep_first;
	/* The jobs the open transaction wrote (rows or placements), in
	   the order written, repeats allowed: its job_changes rows, one per
	   run, at commit (store.h invariant 7). */
	struct store_chg	*chg;
	size_t			 nchg, capchg;
	size_t			 chg_mark;	/* in a group: nchg at the open
						   savepoint's start */
};

/*
 * A buffer: state a file of store/ keeps across a transaction's statements
 * and writes (or forgets) at its end: the pending event block
 * (store-events.c), the cache of job heads (store-chain.c) and the jobs
 * the transaction changed (store-job.c). Each registers itself on the connection when the
 * store opens (store_buffer_add); the transaction code (store-txn.c) and
 * store_stmt call them through this table, in the order they registered,
 * and name none of them. Any hook may be NULL.
 */
enum store_flush_at {
	STORE_FLUSH_TXN,	/* at the commit of a whole transaction: a plain
				   store_commit, or store_group_commit */
	STORE_FLUSH_CMD,	/* at every store_commit, a group's
				   commands' too */
};

struct store_buffer {
	const char		*name;
	enum store_flush_at	 at;
	/* write what is pending into the open transaction (before COMMIT
	   or a command's RELEASE) */
	int			(*flush)(struct store *st, char **cause);
	/* before a statement that reads the event log (STORE_SQL_LOG) */
	int			(*settle)(struct store *st, char **cause);
	/* a transaction opened; changed: another connection committed
	   since our last one (PRAGMA data_version) */
	void			(*begin)(struct store *st, bool changed);
	/* a group's command opened its savepoint */
	void			(*mark)(struct store *st);
	/* the flushed writes are kept: whole, the transaction committed;
	   else a group's command released its savepoint */
	void			(*kept)(struct store *st, bool whole);
	/* a rollback: whole, of the transaction; else of a group's command
	   back to its savepoint (the group goes on) */
	void			(*undo)(struct store *st, bool whole);
	/* the group is abandoned (rolled back, or lost to SQLite) */
	void			(*reset)(struct store *st);
	/* store_close: free what it holds */
	void			(*release)(struct store *st);
};

/* Register b on st (once per open; fatal past STORE_BUFFERS). */
void		 store_buffer_add(struct store *st,
		    const struct store_buffer *b);
/* Each registered buffer's release (store_close). */
void		 store_buffer_release(struct store *st);

/* The schema text, generated from store/schema.sql by the Makefile. */
extern const char store_schema_sql[];

/*
 * The test hooks, counted once per write step (a statement, or a row of
 * job_rows): SIGKILL at CELLAR_STORE_KILL's step; -1 with *cause at
 * CELLAR_STORE_FAIL's (once; never on s, the ROLLBACK statement).
 */
int		 store_hook_step(struct store *st, sqlite3_stmt *s, char **cause);
/* A prepared statement, reset and unbound; NULL with *cause on failure. */
sqlite3_stmt	*store_stmt(struct store *st, enum store_stmt_id id, char **cause);
/*
 * The message for a failed SQLite call (rc its result code), naming the
 * file: locked, not a database, disk full, damaged, read-only, ... Sets
 * *cause (if not already set) and returns -1.
 */
int		 store_fail(struct store *st, int rc, char **cause);
/* Step a statement that returns no rows; resets it. 0 or -1 with *cause. */
int		 store_step_done(struct store *st, sqlite3_stmt *s, char **cause);
/* Run constant SQL (no values) that returns no rows. */
int		 store_exec(struct store *st, const char *sql, char **cause);
/* Reset and unbind s; then turn rc (a step's result) into 0 or -1. */
int		 store_done(struct store *st, sqlite3_stmt *s, int rc, char **cause);
/* A column as text, NULL for NULL; a copy the caller frees. */
char		*store_col_strdup(sqlite3_stmt *s, int col);

/* Bind helpers: NULL for "none". */
int		 store_bind_text(sqlite3_stmt *s, int i, const char *v);
int		 store_bind_int_or_null(sqlite3_stmt *s, int i, long long v, bool null);
int		 store_bind_double_or_null(sqlite3_stmt *s, int i, double v, bool null);

/*
 * Every job's newest event in run, read from the store (checkpoint and
 * tail): a malloc'ed array by job id (0: none) of *n entries.
 */
int		 store_heads_read(struct store *st, int64_t run, int64_t **seq,
		    size_t *n, int64_t *upto, char **cause);
/* Write the heads checkpoint of run (seq[0..n), complete up to upto). */
int		 store_heads_write(struct store *st, int64_t run, const int64_t *seq,
		    size_t n, int64_t upto, char **cause);

/* ---- event chains (store-chain.c) ---- */

/*
 * A job's newest event (0: none), as a reader sees it: from the heads in
 * our own transaction, else from the heads row and the run's tail.
 */
int		 store_job_newest(struct store *st, int64_t run, int job,
		    int64_t *seq, char **cause);
/* Register the job heads as a buffer (after the event block's). */
void		 store_chain_register(struct store *st);

/* ---- jobs (store-job.c) ---- */

/* Register the transaction's changed jobs as a buffer (the last). */
void		 store_job_register(struct store *st);

/* ---- job rows (store-jobrows.c) ---- */

/*
 * What SQ_JOB_UPSERT and SQ_JOB_UPSERT_EMU read through job_rows(?1):
 * rows[0..n) of run. Owned by the caller; the rows and their jobs must
 * outlive the statement. hook_cause is the test hooks' failure, if one
 * fired on a row (the statement then fails).
 */
struct store_jobrows {
	int64_t				 run;
	const struct store_jobrow	*rows;
	int				 n;
	bool				 traced;	/* a replay's rows */
	struct store			*st;
	char				*hook_cause;
};

/* sqlite3_bind_pointer's type for a struct store_jobrows. */
#define STORE_JOBROWS_POINTER	"cellar_jobrows"
/* Register the `job_rows` virtual table on st's connection. */
int		 store_jobrows_register(struct store *st, char **cause);

/* ---- the event log (store-events.c) ---- */

/* One event as packed in a block; strings are not NUL-terminated. */
struct store_evrow {
	double		 t;
	const char	*kind;		/* rec_kind_name, as stored */
	size_t		 kind_len;	/* <= 255 */
	int		 job, vc, cell, by;	/* -1: none */
	int64_t		 prev;		/* 0: none */
	const char	*detail;
	size_t		 detail_len;
};

/*
 * Add an event to the pending block with seq (0: the next free one), which
 * must be above every seq of the store; *seqp gets it. A different run or
 * a gap starts a new block (the pending one is written first).
 */
int		 store_events_put(struct store *st, int64_t seq, int64_t run,
		    const struct store_evrow *e, int64_t *seqp, char **cause);
/* Write the pending block, if any (at commit, before a read of the log). */
int		 store_events_flush(struct store *st, char **cause);
/*
 * Register the `events` virtual table on st's connection, and the pending
 * block as a buffer (the first: it flushes before the others).
 */
int		 store_events_register(struct store *st, char **cause);
/* The VFS that writes a WAL transaction in one write (store-vfs.c). */
#define STORE_VFS	"cellar-wal"
int		 store_vfs_register(void);
/* Each event of a block (first..last), in order; fn returns nonzero to stop. */
int		 store_evblock_decode(const void *data, size_t len, int64_t first,
		    int64_t last, int (*fn)(void *arg, int64_t seq,
		    const struct store_evrow *e), void *arg, char **cause);
/* Migration 3 -> 4: the rows of the events table into blocks. */
int		 store_migrate_3_4_fn(struct store *st, char **cause);

/* int32 arrays as portable little-endian blobs. */
void		 store_i32_encode(const int *v, int n, unsigned char *out);
int		*store_i32_decode(const void *blob, int bytes, int *n);

/* ---- migrations ---- */

/*
 * One forward step: from version `from` to from + 1, by running sql (one
 * or more statements) and then fn (either may be NULL). The step from 0
 * runs the whole schema and goes straight to STORE_SCHEMA_VERSION.
 */
struct store_migration {
	int		 from;
	const char	*sql;
	int		(*fn)(struct store *st, char **cause);
};

extern const struct store_migration store_migrations[];
extern const int store_nmigrations;

/*
 * Bring the database from its user_version to `target` with steps, in one
 * transaction: either every step applies or none. Refuses a database newer
 * than target. 0, or -1 with *cause; STORE_MISMATCH with *cause when a
 * step's SQL does not fit the tables (the user_version was tampered with
 * or the file damaged: no rerun, by anyone, can help).
 */
#define STORE_MISMATCH	(-2)
int		 store_migrate(struct store *st, const struct store_migration *steps,
		    int nsteps, int target, char **cause);
/* One integer a PRAGMA or query gives (0 for no row), or -1 with *cause. */
int		 store_pragma_int(struct store *st, const char *sql, long long *v,
		    char **cause);
/* PRAGMA user_version, or -1 with *cause. */
int		 store_user_version(struct store *st, char **cause);
/* SQLite's allocator (store-mem.c), before SQLite initializes: its
   sqlite3_config status (SQLITE_MISUSE once SQLite runs: it keeps its own). */
int		 store_mem_install(void);

#endif
