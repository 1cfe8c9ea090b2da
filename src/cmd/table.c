/*
 * table.c — output formats and the table writer (see table.h). Every
 * listing command fills a table and renders it here, so alignment, csv
 * quoting, "-o name", wide columns and colour are decided in one place.
 * Sorting and filtering live next door, in table-query.c.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/table-int.h"
#include "core/xmalloc.h"

static const char *const format_names[OUT_NFORMATS] = {
	[OUT_TABLE] = "table",
	[OUT_WIDE] = "wide",
	[OUT_JSON] = "json",
	[OUT_NAME] = "name",
	[OUT_CSV] = "csv",
};

/* The theme: one place maps roles to terminal attributes (after htop). */
static const char *const role_sgr[] = {
	[ROLE_NONE] = "",
	[ROLE_OK] = "\033[32m",
	[ROLE_BUSY] = "\033[36m",
	[ROLE_WARN] = "\033[33m",
	[ROLE_BAD] = "\033[1;31m",
	[ROLE_DIM] = "\033[2m",
	[ROLE_HEADER] = "\033[1m",
};

int
out_format_parse(const char *name)
{
	int f;

	for (f = 0; f < OUT_NFORMATS; f++)
		if (strcmp(name, format_names[f]) == 0)
			return f;
	return -1;
}

const char *
out_format_name(enum out_format f)
{
	return (unsigned)f < OUT_NFORMATS ? format_names[f] : "?";
}

void
out_format_list(struct strbuf *sb, unsigned mask)
{
	bool first = true;
	int f;

	/* wide goes wherever table does (cmd_check_format agrees). */
	if (mask & OUT_MASK(OUT_TABLE))
		mask |= OUT_MASK(OUT_WIDE);
	for (f = 0; f < OUT_NFORMATS; f++)
		if (mask & OUT_MASK(f)) {
			strbuf_addf(sb, "%s%s", first ? "" : ", ", format_names[f]);
			first = false;
		}
}

const char *
table_role_sgr(enum table_role role)
{
	return (unsigned)role < sizeof role_sgr / sizeof role_sgr[0] ?
	    role_sgr[role] : "";
}

struct table *
table_create(void)
{
	return xcalloc(1, sizeof(struct table));
}

void
table_free(struct table *t)
{
	size_t r;
	int c;

	if (t == NULL)
		return;
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->rows[r].n; c++)
			free(t->rows[r].cells[c].text);
		free(t->rows[r].cells);
	}
	free(t->rows);
	free(t->cols);
	free(t);
}

void
table_column(struct table *t, const char *header, const char *key, unsigned flags)
{
	if (t->nrows > 0)
		fatal("table_column after the first row");
	XGROW(t->cols, t->colcap, (size_t)t->ncols + 1);
	t->cols[t->ncols].header = header;
	t->cols[t->ncols].key = key;
	/* Numbers are right-aligned; saying TABLE_NUM is enough. */
	t->cols[t->ncols].flags = flags & TABLE_NUM ? flags | TABLE_RIGHT : flags;
	t->ncols++;
}

void
table_columns(struct table *t, const struct table_colspec *cols)
{
	for (; cols->header != NULL; cols++)
		table_column(t, cols->header, cols->key, cols->flags);
}

void
table_row(struct table *t)
{
	XGROW(t->rows, t->rowcap, t->nrows + 1);
	t->rows[t->nrows].cells = xcalloc((size_t)t->ncols, sizeof(struct table_cellv));
	t->rows[t->nrows].n = 0;
	t->rows[t->nrows].indent = 0;
	t->rows[t->nrows].tag = -1;
	t->nrows++;
}

void
table_row_tag(struct table *t, long tag)
{
	if (t->nrows == 0)
		fatal("table_row_tag without a row");
	t->rows[t->nrows - 1].tag = tag;
}

long
table_tag(const struct table *t, size_t r)
{
	if (r >= t->nrows)
		fatal("table_tag: row %zu of %zu", r, t->nrows);
	return t->rows[r].tag;
}

void
table_indent(struct table *t, int n)
{
	if (t->nrows == 0)
		fatal("table_indent without a row");
	t->rows[t->nrows - 1].indent = n;
}

/* v in decimal, into num (24 bytes); returns where it starts. */
static const char *
fmt_lld(char *num, long long v)
{
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	char *p = num + 23;

	*p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	return p;
}

static void
table_vcell(struct table *t, enum table_role role, const char *fmt, va_list ap)
{
	struct table_rowv *row;
	struct strbuf sb = STRBUF_INIT;

	if (t->nrows == 0)
		fatal("table_cell without a row");
	row = &t->rows[t->nrows - 1];
	if (row->n >= t->ncols)	/* invariant 1 */
		fatal("table_cell: more cells than columns");
	/* most cells are one string or a number: no printf for those */
	if (strcmp(fmt, "%s") == 0) {
		const char *v = va_arg(ap, const char *);

		row->cells[row->n].text = xstrdup(v != NULL ? v : "(null)");
	} else if (strcmp(fmt, "%lld") == 0) {
		char num[24];

		row->cells[row->n].text = xstrdup(fmt_lld(num, va_arg(ap, long long)));
	} else {
		strbuf_vaddf(&sb, fmt, ap);
		row->cells[row->n].text = strbuf_detach(&sb, NULL);
	}
	row->cells[row->n].role = role;
	row->n++;
}

void
table_cell(struct table *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	table_vcell(t, ROLE_NONE, fmt, ap);
	va_end(ap);
}

void
table_cell_role(struct table *t, enum table_role role, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	table_vcell(t, role, fmt, ap);
	va_end(ap);
}

void
table_cell_int(struct table *t, long long v)
{
	table_cell(t, "%lld", v);
}

size_t
table_nrows(const struct table *t)
{
	return t->nrows;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t
table_width(const char *s)
{
	size_t w = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

const char *
table_text(const struct table_rowv *row, int c)
{
	return c < row->n ? row->cells[c].text : "";
}

/* Is column c part of output format f? */
static bool
table_shown(const struct table *t, int c, enum out_format f)
{
	if (t->cols[c].flags & TABLE_CSV)
		return f == OUT_CSV;
	return !(t->cols[c].flags & TABLE_WIDE) || f == OUT_WIDE || f == OUT_CSV;
}

static void
table_render_table(const struct table *t, const struct out_opts *o,
    struct strbuf *out)
{
	size_t *width = xcalloc((size_t)t->ncols + 1, sizeof *width);
	size_t r, w, pad;
	int c, lastc = -1;

	for (c = 0; c < t->ncols; c++) {
		if (!table_shown(t, c, o->format))
			continue;
		lastc = c;
		if (o->header)
			width[c] = table_width(t->cols[c].header);
		for (r = 0; r < t->nrows; r++) {
			w = table_width(table_text(&t->rows[r], c));
			if (c == 0)
				w += 2 * (size_t)t->rows[r].indent;
			if (w > width[c])
				width[c] = w;
		}
	}
	for (r = o->header ? 0 : 1; r <= t->nrows; r++) {
		const struct table_rowv *row = r > 0 ? &t->rows[r - 1] : NULL;

		for (c = 0; c < t->ncols; c++) {
			const char *s = row ? table_text(row, c) : t->cols[c].header;
			enum table_role role = row ? (c < row->n ? row->cells[c].role :
			    ROLE_NONE) : ROLE_HEADER;
			bool right = (t->cols[c].flags & TABLE_RIGHT) != 0;
			bool last = c == lastc;

			if (!table_shown(t, c, o->format))
				continue;

			w = table_width(s);
			if (c == 0 && row != NULL) {
				strbuf_addchars(out, ' ', 2 * (size_t)row->indent);
				w += 2 * (size_t)row->indent;
			}
			pad = width[c] - w;
			if (right)
				strbuf_addchars(out, ' ', pad);
			if (o->color && role != ROLE_NONE && *s != '\0')
				strbuf_addf(out, "%s%s%s", table_role_sgr(role), s,
				    TABLE_SGR_RESET);
			else
				strbuf_adds(out, s);
			if (!last) {
				if (!right)
					strbuf_addchars(out, ' ', pad);
				strbuf_adds(out, "  ");
			}
		}
		/* No trailing blanks, whatever the last column held. */
		while (out->len > 0 && out->buf[out->len - 1] == ' ')
			strbuf_setlen(out, out->len - 1);
		strbuf_addc(out, '\n');
	}
	free(width);
}

static void
table_csv_field(struct strbuf *out, const char *s)
{
	if (strpbrk(s, ",\"\r\n") == NULL) {
		strbuf_adds(out, s);
		return;
	}
	strbuf_addc(out, '"');
	for (; *s != '\0'; s++) {
		if (*s == '"')
			strbuf_addc(out, '"');
		strbuf_addc(out, *s);
	}
	strbuf_addc(out, '"');
}

static void
table_render_csv(const struct table *t, const struct out_opts *o,
    struct strbuf *out)
{
	size_t r;
	int c;

	if (o->header) {
		for (c = 0; c < t->ncols; c++) {
			if (c > 0)
				strbuf_addc(out, ',');
			table_csv_field(out, t->cols[c].key);
		}
		strbuf_addc(out, '\n');
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			if (c > 0)
				strbuf_addc(out, ',');
			table_csv_field(out, table_text(&t->rows[r], c));
		}
		strbuf_addc(out, '\n');
	}
}

void
table_render(const struct table *t, const struct out_opts *o, struct strbuf *out)
{
	size_t r;
	int c, namecol = 0;

	switch (o->format) {
	case OUT_TABLE:
	case OUT_WIDE:
		table_render_table(t, o, out);
		break;
	case OUT_CSV:
		table_render_csv(t, o, out);
		break;
	case OUT_NAME:
		for (c = 0; c < t->ncols; c++)
			if (t->cols[c].flags & TABLE_NAME) {
				namecol = c;
				break;
			}
		for (r = 0; r < t->nrows; r++)
			strbuf_addf(out, "%s\n", table_text(&t->rows[r], namecol));
		break;
	default:
		fatal("table_render: format '%s' is not a table format",
		    out_format_name(o->format));
	}
}
