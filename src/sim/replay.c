/*
 * replay.c — prepared traces, runs and the sharing-anomaly check. See
 * replay.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "sim/replay.h"

void
replay_cfg_init(struct replay_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->format = TRACE_AUTO;
	c->seed = 1;
	c->to = -1;
	c->sample = 1;
	c->load = 1;
	c->klass = -1;
}

enum job_class
replay_class(int klass, const struct policy_ops *ops)
{
	if (klass >= 0)
		return (enum job_class)klass;
	return ops != NULL && (ops->flags & POLICY_OPPSHARE) ? JOB_AUTO : JOB_GUARANTEED;
}

/* "synth" or "synth:N": a generated trace with the spec's VCs, equal shares. */
static int
synth(struct replay *r, const struct spec *s, const struct replay_cfg *c, char **cause)
{
	struct synth_params p;
	const char **vcs;
	double *w;
	char *end;
	long n = 1000;
	int i, k, rc;

	if (c->trace[5] == ':') {
		n = strtol(c->trace + 6, &end, 10);
		if (*end != '\0' || n < 1 || n > TRACE_MAX_JOBS) {
			*cause = xasprintf("'%s': want synth:N with N from 1 to %d jobs",
			    c->trace, TRACE_MAX_JOBS);
			return -1;
		}
	}
	synth_params_init(&p);
	p.njobs = (int)n;
	p.seed = c->seed;
	/* each VC's share of the load follows its share of the GPUs */
	vcs = xcalloc((size_t)s->nvcs + 1, sizeof *vcs);
	w = xcalloc((size_t)s->nvcs + 1, sizeof *w);
	for (i = 0; i < s->nvcs; i++) {
		vcs[i] = s->vcs[i].name;
		for (k = 0; k < s->vcs[i].ncells; k++)
			w[i] += (double)s->vcs[i].cells[k].number *
			    (double)s->types[s->vcs[i].cells[k].type].leaves;
	}
	p.vcs = vcs;
	p.vc_weights = w;
	p.nvcs = s->nvcs;
	rc = trace_synth(&p, &r->t, cause);
	free(vcs);
	free(w);
	return rc;
}

int
replay_prepare(struct replay *r, const struct spec *s, const struct replay_cfg *c,
    char **cause)
{
	int i;

	memset(r, 0, sizeof *r);
	r->s = s;
	r->klass = c->klass;
	if (strncmp(c->trace, "synth", 5) == 0 && (c->trace[5] == '\0' || c->trace[5] == ':')) {
		if (synth(r, s, c, cause) < 0)
			return -1;
	} else if (trace_load(c->trace, c->format, &r->t, cause) < 0)
		return -1;
	if ((c->from > 0 || c->to >= 0) &&
	    trace_window(&r->t, c->from, c->to < 0 ? INFINITY : c->to, cause) < 0)
		goto fail;
	if (c->sample < 1 && trace_sample(&r->t, c->sample, c->seed, cause) < 0)
		goto fail;
	if (c->load != 1 && trace_scale_load(&r->t, c->load, cause) < 0)
		goto fail;
	/* a generated trace knows nothing of VC sizes: drop what cannot fit */
	if (trace_to_jobs(&r->t, s, c->vcmap, c->seed, c->skip_too_big ||
	    r->t.format == TRACE_SYNTH, &r->jobs,
	    &r->njobs, &r->skipped, &r->dropped, cause) < 0)
		goto fail;
	for (i = 0; i < r->njobs; i++) {
		if (!r->jobs[i].class_given)
			r->jobs[i].klass = replay_class(c->klass, NULL);
		if (!r->jobs[i].affinity_given)
			r->jobs[i].soft_affinity = c->soft_affinity;
	}
	return 0;
fail:
	replay_release(r);
	return -1;
}

void
replay_release(struct replay *r)
{
	trace_release(&r->t);
	free(r->jobs);
	r->jobs = NULL;
	r->njobs = 0;
}

void
replay_describe(const struct replay *r, struct strbuf *sb)
{
	strbuf_addf(sb, "%d jobs (%d dropped by the vc map, %d too big for their vc); trace: ",
	    r->njobs, r->dropped, r->skipped);
	trace_summary(&r->t, sb);
}

/* The user's progress callback, and checkpoints at the same boundaries. */
struct hooked {
	bool			(*progress)(void *arg, const struct emu_progress *pr);
	void			*arg;
	const struct replay_hooks *h;
	struct emu		*m;
	const struct job	*jobs;
	char			*cause;
	long long		 next_ck;	/* events at the next checkpoint */
};

static bool
hooked_progress(void *arg, const struct emu_progress *pr)
{
	struct hooked *x = arg;

	if (x->h != NULL && pr->events >= x->next_ck) {
		x->next_ck = pr->events + x->h->every;
		if (x->h->checkpoint(x->h->arg, x->m, x->jobs, false,
		    &x->cause) != 0)
			return false;
	}
	return x->progress == NULL || x->progress(x->arg, pr);
}

int
replay_run_hooked(const struct replay *r, const struct policy *p,
    enum engine_mode mode, const struct emu_params *par,
    bool (*progress)(void *arg, const struct emu_progress *pr), void *arg,
    const struct replay_hooks *h, struct replay_result *out, char **cause)
{
	struct hooked x = { progress, arg, h, NULL, NULL, NULL, 0 };
	const struct emu_sample *series;
	struct emu *m;
	long long n;

	memset(out, 0, sizeof *out);
	out->jobs = xcalloc((size_t)r->njobs + 1, sizeof *out->jobs);
	if (r->njobs > 0)
		memcpy(out->jobs, h != NULL && h->resume != NULL ? h->resume_jobs :
		    r->jobs, (size_t)r->njobs * sizeof *r->jobs);
	if (h == NULL || h->resume == NULL)	/* resumed jobs keep theirs */
		for (int i = 0; i < r->njobs; i++)
			if (!out->jobs[i].class_given)
				out->jobs[i].klass = replay_class(r->klass, p->ops);
	if (h != NULL && h->resume != NULL)
		m = emu_restore(r->s, mode, p, par, out->jobs, r->njobs, h->resume,
		    cause);
	else
		m = emu_create(r->s, mode, p, par, out->jobs, r->njobs, cause);
	if (m == NULL)
		goto fail;
	x.m = m;
	x.jobs = out->jobs;
	n = emu_run(m, INFINITY, h != NULL || progress != NULL ? hooked_progress :
	    NULL, &x, cause);
	if (n >= 0 && h != NULL && h->checkpoint(h->arg, m, out->jobs, true,
	    &x.cause) != 0)
		n = -1;
	if (n < 0) {
		if (x.cause != NULL) {	/* the checkpoint's reason, not "interrupted" */
			free(*cause);
			*cause = x.cause;
		}
		emu_free(m);
		goto fail;
	}
	emu_report(m, &out->report);
	out->events = out->report.events;
	series = emu_series(m, &out->nseries);
	out->series = xcalloc((size_t)out->nseries + 1, sizeof *out->series);
	if (out->nseries > 0)
		memcpy(out->series, series, (size_t)out->nseries * sizeof *series);
	emu_free(m);
	return 0;
fail:
	free(out->jobs);
	out->jobs = NULL;
	return -1;
}

int
replay_run(const struct replay *r, const struct policy *p, enum engine_mode mode,
    const struct emu_params *par,
    bool (*progress)(void *arg, const struct emu_progress *pr), void *arg,
    struct replay_result *out, char **cause)
{
	return replay_run_hooked(r, p, mode, par, progress, arg, NULL, out, cause);
}

void
replay_result_release(struct replay_result *res)
{
	free(res->jobs);
	free(res->series);
	emu_report_release(&res->report);
	memset(res, 0, sizeof *res);
}

static bool
worse(double shared, double priv)
{
	return shared > priv * (1 + ANOMALY_TOLERANCE) + ANOMALY_SLACK;
}

static double
first_delay(const struct job *j)
{
	return j->first_start - j->submit;
}

bool
anomaly_identical(const struct job *a, const struct job *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (a[i].state != b[i].state || a[i].first_start != b[i].first_start ||
		    a[i].end != b[i].end || a[i].queued != b[i].queued)
			return false;
	return true;
}

void
anomaly_compute(const struct spec *s, const struct job *shared, const struct job *priv,
    int n, double window, struct anomaly_vc *out)
{
	double t0 = INFINITY, t1 = 0, *qs = NULL, *qp = NULL;
	int *cnt = NULL, i, v, w, nw;

	for (i = 0; i < n; i++) {
		t0 = fmin(t0, shared[i].submit);
		t1 = fmax(t1, shared[i].submit);
	}
	if (window <= 0)
		window = 86400;
	nw = n > 0 ? (int)fmin(1e6, floor((t1 - t0) / window) + 1) : 0;
	qs = xcalloc((size_t)nw + 1, sizeof *qs);
	qp = xcalloc((size_t)nw + 1, sizeof *qp);
	cnt = xcalloc((size_t)nw + 1, sizeof *cnt);
	for (v = 0; v < s->nvcs; v++) {
		struct anomaly_vc *a = &out[v];
		double sum_s = 0, sum_p = 0, pend_s = 0, pend_p = 0, excess = -INFINITY;

		memset(a, 0, sizeof *a);
		strncpy(a->name, s->vcs[v].name, sizeof a->name - 1);
		memset(qs, 0, (size_t)nw * sizeof *qs);
		memset(qp, 0, (size_t)nw * sizeof *qp);
		memset(cnt, 0, (size_t)nw * sizeof *cnt);
		for (i = 0; i < n; i++) {
			if (shared[i].vc != v || shared[i].state != JOB_COMPLETED ||
			    priv[i].state != JOB_COMPLETED)
				continue;
			a->jobs++;
			sum_s += first_delay(&shared[i]);
			sum_p += first_delay(&priv[i]);
			pend_s += shared[i].queued;
			pend_p += priv[i].queued;
			w = (int)fmin(nw - 1, floor((shared[i].submit - t0) / window));
			qs[w] += first_delay(&shared[i]);
			qp[w] += first_delay(&priv[i]);
			cnt[w]++;
		}
		if (a->jobs == 0)
			continue;
		a->q_shared = sum_s / a->jobs;
		a->q_private = sum_p / a->jobs;
		a->pend_shared = pend_s / a->jobs;
		a->pend_private = pend_p / a->jobs;
		a->ratio = a->q_private > 1e-9 ? a->q_shared / a->q_private :
		    a->q_shared > 1e-9 ? INFINITY : 1;
		a->anomalous = worse(a->q_shared, a->q_private);
		for (w = 0; w < nw; w++) {
			double ws, wp;
			if (cnt[w] == 0)
				continue;
			a->windows++;
			ws = qs[w] / cnt[w];
			wp = qp[w] / cnt[w];
			if (ws - wp > excess) {
				excess = ws - wp;
				a->worst_at = t0 + w * window;
				a->worst_shared = ws;
				a->worst_private = wp;
			}
			if (!worse(ws, wp))
				continue;
			if (a->worse < ANOMALY_MAX_WINDOWS)
				a->worse_at[a->worse] = t0 + w * window;
			a->worse++;
		}
	}
	free(qs);
	free(qp);
	free(cnt);
}
