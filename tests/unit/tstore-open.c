/*
 * tstore-open.c — opening the state store: the default path, modes 0600 and
 * 0700, a read-only open that creates nothing, :memory:, WAL mode, files
 * that are no cellar store, a newer schema refused, and the migration
 * machinery: a hand-made "v0" database, a fake step from 1 to 2, and a
 * failing step that leaves the database as it was.
 */
#include <errno.h>
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
	raw_sql(path, "PRAGMA user_version = 7");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "has schema version 7, newer than this "
	    "cellar (1): upgrade cellar") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK(store_open(path, 0, &st, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "upgrade cellar") != NULL);
	free(cause);
}

/* A fake migration: what a version 2 might add. */
static int
fake_fn(struct store *st, char **cause)
{
	return store_exec(st, "UPDATE runs SET note = 'migrated'", cause);
}

static void
test_migrations(void)
{
	static const struct store_migration good[] = {
		{ 0, NULL, NULL },		/* replaced below */
		{ 1, "ALTER TABLE runs ADD COLUMN note TEXT", fake_fn },
	};
	static const struct store_migration bad[] = {
		{ 2, "CREATE TABLE extra(x); ALTER TABLE nosuch ADD COLUMN y", NULL },
	};
	struct store_migration steps[2];
	struct store *st = NULL;
	char *cause = NULL;
	sqlite3_stmt *q;
	const char *path = tmp_path("v0.db");

	/* A hand-made "v0" database: an empty SQLite file. */
	raw_sql(path, "PRAGMA user_version = 0");
	CHECK(store_open(path, STORE_WRITE, &st, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), 1);
	CHECK(store_audit_append(st, 0, "x", 0, &cause) == 0);

	/* 1 -> 2 with a fake step (SQL and a function). */
	memcpy(steps, good, sizeof steps);
	steps[0].sql = store_schema_sql;
	CHECK(store_exec(st, "INSERT INTO specs VALUES (1, 'h', 'p', 't', 0); "
	    "INSERT INTO runs(id, kind, spec, mode, state, created, updated, user) "
	    "VALUES (1, 'session', 1, 'hived', 'done', 0, 0, 'u')", &cause) == 0);
	CHECK(store_migrate(st, steps, 2, 2, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(store_user_version(st, &cause), 2);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT note FROM runs", -1, &q, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(q) == SQLITE_ROW);
	CHECK_STREQ((const char *)sqlite3_column_text(q, 0), "migrated");
	sqlite3_finalize(q);

	/* A failing step: nothing of it stays, the version neither. */
	CHECK(store_migrate(st, bad, 1, 3, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "no such table: nosuch") != NULL, "%s", cause);
	free(cause);
	cause = NULL;
	CHECK_INTEQ(store_user_version(st, &cause), 2);
	CHECK(sqlite3_prepare_v2(st->db, "SELECT * FROM extra", -1, &q, NULL) != SQLITE_OK);
	/* No step from here: refused with a message. */
	CHECK(store_migrate(st, bad, 1, 5, &cause) == -1 || cause != NULL);
	free(cause);
	cause = NULL;
	CHECK(store_migrate(st, good, 1, 4, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "knows no way from there") != NULL, "%s",
	    cause);
	free(cause);
	cause = NULL;
	/* Asked to go back: refused. */
	CHECK(store_migrate(st, good, 2, 1, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "newer than this cellar") != NULL);
	free(cause);
	store_close(st);
}

static void
test_cleanup(void)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);

	CHECK(system(cmd) == 0);
	free(cmd);
}

static const struct test tests[] = {
	{ "default-path", test_default_path },
	{ "modes", test_modes },
	{ "readonly-missing", test_readonly_missing },
	{ "memory-wal", test_memory_wal },
	{ "not-a-store", test_not_a_store },
	{ "migrations", test_migrations },
	{ "cleanup", test_cleanup },
};

TEST_MAIN(tests)
