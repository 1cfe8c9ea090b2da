/*
 * store-txn.c — transactions: store_begin / store_commit / store_rollback,
 * and a group of commands in one transaction (store_group_*, store.h
 * invariant 9), each command a savepoint. The buffers that hold writes
 * across a transaction's statements are flushed and reset here.
 */

#include "store/store-int.h"

#include <stdlib.h>

#include "core/xmalloc.h"

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
