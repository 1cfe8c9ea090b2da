/*
 * emu-share.c — Gandiva's time-slicing and packing in the emulator
 * (POLICY_OVERSUB; the arithmetic is sim/share.h's): sharing groups of one
 * VC's jobs of one GPU count on one node, their slices and pack trials
 * (EV_SLICE), over-subscription of arrivals that got no cells, and
 * Gandiva's node choice (Algorithm 1) as the scheduler's placement hook.
 * With par.no_slice (AntMan's Gandiva baseline) nothing is time-sliced:
 * an arrival joins only a group it packs into, and a group that cannot
 * pack, or whose pack lost its trial, evicts its later guests to wait.
 * A mechanism of emu-int.h (emu_share_mech); it calls the steps of
 * emu-step.c only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"
#include "sim/share.h"

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool
oversub(const struct emu *m)
{
	return (m->p->ops->flags & POLICY_OVERSUB) != 0;
}

/*
 * The node a job's cells are on when it could share them: a guaranteed
 * job of one pod, all on one node; -1 otherwise.
 */
static int
host_node(const struct emu *m, const struct job *j)
{
	struct engine_job_info info;
	int k, node;

	if (j->opportunistic || j->nmembers != 1 || j->members[0].pods != 1 ||
	    !engine_job(m->e, j->engine_id, &info) || info.nleaves == 0)
		return -1;
	node = m->s->cells[info.leaves[0]].node;
	for (k = 1; k < info.nleaves; k++)
		if (m->s->cells[info.leaves[k]].node != node)
			return -1;
	return node;
}

/* A member as the plans see it: its model's profile (none: never packed). */
static void
member_of(const struct emu *m, int job, struct share_member *sm)
{
	const struct job *j = &m->jobs[job];

	sm->job = job;
	sm->util = 2;
	sm->mem = 0;
	sm->prio = j->priority;
	if (!m->par.ideal && j->model >= 0 && j->model < model_count) {
		sm->util = model_table[j->model].gpu_util;
		sm->mem = model_table[j->model].mem_peak;
	}
}

/* Would members mb[0..n) and job pack on `slots` slots (share_plan_pack)? */
static bool
packs_with(const struct emu *m, const int *mb, int n, int slots, int job)
{
	struct share_member *sm = xcalloc((size_t)n + 1, sizeof *sm);
	struct share_slot *out = xcalloc((size_t)n + 1, sizeof *out);
	bool ok;
	int i;

	for (i = 0; i < n; i++)
		member_of(m, mb[i], &sm[i]);
	member_of(m, job, &sm[n]);
	ok = share_plan_pack(sm, n + 1, slots, m->par.gpu_mem, out);
	free(sm);
	free(out);
	return ok;
}

/* Speed of job j alone on host h's slot (its own model, h's locality). */
static double
speed_on(const struct emu *m, const struct job *j, const struct job *h)
{
	struct engine_job_info info;

	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return 1;
	if (!engine_job(m->e, h->engine_id, &info) || info.nleaves == 0)
		return 1;
	/* the host's gang, not GPUs it grew into */
	return model_table[j->model].speed[emu_locality(m->s, info.leaves,
	    info.nleaves < h->gpus ? info.nleaves : h->gpus)];
}

static void
emu_group_insert(struct sgroup *g, int job)
{
	int i;

	XGROW(g->mb, g->cap, (size_t)g->nmb + 1);
	for (i = g->nmb; i > 0 && g->mb[i - 1] > job; i--)
		g->mb[i] = g->mb[i - 1];
	g->mb[i] = job;
	g->nmb++;
}

static void
group_remove(struct sgroup *g, int job)
{
	int i;

	for (i = 0; i < g->nmb && g->mb[i] != job; i++)
		;
	if (i == g->nmb)
		return;
	memmove(&g->mb[i], &g->mb[i + 1], (size_t)(g->nmb - i - 1) * sizeof *g->mb);
	g->nmb--;
}

static int
group_find(const struct emu *m, int node, int vc, int gpus)
{
	int i;

	for (i = 0; i < m->sh.ngrp; i++)
		if (m->sh.grp[i].nmb > 0 && m->sh.grp[i].node == node && m->sh.grp[i].vc == vc &&
		    m->sh.grp[i].gpus == gpus)
			return i;
	return -1;
}

static int
group_new(struct emu *m, int node, int vc, int gpus)
{
	struct sgroup *g;
	int i;

	for (i = 0; i < m->sh.ngrp && m->sh.grp[i].nmb > 0; i++)
		;
	if (i == m->sh.ngrp) {
		XGROW(m->sh.grp, m->sh.grp_cap, (size_t)m->sh.ngrp + 1);
		memset(&m->sh.grp[i], 0, sizeof m->sh.grp[i]);
		m->sh.ngrp++;
	}
	g = &m->sh.grp[i];
	g->node = node;
	g->vc = vc;
	g->gpus = gpus;
	g->mode = SG_SLICE;
	g->ver++;		/* whatever was pending for a former group here */
	return i;
}

static int
slots_of(const struct emu *m, const struct sgroup *g)
{
	int i, n = 0;

	for (i = 0; i < g->nmb; i++)
		n += !m->js[g->mb[i]].guest;
	return n;
}

/* Does member a come after member b: lower priority, then later in the
   round robin (rr), then the higher job id. */
static bool
rr_after(const struct emu *m, int a, int b)
{
	int pa = m->jobs[a].priority, pb = m->jobs[b].priority;

	if (pa != pb)
		return pa < pb;
	if (m->js[a].rr != m->js[b].rr)
		return m->js[a].rr > m->js[b].rr;
	return a > b;
}

/*
 * Members in round-robin order into out: strict priority tiers first (the
 * slots go to the highest tier present; a lower tier runs only in slots
 * no higher job wants, and is evicted first), then rr, then job id.
 */
static void
rr_order(const struct emu *m, const struct sgroup *g, int *out)
{
	int i, k, v;

	for (i = 0; i < g->nmb; i++) {
		v = g->mb[i];
		for (k = i - 1; k >= 0 && rr_after(m, out[k], v); k--)
			out[k + 1] = out[k];
		out[k + 1] = v;
	}
}

/*
 * Does a running member keep its slot at the end of a slice? One of weight
 * w runs w slices in a row (from its last resume) before it goes to the
 * back, so within a tier slot time goes by weight. Half a slice of slack
 * absorbs the rounding of slice ends; a re-plan between (a member joined)
 * restarts the slice, so such a run is a little short, never long.
 */
static bool
keeps_slot(const struct emu *m, int job)
{
	const struct job *j = &m->jobs[job];

	return j->weight > 1 && m->now - j->state_since < (j->weight - 0.5) * m->par.slice;
}

/* Evict a guest: checkpoint and requeue, as a preemption. */
static void
evict(struct emu *m, int job)
{
	m->js[job].grp = -1;
	m->js[job].guest = false;
	emu_preempt(m, job, -1);
}

/*
 * The guest that waits first when a group cannot pack without slicing:
 * the lowest priority, then the one that joined last (guests join at the
 * front of the round robin, so the smallest rr), then the highest job id.
 */
static int
last_guest(const struct emu *m, const struct sgroup *g)
{
	int i, k, best = -1;

	for (i = 0; i < g->nmb; i++) {
		k = g->mb[i];
		if (!m->js[k].guest)
			continue;
		if (best < 0 || m->jobs[k].priority < m->jobs[best].priority ||
		    (m->jobs[k].priority == m->jobs[best].priority &&
		    m->js[k].rr <= m->js[best].rr))
			best = k;
	}
	return best;
}

/* Leave the group: alone again on its own cells (hosts) at full speed. */
static void
ungroup(struct emu *m, int job)
{
	struct ejob_state *x = &m->js[job];

	x->grp = -1;
	if (m->jobs[job].state == JOB_SUSPENDED)
		emu_resume(m, job, 1, 1);
	else if (x->factor != 1 || x->share != 1)
		emu_set_speed(m, job, 1, 1);
	emu_mark(m, job);
}

static double
members_work(const struct emu *m, const struct sgroup *g)
{
	double w = 0;
	int i;

	for (i = 0; i < g->nmb; i++)
		w += m->jobs[g->mb[i]].work_done;
	return w;
}

/*
 * Plan group gi again: who runs, how fast. rotate: a slice ended, so the
 * members that ran go to the back of the round robin. A group with no
 * more members than slots dissolves.
 */
static void
group_plan(struct emu *m, int gi, bool rotate)
{
	struct sgroup *g = &m->sh.grp[gi];
	struct share_member *sm;
	struct share_slot *out;
	int *ord, n = g->nmb, slots, i, job;
	bool packed = false;

	for (i = 0; i < n; i++) {
		emu_account(m, g->mb[i]);
		emu_mark(m, g->mb[i]);
	}
	ord = xcalloc((size_t)n + 1, sizeof *ord);
	rr_order(m, g, ord);
	if (rotate && (g->mode == SG_SLICE || g->mode == SG_NOPACK)) {
		for (i = 0; i < n; i++)
			if (m->jobs[ord[i]].state == JOB_RUNNING && !keeps_slot(m, ord[i])) {
				m->js[ord[i]].rr = ++m->sh.rr_back;
				emu_mark(m, ord[i]);
			}
		rr_order(m, g, ord);
	}
	slots = slots_of(m, g);
	g->ver++;
	if (n <= slots) {
		for (i = 0; i < n; i++)
			ungroup(m, ord[i]);
		g->nmb = 0;
		free(ord);
		return;
	}
	sm = xcalloc((size_t)n, sizeof *sm);
	out = xcalloc((size_t)n, sizeof *out);
	for (i = 0; i < n; i++)
		member_of(m, ord[i], &sm[i]);	/* no profile: never packed */
	if (g->mode == SG_TRIAL || g->mode == SG_PACKED)
		packed = share_plan_pack(sm, n, slots, m->par.gpu_mem, out);
	if (!packed && m->par.no_slice) {
		/* no slicing to fall back on: the last guest waits, and the
		   rest is planned again (n > slots: there is a guest) */
		free(sm);
		free(out);
		free(ord);
		job = last_guest(m, g);
		group_remove(g, job);
		evict(m, job);
		group_plan(m, gi, false);
		return;
	}
	if (!packed) {
		if (g->mode != SG_NOPACK)
			g->mode = SG_SLICE;
		share_plan_slice(sm, n, slots, out);
	}
	/* suspend first, so the slots are free before anyone resumes */
	for (i = 0; i < n; i++)
		if (!out[i].run && m->jobs[ord[i]].state == JOB_RUNNING)
			emu_suspend(m, ord[i]);
	for (i = 0; i < n; i++) {
		job = ord[i];
		if (!out[i].run)
			continue;
		if (m->jobs[job].state == JOB_SUSPENDED)
			emu_resume(m, job, out[i].factor, out[i].share);
		else
			emu_set_speed(m, job, out[i].factor, out[i].share);
	}
	if (g->mode == SG_TRIAL) {
		g->eval_t = m->now;
		g->eval_work = members_work(m, g);
		m->sh.packs++;
		for (i = 0; i < n; i++)
			if (out[i].partner >= 0)
				emu_log(m, REC_PACK, ord[i], ord[out[i].partner], -1);
	}
	if (g->mode != SG_PACKED && m->par.slice > 0)
		emu_push(m, m->now + m->par.slice, EV_SLICE, gi, g->ver);
	free(sm);
	free(out);
	free(ord);
}

/* The members changed: try packing afresh (when on), then plan. */
static void
group_changed(struct emu *m, int gi)
{
	m->sh.grp[gi].mode = m->par.pack && !m->par.ideal ? SG_TRIAL : SG_SLICE;
	group_plan(m, gi, false);
}

/* A slice or a pack trial of group gi ended. */
static void
group_slice(struct emu *m, int gi)
{
	struct sgroup *g = &m->sh.grp[gi];
	double *alone, measured, sliced, hosts, cost = 0;
	int i, k, n = g->nmb;

	if (g->mode != SG_TRIAL) {
		group_plan(m, gi, true);
		return;
	}
	for (i = 0; i < n; i++) {
		emu_account(m, g->mb[i]);
		emu_mark(m, g->mb[i]);
	}
	alone = xcalloc((size_t)n, sizeof *alone);
	for (i = 0, hosts = 0; i < n; i++) {
		alone[i] = m->js[g->mb[i]].alone;
		cost += emu_model_cost(m, &m->jobs[g->mb[i]], false) / n;
		if (!m->js[g->mb[i]].guest)
			hosts += alone[i];
	}
	measured = m->now > g->eval_t ? (members_work(m, g) - g->eval_work) /
	    (m->now - g->eval_t) : 0;
	/* the alternative: time-slicing, or without it the hosts alone */
	sliced = m->par.no_slice ? hosts :
	    share_slice_rate(alone, n, slots_of(m, g), cost, m->par.slice);
	free(alone);
	if (measured > sliced) {
		g->mode = SG_PACKED;	/* keep it; nothing to do until members change */
		g->ver++;
		return;
	}
	m->sh.unpacks++;
	for (i = 0; i < n; i++)
		if (m->js[g->mb[i]].share < 1)
			emu_log(m, REC_UNPACK, g->mb[i], -1, -1);
	g->mode = SG_NOPACK;
	/* no time-slicing: the guests (the later jobs) wait, the hosts run
	   alone (the group dissolves) */
	for (i = m->par.no_slice ? g->nmb - 1 : -1; i >= 0; i--)
		if (m->js[k = g->mb[i]].guest) {
			group_remove(g, k);
			evict(m, k);
		}
	group_plan(m, gi, false);
}

/* A host started on its own cells: a slot more for its node's group. */
static void
group_join(struct emu *m, int job)
{
	const struct job *j = &m->jobs[job];
	int node, gi;

	if (!oversub(m) || (node = host_node(m, j)) < 0 ||
	    (gi = group_find(m, node, j->vc, j->gpus)) < 0)
		return;
	m->js[job].grp = gi;
	m->js[job].rr = ++m->sh.rr_back;
	emu_group_insert(&m->sh.grp[gi], job);
	group_changed(m, gi);
}

/*
 * Guest `job` got cells of its own (sched_start_now): a host from now on;
 * if the cells are on another node it migrated there.
 */
static void
promote(struct emu *m, int job, int gi)
{
	struct ejob_state *x = &m->js[job];
	struct job *j = &m->jobs[job];
	double c;

	x->guest = false;
	emu_cells(m, job);	/* cells of its own: elastic, movable from now on */
	if (host_node(m, j) == m->sh.grp[gi].node) {
		x->alone = emu_job_speed(m, j);
		emu_mark(m, job);
		return;
	}
	group_remove(&m->sh.grp[gi], job);
	x->grp = -1;
	emu_account(m, job);
	c = emu_model_cost(m, j, true);
	if (j->state == JOB_SUSPENDED)
		emu_apply(m, job, JOB_EV_RESUME);
	x->stall_until = fmax(x->stall_until, m->now) + c;
	x->migcost += c;
	x->migrations++;
	x->alone = emu_job_speed(m, j);
	emu_log(m, REC_MIGRATE, job, -1, emu_detail_nodes(m, j));
	emu_set_speed(m, job, 1, 1);
	group_join(m, job);
}

/*
 * A member left group gi (finished, preempted, failed): a host's freed
 * GPUs go to the first guest in round-robin order (Gandiva gives
 * departures' GPUs to time-sliced jobs); guests beyond what the slots may
 * carry are evicted. Then the rest is planned again.
 */
static void
group_after_leave(struct emu *m, int gi, bool host_left)
{
	struct sgroup *g = &m->sh.grp[gi];
	struct sched_action *acts = NULL;
	int nacts = 0, cap = 0, *ord, i, k, slots;

	if (g->nmb == 0)
		return;
	ord = xcalloc((size_t)g->nmb + 1, sizeof *ord);
	rr_order(m, g, ord);
	if (host_left)
		for (i = 0; i < g->nmb; i++) {
			if (!m->js[ord[i]].guest)
				continue;
			if (sched_start_now(m->sch, ord[i], &acts, &nacts, &cap)) {
				for (k = 0; k < nacts; k++)
					if (acts[k].kind == SCHED_PREEMPT)
						emu_preempt(m, acts[k].job, acts[k].by);
					else if (acts[k].kind == SCHED_DOWNGRADE) {
						emu_log(m, REC_DOWNGRADE, acts[k].job, acts[k].by, -1);
						emu_mark(m, acts[k].job);
					}
					else
						promote(m, acts[k].job, gi);
			}
			emu_mark(m, ord[i]);
			break;
		}
	free(acts);
	/* too many guests for the slots left: the last ones go */
	slots = slots_of(m, g);
	rr_order(m, g, ord);
	for (i = g->nmb - 1; i >= 0 && g->nmb > (long long)m->par.height * slots; i--)
		if (m->js[ord[i]].guest) {
			group_remove(g, ord[i]);
			evict(m, ord[i]);
		}
	free(ord);
	if (g->nmb > 0)
		group_changed(m, gi);
}

/* Job leaves its group (if any); then the group adjusts. */
static void
group_leave(struct emu *m, int job, bool adjust)
{
	struct ejob_state *x = &m->js[job];
	int gi = x->grp;
	bool host = !x->guest;

	if (gi < 0)
		return;
	group_remove(&m->sh.grp[gi], job);
	x->grp = -1;
	x->guest = false;
	x->factor = x->share = 1;
	emu_mark(m, job);
	if (adjust)
		group_after_leave(m, gi, host);
}

/*
 * Without time-slicing: would job pack into node's group (or, with none
 * yet, with the hosts on the node: byn[first[node] .. first[node + 1]),
 * by job id)?
 */
static bool
node_packs(const struct emu *m, int node, int job, const int *byn, const int *first,
    int slots)
{
	const struct job *j = &m->jobs[job];
	int gi = group_find(m, node, j->vc, j->gpus);

	if (gi >= 0)
		return packs_with(m, m->sh.grp[gi].mb, m->sh.grp[gi].nmb,
		    slots_of(m, &m->sh.grp[gi]), job);
	return packs_with(m, byn + first[node], first[node + 1] - first[node], slots, job);
}

/*
 * Gandiva's over-subscription (its Algorithm 1, last step): a guaranteed
 * job that got no cells at arrival joins the same-affinity node of its VC
 * (jobs of the same GPU count) with the least load (members per slot),
 * lowest node first, if that stays within `height` members per slot; it
 * starts at the front of the round robin (early feedback). Without
 * time-slicing only nodes where the members with it pack are candidates.
 */
static void
oversubscribe(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	int *slots, *members, *hosts, *first = NULL, *byn = NULL, *at, nhosts = 0, i, k, node,
	    best = -1, gi, host = -1, off;
	int lim = engine_job_limit(m->e);

	if (j->state != JOB_PENDING || j->klass == JOB_OPPORTUNISTIC ||
	    j->nmembers != 1 || j->members[0].pods != 1 || m->par.height < 2)
		return;
	slots = xcalloc((size_t)m->s->nnodes + 1, sizeof *slots);
	members = xcalloc((size_t)m->s->nnodes + 1, sizeof *members);
	hosts = xcalloc((size_t)lim + 1, sizeof *hosts);
	/* the jobs holding cells are the engine's, the guests the groups'
	   (a walk of every job at each arrival that got no cells was
	   quadratic); hosts by job id, the order they join a new group in */
	for (i = 0; i < lim; i++) {
		const struct job *h;
		if ((k = sched_job_of(m->sch, i)) < 0 || m->js[k].guest)
			continue;
		h = &m->jobs[k];
		if (!job_holds_cells(h) || h->vc != j->vc || h->gpus != j->gpus ||
		    (node = host_node(m, h)) < 0)
			continue;
		slots[node]++;
		members[node]++;
		hosts[nhosts++] = k;
	}
	for (i = 0; i < m->sh.ngrp; i++)
		for (k = 0; k < m->sh.grp[i].nmb; k++) {
			const struct job *h = &m->jobs[m->sh.grp[i].mb[k]];
			if (m->js[m->sh.grp[i].mb[k]].guest && job_holds_cells(h) &&
			    h->vc == j->vc && h->gpus == j->gpus)
				members[m->sh.grp[i].node]++;
		}
	qsort(hosts, (size_t)nhosts, sizeof *hosts, cmp_int);
	if (m->par.no_slice) {
		/* the hosts by node (a counting sort keeps job id order) */
		first = xcalloc((size_t)m->s->nnodes + 1, sizeof *first);
		at = xcalloc((size_t)m->s->nnodes + 1, sizeof *at);
		byn = xcalloc((size_t)nhosts + 1, sizeof *byn);
		for (i = 0; i < m->s->nnodes; i++)
			first[i + 1] = at[i + 1] = first[i] + slots[i];
		for (k = 0; k < nhosts; k++)
			byn[at[host_node(m, &m->jobs[hosts[k]])]++] = hosts[k];
		free(at);
	}
	for (i = 0; i < m->s->nnodes; i++) {
		if (slots[i] == 0 || members[i] + 1 > (long long)m->par.height * slots[i])
			continue;
		if ((best < 0 || (long long)members[i] * slots[best] <
		    (long long)members[best] * slots[i]) &&
		    (!m->par.no_slice || node_packs(m, i, job, byn, first, slots[i])))
			best = i;
	}
	free(first);
	free(byn);
	free(slots);
	free(members);
	if (best < 0) {
		free(hosts);
		return;
	}
	if ((gi = group_find(m, best, j->vc, j->gpus)) < 0) {
		gi = group_new(m, best, j->vc, j->gpus);
		for (k = 0; k < nhosts; k++) {
			i = hosts[k];
			if (host_node(m, &m->jobs[i]) == best) {
				m->js[i].grp = gi;
				m->js[i].rr = ++m->sh.rr_back;
				emu_group_insert(&m->sh.grp[gi], i);
				emu_mark(m, i);
			}
		}
	}
	free(hosts);
	host = m->sh.grp[gi].mb[0];
	sched_take(m->sch, job);
	emu_apply(m, job, JOB_EV_START);
	x->since = m->now;
	x->stall_until = m->now;
	x->guest = true;
	x->grp = gi;
	x->rr = --m->sh.rr_front;
	x->alone = x->speed = speed_on(m, j, &m->jobs[host]);
	x->factor = x->share = 1;
	emu_group_insert(&m->sh.grp[gi], job);
	m->sh.guests++;
	off = emu_detail_add(m, m->s->nodes[best].name);
	strbuf_setlen(&m->jdetail, m->jdetail.len - 1);
	strbuf_adds(&m->jdetail, m->par.no_slice ? " (packed)" : " (time-sliced)");
	strbuf_addc(&m->jdetail, '\0');
	emu_log(m, REC_START, job, -1, off);
	emu_mark(m, job);
	emu_plan_running(m, job);
	group_changed(m, gi);
}

/*
 * The first idle leaves for a pod of g GPUs under cell c: inside the first
 * cell of the lowest level that holds g leaves (engine invariant 7) with g
 * of them idle. Returns true with out[0..g-1] filled.
 */
static bool
idle_leaves(const struct emu *m, int c, int g, int *out)
{
	const struct spec_cell *sc = &m->s->cells[c];
	int k, n, stack[64], top = 0, x, leaves, used, opp, bad;

	engine_cell_use(m->e, c, &leaves, &used, &opp, &bad);
	if (leaves - used - opp - bad < g)
		return false;
	if (sc->first_child >= 0) {
		engine_cell_use(m->e, sc->first_child, &leaves, &used, &opp, &bad);
		if (leaves >= g) {
			for (k = 0; k < sc->nchild; k++)
				if (idle_leaves(m, sc->first_child + k, g, out))
					return true;
			return false;
		}
	}
	/* c is that cell: its idle leaves in order, depth first */
	n = 0;
	stack[top++] = c;
	while (top > 0 && n < g) {
		x = stack[--top];
		if (m->s->cells[x].first_child < 0) {
			engine_cell_use(m->e, x, &leaves, &used, &opp, &bad);
			if (used == 0 && opp == 0 && bad == 0)
				out[n++] = x;
			continue;
		}
		for (k = m->s->cells[x].nchild - 1; k >= 0 && top < 64; k--)
			stack[top++] = m->s->cells[x].first_child + k;
	}
	return n == g;
}

/* A node-level cell Algorithm 1 may choose, with its tier and load. */
struct a1_cand {
	int		 cell;
	int		 tier;		/* 1 same affinity, 2 unallocated, 3 relaxed */
	long long	 busy;		/* GPUs in use + guests' GPUs */
	int		 gpus;
};

static int
a1_cmp(const void *pa, const void *pb)
{
	const struct a1_cand *a = pa, *b = pb;
	long long l = a->busy * b->gpus, r = b->busy * a->gpus;

	if (a->tier != b->tier)
		return a->tier < b->tier ? -1 : 1;
	if (l != r)
		return l < r ? -1 : 1;
	return a->cell < b->cell ? -1 : a->cell > b->cell;
}

/* Tier of node-level cell c for pods of g GPUs (see gandiva_place). */
static int
a1_tier(const struct emu *m, int c, int g)
{
	struct engine_job_info info;
	int stack[64], top = 0, x, k, tier = 2, job;

	stack[top++] = c;
	while (top > 0) {
		x = stack[--top];
		if (m->s->cells[x].first_child >= 0) {
			for (k = 0; k < m->s->cells[x].nchild && top < 64; k++)
				stack[top++] = m->s->cells[x].first_child + k;
			continue;
		}
		job = engine_leaf_job(m->e, x);
		if (job < 0 || !engine_job(m->e, job, &info) || info.npods == 0)
			continue;
		if (info.nleaves / info.npods != g)
			return 3;
		tier = 1;
	}
	return tier;
}

/*
 * The node-level cells under c that Algorithm 1 may choose, into out:
 * g idle leaves, not bound (or inside a cell bound) to another VC. A
 * cell above nodes with fewer idle leaves, or bound to another VC, has
 * no such node below it (counts add up the tree; a VC's cells hold only
 * its own bindings), so the walk skips it whole: a rack at a time, not
 * a node at a time. Returns how many.
 */
static int
a1_collect(const struct emu *m, int c, const struct engine_req *r, int g,
    const long long *guests, struct a1_cand *out)
{
	const struct spec_cell *sc = &m->s->cells[c];
	int nl, used, opp, bad, vc, k, n = 0;

	engine_cell_use(m->e, c, &nl, &used, &opp, &bad);
	if (nl - used - opp - bad < g ||
	    ((vc = engine_cell_vc(m->e, c)) >= 0 && vc != r->vc))
		return 0;
	if (sc->level > m->s->chains[sc->chain].node_level) {
		for (k = 0; k < sc->nchild; k++)
			n += a1_collect(m, sc->first_child + k, r, g, guests, out + n);
		return n;
	}
	out->cell = c;
	out->tier = used + opp == 0 ? 2 : a1_tier(m, c, g);
	out->busy = used + opp + guests[sc->node];
	out->gpus = nl;
	return 1;
}

/*
 * Gandiva's Algorithm 1 (node choice), asked by the scheduler before the
 * engine places a guaranteed single-pod job of an over-subscribing policy:
 *  1. same affinity: nodes where every running job has pods of this job's
 *     GPU count and g GPUs are idle, least loaded first;
 *  2. unallocated nodes (no job at all), lowest first;
 *  3. relaxed affinity: any node with g idle GPUs, least loaded first;
 *  4. over-subscription on a same-affinity node: oversubscribe(), for an
 *     arrival that got no cells;
 *  5. else the job waits.
 * Load: GPUs in use on the node plus its time-sliced guests' GPUs, per
 * GPU; ties by cell index. The engine binds the chosen leaves in the job's
 * VC (engine_adopt) or refuses them (outside the VC's cells, over quota,
 * unsafe: HiveD's rules stand), and the next candidate is tried; when none
 * is accepted the engine places the job its own way (returns -1).
 * A node bound, or inside a cell bound, to another VC is no candidate:
 * the engine would refuse it (a VC's guaranteed jobs stay in its cells),
 * and computing tiers for the whole cluster at every start was most of
 * a Gandiva replay's time.
 */
static int
gandiva_place(void *arg, int job, const struct engine_req *r)
{
	struct emu *m = arg;
	struct a1_cand *cand;
	char why[256];
	int *leaves, pf[2], n = 0, i, k, g, id = -1;
	long long *guests;

	(void)job;
	if (!oversub(m) || r->nmembers != 1 || r->members[0].pods != 1 || r->pin >= 0 ||
	    r->priority < 0)
		return -1;
	g = r->members[0].gpus;
	guests = xcalloc((size_t)m->s->nnodes + 1, sizeof *guests);
	for (i = 0; i < m->sh.ngrp; i++)
		for (k = 0; k < m->sh.grp[i].nmb; k++)
			if (m->js[m->sh.grp[i].mb[k]].guest)
				guests[m->sh.grp[i].node] += m->sh.grp[i].gpus;
	for (i = 0, k = 0; i < m->s->nnodes; i++)
		k += m->s->nodes[i].ncells;
	cand = xcalloc((size_t)k + 1, sizeof *cand);
	for (i = 0; i < m->s->nchains; i++) {
		const struct spec_chain *ch = &m->s->chains[i];
		if (r->leaf_type >= 0 && ch->leaf_type != r->leaf_type)
			continue;
		for (k = 0; k < ch->level_count[ch->levels]; k++)
			n += a1_collect(m, ch->level_first[ch->levels] + k, r, g, guests,
			    cand + n);
	}
	leaves = xcalloc((size_t)g + 1, sizeof *leaves);
	pf[0] = 0;
	pf[1] = g;
	/* the first in a1_cmp order usually takes it: sort only when not */
	for (k = 0, i = 1; i < n; i++)
		if (a1_cmp(&cand[i], &cand[k]) < 0)
			k = i;
	if (n > 0 && idle_leaves(m, cand[k].cell, g, leaves))
		id = engine_adopt(m->e, r, m->s->cells[cand[k].cell].chain, pf, 1,
		    leaves, g, why, sizeof why);
	if (id < 0 && n > 1) {
		cand[k] = cand[--n];	/* tried */
		qsort(cand, (size_t)n, sizeof *cand, a1_cmp);
	} else
		n = 0;
	for (i = 0; i < n && id < 0; i++)
		if (idle_leaves(m, cand[i].cell, g, leaves))
			id = engine_adopt(m->e, r, m->s->cells[cand[i].cell].chain, pf, 1,
			    leaves, g, why, sizeof why);
	free(leaves);
	free(cand);
	free(guests);
	return id;
}

/* ---- the mechanism's hooks ---- */

static bool
share_init(struct emu *m)
{
	return oversub(m);
}

static void
share_free(struct emu *m)
{
	int i;

	for (i = 0; i < m->sh.ngrp; i++)
		free(m->sh.grp[i].mb);
	free(m->sh.grp);
	free(m->sh.arrived);
}

/* Arrivals of this tick: those that get no cells are time-sliced (tick). */
static void
share_arrive(struct emu *m, int job)
{
	XGROW(m->sh.arrived, m->sh.arrived_cap, (size_t)m->sh.narrived + 1);
	m->sh.arrived[m->sh.narrived++] = job;
}

static void
share_leave(struct emu *m, int job, enum emu_leave why)
{
	/* a failed job's group went with its node (share_node_bad) */
	if (why != EMU_LEAVE_FAIL)
		group_leave(m, job, true);
}

/* Sharing groups on the node go with it: guests fail with the hosts. */
static void
share_node_bad(struct emu *m, int node, int cell, int name, int *why)
{
	int g, job;

	for (g = 0; g < m->sh.ngrp; g++) {
		struct sgroup *sg = &m->sh.grp[g];
		if (sg->nmb == 0 || sg->node != node)
			continue;
		while (sg->nmb > 0) {
			job = sg->mb[sg->nmb - 1];
			sg->nmb--;
			m->js[job].grp = -1;
			m->js[job].factor = m->js[job].share = 1;
			if (m->js[job].guest) {
				m->js[job].guest = false;
				emu_fail(m, job, cell, name, why);
			}
			emu_mark(m, job);
		}
		sg->ver++;
	}
}

static void
share_event(struct emu *m, const struct ev *x)
{
	if (x->kind == EV_SLICE && x->arg >= 0 && x->arg < m->sh.ngrp &&
	    x->ver == m->sh.grp[x->arg].ver && m->sh.grp[x->arg].nmb > 0)
		group_slice(m, x->arg);
}

/* Arrivals that got no cells: Gandiva time-slices them. */
static bool
share_tick(struct emu *m)
{
	int i;

	for (i = 0; i < m->sh.narrived; i++)
		oversubscribe(m, m->sh.arrived[i]);
	m->sh.narrived = 0;
	return false;
}

/* Version 2 of the run blob: the groups (members are the jobs' own grp). */
static void
share_save(const struct emu *m, int section, struct strbuf *out)
{
	int i;

	if (section != 2)
		return;
	pack_i64(out, m->sh.rr_back);
	pack_i64(out, m->sh.rr_front);
	pack_i64(out, m->sh.packs);
	pack_i64(out, m->sh.unpacks);
	pack_i64(out, m->sh.guests);
	pack_i32(out, m->sh.ngrp);
	for (i = 0; i < m->sh.ngrp; i++) {
		const struct sgroup *g = &m->sh.grp[i];
		pack_i32(out, g->node);
		pack_i32(out, g->vc);
		pack_i32(out, g->gpus);
		pack_u8(out, (unsigned)g->mode);
		pack_u32(out, g->ver);
		pack_f64(out, g->eval_t);
		pack_f64(out, g->eval_work);
		pack_i32(out, g->nmb);
	}
}

/*
 * The sharing groups: the stored table, members from the jobs' own group
 * index (sorted by job id, as this file keeps them), checked against each
 * other: a guest holds no engine job, a host does, counts agree.
 */
static int
share_restore(struct emu *m, const struct emu_run_state *rs, char *why, size_t len)
{
	int i, gi;

	m->sh.rr_back = rs->rr_back;
	m->sh.rr_front = rs->rr_front;
	m->sh.packs = rs->packs;
	m->sh.unpacks = rs->unpacks;
	m->sh.guests = rs->guests;
	m->sh.ngrp = m->sh.grp_cap = 0;
	if (rs->ngrp > 0) {
		m->sh.grp = xcalloc((size_t)rs->ngrp, sizeof *m->sh.grp);
		m->sh.grp_cap = (size_t)rs->ngrp;
	}
	for (i = 0; i < rs->ngrp; i++) {
		if (rs->grp[i].nmb > 0 && (rs->grp[i].node >= m->s->nnodes ||
		    rs->grp[i].vc >= m->s->nvcs)) {
			bufprintf(why, len, "sharing group %d: node %d, vc %d", i,
			    rs->grp[i].node, rs->grp[i].vc);
			return -1;
		}
	}
	for (i = 0; i < rs->ngrp; i++) {
		m->sh.grp[i] = rs->grp[i];
		m->sh.grp[i].nmb = 0;
		m->sh.grp[i].mb = NULL;
		m->sh.grp[i].cap = 0;
	}
	m->sh.ngrp = rs->ngrp;
	for (i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		const struct ejob_state *x = &m->js[i];
		if ((x->guest || x->am ? j->engine_id != -1 :
		    job_holds_cells(j) && j->engine_id < 0) || (x->am && !job_holds_cells(j)) ||
		    (x->grp >= 0 && !job_holds_cells(j))) {
			bufprintf(why, len, "job '%s' (%s, engine job %d) cannot be %s",
			    j->name, job_state_name(j->state), j->engine_id,
			    x->guest ? "a guest" : "a host");
			return -1;
		}
		if ((gi = x->grp) < 0)
			continue;
		if (gi >= m->sh.ngrp || m->sh.grp[gi].vc != j->vc || m->sh.grp[gi].gpus != j->gpus) {
			bufprintf(why, len, "job '%s' is in sharing group %d of %d that "
			    "does not fit it", j->name, gi, m->sh.ngrp);
			return -1;
		}
		emu_group_insert(&m->sh.grp[gi], i);
	}
	for (i = 0; i < m->sh.ngrp; i++)
		if (m->sh.grp[i].nmb != rs->grp[i].nmb) {
			bufprintf(why, len, "sharing group %d has %d members, stored %d",
			    i, m->sh.grp[i].nmb, rs->grp[i].nmb);
			return -1;
		}
	return 0;
}

static void
share_report(const struct emu *m, struct emu_report *r)
{
	/* without slicing the guests ran packed: none was time-sliced */
	r->guests = m->par.no_slice ? 0 : m->sh.guests;
	r->packs = m->sh.packs;
	r->unpacks = m->sh.unpacks;
}

const struct emu_mech emu_share_mech = {
	.name = "time-slicing",
	.init = share_init,
	.free = share_free,
	.arrive = share_arrive,
	.start = group_join,
	.leave = share_leave,
	.node_bad = share_node_bad,
	.event = share_event,
	.tick = share_tick,
	.place = gandiva_place,
	.save = share_save,
	.restore = share_restore,
	.report = share_report,
};
