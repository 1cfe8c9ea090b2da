/*
 * sched.c — the scheduler. See sched.h.
 *
 * Domains: 0 .. nvcs-1 hold each VC's guaranteed and auto jobs; the
 * opportunistic jobs sit in domain nvcs (one pool for the cluster), or in
 * nvcs + vc in private mode, where a VC's opportunistic jobs can only use its
 * own idle cells.
 *
 * A shape is what makes two requests interchangeable for the engine: gang
 * members, leaf type, affinity, and (by its domain) whether it is
 * opportunistic. Jobs of one shape in
 * one domain wait in one heap ordered by the policy key, so when the head
 * fails everything behind it fails too (policy.h invariant 2), and a pass
 * never looks behind a failed head.
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "policy/sched.h"

struct shape {
	int			 nmembers;
	struct engine_member	 members[ENGINE_MAX_MEMBERS];
	int			 leaf_type;
	bool			 soft;		/* soft affinity: may relax */
	int			*heap;		/* job ids, min-heap by key */
	int			 n;
	size_t			 cap;
	bool			 failed;	/* in the current pass */
};

struct domain {
	int			 vc;		/* -1: the cluster's opportunistic pool */
	bool			 opp;
	bool			 dirty;		/* something changed since its last pass */
	struct shape		*shapes;
	int			 nshapes;
	size_t			 cap;
};

/* Per running guaranteed job: the class the engine knows it by. */
struct sched {
	struct engine		*e;
	const struct policy	*p;
	struct job		*jobs;
	int			 njobs;
	int			 nvcs;
	bool			 private_mode;
	bool			 quota_mode;

	struct policy_key	*key;		/* cached at submit / rekey */
	int			*klass;
	int			*dom;		/* pending: its domain, else -1 */
	int			*shape;		/* pending: its shape */
	int			*pos;		/* pending: heap index */
	bool			*running;	/* holds cells through us */
	bool			*lent;		/* running borrowed (engine.h
						   invariant 10): not in used/fen */
	int			*by_eid;	/* engine job id -> job, -1 */
	size_t			 eid_cap;

	struct domain		*doms;
	int			 ndoms;
	long long		*quota;		/* per VC: GPUs assigned */
	long long		*used;		/* per VC: GPUs of running guaranteed jobs
						   within its quota */
	long long		*fen;		/* per VC: Fenwick tree over classes */
	int			 npending;
	struct sched_stats	 st;
	void			(*changed)(void *, int);	/* invariant 3 */
	void			*changed_arg;
	int			(*place)(void *, int, const struct engine_req *);
	void			*place_arg;
};

#define NCLASS (POLICY_MAX_CLASS + 1)

/* ---- Fenwick trees: GPUs of running guaranteed jobs per VC and class ---- */

static void
fen_add(struct sched *s, int vc, int klass, long long d)
{
	long long *f = s->fen + (size_t)vc * (NCLASS + 1);
	int i;

	for (i = klass + 1; i <= NCLASS; i += i & -i)
		f[i] += d;
}

/* GPUs of running guaranteed jobs of the VC with class < klass. */
static long long
fen_below(const struct sched *s, int vc, int klass)
{
	const long long *f = s->fen + (size_t)vc * (NCLASS + 1);
	long long sum = 0;
	int i;

	for (i = klass; i > 0; i -= i & -i)
		sum += f[i];
	return sum;
}

/* ---- heaps ---- */

static bool
before(const struct sched *s, int a, int b)
{
	return policy_key_cmp(&s->key[a], &s->key[b]) < 0;
}

static void
heap_set(struct sched *s, struct shape *sh, int i, int job)
{
	sh->heap[i] = job;
	s->pos[job] = i;
}

static void
heap_up(struct sched *s, struct shape *sh, int i)
{
	int job = sh->heap[i];

	while (i > 0 && before(s, job, sh->heap[(i - 1) / 2])) {
		heap_set(s, sh, i, sh->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(s, sh, i, job);
}

static void
heap_down(struct sched *s, struct shape *sh, int i)
{
	int job = sh->heap[i], c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= sh->n)
			break;
		if (c + 1 < sh->n && before(s, sh->heap[c + 1], sh->heap[c]))
			c++;
		if (!before(s, sh->heap[c], job))
			break;
		heap_set(s, sh, i, sh->heap[c]);
		i = c;
	}
	heap_set(s, sh, i, job);
}

static void
heap_push(struct sched *s, struct shape *sh, int job)
{
	XGROW(sh->heap, sh->cap, (size_t)sh->n + 1);
	sh->heap[sh->n++] = job;
	heap_up(s, sh, sh->n - 1);
}

static void
heap_remove(struct sched *s, struct shape *sh, int i)
{
	int last = sh->heap[--sh->n];

	if (i == sh->n)
		return;
	heap_set(s, sh, i, last);
	heap_up(s, sh, i);
	heap_down(s, sh, s->pos[last]);
}

/* ---- create / free ---- */

struct sched *
sched_create(struct engine *e, const struct policy *p, struct job *jobs, int njobs)
{
	struct sched *s = xcalloc(1, sizeof *s);
	const struct spec *sp = engine_spec(e);
	struct engine_vc_usage u;
	int i, n = njobs > 0 ? njobs : 1;

	s->e = e;
	s->p = p;
	s->jobs = jobs;
	s->njobs = njobs;
	s->nvcs = sp->nvcs;
	s->private_mode = engine_mode(e) == ENGINE_PRIVATE;
	s->quota_mode = engine_mode(e) == ENGINE_QUOTA;
	s->key = xcalloc((size_t)n, sizeof *s->key);
	s->klass = xcalloc((size_t)n, sizeof *s->klass);
	s->dom = xcalloc((size_t)n, sizeof *s->dom);
	s->shape = xcalloc((size_t)n, sizeof *s->shape);
	s->pos = xcalloc((size_t)n, sizeof *s->pos);
	s->running = xcalloc((size_t)n, sizeof *s->running);
	s->lent = xcalloc((size_t)n, sizeof *s->lent);
	for (i = 0; i < njobs; i++) {
		s->dom[i] = s->pos[i] = -1;
		s->key[i].id = i;
	}
	s->ndoms = s->nvcs + (s->private_mode ? s->nvcs : 1);
	s->doms = xcalloc((size_t)s->ndoms, sizeof *s->doms);
	for (i = 0; i < s->ndoms; i++) {
		s->doms[i].opp = i >= s->nvcs;
		s->doms[i].vc = i < s->nvcs ? i : s->private_mode ? i - s->nvcs : -1;
	}
	s->quota = xcalloc((size_t)s->nvcs + 1, sizeof *s->quota);
	s->used = xcalloc((size_t)s->nvcs + 1, sizeof *s->used);
	s->fen = xcalloc((size_t)(s->nvcs + 1) * (NCLASS + 1), sizeof *s->fen);
	for (i = 0; i < s->nvcs; i++) {
		engine_vc_usage(e, i, &u);
		s->quota[i] = u.gpus;
	}
	return s;
}

void
sched_grow(struct sched *s, struct job *jobs, int njobs)
{
	size_t n;
	int i;

	s->jobs = jobs;
	if (njobs <= s->njobs)
		return;
	n = (size_t)njobs;
	s->key = xreallocarray(s->key, n, sizeof *s->key);
	s->klass = xreallocarray(s->klass, n, sizeof *s->klass);
	s->dom = xreallocarray(s->dom, n, sizeof *s->dom);
	s->shape = xreallocarray(s->shape, n, sizeof *s->shape);
	s->pos = xreallocarray(s->pos, n, sizeof *s->pos);
	s->running = xreallocarray(s->running, n, sizeof *s->running);
	s->lent = xreallocarray(s->lent, n, sizeof *s->lent);
	for (i = s->njobs; i < njobs; i++) {
		memset(&s->key[i], 0, sizeof s->key[i]);
		s->key[i].id = i;
		s->klass[i] = 0;
		s->shape[i] = 0;
		s->dom[i] = s->pos[i] = -1;
		s->running[i] = false;
		s->lent[i] = false;
	}
	s->njobs = njobs;
}

void
sched_free(struct sched *s)
{
	int i, k;

	if (s == NULL)
		return;
	for (i = 0; i < s->ndoms; i++) {
		for (k = 0; k < s->doms[i].nshapes; k++)
			free(s->doms[i].shapes[k].heap);
		free(s->doms[i].shapes);
	}
	free(s->doms);
	free(s->key);
	free(s->klass);
	free(s->dom);
	free(s->shape);
	free(s->pos);
	free(s->running);
	free(s->lent);
	free(s->by_eid);
	free(s->quota);
	free(s->used);
	free(s->fen);
	free(s);
}

/* ---- writes to struct job (invariant 3) ---- */

void
sched_on_change(struct sched *s, void (*fn)(void *arg, int job), void *arg)
{
	s->changed = fn;
	s->changed_arg = arg;
}

void
sched_on_place(struct sched *s, int (*fn)(void *arg, int job, const struct engine_req *r),
    void *arg)
{
	s->place = fn;
	s->place_arg = arg;
}

static void
changed(struct sched *s, int job)
{
	if (s->changed != NULL)
		s->changed(s->changed_arg, job);
}

static void
set_reason(struct sched *s, int job, enum job_reason r)
{
	if (s->jobs[job].reason == r)
		return;
	s->jobs[job].reason = r;
	changed(s, job);
}

/* ---- pending jobs ---- */

/*
 * A VC with no cells (a tenant without quota) has nothing to guarantee:
 * its jobs queue as opportunistic whatever their class (under private
 * sharing, on its empty private cluster, they never run).
 */
static int
job_domain(const struct sched *s, const struct job *j)
{
	if (j->klass != JOB_OPPORTUNISTIC && s->quota[j->vc] > 0)
		return j->vc;
	return s->private_mode ? s->nvcs + j->vc : s->nvcs;
}

static int
shape_of(struct domain *d, const struct job *j)
{
	int i;

	for (i = 0; i < d->nshapes; i++) {
		struct shape *sh = &d->shapes[i];
		if (sh->nmembers == j->nmembers && sh->leaf_type == j->leaf_type &&
		    sh->soft == j->soft_affinity &&
		    memcmp(sh->members, j->members,
		    (size_t)j->nmembers * sizeof j->members[0]) == 0)
			return i;
	}
	XGROW(d->shapes, d->cap, (size_t)d->nshapes + 1);
	memset(&d->shapes[d->nshapes], 0, sizeof d->shapes[0]);
	d->shapes[d->nshapes].nmembers = j->nmembers;
	memcpy(d->shapes[d->nshapes].members, j->members, sizeof j->members);
	d->shapes[d->nshapes].leaf_type = j->leaf_type;
	d->shapes[d->nshapes].soft = j->soft_affinity;
	return d->nshapes++;
}

static void
rank(struct sched *s, int job, double now)
{
	const struct job *j = &s->jobs[job];
	int c;

	s->p->ops->key(s->p, j, now, &s->key[job]);
	s->key[job].id = job;
	c = s->p->ops->klass(s->p, j, now);
	s->klass[job] = c < 0 ? 0 : c > POLICY_MAX_CLASS ? POLICY_MAX_CLASS : c;
}

void
sched_submit(struct sched *s, int job, double now)
{
	struct job *j = &s->jobs[job];
	struct domain *d;

	if (job < 0 || job >= s->njobs || s->dom[job] >= 0 || s->running[job])
		return;
	rank(s, job, now);
	s->dom[job] = job_domain(s, j);
	d = &s->doms[s->dom[job]];
	s->shape[job] = shape_of(d, j);
	heap_push(s, &d->shapes[s->shape[job]], job);
	d->dirty = true;
	set_reason(s, job, JOB_REASON_PRIORITY);
	s->npending++;
}

static void
unqueue(struct sched *s, int job)
{
	struct domain *d = &s->doms[s->dom[job]];

	heap_remove(s, &d->shapes[s->shape[job]], s->pos[job]);
	s->dom[job] = s->pos[job] = -1;
	s->npending--;
}

/* ---- running jobs ---- */

static void
mark_freed(struct sched *s, int vc, bool guaranteed)
{
	int i;

	/* Guaranteed cells free up only their VC's view (HiveD's isolation);
	   any release frees physical GPUs for the opportunistic pool, and in
	   quota mode for every VC. */
	if (guaranteed && vc >= 0 && vc < s->nvcs)
		s->doms[vc].dirty = true;
	for (i = s->nvcs; i < s->ndoms; i++)
		if (!s->private_mode || s->doms[i].vc == vc)
			s->doms[i].dirty = true;
	if (s->quota_mode)
		for (i = 0; i < s->nvcs; i++)
			s->doms[i].dirty = true;
}

/* Whether a running job counts in its VC's used GPUs and classes:
   guaranteed and within its quota (a borrower only lends its VC nothing). */
static bool
counted(const struct sched *s, int job)
{
	return !s->jobs[job].opportunistic && !s->lent[job];
}

/* Forget a running job's share (it was released or lost its cells). */
static void
unrun(struct sched *s, int job)
{
	struct job *j = &s->jobs[job];

	if (counted(s, job)) {
		s->used[j->vc] -= j->gpus;
		fen_add(s, j->vc, s->klass[job], -j->gpus);
	}
	s->lent[job] = false;
	mark_freed(s, j->vc, !j->opportunistic);
	if ((size_t)j->engine_id < s->eid_cap)
		s->by_eid[j->engine_id] = -1;
	s->running[job] = false;
	j->engine_id = -1;
	j->opportunistic = false;
	changed(s, job);
}

static void
run(struct sched *s, int job, int engine_id, bool opp)
{
	struct job *j = &s->jobs[job];
	struct engine_job_info info;
	size_t old = s->eid_cap;

	if ((size_t)engine_id >= s->eid_cap) {
		XGROW(s->by_eid, s->eid_cap, (size_t)engine_id + 1);
		while (old < s->eid_cap)
			s->by_eid[old++] = -1;
	}
	s->by_eid[engine_id] = job;
	s->running[job] = true;
	j->engine_id = engine_id;
	j->opportunistic = opp;
	s->lent[job] = !opp && engine_job(s->e, engine_id, &info) && info.borrowed;
	if (counted(s, job)) {
		s->used[j->vc] += j->gpus;
		fen_add(s, j->vc, s->klass[job], j->gpus);
	}
	changed(s, job);
}

void
sched_release(struct sched *s, int job)
{
	if (job < 0 || job >= s->njobs || !s->running[job])
		return;
	engine_release(s->e, s->jobs[job].engine_id);
	unrun(s, job);
}

void
sched_cancel(struct sched *s, int job)
{
	if (job < 0 || job >= s->njobs)
		return;
	if (s->dom[job] >= 0)
		unqueue(s, job);
	else
		sched_release(s, job);
}

void
sched_rekey(struct sched *s, int job, double now)
{
	struct job *j;
	struct domain *d;
	int old;

	if (job < 0 || job >= s->njobs)
		return;
	j = &s->jobs[job];
	if (s->dom[job] >= 0) {
		d = &s->doms[s->dom[job]];
		heap_remove(s, &d->shapes[s->shape[job]], s->pos[job]);
		rank(s, job, now);
		heap_push(s, &d->shapes[s->shape[job]], job);
		d->dirty = true;
		return;
	}
	if (!s->running[job])
		return;
	old = s->klass[job];
	rank(s, job, now);
	if (j->opportunistic || s->klass[job] == old)
		return;
	if (counted(s, job)) {
		fen_add(s, j->vc, old, -j->gpus);
		fen_add(s, j->vc, s->klass[job], j->gpus);
	}
	engine_job_set_priority(s->e, j->engine_id, s->klass[job]);
	/* a demoted job may now yield to its VC's pending jobs */
	if (s->klass[job] < old)
		s->doms[j->vc].dirty = true;
}

int
sched_job_of(const struct sched *s, int eid)
{
	return eid >= 0 && (size_t)eid < s->eid_cap ? s->by_eid[eid] : -1;
}

void
sched_touch_all(struct sched *s)
{
	int i;

	for (i = 0; i < s->ndoms; i++)
		s->doms[i].dirty = true;
}

/* ---- the pass ---- */

static void
act(struct sched_action **acts, int *nacts, int *cap, enum sched_action_kind k,
    int job, int by)
{
	size_t c = (size_t)*cap;

	XGROW(*acts, c, (size_t)*nacts + 1);
	*cap = (int)c;
	(*acts)[*nacts].kind = k;
	(*acts)[*nacts].job = job;
	(*acts)[*nacts].by = by;
	(*nacts)++;
}

/* The request the engine sees for a job. */
static void
request(const struct sched *s, int job, bool opp, struct engine_req *r)
{
	const struct job *j = &s->jobs[job];

	memset(r, 0, sizeof *r);
	r->name = j->name;
	r->vc = j->vc;
	r->priority = opp ? ENGINE_PRIO_OPPORTUNISTIC : s->klass[job];
	r->leaf_type = j->leaf_type;
	r->pin = -1;
	r->nmembers = j->nmembers;
	memcpy(r->members, j->members, sizeof r->members);
}

/*
 * Halve every pod of a request, doubling the pods (8 -> 2x4 -> 4x2 -> 8x1);
 * false when no pod can be split further.
 */
static bool
relax(struct engine_req *r)
{
	int i;
	bool any = false;

	for (i = 0; i < r->nmembers; i++)
		if (r->members[i].gpus > 1 && r->members[i].gpus % 2 == 0) {
			r->members[i].gpus /= 2;
			r->members[i].pods *= 2;
			any = true;
		}
	return any;
}

/* Idle healthy GPUs in the cluster: a bound for any opportunistic start. */
static long long
idle_gpus(const struct sched *s)
{
	struct engine_stats st;

	engine_stats(s->e, &st);
	return st.gpus - st.used - st.opp - st.bad;
}

/*
 * Try to start one job; on success record the actions and return true.
 * On failure set its reason.
 */
static bool
try_start(struct sched *s, int job, bool opp, struct engine_plan *plan,
    struct sched_action **acts, int *nacts, int *cap)
{
	struct job *j = &s->jobs[job];
	struct engine_req r;
	long long room;
	int i, id, v;

	/* counting bounds first: most failures in a busy cluster end here */
	if (opp)
		room = idle_gpus(s);
	else {
		room = s->quota[j->vc] - s->used[j->vc];
		if (s->p->ops->flags & POLICY_PREEMPTIVE)
			room += fen_below(s, j->vc, s->klass[job]);
		/* over the quota, a lending engine takes idle GPUs */
		if (room < j->gpus && engine_borrow(s->e))
			room = idle_gpus(s);
	}
	if (room < j->gpus) {
		s->st.fast_rejects++;
		set_reason(s, job, opp ? JOB_REASON_RESOURCES : JOB_REASON_VCFULL);
		return false;
	}
	request(s, job, opp, &r);
	s->st.attempts++;
	/* the backend's own choice of idle leaves first: no victims */
	if (!opp && s->place != NULL && (id = s->place(s->place_arg, job, &r)) >= 0) {
		if (s->dom[job] >= 0)
			unqueue(s, job);
		run(s, job, id, false);
		set_reason(s, job, JOB_REASON_NONE);
		act(acts, nacts, cap, SCHED_START, job, -1);
		s->st.starts++;
		return true;
	}
	id = engine_alloc(s->e, &r, plan);
	/* soft affinity: rather than wait, run as more, smaller pods */
	while (id < 0 && j->soft_affinity && relax(&r)) {
		s->st.attempts++;
		id = engine_alloc(s->e, &r, plan);
		if (id >= 0)
			s->st.relaxed++;
	}
	if (id < 0) {
		enum job_reason why = job_reason_from_engine(plan->fail);
		if (why == JOB_REASON_VCFULL && !opp &&
		    s->quota[j->vc] - s->used[j->vc] >= j->gpus)
			why = j->nmembers > 1 || j->members[0].pods > 1 ?
			    JOB_REASON_GANG : JOB_REASON_FRAGMENTED;
		set_reason(s, job, why);
		return false;
	}
	/* victims first: the engine has already taken their cells */
	for (i = 0; i < plan->nvictims; i++) {
		if ((v = sched_job_of(s, plan->victims[i].job)) < 0)
			continue;
		if (plan->victims[i].kind == ENGINE_VICTIM_LAZY) {
			struct job *vj = &s->jobs[v];
			if (counted(s, v)) {
				s->used[vj->vc] -= vj->gpus;
				fen_add(s, vj->vc, s->klass[v], -vj->gpus);
			}
			s->lent[v] = false;
			vj->opportunistic = true;
			changed(s, v);
			act(acts, nacts, cap, SCHED_DOWNGRADE, v, job);
		} else {
			unrun(s, v);
			act(acts, nacts, cap, SCHED_PREEMPT, v, job);
			s->st.preemptions++;
		}
	}
	if (s->dom[job] >= 0)
		unqueue(s, job);
	run(s, job, id, plan->opportunistic);
	set_reason(s, job, JOB_REASON_NONE);
	act(acts, nacts, cap, SCHED_START, job, -1);
	s->st.starts++;
	return true;
}

/* The best head among the shapes of d that have not failed; -1 if none. */
static int
best_shape(const struct sched *s, const struct domain *d)
{
	int i, best = -1;

	for (i = 0; i < d->nshapes; i++) {
		const struct shape *sh = &d->shapes[i];
		if (sh->failed || sh->n == 0)
			continue;
		if (best < 0 || before(s, sh->heap[0], d->shapes[best].heap[0]))
			best = i;
	}
	return best;
}

static void
pass_domain(struct sched *s, struct domain *d, struct engine_plan *plan,
    struct sched_action **acts, int *nacts, int *cap)
{
	bool skip = s->p->ops->flags & POLICY_SKIP;
	int i, b, job;

	for (i = 0; i < d->nshapes; i++)
		d->shapes[i].failed = false;
	d->dirty = false;
	while ((b = best_shape(s, d)) >= 0) {
		job = d->shapes[b].heap[0];
		if (try_start(s, job, d->opp, plan, acts, nacts, cap))
			continue;
		/* auto: guaranteed while the VC has room, else opportunistic
		   (with POLICY_OPPSHARE the backend shares GPUs with them) */
		if (!d->opp && s->jobs[job].klass == JOB_AUTO &&
		    !(s->p->ops->flags & POLICY_OPPSHARE) &&
		    try_start(s, job, true, plan, acts, nacts, cap))
			continue;
		d->shapes[b].failed = true;
		if (!skip)
			break;
	}
}

int
sched_pass(struct sched *s, double now, struct sched_action **acts, int *nacts,
    int *cap)
{
	struct engine_plan plan;
	int i, before_n = *nacts;

	(void)now;
	s->st.passes++;
	engine_plan_init(&plan);
	/* guaranteed domains first: they may preempt the opportunistic pool */
	for (i = 0; i < s->ndoms; i++)
		if (s->doms[i].dirty && !(s->doms[i].opp &&
		    (s->p->ops->flags & POLICY_OPPSHARE)))
			pass_domain(s, &s->doms[i], &plan, acts, nacts, cap);
	engine_plan_release(&plan);
	return *nacts - before_n;
}

void
sched_take(struct sched *s, int job)
{
	if (job < 0 || job >= s->njobs || s->dom[job] < 0)
		return;
	unqueue(s, job);
	set_reason(s, job, JOB_REASON_NONE);
}

bool
sched_start_now(struct sched *s, int job, struct sched_action **acts, int *nacts,
    int *cap)
{
	struct engine_plan plan;
	bool ok;

	if (job < 0 || job >= s->njobs || s->dom[job] >= 0 || s->running[job])
		return false;
	engine_plan_init(&plan);
	ok = try_start(s, job, s->jobs[job].klass == JOB_OPPORTUNISTIC, &plan, acts,
	    nacts, cap);
	engine_plan_release(&plan);
	return ok;
}

void
sched_stats(const struct sched *s, struct sched_stats *st)
{
	*st = s->st;
}

int
sched_pending(const struct sched *s)
{
	return s->npending;
}

int
sched_pending_vc(const struct sched *s, int vc)
{
	const struct domain *d;
	int i, n = 0;

	if (vc < 0 || vc >= s->nvcs)
		return 0;
	d = &s->doms[vc];
	for (i = 0; i < d->nshapes; i++)
		n += d->shapes[i].n;
	return n;
}

/* ---- crash recovery ---- */

void
sched_job_key(const struct sched *s, int job, struct policy_key *key, int *klass)
{
	if (job < 0 || job >= s->njobs) {
		memset(key, 0, sizeof *key);
		key->id = job;
		*klass = 0;
		return;
	}
	*key = s->key[job];
	*klass = s->klass[job];
}

/* Can this job, key and class be what a scheduler held? */
static int
restorable(const struct sched *s, int job, const struct policy_key *key, int klass,
    char *why, size_t len)
{
	const struct job *j;
	int i;

	if (job < 0 || job >= s->njobs) {
		bufprintf(why, len, "job %d is out of range 0..%d", job, s->njobs - 1);
		return -1;
	}
	j = &s->jobs[job];
	if (s->dom[job] >= 0 || s->running[job]) {
		bufprintf(why, len, "job '%s' is already %s", j->name,
		    s->running[job] ? "running" : "queued");
		return -1;
	}
	if (j->vc < 0 || j->vc >= s->nvcs || j->gpus <= 0 || j->nmembers < 1 ||
	    j->nmembers > ENGINE_MAX_MEMBERS) {
		bufprintf(why, len, "job '%s' has no valid vc or shape", j->name);
		return -1;
	}
	if (key->id != job || klass < 0 || klass > POLICY_MAX_CLASS) {
		bufprintf(why, len, "job '%s': key of job %d, class %d", j->name, key->id,
		    klass);
		return -1;
	}
	for (i = 0; i < 3; i++)
		if (key->k[i] != key->k[i]) {
			bufprintf(why, len, "job '%s': key %d is not a number", j->name, i);
			return -1;
		}
	return 0;
}

int
sched_restore_pending(struct sched *s, int job, const struct policy_key *key, int klass,
    char *why, size_t len)
{
	struct domain *d;

	if (restorable(s, job, key, klass, why, len) < 0)
		return -1;
	if (s->jobs[job].state != JOB_PENDING) {
		bufprintf(why, len, "job '%s' is %s, not pending", s->jobs[job].name,
		    job_state_name(s->jobs[job].state));
		return -1;
	}
	s->key[job] = *key;
	s->klass[job] = klass;
	s->dom[job] = job_domain(s, &s->jobs[job]);
	d = &s->doms[s->dom[job]];
	s->shape[job] = shape_of(d, &s->jobs[job]);
	heap_push(s, &d->shapes[s->shape[job]], job);
	s->npending++;
	return 0;
}

int
sched_restore_running(struct sched *s, int job, const struct policy_key *key, int klass,
    char *why, size_t len)
{
	struct engine_job_info info;
	struct job *j;
	int eid;

	if (restorable(s, job, key, klass, why, len) < 0)
		return -1;
	j = &s->jobs[job];
	eid = j->engine_id;
	if (!job_holds_cells(j) || !engine_job(s->e, eid, &info)) {
		bufprintf(why, len, "job '%s' (%s) holds no cells as engine job %d", j->name,
		    job_state_name(j->state), eid);
		return -1;
	}
	if (sched_job_of(s, eid) >= 0) {
		bufprintf(why, len, "job '%s': engine job %d is job '%s'", j->name, eid,
		    s->jobs[sched_job_of(s, eid)].name);
		return -1;
	}
	if (strcmp(info.name, j->name) != 0 || info.vc != j->vc ||
	    (info.nleaves != j->gpus && !(info.nleaves > j->gpus &&
	    info.nleaves <= j->elastic_max)) || (info.priority < 0) != j->opportunistic ||
	    (!j->opportunistic && info.priority != klass)) {
		bufprintf(why, len, "job '%s' (vc %d, %d gpus, %s, class %d) does not "
		    "match engine job %d ('%s', vc %d, %d gpus, priority %d)", j->name,
		    j->vc, j->gpus, j->opportunistic ? "opportunistic" : "guaranteed",
		    klass, eid, info.name, info.vc, info.nleaves, info.priority);
		return -1;
	}
	s->key[job] = *key;
	s->klass[job] = klass;
	run(s, job, eid, j->opportunistic);
	return 0;
}

int
sched_restore_key(struct sched *s, int job, const struct policy_key *key, int klass,
    char *why, size_t len)
{
	if (restorable(s, job, key, klass, why, len) < 0)
		return -1;
	s->key[job] = *key;
	s->klass[job] = klass;
	return 0;
}

int
sched_domains(const struct sched *s)
{
	return s->ndoms;
}

bool
sched_domain_dirty(const struct sched *s, int dom)
{
	return dom >= 0 && dom < s->ndoms && s->doms[dom].dirty;
}

void
sched_set_domain_dirty(struct sched *s, int dom, bool dirty)
{
	if (dom >= 0 && dom < s->ndoms)
		s->doms[dom].dirty = dirty;
}

void
sched_stats_restore(struct sched *s, const struct sched_stats *st)
{
	s->st = *st;
}

bool
sched_check(const struct sched *s, char *why, size_t len)
{
	int i, k, h, n = 0;
	long long *used;
	struct engine_job_info info;
	bool ok = true;

	for (i = 0; i < s->ndoms; i++)
		for (k = 0; k < s->doms[i].nshapes; k++) {
			const struct shape *sh = &s->doms[i].shapes[k];
			for (h = 0; h < sh->n; h++) {
				int job = sh->heap[h];
				n++;
				if (s->dom[job] != i || s->shape[job] != k || s->pos[job] != h) {
					bufprintf(why, len, "job %d: heap index out of date", job);
					return false;
				}
				if (s->jobs[job].state != JOB_PENDING || s->running[job]) {
					bufprintf(why, len, "job '%s' is queued but %s",
					    s->jobs[job].name, job_state_name(s->jobs[job].state));
					return false;
				}
				if (h > 0 && before(s, job, sh->heap[(h - 1) / 2])) {
					bufprintf(why, len, "heap order broken at job '%s'",
					    s->jobs[job].name);
					return false;
				}
			}
		}
	if (n != s->npending) {
		bufprintf(why, len, "%d jobs in heaps, %d counted pending", n, s->npending);
		return false;
	}
	used = xcalloc((size_t)s->nvcs + 1, sizeof *used);
	for (i = 0; i < s->njobs && ok; i++) {
		if (!s->running[i])
			continue;
		if (s->jobs[i].engine_id < 0) {
			bufprintf(why, len, "job '%s' runs without cells", s->jobs[i].name);
			ok = false;
		} else if (s->lent[i] != (engine_job(s->e, s->jobs[i].engine_id, &info) &&
		    info.borrowed)) {
			bufprintf(why, len, "job '%s': lent %d, not as the engine has it",
			    s->jobs[i].name, s->lent[i]);
			ok = false;
		} else if (counted(s, i))
			used[s->jobs[i].vc] += s->jobs[i].gpus;
	}
	for (i = 0; i < s->nvcs && ok; i++)
		if (used[i] != s->used[i] || fen_below(s, i, NCLASS) != used[i]) {
			bufprintf(why, len, "vc %d: %lld gpus used, counted %lld",
			    i, used[i], s->used[i]);
			ok = false;
		}
	free(used);
	return ok;
}
