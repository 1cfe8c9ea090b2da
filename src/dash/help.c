/*
 * help.c — the dashboard's overlays: the '?' help (the key table, keys
 * that share an action and a help line on one line, then the glyph
 * legend) and the summary shown when a played workload has ended. Both
 * lay out whole words: a line too long for its column wraps at a blank,
 * so nothing is cut at 80x24.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "dash/dash-view-int.h"

bool
dash_action_usable(const struct dash_model *m, enum dash_action a)
{
	switch (a) {
	case DA_PAUSE:
	case DA_FASTER:
	case DA_SLOWER:
		return m->d.can_play;
	case DA_RESTART:
		return m->src->ops->restart != NULL;
	default:
		return true;
	}
}

/* The legend, one entry a line; %s are glyphs (bar used, opp, bad, free). */
static const char *const legend[] = {
	"tree: G=guaranteed o=opportunistic r=reserved .=free "
	    "!=bad-below X=all-bad D=doomed",
	"map: A=a VC's jobs a=opportunistic .=free ,=reserved #=bad",
	"bars: %s=used %s=opportunistic %s=bad %s=free",
	"meters: used/guaranteed, +N opp elsewhere, bad, pending",
};

/* Items to lay out: "KEYS  help" for each action's keys, then the legend. */
static void
help_items(const struct dash_model *m, const struct dash_screen *s,
    struct strbuf *items, int *n)
{
	const struct dash_key *k, *j;
	char keys[64];
	size_t i;

	*n = 0;
	for (k = dash_keys; k->key != 0; k++) {
		if (!dash_action_usable(m, k->action))
			continue;
		/* keys for the same thing with the same words: one line */
		for (j = dash_keys; j < k; j++)
			if (j->action == k->action && j->arg == k->arg &&
			    strcmp(j->help, k->help) == 0)
				break;
		if (j < k)
			continue;
		snprintf(keys, sizeof keys, "%s", k->name);
		for (j = k + 1; j->key != 0; j++)
			if (j->action == k->action && j->arg == k->arg &&
			    strcmp(j->help, k->help) == 0)
				snprintf(keys + strlen(keys), sizeof keys - strlen(keys),
				    " %s", j->name);
		strbuf_addf(items, "%-7s %s", keys, k->help);
		strbuf_addchars(items, '\0', 1);
		(*n)++;
	}
	for (i = 0; i < sizeof legend / sizeof legend[0]; i++) {
		strbuf_addf(items, legend[i], dash_glyph(s, DG_BAR_FULL),
		    dash_glyph(s, DG_BAR_OPP), dash_glyph(s, DG_BAR_BAD),
		    dash_glyph(s, DG_BAR_EMPTY));
		strbuf_addchars(items, '\0', 1);
		(*n)++;
	}
}

/* Columns a string takes (UTF-8 continuation bytes take none). */
static int
cols_of(const char *p, size_t n)
{
	int c = 0;
	size_t i;

	for (i = 0; i < n && p[i] != '\0'; i++)
		c += ((unsigned char)p[i] & 0xc0) != 0x80;
	return c;
}

/*
 * Lay one item out in w columns, continuation lines indented by ind:
 * at (x, y) when draw, else only counted. Returns the lines it takes.
 */
static int
wrap_item(struct dash_screen *s, const char *p, int x, int y, int w, int ind,
    bool draw)
{
	int lines = 0, room, used;
	const char *e, *brk;
	char buf[512];

	while (*p != '\0') {
		room = w - (lines > 0 ? ind : 0);
		/* the longest run of whole words that fits in room */
		brk = NULL;
		for (e = p, used = 0; *e != '\0'; e++) {
			if (*e == ' ' && used <= room)
				brk = e;
			used += ((unsigned char)*e & 0xc0) != 0x80;
			if (used > room)
				break;
		}
		if (*e == '\0' && used <= room)
			brk = e;
		else if (brk == NULL || brk == p)	/* one word longer than room */
			for (brk = p, used = 0; *brk != '\0' && used < room; brk++)
				used += ((unsigned char)*brk & 0xc0) != 0x80;
		if (draw) {
			snprintf(buf, sizeof buf, "%.*s", (int)(brk - p), p);
			dash_put(s, x + (lines > 0 ? ind : 0), y + lines,
			    cols_of(buf, sizeof buf), DR_NORMAL, buf);
		}
		lines++;
		for (p = brk; *p == ' '; p++)
			;
	}
	return lines > 0 ? lines : 1;
}

void
dash_help_draw(const struct dash_view *v, const struct dash_model *m,
    struct dash_screen *s)
{
	struct strbuf items = STRBUF_INIT;
	const char *p;
	int n, cols, cw, rows = s->h - 2, y0 = 2, i, lines, col, y;

	(void)v;
	help_items(m, s, &items, &n);
	/* as few columns as hold every item whole */
	for (cols = 1; cols < 4; cols++) {
		cw = (s->w - 2) / cols - 1;
		for (i = 0, p = items.buf, col = 0, y = 0; i < n; i++, p += strlen(p) + 1) {
			lines = wrap_item(s, p, 0, 0, cw, 8, false);
			if (y + lines > rows) {
				col++;
				y = 0;
			}
			y += lines;
		}
		if (col < cols)
			break;
	}
	if (cols == 4)
		cols = 3;
	cw = (s->w - 2) / cols - 1;
	for (y = 1; y < s->h; y++)
		dash_fill(s, 0, y, s->w, DR_NORMAL, DG_HEALTHY);
	dash_put(s, 1, 1, -1, DR_TITLE, "keys (any key closes this)");
	for (i = 0, p = items.buf, col = 0, y = 0; i < n; i++, p += strlen(p) + 1) {
		lines = wrap_item(s, p, 0, 0, cw, 8, false);
		if (y + lines > rows) {
			col++;
			y = 0;
		}
		if (col >= cols)
			break;
		wrap_item(s, p, 1 + col * (cw + 1), y0 + y, cw, 8, true);
		y += lines;
	}
	strbuf_release(&items);
}

void
dash_summary_draw(const struct dash_model *m, struct dash_screen *s)
{
	struct dash_summary su;
	char t[32], line[8][128];
	int n = 0, i, w = 0, x, y, bw;

	dash_model_summary(m, &su);
	dash_format_dur(su.now - m->d.epoch, t, sizeof t);
	snprintf(line[n++], sizeof line[0], "The %s is over: %s played.",
	    m->d.end > 0 ? "demo" : "workload", t);
	snprintf(line[n++], sizeof line[0], "%d jobs arrived: %d completed, %d "
	    "still queued or running.", su.jobs, su.done, su.left);
	snprintf(line[n++], sizeof line[0], "GPUs busy %.0f%% of the time on "
	    "average (%lld GPUs).", 100 * su.util, m->st.gpus);
	snprintf(line[n++], sizeof line[0], "%lld preemptions, %lld node failures, "
	    "%lld jobs failed with a node.", su.preemptions, su.node_failures,
	    su.failed);
	line[n++][0] = '\0';
	snprintf(line[n++], sizeof line[0], "%sq: quit   Esc: look around",
	    dash_action_usable(m, DA_RESTART) ? "r: play it again   " : "");
	for (i = 0; i < n; i++)
		if (cols_of(line[i], sizeof line[i]) > w)
			w = cols_of(line[i], sizeof line[i]);
	bw = w + 4 < s->w ? w + 4 : s->w;
	x = (s->w - bw) / 2;
	y = (s->h - n - 2) / 2;
	for (i = -1; i <= n; i++) {
		dash_fill(s, x, y + i, bw, DR_TITLE, DG_HEALTHY);
		if (i >= 0 && i < n)
			dash_put(s, x + 2, y + i, bw - 4, DR_TITLE, line[i]);
	}
}
