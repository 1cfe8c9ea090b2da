/*
 * cmd-sim.c — the emulator's commands: replay (one run of a trace under a
 * policy and a sharing mode), compare (several runs side by side) and
 * anomaly (each VC's queuing delay shared vs in its private cluster,
 * HiveD's sharing-safety claim as one command).
 *
 * The three share one option set and one preparation (load the spec and the
 * trace, map it, set up the policy); the emulator itself lives in src/sim.
 * Reports are deterministic; the wall time of a run goes to stderr as a note
 * so that the report stays byte-identical between machines.
 *
 * With a state store named explicitly (--db or CELLAR_DB), replay records
 * the run there as it goes (kind replay, src/cmd/replay-db.c): checkpoints
 * every --checkpoint-every events hold the jobs that changed, their
 * placements and emulator state, the event journal and new series points,
 * one transaction each; the report when it ends. The same replay started
 * again on the same store resumes an unfinished run from its last
 * checkpoint (--fresh starts over), and ends with the very report an
 * uninterrupted run gives. The store is opened before the replay so a
 * store that cannot be written fails at once.
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/figure.h"
#include "cmd/frontend.h"
#include "cmd/replay-db.h"
#include "cmd/sim-pool.h"
#include "core/xmalloc.h"
#include "job/record.h"
#include "policy/policy.h"
#include "sim/replay.h"
#include "sim/sample.h"
#include "store/store.h"

#define SIM_MAX_RUNS	32
#define SIM_MAX_HEIGHT	16	/* --max-height: members per GPU slot */

/*
 * Events between a recorded replay's checkpoints without --checkpoint-every.
 * Each checkpoint is a transaction whose fixed part the writer pays again
 * (the run's state, the index and table pages its job rows share, the WAL
 * frames of those pages): at 4,096 the Philly replay's writer took 0.61 s
 * of CPU, at 32,768 0.45 s (bench-replay-store). 32,768 events are ~50 ms
 * of that replay: what a follower waits and a crash redoes at most.
 */
#define REPLAY_CHECKPOINT_EVERY	32768

/* Options every emulator command takes. */
#define SIM_COMMON_OPTS							\
	{ 0, "spec", "FILE", "the cluster spec (default: the session's)", VALUE_SPEC }, \
	{ 0, "format", "FMT", "trace format: auto, philly, itp, tiresias", VALUE_NONE }, \
	{ 0, "vc-map", "MAP", "trace VCs to spec VCs: a=b,c=d,*=x (x '-' drops)", VALUE_NONE }, \
	{ 0, "seed", "N", "seed for models, sampling and synth traces (default 1)", VALUE_NONE }, \
	{ 0, "from", "T", "keep jobs submitted at or after T (30m, 12h, 3d)", VALUE_NONE }, \
	{ 0, "to", "T", "keep jobs submitted before T", VALUE_NONE }, \
	{ 0, "sample", "F", "keep each job with probability F (0 < F <= 1)", VALUE_NONE }, \
	{ 0, "load", "X", "scale the arrival rate by X", VALUE_NONE }, \
	{ 0, "class", "C", "priority class of every job without its own (trace column class): guaranteed, opportunistic, auto (default: auto under antman, else guaranteed)", VALUE_NONE }, \
	{ 0, "affinity", "A", "hard (wait for a compact placement, default) or soft (relax)", VALUE_NONE }, \
	{ 0, "no-affinity-slowdown", NULL, "soft-affinity jobs run at compact speed, however relaxed", VALUE_NONE }, \
	{ 0, "skip-too-big", NULL, "drop jobs larger than their VC instead of failing", VALUE_NONE }, \
	{ 0, "ideal", NULL, "no speed model, free preemption", VALUE_NONE }, \
	{ 0, "binding", "B", "hived: dynamic (buddy, default) or static (each VC's cells bound at the start, for good)", VALUE_NONE }, \
	{ 0, "units", "U", "times in tables and csv: s (default), m, h or d (JSON: seconds)", VALUE_NONE }, \
	{ 0, "queues", "K", "las/gittins: number of queues (default 2)", VALUE_NONE }, \
	{ 0, "thresholds", "LIST", "las/gittins: queue thresholds in GPU-time (default 1h)", VALUE_NONE }, \
	{ 0, "promote", "KNOB", "las/gittins: back to the first queue after waiting KNOB x run time", VALUE_NONE }, \
	{ 0, "service", "FILE", "gittins: job service sample (yarn-gput csv)", VALUE_FILE }, \
	{ 0, "fault", "NODE@T[-T2]", "node goes bad at T (back at T2); repeatable", VALUE_NODE }, \
	{ 0, "ckpt-interval", "T", "periodic checkpoint interval for failures (default 30m)", VALUE_NONE }, \
	{ 0, "feedback", "T", "early feedback: time until a job has run T (default 10m)", VALUE_NONE }, \
	{ 0, "slice", "T", "gandiva: time-slice interval (default 60s)", VALUE_NONE }, \
	{ 0, "no-pack", NULL, "gandiva: time-slice only, never try packing", VALUE_NONE }, \
	{ 0, "max-height", "N", "gandiva: at most N jobs time-sliced per GPU (default 2, 1: none)", VALUE_NONE }, \
	{ 0, "gpu-mem", "GB", "gandiva, antman: GiB of memory per GPU (default 16)", VALUE_NONE }, \
	{ 0, "suspend-cost", "X", "gandiva: x each model's suspend+resume cost (default 1)", VALUE_NONE }, \
	{ 0, "migrate-cost", "X", "gandiva: x each model's migration cost (default 1)", VALUE_NONE }, \
	{ 0, "no-migrate", NULL, "gandiva: no locality or defragmentation migrations", VALUE_NONE }, \
	{ 0, "defrag-every", "T", "gandiva: defragmentation pass interval (default 60s, 0: none)", VALUE_NONE }, \
	{ 0, "grow-after", "T", "gandiva: elastic jobs grow into GPUs of their node idle T (default 5m)", VALUE_NONE }, \
	{ 0, "opp-threshold", "M", "antman: opportunistic jobs only on GPUs busy below M (default 0.8)", VALUE_NONE }, \
	{ 0, "opp-window", "T", "antman: GPU utilization averaged over T (default 5m)", VALUE_NONE }

static const struct cmd_opt replay_opts[] = {
	{ 0, "policy", "P", "scheduling policy (default las)", VALUE_POLICY },
	{ 0, "sharing", "MODE", "hived, quota or private (default: the session's mode)", VALUE_MODE },
	{ 0, "series", "FILE", "write the time series as CSV to FILE", VALUE_FILE },
	{ 0, "series-window", "T", "--series: each VC's queuing delay over the last T (default 12h)", VALUE_NONE },
	{ 0, "fresh", NULL, "with a store: start a new run, do not resume", VALUE_NONE },
	{ 0, "checkpoint-every", "N", "with a store: commit every N events (default 32768)", VALUE_NONE },
	SIM_COMMON_OPTS,
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct cmd_opt compare_opts[] = {
	{ 0, "policy", "P,...", "policies to compare (default fifo,las,gittins,srtf)", VALUE_POLICY },
	{ 0, "sharing", "MODE,...", "sharing modes to compare (default: the session's)", VALUE_MODE },
	{ 0, "figure", "FILE", "draw each run's mean JCT and delay, and delay over time, to FILE (.svg, .png)", VALUE_FILE },
	{ 0, "parallel", "N", "runs at once, on threads (default: the CPUs online)", VALUE_NONE },
	SIM_COMMON_OPTS,
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct cmd_opt anomaly_opts[] = {
	{ 0, "policy", "P", "scheduling policy in both runs (default las)", VALUE_POLICY },
	{ 0, "sharing", "MODE", "the shared mode: hived or quota (default hived)", VALUE_MODE },
	{ 0, "window", "T", "length of the windows compared (default 1d)", VALUE_NONE },
	{ 0, "figure", "FILE", "draw each VC's delay shared vs private (HiveD Fig. 6-7) to FILE (.svg, .png)", VALUE_FILE },
	{ 0, "parallel", "N", "runs at once, on threads (default: the CPUs online)", VALUE_NONE },
	SIM_COMMON_OPTS,
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* A unit for the times of report tables (--units); JSON keeps seconds. */
static const struct time_unit {
	const char	*name, *word;
	double		 secs;
	const char	*fmt;
} time_units[] = {
	{ "s", "seconds", 1, "%.0f" },
	{ "m", "minutes", 60, "%.1f" },
	{ "h", "hours", 3600, "%.2f" },
	{ "d", "days", 86400, "%.3f" },
};

/* One configuration to run. */
struct simrun {
	const struct policy_ops	*ops;
	enum engine_mode	 mode;
};

/* Everything a command prepared; released by sim_release. */
struct sim {
	struct cmd_ctx		*ctx;
	struct spec		*own_spec;	/* --spec, else borrowed from the session */
	const struct spec	*s;
	struct replay_cfg	 rc;
	struct replay		 r;
	bool			 prepared;
	struct policy_params	 pp;
	struct sample		 service;
	struct emu_params	 ep;
	struct emu_fault	*faults;
	struct simrun		 runs[SIM_MAX_RUNS];
	int			 nruns;
	/* progress */
	struct timespec		 t0, last;
	const char		*label;
	bool			 shown;
	bool			 speed_noted;	/* speed_model_note said it once */
	const struct time_unit	*unit;		/* --units: tables' times */
	void			*batch;		/* sim_run_all's, while it runs */
};

static double
elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* "90", "90s", "15m", "36h", "10d", "2w" -> seconds. */
static int
parse_duration(const char *s, const char *what, double *out, char **cause)
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
	if (parse_duration(times, "--fault time", &f->at, cause) < 0)
		goto out;
	if (dash != NULL) {
		if (parse_duration(dash, "--fault end", &f->until, cause) < 0)
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

static void
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
static int
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
	    parse_duration(v, "--from", &m->rc.from, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "to")) != NULL &&
	    parse_duration(v, "--to", &m->rc.to, cause) < 0)
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
	if ((v = args_get(a, "opp-threshold")) != NULL &&
	    parse_fraction(v, "--opp-threshold", 0, 1, true, &m->ep.opp_threshold, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "opp-window")) != NULL &&
	    parse_duration(v, "--opp-window", &m->ep.opp_window, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "ckpt-interval")) != NULL &&
	    parse_duration(v, "--ckpt-interval", &m->ep.ckpt_interval, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "feedback")) != NULL &&
	    (parse_duration(v, "--feedback", &m->ep.feedback, cause) < 0 ||
	    m->ep.feedback <= 0)) {
		if (*cause == NULL)
			*cause = xstrdup("--feedback must be longer than 0");
		return cmd_usage_error(ctx);
	}
	if ((v = args_get(a, "slice")) != NULL &&
	    (parse_duration(v, "--slice", &m->ep.slice, cause) < 0 || m->ep.slice <= 0)) {
		if (*cause == NULL)
			*cause = xstrdup("--slice must be longer than 0");
		return cmd_usage_error(ctx);
	}
	m->ep.pack = !args_has(a, "no-pack");
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
	    parse_duration(v, "--defrag-every", &m->ep.defrag_every, cause) < 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "grow-after")) != NULL &&
	    parse_duration(v, "--grow-after", &m->ep.grow_after, cause) < 0)
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
static int
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
static int
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

static const struct table_colspec replay_columns[] = {
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
static void
cell_time(struct table *t, const struct time_unit *u, double secs)
{
	table_cell(t, u->fmt, secs / u->secs);
}

static void
group_row(struct table *t, const struct time_unit *u, long tag,
    const struct emu_group *g)
{
	table_row(t);
	table_row_tag(t, tag);
	table_cell(t, "%s", g->name);
	table_cell_int(t, g->jobs);
	table_cell_int(t, g->done);
	table_cell_role(t, g->never ? ROLE_WARN : ROLE_NONE, "%d", g->never);
	cell_time(t, u, g->jct.avg);
	cell_time(t, u, g->jct.median);
	cell_time(t, u, g->jct.p95);
	cell_time(t, u, g->jct.p99);
	cell_time(t, u, g->queue.avg);
	cell_time(t, u, g->queue.median);
	cell_time(t, u, g->queue.p95);
	cell_time(t, u, g->queue.p99);
	table_cell(t, "%.1f", g->gpu_hours);
	table_cell_int(t, g->preemptions);
	table_cell(t, "%lld", g->preempted_gpus);
	table_cell(t, "%.1f", g->preempted_gpu_hours);
	table_cell_int(t, g->failures);
	table_cell(t, "%.1f", g->lost_gpu_hours);
	cell_time(t, u, g->feedback.avg);
	cell_time(t, u, g->feedback.p95);
	table_cell_int(t, g->suspensions);
	table_cell(t, "%.2f", g->suspend_gpu_hours);
	table_cell_int(t, g->migrations);
	table_cell(t, "%.2f", g->migrate_gpu_hours);
}

static void
dist_json(struct json *j, const char *key, const struct emu_dist *d)
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

static void
group_json(struct json *j, const struct emu_group *g)
{
	json_object_begin(j);
	json_kv_string(j, "group", g->name);
	json_kv_int(j, "jobs", g->jobs);
	json_kv_int(j, "done", g->done);
	json_kv_int(j, "never", g->never);
	dist_json(j, "jct", &g->jct);
	dist_json(j, "queue", &g->queue);
	json_kv_double(j, "gpu_hours", g->gpu_hours);
	json_kv_int(j, "preemptions", g->preemptions);
	json_kv_int(j, "preempted_gpus", g->preempted_gpus);
	json_kv_double(j, "preempted_gpu_hours", g->preempted_gpu_hours);
	json_kv_int(j, "failures", g->failures);
	json_kv_double(j, "lost_gpu_hours", g->lost_gpu_hours);
	dist_json(j, "feedback", &g->feedback);
	json_kv_int(j, "suspensions", g->suspensions);
	json_kv_double(j, "suspend_gpu_hours", g->suspend_gpu_hours);
	json_kv_int(j, "migrations", g->migrations);
	json_kv_double(j, "migrate_gpu_hours", g->migrate_gpu_hours);
	json_object_end(j);
}

struct replay_json_arg {
	const struct emu_report	*rep;
};

static void
replay_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct replay_json_arg *ra = arg;

	(void)ctx;
	group_json(j, tag == -1 ? &ra->rep->all : tag < -1 ? &ra->rep->klass[-2 - tag] :
	    &ra->rep->vcs[tag]);
}

static void
config_json(struct json *j, const struct sim *m, const struct simrun *run)
{
	json_key(j, "config");
	json_object_begin(j);
	json_kv_string(j, "trace", m->rc.trace);
	json_kv_string(j, "spec", m->s->path);
	json_kv_string(j, "policy", run->ops->name);
	json_kv_string(j, "sharing", engine_mode_name(run->mode));
	json_kv_int(j, "seed", (long long)m->rc.seed);
	json_kv_bool(j, "ideal", m->ep.ideal);
	if (m->ep.static_binding)	/* absent: dynamic, as before the option */
		json_kv_string(j, "binding", "static");
	if (m->ep.no_affinity_slowdown)
		json_kv_bool(j, "no_affinity_slowdown", true);
	json_kv_int(j, "jobs", m->r.njobs);
	json_kv_int(j, "dropped", m->r.dropped);
	json_kv_int(j, "too_big", m->r.skipped);
	json_object_end(j);
}

static void
totals_json(struct json *j, const struct replay_result *res)
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

/* AntMan's figures, one line each, when the policy shared GPUs its way. */
static void
antman_text(struct strbuf *o, const struct emu_report *r)
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
static int
write_series(struct cmd_ctx *ctx, const struct sim *m, const char *path,
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

/* ---- recording a replay in the state store ---- */

/* Every parameter of the run, as a JSON object. */
static void
params_json(struct strbuf *sb, const struct sim *m, const struct simrun *run)
{
	struct json j;
	int i;

	json_init(&j, sb);
	json_object_begin(&j);
	json_kv_string(&j, "trace", m->rc.trace);
	json_kv_string(&j, "format", trace_format_name(m->rc.format));
	json_kv_string(&j, "vc_map", m->rc.vcmap);
	json_kv_string(&j, "policy", run->ops->name);
	json_kv_string(&j, "sharing", engine_mode_name(run->mode));
	json_kv_int(&j, "seed", (long long)m->rc.seed);
	json_kv_double(&j, "from", m->rc.from);
	json_kv_double(&j, "to", m->rc.to);
	json_kv_double(&j, "sample", m->rc.sample);
	json_kv_double(&j, "load", m->rc.load);
	json_kv_string(&j, "class", job_class_name(replay_class(m->rc.klass, run->ops)));
	json_kv_string(&j, "affinity", m->rc.soft_affinity ? "soft" : "hard");
	json_kv_bool(&j, "skip_too_big", m->rc.skip_too_big);
	json_kv_bool(&j, "ideal", m->ep.ideal);
	if (m->ep.static_binding)	/* absent: dynamic, so older runs still match */
		json_kv_string(&j, "binding", "static");
	if (m->ep.no_affinity_slowdown)	/* absent: off, likewise */
		json_kv_bool(&j, "no_affinity_slowdown", true);
	json_kv_double(&j, "ckpt_interval", m->ep.ckpt_interval);
	json_kv_double(&j, "feedback", m->ep.feedback);
	json_kv_double(&j, "slice", m->ep.slice);
	json_kv_bool(&j, "pack", m->ep.pack);
	json_kv_int(&j, "max_height", m->ep.height);
	json_kv_double(&j, "gpu_mem", m->ep.gpu_mem);
	json_kv_double(&j, "suspend_cost", m->ep.suspend_scale);
	json_kv_double(&j, "migrate_cost", m->ep.migrate_scale);
	json_kv_bool(&j, "migrate", m->ep.migrate);
	json_kv_double(&j, "defrag_every", m->ep.defrag_every);
	json_kv_double(&j, "grow_after", m->ep.grow_after);
	json_kv_int(&j, "queues", m->pp.nqueues);
	json_key(&j, "thresholds");
	json_array_begin(&j);
	for (i = 0; i < m->pp.nqueues - 1 && i < POLICY_MAX_QUEUES; i++)
		json_double(&j, m->pp.thresholds[i]);
	json_array_end(&j);
	json_kv_double(&j, "promote", m->pp.promote_knob);
	json_kv_int(&j, "service_sample", (long long)m->pp.nservice);
	json_key(&j, "faults");
	json_array_begin(&j);
	for (i = 0; i < m->ep.nfaults; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "node", m->ep.faults[i].node);
		json_kv_double(&j, "at", m->ep.faults[i].at);
		json_kv_double(&j, "until", m->ep.faults[i].until);
		json_object_end(&j);
	}
	json_array_end(&j);
	json_kv_int(&j, "jobs", m->r.njobs);
	json_kv_int(&j, "dropped", m->r.dropped);
	json_kv_int(&j, "too_big", m->r.skipped);
	json_object_end(&j);
}

/* The report: what replay -o json prints, every group. */
static void
report_json(struct strbuf *sb, const struct sim *m, const struct simrun *run,
    const struct replay_result *res)
{
	struct json j;
	int v;

	json_init(&j, sb);
	json_object_begin(&j);
	json_kv_int(&j, "schema_version", CMD_SCHEMA_VERSION);
	json_kv_string(&j, "kind", "replay");
	config_json(&j, m, run);
	totals_json(&j, res);
	json_key(&j, "groups");
	json_array_begin(&j);
	group_json(&j, &res->report.all);
	for (v = 0; v < res->report.nvcs; v++)
		if (res->report.vcs[v].jobs > 0)
			group_json(&j, &res->report.vcs[v]);
	for (v = 0; v < 2; v++)
		if (res->report.klass[v].jobs > 0)
			group_json(&j, &res->report.klass[v]);
	json_array_end(&j);
	json_object_end(&j);
}

/* The run a replay records in the store: everything but its spec. */
static void
replay_proto(struct store_run *r, const struct sim *m, const struct simrun *run,
    const char *params)
{
	store_run_init(r);
	r->kind = STORE_RUN_REPLAY;
	r->mode = (char *)engine_mode_name(run->mode);
	r->policy = (char *)run->ops->name;
	r->trace = (char *)m->rc.trace;
	r->params = (char *)params;
	r->seed = m->rc.seed;
	r->state = STORE_RUN_RUNNING;
}

/* A store failure: the replay's state is whatever was last committed. */
static int
replay_store_failed(struct cmd_ctx *ctx, char **cause)
{
	char *old = *cause;

	*cause = xasprintf("%s (the replay stopped; its last checkpoint is kept)",
	    old != NULL ? old : "state store error");
	free(old);
	ctx->status = CMD_EXIT_STORE;
	return -1;
}

static int
replay_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct replay_json_arg ra;
	struct replay_result res;
	struct strbuf sb = STRBUF_INIT, params = STRBUF_INIT, report = STRBUF_INIT;
	struct replay_hooks hooks = { NULL, NULL, NULL, NULL, REPLAY_CHECKPOINT_EVERY };
	struct store_run proto;
	struct store *st = NULL;
	struct rdb d;
	bool recording = false;
	struct table *t;
	struct json j;
	struct sim m;
	const char *series, *sw;
	double series_win = 12 * 3600;
	int v, rc = -1;

	if ((sw = args_get(a, "series-window")) != NULL &&
	    (parse_duration(sw, "--series-window", &series_win, cause) < 0 ||
	    !(series_win > 0))) {
		if (*cause == NULL)
			*cause = xasprintf("--series-window '%s' must be longer than 0", sw);
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "figure") && figure_path_check(args_get(a, "figure"), cause) < 0)
		return cmd_usage_error(ctx);
	if (sim_prepare(&m, ctx, a, "las", cause) < 0)
		goto out;
	if (m.nruns != 1) {
		*cause = xstrdup("replay runs one policy in one sharing mode; use compare for more");
		cmd_usage_error(ctx);
		goto out;
	}
	if (args_has(a, "checkpoint-every")) {
		m.ep.progress_every = (int)args_strtonum(a, "checkpoint-every", 1,
		    1 << 30, cause);
		if (*cause != NULL) {
			cmd_usage_error(ctx);
			goto out;
		}
		hooks.every = m.ep.progress_every;
	}
	/* A store named explicitly records the run; fail now if it cannot. */
	if (ctx->sess->db_path != NULL) {
		if (session_store(ctx->sess, true, &st, cause) != 0) {
			ctx->status = CMD_EXIT_STORE;
			goto out;
		}
		params_json(&params, &m, &m.runs[0]);
		replay_proto(&proto, &m, &m.runs[0], params.buf);
		switch (rdb_open(&d, st, &m.r, &proto, args_has(a, "fresh"), cause)) {
		case 0:
			break;
		case RDB_DONE:
			/* a retry of a replay that ended (killed between its
			   last commit and its exit, say): not a second run */
			cmd_note(ctx, "replay already done: run %lld in '%s' holds "
			    "it ('run show %lld' prints its report; --fresh "
			    "records another)", (long long)d.run, store_path(st),
			    (long long)d.run);
			rdb_release(&d);
			rc = 0;
			goto out;
		case RDB_BUSY:
			if (d.holder > 0)
				*cause = xasprintf("run %lld in '%s' is being "
				    "written by another cellar process (pid %ld)",
				    (long long)d.run, store_path(st), (long)d.holder);
			else
				*cause = xasprintf("run %lld in '%s' is being "
				    "written by another cellar process",
				    (long long)d.run, store_path(st));
			rdb_release(&d);
			goto out;
		default:
			rdb_release(&d);
			replay_store_failed(ctx, cause);
			goto out;
		}
		recording = true;
		hooks.checkpoint = rdb_checkpoint;
		hooks.arg = &d;
		if (d.resumed) {
			hooks.resume = &d.saved;
			hooks.resume_jobs = d.jobs;
			cmd_note(ctx, "resuming run %lld of '%s' at t=%.0f s",
			    (long long)d.run, store_path(st), d.resumed_at);
		}
	}
	if (sim_run(&m, &m.runs[0], recording ? &hooks : NULL, &res, cause) < 0) {
		if (recording) {
			rdb_abandon(&d);
			if (d.failed)
				replay_store_failed(ctx, cause);
		}
		goto out;
	}
	t = table_create();
	table_columns(t, replay_columns);
	group_row(t, m.unit, -1, &res.report.all);
	for (v = 0; v < res.report.nvcs; v++)
		if (res.report.vcs[v].jobs > 0)
			group_row(t, m.unit, v, &res.report.vcs[v]);
	/* tags -2, -3: the class rows (replay_json_one) */
	for (v = 0; v < 2; v++)
		if (res.report.klass[v].jobs > 0)
			group_row(t, m.unit, -2 - v, &res.report.klass[v]);
	if (cmd_list_apply(ctx, t, cause) != 0) {
		table_free(t);
		replay_result_release(&res);
		goto out;
	}
	if (ctx->out.format == OUT_JSON) {
		ra.rep = &res.report;
		cmd_json_begin(ctx, &j, "replay");
		config_json(&j, &m, &m.runs[0]);
		totals_json(&j, &res);
		cmd_list_json(ctx, &j, "groups", t, replay_json_one, &ra);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header) {
			replay_describe(&m.r, &sb);
			strbuf_addf(ctx->o, "replay of %s on %s: policy %s, sharing %s, seed %llu%s\n%s\n\n",
			    m.rc.trace, m.s->path, m.runs[0].ops->name,
			    engine_mode_name(m.runs[0].mode), (unsigned long long)m.rc.seed,
			    m.ep.ideal ? ", ideal" : "", sb.buf);
		}
		table_render(t, &ctx->out, ctx->o);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "\nmakespan %.0f s (%.2f d); GPU utilization %.1f%% of "
			    "GPU-time; fragmentation %.1f%% of nodes partially free, %.1f%% "
			    "not wholly free for a guaranteed job (HiveD's; averages)\n"
			    "JCT and Q (queuing delay: time pending) in %s, over completed jobs; "
			    "FB: early feedback, %s until a job has run %.0f s.\n",
			    res.report.makespan, res.report.makespan / 86400,
			    100 * res.report.util, 100 * res.report.frag_avg,
			    100 * res.report.frag_node_avg, m.unit->word, m.unit->word,
			    m.ep.feedback);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header &&
		    (res.report.grows > 0 || res.report.shrinks > 0))
			strbuf_addf(ctx->o, "grow-shrink: elastic jobs grew into %lld GPUs "
			    "and gave %lld back to new jobs\n", res.report.grows,
			    res.report.shrinks);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "submission window (first to last arrival, %.0f s): "
			    "GPU utilization %.1f%% and SM utilization %.1f%% of its GPU-time\n",
			    res.report.win_end - res.report.win_start, 100 * res.report.win_util,
			    100 * res.report.win_sm);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			antman_text(ctx->o, &res.report);
	}
	table_free(t);
	series = args_get(a, "series");
	rc = series != NULL ? write_series(ctx, &m, series, &res, series_win, cause) : 0;
	if (rc == 0 && recording) {
		report_json(&report, &m, &m.runs[0], &res);
		if (rdb_finish(&d, report.buf, cause) != 0)
			rc = replay_store_failed(ctx, cause);
		else
			cmd_note(ctx, "recorded as run %lld in '%s'", (long long)d.run,
			    store_path(st));
	} else if (recording)
		rdb_abandon(&d);
	replay_result_release(&res);
out:
	if (recording)
		rdb_release(&d);
	strbuf_release(&params);
	strbuf_release(&report);
	strbuf_release(&sb);
	sim_release(&m);
	return rc;
}

/* ---- figures (--figure, through gnuplot: cmd/figure.h) ---- */

#define FIG_WINDOW	(12 * 3600)	/* HiveD's moving window (Fig. 5-6) */

static int
figure_status(struct cmd_ctx *ctx, int status)
{
	ctx->status = status;
	return -1;
}

/*
 * HiveD's Fig. 7 (each VC's mean queuing delay, shared beside private) over
 * Fig. 6 (each VC's delay over a 12 h window of submissions, shared solid,
 * private dashed, one colour per VC).
 */
static int
anomaly_figure(struct cmd_ctx *ctx, const struct sim *m, const char *path,
    const struct anomaly_vc *an, const struct replay_result *sh,
    const struct replay_result *pr, char **cause)
{
	static const char *const series[] = { "shared", "private" };
	int nvcs = m->s->nvcs, i, k = 0, n = sh->nseries, g = 0, status, rc;
	const char **group = xcalloc((size_t)nvcs + 1, sizeof *group);
	const char **name = xcalloc(2 * (size_t)nvcs + 1, sizeof *name);
	char **names = xcalloc(2 * (size_t)nvcs + 1, sizeof *names);
	int *color = xcalloc(2 * (size_t)nvcs + 1, sizeof *color);
	int *dashed = xcalloc(2 * (size_t)nvcs + 1, sizeof *dashed);
	double *v = xcalloc(2 * (size_t)nvcs + 1, sizeof *v);
	double *t = xcalloc((size_t)n + 1, sizeof *t);
	double *y = xcalloc(2 * (size_t)nvcs * ((size_t)n + 1), sizeof *y);
	struct figure_bars b;
	struct figure_curves c;

	for (i = 0; i < n; i++)
		t[i] = sh->series[i].t;
	for (i = 0; i < nvcs; i++) {
		if (an[i].jobs == 0)
			continue;
		group[g] = an[i].name;
		v[2 * g] = an[i].q_shared / 3600;
		v[2 * g + 1] = an[i].q_private / 3600;
		g++;
		names[k] = xasprintf("%s shared", an[i].name);
		names[k + 1] = xasprintf("%s private", an[i].name);
		figure_delay(sh->jobs, m->r.njobs, i, FIG_WINDOW, t, n, y + (size_t)k * (size_t)n);
		figure_delay(pr->jobs, m->r.njobs, i, FIG_WINDOW, t, n, y + (size_t)(k + 1) * (size_t)n);
		for (size_t h = (size_t)k * (size_t)n; h < (size_t)(k + 2) * (size_t)n; h++)
			y[h] /= 3600;
		color[k] = color[k + 1] = g - 1;
		dashed[k + 1] = 1;
		name[k] = names[k];
		name[k + 1] = names[k + 1];
		k += 2;
	}
	b = (struct figure_bars){ "mean queuing delay per VC: shared vs private",
	    "hours", g, 2, group, series, v };
	c = (struct figure_curves){ "queuing delay over a 12 h window of submissions",
	    "hours", t, n, k, name, y, color, dashed };
	rc = figure_write(path, &b, n > 0 ? &c : NULL, &status, cause);
	if (rc == 0)
		cmd_note(ctx, "wrote a figure of %d VC(s) to '%s'", g, path);
	for (i = 0; i < k; i++)
		free(names[i]);
	free(group);
	free(name);
	free(names);
	free(color);
	free(dashed);
	free(v);
	free(t);
	free(y);
	return rc == 0 ? 0 : figure_status(ctx, status);
}

/*
 * Each run's mean JCT and queuing delay as bars, over each run's queuing
 * delay (all VCs) over a 12 h window, on the times of the longest series.
 */
static int
compare_figure(struct cmd_ctx *ctx, const struct sim *m, const char *path,
    const struct replay_result *res, char **cause)
{
	static const char *const series[] = { "mean JCT", "mean queuing delay" };
	int nr = m->nruns, i, h, n = 0, longest = 0, status, rc;
	const char **group = xcalloc((size_t)nr + 1, sizeof *group);
	char **names = xcalloc((size_t)nr + 1, sizeof *names);
	double *v = xcalloc(2 * (size_t)nr + 1, sizeof *v), *t, *y;
	struct figure_bars b;
	struct figure_curves c;

	for (i = 0; i < nr; i++)
		if (res[i].nseries > n) {
			n = res[i].nseries;
			longest = i;
		}
	t = xcalloc((size_t)n + 1, sizeof *t);
	y = xcalloc((size_t)nr * ((size_t)n + 1), sizeof *y);
	for (i = 0; i < n; i++)
		t[i] = res[longest].series[i].t;
	for (i = 0; i < nr; i++) {
		names[i] = xasprintf("%s/%s", m->runs[i].ops->name,
		    engine_mode_name(m->runs[i].mode));
		group[i] = names[i];
		v[2 * i] = res[i].report.all.jct.avg / 3600;
		v[2 * i + 1] = res[i].report.all.queue.avg / 3600;
		figure_delay(res[i].jobs, m->r.njobs, -1, FIG_WINDOW, t, n,
		    y + (size_t)i * (size_t)n);
		for (h = 0; h < n; h++)
			y[(size_t)i * (size_t)n + (size_t)h] /= 3600;
	}
	b = (struct figure_bars){ "mean JCT and queuing delay per run", "hours",
	    nr, 2, group, series, v };
	c = (struct figure_curves){ "queuing delay over a 12 h window of submissions",
	    "hours", t, n, nr, (const char *const *)names, y, NULL, NULL };
	rc = figure_write(path, &b, n > 0 ? &c : NULL, &status, cause);
	if (rc == 0)
		cmd_note(ctx, "wrote a figure of %d run(s) to '%s'", nr, path);
	for (i = 0; i < nr; i++)
		free(names[i]);
	free(names);
	free(group);
	free(v);
	free(t);
	free(y);
	return rc == 0 ? 0 : figure_status(ctx, status);
}

/* ---- compare ---- */

static const struct table_colspec compare_columns[] = {
	{ "POLICY", "policy", TABLE_NAME, "scheduling policy" },
	{ "SHARING", "sharing", 0, "sharing mode" },
	{ "DONE", "done", TABLE_NUM, "jobs completed" },
	{ "JCT_AVG", "jct_avg", TABLE_NUM, "job completion time, seconds (or --units): mean" },
	{ "JCT_MED", "jct_median", TABLE_NUM, "median" },
	{ "JCT_P95", "jct_p95", TABLE_NUM, "95th percentile" },
	{ "Q_AVG", "queue_avg", TABLE_NUM, "queuing delay, seconds (or --units): mean" },
	{ "Q_P95", "queue_p95", TABLE_NUM, "95th percentile" },
	{ "MAKESPAN", "makespan", TABLE_NUM, "last completion - first submission, seconds (or --units)" },
	{ "UTIL%", "util_pct", TABLE_NUM, "busy GPU-time as a percentage of all GPU-time" },
	{ "FRAG%", "frag_pct", TABLE_NUM, "partially free nodes as a percentage of nodes" },
	{ "NODEFRAG%", "node_frag_pct", TABLE_NUM | TABLE_WIDE,
	  "HiveD's fragmentation: nodes not wholly free for a guaranteed job, % of nodes" },
	{ "WIN_UTIL%", "win_util_pct", TABLE_NUM | TABLE_WIDE,
	  "submission window: busy GPU-time, % of its GPU-time" },
	{ "WIN_SM%", "win_sm_pct", TABLE_NUM | TABLE_WIDE,
	  "submission window: SM time used, % of its GPU-time" },
	{ "PREEMPT", "preemptions", TABLE_NUM, "preemptions" },
	{ "PREEMPT_GPUS", "preempted_gpus", TABLE_NUM, "GPUs preempted: each preemption counts the victim's GPUs" },
	{ "PREEMPT_GPU_H", "preempted_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours the runs preemptions cut short had run" },
	{ "LOST_GPU_H", "lost_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours lost" },
	{ "FB_AVG", "feedback_avg", TABLE_NUM, "early feedback: seconds (or --units) until a job has run --feedback, mean" },
	{ "SUSP", "suspensions", TABLE_NUM, "suspensions (time-slicing)" },
	{ "SUSP_GPU_H", "suspend_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours of suspend+resume stalls" },
	{ "MIGR", "migrations", TABLE_NUM, "migrations" },
	{ "MIGR_GPU_H", "migrate_gpu_hours", TABLE_NUM | TABLE_WIDE, "GPU-hours of migration stalls" },
	{ "PACKS", "packs", TABLE_NUM | TABLE_WIDE, "packing trials" },
	{ "UNPACKS", "unpacks", TABLE_NUM | TABLE_WIDE, "packing trials that lost and were undone" },
	{ "GROWS", "grows", TABLE_NUM | TABLE_WIDE, "gandiva: GPUs elastic jobs grew into" },
	{ "SHRINKS", "shrinks", TABLE_NUM | TABLE_WIDE, "gandiva: grown GPUs given back to new jobs" },
	{ "SM%", "sm_pct", TABLE_NUM | TABLE_WIDE, "antman: SM time used, % of all GPU-time" },
	{ "MEM%", "mem_pct", TABLE_NUM | TABLE_WIDE, "antman: GPU memory used, % of all" },
	{ "INTERF%", "interference_pct", TABLE_NUM | TABLE_WIDE,
	  "antman: guaranteed progress lost to co-located jobs, %" },
	{ "OPP_DONE", "opp_done", TABLE_NUM | TABLE_WIDE, "antman: opportunistic jobs completed" },
	{ "UPGRADES", "upgrades", TABLE_NUM | TABLE_WIDE, "antman: opportunistic jobs upgraded" },
	{ "UPG_MOVED", "upgrades_moved", TABLE_NUM | TABLE_WIDE,
	  "antman: of those, moved to other GPUs (the rest in place)" },
	{ NULL, NULL, 0, NULL }
};

struct compare_json_arg {
	const struct sim		*m;
	const struct replay_result	*res;
};

static void
compare_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct compare_json_arg *ca = arg;
	const struct replay_result *r = &ca->res[tag];

	(void)ctx;
	json_object_begin(j);
	json_kv_string(j, "policy", ca->m->runs[tag].ops->name);
	json_kv_string(j, "sharing", engine_mode_name(ca->m->runs[tag].mode));
	json_kv_int(j, "done", r->report.all.done);
	dist_json(j, "jct", &r->report.all.jct);
	dist_json(j, "queue", &r->report.all.queue);
	totals_json(j, r);
	json_kv_int(j, "preemptions", r->report.all.preemptions);
	json_kv_int(j, "preempted_gpus", r->report.all.preempted_gpus);
	json_kv_double(j, "preempted_gpu_hours", r->report.all.preempted_gpu_hours);
	json_kv_double(j, "lost_gpu_hours", r->report.all.lost_gpu_hours);
	dist_json(j, "feedback", &r->report.all.feedback);
	json_kv_int(j, "suspensions", r->report.all.suspensions);
	json_kv_double(j, "suspend_gpu_hours", r->report.all.suspend_gpu_hours);
	json_kv_int(j, "migrations", r->report.all.migrations);
	json_kv_double(j, "migrate_gpu_hours", r->report.all.migrate_gpu_hours);
	json_object_end(j);
}

static int
compare_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct replay_result res[SIM_MAX_RUNS];
	struct compare_json_arg ca;
	struct table *t = NULL;
	struct json j;
	struct sim m;
	int i, done = 0, rc = -1;

	if (args_has(a, "figure") && figure_path_check(args_get(a, "figure"), cause) < 0)
		return cmd_usage_error(ctx);
	if (sim_prepare(&m, ctx, a, "fifo,las,gittins,srtf", cause) < 0)
		goto out;
	/* a figure's curves need each job's start */
	if (sim_run_all(&m, a, "compare", m.runs, m.nruns, args_has(a, "figure"), res,
	    cause) < 0)
		goto out;
	done = m.nruns;
	t = table_create();
	table_columns(t, compare_columns);
	for (i = 0; i < m.nruns; i++) {
		const struct emu_report *r = &res[i].report;
		table_row(t);
		table_row_tag(t, i);
		table_cell(t, "%s", m.runs[i].ops->name);
		table_cell(t, "%s", engine_mode_name(m.runs[i].mode));
		table_cell_int(t, r->all.done);
		cell_time(t, m.unit, r->all.jct.avg);
		cell_time(t, m.unit, r->all.jct.median);
		cell_time(t, m.unit, r->all.jct.p95);
		cell_time(t, m.unit, r->all.queue.avg);
		cell_time(t, m.unit, r->all.queue.p95);
		cell_time(t, m.unit, r->makespan);
		table_cell(t, "%.1f", 100 * r->util);
		table_cell(t, "%.1f", 100 * r->frag_avg);
		table_cell(t, "%.1f", 100 * r->frag_node_avg);
		table_cell(t, "%.1f", 100 * r->win_util);
		table_cell(t, "%.1f", 100 * r->win_sm);
		table_cell_int(t, r->all.preemptions);
		table_cell(t, "%lld", r->all.preempted_gpus);
		table_cell(t, "%.1f", r->all.preempted_gpu_hours);
		table_cell(t, "%.1f", r->all.lost_gpu_hours);
		cell_time(t, m.unit, r->all.feedback.avg);
		table_cell_int(t, r->all.suspensions);
		table_cell(t, "%.2f", r->all.suspend_gpu_hours);
		table_cell_int(t, r->all.migrations);
		table_cell(t, "%.2f", r->all.migrate_gpu_hours);
		table_cell(t, "%lld", r->packs);
		table_cell(t, "%lld", r->unpacks);
		table_cell(t, "%lld", r->grows);
		table_cell(t, "%lld", r->shrinks);
		if (r->opp_shared) {
			table_cell(t, "%.1f", 100 * r->sm_util);
			table_cell(t, "%.1f", 100 * r->mem_util);
			table_cell(t, "%.2f", 100 * r->interference);
			table_cell_int(t, r->opp_done);
			table_cell_int(t, r->upgrades);
			table_cell_int(t, r->upgrades_moved);
		} else
			for (int k = 0; k < 6; k++)
				table_cell(t, "-");
	}
	if (cmd_list_apply(ctx, t, cause) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		ca.m = &m;
		ca.res = res;
		cmd_json_begin(ctx, &j, "compare");
		json_kv_string(&j, "trace", m.rc.trace);
		json_kv_string(&j, "spec", m.s->path);
		json_kv_int(&j, "jobs", m.r.njobs);
		json_kv_int(&j, "seed", (long long)m.rc.seed);
		json_kv_bool(&j, "ideal", m.ep.ideal);
		cmd_list_json(ctx, &j, "runs", t, compare_json_one, &ca);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "%d jobs of %s on %s, seed %llu%s\n\n", m.r.njobs,
			    m.rc.trace, m.s->path, (unsigned long long)m.rc.seed,
			    m.ep.ideal ? ", ideal" : "");
		table_render(t, &ctx->out, ctx->o);
	}
	if (args_has(a, "figure") &&
	    compare_figure(ctx, &m, args_get(a, "figure"), res, cause) < 0)
		goto out;
	rc = 0;
out:
	table_free(t);
	for (i = 0; i < done; i++)
		replay_result_release(&res[i]);
	sim_release(&m);
	return rc;
}

/* ---- anomaly ---- */

static const struct table_colspec anomaly_columns[] = {
	{ "VC", "vc", TABLE_NAME, "the virtual cluster" },
	{ "JOBS", "jobs", TABLE_NUM, "jobs completed in both runs" },
	{ "Q_SHARED", "queue_shared", TABLE_NUM, "mean queuing delay (submission to first start) in the shared cluster, seconds" },
	{ "Q_PRIVATE", "queue_private", TABLE_NUM, "mean queuing delay in its private cluster, seconds" },
	{ "RATIO", "ratio", TABLE_NUM, "Q_SHARED / Q_PRIVATE" },
	{ "WINDOWS", "windows", TABLE_NUM, "windows with jobs of the VC" },
	{ "WORSE", "worse", TABLE_NUM, "windows where shared was worse beyond noise" },
	{ "W_SHARED", "worst_shared", TABLE_NUM, "the worst window (shared most above private): mean delay shared, seconds" },
	{ "W_PRIVATE", "worst_private", TABLE_NUM, "the worst window: mean delay private, seconds" },
	{ "WORST_AT", "worst_at", TABLE_NUM | TABLE_WIDE, "start of the worst window, seconds" },
	{ "PEND_SHARED", "pending_shared", TABLE_NUM | TABLE_WIDE, "mean time pending shared, waits after a preemption included" },
	{ "PEND_PRIVATE", "pending_private", TABLE_NUM | TABLE_WIDE, "mean time pending private, waits after a preemption included" },
	{ "VERDICT", "verdict", 0, "ok, or ANOMALY when shared is worse beyond noise" },
	{ NULL, NULL, 0, NULL }
};

static void
anomaly_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct anomaly_vc *x = (const struct anomaly_vc *)arg + tag;
	int i;

	(void)ctx;
	json_object_begin(j);
	json_kv_string(j, "vc", x->name);
	json_kv_int(j, "jobs", x->jobs);
	json_kv_double(j, "queue_shared", x->q_shared);
	json_kv_double(j, "queue_private", x->q_private);
	json_kv_double(j, "ratio", isfinite(x->ratio) ? x->ratio : -1);
	json_kv_int(j, "windows", x->windows);
	json_kv_int(j, "worse", x->worse);
	json_kv_double(j, "worst_at", x->worst_at);
	json_kv_double(j, "worst_shared", x->worst_shared);
	json_kv_double(j, "worst_private", x->worst_private);
	json_kv_double(j, "pending_shared", x->pend_shared);
	json_kv_double(j, "pending_private", x->pend_private);
	json_key(j, "worse_windows");
	json_array_begin(j);
	for (i = 0; i < x->worse && i < ANOMALY_MAX_WINDOWS; i++)
		json_double(j, x->worse_at[i]);
	json_array_end(j);
	json_kv_bool(j, "anomalous", x->anomalous);
	json_object_end(j);
}

/* Is every job of the run guaranteed (its own class or the run's)? */
static bool
all_guaranteed(const struct job *jobs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (jobs[i].klass != JOB_GUARANTEED)
			return false;
	return true;
}

static int
anomaly_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct replay_result shared, priv, both[2];
	struct anomaly_vc *an = NULL;
	struct simrun runs[2];
	struct table *t = NULL;
	struct json j;
	struct sim m;
	const char *v;
	double window = 86400;
	int i, nbad = 0, ran = 0, rc = -1;
	bool same, allg;

	if ((v = args_get(a, "window")) != NULL &&
	    (parse_duration(v, "--window", &window, cause) < 0 || window <= 0)) {
		if (*cause == NULL)
			*cause = xstrdup("--window must be longer than 0");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "figure") && figure_path_check(args_get(a, "figure"), cause) < 0)
		return cmd_usage_error(ctx);
	if (sim_prepare(&m, ctx, a, "las", cause) < 0)
		goto out;
	if (!args_has(a, "sharing"))
		m.runs[0].mode = ENGINE_HIVED;
	/* the paper's setting: jobs beyond their VC's quota run opportunistic */
	if (!args_has(a, "class"))
		m.rc.klass = m.r.klass = JOB_AUTO;
	if (m.nruns != 1 || m.runs[0].mode == ENGINE_PRIVATE) {
		*cause = xstrdup("anomaly compares one policy in one shared mode (hived or quota) "
		    "with private clusters");
		cmd_usage_error(ctx);
		goto out;
	}
	/* both at once: the shared run and the private one */
	runs[0] = m.runs[0];
	runs[1] = m.runs[0];
	runs[1].mode = ENGINE_PRIVATE;
	if (sim_run_all(&m, a, "anomaly", runs, 2, true, both, cause) < 0)
		goto out;
	shared = both[0];
	priv = both[1];
	ran = 2;
	an = xcalloc((size_t)m.s->nvcs + 1, sizeof *an);
	anomaly_compute(m.s, shared.jobs, priv.jobs, m.r.njobs, window, an);
	same = anomaly_identical(shared.jobs, priv.jobs, m.r.njobs);
	allg = all_guaranteed(shared.jobs, m.r.njobs);
	t = table_create();
	table_columns(t, anomaly_columns);
	for (i = 0; i < m.s->nvcs; i++) {
		if (an[i].jobs == 0)
			continue;
		nbad += an[i].anomalous;
		table_row(t);
		table_row_tag(t, i);
		table_cell(t, "%s", an[i].name);
		table_cell_int(t, an[i].jobs);
		table_cell(t, "%.0f", an[i].q_shared);
		table_cell(t, "%.0f", an[i].q_private);
		if (isfinite(an[i].ratio))
			table_cell(t, "%.2f", an[i].ratio);
		else
			table_cell(t, "inf");
		table_cell_int(t, an[i].windows);
		table_cell_role(t, an[i].worse ? ROLE_WARN : ROLE_NONE, "%d", an[i].worse);
		table_cell(t, "%.0f", an[i].worst_shared);
		table_cell(t, "%.0f", an[i].worst_private);
		table_cell(t, "%.0f", an[i].worst_at);
		table_cell(t, "%.0f", an[i].pend_shared);
		table_cell(t, "%.0f", an[i].pend_private);
		table_cell_role(t, an[i].anomalous ? ROLE_BAD : ROLE_OK, "%s",
		    an[i].anomalous ? "ANOMALY" : "ok");
	}
	if (cmd_list_apply(ctx, t, cause) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "anomaly");
		config_json(&j, &m, &m.runs[0]);
		json_kv_double(&j, "window", window);
		json_kv_double(&j, "tolerance", ANOMALY_TOLERANCE);
		json_kv_double(&j, "slack", ANOMALY_SLACK);
		json_kv_int(&j, "anomalous_vcs", nbad);
		json_kv_string(&j, "class", job_class_name(replay_class(m.rc.klass,
		    m.runs[0].ops)));
		json_kv_bool(&j, "all_guaranteed", allg);
		json_kv_bool(&j, "identical", same);
		cmd_list_json(ctx, &j, "vcs", t, anomaly_json_one, an);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "%d jobs of %s under %s: %s sharing vs private "
			    "clusters of each VC's cells\n\n", m.r.njobs, m.rc.trace,
			    m.runs[0].ops->name, engine_mode_name(m.runs[0].mode));
		table_render(t, &ctx->out, ctx->o);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "\n%d VC(s) worse than private beyond noise "
			    "(shared > private x %.2f + %.0f s, on average and per %.0f s window)\n",
			    nbad, 1 + ANOMALY_TOLERANCE, ANOMALY_SLACK, window);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header && same)
			strbuf_addf(ctx->o, "the shared and private runs are identical%s\n",
			    allg && m.runs[0].mode == ENGINE_HIVED ?
			    ": every job is guaranteed, so under hived each VC's jobs "
			    "run only on its own cells, exactly as on its private cluster "
			    "(HiveD's guarantee by construction); --class auto lets jobs "
			    "beyond a VC's quota run as opportunistic, which is what "
			    "sharing gives" : "");
		else if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header && allg &&
		    m.runs[0].mode == ENGINE_HIVED)
			strbuf_addf(ctx->o, "every job is guaranteed, yet the runs differ%s\n",
			    m.runs[0].ops->flags & POLICY_OVERSUB ?
			    ": gandiva acts on physical nodes, across VCs (its "
			    "defragmentation empties one node of the whole cluster "
			    "per pass, not one per VC; its time-slicing and packing "
			    "choose among nodes too)" : "");
	}
	if (args_has(a, "figure") && anomaly_figure(ctx, &m, args_get(a, "figure"),
	    an, &shared, &priv, cause) < 0)
		goto out;
	rc = 0;
out:
	table_free(t);
	free(an);
	if (ran >= 1)
		replay_result_release(&shared);
	if (ran >= 2)
		replay_result_release(&priv);
	sim_release(&m);
	return rc;
}

/* ---- the entries ---- */

const struct cmd_entry cmd_replay_entry = {
	.name = "replay",
	.opts = replay_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_FILE,
	.usage = "TRACE",
	.summary = "replay a job trace on the emulated cluster and report JCT and queuing",
	.help =
	    "Replay TRACE (a Philly, ITP or Tiresias CSV file, or synth[:N] for N "
	    "generated jobs) on the emulated cluster of the spec, under one "
	    "scheduling policy (--policy, one of those its option lists) "
	    "and one sharing mode (--sharing: hived, quota, private). The run is "
	    "deterministic: the same spec, trace, policy and seed give the same "
	    "report.\n"
	    "The report has one row for all jobs, one per VC and one per class "
	    "((guaranteed), (opportunistic): how each job ran): jobs, completed, "
	    "never started, job completion time (JCT) and queuing delay (time "
	    "pending) as mean, median, p95 and p99 in seconds, GPU-hours of "
	    "service, preemptions and GPU-hours lost, early feedback (seconds "
	    "until a job has run --feedback, default 10m), suspensions and "
	    "migrations (gandiva's time-slicing; wide: the GPU-hours they cost); "
	    "then makespan, GPU "
	    "utilization and the average fragmentation. --series writes a CSV time "
	    "series (hourly). A progress line shows on a terminal for runs longer "
	    "than a second, with an estimate of the time left; when stderr is "
	    "not a terminal, a plain progress line every 5 s "
	    "(CELLAR_PROGRESS_EVERY).",
	.examples = (const char *const []){
		"replay synth:200 --policy las",
		"replay tests/fixtures/traces/tiresias-60_job.csv --spec specs/tiresias-n2g4.yaml "
		    "--policy gittins --ideal",
		"replay tests/fixtures/traces/philly-sample.csv --spec specs/philly.yaml "
		    "--vc-map '*=-' --policy fifo --sharing quota -o json",
		"replay synth:500 --fault r0n01@2h-6h --series /tmp/series.csv",
		NULL },
	.columns = replay_columns,
	.flags = CMD_NEEDS_ENGINE,
	.formats = OUT_ALL,
	.exec = replay_exec,
};

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.opts = compare_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_FILE,
	.usage = "TRACE",
	.summary = "replay a trace under several policies and sharing modes, side by side",
	.help =
	    "Replay TRACE once for every policy in --policy crossed with every mode "
	    "in --sharing (comma-separated lists, at most 32 runs) and print one row "
	    "per run: jobs completed, JCT and queuing delay (seconds), makespan, "
	    "GPU utilization, fragmentation, preemptions, early feedback, "
	    "suspensions and migrations (wide: their GPU-hours, packing trials "
	    "and undone packs). Every run sees the same jobs.",
	.examples = (const char *const []){
		"compare synth:200 --policy fifo,las --sharing hived,quota",
		"compare tests/fixtures/traces/tiresias-60_job.csv --spec specs/tiresias-n2g4.yaml "
		    "--policy fifo,las,gittins,srtf --ideal --sort jct_avg",
		"compare synth:300 --policy fifo,gandiva --load 4 --slice 2m --feedback 5m",
		NULL },
	.columns = compare_columns,
	.flags = CMD_NEEDS_ENGINE,
	.formats = OUT_ALL,
	.exec = compare_exec,
};

const struct cmd_entry cmd_anomaly_entry = {
	.name = "anomaly",
	.opts = anomaly_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_FILE,
	.usage = "TRACE",
	.summary = "check sharing safety: each VC's queuing delay shared vs private",
	.help =
	    "Replay TRACE twice under the same policy: in the shared cluster "
	    "(--sharing hived or quota) and with every VC alone on a private "
	    "cluster of its own cells, by default in HiveD's setting (--class auto: "
	    "jobs beyond a VC's quota run as opportunistic). For each VC: its mean "
	    "queuing delay (submission to first start) in both, "
	    "their ratio, how many windows (--window, default a day, by submission "
	    "time) were worse when shared, the worst window's two means, and a "
	    "verdict. Worse beyond noise means "
	    "shared > private x 1.10 + 60 s. HiveD's claim is that hived mode "
	    "shows no such VC, while quota sharing can.",
	.examples = (const char *const []){
		"anomaly synth:300 --policy fifo",
		"anomaly tests/fixtures/traces/philly-sample.csv --spec specs/philly.yaml "
		    "--vc-map '*=-' --sharing quota",
		NULL },
	.columns = anomaly_columns,
	.flags = CMD_NEEDS_ENGINE,
	.formats = OUT_ALL,
	.exec = anomaly_exec,
};
