/*
 * engine.c — placing and committing requests, releasing jobs and the dry
 * run. Building the engine is engine-create.c's, queries engine-query.c's,
 * bad hardware engine-health.c's, engine_check() engine-check.c's.
 *
 * Placement of a guaranteed request (hived, private):
 *   1. expand the gang into pods, largest first;
 *   2. in the VC's views (its pinned cell's view if the request names one,
 *      else one per chain of the right leaf type, in spec order) place the
 *      pods on free virtual leaves (view.h's rules);
 *   3. failing that, on leaves that are free or used by lower-priority jobs
 *      of the same VC: their jobs are the victims;
 *   4. commit: victims are preempted, or downgraded to opportunistic when
 *      they allow it (lazy preemption); the chosen virtual leaves are bound
 *      (buddy allocation for unbound preassigned cells) and opportunistic
 *      jobs found on the bound physical leaves are preempted.
 * Opportunistic requests (hived, quota) go to idle physical leaves, first on
 * nodes no VC holds, then anywhere. Quota mode places guaranteed requests on
 * idle physical leaves cluster-wide within the VC's GPU quota; with
 * borrowing (engine_set_borrow) a request over the quota takes idle leaves
 * only (no victims) and is counted as borrowed until it is released.
 *
 * A dry run (engine_place) commits and then rolls back: the new job is
 * released and its victims restored at their exact cells. Every index is a
 * function of the logical state (bitsets, no history), so the engine ends
 * exactly as it started.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/strmap.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "engine/engine-int.h"

#define MAX_PODS ENGINE_MAX_PODS

/* ---- names ---- */

int
engine_job_find(const struct engine *e, const char *name)
{
	return strmap_get(&e->names, name);
}

/*
 * The name map borrows each live job's own name (no copy per job: allocs
 * and dry runs are the hot path); when the job array moves, its keys are
 * pointed at the names' new home (strmap_rekey: no rehash).
 */
static const char *
name_of(void *arg, int id)
{
	const struct engine *e = arg;

	return e->jobs[id].name;
}

/* ---- job slots ---- */

void
engine_jobs_reserve(struct engine *e, int n)
{
	int old = e->njobs, i;
	struct bitset nb;

	if (n <= old)
		return;
	n = n < 64 ? 64 : n;
	if (n < old * 2)
		n = old * 2;
	e->jobs = xreallocarray(e->jobs, (size_t)n, sizeof *e->jobs);
	memset(e->jobs + old, 0, (size_t)(n - old) * sizeof *e->jobs);
	bitset_init(&nb, n);
	for (i = 0; i < n; i++)
		if (i >= old || bitset_test(&e->job_free, i))
			bitset_set(&nb, i);
	if (old)
		bitset_release(&e->job_free);
	e->job_free = nb;
	e->njobs = n;
	strmap_rekey(&e->names, name_of, e);	/* the names may have moved */
}

/* Take a job slot (the lowest free one, or `want` when >= 0). */
static int
job_take(struct engine *e, const char *name, int want)
{
	int id;

	if (want >= 0)
		engine_jobs_reserve(e, want + 1);
	else if (e->job_free.count == 0)
		engine_jobs_reserve(e, e->njobs + 1);
	id = want >= 0 ? want : bitset_next(&e->job_free, 0);
	if (!bitset_test(&e->job_free, id))
		fatal("job slot %d is taken", id);
	bitset_clear(&e->job_free, id);
	memset(&e->jobs[id], 0, sizeof e->jobs[id]);
	e->jobs[id].live = true;
	bufprintf(e->jobs[id].name, sizeof e->jobs[id].name, "%s", name);
	e->jobs[id].pin = -1;
	strmap_put(&e->names, e->jobs[id].name, id);
	return id;
}

int
job_new(struct engine *e, const char *name)
{
	return job_take(e, name, -1);
}

void
job_drop(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];

	strmap_del(&e->names, j->name);
	free(j->pod_first);
	free(j->leaves);
	free(j->vleaves);
	memset(j, 0, sizeof *j);
	bitset_set(&e->job_free, id);
}

/* ---- plans ---- */

void
engine_plan_init(struct engine_plan *p)
{
	memset(p, 0, sizeof *p);
	p->job = -1;
	p->chain = -1;
}

void
engine_plan_release(struct engine_plan *p)
{
	free(p->pod_first);
	free(p->leaves);
	free(p->victims);
	engine_plan_init(p);
}

static void
plan_reset(struct engine_plan *p)
{
	int *pf = p->pod_first, *lv = p->leaves;
	struct engine_victim *vi = p->victims;
	size_t lc = p->leaves_cap, vcap = p->victims_cap;

	engine_plan_init(p);
	p->pod_first = pf;
	p->leaves = lv;
	p->victims = vi;
	p->leaves_cap = lc;
	p->victims_cap = vcap;
}

static int
plan_fail(struct engine_plan *p, enum engine_fail f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
plan_fail(struct engine_plan *p, enum engine_fail f, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	bufprintf(p->why, sizeof p->why, "%s", sb.buf);
	strbuf_release(&sb);
	p->fail = f;
	p->nleaves = p->npods = 0;
	p->nvictims = 0;
	return -1;
}

static void
plan_victim(struct engine *e, struct engine_plan *p, int job, enum engine_victim_kind k)
{
	int i;

	for (i = 0; i < p->nvictims; i++)
		if (p->victims[i].job == job) {
			p->victims[i].kind = k;
			return;
		}
	XGROW(p->victims, p->victims_cap, (size_t)p->nvictims + 1);
	p->victims[p->nvictims].job = job;
	bufprintf(p->victims[p->nvictims].name, sizeof p->victims[0].name, "%s",
	    e->jobs[job].name);
	p->victims[p->nvictims].kind = k;
	p->nvictims++;
}

/* ---- snapshots for rollback (struct snap: engine-int.h) ---- */

struct txn {
	struct snap	*v;
	int		 n;
	size_t		 cap;
};

static void
txn_save(struct engine *e, struct txn *t, int id)
{
	struct ejob *j = &e->jobs[id];
	struct snap *sn;
	int i;

	for (i = 0; i < t->n; i++)
		if (t->v[i].id == id)
			return;
	XGROW(t->v, t->cap, (size_t)t->n + 1);
	sn = &t->v[t->n++];
	sn->id = id;
	sn->j = *j;
	sn->j.pod_first = xmalloc((size_t)(j->npods + 1) * sizeof(int));
	memcpy(sn->j.pod_first, j->pod_first, (size_t)(j->npods + 1) * sizeof(int));
	sn->j.leaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
	memcpy(sn->j.leaves, j->leaves, (size_t)j->nleaves * sizeof(int));
	if (j->vleaves) {
		sn->j.vleaves = xmalloc((size_t)j->nleaves * sizeof(int) + 1);
		memcpy(sn->j.vleaves, j->vleaves, (size_t)j->nleaves * sizeof(int));
	}
}

static void
txn_free(struct txn *t)
{
	int i;

	for (i = 0; i < t->n; i++) {
		free(t->v[i].j.pod_first);
		free(t->v[i].j.leaves);
		free(t->v[i].j.vleaves);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* ---- release ---- */


/* Count a running job in its VC's priority histogram (d = +1 / -1). */
static void
prio_count(struct engine *e, const struct ejob *j, int d)
{
	e->vc_prio[j->vc * ENGINE_NPRIO + j->prio + 1] += d;
	if (j->prio < 0) {
		e->st.opp_jobs += d;
		e->vc_opp_jobs[j->vc] += d;
		e->vc_opp[j->vc] += (long long)d * j->nleaves;
	} else {
		e->st.jobs += d;
		e->vc_jobs[j->vc] += d;
		e->vc_used[j->vc] += (long long)d * j->nleaves;
	}
}

/* Does the VC run any job below this priority (a possible victim)? */
static bool
vc_has_lower(const struct engine *e, int vc, int prio)
{
	const int *h = e->vc_prio + vc * ENGINE_NPRIO;
	int i;

	for (i = 0; i <= prio; i++)
		if (h[i])
			return true;
	return false;
}

void
job_release(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];
	int i, chain = j->chain;

	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], -1, false);
	if (j->vleaves) {
		for (i = 0; i < j->nleaves; i++)
			vleaf_set_job(e, j->vleaves[i], -1);
		for (i = 0; i < j->nleaves; i++)
			vleaf_prune(e, j->vleaves[i]);
	}
	quota_count(e, j, -1);
	prio_count(e, j, -1);
	job_drop(e, id);
	if (!e->no_rebalance && e->mode == ENGINE_HIVED && chain >= 0 &&
	    e->pc[chain].nbad > 0)
		doom_rebalance(e, chain);
}

/*
 * Re-create a job exactly where a snapshot says it was. The caller has made
 * sure it fits (rollback: it was there; engine_restore_job: validated).
 */
void
job_restore(struct engine *e, const struct snap *sn)
{
	const struct ejob *s = &sn->j;
	struct ejob *j;
	int id = job_take(e, s->name, sn->id), i;
	bool opp = s->prio < 0;

	j = &e->jobs[id];
	*j = *s;
	j->live = true;
	j->pod_first = xmalloc((size_t)(s->npods + 1) * sizeof(int));
	memcpy(j->pod_first, s->pod_first, (size_t)(s->npods + 1) * sizeof(int));
	j->leaves = xmalloc((size_t)s->nleaves * sizeof(int) + 1);
	memcpy(j->leaves, s->leaves, (size_t)s->nleaves * sizeof(int));
	j->vleaves = NULL;
	if (s->vleaves) {
		j->vleaves = xmalloc((size_t)s->nleaves * sizeof(int) + 1);
		memcpy(j->vleaves, s->vleaves, (size_t)s->nleaves * sizeof(int));
		for (i = 0; i < s->nleaves; i++)
			vleaf_want(e, s->vleaves[i], true);
		for (i = 0; i < s->nleaves; i++)
			bind_exact(e, s->vleaves[i], s->leaves[i]);
		for (i = 0; i < s->nleaves; i++) {
			vleaf_set_job(e, s->vleaves[i], id);
			vleaf_want(e, s->vleaves[i], false);
		}
	}
	for (i = 0; i < s->nleaves; i++) {
		if (e->pcs[s->leaves[i]].job >= 0)
			fatal("job_restore: leaf %d is in use", s->leaves[i]);
		phys_leaf_assign(e, s->leaves[i], id, opp);
	}
	quota_count(e, j, +1);
	prio_count(e, j, +1);
}

int
engine_release(struct engine *e, int job)
{
	if (job < 0 || job >= e->njobs || !e->jobs[job].live)
		return -1;
	job_release(e, job);
	engine_debug_check(e, "release");
	return 0;
}

int
engine_job_set_priority(struct engine *e, int job, int prio)
{
	struct ejob *j;

	if (job < 0 || job >= e->njobs || !e->jobs[job].live ||
	    prio < 0 || prio > ENGINE_PRIO_MAX || e->jobs[job].prio < 0)
		return -1;
	j = &e->jobs[job];
	prio_count(e, j, -1);
	j->prio = j->orig_prio = prio;
	prio_count(e, j, +1);
	engine_debug_check(e, "set priority");
	return 0;
}

/* Lazy preemption: the job gives up its virtual cells and runs on. */
static void
job_downgrade(struct engine *e, int id)
{
	struct ejob *j = &e->jobs[id];
	int i, *vl = j->vleaves;

	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], -1, false);
	for (i = 0; i < j->nleaves; i++)
		vleaf_set_job(e, vl[i], -1);
	prio_count(e, j, -1);
	j->prio = ENGINE_PRIO_OPPORTUNISTIC;
	j->downgraded = true;
	j->vleaves = NULL;
	prio_count(e, j, +1);
	for (i = 0; i < j->nleaves; i++)
		phys_leaf_assign(e, j->leaves[i], id, true);
	for (i = 0; i < j->nleaves; i++)
		vleaf_prune(e, vl[i]);
	free(vl);
}

/* ---- placement ---- */

static int
cmp_desc(const void *a, const void *b)
{
	return *(const int *)b - *(const int *)a;
}

/* Expand members into pod sizes, largest first; -1 on a malformed gang. */
static int
expand(const struct engine_req *r, int *sizes, int *total)
{
	int m, k, n = 0;

	*total = 0;
	if (r->nmembers < 1 || r->nmembers > ENGINE_MAX_MEMBERS)
		return -1;
	for (m = 0; m < r->nmembers; m++) {
		if (r->members[m].pods < 1 || r->members[m].gpus < 1 ||
		    r->members[m].pods > MAX_PODS - n)
			return -1;
		for (k = 0; k < r->members[m].pods; k++) {
			sizes[n++] = r->members[m].gpus;
			*total += r->members[m].gpus;
		}
	}
	qsort(sizes, (size_t)n, sizeof *sizes, cmp_desc);
	return n;
}

/* Place pods in view v; leaves (view-local) go to out. All or nothing. */
static int
view_place(struct view *v, const int *sizes, int npods, int *out)
{
	int i, n = 0, k;

	for (i = 0; i < npods; i++) {
		if (view_take_pod(v, sizes[i], out + n) < 0) {
			for (k = 0; k < n; k++)
				view_leaf_set(v, out[k], true);
			return -1;
		}
		n += sizes[i];
	}
	return 0;
}

enum tier { T_FREE, T_LOWER, T_ANY, T_IGNBAD };

/* Place on a scratch copy of a view whose leaves are available per tier. */
static int
scratch_place(struct engine *e, const struct view *shape, const int *sizes, int npods,
    int *out, unsigned char *(*avail)(struct engine *, const struct view *, void *),
    void *arg)
{
	struct view tmp;
	unsigned char *a;
	int rc;

	view_init_like(&tmp, shape);
	a = avail(e, shape, arg);
	view_reset(&tmp, a);
	free(a);
	rc = view_place(&tmp, sizes, npods, out);
	view_release(&tmp);
	return rc;
}

struct vtier {
	int	base;
	int	tier;
	int	prio;
	int	vc;
};

static unsigned char *
vtier_avail(struct engine *e, const struct view *shape, void *arg)
{
	const struct vtier *t = arg;
	unsigned char *a = xcalloc((size_t)shape->ncells + 1, 1);
	int c, v, job;

	for (c = 0; c < shape->ncells; c++) {
		if (shape->cell[c].level != 1)
			continue;
		v = t->base + c;
		job = e->vcs[v].job;
		if (e->vcs[v].want)
			continue;
		if (t->tier != T_IGNBAD && e->vcs[v].bad)
			continue;
		if (t->tier == T_LOWER && job >= 0 && e->jobs[job].prio >= t->prio)
			continue;
		a[c] = 1;
	}
	return a;
}

/* Candidate views of a request, in order; returns how many. */
static int
candidate_views(const struct engine *e, const struct engine_req *r, int *out)
{
	int i, n = 0;

	for (i = e->vc_views[r->vc]; i < e->vc_views[r->vc + 1]; i++) {
		const struct vview *w = &e->views[i];
		if (r->pin >= 0 ? w->pin != r->pin : w->pin >= 0)
			continue;
		if (r->leaf_type >= 0 && e->s->chains[w->chain].leaf_type != r->leaf_type)
			continue;
		out[n++] = i;
	}
	return n;
}

static const char *
vc_name(const struct engine *e, int vc)
{
	return e->s->vcs[vc].name;
}

/*
 * The cell type a pod of g GPUs goes in (HiveD's affinity level) in the
 * first candidate view that has one, and how many cells of that type the
 * views hold; -1 when no view has a cell that large. Error messages name
 * the type, not the level number.
 */
static int
pod_cell_type(const struct engine *e, const int *views, int nv, int g, int *ncells)
{
	int i, l, t, type = -1;

	*ncells = 0;
	for (i = 0; i < nv; i++) {
		const struct vview *w = &e->views[views[i]];

		if ((l = view_pod_level(&w->view, g)) < 0)
			continue;
		t = e->s->chains[w->chain].level_type[l];
		if (type < 0)
			type = t;
		if (t == type)
			*ncells += w->view.count[l];
	}
	return type;
}

/*
 * Guaranteed placement inside the VC (hived, private). On success the
 * chosen virtual leaves are in vleaves (global ids), *view set, victims
 * (same-VC jobs of lower priority) listed in the plan.
 */
static int
place_in_vc(struct engine *e, const struct engine_req *r, const int *sizes, int npods,
    int total, int *vleaves, int *viewp, struct engine_plan *plan)
{
	int views[64], nv = candidate_views(e, r, views), i, k, tier, fits = 0;
	int type, ncells;
	struct vtier t;
	enum engine_fail f;

	if (nv == 0) {
		if (r->pin >= 0)
			return plan_fail(plan, ENGINE_EBADREQ, "vc '%s' does not hold pinned cell '%s'",
			    vc_name(e, r->vc), e->s->pins[r->pin].id);
		return plan_fail(plan, ENGINE_ENOTYPE, "vc '%s' has no cells of type '%s'",
		    vc_name(e, r->vc), r->leaf_type >= 0 ?
		    e->s->types[r->leaf_type].name : "any");
	}
	for (i = 0; i < nv; i++) {
		const struct view *v = &e->views[views[i]].view;
		bool ok = true;
		for (k = 0; k < npods; k++)
			if (view_pod_level(v, sizes[k]) < 0)
				ok = false;
		fits += ok;
	}
	if (fits == 0)
		return plan_fail(plan, ENGINE_ETOOBIG, "a pod of %d gpus is larger than any "
		    "cell vc '%s' holds", sizes[0], vc_name(e, r->vc));
	/* tier 0: free leaves, on the live view */
	for (i = 0; i < nv; i++) {
		struct vview *w = &e->views[views[i]];
		if (view_place(&w->view, sizes, npods, vleaves) == 0) {
			for (k = 0; k < total; k++)
				vleaves[k] += w->base;
			*viewp = views[i];
			return 0;
		}
	}
	/* tiers 1..3 on scratch copies: lower-priority victims, then diagnose;
	   each only when it can change the answer (they copy whole views) */
	for (tier = T_LOWER; tier <= T_IGNBAD; tier++)
		for (i = 0; i < nv; i++) {
			struct vview *w = &e->views[views[i]];
			if (tier == T_LOWER && !vc_has_lower(e, r->vc, r->priority))
				continue;
			if (tier == T_ANY && !e->diagnose)
				continue;
			if (tier == T_IGNBAD && w->nbad == 0)
				continue;
			t.base = w->base;
			t.tier = tier;
			t.prio = r->priority;
			t.vc = r->vc;
			if (scratch_place(e, &w->view, sizes, npods, vleaves, vtier_avail, &t) < 0)
				continue;
			if (tier == T_LOWER) {
				for (k = 0; k < total; k++) {
					vleaves[k] += w->base;
					if (e->vcs[vleaves[k]].job >= 0)
						plan_victim(e, plan, e->vcs[vleaves[k]].job,
						    e->jobs[e->vcs[vleaves[k]].job].lazy &&
						    e->mode == ENGINE_HIVED ?
						    ENGINE_VICTIM_LAZY : ENGINE_VICTIM_PREEMPT);
				}
				*viewp = views[i];
				return 0;
			}
			f = tier == T_ANY ? ENGINE_EPREEMPT : ENGINE_EBADONLY;
			if (f == ENGINE_EPREEMPT && r->pin >= 0)
				return plan_fail(plan, ENGINE_EPINBUSY, "pinned cell '%s' is busy: "
				    "room only by preempting jobs of priority >= %d",
				    e->s->pins[r->pin].id, r->priority);
			if (f == ENGINE_EPREEMPT)
				return plan_fail(plan, f, "vc '%s' is full: room only by preempting "
				    "jobs of priority >= %d", vc_name(e, r->vc), r->priority);
			return plan_fail(plan, f, "vc '%s' has room only on bad nodes",
			    vc_name(e, r->vc));
		}
	if (r->pin >= 0)
		return plan_fail(plan, ENGINE_EPINBUSY, "pinned cell '%s' has no room for %d gpus",
		    e->s->pins[r->pin].id, total);
	type = pod_cell_type(e, views, nv, sizes[0], &ncells);
	/* a dry run tried every tier: even with all the VC's cells free and
	   healthy the gang does not fit, so it never will */
	if (e->diagnose)
		return plan_fail(plan, ENGINE_ETOOBIG, "vc '%s' can never hold %d pod%s "
		    "of %d gpu%s: each takes a cell of type '%s' and it has %d",
		    vc_name(e, r->vc), npods, npods == 1 ? "" : "s", sizes[0],
		    sizes[0] == 1 ? "" : "s", e->s->types[type].name, ncells);
	return plan_fail(plan, ENGINE_EVCFULL, "vc '%s' has no room for %d pod%s of %d "
	    "gpu%s (each in a cell of type '%s')", vc_name(e, r->vc), npods,
	    npods == 1 ? "" : "s", sizes[0], sizes[0] == 1 ? "" : "s",
	    e->s->types[type].name);
}

struct ptier {
	int	base;
	int	chain;
	bool	guaranteed;	/* quota: opportunistic leaves count as free */
};

static unsigned char *
ptier_avail(struct engine *e, const struct view *shape, void *arg)
{
	const struct ptier *t = arg;
	unsigned char *a = xcalloc((size_t)shape->ncells + 1, 1);
	int c, p;

	for (c = 0; c < shape->ncells; c++) {
		if (shape->cell[c].level != 1)
			continue;
		p = t->base + c;
		if (e->pcs[p].bad)
			continue;
		if (e->pcs[p].job >= 0 && !(t->guaranteed && e->pcs[p].isopp))
			continue;
		a[c] = 1;
	}
	return a;
}

/*
 * Physical placement (opportunistic jobs; guaranteed jobs in quota mode):
 * idle leaves on unreserved nodes, then any idle leaves, then (guaranteed
 * only) leaves of opportunistic jobs, whose jobs become victims.
 */
static int
place_physical(struct engine *e, const struct engine_req *r, const int *sizes, int npods,
    int total, int *leaves, int *chainp, bool borrow, struct engine_plan *plan)
{
	int c, k, pass, any = 0, fits = 0;
	bool guaranteed = r->priority >= 0;

	for (c = 0; c < e->s->nchains; c++)
		phys_opp_flush(e, c);
	/* a pod larger than any cell of its type's chains never fits */
	for (c = 0; c < e->s->nchains; c++)
		if ((r->leaf_type < 0 || e->s->chains[c].leaf_type == r->leaf_type) &&
		    view_pod_level(&e->pc[c].t1, sizes[0]) >= 0)
			fits = 1;
	for (c = 0; c < e->s->nchains && !fits; c++)
		if (r->leaf_type < 0 || e->s->chains[c].leaf_type == r->leaf_type)
			return plan_fail(plan, ENGINE_ETOOBIG, "a pod of %d gpus is larger "
			    "than any cell of the cluster", sizes[0]);
	for (pass = 0; pass < 3; pass++) {
		/* a borrower takes idle GPUs only: it preempts nobody */
		if (pass == 2 && (!guaranteed || borrow))
			break;
		for (c = 0; c < e->s->nchains; c++) {
			struct pchain *pc = &e->pc[c];
			if (r->leaf_type >= 0 && e->s->chains[c].leaf_type != r->leaf_type)
				continue;
			any = 1;
			if (pass < 2) {
				struct view *v = pass == 0 ? &pc->t1 : &pc->t2;
				if (view_place(v, sizes, npods, leaves) < 0)
					continue;
				/* the other view learns of it when leaves are assigned;
				   undo here so the commit sees a consistent state */
				for (k = 0; k < total; k++)
					view_leaf_set(v, leaves[k], true);
			} else {
				struct ptier t = { pc->base, c, true };
				if (scratch_place(e, &pc->t2, sizes, npods, leaves, ptier_avail, &t) < 0)
					continue;
			}
			for (k = 0; k < total; k++) {
				leaves[k] += pc->base;
				if (e->pcs[leaves[k]].job >= 0)
					plan_victim(e, plan, e->pcs[leaves[k]].job, ENGINE_VICTIM_PREEMPT);
			}
			*chainp = c;
			return 0;
		}
	}
	if (!any)
		return plan_fail(plan, ENGINE_ENOTYPE, "the cluster has no cells of type '%s'",
		    r->leaf_type >= 0 ? e->s->types[r->leaf_type].name : "any");
	if (borrow)
		return plan_fail(plan, ENGINE_EQUOTA, "vc '%s' is over its %lld gpus and no "
		    "idle cells can lend %d pod(s) of %d gpus", vc_name(e, r->vc),
		    e->vc_quota[r->vc], npods, sizes[0]);
	if (guaranteed)
		return plan_fail(plan, ENGINE_EVCFULL, "no idle cells for %d pod(s) of %d gpus "
		    "in the cluster", npods, sizes[0]);
	return plan_fail(plan, ENGINE_ECLUSTERFULL, "no idle cells for %d pod(s) of %d gpus "
	    "anywhere in the cluster", npods, sizes[0]);
}

static void
plan_fill(struct engine *e, struct engine_plan *plan, int id)
{
	struct ejob *j = &e->jobs[id];

	plan->job = id;
	plan->chain = j->chain;
	plan->opportunistic = j->prio < 0;
	plan->borrowed = j->borrowed;
	plan->npods = j->npods;
	plan->nleaves = j->nleaves;
	free(plan->pod_first);
	plan->pod_first = xmalloc((size_t)(j->npods + 1) * sizeof(int));
	memcpy(plan->pod_first, j->pod_first, (size_t)(j->npods + 1) * sizeof(int));
	XGROW(plan->leaves, plan->leaves_cap, (size_t)j->nleaves + 1);
	memcpy(plan->leaves, j->leaves, (size_t)j->nleaves * sizeof(int));
}

static int
validate(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	if (r->name == NULL || r->name[0] == '\0' || strlen(r->name) >= sizeof e->jobs[0].name)
		return plan_fail(plan, ENGINE_EBADREQ, "job name must be 1 to %zu characters",
		    sizeof e->jobs[0].name - 1);
	if (engine_job_find(e, r->name) >= 0)
		return plan_fail(plan, ENGINE_EBADREQ, "job '%s' exists", r->name);
	if (r->vc < 0 || r->vc >= e->s->nvcs)
		return plan_fail(plan, ENGINE_EBADREQ, "no such vc");
	if (r->priority < ENGINE_PRIO_OPPORTUNISTIC || r->priority > ENGINE_PRIO_MAX)
		return plan_fail(plan, ENGINE_EBADREQ, "priority %d is out of range -1..%d",
		    r->priority, ENGINE_PRIO_MAX);
	if (r->pin >= 0 && (r->pin >= e->s->npins || r->priority < 0))
		return plan_fail(plan, ENGINE_EBADREQ, r->pin >= e->s->npins ?
		    "no such pinned cell" : "opportunistic jobs cannot use pinned cells");
	if (r->pin >= 0 && e->mode == ENGINE_QUOTA)
		return plan_fail(plan, ENGINE_EBADREQ, "pinned cells need hived or private mode");
	if (r->leaf_type >= 0 && (r->leaf_type >= e->s->ntypes ||
	    !e->s->types[r->leaf_type].is_leaf))
		return plan_fail(plan, ENGINE_EBADREQ, "not a leaf cell type");
	return 0;
}

static int
alloc_internal(struct engine *e, const struct engine_req *r, struct engine_plan *plan,
    struct txn *tx)
{
	int sizes[MAX_PODS], npods, total, *leaves, view = -1, chain = -1, i, id, k, pf;
	bool in_vc, borrow = false;

	plan_reset(plan);
	if (validate(e, r, plan) < 0)
		return -1;
	npods = expand(r, sizes, &total);
	if (npods < 0)
		return plan_fail(plan, ENGINE_EBADREQ, "a gang needs 1 to %d members of at "
		    "least one pod of at least one gpu", ENGINE_MAX_MEMBERS);
	if (e->mode == ENGINE_QUOTA && r->priority >= 0 && e->diagnose && !e->borrow &&
	    total > e->vc_quota[r->vc])
		return plan_fail(plan, ENGINE_ETOOBIG, "vc '%s' can never hold %d gpus: "
		    "its quota is %lld", vc_name(e, r->vc), total, e->vc_quota[r->vc]);
	if (e->mode == ENGINE_QUOTA && r->priority >= 0 &&
	    e->vc_gused[r->vc] + total > e->vc_quota[r->vc]) {
		if (!e->borrow)
			return plan_fail(plan, ENGINE_EQUOTA, "vc '%s' would use %lld of its "
			    "%lld gpus", vc_name(e, r->vc), e->vc_gused[r->vc] + total,
			    e->vc_quota[r->vc]);
		borrow = true;	/* YARN-CS: over quota, on idle GPUs, kept */
	}
	leaves = xmalloc((size_t)total * sizeof(int));
	in_vc = e->mode == ENGINE_PRIVATE || (e->mode == ENGINE_HIVED && r->priority >= 0);
	if (in_vc) {
		if (place_in_vc(e, r, sizes, npods, total, leaves, &view, plan) < 0)
			goto fail;
		chain = e->views[view].chain;
	} else if (place_physical(e, r, sizes, npods, total, leaves, &chain, borrow,
	    plan) < 0)
		goto fail;

	/* victims first: same-VC lower priority, or opportunistic (quota) */
	for (i = 0; i < plan->nvictims; i++) {
		int vj = plan->victims[i].job;
		txn_save(e, tx, vj);
		if (plan->victims[i].kind == ENGINE_VICTIM_LAZY)
			job_downgrade(e, vj);
		else
			job_release(e, vj);
	}
	/* hold the chosen leaves against bad-cell binding and pruning (after
	   the victims: a downgraded victim must be free to unbind them) */
	if (in_vc)
		for (k = 0; k < total; k++)
			vleaf_want(e, leaves[k], true);

	id = job_new(e, r->name);
	{
		struct ejob *j = &e->jobs[id];
		j->vc = r->vc;
		j->prio = j->orig_prio = r->priority;
		j->lazy = r->lazy;
		j->borrowed = borrow;
		j->chain = chain;
		j->pin = r->pin;
		j->npods = npods;
		j->nleaves = total;
		j->pod_first = xmalloc((size_t)(npods + 1) * sizeof(int));
		for (pf = 0, i = 0; i < npods; i++) {
			j->pod_first[i] = pf;
			pf += sizes[i];
		}
		j->pod_first[npods] = pf;
		j->leaves = xmalloc((size_t)total * sizeof(int));
	}
	if (in_vc) {
		int *vl = leaves;
		bool conflict = false;
		/* bind the chosen virtual leaves; opportunistic jobs met on the
		   physical side are preempted (their VC claims its cells) */
		for (k = 0; k < total; k++)
			if (ensure_bound(e, vl[k]) < 0)
				fatal("binding failed for a legal placement");
		for (k = 0; k < total; k++)
			if (e->vcs[vl[k]].bad)
				conflict = true;
		if (conflict) {
			/* only bad cells were left to bind: undo everything */
			for (k = 0; k < total; k++)
				vleaf_want(e, vl[k], false);
			for (k = 0; k < total; k++)
				vleaf_prune(e, vl[k]);
			job_drop(e, id);
			for (i = tx->n - 1; i >= 0; i--)
				if (e->jobs[tx->v[i].id].live)
					job_release(e, tx->v[i].id);
			for (i = 0; i < tx->n; i++)
				job_restore(e, &tx->v[i]);
			plan_fail(plan, ENGINE_EBADONLY, "vc '%s' has room only on bad nodes",
			    vc_name(e, r->vc));
			goto fail;
		}
		for (k = 0; k < total; k++) {
			int pl = e->vcs[vl[k]].phys, oj = e->pcs[pl].job;
			if (oj >= 0) {
				txn_save(e, tx, oj);
				plan_victim(e, plan, oj, ENGINE_VICTIM_PREEMPT);
				job_release(e, oj);
			}
		}
		for (k = 0; k < total; k++) {
			int pl = e->vcs[vl[k]].phys;
			e->jobs[id].leaves[k] = pl;
			vleaf_set_job(e, vl[k], id);
			vleaf_want(e, vl[k], false);
			phys_leaf_assign(e, pl, id, r->priority < 0);
		}
		e->jobs[id].vleaves = vl;
		leaves = NULL;
	} else {
		for (k = 0; k < total; k++) {
			e->jobs[id].leaves[k] = leaves[k];
			phys_leaf_assign(e, leaves[k], id, r->priority < 0);
		}
		quota_count(e, &e->jobs[id], +1);
		free(leaves);
	}
	prio_count(e, &e->jobs[id], +1);
	plan_fill(e, plan, id);
	return id;
fail:
	free(leaves);
	return -1;
}

int
engine_alloc(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	struct txn tx = { 0 };
	int id, c;

	e->no_rebalance = true;
	id = alloc_internal(e, r, plan, &tx);
	e->no_rebalance = false;
	txn_free(&tx);
	if (e->mode == ENGINE_HIVED)
		for (c = 0; c < e->s->nchains; c++)
			if (e->pc[c].nbad > 0)
				doom_rebalance(e, c);
	engine_debug_check(e, "alloc");
	return id;
}

int
engine_place(struct engine *e, const struct engine_req *r, struct engine_plan *plan)
{
	struct engine_stats st = e->st;
	struct txn tx = { 0 };
	int id, i;

	e->no_rebalance = true;
	e->diagnose = true;
	id = alloc_internal(e, r, plan, &tx);
	e->diagnose = false;
	if (id >= 0) {
		job_release(e, id);
		/* restore victims; a downgraded one runs on as opportunistic
		   and must give that up first */
		for (i = tx.n - 1; i >= 0; i--) {
			if (e->jobs[tx.v[i].id].live)
				job_release(e, tx.v[i].id);
		}
		for (i = 0; i < tx.n; i++)
			job_restore(e, &tx.v[i]);
		plan->job = -1;
	}
	txn_free(&tx);
	e->no_rebalance = false;
	e->st = st;
	engine_debug_check(e, "place");
	return id >= 0 ? 0 : -1;
}
