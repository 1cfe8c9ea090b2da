/*
 * table-int.h — the table's private structs, shared by the writer
 * (table.c) and the query code (table-query.c) and nobody else.
 */
#ifndef CELLAR_TABLE_INT_H
#define CELLAR_TABLE_INT_H

#include "cmd/table.h"

struct table_col {
	const char	*header;	/* borrowed (table_column) */
	const char	*key;
	unsigned	 flags;
};

struct table_cellv {
	char		*text;
	enum table_role	 role;
};

struct table_rowv {
	struct table_cellv	*cells;		/* ncols entries */
	int			 n;		/* cells filled */
	int			 indent;
	long			 tag;		/* the object shown, or -1 */
};

struct table {
	struct table_col	*cols;
	int			 ncols;
	size_t			 colcap;
	struct table_rowv	*rows;
	size_t			 nrows;
	size_t			 rowcap;
};

/* A row's text in column c ("" for a missing trailing cell). */
const char	*table_text(const struct table_rowv *row, int c);

#endif
