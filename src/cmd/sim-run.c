/*
 * sim-run.c — the emulator's commands' shared part (sim-run.h): options
 * parsed into a prepared replay, one run or several at once with a
 * progress line, the report's rows and JSON, the series CSV.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/frontend.h"
#include "cmd/sim-pool.h"
#include "cmd/sim-run.h"
#include "core/xmalloc.h"

static double
elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* "90", "90s", "15m", "36h", "10d", "2w" -> seconds. */
int
sim_parse_duration(const char *s, const char *what, double *out, char **cause)
{
	if (args_seconds(s, out) == 0)
		return 0;
	*cause = xasprintf("%s '%s' is not a duration (like 90, 15m, 36h, 10d)", what, s);
	return -1;
}

static int
parse_fraction(const char *s, const char *what, double lo, double hi, bool open_lo,
    double *out, char **cause)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end != '\0' || errno != 0 || !isfinite(v) || v > hi ||
	    (open_lo ? v <= lo : v < lo)) {
		*cause = xasprintf("%s '%s' must be a number %s %g and <= %g", what, s,
		    open_lo ? ">" : ">=", lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* --fault NODE@T or NODE@T-T2 */
static int
parse_fault(const struct spec *s, const char *arg, struct emu_fault *f, char **cause)
{
	const char *at = strrchr(arg, '@');
	char *times, *dash;
	int rc = -1;

	memset(f, 0, sizeof *f);
	f->until = -1;
	if (at == NULL || at == arg || (size_t)(at - arg) >= sizeof f->node) {
		*cause = xasprintf("--fault '%s': want NODE@T or NODE@T-T2", arg);
		return -1;
	}
	memcpy(f->node, arg, (size_t)(at - arg));
	if (spec_find_node(s, f->node) < 0) {
		*cause = xasprintf("--fault: no node '%s' in the spec", f->node);
		return -1;
	}
	times = xstrdup(at + 1);
	dash = strchr(times, '-');
	if (dash != NULL)
		*dash++ = '\0';
	if (sim_parse_duration(times, "--fault time", &f->at, cause) < 0)
		goto out;
	if (dash != NULL) {
		if (sim_parse_duration(dash, "--fault end", &f->until, cause) < 0)
			goto out;
		if (f->until < f->at) {
			*cause = xasprintf("--fault '%s': the node comes back before it fails", arg);
			goto out;
		}
	}
	rc = 0;
out:
	free(times);
	return rc;
}

void
sim_release(struct sim *m)
{
	if (m->prepared)
		replay_release(&m->r);
	sample_release(&m->service);
	free(m->faults);
	spec_free(m->own_spec);
}

/* Comma-separated list of policies into runs (crossed with modes later). */
static int
parse_list(const char *list, const char *what, int (*one)(const char *, int *),
    char *(*unknown)(const char *), int *out, int max, int *n, char **cause)
{
	char *copy = xstrdup(list), *item, *save = NULL;
	int v;

	*n = 0;
	for (item = strtok_r(copy, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		if (one(item, &v) < 0) {
			*cause = unknown(item);
			free(copy);
			return -1;
		}
		if (*n == max) {
			*cause = xasprintf("too many %ss (at most %d)", what, max);
			free(copy);
			return -1;
		}
		out[(*n)++] = v;
	}
	free(copy);
	if (*n == 0) {
		*cause = xasprintf("no %s given", what);
		return -1;
	}
	return 0;
}

static int
one_policy(const char *name, int *v)
{
	int i;

	for (i = 0; policy_table[i] != NULL; i++)
		if (strcmp(policy_table[i]->name, name) == 0) {
			*v = i;
			return 0;
		}
	return -1;
}

static int
one_mode(const char *name, int *v)
{
	*v = engine_mode_parse(name);
	return *v < 0 ? -1 : 0;
}

/* Parse the options shared by the three commands and prepare the replay. */
int
sim_prepare(struct sim *m, struct cmd_ctx *ctx, const struct args *a,
    const char *def_policies, char **cause)
{
	const char *v;
	long long n;
	size_t i, nf = 0;
	int pol[SIM_MAX_RUNS], modes[4], np, nm, k, l;

	memset(m, 0, sizeof *m);
	m->ctx = ctx;
	replay_cfg_init(&m->rc);
	policy_params_init(&m->pp);
	emu_params_init(&m->ep);
	m->rc.trace = args_value(a, 0);

	/* the spec: --spec, else the session's */
	if ((v = args_get(a, "spec")) != NULL) {
		struct spec_diags d;
		struct strbuf diags = STRBUF_INIT;

		spec_diags_init(&d);
		m->own_spec = spec_load(v, &d);
		session_add_diags(&diags, &d);
		spec_diags_release(&d);
		if (m->own_spec == NULL) {
			strbuf_adds(ctx->err, diags.buf);
			strbuf_release(&diags);
			ctx->status = CMD_EXIT_SPEC;
			*cause = xasprintf("cannot use spec '%s'", v);
			return -1;
		}
		strbuf_release(&diags);
		m->s = m->own_spec;
	} else
		m->s = ctx->sess->spec;

	/* the trace and its transformations */
	if ((v = args_get(a, "format")) != NULL &&
	    (int)(m->rc.format = trace_format_parse(v)) < TRACE_AUTO) {
		*cause = xasprintf("unknown trace format '%s' (auto, philly, itp, tiresias)", v);
		return cmd_usage_error(ctx);
	}
	m->rc.vcmap = args_get(a, "vc-map");
	if (args_has(a, "seed")) {
		if ((n = args_strtonum(a, "seed", 0, 1LL << 53, cause)) < 0)
			return cmd_usage_error(ctx);
		m->rc.seed = (uint64_t)n;
	}
	if ((v = args_get(a, "from")) != NULL &&
	    sim_parse_duration(v, "--from", &m->rc.from, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "to")) != NULL &&
	    sim_parse_duration(v, "--to", &m->rc.to, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "sample")) != NULL &&
	    parse_fraction(v, "--sample", 0, 1, true, &m->rc.sample, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "load")) != NULL &&
	    parse_fraction(v, "--load", 0, 1e6, true, &m->rc.load, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "class")) != NULL && (m->rc.klass = job_class_parse(v)) < 0) {
		*cause = xasprintf("unknown class '%s' (guaranteed, opportunistic, auto)", v);
		return cmd_usage_error(ctx);
	}
	m->rc.skip_too_big = args_has(a, "skip-too-big");
	if ((v = args_get(a, "affinity")) != NULL) {
		if (strcmp(v, "soft") != 0 && strcmp(v, "hard") != 0) {
			*cause = xasprintf("unknown affinity '%s' (hard, soft)", v);
			return cmd_usage_error(ctx);
		}
		m->rc.soft_affinity = strcmp(v, "soft") == 0;
	}

	/* the policy's parameters */
	if (args_has(a, "queues")) {
		if ((n = args_strtonum(a, "queues", 1, POLICY_MAX_QUEUES, cause)) < 0)
			return cmd_usage_error(ctx);
		m->pp.nqueues = (int)n;
		for (k = 1; k < m->pp.nqueues - 1; k++)
			if (m->pp.thresholds[k] <= m->pp.thresholds[k - 1])
				m->pp.thresholds[k] = m->pp.thresholds[k - 1] * 10;
	}
	if ((v = args_get(a, "thresholds")) != NULL &&
	    policy_params_thresholds(&m->pp, v, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "promote")) != NULL &&
	    parse_fraction(v, "--promote", 0, 1e9, false, &m->pp.promote_knob, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "service")) != NULL) {
		if (sample_load(v, &m->service, cause) < 0)
			return -1;
		m->pp.service = m->service.v;
		m->pp.nservice = m->service.n;
	}

	m->unit = &time_units[0];
	if ((v = args_get(a, "units")) != NULL) {
		for (i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
			if (strcmp(v, time_units[i].name) == 0)
				m->unit = &time_units[i];
		if (strcmp(m->unit->name, v) != 0) {
			*cause = xasprintf("invalid --units '%s' (s, m, h or d)", v);
			return cmd_usage_error(ctx);
		}
	}

	/* the emulator */
	m->ep.ideal = args_has(a, "ideal");
	if ((v = args_get(a, "binding")) != NULL) {
		if (strcmp(v, "static") != 0 && strcmp(v, "dynamic") != 0) {
			*cause = xasprintf("unknown binding '%s' (dynamic, static)", v);
			return cmd_usage_error(ctx);
		}
		m->ep.static_binding = strcmp(v, "static") == 0;
	}
	m->ep.no_affinity_slowdown = args_has(a, "no-affinity-slowdown");
	m->ep.borrow = args_has(a, "borrow");
	if ((v = args_get(a, "opp-threshold")) != NULL &&
	    parse_fraction(v, "--opp-threshold", 0, 1, true, &m->ep.opp_threshold, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "opp-window")) != NULL &&
	    sim_parse_duration(v, "--opp-window", &m->ep.opp_window, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "ckpt-interval")) != NULL &&
	    sim_parse_duration(v, "--ckpt-interval", &m->ep.ckpt_interval, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "feedback")) != NULL &&
	    (sim_parse_duration(v, "--feedback", &m->ep.feedback, cause) < 0 ||
	    m->ep.feedback <= 0)) {
		if (*cause == NULL)
			*cause = xstrdup("--feedback must be longer than 0");
		return cmd_usage_error(ctx);
	}
	if ((v = args_get(a, "slice")) != NULL &&
	    (sim_parse_duration(v, "--slice", &m->ep.slice, cause) < 0 || m->ep.slice <= 0)) {
		if (*cause == NULL)
			*cause = xstrdup("--slice must be longer than 0");
		return cmd_usage_error(ctx);
	}
	m->ep.pack = !args_has(a, "no-pack");
	m->ep.no_slice = args_has(a, "no-slice");
	if (m->ep.no_slice && !m->ep.pack) {
		*cause = xstrdup("--no-slice and --no-pack leave gandiva no way to share GPUs");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "max-height")) {
		n = args_strtonum(a, "max-height", 1, SIM_MAX_HEIGHT, cause);
		if (*cause != NULL)
			return cmd_usage_error(ctx);
		m->ep.height = (int)n;
	}
	if ((v = args_get(a, "gpu-mem")) != NULL &&
	    parse_fraction(v, "--gpu-mem", 0, 1e6, true, &m->ep.gpu_mem, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "suspend-cost")) != NULL &&
	    parse_fraction(v, "--suspend-cost", 0, 1e6, false, &m->ep.suspend_scale, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "migrate-cost")) != NULL &&
	    parse_fraction(v, "--migrate-cost", 0, 1e6, false, &m->ep.migrate_scale, cause) < 0)
		return cmd_usage_error(ctx);
	m->ep.migrate = !args_has(a, "no-migrate");
	if ((v = args_get(a, "defrag-every")) != NULL &&
	    sim_parse_duration(v, "--defrag-every", &m->ep.defrag_every, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "grow-after")) != NULL &&
	    sim_parse_duration(v, "--grow-after", &m->ep.grow_after, cause) < 0)
		return cmd_usage_error(ctx);
	for (i = 0; i < args_nopts(a); i++)
		if (strcmp(args_opt_name(a, i), "fault") == 0)
			nf++;
	m->faults = xcalloc(nf + 1, sizeof *m->faults);
	for (i = 0; i < args_nopts(a); i++) {
		if (strcmp(args_opt_name(a, i), "fault") != 0)
			continue;
		if (parse_fault(m->s, args_opt_value(a, i), &m->faults[m->ep.nfaults], cause) < 0)
			return cmd_usage_error(ctx);
		m->ep.nfaults++;
	}
	m->ep.faults = m->faults;

	/* the runs: policies x sharing modes */
	if (parse_list((v = args_get(a, "policy")) ? v : def_policies, "policy",
	    one_policy, policy_unknown, pol, SIM_MAX_RUNS, &np, cause) < 0)
		return cmd_usage_error(ctx);
	v = args_get(a, "sharing");
	if (v == NULL) {
		modes[0] = ctx->sess->mode;
		nm = 1;
	} else if (parse_list(v, "sharing mode", one_mode, engine_mode_unknown, modes,
	    4, &nm, cause) < 0)
		return cmd_usage_error(ctx);
	for (k = 0; k < np; k++)
		for (l = 0; l < nm; l++) {
			if (m->nruns == SIM_MAX_RUNS) {
				*cause = xasprintf("at most %d runs at once", SIM_MAX_RUNS);
				return cmd_usage_error(ctx);
			}
			m->runs[m->nruns].ops = policy_table[pol[k]];
			m->runs[m->nruns].mode = (enum engine_mode)modes[l];
			m->nruns++;
		}
	for (k = 0; m->ep.no_slice && k < m->nruns &&
	    !(m->runs[k].ops->flags & POLICY_OVERSUB); k++)
		;
	if (m->ep.no_slice && k == m->nruns) {
		*cause = xstrdup("--no-slice applies to gandiva only (no policy of "
		    "this run time-slices)");
		return cmd_usage_error(ctx);
	}
	if (sim_borrow_check(m, m->runs, m->nruns, cause) < 0)
		return cmd_usage_error(ctx);

	if (replay_prepare(&m->r, m->s, &m->rc, cause) < 0)
		return -1;
	m->prepared = true;
	return 0;
}

/* ---- progress: a transient line on a terminal, for runs over a second ---- */

/*
 * ", ETA 1m20s" from the seconds so far and the share of the work done
 * (jobs completed: arrivals spread over the trace, so a fair measure);
 * empty until a twentieth of it is done. Static buffer: the main thread.
 */
static const char *
eta(double secs, double f)
{
	static char buf[48];
	double left;

	if (!(f >= 0.05) || f >= 1)
		return "";
	left = secs * (1 - f) / f;
	if (left >= 60)
		snprintf(buf, sizeof buf, ", ETA %dm%02ds", (int)(left / 60), (int)left % 60);
	else
		snprintf(buf, sizeof buf, ", ETA %.0f s", left);
	return buf;
}

static bool
progress(void *arg, const struct emu_progress *pr)
{
	struct sim *m = arg;
	const struct frontend *fe = m->ctx->sess->fe;
	struct timespec now;
	char line[160];
	double secs;

	if (fe == NULL)
		return true;
	if (fe->interrupted(fe))
		return false;
	if (fe->progress == NULL)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = elapsed(&m->t0, &now);
	/* a short run shows no line; the frontend decides the rest (a
	   terminal, a log) */
	if (secs < 0.8 || elapsed(&m->last, &now) < 0.2)
		return true;
	m->last = now;
	snprintf(line, sizeof line, "%s: %d/%d jobs done, sim time %.1f d, %.0f events/s%s",
	    m->label, pr->done, pr->njobs, pr->now / 86400, (double)pr->events / secs,
	    eta(secs, pr->njobs > 0 ? (double)pr->done / pr->njobs : 0));
	fe->progress(fe, line);
	m->shown = true;
	return true;
}

/*
 * The replayed jobs' GPU-hours: each one's GPUs x its duration at ideal
 * speed. Not trace_summary's sum over the trace as read: the service it
 * is compared with is the replayed jobs' only, without those the VC map
 * drops or that are too big for their VC.
 */
static double
replayed_gpu_hours(const struct replay *r)
{
	double h = 0;
	int i;

	for (i = 0; i < r->njobs; i++)
		if (r->jobs[i].duration > 0)
			h += r->jobs[i].gpus * r->jobs[i].duration / 3600;
	return h;
}

/*
 * Researchers compare with simulators that have no speed model (Tiresias',
 * HiveD's): say how much service it added, and how to turn it off.
 */
static void
speed_model_note(struct sim *m, const char *label, const struct replay_result *res)
{
	double t = replayed_gpu_hours(&m->r), g = res->report.all.gpu_hours;

	if (m->speed_noted || m->ep.ideal || !(t > 0) || g < t * 1.01)
		return;
	m->speed_noted = true;
	cmd_note(m->ctx, "%s: %.0f GPU-hours of service, %.0f%% over the trace's "
	    "%.0f: the speed model slows jobs spread over nodes or sharing GPUs "
	    "and repeats work lost to preemptions and failures; --ideal runs "
	    "without it, as the papers' simulators do", label, g,
	    100 * (g / t - 1), t);
}

/* Run one configuration; the wall time goes to stderr as a note. */
int
sim_run(struct sim *m, const struct simrun *run, const struct replay_hooks *h,
    struct replay_result *res, char **cause)
{
	const struct frontend *fe = m->ctx->sess->fe;
	struct policy p;
	struct timespec end;
	char label[64];
	int rc;

	if (policy_init(&p, run->ops, &m->pp, cause) < 0)
		return cmd_usage_error(m->ctx);
	snprintf(label, sizeof label, "%s/%s", run->ops->name, engine_mode_name(run->mode));
	m->label = label;
	m->shown = false;
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	m->last = m->t0;
	rc = replay_run_hooked(&m->r, &p, run->mode, &m->ep, progress, m, h, res,
	    cause);
	policy_release(&p);
	if (m->shown && fe != NULL && fe->progress != NULL)
		fe->progress(fe, NULL);
	if (rc < 0) {
		if (fe != NULL && fe->interrupted(fe))
			m->ctx->status = CMD_EXIT_INTR;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	cmd_note(m->ctx, "%s: %d jobs, %lld events in %.2f s (%.0f jobs/s)", label,
	    m->r.njobs, res->events, elapsed(&m->t0, &end),
	    m->r.njobs / fmax(elapsed(&m->t0, &end), 1e-9));
	speed_model_note(m, label, res);
	return 0;
}

/* ---- several runs at once (compare, anomaly) ---- */

/* One run on a worker thread; progress through atomics, read by the main one. */
struct simtask {
	struct sim		*m;
	const struct simrun	*run;
	struct policy		 p;
	bool			 policy_ok;
	bool			 keep_jobs;	/* anomaly reads each job; compare not */
	struct replay_result	*res;
	char			*cause;
	int			 rc;
	double			 secs;
	char			 label[64];
	atomic_int		 done;		/* jobs completed so far */
	atomic_bool		 over;		/* returned */
};

struct simbatch {
	struct sim		*m;
	struct simtask		*t;
	int			 n;
	const char		*what;		/* "compare" */
	struct timespec		 t0, last_line;
	atomic_bool		 stop;		/* Ctrl-C: runs return at their next progress */
	bool			 shown;
};

static bool
task_progress(void *arg, const struct emu_progress *pr)
{
	struct simtask *t = arg;
	struct simbatch *b = (struct simbatch *)t->m->batch;

	atomic_store(&t->done, pr->done);
	return !atomic_load(&b->stop);
}

static void
task_run(void *arg, int i)
{
	struct simbatch *b = arg;
	struct simtask *t = &b->t[i];
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	t->rc = replay_run_hooked(&b->m->r, &t->p, t->run->mode, &b->m->ep,
	    task_progress, t, NULL, t->res, &t->cause);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	t->secs = elapsed(&t0, &t1);
	if (t->rc == 0 && !t->keep_jobs) {
		free(t->res->jobs);	/* 82,229 jobs a run: not kept for nothing */
		t->res->jobs = NULL;
	}
	atomic_store(&t->over, true);
}

/* The main thread's look at the runs: the progress line, Ctrl-C. */
static void
batch_tick(void *arg)
{
	struct simbatch *b = arg;
	const struct frontend *fe = b->m->ctx->sess->fe;
	struct timespec now;
	struct strbuf sb = STRBUF_INIT;
	double secs, f = 0;
	int i, over = 0, running = 0;

	if (fe == NULL)
		return;
	if (fe->interrupted(fe))
		atomic_store(&b->stop, true);
	if (fe->progress == NULL)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	secs = elapsed(&b->t0, &now);
	if (secs < 0.8 || elapsed(&b->last_line, &now) < 0.2)
		return;
	b->last_line = now;
	for (i = 0; i < b->n; i++) {
		int njobs = b->m->r.njobs;
		if (atomic_load(&b->t[i].over)) {
			over++;
			f += 1;
			continue;
		}
		if (atomic_load(&b->t[i].done) == 0)
			continue;
		f += njobs > 0 ? (double)atomic_load(&b->t[i].done) / njobs : 0;
		strbuf_addf(&sb, "%s%s", running++ ? ", " : " (", b->t[i].label);
	}
	if (running > 0)
		strbuf_adds(&sb, ")");
	f /= b->n;
	{
		char line[240];
		snprintf(line, sizeof line, "%s: %d/%d runs done%s, %.0f%% of the jobs, "
		    "%.0f s%s", b->what, over, b->n, sb.buf, 100 * f, secs, eta(secs, f));
		fe->progress(fe, line);
	}
	b->shown = true;
	strbuf_release(&sb);
}

/*
 * Run runs[0..n) into res[0..n), up to --parallel at once (threads: the
 * runs are independent and deterministic, so the reports are those of
 * one run after another). The notes of the wall times follow in order.
 * On a failure: -1 with the first failed run's cause (res all released).
 */
int
sim_run_all(struct sim *m, const struct args *a, const char *what,
    const struct simrun *runs, int n, bool keep_jobs, struct replay_result *res,
    char **cause)
{
	const struct frontend *fe = m->ctx->sess->fe;
	struct simbatch b;
	int i, threads, rc = 0;

	threads = sim_pool_threads(n);
	if (args_has(a, "parallel")) {
		threads = (int)args_strtonum(a, "parallel", 1, 64, cause);
		if (*cause != NULL)
			return cmd_usage_error(m->ctx);
	}
	memset(&b, 0, sizeof b);
	b.m = m;
	b.n = n;
	b.what = what;
	b.t = xcalloc((size_t)n, sizeof *b.t);
	atomic_init(&b.stop, false);
	m->batch = &b;
	for (i = 0; i < n; i++) {
		struct simtask *t = &b.t[i];
		t->m = m;
		t->run = &runs[i];
		t->res = &res[i];
		t->keep_jobs = keep_jobs;
		atomic_init(&t->done, 0);
		atomic_init(&t->over, false);
		snprintf(t->label, sizeof t->label, "%s/%s", runs[i].ops->name,
		    engine_mode_name(runs[i].mode));
		if (policy_init(&t->p, runs[i].ops, &m->pp, cause) < 0) {
			rc = cmd_usage_error(m->ctx);
			break;
		}
		t->policy_ok = true;
	}
	clock_gettime(CLOCK_MONOTONIC, &b.t0);
	b.last_line = b.t0;
	if (rc == 0 && sim_pool_run(n, threads, task_run, batch_tick, 200, &b) < 0) {
		*cause = xstrdup("cannot start the runs' threads");
		rc = -1;
	}
	if (b.shown && fe != NULL && fe->progress != NULL)
		fe->progress(fe, NULL);
	for (i = 0; i < n; i++) {
		struct simtask *t = &b.t[i];
		if (t->policy_ok)
			policy_release(&t->p);
		if (rc == 0 && t->rc < 0 && *cause == NULL) {
			*cause = t->cause;
			t->cause = NULL;
			rc = -1;
		}
		free(t->cause);
		if (rc == 0 && t->rc == 0) {
			cmd_note(m->ctx, "%s: %d jobs, %lld events in %.2f s (%.0f jobs/s)",
			    t->label, m->r.njobs, res[i].events, t->secs,
			    m->r.njobs / fmax(t->secs, 1e-9));
			speed_model_note(m, t->label, &res[i]);
		}
	}
	if (rc < 0) {
		if (fe != NULL && fe->interrupted(fe))
			m->ctx->status = CMD_EXIT_INTR;
		for (i = 0; i < n; i++)
			if (b.t[i].policy_ok && b.t[i].rc == 0 && atomic_load(&b.t[i].over))
				replay_result_release(&res[i]);
	}
	m->batch = NULL;
	free(b.t);
	return rc;
}

/* ---- output ---- */

const struct table_colspec sim_replay_columns[] = {
	{ "GROUP", "group", TABLE_NAME, "all jobs, one VC's, or one class's: (guaranteed), (opportunistic), as each job ran" },
	{ "JOBS", "jobs", TABLE_NUM, "jobs submitted" },
	{ "DONE", "done", TABLE_NUM, "jobs completed" },
	{ "NEVER", "never", TABLE_NUM, "jobs that never started" },
	{ "JCT_AVG", "jct_avg", TABLE_NUM, "job completion time, seconds (or --units): mean" },
	{ "JCT_MED", "jct_median", TABLE_NUM, "median" },
	{ "JCT_P95", "jct_p95", TABLE_NUM, "95th percentile" },
	{ "JCT_P99", "jct_p99", TABLE_NUM | TABLE_WIDE, "99th percentile" },
	{ "Q_AVG", "queue_avg", TABLE_NUM, "queuing delay (time pending), seconds (or --units): mean" },
	{ "Q_MED", "queue_median", TABLE_NUM, "median" },
	{ "Q_P95", "queue_p95", TABLE_NUM, "95th percentile" },
	{ "Q_P99", "queue_p99", TABLE_NUM | TABLE_WIDE, "99th percentile" },
	{ "GPU_H", "gpu_hours", TABLE_NUM, "GPU-hours of service" },
	{ "PREEMPT", "preemptions", TABLE_NUM, "preemptions" },
	{ "PREEMPT_GPUS", "preempted_gpus", TABLE_NUM, "GPUs preempted: each preemption counts the victim's GPUs" },
	{ "PREEMPT_GPU_H", "preempted_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours the runs preemptions cut short had run" },
	{ "FAIL", "failures", TABLE_NUM | TABLE_WIDE, "restarts after node failures" },
	{ "LOST_GPU_H", "lost_gpu_hours", TABLE_NUM, "GPU-hours lost to failures and checkpoints" },
	{ "FB_AVG", "feedback_avg", TABLE_NUM, "early feedback: seconds (or --units) from submission until the job has run --feedback, mean" },
	{ "FB_P95", "feedback_p95", TABLE_NUM | TABLE_WIDE, "95th percentile" },
	{ "SUSP", "suspensions", TABLE_NUM, "suspensions (time-slicing)" },
	{ "SUSP_GPU_H", "suspend_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours of suspend+resume stalls" },
	{ "MIGR", "migrations", TABLE_NUM, "migrations" },
	{ "MIGR_GPU_H", "migrate_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours of migration stalls" },
	{ NULL, NULL, 0, NULL }
};

/* A time in the table's unit. */
void
sim_cell_time(struct table *t, const struct time_unit *u, double secs)
{
	table_cell(t, u->fmt, secs / u->secs);
}

void
sim_group_row(struct table *t, const struct time_unit *u, long tag,
    const struct emu_group *g)
{
	table_row(t);
	table_row_tag(t, tag);
	table_cell(t, "%s", g->name);
	table_cell_int(t, g->jobs);
	table_cell_int(t, g->done);
	table_cell_role(t, g->never ? ROLE_WARN : ROLE_NONE, "%d", g->never);
	sim_cell_time(t, u, g->jct.avg);
	sim_cell_time(t, u, g->jct.median);
	sim_cell_time(t, u, g->jct.p95);
	sim_cell_time(t, u, g->jct.p99);
	sim_cell_time(t, u, g->queue.avg);
	sim_cell_time(t, u, g->queue.median);
	sim_cell_time(t, u, g->queue.p95);
	sim_cell_time(t, u, g->queue.p99);
	table_cell(t, "%.1f", g->gpu_hours);
	table_cell_int(t, g->preemptions);
	table_cell(t, "%lld", g->preempted_gpus);
	table_cell(t, "%.1f", g->preempted_gpu_hours);
	table_cell_int(t, g->failures);
	table_cell(t, "%.1f", g->lost_gpu_hours);
	sim_cell_time(t, u, g->feedback.avg);
	sim_cell_time(t, u, g->feedback.p95);
	table_cell_int(t, g->suspensions);
	table_cell(t, "%.2f", g->suspend_gpu_hours);
	table_cell_int(t, g->migrations);
	table_cell(t, "%.2f", g->migrate_gpu_hours);
}

void
sim_dist_json(struct json *j, const char *key, const struct emu_dist *d)
{
	json_key(j, key);
	json_object_begin(j);
	json_kv_double(j, "avg", d->avg);
	json_kv_double(j, "median", d->median);
	json_kv_double(j, "p95", d->p95);
	json_kv_double(j, "p99", d->p99);
	json_kv_double(j, "max", d->max);
	json_object_end(j);
}

void
sim_group_json(struct json *j, const struct emu_group *g)
{
	json_object_begin(j);
	json_kv_string(j, "group", g->name);
	json_kv_int(j, "jobs", g->jobs);
	json_kv_int(j, "done", g->done);
	json_kv_int(j, "never", g->never);
	sim_dist_json(j, "jct", &g->jct);
	sim_dist_json(j, "queue", &g->queue);
	json_kv_double(j, "gpu_hours", g->gpu_hours);
	json_kv_int(j, "preemptions", g->preemptions);
	json_kv_int(j, "preempted_gpus", g->preempted_gpus);
	json_kv_double(j, "preempted_gpu_hours", g->preempted_gpu_hours);
	json_kv_int(j, "failures", g->failures);
	json_kv_double(j, "lost_gpu_hours", g->lost_gpu_hours);
	sim_dist_json(j, "feedback", &g->feedback);
	json_kv_int(j, "suspensions", g->suspensions);
	json_kv_double(j, "suspend_gpu_hours", g->suspend_gpu_hours);
	json_kv_int(j, "migrations", g->migrations);
	json_kv_double(j, "migrate_gpu_hours", g->migrate_gpu_hours);
	if (g->borrowed_jobs > 0) {	/* only borrowing runs have them */
		json_kv_int(j, "borrowed_jobs", g->borrowed_jobs);
		json_kv_double(j, "borrowed_gpu_hours", g->borrowed_gpu_hours);
	}
	json_object_end(j);
}

void
sim_replay_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct replay_json_arg *ra = arg;

	(void)ctx;
	sim_group_json(j, tag == -1 ? &ra->rep->all : tag < -1 ? &ra->rep->klass[-2 - tag] :
	    &ra->rep->vcs[tag]);
}

/*
 * The run-wide experiment switches a report must name, as its reader
 * cannot tell them from the numbers: each is in the JSON and the text
 * header only when set, so the outputs of runs without them stay as they
 * were.
 */
static const struct sim_setting {
	size_t		 off;		/* a bool in struct emu_params */
	const char	*key;		/* JSON */
	const char	*json;		/* its value: a string, or NULL: false */
	const char	*text;		/* the text header's words */
} sim_settings[] = {
	{ offsetof(struct emu_params, static_binding), "binding", "static",
	  "static binding" },
	{ offsetof(struct emu_params, no_affinity_slowdown), "no_affinity_slowdown",
	  "", "no affinity slowdown" },
	{ offsetof(struct emu_params, no_slice), "time_slicing", NULL,
	  "gandiva without time-slicing" },
};

static bool
sim_setting_on(const struct sim *m, const struct sim_setting *st)
{
	return *(const bool *)((const char *)&m->ep + st->off);
}

void
sim_settings_json(struct json *j, const struct sim *m)
{
	size_t k;

	for (k = 0; k < sizeof sim_settings / sizeof sim_settings[0]; k++) {
		const struct sim_setting *st = &sim_settings[k];
		if (!sim_setting_on(m, st))
			continue;
		if (st->json == NULL)
			json_kv_bool(j, st->key, false);
		else if (st->json[0] == '\0')
			json_kv_bool(j, st->key, true);
		else
			json_kv_string(j, st->key, st->json);
	}
}

void
sim_settings_text(struct strbuf *sb, const struct sim *m)
{
	size_t k;

	if (m->ep.ideal)
		strbuf_adds(sb, ", ideal");
	for (k = 0; k < sizeof sim_settings / sizeof sim_settings[0]; k++)
		if (sim_setting_on(m, &sim_settings[k]))
			strbuf_addf(sb, ", %s", sim_settings[k].text);
}

void
sim_config_json(struct json *j, const struct sim *m, const struct simrun *run)
{
	json_key(j, "config");
	json_object_begin(j);
	json_kv_string(j, "trace", m->rc.trace);
	json_kv_string(j, "spec", m->s->path);
	json_kv_string(j, "policy", run->ops->name);
	json_kv_string(j, "sharing", engine_mode_name(run->mode));
	json_kv_int(j, "seed", (long long)m->rc.seed);
	json_kv_bool(j, "ideal", m->ep.ideal);
	if (sim_run_borrows(m, run))	/* absent: no borrowing, as before */
		json_kv_bool(j, "borrow", true);
	sim_settings_json(j, m);
	json_kv_int(j, "jobs", m->r.njobs);
	json_kv_int(j, "dropped", m->r.dropped);
	json_kv_int(j, "too_big", m->r.skipped);
	json_object_end(j);
}

void
sim_totals_json(struct json *j, const struct replay_result *res)
{
	json_kv_double(j, "makespan", res->report.makespan);
	json_kv_double(j, "util", res->report.util);
	json_kv_double(j, "frag_avg", res->report.frag_avg);
	json_kv_double(j, "frag_node_avg", res->report.frag_node_avg);
	json_kv_int(j, "events", res->events);
	json_kv_int(j, "relaxed_starts", res->report.relaxed);
	json_kv_int(j, "time_sliced_starts", res->report.guests);
	json_kv_int(j, "packs", res->report.packs);
	json_kv_int(j, "unpacks", res->report.unpacks);
	json_kv_int(j, "grows", res->report.grows);
	json_kv_int(j, "shrinks", res->report.shrinks);
	json_key(j, "window");
	json_object_begin(j);
	json_kv_double(j, "start", res->report.win_start);
	json_kv_double(j, "end", res->report.win_end);
	json_kv_double(j, "util", res->report.win_util);
	json_kv_double(j, "sm_util", res->report.win_sm);
	json_object_end(j);
	if (res->report.borrow) {
		json_key(j, "borrowed");
		json_object_begin(j);
		json_kv_int(j, "jobs", res->report.all.borrowed_jobs);
		json_kv_double(j, "gpu_hours", res->report.all.borrowed_gpu_hours);
		json_object_end(j);
	}
	if (res->report.opp_shared) {
		json_key(j, "antman");
		json_object_begin(j);
		json_kv_double(j, "sm_util", res->report.sm_util);
		json_kv_double(j, "mem_util", res->report.mem_util);
		json_kv_double(j, "interference", res->report.interference);
		json_kv_int(j, "opportunistic_starts", res->report.opp_guests);
		json_kv_int(j, "opportunistic_done", res->report.opp_done);
		json_kv_int(j, "upgrades", res->report.upgrades);
		json_kv_int(j, "upgrades_in_place", res->report.upgrades -
		    res->report.upgrades_moved);
		json_kv_int(j, "upgrades_moved", res->report.upgrades_moved);
		json_kv_int(j, "out_of_memory", res->report.ooms);
		json_object_end(j);
	}
}

/*
 * --borrow is a flag beside --sharing rather than a sharing mode of its
 * own: borrowing is a rule of quota mode (the engine's quota accounting,
 * engine_set_borrow), so `compare --sharing quota,hived --borrow` puts the
 * borrowing quota run beside hived's, and reports, the store's run
 * parameters and every place that names a mode keep the three modes.
 * Runs in other modes ignore it; a command none of whose runs is in quota
 * mode refuses it.
 */
int
sim_borrow_check(const struct sim *m, const struct simrun *runs, int n, char **cause)
{
	int i;

	if (!m->ep.borrow)
		return 0;
	for (i = 0; i < n; i++)
		if (runs[i].mode == ENGINE_QUOTA)
			return 0;
	*cause = xstrdup("--borrow needs --sharing quota (borrowing idle GPUs over a "
	    "VC's quota is a rule of quota sharing)");
	return -1;
}

bool
sim_run_borrows(const struct sim *m, const struct simrun *run)
{
	return m->ep.borrow && run->mode == ENGINE_QUOTA;
}

void
sim_borrow_text(struct strbuf *o, const char *label, const struct emu_report *r)
{
	if (!r->borrow)
		return;
	strbuf_addf(o, "%s%sborrowing: %d job(s) ran over their VC's quota on idle GPUs, "
	    "kept until they ended (%.1f GPU-hours held borrowed)\n",
	    label ? label : "", label ? ": " : "", r->all.borrowed_jobs,
	    r->all.borrowed_gpu_hours);
}

/* AntMan's figures, one line each, when the policy shared GPUs its way. */
void
sim_antman_text(struct strbuf *o, const struct emu_report *r)
{
	if (!r->opp_shared)
		return;
	strbuf_addf(o, "AntMan: SM utilization %.1f%%, GPU memory %.1f%% (averages over "
	    "all GPUs); guaranteed jobs lost %.2f%% of their progress to co-located jobs\n"
	    "AntMan: %lld opportunistic starts, %lld completed, %lld upgraded to "
	    "guaranteed (%lld in place, %lld moved), %lld out of memory\n",
	    100 * r->sm_util, 100 * r->mem_util, 100 * r->interference, r->opp_guests,
	    r->opp_done, r->upgrades, r->upgrades - r->upgrades_moved, r->upgrades_moved,
	    r->ooms);
}

/* Jobs by submission (then id): insertion sort, as a replay's jobs come
   nearly in that order already. */
static void
sort_by_submit(int *by, int n, const struct job *jobs)
{
	int i, k, x;

	for (i = 1; i < n; i++) {
		x = by[i];
		for (k = i; k > 0 && (jobs[by[k - 1]].submit > jobs[x].submit ||
		    (jobs[by[k - 1]].submit == jobs[x].submit && by[k - 1] > x)); k--)
			by[k] = by[k - 1];
		by[k] = x;
	}
}

/*
 * The series as CSV: the samples, then each VC's queuing delay (submission
 * to first start, HiveD's) averaged over its started jobs submitted in
 * (t - win, t], HiveD's moving window (Fig. 5-6: 12 hours); empty when the
 * window holds none of its jobs.
 */
int
sim_write_series(struct cmd_ctx *ctx, const struct sim *m, const char *path,
    const struct replay_result *res, double win, char **cause)
{
	FILE *fp = fopen(path, "w");
	const struct job *jobs = res->jobs;
	int nvcs = m->s->nvcs, i, v, n = 0, lo = 0, hi = 0, *by;
	double *sum;
	int *cnt;

	if (fp == NULL) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	by = xcalloc((size_t)m->r.njobs + 1, sizeof *by);
	for (i = 0; i < m->r.njobs; i++)
		if (jobs[i].first_start >= 0)
			by[n++] = i;
	sort_by_submit(by, n, jobs);
	sum = xcalloc((size_t)nvcs + 1, sizeof *sum);
	cnt = xcalloc((size_t)nvcs + 1, sizeof *cnt);
	fprintf(fp, "time,pending,running,gpus_guaranteed,gpus_opportunistic,gpus_bad,"
	    "frag,frag_node");
	for (v = 0; v < nvcs; v++)
		fprintf(fp, ",queue_%s", m->s->vcs[v].name);
	fputc('\n', fp);
	/* the window's two ends move forward with the samples: add the jobs
	   submitted up to t, take back those submitted by t - win */
	for (i = 0; i < res->nseries; i++) {
		const struct emu_sample *x = &res->series[i];
		for (; hi < n && jobs[by[hi]].submit <= x->t; hi++) {
			const struct job *j = &jobs[by[hi]];
			sum[j->vc] += j->first_start - j->submit;
			cnt[j->vc]++;
		}
		for (; lo < hi && jobs[by[lo]].submit <= x->t - win; lo++) {
			const struct job *j = &jobs[by[lo]];
			sum[j->vc] -= j->first_start - j->submit;
			cnt[j->vc]--;
		}
		fprintf(fp, "%.0f,%d,%d,%lld,%lld,%lld,%.4f,%.4f", x->t, x->pending,
		    x->running, x->used, x->opp, x->bad, x->frag, x->frag_node);
		for (v = 0; v < nvcs; v++)
			if (cnt[v] > 0)
				fprintf(fp, ",%.0f", fmax(0, sum[v] / cnt[v]));
			else
				fputs(",", fp);
		fputc('\n', fp);
	}
	free(by);
	free(sum);
	free(cnt);
	if (fclose(fp) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	cmd_note(ctx, "wrote %d samples to '%s'", res->nseries, path);
	return 0;
}

int
sim_figure_status(struct cmd_ctx *ctx, int status)
{
	ctx->status = status;
	return -1;
}
