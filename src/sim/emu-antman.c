/*
 * emu-antman.c — AntMan (OSDI'20) in the emulator, for policies with
 * POLICY_OPPSHARE: the mechanism emu_antman_mech (emu-int.h), whose hooks
 * the loop and the steps call (submit, start, leave, node_bad, EV_PHASE,
 * integrate) and once per tick after the scheduler pass (emu_am_tick).
 * One file of ~1,600 lines because its parts share one state (the GPUs'
 * guest lists, plans, placement index and the sums kept for speed) whose
 * invariants emu_am_check walks: split, the helpers that keep them would
 * have to be exported between the parts.
 *
 * Guaranteed jobs get engine cells as with any policy: they are the hosts
 * of their GPUs. Opportunistic jobs (class opportunistic, or auto ones
 * still pending after a pass: they would wait) never enter the engine's
 * opportunistic pool: they are taken from the queue and run as guests on
 * GPUs whose SM utilization, averaged over par.opp_window, is below
 * par.opp_threshold, least loaded first, with room for their minimum
 * memory. Each GPU is planned by sim/antman.c: the host runs as if alone
 * (a few percent of interference), guests get the memory and SM time left,
 * shrinking when the host's demand rises and growing back when it falls
 * (phase events). A guest with nothing left is paused (suspended), never
 * killed. An auto guest whose VC has quota again, with no guaranteed job of
 * the VC waiting, is upgraded: it gets cells of its own, in place when the
 * engine binds the GPUs it runs on in its VC (emu_am_place: no restart,
 * nothing lost, no stall); else where the engine places it, migrating
 * there at its model's migration cost. With par.opp_control off the GPUs are shared
 * without control (plain packing): whoever allocates last on a full GPU
 * runs out of memory and fails for good.
 *
 * Placement index: a GPU whose SM use now is at or above the threshold
 * cannot take a guest whatever its average (the load placement compares
 * is never below it), so each GPU carries cand = util_now < threshold,
 * kept where util_now changes (plan_gpu) and rebuilt on restore, and each
 * node the count of its cand GPUs. place() visits only nodes with enough
 * and, on them, only cand GPUs; the exact test (eligible) decides as
 * before, from the engine's leaf facts (engine_leaf) and a load cached per
 * GPU for the tick. Same choices as the full scan, which emu_am_check
 * keeps as the reference.
 *
 * Accounting: a host attains its GPUs' time; a guest attains the share of
 * its GPUs that have no host, split among the guests running there, so
 * invariant 2 of emu.h holds with busy GPUs = cells in use + m->am.busy.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostlist.h"
#include "core/pack.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"

/* Placement attempts that may fail per tick (bounds a tick's cost). */
#define AM_TRIES	32

/* The node of GPU g, -1 if none. */
static int
gpu_node(const struct emu *m, int g)
{
	return m->s->cells[m->am.gpu_leaf[g]].node;
}

/* GPU g's cand flag and its node's count, from util_now. */
static void
cand_set(struct emu *m, int g)
{
	struct agpu *a = &m->am.gpu[g];
	bool c = a->util_now < m->par.opp_threshold;
	int node = gpu_node(m, g);

	if (c != a->cand && node >= 0)
		m->am.node_cand[node] += c ? 1 : -1;
	a->cand = c;
}

static void
cand_all(struct emu *m)
{
	int g;

	memset(m->am.node_cand, 0, (size_t)m->s->nnodes * sizeof *m->am.node_cand);
	for (g = 0; g < m->am.ngpu; g++) {
		m->am.gpu[g].cand = false;
		cand_set(m, g);
	}
}

static void
emu_am_init(struct emu *m)
{
	const struct spec *s = m->s;
	int i, n = 0, node;

	m->am.leaf_gpu = xcalloc((size_t)s->ncells + 1, sizeof *m->am.leaf_gpu);
	m->am.gpu_leaf = xcalloc((size_t)s->gpus + 1, sizeof *m->am.gpu_leaf);
	for (i = 0; i < s->ncells; i++) {
		m->am.leaf_gpu[i] = -1;
		if (s->cells[i].first_child < 0 && n < s->gpus) {
			m->am.leaf_gpu[i] = n;
			m->am.gpu_leaf[n++] = i;
		}
	}
	m->am.ngpu = n;
	m->am.gpu = xcalloc((size_t)n + 1, sizeof *m->am.gpu);
	for (i = 0; i < n; i++)
		m->am.gpu[i].host = -1;
	/* GPUs by node, for placing a pod on one node */
	m->am.node_off = xcalloc((size_t)s->nnodes + 2, sizeof *m->am.node_off);
	m->am.node_gpu = xcalloc((size_t)n + 1, sizeof *m->am.node_gpu);
	for (i = 0; i < n; i++)
		if ((node = s->cells[m->am.gpu_leaf[i]].node) >= 0)
			m->am.node_off[node + 1]++;
	for (i = 0; i < s->nnodes; i++)
		m->am.node_off[i + 1] += m->am.node_off[i];
	{
		int *fill = xcalloc((size_t)s->nnodes + 1, sizeof *fill);
		for (i = 0; i < n; i++)
			if ((node = s->cells[m->am.gpu_leaf[i]].node) >= 0)
				m->am.node_gpu[m->am.node_off[node] + fill[node]++] = i;
		free(fill);
	}
	m->am.node_cand = xcalloc((size_t)s->nnodes + 1, sizeof *m->am.node_cand);
	m->am.taken = xcalloc((size_t)n + 1, sizeof *m->am.taken);
	m->am.seen = xcalloc((size_t)n + 1, sizeof *m->am.seen);
	m->am.load = xcalloc((size_t)n + 1, sizeof *m->am.load);
	m->am.dist = xcalloc((size_t)n + 1, sizeof *m->am.dist);
	m->am.cand = xcalloc((size_t)n + 1, sizeof *m->am.cand);
	m->am.gwait = xcalloc((size_t)s->nvcs + 1, sizeof *m->am.gwait);
	cand_all(m);
}

static void
emu_am_free(struct emu *m)
{
	int i;

	if (m->am.gpu != NULL)
		for (i = 0; i < m->am.ngpu; i++) {
			free(m->am.gpu[i].guests);
			free(m->am.gpu[i].grant);
			free(m->am.gpu[i].users);
		}
	free(m->am.gpu);
	free(m->am.leaf_gpu);
	free(m->am.gpu_leaf);
	free(m->am.node_off);
	free(m->am.node_gpu);
	free(m->am.node_cand);
	free(m->am.taken);
	free(m->am.seen);
	free(m->am.load);
	free(m->am.dist);
	free(m->am.cand);
	free(m->am.wait);
	free(m->am.dirty);
	free(m->am.autos);
	free(m->am.gwait);
}

/* ---- demand ---- */

static const struct model *
model_of(const struct emu *m, const struct job *j)
{
	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return NULL;
	return &model_table[j->model];
}

/* A job's SM demand and memory need now, from its model and phase. */
static void
demand(const struct emu *m, int job, double *sm, double *need)
{
	const struct job *j = &m->jobs[job];
	const struct model *md = model_of(m, j);
	int ph = m->js[job].phase;

	if (ph < 0 || ph >= model_nphases)
		ph = 1;
	if (md == NULL) {
		*sm = 1;	/* no profile: a full GPU, no memory figure */
		*need = 0;
		return;
	}
	*sm = md->gpu_util * model_phases[ph].sm;
	*need = md->mem_peak * model_phases[ph].mem;
}

static double
mem_min(const struct emu *m, int job)
{
	const struct model *md = model_of(m, &m->jobs[job]);
	double sm, need;

	demand(m, job, &sm, &need);
	if (md == NULL || !m->par.opp_control)
		return need;
	return md->mem_min < need ? md->mem_min : need;
}

static void
emu_am_plan_phase(struct emu *m, int job)
{
	const struct job *j = &m->jobs[job];
	const struct ejob_state *x = &m->js[job];
	double c, t;

	if (j->state != JOB_RUNNING || x->ngpus == 0 || !(j->duration > 0) ||
	    x->phase < 0 || x->phase >= model_nphases - 1 || x->speed <= 0)
		return;
	c = model_phases[x->phase].until * j->duration;
	t = fmax(m->now, x->stall_until) + (c - j->work_done) / x->speed;
	if (t <= m->now)
		t = nextafter(m->now, INFINITY);
	emu_push(m, t, EV_PHASE, job, x->ver);
}

static void
gpu_dirty(struct emu *m, int g)
{
	if (m->am.gpu[g].dirty)
		return;
	m->am.gpu[g].dirty = true;
	XGROW(m->am.dirty, m->am.dirty_cap, (size_t)m->am.ndirty + 1);
	m->am.dirty[m->am.ndirty++] = g;
}

static void
jobs_gpus_dirty(struct emu *m, int job)
{
	int i;

	for (i = 0; i < m->js[job].ngpus; i++)
		gpu_dirty(m, m->js[job].gpus[i]);
}

static void
emu_am_phase(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double c;

	emu_account(m, job);
	if (x->phase < 0 || x->phase >= model_nphases - 1)
		return;
	/* snap onto the boundary the event was planned for (an ulp off) */
	c = model_phases[x->phase].until * j->duration;
	if (j->work_done < c && c <= j->duration)
		j->work_done = c;
	x->phase++;
	emu_mark(m, job);
	jobs_gpus_dirty(m, job);
	emu_am_plan_phase(m, job);
}

/* ---- the waiting list: pending jobs that may run as guests ---- */

static bool
wait_before(const struct emu *m, int a, int b)
{
	const struct job *x = &m->jobs[a], *y = &m->jobs[b];

	return x->submit < y->submit || (x->submit == y->submit && a < b);
}

static void
emu_am_submit(struct emu *m, int job)
{
	int lo = 0, hi = m->am.nwait, mid;

	if (m->jobs[job].klass == JOB_GUARANTEED) {
		m->am.gwait[m->jobs[job].vc]++;
		return;
	}
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (wait_before(m, m->am.wait[mid], job))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->am.nwait && m->am.wait[lo] == job)
		return;
	XGROW(m->am.wait, m->am.wait_cap, (size_t)m->am.nwait + 1);
	memmove(&m->am.wait[lo + 1], &m->am.wait[lo], (size_t)(m->am.nwait - lo) *
	    sizeof *m->am.wait);
	m->am.wait[lo] = job;
	m->am.nwait++;
}

/* The first index of am_auto whose job is >= job. */
static int
auto_at(const struct emu *m, int job)
{
	int lo = 0, hi = m->am.nauto, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (m->am.autos[mid] < job)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* A guest of class auto joins or leaves the upgrade candidates. */
static void
auto_add(struct emu *m, int job)
{
	int i = auto_at(m, job);

	if (m->jobs[job].klass != JOB_AUTO || (i < m->am.nauto && m->am.autos[i] == job))
		return;
	XGROW(m->am.autos, m->am.auto_cap, (size_t)m->am.nauto + 1);
	memmove(&m->am.autos[i + 1], &m->am.autos[i], (size_t)(m->am.nauto - i) *
	    sizeof *m->am.autos);
	m->am.autos[i] = job;
	m->am.nauto++;
}

static void
auto_remove(struct emu *m, int job)
{
	int i = auto_at(m, job);

	if (i == m->am.nauto || m->am.autos[i] != job)
		return;
	memmove(&m->am.autos[i], &m->am.autos[i + 1], (size_t)(m->am.nauto - i - 1) *
	    sizeof *m->am.autos);
	m->am.nauto--;
}

/* ---- joining and leaving GPUs ---- */

static void
set_gpus(struct emu *m, int job, const int *leaves, int n)
{
	struct ejob_state *x = &m->js[job];
	int i;

	free(x->gpus);
	x->gpus = xcalloc((size_t)n + 1, sizeof *x->gpus);
	for (i = 0; i < n; i++)
		x->gpus[i] = m->am.leaf_gpu[leaves[i]];
	x->ngpus = n;
	x->am_seq = ++m->am.seq;
	x->phase = 1;
	if (m->jobs[job].duration > 0) {
		double next;
		x->phase = (int)(model_phase(m->jobs[job].work_done, m->jobs[job].duration,
		    &next) - model_phases);
	}
}

static void
emu_am_start(struct emu *m, int job)
{
	struct engine_job_info info;
	struct ejob_state *x = &m->js[job];
	const struct job *j = &m->jobs[job];

	if (j->klass == JOB_GUARANTEED)
		m->am.gwait[j->vc]--;	/* it was pending: started */
	if (!engine_job(m->e, j->engine_id, &info))
		return;
	set_gpus(m, job, info.leaves, info.nleaves);
	x->am = false;
	x->c_host = j->gpus;
	x->c_lost = 0;
	m->am.host += x->c_host;
	jobs_gpus_dirty(m, job);
	emu_am_plan_phase(m, job);
}

static void
guest_remove(struct agpu *g, int job)
{
	int i;

	for (i = 0; i < g->ng && g->guests[i] != job; i++)
		;
	if (i == g->ng)
		return;
	memmove(&g->guests[i], &g->guests[i + 1], (size_t)(g->ng - i - 1) *
	    sizeof *g->guests);
	g->ng--;
}

/* Take the job's terms out of the sums and off its GPUs. */
static void
am_detach(struct emu *m, int job)
{
	struct ejob_state *x = &m->js[job];
	int i;

	for (i = 0; i < x->ngpus; i++) {
		if (x->am)
			guest_remove(&m->am.gpu[x->gpus[i]], job);
		gpu_dirty(m, x->gpus[i]);
	}
	if (x->am)
		auto_remove(m, job);
	m->am.busy -= x->c_busy;
	m->am.host -= x->c_host;
	m->am.lost -= x->c_lost;
	if (!x->am && x->ngpus > 0)
		m->am.freed = true;
	x->c_busy = x->c_host = x->c_lost = 0;
	free(x->gpus);
	x->gpus = NULL;
	x->ngpus = 0;
}

static void
emu_am_leave(struct emu *m, int job, bool completed)
{
	struct ejob_state *x = &m->js[job];

	if (x->ngpus == 0)
		return;
	if (x->am && completed)
		m->am.done++;
	am_detach(m, job);
	if (x->am)
		m->jobs[job].opportunistic = false;
	x->am = false;
	emu_mark(m, job);
}

static void
emu_am_node_bad(struct emu *m, int node, int cell, int name, int *why)
{
	int k, g;

	for (k = m->am.node_off[node]; k < m->am.node_off[node + 1]; k++) {
		g = m->am.node_gpu[k];
		while (m->am.gpu[g].ng > 0)
			emu_fail(m, m->am.gpu[g].guests[0], cell, name, why);
	}
}

static void
emu_am_integrate(struct emu *m, double t)
{
	double dt = t - m->busy_since;

	if (dt <= 0)
		return;
	m->am.int_sm += dt * m->am.sm;
	m->win_sm += fmax(0, fmin(t, m->win1) - fmax(m->busy_since, m->win0)) * m->am.sm;
	m->am.int_mem += dt * m->am.mem;
	m->am.int_host += dt * m->am.host;
	m->am.int_lost += dt * m->am.lost;
}

/* ---- planning GPUs ---- */

/* The emulator's job for engine job id, if it runs as a host; else -1. */
static int
host_of(const struct emu *m, int id)
{
	int job;

	if (id < 0 || (job = sched_job_of(m->sch, id)) < 0 ||
	    m->jobs[job].state != JOB_RUNNING || m->js[job].ngpus == 0)
		return -1;
	return job;
}

/* The running host of GPU g (a job holding its cell), or -1. */
static int
gpu_host(const struct emu *m, int g)
{
	int id, vc, bad;

	engine_leaf(m->e, m->am.gpu_leaf[g], &id, &vc, &bad);
	return host_of(m, id);
}

/* The users of GPU g in the order its plan takes them (out: nusers). */
static int
gpu_users(const struct emu *m, int g, int *out)
{
	const struct agpu *a = &m->am.gpu[g];
	int n = 0, i, k, h = gpu_host(m, g), v;

	if (h >= 0)
		out[n++] = h;
	for (i = 0; i < a->ng; i++)
		out[n++] = a->guests[i];
	/* plain packing: in order of arrival on the GPU, the host included */
	if (!m->par.opp_control)
		for (i = 1; i < n; i++) {
			v = out[i];
			for (k = i - 1; k >= 0 && m->js[out[k]].am_seq > m->js[v].am_seq; k--)
				out[k + 1] = out[k];
			out[k + 1] = v;
		}
	return n;
}

/* Plan GPU g afresh (grants only; utilization sums when `sums`). */
static void
plan_gpu(struct emu *m, int g, bool sums)
{
	struct agpu *a = &m->am.gpu[g];
	struct am_user *u;
	int *who, n, i;
	double smu = 0, mem = 0, decay;

	who = xcalloc((size_t)a->ng + 2, sizeof *who);
	n = gpu_users(m, g, who);
	u = xcalloc((size_t)n + 1, sizeof *u);
	XGROW(a->grant, a->grant_cap, (size_t)n + 1);
	XGROW(a->users, a->users_cap, (size_t)n + 1);
	memcpy(a->users, who, (size_t)n * sizeof *who);
	for (i = 0; i < n; i++) {
		u[i].host = !m->js[who[i]].am;
		u[i].model = model_of(m, &m->jobs[who[i]]) != NULL ? m->jobs[who[i]].model : -1;
		demand(m, who[i], &u[i].sm, &u[i].need);
	}
	am_plan_gpu(u, n, m->par.gpu_mem, m->par.opp_control, a->grant);
	a->nusers = n;
	for (a->host = -1, i = 0; i < n; i++)
		if (!m->js[who[i]].am)
			a->host = who[i];
	for (i = 0; i < n; i++) {
		smu += a->grant[i].sm;
		mem += a->grant[i].mem;
	}
	if (sums) {
		/* the average so far, then the new level */
		decay = m->par.opp_window > 0 ? exp(-(m->now - a->util_t) / m->par.opp_window) : 0;
		a->util_avg = a->util_now + (a->util_avg - a->util_now) * decay;
		a->util_t = m->now;
		m->am.sm += smu - a->util_now;
		m->am.mem += mem - a->mem_now;
		a->util_now = smu;
		a->mem_now = mem;
		a->load_ok = false;
		cand_set(m, g);
	}
	free(u);
	free(who);
}

/* Job's grant in GPU g's last plan, or NULL. */
static const struct am_grant *
grant_of(const struct emu *m, int g, int job)
{
	const struct agpu *a = &m->am.gpu[g];
	int i;

	for (i = 0; i < a->nusers; i++)
		if (a->users[i] == job)
			return &a->grant[i];
	return NULL;
}

/* Guests granted something in GPU g's last plan. */
static int
running_guests(const struct emu *m, int g)
{
	const struct agpu *a = &m->am.gpu[g];
	int i, n = 0;

	for (i = 0; i < a->nusers; i++)
		n += a->users[i] != a->host && a->grant[i].factor > 0;
	return n;
}

static int
cmp_job(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* A job ran out of memory (plain packing): it fails for good. */
static void
oom(struct emu *m, int job)
{
	emu_account(m, job);
	emu_apply(m, job, JOB_EV_FAIL);
	emu_log(m, REC_FAIL, job, -1, emu_detail_add(m, "out of memory"));
	emu_am_leave(m, job, false);
	sched_release(m->sch, job);
	m->js[job].ver++;
	m->am.ooms++;
	emu_mark(m, job);
}

/* Give a job what its GPUs' plans say: speed, share, pause or resume. */
static void
apply_plan(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	const struct am_grant *gr;
	double f = 1, share = 0, k;
	bool out_of_memory = false;
	int i, g;

	if (x->ngpus == 0)
		return;
	for (i = 0; i < x->ngpus; i++) {
		g = x->gpus[i];
		if ((gr = grant_of(m, g, job)) == NULL)
			continue;
		out_of_memory |= gr->oom;
		f = fmin(f, gr->factor);
		if (x->am && m->am.gpu[g].host < 0 && gr->factor > 0 &&
		    (k = running_guests(m, g)) > 0)
			share += 1 / k;
	}
	if (out_of_memory) {
		oom(m, job);
		return;
	}
	if (!x->am) {
		m->am.lost -= x->c_lost;
		x->c_lost = j->gpus * (1 - f);
		m->am.lost += x->c_lost;
		if (f != x->factor)
			emu_set_speed(m, job, f, 1);
		return;
	}
	share /= x->ngpus;
	m->am.busy -= x->c_busy;
	x->c_busy = 0;
	if (f <= 0) {
		if (j->state == JOB_RUNNING)
			emu_suspend(m, job);	/* paused: its memory on the host */
		return;
	}
	if (j->state == JOB_SUSPENDED)
		emu_resume(m, job, f, share);
	else if (f != x->factor || share != x->share)
		emu_set_speed(m, job, f, share);
	x->c_busy = j->gpus * share;
	m->am.busy += x->c_busy;
}

/* Plan every dirty GPU, then give their users what the plans say. */
static void
replan(struct emu *m)
{
	int *gpus, n, i, k, *jobs = NULL, nj = 0;
	size_t cap = 0;

	while (m->am.ndirty > 0) {
		n = m->am.ndirty;
		gpus = xcalloc((size_t)n, sizeof *gpus);
		memcpy(gpus, m->am.dirty, (size_t)n * sizeof *gpus);
		m->am.ndirty = 0;
		nj = 0;
		for (i = 0; i < n; i++) {
			struct agpu *a = &m->am.gpu[gpus[i]];
			a->dirty = false;
			plan_gpu(m, gpus[i], true);
			for (k = 0; k < a->nusers; k++) {
				int q;
				for (q = 0; q < nj && jobs[q] != a->users[k]; q++)
					;
				if (q == nj) {
					XGROW(jobs, cap, (size_t)nj + 1);
					jobs[nj++] = a->users[k];
				}
			}
		}
		/* by job id: the same order whatever the dirty list's */
		if (nj > 1)
			qsort(jobs, (size_t)nj, sizeof *jobs, cmp_job);
		for (k = 0; k < nj; k++)
			apply_plan(m, jobs[k]);
		free(gpus);
	}
	free(jobs);
}

/* ---- placing opportunistic jobs ---- */

/* GPU g's SM load for placement: the window's average, or now if higher
   (guests placed this tick have not moved the average yet). */
static double
load_of(const struct emu *m, int g)
{
	const struct agpu *a = &m->am.gpu[g];
	double decay = m->par.opp_window > 0 ?
	    exp(-(m->now - a->util_t) / m->par.opp_window) : 0;

	return fmax(a->util_now, a->util_now + (a->util_avg - a->util_now) * decay);
}

/* load_of, kept until the clock moves or g is planned again. */
static double
gpu_load(struct emu *m, int g)
{
	struct agpu *a = &m->am.gpu[g];

	if (!a->load_ok || a->load_t != m->now) {
		a->load = load_of(m, g);
		a->load_t = m->now;
		a->load_ok = true;
	}
	return a->load;
}

/* Whether `lo` GiB more fit on GPU g beside host h (-1) and its guests. */
static bool
mem_fits(const struct emu *m, int g, int h, double lo)
{
	const struct agpu *a = &m->am.gpu[g];
	double used = 0, sm, need;
	int i;

	if (h >= 0) {
		demand(m, h, &sm, &need);
		used += need;
	}
	for (i = 0; i < a->ng; i++)
		used += mem_min(m, a->guests[i]);
	return used + lo <= m->par.gpu_mem + 1e-9;
}

/*
 * Can job j go on GPU g as a guest (needing `lo` GiB there)? Its load if
 * so, with in *dist how far g is from j's VC, for an upgrade in place
 * later: 0 when the nearest bound cell holding it (the leaf or an
 * ancestor: the leaf's engine vc) is bound to j's VC, 1 when none is, 2
 * when another VC's is (its cells can never become j's while bound
 * there). Else -2.
 */
static double
eligible(struct emu *m, const struct job *j, int g, double lo, int *dist)
{
	int leaf = m->am.gpu_leaf[g], id, vc, bad;
	double load;

	if (j->leaf_type >= 0 && m->s->cells[leaf].type != j->leaf_type)
		return -2;
	engine_leaf(m->e, leaf, &id, &vc, &bad);
	/* private mode: a VC alone on its cells, guests too (before the load:
	   it costs an exp once per GPU and tick) */
	if (bad > 0 || (engine_mode(m->e) == ENGINE_PRIVATE && vc != j->vc))
		return -2;
	if ((load = gpu_load(m, g)) >= m->par.opp_threshold)
		return -2;
	if (!mem_fits(m, g, host_of(m, id), lo))
		return -2;
	*dist = vc < 0 ? 1 : vc == j->vc ? 0 : 2;
	return load;
}

/* GPU a before GPU b for a guest: less loaded, then nearer its VC, then lower. */
static bool
gpu_before(int a, int b, const double *load, const int *dist)
{
	if (load[a] != load[b])
		return load[a] < load[b];
	if (dist[a] != dist[b])
		return dist[a] < dist[b];
	return a < b;
}

/* Move the `want` first GPUs of cand[0..nc) to the front (selection; pods are
   small); returns their load and VC distance summed in *cost and *dist. */
static void
select_gpus(int *cand, int nc, int want, const double *load, const int *gdist,
    double *cost, long *dist)
{
	int a, b, t;

	*cost = 0;
	*dist = 0;
	for (a = 0; a < want; a++) {
		for (b = a + 1; b < nc; b++)
			if (gpu_before(cand[b], cand[a], load, gdist)) {
				t = cand[a];
				cand[a] = cand[b];
				cand[b] = t;
			}
		*cost += load[cand[a]];
		*dist += gdist[cand[a]];
	}
}

/*
 * A floor under the cost place() would find on node for `want` GPUs: the
 * sum of the `want` smallest SM uses now among its candidate GPUs not
 * taken, summed in increasing order as select_gpus sums loads. A GPU's
 * load is never below its use now (load_of), the eligible GPUs are among
 * these, and rounded sums keep the order of their terms, so a node whose
 * floor exceeds the best cost so far cannot win or tie: place() skips it
 * without the exp, the engine and the memory test per GPU. INFINITY when
 * fewer than `want` (then no GPU set fits there either).
 */
static double
node_floor(const struct emu *m, int node, int want, unsigned st)
{
	double u[64], sum = 0, t;
	int i, k, n = 0;

	for (i = m->am.node_off[node]; i < m->am.node_off[node + 1]; i++) {
		int g = m->am.node_gpu[i];
		if (!m->am.gpu[g].cand || m->am.taken[g] == st)
			continue;
		if (n == 64)
			return 0;	/* a node this big: no floor */
		u[n++] = m->am.gpu[g].util_now;
	}
	if (n < want)
		return INFINITY;
	for (k = 0; k < want; k++) {
		for (i = k + 1; i < n; i++)
			if (u[i] < u[k]) {
				t = u[k];
				u[k] = u[i];
				u[i] = t;
			}
		sum += u[k];
	}
	return sum;
}

/* A new stamp for place()'s scratch (all stale after a wrap). */
static unsigned
stamp(struct emu *m)
{
	if (++m->am.serial == 0) {
		memset(m->am.taken, 0, (size_t)m->am.ngpu * sizeof *m->am.taken);
		memset(m->am.seen, 0, (size_t)m->am.ngpu * sizeof *m->am.seen);
		m->am.serial = 1;
	}
	return m->am.serial;
}

/*
 * Choose GPUs for a guest: each pod on one node, the node whose
 * least-loaded eligible GPUs are least loaded, then nearest the job's VC
 * (AntMan's least-loaded rule first; among equals, GPUs the VC could bind
 * let a later upgrade happen in place), then the lowest node; those GPUs.
 * Only cand GPUs of nodes with enough of them are looked at (the index:
 * the others are not eligible), and not those of a node whose floor
 * (node_floor) is above the best cost found. Returns the number of GPUs
 * (leaves in out), 0 if none fit.
 */
static int
place(struct emu *m, int job, int *out)
{
	const struct job *j = &m->jobs[job];
	const struct spec *s = m->s;
	unsigned st = stamp(m);
	unsigned *taken = m->am.taken, *seen = m->am.seen;
	int *cand = m->am.cand, *dist = m->am.dist;
	double *load = m->am.load;
	double lo = mem_min(m, job), cost;
	long d;
	int k, p, node, i, a, n = 0, ok = 1;

	for (k = 0; k < j->nmembers && ok; k++)
		for (p = 0; p < j->members[k].pods && ok; p++) {
			int want = j->members[k].gpus, best = -1, nc;
			double best_cost = INFINITY;
			long best_dist = 0;
			for (node = 0; node < s->nnodes; node++) {
				if (m->am.node_cand[node] < want || (best >= 0 &&
				    node_floor(m, node, want, st) > best_cost))
					continue;
				nc = 0;
				for (i = m->am.node_off[node]; i < m->am.node_off[node + 1]; i++) {
					int g = m->am.node_gpu[i];
					if (!m->am.gpu[g].cand || taken[g] == st)
						continue;
					if (seen[g] != st) {
						seen[g] = st;
						load[g] = eligible(m, j, g, lo, &dist[g]);
					}
					if (load[g] >= 0)
						cand[nc++] = g;
				}
				if (nc < want)
					continue;
				select_gpus(cand, nc, want, load, dist, &cost, &d);
				if (cost < best_cost || (cost == best_cost && d < best_dist)) {
					best_cost = cost;
					best_dist = d;
					best = node;
				}
			}
			if (best < 0) {
				ok = 0;
				break;
			}
			/* again on the best node, to take its GPUs */
			nc = 0;
			for (i = m->am.node_off[best]; i < m->am.node_off[best + 1]; i++) {
				int g = m->am.node_gpu[i];
				if (m->am.gpu[g].cand && taken[g] != st && seen[g] == st && load[g] >= 0)
					cand[nc++] = g;
			}
			select_gpus(cand, nc, want, load, dist, &cost, &d);
			for (a = 0; a < want; a++) {
				taken[cand[a]] = st;
				out[n++] = m->am.gpu_leaf[cand[a]];
			}
		}
	return ok ? n : 0;
}

/* ---- the reference: place() as a scan of every GPU (emu_am_check) ---- */

static bool
scan_eligible(const struct emu *m, const struct job *j, int g, double lo)
{
	struct engine_cell_info ci;
	int leaf = m->am.gpu_leaf[g];

	if (j->leaf_type >= 0 && m->s->cells[leaf].type != j->leaf_type)
		return false;
	engine_cell(m->e, leaf, &ci);
	if (ci.bad > 0 || load_of(m, g) >= m->par.opp_threshold)
		return false;
	if (engine_mode(m->e) == ENGINE_PRIVATE && ci.vc != j->vc)
		return false;
	return mem_fits(m, g, ci.job < 0 ? -1 : host_of(m, ci.job), lo);
}

/* The VC distance by walking up to the nearest bound cell. */
static int
scan_vc_distance(const struct emu *m, const struct job *j, int g)
{
	struct engine_cell_info ci;
	int c;

	for (c = m->am.gpu_leaf[g]; c >= 0; c = m->s->cells[c].parent) {
		engine_cell(m->e, c, &ci);
		if (ci.vc >= 0)
			return ci.vc == j->vc ? 0 : 2;
	}
	return 1;
}

static int
scan_place(const struct emu *m, int job, int *out)
{
	const struct job *j = &m->jobs[job];
	const struct spec *s = m->s;
	bool *taken = xcalloc((size_t)m->am.ngpu + 1, sizeof *taken);
	int *cand = xcalloc((size_t)m->am.ngpu + 1, sizeof *cand);
	double *load = xcalloc((size_t)m->am.ngpu + 1, sizeof *load);
	int *dist = xcalloc((size_t)m->am.ngpu + 1, sizeof *dist);
	double lo = mem_min(m, job), cost;
	long d;
	int k, p, node, i, a, n = 0, ok = 1;

	for (i = 0; i < m->am.ngpu; i++)
		load[i] = -1;
	for (k = 0; k < j->nmembers && ok; k++)
		for (p = 0; p < j->members[k].pods && ok; p++) {
			int want = j->members[k].gpus, best = -1, nc;
			double best_cost = INFINITY;
			long best_dist = 0;
			for (node = 0; node < s->nnodes; node++) {
				nc = 0;
				for (i = m->am.node_off[node]; i < m->am.node_off[node + 1]; i++) {
					int g = m->am.node_gpu[i];
					if (taken[g])
						continue;
					if (load[g] == -1) {
						load[g] = scan_eligible(m, j, g, lo) ? load_of(m, g) : -2;
						if (load[g] >= 0)
							dist[g] = scan_vc_distance(m, j, g);
					}
					if (load[g] >= 0)
						cand[nc++] = g;
				}
				if (nc < want)
					continue;
				select_gpus(cand, nc, want, load, dist, &cost, &d);
				if (cost < best_cost || (cost == best_cost && d < best_dist)) {
					best_cost = cost;
					best_dist = d;
					best = node;
				}
			}
			if (best < 0) {
				ok = 0;
				break;
			}
			nc = 0;
			for (i = m->am.node_off[best]; i < m->am.node_off[best + 1]; i++)
				if (!taken[m->am.node_gpu[i]] && load[m->am.node_gpu[i]] >= 0)
					cand[nc++] = m->am.node_gpu[i];
			select_gpus(cand, nc, want, load, dist, &cost, &d);
			for (a = 0; a < want; a++) {
				taken[cand[a]] = true;
				out[n++] = m->am.gpu_leaf[cand[a]];
			}
		}
	free(taken);
	free(cand);
	free(load);
	free(dist);
	return ok ? n : 0;
}

int
emu_am_check(struct emu *m, char *why, size_t len)
{
	int *a, *b, g, node, i, na, nb, *count, rc = 0, compared = 0;

	if (!m->am.on)
		return 0;
	count = xcalloc((size_t)m->s->nnodes + 1, sizeof *count);
	for (g = 0; g < m->am.ngpu && rc == 0; g++) {
		const struct agpu *x = &m->am.gpu[g];
		if (x->cand != (x->util_now < m->par.opp_threshold)) {
			bufprintf(why, len, "GPU %d: cand %d with SM use %g", g, x->cand, x->util_now);
			rc = -1;
		} else if (x->load_ok && x->load_t == m->now && x->load != load_of(m, g)) {
			bufprintf(why, len, "GPU %d: cached load %g, not %g", g, x->load, load_of(m, g));
			rc = -1;
		}
		if ((node = gpu_node(m, g)) >= 0 && x->cand)
			count[node]++;
	}
	for (node = 0; node < m->s->nnodes && rc == 0; node++)
		if (count[node] != m->am.node_cand[node]) {
			bufprintf(why, len, "node '%s': %d candidate GPUs, index says %d",
			    m->s->nodes[node].name, count[node], m->am.node_cand[node]);
			rc = -1;
		}
	free(count);
	/* upgrades()'s lists against a walk of every job */
	count = xcalloc((size_t)m->s->nvcs + 1, sizeof *count);
	for (i = 0, na = 0; i < m->njobs && rc == 0; i++) {
		const struct job *j = &m->jobs[i];
		if (j->state == JOB_PENDING && j->klass == JOB_GUARANTEED && j->submit <= m->horizon)
			count[j->vc]++;
		if (!m->js[i].am || j->klass != JOB_AUTO)
			continue;
		if (na >= m->am.nauto || m->am.autos[na] != i) {
			bufprintf(why, len, "job '%s': an auto guest, not listed as %d", j->name, na);
			rc = -1;
		}
		na++;
	}
	if (rc == 0 && na != m->am.nauto) {
		bufprintf(why, len, "%d auto guests listed, %d running", m->am.nauto, na);
		rc = -1;
	}
	for (i = 0; i < m->s->nvcs && rc == 0; i++)
		if (count[i] != m->am.gwait[i]) {
			bufprintf(why, len, "vc '%s': %d guaranteed jobs waiting, counted %d",
			    m->s->vcs[i].name, count[i], m->am.gwait[i]);
			rc = -1;
		}
	free(count);
	a = xcalloc((size_t)m->am.ngpu + 1, sizeof *a);
	b = xcalloc((size_t)m->am.ngpu + 1, sizeof *b);
	/* every pending job, as if it were placed now */
	for (i = 0; i < m->njobs && rc == 0; i++) {
		if (m->jobs[i].state != JOB_PENDING || m->jobs[i].submit > m->now)
			continue;
		na = place(m, i, a);
		nb = scan_place(m, i, b);
		if (na != nb || memcmp(a, b, (size_t)na * sizeof *a) != 0) {
			bufprintf(why, len, "job '%s': index placed %d GPUs (first leaf %d), "
			    "the scan %d (first leaf %d)", m->jobs[i].name, na,
			    na > 0 ? a[0] : -1, nb, nb > 0 ? b[0] : -1);
			rc = -1;
		}
		compared++;
	}
	free(a);
	free(b);
	return rc < 0 ? rc : compared;
}

/* Where a guest runs: its nodes as a hostlist, "(opportunistic)". */
static int
detail_leaves(struct emu *m, const int *leaves, int n)
{
	char **names = xcalloc((size_t)n + 1, sizeof *names), *hl, *text;
	int i, k, nn = 0, off, node;

	for (i = 0; i < n; i++) {
		node = m->s->cells[leaves[i]].node;
		if (node < 0)
			continue;
		for (k = 0; k < nn && strcmp(names[k], m->s->nodes[node].name) != 0; k++)
			;
		if (k == nn)
			names[nn++] = (char *)m->s->nodes[node].name;
	}
	hl = hostlist_compress(names, (size_t)nn);
	text = xasprintf("%s (opportunistic)", hl);
	off = emu_detail_add(m, text);
	free(text);
	free(hl);
	free(names);
	return off;
}

/* Start a pending job as a guest on `leaves`. */
static void
guest_start(struct emu *m, int job, const int *leaves, int n)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	const struct model *md = model_of(m, j);
	double restore = j->restarts > 0 && md != NULL ?
	    m->par.cost_scale * md->ckpt_restore : 0;
	int i;

	sched_take(m->sch, job);
	emu_apply(m, job, JOB_EV_START);
	j->opportunistic = true;
	x->since = m->now;
	x->stall_until = m->now + restore;
	x->costs += restore;
	set_gpus(m, job, leaves, n);
	x->am = true;
	auto_add(m, job);
	x->alone = md != NULL ? md->speed[emu_locality(m->s, leaves, n)] : 1;
	x->factor = x->share = 1;
	x->speed = x->alone;
	for (i = 0; i < n; i++) {
		struct agpu *a = &m->am.gpu[x->gpus[i]];
		XGROW(a->guests, a->cap, (size_t)a->ng + 1);
		a->guests[a->ng++] = job;
		gpu_dirty(m, x->gpus[i]);
	}
	m->am.guests++;
	emu_log(m, REC_START, job, -1, detail_leaves(m, leaves, n));
	emu_set_speed(m, job, 1, 1);
}

/* ---- upgrades ---- */

static bool
same_gpus(const struct ejob_state *x, const struct engine_job_info *info,
    const struct emu *m)
{
	int i, k;

	if (info->nleaves != x->ngpus)
		return false;
	for (i = 0; i < info->nleaves; i++) {
		for (k = 0; k < x->ngpus && x->gpus[k] != m->am.leaf_gpu[info->leaves[i]]; k++)
			;
		if (k == x->ngpus)
			return false;
	}
	return true;
}

/*
 * The scheduler's placement hook under antman (sched_on_place): a guest
 * being upgraded asks the engine for the very GPUs it runs on, in its
 * pods. The engine binds them to cells of the guest's VC (engine_adopt:
 * quota, the VC's assignment and sharing safety are still its own) or
 * refuses (a host holds one, they are outside what the VC may bind, it
 * would be unsafe); then -1, and the engine places the job its own way
 * and the guest migrates there. Any other start: -1, the engine's way.
 */
static int
emu_am_place(void *arg, int job, const struct engine_req *r)
{
	struct emu *m = arg;
	const struct ejob_state *x = &m->js[job];
	int *leaves, *pf, np = 0, n = 0, i, k, p, chain, id = -1;
	char why[256];

	if (!x->am || x->ngpus == 0 || r->priority < 0 || r->pin >= 0)
		return -1;
	for (k = 0; k < r->nmembers; k++)
		np += r->members[k].pods;
	pf = xcalloc((size_t)np + 1, sizeof *pf);
	leaves = xcalloc((size_t)x->ngpus + 1, sizeof *leaves);
	/* the guest's GPUs are in its members' pod order (place) */
	for (np = 0, k = 0; k < r->nmembers; k++)
		for (p = 0; p < r->members[k].pods; p++) {
			pf[np++] = n;
			n += r->members[k].gpus;
		}
	pf[np] = n;
	chain = m->s->cells[m->am.gpu_leaf[x->gpus[0]]].chain;
	for (i = 0; i < x->ngpus; i++) {
		leaves[i] = m->am.gpu_leaf[x->gpus[i]];
		if (m->s->cells[leaves[i]].chain != chain)
			n = -1;		/* across chains: no cells can hold it */
	}
	if (n == x->ngpus)
		id = engine_adopt(m->e, r, chain, pf, np, leaves, n, why, sizeof why);
	free(pf);
	free(leaves);
	return id;
}

/*
 * Debug builds try what upgrades() skips and stop if it would have
 * worked: the skip must change nothing but the work.
 */
static void
check_fails(struct emu *m, int job)
{
#ifdef CELLAR_DEBUG
	struct sched_action *acts = NULL;
	int nacts = 0, cap = 0;

	if (sched_start_now(m->sch, job, &acts, &nacts, &cap))
		fatal("emu: upgrade of '%s' skipped, but it fits", m->jobs[job].name);
	free(acts);
#else
	(void)m;
	(void)job;
#endif
}

/*
 * What a failed upgrade attempt depends on besides the engine: the
 * request the scheduler makes of it (VC, class, shape, leaf type, soft
 * affinity). A second guest with the same within one upgrades() pass,
 * with no upgrade between, fails the same way (its in-place try needs
 * a cell of the same level in the same VC view), so it is not asked.
 */
struct am_try {
	int			 vc, klass, leaf_type, nmembers;
	bool			 soft;
	struct engine_member	 members[ENGINE_MAX_MEMBERS];
	enum job_reason		 reason;	/* the one the failure gave */
};

static void
try_of(const struct emu *m, int job, struct am_try *t)
{
	const struct job *j = &m->jobs[job];
	struct policy_key key;

	memset(t, 0, sizeof *t);
	sched_job_key(m->sch, job, &key, &t->klass);
	t->vc = j->vc;
	t->leaf_type = j->leaf_type;
	t->soft = j->soft_affinity;
	t->nmembers = j->nmembers;
	memcpy(t->members, j->members, (size_t)j->nmembers * sizeof *t->members);
}

static bool
try_same(const struct am_try *a, const struct am_try *b)
{
	return a->vc == b->vc && a->klass == b->klass && a->leaf_type == b->leaf_type &&
	    a->soft == b->soft && a->nmembers == b->nmembers &&
	    memcmp(a->members, b->members, (size_t)a->nmembers * sizeof *a->members) == 0;
}

/* An auto guest gets cells of its own: guaranteed from now on. */
static bool
upgrade(struct emu *m, int job)
{
	struct sched_action *acts = NULL;
	struct engine_job_info info;
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	int nacts = 0, cap = 0, k;
	bool moved;
	double c;

	if (!sched_start_now(m->sch, job, &acts, &nacts, &cap)) {
		free(acts);
		return false;
	}
	for (k = 0; k < nacts; k++)
		if (acts[k].kind == SCHED_PREEMPT)
			emu_preempt(m, acts[k].job, acts[k].by);
		else if (acts[k].kind == SCHED_DOWNGRADE) {
			emu_log(m, REC_DOWNGRADE, acts[k].job, acts[k].by, -1);
			emu_mark(m, acts[k].job);
		}
	free(acts);
	emu_account(m, job);
	engine_job(m->e, j->engine_id, &info);
	moved = !same_gpus(x, &info, m);
	am_detach(m, job);
	x->am = false;
	set_gpus(m, job, info.leaves, info.nleaves);
	x->c_host = j->gpus;
	m->am.host += x->c_host;
	jobs_gpus_dirty(m, job);
	m->am.upgrades++;
	emu_log(m, REC_UPGRADE, job, -1, emu_detail_nodes(m, j));
	if (j->state == JOB_SUSPENDED)
		emu_apply(m, job, JOB_EV_RESUME);
	if (moved) {
		m->am.moved++;
		c = emu_model_cost(m, j, true);
		x->stall_until = fmax(x->stall_until, m->now) + c;
		x->migcost += c;
		x->migrations++;
		emu_log(m, REC_MIGRATE, job, -1, emu_detail_nodes(m, j));
	}
	x->alone = emu_job_speed(m, j);
	emu_set_speed(m, job, 1, 1);
	return true;
}

/*
 * Upgrade auto guests of VCs with quota free and no guaranteed job
 * waiting, in job id order. The candidates are am_auto and the waiting
 * counts am_gwait (a walk of every job per departure made AntMan's full
 * Philly replay quadratic); an upgrade takes its job out of am_auto, so
 * the walk goes by the next id above the last one visited.
 */
static void
upgrades(struct emu *m)
{
	int *waiting = xcalloc((size_t)m->s->nvcs + 1, sizeof *waiting), i, at;
	/* each VC's free quota, asked once until an upgrade changes the engine */
	long long *vfree = xcalloc((size_t)m->s->nvcs + 1, sizeof *vfree);
	bool *known = xcalloc((size_t)m->s->nvcs + 1, sizeof *known);
	struct engine_vc_usage u;
	const struct job *j;
	struct am_try *failed = NULL, t;
	int nfailed = 0, k;
	size_t fcap = 0;

	/* as they are now: preempted victims are not pending until requeued */
	memcpy(waiting, m->am.gwait, (size_t)m->s->nvcs * sizeof *waiting);
	for (at = 0; at < m->am.nauto; at = auto_at(m, i + 1)) {
		i = m->am.autos[at];
		j = &m->jobs[i];
		if (waiting[j->vc] > 0)
			continue;
		if (!known[j->vc]) {
			engine_vc_usage(m->e, j->vc, &u);
			vfree[j->vc] = u.free;
			known[j->vc] = true;
		}
		if (vfree[j->vc] < j->gpus)
			continue;
		try_of(m, i, &t);
		for (k = 0; k < nfailed && !try_same(&failed[k], &t); k++)
			;
		if (k < nfailed) {
			/* the reason its own attempt would give it */
			if (m->jobs[i].reason != failed[k].reason) {
				m->jobs[i].reason = failed[k].reason;
				emu_mark(m, i);
			}
			check_fails(m, i);
			m->am.skips++;
			continue;
		}
		if (!upgrade(m, i)) {
			t.reason = m->jobs[i].reason;
			XGROW(failed, fcap, (size_t)nfailed + 1);
			failed[nfailed++] = t;
			continue;
		}
		replan(m);
		memset(known, 0, (size_t)m->s->nvcs * sizeof *known);
		nfailed = 0;	/* the engine changed */
	}
	free(failed);
	free(waiting);
	free(vfree);
	free(known);
}

static void
emu_am_tick(struct emu *m)
{
	int i, n, fails = 0, *leaves = NULL;

	replan(m);
	if (m->am.freed) {
		m->am.freed = false;
		upgrades(m);
	}
	/* the waiting list: pending jobs only, then place in order */
	for (n = 0, i = 0; i < m->am.nwait; i++)
		if (m->jobs[m->am.wait[i]].state == JOB_PENDING)
			m->am.wait[n++] = m->am.wait[i];
	m->am.nwait = n;
	if (m->am.nwait > 0)
		leaves = xcalloc((size_t)m->am.ngpu + 1, sizeof *leaves);
	for (i = 0; i < m->am.nwait && fails < AM_TRIES; i++) {
		int job = m->am.wait[i], ng;
		if ((ng = place(m, job, leaves)) == 0) {
			fails++;
			continue;
		}
		memmove(&m->am.wait[i], &m->am.wait[i + 1], (size_t)(m->am.nwait - i - 1) *
		    sizeof *m->am.wait);
		m->am.nwait--;
		i--;
		guest_start(m, job, leaves, ng);
		replan(m);
	}
	free(leaves);
	replan(m);
}

/* ---- restore ---- */

static int
cmp_seq_job(const void *a, const void *b, const struct emu *m)
{
	long long x = m->js[*(const int *)a].am_seq, y = m->js[*(const int *)b].am_seq;

	return (x > y) - (x < y);
}

static int
emu_am_restore(struct emu *m, char *why, size_t len)
{
	int i, k, g;

	for (i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		const struct ejob_state *x = &m->js[i];
		if (x->ngpus == 0)
			continue;
		if (!job_holds_cells(j) || x->ngpus != j->gpus ||
		    (!x->am && j->engine_id < 0)) {
			bufprintf(why, len, "job '%s' (%s) cannot run on %d GPUs as %s",
			    j->name, job_state_name(j->state), x->ngpus,
			    x->am ? "a guest" : "a host");
			return -1;
		}
		if (!x->am)
			continue;
		auto_add(m, i);
		for (k = 0; k < x->ngpus; k++) {
			struct agpu *a = &m->am.gpu[x->gpus[k]];
			int q;
			XGROW(a->guests, a->cap, (size_t)a->ng + 1);
			/* in order of arrival: insertion by am_seq */
			for (q = a->ng; q > 0 && cmp_seq_job(&a->guests[q - 1], &i, m) > 0; q--)
				a->guests[q] = a->guests[q - 1];
			a->guests[q] = i;
			a->ng++;
		}
	}
	for (g = 0; g < m->am.ngpu; g++)
		plan_gpu(m, g, false);
	cand_all(m);
	for (i = 0; i < m->njobs; i++)
		if (m->jobs[i].state == JOB_PENDING && m->jobs[i].submit <= m->horizon)
			emu_am_submit(m, i);
	return 0;
}

/* ---- the mechanism's hooks ---- */

static bool
antman_init(struct emu *m)
{
	m->am.on = (m->p->ops->flags & POLICY_OPPSHARE) != 0;
	if (m->am.on)
		emu_am_init(m);
	return m->am.on;
}

static void
antman_leave(struct emu *m, int job, enum emu_leave why)
{
	emu_am_leave(m, job, why == EMU_LEAVE_FINISH);
}

static void
antman_event(struct emu *m, const struct ev *x)
{
	if (x->kind == EV_PHASE && x->ver == m->js[x->arg].ver &&
	    m->jobs[x->arg].state == JOB_RUNNING)
		emu_am_phase(m, x->arg);
}

static double
antman_busy(const struct emu *m)
{
	return m->am.busy;
}

static bool
antman_tick(struct emu *m)
{
	emu_am_tick(m);
	return false;
}

/* Version 3 of the run blob: the sums and GPUs (none when off); 5: moves. */
static void
antman_save(const struct emu *m, int section, struct strbuf *out)
{
	int i;

	if (section == 5) {
		pack_i64(out, m->am.moved);
		return;
	}
	if (section != 3)
		return;
	pack_i64(out, m->am.seq);
	pack_f64(out, m->am.busy);
	pack_f64(out, m->am.host);
	pack_f64(out, m->am.lost);
	pack_f64(out, m->am.sm);
	pack_f64(out, m->am.mem);
	pack_f64(out, m->am.int_sm);
	pack_f64(out, m->am.int_mem);
	pack_f64(out, m->am.int_host);
	pack_f64(out, m->am.int_lost);
	pack_i64(out, m->am.done);
	pack_i64(out, m->am.upgrades);
	pack_i64(out, m->am.ooms);
	pack_i64(out, m->am.guests);
	pack_i32(out, m->am.on ? m->am.ngpu : 0);
	for (i = 0; m->am.on && i < m->am.ngpu; i++) {
		pack_f64(out, m->am.gpu[i].util_avg);
		pack_f64(out, m->am.gpu[i].util_t);
		pack_f64(out, m->am.gpu[i].util_now);
		pack_f64(out, m->am.gpu[i].mem_now);
	}
}

/* The sums and GPUs as stored, guest lists and plans rebuilt. */
static int
antman_restore(struct emu *m, const struct emu_run_state *rs, char *why, size_t len)
{
	int i;

	if (!m->am.on) {
		for (i = 0; i < m->njobs; i++)
			if (m->js[i].am || m->js[i].ngpus > 0) {
				bufprintf(why, len, "job '%s' shares GPUs as AntMan does, "
				    "policy '%s' does not", m->jobs[i].name, m->p->ops->name);
				return -1;
			}
		return 0;
	}
	if (rs->ngpu != 0 && rs->ngpu != m->am.ngpu) {
		bufprintf(why, len, "run state: %d GPUs, the spec has %d", rs->ngpu,
		    m->am.ngpu);
		return -1;
	}
	m->am.seq = rs->am_seq;
	m->am.busy = rs->am[0];
	m->am.host = rs->am[1];
	m->am.lost = rs->am[2];
	m->am.sm = rs->am[3];
	m->am.mem = rs->am[4];
	m->am.int_sm = rs->am[5];
	m->am.int_mem = rs->am[6];
	m->am.int_host = rs->am[7];
	m->am.int_lost = rs->am[8];
	m->am.done = rs->am_done;
	m->am.upgrades = rs->am_upgrades;
	m->am.moved = rs->am_moved;
	m->am.ooms = rs->am_ooms;
	m->am.guests = rs->am_guests;
	for (i = 0; i < rs->ngpu; i++) {
		m->am.gpu[i].util_avg = rs->gpu[4 * i];
		m->am.gpu[i].util_t = rs->gpu[4 * i + 1];
		m->am.gpu[i].util_now = rs->gpu[4 * i + 2];
		m->am.gpu[i].mem_now = rs->gpu[4 * i + 3];
	}
	return emu_am_restore(m, why, len);
}

static void
antman_report(const struct emu *m, struct emu_report *r)
{
	r->opp_shared = m->am.on;
	if (m->am.on && r->makespan > 0 && m->s->gpus > 0) {
		r->sm_util = m->am.int_sm / ((double)m->s->gpus * r->makespan);
		if (m->par.gpu_mem > 0)
			r->mem_util = m->am.int_mem / ((double)m->s->gpus * m->par.gpu_mem *
			    r->makespan);
	}
	r->interference = m->am.int_host > 0 ? m->am.int_lost / m->am.int_host : 0;
	r->opp_guests = m->am.guests;
	r->opp_done = m->am.done;
	r->upgrades = m->am.upgrades;
	r->upgrade_skips = m->am.skips;
	r->upgrades_moved = m->am.moved;
	r->ooms = m->am.ooms;
}

const struct emu_mech emu_antman_mech = {
	.name = "antman",
	.init = antman_init,
	.free = emu_am_free,
	.submit = emu_am_submit,
	.start = emu_am_start,
	.planned = emu_am_plan_phase,
	.leave = antman_leave,
	.node_bad = emu_am_node_bad,
	.event = antman_event,
	.integrate = emu_am_integrate,
	.busy = antman_busy,
	.tick = antman_tick,
	.place = emu_am_place,
	.save = antman_save,
	.restore = antman_restore,
	.report = antman_report,
	.flags = EMU_MECH_OWN_SM,
};
