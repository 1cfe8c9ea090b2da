/*
 * emu.c — the emulated cluster's loop. See emu.h.
 *
 * The loop: pop every event due at time t, apply each (arrivals, finishes,
 * re-keys, failures...; a mechanism's own kinds go to its event hook), then
 * run one scheduler pass and carry out its actions, then each sharing
 * mechanism's tick (another pass when it changed cells) and settle: one
 * tick. The steps it takes are emu-step.c's, the sharing mechanisms
 * (emu_mechs, below) are files of their own behind struct emu_mech.
 * Events that a later change made stale (a finish computed before a
 * preemption) carry the job's version and are dropped when it moved on.
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

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"

/* The sharing mechanisms, in the order their hooks run (emu-int.h). To add
   one: a file with its struct emu_mech, and its line here. */
extern const struct emu_mech emu_grow_mech, emu_migrate_mech, emu_share_mech,
    emu_antman_mech;

const struct emu_mech *const emu_mechs[] = {
	&emu_grow_mech,		/* shrinks before migration looks, grows last */
	&emu_migrate_mech,
	&emu_share_mech,	/* over-subscribes after the passes */
	&emu_antman_mech,
	NULL
};

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

/* ---- the event heap ---- */

/* The loop's own: pop the first event (kept here, where it inlines). */
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


/* ---- accounting ---- */

/* GPUs in use: by jobs holding cells, and guests' shares of the rest (busy). */
static double
busy_gpus(const struct emu *m)
{
	struct engine_stats st;
	double busy;
	int i;

	engine_stats(m->e, &st);
	busy = (double)(st.used + st.opp);
	for (i = 0; i < m->non; i++)
		if (m->on[i]->busy != NULL)
			busy += m->on[i]->busy(m);
	return busy;
}

void
emu_sched_hooks(struct emu *m)
{
	int i;

	sched_on_change(m->sch, emu_job_changed, m);
	for (i = 0; i < m->non; i++)
		if (m->on[i]->place != NULL) {
			sched_on_place(m->sch, m->on[i]->place, m);
			break;
		}
}

static void
carry_out(struct emu *m)
{
	int i;

	for (i = 0; i < m->nacts; i++) {
		const struct sched_action *a = &m->acts[i];
		switch (a->kind) {
		case SCHED_START:
			emu_start(m, a->job);
			break;
		case SCHED_PREEMPT:
			emu_preempt(m, a->job, a->by);
			break;
		case SCHED_DOWNGRADE:
			/* keeps running, as opportunistic */
			emu_log(m, REC_DOWNGRADE, a->job, a->by, -1);
			emu_mark(m, a->job);
			break;
		}
	}
	m->nacts = 0;
}

/* ---- events ---- */

static void
node_health(struct emu *m, const struct emu_fault *f, bool bad)
{
	int max = engine_job_limit(m->e) + 1, *affected, n, i, job, node, cell;
	int name = -1, why = -1;

	affected = xcalloc((size_t)max, sizeof *affected);
	n = engine_node_set_bad(m->e, f->node, bad, affected, max);
	node = spec_find_node(m->s, f->node);
	cell = node >= 0 && m->s->nodes[node].ncells > 0 ? m->s->nodes[node].cells[0] : -1;
	name = emu_detail_add(m, f->node);
	emu_log(m, bad ? REC_NODE_BAD : REC_NODE_OK, -1, cell, name);
	/* the mechanisms' jobs there fail first: guests hold no cells */
	if (bad && node >= 0)
		EMU_EACH(m, node_bad, node, cell, name, &why);
	for (i = 0; i < n && i < max; i++) {
		if ((job = sched_job_of(m->sch, affected[i])) < 0)
			continue;
		emu_fail(m, job, cell, name, &why);
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
		emu_log(m, REC_SUBMIT, job, -1, -1);
		emu_submit(m, job);
		EMU_EACH(m, arrive, job);
		break;
	case EV_FINISH:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_RUNNING)
			emu_finish(m, job);
		break;
	case EV_REKEY:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_RUNNING) {
			emu_rekey(m, job);
			emu_mark(m, job);
		}
		break;
	case EV_PROMOTE:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_PENDING) {
			policy_promote(&m->p->par, &m->jobs[job], m->now);
			sched_rekey(m->sch, job, m->now);
			emu_plan_pending(m, job);
			emu_mark(m, job);
		}
		break;
	case EV_REQUEUE:
		if (x->ver == m->js[job].ver && m->jobs[job].state == JOB_PREEMPTED) {
			emu_apply(m, job, JOB_EV_REQUEUE);
			emu_log(m, REC_REQUEUE, job, -1, -1);
			emu_submit(m, job);
		}
		break;
	case EV_NODE_BAD:
	case EV_NODE_OK:
		node_health(m, &m->par.faults[x->arg], x->kind == EV_NODE_BAD);
		break;
	case EV_SAMPLE:
		sample(m);
		if (m->live > 0)
			emu_push(m, m->now + sample_period(m), EV_SAMPLE, 0, 0);
		break;
	default:	/* a mechanism's own (EV_SLICE, EV_PHASE, EV_GROW) */
		EMU_EACH(m, event, x);
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
	/* the submission window, from the jobs (not saved: they keep it) */
	m->win0 = njobs > 0 ? INFINITY : 0;
	m->win1 = njobs > 0 ? -INFINITY : 0;
	for (i = 0; i < njobs; i++) {
		m->win0 = fmin(m->win0, jobs[i].submit);
		m->win1 = fmax(m->win1, jobs[i].submit);
	}
	for (i = 0; emu_mechs[i] != NULL; i++)
		if (emu_mechs[i]->init(m)) {
			m->on[m->non++] = emu_mechs[i];
			m->own_sm |= (emu_mechs[i]->flags & EMU_MECH_OWN_SM) != 0;
		}
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
	if (m->e == NULL || (par->static_binding && engine_bind_static(m->e, cause) < 0) ||
	    (par->borrow && mode == ENGINE_QUOTA && engine_set_borrow(m->e, cause) < 0)) {
		emu_free(m);
		return NULL;
	}
	m->lend = engine_borrow(m->e);
	m->sch = sched_create(m->e, p, jobs, njobs);
	emu_sched_hooks(m);
	m->first_submit = njobs > 0 ? INFINITY : 0;
	for (i = 0; i < njobs; i++) {
		emu_push(m, jobs[i].submit, EV_ARRIVE, i, 0);
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
		emu_push(m, njobs > 0 ? m->first_submit : 0, EV_SAMPLE, 0, 0);
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
	for (i = 0; emu_mechs[i] != NULL; i++)
		if (emu_mechs[i]->free != NULL)
			emu_mechs[i]->free(m);
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
		EMU_EACH(m, integrate, t);
		m->busy_gpu_time += (t - m->busy_since) * busy_gpus(m);
		m->win_busy += emu_in_window(m, m->busy_since, t) * busy_gpus(m);
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
		/* the mechanisms' turns: a change of cells calls for another pass */
		for (i = 0; i < m->non; i++)
			if (m->on[i]->tick != NULL && m->on[i]->tick(m)) {
				sched_pass(m->sch, m->now, &m->acts, &m->nacts, &m->acts_cap);
				carry_out(m);
			}
		for (i = 0; i < m->non; i++)
			if (m->on[i]->settle != NULL)
				m->on[i]->settle(m);
		/* a tick boundary: everything below sees a state emu_save can keep */
		m->horizon = t;
#ifdef CELLAR_DEBUG
		if (!emu_check(m, why, sizeof why) || !sched_check(m->sch, why, sizeof why) ||
		    !engine_check(m->e, why, sizeof why)) {
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
emu_check(const struct emu *m, char *why, size_t len)
{
	int i, live = 0, k;
	bool sm = false;

	for (i = 0; i < m->nheap; i++) {
		if (i > 0 && emu_ev_before(&m->heap[i], &m->heap[(i - 1) / 2])) {
			bufprintf(why, len, "emu: heap entry %d before its parent", i);
			return false;
		}
		if (m->heap[i].seq >= m->seq) {
			bufprintf(why, len, "emu: heap entry %d has sequence %llu, next %llu",
			    i, (unsigned long long)m->heap[i].seq, (unsigned long long)m->seq);
			return false;
		}
		live += m->heap[i].kind != EV_SAMPLE;
	}
	if (live != m->live) {
		bufprintf(why, len, "emu: %d live events, counted %d", m->live, live);
		return false;
	}
	for (i = 0; i < m->ndirty; i++)
		if (m->dirty[i] < 0 || m->dirty[i] >= m->njobs || m->dflag[m->dirty[i]] != 1) {
			bufprintf(why, len, "emu: changed job %d not flagged", m->dirty[i]);
			return false;
		}
	for (i = 0, k = 0; emu_mechs[i] != NULL && k < m->non; i++)
		if (m->on[k] == emu_mechs[i])
			sm |= (m->on[k++]->flags & EMU_MECH_OWN_SM) != 0;
	if (k != m->non || sm != m->own_sm) {
		bufprintf(why, len, "emu: mechanisms on out of table order");
		return false;
	}
	if (m->horizon != -INFINITY && m->horizon != m->now) {
		bufprintf(why, len, "emu: last tick at %g, now %g", m->horizon, m->now);
		return false;
	}
	return true;
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

		rec_init(r, x->t, (enum rec_kind)x->kind, x->job,
		    x->job >= 0 ? m->jobs[x->job].vc : -1);
		if (jent_cell(x->kind))
			r->cell = x->arg;
		else
			r->by = x->arg;
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

	rec_init(r, x->t, (enum rec_kind)x->kind, x->job, x->vc);
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
		g->borrowed_jobs += x->lent_time > 0 || emu_job_lent(m, i);
		g->borrowed_gpu_hours += x->lent_time * j->gpus / 3600;
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
	r->borrow = engine_borrow(m->e);
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
	/* the submission window: the part of running jobs' SM not yet
	   accounted is added here (emu_report may come mid-run) */
	r->win_start = m->win0;
	r->win_end = m->win1;
	if (m->win1 > m->win0 && m->s->gpus > 0) {
		double sm = m->win_sm, area = (double)m->s->gpus * (m->win1 - m->win0);
		for (i = 0; i < m->njobs; i++)
			sm += emu_sm_span(m, i, m->now);
		r->win_util = m->win_busy / area;
		r->win_sm = sm / area;
	}
	for (i = 0; emu_mechs[i] != NULL; i++)
		if (emu_mechs[i]->report != NULL)
			emu_mechs[i]->report(m, r);
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
