/*
 * live-store.c — a live job's log (bounded, console.h invariant 3) and
 * its records: the row, the sealed blob a restart takes the job over
 * from, and the events, written inside the caller's transaction.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session.h"
#include "core/pack.h"
#include "core/xmalloc.h"
#include "live/live-int.h"
#include "store/store.h"

/* ---- the job's log ---- */

/* invariant 3: keep the newest bytes */
static void
log_cap(struct live *l)
{
	l->log_dirty = true;
	if (l->log.len > CONSOLE_LOG_MAX) {
		size_t cut = l->log.len - CONSOLE_LOG_MAX / 2;

		memmove(l->log.buf, l->log.buf + cut, l->log.len - cut);
		strbuf_setlen(&l->log, l->log.len - cut);
	}
}

void
live_log_add(struct live *l, const char *buf, size_t len)
{
	strbuf_add(&l->log, buf, len);
	log_cap(l);
}

void
live_logf(struct live *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&l->log, fmt, ap);
	va_end(ap);
	log_cap(l);
}

void
live_set_error(struct live *l, const char *msg)
{
	free(l->last_error);
	l->last_error = xstrdup(msg);
	live_logf(l, "cellar: %s\n", msg);
}

/* ---- the store ---- */

void
live_rec_set(struct rec *r, double t, enum rec_kind kind, const struct job *j,
    const char *detail)
{
	rec_init(r, t, kind, j->id, j->vc);
	if (detail != NULL)
		snprintf(r->detail, sizeof r->detail, "%s", detail);
}

/*
 * The live data a restart needs (version 4): phase, what follows a stop,
 * the priority, the request (command words, environment), the pods
 * (node, GPUs), which a STOPPING or SUSPENDED job no longer has in the
 * engine, and a migration's source (pod, node, GPUs). Version 3 added
 * the suspension phases, 4 migration; 2 and 3 are read too.
 */
#define LIVE_BLOB_VERSION	4

static void
pack_str(struct strbuf *sb, const char *v)
{
	pack_u32(sb, (uint32_t)strlen(v));
	strbuf_adds(sb, v);
}

static void
pack_live(const struct job *j, const struct live *l, struct strbuf *sb)
{
	size_t i, start = sb->len;
	int p;

	pack_u32(sb, LIVE_BLOB_VERSION);
	pack_i32(sb, (int32_t)l->phase);
	pack_i32(sb, (int32_t)l->after);
	pack_i32(sb, j->priority);
	pack_u32(sb, (uint32_t)l->argv.n);
	for (i = 0; i < l->argv.n; i++) {
		pack_u32(sb, (uint32_t)strlen(l->argv.v[i]));
		strbuf_adds(sb, l->argv.v[i]);
	}
	pack_u32(sb, (uint32_t)l->env.n);
	for (i = 0; i < l->env.n; i++) {
		pack_u32(sb, (uint32_t)strlen(l->env.v[i]));
		strbuf_adds(sb, l->env.v[i]);
	}
	pack_u32(sb, (uint32_t)l->npods);
	for (p = 0; p < l->npods; p++) {
		pack_i32(sb, l->pods[p].node);
		pack_str(sb, l->pods[p].gpus);
	}
	pack_i32(sb, l->from_gpus != NULL ? l->mig_pod : -1);
	pack_i32(sb, l->from_gpus != NULL ? l->from_node : -1);
	pack_str(sb, l->from_gpus != NULL ? l->from_gpus : "");
	pack_i32(sb, l->from_gpus != NULL ? l->mig_step : 0);
	pack_seal(sb, start);
}

/* A string of pack_str, malloc'ed; NULL when the cursor failed. */
static char *
unpack_str(struct unpack *u)
{
	int n = unpack_count(u, 1 << 24, 1, "string");
	char *v;

	if (u->failed)
		return NULL;
	v = xstrndup((const char *)u->p + u->off, (size_t)n);
	u->off += (size_t)n;
	return v;
}

/*
 * Read back what pack_live wrote (checked: sealed, version, phases,
 * counts, node indices); 0, or -1 with a message in why.
 */
int
live_unpack_live(const struct spec *sp, const void *blob, size_t len, struct live *l,
    int *priority, char *why, size_t wlen)
{
	struct unpack u;
	uint32_t version;
	int i, n, phase, after;
	char *v;

	unpack_init(&u, blob, len);
	unpack_unseal(&u);
	version = unpack_u32(&u);
	if (!u.failed && (version < 2 || version > LIVE_BLOB_VERSION))
		unpack_fail(&u, "version %u, not 2 to %d", version, LIVE_BLOB_VERSION);
	phase = unpack_i32(&u);
	after = unpack_i32(&u);
	*priority = unpack_i32(&u);
	if (!u.failed && (phase < CONSOLE_QUEUED || phase > (version == 2 ?
	    CONSOLE_DONE : version == 3 ? CONSOLE_RESUMING : CONSOLE_MIGRATING) ||
	    (after != -1 && after != JOB_EV_REQUEUE)))
		unpack_fail(&u, "phase %d, then %d", phase, after);
	l->phase = (enum console_phase)phase;
	l->after = (enum job_event)after;
	for (n = unpack_count(&u, 1 << 20, 4, "words"), i = 0; i < n; i++)
		if ((v = unpack_str(&u)) != NULL)
			strvec_push_nodup(&l->argv, v);
	for (n = unpack_count(&u, 1 << 20, 4, "environment"), i = 0; i < n; i++)
		if ((v = unpack_str(&u)) != NULL)
			strvec_push_nodup(&l->env, v);
	n = unpack_count(&u, 1 << 16, 8, "pods");
	/* a job without pods has no array: take_pods makes it on a start */
	l->pods = n > 0 ? xcalloc((size_t)n, sizeof *l->pods) : NULL;
	for (i = 0; i < n && !u.failed; i++) {
		l->pods[i].node = unpack_i32(&u);
		if (!u.failed && (l->pods[i].node < 0 || l->pods[i].node >= sp->nnodes))
			unpack_fail(&u, "pod %d on node %d of %d", i, l->pods[i].node,
			    sp->nnodes);
		if ((l->pods[i].gpus = unpack_str(&u)) != NULL)
			l->npods = i + 1;
	}
	l->mig_pod = l->from_node = -1;
	if (version >= 4) {
		l->mig_pod = unpack_i32(&u);
		l->from_node = unpack_i32(&u);
		v = unpack_str(&u);
		l->mig_step = unpack_i32(&u);
		if (v != NULL && v[0] != '\0' && !u.failed && (l->mig_pod < 0 ||
		    l->mig_pod >= l->npods || l->from_node < 0 ||
		    l->from_node >= sp->nnodes || l->mig_step < 0 || l->mig_step > 1))
			unpack_fail(&u, "migration of pod %d from node %d (step %d)",
			    l->mig_pod, l->from_node, l->mig_step);
		if (v != NULL && v[0] != '\0')
			l->from_gpus = v;
		else
			free(v);
	}
	if (!u.failed && phase == CONSOLE_MIGRATING && l->from_gpus == NULL)
		unpack_fail(&u, "migrating without a source");
	return unpack_finish(&u, "live job state", why, wlen);
}

/* Job i's log, when it changed, inside the open transaction (its row
   exists: submit wrote it). log_dirty stays set until flush_logs has
   committed it, so a rolled-back write is written again. */
int
live_put_log(struct console *c, int i, char **cause)
{
	const struct live *l = &c->live[i];

	if (!l->log_dirty)
		return 0;
	return store_job_log_put(c->s->store, c->s->run, c->jobs[i].id,
	    l->log.buf != NULL ? l->log.buf : "", l->log.len, cause) == 0 ? 0 : -1;
}

/* Write job i (row, blob, log) inside the open transaction. */
int
live_put_job(struct console *c, int i, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	pack_live(&c->jobs[i], &c->live[i], &sb);
	rc = store_job_put(c->s->store, c->s->run, &c->jobs[i], cause) != 0 ||
	    store_job_set_blob(c->s->store, c->s->run, c->jobs[i].id, sb.buf, sb.len,
	    cause) != 0 || live_put_log(c, i, cause) != 0;
	strbuf_release(&sb);
	return rc ? -1 : 0;
}

int
live_append(struct console *c, const struct rec *r, char **cause)
{
	if (store_event_append(c->s->store, c->s->run, r, NULL, cause) != 0)
		return -1;
	if (c->say != NULL) {
		struct strbuf sb = STRBUF_INIT;
		const char *name = "-";
		int i;

		for (i = c->nalive - 1; i >= 0; i--)
			if (c->jobs[c->alive[i]].id == r->job) {
				name = c->jobs[c->alive[i]].name;
				break;
			}
		/* a submit's job is not alive until its commit */
		if (i < 0 && c->n > 0 && c->jobs[c->n - 1].id == r->job)
			name = c->jobs[c->n - 1].name;
		strbuf_addf(&sb, "%s %s vc=%s", rec_kind_name(r->kind), name,
		    r->vc >= 0 ? c->s->spec->vcs[r->vc].name : "-");
		if (r->detail[0] != '\0')
			strbuf_addf(&sb, " %s", r->detail);
		c->say(c->say_arg, sb.buf);
		strbuf_release(&sb);
	}
	return 0;
}
