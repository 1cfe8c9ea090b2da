/*
 * cmd-anomaly.c — anomaly: each VC's queuing delay in the shared cluster
 * vs in its private cluster, HiveD's sharing-safety claim as one command;
 * --figure draws HiveD's Fig. 6-7.
 */
#include <math.h>
#include <stdlib.h>

#include "cmd/figure.h"
#include "cmd/sim-run.h"
#include "core/xmalloc.h"

static const struct cmd_opt anomaly_opts[] = {
	{ 0, "policy", "P", "scheduling policy in both runs (default las)", VALUE_POLICY },
	{ 0, "sharing", "MODE", "the shared mode: hived or quota (default hived)", VALUE_MODE },
	{ 0, "window", "T", "length of the windows compared (default 1d)", VALUE_NONE },
	{ 0, "figure", "FILE", "draw each VC's delay shared vs private (HiveD Fig. 6-7) to FILE (.svg, .png)", VALUE_FILE },
	{ 0, "parallel", "N", "runs at once, on threads (default: the CPUs online)", VALUE_NONE },
	SIM_COMMON_OPTS,
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

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
	return rc == 0 ? 0 : sim_figure_status(ctx, status);
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
	    (sim_parse_duration(v, "--window", &window, cause) < 0 || window <= 0)) {
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
	if (sim_borrow_check(&m, m.runs, 1, cause) < 0) {
		cmd_usage_error(ctx);
		goto out;
	}
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
		sim_config_json(&j, &m, &m.runs[0]);
		json_kv_double(&j, "window", window);
		json_kv_double(&j, "tolerance", ANOMALY_TOLERANCE);
		json_kv_double(&j, "slack", ANOMALY_SLACK);
		json_kv_int(&j, "anomalous_vcs", nbad);
		json_kv_string(&j, "class", job_class_name(replay_class(m.rc.klass,
		    m.runs[0].ops)));
		json_kv_bool(&j, "all_guaranteed", allg);
		json_kv_bool(&j, "identical", same);
		if (shared.report.borrow) {	/* the shared run's, as replay's */
			json_key(&j, "borrowed");
			json_object_begin(&j);
			json_kv_int(&j, "jobs", shared.report.all.borrowed_jobs);
			json_kv_double(&j, "gpu_hours", shared.report.all.borrowed_gpu_hours);
			json_object_end(&j);
		}
		cmd_list_json(ctx, &j, "vcs", t, anomaly_json_one, an);
		cmd_json_end(ctx, &j);
	} else {
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "%d jobs of %s under %s: %s sharing%s vs private "
			    "clusters of each VC's cells\n\n", m.r.njobs, m.rc.trace,
			    m.runs[0].ops->name, engine_mode_name(m.runs[0].mode),
			    sim_run_borrows(&m, &m.runs[0]) ? " with borrowing" : "");
		table_render(t, &ctx->out, ctx->o);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o, "\n%d VC(s) worse than private beyond noise "
			    "(shared > private x %.2f + %.0f s, on average and per %.0f s window)\n",
			    nbad, 1 + ANOMALY_TOLERANCE, ANOMALY_SLACK, window);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			sim_borrow_text(ctx->o, NULL, &shared.report);
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
