/*
 * trace.c — job traces: the CSV readers, the transformations (window,
 * sample, load scaling) and the one-line summary. See trace.h for the
 * formats and the rules; trace-vcmap.c maps a trace onto a spec's VCs as
 * struct job requests; synth.c makes synthetic traces.
 *
 * The emulator's `replay` reads a file here, transforms it, and hands the
 * jobs of trace_to_jobs to the scheduler. Readers take the whole file into
 * one buffer and parse it in place: a row is split into (pointer, length)
 * fields and each field goes through the parser of its column's role, so
 * the full Philly trace (82,247 rows) loads in a few tens of milliseconds
 * with no allocation per field.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/fnv.h"
#include "core/strbuf.h"
#include "core/strmap.h"
#include "core/xmalloc.h"
#include "job/model-class.h"
#include "sim/trace.h"

/* ---------------------------------------------------------------------- */
/* Formats: one table row per format, one role per column.               */

enum col_role {
	C_ID,		/* job_id: the job's name, unique */
	C_DATE,		/* "YYYY-MM-DD HH:MM:SS" UTC submission time */
	C_SUBMIT,	/* submission time, seconds */
	C_DURATION,	/* seconds */
	C_GPUS,		/* whole number >= 1 */
	C_VC,		/* the trace's VC */
	C_MODEL,	/* a model_table name */
	C_NUMBER,	/* a number >= 0 the emulator does not use */
};

#define MAX_COLS 8

struct col_def {
	const char	*name;
	enum col_role	 role;
};

struct fmt_def {
	enum trace_format	 format;
	const char		*name;
	int			 ncols;
	struct col_def		 cols[MAX_COLS];
};

static const struct fmt_def formats[] = {
	{ TRACE_PHILLY, "philly", 5, {
		{ "timestamp", C_DATE }, { "duration", C_DURATION },
		{ "num_gpus", C_GPUS }, { "gpu_time", C_NUMBER },
		{ "cluster", C_VC } } },
	{ TRACE_ITP, "itp", 4, {
		{ "job_id", C_ID }, { "submission_time", C_SUBMIT },
		{ "duration", C_DURATION }, { "num_gpu", C_GPUS } } },
	{ TRACE_TIRESIAS, "tiresias", 7, {
		{ "job_id", C_ID }, { "num_gpu", C_GPUS },
		{ "submit_time", C_SUBMIT }, { "iterations", C_NUMBER },
		{ "model_name", C_MODEL }, { "duration", C_DURATION },
		{ "interval", C_NUMBER } } },
};
#define NFORMATS ((int)(sizeof formats / sizeof formats[0]))

/* Optional columns any format may end with, named by the header, each at
   most once, in any order: the most GPUs an elastic job may grow to
   (Gandiva's grow-shrink), the job's priority and time-slice weight
   (gandiva's tiers and weighted round robin; priority policies), and its
   own class (AntMan: a user forcing guaranteed or opportunistic), and its
   own affinity (HiveD §2: hard waits for its pods as shaped, soft may
   relax them). */
enum opt_col { O_GPUS_MAX, O_PRIORITY, O_WEIGHT, O_CLASS, O_AFFINITY, NOPT };
static const char *const opt_names[NOPT] = {
	[O_GPUS_MAX] = "gpus_max", [O_PRIORITY] = "priority", [O_WEIGHT] = "weight",
	[O_CLASS] = "class", [O_AFFINITY] = "affinity",
};


static const char *const format_names[] = {
	[TRACE_PHILLY] = "philly", [TRACE_ITP] = "itp",
	[TRACE_TIRESIAS] = "tiresias", [TRACE_SYNTH] = "synth",
};

const char *
trace_format_name(enum trace_format f)
{
	if (f == TRACE_AUTO)
		return "auto";
	if ((unsigned)f < sizeof format_names / sizeof format_names[0])
		return format_names[f];
	return "?";
}

int
trace_format_parse(const char *name)
{
	size_t i;

	if (strcasecmp(name, "auto") == 0)
		return TRACE_AUTO;
	for (i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
		if (strcasecmp(name, format_names[i]) == 0)
			return (int)i;
	return -2;
}

static const struct fmt_def *
fmt_def(enum trace_format f)
{
	int i;

	for (i = 0; i < NFORMATS; i++)
		if (formats[i].format == f)
			return &formats[i];
	return NULL;
}

/* ---------------------------------------------------------------------- */
/* Fields and their parsers.                                              */

struct field {
	const char	*s;
	int		 len;
	int		 col;	/* 1-based column of the field's first byte */
};

/* Append a field quoted for a message: control bytes escaped, cut at 40. */
static void
add_quoted(struct strbuf *sb, const char *s, int len)
{
	int i, max = len > 40 ? 37 : len;

	strbuf_addc(sb, '\'');
	for (i = 0; i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			strbuf_addf(sb, "\\x%02x", c);
		else
			strbuf_addc(sb, (char)c);
	}
	if (max < len)
		strbuf_adds(sb, "...");
	strbuf_addc(sb, '\'');
}

static bool
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Trim blanks and one pair of enclosing double quotes. */
static void
field_trim(struct field *f)
{
	while (f->len > 0 && is_blank(f->s[0])) {
		f->s++;
		f->len--;
		f->col++;
	}
	while (f->len > 0 && is_blank(f->s[f->len - 1]))
		f->len--;
	if (f->len >= 2 && f->s[0] == '"' && f->s[f->len - 1] == '"') {
		f->s++;
		f->len -= 2;
		f->col++;
	}
}

/*
 * Split [p, e) at commas into at most max fields; returns the number of
 * fields the line has (which may be more than max).
 */
static int
split(const char *p, const char *e, struct field *f, int max)
{
	const char *start = p, *q;
	int n = 0;

	for (;;) {
		q = memchr(p, ',', (size_t)(e - p));
		if (q == NULL)
			q = e;
		if (n < max) {
			f[n].s = p;
			f[n].len = (int)(q - p);
			f[n].col = (int)(p - start) + 1;
			field_trim(&f[n]);
		}
		n++;
		if (q == e)
			return n;
		p = q + 1;
	}
}

static double
pow10i(int e)
{
	static const double p[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
		1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};

	if (e >= 0 && e <= 22)
		return p[e];
	return pow(10.0, e);
}

/*
 * A decimal number: [+-]digits[.digits][(e|E)[+-]digits], or .digits.
 * No locale, no NUL needed; nan and inf are not numbers here.
 */
static int
parse_num(const char *s, int len, double *out)
{
	const char *e = s + len;
	uint64_t m = 0;
	int exp = 0, digits = 0, x = 0, xs = 1, xd = 0;
	bool neg = false;
	double v;

	if (s < e && (*s == '+' || *s == '-'))
		neg = *s++ == '-';
	for (; s < e && *s >= '0' && *s <= '9'; s++, digits++) {
		if (m < 1000000000000000000ULL)
			m = m * 10 + (uint64_t)(*s - '0');
		else
			exp++;
	}
	if (s < e && *s == '.') {
		for (s++; s < e && *s >= '0' && *s <= '9'; s++, digits++) {
			if (m < 1000000000000000000ULL) {
				m = m * 10 + (uint64_t)(*s - '0');
				exp--;
			}
		}
	}
	if (digits == 0)
		return -1;
	if (s < e && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < e && (*s == '+' || *s == '-'))
			xs = *s++ == '-' ? -1 : 1;
		for (; s < e && *s >= '0' && *s <= '9'; s++, xd++)
			if (x < 10000)
				x = x * 10 + (*s - '0');
		if (xd == 0)
			return -1;
		exp += xs * x;
	}
	if (s != e)
		return -1;
	v = (double)m;
	if (m != 0)
		v = exp < 0 ? v / pow10i(-exp) : v * pow10i(exp);
	*out = neg ? -v : v;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static long long
days_from_civil(int y, int m, int d)
{
	int era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (long long)era * 146097 + doe - 719468;
}

static int
days_in_month(int y, int m)
{
	static const int dm[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return 29;
	return dm[m - 1];
}

/* The number of n digits at s, or -1. */
static int
digits(const char *s, int n)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * "YYYY-MM-DD HH:MM:SS" (or 'T' between) as UTC seconds since 1970,
 * computed from the civil date: no libc time function, no time zone.
 */
static int
parse_date(const char *s, int len, double *out)
{
	int y, mo, d, h, mi, se;

	if (len != 19 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':')
		return -1;
	y = digits(s, 4);
	mo = digits(s + 5, 2);
	d = digits(s + 8, 2);
	h = digits(s + 11, 2);
	mi = digits(s + 14, 2);
	se = digits(s + 17, 2);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
	    h < 0 || h > 23 || mi < 0 || mi > 59 || se < 0 || se > 59)
		return -1;
	*out = (double)(days_from_civil(y, mo, d) * 86400LL + h * 3600 + mi * 60 + se);
	return 0;
}

/* ---------------------------------------------------------------------- */
/* The reader.                                                            */

struct reader {
	const char		*name;		/* for messages */
	const char		*base;		/* basename without extension */
	int			 baselen;
	const struct fmt_def	*fmt;
	struct strmap		 ids;		/* job_id -> line (borrowed keys) */
	char			**cause;
	enum opt_col		 opt[NOPT];	/* the header's optional columns */
	int			 nopt;
};

/* Set *cause to "name:line:col: " + the message; returns -1. */
static int __attribute__((format(printf, 4, 5)))
rd_err(struct reader *r, int line, int col, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "%s:%d:%d: ", r->name, line, col);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	*r->cause = strbuf_detach(&sb, NULL);
	return -1;
}

/* The same with a quoted field after a prefix and a suffix message. */
static int
rd_err_field(struct reader *r, int line, const struct field *f, const char *pre,
    const char *post)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, pre);
	add_quoted(&sb, f->s, f->len);
	strbuf_adds(&sb, post);
	rd_err(r, line, f->col, "%s", sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* A number >= 0 and <= TRACE_MAX_TIME in column col. */
static int
rd_time(struct reader *r, int line, const struct field *f, const char *col, double *out)
{
	const char *why;
	char pre[64];

	if (f->len == 0)
		return rd_err(r, line, f->col, "empty %s", col);
	if (parse_num(f->s, f->len, out) < 0)
		why = " is not a number";
	else if (*out < 0)
		why = " is negative";
	else if (*out > TRACE_MAX_TIME)
		why = " is too large";
	else
		return 0;
	bufprintf(pre, sizeof pre, "%s ", col);
	return rd_err_field(r, line, f, pre, why);
}

static int
rd_gpus(struct reader *r, int line, const struct field *f, const char *col, int *out)
{
	char pre[64], post[64];
	double v;

	if (f->len == 0)
		return rd_err(r, line, f->col, "empty %s", col);
	if (parse_num(f->s, f->len, &v) < 0 || v < 1 || v != floor(v)) {
		bufprintf(pre, sizeof pre, "%s must be a whole number >= 1, not ", col);
		return rd_err_field(r, line, f, pre, "");
	}
	if (v > TRACE_MAX_GPUS) {
		bufprintf(pre, sizeof pre, "%s ", col);
		bufprintf(post, sizeof post, " is more than %d", TRACE_MAX_GPUS);
		return rd_err_field(r, line, f, pre, post);
	}
	*out = (int)v;
	return 0;
}

/* Copy a name field (job_id, cluster) into dst of size n. */
static int
rd_name(struct reader *r, int line, const struct field *f, const char *col,
    char *dst, size_t n)
{
	char post[64];
	int i;

	if (f->len == 0)
		return rd_err(r, line, f->col, "empty %s", col);
	if ((size_t)f->len >= n) {
		bufprintf(post, sizeof post, " is longer than %zu bytes", n - 1);
		return rd_err_field(r, line, f, "", post);
	}
	for (i = 0; i < f->len; i++)
		if ((unsigned char)f->s[i] < 0x20 || f->s[i] == '\x7f')
			return rd_err_field(r, line, f, "", " contains a control character");
	memcpy(dst, f->s, (size_t)f->len);
	dst[f->len] = '\0';
	return 0;
}

/* Write "<base>-<line>" fast: this runs once per Philly row. */
static void
line_name(const struct reader *r, int line, char *dst)
{
	char num[16];
	int n = 0, b = r->baselen;

	do {
		num[n++] = (char)('0' + line % 10);
		line /= 10;
	} while (line > 0);
	if (b > JOB_NAME_MAX - 2 - n)
		b = JOB_NAME_MAX - 2 - n;
	memcpy(dst, r->base, (size_t)b);
	dst[b++] = '-';
	while (n > 0)
		dst[b++] = num[--n];
	dst[b] = '\0';
}


static int
rd_model(struct reader *r, int line, const struct field *f, int *model)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[32];
	int i;

	*model = -1;
	if (f->len > 0 && (size_t)f->len < sizeof buf) {
		memcpy(buf, f->s, (size_t)f->len);
		buf[f->len] = '\0';
		*model = model_find(buf);
	}
	if (*model >= 0)
		return 0;
	strbuf_adds(&sb, " (known:");
	for (i = 0; i < model_count; i++)
		strbuf_addf(&sb, " %s", model_table[i].name);
	strbuf_addc(&sb, ')');
	rd_err_field(r, line, f, "unknown model_name ", sb.buf);
	strbuf_release(&sb);
	return -1;
}

static int
rd_id(struct reader *r, int line, const struct field *f, const char *col, char *name)
{
	char post[64];
	int first;

	if (rd_name(r, line, f, col, name, JOB_NAME_MAX) < 0)
		return -1;
	/* name is the job's own field, which outlives the reader */
	if ((first = strmap_put(&r->ids, name, line)) >= 0) {
		bufprintf(post, sizeof post, " (first at line %d)", first);
		return rd_err_field(r, line, f, "duplicate job_id ", post);
	}
	return 0;
}

/* Parse one field by its column's role; the submission time goes to *when. */
static int
rd_field(struct reader *r, int line, const struct field *f, const struct col_def *c,
    struct trace_job *j, double *when)
{
	double v;

	switch (c->role) {
	case C_ID:
		return rd_id(r, line, f, c->name, j->name);
	case C_DATE:
		if (parse_date(f->s, f->len, when) < 0)
			return rd_err_field(r, line, f, "timestamp ",
			    " is not a date and time 'YYYY-MM-DD HH:MM:SS' (UTC, 1970 or later)");
		return 0;
	case C_SUBMIT:
		return rd_time(r, line, f, c->name, when);
	case C_DURATION:
		return rd_time(r, line, f, c->name, &j->duration);
	case C_GPUS:
		return rd_gpus(r, line, f, c->name, &j->gpus);
	case C_VC:
		return rd_name(r, line, f, c->name, j->vc, sizeof j->vc);
	case C_MODEL:
		return rd_model(r, line, f, &j->model);
	case C_NUMBER:
		return rd_time(r, line, f, c->name, &v);
	}
	return 0;
}

/* A whole number in [lo, hi] in column col. */
static int
rd_int(struct reader *r, int line, const struct field *f, const char *col, int lo,
    int hi, int *out)
{
	char pre[96];
	double v;

	if (f->len == 0)
		return rd_err(r, line, f->col, "empty %s", col);
	if (parse_num(f->s, f->len, &v) < 0 || v != floor(v) || v < lo || v > hi) {
		bufprintf(pre, sizeof pre, "%s must be a whole number from %d to %d, not ",
		    col, lo, hi);
		return rd_err_field(r, line, f, pre, "");
	}
	*out = (int)v;
	return 0;
}

/* A job class in column class, as --class takes it (any case): 1 + class;
   an empty field gives none (0), so one trace can force some jobs and leave
   the rest to --class or the policy's default. */
static int
rd_class(struct reader *r, int line, const struct field *f, int *out)
{
	char buf[32];
	int v = -1;

	if (f->len == 0) {	/* none of its own: the run's applies */
		*out = 0;
		return 0;
	}
	if (f->len < (int)sizeof buf) {
		memcpy(buf, f->s, f->len);
		buf[f->len] = '\0';
		v = job_class_parse(buf);
	}
	if (v < 0)
		return rd_err_field(r, line, f, "class ",
		    " is not guaranteed, opportunistic or auto");
	*out = v + 1;
	return 0;
}

/* One optional column's field into j (after the format's columns). */
static int
rd_opt(struct reader *r, int line, const struct field *f, enum opt_col o,
    struct trace_job *j)
{
	switch (o) {
	case O_GPUS_MAX:
		if (rd_gpus(r, line, f, opt_names[o], &j->gpus_max) < 0)
			return -1;
		if (j->gpus_max < j->gpus)
			return rd_err(r, line, f->col, "gpus_max %d is below "
			    "the job's %d GPUs", j->gpus_max, j->gpus);
		return 0;
	case O_PRIORITY:
		return rd_int(r, line, f, opt_names[o], 0, TRACE_MAX_PRIORITY,
		    &j->priority);
	case O_WEIGHT:
		return rd_int(r, line, f, opt_names[o], 1, TRACE_MAX_WEIGHT, &j->weight);
	case O_CLASS:
		return rd_class(r, line, f, &j->klass);
	case O_AFFINITY:	/* empty: the run's --affinity applies */
		j->affinity = f->len == 0 ? 0 : (f->len == 4 &&
		    strncasecmp(f->s, "hard", 4) == 0) ? 1 : (f->len == 4 &&
		    strncasecmp(f->s, "soft", 4) == 0) ? 2 : -1;
		if (j->affinity < 0)
			return rd_err_field(r, line, f, "affinity ", " is not hard or soft");
		return 0;
	case NOPT:
		break;
	}
	return 0;
}

/* One data row [p, e) into j. */
static int
rd_row(struct reader *r, int line, const char *p, const char *e, struct trace_job *j)
{
	const struct fmt_def *d = r->fmt;
	struct field f[MAX_COLS + NOPT + 1];
	double when = 0;
	int n, c, want = d->ncols + r->nopt;

	n = split(p, e, f, MAX_COLS + NOPT + 1);
	if (n < want)
		return rd_err(r, line, (int)(e - p) + 1, "missing column '%s': %d of %d "
		    "columns of a %s row", n < d->ncols ? d->cols[n].name :
		    opt_names[r->opt[n - d->ncols]], n, want, d->name);
	if (n > want)
		return rd_err(r, line, f[want].col, "extra column: %d columns, a %s "
		    "row has %d", n, d->name, want);
	j->model = -1;
	j->gpus_max = 0;
	j->priority = 0;
	j->weight = 0;
	j->klass = 0;
	j->affinity = 0;
	for (c = 0; c < d->ncols; c++)
		if (rd_field(r, line, &f[c], &d->cols[c], j, &when) < 0)
			return -1;
	for (c = 0; c < r->nopt; c++)
		if (rd_opt(r, line, &f[d->ncols + c], r->opt[c], j) < 0)
			return -1;
	if (j->name[0] == '\0')
		line_name(r, line, j->name);
	j->submit = when;
	j->line = line;
	return 0;
}

static bool
field_is(const struct field *f, const char *name)
{
	return (size_t)f->len == strlen(name) &&
	    strncasecmp(f->s, name, (size_t)f->len) == 0;
}

/*
 * Does [p, e) hold exactly the column names of d, then optional columns
 * (each at most once)? Those go to opt[*nopt] when opt is not NULL.
 */
static bool
is_header(const struct fmt_def *d, const char *p, const char *e, enum opt_col *opt,
    int *nopt)
{
	struct field f[MAX_COLS + NOPT + 1];
	int n = split(p, e, f, MAX_COLS + NOPT + 1), c, o;
	unsigned seen = 0;

	if (n < d->ncols || n > d->ncols + NOPT)
		return false;
	for (c = 0; c < d->ncols; c++)
		if (!field_is(&f[c], d->cols[c].name))
			return false;
	for (; c < n; c++) {
		for (o = 0; o < NOPT && !field_is(&f[c], opt_names[o]); o++)
			continue;
		if (o == NOPT || (seen & (1u << o)) != 0)
			return false;
		seen |= 1u << o;
		if (opt != NULL)
			opt[c - d->ncols] = (enum opt_col)o;
	}
	if (nopt != NULL)
		*nopt = n - d->ncols;
	return true;
}

/*
 * The next line from *pp: [*ls, *le) without "\n" and a trailing '\r'.
 * Returns false at the end of the text.
 */
static bool
next_line(const char **pp, const char *end, const char **ls, const char **le)
{
	const char *p = *pp, *q;

	if (p >= end)
		return false;
	q = memchr(p, '\n', (size_t)(end - p));
	*ls = p;
	*pp = q != NULL ? q + 1 : end;
	if (q == NULL)
		q = end;
	if (q > p && q[-1] == '\r')
		q--;
	*le = q;
	return true;
}

static bool
is_blank_line(const char *p, const char *e)
{
	for (; p < e; p++)
		if (!is_blank(*p))
			return false;
	return true;
}

static int
unknown_header(struct reader *r, int line, const char *p, const char *e)
{
	struct strbuf sb = STRBUF_INIT;
	struct field f;
	int i, c;

	f.s = p;
	f.len = (int)(e - p);
	f.col = 1;
	strbuf_adds(&sb, " is not a trace header (");
	for (i = 0; i < NFORMATS; i++) {
		strbuf_addf(&sb, "%s%s '", i ? "; " : "", formats[i].name);
		for (c = 0; c < formats[i].ncols; c++)
			strbuf_addf(&sb, "%s%s", c ? "," : "", formats[i].cols[c].name);
		strbuf_addc(&sb, '\'');
	}
	strbuf_adds(&sb, "; then optionally");
	for (i = 0; i < NOPT; i++)
		strbuf_addf(&sb, "%s%s", i ? ", " : " ", opt_names[i]);
	strbuf_addc(&sb, ')');
	if (f.len >= 8 && strncasecmp(p, "duration", 8) == 0 && is_blank_line(p + 8, e))
		strbuf_adds(&sb, "; a one-column 'duration' file is a service-time sample");
	rd_err_field(r, line, &f, "header ", sb.buf);
	strbuf_release(&sb);
	return -1;
}

struct sortkey {
	double	submit;
	int	idx;
};

static int
cmp_sortkey(const void *a, const void *b)
{
	const struct sortkey *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Sort by (submit, line) — rows are in line order, so by (submit, index). */
static void
sort_jobs(struct trace *t)
{
	struct sortkey *k;
	struct trace_job *sorted;
	int i;

	for (i = 1; i < t->njobs; i++)
		if (t->jobs[i].submit < t->jobs[i - 1].submit)
			break;
	if (i >= t->njobs)
		return;
	k = xreallocarray(NULL, (size_t)t->njobs, sizeof *k);
	for (i = 0; i < t->njobs; i++) {
		k[i].submit = t->jobs[i].submit;
		k[i].idx = i;
	}
	qsort(k, (size_t)t->njobs, sizeof *k, cmp_sortkey);
	sorted = xreallocarray(NULL, (size_t)t->njobs, sizeof *sorted);
	for (i = 0; i < t->njobs; i++)
		sorted[i] = t->jobs[k[i].idx];
	free(t->jobs);
	t->jobs = sorted;
	free(k);
}

/* Shift times so the first job is at 0; epoch keeps the original origin. */
static void
rebase(struct trace *t)
{
	double d;
	int i;

	if (t->njobs == 0)
		return;
	d = t->jobs[0].submit;
	if (d == 0)
		return;
	for (i = 0; i < t->njobs; i++)
		t->jobs[i].submit -= d;
	t->epoch += d;
}

static void
reader_init(struct reader *r, const char *name, char **cause)
{
	const char *b = strrchr(name, '/'), *dot;

	memset(r, 0, sizeof *r);
	r->name = name;
	r->base = b != NULL ? b + 1 : name;
	dot = strrchr(r->base, '.');
	r->baselen = dot != NULL && dot > r->base ? (int)(dot - r->base) :
	    (int)strlen(r->base);
	if (r->baselen == 0) {
		r->base = "job";
		r->baselen = 3;
	}
	r->cause = cause;
}

/* Find the header (first non-blank line) and the format; *pp moves past it. */
static int
rd_header(struct reader *r, enum trace_format fmt, const char **pp, const char *end,
    int *line)
{
	const char *p = *pp, *ls, *le;
	int i;

	for (;;) {
		if (!next_line(&p, end, &ls, &le))
			return rd_err(r, 1, 1, "empty file: no header line");
		(*line)++;
		if (!is_blank_line(ls, le))
			break;
	}
	if (fmt == TRACE_AUTO) {
		for (i = 0; i < NFORMATS; i++)
			if (is_header(&formats[i], ls, le, r->opt, &r->nopt))
				break;
		if (i == NFORMATS)
			return unknown_header(r, *line, ls, le);
		r->fmt = &formats[i];
		*pp = p;
		return 0;
	}
	r->fmt = fmt_def(fmt);
	if (r->fmt == NULL)
		return rd_err(r, 1, 1, "cannot read a trace of format '%s' from a file",
		    trace_format_name(fmt));
	if (is_header(r->fmt, ls, le, r->opt, &r->nopt)) {
		*pp = p;
	} else {
		*pp = ls;	/* headerless: the line is data */
		(*line)--;
	}
	return 0;
}

static bool
has_role(const struct fmt_def *d, enum col_role role)
{
	int c;

	for (c = 0; c < d->ncols; c++)
		if (d->cols[c].role == role)
			return true;
	return false;
}

/* The rows that bound the trace's span: the first submission, the last end. */
struct span {
	double	 first, last_end;
	int	 first_line, last_line;
};

static void
span_row(struct span *sp, int line, const struct trace_job *j)
{
	double e = j->submit + j->duration;

	if (sp->first_line == 0 || j->submit < sp->first) {
		sp->first = j->submit;
		sp->first_line = line;
	}
	if (sp->last_line == 0 || e > sp->last_end) {
		sp->last_end = e;
		sp->last_line = line;
	}
}

int
trace_load_string(const char *name, const char *text, size_t len, enum trace_format fmt,
    struct trace *t, char **cause)
{
	struct reader r;
	struct span sp = { 0, 0, 0, 0 };
	const char *p = text, *end = text + len, *q, *ls, *le;
	size_t cap = 1;
	int line = 0, n = 0, rc = -1;

	memset(t, 0, sizeof *t);
	reader_init(&r, name, cause);
	if (rd_header(&r, fmt, &p, end, &line) < 0)
		return -1;
	for (q = p; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
		cap++;
	if (cap > TRACE_MAX_JOBS)
		return rd_err(&r, line + 1, 1, "more than %d rows", TRACE_MAX_JOBS);
	t->jobs = xcalloc(cap, sizeof *t->jobs);
	strmap_init(&r.ids, STRMAP_BORROW);
	/*
	 * A table even without ids: measured, without this small allocation
	 * malloc gives the job array's pages back between loads and
	 * bench-trace's Philly load took 30 ms instead of 18.
	 */
	strmap_reserve(&r.ids, has_role(r.fmt, C_ID) ? cap : 1);
	while (next_line(&p, end, &ls, &le)) {
		line++;
		if (is_blank_line(ls, le))
			continue;
		if (rd_row(&r, line, ls, le, &t->jobs[n]) < 0)
			goto out;
		span_row(&sp, line, &t->jobs[n]);
		n++;
	}
	if (n == 0) {
		rd_err(&r, line + 1, 1, "no jobs after the header");
		goto out;
	}
	if (sp.last_end - sp.first > TRACE_MAX_SPAN) {
		rd_err(&r, sp.last_line, 1, "the trace would span %.1f years, from "
		    "its first submission (line %d) to this job's end; a trace may "
		    "span at most %.0f years (a wrong date or time unit?)",
		    (sp.last_end - sp.first) / (365.25 * 86400), sp.first_line,
		    TRACE_MAX_SPAN / (365.25 * 86400));
		goto out;
	}
	t->njobs = n;
	t->format = r.fmt->format;
	t->path = xstrdup(name);
	sort_jobs(t);
	rebase(t);
	rc = 0;
out:
	strmap_release(&r.ids);
	if (rc < 0) {
		free(t->jobs);
		memset(t, 0, sizeof *t);
	}
	return rc;
}

/* The whole file in one malloc'ed buffer, sized from fstat when it can be. */
static char *
read_file(const char *path, size_t *lenp, char **cause)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t len = 0, cap = 1 << 16, got;
	char *buf;

	if (f == NULL) {
		*cause = xasprintf("cannot open trace '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	buf = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		*cause = xasprintf("cannot read trace '%s': %s", path, strerror(errno));
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	*lenp = len;
	return buf;
}

int
trace_load(const char *path, enum trace_format fmt, struct trace *t, char **cause)
{
	size_t len;
	char *text;
	int rc;

	memset(t, 0, sizeof *t);
	if ((text = read_file(path, &len, cause)) == NULL)
		return -1;
	rc = trace_load_string(path, text, len, fmt, t, cause);
	free(text);
	return rc;
}

void
trace_release(struct trace *t)
{
	free(t->path);
	free(t->jobs);
	memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------- */
/* Summary.                                                               */

/* A duration for people: seconds, minutes, hours or days. */
static void
add_dur(struct strbuf *sb, double s)
{
	if (s < 120)
		strbuf_addf(sb, "%.0f s", s);
	else if (s < 2 * 3600)
		strbuf_addf(sb, "%.1f min", s / 60);
	else if (s < 2 * 86400)
		strbuf_addf(sb, "%.1f h", s / 3600);
	else
		strbuf_addf(sb, "%.1f days", s / 86400);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Distinct non-empty VC names. */
static int
count_vcs(const struct trace *t)
{
	struct strmap st = STRMAP_INIT(STRMAP_BORROW);
	int i, n;

	for (i = 0; i < t->njobs; i++)
		if (t->jobs[i].vc[0] != '\0')
			strmap_put(&st, t->jobs[i].vc, 1);
	n = (int)strmap_count(&st);
	strmap_release(&st);
	return n;
}

void
trace_summary(const struct trace *t, struct strbuf *sb)
{
	double *d, gsum = 0, work = 0, span;
	int i, gmin = 0, gmax = 0, nvc, given = 0, n = t->njobs;

	strbuf_addf(sb, "%s '%s': %d jobs", trace_format_name(t->format),
	    t->path != NULL ? t->path : "", n);
	if (n == 0)
		return;
	d = xreallocarray(NULL, (size_t)n, sizeof *d);
	for (i = 0; i < n; i++) {
		const struct trace_job *j = &t->jobs[i];
		d[i] = j->duration;
		gsum += j->gpus;
		work += j->gpus * j->duration;
		if (i == 0 || j->gpus < gmin)
			gmin = j->gpus;
		if (j->gpus > gmax)
			gmax = j->gpus;
		given += j->model >= 0;
	}
	qsort(d, (size_t)n, sizeof *d, cmp_double);
	nvc = count_vcs(t);
	span = t->jobs[n - 1].submit;
	if (nvc > 0)
		strbuf_addf(sb, ", %d VC%s", nvc, nvc == 1 ? "" : "s");
	else
		strbuf_adds(sb, ", no VCs");
	strbuf_adds(sb, ", submitted over ");
	add_dur(sb, span);
	strbuf_addf(sb, ", gpus %d-%d (mean %.2f), duration median ", gmin, gmax, gsum / n);
	add_dur(sb, d[n / 2]);
	strbuf_adds(sb, " p95 ");
	add_dur(sb, d[(size_t)((n - 1) * 0.95)]);
	strbuf_adds(sb, " max ");
	add_dur(sb, d[n - 1]);
	strbuf_addf(sb, ", %.0f gpu-hours", work / 3600);
	if (span > 0)
		strbuf_addf(sb, ", mean demand %.1f gpus", work / span);
	strbuf_addf(sb, ", models %s", given == n ? "from the trace" : given == 0 ?
	    "by name hash" : "partly given");
	free(d);
}

/* ---------------------------------------------------------------------- */
/* Transformations.                                                       */

/* Keep the jobs marked in keep[]; an empty result leaves t as it was. */
static int
keep_jobs(struct trace *t, const bool *keep)
{
	int i, n = 0;

	for (i = 0; i < t->njobs; i++)
		n += keep[i];
	if (n == 0)
		return -1;
	n = 0;
	for (i = 0; i < t->njobs; i++)
		if (keep[i])
			t->jobs[n++] = t->jobs[i];
	t->njobs = n;
	rebase(t);
	return 0;
}

int
trace_window(struct trace *t, double from, double to, char **cause)
{
	bool *keep;
	int i, rc;

	if (isnan(from) || isnan(to) || !(from < to)) {
		*cause = xasprintf("bad window [%g, %g): it must start before it ends", from, to);
		return -1;
	}
	keep = xcalloc((size_t)t->njobs + 1, sizeof *keep);
	for (i = 0; i < t->njobs; i++)
		keep[i] = t->jobs[i].submit >= from && t->jobs[i].submit < to;
	rc = keep_jobs(t, keep);
	free(keep);
	if (rc < 0)
		*cause = xasprintf("window [%g, %g) s holds no job of trace '%s' "
		    "(submissions span 0-%g s)", from, to, t->path ? t->path : "",
		    t->njobs ? t->jobs[t->njobs - 1].submit : 0.0);
	return rc;
}

/*
 * A job name's hash for sampling. Its basis, a digit short of FNV's, is
 * the one sampling has always used: kept, so a seed samples the same jobs.
 */
static uint64_t
name_hash(const char *s)
{
	uint64_t h = fnv1a64_add_str(1469598103934665603ULL, s);

	return h ^ (h >> 29);
}

static uint64_t
mix64(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int
trace_sample(struct trace *t, double fraction, uint64_t seed, char **cause)
{
	/* a salt of its own, so sampling and model_hash choices are independent */
	uint64_t s = mix64(seed ^ 0x73616d706c65ULL);
	bool *keep;
	int i, rc;

	if (!(fraction > 0 && fraction <= 1)) {
		*cause = xasprintf("sample fraction %g must be in (0, 1]", fraction);
		return -1;
	}
	keep = xcalloc((size_t)t->njobs + 1, sizeof *keep);
	for (i = 0; i < t->njobs; i++)
		keep[i] = (double)(mix64(name_hash(t->jobs[i].name) ^ s) >> 11) /
		    9007199254740992.0 < fraction;
	rc = keep_jobs(t, keep);
	free(keep);
	if (rc < 0)
		*cause = xasprintf("sampling %g of trace '%s' (%d jobs) kept no job",
		    fraction, t->path ? t->path : "", t->njobs);
	return rc;
}

int
trace_scale_load(struct trace *t, double x, char **cause)
{
	int i;

	if (!(x > 0 && x < 1e9)) {
		*cause = xasprintf("load factor %g must be > 0", x);
		return -1;
	}
	for (i = 0; i < t->njobs; i++)
		t->jobs[i].submit /= x;
	return 0;
}
