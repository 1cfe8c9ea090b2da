/*
 * stored.c — what the commands that read the state store share (see
 * stored.h): a command's view of one stored run, its specs parsed once,
 * times on the run's clock, and the events table of events, history and
 * job show.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cluster/session-log.h"
#include "cmd/stored.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "job/record.h"

/* ---- a command's view of one run ---- */

void
sctx_init(struct sctx *sc, struct cmd_ctx *ctx)
{
	memset(sc, 0, sizeof *sc);
	sc->ctx = ctx;
	store_run_init(&sc->run);
}

void
sctx_release(struct sctx *sc)
{
	int i;

	store_run_release(&sc->run);
	store_spec_release(&sc->sp);
	spec_free(sc->spec);
	for (i = 0; i < sc->nespec; i++)
		spec_free(sc->espec[i]);
}

/*
 * Map a store result to the command's: -1 is status 4; STORE_NOTFOUND and
 * STORE_INVALID are status 1. Returns -1 either way.
 */
int
stored_status(struct cmd_ctx *ctx, int rc)
{
	ctx->status = rc < 0 ? CMD_EXIT_STORE : CMD_EXIT_FAIL;
	return -1;
}

/*
 * Open the store to read it. Returns 0; 1 when there is none (for a
 * listing, which then shows nothing: the note is written and *cause
 * freed); -1 with *cause and ctx->status for a failure or (missing_ok
 * false) a missing store.
 */
int
sctx_open(struct sctx *sc, bool missing_ok, char **cause)
{
	int rc = session_store(sc->ctx->sess, false, &sc->st, cause);

	if (rc == STORE_NOTFOUND && missing_ok) {
		cmd_note(sc->ctx, "%s", *cause);
		free(*cause);
		*cause = NULL;
		return 1;
	}
	if (rc != 0)
		return stored_status(sc->ctx, rc);
	return 0;
}

/* "last", or a run id; NULL: the newest run (with a job `name`, if given). */
int
sctx_resolve_run(struct sctx *sc, const char *arg, const char *name, char **cause)
{
	int64_t id = 0;
	char *end;
	int rc;

	if (arg == NULL && name != NULL)
		rc = store_job_last_run(sc->st, name, &id, cause);
	else if (arg == NULL || strcmp(arg, "last") == 0)
		rc = store_run_last(sc->st, -1, &id, cause);
	else {
		errno = 0;
		id = strtoll(arg, &end, 10);
		if (errno != 0 || end == arg || *end != '\0' || id <= 0) {
			*cause = xasprintf("invalid run '%s' (a run id, or 'last')", arg);
			sc->ctx->status = CMD_EXIT_USAGE;
			return -1;
		}
		rc = 0;
	}
	if (rc == 0)
		rc = store_run_get(sc->st, id, &sc->run, cause);
	return rc == 0 ? 0 : stored_status(sc->ctx, rc);
}

/* The run's spec, parsed; NULL when it cannot be (names then show as -). */
const struct spec *
sctx_spec(struct sctx *sc)
{
	char *cause = NULL;

	if (sc->spec_tried)
		return sc->spec;
	sc->spec_tried = true;
	if (store_spec_get(sc->st, sc->run.spec, &sc->sp, &cause) != 0) {
		free(cause);
		return NULL;
	}
	sc->spec = spec_load_string(sc->sp.path, sc->sp.text, sc->sp.text_len, NULL);
	return sc->spec;
}

const char *
sctx_vc_name(struct sctx *sc, int vc)
{
	if (!sc->spec_tried)
		sctx_spec(sc);
	return vc >= 0 && vc < sc->sp.nvcs && sc->sp.vcs[vc].name != NULL ?
	    sc->sp.vcs[vc].name : "-";
}

/*
 * The time a job's open period (pending or running since its last change)
 * runs to: now for a session run still running (live and alloc'd jobs
 * count queued and run time only when they leave a state), else 0 (a
 * finished run's jobs are final; a replay's clock is its own).
 */
double
stored_open_now(const struct store_run *run)
{
	return run->kind == STORE_RUN_SESSION && run->state == STORE_RUN_RUNNING ?
	    session_now() : 0;
}

/* A VC name of the run's spec; -1 with *cause if it has none such. */
int
sctx_vc_find(struct sctx *sc, const char *name, char **cause)
{
	struct strbuf hint = STRBUF_INIT;
	const char **names;
	int i;

	sctx_spec(sc);
	for (i = 0; i < sc->sp.nvcs; i++)
		if (sc->sp.vcs[i].name != NULL && strcmp(sc->sp.vcs[i].name, name) == 0)
			return i;
	names = xcalloc((size_t)sc->sp.nvcs + 1, sizeof *names);
	for (i = 0; i < sc->sp.nvcs; i++)
		names[i] = sc->sp.vcs[i].name;
	suggest_hint(&hint, name, names, (size_t)sc->sp.nvcs, "vcs");
	*cause = xasprintf("unknown vc '%s' in run %lld%s", name,
	    (long long)sc->run.id, hint.buf);
	free(names);
	strbuf_release(&hint);
	return -1;
}

void
stored_json_run(struct json *j, const struct sctx *sc)
{
	if (sc->run.id != 0)
		json_kv_int(j, "run", sc->run.id);
	else
		json_kv_null(j, "run");
}

/* Wall-clock seconds as a UTC date. */
const char *
stored_fmt_date(double t, char *buf, size_t len)
{
	time_t tt = (time_t)floor(t);
	struct tm tm;

	if (t <= 0 || gmtime_r(&tt, &tm) == NULL)
		snprintf(buf, len, "-");
	else
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* A time on the run's clock: a date for a session, seconds for a replay. */
const char *
stored_fmt_t(const struct store_run *r, double t, char *buf, size_t len)
{
	if (t < 0)
		snprintf(buf, len, "-");
	else if (r->kind == STORE_RUN_SESSION)
		stored_fmt_date(t, buf, len);
	else if (t == floor(t))
		snprintf(buf, len, "%.0f", t);
	else
		snprintf(buf, len, "%.3f", t);
	return buf;
}

/* ---- the events table ---- */

const struct table_colspec stored_events_columns[] = {
	{ "SEQ", "seq", TABLE_NAME | TABLE_NUM, "the event's number in the store" },
	{ "TIME", "time", 0, "when, on the run's clock (UTC dates for sessions)" },
	{ "KIND", "kind", 0, "submit, start, preempt, release, node-bad, ..." },
	{ "JOB", "job", 0, "the job it is about, or -" },
	{ "VC", "vc", 0, "its virtual cluster, or -" },
	{ "BY", "by", 0, "for preempt and downgrade: the job that took the cells" },
	{ "DETAIL", "detail", 0, "where, or why" },
	{ "RUN", "run", TABLE_NUM | TABLE_WIDE, "the run" },
	{ "CELL", "cell", TABLE_WIDE, "the cell (a node's, for node events), or -" },
	{ "T", "t", TABLE_NUM | TABLE_WIDE, "the time in seconds" },
	{ NULL, NULL, 0, NULL }
};

/* The spec of that id, parsed (cached); NULL when it cannot be. */
static const struct spec *
ev_spec(struct sctx *sc, int64_t id)
{
	struct store_spec sp;
	struct spec *s = NULL;
	char *cause = NULL;
	int i;

	if (id == sc->run.spec)
		return sctx_spec(sc);
	for (i = 0; i < sc->nespec; i++)
		if (sc->espec_id[i] == id)
			return sc->espec[i];
	memset(&sp, 0, sizeof sp);
	if (store_spec_get(sc->st, id, &sp, &cause) == 0)
		s = spec_load_string(sp.path, sp.text, sp.text_len, NULL);
	free(cause);
	store_spec_release(&sp);
	/* Full, the cache gives up its first entry (callers copy what they
	   need from a spec before asking for another). */
	if (sc->nespec < (int)(sizeof sc->espec / sizeof sc->espec[0])) {
		sc->espec_id[sc->nespec] = id;
		sc->espec[sc->nespec++] = s;
	} else {
		spec_free(sc->espec[0]);
		sc->espec_id[0] = id;
		sc->espec[0] = s;
	}
	return s;
}

/* An event's cell, named in the spec it was recorded on (ev->spec). */
static const char *
cell_text(struct sctx *sc, const struct store_event *ev, char *buf, size_t len)
{
	const struct spec *s;
	int cell = ev->rec.cell;

	if (cell < 0 || (s = ev_spec(sc, ev->spec)) == NULL || cell >= s->ncells)
		return cell < 0 ? "-" : (snprintf(buf, len, "%d", cell), buf);
	return spec_cell_path(s, cell, buf, len);
}

/* The run an event belongs to, for the format of its time. */
static const struct store_run *
ev_run(struct sctx *sc, int64_t run, struct store_run *tmp)
{
	struct store_run r;
	char *cause = NULL;
	int i;

	if (run == sc->run.id)
		return &sc->run;
	*tmp = sc->run;
	for (i = 0; i < sc->nother; i++)
		if (sc->other[i] == run) {
			tmp->kind = sc->other_kind[i];
			return tmp;
		}
	if (store_run_get(sc->st, run, &r, &cause) == 0) {
		tmp->kind = r.kind;
		if (sc->nother < (int)(sizeof sc->other / sizeof sc->other[0])) {
			sc->other[sc->nother] = run;
			sc->other_kind[sc->nother++] = r.kind;
		}
		store_run_release(&r);
	}
	free(cause);
	return tmp;
}

int
ev_list_add(void *arg, const struct store_event *ev)
{
	struct ev_list *l = arg;
	struct store_event *c;
	struct store_run tmp;
	char buf[STORED_PATH_LEN], tb[64], tr[64];

	XGROW(l->v, l->cap, l->n + 1);
	XGROW(l->names, l->ncap, 3 * (l->n + 1));
	c = &l->v[l->n];
	*c = *ev;
	l->names[3 * l->n] = ev->job_name ? xstrdup(ev->job_name) : NULL;
	l->names[3 * l->n + 1] = ev->by_name ? xstrdup(ev->by_name) : NULL;
	l->names[3 * l->n + 2] = ev->vc_name ? xstrdup(ev->vc_name) : NULL;
	c->job_name = l->names[3 * l->n];
	c->by_name = l->names[3 * l->n + 1];
	c->vc_name = l->names[3 * l->n + 2];
	if (ev->seq > l->last)
		l->last = ev->seq;
	table_row(l->t);
	table_row_tag(l->t, (long)l->n);
	table_cell_int(l->t, ev->seq);
	table_cell(l->t, "%s", stored_fmt_t(ev_run(l->sc, ev->run, &tmp), ev->rec.t, tb,
	    sizeof tb));
	table_cell_role(l->t, ev->rec.kind == REC_PREEMPT || ev->rec.kind == REC_FAIL ||
	    ev->rec.kind == REC_NODE_BAD ? ROLE_WARN : ROLE_NONE, "%s",
	    rec_kind_name(ev->rec.kind));
	table_cell(l->t, "%s", ev->job_name ? ev->job_name : ev->rec.job >= 0 ?
	    "?" : "-");
	table_cell(l->t, "%s", ev->vc_name ? ev->vc_name : "-");
	table_cell(l->t, "%s", ev->by_name ? ev->by_name : ev->rec.by >= 0 ? "?" : "-");
	table_cell(l->t, "%s", ev->rec.detail[0] ? ev->rec.detail : "-");
	table_cell_int(l->t, ev->run);
	table_cell(l->t, "%s", cell_text(l->sc, ev, buf, sizeof buf));
	snprintf(tr, sizeof tr, "%.17g", ev->rec.t);
	table_cell(l->t, "%s", tr);
	l->n++;
	return 0;
}

void
ev_list_init(struct ev_list *l, struct sctx *sc)
{
	memset(l, 0, sizeof *l);
	l->sc = sc;
	l->t = table_create();
	table_columns(l->t, stored_events_columns);
}

static void
ev_list_forget(struct ev_list *l)
{
	size_t i;

	for (i = 0; i < 3 * l->n; i++)
		free(l->names[i]);
	l->n = 0;
	table_free(l->t);
	l->t = NULL;
}

void
ev_list_clear(struct ev_list *l)
{
	ev_list_forget(l);
	l->t = table_create();
	table_columns(l->t, stored_events_columns);
}

void
ev_list_release(struct ev_list *l)
{
	ev_list_forget(l);
	free(l->v);
	free(l->names);
}

void
ev_list_json_one(struct cmd_ctx *ctx, struct json *j, long tag, void *arg)
{
	const struct ev_list *l = arg;
	const struct store_event *ev = &l->v[tag];
	char buf[STORED_PATH_LEN];

	(void)ctx;
	json_object_begin(j);
	json_kv_int(j, "seq", ev->seq);
	json_kv_int(j, "run", ev->run);
	json_kv_double(j, "t", ev->rec.t);
	json_kv_string(j, "kind", rec_kind_name(ev->rec.kind));
	json_kv_string(j, "job", ev->job_name);
	json_kv_string(j, "vc", ev->vc_name);
	json_kv_string(j, "cell", ev->rec.cell >= 0 ?
	    cell_text(l->sc, ev, buf, sizeof buf) : NULL);
	json_kv_string(j, "by", ev->by_name);
	json_kv_string(j, "detail", ev->rec.detail);
	json_object_end(j);
}

int
ev_list_write(struct cmd_ctx *ctx, struct ev_list *l, const char *kind, bool header,
    char **cause)
{
	struct out_opts o = ctx->out;
	struct json j;

	if (cmd_list_apply(ctx, l->t, cause) != 0)
		return -1;
	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, kind);
		stored_json_run(&j, l->sc);
		cmd_list_json(ctx, &j, "events", l->t, ev_list_json_one, l);
		cmd_json_end(ctx, &j);
		return 0;
	}
	o.header = o.header && header;
	table_render(l->t, &o, ctx->o);
	return 0;
}

/* ---- dates ---- */

/* Digits at *p, exactly n of them, into *v. */
static bool
digits(const char **p, int n, int *v)
{
	int i;

	*v = 0;
	for (i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (**p - '0');
	}
	return true;
}

/* "YYYY-MM-DD", "YYYY-MM-DDTHH:MM" or "YYYY-MM-DDTHH:MM:SS". */
static bool
date_parse(const char *p, int *y, int *mo, int *d, int *h, int *mi, int *sec)
{
	if (!digits(&p, 4, y) || *p++ != '-' || !digits(&p, 2, mo) || *p++ != '-' ||
	    !digits(&p, 2, d) || *mo < 1 || *mo > 12 || *d < 1 || *d > 31)
		return false;
	if (*p == '\0')
		return true;
	if (*p++ != 'T' || !digits(&p, 2, h) || *p++ != ':' || !digits(&p, 2, mi) ||
	    *h > 23 || *mi > 59)
		return false;
	if (*p == '\0')
		return true;
	return *p++ == ':' && digits(&p, 2, sec) && *sec <= 60 && *p == '\0';
}

/* A UTC date "YYYY-MM-DD[THH:MM[:SS]]" as Unix seconds into *out. */
bool
stored_parse_date(const char *s, double *out)
{
	struct tm tm;
	int y, mo, d, h = 0, mi = 0, sec = 0;

	if (!date_parse(s, &y, &mo, &d, &h, &mi, &sec))
		return false;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	*out = (double)timegm(&tm);
	return true;
}
