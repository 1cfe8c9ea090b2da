/*
 * console.c — the live session's tick (see console.h): hook results in,
 * decisions recorded, the scheduler's pass, hooks out. It sits between
 * the command layer (submit, cancel, wait, job log) and the backend; the
 * engine and the store are the session's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "cluster/session-log.h"
#include "cluster/session.h"
#include "core/hostlist.h"
#include "core/pack.h"
#include "core/shquote.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "job/record.h"
#include "live/console.h"
#include "policy/sched.h"
#include "store/store.h"

/* One pod of a running gang: where it runs. */
struct pod {
	int		 node;		/* spec node index */
	char		*gpus;		/* "0,1": CUDA_VISIBLE_DEVICES */
	bool		 started;	/* its start hook succeeded */
	bool		 done;		/* status said completed */
	bool		 checked;	/* status answered since a restart */
};

struct live {
	enum console_phase	 phase;
	enum job_event		 after;		/* STOPPING: REQUEUE, or none (-1) */
	struct strvec		 argv;
	struct strvec		 env;
	struct pod		*pods;
	int			 npods;
	int			 hooks_out;	/* invariant 2 */
	bool			 failed;	/* a start or status said so */
	bool			 launched;	/* start hooks handed out */
	bool			 sent;		/* STOPPING, SUSPENDING, RESUMING: the
						   phase's hooks handed out */
	bool			 recovered;	/* taken over from the store after a
						   restart: its pods are asked first */
	double			 next_status;
	char			*last_error;
	char			*waits;		/* SUSPENDED: why the last try to
						   resume failed, or NULL */
	int			 mig_pod;	/* a migration: the pod moved, from */
	int			 from_node;	/* this node and */
	char			*from_gpus;	/* these GPUs (else NULL) */
	int			 mig_step;	/* 0: the pod may still run at the
						   source (its stop hook next or
						   out), 1: stopped there, the
						   migrate hook next or out */
	int			 mig_ended;	/* step 0's stop found the pod
						   ended on its own: 1 completed,
						   2 failed (else 0) */
	struct strbuf		 log;
	bool			 log_dirty;	/* not in the store yet */
};

/* A node's health as the health hook reports it. */
struct health {
	bool		 out;		/* a health hook is running */
	bool		 failed;	/* its last run failed (after retries) */
	bool		 bad;		/* marked bad by us (not by an operator) */
	double		 next;		/* when to run it again */
	char		*why;		/* the failed run's output, first line */
};

struct console {
	struct session		*s;
	struct health		*health;	/* per spec node */
	struct backend		*b;
	struct hookq		*q;
	struct policy		 policy;
	struct sched		*sched;
	struct job		*jobs;		/* sched's array, by live index */
	struct live		*live;
	int			 n;
	size_t			 cap;
	struct sched_action	*acts;
	int			 nacts, acap;
	struct hook_done	*done;
	int			 ndone;
	bool			 dirty;		/* run a pass at the next tick */
	char			*halted;	/* why the loop stopped (a store
						   failure), or NULL */
	struct strbuf		 notes;		/* what a restart could not take over */
	void			(*say)(void *arg, const char *line);
	void			*say_arg;	/* console_set_log */
	int			*alive;		/* invariant 5: the jobs not retired */
	int			 nalive;
	size_t			 alive_cap;
};

static int	recover(struct console *c, struct strbuf *notes, char **cause);

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
	if (recover(c, &c->notes, cause) != 0) {
		s->console = NULL;
		console_free(c);
		return -1;
	}
	*out = c;
	return 0;
}

static void
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
static bool
halted(const struct console *c, char **cause)
{
	if (c->halted == NULL)
		return false;
	*cause = xasprintf("the live session is halted after a store failure (%s); "
	    "restart the cellar server", c->halted);
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

static void
alive_add(struct console *c, int i)
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

/* ---- the job's log ---- */

static void
logf_(struct live *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
logf_(struct live *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&l->log, fmt, ap);
	va_end(ap);
	l->log_dirty = true;
	/* invariant 3: keep the newest bytes */
	if (l->log.len > CONSOLE_LOG_MAX) {
		size_t cut = l->log.len - CONSOLE_LOG_MAX / 2;

		memmove(l->log.buf, l->log.buf + cut, l->log.len - cut);
		strbuf_setlen(&l->log, l->log.len - cut);
	}
}

static void
set_error(struct live *l, const char *msg)
{
	free(l->last_error);
	l->last_error = xstrdup(msg);
	logf_(l, "cellar: %s\n", msg);
}

/* ---- the store ---- */

static void
rec_set(struct rec *r, double t, enum rec_kind kind, const struct job *j,
    const char *detail)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	r->kind = kind;
	r->job = j->id;
	r->vc = j->vc;
	r->cell = -1;
	r->by = -1;
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
static int
unpack_live(const struct spec *sp, const void *blob, size_t len, struct live *l,
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
static int
put_log(struct console *c, int i, char **cause)
{
	const struct live *l = &c->live[i];

	if (!l->log_dirty)
		return 0;
	return store_job_log_put(c->s->store, c->s->run, c->jobs[i].id,
	    l->log.buf != NULL ? l->log.buf : "", l->log.len, cause) == 0 ? 0 : -1;
}

/* Write job i (row, blob, log) inside the open transaction. */
static int
put_job(struct console *c, int i, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	pack_live(&c->jobs[i], &c->live[i], &sb);
	rc = store_job_put(c->s->store, c->s->run, &c->jobs[i], cause) != 0 ||
	    store_job_set_blob(c->s->store, c->s->run, c->jobs[i].id, sb.buf, sb.len,
	    cause) != 0 || put_log(c, i, cause) != 0;
	strbuf_release(&sb);
	return rc ? -1 : 0;
}

static int
append(struct console *c, const struct rec *r, char **cause)
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
		strbuf_addf(&sb, "%s %s vc=%s", rec_kind_name(r->kind), name,
		    r->vc >= 0 ? c->s->spec->vcs[r->vc].name : "-");
		if (r->detail[0] != '\0')
			strbuf_addf(&sb, " %s", r->detail);
		c->say(c->say_arg, sb.buf);
		strbuf_release(&sb);
	}
	return 0;
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

int
console_submit(struct console *c, const struct console_submit *sub, int *status,
    char **cause)
{
	struct session *s = c->s;
	struct job *j;
	struct live *l;
	struct rec rec;
	char *renamed = NULL;
	bool created;
	double now = session_now();
	int i, id;

	*status = 1;
	if (halted(c, cause)) {
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
	if (session_log_begin(s, &created, cause) != 0) {
		*status = 4;
		return -1;
	}
	if (session_log_free_name(s, sub->name, &renamed, cause) != 0 ||
	    store_job_next_id(s->store, s->run, &id, cause) != 0)
		goto fail;
	free(renamed);
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
	j->priority = sub->priority < 0 ? 0 : sub->priority;
	j->klass = sub->priority < 0 ? JOB_OPPORTUNISTIC : JOB_GUARANTEED;
	l->phase = CONSOLE_QUEUED;
	l->after = (enum job_event)-1;
	for (i = 0; i < sub->argc; i++)
		strvec_push(&l->argv, sub->argv[i]);
	for (i = 0; i < sub->nenv; i++)
		strvec_push(&l->env, sub->env[i]);
	c->n++;
	logf_(l, "cellar: submitted to VC '%s', %d x %d GPUs, priority %d\n",
	    s->spec->vcs[j->vc].name, sub->pods, sub->gpus, sub->priority);
	rec_set(&rec, now, REC_SUBMIT, j, NULL);
	if (put_job(c, c->n - 1, cause) != 0 || append(c, &rec, cause) != 0) {
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
	alive_add(c, c->n - 1);
	c->dirty = true;
	l->log_dirty = false;
	return 0;
fail:
	session_log_rollback(s, created);
	*status = 4;
	return -1;
}

/* ---- hooks out ---- */

/*
 * The environment of job i's hook for pod; at_source: for the pod's old
 * place during a migration (its stop there), CELLAR_TO_NODE and
 * CELLAR_TO_GPUS saying where it goes.
 */
static void
env_common(const struct console *c, int i, int pod, bool at_source,
    struct strvec *env)
{
	const struct job *j = &c->jobs[i];
	const struct live *l = &c->live[i];
	const struct spec *sp = c->s->spec;
	struct strvec nodes = STRVEC_INIT;
	struct strbuf cmd = STRBUF_INIT;
	char *h;
	int k;
	size_t e;

	for (k = 0; k < l->npods; k++)
		strvec_push(&nodes, sp->nodes[l->pods[k].node].name);
	h = hostlist_compress(nodes.v, nodes.n);
	strvec_pushf(env, "CELLAR_JOB=%s", j->name);
	strvec_pushf(env, "CELLAR_VC=%s", sp->vcs[j->vc].name);
	strvec_pushf(env, "CELLAR_POD=%d", pod);
	strvec_pushf(env, "CELLAR_PODS=%d", l->npods);
	strvec_pushf(env, "CELLAR_NODES=%s", h);
	strvec_pushf(env, "CELLAR_NODE=%s", sp->nodes[at_source ? l->from_node :
	    l->pods[pod].node].name);
	strvec_pushf(env, "CELLAR_GPUS=%s", at_source ? l->from_gpus : l->pods[pod].gpus);
	strvec_pushf(env, "CUDA_VISIBLE_DEVICES=%s", at_source ? l->from_gpus :
	    l->pods[pod].gpus);
	strvec_pushf(env, "CELLAR_PRIORITY=%d", j->klass == JOB_OPPORTUNISTIC ? -1 :
	    j->priority);
	/* the command as quoted words, for `sh -c "$CELLAR_COMMAND"` */
	sh_quote_argv(&cmd, l->argv.v, l->argv.n);
	strvec_pushf(env, "CELLAR_COMMAND=%s", cmd.buf);
	if (sp->backend.rundir != NULL)
		strvec_pushf(env, "CELLAR_RUNDIR=%s", sp->backend.rundir);
	/* a migration: where the pod goes (its stop at the source: the
	   process set checkpoints it first), or where it comes from (the
	   migrate hook). A job stopped mid-migration is stopped plainly
	   there: a checkpoint that failed must not keep it alive. */
	if (at_source && l->phase == CONSOLE_MIGRATING) {
		strvec_pushf(env, "CELLAR_TO_NODE=%s", sp->nodes[l->pods[pod].node].name);
		strvec_pushf(env, "CELLAR_TO_GPUS=%s", l->pods[pod].gpus);
	} else if (l->phase == CONSOLE_MIGRATING && pod == l->mig_pod &&
	    l->from_gpus != NULL) {
		strvec_pushf(env, "CELLAR_FROM_NODE=%s", sp->nodes[l->from_node].name);
		strvec_pushf(env, "CELLAR_FROM_GPUS=%s", l->from_gpus);
	}
	for (e = 0; e < l->env.n; e++)
		strvec_push(env, l->env.v[e]);
	free(h);
	strvec_release(&nodes);
	strbuf_release(&cmd);
}

static void
hook_pod(struct console *c, int i, int pod, enum spec_hook hook)
{
	struct hook_req r;

	memset(&r, 0, sizeof r);
	r.job = i;
	r.node = c->live[i].pods[pod].node;
	r.hook = hook;
	r.tag = pod;
	env_common(c, i, pod, false, &r.env);
	hookq_submit(c->q, &r);
	c->live[i].hooks_out++;
}

/* True while a migrating pod may still run at its source. */
static bool
at_source(const struct live *l)
{
	return l->from_gpus != NULL && l->mig_step == 0;
}

/* The stop hook for job i's migrating pod at its source. */
static void
hook_source(struct console *c, int i)
{
	struct live *l = &c->live[i];
	struct hook_req r;

	memset(&r, 0, sizeof r);
	r.job = i;
	r.node = l->from_node;
	r.hook = SPEC_HOOK_STOP;
	r.tag = l->mig_pod;
	env_common(c, i, l->mig_pod, true, &r.env);
	hookq_submit(c->q, &r);
	l->hooks_out++;
}

/* A migration over (done, or the job stopped): the source forgotten. */
static void
mig_clear(struct live *l)
{
	free(l->from_gpus);
	l->from_gpus = NULL;
	l->from_node = l->mig_pod = -1;
	l->mig_step = 0;
}

/* The pods of a job that just got its cells, from the engine. */
static void
take_pods(struct console *c, int i)
{
	const struct spec *sp = c->s->spec;
	struct engine_job_info info;
	struct live *l = &c->live[i];
	int p, k;

	if (!engine_job(c->s->engine, c->jobs[i].engine_id, &info))
		return;
	for (p = 0; p < l->npods; p++)
		free(l->pods[p].gpus);
	free(l->pods);
	l->pods = xcalloc((size_t)info.npods, sizeof *l->pods);
	l->npods = info.npods;
	for (p = 0; p < info.npods; p++) {
		struct strbuf g = STRBUF_INIT;

		for (k = info.pod_first[p]; k < info.pod_first[p + 1]; k++) {
			const struct spec_cell *cell = &sp->cells[info.leaves[k]];

			if (g.len == 0)
				l->pods[p].node = cell->node;
			strbuf_addf(&g, "%s%s", g.len ? "," : "", cell->addr);
		}
		l->pods[p].gpus = strbuf_detach(&g, NULL);
	}
}

static void
stop_pods(struct console *c, int i, enum job_event after)
{
	struct live *l = &c->live[i];
	int p;

	l->phase = CONSOLE_STOPPING;
	l->after = after;
	/* start or status hooks still out: stop once they are back, or a
	   start that lands after its stop would leave the job running */
	l->sent = l->hooks_out == 0;
	if (!l->sent)
		return;
	for (p = 0; p < l->npods; p++)
		hook_pod(c, i, p, SPEC_HOOK_STOP);
	/* a pod stopped in the middle of its migration may still run at
	   its source too (stop hooks are idempotent) */
	if (at_source(l))
		hook_source(c, i);
}

/*
 * The suspend or resume hooks of a SUSPENDING or RESUMING job, to the pods
 * status has not seen complete; once the hooks still out (status polls)
 * are back, or settle sends them then.
 */
static void
phase_pods(struct console *c, int i, enum spec_hook hook)
{
	struct live *l = &c->live[i];
	int p;

	l->sent = l->hooks_out == 0;
	if (!l->sent)
		return;
	for (p = 0; p < l->npods; p++)
		if (!l->pods[p].done)
			hook_pod(c, i, p, hook);
}

/* True when another job is STOPPING or SUSPENDING on one of job i's
   nodes, or migrating a pod away from one that may still run there: its
   GPUs are not given up yet. */
static bool
blocked(const struct console *c, int i)
{
	const struct live *l = &c->live[i];
	const struct live *o;
	int a, k, p, q;

	for (a = 0; a < c->nalive; a++) {
		k = c->alive[a];
		o = &c->live[k];
		if (k == i)
			continue;
		for (p = 0; p < l->npods; p++) {
			if (at_source(o) && l->pods[p].node == o->from_node)
				return true;
			if (o->phase != CONSOLE_STOPPING && o->phase != CONSOLE_SUSPENDING)
				continue;
			for (q = 0; q < o->npods; q++)
				if (l->pods[p].node == o->pods[q].node)
					return true;
		}
	}
	return false;
}

/* ---- decisions (each committed before its hooks run) ---- */

/* Leave RUNNING with ev at now: service accounted first. */
static void
leave(struct job *j, enum job_event ev, double now)
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
static int
commit_placed(struct console *c, int i, struct rec *rec, const char *verb,
    const int *leaves, int nleaves, char **cause)
{
	struct job *j = &c->jobs[i];
	char *gpus;

	if (verb != NULL) {
		gpus = session_leaf_gpus(c->s->spec, leaves, nleaves);
		snprintf(rec->detail, sizeof rec->detail, "%s", gpus);
		logf_(&c->live[i], "cellar: %s on %s\n", verb, gpus);
		free(gpus);
	}
	if (put_job(c, i, cause) != 0 ||
	    session_log_placement(c->s, j->id, j->engine_id, cause) != 0 ||
	    append(c, rec, cause) != 0)
		return -1;
	return 0;
}

static int
decide_start(struct console *c, int i, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct engine_job_info info;
	struct rec rec;

	job_apply(j, JOB_EV_START, now, NULL, 0);
	take_pods(c, i);
	l->phase = CONSOLE_STARTING;
	l->launched = false;
	l->failed = false;
	rec_set(&rec, now, REC_START, j, NULL);
	if (engine_job(c->s->engine, j->engine_id, &info))
		return commit_placed(c, i, &rec, "starting", info.leaves,
		    info.nleaves, cause);
	return commit_placed(c, i, &rec, NULL, NULL, 0, cause);
}

/* A job lost or gave up its cells: the record; the stop hooks follow. */
static int
decide_stop(struct console *c, int i, enum job_event ev, enum rec_kind kind,
    int by, const char *detail, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct rec rec;

	leave(j, ev, now);
	rec_set(&rec, now, kind, j, detail);
	if (by >= 0)
		rec.by = c->jobs[by].id;
	c->live[i].phase = CONSOLE_STOPPING;
	/* a preempted job, or one whose node failed (below), goes back to
	   the queue once stopped */
	c->live[i].after = ev == JOB_EV_PREEMPT || (ev == JOB_EV_FAIL &&
	    j->reason == JOB_REASON_NODEFAIL) ? JOB_EV_REQUEUE : (enum job_event)-1;
	if (put_job(c, i, cause) != 0 ||
	    store_placement_delete(c->s->store, c->s->run, j->id, cause) != 0 ||
	    append(c, &rec, cause) != 0)
		return -1;
	return 0;
}

/* Where a suspended job ran, as the engine's placement of its pods. */
struct pinned {
	int	 chain;
	int	*pod_first;	/* npods + 1 */
	int	*leaves;
	int	 nleaves;
};

static void
pinned_release(struct pinned *pl)
{
	free(pl->pod_first);
	free(pl->leaves);
	memset(pl, 0, sizeof *pl);
}

/*
 * Job i's pods (node, GPU addresses) as leaf cells of the spec: 0, or -1
 * with why when they are no longer there (the spec changed) or span chains.
 */
static int
pinned_of(const struct console *c, int i, struct pinned *pl, char *why, size_t len)
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
				pinned_release(pl);
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
		pinned_release(pl);
		return -1;
	}
	return 0;
}

/*
 * A preempted job can be suspended rather than stopped when the hook set
 * has suspend and resume, it is guaranteed (an opportunistic job could
 * not be pinned back into a VC) and running (its pods all started).
 */
static bool
can_suspend(const struct console *c, int i)
{
	const struct spec_backend *b = &c->s->spec->backend;

	return b->hooks[SPEC_HOOK_SUSPEND] != NULL && b->hooks[SPEC_HOOK_RESUME] != NULL &&
	    c->jobs[i].klass != JOB_OPPORTUNISTIC && c->live[i].phase == CONSOLE_RUNNING &&
	    !c->live[i].failed;
}

/* Preempted by `by`: suspended where it runs; the engine took its cells,
   its pods stay as the place it may resume on. The suspend hooks follow. */
static int
decide_suspend(struct console *c, int i, int by, double now, char **cause)
{
	struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	struct pinned pl;
	struct rec rec;
	char why[256], *gpus;
	int rc;

	leave(j, JOB_EV_SUSPEND, now);
	rec_set(&rec, now, REC_SUSPEND, j, NULL);
	if (by >= 0)
		rec.by = c->jobs[by].id;
	/* where it waits to resume, as a start's event says where it ran */
	if (pinned_of(c, i, &pl, why, sizeof why) == 0) {
		gpus = session_leaf_gpus(c->s->spec, pl.leaves, pl.nleaves);
		snprintf(rec.detail, sizeof rec.detail, "%s", gpus);
		free(gpus);
		pinned_release(&pl);
	}
	l->phase = CONSOLE_SUSPENDING;
	l->sent = false;
	rc = put_job(c, i, cause) != 0 ||
	    store_placement_delete(c->s->store, c->s->run, j->id, cause) != 0 ||
	    append(c, &rec, cause) != 0;
	return rc ? -1 : 0;
}

/* One store transaction per decision batch (session-log.h): a store that
   cannot be written fails the command or tick before anything changes,
   except in a pass, where the engine has acted: the console then halts
   (console_tick) so no hook carries out an unrecorded decision. */
static int
begin(struct console *c, bool *created, char **cause)
{
	return session_log_begin(c->s, created, cause);
}

static int
commit(struct console *c, bool created, char **cause)
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
	if (halted(c, cause)) {
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
	if (begin(c, &created, cause) != 0) {
		*status = 4;
		return -1;
	}
	/* what a failed write puts back: nothing else changes before commit */
	saved = *j;
	phase = l->phase;
	after = l->after;
	loglen = l->log.len;
	logf_(l, "cellar: cancelled\n");	/* written with the decision */
	running = c->live[i].phase != CONSOLE_QUEUED;
	if (running) {
		if (decide_stop(c, i, JOB_EV_CANCEL, REC_CANCEL, -1, "cancelled",
		    now, cause) != 0)
			goto fail;
	} else {
		job_apply(j, JOB_EV_CANCEL, now, NULL, 0);
		c->live[i].phase = CONSOLE_DONE;
		rec_set(&rec, now, REC_CANCEL, j, "cancelled while queued");
		if (put_job(c, i, cause) != 0 || append(c, &rec, cause) != 0)
			goto fail;
	}
	if (commit(c, created, cause) != 0) {
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
		stop_pods(c, i, (enum job_event)-1);
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

/* ---- hooks in ---- */

static const char *
first_word(const char *s, char *buf, size_t len)
{
	size_t n;

	s += strspn(s, " \t\r\n");
	n = strcspn(s, " \t\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

/*
 * A hook's answer: the first word of the first line that starts with one
 * of words (NULL-terminated), else the first word of the output. Hooks
 * run through a login shell or ssh, whose own noise (a profile's
 * complaint, ssh's "ControlSocket ... already exists") may come before
 * the answer on the same output: one such line made a running pod look
 * gone (t0650 under load).
 */
static const char *
answer_word(const char *s, const char *const *words, char *buf, size_t len)
{
	const char *p;
	size_t k;

	for (p = s; *p != '\0'; p += strcspn(p, "\n"), p += *p == '\n') {
		/* first_word would skip a blank line into the next one */
		if (p[strspn(p, " \t\r")] == '\n')
			continue;
		first_word(p, buf, len);
		for (k = 0; words[k] != NULL; k++)
			if (strcmp(buf, words[k]) == 0)
				return buf;
	}
	return first_word(s, buf, len);
}

static const char *const status_words[] = { "running", "completed", "failed",
	"absent", "suspended", NULL };
static const char *const ended_words[] = { "completed", "failed", NULL };

static void
describe(const struct console *c, const struct hook_done *d, char *buf, size_t len)
{
	if (d->timed_out)
		snprintf(buf, len, "%s hook on '%s' timed out after %g s (%d tries)",
		    spec_hook_names[d->hook], c->s->spec->nodes[d->node].name,
		    c->s->spec->backend.timeout, d->attempts);
	else
		snprintf(buf, len, "%s hook on '%s' failed with status %d (%d tries)",
		    spec_hook_names[d->hook], c->s->spec->nodes[d->node].name,
		    d->status, d->attempts);
}

/* Job i's hook came back: the pod's state. */
static void
hook_back(struct console *c, const struct hook_done *d)
{
	struct live *l = &c->live[d->job];
	int pod = (int)d->tag;
	char word[32], why[256];

	l->hooks_out--;
	if (d->out != NULL && d->out[0] != '\0' && d->hook != SPEC_HOOK_STATUS)
		logf_(l, "%s", d->out);
	if (d->dropped)
		logf_(l, "cellar: %zu bytes of hook output dropped\n", d->dropped);
	if (pod < 0 || pod >= l->npods)
		return;
	switch (d->hook) {
	case SPEC_HOOK_START:
		if (d->status == 0)
			l->pods[pod].started = true;
		else {
			describe(c, d, why, sizeof why);
			set_error(l, why);
			l->failed = true;
		}
		break;
	case SPEC_HOOK_STATUS:
		answer_word(d->out ? d->out : "", status_words, word, sizeof word);
		if (l->recovered && !l->pods[pod].checked && d->status == 0) {
			l->pods[pod].checked = true;
			/* taken over after a restart: a pod the node knows
			   nothing of never started; one that answers did
			   (a suspended job's pods all did: one that is absent
			   is gone, below) */
			if (strcmp(word, "absent") == 0 && l->phase != CONSOLE_SUSPENDED) {
				logf_(l, "cellar: pod %d was not running: starting it\n", pod);
				hook_pod(c, d->job, pod, SPEC_HOOK_START);
				break;
			}
			l->pods[pod].started = true;
		}
		if (d->status != 0) {
			describe(c, d, why, sizeof why);
			logf_(l, "cellar: %s\n", why);
		} else if (strcmp(word, "completed") == 0)
			l->pods[pod].done = true;
		else if (strcmp(word, "running") != 0 && strcmp(word, "suspended") != 0) {
			snprintf(why, sizeof why, "pod %d on '%s' %s%s%s", pod,
			    c->s->spec->nodes[d->node].name, strcmp(word, "failed") == 0 ?
			    "failed" : "is gone: status says '", strcmp(word, "failed") == 0 ?
			    "" : word, strcmp(word, "failed") == 0 ? "" : "'");
			set_error(l, why);
			l->failed = true;
		}
		break;
	case SPEC_HOOK_STOP:
		if (l->phase != CONSOLE_MIGRATING) {
			if (d->status != 0) {
				describe(c, d, why, sizeof why);
				set_error(l, why);
			}
			break;
		}
		/* a pod that ended before its stop at the source says so
		   (its answer line): nothing is started on the new node */
		answer_word(d->out ? d->out : "", ended_words, word, sizeof word);
		if (d->status == 0 && (strcmp(word, "completed") == 0 ||
		    strcmp(word, "failed") == 0)) {
			l->mig_ended = word[0] == 'c' ? 1 : 2;
			if (l->mig_ended == 2) {
				snprintf(why, sizeof why, "pod %d on '%s' failed before "
				    "it moved", pod, c->s->spec->nodes[d->node].name);
				set_error(l, why);
			}
		}
		/* the stop at a migration's source: as a migrate hook */
		/* FALLTHROUGH */
	case SPEC_HOOK_SUSPEND:
	case SPEC_HOOK_RESUME:
	case SPEC_HOOK_MIGRATE:
		/* settle stops the job instead, and requeues it */
		if (d->status != 0) {
			describe(c, d, why, sizeof why);
			set_error(l, why);
			l->failed = true;
		}
		break;
	default:
		if (d->status != 0) {
			describe(c, d, why, sizeof why);
			set_error(l, why);
		}
		break;
	}
}

/* A node's health hook came back. */
static void
health_back(struct console *c, const struct hook_done *d)
{
	struct health *h = &c->health[d->node];
	char word[256];
	size_t n;

	h->out = false;
	h->failed = d->status != 0;
	free(h->why);
	h->why = NULL;
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
static bool
node_bad_now(const struct console *c, int node)
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
 * A node's health changed: mark it in the engine (bad nodes are avoided,
 * VCs see doomed cells), record it, and fail the live jobs that run on a
 * bad node; they are stopped and requeued (the gang as a unit). Committed
 * before any stop hook runs.
 */
static int
node_settle(struct console *c, int node, double now, char **cause)
{
	struct health *h = &c->health[node];
	struct session *s = c->s;
	const char *name = s->spec->nodes[node].name;
	struct strbuf names = STRBUF_INIT;
	struct engine_job_info info;
	int *ids = NULL, *mine = NULL, n, k, nmine = 0, lim;
	char why[REC_DETAIL_MAX];
	bool created, bad = h->failed;

	if (h->out || bad == h->bad || (!bad && !h->bad))
		return 0;
	/* bad already, and not by this console: an operator's mark, or
	   ours from before a restart; both stay until 'node ok' */
	if (bad && node_bad_now(c, node))
		return 0;
	if (begin(c, &created, cause) != 0)
		return -1;
	lim = engine_job_limit(s->engine);
	ids = xcalloc((size_t)lim, sizeof *ids);
	mine = xcalloc((size_t)lim, sizeof *mine);
	n = engine_node_set_bad(s->engine, name, bad, ids, lim);
	if (n > lim)
		n = lim;
	snprintf(why, sizeof why, "node '%s': %s", name, bad ? h->why : "healthy again");
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
		if (decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, why, now, cause) != 0)
			goto fail;
		mine[nmine++] = i;
	}
	if (session_log_node(s, name, bad, names.buf ? names.buf : "", cause) != 0 ||
	    commit(c, created, cause) != 0)
		goto fail_committing;
	h->bad = bad;
	for (k = 0; k < nmine; k++) {
		set_error(&c->live[mine[k]], why);
		sched_release(c->sched, mine[k]);
		stop_pods(c, mine[k], JOB_EV_REQUEUE);
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
	if (begin(c, &created, cause) != 0)
		return -1;
	if (decide_stop(c, i, JOB_EV_PREEMPT, REC_PREEMPT, -1, detail, now,
	    cause) != 0) {
		session_log_rollback(c->s, created);
		return -1;
	}
	if (commit(c, created, cause) != 0)
		return -1;
	logf_(l, "cellar: %s\n", detail);
	/* (why may be the log's own last_error: used up by now) */
	if (held) {
		sched_release(c->sched, i);
		c->dirty = true;
	}
	l->failed = false;
	stop_pods(c, i, JOB_EV_REQUEUE);
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

	if (begin(c, &created, cause) != 0)
		return -1;
	job_apply(j, JOB_EV_RESUME, now, NULL, 0);
	leave(j, JOB_EV_FINISH, now);
	job_apply(j, JOB_EV_COMPLETE, now, NULL, 0);
	l->phase = CONSOLE_DONE;
	rec_set(&rec, now, REC_COMPLETE, j, "ended while suspended");
	if (put_job(c, i, cause) != 0 || append(c, &rec, cause) != 0) {
		session_log_rollback(c->s, created);
		return -1;
	}
	if (commit(c, created, cause) != 0)
		return -1;
	logf_(l, "cellar: completed (while suspended)\n");
	return 0;
}

/* After hooks came back: the decisions they lead to. */
static int
settle(struct console *c, int i, double now, char **cause)
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
		if (begin(c, &created, cause) != 0)
			return -1;
		if (l->failed) {
			/* the gang fails as a unit: stop the pods that started */
			if (decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, l->last_error,
			    now, cause) != 0)
				goto fail;
		} else {
			l->phase = CONSOLE_RUNNING;
			l->next_status = now + c->s->spec->backend.status_interval;
			if (put_job(c, i, cause) != 0)
				goto fail;
		}
		if (commit(c, created, cause) != 0)
			return -1;
		if (l->failed) {
			sched_release(c->sched, i);
			c->dirty = true;
			stop_pods(c, i, (enum job_event)-1);
		} else
			logf_(l, "cellar: running\n");
		return 0;
	case CONSOLE_RUNNING:
		for (p = 0; p < l->npods; p++)
			all = all && l->pods[p].done;
		if (!l->failed && !all)
			return 0;
		if (begin(c, &created, cause) != 0)
			return -1;
		if (l->failed) {
			if (decide_stop(c, i, JOB_EV_FAIL, REC_FAIL, -1, l->last_error,
			    now, cause) != 0)
				goto fail;
		} else {
			leave(j, JOB_EV_FINISH, now);
			job_apply(j, JOB_EV_COMPLETE, now, NULL, 0);
			l->phase = CONSOLE_DONE;
			rec_set(&rec, now, REC_COMPLETE, j, NULL);
			if (put_job(c, i, cause) != 0 ||
			    store_placement_delete(c->s->store, c->s->run, j->id,
			    cause) != 0 || append(c, &rec, cause) != 0)
				goto fail;
		}
		if (commit(c, created, cause) != 0)
			return -1;
		sched_release(c->sched, i);
		c->dirty = true;
		if (l->failed)
			stop_pods(c, i, (enum job_event)-1);
		else
			logf_(l, "cellar: completed\n");
		return 0;
	case CONSOLE_STOPPING:
		if (!l->sent) {
			stop_pods(c, i, l->after);
			return 0;
		}
		if (begin(c, &created, cause) != 0)
			return -1;
		if (l->after == JOB_EV_REQUEUE) {
			job_apply(j, JOB_EV_REQUEUE, now, NULL, 0);
			l->phase = CONSOLE_QUEUED;
			rec_set(&rec, now, REC_REQUEUE, j, "stopped; back in the queue");
			if (append(c, &rec, cause) != 0)
				goto fail;
		} else
			l->phase = CONSOLE_DONE;
		mig_clear(l);	/* its source was stopped with the rest */
		if (put_job(c, i, cause) != 0)
			goto fail;
		if (commit(c, created, cause) != 0)
			return -1;	/* rolled back; the tick halts */
		for (p = 0; p < l->npods; p++)
			free(l->pods[p].gpus);
		free(l->pods);
		l->pods = NULL;
		l->npods = 0;
		if (l->phase == CONSOLE_QUEUED) {
			sched_submit(c->sched, i, now);
			c->dirty = true;
			logf_(l, "cellar: stopped, requeued\n");
		} else
			logf_(l, "cellar: stopped\n");
		return 0;
	case CONSOLE_SUSPENDING:
	case CONSOLE_RESUMING:
		if (!l->sent) {
			phase_pods(c, i, l->phase == CONSOLE_SUSPENDING ?
			    SPEC_HOOK_SUSPEND : SPEC_HOOK_RESUME);
			return 0;
		}
		if (l->failed)	/* a suspend or resume hook failed */
			return give_up(c, i, l->last_error, now, cause);
		if (begin(c, &created, cause) != 0)
			return -1;
		if (l->phase == CONSOLE_SUSPENDING)
			l->phase = CONSOLE_SUSPENDED;
		else {
			l->phase = CONSOLE_RUNNING;
			l->next_status = now + c->s->spec->backend.status_interval;
		}
		if (put_job(c, i, cause) != 0)
			goto fail;
		if (commit(c, created, cause) != 0)
			return -1;
		logf_(l, "cellar: %s\n", l->phase == CONSOLE_SUSPENDED ? "suspended" :
		    "resumed");
		return 0;
	case CONSOLE_MIGRATING:
		/* step 0: the stop hook at the source; step 1 (committed
		   first): the migrate hook on the new node, once nothing else
		   still holds its GPUs there */
		if (!l->sent) {
			if (l->mig_step == 0)
				hook_source(c, i);
			else if (blocked(c, i))
				return 0;
			else
				hook_pod(c, i, l->mig_pod, SPEC_HOOK_MIGRATE);
			l->sent = true;
			return 0;
		}
		/* a failure: stopped wherever the pod may be (stop_pods: the
		   source too while step 0), requeued */
		if (l->failed)
			return give_up(c, i, l->last_error, now, cause);
		if (begin(c, &created, cause) != 0)
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
			mig_clear(l);
			l->mig_ended = 0;
			l->phase = CONSOLE_RUNNING;
			l->next_status = now;
			if (put_job(c, i, cause) != 0)
				goto fail;
			if (commit(c, created, cause) != 0)
				return -1;
			logf_(l, "cellar: pod %d ended on its own before it moved\n",
			    (int)(pd - l->pods));
			return settle(c, i, now, cause);
		}
		if (l->mig_step == 0) {
			/* a restart must not stop the source again: the
			   pod's record there may be the new node's by then */
			l->mig_step = 1;
			if (put_job(c, i, cause) != 0) {
				l->mig_step = 0;
				goto fail;
			}
			if (commit(c, created, cause) != 0) {
				l->mig_step = 0;
				return -1;
			}
			logf_(l, "cellar: pod %d stopped on '%s'\n", l->mig_pod,
			    c->s->spec->nodes[l->from_node].name);
			l->sent = false;
			return settle(c, i, now, cause);
		}
		l->phase = CONSOLE_RUNNING;
		l->next_status = now + c->s->spec->backend.status_interval;
		if (put_job(c, i, cause) != 0) {
			l->phase = CONSOLE_MIGRATING;
			goto fail;
		}
		if (commit(c, created, cause) != 0) {
			l->phase = CONSOLE_MIGRATING;
			return -1;
		}
		mig_clear(l);
		logf_(l, "cellar: migrated\n");
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

		if (node_bad_now(c, node)) {
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
			logf_(l, "cellar: not resumed yet: %s\n", why);
		}
		return 0;
	}
	j->engine_id = id;
	j->opportunistic = false;
	sched_job_key(c->sched, i, &key, &klass);
	if (sched_restore_running(c->sched, i, &key, klass, why, sizeof why) != 0) {
		engine_release(c->s->engine, id);	/* cannot be: it was running */
		j->engine_id = -1;
		logf_(l, "cellar: not resumed: %s\n", why);
		return 0;
	}
	job_apply(j, JOB_EV_RESUME, now, NULL, 0);
	free(l->waits);
	l->waits = NULL;
	l->phase = CONSOLE_RESUMING;
	l->sent = false;
	l->failed = false;
	rec_set(&rec, now, REC_RESUME, j, NULL);
	*resumed = true;
	return commit_placed(c, i, &rec, "resuming", pl->leaves, pl->nleaves,
	    cause);
}

/*
 * Before the policy's pass: suspended jobs, in the policy's order, take
 * their own cells back when these are free and no queued job ahead of
 * them wants them (so a lower job cannot take them first); those whose
 * cells cannot come back are stopped and requeued. The engine acts before
 * the store commits, as in a pass: a store failure halts the console.
 */
static int
resume_pass(struct console *c, double now, char **cause)
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
	if ((rc = begin(c, &created, cause)) != 0)
		goto out;
	for (k = 0; k < n; k++) {
		i = order[k];
		lost = false;
		if (pinned_of(c, i, &pl, why, sizeof why) != 0)
			lost = true;
		else if (!may_resume(c, i, &pl, &lost, why, sizeof why)) {
			pinned_release(&pl);
			if (!lost)
				continue;
		} else {
			rc = decide_resume(c, i, &pl, now, &resumed, cause);
			pinned_release(&pl);
			if (rc != 0)
				break;
			if (resumed)
				act[nact++] = i;
			continue;
		}
		/* its cells cannot come back: stopped, requeued afresh */
		strncat(why, "; it cannot resume there; stopped, requeued", sizeof why -
		    strlen(why) - 1);
		set_error(&c->live[i], why);
		if ((rc = decide_stop(c, i, JOB_EV_PREEMPT, REC_PREEMPT, -1, why, now,
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
	if ((rc = commit(c, created, cause)) != 0)
		goto out;
	for (k = 0; k < nact; k++) {
		i = act[k];
		if (c->live[i].phase == CONSOLE_RESUMING)
			phase_pods(c, i, SPEC_HOOK_RESUME);
		else {
			stop_pods(c, i, JOB_EV_REQUEUE);
		}
	}
out:
	free(order);
	free(act);
	return rc;
}

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
	if (halted(c, cause)) {
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
	if (pinned_of(c, i, &old, why, sizeof why) != 0) {
		*cause = xasprintf("job '%s': %s", name, why);
		return -1;
	}
	n = old.pod_first[pod + 1] - old.pod_first[pod];
	nl = xcalloc((size_t)n + 1, sizeof *nl);
	/* the node asked for (its own: other GPUs there), or the first
	   other one with room, or other GPUs of its own */
	if (to >= 0)
		k = free_leaves(c, to, old.chain, &old, n, nl) &&
		    !node_bad_now(c, to) ? to : sp->nnodes;
	else {
		for (k = 0; k < sp->nnodes; k++)
			if (k != l->pods[pod].node && !node_bad_now(c, k) &&
			    free_leaves(c, k, old.chain, &old, n, nl))
				break;
		if (k >= sp->nnodes && !node_bad_now(c, l->pods[pod].node) &&
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
	if (begin(c, &created, cause) != 0) {
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
	rec_set(&rec, now, REC_MIGRATE, j, NULL);
	snprintf(rec.detail, sizeof rec.detail, "pod %d: %s -> %s", pod, from, dest);
	k = put_job(c, i, cause) != 0 ||
	    session_log_placement(c->s, j->id, j->engine_id, cause) != 0 ||
	    append(c, &rec, cause) != 0;
	if (k)
		session_log_rollback(c->s, created);
	if (k || commit(c, created, cause) != 0) {	/* commit rolls back */
		/* nothing recorded: back where it was, running (its old
		   leaves were free a moment ago: the move back cannot meet
		   anything else) */
		if (engine_move(c->s->engine, j->engine_id, old.pod_first, l->npods,
		    old.leaves, old.nleaves, why, sizeof why) != 0)
			logf_(l, "cellar: lost its cells undoing a migration: %s\n", why);
		free(l->pods[pod].gpus);
		l->pods[pod].gpus = l->from_gpus;
		l->pods[pod].node = l->from_node;
		l->from_gpus = NULL;
		mig_clear(l);
		l->phase = CONSOLE_RUNNING;
		*status = 4;
		goto out;
	}
	logf_(l, "cellar: migrating pod %d: %s -> %s\n", pod, from, dest);
	/* its old cells are free in the engine (a start on the source node
	   waits for the stop there: blocked) */
	sched_touch_all(c->sched);
	c->dirty = true;
	rc = 0;
out:
	pinned_release(&old);
	free(nl);
	free(pf);
	free(lv);
	free(from);
	free(dest);
	return rc;
}

/* ---- after a restart: the store's live jobs taken over ---- */

struct recover {
	struct console	*c;
	struct strbuf	*notes;
	struct store	*st;
	int64_t		 run;
	char		*err;		/* a store failure reading a log */
};

static int
recover_job(void *arg, const struct store_job *sj)
{
	struct recover *x = arg;
	struct console *c = x->c;
	struct live l;
	char why[256];
	int prio;

	if (sj->blob == NULL)
		return 0;	/* a hand job (alloc): the engine has it */
	memset(&l, 0, sizeof l);
	strbuf_init(&l.log);
	if (unpack_live(c->s->spec, sj->blob, sj->blob_len, &l, &prio, why,
	    sizeof why) != 0) {
		strbuf_addf(x->notes, "warning: job '%s' not taken over: %s\n", sj->job.name, why);
		live_release(&l);
		return 0;
	}
	if (l.phase == CONSOLE_DONE) {
		live_release(&l);
		return 0;
	}
	{
		char *text;
		size_t len;

		/* the log so far, which this console goes on from */
		if (store_job_log_get(x->st, x->run, sj->job.id, &text, &len,
		    &x->err) != 0) {
			live_release(&l);
			return 1;
		}
		strbuf_add(&l.log, text, len);
		free(text);
	}
	XGROW(c->live, c->cap, (size_t)c->n + 1);
	c->jobs = xreallocarray(c->jobs, (size_t)c->n + 1, sizeof *c->jobs);
	c->jobs[c->n] = sj->job;
	c->jobs[c->n].priority = prio;	/* the blob's (rows before schema 8 hold 0) */
	c->live[c->n] = l;
	c->n++;
	alive_add(c, c->n - 1);
	return 0;
}

/*
 * Take over the live jobs of the session's recovered run: queued ones are
 * queued again; starting and running ones keep the cells the engine got
 * back from the store and their pods are asked (status) before anything
 * is started, so nothing runs twice; stopping ones are stopped again
 * (stop hooks are idempotent). Problems with one job go to notes.
 */
static int
recover(struct console *c, struct strbuf *notes, char **cause)
{
	struct session *s = c->s;
	struct recover x = { c, notes, NULL, 0, NULL };
	struct engine_job_info info;
	struct policy_key key;
	struct store *st;
	double now = session_now();
	int64_t run = s->run != 0 ? s->run : s->resume_run;
	int i, p, klass;
	char why[256];

	if (run == 0)
		return 0;
	if (session_store(s, false, &st, cause) != 0)
		return -1;
	x.st = st;
	x.run = run;
	if (store_job_load(st, run, recover_job, &x, cause) != 0) {
		if (x.err != NULL) {
			free(*cause);
			*cause = x.err;
		}
		return -1;
	}
	if (c->n == 0)
		return 0;
	sched_grow(c->sched, c->jobs, c->n);
	for (i = 0; i < c->n; i++) {
		struct job *j = &c->jobs[i];
		struct live *l = &c->live[i];
		enum console_phase was = l->phase;

		logf_(l, "cellar: taken over after a restart (%s)\n",
		    console_phase_name(was));
		if (was == CONSOLE_QUEUED) {
			sched_submit(c->sched, i, now);
			continue;
		}
		if (was == CONSOLE_STOPPING)
			continue;	/* settle sends the stops again */
		c->policy.ops->key(&c->policy, j, now, &key);
		klass = c->policy.ops->klass(&c->policy, j, now);
		key.id = i;	/* the scheduler's index, not the store's id */
		if (was == CONSOLE_SUSPENDING || was == CONSOLE_SUSPENDED) {
			/* no cells: its key for the resume order; SUSPENDING
			   sends its suspend hooks again (settle), SUSPENDED
			   asks its pods (status) before it may resume */
			if (sched_restore_key(c->sched, i, &key, klass, why,
			    sizeof why) != 0 || l->npods == 0) {
				strbuf_addf(notes, "warning: job '%s' not taken over: %s\n",
				    j->name, l->npods == 0 ? "no pods" : why);
				set_error(l, "not taken over after a restart");
				l->phase = CONSOLE_DONE;
				continue;
			}
			l->sent = false;
			l->recovered = true;
			l->next_status = 0;
			for (p = 0; p < l->npods; p++)
				l->pods[p].started = true;
			continue;
		}
		/* STARTING, RUNNING or RESUMING: the engine holds its cells again */
		if (!engine_job(s->engine, j->engine_id, &info) ||
		    sched_restore_running(c->sched, i, &key, klass, why, sizeof why) != 0) {
			strbuf_addf(notes, "warning: job '%s' not taken over: %s\n", j->name,
			    engine_job(s->engine, j->engine_id, &info) ? why :
			    "its cells were not recovered");
			set_error(l, "not taken over after a restart");
			l->phase = CONSOLE_DONE;
			continue;
		}
		if (l->npods == 0)
			take_pods(c, i);	/* cannot be: version 2 keeps them */
		l->recovered = true;
		l->launched = true;
		l->next_status = 0;
		for (p = 0; p < l->npods; p++)
			l->pods[p].started = was != CONSOLE_STARTING;
		if (was == CONSOLE_RESUMING || was == CONSOLE_MIGRATING) {
			/* SIGCONT twice is harmless: resume again (settle);
			   a migrate hook must be as idempotent as start */
			l->phase = was;
			l->sent = false;
			continue;
		}
		l->phase = CONSOLE_RUNNING;
	}
	c->dirty = true;
	return 0;
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
	if (begin(c, &created, cause) != 0)
		return -1;
	for (; k < c->nalive; k++)
		if (put_log(c, c->alive[k], cause) != 0) {
			session_log_rollback(c->s, created);
			return -1;
		}
	if (commit(c, created, cause) != 0)
		return -1;
	for (k = 0; k < c->nalive; k++)
		c->live[c->alive[k]].log_dirty = false;
	return 0;
}

static int
tick(struct console *c, char **cause)
{
	double now = session_now();
	bool created;
	int ai, i, k, p, nout;

	alive_prune(c);
	/* 1. hooks that finished */
	c->ndone = 0;
	hookq_service(c->q, now, &c->done, &c->ndone);
	for (k = 0; k < c->ndone; k++) {
		if (c->done[k].job >= 0 && c->done[k].job < c->n)
			hook_back(c, &c->done[k]);
		else if (c->done[k].job < 0 && c->done[k].hook == SPEC_HOOK_HEALTH)
			health_back(c, &c->done[k]);
		hookq_done_release(&c->done[k]);
	}
	/* 2. what they lead to: nodes first, so a pass avoids bad ones */
	for (i = 0; i < c->s->spec->nnodes; i++)
		if (node_settle(c, i, now, cause) != 0)
			return -1;
	for (ai = 0; ai < c->nalive; ai++)
		if (settle(c, c->alive[ai], now, cause) != 0)
			return -1;
	/* 3. suspended jobs back on their own cells first, then the policy's
	   pass; the store is locked before the engine acts */
	if (c->dirty && resume_pass(c, now, cause) != 0)
		return -1;
	if (c->dirty && sched_pending(c->sched) > 0) {
		if (begin(c, &created, cause) != 0)
			return -1;
		c->nacts = 0;
		sched_pass(c->sched, now, &c->acts, &c->nacts, &c->acap);
		for (k = 0; k < c->nacts; k++) {
			struct sched_action *a = &c->acts[k];
			int rc = 0;

			if (a->kind == SCHED_START)
				rc = decide_start(c, a->job, now, cause);
			else if (a->kind == SCHED_PREEMPT && can_suspend(c, a->job))
				rc = decide_suspend(c, a->job, a->by, now, cause);
			else if (a->kind == SCHED_PREEMPT)
				rc = decide_stop(c, a->job, JOB_EV_PREEMPT, REC_PREEMPT,
				    a->by, NULL, now, cause);
			if (rc != 0) {
				session_log_rollback(c->s, created);
				return -1;
			}
		}
		if (c->nacts == 0)
			session_log_rollback(c->s, created);
		else if (commit(c, created, cause) != 0)
			return -1;
		for (k = 0; k < c->nacts; k++)
			if (c->acts[k].kind == SCHED_PREEMPT) {
				int v = c->acts[k].job;
				bool susp = c->live[v].phase == CONSOLE_SUSPENDING;

				logf_(&c->live[v], "cellar: preempted by '%s'%s\n",
				    c->jobs[c->acts[k].by].name, susp ? ": suspending" : "");
				if (susp)
					phase_pods(c, v, SPEC_HOOK_SUSPEND);
				else
					stop_pods(c, v, JOB_EV_REQUEUE);
			}
	}
	c->dirty = false;
	/* 4. hooks out: starts no longer blocked, status polls */
	for (ai = 0; ai < c->nalive; ai++) {
		struct live *l = &c->live[i = c->alive[ai]];

		if (l->phase == CONSOLE_STARTING && !l->launched && !blocked(c, i)) {
			l->launched = true;
			for (p = 0; p < l->npods; p++)
				hook_pod(c, i, p, SPEC_HOOK_START);
		} else if ((l->phase == CONSOLE_RUNNING ||
		    l->phase == CONSOLE_SUSPENDED) && l->hooks_out == 0 &&
		    now >= l->next_status) {
			/* a suspended job is asked too: one that died is
			   requeued rather than resumed */
			l->next_status = now + c->s->spec->backend.status_interval;
			for (p = 0; p < l->npods; p++)
				if (!l->pods[p].done)
					hook_pod(c, i, p, SPEC_HOOK_STATUS);
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
			hook_back(c, &c->done[k]);
		else if (c->done[k].job < 0 && c->done[k].hook == SPEC_HOOK_HEALTH)
			health_back(c, &c->done[k]);
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
	if (halted(c, cause))
		return -1;
	if (tick(c, cause) == 0)
		return 0;
	c->halted = xstrdup(*cause);
	return -1;
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
	int i;

	for (i = c->n - 1; i >= 0; i--)
		if (strcmp(c->jobs[i].name, name) == 0)
			return i;
	return -1;
}

const char *
console_log(const struct console *c, int i)
{
	return i >= 0 && i < c->n && c->live[i].log.buf != NULL ?
	    c->live[i].log.buf : "";
}

int
console_log_stored(struct console *c, const char *name, char **text,
    char **cause)
{
	struct session *s = c->s;
	struct store_job sj;
	struct store *st;
	int64_t run = s->run != 0 ? s->run : s->resume_run;
	size_t len;
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
	rc = store_job_log_get(st, run, sj.job.id, text, &len, cause);
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
