/*
 * cmd-replay.c — replay: one run of a trace under a policy and a sharing
 * mode (sim-run.h: the options and preparation it shares with compare and
 * anomaly).
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
#include <stdlib.h>

#include "cmd/figure.h"
#include "cmd/replay-db.h"
#include "cmd/sim-run.h"
#include "core/xmalloc.h"

/*
 * Events between a recorded replay's checkpoints without --checkpoint-every.
 * Each checkpoint is a transaction whose fixed part the writer pays again
 * (the run's state, the index and table pages its job rows share, the WAL
 * frames of those pages): at 4,096 the Philly replay's writer took 0.61 s
 * of CPU, at 32,768 0.45 s (bench-replay-store). 32,768 events are ~50 ms
 * of that replay: what a follower waits and a crash redoes at most.
 */
#define REPLAY_CHECKPOINT_EVERY	32768

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
	if (sim_run_borrows(m, run))	/* absent: no borrowing, likewise */
		json_kv_bool(&j, "borrow", true);
	if (m->ep.no_affinity_slowdown)	/* absent: off, likewise */
		json_kv_bool(&j, "no_affinity_slowdown", true);
	json_kv_double(&j, "ckpt_interval", m->ep.ckpt_interval);
	json_kv_double(&j, "feedback", m->ep.feedback);
	json_kv_double(&j, "slice", m->ep.slice);
	json_kv_bool(&j, "pack", m->ep.pack);
	if (m->ep.no_slice)	/* absent: on, so older runs still match */
		json_kv_bool(&j, "time_slicing", false);
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
	sim_config_json(&j, m, run);
	sim_totals_json(&j, res);
	json_key(&j, "groups");
	json_array_begin(&j);
	sim_group_json(&j, &res->report.all);
	for (v = 0; v < res->report.nvcs; v++)
		if (res->report.vcs[v].jobs > 0)
			sim_group_json(&j, &res->report.vcs[v]);
	for (v = 0; v < 2; v++)
		if (res->report.klass[v].jobs > 0)
			sim_group_json(&j, &res->report.klass[v]);
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
	    (sim_parse_duration(sw, "--series-window", &series_win, cause) < 0 ||
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
	table_columns(t, sim_replay_columns);
	sim_group_row(t, m.unit, -1, &res.report.all);
	for (v = 0; v < res.report.nvcs; v++)
		if (res.report.vcs[v].jobs > 0)
			sim_group_row(t, m.unit, v, &res.report.vcs[v]);
	/* tags -2, -3: the class rows (sim_replay_json_one) */
	for (v = 0; v < 2; v++)
		if (res.report.klass[v].jobs > 0)
			sim_group_row(t, m.unit, -2 - v, &res.report.klass[v]);
	if (cmd_list_apply(ctx, t, cause) != 0) {
		table_free(t);
		replay_result_release(&res);
		goto out;
	}
	if (ctx->out.format == OUT_JSON) {
		ra.rep = &res.report;
		cmd_json_begin(ctx, &j, "replay");
		sim_config_json(&j, &m, &m.runs[0]);
		sim_totals_json(&j, &res);
		cmd_list_json(ctx, &j, "groups", t, sim_replay_json_one, &ra);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header) {
			replay_describe(&m.r, &sb);
			strbuf_addf(ctx->o, "replay of %s on %s: policy %s, sharing %s%s, seed %llu",
			    m.rc.trace, m.s->path, m.runs[0].ops->name,
			    engine_mode_name(m.runs[0].mode),
			    sim_run_borrows(&m, &m.runs[0]) ? " with borrowing" : "",
			    (unsigned long long)m.rc.seed);
			sim_settings_text(ctx->o, &m);
			strbuf_addf(ctx->o, "\n%s\n\n", sb.buf);
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
			sim_antman_text(ctx->o, &res.report);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			sim_borrow_text(ctx->o, NULL, &res.report);
	}
	table_free(t);
	series = args_get(a, "series");
	rc = series != NULL ? sim_write_series(ctx, &m, series, &res, series_win, cause) : 0;
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
	.columns = sim_replay_columns,
	.flags = CMD_NEEDS_ENGINE,
	.formats = OUT_ALL,
	.exec = replay_exec,
};
