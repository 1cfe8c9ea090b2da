/*
 * cmdline.h — the one tokenizer of the command grammar: split a line of text
 * into commands and each command into words, shell-like. Batch mode (-c, -f,
 * stdin), the REPL and the dashboard's ':' line all go through it.
 *
 * Rules:
 *  1. Unquoted blanks (space, tab, CR) separate words; unquoted ';' and
 *     newline end a command. Empty commands are dropped.
 *  2. '...' is literal up to the next quote; no escapes inside.
 *  3. "..." is literal except that backslash escapes \ " $ ` and newline
 *     (a backslash-newline vanishes); any other backslash is kept.
 *  4. Outside quotes, backslash makes the next character literal, and
 *     backslash-newline vanishes (line continuation).
 *  5. An unquoted '#' at the start of a word starts a comment that runs to
 *     the end of the line.
 *  6. Quotes join with adjacent text into one word ("a"'b'c is abc); an empty
 *     pair ('' or "") is an empty word.
 *  7. Text is UTF-8 without NUL bytes, at most CMDLINE_MAX bytes; anything
 *     else is an error before any word is made, so no command of a bad line
 *     runs.
 *  8. $'...' (a '$' then a single quote, outside other quotes) is literal
 *     up to the next unescaped single quote, with the escapes \n
 *     (newline), \t, \r, \\, \' and \xHH (a byte 01 to 7f); any other
 *     backslash is an error. So a newline or a control byte fits in one
 *     line of text (cmdline_quote writes them so).
 *
 * Ownership: a struct cmdline owns its commands and their words;
 * cmdline_release frees them.
 */
#ifndef CELLAR_CMDLINE_H
#define CELLAR_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strvec.h"

struct cmdline {
	struct strvec	*cmds;		/* one argv-style word list per command */
	size_t		 n;
	size_t		 cap;
};

/* The longest text (and word) the grammar accepts, in bytes. */
#define CMDLINE_MAX	65536

void	cmdline_init(struct cmdline *cl);
void	cmdline_release(struct cmdline *cl);

/*
 * Parse text into cl (emptied first). Returns 0, or -1 with *cause set
 * (malloc'ed) and cl emptied. *incomplete (may be NULL) is set to true when
 * the text ends inside quotes or after a backslash, so that a reader can
 * append the next line and parse again.
 */
int	cmdline_parse(const char *text, struct cmdline *cl, bool *incomplete,
	    char **cause);
/* The same for len bytes that may hold NULs (which are an error, rule 7). */
int	cmdline_parsen(const char *text, size_t len, struct cmdline *cl,
	    bool *incomplete, char **cause);

/*
 * Is s[0..len) valid UTF-8 (no overlongs, surrogates or code points past
 * U+10FFFF)? If not, *off (may be NULL) gets the offset of the first bad
 * byte.
 */
bool	cmdline_utf8_valid(const char *s, size_t len, size_t *off);

/*
 * Append word to sb quoted so that cmdline_parse reads it back as one word
 * (unchanged when it needs no quoting), on one line: a word holding a
 * newline or another control byte is written $'...' (rule 8). For
 * messages, history and the socket protocol (one request, one line).
 */
struct strbuf;
void	cmdline_quote(struct strbuf *sb, const char *word);
/* The words, each quoted so, separated by one space: a command line. */
void	cmdline_join(struct strbuf *sb, int argc, char *const *argv);

#endif
