/*
 * live-hooks.c — hooks out (each pod's environment; start, stop, status,
 * suspend and resume per pod; a migration's stop at its source) and
 * hooks back (what a pod's answer says). Each hook handed out is counted
 * in its job's hooks_out until it comes back (console.h invariant 2).
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session.h"
#include "core/hostlist.h"
#include "core/shquote.h"
#include "core/xmalloc.h"
#include "live/live-int.h"

/* ---- hooks out ---- */

/*
 * The environment of job i's hook for pod; at_source: for the pod's old
 * place during a migration (its stop there), CELLAR_TO_NODE and
 * CELLAR_TO_GPUS saying where it goes.
 */
/*
 * Who job i runs as, for its hooks (cellar-spec(5), ACCESS): the uid and
 * gid recorded at submit and that account's name, looked up once (a
 * status poll per pod every few seconds must not ask NSS each time).
 * A job from before they were recorded (-1) gets none: its hooks go on
 * as they did (as the server's user, or ssh's configured one).
 */
static void
env_user(struct console *c, int i, struct strvec *env)
{
	const struct job *j = &c->jobs[i];
	struct live *l = &c->live[i];
	long uid = j->uid, gid = j->gid;
	struct passwd *pw;

	if (uid < 0 || gid < 0)
		return;
	if (l->run_user[0] == '\0') {
		if ((pw = getpwuid((uid_t)uid)) != NULL)
			snprintf(l->run_user, sizeof l->run_user, "%s", pw->pw_name);
		else	/* no name here (an ssh node may know it by uid) */
			snprintf(l->run_user, sizeof l->run_user, "#%ld", uid);
	}
	strvec_pushf(env, "CELLAR_USER=%s", l->run_user);
	strvec_pushf(env, "CELLAR_UID=%ld", uid);
	strvec_pushf(env, "CELLAR_GID=%ld", gid);
}

static void
env_common(struct console *c, int i, int pod, bool at_source,
    struct strvec *env)
{
	const struct job *j = &c->jobs[i];
	const struct live *l = &c->live[i];
	const struct spec *sp = c->s->spec;
	struct strvec nodes = STRVEC_INIT;
	struct strbuf cmd = STRBUF_INIT, jenv = STRBUF_INIT;
	const char *ckpt = NULL;
	char *h;
	int k;
	size_t e;

	for (k = 0; k < l->npods; k++)
		strvec_push(&nodes, sp->nodes[l->pods[k].node].name);
	h = hostlist_compress(nodes.v, nodes.n);
	strvec_pushf(env, "CELLAR_JOB=%s", j->name);
	strvec_pushf(env, "CELLAR_JOB_ID=%d", j->id);	/* a reused name's own */
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
	env_user(c, i, env);
	/*
	 * The command as quoted words, for `sh -c "$CELLAR_COMMAND"`. The
	 * job's --env entries go into it (`env K=V ... COMMAND`) and so does
	 * its checkpoint command's, not into the hook's own environment: a
	 * PATH, LD_PRELOAD or SBATCH_* of the job's must not change which
	 * sbatch, dirname or kubectl the hook runs (issue 23 F6). A hook
	 * reads them as CELLAR_ENV_NAME (the kubernetes set's image).
	 */
	for (e = 0; e < l->env.n; e++) {
		if (strncmp(l->env.v[e], "CELLAR_CHECKPOINT=", 18) == 0) {
			ckpt = l->env.v[e] + 18;
			continue;
		}
		strbuf_adds(&jenv, jenv.len == 0 ? "env " : " ");
		sh_quote(&jenv, l->env.v[e]);
		strvec_pushf(env, "CELLAR_ENV_%s", l->env.v[e]);
	}
	if (jenv.len > 0)
		strbuf_addf(&cmd, "%s ", jenv.buf);
	sh_quote_argv(&cmd, l->argv.v, l->argv.n);
	strvec_pushf(env, "CELLAR_COMMAND=%s", cmd.buf);
	if (ckpt != NULL && jenv.len > 0) {
		strbuf_reset(&cmd);
		strbuf_addf(&cmd, "%s sh -c ", jenv.buf);
		sh_quote(&cmd, ckpt);
		strvec_pushf(env, "CELLAR_CHECKPOINT=%s", cmd.buf);
	} else if (ckpt != NULL)
		strvec_pushf(env, "CELLAR_CHECKPOINT=%s", ckpt);
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
	free(h);
	strvec_release(&nodes);
	strbuf_release(&cmd);
	strbuf_release(&jenv);
}

void
live_hook_pod(struct console *c, int i, int pod, enum spec_hook hook)
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
void
live_hook_source(struct console *c, int i)
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
void
live_mig_clear(struct live *l)
{
	free(l->from_gpus);
	l->from_gpus = NULL;
	l->from_node = l->mig_pod = -1;
	l->mig_step = 0;
}

/* The pods of a job that just got its cells, from the engine. */
void
live_take_pods(struct console *c, int i)
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

void
live_stop_pods(struct console *c, int i, enum job_event after)
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
		live_hook_pod(c, i, p, SPEC_HOOK_STOP);
	/* a pod stopped in the middle of its migration may still run at
	   its source too (stop hooks are idempotent) */
	if (at_source(l))
		live_hook_source(c, i);
}

/*
 * The suspend or resume hooks of a SUSPENDING or RESUMING job, to the pods
 * status has not seen complete; once the hooks still out (status polls)
 * are back, or settle sends them then.
 */
void
live_phase_pods(struct console *c, int i, enum spec_hook hook)
{
	struct live *l = &c->live[i];
	int p;

	l->sent = l->hooks_out == 0;
	if (!l->sent)
		return;
	for (p = 0; p < l->npods; p++)
		if (!l->pods[p].done)
			live_hook_pod(c, i, p, hook);
}

/* True when another job is STOPPING or SUSPENDING on one of job i's
   nodes, or migrating a pod away from one that may still run there: its
   GPUs are not given up yet. */
bool
live_blocked(const struct console *c, int i)
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

static bool
is_word(const char *w, const char *const *words)
{
	size_t k;

	for (k = 0; words[k] != NULL; k++)
		if (strcmp(w, words[k]) == 0)
			return true;
	return false;
}

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
void
live_hook_back(struct console *c, const struct hook_done *d)
{
	struct live *l = &c->live[d->job];
	int pod = (int)d->tag;
	char word[32], why[256];

	l->hooks_out--;
	if (d->out != NULL && d->out_len > 0 && d->hook != SPEC_HOOK_STATUS)
		live_log_add(l, d->out, d->out_len);	/* exact bytes: job log escapes */
	if (d->dropped)
		live_logf(l, "cellar: %zu bytes of hook output dropped\n", d->dropped);
	if (pod < 0 || pod >= l->npods)
		return;
	switch (d->hook) {
	case SPEC_HOOK_START:
		if (d->status == 0)
			l->pods[pod].started = true;
		else {
			describe(c, d, why, sizeof why);
			live_set_error(l, why);
			l->failed = true;
		}
		break;
	case SPEC_HOOK_STATUS:
		answer_word(d->out ? d->out : "", status_words, word, sizeof word);
		if (d->status == 0 && !is_word(word, status_words)) {
			/* no answer (empty: its output lost or late, or noise
			   only) says nothing of the pod: counted as a failed
			   status hook, never as the pod gone (t0650 under load:
			   a running job taken over after a restart was failed) */
			c->health[d->node].status_fails++;
			live_logf(l, "cellar: status hook on '%s' gave no answer "
			    "('%s'): asking again\n", c->s->spec->nodes[d->node].name,
			    word);
			break;
		}
		if (l->recovered && !l->pods[pod].checked && d->status == 0) {
			l->pods[pod].checked = true;
			/* taken over after a restart: a pod the node knows
			   nothing of never started; one that answers did
			   (a suspended job's pods all did: one that is absent
			   is gone, below) */
			if (strcmp(word, "absent") == 0 && l->phase != CONSOLE_SUSPENDED) {
				live_logf(l, "cellar: pod %d was not running: starting it\n", pod);
				live_hook_pod(c, d->job, pod, SPEC_HOOK_START);
				break;
			}
			l->pods[pod].started = true;
		}
		/* a status hook that keeps failing (hanging) says nothing of
		   the pod: its node's health decides (live-health.c) */
		if (d->status != 0)
			c->health[d->node].status_fails++;
		else
			c->health[d->node].status_fails = 0;
		if (d->status != 0) {
			describe(c, d, why, sizeof why);
			live_logf(l, "cellar: %s\n", why);
		} else if (strcmp(word, "completed") == 0)
			l->pods[pod].done = true;
		else if (strcmp(word, "running") != 0 && strcmp(word, "suspended") != 0) {
			/* failed, or absent */
			snprintf(why, sizeof why, "pod %d on '%s' %s%s%s", pod,
			    c->s->spec->nodes[d->node].name, strcmp(word, "failed") == 0 ?
			    "failed" : "is gone: status says '", strcmp(word, "failed") == 0 ?
			    "" : word, strcmp(word, "failed") == 0 ? "" : "'");
			live_set_error(l, why);
			l->failed = true;
		}
		break;
	case SPEC_HOOK_STOP:
		if (l->phase != CONSOLE_MIGRATING) {
			if (d->status != 0) {
				describe(c, d, why, sizeof why);
				live_set_error(l, why);
				l->stop_failed = true;
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
				live_set_error(l, why);
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
			live_set_error(l, why);
			l->failed = true;
		}
		break;
	default:
		if (d->status != 0) {
			describe(c, d, why, sizeof why);
			live_set_error(l, why);
		}
		break;
	}
}
