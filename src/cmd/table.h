/*
 * table.h — output formats and the table writer every listing goes through,
 * so that "table", "csv" and "name" output stay consistent across commands
 * ("json" is written by each command with core/json.h, since its shapes
 * nest).
 *
 * A table has columns declared up front (header, machine key, flags) and
 * cells appended row by row; widths are computed when it is rendered, so
 * names are never truncated. Cells may carry a colour role, mapped to
 * terminal attributes in one theme table and only when colour is on.
 *
 * Ownership: a table owns copies of everything put into it; table_free
 * releases them.
 *
 * Invariants:
 *  1. A row never has more cells than there are columns (extra cells are a
 *     programmer error); missing trailing cells render empty.
 *  2. Rendering does not change the table; it can be rendered several times.
 */
#ifndef CELLAR_TABLE_H
#define CELLAR_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

enum out_format {
	OUT_TABLE,		/* aligned columns for people */
	OUT_JSON,		/* one JSON document per command, on one line */
	OUT_NAME,		/* one name per line */
	OUT_CSV,		/* RFC 4180 quoting, LF line ends, header row of keys */
	OUT_NFORMATS
};
#define OUT_MASK(f)	(1u << (f))
#define OUT_ALL		(OUT_MASK(OUT_TABLE) | OUT_MASK(OUT_JSON) | \
			 OUT_MASK(OUT_NAME) | OUT_MASK(OUT_CSV))

/* How a command's output is to be written. */
struct out_opts {
	enum out_format	format;
	bool		header;		/* header row in table and csv */
	bool		color;		/* ANSI attributes in table output */
};

/* "table", "json", "name", "csv" -> format; -1 if unknown. */
int		 out_format_parse(const char *name);
const char	*out_format_name(enum out_format f);
/* The names of the formats in mask, comma-separated, into sb. */
void		 out_format_list(struct strbuf *sb, unsigned mask);

/* Semantic colour roles; the theme in table.c maps them to attributes. */
enum table_role {
	ROLE_NONE,
	ROLE_OK,		/* healthy, free */
	ROLE_BUSY,		/* in use */
	ROLE_WARN,		/* opportunistic, doomed, downgraded */
	ROLE_BAD,		/* bad hardware, failures */
	ROLE_DIM,		/* structure, not data */
	ROLE_HEADER,
};
/* The escape sequence of a role ("" for none) and the reset sequence. */
const char	*table_role_sgr(enum table_role role);
#define TABLE_SGR_RESET	"\033[0m"

#define TABLE_RIGHT	0x1	/* right-align (numbers) */
#define TABLE_NAME	0x2	/* the column "-o name" prints (default: first) */

struct table;

struct table	*table_create(void);
void		 table_free(struct table *t);
/* Declare a column: header for table output, key for csv. */
void		 table_column(struct table *t, const char *header, const char *key,
		    unsigned flags);
/* Start a new row. */
void		 table_row(struct table *t);
/* Indent the current row's first cell by n steps (table output only). */
void		 table_indent(struct table *t, int n);
/* Append the next cell of the current row. */
void		 table_cell(struct table *t, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 table_cell_role(struct table *t, enum table_role role,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void		 table_cell_int(struct table *t, long long v);
size_t		 table_nrows(const struct table *t);

/* Render in o->format (table, csv or name; json is not a table format). */
void		 table_render(const struct table *t, const struct out_opts *o,
		    struct strbuf *out);

#endif
