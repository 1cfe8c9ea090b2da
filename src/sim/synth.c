/*
 * synth.c — the synthetic trace generator: Poisson arrivals, log-normal
 * (heavy-tailed) durations, a weighted GPU-count mix and per-VC load
 * shares. See trace.h for the parameters.
 *
 * Everything random comes from one xoshiro256** stream seeded through
 * splitmix64, drawn in a fixed order per job (gap, duration, GPUs, VC), so a
 * seed gives the same trace on every run and the emulator's replays of a
 * synthetic workload are reproducible.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/trace.h"

struct rng {
	uint64_t	s[4];
};

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void
rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna). */
static uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in (0, 1): never 0, so log() is safe. */
static double
rng_unit(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Standard normal (Box-Muller, one value per call for a fixed draw order). */
static double
rng_normal(struct rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);

	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* Index drawn by weight (total > 0). */
static int
rng_pick(struct rng *r, const double *w, int n, double total)
{
	double x = rng_unit(r) * total;
	int i;

	for (i = 0; i < n - 1; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

static const int default_sizes[] = { 1, 2, 4, 8, 16, 32 };
/* Philly's mix (jobs with 1, 2, 4, 8, 16 and 32 GPUs, in percent). */
static const double default_weights[] = { 93.2, 2.2, 2.3, 2.0, 0.24, 0.08 };

void
synth_params_init(struct synth_params *p)
{
	memset(p, 0, sizeof *p);
	p->njobs = 1000;
	p->seed = 1;
	p->rate = 20;
	p->dur_median = 1800;
	p->dur_sigma = 1.8;
	p->dur_max = 14 * 86400;
	p->gpu_sizes = default_sizes;
	p->gpu_weights = default_weights;
	p->ngpu_sizes = (int)(sizeof default_sizes / sizeof default_sizes[0]);
}

/* Sum of n weights; -1 if one is negative or not finite. */
static double
weights_total(const double *w, int n)
{
	double total = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!(w[i] >= 0 && w[i] < 1e300))
			return -1;
		total += w[i];
	}
	return total;
}

static int
check_gpus(const struct synth_params *p, double *total, char **cause)
{
	int i;

	if (p->ngpu_sizes < 1 || p->gpu_sizes == NULL || p->gpu_weights == NULL) {
		*cause = xasprintf("synth: the gpu mix is empty");
		return -1;
	}
	for (i = 0; i < p->ngpu_sizes; i++)
		if (p->gpu_sizes[i] < 1 || p->gpu_sizes[i] > TRACE_MAX_GPUS) {
			*cause = xasprintf("synth: gpu count %d must be in 1..%d",
			    p->gpu_sizes[i], TRACE_MAX_GPUS);
			return -1;
		}
	if ((*total = weights_total(p->gpu_weights, p->ngpu_sizes)) <= 0) {
		*cause = xasprintf("synth: gpu weights must be >= 0 and not all 0");
		return -1;
	}
	return 0;
}

static int
check_vcs(const struct synth_params *p, double *total, char **cause)
{
	int i, k;

	*total = p->nvcs;
	if (p->nvcs == 0)
		return 0;
	if (p->nvcs < 0 || p->vcs == NULL) {
		*cause = xasprintf("synth: bad VC list");
		return -1;
	}
	for (i = 0; i < p->nvcs; i++) {
		if (p->vcs[i] == NULL || p->vcs[i][0] == '\0' || strlen(p->vcs[i]) >= 64) {
			*cause = xasprintf("synth: VC names must be 1 to 63 bytes");
			return -1;
		}
		for (k = 0; k < i; k++)
			if (strcmp(p->vcs[k], p->vcs[i]) == 0) {
				*cause = xasprintf("synth: VC '%s' is listed twice", p->vcs[i]);
				return -1;
			}
	}
	if (p->vc_weights != NULL &&
	    (*total = weights_total(p->vc_weights, p->nvcs)) <= 0) {
		*cause = xasprintf("synth: VC weights must be >= 0 and not all 0");
		return -1;
	}
	return 0;
}

static int
check_params(const struct synth_params *p, double *gtotal, double *vtotal, char **cause)
{
	if (p->njobs < 1 || p->njobs > TRACE_MAX_JOBS) {
		*cause = xasprintf("synth: %d jobs, must be 1..%d", p->njobs, TRACE_MAX_JOBS);
		return -1;
	}
	if (!(p->rate > 0 && p->rate < 1e9)) {
		*cause = xasprintf("synth: arrival rate %g per hour must be > 0", p->rate);
		return -1;
	}
	if (!(p->dur_median > 0 && p->dur_median <= TRACE_MAX_TIME) ||
	    !(p->dur_max >= 1 && p->dur_max <= TRACE_MAX_TIME)) {
		*cause = xasprintf("synth: duration median %g s and cap %g s must be > 0 "
		    "(cap >= 1 s)", p->dur_median, p->dur_max);
		return -1;
	}
	if (!(p->dur_sigma >= 0 && p->dur_sigma <= 10)) {
		*cause = xasprintf("synth: duration sigma %g must be in 0..10", p->dur_sigma);
		return -1;
	}
	if (check_gpus(p, gtotal, cause) < 0)
		return -1;
	return check_vcs(p, vtotal, cause);
}

int
trace_synth(const struct synth_params *p, struct trace *t, char **cause)
{
	struct rng r;
	double gtotal, vtotal, now = 0, mean_gap, d, *eq = NULL;
	int i, v;

	memset(t, 0, sizeof *t);
	if (check_params(p, &gtotal, &vtotal, cause) < 0)
		return -1;
	if (p->nvcs > 0 && p->vc_weights == NULL) {
		eq = xreallocarray(NULL, (size_t)p->nvcs, sizeof *eq);
		for (i = 0; i < p->nvcs; i++)
			eq[i] = 1;
	}
	rng_seed(&r, p->seed);
	mean_gap = 3600 / p->rate;
	t->jobs = xcalloc((size_t)p->njobs, sizeof *t->jobs);
	for (i = 0; i < p->njobs; i++) {
		struct trace_job *j = &t->jobs[i];

		/* the first job opens the trace at 0 (invariant 1) */
		if (i > 0)
			now += -mean_gap * log(rng_unit(&r));
		d = p->dur_median * exp(p->dur_sigma * rng_normal(&r));
		d = floor(d + 0.5);
		j->duration = d < 1 ? 1 : d > p->dur_max ? p->dur_max : d;
		j->gpus = p->gpu_sizes[rng_pick(&r, p->gpu_weights, p->ngpu_sizes, gtotal)];
		if (p->nvcs > 0) {
			v = rng_pick(&r, eq != NULL ? eq : p->vc_weights, p->nvcs, vtotal);
			bufprintf(j->vc, sizeof j->vc, "%s", p->vcs[v]);
		}
		bufprintf(j->name, sizeof j->name, "synth-%d", i);
		j->submit = now;
		j->model = -1;
	}
	free(eq);
	t->njobs = p->njobs;
	t->format = TRACE_SYNTH;
	t->path = xasprintf("synth:seed=%llu", (unsigned long long)p->seed);
	return 0;
}
