/*
 * emu-migrate.c — Gandiva's migration in the emulator (POLICY_OVERSUB,
 * par.migrate): running jobs holding cells move to other leaves of their
 * VC through engine_move (atomic; the engine checks VC cells, quota and
 * sharing safety, so a migration never leaves the job's VC).
 *
 *  - Locality, on departures: a multi-GPU job spread wider than it has to
 *    be (over nodes, or sockets) moves to a more compact place on a node
 *    a departure of this tick freed cells on.
 *  - Defragmentation, at every tick that crosses a multiple of
 *    par.defrag_every: the most-free non-idle node is emptied, its jobs
 *    moved to the fullest other non-idle nodes that fit them (best fit,
 *    never to a worse locality); all or nothing.
 *
 * Either moves a job only when its migration costs little against its
 * remaining time (cost x MG_GAIN <= remaining work / speed: the
 * emulator's knowledge stands in for Gandiva's profiling) and the job is
 * running alone on its cells (no sharing group, not grown, not
 * downgraded, not already stalled). A migrated job stalls its model's
 * migration cost (x --migrate-cost), counted in its migrations and
 * migration cost like a guest's, and journals `migrate` with its nodes.
 *
 * State: the nodes freed this tick (empty at every tick boundary) and
 * scratch; whether a tick defragments follows from the previous tick's
 * time (m->horizon), which the run blob keeps, so nothing new is saved.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "sim/emu-int.h"

#define MG_GAIN		20	/* remaining time >= 20 x the migration's cost */
#define MG_TRIES	4	/* defrag: nodes tried per pass, most free first */

static void
emu_mg_init(struct emu *m)
{
	m->mg.on = (m->p->ops->flags & POLICY_OVERSUB) != 0 && m->par.migrate;
	if (!m->mg.on)
		return;
	m->mg.flag = xcalloc((size_t)m->s->nnodes + 1, 1);
	m->mg.cnt = xcalloc((size_t)m->s->ncells + 1, sizeof *m->mg.cnt);
	m->mg.loc = xcalloc((size_t)m->njobs + 1, sizeof *m->mg.loc);
	m->mg.busy = xcalloc((size_t)m->s->nnodes + 1, 1);
	m->mg.other = xcalloc((size_t)m->s->nnodes + 1, 1);
	m->mg.free = xcalloc((size_t)m->s->nnodes + 1, sizeof *m->mg.free);
	memset(m->mg.loc, -1, (size_t)m->njobs * sizeof *m->mg.loc);
}

static void
emu_mg_free(struct emu *m)
{
	free(m->mg.multi);
	free(m->mg.loc);
	free(m->mg.busy);
	free(m->mg.other);
	free(m->mg.free);
	free(m->mg.nodes);
	free(m->mg.flag);
	free(m->mg.cnt);
}

/* Job is about to give its cells back: its nodes have free cells this tick. */
static void
emu_mg_note(struct emu *m, int job)
{
	struct engine_job_info in;
	int k, node;

	if (!m->mg.on || !job_holds_cells(&m->jobs[job]) ||
	    !engine_job(m->e, m->jobs[job].engine_id, &in))
		return;
	for (k = 0; k < in.nleaves; k++) {
		node = m->s->cells[in.leaves[k]].node;
		if (node < 0 || m->mg.flag[node])
			continue;
		m->mg.flag[node] = 1;
		XGROW(m->mg.nodes, m->mg.nodes_cap, (size_t)m->mg.nnodes + 1);
		m->mg.nodes[m->mg.nnodes++] = node;
	}
}

/* Add engine id eid to the locality candidates, kept sorted and unique. */
static void
multi_add(struct emu *m, int eid)
{
	int lo = 0, hi = m->mg.nmulti, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (m->mg.multi[mid] < eid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->mg.nmulti && m->mg.multi[lo] == eid)
		return;
	XGROW(m->mg.multi, m->mg.multi_cap, (size_t)m->mg.nmulti + 1);
	memmove(&m->mg.multi[lo + 1], &m->mg.multi[lo], (size_t)(m->mg.nmulti - lo) *
	    sizeof *m->mg.multi);
	m->mg.multi[lo] = eid;
	m->mg.nmulti++;
}

static void
emu_mg_moved(struct emu *m, int job)
{
	if (m->mg.on)
		m->mg.loc[job] = -1;
}

static void
emu_mg_started(struct emu *m, int job)
{
	emu_mg_moved(m, job);
	if (m->mg.on && m->mg.multi_ok && m->jobs[job].gpus >= 2 &&
	    m->jobs[job].engine_id >= 0)
		multi_add(m, m->jobs[job].engine_id);
}

/*
 * The locality candidates: every engine id a job of two GPUs or more
 * holds. A job of one GPU spans two only when grown, and a grown job
 * does not move (movable), so it is no candidate.
 */
static void
multi_refresh(struct emu *m)
{
	int lim = engine_job_limit(m->e), eid, job, n = 0, i;

	if (!m->mg.multi_ok) {
		m->mg.nmulti = 0;
		for (eid = 0; eid < lim; eid++)
			if ((job = sched_job_of(m->sch, eid)) >= 0 && m->jobs[job].gpus >= 2)
				multi_add(m, eid);
		m->mg.multi_ok = true;
	}
	for (i = 0; i < m->mg.nmulti; i++) {
		eid = m->mg.multi[i];
		if ((job = sched_job_of(m->sch, eid)) >= 0 && m->jobs[job].gpus >= 2)
			m->mg.multi[n++] = eid;
	}
	m->mg.nmulti = n;
}

/* A free leaf the job's VC may take (the engine has the last word). */
static bool
leaf_free(const struct emu *m, int leaf, int vc)
{
	int job, lvc, bad;

	engine_leaf(m->e, leaf, &job, &lvc, &bad);
	return job < 0 && bad == 0 && (lvc < 0 || lvc == vc);
}

/* Free leaves of vc under cell c, into m->mg.cnt for c and below. */
static int
count_free(struct emu *m, int c, int vc)
{
	const struct spec_cell *sc = &m->s->cells[c];
	int k, n = 0;

	if (sc->first_child < 0)
		n = leaf_free(m, c, vc);
	else
		for (k = 0; k < sc->nchild; k++)
			n += count_free(m, sc->first_child + k, vc);
	m->mg.cnt[c] = n;
	return n;
}

/* The first n free leaves under c (count_free done) into out. */
static int
take_free(const struct emu *m, int c, int n, int *out)
{
	const struct spec_cell *sc = &m->s->cells[c];
	int k, got = 0;

	if (n <= 0 || m->mg.cnt[c] == 0)
		return 0;
	if (sc->first_child < 0) {
		out[0] = c;
		return 1;
	}
	for (k = 0; k < sc->nchild && got < n; k++)
		got += take_free(m, sc->first_child + k, n - got, out + got);
	return got;
}

/*
 * The most compact g free leaves of vc on node (in chain): the deepest
 * cell with enough, the fullest child that fits at each step. Returns
 * the node's free leaves of vc (0: none fit) and fills out.
 */
static int
fit(struct emu *m, int node, int chain, int vc, int g, int *out)
{
	const struct spec_node *sn = &m->s->nodes[node];
	int k, c = -1, best, ch;

	for (k = 0; k < sn->ncells && c < 0; k++)
		if (m->s->cells[sn->cells[k]].chain == chain)
			c = sn->cells[k];
	if (c < 0 || count_free(m, c, vc) < g)
		return 0;
	best = m->mg.cnt[c];
	for (;;) {
		const struct spec_cell *sc = &m->s->cells[c];
		int pick = -1;
		for (k = 0; k < sc->nchild; k++) {
			ch = sc->first_child + k;
			if (m->mg.cnt[ch] >= g && (pick < 0 || m->mg.cnt[ch] < m->mg.cnt[pick]))
				pick = ch;
		}
		if (pick < 0 || sc->first_child < 0)
			break;
		c = pick;
	}
	take_free(m, c, g, out);
	return best;
}

/*
 * The best locality g GPUs can have in leaf's chain: that of the first g
 * leaves of the smallest cell above leaf with g (leaves under a cell are
 * contiguous, breadth-first numbering). LOC_RACK or worse: no one node
 * holds them, and locality() looks no further than one node.
 */
static int
best_loc(const struct emu *m, int leaf, int g, int *tmp)
{
	const struct spec_cell *cells = m->s->cells;
	int c = leaf, lo, hi, k;

	for (;;) {
		for (lo = c; cells[lo].first_child >= 0; lo = cells[lo].first_child)
			;
		for (hi = c; cells[hi].first_child >= 0;
		    hi = cells[hi].first_child + cells[hi].nchild - 1)
			;
		if (hi - lo + 1 >= g || cells[c].parent < 0)
			break;
		c = cells[c].parent;
	}
	if (hi - lo + 1 < g)
		return LOC_CLUSTER;
	for (k = 0; k < g; k++)
		tmp[k] = lo + k;
	return (int)emu_locality(m->s, tmp, g);
}

/* May job move now, and is it worth its cost? */
static bool
movable(const struct emu *m, int job, const struct engine_job_info *in)
{
	const struct job *j = &m->jobs[job];
	const struct ejob_state *x = &m->js[job];
	double rem;

	if (j->state != JOB_RUNNING || x->guest || j->opportunistic || x->grp >= 0 ||
	    x->extra > 0 || in->priority < 0 || x->stall_until > m->now ||
	    j->duration <= 0 || !(x->speed > 0))
		return false;
	rem = (j->duration - j->work_done) / x->speed;
	return emu_model_cost(m, j, true) * MG_GAIN <= rem;
}

/* Move job to leaves (its pods as they are); engine refusals change nothing. */
static bool
move_to(struct emu *m, int job, const int *pod_first, int npods, const int *leaves,
    int nleaves)
{
	char why[256];

	emu_account(m, job);	/* its progress so far: changes its state */
	emu_mark(m, job);
	emu_mg_moved(m, job);
	return engine_move(m->e, m->jobs[job].engine_id, pod_first, npods, leaves,
	    nleaves, why, sizeof why) == 0;
}

/* The move done: the stall, the counts, the journal, the speed. */
static void
charge(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double c = emu_model_cost(m, j, true);

	x->stall_until = fmax(x->stall_until, m->now) + c;
	x->migcost += c;
	x->migrations++;
	x->alone = emu_job_speed(m, j);
	emu_log(m, REC_MIGRATE, job, -1, emu_detail_nodes(m, j));
	emu_set_speed(m, job, x->factor, x->share);
	/* the cells it left may let a waiting job in */
	if (engine_mode(m->e) == ENGINE_QUOTA)
		sched_touch_all(m->sch);
	else
		sched_set_domain_dirty(m->sch, j->vc, true);
}

/* A copy of a job's engine placement (engine_job's arrays move with it). */
struct pl {
	int	 job, npods, nleaves;
	int	*pf, *lv;
	bool	 moved;
};

static void
pl_take(struct pl *p, int job, const struct engine_job_info *in)
{
	p->job = job;
	p->moved = false;
	p->npods = in->npods;
	p->nleaves = in->nleaves;
	p->pf = xcalloc((size_t)in->npods + 1, sizeof *p->pf);
	p->lv = xcalloc((size_t)in->nleaves + 1, sizeof *p->lv);
	memcpy(p->pf, in->pod_first, (size_t)(in->npods + 1) * sizeof *p->pf);
	memcpy(p->lv, in->leaves, (size_t)in->nleaves * sizeof *p->lv);
}

static void
pl_release(struct pl *p)
{
	free(p->pf);
	free(p->lv);
}

/* Locality: spread jobs onto nodes freed this tick. */
static bool
locality(struct emu *m)
{
	struct engine_job_info in;
	struct pl p;
	int eid, job, k, cur, loc, best, bestloc, i;
	int *out = NULL, *keep = NULL;
	size_t cap = 0;
	bool any = false;

	/* in engine id order, as a walk of every engine job would go (moves
	   keep a job's id, so the list holds still during the walk) */
	multi_refresh(m);
	for (i = 0; i < m->mg.nmulti; i++) {
		eid = m->mg.multi[i];
		if (!engine_job(m->e, eid, &in) || in.nleaves < 2 ||
		    (job = sched_job_of(m->sch, eid)) < 0 || !movable(m, job, &in))
			continue;
		if ((size_t)in.nleaves > cap) {
			cap = (size_t)in.nleaves;
			out = xrealloc(out, cap * sizeof *out);
			keep = xrealloc(keep, cap * sizeof *keep);
		}
		/* only jobs one node could hold more compactly (both
		   localities kept until its cells change) */
		if (m->mg.loc[job] < 0)
			m->mg.loc[job] = (int)emu_locality(m->s, in.leaves, in.nleaves) * 16 +
			    best_loc(m, in.leaves[0], in.nleaves, out);
		cur = m->mg.loc[job] / 16;
		loc = m->mg.loc[job] % 16;
		if (cur <= loc || loc >= LOC_RACK)
			continue;
		best = -1;
		bestloc = cur;
		for (k = 0; k < m->mg.nnodes; k++) {
			if (fit(m, m->mg.nodes[k], in.chain, in.vc, in.nleaves, out) == 0)
				continue;
			loc = (int)emu_locality(m->s, out, in.nleaves);
			if (loc < bestloc) {
				bestloc = loc;
				best = m->mg.nodes[k];
				memcpy(keep, out, (size_t)in.nleaves * sizeof *out);
			}
		}
		if (best < 0)
			continue;
		pl_take(&p, job, &in);
		if (move_to(m, job, p.pf, p.npods, keep, p.nleaves)) {
			charge(m, job);
			any = true;
		}
		pl_release(&p);
	}
	free(out);
	free(keep);
	return any;
}

/* Per node: leaves, guaranteed-used, opportunistic, bad (summed over chains). */
static void
node_use(const struct emu *m, int node, int *leaves, int *used, int *other)
{
	const struct spec_node *sn = &m->s->nodes[node];
	int k, l, u, opp, bad;

	*leaves = *used = *other = 0;
	for (k = 0; k < sn->ncells; k++) {
		engine_cell_use(m->e, sn->cells[k], &l, &u, &opp, &bad);
		*leaves += l;
		*used += u;
		*other += opp + bad;
	}
}

/*
 * The VC node's cell in chain is bound to, or inside a cell bound to; -1
 * if none (or no such cell). Its leaves are that VC's: no other VC's job
 * can move there (leaf_free), so a pass asks this before fit(). Cached
 * in nvc for the pass (-2: not asked yet; moves bind no other VC).
 */
static int
node_vc(const struct emu *m, int node, int chain, int *nvc)
{
	const struct spec_node *sn = &m->s->nodes[node];
	int k;

	if (nvc[node] != -2)
		return nvc[node];
	nvc[node] = -1;
	for (k = 0; k < sn->ncells; k++)
		if (m->s->cells[sn->cells[k]].chain == chain)
			nvc[node] = engine_cell_vc(m->e, sn->cells[k]);
	return nvc[node];
}

/*
 * Empty node: move every job on it, or none. busy: nodes with a
 * guaranteed job; freec: their free leaves at the pass's start, an upper
 * bound of what fit() finds (moves only take leaves), to skip nodes fast;
 * nvc: node_vc's cache.
 */
static bool
empty_node(struct emu *m, int node, const unsigned char *busy, const int *freec, int *nvc)
{
	const struct spec_node *sn = &m->s->nodes[node];
	struct engine_job_info in;
	struct pl *pl = NULL;
	int npl = 0, k, c, i, t, eid, job, n, bestn, lv;
	size_t cap = 0;
	int *out = NULL, *keep = NULL;
	bool ok = true;

	/* the jobs on it: each whole on this node and free to move */
	for (k = 0; k < sn->ncells && ok; k++) {
		int stack[64], top = 0;
		stack[top++] = sn->cells[k];
		while (top > 0 && ok) {
			c = stack[--top];
			if (m->s->cells[c].first_child >= 0) {
				for (i = 0; i < m->s->cells[c].nchild && top < 64; i++)
					stack[top++] = m->s->cells[c].first_child + i;
				continue;
			}
			if ((eid = engine_leaf_job(m->e, c)) < 0)
				continue;
			job = sched_job_of(m->sch, eid);
			for (i = 0; i < npl && pl[i].job != job; i++)
				;
			if (i < npl)
				continue;
			if (job < 0 || !engine_job(m->e, eid, &in) || !movable(m, job, &in)) {
				ok = false;
				break;
			}
			for (i = 0; i < in.nleaves; i++)
				if (m->s->cells[in.leaves[i]].node != node)
					ok = false;
			if (!ok)
				break;
			XGROW(pl, cap, (size_t)npl + 1);
			pl_take(&pl[npl++], job, &in);
		}
	}
	/* each to the fullest other busy node that fits it, compact */
	for (i = 0; i < npl && ok; i++) {
		struct pl *p = &pl[i];
		int cur = (int)emu_locality(m->s, p->lv, p->nleaves);
		out = xrealloc(out, (size_t)p->nleaves * sizeof *out);
		keep = xrealloc(keep, (size_t)p->nleaves * sizeof *keep);
		engine_job(m->e, m->jobs[p->job].engine_id, &in);
		bestn = -1;
		for (t = 0, lv = INT32_MAX; t < m->s->nnodes; t++) {
			if (t == node || !busy[t] || freec[t] < p->nleaves)
				continue;
			if ((c = node_vc(m, t, in.chain, nvc)) >= 0 && c != in.vc)
				continue;
			if ((n = fit(m, t, in.chain, in.vc, p->nleaves, out)) == 0 || n >= lv ||
			    (int)emu_locality(m->s, out, p->nleaves) > cur)
				continue;
			lv = n;
			bestn = t;
			memcpy(keep, out, (size_t)p->nleaves * sizeof *out);
		}
		if (bestn < 0 || !move_to(m, p->job, p->pf, p->npods, keep, p->nleaves))
			ok = false;
		else
			p->moved = true;
	}
	for (i = npl - 1; i >= 0; i--) {
		struct pl *p = &pl[i];
		if (!p->moved)
			continue;
		/* all or nothing: back where it was (free again); if the engine
		   refused that, the job stays moved and pays for it */
		if (!ok && move_to(m, p->job, p->pf, p->npods, p->lv, p->nleaves))
			continue;
		charge(m, p->job);
	}
	for (i = 0; i < npl; i++)
		pl_release(&pl[i]);
	free(pl);
	free(out);
	free(keep);
	return ok && npl > 0;
}

/* Defragmentation: the most-free non-idle nodes, until one empties. */
static bool
defrag(struct emu *m)
{
	double every = m->par.defrag_every;
	unsigned char *busy = m->mg.busy, *grouped;
	int *order, n = 0, i, k, leaves, used, other, tries;
	int *freec = m->mg.free, *nvc;
	bool done = false;

	if (!(every > 0) || !(floor(m->now / every) > floor(m->horizon / every)))
		return false;
	/* the nodes' counts: read again only when the engine's changed (a
	   pass a minute, most of them on an unchanged cluster) */
	if (!m->mg.use_ok || m->mg.serial != engine_use_serial(m->e)) {
		for (i = 0; i < m->s->nnodes; i++) {
			node_use(m, i, &leaves, &used, &other);
			busy[i] = used > 0;
			freec[i] = leaves - used - other;
			m->mg.other[i] = other > 0;
		}
		m->mg.serial = engine_use_serial(m->e);
		m->mg.use_ok = true;
	}
	grouped = xcalloc((size_t)m->s->nnodes + 1, 1);
	order = xcalloc((size_t)m->s->nnodes + 1, sizeof *order);
	nvc = xcalloc((size_t)m->s->nnodes + 1, sizeof *nvc);
	for (i = 0; i < m->s->nnodes; i++)
		nvc[i] = -2;
	for (i = 0; i < m->sh.ngrp; i++)
		if (m->sh.grp[i].nmb > 0 && m->sh.grp[i].node >= 0)
			grouped[m->sh.grp[i].node] = 1;
	for (i = 0; i < m->s->nnodes; i++) {
		if (busy[i] && !m->mg.other[i] && freec[i] > 0 && !grouped[i]) {
			/* by free leaves, most first, then by index */
			for (k = n; k > 0 && freec[order[k - 1]] < freec[i]; k--)
				order[k] = order[k - 1];
			order[k] = i;
			n++;
		}
	}
	for (tries = 0; tries < n && tries < MG_TRIES && !done; tries++)
		done = empty_node(m, order[tries], busy, freec, nvc);
	free(nvc);
	free(grouped);
	free(order);
	return done;
}

/*
 * In a tick, after the scheduler's pass: locality moves onto the nodes
 * departures freed, then a defragmentation pass when one is due.
 * Returns true when a job moved (the caller passes again).
 */
static bool
emu_mg_tick(struct emu *m)
{
	bool any = false;
	int k;

	if (!m->mg.on)
		return false;
	if (m->mg.nnodes > 0 && !m->par.ideal)
		any |= locality(m);
	for (k = 0; k < m->mg.nnodes; k++)
		m->mg.flag[m->mg.nodes[k]] = 0;
	m->mg.nnodes = 0;
	any |= defrag(m);
	return any;
}

/* ---- the mechanism's hooks ---- */

static bool
migrate_init(struct emu *m)
{
	emu_mg_init(m);
	return m->mg.on;
}

/* Nothing saved: what a tick does follows from the last tick's time. */
const struct emu_mech emu_migrate_mech = {
	.name = "migration",
	.init = migrate_init,
	.free = emu_mg_free,
	.cells = emu_mg_started,
	.moved = emu_mg_moved,
	.release = emu_mg_note,
	.tick = emu_mg_tick,
};
