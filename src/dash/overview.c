/*
 * overview.c — what the first panel adds around the cell tree (or node
 * map), so that one screen shows the whole cluster: a header of meters,
 * one for the cluster and one per VC, in as many columns as the width
 * holds (htop's CPU meters), and at the bottom the newest events. Also
 * the dashboard's clock text, which the event rows and the status line
 * share.
 *
 * A VC's meter is its guarantee: the bar is its assigned GPUs, filled by
 * those its guaranteed jobs use and those gone bad; the figures say
 * used/guaranteed, then what its opportunistic jobs hold elsewhere, its
 * bad GPUs and its queue. The cluster's meter shows opportunistic use in
 * the bar too, since there it is part of the whole.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dash/dash-view-int.h"

#define METER_MIN_W	40	/* a column of meters: label, bar, figures */
#define METER_LABEL	11

void
dash_time_text(const struct dash_model *m, double t, char *buf, size_t len)
{
	struct tm tm, now;
	time_t tt = (time_t)t, nt = (time_t)m->d.now;

	if (!m->d.wall) {
		dash_format_dur(t - m->d.epoch, buf, len);
		return;
	}
	if (localtime_r(&tt, &tm) == NULL || localtime_r(&nt, &now) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	/* another day than today: its date, as ls -l does for old files */
	if (tm.tm_year != now.tm_year || tm.tm_yday != now.tm_yday)
		strftime(buf, len, "%m-%d", &tm);
	else
		strftime(buf, len, "%H:%M:%S", &tm);
}

/* The meters: 0 the cluster, then each VC. */
static int
meter_count(const struct dash_model *m)
{
	return 1 + m->nvcs;
}

static int
meter_cols(const struct dash_model *m, int w)
{
	int n = meter_count(m), c = w / METER_MIN_W;

	if (c < 1)
		c = 1;
	return c < n ? c : n;
}

int
dash_meter_rows(const struct dash_model *m, int w, int maxh)
{
	int c = meter_cols(m, w), r = (meter_count(m) + c - 1) / c;

	return r < maxh ? r : maxh > 0 ? maxh : 0;
}

/* Figures, most important first; each added only whole and if it fits. */
static void
meter_text(char *buf, size_t len, int room, const char *const *parts, int n)
{
	size_t at = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (parts[i][0] == '\0')
			continue;
		if ((int)(at + strlen(parts[i]) + (at > 0)) > room)
			break;
		at += (size_t)snprintf(buf + at, len - at, "%s%s", at > 0 ? " " : "",
		    parts[i]);
	}
}

static void
meter_draw(const struct dash_model *m, struct dash_screen *s, int i, int x, int y,
    int w)
{
	char p[4][32], text[96];
	const char *parts[4] = { p[0], p[1], p[2], p[3] };
	long long total, used, opp, bad;
	int bw = w - METER_LABEL - 2, tw;

	memset(p, 0, sizeof p);
	if (i == 0) {
		dash_put(s, x, y, METER_LABEL, DR_TITLE, "  cluster");
		total = m->st.gpus;
		used = m->st.used;
		opp = m->st.opp;
		bad = m->st.bad;
		snprintf(p[0], sizeof p[0], "%lld/%lld", used + opp, total);
		if (opp > 0)
			snprintf(p[1], sizeof p[1], "%lld opp", opp);
		if (bad > 0)
			snprintf(p[2], sizeof p[2], "%lld bad", bad);
		if (m->pending > 0)
			snprintf(p[3], sizeof p[3], "%d pend", m->pending);
	} else {
		const struct dash_vc *c = &m->vcs[i - 1];

		dash_putf(s, x, y, METER_LABEL - 1, DR_VC0 + (i - 1) % DASH_VC_COLORS,
		    "%c %s", c->letter, c->name);
		total = c->u.gpus;
		used = c->u.used;
		opp = 0;	/* elsewhere: a figure, not part of the bar */
		bad = c->u.bad;
		snprintf(p[0], sizeof p[0], "%lld/%lld", used, total);
		if (c->u.opp > 0)
			snprintf(p[1], sizeof p[1], "+%lld opp", c->u.opp);
		if (bad > 0)
			snprintf(p[2], sizeof p[2], "%lld bad", bad);
		if (c->pending > 0)
			snprintf(p[3], sizeof p[3], "%d pend", c->pending);
	}
	if (bw < 4)
		return;
	dash_put(s, x + METER_LABEL, y, 1, DR_DIM, "[");
	dash_bar(s, x + METER_LABEL + 1, y, bw, total, used, i == 0 ? opp : 0, bad);
	dash_put(s, x + METER_LABEL + 1 + bw, y, 1, DR_DIM, "]");
	/* the figures over the bar's right end after a blank, leaving it 4
	   cells at least */
	meter_text(text + 1, sizeof text - 1, bw - 5, parts, 4);
	text[0] = ' ';
	tw = (int)strlen(text);
	if (tw > 1)
		dash_put(s, x + METER_LABEL + 1 + bw - tw, y, tw, DR_NORMAL, text);
}

int
dash_meters_draw(const struct dash_model *m, struct dash_screen *s, int y, int maxh)
{
	int n = meter_count(m), cols = meter_cols(m, s->w);
	int rows = dash_meter_rows(m, s->w, maxh), w, i, shown;

	if (rows == 0)
		return 0;
	w = (s->w - (cols - 1)) / cols;
	shown = rows * cols < n ? rows * cols - 1 : n;
	for (i = 0; i < shown; i++)
		meter_draw(m, s, i, (i % cols) * (w + 1), y + i / cols, w);
	if (shown < n)
		dash_putf(s, (shown % cols) * (w + 1), y + shown / cols, w, DR_DIM,
		    "+%d more VCs (2: VCs)", n - shown);
	return rows;
}

void
dash_event_tail(const struct dash_model *m, struct dash_screen *s, int y, int h)
{
	int i, n;

	if (h < 2)
		return;
	dash_role_span(s, 0, y, s->w, DR_HEADER);
	s->ox = 1;
	dash_put(s, 0, y, -1, DR_HEADER, "TIME     KIND       VC         WHAT"
	    "  (the newest last; 4: all events)");
	n = m->ev_n < h - 1 ? m->ev_n : h - 1;
	if (n == 0)
		dash_put(s, 1, y + 1, -1, DR_DIM, "(nothing yet)");
	for (i = 0; i < n; i++)
		dash_event_row(m, dash_model_event(m, m->ev_n - n + i), s, y + 1 + i,
		    s->w - 1);
	s->ox = 0;
}
