/*
 * model.c — the dashboard's view model: everything the panels draw,
 * derived from the source once per change of its generation (see
 * model.h for the cost rule).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/model.h"
#include "dash/screen.h"

static void
rows_rebuild(struct dash_model *m)
{
	const struct spec *s = m->d.spec;
	int *stack, sp = 0, c, k, lv, i;

	m->nrows = 0;
	if (s == NULL || s->ncells == 0)
		return;
	stack = xmalloc((size_t)s->ncells * sizeof *stack);
	/* tops of every chain, pushed in reverse so the first pops first */
	for (c = s->nchains - 1; c >= 0; c--) {
		lv = s->chains[c].levels;
		for (k = s->chains[c].level_count[lv] - 1; k >= 0; k--)
			stack[sp++] = s->chains[c].level_first[lv] + k;
	}
	while (sp > 0) {
		i = stack[--sp];
		XGROW(m->rows, m->rows_cap, (size_t)m->nrows + 1);
		m->rows[m->nrows++] = i;
		if (m->open[i] && s->cells[i].nchild > 0)
			for (k = s->cells[i].nchild - 1; k >= 0; k--)
				stack[sp++] = s->cells[i].first_child + k;
	}
	free(stack);
}

void
dash_model_init(struct dash_model *m, struct dash_source *src)
{
	const struct spec *s;
	int c, k, lv;

	memset(m, 0, sizeof *m);
	m->src = src;
	src->ops->data(src->self, &m->d);
	s = m->d.spec;
	m->nvcs = s->nvcs;
	m->vcs = xcalloc((size_t)s->nvcs + 1, sizeof *m->vcs);
	m->vq_first = xcalloc((size_t)s->nvcs + 1, sizeof *m->vq_first);
	m->node_ch = xcalloc((size_t)s->nnodes + 1, 1);
	m->node_role = xcalloc((size_t)s->nnodes + 1, 1);
	m->open = xcalloc((size_t)s->ncells + 1, 1);
	m->ev = xcalloc(DASH_EVENTS, sizeof *m->ev);
	/* top-level cells start open: racks show their nodes */
	for (c = 0; c < s->nchains; c++) {
		lv = s->chains[c].levels;
		for (k = 0; k < s->chains[c].level_count[lv]; k++)
			m->open[s->chains[c].level_first[lv] + k] = 1;
	}
	rows_rebuild(m);
	m->gen = m->d.gen - 1;	/* force the first refresh */
	dash_model_refresh(m);
}

void
dash_model_release(struct dash_model *m)
{
	free(m->vcs);
	free(m->vq_first);
	free(m->q);
	free(m->node_ch);
	free(m->node_role);
	free(m->open);
	free(m->rows);
	free(m->ev);
	memset(m, 0, sizeof *m);
}

char
dash_vc_letter(int vc)
{
	return vc >= 0 && vc < 26 ? (char)('A' + vc) : '*';
}

const char *
dash_job_name(const struct dash_model *m, int job)
{
	return job >= 0 && job < m->d.njobs ? m->d.jobs[job].name : "-";
}

/* The job using some leaf of cell c that is opportunistic (opp) or not. */
static int
job_below(const struct engine *e, const struct spec *s, int c, bool opp)
{
	struct engine_cell_info ci;
	int lo = c, hi = c, i;

	while (s->cells[lo].nchild > 0)
		lo = s->cells[lo].first_child;
	while (s->cells[hi].nchild > 0)
		hi = s->cells[hi].first_child + s->cells[hi].nchild - 1;
	for (i = lo; i <= hi; i++) {	/* a subtree's leaves are contiguous */
		engine_cell(e, i, &ci);
		if (ci.job >= 0 && (ci.priority < 0) == opp)
			return ci.job;
	}
	return -1;
}

/* Node map characters: VC letter (lower case: opportunistic), '.' free,
   ',' bound to a VC but idle, '#' bad. */
static void
nodes_rebuild(struct dash_model *m)
{
	const struct spec *s = m->d.spec;
	const struct engine *e = m->d.engine;
	struct engine_cell_info ci;
	struct engine_job_info ji;
	int i, k, partial = 0, job, vc;

	for (i = 0; i < s->nnodes; i++) {
		long long leaves = 0, avail = 0, used = 0, opp = 0, bad = 0;
		int bvc = -1, cell = s->nodes[i].cells[0];

		for (k = 0; k < s->nodes[i].ncells; k++) {
			engine_cell(e, s->nodes[i].cells[k], &ci);
			leaves += ci.leaves;
			avail += ci.leaves - ci.used - ci.bad;
			used += ci.used;
			opp += ci.opp;
			bad += ci.bad;
			if (ci.vc >= 0 && bvc < 0)
				bvc = ci.vc;
			if ((ci.used > 0 || ci.opp > 0) && cell == s->nodes[i].cells[0])
				cell = s->nodes[i].cells[k];
		}
		if (avail > 0 && avail < leaves)
			partial++;
		if (bad > 0) {
			m->node_ch[i] = '#';
			m->node_role[i] = DR_BAD;
		} else if (used > 0 || opp > 0) {
			vc = used > 0 ? bvc : -1;
			if (vc < 0 && (job = job_below(e, s, cell, used == 0)) >= 0 &&
			    engine_job(e, job, &ji))
				vc = ji.vc;
			m->node_ch[i] = dash_vc_letter(vc);
			if (used == 0 && m->node_ch[i] != '*')
				m->node_ch[i] = (char)(m->node_ch[i] - 'A' + 'a');
			m->node_role[i] = (unsigned char)(vc >= 0 ?
			    DR_VC0 + vc % DASH_VC_COLORS : DR_USED);
		} else if (bvc >= 0) {
			m->node_ch[i] = ',';
			m->node_role[i] = DR_RESERVED;
		} else {
			m->node_ch[i] = '.';
			m->node_role[i] = DR_FREE;
		}
	}
	m->frag = s->nnodes ? (double)partial / s->nnodes : 0;
}

/* Queue order (invariant 2): VC, pending first, key, job id. */
static int
qrow_cmp(const void *a, const void *b, void *arg)
{
	const struct dash_qrow *x = a, *y = b;
	const struct job *jobs = arg;
	int vx = jobs[x->job].vc, vy = jobs[y->job].vc;

	if (vx != vy)
		return vx < vy ? -1 : 1;
	if (x->active != y->active)
		return x->active ? 1 : -1;
	return policy_key_cmp(&x->key, &y->key);
}

/* qsort_r is a GNU extension; a tiny merge sort keeps the model portable. */
static void
qrow_sort(struct dash_qrow *v, int n, const struct job *jobs)
{
	struct dash_qrow *tmp;
	int w, i, l, r, lo, mid, hi, k;

	if (n < 2)
		return;
	tmp = xmalloc((size_t)n * sizeof *tmp);
	for (w = 1; w < n; w *= 2) {
		for (lo = 0; lo < n; lo += 2 * w) {
			mid = lo + w < n ? lo + w : n;
			hi = lo + 2 * w < n ? lo + 2 * w : n;
			for (l = lo, r = mid, k = lo; k < hi; k++)
				if (l < mid && (r >= hi || qrow_cmp(&v[l], &v[r], (void *)jobs) <= 0))
					tmp[k] = v[l++];
				else
					tmp[k] = v[r++];
		}
		for (i = 0; i < n; i++)
			v[i] = tmp[i];
	}
	free(tmp);
}

static void
queues_rebuild(struct dash_model *m)
{
	const struct job *jobs = m->d.jobs;
	int i, v;

	m->nq = 0;
	m->pending = m->running = 0;
	for (v = 0; v < m->nvcs; v++)
		m->vcs[v].pending = m->vcs[v].running = 0;
	for (i = 0; i < m->d.njobs; i++) {
		const struct job *j = &jobs[i];
		struct dash_qrow *r;
		bool active;

		if (j->state == JOB_PENDING) {
			if (j->submit > m->d.now)
				continue;	/* not arrived yet */
			active = false;
		} else if (j->state == JOB_RUNNING || j->state == JOB_SUSPENDED ||
		    j->state == JOB_PREEMPTED || j->state == JOB_COMPLETING)
			active = true;
		else
			continue;
		if (j->vc < 0 || j->vc >= m->nvcs)
			continue;
		XGROW(m->q, m->q_cap, (size_t)m->nq + 1);
		r = &m->q[m->nq++];
		r->job = i;
		r->active = active;
		if (m->src->ops->job_key != NULL)
			m->src->ops->job_key(m->src->self, i, &r->key, &r->klass);
		else {
			r->key = (struct policy_key){ { j->submit, 0, 0 }, i };
			r->klass = 0;
		}
		r->key.id = i;
		if (active) {
			m->running++;
			m->vcs[j->vc].running++;
		} else {
			m->pending++;
			m->vcs[j->vc].pending++;
		}
	}
	qrow_sort(m->q, m->nq, jobs);
	for (v = 0, i = 0; v <= m->nvcs; v++) {
		while (i < m->nq && jobs[m->q[i].job].vc < v)
			i++;
		m->vq_first[v] = i;
	}
}

void
dash_model_refresh(struct dash_model *m)
{
	const struct spec *s;
	int v;

	m->src->ops->data(m->src->self, &m->d);
	if (m->d.gen == m->gen)
		return;
	s = m->d.spec;
	m->gen = m->d.gen;
	m->rebuilds++;
	engine_stats(m->d.engine, &m->st);
	m->util = m->st.gpus > 0 ? (double)(m->st.used + m->st.opp) / m->st.gpus : 0;
	for (v = 0; v < m->nvcs; v++) {
		m->vcs[v].name = s->vcs[v].name;
		m->vcs[v].letter = dash_vc_letter(v);
		engine_vc_usage(m->d.engine, v, &m->vcs[v].u);
	}
	nodes_rebuild(m);
	queues_rebuild(m);
}

static void
on_rec(void *arg, const struct rec *r)
{
	struct dash_model *m = arg;

	m->ev[m->ev_head] = *r;
	m->ev_head = (m->ev_head + 1) % DASH_EVENTS;
	if (m->ev_n < DASH_EVENTS)
		m->ev_n++;
	m->ev_total++;
}

int
dash_model_advance(struct dash_model *m, double dt, char **cause)
{
	int rc = m->src->ops->advance(m->src->self, dt, on_rec, m, cause);

	dash_model_refresh(m);
	return rc;
}

const struct rec *
dash_model_event(const struct dash_model *m, int i)
{
	if (i < 0 || i >= m->ev_n)
		return NULL;
	return &m->ev[(m->ev_head - m->ev_n + i + DASH_EVENTS) % DASH_EVENTS];
}

void
dash_model_set_open(struct dash_model *m, int cell, bool open)
{
	if (cell < 0 || cell >= m->d.spec->ncells ||
	    m->open[cell] == (unsigned char)open)
		return;
	m->open[cell] = open;
	rows_rebuild(m);
}

int
dash_model_depth(const struct dash_model *m, int cell)
{
	const struct spec *s = m->d.spec;

	return s->chains[s->cells[cell].chain].levels - s->cells[cell].level;
}

void
dash_format_dur(double s, char *buf, size_t len)
{
	long long t;

	if (!isfinite(s)) {
		snprintf(buf, len, "-");
		return;
	}
	t = s < 0 ? 0 : (long long)s;
	if (t >= 86400)
		snprintf(buf, len, "%lldd%02lldh", t / 86400, t % 86400 / 3600);
	else if (t >= 3600)
		snprintf(buf, len, "%lldh%02lldm", t / 3600, t % 3600 / 60);
	else if (t >= 60)
		snprintf(buf, len, "%lldm%02llds", t / 60, t % 60);
	else
		snprintf(buf, len, "%llds", t);
}

static void
prio_fifo(const struct dash_qrow *r, char *buf, size_t len)
{
	char d[32];

	dash_format_dur(r->key.k[0], d, sizeof d);
	snprintf(buf, len, "arr %s", d);
}

static void
prio_las(const struct dash_qrow *r, char *buf, size_t len)
{
	snprintf(buf, len, "q%d", (int)r->key.k[0]);
}

static void
prio_gittins(const struct dash_qrow *r, char *buf, size_t len)
{
	snprintf(buf, len, "q%d g=%.3g", (int)r->key.k[0], -r->key.k[1]);
}

static void
prio_srtf(const struct dash_qrow *r, char *buf, size_t len)
{
	char d[32];

	dash_format_dur(r->key.k[0], d, sizeof d);
	snprintf(buf, len, "rem %s", d);
}

/* srsf's key is remaining time x GPUs: service, shown in GPU-hours. */
static void
prio_srsf(const struct dash_qrow *r, char *buf, size_t len)
{
	snprintf(buf, len, "svc %.3g GPU-h", r->key.k[0] / 3600);
}

/* How each policy's key reads; an unknown policy shows the numbers. */
static const struct {
	const char	*policy;
	void		(*fmt)(const struct dash_qrow *r, char *buf, size_t len);
} prio_table[] = {
	{ "fifo", prio_fifo },
	{ "fifo-skip", prio_fifo },
	{ "las", prio_las },
	{ "gittins", prio_gittins },
	{ "srtf", prio_srtf },
	{ "srsf", prio_srsf },
};

void
dash_format_prio(const char *policy, const struct dash_qrow *r, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof prio_table / sizeof prio_table[0]; i++)
		if (strcmp(prio_table[i].policy, policy) == 0) {
			prio_table[i].fmt(r, buf, len);
			return;
		}
	snprintf(buf, len, "%.3g/%.3g", r->key.k[0], r->key.k[1]);
}
