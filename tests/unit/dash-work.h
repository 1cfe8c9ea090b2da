/*
 * dash-work.h — a dashboard source over an engine and jobs that the
 * caller changes by hand (start a job, end one, a node goes bad), shared
 * by tdash-model.c and tests/bench/bench-dash.c; and the emulator's source
 * on the embedded default spec with its view model (struct fixture),
 * shared by tdash-model.c and tdash-series.c. Header only, no test.h.
 *
 * The source tells the model exactly which jobs and nodes changed since
 * the model last asked (the delta path), unless `all` is set or more
 * jobs changed than it keeps: then it says it cannot tell, and the
 * refresh is a full rebuild.
 * The caller owns the spec, the engine and the jobs; bump gen after a
 * change, as a real source does.
 */
#ifndef CELLAR_DASH_WORK_H
#define CELLAR_DASH_WORK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dash/dash-model.h"
#include "dash/source.h"
#include "engine/engine.h"
#include "job/job.h"

struct hand {
	const struct spec	*s;
	struct engine		*e;
	struct job		*jobs;
	int			 njobs;
	uint64_t		 gen;
	double			 now;
	const char		*backend, *spec_name;	/* as data() reports */
	bool			 all;		/* tell nothing: rebuilds */
	bool			 lost;		/* more changes than cj holds */
	int			 cj[64], ncj;	/* jobs changed since changes() */
	int			 cn[8], ncn;	/* nodes changed */
};

static void
hand_data(void *self, struct dash_data *d)
{
	struct hand *h = self;

	memset(d, 0, sizeof *d);
	d->backend = h->backend;
	d->spec_name = h->spec_name;
	d->policy = "fifo";
	d->spec = h->s;
	d->engine = h->e;
	d->jobs = h->jobs;
	d->njobs = h->njobs;
	d->now = h->now;
	d->gen = h->gen;
}

static int
hand_advance(void *self, double dt, dash_rec_fn fn, void *arg, char **cause)
{
	(void)self; (void)dt; (void)fn; (void)arg; (void)cause;
	return 0;
}

static void
hand_changes(void *self, struct dash_changes *ch)
{
	struct hand *h = self;

	memset(ch, 0, sizeof *ch);
	ch->all = h->all || h->lost;
	ch->jobs = h->cj;
	ch->njobs = h->ncj;
	ch->nodes = h->cn;
	ch->nnodes = h->ncn;
	h->ncj = h->ncn = 0;
	h->lost = false;
}

static void
hand_free(void *self)
{
	(void)self;
}

/* Job id changed; past what cj holds (a set-up before the first
   refresh), the next changes() says it cannot tell. */
static inline void
hand_mark(struct hand *h, int id)
{
	if (h->ncj == (int)(sizeof h->cj / sizeof h->cj[0]))
		h->lost = true;
	else
		h->cj[h->ncj++] = id;
}

static const struct dash_source_ops hand_ops = {
	"hand", hand_data, hand_advance, NULL, hand_changes, hand_free, NULL, NULL,
};

/* Start pending job j on one pod of `gpus` GPUs (prio < 0: opportunistic)
   at h->now; 0, or -1 when the engine finds no room. */
static inline int
hand_start(struct hand *h, struct job *j, int gpus, int prio)
{
	struct engine_req r;
	struct engine_plan plan;
	char why[128];
	int id;

	memset(&r, 0, sizeof r);
	r.name = j->name;
	r.vc = j->vc;
	r.leaf_type = -1;
	r.pin = -1;
	r.priority = prio;
	r.nmembers = 1;
	r.members[0].pods = 1;
	r.members[0].gpus = gpus;
	engine_plan_init(&plan);
	id = engine_alloc(h->e, &r, &plan);
	engine_plan_release(&plan);
	if (id < 0)
		return -1;
	job_set_shape(j, 1, gpus);
	j->engine_id = id;
	if (job_apply(j, JOB_EV_START, h->now, why, sizeof why) != 0)
		return -1;
	hand_mark(h, j->id);
	return 0;
}

/* Running job j ends (completes) at h->now. */
static inline void
hand_end(struct hand *h, struct job *j)
{
	char why[128];

	engine_release(h->e, j->engine_id);
	j->engine_id = -1;
	job_apply(j, JOB_EV_FINISH, h->now, why, sizeof why);
	job_apply(j, JOB_EV_COMPLETE, h->now, why, sizeof why);
	hand_mark(h, j->id);
}


/* The embedded default spec; aborts when it does not load. */
static inline struct spec *
default_spec(void)
{
	struct spec *s = spec_load_string("default.yaml", default_spec_yaml,
	    default_spec_yaml_len, NULL);

	if (s == NULL)
		abort();
	return s;
}

/* The emulator's source on the default spec, and its model moved `at`
   seconds on (none: 0); fixture_release frees all three. */
struct fixture {
	struct spec		*spec;
	struct dash_source	 src;
	struct dash_model	 m;
};

static inline void
fixture_init(struct fixture *f, double at)
{
	struct dash_emu_cfg c;
	char *cause = NULL;

	f->spec = default_spec();
	dash_emu_cfg_init(&c);
	c.spec = f->spec;
	c.spec_name = "default";
	if (dash_source_emu(&f->src, &c, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		abort();
	}
	dash_model_init(&f->m, &f->src);
	if (at > 0 && dash_model_advance(&f->m, at, &cause) != 0)
		abort();
}

static inline void
fixture_release(struct fixture *f)
{
	dash_model_release(&f->m);
	dash_source_free(&f->src);
	spec_free(f->spec);
}

#endif
