/*
 * chart.c — a line chart of time series into a screen grid (chart.h).
 *
 * The plot area is a grid of dots (braille: 2 x 4 per cell; ASCII: one
 * per cell). Each curve's consecutive samples are joined by a line in dot
 * space: every dot column between two samples fills the span the line
 * crosses there, so a column holding many samples shows their range and a
 * peak is never averaged away. The dots become characters at the end, one
 * role per cell (the last curve drawn there).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/chart.h"

/* ASCII marks, one per curve, cycling. */
static const char ascii_marks[] = "*+o#x%@=";

/* Braille dot bits by (dot column 0-1, dot row 0-3 from the top). */
static const unsigned char braille_bit[2][4] = {
	{ 0x01, 0x02, 0x04, 0x40 },
	{ 0x08, 0x10, 0x20, 0x80 },
};

/* The plot area in dots, and the y range. */
struct area {
	int		 cw, ch;	/* cells */
	int		 dx, dy;	/* dots per cell */
	double		 ymin, ymax;
	unsigned char	*bits;		/* per cell: braille bits, or 1 */
	signed char	*who;		/* per cell: the curve drawn last, -1 */
};

void
dash_chart_time_unit(double span, const char **unit, double *secs)
{
	static const struct { const char *unit; double secs, upto; } units[] = {
		{ "s", 1, 300 },
		{ "min", 60, 3 * 3600 },
		{ "h", 3600, 3 * 86400 },
		{ "d", 86400, INFINITY },
	};
	size_t i;

	for (i = 0; i + 1 < sizeof units / sizeof units[0] && span > units[i].upto; i++)
		;
	*unit = units[i].unit;
	*secs = units[i].secs;
}

/* The largest value rounded up to 1, 2 or 5 x 10^k (invariant 3). */
static double
nice_ceil(double v)
{
	double p, m[] = { 1, 2, 5, 10 };
	size_t i;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	for (i = 0; i < sizeof m / sizeof m[0]; i++)
		if (m[i] * p >= v * (1 - 1e-12))
			return m[i] * p;
	return 10 * p;
}

static void
y_range(const struct dash_chart *c, double *lo, double *hi)
{
	double mn = 0, mx = 0;
	int i, k;

	for (k = 0; k < c->nc; k++)
		for (i = 0; i < c->n; i++) {
			double v = c->c[k].y[i] / c->yscale;
			if (isnan(v))
				continue;
			mn = fmin(mn, v);
			mx = fmax(mx, v);
		}
	*lo = mn < 0 ? -nice_ceil(-mn) : 0;
	*hi = mx > 0 ? nice_ceil(mx) : (mn < 0 ? 0 : 1);
}

static int
column_of(const struct dash_chart *c, int dots, double t)
{
	double t0 = c->t[0], t1 = c->t[c->n - 1];

	if (!(t1 > t0) || dots <= 1)
		return 0;
	return (int)floor((t - t0) / (t1 - t0) * (dots - 1) + 0.5);
}

int
dash_chart_column(const struct dash_chart *c, int w, bool ascii, double t)
{
	int dx = ascii ? 1 : 2;

	return column_of(c, (w - DASH_CHART_YAXIS) * dx, t) / dx;
}

/* The dot row, from the top, of a value. */
static int
row_of(const struct area *a, double v)
{
	int dots = a->ch * a->dy;
	double f = (v - a->ymin) / (a->ymax - a->ymin);

	f = fmin(1, fmax(0, f));
	return dots - 1 - (int)floor(f * (dots - 1) + 0.5);
}

static void
dot(struct area *a, int col, int row, int curve)
{
	int cx = col / a->dx, cy = row / a->dy;
	size_t i;

	if (cx < 0 || cx >= a->cw || cy < 0 || cy >= a->ch)
		return;
	i = (size_t)cy * (size_t)a->cw + (size_t)cx;
	a->bits[i] |= a->dx == 2 ? braille_bit[col % 2][row % 4] : 1;
	a->who[i] = (signed char)curve;
}

/* Fill one dot column from row r0 to r1. */
static void
span(struct area *a, int col, int r0, int r1, int curve)
{
	int r, lo = r0 < r1 ? r0 : r1, hi = r0 < r1 ? r1 : r0;

	for (r = lo; r <= hi; r++)
		dot(a, col, r, curve);
}

/* The line from (c0, v0) to (c1, v1), c0 <= c1, in dot columns. */
static void
segment(struct area *a, int c0, double v0, int c1, double v1, int curve)
{
	int c;

	if (c0 == c1) {
		span(a, c0, row_of(a, v0), row_of(a, v1), curve);
		return;
	}
	for (c = c0; c <= c1; c++) {
		double fa = fmax(0, (c - 0.5 - c0) / (c1 - c0));
		double fb = fmin(1, (c + 0.5 - c0) / (c1 - c0));
		span(a, c, row_of(a, v0 + (v1 - v0) * fa),
		    row_of(a, v0 + (v1 - v0) * fb), curve);
	}
}

static void
draw_curve(struct area *a, const struct dash_chart *c, int k)
{
	int i, pc = -1, dots = a->cw * a->dx;
	double pv = NAN;

	for (i = 0; i < c->n; i++) {
		double v = c->c[k].y[i] / c->yscale;
		int col = column_of(c, dots, c->t[i]);

		if (isnan(v)) {
			pc = -1;
			continue;
		}
		if (pc < 0)
			segment(a, col, v, col, v, k);
		else
			segment(a, pc, pv, col, v, k);
		pc = col;
		pv = v;
	}
}

/* The cell's character: a braille pattern (U+2800 + bits) or the mark. */
static void
cell_text(const struct area *a, size_t i, char *buf)
{
	unsigned cp = 0x2800u + a->bits[i];

	if (a->dx == 1) {
		buf[0] = ascii_marks[a->who[i] % (int)(sizeof ascii_marks - 1)];
		buf[1] = '\0';
		return;
	}
	buf[0] = (char)(0xe0 | (cp >> 12));
	buf[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
	buf[2] = (char)(0x80 | (cp & 0x3f));
	buf[3] = '\0';
}

static void
axes(struct dash_screen *s, int x, int y, const struct area *a,
    const struct dash_chart *c)
{
	const char *vbar = s->ascii ? "|" : "\xe2\x94\x82";	/* U+2502 */
	const char *hbar = s->ascii ? "-" : "\xe2\x94\x80";	/* U+2500 */
	const char *corner = s->ascii ? "+" : "\xe2\x94\x94";	/* U+2514 */
	const char *unit;
	double secs, t0 = c->t[0], t1 = c->t[c->n - 1];
	char lab[32];
	int r, i, len;

	for (r = 0; r < a->ch; r++) {
		double v = NAN;
		if (r == 0)
			v = a->ymax;
		else if (r == a->ch - 1)
			v = a->ymin;
		else if (r == a->ch / 2 && a->ch >= 5)
			v = (a->ymax + a->ymin) / 2;
		if (!isnan(v))
			dash_putf(s, x, y + r, DASH_CHART_YAXIS - 1, DR_DIM, "%*.4g",
			    DASH_CHART_YAXIS - 1, v);
		dash_put(s, x + DASH_CHART_YAXIS - 1, y + r, 1, DR_DIM, vbar);
	}
	dash_put(s, x + DASH_CHART_YAXIS - 1, y + a->ch, 1, DR_DIM, corner);
	for (i = 0; i < a->cw; i++)
		dash_put(s, x + DASH_CHART_YAXIS + i, y + a->ch, 1, DR_DIM, hbar);
	dash_chart_time_unit(t1 > t0 ? t1 - t0 : t0, &unit, &secs);
	if (!(t1 > t0)) {	/* one time: one label */
		dash_putf(s, x + DASH_CHART_YAXIS, y + a->ch + 1, -1, DR_DIM, "%.4g %s",
		    t0 / secs, unit);
		return;
	}
	dash_putf(s, x + DASH_CHART_YAXIS, y + a->ch + 1, -1, DR_DIM, "%.4g", t0 / secs);
	len = snprintf(lab, sizeof lab, "%.3g", (t0 + t1) / 2 / secs);
	if (a->cw >= 3 * len + 4)
		dash_put(s, x + DASH_CHART_YAXIS + a->cw / 2 - len / 2, y + a->ch + 1,
		    len, DR_DIM, lab);
	len = snprintf(lab, sizeof lab, "%.4g %s", t1 / secs, unit);
	dash_put(s, x + DASH_CHART_YAXIS + a->cw - len, y + a->ch + 1, len, DR_DIM, lab);
}

static void
legend(struct dash_screen *s, int x, int y, int w, const struct dash_chart *c)
{
	int k, at = x + DASH_CHART_YAXIS;

	for (k = 0; k < c->nc && at < x + w; k++) {
		enum dash_role role = (enum dash_role)(DR_VC0 + k % DASH_VC_COLORS);
		char mark[4] = { ascii_marks[k % (int)(sizeof ascii_marks - 1)], '\0' };

		at += dash_put(s, at, y, x + w - at, role,
		    s->ascii ? mark : "\xe2\xa3\xbf");	/* U+28FF, all dots */
		at += dash_putf(s, at, y, x + w - at, DR_NORMAL, " %s  ", c->c[k].name);
	}
}

int
dash_chart_draw(struct dash_screen *s, int x, int y, int w, int h,
    const struct dash_chart *c, char **cause)
{
	struct area a;
	char buf[8];
	size_t i, ncell;
	int k;

	if (w < DASH_CHART_MIN_W || h < DASH_CHART_MIN_H) {
		*cause = xasprintf("a chart needs at least %dx%d characters, not %dx%d",
		    DASH_CHART_MIN_W, DASH_CHART_MIN_H, w, h);
		return -1;
	}
	if (c->n <= 0) {
		*cause = xasprintf("'%s' has no samples to plot", c->title);
		return -1;
	}
	memset(&a, 0, sizeof a);
	a.cw = w - DASH_CHART_YAXIS;
	a.ch = h - 4;		/* title, x axis, x labels, legend */
	a.dx = s->ascii ? 1 : 2;
	a.dy = s->ascii ? 1 : 4;
	y_range(c, &a.ymin, &a.ymax);
	ncell = (size_t)a.cw * (size_t)a.ch;
	a.bits = xcalloc(ncell, 1);
	a.who = xcalloc(ncell, 1);
	for (k = 0; k < c->nc; k++)
		draw_curve(&a, c, k);
	dash_putf(s, x, y, w, DR_TITLE, "%s%s%s%s", c->title,
	    c->yunit != NULL ? " (" : "", c->yunit != NULL ? c->yunit : "",
	    c->yunit != NULL ? ")" : "");
	axes(s, x, y + 1, &a, c);
	for (i = 0; i < ncell; i++) {
		if (a.bits[i] == 0)
			continue;
		cell_text(&a, i, buf);
		dash_put(s, x + DASH_CHART_YAXIS + (int)(i % (size_t)a.cw),
		    y + 1 + (int)(i / (size_t)a.cw), 1,
		    (enum dash_role)(DR_VC0 + a.who[i] % DASH_VC_COLORS), buf);
	}
	legend(s, x, y + h - 1, w, c);
	free(a.bits);
	free(a.who);
	return 0;
}
