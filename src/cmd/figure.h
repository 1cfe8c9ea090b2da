/*
 * figure.h — what the plots share: each VC's queuing delay over a moving
 * window of submissions (the `plot` command's and the figures' curves, as
 * replay --series writes them), and figure files (SVG or PNG) drawn by
 * gnuplot: cellar writes the data and a script to a private temporary
 * directory and runs `gnuplot SCRIPT` by fork/exec, no shell.
 *
 * Ownership: callers own every array they pass; figure_write removes its
 * temporary directory before it returns.
 *
 * Invariants:
 *  1. figure_delay's value at time t is the mean of first_start - submit
 *     over the started jobs (of vc, or all when vc < 0) submitted in
 *     (t - win, t]; NAN when there is none.
 *  2. figure_write writes path only through gnuplot, and returns 0 only
 *     when gnuplot exited 0 and path exists and is not empty.
 */
#ifndef CELLAR_CMD_FIGURE_H
#define CELLAR_CMD_FIGURE_H

struct job;

/* Bars: one cluster per group (a VC, a run), one bar per series in it. */
struct figure_bars {
	const char		*title, *ylabel;
	int			 ngroups, nseries;
	const char *const	*group;		/* ngroups names */
	const char *const	*series;	/* nseries names */
	const double		*v;		/* v[g * nseries + s] */
};

/* Curves over time (seconds; drawn in hours). */
struct figure_curves {
	const char		*title, *ylabel;
	const double		*t;
	int			 n, nc;
	const char *const	*name;		/* nc names */
	const double		*y;		/* y[c * n + i]; NAN: a gap */
	const int		*color;		/* per curve, or NULL: its index */
	const int		*dashed;	/* per curve 0/1, or NULL: solid */
};

/* What the delay curves need of a started job (24 bytes, not a job's 352). */
struct figure_wait {
	double		 submit;
	double		 wait;		/* first_start - submit */
	int		 vc;
};

/*
 * Each time's windowed mean queuing delay (invariant 1) into out[n], of
 * VC vc (< 0: all). The waits are sorted by submit in place.
 */
void	figure_delay_waits(struct figure_wait *w, int nw, int vc, double win,
	    const double *t, int n, double *out);
/* The same from jobs as a replay ends them (not started: left out). */
void	figure_delay(const struct job *jobs, int njobs, int vc, double win,
	    const double *t, int n, double *out);

/* 0 if path names a kind figure_write draws (.svg, .png); else -1 with
   *cause: a command checks before its runs, not after. */
int	figure_path_check(const char *path, char **cause);

/*
 * Draw the bars above the curves (either may be NULL) into path, SVG or PNG
 * by its name's end. Returns 0, or -1 with *cause and *status: usage for a
 * name that is neither, configuration (3) when gnuplot is missing, fail
 * when it fails.
 */
int	figure_write(const char *path, const struct figure_bars *b,
	    const struct figure_curves *c, int *status, char **cause);

#endif
