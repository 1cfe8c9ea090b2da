/*
 * store-audit.c — the audit table: every command that changed the store
 * and every request a server refused, who sent it, on which run, its exit
 * status and, for a failure or a refusal, why.
 */

#include "store/store-int.h"

#include <string.h>

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
	struct store_audit a;

	memset(&a, 0, sizeof a);
	a.user = user;
	a.run = run;
	a.cmdline = cmdline;
	a.status = status;
	a.count = 1;
	return store_audit_add(st, &a, NULL, cause);
}

int
store_audit_add(struct store *st, const struct store_audit *a, int64_t *id,
    char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_AUDIT_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_double(q, 1, a->at > 0 ? a->at : store_wall_now());
	sqlite3_bind_text(q, 2, a->user != NULL ? a->user : store_user(), -1,
	    SQLITE_STATIC);
	store_bind_int_or_null(q, 3, a->run, a->run <= 0);
	sqlite3_bind_text(q, 4, a->cmdline, -1, SQLITE_STATIC);
	sqlite3_bind_int(q, 5, a->status);
	if (a->reason != NULL)
		sqlite3_bind_text(q, 6, a->reason, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 6);
	sqlite3_bind_int(q, 7, a->refused);
	sqlite3_bind_int64(q, 8, a->count > 0 ? a->count : 1);
	if (store_step_done(st, q, cause) != 0)
		return -1;
	if (id != NULL)
		*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int
store_audit_set_count(struct store *st, int64_t id, long long count, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_AUDIT_COUNT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int64(q, 2, count);
	return store_step_done(st, q, cause);
}

/* Every row of q's result to fn (its columns as SQ_AUDIT_LIST's). */
static int
audit_rows(struct store *st, sqlite3_stmt *q,
    int (*fn)(void *, const struct store_audit *), void *arg, char **cause)
{
	struct store_audit a;
	int rc, stop = 0;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		a.id = sqlite3_column_int64(q, 0);
		a.at = sqlite3_column_double(q, 1);
		a.user = (const char *)sqlite3_column_text(q, 2);
		a.run = sqlite3_column_int64(q, 3);
		a.cmdline = (const char *)sqlite3_column_text(q, 4);
		a.status = sqlite3_column_int(q, 5);
		a.reason = (const char *)sqlite3_column_text(q, 6);
		a.refused = sqlite3_column_int(q, 7) != 0;
		a.count = sqlite3_column_int64(q, 8);
		if ((stop = fn(arg, &a)) != 0)
			break;
	}
	if (store_done(st, q, stop != 0 ? SQLITE_DONE : rc, cause) != 0)
		return -1;
	return stop;
}

int
store_audit_list(struct store *st, int (*fn)(void *, const struct store_audit *),
    void *arg, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_AUDIT_LIST, cause)) == NULL)
		return -1;
	return audit_rows(st, q, fn, arg, cause);
}

void
store_audit_filter_init(struct store_audit_filter *f)
{
	memset(f, 0, sizeof *f);
}

int
store_audit_query(struct store *st, const struct store_audit_filter *f,
    int (*fn)(void *, const struct store_audit *), void *arg, char **cause)
{
	sqlite3_stmt *q;

	if ((q = store_stmt(st, SQ_AUDIT_QUERY, cause)) == NULL)
		return -1;
	if (f->user != NULL)
		sqlite3_bind_text(q, 1, f->user, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(q, 1);
	sqlite3_bind_double(q, 2, f->since);
	sqlite3_bind_int(q, 3, f->refused);
	sqlite3_bind_int64(q, 4, f->limit > 0 ? f->limit : -1);
	return audit_rows(st, q, fn, arg, cause);
}
