/*
 * policy-srtf.c — oracle baselines that know every job's duration:
 * shortest remaining time first (`srtf`) and shortest remaining service
 * first (`srsf`, remaining time x GPUs, Tiresias' two-dimensional oracle).
 * The Tiresias simulator's "shortest" and "shortest-gpu" schedules.
 *
 * Rules, in order (the key's fields follow the numbers):
 *  1. Less remaining first (k[0]): srtf duration - work_done seconds, srsf
 *     that times the job's GPUs. A job whose duration is unknown (< 0, or
 *     not finite) sorts after every known one (k[0] = INFINITY).
 *  2. Earlier submission first (k[1]; the simulator's stable sort keeps
 *     arrival order among equals).
 *  3. The job id.
 *
 * Class: remaining x falls into logarithmic buckets (1.5^(b-1), 1.5^b],
 * bucket 0 for x <= 1, and class = POLICY_MAX_CLASS - b; unknown jobs are
 * class 0. A job preempts only jobs whose remaining lies at least one
 * bucket boundary above its own, never a near tie, so the oracle does not
 * thrash between jobs of about the same size. The factor bounds the
 * re-keys: a job crosses ln(remaining) / ln 1.5 boundaries (about 38 for
 * the longest Philly job, 53 days), where 1.05 cost 300 and made a Philly
 * replay 12 s instead of 1.
 *
 * A running job's key (its remaining) falls continuously; change_work()
 * reports, exactly, the work_done at which its class next rises (x reaches
 * the bucket below). change() gives the same in attained service, which
 * grows with GPUs x wall time while x falls with work at the job's speed:
 * it assumes the job's average speed so far (work_done / run_time, 1
 * before it has run) and aims a hair (2^-30) past the boundary, so a job
 * slower than its history is asked again and the answers converge (in
 * about ln(gap/hair) / -ln(1 - speed ratio) steps) instead of creeping up
 * on the boundary forever. An emulator that knows the speed uses
 * change_work() and needs one step.
 */
#include <math.h>

#include "policy/policy.h"

#define SRTF_RATIO	1.5
#define SRTF_BUCKETS	(POLICY_MAX_CLASS - 1)	/* top bucket; class >= 1 */

static bool
known(const struct job *j)
{
	return isfinite(j->duration) && j->duration >= 0;
}

/* Remaining time, or service for srsf. */
static double
remaining(const struct job *j, bool service)
{
	double r = j->duration - j->work_done;

	if (!(r > 0))
		r = 0;
	return service ? r * (j->gpus > 0 ? j->gpus : 1) : r;
}

/* The upper edge of bucket b. */
static double
edge(int b)
{
	return pow(SRTF_RATIO, b);
}

/*
 * The smallest b with x <= edge(b), capped at SRTF_BUCKETS. The
 * logarithm guesses it; edge() itself decides, stepping from the guess,
 * so the answer is the binary search's (a pow per step of that search
 * was over half of a full Philly replay under srtf).
 */
static int
bucket(double x)
{
	double g;
	int b;

	if (!(x > edge(0)))
		return 0;
	if (x > edge(SRTF_BUCKETS))
		return SRTF_BUCKETS;
	g = ceil(log(x) / log(SRTF_RATIO));
	b = g < 1 ? 1 : g > SRTF_BUCKETS ? SRTF_BUCKETS : (int)g;
	while (b > 1 && x <= edge(b - 1))
		b--;
	while (b < SRTF_BUCKETS && x > edge(b))
		b++;
	return b;
}

static void
key(const struct job *j, bool service, struct policy_key *out)
{
	out->k[0] = known(j) ? remaining(j, service) : INFINITY;	/* rule 1 */
	out->k[1] = j->submit;						/* rule 2 */
	out->k[2] = 0;
	out->id = j->id;						/* rule 3 */
}

static int
klass(const struct job *j, bool service)
{
	if (!known(j))
		return 0;
	return POLICY_MAX_CLASS - bucket(remaining(j, service));
}

static double
change(const struct job *j, bool service)
{
	double g = j->gpus > 0 ? j->gpus : 1, x, target, work, speed = 1;
	int b;

	if (!known(j) || (b = bucket(x = remaining(j, service))) == 0)
		return INFINITY;
	/* the class rises when x <= edge(b - 1); aim a hair past it */
	target = edge(b - 1) * (1 - 0x1p-30);
	work = (x - target) / (service ? g : 1);
	if (j->run_time > 0 && j->work_done > 0)
		speed = fmin(fmax(j->work_done / j->run_time, 1.0 / 64), 64);
	return j->attained + g * work / speed;
}

/* x for the job after work w. */
static double
remaining_at(const struct job *j, bool service, double w)
{
	struct job c = *j;

	c.work_done = w;
	return remaining(&c, service);
}

static double
change_work(const struct job *j, bool service)
{
	double g = j->gpus > 0 ? j->gpus : 1, w, lo;
	int b, i;

	if (!known(j) || (b = bucket(remaining(j, service))) == 0)
		return INFINITY;
	/* x <= edge(b - 1) once work reaches this; then exact to the bit */
	w = j->duration - edge(b - 1) / (service ? g : 1);
	if (w < j->work_done)
		w = j->work_done;
	for (i = 0; i < 64 && bucket(remaining_at(j, service, w)) >= b; i++)
		w = nextafter(w, INFINITY);
	while (bucket(remaining_at(j, service, w)) >= b)
		w += (fabs(w) + 1) * 0x1p-40;
	for (i = 0; i < 64; i++) {
		lo = nextafter(w, -INFINITY);
		if (lo < j->work_done || bucket(remaining_at(j, service, lo)) >= b)
			break;
		w = lo;
	}
	return w;
}

static void
srtf_key(const struct policy *p, const struct job *j, double now, struct policy_key *out)
{
	(void)p;
	(void)now;
	key(j, false, out);
}

static void
srsf_key(const struct policy *p, const struct job *j, double now, struct policy_key *out)
{
	(void)p;
	(void)now;
	key(j, true, out);
}

static int
srtf_klass(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)now;
	return klass(j, false);
}

static int
srsf_klass(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)now;
	return klass(j, true);
}

static double
srtf_change(const struct policy *p, const struct job *j)
{
	(void)p;
	return change(j, false);
}

static double
srsf_change(const struct policy *p, const struct job *j)
{
	(void)p;
	return change(j, true);
}

static double
srtf_change_work(const struct policy *p, const struct job *j)
{
	(void)p;
	return change_work(j, false);
}

static double
srsf_change_work(const struct policy *p, const struct job *j)
{
	(void)p;
	return change_work(j, true);
}

/* A pending job makes no progress: its key never changes. */
static double
oracle_wait_change(const struct policy *p, const struct job *j, double now)
{
	(void)p;
	(void)j;
	(void)now;
	return INFINITY;
}

const struct policy_ops policy_srtf = {
	.name = "srtf",
	.summary = "oracle: shortest remaining time first",
	.flags = POLICY_ORACLE | POLICY_PREEMPTIVE | POLICY_SKIP,
	.key = srtf_key,
	.klass = srtf_klass,
	.change = srtf_change,
	.change_work = srtf_change_work,
	.wait_change = oracle_wait_change,
};

const struct policy_ops policy_srsf = {
	.name = "srsf",
	.summary = "oracle: shortest remaining service (time x GPUs) first",
	.flags = POLICY_ORACLE | POLICY_PREEMPTIVE | POLICY_SKIP,
	.key = srsf_key,
	.klass = srsf_klass,
	.change = srsf_change,
	.change_work = srsf_change_work,
	.wait_change = oracle_wait_change,
};
