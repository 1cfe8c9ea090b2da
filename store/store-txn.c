/*
 * store-txn.c — transactions: store_begin / store_commit / store_rollback,
 * and a group of commands in one transaction (store_group_*, store.h
 * invariant 9), each command a savepoint; and the registry of buffers
 * (store-int.h: struct store_buffer), which it flushes, marks, keeps and
 * undoes at each of those steps without naming them: the files that own
 * the buffers sit above this one, and their calls run one way.
 *
 * A transaction's steps, and the buffers' hooks each runs (in order of
 * registration):
 *   store_begin (plain), store_group_begin: BEGIN IMMEDIATE, begin
 *   store_begin in a group:                 SAVEPOINT, mark
 *   store_commit (plain):      flush (all), COMMIT, kept(whole)
 *   store_commit in a group:   flush (STORE_FLUSH_CMD), RELEASE, kept(part)
 *   store_rollback:            undo(whole), or undo(part) in a group
 *   store_group_commit:        flush (STORE_FLUSH_TXN), COMMIT, kept(whole)
 *   store_group_rollback, a failed group commit: reset
 */

#include "store/store-int.h"

#include <stdlib.h>

#include "core/xmalloc.h"

/* ---- the buffers ---- */

void
store_buffer_add(struct store *st, const struct store_buffer *b)
{
	if (st->nbuf == STORE_BUFFERS)
		fatal("store_buffer_add: more than %d buffers", STORE_BUFFERS);
	st->buf[st->nbuf++] = b;
}

void
store_buffer_release(struct store *st)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->release != NULL)
			st->buf[i]->release(st);
}

/* Flush the buffers whose time is at (cmd: a group's command's commit). */
static int
buffers_flush(struct store *st, bool txn, bool cmd, char **cause)
{
	const struct store_buffer *b;
	int i;

	for (i = 0; i < st->nbuf; i++) {
		b = st->buf[i];
		if (b->flush == NULL ||
		    !(b->at == STORE_FLUSH_TXN ? txn : cmd))
			continue;
		if (b->flush(st, cause) != 0)
			return -1;
	}
	return 0;
}

static void
buffers_begin(struct store *st, bool changed)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->begin != NULL)
			st->buf[i]->begin(st, changed);
}

static void
buffers_mark(struct store *st)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->mark != NULL)
			st->buf[i]->mark(st);
}

static void
buffers_kept(struct store *st, bool whole)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->kept != NULL)
			st->buf[i]->kept(st, whole);
}

static void
buffers_undo(struct store *st, bool whole)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->undo != NULL)
			st->buf[i]->undo(st, whole);
}

static void
buffers_reset(struct store *st)
{
	int i;

	for (i = 0; i < st->nbuf; i++)
		if (st->buf[i]->reset != NULL)
			st->buf[i]->reset(st);
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
	/* Another connection committed since our last transaction: the
	   buffers' caches may be stale. */
	if ((s = store_stmt(st, SQ_DATA_VERSION, cause)) == NULL)
		return -1;
	if ((rc = sqlite3_step(s)) != SQLITE_ROW) {
		sqlite3_reset(s);
		return store_fail(st, rc, cause);
	}
	dv = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	buffers_begin(st, dv != st->data_version);
	st->data_version = dv;
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
		buffers_mark(st);
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

	if (!st->txn)
		fatal("store_commit: no transaction");
	/* in a group, what flushes at the transaction's commit stays
	   pending to the group's (the events: one block for all) */
	if (buffers_flush(st, !st->group, true, cause) != 0)
		return -1;
	if ((s = store_stmt(st, st->group ? SQ_RELEASE : SQ_COMMIT, cause)) == NULL ||
	    store_step_done(st, s, cause) != 0)
		return -1;
	buffers_kept(st, !st->group);
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

	if (!st->txn)
		return;
	st->txn = false;
	buffers_undo(st, !st->group);
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
	buffers_reset(st);
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
	if (buffers_flush(st, true, false, cause) != 0 ||
	    (s = store_stmt(st, SQ_COMMIT, cause)) == NULL ||
	    store_step_done(st, s, cause) != 0) {
		group_abandon(st);
		return -1;
	}
	buffers_kept(st, true);
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
