/*
 * cmd-serve.c — serve: this process becomes the store's server (serve.h)
 * until SIGTERM or SIGINT. The server sits above this layer: its loop is
 * reached through cmd_serve_loop, which main.c sets, never an include. A command like any other for help, completion
 * and the manual; flagged CMD_FRONTEND so that only the command line runs
 * it (a server's clients and the dashboard's ':' line cannot).
 */
#include <stdlib.h>

#include "cmd/cmd.h"
#include "core/xmalloc.h"

int (*cmd_serve_loop)(struct session *, const char *, const char *,
    const char *, char **);

static const struct cmd_opt serve_opts[] = {
	{ 0, "spec", "FILE", "the live cluster's spec (default: the store's "
	  "running session's)", VALUE_SPEC },
	{ 0, "db", "PATH", "the state store (default: --db, CELLAR_DB, then "
	  "$XDG_STATE_HOME/cellar/cellar.db)", VALUE_FILE },
	{ 0, "socket", "PATH", "the socket (default: STORE.sock; also "
	  "CELLAR_SOCKET)", VALUE_FILE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
serve_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	int status;

	if (cmd_serve_loop == NULL) {
		*cause = xstrdup("this program has no server (only cellar does)");
		return -1;
	}
	if ((status = cmd_serve_loop(ctx->sess, args_get(a, "spec"),
	    args_get(a, "db"), args_get(a, "socket"), cause)) == 0) {
		if (ctx->out.format == OUT_JSON) {
			struct json j;

			cmd_json_begin(ctx, &j, "serve");
			json_kv_string(&j, "stopped", "signal");
			cmd_json_end(ctx, &j);
		}
		return 0;
	}
	ctx->status = status;
	return -1;
}

const struct cmd_entry cmd_serve_entry = {
	.name = "serve",
	.opts = serve_opts,
	.min = 0, .max = 0,
	.usage = "[--spec FILE] [--db PATH] [--socket PATH]",
	.summary = "run the live cluster's server until SIGTERM",
	.help =
	    "Become the store's server: take its driver lock (refused, with the "
	    "holder's pid, when another server has it), load the spec (one with "
	    "a backend: section), take over the jobs a previous server left, and "
	    "run the live loop (hooks, status polls, health checks, the "
	    "scheduler) unattended, answering clients on a Unix socket beside "
	    "the store (STORE.sock). While it runs, every other cellar on the "
	    "same store sends submit, cancel, wait, queue, job log, job migrate, "
	    "node, load, alloc, release, status, cells, vcs and jobs to it; "
	    "closing a client stops no job. One line per decision and per "
	    "accepted or refused change goes to standard error. SIGHUP reloads "
	    "the spec as load does; SIGTERM or SIGINT stops the server (the jobs "
	    "run on; the next server takes them over). The spec's access: "
	    "section says who may change what (cellar-spec(5)).",
	.examples = (const char *const []){
		"serve --spec specs/local.yaml --db /var/lib/cellar/cellar.db",
		NULL },
	.flags = CMD_FRONTEND | CMD_LIVE,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = serve_exec,
};
