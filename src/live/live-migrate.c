/*
 * live-migrate.c — the operator's 'job migrate': one pod of a running
 * job moved (engine_move) to free healthy GPUs and the decision
 * committed; settle (live-phase.c) then runs MIGRATING's two steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/xmalloc.h"
#include "live/live-int.h"

/* ---- migration (the operator's 'job migrate') ---- */

/*
 * n free, healthy GPUs of chain on node, none of them own's, into
 * out (the lowest cell indices first: a node's GPUs in address order).
 */
static bool
free_leaves(const struct console *c, int node, int chain,
    const struct pinned *own, int n, int *out)
{
	const struct spec *sp = c->s->spec;
	struct engine_cell_info info;
	int k, m, got = 0;

	for (k = 0; k < sp->ncells && got < n; k++) {
		if (sp->cells[k].level != 1 || sp->cells[k].node != node ||
		    sp->cells[k].chain != chain)
			continue;
		for (m = 0; m < own->nleaves && own->leaves[m] != k; m++)
			;
		if (m < own->nleaves)
			continue;
		engine_cell(c->s->engine, k, &info);
		if (info.used == 0 && info.opp == 0 && info.bad == 0)
			out[got++] = k;
	}
	return got == n;
}

int
console_migrate(struct console *c, const char *name, const char *node, int pod,
    int *status, char **cause)
{
	const struct spec *sp = c->s->spec;
	int i = console_find(c, name), to = -1, k, n, *nl = NULL, *pf = NULL,
	    *lv = NULL, rc = -1;
	struct pinned old;
	struct live *l;
	struct job *j;
	struct rec rec;
	char why[256], *from = NULL, *dest = NULL;
	bool created;
	double now = session_now();

	*status = 1;
	memset(&old, 0, sizeof old);
	if (live_halted(c, cause)) {
		*status = 4;
		return -1;
	}
	if (sp->backend.hooks[SPEC_HOOK_MIGRATE] == NULL) {
		*cause = xasprintf("the backend has no 'migrate' hook: job '%s' cannot "
		    "be migrated", name);
		return -1;
	}
	if (i < 0 || c->live[i].phase != CONSOLE_RUNNING) {
		*cause = xasprintf(i < 0 ? "no job '%s'" : "job '%s' is not running", name);
		return -1;
	}
	j = &c->jobs[i];
	l = &c->live[i];
	if (j->klass == JOB_OPPORTUNISTIC) {
		/* engine_move's rule: an opportunistic job holds no cells of
		   its VC to move */
		*cause = xasprintf("job '%s' is opportunistic: only guaranteed jobs "
		    "migrate", name);
		return -1;
	}
	if (pod < 0 || pod >= l->npods) {
		*cause = xasprintf("job '%s' has no pod %d (0 to %d)", name, pod,
		    l->npods - 1);
		return -1;
	}
	if (node != NULL && (to = spec_find_node(sp, node)) < 0) {
		*cause = xasprintf("unknown node '%s'", node);
		return -1;
	}
	if (live_pinned_of(c, i, &old, why, sizeof why) != 0) {
		*cause = xasprintf("job '%s': %s", name, why);
		return -1;
	}
	n = old.pod_first[pod + 1] - old.pod_first[pod];
	nl = xcalloc((size_t)n + 1, sizeof *nl);
	/* the node asked for (its own: other GPUs there), or the first
	   other one with room, or other GPUs of its own */
	if (to >= 0)
		k = free_leaves(c, to, old.chain, &old, n, nl) &&
		    !live_node_bad_now(c, to) ? to : sp->nnodes;
	else {
		for (k = 0; k < sp->nnodes; k++)
			if (k != l->pods[pod].node && !live_node_bad_now(c, k) &&
			    free_leaves(c, k, old.chain, &old, n, nl))
				break;
		if (k >= sp->nnodes && !live_node_bad_now(c, l->pods[pod].node) &&
		    free_leaves(c, l->pods[pod].node, old.chain, &old, n, nl))
			k = l->pods[pod].node;
	}
	if (k >= sp->nnodes) {
		*cause = to >= 0 ? xasprintf("node '%s' has no %d free healthy GPUs for "
		    "pod %d of job '%s'", node, n, pod, name) : xasprintf("no node "
		    "has %d other free healthy GPUs for pod %d of job '%s'", n, pod, name);
		goto out;
	}
	to = k;
	/* the new placement: the pod's leaves replaced */
	pf = xcalloc((size_t)l->npods + 1, sizeof *pf);
	lv = xcalloc((size_t)old.nleaves + 1, sizeof *lv);
	memcpy(pf, old.pod_first, ((size_t)l->npods + 1) * sizeof *pf);
	memcpy(lv, old.leaves, (size_t)old.nleaves * sizeof *lv);
	memcpy(lv + old.pod_first[pod], nl, (size_t)n * sizeof *nl);
	if (live_begin(c, &created, cause) != 0) {
		*status = 4;
		goto out;
	}
	/* one atomic engine call: the job keeps its id, its VC chooses
	   virtual cells for the new leaves (quota and sharing safety
	   checked), or nothing changes */
	if (engine_move(c->s->engine, j->engine_id, pf, l->npods, lv, old.nleaves,
	    why, sizeof why) != 0) {
		session_log_rollback(c->s, created);
		*cause = xasprintf("job '%s' cannot move there: %s", name, why);
		goto out;
	}
	from = session_leaf_gpus(sp, old.leaves + old.pod_first[pod], n);
	dest = session_leaf_gpus(sp, nl, n);
	l->phase = CONSOLE_MIGRATING;
	l->sent = false;
	l->failed = false;
	l->mig_pod = pod;
	l->mig_step = 0;
	l->from_node = l->pods[pod].node;
	free(l->from_gpus);
	l->from_gpus = l->pods[pod].gpus;
	{
		struct strbuf g = STRBUF_INIT;

		for (k = 0; k < n; k++)
			strbuf_addf(&g, "%s%s", k ? "," : "", sp->cells[nl[k]].addr);
		l->pods[pod].gpus = strbuf_detach(&g, NULL);
	}
	l->pods[pod].node = to;
	live_rec_set(&rec, now, REC_MIGRATE, j, NULL);
	snprintf(rec.detail, sizeof rec.detail, "pod %d: %s -> %s", pod, from, dest);
	k = live_put_job(c, i, cause) != 0 ||
	    session_log_placement(c->s, j->id, j->engine_id, cause) != 0 ||
	    live_append(c, &rec, cause) != 0;
	if (k)
		session_log_rollback(c->s, created);
	if (k || live_commit(c, created, cause) != 0) {	/* commit rolls back */
		/* nothing recorded: back where it was, running (its old
		   leaves were free a moment ago: the move back cannot meet
		   anything else) */
		if (engine_move(c->s->engine, j->engine_id, old.pod_first, l->npods,
		    old.leaves, old.nleaves, why, sizeof why) != 0)
			live_logf(l, "cellar: lost its cells undoing a migration: %s\n", why);
		free(l->pods[pod].gpus);
		l->pods[pod].gpus = l->from_gpus;
		l->pods[pod].node = l->from_node;
		l->from_gpus = NULL;
		live_mig_clear(l);
		l->phase = CONSOLE_RUNNING;
		*status = 4;
		goto out;
	}
	live_logf(l, "cellar: migrating pod %d: %s -> %s\n", pod, from, dest);
	/* its old cells are free in the engine (a start on the source node
	   waits for the stop there: blocked) */
	sched_touch_all(c->sched);
	c->dirty = true;
	rc = 0;
out:
	live_pinned_release(&old);
	free(nl);
	free(pf);
	free(lv);
	free(from);
	free(dest);
	return rc;
}
