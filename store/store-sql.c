/*
 * store-sql.c — the SQL plumbing every other file of store/ stands on: the
 * text of every statement (one table, by enum store_stmt_id), the cache of
 * prepared statements, stepping them with the crash and fault tests' hooks,
 * binding and reading helpers, turning a SQLite failure into a message
 * people can act on, and the wall clock and user name rows record. It
 * calls nothing else in store/ but the buffers' settle hooks (store-int.h:
 * struct store_buffer), so every other file may call it.
 */

#include "store/store-int.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "core/xmalloc.h"

/* A statement: its SQL and its flags (STORE_SQL_*, store-int.h). */
struct store_sql {
	const char	*sql;
	unsigned	 flags;
};

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
	"j.priority, j.weight, j.uid, j.gid"
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
	"suspensions, opportunistic, engine_id, priority, weight, uid, gid"
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
	"priority = excluded.priority, weight = excluded.weight, " \
	"uid = excluded.uid, gid = excluded.gid" sets

static const struct store_sql store_sql[SQ_COUNT] = {
	[SQ_BEGIN] = { "BEGIN IMMEDIATE" },
	[SQ_COMMIT] = { "COMMIT" },
	[SQ_ROLLBACK] = { "ROLLBACK" },
	[SQ_SAVEPOINT] = { "SAVEPOINT cellar_cmd" },
	[SQ_RELEASE] = { "RELEASE cellar_cmd" },
	[SQ_ROLLBACK_TO] = { "ROLLBACK TO cellar_cmd" },
	[SQ_SPEC_BY_HASH] = {
	    "SELECT id, text FROM specs WHERE hash = ?1 ORDER BY id" },
	[SQ_SPEC_INSERT] = { "INSERT INTO specs(hash, path, text, created) "
	    "VALUES (?1, ?2, ?3, ?4)" },
	[SQ_SPEC_VC_INSERT] = { "INSERT INTO spec_vcs(spec, idx, name, gpus) "
	    "VALUES (?1, ?2, ?3, ?4)" },
	[SQ_SPEC_GET] = {
	    "SELECT id, hash, path, text FROM specs WHERE id = ?1" },
	[SQ_SPEC_VCS] = {
	    "SELECT idx, name, gpus FROM spec_vcs WHERE spec = ?1 "
	    "ORDER BY idx" },
	[SQ_RUN_INSERT] = {
	    "INSERT INTO runs(kind, spec, mode, policy, trace, params, "
	    "seed, state, now, created, updated, user) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)" },
	[SQ_RUN_GET] = { "SELECT " RUN_COLS ", "
	    "(SELECT coalesce(sum(e.seq - e.first + 1), 0) FROM event_blocks e "
	    "WHERE e.run = r.id) "
	    "FROM runs r JOIN specs s ON s.id = r.spec WHERE r.id = ?1",
	    STORE_SQL_LOG },
	[SQ_RUN_LAST] = { "SELECT max(id) FROM runs" },
	[SQ_RUN_LAST_KIND] = { "SELECT max(id) FROM runs WHERE kind = ?1" },
	[SQ_RUN_LIST] = { "SELECT " RUN_COLS ", NULL "
	    "FROM runs r JOIN specs s ON s.id = r.spec ORDER BY r.id" },
	[SQ_RUN_STATE] = { "UPDATE runs SET state = ?2, now = ?3, updated = ?4 "
	    "WHERE id = ?1" },
	[SQ_RUN_TOUCH] = {
	    "UPDATE runs SET now = ?2, updated = ?3 WHERE id = ?1" },
	[SQ_RUN_REPORT] = {
	    "UPDATE runs SET report = ?2, updated = ?3 WHERE id = ?1" },
	[SQ_RUN_BLOB_SET] = {
	    "UPDATE runs SET emu = ?2, updated = ?3 WHERE id = ?1" },
	[SQ_RUN_BLOB_GET] = { "SELECT emu FROM runs WHERE id = ?1" },
	[SQ_RUN_SPEC_KEEP] = { "INSERT INTO run_specs(run, upto, spec) "
	    "SELECT id, ?2, spec FROM runs WHERE id = ?1" },
	[SQ_RUN_SPEC_SET] = {
	    "UPDATE runs SET spec = ?2, mode = ?3, updated = ?4 "
	    "WHERE id = ?1" },
	[SQ_RUN_ENGINE_SET] = { "UPDATE runs SET engine = ?2 WHERE id = ?1" },
	[SQ_RUN_ENGINE_GET] = { "SELECT engine FROM runs WHERE id = ?1" },
	[SQ_RUN_INTERRUPT] = {
	    "UPDATE runs SET state = 'interrupted', updated = ?2 "
	    "WHERE kind = 'session' AND state = 'running' AND id != ?1" },
	[SQ_JOB_UPSERT] = { JOB_UPSERT("", "") },
	/* A replay's: with the emulator's state, and marked traced. */
	[SQ_JOB_UPSERT_EMU] = { JOB_UPSERT(", emu, traced",
	    ", emu = excluded.emu, traced = excluded.traced") },
	[SQ_JOB_BLOB] = {
	    "UPDATE jobs SET emu = ?3 WHERE run = ?1 AND id = ?2" },
	/* A run's newest change number (0: none), by the primary key. */
	[SQ_CHG_LAST] = {
	    "SELECT coalesce(max(chg), 0) FROM job_changes WHERE run = ?1" },
	[SQ_CHG_INSERT] = {
	    "INSERT INTO job_changes(run, chg, jobs) VALUES (?1, ?2, ?3)" },
	[SQ_CHG_SINCE] = {
	    "SELECT chg, jobs FROM job_changes WHERE run = ?1 AND chg > ?2 "
	    "ORDER BY chg" },
	[SQ_JOB_LOG_PUT] = { "INSERT OR REPLACE INTO job_logs(run, job, text) "
	    "VALUES (?1, ?2, ?3)" },
	[SQ_JOB_LOG_GET] = {
	    "SELECT text FROM job_logs WHERE run = ?1 AND job = ?2" },
	[SQ_HEAD_GET] = { "SELECT upto, seqs FROM heads WHERE run = ?1" },
	[SQ_HEAD_SET] = {
	    "INSERT OR REPLACE INTO heads(run, upto, seqs) VALUES (?1, ?2, ?3)" },
	[SQ_EVENT_TAIL_JOB] = {
	    "SELECT max(seq) FROM events WHERE run = ?1 AND seq > ?2 "
	    "AND job = ?3", STORE_SQL_LOG },
	[SQ_EVENT_TAIL] = {
	    "SELECT seq, job FROM events WHERE run = ?1 AND seq > ?2 "
	    "AND job IS NOT NULL ORDER BY seq", STORE_SQL_LOG },
	[SQ_DATA_VERSION] = { "PRAGMA data_version" },
	[SQ_JOB_GET] = {
	    "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 AND j.id = ?2" },
	/* STORE_IDS_PER_READ ids; those not bound are NULL and match nothing */
	[SQ_JOB_GET_IDS] = {
	    "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 AND j.id IN ("
	    "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, "
	    "?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, "
	    "?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, "
	    "?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, "
	    "?51, ?52, ?53, ?54, ?55, ?56, ?57, ?58, ?59, ?60, ?61, ?62, "
	    "?63, ?64, ?65"
	    ") ORDER BY j.id" },
	/*
	 * A session's by jobs_name; then a replay's, reading the run's rows,
	 * but only in a run of kind replay (store.h invariant 8): runs is
	 * the outer loop (CROSS JOIN keeps it there), so for a session's run
	 * the kind test ends the statement after one rowid probe. Without it
	 * every name new to a session's run (each alloc's) read all of the
	 * run's rows.
	 */
	[SQ_JOB_FIND] = { "SELECT " JOB_COLS JOB_FROM
	    " WHERE j.run = ?1 AND j.name = ?2 AND j.traced = 0"
	    " ORDER BY j.id DESC LIMIT 1" },
	[SQ_JOB_FIND_TRACED] = {
	    "SELECT " JOB_COLS " FROM runs r CROSS JOIN jobs j"
	    " LEFT JOIN placements p ON p.run = j.run AND p.job = j.id"
	    " WHERE r.id = ?1 AND r.kind = 'replay' AND j.run = ?1"
	    " AND j.name = ?2 AND j.traced = 1" },
	/* a session's job without its placement: a release's read */
	[SQ_JOB_FIND_BARE] = {
	    "SELECT j.id, j.name, j.user, j.vc, j.submit, j.members,"
	    " j.gpus, j.leaf_type, j.class, j.soft_affinity, j.duration, j.model,"
	    " j.elastic_min, j.elastic_max, j.state, j.reason, j.state_since,"
	    " j.first_start, j.end_time, j.queued, j.attained, j.run_time,"
	    " j.work_done, j.ckpt_work, j.lost_work, j.restarts, j.preemptions,"
	    " j.suspensions, j.opportunistic, j.engine_id, NULL, NULL, NULL, NULL,"
	    " NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
	    " j.priority, j.weight, j.uid, j.gid FROM jobs j"
	    " WHERE j.run = ?1 AND j.name = ?2 AND j.traced = 0"
	    " ORDER BY j.id DESC LIMIT 1" },
	/* what a state change moves; the job's identity (and jobs_name) stays */
	[SQ_JOB_STATE_PUT] = { "UPDATE jobs SET state = ?3, reason = ?4,"
	    " state_since = ?5, first_start = ?6, end_time = ?7, queued = ?8,"
	    " attained = ?9, run_time = ?10, work_done = ?11, ckpt_work = ?12,"
	    " lost_work = ?13, restarts = ?14, preemptions = ?15,"
	    " suspensions = ?16, opportunistic = ?17, engine_id = ?18,"
	    " priority = ?19, weight = ?20 WHERE run = ?1 AND id = ?2" },
	/* the name indexes alone, no row read: an alloc's check misses */
	[SQ_JOB_IDS_NAMED] = { "SELECT id FROM jobs WHERE run = ?1 AND name = ?2"
	    " AND traced = 0 ORDER BY id" },
	[SQ_JOB_LAST_RUN] = { "SELECT max(run) FROM jobs WHERE name = ?1" },
	[SQ_JOB_LAST_RUN_ID] = { "SELECT max(j.run) FROM runs r CROSS JOIN jobs j"
	    " WHERE r.kind = 'session' AND j.run = r.id AND j.id = ?1" },
	[SQ_JOB_NEXT_ID] = { "SELECT max(id) FROM jobs WHERE run = ?1" },
	[SQ_JOB_LOAD] = {
	    "SELECT " JOB_COLS JOB_FROM " WHERE j.run = ?1 ORDER BY j.id" },
	[SQ_PL_PUT] = {
	    "INSERT OR REPLACE INTO placements(run, job, engine_id, chain, "
	    "pin, priority, orig_priority, lazy, downgraded, pod_first, leaves, "
	    "vleaves, nodes, gpus) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	    "?11, ?12, ?13, ?14)" },
	[SQ_PL_DELETE] = {
	    "DELETE FROM placements WHERE run = ?1 AND job = ?2" },
	[SQ_HEALTH_SET] = {
	    "INSERT OR REPLACE INTO health(run, node, bad, since) "
	    "VALUES (?1, ?2, ?3, ?4)" },
	[SQ_HEALTH_DELETE] = {
	    "DELETE FROM health WHERE run = ?1 AND node = ?2" },
	[SQ_HEALTH_LOAD] = {
	    "SELECT node, bad, since FROM health WHERE run = ?1 "
	    "ORDER BY node" },
	[SQ_EVBLOCK_INSERT] = {
	    "INSERT INTO event_blocks(seq, run, first, data) "
	    "VALUES (?1, ?2, ?3, ?4)" },
	[SQ_EVENT_GET] = {
	    "SELECT " EVENT_COLS ", e.prev" EVENT_FROM " WHERE e.seq = ?1",
	    STORE_SQL_LOG },
	[SQ_EVENT_RUN] = {
	    "SELECT " EVENT_COLS EVENT_FROM " WHERE e.run = ?1 AND"
	    EVENT_WHERE " ORDER BY e.seq", STORE_SQL_LOG },
	[SQ_EVENT_RUN_NEWEST] = {
	    "SELECT " EVENT_COLS EVENT_FROM " WHERE e.run = ?1 AND"
	    EVENT_WHERE " ORDER BY e.seq DESC LIMIT ?6", STORE_SQL_LOG },
	[SQ_EVENT_ALL] = {
	    "SELECT " EVENT_COLS EVENT_FROM " WHERE ?1 IS NULL AND"
	    EVENT_WHERE " ORDER BY e.seq", STORE_SQL_LOG },
	[SQ_EVENT_ALL_NEWEST] = {
	    "SELECT " EVENT_COLS EVENT_FROM " WHERE ?1 IS NULL AND"
	    EVENT_WHERE " ORDER BY e.seq DESC LIMIT ?6", STORE_SQL_LOG },
	/* A block's seq is its newest event's. */
	[SQ_EVENT_LAST] = {
	    "SELECT max(seq) FROM event_blocks", STORE_SQL_LOG },
	[SQ_EVENT_LAST_RUN] = {
	    "SELECT max(seq) FROM event_blocks WHERE run = ?1", STORE_SQL_LOG },
	[SQ_SERIES_PUT] = {
	    "INSERT OR REPLACE INTO series(run, t, pending, running, "
	    "used, opp, bad, frag, frag_node) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
	    "?8, ?9)" },
	[SQ_SERIES_LOAD] = {
	    "SELECT t, pending, running, used, opp, bad, frag, frag_node "
	    "FROM series WHERE run = ?1 ORDER BY t" },
	[SQ_AUDIT_INSERT] = {
	    "INSERT INTO audit(at, user, run, cmdline, status, reason, refused, "
	    "count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)" },
	[SQ_AUDIT_LIST] = {
	    "SELECT id, at, user, run, cmdline, status, reason, refused, count "
	    "FROM audit ORDER BY id" },
	/* the newest ?4 (-1: all) of those matching, oldest first */
	[SQ_AUDIT_QUERY] = {
	    "SELECT * FROM (SELECT id, at, user, run, cmdline, status, reason, "
	    "refused, count FROM audit WHERE (?1 IS NULL OR user = ?1) AND "
	    "at >= ?2 AND (?3 = 0 OR refused = 1) ORDER BY id DESC LIMIT ?4) "
	    "ORDER BY id" },
	[SQ_AUDIT_COUNT] = {
	    "UPDATE audit SET count = ?2 WHERE id = ?1" },
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

/* Each buffer's settle hook: what a read of the log must see goes in. */
static int
settle(struct store *st, char **cause)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->settle != NULL &&
		    st->buf[i]->settle(st, cause) != 0)
			return -1;
	return 0;
}

sqlite3_stmt *
store_stmt(struct store *st, enum store_stmt_id id, char **cause)
{
	int rc;

	if (st->stmt[id] == NULL) {
		rc = sqlite3_prepare_v3(st->db, store_sql[id].sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL);
		if (rc != SQLITE_OK) {
			st->stmt[id] = NULL;
			store_fail(st, rc, cause);
			return NULL;
		}
	}
	/* a group's pending events go in before anything reads the log */
	if ((store_sql[id].flags & STORE_SQL_LOG) && settle(st, cause) != 0)
		return NULL;
	return st->stmt[id];
}

/*
 * The fault tests' lasting failure: while the file CELLAR_STORE_FAIL_FILE
 * names exists, every write step fails, as on a full disk until space is
 * freed (removing the file frees it).
 */
static bool
fail_file_there(void)
{
	static const char *path;
	static bool looked;

	if (!looked) {
		path = getenv("CELLAR_STORE_FAIL_FILE");
		looked = true;
	}
	return path != NULL && *path != '\0' && access(path, F_OK) == 0;
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
	if (st->write && fail_file_there() && (s == NULL ||
	    (s != st->stmt[SQ_ROLLBACK] && s != st->stmt[SQ_ROLLBACK_TO] &&
	    s != st->stmt[SQ_RELEASE]))) {
		if (*cause == NULL)
			*cause = xasprintf("state store '%s': write failed "
			    "(CELLAR_STORE_FAIL_FILE)", st->path);
		return -1;
	}
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

int
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

/* ---- the wall clock and the user, as rows record them ---- */

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
