/*
 * source-live.c — the dashboard on a live session: the session's console
 * (console.h) runs real jobs through its spec's backend; this source shows
 * them. Jobs are copies from console_snapshot (read-only), cells and VC
 * usage the session's engine (the one the console schedules on), events the
 * records the console committed to the session's store since the source
 * was made. advance(dt) ticks the console once (dt means nothing to a wall
 * clock) and reads what changed.
 *
 * The source cannot tell which jobs changed (no changes op): a live cluster
 * has few jobs, and the model rebuilds on each tick.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/session.h"
#include "console.h"
#include "core/xmalloc.h"
#include "dash/source.h"
#include "store/store.h"

struct live_src {
	struct session		*s;
	struct console		*c;
	struct job		*jobs;
	const char		**phases;	/* static names, as jobs */
	int			 njobs;
	double			 now, epoch;
	uint64_t		 gen;
	int64_t			 seq;		/* store events read up to */
};

static void
live_src_free(void *self)
{
	struct live_src *x = self;

	if (x == NULL)
		return;
	free(x->jobs);
	free(x->phases);
	free(x);
}

/* The console's jobs, copied out of a snapshot. */
static void
live_take(struct live_src *x)
{
	struct console_snapshot snap;
	int i;

	console_snapshot(x->c, &snap);
	free(x->jobs);
	free(x->phases);
	x->jobs = xcalloc((size_t)snap.njobs + 1, sizeof *x->jobs);
	x->phases = xcalloc((size_t)snap.njobs + 1, sizeof *x->phases);
	for (i = 0; i < snap.njobs; i++) {
		x->jobs[i] = snap.jobs[i].job;
		x->phases[i] = console_phase_name(snap.jobs[i].phase);
	}
	x->njobs = snap.njobs;
	console_snapshot_release(&snap);
	x->now = session_now();
	x->gen++;
}

static void
live_src_data(void *self, struct dash_data *d)
{
	struct live_src *x = self;

	memset(d, 0, sizeof *d);
	d->backend = x->s->spec->backend.type == SPEC_BACKEND_SSH ? "ssh" : "local";
	d->spec_name = x->s->spec_path;
	d->policy = "priority";
	d->spec = x->s->spec;
	d->engine = x->s->engine;
	d->jobs = x->jobs;
	d->phases = x->phases;
	d->njobs = x->njobs;
	d->now = x->now;
	d->epoch = x->epoch;
	d->writable = true;
	d->gen = x->gen;
}

/* The records the session committed since the last read. */
static int
live_events(struct live_src *x, dash_rec_fn fn, void *arg, char **cause)
{
	if (x->s->store == NULL || x->s->run == 0)
		return 0;
	return dash_store_events(x->s->store, x->s->run, &x->seq, 0, NULL, 0, fn, arg,
	    cause);
}

static int
live_src_advance(void *self, double dt, dash_rec_fn fn, void *arg, char **cause)
{
	struct live_src *x = self;

	(void)dt;
	if (console_tick(x->c, cause) != 0)
		return -1;
	live_take(x);
	return live_events(x, fn, arg, cause);
}

/* The console's policy ('priority'): higher first, then arrival. */
static void
live_src_key(void *self, int job, struct policy_key *key, int *klass)
{
	struct live_src *x = self;

	memset(key, 0, sizeof *key);
	key->id = job;
	*klass = 0;
	if (job < 0 || job >= x->njobs)
		return;
	key->k[0] = -(double)x->jobs[job].priority;
	key->k[1] = x->jobs[job].submit;
	*klass = x->jobs[job].priority;
}

/* The session's store has its jobs' events. */
static int
live_src_history(void *self, const char *job, struct strbuf *out)
{
	struct live_src *x = self;
	int i;

	if (x->s->store == NULL || x->s->run == 0)
		return 0;
	for (i = 0; i < x->njobs; i++)
		if (strcmp(x->jobs[i].name, job) == 0)
			return dash_store_history(x->s->store, x->s->run, x->jobs[i].id,
			    x->epoch, out);
	return 0;
}

static const struct dash_source_ops live_src_ops = {
	"live", live_src_data, live_src_advance, live_src_key, NULL, live_src_free,
	live_src_history,
};

int
dash_source_live(struct dash_source *src, struct session *s, char **cause)
{
	struct live_src *x;
	struct console *c;

	if (console_get(s, &c, cause) != 0)
		return -1;
	x = xcalloc(1, sizeof *x);
	x->s = s;
	x->c = c;
	x->epoch = session_now();
	live_take(x);
	src->ops = &live_src_ops;
	src->self = x;
	return 0;
}
