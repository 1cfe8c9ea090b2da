/*
 * store-check.c — `db check` and `db vacuum`: SQLite's own checks, then the
 * domain invariants that no constraint in the schema can say (store.h,
 * store_check), each problem as one line for people.
 */
#include "store/store-int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

/* No leaf held by two jobs of one run: (run, leaf, job), sorted. */
struct leaf_use {
	int64_t	 run;
	int	 leaf;
	int	 job;
};

struct check {
	struct store	*st;
	void		(*fn)(void *, const char *);
	void		*arg;
	int		 n;
	int		 shown;
	int		 rule_shown;	/* of the current check (query) */
	struct leaf_use	*leaves;
	size_t		 nleaves, cap;
	int64_t		 last_block;	/* the previous event block's seq */
	int		 bad_blocks;
};

#define CHECK_MAX_SHOWN	200	/* problems listed one by one, then a count */
#define CHECK_MAX_RULE	50	/* of one check: one broken rule does not
				   hide the others */

static void
problem(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
problem(struct check *c, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	c->n++;
	if (c->shown >= CHECK_MAX_SHOWN || c->rule_shown >= CHECK_MAX_RULE)
		return;
	c->shown++;
	c->rule_shown++;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	c->fn(c->arg, sb.buf);
	strbuf_release(&sb);
}

/*
 * Run a constant query; for each row call row(c, stmt). SQLite errors go to
 * *cause (the store cannot be read: exit 4).
 */
static int
check_query(struct check *c, const char *sql, void (*row)(struct check *,
    sqlite3_stmt *), char **cause)
{
	sqlite3_stmt *q;
	int rc;

	if ((rc = sqlite3_prepare_v2(c->st->db, sql, -1, &q, NULL)) != SQLITE_OK)
		return store_fail(c->st, rc, cause);
	c->rule_shown = 0;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		row(c, q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		return store_fail(c->st, rc, cause);
	return 0;
}

static const char *
text(sqlite3_stmt *q, int col)
{
	const unsigned char *t = sqlite3_column_text(q, col);

	return t != NULL ? (const char *)t : "NULL";
}

static void
row_integrity(struct check *c, sqlite3_stmt *q)
{
	if (strcmp(text(q, 0), "ok") != 0)
		problem(c, "integrity: %s", text(q, 0));
}

static void
row_fk(struct check *c, sqlite3_stmt *q)
{
	problem(c, "foreign key: row %lld of table '%s' refers to a missing row "
	    "of '%s'", (long long)sqlite3_column_int64(q, 1), text(q, 0), text(q, 2));
}

static void
row_dup_name(struct check *c, sqlite3_stmt *q)
{
	problem(c, "run %lld: job name '%s' is used by %lld jobs%s",
	    (long long)sqlite3_column_int64(q, 0), text(q, 1),
	    (long long)sqlite3_column_int64(q, 2),
	    sqlite3_column_int(q, 3) ? "" : " that have not ended");
}

/* store.h invariant 8: a replay's jobs and only they are traced */
static void
row_traced(struct check *c, sqlite3_stmt *q)
{
	problem(c, "run %lld: job '%s' is %s, but its run is a %s",
	    (long long)sqlite3_column_int64(q, 0), text(q, 1),
	    sqlite3_column_int(q, 2) ? "marked a replay's (traced)" :
	    "not marked a replay's (traced)", text(q, 3));
}

static void
row_pl_state(struct check *c, sqlite3_stmt *q)
{
	problem(c, "run %lld: job '%s' (%s) has a placement but holds no cells",
	    (long long)sqlite3_column_int64(q, 0), text(q, 1), text(q, 2));
}

static void
row_no_pl(struct check *c, sqlite3_stmt *q)
{
	problem(c, "run %lld: job '%s' is %s but has no placement",
	    (long long)sqlite3_column_int64(q, 0), text(q, 1), text(q, 2));
}

static void
row_orphan_event(struct check *c, sqlite3_stmt *q)
{
	problem(c, "run %lld: event %lld (%s) is about job %lld, which the run "
	    "does not have", (long long)sqlite3_column_int64(q, 1),
	    (long long)sqlite3_column_int64(q, 0), text(q, 2),
	    (long long)sqlite3_column_int64(q, 3));
}

/*
 * A prev link: to an earlier event of the same job in the same run; in a
 * replay, whose virtual clock never goes back, not to a later time either
 * (two writers on one run, issue 23 F4: the second's history of a job
 * continues the first's, from the start again).
 */
static void
row_link(struct check *c, sqlite3_stmt *q)
{
	if (sqlite3_column_int(q, 3))
		problem(c, "run %lld: event %lld links to event %lld, which is not "
		    "an earlier event of the same job",
		    (long long)sqlite3_column_int64(q, 1),
		    (long long)sqlite3_column_int64(q, 0),
		    (long long)sqlite3_column_int64(q, 2));
	else if (sqlite3_column_int(q, 4))
		problem(c, "run %lld: job %lld has overlapping histories (event "
		    "%lld at t=%.3f follows event %lld at t=%.3f)",
		    (long long)sqlite3_column_int64(q, 1),
		    (long long)sqlite3_column_int64(q, 5),
		    (long long)sqlite3_column_int64(q, 0), sqlite3_column_double(q, 6),
		    (long long)sqlite3_column_int64(q, 2), sqlite3_column_double(q, 7));
}

static void
row_shared_link(struct check *c, sqlite3_stmt *q)
{
	problem(c, "event %lld is the previous event of %lld events (the history "
	    "forks)", (long long)sqlite3_column_int64(q, 0),
	    (long long)sqlite3_column_int64(q, 1));
}

/* One history per job: one first event, and in a replay one submit (two
   writers on one run, issue 23 F4, submit each job twice; a session's
   history is the live loop's to define) */
static void
row_firsts(struct check *c, sqlite3_stmt *q)
{
	if (sqlite3_column_int64(q, 3) != 1)
		problem(c, "run %lld: the history of job '%s' has %lld first events",
		    (long long)sqlite3_column_int64(q, 0), text(q, 2),
		    (long long)sqlite3_column_int64(q, 3));
	if (sqlite3_column_int64(q, 4) > 1)
		problem(c, "run %lld: job '%s' has %lld submit events",
		    (long long)sqlite3_column_int64(q, 0), text(q, 2),
		    (long long)sqlite3_column_int64(q, 4));
}

/*
 * The heads checkpoint of every run: each job's newest event up to `upto`
 * is what seqs says, and seqs names nothing else.
 */
static void
row_heads(struct check *c, sqlite3_stmt *q)
{
	int64_t run = sqlite3_column_int64(q, 0), upto = sqlite3_column_int64(q, 1);
	const unsigned char *b = sqlite3_column_blob(q, 2);
	size_t nb = (size_t)sqlite3_column_bytes(q, 2), n = nb / 8, k;
	sqlite3_stmt *e;
	bool *seen;
	uint64_t u;
	int x;

	if (nb % 8 != 0) {
		problem(c, "run %lld: its job heads are malformed", (long long)run);
		return;
	}
	seen = xcalloc(n + 1, sizeof *seen);
	if (sqlite3_prepare_v2(c->st->db, "SELECT job, max(seq) FROM events "
	    "WHERE run = ?1 AND seq <= ?2 AND job IS NOT NULL GROUP BY job", -1, &e,
	    NULL) != SQLITE_OK) {
		free(seen);
		return;
	}
	sqlite3_bind_int64(e, 1, run);
	sqlite3_bind_int64(e, 2, upto);
	while (sqlite3_step(e) == SQLITE_ROW) {
		int64_t job = sqlite3_column_int64(e, 0), mx = sqlite3_column_int64(e, 1);

		for (u = 0, x = 7; job >= 0 && (size_t)job < n && x >= 0; x--)
			u = u << 8 | b[8 * (size_t)job + (size_t)x];
		if (job >= 0 && (size_t)job < n)
			seen[job] = true;
		if (job < 0 || (size_t)job >= n || (int64_t)u != mx)
			problem(c, "run %lld: job %lld's newest event up to %lld is %lld, "
			    "its head says %lld", (long long)run, (long long)job,
			    (long long)upto, (long long)mx, (long long)u);
	}
	sqlite3_finalize(e);
	for (k = 0; k < n; k++) {
		for (u = 0, x = 7; x >= 0; x--)
			u = u << 8 | b[8 * k + (size_t)x];
		if (u != 0 && !seen[k])
			problem(c, "run %lld: job %zu's head is event %lld, which is not "
			    "one of its events", (long long)run, k, (long long)u);
	}
	free(seen);
}

/*
 * An event block: its range follows the one before, and it decodes (the
 * right number of events, its checksum); the event checks below read
 * through the blocks, so they run only when every block is sound.
 */
static void
row_block(struct check *c, sqlite3_stmt *q)
{
	int64_t seq = sqlite3_column_int64(q, 0), first = sqlite3_column_int64(q, 2);
	char *why = NULL;

	if (first > seq || first <= c->last_block) {
		problem(c, "run %lld: event block %lld-%lld overlaps the one before "
		    "or is reversed", (long long)sqlite3_column_int64(q, 1),
		    (long long)first, (long long)seq);
		c->bad_blocks++;
	} else if (store_evblock_decode(sqlite3_column_blob(q, 3),
	    (size_t)sqlite3_column_bytes(q, 3), first, seq, NULL, NULL, &why) != 0) {
		problem(c, "run %lld: %s", (long long)sqlite3_column_int64(q, 1), why);
		c->bad_blocks++;
	}
	free(why);
	c->last_block = seq;
}

static int
leaf_cmp(const void *a, const void *b)
{
	const struct leaf_use *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	if (x->leaf != y->leaf)
		return x->leaf < y->leaf ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static void
row_leaves(struct check *c, sqlite3_stmt *q)
{
	int n, npf, i, *leaves, *pf;

	leaves = store_i32_decode(sqlite3_column_blob(q, 2),
	    sqlite3_column_bytes(q, 2), &n);
	pf = store_i32_decode(sqlite3_column_blob(q, 3),
	    sqlite3_column_bytes(q, 3), &npf);
	if (sqlite3_column_bytes(q, 2) % 4 != 0 || npf < 1 || pf[npf - 1] != n ||
	    (sqlite3_column_type(q, 4) != SQLITE_NULL &&
	    sqlite3_column_bytes(q, 4) != sqlite3_column_bytes(q, 2)))
		problem(c, "run %lld: the placement of job %lld is malformed",
		    (long long)sqlite3_column_int64(q, 0),
		    (long long)sqlite3_column_int64(q, 1));
	for (i = 0; i < n; i++) {
		XGROW(c->leaves, c->cap, c->nleaves + 1);
		c->leaves[c->nleaves].run = sqlite3_column_int64(q, 0);
		c->leaves[c->nleaves].leaf = leaves[i];
		c->leaves[c->nleaves].job = sqlite3_column_int(q, 1);
		c->nleaves++;
	}
	free(leaves);
	free(pf);
}

#define HOLDING	"('running', 'suspended', 'completing')"

/*
 * A job_changes row (store.h invariant 7): whole int32 ids, ascending, each
 * a job of the run (the jobs it names are read by key: one that is not
 * there would be skipped by a follower without a word).
 */
static void
row_changes(struct check *c, sqlite3_stmt *q)
{
	int64_t run = sqlite3_column_int64(q, 0), chg = sqlite3_column_int64(q, 1);
	int bytes = sqlite3_column_bytes(q, 2), n, i;
	sqlite3_stmt *j = NULL;
	int *ids;

	if (bytes % 4 != 0 || bytes == 0) {
		problem(c, "run %lld: change %lld is malformed (%d bytes)",
		    (long long)run, (long long)chg, bytes);
		return;
	}
	ids = store_i32_decode(sqlite3_column_blob(q, 2), bytes, &n);
	if (sqlite3_prepare_v2(c->st->db, "SELECT 1 FROM jobs WHERE run = ?1 "
	    "AND id = ?2", -1, &j, NULL) != SQLITE_OK) {
		free(ids);
		return;
	}
	for (i = 0; i < n; i++) {
		if (i > 0 && ids[i] <= ids[i - 1]) {
			problem(c, "run %lld: change %lld lists job %d after %d",
			    (long long)run, (long long)chg, ids[i], ids[i - 1]);
			break;
		}
		sqlite3_bind_int64(j, 1, run);
		sqlite3_bind_int(j, 2, ids[i]);
		if (sqlite3_step(j) != SQLITE_ROW)
			problem(c, "run %lld: change %lld names job %d, which the "
			    "run does not have", (long long)run, (long long)chg, ids[i]);
		sqlite3_reset(j);
	}
	sqlite3_finalize(j);
	free(ids);
}

int
store_check(struct store *st, void (*fn)(void *, const char *), void *arg,
    int *nproblems, char **cause)
{
	struct check c = { st, fn, arg, 0, 0, 0, NULL, 0, 0, 0, 0 };
	struct leaf_use *v;
	size_t i;
	int rc = -1;

	*nproblems = 0;
	if (store_exec(st, "BEGIN", cause) != 0)
		return -1;
	if (check_query(&c, "PRAGMA integrity_check(100)", row_integrity, cause) != 0 ||
	    check_query(&c, "PRAGMA foreign_key_check", row_fk, cause) != 0)
		goto out;
	if (c.n > 0) {
		/* The domain checks would read damaged data: stop here. */
		rc = 0;
		goto out;
	}
	/* invariant 8: a replay's names once, a session's once among the
	   jobs not ended (a name is reused after its job ends) */
	if (check_query(&c, "SELECT run, name, count(*), traced FROM jobs "
	    "WHERE traced = 1 OR state NOT IN ('completed', 'failed', "
	    "'cancelled') GROUP BY run, name, traced HAVING count(*) > 1",
	    row_dup_name, cause) != 0 ||
	    check_query(&c, "SELECT j.run, j.name, j.traced, r.kind FROM jobs j "
	    "JOIN runs r ON r.id = j.run WHERE j.traced != (r.kind = 'replay')",
	    row_traced, cause) != 0 ||
	    check_query(&c, "SELECT j.run, j.name, j.state FROM placements p "
	    "JOIN jobs j ON j.run = p.run AND j.id = p.job "
	    "WHERE j.state NOT IN " HOLDING, row_pl_state, cause) != 0 ||
	    /* engine_id < 0: a guest sharing another job's GPUs (gandiva's
	       time-slicing, packing) runs on cells it does not hold */
	    check_query(&c, "SELECT j.run, j.name, j.state FROM jobs j "
	    "WHERE j.state IN " HOLDING " AND j.engine_id >= 0 AND NOT EXISTS "
	    "(SELECT 1 FROM placements p WHERE p.run = j.run AND p.job = j.id)",
	    row_no_pl, cause) != 0)
		goto out;
	if (check_query(&c, "SELECT p.run, p.job, p.leaves, p.pod_first, p.vleaves "
	    "FROM placements p JOIN jobs j ON j.run = p.run AND j.id = p.job "
	    "WHERE j.state IN " HOLDING, row_leaves, cause) != 0)
		goto out;
	v = c.leaves;
	if (c.nleaves > 1)
		qsort(v, c.nleaves, sizeof *v, leaf_cmp);
	c.rule_shown = 0;
	for (i = 1; i < c.nleaves; i++)
		if (v[i].run == v[i - 1].run && v[i].leaf == v[i - 1].leaf)
			problem(&c, "run %lld: leaf cell %d is held by jobs %d and %d",
			    (long long)v[i].run, v[i].leaf, v[i - 1].job, v[i].job);
	if (check_query(&c, "SELECT seq, run, first, data FROM event_blocks "
	    "ORDER BY seq", row_block, cause) != 0)
		goto out;
	if (c.bad_blocks > 0) {
		rc = 0;
		goto out;
	}
	if (check_query(&c, "SELECT e.seq, e.run, e.kind, e.job FROM events e "
	    "WHERE e.job IS NOT NULL AND NOT EXISTS (SELECT 1 FROM jobs j "
	    "WHERE j.run = e.run AND j.id = e.job) UNION ALL "
	    "SELECT e.seq, e.run, e.kind, e.by_job FROM events e "
	    "WHERE e.by_job IS NOT NULL AND NOT EXISTS (SELECT 1 FROM jobs j "
	    "WHERE j.run = e.run AND j.id = e.by_job)", row_orphan_event, cause) != 0 ||
	    check_query(&c, "SELECT prev, count(*) FROM events WHERE prev IS NOT NULL "
	    "GROUP BY prev HAVING count(*) > 1", row_shared_link, cause) != 0 ||
	    check_query(&c, "SELECT x.run, x.job, coalesce(j.name, x.job), x.firsts, "
	    "x.submits * (r.kind = 'replay') FROM (SELECT run, job, "
	    "count(*) - count(prev) AS firsts, sum(kind = 'submit') AS submits "
	    "FROM events WHERE job IS NOT NULL GROUP BY run, job) x "
	    "JOIN runs r ON r.id = x.run "
	    "LEFT JOIN jobs j ON j.run = x.run AND j.id = x.job "
	    "WHERE x.firsts != 1 OR (x.submits > 1 AND r.kind = 'replay')",
	    row_firsts, cause) != 0 ||
	    /* one pass over the links: bad ones, and those going back in
	       a replay's time */
	    check_query(&c, "SELECT e.seq, e.run, e.prev, "
	    "(p.seq IS NULL OR p.run != e.run OR p.job IS NOT e.job OR "
	    "p.seq >= e.seq), e.t < p.t AND r.kind = 'replay', e.job, e.t, p.t "
	    "FROM events e LEFT JOIN events p ON p.seq = e.prev "
	    "JOIN runs r ON r.id = e.run WHERE e.prev IS NOT NULL",
	    row_link, cause) != 0 ||
	    check_query(&c, "SELECT run, upto, seqs FROM heads", row_heads,
	    cause) != 0 ||
	    check_query(&c, "SELECT run, chg, jobs FROM job_changes ORDER BY run, chg",
	    row_changes, cause) != 0)
		goto out;
	rc = 0;
out:
	free(c.leaves);
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	if (c.n > c.shown) {
		char *more = xasprintf("(%d more problems not shown)", c.n - c.shown);

		fn(arg, more);
		free(more);
	}
	*nproblems = c.n;
	return rc;
}

int
store_vacuum(struct store *st, long long *before, long long *after, char **cause)
{
	if (st->txn)
		fatal("store_vacuum: inside a transaction");
	*before = store_size(st);
	if (store_exec(st, "VACUUM", cause) != 0)
		return -1;
	if (!st->memory && store_exec(st, "PRAGMA wal_checkpoint(TRUNCATE)", cause) != 0)
		return -1;
	*after = store_size(st);
	return 0;
}
