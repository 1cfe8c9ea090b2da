/*
 * dash-view.c — the dashboard's frame and keys: one table of keys, the
 * actions between them and the panels (their table is panels.c's), the
 * filter, and the frame's status line, tabs, lists and detail. Everything
 * here draws into a struct dash_screen; the face (ui/dash.c) only moves it
 * to the terminal. The first panel, the overview, is the cell tree (or
 * node map) between the VC meters and the newest events (overview.c); the
 * overlays are help.c's; the series panel is dash-series.c's. One file
 * of ~1,200 lines: the key table names the actions, and actions, filter
 * and frame share one view state (dash-view-int.h).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/dash-view-int.h"
#include "dash/dash-series.h"

const struct dash_key dash_keys[] = {
	{ DK_TAB, "Tab", DA_NEXT, 0, "next panel" },
	{ DK_BTAB, "S-Tab", DA_PREV, 0, "previous panel" },
	{ '1', "1", DA_PANEL, DP_CELLS, "overview: meters, tree, events" },
	{ '2', "2", DA_PANEL, DP_VCS, "VCs: usage of their GPUs" },
	{ '3', "3", DA_PANEL, DP_QUEUES, "queues: jobs in policy order" },
	{ '4', "4", DA_PANEL, DP_EVENTS, "events: starts, preemptions..." },
	{ '5', "5", DA_PANEL, DP_DETAIL, "detail of what Enter opened" },
	{ '6', "6", DA_PANEL, DP_SERIES, "series: GPUs, queue, waits over time" },
	{ DK_UP, "Up", DA_UP, 0, "move up" },
	{ 'k', "k", DA_UP, 0, "move up" },
	{ DK_DOWN, "Down", DA_DOWN, 0, "move down" },
	{ 'j', "j", DA_DOWN, 0, "move down" },
	{ DK_PGUP, "PgUp", DA_PGUP, 0, "page up" },
	{ DK_PGDN, "PgDn", DA_PGDN, 0, "page down" },
	{ DK_HOME, "Home", DA_HOME, 0, "first row" },
	{ 'g', "g", DA_HOME, 0, "first row" },
	{ DK_END, "End", DA_END, 0, "last row (events: follow)" },
	{ 'G', "G", DA_END, 0, "last row (events: follow)" },
	{ DK_RIGHT, "Right", DA_OPEN, 0, "cells: expand" },
	{ 'l', "l", DA_OPEN, 0, "cells: expand" },
	{ DK_LEFT, "Left", DA_CLOSE, 0, "cells: collapse" },
	{ 'h', "h", DA_CLOSE, 0, "cells: collapse" },
	{ DK_ENTER, "Enter", DA_ENTER, 0, "describe the row (why a job waits)" },
	{ DK_ESC, "Esc", DA_BACK, 0, "back; close input or output" },
	{ '/', "/", DA_FILTER, 0, "filter: regex, !regex, field=value" },
	{ 's', "s", DA_SORT, 0, "sort queues: policy, GPUs, wait, name" },
	{ 'm', "m", DA_MAP, 0, "cells: tree / compact node map" },
	{ ' ', "Space", DA_PAUSE, 0, "pause or play the emulator" },
	{ '+', "+", DA_FASTER, 0, "play faster (x2)" },
	{ '-', "-", DA_SLOWER, 0, "play slower (/2)" },
	{ 'r', "r", DA_RESTART, 0, "play the demo again" },
	{ ':', ":", DA_COMMAND, 0, "command line (Tab completes; :admin to change)" },
	{ '?', "?", DA_HELP, 0, "this help" },
	{ 'q', "q", DA_QUIT, 0, "quit" },
	{ 0, NULL, DA_NONE, 0, NULL }
};

/* Job state -> role (a new state adds a row here, nothing else). */
static const enum dash_role state_roles[JOB_NSTATES] = {
	[JOB_PENDING] = DR_WARN,
	[JOB_RUNNING] = DR_USED,
	[JOB_SUSPENDED] = DR_RESERVED,
	[JOB_PREEMPTED] = DR_BAD,
	[JOB_COMPLETING] = DR_DIM,
	[JOB_COMPLETED] = DR_DIM,
	[JOB_FAILED] = DR_BAD,
	[JOB_CANCELLED] = DR_DIM,
};

enum dash_role
dash_state_role(enum job_state s)
{
	return (unsigned)s < JOB_NSTATES ? state_roles[s] : DR_NORMAL;
}

/* ---- state ---- */

void
dash_view_init(struct dash_view *v)
{
	memset(v, 0, sizeof *v);
	v->speed = DASH_SPEED_START;	/* ten emulated minutes per second */
	v->refresh_ms = 500;
	v->mouse = true;
	v->color = true;
	v->sel[DP_EVENTS] = -1;	/* follow the log */
	strbuf_init(&v->out);
}

void
dash_view_release(struct dash_view *v)
{
	if (v->f_re_ok)
		regfree(&v->f_re);
	free(v->vis);
	dash_series_free(v->series);
	strbuf_release(&v->out);
}

int
dash_view_set_filter(struct dash_view *v, const char *f, char **cause)
{
	const char *p = f, *eq;
	regex_t re;
	int rc;

	if (*p == '!')
		p++;
	eq = strchr(p, '=');
	if (*p != '\0' && (eq == NULL || eq == p || (size_t)(eq - p) >= sizeof v->f_name)) {
		if ((rc = regcomp(&re, p, REG_EXTENDED | REG_NOSUB | REG_ICASE)) != 0) {
			char buf[128];

			regerror(rc, &re, buf, sizeof buf);
			if (cause != NULL)
				*cause = xasprintf("bad filter '%s': %s", f, buf);
			return -1;
		}
	}
	if (v->f_re_ok)
		regfree(&v->f_re);
	v->f_re_ok = false;
	snprintf(v->filter, sizeof v->filter, "%s", f);
	v->f_invert = *f == '!';
	v->f_field = false;
	if (*p == '\0')
		v->filter[0] = '\0';
	else if (eq != NULL && eq != p && (size_t)(eq - p) < sizeof v->f_name) {
		v->f_field = true;
		snprintf(v->f_name, sizeof v->f_name, "%.*s", (int)(eq - p), p);
		snprintf(v->f_value, sizeof v->f_value, "%s", eq + 1);
	} else {
		v->f_re = re;
		v->f_re_ok = true;
	}
	return 0;
}

static bool
row_passes(const struct dash_model *m, const struct dash_view *v, int p, int row)
{
	const char *names[NFIELDS];
	char vals[NFIELDS][64], all[NFIELDS * 65];
	int n, i;
	bool hit = false;

	if (v->filter[0] == '\0' || dash_panels[p].fields == NULL)
		return true;
	n = dash_panels[p].fields(m, v, row, names, vals);
	if (v->f_field) {
		bool has = false;

		for (i = 0; i < n; i++)
			if (strcmp(names[i], v->f_name) == 0) {
				has = true;
				if (strcmp(vals[i], v->f_value) == 0)
					hit = true;
			}
		/* a field this panel's rows do not have leaves the panel alone
		   (state=PD filters queues, not VCs) */
		if (!has)
			return true;
	} else if (v->f_re_ok) {
		all[0] = '\0';
		for (i = 0; i < n; i++) {
			strcat(all, vals[i]);
			strcat(all, " ");
		}
		hit = regexec(&v->f_re, all, 0, NULL, 0) == 0;
	}
	return hit != v->f_invert;
}

/* Sort keys for the queues panel beyond the policy's order. */
static const struct dash_model *sort_m;
static int sort_key;

static int
vis_cmp(const void *a, const void *b)
{
	const struct job *x = &sort_m->d.jobs[sort_m->q[*(const int *)a].job];
	const struct job *y = &sort_m->d.jobs[sort_m->q[*(const int *)b].job];
	double dx, dy;
	int c = 0;

	switch (sort_key) {
	case 1:
		c = y->gpus - x->gpus;
		break;
	case 2:
		dx = x->state == JOB_PENDING ? x->state_since : x->submit;
		dy = y->state == JOB_PENDING ? y->state_since : y->submit;
		c = dx < dy ? -1 : dx > dy;
		break;
	case 3:
		c = strcmp(x->name, y->name);
		break;
	}
	return c != 0 ? c : *(const int *)a - *(const int *)b;
}

static const char *const sort_names[] = { "policy order", "gpus", "wait", "name" };

/* The rows of panel p that pass the filter, in display order, into v->vis. */
static void
visible_rows(struct dash_view *v, const struct dash_model *m, int p)
{
	int n = dash_panels[p].rows != NULL ? dash_panels[p].rows(m, v) : 0, i;

	v->nvis = 0;
	XGROW(v->vis, v->vis_cap, (size_t)n + 1);
	for (i = 0; i < n; i++)
		if (row_passes(m, v, p, i))
			v->vis[v->nvis++] = i;
	if (p == DP_QUEUES && v->sort != 0 && v->nvis > 1) {
		/* qsort has no argument: the comparator reads these two */
		sort_m = m;
		sort_key = v->sort;
		qsort(v->vis, (size_t)v->nvis, sizeof *v->vis, vis_cmp);
		sort_m = NULL;
	}
}

/* The end's summary screen is up: a workload played to its end. */
static bool
summary_up(const struct dash_view *v, const struct dash_model *m)
{
	return m->d.can_play && m->d.done && !v->summary_off;
}

/* ---- keys ---- */

static void
run_line(struct dash_view *v, const char *line)
{
	strbuf_reset(&v->out);
	if (v->run == NULL) {
		snprintf(v->msg, sizeof v->msg, "no command line here");
		return;
	}
	v->run(v->arg, line, v->admin, &v->out);
	v->msg[0] = '\0';
}

static void
commit_command(struct dash_view *v, const struct dash_model *m)
{
	const char *p = v->line;

	while (*p == ' ')
		p++;
	if (*p == '\0')
		return;
	if (strcmp(p, "admin") == 0) {
		v->admin = !v->admin;
		snprintf(v->msg, sizeof v->msg, "admin mode %s", v->admin ? "on: "
		    "commands that change state ask first" : "off: read-only");
		return;
	}
	if (strcmp(p, "q") == 0 || strcmp(p, "quit") == 0) {
		v->quit = true;
		return;
	}
	if (v->mutates != NULL && v->mutates(v->arg, p)) {
		/* on what only its workload changes (the emulator, a followed
		   store, no server), no admin mode or y/N first: the refusal */
		if (!m->d.writable) {
			run_line(v, p);
			return;
		}
		if (!v->admin) {
			snprintf(v->msg, sizeof v->msg, "'%.100s' changes state: "
			    "turn on admin mode with :admin first", p);
			return;
		}
		snprintf(v->pending_cmd, sizeof v->pending_cmd, "%s", p);
		v->input = DI_CONFIRM;
		return;
	}
	run_line(v, p);
}

static void
line_key(struct dash_view *v, struct dash_model *m, int key)
{
	size_t n = strlen(v->line);
	char *cause = NULL;

	if (v->input == DI_CONFIRM) {
		/* Cancel is the default: only 'y' runs it (invariant 2) */
		if (key == 'y' || key == 'Y')
			run_line(v, v->pending_cmd);
		else
			snprintf(v->msg, sizeof v->msg, "cancelled");
		v->pending_cmd[0] = '\0';
		v->input = DI_NONE;
		return;
	}
	if (key == DK_ESC) {
		v->input = DI_NONE;
		v->line[0] = '\0';
		return;
	}
	if (key == DK_KILL) {		/* Ctrl-U: the whole line, as a shell */
		v->line[0] = '\0';
		return;
	}
	if (key == DK_WERASE) {		/* Ctrl-W: the word before the cursor */
		while (n > 0 && v->line[n - 1] == ' ')
			n--;
		while (n > 0 && v->line[n - 1] != ' ')
			n--;
		v->line[n] = '\0';
		return;
	}
	if (key == DK_BACKSPACE || key == 0x7f || key == 8) {
		if (n > 0) {
			/* drop a whole UTF-8 character */
			while (n > 1 && ((unsigned char)v->line[n - 1] & 0xc0) == 0x80)
				n--;
			v->line[n - 1] = '\0';
		}
		return;
	}
	if (key == DK_TAB && v->input == DI_COMMAND && v->complete != NULL) {
		strbuf_reset(&v->out);
		v->complete(v->arg, v->line, sizeof v->line, &v->out);
		return;
	}
	if (key == DK_ENTER || key == '\n' || key == '\r') {
		enum dash_input was = v->input;

		v->input = DI_NONE;
		if (was == DI_FILTER) {
			if (dash_view_set_filter(v, v->line, &cause) != 0) {
				snprintf(v->msg, sizeof v->msg, "%s", cause);
				free(cause);
			}
			v->sel[v->panel] = v->panel == DP_EVENTS ? -1 : 0;
			v->top[v->panel] = 0;
		} else
			commit_command(v, m);
		return;
	}
	if (key >= 0x20 && key < 0x100 && key != 0x7f && n + 1 < sizeof v->line) {
		v->line[n] = (char)key;
		v->line[n + 1] = '\0';
	}
}

static void
move_sel(struct dash_view *v, const struct dash_model *m, int delta, bool abs)
{
	int p = v->panel, n;

	visible_rows(v, m, p);
	n = v->nvis;
	if (p == DP_EVENTS && v->sel[p] < 0)
		v->sel[p] = n - 1;
	v->sel[p] = abs ? delta : v->sel[p] + delta;
	if (v->sel[p] >= n)
		v->sel[p] = n - 1;
	if (v->sel[p] < 0)
		v->sel[p] = 0;
	if (p == DP_EVENTS && abs && delta >= n - 1)
		v->sel[p] = -1;		/* End: follow again */
}

static int
selected_row(struct dash_view *v, const struct dash_model *m)
{
	int p = v->panel, i;

	visible_rows(v, m, p);
	i = v->sel[p];
	if (p == DP_EVENTS && i < 0)
		i = v->nvis - 1;
	return i >= 0 && i < v->nvis ? v->vis[i] : -1;
}

bool
dash_view_key(struct dash_view *v, struct dash_model *m, int key)
{
	const struct dash_key *k;
	int row, page = v->list_h > 1 ? v->list_h - 1 : 10;

	if (v->input != DI_NONE) {
		line_key(v, m, key);
		return true;
	}
	if (v->help) {		/* any key closes the overlay */
		v->help = false;
		return true;
	}
	for (k = dash_keys; k->key != 0; k++)
		if (k->key == key)
			break;
	if (key == '\n' || key == '\r')
		for (k = dash_keys; k->key != 0 && k->action != DA_ENTER; k++)
			;
	if (!dash_action_usable(m, k->action))
		return false;	/* nothing to play, nothing to start over */
	v->msg[0] = '\0';
	switch (k->action) {
	case DA_NONE:
		return false;
	case DA_NEXT:
		v->panel = (v->panel + 1) % DASH_NPANELS;
		break;
	case DA_PREV:
		v->panel = (v->panel + DASH_NPANELS - 1) % DASH_NPANELS;
		break;
	case DA_PANEL:
		v->panel = k->arg;
		break;
	case DA_UP:
		move_sel(v, m, -1, false);
		break;
	case DA_DOWN:
		move_sel(v, m, 1, false);
		break;
	case DA_PGUP:
		move_sel(v, m, -page, false);
		break;
	case DA_PGDN:
		move_sel(v, m, page, false);
		break;
	case DA_HOME:
		move_sel(v, m, 0, true);
		break;
	case DA_END:
		move_sel(v, m, 1 << 30, true);
		break;
	case DA_OPEN:
	case DA_CLOSE:
		if (v->panel == DP_CELLS && !v->map && (row = selected_row(v, m)) >= 0)
			dash_model_set_open(m, m->rows[row], k->action == DA_OPEN);
		break;
	case DA_ENTER:
		if (v->panel == DP_CELLS && v->map)
			break;
		if (v->panel != DP_DETAIL && dash_panels[v->panel].enter != NULL &&
		    (row = selected_row(v, m)) >= 0) {
			dash_panels[v->panel].enter(m, v, row);
			v->back = v->panel;
			v->panel = DP_DETAIL;
		}
		break;
	case DA_BACK:
		if (summary_up(v, m))
			v->summary_off = true;
		else if (v->out.len > 0)
			strbuf_reset(&v->out);
		else if (v->panel == DP_DETAIL)
			v->panel = v->back;
		else if (v->filter[0] != '\0')
			dash_view_set_filter(v, "", NULL);
		break;
	case DA_FILTER:
		v->input = DI_FILTER;
		snprintf(v->line, sizeof v->line, "%s", v->filter);
		break;
	case DA_SORT:
		v->sort = (v->sort + 1) % 4;
		snprintf(v->msg, sizeof v->msg, "queues sorted by %s", sort_names[v->sort]);
		break;
	case DA_MAP:
		v->map = !v->map;
		break;
	case DA_PAUSE:
		v->paused = !v->paused;
		break;
	case DA_FASTER:
		v->speed = fmin(v->speed * 2, DASH_SPEED_MAX);
		break;
	case DA_SLOWER:
		v->speed = fmax(v->speed / 2, DASH_SPEED_MIN);
		break;
	case DA_RESTART: {
		char *cause = NULL;

		if (dash_model_restart(m, &cause) != 0) {
			snprintf(v->msg, sizeof v->msg, "%s", cause);
			free(cause);
			break;
		}
		v->summary_off = false;
		v->paused = false;
		v->sel[DP_EVENTS] = -1;
		snprintf(v->msg, sizeof v->msg, "playing again from the start");
		break;
	}
	case DA_COMMAND:
		v->input = DI_COMMAND;
		v->line[0] = '\0';
		break;
	case DA_HELP:
		v->help = true;
		break;
	case DA_QUIT:
		v->quit = true;
		break;
	}
	return true;
}

bool
dash_view_scroll(struct dash_view *v, struct dash_model *m, int delta)
{
	if (v->input != DI_NONE || v->help || v->panel == DP_DETAIL ||
	    (v->panel == DP_CELLS && v->map))
		return false;
	move_sel(v, m, delta, false);
	return true;
}

bool
dash_view_click(struct dash_view *v, struct dash_model *m, int x, int y)
{
	int i, tx = 0, w, p = v->panel, row;

	if (v->help) {
		v->help = false;
		return true;
	}
	if (v->input != DI_NONE)
		return false;
	if (y == 1) {		/* the tabs, as draw_tabs lays them out */
		for (i = 0; i < DASH_NPANELS; i++) {
			w = (int)strlen(dash_panels[i].title) + 4;
			if (x >= tx && x < tx + w) {
				v->panel = i;
				return true;
			}
			tx += w + 1;
		}
		return false;
	}
	if (p == DP_DETAIL || (p == DP_CELLS && v->map) || y < v->list_y ||
	    y >= v->list_y + v->list_h)
		return false;
	visible_rows(v, m, p);
	row = v->top[p] + y - v->list_y;
	if (row >= v->nvis)
		return false;
	if (row == (p == DP_EVENTS && v->sel[p] < 0 ? v->nvis - 1 : v->sel[p]))
		return dash_view_key(v, m, DK_ENTER);
	v->sel[p] = row;
	return true;
}

void
dash_view_state_save(const struct dash_view *v, const struct dash_model *m,
    struct strbuf *out)
{
	const struct spec *s = m->d.spec;
	int c;
	bool top;

	strbuf_addf(out, "panel %s\n", dash_panel_name(v->panel == DP_DETAIL ?
	    v->back : v->panel));
	strbuf_addf(out, "map %d\nsort %d\nspeed %.0f\n", v->map, v->sort, v->speed);
	if (v->filter[0] != '\0')
		strbuf_addf(out, "filter %s\n", v->filter);
	for (c = 0; c < s->ncells; c++) {
		top = s->cells[c].level == s->chains[s->cells[c].chain].levels;
		if (s->cells[c].nchild > 0 && (m->open[c] != 0) != top)
			strbuf_addf(out, "%s %s\n", top ? "closed" : "open", s->cells[c].addr);
	}
}

void
dash_view_state_load(struct dash_view *v, struct dash_model *m, const char *text)
{
	const struct spec *s = m->d.spec;
	const char *p = text, *e, *val;
	char line[256];
	int c, n;
	double x;

	for (; *p != '\0'; p = *e != '\0' ? e + 1 : e) {
		e = strchr(p, '\n');
		if (e == NULL)
			e = p + strlen(p);
		snprintf(line, sizeof line, "%.*s", (int)(e - p), p);
		if ((val = strchr(line, ' ')) == NULL)
			continue;
		val++;
		if (strncmp(line, "panel ", 6) == 0 && (n = dash_panel_parse(val)) >= 0 &&
		    n != DP_DETAIL && !v->panel_given)
			v->panel = n;
		else if (strncmp(line, "map ", 4) == 0)
			v->map = strcmp(val, "1") == 0;
		else if (strncmp(line, "sort ", 5) == 0 && val[0] >= '0' && val[0] <= '3' &&
		    val[1] == '\0')
			v->sort = val[0] - '0';
		else if (strncmp(line, "speed ", 6) == 0 && (x = strtod(val, NULL)) >=
		    DASH_SPEED_MIN && x <= DASH_SPEED_MAX && !v->speed_given)
			v->speed = fmin(x, DASH_SPEED_START);
		else if (strncmp(line, "filter ", 7) == 0)
			dash_view_set_filter(v, val, NULL);
		else if (strncmp(line, "open ", 5) == 0 || strncmp(line, "closed ", 7) == 0)
			for (c = 0; c < s->ncells; c++)
				if (strcmp(s->cells[c].addr, val) == 0) {
					dash_model_set_open(m, c, line[0] == 'o');
					break;
				}
	}
}

void
dash_keys_help(struct strbuf *out)
{
	const struct dash_key *k;

	for (k = dash_keys; k->key != 0; k++)
		strbuf_addf(out, "%-6s %s\n", k->name, k->help);
}

/* ---- drawing ---- */

/*
 * The status line's fields, in the order shown. When the line is wider
 * than the screen, the spec is shown by its file name, then fields go in
 * the order of drop (highest first), each whole or not at all: a field is
 * never cut mid-word. The program name and the clock stay.
 */
enum { SF_NAME, SF_SPEC, SF_MODE, SF_POLICY, SF_BACKEND, SF_TIME, SF_PLAY,
	SF_UTIL, SF_FRAG, SF_JOBS, SF_FOLLOW, SF_SERVER, SF_N };

static const struct {
	const char	*sep;	/* before the field */
	int		 drop;	/* 0: never dropped */
} status_fields[SF_N] = {
	[SF_NAME] = { "", 0 },
	[SF_SPEC] = { "  ", 3 },
	[SF_MODE] = { "  ", 4 },
	[SF_POLICY] = { "  ", 5 },
	[SF_BACKEND] = { "  ", 9 },
	[SF_TIME] = { "  ", 0 },
	[SF_PLAY] = { " ", 7 },
	[SF_UTIL] = { "  ", 2 },
	[SF_FRAG] = { "  ", 8 },
	[SF_JOBS] = { "  ", 6 },
	/* what a follower follows goes last, after utilization */
	[SF_FOLLOW] = { "  ", 1 },
	/* a live view's server: first to go while it answers (nothing to
	   act on), the last when none runs (commands cannot change state) */
	[SF_SERVER] = { "  ", 1 },
};
#define SF_SERVER_UP_DROP	10

/* Columns a string takes (UTF-8 continuation bytes take none). */
static int
text_cols(const char *p)
{
	int n = 0;

	for (; *p != '\0'; p++)
		n += ((unsigned char)*p & 0xc0) != 0x80;
	return n;
}

static int
status_width(char f[][256], const bool *on)
{
	int i, w = 0;

	for (i = 0; i < SF_N; i++)
		if (on[i] && f[i][0] != '\0')
			w += text_cols(status_fields[i].sep) + text_cols(f[i]);
	return w;
}

static void
draw_status(const struct dash_view *v, const struct dash_model *m, struct dash_screen *s)
{
	char t[32], f[SF_N][256];
	const char *base;
	bool on[SF_N];
	int i, x = 0, worst, drop[SF_N];

	dash_time_text(m, m->d.now, t, sizeof t);
	snprintf(f[SF_NAME], sizeof f[0], "cellar");
	snprintf(f[SF_SPEC], sizeof f[0], "%s", m->d.spec_name);
	snprintf(f[SF_MODE], sizeof f[0], "%s", engine_mode_name(engine_mode(m->d.engine)));
	snprintf(f[SF_POLICY], sizeof f[0], "policy %s", m->d.policy);
	snprintf(f[SF_BACKEND], sizeof f[0], "%s", m->d.backend);
	/* a live cluster's clock is the time of day, an emulator's t=elapsed */
	snprintf(f[SF_TIME], sizeof f[0], "%s%s", m->d.wall ? "" : "t=", t);
	f[SF_PLAY][0] = '\0';
	if (m->d.can_play)
		snprintf(f[SF_PLAY], sizeof f[0], "%s x%.0f",
		    m->d.done ? "done" : v->paused ? "paused" : "playing", v->speed);
	snprintf(f[SF_UTIL], sizeof f[0], "util %.0f%% of %lld GPUs", 100 * m->util,
	    m->st.gpus);
	snprintf(f[SF_FRAG], sizeof f[0], "frag %.0f%% of nodes", 100 * m->frag);
	snprintf(f[SF_JOBS], sizeof f[0], "%d run %d pend", m->running, m->pending);
	f[SF_FOLLOW][0] = '\0';
	if (m->d.follow != NULL) {
		snprintf(f[SF_FOLLOW], sizeof f[0], "%s", m->d.follow);
		f[SF_BACKEND][0] = '\0';	/* "store" says less than that */
	}
	f[SF_SERVER][0] = '\0';
	if (m->d.server != NULL)
		snprintf(f[SF_SERVER], sizeof f[0], "%s", m->d.server);
	for (i = 0; i < SF_N; i++) {
		on[i] = true;
		drop[i] = status_fields[i].drop;
	}
	if (m->d.writable)
		drop[SF_SERVER] = SF_SERVER_UP_DROP;
	if (status_width(f, on) > s->w && (base = strrchr(m->d.spec_name, '/')) != NULL &&
	    base[1] != '\0')
		snprintf(f[SF_SPEC], sizeof f[0], "%s", base + 1);
	while (status_width(f, on) > s->w) {
		for (i = 0, worst = -1; i < SF_N; i++)
			if (on[i] && drop[i] > 0 && (worst < 0 || drop[i] > drop[worst]))
				worst = i;
		if (worst < 0)
			break;	/* what stays is cut by the screen's edge */
		on[worst] = false;
	}
	dash_role_span(s, 0, 0, s->w, DR_TITLE);
	for (i = 0; i < SF_N; i++)
		if (on[i] && f[i][0] != '\0')
			x += dash_putf(s, x, 0, -1, DR_TITLE, "%s%s",
			    status_fields[i].sep, f[i]);
}

static void
draw_tabs(const struct dash_view *v, struct dash_screen *s)
{
	int i, x = 0;

	for (i = 0; i < DASH_NPANELS; i++)
		x += dash_putf(s, x, 1, -1, i == v->panel ? DR_TAB_ON : DR_TAB,
		    " %d %s ", i + 1, dash_panels[i].title) + 1;
	if (v->filter[0] != '\0')
		x += dash_putf(s, x + 1, 1, -1, DR_WARN, "filter: %s", v->filter) + 1;
	if (v->sort != 0)
		dash_putf(s, x + 1, 1, -1, DR_DIM, "sort: %s", sort_names[v->sort]);
	if (v->admin)
		dash_put(s, s->w - 7, 1, -1, DR_ADMIN, " ADMIN ");
}

static void
draw_list(struct dash_view *v, const struct dash_model *m, struct dash_screen *s,
    int y0, int h)
{
	int p = v->panel, i, sel, top;

	dash_role_span(s, 0, y0, s->w, DR_HEADER);
	/* a one-column gutter holds the selection marker, seen without colour */
	s->ox = 1;
	if (p == DP_QUEUES)
		dash_queues_header(s, y0);	/* its columns fit the width */
	else
		dash_put(s, 0, y0, -1, DR_HEADER, dash_panels[p].header);
	y0++;
	h--;
	visible_rows(v, m, p);
	v->list_h = h;
	v->list_y = y0;
	if (v->nvis == 0) {
		dash_put(s, 2, y0, -1, DR_DIM, v->filter[0] ? "(no rows match the filter)" :
		    "(nothing yet)");
		s->ox = 0;
		return;
	}
	sel = v->sel[p];
	if (p == DP_EVENTS && sel < 0)
		sel = v->nvis - 1;	/* following */
	if (sel >= v->nvis)
		sel = v->nvis - 1;
	if (sel < 0)
		sel = 0;
	if (v->sel[p] >= 0)
		v->sel[p] = sel;
	top = v->top[p];
	if (sel < top)
		top = sel;
	if (sel >= top + h)
		top = sel - h + 1;
	if (top > v->nvis - h)
		top = v->nvis - h;
	if (top < 0)
		top = 0;
	v->top[p] = top;
	for (i = 0; i < h && top + i < v->nvis; i++)
		dash_panels[p].draw_row(m, v, s, v->vis[top + i], y0 + i, s->w - 1);
	s->ox = 0;
	if (sel - top < h) {
		dash_role_span(s, 0, y0 + sel - top, s->w, DR_SELECT);
		dash_put(s, 0, y0 + sel - top, 1, DR_SELECT, dash_glyph(s, DG_SELECT));
	}
}

/* Rows the node map takes at width w, with its header. */
static int
map_rows(const struct dash_model *m, int w)
{
	const struct spec *sp = m->d.spec;
	int c, k, lv, up, n, per = w - 11 > 1 ? w - 11 : 1, rows = 1;

	for (c = 0; c < sp->nchains; c++) {
		lv = sp->chains[c].node_level;
		up = lv < sp->chains[c].levels ? lv + 1 : lv;
		for (k = 0; k < sp->chains[c].level_count[up]; k++) {
			int cell = sp->chains[c].level_first[up] + k;

			n = up == lv ? 1 : sp->cells[cell].nchild;
			rows += (n + per - 1) / per;
		}
	}
	return rows;
}

/* The compact node map: one character per node, a rack (the level above
   nodes) per line, wrapped to the width. */
static void
draw_map(const struct dash_model *m, struct dash_screen *s, int y0, int h)
{
	const struct spec *sp = m->d.spec;
	int c, k, i, y = y0, x, lv, up;

	dash_put(s, 0, y++, -1, DR_HEADER,
	    "node map: letter = VC (lower case opportunistic)  . free  , bound idle  # bad");
	for (c = 0; c < sp->nchains && y < y0 + h; c++) {
		lv = sp->chains[c].node_level;
		up = lv < sp->chains[c].levels ? lv + 1 : lv;
		for (k = 0; k < sp->chains[c].level_count[up] && y < y0 + h; k++) {
			int cell = sp->chains[c].level_first[up] + k;
			int first = up == lv ? cell : sp->cells[cell].first_child;
			int n = up == lv ? 1 : sp->cells[cell].nchild;

			dash_put(s, 0, y, 10, DR_DIM, sp->cells[cell].addr);
			for (i = 0, x = 11; i < n; i++, x++) {
				int node = sp->cells[first + i].node;
				char ch[2] = { 0, 0 };
				unsigned char role;

				if (x >= s->w) {
					if (++y >= y0 + h)
						break;
					x = 11;
				}
				/* only the nodes on screen are looked at */
				dash_model_node(m, node, &ch[0], &role);
				dash_put(s, x, y, 1, role, ch);
			}
			y++;
		}
	}
}

/*
 * The first panel: the VC meters (at most a quarter of the rows), the cell
 * tree or node map, and the newest events in the rows the tree leaves (a
 * fifth of them at least, 3 to start with).
 */
static void
draw_overview(struct dash_view *v, const struct dash_model *m, struct dash_screen *s,
    int y0, int h)
{
	int mh, th, eh, want;

	mh = dash_meter_rows(m, s->w, h / 4);
	if (mh > 0)
		mh = dash_meters_draw(m, s, y0, mh);
	eh = h / 5 > 3 ? h / 5 : 3;
	if (h - mh - eh < 4)
		eh = 0;		/* too short: the tree alone */
	/* the tree's rows (its header and a row per visible cell), or the map's */
	want = 1 + (v->map ? map_rows(m, s->w) : m->nrows);
	th = h - mh - eh;
	if (eh > 0 && want < th) {
		eh += th - want;
		th = want;
	}
	if (v->map)
		draw_map(m, s, y0 + mh, th);
	else
		draw_list(v, m, s, y0 + mh, th);
	if (eh > 0)
		dash_event_tail(m, s, y0 + mh + th, eh);
}

static int
detail_line(struct dash_screen *s, int y, int ymax, enum dash_role r, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int
detail_line(struct dash_screen *s, int y, int ymax, enum dash_role r, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (y >= ymax)
		return y;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	dash_put(s, 1, y, -1, r, sb.buf);
	strbuf_release(&sb);
	return y + 1;
}

/* Why a pending job waits and what would let it run. */
static int
explain(const struct dash_model *m, const struct job *j, struct dash_screen *s,
    int y, int ymax)
{
	const struct engine_vc_usage *u = &m->vcs[j->vc].u;
	int ahead = 0, i;

	y = detail_line(s, y, ymax, DR_WARN, "waits: %s - %s", job_reason_name(j->reason),
	    job_reason_help(j->reason));
	for (i = m->vq_first[j->vc]; i < m->vq_first[j->vc + 1]; i++) {
		if (m->q[i].job == j->id)
			break;
		if (!m->q[i].active)
			ahead++;
	}
	y = detail_line(s, y, ymax, DR_NORMAL, "%d pending job%s ahead of it in %s's "
	    "policy order", ahead, ahead == 1 ? "" : "s", m->vcs[j->vc].name);
	switch (j->reason) {
	case JOB_REASON_VCFULL:
	case JOB_REASON_PRIORITY:
		y = detail_line(s, y, ymax, DR_NORMAL, "would run when %s has %d GPUs free "
		    "(now %lld free of %lld assigned; %d of its jobs running)",
		    m->vcs[j->vc].name, j->gpus, u->free, u->gpus, u->jobs);
		break;
	case JOB_REASON_FRAGMENTED:
		y = detail_line(s, y, ymax, DR_NORMAL, "%lld GPUs are free in %s but not "
		    "%d together in one cell: a completion in the right cell lets it run",
		    u->free, m->vcs[j->vc].name, j->gpus);
		break;
	case JOB_REASON_BADNODES:
		y = detail_line(s, y, ymax, DR_NORMAL, "room exists only on bad nodes: "
		    "a node coming back (node ok) lets it run");
		break;
	case JOB_REASON_RESOURCES:
		y = detail_line(s, y, ymax, DR_NORMAL, "no idle GPUs anywhere for an "
		    "opportunistic job: any completion may let it run");
		break;
	default:
		break;
	}
	return y;
}

/*
 * The jobs on a cell's GPUs, as `cells NODE` lists them: each with its
 * VC, its GPUs here (of all it holds) and its class, in leaf order.
 */
static void
cell_jobs(const struct dash_model *m, int cell, struct dash_screen *s, int y, int ymax)
{
	const struct spec *sp = m->d.spec;
	struct engine_cell_info ci;
	struct engine_job_info ji;
	int lo = cell, hi = cell, i, k, n = 0, *ids, *here;

	while (sp->cells[lo].nchild > 0)
		lo = sp->cells[lo].first_child;
	while (sp->cells[hi].nchild > 0)
		hi = sp->cells[hi].first_child + sp->cells[hi].nchild - 1;
	ids = xcalloc((size_t)(hi - lo + 1), sizeof *ids);
	here = xcalloc((size_t)(hi - lo + 1), sizeof *here);
	for (i = lo; i <= hi; i++) {	/* a subtree's leaves are contiguous */
		engine_cell(m->d.engine, i, &ci);
		if (ci.job < 0)
			continue;
		for (k = 0; k < n && ids[k] != ci.job; k++)
			;
		if (k == n)
			ids[n++] = ci.job;
		here[k]++;
	}
	if (n == 0)
		y = detail_line(s, y, ymax, DR_DIM, "no job on it");
	else
		y = detail_line(s, y, ymax, DR_HEADER, "%d job%s on it:", n,
		    n == 1 ? "" : "s");
	for (k = 0; k < n; k++) {
		if (!engine_job(m->d.engine, ids[k], &ji))
			continue;
		y = detail_line(s, y, ymax, DR_NORMAL, "  %-24s vc %-10s %d of its "
		    "%d GPUs here  %s", ji.name, ji.vc >= 0 && ji.vc < sp->nvcs ?
		    sp->vcs[ji.vc].name : "-", here[k], ji.nleaves,
		    ji.priority < 0 ? "opportunistic" : "guaranteed");
	}
	free(ids);
	free(here);
}

static void
draw_detail(struct dash_view *v, const struct dash_model *m, struct dash_screen *s,
    int y, int ymax)
{
	const struct spec *sp = m->d.spec;
	struct engine_cell_info ci;
	struct engine_job_info ji;
	char a[32], b[32];
	int l;

	switch (v->d_kind) {
	case DD_NONE:
		detail_line(s, y, ymax, DR_DIM, "Enter on a job, cell or VC shows it here");
		return;
	case DD_JOB: {
		const struct job *j;

		if (v->d_id < 0 || v->d_id >= m->d.njobs)
			return;
		j = &m->d.jobs[v->d_id];
		y = detail_line(s, y, ymax, DR_TITLE, "job %s", j->name);
		dash_time_text(m, j->submit, a, sizeof a);
		y = detail_line(s, y, ymax, DR_NORMAL, "vc %s  state %s (%s)  gpus %d  "
		    "class %s%s  submitted %s%s", sp->vcs[j->vc].name,
		    job_state_code(j->state), job_state_name(j->state), j->gpus,
		    job_class_name(j->klass), j->opportunistic ? ", running opportunistic" : "",
		    m->d.wall ? "" : "t=", a);
		/* the open period counts: a job waiting since its submission
		   read "queued 0s"; a live job's run time grows only when it
		   stops (the emulator's as it goes) */
		dash_format_dur(job_queued_at(j, m->d.now), a, sizeof a);
		dash_format_dur(m->d.phases != NULL ? job_run_time_at(j, m->d.now) :
		    j->run_time, b, sizeof b);
		y = detail_line(s, y, ymax, DR_NORMAL, "queued %s  ran %s  attained %.0f "
		    "GPU-s  restarts %d  preemptions %d", a, b, j->attained, j->restarts,
		    j->preemptions);
		if (j->engine_id >= 0 && engine_job(m->d.engine, j->engine_id, &ji)) {
			struct strbuf sb = STRBUF_INIT;
			int i, last = -1;

			for (i = 0; i < ji.nleaves; i++) {
				int node = sp->cells[ji.leaves[i]].node;

				if (node != last && node >= 0)
					strbuf_addf(&sb, "%s%s", sb.len ? "," : "", sp->nodes[node].name);
				last = node;
			}
			y = detail_line(s, y, ymax, DR_NORMAL, "placement: %d pod%s on %s%s",
			    ji.npods, ji.npods == 1 ? "" : "s", sb.buf,
			    ji.downgraded ? " (lazily preempted: opportunistic)" : "");
			strbuf_release(&sb);
		}
		if (j->state == JOB_PENDING)
			y = explain(m, j, s, y, ymax);
		if (v->history != NULL) {
			struct strbuf sb = STRBUF_INIT;
			char *line, *save = NULL;

			v->history(v->arg, j->name, &sb);
			for (line = strtok_r(sb.buf, "\n", &save); line != NULL;
			    line = strtok_r(NULL, "\n", &save))
				y = detail_line(s, y, ymax, DR_DIM, "%s", line);
			strbuf_release(&sb);
		}
		return;
	}
	case DD_CELL:
		if (v->d_id < 0 || v->d_id >= sp->ncells)
			return;
		engine_cell(m->d.engine, v->d_id, &ci);
		y = detail_line(s, y, ymax, DR_TITLE, "cell %s (%s, level %d)",
		    sp->cells[v->d_id].addr, sp->types[sp->cells[v->d_id].type].name,
		    sp->cells[v->d_id].level);
		y = detail_line(s, y, ymax, DR_NORMAL, "state %s  vc %s%s%s",
		    engine_cell_state_name(ci.state), ci.vc >= 0 ? sp->vcs[ci.vc].name : "-",
		    ci.doomed ? "  doomed (bound because bad)" : "", ci.pinned ? "  pinned" : "");
		y = detail_line(s, y, ymax, DR_NORMAL, "GPUs %d: %d guaranteed, %d "
		    "opportunistic, %d bad", ci.leaves, ci.used, ci.opp, ci.bad);
		cell_jobs(m, v->d_id, s, y, ymax);
		return;
	case DD_VC: {
		const struct dash_vc *c;

		if (v->d_id < 0 || v->d_id >= m->nvcs)
			return;
		c = &m->vcs[v->d_id];
		y = detail_line(s, y, ymax, DR_TITLE, "vc %s (%c)", c->name, c->letter);
		y = detail_line(s, y, ymax, DR_NORMAL, "%lld GPUs assigned: %lld used by "
		    "its guaranteed jobs (%d), %lld bad, %lld free; %lld GPUs of its "
		    "opportunistic jobs (%d) elsewhere", c->u.gpus, c->u.used, c->u.jobs,
		    c->u.bad, c->u.free, c->u.opp, c->u.opp_jobs);
		y = detail_line(s, y, ymax, DR_NORMAL, "queue: %d pending, %d running; "
		    "%d doomed cells", c->pending, c->running, c->u.doomed);
		for (l = SPEC_MAX_LEVELS; l >= 1; l--)
			if (c->u.assigned[l] > 0)
				y = detail_line(s, y, ymax, DR_NORMAL, "level %d cells: %d "
				    "assigned, %d bound now", l, c->u.assigned[l], c->u.bound[l]);
		return;
	}
	}
}

/*
 * The bottom line's reminders, in order of use; each shown whole or not
 * at all, and only where the key does something here (nothing to play
 * on a live cluster).
 */
static const struct {
	const char	*text;
	enum dash_action need;	/* DA_NONE: always */
	bool		 at_end;	/* only once the workload has ended */
} hints[] = {
	{ "?:help", DA_NONE, false },
	{ "r:restart", DA_RESTART, true },
	{ "Tab/1-5:panels", DA_NONE, false },
	{ "Enter:detail", DA_NONE, false },
	{ "/:filter", DA_NONE, false },
	{ "Space:pause", DA_PAUSE, false },
	{ "+/-:speed", DA_FASTER, false },
	{ "::command", DA_NONE, false },
	{ "s:sort", DA_NONE, false },
	{ "m:map", DA_NONE, false },
	{ "q:quit", DA_NONE, false },
};

static void
draw_hints(const struct dash_model *m, struct dash_screen *s, int y)
{
	size_t i;
	int x = 0, n;

	for (i = 0; i < sizeof hints / sizeof hints[0]; i++) {
		if (!dash_action_usable(m, hints[i].need) || (hints[i].at_end && !m->d.done))
			continue;
		n = (int)strlen(hints[i].text);
		if (x + n > s->w)
			continue;
		x += dash_put(s, x, y, n, DR_DIM, hints[i].text) + 2;
	}
}

void
dash_view_draw(struct dash_view *v, const struct dash_model *m, struct dash_screen *s)
{
	int body, outh = 0, y, nl = 0;
	const char *p;

	dash_screen_clear(s);
	if (s->w < DASH_MIN_W || s->h < DASH_MIN_H) {
		dash_putf(s, 0, 0, -1, DR_WARN, "terminal too small (need %dx%d)",
		    DASH_MIN_W, DASH_MIN_H);
		return;
	}
	draw_status(v, m, s);
	draw_tabs(v, s);
	for (p = v->out.buf; *p != '\0'; p++)
		nl += *p == '\n';
	if (v->out.len > 0)
		outh = nl + 1 < (s->h - 3) / 2 ? nl + 1 : (s->h - 3) / 2;
	body = s->h - 3 - outh;
	dash_series_note(&v->series, m);
	if (v->panel == DP_DETAIL)
		draw_detail(v, m, s, 2, 2 + body);
	else if (v->panel == DP_SERIES)
		dash_series_draw(v->series, m, s, 2, body);
	else if (v->panel == DP_CELLS)
		draw_overview(v, m, s, 2, body);
	else
		draw_list(v, m, s, 2, body);
	if (outh > 0) {
		const char *q = v->out.buf;

		y = s->h - 1 - outh;
		dash_fill(s, 0, y++, s->w, DR_DIM, DG_HLINE);
		/* the last lines of the output */
		for (; nl > outh - 1; nl--)
			q = strchr(q, '\n') + 1;
		for (; y < s->h - 1 && *q != '\0'; y++) {
			const char *e = strchr(q, '\n');
			char buf[512];
			int n = e ? (int)(e - q) : (int)strlen(q);

			snprintf(buf, sizeof buf, "%.*s", n, q);
			dash_put(s, 0, y, -1, DR_NORMAL, buf);
			q = e ? e + 1 : q + n;
		}
	}
	y = s->h - 1;
	if (v->input == DI_FILTER)
		dash_putf(s, 0, y, -1, DR_NORMAL, "/%s", v->line);
	else if (v->input == DI_COMMAND)
		dash_putf(s, 0, y, -1, DR_NORMAL, ":%s", v->line);
	else if (v->input == DI_CONFIRM)
		dash_putf(s, 0, y, -1, DR_ADMIN, "run '%s'? [y/N] (default: cancel)",
		    v->pending_cmd);
	else if (v->msg[0] != '\0')
		dash_put(s, 0, y, -1, DR_WARN, v->msg);
	else
		draw_hints(m, s, y);
	if (v->help)
		dash_help_draw(v, m, s);
	else if (summary_up(v, m))
		dash_summary_draw(m, s);
}
