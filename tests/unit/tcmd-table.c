/*
 * tcmd-table.c — unit tests of the table writer and output formats
 * (cmd/table): alignment, indentation, no truncation, csv quoting, the name
 * column, headers off, colour roles that do not disturb alignment, wide
 * columns, and queries: sort keys (numeric, natural, descending, stable,
 * several), filters (=, !=, globs, alternatives, hostlists, numeric
 * comparisons), key errors, and a randomized check of the sort order.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/table.h"

static struct table *
sample(void)
{
	struct table *t = table_create();

	table_column(t, "NAME", "name", TABLE_NAME);
	table_column(t, "GPUS", "gpus", TABLE_RIGHT);
	table_column(t, "NOTE", "note", 0);
	table_row(t);
	table_cell(t, "a");
	table_cell_int(t, 8);
	table_cell(t, "plain");
	table_row(t);
	table_cell(t, "a-much-longer-name");
	table_cell_int(t, 128);
	table_cell(t, "has, comma and \"quotes\"");
	table_row(t);
	table_indent(t, 1);
	table_cell(t, "child");
	table_cell_role(t, ROLE_BAD, "%d", 3);
	/* no third cell: renders empty */
	return t;
}

static char *
render(const struct table *t, enum out_format f, bool header, bool color)
{
	struct out_opts o = { f, header, color };
	struct strbuf sb = STRBUF_INIT;

	table_render(t, &o, &sb);
	return strbuf_detach(&sb, NULL);
}

static void
test_table(void)
{
	struct table *t = sample();
	char *s = render(t, OUT_TABLE, true, false);

	CHECK_STREQ(s,
	    "NAME                GPUS  NOTE\n"
	    "a                      8  plain\n"
	    "a-much-longer-name   128  has, comma and \"quotes\"\n"
	    "  child                3\n");
	free(s);
	s = render(t, OUT_TABLE, false, false);
	CHECK(strncmp(s, "a   ", 4) == 0);
	CHECK(strstr(s, "NAME") == NULL);
	free(s);
	table_free(t);
}

static void
test_colour(void)
{
	struct table *t = sample();
	char *plain = render(t, OUT_TABLE, true, false);
	char *col = render(t, OUT_TABLE, true, true);
	struct strbuf stripped = STRBUF_INIT;
	const char *p;

	CHECK(strstr(col, "\033[1;31m3\033[0m") != NULL);
	/* Without the escapes, the coloured table is the plain one. */
	for (p = col; *p != '\0'; p++) {
		if (*p == '\033') {
			p += strcspn(p, "m");
			continue;
		}
		strbuf_addc(&stripped, *p);
	}
	CHECK_STREQ(stripped.buf, plain);
	strbuf_release(&stripped);
	free(plain);
	free(col);
	table_free(t);
}

static void
test_csv(void)
{
	struct table *t = sample();
	char *s = render(t, OUT_CSV, true, true);

	CHECK_STREQ(s,
	    "name,gpus,note\n"
	    "a,8,plain\n"
	    "a-much-longer-name,128,\"has, comma and \"\"quotes\"\"\"\n"
	    "child,3,\n");
	free(s);
	s = render(t, OUT_CSV, false, false);
	CHECK(strncmp(s, "a,8,plain\n", 10) == 0);
	free(s);
	table_free(t);
}

static void
test_name(void)
{
	struct table *t = sample();
	char *s = render(t, OUT_NAME, true, false);

	CHECK_STREQ(s, "a\na-much-longer-name\nchild\n");
	free(s);
	table_free(t);

	t = table_create();
	table_column(t, "X", "x", 0);
	table_column(t, "JOB", "job", TABLE_NAME);
	table_row(t);
	table_cell(t, "1");
	table_cell(t, "j");
	s = render(t, OUT_NAME, true, false);
	CHECK_STREQ(s, "j\n");
	free(s);
	table_free(t);
}

static void
test_utf8_width(void)
{
	struct table *t = table_create();
	char *s;

	table_column(t, "A", "a", 0);
	table_column(t, "B", "b", 0);
	table_row(t);
	table_cell(t, "\xc3\xa9t\xc3\xa9");	/* "été": 3 columns, 5 bytes */
	table_cell(t, "x");
	table_row(t);
	table_cell(t, "abc");
	table_cell(t, "y");
	s = render(t, OUT_TABLE, true, false);
	CHECK_STREQ(s, "A    B\n\xc3\xa9t\xc3\xa9  x\nabc  y\n");
	free(s);
	table_free(t);
}

static void
test_formats(void)
{
	struct strbuf sb = STRBUF_INIT;

	CHECK_INTEQ(out_format_parse("json"), OUT_JSON);
	CHECK_INTEQ(out_format_parse("csv"), OUT_CSV);
	CHECK_INTEQ(out_format_parse("JSON"), -1);
	CHECK_INTEQ(out_format_parse(""), -1);
	CHECK_STREQ(out_format_name(OUT_NAME), "name");
	out_format_list(&sb, OUT_MASK(OUT_TABLE) | OUT_MASK(OUT_CSV));
	CHECK_STREQ(sb.buf, "table, wide, csv");
	strbuf_reset(&sb);
	out_format_list(&sb, OUT_MASK(OUT_JSON));
	CHECK_STREQ(sb.buf, "json");
	strbuf_release(&sb);
	CHECK_INTEQ(out_format_parse("wide"), OUT_WIDE);
	CHECK(OUT_IS_TEXT(OUT_WIDE) && OUT_IS_TEXT(OUT_TABLE) && !OUT_IS_TEXT(OUT_CSV));
	CHECK_STREQ(table_role_sgr(ROLE_NONE), "");
}

static const struct table_colspec qcols[] = {
	{ "NODE", "node", TABLE_NAME | TABLE_HOSTS, "node" },
	{ "GPUS", "gpus", TABLE_NUM, "gpus" },
	{ "STATE", "state", 0, "state" },
	{ "X", "extra", TABLE_WIDE, "wide only" },
	{ NULL, NULL, 0, NULL }
};

/* Six rows, tagged 0..5, in this order. */
static struct table *
qsample(void)
{
	static const char *const rows[][4] = {
		{ "r0n10", "8", "free", "a" },
		{ "r0n2", "-", "bad", "b" },
		{ "r0n01", "16", "free", "c" },
		{ "r1n[00-03]", "8", "Busy", "d" },
		{ "r0n3", "4", "busy", "e" },
		{ "x", "0.5", "free", "f" },
	};
	struct table *t = table_create();
	size_t i;

	table_columns(t, qcols);
	for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		table_row(t);
		table_row_tag(t, (long)i);
		table_indent(t, (int)i % 2);
		table_cell(t, "%s", rows[i][0]);
		table_cell(t, "%s", rows[i][1]);
		table_cell(t, "%s", rows[i][2]);
		table_cell(t, "%s", rows[i][3]);
	}
	return t;
}

/* The tags of a query's result, as "a,b,c"; "ERR: cause" on failure. */
static char *
query(const char *sort, const char *const *filters)
{
	struct table_query *q = table_query_create();
	struct table *t = qsample();
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;
	size_t r;

	if ((sort != NULL && table_query_sort(q, sort, &cause) != 0))
		goto err;
	for (; filters != NULL && *filters != NULL; filters++)
		if (table_query_filter(q, *filters, &cause) != 0)
			goto err;
	if (table_query_check(q, qcols, &cause) != 0)
		goto err;
	if (table_query_apply(t, q, &cause) != 0) {
		strbuf_adds(&sb, "APPLY ");	/* check must catch it first */
		goto err;
	}
	for (r = 0; r < table_nrows(t); r++)
		strbuf_addf(&sb, "%s%ld", r ? "," : "", table_tag(t, r));
	goto out;
err:
	strbuf_addf(&sb, "ERR: %s", cause);
out:
	free(cause);
	table_query_free(q);
	table_free(t);
	return strbuf_detach(&sb, NULL);
}

#define F(...) ((const char *const []){ __VA_ARGS__, NULL })

static void
test_query(void)
{
	const struct {
		const char		*sort;
		const char *const	*filters;
		const char		*want;
	} cases[] = {
		{ NULL, NULL, "0,1,2,3,4,5" },
		/* numeric: numbers first either way, then the original order */
		{ "gpus", NULL, "5,4,0,3,2,1" },
		{ "-gpus", NULL, "2,0,3,4,5,1" },
		{ "GPUS", NULL, "5,4,0,3,2,1" },		/* the header works too */
		/* natural text order, ignoring case; stable ties */
		{ "node", NULL, "2,1,4,0,3,5" },
		/* Busy and busy tie without case, then differ by it */
		{ "state,-node", NULL, "1,3,4,5,0,2" },
		{ "+state,gpus", NULL, "1,3,4,5,0,2" },
		{ "-state,gpus", NULL, "5,0,2,4,3,1" },
		{ NULL, F("state=free"), "0,2,5" },
		{ NULL, F("state=FREE"), "0,2,5" },
		{ NULL, F("state!=free"), "1,3,4" },
		{ NULL, F("state=b*"), "1,3,4" },
		{ NULL, F("state=?ad"), "1" },
		{ NULL, F("state=bad,busy"), "1,3,4" },
		{ NULL, F("state=free", "gpus>=8"), "0,2" },
		{ NULL, F("gpus<8"), "4,5" },
		{ NULL, F("gpus<=8"), "0,3,4,5" },
		{ NULL, F("gpus>8"), "2" },
		{ NULL, F("gpus=8.0"), "0,3" },
		{ NULL, F("gpus=-"), "1" },
		{ NULL, F("extra=c"), "2" },		/* wide columns filter too */
		/* hostlists on both sides */
		{ NULL, F("node=r1n02"), "3" },
		{ NULL, F("node=r0n[01-03]"), "2" },	/* names, not numbers: r0n02 is not r0n2 */
		{ NULL, F("node=r0n[1-3]"), "1,4" },
		{ NULL, F("node=r0n[01-03],r0n10"), "0,2" },
		{ NULL, F("node=r1n*"), "3" },
		{ NULL, F("node!=r1n[00-01]"), "0,1,2,4,5" },
		{ "-gpus", F("state!=bad"), "2,0,3,4,5" },
		/* errors */
		{ "nope", NULL, "ERR: unknown sort key 'nope' (keys: node, gpus, state, extra)" },
		{ NULL, F("nope=1"), "ERR: unknown filter field 'nope' (fields: node, gpus, state, extra)" },
		{ NULL, F("state<3"), "ERR: unknown numeric field 'state' (numeric fields: gpus)" },
		{ NULL, F("gpus>x"), "ERR: invalid filter 'gpus>x': 'x' is not a number" },
		{ NULL, F("state"), "ERR: invalid filter 'state' (FIELD=VALUE, FIELD!=VALUE, or FIELD<N, <=, >, >=)" },
		{ NULL, F("=x"), "ERR: invalid filter '=x' (FIELD=VALUE, FIELD!=VALUE, or FIELD<N, <=, >, >=)" },
		{ NULL, F("node=r0n[1-"), "ERR: invalid filter 'node=r0n[1-': " },
		{ "gpus,", NULL, "ERR: invalid sort 'gpus,' (KEY[,-KEY]...)" },
		{ "-", NULL, "ERR: invalid sort '-' (KEY[,-KEY]...)" },
		{ "a b", NULL, "ERR: invalid sort 'a b' (KEY[,-KEY]...)" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = query(cases[i].sort, cases[i].filters);

		CHECKF(strncmp(got, cases[i].want, strlen(cases[i].want)) == 0 &&
		    (strncmp(cases[i].want, "ERR", 3) == 0 ||
		    strlen(got) == strlen(cases[i].want)),
		    "case %zu: got '%s', want '%s'", i, got, cases[i].want);
		free(got);
	}
}

/* A query flattens the tree; wide columns only show in wide and csv. */
static void
test_query_render(void)
{
	struct table_query *q = table_query_create();
	struct table *t = qsample();
	char *cause = NULL, *s;

	s = render(t, OUT_TABLE, true, false);
	CHECK(strstr(s, "\n  r0n2") != NULL);	/* indented before */
	CHECK(strstr(s, "X") == NULL && strstr(s, " a\n") == NULL);
	free(s);
	s = render(t, OUT_WIDE, true, false);
	CHECK(strstr(s, "X\n") != NULL && strstr(s, "  a\n") != NULL);
	free(s);
	s = render(t, OUT_CSV, true, false);
	CHECK(strncmp(s, "node,gpus,state,extra\n", 22) == 0);
	free(s);
	CHECK(table_query_empty(q) && table_query_empty(NULL));
	CHECK_INTEQ(table_query_filter(q, "state=free", &cause), 0);
	CHECK(!table_query_empty(q));
	CHECK_INTEQ(table_query_apply(t, q, &cause), 0);
	s = render(t, OUT_TABLE, false, false);
	CHECK_STREQ(s, "r0n10    8  free\nr0n01   16  free\nx      0.5  free\n");
	free(s);
	s = render(t, OUT_NAME, false, false);
	CHECK_STREQ(s, "r0n10\nr0n01\nx\n");
	free(s);
	table_query_free(q);
	table_free(t);
}

/* Compare two (a, b) pairs as "-a,b" or "a,-b" orders them; -1 for "-". */
static int
pair_cmp(int a1, int b1, int a2, int b2, bool desc_a)
{
	if ((a1 < 0) != (a2 < 0))
		return a1 < 0 ? 1 : -1;		/* non-numbers last, either way */
	if (a1 != a2)
		return desc_a ? a2 - a1 : a1 - a2;
	return desc_a ? b1 - b2 : b2 - b1;
}

/* Random tables sorted by two keys come out ordered and stable. */
static void
test_query_random(void)
{
	unsigned seed = 7;
	int round, rounds = test_long ? 2000 : 200;

	for (round = 0; round < rounds; round++) {
		struct table_query *q = table_query_create();
		struct table *t = table_create();
		int n, i, va[64], vb[64];
		bool desc_a = round % 2 == 1;
		char *cause = NULL;
		size_t r;

		seed = seed * 1103515245 + 12345;
		n = (int)((seed >> 16) % 60);
		table_column(t, "A", "a", TABLE_NUM);
		table_column(t, "B", "b", 0);
		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			va[i] = (seed >> 16) % 7 == 0 ? -1 : (int)((seed >> 16) % 5);
			vb[i] = (int)((seed >> 20) % 4);
			table_row(t);
			table_row_tag(t, i);
			if (va[i] < 0)
				table_cell(t, "-");
			else
				table_cell(t, "%d", va[i]);
			table_cell(t, "n%d", vb[i]);
		}
		CHECK_INTEQ(table_query_sort(q, desc_a ? "-a,b" : "a,-b", &cause), 0);
		CHECK_INTEQ(table_query_apply(t, q, &cause), 0);
		CHECK_INTEQ(table_nrows(t), n);
		for (r = 1; r < table_nrows(t); r++) {
			long x = table_tag(t, r - 1), y = table_tag(t, r);
			int d = pair_cmp(va[x], vb[x], va[y], vb[y], desc_a);

			CHECKF(d < 0 || (d == 0 && x < y), "round %d row %zu: "
			    "(%d,%d)#%ld before (%d,%d)#%ld", round, r, va[x], vb[x],
			    x, va[y], vb[y], y);
		}
		table_query_free(q);
		table_free(t);
	}
}

static const struct test tests[] = {
	{ "table", test_table },
	{ "colour", test_colour },
	{ "csv", test_csv },
	{ "name", test_name },
	{ "utf8-width", test_utf8_width },
	{ "formats", test_formats },
	{ "query", test_query },
	{ "query-render", test_query_render },
	{ "query-random", test_query_random },
};

TEST_MAIN(tests)
