/*
 * panels.c — the dashboard's list panels (dash-view-int.h: dash_panels):
 * for the overview's cell tree, the VCs, the queues and the events, each
 * panel's rows, filter fields, drawing of one row and what Enter opens.
 * A new list panel is a set of these functions and a row of the table.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash/dash-view-int.h"
/* -- cells -- */

static int
cells_rows(const struct dash_model *m, const struct dash_view *v)
{
	(void)v;
	return m->nrows;
}

static int
cells_fields(const struct dash_model *m, const struct dash_view *v, int row,
    const char **names, char vals[][64])
{
	const struct spec *s = m->d.spec;
	int c = m->rows[row];
	struct engine_cell_info ci;

	(void)v;
	engine_cell(m->d.engine, c, &ci);
	names[0] = "name";
	snprintf(vals[0], 64, "%s", s->cells[c].addr);
	names[1] = "type";
	snprintf(vals[1], 64, "%s", s->types[s->cells[c].type].name);
	names[2] = "vc";
	snprintf(vals[2], 64, "%s", ci.vc >= 0 ? s->vcs[ci.vc].name : "-");
	names[3] = "state";
	snprintf(vals[3], 64, "%s", ci.bad > 0 ? "bad" : ci.used > 0 ? "used" :
	    ci.opp > 0 ? "opp" : ci.vc >= 0 ? "reserved" : "free");
	return 4;
}

static void
cells_draw_row(const struct dash_model *m, const struct dash_view *v,
    struct dash_screen *s, int row, int y, int w)
{
	const struct spec *sp = m->d.spec;
	int c = m->rows[row], d = dash_model_depth(m, c), x;
	struct engine_cell_info ci;
	const char *st;
	enum dash_role sr;
	enum dash_glyph hg;

	(void)v;
	engine_cell(m->d.engine, c, &ci);
	x = 2 * d;
	dash_put(s, x, y, -1, DR_NORMAL, dash_glyph(s, sp->cells[c].nchild == 0 ?
	    DG_LEAF : m->open[c] ? DG_OPEN : DG_CLOSED));
	dash_put(s, x + 2, y, 22 - x, DR_NORMAL, sp->cells[c].addr);
	dash_put(s, 24, y, 13, DR_DIM, sp->types[sp->cells[c].type].name);
	/* state and health are separate glyphs */
	if (ci.used > 0) { st = "G"; sr = DR_USED; }
	else if (ci.opp > 0) { st = "o"; sr = DR_OPP; }
	else if (ci.vc >= 0) { st = "r"; sr = DR_RESERVED; }
	else { st = "."; sr = DR_FREE; }
	dash_put(s, 38, y, 1, sr, st);
	hg = ci.doomed ? DG_DOOMED : ci.bad >= ci.leaves ? DG_BAD :
	    ci.bad > 0 ? DG_BAD_BELOW : DG_HEALTHY;
	dash_put(s, 40, y, 1, ci.doomed ? DR_DOOMED : DR_BAD, dash_glyph(s, hg));
	if (ci.vc >= 0)
		dash_putf(s, 42, y, 12, DR_VC0 + ci.vc % DASH_VC_COLORS, "%c %s",
		    dash_vc_letter(ci.vc), sp->vcs[ci.vc].name);
	else
		dash_put(s, 42, y, 1, DR_DIM, "-");
	dash_putf(s, 55, y, -1, DR_NORMAL, "%4d %4d %4d %5d", ci.used, ci.opp, ci.bad,
	    ci.leaves);
	if (w - 78 >= 6)	/* a bar of a cell or two says nothing */
		if (ci.leaves > 0)
			dash_bar(s, 77, y, w - 78 < 24 ? w - 78 : 24, ci.leaves, ci.used,
			    ci.opp, ci.bad);
}

static void
cells_enter(const struct dash_model *m, struct dash_view *v, int row)
{
	v->d_kind = DD_CELL;
	v->d_id = m->rows[row];
}

/* -- VCs -- */

static int
vcs_rows(const struct dash_model *m, const struct dash_view *v)
{
	(void)v;
	return m->nvcs;
}

static int
vcs_fields(const struct dash_model *m, const struct dash_view *v, int row,
    const char **names, char vals[][64])
{
	(void)v;
	names[0] = "name";
	snprintf(vals[0], 64, "%s", m->vcs[row].name);
	return 1;
}

static void
vcs_draw_row(const struct dash_model *m, const struct dash_view *v,
    struct dash_screen *s, int row, int y, int w)
{
	const struct dash_vc *c = &m->vcs[row];
	const struct engine_vc_usage *u = &c->u;
	int x;

	(void)v;
	dash_putf(s, 0, y, 12, DR_VC0 + row % DASH_VC_COLORS, "%c %s", c->letter, c->name);
	if (u->gpus > 0)
		dash_bar(s, 13, y, 20, u->gpus, u->used, 0, u->bad);
	x = 34 + dash_putf(s, 34, y, -1, DR_NORMAL,
	    "used %lld  free %lld  bad %lld  of %lld assigned GPUs (%.0f%% of assigned used)",
	    u->used, u->free, u->bad, u->gpus,
	    u->gpus > 0 ? 100.0 * (double)u->used / (double)u->gpus : 0.0);
	if (x + 2 < w)
		dash_putf(s, x + 2, y, -1, DR_OPP, "opp %lld GPUs elsewhere", u->opp);
}

static void
vcs_enter(const struct dash_model *m, struct dash_view *v, int row)
{
	(void)m;
	v->d_kind = DD_VC;
	v->d_id = row;
}

/* -- queues -- */

static int
queues_rows(const struct dash_model *m, const struct dash_view *v)
{
	(void)v;
	return m->nq;
}

static const struct dash_qrow *
qrow_at(const struct dash_model *m, int row)
{
	return &m->q[row];
}

static int
queues_fields(const struct dash_model *m, const struct dash_view *v, int row,
    const char **names, char vals[][64])
{
	const struct job *j = &m->d.jobs[qrow_at(m, row)->job];

	(void)v;
	names[0] = "vc";
	snprintf(vals[0], 64, "%s", m->d.spec->vcs[j->vc].name);
	names[1] = "name";
	snprintf(vals[1], 64, "%s", j->name);
	names[2] = "state";
	snprintf(vals[2], 64, "%s", job_state_code(j->state));
	names[3] = "reason";
	snprintf(vals[3], 64, "%s", j->state == JOB_PENDING ? job_reason_name(j->reason) : "");
	names[4] = "class";
	snprintf(vals[4], 64, "%s", j->opportunistic ? "opportunistic" : "guaranteed");
	names[5] = "gpus";
	snprintf(vals[5], 64, "%d", j->gpus);
	return 6;
}

/*
 * The queues' columns, in order: each header sits over its values. REASON
 * takes what is left (10 at least); when the width is short, columns go
 * whole in the order of drop (highest first) before REASON is cut: the
 * running time, then the policy's priority, then the class.
 */
enum { QC_VC, QC_JOB, QC_ST, QC_GPUS, QC_PRIO, QC_CLASS, QC_WAIT, QC_RUN,
	QC_REASON, QC_N };
static const struct {
	const char	*head;
	int		 w;
	int		 drop;	/* 0: never */
} qcols[QC_N] = {
	[QC_VC] = { "VC", 10, 0 },
	[QC_JOB] = { "JOB", 24, 0 },
	[QC_ST] = { "ST", 2, 0 },
	[QC_GPUS] = { "GPUS", 4, 0 },
	[QC_PRIO] = { "PRIO", 14, 2 },
	[QC_CLASS] = { "CLASS", 5, 3 },
	[QC_WAIT] = { "WAIT", 8, 0 },	/* pending: since it was queued */
	[QC_RUN] = { "RUN", 8, 1 },	/* running: since it started */
	[QC_REASON] = { "REASON", 10, 0 },
};

/* Each column's x at width w, or -1 where it is dropped. */
static void
queue_layout(int w, int *x)
{
	bool on[QC_N];
	int i, tot, worst;

	for (i = 0; i < QC_N; i++)
		on[i] = true;
	for (;;) {
		for (i = 0, tot = 0; i < QC_N; i++)
			if (on[i])
				tot += qcols[i].w + 1;
		if (tot <= w)
			break;
		for (i = 0, worst = -1; i < QC_N; i++)
			if (on[i] && qcols[i].drop > 0 &&
			    (worst < 0 || qcols[i].drop < qcols[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		on[worst] = false;
	}
	for (i = 0, tot = 0; i < QC_N; i++) {
		x[i] = on[i] ? tot : -1;
		if (on[i])
			tot += qcols[i].w + 1;
	}
}

void
dash_queues_header(struct dash_screen *s, int y)
{
	int x[QC_N], i;

	queue_layout(s->w - 1, x);
	for (i = 0; i < QC_N; i++)
		if (x[i] >= 0)
			dash_put(s, x[i], y, -1, DR_HEADER, qcols[i].head);
}

/* How a job's class reads: as it runs, or as asked while it waits. */
static const char *
class_short(const struct job *j)
{
	if (j->state != JOB_PENDING)
		return j->opportunistic ? "opp" : "gua";
	return j->klass == JOB_AUTO ? "auto" : j->klass == JOB_OPPORTUNISTIC ?
	    "opp" : "gua";
}

static void
queues_draw_row(const struct dash_model *m, const struct dash_view *v,
    struct dash_screen *s, int row, int y, int w)
{
	const struct dash_qrow *r = qrow_at(m, row);
	const struct job *j = &m->d.jobs[r->job];
	char prio[48], t[32];
	int x[QC_N];
	bool pend = j->state == JOB_PENDING;

	(void)v;
	queue_layout(w, x);
	dash_putf(s, x[QC_VC], y, qcols[QC_VC].w, DR_VC0 + j->vc % DASH_VC_COLORS,
	    "%c %s", dash_vc_letter(j->vc), m->d.spec->vcs[j->vc].name);
	dash_put(s, x[QC_JOB], y, qcols[QC_JOB].w, DR_NORMAL, j->name);
	dash_put(s, x[QC_ST], y, 2, dash_state_role(j->state), job_state_code(j->state));
	dash_putf(s, x[QC_GPUS], y, 4, DR_NORMAL, "%4d", j->gpus);
	if (x[QC_PRIO] >= 0) {
		dash_format_prio(m->d.policy, r, j, prio, sizeof prio);
		dash_put(s, x[QC_PRIO], y, qcols[QC_PRIO].w, DR_NORMAL, prio);
	}
	if (x[QC_CLASS] >= 0)
		dash_put(s, x[QC_CLASS], y, 5, j->opportunistic ? DR_OPP : DR_NORMAL,
		    class_short(j));
	/* a pending job's wait, a running one's time since it (re)started */
	dash_format_dur(m->d.now - j->state_since, t, sizeof t);
	if (pend)
		dash_put(s, x[QC_WAIT], y, 8, DR_NORMAL, t);
	else if (x[QC_RUN] >= 0)
		dash_put(s, x[QC_RUN], y, 8, DR_NORMAL, t);
	if (pend)
		dash_put(s, x[QC_REASON], y, -1, DR_WARN, job_reason_name(j->reason));
	else if (m->d.phases != NULL && m->d.phases[r->job] != NULL &&
	    strcmp(m->d.phases[r->job], "running") != 0)
		/* a live job between states: suspended, migrating ... */
		dash_put(s, x[QC_REASON], y, -1, DR_DIM, m->d.phases[r->job]);
}

static void
queues_enter(const struct dash_model *m, struct dash_view *v, int row)
{
	v->d_kind = DD_JOB;
	v->d_id = qrow_at(m, row)->job;
}

/* -- events -- */

static int
events_rows(const struct dash_model *m, const struct dash_view *v)
{
	(void)v;
	return m->ev_n;
}

static void
event_text(const struct dash_model *m, const struct rec *r, char *buf, size_t len)
{
	const char *name = dash_job_name(m, r->job);

	switch (r->kind) {
	case REC_PREEMPT:
	case REC_DOWNGRADE:
		snprintf(buf, len, "%s preempted by %s (%s)", name,
		    dash_job_name(m, r->by), r->kind == REC_DOWNGRADE ?
		    "lazy: runs on as opportunistic" : "immediate");
		break;
	default:
		snprintf(buf, len, "%s%s%s", r->job >= 0 ? name : "",
		    r->job >= 0 && r->detail[0] ? " " : "", r->detail);
	}
}

static int
events_fields(const struct dash_model *m, const struct dash_view *v, int row,
    const char **names, char vals[][64])
{
	const struct rec *r = dash_model_event(m, row);

	(void)v;
	names[0] = "kind";
	snprintf(vals[0], 64, "%s", rec_kind_name(r->kind));
	names[1] = "job";
	snprintf(vals[1], 64, "%s", r->job >= 0 ? dash_job_name(m, r->job) : "");
	names[2] = "vc";
	snprintf(vals[2], 64, "%s", r->vc >= 0 && r->vc < m->nvcs ? m->vcs[r->vc].name : "");
	names[3] = "text";
	event_text(m, r, vals[3], 64);
	return 4;
}

void
dash_event_row(const struct dash_model *m, const struct rec *r, struct dash_screen *s,
    int y, int w)
{
	char t[32], text[256];
	enum dash_role role = DR_NORMAL;

	(void)w;
	dash_time_text(m, r->t, t, sizeof t);
	if (r->kind == REC_PREEMPT || r->kind == REC_FAIL || r->kind == REC_NODE_BAD)
		role = DR_BAD;
	else if (r->kind == REC_DOWNGRADE)
		role = DR_OPP;
	else if (r->kind == REC_START)
		role = DR_USED;
	dash_put(s, 0, y, 8, DR_DIM, t);
	dash_put(s, 9, y, 10, role, rec_kind_name(r->kind));
	if (r->vc >= 0 && r->vc < m->nvcs)
		dash_putf(s, 20, y, 10, DR_VC0 + r->vc % DASH_VC_COLORS, "%c %s",
		    dash_vc_letter(r->vc), m->vcs[r->vc].name);
	event_text(m, r, text, sizeof text);
	dash_put(s, 31, y, -1, DR_NORMAL, text);
}

static void
events_draw_row(const struct dash_model *m, const struct dash_view *v,
    struct dash_screen *s, int row, int y, int w)
{
	(void)v;
	dash_event_row(m, dash_model_event(m, row), s, y, w);
}

static void
events_enter(const struct dash_model *m, struct dash_view *v, int row)
{
	const struct rec *r = dash_model_event(m, row);

	if (r->job >= 0) {
		v->d_kind = DD_JOB;
		v->d_id = r->job;
	} else if (r->cell >= 0) {
		v->d_kind = DD_CELL;
		v->d_id = r->cell;
	}
}

const struct dash_panel_ops dash_panels[DASH_NPANELS] = {
	[DP_CELLS] = { "overview", "Overview", cells_rows, cells_fields, cells_draw_row,
	    "  CELL                  TYPE          S H VC           USED  OPP  BAD  GPUS",
	    cells_enter },
	[DP_VCS] = { "vcs", "VCs", vcs_rows, vcs_fields, vcs_draw_row,
	    "VC           GPUS: used/bad/free", vcs_enter },
	[DP_QUEUES] = { "queues", "Queues", queues_rows, queues_fields, queues_draw_row,
	    NULL, queues_enter },
	[DP_EVENTS] = { "events", "Events", events_rows, events_fields, events_draw_row,
	    "TIME     KIND       VC         WHAT", events_enter },
	[DP_DETAIL] = { "detail", "Detail", NULL, NULL, NULL, NULL, NULL },
	[DP_SERIES] = { "series", "Series", NULL, NULL, NULL, NULL, NULL },
};

int
dash_panel_parse(const char *name)
{
	int i;

	for (i = 0; i < DASH_NPANELS; i++)
		if (strcmp(dash_panels[i].name, name) == 0)
			return i;
	/* the overview's cell tree was the panel "cells" */
	if (strcmp(name, "cells") == 0)
		return DP_CELLS;
	return -1;
}

const char *
dash_panel_name(int panel)
{
	return panel >= 0 && panel < DASH_NPANELS ? dash_panels[panel].name : "?";
}
