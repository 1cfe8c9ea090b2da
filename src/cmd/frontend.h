/*
 * frontend.h — what the face running commands (the batch runner and REPL in
 * main.c, later the dashboard) lends to the few commands that need more than
 * a strbuf: showing output while they run, waiting, and noticing an
 * interrupt. Commands flagged CMD_FRONTEND (watch) reach it through
 * sess->fe; the dispatcher refuses them in a session without one, so the
 * command layer itself stays free of terminals, clocks and signals.
 *
 * Ownership: the face owns its struct frontend and everything behind arg;
 * a session only borrows it.
 *
 * Invariants:
 *  1. Every hook is set (none is NULL), except dashboard: NULL in a face
 *     without a terminal dashboard.
 *  2. Once interrupted() has returned true it keeps doing so until the face
 *     resets it, between commands; sleep() returns false then at once.
 */
#ifndef CELLAR_FRONTEND_H
#define CELLAR_FRONTEND_H

#include <stdbool.h>

#include "core/strbuf.h"

struct cmd_result;
struct dash_model;
struct dash_view;

struct frontend {
	/*
	 * A person is looking at a terminal: output may clear the screen, and
	 * commands may run until interrupted.
	 */
	bool	 interactive;
	/* Write out to stdout and err to stderr now, then empty both. */
	void	(*flush)(const struct frontend *fe, struct strbuf *out,
		    struct strbuf *err, bool clear_screen);
	/* Show a failed command the way the face shows its own failures. */
	void	(*report)(const struct frontend *fe, const struct cmd_result *res);
	/* Wait ms milliseconds; false if interrupted meanwhile. */
	bool	(*sleep)(const struct frontend *fe, unsigned ms);
	/* True once the user has asked to stop (Ctrl-C). */
	bool	(*interrupted)(const struct frontend *fe);
	/* Replace the transient progress line (NULL: erase it, the run is
	   over): on a terminal as it comes; elsewhere (stderr a log) as a
	   plain line every few seconds, so a long run is never silent. */
	void	(*progress)(const struct frontend *fe, const char *line);
	/*
	 * Run the terminal dashboard on a model and view the dash command
	 * built (ui/dash.c) until the user quits. Returns 0, or -1 with *cause
	 * (no terminal, a terminal too dumb for curses). NULL: no dashboard.
	 */
	int	(*dashboard)(const struct frontend *fe, struct dash_model *m,
		    struct dash_view *v, char **cause);
	/* The size of the terminal standard output is, if it is one: false
	   (or NULL) when there is none, as for a server's client. */
	bool	(*term_size)(const struct frontend *fe, int *cols, int *rows);
	void	*arg;
};

#endif
