/*
 * cmd.c — the command table, name lookup and the dispatcher (see cmd.h).
 * Every face (batch, REPL, dashboard) hands words to cmd_dispatch; it finds
 * the entry, parses options, enforces flags and formats, and runs exec.
 */
#include "cmd/cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cmd/cmdline.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "ipc/ipc.h"
#include "store/store.h"

/* Every command, in the order `help` lists them. */
const struct cmd_entry *const cmd_table[] = {
	&cmd_spec_check_entry,
	&cmd_spec_import_entry,
	&cmd_load_entry,
	&cmd_status_entry,
	&cmd_cells_entry,
	&cmd_vcs_entry,
	&cmd_jobs_entry,
	&cmd_alloc_entry,
	&cmd_place_entry,
	&cmd_release_entry,
	&cmd_serve_entry,
	&cmd_submit_entry,
	&cmd_cancel_entry,
	&cmd_wait_entry,
	&cmd_job_log_entry,
	&cmd_job_migrate_entry,
	&cmd_queue_entry,
	&cmd_node_bad_entry,
	&cmd_node_ok_entry,
	&cmd_replay_entry,
	&cmd_compare_entry,
	&cmd_anomaly_entry,
	&cmd_plot_entry,
	&cmd_runs_entry,
	&cmd_run_show_entry,
	&cmd_events_entry,
	&cmd_history_entry,
	&cmd_audit_entry,
	&cmd_job_show_entry,
	&cmd_db_check_entry,
	&cmd_db_vacuum_entry,
	&cmd_export_entry,
	&cmd_import_entry,
	&cmd_help_entry,
	&cmd_apropos_entry,
	&cmd_watch_entry,
	&cmd_dash_entry,
	NULL
};

/*
 * Who may send what to the server, in cmd_table's order (cmd.h invariant
 * 7; tcmd-dispatch fails an entry without a row). A server opens a file
 * only for an admin's load: whatever names a file to read or write (spec
 * check, replay, export, plot, a --figure, a --series ...) is
 * CMD_ACCESS_CLIENT, run by the caller's own cellar with the caller's
 * own rights.
 */
const struct cmd_access_rule cmd_access_table[] = {
	{ &cmd_spec_check_entry, CMD_ACCESS_CLIENT },
	{ &cmd_spec_import_entry, CMD_ACCESS_CLIENT },
	{ &cmd_load_entry, CMD_ACCESS_ADMIN },
	{ &cmd_status_entry, CMD_ACCESS_ANYONE },
	{ &cmd_cells_entry, CMD_ACCESS_ANYONE },
	{ &cmd_vcs_entry, CMD_ACCESS_ANYONE },
	{ &cmd_jobs_entry, CMD_ACCESS_ANYONE },
	{ &cmd_alloc_entry, CMD_ACCESS_ADMIN },
	{ &cmd_place_entry, CMD_ACCESS_ANYONE },	/* a dry run */
	{ &cmd_release_entry, CMD_ACCESS_ADMIN },
	{ &cmd_serve_entry, CMD_ACCESS_CLIENT },
	{ &cmd_submit_entry, CMD_ACCESS_MEMBER },
	{ &cmd_cancel_entry, CMD_ACCESS_MEMBER },
	{ &cmd_wait_entry, CMD_ACCESS_ANYONE },
	{ &cmd_job_log_entry, CMD_ACCESS_ANYONE },
	{ &cmd_job_migrate_entry, CMD_ACCESS_ADMIN },
	{ &cmd_queue_entry, CMD_ACCESS_ANYONE },
	{ &cmd_node_bad_entry, CMD_ACCESS_ADMIN },
	{ &cmd_node_ok_entry, CMD_ACCESS_ADMIN },
	{ &cmd_replay_entry, CMD_ACCESS_CLIENT },
	{ &cmd_compare_entry, CMD_ACCESS_CLIENT },
	{ &cmd_anomaly_entry, CMD_ACCESS_CLIENT },
	{ &cmd_plot_entry, CMD_ACCESS_CLIENT },
	{ &cmd_runs_entry, CMD_ACCESS_ANYONE },
	{ &cmd_run_show_entry, CMD_ACCESS_ANYONE },
	{ &cmd_events_entry, CMD_ACCESS_ANYONE },
	{ &cmd_history_entry, CMD_ACCESS_ANYONE },
	{ &cmd_audit_entry, CMD_ACCESS_ANYONE },
	{ &cmd_job_show_entry, CMD_ACCESS_ANYONE },
	{ &cmd_db_check_entry, CMD_ACCESS_CLIENT },	/* reads the whole store */
	{ &cmd_db_vacuum_entry, CMD_ACCESS_CLIENT },
	{ &cmd_export_entry, CMD_ACCESS_CLIENT },
	{ &cmd_import_entry, CMD_ACCESS_CLIENT },
	{ &cmd_help_entry, CMD_ACCESS_ANYONE },
	{ &cmd_apropos_entry, CMD_ACCESS_ANYONE },
	{ &cmd_watch_entry, CMD_ACCESS_CLIENT },
	{ &cmd_dash_entry, CMD_ACCESS_CLIENT },
	{ NULL, CMD_ACCESS_NONE }
};

enum cmd_access
cmd_access_of(const struct cmd_entry *e)
{
	const struct cmd_access_rule *r;

	for (r = cmd_access_table; r->e != NULL; r++)
		if (r->e == e)
			return r->access;
	return CMD_ACCESS_NONE;
}

const char *
cmd_access_name(enum cmd_access a)
{
	switch (a) {
	case CMD_ACCESS_ANYONE: return "anyone";
	case CMD_ACCESS_MEMBER: return "member";
	case CMD_ACCESS_ADMIN: return "admin";
	case CMD_ACCESS_CLIENT: return "client";
	case CMD_ACCESS_NONE: break;
	}
	return "none";
}

const struct cmd_exit_info cmd_exit_table[] = {
	{ CMD_EXIT_OK, "success" },
	{ CMD_EXIT_FAIL, "a command failed: an unknown VC, job or node, a job "
	  "that cannot be placed, nothing found" },
	{ CMD_EXIT_USAGE, "usage error: an unknown command, option, sort key or "
	  "filter field, a missing or malformed argument, input that is not "
	  "UTF-8 text" },
	{ CMD_EXIT_SPEC, "spec or configuration error: a spec with errors, an "
	  "unreadable spec, a spec the mode cannot use" },
	{ CMD_EXIT_STORE, "state store error: the store cannot be opened, read "
	  "or written (locked, damaged, not a cellar store, a newer schema, disk "
	  "full)" },
	{ CMD_EXIT_NOSERVER, "no cellar server: a live command (submit, cancel, "
	  "wait, queue, job log, job migrate) and no server runs for the store, "
	  "or the server went away before it answered" },
	{ CMD_EXIT_DENIED, "refused by the server: the spec's access rules "
	  "(the server names the rule), or a command it runs for nobody (run "
	  "it with cellar itself)" },
	{ CMD_EXIT_INTR, "interrupted (SIGINT)" },
	{ 0, NULL }
};

const struct cmd_opt cmd_common_opts[] = {
	{ 'o', "output", "FORMAT", "output format: table, wide, json, name or csv", VALUE_FORMAT },
	{ 0, "no-header", NULL, "omit the header row of table and csv output", VALUE_NONE },
	{ 'h', "help", NULL, "show the command's help", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

const struct cmd_opt cmd_list_opts[] = {
	{ .name = "sort", .value = "KEY[,-KEY]",
	  .help = "sort rows by these columns ('-': descending)",
	  .kind = VALUE_SORT },
	{ .name = "filter", .value = "FIELD=VALUE",
	  .help = "keep rows whose FIELD matches (repeatable; also !=, <, >)",
	  .kind = VALUE_FILTER },
	{ .name = NULL }
};

static const struct cmd_opt cmd_no_opts[] = { { 0, NULL, NULL, NULL, VALUE_NONE } };

/* Word `idx` (0 or 1) of an entry name: start and length; len 0 if none. */
static const char *
cmd_word(const char *name, int idx, size_t *len)
{
	const char *sp = strchr(name, ' ');

	if (idx == 0) {
		*len = sp ? (size_t)(sp - name) : strlen(name);
		return name;
	}
	*len = sp ? strlen(sp + 1) : 0;
	return sp ? sp + 1 : name + strlen(name);
}

static bool
cmd_word_eq(const char *w, size_t len, const char *s)
{
	return strlen(s) == len && strncmp(w, s, len) == 0;
}

bool
cmd_is_family(const char *word)
{
	const struct cmd_entry *const *e;
	size_t len;

	for (e = cmd_table; *e != NULL; e++) {
		const char *w = cmd_word((*e)->name, 0, &len);

		if (cmd_word_eq(w, len, word) && strchr((*e)->name, ' ') != NULL)
			return true;
	}
	return false;
}

/*
 * The candidates at one level: distinct first words (family NULL) or the
 * second words of one family, in table order, into cands (each a pointer
 * into an entry name and its length).
 */
struct cmd_cand {
	const char	*w;
	size_t		 len;
};

static size_t
cmd_candidates(const char *family, struct cmd_cand *cands, size_t max)
{
	const struct cmd_entry *const *e;
	size_t n = 0, len, flen, i;
	const char *w, *f;

	for (e = cmd_table; *e != NULL && n < max; e++) {
		f = cmd_word((*e)->name, 0, &flen);
		if (family == NULL)
			w = f, len = flen;
		else {
			if (!cmd_word_eq(f, flen, family))
				continue;
			w = cmd_word((*e)->name, 1, &len);
			if (len == 0)
				continue;
		}
		for (i = 0; i < n; i++)
			if (cands[i].len == len && strncmp(cands[i].w, w, len) == 0)
				break;
		if (i == n) {
			cands[n].w = w;
			cands[n].len = len;
			n++;
		}
	}
	return n;
}

static void
cmd_cand_list(struct strbuf *sb, const struct cmd_cand *c, size_t n,
    const char *only_prefix)
{
	size_t i, plen = only_prefix ? strlen(only_prefix) : 0;
	bool first = true;

	for (i = 0; i < n; i++) {
		if (only_prefix && (c[i].len < plen || strncmp(c[i].w, only_prefix, plen) != 0))
			continue;
		strbuf_addf(sb, "%s%.*s", first ? "" : ", ", (int)c[i].len, c[i].w);
		first = false;
	}
}

#define CMD_MAX_CANDS	64

/* The candidate a misspelt word most likely meant (malloc'ed), or NULL. */
static char *
cmd_cand_closest(const char *word, const struct cmd_cand *c, size_t n)
{
	const char *names[CMD_MAX_CANDS] = { NULL }, *hit;
	char *meant;
	size_t i;

	if (n > CMD_MAX_CANDS)
		n = CMD_MAX_CANDS;
	for (i = 0; i < n; i++)
		names[i] = xstrndup(c[i].w, c[i].len);
	hit = suggest_closest(word, names, n);
	meant = hit != NULL ? xstrdup(hit) : NULL;
	for (i = 0; i < n; i++)
		free((char *)names[i]);
	return meant;
}

/* Match word among the candidates: exact, then unique prefix. */
static const struct cmd_cand *
cmd_match(const char *word, const char *family, struct cmd_cand *cands,
    size_t n, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	const struct cmd_cand *hit = NULL;
	size_t i, nhit = 0, wl = strlen(word);

	for (i = 0; i < n; i++)
		if (cmd_word_eq(cands[i].w, cands[i].len, word))
			return &cands[i];
	for (i = 0; i < n && wl > 0; i++)
		if (cands[i].len >= wl && strncmp(cands[i].w, word, wl) == 0) {
			hit = &cands[i];
			nhit++;
		}
	if (nhit == 1)
		return hit;
	if (nhit > 1) {
		cmd_cand_list(&sb, cands, n, word);
		*cause = family ?
		    xasprintf("ambiguous command '%s %s': %s", family, word, sb.buf) :
		    xasprintf("ambiguous command '%s': %s", word, sb.buf);
	} else {
		char *meant = cmd_cand_closest(word, cands, n);

		if (family != NULL) {
			cmd_cand_list(&sb, cands, n, NULL);
			*cause = meant != NULL ? xasprintf("unknown command '%s %s' "
			    "(did you mean '%s %s'? '%s' has: %s)", family, word, family,
			    meant, family, sb.buf) : xasprintf("unknown command '%s %s' "
			    "('%s' has: %s)", family, word, family, sb.buf);
		} else
			*cause = meant != NULL ? xasprintf("unknown command '%s' (did "
			    "you mean '%s'?)", word, meant) :
			    xasprintf("unknown command '%s'", word);
		free(meant);
	}
	strbuf_release(&sb);
	return NULL;
}

bool
cmd_family_match(const char *word, char *buf, size_t len)
{
	struct cmd_cand c0[CMD_MAX_CANDS];
	const struct cmd_cand *m;
	char *cause = NULL;
	size_t n = cmd_candidates(NULL, c0, CMD_MAX_CANDS);

	m = cmd_match(word, NULL, c0, n, &cause);
	free(cause);
	if (m == NULL || m->len >= len)
		return false;
	memcpy(buf, m->w, m->len);
	buf[m->len] = '\0';
	return cmd_is_family(buf);
}

const struct cmd_entry *
cmd_find(int argc, char *const *argv, int *nwords, char **cause)
{
	const struct cmd_entry *const *e;
	struct cmd_cand c0[CMD_MAX_CANDS], c1[CMD_MAX_CANDS];
	const struct cmd_cand *m0, *m1 = NULL;
	char family[64];
	size_t n, len;

	if (argc < 1) {
		*cause = xstrdup("no command");
		return NULL;
	}
	for (e = cmd_table; *e != NULL; e++)
		if ((*e)->alias != NULL && strcmp((*e)->alias, argv[0]) == 0) {
			*nwords = 1;
			return *e;
		}
	/* the common case at once: a command's exact name (an exact word
	   wins over prefixes below too; a family word needs its second) */
	for (e = cmd_table; *e != NULL; e++) {
		const char *nm = (*e)->name, *sp = strchr(nm, ' ');

		if (sp == NULL && strcmp(nm, argv[0]) == 0 && !cmd_is_family(nm)) {
			*nwords = 1;
			return *e;
		}
		if (sp != NULL && argc >= 2 && strncmp(nm, argv[0], (size_t)(sp -
		    nm)) == 0 && argv[0][sp - nm] == '\0' && strcmp(sp + 1, argv[1]) == 0) {
			*nwords = 2;
			return *e;
		}
	}
	n = cmd_candidates(NULL, c0, CMD_MAX_CANDS);
	if ((m0 = cmd_match(argv[0], NULL, c0, n, cause)) == NULL)
		return NULL;
	snprintf(family, sizeof family, "%.*s", (int)m0->len, m0->w);
	*nwords = 1;
	if (cmd_is_family(family)) {
		n = cmd_candidates(family, c1, CMD_MAX_CANDS);
		if (argc < 2 || argv[1][0] == '-') {
			struct strbuf sb = STRBUF_INIT;

			cmd_cand_list(&sb, c1, n, NULL);
			*cause = xasprintf("command '%s' needs a subcommand: %s",
			    family, sb.buf);
			strbuf_release(&sb);
			return NULL;
		}
		if ((m1 = cmd_match(argv[1], family, c1, n, cause)) == NULL)
			return NULL;
		*nwords = 2;
	}
	for (e = cmd_table; *e != NULL; e++) {
		const char *w0 = cmd_word((*e)->name, 0, &len);
		const char *w1;

		if (!cmd_word_eq(w0, len, family))
			continue;
		w1 = cmd_word((*e)->name, 1, &len);
		if (m1 == NULL || (len == m1->len && strncmp(w1, m1->w, len) == 0))
			return *e;
	}
	fatal("cmd_find: matched '%s' but found no entry", family);
}

void
cmd_usage(struct strbuf *sb, const struct cmd_entry *e)
{
	strbuf_addf(sb, "usage: %s%s%s\n", e->name, *e->usage ? " " : "", e->usage);
}

void
cmd_result_release(struct cmd_result *res)
{
	free(res->cause);
	res->cause = NULL;
}

void
cmd_json_begin(struct cmd_ctx *ctx, struct json *j, const char *kind)
{
	json_init(j, ctx->o);
	json_object_begin(j);
	json_kv_int(j, "schema_version", CMD_SCHEMA_VERSION);
	json_kv_string(j, "kind", kind);
}

void
cmd_json_end(struct cmd_ctx *ctx, struct json *j)
{
	json_object_end(j);
	if (!json_done(j))
		fatal("cmd_json_end: unclosed containers");
	strbuf_addc(ctx->o, '\n');
}

int
cmd_usage_error(struct cmd_ctx *ctx)
{
	ctx->status = CMD_EXIT_USAGE;
	return -1;
}

void
cmd_note(struct cmd_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	if (ctx->sess->quiet)
		return;
	strbuf_adds(ctx->err, "note: ");
	va_start(ap, fmt);
	strbuf_vaddf(ctx->err, fmt, ap);
	va_end(ap);
	strbuf_addc(ctx->err, '\n');
}

int
cmd_list_apply(struct cmd_ctx *ctx, struct table *t, char **cause)
{
	if (table_query_apply(t, ctx->query, cause) != 0)
		return cmd_usage_error(ctx);
	return 0;
}

void
cmd_list_json(struct cmd_ctx *ctx, struct json *j, const char *key,
    const struct table *t,
    void (*fn)(struct cmd_ctx *, struct json *, long, void *), void *arg)
{
	size_t r;

	json_key(j, key);
	json_array_begin(j);
	for (r = 0; r < table_nrows(t); r++)
		fn(ctx, j, table_tag(t, r), arg);
	json_array_end(j);
}

/* The --sort and --filter of a listing command into ctx->query, checked. */
static int
cmd_list_opts_parse(struct cmd_ctx *ctx, const struct cmd_entry *e,
    const struct args *a, char **cause)
{
	size_t i;
	const char *name, *v;

	if (e->columns == NULL)
		return 0;
	ctx->query = table_query_create();
	for (i = 0; i < args_nopts(a); i++) {
		name = args_opt_name(a, i);
		v = args_opt_value(a, i);
		if (strcmp(name, "sort") == 0 &&
		    table_query_sort(ctx->query, v, cause) != 0)
			return -1;
		if (strcmp(name, "filter") == 0 &&
		    table_query_filter(ctx->query, v, cause) != 0)
			return -1;
	}
	return table_query_check(ctx->query, e->columns, cause);
}

/*
 * Words must be UTF-8 of a sane length whichever face they came from
 * (argv skips the tokenizer, which checks the same for text).
 */
static int
cmd_check_words(int argc, char *const *argv, char **cause)
{
	size_t len, off;
	int i;

	for (i = 0; i < argc; i++) {
		len = strlen(argv[i]);
		if (len > CMDLINE_MAX) {
			*cause = xasprintf("word %d is too long (%zu bytes; at most %d)",
			    i + 1, len, CMDLINE_MAX);
			return -1;
		}
		if (!cmdline_utf8_valid(argv[i], len, &off)) {
			*cause = xasprintf("word %d is not valid UTF-8 (at byte %zu)",
			    i + 1, off + 1);
			return -1;
		}
	}
	return 0;
}

/* Apply the common options to ctx->out; -1 on a bad -o. */
static int
cmd_output_opts(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *f = args_get(a, "output");
	int fmt;

	if (f != NULL) {
		if ((fmt = out_format_parse(f)) < 0) {
			*cause = xasprintf("unknown output format '%s' "
			    "(table, wide, json, name, csv)", f);
			return -1;
		}
		ctx->out.format = (enum out_format)fmt;
	}
	if (args_has(a, "no-header"))
		ctx->out.header = false;
	return 0;
}

static int
cmd_check_format(const struct cmd_ctx *ctx, const struct cmd_entry *e, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	enum out_format f = ctx->out.format;

	/* wide is table with more columns: wherever table goes, it goes. */
	if (e->formats & OUT_MASK(f == OUT_WIDE ? OUT_TABLE : f))
		return 0;
	out_format_list(&sb, e->formats);
	*cause = xasprintf("command '%s' has no '%s' output (it has: %s)", e->name,
	    out_format_name(ctx->out.format), sb.buf);
	strbuf_release(&sb);
	return -1;
}

/*
 * The audit log: a command flagged CMD_MUTATES that ran while a store is
 * open gets a row (user, time, the command line as typed, its status and,
 * when it failed, why), unless the store itself just failed it. A failure
 * to write the row fails a command that had succeeded (status 4). A
 * server's refusals are its own to audit (serve.c, cmd/refusals.h).
 */
static void
cmd_audit(struct session *s, const char *line, struct cmd_result *res,
    struct strbuf *err)
{
	struct store_audit row;
	struct store *st;
	char *cause = NULL;

	/* its first commit carried it (session_log_commit), or a store that
	   just failed would fail again: the error says enough */
	if (s->audited || s->store == NULL || res->status == CMD_EXIT_STORE)
		return;
	if (store_in_txn(s->store))
		fatal("command '%s' left a store transaction open", line);
	memset(&row, 0, sizeof row);
	row.user = s->caller;
	row.run = s->run;
	row.cmdline = line;
	row.status = res->status;
	row.reason = res->status != CMD_EXIT_OK ? res->cause : NULL;
	row.count = 1;
	if (session_store(s, true, &st, &cause) != 0 ||
	    store_audit_add(st, &row, NULL, &cause) != 0) {
		if (res->status == CMD_EXIT_OK) {
			res->status = CMD_EXIT_STORE;
			res->cause = cause;
			cause = NULL;
		} else
			strbuf_addf(err, "cellar: the audit log was not written: %s\n",
			    cause);
	}
	free(cause);
}

/* ---- forwarding to the store's server (ipc.h) ---- */

/* A file argument means the client's file: send it absolute. */
static void
quote_value(struct strbuf *line, enum cmd_value kind, const char *v)
{
	char cwd[4096];

	strbuf_addc(line, ' ');
	if ((kind == VALUE_FILE || kind == VALUE_SPEC) && v[0] != '/' &&
	    strcmp(v, "-") != 0 && getcwd(cwd, sizeof cwd) != NULL) {
		char *abs = xasprintf("%s/%s", cwd, v);

		cmdline_quote(line, abs);
		free(abs);
	} else
		cmdline_quote(line, v);
}

static enum cmd_value
opt_kind(const struct cmd_opt *const *tables, const char *name)
{
	const struct cmd_opt *o;

	for (; *tables != NULL; tables++)
		for (o = *tables; o->name != NULL; o++)
			if (strcmp(o->name, name) == 0)
				return o->kind;
	return VALUE_NONE;
}

/*
 * The request line for words the dispatcher parsed: the command's name,
 * this session's output defaults, its options, then "--" and the
 * positionals, file names made absolute (the server's cwd is not ours).
 */
static void
forward_line(const struct session *s, const struct cmd_entry *e,
    const struct cmd_opt *const *tables, const struct args *a, struct strbuf *line)
{
	const char *v;
	size_t i;
	int k;

	strbuf_adds(line, e->name);
	if (s->out.format != OUT_TABLE)
		strbuf_addf(line, " -o %s", out_format_name(s->out.format));
	if (!s->out.header)
		strbuf_adds(line, " --no-header");
	/* the first positional first, as typed (a job's name): the log reads
	   'submit NAME --vc VC -- COMMAND', not 'submit ... -- NAME COMMAND' */
	k = 0;
	if (args_count(a) > 0 && args_value(a, 0)[0] != '-')
		quote_value(line, e->arg_kind, args_value(a, k++));
	for (i = 0; i < args_nopts(a); i++) {
		strbuf_adds(line, " --");
		strbuf_adds(line, args_opt_name(a, i));
		if ((v = args_opt_value(a, i)) != NULL)
			quote_value(line, opt_kind(tables, args_opt_name(a, i)), v);
	}
	if (k < args_count(a))
		strbuf_adds(line, " --");
	for (; k < args_count(a); k++)
		quote_value(line, e->arg_kind, args_value(a, k));
}

/* Send the command to the server; its reply is this command's outcome. */
static int
cmd_forward(struct session *s, const struct cmd_entry *e,
    const struct cmd_opt *const *tables, const struct args *a,
    struct strbuf *out, struct strbuf *err, struct cmd_result *res)
{
	struct strbuf line = STRBUF_INIT;
	char *cause = NULL;
	int status = 0;

	forward_line(s, e, tables, a, &line);
	res->reported = true;	/* the server wrote its own message */
	if (ipc_request(s->remote_fd, line.buf, out, err, &status, s->stop, 0,
	    &cause) == 0)
		res->status = status;
	else if (cause == NULL)
		res->status = CMD_EXIT_INTR;
	else {
		session_remote_close(s);
		res->reported = false;
		res->status = CMD_EXIT_NOSERVER;
		res->cause = xasprintf("%s (pid %ld): '%s' may or may not have "
		    "run; look with 'queue'", cause, s->remote_pid, e->name);
		free(cause);
	}
	strbuf_release(&line);
	return res->status;
}

void
cmd_add_text(struct strbuf *sb, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t') ||
		    s[i] == 0x7f)
			strbuf_addf(sb, "\\x%02x", (unsigned char)s[i]);
		else
			strbuf_addc(sb, s[i]);
}

void
cmd_failure(struct strbuf *sb, const char *where, const struct cmd_result *res)
{
	bool usage = res->status == CMD_EXIT_USAGE;
	const char *p;

	if (res->reported)
		return;
	strbuf_addf(sb, "cellar: %s", where);
	/* messages echo what the user typed: keep control bytes off terminals */
	for (p = res->cause != NULL ? res->cause : "failed"; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			strbuf_addf(sb, "\\x%02x", (unsigned char)*p);
		else
			strbuf_addc(sb, *p);
	strbuf_addc(sb, '\n');
	if (usage && res->entry != NULL)
		cmd_usage(sb, res->entry);
	else if (usage)
		strbuf_adds(sb, "run 'help' for the list of commands\n");
}

#define CMD_STALE_TRIES	100	/* runs of a command whose view went stale */

int
cmd_dispatch(struct session *s, int argc, char *const *argv, struct strbuf *out,
    struct strbuf *err, struct cmd_result *res)
{
	const struct cmd_opt *tables[4];
	const struct cmd_entry *e;
	struct strbuf line = STRBUF_INIT;
	struct cmd_ctx ctx;
	struct args *a = NULL;
	char *cause = NULL;
	int nwords = 0, rc, tries;
	size_t olen, elen;

	memset(res, 0, sizeof *res);
	if (argc == 0)
		return 0;
	memset(&ctx, 0, sizeof ctx);
	ctx.sess = s;
	ctx.out = s->out;
	ctx.o = out;
	ctx.err = err;
	res->format = ctx.out.format;

	if (cmd_check_words(argc, argv, &cause) != 0) {
		res->status = CMD_EXIT_USAGE;
		res->cause = cause;
		return res->status;
	}
	if ((e = cmd_find(argc, argv, &nwords, &cause)) == NULL) {
		/* "node --help" asks for the family's help. */
		char family[64];

		if (argc >= 2 && cmd_family_match(argv[0], family, sizeof family) &&
		    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
			free(cause);
			return res->status = cmd_help_write(&ctx, NULL, family);
		}
		res->status = CMD_EXIT_USAGE;
		res->cause = cause;
		return res->status;
	}
	res->entry = e;
	ctx.entry = e;
	tables[0] = e->opts ? e->opts : cmd_no_opts;
	tables[1] = cmd_common_opts;
	tables[2] = e->columns != NULL ? cmd_list_opts : NULL;
	tables[3] = NULL;

	/*
	 * Positionals are counted here rather than by args_parse, so that
	 * "alloc --help" works and messages can name the command.
	 */
	a = args_parse(tables, 0, -1, (e->flags & CMD_OPTS_FIRST) ?
	    ARGS_STOP_AT_POSITIONAL : 0, argc - nwords, argv + nwords, &cause);
	if (a != NULL && args_has(a, "help")) {
		if (cmd_output_opts(&ctx, a, &cause) != 0 ||
		    cmd_check_format(&ctx, &cmd_help_entry, &cause) != 0)
			goto usage;
		args_free(a);
		res->format = ctx.out.format;
		return res->status = cmd_help_write(&ctx, e, NULL);
	}
	if (a == NULL)
		goto usage;
	if (args_count(a) < e->min) {
		cause = xasprintf("missing argument%s for '%s'",
		    e->min - args_count(a) > 1 ? "s" : "", e->name);
		goto usage;
	}
	if (e->max >= 0 && args_count(a) > e->max) {
		cause = xasprintf("unexpected argument '%s' for '%s'",
		    args_value(a, e->max), e->name);
		goto usage;
	}
	if (cmd_output_opts(&ctx, a, &cause) != 0 || cmd_check_format(&ctx, e, &cause) != 0 ||
	    cmd_list_opts_parse(&ctx, e, a, &cause) != 0)
		goto usage;
	if ((e->flags & CMD_MUTATES) && s->read_only) {
		res->status = CMD_EXIT_FAIL;
		res->cause = xasprintf("command '%s' changes the cluster; "
		    "the session is read-only", e->name);
		goto out;
	}
	/* a client: the store's server runs it, if one runs */
	if ((e->flags & CMD_SERVER) && !s->serving) {
		if ((rc = session_remote(s, &cause)) < 0) {
			res->status = CMD_EXIT_NOSERVER;
			res->cause = cause;
			goto out;
		}
		if (rc == 1) {
			cmd_forward(s, e, tables, a, out, err, res);
			goto out;
		}
	}
	if (s->authorize != NULL && s->authorize(s, e, a, &cause) != 0) {
		res->status = CMD_EXIT_DENIED;
		res->cause = cause;
		goto out;
	}
	if ((e->flags & CMD_FRONTEND) && s->fe == NULL) {
		res->status = CMD_EXIT_FAIL;
		res->cause = xasprintf("command '%s' needs a front end (the "
		    "REPL or the command line)", e->name);
		goto out;
	}
	if ((e->flags & CMD_NEEDS_ENGINE) && (rc = session_ensure(s, err, &cause)) != 0) {
		res->status = rc == -2 ? CMD_EXIT_STORE : CMD_EXIT_SPEC;
		res->cause = cause;
		goto out;
	}
	ctx.status = CMD_EXIT_FAIL;
	if (e->flags & CMD_MUTATES) {
		cmdline_join(&line, argc, argv);
		s->audit_line = line.buf;
		s->audited = false;
	}
	olen = out->len;
	elen = err->len;
	rc = e->exec(&ctx, a, &cause);
	for (tries = 1; rc != 0 && s->stale; tries++) {
		/* another process wrote the store since the engine was
		   built: again, on the store's state (session-log.c); a
		   writer that loses the lock race this often gives up */
		struct strbuf diags = STRBUF_INIT;

		s->stale = false;
		if (tries == CMD_STALE_TRIES)
			break;
		free(cause);
		cause = NULL;
		strbuf_setlen(out, olen);
		strbuf_setlen(err, elen);
		ctx.status = CMD_EXIT_FAIL;
		ctx.reported = false;
		if (session_reload(s, &diags, &cause) == 0)
			rc = e->exec(&ctx, a, &cause);
		else
			ctx.status = CMD_EXIT_STORE;
		strbuf_release(&diags);
	}
	if (rc != 0) {
		if (ctx.again) {
			/* not done yet: the server runs it again later */
			free(cause);
			res->again = true;
			goto out;
		}
		res->status = ctx.status != CMD_EXIT_OK ? ctx.status : CMD_EXIT_FAIL;
		res->reported = ctx.reported;
		res->cause = cause ? cause : xasprintf("command '%s' failed", e->name);
	} else
		free(cause);
	if ((e->flags & CMD_MUTATES) && !ctx.unaudited)
		cmd_audit(s, line.buf, res, err);
	if (e->flags & CMD_MUTATES) {
		s->audit_line = NULL;
		s->audited = false;
	}
	goto out;

usage:
	res->status = CMD_EXIT_USAGE;
	res->cause = cause;
out:
	res->format = ctx.out.format;
	table_query_free(ctx.query);
	args_free(a);
	strbuf_release(&line);
	return res->status;
}
