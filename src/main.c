/*
 * main.c — argv and wiring; the only file that sees every layer.
 *
 * Global options are parsed with the same argument grammar as commands
 * (cmd/args.h). Then commands run in one of four ways, all through
 * cmd_dispatch with one session: one-shot (`cellar CMD ARGS`), -c strings
 * and -f files in the order given (tokenized by cmd/cmdline.h), commands on
 * stdin when it is not a terminal, or a minimal read-eval loop on a terminal
 * (the libedit REPL replaces it later, with the same dispatcher).
 *
 * Batch mode stops at the first failing command unless --keep-going; the
 * exit status is the first failure's (see enum cmd_exit and cellar(1)).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/args.h"
#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/session.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"

#define CELLAR_VERSION	"0.1.0"

#define MAIN_USAGE \
	"usage: cellar [-qk] [--spec FILE] [--mode MODE] [-o FORMAT] [--no-header]\n" \
	"              [--no-color] [-c COMMANDS]... [-f FILE]... [COMMAND [ARGS...]]\n"

static const struct cmd_opt global_opts[] = {
	{ 0, "spec", "FILE", "start with this spec instead of the embedded default" },
	{ 0, "mode", "MODE", "sharing mode: hived (default), quota or private" },
	{ 'o', "output", "FORMAT", "default output format: table, json, name or csv" },
	{ 0, "no-header", NULL, "omit header rows of table and csv output" },
	{ 0, "no-color", NULL, "no colour, even on a terminal (also NO_COLOR)" },
	{ 'q', "quiet", NULL, "discard command output; errors are still shown" },
	{ 'k', "keep-going", NULL, "in batch mode, run the remaining commands after a failure" },
	{ 'c', "command", "COMMANDS", "run these ';'-separated commands (repeatable)" },
	{ 'f', "file", "FILE", "run the commands in FILE, '-' for stdin (repeatable)" },
	{ 'V', "version", NULL, "print the version and exit" },
	{ 'h', "help", NULL, "print this help and exit" },
	{ 0, NULL, NULL, NULL }
};

static volatile sig_atomic_t interrupted;

static void
on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct runner {
	struct session	sess;
	bool		keep_going;
	int		status;		/* the first failure's exit status */
};

/* Messages echo what the user typed: keep control bytes off the terminal. */
static void
add_printable(struct strbuf *sb, const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			strbuf_addf(sb, "\\x%02x", (unsigned char)*s);
		else
			strbuf_addc(sb, *s);
}

/* Print "cellar: [where]message" and, for usage errors, the usage line. */
static void
report(const char *where, const struct cmd_result *res)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "cellar: %s", where);
	add_printable(&sb, res->cause ? res->cause : "failed");
	strbuf_addc(&sb, '\n');
	if (res->status == CMD_EXIT_USAGE) {
		if (res->entry != NULL)
			cmd_usage(&sb, res->entry);
		else
			strbuf_adds(&sb, "run 'help' for the list of commands\n");
	}
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

static void
fail(struct runner *r, int status)
{
	if (r->status == CMD_EXIT_OK)
		r->status = status;
}

/* Run one command given as words; returns its exit status. */
static int
run_words(struct runner *r, int argc, char *const *argv, const char *where)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct cmd_result res;
	int status;

	status = cmd_dispatch(&r->sess, argc, argv, &out, &err, &res);
	if (!r->sess.quiet && out.len > 0) {
		fwrite(out.buf, 1, out.len, stdout);
	}
	fflush(stdout);
	if (err.len > 0)
		fwrite(err.buf, 1, err.len, stderr);
	if (status != CMD_EXIT_OK) {
		report(where, &res);
		fail(r, status);
	}
	cmd_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&err);
	return status;
}

/*
 * Tokenize and run text. Returns 0 to go on, -1 to stop (a failure without
 * --keep-going, or an interrupt). *incomplete asks the caller for more.
 */
static int
run_text(struct runner *r, const char *text, size_t len, const char *where,
    bool *incomplete)
{
	struct cmdline cl;
	struct cmd_result res = { .status = CMD_EXIT_USAGE };
	size_t i;
	int rc = 0;

	cmdline_init(&cl);
	/* The length, not strlen: a NUL byte in the input is an error. */
	if (cmdline_parsen(text, len, &cl, incomplete, &res.cause) != 0) {
		if (incomplete != NULL && *incomplete) {
			free(res.cause);
			return 0;
		}
		report(where, &res);
		free(res.cause);
		fail(r, CMD_EXIT_USAGE);
		return r->keep_going ? 0 : -1;
	}
	for (i = 0; i < cl.n && rc == 0; i++) {
		if (run_words(r, (int)cl.cmds[i].n, cl.cmds[i].v, where) != 0 &&
		    !r->keep_going)
			rc = -1;
		if (interrupted)
			rc = -1;
	}
	cmdline_release(&cl);
	return rc;
}

/*
 * Run a script: FILE or stdin. Lines that end inside quotes or after a
 * backslash continue on the next line; errors name the first line of the
 * command ("line 3: ..."). Returns 0 to go on, -1 to stop.
 */
static int
run_stream(struct runner *r, FILE *fp, const char *name, bool interactive)
{
	struct strbuf stmt = STRBUF_INIT;
	char *line = NULL, where[64];
	size_t cap = 0, lineno = 0, first = 0;
	ssize_t n;
	bool incomplete = false;
	int rc = 0;

	for (;;) {
		/* Prompts go to stderr, so that stdout can be redirected. */
		if (interactive)
			fputs(stmt.len ? "> " : "cellar> ", stderr);
		errno = 0;
		n = getline(&line, &cap, fp);
		if (n < 0) {
			if (interrupted && interactive) {
				/* Ctrl-C at the prompt drops the line, as a shell does. */
				interrupted = 0;
				clearerr(fp);
				strbuf_reset(&stmt);
				fputc('\n', stderr);
				continue;
			}
			break;
		}
		lineno++;
		if (stmt.len == 0)
			first = lineno;
		else
			strbuf_addc(&stmt, '\n');
		/* The tokenizer sees the newline as a separator; strip ours. */
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		strbuf_add(&stmt, line, (size_t)n);
		if (interactive)
			where[0] = '\0';
		else
			snprintf(where, sizeof where, "line %zu: ", first);
		rc = run_text(r, stmt.buf, stmt.len, where, &incomplete);
		if (incomplete)
			continue;
		strbuf_reset(&stmt);
		if (interrupted && !interactive)
			break;
		if (interactive)
			interrupted = 0, rc = 0;
		if (rc != 0)
			break;
	}
	if (interactive)
		fputc('\n', stderr);
	if (rc == 0 && incomplete && !interrupted) {
		struct cmd_result res = { .status = CMD_EXIT_USAGE };

		snprintf(where, sizeof where, "line %zu: ", first);
		res.cause = xstrdup("unexpected end of input (unterminated quote "
		    "or trailing backslash)");
		report(where, &res);
		free(res.cause);
		fail(r, CMD_EXIT_USAGE);
		rc = -1;
	}
	if (rc == 0 && ferror(fp) && !interrupted) {
		fprintf(stderr, "cellar: cannot read '%s': %s\n", name, strerror(errno));
		fail(r, CMD_EXIT_FAIL);
		rc = -1;
	}
	free(line);
	strbuf_release(&stmt);
	return rc;
}

static int
run_file(struct runner *r, const char *path)
{
	FILE *fp;
	int rc;

	if (strcmp(path, "-") == 0)
		return run_stream(r, stdin, "-", false);
	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, "cellar: cannot open '%s': %s\n", path, strerror(errno));
		fail(r, CMD_EXIT_FAIL);
		return -1;
	}
	rc = run_stream(r, fp, path, false);
	fclose(fp);
	return rc;
}

static void
print_help(struct runner *r)
{
	const struct cmd_opt *o;
	char *const help_argv[] = { (char *)"help", NULL };
	struct strbuf sb = STRBUF_INIT;

	fputs(MAIN_USAGE, stdout);
	fputs("\nA console for operators of shared GPU clusters, with a HiveD-style "
	    "cell allocator.\n\nglobal options:\n", stdout);
	for (o = global_opts; o->name != NULL; o++) {
		strbuf_reset(&sb);
		if (o->short_name)
			strbuf_addf(&sb, "-%c, ", o->short_name);
		strbuf_addf(&sb, "--%s%s%s", o->name, o->value ? " " : "",
		    o->value ? o->value : "");
		printf("  %-22s %s\n", sb.buf, o->help);
	}
	strbuf_release(&sb);
	fputs("\n", stdout);
	fflush(stdout);
	run_words(r, 1, help_argv, "");
}

static bool
want_color(const struct args *a)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (args_has(a, "no-color") || (nc != NULL && *nc != '\0'))
		return false;
	if (term != NULL && strcmp(term, "dumb") == 0)
		return false;
	return isatty(STDOUT_FILENO) != 0;
}

static int
usage_error(char *cause)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_adds(&sb, "cellar: ");
	add_printable(&sb, cause);
	fprintf(stderr, "%s\n%s", sb.buf, MAIN_USAGE);
	strbuf_release(&sb);
	free(cause);
	return CMD_EXIT_USAGE;
}

int
main(int argc, char **argv)
{
	const struct cmd_opt *tables[] = { global_opts, NULL };
	struct runner r;
	struct sigaction sa;
	struct args *a;
	char *cause = NULL;
	const char *v;
	bool scripted = false;
	size_t i;
	int m;

	memset(&r, 0, sizeof r);
	session_init(&r.sess);

	a = args_parse(tables, 0, -1, ARGS_STOP_AT_POSITIONAL, argc - 1, argv + 1, &cause);
	if (a == NULL)
		return usage_error(cause);
	if (args_has(a, "help")) {
		print_help(&r);
		goto out;
	}
	if (args_has(a, "version")) {
		printf("cellar %s\n", CELLAR_VERSION);
		goto out;
	}
	if ((v = args_get(a, "output")) != NULL) {
		if ((m = out_format_parse(v)) < 0) {
			cause = xasprintf("unknown output format '%s' "
			    "(table, json, name, csv)", v);
			args_free(a);
			return usage_error(cause);
		}
		r.sess.out.format = (enum out_format)m;
	}
	if ((v = args_get(a, "mode")) != NULL) {
		if ((m = engine_mode_parse(v)) < 0) {
			cause = xasprintf("unknown mode '%s' (hived, quota, private)", v);
			args_free(a);
			return usage_error(cause);
		}
		r.sess.mode = (enum engine_mode)m;
	}
	r.sess.out.header = !args_has(a, "no-header");
	r.sess.out.color = want_color(a);
	r.sess.quiet = args_has(a, "quiet");
	r.keep_going = args_has(a, "keep-going");
	scripted = args_has(a, "command") || args_has(a, "file");
	if (scripted && args_count(a) > 0) {
		cause = xasprintf("unexpected command '%s' after -c or -f",
		    args_value(a, 0));
		args_free(a);
		return usage_error(cause);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;	/* no SA_RESTART: reads return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);

	if ((v = args_get(a, "spec")) != NULL) {
		struct strbuf diags = STRBUF_INIT;

		if (session_load(&r.sess, v, r.sess.mode, &diags, NULL, &cause) != 0) {
			fputs(diags.buf, stderr);
			fprintf(stderr, "cellar: %s\n", cause);
			free(cause);
			strbuf_release(&diags);
			r.status = CMD_EXIT_SPEC;
			goto out;
		}
		/* Warnings about the spec still deserve a look. */
		if (!r.sess.quiet)
			fputs(diags.buf, stderr);
		strbuf_release(&diags);
	}

	if (scripted) {
		for (i = 0; i < args_nopts(a); i++) {
			const char *name = args_opt_name(a, i), *val = args_opt_value(a, i);
			int rc = 0;

			if (strcmp(name, "command") == 0)
				rc = run_text(&r, val, strlen(val), "", NULL);
			else if (strcmp(name, "file") == 0)
				rc = run_file(&r, val);
			if (rc != 0 || interrupted)
				break;
		}
	} else if (args_count(a) > 0)
		run_words(&r, args_count(a), args_argv(a), "");
	else if (!isatty(STDIN_FILENO))
		run_stream(&r, stdin, "-", false);
	else
		run_stream(&r, stdin, "-", true);

	if (interrupted) {
		fputs("cellar: interrupted\n", stderr);
		r.status = CMD_EXIT_INTR;
	}
out:
	args_free(a);
	session_release(&r.sess);
	if (fflush(stdout) != 0 && r.status == CMD_EXIT_OK)
		r.status = CMD_EXIT_FAIL;
	return r.status;
}
