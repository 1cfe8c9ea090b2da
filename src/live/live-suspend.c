/*
 * live-suspend.c — suspension: where a suspended job is pinned (its pods'
 * GPUs as cells), a preempted job suspended rather than stopped, and the
 * pass before the policy's that gives suspended jobs their own cells
 * back, or stops and requeues those that cannot have them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/xmalloc.h"
#include "live/live-int.h"
#include "store/store.h"

void
live_pinned_release(struct pinned *pl)
{
	free(pl->pod_first);
	free(pl->leaves);
	memset(pl, 0, sizeof *pl);
}

/*
 * Job i's pods (node, GPU addresses) as leaf cells of the spec: 0, or -1
 * with why when they are no longer there (the spec changed) or span chains.
 */
int
live_pinned_of(const struct console *c, int i, struct pinned *pl, char *why, size_t len)
{
	const struct spec *sp = c->s->spec;
	const struct live *l = &c->live[i];
	int p, k, n = 0;

	memset(pl, 0, sizeof *pl);
	pl->chain = -1;
	pl->pod_first = xcalloc((size_t)l->npods + 1, sizeof *pl->pod_first);
	pl->leaves = xcalloc((size_t)c->jobs[i].gpus + 1, sizeof *pl->leaves);
	for (p = 0; p < l->npods; p++) {
		const char *g = l->pods[p].gpus;

		pl->pod_first[p] = n;
		while (*g != '\0') {
			size_t w = strcspn(g, ",");

			for (k = 0; k < sp->ncells; k++)
				if (sp->cells[k].level == 1 &&
				    sp->cells[k].node == l->pods[p].node &&
				    strlen(sp->cells[k].addr) == w &&
				    strncmp(sp->cells[k].addr, g, w) == 0)
					break;
			if (k == sp->ncells || n >= c->jobs[i].gpus ||
			    (pl->chain >= 0 && sp->cells[k].chain != pl->chain)) {
				snprintf(why, len, "its GPUs %s:%s are not in the spec",
				    sp->nodes[l->pods[p].node].name, l->pods[p].gpus);
				live_pinned_release(pl);
				return -1;
			}
			pl->chain = sp->cells[k].chain;
			pl->leaves[n++] = k;
			g += w + (g[w] == ',');
		}
	}
	pl->pod_first[l->npods] = n;
	pl->nleaves = n;
	if (n != c->jobs[i].gpus || l->npods == 0) {
		snprintf(why, len, "its %d GPUs do not make its %d", n, c->jobs[i].gpus);
		live_pinned_release(pl);
		return -1;
	}
	return 0;
}

/*
 * A preempted job can be suspended rather than stopped when the hook set
 * has suspend and resume, it is guaranteed (an opportunistic job could
 * not be pinned back into a VC) and running (its pods all started).
 */
bool
live_can_suspend(const struct console *c, int i)
{
	const struct spec_backend *b = &c->s->spec->backend;

	return b->hooks[SPEC_HOOK_SUSPEND] != NULL && b->hooks[SPEC_HOOK_RESUME] != NULL &&
	    c->jobs[i].klass != JOB_OPPORTUNISTIC && c->live[i].phase == CONSOLE_RUNNING &&
	    !c->live[i].failed;
}

/* Preempted by `by`: suspended where it runs; the engine took its cells,
   its pods stay as the place it may resume on. The suspend hooks follow. */
int
live_decide_suspend(struct console *c, int i, int by, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct pinned pl;
	struct rec rec;
	char why[256], *gpus;
	int rc;

	live_leave(j, JOB_EV_SUSPEND, now);
	live_rec_set(&rec, now, REC_SUSPEND, j, NULL);
	if (by >= 0)
		rec.by = c->jobs[by].id;
	/* where it waits to resume, as a start's event says where it ran */
	if (live_pinned_of(c, i, &pl, why, sizeof why) == 0) {
		gpus = session_leaf_gpus(c->s->spec, pl.leaves, pl.nleaves);
		snprintf(rec.detail, sizeof rec.detail, "%s", gpus);
		free(gpus);
		live_pinned_release(&pl);
	}
	l->phase = CONSOLE_SUSPENDING;
	l->sent = false;
	rc = live_put_job(c, i, cause) != 0 ||
	    store_placement_delete(c->s->store, c->s->run, j->id, cause) != 0 ||
	    live_append(c, &rec, cause) != 0;
	return rc ? -1 : 0;
}

/* ---- resuming suspended jobs ---- */

/* The engine request job i starts (or resumes) with. */
static void
job_req(const struct console *c, int i, struct engine_req *r, int *klass)
{
	const struct job *j = &c->jobs[i];
	struct policy_key key;

	sched_job_key(c->sched, i, &key, klass);
	memset(r, 0, sizeof *r);
	r->name = j->name;
	r->vc = j->vc;
	r->priority = j->klass == JOB_OPPORTUNISTIC ? ENGINE_PRIO_OPPORTUNISTIC : *klass;
	r->leaf_type = j->leaf_type;
	r->pin = -1;
	r->nmembers = j->nmembers;
	memcpy(r->members, j->members, sizeof r->members);
}

/*
 * A queued guaranteed job of i's VC ahead of it in the policy's order
 * would be placed (a dry run) on one of its leaves: the cells go to that
 * job first, as a pass would give them.
 */
static bool
wanted_by_higher(struct console *c, int i, const struct pinned *pl)
{
	struct policy_key ki, kk;
	struct engine_plan plan;
	struct engine_req r;
	int k, a, b, klass;
	bool hit = false;

	sched_job_key(c->sched, i, &ki, &klass);
	engine_plan_init(&plan);
	for (k = 0; k < c->n && !hit; k++) {
		if (c->live[k].phase != CONSOLE_QUEUED || c->jobs[k].vc != c->jobs[i].vc ||
		    c->jobs[k].klass == JOB_OPPORTUNISTIC)
			continue;
		sched_job_key(c->sched, k, &kk, &klass);
		if (policy_key_cmp(&kk, &ki) >= 0)
			continue;
		job_req(c, k, &r, &klass);
		if (engine_place(c->s->engine, &r, &plan) != 0)
			continue;
		for (a = 0; a < plan.nleaves && !hit; a++)
			for (b = 0; b < pl->nleaves && !hit; b++)
				hit = plan.leaves[a] == pl->leaves[b];
	}
	engine_plan_release(&plan);
	return hit;
}

/* What a suspended job waits for, or why it never resumes (*lost). */
static bool
may_resume(struct console *c, int i, const struct pinned *pl, bool *lost,
    char *why, size_t len)
{
	const struct spec *sp = c->s->spec;
	struct engine_cell_info info;
	int k;

	*lost = false;
	/* a bad node first: busy GPUs elsewhere must not hide it */
	for (k = 0; k < pl->nleaves; k++) {
		int node = sp->cells[pl->leaves[k]].node;

		if (live_node_bad_now(c, node)) {
			snprintf(why, len, "node '%s' of its GPUs is bad", sp->nodes[node].name);
			*lost = true;
			return false;
		}
	}
	for (k = 0; k < pl->nleaves; k++) {
		engine_cell(c->s->engine, pl->leaves[k], &info);
		if (info.used > 0 || info.opp > 0)
			return false;
	}
	return !wanted_by_higher(c, i, pl);
}

/* Job i is suspended on cells pl that are free: take them again (pinned:
   exactly those) and count it running; the resume hooks follow. */
static int
decide_resume(struct console *c, int i, const struct pinned *pl, double now,
    bool *resumed, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct policy_key key;
	struct engine_req r;
	struct rec rec;
	char why[256];
	int id, klass;

	*resumed = false;
	job_req(c, i, &r, &klass);
	id = engine_adopt(c->s->engine, &r, pl->chain, pl->pod_first, c->live[i].npods,
	    pl->leaves, pl->nleaves, why, sizeof why);
	if (id < 0) {
		/* e.g. its VC's cells are bound elsewhere now: it waits */
		if (l->waits == NULL || strcmp(l->waits, why) != 0) {
			free(l->waits);
			l->waits = xstrdup(why);
			live_logf(l, "cellar: not resumed yet: %s\n", why);
		}
		return 0;
	}
	j->engine_id = id;
	j->opportunistic = false;
	sched_job_key(c->sched, i, &key, &klass);
	if (sched_restore_running(c->sched, i, &key, klass, why, sizeof why) != 0) {
		engine_release(c->s->engine, id);	/* cannot be: it was running */
		j->engine_id = -1;
		live_logf(l, "cellar: not resumed: %s\n", why);
		return 0;
	}
	job_apply(j, JOB_EV_RESUME, now, NULL, 0);
	free(l->waits);
	l->waits = NULL;
	l->phase = CONSOLE_RESUMING;
	l->sent = false;
	l->failed = false;
	live_rec_set(&rec, now, REC_RESUME, j, NULL);
	*resumed = true;
	return live_commit_placed(c, i, &rec, "resuming", pl->leaves, pl->nleaves,
	    cause);
}

/*
 * Before the policy's pass: suspended jobs, in the policy's order, take
 * their own cells back when these are free and no queued job ahead of
 * them wants them (so a lower job cannot take them first); those whose
 * cells cannot come back are stopped and requeued. The engine acts before
 * the store commits, as in a pass: a store failure halts the console.
 */
int
live_resume_pass(struct console *c, double now, char **cause)
{
	struct pinned pl;
	int *order, *act, n = 0, k, m, i;
	bool created, lost, resumed;
	char why[256];
	int rc = 0, nact = 0;

	order = xcalloc((size_t)c->nalive + 1, sizeof *order);
	act = xcalloc((size_t)c->nalive + 1, sizeof *act);
	for (k = 0; k < c->nalive; k++) {
		struct policy_key ki, km;
		int klass;

		i = c->alive[k];
		/* (a status poll still out is fine: the resume hooks wait
		   for it, phase_pods) */
		if (c->live[i].phase != CONSOLE_SUSPENDED || c->live[i].failed)
			continue;
		/* insertion in the policy's order: a handful at most */
		sched_job_key(c->sched, i, &ki, &klass);
		for (m = n; m > 0; m--) {
			sched_job_key(c->sched, order[m - 1], &km, &klass);
			if (policy_key_cmp(&km, &ki) <= 0)
				break;
			order[m] = order[m - 1];
		}
		order[m] = i;
		n++;
	}
	if (n == 0)
		goto out;
	if ((rc = live_begin(c, &created, cause)) != 0)
		goto out;
	for (k = 0; k < n; k++) {
		i = order[k];
		lost = false;
		if (live_pinned_of(c, i, &pl, why, sizeof why) != 0)
			lost = true;
		else if (!may_resume(c, i, &pl, &lost, why, sizeof why)) {
			live_pinned_release(&pl);
			if (!lost)
				continue;
		} else {
			rc = decide_resume(c, i, &pl, now, &resumed, cause);
			live_pinned_release(&pl);
			if (rc != 0)
				break;
			if (resumed)
				act[nact++] = i;
			continue;
		}
		/* its cells cannot come back: stopped, requeued afresh */
		strncat(why, "; it cannot resume there; stopped, requeued", sizeof why -
		    strlen(why) - 1);
		live_set_error(&c->live[i], why);
		if ((rc = live_decide_stop(c, i, JOB_EV_PREEMPT, REC_PREEMPT, -1, why, now,
		    cause)) != 0)
			break;
		act[nact++] = i;
	}
	if (rc != 0) {
		session_log_rollback(c->s, created);
		goto out;
	}
	if (nact == 0) {
		session_log_rollback(c->s, created);
		goto out;
	}
	if ((rc = live_commit(c, created, cause)) != 0)
		goto out;
	for (k = 0; k < nact; k++) {
		i = act[k];
		if (c->live[i].phase == CONSOLE_RESUMING)
			live_phase_pods(c, i, SPEC_HOOK_RESUME);
		else {
			live_stop_pods(c, i, JOB_EV_REQUEUE);
		}
	}
out:
	free(order);
	free(act);
	return rc;
}
