/*
 * dash-view.h — the dashboard's UI state and its frame: the panels (behind
 * struct dash_panel_ops, one table), the key table (one table: the
 * curses face reads keys from it and the '?' overlay and the manual's
 * DASHBOARD KEYS are generated from it) and the actions keys trigger.
 * Pure of terminals: dash_view_key and dash_view_draw work on plain
 * structs, so `dash --once --keys ...` and the unit tests drive the very
 * code the terminal runs.
 *
 * Ownership: a view owns its strings and compiled filter; it borrows the
 * model it is drawn from. The command hooks (run, mutates) and their arg
 * belong to the face.
 *
 * Invariants:
 *  1. 0 <= panel < DASH_NPANELS; sel[p] indexes a visible row of panel p
 *     (or is 0 when it has none) after every draw.
 *  2. A command that mutates runs only in admin mode and only after a
 *     confirmation whose default (Enter, Esc, anything but 'y') is Cancel.
 *     Where the cluster cannot be changed (dash_data.writable false: the
 *     emulator, a followed store, no server) it goes to run at once,
 *     which refuses it, rather than through admin mode and y/N first.
 *  3. Every key in dash_keys has a help line; no key appears twice.
 */
#ifndef CELLAR_DASH_VIEW_H
#define CELLAR_DASH_VIEW_H

#include <regex.h>
#include <stdbool.h>

#include "core/strbuf.h"
#include "dash/dash-model.h"
#include "dash/screen.h"

enum dash_panel_id { DP_CELLS, DP_VCS, DP_QUEUES, DP_EVENTS, DP_DETAIL, DP_SERIES,
	DASH_NPANELS };

/* Control keys the input line knows (the face reports them as typed). */
#define DK_KILL		0x15	/* Ctrl-U */
#define DK_WERASE	0x17	/* Ctrl-W */

/* Keys beyond ASCII, as the face reports them. */
enum {
	DK_UP = 0x101, DK_DOWN, DK_LEFT, DK_RIGHT, DK_PGUP, DK_PGDN, DK_HOME,
	DK_END, DK_ENTER, DK_ESC, DK_TAB, DK_BTAB, DK_BACKSPACE,
};

enum dash_action {
	DA_NONE, DA_NEXT, DA_PREV, DA_PANEL, DA_UP, DA_DOWN, DA_PGUP, DA_PGDN,
	DA_HOME, DA_END, DA_OPEN, DA_CLOSE, DA_ENTER, DA_BACK, DA_FILTER,
	DA_SORT, DA_MAP, DA_PAUSE, DA_FASTER, DA_SLOWER, DA_RESTART, DA_COMMAND,
	DA_HELP, DA_QUIT,
};

struct dash_key {
	int		 key;		/* ASCII or DK_* */
	const char	*name;		/* as the help shows it */
	enum dash_action action;
	int		 arg;		/* DA_PANEL: the panel */
	const char	*help;
};
/* The key table, ended by key 0. */
extern const struct dash_key dash_keys[];

enum dash_input { DI_NONE, DI_FILTER, DI_COMMAND, DI_CONFIRM };

struct dash_series;

struct dash_view {
	int		 panel;
	int		 back;		/* panel Esc returns to from detail */
	int		 sel[DASH_NPANELS];
	int		 top[DASH_NPANELS];
	bool		 help;		/* the '?' overlay is up */
	bool		 map;		/* cells panel: node map instead of tree */
	bool		 paused;
	double		 speed;		/* virtual seconds per wall second */
	bool		 speed_given;	/* --speed: a saved speed does not replace it */
	bool		 panel_given;	/* --panel: nor a saved panel this one */
	bool		 summary_off;	/* Esc hid the end's summary (until 'r') */
	bool		 admin;
	bool		 quit;
	int		 sort;		/* queues: 0 policy order, then gpus, wait, name */

	/* how the face runs it */
	unsigned	 refresh_ms;	/* at most one frame per refresh_ms */
	bool		 mouse;
	bool		 color;
	bool		 ascii;

	/* filter: "/re", "/!re", "/field=value" */
	char		 filter[128];
	bool		 f_invert;
	bool		 f_field;	/* field=value, not a regex */
	char		 f_name[32], f_value[96];
	regex_t		 f_re;
	bool		 f_re_ok;

	/* what detail shows: a job, a cell or a VC */
	enum { DD_NONE, DD_JOB, DD_CELL, DD_VC } d_kind;
	int		 d_id;

	enum dash_input	 input;
	char		 line[256];
	char		 pending_cmd[256];	/* awaiting confirmation */
	char		 msg[256];
	struct strbuf	 out;		/* the ':' command's output pane */

	int		*vis;		/* scratch: rows that pass the filter */
	int		 nvis;
	size_t		 vis_cap;
	int		 list_h;	/* rows the last draw showed (paging) */
	int		 list_y;	/* screen line of its first row (mouse) */
	struct dash_series *series;	/* the Series panel's samples (dash-series.h) */

	/* the face's hooks for ':' lines; NULL: no command line */
	int		(*run)(void *arg, const char *line, bool admin,
			    struct strbuf *out);
	bool		(*mutates)(void *arg, const char *line);
	/* Tab on the ':' line: complete it in place (cmd/complete.h) */
	void		(*complete)(void *arg, char *line, size_t len, struct strbuf *choices);
	/* extra lines for the detail view (history from the store); may be NULL */
	void		(*history)(void *arg, const char *job, struct strbuf *out);
	void		*arg;
};

#define DASH_MIN_W	60
#define DASH_MIN_H	12
#define DASH_SPEED_MIN	1.0
/* The start speed, and the fastest a saved speed comes back at: a demo
   left at x604800 must not be over before the next one is seen. */
#define DASH_SPEED_START	600.0
#define DASH_SPEED_MAX	(86400.0 * 7)

void	dash_view_init(struct dash_view *v);
void	dash_view_release(struct dash_view *v);
/* Handle one key; returns true when the frame should be drawn again. */
bool	dash_view_key(struct dash_view *v, struct dash_model *m, int key);
/*
 * The mouse: a click at (x, y) picks the tab or list row there (a click on
 * the selected row opens it, as Enter); the wheel moves the selection by
 * delta rows. Both return true when the frame should be drawn again.
 */
bool	dash_view_click(struct dash_view *v, struct dash_model *m, int x, int y);
bool	dash_view_scroll(struct dash_view *v, struct dash_model *m, int delta);
/*
 * UI state kept between runs as text lines ("panel queues", "sort 2",
 * "map 1", "filter state=PD", "speed 600", "open r0n00", "closed r1"; cells
 * only where they differ from the default: racks open). Loading skips
 * lines it does not know or cannot use (a cell another spec has), so an
 * old or damaged file never stops the dashboard.
 */
void	dash_view_state_save(const struct dash_view *v, const struct dash_model *m,
	    struct strbuf *out);
void	dash_view_state_load(struct dash_view *v, struct dash_model *m, const char *text);
/* Set the filter ("" clears it); -1 with *cause for a bad regex. */
int	dash_view_set_filter(struct dash_view *v, const char *f, char **cause);
/* Draw the whole frame (status, tabs, panel, input line, overlays). */
void	dash_view_draw(struct dash_view *v, const struct dash_model *m,
	    struct dash_screen *s);
/* Parse a panel name ("cells", "vcs", "queues", "events", "detail",
   "series"); -1. */
int	dash_panel_parse(const char *name);
const char *dash_panel_name(int panel);
/* The keys as help text (one per line: "KEY  what it does"). */
void	dash_keys_help(struct strbuf *out);

/* Job state code -> role, from a table (new states add a row). */
enum dash_role dash_state_role(enum job_state s);

#endif
