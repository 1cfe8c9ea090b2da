/*
 * emu.c — the emulated cluster. See emu.h.
 *
 * The loop: pop every event due at time t, apply each (arrivals, finishes,
 * re-keys, failures...), then run one scheduler pass and carry out its
 * actions: one tick. Events that a later change made stale (a finish
 * computed before a preemption) carry the job's version and are dropped
 * when it moved on.
 *
 * Beside the run, the emulator keeps what a store needs to follow it: a
 * journal of decisions and events (struct rec, kept compact and expanded
 * when asked for), the ids of the jobs that changed since the last drain,
 * and the encoding of its own state (emu_save, emu_job_save) that
 * emu_restore turns back into an emulator identical to this one.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostlist.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"
#include "sim/share.h"

/* Which kinds name a cell in arg (the others a job in `by`). */
static bool
jent_cell(int kind)
{
	return kind == REC_FAIL || kind == REC_NODE_BAD || kind == REC_NODE_OK;
}

void
emu_params_init(struct emu_params *par)
{
	memset(par, 0, sizeof *par);
	par->ckpt_interval = 1800;
	par->cost_scale = 1;
	par->sample_interval = 3600;
	par->progress_every = 4096;
	par->slice = 60;	/* Gandiva §5: one-minute slices */
	par->height = 2;
	par->pack = true;
	par->gpu_mem = 16;
	par->suspend_scale = 1;
	par->migrate_scale = 1;
	par->feedback = 600;
	par->grow_after = 300;	/* --grow-after: 5 minutes */
	par->migrate = true;
	par->defrag_every = 60;	/* --defrag-every: Gandiva's slice */
	par->opp_threshold = 0.8;	/* AntMan §4: M = 80% */
	par->opp_window = 300;
	par->opp_control = true;
}

void
emu_js_init(struct ejob_state *x)
{
	memset(x, 0, sizeof *x);
	x->grp = -1;
	x->factor = 1;
	x->share = 1;
	x->alone = 1;
	x->feedback = -1;
	x->grow_at = -1;
}

/* ---- the event heap, ordered by (t, seq) ---- */

bool
emu_ev_before(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void
emu_ev_insert(struct emu *m, const struct ev *x)
{
	int i;

	XGROW(m->heap, m->heap_cap, (size_t)m->nheap + 1);
	i = m->nheap++;
	while (i > 0 && emu_ev_before(x, &m->heap[(i - 1) / 2])) {
		m->heap[i] = m->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	m->heap[i] = *x;
	if (x->kind != EV_SAMPLE)
		m->live++;
}

static void
ev_push(struct emu *m, double t, int kind, int arg, unsigned ver)
{
	struct ev x = { t, m->seq++, kind, arg, ver };

	emu_ev_insert(m, &x);
}

static struct ev
ev_pop(struct emu *m)
{
	struct ev top = m->heap[0], x = m->heap[--m->nheap];
	int i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= m->nheap)
			break;
		if (c + 1 < m->nheap && emu_ev_before(&m->heap[c + 1], &m->heap[c]))
			c++;
		if (!emu_ev_before(&m->heap[c], &x))
			break;
		m->heap[i] = m->heap[c];
		i = c;
	}
	if (m->nheap > 0)
		m->heap[i] = x;
	if (top.kind != EV_SAMPLE)
		m->live--;
	return top;
}

/* ---- journal and changed jobs ---- */

static void
mark(struct emu *m, int job)
{
	if (m->dflag[job])
		return;
	m->dflag[job] = 1;
	XGROW(m->dirty, m->dirty_cap, (size_t)m->ndirty + 1);
	m->dirty[m->ndirty++] = job;
}

/* The scheduler wrote a field of the job (a pending reason, mostly). */
void
emu_job_changed(void *arg, int job)
{
	mark(arg, job);
}

static int
detail_add(struct emu *m, const char *text)
{
	int off = (int)m->jdetail.len;

	strbuf_adds(&m->jdetail, text);
	strbuf_addc(&m->jdetail, '\0');
	return off;
}

/* Append an entry; arg is the job that took the cells or the cell. */
static void
journal(struct emu *m, enum rec_kind kind, int job, int arg, int detail)
{
	struct jent *x;

	XGROW(m->jn, m->jn_cap, (size_t)m->njn + 1);
	x = &m->jn[m->njn++];
	x->t = m->now;
	x->kind = (unsigned char)kind;
	x->job = job;
	x->arg = arg;
	x->detail = detail;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Where a job started: its nodes as a hostlist ("r0n[01-02]"). */
static int
detail_nodes(struct emu *m, const struct job *j)
{
	struct engine_job_info info;
	const struct spec *s = m->s;
	int node, k, n, *idx, off;
	char **names, *hl;

	if (!engine_job(m->e, j->engine_id, &info) || info.nleaves == 0)
		return -1;
	node = s->cells[info.leaves[0]].node;
	for (k = 1; k < info.nleaves; k++)
		if (s->cells[info.leaves[k]].node != node)
			break;
	if (k == info.nleaves && node >= 0)
		off = detail_add(m, s->nodes[node].name);
	else {
		idx = xcalloc((size_t)info.nleaves, sizeof *idx);
		for (k = 0; k < info.nleaves; k++)
			idx[k] = s->cells[info.leaves[k]].node;
		qsort(idx, (size_t)info.nleaves, sizeof *idx, cmp_int);
		names = xcalloc((size_t)info.nleaves, sizeof *names);
		for (n = 0, k = 0; k < info.nleaves; k++)
			if (idx[k] >= 0 && (k == 0 || idx[k] != idx[k - 1]))
				names[n++] = (char *)s->nodes[idx[k]].name;
		hl = hostlist_compress(names, (size_t)n);
		off = detail_add(m, hl);
		free(hl);
		free(names);
		free(idx);
	}
	if (j->opportunistic) {
		strbuf_setlen(&m->jdetail, m->jdetail.len - 1);	/* one string */
		strbuf_adds(&m->jdetail, " (opportunistic)");
		strbuf_addc(&m->jdetail, '\0');
	}
	return off;
}

/* ---- locality and speed ---- */

enum locality
emu_locality(const struct spec *s, const int *leaves, int n)
{
	const struct spec_chain *ch;
	int i, a, b, lca, level, internal, d;

	if (n <= 0)
		return LOC_SWITCH;
	lca = leaves[0];
	for (i = 1; i < n && lca >= 0; i++) {
		a = lca;
		b = leaves[i];
		while (b >= 0 && s->cells[b].level < s->cells[a].level)
			b = s->cells[b].parent;
		while (a >= 0 && b >= 0 && a != b) {
			a = s->cells[a].parent;
			b = s->cells[b].parent;
		}
		lca = a == b ? a : -1;
	}
	ch = &s->chains[s->cells[leaves[0]].chain];
	level = lca >= 0 ? s->cells[lca].level : ch->levels + 1;
	if (level > ch->node_level)
		return level == ch->node_level + 1 ? LOC_RACK : LOC_CLUSTER;
	/* inside a node: name the levels from the node down, as far as the
	   spec describes them (node > socket > switch) */
	internal = ch->node_level - 2;
	d = ch->node_level - level;
	if (internal >= 2)
		return d == 0 ? LOC_NODE : d == 1 ? LOC_SOCKET : LOC_SWITCH;
	if (internal == 1)
		return d == 0 ? LOC_SOCKET : LOC_SWITCH;
	return LOC_SWITCH;
}

static double
job_speed(const struct emu *m, const struct job *j)
{
	struct engine_job_info info;
	double loc;

	if (!engine_job(m->e, j->engine_id, &info) || info.nleaves == 0)
		return 1;
	loc = m->par.ideal || j->model < 0 || j->model >= model_count ? 1 :
	    model_table[j->model].speed[emu_locality(m->s, info.leaves, info.nleaves)];
	if (m->par.no_affinity_slowdown && j->soft_affinity && loc < 1)
		loc = fmax(loc, model_table[j->model].speed[emu_compact_locality(m->s,
		    info.chain, j->gpus)]);
	/* a grown elastic job (emu-grow.c): its work scales with its GPUs */
	return loc * (info.nleaves > j->gpus ? (double)info.nleaves / j->gpus : 1);
}

static double
cost(const struct emu *m, const struct job *j, bool restore)
{
	const struct model *md;

	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return 0;
	md = &model_table[j->model];
	return m->par.cost_scale * (restore ? md->ckpt_restore : md->ckpt_save);
}

/* ---- accounting ---- */

/* GPUs in use: by jobs holding cells, and AntMan guests' shares of the rest. */
static double
busy_gpus(const struct emu *m)
{
	struct engine_stats st;

	engine_stats(m->e, &st);
	return (double)(st.used + st.opp) + m->am_busy;
}

/* Length of [a, b] inside the submission window. */
static double
in_window(const struct emu *m, double a, double b)
{
	double d = fmin(b, m->win1) - fmax(a, m->win0);

	return d > 0 ? d : 0;
}

/*
 * SM time a running job used in the submission window from x->since to t1
 * (GPU-seconds of SM): while it progresses (not in a restore stall), its
 * GPUs x its model's SM demand in the phase its work is in x its factor
 * (a packed job issues that much less). Phases change with work, not at
 * events, so the span is cut at their boundaries. AntMan's emulator
 * counts its GPUs' plans instead (emu_am_integrate): 0 here.
 */
static double
sm_span(const struct emu *m, int job, double t1)
{
	const struct job *j = &m->jobs[job];
	const struct ejob_state *x = &m->js[job];
	const struct model *md = m->par.ideal || j->model < 0 ||
	    j->model >= model_count ? NULL : &model_table[j->model];
	const struct model_phase *ph;
	double t = fmax(x->since, x->stall_until), w = j->work_done, next, te, sum = 0;

	if (m->am_on || j->state != JOB_RUNNING || !job_holds_cells(j) ||
	    !(x->speed > 0) || t >= t1 || t >= m->win1 || t1 <= m->win0)
		return 0;
	while (t < t1) {
		ph = model_phase(w, j->duration, &next);
		te = isfinite(next) ? t + (next - w) / x->speed : t1;
		if (te > t1)
			te = t1;
		sum += in_window(m, t, te) * (md != NULL ? md->gpu_util * ph->sm : 1);
		if (!isfinite(next))
			break;
		t = te;
		w = next;	/* the next phase, even if te rounded onto t */
	}
	return sum * (j->gpus + x->extra) * x->factor;	/* grown: every GPU it holds */
}

/* Bring a running job's service and progress up to now. */
static void
account(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double from = x->since, stall, before = j->run_time;
	/* grown: its extra GPUs attain too (invariant 2) */
	double share = x->share * (j->gpus + x->extra) / j->gpus;

	m->win_sm += sm_span(m, job, m->now);

	/* a suspended job holds nothing: its slot runs another member */
	if (!job_holds_cells(j) || j->state == JOB_SUSPENDED || m->now <= from) {
		x->since = m->now;
		return;
	}
	stall = fmin(m->now, x->stall_until) - from;
	if (stall > 0) {
		job_account_shared(j, stall, 0, share);
		from += stall;
	}
	if (j->state == JOB_RUNNING)
		job_account_shared(j, m->now - from, x->speed, share);
	else
		job_account_shared(j, m->now - from, 0, share);
	/* run time grows at 1 over the whole span: find the crossing */
	if (x->feedback < 0 && j->run_time >= m->par.feedback)
		x->feedback = x->since + (m->par.feedback - before);
	x->since = m->now;
}

static void
apply(struct emu *m, int job, enum job_event ev)
{
	char why[256];

	if (job_apply(&m->jobs[job], ev, m->now, why, sizeof why) < 0)
		fatal("emu: %s", why);	/* a bug in the emulator, not input */
}

/*
 * Schedule a running job's next re-key: when its work reaches the oracle's
 * change_work, else when its attained service reaches change. Always
 * strictly after now, so rounding cannot spin at one instant.
 */
static void
plan_rekey(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	const struct policy_ops *ops = m->p->ops;
	double t, c;

	if (ops->change_work != NULL) {
		c = ops->change_work(m->p, j);
		if (!isfinite(c) || c <= j->work_done || x->speed <= 0)
			return;
		t = fmax(m->now, x->stall_until) + (c - j->work_done) / x->speed;
		x->by_work = true;
	} else {
		c = ops->change(m->p, j);
		if (!isfinite(c) || c <= j->attained)
			return;
		t = m->now + (c - j->attained) / (j->gpus + x->extra);
		x->by_work = false;
	}
	x->target = c;
	if (t <= m->now)
		t = nextafter(m->now, INFINITY);
	ev_push(m, t, EV_REKEY, job, x->ver);
}

/* Schedule a running job's finish and its next re-key. */
static void
plan_running(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double left, t;

	x->ver++;
	left = j->duration >= 0 ? j->duration - j->work_done : 0;
	if (left < 0)
		left = 0;
	t = fmax(m->now, x->stall_until) + (x->speed > 0 ? left / x->speed : 0);
	ev_push(m, t, EV_FINISH, job, x->ver);
	plan_rekey(m, job);
	if (m->am_on)
		emu_am_plan_phase(m, job);
}

/* A re-key came due: snap the accounting onto the boundary it was planned
   for (it lands an ulp short or long), then let the scheduler re-rank. */
static void
rekey(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];

	account(m, job);
	if (x->by_work) {
		if (j->work_done < x->target && (j->duration < 0 || x->target <= j->duration))
			j->work_done = x->target;
	} else if (j->attained < x->target)
		j->attained = x->target;
	sched_rekey(m->sch, job, m->now);
	plan_rekey(m, job);
}

static void
plan_pending(struct emu *m, int job)
{
	double t;

	m->js[job].ver++;
	if (m->p->ops->wait_change == NULL)
		return;
	t = m->p->ops->wait_change(m->p, &m->jobs[job], m->now);
	if (isfinite(t) && t >= m->now)
		ev_push(m, t, EV_PROMOTE, job, m->js[job].ver);
}

static void
submit(struct emu *m, int job)
{
	sched_submit(m->sch, job, m->now);
	plan_pending(m, job);
	mark(m, job);
	if (m->am_on)
		emu_am_submit(m, job);
}

/* ---- actions from the scheduler ---- */

static void	group_join(struct emu *, int);
static void	group_leave(struct emu *, int, bool);

static void
start(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double restore = j->restarts > 0 ? cost(m, j, true) : 0;

	apply(m, job, JOB_EV_START);
	emu_el_start(m, job);
	x->since = m->now;
	x->stall_until = m->now + restore;
	x->costs += restore;
	x->speed = x->alone = job_speed(m, j);
	x->factor = x->share = 1;
	plan_running(m, job);
	journal(m, REC_START, job, -1, detail_nodes(m, j));
	mark(m, job);
	emu_mg_started(m, job);
	group_join(m, job);
	if (m->am_on)
		emu_am_start(m, job);
}

static void
preempt(struct emu *m, int job, int by)
{
	struct job *j = &m->jobs[job];
	double save = cost(m, j, false);

	account(m, job);
	m->js[job].preempted += m->now - j->state_since;
	apply(m, job, JOB_EV_PREEMPT);
	j->ckpt_work = j->work_done;	/* checkpointed on the way out */
	m->js[job].costs += save;
	m->js[job].ver++;
	ev_push(m, m->now + save, EV_REQUEUE, job, m->js[job].ver);
	journal(m, REC_PREEMPT, job, by, -1);
	mark(m, job);
	emu_el_leave(m, job);
	group_leave(m, job, true);
	if (m->am_on)
		emu_am_leave(m, job, false);
}

/* ---- sharing: time-sliced and packed groups (sim/share.h) ---- */

static bool
oversub(const struct emu *m)
{
	return (m->p->ops->flags & POLICY_OVERSUB) != 0;
}

static double
model_cost(const struct emu *m, const struct job *j, bool migrate)
{
	const struct model *md;

	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return 0;
	md = &model_table[j->model];
	return m->par.cost_scale * (migrate ? m->par.migrate_scale * md->migrate :
	    m->par.suspend_scale * md->suspend);
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

void
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

	for (i = 0; i < m->ngrp; i++)
		if (m->grp[i].nmb > 0 && m->grp[i].node == node && m->grp[i].vc == vc &&
		    m->grp[i].gpus == gpus)
			return i;
	return -1;
}

static int
group_new(struct emu *m, int node, int vc, int gpus)
{
	struct sgroup *g;
	int i;

	for (i = 0; i < m->ngrp && m->grp[i].nmb > 0; i++)
		;
	if (i == m->ngrp) {
		XGROW(m->grp, m->grp_cap, (size_t)m->ngrp + 1);
		memset(&m->grp[i], 0, sizeof m->grp[i]);
		m->ngrp++;
	}
	g = &m->grp[i];
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

static void
suspend_job(struct emu *m, int job)
{
	account(m, job);
	apply(m, job, JOB_EV_SUSPEND);
	m->js[job].ver++;	/* its finish and re-key are off */
	journal(m, REC_SUSPEND, job, -1, -1);
	mark(m, job);
}

/* Set a running member's speed and share, and plan its finish again. */
static void
set_speed(struct emu *m, int job, double factor, double share)
{
	struct ejob_state *x = &m->js[job];

	account(m, job);
	x->factor = factor;
	x->share = share;
	x->speed = x->alone * factor;
	plan_running(m, job);
	mark(m, job);
}

static void
resume_job(struct emu *m, int job, double factor, double share)
{
	struct ejob_state *x = &m->js[job];
	double c = model_cost(m, &m->jobs[job], false);

	account(m, job);
	apply(m, job, JOB_EV_RESUME);
	x->stall_until = m->now + c;
	x->swcost += c;
	journal(m, REC_RESUME, job, -1, -1);
	set_speed(m, job, factor, share);
}

/* Leave the group: alone again on its own cells (hosts) at full speed. */
static void
ungroup(struct emu *m, int job)
{
	struct ejob_state *x = &m->js[job];

	x->grp = -1;
	if (m->jobs[job].state == JOB_SUSPENDED)
		resume_job(m, job, 1, 1);
	else if (x->factor != 1 || x->share != 1)
		set_speed(m, job, 1, 1);
	mark(m, job);
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
	struct sgroup *g = &m->grp[gi];
	struct share_member *sm;
	struct share_slot *out;
	int *ord, n = g->nmb, slots, i, job;
	bool packed = false;

	for (i = 0; i < n; i++) {
		account(m, g->mb[i]);
		mark(m, g->mb[i]);
	}
	ord = xcalloc((size_t)n + 1, sizeof *ord);
	rr_order(m, g, ord);
	if (rotate && (g->mode == SG_SLICE || g->mode == SG_NOPACK)) {
		for (i = 0; i < n; i++)
			if (m->jobs[ord[i]].state == JOB_RUNNING && !keeps_slot(m, ord[i])) {
				m->js[ord[i]].rr = ++m->rr_back;
				mark(m, ord[i]);
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
	for (i = 0; i < n; i++) {
		const struct job *j = &m->jobs[ord[i]];
		sm[i].job = ord[i];
		sm[i].util = 2;		/* no profile: never packed */
		sm[i].prio = j->priority;
		if (!m->par.ideal && j->model >= 0 && j->model < model_count) {
			sm[i].util = model_table[j->model].gpu_util;
			sm[i].mem = model_table[j->model].mem_peak;
		}
	}
	if (g->mode == SG_TRIAL || g->mode == SG_PACKED)
		packed = share_plan_pack(sm, n, slots, m->par.gpu_mem, out);
	if (!packed) {
		if (g->mode != SG_NOPACK)
			g->mode = SG_SLICE;
		share_plan_slice(sm, n, slots, out);
	}
	/* suspend first, so the slots are free before anyone resumes */
	for (i = 0; i < n; i++)
		if (!out[i].run && m->jobs[ord[i]].state == JOB_RUNNING)
			suspend_job(m, ord[i]);
	for (i = 0; i < n; i++) {
		job = ord[i];
		if (!out[i].run)
			continue;
		if (m->jobs[job].state == JOB_SUSPENDED)
			resume_job(m, job, out[i].factor, out[i].share);
		else
			set_speed(m, job, out[i].factor, out[i].share);
	}
	if (g->mode == SG_TRIAL) {
		g->eval_t = m->now;
		g->eval_work = members_work(m, g);
		m->packs++;
		for (i = 0; i < n; i++)
			if (out[i].partner >= 0)
				journal(m, REC_PACK, ord[i], ord[out[i].partner], -1);
	}
	if (g->mode != SG_PACKED && m->par.slice > 0)
		ev_push(m, m->now + m->par.slice, EV_SLICE, gi, g->ver);
	free(sm);
	free(out);
	free(ord);
}

/* The members changed: try packing afresh (when on), then plan. */
static void
group_changed(struct emu *m, int gi)
{
	m->grp[gi].mode = m->par.pack && !m->par.ideal ? SG_TRIAL : SG_SLICE;
	group_plan(m, gi, false);
}

/* A slice or a pack trial of group gi ended. */
static void
group_slice(struct emu *m, int gi)
{
	struct sgroup *g = &m->grp[gi];
	double *alone, measured, sliced, cost = 0;
	int i, n = g->nmb;

	if (g->mode != SG_TRIAL) {
		group_plan(m, gi, true);
		return;
	}
	for (i = 0; i < n; i++) {
		account(m, g->mb[i]);
		mark(m, g->mb[i]);
	}
	alone = xcalloc((size_t)n, sizeof *alone);
	for (i = 0; i < n; i++) {
		alone[i] = m->js[g->mb[i]].alone;
		cost += model_cost(m, &m->jobs[g->mb[i]], false) / n;
	}
	measured = m->now > g->eval_t ? (members_work(m, g) - g->eval_work) /
	    (m->now - g->eval_t) : 0;
	sliced = share_slice_rate(alone, n, slots_of(m, g), cost, m->par.slice);
	free(alone);
	if (measured > sliced) {
		g->mode = SG_PACKED;	/* keep it; nothing to do until members change */
		g->ver++;
		return;
	}
	m->unpacks++;
	for (i = 0; i < n; i++)
		if (m->js[g->mb[i]].share < 1)
			journal(m, REC_UNPACK, g->mb[i], -1, -1);
	g->mode = SG_NOPACK;
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
	m->js[job].rr = ++m->rr_back;
	emu_group_insert(&m->grp[gi], job);
	group_changed(m, gi);
}


/* Evict a guest: checkpoint and requeue, as a preemption. */
static void
evict(struct emu *m, int job)
{
	m->js[job].grp = -1;
	m->js[job].guest = false;
	preempt(m, job, -1);
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
	emu_el_start(m, job);	/* cells of its own: elastic from now on */
	emu_mg_started(m, job);
	if (host_node(m, j) == m->grp[gi].node) {
		x->alone = job_speed(m, j);
		mark(m, job);
		return;
	}
	group_remove(&m->grp[gi], job);
	x->grp = -1;
	account(m, job);
	c = model_cost(m, j, true);
	if (j->state == JOB_SUSPENDED)
		apply(m, job, JOB_EV_RESUME);
	x->stall_until = fmax(x->stall_until, m->now) + c;
	x->migcost += c;
	x->migrations++;
	x->alone = job_speed(m, j);
	journal(m, REC_MIGRATE, job, -1, detail_nodes(m, j));
	set_speed(m, job, 1, 1);
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
	struct sgroup *g = &m->grp[gi];
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
						preempt(m, acts[k].job, acts[k].by);
					else if (acts[k].kind == SCHED_DOWNGRADE) {
						journal(m, REC_DOWNGRADE, acts[k].job, acts[k].by, -1);
						mark(m, acts[k].job);
					}
					else
						promote(m, acts[k].job, gi);
			}
			mark(m, ord[i]);
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
	group_remove(&m->grp[gi], job);
	x->grp = -1;
	x->guest = false;
	x->factor = x->share = 1;
	mark(m, job);
	if (adjust)
		group_after_leave(m, gi, host);
}

/*
 * Gandiva's over-subscription (its Algorithm 1, last step): a guaranteed
 * job that got no cells at arrival joins the same-affinity node of its VC
 * (jobs of the same GPU count) with the least load (members per slot),
 * lowest node first, if that stays within `height` members per slot; it
 * starts at the front of the round robin (early feedback).
 */
static void
oversubscribe(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	int *slots, *members, *hosts, nhosts = 0, i, k, node, best = -1, gi, host = -1, off;
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
	for (i = 0; i < m->ngrp; i++)
		for (k = 0; k < m->grp[i].nmb; k++) {
			const struct job *h = &m->jobs[m->grp[i].mb[k]];
			if (m->js[m->grp[i].mb[k]].guest && job_holds_cells(h) &&
			    h->vc == j->vc && h->gpus == j->gpus)
				members[m->grp[i].node]++;
		}
	qsort(hosts, (size_t)nhosts, sizeof *hosts, cmp_int);
	for (i = 0; i < m->s->nnodes; i++) {
		if (slots[i] == 0 || members[i] + 1 > (long long)m->par.height * slots[i])
			continue;
		if (best < 0 || (long long)members[i] * slots[best] <
		    (long long)members[best] * slots[i])
			best = i;
	}
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
				m->js[i].rr = ++m->rr_back;
				emu_group_insert(&m->grp[gi], i);
				mark(m, i);
			}
		}
	}
	free(hosts);
	host = m->grp[gi].mb[0];
	sched_take(m->sch, job);
	apply(m, job, JOB_EV_START);
	x->since = m->now;
	x->stall_until = m->now;
	x->guest = true;
	x->grp = gi;
	x->rr = --m->rr_front;
	x->alone = x->speed = speed_on(m, j, &m->jobs[host]);
	x->factor = x->share = 1;
	emu_group_insert(&m->grp[gi], job);
	m->guests++;
	off = detail_add(m, m->s->nodes[best].name);
	strbuf_setlen(&m->jdetail, m->jdetail.len - 1);
	strbuf_adds(&m->jdetail, " (time-sliced)");
	strbuf_addc(&m->jdetail, '\0');
	journal(m, REC_START, job, -1, off);
	mark(m, job);
	plan_running(m, job);
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
	for (i = 0; i < m->ngrp; i++)
		for (k = 0; k < m->grp[i].nmb; k++)
			if (m->js[m->grp[i].mb[k]].guest)
				guests[m->grp[i].node] += m->grp[i].gpus;
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

void
emu_sched_hooks(struct emu *m)
{
	sched_on_change(m->sch, emu_job_changed, m);
	if (oversub(m))
		sched_on_place(m->sch, gandiva_place, m);
	else if (m->am_on)
		sched_on_place(m->sch, emu_am_place, m);
}

static void
carry_out(struct emu *m)
{
	int i;

	for (i = 0; i < m->nacts; i++) {
		const struct sched_action *a = &m->acts[i];
		switch (a->kind) {
		case SCHED_START:
			start(m, a->job);
			break;
		case SCHED_PREEMPT:
			preempt(m, a->job, a->by);
			break;
		case SCHED_DOWNGRADE:
			/* keeps running, as opportunistic */
			journal(m, REC_DOWNGRADE, a->job, a->by, -1);
			mark(m, a->job);
			break;
		}
	}
	m->nacts = 0;
}

/* ---- events ---- */

static void
finish(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	bool opp;

	account(m, job);
	if (j->duration >= 0)
		j->work_done = j->duration;
	opp = j->opportunistic;
	apply(m, job, JOB_EV_FINISH);
	emu_mg_note(m, job);
	sched_release(m->sch, job);
	apply(m, job, JOB_EV_COMPLETE);
	j->opportunistic = opp;		/* how it ran: the report's class rows */
	if (m->js[job].feedback < 0)
		m->js[job].feedback = m->now;	/* done before it ran that long */
	m->nfinal++;
	m->js[job].done = m->nfinal;
	m->last_end = m->now;	/* events come in time order */
	m->js[job].ver++;
	if (m->p->ops->done != NULL)
		m->p->ops->done((struct policy *)m->p, j);
	journal(m, REC_COMPLETE, job, -1, -1);
	mark(m, job);
	emu_el_leave(m, job);
	group_leave(m, job, true);
	if (m->am_on)
		emu_am_leave(m, job, true);
}

/* A job on a node that went bad loses its work since the last periodic
   checkpoint and is requeued. */
static void
fail_job(struct emu *m, int job, int cell, int name, int *why)
{
	struct job *j = &m->jobs[job];

	account(m, job);
	/* periodic checkpoints at every ckpt_interval of progress */
	if (m->par.ckpt_interval > 0)
		j->ckpt_work = fmax(j->ckpt_work, floor(j->work_done /
		    m->par.ckpt_interval) * m->par.ckpt_interval);
	j->lost_work += j->work_done - j->ckpt_work;
	j->work_done = j->ckpt_work;
	apply(m, job, JOB_EV_FAIL);
	journal(m, REC_FAIL, job, cell, name);
	emu_el_leave(m, job);
	if (m->am_on)
		emu_am_leave(m, job, false);
	emu_mg_note(m, job);
	sched_release(m->sch, job);
	apply(m, job, JOB_EV_REQUEUE);
	if (*why < 0)
		*why = detail_add(m, "after a node failure");
	journal(m, REC_REQUEUE, job, -1, *why);
	m->failures[job]++;
	submit(m, job);
	j->reason = JOB_REASON_NODEFAIL;
}

static void
node_health(struct emu *m, const struct emu_fault *f, bool bad)
{
	int max = engine_job_limit(m->e) + 1, *affected, n, i, g, job, node, cell;
	int name = -1, why = -1;

	affected = xcalloc((size_t)max, sizeof *affected);
	n = engine_node_set_bad(m->e, f->node, bad, affected, max);
	node = spec_find_node(m->s, f->node);
	cell = node >= 0 && m->s->nodes[node].ncells > 0 ? m->s->nodes[node].cells[0] : -1;
	name = detail_add(m, f->node);
	journal(m, bad ? REC_NODE_BAD : REC_NODE_OK, -1, cell, name);
	/* sharing groups on the node go with it: guests fail with the hosts */
	for (g = 0; bad && node >= 0 && g < m->ngrp; g++) {
		struct sgroup *sg = &m->grp[g];
		if (sg->nmb == 0 || sg->node != node)
			continue;
		while (sg->nmb > 0) {
			job = sg->mb[sg->nmb - 1];
			sg->nmb--;
			m->js[job].grp = -1;
			m->js[job].factor = m->js[job].share = 1;
			if (m->js[job].guest) {
				m->js[job].guest = false;
				fail_job(m, job, cell, name, &why);
			}
			mark(m, job);
		}
		sg->ver++;
	}
	/* AntMan guests on the node fail too (they hold no cells there) */
	if (m->am_on && bad && node >= 0)
		emu_am_node_bad(m, node, cell, name, &why);
	for (i = 0; i < n && i < max; i++) {
		if ((job = sched_job_of(m->sch, affected[i])) < 0)
			continue;
		fail_job(m, job, cell, name, &why);
	}
	free(affected);
	sched_touch_all(m->sch);
}

/*
 * Two fragmentations, as shares of the nodes: partially free (some but not
 * all leaves free of guaranteed jobs and healthy; it falls as the cluster
 * fills) and HiveD's (not wholly free for a guaranteed job; it reaches 1
 * in a full cluster).
 */
static void
fragmentation(const struct emu *m, double *partial_share, double *node_share)
{
	int i, k, partial = 0, taken = 0, l, used, opp, bad;

	*partial_share = *node_share = 0;
	if (m->s->nnodes == 0)
		return;
	for (i = 0; i < m->s->nnodes; i++) {
		long long leaves = 0, avail = 0;
		for (k = 0; k < m->s->nodes[i].ncells; k++) {
			engine_cell_use(m->e, m->s->nodes[i].cells[k], &l, &used, &opp, &bad);
			leaves += l;
			avail += l - used - bad;
		}
		if (avail > 0 && avail < leaves)
			partial++;
		if (avail < leaves)
			taken++;
	}
	*partial_share = (double)partial / m->s->nnodes;
	*node_share = (double)taken / m->s->nnodes;
}

static void
sample(struct emu *m)
{
	struct engine_stats st;
	struct emu_sample *x;

	engine_stats(m->e, &st);
	XGROW(m->series, m->series_cap, (size_t)m->nseries + 1);
	x = &m->series[m->nseries++];
	x->t = m->now;
	x->pending = sched_pending(m->sch);
	x->running = st.jobs + st.opp_jobs;
	x->used = st.used;
	x->opp = st.opp;
	x->bad = st.bad;
	fragmentation(m, &x->frag, &x->frag_node);
}

/*
 * The time series' period: sample_interval for the first EMU_SERIES_STEP
 * points (or two per job, if more), then doubled for each further as many,
 * so the series of a run that goes on for centuries (one job that never
 * fits, a trace of extreme times) holds a few times that many points, not
 * one per hour of its clock: bounded by its jobs. A function of the
 * series' length alone, so a resumed run samples as the uninterrupted one.
 */
static double
sample_period(const struct emu *m)
{
	int step = m->njobs > EMU_SERIES_STEP / 2 ? 2 * m->njobs : EMU_SERIES_STEP;
	int k = m->nseries / step;

	return ldexp(m->par.sample_interval, k < 60 ? k : 60);
}

static void
event(struct emu *m, const struct ev *x)
{
	int job = x->arg;

	switch (x->kind) {
	case EV_ARRIVE:
		journal(m, REC_SUBMIT, job, -1, -1);
		submit(m, job);
		if (oversub(m)) {
			XGROW(m->arrived, m->arrived_cap, (size_t)m->narrived + 1);
			m->arrived[m->narrived++] = job;
		}
		break;
	case EV_SLICE:
		if (x->arg >= 0 && x->arg < m->ngrp && x->ver == m->grp[x->arg].ver &&
		    m->grp[x->arg].nmb > 0)
			group_slice(m, x->arg);
		break;
	case EV_FINISH:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_RUNNING)
			finish(m, job);
		break;
	case EV_PHASE:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_RUNNING)
			emu_am_phase(m, job);
		break;
	case EV_REKEY:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_RUNNING) {
			rekey(m, job);
			mark(m, job);
		}
		break;
	case EV_PROMOTE:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_PENDING) {
			policy_promote(&m->p->par, &m->jobs[job], m->now);
			sched_rekey(m->sch, job, m->now);
			plan_pending(m, job);
			mark(m, job);
		}
		break;
	case EV_REQUEUE:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_PREEMPTED) {
			apply(m, job, JOB_EV_REQUEUE);
			journal(m, REC_REQUEUE, job, -1, -1);
			submit(m, job);
		}
		break;
	case EV_NODE_BAD:
	case EV_NODE_OK:
		node_health(m, &m->par.faults[x->arg], x->kind == EV_NODE_BAD);
		break;
	case EV_GROW:
		break;	/* a wake-up: the tick's emu_el_grow does the work */
	case EV_SAMPLE:
		sample(m);
		if (m->live > 0)
			ev_push(m, m->now + sample_period(m), EV_SAMPLE, 0, 0);
		break;
	}
}

/* ---- create / run ---- */

/* The allocations every emulator has, for njobs jobs. */
struct emu *
emu_alloc(const struct spec *s, const struct policy *p, const struct emu_params *par,
    struct job *jobs, int njobs)
{
	struct emu *m = xcalloc(1, sizeof *m);
	int i;

	m->s = s;
	m->p = p;
	m->par = *par;
	m->jobs = jobs;
	m->njobs = njobs;
	m->js = xcalloc((size_t)njobs + 1, sizeof *m->js);
	for (i = 0; i < njobs; i++)
		emu_js_init(&m->js[i]);
	m->failures = xcalloc((size_t)njobs + 1, sizeof *m->failures);
	m->dflag = xcalloc((size_t)njobs + 1, 1);
	m->jc = xcalloc(1, sizeof *m->jc);
	strbuf_init(&m->jdetail);
	m->horizon = -INFINITY;
	m->am_on = (p->ops->flags & POLICY_OPPSHARE) != 0;
	if (m->am_on)
		emu_am_init(m);
	/* the submission window, from the jobs (not saved: they keep it) */
	m->win0 = njobs > 0 ? INFINITY : 0;
	m->win1 = njobs > 0 ? -INFINITY : 0;
	for (i = 0; i < njobs; i++) {
		m->win0 = fmin(m->win0, jobs[i].submit);
		m->win1 = fmax(m->win1, jobs[i].submit);
	}
	emu_el_init(m);
	emu_mg_init(m);
	return m;
}

/* The fault events emu_create makes, in its order (their sequence). */
int
emu_fault_events(const struct emu_params *par, struct ev *out, uint64_t seq0)
{
	int i, n = 0;

	for (i = 0; i < par->nfaults; i++) {
		if (out != NULL)
			out[n] = (struct ev){ par->faults[i].at, seq0 + (uint64_t)n,
			    EV_NODE_BAD, i, 0 };
		n++;
		if (par->faults[i].until >= par->faults[i].at) {
			if (out != NULL)
				out[n] = (struct ev){ par->faults[i].until, seq0 + (uint64_t)n,
				    EV_NODE_OK, i, 0 };
			n++;
		}
	}
	return n;
}

struct emu *
emu_create(const struct spec *s, enum engine_mode mode, const struct policy *p,
    const struct emu_params *par, struct job *jobs, int njobs, char **cause)
{
	struct emu *m;
	struct ev *fe;
	int i;

	for (i = 0; i < njobs; i++) {
		const struct job *j = &jobs[i];
		if (j->id != i || j->vc < 0 || j->vc >= s->nvcs || j->gpus <= 0 ||
		    j->state != JOB_PENDING || j->submit < 0) {
			*cause = xasprintf("job '%s' (index %d) is not a valid new job",
			    j->name, i);
			return NULL;
		}
	}
	m = emu_alloc(s, p, par, jobs, njobs);
	m->e = engine_create(s, mode, cause);
	if (m->e == NULL || (par->static_binding && engine_bind_static(m->e, cause) < 0)) {
		emu_free(m);
		return NULL;
	}
	m->sch = sched_create(m->e, p, jobs, njobs);
	emu_sched_hooks(m);
	m->first_submit = njobs > 0 ? INFINITY : 0;
	for (i = 0; i < njobs; i++) {
		ev_push(m, jobs[i].submit, EV_ARRIVE, i, 0);
		if (jobs[i].submit < m->first_submit)
			m->first_submit = jobs[i].submit;
	}
	m->nfault_ev = emu_fault_events(par, NULL, 0);
	fe = xcalloc((size_t)m->nfault_ev + 1, sizeof *fe);
	emu_fault_events(par, fe, m->seq);
	for (i = 0; i < m->nfault_ev; i++) {
		emu_ev_insert(m, &fe[i]);
		m->seq++;
	}
	free(fe);
	if (par->sample_interval > 0)
		ev_push(m, njobs > 0 ? m->first_submit : 0, EV_SAMPLE, 0, 0);
	m->now = njobs > 0 ? m->first_submit : 0;
	m->busy_since = m->now;
	m->last_end = m->now;
	return m;
}

void
emu_free(struct emu *m)
{
	int i;

	if (m == NULL)
		return;
	sched_free(m->sch);
	engine_free(m->e);
	emu_am_free(m);
	emu_el_free(m);
	emu_mg_free(m);
	for (i = 0; i < m->njobs; i++)
		free(m->js[i].gpus);
	free(m->js);
	free(m->heap);
	free(m->acts);
	free(m->series);
	free(m->failures);
	free(m->jn);
	strbuf_release(&m->jdetail);
	if (m->jc != NULL)
		free(m->jc->v);
	free(m->jc);
	free(m->dirty);
	free(m->dflag);
	for (i = 0; i < m->ngrp; i++)
		free(m->grp[i].mb);
	free(m->grp);
	free(m->arrived);
	free(m);
}

long long
emu_run(struct emu *m, double until,
    bool (*progress)(void *arg, const struct emu_progress *pr), void *arg,
    char **cause)
{
	long long n = 0;
	struct ev x;
	char why[256];
	int i;

	while (m->nheap > 0 && m->heap[0].t <= until && (m->live > 0 ||
	    m->heap[0].kind != EV_SAMPLE)) {
		double t = m->heap[0].t;
		if (m->am_on)
			emu_am_integrate(m, t);
		m->busy_gpu_time += (t - m->busy_since) * busy_gpus(m);
		m->win_busy += in_window(m, m->busy_since, t) * busy_gpus(m);
		m->busy_since = t;
		m->now = t;
		while (m->nheap > 0 && m->heap[0].t == t) {
			x = ev_pop(m);
			event(m, &x);
			n++;
			m->events++;
		}
		sched_pass(m->sch, m->now, &m->acts, &m->nacts, &m->acts_cap);
		carry_out(m);
		/* arrivals that got no cells take back what elastic jobs grew into */
		if (m->el_on && emu_el_shrink(m)) {
			sched_pass(m->sch, m->now, &m->acts, &m->nacts, &m->acts_cap);
			carry_out(m);
		}
		/* Gandiva's migrations: locality after departures, defragmentation */
		if (m->mg_on && emu_mg_tick(m)) {
			sched_pass(m->sch, m->now, &m->acts, &m->nacts, &m->acts_cap);
			carry_out(m);
		}
		/* arrivals that got no cells: Gandiva time-slices them */
		for (i = 0; i < m->narrived; i++)
			oversubscribe(m, m->arrived[i]);
		m->narrived = 0;
		if (m->el_on)
			emu_el_grow(m);
		/* AntMan: upgrades, opportunistic placements, GPU plans */
		if (m->am_on)
			emu_am_tick(m);
		/* a tick boundary: everything below sees a state emu_save can keep */
		m->horizon = t;
#ifdef CELLAR_DEBUG
		if (!sched_check(m->sch, why, sizeof why) || !engine_check(m->e, why, sizeof why)) {
			*cause = xasprintf("invariant broken at t=%.3f: %s", m->now, why);
			return -1;
		}
#else
		(void)why;
#endif
		if (progress != NULL && m->events >= m->next_progress) {
			m->next_progress = m->events +
			    (m->par.progress_every > 0 ? m->par.progress_every : 4096);
			struct emu_progress pr = { m->events, m->nfinal, m->njobs, m->now };
			if (!progress(arg, &pr)) {
				*cause = xasprintf("interrupted at t=%.0f s", m->now);
				return -1;
			}
		}
	}
	return n;
}

bool
emu_done(const struct emu *m)
{
	return m->live == 0;
}

double
emu_now(const struct emu *m)
{
	return m->now;
}

const struct engine *
emu_engine(const struct emu *m)
{
	return m->e;
}

const struct sched *
emu_sched(const struct emu *m)
{
	return m->sch;
}

const struct job *
emu_jobs(const struct emu *m, int *n)
{
	*n = m->njobs;
	return m->jobs;
}

double
emu_job_rate(const struct emu *m, int job)
{
	const struct job *j;

	if (job < 0 || job >= m->njobs)
		return 0;
	j = &m->jobs[job];
	if (j->state != JOB_RUNNING || !job_holds_cells(j) || m->js[job].stall_until > m->now)
		return 0;
	return m->js[job].speed;
}

const struct emu_sample *
emu_series(const struct emu *m, int *n)
{
	*n = m->nseries;
	return m->series;
}

/* ---- for a store: the journal and the changed jobs ---- */

const struct rec *
emu_journal(const struct emu *m, int *n)
{
	struct jcache *c = m->jc;

	/* expand what was appended since the last call */
	XGROW(c->v, c->cap, (size_t)m->njn + 1);
	for (; c->n < m->njn; c->n++) {
		const struct jent *x = &m->jn[c->n];
		struct rec *r = &c->v[c->n];
		r->t = x->t;
		r->kind = (enum rec_kind)x->kind;
		r->job = x->job;
		r->vc = x->job >= 0 ? m->jobs[x->job].vc : -1;
		r->cell = jent_cell(x->kind) ? x->arg : -1;
		r->by = jent_cell(x->kind) ? -1 : x->arg;
		bufprintf(r->detail, sizeof r->detail, "%s",
		    x->detail >= 0 ? m->jdetail.buf + x->detail : "");
	}
	*n = c->n;
	return c->v;
}

void
emu_jlog_init(struct emu_jlog *log)
{
	memset(log, 0, sizeof *log);
	strbuf_init(&log->details);
}

void
emu_jlog_release(struct emu_jlog *log)
{
	free(log->v);
	strbuf_release(&log->details);
	emu_jlog_init(log);
}

void
emu_journal_copy(const struct emu *m, struct emu_jlog *log)
{
	int i;

	XGROW(log->v, log->cap, (size_t)m->njn + 1);
	for (i = 0; i < m->njn; i++) {
		const struct jent *x = &m->jn[i];
		struct emu_jrec *r = &log->v[i];

		r->t = x->t;
		r->kind = x->kind;
		r->job = x->job;
		r->vc = x->job >= 0 ? m->jobs[x->job].vc : -1;
		r->cell = jent_cell(x->kind) ? x->arg : -1;
		r->by = jent_cell(x->kind) ? -1 : x->arg;
		r->detail = x->detail;
	}
	log->n = m->njn;
	strbuf_reset(&log->details);
	if (m->jdetail.len > 0)
		strbuf_add(&log->details, m->jdetail.buf, m->jdetail.len);
}

void
emu_jlog_rec(const struct emu_jlog *log, int i, struct rec *r)
{
	const struct emu_jrec *x = &log->v[i];
	const char *d = x->detail >= 0 && (size_t)x->detail < log->details.len ?
	    log->details.buf + x->detail : "";
	size_t n = strnlen(d, sizeof r->detail - 1);

	r->t = x->t;
	r->kind = (enum rec_kind)x->kind;
	r->job = x->job;
	r->vc = x->vc;
	r->cell = x->cell;
	r->by = x->by;
	memcpy(r->detail, d, n);	/* cut where emu_journal's bufprintf cuts */
	r->detail[n] = '\0';
}

const int *
emu_dirty(const struct emu *m, int *n)
{
	*n = m->ndirty;
	return m->dirty;
}

void
emu_drain(struct emu *m)
{
	int i;

	for (i = 0; i < m->ndirty; i++)
		m->dflag[m->dirty[i]] = 0;
	m->ndirty = 0;
	m->njn = 0;
	m->jc->n = 0;
	strbuf_reset(&m->jdetail);
}

bool
emu_job_placement(const struct emu *m, int job, struct engine_placement *pl)
{
	if (job < 0 || job >= m->njobs || !job_holds_cells(&m->jobs[job]))
		return false;
	return engine_job_placement(m->e, m->jobs[job].engine_id, pl);
}

/* ---- the report ---- */

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v. */
static double
pct(const double *v, int n, double p)
{
	int k = (int)ceil(p / 100 * n);

	if (n == 0)
		return 0;
	return v[k < 1 ? 0 : k > n ? n - 1 : k - 1];
}

void
emu_dist(double *v, int n, struct emu_dist *d)
{
	double sum = 0;
	int i;

	memset(d, 0, sizeof *d);
	d->n = n;
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	d->avg = sum / n;
	d->median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	d->p95 = pct(v, n, 95);
	d->p99 = pct(v, n, 99);
	d->max = v[n - 1];
}

/*
 * A job's class in the report: how it ran, when it completed or runs (an
 * auto job as whatever it got); else the class it asked for.
 */
static int
report_class(const struct job *j)
{
	if (j->state == JOB_COMPLETED || j->engine_id >= 0)
		return j->opportunistic;
	return j->klass == JOB_OPPORTUNISTIC;
}

/* Fill g from the jobs of VC vc (-1: all) of class klass (-1: any; 0
   guaranteed, 1 opportunistic: report_class). */
static void
group(const struct emu *m, int vc, int klass, struct emu_group *g, double *jct,
    double *q, double *fb)
{
	int i, n = 0;

	for (i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		const struct ejob_state *x = &m->js[i];
		if (vc >= 0 && j->vc != vc)
			continue;
		if (klass >= 0 && report_class(j) != klass)
			continue;
		g->jobs++;
		g->gpu_hours += j->attained / 3600;
		g->preemptions += j->preemptions;
		g->preempted_gpus += (long long)j->preemptions * j->gpus;
		g->preempted_gpu_hours += x->preempted * j->gpus / 3600;
		g->failures += m->failures[i];
		g->lost_gpu_hours += (j->lost_work + x->costs) * j->gpus / 3600;
		g->suspensions += j->suspensions;
		g->suspend_gpu_hours += x->swcost * j->gpus / 3600;
		g->migrations += x->migrations;
		g->migrate_gpu_hours += x->migcost * j->gpus / 3600;
		if (j->first_start < 0)
			g->never++;
		if (j->state != JOB_COMPLETED)
			continue;
		g->done++;
		jct[n] = j->end - j->submit;
		q[n] = j->queued;
		fb[n] = x->feedback - j->submit;
		n++;
	}
	emu_dist(jct, n, &g->jct);
	emu_dist(q, n, &g->queue);
	emu_dist(fb, n, &g->feedback);
}

void
emu_report(const struct emu *m, struct emu_report *r)
{
	double *jct = xcalloc((size_t)m->njobs + 1, sizeof *jct);
	double *q = xcalloc((size_t)m->njobs + 1, sizeof *q);
	double *fb = xcalloc((size_t)m->njobs + 1, sizeof *fb);
	struct sched_stats st;
	double fsum = 0, nsum = 0;
	int i;

	memset(r, 0, sizeof *r);
	bufprintf(r->all.name, sizeof r->all.name, "all");
	group(m, -1, -1, &r->all, jct, q, fb);
	for (i = 0; i < 2; i++) {
		bufprintf(r->klass[i].name, sizeof r->klass[i].name, "%s",
		    i ? "(opportunistic)" : "(guaranteed)");
		group(m, -1, i, &r->klass[i], jct, q, fb);
	}
	r->nvcs = m->s->nvcs;
	r->vcs = xcalloc((size_t)r->nvcs + 1, sizeof *r->vcs);
	for (i = 0; i < r->nvcs; i++) {
		bufprintf(r->vcs[i].name, sizeof r->vcs[i].name, "%s", m->s->vcs[i].name);
		group(m, i, -1, &r->vcs[i], jct, q, fb);
	}
	r->makespan = m->njobs > 0 ? m->last_end - m->first_submit : 0;
	if (r->makespan > 0 && m->s->gpus > 0)
		r->util = m->busy_gpu_time / ((double)m->s->gpus * r->makespan);
	for (i = 0; i < m->nseries; i++) {
		fsum += m->series[i].frag;
		nsum += m->series[i].frag_node;
	}
	r->frag_avg = m->nseries ? fsum / m->nseries : 0;
	r->frag_node_avg = m->nseries ? nsum / m->nseries : 0;
	r->events = m->events;
	sched_stats(m->sch, &st);
	r->sched_passes = st.passes;
	r->engine_attempts = st.attempts;
	r->relaxed = st.relaxed;
	r->guests = m->guests;
	r->packs = m->packs;
	r->unpacks = m->unpacks;
	/* the submission window: the part of running jobs' SM not yet
	   accounted is added here (emu_report may come mid-run) */
	r->win_start = m->win0;
	r->win_end = m->win1;
	if (m->win1 > m->win0 && m->s->gpus > 0) {
		double sm = m->win_sm, area = (double)m->s->gpus * (m->win1 - m->win0);
		for (i = 0; i < m->njobs; i++)
			sm += sm_span(m, i, m->now);
		r->win_util = m->win_busy / area;
		r->win_sm = sm / area;
	}
	r->grows = m->grows;
	r->shrinks = m->shrinks;
	r->opp_shared = m->am_on;
	if (m->am_on && r->makespan > 0 && m->s->gpus > 0) {
		r->sm_util = m->am_int_sm / ((double)m->s->gpus * r->makespan);
		if (m->par.gpu_mem > 0)
			r->mem_util = m->am_int_mem / ((double)m->s->gpus * m->par.gpu_mem *
			    r->makespan);
	}
	r->interference = m->am_int_host > 0 ? m->am_int_lost / m->am_int_host : 0;
	r->opp_guests = m->am_guests;
	r->opp_done = m->am_done;
	r->upgrades = m->am_upgrades;
	r->upgrade_skips = m->am_skips;
	r->upgrades_moved = m->am_moved;
	r->ooms = m->am_ooms;
	free(jct);
	free(q);
	free(fb);
}

void
emu_report_release(struct emu_report *r)
{
	free(r->vcs);
	r->vcs = NULL;
}

/* ---- emu.c's steps, for emu-antman.c (emu-int.h) ---- */

void
emu_account(struct emu *m, int job)
{
	account(m, job);
}

void
emu_apply(struct emu *m, int job, enum job_event ev)
{
	apply(m, job, ev);
}

void
emu_log(struct emu *m, enum rec_kind kind, int job, int arg, int detail)
{
	journal(m, kind, job, arg, detail);
}

void
emu_mark(struct emu *m, int job)
{
	mark(m, job);
}

int
emu_detail_add(struct emu *m, const char *text)
{
	return detail_add(m, text);
}

int
emu_detail_nodes(struct emu *m, const struct job *j)
{
	return detail_nodes(m, j);
}

void
emu_set_speed(struct emu *m, int job, double factor, double share)
{
	set_speed(m, job, factor, share);
}

void
emu_suspend(struct emu *m, int job)
{
	suspend_job(m, job);
}

void
emu_resume(struct emu *m, int job, double factor, double share)
{
	resume_job(m, job, factor, share);
}

void
emu_fail(struct emu *m, int job, int cell, int name, int *why)
{
	fail_job(m, job, cell, name, why);
}

void
emu_preempt(struct emu *m, int job, int by)
{
	preempt(m, job, by);
}

double
emu_model_cost(const struct emu *m, const struct job *j, bool migrate)
{
	return model_cost(m, j, migrate);
}

double
emu_job_speed(const struct emu *m, const struct job *j)
{
	return job_speed(m, j);
}

void
emu_push(struct emu *m, double t, int kind, int arg, unsigned ver)
{
	ev_push(m, t, kind, arg, ver);
}
