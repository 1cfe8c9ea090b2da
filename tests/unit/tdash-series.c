/*
 * tdash-series.c — the dashboard's Series panel (dash/dash-series.h): it
 * samples the model as the emulated clock moves (invariant 1), keeps at most
 * DASH_SERIES_MAX samples by thinning (invariant 2), starts over when the
 * demo restarts (invariant 3), and its queue chart is exactly the chart of
 * the model's pending and running counts at those times, under the tab
 * '6 Series'.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/xmalloc.h"
#include "dash/chart.h"
#include "dash/dash-model.h"
#include "dash/dash-series.h"
#include "dash/dash-view.h"
#include "dash-work.h"

#define STEPS	72
#define W	100
#define H	40

/* Rows y .. y + h - 1 of a screen as text. */
static void
rows(const struct dash_screen *s, int y, int h, struct strbuf *out)
{
	struct dash_screen part = *s;

	part.c = s->c + (size_t)y * (size_t)s->w;
	part.h = h;
	dash_screen_text(&part, out);
}

static void
test_panel_is_the_model(void)
{
	struct fixture f;
	struct dash_view v;
	struct dash_screen s, ref;
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT, all = STRBUF_INIT;
	double t[STEPS + 1], pend[STEPS + 1], run[STEPS + 1];
	struct dash_curve cv[2] = { { "pending", pend }, { "running", run } };
	struct dash_chart ch = { "jobs pending and running", "jobs", t, 0, cv, 2, 1 };
	char *cause = NULL, want_legend[96];
	int i, body, each;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_screen_init(&s, W, H, true);
	v.panel = DP_SERIES;
	for (i = 0; i <= STEPS; i++) {
		if (i > 0)
			CHECK(dash_model_advance(&f.m, 600, &cause) == 0);
		t[i] = f.m.d.now - f.m.d.epoch;
		pend[i] = f.m.pending;
		run[i] = f.m.running;
		dash_view_draw(&v, &f.m, &s);	/* notes a sample */
	}
	ch.n = STEPS + 1;
	CHECK_INTEQ(dash_series_len(v.series), STEPS + 1);
	dash_screen_text(&s, &all);
	CHECKF(strstr(all.buf, "5 Detail   6 Series") != NULL, "%.400s", all.buf);
	CHECK(strstr(all.buf, "GPUs in use (GPUs)") != NULL);
	CHECK(strstr(all.buf, "mean wait of pending jobs per VC (min)") != NULL);
	snprintf(want_legend, sizeof want_legend, "* %c %s", f.m.vcs[0].letter,
	    f.m.vcs[0].name);
	CHECKF(strstr(all.buf, want_legend) != NULL, "no '%s'", want_legend);
	/* the panel's rows: the second of three charts is the queue's */
	body = H - 3;
	each = body / 3;
	dash_screen_init(&ref, W, each, true);
	CHECK(dash_chart_draw(&ref, 0, 0, W, each, &ch, &cause) == 0);
	dash_screen_text(&ref, &want);
	rows(&s, 2 + each, each, &got);
	CHECKF(strcmp(got.buf, want.buf) == 0, "\n%.200s\nwant\n%.200s", got.buf, want.buf);
	/* and it has a curve: something pending at some time */
	for (i = 0; i <= STEPS && pend[i] == 0; i++)
		;
	CHECK(i <= STEPS);
	strbuf_release(&got);
	strbuf_release(&want);
	strbuf_release(&all);
	dash_screen_release(&ref);
	dash_screen_release(&s);
	dash_view_release(&v);
	fixture_release(&f);
}

static void
test_step_thin_restart(void)
{
	struct fixture f;
	struct dash_series *ser = NULL;
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;
	char *cause = NULL;
	int i, n;

	fixture_init(&f, 0);
	dash_screen_init(&s, W, 20, true);
	dash_series_draw(ser, &f.m, &s, 0, 20);
	dash_screen_text(&s, &out);
	CHECK(strstr(out.buf, "no samples yet") != NULL);
	dash_series_note(&ser, &f.m);
	dash_series_note(&ser, &f.m);		/* same clock: no sample */
	CHECK_INTEQ(dash_series_len(ser), 1);
	CHECK(dash_model_advance(&f.m, DASH_SERIES_STEP / 2, &cause) == 0);
	dash_series_note(&ser, &f.m);		/* under the step */
	CHECK_INTEQ(dash_series_len(ser), 1);
	for (i = 0; i < DASH_SERIES_MAX + 600; i++) {
		CHECK(dash_model_advance(&f.m, DASH_SERIES_STEP, &cause) == 0);
		dash_series_note(&ser, &f.m);
	}
	n = dash_series_len(ser);
	/* full at DASH_SERIES_MAX, halved, then one sample every two steps */
	CHECKF(n > DASH_SERIES_MAX / 2 && n <= DASH_SERIES_MAX, "%d samples", n);
	CHECKF(n < DASH_SERIES_MAX / 2 + 400, "%d samples: not thinned", n);
	CHECK(dash_model_restart(&f.m, &cause) == 0);
	dash_series_note(&ser, &f.m);
	CHECK_INTEQ(dash_series_len(ser), 1);
	dash_series_free(ser);
	strbuf_release(&out);
	dash_screen_release(&s);
	fixture_release(&f);
}

static const struct test tests[] = {
	{ "panel-is-the-model", test_panel_is_the_model },
	{ "step-thin-restart", test_step_thin_restart },
};

TEST_MAIN(tests)
