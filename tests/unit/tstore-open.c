/*
 * tstore-open.c — opening the state store: the default path, modes 0600 and
 * 0700, a read-only open that creates nothing, :memory:, WAL mode, files
 * that are no cellar store, a newer schema refused, and the migrations: a
 * hand-made "v0" database, a hand-made version 1 database brought to 2, a
 * fake step from 2 to 3, a failing step that leaves the database as it
 * was, and hand-made databases of versions 2 to 5 migrated to the newest;
 * job heads across checkpoints and writers; SQLite's allocator (store-mem.c).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/xmalloc.h"
#include "store/store-int.h"
#include "test.h"

static char tmpdir[256];

static const char *
tmp_path(const char *name)
{
	static char buf[512];

	if (tmpdir[0] == '\0') {
		snprintf(tmpdir, sizeof tmpdir, "%s/tstore-open.XXXXXX",
		    getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
		if (mkdtemp(tmpdir) == NULL)
			abort();
	}
	snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
	return buf;
}

static bool
exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

static int
mode_of(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 ? (int)(sb.st_mode & 07777) : -1;
}

/* Run SQL on a file with the sqlite3 API directly (to hand-make databases). */
static void
raw_sql(const char *path, const char *sql)
{
	sqlite3 *db;

	if (sqlite3_open(path, &db) != SQLITE_OK ||
	    sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "raw_sql %s: %s\n", path, sqlite3_errmsg(db));
		abort();
	}
	sqlite3_close(db);
}

/* Version 10's schema: today's less what version 11 changed (the audit's
   reason, refused and count; the jobs' uid and gid; jobs_name was
   unique). */
static void
raw_schema_v10(const char *path)
{
	raw_sql(path, store_schema_sql);
	raw_sql(path, "ALTER TABLE audit DROP COLUMN reason;"
	    "ALTER TABLE audit DROP COLUMN refused;"
	    "ALTER TABLE audit DROP COLUMN count;"
	    "ALTER TABLE jobs DROP COLUMN uid;"
	    "ALTER TABLE jobs DROP COLUMN gid;"
	    "DROP INDEX jobs_name;"
	    "CREATE UNIQUE INDEX jobs_name ON jobs(run, name) WHERE traced = 0;");
}

/* Version 9's schema, from which the older stores below are made:
   version 10's less what it added (series.frag_node). */
static void
raw_schema_v9(const char *path)
{
	raw_schema_v10(path);
	raw_sql(path, "ALTER TABLE series DROP COLUMN frag_node;");
}

static void
test_default_path(void)
{
	char *old_xdg = getenv("XDG_STATE_HOME") ? xstrdup(getenv("XDG_STATE_HOME")) : NULL;
	char *old_home = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL;
	char *p, *cause = NULL;

	setenv("XDG_STATE_HOME", "/x/state", 1);
	p = store_default_path(&cause);
	CHECK_STREQ(p, "/x/state/cellar/cellar.db");
	free(p);
	setenv("XDG_STATE_HOME", "relative", 1);	/* ignored, as the spec says */
	setenv("HOME", "/home/op", 1);
	p = store_default_path(&cause);
	CHECK_STREQ(p, "/home/op/.local/state/cellar/cellar.db");
	free(p);
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	CHECK(store_default_path(&cause) == NULL);
	CHECK(cause != NULL && strstr(cause, "give --db PATH") != NULL);
	free(cause);
	if (old_xdg)
		setenv("XDG_STATE_HOME", old_xdg, 1);
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_xdg);
	free(old_home);
}

static void
test_modes(void)
{
	struct store *st = NULL;
	char *cause = NULL, *path;
	mode_t old = umask(0);		/* the modes must not depend on it */

	path = xstrdup(tmp_path("a/b/cellar.db"));
	CHECK(store_open(path, STORE_WRITE | STORE_MKDIR, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(mode_of(path), 0600);
	CHECK_INTEQ(mode_of(tmp_path("a/b")), 0700);
	CHECK_INTEQ(mode_of(tmp_path("a")), 0700);
	store_close(st);
	/* The WAL and its index take the database's mode (SQLite copies it). */
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECK(store_audit_append(st, 0, "x", 0, &cause) == 0);
	CHECK_INTEQ(mode_of(tmp_path("a/b/cellar.db-wal")), 0600);
	CHECK_INTEQ(mode_of(tmp_path("a/b/cellar.db-shm")), 0600);
	store_close(st);
	umask(old);
	free(path);
}

static void
test_readonly_missing(void)
{
	struct store *st = NULL;
	char *cause = NULL, *path = xstrdup(tmp_path("nothing/here.db"));

	CHECK(store_open(path, 0, &st, &cause) == STORE_NOTFOUND);
	CHECK(st == NULL);
	CHECKF(cause != NULL && strstr(cause, "no state store at '") != NULL &&
	    strstr(cause, "(nothing recorded yet)") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(!exists(tmp_path("nothing")));
	/* Without STORE_MKDIR a missing directory is an error, and nothing
	   is created. */
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "cannot open state store '") != NULL &&
	    strstr(cause, "No such file or directory") != NULL, "%s", cause);
	free(cause);
	CHECK(!exists(tmp_path("nothing")));
	free(path);
}

static void
test_memory_wal(void)
{
	struct store *st = NULL, *ro = NULL;
	char *cause = NULL;
	long long v = 0;
	sqlite3_stmt *q;
	const char *path = tmp_path("wal.db");

	CHECK(store_open(":memory:", STORE_WRITE, &st, &cause) == 0);
	CHECK(store_is_memory(store_path(st)));
	CHECK_INTEQ(store_size(st), 0);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	store_close(st);

	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECK(sqlite3_prepare_v2(st->db, "PRAGMA journal_mode", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_STREQ((const char *)sqlite3_column_text(q, 0), "wal");
	sqlite3_finalize(q);
	CHECK(sqlite3_prepare_v2(st->db, "PRAGMA foreign_keys", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	v = sqlite3_column_int(q, 0);
	CHECK_INTEQ(v, 1);
	sqlite3_finalize(q);
	CHECK(sqlite3_prepare_v2(st->db, "PRAGMA synchronous", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_INTEQ(sqlite3_column_int(q, 0), 1);	/* NORMAL */
	sqlite3_finalize(q);
	/* A reader sees what a writer committed, never what it has not. */
	CHECK(store_open(path, 0, &ro, &cause) == 0);
	CHECK(!store_writable(ro));
	CHECK(store_begin(st, &cause) == 0);
	CHECK(store_audit_append(st, 0, "uncommitted", 0, &cause) == 0);
	CHECK(sqlite3_prepare_v2(ro->db, "SELECT count(*) FROM audit", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 0);
	sqlite3_reset(q);
	CHECK(store_commit(st, &cause) == 0);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 1);
	sqlite3_finalize(q);
	/* The reader cannot write. */
	CHECK(store_audit_append(ro, 0, "x", 0, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "cannot be written") != NULL, "%s", cause);
	free(cause);
	store_close(ro);
	store_close(st);
}

static void
test_not_a_store(void)
{
	struct store *st = NULL;
	char *cause = NULL;
	const char *path;
	FILE *fp;

	path = tmp_path("garbage.db");
	fp = fopen(path, "w");
	fputs("this is not a database, just text that is long enough to have "
	    "a header; and some more bytes of it to be sure of that.\n", fp);
	fclose(fp);
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "is not a cellar state store (file "
	    "is not a database)") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(exists(path));		/* not ours to remove */

	path = tmp_path("other-app.db");
	raw_sql(path, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "is not a cellar state store (a SQLite "
	    "database of something else)") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(store_open(path, 0, &st, &cause) == -1);
	free(cause);
	cause = NULL;

	path = tmp_path("newer.db");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	store_close(st);
	raw_sql(path, "PRAGMA user_version = 12");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "has schema version 12, newer than this "
	    "cellar (11): upgrade cellar") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(store_open(path, 0, &st, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "upgrade cellar") != NULL);
	free(cause);
}

/* A fake migration: what a version 3 might add. */
static int
fake_fn(struct store *st, char **cause)
{
	return store_exec(st, "UPDATE runs SET note = 'migrated'", cause);
}

/*
 * A version 1 database as the first cellar that had a store made it (the
 * tables the migration to 2 touches, as they were; the others are those of
 * today): job heads as a row per job, the events index without the job.
 */
static const char schema_v1[] =
    "CREATE TABLE specs (id INTEGER PRIMARY KEY, hash TEXT NOT NULL,"
    " path TEXT NOT NULL, text TEXT NOT NULL, created REAL NOT NULL);"
    "CREATE INDEX specs_hash ON specs(hash);"
    "CREATE TABLE spec_vcs (spec INTEGER NOT NULL REFERENCES specs(id) ON DELETE"
    " CASCADE, idx INTEGER NOT NULL, name TEXT NOT NULL, gpus INTEGER NOT NULL,"
    " PRIMARY KEY (spec, idx)) WITHOUT ROWID;"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY, kind TEXT NOT NULL CHECK (kind"
    " IN ('session', 'replay')), spec INTEGER NOT NULL REFERENCES specs(id),"
    " mode TEXT NOT NULL, policy TEXT, trace TEXT, params TEXT NOT NULL DEFAULT"
    " '{}', seed INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL CHECK (state IN"
    " ('running', 'done', 'interrupted')), now REAL NOT NULL DEFAULT 0, created"
    " REAL NOT NULL, updated REAL NOT NULL, user TEXT NOT NULL, report TEXT, emu"
    " BLOB);"
    "CREATE TABLE jobs (run INTEGER NOT NULL REFERENCES runs(id) ON DELETE"
    " CASCADE, id INTEGER NOT NULL, name TEXT NOT NULL, user TEXT NOT NULL"
    " DEFAULT '', vc INTEGER NOT NULL, submit REAL NOT NULL, members TEXT NOT"
    " NULL, gpus INTEGER NOT NULL, leaf_type INTEGER NOT NULL, class TEXT NOT"
    " NULL, soft_affinity INTEGER NOT NULL, duration REAL NOT NULL, model TEXT,"
    " elastic_min INTEGER NOT NULL, elastic_max INTEGER NOT NULL, state TEXT NOT"
    " NULL, reason TEXT NOT NULL, state_since REAL NOT NULL, first_start REAL NOT"
    " NULL, end_time REAL NOT NULL, queued REAL NOT NULL, attained REAL NOT NULL,"
    " run_time REAL NOT NULL, work_done REAL NOT NULL, ckpt_work REAL NOT NULL,"
    " lost_work REAL NOT NULL, restarts INTEGER NOT NULL, preemptions INTEGER NOT"
    " NULL, suspensions INTEGER NOT NULL, opportunistic INTEGER NOT NULL,"
    " engine_id INTEGER NOT NULL, last_seq INTEGER, emu BLOB, PRIMARY KEY (run,"
    " id), UNIQUE (run, name));"
    "CREATE TABLE placements (run INTEGER NOT NULL, job INTEGER NOT NULL,"
    " engine_id INTEGER NOT NULL, chain INTEGER NOT NULL, pin INTEGER, priority"
    " INTEGER NOT NULL, orig_priority INTEGER NOT NULL, lazy INTEGER NOT NULL,"
    " downgraded INTEGER NOT NULL, pod_first BLOB NOT NULL, leaves BLOB NOT NULL,"
    " vleaves BLOB, nodes TEXT NOT NULL, gpus TEXT NOT NULL, PRIMARY KEY (run,"
    " job), FOREIGN KEY (run, job) REFERENCES jobs(run, id) ON DELETE CASCADE)"
    " WITHOUT ROWID;"
    "CREATE TABLE health (run INTEGER NOT NULL REFERENCES runs(id) ON DELETE"
    " CASCADE, node TEXT NOT NULL, bad INTEGER NOT NULL, since REAL NOT NULL,"
    " PRIMARY KEY (run, node)) WITHOUT ROWID;"
    "CREATE TABLE events (seq INTEGER PRIMARY KEY, run INTEGER NOT NULL"
    " REFERENCES runs(id) ON DELETE CASCADE, t REAL NOT NULL, kind TEXT NOT NULL,"
    " job INTEGER, vc INTEGER, cell INTEGER, by_job INTEGER, detail TEXT NOT NULL"
    " DEFAULT '', prev INTEGER);"
    "CREATE INDEX events_run ON events(run, seq);"
    "CREATE TABLE heads (run INTEGER NOT NULL REFERENCES runs(id) ON DELETE"
    " CASCADE, job INTEGER NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (run,"
    " job)) WITHOUT ROWID;"
    "CREATE TABLE series (run INTEGER NOT NULL REFERENCES runs(id) ON DELETE"
    " CASCADE, t REAL NOT NULL, pending INTEGER NOT NULL, running INTEGER NOT"
    " NULL, used INTEGER NOT NULL, opp INTEGER NOT NULL, bad INTEGER NOT NULL,"
    " frag REAL NOT NULL, PRIMARY KEY (run, t)) WITHOUT ROWID;"
    "CREATE TABLE audit (id INTEGER PRIMARY KEY, at REAL NOT NULL, user TEXT NOT"
    " NULL, run INTEGER, cmdline TEXT NOT NULL, status INTEGER NOT NULL);";

/* Its data: a run, a job with three events linked, its head. */
static const char data_v1[] =
    "INSERT INTO specs VALUES (1, 'h', 'p', 't', 0);"
    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
    " VALUES (1, 'session', 1, 'hived', 'done', 0, 0, 'u');"
    "INSERT INTO jobs VALUES (1, 0, 'old', 'u', 0, 0, '1x1', 1, -1,"
    " 'guaranteed', 0, -1, NULL, 0, 0, 'cancelled', 'None', 2, 1, 2, 1, 1, 1,"
    " 1, 0, 0, 0, 0, 0, 0, -1, 3, NULL);"
    "INSERT INTO events VALUES (1, 1, 0, 'submit', 0, 0, NULL, NULL, '', NULL);"
    "INSERT INTO events VALUES (2, 1, 1, 'start', 0, 0, NULL, NULL, '', 1);"
    "INSERT INTO events VALUES (3, 1, 2, 'release', 0, 0, NULL, NULL, '', 2);"
    "INSERT INTO heads VALUES (1, 0, 3);"
    "PRAGMA user_version = 1;"
    "PRAGMA application_id = 1130720364;";

static int
seq_cb(void *arg, const struct store_event *ev)
{
	strbuf_addf(arg, "%lld:%s ", (long long)ev->seq, rec_kind_name(ev->rec.kind));
	return 0;
}

static void
probs_cb(void *arg, const char *p)
{
	strbuf_addf(arg, "%s\n", p);
}

/* "ID@CHG " per job. */
static int
ids_cb(void *arg, const struct store_job *sj)
{
	strbuf_addf(arg, "%d@%lld ", sj->job.id, (long long)sj->chg);
	return 0;
}

static void
test_migrations(void)
{
	static const struct store_migration fake[] = {
		{ 0, NULL, NULL },		/* replaced below */
		{ STORE_SCHEMA_VERSION, "ALTER TABLE runs ADD COLUMN note TEXT",
		  fake_fn },
	};
	static const struct store_migration bad[] = {
		{ STORE_SCHEMA_VERSION + 1,
		  "CREATE TABLE extra(x); ALTER TABLE nosuch ADD COLUMN y", NULL },
	};
	struct store_migration steps[2];
	struct store_event_filter f;
	struct strbuf sb = STRBUF_INIT;
	struct store_job sj;
	struct store *st = NULL;
	char *cause = NULL;
	sqlite3_stmt *q;
	const char *path = tmp_path("v0.db");
	int np = -1;

	/* A hand-made "v0" database: an empty SQLite file. */
	raw_sql(path, "PRAGMA user_version = 0");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	CHECK(store_audit_append(st, 0, "x", 0, &cause) == 0);

	/* The next version with a fake step (SQL and a function). */
	memcpy(steps, fake, sizeof steps);
	steps[0].sql = store_schema_sql;
	CHECK(store_exec(st, "INSERT INTO specs VALUES (1, 'h', 'p', 't', 0); "
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user) "
	    "VALUES (1, 'session', 1, 'hived', 'done', 0, 0, 'u')", &cause) == 0);
	CHECK(store_migrate(st, steps, 2, STORE_SCHEMA_VERSION + 1, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION + 1);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT note FROM runs", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_STREQ((const char *)sqlite3_column_text(q, 0), "migrated");
	sqlite3_finalize(q);

	/* A failing step: nothing of it stays, the version neither; its SQL
	   does not fit the tables, so the store is called damaged. */
	CHECK(store_migrate(st, bad, 1, STORE_SCHEMA_VERSION + 2, &cause) == STORE_MISMATCH);
	CHECKF(cause != NULL && strstr(cause, "no such table: nosuch") != NULL, "%s", cause);
	CHECKF(cause != NULL && strstr(cause, "tables do not match it") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION + 1);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT * FROM extra", -1, &q, NULL) != SQLITE_OK);
	/* No step from here: refused with a message. */
	CHECK(store_migrate(st, fake, 1, STORE_SCHEMA_VERSION + 3, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "knows no way from there") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;
	/* Asked to go back: refused. */
	CHECK(store_migrate(st, fake, 2, 4, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "newer than this cellar") != NULL);
	free(cause);
	cause = NULL;
	store_close(st);

	/* A real version 1 database, by hand: opened, it is migrated to the
	   newest. */
	path = tmp_path("v1.db");
	raw_sql(path, schema_v1);
	raw_sql(path, data_v1);
	/* Read-only, on a file we may write: migrated, then read. */
	CHECK(store_open(path, 0, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK(!store_writable(st));
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	store_close(st);
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT 1 FROM pragma_table_info('jobs') "
	    "WHERE name = 'last_seq'", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_DONE);	/* the column is gone */
	sqlite3_finalize(q);
	CHECK(store_job_find(st, 1, "old", &sj, &cause) == 0);
	CHECK_INTEQ(sj.last_seq, 3);		/* from the tail, without heads */
	CHECK_INTEQ(sj.job.state, JOB_CANCELLED);
	store_job_release(&sj);
	store_event_filter_init(&f);
	f.run = 1;
	f.job = 0;
	CHECK(store_event_query(st, &f, seq_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:submit 2:start 3:release ");
	strbuf_reset(&sb);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	store_close(st);
}

/* Today's jobs as version 7 had them: without priority and weight. */
/* As version 8 had them: every name in UNIQUE (run, name), nothing traced. */
#define V8_JOBS \
    "DROP INDEX jobs_name; DROP TABLE jobs;" \
    "CREATE TABLE jobs (run INTEGER NOT NULL REFERENCES runs(id) ON " \
    "DELETE CASCADE, id INTEGER NOT NULL, name TEXT NOT NULL, user TEXT " \
    "NOT NULL DEFAULT '', vc INTEGER NOT NULL, submit REAL NOT NULL, " \
    "members TEXT NOT NULL, gpus INTEGER NOT NULL, leaf_type INTEGER " \
    "NOT NULL, class TEXT NOT NULL, soft_affinity INTEGER NOT NULL, " \
    "duration REAL NOT NULL, model TEXT, elastic_min INTEGER NOT NULL, " \
    "elastic_max INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT NOT " \
    "NULL, state_since REAL NOT NULL, first_start REAL NOT NULL, " \
    "end_time REAL NOT NULL, queued REAL NOT NULL, attained REAL NOT " \
    "NULL, run_time REAL NOT NULL, work_done REAL NOT NULL, ckpt_work " \
    "REAL NOT NULL, lost_work REAL NOT NULL, restarts INTEGER NOT NULL, " \
    "preemptions INTEGER NOT NULL, suspensions INTEGER NOT NULL, " \
    "opportunistic INTEGER NOT NULL, engine_id INTEGER NOT NULL, emu " \
    "BLOB, priority INTEGER NOT NULL DEFAULT 0, weight INTEGER NOT NULL " \
    "DEFAULT 1, PRIMARY KEY (run, id), UNIQUE (run, name));"
#define V7_JOBS \
    V8_JOBS \
    "ALTER TABLE jobs DROP COLUMN priority;" \
    "ALTER TABLE jobs DROP COLUMN weight;"
/* As version 5 had them: without change numbers either. */
#define V5_JOBS \
    V7_JOBS \
    "DROP TABLE job_changes;"
/* As version 6 had them: a change number in each row, and its index. */
#define V6_JOBS \
    V5_JOBS \
    "ALTER TABLE jobs ADD COLUMN chg INTEGER NOT NULL DEFAULT 0;" \
    "CREATE INDEX jobs_chg ON jobs(run, chg);"

/* The jobs table's columns: "name type pk default,...". */
#define JOB_COLUMNS_SQL \
    "SELECT group_concat(name || ' ' || type || ' ' || pk || ' ' || " \
    "coalesce(dflt_value, ''), ',') FROM pragma_table_info('jobs')"

/*
 * sql's one text value on st, which must be the same on a new store: what
 * a migration must leave as a new database has it. out gets st's.
 */
static void
same_as_new(struct store *st, const char *sql, struct strbuf *out)
{
	struct store *fresh = NULL;
	sqlite3_stmt *q;
	char *cause = NULL;
	int i;

	strbuf_reset(out);
	CHECK(store_open(":memory:", STORE_WRITE, &fresh, &cause) == 0);
	for (i = 0; i < 2; i++) {
		CHECK(sqlite3_prepare_v2((i == 0 ? st : fresh)->db, sql, -1, &q,
		    NULL) == SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW);
		if (i == 0)
			strbuf_addf(out, "%s", (const char *)sqlite3_column_text(q, 0));
		else
			CHECK_STREQ(out->buf, (const char *)sqlite3_column_text(q, 0));
		sqlite3_finalize(q);
	}
	store_close(fresh);
}

/* A full load's "ID@CHG ". */
static int
load_ids(struct store *st, int64_t run, struct strbuf *sb)
{
	char *cause = NULL;
	int rc;

	strbuf_reset(sb);
	rc = store_job_load(st, run, ids_cb, sb, &cause);
	free(cause);
	return rc;
}

/*
 * A version 6 database (change numbers in jobs.chg, indexed) with a run of
 * three jobs written by two transactions: opened for writing it is
 * migrated to 7, its jobs table has a new database's columns and the
 * index is gone, the numbers start over (nothing is above 0; a full load
 * says 0; a follower that had read up to 2 sees nothing newer, so it
 * rebuilds on the next change, which is numbered 1), and db check is
 * clean.
 */
static void
test_migration_6_7(void)
{
	struct strbuf sb = STRBUF_INIT, cols = STRBUF_INIT;
	struct store *st = NULL;
	char *cause = NULL;
	const char *path = tmp_path("v6.db");
	sqlite3_stmt *q;
	struct job j;
	int np = -1;

	raw_schema_v9(path);
	raw_sql(path, V6_JOBS
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u');"
	    "INSERT INTO jobs VALUES (1, 0, 'a', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL, 1);"
	    "INSERT INTO jobs VALUES (1, 1, 'b', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL, 2);"
	    "INSERT INTO jobs VALUES (1, 2, 'c', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL, 2);"
	    "PRAGMA user_version = 6; PRAGMA application_id = 1130720364;");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	/* the jobs table of a new database, without the index */
	same_as_new(st, "SELECT group_concat(name || ' ' || type || ' ' || pk, ',') "
	    "FROM pragma_table_info('jobs')", &cols);
	CHECK(strstr(cols.buf, "chg") == NULL);
	CHECK(strstr(cols.buf, "engine_id INTEGER 0,emu BLOB 0") != NULL);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT count(*) FROM sqlite_master WHERE "
	    "name = 'jobs_chg'", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_INTEQ(sqlite3_column_int(q, 0), 0);
	sqlite3_finalize(q);
	CHECK(load_ids(st, 1, &sb) == 0);
	CHECK_STREQ(sb.buf, "0@0 1@0 2@0 ");
	strbuf_reset(&sb);
	CHECK(store_job_load_since(st, 1, 0, ids_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "");
	CHECK(store_job_load_since(st, 1, 2, ids_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "");
	/* a write after the migration: number 1 */
	job_init(&j, 1, "b", 0, 0);
	CHECK(store_job_put(st, 1, &j, &cause) == 0);
	CHECK(store_job_load_since(st, 1, 0, ids_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1@1 ");
	CHECK(load_ids(st, 1, &sb) == 0);
	CHECK_STREQ(sb.buf, "0@1 1@1 2@1 ");
	strbuf_reset(&sb);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&cols);
	store_close(st);
}

/*
 * A version 7 database (jobs without priority and weight) with a job:
 * opened for writing it is migrated to 8, its jobs table has a new
 * database's columns, the old job reads priority 0 and weight 1, a job
 * written after keeps its own, and db check is clean.
 */
static void
test_migration_7_8(void)
{
	struct strbuf sb = STRBUF_INIT, cols = STRBUF_INIT;
	struct store *st = NULL;
	struct store_job sj;
	char *cause = NULL;
	const char *path = tmp_path("v7.db");
	struct job j;
	int np = -1;

	raw_schema_v9(path);
	raw_sql(path, V7_JOBS
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u');"
	    "INSERT INTO jobs VALUES (1, 0, 'a', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL);"
	    "PRAGMA user_version = 7; PRAGMA application_id = 1130720364;");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	same_as_new(st, JOB_COLUMNS_SQL, &cols);
	CHECKF(strstr(cols.buf, "emu BLOB 0 ,priority INTEGER 0 0,weight INTEGER 0 1")
	    != NULL, "%s", cols.buf);
	store_job_init(&sj);
	CHECK(store_job_find(st, 1, "a", &sj, &cause) == 0);
	CHECK(sj.job.priority == 0 && sj.job.weight == 1);
	store_job_release(&sj);
	job_init(&j, 1, "b", 0, 0);
	j.priority = 7;
	j.weight = 3;
	CHECK(store_job_put(st, 1, &j, &cause) == 0);
	store_job_init(&sj);
	CHECK(store_job_find(st, 1, "b", &sj, &cause) == 0);
	CHECK(sj.job.priority == 7 && sj.job.weight == 3);
	store_job_release(&sj);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&cols);
	store_close(st);
}

/*
 * A version 10 database with an audit row: migrated to 11, the audit has
 * a new database's columns, and the old row reads as a change that ran
 * once (no reason, not refused, count 1).
 */
static int
audit_cb(void *arg, const struct store_audit *a)
{
	strbuf_addf(arg, "%s:%s:%d:%s:%d:%lld ", a->user, a->cmdline, a->status,
	    a->reason != NULL ? a->reason : "-", a->refused, a->count);
	return 0;
}

static void
test_migration_10_11(void)
{
	struct strbuf sb = STRBUF_INIT, cols = STRBUF_INIT;
	struct store *st = NULL;
	char *cause = NULL;
	const char *path = tmp_path("v10.db");

	raw_schema_v10(path);
	raw_sql(path, "INSERT INTO audit(at, user, run, cmdline, status) VALUES "
	    "(1, 'u', NULL, 'node bad n1', 0);"
	    "PRAGMA user_version = 10; PRAGMA application_id = 1130720364;");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	if (st == NULL)
		return;
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	same_as_new(st, "SELECT group_concat(name || ' ' || type || ' ' || "
	    "coalesce(dflt_value, ''), ',') FROM pragma_table_info('audit')", &cols);
	strbuf_reset(&cols);
	same_as_new(st, "SELECT group_concat(name || ' ' || type || ' ' || "
	    "coalesce(dflt_value, ''), ',') FROM pragma_table_info('jobs')", &cols);
	CHECK(store_audit_list(st, audit_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "u:node bad n1:0:-:0:1 ");
	strbuf_release(&sb);
	strbuf_release(&cols);
	store_close(st);
}

/*
 * A version 8 database (every name in UNIQUE (run, name)) with a session's
 * job holding cells and with a log, and a replay's two jobs, one holding
 * cells: migrated to 9, its tables have a new database's columns, the
 * replay's jobs are traced and the session's not, the placements and the
 * log are still there (the old table's drop did not cascade), both kinds
 * are found by name, a session's name is still unique, and db check finds
 * nothing.
 */
static void
test_migration_8_9(void)
{
	struct strbuf sb = STRBUF_INIT, cols = STRBUF_INIT;
	struct store *st = NULL;
	struct store_job sj;
	char *cause = NULL, *text = NULL;
	const char *path = tmp_path("v8.db");
	sqlite3_stmt *q;
	size_t len = 0;
	int np = -1;

	raw_schema_v9(path);
	raw_sql(path, V8_JOBS
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u'),"
	    " (2, 'replay', 1, 'hived', 'running', 0, 0, 'u');"
	    "INSERT INTO jobs VALUES (1, 0, 'a', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'running', 'None', 2, 2, -1, 0, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, 0, NULL, 0, 1),"
	    " (2, 0, 'x', '', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, 5, NULL, 0, 0, 'running', 'None', 2, 2, -1, 0, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, 0, x'01', 0, 1),"
	    " (2, 1, 'y', '', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, 5, NULL, 0, 0, 'pending', 'Resources', 2, -1, -1,"
	    " 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1, x'02', 0, 1);"
	    "INSERT INTO placements VALUES (1, 0, 0, 0, NULL, 0, 0, 0, 0,"
	    " x'0000000001000000', x'00000000', NULL, 'n0', 'n0:0'),"
	    " (2, 0, 0, 0, NULL, 0, 0, 0, 0,"
	    " x'0000000001000000', x'00000000', NULL, 'n0', 'n0:0');"
	    "INSERT INTO job_logs VALUES (1, 0, 'hello');"
	    "PRAGMA user_version = 8; PRAGMA application_id = 1130720364;");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	same_as_new(st, JOB_COLUMNS_SQL, &cols);
	same_as_new(st, "SELECT group_concat(name || ' ' || coalesce(sql, ''), ',') "
	    "FROM (SELECT name, sql FROM sqlite_schema WHERE tbl_name IN "
	    "('jobs', 'placements', 'job_logs') AND type = 'index' ORDER BY name)",
	    &cols);
	/* on to 11: a session's name may repeat (reused once its job ended) */
	CHECKF(strstr(cols.buf, "jobs_name CREATE INDEX jobs_name ON "
	    "jobs(run, name, id) WHERE traced = 0") != NULL, "%s", cols.buf);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT group_concat(run || '.' || id || "
	    "'=' || traced, ' ') FROM (SELECT * FROM jobs ORDER BY run, id)", -1,
	    &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_STREQ((const char *)sqlite3_column_text(q, 0), "1.0=0 2.0=1 2.1=1");
	sqlite3_finalize(q);
	store_job_init(&sj);
	CHECK(store_job_find(st, 1, "a", &sj, &cause) == 0);
	CHECK(sj.placed);
	store_job_release(&sj);
	CHECK(store_job_find(st, 2, "x", &sj, &cause) == 0);
	CHECK(sj.placed && sj.blob_len == 1);
	store_job_release(&sj);
	CHECK(store_job_log_get(st, 1, 0, &text, &len, &cause) == 0);
	CHECK(text != NULL && strcmp(text, "hello") == 0);
	free(text);
	CHECK(store_exec(st, "INSERT INTO jobs(run, id, name, vc, submit, members, "
	    "gpus, leaf_type, class, soft_affinity, duration, elastic_min, "
	    "elastic_max, state, reason, state_since, first_start, end_time, queued, "
	    "attained, run_time, work_done, ckpt_work, lost_work, restarts, "
	    "preemptions, suspensions, opportunistic, engine_id) VALUES (1, 5, 'a', "
	    "0, 0, '1x1', 1, -1, 'guaranteed', 0, -1, 0, 0, 'pending', 'None', 0, "
	    "-1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1)", &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	/* by name, the newest */
	CHECK(store_job_find(st, 1, "a", &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.id, 5);
	store_job_release(&sj);
	CHECK(store_job_find(st, 1, "%0", &sj, &cause) == 0);
	CHECK(sj.job.id == 0 && sj.placed);
	store_job_release(&sj);
	/* but two of a name not ended (0 runs, 5 is pending) is a fault */
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 1 && strstr(sb.buf, "run 1: job name 'a' is used by 2 jobs "
	    "that have not ended") != NULL, "%s", sb.buf);
	strbuf_reset(&sb);
	CHECK(store_exec(st, "UPDATE jobs SET state = 'completed' WHERE run = 1 "
	    "AND id = 0; DELETE FROM placements WHERE run = 1 AND job = 0",
	    &cause) == 0);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	strbuf_release(&cols);
	store_close(st);
}

/*
 * A version 4 database (today's schema without job_logs) with a live job:
 * opened for writing it is migrated to 5, the job's log can be written
 * and read back (the newest STORE_LOG_MAX bytes of a longer one), a job
 * without one reads "", and db check is clean.
 */
static void
test_migration_4_5(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct store *st = NULL;
	char *cause = NULL, *text = NULL, *big;
	const char *path = tmp_path("v4.db");
	size_t len = 0, i, n = STORE_LOG_MAX + 1000;
	int np = -1;

	raw_schema_v9(path);
	raw_sql(path, V5_JOBS "DROP TABLE job_logs;"
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u');"
	    "INSERT INTO jobs VALUES (1, 0, 'a', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'running', 'None', 2, 1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL);"
	    "INSERT INTO jobs VALUES (1, 1, 'b', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL);"
	    "PRAGMA user_version = 4; PRAGMA application_id = 1130720364;");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	CHECK(store_job_log_get(st, 1, 0, &text, &len, &cause) == 0);
	CHECK(text != NULL && len == 0 && strcmp(text, "") == 0);
	free(text);
	CHECK(store_job_log_put(st, 1, 0, "hello\n", 6, &cause) == 0);
	CHECK(store_job_log_get(st, 1, 0, &text, &len, &cause) == 0);
	CHECK(len == 6 && text != NULL && strcmp(text, "hello\n") == 0);
	free(text);
	/* longer than the cap: the newest bytes stay */
	big = xmalloc(n);
	for (i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	CHECK(store_job_log_put(st, 1, 0, big, n, &cause) == 0);
	CHECK(store_job_log_get(st, 1, 0, &text, &len, &cause) == 0);
	CHECK_INTEQ((long long)len, STORE_LOG_MAX);
	CHECK(text != NULL && memcmp(text, big + n - STORE_LOG_MAX, STORE_LOG_MAX) == 0);
	free(text);
	free(big);
	CHECK(store_job_log_get(st, 1, 1, &text, &len, &cause) == 0);
	CHECK(text != NULL && len == 0);
	free(text);
	/* a job the run does not have: refused by the key */
	CHECK(store_job_log_put(st, 1, 7, "x", 1, &cause) != 0);
	CHECK(cause != NULL);
	free(cause);
	cause = NULL;
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	store_close(st);
}

/* Today's schema with version 3's event table instead of the blocks (and
   without version 5's job_logs). */
#define V3_EVENTS \
    V5_JOBS \
    "DROP TABLE job_logs;" \
    "DROP TABLE event_blocks;" \
    "CREATE TABLE events (seq INTEGER PRIMARY KEY, run INTEGER NOT NULL" \
    " REFERENCES runs(id) ON DELETE CASCADE, t REAL NOT NULL, kind TEXT NOT NULL," \
    " job INTEGER, vc INTEGER, cell INTEGER, by_job INTEGER, detail TEXT NOT NULL" \
    " DEFAULT '', prev INTEGER);" \
    "CREATE INDEX events_run ON events(run, seq, job);"

static int
all_cb(void *arg, const struct store_event *ev)
{
	strbuf_addf(arg, "%lld:%lld:%g:%s:%d:%d:%d:%d:%s:%s ", (long long)ev->seq,
	    (long long)ev->run, ev->rec.t, rec_kind_name(ev->rec.kind), ev->rec.job,
	    ev->rec.vc, ev->rec.cell, ev->rec.by, ev->rec.detail,
	    ev->job_name != NULL ? ev->job_name : "-");
	return 0;
}

/*
 * A version 3 database with two runs' events interleaved, a gap in the
 * seqs and a job history across both: migrated to 4, every reader sees the
 * same events (all, per run, per job, newest first), the blocks split where
 * the run changes or the seqs jump, new events go after the highest seq,
 * and db check is clean; a flipped byte in a block is then reported.
 */
static void
test_migration_3_4(void)
{
	struct store_event_filter f;
	struct strbuf sb = STRBUF_INIT;
	struct store *st = NULL;
	struct store_job sj;
	struct rec r;
	sqlite3_stmt *q;
	char *cause = NULL;
	const char *path = tmp_path("v3.db");
	int64_t seq = 0;
	int np = -1, nblocks = 0;

	raw_schema_v9(path);
	raw_sql(path, V3_EVENTS);
	raw_sql(path,
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u'),"
	    " (2, 'replay', 1, 'hived', 'done', 0, 0, 'u');"
	    "INSERT INTO jobs VALUES (1, 0, 'a', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'running', 'None', 2, 1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL);"
	    "INSERT INTO jobs VALUES (2, 0, 'b', 'u', 0, 0, '1x1', 1, -1,"
	    " 'guaranteed', 0, -1, NULL, 0, 0, 'pending', 'None', 2, -1, -1, 1, 1, 1,"
	    " 1, 0, 0, 0, 0, 0, 0, -1, NULL);"
	    "INSERT INTO events VALUES (1, 1, 0, 'submit', 0, 0, NULL, NULL, '', NULL);"
	    "INSERT INTO events VALUES (2, 1, 1.5, 'start', 0, 0, 3, NULL, 'on n1', 1);"
	    "INSERT INTO events VALUES (3, 2, 2, 'submit', 0, 0, NULL, NULL, '', NULL);"
	    "INSERT INTO events VALUES (4, 1, 3, 'node-bad', NULL, NULL, 5, NULL, 'x', NULL);"
	    "INSERT INTO events VALUES (7, 1, 4, 'preempt', 0, 0, 3, 0, '', 2);"
	    "INSERT INTO events VALUES (8, 1, 5, 'resume', 0, 0, 3, NULL, '', 7);"
	    "PRAGMA user_version = 3; PRAGMA application_id = 1130720364;");
	/* A command that only reads (the first after an upgrade) migrates a
	   store it may write, and reads it. */
	CHECK(store_open(path, 0, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK(!store_writable(st));
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	store_event_filter_init(&f);
	f.run = 2;
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "3:2:2:submit:0:0:-1:-1::b ");
	strbuf_reset(&sb);
	store_close(st);
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	/* blocks: 1-2 (run 1), 3 (run 2), 4 (run 1), 7-8 (run 1, after the gap) */
	CHECK(sqlite3_prepare_v2(st->db, "SELECT count(*) FROM event_blocks", -1, &q,
	    NULL) == SQLITE_OK);
	if (sqlite3_step(q) == SQLITE_ROW)
		nblocks = sqlite3_column_int(q, 0);
	sqlite3_finalize(q);
	CHECK_INTEQ(nblocks, 4);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT 1 FROM sqlite_schema WHERE "
	    "name = 'events'", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_DONE);	/* the old table is gone */
	sqlite3_finalize(q);
	store_event_filter_init(&f);
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:1:0:submit:0:0:-1:-1::a 2:1:1.5:start:0:0:3:-1:on n1:a "
	    "3:2:2:submit:0:0:-1:-1::b 4:1:3:node-bad:-1:-1:5:-1:x:- "
	    "7:1:4:preempt:0:0:3:0::a 8:1:5:resume:0:0:3:-1::a ");
	strbuf_reset(&sb);
	f.run = 1;
	f.job = 0;
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:1:0:submit:0:0:-1:-1::a 2:1:1.5:start:0:0:3:-1:on n1:a "
	    "7:1:4:preempt:0:0:3:0::a 8:1:5:resume:0:0:3:-1::a ");
	strbuf_reset(&sb);
	f.job = -1;
	f.limit = 2;
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "7:1:4:preempt:0:0:3:0::a 8:1:5:resume:0:0:3:-1::a ");
	strbuf_reset(&sb);
	f.limit = 0;
	f.after = 2;
	f.has_since = true;
	f.since = 3;
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "4:1:3:node-bad:-1:-1:5:-1:x:- 7:1:4:preempt:0:0:3:0::a "
	    "8:1:5:resume:0:0:3:-1::a ");
	strbuf_reset(&sb);
	CHECK(store_job_find(st, 1, "a", &sj, &cause) == 0);
	CHECK_INTEQ(sj.last_seq, 8);
	store_job_release(&sj);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_reset(&sb);
	/* A new event goes after the highest seq, linked to the job's last. */
	memset(&r, 0, sizeof r);
	r.kind = REC_COMPLETE;
	r.t = 6;
	r.job = 0;
	r.vc = 0;
	r.cell = r.by = -1;
	CHECK(store_event_append(st, 1, &r, &seq, &cause) == 0);
	CHECK_INTEQ(seq, 9);
	f.run = 1;
	f.job = 0;
	f.after = 0;
	f.has_since = false;
	CHECK(store_event_query(st, &f, seq_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:submit 2:start 7:preempt 8:resume 9:complete ");
	strbuf_reset(&sb);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_reset(&sb);
	/* A flipped byte in a block: db check names it, readers fail. */
	CHECK(store_exec(st, "UPDATE event_blocks SET data = "
	    "substr(data, 1, 10) || x'ff' || substr(data, 12) WHERE seq = 8", &cause) == 0);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 1 && strstr(sb.buf, "run 1: events 7-8 are malformed: checksum") != NULL,
	    "%d: %s", np, sb.buf);
	strbuf_reset(&sb);
	f.job = -1;
	CHECK(store_event_query(st, &f, all_cb, &sb, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "events 7-8 are malformed") != NULL, "%s",
	    cause);
	free(cause);
	strbuf_release(&sb);
	store_close(st);
}

static int
vc_cb(void *arg, const struct store_event *ev)
{
	strbuf_addf(arg, "%lld:%s:%s ", (long long)ev->seq, rec_kind_name(ev->rec.kind),
	    ev->vc_name ? ev->vc_name : "-");
	return 0;
}

/*
 * A version 2 database (today's schema without what 3 added) with a run
 * on a spec of two VCs and two events: migrated to 3, it has the engine
 * column and run_specs, and after a reconfiguration onto a spec whose VC
 * indices differ, each event keeps the VC name of its own spec.
 */
static void
test_migration_2_3(void)
{
	struct store_event_filter f;
	struct strbuf sb = STRBUF_INIT;
	struct store *st = NULL;
	struct rec r;
	char *cause = NULL;
	void *blob = NULL;
	size_t len = 0;
	const char *path = tmp_path("v2.db");
	int np = -1;

	raw_schema_v9(path);
	raw_sql(path, V3_EVENTS);
	raw_sql(path, "DROP TABLE run_specs; ALTER TABLE runs DROP COLUMN engine;"
	    "INSERT INTO specs VALUES (1, 'h1', 'a.yaml', 't1', 0);"
	    "INSERT INTO specs VALUES (2, 'h2', 'b.yaml', 't2', 0);"
	    "INSERT INTO spec_vcs VALUES (1, 0, 'dev', 8), (1, 1, 'prod', 8);"
	    "INSERT INTO spec_vcs VALUES (2, 0, 'prod', 8);"
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user)"
	    " VALUES (1, 'session', 1, 'hived', 'running', 0, 0, 'u');"
	    "INSERT INTO events VALUES (1, 1, 0, 'node-bad', NULL, 1, NULL, NULL, '', NULL);"
	    "PRAGMA user_version = 2; PRAGMA application_id = 1130720364;");
	/* Read-only while another connection holds the write lock: it
	   cannot migrate, says what to run, and leaves version 2. */
	setenv("CELLAR_BUSY_TIMEOUT", "50", 1);
	{
		sqlite3 *lk;

		CHECK(sqlite3_open(path, &lk) == SQLITE_OK);
		CHECK(sqlite3_exec(lk, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK);
		CHECK(store_open(path, 0, &st, &cause) == -1);
		CHECKF(cause != NULL && strstr(cause, "has schema version 2, older "
		    "than this cellar (11), and cannot be migrated here") != NULL &&
		    strstr(cause, "locked") != NULL &&
		    strstr(cause, "db vacuum', as a user who may write it") != NULL,
		    "%s", cause);
		free(cause);
		cause = NULL;
		sqlite3_exec(lk, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_close(lk);
	}
	unsetenv("CELLAR_BUSY_TIMEOUT");
	{
		sqlite3 *rd;
		sqlite3_stmt *q;

		CHECK(sqlite3_open(path, &rd) == SQLITE_OK);
		CHECK(sqlite3_prepare_v2(rd, "PRAGMA user_version", -1, &q, NULL) ==
		    SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 2);
		sqlite3_finalize(q);
		sqlite3_close(rd);
	}
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), STORE_SCHEMA_VERSION);
	CHECK(store_run_get_engine(st, 1, &blob, &len, &cause) == 0 && blob == NULL);
	CHECK(store_run_set_engine(st, 1, "xyz", 3, &cause) == 0);
	CHECK(store_run_get_engine(st, 1, &blob, &len, &cause) == 0 && len == 3 &&
	    memcmp(blob, "xyz", 3) == 0);
	free(blob);
	/* Reconfigured onto spec 2 after event 1; event 2 is on spec 2. */
	CHECK(store_run_set_spec(st, 1, 2, "quota", 1, &cause) == 0);
	memset(&r, 0, sizeof r);
	r.kind = REC_NODE_OK;
	r.job = r.cell = r.by = -1;
	r.vc = 0;
	CHECK(store_event_append(st, 1, &r, NULL, &cause) == 0);
	store_event_filter_init(&f);
	f.run = 1;
	CHECK(store_event_query(st, &f, vc_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:node-bad:prod 2:node-ok:prod ");
	strbuf_reset(&sb);
	f.vc_name = "prod";
	CHECK(store_event_query(st, &f, vc_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:node-bad:prod 2:node-ok:prod ");
	strbuf_reset(&sb);
	f.vc_name = NULL;
	f.vc = 1;	/* an index: only the first event's spec has 1 */
	CHECK(store_event_query(st, &f, vc_cb, &sb, &cause) == 0);
	CHECK_STREQ(sb.buf, "1:node-bad:prod ");
	strbuf_reset(&sb);
	CHECK(store_check(st, probs_cb, &sb, &np, &cause) == 0);
	CHECKF(np == 0, "%s", sb.buf);
	strbuf_release(&sb);
	store_close(st);
}

static int
hist_cb(void *arg, const struct store_event *ev)
{
	strbuf_addf(arg, "%lld ", (long long)ev->seq);
	return 0;
}

/* One job's events as "seq seq ...", through store_event_query. */
static char *
hist(struct store *st, int64_t run, int job)
{
	struct store_event_filter f;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	store_event_filter_init(&f);
	f.run = run;
	f.job = job;
	if (store_event_query(st, &f, hist_cb, &sb, &cause) != 0)
		strbuf_addf(&sb, "error: %s", cause);
	free(cause);
	return strbuf_detach(&sb, NULL);
}


/*
 * Job heads across checkpoints (every 3 events here), two writers in turn
 * on one file (the second's memory must notice the first's commits), more
 * runs at once than the writer keeps heads for, and readers that see only
 * checkpoint and tail.
 */
static void
test_heads(void)
{
	struct store *a = NULL, *b = NULL;
	struct strbuf probs = STRBUF_INIT;
	struct store_run r;
	struct job j;
	struct rec rec;
	char *cause = NULL, *h, want[6][512];
	const char *path = tmp_path("heads.db");
	int64_t runs[6], spec;
	int i, k, np = -1;

	CHECK(store_open(path, STORE_WRITE, &a, &cause) == 0);
	CHECK(store_open(path, STORE_WRITE, &b, &cause) == 0);
	a->heads_every = 3;
	b->heads_every = 3;
	CHECK(store_exec(a, "INSERT INTO specs VALUES (1, 'h', 'p', 't', 0)", &cause) == 0);
	spec = 1;
	for (k = 0; k < 6; k++) {
		store_run_init(&r);
		r.spec = spec;
		CHECK(store_run_create(a, &r, &cause) == 0);
		runs[k] = r.id;
		want[k][0] = '\0';
		for (i = 0; i < 3; i++) {
			job_init(&j, i, i == 0 ? "x" : i == 1 ? "y" : "z", 0, 0);
			CHECK(store_job_put(a, r.id, &j, &cause) == 0);
		}
	}
	memset(&rec, 0, sizeof rec);
	rec.cell = rec.by = -1;
	/* 96 events: writers take turns every 24, runs and jobs rotate. */
	for (i = 0; i < 96; i++) {
		struct store *w = (i / 24) % 2 ? b : a;
		int64_t seq;

		k = i % 6;
		rec.job = i % 5 == 0 ? 2 : 0;
		rec.t = i;
		CHECK(store_begin(w, &cause) == 0);
		CHECK(store_event_append(w, runs[k], &rec, &seq, &cause) == 0);
		CHECK(store_commit(w, &cause) == 0);
		if (rec.job == 0)
			snprintf(want[k] + strlen(want[k]), sizeof want[k] - strlen(want[k]),
			    "%lld ", (long long)seq);
	}
	for (k = 0; k < 6; k++) {
		h = hist(a, runs[k], 0);
		CHECKF(strcmp(h, want[k]) == 0, "run %d: [%.100s], want [%.100s]", k, h,
		    want[k]);
		free(h);
	}
	store_close(a);
	store_close(b);
	/* A reader of checkpoint and tail sees the same. */
	CHECK(store_open(path, 0, &a, &cause) == 0);
	for (k = 0; k < 6; k++) {
		h = hist(a, runs[k], 0);
		CHECKF(strcmp(h, want[k]) == 0, "reader, run %d: [%.100s], want [%.100s]", k, h,
		    want[k]);
		free(h);
	}
	CHECK(store_check(a, probs_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 0, "%s", probs.buf);
	{
		sqlite3_stmt *q;

		CHECK(sqlite3_prepare_v2(a->db, "SELECT count(*), min(upto) FROM heads",
		    -1, &q, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW);
		CHECKF(sqlite3_column_int(q, 0) == 6 && sqlite3_column_int(q, 1) > 0,
		    "%d checkpoints", sqlite3_column_int(q, 0));
		sqlite3_finalize(q);
	}
	/* A checkpoint that lies is found. */
	store_close(a);
	CHECK(store_open(path, STORE_WRITE, &a, &cause) == 0);
	CHECK(store_exec(a, "UPDATE heads SET seqs = zeroblob(8) || substr(seqs, 9)",
	    &cause) == 0);
	strbuf_reset(&probs);
	CHECK(store_check(a, probs_cb, &probs, &np, &cause) == 0);
	CHECKF(np > 0 && strstr(probs.buf, "its head says 0") != NULL, "%.300s", probs.buf);
	store_close(a);
	strbuf_release(&probs);
}

static void
test_cleanup(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	CHECK(system(cmd) == 0);
	free(cmd);
}

/* rows audit rows of about 3 KB each, in one transaction. */
static void
audit_rows(struct store *st, int rows)
{
	char line[3000], *cause = NULL;
	int i;

	memset(line, 'x', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	CHECK(store_begin(st, &cause) == 0);
	for (i = 0; i < rows; i++)
		CHECK(store_audit_append(st, 0, line, 0, &cause) == 0);
	CHECK(store_commit(st, &cause) == 0);
}

/*
 * WAL checkpoints on a second connection: with the writer's own turned
 * off, the database file keeps its size while the WAL takes the commit,
 * until the checkpointer copies it all; with them on again, the writer's
 * commit grows the file itself. A store in memory has no checkpointer.
 */
static void
test_wal_checkpointer(void)
{
	struct store *st = NULL, *ck = NULL, *ro = NULL;
	struct stat sb;
	char *cause = NULL;
	sqlite3_stmt *q;
	long long size;
	int wal = -1, done = -1;
	const char *path = tmp_path("ckpt.db");

	CHECK(store_open(":memory:", STORE_WRITE, &st, &cause) == 0);
	CHECK(store_wal_autocheckpoint(st, false, &cause) == 0);
	CHECK(store_open_checkpointer(st, &ck, &cause) == 0 && ck == NULL);
	store_close(st);

	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	/* a writer's own checkpoints wait for a long WAL (STORE_WAL_PAGES) */
	CHECK(sqlite3_prepare_v2(st->db, "PRAGMA wal_autocheckpoint", -1, &q,
	    NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW &&
	    sqlite3_column_int(q, 0) == STORE_WAL_PAGES);
	sqlite3_finalize(q);
	st->wal_pages = 1000;		/* SQLite's default: a short test */
	CHECK(store_open_checkpointer(st, &ck, &cause) == 0 && ck != NULL);
	CHECK(store_wal_autocheckpoint(st, false, &cause) == 0);
	CHECK(stat(path, &sb) == 0);
	size = (long long)sb.st_size;
	audit_rows(st, 2000);		/* ~1,500 pages: over SQLite's 1,000 */
	CHECK(stat(path, &sb) == 0);
	CHECK_INTEQ((long long)sb.st_size, size);
	CHECK(store_wal_checkpoint(ck, &wal, &done, &cause) == 0);
	CHECKF(wal > 1000 && done == wal, "wal %d pages, %d in the database",
	    wal, done);
	CHECK(stat(path, &sb) == 0);
	CHECKF((long long)sb.st_size > size + 1000LL * 4096, "%lld -> %lld bytes",
	    size, (long long)sb.st_size);
	size = (long long)sb.st_size;
	CHECK(store_wal_autocheckpoint(st, true, &cause) == 0);
	audit_rows(st, 2000);
	CHECK(stat(path, &sb) == 0);
	CHECKF((long long)sb.st_size > size + 1000LL * 4096, "%lld -> %lld bytes",
	    size, (long long)sb.st_size);
	/* what either copied reads back */
	CHECK(store_open(path, 0, &ro, &cause) == 0);
	CHECK(sqlite3_prepare_v2(ro->db, "SELECT count(*) FROM audit", -1, &q,
	    NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 4000);
	sqlite3_finalize(q);
	store_close(ro);
	store_close(ck);
	store_close(st);
	CHECKF(cause == NULL, "%s", cause);
}

/*
 * The writer's WAL goes through the cellar-wal VFS (store-vfs.c), which
 * holds a transaction's frames until its commit frame: a reader on the
 * default VFS, opened after each commit, reads every committed row at
 * once, for transactions of one frame to more than the VFS buffers
 * (~31 pages); a transaction rolled back leaves nothing. Were a commit's
 * frames left in the buffer, the reader's read of them from the file
 * would come out short (an I/O error) or the count would be behind.
 */
static void
test_wal_vfs(void)
{
	struct store *st = NULL;
	sqlite3_vfs *vfs = NULL;
	char *cause = NULL;
	const char *path = tmp_path("vfs.db");
	sqlite3_stmt *q;
	sqlite3 *rd;
	int i, total = 0;

	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECK(sqlite3_file_control(st->db, "main", SQLITE_FCNTL_VFS_POINTER,
	    &vfs) == SQLITE_OK && vfs != NULL);
	CHECKF(vfs != NULL && strcmp(vfs->zName, STORE_VFS) == 0, "vfs %s",
	    vfs != NULL ? vfs->zName : "none");
	/* 1 to 80 rows (~1 page each): whichever frame falls on the
	   buffer's end, the commit's among them */
	for (i = 1; i <= 80; i++) {
		audit_rows(st, i);
		total += i;
		CHECK(sqlite3_open_v2(path, &rd, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK);
		CHECK(sqlite3_prepare_v2(rd, "SELECT count(*), sum(length(cmdline)) "
		    "FROM audit", -1, &q, NULL) == SQLITE_OK);
		CHECK(sqlite3_step(q) == SQLITE_ROW);
		CHECKF(sqlite3_column_int(q, 0) == total &&
		    sqlite3_column_int64(q, 1) == 2999LL * total,
		    "after %d rows the reader counts %d", total,
		    sqlite3_column_int(q, 0));
		sqlite3_finalize(q);
		sqlite3_close(rd);
	}
	/* rolled back: neither in the file nor held for later */
	CHECK(store_begin(st, &cause) == 0);
	CHECK(store_audit_append(st, 0, "gone", 0, &cause) == 0);
	store_rollback(st);
	audit_rows(st, 1);
	CHECK(sqlite3_open_v2(path, &rd, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(rd, "SELECT count(*) FROM audit WHERE cmdline = "
	    "'gone'", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 0);
	sqlite3_finalize(q);
	sqlite3_close(rd);
	store_close(st);
	CHECKF(cause == NULL, "%s", cause);
}

#if defined(__SANITIZE_ADDRESS__)
#define MEM_CACHES	0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEM_CACHES	0
#endif
#endif
#ifndef MEM_CACHES
#define MEM_CACHES	1
#endif

/*
 * store-mem.c, installed by the first store_open: sizes and contents kept
 * across realloc within a class, across classes and past the largest; the
 * blocks of one class come back last-in first-out (glibc's own cache
 * keeps 7 of a size; 40 freed together come back in another order), and
 * never under AddressSanitizer.
 */
static void
test_allocator(void)
{
	static const int sizes[] = { 1, 15, 16, 17, 1000, 1024, 1025, 4096,
	    4400, 8192, 8193, 100000 };
	struct store *st = NULL;
	char *cause = NULL, *p[40], *q[40];
	size_t i, k;
	int lifo = 0;

	CHECK(store_open(":memory:", STORE_WRITE, &st, &cause) == 0);
	store_close(st);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char *a = sqlite3_malloc(sizes[i]), *b;
		int n2 = sizes[i] * 3 + 5;

		CHECK(a != NULL && ((uintptr_t)a & 7) == 0);
		CHECK_INTEQ(sqlite3_msize(a), sizes[i]);
		memset(a, 'a' + (int)i, (size_t)sizes[i]);
		b = sqlite3_realloc(a, n2);
		CHECK(b != NULL);
		CHECK(sqlite3_msize(b) >= (sqlite3_uint64)n2);
		for (k = 0; k < (size_t)sizes[i] && b[k] == 'a' + (int)i; k++)
			;
		CHECKF(k == (size_t)sizes[i], "size %d: byte %zu lost in realloc",
		    sizes[i], k);
		b = sqlite3_realloc(b, sizes[i] > 1 ? sizes[i] - 1 : 1);
		CHECK(b != NULL && b[0] == 'a' + (int)i);
		sqlite3_free(b);
	}
	for (i = 0; i < 40; i++)
		p[i] = sqlite3_malloc(1024);
	for (i = 0; i < 40; i++)
		sqlite3_free(p[i]);
	for (i = 0; i < 40; i++)
		q[i] = sqlite3_malloc(1024);
	for (i = 0; i < 40; i++)
		lifo += q[i] == p[39 - i];
	if (MEM_CACHES)
		CHECK_INTEQ(lifo, 40);
	else
		CHECK(lifo < 40);
	for (i = 0; i < 40; i++)
		sqlite3_free(q[i]);
}

static const struct test tests[] = {
	{ "allocator", test_allocator },
	{ "default-path", test_default_path },
	{ "wal-checkpointer", test_wal_checkpointer },
	{ "wal-vfs", test_wal_vfs },
	{ "modes", test_modes },
	{ "readonly-missing", test_readonly_missing },
	{ "memory-wal", test_memory_wal },
	{ "not-a-store", test_not_a_store },
	{ "migrations", test_migrations },
	{ "migration-2-3", test_migration_2_3 },
	{ "migration-3-4", test_migration_3_4 },
	{ "migration-4-5", test_migration_4_5 },
	{ "migration-6-7", test_migration_6_7 },
	{ "migration-7-8", test_migration_7_8 },
	{ "migration-8-9", test_migration_8_9 },
	{ "migration-10-11", test_migration_10_11 },
	{ "heads", test_heads },
	{ "cleanup", test_cleanup },
};

TEST_MAIN(tests)
