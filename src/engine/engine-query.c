/*
 * engine-query.c — what the engine answers without changing (engine.h's
 * queries): a job's placement, a cell's state and owner, a leaf's job, a
 * VC's usage, the cluster's counts, free and owed cells, and the names of
 * the engine's enums.
 */
#include <string.h>

#include "engine/engine-int.h"

int
engine_job_limit(const struct engine *e)
{
	return e->njobs;
}

bool
engine_job(const struct engine *e, int id, struct engine_job_info *info)
{
	const struct ejob *j;

	if (id < 0 || id >= e->njobs || !e->jobs[id].live)
		return false;
	j = &e->jobs[id];
	info->name = j->name;
	info->vc = j->vc;
	info->priority = j->prio;
	info->orig_priority = j->orig_prio;
	info->lazy = j->lazy;
	info->downgraded = j->downgraded;
	info->borrowed = j->borrowed;
	info->chain = j->chain;
	info->npods = j->npods;
	info->pod_first = j->pod_first;
	info->leaves = j->leaves;
	info->nleaves = j->nleaves;
	return true;
}

static bool
inside_bound(const struct engine *e, int c, int *vcp)
{
	for (c = e->s->cells[c].parent; c >= 0; c = e->s->cells[c].parent)
		if (e->pcs[c].vbind >= 0) {
			*vcp = vv_of(e, e->pcs[c].vbind)->vc;
			return true;
		}
	return false;
}

void
engine_cell(const struct engine *e, int c, struct engine_cell_info *in)
{
	int vc = -1, v, a;

	memset(in, 0, sizeof *in);
	in->vc = -1;
	in->job = -1;
	v = e->pcs[c].vbind;
	if (v >= 0) {
		in->state = ENGINE_CELL_BOUND;
		in->vc = vv_of(e, v)->vc;
		/* doomed if this cell or the preassigned cell above it is */
		for (a = v; a >= 0; a = v_parent(e, a))
			if (e->vcs[a].doomed)
				in->doomed = true;
	} else if (inside_bound(e, c, &vc)) {
		in->state = ENGINE_CELL_RESERVED;
		in->vc = vc;
	} else if (e->pcs[c].split)
		in->state = ENGINE_CELL_SPLIT;
	else
		in->state = ENGINE_CELL_FREE;
	for (a = c; a >= 0; a = e->s->cells[a].parent)
		if (e->s->cells[a].pin >= 0 && e->s->pins[e->s->cells[a].pin].vc >= 0)
			in->pinned = true;
	in->leaves = (int)spec_units(e->s, p_chain(e, c), p_level(e, c), 1);
	in->used = e->pcs[c].used;
	in->opp = e->pcs[c].opp;
	in->bad = e->pcs[c].bad;
	if (e->s->cells[c].nchild == 0 && e->pcs[c].job >= 0) {
		in->job = e->pcs[c].job;
		in->priority = e->jobs[in->job].prio;
	}
}

void
engine_leaf(const struct engine *e, int c, int *job, int *vc, int *bad)
{
	int v = e->pcs[c].vbind;

	*vc = -1;
	if (v >= 0)
		*vc = vv_of(e, v)->vc;
	else
		(void)inside_bound(e, c, vc);
	*job = e->s->cells[c].nchild == 0 ? e->pcs[c].job : -1;
	*bad = e->pcs[c].bad;
}

unsigned long long
engine_use_serial(const struct engine *e)
{
	return e->use_serial;
}

int
engine_cell_vc(const struct engine *e, int c)
{
	int vc = -1;

	if (e->pcs[c].vbind >= 0)
		return vv_of(e, e->pcs[c].vbind)->vc;
	(void)inside_bound(e, c, &vc);
	return vc;
}

int
engine_leaf_job(const struct engine *e, int leaf)
{
	return e->s->cells[leaf].nchild == 0 ? e->pcs[leaf].job : -1;
}

void
engine_cell_use(const struct engine *e, int c, int *leaves, int *used, int *opp, int *bad)
{
	*leaves = e->pc[p_chain(e, c)].units[p_level(e, c)];
	*used = e->pcs[c].used;
	*opp = e->pcs[c].opp;
	*bad = e->pcs[c].bad;
}

void
engine_vc_usage(const struct engine *e, int vc, struct engine_vc_usage *u)
{
	int i, l;

	memset(u, 0, sizeof *u);
	if (vc < 0 || vc >= e->s->nvcs)
		return;
	/* counters kept by every mutation (invariant 9): no walk of cells or jobs */
	u->gpus = e->vc_quota[vc];
	for (l = 1; l <= SPEC_MAX_LEVELS; l++) {
		u->assigned[l] = e->vc_assigned[vc * L1 + l];
		u->bound[l] = e->vc_bound[vc * L1 + l];
	}
	u->doomed = e->vc_doomed[vc];
	if (e->mode != ENGINE_QUOTA)
		for (i = e->vc_views[vc]; i < e->vc_views[vc + 1]; i++)
			u->bad += e->views[i].nbad;
	u->jobs = e->vc_jobs[vc];
	u->used = e->vc_used[vc];
	u->opp_jobs = e->vc_opp_jobs[vc];
	u->opp = e->vc_opp[vc];
	u->borrowed = e->vc_borrowed[vc];
	u->free = u->gpus - u->used - u->bad;
	if (u->free < 0)
		u->free = 0;
}

void
engine_stats(const struct engine *e, struct engine_stats *st)
{
	*st = e->st;
}

long long
engine_free_cells(const struct engine *e, int chain, int level)
{
	if (chain < 0 || chain >= e->s->nchains || level < 1 || level > e->pc[chain].top)
		return 0;
	return e->pc[chain].fl_clean[level].count + e->pc[chain].fl_dirty[level].count;
}

long long
engine_owed_cells(const struct engine *e, int chain, int level)
{
	if (chain < 0 || chain >= e->s->nchains || level < 1 || level > e->pc[chain].top)
		return 0;
	return e->pc[chain].owed[level];
}

static const char *const fail_names[] = {
	[ENGINE_OK] = "ok", [ENGINE_EBADREQ] = "bad-request", [ENGINE_ENOTYPE] = "no-such-type",
	[ENGINE_ETOOBIG] = "too-big", [ENGINE_EVCFULL] = "vc-full",
	[ENGINE_EBADONLY] = "bad-nodes-only", [ENGINE_EPINBUSY] = "pinned-cell-busy",
	[ENGINE_EPREEMPT] = "needs-preemption", [ENGINE_ECLUSTERFULL] = "cluster-full",
	[ENGINE_EQUOTA] = "over-quota",
};

const char *
engine_fail_name(enum engine_fail f)
{
	return (unsigned)f < sizeof fail_names / sizeof fail_names[0] ? fail_names[f] : "?";
}

static const char *const state_names[] = {
	[ENGINE_CELL_FREE] = "free", [ENGINE_CELL_SPLIT] = "split",
	[ENGINE_CELL_BOUND] = "bound", [ENGINE_CELL_RESERVED] = "reserved",
};

const char *
engine_cell_state_name(enum engine_cell_state s)
{
	return (unsigned)s < 4 ? state_names[s] : "?";
}
