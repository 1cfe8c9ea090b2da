/*
 * store-migrate.c — the schema's versions: each step from one version to
 * the next (store_migrations[], its SQL and, where SQL cannot say it, a
 * function), and store_migrate, which runs them in one transaction. The
 * schema a new store gets is store/schema.sql (store_schema_sql, the step
 * from 0). store-open.c decides when to migrate; store-int.h states the
 * contract.
 */

#include "store/store-int.h"

#include <stdio.h>
#include <stdlib.h>

#include "core/xmalloc.h"

/* ---- migrations ---- */

int
store_pragma_int(struct store *st, const char *sql, long long *v, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, rc, cause);
	rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, rc, cause);
	return 0;
}

int
store_user_version(struct store *st, char **cause)
{
	long long v;

	if (store_pragma_int(st, "PRAGMA user_version", &v, cause) != 0)
		return -1;
	return (int)v;
}

/*
 * 1 -> 2: job heads become one checkpoint row per run (the per-job rows
 * cost a random write per event); the events index covers the job, for
 * the tail scans. Runs start without a checkpoint: their whole log is the
 * tail until the next one. Versions of 1 kept the heads in jobs.last_seq
 * instead; that column goes.
 */
static const char store_migrate_1_2[] =
    "DROP TABLE IF EXISTS heads;"
    "CREATE TABLE heads ("
    " run INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
    " upto INTEGER NOT NULL,"
    " seqs BLOB NOT NULL);"
    "DROP INDEX IF EXISTS events_run;"
    "CREATE INDEX events_run ON events(run, seq, job);";

static int
store_migrate_1_2_fn(struct store *st, char **cause)
{
	sqlite3_stmt *q;
	bool has = false;
	int rc;

	rc = sqlite3_prepare_v2(st->db, "SELECT 1 FROM pragma_table_info('jobs') "
	    "WHERE name = 'last_seq'", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, rc, cause);
	has = sqlite3_step(q) == SQLITE_ROW;
	sqlite3_finalize(q);
	return has ? store_exec(st, "ALTER TABLE jobs DROP COLUMN last_seq", cause) : 0;
}

/*
 * 2 -> 3: session runs keep their engine's bad marks and history counters
 * (runs.engine), and a run can change its spec (reconfiguration): the
 * specs it was on before, with the last event of each (run_specs). No run
 * has been reconfigured before this version, so the table starts empty.
 */
static const char store_migrate_2_3[] =
    "ALTER TABLE runs ADD COLUMN engine BLOB;"
    "CREATE TABLE run_specs ("
    " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " upto INTEGER NOT NULL,"
    " spec INTEGER NOT NULL REFERENCES specs(id),"
    " PRIMARY KEY (run, upto)) WITHOUT ROWID;";

/*
 * 3 -> 4: the event log as packed blocks (store-events.c), one row per
 * run and transaction instead of one per event; the rows of events move
 * into blocks, keeping their seqs, and the table and its index go.
 */
static const char store_migrate_3_4[] =
    "CREATE TABLE event_blocks ("
    " seq INTEGER PRIMARY KEY,"
    " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " first INTEGER NOT NULL,"
    " data BLOB NOT NULL);"
    "CREATE INDEX event_blocks_run ON event_blocks(run, seq);";

/*
 * 4 -> 5: live jobs keep their logs (job_logs); jobs before had theirs in
 * memory only, so the table starts empty.
 */
static const char store_migrate_4_5[] =
    "CREATE TABLE job_logs ("
    " run INTEGER NOT NULL,"
    " job INTEGER NOT NULL,"
    " text BLOB NOT NULL,"
    " PRIMARY KEY (run, job),"
    " FOREIGN KEY (run, job) REFERENCES jobs(run, id) ON DELETE CASCADE"
    ") WITHOUT ROWID;";

/*
 * 5 -> 6: a job row's change number (jobs.chg, store.h invariant 7) and
 * its index, so that a follower reads only the jobs written since its
 * last read. Rows from before start at 0: a follower's first read takes
 * every job anyway.
 */
static const char store_migrate_5_6[] =
    "ALTER TABLE jobs ADD COLUMN chg INTEGER NOT NULL DEFAULT 0;"
    "CREATE INDEX jobs_chg ON jobs(run, chg);";

/*
 * 6 -> 7: change numbers as one job_changes row per transaction instead of
 * a column of every job row and its index (the recorded replay's writer
 * paid for that index on every job write). The numbers start over: a
 * follower's first read takes every job anyway (a follower of an older
 * cellar cannot read the new table and says so).
 */
static const char store_migrate_6_7[] =
    "DROP INDEX jobs_chg;"
    "ALTER TABLE jobs DROP COLUMN chg;"
    "CREATE TABLE job_changes ("
    " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " chg INTEGER NOT NULL,"
    " jobs BLOB NOT NULL,"
    " PRIMARY KEY (run, chg)"
    ") WITHOUT ROWID;";

/* 7 -> 8: a job's priority and weight (rows from before: 0 and 1). */
static const char store_migrate_7_8[] =
    "ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN weight INTEGER NOT NULL DEFAULT 1;";

/*
 * 8 -> 9: a replay's jobs leave the unique name index (schema.sql:
 * jobs.traced, jobs_name). UNIQUE (run, name) was part of the table, so
 * the table is made again. Foreign keys are on in the migration's
 * transaction, so the old table is renamed away first (which points the
 * placements' and logs' references at it), its two children are made
 * again pointing at the new one, and it goes last, when nothing refers
 * to it (dropped earlier, its rows' deletion would cascade into theirs).
 * The jobs of replay runs are marked traced.
 */
static const char store_migrate_8_9[] =
    "ALTER TABLE jobs RENAME TO jobs_v8;"
    "CREATE TABLE jobs (run INTEGER NOT NULL REFERENCES runs(id) ON "
    "DELETE CASCADE, id INTEGER NOT NULL, name TEXT NOT NULL, user TEXT "
    "NOT NULL DEFAULT '', vc INTEGER NOT NULL, submit REAL NOT NULL, "
    "members TEXT NOT NULL, gpus INTEGER NOT NULL, leaf_type INTEGER NOT "
    "NULL, class TEXT NOT NULL, soft_affinity INTEGER NOT NULL, duration "
    "REAL NOT NULL, model TEXT, elastic_min INTEGER NOT NULL, elastic_max "
    "INTEGER NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL, "
    "state_since REAL NOT NULL, first_start REAL NOT NULL, end_time REAL "
    "NOT NULL, queued REAL NOT NULL, attained REAL NOT NULL, run_time "
    "REAL NOT NULL, work_done REAL NOT NULL, ckpt_work REAL NOT NULL, "
    "lost_work REAL NOT NULL, restarts INTEGER NOT NULL, preemptions "
    "INTEGER NOT NULL, suspensions INTEGER NOT NULL, opportunistic "
    "INTEGER NOT NULL, engine_id INTEGER NOT NULL, emu BLOB, priority "
    "INTEGER NOT NULL DEFAULT 0, weight INTEGER NOT NULL DEFAULT 1, "
    "traced INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (run, id));"
    "INSERT INTO jobs(run, id, name, user, vc, submit, members, gpus, "
    "leaf_type, class, soft_affinity, duration, model, elastic_min, "
    "elastic_max, state, reason, state_since, first_start, end_time, "
    "queued, attained, run_time, work_done, ckpt_work, lost_work, "
    "restarts, preemptions, suspensions, opportunistic, engine_id, emu, "
    "priority, weight, traced) SELECT run, id, name, user, vc, submit, "
    "members, gpus, leaf_type, class, soft_affinity, duration, model, "
    "elastic_min, elastic_max, state, reason, state_since, first_start, "
    "end_time, queued, attained, run_time, work_done, ckpt_work, "
    "lost_work, restarts, preemptions, suspensions, opportunistic, "
    "engine_id, emu, priority, weight, (SELECT r.kind = 'replay' FROM "
    "runs r WHERE r.id = jobs_v8.run) FROM jobs_v8;"
    "CREATE UNIQUE INDEX jobs_name ON jobs(run, name) WHERE traced = 0;"
    "ALTER TABLE placements RENAME TO placements_v8;"
    "CREATE TABLE placements (run INTEGER NOT NULL, job INTEGER NOT NULL, "
    "engine_id INTEGER NOT NULL, chain INTEGER NOT NULL, pin INTEGER, "
    "priority INTEGER NOT NULL, orig_priority INTEGER NOT NULL, lazy "
    "INTEGER NOT NULL, downgraded INTEGER NOT NULL, pod_first BLOB NOT "
    "NULL, leaves BLOB NOT NULL, vleaves BLOB, nodes TEXT NOT NULL, gpus "
    "TEXT NOT NULL, PRIMARY KEY (run, job), FOREIGN KEY (run, job) "
    "REFERENCES jobs(run, id) ON DELETE CASCADE) WITHOUT ROWID;"
    "INSERT INTO placements SELECT * FROM placements_v8;"
    "DROP TABLE placements_v8;"
    "ALTER TABLE job_logs RENAME TO job_logs_v8;"
    "CREATE TABLE job_logs (run INTEGER NOT NULL, job INTEGER NOT NULL, "
    "text BLOB NOT NULL, PRIMARY KEY (run, job), FOREIGN KEY (run, job) "
    "REFERENCES jobs(run, id) ON DELETE CASCADE) WITHOUT ROWID;"
    "INSERT INTO job_logs SELECT * FROM job_logs_v8;"
    "DROP TABLE job_logs_v8;"
    "DROP TABLE jobs_v8;";

/* Version 10: HiveD's fragmentation in the series (struct emu_sample). */
static const char store_migrate_9_10[] =
    "ALTER TABLE series ADD COLUMN frag_node REAL NOT NULL DEFAULT 0;";

/*
 * 10 -> 11: the uid and gid a live job runs as (cellar serve takes them
 * from its caller; rows from before: -1, unknown, their hooks run as the
 * server's user, as they did); the audit records a server's refusals
 * too: why (reason, also a failed change's cause), whether it was
 * refused, and how many refusals a row stands for (rows from before are
 * changes that ran, once); and a session's job name can be reused once
 * its job has ended (the old job keeps its row and events): jobs_name is
 * no longer unique, and holds the id so that "the newest of a name" is
 * one probe. Rows an older version renamed NAME~ID keep that name.
 */
static const char store_migrate_10_11[] =
    "ALTER TABLE jobs ADD COLUMN uid INTEGER NOT NULL DEFAULT -1;"
    "ALTER TABLE jobs ADD COLUMN gid INTEGER NOT NULL DEFAULT -1;"
    "ALTER TABLE audit ADD COLUMN reason TEXT;"
    "ALTER TABLE audit ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE audit ADD COLUMN count INTEGER NOT NULL DEFAULT 1;"
    "DROP INDEX jobs_name;"
    "CREATE INDEX jobs_name ON jobs(run, name, id) WHERE traced = 0;";

const struct store_migration store_migrations[] = {
	{ 0, store_schema_sql, NULL },
	{ 1, store_migrate_1_2, store_migrate_1_2_fn },
	{ 2, store_migrate_2_3, NULL },
	{ 3, store_migrate_3_4, store_migrate_3_4_fn },
	{ 4, store_migrate_4_5, NULL },
	{ 5, store_migrate_5_6, NULL },
	{ 6, store_migrate_6_7, NULL },
	{ 7, store_migrate_7_8, NULL },
	{ 8, store_migrate_8_9, NULL },
	{ 9, store_migrate_9_10, NULL },
	{ 10, store_migrate_10_11, NULL },
};
const int store_nmigrations = sizeof store_migrations / sizeof store_migrations[0];

int
store_migrate(struct store *st, const struct store_migration *steps, int nsteps,
    int target, char **cause)
{
	char sql[64];
	int v, v0, i;

	if (store_exec(st, "BEGIN IMMEDIATE", cause) != 0)
		return -1;
	/* Another process may have migrated while we waited for the lock. */
	if ((v0 = v = store_user_version(st, cause)) < 0)
		goto fail;
	if (v > target) {
		*cause = xasprintf("state store '%s' has schema version %d, newer "
		    "than this cellar (%d): upgrade cellar", st->path, v, target);
		goto fail;
	}
	while (v < target) {
		for (i = 0; i < nsteps; i++)
			if (steps[i].from == v)
				break;
		if (i == nsteps) {
			*cause = xasprintf("state store '%s' has schema version %d, and "
			    "this cellar knows no way from there to %d", st->path, v,
			    target);
			goto fail;
		}
		if ((steps[i].sql != NULL && store_exec(st, steps[i].sql, cause) != 0) ||
		    (steps[i].fn != NULL && steps[i].fn(st, cause) != 0))
			goto fail_step;
		v = v == 0 ? target : v + 1;
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
		if (store_exec(st, sql, cause) != 0)
			goto fail;
	}
	snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
	if (store_exec(st, sql, cause) != 0 || store_exec(st, "COMMIT", cause) != 0)
		goto fail;
	return 0;
fail_step:
	/* SQLITE_ERROR, not busy, full or read-only: the SQL of the step
	   does not fit the tables ("table x already exists", "no such
	   column"), so the version the file states is not the one its
	   tables are at. Rerunning cannot help, as any user. */
	if ((sqlite3_errcode(st->db) & 0xff) == SQLITE_ERROR) {
		char *why = *cause;

		*cause = xasprintf("state store '%s' says it has schema version %d, "
		    "but its tables do not match it (%s): it was damaged or edited "
		    "by another program, and no cellar command can migrate or "
		    "repair it; restore it from a copy", st->path, v0,
		    why != NULL ? why : "unknown error");
		free(why);
		if (!sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return STORE_MISMATCH;
	}
fail:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}
