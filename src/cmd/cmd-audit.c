/*
 * cmd-audit.c — `audit`: who did what to the cluster, from the state
 * store's audit table (store.h): every change that ran, with its exit
 * status, and every request a server refused, with why. A client
 * forwards it to the store's server when one runs, so that anyone who
 * may open the socket can read it (the store file is its owner's alone).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/stored.h"
#include "core/xmalloc.h"

static const struct cmd_opt audit_opts[] = {
	{ 0, "user", "USER", "only what this user did", VALUE_NONE },
	{ 0, "since", "T", "only at or after T: a UTC date, or a duration back from now (90, 15m, 2h, 3d)", VALUE_NONE },
	{ 0, "refused", NULL, "only the requests a server refused", VALUE_NONE },
	{ 0, "limit", "N", "only the newest N", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct table_colspec audit_columns[] = {
	{ "ID", "id", TABLE_NAME | TABLE_NUM, "the row's number, in the order written" },
	{ "AT", "at", 0, "when (UTC)" },
	{ "USER", "user", 0, "who sent it (a server's caller, else the Unix user)" },
	{ "RESULT", "result", 0, "ok, failed, or refused (by a server: it did not run)" },
	{ "STATUS", "status", TABLE_NUM, "its exit status (help exit-status)" },
	{ "COUNT", "count", TABLE_NUM, "refusals the row stands for (one row per user and second)" },
	{ "COMMAND", "command", 0, "the command line as sent" },
	{ "REASON", "reason", TABLE_WIDE, "why it failed or was refused" },
	{ "RUN", "run", TABLE_NUM | TABLE_WIDE, "the session's run then, or -" },
	{ NULL, NULL, 0, NULL }
};

/* The rows read, kept for JSON (the table holds their text). */
struct audit_list {
	struct table		*t;
	struct store_audit	*v;
	size_t			 n, cap;
};

static const char *
audit_result(const struct store_audit *a)
{
	return a->refused ? "refused" : a->status != 0 ? "failed" : "ok";
}

static int
audit_row(void *arg, const struct store_audit *a)
{
	struct audit_list *l = arg;
	struct store_audit *c;
	char b[64];

	XGROW(l->v, l->cap, l->n + 1);
	c = &l->v[l->n];
	*c = *a;
	c->user = xstrdup(a->user != NULL ? a->user : "");
	c->cmdline = xstrdup(a->cmdline != NULL ? a->cmdline : "");
	c->reason = a->reason != NULL ? xstrdup(a->reason) : NULL;
	table_row(l->t);
	table_row_tag(l->t, (long)l->n);
	table_cell_int(l->t, a->id);
	table_cell(l->t, "%s", stored_fmt_date(a->at, b, sizeof b));
	table_cell(l->t, "%s", c->user);
	table_cell_role(l->t, a->refused ? ROLE_BAD : a->status != 0 ? ROLE_WARN :
	    ROLE_NONE, "%s", audit_result(a));
	table_cell_int(l->t, a->status);
	table_cell_int(l->t, a->count);
	table_cell(l->t, "%s", c->cmdline);
	table_cell(l->t, "%s", c->reason != NULL ? c->reason : "-");
	if (a->run > 0)
		table_cell_int(l->t, a->run);
	else
		table_cell(l->t, "%s", "-");
	l->n++;
	return 0;
}

static void
audit_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct store_audit *a = &((struct audit_list *)arg)->v[tag];

	(void)ctx;
	json_object_begin(j);
	json_kv_int(j, "id", a->id);
	json_kv_double(j, "at", a->at);
	json_kv_string(j, "user", a->user);
	json_key(j, "run");
	if (a->run > 0)
		json_int(j, a->run);
	else
		json_null(j);
	json_kv_string(j, "command", a->cmdline);
	json_kv_string(j, "result", audit_result(a));
	json_kv_int(j, "status", a->status);
	json_kv_string(j, "reason", a->reason);
	json_kv_int(j, "count", a->count);
	json_object_end(j);
}

/* --since: a UTC date, or a duration back from now. */
static int
audit_since(const char *s, double *out, char **cause)
{
	double v;

	if (stored_parse_date(s, out))
		return 0;
	if (args_seconds(s, &v) != 0) {
		*cause = xasprintf("invalid --since '%s' (a duration back from now, "
		    "like 90, 15m, 2h, 3d; or a UTC date YYYY-MM-DDTHH:MM:SS)", s);
		return -1;
	}
	*out = floor(session_now() - v);
	return 0;
}

static int
audit_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct store_audit_filter f;
	struct audit_list l;
	struct sctx sc;
	struct json j;
	size_t i;
	int rc;

	memset(&l, 0, sizeof l);
	sctx_init(&sc, ctx);
	l.t = table_create();
	table_columns(l.t, audit_columns);
	store_audit_filter_init(&f);
	f.user = args_get(a, "user");
	f.refused = args_has(a, "refused");
	rc = -1;
	if (args_has(a, "since") && audit_since(args_get(a, "since"), &f.since,
	    cause) != 0) {
		rc = cmd_usage_error(ctx);
		goto out;
	}
	if (args_has(a, "limit")) {
		f.limit = args_strtonum(a, "limit", 1, 1LL << 40, cause);
		if (*cause != NULL) {
			rc = cmd_usage_error(ctx);
			goto out;
		}
	}
	if ((rc = sctx_open(&sc, true, cause)) < 0)
		goto out;
	if (rc == 0 && (rc = store_audit_query(sc.st, &f, audit_row, &l, cause)) != 0) {
		rc = stored_status(ctx, rc);
		goto out;
	}
	if ((rc = cmd_list_apply(ctx, l.t, cause)) != 0)
		goto out;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "audit");
		cmd_list_json(ctx, &j, "rows", l.t, audit_json_one, &l);
		cmd_json_end(ctx, &j);
	} else
		table_render(l.t, &ctx->out, ctx->o);
out:
	for (i = 0; i < l.n; i++) {
		free((char *)l.v[i].user);
		free((char *)l.v[i].cmdline);
		free((char *)l.v[i].reason);
	}
	free(l.v);
	table_free(l.t);
	sctx_release(&sc);
	return rc;
}

const struct cmd_entry cmd_audit_entry = {
	.name = "audit",
	.opts = audit_opts,
	.min = 0, .max = 0,
	.usage = "[--user USER] [--since T] [--refused] [--limit N]",
	.summary = "show who changed the cluster, and what a server refused",
	.help =
	    "Show the state store's audit log, oldest first: every command that "
	    "changed the cluster (submit, cancel, load, node bad ...) with who "
	    "ran it, when, the command line and its exit status, and every "
	    "request a cellar server refused (its access rules, a command it "
	    "runs for nobody, a halted server), with why. RESULT is ok, failed "
	    "or refused; -o wide adds the reason and the run.\n"
	    "A server writes one row per user and second of refusals: the "
	    "first one's line and reason, COUNT the number of refusals it "
	    "stands for, so that a flood of refused requests cannot fill the "
	    "store.\n"
	    "--user keeps one user's rows, --refused the refusals, --since T "
	    "those at or after T (a UTC date like 2026-11-21T08:00, or a "
	    "duration back from now: 90, 15m, 2h, 3d), --limit N the newest N. "
	    "When a server runs for the store, it answers, so that anyone who "
	    "may open its socket can read the log.",
	.examples = (const char *const []){
		"audit",
		"audit --refused --since 1h",
		"audit --user alice -o json",
		NULL },
	.columns = audit_columns,
	.flags = CMD_SERVER,
	.formats = OUT_ALL,
	.exec = audit_exec,
};
