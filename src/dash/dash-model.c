/*
 * dash-model.c — the dashboard's view model: everything the panels draw,
 * derived from the source once per change of its generation (see
 * dash-model.h for the cost rule).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/dash-model.h"
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

static void	model_full(struct dash_model *m);

void
dash_model_init(struct dash_model *m, struct dash_source *src)
{
	const struct spec *s;
	int c, k, lv, i;

	memset(m, 0, sizeof *m);
	m->src = src;
	src->ops->data(src->self, &m->d);
	m->spec_gen = m->d.spec_gen;
	s = m->d.spec;
	m->nvcs = s->nvcs;
	m->vcs = xcalloc((size_t)s->nvcs + 1, sizeof *m->vcs);
	m->vq_first = xcalloc((size_t)s->nvcs + 1, sizeof *m->vq_first);
	m->node_gpus = xcalloc((size_t)s->nnodes + 1, sizeof *m->node_gpus);
	m->node_busy = xcalloc((size_t)s->nnodes + 1, sizeof *m->node_busy);
	m->nmark = xcalloc((size_t)s->nnodes + 1, 1);
	m->node_ch = xcalloc((size_t)s->nnodes + 1, 1);
	m->node_role = xcalloc((size_t)s->nnodes + 1, 1);
	m->node_at = xcalloc((size_t)s->nnodes + 1, sizeof *m->node_at);
	m->open = xcalloc((size_t)s->ncells + 1, 1);
	m->ev = xcalloc(DASH_EVENTS, sizeof *m->ev);
	for (i = 0; i < s->nnodes; i++)
		for (k = 0; k < s->nodes[i].ncells; k++) {
			c = s->nodes[i].cells[k];
			m->node_gpus[i] += (int)spec_units(s, s->cells[c].chain,
			    s->cells[c].level, 1);
		}
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
	int i;

	for (i = 0; i < m->known; i++)
		free(m->job_nodes[i]);
	free(m->job_nodes);
	free(m->job_nnodes);
	free(m->future);
	free(m->jmark);
	free(m->nmark);
	free(m->cj);
	free(m->cn);
	free(m->q2);
	free(m->qn);
	free(m->vcs);
	free(m->vq_first);
	free(m->q);
	free(m->node_gpus);
	free(m->node_ch);
	free(m->node_role);
	free(m->node_at);
	free(m->node_busy);
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

static void
node_glyph(const struct dash_model *m, int node, char *ch, unsigned char *role)
{
	const struct spec *s = m->d.spec;
	const struct engine *e = m->d.engine;
	struct engine_cell_info ci;
	struct engine_job_info ji;
	long long used = 0, opp = 0, bad = 0;
	int k, bvc = -1, cell, job, vc;

	*ch = '.';
	*role = DR_FREE;
	cell = s->nodes[node].cells[0];
	for (k = 0; k < s->nodes[node].ncells; k++) {
		engine_cell(e, s->nodes[node].cells[k], &ci);
		used += ci.used;
		opp += ci.opp;
		bad += ci.bad;
		if (ci.vc >= 0 && bvc < 0)
			bvc = ci.vc;
		if ((ci.used > 0 || ci.opp > 0) && cell == s->nodes[node].cells[0])
			cell = s->nodes[node].cells[k];
	}
	if (bad > 0) {
		*ch = '#';
		*role = DR_BAD;
	} else if (used > 0 || opp > 0) {
		vc = used > 0 ? bvc : -1;
		if (vc < 0 && (job = job_below(e, s, cell, used == 0)) >= 0 &&
		    engine_job(e, job, &ji))
			vc = ji.vc;
		*ch = dash_vc_letter(vc);
		if (used == 0 && *ch != '*')
			*ch = (char)(*ch - 'A' + 'a');
		*role = (unsigned char)(vc >= 0 ? DR_VC0 + vc % DASH_VC_COLORS : DR_USED);
	} else if (bvc >= 0) {
		*ch = ',';
		*role = DR_RESERVED;
	}
}

/*
 * Glyphs are cached per node with the gen they were computed at: a frame
 * over unchanged data reads the cache, a changed one recomputes the nodes
 * it draws (a binding can change nodes no changed job is on, so the cache
 * is not patched by delta).
 */
void
dash_model_node(const struct dash_model *m, int node, char *ch, unsigned char *role)
{
	if (node < 0 || node >= m->d.spec->nnodes) {
		*ch = '.';
		*role = DR_FREE;
		return;
	}
	if (m->node_at[node] != m->gen + 1) {	/* 0: never computed */
		node_glyph(m, node, &m->node_ch[node], &m->node_role[node]);
		m->node_at[node] = m->gen + 1;
	}
	*ch = m->node_ch[node];
	*role = m->node_role[node];
}

/* GPUs of a node used by guaranteed jobs or bad (fragmentation's measure). */
static int
node_busy(const struct dash_model *m, int node)
{
	const struct spec *s = m->d.spec;
	struct engine_cell_info ci;
	int k, busy = 0;

	for (k = 0; k < s->nodes[node].ncells; k++) {
		engine_cell(m->d.engine, s->nodes[node].cells[k], &ci);
		busy += ci.used + ci.bad;
	}
	return busy;
}

static bool
node_partial(const struct dash_model *m, int node, int busy)
{
	return busy > 0 && busy < m->node_gpus[node];
}

/* Recount one node's busy GPUs and the partial-node count with it. */
static void
node_update(struct dash_model *m, int node)
{
	int busy = node_busy(m, node);

	m->partial += node_partial(m, node, busy) - node_partial(m, node, m->node_busy[node]);
	m->node_busy[node] = busy;
}

/* Grow the per-job arrays to the source's job count. */
static void
jobs_grow(struct dash_model *m)
{
	int n = m->d.njobs, i;

	if (n <= m->known)
		return;
	m->job_nodes = xreallocarray(m->job_nodes, (size_t)n, sizeof *m->job_nodes);
	m->job_nnodes = xreallocarray(m->job_nnodes, (size_t)n, sizeof *m->job_nnodes);
	m->jmark = xreallocarray(m->jmark, (size_t)n, 1);
	for (i = m->known; i < n; i++) {
		m->job_nodes[i] = NULL;
		m->job_nnodes[i] = 0;
		m->jmark[i] = 0;
	}
	m->known = n;
}

/* Remember the nodes job i's cells are on now (none when it holds none). */
static void
job_nodes_set(struct dash_model *m, int i)
{
	const struct spec *s = m->d.spec;
	const struct job *j = &m->d.jobs[i];
	struct engine_job_info ji;
	int k, n = 0, node, x;

	free(m->job_nodes[i]);
	m->job_nodes[i] = NULL;
	m->job_nnodes[i] = 0;
	if (j->engine_id < 0 || !engine_job(m->d.engine, j->engine_id, &ji) ||
	    ji.nleaves <= 0)
		return;
	m->job_nodes[i] = xmalloc((size_t)ji.nleaves * sizeof(int));
	for (k = 0; k < ji.nleaves; k++) {
		node = s->cells[ji.leaves[k]].node;
		/* a job's leaves come pod by pod: a node repeats in a run */
		for (x = n - 1; x >= 0 && m->job_nodes[i][x] != node; x--)
			;
		if (x < 0 && node >= 0)
			m->job_nodes[i][n++] = node;
	}
	m->job_nnodes[i] = n;
}

/* Is job i in the queues (invariant 2), and active (holds or held cells)? */
static bool
job_queued(const struct dash_model *m, int i, bool *active)
{
	const struct job *j = &m->d.jobs[i];

	if (j->state == JOB_PENDING) {
		if (j->submit > m->d.now)
			return false;	/* not arrived yet */
		*active = false;
	} else if (j->state == JOB_RUNNING || j->state == JOB_SUSPENDED ||
	    j->state == JOB_PREEMPTED || j->state == JOB_COMPLETING)
		*active = true;
	else
		return false;
	return j->vc >= 0 && j->vc < m->nvcs;
}

static void
qrow_fill(struct dash_model *m, int i, bool active, struct dash_qrow *r)
{
	const struct job *j = &m->d.jobs[i];

	r->job = i;
	r->active = active;
	if (m->src->ops->job_key != NULL)
		m->src->ops->job_key(m->src->self, i, &r->key, &r->klass);
	else {
		r->key = (struct policy_key){ { j->submit, 0, 0 }, i };
		r->klass = 0;
	}
	r->key.id = i;
}

static void
qrow_count(struct dash_model *m, const struct dash_qrow *r, int d)
{
	int vc = m->d.jobs[r->job].vc;

	if (r->active) {
		m->running += d;
		m->vcs[vc].running += d;
	} else {
		m->pending += d;
		m->vcs[vc].pending += d;
	}
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
vq_index(struct dash_model *m)
{
	int v, i;

	for (v = 0, i = 0; v <= m->nvcs; v++) {
		while (i < m->nq && m->d.jobs[m->q[i].job].vc < v)
			i++;
		m->vq_first[v] = i;
	}
}

/* Order the not-yet-arrived jobs by submit time (then id). */
static int
future_cmp(const struct job *jobs, int a, int b)
{
	if (jobs[a].submit != jobs[b].submit)
		return jobs[a].submit < jobs[b].submit ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void
future_add(struct dash_model *m, int i)
{
	int lo = m->future_next, hi = m->nfuture, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (future_cmp(m->d.jobs, m->future[mid], i) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	XGROW(m->future, m->future_cap, (size_t)m->nfuture + 1);
	memmove(m->future + lo + 1, m->future + lo,
	    (size_t)(m->nfuture - lo) * sizeof *m->future);
	m->future[lo] = i;
	m->nfuture++;
}

/* Sort the future list once (a full rebuild): by submit, then id. */
struct fut {
	double	t;
	int	id;
};

static int
fut_cmp(const void *a, const void *b)
{
	const struct fut *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static void
future_sort(struct dash_model *m)
{
	struct fut *f;
	int i;

	if (m->nfuture < 2)
		return;
	f = xmalloc((size_t)m->nfuture * sizeof *f);
	for (i = 0; i < m->nfuture; i++)
		f[i] = (struct fut){ m->d.jobs[m->future[i]].submit, m->future[i] };
	qsort(f, (size_t)m->nfuture, sizeof *f, fut_cmp);
	for (i = 0; i < m->nfuture; i++)
		m->future[i] = f[i].id;
	free(f);
}

/* Everything from the source's data: rows, counts, nodes, per-job memory. */
static void
model_full(struct dash_model *m)
{
	const struct spec *s = m->d.spec;
	int i, v;
	bool active;

	m->full++;
	jobs_grow(m);
	m->nq = 0;
	m->pending = m->running = 0;
	for (v = 0; v < m->nvcs; v++)
		m->vcs[v].pending = m->vcs[v].running = 0;
	m->nfuture = m->future_next = 0;
	for (i = 0; i < m->d.njobs; i++) {
		job_nodes_set(m, i);
		if (m->d.jobs[i].state == JOB_PENDING && m->d.jobs[i].submit > m->d.now) {
			XGROW(m->future, m->future_cap, (size_t)m->nfuture + 1);
			m->future[m->nfuture++] = i;
		}
		if (!job_queued(m, i, &active))
			continue;
		XGROW(m->q, m->q_cap, (size_t)m->nq + 1);
		qrow_fill(m, i, active, &m->q[m->nq]);
		qrow_count(m, &m->q[m->nq], +1);
		m->nq++;
	}
	future_sort(m);
	qrow_sort(m->q, m->nq, m->d.jobs);
	vq_index(m);
	m->partial = 0;
	for (i = 0; i < s->nnodes; i++) {
		m->node_busy[i] = node_busy(m, i);
		m->partial += node_partial(m, i, m->node_busy[i]);
	}
}

static void
chg_add(struct dash_model *m, int i)
{
	if (i < 0 || i >= m->d.njobs || m->jmark[i])
		return;
	m->jmark[i] = 1;
	XGROW(m->cj, m->cj_cap, (size_t)m->ncj + 1);
	m->cj[m->ncj++] = i;
}

static void
nchg_add(struct dash_model *m, int node)
{
	if (node < 0 || node >= m->d.spec->nnodes || m->nmark[node])
		return;
	m->nmark[node] = 1;
	XGROW(m->cn, m->cn_cap, (size_t)m->ncn + 1);
	m->cn[m->ncn++] = node;
}

/*
 * The changed jobs' rows out, their new rows merged in; the nodes they
 * left or took, and those whose health changed, recounted.
 */
static void
model_delta(struct dash_model *m, const struct dash_changes *ch)
{
	struct dash_qrow *nw;
	int i, k, n, old = m->known, a, b, w;
	bool active;

	m->ncj = m->ncn = 0;
	jobs_grow(m);
	for (i = 0; i < ch->njobs; i++)
		chg_add(m, ch->jobs[i]);
	for (i = old; i < m->d.njobs; i++) {	/* new jobs */
		chg_add(m, i);
		if (m->d.jobs[i].state == JOB_PENDING && m->d.jobs[i].submit > m->d.now)
			future_add(m, i);
	}
	/* arrivals: their submit time has come */
	while (m->future_next < m->nfuture &&
	    m->d.jobs[m->future[m->future_next]].submit <= m->d.now)
		chg_add(m, m->future[m->future_next++]);
	for (i = 0; i < ch->nnodes; i++)
		nchg_add(m, ch->nodes[i]);
	m->delta_jobs += m->ncj;

	/* nodes: where the changed jobs were and are */
	for (i = 0; i < m->ncj; i++) {
		int j = m->cj[i];

		for (k = 0; k < m->job_nnodes[j]; k++)
			nchg_add(m, m->job_nodes[j][k]);
		job_nodes_set(m, j);
		for (k = 0; k < m->job_nnodes[j]; k++)
			nchg_add(m, m->job_nodes[j][k]);
	}
	for (i = 0; i < m->ncn; i++) {
		node_update(m, m->cn[i]);
		m->nmark[m->cn[i]] = 0;
	}

	/* queues: drop the changed jobs' rows (order kept) */
	for (i = 0, w = 0; i < m->nq; i++) {
		if (m->jmark[m->q[i].job]) {
			qrow_count(m, &m->q[i], -1);
			continue;
		}
		m->q[w++] = m->q[i];
	}
	m->nq = w;
	/* their new rows, ordered */
	XGROW(m->qn, m->qn_cap, (size_t)m->ncj + 1);
	nw = m->qn;
	for (i = 0, n = 0; i < m->ncj; i++) {
		int j = m->cj[i];

		m->jmark[j] = 0;
		if (!job_queued(m, j, &active))
			continue;
		qrow_fill(m, j, active, &nw[n]);
		qrow_count(m, &nw[n], +1);
		n++;
	}
	qrow_sort(nw, n, m->d.jobs);
	/* merged with the kept rows into q2, which becomes q */
	XGROW(m->q2, m->q2_cap, (size_t)(m->nq + n) + 1);
	for (a = 0, b = 0, k = 0; a < m->nq || b < n; k++)
		if (b >= n || (a < m->nq && qrow_cmp(&m->q[a], &nw[b], (void *)m->d.jobs) <= 0))
			m->q2[k] = m->q[a++];
		else
			m->q2[k] = nw[b++];
	m->nq += n;
	nw = m->q;
	m->q = m->q2;
	m->q2 = nw;
	{
		size_t c = m->q_cap;

		m->q_cap = m->q2_cap;
		m->q2_cap = c;
	}
	vq_index(m);
}

void
dash_model_rebuild(struct dash_model *m)
{
	m->src->ops->data(m->src->self, &m->d);
	model_full(m);
}

/*
 * The source is on another spec (source.h invariant 5): every array sized
 * by the old one goes, the model starts over (its init refreshes), and
 * only the event log, which is about what happened, is kept.
 */
static void
model_respec(struct dash_model *m)
{
	struct dash_source *src = m->src;
	struct rec *ev = m->ev;
	int head = m->ev_head, n = m->ev_n;
	long long total = m->ev_total, rebuilds = m->rebuilds, full = m->full;
	long long kinds[REC_NKINDS];

	const int *vm = m->d.vc_map, *cm = m->d.cell_map;
	int nvm = m->d.nvc_map, ncm = m->d.ncell_map, i;

	/* the kept records name the old spec's VCs and cells */
	for (i = 0; i < DASH_EVENTS && (vm != NULL || cm != NULL); i++) {
		if (vm != NULL && ev[i].vc >= 0)
			ev[i].vc = ev[i].vc < nvm ? vm[ev[i].vc] : -1;
		if (cm != NULL && ev[i].cell >= 0)
			ev[i].cell = ev[i].cell < ncm ? cm[ev[i].cell] : -1;
	}
	memcpy(kinds, m->ev_kinds, sizeof kinds);
	m->ev = NULL;
	dash_model_release(m);
	dash_model_init(m, src);
	free(m->ev);
	m->ev = ev;
	m->ev_head = head;
	m->ev_n = n;
	m->ev_total = total;
	memcpy(m->ev_kinds, kinds, sizeof kinds);
	m->rebuilds += rebuilds;
	m->full += full;
}

void
dash_model_refresh(struct dash_model *m)
{
	struct dash_changes ch;
	const struct spec *s;
	int v;

	m->src->ops->data(m->src->self, &m->d);
	if (m->d.gen == m->gen)
		return;
	if (m->d.spec_gen != m->spec_gen) {
		model_respec(m);
		return;
	}
	s = m->d.spec;
	m->rebuilds++;
	memset(&ch, 0, sizeof ch);
	if (m->src->ops->changes != NULL)
		m->src->ops->changes(m->src->self, &ch);
	else
		ch.all = true;
	/* the first refresh, a source that cannot tell, or time going back */
	if (ch.all || m->full == 0 || m->d.now < m->last_now)
		model_full(m);
	else
		model_delta(m, &ch);
	m->gen = m->d.gen;
	m->last_now = m->d.now;
	engine_stats(m->d.engine, &m->st);
	m->util = m->st.gpus > 0 ? (double)(m->st.used + m->st.opp) / m->st.gpus : 0;
	m->frag = s->nnodes ? (double)m->partial / s->nnodes : 0;
	for (v = 0; v < m->nvcs; v++) {
		m->vcs[v].name = s->vcs[v].name;
		m->vcs[v].letter = dash_vc_letter(v);
		engine_vc_usage(m->d.engine, v, &m->vcs[v].u);
	}
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
	if ((unsigned)r->kind < REC_NKINDS)
		m->ev_kinds[r->kind]++;
}

int
dash_model_restart(struct dash_model *m, char **cause)
{
	struct dash_source *src = m->src;

	if (src->ops->restart == NULL) {
		*cause = xasprintf("the %s cannot start over", m->d.backend);
		return -1;
	}
	if (src->ops->restart(src->self, cause) != 0)
		return -1;
	dash_model_release(m);
	dash_model_init(m, src);
	return 0;
}

/* Busy GPU-time is the jobs' attained service (emu.h invariant 2). */
void
dash_model_summary(const struct dash_model *m, struct dash_summary *su)
{
	const struct job *j;
	double busy = 0;
	int i;

	memset(su, 0, sizeof *su);
	su->now = m->d.now;
	for (i = 0; i < m->d.njobs; i++) {
		j = &m->d.jobs[i];
		if (j->submit > m->d.now)
			continue;
		su->jobs++;
		busy += j->attained;
		if (j->state == JOB_COMPLETED)
			su->done++;
		else if (!job_is_final(j))
			su->left++;
	}
	if (m->st.gpus > 0 && m->d.now - m->d.epoch > 0)
		su->util = busy / ((double)m->st.gpus * (m->d.now - m->d.epoch));
	su->preemptions = m->ev_kinds[REC_PREEMPT] + m->ev_kinds[REC_DOWNGRADE];
	su->node_failures = m->ev_kinds[REC_NODE_BAD];
	su->failed = m->ev_kinds[REC_FAIL];
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
prio_fifo(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	char d[32];

	(void)j;
	dash_format_dur(r->key.k[0], d, sizeof d);
	snprintf(buf, len, "arr %s", d);
}

static void
prio_las(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	(void)j;
	snprintf(buf, len, "q%d", (int)r->key.k[0]);
}

static void
prio_gittins(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	(void)j;
	snprintf(buf, len, "q%d g=%.3g", (int)r->key.k[0], -r->key.k[1]);
}

static void
prio_srtf(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	char d[32];

	(void)j;
	dash_format_dur(r->key.k[0], d, sizeof d);
	snprintf(buf, len, "rem %s", d);
}

/* srsf's key is remaining time x GPUs: service, shown in GPU-hours. */
static void
prio_srsf(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	(void)j;
	snprintf(buf, len, "svc %.3g GPU-h", r->key.k[0] / 3600);
}

/* 'priority' (live sessions): the key is minus the submission's priority. */
static void
prio_priority(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	(void)j;
	snprintf(buf, len, "prio %d", (int)-r->key.k[0]);
}

/*
 * gandiva orders like fifo; what it adds is time-slicing, so a job it has
 * suspended reads "susp xN" (N suspensions so far), a running one that has
 * been time-sliced "sliced xN", the rest their arrival.
 */
static void
prio_gandiva(const struct dash_qrow *r, const struct job *j, char *buf, size_t len)
{
	if (j->state == JOB_SUSPENDED)
		snprintf(buf, len, "susp x%d", j->suspensions);
	else if (j->state == JOB_RUNNING && j->suspensions > 0)
		snprintf(buf, len, "sliced x%d", j->suspensions);
	else
		prio_fifo(r, j, buf, len);
}

/* How each policy's key reads; an unknown policy shows the numbers. */
static const struct {
	const char	*policy;
	void		(*fmt)(const struct dash_qrow *r, const struct job *j, char *buf,
			    size_t len);
} prio_table[] = {
	{ "fifo", prio_fifo },
	{ "fifo-skip", prio_fifo },
	{ "las", prio_las },
	{ "gittins", prio_gittins },
	{ "srtf", prio_srtf },
	{ "srsf", prio_srsf },
	{ "priority", prio_priority },
	{ "gandiva", prio_gandiva },
};

void
dash_format_prio(const char *policy, const struct dash_qrow *r, const struct job *j,
    char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof prio_table / sizeof prio_table[0]; i++)
		if (strcmp(prio_table[i].policy, policy) == 0) {
			prio_table[i].fmt(r, j, buf, len);
			return;
		}
	snprintf(buf, len, "%.3g/%.3g", r->key.k[0], r->key.k[1]);
}
