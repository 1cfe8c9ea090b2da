/*
 * chart.h — line charts of time series drawn into a screen grid
 * (screen.h): the `plot` command prints them, the dashboard's series panel
 * shows them. Unicode braille gives each cell 2 x 4 dots; the ASCII form
 * (screen->ascii) one mark per cell, a letter per series. The chart has a
 * title line, a y axis with three labels and its unit, an x axis with three
 * time labels and its unit, and a legend line.
 *
 * Ownership: the chart borrows its times, values and names; drawing
 * allocates nothing that outlives the call.
 *
 * Invariants:
 *  1. A sample at time t lands in column floor((t - t0) / (t1 - t0) *
 *     (dots - 1) + 0.5) of the plot area's dot columns (dots = its width x
 *     2 in braille, x 1 in ASCII), so the same data always draws the same
 *     picture; several samples in one column draw their whole range.
 *  2. NAN values are gaps: nothing is drawn for them.
 *  3. The y axis starts at 0 unless a value is negative, and ends at the
 *     largest value rounded up to 1, 2 or 5 times a power of ten.
 */
#ifndef CELLAR_DASH_CHART_H
#define CELLAR_DASH_CHART_H

#include "dash/screen.h"

/* One curve: values at the chart's times (NAN: no value there). */
struct dash_curve {
	const char	*name;		/* the legend's word */
	const double	*y;
};

struct dash_chart {
	const char		*title;
	const char		*yunit;		/* "GPUs", "jobs", "h" */
	const double		*t;		/* seconds, increasing */
	int			 n;
	const struct dash_curve	*c;
	int			 nc;
	double			 yscale;	/* values are divided by it (3600: h) */
};

/* Smallest box a chart fits in: axis labels, a plot area, the legend. */
#define DASH_CHART_MIN_W	24
#define DASH_CHART_MIN_H	6

/* Width of the y axis's labels and tick (the plot area starts after it). */
#define DASH_CHART_YAXIS	8

/*
 * Draw c into the w x h box at (x, y) of s. Returns 0, or -1 with *cause
 * when the box is under the minimum or the chart has no sample.
 */
int	dash_chart_draw(struct dash_screen *s, int x, int y, int w, int h,
	    const struct dash_chart *c, char **cause);

/* The column of the plot area a time lands in (invariant 1), for tests. */
int	dash_chart_column(const struct dash_chart *c, int w, bool ascii, double t);

/* "1.5 h", "30 m", "2 d": a time on the x axis in the unit that suits span. */
void	dash_chart_time_unit(double span, const char **unit, double *secs);

#endif
