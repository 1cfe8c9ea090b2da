/*
 * store-job.c — jobs and placements of a run: writing them (one row each,
 * or many through job_rows), reading them back (by id, by name, a run's
 * all, or those changed since a change number), and the change numbers
 * themselves (store.h invariant 7; the changed jobs are a buffer, written
 * at commit). A job's newest event, which a read fills in, comes from the
 * event chains (store-chain.c).
 *
 * A job row holds every field of struct job; its placement, while it holds
 * cells, is a row of its own (placements).
 */
#include "store/store-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/shquote.h"
#include "core/xmalloc.h"
#include "job/model-class.h"

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
	j->uid = sqlite3_column_int(q, 46);
	j->gid = sqlite3_column_int(q, 47);
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
	if (rc == 0 && store_job_newest(st, run, out->job.id, &out->last_seq, cause) != 0) {
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
	int rc, i, id;

	if (name_ref_id(name, &id)) {		/* "%ID" (invariant 8) */
		if ((rc = store_job_get(st, run, id, out, cause)) == STORE_NOTFOUND) {
			free(*cause);
			*cause = xasprintf("no job '%s' in run %lld", name, (long long)run);
		}
		return rc;
	}
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
store_job_ids_named(struct store *st, int64_t run, const char *name, int **ids,
    int *n, char **cause)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if ((q = store_stmt(st, SQ_JOB_IDS_NAMED, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		XGROW(*ids, cap, (size_t)*n + 1);
		(*ids)[(*n)++] = sqlite3_column_int(q, 0);
	}
	sqlite3_reset(q);
	sqlite3_clear_bindings(q);
	if (rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return store_fail(st, rc, cause);
	}
	return 0;
}

int
store_job_last_run(struct store *st, const char *name, int64_t *run, char **cause)
{
	sqlite3_stmt *q;
	int rc, id;

	*run = 0;
	if (name_ref_id(name, &id)) {		/* "%ID": a session's */
		if ((q = store_stmt(st, SQ_JOB_LAST_RUN_ID, cause)) == NULL)
			return -1;
		sqlite3_bind_int(q, 1, id);
	} else {
		if ((q = store_stmt(st, SQ_JOB_LAST_RUN, cause)) == NULL)
			return -1;
		sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
	}
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

void
store_job_register(struct store *st)
{
	store_buffer_add(st, &chg_buffer);
}
