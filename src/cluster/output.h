/*
 * output.h — how a command's output is to be written. The session keeps
 * the defaults (-o, --no-header, colour) between commands, so the type
 * lives with it, below the command layer; cmd/table.h parses the format
 * names and writes tables in them.
 *
 * Ownership: plain values.
 */
#ifndef CELLAR_OUTPUT_H
#define CELLAR_OUTPUT_H

#include <stdbool.h>

enum out_format {
	OUT_TABLE,		/* aligned columns for people */
	OUT_WIDE,		/* table with the TABLE_WIDE columns too */
	OUT_JSON,		/* one JSON document per command, on one line */
	OUT_NAME,		/* one name per line */
	OUT_CSV,		/* RFC 4180 quoting, LF line ends, header row of keys */
	OUT_NFORMATS
};

/* How a command's output is to be written. */
struct out_opts {
	enum out_format	format;
	bool		header;		/* header row in table and csv */
	bool		color;		/* ANSI attributes in table output */
};

#endif
