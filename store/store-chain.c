/*
 * store-chain.c — the event chains of a run's jobs: events are appended
 * with a link to the same job's previous event (prev), so reading one
 * job's history follows links by primary key instead of needing an index
 * on (run, job), which would make every append an insertion at a random
 * place (the developer guide, src/README.md "The state store", has the
 * numbers). Appending, querying (a run's, a job's, the newest), and the
 * job heads that make the links.
 *
 * A job's newest event (where its history starts) is kept in memory by the
 * writer, for the runs it writes, and checkpointed to the heads table (one
 * row per run: an int64 per job id) every STORE_HEADS_EVERY events; in
 * between, the run's tail after the checkpoint (by the events_run index)
 * says the rest. The memory is dropped when another connection committed
 * in between (PRAGMA data_version), and rebuilt from checkpoint and tail.
 * The heads are a buffer (store-int.h): checkpointed at every commit.
 */
#include "store/store-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

/* Job ids the heads can hold (an array by id); beyond, events get no link. */
#define HEADS_MAX_JOB	(1 << 24)

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
int
store_job_newest(struct store *st, int64_t run, int job, int64_t *seq,
    char **cause)
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

	if (store_job_newest(st, f->run, f->job, &seq, cause) != 0)
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

/* ---- the heads as a buffer (store-int.h) ---- */

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
store_chain_register(struct store *st)
{
	store_buffer_add(st, &heads_buffer);
}
