/*
 * dash-view-int.h — what the dashboard's drawing files share inside src/dash:
 * dash-view.c (keys, the frame), panels.c (the list panels), overview.c (the first panel's VC
 * meters and event tail) and help.c (the '?' overlay and the end's
 * summary). Not for anyone else.
 *
 * Invariants:
 *  1. Everything here draws inside the rows it is given, never past them.
 */
#ifndef CELLAR_DASH_VIEW_INT_H
#define CELLAR_DASH_VIEW_INT_H

#include "dash/dash-view.h"

/* A list panel: one row of dash_panels (panels.c). */
struct dash_panel_ops {
	const char	*name;
	const char	*title;
	/* rows before filtering */
	int		(*rows)(const struct dash_model *m, const struct dash_view *v);
	/* filter fields of a row: fills names/values, returns how many; the
	   regex runs on the values joined by blanks */
	int		(*fields)(const struct dash_model *m, const struct dash_view *v,
			    int row, const char **names, char vals[][64]);
	void		(*draw_row)(const struct dash_model *m, const struct dash_view *v,
			    struct dash_screen *s, int row, int y, int w);
	const char	*header;
	void		(*enter)(const struct dash_model *m, struct dash_view *v, int row);
};

#define NFIELDS	6

extern const struct dash_panel_ops dash_panels[DASH_NPANELS];
/* The queues panel's column header on row y (the columns fit the width). */
void	dash_queues_header(struct dash_screen *s, int y);

/*
 * A time of the source's clock as the dashboard shows it: a live
 * cluster's (dash_data.wall) as the local wall-clock time, "14:03:22"
 * ("Mar 04 14:03" on another day than now); an emulated one as the time
 * since the start, "2h03m".
 */
void	dash_time_text(const struct dash_model *m, double t, char *buf, size_t len);
/* One event as the Events panel shows it, on row y, w columns. */
void	dash_event_row(const struct dash_model *m, const struct rec *r,
	    struct dash_screen *s, int y, int w);
/* Rows the VC meters take at width w, at most maxh (0: none fit). */
int	dash_meter_rows(const struct dash_model *m, int w, int maxh);
/* Draw them from row y; returns the rows drawn. */
int	dash_meters_draw(const struct dash_model *m, struct dash_screen *s, int y,
	    int maxh);
/* The newest events that fit rows y .. y + h - 1, under a title row. */
void	dash_event_tail(const struct dash_model *m, struct dash_screen *s, int y, int h);
/* The '?' overlay: the keys and the glyph legend, words never cut. */
void	dash_help_draw(const struct dash_view *v, const struct dash_model *m,
	    struct dash_screen *s);
/* The end of a played workload: what happened, and how to go on. */
void	dash_summary_draw(const struct dash_model *m, struct dash_screen *s);
/* Whether a key of this action does anything on this source (Space, +
   and - need something to play, r a source that can start over). */
bool	dash_action_usable(const struct dash_model *m, enum dash_action a);

#endif
