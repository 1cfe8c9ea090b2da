/*
 * tcmd-watch.c — unit tests of `watch` (cmd/cmd-watch.c) through the
 * dispatcher, with a fake front end that records what it is asked to do:
 * rounds, headers, screen clearing, sleeps, interrupts, failures shown and
 * stopped on, options passed to the watched command, and refusals.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/cmd.h"
#include "cmd/frontend.h"

struct fake {
	bool		interactive;
	int		interrupt_after;	/* sleeps before Ctrl-C; -1 never */
	int		sleeps, flushes, clears, reports;
	unsigned	last_ms;
	int		last_status;
	struct strbuf	out, err;
};

static void
fake_flush(const struct frontend *fe, struct strbuf *out, struct strbuf *err,
    bool clear)
{
	struct fake *f = fe->arg;

	f->flushes++;
	f->clears += clear;
	strbuf_add(&f->out, out->buf, out->len);
	strbuf_add(&f->err, err->buf, err->len);
	strbuf_reset(out);
	strbuf_reset(err);
}

static void
fake_report(const struct frontend *fe, const struct cmd_result *res)
{
	struct fake *f = fe->arg;

	f->reports++;
	f->last_status = res->status;
}

static bool
fake_interrupted(const struct frontend *fe)
{
	const struct fake *f = fe->arg;

	return f->interrupt_after >= 0 && f->sleeps >= f->interrupt_after;
}

static bool
fake_sleep(const struct frontend *fe, unsigned ms)
{
	struct fake *f = fe->arg;

	f->last_ms = ms;
	f->sleeps++;
	return !fake_interrupted(fe);
}

static void
fake_progress(const struct frontend *fe, const char *line)
{
	(void)fe;
	(void)line;
}

/* Run one line of words in a fresh session with a fake front end. */
static int
watch(struct fake *f, const char *line, struct cmd_result *res, bool with_fe)
{
	struct frontend fe = { .interactive = f->interactive, .flush = fake_flush,
	    .report = fake_report, .sleep = fake_sleep, .interrupted = fake_interrupted,
	    .progress = fake_progress, .arg = f };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct session s;
	char *copy = strdup(line), *argv[32], *w;
	int argc = 0, status;

	for (w = strtok(copy, " "); w != NULL && argc < 31; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc] = NULL;
	session_init(&s);
	session_set_db(&s, ":memory:");	/* never the user's store */
	if (with_fe)
		s.fe = &fe;
	status = cmd_dispatch(&s, argc, argv, &out, &err, res);
	/* watch writes through the front end only. */
	CHECK_INTEQ(out.len, 0);
	session_release(&s);
	strbuf_release(&out);
	strbuf_release(&err);
	free(copy);
	return status;
}

static void
fake_init(struct fake *f, bool interactive, int interrupt_after)
{
	memset(f, 0, sizeof *f);
	f->interactive = interactive;
	f->interrupt_after = interrupt_after;
	strbuf_init(&f->out);
	strbuf_init(&f->err);
}

static void
fake_release(struct fake *f)
{
	strbuf_release(&f->out);
	strbuf_release(&f->err);
}

static int
count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)) != NULL; hay++)
		n++;
	return n;
}

static void
test_count_rounds(void)
{
	struct cmd_result res;
	struct fake f;

	fake_init(&f, false, -1);
	CHECK_INTEQ(watch(&f, "watch -n 0 --count 3 -o json status", &res, true), 0);
	CHECK_INTEQ(f.flushes, 3);
	CHECK_INTEQ(f.sleeps, 2);		/* between rounds only */
	CHECK_INTEQ(f.last_ms, 0);
	CHECK_INTEQ(f.clears, 0);
	/* Not interactive: no header, one JSON document per run (-o passed on). */
	CHECK_INTEQ(count_of(f.out.buf, "\"kind\":\"status\""), 3);
	CHECK_INTEQ(count_of(f.out.buf, "watch:"), 0);
	CHECK_INTEQ(count_of(f.out.buf, "\n"), 3);
	cmd_result_release(&res);
	fake_release(&f);
}

static void
test_interactive_until_interrupt(void)
{
	struct cmd_result res;
	struct fake f;

	fake_init(&f, true, 4);
	CHECK_INTEQ(watch(&f, "watch -n 1.5 vcs", &res, true), CMD_EXIT_INTR);
	CHECK(res.reported);			/* nothing more to print */
	CHECK_INTEQ(f.flushes, 4);
	CHECK_INTEQ(f.clears, 4);
	CHECK_INTEQ(f.last_ms, 1500);
	CHECK(strstr(f.out.buf, "watch: vcs, every 1.5s, run 1 (Ctrl-C stops)") != NULL);
	CHECK(strstr(f.out.buf, "run 4 (") != NULL);
	CHECK(strstr(f.out.buf, "run 5 (") == NULL);
	CHECK_INTEQ(count_of(f.out.buf, "research"), 4);
	cmd_result_release(&res);
	fake_release(&f);
}

static void
test_default_interval(void)
{
	struct cmd_result res;
	struct fake f;

	fake_init(&f, true, 1);
	CHECK_INTEQ(watch(&f, "watch jobs", &res, true), CMD_EXIT_INTR);
	CHECK_INTEQ(f.last_ms, 2000);
	CHECK(strstr(f.out.buf, "every 2s") != NULL);
	cmd_result_release(&res);
	fake_release(&f);
}

static void
test_failures(void)
{
	struct cmd_result res;
	struct fake f;

	/* A failing run is shown and the next one goes on; its status stays. */
	fake_init(&f, false, -1);
	CHECK_INTEQ(watch(&f, "watch -n 0 --count 2 release nope", &res, true),
	    CMD_EXIT_FAIL);
	CHECK_INTEQ(f.reports, 2);
	CHECK(res.reported);
	cmd_result_release(&res);
	fake_release(&f);

	/* A usage error of the watched command stops at once. */
	fake_init(&f, false, -1);
	CHECK_INTEQ(watch(&f, "watch -n 0 --count 5 jobs --bogus", &res, true),
	    CMD_EXIT_USAGE);
	CHECK_INTEQ(f.reports, 1);
	CHECK_INTEQ(f.last_status, CMD_EXIT_USAGE);
	CHECK_INTEQ(f.sleeps, 0);
	cmd_result_release(&res);
	fake_release(&f);
}

static void
test_refusals(void)
{
	static const struct {
		const char	*line;
		bool		 interactive;
		const char	*cause;
	} cases[] = {
		{ "watch jobs", false, "give --count N when not on a terminal" },
		{ "watch -n 0.05 jobs", true, "needs --count" },
		{ "watch -n 2.5s jobs", true, "invalid --interval '2.5s'" },
		{ "watch -n .5 jobs", true, "invalid --interval" },
		{ "watch -n 5. jobs", true, "invalid --interval" },
		{ "watch -n 1.2345 jobs", true, "invalid --interval" },
		{ "watch -n 86401 jobs", true, "invalid --interval" },
		{ "watch --count 0 jobs", true, "--count" },
		{ "watch --count 2 bogus", true, "unknown command 'bogus'" },
		{ "watch --count 2 watch jobs", true, "cannot run 'watch'" },
		{ "watch --count 2", true, "missing argument" },
	};
	struct cmd_result res;
	struct fake f;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fake_init(&f, cases[i].interactive, -1);
		CHECKF(watch(&f, cases[i].line, &res, true) == CMD_EXIT_USAGE,
		    "[%s]: %d", cases[i].line, res.status);
		CHECKF(res.cause != NULL && strstr(res.cause, cases[i].cause) != NULL,
		    "[%s]: %s", cases[i].line, res.cause ? res.cause : "(null)");
		CHECK(!res.reported);
		CHECK_INTEQ(f.flushes, 0);
		cmd_result_release(&res);
		fake_release(&f);
	}
	/* Without a front end (a bare dispatcher) watch is refused. */
	fake_init(&f, true, -1);
	CHECK_INTEQ(watch(&f, "watch --count 1 jobs", &res, false), CMD_EXIT_FAIL);
	CHECK(res.cause != NULL && strstr(res.cause, "needs a front end") != NULL);
	cmd_result_release(&res);
	fake_release(&f);
}

static void
test_interval_edges(void)
{
	struct cmd_result res;
	struct fake f;

	fake_init(&f, true, 1);
	CHECK_INTEQ(watch(&f, "watch -n 0.125 status", &res, true), CMD_EXIT_INTR);
	CHECK_INTEQ(f.last_ms, 125);
	CHECK(strstr(f.out.buf, "every 0.125s") != NULL);
	cmd_result_release(&res);
	fake_release(&f);

	fake_init(&f, true, 1);
	CHECK_INTEQ(watch(&f, "watch -n 86400 status", &res, true), CMD_EXIT_INTR);
	CHECK_INTEQ(f.last_ms, 86400000);
	cmd_result_release(&res);
	fake_release(&f);
}

static const struct test tests[] = {
	{ "count-rounds", test_count_rounds },
	{ "interactive-until-interrupt", test_interactive_until_interrupt },
	{ "default-interval", test_default_interval },
	{ "failures", test_failures },
	{ "refusals", test_refusals },
	{ "interval-edges", test_interval_edges },
};

TEST_MAIN(tests)
