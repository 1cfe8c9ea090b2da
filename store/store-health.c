/*
 * store-health.c — the health table: the nodes of a run marked bad, and
 * since when (a session's engine gets them back on recovery).
 */

#include "store/store-int.h"


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
