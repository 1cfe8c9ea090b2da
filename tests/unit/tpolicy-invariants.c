/*
 * tpolicy-invariants.c — the invariants of policy.h for every policy, on
 * random jobs and several parameter sets (queues, promotion, gittins with a
 * sample, learning and learned):
 *  - klass in range, and monotone with the key (invariant 2);
 *  - a running job's key and class hold below change() and differ at it
 *    (oracles and gittins: the class), a pending job's below and at wait_change()
 *    (invariant 3);
 *  - non-oracles never read the duration (invariant 4);
 *  - an oracle's change() converges for a job slower than its history says,
 *    and its change_work() is exact in one step.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "test.h"

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

static double
unif(void)
{
	return (xr() & 0xffffff) / (double)0x1000000;
}

static const double interesting[] = {
	0, 1, 2, 3, 10, 599, 600, 601, 3599, 3600, 3601, 7200, 36000, 1800, 1000,
};

/* A service value: uniform, heavy-tailed, or right at a boundary. */
static double
some_service(void)
{
	switch (xr() % 4) {
	case 0:
		return unif() * 2e5;
	case 1:
		return exp(unif() * 14);
	case 2:
		return interesting[xr() % (sizeof interesting / sizeof interesting[0])];
	default:
		return (double)(xr() % 40000);
	}
}

/* A consistent random job at time now, running or pending. */
static void
mkjob(struct job *j, int id, double *now)
{
	static const int gpus[] = { 1, 2, 4, 8, 16, 3 };
	double g;

	job_init(j, id, "j", 0, unif() * 1e5);
	job_set_shape(j, 1, gpus[xr() % 6]);
	g = j->gpus;
	if (xr() % 8 == 0) {	/* never ran */
		j->state_since = j->submit + unif() * 100;
		*now = j->state_since + unif() * 1e4;
		j->queued = j->state_since - j->submit;
		j->duration = xr() % 3 ? 1 + unif() * 1e5 : -1;
		return;
	}
	j->first_start = j->submit + unif() * 5000;
	j->queued = j->first_start - j->submit + (xr() % 2 ? unif() * 2e4 : 0);
	j->attained = some_service();
	j->run_time = j->attained / g;
	j->work_done = j->run_time;
	j->duration = xr() % 3 ? j->work_done + 1 + exp(unif() * 12) : -1;
	j->state = xr() % 2 ? JOB_RUNNING : JOB_PENDING;
	j->state_since = j->first_start + j->run_time + j->queued;
	*now = j->state_since + (j->state == JOB_PENDING ? unif() * 2e4 : 0);
}

/* Run a copy of j for attained service a - j->attained at ideal speed. */
static void
advance(struct job *j, double a)
{
	double dt = (a - j->attained) / j->gpus;

	j->attained = a;
	j->run_time += dt;
	j->work_done += dt;
	if (j->duration >= 0 && j->work_done > j->duration)
		j->work_done = j->duration;
}

static bool
same_key(const struct policy_key *a, const struct policy_key *b)
{
	return policy_key_cmp(a, b) == 0 && a->id == b->id;
}

/* Policy variants under test. */
static const double small_sample[] = { 1, 2, 3, 10 };
static double big_sample[300];

struct variant {
	const char	*thresholds;	/* NULL: one queue */
	double		 knob;
	int		 sample;	/* 0 none (learn), 1 small, 2 big */
	int		 learned;	/* jobs fed to done() before the test */
};

static const struct variant variants[] = {
	{ "3600", 0, 2, 0 },
	{ "3600", 0, 0, 0 },
	{ "3600", 0, 0, 100 },
	{ "10m,1h", 0, 2, 0 },
	{ "3600", 2, 2, 0 },
	{ "5m,30m,2h,10h", 0.5, 1, 0 },
	{ NULL, 0, 2, 0 },
	{ NULL, 1, 1, 0 },
	{ "2", 0, 1, 0 },
	{ "2", 3, 1, 0 },
};

static int
setup(struct policy *p, const struct policy_ops *ops, const struct variant *v)
{
	struct policy_params par;
	struct job fed;
	char *cause = NULL;
	size_t i;

	for (i = 0; i < sizeof big_sample / sizeof big_sample[0]; i++)
		big_sample[i] = floor(exp(2 + (i * 7919 % 300) / 300.0 * 12));
	policy_params_init(&par);
	if (v->thresholds == NULL)
		par.nqueues = 1;
	else if (policy_params_thresholds(&par, v->thresholds, &cause) != 0)
		return -1;
	par.promote_knob = v->knob;
	if (v->sample == 1) {
		par.service = small_sample;
		par.nservice = 4;
	} else if (v->sample == 2) {
		par.service = big_sample;
		par.nservice = sizeof big_sample / sizeof big_sample[0];
	}
	if (policy_init(p, ops, &par, &cause) != 0) {
		free(cause);
		return -1;
	}
	for (i = 0; i < (size_t)v->learned && p->ops->done != NULL; i++) {
		job_init(&fed, 0, "fed", 0, 0);
		fed.state = JOB_COMPLETED;
		fed.attained = big_sample[i % 300];
		p->ops->done(p, &fed);
	}
	return 0;
}

#define NJOBS	300

static void
check_variant(const struct policy *p, const struct variant *v)
{
	static struct job jobs[NJOBS];
	static double nows[NJOBS];
	struct policy_key ka, kb, k2;
	const struct policy_ops *o = p->ops;
	bool oracle = o->flags & POLICY_ORACLE;
	/* running keys that change between class changes (invariant 3) */
	bool classonly = oracle || o == &policy_gittins;
	struct job c;
	double now = 5e5, ch, w, t, f[] = { 0, 0.25, 0.5, 0.9 };
	int i, k, ca, cb, c2;

	(void)v;
	for (i = 0; i < NJOBS; i++)
		mkjob(&jobs[i], i, &nows[i]);

	/* invariant 2 at a common time, and the class range */
	for (i = 0; i < NJOBS; i++) {
		if (jobs[i].state == JOB_PENDING && now < jobs[i].state_since)
			continue;
		o->key(p, &jobs[i], now, &ka);
		ca = o->klass(p, &jobs[i], now);
		CHECKF(ca >= 0 && ca <= POLICY_MAX_CLASS, "%s: class %d", o->name, ca);
		CHECKF(ka.id == i, "%s: id %d", o->name, ka.id);
		for (k = 0; k < NJOBS; k += 7) {
			if (jobs[k].state == JOB_PENDING && now < jobs[k].state_since)
				continue;
			o->key(p, &jobs[k], now, &kb);
			cb = o->klass(p, &jobs[k], now);
			if (policy_key_cmp(&ka, &kb) < 0)
				CHECKF(ca >= cb, "%s: key(%d) < key(%d), class %d < %d",
				    o->name, i, k, ca, cb);
		}
	}

	for (i = 0; i < NJOBS; i++) {
		struct job *j = &jobs[i];

		now = nows[i];
		o->key(p, j, now, &ka);
		ca = o->klass(p, j, now);

		/* determinism */
		o->key(p, j, now, &k2);
		CHECK(same_key(&ka, &k2) && o->klass(p, j, now) == ca);

		/* invariant 4 */
		if (!oracle) {
			c = *j;
			c.duration = j->duration < 0 ? 12345 : -1;
			o->key(p, &c, now, &k2);
			CHECKF(same_key(&ka, &k2) && o->klass(p, &c, now) == ca &&
			    o->change(p, &c) == o->change(p, j) &&
			    o->wait_change(p, &c, now) == o->wait_change(p, j, now),
			    "%s reads the duration", o->name);
		}

		CHECK((o->change_work != NULL) == oracle);
		if (j->state == JOB_RUNNING && oracle) {
			/* change_work: exact in work, whatever the speed */
			w = o->change_work(p, j);
			CHECKF(w > j->work_done, "%s: job %d change_work %.17g at %.17g",
			    o->name, i, w, j->work_done);
			for (k = 0; k < 4 && isfinite(w); k++) {
				c = *j;
				c.work_done += f[k] * (w - j->work_done);
				CHECKF(o->klass(p, &c, now) == ca, "%s: job %d class changed "
				    "at work %.17g before %.17g", o->name, i, c.work_done, w);
			}
			c = *j;
			c.work_done = isfinite(w) ? w : j->duration;
			CHECKF(isfinite(w) ? o->klass(p, &c, now) != ca :
			    o->klass(p, &c, now) == ca, "%s: job %d class at work %.17g",
			    o->name, i, c.work_done);
		}
		if (j->state == JOB_RUNNING) {
			ch = o->change(p, j);
			CHECKF(ch > j->attained, "%s: job %d change %.17g at %.17g",
			    o->name, i, ch, j->attained);
			if (isinf(ch)) {
				c = *j;
				advance(&c, j->attained + 1e6);
				o->key(p, &c, now, &k2);
				CHECKF(o->klass(p, &c, now) == ca && (classonly ||
				    same_key(&ka, &k2)), "%s: job %d changed after "
				    "change() = inf", o->name, i);
				continue;
			}
			for (k = 0; k < 4; k++) {
				c = *j;
				advance(&c, j->attained + f[k] * (ch - j->attained));
				o->key(p, &c, now, &k2);
				c2 = o->klass(p, &c, now);
				CHECKF(c2 == ca && (classonly || same_key(&ka, &k2)),
				    "%s: job %d changed at %.17g before change() %.17g "
				    "(from %.17g; q %g->%g, class %d->%d)", o->name, i,
				    c.attained, ch, j->attained, ka.k[0], k2.k[0], ca, c2);
			}
			c = *j;
			advance(&c, ch);
			o->key(p, &c, now, &k2);
			c2 = o->klass(p, &c, now);
			CHECKF(c2 != ca || (!classonly && !same_key(&ka, &k2)),
			    "%s: job %d unchanged at change() %.17g (from %.17g; g %d, "
			    "class %d)", o->name, i, ch, j->attained, j->gpus, ca);
		} else {
			CHECKF(o->change(p, j) >= j->attained, "%s: change", o->name);
			w = o->wait_change(p, j, now);
			CHECKF(w >= now, "%s: job %d wait_change %.17g < now %.17g",
			    o->name, i, w, now);
			if (isinf(w)) {
				o->key(p, j, now + 1e6, &k2);
				CHECKF(same_key(&ka, &k2) && o->klass(p, j, now + 1e6) == ca,
				    "%s: pending job %d changed after wait_change() = inf",
				    o->name, i);
				continue;
			}
			for (k = 0; k < 4; k++) {
				t = now + f[k] * (w - now);
				o->key(p, j, t, &k2);
				CHECKF(same_key(&ka, &k2) && o->klass(p, j, t) == ca,
				    "%s: pending job %d changed at %.17g before %.17g",
				    o->name, i, t, w);
			}
			/* at that time the emulator promotes (policy_promote) */
			c = *j;
			policy_promote(&p->par, &c, w);
			o->key(p, &c, w, &k2);
			CHECKF(!same_key(&ka, &k2) || o->klass(p, &c, w) != ca,
			    "%s: pending job %d unchanged at wait_change() %.17g",
			    o->name, i, w);
		}
	}
}

static void
test_all(void)
{
	struct policy p;
	size_t v;
	int i, rounds = test_long ? 20 : 2, r;

	for (r = 0; r < rounds; r++)
		for (i = 0; policy_table[i] != NULL; i++)
			for (v = 0; v < sizeof variants / sizeof variants[0]; v++) {
				CHECKF(setup(&p, policy_table[i], &variants[v]) == 0,
				    "%s variant %zu", policy_table[i]->name, v);
				if (p.ops == NULL)
					continue;
				check_variant(&p, &variants[v]);
				policy_release(&p);
			}
}

/* A job running slower than its history: change() still converges. */
static void
test_oracle_converges(void)
{
	const struct policy_ops *ops[] = { &policy_srtf, &policy_srsf };
	struct policy p;
	struct policy_params par;
	struct job j;
	char *cause = NULL;
	double ch, dt, speed;
	int o, n, c0, steps, maxsteps = 0, trial;

	policy_params_init(&par);
	for (o = 0; o < 2; o++) {
		CHECK(policy_init(&p, ops[o], &par, &cause) == 0);
		for (trial = 0; trial < 200; trial++) {
			job_init(&j, trial, "slow", 0, 0);
			job_set_shape(&j, 1, 1 + (int)(xr() % 8));
			j.state = JOB_RUNNING;
			j.first_start = 0;
			/* history at ideal speed, now at 0.05 .. 0.95 of it */
			j.run_time = j.work_done = unif() * 1e5;
			j.attained = j.run_time * j.gpus;
			j.duration = j.work_done + 10 + exp(unif() * 12);
			speed = 0.05 + unif() * 0.9;
			c0 = p.ops->klass(&p, &j, 0);
			for (steps = 0; steps < 1000; steps++) {
				ch = p.ops->change(&p, &j);
				if (isinf(ch))
					break;
				dt = (ch - j.attained) / j.gpus;
				j.attained = ch;
				j.run_time += dt;
				j.work_done += dt * speed;
				if (p.ops->klass(&p, &j, 0) != c0)
					break;
			}
			CHECKF(p.ops->klass(&p, &j, 0) > c0, "%s: class %d stuck after "
			    "%d steps at speed %g", ops[o]->name, c0, steps, speed);
			/* change_work: one step at any speed */
			c0 = p.ops->klass(&p, &j, 0);
			ch = p.ops->change_work(&p, &j);
			if (isfinite(ch)) {
				j.work_done = ch;
				CHECK(p.ops->klass(&p, &j, 0) > c0);
			}
			if (steps > maxsteps)
				maxsteps = steps;
			n = steps;
			(void)n;
		}
		/* ln(0.05 / 2^-30) / -ln(0.95): about 350 at 1/20 of the speed */
		CHECKF(maxsteps < 500, "%s: %d steps", ops[o]->name, maxsteps);
		policy_release(&p);
	}
}

static const struct test tests[] = {
	{ "all-policies", test_all },
	{ "oracle-converges", test_oracle_converges },
};

TEST_MAIN(tests)
