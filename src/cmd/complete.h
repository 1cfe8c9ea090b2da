/*
 * complete.h — completion for the command grammar: given the session and a
 * line up to the cursor, the words that may come next. Everything comes
 * from the command table: command names (families, then subcommands), each
 * command's options (its own and the common ones), and values by kind
 * (cmd_opt.kind for an option's value, cmd_entry.arg_kind for positionals):
 * VC, job, node, cell, leaf type and pinned cell names from the session,
 * sharing modes and output formats, a listing's column keys for --sort and
 * --filter, and file names through a callback.
 * `watch COMMAND ...` completes COMMAND as a command line of its own.
 *
 * Pure: no terminal and no file system of its own; ui/repl.c glues it to
 * libedit and lends it a directory lister.
 *
 * Ownership: a struct completion owns its candidates and prefix;
 * completion_release frees them. complete_replacement returns a malloc'ed
 * string.
 *
 * Invariants of a completion filled by complete_line:
 *  1. cands is sorted (bytewise) without duplicates; each candidate is a
 *     whole, unquoted word that starts with the (unquoted) word being
 *     completed.
 *  2. prefix is the longest common prefix of cands, cut back to a UTF-8
 *     character boundary ("" when there is no candidate).
 *  3. start <= the length given: the word being completed begins there
 *     (at its opening quote, if any); quote is the quote it is open in.
 */
#ifndef CELLAR_COMPLETE_H
#define CELLAR_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster/session.h"
#include "core/strvec.h"

struct complete_env {
	const struct session	*sess;		/* live values; NULL: none */
	/*
	 * Append the entries of directory dir ("" for the current one, else
	 * ending in '/') to names, directories with a trailing '/'. NULL: no
	 * file names are completed.
	 */
	void			(*list_dir)(void *arg, const char *dir,
				    struct strvec *names);
	void			*arg;
};

struct completion {
	struct strvec	 cands;
	char		*prefix;
	size_t		 start;		/* where the word being completed begins */
	char		 quote;		/* the quote it is open in, or 0 */
};

void	completion_init(struct completion *c);
void	completion_release(struct completion *c);

/* Complete the last word of line[0 .. len) into c (emptied first). */
void	complete_line(const struct complete_env *env, const char *line,
	    size_t len, struct completion *c);

/*
 * The text to put in place of line[start .. len): with one candidate, the
 * candidate, quoted as the word was and followed by a blank (no blank after
 * a directory, which one goes on into); with several, their common prefix.
 * NULL when there is no candidate.
 */
char	*complete_replacement(const struct completion *c);

#endif
