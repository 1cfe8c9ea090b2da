/*
 * table.h — output formats, the table writer every listing goes through, and
 * the one implementation of --sort and --filter, so that "table", "wide",
 * "csv" and "name" output, sorting and filtering stay consistent across
 * commands ("json" is written by each command with core/json.h, since its
 * shapes nest, but in the order of the table's rows: see cmd_list_json).
 *
 * A table has columns declared up front (header, machine key, type flags)
 * and cells appended row by row; widths are computed when it is rendered, so
 * names are never truncated. Each row may carry a tag (the index of the
 * object it shows) so that JSON can be written for exactly the rows that
 * survive a query, in their order. Cells may carry a colour role, mapped to
 * terminal attributes in one theme table and only when colour is on.
 *
 * A query (--sort KEY[,-KEY]..., --filter FIELD=VALUE...) is parsed once,
 * checked against a command's declared columns, and applied to a filled
 * table: filters first (all must hold), then a stable sort, so rows that
 * compare equal keep the command's own order.
 *
 * Ownership: a table owns copies of everything put into it; table_free
 * releases them. A query owns its strings; table_query_free releases them.
 *
 * Invariants:
 *  1. A row never has more cells than there are columns (extra cells are a
 *     programmer error); missing trailing cells render empty.
 *  2. Rendering does not change the table; it can be rendered several times.
 *  3. Applying a query only removes and reorders rows; a row's cells and tag
 *     are never changed, except that a sorted or filtered table loses its
 *     indentation (a tree cut or reordered is shown flat).
 *  4. Sorting is stable and total: numbers before non-numbers in numeric
 *     columns whatever the direction, then the command's order.
 */
#ifndef CELLAR_TABLE_H
#define CELLAR_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster/output.h"	/* enum out_format, struct out_opts */
#include "core/strbuf.h"

#define OUT_MASK(f)	(1u << (f))
/* Every command that writes a table writes wide too (the same, plus columns). */
#define OUT_TEXT	(OUT_MASK(OUT_TABLE) | OUT_MASK(OUT_WIDE))
#define OUT_ALL		(OUT_TEXT | OUT_MASK(OUT_JSON) | OUT_MASK(OUT_NAME) | \
			 OUT_MASK(OUT_CSV))
/* Output for people: table or wide (legends, notes and titles go with it). */
#define OUT_IS_TEXT(f)	((f) == OUT_TABLE || (f) == OUT_WIDE)

/* "table", "wide", "json", "name", "csv" -> format; -1 if unknown. */
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

/* Column flags. */
#define TABLE_RIGHT	0x01	/* right-align */
#define TABLE_NAME	0x02	/* the column "-o name" prints (default: first) */
#define TABLE_NUM	0x04	/* a number: right-aligned, sorts and compares as one */
#define TABLE_WIDE	0x08	/* only in wide and csv output */
#define TABLE_HOSTS	0x10	/* node names or hostlists: filters match ranges */
#define TABLE_CSV	0x20	/* only in csv output (with TABLE_WIDE: data for
				   analysis, too wide for a terminal) */

/*
 * A column as a listing command declares it, statically, in its cmd_entry:
 * the dispatcher checks --sort and --filter keys against these, help lists
 * them, and t0050 checks that the man page documents every key. A table
 * ends with a zeroed entry.
 */
struct table_colspec {
	const char	*header;	/* "GPUS" */
	const char	*key;		/* "gpus": csv header, --sort, --filter */
	unsigned	 flags;		/* TABLE_* */
	const char	*help;		/* one line for help */
};

struct table;

struct table	*table_create(void);
void		 table_free(struct table *t);
/* Declare a column: header for table output, key for csv and queries.
   Both are borrowed, not copied (every caller's are string literals or
   static tables; copying them was a fifth of a hand command's table). */
void		 table_column(struct table *t, const char *header, const char *key,
		    unsigned flags);
/* Declare every column of a colspec table. */
void		 table_columns(struct table *t, const struct table_colspec *cols);
/* Start a new row. */
void		 table_row(struct table *t);
/* Tag the current row with the object it shows (default -1). */
void		 table_row_tag(struct table *t, long tag);
/* Indent the current row's first cell by n steps (table output only). */
void		 table_indent(struct table *t, int n);
/* Append the next cell of the current row. */
void		 table_cell(struct table *t, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));
void		 table_cell_role(struct table *t, enum table_role role,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void		 table_cell_int(struct table *t, long long v);
size_t		 table_nrows(const struct table *t);
/* The tag of row r (in the current order). */
long		 table_tag(const struct table *t, size_t r);

/* Render in o->format (table, wide, csv or name; json is not a table format). */
void		 table_render(const struct table *t, const struct out_opts *o,
		    struct strbuf *out);

/* ---- queries: --sort and --filter ---- */

struct table_query;

struct table_query *table_query_create(void);
void		 table_query_free(struct table_query *q);
/* True when the query neither sorts nor filters (NULL is empty). */
bool		 table_query_empty(const struct table_query *q);
/*
 * Add sort keys, "KEY[,-KEY]..." ('-' descending, '+' ascending). Keys
 * added by later calls sort after earlier ones. Syntax errors only: keys
 * are checked by table_query_check. Returns 0, or -1 with *cause set.
 */
int		 table_query_sort(struct table_query *q, const char *spec,
		    char **cause);
/*
 * Add a filter: FIELD=VALUE, FIELD!=VALUE, or FIELD<N, <=, >, >= for numeric
 * fields. VALUE lists alternatives separated by ',' (a hostlist for node
 * fields), each a glob (* ? [...]) matched without regard to case.
 */
int		 table_query_filter(struct table_query *q, const char *expr,
		    char **cause);
/*
 * Check every key and field against the columns (a zeroed-entry table);
 * the error lists the valid keys. Returns 0, or -1 with *cause set.
 */
int		 table_query_check(const struct table_query *q,
		    const struct table_colspec *cols, char **cause);
/* Filter, then sort the rows of t (invariant 3); -1 on an unknown key. */
int		 table_query_apply(struct table *t, const struct table_query *q,
		    char **cause);

#endif
