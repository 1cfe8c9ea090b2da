/*
 * cmd-cells.c — the cluster views and node health: `status` (one-screen
 * summary), `cells` (the physical cell tree with engine state), `vcs` (per
 * virtual cluster usage), `node bad` / `node ok` (mark health). Read-only
 * except for the node commands; all state comes from the engine's query
 * functions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cmd/cmd.h"
#include "core/hostlist.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "store/store.h"

#define PATH_MAX_LEN	1024

static const char *
chain_name(const struct spec *s, int chain)
{
	return s->types[s->chains[chain].top_type].name;
}

/* used/total as a percentage, 0 for an empty total. */
static double
pct(long long part, long long total)
{
	return total > 0 ? 100.0 * (double)part / (double)total : 0.0;
}

/* ---- status ---- */

static int
status_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct spec *s = ctx->sess->spec;
	struct engine_stats st;
	struct table *t;
	struct json j;
	char *db, *why = NULL;

	(void)a;
	(void)cause;
	engine_stats(ctx->sess->engine, &st);
	db = session_db_path(ctx->sess, &why);	/* NULL: no HOME, no --db */
	free(why);
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "status");
		json_kv_string(&j, "spec", ctx->sess->spec_path);
		json_kv_string(&j, "mode", engine_mode_name(engine_mode(ctx->sess->engine)));
		json_kv_int(&j, "chains", s->nchains);
		json_kv_int(&j, "vcs", s->nvcs);
		json_kv_int(&j, "nodes", s->nnodes);
		json_kv_int(&j, "gpus", st.gpus);
		json_kv_int(&j, "used", st.used);
		json_kv_int(&j, "opp", st.opp);
		json_kv_int(&j, "bad", st.bad);
		json_kv_int(&j, "jobs", st.jobs);
		json_kv_int(&j, "opp_jobs", st.opp_jobs);
		/* the engine's history counters: a recovered engine has them too */
		json_key(&j, "history");
		json_object_begin(&j);
		json_kv_int(&j, "binds", st.binds);
		json_kv_int(&j, "unbinds", st.unbinds);
		json_kv_int(&j, "splits", st.splits);
		json_kv_int(&j, "merges", st.merges);
		json_object_end(&j);
		json_kv_string(&j, "db", db);
		if (ctx->sess->run != 0 || ctx->sess->resume_run != 0)
			json_kv_int(&j, "db_run", ctx->sess->run != 0 ? ctx->sess->run :
			    ctx->sess->resume_run);
		else
			json_kv_null(&j, "db_run");
		cmd_json_end(ctx, &j);
		free(db);
		return 0;
	}
	t = table_create();
	table_column(t, "FIELD", "field", TABLE_NAME);
	table_column(t, "VALUE", "value", 0);
#define ROW(k, ...) do { table_row(t); table_cell(t, "%s", k); table_cell(t, __VA_ARGS__); } while (0)
	ROW("spec", "%s", ctx->sess->spec_path);
	ROW("mode", "%s", engine_mode_name(engine_mode(ctx->sess->engine)));
	ROW("cluster", "%d chain%s, %d vc%s, %d node%s, %lld GPUs", s->nchains,
	    s->nchains == 1 ? "" : "s", s->nvcs, s->nvcs == 1 ? "" : "s",
	    s->nnodes, s->nnodes == 1 ? "" : "s", st.gpus);
	ROW("guaranteed", "%lld GPUs (%.1f%% of cluster GPUs) in %d job%s", st.used,
	    pct(st.used, st.gpus), st.jobs, st.jobs == 1 ? "" : "s");
	ROW("opportunistic", "%lld GPUs (%.1f%% of cluster GPUs) in %d job%s", st.opp,
	    pct(st.opp, st.gpus), st.opp_jobs, st.opp_jobs == 1 ? "" : "s");
	ROW("bad", "%lld GPUs (%.1f%% of cluster GPUs)", st.bad, pct(st.bad, st.gpus));
	if (db != NULL && (ctx->sess->run != 0 || ctx->sess->resume_run != 0))
		ROW("store", "%s (session run %lld)", db, (long long)(ctx->sess->run ?
		    ctx->sess->run : ctx->sess->resume_run));
	else if (db != NULL && ctx->sess->store == NULL && !store_exists(db))
		ROW("store", "%s (nothing recorded yet)", db);
	else if (db != NULL)
		ROW("store", "%s", db);
#undef ROW
	free(db);
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	return 0;
}

/* ---- cells ---- */

static const struct cmd_opt cells_opts[] = {
	{ 'd', "depth", "N", "levels to show below each starting cell", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct table_colspec cells_columns[] = {
	{ "CELL", "cell", TABLE_NAME, "full cell address" },
	{ "TYPE", "type", 0, "cell type" },
	{ "LEVEL", "level", TABLE_NUM, "level in its chain, 1 for a GPU" },
	{ "STATE", "state", 0, "free, split, bound or reserved" },
	{ "VC", "vc", 0, "the VC it is bound to, or -" },
	{ "GPUS", "gpus", TABLE_NUM, "GPUs in the cell" },
	{ "USED", "used", TABLE_NUM, "of those, used by guaranteed jobs" },
	{ "OPP", "opp", TABLE_NUM, "used by opportunistic jobs" },
	{ "BAD", "bad", TABLE_NUM, "bad" },
	{ "FLAGS", "flags", 0, "doomed, pinned, or -" },
	{ "JOB", "job", 0, "for a GPU, the job on it" },
	{ "PRIO", "priority", TABLE_NUM, "that job's priority" },
	{ "CHAIN", "chain", TABLE_WIDE, "the chain (top-level cell type)" },
	{ "NODE", "node", TABLE_WIDE | TABLE_HOSTS, "the node it is or is in, or -" },
	{ NULL, NULL, 0, NULL }
};

static const char *
cell_flags(const struct engine_cell_info *ci, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", ci->doomed ? "doomed" : "",
	    ci->doomed && ci->pinned ? "," : "", ci->pinned ? "pinned" : "");
	return buf[0] ? buf : "-";
}

static enum table_role
state_role(enum engine_cell_state st)
{
	static const enum table_role roles[] = {
		[ENGINE_CELL_FREE] = ROLE_OK,
		[ENGINE_CELL_SPLIT] = ROLE_DIM,
		[ENGINE_CELL_BOUND] = ROLE_BUSY,
		[ENGINE_CELL_RESERVED] = ROLE_BUSY,
	};

	return (unsigned)st < sizeof roles / sizeof roles[0] ? roles[st] : ROLE_NONE;
}

/* The job on a leaf cell, or NULL. */
static const char *
cell_job(const struct cmd_ctx *ctx, int cell, const struct engine_cell_info *ci)
{
	struct engine_job_info info;

	if (ctx->sess->spec->cells[cell].nchild == 0 && ci->job >= 0 &&
	    engine_job(ctx->sess->engine, ci->job, &info))
		return info.name;
	return NULL;
}

/* One row per cell of the subtree down to level `lowest`, tagged by cell. */
static void
cells_rows(struct cmd_ctx *ctx, struct table *t, int cell, int lowest, int depth)
{
	const struct spec *s = ctx->sess->spec;
	const struct spec_cell *c = &s->cells[cell];
	struct engine_cell_info ci;
	const char *job;
	char path[PATH_MAX_LEN], flags[32];
	int k;

	engine_cell(ctx->sess->engine, cell, &ci);
	job = cell_job(ctx, cell, &ci);
	spec_cell_path(s, cell, path, sizeof path);
	table_row(t);
	table_row_tag(t, cell);
	table_indent(t, depth);
	table_cell(t, "%s", path);
	table_cell(t, "%s", s->types[c->type].name);
	table_cell_int(t, c->level);
	table_cell_role(t, state_role(ci.state), "%s", engine_cell_state_name(ci.state));
	table_cell(t, "%s", ci.vc >= 0 ? s->vcs[ci.vc].name : "-");
	table_cell_int(t, ci.leaves);
	table_cell_role(t, ci.used ? ROLE_BUSY : ROLE_NONE, "%d", ci.used);
	table_cell_role(t, ci.opp ? ROLE_WARN : ROLE_NONE, "%d", ci.opp);
	table_cell_role(t, ci.bad ? ROLE_BAD : ROLE_NONE, "%d", ci.bad);
	table_cell_role(t, ci.doomed ? ROLE_BAD : ROLE_NONE, "%s",
	    cell_flags(&ci, flags, sizeof flags));
	table_cell(t, "%s", job ? job : "-");
	if (job != NULL)
		table_cell_int(t, ci.priority);
	else
		table_cell(t, "-");
	table_cell(t, "%s", chain_name(s, c->chain));
	table_cell(t, "%s", c->node >= 0 ? s->nodes[c->node].name : "-");
	if (c->nchild > 0 && c->level > lowest)
		for (k = 0; k < c->nchild; k++)
			cells_rows(ctx, t, c->first_child + k, lowest, depth + 1);
}

/*
 * One cell as JSON; with lowest > 0 its children down to that level too
 * (the tree), with lowest 0 none (a filtered or sorted list is flat).
 */
static void
cells_json_cell(struct cmd_ctx *ctx, struct json *j, int cell, int lowest)
{
	const struct spec *s = ctx->sess->spec;
	const struct spec_cell *c = &s->cells[cell];
	struct engine_cell_info ci;
	const char *job;
	char path[PATH_MAX_LEN];
	int k;

	engine_cell(ctx->sess->engine, cell, &ci);
	job = cell_job(ctx, cell, &ci);
	json_object_begin(j);
	json_kv_string(j, "address", spec_cell_path(s, cell, path, sizeof path));
	json_kv_string(j, "name", c->addr);
	json_kv_string(j, "type", s->types[c->type].name);
	json_kv_int(j, "level", c->level);
	json_kv_string(j, "chain", chain_name(s, c->chain));
	json_kv_string(j, "node", c->node >= 0 ? s->nodes[c->node].name : NULL);
	json_kv_string(j, "state", engine_cell_state_name(ci.state));
	json_kv_string(j, "vc", ci.vc >= 0 ? s->vcs[ci.vc].name : NULL);
	json_kv_int(j, "gpus", ci.leaves);
	json_kv_int(j, "used", ci.used);
	json_kv_int(j, "opp", ci.opp);
	json_kv_int(j, "bad", ci.bad);
	json_kv_bool(j, "doomed", ci.doomed);
	json_kv_bool(j, "pinned", ci.pinned);
	json_kv_string(j, "job", job);
	if (job != NULL)
		json_kv_int(j, "priority", ci.priority);
	else
		json_kv_null(j, "priority");
	if (lowest > 0 && c->nchild > 0 && c->level > lowest) {
		json_key(j, "children");
		json_array_begin(j);
		for (k = 0; k < c->nchild; k++)
			cells_json_cell(ctx, j, c->first_child + k, lowest);
		json_array_end(j);
	}
	json_object_end(j);
}

static void
cells_json_flat(struct cmd_ctx *ctx, struct json *j, long cell, void *arg)
{
	(void)arg;
	cells_json_cell(ctx, j, (int)cell, 0);
}

static void
push_root(int **roots, int *n, int *cap, int cell)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 16;
		*roots = xreallocarray(*roots, (size_t)*cap, sizeof **roots);
	}
	(*roots)[(*n)++] = cell;
}

/* Append the top-level cells of chain ch to roots. */
static void
chain_roots(const struct spec *s, int ch, int **roots, int *n, int *cap)
{
	const struct spec_chain *chn = &s->chains[ch];
	int i;

	for (i = 0; i < chn->level_count[chn->levels]; i++)
		push_root(roots, n, cap, chn->level_first[chn->levels] + i);
}

/* One name: a full cell address, a node (every chain) or a chain. */
static int
cells_root(const struct spec *s, const char *name, int **roots, int *n, int *cap)
{
	int c, i;

	if ((c = spec_find_cell(s, name)) >= 0) {
		push_root(roots, n, cap, c);
		return 0;
	}
	if ((c = spec_find_node(s, name)) >= 0) {
		for (i = 0; i < s->nodes[c].ncells; i++)
			push_root(roots, n, cap, s->nodes[c].cells[i]);
		return 0;
	}
	if ((c = spec_find_chain(s, name)) >= 0) {
		chain_roots(s, c, roots, n, cap);
		return 0;
	}
	return -1;
}

/*
 * The starting cells of `cells ARG...`: every chain's top without an
 * argument; else each ARG, which may be a hostlist (r0n[00-03]).
 */
static int
cells_roots(struct cmd_ctx *ctx, const struct args *a, int **roots, int *n,
    char **cause)
{
	const struct spec *s = ctx->sess->spec;
	int i, ch, cap = 0;
	size_t k;

	*roots = NULL;
	*n = 0;
	if (args_count(a) == 0) {
		for (ch = 0; ch < s->nchains; ch++)
			chain_roots(s, ch, roots, n, &cap);
		return 0;
	}
	for (i = 0; i < args_count(a); i++) {
		const char *arg = args_value(a, i);
		struct strvec names = STRVEC_INIT;

		if (cells_root(s, arg, roots, n, &cap) == 0)
			continue;
		if (hostlist_expand(arg, &names, cause) != 0) {
			strvec_release(&names);
			return cmd_usage_error(ctx);
		}
		for (k = 0; k < names.n; k++)
			if (cells_root(s, names.v[k], roots, n, &cap) != 0) {
				*cause = xasprintf("unknown cell, node or chain '%s'",
				    names.v[k]);
				strvec_release(&names);
				return -1;
			}
		strvec_release(&names);
	}
	return 0;
}

static int
cells_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct spec *s = ctx->sess->spec;
	int *roots = NULL, *lowest, nroots, i, depth = -1, node_level, rc = -1;
	struct table *t;
	struct json j;

	if (args_has(a, "depth")) {
		depth = (int)args_strtonum(a, "depth", 0, SPEC_MAX_LEVELS, cause);
		if (*cause != NULL)
			return cmd_usage_error(ctx);
	}
	if (cells_roots(ctx, a, &roots, &nroots, cause) != 0) {
		free(roots);
		return -1;
	}
	lowest = xcalloc((size_t)nroots + 1, sizeof *lowest);
	t = table_create();
	table_columns(t, cells_columns);
	for (i = 0; i < nroots; i++) {
		const struct spec_cell *c = &s->cells[roots[i]];

		/* Default: down to node level, or to the leaves from below it. */
		node_level = s->chains[c->chain].node_level;
		if (depth >= 0)
			lowest[i] = c->level - depth;
		else
			lowest[i] = c->level > node_level ? node_level : 1;
		if (lowest[i] < 1)
			lowest[i] = 1;
		cells_rows(ctx, t, roots[i], lowest[i], 0);
	}
	if (cmd_list_apply(ctx, t, cause) != 0)
		goto out;
	if (ctx->out.format != OUT_JSON)
		table_render(t, &ctx->out, ctx->o);
	else if (!table_query_empty(ctx->query)) {
		cmd_json_begin(ctx, &j, "cells");
		cmd_list_json(ctx, &j, "cells", t, cells_json_flat, NULL);
		cmd_json_end(ctx, &j);
	} else {
		/* No query: the starting cells with their subtrees, nested. */
		cmd_json_begin(ctx, &j, "cells");
		json_key(&j, "cells");
		json_array_begin(&j);
		for (i = 0; i < nroots; i++)
			cells_json_cell(ctx, &j, roots[i], lowest[i]);
		json_array_end(&j);
		cmd_json_end(ctx, &j);
	}
	rc = 0;
out:
	table_free(t);
	free(lowest);
	free(roots);
	return rc;
}

/* ---- vcs ---- */

/* "2xV100-NODE,1xV100-SWITCH,pin:infer-node" */
static void
vc_cells_text(const struct spec *s, int v, struct strbuf *sb)
{
	const struct spec_vc *vc = &s->vcs[v];
	int i;

	for (i = 0; i < vc->ncells; i++)
		strbuf_addf(sb, "%s%dx%s", i ? "," : "", vc->cells[i].number,
		    s->types[vc->cells[i].type].name);
	for (i = 0; i < vc->npins; i++)
		strbuf_addf(sb, "%spin:%s", vc->ncells + i ? "," : "",
		    s->pins[vc->pins[i]].id);
	if (sb->len == 0)
		strbuf_addc(sb, '-');
}

static const struct table_colspec vcs_columns[] = {
	{ "VC", "vc", TABLE_NAME, "the virtual cluster" },
	{ "GPUS", "gpus", TABLE_NUM, "GPUs assigned to it" },
	{ "USED", "used", TABLE_NUM, "of those, used by its guaranteed jobs" },
	{ "FREE", "free", TABLE_NUM, "free" },
	{ "BAD", "bad", TABLE_NUM, "bad" },
	{ "USED%", "used_pct_of_gpus", TABLE_NUM, "USED as a percentage of GPUS" },
	{ "OPP", "opp", TABLE_NUM, "GPUs its opportunistic jobs use anywhere" },
	{ "JOBS", "jobs", TABLE_NUM, "its guaranteed jobs" },
	{ "OPPJOBS", "opp_jobs", TABLE_NUM, "its opportunistic jobs" },
	{ "DOOMED", "doomed", TABLE_NUM | TABLE_WIDE, "bad cells bound to it for lack of others" },
	{ "CELLS", "cells", 0, "assigned cells: NxTYPE, pin:ID" },
	{ NULL, NULL, 0, NULL }
};

static void
vcs_json_one(struct cmd_ctx *ctx, struct json *j, long v, void *arg)
{
	const struct spec *s = ctx->sess->spec;
	struct engine_vc_usage u;
	int i, l;

	(void)arg;
	engine_vc_usage(ctx->sess->engine, (int)v, &u);
	json_object_begin(j);
	json_kv_string(j, "name", s->vcs[v].name);
	json_kv_int(j, "gpus", u.gpus);
	json_kv_int(j, "used", u.used);
	json_kv_int(j, "free", u.free);
	json_kv_int(j, "bad", u.bad);
	json_kv_double(j, "used_pct_of_gpus", pct(u.used, u.gpus));
	json_kv_int(j, "opp", u.opp);
	json_kv_int(j, "jobs", u.jobs);
	json_kv_int(j, "opp_jobs", u.opp_jobs);
	json_kv_int(j, "doomed", u.doomed);
	json_key(j, "cells");
	json_array_begin(j);
	for (i = 0; i < s->vcs[v].ncells; i++) {
		const struct spec_vcell *vcl = &s->vcs[v].cells[i];

		json_object_begin(j);
		json_kv_string(j, "chain", chain_name(s, vcl->chain));
		json_kv_int(j, "level", vcl->level);
		json_kv_string(j, "type", s->types[vcl->type].name);
		json_kv_int(j, "number", vcl->number);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "pins");
	json_array_begin(j);
	for (i = 0; i < s->vcs[v].npins; i++)
		json_string(j, s->pins[s->vcs[v].pins[i]].id);
	json_array_end(j);
	json_key(j, "levels");
	json_array_begin(j);
	for (l = 1; l <= SPEC_MAX_LEVELS; l++) {
		if (u.assigned[l] == 0 && u.bound[l] == 0)
			continue;
		json_object_begin(j);
		json_kv_int(j, "level", l);
		json_kv_int(j, "assigned", u.assigned[l]);
		json_kv_int(j, "bound", u.bound[l]);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

static void
vcs_row(struct table *t, const struct spec *s, int v, const struct engine_vc_usage *u)
{
	struct strbuf cells = STRBUF_INIT;

	vc_cells_text(s, v, &cells);
	table_row(t);
	table_row_tag(t, v);
	table_cell(t, "%s", s->vcs[v].name);
	table_cell_int(t, u->gpus);
	table_cell_role(t, u->used ? ROLE_BUSY : ROLE_NONE, "%lld", u->used);
	table_cell_role(t, u->free ? ROLE_OK : ROLE_NONE, "%lld", u->free);
	table_cell_role(t, u->bad ? ROLE_BAD : ROLE_NONE, "%lld", u->bad);
	table_cell(t, "%.1f", pct(u->used, u->gpus));
	table_cell_role(t, u->opp ? ROLE_WARN : ROLE_NONE, "%lld", u->opp);
	table_cell_int(t, u->jobs);
	table_cell_int(t, u->opp_jobs);
	table_cell_role(t, u->doomed ? ROLE_BAD : ROLE_NONE, "%d", u->doomed);
	table_cell(t, "%s", cells.buf);
	strbuf_release(&cells);
}

static int
vcs_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct spec *s = ctx->sess->spec;
	struct engine *e = ctx->sess->engine;
	struct engine_vc_usage u;
	struct engine_stats st;
	struct table *t;
	struct json j;
	int v;

	(void)a;
	engine_stats(e, &st);
	t = table_create();
	table_columns(t, vcs_columns);
	for (v = 0; v < s->nvcs; v++) {
		engine_vc_usage(e, v, &u);
		vcs_row(t, s, v, &u);
	}
	if (cmd_list_apply(ctx, t, cause) != 0) {
		table_free(t);
		return -1;
	}
	if (ctx->out.format != OUT_JSON) {
		table_render(t, &ctx->out, ctx->o);
		table_free(t);
		if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
			strbuf_addf(ctx->o,
			    "\nGPUS: assigned to the VC. USED, FREE, BAD: GPUs of that "
			    "assignment.\nUSED%%: USED as a percentage of GPUS. "
			    "OPP: GPUs its opportunistic jobs use anywhere.\n"
			    "cluster: %lld GPUs, of which %lld guaranteed (%.1f%%), "
			    "%lld opportunistic (%.1f%%), %lld bad (%.1f%%)\n",
			    st.gpus, st.used, pct(st.used, st.gpus), st.opp,
			    pct(st.opp, st.gpus), st.bad, pct(st.bad, st.gpus));
		return 0;
	}
	cmd_json_begin(ctx, &j, "vcs");
	cmd_list_json(ctx, &j, "vcs", t, vcs_json_one, NULL);
	table_free(t);
	json_key(&j, "cluster");
	json_object_begin(&j);
	json_kv_int(&j, "gpus", st.gpus);
	json_kv_int(&j, "used", st.used);
	json_kv_int(&j, "opp", st.opp);
	json_kv_int(&j, "bad", st.bad);
	json_kv_int(&j, "jobs", st.jobs);
	json_kv_int(&j, "opp_jobs", st.opp_jobs);
	json_object_end(&j);
	cmd_json_end(ctx, &j);
	return 0;
}

/* ---- node bad / node ok ---- */

static int
node_set(struct cmd_ctx *ctx, const struct args *a, bool bad, char **cause)
{
	const struct spec *s = ctx->sess->spec;
	struct engine *e = ctx->sess->engine;
	struct strvec names = STRVEC_INIT, affected = STRVEC_INIT;
	int lim = engine_job_limit(e), *ids, n, i, k, rc = -1;
	struct engine_job_info info;
	struct table *t = NULL;
	size_t x, start = ctx->o->len;
	struct json j;
	bool created = false, logging = false, *was_bad = NULL;

	for (i = 0; i < args_count(a); i++)
		if (hostlist_expand(args_value(a, i), &names, cause) != 0) {
			strvec_release(&names);
			return cmd_usage_error(ctx);
		}
	/* All or nothing: check every name before marking any. */
	for (x = 0; x < names.n; x++)
		if (spec_find_node(s, names.v[x]) < 0) {
			*cause = xasprintf("unknown node '%s'", names.v[x]);
			strvec_release(&names);
			return -1;
		}
	ids = xcalloc((size_t)lim + 1, sizeof *ids);
	/* Recorded in the session's run; the store is locked before we act. */
	was_bad = xcalloc(names.n + 1, sizeof *was_bad);
	for (x = 0; x < names.n; x++) {
		const struct spec_node *sn = &s->nodes[spec_find_node(s, names.v[x])];
		struct engine_cell_info ci;

		engine_cell(e, sn->cells[0], &ci);
		was_bad[x] = ci.bad > 0;
	}
	if (session_log_begin(ctx->sess, &created, cause) != 0) {
		ctx->status = CMD_EXIT_STORE;
		goto out;
	}
	logging = true;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "node");
		json_kv_string(&j, "state", bad ? "bad" : "ok");
		json_key(&j, "nodes");
		json_array_begin(&j);
	} else {
		t = table_create();
		table_column(t, "NODE", "node", 0);
		table_column(t, "STATE", "state", 0);
		table_column(t, "AFFECTED", "affected", TABLE_NAME);
	}
	for (x = 0; x < names.n; x++) {
		struct strbuf list = STRBUF_INIT;

		n = engine_node_set_bad(e, names.v[x], bad, ids, lim);
		if (n < 0) {
			*cause = xasprintf("unknown node '%s'", names.v[x]);
			goto out;
		}
		if (n > lim)
			n = lim;
		if (t != NULL) {
			table_row(t);
			table_cell(t, "%s", names.v[x]);
			table_cell_role(t, bad ? ROLE_BAD : ROLE_OK, "%s", bad ? "bad" : "ok");
		} else {
			json_object_begin(&j);
			json_kv_string(&j, "name", names.v[x]);
			json_kv_bool(&j, "bad", bad);
			json_key(&j, "affected");
			json_array_begin(&j);
		}
		for (k = 0; k < n; k++) {
			if (!engine_job(e, ids[k], &info))
				continue;
			strbuf_addf(&list, "%s%s", list.len ? "," : "", info.name);
			if (t == NULL)
				json_string(&j, info.name);
			for (i = 0; i < (int)affected.n; i++)
				if (strcmp(affected.v[i], info.name) == 0)
					break;
			if (i == (int)affected.n)
				strvec_push(&affected, info.name);
		}
		if (t != NULL)
			table_cell(t, "%s", list.len ? list.buf : "-");
		else {
			json_array_end(&j);
			json_object_end(&j);
		}
		if (session_log_node(ctx->sess, names.v[x], bad, list.buf, cause) != 0) {
			strbuf_release(&list);
			goto store_failed;
		}
		strbuf_release(&list);
	}
	logging = false;
	if (session_log_commit(ctx->sess, created, cause) != 0)
		goto store_failed;
	if (t != NULL) {
		if (ctx->out.format == OUT_NAME) {
			/* -o name: the affected jobs, one per line, for scripts. */
			for (x = 0; x < affected.n; x++)
				strbuf_addf(ctx->o, "%s\n", affected.v[x]);
		} else
			table_render(t, &ctx->out, ctx->o);
	} else {
		json_array_end(&j);
		cmd_json_end(ctx, &j);
	}
	if (bad && affected.n > 0)
		cmd_note(ctx, "%zu job%s still hold%s cells on bad nodes; release "
		    "or re-place them", affected.n, affected.n == 1 ? "" : "s",
		    affected.n == 1 ? "s" : "");
	rc = 0;
	goto out;
store_failed:
	/* Put the nodes back as they were: nothing happened. */
	for (x = 0; x < names.n; x++)
		engine_node_set_bad(e, names.v[x], was_bad[x], ids, lim);
	ctx->status = CMD_EXIT_STORE;
out:
	if (logging)
		session_log_rollback(ctx->sess, created);
	if (rc != 0 && ctx->o->len > start)
		strbuf_setlen(ctx->o, start);	/* no half-written output */
	free(was_bad);
	table_free(t);
	free(ids);
	strvec_release(&names);
	strvec_release(&affected);
	return rc;
}

static int
node_bad_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return node_set(ctx, a, true, cause);
}

static int
node_ok_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return node_set(ctx, a, false, cause);
}

const struct cmd_entry cmd_status_entry = {
	.name = "status",
	.opts = NULL,
	.min = 0, .max = 0,
	.usage = "",
	.summary = "summarize the session: spec, mode, GPU usage",
	.help =
	    "Show the loaded spec and sharing mode, the size of the cluster, "
	    "and how many GPUs guaranteed and opportunistic jobs use and how "
	    "many are bad, each as a percentage of the cluster's GPUs.",
	.examples = (const char *const []){ "status", NULL },
	.flags = CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = status_exec,
};

const struct cmd_entry cmd_cells_entry = {
	.name = "cells",
	.opts = cells_opts,
	.min = 0, .max = -1,
	.arg_kind = VALUE_CELL,
	.usage = "[ADDRESS | NODE | CHAIN]... [--depth N]",
	.summary = "show the physical cell tree",
	.help =
	    "Show physical cells, one per line, indented by depth: full address, "
	    "cell type, level, state (free: in a buddy free list; split: above "
	    "bound cells; bound: bound to a VC's virtual cell; reserved: inside "
	    "a bound cell), the VC it is bound to, its GPUs and how many of them "
	    "are used by guaranteed jobs, by opportunistic jobs and bad, flags "
	    "(doomed: bound to a VC because it is bad; pinned), and for a GPU "
	    "the job on it and its priority.\n"
	    "Without an argument every chain is shown from the top; ADDRESS is "
	    "a full cell address (r0/r0n03/1), NODE a node name or a hostlist "
	    "of them (r0n[00-03]), CHAIN a chain (top-level cell type). By "
	    "default the tree stops at node level, or goes down to the GPUs when "
	    "it starts at or below node level; --depth N shows N levels below "
	    "each starting cell. -o wide adds each cell's chain and node.\n"
	    "With --sort or --filter the cells are listed flat, without "
	    "indentation (in JSON, without children).",
	.examples = (const char *const []){
		"cells",
		"cells r0n03",
		"cells r0n[00-01] --depth 0",
		"cells r0 --depth 1",
		"cells -o json --depth 4",
		"cells --depth 3 --filter state=free --filter level=3",
		NULL },
	.columns = cells_columns,
	.flags = CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_ALL,
	.exec = cells_exec,
};

const struct cmd_entry cmd_vcs_entry = {
	.name = "vcs",
	.opts = NULL,
	.min = 0, .max = 0,
	.usage = "",
	.summary = "show each virtual cluster's cells and GPU usage",
	.help =
	    "For each virtual cluster: the GPUs assigned to it (GPUS), how many "
	    "of those its guaranteed jobs use, are free and are bad, USED as a "
	    "percentage of GPUS, the GPUs its opportunistic jobs use anywhere "
	    "(OPP), its guaranteed and opportunistic job counts, and its "
	    "assigned cells (NxTYPE, pin:ID). A legend and a cluster-wide line "
	    "follow the table. -o wide adds the number of doomed cells (bad "
	    "cells bound to the VC because it had no other choice).",
	.examples = (const char *const []){
		"vcs",
		"vcs -o csv",
		"vcs --sort -used%,vc",
		"vcs --filter 'free>0' -o name",
		NULL },
	.columns = vcs_columns,
	.flags = CMD_NEEDS_ENGINE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_ALL,
	.exec = vcs_exec,
};

const struct cmd_entry cmd_node_bad_entry = {
	.name = "node bad",
	.opts = NULL,
	.min = 1, .max = -1,
	.arg_kind = VALUE_NODE,
	.usage = "NODE...",
	.summary = "mark nodes bad (failed hardware)",
	.help =
	    "Mark each NODE bad; a NODE may be a hostlist (r0n[00-03]). Every "
	    "name is checked before any node is marked. Jobs with GPUs on a node "
	    "that goes bad are listed; they keep their cells until released. "
	    "Placement avoids bad cells, and binds a VC to them only when it has "
	    "no other choice (doomed cells).",
	.examples = (const char *const []){
		"node bad r0n03",
		"node bad r1n[00-01] -o name",
		NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_SERVER,
	.formats = OUT_ALL,
	.exec = node_bad_exec,
};

const struct cmd_entry cmd_node_ok_entry = {
	.name = "node ok",
	.opts = NULL,
	.min = 1, .max = -1,
	.arg_kind = VALUE_NODE,
	.usage = "NODE...",
	.summary = "mark nodes healthy again",
	.help = "Mark each NODE (or hostlist) healthy again.",
	.examples = (const char *const []){ "node ok r0n03", NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_SERVER,
	.formats = OUT_ALL,
	.exec = node_ok_exec,
};
