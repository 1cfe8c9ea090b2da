/*
 * json.h — a tiny JSON writer on a strbuf, plus a strict validator and a
 * path lookup (used by tests and by scripts that check command output).
 *
 * The writer keeps a small stack of open containers so callers never manage
 * commas: open objects and arrays, write keys and values, close them. It
 * writes compact JSON (no whitespace). Misuse (a value where a key is due,
 * closing the wrong container, nesting deeper than JSON_MAX_DEPTH) is a
 * programmer error and calls fatal().
 *
 * Ownership: a struct json borrows its strbuf; the caller owns it.
 *
 * Invariants of the writer:
 *  1. depth is the number of open containers; kind[0..depth) says which.
 *  2. Inside an object, keys and values alternate, starting with a key
 *     (want_value is true exactly between a key and its value).
 *  3. At depth 0 exactly one value is written; done is true after it.
 */
#ifndef CELLAR_JSON_H
#define CELLAR_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

#define JSON_MAX_DEPTH	32

struct json {
	struct strbuf	*sb;
	int		 depth;
	char		 kind[JSON_MAX_DEPTH];	/* '{' or '[' */
	bool		 empty[JSON_MAX_DEPTH];	/* nothing written in it yet */
	bool		 want_value;		/* a key was written */
	bool		 done;			/* the top-level value is complete */
};

void	json_init(struct json *j, struct strbuf *sb);
void	json_object_begin(struct json *j);
void	json_object_end(struct json *j);
void	json_array_begin(struct json *j);
void	json_array_end(struct json *j);
void	json_key(struct json *j, const char *key);
/* NULL writes null; bytes that are not valid UTF-8 are written as U+FFFD. */
void	json_string(struct json *j, const char *s);
/* len bytes of s, NULs included (written \u0000): exact bytes of text. */
void	json_string_len(struct json *j, const char *s, size_t len);
void	json_int(struct json *j, long long v);
/* Non-finite values are written as null (JSON has no NaN). */
void	json_double(struct json *j, double v);
void	json_bool(struct json *j, bool v);
void	json_null(struct json *j);

/* key + value in one call, for the common case inside an object. */
void	json_kv_string(struct json *j, const char *key, const char *s);
void	json_kv_int(struct json *j, const char *key, long long v);
void	json_kv_double(struct json *j, const char *key, double v);
void	json_kv_bool(struct json *j, const char *key, bool v);
void	json_kv_null(struct json *j, const char *key);

/* True once the top-level value is complete (all containers closed). */
bool	json_done(const struct json *j);
/*
 * Write text, which must be one complete JSON value (checked with
 * json_validate by the caller), as the next value.
 */
void	json_raw(struct json *j, const char *text, size_t len);

/*
 * Check that text[0..len) starts with one valid JSON value (RFC 8259,
 * strings checked for UTF-8). *end gets the offset just past it and any
 * following whitespace. Returns 0, or -1 with *cause set (malloc'ed) naming
 * the byte offset.
 */
int	json_validate(const char *text, size_t len, size_t *end, char **cause);

/*
 * Find the value at path in the JSON document text and append it to out:
 * path components are separated by '.', an all-digit component indexes an
 * array, and a final "#" gives the number of elements (or keys). Strings are
 * appended decoded, without quotes; other values as their JSON text. An empty
 * path is the whole document. Returns 0, or -1 with *cause set.
 */
int	json_lookup(const char *text, size_t len, const char *path,
	    struct strbuf *out, char **cause);

/*
 * A pull reader: the tokens of a document one at a time, for reading
 * documents too large to look up path by path (an import). Run
 * json_validate on the text first: the reader checks each token but not
 * the grammar between them (it skips ',' and ':').
 */
enum json_tok {
	JSON_TOK_END,		/* no more input */
	JSON_TOK_OBJECT,	/* '{' */
	JSON_TOK_OBJECT_END,	/* '}' */
	JSON_TOK_ARRAY,		/* '[' */
	JSON_TOK_ARRAY_END,	/* ']' */
	JSON_TOK_STRING,	/* decoded into tok.str (keys too) */
	JSON_TOK_NUMBER,	/* its text is tok.text, tok.len */
	JSON_TOK_TRUE,
	JSON_TOK_FALSE,
	JSON_TOK_NULL,
};

struct json_token {
	enum json_tok	 type;
	const char	*text;		/* the token in the input */
	size_t		 len;
	const char	*str;		/* a string's decoded bytes, NUL-terminated */
	size_t		 str_len;	/* (a string may hold NUL bytes) */
	bool		 integer;	/* a number without '.', 'e' or 'E' */
};

struct json_reader {
	const char	*s;
	size_t		 len;
	size_t		 pos;
	struct strbuf	 str;
};

void	json_reader_init(struct json_reader *r, const char *text, size_t len);
void	json_reader_release(struct json_reader *r);
/* The next token into *t (valid until the next call). 0, or -1 with *cause. */
int	json_reader_next(struct json_reader *r, struct json_token *t, char **cause);
/* Skip the value that starts with token t (all of a container). */
int	json_reader_skip(struct json_reader *r, const struct json_token *t,
	    char **cause);

#endif
