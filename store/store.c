/*
 * store.c — opening the state store (creating, checking and migrating its
 * schema), turning SQLite failures into messages people can act on,
 * transactions, and the small tables: specs, runs, node health, time
 * series and the audit log. Jobs and events are in store-job.c, db check
 * and vacuum in store-check.c, export and import in store-dump.c.
 *
 * Opening, in order: a missing store we may write is built whole under a
 * name of its own (PATH.new.PID, O_EXCL, mode 0600: SQLite never creates
 * it with the umask's mode) and linked into place (store_create, store.h
 * invariant 6); then the connection gets its busy timeout and foreign
 * keys; the header is read
 * (application_id, user_version: a file that is no database fails here);
 * then, for writing, WAL mode, synchronous=NORMAL (a commit is durable
 * once the WAL is synced at checkpoint; a power cut may lose the last
 * transactions, never corrupt the file), and the schema is created or
 * migrated in one transaction. A reader that cannot or must not make the
 * -wal and -shm files beside a store nobody has open reads it immutable
 * (store_read_mode).
 */
#include "store/store-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/xmalloc.h"

/* The SQL of every statement (store-int.h: enum store_stmt_id). */
#define RUN_COLS \
	"r.id, r.kind, r.spec, r.mode, r.policy, r.trace, r.params, r.seed, " \
	"r.state, r.now, r.created, r.updated, r.user, r.report, s.path, s.hash, " \
	"(SELECT count(*) FROM jobs j WHERE j.run = r.id)"
#define JOB_COLS \
	"j.id, j.name, j.user, j.vc, j.submit, j.members, j.gpus, j.leaf_type, " \
	"j.class, j.soft_affinity, j.duration, j.model, j.elastic_min, " \
	"j.elastic_max, j.state, j.reason, j.state_since, j.first_start, " \
	"j.end_time, j.queued, j.attained, j.run_time, j.work_done, j.ckpt_work, " \
	"j.lost_work, j.restarts, j.preemptions, j.suspensions, j.opportunistic, " \
	"j.engine_id, NULL, j.emu, " \
	"p.engine_id, p.chain, p.pin, p.priority, p.orig_priority, p.lazy, " \
	"p.downgraded, p.pod_first, p.leaves, p.vleaves, p.nodes, p.gpus, " \
	"j.priority, j.weight"
#define JOB_FROM \
	" FROM jobs j LEFT JOIN placements p ON p.run = j.run AND p.job = j.id"
/*
 * An event's indices are those of the spec its run was on when it was
 * written: the first run_specs row at or after its seq, else the run's
 * spec (schema.sql). Without reconfigurations the subquery finds nothing
 * at the cost of one index probe.
 */
#define EVENT_SPEC \
	"coalesce((SELECT rs.spec FROM run_specs rs WHERE rs.run = e.run" \
	" AND rs.upto >= e.seq ORDER BY rs.upto LIMIT 1), r.spec)"
#define EVENT_COLS \
	"e.seq, e.run, e.t, e.kind, e.job, e.vc, e.cell, e.by_job, e.detail, " \
	"j.name, b.name, v.name, " EVENT_SPEC
#define EVENT_FROM \
	" FROM events e" \
	" LEFT JOIN jobs j ON j.run = e.run AND j.id = e.job" \
	" LEFT JOIN jobs b ON b.run = e.run AND b.id = e.by_job" \
	" LEFT JOIN runs r ON r.id = e.run" \
	" LEFT JOIN spec_vcs v ON v.spec = " EVENT_SPEC " AND v.idx = e.vc"
#define EVENT_WHERE \
	" (?2 IS NULL OR e.t >= ?2) AND (?3 IS NULL OR e.vc = ?3)" \
	" AND (?4 IS NULL OR e.kind = ?4) AND e.seq > ?5" \
	" AND (?7 IS NULL OR v.name = ?7)"

/*
 * Insert or update every field of jobs, read from the job_rows virtual
 * table (store-jobrows.c) over the array bound as ?1; the two arguments
 * add columns and updates (the emulator's BLOB for replays). "WHERE true"
 * is SQLite's way to let an INSERT ... SELECT take an upsert clause.
 */
#define JOB_ROW_COLS \
	"run, id, name, user, vc, submit, members, gpus, leaf_type, class, " \
	"soft_affinity, duration, model, elastic_min, elastic_max, state, " \
	"reason, state_since, first_start, end_time, queued, attained, " \
	"run_time, work_done, ckpt_work, lost_work, restarts, preemptions, " \
	"suspensions, opportunistic, engine_id, priority, weight"
#define JOB_UPSERT(cols, sets) \
	"INSERT INTO jobs(" JOB_ROW_COLS cols ") SELECT " JOB_ROW_COLS cols \
	" FROM job_rows(?1) WHERE true " \
	"ON CONFLICT (run, id) DO UPDATE SET name = excluded.name, " \
	"user = excluded.user, vc = excluded.vc, submit = excluded.submit, " \
	"members = excluded.members, gpus = excluded.gpus, " \
	"leaf_type = excluded.leaf_type, class = excluded.class, " \
	"soft_affinity = excluded.soft_affinity, duration = excluded.duration, " \
	"model = excluded.model, elastic_min = excluded.elastic_min, " \
	"elastic_max = excluded.elastic_max, state = excluded.state, " \
	"reason = excluded.reason, state_since = excluded.state_since, " \
	"first_start = excluded.first_start, end_time = excluded.end_time, " \
	"queued = excluded.queued, attained = excluded.attained, " \
	"run_time = excluded.run_time, work_done = excluded.work_done, " \
	"ckpt_work = excluded.ckpt_work, lost_work = excluded.lost_work, " \
	"restarts = excluded.restarts, preemptions = excluded.preemptions, " \
	"suspensions = excluded.suspensions, " \
	"opportunistic = excluded.opportunistic, engine_id = excluded.engine_id, " \
	"priority = excluded.priority, weight = excluded.weight" sets

static const char *const store_sql[SQ_COUNT] = {
	[SQ_BEGIN] = "BEGIN IMMEDIATE",
	[SQ_COMMIT] = "COMMIT",
	[SQ_ROLLBACK] = "ROLLBACK",
	[SQ_SAVEPOINT] = "SAVEPOINT cellar_cmd",
	[SQ_RELEASE] = "RELEASE cellar_cmd",
	[SQ_ROLLBACK_TO] = "ROLLBACK TO cellar_cmd",
	[SQ_SPEC_BY_HASH] = "SELECT id, text FROM specs WHERE hash = ?1 ORDER BY id",
	[SQ_SPEC_INSERT] = "INSERT INTO specs(hash, path, text, created) "
	    "VALUES (?1, ?2, ?3, ?4)",
	[SQ_SPEC_VC_INSERT] = "INSERT INTO spec_vcs(spec, idx, name, gpus) "
	    "VALUES (?1, ?2, ?3, ?4)",
	[SQ_SPEC_GET] = "SELECT id, hash, path, text FROM specs WHERE id = ?1",
	[SQ_SPEC_VCS] = "SELECT idx, name, gpus FROM spec_vcs WHERE spec = ?1 "
	    "ORDER BY idx",
	[SQ_RUN_INSERT] = "INSERT INTO runs(kind, spec, mode, policy, trace, params, "
	    "seed, state, now, created, updated, user) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)",
	[SQ_RUN_GET] = "SELECT " RUN_COLS ", "
	    "(SELECT coalesce(sum(e.seq - e.first + 1), 0) FROM event_blocks e "
	    "WHERE e.run = r.id) "
	    "FROM runs r JOIN specs s ON s.id = r.spec WHERE r.id = ?1",
	[SQ_RUN_LAST] = "SELECT max(id) FROM runs",
	[SQ_RUN_LAST_KIND] = "SELECT max(id) FROM runs WHERE kind = ?1",
	[SQ_RUN_LIST] = "SELECT " RUN_COLS ", NULL "
	    "FROM runs r JOIN specs s ON s.id = r.spec ORDER BY r.id",
	[SQ_RUN_STATE] = "UPDATE runs SET state = ?2, now = ?3, updated = ?4 "
	    "WHERE id = ?1",
	[SQ_RUN_TOUCH] = "UPDATE runs SET now = ?2, updated = ?3 WHERE id = ?1",
	[SQ_RUN_REPORT] = "UPDATE runs SET report = ?2, updated = ?3 WHERE id = ?1",
	[SQ_RUN_BLOB_SET] = "UPDATE runs SET emu = ?2, updated = ?3 WHERE id = ?1",
	[SQ_RUN_BLOB_GET] = "SELECT emu FROM runs WHERE id = ?1",
	[SQ_RUN_SPEC_KEEP] = "INSERT INTO run_specs(run, upto, spec) "
	    "SELECT id, ?2, spec FROM runs WHERE id = ?1",
	[SQ_RUN_SPEC_SET] = "UPDATE runs SET spec = ?2, mode = ?3, updated = ?4 "
	    "WHERE id = ?1",
	[SQ_RUN_ENGINE_SET] = "UPDATE runs SET engine = ?2 WHERE id = ?1",
	[SQ_RUN_ENGINE_GET] = "SELECT engine FROM runs WHERE id = ?1",
	[SQ_RUN_INTERRUPT] = "UPDATE runs SET state = 'interrupted', updated = ?2 "
	    "WHERE kind = 'session' AND state = 'running' AND id != ?1",
	[SQ_JOB_UPSERT] = JOB_UPSERT("", ""),
	/* A replay's: with the emulator's state, and marked traced. */
	[SQ_JOB_UPSERT_EMU] = JOB_UPSERT(", emu, traced",
	    ", emu = excluded.emu, traced = excluded.traced"),
	[SQ_JOB_BLOB] = "UPDATE jobs SET emu = ?3 WHERE run = ?1 AND id = ?2",
	/* A run's newest change number (0: none), by the primary key. */
	[SQ_CHG_LAST] = "SELECT coalesce(max(chg), 0) FROM job_changes WHERE run = ?1",
	[SQ_CHG_INSERT] = "INSERT INTO job_changes(run, chg, jobs) VALUES (?1, ?2, ?3)",
	[SQ_CHG_SINCE] = "SELECT chg, jobs FROM job_changes WHERE run = ?1 AND chg > ?2 "
	    "ORDER BY chg",
	[SQ_JOB_LOG_PUT] = "INSERT OR REPLACE INTO job_logs(run, job, text) "
	    "VALUES (?1, ?2, ?3)",
	[SQ_JOB_LOG_GET] = "SELECT text FROM job_logs WHERE run = ?1 AND job = ?2",
	[SQ_HEAD_GET] = "SELECT upto, seqs FROM heads WHERE run = ?1",
	[SQ_HEAD_SET] = "INSERT OR REPLACE INTO heads(run, upto, seqs) VALUES (?1, ?2, ?3)",
	[SQ_EVENT_TAIL_JOB] = "SELECT max(seq) FROM events WHERE run = ?1 AND seq > ?2 "
	    "AND job = ?3",
	[SQ_EVENT_TAIL] = "SELECT seq, job FROM events WHERE run = ?1 AND seq > ?2 "
	    "AND job IS NOT NULL ORDER BY seq",
	[SQ_DATA_VERSION] = "PRAGMA data_version",
	[SQ_JOB_GET] = "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 AND j.id = ?2",
	/* STORE_IDS_PER_READ ids; those not bound are NULL and match nothing */
	[SQ_JOB_GET_IDS] = "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 AND j.id IN ("
	    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
	    "?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, "
	    "?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, "
	    "?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, "
	    "?51, ?52, ?53, ?54, ?55, ?56, ?57, ?58, ?59, ?60, ?61, ?62, "
	    "?63, ?64, ?65"
	    ") ORDER BY j.id",
	/*
	 * A session's by jobs_name; then a replay's, reading the run's rows,
	 * but only in a run of kind replay (store.h invariant 8): runs is
	 * the outer loop (CROSS JOIN keeps it there), so for a session's run
	 * the kind test ends the statement after one rowid probe. Without it
	 * every name new to a session's run (each alloc's) read all of the
	 * run's rows.
	 */
	[SQ_JOB_FIND] = "SELECT " JOB_COLS JOB_FROM
	    " WHERE j.run = ?1 AND j.name = ?2 AND j.traced = 0",
	[SQ_JOB_FIND_TRACED] = "SELECT " JOB_COLS " FROM runs r CROSS JOIN jobs j"
	    " LEFT JOIN placements p ON p.run = j.run AND p.job = j.id"
	    " WHERE r.id = ?1 AND r.kind = 'replay' AND j.run = ?1"
	    " AND j.name = ?2 AND j.traced = 1",
	/* a session's job without its placement: a release's read */
	[SQ_JOB_FIND_BARE] = "SELECT j.id, j.name, j.user, j.vc, j.submit, j.members,"
	    " j.gpus, j.leaf_type, j.class, j.soft_affinity, j.duration, j.model,"
	    " j.elastic_min, j.elastic_max, j.state, j.reason, j.state_since,"
	    " j.first_start, j.end_time, j.queued, j.attained, j.run_time,"
	    " j.work_done, j.ckpt_work, j.lost_work, j.restarts, j.preemptions,"
	    " j.suspensions, j.opportunistic, j.engine_id, NULL, NULL, NULL, NULL,"
	    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
	    " j.priority, j.weight FROM jobs j"
	    " WHERE j.run = ?1 AND j.name = ?2 AND j.traced = 0",
	/* what a state change moves; the job's identity (and jobs_name) stays */
	[SQ_JOB_STATE_PUT] = "UPDATE jobs SET state = ?3, reason = ?4,"
	    " state_since = ?5, first_start = ?6, end_time = ?7, queued = ?8,"
	    " attained = ?9, run_time = ?10, work_done = ?11, ckpt_work = ?12,"
	    " lost_work = ?13, restarts = ?14, preemptions = ?15,"
	    " suspensions = ?16, opportunistic = ?17, engine_id = ?18,"
	    " priority = ?19, weight = ?20 WHERE run = ?1 AND id = ?2",
	/* the name indexes alone, no row read: an alloc's check misses */
	[SQ_JOB_NAME_USED] = "SELECT 1 FROM jobs WHERE run = ?1 AND name = ?2"
	    " AND traced = 0 UNION ALL SELECT 1 FROM runs r CROSS JOIN jobs j"
	    " WHERE r.id = ?1 AND r.kind = 'replay' AND j.run = ?1"
	    " AND j.name = ?2 AND j.traced = 1 LIMIT 1",
	[SQ_JOB_LAST_RUN] = "SELECT max(run) FROM jobs WHERE name = ?1",
	[SQ_JOB_NEXT_ID] = "SELECT max(id) FROM jobs WHERE run = ?1",
	[SQ_JOB_LOAD] = "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 ORDER BY j.id",
	[SQ_PL_PUT] = "INSERT OR REPLACE INTO placements(run, job, engine_id, chain, "
	    "pin, priority, orig_priority, lazy, downgraded, pod_first, leaves, "
	    "vleaves, nodes, gpus) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	    "?11, ?12, ?13, ?14)",
	[SQ_PL_DELETE] = "DELETE FROM placements WHERE run = ?1 AND job = ?2",
	[SQ_HEALTH_SET] = "INSERT OR REPLACE INTO health(run, node, bad, since) "
	    "VALUES (?1, ?2, ?3, ?4)",
	[SQ_HEALTH_DELETE] = "DELETE FROM health WHERE run = ?1 AND node = ?2",
	[SQ_HEALTH_LOAD] = "SELECT node, bad, since FROM health WHERE run = ?1 "
	    "ORDER BY node",
	[SQ_EVBLOCK_INSERT] = "INSERT INTO event_blocks(seq, run, first, data) "
	    "VALUES (?1, ?2, ?3, ?4)",
	[SQ_EVENT_GET] = "SELECT " EVENT_COLS ", e.prev" EVENT_FROM " WHERE e.seq = ?1",
	[SQ_EVENT_RUN] = "SELECT " EVENT_COLS EVENT_FROM " WHERE e.run = ?1 AND"
	    EVENT_WHERE " ORDER BY e.seq",
	[SQ_EVENT_RUN_NEWEST] = "SELECT " EVENT_COLS EVENT_FROM " WHERE e.run = ?1 AND"
	    EVENT_WHERE " ORDER BY e.seq DESC LIMIT ?6",
	[SQ_EVENT_ALL] = "SELECT " EVENT_COLS EVENT_FROM " WHERE ?1 IS NULL AND"
	    EVENT_WHERE " ORDER BY e.seq",
	[SQ_EVENT_ALL_NEWEST] = "SELECT " EVENT_COLS EVENT_FROM " WHERE ?1 IS NULL AND"
	    EVENT_WHERE " ORDER BY e.seq DESC LIMIT ?6",
	/* A block's seq is its newest event's. */
	[SQ_EVENT_LAST] = "SELECT max(seq) FROM event_blocks",
	[SQ_EVENT_LAST_RUN] = "SELECT max(seq) FROM event_blocks WHERE run = ?1",
	[SQ_SERIES_PUT] = "INSERT OR REPLACE INTO series(run, t, pending, running, "
	    "used, opp, bad, frag, frag_node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9)",
	[SQ_SERIES_LOAD] = "SELECT t, pending, running, used, opp, bad, frag, frag_node "
	    "FROM series WHERE run = ?1 ORDER BY t",
	[SQ_AUDIT_INSERT] = "INSERT INTO audit(at, user, run, cmdline, status) "
	    "VALUES (?1, ?2, ?3, ?4, ?5)",
	[SQ_AUDIT_LIST] = "SELECT id, at, user, run, cmdline, status FROM audit "
	    "ORDER BY id",
};

/* ---- errors ---- */

/*
 * Why a write ran out of room, when we can tell: SQLite reports a failed
 * write without the system's reason (its errno is often gone by then).
 */
static const char *
store_full_why(const char *path)
{
	struct statvfs vfs;
	struct rlimit rl;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	const char *why = "";

	if (slash != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	if (statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0)
		why = " (no free blocks left)";
	else if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		why = " (the file size limit, ulimit -f, is reached)";
	free(dir);
	return why;
}

int
store_fail(struct store *st, int rc, char **cause)
{
	const char *path = st != NULL ? st->path : "?";
	const char *msg = st != NULL && st->db != NULL ? sqlite3_errmsg(st->db) :
	    sqlite3_errstr(rc);
	int sys = st != NULL && st->db != NULL ? sqlite3_system_errno(st->db) : 0;

	if (*cause != NULL)
		return -1;
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		*cause = xasprintf("state store '%s' is locked by another process "
		    "(waited %g s)", path, st != NULL ? st->busy_ms / 1000.0 : 0.0);
		break;
	case SQLITE_NOTADB:
		*cause = xasprintf("'%s' is not a cellar state store (file is not a "
		    "database)", path);
		break;
	case SQLITE_CORRUPT:
		*cause = xasprintf("state store '%s' is damaged (%s): restore a copy, "
		    "or export what 'db check' can still read", path, msg);
		break;
	case SQLITE_FULL:
		*cause = xasprintf("state store '%s': disk full%s", path,
		    store_full_why(path));
		break;
	case SQLITE_READONLY:
		*cause = xasprintf("state store '%s' cannot be written (%s)", path, msg);
		break;
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
	case SQLITE_AUTH:
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    sys != 0 ? strerror(sys) : msg);
		break;
	case SQLITE_IOERR:
		if (sys == ENOSPC || sys == EFBIG || sys == EDQUOT)
			*cause = xasprintf("state store '%s': disk full (%s)", path,
			    strerror(sys));
		else if (rc == SQLITE_IOERR_WRITE && *store_full_why(path) != '\0')
			*cause = xasprintf("state store '%s': disk full%s", path,
			    store_full_why(path));
		else if (rc == SQLITE_IOERR_SHORT_READ)
			*cause = xasprintf("state store '%s' is damaged (it is shorter "
			    "than it says): restore a copy", path);
		else
			*cause = xasprintf("state store '%s': I/O error (%s%s%s)", path,
			    msg, sys != 0 ? ": " : "", sys != 0 ? strerror(sys) : "");
		break;
	case SQLITE_NOMEM:
		fatal("state store '%s': out of memory", path);
	default:
		*cause = xasprintf("state store '%s': %s", path, msg);
		break;
	}
	return -1;
}

sqlite3_stmt *
store_stmt(struct store *st, enum store_stmt_id id, char **cause)
{
	int rc;

	if (st->stmt[id] == NULL) {
		rc = sqlite3_prepare_v3(st->db, store_sql[id], -1,
		    SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL);
		if (rc != SQLITE_OK) {
			st->stmt[id] = NULL;
			store_fail(st, rc, cause);
			return NULL;
		}
		st->stmt_log[id] = id != SQ_EVBLOCK_INSERT &&
		    strstr(store_sql[id], "event") != NULL;
	}
	/* a group's pending events go in before anything reads the log */
	if (st->stmt_log[id] && store_settle(st, cause) != 0)
		return NULL;
	return st->stmt[id];
}

int
store_hook_step(struct store *st, sqlite3_stmt *s, char **cause)
{
	/* The crash tests' hook: die here, in the middle of whatever
	   transaction this step belongs to, as a kill -9 would. */
	if (st->kill_at > 0 || st->fail_at != 0)
		st->steps++;
	if (st->kill_at > 0 && st->steps == st->kill_at)
		raise(SIGKILL);
	/* The fault tests' hook: one write fails, as a full disk would make
	   it, and the caller rolls its transaction back. A ROLLBACK cannot
	   fail that way: the next step fails instead. */
	if (st->fail_at > 0 && st->steps >= st->fail_at &&
	    (s == NULL || (s != st->stmt[SQ_ROLLBACK] &&
	    s != st->stmt[SQ_ROLLBACK_TO] && s != st->stmt[SQ_RELEASE]))) {
		st->fail_at = -st->fail_at;	/* once */
		if (*cause == NULL)
			*cause = xasprintf("state store '%s': write failed "
			    "(CELLAR_STORE_FAIL=%lld)", st->path, -st->fail_at);
		return -1;
	}
	return 0;
}

int
store_step_done(struct store *st, sqlite3_stmt *s, char **cause)
{
	int rc, ret = 0;

	if (store_hook_step(st, s, cause) != 0) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
		return -1;
	}
	rc = sqlite3_step(s);

	/* The message before the reset: it may clear the system errno. */
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		ret = store_fail(st, rc, cause);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return ret;
}

int
store_exec(struct store *st, const char *sql, char **cause)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_fail(st, rc, cause);
}

char *
store_col_strdup(sqlite3_stmt *s, int col)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	return t != NULL ? xstrdup((const char *)t) : NULL;
}

int
store_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	return v != NULL ? sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC) :
	    sqlite3_bind_null(s, i);
}

int
store_bind_int_or_null(sqlite3_stmt *s, int i, long long v, bool null)
{
	return null ? sqlite3_bind_null(s, i) : sqlite3_bind_int64(s, i, v);
}

int
store_bind_double_or_null(sqlite3_stmt *s, int i, double v, bool null)
{
	return null ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, v);
}

/* Reset and unbind s; then turn rc (a step's result) into 0 or -1. */
static int
store_done(struct store *st, sqlite3_stmt *s, int rc, char **cause)
{
	int ret = 0;

	if (rc != SQLITE_DONE && rc != SQLITE_ROW && rc != SQLITE_OK)
		ret = store_fail(st, rc, cause);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return ret;
}

void
store_i32_encode(const int *v, int n, unsigned char *out)
{
	int i;

	for (i = 0; i < n; i++) {
		uint32_t u = (uint32_t)v[i];

		out[4 * i] = (unsigned char)(u & 0xff);
		out[4 * i + 1] = (unsigned char)((u >> 8) & 0xff);
		out[4 * i + 2] = (unsigned char)((u >> 16) & 0xff);
		out[4 * i + 3] = (unsigned char)((u >> 24) & 0xff);
	}
}

int *
store_i32_decode(const void *blob, int bytes, int *n)
{
	const unsigned char *b = blob;
	int i, *v;

	*n = bytes / 4;
	v = xcalloc((size_t)*n + 1, sizeof *v);
	for (i = 0; i < *n; i++)
		v[i] = (int)((uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
		    (uint32_t)b[4 * i + 2] << 16 | (uint32_t)b[4 * i + 3] << 24);
	return v;
}

/* ---- paths, clock, user ---- */

bool
store_is_memory(const char *path)
{
	return strcmp(path, ":memory:") == 0;
}

bool
store_exists(const char *path)
{
	struct stat sb;

	return !store_is_memory(path) && stat(path, &sb) == 0;
}

char *
store_default_path(char **cause)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/cellar/cellar.db", xdg);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/cellar/cellar.db", home);
	*cause = xstrdup("no place for the state store: neither XDG_STATE_HOME "
	    "nor HOME is an absolute path (give --db PATH)");
	return NULL;
}

double
store_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *
store_user(void)
{
	static char name[64];
	struct passwd *pw;
	const char *u;

	if (name[0] != '\0')
		return name;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_name != NULL)
		u = pw->pw_name;
	else if ((u = getenv("USER")) == NULL || *u == '\0')
		u = "?";
	snprintf(name, sizeof name, "%s", u);
	return name;
}

/* ---- opening ---- */

/* Make the directories of path that are missing, mode 0700. */
static int
store_mkdirs(const char *path, char **cause)
{
	char *dir = xstrdup(path), *p;
	struct stat sb;
	int rc = 0;

	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; rc == 0; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (stat(dir, &sb) != 0) {
			if (errno != ENOENT || mkdir(dir, 0700) != 0) {
				*cause = xasprintf("cannot create directory '%s' for the "
				    "state store: %s", dir, strerror(errno));
				rc = -1;
			}
		} else if (!S_ISDIR(sb.st_mode)) {
			*cause = xasprintf("cannot create directory '%s' for the state "
			    "store: %s", dir, strerror(ENOTDIR));
			rc = -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return rc;
}

static void
store_unlink_files(const char *path)
{
	char *x;

	unlink(path);
	x = xasprintf("%s-wal", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-shm", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-journal", path);
	unlink(x);
	free(x);
}

static int
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

static int
store_busy_ms(void)
{
	const char *v = getenv("CELLAR_BUSY_TIMEOUT");
	char *end;
	long ms;

	if (v == NULL || *v == '\0')
		return STORE_BUSY_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || ms < 0 || ms > 3600000)
		return STORE_BUSY_MS;
	return (int)ms;
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

/*
 * Read the header: is this a cellar database, an empty one, or something
 * else? *fresh when it holds nothing yet.
 */
static int
store_check_header(struct store *st, bool *fresh, int *version, char **cause)
{
	long long appid = 0, ntables = 0;
	int rc;

	/* One read transaction: a store being created by another process
	   must look either empty or complete, never half of each. */
	if (store_exec(st, "BEGIN", cause) != 0)
		return -1;
	rc = store_pragma_int(st, "PRAGMA application_id", &appid, cause);
	if (rc == 0)
		rc = store_pragma_int(st, "PRAGMA user_version", &ntables, cause);
	*version = (int)ntables;
	if (rc == 0)
		rc = store_pragma_int(st, "SELECT count(*) FROM sqlite_master",
		    &ntables, cause);
	sqlite3_exec(st->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	if (rc != 0)
		return -1;
	*fresh = appid == 0 && *version == 0 && ntables == 0;
	if (*fresh)
		return 0;
	if (appid != STORE_APPLICATION_ID) {
		*cause = xasprintf("'%s' is not a cellar state store (a SQLite "
		    "database of something else)", st->path);
		return -1;
	}
	if (*version > STORE_SCHEMA_VERSION) {
		*cause = xasprintf("state store '%s' has schema version %d, newer "
		    "than this cellar (%d): upgrade cellar", st->path, *version,
		    STORE_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

static int	open_store(const char *, unsigned, const struct store *,
		    struct store **, char **);

/*
 * A read-only open found an older schema: migrate it with a writing open,
 * then open read-only again. When this process may not write the store
 * (a read-only file or directory, a lock held too long), it says what to
 * run instead.
 */
static int
store_open_upgrade(const char *path, unsigned oflags, int version,
    struct store **out, char **cause)
{
	struct store *w;
	char *why = NULL;
	int rc;

	if ((rc = open_store(path, STORE_WRITE, NULL, &w, &why)) != 0) {
		if (rc == STORE_MISMATCH) {
			/* not a matter of who runs what: say so, no hint */
			*cause = why;
			return -1;
		}
		*cause = xasprintf("state store '%s' has schema version %d, older "
		    "than this cellar (%d), and cannot be migrated here (%s): run "
		    "a command that writes, e.g. 'cellar --db %s db vacuum', as a "
		    "user who may write it", path, version, STORE_SCHEMA_VERSION,
		    why != NULL ? why : "unknown error", path);
		free(why);
		return -1;
	}
	store_close(w);
	rc = store_open(path, oflags, out, cause);
	return rc;
}

/*
 * Before SQLite initializes (the first open in the process): no memory
 * statistics, which take a global mutex and count on every allocation
 * (5% of a replay's store writer thread); statement journals always in
 * memory. SQLite's default spills them to a temporary file past 64 KB,
 * and a checkpoint's one INSERT of all its jobs journals every page it
 * changes that was there before: 10,000 page writes to /var/tmp in a
 * Philly replay. A higher spill threshold is no better: it becomes the
 * size of the journal's first chunk, so every statement that journals
 * maps and unmaps that much (4,800 munmaps in that replay, each flushing
 * the other threads' TLBs). In memory the chunks are 1 KB; a statement's
 * journal holds at most the pages it changes. Once: later calls would
 * only be refused.
 */
static void
store_sqlite_config(void)
{
	static bool done;

	if (!done) {
		done = true;
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1);
	}
}

/*
 * A new store appears whole or not at all (invariant 6): it is built
 * under a name of its own beside path (PATH.new.PID: WAL mode, the
 * schema), closed, and linked to path, which fails if another process
 * made path first (then that one is used). A kill -9 on the way leaves
 * only the builder's file, which the next creator removes once its pid
 * is gone; before, it left a 0-byte file or one with a hot rollback
 * journal that no read-only open could roll back. st's test hooks count
 * the builder's steps (the file, WAL mode, the migration) as its own.
 */

static void
store_sweep_new(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *base, *x;
	const char *d = ".";
	struct dirent *de;
	size_t blen;
	DIR *dp;
	long pid;

	if (slash != NULL) {
		*slash = '\0';
		d = slash == dir ? "/" : dir;
		base = slash + 1;
	} else
		base = dir;
	if ((dp = opendir(d)) == NULL) {
		free(dir);
		return;
	}
	blen = strlen(base);
	while ((de = readdir(dp)) != NULL) {
		char *end;

		if (strncmp(de->d_name, base, blen) != 0 ||
		    strncmp(de->d_name + blen, ".new.", 5) != 0)
			continue;
		pid = strtol(de->d_name + blen + 5, &end, 10);
		/* a builder still alive (or not ours to ask) is left alone */
		if (*end != '\0' || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		x = xasprintf("%s/%s", d, de->d_name);
		store_unlink_files(x);
		free(x);
	}
	closedir(dp);
	free(dir);
}

static int
store_create(struct store *st, const char *path, char **cause)
{
	struct store *b = NULL;
	char *tmp = xasprintf("%s.new.%ld", path, (long)getpid());
	int fd, rc = -1;

	store_sweep_new(path);
	store_unlink_files(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) != 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* the builder: a writing open of the empty file, with our hooks */
	if (store_hook_step(st, NULL, cause) != 0 ||
	    open_store(tmp, STORE_WRITE, st, &b, cause) != 0)
		goto out;
	st->steps = b->steps;
	st->fail_at = b->fail_at;
	b->kill_at = 0;		/* its close says nothing of our steps */
	store_close(b);		/* checkpoints the WAL into the file */
	b = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0 || fsync(fd) != 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	if (store_hook_step(st, NULL, cause) != 0)
		goto out;
	if (link(tmp, path) != 0 && errno != EEXIST) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	store_close(b);
	store_unlink_files(tmp);
	free(tmp);
	return rc;
}

/*
 * How to read a store file (a read-only open). A reader of a WAL store
 * needs its -wal and -shm files, which SQLite creates beside it when they
 * are missing (no process has the store open). Where this process cannot
 * create them (a read-only file system, a directory it may not write:
 * every read failed, "No such file or directory" or "cannot be written")
 * or must not (the store is another user's: files it made would be the
 * reader's, and the owner's next writer could not use them), and no -wal
 * is there, the file is complete as it is (a writer's last close folds
 * its -wal in and removes it): SQLite reads it immutable (no locks, no
 * -wal, no -shm). Nobody writes a read-only file system meanwhile;
 * elsewhere a shared lock on the file (the byte range of SQLite's own
 * SHARED lock, st->guard) stops a writer that opens meanwhile from
 * folding its -wal into the file at its close while we read (SQLite takes
 * an EXCLUSIVE lock first, and skips that step without it). What is left
 * is a writer checkpointing a large transaction into the file during the
 * read, which the read may then report as damage: retry. 0: a normal
 * read; 1: immutable; -1 with *cause: neither can work (a -wal is there,
 * but no -shm, and none can be made).
 */
#define STORE_SHARED_FIRST	(0x40000000 + 2)	/* SQLite's os_unix.c */
#define STORE_SHARED_SIZE	510

static int
store_read_mode(const char *path, char **cause)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
	struct stat sb, ws, ss;
	struct statvfs vfs;
	bool rofs, canmake, other, haswal, hasshm;
	int rc = 0;

	if (slash != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	rofs = statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
	canmake = !rofs && faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;
	other = stat(path, &sb) == 0 && sb.st_uid != geteuid();
	haswal = stat(wal, &ws) == 0 && ws.st_size > 0;
	hasshm = stat(shm, &ss) == 0;
	if (!haswal && (!canmake || other))
		rc = 1;
	else if (haswal && !hasshm && !canmake) {
		*cause = xasprintf("state store '%s' cannot be read here: its "
		    "write-ahead log '%s' holds changes not yet in the file, and "
		    "SQLite cannot make '%s' beside it (%s): open it once as a "
		    "user who may write '%s'", path, wal, shm, rofs ?
		    "a read-only file system" : "the directory is not writable "
		    "by this user", dir);
		rc = -1;
	}
	free(dir);
	free(wal);
	free(shm);
	return rc;
}

/* "file:PATH?immutable=1" with PATH escaped for a URI. */
static char *
store_immutable_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p;

	strbuf_adds(&sb, "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++)
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
			strbuf_addf(&sb, "%%%02X", *p);
		else
			strbuf_addc(&sb, (char)*p);
	strbuf_adds(&sb, "?immutable=1");
	return strbuf_detach(&sb, NULL);
}

/* The shared lock of an immutable reader (store_read_mode). */
static int
store_guard(struct store *st, const char *path, char **cause)
{
	struct flock fl;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = STORE_SHARED_FIRST;
	fl.l_len = STORE_SHARED_SIZE;
	/* a writer changing the file's journal mode holds it exclusively
	   for a moment: wait as for any busy store */
	if (fcntl(fd, F_SETLKW, &fl) != 0) {
		*cause = xasprintf("cannot lock state store '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	st->guard = fd;
	return 0;
}

/* store_open; like (the builder of a new store) lends its test hooks. */
static int
open_store(const char *path, unsigned oflags, const struct store *like,
    struct store **out, char **cause)
{
	struct store *st = xcalloc(1, sizeof *st);
	bool fresh, write = (oflags & STORE_WRITE) != 0;
	struct stat sb;
	int rc = 0, flags, version;

	*out = NULL;
	/* the builder's messages name the store it builds */
	st->path = xstrdup(like != NULL ? like->path : path);
	st->write = write;
	st->memory = store_is_memory(path);
	st->guard = -1;
	st->busy_ms = store_busy_ms();
	st->heads_every = STORE_HEADS_EVERY;
	strbuf_init(&st->ev_buf);
	strbuf_init(&st->ev_keep);
	if (like != NULL) {
		st->kill_at = like->kill_at;
		st->fail_at = like->fail_at;
		st->steps = like->steps;
	} else {
		if (write && getenv("CELLAR_STORE_KILL") != NULL)
			st->kill_at = strtoll(getenv("CELLAR_STORE_KILL"), NULL, 10);
		if (write && getenv("CELLAR_STORE_FAIL") != NULL)
			st->fail_at = strtoll(getenv("CELLAR_STORE_FAIL"), NULL, 10);
	}
	if (!st->memory) {
		if (stat(path, &sb) != 0) {
			if (errno != ENOENT) {
				*cause = xasprintf("cannot open state store '%s': %s", path,
				    strerror(errno));
				goto fail;
			}
			if (!write) {
				*cause = xasprintf("no state store at '%s' (nothing "
				    "recorded yet)", path);
				store_close(st);
				return STORE_NOTFOUND;
			}
			if ((oflags & STORE_MKDIR) && store_mkdirs(path, cause) != 0)
				goto fail;
			/* made whole here, or by another process meanwhile */
			if (store_create(st, path, cause) != 0)
				goto fail;
		} else if (S_ISDIR(sb.st_mode)) {
			*cause = xasprintf("cannot open state store '%s': %s", path,
			    strerror(EISDIR));
			goto fail;
		}
		if (!write && (rc = store_read_mode(path, cause)) < 0)
			goto fail;
		if (!write && rc == 1 && store_guard(st, path, cause) != 0)
			goto fail;
		st->immutable = !write && rc == 1;
	}
	flags = (write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
	    SQLITE_OPEN_NOMUTEX | (st->memory ? SQLITE_OPEN_CREATE : 0);
	store_sqlite_config();
	if (st->immutable) {
		char *uri = store_immutable_uri(path);

		rc = sqlite3_open_v2(uri, &st->db, flags | SQLITE_OPEN_URI, NULL);
		free(uri);
	} else
		rc = sqlite3_open_v2(path, &st->db, flags, NULL);
	if (rc != SQLITE_OK) {
		store_fail(st, rc, cause);
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, st->busy_ms);
	if (store_events_register(st, cause) != 0 ||
	    store_jobrows_register(st, cause) != 0)
		goto fail;
	/* SQLite opens a file it may not write read-only, without a word. */
	if (write && sqlite3_db_readonly(st->db, "main") == 1) {
		struct statvfs vfs;

		*cause = xasprintf("state store '%s' cannot be written: %s", path,
		    statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) ?
		    "it is on a read-only file system" : "the file is read-only");
		goto fail;
	}
	if (store_exec(st, "PRAGMA foreign_keys = ON", cause) != 0 ||
	    store_check_header(st, &fresh, &version, cause) != 0)
		goto fail;
	if (!write) {
		if (fresh) {
			/* Being created by another process: nothing in it yet. */
			*cause = xasprintf("no state store at '%s' (nothing recorded "
			    "yet)", path);
			store_close(st);
			return STORE_NOTFOUND;
		}
		if (version < STORE_SCHEMA_VERSION) {
			/* An operator who upgrades cellar must not be locked out
			   of a store by commands that only read: one we may write
			   is migrated now (a writing open, one transaction), then
			   opened read-only again. */
			store_close(st);
			return store_open_upgrade(path, oflags, version, out, cause);
		}
		*out = st;
		return 0;
	}
	if (!st->memory && store_exec(st, "PRAGMA journal_mode = WAL", cause) != 0)
		goto fail;
	if (store_exec(st, "PRAGMA synchronous = NORMAL", cause) != 0 ||
	    store_exec(st, "PRAGMA cache_size = -16384", cause) != 0)
		goto fail;
	if ((fresh || version < STORE_SCHEMA_VERSION) &&
	    (rc = store_migrate(st, store_migrations, store_nmigrations,
	    STORE_SCHEMA_VERSION, cause)) != 0) {
		store_close(st);
		return rc;
	}
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

int
store_open(const char *path, unsigned oflags, struct store **out, char **cause)
{
	int rc = open_store(path, oflags, NULL, out, cause);

	return rc == STORE_MISMATCH ? -1 : rc;
}

int
store_wal_autocheckpoint(struct store *st, bool on, char **cause)
{
	int rc;

	if (st->memory)
		return 0;
	/* 1,000 pages: SQLite's default */
	rc = sqlite3_wal_autocheckpoint(st->db, on ? 1000 : 0);
	return rc == SQLITE_OK ? 0 : store_fail(st, rc, cause);
}

int
store_open_checkpointer(const struct store *st, struct store **out,
    char **cause)
{
	struct store *ck;
	int rc;

	*out = NULL;
	if (st->memory)
		return 0;
	ck = xcalloc(1, sizeof *ck);
	ck->path = xstrdup(st->path);
	ck->write = true;
	ck->guard = -1;
	ck->busy_ms = st->busy_ms;
	ck->heads_every = STORE_HEADS_EVERY;
	strbuf_init(&ck->ev_buf);
	strbuf_init(&ck->ev_keep);
	rc = sqlite3_open_v2(st->path, &ck->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_extended_result_codes(ck->db, 1);
		rc = sqlite3_wal_autocheckpoint(ck->db, 0);
	}
	/* A connection finds the WAL on its first read; until then a
	   checkpoint has nothing to do. */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(ck->db, "SELECT count(*) FROM sqlite_schema",
		    NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		store_fail(ck, rc, cause);
		store_close(ck);
		return -1;
	}
	*out = ck;
	return 0;
}

int
store_wal_checkpoint(struct store *ck, int *wal, int *done, char **cause)
{
	int rc;

	*wal = *done = 0;
	rc = sqlite3_wal_checkpoint_v2(ck->db, "main",
	    SQLITE_CHECKPOINT_PASSIVE, wal, done);
	if ((rc & 0xff) == SQLITE_BUSY)
		return 0;	/* another checkpoint runs: later */
	return rc == SQLITE_OK ? 0 : store_fail(ck, rc, cause);
}

void
store_close(struct store *st)
{
	int i;

	if (st == NULL)
		return;
	if (st->kill_at > 0)
		fprintf(stderr, "cellar: state store '%s': %lld write steps "
		    "(CELLAR_STORE_KILL=%lld not reached)\n", st->path, st->steps,
		    st->kill_at);
	if (st->db != NULL && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	if (st->db != NULL)
		sqlite3_close(st->db);
	if (st->guard >= 0)
		close(st->guard);
	store_heads_reset(st);
	strbuf_release(&st->ev_buf);
	strbuf_release(&st->ev_keep);
	free(st->chg);
	free(st->path);
	free(st);
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

bool
store_writable(const struct store *st)
{
	return st->write;
}

long long
store_size(const struct store *st)
{
	struct stat sb;
	long long n = 0;
	char *wal;

	if (st->memory)
		return 0;
	if (stat(st->path, &sb) == 0)
		n += sb.st_size;
	wal = xasprintf("%s-wal", st->path);
	if (stat(wal, &sb) == 0)
		n += sb.st_size;
	free(wal);
	return n;
}

/* ---- transactions ---- */

int
store_data_version(struct store *st, int64_t *v, char **cause)
{
	sqlite3_stmt *s;
	int rc;

	if ((s = store_stmt(st, SQ_DATA_VERSION, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_fail(st, rc, cause);
	}
	*v = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return 0;
}

/* BEGIN IMMEDIATE, and forget cached heads another connection made stale. */
static int
txn_open(struct store *st, char **cause)
{
	sqlite3_stmt *s;
	int64_t dv;
	int rc;

	if ((s = store_stmt(st, SQ_BEGIN, cause)) == NULL ||
	    store_step_done(st, s, cause) != 0)
		return -1;
	store_events_reset(st);
	store_chg_reset(st);
	/* Another connection committed since our last transaction: the
	   cached heads may be stale. */
	if ((s = store_stmt(st, SQ_DATA_VERSION, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_fail(st, rc, cause);
	}
	dv = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (dv != st->data_version) {
		store_heads_reset(st);
		st->data_version = dv;
	}
	return 0;
}

/* The open group's transaction is gone (SQLite rolled it back on an
   I/O error or a full disk): nothing of it may be reported done. */
static bool
group_lost(const struct store *st)
{
	return st->group && sqlite3_get_autocommit(st->db);
}

int
store_begin(struct store *st, char **cause)
{
	sqlite3_stmt *s;

	if (st->txn)
		fatal("store_begin: a transaction is already open");
	if (st->group) {
		if (group_lost(st)) {
			*cause = xasprintf("state store '%s': an earlier write of "
			    "this batch failed and was rolled back", st->path);
			return -1;
		}
		if ((s = store_stmt(st, SQ_SAVEPOINT, cause)) == NULL ||
		    store_step_done(st, s, cause) != 0)
			return -1;
		st->txn = true;
		store_events_mark(st);
		/* the group's changed jobs are one job_changes row, written
		   at its commit: this command's are those past the mark */
		st->chg_mark = st->nchg;
		return 0;
	}
	st->txn = true;
	if (txn_open(st, cause) != 0) {
		store_rollback(st);
		return -1;
	}
	return 0;
}

int
store_commit(struct store *st, char **cause)
{
	sqlite3_stmt *s;
	int i;

	if (!st->txn)
		fatal("store_commit: no transaction");
	/* a group's events stay pending to its commit: one block for all */
	if ((!st->group && store_events_flush(st, cause) != 0) ||
	    store_heads_flush(st, cause) != 0 ||
	    (!st->group && store_chg_flush(st, cause) != 0))
		return -1;
	if ((s = store_stmt(st, st->group ? SQ_RELEASE : SQ_COMMIT, cause)) == NULL ||
	    store_step_done(st, s, cause) != 0)
		return -1;
	if (!st->group) {
		store_events_reset(st);
		store_chg_reset(st);
	}
	st->ev_kept = false;
	for (i = 0; i < STORE_HEADS_RUNS; i++)
		st->heads[i].dirty = false;
	st->txn = false;
	if (st->group)
		st->group_wrote = true;
	return 0;
}

void
store_rollback(struct store *st)
{
	sqlite3_stmt *s;
	char *cause = NULL;
	int i;

	if (!st->txn)
		return;
	st->txn = false;
	/* only heads this transaction wrote are wrong now: an empty one (a
	   scheduler pass that decided nothing) must not cost a reload of
	   the run's event tail at the next event */
	for (i = 0; i < STORE_HEADS_RUNS; i++)
		if (st->heads[i].dirty) {
			store_heads_reset(st);
			break;
		}
	if (st->group) {
		store_events_undo(st);
		st->nchg = st->chg_mark;
	} else {
		store_events_reset(st);
		store_chg_reset(st);
	}
	/* SQLite may have rolled back already (disk full, I/O error); in a
	   group that took the group with it (store_group_commit says so). */
	if (sqlite3_get_autocommit(st->db))
		return;
	if (st->group) {
		/* this command alone: back to its savepoint, then out of it */
		if ((s = store_stmt(st, SQ_ROLLBACK_TO, &cause)) != NULL &&
		    store_step_done(st, s, &cause) == 0 &&
		    (s = store_stmt(st, SQ_RELEASE, &cause)) != NULL)
			store_step_done(st, s, &cause);
	} else if ((s = store_stmt(st, SQ_ROLLBACK, &cause)) != NULL)
		store_step_done(st, s, &cause);
	free(cause);
}

int
store_group_begin(struct store *st, char **cause)
{
	if (st->txn || st->group)
		fatal("store_group_begin: a transaction is already open");
	if (txn_open(st, cause) != 0) {
		st->txn = true;
		store_rollback(st);
		return -1;
	}
	st->group = true;
	st->group_wrote = false;
	return 0;
}

/* The group's end either way: the heads may hold what was not kept. */
static void
group_abandon(struct store *st)
{
	sqlite3_stmt *s;
	char *cause = NULL;

	st->group = false;
	store_heads_reset(st);
	store_events_reset(st);
	store_chg_reset(st);
	if (!sqlite3_get_autocommit(st->db) &&
	    (s = store_stmt(st, SQ_ROLLBACK, &cause)) != NULL)
		store_step_done(st, s, &cause);
	free(cause);
}

int
store_group_commit(struct store *st, char **cause)
{
	sqlite3_stmt *s;

	if (!st->group || st->txn)
		fatal("store_group_commit: no group, or a command still open");
	if (group_lost(st)) {
		*cause = xasprintf("state store '%s': a write of this batch failed "
		    "and SQLite rolled the batch back", st->path);
		group_abandon(st);
		return -1;
	}
	if (store_events_flush(st, cause) != 0 ||
	    store_chg_flush(st, cause) != 0 ||
	    (s = store_stmt(st, SQ_COMMIT, cause)) == NULL ||
	    store_step_done(st, s, cause) != 0) {
		group_abandon(st);
		return -1;
	}
	store_events_reset(st);
	store_chg_reset(st);
	st->group = false;
	return 0;
}

void
store_group_rollback(struct store *st)
{
	if (!st->group)
		return;
	store_rollback(st);
	group_abandon(st);
}

bool
store_in_group(const struct store *st)
{
	return st->group;
}

bool
store_group_wrote(const struct store *st)
{
	return st->group && st->group_wrote;
}

bool
store_in_txn(const struct store *st)
{
	return st->txn;
}

/* ---- specs ---- */

static long long
spec_vc_gpus(const struct spec *s, int vc)
{
	const struct spec_vc *v = &s->vcs[vc];
	long long n = 0;
	int i;

	for (i = 0; i < v->ncells; i++)
		n += (long long)v->cells[i].number * s->types[v->cells[i].type].leaves;
	for (i = 0; i < v->npins; i++)
		n += s->types[s->cells[s->pins[v->pins[i]].cell].type].leaves;
	return n;
}

int
store_spec_put(struct store *st, const struct spec *s, int64_t *id, char **cause)
{
	sqlite3_stmt *q;
	char hash[17];
	int rc, i;

	snprintf(hash, sizeof hash, "%016llx", s->hash);
	if ((q = store_stmt(st, SQ_SPEC_BY_HASH, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const void *t = sqlite3_column_blob(q, 1);
		size_t n = (size_t)sqlite3_column_bytes(q, 1);

		if (n == s->text_len && (n == 0 || memcmp(t, s->text, n) == 0)) {
			*id = sqlite3_column_int64(q, 0);
			return store_done(st, q, SQLITE_DONE, cause);
		}
	}
	if (store_done(st, q, rc, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_SPEC_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	store_bind_text(q, 2, s->path != NULL ? s->path : "");
	sqlite3_bind_text(q, 3, s->text, (int)s->text_len, SQLITE_STATIC);
	sqlite3_bind_double(q, 4, store_wall_now());
	if (store_step_done(st, q, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	for (i = 0; i < s->nvcs; i++) {
		if ((q = store_stmt(st, SQ_SPEC_VC_INSERT, cause)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, *id);
		sqlite3_bind_int(q, 2, i);
		sqlite3_bind_text(q, 3, s->vcs[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 4, spec_vc_gpus(s, i));
		if (store_step_done(st, q, cause) != 0)
			return -1;
	}
	return 0;
}

int
store_spec_get(struct store *st, int64_t id, struct store_spec *out, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	memset(out, 0, sizeof *out);
	if ((q = store_stmt(st, SQ_SPEC_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		if (store_done(st, q, rc, cause) != 0)
			return -1;
		*cause = xasprintf("no spec %lld in the state store", (long long)id);
		return STORE_NOTFOUND;
	}
	out->id = sqlite3_column_int64(q, 0);
	out->hash = store_col_strdup(q, 1);
	out->path = store_col_strdup(q, 2);
	out->text_len = (size_t)sqlite3_column_bytes(q, 3);
	out->text = xmalloc(out->text_len + 1);
	if (out->text_len > 0)
		memcpy(out->text, sqlite3_column_blob(q, 3), out->text_len);
	out->text[out->text_len] = '\0';
	store_done(st, q, SQLITE_DONE, cause);
	if ((q = store_stmt(st, SQ_SPEC_VCS, cause)) == NULL)
		goto fail;
	sqlite3_bind_int64(q, 1, id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0);

		if (idx < 0 || idx > 1 << 20)
			continue;
		if (idx >= out->nvcs) {
			out->vcs = xreallocarray(out->vcs, (size_t)idx + 1, sizeof *out->vcs);
			memset(out->vcs + out->nvcs, 0,
			    (size_t)(idx + 1 - out->nvcs) * sizeof *out->vcs);
			out->nvcs = idx + 1;
		}
		free(out->vcs[idx].name);
		out->vcs[idx].name = store_col_strdup(q, 1);
		out->vcs[idx].gpus = sqlite3_column_int64(q, 2);
	}
	if (store_done(st, q, rc, cause) != 0)
		goto fail;
	return 0;
fail:
	store_spec_release(out);
	return -1;
}

void
store_spec_release(struct store_spec *sp)
{
	int i;

	for (i = 0; i < sp->nvcs; i++)
		free(sp->vcs[i].name);
	free(sp->vcs);
	free(sp->hash);
	free(sp->path);
	free(sp->text);
	memset(sp, 0, sizeof *sp);
}

/* ---- runs ---- */

static const char *const run_kinds[] = { "session", "replay" };
static const char *const run_states[] = { "running", "done", "interrupted" };

const char *
store_run_kind_name(enum store_run_kind k)
{
	return (unsigned)k < 2 ? run_kinds[k] : "?";
}

const char *
store_run_state_name(enum store_run_state s)
{
	return (unsigned)s < 3 ? run_states[s] : "?";
}

static int
name_index(const char *const *names, int n, const unsigned char *s)
{
	int i;

	for (i = 0; s != NULL && i < n; i++)
		if (strcmp(names[i], (const char *)s) == 0)
			return i;
	return 0;
}

void
store_run_init(struct store_run *r)
{
	memset(r, 0, sizeof *r);
	r->nevents = -1;
}

void
store_run_release(struct store_run *r)
{
	free(r->mode);
	free(r->policy);
	free(r->trace);
	free(r->params);
	free(r->user);
	free(r->report);
	free(r->spec_path);
	free(r->spec_hash);
	store_run_init(r);
}

int
store_run_create(struct store *st, struct store_run *r, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_RUN_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, store_run_kind_name(r->kind), -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 2, r->spec);
	store_bind_text(q, 3, r->mode != NULL ? r->mode : "hived");
	store_bind_text(q, 4, r->policy);
	store_bind_text(q, 5, r->trace);
	store_bind_text(q, 6, r->params != NULL ? r->params : "{}");
	sqlite3_bind_int64(q, 7, (sqlite3_int64)r->seed);
	sqlite3_bind_text(q, 8, store_run_state_name(r->state), -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 9, r->now);
	sqlite3_bind_double(q, 10, store_wall_now());
	sqlite3_bind_text(q, 11, store_user(), -1, SQLITE_STATIC);
	if (store_step_done(st, q, cause) != 0)
		return -1;
	r->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* A row of RUN_COLS (+ the event count) into r. */
static void
run_from_row(sqlite3_stmt *q, struct store_run *r)
{
	store_run_init(r);
	r->id = sqlite3_column_int64(q, 0);
	r->kind = (enum store_run_kind)name_index(run_kinds, 2, sqlite3_column_text(q, 1));
	r->spec = sqlite3_column_int64(q, 2);
	r->mode = store_col_strdup(q, 3);
	r->policy = store_col_strdup(q, 4);
	r->trace = store_col_strdup(q, 5);
	r->params = store_col_strdup(q, 6);
	r->seed = (uint64_t)sqlite3_column_int64(q, 7);
	r->state = (enum store_run_state)name_index(run_states, 3,
	    sqlite3_column_text(q, 8));
	r->now = sqlite3_column_double(q, 9);
	r->created = sqlite3_column_double(q, 10);
	r->updated = sqlite3_column_double(q, 11);
	r->user = store_col_strdup(q, 12);
	r->report = store_col_strdup(q, 13);
	r->spec_path = store_col_strdup(q, 14);
	r->spec_hash = store_col_strdup(q, 15);
	r->njobs = sqlite3_column_int64(q, 16);
	r->nevents = sqlite3_column_type(q, 17) == SQLITE_NULL ? -1 :
	    sqlite3_column_int64(q, 17);
}

int
store_run_get(struct store *st, int64_t id, struct store_run *r, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	store_run_init(r);
	if ((q = store_stmt(st, SQ_RUN_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		if (store_done(st, q, rc, cause) != 0)
			return -1;
		*cause = xasprintf("no run %lld in state store '%s'", (long long)id,
		    st->path);
		return STORE_NOTFOUND;
	}
	run_from_row(q, r);
	return store_done(st, q, SQLITE_DONE, cause);
}

/* A one-value query of an id (max(...)); 0 rows or NULL: STORE_NOTFOUND. */
static int
store_max_id(struct store *st, sqlite3_stmt *q, int64_t *id, char **cause)
{
	int rc = sqlite3_step(q);

	*id = 0;
	if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*id = sqlite3_column_int64(q, 0);
	if (store_done(st, q, rc, cause) != 0)
		return -1;
	return *id != 0 ? 0 : STORE_NOTFOUND;
}

int
store_run_last(struct store *st, int kind, int64_t *id, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	if ((q = store_stmt(st, kind < 0 ? SQ_RUN_LAST : SQ_RUN_LAST_KIND, cause)) == NULL)
		return -1;
	if (kind >= 0)
		sqlite3_bind_text(q, 1, store_run_kind_name((enum store_run_kind)kind),
		    -1, SQLITE_STATIC);
	if ((rc = store_max_id(st, q, id, cause)) == STORE_NOTFOUND)
		*cause = xasprintf("no runs in state store '%s' yet", st->path);
	return rc;
}

int
store_run_list(struct store *st, int (*fn)(void *, const struct store_run *),
    void *arg, char **cause)
{
	struct store_run r;
	sqlite3_stmt *q;
	int rc, stop = 0;

	if ((q = store_stmt(st, SQ_RUN_LIST, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		run_from_row(q, &r);
		stop = fn(arg, &r);
		store_run_release(&r);
		if (stop != 0)
			break;
	}
	if (store_done(st, q, stop != 0 ? SQLITE_DONE : rc, cause) != 0)
		return -1;
	return stop;
}

/* Run an UPDATE of one run; no such run is STORE_NOTFOUND. */
static int
store_run_update(struct store *st, sqlite3_stmt *q, int64_t id, char **cause)
{
	if (store_step_done(st, q, cause) != 0)
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		*cause = xasprintf("no run %lld in state store '%s'", (long long)id,
		    st->path);
		return STORE_NOTFOUND;
	}
	return 0;
}

int
store_run_set_state(struct store *st, int64_t id, enum store_run_state state,
    double now, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_RUN_STATE, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, store_run_state_name(state), -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 3, now);
	sqlite3_bind_double(q, 4, store_wall_now());
	return store_run_update(st, q, id, cause);
}

int
store_run_touch(struct store *st, int64_t id, double now, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_RUN_TOUCH, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_double(q, 2, now);
	sqlite3_bind_double(q, 3, store_wall_now());
	return store_run_update(st, q, id, cause);
}

int
store_run_set_report(struct store *st, int64_t id, const char *json, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_RUN_REPORT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, json);
	sqlite3_bind_double(q, 3, store_wall_now());
	return store_run_update(st, q, id, cause);
}

/* A run's BLOB column (emulator or engine state) by statement sid. */
static int
run_blob_get(struct store *st, enum store_stmt_id sid, int64_t id, void **data,
    size_t *len, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	*data = NULL;
	*len = 0;
	if ((q = store_stmt(st, sid, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		if (store_done(st, q, rc, cause) != 0)
			return -1;
		*cause = xasprintf("no run %lld in state store '%s'", (long long)id,
		    st->path);
		return STORE_NOTFOUND;
	}
	if (sqlite3_column_type(q, 0) != SQLITE_NULL) {
		*len = (size_t)sqlite3_column_bytes(q, 0);
		*data = xmalloc(*len + 1);
		if (*len > 0)
			memcpy(*data, sqlite3_column_blob(q, 0), *len);
	}
	return store_done(st, q, SQLITE_DONE, cause);
}

/* The statement sid with the run and its BLOB bound (NULL: none). */
static sqlite3_stmt *
run_blob_bind(struct store *st, enum store_stmt_id sid, int64_t id,
    const void *data, size_t len, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, sid, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(q, 1, id);
	if (data != NULL)
		sqlite3_bind_blob64(q, 2, data, len, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 2);
	return q;
}

int
store_run_set_blob(struct store *st, int64_t id, const void *data, size_t len,
    char **cause)
{
	sqlite3_stmt *q;

	if ((q = run_blob_bind(st, SQ_RUN_BLOB_SET, id, data, len, cause)) == NULL)
		return -1;
	sqlite3_bind_double(q, 3, store_wall_now());
	return store_run_update(st, q, id, cause);
}

int
store_run_get_blob(struct store *st, int64_t id, void **data, size_t *len,
    char **cause)
{
	return run_blob_get(st, SQ_RUN_BLOB_GET, id, data, len, cause);
}

int
store_run_set_spec(struct store *st, int64_t id, int64_t spec, const char *mode,
    int64_t upto, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_RUN_SPEC_KEEP, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int64(q, 2, upto);
	if (store_run_update(st, q, id, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_RUN_SPEC_SET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int64(q, 2, spec);
	sqlite3_bind_text(q, 3, mode, -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 4, store_wall_now());
	return store_run_update(st, q, id, cause);
}

int
store_run_set_engine(struct store *st, int64_t id, const void *data, size_t len,
    char **cause)
{
	sqlite3_stmt *q;

	if ((q = run_blob_bind(st, SQ_RUN_ENGINE_SET, id, data, len, cause)) == NULL)
		return -1;
	return store_run_update(st, q, id, cause);
}

int
store_run_get_engine(struct store *st, int64_t id, void **data, size_t *len,
    char **cause)
{
	return run_blob_get(st, SQ_RUN_ENGINE_GET, id, data, len, cause);
}

int
store_run_interrupt_sessions(struct store *st, int64_t keep, int *n, char **cause)
{
	sqlite3_stmt *q;

	*n = 0;
	if ((q = store_stmt(st, SQ_RUN_INTERRUPT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, keep);
	sqlite3_bind_double(q, 2, store_wall_now());
	if (store_step_done(st, q, cause) != 0)
		return -1;
	*n = sqlite3_changes(st->db);
	return 0;
}

/* ---- node health ---- */

int
store_health_set(struct store *st, int64_t run, const char *node, bool bad,
    double since, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_HEALTH_SET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, node, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 3, bad);
	sqlite3_bind_double(q, 4, since);
	return store_step_done(st, q, cause);
}

int
store_health_delete(struct store *st, int64_t run, const char *node, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_HEALTH_DELETE, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, node, -1, SQLITE_STATIC);
	return store_step_done(st, q, cause);
}

int
store_health_load(struct store *st, int64_t run,
    int (*fn)(void *, const char *, bool, double), void *arg, char **cause)
{
	sqlite3_stmt *q;
	int rc, stop = 0;

	if ((q = store_stmt(st, SQ_HEALTH_LOAD, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if ((stop = fn(arg, (const char *)sqlite3_column_text(q, 0),
		    sqlite3_column_int(q, 1) != 0, sqlite3_column_double(q, 2))) != 0)
			break;
	if (store_done(st, q, stop != 0 ? SQLITE_DONE : rc, cause) != 0)
		return -1;
	return stop;
}

/* ---- time series ---- */

int
store_series_put(struct store *st, int64_t run, const struct emu_sample *x, int n,
    char **cause)
{
	sqlite3_stmt *q;
	int i;

	for (i = 0; i < n; i++) {
		if ((q = store_stmt(st, SQ_SERIES_PUT, cause)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_double(q, 2, x[i].t);
		sqlite3_bind_int(q, 3, x[i].pending);
		sqlite3_bind_int(q, 4, x[i].running);
		sqlite3_bind_int64(q, 5, x[i].used);
		sqlite3_bind_int64(q, 6, x[i].opp);
		sqlite3_bind_int64(q, 7, x[i].bad);
		sqlite3_bind_double(q, 8, x[i].frag);
		sqlite3_bind_double(q, 9, x[i].frag_node);
		if (store_step_done(st, q, cause) != 0)
			return -1;
	}
	return 0;
}

int
store_series_load(struct store *st, int64_t run, struct emu_sample **out, int *n,
    char **cause)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((q = store_stmt(st, SQ_SERIES_LOAD, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct emu_sample *x;

		XGROW(*out, cap, (size_t)*n + 1);
		x = &(*out)[(*n)++];
		x->t = sqlite3_column_double(q, 0);
		x->pending = sqlite3_column_int(q, 1);
		x->running = sqlite3_column_int(q, 2);
		x->used = sqlite3_column_int64(q, 3);
		x->opp = sqlite3_column_int64(q, 4);
		x->bad = sqlite3_column_int64(q, 5);
		x->frag = sqlite3_column_double(q, 6);
		x->frag_node = sqlite3_column_double(q, 7);
	}
	if (store_done(st, q, rc, cause) != 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

/* ---- audit ---- */

int
store_audit_append(struct store *st, int64_t run, const char *cmdline, int status,
    char **cause)
{
	return store_audit_append_as(st, run, NULL, cmdline, status, cause);
}

int
store_audit_append_as(struct store *st, int64_t run, const char *user,
    const char *cmdline, int status, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_AUDIT_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_double(q, 1, store_wall_now());
	sqlite3_bind_text(q, 2, user != NULL ? user : store_user(), -1, SQLITE_STATIC);
	store_bind_int_or_null(q, 3, run, run <= 0);
	sqlite3_bind_text(q, 4, cmdline, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, status);
	return store_step_done(st, q, cause);
}

int
store_audit_list(struct store *st, int (*fn)(void *, const struct store_audit *),
    void *arg, char **cause)
{
	struct store_audit a;
	sqlite3_stmt *q;
	int rc, stop = 0;

	if ((q = store_stmt(st, SQ_AUDIT_LIST, cause)) == NULL)
		return -1;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		a.id = sqlite3_column_int64(q, 0);
		a.at = sqlite3_column_double(q, 1);
		a.user = (const char *)sqlite3_column_text(q, 2);
		a.run = sqlite3_column_int64(q, 3);
		a.cmdline = (const char *)sqlite3_column_text(q, 4);
		a.status = sqlite3_column_int(q, 5);
		if ((stop = fn(arg, &a)) != 0)
			break;
	}
	if (store_done(st, q, stop != 0 ? SQLITE_DONE : rc, cause) != 0)
		return -1;
	return stop;
}
