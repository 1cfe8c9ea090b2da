/*
 * dash.h — the dashboard's curses face: the only place that draws the
 * dashboard on a terminal. It copies the character grid dash_view_draw
 * fills (dash/screen.h) to the terminal, maps semantic roles to colours
 * (or to attributes in monochrome), turns key codes and mouse events into
 * the key table's values (dash/dash-view.h), plays the source at the view's
 * speed and keeps the UI state between runs. What it shows is exactly what
 * `dash --once` prints for the same state.
 *
 * Ownership: dash_tui_run borrows the model, view and interrupt flag; the
 * terminal is restored before it returns, on every path.
 *
 * Invariants:
 *  1. At most one redraw per frame: keys that arrive together are all
 *     handled before the frame is drawn, and the source is advanced at most
 *     once per v->refresh_ms.
 *  2. The config file is never written; the UI state goes to its own file
 *     (dash_ui_state_path), mode 0600 in a directory made 0700.
 *  3. A terminal too small gets a clear message, never a crash; a resize is
 *     acted on once the size has been still for DASH_RESIZE_MS.
 */
#ifndef CELLAR_UI_DASH_H
#define CELLAR_UI_DASH_H

#include <signal.h>

struct dash_model;
struct dash_view;

#define DASH_RESIZE_MS	100

/*
 * Run the dashboard until q (or *interrupted). Returns 0, or -1 with *cause
 * when the terminal cannot be used.
 */
int	dash_tui_run(struct dash_model *m, struct dash_view *v,
	    volatile sig_atomic_t *interrupted, char **cause);

/*
 * Where the UI state lives: state_home/cellar/ui (XDG_STATE_HOME, if
 * absolute), else home/.local/state/cellar/ui; NULL without either.
 * Malloc'ed.
 */
char	*dash_ui_state_path(const char *state_home, const char *home);

#endif
