/*
 * cmd-spec.c — the spec commands: `spec check FILE` validates a spec and
 * summarizes it without touching the session; `load [FILE]` makes a spec
 * current, rebuilding the engine (running jobs are dropped: there is no
 * persistence yet).
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cluster/session-reconf.h"
#include "cmd/cmd.h"
#include "core/xmalloc.h"

static const char *const severity_names[] = {
	[SPEC_ERROR] = "error",
	[SPEC_WARNING] = "warning",
	[SPEC_NOTE] = "note",
};

static const char *
chain_name(const struct spec *s, int chain)
{
	return s->types[s->chains[chain].top_type].name;
}

/* GPUs in the whole chain: top-level cells times leaves per top cell. */
static long long
chain_gpus(const struct spec *s, int c)
{
	const struct spec_chain *ch = &s->chains[c];

	return (long long)ch->level_count[ch->levels] * s->types[ch->top_type].leaves;
}

static long long
vc_gpus(const struct spec *s, int v)
{
	const struct spec_vc *vc = &s->vcs[v];
	long long n = 0;
	int i;

	for (i = 0; i < vc->ncells; i++)
		n += (long long)vc->cells[i].number * s->types[vc->cells[i].type].leaves;
	for (i = 0; i < vc->npins; i++)
		n += s->types[s->cells[s->pins[vc->pins[i]].cell].type].leaves;
	return n;
}

static void
summary_json(struct json *j, const struct spec *s)
{
	char path[1024];
	int c, l, v, i;

	json_kv_int(j, "gpus", s ? s->gpus : 0);
	json_kv_int(j, "nodes", s ? s->nnodes : 0);
	json_key(j, "chains");
	json_array_begin(j);
	for (c = 0; s && c < s->nchains; c++) {
		const struct spec_chain *ch = &s->chains[c];

		json_object_begin(j);
		json_kv_string(j, "name", chain_name(s, c));
		json_kv_string(j, "leaf_type", s->types[ch->leaf_type].name);
		json_kv_int(j, "gpus", chain_gpus(s, c));
		json_kv_int(j, "node_level", ch->node_level);
		json_key(j, "levels");
		json_array_begin(j);
		for (l = ch->levels; l >= 1; l--) {
			json_object_begin(j);
			json_kv_int(j, "level", l);
			json_kv_string(j, "type", s->types[ch->level_type[l]].name);
			json_kv_int(j, "cells", ch->level_count[l]);
			json_kv_int(j, "gpus_per_cell", s->types[ch->level_type[l]].leaves);
			json_object_end(j);
		}
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "vcs");
	json_array_begin(j);
	for (v = 0; s && v < s->nvcs; v++) {
		const struct spec_vc *vc = &s->vcs[v];

		json_object_begin(j);
		json_kv_string(j, "name", vc->name);
		json_kv_int(j, "gpus", vc_gpus(s, v));
		json_key(j, "cells");
		json_array_begin(j);
		for (i = 0; i < vc->ncells; i++) {
			json_object_begin(j);
			json_kv_string(j, "chain", chain_name(s, vc->cells[i].chain));
			json_kv_int(j, "level", vc->cells[i].level);
			json_kv_string(j, "type", s->types[vc->cells[i].type].name);
			json_kv_int(j, "number", vc->cells[i].number);
			json_kv_int(j, "gpus", (long long)vc->cells[i].number *
			    s->types[vc->cells[i].type].leaves);
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "pins");
		json_array_begin(j);
		for (i = 0; i < vc->npins; i++)
			json_string(j, s->pins[vc->pins[i]].id);
		json_array_end(j);
		json_object_end(j);
	}
	json_array_end(j);
	json_key(j, "pins");
	json_array_begin(j);
	for (i = 0; s && i < s->npins; i++) {
		const struct spec_pin *p = &s->pins[i];

		json_object_begin(j);
		json_kv_string(j, "id", p->id);
		json_kv_string(j, "cell", spec_cell_path(s, p->cell, path, sizeof path));
		json_kv_string(j, "type", s->types[s->cells[p->cell].type].name);
		json_kv_int(j, "gpus", s->types[s->cells[p->cell].type].leaves);
		json_kv_string(j, "vc", p->vc >= 0 ? s->vcs[p->vc].name : NULL);
		json_object_end(j);
	}
	json_array_end(j);
}

static void
summary_table(struct cmd_ctx *ctx, const struct spec *s)
{
	struct table *t;
	char path[1024];
	int c, l, v, i;

	strbuf_addf(ctx->o, "spec '%s' is valid: %d chain%s, %d vc%s, %d pinned "
	    "cell%s, %d node%s, %lld GPUs\n\n", s->path, s->nchains,
	    s->nchains == 1 ? "" : "s", s->nvcs, s->nvcs == 1 ? "" : "s",
	    s->npins, s->npins == 1 ? "" : "s", s->nnodes,
	    s->nnodes == 1 ? "" : "s", s->gpus);

	t = table_create();
	table_column(t, "CHAIN", "chain", TABLE_NAME);
	table_column(t, "LEVEL", "level", TABLE_RIGHT);
	table_column(t, "TYPE", "type", 0);
	table_column(t, "CELLS", "cells", TABLE_RIGHT);
	table_column(t, "GPUS/CELL", "gpus_per_cell", TABLE_RIGHT);
	table_column(t, "GPUS", "gpus", TABLE_RIGHT);
	table_column(t, "NOTE", "note", 0);
	for (c = 0; c < s->nchains; c++) {
		const struct spec_chain *ch = &s->chains[c];

		for (l = ch->levels; l >= 1; l--) {
			int ty = ch->level_type[l];

			table_row(t);
			table_cell(t, "%s", l == ch->levels ? chain_name(s, c) : "");
			table_cell_int(t, l);
			table_cell(t, "%s", s->types[ty].name);
			table_cell_int(t, ch->level_count[l]);
			table_cell_int(t, s->types[ty].leaves);
			table_cell_int(t, (long long)ch->level_count[l] * s->types[ty].leaves);
			table_cell(t, "%s", l == ch->node_level ? "node level" :
			    l == 1 ? "leaf (GPU) type" : "");
		}
	}
	if (table_nrows(t) > 0)
		table_render(t, &ctx->out, ctx->o);
	table_free(t);
	if (s->nvcs == 0)
		return;

	strbuf_addc(ctx->o, '\n');
	t = table_create();
	table_column(t, "VC", "vc", TABLE_NAME);
	table_column(t, "CHAIN", "chain", 0);
	table_column(t, "LEVEL", "level", TABLE_RIGHT);
	table_column(t, "TYPE", "type", 0);
	table_column(t, "CELLS", "cells", TABLE_RIGHT);
	table_column(t, "GPUS", "gpus", TABLE_RIGHT);
	for (v = 0; v < s->nvcs; v++) {
		const struct spec_vc *vc = &s->vcs[v];

		for (i = 0; i < vc->ncells; i++) {
			const struct spec_vcell *vcl = &vc->cells[i];

			table_row(t);
			table_cell(t, "%s", i == 0 ? vc->name : "");
			table_cell(t, "%s", chain_name(s, vcl->chain));
			table_cell_int(t, vcl->level);
			table_cell(t, "%s", s->types[vcl->type].name);
			table_cell_int(t, vcl->number);
			table_cell_int(t, (long long)vcl->number * s->types[vcl->type].leaves);
		}
		for (i = 0; i < vc->npins; i++) {
			const struct spec_pin *p = &s->pins[vc->pins[i]];
			const struct spec_cell *cl = &s->cells[p->cell];

			table_row(t);
			table_cell(t, "%s", i == 0 && vc->ncells == 0 ? vc->name : "");
			table_cell(t, "%s", chain_name(s, cl->chain));
			table_cell_int(t, cl->level);
			table_cell(t, "%s (pinned '%s')", s->types[cl->type].name, p->id);
			table_cell_int(t, 1);
			table_cell_int(t, s->types[cl->type].leaves);
		}
		if (vc->ncells == 0 && vc->npins == 0) {
			table_row(t);
			table_cell(t, "%s", vc->name);
			table_cell(t, "-");
			table_cell(t, "-");
			table_cell(t, "-");
			table_cell_int(t, 0);
			table_cell_int(t, 0);
		}
		if (vc->ncells + vc->npins < 2)
			continue;
		table_row(t);
		table_cell(t, "%s", "");
		table_cell(t, "total");
		table_cell(t, "%s", "");
		table_cell(t, "%s", "");
		table_cell(t, "%s", "");
		table_cell_int(t, vc_gpus(s, v));
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);

	if (s->npins == 0)
		return;
	strbuf_addc(ctx->o, '\n');
	t = table_create();
	table_column(t, "PIN", "pin", TABLE_NAME);
	table_column(t, "CELL", "cell", 0);
	table_column(t, "TYPE", "type", 0);
	table_column(t, "GPUS", "gpus", TABLE_RIGHT);
	table_column(t, "VC", "vc", 0);
	for (i = 0; i < s->npins; i++) {
		const struct spec_pin *p = &s->pins[i];

		table_row(t);
		table_cell(t, "%s", p->id);
		table_cell(t, "%s", spec_cell_path(s, p->cell, path, sizeof path));
		table_cell(t, "%s", s->types[s->cells[p->cell].type].name);
		table_cell_int(t, s->types[s->cells[p->cell].type].leaves);
		table_cell(t, "%s", p->vc >= 0 ? s->vcs[p->vc].name : "-");
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
}

static int
spec_check_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *file = args_value(a, 0);
	struct spec_diags d;
	struct spec *s;
	struct json j;
	size_t i;

	spec_diags_init(&d);
	s = spec_load(file, &d);
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "spec-check");
		json_kv_string(&j, "file", file);
		json_kv_bool(&j, "valid", s != NULL);
		json_kv_int(&j, "errors", d.errors);
		json_kv_int(&j, "warnings", d.warnings);
		json_key(&j, "diagnostics");
		json_array_begin(&j);
		for (i = 0; i < d.n; i++) {
			json_object_begin(&j);
			json_kv_string(&j, "severity", severity_names[d.v[i].severity]);
			json_kv_string(&j, "text", d.v[i].text);
			json_object_end(&j);
		}
		json_array_end(&j);
		summary_json(&j, s);
		cmd_json_end(ctx, &j);
	} else {
		session_add_diags(ctx->o, &d);
		if (s != NULL) {
			if (d.n > 0)
				strbuf_addc(ctx->o, '\n');
			summary_table(ctx, s);
		}
	}
	if (s == NULL) {
		if (d.errors > 0)
			*cause = xasprintf("spec '%s' is invalid: %d error%s", file,
			    d.errors, d.errors == 1 ? "" : "s");
		else
			*cause = xasprintf("cannot load spec '%s'", file);
		ctx->status = CMD_EXIT_SPEC;
	}
	spec_diags_release(&d);
	spec_free(s);
	return s == NULL ? -1 : 0;
}

static const struct cmd_opt load_opts[] = {
	{ 'm', "mode", "MODE", "sharing mode: hived (default), quota or private", VALUE_MODE },
	{ 0, "default", NULL, "load the embedded default spec", VALUE_NONE },
	{ 0, "force", NULL, "cancel the jobs of VCs the new spec removes", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static void
load_json_item(struct json *j, const struct session_reconf_item *it)
{
	json_object_begin(j);
	json_kv_string(j, "job", it->job);
	json_kv_string(j, "vc", it->vc);
	json_kv_string(j, "action", it->what);
	json_kv_string(j, "why", it->why);
	json_object_end(j);
}

/* A session run with no job yet, recording the session's spec. */
static int
keep_spec(struct session *sess, char **cause)
{
	bool created;

	if (session_log_begin(sess, &created, cause) != 0)
		return -1;
	return session_log_commit(sess, created, cause);
}

static int
load_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct session *sess = ctx->sess;
	const char *file = args_value(a, 0), *m = args_get(a, "mode");
	enum engine_mode mode = sess->mode;
	struct strbuf diags = STRBUF_INIT;
	struct session_reconf rc;
	const struct spec *s;
	int i, v, status = CMD_EXIT_FAIL;
	struct json j;

	if (file != NULL && args_has(a, "default")) {
		*cause = xstrdup("give a FILE or '--default', not both");
		return cmd_usage_error(ctx);
	}
	if (m != NULL) {
		if ((v = engine_mode_parse(m)) < 0) {
			*cause = engine_mode_unknown(m);
			return cmd_usage_error(ctx);
		}
		mode = (enum engine_mode)v;
	}
	/* No FILE: reload the current spec (the default if none or embedded). */
	if (file == NULL && !args_has(a, "default") && sess->spec_path != NULL &&
	    strcmp(sess->spec_path, SESSION_DEFAULT_SPEC) != 0)
		file = sess->spec_path;
	/*
	 * The session's run, if it has one, goes on on the new spec: its jobs
	 * are carried over (session-reconf.h), each decision reported.
	 */
	v = session_reconfigure(sess, file, mode, args_has(a, "force") ?
	    SESSION_RECONF_FORCE : 0, &diags, &rc, &status, cause);
	strbuf_add(ctx->err, diags.buf, diags.len);
	strbuf_release(&diags);
	if (v != 0) {
		ctx->status = status;
		return -1;
	}
	/* no run yet: begin one on this spec, so that the next cellar (a
	   one-shot status, a server) finds the spec loaded, not the default */
	if (sess->run == 0 && rc.run == 0 && keep_spec(sess, cause) != 0) {
		session_reconf_release(&rc);
		ctx->status = CMD_EXIT_STORE;
		return -1;
	}
	s = sess->spec;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "load");
		json_kv_string(&j, "spec", sess->spec_path);
		json_kv_string(&j, "mode", engine_mode_name(sess->mode));
		json_kv_int(&j, "chains", s->nchains);
		json_kv_int(&j, "vcs", s->nvcs);
		json_kv_int(&j, "nodes", s->nnodes);
		json_kv_int(&j, "gpus", s->gpus);
		json_kv_int(&j, "dropped_jobs", rc.st.requeued + rc.st.cancelled);
		if (rc.run != 0) {
			json_key(&j, "reconfiguration");
			json_object_begin(&j);
			json_kv_int(&j, "run", rc.run);
			json_kv_int(&j, "kept", rc.st.kept);
			json_kv_int(&j, "downgraded", rc.st.downgraded);
			json_kv_int(&j, "requeued", rc.st.requeued);
			json_kv_int(&j, "cancelled", rc.st.cancelled);
			json_key(&j, "jobs");
			json_array_begin(&j);
			for (i = 0; i < rc.nitems; i++)
				load_json_item(&j, &rc.items[i]);
			json_array_end(&j);
			json_object_end(&j);
		}
		cmd_json_end(ctx, &j);
	} else {
		strbuf_addf(ctx->o, "loaded '%s' in %s mode: %d chain%s, %d vc%s, "
		    "%d node%s, %lld GPUs\n", sess->spec_path,
		    engine_mode_name(sess->mode), s->nchains, s->nchains == 1 ? "" : "s",
		    s->nvcs, s->nvcs == 1 ? "" : "s", s->nnodes,
		    s->nnodes == 1 ? "" : "s", s->gpus);
		session_reconf_report(&rc, ctx->o);
	}
	session_reconf_release(&rc);
	return 0;
}

const struct cmd_entry cmd_spec_check_entry = {
	.name = "spec check",
	.opts = NULL,
	.min = 1, .max = 1,
	.arg_kind = VALUE_SPEC,
	.usage = "FILE",
	.summary = "validate a spec file and summarize it",
	.help =
	    "Load FILE as a cluster spec (HiveD's format, see cellar-spec(5)) "
	    "without changing the session. Every diagnostic is printed as "
	    "file:line:col: severity: message. A valid spec is then summarized: "
	    "its chains level by level (cell type, cells, GPUs), the cells each "
	    "virtual cluster is assigned, and the pinned cells.\n"
	    "Exits with status 3 if the spec is invalid.",
	.examples = (const char *const []){
		"spec check specs/default.yaml",
		"spec check -o json specs/philly.yaml",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = spec_check_exec,
};

const struct cmd_entry cmd_load_entry = {
	.name = "load",
	.opts = load_opts,
	.min = 0, .max = 1,
	.arg_kind = VALUE_SPEC,
	.usage = "[FILE | --default] [--mode MODE] [--force]",
	.summary = "make a spec current and reconfigure the running jobs onto it",
	.help =
	    "Load FILE and make it the session's spec; the engine is rebuilt "
	    "from it in the sharing mode given by --mode (or the current one). "
	    "Without FILE the current spec is read again; --default loads the "
	    "embedded default spec.\n"
	    "Running jobs are carried over (HiveD's rule) and the session's run "
	    "goes on on the new spec: a job whose GPUs still exist and fit its "
	    "VC's cells is kept where it runs; one whose GPUs exist but no longer "
	    "fit its VC is downgraded to opportunistic; one whose GPUs are gone "
	    "is requeued (pending, without cells). Each decision is printed, one "
	    "line per job with the reason, then a summary, and recorded as events "
	    "(downgrade, requeue, cancel, reconfig) in one transaction with the "
	    "spec change.\n"
	    "A spec that removes a VC that still has jobs is refused (status 1, "
	    "the VCs named, nothing changed); --force cancels those jobs. A spec "
	    "with errors leaves the session unchanged and exits with status 3; "
	    "a store failure, status 4.",
	.examples = (const char *const []){
		"load specs/hived-fig3.yaml",
		"load --force specs/hived-fig3.yaml",
		"load --mode quota",
		"load --default",
		NULL },
	.flags = CMD_MUTATES | CMD_SERVER,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = load_exec,
};
