/*
 * screen.h — a frame as a grid of character cells, each with a semantic
 * role (htop's CRT_colors idea): the panels draw into it without knowing
 * whether it ends up as plain text (dash --once) or on a curses terminal
 * (ui/dash.c maps roles to colours and attributes). Glyphs come from one
 * table in a UTF-8 and an ASCII form.
 *
 * Ownership: a screen owns its cells; dash_screen_release frees them.
 *
 * Invariants:
 *  1. Every cell holds one complete character (1-4 bytes of UTF-8, or a
 *     space) of display width 1; writes past the edge are clipped.
 *  2. The glyph table has both forms for every glyph, and the ASCII form
 *     is one byte.
 */
#ifndef CELLAR_DASH_SCREEN_H
#define CELLAR_DASH_SCREEN_H

#include <stdbool.h>

#include "core/strbuf.h"

/* What a cell means; the face picks its look (colour, bold, reverse). */
enum dash_role {
	DR_NORMAL,
	DR_DIM,
	DR_TITLE,	/* panel titles, the status line */
	DR_TAB,		/* an inactive panel tab */
	DR_TAB_ON,	/* the active one */
	DR_HEADER,	/* column headers */
	DR_SELECT,	/* the selected row */
	DR_FREE,
	DR_USED,	/* guaranteed use */
	DR_OPP,		/* opportunistic use */
	DR_RESERVED,	/* bound to a VC, idle */
	DR_BAD,
	DR_DOOMED,
	DR_WARN,
	DR_ADMIN,	/* the admin-mode banner */
	DR_VC0,		/* VC colours, cycling: VC i uses DR_VC0 + i % DASH_VC_COLORS */
	DR_NROLES = DR_VC0 + 6
};
#define DASH_VC_COLORS	6

enum dash_glyph {
	DG_HLINE,
	DG_VLINE,
	DG_OPEN,	/* an expanded tree node */
	DG_CLOSED,	/* a collapsed one */
	DG_LEAF,
	DG_BAR_FULL,
	DG_BAR_OPP,
	DG_BAR_BAD,
	DG_BAR_EMPTY,
	DG_BAD_BELOW,	/* some leaf below is bad */
	DG_BAD,		/* every leaf below is bad */
	DG_DOOMED,
	DG_HEALTHY,
	DG_ARROW,	/* "preempted by" */
	DG_SELECT,	/* marks the selected row without colour */
	DG_NGLYPHS
};

struct dash_cell {
	char		 ch[4];
	unsigned char	 len;
	unsigned char	 role;
};

struct dash_screen {
	int		 w, h;
	bool		 ascii;		/* glyphs in their ASCII form */
	int		 ox;		/* added to every x: a list's marker gutter */
	struct dash_cell *c;
};

void	dash_screen_init(struct dash_screen *s, int w, int h, bool ascii);
void	dash_screen_release(struct dash_screen *s);
void	dash_screen_clear(struct dash_screen *s);
/* The glyph's form for this screen. */
const char *dash_glyph(const struct dash_screen *s, enum dash_glyph g);
/*
 * Write UTF-8 text at (x, y), at most maxw cells (-1: to the edge); control
 * bytes and invalid sequences show as '?'. Returns the cells written.
 */
int	dash_put(struct dash_screen *s, int x, int y, int maxw, enum dash_role role,
	    const char *text);
int	dash_putf(struct dash_screen *s, int x, int y, int maxw, enum dash_role role,
	    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Repeat a glyph n times. */
void	dash_fill(struct dash_screen *s, int x, int y, int n, enum dash_role role,
	    enum dash_glyph g);
/*
 * A bar of w cells over total: used, opp and bad GPUs in proportion (each
 * at least one cell when there is any), then free; an empty bar when total
 * is 0.
 */
void	dash_bar(struct dash_screen *s, int x, int y, int w, long long total,
	    long long used, long long opp, long long bad);
/* Give a whole row (x..x+n-1) one role, keeping its characters. */
void	dash_role_span(struct dash_screen *s, int x, int y, int n, enum dash_role role);
/* The frame as text lines, trailing spaces dropped. */
void	dash_screen_text(const struct dash_screen *s, struct strbuf *out);

#endif
