/*
 * source-emu.c — the dashboard's default source: the emulator (sim/emu.h)
 * in this process, playing a workload on the session's spec. The demo
 * workload is the Philly trace sample compiled in (specs/demo-philly.csv,
 * CC-BY-4.0 data; see specs/README.md), its four busiest VCs mapped onto
 * the default spec's and its arrivals compressed DASH_DEMO_LOAD times so
 * that 128 GPUs queue and preempt, after a scripted opening
 * (specs/demo-opening.csv; source.h says how the two are put together).
 * Jobs are `auto`: guaranteed while their VC has room, else opportunistic.
 * The demo's node failures are demo_faults below; it ends at
 * DASH_DEMO_END (its last jobs would run on for days).
 *
 * advance(dt) runs the emulator up to clock + dt (never past the end) and
 * hands over its journal; the clock is the play position, which may be
 * past the last event's time. restart builds the emulator again from the
 * jobs as they were made.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/source.h"
#include "policy/sched.h"
#include "sim/emu.h"
#include "sim/trace.h"

/* A set of small ints, each once, in the order added. */
struct idset {
	int		*v;
	int		 n;
	size_t		 cap;
	unsigned char	*in;
	int		 max;
};

static void
idset_add(struct idset *x, int id)
{
	if (id < 0)
		return;
	if (id >= x->max) {
		int nmax = id + 1 > 2 * x->max ? id + 1 : 2 * x->max;

		x->in = xreallocarray(x->in, (size_t)nmax, 1);
		memset(x->in + x->max, 0, (size_t)(nmax - x->max));
		x->max = nmax;
	}
	if (x->in[id])
		return;
	x->in[id] = 1;
	XGROW(x->v, x->cap, (size_t)x->n + 1);
	x->v[x->n++] = id;
}

/* Hand the set's ids to *out (grown as needed) and empty it. */
static int
idset_take(struct idset *x, int **out, size_t *cap)
{
	int i, n = x->n;

	XGROW(*out, *cap, (size_t)n + 1);
	for (i = 0; i < n; i++) {
		(*out)[i] = x->v[i];
		x->in[x->v[i]] = 0;
	}
	x->n = 0;
	return n;
}

static void
idset_release(struct idset *x)
{
	free(x->v);
	free(x->in);
}

struct emu_src {
	const struct spec	*spec;
	char			*spec_name;
	enum engine_mode	 mode;
	struct policy		 pol;
	bool			 pol_init;
	struct job		*jobs;
	struct job		*jobs0;		/* as made, for restart */
	int			 njobs;
	struct emu_params	 ep;
	struct emu_fault	*faults;	/* ep's */
	struct emu		*m;
	double			 clock;
	double			 end;		/* 0: play until all is done */
	uint64_t		 gen, spec_gen;
	/* changed since the last changes() (source.h invariant 4): the
	   emulator's dirty jobs and the nodes of its health records */
	struct idset		 cj, cn;
	int			*out_j, *out_n;	/* what the last changes() handed out */
	size_t			 out_j_cap, out_n_cap;
};

void
dash_emu_cfg_init(struct dash_emu_cfg *c)
{
	memset(c, 0, sizeof *c);
	c->mode = ENGINE_HIVED;
	c->policy = "las";
	c->seed = 1;
}

static void
emu_src_free(void *self)
{
	struct emu_src *x = self;

	if (x == NULL)
		return;
	emu_free(x->m);
	if (x->pol_init)
		policy_release(&x->pol);
	free(x->jobs);
	free(x->jobs0);
	free(x->faults);
	free(x->spec_name);
	idset_release(&x->cj);
	idset_release(&x->cn);
	free(x->out_j);
	free(x->out_n);
	free(x);
}

static void
emu_src_data(void *self, struct dash_data *d)
{
	struct emu_src *x = self;

	memset(d, 0, sizeof *d);
	d->backend = "emulator";
	d->spec_name = x->spec_name;
	d->policy = x->pol.ops->name;
	d->spec = x->spec;
	d->engine = emu_engine(x->m);
	d->jobs = x->jobs;
	d->njobs = x->njobs;
	d->now = x->clock;
	d->can_play = true;
	d->done = emu_done(x->m) || (x->end > 0 && x->clock >= x->end);
	d->end = x->end;
	d->gen = x->gen;
	d->spec_gen = x->spec_gen;
}

static int
emu_src_advance(void *self, double dt, dash_rec_fn fn, void *arg, char **cause)
{
	struct emu_src *x = self;
	const struct rec *r;
	const int *d;
	int i, n;
	long long ev;

	if (!(dt > 0) || (x->end > 0 && x->clock >= x->end))
		return 0;
	x->clock += dt;
	if (x->end > 0 && x->clock > x->end)
		x->clock = x->end;
	if ((ev = emu_run(x->m, x->clock, NULL, NULL, cause)) < 0)
		return -1;
	r = emu_journal(x->m, &n);
	for (i = 0; i < n; i++) {
		if ((r[i].kind == REC_NODE_BAD || r[i].kind == REC_NODE_OK) &&
		    r[i].cell >= 0 && r[i].cell < x->spec->ncells)
			idset_add(&x->cn, x->spec->cells[r[i].cell].node);
		if (fn != NULL)
			fn(arg, &r[i]);
	}
	/* every job whose record, key, class or cells changed (emu.h) */
	d = emu_dirty(x->m, &n);
	for (i = 0; i < n; i++)
		idset_add(&x->cj, d[i]);
	/* waits and service shown grow with the clock even without events */
	x->gen++;
	emu_drain(x->m);
	return 0;
}

static void
emu_src_key(void *self, int job, struct policy_key *key, int *klass)
{
	struct emu_src *x = self;

	sched_job_key(emu_sched(x->m), job, key, klass);
}

static void
emu_src_changes(void *self, struct dash_changes *ch)
{
	struct emu_src *x = self;

	memset(ch, 0, sizeof *ch);
	ch->njobs = idset_take(&x->cj, &x->out_j, &x->out_j_cap);
	ch->jobs = x->out_j;
	ch->nnodes = idset_take(&x->cn, &x->out_n, &x->out_n_cap);
	ch->nodes = x->out_n;
}

/* The emulator at time 0 over x->jobs0. */
static int
emu_src_build(struct emu_src *x, char **cause)
{
	struct emu *m;

	memcpy(x->jobs, x->jobs0, (size_t)x->njobs * sizeof *x->jobs);
	if ((m = emu_create(x->spec, x->mode, &x->pol, &x->ep, x->jobs, x->njobs,
	    cause)) == NULL)
		return -1;
	emu_free(x->m);
	x->m = m;
	x->clock = 0;
	return 0;
}

static int
emu_src_restart(void *self, char **cause)
{
	struct emu_src *x = self;
	int *ids;
	size_t cap = 0;

	if (emu_src_build(x, cause) != 0)
		return -1;
	/* nothing the model kept holds: it starts over (source.h 5) */
	ids = NULL;
	idset_take(&x->cj, &ids, &cap);
	idset_take(&x->cn, &ids, &cap);
	free(ids);
	x->gen++;
	x->spec_gen++;
	return 0;
}

static const struct dash_source_ops emu_src_ops = {
	"emulator", emu_src_data, emu_src_advance, emu_src_key, emu_src_changes,
	emu_src_free, NULL, emu_src_restart,
};

/*
 * The demo's node failures: a research node early, while the opening has
 * filled it, and a prod node in the sample's busy part. Only the nodes
 * the spec has (another spec plays the demo without them).
 */
static const struct {
	const char	*node;
	double		 at, until;
} demo_faults[] = {
	{ "r0n05", 60 * 60, 150 * 60 },
	{ "r1n02", DASH_DEMO_OPENING + 14 * 3600, DASH_DEMO_OPENING + 17 * 3600 },
};

static void
demo_faults_add(struct emu_src *x)
{
	size_t i;
	int n;

	x->faults = xcalloc(sizeof demo_faults / sizeof demo_faults[0],
	    sizeof *x->faults);
	for (i = 0, n = 0; i < sizeof demo_faults / sizeof demo_faults[0]; i++) {
		if (spec_find_node(x->spec, demo_faults[i].node) < 0)
			continue;
		snprintf(x->faults[n].node, sizeof x->faults[n].node, "%s",
		    demo_faults[i].node);
		x->faults[n].at = demo_faults[i].at;
		x->faults[n].until = demo_faults[i].until;
		n++;
	}
	x->ep.faults = x->faults;
	x->ep.nfaults = n;
}

/*
 * The demo's workload as one trace (source.h): the opening, then the
 * sample's busy window at the demo's load, from DASH_DEMO_OPENING on.
 */
static int
demo_trace(double load, struct trace *t, char **cause)
{
	struct trace smp;
	int i;

	if (trace_load_string("open.csv", dash_demo_opening, dash_demo_opening_len,
	    TRACE_PHILLY, t, cause) != 0)
		return -1;
	/* both sorted, the opening before the sample: so is their sequence */
	if (t->njobs > 0 && t->jobs[t->njobs - 1].submit >= DASH_DEMO_OPENING) {
		*cause = xasprintf("the demo's opening runs past %.0f s",
		    DASH_DEMO_OPENING);
		goto fail;
	}
	if (trace_load_string("philly.csv", dash_demo_trace, dash_demo_trace_len,
	    TRACE_PHILLY, &smp, cause) != 0)
		goto fail;
	if (trace_scale_load(&smp, load, cause) != 0 ||
	    trace_window(&smp, DASH_DEMO_FROM, DASH_DEMO_FROM + DASH_DEMO_SPAN,
	    cause) != 0) {
		trace_release(&smp);
		goto fail;
	}
	t->jobs = xreallocarray(t->jobs, (size_t)t->njobs + (size_t)smp.njobs + 1,
	    sizeof *t->jobs);
	for (i = 0; i < smp.njobs; i++) {
		t->jobs[t->njobs + i] = smp.jobs[i];
		t->jobs[t->njobs + i].submit += DASH_DEMO_OPENING;
	}
	t->njobs += smp.njobs;
	trace_release(&smp);
	return 0;
fail:
	trace_release(t);
	return -1;
}

int
dash_source_emu(struct dash_source *src, const struct dash_emu_cfg *c, char **cause)
{
	struct emu_src *x = xcalloc(1, sizeof *x);
	const struct policy_ops *ops;
	struct policy_params par;
	struct trace t;
	const char *vcmap = c->trace == NULL ? DASH_DEMO_VCMAP : c->vcmap;
	double load = c->load > 0 ? c->load : c->trace == NULL ? DASH_DEMO_LOAD : 1;
	int i, rc;

	x->spec = c->spec;
	x->spec_name = xstrdup(c->spec_name != NULL ? c->spec_name : "-");
	if ((ops = policy_find(c->policy)) == NULL) {
		*cause = policy_unknown(c->policy);
		goto fail;
	}
	policy_params_init(&par);
	if (policy_init(&x->pol, ops, &par, cause) != 0)
		goto fail;
	x->pol_init = true;
	if (c->trace == NULL)
		rc = demo_trace(load, &t, cause);
	else if ((rc = trace_load(c->trace, TRACE_AUTO, &t, cause)) == 0 &&
	    load != 1 && (rc = trace_scale_load(&t, load, cause)) != 0)
		trace_release(&t);
	if (rc != 0)
		goto fail;
	/* the demo's VCs are the default spec's: on another spec, keep what maps */
	rc = trace_to_jobs(&t, c->spec, vcmap, c->seed, true, &x->jobs, &x->njobs,
	    NULL, NULL, cause);
	if (rc != 0 && c->trace == NULL) {
		free(*cause);
		*cause = NULL;
		rc = trace_to_jobs(&t, c->spec, "*=-", c->seed, true, &x->jobs,
		    &x->njobs, NULL, NULL, cause);
	}
	trace_release(&t);
	if (rc != 0)
		goto fail;
	for (i = 0; i < x->njobs; i++)
		if (!x->jobs[i].class_given)
			x->jobs[i].klass = JOB_AUTO;
	x->jobs0 = xreallocarray(NULL, (size_t)x->njobs + 1, sizeof *x->jobs);
	memcpy(x->jobs0, x->jobs, (size_t)x->njobs * sizeof *x->jobs);
	x->mode = c->mode;
	emu_params_init(&x->ep);
	if (c->trace == NULL) {
		demo_faults_add(x);
		x->end = DASH_DEMO_END;
	}
	if (emu_src_build(x, cause) != 0)
		goto fail;
	x->gen = 1;
	src->ops = &emu_src_ops;
	src->self = x;
	return 0;
fail:
	emu_src_free(x);
	return -1;
}

void
dash_source_free(struct dash_source *src)
{
	if (src->ops != NULL)
		src->ops->free(src->self);
	src->ops = NULL;
	src->self = NULL;
}
