/*
 * cmd-db.c — the state store as a whole: `db check` (integrity and
 * cellar's invariants), `db vacuum`, `export` (the store as one JSON
 * file) and `import` (such a file back in).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/stored.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

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
	if ((rc = sctx_open(&sc, false, cause)) != 0)
		goto out;
	if ((rc = store_check(sc.st, check_line, &probs, &n, cause)) != 0) {
		rc = stored_status(ctx, rc);
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
			return stored_status(sc->ctx, -1);
		if (!store_exists(path)) {
			*cause = xasprintf("no state store at '%s' (nothing recorded yet)",
			    path);
			free(path);
			return stored_status(sc->ctx, STORE_NOTFOUND);
		}
		free(path);
	}
	if ((rc = session_store(s, true, &sc->st, cause)) != 0)
		return stored_status(sc->ctx, rc);
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
		rc = stored_status(ctx, rc);
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
	if ((rc = sctx_open(&sc, false, cause)) != 0)
		goto out;
	if ((rc = store_export(sc.st, &dump, &n, cause)) != 0) {
		rc = stored_status(ctx, rc);
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
		rc = stored_status(ctx, rc);
		goto out;
	}
	rc = store_import(st, text.buf, text.len, args_has(a, "as-new"), &n, &why);
	if (rc != 0) {
		*cause = rc == STORE_INVALID ? xasprintf("cannot import '%s': %s",
		    file, why) : why;
		if (rc == STORE_INVALID)
			free(why);
		rc = stored_status(ctx, rc);
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
