/*
 * cmd-store.c — the commands that read the state store (store/store.h):
 * `runs` and `run show`, `events` (with --follow), `history`, `job show`,
 * the stored side of `jobs --run`, `db check`, `db vacuum`, `export` and
 * `import`.
 *
 * Reading never creates a store: the store is opened read-only (a session
 * that already has it open for writing reads through that connection). A
 * listing of a store that does not exist is empty, with a note saying so;
 * a lookup in it fails (status 1). Anything the store itself cannot do
 * (open, read, write) is status 4.
 *
 * Times are on the run's clock: Unix seconds for a session, shown as UTC
 * dates; virtual seconds for a replay, shown as seconds. JSON gives them
 * as numbers.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/session-log.h"
#include "cmd/cmd.h"
#include "cmd/frontend.h"
#include "core/strvec.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "job/model-class.h"
#include "job/record.h"
#include "store/store.h"

#define FOLLOW_POLL_MS		200
#define FOLLOW_FIRST		10	/* events shown when --follow starts */
#define SHOW_EVENTS		10	/* job show: the last events */
#define PATH_LEN		1024

/* What one command has found out about its run. */
struct sctx {
	struct cmd_ctx		*ctx;
	struct store		*st;
	struct store_run	 run;		/* run.id 0: none yet */
	struct store_spec	 sp;		/* the run's spec, once asked for */
	struct spec		*spec;		/* parsed, once asked for (may fail) */
	bool			 spec_tried;
	/* Other runs seen by events --follow (every run): their kinds. */
	int64_t			 other[32];
	enum store_run_kind	 other_kind[32];
	int			 nother;
	/* Other specs events were recorded on (a reconfigured run's older
	   ones, other runs'), parsed once: their cells are named with them. */
	int64_t			 espec_id[8];
	struct spec		*espec[8];	/* NULL: cannot be parsed */
	int			 nespec;
};

static void
sctx_init(struct sctx *sc, struct cmd_ctx *ctx)
{
	memset(sc, 0, sizeof *sc);
	sc->ctx = ctx;
	store_run_init(&sc->run);
}

static void
sctx_release(struct sctx *sc)
{
	store_run_release(&sc->run);
	int i;

	store_spec_release(&sc->sp);
	spec_free(sc->spec);
	for (i = 0; i < sc->nespec; i++)
		spec_free(sc->espec[i]);
}

/*
 * Map a store result to the command's: -1 is status 4; STORE_NOTFOUND and
 * STORE_INVALID are status 1. Returns -1 either way.
 */
static int
store_status(struct cmd_ctx *ctx, int rc)
{
	ctx->status = rc < 0 ? CMD_EXIT_STORE : CMD_EXIT_FAIL;
	return -1;
}

/*
 * Open the store to read it. Returns 0; 1 when there is none (for a
 * listing, which then shows nothing: the note is written and *cause
 * freed); -1 with *cause and ctx->status for a failure or (missing_ok
 * false) a missing store.
 */
static int
open_read(struct sctx *sc, bool missing_ok, char **cause)
{
	int rc = session_store(sc->ctx->sess, false, &sc->st, cause);

	if (rc == STORE_NOTFOUND && missing_ok) {
		cmd_note(sc->ctx, "%s", *cause);
		free(*cause);
		*cause = NULL;
		return 1;
	}
	if (rc != 0)
		return store_status(sc->ctx, rc);
	return 0;
}

/* "last", or a run id; NULL: the newest run (with a job `name`, if given). */
static int
resolve_run(struct sctx *sc, const char *arg, const char *name, char **cause)
{
	int64_t id = 0;
	char *end;
	int rc;

	if (arg == NULL && name != NULL)
		rc = store_job_last_run(sc->st, name, &id, cause);
	else if (arg == NULL || strcmp(arg, "last") == 0)
		rc = store_run_last(sc->st, -1, &id, cause);
	else {
		errno = 0;
		id = strtoll(arg, &end, 10);
		if (errno != 0 || end == arg || *end != '\0' || id <= 0) {
			*cause = xasprintf("invalid run '%s' (a run id, or 'last')", arg);
			sc->ctx->status = CMD_EXIT_USAGE;
			return -1;
		}
		rc = 0;
	}
	if (rc == 0)
		rc = store_run_get(sc->st, id, &sc->run, cause);
	return rc == 0 ? 0 : store_status(sc->ctx, rc);
}

/* The run's spec, parsed; NULL when it cannot be (names then show as -). */
static const struct spec *
run_spec(struct sctx *sc)
{
	char *cause = NULL;

	if (sc->spec_tried)
		return sc->spec;
	sc->spec_tried = true;
	if (store_spec_get(sc->st, sc->run.spec, &sc->sp, &cause) != 0) {
		free(cause);
		return NULL;
	}
	sc->spec = spec_load_string(sc->sp.path, sc->sp.text, sc->sp.text_len, NULL);
	return sc->spec;
}

static const char *
vc_name(struct sctx *sc, int vc)
{
	if (!sc->spec_tried)
		run_spec(sc);
	return vc >= 0 && vc < sc->sp.nvcs && sc->sp.vcs[vc].name != NULL ?
	    sc->sp.vcs[vc].name : "-";
}

/*
 * The time a job's open period (pending or running since its last change)
 * runs to: now for a session run still running (live and alloc'd jobs
 * count queued and run time only when they leave a state), else 0 (a
 * finished run's jobs are final; a replay's clock is its own).
 */
static double
open_now(const struct store_run *run)
{
	return run->kind == STORE_RUN_SESSION && run->state == STORE_RUN_RUNNING ?
	    session_now() : 0;
}

/* A VC name of the run's spec; -1 with *cause if it has none such. */
static int
vc_find(struct sctx *sc, const char *name, char **cause)
{
	struct strbuf hint = STRBUF_INIT;
	const char **names;
	int i;

	run_spec(sc);
	for (i = 0; i < sc->sp.nvcs; i++)
		if (sc->sp.vcs[i].name != NULL && strcmp(sc->sp.vcs[i].name, name) == 0)
			return i;
	names = xcalloc((size_t)sc->sp.nvcs + 1, sizeof *names);
	for (i = 0; i < sc->sp.nvcs; i++)
		names[i] = sc->sp.vcs[i].name;
	suggest_hint(&hint, name, names, (size_t)sc->sp.nvcs, "vcs");
	*cause = xasprintf("unknown vc '%s' in run %lld%s", name,
	    (long long)sc->run.id, hint.buf);
	free(names);
	strbuf_release(&hint);
	return -1;
}

/* Wall-clock seconds as a UTC date. */
static const char *
fmt_date(double t, char *buf, size_t len)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* A time on the run's clock: a date for a session, seconds for a replay. */
static const char *
fmt_t(const struct store_run *r, double t, char *buf, size_t len)
{
	if (t < 0)
		snprintf(buf, len, "-");
	else if (r->kind == STORE_RUN_SESSION)
		fmt_date(t, buf, len);
	else if (t == floor(t))
		snprintf(buf, len, "%.0f", t);
	else
		snprintf(buf, len, "%.3f", t);
	return buf;
}

/* "2x4,1x8" */
static void
gang_text(const struct job *j, struct strbuf *sb)
{
	int i;

	for (i = 0; i < j->nmembers; i++)
		strbuf_addf(sb, "%s%dx%d", i ? "," : "", j->members[i].pods,
		    j->members[i].gpus);
}

static int
job_pods(const struct job *j)
{
	int i, n = 0;

	for (i = 0; i < j->nmembers; i++)
		n += j->members[i].pods;
	return n;
}

static const char *
chain_of(const struct spec *s, int chain)
{
	return s != NULL && chain >= 0 && chain < s->nchains ?
	    s->types[s->chains[chain].top_type].name : "-";
}

/* The lowest cell holding each pod, comma-separated (needs the spec). */
static void
pod_cells(const struct spec *s, const struct engine_placement *pl, struct strbuf *sb)
{
	char path[PATH_LEN];
	int p, a;

	for (p = 0; p < pl->npods; p++) {
		a = s == NULL ? -1 : spec_cell_lca(s, pl->leaves + pl->pod_first[p],
		    pl->pod_first[p + 1] - pl->pod_first[p]);
		strbuf_addf(sb, "%s%s", p ? "," : "", a >= 0 ?
		    spec_cell_path(s, a, path, sizeof path) : "-");
	}
}

static const char *
class_of(const struct store_job *sj)
{
	if (sj->placed && sj->pl.pl.downgraded)
		return "downgraded";
	if (sj->job.opportunistic || sj->job.klass == JOB_OPPORTUNISTIC)
		return job_class_name(JOB_OPPORTUNISTIC);
	return job_class_name(sj->job.klass);
}

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
	table_cell(ra->t, "%s", fmt_t(r, r->now, b1, sizeof b1));
	table_cell_int(ra->t, r->njobs);
	table_cell(ra->t, "%s", fmt_date(r->created, b2, sizeof b2));
	table_cell(ra->t, "%s", r->user ? r->user : "-");
	table_cell_int(ra->t, (long long)r->seed);
	table_cell(ra->t, "%s", fmt_date(r->updated, b3, sizeof b3));
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
	if ((rc = open_read(&sc, true, cause)) < 0)
		goto out;
	if (rc == 0 && (rc = store_run_list(sc.st, runs_row, &ra, cause)) != 0) {
		rc = store_status(ctx, rc);
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
	if ((rc = open_read(&sc, false, cause)) != 0 ||
	    (rc = resolve_run(&sc, args_value(a, 0), NULL, cause)) != 0)
		goto out;
	if ((rc = store_job_load(sc.st, sc.run.id, count_states, &sc_n, cause)) != 0 ||
	    (rc = store_series_load(sc.st, sc.run.id, &x, &nx, cause)) != 0) {
		rc = store_status(ctx, rc);
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
	ROW("now", "%s", fmt_t(&sc.run, sc.run.now, b1, sizeof b1));
	ROW("created", "%s by %s", fmt_date(sc.run.created, b1, sizeof b1),
	    sc.run.user ? sc.run.user : "?");
	ROW("updated", "%s", fmt_date(sc.run.updated, b2, sizeof b2));
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
		    fmt_t(&sc.run, ss.first, b1, sizeof b1),
		    fmt_t(&sc.run, ss.last, b2, sizeof b2), ss.pending_max,
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

/* ---- events and history ---- */

static const struct table_colspec events_columns[] = {
	{ "SEQ", "seq", TABLE_NAME | TABLE_NUM, "the event's number in the store" },
	{ "TIME", "time", 0, "when, on the run's clock (UTC dates for sessions)" },
	{ "KIND", "kind", 0, "submit, start, preempt, release, node-bad, ..." },
	{ "JOB", "job", 0, "the job it is about, or -" },
	{ "VC", "vc", 0, "its virtual cluster, or -" },
	{ "BY", "by", 0, "for preempt and downgrade: the job that took the cells" },
	{ "DETAIL", "detail", 0, "where, or why" },
	{ "RUN", "run", TABLE_NUM | TABLE_WIDE, "the run" },
	{ "CELL", "cell", TABLE_WIDE, "the cell (a node's, for node events), or -" },
	{ "T", "t", TABLE_NUM | TABLE_WIDE, "the time in seconds" },
	{ NULL, NULL, 0, NULL }
};

/* The events of one query, kept for the table and for JSON. */
struct ev_list {
	struct sctx		*sc;
	struct table		*t;
	struct store_event	*v;
	char			**names;	/* job, by, vc per event */
	size_t			 n, cap, ncap;
	int64_t			 last;		/* highest seq seen */
};

/* The spec of that id, parsed (cached); NULL when it cannot be. */
static const struct spec *
ev_spec(struct sctx *sc, int64_t id)
{
	struct store_spec sp;
	struct spec *s = NULL;
	char *cause = NULL;
	int i;

	if (id == sc->run.spec)
		return run_spec(sc);
	for (i = 0; i < sc->nespec; i++)
		if (sc->espec_id[i] == id)
			return sc->espec[i];
	memset(&sp, 0, sizeof sp);
	if (store_spec_get(sc->st, id, &sp, &cause) == 0)
		s = spec_load_string(sp.path, sp.text, sp.text_len, NULL);
	free(cause);
	store_spec_release(&sp);
	/* Full, the cache gives up its first entry (callers copy what they
	   need from a spec before asking for another). */
	if (sc->nespec < (int)(sizeof sc->espec / sizeof sc->espec[0])) {
		sc->espec_id[sc->nespec] = id;
		sc->espec[sc->nespec++] = s;
	} else {
		spec_free(sc->espec[0]);
		sc->espec_id[0] = id;
		sc->espec[0] = s;
	}
	return s;
}

/* An event's cell, named in the spec it was recorded on (ev->spec). */
static const char *
cell_text(struct sctx *sc, const struct store_event *ev, char *buf, size_t len)
{
	const struct spec *s;
	int cell = ev->rec.cell;

	if (cell < 0 || (s = ev_spec(sc, ev->spec)) == NULL || cell >= s->ncells)
		return cell < 0 ? "-" : (snprintf(buf, len, "%d", cell), buf);
	return spec_cell_path(s, cell, buf, len);
}

/* The run an event belongs to, for the format of its time. */
static const struct store_run *
ev_run(struct sctx *sc, int64_t run, struct store_run *tmp)
{
	struct store_run r;
	char *cause = NULL;
	int i;

	if (run == sc->run.id)
		return &sc->run;
	*tmp = sc->run;
	for (i = 0; i < sc->nother; i++)
		if (sc->other[i] == run) {
			tmp->kind = sc->other_kind[i];
			return tmp;
		}
	if (store_run_get(sc->st, run, &r, &cause) == 0) {
		tmp->kind = r.kind;
		if (sc->nother < (int)(sizeof sc->other / sizeof sc->other[0])) {
			sc->other[sc->nother] = run;
			sc->other_kind[sc->nother++] = r.kind;
		}
		store_run_release(&r);
	}
	free(cause);
	return tmp;
}

static int
ev_add(void *arg, const struct store_event *ev)
{
	struct ev_list *l = arg;
	struct store_event *c;
	struct store_run tmp;
	char buf[PATH_LEN], tb[64], tr[64];

	XGROW(l->v, l->cap, l->n + 1);
	XGROW(l->names, l->ncap, 3 * (l->n + 1));
	c = &l->v[l->n];
	*c = *ev;
	l->names[3 * l->n] = ev->job_name ? xstrdup(ev->job_name) : NULL;
	l->names[3 * l->n + 1] = ev->by_name ? xstrdup(ev->by_name) : NULL;
	l->names[3 * l->n + 2] = ev->vc_name ? xstrdup(ev->vc_name) : NULL;
	c->job_name = l->names[3 * l->n];
	c->by_name = l->names[3 * l->n + 1];
	c->vc_name = l->names[3 * l->n + 2];
	if (ev->seq > l->last)
		l->last = ev->seq;
	table_row(l->t);
	table_row_tag(l->t, (long)l->n);
	table_cell_int(l->t, ev->seq);
	table_cell(l->t, "%s", fmt_t(ev_run(l->sc, ev->run, &tmp), ev->rec.t, tb,
	    sizeof tb));
	table_cell_role(l->t, ev->rec.kind == REC_PREEMPT || ev->rec.kind == REC_FAIL ||
	    ev->rec.kind == REC_NODE_BAD ? ROLE_WARN : ROLE_NONE, "%s",
	    rec_kind_name(ev->rec.kind));
	table_cell(l->t, "%s", ev->job_name ? ev->job_name : ev->rec.job >= 0 ?
	    "?" : "-");
	table_cell(l->t, "%s", ev->vc_name ? ev->vc_name : "-");
	table_cell(l->t, "%s", ev->by_name ? ev->by_name : ev->rec.by >= 0 ? "?" : "-");
	table_cell(l->t, "%s", ev->rec.detail[0] ? ev->rec.detail : "-");
	table_cell_int(l->t, ev->run);
	table_cell(l->t, "%s", cell_text(l->sc, ev, buf, sizeof buf));
	snprintf(tr, sizeof tr, "%.17g", ev->rec.t);
	table_cell(l->t, "%s", tr);
	l->n++;
	return 0;
}

static void
ev_list_reset(struct ev_list *l)
{
	size_t i;

	for (i = 0; i < 3 * l->n; i++)
		free(l->names[i]);
	l->n = 0;
	table_free(l->t);
	l->t = NULL;
}

static void
ev_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct ev_list *l = arg;
	const struct store_event *ev = &l->v[tag];
	char buf[PATH_LEN];

	(void)ctx;
	json_object_begin(j);
	json_kv_int(j, "seq", ev->seq);
	json_kv_int(j, "run", ev->run);
	json_kv_double(j, "t", ev->rec.t);
	json_kv_string(j, "kind", rec_kind_name(ev->rec.kind));
	json_kv_string(j, "job", ev->job_name);
	json_kv_string(j, "vc", ev->vc_name);
	json_kv_string(j, "cell", ev->rec.cell >= 0 ?
	    cell_text(l->sc, ev, buf, sizeof buf) : NULL);
	json_kv_string(j, "by", ev->by_name);
	json_kv_string(j, "detail", ev->rec.detail);
	json_object_end(j);
}

/* Write the events in l (filtered and sorted) as the command's output. */
static int
ev_write(struct cmd_ctx *ctx, struct ev_list *l, const char *kind, bool header,
    char **cause)
{
	struct out_opts o = ctx->out;
	struct json j;

	if (cmd_list_apply(ctx, l->t, cause) != 0)
		return -1;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, kind);
		if (l->sc->run.id != 0)
			json_kv_int(&j, "run", l->sc->run.id);
		else
			json_kv_null(&j, "run");
		cmd_list_json(ctx, &j, "events", l->t, ev_json_one, l);
		cmd_json_end(ctx, &j);
		return 0;
	}
	o.header = o.header && header;
	table_render(l->t, &o, ctx->o);
	return 0;
}

static const struct cmd_opt events_opts[] = {
	{ 0, "run", "ID", "the run: an id or 'last' (default: the newest)", VALUE_NONE },
	{ 0, "since", "T", "events at or after T on the run's clock", VALUE_NONE },
	{ 0, "vc", "VC", "only the events of this virtual cluster", VALUE_VC },
	{ 0, "job", "NAME", "only the events of this job", VALUE_JOB },
	{ 0, "kind", "KIND", "only events of this kind (submit, start, ...)", VALUE_NONE },
	{ 0, "limit", "N", "only the newest N", VALUE_NONE },
	{ 'f', "follow", NULL, "keep printing new events until interrupted", VALUE_NONE },
	{ 0, "for", "SECONDS", "with --follow: stop after SECONDS", VALUE_NONE },
	{ 0, "until-run-done", NULL, "with --follow: stop once the run is no longer running", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* Digits at *p, exactly n of them, into *v. */
static bool
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

/* "YYYY-MM-DD", "YYYY-MM-DDTHH:MM" or "YYYY-MM-DDTHH:MM:SS". */
static bool
date_parse(const char *p, int *y, int *mo, int *d, int *h, int *mi, int *sec)
{
	if (!digits(&p, 4, y) || *p++ != '-' || !digits(&p, 2, mo) || *p++ != '-' ||
	    !digits(&p, 2, d) || *mo < 1 || *mo > 12 || *d < 1 || *d > 31)
		return false;
	if (*p == '\0')
		return true;
	if (*p++ != 'T' || !digits(&p, 2, h) || *p++ != ':' || !digits(&p, 2, mi) ||
	    *h > 23 || *mi > 59)
		return false;
	if (*p == '\0')
		return true;
	return *p++ == ':' && digits(&p, 2, sec) && *sec <= 60 && *p == '\0';
}

/* "90", "15m", "2h", "3d", or (sessions) "YYYY-MM-DD[THH:MM[:SS]]" (UTC). */
static int
parse_since(const struct store_run *r, const char *s, double *out, char **cause)
{
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0;
	double v;

	memset(&tm, 0, sizeof tm);
	if (date_parse(s, &y, &mo, &d, &h, &mi, &sec)) {
		tm.tm_year = y - 1900;
		tm.tm_mon = mo - 1;
		tm.tm_mday = d;
		tm.tm_hour = h;
		tm.tm_min = mi;
		tm.tm_sec = sec;
		*out = (double)timegm(&tm);
		return 0;
	}
	if (args_seconds(s, &v) != 0)
		goto bad;
	/* A session's clock is Unix time: a duration counts from its start. */
	*out = r->kind == STORE_RUN_SESSION ? floor(r->created) + v : v;
	return 0;
bad:
	*cause = xasprintf("invalid --since '%s' (seconds or a duration from the "
	    "run's start, like 90, 15m, 2h; or a UTC date YYYY-MM-DDTHH:MM:SS)", s);
	return -1;
}

/* --for SECONDS: decimals allowed. */
static int
parse_seconds(const char *s, double *out, char **cause)
{
	char *e;

	errno = 0;
	*out = strtod(s, &e);
	if (e == s || *e != '\0' || errno != 0 || !isfinite(*out) || *out < 0 ||
	    *out > 1e9) {
		*cause = xasprintf("invalid --for '%s' (seconds)", s);
		return -1;
	}
	return 0;
}

/* The filter of events/history from the options; -1 with *cause. */
static int
events_filter(struct sctx *sc, const struct args *a, const char *job,
    struct store_event_filter *f, char **cause)
{
	struct store_job sj;
	const char *v;
	long long n;
	int rc;

	store_event_filter_init(f);
	f->run = sc->run.id;
	if ((v = args_get(a, "since")) != NULL) {
		if (parse_since(&sc->run, v, &f->since, cause) != 0)
			return cmd_usage_error(sc->ctx);
		f->has_since = true;
	}
	/* By name: a reconfigured run's events hold indices of their own spec. */
	if ((v = args_get(a, "vc")) != NULL) {
		if (vc_find(sc, v, cause) < 0)
			return -1;
		f->vc_name = v;
	}
	if ((v = args_get(a, "kind")) != NULL && (f->kind = rec_kind_parse(v)) < 0) {
		struct strbuf sb = STRBUF_INIT;
		int k;

		for (k = 0; k < REC_NKINDS; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : "", rec_kind_name((enum rec_kind)k));
		*cause = xasprintf("unknown event kind '%s' (%s)", v, sb.buf);
		strbuf_release(&sb);
		return cmd_usage_error(sc->ctx);
	}
	if (args_has(a, "limit")) {
		n = args_strtonum(a, "limit", 1, 1LL << 40, cause);
		if (*cause != NULL)
			return cmd_usage_error(sc->ctx);
		f->limit = n;
	}
	if (job != NULL) {
		if ((rc = store_job_find(sc->st, sc->run.id, job, &sj, cause)) != 0)
			return store_status(sc->ctx, rc);
		f->job = sj.job.id;
		store_job_release(&sj);
	}
	return 0;
}

/* Poll for events after the last seen until interrupted or a bound. */
static int
events_follow(struct sctx *sc, const struct args *a, struct ev_list *l,
    struct store_event_filter *f, const char *kind, char **cause)
{
	struct cmd_ctx *ctx = sc->ctx;
	const struct frontend *fe = ctx->sess->fe;
	struct store_run r;
	double bound = -1, t0 = session_now();
	bool until_done = args_has(a, "until-run-done");
	int rc;

	if (args_has(a, "for") && parse_seconds(args_get(a, "for"), &bound, cause) != 0)
		return cmd_usage_error(ctx);
	f->limit = 0;
	for (;;) {
		fe->flush(fe, ctx->o, ctx->err, false);
		if (bound >= 0 && session_now() - t0 >= bound)
			return 0;
		if (until_done) {
			if ((rc = store_run_get(sc->st, sc->run.id, &r, cause)) != 0)
				return store_status(ctx, rc);
			rc = r.state != STORE_RUN_RUNNING;
			store_run_release(&r);
			if (rc) {
				/* What the run wrote last. */
				ev_list_reset(l);
				l->t = table_create();
				table_columns(l->t, events_columns);
				f->after = l->last;
				if ((rc = store_event_query(sc->st, f, ev_add, l, cause)) != 0)
					return store_status(ctx, rc);
				if (l->n > 0 && ev_write(ctx, l, kind, false, cause) != 0)
					return -1;
				fe->flush(fe, ctx->o, ctx->err, false);
				return 0;
			}
		}
		if (fe->interrupted(fe) || !fe->sleep(fe, FOLLOW_POLL_MS)) {
			ctx->status = CMD_EXIT_INTR;
			ctx->reported = true;
			*cause = xstrdup("interrupted");
			return -1;
		}
		ev_list_reset(l);
		l->t = table_create();
		table_columns(l->t, events_columns);
		f->after = l->last;
		if ((rc = store_event_query(sc->st, f, ev_add, l, cause)) != 0)
			return store_status(ctx, rc);
		if (l->n > 0 && ev_write(ctx, l, kind, false, cause) != 0)
			return -1;
	}
}

static int
events_run(struct cmd_ctx *ctx, const struct args *a, const char *job,
    const char *kind, char **cause)
{
	struct store_event_filter f;
	struct ev_list l;
	struct sctx sc;
	bool follow = args_has(a, "follow");
	int rc;

	sctx_init(&sc, ctx);
	memset(&l, 0, sizeof l);
	l.sc = &sc;
	l.t = table_create();
	table_columns(l.t, events_columns);
	if (!follow && (args_has(a, "for") || args_has(a, "until-run-done"))) {
		*cause = xstrdup("'--for' and '--until-run-done' go with '--follow'");
		rc = cmd_usage_error(ctx);
		goto out;
	}
	if (follow && ctx->sess->fe == NULL) {
		*cause = xstrdup("'--follow' needs a front end (the REPL or the "
		    "command line)");
		rc = -1;
		goto out;
	}
	if ((rc = open_read(&sc, job == NULL && !follow, cause)) != 0) {
		if (rc > 0) {		/* no store: an empty listing */
			rc = ev_write(ctx, &l, kind, true, cause);
		}
		goto out;
	}
	if ((rc = resolve_run(&sc, args_get(a, "run"), job, cause)) != 0 ||
	    (rc = events_filter(&sc, a, job, &f, cause)) != 0)
		goto out;
	if (follow && f.limit == 0)
		f.limit = FOLLOW_FIRST;
	/* Following without --run or --job: every run, new ones too. */
	if (follow && args_get(a, "run") == NULL && job == NULL)
		f.run = 0;
	if ((rc = store_event_query(sc.st, &f, ev_add, &l, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	if ((rc = ev_write(ctx, &l, kind, true, cause)) != 0)
		goto out;
	if (follow)
		rc = events_follow(&sc, a, &l, &f, kind, cause);
out:
	ev_list_reset(&l);
	free(l.v);
	free(l.names);
	sctx_release(&sc);
	return rc;
}

static int
events_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return events_run(ctx, a, args_get(a, "job"), "events", cause);
}

static const struct cmd_opt history_opts[] = {
	{ 0, "run", "ID", "the run: an id or 'last' (default: the newest with the job)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
history_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return events_run(ctx, a, args_value(a, 0), "history", cause);
}

/* ---- job show ---- */

static int
job_show_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *name = args_value(a, 0);
	const struct spec *s;
	const struct job *jb;
	struct store_event_filter f;
	struct store_job sj;
	struct ev_list l;
	struct strbuf sb = STRBUF_INIT;
	struct table *t;
	struct sctx sc;
	struct json j;
	char b1[64], b2[64];
	int rc;

	sctx_init(&sc, ctx);
	store_job_init(&sj);
	memset(&l, 0, sizeof l);
	l.sc = &sc;
	if ((rc = open_read(&sc, false, cause)) != 0 ||
	    (rc = resolve_run(&sc, args_get(a, "run"), name, cause)) != 0)
		goto out;
	if ((rc = store_job_find(sc.st, sc.run.id, name, &sj, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	jb = &sj.job;
	s = run_spec(&sc);
	store_event_filter_init(&f);
	f.run = sc.run.id;
	f.job = jb->id;
	f.limit = SHOW_EVENTS;
	l.t = table_create();
	table_columns(l.t, events_columns);
	if ((rc = store_event_query(sc.st, &f, ev_add, &l, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	gang_text(jb, &sb);
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "job");
		json_kv_int(&j, "run", sc.run.id);
		json_key(&j, "job");
		json_object_begin(&j);
		json_kv_string(&j, "job", jb->name);
		json_kv_int(&j, "id", jb->id);
		json_kv_string(&j, "user", jb->user);
		json_kv_string(&j, "vc", vc_name(&sc, jb->vc));
		json_kv_string(&j, "state", job_state_name(jb->state));
		json_kv_string(&j, "state_code", job_state_code(jb->state));
		json_kv_string(&j, "reason", jb->state == JOB_PENDING ?
		    job_reason_name(jb->reason) : NULL);
		json_kv_string(&j, "class", class_of(&sj));
		json_kv_bool(&j, "opportunistic", jb->opportunistic);
		json_kv_double(&j, "submit", jb->submit);
		json_kv_string(&j, "gang", sb.buf);
		json_kv_int(&j, "gpus", jb->gpus);
		json_kv_string(&j, "type", jb->leaf_type >= 0 && s != NULL &&
		    jb->leaf_type < s->ntypes ? s->types[jb->leaf_type].name : NULL);
		json_kv_bool(&j, "soft_affinity", jb->soft_affinity);
		json_kv_double(&j, "duration", jb->duration);
		json_kv_string(&j, "model", jb->model >= 0 && jb->model < model_count ?
		    model_table[jb->model].name : NULL);
		json_kv_int(&j, "elastic_min", jb->elastic_min);
		json_kv_int(&j, "elastic_max", jb->elastic_max);
		json_kv_int(&j, "priority", jb->priority);
		json_kv_int(&j, "weight", jb->weight);
		json_kv_double(&j, "state_since", jb->state_since);
		json_kv_double(&j, "first_start", jb->first_start);
		json_kv_double(&j, "end", jb->end);
		json_kv_double(&j, "queued", job_queued_at(jb, open_now(&sc.run)));
		json_kv_double(&j, "attained", jb->attained);
		json_kv_double(&j, "run_time", job_run_time_at(jb, open_now(&sc.run)));
		json_kv_double(&j, "work_done", jb->work_done);
		json_kv_double(&j, "ckpt_work", jb->ckpt_work);
		json_kv_double(&j, "lost_work", jb->lost_work);
		json_kv_int(&j, "restarts", jb->restarts);
		json_kv_int(&j, "preemptions", jb->preemptions);
		json_kv_int(&j, "suspensions", jb->suspensions);
		json_kv_int(&j, "engine_id", jb->engine_id);
		json_kv_int(&j, "blob_bytes", (long long)sj.blob_len);
		json_object_end(&j);
		json_key(&j, "placement");
		if (sj.placed) {
			json_object_begin(&j);
			json_kv_string(&j, "chain", chain_of(s, sj.pl.pl.chain));
			json_kv_int(&j, "priority", sj.pl.pl.priority);
			json_kv_int(&j, "orig_priority", sj.pl.pl.orig_priority);
			json_kv_bool(&j, "lazy", sj.pl.pl.lazy);
			json_kv_bool(&j, "downgraded", sj.pl.pl.downgraded);
			json_kv_int(&j, "pods", sj.pl.pl.npods);
			json_kv_string(&j, "nodes", sj.pl.nodes);
			json_kv_string(&j, "gpus", sj.pl.gpus);
			strbuf_reset(&sb);
			pod_cells(s, &sj.pl.pl, &sb);
			json_kv_string(&j, "cells", sb.buf);
			json_object_end(&j);
		} else
			json_null(&j);
		cmd_list_json(ctx, &j, "events", l.t, ev_json_one, &l);
		cmd_json_end(ctx, &j);
		goto out;
	}
	t = table_create();
	table_column(t, "FIELD", "field", TABLE_NAME);
	table_column(t, "VALUE", "value", 0);
#define ROW(k, ...) do { table_row(t); table_cell(t, "%s", k); table_cell(t, __VA_ARGS__); } while (0)
	ROW("job", "%s (id %d in run %lld)", jb->name, jb->id, (long long)sc.run.id);
	ROW("user", "%s", jb->user[0] ? jb->user : "-");
	ROW("vc", "%s", vc_name(&sc, jb->vc));
	ROW("state", "%s (%s)%s%s", job_state_code(jb->state), job_state_name(jb->state),
	    jb->state == JOB_PENDING ? ", waiting: " : "",
	    jb->state == JOB_PENDING ? job_reason_name(jb->reason) : "");
	ROW("class", "%s", class_of(&sj));
	ROW("gang", "%s (%d GPU%s in %d pod%s)", sb.buf, jb->gpus, jb->gpus == 1 ? "" : "s",
	    job_pods(jb), job_pods(jb) == 1 ? "" : "s");
	ROW("type", "%s", jb->leaf_type >= 0 && s != NULL && jb->leaf_type < s->ntypes ?
	    s->types[jb->leaf_type].name : "any");
	ROW("affinity", "%s", jb->soft_affinity ? "soft" : "hard");
	if (jb->duration >= 0)
		ROW("duration", "%.0f s at ideal placement", jb->duration);
	else
		ROW("duration", "unknown");
	ROW("model", "%s", jb->model >= 0 && jb->model < model_count ?
	    model_table[jb->model].name : "-");
	if (jb->elastic_min > 0)
		ROW("elastic", "%d to %d GPUs", jb->elastic_min, jb->elastic_max);
	ROW("requested", "priority %d, weight %d", jb->priority, jb->weight);
	ROW("submit", "%s", fmt_t(&sc.run, jb->submit, b1, sizeof b1));
	ROW("first start", "%s", fmt_t(&sc.run, jb->first_start, b1, sizeof b1));
	ROW("since", "%s", fmt_t(&sc.run, jb->state_since, b1, sizeof b1));
	ROW("end", "%s", fmt_t(&sc.run, jb->end, b2, sizeof b2));
	ROW("queued", "%.0f s", job_queued_at(jb, open_now(&sc.run)));
	ROW("run time", "%.0f s", job_run_time_at(jb, open_now(&sc.run)));
	ROW("service", "%.1f GPU-hours", jb->attained / 3600);
	ROW("progress", "%.0f s of work (last checkpoint %.0f s, lost %.0f s)",
	    jb->work_done, jb->ckpt_work, jb->lost_work);
	ROW("restarts", "%d (preemptions %d, suspensions %d)", jb->restarts,
	    jb->preemptions, jb->suspensions);
	if (sj.placed) {
		ROW("chain", "%s", chain_of(s, sj.pl.pl.chain));
		ROW("priority", "%d (requested %d)%s%s", sj.pl.pl.priority,
		    sj.pl.pl.orig_priority, sj.pl.pl.lazy ? ", lazy" : "",
		    sj.pl.pl.downgraded ? ", downgraded" : "");
		ROW("nodes", "%s", sj.pl.nodes);
		ROW("gpus", "%s", sj.pl.gpus);
		strbuf_reset(&sb);
		pod_cells(s, &sj.pl.pl, &sb);
		ROW("cells", "%s", sb.buf);
		ROW("engine id", "%d", sj.pl.pl.id);
	} else
		ROW("placement", "none (holds no cells)");
	if (sj.blob_len > 0)
		ROW("emulator state", "%zu bytes", sj.blob_len);
#undef ROW
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	if (OUT_IS_TEXT(ctx->out.format) && l.n > 0) {
		strbuf_addf(ctx->o, "\nlast events (history %s for all):\n", jb->name);
		rc = ev_write(ctx, &l, "job", true, cause);
	}
out:
	ev_list_reset(&l);
	free(l.v);
	free(l.names);
	store_job_release(&sj);
	strbuf_release(&sb);
	sctx_release(&sc);
	return rc;
}

/* ---- jobs --run ---- */

struct jobs_arg {
	struct sctx		*sc;
	struct table		*t;
	int			 vc;
	struct store_job	*v;
	size_t			 n, cap;
};


/* A job's priority of its own, as a placement gives it (-1 opportunistic). */
static int
own_priority(const struct job *jb)
{
	return jb->klass == JOB_OPPORTUNISTIC ? -1 : jb->priority;
}

static int
jobs_row(void *arg, const struct store_job *sj)
{
	struct jobs_arg *ja = arg;
	const struct spec *s = ja->sc->spec;
	const struct job *jb = &sj->job;
	struct strbuf cells = STRBUF_INIT;
	struct store_job *c;

	if (ja->vc >= 0 && jb->vc != ja->vc)
		return 0;
	XGROW(ja->v, ja->cap, ja->n + 1);
	c = &ja->v[ja->n];
	store_job_init(c);
	c->job = *jb;
	c->placed = sj->placed;
	if (sj->placed) {
		c->pl.pl = sj->pl.pl;
		c->pl.pl.name = NULL;
		c->pl.pl.pod_first = NULL;
		c->pl.pl.leaves = NULL;
		c->pl.pl.vleaves = NULL;
		c->pl.nodes = xstrdup(sj->pl.nodes ? sj->pl.nodes : "");
		c->pl.gpus = xstrdup(sj->pl.gpus ? sj->pl.gpus : "");
		pod_cells(s, &sj->pl.pl, &cells);
	}
	table_row(ja->t);
	table_row_tag(ja->t, (long)ja->n);
	table_cell(ja->t, "%s", jb->name);
	table_cell_int(ja->t, jb->id);
	table_cell(ja->t, "%s", vc_name(ja->sc, jb->vc));
	table_cell_role(ja->t, job_holds_cells(jb) ? ROLE_BUSY : jb->state ==
	    JOB_FAILED || jb->state == JOB_PREEMPTED ? ROLE_WARN : ROLE_NONE, "%s",
	    job_state_code(jb->state));
	table_cell_role(ja->t, strcmp(class_of(sj), "guaranteed") != 0 ? ROLE_WARN :
	    ROLE_NONE, "%s", class_of(sj));
	if (sj->placed) {
		table_cell_int(ja->t, sj->pl.pl.priority);
		table_cell_int(ja->t, sj->pl.pl.orig_priority);
	} else {
		/* without cells, the job's own (schema 8: kept in its row) */
		table_cell_int(ja->t, own_priority(jb));
		table_cell(ja->t, "-");
	}
	table_cell_int(ja->t, jb->gpus);
	table_cell_int(ja->t, job_pods(jb));
	table_cell(ja->t, "%s", sj->placed ? chain_of(s, sj->pl.pl.chain) : "-");
	table_cell(ja->t, "%s", sj->placed && sj->pl.nodes[0] ? sj->pl.nodes : "-");
	table_cell(ja->t, "%s", sj->placed ? cells.buf : "-");
	table_cell(ja->t, "%s", sj->placed ? (sj->pl.pl.lazy ? "yes" : "no") : "-");
	table_cell(ja->t, "%s", jb->state == JOB_PENDING ?
	    job_reason_name(jb->reason) : "-");
	cmd_job_outcome_cells(ja->t, jb, open_now(&ja->sc->run));
	strbuf_release(&cells);
	ja->n++;
	return 0;
}

/* A time or duration in whole seconds (to the ms), or '-' when v < 0. */
static void
cell_secs(struct table *t, double v)
{
	if (v < 0 || !isfinite(v))
		table_cell(t, "-");
	else if (v == floor(v) && v < 1e15)
		table_cell_int(t, (long long)v);
	else
		table_cell(t, "%.3f", v);
}

void
cmd_job_outcome_cells(struct table *t, const struct job *j, double now)
{
	int i;

	if (j == NULL) {
		for (i = 0; i < 8; i++)
			table_cell(t, "-");
		return;
	}
	cell_secs(t, j->submit);
	cell_secs(t, j->first_start);
	cell_secs(t, j->end);
	cell_secs(t, j->end >= 0 ? j->end - j->submit : -1);
	cell_secs(t, j->first_start >= 0 ? j->first_start - j->submit : -1);
	cell_secs(t, job_queued_at(j, now));
	table_cell_int(t, j->preemptions);
	table_cell(t, "%.3f", j->attained / 3600);
}

static void
jobs_json_stored(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct jobs_arg *ja = arg;
	const struct store_job *sj = &ja->v[tag];
	const struct job *jb = &sj->job;

	(void)ctx;
	json_object_begin(j);
	json_kv_string(j, "job", jb->name);
	json_kv_int(j, "id", jb->id);
	json_kv_int(j, "run", ja->sc->run.id);
	json_kv_string(j, "vc", vc_name(ja->sc, jb->vc));
	if (sj->placed) {
		json_kv_int(j, "priority", sj->pl.pl.priority);
		json_kv_int(j, "orig_priority", sj->pl.pl.orig_priority);
		json_kv_bool(j, "downgraded", sj->pl.pl.downgraded);
		json_kv_bool(j, "lazy", sj->pl.pl.lazy);
	} else {
		json_kv_int(j, "priority", own_priority(jb));
		json_kv_null(j, "orig_priority");
		json_kv_bool(j, "downgraded", false);
		json_kv_null(j, "lazy");
	}
	json_kv_bool(j, "opportunistic", jb->opportunistic ||
	    jb->klass == JOB_OPPORTUNISTIC);
	json_kv_string(j, "state", job_state_name(jb->state));
	json_kv_string(j, "state_code", job_state_code(jb->state));
	json_kv_string(j, "class", class_of(sj));
	json_kv_string(j, "reason", jb->state == JOB_PENDING ?
	    job_reason_name(jb->reason) : NULL);
	json_kv_string(j, "chain", sj->placed ? chain_of(ja->sc->spec,
	    sj->pl.pl.chain) : NULL);
	json_kv_int(j, "gpus", jb->gpus);
	json_kv_string(j, "nodes", sj->placed ? sj->pl.nodes : NULL);
	json_kv_string(j, "gpu_addresses", sj->placed ? sj->pl.gpus : NULL);
	json_kv_double(j, "submit", jb->submit);
	json_kv_double(j, "first_start", jb->first_start);
	json_kv_double(j, "end", jb->end);
	json_kv_double(j, "queued", job_queued_at(jb, open_now(&ja->sc->run)));
	if (jb->end >= 0)
		json_kv_double(j, "jct", jb->end - jb->submit);
	else
		json_kv_null(j, "jct");
	if (jb->first_start >= 0)
		json_kv_double(j, "queue_delay", jb->first_start - jb->submit);
	else
		json_kv_null(j, "queue_delay");
	json_kv_int(j, "preemptions", jb->preemptions);
	json_kv_double(j, "gpu_hours", jb->attained / 3600);
	json_object_end(j);
}

int
cmd_jobs_stored(struct cmd_ctx *ctx, const char *run, const char *vc, char **cause)
{
	struct jobs_arg ja;
	struct sctx sc;
	struct json j;
	size_t i;
	int rc;

	sctx_init(&sc, ctx);
	memset(&ja, 0, sizeof ja);
	ja.sc = &sc;
	ja.vc = -1;
	ja.t = table_create();
	table_columns(ja.t, ctx->entry->columns);
	if ((rc = open_read(&sc, true, cause)) < 0)
		goto out;
	if (rc == 0) {
		if ((rc = resolve_run(&sc, run, NULL, cause)) != 0)
			goto out;
		run_spec(&sc);
		if (vc != NULL && (ja.vc = vc_find(&sc, vc, cause)) < 0) {
			rc = -1;
			goto out;
		}
		if ((rc = store_job_load(sc.st, sc.run.id, jobs_row, &ja, cause)) != 0) {
			rc = store_status(ctx, rc);
			goto out;
		}
	}
	if ((rc = cmd_list_apply(ctx, ja.t, cause)) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "jobs");
		if (sc.run.id != 0)
			json_kv_int(&j, "run", sc.run.id);
		else
			json_kv_null(&j, "run");
		cmd_list_json(ctx, &j, "jobs", ja.t, jobs_json_stored, &ja);
		cmd_json_end(ctx, &j);
	} else
		table_render(ja.t, &ctx->out, ctx->o);
out:
	for (i = 0; i < ja.n; i++)
		store_job_release(&ja.v[i]);
	free(ja.v);
	table_free(ja.t);
	sctx_release(&sc);
	return rc;
}

/* ---- db check, db vacuum ---- */

static void
check_line(void *arg, const char *problem)
{
	struct strvec *v = arg;

	strvec_push(v, problem);
}

static int
db_check_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct strvec probs = STRVEC_INIT;
	struct sctx sc;
	struct json j;
	size_t i;
	int rc, n = 0;

	(void)a;
	sctx_init(&sc, ctx);
	if ((rc = open_read(&sc, false, cause)) != 0)
		goto out;
	if ((rc = store_check(sc.st, check_line, &probs, &n, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "db-check");
		json_kv_string(&j, "db", store_path(sc.st));
		json_kv_bool(&j, "ok", n == 0);
		json_kv_int(&j, "count", n);
		json_key(&j, "problems");
		json_array_begin(&j);
		for (i = 0; i < probs.n; i++)
			json_string(&j, probs.v[i]);
		json_array_end(&j);
		cmd_json_end(ctx, &j);
	} else {
		for (i = 0; i < probs.n; i++)
			strbuf_addf(ctx->o, "%s\n", probs.v[i]);
		if (n == 0)
			strbuf_addf(ctx->o, "state store '%s': no problems (integrity, "
			    "foreign keys, jobs, placements, events)\n", store_path(sc.st));
	}
	if (n > 0) {
		*cause = xasprintf("state store '%s' has %d problem%s", store_path(sc.st),
		    n, n == 1 ? "" : "s");
		ctx->status = CMD_EXIT_FAIL;
		rc = -1;
	}
out:
	strvec_release(&probs);
	sctx_release(&sc);
	return rc;
}

/* Open for writing a store that must exist already. */
static int
open_existing_write(struct sctx *sc, char **cause)
{
	struct session *s = sc->ctx->sess;
	char *path;
	int rc;

	if (s->store == NULL) {
		if ((path = session_db_path(s, cause)) == NULL)
			return store_status(sc->ctx, -1);
		if (!store_exists(path)) {
			*cause = xasprintf("no state store at '%s' (nothing recorded yet)",
			    path);
			free(path);
			return store_status(sc->ctx, STORE_NOTFOUND);
		}
		free(path);
	}
	if ((rc = session_store(s, true, &sc->st, cause)) != 0)
		return store_status(sc->ctx, rc);
	return 0;
}

static int
db_vacuum_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct sctx sc;
	struct json j;
	long long before, after;
	int rc;

	(void)a;
	sctx_init(&sc, ctx);
	if ((rc = open_existing_write(&sc, cause)) != 0)
		goto out;
	if ((rc = store_vacuum(sc.st, &before, &after, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "db-vacuum");
		json_kv_string(&j, "db", store_path(sc.st));
		json_kv_int(&j, "bytes_before", before);
		json_kv_int(&j, "bytes_after", after);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "vacuumed '%s': %lld bytes, now %lld\n",
		    store_path(sc.st), before, after);
out:
	sctx_release(&sc);
	return rc;
}

/* ---- export, import ---- */

static void
counts_json(struct json *j, const struct store_counts *n)
{
	json_kv_int(j, "specs", n->specs);
	json_kv_int(j, "runs", n->runs);
	json_kv_int(j, "jobs", n->jobs);
	json_kv_int(j, "placements", n->placements);
	json_kv_int(j, "events", n->events);
	json_kv_int(j, "series", n->series);
	json_kv_int(j, "health", n->health);
	json_kv_int(j, "audit", n->audit);
}

static int
write_file(const char *path, const struct strbuf *sb, char **cause)
{
	size_t off = 0;
	ssize_t w;
	int fd;

	/* The dump holds what the store does: as private as the store. */
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) < 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	while (off < sb->len) {
		if ((w = write(fd, sb->buf + off, sb->len - off)) < 0) {
			if (errno == EINTR)
				continue;
			*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		off += (size_t)w;
	}
	if (close(fd) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
export_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *file = args_value(a, 0);
	struct strbuf dump = STRBUF_INIT;
	struct store_counts n;
	struct sctx sc;
	struct json j;
	int rc;

	sctx_init(&sc, ctx);
	if ((rc = open_read(&sc, false, cause)) != 0)
		goto out;
	if ((rc = store_export(sc.st, &dump, &n, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	if (strcmp(file, "-") == 0) {
		strbuf_add(ctx->o, dump.buf, dump.len);
		cmd_note(ctx, "exported %lld runs, %lld jobs, %lld events", n.runs,
		    n.jobs, n.events);
		goto out;
	}
	if ((rc = write_file(file, &dump, cause)) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "export");
		json_kv_string(&j, "file", file);
		json_kv_string(&j, "db", store_path(sc.st));
		counts_json(&j, &n);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "exported %lld runs, %lld jobs, %lld events from "
		    "'%s' to '%s'\n", n.runs, n.jobs, n.events, store_path(sc.st), file);
out:
	strbuf_release(&dump);
	sctx_release(&sc);
	return rc;
}

static const struct cmd_opt import_opts[] = {
	{ 0, "as-new", NULL, "add the dump's runs under new ids (into a store that is not empty)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
import_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *file = args_value(a, 0);
	struct strbuf text = STRBUF_INIT;
	struct store_counts n;
	struct store *st;
	struct json j;
	char *why = NULL;
	int rc;

	if ((rc = strbuf_read_file(&text, file, 0, cause)) != 0)
		goto out;
	if ((rc = session_store(ctx->sess, true, &st, cause)) != 0) {
		rc = store_status(ctx, rc);
		goto out;
	}
	rc = store_import(st, text.buf, text.len, args_has(a, "as-new"), &n, &why);
	if (rc != 0) {
		*cause = rc == STORE_INVALID ? xasprintf("cannot import '%s': %s",
		    file, why) : why;
		if (rc == STORE_INVALID)
			free(why);
		rc = store_status(ctx, rc);
		goto out;
	}
	/* A restore into an empty store is an exact copy of the dump: its own
	   audit row would make it differ (the dump's audit rows say who did
	   what). Adding runs with --as-new is audited like any change. */
	ctx->unaudited = !args_has(a, "as-new");
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "import");
		json_kv_string(&j, "file", file);
		json_kv_string(&j, "db", store_path(st));
		json_kv_bool(&j, "as_new", args_has(a, "as-new"));
		counts_json(&j, &n);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "imported %lld runs, %lld jobs, %lld events from "
		    "'%s' into '%s'%s\n", n.runs, n.jobs, n.events, file, store_path(st),
		    args_has(a, "as-new") ? " as new runs" : "");
out:
	strbuf_release(&text);
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

const struct cmd_entry cmd_events_entry = {
	.name = "events",
	.opts = events_opts,
	.min = 0, .max = 0,
	.usage = "[--run ID|last] [--since T] [--vc VC] [--job NAME] [--kind KIND] "
	    "[--limit N] [--follow [--for SECONDS] [--until-run-done]]",
	.summary = "show the event log of a run",
	.help =
	    "Show a run's events in order (the newest run unless --run): "
	    "submissions, starts, preemptions, releases, node failures... Each "
	    "has its number in the store (SEQ), the time on the run's clock (a "
	    "UTC date for a session, seconds for a replay), its kind, job, VC, "
	    "the job that took the cells (BY) and a detail; -o wide adds the "
	    "run, the cell and the raw time.\n"
	    "--since T keeps events at or after T: seconds or a duration (90, "
	    "15m, 2h) from the run's start, or a UTC date (2026-11-21T08:00). "
	    "--vc, --job and --kind keep those of one VC, job or kind; --limit N "
	    "the newest N. --job without --run looks in the newest run that has "
	    "the job.\n"
	    "--follow prints the last 10 (or --limit) and then every new event as "
	    "it is written, by this or another cellar process, checking every "
	    "0.2 s until Ctrl-C (status 130), until --for SECONDS have passed, or "
	    "--until-run-done. Without --run or --job it follows every run, new "
	    "ones too. With -o json each batch is one document.",
	.examples = (const char *const []){
		"events",
		"events --kind preempt --limit 20",
		"events --job train1 -o json",
		"events --run last --follow --for 1",
		NULL },
	.columns = events_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = events_exec,
};

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.opts = history_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME [--run ID|last]",
	.summary = "show one job's events",
	.help =
	    "Show every event of job NAME, oldest first, in the newest run that "
	    "has a job of that name (or run ID): submitted, started where, "
	    "preempted by whom, requeued, released, completed. The columns are "
	    "those of events. Finished jobs keep their history.",
	.examples = (const char *const []){
		"history train1",
		"history bert --run last -o json",
		NULL },
	.columns = events_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = history_exec,
};

const struct cmd_entry cmd_job_show_entry = {
	.name = "job show",
	.opts = history_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME [--run ID|last]",
	.summary = "show everything recorded about one job",
	.help =
	    "Show job NAME as the state store has it (the newest run with that "
	    "name, or run ID): its request (VC, gang, GPU type, affinity, "
	    "duration, model, priority and weight), its state as Slurm prints it "
	    "and why it waits, "
	    "its times (submit, first start, last change, end on the run's "
	    "clock) and accounting (time queued and running, GPU-hours of "
	    "service, progress, restarts, preemptions), and while it holds cells "
	    "its placement: chain, priority, nodes, GPU addresses per node and "
	    "the lowest cell of each pod. Then its last 10 events.",
	.examples = (const char *const []){
		"job show train1",
		"job show scavenger --run last -o json",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = job_show_exec,
};

const struct cmd_entry cmd_db_check_entry = {
	.name = "db check",
	.min = 0, .max = 0,
	.usage = "",
	.summary = "check the state store's integrity and invariants",
	.help =
	    "Check the state store: SQLite's integrity check and foreign keys, "
	    "then cellar's own invariants: every job once per run, no GPU held by "
	    "two running jobs of a run, placements only for jobs that hold cells "
	    "(and one for each), events only about jobs of their run, and every "
	    "job's history linked from its newest event to its first, one "
	    "history per job in a replay (one submit, never back in time). Each "
	    "problem is printed on a line (50 of one kind, 200 in all, then a "
	    "count); the exit status is 1 when there is any, 4 when the store "
	    "cannot be read.",
	.examples = (const char *const []){
		"db check",
		"db check -o json",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = db_check_exec,
};

const struct cmd_entry cmd_db_vacuum_entry = {
	.name = "db vacuum",
	.min = 0, .max = 0,
	.usage = "",
	.summary = "compact the state store",
	.help =
	    "Rebuild the state store's file without free pages (SQLite's VACUUM) "
	    "and fold its write-ahead log in; prints the size before and after. "
	    "Waits for other writers, like any write.",
	.examples = (const char *const []){
		"db vacuum",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = db_vacuum_exec,
};

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.min = 1, .max = 1,
	.arg_kind = VALUE_FILE,
	.usage = "FILE",
	.summary = "write the whole state store to a portable JSON file",
	.help =
	    "Write every table of the state store to FILE ('-': standard output) "
	    "as one JSON document (kind cellar-dump, with the store's schema "
	    "version): specs, runs, jobs, placements, node health, events, job "
	    "history heads, time series and the audit log, rows in key order, "
	    "reals with 17 digits so they read back exactly, BLOBs as base64. "
	    "The same store always gives the same file. FILE is created with "
	    "mode 0600.",
	.examples = (const char *const []){
		"export /tmp/cellar-dump.json",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = export_exec,
};

const struct cmd_entry cmd_import_entry = {
	.name = "import",
	.opts = import_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_FILE,
	.usage = "FILE [--as-new]",
	.summary = "load a file written by export",
	.help =
	    "Load FILE, written by export, into the state store (created if "
	    "needed), in one transaction. Into an empty store every id is kept, "
	    "so export, import and export again give the same file. --as-new "
	    "adds the dump's runs under new ids instead (its specs shared with "
	    "equal ones already there), for a store that is not empty. A store "
	    "that is not empty without --as-new, a dump of another schema "
	    "version or a malformed file is refused with nothing written "
	    "(status 1). A restore into an empty store adds no audit row of its "
	    "own, so that the copy is exact; --as-new is audited.",
	.examples = (const char *const []){
		"import /tmp/cellar-dump.json --as-new",
		NULL },
	.flags = CMD_MUTATES,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = import_exec,
};
