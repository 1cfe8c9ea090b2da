/*
 * cmd-watch.c — `watch`: run a command again and again, like watch(1). It is
 * a front-end command (CMD_FRONTEND): the rounds go through cmd_dispatch as
 * any command does, but showing each round, waiting between rounds and
 * noticing Ctrl-C are the face's business (cmd/frontend.h), so this file
 * only holds the loop and its rules.
 *
 * Rules:
 *  1. Options before COMMAND are watch's; -o and --no-header given there
 *     apply to COMMAND. Everything from COMMAND on is COMMAND's.
 *  2. On a terminal watch runs until interrupted, clearing the screen and
 *     printing a header line before each round; elsewhere it needs --count
 *     and rounds simply follow each other (stdout stays machine-readable).
 *  3. A failing round is shown and the next one runs; a usage error stops at
 *     once, since the next round would fail the same way.
 *  4. The status is the last round's, or 130 when interrupted; failures are
 *     already shown, so watch reports nothing more.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/frontend.h"
#include "core/xmalloc.h"

#define WATCH_DEFAULT_MS	2000
#define WATCH_MIN_MS		100		/* unless --count bounds the rounds */
#define WATCH_MAX_MS		86400000u	/* a day */

static const struct cmd_opt watch_opts[] = {
	{ 'n', "interval", "SECONDS", "seconds between runs (default 2, decimals allowed)", VALUE_NONE },
	{ 0, "count", "N", "stop after N runs (required outside a terminal)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* "2", "0.5", "1.25" seconds -> milliseconds; -1 with *cause if malformed. */
static int
watch_interval(const char *s, unsigned *ms, char **cause)
{
	unsigned long long v = 0;
	const char *p = s;
	int frac = -1, i;	/* decimals seen, -1 before the point */

	for (; *p != '\0'; p++) {
		if (*p == '.' && frac < 0 && p != s) {
			frac = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || frac >= 3 || v > WATCH_MAX_MS)
			break;
		v = v * 10 + (unsigned)(*p - '0');
		if (frac >= 0)
			frac++;
	}
	for (i = frac < 0 ? 0 : frac; i < 3; i++)
		v *= 10;		/* to milliseconds */
	if (*p != '\0' || p == s || p[-1] == '.' || v > WATCH_MAX_MS) {
		*cause = xasprintf("invalid --interval '%s' (seconds, 0 to 86400, "
		    "up to 3 decimals)", s);
		return -1;
	}
	*ms = (unsigned)v;
	return 0;
}

/* Milliseconds as seconds for the header: "2s", "0.5s". */
static void
watch_add_seconds(struct strbuf *sb, unsigned ms)
{
	strbuf_addf(sb, "%u", ms / 1000);
	if (ms % 1000 != 0) {
		char frac[8];
		size_t n;

		snprintf(frac, sizeof frac, "%03u", ms % 1000);
		for (n = strlen(frac); n > 0 && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		strbuf_addf(sb, ".%s", frac);
	}
	strbuf_addc(sb, 's');
}

/* Check watch's own options and its COMMAND before the first round. */
static int
watch_setup(struct cmd_ctx *ctx, const struct args *a, unsigned *ms,
    long long *count, char **cause)
{
	const struct frontend *fe = ctx->sess->fe;
	const struct cmd_entry *inner;
	const char *v;
	int nwords;

	*ms = WATCH_DEFAULT_MS;
	*count = 0;
	if ((v = args_get(a, "interval")) != NULL && watch_interval(v, ms, cause) != 0)
		return -1;
	if (args_has(a, "count")) {
		*count = args_strtonum(a, "count", 1, 1000000, cause);
		if (*cause != NULL)
			return -1;
	}
	if (*count == 0 && !fe->interactive) {
		*cause = xstrdup("command 'watch' runs until interrupted: give "
		    "--count N when not on a terminal");
		return -1;
	}
	if (*count == 0 && *ms < WATCH_MIN_MS) {
		*cause = xstrdup("an --interval under 0.1 seconds needs --count");
		return -1;
	}
	inner = cmd_find(args_count(a), args_argv(a), &nwords, cause);
	if (inner == NULL)
		return -1;
	if (inner->flags & CMD_FRONTEND) {
		*cause = xasprintf("command 'watch' cannot run '%s'", inner->name);
		return -1;
	}
	return 0;
}

static int
watch_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct frontend *fe = ctx->sess->fe;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, what = STRBUF_INIT;
	struct out_opts saved = ctx->sess->out;
	struct cmd_result res;
	long long count, round;
	unsigned ms;
	int status = CMD_EXIT_OK;

	if (watch_setup(ctx, a, &ms, &count, cause) != 0)
		return cmd_usage_error(ctx);
	cmdline_join(&what, args_count(a), args_argv(a));
	ctx->sess->out = ctx->out;	/* rule 1 */
	for (round = 1;; round++) {
		if (fe->interactive) {
			strbuf_addf(&out, "watch: %s, every ", what.buf);
			watch_add_seconds(&out, ms);
			strbuf_addf(&out, ", run %lld (Ctrl-C stops)\n\n", round);
		}
		status = cmd_dispatch(ctx->sess, args_count(a), args_argv(a), &out,
		    &err, &res);
		fe->flush(fe, &out, &err, fe->interactive);
		if (status != CMD_EXIT_OK && !res.reported)
			fe->report(fe, &res);
		cmd_result_release(&res);
		if (status == CMD_EXIT_USAGE || (count > 0 && round >= count))
			break;
		if (fe->interrupted(fe) || !fe->sleep(fe, ms)) {
			status = CMD_EXIT_INTR;
			break;
		}
	}
	ctx->sess->out = saved;
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&what);
	if (status == CMD_EXIT_OK)
		return 0;
	ctx->status = status;		/* rule 4 */
	ctx->reported = true;
	return -1;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.opts = watch_opts,
	.min = 1, .max = -1,
	.arg_kind = VALUE_CMDLINE,
	.usage = "[-n SECONDS] [--count N] COMMAND [ARGS...]",
	.summary = "run a command every few seconds until interrupted",
	.help =
	    "Run COMMAND every SECONDS seconds (default 2) until Ctrl-C, "
	    "clearing the screen and printing a header line before each run. "
	    "Outside a terminal (-c, -f, standard input, output to a pipe) give "
	    "--count N: the N runs then follow each other with no header, so "
	    "-o json writes one document per run.\n"
	    "Options before COMMAND are watch's (-o applies to COMMAND); the rest "
	    "of the line is COMMAND's. A failing run is shown and the next one "
	    "goes on; a usage error stops watch. The exit status is the last "
	    "run's, or 130 when interrupted.",
	.examples = (const char *const []){
		"watch jobs",
		"watch -n 10 vcs",
		"watch -n 0 --count 3 -o json status",
		NULL },
	.flags = CMD_FRONTEND | CMD_OPTS_FIRST,
	.formats = OUT_ALL,
	.exec = watch_exec,
};
