/*
 * dash-series.h — the dashboard's Series panel: the model's figures sampled as
 * the clock moves (GPUs in use, jobs pending and running, each VC's mean
 * wait of its pending jobs), drawn as line charts (dash/chart.h) through
 * the screen grid like every panel.
 *
 * Ownership: the view owns its series (dash_series_free); samples are
 * copies of the model's numbers, nothing borrowed.
 *
 * Invariants:
 *  1. Samples are in increasing time; a sample is taken only when the
 *     model's clock is past the last one by at least the step.
 *  2. At most DASH_SERIES_MAX samples are kept: when full, every other one
 *     is dropped and the step doubles, so the whole run stays in view at a
 *     coarser grain.
 *  3. A model whose clock goes back (the demo restarted) starts the series
 *     over.
 */
#ifndef CELLAR_DASH_SERIES_H
#define CELLAR_DASH_SERIES_H

#include "dash/dash-model.h"
#include "dash/screen.h"

#define DASH_SERIES_MAX		2048
#define DASH_SERIES_STEP	60.0	/* seconds between samples, at first */
#define DASH_SERIES_VCS		6	/* VCs drawn in the wait chart */

struct dash_series;

/* Take a sample if the clock moved enough; creates *sp on first use. */
void	dash_series_note(struct dash_series **sp, const struct dash_model *m);
/* Draw the charts into rows y .. y + h - 1 (a note when there is nothing). */
void	dash_series_draw(const struct dash_series *ser, const struct dash_model *m,
	    struct dash_screen *s, int y, int h);
int	dash_series_len(const struct dash_series *ser);
void	dash_series_free(struct dash_series *ser);

#endif
