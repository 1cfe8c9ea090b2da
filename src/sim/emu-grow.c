/*
 * emu-grow.c — Gandiva's grow-shrink in the emulator (POLICY_OVERSUB):
 * an elastic job (struct job elastic_max > gpus) running alone on one
 * node grows, one GPU at a time, into GPUs of its node that have stayed
 * idle for par.grow_after seconds, and gives them back at once when a job
 * of its VC (any VC in quota mode) arrives and finds no cells. Growing and
 * shrinking go through engine_move, so the extra GPUs are the job's VC's
 * cells (its quota, sharing safety) like any other; they are the last
 * one-GPU pods of its placement. Speed: alone speed x GPUs / gang GPUs
 * (emu-step.c emu_job_speed), so a job's work is the same however many it has.
 *
 * Idle time is watched only where it matters: at the end of every tick,
 * on the nodes of the elastic jobs holding cells (a node not watched at
 * the previous tick starts from scratch, so no stale clock survives a
 * gap). An EV_GROW wake-up is queued for the time the next idle GPU of a
 * job's node comes due.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"

static void
emu_el_init(struct emu *m)
{
	int i;

	m->gr.on = false;
	if ((m->p->ops->flags & POLICY_OVERSUB) == 0 || m->par.grow_after < 0)
		return;
	for (i = 0; i < m->njobs; i++)
		if (m->jobs[i].elastic_max > m->jobs[i].gpus)
			m->gr.on = true;
	if (!m->gr.on)
		return;
	m->gr.idle_at = xcalloc((size_t)m->s->ncells + 1, sizeof *m->gr.idle_at);
	for (i = 0; i < m->s->ncells; i++)
		m->gr.idle_at[i] = -1;
	m->gr.node_seen = xcalloc((size_t)m->s->nnodes + 1, sizeof *m->gr.node_seen);
	for (i = 0; i < m->s->nnodes; i++)
		m->gr.node_seen[i] = -INFINITY;
}

static void
emu_el_free(struct emu *m)
{
	free(m->gr.jobs);
	free(m->gr.idle_at);
	free(m->gr.node_seen);
}

/* The leaves under cell c, lo..hi (breadth-first numbering keeps them
   contiguous, as the engine's leaf_range relies on too). */
static void
node_leaves(const struct spec *s, int c, int *lo, int *hi)
{
	int a = c, b = c;

	while (s->cells[a].first_child >= 0)
		a = s->cells[a].first_child;
	while (s->cells[b].first_child >= 0)
		b = s->cells[b].first_child + s->cells[b].nchild - 1;
	*lo = a;
	*hi = b;
}

static bool
elastic(const struct emu *m, int job)
{
	return m->gr.on && m->jobs[job].elastic_max > m->jobs[job].gpus;
}

/* Into the list of elastic jobs holding cells, kept sorted by job id. */
static void
emu_el_start(struct emu *m, int job)
{
	int i;

	m->js[job].extra = 0;
	if (!elastic(m, job))
		return;
	XGROW(m->gr.jobs, m->gr.cap, (size_t)m->gr.njobs + 1);
	for (i = m->gr.njobs; i > 0 && m->gr.jobs[i - 1] > job; i--)
		m->gr.jobs[i] = m->gr.jobs[i - 1];
	m->gr.jobs[i] = job;
	m->gr.njobs++;
}

/* Out of the list: it gave all its cells back (finished, preempted, failed). */
static void
emu_el_leave(struct emu *m, int job)
{
	int i;

	m->js[job].extra = 0;
	for (i = 0; i < m->gr.njobs && m->gr.jobs[i] != job; i++)
		;
	if (i == m->gr.njobs)
		return;
	memmove(&m->gr.jobs[i], &m->gr.jobs[i + 1], (size_t)(m->gr.njobs - i - 1) * sizeof *m->gr.jobs);
	m->gr.njobs--;
}

/* The job's single node, or -1 (a guest, several pods or nodes). */
static int
el_node(const struct emu *m, int job, struct engine_job_info *in)
{
	const struct job *j = &m->jobs[job];
	int k, node;

	if (m->js[job].guest || j->opportunistic || !engine_job(m->e, j->engine_id, in) ||
	    in->nleaves == 0)
		return -1;
	node = m->s->cells[in->leaves[0]].node;
	for (k = 1; k < in->nleaves; k++)
		if (m->s->cells[in->leaves[k]].node != node)
			return -1;
	return node;
}

/* Move to the current placement plus `add` (one pod each) or less its last `drop` pods. */
static int
el_move(struct emu *m, int job, const int *add, int nadd, int drop)
{
	struct engine_job_info in;
	int *pf, *lv, np, nl, i, rc;
	char why[256];

	if (!engine_job(m->e, m->jobs[job].engine_id, &in) || drop >= in.npods)
		return -1;
	pf = xcalloc((size_t)(in.npods + nadd + 1), sizeof *pf);
	lv = xcalloc((size_t)(in.nleaves + nadd + 1), sizeof *lv);
	np = in.npods;
	nl = in.nleaves;
	memcpy(pf, in.pod_first, (size_t)(np + 1) * sizeof *pf);
	memcpy(lv, in.leaves, (size_t)nl * sizeof *lv);
	for (i = 0; i < nadd; i++) {
		lv[nl++] = add[i];
		pf[++np] = nl;
	}
	np -= drop;
	nl = pf[np];
	rc = engine_move(m->e, m->jobs[job].engine_id, pf, np, lv, nl, why, sizeof why);
	emu_moved(m, job);
	free(pf);
	free(lv);
	return rc;
}

/* Speed again after the GPUs changed (accounted up to now first). */
static void
el_respeed(struct emu *m, int job)
{
	struct ejob_state *x = &m->js[job];

	x->alone = emu_job_speed(m, &m->jobs[job]);
	emu_set_speed(m, job, x->factor, x->share);
}

static int
el_detail(struct emu *m, int job)
{
	char buf[64];

	bufprintf(buf, sizeof buf, "%d GPUs", m->jobs[job].gpus + m->js[job].extra);
	return emu_detail_add(m, buf);
}

/* Give every extra GPU back; they are idle from now. */
static bool
el_shrink(struct emu *m, int job)
{
	struct ejob_state *x = &m->js[job];
	struct engine_job_info in;
	int i, n = x->extra;

	if (n <= 0 || !engine_job(m->e, m->jobs[job].engine_id, &in))
		return false;
	emu_account(m, job);
	for (i = in.nleaves - n; i < in.nleaves; i++)
		m->gr.idle_at[in.leaves[i]] = m->now;
	if (el_move(m, job, NULL, 0, n) < 0)
		return false;	/* a subset of its own cells: cannot happen */
	x->extra = 0;
	m->gr.shrinks += n;
	/* the scheduler passes only domains where something changed */
	if (engine_mode(m->e) == ENGINE_QUOTA)
		sched_touch_all(m->sch);
	else
		sched_set_domain_dirty(m->sch, m->jobs[job].vc, true);
	el_respeed(m, job);
	emu_log(m, REC_SHRINK, job, -1, el_detail(m, job));
	return true;
}

/*
 * New jobs of this tick that found no cells need the GPUs grown jobs
 * took: shrink those of their VCs (of every VC in quota mode, where VCs
 * share the GPUs). Returns true when some shrank (the caller passes again).
 */
static bool
emu_el_shrink(struct emu *m)
{
	bool any = false, quota = engine_mode(m->e) == ENGINE_QUOTA;
	int i, k;

	for (i = 0; i < m->sh.narrived; i++) {
		const struct job *a = &m->jobs[m->sh.arrived[i]];
		if (a->state != JOB_PENDING)
			continue;
		for (k = 0; k < m->gr.njobs; k++) {
			int job = m->gr.jobs[k];
			if (m->js[job].extra > 0 && (quota || m->jobs[job].vc == a->vc))
				any |= el_shrink(m, job);
		}
	}
	return any;
}

/* Watch node's GPUs: idle ones keep (or start) their clock, busy ones lose it. */
static void
el_watch(struct emu *m, int node)
{
	const struct spec_node *sn = &m->s->nodes[node];
	struct engine_cell_info ci;
	int c, k, lo, hi;
	bool fresh = m->gr.node_seen[node] != m->horizon && m->gr.node_seen[node] != m->now;

	if (m->gr.node_seen[node] == m->now)
		return;
	m->gr.node_seen[node] = m->now;
	for (k = 0; k < sn->ncells; k++) {
		node_leaves(m->s, sn->cells[k], &lo, &hi);
		for (c = lo; c <= hi; c++) {
			engine_cell(m->e, c, &ci);
			if (ci.job >= 0 || ci.bad > 0)
				m->gr.idle_at[c] = -1;
			else if (fresh || m->gr.idle_at[c] < 0)
				m->gr.idle_at[c] = m->now;
		}
	}
}

/*
 * End of a tick: shrink grown jobs that now share their slot with
 * guests, watch the elastic jobs' nodes, grow those with nobody of their
 * VC waiting into GPUs idle for grow_after, and queue a wake-up for the
 * next GPU to come due.
 */
static void
emu_el_grow(struct emu *m)
{
	struct engine_job_info in;
	int k, i, c, lo, hi, node, *cand = NULL, ncand;
	size_t cap = 0;

	for (k = 0; k < m->gr.njobs; k++) {
		int job = m->gr.jobs[k], g = m->js[job].grp;
		if (m->js[job].extra > 0 && g >= 0 && m->sh.grp[g].nmb > 1)
			el_shrink(m, job);
	}
	for (k = 0; k < m->gr.njobs; k++)
		if ((node = el_node(m, m->gr.jobs[k], &in)) >= 0)
			el_watch(m, node);
	for (k = 0; k < m->gr.njobs; k++) {
		int job = m->gr.jobs[k], g;
		struct job *j = &m->jobs[job];
		struct ejob_state *x = &m->js[job];
		const struct spec_node *sn;
		double next = INFINITY;

		if (j->state != JOB_RUNNING || (node = el_node(m, job, &in)) < 0 ||
		    j->gpus + x->extra >= j->elastic_max ||
		    ((g = x->grp) >= 0 && m->sh.grp[g].nmb > 1) ||
		    sched_pending_vc(m->sch, j->vc) > 0)
			continue;
		sn = &m->s->nodes[node];
		ncand = 0;
		for (i = 0; i < sn->ncells; i++) {
			node_leaves(m->s, sn->cells[i], &lo, &hi);
			for (c = lo; c <= hi; c++) {
				if (m->gr.idle_at[c] < 0)
					continue;
				if (m->gr.idle_at[c] + m->par.grow_after <= m->now) {
					XGROW(cand, cap, (size_t)ncand + 1);
					cand[ncand++] = c;
				} else
					next = fmin(next, m->gr.idle_at[c] + m->par.grow_after);
			}
		}
		for (i = 0; i < ncand && j->gpus + x->extra < j->elastic_max; i++) {
			if (m->s->cells[cand[i]].chain != in.chain)
				continue;
			emu_account(m, job);
			if (el_move(m, job, &cand[i], 1, 0) < 0)
				continue;	/* not its VC's to take */
			x->extra++;
			m->gr.grows++;
			m->gr.idle_at[cand[i]] = -1;
			el_respeed(m, job);
			emu_log(m, REC_GROW, job, -1, el_detail(m, job));
		}
		if (isfinite(next) && next != x->grow_at) {
			x->grow_at = next;
			emu_push(m, next, EV_GROW, job, 0);
			emu_mark(m, job);
		}
	}
	free(cand);
}

/* After a restore: the list from the jobs holding cells, their nodes watched. */
static int
emu_el_restore(struct emu *m, char *why, size_t len)
{
	struct engine_job_info in;
	int i, node;

	for (i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		int have = job_holds_cells(j) && engine_job(m->e, j->engine_id, &in) ?
		    in.nleaves - j->gpus : 0;
		if (m->js[i].extra != have || (m->js[i].extra > 0 && !elastic(m, i))) {
			bufprintf(why, len, "job '%s': %d extra GPUs saved, its placement "
			    "has %d", j->name, m->js[i].extra, have);
			return -1;
		}
		if (!job_holds_cells(j) || !elastic(m, i) || m->js[i].guest)
			continue;
		emu_el_start(m, i);
		m->js[i].extra = have;
		if ((node = el_node(m, i, &in)) >= 0)
			m->gr.node_seen[node] = m->horizon;
	}
	return 0;
}

/* ---- the mechanism's hooks ---- */

static bool
grow_init(struct emu *m)
{
	emu_el_init(m);
	return m->gr.on;
}

static void
grow_leave(struct emu *m, int job, enum emu_leave why)
{
	(void)why;
	emu_el_leave(m, job);
}

/* Version 6 of the run blob: the counts and idle clocks (none when off). */
static void
grow_save(const struct emu *m, int section, struct strbuf *out)
{
	int i, n;

	if (section != RUN_V_GROW)
		return;
	pack_i64(out, m->gr.grows);
	pack_i64(out, m->gr.shrinks);
	for (i = 0, n = 0; m->gr.on && i < m->s->ncells; i++)
		n += m->gr.idle_at[i] >= 0;
	pack_i32(out, n);
	for (i = 0; m->gr.on && i < m->s->ncells; i++)
		if (m->gr.idle_at[i] >= 0) {
			pack_i32(out, i);
			pack_f64(out, m->gr.idle_at[i]);
		}
}

/* Counts and idle clocks as stored, the list rebuilt. */
static int
grow_restore(struct emu *m, const struct emu_run_state *rs, char *why, size_t len)
{
	int i;

	if (!m->gr.on && rs->nidle > 0) {
		bufprintf(why, len, "run state: idle clocks for grow-shrink, "
		    "which policy '%s' and these jobs do not do", m->p->ops->name);
		return -1;
	}
	m->gr.grows = rs->grows;
	m->gr.shrinks = rs->shrinks;
	for (i = 0; i < rs->nidle; i++) {
		if (rs->idle_cell[i] >= m->s->ncells || m->s->cells[rs->idle_cell[i]].level != 1) {
			bufprintf(why, len, "run state: idle cell %d is not a GPU",
			    rs->idle_cell[i]);
			return -1;
		}
		m->gr.idle_at[rs->idle_cell[i]] = rs->idle_t[i];
	}
	if (m->gr.on)
		return emu_el_restore(m, why, len);
	for (i = 0; i < m->njobs; i++)
		if (m->js[i].extra > 0) {
			bufprintf(why, len, "job '%s' grew, policy '%s' does not grow jobs",
			    m->jobs[i].name, m->p->ops->name);
			return -1;
		}
	return 0;
}

static void
grow_report(const struct emu *m, struct emu_report *r)
{
	r->grows = m->gr.grows;
	r->shrinks = m->gr.shrinks;
}

/* EV_GROW is a wake-up only: the tick's settle (emu_el_grow) does the work. */
const struct emu_mech emu_grow_mech = {
	.name = "grow-shrink",
	.init = grow_init,
	.free = emu_el_free,
	.cells = emu_el_start,
	.leave = grow_leave,
	.tick = emu_el_shrink,
	.settle = emu_el_grow,
	.save = grow_save,
	.restore = grow_restore,
	.report = grow_report,
};
