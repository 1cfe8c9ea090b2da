/*
 * store-run.c — the runs table: a session or a replay on a stored spec,
 * its state, clock, report, the emulator's and the engine's saved state
 * (BLOBs), and the specs a reconfigured run was on before (run_specs).
 */

#include "store/store-int.h"

#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

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
