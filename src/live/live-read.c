/*
 * live-read.c — what commands and the dashboard read of the console:
 * the queue in the policy's order, a job by name, its log (held, or
 * stored), and a snapshot of every job.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/session.h"
#include "core/hostlist.h"
#include "core/shquote.h"
#include "core/xmalloc.h"
#include "live/live-int.h"
#include "store/store.h"

/* ---- reading ---- */

struct qrow {
	int			 job, vc;
	bool			 queued;
	struct policy_key	 key;		/* queued: the policy's */
	double			 since;		/* others: when they started */
};

static int
qrow_cmp(const void *a, const void *b)
{
	const struct qrow *x = a, *y = b;

	if (x->vc != y->vc)
		return x->vc < y->vc ? -1 : 1;
	if (x->queued != y->queued)
		return x->queued ? 1 : -1;
	if (x->queued)
		return policy_key_cmp(&x->key, &y->key);
	if (x->since != y->since)
		return x->since < y->since ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

int
console_queue(const struct console *c, int *order, int *pos)
{
	struct qrow *rows = xcalloc((size_t)c->nalive + 1, sizeof *rows);
	int i, k, n = 0, klass, vc = -1, at = 0;

	memset(pos, 0, (size_t)c->n * sizeof *pos);
	for (k = 0; k < c->nalive; k++) {
		i = c->alive[k];
		if (c->live[i].phase == CONSOLE_DONE)
			continue;
		rows[n].job = i;
		rows[n].vc = c->jobs[i].vc;
		rows[n].queued = c->live[i].phase == CONSOLE_QUEUED;
		rows[n].since = c->jobs[i].state_since;
		if (rows[n].queued)
			sched_job_key(c->sched, i, &rows[n].key, &klass);
		n++;
	}
	qsort(rows, (size_t)n, sizeof *rows, qrow_cmp);
	for (i = 0; i < n; i++) {
		order[i] = rows[i].job;
		if (rows[i].vc != vc) {
			vc = rows[i].vc;
			at = 0;
		}
		if (rows[i].queued)
			pos[rows[i].job] = ++at;
	}
	free(rows);
	return n;
}

const struct job *
console_job(const struct console *c, int i)
{
	return &c->jobs[i];
}

int
console_find(const struct console *c, const char *name)
{
	int i, id;

	if (name_ref_id(name, &id)) {
		for (i = c->n - 1; i >= 0; i--)
			if (c->jobs[i].id == id)
				return i;
		return -1;
	}
	for (i = c->n - 1; i >= 0; i--)
		if (strcmp(c->jobs[i].name, name) == 0)
			return i;
	return -1;
}

const char *
console_log(const struct console *c, int i, size_t *len)
{
	if (i >= 0 && i < c->n && c->live[i].log.buf != NULL) {
		*len = c->live[i].log.len;
		return c->live[i].log.buf;
	}
	*len = 0;
	return "";
}

int
console_log_stored(struct console *c, const char *name, char **text,
    size_t *len, char **cause)
{
	struct session *s = c->s;
	struct store_job sj;
	struct store *st;
	int64_t run = s->run != 0 ? s->run : s->resume_run;
	int rc;

	*text = NULL;
	if (run == 0 || session_store(s, false, &st, cause) != 0 || st == NULL) {
		if (*cause == NULL)
			*cause = xasprintf("no job '%s' in this session", name);
		return -1;
	}
	if ((rc = store_job_find(st, run, name, &sj, cause)) != 0) {
		if (rc == STORE_NOTFOUND) {
			free(*cause);
			*cause = xasprintf("no job '%s' in this session", name);
		}
		return -1;
	}
	rc = store_job_log_get(st, run, sj.job.id, text, len, cause);
	store_job_release(&sj);
	return rc == 0 ? 0 : -1;
}

void
console_snapshot(const struct console *c, struct console_snapshot *out)
{
	int i, p;

	memset(out, 0, sizeof *out);
	out->jobs = xcalloc((size_t)c->n + 1, sizeof *out->jobs);
	out->njobs = c->n;
	out->hooks_running = hookq_pending(c->q);
	for (i = 0; i < c->n; i++) {
		struct console_job *cj = &out->jobs[i];
		struct strvec nodes = STRVEC_INIT;

		cj->job = c->jobs[i];
		cj->phase = c->live[i].phase;
		cj->hooks_out = c->live[i].hooks_out;
		for (p = 0; p < c->live[i].npods; p++)
			strvec_push(&nodes, c->s->spec->nodes[c->live[i].pods[p].node].name);
		cj->nodes = hostlist_compress(nodes.v, nodes.n);
		strvec_release(&nodes);
		cj->last_error = c->live[i].last_error ?
		    xstrdup(c->live[i].last_error) : NULL;
	}
}

void
console_snapshot_release(struct console_snapshot *snap)
{
	int i;

	for (i = 0; i < snap->njobs; i++) {
		free(snap->jobs[i].nodes);
		free(snap->jobs[i].last_error);
	}
	free(snap->jobs);
	memset(snap, 0, sizeof *snap);
}
