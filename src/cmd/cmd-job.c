/*
 * cmd-job.c — the `job ...` commands and `jobs`: `jobs` lists the jobs
 * (those holding cells from the engine, then a live cluster's waiting ones
 * from its console, or with --run/--all a stored run's, finished ones
 * too), `job show` shows everything the store recorded about one, `job
 * log` what a live job's hooks printed, `job migrate` moves a pod of a
 * live job.
 *
 * The JSON shapes written here are a documented interface (cellar(1), "JSON
 * OUTPUT"); scenario tests and scripts read them. Within schema_version 1
 * fields may be added, never renamed or removed.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cmd/stored.h"
#include "core/xmalloc.h"
#include "job/job.h"
#include "job/model-class.h"
#include "live/console.h"

#define SHOW_EVENTS		10	/* job show: the last events */

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

/* The lowest cell holding each pod, comma-separated ("-" without the spec). */
static void
pod_cells(const struct spec *s, int npods, const int *pod_first,
    const int *leaves, struct strbuf *sb)
{
	char path[STORED_PATH_LEN];
	int p, a;

	for (p = 0; p < npods; p++) {
		a = s == NULL ? -1 : spec_cell_lca(s, leaves + pod_first[p],
		    pod_first[p + 1] - pod_first[p]);
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

/* A job's priority of its own, as a placement gives it (-1 opportunistic). */
static int
own_priority(const struct job *jb)
{
	return jb->klass == JOB_OPPORTUNISTIC ? -1 : jb->priority;
}

/* ---- jobs ---- */

/*
 * The engine holds running jobs only: their state is R. The class says how
 * they run; "downgraded" is an opportunistic job that was guaranteed until
 * lazily preempted. The legacy JSON "state" keeps its first meaning.
 */
static const char *
job_class(const struct engine_job_info *info)
{
	if (info->downgraded)
		return "downgraded";
	return info->priority < 0 ? job_class_name(JOB_OPPORTUNISTIC) :
	    job_class_name(JOB_GUARANTEED);
}

static const char *
job_legacy_state(const struct engine_job_info *info)
{
	if (info->downgraded)
		return "downgraded";
	return info->priority < 0 ? "opportunistic" : job_state_name(JOB_RUNNING);
}

static const struct cmd_opt jobs_opts[] = {
	{ 0, "vc", "VC", "only the jobs of this virtual cluster", VALUE_VC },
	{ 'a', "all", NULL, "finished jobs too: this session's run in the state store (as --run)", VALUE_NONE },
	{ 0, "run", "ID", "the jobs of a stored run (an id or 'last'), finished ones too", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct table_colspec jobs_columns[] = {
	{ "JOB", "job", TABLE_NAME, "the job's name" },
	{ "ID", "id", TABLE_NUM, "the job's id in its run (%ID names it: a name is reused, an id never)" },
	{ "VC", "vc", 0, "its virtual cluster" },
	{ "ST", "state", 0, "state code: PD, R, S, CG, CD, F, CA, PR (help states)" },
	{ "CLASS", "class", 0, "guaranteed, opportunistic, or downgraded (lazily preempted)" },
	{ "PRIO", "priority", TABLE_NUM, "priority now (the job's own without cells): 0 to 1000, -1 opportunistic" },
	{ "ORIG", "orig_priority", TABLE_NUM | TABLE_WIDE, "priority as requested" },
	{ "GPUS", "gpus", TABLE_NUM, "GPUs it holds (a pending job: it asks for)" },
	{ "PODS", "pods", TABLE_NUM, "pods" },
	{ "CHAIN", "chain", 0, "the chain its cells are on" },
	{ "NODES", "nodes", TABLE_HOSTS, "its nodes, as a hostlist" },
	{ "CELLS", "cells", TABLE_WIDE, "the lowest cell holding each pod" },
	{ "LAZY", "lazy", TABLE_WIDE, "yes if preemption downgrades it instead of stopping it" },
	{ "REASON", "reason", 0, "why a pending job waits (help states), else -" },
	{ "SUBMIT", "submit", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "when it was submitted (s; a replay's: trace time)" },
	{ "START", "first_start", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "when it first ran (s), - never" },
	{ "END", "end", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "when it ended (s), - not yet" },
	{ "JCT", "jct", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "completion time: end - submit (s), - not ended" },
	{ "QDELAY", "queue_delay", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "queuing delay: first start - submit (s; HiveD's)" },
	{ "QUEUED", "queued", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "all its time pending, requeues included (s)" },
	{ "PREEMPT", "preemptions", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "times preempted" },
	{ "GPU_H", "gpu_hours", TABLE_NUM | TABLE_WIDE | TABLE_CSV, "GPU-hours of service it received" },
	{ NULL, NULL, 0, NULL }
};

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

/*
 * The outcome columns of a job (the TABLE_CSV ones, SUBMIT .. GPU_H), in
 * seconds: j NULL (an engine job the store is not asked for) fills each
 * of them with '-'. now counts an open queued or run period.
 */
static void
outcome_cells(struct table *t, const struct job *j, double now)
{
	const struct table_colspec *c;

	if (j == NULL) {
		for (c = jobs_columns; c->key != NULL; c++)
			if (c->flags & TABLE_CSV)
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

/*
 * The stored id of engine job id (which the engine reuses): the live
 * job holding its cells, else the session's newest stored job of its
 * name (an alloc'd job: a running name is not reused); -1 if unknown.
 */
static int
job_id_of_engine(struct session *sess, const struct console_snapshot *snap,
    int id, const char *name)
{
	struct store_job sj;
	char *cause = NULL;
	int i, jid = -1;
	int64_t run = sess->run != 0 ? sess->run : sess->resume_run;

	for (i = 0; i < snap->njobs; i++)
		if (snap->jobs[i].job.engine_id == id &&
		    job_holds_cells(&snap->jobs[i].job))
			return snap->jobs[i].job.id;
	if (sess->store == NULL || run == 0)
		return -1;
	if (store_job_find_bare(sess->store, run, name, &sj, &cause) == 0) {
		jid = sj.job.id;
		store_job_release(&sj);
	}
	free(cause);
	return jid;
}

static void
jobs_row_engine(struct table *t, const struct spec *s, int id, int jid,
    const struct engine_job_info *info)
{
	struct strbuf cells = STRBUF_INIT;
	char *h = session_leaf_nodes(s, info->leaves, info->nleaves);

	pod_cells(s, info->npods, info->pod_first, info->leaves, &cells);
	table_row(t);
	table_row_tag(t, id);
	table_cell(t, "%s", info->name);
	if (jid >= 0)
		table_cell_int(t, jid);
	else
		table_cell(t, "-");
	table_cell(t, "%s", s->vcs[info->vc].name);
	table_cell_role(t, ROLE_BUSY, "%s", job_state_code(JOB_RUNNING));
	table_cell_role(t, info->priority < 0 ? ROLE_WARN : ROLE_NONE, "%s",
	    job_class(info));
	table_cell_int(t, info->priority);
	table_cell_int(t, info->orig_priority);
	table_cell_int(t, info->nleaves);
	table_cell_int(t, info->npods);
	table_cell(t, "%s", chain_of(s, info->chain));
	table_cell(t, "%s", h);
	table_cell(t, "%s", cells.buf);
	table_cell(t, "%s", info->lazy ? "yes" : "no");
	table_cell(t, "-");
	outcome_cells(t, NULL, 0);
	free(h);
	strbuf_release(&cells);
}

/*
 * A live job that holds no cells (queued, suspended, giving them back),
 * from the server's console: tagged -1 - its index in the snapshot, so
 * the JSON writer tells it from an engine job.
 */
static bool
live_waits(const struct console_job *cj)
{
	if (job_is_final(&cj->job))
		return false;	/* cancelled or failed, its stop hooks running */
	return cj->phase == CONSOLE_QUEUED || cj->phase == CONSOLE_STOPPING ||
	    cj->phase == CONSOLE_SUSPENDING || cj->phase == CONSOLE_SUSPENDED;
}

static void
jobs_row_live(struct table *t, const struct spec *s, int i,
    const struct console_job *cj)
{
	table_row(t);
	table_row_tag(t, -1 - (long)i);
	table_cell(t, "%s", cj->job.name);
	table_cell_int(t, cj->job.id);
	table_cell(t, "%s", s->vcs[cj->job.vc].name);
	table_cell(t, "%s", job_state_code(cj->job.state));
	table_cell_role(t, cj->job.klass == JOB_OPPORTUNISTIC ? ROLE_WARN :
	    ROLE_NONE, "%s", job_class_name(cj->job.klass));
	table_cell_int(t, own_priority(&cj->job));
	table_cell_int(t, own_priority(&cj->job));
	table_cell_int(t, cj->job.gpus);
	table_cell_int(t, cj->job.members[0].pods);
	table_cell(t, "-");
	table_cell(t, "%s", cj->nodes[0] ? cj->nodes : "-");
	table_cell(t, "-");
	table_cell(t, "no");
	table_cell(t, "%s", cj->phase == CONSOLE_QUEUED ?
	    job_reason_name(cj->job.reason) : "-");
	outcome_cells(t, &cj->job, session_now());
}

static void
jobs_json_live(struct cmd_ctx *ctx, struct json *j, const struct console_job *cj)
{
	json_object_begin(j);
	json_kv_string(j, "job", cj->job.name);
	json_kv_int(j, "id", cj->job.id);
	json_kv_null(j, "engine_id");
	json_kv_string(j, "vc", ctx->sess->spec->vcs[cj->job.vc].name);
	json_kv_int(j, "priority", own_priority(&cj->job));
	json_kv_int(j, "orig_priority", own_priority(&cj->job));
	json_kv_bool(j, "opportunistic", cj->job.klass == JOB_OPPORTUNISTIC);
	json_kv_bool(j, "downgraded", false);
	json_kv_bool(j, "lazy", false);
	json_kv_string(j, "state", job_state_name(cj->job.state));
	json_kv_string(j, "state_code", job_state_code(cj->job.state));
	json_kv_string(j, "class", job_class_name(cj->job.klass));
	if (cj->phase == CONSOLE_QUEUED)
		json_kv_string(j, "reason", job_reason_name(cj->job.reason));
	else
		json_kv_null(j, "reason");
	json_kv_null(j, "chain");
	json_kv_int(j, "gpus", cj->job.gpus);
	json_key(j, "pods");
	json_array_begin(j);
	json_array_end(j);
	json_object_end(j);
}

static void
jobs_json_one(struct cmd_ctx *ctx, struct json *j, long id, void *arg)
{
	const struct console_snapshot *snap = arg;
	const struct spec *s = ctx->sess->spec;
	struct engine_job_info info;
	int jid;

	if (id < 0) {
		jobs_json_live(ctx, j, &snap->jobs[-1 - id]);
		return;
	}
	if (!engine_job(ctx->sess->engine, (int)id, &info))
		fatal("jobs: job %ld vanished", id);
	json_object_begin(j);
	json_kv_string(j, "job", info.name);
	jid = job_id_of_engine(ctx->sess, snap, (int)id, info.name);
	if (jid >= 0)
		json_kv_int(j, "id", jid);
	else
		json_kv_null(j, "id");
	json_kv_int(j, "engine_id", id);
	json_kv_string(j, "vc", s->vcs[info.vc].name);
	json_kv_int(j, "priority", info.priority);
	json_kv_int(j, "orig_priority", info.orig_priority);
	json_kv_bool(j, "opportunistic", info.priority < 0);
	json_kv_bool(j, "downgraded", info.downgraded);
	json_kv_bool(j, "lazy", info.lazy);
	json_kv_string(j, "state", job_legacy_state(&info));
	json_kv_string(j, "state_code", job_state_code(JOB_RUNNING));
	json_kv_string(j, "class", job_class(&info));
	json_kv_null(j, "reason");
	json_kv_string(j, "chain", chain_of(s, info.chain));
	json_kv_int(j, "gpus", info.nleaves);
	cmd_pods_json(j, s, info.npods, info.pod_first, info.leaves);
	json_object_end(j);
}

/* ---- jobs --run, --all: a stored run's jobs ---- */

struct jobs_arg {
	struct sctx		*sc;
	struct table		*t;
	int			 vc;
	struct store_job	*v;
	size_t			 n, cap;
};

static int
jobs_row_stored(void *arg, const struct store_job *sj)
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
		pod_cells(s, sj->pl.pl.npods, sj->pl.pl.pod_first, sj->pl.pl.leaves,
		    &cells);
	}
	table_row(ja->t);
	table_row_tag(ja->t, (long)ja->n);
	table_cell(ja->t, "%s", jb->name);
	table_cell_int(ja->t, jb->id);
	table_cell(ja->t, "%s", sctx_vc_name(ja->sc, jb->vc));
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
	outcome_cells(ja->t, jb, stored_open_now(&ja->sc->run));
	strbuf_release(&cells);
	ja->n++;
	return 0;
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
	json_kv_string(j, "vc", sctx_vc_name(ja->sc, jb->vc));
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
	json_kv_double(j, "queued", job_queued_at(jb, stored_open_now(&ja->sc->run)));
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

static int
jobs_stored(struct cmd_ctx *ctx, const char *run, const char *vc, char **cause)
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
	if ((rc = sctx_open(&sc, true, cause)) < 0)
		goto out;
	if (rc == 0) {
		if ((rc = sctx_resolve_run(&sc, run, NULL, cause)) != 0)
			goto out;
		sctx_spec(&sc);
		if (vc != NULL && (ja.vc = sctx_vc_find(&sc, vc, cause)) < 0) {
			rc = -1;
			goto out;
		}
		if ((rc = store_job_load(sc.st, sc.run.id, jobs_row_stored, &ja,
		    cause)) != 0) {
			rc = stored_status(ctx, rc);
			goto out;
		}
	}
	if ((rc = cmd_list_apply(ctx, ja.t, cause)) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "jobs");
		stored_json_run(&j, &sc);
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

static int
jobs_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct engine *e = ctx->sess->engine;
	const struct spec *s = ctx->sess->spec;
	const char *vcname = args_get(a, "vc");
	struct console_snapshot snap = { NULL, 0, 0 };
	struct engine_job_info info;
	struct table *t;
	int id, lim = engine_job_limit(e), vc = -1, n, k, *order = NULL, *pos;
	int64_t run = ctx->sess->run ? ctx->sess->run : ctx->sess->resume_run;
	struct json j;

	if (args_has(a, "run") && args_has(a, "all")) {
		*cause = xstrdup("give '--run' or '--all', not both");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "run"))
		return jobs_stored(ctx, args_get(a, "run"), vcname, cause);
	if (args_has(a, "all") && run != 0) {
		char *idtext = xasprintf("%lld", (long long)run);
		int rc = jobs_stored(ctx, idtext, vcname, cause);

		free(idtext);
		return rc;
	}
	if (vcname != NULL && (vc = spec_find_vc(s, vcname)) < 0) {
		*cause = spec_unknown_vc(s, vcname);
		return -1;
	}
	t = table_create();
	table_columns(t, jobs_columns);
	if (ctx->sess->console != NULL)
		console_snapshot(ctx->sess->console, &snap);
	for (id = 0; id < lim; id++)
		if (engine_job(e, id, &info) && (vc < 0 || info.vc == vc))
			jobs_row_engine(t, s, id, job_id_of_engine(ctx->sess, &snap,
			    id, info.name), &info);
	/* a live cluster's server: then the jobs waiting for cells, in the
	   order the queue serves them (pending with running, as squeue) */
	if (ctx->sess->console != NULL) {
		order = xcalloc((size_t)snap.njobs + 1, sizeof *order);
		pos = xcalloc((size_t)snap.njobs + 1, sizeof *pos);
		n = console_queue(ctx->sess->console, order, pos);
		for (k = 0; k < n; k++)
			if (live_waits(&snap.jobs[order[k]]) &&
			    (vc < 0 || snap.jobs[order[k]].job.vc == vc))
				jobs_row_live(t, s, order[k], &snap.jobs[order[k]]);
		free(pos);
	}
	if (cmd_list_apply(ctx, t, cause) != 0) {
		table_free(t);
		free(order);
		console_snapshot_release(&snap);
		return -1;
	}
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "jobs");
		cmd_list_json(ctx, &j, "jobs", t, jobs_json_one, &snap);
		cmd_json_end(ctx, &j);
	} else
		table_render(t, &ctx->out, ctx->o);
	table_free(t);
	free(order);
	console_snapshot_release(&snap);
	return 0;
}

/* ---- job show ---- */

static const struct cmd_opt job_show_opts[] = {
	{ 0, "run", "ID", "the run: an id or 'last' (default: the newest with the job)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

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
	ev_list_init(&l, &sc);
	if ((rc = sctx_open(&sc, false, cause)) != 0 ||
	    (rc = sctx_resolve_run(&sc, args_get(a, "run"), name, cause)) != 0)
		goto out;
	if ((rc = store_job_find(sc.st, sc.run.id, name, &sj, cause)) != 0) {
		rc = stored_status(ctx, rc);
		goto out;
	}
	jb = &sj.job;
	s = sctx_spec(&sc);
	store_event_filter_init(&f);
	f.run = sc.run.id;
	f.job = jb->id;
	f.limit = SHOW_EVENTS;
	if ((rc = store_event_query(sc.st, &f, ev_list_add, &l, cause)) != 0) {
		rc = stored_status(ctx, rc);
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
		json_kv_string(&j, "vc", sctx_vc_name(&sc, jb->vc));
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
		json_kv_double(&j, "queued", job_queued_at(jb, stored_open_now(&sc.run)));
		json_kv_double(&j, "attained", jb->attained);
		json_kv_double(&j, "run_time", job_run_time_at(jb, stored_open_now(&sc.run)));
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
			pod_cells(s, sj.pl.pl.npods, sj.pl.pl.pod_first, sj.pl.pl.leaves,
		    &sb);
			json_kv_string(&j, "cells", sb.buf);
			json_object_end(&j);
		} else
			json_null(&j);
		cmd_list_json(ctx, &j, "events", l.t, ev_list_json_one, &l);
		cmd_json_end(ctx, &j);
		goto out;
	}
	t = table_create();
	table_column(t, "FIELD", "field", TABLE_NAME);
	table_column(t, "VALUE", "value", 0);
#define ROW(k, ...) do { table_row(t); table_cell(t, "%s", k); table_cell(t, __VA_ARGS__); } while (0)
	ROW("job", "%s (id %d in run %lld)", jb->name, jb->id, (long long)sc.run.id);
	ROW("user", "%s", jb->user[0] ? jb->user : "-");
	ROW("vc", "%s", sctx_vc_name(&sc, jb->vc));
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
	ROW("submit", "%s", stored_fmt_t(&sc.run, jb->submit, b1, sizeof b1));
	ROW("first start", "%s", stored_fmt_t(&sc.run, jb->first_start, b1, sizeof b1));
	ROW("since", "%s", stored_fmt_t(&sc.run, jb->state_since, b1, sizeof b1));
	ROW("end", "%s", stored_fmt_t(&sc.run, jb->end, b2, sizeof b2));
	ROW("queued", "%.0f s", job_queued_at(jb, stored_open_now(&sc.run)));
	ROW("run time", "%.0f s", job_run_time_at(jb, stored_open_now(&sc.run)));
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
		pod_cells(s, sj.pl.pl.npods, sj.pl.pl.pod_first, sj.pl.pl.leaves,
		    &sb);
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
		rc = ev_list_write(ctx, &l, "job", true, cause);
	}
out:
	ev_list_release(&l);
	store_job_release(&sj);
	strbuf_release(&sb);
	sctx_release(&sc);
	return rc;
}

/* ---- job log ---- */

static int
log_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct console *c;
	char *stored = NULL;
	const char *text;
	size_t len;
	int i;

	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	/* a job the console no longer holds (finished before a restart):
	   its log from the store */
	if ((i = console_find(c, args_value(a, 0))) < 0 &&
	    console_log_stored(c, args_value(a, 0), &stored, &len, cause) != 0)
		return -1;
	text = i >= 0 ? console_log(c, i, &len) : stored;
	if (ctx->out.format == OUT_JSON) {
		struct json j;

		cmd_json_begin(ctx, &j, "job-log");
		json_key(&j, "name");
		json_string(&j, i >= 0 ? console_job(c, i)->name : args_value(a, 0));
		if (i >= 0)
			json_kv_int(&j, "id", console_job(c, i)->id);
		json_key(&j, "log");
		json_string_len(&j, text, len);	/* the exact bytes */
		cmd_json_end(ctx, &j);
	} else
		cmd_add_text(ctx->o, text, len);	/* a hook's bytes: no terminal escapes */
	free(stored);
	return 0;
}

/* ---- job migrate ---- */

static const struct cmd_opt migrate_opts[] = {
	{ 0, "node", "NODE", "the node to move to, its own included (default: "
	  "the first other node with room, else other GPUs of its own)", VALUE_NODE },
	{ 0, "pod", "P", "the pod to move (default 0)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
migrate_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct console *c;
	int status, pod = 0;

	if (args_has(a, "pod") && ((pod = (int)args_strtonum(a, "pod", 0, 1023,
	    cause)), *cause != NULL))
		return cmd_usage_error(ctx);
	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	if (console_migrate(c, args_value(a, 0), args_get(a, "node"), pod, &status,
	    cause) != 0) {
		ctx->status = status;
		return -1;
	}
	if (console_tick(c, cause) != 0) {
		ctx->status = CMD_EXIT_STORE;
		return -1;
	}
	if (ctx->out.format == OUT_JSON) {
		struct json j;

		cmd_json_begin(ctx, &j, "job-migrate");
		json_key(&j, "name");
		json_string(&j, args_value(a, 0));
		json_key(&j, "pod");
		json_int(&j, pod);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "migrating %s\n", args_value(a, 0));
	return 0;
}

/* ---- the entries ---- */

const struct cmd_entry cmd_jobs_entry = {
	.name = "jobs",
	.alias = "ps",
	.opts = jobs_opts,
	.min = 0, .max = 0,
	.usage = "[--vc VC] [--all | --run ID|last]",
	.summary = "list jobs",
	.help =
	    "List the jobs, one per line: name, VC, state code (ST, as Slurm "
	    "prints it: R running, PD pending, ...; see 'help states'), class "
	    "(guaranteed, opportunistic, or downgraded: a lazy job preempted to "
	    "opportunistic), priority (-1 for opportunistic), GPUs, pods, chain, "
	    "nodes (as a hostlist) and, for a pending job, the reason it waits. "
	    "-o wide adds the job id, the requested priority, the lowest cell of "
	    "each pod and whether the job is lazy.\n"
	    "Pending and running jobs are listed together, as squeue does: "
	    "first the jobs that hold cells, then, on a live cluster (cellar "
	    "serve), the submitted jobs that wait for cells (PD, with the "
	    "reason), are suspended (S) or are giving their cells back, in the "
	    "order the queue serves them; these have no job id, chain or cells "
	    "(-), and GPUS is what they ask for. Finished jobs are left out.\n"
	    "--all lists this session's run in the state store instead, finished "
	    "jobs too; --run lists the jobs of any stored run (see runs; 'last' "
	    "is the newest). Both show state codes and pending reasons; "
	    "priority, chain, nodes, cells and lazy are those of jobs that hold "
	    "cells, else -.",
	.examples = (const char *const []){
		"jobs",
		"jobs --filter state=PD",
		"jobs --all",
		"jobs --vc prod -o json",
		"jobs --sort -gpus,job",
		"jobs --filter nodes=r1n[00-03] -o wide",
		"jobs --run last --filter state=CA",
		NULL },
	.columns = jobs_columns,
	.flags = CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_ALL,
	.exec = jobs_exec,
};

const struct cmd_entry cmd_job_show_entry = {
	.name = "job show",
	.opts = job_show_opts,
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

const struct cmd_entry cmd_job_log_entry = {
	.name = "job log",
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME",
	.summary = "show what a live job's hooks printed",
	.help =
	    "The captured standard output and error of job NAME's hooks (start, "
	    "stop, status messages of failures) and cellar's notes on it, the "
	    "newest 64 KiB, kept in the state store: it outlives a restart of "
	    "cellar and the job. The job's own output is where its hook set "
	    "puts it, on the pod's node; the shipped start hooks name it in a "
	    "line 'output of pod P: ...' (a file, or the kubectl logs command).",
	.examples = (const char *const []){ "job log train1", NULL },
	.flags = CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = log_exec,
};

const struct cmd_entry cmd_job_migrate_entry = {
	.name = "job migrate",
	.opts = migrate_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME [--node NODE] [--pod P]",
	.summary = "move a pod of a running live job to other GPUs",
	.help =
	    "Move pod P (default 0) of running job NAME to free healthy GPUs "
	    "of NODE (its own node: other GPUs there; default: the first other "
	    "node in the spec's order with room, else other GPUs of its own). "
	    "The engine moves the job in one step (its VC, quota and sharing "
	    "safety checked; nothing changes when refused) and the decision "
	    "is committed to the state store (a migrate event); then the "
	    "spec's stop hook runs for the pod on its old node with "
	    "CELLAR_TO_NODE and CELLAR_TO_GPUS, and once it succeeded the "
	    "migrate hook on the new one with the new GPUs and "
	    "CELLAR_FROM_NODE and CELLAR_FROM_GPUS (phase migrating). A failing "
	    "hook stops the job wherever the pod may be and requeues it. "
	    "Needs a migrate hook in the spec's backend; only guaranteed jobs "
	    "move.",
	.examples = (const char *const []){ "job migrate train2 --node box", NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = migrate_exec,
};
