/*
 * policy-gittins.c — Tiresias' Discretized 2D-Gittins index (Gu et al.,
 * NSDI'19): the LAS queues of policy-las.c, and inside a queue the job most
 * likely to finish soon per unit of service first, judged from the
 * distribution of job service (GPU-seconds) in the cluster.
 *
 * The index of a job with service a (policy_service: attained GPU-seconds
 * since its last promotion, as in las) for a quantum D:
 *
 *	G(a) = P(S - a <= D | S > a) / E[min(S - a, D) | S > a]
 *
 * over the sample S. D is the first queue threshold (T0: one GPU-hour by
 * default), infinite with a single queue (G = 1 / mean remaining service).
 * G is evaluated where each sample interval starts: for a in [s(i), s(i+1))
 * between consecutive distinct sample values, G(s(i)) (G(0) below the
 * smallest); 0 once a reaches the largest sample (the job outlived them
 * all). So G is piecewise constant between sample points and a key changes
 * only at a sample point or a queue threshold; init sorts the sample and
 * precomputes one index per interval with prefix sums, so key() is one
 * binary search.
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Lower queue first (k[0]), queues and promotion exactly as las.
 *  2. Higher index first (k[1] = -G).
 *  3. Earlier submission first (k[2]).
 *  4. The job id.
 * Class = K-1-queue, as in las: a job preempts only lower queues. The
 * index orders the jobs waiting in a queue; a running job keeps its GPUs
 * against a waiting one of its own queue. So `change` reports the queue
 * thresholds only (policy.h invariant 3: the scheduler ranks a running job
 * by its class; its key matters again when it is requeued).
 *
 * The sample: params.service (e.g. Tiresias' yarn-gput1000.csv, loaded by
 * src/sim/sample.h). Without one the policy learns: done() adds the service
 * of every job that finished its work; until GITTINS_LEARN_MIN jobs have,
 * it ranks like las (k[1] = 0, class (K-1-queue) x B), then builds the
 * table and rebuilds it whenever the count has grown by a quarter. Keys the
 * scheduler cached before a rebuild keep their values until re-keyed.
 *
 * What the Tiresias simulator does (simulator/run_sim.py) and where we
 * differ:
 *  - dlas-gpu-gittins keeps the las queues, re-sorts every queue at every
 *    event by (index, -submit) descending, running jobs included, and
 *    hands out GPUs in that order: a running job loses its GPUs to a
 *    pending one of higher index in its own queue. We do not: preempting
 *    inside a queue whenever two indices cross thrashed (1,481 preemptions
 *    for the 60-job trace with the yarn-gput1000 sample) and cost an event
 *    per sample point (170 million for the Philly trace, 47 s); the queues
 *    exist to bound preemption (Tiresias' discretization), so we preempt
 *    across queues only and let the index order the waiting jobs.
 *  - Its index (cal_r_gittins_index) uses a static quantum gittins_delta
 *    equal to its first queue limit, as our D = T0, and is evaluated once
 *    per sample interval (at the next sample point minus 1). Its expected
 *    service sums the samples S themselves, not S - a, over the jobs that
 *    end inside the quantum; we follow the formula above (the paper's), and
 *    evaluate at the start of the interval, where it is exact.
 *  - It ranks a running job by executed time x GPUs but a pending one by
 *    executed time alone; we use GPU-time for both.
 *  - It reads yarn-gput1000.csv from the working directory; we take any
 *    sample, or learn one.
 *
 * Tiresias' Figure 7 example (see policy-las.c for the setting), with
 * T0 = D = 6 GPU-units and the sample {4, 8, 12} (the three jobs'
 * GPU-times). The index per interval:
 *   [0,4)   P(S <= 6) = 1/3, E[min(S,6)] = (4+6+6)/3 = 16/3   G = 1/16
 *   [4,8)   S in {8,12}: P = 1/2, E = (4+6)/2 = 5            G = 1/10
 *   [8,12)  S = 12: P = 1, E = 4                             G = 1/4
 *   12 on   G = 0
 *   t=0   all at 0 (Q0, 1/16), ties by id: J0 starts.
 *   t=2   J0 completes at 4. J1 starts; J2 has the same index: waits.
 *   t=6   J1 reaches 4: index 1/10, above J2's 1/16; it keeps running.
 *   t=8   J1 reaches 6: Q1. J2 (Q0) preempts it: the queue comes first.
 *   t=10  J2 reaches 4 (1/10); t=11 it reaches 6: Q1, index 1/10, and J1
 *         waits in Q1 with service 6, index 1/10 too: equal classes.
 *   t=12  J2 reaches 8 (1/4); t=14 it completes at 12; J1 ends at 16.
 * JCT 2, 16, 14: average 32/3, the same as las. The index only reorders
 * jobs inside a queue, and the one moment two jobs share a queue (t=11)
 * their services fall in the same sample interval, so the index ties;
 * before running, J1 and J2 both have service 0 and no non-clairvoyant
 * index can tell them apart (the tie goes to J1 by id). J0 and J2 end
 * exactly at a sample point: the emulator completes a job before it acts
 * on a change due at the same instant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"

#define GITTINS_LEARN_MIN	32

struct gittins {
	/* the index table; npoint == 0 and no table while learning */
	bool		 table;
	double		*point;		/* distinct sample values, ascending */
	size_t		 npoint;
	double		*index;		/* [npoint + 1]: on [point[i-1], point[i]) */
	size_t		*first;		/* [npoint + 1]: first interval of i's equal run */
	/* learning */
	bool		 learning;
	double		*learned;
	size_t		 nlearned, cap, nbuilt;
};

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Number of elements of v[0..n) that are <= x (v ascending). */
static size_t
upper(const double *v, size_t n, double x)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
free_table(struct gittins *g)
{
	free(g->point);
	free(g->index);
	free(g->first);
	g->point = g->index = NULL;
	g->first = NULL;
	g->npoint = 0;
	g->table = false;
}

/* G at service a over sorted v[0..n) with prefix sums ps, quantum d. */
static double
index_at(const double *v, const double *ps, size_t n, double a, double d)
{
	size_t i = upper(v, n, a), k;
	double m = (double)(n - i), pr, e;

	if (i == n)
		return 0;
	if (isinf(d)) {
		pr = 1;
		e = (ps[n] - ps[i]) / m - a;
	} else {
		k = upper(v, n, a + d);
		pr = (double)(k - i) / m;
		e = (ps[k] - ps[i] - a * (double)(k - i) + d * (double)(n - k)) / m;
	}
	if (!(e > 0))		/* rounding on absurd samples only */
		return pr > 0 ? 1e300 : 0;
	return pr / e;
}

/* Build the table from the sample s[0..n) (sorted in place). */
static void
build(const struct policy *p, struct gittins *g, double *s, size_t n)
{
	double d = p->par.nqueues > 1 ? p->par.thresholds[0] : INFINITY;
	double *ps;
	size_t i, nd;

	free_table(g);
	qsort(s, n, sizeof s[0], cmp_dbl);
	ps = xreallocarray(NULL, n + 1, sizeof ps[0]);
	ps[0] = 0;
	for (i = 0; i < n; i++)
		ps[i + 1] = ps[i] + s[i];
	g->point = xreallocarray(NULL, n, sizeof g->point[0]);
	for (i = nd = 0; i < n; i++)
		if (nd == 0 || s[i] != g->point[nd - 1])
			g->point[nd++] = s[i];
	g->npoint = nd;
	g->index = xreallocarray(NULL, nd + 1, sizeof g->index[0]);
	g->first = xreallocarray(NULL, nd + 1, sizeof g->first[0]);
	for (i = 0; i <= nd; i++)
		g->index[i] = index_at(s, ps, n, i == 0 ? 0 : g->point[i - 1], d);
	free(ps);

	/* runs of equal index: where a pending key can next change */
	for (i = 0; i <= nd; i++)
		g->first[i] = i > 0 && g->index[i - 1] == g->index[i] ? g->first[i - 1] : i;
	g->table = true;
}

static int
gittins_init(struct policy *p, char **cause)
{
	struct gittins *g = xcalloc(1, sizeof *g);
	double *s;
	size_t i;

	if (p->par.service == NULL) {
		g->learning = true;
		p->state = g;
		return 0;
	}
	for (i = 0; i < p->par.nservice; i++)
		if (!isfinite(p->par.service[i]) || p->par.service[i] < 0) {
			*cause = xasprintf("service sample %zu (%g) is not a number of "
			    "GPU-seconds >= 0", i + 1, p->par.service[i]);
			free(g);
			return -1;
		}
	s = xreallocarray(NULL, p->par.nservice, sizeof s[0]);
	memcpy(s, p->par.service, p->par.nservice * sizeof s[0]);
	build(p, g, s, p->par.nservice);
	free(s);
	p->state = g;
	return 0;
}

static void
gittins_release(struct policy *p)
{
	struct gittins *g = p->state;

	if (g == NULL)
		return;
	free_table(g);
	free(g->learned);
	free(g);
	p->state = NULL;
}

static void
gittins_done(struct policy *p, const struct job *j)
{
	struct gittins *g = p->state;
	double *s;

	/* a failed or cancelled job's service is not its size */
	if (g == NULL || !g->learning || j->state == JOB_FAILED ||
	    j->state == JOB_CANCELLED || !isfinite(j->attained) || j->attained < 0)
		return;
	XGROW(g->learned, g->cap, g->nlearned + 1);
	g->learned[g->nlearned++] = j->attained;
	if (g->nlearned < GITTINS_LEARN_MIN ||
	    (g->nbuilt > 0 && g->nlearned < g->nbuilt + g->nbuilt / 4))
		return;
	s = xreallocarray(NULL, g->nlearned, sizeof s[0]);
	memcpy(s, g->learned, g->nlearned * sizeof s[0]);
	build(p, g, s, g->nlearned);
	free(s);
	g->nbuilt = g->nlearned;
}

/* Where a job stands: its service, queue and interval. */
struct spot {
	double	 s;
	int	 q;
	size_t	 i;
};

static void
locate(const struct policy *p, const struct job *j, double now, struct spot *sp)
{
	const struct gittins *g = p->state;

	sp->s = policy_service(&p->par, j, now);
	sp->q = policy_queue_of(&p->par, sp->s);
	sp->i = g != NULL && g->table ? upper(g->point, g->npoint, sp->s) : 0;
}

static void
gittins_key(const struct policy *p, const struct job *j, double now,
    struct policy_key *out)
{
	const struct gittins *g = p->state;
	struct spot sp;

	locate(p, j, now, &sp);
	out->k[0] = sp.q;					/* rule 1 */
	out->k[1] = g != NULL && g->table ? -g->index[sp.i] : 0;	/* rule 2 */
	out->k[2] = j->submit;					/* rule 3 */
	out->id = j->id;					/* rule 4 */
}

static int
gittins_klass(const struct policy *p, const struct job *j, double now)
{
	const struct gittins *g = p->state;
	struct spot sp;

	locate(p, j, now, &sp);
	(void)g;
	return p->par.nqueues - 1 - sp.q;
}

static double
gittins_change(const struct policy *p, const struct job *j)
{
	const struct gittins *g = p->state;
	struct spot sp;
	double u = INFINITY;

	(void)g;
	locate(p, j, j->state_since, &sp);
	if (sp.q < p->par.nqueues - 1)
		u = p->par.thresholds[sp.q];
	if (isinf(u))
		return INFINITY;
	return policy_service_reaches(&p->par, j, u);
}

static double
gittins_wait_change(const struct policy *p, const struct job *j, double now)
{
	return policy_promote_at(&p->par, j, now);	/* as las' rule 3 */
}

const struct policy_ops policy_gittins = {
	.name = "gittins",
	.summary = "Tiresias discretized 2D-Gittins: queues, Gittins index inside",
	.flags = POLICY_PREEMPTIVE | POLICY_SKIP,
	.init = gittins_init,
	.release = gittins_release,
	.key = gittins_key,
	.klass = gittins_klass,
	.change = gittins_change,
	.wait_change = gittins_wait_change,
	.done = gittins_done,
};
