/*
 * cmd-events.c — a run's event log: `events` (filtered, or followed as
 * it is written with --follow) and `history`, the events of one job.
 * Both print the events table of stored.h.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/session-log.h"
#include "cmd/frontend.h"
#include "cmd/stored.h"
#include "core/shquote.h"
#include "core/xmalloc.h"
#include "job/record.h"

#define FOLLOW_POLL_MS		200
#define FOLLOW_FIRST		10	/* events shown when --follow starts */

static const struct cmd_opt events_opts[] = {
	{ 0, "run", "ID", "the run: an id or 'last' (default: the newest)", VALUE_NONE },
	{ 0, "since", "T", "events at or after T on the run's clock", VALUE_NONE },
	{ 0, "vc", "VC", "only the events of this virtual cluster", VALUE_VC },
	{ 0, "job", "NAME", "only the events of this job", VALUE_JOB },
	{ 0, "kind", "KIND", "only events of this kind (submit, start, ...)", VALUE_NONE },
	{ 0, "limit", "N", "only the newest N", VALUE_NONE },
	{ 'f', "follow", NULL, "keep printing new events until interrupted", VALUE_NONE },
	{ 0, "for", "SECONDS", "with --follow: stop after SECONDS", VALUE_NONE },
	{ 0, "until-run-done", NULL, "with --follow: stop once the run is no longer running", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* "90", "15m", "2h", "3d", or (sessions) "YYYY-MM-DD[THH:MM[:SS]]" (UTC). */
static int
parse_since(const struct store_run *r, const char *s, double *out, char **cause)
{
	double v;

	if (stored_parse_date(s, out))
		return 0;
	if (args_seconds(s, &v) != 0)
		goto bad;
	/* A session's clock is Unix time: a duration counts from its start. */
	*out = r->kind == STORE_RUN_SESSION ? floor(r->created) + v : v;
	return 0;
bad:
	*cause = xasprintf("invalid --since '%s' (seconds or a duration from the "
	    "run's start, like 90, 15m, 2h; or a UTC date YYYY-MM-DDTHH:MM:SS)", s);
	return -1;
}

/* --for SECONDS: decimals allowed. */
static int
parse_seconds(const char *s, double *out, char **cause)
{
	char *e;

	errno = 0;
	*out = strtod(s, &e);
	if (e == s || *e != '\0' || errno != 0 || !isfinite(*out) || *out < 0 ||
	    *out > 1e9) {
		*cause = xasprintf("invalid --for '%s' (seconds)", s);
		return -1;
	}
	return 0;
}

/* history NAME of a reused name: say which other jobs had it (the
   newest is shown; %ID shows one). */
static int
note_older(struct sctx *sc, const char *name, int shown, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	int *ids, n, i, rc;

	if ((rc = store_job_ids_named(sc->st, sc->run.id, name, &ids, &n,
	    cause)) != 0)
		return stored_status(sc->ctx, rc);
	for (i = 0; i < n; i++)
		if (ids[i] != shown)
			strbuf_addf(&sb, "%s%%%d", sb.len ? ", " : "", ids[i]);
	if (sb.len > 0)
		cmd_note(sc->ctx, "job '%s' is id %d, the newest of that name; "
		    "older jobs of the name: %s ('history %%ID' shows one)", name,
		    shown, sb.buf);
	strbuf_release(&sb);
	free(ids);
	return 0;
}

/* The filter of events/history from the options; -1 with *cause. */
static int
events_filter(struct sctx *sc, const struct args *a, const char *job,
    struct store_event_filter *f, char **cause)
{
	struct store_job sj;
	const char *v;
	long long n;
	int rc, id;

	store_event_filter_init(f);
	f->run = sc->run.id;
	if ((v = args_get(a, "since")) != NULL) {
		if (parse_since(&sc->run, v, &f->since, cause) != 0)
			return cmd_usage_error(sc->ctx);
		f->has_since = true;
	}
	/* By name: a reconfigured run's events hold indices of their own spec. */
	if ((v = args_get(a, "vc")) != NULL) {
		if (sctx_vc_find(sc, v, cause) < 0)
			return -1;
		f->vc_name = v;
	}
	if ((v = args_get(a, "kind")) != NULL && (f->kind = rec_kind_parse(v)) < 0) {
		struct strbuf sb = STRBUF_INIT;
		int k;

		for (k = 0; k < REC_NKINDS; k++)
			strbuf_addf(&sb, "%s%s", k ? ", " : "", rec_kind_name((enum rec_kind)k));
		*cause = xasprintf("unknown event kind '%s' (%s)", v, sb.buf);
		strbuf_release(&sb);
		return cmd_usage_error(sc->ctx);
	}
	if (args_has(a, "limit")) {
		n = args_strtonum(a, "limit", 1, 1LL << 40, cause);
		if (*cause != NULL)
			return cmd_usage_error(sc->ctx);
		f->limit = n;
	}
	if (job != NULL) {
		if ((rc = store_job_find(sc->st, sc->run.id, job, &sj, cause)) != 0)
			return stored_status(sc->ctx, rc);
		f->job = sj.job.id;
		store_job_release(&sj);
		if (!name_ref_id(job, &id) && note_older(sc, job, f->job, cause) != 0)
			return -1;
	}
	return 0;
}

/* The events after the last seen, written without a header. */
static int
follow_batch(struct sctx *sc, struct ev_list *l, struct store_event_filter *f,
    const char *kind, char **cause)
{
	int rc;

	ev_list_clear(l);
	f->after = l->last;
	if ((rc = store_event_query(sc->st, f, ev_list_add, l, cause)) != 0)
		return stored_status(sc->ctx, rc);
	if (l->n > 0 && ev_list_write(sc->ctx, l, kind, false, cause) != 0)
		return -1;
	return 0;
}

/* Poll for events after the last seen until interrupted or a bound. */
static int
events_follow(struct sctx *sc, const struct args *a, struct ev_list *l,
    struct store_event_filter *f, const char *kind, char **cause)
{
	struct cmd_ctx *ctx = sc->ctx;
	const struct frontend *fe = ctx->sess->fe;
	struct store_run r;
	double bound = -1, t0 = session_now();
	bool until_done = args_has(a, "until-run-done");
	int rc;

	if (args_has(a, "for") && parse_seconds(args_get(a, "for"), &bound, cause) != 0)
		return cmd_usage_error(ctx);
	f->limit = 0;
	for (;;) {
		fe->flush(fe, ctx->o, ctx->err, false);
		if (bound >= 0 && session_now() - t0 >= bound)
			return 0;
		if (until_done) {
			if ((rc = store_run_get(sc->st, sc->run.id, &r, cause)) != 0)
				return stored_status(ctx, rc);
			rc = r.state != STORE_RUN_RUNNING;
			store_run_release(&r);
			if (rc) {
				/* What the run wrote last. */
				if (follow_batch(sc, l, f, kind, cause) != 0)
					return -1;
				fe->flush(fe, ctx->o, ctx->err, false);
				return 0;
			}
		}
		if (fe->interrupted(fe) || !fe->sleep(fe, FOLLOW_POLL_MS)) {
			ctx->status = CMD_EXIT_INTR;
			ctx->reported = true;
			*cause = xstrdup("interrupted");
			return -1;
		}
		if (follow_batch(sc, l, f, kind, cause) != 0)
			return -1;
	}
}

static int
events_run(struct cmd_ctx *ctx, const struct args *a, const char *job,
    const char *kind, char **cause)
{
	struct store_event_filter f;
	struct ev_list l;
	struct sctx sc;
	bool follow = args_has(a, "follow");
	int rc;

	sctx_init(&sc, ctx);
	ev_list_init(&l, &sc);
	if (!follow && (args_has(a, "for") || args_has(a, "until-run-done"))) {
		*cause = xstrdup("'--for' and '--until-run-done' go with '--follow'");
		rc = cmd_usage_error(ctx);
		goto out;
	}
	if (follow && ctx->sess->fe == NULL) {
		*cause = xstrdup("'--follow' needs a front end (the REPL or the "
		    "command line)");
		rc = -1;
		goto out;
	}
	if ((rc = sctx_open(&sc, job == NULL && !follow, cause)) != 0) {
		if (rc > 0) {		/* no store: an empty listing */
			rc = ev_list_write(ctx, &l, kind, true, cause);
		}
		goto out;
	}
	if ((rc = sctx_resolve_run(&sc, args_get(a, "run"), job, cause)) != 0 ||
	    (rc = events_filter(&sc, a, job, &f, cause)) != 0)
		goto out;
	if (follow && f.limit == 0)
		f.limit = FOLLOW_FIRST;
	/* Following without --run or --job: every run, new ones too. */
	if (follow && args_get(a, "run") == NULL && job == NULL)
		f.run = 0;
	if ((rc = store_event_query(sc.st, &f, ev_list_add, &l, cause)) != 0) {
		rc = stored_status(ctx, rc);
		goto out;
	}
	if ((rc = ev_list_write(ctx, &l, kind, true, cause)) != 0)
		goto out;
	if (follow)
		rc = events_follow(&sc, a, &l, &f, kind, cause);
out:
	ev_list_release(&l);
	sctx_release(&sc);
	return rc;
}

static int
events_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return events_run(ctx, a, args_get(a, "job"), "events", cause);
}

static const struct cmd_opt history_opts[] = {
	{ 0, "run", "ID", "the run: an id or 'last' (default: the newest with the job)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
history_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	return events_run(ctx, a, args_value(a, 0), "history", cause);
}

/* ---- the entries ---- */

const struct cmd_entry cmd_events_entry = {
	.name = "events",
	.opts = events_opts,
	.min = 0, .max = 0,
	.usage = "[--run ID|last] [--since T] [--vc VC] [--job NAME] [--kind KIND] "
	    "[--limit N] [--follow [--for SECONDS] [--until-run-done]]",
	.summary = "show the event log of a run",
	.help =
	    "Show a run's events in order (the newest run unless --run): "
	    "submissions, starts, preemptions, releases, node failures... Each "
	    "has its number in the store (SEQ), the time on the run's clock (a "
	    "UTC date for a session, seconds for a replay), its kind, job, VC, "
	    "the job that took the cells (BY) and a detail; -o wide adds the "
	    "run, the cell and the raw time.\n"
	    "--since T keeps events at or after T: seconds or a duration (90, "
	    "15m, 2h) from the run's start, or a UTC date (2026-11-21T08:00). "
	    "--vc, --job and --kind keep those of one VC, job or kind; --limit N "
	    "the newest N. --job without --run looks in the newest run that has "
	    "the job.\n"
	    "--follow prints the last 10 (or --limit) and then every new event as "
	    "it is written, by this or another cellar process, checking every "
	    "0.2 s until Ctrl-C (status 130), until --for SECONDS have passed, or "
	    "--until-run-done. Without --run or --job it follows every run, new "
	    "ones too. With -o json each batch is one document.",
	.examples = (const char *const []){
		"events",
		"events --kind preempt --limit 20",
		"events --job train1 -o json",
		"events --run last --follow --for 1",
		NULL },
	.columns = stored_events_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = events_exec,
};

const struct cmd_entry cmd_history_entry = {
	.name = "history",
	.opts = history_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME [--run ID|last]",
	.summary = "show one job's events",
	.help =
	    "Show every event of job NAME, oldest first, in the newest run that "
	    "has a job of that name (or run ID): submitted, started where, "
	    "preempted by whom, requeued, released, completed. The columns are "
	    "those of events. Finished jobs keep their history.",
	.examples = (const char *const []){
		"history train1",
		"history bert --run last -o json",
		NULL },
	.columns = stored_events_columns,
	.flags = 0,
	.formats = OUT_ALL,
	.exec = history_exec,
};
