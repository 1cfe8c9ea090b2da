/*
 * store-audit.c — the audit table: every command that changed the store,
 * who ran it, on which run, and its exit status.
 */

#include "store/store-int.h"


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
