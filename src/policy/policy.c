/*
 * policy.c — the policy table, parameters, keys and the helpers las and
 * gittins share (queues and the promotion credit). The policies themselves
 * live in policy-*.c; the scheduler (sched.c) only sees struct policy_ops.
 */
#include <math.h>
#include <string.h>

#include "core/suggest.h"
#include "core/xmalloc.h"
#include "policy/policy.h"

const struct policy_ops *const policy_table[] = {
	&policy_fifo,
	&policy_fifo_skip,
	&policy_las,
	&policy_gittins,
	&policy_srtf,
	&policy_srsf,
	&policy_gandiva,
	&policy_antman,
	&policy_priority,
	NULL
};

void
policy_params_init(struct policy_params *par)
{
	memset(par, 0, sizeof *par);
	par->nqueues = 2;
	par->thresholds[0] = 3600;	/* one GPU-hour (Tiresias) */
	par->promote_knob = 0;
	par->service = NULL;
	par->nservice = 0;
}

/* Units a threshold may carry, in GPU-seconds. */
static const struct {
	char	 c;
	double	 secs;
} units[] = {
	{ 's', 1 }, { 'S', 1 },
	{ 'm', 60 }, { 'M', 60 },
	{ 'h', 3600 }, { 'H', 3600 },
};

static int
is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * Parse one item ("3600", "1.5h") of len bytes. Returns 0, or -1 with
 * *cause. Decimal digits only: no exponent, no locale.
 */
static int
parse_threshold(const char *s, size_t len, int n, double *out, char **cause)
{
	double v = 0, scale = 1;
	size_t i = 0, digits = 0, u;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			v += (s[i] - '0') * (scale /= 10);
	if (digits == 0) {
		*cause = xasprintf("threshold %d '%.*s' is not a number", n, (int)len, s);
		return -1;
	}
	if (i < len) {
		for (u = 0; u < sizeof units / sizeof units[0]; u++)
			if (units[u].c == s[i])
				break;
		if (u == sizeof units / sizeof units[0] || i + 1 != len) {
			*cause = xasprintf("threshold %d '%.*s' has an unknown unit '%.*s' "
			    "(use s, m or h)", n, (int)len, s, (int)(len - i), s + i);
			return -1;
		}
		v *= units[u].secs;
	}
	if (!isfinite(v) || v <= 0) {
		*cause = xasprintf("threshold %d '%.*s' is not a positive number of "
		    "GPU-seconds", n, (int)len, s);
		return -1;
	}
	*out = v;
	return 0;
}

int
policy_params_thresholds(struct policy_params *par, const char *list, char **cause)
{
	double t[POLICY_MAX_QUEUES];
	const char *p, *e, *end;
	int n = 0;

	if (list == NULL || list[strspn(list, " \t")] == '\0') {
		*cause = xasprintf("empty threshold list");
		return -1;
	}
	for (p = list;; p = e + 1) {
		e = strchr(p, ',');
		end = e != NULL ? e : p + strlen(p);
		while (p < end && is_blank(*p))
			p++;
		while (end > p && is_blank(end[-1]))
			end--;
		if (n == POLICY_MAX_QUEUES - 1) {
			*cause = xasprintf("too many thresholds in '%s' (at most %d)",
			    list, POLICY_MAX_QUEUES - 1);
			return -1;
		}
		if (p == end) {
			*cause = xasprintf("threshold %d is empty in '%s'", n + 1, list);
			return -1;
		}
		if (parse_threshold(p, (size_t)(end - p), n + 1, &t[n], cause) != 0)
			return -1;
		if (n > 0 && t[n] <= t[n - 1]) {
			*cause = xasprintf("threshold %d '%.*s' is not above threshold %d "
			    "(%.0f GPU-seconds)", n + 1, (int)(end - p), p, n, t[n - 1]);
			return -1;
		}
		n++;
		if (e == NULL)
			break;
	}
	memset(par->thresholds, 0, sizeof par->thresholds);
	memcpy(par->thresholds, t, (size_t)n * sizeof t[0]);
	par->nqueues = n + 1;
	return 0;
}

const struct policy_ops *
policy_find(const char *name)
{
	int i;

	if (name == NULL)
		return NULL;
	for (i = 0; policy_table[i] != NULL; i++)
		if (strcmp(policy_table[i]->name, name) == 0)
			return policy_table[i];
	return NULL;
}

void
policy_names(struct strbuf *sb)
{
	int i;

	for (i = 0; policy_table[i] != NULL; i++)
		strbuf_addf(sb, "%s%s", i ? ", " : "", policy_table[i]->name);
}

char *
policy_unknown(const char *name)
{
	const char *names[sizeof policy_table / sizeof policy_table[0]];
	struct strbuf sb = STRBUF_INIT;
	size_t n;

	for (n = 0; policy_table[n] != NULL; n++)
		names[n] = policy_table[n]->name;
	strbuf_addf(&sb, "unknown policy '%s'", name);
	suggest_hint(&sb, name, names, n, "policies");
	return strbuf_detach(&sb, NULL);
}

/* The checks every policy relies on; the policy's init checks the rest. */
static int
check_params(const struct policy_params *par, char **cause)
{
	int i;

	if (par->nqueues < 1 || par->nqueues > POLICY_MAX_QUEUES) {
		*cause = xasprintf("number of queues %d is out of range 1-%d",
		    par->nqueues, POLICY_MAX_QUEUES);
		return -1;
	}
	for (i = 0; i < par->nqueues - 1; i++) {
		if (!isfinite(par->thresholds[i]) || par->thresholds[i] <= 0) {
			*cause = xasprintf("threshold %d (%g) is not a positive number of "
			    "GPU-seconds", i + 1, par->thresholds[i]);
			return -1;
		}
		if (i > 0 && par->thresholds[i] <= par->thresholds[i - 1]) {
			*cause = xasprintf("threshold %d (%g) is not above threshold %d (%g)",
			    i + 1, par->thresholds[i], i, par->thresholds[i - 1]);
			return -1;
		}
	}
	if (!isfinite(par->promote_knob) || par->promote_knob < 0) {
		*cause = xasprintf("promotion knob %g is not a number >= 0",
		    par->promote_knob);
		return -1;
	}
	if (par->service != NULL && par->nservice == 0) {
		*cause = xasprintf("service sample is empty");
		return -1;
	}
	return 0;
}

int
policy_init(struct policy *p, const struct policy_ops *ops,
    const struct policy_params *par, char **cause)
{
	memset(p, 0, sizeof *p);
	if (ops == NULL) {
		*cause = xasprintf("no policy given");
		return -1;
	}
	if (check_params(par, cause) != 0)
		return -1;
	p->ops = ops;
	p->par = *par;
	if (p->par.service == NULL)
		p->par.nservice = 0;
	if (ops->init != NULL && ops->init(p, cause) != 0) {
		p->ops = NULL;
		p->state = NULL;
		return -1;
	}
	return 0;
}

void
policy_release(struct policy *p)
{
	if (p->ops != NULL && p->ops->release != NULL)
		p->ops->release(p);
	p->state = NULL;
	p->ops = NULL;
}

/* Doubles in a total order: NaN after everything (a key is never NaN, but
   a corrupt job must not break the heap). */
static int
cmp_double(double a, double b)
{
	int an = isnan(a), bn = isnan(b);

	if (an || bn)
		return an - bn;
	return (a > b) - (a < b);
}

int
policy_key_cmp(const struct policy_key *a, const struct policy_key *b)
{
	int i, c;

	for (i = 0; i < 3; i++)
		if ((c = cmp_double(a->k[i], b->k[i])) != 0)
			return c;
	return (a->id > b->id) - (a->id < b->id);
}

int
policy_queue_of(const struct policy_params *par, double attained)
{
	int q;

	for (q = 0; q < par->nqueues - 1; q++)
		if (!(attained >= par->thresholds[q]))
			break;
	return q;
}

/* ---- promotion ---- */

double
policy_wait(const struct job *j, double now)
{
	double w;

	if (!(j->first_start >= 0))
		return 0;
	/* queued holds every PENDING second up to the last transition; the
	   ones before the first start do not count */
	w = j->queued - (j->first_start - j->submit);
	if (j->state == JOB_PENDING && now > j->state_since)
		w += now - j->state_since;
	return w > 0 ? w : 0;
}

static double
gpus_of(const struct job *j)
{
	return j->gpus > 0 ? j->gpus : 1;
}

double
policy_service(const struct policy_params *par, const struct job *j, double now)
{
	double s = j->attained - j->promo_attained;

	(void)par;
	(void)now;
	return s > 0 ? s : 0;
}

double
policy_service_reaches(const struct policy_params *par, const struct job *j, double s)
{
	(void)par;
	if (!(s > 0))
		return 0;
	return j->promo_attained + s;
}

/* Pending seconds since the last promotion, counted once it has run. */
static double
promo_wait(const struct job *j, double now)
{
	double w;

	if (j->promo_wait < 0)
		return 0;
	w = policy_wait(j, now) - j->promo_wait;
	return w > 0 ? w : 0;
}

double
policy_promote_at(const struct policy_params *par, const struct job *j,
    double now)
{
	double run, need;

	if (!(par->promote_knob > 0) || j->state != JOB_PENDING ||
	    !(j->first_start >= 0) || j->promo_wait < 0 ||
	    policy_queue_of(par, policy_service(par, j, now)) == 0)
		return INFINITY;
	/* executed seconds since the promotion: its service over its GPUs */
	run = policy_service(par, j, now) / gpus_of(j);
	need = par->promote_knob * run - promo_wait(j, now);
	return need > 0 ? now + need : now;
}

bool
policy_promote(const struct policy_params *par, struct job *j, double now)
{
	double at = policy_promote_at(par, j, now);

	/* at its time (now is that time, give or take a rounding) */
	if (!isfinite(at) || at > now + 1e-6 * (fabs(now) + 1))
		return false;
	j->promo_attained = j->attained;
	j->promo_wait = -1;
	return true;
}
