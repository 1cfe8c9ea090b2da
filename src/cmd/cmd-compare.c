/*
 * cmd-compare.c — compare: several runs of one trace side by side (each
 * policy under each sharing mode), one row each; --figure draws them.
 */
#include <stdlib.h>

#include "cmd/figure.h"
#include "cmd/sim-run.h"
#include "core/xmalloc.h"

static const struct cmd_opt compare_opts[] = {
	{ 0, "policy", "P,...", "policies to compare (default fifo,las,gittins,srtf)", VALUE_POLICY },
	{ 0, "sharing", "MODE,...", "sharing modes to compare (default: the session's)", VALUE_MODE },
	{ 0, "figure", "FILE", "draw each run's mean JCT and delay, and delay over time, to FILE (.svg, .png)", VALUE_FILE },
	{ 0, "parallel", "N", "runs at once, on threads (default: the CPUs online)", VALUE_NONE },
	SIM_COMMON_OPTS,
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

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
	return rc == 0 ? 0 : sim_figure_status(ctx, status);
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
	sim_dist_json(j, "jct", &r->report.all.jct);
	sim_dist_json(j, "queue", &r->report.all.queue);
	sim_totals_json(j, r);
	json_kv_int(j, "preemptions", r->report.all.preemptions);
	json_kv_int(j, "preempted_gpus", r->report.all.preempted_gpus);
	json_kv_double(j, "preempted_gpu_hours", r->report.all.preempted_gpu_hours);
	json_kv_double(j, "lost_gpu_hours", r->report.all.lost_gpu_hours);
	sim_dist_json(j, "feedback", &r->report.all.feedback);
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
		table_cell(t, "%s%s", engine_mode_name(m.runs[i].mode),
		    sim_run_borrows(&m, &m.runs[i]) ? "+borrow" : "");
		table_cell_int(t, r->all.done);
		sim_cell_time(t, m.unit, r->all.jct.avg);
		sim_cell_time(t, m.unit, r->all.jct.median);
		sim_cell_time(t, m.unit, r->all.jct.p95);
		sim_cell_time(t, m.unit, r->all.queue.avg);
		sim_cell_time(t, m.unit, r->all.queue.p95);
		sim_cell_time(t, m.unit, r->makespan);
		table_cell(t, "%.1f", 100 * r->util);
		table_cell(t, "%.1f", 100 * r->frag_avg);
		table_cell(t, "%.1f", 100 * r->frag_node_avg);
		table_cell(t, "%.1f", 100 * r->win_util);
		table_cell(t, "%.1f", 100 * r->win_sm);
		table_cell_int(t, r->all.preemptions);
		table_cell(t, "%lld", r->all.preempted_gpus);
		table_cell(t, "%.1f", r->all.preempted_gpu_hours);
		table_cell(t, "%.1f", r->all.lost_gpu_hours);
		sim_cell_time(t, m.unit, r->all.feedback.avg);
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
		sim_settings_json(&j, &m);
		cmd_list_json(ctx, &j, "runs", t, compare_json_one, &ca);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header) {
			strbuf_addf(ctx->o, "%d jobs of %s on %s, seed %llu", m.r.njobs,
			    m.rc.trace, m.s->path, (unsigned long long)m.rc.seed);
			sim_settings_text(ctx->o, &m);
			strbuf_adds(ctx->o, "\n\n");
		}
		table_render(t, &ctx->out, ctx->o);
		for (i = 0; i < m.nruns && OUT_IS_TEXT(ctx->out.format) &&
		    ctx->out.header; i++) {
			char label[64];
			if (!res[i].report.borrow)
				continue;
			bufprintf(label, sizeof label, "%s%s", i == 0 || !res[i - 1].report.borrow ?
			    "\n" : "", m.runs[i].ops->name);
			sim_borrow_text(ctx->o, label, &res[i].report);
		}
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
