/*
 * tdash-chart.c — the line chart (dash/chart.h): a spike lands in the
 * column invariant 1 names and nowhere else on the top row, in ASCII and in
 * braille; the y axis ends at the nice ceiling (invariant 3); gaps draw
 * nothing (invariant 2); the title, x labels and legend are there; a box
 * under the minimum and an empty chart are errors.
 */
#include <math.h>

#include "core/strbuf.h"
#include "dash/chart.h"
#include "test.h"

#define N 100

static double t[N], y[N], flat[N];

static void
setup(void)
{
	int i;

	for (i = 0; i < N; i++) {
		t[i] = 60.0 * i;	/* 0 .. 99 min */
		y[i] = i == 60 ? 9 : 1;
		flat[i] = i < 50 ? NAN : 2;
	}
}

/* Line `row` of the rendered screen (no newline). */
static void
line(const struct strbuf *sb, int row, char *buf, size_t len)
{
	const char *p = sb->buf, *e;

	while (row-- > 0 && (p = strchr(p, '\n')) != NULL)
		p++;
	buf[0] = '\0';
	if (p == NULL)
		return;
	e = strchr(p, '\n');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
}

static void
render(bool ascii, int w, int h, const struct dash_chart *c, struct strbuf *out,
    int *rc)
{
	struct dash_screen s;
	char *cause = NULL;

	dash_screen_init(&s, w, h, ascii);
	*rc = dash_chart_draw(&s, 0, 0, w, h, c, &cause);
	free(cause);
	dash_screen_text(&s, out);
	dash_screen_release(&s);
}

static void
test_spike_ascii(void)
{
	struct dash_curve cv[] = { { "spike", y } };
	struct dash_chart c = { "load", "jobs", t, N, cv, 1, 1 };
	struct strbuf sb = STRBUF_INIT;
	char row[512];
	int rc, col, i, marks = 0;

	setup();
	render(true, 58, 12, &c, &sb, &rc);
	CHECK_INTEQ(rc, 0);
	col = dash_chart_column(&c, 58, true, t[60]);
	/* 50 dot columns: 60/99 x 49 = 29.7 rounds to 30 */
	CHECK_INTEQ(col, 30);
	line(&sb, 0, row, sizeof row);
	CHECKF(strcmp(row, "load (jobs)") == 0, "[%.200s]", row);
	line(&sb, 1, row, sizeof row);		/* the top plot row: 10 */
	CHECKF(strncmp(row, "     10|", 8) == 0, "[%.200s]", row);
	for (i = 8; row[i] != '\0'; i++)
		marks += row[i] == '*';
	CHECKF(marks == 0, "[%.200s]", row);	/* 9 of 10 is below the top row */
	line(&sb, 2, row, sizeof row);		/* 9 / 10 x 7 = 6.3: row 1 */
	CHECKF(strlen(row) == (size_t)(8 + col + 1) && row[8 + col] == '*', "[%.200s]", row);
	for (i = 8, marks = 0; row[i] != '\0'; i++)
		marks += row[i] == '*';
	CHECK_INTEQ(marks, 1);
	line(&sb, 8, row, sizeof row);		/* the bottom plot row: 0 */
	CHECKF(strncmp(row, "      0|", 8) == 0, "[%.200s]", row);
	line(&sb, 9, row, sizeof row);
	CHECKF(strncmp(row, "       +----", 12) == 0, "[%.200s]", row);
	line(&sb, 10, row, sizeof row);		/* 99 minutes: in min */
	CHECKF(strncmp(row, "        0", 9) == 0 && strstr(row, "49.5") != NULL &&
	    strstr(row, "99 min") != NULL, "[%.200s]", row);
	line(&sb, 11, row, sizeof row);
	CHECKF(strstr(row, "* spike") != NULL, "[%.200s]", row);
	strbuf_release(&sb);
}

static void
test_spike_braille(void)
{
	struct dash_curve cv[] = { { "spike", y } };
	struct dash_chart c = { "load", NULL, t, N, cv, 1, 1 };
	struct strbuf sb = STRBUF_INIT;
	char row[1024];
	int rc, col;
	const char *p;

	setup();
	render(false, 58, 12, &c, &sb, &rc);
	CHECK_INTEQ(rc, 0);
	col = dash_chart_column(&c, 58, false, t[60]);
	CHECK_INTEQ(col, 30);	/* 100 dots: 60/99 x 99 = 60, cell 30 */
	line(&sb, 1, row, sizeof row);	/* 9 of 10 x 31 dots: dot row 3, cell row 0 */
	/* y labels and the axis, then 30 spaces, then one braille cell */
	p = strstr(row, "\xe2\x94\x82");
	CHECKF(p != NULL && strspn(p + 3, " ") == (size_t)col &&
	    (unsigned char)p[3 + col] == 0xe2 && ((unsigned char)p[4 + col] & 0xfc) == 0xa0,
	    "[%.200s]", row);
	CHECKF(p != NULL && strlen(p + 3) == (size_t)col + 3, "[%.200s]", row);
	line(&sb, 11, row, sizeof row);
	CHECKF(strstr(row, "\xe2\xa3\xbf spike") != NULL, "[%.200s]", row);
	strbuf_release(&sb);
}

static void
test_gaps(void)
{
	struct dash_curve cv[] = { { "half", flat } };
	struct dash_chart c = { "gaps", "h", t, N, cv, 1, 1 };
	struct strbuf sb = STRBUF_INIT;
	char row[512];
	int rc, r, first = -1;

	setup();
	render(true, 58, 12, &c, &sb, &rc);
	CHECK_INTEQ(rc, 0);
	for (r = 1; r <= 8; r++) {
		char *m;
		line(&sb, r, row, sizeof row);
		if ((m = strchr(row + 8, '*')) != NULL && first < 0)
			first = (int)(m - row - 8);
	}
	/* nothing before the first value, at 50 of 99 */
	CHECK_INTEQ(first, dash_chart_column(&c, 58, true, t[50]));
	line(&sb, 1, row, sizeof row);
	CHECKF(strncmp(row, "      2|", 8) == 0, "[%.200s]", row);
	strbuf_release(&sb);
}

static void
test_errors(void)
{
	struct dash_curve cv[] = { { "spike", y } };
	struct dash_chart c = { "load", NULL, t, N, cv, 1, 1 };
	struct dash_screen s;
	char *cause = NULL;

	setup();
	dash_screen_init(&s, 80, 24, true);
	CHECK_INTEQ(dash_chart_draw(&s, 0, 0, DASH_CHART_MIN_W - 1, 10, &c, &cause), -1);
	CHECKF(cause != NULL && strstr(cause, "at least") != NULL, "%.200s", cause);
	free(cause);
	cause = NULL;
	CHECK_INTEQ(dash_chart_draw(&s, 0, 0, 40, DASH_CHART_MIN_H - 1, &c, &cause), -1);
	free(cause);
	cause = NULL;
	c.n = 0;
	CHECK_INTEQ(dash_chart_draw(&s, 0, 0, 40, 10, &c, &cause), -1);
	CHECKF(cause != NULL && strstr(cause, "no samples") != NULL, "%.200s", cause);
	free(cause);
	dash_screen_release(&s);
}

static void
test_time_unit(void)
{
	const char *u;
	double secs;

	dash_chart_time_unit(200, &u, &secs);
	CHECK_STREQ(u, "s");
	dash_chart_time_unit(7200, &u, &secs);
	CHECK_STREQ(u, "min");
	dash_chart_time_unit(86400, &u, &secs);
	CHECK_STREQ(u, "h");
	dash_chart_time_unit(30 * 86400, &u, &secs);
	CHECK_STREQ(u, "d");
	CHECK(secs == 86400);
}

static const struct test tests[] = {
	{ "spike-ascii", test_spike_ascii },
	{ "spike-braille", test_spike_braille },
	{ "gaps", test_gaps },
	{ "errors", test_errors },
	{ "time-unit", test_time_unit },
};

TEST_MAIN(tests)
