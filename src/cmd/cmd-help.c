/*
 * cmd-help.c — `help [COMMAND | TOPIC]`, `apropos WORD...` and every
 * command's --help, generated from the command table (and, for the topics,
 * from the tables of job states, pending reasons and exit statuses) so that
 * help never drifts from what the dispatcher accepts. t0050 checks the man
 * page against the same tables.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/cmd.h"
#include "core/xmalloc.h"
#include "job/job.h"
#include "policy/policy.h"

#define HELP_WIDTH	76

/* Append text word-wrapped at HELP_WIDTH, each line indented by indent. */
static void
help_wrap(struct strbuf *sb, const char *text, int indent)
{
	const char *p = text, *w;
	size_t col = 0, len;

	while (*p != '\0') {
		if (*p == '\n') {		/* paragraph break */
			strbuf_adds(sb, "\n\n");
			col = 0;
			p++;
			continue;
		}
		if (*p == ' ') {
			p++;
			continue;
		}
		for (w = p; *w != '\0' && *w != ' ' && *w != '\n'; w++)
			;
		len = (size_t)(w - p);
		if (col > 0 && col + 1 + len > HELP_WIDTH) {
			strbuf_addc(sb, '\n');
			col = 0;
		}
		if (col == 0) {
			strbuf_addchars(sb, ' ', (size_t)indent);
			col = (size_t)indent;
		} else {
			strbuf_addc(sb, ' ');
			col++;
		}
		strbuf_add(sb, p, len);
		col += len;
		p = w;
	}
	strbuf_addc(sb, '\n');
}

static void
help_opt_label(struct strbuf *sb, const struct cmd_opt *o)
{
	if (o->short_name)
		strbuf_addf(sb, "-%c, ", o->short_name);
	strbuf_addf(sb, "--%s", o->name);
	if (o->value)
		strbuf_addf(sb, " %s", o->value);
}

/* An option's help line; the values of a policy option come from the
   policy table (a list written by hand left antman out). */
static void
help_opt_help(struct strbuf *sb, const struct cmd_opt *o)
{
	strbuf_adds(sb, o->help);
	if (o->kind == VALUE_POLICY) {
		strbuf_adds(sb, "; one of: ");
		policy_names(sb);
	}
}

static void
help_opts_text(struct strbuf *sb, const char *title, const struct cmd_opt *opts)
{
	const struct cmd_opt *o;
	size_t width = 0, start;

	if (opts == NULL || opts->name == NULL)
		return;
	for (o = opts; o->name != NULL; o++) {
		struct strbuf l = STRBUF_INIT;

		help_opt_label(&l, o);
		if (l.len > width)
			width = l.len;
		strbuf_release(&l);
	}
	strbuf_addf(sb, "\n%s:\n", title);
	for (o = opts; o->name != NULL; o++) {
		strbuf_adds(sb, "  ");
		start = sb->len;
		help_opt_label(sb, o);
		strbuf_addchars(sb, ' ', width - (sb->len - start) + 2);
		help_opt_help(sb, o);
		strbuf_addc(sb, '\n');
	}
}

/* A listing's columns: key, header, help; wide-only ones marked. */
static void
help_columns_text(struct strbuf *sb, const struct table_colspec *cols)
{
	const struct table_colspec *c;
	size_t width = 0;

	if (cols == NULL)
		return;
	for (c = cols; c->header != NULL; c++)
		if (strlen(c->key) > width)
			width = strlen(c->key);
	strbuf_adds(sb, "\ncolumns (keys for --sort and --filter; * only in "
	    "wide and csv output, + only in csv):\n");
	for (c = cols; c->header != NULL; c++)
		strbuf_addf(sb, "  %-*s %c %s\n", (int)width, c->key,
		    c->flags & TABLE_CSV ? '+' : c->flags & TABLE_WIDE ? '*' : ' ',
		    c->help);
}

static void
help_entry_text(struct strbuf *sb, const struct cmd_entry *e)
{
	const char *const *ex;

	cmd_usage(sb, e);
	if (e->alias != NULL)
		strbuf_addf(sb, "alias: %s\n", e->alias);
	strbuf_addf(sb, "\n%s\n\n", e->summary);
	help_wrap(sb, e->help, 0);
	help_opts_text(sb, "options", e->opts);
	if (e->columns != NULL) {
		help_opts_text(sb, "list options", cmd_list_opts);
		help_columns_text(sb, e->columns);
	}
	help_opts_text(sb, "common options", cmd_common_opts);
	strbuf_adds(sb, "\noutput formats: ");
	out_format_list(sb, e->formats);
	strbuf_addc(sb, '\n');
	if (e->examples != NULL && e->examples[0] != NULL) {
		strbuf_adds(sb, "\nexamples:\n");
		for (ex = e->examples; *ex != NULL; ex++)
			strbuf_addf(sb, "  %s\n", *ex);
	}
}

static void
help_opts_json(struct json *j, const char *key, const struct cmd_opt *opts)
{
	const struct cmd_opt *o;
	char s[2] = { 0, 0 };
	struct strbuf h = STRBUF_INIT;

	json_key(j, key);
	json_array_begin(j);
	for (o = opts; o != NULL && o->name != NULL; o++) {
		json_object_begin(j);
		s[0] = o->short_name;
		json_kv_string(j, "short", o->short_name ? s : NULL);
		json_kv_string(j, "long", o->name);
		json_kv_string(j, "value", o->value);
		strbuf_reset(&h);
		help_opt_help(&h, o);
		json_kv_string(j, "help", h.buf);
		json_object_end(j);
	}
	strbuf_release(&h);
	json_array_end(j);
}

static void
help_entry_json(struct json *j, const struct cmd_entry *e)
{
	const struct table_colspec *c;
	const char *const *ex;
	struct strbuf usage = STRBUF_INIT;
	int f;

	json_object_begin(j);
	json_kv_string(j, "name", e->name);
	json_kv_string(j, "alias", e->alias);
	strbuf_addf(&usage, "%s%s%s", e->name, *e->usage ? " " : "", e->usage);
	json_kv_string(j, "usage", usage.buf);
	strbuf_release(&usage);
	json_kv_string(j, "summary", e->summary);
	json_kv_string(j, "help", e->help);
	help_opts_json(j, "options", e->opts);
	json_key(j, "examples");
	json_array_begin(j);
	for (ex = e->examples; ex != NULL && *ex != NULL; ex++)
		json_string(j, *ex);
	json_array_end(j);
	json_key(j, "formats");
	json_array_begin(j);
	for (f = 0; f < OUT_NFORMATS; f++)
		if (e->formats & OUT_MASK(f))
			json_string(j, out_format_name((enum out_format)f));
	json_array_end(j);
	json_kv_bool(j, "mutates", (e->flags & CMD_MUTATES) != 0);
	json_kv_bool(j, "needs_engine", (e->flags & CMD_NEEDS_ENGINE) != 0);
	json_kv_bool(j, "live", (e->flags & CMD_LIVE) != 0);
	json_kv_string(j, "access", cmd_access_name(cmd_access_of(e)));
	json_key(j, "columns");
	json_array_begin(j);
	for (c = e->columns; c != NULL && c->header != NULL; c++) {
		json_object_begin(j);
		json_kv_string(j, "key", c->key);
		json_kv_string(j, "header", c->header);
		json_kv_bool(j, "numeric", (c->flags & TABLE_NUM) != 0);
		json_kv_bool(j, "wide", (c->flags & TABLE_WIDE) != 0);
		json_kv_bool(j, "csv_only", (c->flags & TABLE_CSV) != 0);
		json_kv_bool(j, "hosts", (c->flags & TABLE_HOSTS) != 0);
		json_kv_string(j, "help", c->help);
		json_object_end(j);
	}
	json_array_end(j);
	json_object_end(j);
}

/* ---- topics: help TOPIC ---- */

static void	help_topic_states(struct cmd_ctx *, struct json *);
static void	help_topic_exit(struct cmd_ctx *, struct json *);

/*
 * Topics are matched by their exact name only, after no command matched
 * exactly, so they never make a command prefix ambiguous.
 */
static const struct help_topic {
	const char	*name;
	const char	*summary;
	const char	*text;
	/* Tables after the text (json: fields of the document), or NULL. */
	void		(*tables)(struct cmd_ctx *, struct json *);
} help_topics[] = {
	{ "states", "job state codes and pending reasons",
	  "Jobs show their state as a code, as Slurm prints it, and a pending "
	  "job the reason it waits, as a short word. 'jobs --filter state=PD' "
	  "lists pending jobs, 'jobs --filter reason=VCFull' those waiting for "
	  "their VC's cells.", help_topic_states },
	{ "filters", "sorting and filtering listings",
	  "Every listing (help -o wide shows which commands list) takes "
	  "--sort KEY[,-KEY]... and --filter FIELD=VALUE, and 'help COMMAND' "
	  "names its keys, which are also its csv header.\n"
	  "--sort sorts by the keys in turn, '-' before a key for descending "
	  "order. Numeric columns sort as numbers, with non-numbers (-) last "
	  "either way; text sorts naturally (r0n2 before r0n10). Rows that tie "
	  "keep the command's order.\n"
	  "--filter keeps the rows whose FIELD matches; repeat it to require "
	  "several (AND). FIELD=VALUE and FIELD!=VALUE compare without regard to "
	  "case; VALUE may use * and ? and list alternatives separated by ',' "
	  "(OR). For node columns VALUE is a hostlist (r0n[00-03]) and a row "
	  "matches when one of its nodes is listed. Numeric fields also take "
	  "FIELD<N, FIELD<=N, FIELD>N and FIELD>=N.\n"
	  "A sorted or filtered tree (cells) is listed flat. Unknown keys are "
	  "usage errors that list the valid ones.", NULL },
	{ "exit-status", "exit statuses", "The exit status of cellar, and of each "
	  "command in batch mode (the first failure's is kept).",
	  help_topic_exit },
};
#define NTOPICS	(sizeof help_topics / sizeof help_topics[0])

static const struct help_topic *
help_find_topic(const char *name)
{
	size_t i;

	for (i = 0; i < NTOPICS; i++)
		if (strcmp(help_topics[i].name, name) == 0)
			return &help_topics[i];
	return NULL;
}

static void
help_topic_states(struct cmd_ctx *ctx, struct json *j)
{
	struct table *t;
	int i;

	if (j != NULL) {
		json_key(j, "states");
		json_array_begin(j);
		for (i = 0; i < JOB_NSTATES; i++) {
			json_object_begin(j);
			json_kv_string(j, "code", job_state_code((enum job_state)i));
			json_kv_string(j, "name", job_state_name((enum job_state)i));
			json_kv_string(j, "help", job_state_help((enum job_state)i));
			json_object_end(j);
		}
		json_array_end(j);
		json_key(j, "reasons");
		json_array_begin(j);
		for (i = 1; i < JOB_NREASONS; i++) {
			json_object_begin(j);
			json_kv_string(j, "name", job_reason_name((enum job_reason)i));
			json_kv_string(j, "help", job_reason_help((enum job_reason)i));
			json_object_end(j);
		}
		json_array_end(j);
		return;
	}
	t = table_create();
	table_column(t, "ST", "code", TABLE_NAME);
	table_column(t, "STATE", "state", 0);
	table_column(t, "MEANING", "meaning", 0);
	for (i = 0; i < JOB_NSTATES; i++) {
		table_row(t);
		table_cell(t, "%s", job_state_code((enum job_state)i));
		table_cell(t, "%s", job_state_name((enum job_state)i));
		table_cell(t, "%s", job_state_help((enum job_state)i));
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	strbuf_addc(ctx->o, '\n');
	t = table_create();
	table_column(t, "REASON", "reason", TABLE_NAME);
	table_column(t, "MEANING", "meaning", 0);
	for (i = 1; i < JOB_NREASONS; i++) {
		table_row(t);
		table_cell(t, "%s", job_reason_name((enum job_reason)i));
		table_cell(t, "%s", job_reason_help((enum job_reason)i));
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
}

static void
help_topic_exit(struct cmd_ctx *ctx, struct json *j)
{
	const struct cmd_exit_info *x;
	struct table *t;

	if (j != NULL) {
		json_key(j, "statuses");
		json_array_begin(j);
		for (x = cmd_exit_table; x->help != NULL; x++) {
			json_object_begin(j);
			json_kv_int(j, "status", x->status);
			json_kv_string(j, "help", x->help);
			json_object_end(j);
		}
		json_array_end(j);
		return;
	}
	t = table_create();
	table_column(t, "STATUS", "status", TABLE_NUM | TABLE_NAME);
	table_column(t, "MEANING", "meaning", 0);
	for (x = cmd_exit_table; x->help != NULL; x++) {
		table_row(t);
		table_cell_int(t, x->status);
		table_cell(t, "%s", x->help);
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
}

static int
help_topic_write(struct cmd_ctx *ctx, const struct help_topic *tp, char **cause)
{
	struct json j;

	if (!table_query_empty(ctx->query)) {
		*cause = xasprintf("help topic '%s' takes no --sort or --filter",
		    tp->name);
		return cmd_usage_error(ctx);
	}
	switch (ctx->out.format) {
	case OUT_JSON:
		cmd_json_begin(ctx, &j, "help-topic");
		json_kv_string(&j, "topic", tp->name);
		json_kv_string(&j, "summary", tp->summary);
		json_kv_string(&j, "text", tp->text);
		if (tp->tables != NULL)
			tp->tables(ctx, &j);
		cmd_json_end(ctx, &j);
		return 0;
	case OUT_TABLE:
	case OUT_WIDE:
		strbuf_addf(ctx->o, "%s: %s\n\n", tp->name, tp->summary);
		help_wrap(ctx->o, tp->text, 0);
		if (tp->tables != NULL) {
			strbuf_addc(ctx->o, '\n');
			tp->tables(ctx, NULL);
		}
		return 0;
	default:
		*cause = xasprintf("help topic '%s' has no '%s' output (it has: "
		    "table, json)", tp->name, out_format_name(ctx->out.format));
		return cmd_usage_error(ctx);
	}
}

/* ---- the list of commands: help, help FAMILY, apropos ---- */

static const struct table_colspec help_columns[] = {
	{ "COMMAND", "command", TABLE_NAME, "the command (apropos: or help TOPIC)" },
	{ "ALIAS", "alias", 0, "its alias" },
	{ "SUMMARY", "summary", 0, "what it does" },
	{ "USAGE", "usage", TABLE_WIDE, "what follows the name" },
	{ "LISTS", "lists", TABLE_WIDE, "yes for a listing (--sort, --filter)" },
	{ "MUTATES", "mutates", TABLE_WIDE, "yes if it changes the cluster" },
	{ "ACCESS", "access", TABLE_WIDE, "who may send it to a server: anyone, "
	  "member, admin, or client (nobody: run it with cellar itself)" },
	{ NULL, NULL, 0, NULL }
};

/* Row tags: a command's index in cmd_table, or -1 - a topic's index. */
#define TOPIC_TAG(i)	(-1 - (long)(i))

static void
help_row(struct table *t, long tag)
{
	const struct cmd_entry *e;
	const struct help_topic *tp;

	table_row(t);
	table_row_tag(t, tag);
	if (tag < 0) {
		tp = &help_topics[-1 - tag];
		table_cell(t, "help %s", tp->name);
		table_cell(t, "%s", "");
		table_cell(t, "%s", tp->summary);
		table_cell(t, "%s", "");
		table_cell(t, "%s", "no");
		table_cell(t, "%s", "no");
		table_cell(t, "%s", "anyone");
		return;
	}
	e = cmd_table[tag];
	table_cell(t, "%s", e->name);
	table_cell(t, "%s", e->alias ? e->alias : "");
	table_cell(t, "%s", e->summary);
	table_cell(t, "%s", e->usage);
	table_cell(t, "%s", e->columns != NULL ? "yes" : "no");
	table_cell(t, "%s", e->flags & CMD_MUTATES ? "yes" : "no");
	table_cell(t, "%s", cmd_access_name(cmd_access_of(e)));
}

/* Is e in the selection: all (family NULL, one NULL), a family, or one? */
static bool
help_selected(const struct cmd_entry *e, const struct cmd_entry *one,
    const char *family)
{
	size_t n;

	if (one != NULL)
		return e == one;
	if (family == NULL)
		return true;
	n = strlen(family);
	return strncmp(e->name, family, n) == 0 && e->name[n] == ' ';
}

static void
help_topic_json(struct json *j, const struct help_topic *tp)
{
	json_object_begin(j);
	json_kv_string(j, "topic", tp->name);
	json_kv_string(j, "summary", tp->summary);
	json_object_end(j);
}

/*
 * Write the rows of t (filtered and sorted) in ctx's format: JSON with
 * commands and topics apart, or the table. The full list (all) is followed
 * by the topics, which are not rows: they are no commands.
 */
static void
help_list_write(struct cmd_ctx *ctx, const char *kind, struct table *t,
    bool all)
{
	struct json j;
	size_t r;

	if (ctx->out.format != OUT_JSON) {
		if (OUT_IS_TEXT(ctx->out.format) && all)
			strbuf_adds(ctx->o, "usage: cellar [OPTIONS] [COMMAND [ARGS...]]\n\n");
		table_render(t, &ctx->out, ctx->o);
		if (!OUT_IS_TEXT(ctx->out.format) || !all)
			return;
		strbuf_adds(ctx->o, "\nhelp topics:\n");
		for (r = 0; r < NTOPICS; r++)
			strbuf_addf(ctx->o, "  help %-12s %s\n", help_topics[r].name,
			    help_topics[r].summary);
		strbuf_adds(ctx->o, "\nRun 'help COMMAND' or 'COMMAND --help' "
		    "for a command's options and examples,\n'apropos WORD' to "
		    "search, and see cellar(1) for global options, batch\nmode "
		    "and exit codes.\n");
		return;
	}
	cmd_json_begin(ctx, &j, kind);
	json_key(&j, "commands");
	json_array_begin(&j);
	for (r = 0; r < table_nrows(t); r++)
		if (table_tag(t, r) >= 0)
			help_entry_json(&j, cmd_table[table_tag(t, r)]);
	json_array_end(&j);
	json_key(&j, "topics");
	json_array_begin(&j);
	if (all)
		for (r = 0; r < NTOPICS; r++)
			help_topic_json(&j, &help_topics[r]);
	for (r = 0; r < table_nrows(t); r++)
		if (table_tag(t, r) < 0)
			help_topic_json(&j, &help_topics[-1 - table_tag(t, r)]);
	json_array_end(&j);
	help_opts_json(&j, "common_options", cmd_common_opts);
	help_opts_json(&j, "list_options", cmd_list_opts);
	cmd_json_end(ctx, &j);
}

/* A list of commands: all, a family, or one. */
static int
help_list(struct cmd_ctx *ctx, const char *family, const struct cmd_entry *one,
    char **cause)
{
	struct table *t = table_create();
	size_t i;
	int rc = 0;

	table_columns(t, help_columns);
	for (i = 0; cmd_table[i] != NULL; i++)
		if (help_selected(cmd_table[i], one, family))
			help_row(t, (long)i);
	/* The full list ends with the topics; a query's result is just rows. */
	if ((rc = cmd_list_apply(ctx, t, cause)) == 0)
		help_list_write(ctx, "help", t, family == NULL && one == NULL &&
		    table_query_empty(ctx->query));
	table_free(t);
	return rc;
}

int
cmd_help_write(struct cmd_ctx *ctx, const struct cmd_entry *e, const char *family)
{
	struct json j;
	char *cause = NULL;

	if (e == NULL) {
		/* Without a query (the dispatcher's --help paths) this cannot fail. */
		if (help_list(ctx, family, NULL, &cause) != 0)
			fatal("cmd_help_write: %s", cause);
		return 0;
	}
	switch (ctx->out.format) {
	case OUT_JSON:
		cmd_json_begin(ctx, &j, "help");
		json_key(&j, "commands");
		json_array_begin(&j);
		help_entry_json(&j, e);
		json_array_end(&j);
		json_key(&j, "topics");
		json_array_begin(&j);
		json_array_end(&j);
		help_opts_json(&j, "common_options", cmd_common_opts);
		help_opts_json(&j, "list_options", cmd_list_opts);
		cmd_json_end(ctx, &j);
		break;
	case OUT_NAME:
		strbuf_addf(ctx->o, "%s\n", e->name);
		break;
	case OUT_CSV:
		if (help_list(ctx, NULL, e, &cause) != 0)
			fatal("cmd_help_write: %s", cause);
		break;
	default:
		help_entry_text(ctx->o, e);
	}
	return 0;
}

static int help_topic(struct cmd_ctx *, int, char *const *, char **);

static int
help_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	char *const *argv = args_argv(a);
	char *split[3] = { NULL, NULL, NULL };
	int argc = args_count(a), rc;

	if (argc == 0)
		return help_list(ctx, NULL, NULL, cause);
	/* "help 'node bad'": one quoted word naming a subcommand. */
	if (argc == 1 && strchr(argv[0], ' ') != NULL) {
		const char *sp = strchr(argv[0], ' ');

		split[0] = xstrndup(argv[0], (size_t)(sp - argv[0]));
		split[1] = xstrdup(sp + strspn(sp, " "));
		argv = split;
		argc = 2;
	}
	rc = help_topic(ctx, argc, argv, cause);
	free(split[0]);
	free(split[1]);
	return rc;
}

/* Is word exactly a command's first word or alias? */
static bool
help_exact_command(const char *word)
{
	const struct cmd_entry *const *e;
	size_t n = strlen(word);

	for (e = cmd_table; *e != NULL; e++)
		if ((strncmp((*e)->name, word, n) == 0 &&
		    ((*e)->name[n] == '\0' || (*e)->name[n] == ' ')) ||
		    ((*e)->alias != NULL && strcmp((*e)->alias, word) == 0))
			return true;
	return false;
}

static int
help_topic(struct cmd_ctx *ctx, int argc, char *const *argv, char **cause)
{
	const struct help_topic *tp;
	const struct cmd_entry *e;
	char family[64];
	int nwords;

	if (argc == 1 && !help_exact_command(argv[0]) &&
	    (tp = help_find_topic(argv[0])) != NULL)
		return help_topic_write(ctx, tp, cause);
	/* "help node" or "help n": the family's commands. */
	if (argc == 1 && cmd_family_match(argv[0], family, sizeof family))
		return help_list(ctx, family, NULL, cause);
	if ((e = cmd_find(argc, argv, &nwords, cause)) == NULL)
		return cmd_usage_error(ctx);
	if (nwords < argc) {
		*cause = xasprintf("unexpected argument '%s'", argv[nwords]);
		return cmd_usage_error(ctx);
	}
	if (!table_query_empty(ctx->query))
		return help_list(ctx, NULL, e, cause);
	return cmd_help_write(ctx, e, NULL);
}

/* ---- apropos ---- */

/* Case-insensitive substring. */
static bool
apropos_has(const char *hay, const char *word)
{
	size_t n = strlen(word);

	for (; hay != NULL && *hay != '\0'; hay++)
		if (strncasecmp(hay, word, n) == 0)
			return true;
	return false;
}

static bool
apropos_opts_have(const struct cmd_opt *o, const char *word)
{
	for (; o != NULL && o->name != NULL; o++)
		if (apropos_has(o->name, word) || apropos_has(o->help, word))
			return true;
	return false;
}

/* Everything help shows about e: name, alias, usage, texts, options, columns. */
static bool
apropos_entry(const struct cmd_entry *e, const char *word)
{
	const struct table_colspec *c;

	if (apropos_has(e->name, word) || apropos_has(e->alias, word) ||
	    apropos_has(e->usage, word) || apropos_has(e->summary, word) ||
	    apropos_has(e->help, word) || apropos_opts_have(e->opts, word))
		return true;
	for (c = e->columns; c != NULL && c->header != NULL; c++)
		if (apropos_has(c->key, word) || apropos_has(c->help, word))
			return true;
	return false;
}

static bool
apropos_topic(const struct help_topic *tp, const char *word)
{
	int i;

	if (apropos_has(tp->name, word) || apropos_has(tp->summary, word) ||
	    apropos_has(tp->text, word))
		return true;
	if (tp->tables == help_topic_states) {
		for (i = 0; i < JOB_NSTATES; i++)
			if (apropos_has(job_state_name((enum job_state)i), word) ||
			    apropos_has(job_state_help((enum job_state)i), word))
				return true;
		for (i = 0; i < JOB_NREASONS; i++)
			if (apropos_has(job_reason_name((enum job_reason)i), word) ||
			    apropos_has(job_reason_help((enum job_reason)i), word))
				return true;
	}
	return false;
}

static int
apropos_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct table *t = table_create();
	bool hit;
	size_t i;
	int k, rc = -1;

	table_columns(t, help_columns);
	for (i = 0; cmd_table[i] != NULL; i++) {
		for (k = 0, hit = true; k < args_count(a) && hit; k++)
			hit = apropos_entry(cmd_table[i], args_value(a, k));
		if (hit)
			help_row(t, (long)i);
	}
	for (i = 0; i < NTOPICS; i++) {
		for (k = 0, hit = true; k < args_count(a) && hit; k++)
			hit = apropos_topic(&help_topics[i], args_value(a, k));
		if (hit)
			help_row(t, TOPIC_TAG(i));
	}
	if (table_nrows(t) == 0) {
		*cause = xasprintf("nothing matches '%s'", args_value(a, 0));
		for (k = 1; k < args_count(a); k++) {
			char *more = xasprintf("%s and '%s'", *cause, args_value(a, k));

			free(*cause);
			*cause = more;
		}
	} else if (cmd_list_apply(ctx, t, cause) == 0) {
		help_list_write(ctx, "apropos", t, false);
		rc = 0;
	}
	table_free(t);
	return rc;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "?",
	.opts = NULL,
	.min = 0, .max = 2,
	.arg_kind = VALUE_COMMAND,
	.usage = "[COMMAND | TOPIC]",
	.summary = "list commands, or show a command's help or a topic",
	.help =
	    "Without an argument, list every command with its summary, then the "
	    "help topics (-o name prints just the command names, -o wide adds "
	    "each command's usage). With COMMAND (a unique prefix is enough, e.g. "
	    "'help node b'), show its usage, options, the columns a listing "
	    "sorts and filters by, output formats and examples; 'COMMAND --help' "
	    "shows the same. A family ('help node') lists its commands.\n"
	    "Topics: 'help states' explains job state codes and pending "
	    "reasons, 'help filters' the --sort and --filter grammar, 'help "
	    "exit-status' the exit statuses.",
	.examples = (const char *const []){
		"help",
		"help alloc",
		"help node",
		"help states",
		"help -o name",
		"help -o wide --filter lists=yes",
		NULL },
	.columns = help_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = help_exec,
};

const struct cmd_entry cmd_apropos_entry = {
	.name = "apropos",
	.opts = NULL,
	.min = 1, .max = -1,
	.usage = "WORD...",
	.summary = "search the commands and help topics",
	.help =
	    "List the commands and help topics whose name, alias, usage, "
	    "summary, help text, options or columns mention every WORD (a "
	    "substring, without regard to case). Fails when nothing matches.",
	.examples = (const char *const []){
		"apropos preempt",
		"apropos node bad",
		NULL },
	.columns = help_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = apropos_exec,
};
