/*
 * live-recover.c — restart reconciliation: console_get on a session that
 * recovered its run takes the run's live jobs over from their stored
 * blobs and logs, each in the phase console.h's "Restart" gives it.
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/session.h"
#include "core/xmalloc.h"
#include "live/live-int.h"
#include "store/store.h"

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
	if (live_unpack_live(c->s->spec, sj->blob, sj->blob_len, &l, &prio, why,
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
	live_alive_add(c, c->n - 1);
	return 0;
}

/*
 * Take over the live jobs of the session's recovered run: queued ones are
 * queued again; starting and running ones keep the cells the engine got
 * back from the store and their pods are asked (status) before anything
 * is started, so nothing runs twice; stopping ones are stopped again
 * (stop hooks are idempotent). Problems with one job go to notes.
 */
int
live_recover(struct console *c, struct strbuf *notes, char **cause)
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

		live_logf(l, "cellar: taken over after a restart (%s)\n",
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
				live_set_error(l, "not taken over after a restart");
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
			live_set_error(l, "not taken over after a restart");
			l->phase = CONSOLE_DONE;
			continue;
		}
		if (l->npods == 0)
			live_take_pods(c, i);	/* cannot be: version 2 keeps them */
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
