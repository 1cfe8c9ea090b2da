/*
 * cmd-run.c — the runs in the state store: `runs` lists them, `run show`
 * shows one (its parameters, jobs by state, time series and a replay's
 * report). Reading goes through stored.h: nothing is created, a missing
 * store lists nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/stored.h"
#include "core/xmalloc.h"

/* ---- runs ---- */

static const struct table_colspec runs_columns[] = {
	{ "RUN", "run", TABLE_NAME | TABLE_NUM, "the run's id" },
	{ "KIND", "kind", 0, "session (the live cluster) or replay (the emulator)" },
	{ "SPEC", "spec", 0, "the cluster spec it ran on" },
	{ "MODE", "mode", 0, "sharing mode: hived, quota or private" },
	{ "POLICY", "policy", 0, "scheduling policy (replays), else -" },
	{ "TRACE", "trace", 0, "the trace replayed, else -" },
	{ "STATE", "state", 0, "running, done, or interrupted (replaced by a newer session run)" },
	{ "NOW", "now", TABLE_NUM, "the run's clock at its last write" },
	{ "JOBS", "jobs", TABLE_NUM, "jobs recorded" },
	{ "CREATED", "created", 0, "when it started (UTC)" },
	{ "USER", "user", TABLE_WIDE, "the Unix user who started it" },
	{ "SEED", "seed", TABLE_NUM | TABLE_WIDE, "the replay's seed" },
	{ "UPDATED", "updated", TABLE_WIDE, "its last write (UTC)" },
	{ "HASH", "hash", TABLE_WIDE, "FNV-1a-64 of the spec's text" },
	{ NULL, NULL, 0, NULL }
};

struct runs_arg {
	struct table	*t;
	struct store_run *v;
	size_t		 n, cap;
};

static int
runs_row(void *arg, const struct store_run *r)
{
	struct runs_arg *ra = arg;
	struct store_run *c;
	char b1[64], b2[64], b3[64];

	XGROW(ra->v, ra->cap, ra->n + 1);
	c = &ra->v[ra->n];
	*c = *r;
	c->mode = r->mode ? xstrdup(r->mode) : NULL;
	c->policy = r->policy ? xstrdup(r->policy) : NULL;
	c->trace = r->trace ? xstrdup(r->trace) : NULL;
	c->params = r->params ? xstrdup(r->params) : NULL;
	c->user = r->user ? xstrdup(r->user) : NULL;
	c->report = NULL;
	c->spec_path = r->spec_path ? xstrdup(r->spec_path) : NULL;
	c->spec_hash = r->spec_hash ? xstrdup(r->spec_hash) : NULL;
	table_row(ra->t);
	table_row_tag(ra->t, (long)ra->n);
	table_cell_int(ra->t, r->id);
	table_cell(ra->t, "%s", store_run_kind_name(r->kind));
	table_cell(ra->t, "%s", r->spec_path ? r->spec_path : "-");
	table_cell(ra->t, "%s", r->mode ? r->mode : "-");
	table_cell(ra->t, "%s", r->policy ? r->policy : "-");
	table_cell(ra->t, "%s", r->trace ? r->trace : "-");
	table_cell_role(ra->t, r->state == STORE_RUN_RUNNING ? ROLE_BUSY :
	    r->state == STORE_RUN_INTERRUPTED ? ROLE_WARN : ROLE_NONE, "%s",
	    store_run_state_name(r->state));
	table_cell(ra->t, "%s", stored_fmt_t(r, r->now, b1, sizeof b1));
	table_cell_int(ra->t, r->njobs);
	table_cell(ra->t, "%s", stored_fmt_date(r->created, b2, sizeof b2));
	table_cell(ra->t, "%s", r->user ? r->user : "-");
	table_cell_int(ra->t, (long long)r->seed);
	table_cell(ra->t, "%s", stored_fmt_date(r->updated, b3, sizeof b3));
	table_cell(ra->t, "%s", r->spec_hash ? r->spec_hash : "-");
	ra->n++;
	return 0;
}

/* A stored JSON text as a value (null when absent or not JSON). */
static void
json_stored(struct json *j, const char *key, const char *text)
{
	size_t end;
	char *why = NULL;

	json_key(j, key);
	if (text != NULL && json_validate(text, strlen(text), &end, &why) == 0 &&
	    end == strlen(text))
		json_raw(j, text, strlen(text));
	else
		json_null(j);
	free(why);
}

static void
run_json_fields(struct json *j, const struct store_run *r)
{
	json_kv_int(j, "run", r->id);
	json_kv_string(j, "kind", store_run_kind_name(r->kind));
	json_kv_string(j, "spec", r->spec_path);
	json_kv_string(j, "spec_hash", r->spec_hash);
	json_kv_string(j, "mode", r->mode);
	json_kv_string(j, "policy", r->policy);
	json_kv_string(j, "trace", r->trace);
	json_stored(j, "params", r->params);
	json_kv_int(j, "seed", (long long)r->seed);
	json_kv_string(j, "state", store_run_state_name(r->state));
	json_kv_double(j, "now", r->now);
	json_kv_double(j, "created", r->created);
	json_kv_double(j, "updated", r->updated);
	json_kv_string(j, "user", r->user);
	json_kv_int(j, "jobs", r->njobs);
}

static void
runs_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct runs_arg *ra = arg;

	(void)ctx;
	json_object_begin(j);
	run_json_fields(j, &ra->v[tag]);
	json_object_end(j);
}

static int
runs_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct runs_arg ra = { NULL, NULL, 0, 0 };
	struct sctx sc;
	struct json j;
	size_t i;
	int rc;

	(void)a;
	sctx_init(&sc, ctx);
	ra.t = table_create();
	table_columns(ra.t, runs_columns);
	if ((rc = sctx_open(&sc, true, cause)) < 0)
		goto out;
	if (rc == 0 && (rc = store_run_list(sc.st, runs_row, &ra, cause)) != 0) {
		rc = stored_status(ctx, rc);
		goto out;
	}
	if ((rc = cmd_list_apply(ctx, ra.t, cause)) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "runs");
		cmd_list_json(ctx, &j, "runs", ra.t, runs_json_one, &ra);
		cmd_json_end(ctx, &j);
	} else
		table_render(ra.t, &ctx->out, ctx->o);
out:
	for (i = 0; i < ra.n; i++) {
		ra.v[i].report = NULL;
		store_run_release(&ra.v[i]);
	}
	free(ra.v);
	table_free(ra.t);
	sctx_release(&sc);
	return rc;
}

/* ---- run show ---- */

/* Jobs by state code, for a run's summary. */
struct state_count {
	long long	 n[JOB_NSTATES];
};

static int
count_states(void *arg, const struct store_job *sj)
{
	struct state_count *c = arg;

	if ((unsigned)sj->job.state < JOB_NSTATES)
		c->n[sj->job.state]++;
	return 0;
}

struct series_sum {
	int		 n;
	double		 first, last, used_mean, frag_mean;
	int		 pending_max, running_max;
};

static void
series_summary(const struct emu_sample *x, int n, struct series_sum *s)
{
	int i;

	memset(s, 0, sizeof *s);
	s->n = n;
	for (i = 0; i < n; i++) {
		if (i == 0)
			s->first = x[i].t;
		s->last = x[i].t;
		s->used_mean += (double)(x[i].used + x[i].opp) / n;
		s->frag_mean += x[i].frag / n;
		if (x[i].pending > s->pending_max)
			s->pending_max = x[i].pending;
		if (x[i].running > s->running_max)
			s->running_max = x[i].running;
	}
}

/* The value at path of a stored JSON document, "" when absent. */
static const char *
report_get(const char *doc, const char *path, struct strbuf *sb)
{
	char *why = NULL;

	strbuf_reset(sb);
	if (doc == NULL || json_lookup(doc, strlen(doc), path, sb, &why) != 0)
		strbuf_reset(sb);
	free(why);
	return sb->buf;
}

/* A stored replay report as the replay command's table of groups. */
static void
report_table(struct cmd_ctx *ctx, const char *doc)
{
	static const char *const cols[][3] = {
		{ "GROUP", "group", "group" }, { "JOBS", "jobs", "jobs" },
		{ "DONE", "done", "done" }, { "NEVER", "never", "never" },
		{ "JCT_AVG", "jct_avg", "jct.avg" },
		{ "JCT_MED", "jct_median", "jct.median" },
		{ "JCT_P95", "jct_p95", "jct.p95" },
		{ "Q_AVG", "queue_avg", "queue.avg" },
		{ "Q_MED", "queue_median", "queue.median" },
		{ "Q_P95", "queue_p95", "queue.p95" },
		{ "GPU_H", "gpu_hours", "gpu_hours" },
		{ "PREEMPT", "preemptions", "preemptions" },
		{ "LOST_GPU_H", "lost_gpu_hours", "lost_gpu_hours" },
	};
	struct strbuf sb = STRBUF_INIT;
	struct table *t = table_create();
	char path[64];
	size_t c;
	long g, ng;

	ng = atol(report_get(doc, "groups.#", &sb));
	for (c = 0; c < sizeof cols / sizeof cols[0]; c++)
		table_column(t, cols[c][0], cols[c][1], c == 0 ? TABLE_NAME : TABLE_NUM);
	for (g = 0; g < ng; g++) {
		table_row(t);
		for (c = 0; c < sizeof cols / sizeof cols[0]; c++) {
			const char *v;

			snprintf(path, sizeof path, "groups.%ld.%s", g, cols[c][2]);
			v = report_get(doc, path, &sb);
			if (c >= 4 && c <= 9)
				table_cell(t, "%.0f", atof(v));
			else if (c == 10 || c == 12)
				table_cell(t, "%.1f", atof(v));
			else
				table_cell(t, "%s", *v ? v : "-");
		}
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	strbuf_addf(ctx->o, "makespan %.0f s; GPU utilization %.1f%%; fragmentation "
	    "%.1f%% of nodes (average)\n", atof(report_get(doc, "makespan", &sb)),
	    100 * atof(report_get(doc, "util", &sb)),
	    100 * atof(report_get(doc, "frag_avg", &sb)));
	strbuf_release(&sb);
}

/* The keys of a flat JSON object with their values as rows "param.KEY". */
static void
params_rows(struct table *t, const char *doc)
{
	struct json_reader r;
	struct json_token tok;
	char *why = NULL, *key;
	size_t end;

	if (doc == NULL || json_validate(doc, strlen(doc), &end, &why) != 0) {
		free(why);
		return;
	}
	json_reader_init(&r, doc, strlen(doc));
	if (json_reader_next(&r, &tok, &why) != 0 || tok.type != JSON_TOK_OBJECT)
		goto out;
	for (;;) {
		const char *start;

		if (json_reader_next(&r, &tok, &why) != 0 || tok.type != JSON_TOK_STRING)
			break;
		key = xstrdup(tok.str);
		if (json_reader_next(&r, &tok, &why) != 0) {
			free(key);
			break;
		}
		table_row(t);
		table_cell(t, "param.%s", key);
		if (tok.type == JSON_TOK_STRING)
			table_cell(t, "%s", tok.str);
		else {
			start = tok.text;
			if (json_reader_skip(&r, &tok, &why) != 0) {
				free(key);
				break;
			}
			table_cell(t, "%.*s", (int)(r.s + r.pos - start), start);
		}
		free(key);
	}
out:
	free(why);
	json_reader_release(&r);
}

static const struct cmd_opt run_show_opts[] = {
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
run_show_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct state_count sc_n;
	struct series_sum ss;
	struct emu_sample *x = NULL;
	struct strbuf sb = STRBUF_INIT;
	struct table *t;
	struct sctx sc;
	struct json j;
	char b1[64], b2[64];
	int nx = 0, rc, i;
	long long nev;

	sctx_init(&sc, ctx);
	memset(&sc_n, 0, sizeof sc_n);
	if ((rc = sctx_open(&sc, false, cause)) != 0 ||
	    (rc = sctx_resolve_run(&sc, args_value(a, 0), NULL, cause)) != 0)
		goto out;
	if ((rc = store_job_load(sc.st, sc.run.id, count_states, &sc_n, cause)) != 0 ||
	    (rc = store_series_load(sc.st, sc.run.id, &x, &nx, cause)) != 0) {
		rc = stored_status(ctx, rc);
		goto out;
	}
	series_summary(x, nx, &ss);
	nev = sc.run.nevents;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "run");
		json_key(&j, "run");
		json_object_begin(&j);
		run_json_fields(&j, &sc.run);
		json_kv_int(&j, "events", nev);
		json_object_end(&j);
		json_key(&j, "states");
		json_object_begin(&j);
		for (i = 0; i < JOB_NSTATES; i++)
			if (sc_n.n[i] > 0)
				json_kv_int(&j, job_state_code((enum job_state)i), sc_n.n[i]);
		json_object_end(&j);
		json_key(&j, "series");
		json_object_begin(&j);
		json_kv_int(&j, "samples", ss.n);
		json_kv_double(&j, "first", ss.first);
		json_kv_double(&j, "last", ss.last);
		json_kv_int(&j, "pending_max", ss.pending_max);
		json_kv_int(&j, "running_max", ss.running_max);
		json_kv_double(&j, "gpus_used_mean", ss.used_mean);
		json_kv_double(&j, "frag_mean", ss.frag_mean);
		json_object_end(&j);
		json_stored(&j, "report", sc.run.report);
		cmd_json_end(ctx, &j);
		goto out;
	}
	t = table_create();
	table_column(t, "FIELD", "field", TABLE_NAME);
	table_column(t, "VALUE", "value", 0);
#define ROW(k, ...) do { table_row(t); table_cell(t, "%s", k); table_cell(t, __VA_ARGS__); } while (0)
	ROW("run", "%lld", (long long)sc.run.id);
	ROW("kind", "%s", store_run_kind_name(sc.run.kind));
	ROW("spec", "%s (%s)", sc.run.spec_path, sc.run.spec_hash);
	ROW("mode", "%s", sc.run.mode);
	if (sc.run.kind == STORE_RUN_REPLAY) {
		ROW("policy", "%s", sc.run.policy ? sc.run.policy : "-");
		ROW("trace", "%s", sc.run.trace ? sc.run.trace : "-");
		ROW("seed", "%llu", (unsigned long long)sc.run.seed);
	}
	ROW("state", "%s", store_run_state_name(sc.run.state));
	ROW("now", "%s", stored_fmt_t(&sc.run, sc.run.now, b1, sizeof b1));
	ROW("created", "%s by %s", stored_fmt_date(sc.run.created, b1, sizeof b1),
	    sc.run.user ? sc.run.user : "?");
	ROW("updated", "%s", stored_fmt_date(sc.run.updated, b2, sizeof b2));
	strbuf_addf(&sb, "%lld", sc.run.njobs);
	for (i = 0; i < JOB_NSTATES; i++)
		if (sc_n.n[i] > 0)
			strbuf_addf(&sb, "%s %lld %s", strchr(sb.buf, ':') ? "," : ":",
			    sc_n.n[i], job_state_code((enum job_state)i));
	ROW("jobs", "%s", sb.buf);
	ROW("events", "%lld", nev);
	if (ss.n > 0)
		ROW("series", "%d samples from %s to %s; pending max %d, running max %d; "
		    "GPUs in use %.1f on average; fragmentation %.1f%%", ss.n,
		    stored_fmt_t(&sc.run, ss.first, b1, sizeof b1),
		    stored_fmt_t(&sc.run, ss.last, b2, sizeof b2), ss.pending_max,
		    ss.running_max, ss.used_mean, 100 * ss.frag_mean);
	else
		ROW("series", "none");
	params_rows(t, sc.run.params);
#undef ROW
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	if (sc.run.report != NULL && OUT_IS_TEXT(ctx->out.format)) {
		strbuf_adds(ctx->o, "\n");
		report_table(ctx, sc.run.report);
	}
out:
	free(x);
	strbuf_release(&sb);
	sctx_release(&sc);
	return rc;
}

/* ---- the entries ---- */

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.min = 0, .max = 0,
	.usage = "",
	.summary = "list the runs in the state store",
	.help =
	    "List the runs recorded in the state store, oldest first: the "
	    "session's live cluster (kind session: hand allocations) and emulator "
	    "replays written with --db or CELLAR_DB (kind replay). Columns: id, "
	    "kind, spec, sharing mode, policy and trace (replays), state (running, "
	    "done, or interrupted: a session run a newer one replaced), the "
	    "run's clock at its last write (a UTC date for sessions, seconds for "
	    "replays), jobs and when it started; -o wide adds the user, seed, last "
	    "write and the spec's hash.\n"
	    "Without a state store the list is empty, with a note; nothing is "
	    "created.",
	.examples = (const char *const []){
		"runs",
		"runs --filter kind=replay -o json",
		"runs --sort -jobs -o wide",
		NULL },
	.columns = runs_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = runs_exec,
};

const struct cmd_entry cmd_run_show_entry = {
	.name = "run show",
	.opts = run_show_opts,
	.min = 1, .max = 1,
	.usage = "ID|last",
	.summary = "show one run: parameters, report, time series",
	.help =
	    "Show run ID (or the newest, 'last'): its kind, spec and hash, mode, "
	    "policy, trace and seed, state and clock, who started it and when, its "
	    "jobs by state code, its events, a summary of its time series (hourly "
	    "samples: pending and running jobs, GPUs in use, fragmentation), its "
	    "parameters (param.NAME rows) and, for a replay, the report as replay "
	    "printed it. -o json gives the stored parameters and report as they "
	    "are.",
	.examples = (const char *const []){
		"run show last",
		"run show 1 -o json",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = run_show_exec,
};
