/*
 * console.c — the live session's core (see console.h): made and freed,
 * jobs submitted and cancelled, and the tick: hook results in, decisions
 * recorded, the scheduler's pass, hooks out. It sits between the command
 * layer (submit, cancel, wait, job log) and the backend; the engine and
 * the store are the session's. The other concerns are in live-*.c
 * (live-int.h lists them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/shquote.h"
#include "core/xmalloc.h"
#include "live/live-int.h"
#include "store/store.h"

static const char *const phase_names[] = {
	[CONSOLE_QUEUED] = "queued",
	[CONSOLE_STARTING] = "starting",
	[CONSOLE_RUNNING] = "running",
	[CONSOLE_STOPPING] = "stopping",
	[CONSOLE_DONE] = "done",
	[CONSOLE_SUSPENDING] = "suspending",
	[CONSOLE_SUSPENDED] = "suspended",
	[CONSOLE_RESUMING] = "resuming",
	[CONSOLE_MIGRATING] = "migrating",
};

const char *
console_phase_name(enum console_phase p)
{
	return phase_names[p];
}

int
console_get(struct session *s, struct console **out, char **cause)
{
	struct policy_params par;
	struct console *c;
	struct backend *b;

	if (s->console != NULL) {
		*out = s->console;
		return 0;
	}
	/* one driver per store: only its server runs hooks */
	if (!s->serving) {
		char *why = NULL, *db = session_db_path(s, &why);

		free(why);
		*cause = xasprintf("no cellar server is running for '%s': start "
		    "one with 'cellar serve' (or 'systemctl start cellar')",
		    db != NULL ? db : "the state store");
		free(db);
		return -2;
	}
	if ((b = backend_create(s->spec, cause)) == NULL)
		return -1;
	c = xcalloc(1, sizeof *c);
	strbuf_init(&c->notes);
	c->s = s;
	c->b = b;
	c->q = hookq_create(b);
	policy_params_init(&par);
	if (policy_init(&c->policy, &policy_priority, &par, cause) != 0) {
		hookq_free(c->q);
		backend_free(b);
		free(c);
		return -1;
	}
	c->sched = sched_create(s->engine, &c->policy, NULL, 0);
	c->health = xcalloc((size_t)s->spec->nnodes + 1, sizeof *c->health);
	s->console = c;
	s->console_release = console_free;
	if (live_recover(c, &c->notes, cause) != 0) {
		s->console = NULL;
		console_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

void
live_release(struct live *l)
{
	int i;

	strvec_release(&l->argv);
	strvec_release(&l->env);
	for (i = 0; i < l->npods; i++)
		free(l->pods[i].gpus);
	free(l->pods);
	l->pods = NULL;
	l->npods = 0;
	free(l->last_error);
	free(l->waits);
	free(l->from_gpus);
	strbuf_release(&l->log);
}

void
console_free(struct console *c)
{
	int i;

	if (c == NULL)
		return;
	hookq_free(c->q);
	sched_free(c->sched);
	policy_release(&c->policy);
	backend_free(c->b);
	for (i = 0; i < c->n; i++)
		live_release(&c->live[i]);
	free(c->live);
	free(c->jobs);
	free(c->acts);
	free(c->done);
	free(c->halted);
	free(c->alive);
	strbuf_release(&c->notes);
	for (i = 0; i < c->s->spec->nnodes; i++)
		free(c->health[i].why);
	free(c->health);
	free(c);
}

const char *
console_halted(const struct console *c)
{
	return c->halted;
}

/* Refuse to act once halted: *cause says why. */
bool
live_halted(const struct console *c, char **cause)
{
	if (c->halted == NULL)
		return false;
	*cause = xasprintf("the live session is halted after a store failure (%s); "
	    "the cellar server resumes once the store takes writes again (see "
	    "its log), or restart it", c->halted);
	return true;
}

const char *
console_notes(const struct console *c)
{
	return c->notes.len > 0 ? c->notes.buf : NULL;
}

int
console_busy(const struct console *c)
{
	return hookq_pending(c->q);
}

/* ---- the jobs not retired (invariant 5) ---- */

void
live_alive_add(struct console *c, int i)
{
	XGROW(c->alive, c->alive_cap, (size_t)c->nalive + 1);
	c->alive[c->nalive++] = i;
}

/* Done, its hooks back and its log stored: nothing will touch it again
   but a reader (job log, wait on a finished job). */
static bool
retired(const struct console *c, int i)
{
	const struct live *l = &c->live[i];

	return l->phase == CONSOLE_DONE && l->hooks_out == 0 && !l->log_dirty;
}

static void
alive_prune(struct console *c)
{
	int k, m = 0;

	for (k = 0; k < c->nalive; k++)
		if (!retired(c, c->alive[k]))
			c->alive[m++] = c->alive[k];
	c->nalive = m;
}

/* ---- submit and cancel ---- */

static bool
name_taken(const struct console *c, const char *name)
{
	int i;

	for (i = 0; i < c->nalive; i++)
		if (c->live[c->alive[i]].phase != CONSOLE_DONE &&
		    strcmp(c->jobs[c->alive[i]].name, name) == 0)
			return true;
	return engine_job_find(c->s->engine, name) >= 0;
}

/*
 * A job its VC could not hold even with every cell free (a pod larger
 * than any of its cells, more pods than it has cells for, a type it does
 * not have) would wait forever with reason Resources while GPUs idle:
 * refused at submit with place's words (the engine's dry run).
 */
static bool
never_fits(struct console *c, const struct console_submit *sub, char **cause)
{
	struct engine_plan plan;
	struct engine_req r;
	bool never;

	memset(&r, 0, sizeof r);
	r.name = sub->name;
	r.vc = sub->vc;
	r.priority = sub->priority < 0 ? ENGINE_PRIO_OPPORTUNISTIC : sub->priority;
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	r.members[0].pods = sub->pods;
	r.members[0].gpus = sub->gpus;
	engine_plan_init(&plan);
	never = engine_place(c->s->engine, &r, &plan) != 0 &&
	    (plan.fail == ENGINE_ETOOBIG || plan.fail == ENGINE_ENOTYPE);
	if (never)
		*cause = xasprintf("cannot place job '%s': %s", sub->name, plan.why);
	engine_plan_release(&plan);
	return never;
}

int
console_submit(struct console *c, const struct console_submit *sub, int *status,
    char **cause)
{
	struct session *s = c->s;
	struct job *j;
	struct live *l;
	struct rec rec;
	bool created;
	double now = session_now();
	int i, id;

	*status = 1;
	if (live_halted(c, cause)) {
		*status = 4;
		return -1;
	}
	if (!name_valid(sub->name, JOB_NAME_MAX)) {
		*cause = xasprintf("bad job name '%s' (letters, digits, '.', '_', "
		    "'-'; up to %d bytes, starting with a letter or digit)",
		    sub->name, JOB_NAME_MAX - 1);
		return -1;
	}
	if (name_taken(c, sub->name)) {
		*cause = xasprintf("job '%s' already exists", sub->name);
		return -1;
	}
	for (i = 0; i < sub->nenv; i++) {
		const char *eq = strchr(sub->env[i], '=');
		char *k = eq ? xstrndup(sub->env[i], (size_t)(eq - sub->env[i])) : NULL;
		/* cellar's own variables are not the job's to set, but
		   CELLAR_CHECKPOINT is the job's (the process set's suspend
		   and migration run it) */
		bool ok = k != NULL && env_name_valid(k) && (strncmp(k, "CELLAR_",
		    7) != 0 || strcmp(k, "CELLAR_CHECKPOINT") == 0) &&
		    strcmp(k, "CUDA_VISIBLE_DEVICES") != 0;

		free(k);
		if (!ok) {
			*cause = xasprintf("bad environment entry '%s' (NAME=VALUE; "
			    "NAME of letters, digits and '_', not CELLAR_* (but "
			    "CELLAR_CHECKPOINT) or CUDA_VISIBLE_DEVICES)", sub->env[i]);
			return -1;
		}
	}
	if (never_fits(c, sub, cause))
		return -1;
	if (session_log_begin(s, &created, cause) != 0) {
		*status = 4;
		return -1;
	}
	/* a new id: a job of this name that has ended keeps its own */
	if (store_job_next_id(s->store, s->run, &id, cause) != 0)
		goto fail;
	XGROW(c->live, c->cap, (size_t)c->n + 1);
	c->jobs = xreallocarray(c->jobs, (size_t)c->n + 1, sizeof *c->jobs);
	j = &c->jobs[c->n];
	l = &c->live[c->n];
	memset(l, 0, sizeof *l);
	strbuf_init(&l->log);
	job_init(j, id, sub->name, sub->vc, now);
	job_set_shape(j, sub->pods, sub->gpus);
	snprintf(j->user, sizeof j->user, "%s", s->caller != NULL ? s->caller :
	    store_user());
	/* who its hooks run it as (cellar-spec(5), ACCESS): the caller's, or
	   without a server this process's own */
	j->uid = s->run_uid >= 0 ? s->run_uid : (int)geteuid();
	j->gid = s->run_gid >= 0 ? s->run_gid : (int)getegid();
	j->priority = sub->priority < 0 ? 0 : sub->priority;
	j->klass = sub->priority < 0 ? JOB_OPPORTUNISTIC : JOB_GUARANTEED;
	l->phase = CONSOLE_QUEUED;
	l->after = (enum job_event)-1;
	for (i = 0; i < sub->argc; i++)
		strvec_push(&l->argv, sub->argv[i]);
	for (i = 0; i < sub->nenv; i++)
		strvec_push(&l->env, sub->env[i]);
	c->n++;
	live_logf(l, "cellar: submitted to VC '%s', %d x %d GPUs, priority %d\n",
	    s->spec->vcs[j->vc].name, sub->pods, sub->gpus, sub->priority);
	live_rec_set(&rec, now, REC_SUBMIT, j, NULL);
	if (live_put_job(c, c->n - 1, cause) != 0 || live_append(c, &rec, cause) != 0) {
		session_log_rollback(s, created);
		c->n--;
		live_release(l);
		*status = 4;
		return -1;
	}
	if (session_log_commit(s, created, cause) != 0) {	/* rolled back */
		c->n--;
		live_release(l);
		*status = 4;
		return -1;
	}
	sched_grow(c->sched, c->jobs, c->n);
	sched_submit(c->sched, c->n - 1, now);
	live_alive_add(c, c->n - 1);
	c->dirty = true;
	l->log_dirty = false;
	return 0;
fail:
	session_log_rollback(s, created);
	*status = 4;
	return -1;
}

/* One store transaction per decision batch (session-log.h): a store that
   cannot be written fails the command or tick before anything changes,
   except in a pass, where the engine has acted: the console then halts
   (console_tick) so no hook carries out an unrecorded decision. */
int
live_begin(struct console *c, bool *created, char **cause)
{
	return session_log_begin(c->s, created, cause);
}

int
live_commit(struct console *c, bool created, char **cause)
{
	return session_log_commit(c->s, created, cause);
}

int
console_cancel(struct console *c, const char *name, int *status, char **cause)
{
	int i = console_find(c, name);
	struct job *j, saved;
	struct live *l;
	struct rec rec;
	enum console_phase phase;
	enum job_event after;
	bool created, running;
	double now = session_now();
	size_t loglen;

	*status = 1;
	if (live_halted(c, cause)) {
		*status = 4;
		return -1;
	}
	if (i < 0 || c->live[i].phase == CONSOLE_DONE ||
	    c->live[i].phase == CONSOLE_STOPPING) {
		*cause = xasprintf(i < 0 ? "no job '%s'" : "job '%s' is not queued "
		    "or running", name);
		return -1;
	}
	j = &c->jobs[i];
	l = &c->live[i];
	if (live_begin(c, &created, cause) != 0) {
		*status = 4;
		return -1;
	}
	/* what a failed write puts back: nothing else changes before commit */
	saved = *j;
	phase = l->phase;
	after = l->after;
	loglen = l->log.len;
	live_logf(l, "cellar: cancelled\n");	/* written with the decision */
	running = c->live[i].phase != CONSOLE_QUEUED;
	if (running) {
		if (live_decide_stop(c, i, JOB_EV_CANCEL, REC_CANCEL, -1, "cancelled",
		    now, cause) != 0)
			goto fail;
	} else {
		job_apply(j, JOB_EV_CANCEL, now, NULL, 0);
		c->live[i].phase = CONSOLE_DONE;
		live_rec_set(&rec, now, REC_CANCEL, j, "cancelled while queued");
		if (live_put_job(c, i, cause) != 0 || live_append(c, &rec, cause) != 0)
			goto fail;
	}
	if (live_commit(c, created, cause) != 0) {
		*j = saved;
		l->phase = phase;
		l->after = after;
		if (l->log.len >= loglen)
			strbuf_setlen(&l->log, loglen);
		*status = 4;
		return -1;
	}
	sched_cancel(c->sched, i);
	c->dirty = true;
	if (running)
		live_stop_pods(c, i, (enum job_event)-1);
	return 0;
fail:
	session_log_rollback(c->s, created);
	*j = saved;
	l->phase = phase;
	l->after = after;
	if (l->log.len >= loglen)
		strbuf_setlen(&l->log, loglen);
	*status = 4;
	return -1;
}

/* ---- the tick ---- */

/*
 * The logs that changed since their last write, in one transaction at
 * the end of the tick (those of the tick's decisions went with them):
 * what a hook printed is in the store before the next tick, so `job log`
 * outlives a crash and the job.
 */
static int
flush_logs(struct console *c, char **cause)
{
	bool created;
	int k;

	for (k = 0; k < c->nalive && !c->live[c->alive[k]].log_dirty; k++)
		;
	if (k == c->nalive)
		return 0;
	if (live_begin(c, &created, cause) != 0)
		return -1;
	for (; k < c->nalive; k++)
		if (live_put_log(c, c->alive[k], cause) != 0) {
			session_log_rollback(c->s, created);
			return -1;
		}
	if (live_commit(c, created, cause) != 0)
		return -1;
	for (k = 0; k < c->nalive; k++)
		c->live[c->alive[k]].log_dirty = false;
	return 0;
}

/* Each alive job's pending reason before a pass (by live index). */
static enum job_reason *
reasons_before(const struct console *c)
{
	enum job_reason *was = xcalloc((size_t)c->n + 1, sizeof *was);
	int ai;

	for (ai = 0; ai < c->nalive; ai++)
		was[c->alive[ai]] = c->jobs[c->alive[ai]].reason;
	return was;
}

/*
 * Store the rows of the queued jobs whose reason the pass changed, so
 * job show, jobs --all and a followed store say why a job waits as the
 * queue does (they said "None", the reason at submission). How many, or
 * -1 with *cause.
 */
static int
reasons_put(struct console *c, const enum job_reason *was, char **cause)
{
	int ai, i, n = 0;

	for (ai = 0; ai < c->nalive; ai++) {
		i = c->alive[ai];
		if (c->live[i].phase != CONSOLE_QUEUED || c->jobs[i].reason == was[i])
			continue;
		if (store_job_put(c->s->store, c->s->run, &c->jobs[i], cause) != 0)
			return -1;
		n++;
	}
	return n;
}

static int
tick(struct console *c, char **cause)
{
	double now = session_now();
	bool created;
	int ai, i, k, p, nout, nreasons;
	enum job_reason *was;

	alive_prune(c);
	/* no hook for what a server's open group has not committed yet */
	hookq_hold(c->q, c->s->store != NULL && store_in_group(c->s->store));
	/* 1. hooks that finished */
	c->ndone = 0;
	hookq_service(c->q, now, &c->done, &c->ndone);
	for (k = 0; k < c->ndone; k++) {
		if (c->done[k].job >= 0 && c->done[k].job < c->n)
			live_hook_back(c, &c->done[k]);
		else if (c->done[k].job < 0 && c->done[k].hook == SPEC_HOOK_HEALTH)
			live_health_back(c, &c->done[k]);
		hookq_done_release(&c->done[k]);
	}
	/* 2. what they lead to: nodes first, so a pass avoids bad ones */
	for (i = 0; i < c->s->spec->nnodes; i++)
		if (live_node_settle(c, i, now, cause) != 0)
			return -1;
	for (ai = 0; ai < c->nalive; ai++)
		if (live_settle(c, c->alive[ai], now, cause) != 0)
			return -1;
	/* 3. suspended jobs back on their own cells first, then the policy's
	   pass; the store is locked before the engine acts */
	if (c->dirty && live_resume_pass(c, now, cause) != 0)
		return -1;
	if (c->dirty && sched_pending(c->sched) > 0) {
		if (live_begin(c, &created, cause) != 0)
			return -1;
		c->nacts = 0;
		was = reasons_before(c);
		sched_pass(c->sched, now, &c->acts, &c->nacts, &c->acap);
		for (k = 0; k < c->nacts; k++) {
			struct sched_action *a = &c->acts[k];
			int rc = 0;

			if (a->kind == SCHED_START)
				rc = live_decide_start(c, a->job, now, cause);
			else if (a->kind == SCHED_PREEMPT && live_can_suspend(c, a->job))
				rc = live_decide_suspend(c, a->job, a->by, now, cause);
			else if (a->kind == SCHED_PREEMPT)
				rc = live_decide_stop(c, a->job, JOB_EV_PREEMPT, REC_PREEMPT,
				    a->by, NULL, now, cause);
			if (rc != 0) {
				session_log_rollback(c->s, created);
				free(was);
				return -1;
			}
		}
		nreasons = reasons_put(c, was, cause);
		free(was);
		if (nreasons < 0) {
			session_log_rollback(c->s, created);
			return -1;
		}
		if (c->nacts == 0 && nreasons == 0)
			session_log_rollback(c->s, created);
		else if (live_commit(c, created, cause) != 0)
			return -1;
		for (k = 0; k < c->nacts; k++)
			if (c->acts[k].kind == SCHED_PREEMPT) {
				int v = c->acts[k].job;
				bool susp = c->live[v].phase == CONSOLE_SUSPENDING;

				live_logf(&c->live[v], "cellar: preempted by '%s'%s\n",
				    c->jobs[c->acts[k].by].name, susp ? ": suspending" : "");
				if (susp)
					live_phase_pods(c, v, SPEC_HOOK_SUSPEND);
				else
					live_stop_pods(c, v, JOB_EV_REQUEUE);
			}
	}
	c->dirty = false;
	/* 4. hooks out: starts no longer blocked, status polls */
	for (ai = 0; ai < c->nalive; ai++) {
		struct live *l = &c->live[i = c->alive[ai]];

		if (l->phase == CONSOLE_STARTING && !l->launched && !live_blocked(c, i)) {
			l->launched = true;
			for (p = 0; p < l->npods; p++)
				live_hook_pod(c, i, p, SPEC_HOOK_START);
		} else if ((l->phase == CONSOLE_RUNNING ||
		    l->phase == CONSOLE_SUSPENDED) && l->hooks_out == 0 &&
		    now >= l->next_status) {
			/* a suspended job is asked too: one that died is
			   requeued rather than resumed */
			l->next_status = now + c->s->spec->backend.status_interval;
			for (p = 0; p < l->npods; p++)
				if (!l->pods[p].done)
					live_hook_pod(c, i, p, SPEC_HOOK_STATUS);
		}
	}
	/* health polls, one per node every healthInterval, at most
	   healthConcurrency at once: the nodes due longest go first */
	for (i = nout = 0; i < c->s->spec->nnodes; i++)
		nout += c->health[i].out;
	while (nout < c->s->spec->backend.health_concurrency) {
		struct health *h = NULL;
		struct hook_req r;

		for (k = 0; k < c->s->spec->nnodes; k++)
			if (!c->health[k].out && now >= c->health[k].next &&
			    (h == NULL || c->health[k].next < h->next)) {
				h = &c->health[k];
				i = k;
			}
		if (h == NULL)
			break;
		nout++;
		h->out = true;
		h->next = now + c->s->spec->backend.health_interval;
		memset(&r, 0, sizeof r);
		r.job = -1;
		r.node = i;
		r.hook = SPEC_HOOK_HEALTH;
		strvec_pushf(&r.env, "CELLAR_NODE=%s", c->s->spec->nodes[i].name);
		if (c->s->spec->backend.rundir != NULL)
			strvec_pushf(&r.env, "CELLAR_RUNDIR=%s", c->s->spec->backend.rundir);
		hookq_submit(c->q, &r);
	}
	c->ndone = 0;
	hookq_service(c->q, now, &c->done, &c->ndone);	/* start them now */
	for (k = 0; k < c->ndone; k++) {
		if (c->done[k].job >= 0 && c->done[k].job < c->n)
			live_hook_back(c, &c->done[k]);
		else if (c->done[k].job < 0 && c->done[k].hook == SPEC_HOOK_HEALTH)
			live_health_back(c, &c->done[k]);
		hookq_done_release(&c->done[k]);
	}
	return flush_logs(c, cause);
}

/*
 * A store failure inside the tick leaves the engine and the jobs ahead of
 * the store (a pass acts on the engine before its records are written).
 * Nothing the store lacks may reach a node, so the loop halts: no hook is
 * started again, and submit, cancel, wait and the tick fail from then on.
 * The store holds the last committed decisions for a restart.
 */
int
console_tick(struct console *c, char **cause)
{
	if (live_halted(c, cause))
		return -1;
	if (tick(c, cause) == 0)
		return 0;
	c->halted = xstrdup(*cause);
	return -1;
}

void
console_halt(struct console *c, const char *why)
{
	if (c->halted == NULL)
		c->halted = xstrdup(why);
}

void
console_set_log(struct console *c, void (*say)(void *arg, const char *line),
    void *arg)
{
	c->say = say;
	c->say_arg = arg;
}

int
console_pollfds(const struct console *c, struct pollfd *fds, int max)
{
	return hookq_pollfds(c->q, fds, max);
}

int
console_timeout(const struct console *c, int ms)
{
	double next = hookq_next(c->q, session_now());

	if (next >= 0 && next * 1000 < ms)
		ms = (int)(next * 1000);
	return ms;
}

int
console_wait(struct console *c, int ms, int fd, char **cause)
{
	bool ready = hookq_wait(c->q, session_now(), ms, fd);

	if (console_tick(c, cause) != 0)
		return -1;
	return ready ? 1 : 0;
}
