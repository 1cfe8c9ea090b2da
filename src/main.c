/*
 * main.c — argv and wiring; the only file that sees every layer.
 *
 * Global options are parsed with the same argument grammar as commands
 * (cmd/args.h). Then commands run in one of five ways, all through
 * cmd_dispatch with one session: one-shot (`cellar CMD ARGS`), -c strings
 * and -f files in the order given (tokenized by cmd/cmdline.h), commands on
 * stdin when it is not a terminal, the REPL (ui/repl.c) for `cellar repl`
 * (and a bare `cellar` whose output is not a terminal), or the dashboard
 * (ui/dash.c, through the dash command) for a bare `cellar` on a terminal.
 *
 * Batch mode stops at the first failing command unless --keep-going; the
 * exit status is the first failure's. The REPL goes on after failures and
 * exits with the last command's status, as a shell does (see enum cmd_exit
 * and cellar(1)).
 *
 * The runner is also the session's front end (cmd/frontend.h): it shows
 * output as watch produces it, sleeps, and turns SIGINT into a flag.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster/session-reconf.h"
#include "cluster/session.h"
#include "cmd/args.h"
#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/frontend.h"
#include "cmd/group.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "live/console.h"
#include "serve.h"
#include "ui/dash.h"
#include "ui/repl.h"

#define CELLAR_VERSION	"0.1.0"

#define MAIN_USAGE \
	"usage: cellar [-qk] [--spec FILE] [--mode MODE] [--db PATH] [-o FORMAT]\n" \
	"              [--no-header] [--no-color] [-c COMMANDS]... [-f FILE]...\n" \
	"              [repl | COMMAND [ARGS...]]\n"

static const struct cmd_opt global_opts[] = {
	{ 0, "spec", "FILE", "start with this spec instead of the embedded default", VALUE_SPEC },
	{ 0, "mode", "MODE", "sharing mode: hived (default), quota or private", VALUE_MODE },
	{ 0, "db", "PATH", "state store (also CELLAR_DB)", VALUE_FILE },
	{ 0, "socket", "PATH", "the store's server's socket (default: beside the "
	  "store; also CELLAR_SOCKET)", VALUE_FILE },
	{ 'o', "output", "FORMAT", "default output format: table, json, name or csv", VALUE_FORMAT },
	{ 0, "no-header", NULL, "omit header rows of table and csv output", VALUE_NONE },
	{ 0, "no-color", NULL, "no colour, even on a terminal (also NO_COLOR)", VALUE_NONE },
	{ 'q', "quiet", NULL, "discard command output; errors are still shown", VALUE_NONE },
	{ 'k', "keep-going", NULL, "in batch mode, run the remaining commands after a failure", VALUE_NONE },
	{ 'c', "command", "COMMANDS", "run these ';'-separated commands (repeatable)", VALUE_NONE },
	{ 'f', "file", "FILE", "run the commands in FILE, '-' for stdin (repeatable)", VALUE_FILE },
	{ 'V', "version", NULL, "print the version and exit", VALUE_NONE },
	{ 'h', "help", NULL, "print this help and exit", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
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
	struct frontend	fe;
	struct cmd_group group;		/* -c and -f FILE share commits */
	bool		lost;		/* a group did not commit: stop */
	bool		keep_going;
	int		status;		/* the first failure's exit status */
	int		last;		/* the last command's, for the REPL */
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

/* An input error (NUL byte, bad UTF-8, open quote): the line, not a command. */
static void
report_input(const char *where, const char *cause)
{
	struct cmd_result res = { .status = CMD_EXIT_FAIL, .cause = (char *)cause };
	struct strbuf sb = STRBUF_INIT;

	cmd_failure(&sb, where, &res);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

/* A failed command; a usage error shows the usage line, or the help hint
   when no command was found. */
static void
report(const char *where, const struct cmd_result *res)
{
	struct strbuf sb = STRBUF_INIT;

	cmd_failure(&sb, where, res);
	fputs(sb.buf, stderr);
	strbuf_release(&sb);
}

static void
fail(struct runner *r, int status)
{
	if (r->status == CMD_EXIT_OK)
		r->status = status;
}

/* ---- the front end (cmd/frontend.h) ---- */

static void
fe_flush(const struct frontend *fe, struct strbuf *out, struct strbuf *err,
    bool clear_screen)
{
	const struct runner *r = fe->arg;

	/* ANSI home + erase display: every terminal emulator in use knows it. */
	if (clear_screen && isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	if (!r->sess.quiet && out->len > 0)
		fwrite(out->buf, 1, out->len, stdout);
	fflush(stdout);
	if (err->len > 0)
		fwrite(err->buf, 1, err->len, stderr);
	strbuf_reset(out);
	strbuf_reset(err);
}

static void
fe_report(const struct frontend *fe, const struct cmd_result *res)
{
	(void)fe;
	report("", res);
}

static bool
fe_sleep(const struct frontend *fe, unsigned ms)
{
	struct timespec ts;

	(void)fe;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	/* SIGINT has no SA_RESTART: nanosleep returns early with EINTR. */
	while (!interrupted && nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
	return !interrupted;
}

static bool
fe_interrupted(const struct frontend *fe)
{
	(void)fe;
	return interrupted != 0;
}

/*
 * The progress of a long run (sim-run.c calls it every 0.2 s or so once
 * a run has gone 0.8 s; dash --follow's wait for a store at once; NULL
 * ends it). On a terminal a transient line as it comes. Else (a log, a
 * pipe) a plain line every CELLAR_PROGRESS_EVERY seconds (default 5; 0:
 * every call), so a long run in a batch job is not silent.
 */
static void
fe_progress(const struct frontend *fe, const char *line)
{
	static struct timespec last;
	static bool running, shown;
	struct timespec now;
	const char *v = getenv("CELLAR_PROGRESS_EVERY");
	double every = v != NULL && *v != '\0' ? atof(v) : 5;
	bool tty = isatty(STDERR_FILENO);

	(void)fe;
	if (line == NULL) {
		if (tty && shown)
			fprintf(stderr, "\r\033[K");
		running = shown = false;
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!running) {
		running = true;
		last = now;
		if (!tty && every > 0)
			return;
	}
	if (tty) {
		fprintf(stderr, "\r\033[K%s", line);
		shown = true;
	} else {
		if (every > 0 && (double)(now.tv_sec - last.tv_sec) +
		    (double)(now.tv_nsec - last.tv_nsec) / 1e9 < every)
			return;
		last = now;
		fprintf(stderr, "progress: %s\n", line);
	}
	fflush(stderr);
}

/* The terminal's size, when standard output is one (plot). */
static bool
fe_term_size(const struct frontend *fe, int *cols, int *rows)
{
	struct winsize ws;

	(void)fe;
	if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
		return false;
	*cols = ws.ws_col;
	*rows = ws.ws_row;
	return true;
}

/* The terminal dashboard (ui/dash.c) for the dash command. */
static int
fe_dashboard(const struct frontend *fe, struct dash_model *m, struct dash_view *v,
    char **cause)
{
	(void)fe;
	return dash_tui_run(m, v, &interrupted, cause);
}

/* A command's output and verdict, once its writes are committed. */
static void
group_emit(void *arg, void *tag, struct strbuf *out, struct strbuf *err,
    struct cmd_result *res)
{
	struct runner *r = arg;

	fe_flush(&r->fe, out, err, false);
	if (res->status != CMD_EXIT_OK) {
		report(tag, res);
		fail(r, res->status);
	}
	r->last = res->status;
	free(tag);
}

/* The group's commit failed: this command is not recorded either. */
static void
group_lost(void *arg, void *tag, const struct cmd_result *res, const char *cause)
{
	struct runner *r = arg;

	(void)res;
	fprintf(stderr, "cellar: %s%s (not recorded: the commands since the "
	    "last commit are lost)\n", (const char *)tag, cause);
	fail(r, CMD_EXIT_STORE);
	r->last = CMD_EXIT_STORE;
	r->lost = true;
	free(tag);
}

static const struct cmd_group_ops group_ops = { group_emit, group_lost };

/* Run one command given as words; returns its exit status. */
static int
run_words(struct runner *r, int argc, char *const *argv, const char *where)
{
	return cmd_group_dispatch(&r->group, argc, argv, xstrdup(where));
}

/* Commit what the group holds and stop grouping; -1 when it was lost. */
static int
runner_commit(struct runner *r)
{
	r->group.enabled = false;
	return cmd_group_close(&r->group, NULL) == 0 && !r->lost ? 0 : -1;
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
		report_input(where, res.cause);
		free(res.cause);
		fail(r, CMD_EXIT_USAGE);
		r->last = CMD_EXIT_USAGE;
		return r->keep_going ? 0 : -1;
	}
	for (i = 0; i < cl.n && rc == 0; i++) {
		if (run_words(r, (int)cl.cmds[i].n, cl.cmds[i].v, where) != 0 &&
		    !r->keep_going)
			rc = -1;
		if (interrupted || r->lost)
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
run_stream(struct runner *r, FILE *fp, const char *name)
{
	struct strbuf stmt = STRBUF_INIT;
	char *line = NULL, where[64];
	size_t cap = 0, lineno = 0, first = 0;
	ssize_t n;
	bool incomplete = false;
	int rc = 0;
	struct stat sb;

	/* a file's commands share commits (group.h); a pipe's or a
	   terminal's may wait for their next line: each commits alone */
	r->group.enabled = fstat(fileno(fp), &sb) == 0 && S_ISREG(sb.st_mode);
	for (;;) {
		errno = 0;
		if ((n = getline(&line, &cap, fp)) < 0)
			break;
		lineno++;
		if (stmt.len == 0)
			first = lineno;
		else
			strbuf_addc(&stmt, '\n');
		/* The tokenizer sees the newline as a separator; strip ours. */
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		strbuf_add(&stmt, line, (size_t)n);
		snprintf(where, sizeof where, "line %zu: ", first);
		rc = run_text(r, stmt.buf, stmt.len, where, &incomplete);
		if (incomplete)
			continue;
		strbuf_reset(&stmt);
		if (rc != 0 || interrupted || r->lost)
			break;
	}
	if (runner_commit(r) != 0)
		rc = -1;
	if (rc == 0 && incomplete && !interrupted) {
		snprintf(where, sizeof where, "line %zu: ", first);
		report_input(where, "unexpected end of input (unterminated quote "
		    "or trailing backslash)");
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

/* The REPL's hook: run what was typed; -1 when nothing ran. */
static int
repl_run_text(void *arg, const char *text, bool *more)
{
	struct runner *r = arg;

	r->last = -1;
	run_text(r, text, strlen(text), "", more);
	if (interrupted && r->last >= 0)
		r->last = CMD_EXIT_INTR;	/* the rest of the line was skipped */
	return *more ? -1 : r->last;
}

/* While the REPL waits for a key: the live jobs' loop, if there are any. */
static int
repl_idle(void *arg, int fd)
{
	struct runner *r = arg;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char *cause = NULL;
	int rc;

	/* halted: said once when it happened; input is read blocking */
	if (r->sess.console == NULL || console_halted(r->sess.console) != NULL)
		return -1;
	rc = console_wait(r->sess.console, 250, fd, &cause);
	if (rc < 0) {
		fprintf(stderr, "\ncellar: %s\n", cause);
		free(cause);
		/* the store failed: block on input rather than spin */
		return poll(&p, 1, 1000) > 0 ? 1 : 0;
	}
	return rc;
}

/*
 * A spec with a backend: the live loop starts with the REPL, so health
 * polls run and a recovered run's live jobs are taken over at once.
 */
static void
start_live(struct runner *r)
{
	struct console *c;
	char *cause = NULL;
	const char *notes;

	if (r->sess.spec == NULL || r->sess.spec->backend.type == SPEC_BACKEND_EMULATOR)
		return;
	if (session_remote(&r->sess, &cause) == 1) {
		fprintf(stderr, "cellar: attached to the cellar server (pid %ld)\n",
		    r->sess.remote_pid);
		return;
	}
	free(cause);
	cause = NULL;
	if (console_get(&r->sess, &c, &cause) != 0) {
		fprintf(stderr, "cellar: %s\n", cause);
		free(cause);
		return;
	}
	if ((notes = console_notes(c)) != NULL)
		fputs(notes, stderr);
}

/* The REPL, on the session loaded first so completion knows its names. */
static void
run_repl(struct runner *r)
{
	struct repl cfg = { &r->sess, CELLAR_VERSION, repl_run_text, r, repl_idle,
	    &interrupted };
	struct strbuf diags = STRBUF_INIT;
	char *cause = NULL;

	r->fe.interactive = isatty(STDIN_FILENO) != 0;
	if (session_ensure(&r->sess, &diags, &cause) != 0) {
		fputs(diags.buf, stderr);
		fprintf(stderr, "cellar: %s\n", cause);
		free(cause);
		r->status = CMD_EXIT_SPEC;
	} else {
		if (!r->sess.quiet)
			fputs(diags.buf, stderr);
		start_live(r);
		r->status = repl_run(&cfg);
	}
	strbuf_release(&diags);
}

static int
run_file(struct runner *r, const char *path)
{
	FILE *fp;
	int rc;

	if (strcmp(path, "-") == 0)
		return run_stream(r, stdin, "-");
	if ((fp = fopen(path, "r")) == NULL) {
		fprintf(stderr, "cellar: cannot open '%s': %s\n", path, strerror(errno));
		fail(r, CMD_EXIT_FAIL);
		return -1;
	}
	rc = run_stream(r, fp, path);
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

/* Apply the global options to the session; -1 with *cause on a usage error. */
static int
apply_globals(struct runner *r, const struct args *a, char **cause)
{
	const char *v;
	int m;

	if ((v = args_get(a, "output")) != NULL) {
		if ((m = out_format_parse(v)) < 0) {
			*cause = xasprintf("unknown output format '%s' "
			    "(table, json, name, csv)", v);
			return -1;
		}
		r->sess.out.format = (enum out_format)m;
	}
	if ((v = args_get(a, "mode")) != NULL) {
		if ((m = engine_mode_parse(v)) < 0) {
			*cause = engine_mode_unknown(v);
			return -1;
		}
		r->sess.mode = (enum engine_mode)m;
	}
	if ((v = args_get(a, "db")) == NULL && (v = getenv("CELLAR_DB")) != NULL &&
	    *v == '\0')
		v = NULL;
	session_set_db(&r->sess, v);
	if ((v = args_get(a, "socket")) == NULL && (v = getenv("CELLAR_SOCKET")) != NULL &&
	    *v == '\0')
		v = NULL;
	free(r->sess.socket_path);
	r->sess.socket_path = v != NULL ? xstrdup(v) : NULL;
	r->sess.out.header = !args_has(a, "no-header");
	r->sess.out.color = want_color(a);
	r->sess.quiet = args_has(a, "quiet");
	r->keep_going = args_has(a, "keep-going");
	if ((args_has(a, "command") || args_has(a, "file")) && args_count(a) > 0) {
		*cause = xasprintf("unexpected command '%s' after -c or -f",
		    args_value(a, 0));
		return -1;
	}
	if (args_count(a) > 1 && strcmp(args_value(a, 0), "repl") == 0) {
		*cause = xasprintf("unexpected argument '%s' after 'repl'",
		    args_value(a, 1));
		return -1;
	}
	return 0;
}

/*
 * --spec: load it before any command; a bad spec ends the run (status 3).
 * When the store holds a running session run on another spec or mode, the
 * run is recovered and reconfigured onto this one (as `load` would,
 * without --force), its decisions reported on stderr; on the same spec it
 * is only recovered.
 */
static int
load_spec(struct runner *r, const char *path)
{
	struct strbuf diags = STRBUF_INIT;
	struct session_reconf rc;
	char *cause = NULL;
	int status = CMD_EXIT_SPEC;

	/* a server owns the store's run: the spec is this process's only,
	   for what runs here (replay, dash --once); the server's is changed
	   with load */
	if (session_remote(&r->sess, &cause) == 1) {
		if (session_load(&r->sess, path, r->sess.mode, &diags, NULL,
		    &cause) != 0) {
			fputs(diags.buf, stderr);
			fprintf(stderr, "cellar: %s\n", cause);
			free(cause);
			strbuf_release(&diags);
			r->status = CMD_EXIT_SPEC;
			return -1;
		}
		if (!r->sess.quiet)
			fputs(diags.buf, stderr);
		strbuf_release(&diags);
		return 0;
	}
	free(cause);
	cause = NULL;

	if (session_reconfigure(&r->sess, path, r->sess.mode,
	    SESSION_RECONF_IF_CHANGED, &diags, &rc, &status, &cause) != 0) {
		fputs(diags.buf, stderr);
		fprintf(stderr, "cellar: %s%s\n", cause, status == CMD_EXIT_FAIL ?
		    " (with 'load --force FILE')" : "");
		free(cause);
		strbuf_release(&diags);
		r->status = status;
		return -1;
	}
	/* Warnings about the spec still deserve a look. */
	if (!r->sess.quiet) {
		session_reconf_report(&rc, &diags);
		fputs(diags.buf, stderr);
	}
	session_reconf_release(&rc);
	strbuf_release(&diags);
	return 0;
}

/* -c and -f, in the order given, in one session. */
static void
run_scripts(struct runner *r, const struct args *a)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < args_nopts(a) && rc == 0 && !interrupted; i++) {
		const char *name = args_opt_name(a, i), *val = args_opt_value(a, i);

		if (strcmp(name, "command") == 0) {
			r->group.enabled = true;
			rc = run_text(r, val, strlen(val), "", NULL);
			if (runner_commit(r) != 0)
				rc = -1;
		}
		else if (strcmp(name, "file") == 0)
			rc = run_file(r, val);
	}
}

/* `serve`'s loop, for the command layer below (cmd.h: cmd_serve_loop). */
static int
serve_loop(struct session *s, const char *spec, const char *db,
    const char *socket, char **cause)
{
	struct serve_opts o = { spec, db, socket };

	return serve_run(s, &o, cause);
}

int
main(int argc, char **argv)
{
	const struct cmd_opt *tables[] = { global_opts, NULL };
	struct runner r;
	struct sigaction sa;
	struct args *a;
	char *cause = NULL;
	const char *spec;

	memset(&r, 0, sizeof r);
	cmd_serve_loop = serve_loop;
	session_init(&r.sess);
	cmd_group_init(&r.group, &r.sess, &group_ops, &r);
	r.fe = (struct frontend){ .interactive = false, .flush = fe_flush,
	    .report = fe_report, .sleep = fe_sleep, .interrupted = fe_interrupted,
	    .progress = fe_progress, .dashboard = fe_dashboard,
	    .term_size = fe_term_size, .arg = &r };
	r.sess.fe = &r.fe;
	r.sess.stop = &interrupted;

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
	if (apply_globals(&r, a, &cause) != 0) {
		args_free(a);
		session_release(&r.sess);
		return usage_error(cause);
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;	/* no SA_RESTART: reads return EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);

	if ((spec = args_get(a, "spec")) != NULL && load_spec(&r, spec) != 0)
		goto out;
	if (args_has(a, "command") || args_has(a, "file"))
		run_scripts(&r, a);
	else if (args_count(a) == 1 && strcmp(args_value(a, 0), "repl") == 0)
		run_repl(&r);
	else if (args_count(a) > 0) {
		/* A person at a terminal may watch a one-shot command. */
		r.fe.interactive = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
		run_words(&r, args_count(a), args_argv(a), "");
	} else if (!isatty(STDIN_FILENO))
		run_stream(&r, stdin, "-");
	else if (!isatty(STDOUT_FILENO))
		run_repl(&r);	/* typed at, read elsewhere: lines, not a screen */
	else {
		char *const dash_argv[] = { (char *)"dash", NULL };

		r.fe.interactive = true;
		run_words(&r, 1, dash_argv, "");
	}

	if (interrupted) {
		fputs("cellar: interrupted\n", stderr);
		r.status = CMD_EXIT_INTR;
	}
out:
	args_free(a);
	runner_commit(&r);
	cmd_group_release(&r.group, NULL);
	session_release(&r.sess);
	if (fflush(stdout) != 0 && r.status == CMD_EXIT_OK)
		r.status = CMD_EXIT_FAIL;
	return r.status;
}
