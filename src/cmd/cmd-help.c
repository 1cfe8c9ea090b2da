/*
 * cmd-help.c — `help [COMMAND]` and every command's --help, generated from
 * the command table so that help never drifts from what the dispatcher
 * accepts (tests/scenarios/t0050 checks the man page against it too).
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/xmalloc.h"

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
		strbuf_addf(sb, "%s\n", o->help);
	}
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

	json_key(j, key);
	json_array_begin(j);
	for (o = opts; o != NULL && o->name != NULL; o++) {
		json_object_begin(j);
		s[0] = o->short_name;
		json_kv_string(j, "short", o->short_name ? s : NULL);
		json_kv_string(j, "long", o->name);
		json_kv_string(j, "value", o->value);
		json_kv_string(j, "help", o->help);
		json_object_end(j);
	}
	json_array_end(j);
}

static void
help_entry_json(struct json *j, const struct cmd_entry *e)
{
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
	json_object_end(j);
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

/* A list of commands (all, a family, or one) in ctx's format. */
static void
help_list(struct cmd_ctx *ctx, const char *family, const struct cmd_entry *one)
{
	const struct cmd_entry *const *e;
	struct table *t;
	struct json j;

	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "help");
		json_key(&j, "commands");
		json_array_begin(&j);
		for (e = cmd_table; *e != NULL; e++)
			if (help_selected(*e, one, family))
				help_entry_json(&j, *e);
		json_array_end(&j);
		help_opts_json(&j, "common_options", cmd_common_opts);
		cmd_json_end(ctx, &j);
		return;
	}
	if (ctx->out.format == OUT_TABLE)
		strbuf_adds(ctx->o, family == NULL && one == NULL ?
		    "usage: cellar [OPTIONS] [COMMAND [ARGS...]]\n\n" : "");
	t = table_create();
	table_column(t, "COMMAND", "command", TABLE_NAME);
	table_column(t, "ALIAS", "alias", 0);
	table_column(t, "SUMMARY", "summary", 0);
	for (e = cmd_table; *e != NULL; e++) {
		if (!help_selected(*e, one, family))
			continue;
		table_row(t);
		table_cell(t, "%s", (*e)->name);
		table_cell(t, "%s", (*e)->alias ? (*e)->alias : "");
		table_cell(t, "%s", (*e)->summary);
	}
	table_render(t, &ctx->out, ctx->o);
	table_free(t);
	if (ctx->out.format == OUT_TABLE)
		strbuf_adds(ctx->o, "\nRun 'help COMMAND' or 'COMMAND --help' for a "
		    "command's options and examples,\nand see cellar(1) for global "
		    "options, batch mode and exit codes.\n");
}

int
cmd_help_write(struct cmd_ctx *ctx, const struct cmd_entry *e, const char *family)
{
	struct json j;

	if (e == NULL) {
		help_list(ctx, family, NULL);
		return 0;
	}
	switch (ctx->out.format) {
	case OUT_JSON:
		cmd_json_begin(ctx, &j, "help");
		json_key(&j, "commands");
		json_array_begin(&j);
		help_entry_json(&j, e);
		json_array_end(&j);
		help_opts_json(&j, "common_options", cmd_common_opts);
		cmd_json_end(ctx, &j);
		break;
	case OUT_NAME:
		strbuf_addf(ctx->o, "%s\n", e->name);
		break;
	case OUT_CSV:
		help_list(ctx, NULL, e);	/* the list's row for this command */
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
		return cmd_help_write(ctx, NULL, NULL);
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

static int
help_topic(struct cmd_ctx *ctx, int argc, char *const *argv, char **cause)
{
	const struct cmd_entry *e;
	char family[64];
	int nwords;

	/* "help node" or "help n": the family's commands. */
	if (argc == 1 && cmd_family_match(argv[0], family, sizeof family))
		return cmd_help_write(ctx, NULL, family);
	if ((e = cmd_find(argc, argv, &nwords, cause)) == NULL)
		return cmd_usage_error(ctx);
	if (nwords < argc) {
		*cause = xasprintf("unexpected argument '%s'", argv[nwords]);
		return cmd_usage_error(ctx);
	}
	return cmd_help_write(ctx, e, NULL);
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.alias = "?",
	.opts = NULL,
	.min = 0, .max = 2,
	.usage = "[COMMAND]",
	.summary = "list commands, or show one command's help",
	.help =
	    "Without COMMAND, list every command with its usage and summary "
	    "(-o name prints just the names). With COMMAND (a unique prefix is "
	    "enough, e.g. 'help node b'), show its usage, options, output "
	    "formats and examples. 'COMMAND --help' shows the same.",
	.examples = (const char *const []){
		"help",
		"help alloc",
		"help node",
		"help -o name",
		NULL },
	.flags = 0,
	.formats = OUT_ALL,
	.exec = help_exec,
};
