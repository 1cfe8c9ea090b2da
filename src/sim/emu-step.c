/*
 * emu-step.c — the steps of the emulated cluster that the loop (emu.c)
 * and the sharing mechanisms (emu-share.c, emu-grow.c, emu-migrate.c,
 * emu-antman.c) share: the event heap, the journal and the changed jobs,
 * the speed model and accounting, and a job's transitions (submit, start,
 * preempt, suspend, resume, finish, fail). They call down only (engine,
 * scheduler, job); what a mechanism adds to a transition runs through the
 * hooks of the mechanisms on (m->on, struct emu_mech), so no file of the
 * emulator calls back into the loop. See emu-int.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostlist.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"

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

void
emu_push(struct emu *m, double t, int kind, int arg, unsigned ver)
{
	struct ev x = { t, m->seq++, kind, arg, ver };

	emu_ev_insert(m, &x);
}

/* ---- journal and changed jobs ---- */

void
emu_mark(struct emu *m, int job)
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
	emu_mark(arg, job);
}

int
emu_detail_add(struct emu *m, const char *text)
{
	int off = (int)m->jdetail.len;

	strbuf_adds(&m->jdetail, text);
	strbuf_addc(&m->jdetail, '\0');
	return off;
}

/* Append an entry; arg is the job that took the cells or the cell. */
void
emu_log(struct emu *m, enum rec_kind kind, int job, int arg, int detail)
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
int
emu_detail_nodes(struct emu *m, const struct job *j)
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
		off = emu_detail_add(m, s->nodes[node].name);
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
		off = emu_detail_add(m, hl);
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

double
emu_job_speed(const struct emu *m, const struct job *j)
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

double
emu_cost(const struct emu *m, const struct job *j, bool restore)
{
	const struct model *md;

	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return 0;
	md = &model_table[j->model];
	return m->par.cost_scale * (restore ? md->ckpt_restore : md->ckpt_save);
}

/* Length of [a, b] inside the submission window. */
double
emu_in_window(const struct emu *m, double a, double b)
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
 * counts its GPUs' plans instead (EMU_MECH_OWN_SM): 0 here.
 */
double
emu_sm_span(const struct emu *m, int job, double t1)
{
	const struct job *j = &m->jobs[job];
	const struct ejob_state *x = &m->js[job];
	const struct model *md = m->par.ideal || j->model < 0 ||
	    j->model >= model_count ? NULL : &model_table[j->model];
	const struct model_phase *ph;
	double t = fmax(x->since, x->stall_until), w = j->work_done, next, te, sum = 0;

	if (m->own_sm || j->state != JOB_RUNNING || !job_holds_cells(j) ||
	    !(x->speed > 0) || t >= t1 || t >= m->win1 || t1 <= m->win0)
		return 0;
	while (t < t1) {
		ph = model_phase(w, j->duration, &next);
		te = isfinite(next) ? t + (next - w) / x->speed : t1;
		if (te > t1)
			te = t1;
		sum += emu_in_window(m, t, te) * (md != NULL ? md->gpu_util * ph->sm : 1);
		if (!isfinite(next))
			break;
		t = te;
		w = next;	/* the next phase, even if te rounded onto t */
	}
	return sum * (j->gpus + x->extra) * x->factor;	/* grown: every GPU it holds */
}

/*
 * Whether a job holds borrowed cells now (quota with borrowing): asked of
 * the engine, whichever way the job got them (a start, a guest that got
 * cells of its own, an upgrade), so nothing is kept to go stale.
 */
bool
emu_job_lent(const struct emu *m, int job)
{
	struct engine_job_info info;
	int eid = m->jobs[job].engine_id;

	return m->lend && eid >= 0 && engine_job(m->e, eid, &info) && info.borrowed;
}

/* Bring a running job's service and progress up to now. */
void
emu_account(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double from = x->since, stall, before = j->run_time;
	/* grown: its extra GPUs attain too (invariant 2) */
	double share = x->share * (j->gpus + x->extra) / j->gpus;

	m->win_sm += emu_sm_span(m, job, m->now);

	/* a suspended job holds nothing: its slot runs another member */
	if (!job_holds_cells(j) || j->state == JOB_SUSPENDED || m->now <= from) {
		x->since = m->now;
		return;
	}
	if (emu_job_lent(m, job))
		x->lent_time += m->now - from;
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

void
emu_apply(struct emu *m, int job, enum job_event ev)
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
	emu_push(m, t, EV_REKEY, job, x->ver);
}

/* Schedule a running job's finish and its next re-key. */
void
emu_plan_running(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double left, t;

	x->ver++;
	left = j->duration >= 0 ? j->duration - j->work_done : 0;
	if (left < 0)
		left = 0;
	t = fmax(m->now, x->stall_until) + (x->speed > 0 ? left / x->speed : 0);
	emu_push(m, t, EV_FINISH, job, x->ver);
	plan_rekey(m, job);
	EMU_EACH(m, planned, job);
}

/* A re-key came due: snap the accounting onto the boundary it was planned
   for (it lands an ulp short or long), then let the scheduler re-rank. */
void
emu_rekey(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];

	emu_account(m, job);
	if (x->by_work) {
		if (j->work_done < x->target && (j->duration < 0 || x->target <= j->duration))
			j->work_done = x->target;
	} else if (j->attained < x->target)
		j->attained = x->target;
	sched_rekey(m->sch, job, m->now);
	plan_rekey(m, job);
}

void
emu_plan_pending(struct emu *m, int job)
{
	double t;

	m->js[job].ver++;
	if (m->p->ops->wait_change == NULL)
		return;
	t = m->p->ops->wait_change(m->p, &m->jobs[job], m->now);
	if (isfinite(t) && t >= m->now)
		emu_push(m, t, EV_PROMOTE, job, m->js[job].ver);
}

void
emu_submit(struct emu *m, int job)
{
	sched_submit(m->sch, job, m->now);
	emu_plan_pending(m, job);
	emu_mark(m, job);
	EMU_EACH(m, submit, job);
}

/* ---- actions from the scheduler ---- */

void
emu_start(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	struct ejob_state *x = &m->js[job];
	double restore = j->restarts > 0 ? emu_cost(m, j, true) : 0;

	emu_apply(m, job, JOB_EV_START);
	emu_cells(m, job);
	x->since = m->now;
	x->stall_until = m->now + restore;
	x->costs += restore;
	x->speed = x->alone = emu_job_speed(m, j);
	x->factor = x->share = 1;
	emu_plan_running(m, job);
	emu_log(m, REC_START, job, -1, emu_detail_nodes(m, j));
	emu_mark(m, job);
	EMU_EACH(m, start, job);
}

void
emu_preempt(struct emu *m, int job, int by)
{
	struct job *j = &m->jobs[job];
	double save = emu_cost(m, j, false);

	emu_account(m, job);
	m->js[job].preempted += m->now - j->state_since;
	emu_apply(m, job, JOB_EV_PREEMPT);
	j->ckpt_work = j->work_done;	/* checkpointed on the way out */
	m->js[job].costs += save;
	m->js[job].ver++;
	emu_push(m, m->now + save, EV_REQUEUE, job, m->js[job].ver);
	emu_log(m, REC_PREEMPT, job, by, -1);
	emu_mark(m, job);
	EMU_EACH(m, leave, job, EMU_LEAVE_PREEMPT);
}

double
emu_model_cost(const struct emu *m, const struct job *j, bool migrate)
{
	const struct model *md;

	if (m->par.ideal || j->model < 0 || j->model >= model_count)
		return 0;
	md = &model_table[j->model];
	return m->par.cost_scale * (migrate ? m->par.migrate_scale * md->migrate :
	    m->par.suspend_scale * md->suspend);
}

void
emu_suspend(struct emu *m, int job)
{
	emu_account(m, job);
	emu_apply(m, job, JOB_EV_SUSPEND);
	m->js[job].ver++;	/* its finish and re-key are off */
	emu_log(m, REC_SUSPEND, job, -1, -1);
	emu_mark(m, job);
}

/* Set a running member's speed and share, and plan its finish again. */
void
emu_set_speed(struct emu *m, int job, double factor, double share)
{
	struct ejob_state *x = &m->js[job];

	emu_account(m, job);
	x->factor = factor;
	x->share = share;
	x->speed = x->alone * factor;
	emu_plan_running(m, job);
	emu_mark(m, job);
}

void
emu_resume(struct emu *m, int job, double factor, double share)
{
	struct ejob_state *x = &m->js[job];
	double c = emu_model_cost(m, &m->jobs[job], false);

	emu_account(m, job);
	emu_apply(m, job, JOB_EV_RESUME);
	x->stall_until = m->now + c;
	x->swcost += c;
	emu_log(m, REC_RESUME, job, -1, -1);
	emu_set_speed(m, job, factor, share);
}

void
emu_finish(struct emu *m, int job)
{
	struct job *j = &m->jobs[job];
	bool opp;

	emu_account(m, job);
	if (j->duration >= 0)
		j->work_done = j->duration;
	opp = j->opportunistic;
	emu_apply(m, job, JOB_EV_FINISH);
	EMU_EACH(m, release, job);
	sched_release(m->sch, job);
	emu_apply(m, job, JOB_EV_COMPLETE);
	j->opportunistic = opp;		/* how it ran: the report's class rows */
	if (m->js[job].feedback < 0)
		m->js[job].feedback = m->now;	/* done before it ran that long */
	m->nfinal++;
	m->js[job].done = m->nfinal;
	m->last_end = m->now;	/* events come in time order */
	m->js[job].ver++;
	if (m->p->ops->done != NULL)
		m->p->ops->done((struct policy *)m->p, j);
	emu_log(m, REC_COMPLETE, job, -1, -1);
	emu_mark(m, job);
	EMU_EACH(m, leave, job, EMU_LEAVE_FINISH);
}

/* A job on a node that went bad loses its work since the last periodic
   checkpoint and is requeued. */
void
emu_fail(struct emu *m, int job, int cell, int name, int *why)
{
	struct job *j = &m->jobs[job];

	emu_account(m, job);
	/* periodic checkpoints at every ckpt_interval of progress */
	if (m->par.ckpt_interval > 0)
		j->ckpt_work = fmax(j->ckpt_work, floor(j->work_done /
		    m->par.ckpt_interval) * m->par.ckpt_interval);
	j->lost_work += j->work_done - j->ckpt_work;
	j->work_done = j->ckpt_work;
	emu_apply(m, job, JOB_EV_FAIL);
	emu_log(m, REC_FAIL, job, cell, name);
	EMU_EACH(m, leave, job, EMU_LEAVE_FAIL);
	EMU_EACH(m, release, job);
	sched_release(m->sch, job);
	emu_apply(m, job, JOB_EV_REQUEUE);
	if (*why < 0)
		*why = emu_detail_add(m, "after a node failure");
	emu_log(m, REC_REQUEUE, job, -1, *why);
	m->failures[job]++;
	emu_submit(m, job);
	j->reason = JOB_REASON_NODEFAIL;
}

void
emu_cells(struct emu *m, int job)
{
	EMU_EACH(m, cells, job);
}

void
emu_moved(struct emu *m, int job)
{
	EMU_EACH(m, moved, job);
}
