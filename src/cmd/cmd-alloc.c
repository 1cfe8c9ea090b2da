/*
 * cmd-alloc.c — the engine's job commands: `alloc` places and starts a
 * job, `place` is its dry run, `release` ends jobs (`jobs` lists them, in
 * cmd-job.c). They turn options into a struct engine_req, ask the (pure)
 * engine for a plan and print the plan: pods with their nodes and GPU
 * addresses, and the victims.
 *
 * The JSON shapes written here are a documented interface (cellar(1), "JSON
 * OUTPUT"); scenario tests and scripts read them. Within schema_version 1
 * fields may be added, never renamed or removed.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cmd/cmd.h"
#include "core/hostlist.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "job/job.h"
#include "store/store.h"

#define ALLOC_NAME_MAX	63	/* engine_victim.name holds 64 bytes */
#define POD_MAX		4096
#define POD_GPUS_MAX	65536
#define PATH_MAX_LEN	1024

static const char *
chain_name(const struct spec *s, int chain)
{
	return chain >= 0 && chain < s->nchains ?
	    s->types[s->chains[chain].top_type].name : "-";
}

static const char *
victim_kind_name(enum engine_victim_kind k)
{
	return k == ENGINE_VICTIM_LAZY ? "lazy" : "preempt";
}

/* Job names are printed unquoted in tables and hostlists: keep them plain. */
static int
check_job_name(const char *name, char **cause)
{
	size_t len = strlen(name), ok;

	ok = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._:@+-");
	if (len == 0 || len > ALLOC_NAME_MAX || ok != len || name[0] == '-') {
		*cause = xasprintf("invalid job name '%s' (1 to %d of A-Z a-z 0-9 . _ "
		    ": @ + -, not starting with '-')", name, ALLOC_NAME_MAX);
		return -1;
	}
	return 0;
}

/* pods: [{node, nodes, cell, gpus, cells}] — alloc, place, and jobs. */
void
cmd_pods_json(struct json *j, const struct spec *s, int npods,
    const int *pod_first, const int *leaves)
{
	char path[PATH_MAX_LEN];
	int p, i, lca;

	json_key(j, "pods");
	json_array_begin(j);
	for (p = 0; p < npods; p++) {
		const int *lv = leaves + pod_first[p];
		int n = pod_first[p + 1] - pod_first[p];
		struct strvec nodes = STRVEC_INIT;
		char *h = session_leaf_nodes(s, lv, n);

		json_object_begin(j);
		json_kv_string(j, "node", h);
		free(h);
		json_key(j, "nodes");
		json_array_begin(j);
		session_leaf_node_list(s, lv, n, &nodes);
		for (i = 0; i < (int)nodes.n; i++)
			json_string(j, nodes.v[i]);
		strvec_release(&nodes);
		json_array_end(j);
		lca = spec_cell_lca(s, lv, n);
		json_kv_string(j, "cell", lca >= 0 ?
		    spec_cell_path(s, lca, path, sizeof path) : NULL);
		json_key(j, "gpus");
		json_array_begin(j);
		for (i = 0; i < n; i++)
			json_string(j, s->cells[lv[i]].addr);
		json_array_end(j);
		json_key(j, "cells");
		json_array_begin(j);
		for (i = 0; i < n; i++)
			json_string(j, spec_cell_path(s, lv[i], path, sizeof path));
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
}

/* One row per pod and node: POD NODE GPUS ADDRESSES CELL. */
static void
pods_table(struct cmd_ctx *ctx, const struct spec *s, int npods,
    const int *pod_first, const int *leaves)
{
	struct table *t = table_create();
	char path[PATH_MAX_LEN];
	int p, i, lca;
	size_t k;

	table_column(t, "POD", "pod", TABLE_RIGHT);
	table_column(t, "NODE", "node", TABLE_NAME);
	table_column(t, "GPUS", "gpus", TABLE_RIGHT);
	table_column(t, "ADDRESSES", "addresses", 0);
	table_column(t, "CELL", "cell", 0);
	for (p = 0; p < npods; p++) {
		const int *lv = leaves + pod_first[p];
		int n = pod_first[p + 1] - pod_first[p];
		struct strvec nodes = STRVEC_INIT;

		/* borrowed addresses, not copies */
		const char **addrs = xcalloc((size_t)n + 1, sizeof *addrs);

		lca = spec_cell_lca(s, lv, n);
		session_leaf_node_list(s, lv, n, &nodes);
		for (k = 0; k < nodes.n; k++) {
			size_t na = 0;
			char *h;

			for (i = 0; i < n; i++) {
				int node = s->cells[lv[i]].node;

				if (node >= 0 && strcmp(s->nodes[node].name, nodes.v[k]) == 0)
					addrs[na++] = s->cells[lv[i]].addr;
			}
			h = hostlist_compress((char *const *)addrs, na);
			table_row(t);
			table_cell_int(t, p);
			table_cell(t, "%s", nodes.v[k]);
			table_cell_int(t, (long long)na);
			table_cell(t, "%s", h);
			table_cell(t, "%s", lca >= 0 ? spec_cell_path(s, lca, path,
			    sizeof path) : "-");
			free(h);
		}
		free(addrs);
		strvec_release(&nodes);
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
}

static const struct cmd_opt alloc_opts[] = {
	{ 0, "vc", "VC", "the virtual cluster the job belongs to (required)", VALUE_VC },
	{ 'g', "gpus", "N", "GPUs per pod", VALUE_NONE },
	{ 'p', "pods", "P", "pods of --gpus GPUs each (default 1)", VALUE_NONE },
	{ 0, "gang", "PxN,...", "gang members, each P pods of N GPUs (instead of --gpus)", VALUE_NONE },
	{ 0, "priority", "P", "0 to 1000 for a guaranteed job (default 0), -1 for opportunistic", VALUE_NONE },
	{ 0, "opportunistic", NULL, "the same as --priority -1", VALUE_NONE },
	{ 't', "type", "TYPE", "leaf cell (GPU) type the pods need", VALUE_TYPE },
	{ 0, "pin", "ID", "place the job inside this pinned cell of its VC", VALUE_PIN },
	{ 0, "lazy", NULL, "when preempted, downgrade to opportunistic instead of stopping", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* "2x4,1x8" (P pods x N GPUs) or "8" (one pod) into r->members. */
static int
parse_gang(const char *spec, struct engine_req *r, char **cause)
{
	char *copy = xstrdup(spec), *item, *save = NULL, *x;
	int rc = -1;

	r->nmembers = 0;
	for (item = strtok_r(copy, ",", &save); item != NULL;
	    item = strtok_r(NULL, ",", &save)) {
		struct engine_member *m;

		if (r->nmembers == ENGINE_MAX_MEMBERS) {
			*cause = xasprintf("invalid --gang '%s': more than %d members",
			    spec, ENGINE_MAX_MEMBERS);
			goto out;
		}
		m = &r->members[r->nmembers];
		x = strpbrk(item, "xX*");
		if (x != NULL) {
			*x = '\0';
			m->pods = (int)args_parse_num(item, "--gang pods", 1, POD_MAX, cause);
			if (*cause != NULL)
				goto out;
			item = x + 1;
		} else
			m->pods = 1;
		m->gpus = (int)args_parse_num(item, "--gang GPUs", 1, POD_GPUS_MAX, cause);
		if (*cause != NULL)
			goto out;
		r->nmembers++;
	}
	if (r->nmembers == 0)
		*cause = xasprintf("invalid --gang '%s': no members", spec);
	else
		rc = 0;
out:
	free(copy);
	return rc;
}

/*
 * Options -> request. Names resolve to spec indices here so that errors name
 * what the user typed. Returns -1 with *cause (and ctx->status for usage).
 */
static int
build_req(struct cmd_ctx *ctx, const struct args *a, struct engine_req *r,
    char **cause)
{
	const struct spec *s = ctx->sess->spec;
	const char *v;
	int prio = 0, t;

	memset(r, 0, sizeof *r);
	r->name = args_value(a, 0);
	r->leaf_type = -1;
	r->pin = -1;
	if (check_job_name(r->name, cause) != 0)
		return cmd_usage_error(ctx);
	if ((v = args_get(a, "vc")) == NULL) {
		*cause = xstrdup("option '--vc' is required");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "gpus") == args_has(a, "gang")) {
		*cause = xstrdup("give either '--gpus' or '--gang'");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "gang")) {
		if (args_has(a, "pods")) {
			*cause = xstrdup("'--pods' does not go with '--gang'");
			return cmd_usage_error(ctx);
		}
		if (parse_gang(args_get(a, "gang"), r, cause) != 0)
			return cmd_usage_error(ctx);
	} else {
		r->nmembers = 1;
		r->members[0].gpus = (int)args_strtonum(a, "gpus", 1, POD_GPUS_MAX, cause);
		if (*cause != NULL)
			return cmd_usage_error(ctx);
		r->members[0].pods = 1;
		if (args_has(a, "pods")) {
			r->members[0].pods = (int)args_strtonum(a, "pods", 1, POD_MAX, cause);
			if (*cause != NULL)
				return cmd_usage_error(ctx);
		}
	}
	if (args_has(a, "priority")) {
		prio = (int)args_strtonum(a, "priority", ENGINE_PRIO_OPPORTUNISTIC,
		    ENGINE_PRIO_MAX, cause);
		if (*cause != NULL)
			return cmd_usage_error(ctx);
	}
	if (args_has(a, "opportunistic")) {
		if (args_has(a, "priority") && prio != ENGINE_PRIO_OPPORTUNISTIC) {
			*cause = xstrdup("'--opportunistic' contradicts '--priority'");
			return cmd_usage_error(ctx);
		}
		prio = ENGINE_PRIO_OPPORTUNISTIC;
	}
	r->priority = prio;
	r->lazy = args_has(a, "lazy");

	if ((r->vc = spec_find_vc(s, v)) < 0) {
		*cause = spec_unknown_vc(s, v);
		return -1;
	}
	if ((v = args_get(a, "type")) != NULL) {
		if ((t = spec_find_type(s, v)) < 0) {
			*cause = xasprintf("unknown cell type '%s'", v);
			return -1;
		}
		if (!s->types[t].is_leaf) {
			*cause = xasprintf("cell type '%s' is not a leaf (GPU) type", v);
			return -1;
		}
		r->leaf_type = t;
	}
	if ((v = args_get(a, "pin")) != NULL &&
	    (r->pin = spec_find_pin(s, v)) < 0) {
		*cause = xasprintf("unknown pinned cell '%s'", v);
		return -1;
	}
	if (engine_job_find(ctx->sess->engine, r->name) >= 0) {
		*cause = xasprintf("job '%s' already exists", r->name);
		return -1;
	}
	return 0;
}

static int
req_gpus(const struct engine_req *r)
{
	int i, n = 0;

	for (i = 0; i < r->nmembers; i++)
		n += r->members[i].pods * r->members[i].gpus;
	return n;
}

static void
plan_json(struct cmd_ctx *ctx, const char *kind, const struct engine_req *r,
    const struct engine_plan *p, bool placed, bool dry)
{
	const struct spec *s = ctx->sess->spec;
	struct json j;
	int i;

	cmd_json_begin(ctx, &j, kind);
	json_kv_bool(&j, "dry_run", dry);
	json_kv_bool(&j, "placed", placed);
	json_kv_string(&j, "job", r->name);
	if (!dry && placed)
		json_kv_int(&j, "id", p->job);
	else
		json_kv_null(&j, "id");
	json_kv_string(&j, "vc", s->vcs[r->vc].name);
	json_kv_int(&j, "priority", r->priority);
	json_kv_int(&j, "gpus", req_gpus(r));
	if (!placed) {
		json_kv_string(&j, "fail", engine_fail_name(p->fail));
		json_kv_string(&j, "why", p->why);
		cmd_json_end(ctx, &j);
		return;
	}
	json_kv_string(&j, "chain", chain_name(s, p->chain));
	json_kv_bool(&j, "opportunistic", p->opportunistic);
	cmd_pods_json(&j, s, p->npods, p->pod_first, p->leaves);
	json_key(&j, "victims");
	json_array_begin(&j);
	for (i = 0; i < p->nvictims; i++) {
		json_object_begin(&j);
		json_kv_string(&j, "job", p->victims[i].name);
		json_kv_string(&j, "kind", victim_kind_name(p->victims[i].kind));
		json_object_end(&j);
	}
	json_array_end(&j);
	cmd_json_end(ctx, &j);
}

static void
plan_table(struct cmd_ctx *ctx, const struct engine_req *r,
    const struct engine_plan *p, bool dry)
{
	const struct spec *s = ctx->sess->spec;
	int i;

	strbuf_addf(ctx->o, "job '%s' %s in vc '%s' on chain '%s': %d GPU%s in "
	    "%d pod%s, %s\n", r->name, dry ? "would start" : "started",
	    s->vcs[r->vc].name, chain_name(s, p->chain), req_gpus(r),
	    req_gpus(r) == 1 ? "" : "s", p->npods, p->npods == 1 ? "" : "s",
	    p->opportunistic ? "opportunistic" : "guaranteed");
	pods_table(ctx, s, p->npods, p->pod_first, p->leaves);
	for (i = 0; i < p->nvictims; i++)
		strbuf_addf(ctx->o, "%s job '%s'%s\n",
		    p->victims[i].kind == ENGINE_VICTIM_LAZY ?
		    (dry ? "would downgrade" : "downgraded") :
		    (dry ? "would preempt" : "preempted"), p->victims[i].name,
		    p->victims[i].kind == ENGINE_VICTIM_LAZY ?
		    " to opportunistic (lazy preemption)" : "");
	if (dry)
		strbuf_adds(ctx->o, "(dry run: nothing changed)\n");
}

/*
 * alloc records the job in the session's run: the store is opened and
 * locked before the engine acts (a store that cannot be written fails
 * with nothing changed); if recording fails after the engine placed the
 * job, the job is released again (victims stay preempted: the engine
 * cannot restore them yet) and the command fails with status 4.
 */
static int
alloc_record(struct cmd_ctx *ctx, const struct engine_req *r,
    struct engine_plan *plan, char **cause)
{
	struct session *s = ctx->sess;
	bool created;
	int id;

	if (session_log_begin(s, &created, cause) != 0)
		goto store_failed;
	if ((id = engine_alloc(s->engine, r, plan)) < 0) {
		session_log_rollback(s, created);
		return 1;	/* not placed: said by the caller */
	}
	if (session_log_alloc(s, r, plan, cause) != 0 ||
	    session_log_commit(s, created, cause) != 0) {
		session_log_rollback(s, created);
		engine_release(s->engine, id);
		if (plan->nvictims > 0) {
			char *old = *cause;

			*cause = xasprintf("%s (job '%s' was not started; %d job%s it "
			    "preempted stay%s stopped)", old, r->name, plan->nvictims,
			    plan->nvictims == 1 ? "" : "s", plan->nvictims == 1 ? "s" : "");
			free(old);
		}
		goto store_failed;
	}
	return 0;
store_failed:
	ctx->status = CMD_EXIT_STORE;
	return -1;
}

static int
alloc_or_place(struct cmd_ctx *ctx, const struct args *a, bool dry, char **cause)
{
	struct engine *e = ctx->sess->engine;
	struct engine_plan plan;
	struct engine_req r;
	int rc;

	if (build_req(ctx, a, &r, cause) != 0)
		return -1;
	engine_plan_init(&plan);
	if (dry)
		rc = engine_place(e, &r, &plan) == 0 ? 0 : -1;
	else if ((rc = alloc_record(ctx, &r, &plan, cause)) < 0) {
		engine_plan_release(&plan);
		return -1;
	} else if (rc > 0)
		rc = -1;
	if (ctx->out.format == OUT_JSON)
		plan_json(ctx, dry ? "place" : "alloc", &r, &plan, rc == 0, dry);
	else if (rc == 0)
		plan_table(ctx, &r, &plan, dry);
	if (rc != 0)
		*cause = xasprintf("cannot place job '%s': %s", r.name,
		    plan.why[0] ? plan.why : engine_fail_name(plan.fail));
	engine_plan_release(&plan);
	return rc;
}

static int
alloc_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return alloc_or_place(ctx, a, false, cause);
}

static int
place_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return alloc_or_place(ctx, a, true, cause);
}

static int
release_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct engine *e = ctx->sess->engine;
	const struct spec *s = ctx->sess->spec;
	int n = args_count(a), i, k, *ids = xcalloc((size_t)n, sizeof *ids);
	struct engine_job_info info;
	struct table *t = NULL;
	struct json j;
	bool created;

	for (i = 0; i < n; i++) {
		if ((ids[i] = engine_job_find(e, args_value(a, i))) < 0) {
			*cause = xasprintf("unknown job '%s'", args_value(a, i));
			free(ids);
			return -1;
		}
		for (k = 0; k < i; k++)
			if (ids[k] == ids[i]) {
				*cause = xasprintf("job '%s' named twice", args_value(a, i));
				free(ids);
				return -1;
			}
	}
	/* Recorded first: if the store fails, nothing is released. */
	if (session_log_begin(ctx->sess, &created, cause) != 0)
		goto store_failed;
	for (i = 0; i < n; i++)
		if (session_log_release(ctx->sess, ids[i], cause) != 0) {
			session_log_rollback(ctx->sess, created);
			goto store_failed;
		}
	if (session_log_commit(ctx->sess, created, cause) != 0)
		goto store_failed;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "release");
		json_key(&j, "jobs");
		json_array_begin(&j);
	} else {
		t = table_create();
		table_column(t, "JOB", "job", TABLE_NAME);
		table_column(t, "VC", "vc", 0);
		table_column(t, "GPUS", "gpus", TABLE_RIGHT);
		table_column(t, "NODES", "nodes", 0);
	}
	for (i = 0; i < n; i++) {
		char *h;

		/* Describe before releasing: info points into the engine. */
		if (!engine_job(e, ids[i], &info))
			fatal("release: job %d vanished", ids[i]);
		h = session_leaf_nodes(s, info.leaves, info.nleaves);
		if (t != NULL) {
			table_row(t);
			table_cell(t, "%s", info.name);
			table_cell(t, "%s", s->vcs[info.vc].name);
			table_cell_int(t, info.nleaves);
			table_cell(t, "%s", h);
		} else {
			struct strvec nodes = STRVEC_INIT;
			size_t x;

			json_object_begin(&j);
			json_kv_string(&j, "job", info.name);
			json_kv_string(&j, "vc", s->vcs[info.vc].name);
			json_kv_int(&j, "gpus", info.nleaves);
			json_key(&j, "nodes");
			json_array_begin(&j);
			session_leaf_node_list(s, info.leaves, info.nleaves, &nodes);
			for (x = 0; x < nodes.n; x++)
				json_string(&j, nodes.v[x]);
			strvec_release(&nodes);
			json_array_end(&j);
			json_object_end(&j);
		}
		free(h);
		if (engine_release(e, ids[i]) != 0)
			fatal("release: engine refused job %d", ids[i]);
	}
	/*
	 * The release was committed before the engine acted (an undone
	 * release cannot be redone exactly); the engine state it left (bad
	 * marks, counters) follows in a write of its own. A crash in between
	 * recovers the jobs and bad nodes exactly, the marks and counters of
	 * just before the release. In a group, its commit writes it.
	 */
	if (!store_in_group(ctx->sess->store) &&
	    session_log_engine(ctx->sess, e, cause) != 0) {
		strbuf_addf(ctx->err, "warning: %s\n", *cause);
		free(*cause);
		*cause = NULL;
	}
	if (t != NULL) {
		if (OUT_IS_TEXT(ctx->out.format))
			strbuf_addf(ctx->o, "released %d job%s\n", n, n == 1 ? "" : "s");
		table_render(t, &ctx->out, ctx->o);
		table_free(t);
	} else {
		json_array_end(&j);
		cmd_json_end(ctx, &j);
	}
	free(ids);
	return 0;
store_failed:
	free(ids);
	ctx->status = CMD_EXIT_STORE;
	return -1;
}

#define ALLOC_USAGE \
	"NAME --vc VC {--gpus N [--pods P] | --gang PxN,...} [OPTIONS]"

const struct cmd_entry cmd_alloc_entry = {
	.name = "alloc",
	.opts = alloc_opts,
	.min = 1, .max = 1,
	.usage = ALLOC_USAGE,
	.summary = "place a job and start it",
	.help =
	    "Ask the engine for P pods of N GPUs each (HiveD's podNumber x "
	    "leafCellNumber) for job NAME in virtual cluster VC, and start it "
	    "there. --gang asks for several such members at once (up to 8), all "
	    "or nothing. A guaranteed job (priority 0 to 1000) runs inside its "
	    "VC's cells and may preempt lower-priority jobs; an opportunistic job "
	    "(priority -1) runs on idle cells anywhere and is the first to be "
	    "preempted. The placement is printed: chain, each pod's node and GPU "
	    "addresses, the lowest cell holding the pod, and the victims "
	    "(preempted, or downgraded to opportunistic for --lazy jobs).\n"
	    "When the job cannot be placed the engine's reason is printed and "
	    "the command fails.",
	.examples = (const char *const []){
		"alloc train1 --vc prod --gpus 8",
		"alloc bert --vc research --gpus 8 --pods 4 --priority 10",
		"alloc sweep --vc dev --gang 2x2,1x4",
		"alloc scavenger --vc dev --gpus 1 --opportunistic",
		NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = alloc_exec,
};

const struct cmd_entry cmd_place_entry = {
	.name = "place",
	.opts = alloc_opts,
	.min = 1, .max = 1,
	.usage = ALLOC_USAGE,
	.summary = "show where a job would be placed (dry run)",
	.help =
	    "The dry run of alloc, with the same arguments: where the job would "
	    "land and which jobs it would preempt. Nothing changes.",
	.examples = (const char *const []){
		"place big --vc research --gpus 8 --pods 4",
		NULL },
	.flags = CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = place_exec,
};

const struct cmd_entry cmd_release_entry = {
	.name = "release",
	.opts = NULL,
	.min = 1, .max = -1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME...",
	.summary = "stop jobs and free their cells",
	.help =
	    "Release the cells of each named job; buddy cells merge back and "
	    "bound virtual cells are unbound. Every name must be a running job, "
	    "or nothing is released.",
	.examples = (const char *const []){
		"release train1",
		"release bert sweep",
		NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_ALL,
	.exec = release_exec,
};
