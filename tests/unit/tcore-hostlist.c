/*
 * tcore-hostlist.c — unit tests of core/hostlist: compression of node names
 * into ranges, expansion back, and the round trip between them.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/hostlist.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

/* Compress a NULL-terminated list and compare with want. */
static void
check_compress(const char *want, const char *const *names)
{
	size_t n = 0;
	char *got;

	while (names[n] != NULL)
		n++;
	got = hostlist_compress((char *const *)names, n);
	CHECK_STREQ(got, want);
	free(got);
}

/* Expand expr and compare with want, the names joined by spaces. */
static void
check_expand(const char *expr, const char *want)
{
	struct strvec sv = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;
	size_t i;

	CHECKF(hostlist_expand(expr, &sv, &cause) == 0, "%s: %s", expr,
	    cause ? cause : "?");
	for (i = 0; i < sv.n; i++)
		strbuf_addf(&sb, "%s%s", i ? " " : "", sv.v[i]);
	CHECK_STREQ(sb.buf, want);
	free(cause);
	strbuf_release(&sb);
	strvec_release(&sv);
}

static void
check_expand_fails(const char *expr, const char *want_in_cause)
{
	struct strvec sv = STRVEC_INIT;
	char *cause = NULL;

	CHECKF(hostlist_expand(expr, &sv, &cause) == -1, "'%s' expanded", expr);
	CHECKF(cause != NULL && strstr(cause, want_in_cause) != NULL,
	    "'%s': cause '%s'", expr, cause ? cause : "(null)");
	free(cause);
	strvec_release(&sv);
}

static void
test_compress_simple(void)
{
	const char *a[] = { "node01", "node02", "node03", NULL };
	const char *b[] = { "node01", NULL };
	const char *c[] = { NULL };
	const char *d[] = { "node1", "node2", "node3", "node5", "node7", "node8", NULL };

	check_compress("node[01-03]", a);
	check_compress("node01", b);
	check_compress("", c);
	check_compress("node[1-3,5,7-8]", d);
}

static void
test_compress_padding(void)
{
	const char *a[] = { "node08", "node09", "node10", "node11", NULL };
	const char *b[] = { "node10", "node09", NULL };
	const char *c[] = { "node9", "node09", "node10", NULL };
	const char *d[] = { "n9", "n10", "n11", NULL };
	const char *e[] = { "n001", "n002", "n099", "n100", NULL };

	check_compress("node[08-11]", a);
	check_compress("node[09-10]", b);	/* order of input does not matter */
	check_compress("node9,node[09-10]", c);	/* first appearance order */
	check_compress("n[9-11]", d);
	check_compress("n[001-002,099-100]", e);
}

static void
test_compress_groups(void)
{
	const char *a[] = { "r0n00", "r0n01", "r1n00", "r1n01", "r0n02", NULL };
	const char *b[] = { "gpu-a1", "gpu-b1", "gpu-a2", NULL };
	const char *c[] = { "node1-ib", "node2-ib", "node3", NULL };
	const char *d[] = { "10.0.0.1", "10.0.0.2", "10.0.1.1", NULL };

	check_compress("r0n[00-02],r1n[00-01]", a);
	check_compress("gpu-a[1-2],gpu-b1", b);
	check_compress("node[1-2]-ib,node3", c);
	check_compress("10.0.0.[1-2],10.0.1.1", d);
}

static void
test_compress_odd(void)
{
	const char *a[] = { "login", "node1", "login", "node2", "gateway", NULL };
	const char *b[] = { "node3", "node3", "node1", NULL };
	const char *c[] = { "we[ird]1", "we[ird]2", "a,b", NULL };
	const char *d[] = { "x1234567890123456789", "x1234567890123456790", NULL };
	const char *e[] = { "0", "1", "2", "7", NULL };
	const char *f[] = { "", "n1", NULL };

	check_compress("login,node[1-2],gateway", a);
	check_compress("node[1,3]", b);
	check_compress("we[ird]1,we[ird]2,a,b", c);
	/* 19 digits: too long to be a number, kept literal */
	check_compress("x1234567890123456789,x1234567890123456790", d);
	check_compress("[0-2,7]", e);
	check_compress(",n1", f);
}

static void
test_expand(void)
{
	check_expand("node[01-03]", "node01 node02 node03");
	check_expand("node[1-3,5]", "node1 node2 node3 node5");
	check_expand("node[08-10]", "node08 node09 node10");
	check_expand("r[0-1]n[0-1]", "r0n0 r0n1 r1n0 r1n1");
	check_expand("a,b[1-2]c,d", "a b1c b2c d");
	check_expand("solo", "solo");
	check_expand("n[7]", "n7");
	check_expand("10.0.0.[1-2]", "10.0.0.1 10.0.0.2");
}

static void
test_expand_errors(void)
{
	check_expand_fails("", "empty hostlist");
	check_expand_fails("a,,b", "empty name");
	check_expand_fails("a,", "empty name");
	check_expand_fails("node[1-3", "unbalanced '['");
	check_expand_fails("node1-3]", "unbalanced ']'");
	check_expand_fails("node[1-[2]]", "nested");
	check_expand_fails("node[]", "empty brackets");
	check_expand_fails("node[3-1]", "end before start");
	check_expand_fails("node[a-b]", "bad range 'a-b'");
	check_expand_fails("node[1-]", "bad range");
	check_expand_fails("node[-1]", "bad range");
	check_expand_fails("node[1,,2]", "bad range");
	check_expand_fails("node[0-99999999999]", "more than");
	check_expand_fails("a[0-999]b[0-999]", "more than");
	check_expand_fails("n[1-2]x[", "unbalanced '['");
	check_expand_fails("n[1234567890123456789]", "bad range");
}

/* Compress then expand: the distinct names come back. */
static void
test_round_trip(void)
{
	static const char *const sets[][8] = {
		{ "node01", "node02", "node03", "node05", NULL },
		{ "r0n00", "r0n01", "r1n00", "r1n07", NULL },
		{ "a", "b9", "b10", "b09", "c", NULL },
		{ "10.0.0.1", "10.0.0.3", "10.0.0.2", NULL },
	};
	size_t s, i, j, n;

	for (s = 0; s < sizeof sets / sizeof sets[0]; s++) {
		struct strvec sv = STRVEC_INIT;
		char *cause = NULL, *h;

		for (n = 0; sets[s][n] != NULL; n++)
			;
		h = hostlist_compress((char *const *)sets[s], n);
		CHECKF(hostlist_expand(h, &sv, &cause) == 0, "%s", cause);
		CHECKF(sv.n == n, "'%s' gave %zu names", h, sv.n);
		for (i = 0; i < n; i++) {
			for (j = 0; j < sv.n; j++)
				if (strcmp(sv.v[j], sets[s][i]) == 0)
					break;
			CHECKF(j < sv.n, "'%s' lost in '%s'", sets[s][i], h);
		}
		free(h);
		free(cause);
		strvec_release(&sv);
	}
}

/* Many names: compression stays short and exact. */
static void
test_large(void)
{
	struct strvec in = STRVEC_INIT, out = STRVEC_INIT;
	char *h, *cause = NULL;
	int r, n;

	for (r = 0; r < 4; r++)
		for (n = 0; n < 64; n++)
			strvec_pushf(&in, "rack%d-node%03d", r, n);
	h = hostlist_compress(in.v, in.n);
	CHECK_STREQ(h, "rack0-node[000-063],rack1-node[000-063],"
	    "rack2-node[000-063],rack3-node[000-063]");
	CHECK(hostlist_expand(h, &out, &cause) == 0);
	CHECK_INTEQ(out.n, 256);
	CHECK_STREQ(out.v[255], "rack3-node063");
	free(h);
	free(cause);
	strvec_release(&in);
	strvec_release(&out);
}

static const struct test tests[] = {
	{ "compress-simple", test_compress_simple },
	{ "compress-padding", test_compress_padding },
	{ "compress-groups", test_compress_groups },
	{ "compress-odd", test_compress_odd },
	{ "expand", test_expand },
	{ "expand-errors", test_expand_errors },
	{ "round-trip", test_round_trip },
	{ "large", test_large },
};

TEST_MAIN(tests)
