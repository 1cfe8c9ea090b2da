/*
 * live-phase.c — the decisions that move a job between phases (started,
 * stopped), each committed before its hooks run, and settle: what the
 * hooks that came back lead to, phase by phase (console.h's table).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "live/live-int.h"
#include "store/store.h"

/* ---- decisions (each committed before its hooks run) ---- */

/* Leave RUNNING with ev at now: service accounted first. */
void
live_leave(struct job *j, enum job_event ev, double now)
{
	if (j->state == JOB_RUNNING)
		job_account(j, now - j->state_since, 1.0);
	if (now < j->state_since)
		now = j->state_since;
	job_apply(j, ev, now, NULL, 0);
}

/*
 * A job given cells (started, resumed): the record names its GPUs and its
 * log says so (when verb is set), then the job, its placement and the
 * record go to the store together.
 */
int
live_commit_placed(struct console *c, int i, struct rec *rec, const char *verb,
    const int *leaves, int nleaves, char **cause)
{
	struct job *j = &c->jobs[i];
	char *gpus;

	if (verb != NULL) {
		gpus = session_leaf_gpus(c->s->spec, leaves, nleaves);
		snprintf(rec->detail, sizeof rec->detail, "%s", gpus);
		live_logf(&c->live[i], "cellar: %s on %s\n", verb, gpus);
		free(gpus);
	}
	if (live_put_job(c, i, cause) != 0 ||
	    session_log_placement(c->s, j->id, j->engine_id, cause) != 0 ||
	    live_append(c, rec, cause) != 0)
		return -1;
	return 0;
}

int
live_decide_start(struct console *c, int i, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct engine_job_info info;
	struct rec rec;

	job_apply(j, JOB_EV_START, now, NULL, 0);
	live_take_pods(c, i);
	l->phase = CONSOLE_STARTING;
	l->launched = false;
	l->failed = false;
	live_rec_set(&rec, now, REC_START, j, NULL);
	if (engine_job(c->s->engine, j->engine_id, &info))
		return live_commit_placed(c, i, &rec, "starting", info.leaves,
		    info.nleaves, cause);
	return live_commit_placed(c, i, &rec, NULL, NULL, 0, cause);
}

/* A job lost or gave up its cells: the record; the stop hooks follow. */
int
live_decide_stop(struct console *c, int i, enum job_event ev, enum rec_kind kind,
    int by, const char *detail, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct rec rec;

	live_leave(j, ev, now);
	live_rec_set(&rec, now, kind, j, detail);
	if (by >= 0)
		rec.by = c->jobs[by].id;
	c->live[i].phase = CONSOLE_STOPPING;
	/* a preempted job, or one whose node failed (below), goes back to
	   the queue once stopped */
	c->live[i].after = ev == JOB_EV_PREEMPT || (ev == JOB_EV_FAIL &&
	    j->reason == JOB_REASON_NODEFAIL) ? JOB_EV_REQUEUE : (enum job_event)-1;
	if (live_put_job(c, i, cause) != 0 ||
	    store_placement_delete(c->s->store, c->s->run, j->id, cause) != 0 ||
	    live_append(c, &rec, cause) != 0)
		return -1;
	return 0;
}

/* ---- what the hooks back lead to ---- */

/*
 * Job i cannot go on where it is suspended (or resuming): stop it and
 * requeue it to start afresh, the event saying why. One transaction.
 */
static int
give_up(struct console *c, int i, const char *why, double now, char **cause)
{
	struct live *l = &c->live[i];
	char detail[REC_DETAIL_MAX];
	bool created, held = l->phase == CONSOLE_RESUMING ||
	    l->phase == CONSOLE_MIGRATING;

	snprintf(detail, sizeof detail, "%s; stopped, requeued", why ? why :
	    "a hook failed");
	if (live_begin(c, &created, cause) != 0)
		return -1;
	if (live_decide_stop(c, i, JOB_EV_PREEMPT, REC_PREEMPT, -1, detail, now,
	    cause) != 0) {
		session_log_rollback(c->s, created);
		return -1;
	}
	if (live_commit(c, created, cause) != 0)
		return -1;
	live_logf(l, "cellar: %s\n", detail);
	/* (why may be the log's own last_error: used up by now) */
	if (held) {
		sched_release(c->sched, i);
		c->dirty = true;
	}
	l->failed = false;
	live_stop_pods(c, i, JOB_EV_REQUEUE);
	return 0;
}

/* Every pod of a suspended job completed (it ended before its suspend
   took hold): done, counted once. */
static int
complete_suspended(struct console *c, int i, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct rec rec;
	bool created;

	if (live_begin(c, &created, cause) != 0)
		return -1;
	job_apply(j, JOB_EV_RESUME, now, NULL, 0);
	live_leave(j, JOB_EV_FINISH, now);
	job_apply(j, JOB_EV_COMPLETE, now, NULL, 0);
	l->phase = CONSOLE_DONE;
	live_rec_set(&rec, now, REC_COMPLETE, j, "ended while suspended");
	if (live_put_job(c, i, cause) != 0 || live_append(c, &rec, cause) != 0) {
		session_log_rollback(c->s, created);
		return -1;
	}
	if (live_commit(c, created, cause) != 0)
		return -1;
	live_logf(l, "cellar: completed (while suspended)\n");
	return 0;
}

/* After hooks came back: the decisions they lead to. */
int
live_settle(struct console *c, int i, double now, char **cause)
{
	struct live *l = &c->live[i];
	struct job *j = &c->jobs[i];
	struct rec rec;
	bool created, all = true;
	int p;

	if (l->hooks_out > 0)
		return 0;
	switch (l->phase) {
	case CONSOLE_STARTING:
		if (!l->launched)
			return 0;
		if (live_begin(c, &created, cause) != 0)
			return -1;
		if (l->failed) {
			/* the gang fails as a unit: stop the pods that started */
			if (live_decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, l->last_error,
			    now, cause) != 0)
				goto fail;
		} else {
			l->phase = CONSOLE_RUNNING;
			l->next_status = now + c->s->spec->backend.status_interval;
			if (live_put_job(c, i, cause) != 0)
				goto fail;
		}
		if (live_commit(c, created, cause) != 0)
			return -1;
		if (l->failed) {
			sched_release(c->sched, i);
			c->dirty = true;
			live_stop_pods(c, i, (enum job_event)-1);
		} else
			live_logf(l, "cellar: running\n");
		return 0;
	case CONSOLE_RUNNING:
		for (p = 0; p < l->npods; p++)
			all = all && l->pods[p].done;
		if (!l->failed && !all)
			return 0;
		if (live_begin(c, &created, cause) != 0)
			return -1;
		if (l->failed) {
			if (live_decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, l->last_error,
			    now, cause) != 0)
				goto fail;
		} else {
			live_leave(j, JOB_EV_FINISH, now);
			job_apply(j, JOB_EV_COMPLETE, now, NULL, 0);
			l->phase = CONSOLE_DONE;
			live_rec_set(&rec, now, REC_COMPLETE, j, NULL);
			if (live_put_job(c, i, cause) != 0 ||
			    store_placement_delete(c->s->store, c->s->run, j->id,
			    cause) != 0 || live_append(c, &rec, cause) != 0)
				goto fail;
		}
		if (live_commit(c, created, cause) != 0)
			return -1;
		sched_release(c->sched, i);
		c->dirty = true;
		if (l->failed)
			live_stop_pods(c, i, (enum job_event)-1);
		else
			live_logf(l, "cellar: completed\n");
		return 0;
	case CONSOLE_STOPPING:
		if (!l->sent) {
			if (now >= l->next_stop)
				live_stop_pods(c, i, l->after);
			return 0;
		}
		if (l->stop_failed) {
			/* its processes may still run on its GPUs: not given
			   up (its nodes stay blocked while it is STOPPING, and
			   are marked bad from LIVE_STOP_FAILS rounds on), the
			   stop tried again (stop hooks are idempotent) */
			l->stop_failed = false;
			if (++l->stop_fails == LIVE_STOP_FAILS)
				c->nstuck++;
			l->sent = false;
			l->next_stop = now + c->s->spec->backend.status_interval;
			live_logf(l, "cellar: stop failed (%d %s in a row): its GPUs "
			    "stay taken; stopping again%s\n", l->stop_fails,
			    l->stop_fails == 1 ? "time" : "times",
			    l->stop_fails >= LIVE_STOP_FAILS ? "; its nodes are "
			    "marked bad until it stops" : "");
			return 0;
		}
		if (live_begin(c, &created, cause) != 0)
			return -1;
		if (l->after == JOB_EV_REQUEUE) {
			job_apply(j, JOB_EV_REQUEUE, now, NULL, 0);
			l->phase = CONSOLE_QUEUED;
			live_rec_set(&rec, now, REC_REQUEUE, j, "stopped; back in the queue");
			if (live_append(c, &rec, cause) != 0)
				goto fail;
		} else
			l->phase = CONSOLE_DONE;
		live_mig_clear(l);	/* its source was stopped with the rest */
		if (live_put_job(c, i, cause) != 0)
			goto fail;
		if (live_commit(c, created, cause) != 0)
			return -1;	/* rolled back; the tick halts */
		if (l->stop_fails > 0)
			live_logf(l, "cellar: stop succeeded after %d failed %s\n",
			    l->stop_fails, l->stop_fails == 1 ? "round" : "rounds");
		if (l->stop_fails >= LIVE_STOP_FAILS)
			c->nstuck--;
		l->stop_fails = 0;
		for (p = 0; p < l->npods; p++)
			free(l->pods[p].gpus);
		free(l->pods);
		l->pods = NULL;
		l->npods = 0;
		if (l->phase == CONSOLE_QUEUED) {
			sched_submit(c->sched, i, now);
			c->dirty = true;
			live_logf(l, "cellar: stopped, requeued\n");
		} else
			live_logf(l, "cellar: stopped\n");
		return 0;
	case CONSOLE_SUSPENDING:
	case CONSOLE_RESUMING:
		if (!l->sent) {
			live_phase_pods(c, i, l->phase == CONSOLE_SUSPENDING ?
			    SPEC_HOOK_SUSPEND : SPEC_HOOK_RESUME);
			return 0;
		}
		if (l->failed)	/* a suspend or resume hook failed */
			return give_up(c, i, l->last_error, now, cause);
		if (live_begin(c, &created, cause) != 0)
			return -1;
		if (l->phase == CONSOLE_SUSPENDING)
			l->phase = CONSOLE_SUSPENDED;
		else {
			l->phase = CONSOLE_RUNNING;
			l->next_status = now + c->s->spec->backend.status_interval;
		}
		if (live_put_job(c, i, cause) != 0)
			goto fail;
		if (live_commit(c, created, cause) != 0)
			return -1;
		live_logf(l, "cellar: %s\n", l->phase == CONSOLE_SUSPENDED ? "suspended" :
		    "resumed");
		return 0;
	case CONSOLE_MIGRATING:
		/* step 0: the stop hook at the source; step 1 (committed
		   first): the migrate hook on the new node, once nothing else
		   still holds its GPUs there */
		if (!l->sent) {
			if (l->mig_step == 0)
				live_hook_source(c, i);
			else if (live_blocked(c, i))
				return 0;
			else
				live_hook_pod(c, i, l->mig_pod, SPEC_HOOK_MIGRATE);
			l->sent = true;
			return 0;
		}
		/* a failure: stopped wherever the pod may be (stop_pods: the
		   source too while step 0), requeued */
		if (l->failed)
			return give_up(c, i, l->last_error, now, cause);
		if (live_begin(c, &created, cause) != 0)
			return -1;
		if (l->mig_step == 0 && l->mig_ended != 0) {
			struct pod *pd = &l->pods[l->mig_pod];

			/* it ended on its own at the source: no move; its
			   record points there again (status finds its end
			   there after a restart too), the cells stay where
			   the engine moved them until the job leaves */
			free(pd->gpus);
			pd->gpus = l->from_gpus;
			pd->node = l->from_node;
			l->from_gpus = NULL;
			pd->done = l->mig_ended == 1;
			l->failed = l->mig_ended == 2;
			live_mig_clear(l);
			l->mig_ended = 0;
			l->phase = CONSOLE_RUNNING;
			l->next_status = now;
			if (live_put_job(c, i, cause) != 0)
				goto fail;
			if (live_commit(c, created, cause) != 0)
				return -1;
			live_logf(l, "cellar: pod %d ended on its own before it moved\n",
			    (int)(pd - l->pods));
			return live_settle(c, i, now, cause);
		}
		if (l->mig_step == 0) {
			/* a restart must not stop the source again: the
			   pod's record there may be the new node's by then */
			l->mig_step = 1;
			if (live_put_job(c, i, cause) != 0) {
				l->mig_step = 0;
				goto fail;
			}
			if (live_commit(c, created, cause) != 0) {
				l->mig_step = 0;
				return -1;
			}
			live_logf(l, "cellar: pod %d stopped on '%s'\n", l->mig_pod,
			    c->s->spec->nodes[l->from_node].name);
			l->sent = false;
			return live_settle(c, i, now, cause);
		}
		l->phase = CONSOLE_RUNNING;
		l->next_status = now + c->s->spec->backend.status_interval;
		if (live_put_job(c, i, cause) != 0) {
			l->phase = CONSOLE_MIGRATING;
			goto fail;
		}
		if (live_commit(c, created, cause) != 0) {
			l->phase = CONSOLE_MIGRATING;
			return -1;
		}
		live_mig_clear(l);
		live_logf(l, "cellar: migrated\n");
		return 0;
	case CONSOLE_SUSPENDED:
		for (p = 0; p < l->npods; p++)
			all = all && l->pods[p].done;
		if (l->failed) {	/* status: a pod is gone */
			char why[300];

			snprintf(why, sizeof why, "while suspended: %s", l->last_error ?
			    l->last_error : "a pod is gone");
			return give_up(c, i, why, now, cause);
		}
		if (all && l->npods > 0)
			return complete_suspended(c, i, now, cause);
		return 0;
	default:
		return 0;
	}
fail:
	session_log_rollback(c->s, created);
	return -1;
}
