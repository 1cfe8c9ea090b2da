/*
 * store-job.c — jobs, placements and the event log of a run.
 *
 * A job row holds every field of struct job; its placement, while it holds
 * cells, is a row of its own (placements). Events are appended with a link
 * to the same job's previous event (prev), so reading one job's history
 * follows links by primary key instead of needing an index on (run, job),
 * which would make every append an insertion at a random place (the
 * developer guide, src/README.md "The state store", has the numbers).
 *
 * A job's newest event (where its history starts) is kept in memory by the
 * writer, for the runs it writes, and checkpointed to the heads table (one
 * row per run: an int64 per job id) every STORE_HEADS_EVERY events; in
 * between, the run's tail after the checkpoint (by the events_run index)
 * says the rest. The memory is dropped when another connection committed
 * in between (PRAGMA data_version), and rebuilt from checkpoint and tail.
 */
#include "store/store-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "job/model-class.h"

/* Job ids the heads can hold (an array by id); beyond, events get no link. */
#define HEADS_MAX_JOB	(1 << 24)

/* ---- names of enums ---- */

static int
state_parse(const char *s)
{
	int i;

	for (i = 0; s != NULL && i < JOB_NSTATES; i++)
		if (strcmp(job_state_name((enum job_state)i), s) == 0)
			return i;
	return -1;
}

static int
reason_parse(const char *s)
{
	int i;

	for (i = 0; s != NULL && i < JOB_NREASONS; i++)
		if (strcmp(job_reason_name((enum job_reason)i), s) == 0)
			return i;
	return -1;
}

static int
members_parse(const char *s, struct job *j)
{
	char *end;
	long p, g;

	j->nmembers = 0;
	if (s == NULL || *s == '\0')
		return 0;
	for (;;) {
		if (j->nmembers == ENGINE_MAX_MEMBERS)
			return -1;
		p = strtol(s, &end, 10);
		if (end == s || *end != 'x')
			return -1;
		s = end + 1;
		g = strtol(s, &end, 10);
		if (end == s)
			return -1;
		j->members[j->nmembers].pods = (int)p;
		j->members[j->nmembers].gpus = (int)g;
		j->nmembers++;
		if (*end == '\0')
			return 0;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* ---- jobs ---- */

static int	job_newest(struct store *st, int64_t run, int job, int64_t *seq,
		    char **cause);

void
store_job_init(struct store_job *sj)
{
	memset(sj, 0, sizeof *sj);
	sj->pl.pl.id = -1;
	sj->pl.pl.pin = -1;
}

void
store_job_release(struct store_job *sj)
{
	free((int *)sj->pl.pl.pod_first);
	free((int *)sj->pl.pl.leaves);
	free((int *)sj->pl.pl.vleaves);
	free(sj->pl.nodes);
	free(sj->pl.gpus);
	free(sj->blob);
	store_job_init(sj);
}

/* ---- change numbers (store.h invariant 7) ---- */


static void
store_chg_reset(struct store *st)
{
	st->nchg = 0;
}

/* Job `job` of run changed in the open transaction. */
static void
chg_note(struct store *st, int64_t run, int job)
{
	struct store_chg *c;

	/* a checkpoint writes a job and then its placement: noted once */
	if (st->nchg > 0 && st->chg[st->nchg - 1].run == run &&
	    st->chg[st->nchg - 1].job == job)
		return;
	XGROW(st->chg, st->capchg, st->nchg + 1);
	c = &st->chg[st->nchg++];
	c->run = run;
	c->job = job;
}

static int
chg_cmp(const void *a, const void *b)
{
	const struct store_chg *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->job > y->job) - (x->job < y->job);
}

/* The newest change number of run, 0 for none. */
static int
chg_last(struct store *st, int64_t run, int64_t *chg, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	if ((q = store_stmt(st, SQ_CHG_LAST, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		return store_fail(st, rc, cause);
	}
	*chg = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return 0;
}

/*
 * One job_changes row per run the transaction changed jobs of, numbered
 * one above the run's newest: the write lock is ours from BEGIN IMMEDIATE
 * to COMMIT, so no other writer numbers in between.
 */
static int
store_chg_flush(struct store *st, char **cause)
{
	unsigned char *ids = NULL;
	sqlite3_stmt *q;
	int64_t last;
	size_t i, j, k, n;
	int rc = 0;

	if (st->nchg == 0)
		return 0;
	qsort(st->chg, st->nchg, sizeof *st->chg, chg_cmp);
	ids = xmalloc(st->nchg * 4);
	for (i = 0; i < st->nchg && rc == 0; i = j) {
		n = 0;
		for (j = i; j < st->nchg && st->chg[j].run == st->chg[i].run; j++)
			if (j == i || st->chg[j].job != st->chg[j - 1].job) {
				for (k = 0; k < 4; k++)
					ids[4 * n + k] = (unsigned char)
					    ((uint32_t)st->chg[j].job >> (8 * k));
				n++;
			}
		if ((rc = chg_last(st, st->chg[i].run, &last, cause)) != 0)
			break;
		if ((q = store_stmt(st, SQ_CHG_INSERT, cause)) == NULL) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(q, 1, st->chg[i].run);
		sqlite3_bind_int64(q, 2, last + 1);
		sqlite3_bind_blob64(q, 3, ids, n * 4, SQLITE_STATIC);
		rc = store_step_done(st, q, cause);
	}
	free(ids);
	if (rc == 0)
		st->nchg = 0;
	return rc;
}

/*
 * Outside a transaction a job write is a transaction of its own, so that
 * its job_changes row commits with it.
 */
static int
own_begin(struct store *st, bool *own, char **cause)
{
	*own = !st->txn;
	return *own ? store_begin(st, cause) : 0;
}

static int
own_end(struct store *st, bool own, int rc, char **cause)
{
	if (!own)
		return rc;
	if (rc == 0 && store_commit(st, cause) == 0)
		return 0;
	store_rollback(st);
	return rc != 0 ? rc : -1;
}

/*
 * Upsert rows[0..n) through job_rows; with_emu writes their blobs too, and
 * marks them a replay's (traced).
 */
static int
job_rows_put(struct store *st, int64_t run, bool with_emu,
    const struct store_jobrow *rows, int n, char **cause)
{
	struct store_jobrows rs;
	sqlite3_stmt *q;
	int i, rc;

	if (n <= 0)
		return 0;
	if ((q = store_stmt(st, with_emu ? SQ_JOB_UPSERT_EMU : SQ_JOB_UPSERT,
	    cause)) == NULL)
		return -1;
	memset(&rs, 0, sizeof rs);
	rs.run = run;
	rs.rows = rows;
	rs.n = n;
	rs.traced = with_emu;
	rs.st = st;
	sqlite3_bind_pointer(q, 1, &rs, STORE_JOBROWS_POINTER, NULL);
	rc = store_step_done(st, q, cause);
	if (rs.hook_cause != NULL) {	/* a test hook's failure, said as such */
		free(*cause);
		*cause = rs.hook_cause;
		return -1;
	}
	if (rc != 0)
		return -1;
	for (i = 0; i < n; i++)
		chg_note(st, run, rows[i].job->id);
	return 0;
}

int
store_job_put(struct store *st, int64_t run, const struct job *j, char **cause)
{
	struct store_jobrow r = { j, NULL, 0 };
	bool own;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	return own_end(st, own, job_rows_put(st, run, false, &r, 1, cause),
	    cause);
}

int
store_job_put_many(struct store *st, int64_t run,
    const struct store_jobrow *rows, int n, char **cause)
{
	bool own;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	return own_end(st, own, job_rows_put(st, run, true, rows, n, cause),
	    cause);
}

/* An UPDATE of one job's row; no such job is STORE_NOTFOUND. */
static int
job_update(struct store *st, sqlite3_stmt *q, int64_t run, int job, char **cause)
{
	if (store_step_done(st, q, cause) != 0)
		return -1;
	if (sqlite3_changes(st->db) == 0) {
		*cause = xasprintf("no job %d in run %lld", job, (long long)run);
		return STORE_NOTFOUND;
	}
	return 0;
}

int
store_job_put_state(struct store *st, int64_t run, const struct job *j,
    char **cause)
{
	sqlite3_stmt *q;
	bool own;
	int rc;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_JOB_STATE_PUT, cause)) == NULL)
		return own_end(st, own, -1, cause);
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, j->id);
	sqlite3_bind_text(q, 3, job_state_name(j->state), -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, job_reason_name(j->reason), -1, SQLITE_STATIC);
	sqlite3_bind_double(q, 5, j->state_since);
	sqlite3_bind_double(q, 6, j->first_start);
	sqlite3_bind_double(q, 7, j->end);
	sqlite3_bind_double(q, 8, j->queued);
	sqlite3_bind_double(q, 9, j->attained);
	sqlite3_bind_double(q, 10, j->run_time);
	sqlite3_bind_double(q, 11, j->work_done);
	sqlite3_bind_double(q, 12, j->ckpt_work);
	sqlite3_bind_double(q, 13, j->lost_work);
	sqlite3_bind_int(q, 14, j->restarts);
	sqlite3_bind_int(q, 15, j->preemptions);
	sqlite3_bind_int(q, 16, j->suspensions);
	sqlite3_bind_int(q, 17, j->opportunistic);
	sqlite3_bind_int(q, 18, j->engine_id);
	sqlite3_bind_int(q, 19, j->priority);
	sqlite3_bind_int(q, 20, j->weight);
	if ((rc = job_update(st, q, run, j->id, cause)) == 0)
		chg_note(st, run, j->id);
	return own_end(st, own, rc, cause);
}

int
store_job_set_blob(struct store *st, int64_t run, int job, const void *data,
    size_t len, char **cause)
{
	sqlite3_stmt *q;
	bool own;
	int rc;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_JOB_BLOB, cause)) == NULL)
		return own_end(st, own, -1, cause);
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, job);
	if (data != NULL)
		sqlite3_bind_blob64(q, 3, data, len, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 3);
	if ((rc = job_update(st, q, run, job, cause)) == 0)
		chg_note(st, run, job);
	return own_end(st, own, rc, cause);
}

int
store_job_log_put(struct store *st, int64_t run, int job, const char *text,
    size_t len, char **cause)
{
	sqlite3_stmt *q;

	if (len > STORE_LOG_MAX) {	/* the newest bytes are the ones wanted */
		text += len - STORE_LOG_MAX;
		len = STORE_LOG_MAX;
	}
	if ((q = store_stmt(st, SQ_JOB_LOG_PUT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, job);
	sqlite3_bind_blob64(q, 3, len > 0 ? text : "", len, SQLITE_STATIC);
	return store_step_done(st, q, cause);
}

int
store_job_log_get(struct store *st, int64_t run, int job, char **text,
    size_t *len, char **cause)
{
	sqlite3_stmt *q;
	const void *p;
	int rc;

	*text = NULL;
	*len = 0;
	if ((q = store_stmt(st, SQ_JOB_LOG_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, job);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		p = sqlite3_column_blob(q, 0);
		*len = (size_t)sqlite3_column_bytes(q, 0);
		*text = xmalloc(*len + 1);
		if (*len > 0)
			memcpy(*text, p, *len);
		(*text)[*len] = '\0';
		rc = SQLITE_DONE;
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_DONE) {
		free(*text);
		*text = NULL;
		*len = 0;
		return store_fail(st, rc, cause);
	}
	if (*text == NULL)
		*text = xstrdup("");
	return 0;
}

static int
placement_put(struct store *st, int64_t run, int job,
    const struct engine_placement *pl, const char *nodes, const char *gpus,
    char **cause)
{
	unsigned char stack[3][1024], *pf = stack[0], *lv = stack[1], *vl = stack[2];
	size_t npf = ((size_t)pl->npods + 1) * 4, nlv = (size_t)pl->nleaves * 4;
	sqlite3_stmt *q;
	int rc;

	if (pl->npods < 0 || pl->nleaves < 0 ||
	    (pl->npods > 0 && pl->pod_first[pl->npods] != pl->nleaves)) {
		*cause = xasprintf("placement of job %d: %d pods do not cover %d "
		    "leaves", job, pl->npods, pl->nleaves);
		return STORE_INVALID;
	}
	if (npf > sizeof stack[0])
		pf = xmalloc(npf);
	if (nlv > sizeof stack[1]) {
		lv = xmalloc(nlv);
		vl = xmalloc(nlv);
	}
	if (pl->npods > 0)
		store_i32_encode(pl->pod_first, pl->npods + 1, pf);
	else
		store_i32_encode((const int []){ 0 }, 1, pf), npf = 4;
	store_i32_encode(pl->leaves, pl->nleaves, lv);
	if (pl->vleaves != NULL)
		store_i32_encode(pl->vleaves, pl->nleaves, vl);
	rc = -1;
	if ((q = store_stmt(st, SQ_PL_PUT, cause)) == NULL)
		goto out;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, job);
	sqlite3_bind_int(q, 3, pl->id);
	sqlite3_bind_int(q, 4, pl->chain);
	store_bind_int_or_null(q, 5, pl->pin, pl->pin < 0);
	sqlite3_bind_int(q, 6, pl->priority);
	sqlite3_bind_int(q, 7, pl->orig_priority);
	sqlite3_bind_int(q, 8, pl->lazy);
	sqlite3_bind_int(q, 9, pl->downgraded);
	sqlite3_bind_blob(q, 10, pf, (int)npf, SQLITE_STATIC);
	sqlite3_bind_blob(q, 11, lv, (int)nlv, SQLITE_STATIC);
	if (pl->vleaves != NULL)
		sqlite3_bind_blob(q, 12, vl, (int)nlv, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 12);
	sqlite3_bind_text(q, 13, nodes != NULL ? nodes : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 14, gpus != NULL ? gpus : "", -1, SQLITE_STATIC);
	if ((rc = store_step_done(st, q, cause)) == 0)
		chg_note(st, run, job);
out:
	if (pf != stack[0])
		free(pf);
	if (lv != stack[1]) {
		free(lv);
		free(vl);
	}
	return rc;
}

int
store_placement_put(struct store *st, int64_t run, int job,
    const struct engine_placement *pl, const char *nodes, const char *gpus,
    char **cause)
{
	bool own;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	return own_end(st, own, placement_put(st, run, job, pl, nodes, gpus,
	    cause), cause);
}

int
store_placement_delete(struct store *st, int64_t run, int job, char **cause)
{
	sqlite3_stmt *q;
	bool own;
	int rc = -1;

	if (own_begin(st, &own, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_PL_DELETE, cause)) == NULL)
		return own_end(st, own, -1, cause);
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, job);
	if ((rc = store_step_done(st, q, cause)) == 0 &&
	    sqlite3_changes(st->db) > 0)	/* nothing deleted: nothing changed */
		chg_note(st, run, job);
	return own_end(st, own, rc, cause);
}

/* Column `col` as an int32 array blob. */
static int *
col_i32(sqlite3_stmt *q, int col, int *n)
{
	return store_i32_decode(sqlite3_column_blob(q, col),
	    sqlite3_column_bytes(q, col), n);
}

/* A row of JOB_COLS into sj; -1 with *cause for a row that makes no sense. */
static int
job_from_row(struct store *st, int64_t run, sqlite3_stmt *q, struct store_job *sj,
    char **cause)
{
	struct job *j = &sj->job;
	const char *t;
	int v, npf, nvl;

	store_job_release(sj);
	j->id = sqlite3_column_int(q, 0);
	snprintf(j->name, sizeof j->name, "%s", sqlite3_column_text(q, 1));
	snprintf(j->user, sizeof j->user, "%s", sqlite3_column_text(q, 2));
	j->vc = sqlite3_column_int(q, 3);
	j->submit = sqlite3_column_double(q, 4);
	if (members_parse((const char *)sqlite3_column_text(q, 5), j) != 0)
		goto bad;
	j->gpus = sqlite3_column_int(q, 6);
	j->leaf_type = sqlite3_column_int(q, 7);
	if ((v = job_class_parse((const char *)sqlite3_column_text(q, 8))) < 0)
		goto bad;
	j->klass = (enum job_class)v;
	j->soft_affinity = sqlite3_column_int(q, 9) != 0;
	j->duration = sqlite3_column_double(q, 10);
	t = (const char *)sqlite3_column_text(q, 11);
	j->model = t != NULL ? model_find(t) : -1;
	j->elastic_min = sqlite3_column_int(q, 12);
	j->elastic_max = sqlite3_column_int(q, 13);
	j->priority = sqlite3_column_int(q, 44);
	j->weight = sqlite3_column_int(q, 45);
	if ((v = state_parse((const char *)sqlite3_column_text(q, 14))) < 0)
		goto bad;
	j->state = (enum job_state)v;
	if ((v = reason_parse((const char *)sqlite3_column_text(q, 15))) < 0)
		goto bad;
	j->reason = (enum job_reason)v;
	j->state_since = sqlite3_column_double(q, 16);
	j->first_start = sqlite3_column_double(q, 17);
	j->end = sqlite3_column_double(q, 18);
	j->queued = sqlite3_column_double(q, 19);
	j->attained = sqlite3_column_double(q, 20);
	j->run_time = sqlite3_column_double(q, 21);
	j->work_done = sqlite3_column_double(q, 22);
	j->ckpt_work = sqlite3_column_double(q, 23);
	j->lost_work = sqlite3_column_double(q, 24);
	j->restarts = sqlite3_column_int(q, 25);
	j->preemptions = sqlite3_column_int(q, 26);
	j->suspensions = sqlite3_column_int(q, 27);
	j->opportunistic = sqlite3_column_int(q, 28) != 0;
	j->engine_id = sqlite3_column_int(q, 29);
	if (sqlite3_column_type(q, 31) != SQLITE_NULL) {
		sj->blob_len = (size_t)sqlite3_column_bytes(q, 31);
		sj->blob = xmalloc(sj->blob_len + 1);
		if (sj->blob_len > 0)
			memcpy(sj->blob, sqlite3_column_blob(q, 31), sj->blob_len);
	}
	if (sqlite3_column_type(q, 32) == SQLITE_NULL)
		return 0;
	sj->placed = true;
	sj->pl.pl.id = sqlite3_column_int(q, 32);
	sj->pl.pl.name = j->name;
	sj->pl.pl.vc = j->vc;
	sj->pl.pl.chain = sqlite3_column_int(q, 33);
	sj->pl.pl.pin = sqlite3_column_type(q, 34) == SQLITE_NULL ? -1 :
	    sqlite3_column_int(q, 34);
	sj->pl.pl.priority = sqlite3_column_int(q, 35);
	sj->pl.pl.orig_priority = sqlite3_column_int(q, 36);
	sj->pl.pl.lazy = sqlite3_column_int(q, 37) != 0;
	sj->pl.pl.downgraded = sqlite3_column_int(q, 38) != 0;
	sj->pl.pl.pod_first = col_i32(q, 39, &npf);
	sj->pl.pl.npods = npf - 1;
	sj->pl.pl.leaves = col_i32(q, 40, &sj->pl.pl.nleaves);
	if (sqlite3_column_type(q, 41) != SQLITE_NULL) {
		sj->pl.pl.vleaves = col_i32(q, 41, &nvl);
		if (nvl != sj->pl.pl.nleaves)
			goto bad;
	}
	if (npf < 1 || sj->pl.pl.pod_first[npf - 1] != sj->pl.pl.nleaves)
		goto bad;
	sj->pl.nodes = store_col_strdup(q, 42);
	sj->pl.gpus = store_col_strdup(q, 43);
	return 0;
bad:
	*cause = xasprintf("state store '%s': job %d of run %lld ('%s') is "
	    "malformed", st->path, j->id, (long long)run, j->name);
	store_job_release(sj);
	return -1;
}

/* One row from q (bound), or STORE_NOTFOUND with message `what`. */
static int
job_one(struct store *st, int64_t run, sqlite3_stmt *q, struct store_job *out,
    char **cause)
{
	int rc;

	/* no row: STORE_NOTFOUND, its message the caller's (formatted only
	   then: an alloc's name check misses nearly always) */
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		return rc == SQLITE_DONE ? STORE_NOTFOUND : store_fail(st, rc, cause);
	}
	rc = job_from_row(st, run, q, out, cause);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc == 0 && job_newest(st, run, out->job.id, &out->last_seq, cause) != 0) {
		store_job_release(out);
		rc = -1;
	}
	return rc;
}

int
store_job_get(struct store *st, int64_t run, int id, struct store_job *out,
    char **cause)
{
	sqlite3_stmt *q;
	int rc;

	store_job_init(out);
	if ((q = store_stmt(st, SQ_JOB_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int(q, 2, id);
	if ((rc = job_one(st, run, q, out, cause)) == STORE_NOTFOUND)
		*cause = xasprintf("no job %d in run %lld", id, (long long)run);
	return rc;
}

int
store_job_find(struct store *st, int64_t run, const char *name,
    struct store_job *out, char **cause)
{
	sqlite3_stmt *q;
	int rc, i;

	/*
	 * A session's job by the name index, else a replay's (invariant 8):
	 * the second statement reads the run's rows only in a replay's run,
	 * so a name a session's run lacks costs two probes, not a scan.
	 */
	for (i = 0; i < 2; i++) {
		store_job_init(out);
		if ((q = store_stmt(st, i == 0 ? SQ_JOB_FIND : SQ_JOB_FIND_TRACED,
		    cause)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
		if ((rc = job_one(st, run, q, out, cause)) != STORE_NOTFOUND)
			return rc;
	}
	*cause = xasprintf("no job '%s' in run %lld", name, (long long)run);
	return STORE_NOTFOUND;
}

int
store_job_find_bare(struct store *st, int64_t run, const char *name,
    struct store_job *out, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	store_job_init(out);
	if ((q = store_stmt(st, SQ_JOB_FIND_BARE, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	if ((rc = job_one(st, run, q, out, cause)) == STORE_NOTFOUND)
		*cause = xasprintf("no job '%s' in run %lld", name, (long long)run);
	return rc;
}

int
store_job_name_used(struct store *st, int64_t run, const char *name,
    bool *used, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	*used = false;
	if ((q = store_stmt(st, SQ_JOB_NAME_USED, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	*used = rc == SQLITE_ROW;
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(st, rc, cause);
}

int
store_job_last_run(struct store *st, const char *name, int64_t *run, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	*run = 0;
	if ((q = store_stmt(st, SQ_JOB_LAST_RUN, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*run = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_fail(st, rc, cause);
	if (*run == 0) {
		*cause = xasprintf("no job '%s' in state store '%s'", name, st->path);
		return STORE_NOTFOUND;
	}
	return 0;
}

int
store_job_next_id(struct store *st, int64_t run, int *id, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	*id = 0;
	if ((q = store_stmt(st, SQ_JOB_NEXT_ID, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*id = sqlite3_column_int(q, 0) + 1;
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(st, rc, cause);
}

/* A job named by job_changes rows: the newest row's number. */
struct chg_job {
	int64_t		 chg;
	int		 job;
};

static int
chg_job_cmp(const void *a, const void *b)
{
	const struct chg_job *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return (x->chg < y->chg) - (x->chg > y->chg);	/* newest first */
}

/* Job ids by key (job only). */
static int
chg_job_find(const void *key, const void *elem)
{
	const struct chg_job *x = key, *y = elem;

	return (x->job > y->job) - (x->job < y->job);
}

/*
 * Steps a bound job query to its end, handing each row to fn; heads (the
 * newest event of each job id, may be NULL) fills last_seq; each row's
 * change number is its entry's in cj (sorted by job) if given, else chg.
 * Resets q.
 */
static int
job_rows(struct store *st, int64_t run, sqlite3_stmt *q, const int64_t *heads,
    size_t nheads, const struct chg_job *cj, size_t ncj, int64_t chg,
    int (*fn)(void *, const struct store_job *), void *arg, char **cause)
{
	const struct chg_job *e;
	struct store_job sj;
	int rc, stop = 0;

	store_job_init(&sj);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (job_from_row(st, run, q, &sj, cause) != 0) {
			stop = -1;
			break;
		}
		if (sj.job.id >= 0 && (size_t)sj.job.id < nheads)
			sj.last_seq = heads[sj.job.id];
		sj.chg = chg;
		if (cj != NULL && (e = bsearch(&(struct chg_job){ 0, sj.job.id },
		    cj, ncj, sizeof *cj, chg_job_find)) != NULL)
			sj.chg = e->chg;
		if ((stop = fn(arg, &sj)) != 0)
			break;
	}
	store_job_release(&sj);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (stop == 0 && rc != SQLITE_DONE)
		return store_fail(st, rc, cause);
	return stop;
}

int
store_job_load(struct store *st, int64_t run,
    int (*fn)(void *, const struct store_job *), void *arg, char **cause)
{
	sqlite3_stmt *q;
	int64_t *heads = NULL, chg;
	size_t nheads = 0;
	int rc;

	/* The change number first: rows read after it are at least as new
	   (a follower may read a job twice, never miss one). */
	if (chg_last(st, run, &chg, cause) != 0)
		return -1;
	/* Every job's newest event at once: one read, not one per job. */
	if (store_heads_read(st, run, &heads, &nheads, NULL, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_JOB_LOAD, cause)) == NULL) {
		free(heads);
		return -1;
	}
	sqlite3_bind_int64(q, 1, run);
	rc = job_rows(st, run, q, heads, nheads, NULL, 0, chg, fn, arg, cause);
	free(heads);
	return rc;
}

int
store_job_load_since(struct store *st, int64_t run, int64_t after,
    int (*fn)(void *, const struct store_job *), void *arg, char **cause)
{
	const unsigned char *b;
	struct chg_job *cj = NULL;
	size_t n = 0, cap = 0, i, k, nb;
	sqlite3_stmt *q;
	int64_t chg;
	int rc = 0, r;

	if ((q = store_stmt(st, SQ_CHG_SINCE, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, after);
	while ((r = sqlite3_step(q)) == SQLITE_ROW) {
		chg = sqlite3_column_int64(q, 0);
		b = sqlite3_column_blob(q, 1);
		nb = (size_t)sqlite3_column_bytes(q, 1) / 4;
		XGROW(cj, cap, n + nb);
		for (k = 0; k < nb; k++, n++) {
			cj[n].chg = chg;
			cj[n].job = (int)((uint32_t)b[4 * k] |
			    (uint32_t)b[4 * k + 1] << 8 |
			    (uint32_t)b[4 * k + 2] << 16 |
			    (uint32_t)b[4 * k + 3] << 24);
		}
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (r != SQLITE_DONE) {
		free(cj);
		return store_fail(st, r, cause);
	}
	/* Each job once, in id order, with its newest change number. */
	if (n > 0)
		qsort(cj, n, sizeof *cj, chg_job_cmp);
	for (i = k = 0; i < n; i++)
		if (i == 0 || cj[i].job != cj[k - 1].job)
			cj[k++] = cj[i];
	n = k;
	/* Their rows as they are now (a job that is gone went with its
	   run), STORE_IDS_PER_READ to a statement: one statement per job
	   cost a follower reading 1,000 of them half as much again. */
	for (i = 0; i < n && rc == 0; i += STORE_IDS_PER_READ) {
		/* one job (a session's tick, often): by its key alone */
		if ((q = store_stmt(st, n - i == 1 ? SQ_JOB_GET : SQ_JOB_GET_IDS,
		    cause)) == NULL) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(q, 1, run);
		for (k = 0; k < STORE_IDS_PER_READ && i + k < n; k++)
			sqlite3_bind_int(q, (int)k + 2, cj[i + k].job);
		rc = job_rows(st, run, q, NULL, 0, cj + i, k, 0, fn, arg, cause);
	}
	free(cj);
	return rc;
}

/*
 * Before a read of the log: our own pending events go in first, so a
 * writer reads what it appended (store-events.c, invariant 2).
 */
static int
events_settle(struct store *st, char **cause)
{
	return st->ev_n > 0 ? store_events_flush(st, cause) : 0;
}

/* ---- job heads ---- */

static void
store_heads_reset(struct store *st)
{
	int i;

	for (i = 0; i < STORE_HEADS_RUNS; i++) {
		free(st->heads[i].seq);
		memset(&st->heads[i], 0, sizeof st->heads[i]);
	}
}

/* Make seq hold job ids up to job. */
static void
heads_grow(int64_t **seq, size_t *n, size_t job)
{
	size_t m = *n ? *n : 1024;

	if (job < *n)
		return;
	while (m <= job)
		m *= 2;
	*seq = xreallocarray(*seq, m, sizeof **seq);
	memset(*seq + *n, 0, (m - *n) * sizeof **seq);
	*n = m;
}

int
store_heads_read(struct store *st, int64_t run, int64_t **seqp, size_t *np,
    int64_t *uptop, char **cause)
{
	const unsigned char *b;
	sqlite3_stmt *q;
	int64_t *seq = NULL, upto = 0, s, job;
	size_t n = 0, k, nb;
	uint64_t u;
	int rc, x;

	if (events_settle(st, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_HEAD_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		upto = sqlite3_column_int64(q, 0);
		b = sqlite3_column_blob(q, 1);
		nb = (size_t)sqlite3_column_bytes(q, 1) / 8;
		if (nb > 0)
			heads_grow(&seq, &n, nb - 1);
		for (k = 0; k < nb; k++) {
			for (u = 0, x = 7; x >= 0; x--)
				u = u << 8 | b[8 * k + (size_t)x];
			seq[k] = (int64_t)u;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_fail(st, rc, cause);
		sqlite3_reset(q);
		free(seq);
		return -1;
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	/* The tail: the run's events after the checkpoint, in order. */
	if ((q = store_stmt(st, SQ_EVENT_TAIL, cause)) == NULL) {
		free(seq);
		return -1;
	}
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, upto);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		s = sqlite3_column_int64(q, 0);
		job = sqlite3_column_int64(q, 1);
		if (job < 0 || job >= HEADS_MAX_JOB)
			continue;
		heads_grow(&seq, &n, (size_t)job);
		seq[job] = s;
	}
	if (rc != SQLITE_DONE) {
		store_fail(st, rc, cause);
		sqlite3_reset(q);
		free(seq);
		return -1;
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	*seqp = seq;
	*np = n;
	if (uptop != NULL)
		*uptop = upto;
	return 0;
}

int
store_heads_write(struct store *st, int64_t run, const int64_t *seq, size_t n,
    int64_t upto, char **cause)
{
	unsigned char *b;
	sqlite3_stmt *q;
	size_t k, used = n;
	uint64_t u;
	int x, rc = -1;

	while (used > 0 && seq[used - 1] == 0)
		used--;
	b = xmalloc(used * 8 + 1);
	for (k = 0; k < used; k++)
		for (u = (uint64_t)seq[k], x = 0; x < 8; x++)
			b[8 * k + (size_t)x] = (unsigned char)(u >> (8 * x));
	if ((q = store_stmt(st, SQ_HEAD_SET, cause)) != NULL) {
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_int64(q, 2, upto);
		sqlite3_bind_blob64(q, 3, b, used * 8, SQLITE_STATIC);
		rc = store_step_done(st, q, cause);
	}
	free(b);
	return rc;
}

/*
 * Checkpoint h if it has events of this transaction and its tail is long:
 * seqs since the checkpoint (events of other runs count too, so this errs
 * towards checkpointing early).
 */
static int
heads_checkpoint(struct store *st, struct store_heads *h, char **cause)
{
	if (h->run == 0 || !h->dirty || h->last - h->upto < st->heads_every)
		return 0;
	if (store_heads_write(st, h->run, h->seq, h->n, h->last, cause) != 0)
		return -1;
	h->upto = h->last;
	return 0;
}

static int
store_heads_flush(struct store *st, char **cause)
{
	int i;

	for (i = 0; i < STORE_HEADS_RUNS; i++)
		if (heads_checkpoint(st, &st->heads[i], cause) != 0)
			return -1;
	return 0;
}

/* The heads of a run we write, loaded from the store the first time. */
static struct store_heads *
heads_of(struct store *st, int64_t run, char **cause)
{
	struct store_heads *h = NULL;
	int64_t last;
	int i;

	for (i = 0; i < STORE_HEADS_RUNS; i++)
		if (st->heads[i].run == run) {
			st->heads[i].used = ++st->heads_clock;
			return &st->heads[i];
		}
	/* A free slot, else the least recently used, checkpointed first. */
	for (i = 0; i < STORE_HEADS_RUNS; i++)
		if (h == NULL || st->heads[i].run == 0 ||
		    (h->run != 0 && st->heads[i].used < h->used))
			h = &st->heads[i];
	if (heads_checkpoint(st, h, cause) != 0)
		return NULL;
	free(h->seq);
	memset(h, 0, sizeof *h);
	if (store_heads_read(st, run, &h->seq, &h->n, &h->upto, cause) != 0 ||
	    store_event_last_seq(st, run, &last, cause) != 0) {
		free(h->seq);
		memset(h, 0, sizeof *h);
		return NULL;
	}
	h->run = run;
	h->last = last > h->upto ? last : h->upto;
	h->used = ++st->heads_clock;
	return h;
}

/* A job's newest event (0: none), as a reader sees it. */
static int
job_newest(struct store *st, int64_t run, int job, int64_t *seq, char **cause)
{
	const unsigned char *b;
	sqlite3_stmt *q;
	int64_t upto = 0;
	uint64_t u;
	int i, rc, x;

	*seq = 0;
	/*
	 * A run we write, in our transaction: our memory has it (our own
	 * events too; nobody else writes while we hold the lock). Outside
	 * one, another connection may have written since.
	 */
	for (i = 0; st->txn && i < STORE_HEADS_RUNS; i++)
		if (st->heads[i].run == run) {
			if (job >= 0 && (size_t)job < st->heads[i].n)
				*seq = st->heads[i].seq[job];
			return 0;
		}
	/* Its newest event after the checkpoint, else the checkpoint's. */
	if (events_settle(st, cause) != 0 ||
	    (q = store_stmt(st, SQ_HEAD_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		upto = sqlite3_column_int64(q, 0);
		b = sqlite3_column_blob(q, 1);
		if (job >= 0 && (size_t)job < (size_t)sqlite3_column_bytes(q, 1) / 8) {
			for (u = 0, x = 7; x >= 0; x--)
				u = u << 8 | b[8 * (size_t)job + (size_t)x];
			*seq = (int64_t)u;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, rc, cause);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if ((q = store_stmt(st, SQ_EVENT_TAIL_JOB, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_int64(q, 2, upto);
	sqlite3_bind_int(q, 3, job);
	if ((rc = sqlite3_step(q)) == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*seq = sqlite3_column_int64(q, 0);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_fail(st, rc, cause);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

/* ---- events ---- */

int
store_event_append(struct store *st, int64_t run, const struct rec *r,
    int64_t *seqp, char **cause)
{
	struct store_heads *h = NULL;
	struct store_evrow e;
	bool own = !st->txn;
	int64_t seq, prev = 0;

	if (own && store_begin(st, cause) != 0)
		return -1;
	if (r->job >= 0 && r->job < HEADS_MAX_JOB) {
		if ((h = heads_of(st, run, cause)) == NULL)
			goto fail;
		heads_grow(&h->seq, &h->n, (size_t)r->job);
		prev = h->seq[r->job];
	}
	e.t = r->t;
	e.kind = rec_kind_name(r->kind);
	e.kind_len = strlen(e.kind);
	e.job = r->job < 0 ? -1 : r->job;
	e.vc = r->vc < 0 ? -1 : r->vc;
	e.cell = r->cell < 0 ? -1 : r->cell;
	e.by = r->by < 0 ? -1 : r->by;
	e.prev = prev;
	e.detail = r->detail;
	e.detail_len = strnlen(r->detail, sizeof r->detail);
	/* Into the pending block: written as one row at the commit. */
	if (store_events_put(st, 0, run, &e, &seq, cause) != 0)
		goto fail;
	if (h != NULL) {
		h->seq[r->job] = seq;
		h->last = seq;
		h->dirty = true;
	}
	if (seqp != NULL)
		*seqp = seq;
	if (own && store_commit(st, cause) != 0)
		goto fail;
	return 0;
fail:
	if (own)
		store_rollback(st);
	return -1;
}

void
store_event_filter_init(struct store_event_filter *f)
{
	memset(f, 0, sizeof *f);
	f->vc = -1;
	f->job = -1;
	f->kind = -1;
}

/* An event whose strings are its own (for lists read newest first). */
struct owned_event {
	struct store_event	 ev;
	char			*names;		/* job, by and vc names, NUL-separated */
};

static void
event_from_row(sqlite3_stmt *q, struct store_event *ev)
{
	const char *t;
	int k;

	memset(ev, 0, sizeof *ev);
	ev->seq = sqlite3_column_int64(q, 0);
	ev->run = sqlite3_column_int64(q, 1);
	ev->rec.t = sqlite3_column_double(q, 2);
	k = rec_kind_parse((const char *)sqlite3_column_text(q, 3));
	ev->rec.kind = k >= 0 ? (enum rec_kind)k : REC_NKINDS;
	ev->rec.job = sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 4);
	ev->rec.vc = sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 5);
	ev->rec.cell = sqlite3_column_type(q, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 6);
	ev->rec.by = sqlite3_column_type(q, 7) == SQLITE_NULL ? -1 : sqlite3_column_int(q, 7);
	t = (const char *)sqlite3_column_text(q, 8);
	snprintf(ev->rec.detail, sizeof ev->rec.detail, "%s", t != NULL ? t : "");
	ev->job_name = (const char *)sqlite3_column_text(q, 9);
	ev->by_name = (const char *)sqlite3_column_text(q, 10);
	ev->vc_name = (const char *)sqlite3_column_text(q, 11);
	ev->spec = sqlite3_column_int64(q, 12);
}

static void
event_own(struct owned_event *o, const struct store_event *ev)
{
	const char *n[3] = { ev->job_name, ev->by_name, ev->vc_name };
	size_t len[3], total = 0, off = 0;
	int i;

	o->ev = *ev;
	for (i = 0; i < 3; i++)
		total += (len[i] = n[i] != NULL ? strlen(n[i]) + 1 : 0);
	o->names = total > 0 ? xmalloc(total) : NULL;
	for (i = 0; i < 3; i++) {
		const char **dst = i == 0 ? &o->ev.job_name : i == 1 ? &o->ev.by_name :
		    &o->ev.vc_name;

		if (n[i] == NULL) {
			*dst = NULL;
			continue;
		}
		memcpy(o->names + off, n[i], len[i]);
		*dst = o->names + off;
		off += len[i];
	}
}

/* Hand the collected events (newest first) to fn oldest first; free them. */
static int
events_deliver(struct owned_event *v, size_t n, int (*fn)(void *,
    const struct store_event *), void *arg)
{
	size_t i;
	int stop = 0;

	for (i = n; i > 0 && fn != NULL; i--)
		if (stop == 0)
			stop = fn(arg, &v[i - 1].ev);
	for (i = 0; i < n; i++)
		free(v[i].names);
	free(v);
	return stop;
}

static bool
event_matches(const struct store_event_filter *f, const struct store_event *ev)
{
	return (!f->has_since || ev->rec.t >= f->since) &&
	    (f->vc < 0 || ev->rec.vc == f->vc) &&
	    (f->vc_name == NULL || (ev->vc_name != NULL &&
	    strcmp(ev->vc_name, f->vc_name) == 0)) &&
	    (f->kind < 0 || (int)ev->rec.kind == f->kind) && ev->seq > f->after;
}

/* One job's events: down its chain from the newest, by primary key. */
static int
events_of_job(struct store *st, const struct store_event_filter *f,
    int (*fn)(void *, const struct store_event *), void *arg, char **cause)
{
	struct owned_event *v = NULL;
	struct store_event ev;
	size_t n = 0, cap = 0;
	sqlite3_stmt *q;
	int64_t seq;
	int rc;

	if (job_newest(st, f->run, f->job, &seq, cause) != 0)
		return -1;
	while (seq > f->after) {
		if ((q = store_stmt(st, SQ_EVENT_GET, cause)) == NULL)
			goto fail;
		sqlite3_bind_int64(q, 1, seq);
		if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
			sqlite3_reset(q);
			if (rc != SQLITE_DONE) {
				store_fail(st, rc, cause);
				goto fail;
			}
			break;		/* a broken chain: db check reports it */
		}
		event_from_row(q, &ev);
		if (ev.run != f->run || ev.rec.job != f->job) {
			sqlite3_reset(q);
			break;
		}
		seq = sqlite3_column_type(q, 13) == SQLITE_NULL ? 0 :
		    sqlite3_column_int64(q, 13);
		if (seq >= ev.seq)
			seq = 0;	/* links go back only */
		if (event_matches(f, &ev)) {
			XGROW(v, cap, n + 1);
			event_own(&v[n++], &ev);
		}
		sqlite3_reset(q);
		if (f->limit > 0 && (long long)n >= f->limit)
			break;
	}
	return events_deliver(v, n, fn, arg);
fail:
	events_deliver(v, n, NULL, NULL);
	return -1;
}

int
store_event_query(struct store *st, const struct store_event_filter *f,
    int (*fn)(void *, const struct store_event *), void *arg, char **cause)
{
	struct owned_event *v = NULL;
	struct store_event ev;
	size_t n = 0, cap = 0;
	sqlite3_stmt *q;
	int rc, stop = 0;
	bool newest = f->limit > 0;

	if (events_settle(st, cause) != 0)
		return -1;
	if (f->job >= 0 && f->run > 0)
		return events_of_job(st, f, fn, arg, cause);
	q = store_stmt(st, f->run > 0 ? (newest ? SQ_EVENT_RUN_NEWEST : SQ_EVENT_RUN) :
	    (newest ? SQ_EVENT_ALL_NEWEST : SQ_EVENT_ALL), cause);
	if (q == NULL)
		return -1;
	store_bind_int_or_null(q, 1, f->run, f->run <= 0);
	store_bind_double_or_null(q, 2, f->since, !f->has_since);
	store_bind_int_or_null(q, 3, f->vc, f->vc < 0);
	store_bind_text(q, 4, f->kind >= 0 ? rec_kind_name((enum rec_kind)f->kind) : NULL);
	sqlite3_bind_int64(q, 5, f->after);
	if (newest)
		sqlite3_bind_int64(q, 6, f->limit);
	store_bind_text(q, 7, f->vc_name);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		event_from_row(q, &ev);
		if (f->job >= 0 && ev.rec.job != f->job)
			continue;
		if (newest) {
			XGROW(v, cap, n + 1);
			event_own(&v[n++], &ev);
		} else if ((stop = fn(arg, &ev)) != 0)
			break;
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (stop == 0 && rc != SQLITE_DONE) {
		events_deliver(v, n, NULL, NULL);
		return store_fail(st, rc, cause);
	}
	if (newest)
		return events_deliver(v, n, fn, arg);
	return stop;
}

int
store_event_last_seq(struct store *st, int64_t run, int64_t *seq, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	*seq = 0;
	if (events_settle(st, cause) != 0)
		return -1;
	if ((q = store_stmt(st, run > 0 ? SQ_EVENT_LAST_RUN : SQ_EVENT_LAST, cause)) == NULL)
		return -1;
	if (run > 0)
		sqlite3_bind_int64(q, 1, run);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW && sqlite3_column_type(q, 0) != SQLITE_NULL)
		*seq = sqlite3_column_int64(q, 0);
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : store_fail(st, rc, cause);
}

/* ---- the buffers (store-int.h) ---- */

static void
chg_begin(struct store *st, bool changed)
{
	(void)changed;
	store_chg_reset(st);
}

/* the group's changed jobs are one job_changes row, written at its
   commit: a command's are those past the mark */
static void
chg_mark(struct store *st)
{
	st->chg_mark = st->nchg;
}

static void
chg_kept(struct store *st, bool whole)
{
	if (whole)
		store_chg_reset(st);
}

static void
chg_undo(struct store *st, bool whole)
{
	if (whole)
		store_chg_reset(st);
	else
		st->nchg = st->chg_mark;
}

static void
chg_release(struct store *st)
{
	free(st->chg);
	st->chg = NULL;
	st->nchg = st->capchg = 0;
}

/* The transaction's changed jobs: one job_changes row per run at commit. */
static const struct store_buffer chg_buffer = {
	.name = "changes",
	.at = STORE_FLUSH_TXN,
	.flush = store_chg_flush,
	.begin = chg_begin,
	.mark = chg_mark,
	.kept = chg_kept,
	.undo = chg_undo,
	.reset = store_chg_reset,
	.release = chg_release,
};

/* Another connection committed since our last transaction: the cached
   heads may be stale. */
static void
heads_begin(struct store *st, bool changed)
{
	if (changed)
		store_heads_reset(st);
}

static void
heads_kept(struct store *st, bool whole)
{
	int i;

	(void)whole;
	for (i = 0; i < STORE_HEADS_RUNS; i++)
		st->heads[i].dirty = false;
}

/* Only heads the rolled-back writes touched are wrong now: an empty
   transaction (a scheduler pass that decided nothing) must not cost a
   reload of the run's event tail at the next event. */
static void
heads_undo(struct store *st, bool whole)
{
	int i;

	(void)whole;
	for (i = 0; i < STORE_HEADS_RUNS; i++)
		if (st->heads[i].dirty) {
			store_heads_reset(st);
			break;
		}
}

/*
 * The job heads, a cache of the log: checkpointed at every commit, a
 * group's commands' too (a command's events are in the heads once its
 * savepoint is released); forgotten when a rollback touched them, when
 * another connection wrote, and when a group is abandoned (the heads may
 * hold what was not kept).
 */
static const struct store_buffer heads_buffer = {
	.name = "heads",
	.at = STORE_FLUSH_CMD,
	.flush = store_heads_flush,
	.begin = heads_begin,
	.kept = heads_kept,
	.undo = heads_undo,
	.reset = store_heads_reset,
	.release = store_heads_reset,
};

void
store_job_register(struct store *st)
{
	store_buffer_add(st, &heads_buffer);
	store_buffer_add(st, &chg_buffer);
}
