/*
 * repl.h — the interactive read-eval loop on libedit: a prompt that shows
 * the current spec and sharing mode, line editing (~/.editrc or $EDITRC),
 * history kept in a file, Tab completion (cmd/complete.h), `!!` history
 * events, Ctrl-C to cancel the line or the running command, Ctrl-D to leave.
 * Commands themselves are run by the caller's hook (main.c), through the one
 * dispatcher, so the REPL owns only the terminal side.
 *
 * Ownership: repl_run borrows the session and hooks; every string this
 * module returns is malloc'ed and the caller's to free.
 *
 * Invariants:
 *  1. Only lines typed at a terminal are read with editing, recorded in
 *     history and answered with a banner; otherwise the REPL reads plain
 *     lines and keeps no history.
 *  2. *interrupted is 0 whenever a line is read; an interrupt during the
 *     read cancels the line (and any continuation), never the REPL.
 *  3. The history file is written with mode 0600 in a directory created
 *     with mode 0700.
 */
#ifndef CELLAR_REPL_H
#define CELLAR_REPL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "cluster/session.h"

struct repl {
	struct session		*sess;		/* for the prompt and completion */
	const char		*version;	/* for the banner */
	/*
	 * Run text: one line, or several joined when a command continues.
	 * Set *more when the text ends inside quotes or after a backslash.
	 * Returns the status of the last command run, or -1 if none ran.
	 */
	int			(*run)(void *arg, const char *text, bool *more);
	void			*arg;
	/*
	 * Optional: called while no input is there, so the caller's live loop
	 * keeps running; returns after at most a short while, 1 when fd has
	 * input, 0 when not yet, -1 to read anyway (blocking).
	 */
	int			(*idle)(void *arg, int fd);
	/* Set by the caller's SIGINT handler. */
	volatile sig_atomic_t	*interrupted;
};

/*
 * Read and run lines until end of input (Ctrl-D on an empty line). Returns
 * the status of the last command run, as a shell does (0 if none ran).
 */
int	 repl_run(const struct repl *r);

/*
 * The history file: histfile (CELLAR_HISTFILE) if set, "" disabling
 * history; else state_home/cellar/history (XDG_STATE_HOME, if absolute);
 * else home/.local/state/cellar/history. NULL when disabled or there is no
 * home.
 */
char	*repl_history_path(const char *histfile, const char *state_home,
	    const char *home);

/* Create the directories above path, mode 0700. Returns 0 or -1 with *cause. */
int	 repl_make_parents(const char *path, char **cause);

/*
 * Expand a history event at the start of line: "!!" (the last line), "!-N"
 * (N lines back), "!PREFIX" (the last line starting with PREFIX); the rest
 * of the line follows it ("!! -o json"). hist[0 .. n) are the lines,
 * oldest first. Returns 1 with *out set (malloc'ed), 0 when the line has
 * no event, or -1 with *cause set.
 */
int	 repl_expand(const char *line, char *const *hist, size_t n, char **out,
	    char **cause);

/* "cellar default/hived> " for the session's spec and mode. */
char	*repl_prompt(const struct session *s);

#endif
