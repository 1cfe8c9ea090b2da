/*
 * tcmd-refusals.c — a server's refusals in the audit (cmd/refusals.h): a
 * user's refusals within a second share one row whose count is written
 * once the second is over; a later one starts a row; a user past
 * REFUSALS_USERS closes the oldest row (its count written); a final flush
 * closes them all.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/refusals.h"
#include "core/strbuf.h"
#include "store/store.h"

static int
row_cb(void *arg, const struct store_audit *a)
{
	strbuf_addf(arg, "%s:%s:%d:%s:%d:%lld ", a->user, a->cmdline, a->status,
	    a->reason != NULL ? a->reason : "-", a->refused, a->count);
	return 0;
}

/* The audit's rows, "user:line:status:reason:refused:count " each. */
static const char *
rows(struct session *s, struct strbuf *sb)
{
	struct store *st;
	char *cause = NULL;

	strbuf_reset(sb);
	CHECK(session_store(s, true, &st, &cause) == 0);
	CHECK(store_audit_list(st, row_cb, sb, &cause) == 0);
	free(cause);
	return sb->buf != NULL ? sb->buf : "";
}

static void
test_window(void)
{
	struct session s;
	struct refusals r;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;
	int i;

	session_init(&s);
	session_set_db(&s, ":memory:");
	refusals_init(&r);
	CHECK(refusals_note(&r, &s, 7, "eve", "export /x", 6, "no", 100, &cause) == 0);
	CHECK_STREQ(rows(&s, &sb), "eve:export /x:6:no:1:1 ");
	/* the same second: counted, not written */
	for (i = 0; i < 9; i++)
		CHECK(refusals_note(&r, &s, 7, "eve", "load /y", 6, "admins",
		    100.5 + i * 0.01, &cause) == 0);
	CHECK_STREQ(rows(&s, &sb), "eve:export /x:6:no:1:1 ");
	CHECK(refusals_flush(&r, &s, 100.9, &cause) == 0);
	CHECK_STREQ(rows(&s, &sb), "eve:export /x:6:no:1:1 ");
	/* the second is over: the count goes in */
	CHECK(refusals_flush(&r, &s, 101.0, &cause) == 0);
	CHECK_STREQ(rows(&s, &sb), "eve:export /x:6:no:1:10 ");
	CHECK_INTEQ(r.n, 0);
	/* a later refusal, and another user's: rows of their own */
	CHECK(refusals_note(&r, &s, 7, "eve", "db vacuum", 6, "nobody", 101.2, &cause) == 0);
	CHECK(refusals_note(&r, &s, 8, "bob", "node bad n1", 6, "admins", 101.3, &cause) == 0);
	CHECK(refusals_note(&r, &s, 7, "eve", "db vacuum", 6, "nobody", 102.3, &cause) == 0);
	CHECK_STREQ(rows(&s, &sb), "eve:export /x:6:no:1:10 eve:db vacuum:6:nobody:1:1 "
	    "bob:node bad n1:6:admins:1:1 eve:db vacuum:6:nobody:1:1 ");
	CHECK_INTEQ(r.n, 2);
	CHECK(refusals_flush(&r, &s, -1, &cause) == 0);
	CHECK_INTEQ(r.n, 0);
	CHECKF(cause == NULL, "%s", cause);
	strbuf_release(&sb);
	session_release(&s);
}

static void
test_users(void)
{
	struct session s;
	struct refusals r;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL, user[16];
	unsigned u;

	session_init(&s);
	session_set_db(&s, ":memory:");
	refusals_init(&r);
	/* user 0 twice, then REFUSALS_USERS more in the same second: the
	   last closes user 0's row, its count written */
	CHECK(refusals_note(&r, &s, 0, "u0", "x", 6, NULL, 10, &cause) == 0);
	CHECK(refusals_note(&r, &s, 0, "u0", "x", 6, NULL, 10.1, &cause) == 0);
	for (u = 1; u <= REFUSALS_USERS; u++) {
		snprintf(user, sizeof user, "u%u", u);
		CHECK(refusals_note(&r, &s, u, user, "x", 6, NULL, 10.2, &cause) == 0);
	}
	CHECK_INTEQ(r.n, REFUSALS_USERS);
	rows(&s, &sb);
	CHECK(strncmp(sb.buf, "u0:x:6:-:1:2 u1:x:6:-:1:1 ", 26) == 0);
	CHECK(refusals_flush(&r, &s, -1, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	strbuf_release(&sb);
	session_release(&s);
}

static const struct test tests[] = {
	{ "window", test_window },
	{ "users", test_users },
};

TEST_MAIN(tests)
