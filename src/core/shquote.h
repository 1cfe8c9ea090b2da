/*
 * shquote.h — the one place where text is made safe for a shell, and the
 * strict name check for anything cellar passes to hooks by name.
 *
 * Everything that reaches a shell on a node (the ssh backend's remote
 * command line, a job's command words in CELLAR_COMMAND) goes through
 * sh_quote; nothing else builds shell text from data.
 *
 * Invariants:
 *  1. For every string s without a NUL byte, `sh -c "printf %s QUOTED"`
 *     prints s exactly: the quoted word is one word and nothing in it is
 *     expanded (tests/unit/tcore-shquote.c checks it with a real sh).
 *  2. name_valid accepts only [A-Za-z0-9][A-Za-z0-9._-]* up to max - 1
 *     bytes: no shell metacharacter, no space, no leading '-' or '.'.
 */
#ifndef CELLAR_SHQUOTE_H
#define CELLAR_SHQUOTE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

/* Append s as one single-quoted shell word ('it'\''s'). */
void	 sh_quote(struct strbuf *sb, const char *s);
/* Append argv[0..n) as quoted words separated by spaces. */
void	 sh_quote_argv(struct strbuf *sb, char *const *argv, size_t n);
/* A job, node or VC name cellar hands to hooks (invariant 2). */
bool	 name_valid(const char *s, size_t max);
/* "%ID": a job named by its id, ID decimal digits (at most 9), into *id.
   No name is one (a name starts with a letter or digit). */
bool	 name_ref_id(const char *s, int *id);
/* An environment variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool	 env_name_valid(const char *s);

#endif
