/*
 * fuzz-cmdline.c — the fuzz target of the command grammar: bytes in, through
 * the tokenizer (cmd/cmdline.c), the argument parser (cmd/args.c) and the
 * dispatcher (cmd/cmd.c) into every command, on a fresh session with the
 * default spec loaded. What it checks, beyond "no crash, no sanitizer
 * report, no leak":
 *
 *  1. every status is one of enum cmd_exit, and a failure has a cause;
 *  2. a command that writes json writes valid documents, one per line, and
 *     exactly one when it succeeds;
 *  3. the engine's invariants hold after every command (engine_check).
 *
 * A violation aborts, which the fuzzer reports as a crash. Built two ways:
 * with libFuzzer (`make fuzz`, clang -fsanitize=fuzzer) and with the
 * deterministic driver fuzz-main.c that `make check` runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "core/json.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Enough commands per input to reach interesting states, bounded. */
#define FUZZ_MAX_COMMANDS	64

/*
 * Commands that wait or touch files outside the session make no sense in
 * a fuzzer: watch waits, export writes FILE, import reads FILE, spec
 * import runs scontrol or reads and writes files (its parser has unit
 * tests on broken input, tspec-slurm), and a
 * CMD_LIVE command (submit, cancel, wait) starts real processes when the
 * spec loaded has a backend. Matched on the entry found. The state store is a throw-away :memory: database per
 * input (session_set_db below), so the store commands run, on it.
 */
static const char *const fuzz_skip[] = { "watch", "export", "import", "spec import",
    NULL };

static void
fuzz_fail(const char *what, const struct strvec *words, const char *detail)
{
	size_t i;

	fprintf(stderr, "fuzz-cmdline: %s:", what);
	for (i = 0; i < words->n; i++)
		fprintf(stderr, " [%s]", words->v[i]);
	fprintf(stderr, "\n  %s\n", detail ? detail : "");
	abort();
}

static bool
fuzz_skipped(const struct strvec *words)
{
	const struct cmd_entry *e;
	char *cause = NULL;
	int nwords, i;

	e = cmd_find((int)words->n, words->v, &nwords, &cause);
	free(cause);
	if (e != NULL && (e->flags & CMD_LIVE))
		return true;
	for (i = 0; e != NULL && fuzz_skip[i] != NULL; i++)
		if (strcmp(e->name, fuzz_skip[i]) == 0)
			return true;
	return false;
}

/* Invariant 2: each line a document, when the output is json. */
static void
fuzz_check_json(const struct strvec *words, const struct strbuf *out, bool ok)
{
	const char *line = out->buf, *nl;
	size_t len, end, n = 0;
	char *cause = NULL;

	if (ok && (out->len == 0 || strchr(out->buf, '\n') != out->buf + out->len - 1))
		fuzz_fail("a successful json command wrote no document or several",
		    words, out->buf);
	for (; *line != '\0' && n++ < 1000; line = nl + 1) {
		if ((nl = strchr(line, '\n')) == NULL)
			fuzz_fail("json output without a final newline", words, line);
		len = (size_t)(nl - line);
		if (json_validate(line, len, &end, &cause) != 0 || end != len)
			fuzz_fail("invalid json", words, cause ? cause : "trailing text");
	}
}

static void
fuzz_run(struct session *s, const struct strvec *words)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct cmd_result res;
	char why[256];
	int st;

	st = cmd_dispatch(s, (int)words->n, words->v, &out, &err, &res);
	if (st != CMD_EXIT_OK && st != CMD_EXIT_FAIL && st != CMD_EXIT_USAGE &&
	    st != CMD_EXIT_SPEC && st != CMD_EXIT_STORE)
		fuzz_fail("unexpected status", words, NULL);
	if ((st != CMD_EXIT_OK) != (res.cause != NULL))
		fuzz_fail("failure without a cause, or a cause without failure",
		    words, res.cause);
	if (res.format == OUT_JSON && res.entry != NULL)
		fuzz_check_json(words, &out, st == CMD_EXIT_OK);
	if (s->engine != NULL && !engine_check(s->engine, why, sizeof why))
		fuzz_fail("engine invariant broken", words, why);
	cmd_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&err);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	struct strbuf diags = STRBUF_INIT;
	struct cmdline cl;
	char *cause = NULL;
	size_t i;

	session_init(&s);
	session_set_db(&s, ":memory:");
	if (session_ensure(&s, &diags, &cause) != 0) {
		fprintf(stderr, "fuzz-cmdline: %s\n", cause);
		abort();
	}
	strbuf_release(&diags);
	cmdline_init(&cl);
	if (cmdline_parsen((const char *)data, size, &cl, NULL, &cause) == 0) {
		for (i = 0; i < cl.n && i < FUZZ_MAX_COMMANDS; i++)
			if (!fuzz_skipped(&cl.cmds[i]))
				fuzz_run(&s, &cl.cmds[i]);
	} else if (cause == NULL)
		abort();	/* an error always says why */
	free(cause);
	cmdline_release(&cl);
	session_release(&s);
	return 0;
}
