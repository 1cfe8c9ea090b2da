/*
 * live-health.c — the nodes' health checks back: a node whose health
 * hook failed is marked bad (engine and store) and the jobs on it are
 * failed and requeued; marked healthy when it passes again. The health
 * hooks go out at the end of the tick (console.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/xmalloc.h"
#include "live/live-int.h"

/* A node's health hook came back. */
void
live_health_back(struct console *c, const struct hook_done *d)
{
	struct health *h = &c->health[d->node];
	char word[256];
	size_t n;

	h->out = false;
	h->failed = d->status != 0;
	free(h->why);
	h->why = NULL;
	/* a node marked bad for its status hooks gets its next chance */
	if (!h->failed && h->status_bad) {
		h->status_bad = false;
		h->status_fails = 0;
	}
	if (h->failed) {
		n = d->out != NULL ? strcspn(d->out, "\n") : 0;
		if (n >= sizeof word)
			n = sizeof word - 1;
		memcpy(word, d->out != NULL ? d->out : "", n);
		word[n] = '\0';
		h->why = xasprintf("health hook %s%s%s", d->timed_out ?
		    "timed out" : "failed", n ? ": " : "", word);
	}
}

/* True when the engine holds node i bad (any of its cells). */
bool
live_node_bad_now(const struct console *c, int node)
{
	const struct spec_node *n = &c->s->spec->nodes[node];
	struct engine_cell_info info;
	int k;

	for (k = 0; k < n->ncells; k++) {
		engine_cell(c->s->engine, n->cells[k], &info);
		if (info.bad > 0)
			return true;
	}
	return false;
}

/*
 * Whether node is bad, and why: its health hook failed; or its status
 * hooks failed LIVE_STATUS_FAILS times in a row (a hanging status hook
 * cannot tell a running pod from one that ended: the node's jobs are
 * failed and requeued rather than left running forever), which holds
 * until the health hook passes again; or a job stopping there has had
 * LIVE_STOP_FAILS rounds of stop hooks fail (its processes may still run
 * on its GPUs: nothing new is placed there until it stops).
 */
static bool
node_bad(struct console *c, int node, char **why)
{
	struct health *h = &c->health[node];
	int a, p;

	if (h->failed) {
		*why = xstrdup(h->why != NULL ? h->why : "health hook failed");
		return true;
	}
	if (h->status_fails >= LIVE_STATUS_FAILS)
		h->status_bad = true;
	if (h->status_bad) {
		*why = xasprintf("status hooks failed %d times in a row "
		    "(timed out or exited non-zero)", h->status_fails > 0 ?
		    h->status_fails : LIVE_STATUS_FAILS);
		return true;
	}
	for (a = 0; c->nstuck > 0 && a < c->nalive; a++) {
		const struct live *l = &c->live[c->alive[a]];

		if (l->phase != CONSOLE_STOPPING || l->stop_fails < LIVE_STOP_FAILS)
			continue;
		for (p = 0; p < l->npods; p++)
			if (l->pods[p].node == node) {
				*why = xasprintf("job '%s' may still run there: its "
				    "stop hooks failed %d times in a row",
				    c->jobs[c->alive[a]].name, l->stop_fails);
				return true;
			}
	}
	return false;
}

/*
 * A node's health changed: mark it in the engine (bad nodes are avoided,
 * VCs see doomed cells), record it, and fail the live jobs that run on a
 * bad node; they are stopped and requeued (the gang as a unit). Committed
 * before any stop hook runs.
 */
int
live_node_settle(struct console *c, int node, double now, char **cause)
{
	struct health *h = &c->health[node];
	struct session *s = c->s;
	const char *name = s->spec->nodes[node].name;
	struct strbuf names = STRBUF_INIT;
	struct engine_job_info info;
	int *ids = NULL, *mine = NULL, n, k, nmine = 0, lim;
	char why[REC_DETAIL_MAX], *bwhy = NULL;
	bool created, bad;

	if (h->out)
		return 0;
	bad = node_bad(c, node, &bwhy);
	if (bad == h->bad || (!bad && !h->bad)) {
		free(bwhy);
		return 0;
	}
	snprintf(why, sizeof why, "node '%s': %s", name, bad ? bwhy : "healthy again");
	free(bwhy);
	/* bad already, and not by this console: an operator's mark, or
	   ours from before a restart; both stay until 'node ok' */
	if (bad && live_node_bad_now(c, node))
		return 0;
	if (live_begin(c, &created, cause) != 0)
		return -1;
	lim = engine_job_limit(s->engine);
	ids = xcalloc((size_t)lim, sizeof *ids);
	mine = xcalloc((size_t)lim, sizeof *mine);
	n = engine_node_set_bad(s->engine, name, bad, ids, lim);
	if (n > lim)
		n = lim;
	for (k = 0; k < n; k++) {
		int i = sched_job_of(c->sched, ids[k]);

		if (engine_job(s->engine, ids[k], &info))
			strbuf_addf(&names, "%s%s", names.len ? "," : "", info.name);
		if (i < 0 || (c->live[i].phase != CONSOLE_STARTING &&
		    c->live[i].phase != CONSOLE_RUNNING &&
		    c->live[i].phase != CONSOLE_RESUMING &&
		    c->live[i].phase != CONSOLE_MIGRATING))
			continue;
		c->jobs[i].reason = JOB_REASON_NODEFAIL;
		if (live_decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, why, now, cause) != 0)
			goto fail;
		mine[nmine++] = i;
	}
	if (session_log_node(s, name, bad, names.buf ? names.buf : "", cause) != 0 ||
	    live_commit(c, created, cause) != 0)
		goto fail_committing;
	h->bad = bad;
	for (k = 0; k < nmine; k++) {
		live_set_error(&c->live[mine[k]], why);
		sched_release(c->sched, mine[k]);
		live_stop_pods(c, mine[k], JOB_EV_REQUEUE);
	}
	sched_touch_all(c->sched);
	c->dirty = true;
	strbuf_release(&names);
	free(ids);
	free(mine);
	return 0;
fail:
	session_log_rollback(s, created);
fail_committing:
	/* the engine marked the node and jobs left RUNNING: the tick halts */
	strbuf_release(&names);
	free(ids);
	free(mine);
	return -1;
}
