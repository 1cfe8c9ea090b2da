/*
 * dash-series.c — the Series panel (dash-series.h). The view notes a
 * sample each time it draws a frame; the sample is the model's figures at
 * its clock (already derived for the status line and the meters, so a
 * sample walks only the queue, for the waits). Drawing stacks up to three
 * charts in the panel's rows, as many as fit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/chart.h"
#include "dash/dash-series.h"

enum { SC_USED, SC_OPP, SC_PENDING, SC_RUNNING, SC_WAIT0,
	SC_NCOLS = SC_WAIT0 + DASH_SERIES_VCS };

struct dash_series {
	int		 n;
	double		 step;
	double		 t[DASH_SERIES_MAX];
	double		 v[SC_NCOLS][DASH_SERIES_MAX];
	int		 nvcs;
	char		 names[DASH_SERIES_VCS][64];
};

/* Each VC's mean wait (now - submit) of its pending jobs; 0 with none. */
static void
vc_waits(const struct dash_model *m, double *out, int nvcs)
{
	int v, i;

	for (v = 0; v < nvcs; v++) {
		double sum = 0;
		int n = 0;

		for (i = m->vq_first[v]; i < m->vq_first[v + 1]; i++) {
			const struct dash_qrow *r = &m->q[i];
			if (r->active || r->job < 0 || r->job >= m->d.njobs)
				continue;
			sum += fmax(0, m->d.now - m->d.jobs[r->job].submit);
			n++;
		}
		out[v] = n > 0 ? sum / n : 0;
	}
}

/* Invariant 2: keep every other sample, double the step. */
static void
thin(struct dash_series *ser)
{
	int i, k, c;

	for (i = 0, k = 0; i < ser->n; i += 2, k++) {
		ser->t[k] = ser->t[i];
		for (c = 0; c < SC_NCOLS; c++)
			ser->v[c][k] = ser->v[c][i];
	}
	ser->n = k;
	ser->step *= 2;
}

void
dash_series_note(struct dash_series **sp, const struct dash_model *m)
{
	struct dash_series *ser = *sp;
	double t = m->d.now - m->d.epoch, w[DASH_SERIES_VCS];
	int i, c;

	if (m->vq_first == NULL)
		return;
	if (ser == NULL)
		ser = *sp = xcalloc(1, sizeof *ser);
	if (ser->n > 0 && t < ser->t[ser->n - 1]) {	/* invariant 3 */
		ser->n = 0;
		ser->nvcs = 0;
	}
	if (ser->n == 0) {
		ser->step = DASH_SERIES_STEP;
		ser->nvcs = m->nvcs < DASH_SERIES_VCS ? m->nvcs : DASH_SERIES_VCS;
		for (i = 0; i < ser->nvcs; i++)
			snprintf(ser->names[i], sizeof ser->names[i], "%c %s",
			    m->vcs[i].letter, m->vcs[i].name ? m->vcs[i].name : "?");
	} else if (t < ser->t[ser->n - 1] + ser->step)
		return;
	if (ser->n == DASH_SERIES_MAX)
		thin(ser);
	i = ser->n++;
	ser->t[i] = t;
	ser->v[SC_USED][i] = (double)m->st.used;
	ser->v[SC_OPP][i] = (double)m->st.opp;
	ser->v[SC_PENDING][i] = m->pending;
	ser->v[SC_RUNNING][i] = m->running;
	vc_waits(m, w, ser->nvcs);
	for (c = 0; c < ser->nvcs; c++)
		ser->v[SC_WAIT0 + c][i] = w[c];
}

int
dash_series_len(const struct dash_series *ser)
{
	return ser != NULL ? ser->n : 0;
}

void
dash_series_free(struct dash_series *ser)
{
	free(ser);
}

void
dash_series_draw(const struct dash_series *ser, const struct dash_model *m,
    struct dash_screen *s, int y, int h)
{
	struct dash_curve gpus[] = {
		{ "guaranteed", NULL }, { "opportunistic", NULL } };
	struct dash_curve jobs[] = { { "pending", NULL }, { "running", NULL } };
	struct dash_curve waits[DASH_SERIES_VCS];
	struct dash_chart ch[3];
	char *cause = NULL;
	int i, k, nch, each;

	(void)m;
	if (ser == NULL || ser->n == 0) {
		dash_put(s, 1, y, -1, DR_DIM, "no samples yet: the charts fill as the clock moves");
		return;
	}
	gpus[0].y = ser->v[SC_USED];
	gpus[1].y = ser->v[SC_OPP];
	jobs[0].y = ser->v[SC_PENDING];
	jobs[1].y = ser->v[SC_RUNNING];
	for (i = 0; i < ser->nvcs; i++) {
		waits[i].name = ser->names[i];
		waits[i].y = ser->v[SC_WAIT0 + i];
	}
	ch[0] = (struct dash_chart){ "GPUs in use", "GPUs", ser->t, ser->n, gpus, 2, 1 };
	ch[1] = (struct dash_chart){ "jobs pending and running", "jobs", ser->t, ser->n,
	    jobs, 2, 1 };
	ch[2] = (struct dash_chart){ "mean wait of pending jobs per VC", "min", ser->t,
	    ser->n, waits, ser->nvcs, 60 };
	for (nch = 3; nch > 1 && h / nch < DASH_CHART_MIN_H; nch--)
		;
	each = h / nch;
	for (k = 0; k < nch; k++)
		if (dash_chart_draw(s, 0, y + k * each, s->w, each, &ch[k], &cause) < 0) {
			dash_put(s, 1, y + k * each, -1, DR_WARN, cause);
			free(cause);
			cause = NULL;
		}
}
