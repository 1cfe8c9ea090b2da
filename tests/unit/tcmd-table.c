/*
 * tcmd-table.c — unit tests of the table writer and output formats
 * (cmd/table): alignment, indentation, no truncation, csv quoting, the name
 * column, headers off, colour roles that do not disturb alignment.
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
	CHECK_STREQ(sb.buf, "table, csv");
	strbuf_release(&sb);
	CHECK_STREQ(table_role_sgr(ROLE_NONE), "");
}

static const struct test tests[] = {
	{ "table", test_table },
	{ "colour", test_colour },
	{ "csv", test_csv },
	{ "name", test_name },
	{ "utf8-width", test_utf8_width },
	{ "formats", test_formats },
};

TEST_MAIN(tests)
