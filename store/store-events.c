/*
 * store-events.c — the event log as packed blocks, and the `events` table
 * every reader queries, which unpacks them.
 *
 * Schema 4 stores a run's events in event_blocks rows: the events one
 * transaction appended to one run (a replay checkpoint's whole journal, a
 * session tick's few), packed (core/pack: versioned, sealed with a CRC).
 * One row per checkpoint instead of one per event is what makes recording
 * a replay cheap: ~60 inserts instead of 250,000 and no index entry per
 * event (src/README.md, "The state store", says why).
 *
 * Writing: store_events_put buffers events in memory (the pending block)
 * and store_events_flush writes it as one row; store_commit flushes (a
 * group's commit, for all its commands: the block is a buffer registered
 * on the connection, store-int.h), and so does every reader of the log,
 * so a writer always reads its own events. Seqs are given out at put
 * time, from the highest seq of the store (read once per transaction:
 * the write lock is held, nobody else can append).
 *
 * Reading: `events` is an eponymous virtual table with the columns of the
 * schema-3 table (seq, run, t, kind, job, vc, cell, by_job, detail, prev),
 * so the SQL of `events`, `history`, `job show`, the heads scan, `db check`
 * and `export` did not change. It uses constraints on run and seq (equal,
 * lower and upper bounds) to pick blocks through event_blocks' keys, and
 * serves ORDER BY seq in either direction. Decoded blocks are kept in a
 * small cache (a job's history walks back a few blocks, db check's link
 * check jumps between neighbours).
 *
 * Invariants:
 *  1. A block holds the events first..seq of one run, all of them, in seq
 *     order (seq = first + index); blocks do not overlap.
 *  2. The pending block is empty outside a write transaction and a group
 *     (store.h invariant 9); in a group it is flushed at the group's
 *     commit and before any read of the log (store_settle, the buffer's
 *     settle hook, which store_stmt runs before a STORE_SQL_LOG
 *     statement). Events are only ever added to the newest block of the
 *     store.
 *  3. A cached decoded block is used only for the bytes it was decoded
 *     from (compared in full): a rolled-back block's seq may be reused.
 */
#include "store/store-int.h"

#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/xmalloc.h"

/* Block encoding version (the first byte). */
#define EVBLOCK_VERSION		1
/* Events in one block at most: a checkpoint's journal is ~4,100. */
#define EVBLOCK_MAX		16384
/* Decoded blocks cached per connection. */
#define EVCACHE_SLOTS		8

/* ---- writing ---- */

static void	evbuf_begin(struct store *, bool);
static void	evbuf_kept(struct store *, bool);
static void	evbuf_undo(struct store *, bool);
static void	evbuf_release(struct store *);

static void
store_events_reset(struct store *st)
{
	strbuf_reset(&st->ev_buf);
	st->ev_n = 0;
	st->ev_run = 0;
	st->ev_first = 0;
	st->ev_next = 0;
	st->ev_mark_len = 0;
	st->ev_mark_n = 0;
	st->ev_mark_next = 0;
	st->ev_kept = false;
}

static void
store_events_mark(struct store *st)
{
	st->ev_mark_len = st->ev_buf.len;
	st->ev_mark_n = st->ev_n;
	st->ev_mark_next = st->ev_next;
	st->ev_kept = false;
}

static void
store_events_undo(struct store *st)
{
	if (st->ev_kept) {
		strbuf_reset(&st->ev_buf);
		strbuf_add(&st->ev_buf, st->ev_keep.buf, st->ev_keep.len);
		st->ev_n = st->ev_keep_n;
		st->ev_run = st->ev_keep_run;
		st->ev_first = st->ev_keep_first;
	} else {
		strbuf_setlen(&st->ev_buf, st->ev_mark_len);
		st->ev_n = st->ev_mark_n;
	}
	if (st->ev_n == 0) {
		strbuf_reset(&st->ev_buf);
		st->ev_run = st->ev_first = 0;
	}
	st->ev_next = st->ev_mark_next;
	st->ev_kept = false;
}

/* Before a read of the log outside a group's command: the group's pending
   events go in first, so the reader sees them (invariant 2). */
static int
store_settle(struct store *st, char **cause)
{
	return st->group && !st->txn && st->ev_n > 0 ?
	    store_events_flush(st, cause) : 0;
}

int
store_events_flush(struct store *st, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	if (st->ev_n == 0)
		return 0;
	/* the earlier commands' events go into this command's savepoint:
	   keep a copy for its rollback (store_events_undo) */
	if (st->group && st->txn && !st->ev_kept && st->ev_mark_n > 0) {
		strbuf_reset(&st->ev_keep);
		strbuf_add(&st->ev_keep, st->ev_buf.buf, st->ev_mark_len);
		st->ev_keep_n = st->ev_mark_n;
		st->ev_keep_run = st->ev_run;
		st->ev_keep_first = st->ev_first;
		st->ev_kept = true;
	}
	st->ev_mark_len = 0;
	st->ev_mark_n = 0;
	pack_seal(&st->ev_buf, 0);
	if ((q = store_stmt(st, SQ_EVBLOCK_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, st->ev_first + st->ev_n - 1);
	sqlite3_bind_int64(q, 2, st->ev_run);
	sqlite3_bind_int64(q, 3, st->ev_first);
	sqlite3_bind_blob64(q, 4, st->ev_buf.buf, st->ev_buf.len, SQLITE_STATIC);
	rc = store_step_done(st, q, cause);
	/* Flushed or failed, the bytes are gone from here: a failure leaves
	   the transaction to be rolled back, which forgets the seqs. */
	strbuf_reset(&st->ev_buf);
	st->ev_n = 0;
	return rc;
}

/* The next free seq: one more than the newest of the store. */
static int
events_next_seq(struct store *st, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	if (st->ev_next > 0)
		return 0;
	if ((q = store_stmt(st, SQ_EVENT_LAST, cause)) == NULL)
		return -1;
	rc = sqlite3_step(q);
	st->ev_next = (rc == SQLITE_ROW ? sqlite3_column_int64(q, 0) : 0) + 1;
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		st->ev_next = 0;
		return store_fail(st, rc, cause);
	}
	return 0;
}

int
store_events_put(struct store *st, int64_t seq, int64_t run,
    const struct store_evrow *e, int64_t *seqp, char **cause)
{
	if (events_next_seq(st, cause) != 0)
		return -1;
	if (seq <= 0)
		seq = st->ev_next;
	else if (seq < st->ev_next) {
		*cause = xasprintf("event %lld: the store already has events up to "
		    "%lld", (long long)seq, (long long)st->ev_next - 1);
		return STORE_INVALID;
	}
	/* A block is one run's consecutive seqs: start another one when
	   this event does not continue the pending block. */
	if (st->ev_n > 0 && (run != st->ev_run ||
	    seq != st->ev_first + st->ev_n || st->ev_n >= EVBLOCK_MAX) &&
	    store_events_flush(st, cause) != 0)
		return -1;
	if (st->ev_n == 0) {
		pack_u8(&st->ev_buf, EVBLOCK_VERSION);
		st->ev_run = run;
		st->ev_first = seq;
	}
	pack_f64(&st->ev_buf, e->t);
	pack_u8(&st->ev_buf, (unsigned)e->kind_len);
	strbuf_add(&st->ev_buf, e->kind, e->kind_len);
	pack_i32(&st->ev_buf, e->job);
	pack_i32(&st->ev_buf, e->vc);
	pack_i32(&st->ev_buf, e->cell);
	pack_i32(&st->ev_buf, e->by);
	pack_i64(&st->ev_buf, e->prev);
	pack_u32(&st->ev_buf, (uint32_t)e->detail_len);
	strbuf_add(&st->ev_buf, e->detail, e->detail_len);
	st->ev_n++;
	st->ev_next = seq + 1;
	if (seqp != NULL)
		*seqp = seq;
	return 0;
}

/* ---- decoding ---- */

/* n bytes in place (the cursor's buffer), or NULL with the cursor failed. */
static const char *
unpack_span(struct unpack *u, size_t n)
{
	const char *p;

	if (u->failed)
		return NULL;
	if (unpack_left(u) < n) {
		unpack_fail(u, "truncated: %zu bytes left, %zu needed",
		    unpack_left(u), n);
		return NULL;
	}
	p = (const char *)u->p + u->off;
	u->off += n;
	return p;
}

struct evrow {
	double		 t;
	int32_t		 job, vc, cell, by;
	int64_t		 prev;
	uint32_t	 koff, klen, doff, dlen;	/* into the raw bytes */
};

struct evblk {
	int64_t		 seq, first, run;
	int		 n;
	unsigned char	*raw;
	size_t		 len;
	struct evrow	*rows;
	int		 refs;
};

static void
evblk_unref(struct evblk *b)
{
	if (b == NULL || --b->refs > 0)
		return;
	free(b->raw);
	free(b->rows);
	free(b);
}

int
store_evblock_decode(const void *data, size_t len, int64_t first, int64_t last,
    int (*fn)(void *arg, int64_t seq, const struct store_evrow *e), void *arg,
    char **cause)
{
	struct unpack u;
	struct store_evrow e;
	int64_t seq;
	unsigned v = 0;
	int rc;

	unpack_init(&u, data, len);
	if (unpack_unseal(&u) != 0 || (v = unpack_u8(&u)) != EVBLOCK_VERSION) {
		if (!u.failed)
			unpack_fail(&u, "version %u, this cellar reads %d", v,
			    EVBLOCK_VERSION);
		goto bad;
	}
	for (seq = first; seq <= last; seq++) {
		e.t = unpack_f64(&u);
		e.kind_len = unpack_u8(&u);
		e.kind = unpack_span(&u, e.kind_len);
		e.job = unpack_i32(&u);
		e.vc = unpack_i32(&u);
		e.cell = unpack_i32(&u);
		e.by = unpack_i32(&u);
		e.prev = unpack_i64(&u);
		e.detail_len = unpack_u32(&u);
		e.detail = unpack_span(&u, e.detail_len);
		if (u.failed)
			goto bad;
		if (fn != NULL && (rc = fn(arg, seq, &e)) != 0)
			return rc;
	}
	if (!u.failed && unpack_left(&u) != 0)
		unpack_fail(&u, "%zu bytes left over", unpack_left(&u));
	if (!u.failed)
		return 0;
bad:
	*cause = xasprintf("events %lld-%lld are malformed: %s", (long long)first,
	    (long long)last, u.why);
	return -1;
}

struct evblk_fill {
	struct evblk	*b;
	int		 i;
};

static int
evblk_row(void *arg, int64_t seq, const struct store_evrow *e)
{
	struct evblk_fill *f = arg;
	struct evrow *r = &f->b->rows[f->i++];

	(void)seq;
	r->t = e->t;
	r->job = e->job;
	r->vc = e->vc;
	r->cell = e->cell;
	r->by = e->by;
	r->prev = e->prev;
	r->koff = (uint32_t)((const unsigned char *)e->kind - f->b->raw);
	r->klen = (uint32_t)e->kind_len;
	r->doff = (uint32_t)((const unsigned char *)e->detail - f->b->raw);
	r->dlen = (uint32_t)e->detail_len;
	return 0;
}

/* ---- the `events` virtual table ---- */

enum { EC_SEQ, EC_RUN, EC_T, EC_KIND, EC_JOB, EC_VC, EC_CELL, EC_BY, EC_DETAIL,
	EC_PREV };

/* idxNum bits: which bounds xFilter gets (in this order), and the order. */
#define EV_RUN		0x1
#define EV_LO		0x2
#define EV_HI		0x4
#define EV_DESC		0x8

/* The block scans, by EV_RUN | EV_DESC >> 2 (constant SQL, values bound). */
static const char *const ev_scan_sql[4] = {
	"SELECT seq, run, first, data FROM event_blocks WHERE seq >= ?2 ORDER BY seq",
	"SELECT seq, run, first, data FROM event_blocks WHERE run = ?1 AND seq >= ?2 "
	"ORDER BY seq",
	"SELECT seq, run, first, data FROM event_blocks WHERE seq >= ?2 "
	"ORDER BY seq DESC",
	"SELECT seq, run, first, data FROM event_blocks WHERE run = ?1 AND seq >= ?2 "
	"ORDER BY seq DESC",
};
#define EV_POOL		4	/* idle prepared scans kept per kind */

struct ev_vtab {
	sqlite3_vtab	 base;
	sqlite3		*db;
	struct evblk	*cache[EVCACHE_SLOTS];
	uint64_t	 used[EVCACHE_SLOTS];
	uint64_t	 clock;
	sqlite3_stmt	*pool[4][EV_POOL];
};

struct ev_cursor {
	sqlite3_vtab_cursor	 base;
	sqlite3_stmt		*scan;
	int			 kind;		/* index into ev_scan_sql */
	bool			 desc;
	int64_t			 lo, hi;
	struct evblk		*b;
	int			 i;		/* row of b */
	bool			 eof;
};

static int
ev_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct ev_vtab *v;
	int rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(seq INTEGER, run INTEGER, "
	    "t REAL, kind TEXT, job INTEGER, vc INTEGER, cell INTEGER, "
	    "by_job INTEGER, detail TEXT, prev INTEGER)");
	if (rc != SQLITE_OK)
		return rc;
	v = xcalloc(1, sizeof *v);
	v->db = db;
	*out = &v->base;
	return SQLITE_OK;
}

static int
ev_disconnect(sqlite3_vtab *vt)
{
	struct ev_vtab *v = (struct ev_vtab *)vt;
	int i, k;

	for (i = 0; i < EVCACHE_SLOTS; i++)
		evblk_unref(v->cache[i]);
	for (k = 0; k < 4; k++)
		for (i = 0; i < EV_POOL; i++)
			sqlite3_finalize(v->pool[k][i]);
	free(v);
	return SQLITE_OK;
}

static int
ev_best_index(sqlite3_vtab *vt, sqlite3_index_info *ix)
{
	int i, run = -1, lo = -1, hi = -1, n = 0, flags = 0;
	double cost = 1e7;

	(void)vt;
	for (i = 0; i < ix->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &ix->aConstraint[i];

		if (!c->usable)
			continue;
		if (c->iColumn == EC_RUN && c->op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    run < 0)
			run = i;
		else if ((c->iColumn == EC_SEQ || c->iColumn == -1) &&
		    c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			lo = hi = i;
		} else if ((c->iColumn == EC_SEQ || c->iColumn == -1) &&
		    (c->op == SQLITE_INDEX_CONSTRAINT_GT ||
		    c->op == SQLITE_INDEX_CONSTRAINT_GE) && lo < 0)
			lo = i;
		else if ((c->iColumn == EC_SEQ || c->iColumn == -1) &&
		    (c->op == SQLITE_INDEX_CONSTRAINT_LT ||
		    c->op == SQLITE_INDEX_CONSTRAINT_LE) && hi < 0)
			hi = i;
	}
	/* The bounds narrow the blocks read; SQLite still checks each row
	   (omit stays 0), so a bound only has to be on the safe side. */
	if (run >= 0) {
		ix->aConstraintUsage[run].argvIndex = ++n;
		flags |= EV_RUN;
		cost /= 100;
	}
	if (lo >= 0) {
		ix->aConstraintUsage[lo].argvIndex = ++n;
		flags |= EV_LO;
		cost /= 10;
	}
	if (hi >= 0 && hi != lo) {
		ix->aConstraintUsage[hi].argvIndex = ++n;
		flags |= EV_HI;
		cost /= 10;
	} else if (hi >= 0) {
		flags |= EV_HI;		/* seq = ?: the same value, both ends */
		cost = 10;
		ix->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
	}
	if (ix->nOrderBy == 1 && (ix->aOrderBy[0].iColumn == EC_SEQ ||
	    ix->aOrderBy[0].iColumn == -1)) {
		ix->orderByConsumed = 1;
		if (ix->aOrderBy[0].desc)
			flags |= EV_DESC;
	}
	ix->idxNum = flags;
	ix->estimatedCost = cost;
	ix->estimatedRows = (sqlite3_int64)(cost < 10 ? 1 : cost);
	return SQLITE_OK;
}

static int
ev_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct ev_cursor *c = xcalloc(1, sizeof *c);

	(void)vt;
	c->eof = true;
	*out = &c->base;
	return SQLITE_OK;
}

/* Give the cursor's scan back to the pool (or finalize it). */
static void
ev_scan_done(struct ev_vtab *v, struct ev_cursor *c)
{
	int i;

	if (c->scan == NULL)
		return;
	sqlite3_reset(c->scan);
	sqlite3_clear_bindings(c->scan);
	for (i = 0; i < EV_POOL; i++)
		if (v->pool[c->kind][i] == NULL) {
			v->pool[c->kind][i] = c->scan;
			c->scan = NULL;
			return;
		}
	sqlite3_finalize(c->scan);
	c->scan = NULL;
}

static int
ev_close(sqlite3_vtab_cursor *cur)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	ev_scan_done((struct ev_vtab *)cur->pVtab, c);
	evblk_unref(c->b);
	free(c);
	return SQLITE_OK;
}

/* The decoded block for the scan's current row, from the cache if there. */
static int
ev_load(struct ev_vtab *v, struct ev_cursor *c)
{
	sqlite3_stmt *q = c->scan;
	const void *data = sqlite3_column_blob(q, 3);
	size_t len = (size_t)sqlite3_column_bytes(q, 3);
	int64_t seq = sqlite3_column_int64(q, 0), first = sqlite3_column_int64(q, 2);
	struct evblk_fill f;
	struct evblk *b;
	char *cause = NULL;
	int i, slot = 0;

	evblk_unref(c->b);
	c->b = NULL;
	for (i = 0; i < EVCACHE_SLOTS; i++) {
		b = v->cache[i];
		if (b != NULL && b->seq == seq && b->first == first && b->len == len &&
		    (len == 0 || memcmp(b->raw, data, len) == 0)) {
			v->used[i] = ++v->clock;
			b->refs++;
			c->b = b;
			return SQLITE_OK;
		}
		if (v->cache[slot] != NULL && (b == NULL || v->used[i] < v->used[slot]))
			slot = i;
	}
	if (first > seq || seq - first >= EVBLOCK_MAX) {
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = sqlite3_mprintf("events %lld-%lld: not a block",
		    (long long)first, (long long)seq);
		return SQLITE_CORRUPT;
	}
	b = xcalloc(1, sizeof *b);
	b->seq = seq;
	b->first = first;
	b->run = sqlite3_column_int64(q, 1);
	b->n = (int)(seq - first + 1);
	b->len = len;
	b->raw = xmalloc(len + 1);
	if (len > 0)	/* an empty blob reads as NULL (a damaged store) */
		memcpy(b->raw, data, len);
	b->rows = xcalloc((size_t)b->n, sizeof *b->rows);
	b->refs = 1;
	f.b = b;
	f.i = 0;
	if (store_evblock_decode(b->raw, len, first, seq, evblk_row, &f, &cause) != 0) {
		evblk_unref(b);
		sqlite3_free(v->base.zErrMsg);
		v->base.zErrMsg = sqlite3_mprintf("%s", cause);
		free(cause);
		return SQLITE_CORRUPT;
	}
	evblk_unref(v->cache[slot]);
	v->cache[slot] = b;
	v->used[slot] = ++v->clock;
	b->refs++;
	c->b = b;
	return SQLITE_OK;
}

/* Step to the next row within [lo, hi], across blocks. */
static int
ev_advance(struct ev_cursor *c, bool first_row)
{
	struct ev_vtab *v = (struct ev_vtab *)c->base.pVtab;
	int64_t seq;
	int rc;

	for (;;) {
		if (c->b != NULL && !first_row) {
			c->i += c->desc ? -1 : 1;
			if (c->i >= 0 && c->i < c->b->n) {
				seq = c->b->first + c->i;
				if (seq >= c->lo && seq <= c->hi)
					return SQLITE_OK;
				if (c->desc ? seq < c->lo : seq > c->hi)
					break;
				continue;
			}
		}
		first_row = false;
		if ((rc = sqlite3_step(c->scan)) != SQLITE_ROW) {
			if (rc != SQLITE_DONE)
				return rc;
			break;
		}
		/* Ascending, a block that starts past hi ends the scan. */
		if (!c->desc && sqlite3_column_int64(c->scan, 2) > c->hi)
			break;
		if (c->desc && sqlite3_column_int64(c->scan, 2) > c->hi) {
			evblk_unref(c->b);
			c->b = NULL;
			first_row = true;
			continue;
		}
		if ((rc = ev_load(v, c)) != SQLITE_OK)
			return rc;
		c->i = c->desc ? c->b->n : -1;
	}
	c->eof = true;
	return SQLITE_OK;
}

static int
ev_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	struct ev_vtab *v = (struct ev_vtab *)cur->pVtab;
	int64_t run = 0;
	int a = 0, i, rc;

	(void)idxstr;
	(void)argc;
	ev_scan_done(v, c);
	evblk_unref(c->b);
	c->b = NULL;
	c->eof = false;
	c->lo = INT64_MIN;
	c->hi = INT64_MAX;
	c->desc = (idx & EV_DESC) != 0;
	/* A NULL or non-integer bound matches nothing (seq is an integer);
	   a real bound is rounded the safe way. */
	if (idx & EV_RUN) {
		if (sqlite3_value_type(argv[a]) == SQLITE_NULL) {
			c->eof = true;
			return SQLITE_OK;
		}
		run = sqlite3_value_int64(argv[a++]);
	}
	if (idx & EV_LO) {
		if (sqlite3_value_type(argv[a]) == SQLITE_NULL) {
			c->eof = true;
			return SQLITE_OK;
		}
		c->lo = sqlite3_value_type(argv[a]) == SQLITE_INTEGER ?
		    sqlite3_value_int64(argv[a]) :
		    (int64_t)sqlite3_value_double(argv[a]) - 1;
		if (!(idx & EV_HI) || a + 1 < argc)
			a++;
	}
	if (idx & EV_HI) {
		if (sqlite3_value_type(argv[a]) == SQLITE_NULL) {
			c->eof = true;
			return SQLITE_OK;
		}
		c->hi = sqlite3_value_type(argv[a]) == SQLITE_INTEGER ?
		    sqlite3_value_int64(argv[a]) :
		    (int64_t)sqlite3_value_double(argv[a]) + 1;
	}
	c->kind = ((idx & EV_RUN) ? 1 : 0) | ((idx & EV_DESC) ? 2 : 0);
	for (i = 0; i < EV_POOL && c->scan == NULL; i++)
		if (v->pool[c->kind][i] != NULL) {
			c->scan = v->pool[c->kind][i];
			v->pool[c->kind][i] = NULL;
		}
	if (c->scan == NULL && (rc = sqlite3_prepare_v3(v->db, ev_scan_sql[c->kind],
	    -1, SQLITE_PREPARE_PERSISTENT, &c->scan, NULL)) != SQLITE_OK)
		return rc;
	if (idx & EV_RUN)
		sqlite3_bind_int64(c->scan, 1, run);
	sqlite3_bind_int64(c->scan, 2, c->lo);
	return ev_advance(c, true);
}

static int
ev_next(sqlite3_vtab_cursor *cur)
{
	return ev_advance((struct ev_cursor *)cur, false);
}

static int
ev_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct ev_cursor *)cur)->eof;
}

static void
result_int_or_null(sqlite3_context *ctx, int64_t v, bool null)
{
	if (null)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_int64(ctx, v);
}

static int
ev_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;
	const struct evrow *r = &c->b->rows[c->i];

	switch (col) {
	case EC_SEQ:
		sqlite3_result_int64(ctx, c->b->first + c->i);
		break;
	case EC_RUN:
		sqlite3_result_int64(ctx, c->b->run);
		break;
	case EC_T:
		sqlite3_result_double(ctx, r->t);
		break;
	case EC_KIND:
		sqlite3_result_text(ctx, (const char *)c->b->raw + r->koff,
		    (int)r->klen, SQLITE_TRANSIENT);
		break;
	case EC_JOB:
		result_int_or_null(ctx, r->job, r->job < 0);
		break;
	case EC_VC:
		result_int_or_null(ctx, r->vc, r->vc < 0);
		break;
	case EC_CELL:
		result_int_or_null(ctx, r->cell, r->cell < 0);
		break;
	case EC_BY:
		result_int_or_null(ctx, r->by, r->by < 0);
		break;
	case EC_DETAIL:
		sqlite3_result_text(ctx, (const char *)c->b->raw + r->doff,
		    (int)r->dlen, SQLITE_TRANSIENT);
		break;
	case EC_PREV:
		result_int_or_null(ctx, r->prev, r->prev <= 0);
		break;
	}
	return SQLITE_OK;
}

static int
ev_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	struct ev_cursor *c = (struct ev_cursor *)cur;

	*rowid = c->b->first + c->i;
	return SQLITE_OK;
}

static const sqlite3_module ev_module = {
	.iVersion = 1,
	.xCreate = NULL,		/* eponymous only: no CREATE VIRTUAL TABLE */
	.xConnect = ev_connect,
	.xBestIndex = ev_best_index,
	.xDisconnect = ev_disconnect,
	.xDestroy = ev_disconnect,
	.xOpen = ev_open,
	.xClose = ev_close,
	.xFilter = ev_filter,
	.xNext = ev_next,
	.xEof = ev_eof,
	.xColumn = ev_column,
	.xRowid = ev_rowid,
};

/*
 * The pending block as a buffer (store-int.h): flushed at the commit of a
 * whole transaction (in a group, one block for all its commands) and
 * before a read of the log; a group's command marks where its events
 * start, and its rollback undoes to the mark.
 */
static const struct store_buffer evbuf = {
	.name = "events",
	.at = STORE_FLUSH_TXN,
	.flush = store_events_flush,
	.settle = store_settle,
	.begin = evbuf_begin,
	.mark = store_events_mark,
	.kept = evbuf_kept,
	.undo = evbuf_undo,
	.reset = store_events_reset,
	.release = evbuf_release,
};

static void
evbuf_begin(struct store *st, bool changed)
{
	(void)changed;
	store_events_reset(st);
}

static void
evbuf_kept(struct store *st, bool whole)
{
	if (whole)
		store_events_reset(st);
	else
		st->ev_kept = false;
}

static void
evbuf_undo(struct store *st, bool whole)
{
	if (whole)
		store_events_reset(st);
	else
		store_events_undo(st);
}

static void
evbuf_release(struct store *st)
{
	strbuf_release(&st->ev_buf);
	strbuf_release(&st->ev_keep);
}

int
store_events_register(struct store *st, char **cause)
{
	int rc = sqlite3_create_module(st->db, "events", &ev_module, NULL);

	if (rc != SQLITE_OK)
		return store_fail(st, rc, cause);
	strbuf_init(&st->ev_buf);
	strbuf_init(&st->ev_keep);
	store_buffer_add(st, &evbuf);
	return 0;
}

/* ---- 3 -> 4 ---- */

int
store_migrate_3_4_fn(struct store *st, char **cause)
{
	struct store_evrow e;
	sqlite3_stmt *q;
	int rc;

	/* The schema-3 rows in seq order, into blocks (a new block wherever
	   the run changes or the seqs have a gap). */
	rc = sqlite3_prepare_v2(st->db, "SELECT seq, run, t, kind, job, vc, cell, "
	    "by_job, detail, prev FROM main.events ORDER BY seq", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, rc, cause);
	store_events_reset(st);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		e.t = sqlite3_column_double(q, 2);
		e.kind = (const char *)sqlite3_column_text(q, 3);
		e.kind_len = e.kind != NULL ? strlen(e.kind) : 0;
		if (e.kind_len > 255)
			e.kind_len = 255;
		e.job = sqlite3_column_type(q, 4) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(q, 4);
		e.vc = sqlite3_column_type(q, 5) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(q, 5);
		e.cell = sqlite3_column_type(q, 6) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(q, 6);
		e.by = sqlite3_column_type(q, 7) == SQLITE_NULL ? -1 :
		    sqlite3_column_int(q, 7);
		e.detail = (const char *)sqlite3_column_text(q, 8);
		e.detail_len = (size_t)sqlite3_column_bytes(q, 8);
		e.prev = sqlite3_column_type(q, 9) == SQLITE_NULL ? 0 :
		    sqlite3_column_int64(q, 9);
		if (store_events_put(st, sqlite3_column_int64(q, 0),
		    sqlite3_column_int64(q, 1), &e, NULL, cause) != 0) {
			sqlite3_finalize(q);
			store_events_reset(st);
			return -1;
		}
	}
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		store_events_reset(st);
		return store_fail(st, rc, cause);
	}
	rc = store_events_flush(st, cause);
	store_events_reset(st);
	if (rc != 0)
		return -1;
	return store_exec(st, "DROP TABLE main.events", cause);
}
