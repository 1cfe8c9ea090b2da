/*
 * tpolicy-order.c — hand-checked orderings per policy: las demotes a job
 * at one GPU-hour (a 4-GPU job after 15 minutes) and promotes a starving
 * one; fifo ignores service; srtf and srsf disagree where GPUs matter; the
 * Gittins index against hand computation on {1, 2, 3, 10}, learning; and
 * Tiresias' Figure 7 example replayed on a two-GPU machine with the
 * policies alone, step by step as policy-las.c and policy-gittins.c work
 * it out by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "policy/policy.h"
#include "test.h"

static void
mk(struct policy *p, const struct policy_ops *ops, const char *thresholds,
    double knob, const double *sample, size_t n)
{
	struct policy_params par;
	char *cause = NULL;

	policy_params_init(&par);
	if (thresholds != NULL && strcmp(thresholds, "-") == 0)
		par.nqueues = 1;
	else if (thresholds != NULL && policy_params_thresholds(&par, thresholds,
	    &cause) != 0)
		fprintf(stderr, "%s\n", cause);
	par.promote_knob = knob;
	par.service = sample;
	par.nservice = n;
	if (policy_init(p, ops, &par, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		memset(p, 0, sizeof *p);
	}
}

/* A job that has run for `ran` seconds on g GPUs since time 0. */
static void
running(struct job *j, int id, double submit, int g, double ran)
{
	job_init(j, id, "j", 0, submit);
	job_set_shape(j, 1, g);
	j->state = JOB_RUNNING;
	j->first_start = submit;
	j->state_since = submit;
	j->run_time = j->work_done = ran;
	j->attained = ran * g;
}

static int
cmp(const struct policy *p, const struct job *a, const struct job *b, double now)
{
	struct policy_key ka, kb;

	p->ops->key(p, a, now, &ka);
	p->ops->key(p, b, now, &kb);
	return policy_key_cmp(&ka, &kb);
}

static double
k0(const struct policy *p, const struct job *j, double now)
{
	struct policy_key k;

	p->ops->key(p, j, now, &k);
	return k.k[0];
}

static void
test_las_demotion(void)
{
	struct policy p;
	struct job a, b;

	mk(&p, &policy_las, NULL, 0, NULL, 0);
	running(&a, 0, 0, 1, 3599);
	CHECK(k0(&p, &a, 0) == 0 && p.ops->klass(&p, &a, 0) == 1);
	CHECK(p.ops->change(&p, &a) == 3600);
	running(&a, 0, 0, 1, 3600);		/* one GPU-hour */
	CHECK(k0(&p, &a, 0) == 1 && p.ops->klass(&p, &a, 0) == 0);
	CHECK(isinf(p.ops->change(&p, &a)));	/* the last queue */
	/* a 4-GPU job crosses after 15 minutes */
	running(&b, 1, 0, 4, 0);
	CHECK(p.ops->change(&p, &b) == 4 * 900);
	running(&b, 1, 0, 4, 899);
	CHECK(k0(&p, &b, 0) == 0);
	running(&b, 1, 0, 4, 900);
	CHECK(k0(&p, &b, 0) == 1);
	/* a later Q0 job goes before an earlier Q1 job and may preempt it */
	running(&a, 0, 0, 1, 4000);
	running(&b, 1, 100, 8, 10);
	CHECK(cmp(&p, &b, &a, 0) < 0);
	CHECK(p.ops->klass(&p, &b, 0) > p.ops->klass(&p, &a, 0));
	/* inside a queue, the earlier submission, and no preemption */
	running(&a, 0, 50, 1, 10);
	CHECK(cmp(&p, &a, &b, 0) < 0);
	CHECK(p.ops->klass(&p, &b, 0) == p.ops->klass(&p, &a, 0));
	a.submit = b.submit;
	CHECK(cmp(&p, &a, &b, 0) < 0);		/* then the id */
	CHECK(isinf(p.ops->wait_change(&p, &a, 0)));
	policy_release(&p);
}

/*
 * Tiresias' promotion with its reset (policy.h): a job below Q0 that has
 * waited, since it last ran, knob x its run time goes back to Q0 with its
 * service and wait counted from zero; nothing moves before that moment.
 */
static void
test_las_promotion(void)
{
	struct policy p;
	struct job j;
	double w;

	mk(&p, &policy_las, NULL, 1, NULL, 0);
	/* ran 7200 s on one GPU from 0, requeued at 8000 */
	running(&j, 0, 0, 1, 7200);
	j.state = JOB_PENDING;
	j.state_since = 8000;
	CHECK(k0(&p, &j, 8000) == 1);
	/* promoted once it waited 1 x its 7200 s: no climb on the way */
	w = p.ops->wait_change(&p, &j, 8000);
	CHECKF(w == 15200, "%.17g", w);
	CHECK(k0(&p, &j, 15199) == 1 && !policy_promote(&p.par, &j, 15199));
	CHECK(k0(&p, &j, 1e9) == 1);		/* only the promotion moves it */
	CHECK(policy_promote(&p.par, &j, w));
	CHECK(k0(&p, &j, w) == 0 && p.ops->klass(&p, &j, w) == 1);
	CHECK(policy_service(&p.par, &j, w) == 0);
	CHECK(isinf(p.ops->wait_change(&p, &j, w)));	/* at the top */
	/* started at 15200: a fresh quantum of 3600 GPU-seconds */
	CHECK(job_apply(&j, JOB_EV_START, 15200, NULL, 0) == 0);
	CHECK(j.promo_wait == 7200 && policy_wait(&j, 99999) == 7200);
	CHECK(p.ops->change(&p, &j) == 7200 + 3600);
	/* demoted after it, preempted at 18800, requeued at once: its wait
	   counts from the start after the promotion, against 3600 s run */
	job_account(&j, 3600, 1);
	CHECK(job_apply(&j, JOB_EV_PREEMPT, 18800, NULL, 0) == 0 &&
	    job_apply(&j, JOB_EV_REQUEUE, 18800, NULL, 0) == 0);
	CHECK(k0(&p, &j, 18800) == 1);
	w = p.ops->wait_change(&p, &j, 18800);
	CHECKF(w == 18800 + 3600, "%.17g", w);
	policy_release(&p);
	/* a larger knob waits longer */
	mk(&p, &policy_las, NULL, 4, NULL, 0);
	CHECK(p.ops->wait_change(&p, &j, 18800) == 18800 + 4 * 3600);
	policy_release(&p);
	/* without the knob nothing moves */
	mk(&p, &policy_las, NULL, 0, NULL, 0);
	running(&j, 0, 0, 1, 7200);
	j.state = JOB_PENDING;
	j.state_since = 8000;
	CHECK(isinf(p.ops->wait_change(&p, &j, 8000)) && k0(&p, &j, 1e12) == 1);
	CHECK(!policy_promote(&p.par, &j, 1e12) && j.promo_wait == 0);
	policy_release(&p);
}

/* priority: higher first, then arrival; class = priority, clamped */
static void
test_priority(void)
{
	struct policy p;
	struct job a, b, c;

	mk(&p, &policy_priority, NULL, 0, NULL, 0);
	running(&a, 0, 10, 1, 0);
	running(&b, 1, 20, 1, 0);
	running(&c, 2, 5, 1, 1e9);
	a.priority = 1;
	b.priority = 5;
	c.priority = 1;
	CHECK(cmp(&p, &b, &a, 0) < 0);		/* rule 1 beats arrival */
	CHECK(cmp(&p, &c, &a, 0) < 0);		/* rule 2: earlier first */
	CHECK(p.ops->klass(&p, &b, 0) == 5 && p.ops->klass(&p, &a, 0) == 1);
	b.priority = 100000;
	CHECK(p.ops->klass(&p, &b, 0) == POLICY_MAX_CLASS);
	a.priority = -1;
	CHECK(p.ops->klass(&p, &a, 0) == 0);
	CHECK(isinf(p.ops->change(&p, &a)) && isinf(p.ops->wait_change(&p, &b, 0)));
	CHECK((p.ops->flags & POLICY_SKIP) && (p.ops->flags & POLICY_PREEMPTIVE));
	policy_release(&p);
}

static void
test_fifo(void)
{
	struct policy p;
	struct job a, b, c;

	mk(&p, &policy_fifo, NULL, 0, NULL, 0);
	running(&a, 0, 10, 8, 1e9);
	running(&b, 1, 20, 1, 0);
	b.state = JOB_PENDING;
	CHECK(cmp(&p, &a, &b, 0) < 0);	/* service is ignored */
	a.duration = 1;
	b.duration = 1e9;
	CHECK(cmp(&p, &a, &b, 0) < 0);
	/* rule 1 before rule 2: an earlier submission with a higher id (a
	   requeued job keeps its submission) goes first */
	running(&c, 2, 5, 1, 0);
	CHECK(cmp(&p, &c, &a, 0) < 0 && cmp(&p, &c, &b, 0) < 0);
	CHECK(p.ops->klass(&p, &a, 0) == 0 && p.ops->klass(&p, &b, 0) == 0);
	CHECK(isinf(p.ops->change(&p, &a)) && isinf(p.ops->wait_change(&p, &b, 0)));
	CHECK(!(p.ops->flags & POLICY_SKIP));
	CHECK(policy_fifo_skip.flags & POLICY_SKIP);
	policy_release(&p);
}

static void
test_srtf_srsf(void)
{
	struct policy t, s;
	struct job a, b, u;

	mk(&t, &policy_srtf, NULL, 0, NULL, 0);
	mk(&s, &policy_srsf, NULL, 0, NULL, 0);
	/* a: 1 GPU, 10 h left; b: 8 GPUs, 2 h left (16 GPU-hours) */
	running(&a, 0, 0, 1, 100);
	a.duration = 100 + 36000;
	running(&b, 1, 0, 8, 100);
	b.duration = 100 + 7200;
	CHECK(cmp(&t, &b, &a, 0) < 0 && t.ops->klass(&t, &b, 0) > t.ops->klass(&t, &a, 0));
	CHECK(cmp(&s, &a, &b, 0) < 0 && s.ops->klass(&s, &a, 0) > s.ops->klass(&s, &b, 0));
	CHECK(k0(&s, &b, 0) == 8 * 7200);
	/* unknown duration: last, class 0 */
	running(&u, 2, 0, 1, 0);
	CHECK(cmp(&t, &a, &u, 0) < 0 && t.ops->klass(&t, &u, 0) == 0);
	CHECK(cmp(&s, &b, &u, 0) < 0 && s.ops->klass(&s, &u, 0) == 0);
	CHECK(isinf(t.ops->change(&t, &u)) && isinf(t.ops->change_work(&t, &u)));
	CHECK(t.ops->klass(&t, &b, 0) > 0);
	/* buckets of a factor 1.5, and monotone */
	a.duration = a.work_done + 1000;
	b.duration = b.work_done + 1600;
	CHECK(t.ops->klass(&t, &a, 0) > t.ops->klass(&t, &b, 0));
	b.duration = b.work_done + 1000;
	CHECK(t.ops->klass(&t, &a, 0) == t.ops->klass(&t, &b, 0));
	CHECK(cmp(&t, &a, &b, 0) < 0);		/* equal remaining: the id */
	/* change_work: where the remaining time reaches the bucket below */
	a.duration = a.work_done + 1000;
	CHECKF(fabs(t.ops->change_work(&t, &a) - (a.duration - pow(1.5, 17))) < 1e-6,
	    "%.17g", t.ops->change_work(&t, &a));
	/* nothing left: the top class, nothing more to change */
	a.work_done = a.duration;
	CHECK(t.ops->klass(&t, &a, 0) == POLICY_MAX_CLASS && isinf(t.ops->change(&t, &a)));
	policy_release(&t);
	policy_release(&s);
}

/* The index a job at service a gets: -k[1] of its key. */
static double
index_of(const struct policy *p, double a)
{
	struct policy_key k;
	struct job j;

	running(&j, 0, 0, 1, a);
	p->ops->key(p, &j, 0, &k);
	return -k.k[1];
}

static double
change_at(const struct policy *p, double a)
{
	struct job j;

	running(&j, 0, 0, 1, a);
	return p->ops->change(p, &j);
}

static bool
near(double x, double y)
{
	return fabs(x - y) < 1e-12;
}

static void
test_gittins_index(void)
{
	static const double s[] = { 10, 2, 1, 3 };	/* sorted by init */
	struct policy p;
	struct job a, b;

	/* quantum = T0 = 2 */
	mk(&p, &policy_gittins, "2", 0, s, 4);
	/* [0,1): P(S <= 2) = 2/4, E[min(S,2)] = (1+2+2+2)/4 -> 2/7 */
	CHECKF(near(index_of(&p, 0), 2.0 / 7), "%.17g", index_of(&p, 0));
	CHECK(near(index_of(&p, 0.5), 2.0 / 7));
	/* [1,2): S > 1 in {2,3,10}: P(S <= 3) = 2/3, E = (1+2+2)/3 -> 2/5 */
	CHECKF(near(index_of(&p, 1), 2.0 / 5), "%.17g", index_of(&p, 1));
	CHECK(near(index_of(&p, 1.5), 2.0 / 5));
	/* [2,3): {3,10}: P(S <= 4) = 1/2, E = (1+2)/2 -> 1/3 (and queue 1) */
	CHECKF(near(index_of(&p, 2), 1.0 / 3), "%.17g", index_of(&p, 2));
	/* [3,10): {10}: cannot end within 2 -> 0; past the last sample 0 */
	CHECK(index_of(&p, 3) == 0 && index_of(&p, 9.99) == 0 && index_of(&p, 50) == 0);
	/* change: where the class moves, the queue threshold T0 only */
	CHECK(change_at(&p, 0.5) == 2);
	CHECK(change_at(&p, 1.5) == 2);
	CHECK(isinf(change_at(&p, 2.5)));	/* the last queue */
	CHECK(isinf(change_at(&p, 3.5)));
	/* inside a queue a higher index goes first, but preempts nobody */
	running(&a, 0, 0, 1, 1.5);
	running(&b, 1, 0, 1, 0.5);
	CHECK(cmp(&p, &a, &b, 0) < 0 && p.ops->klass(&p, &a, 0) == p.ops->klass(&p, &b, 0));
	running(&a, 0, 0, 1, 2.5);		/* queue 1 loses to queue 0 */
	CHECK(cmp(&p, &b, &a, 0) < 0 && p.ops->klass(&p, &b, 0) > p.ops->klass(&p, &a, 0));
	running(&a, 0, 5, 1, 0.2);		/* equal index: earlier submission */
	CHECK(cmp(&p, &b, &a, 0) < 0 && p.ops->klass(&p, &b, 0) == p.ops->klass(&p, &a, 0));
	policy_release(&p);

	/* one queue: infinite quantum, G = 1 / E[S - a | S > a] */
	mk(&p, &policy_gittins, "-", 0, s, 4);
	CHECK(near(index_of(&p, 0), 1.0 / 4));		/* (1+2+3+10)/4 */
	CHECK(near(index_of(&p, 1), 1.0 / 4));		/* (1+2+9)/3 */
	CHECK(near(index_of(&p, 2), 2.0 / 9));		/* (1+8)/2 */
	CHECK(near(index_of(&p, 3), 1.0 / 7));
	CHECK(index_of(&p, 10) == 0);
	CHECK(isinf(change_at(&p, 0.5)));	/* one queue: one class */
	policy_release(&p);
}

static void
test_gittins_learn(void)
{
	static const double s[] = { 1, 2, 3, 10 };
	struct policy p;
	struct job j, done;
	int i;

	mk(&p, &policy_gittins, "2", 0, NULL, 0);
	running(&j, 0, 0, 1, 0.5);
	for (i = 0; i < 31; i++) {
		job_init(&done, i, "d", 0, 0);
		done.state = JOB_COMPLETED;
		done.attained = s[i % 4];
		p.ops->done(&p, &done);
		/* failed and cancelled jobs teach nothing */
		done.state = i % 2 ? JOB_FAILED : JOB_CANCELLED;
		done.attained = 1e6;
		p.ops->done(&p, &done);
	}
	/* until 32 jobs finished: las order, no index */
	CHECK(index_of(&p, 0.5) == 0);
	CHECK(p.ops->klass(&p, &j, 0) == 1);
	CHECK(change_at(&p, 0.5) == 2);
	job_init(&done, 31, "d", 0, 0);
	done.state = JOB_COMPLETED;
	done.attained = s[3];
	p.ops->done(&p, &done);
	/* 32 samples, each of {1,2,3,10} eight times: the same index */
	CHECKF(near(index_of(&p, 0.5), 2.0 / 7), "%.17g", index_of(&p, 0.5));
	CHECK(near(index_of(&p, 2.5), 1.0 / 3));
	CHECK(change_at(&p, 0.5) == 2);		/* the class moves at T0 only */
	policy_release(&p);
}

/*
 * Figure 7 on one machine of two GPUs, with the policies alone: an event
 * loop that keys every job at every event, starts pending jobs in key
 * order when they fit, preempting running jobs of a strictly lower class
 * (lowest first) when the policy is preemptive, and stops at the first
 * failure unless POLICY_SKIP. Times are whole units, so exact.
 */
#define FIG_GPUS	2

static double
fig7(const struct policy *p, struct strbuf *log)
{
	static const int gpus[3] = { 2, 1, 2 }, dur[3] = { 2, 8, 6 };
	struct job j[3];
	struct policy_key key[3];
	double now = 0, next, t, sum = 0;
	int i, k, n, order[3], used, need, v, best, ndone = 0, steps;
	char why[128];

	for (i = 0; i < 3; i++) {
		job_init(&j[i], i, "J", 0, 0);
		job_set_shape(&j[i], 1, gpus[i]);
		j[i].duration = dur[i];
	}
	for (steps = 0; ndone < 3 && steps < 10000; steps++) {
		/* pass: pending jobs in key order */
		for (i = n = 0; i < 3; i++)
			if (j[i].state == JOB_PENDING) {
				p->ops->key(p, &j[i], now, &key[i]);
				order[n++] = i;
			}
		for (i = 1; i < n; i++)
			for (k = i; k > 0 && policy_key_cmp(&key[order[k]],
			    &key[order[k - 1]]) < 0; k--) {
				v = order[k];
				order[k] = order[k - 1];
				order[k - 1] = v;
			}
		for (i = 0; i < n; i++) {
			int c = order[i], cls = p->ops->klass(p, &j[c], now);

			for (k = used = 0; k < 3; k++)
				if (j[k].state == JOB_RUNNING)
					used += j[k].gpus;
			need = j[c].gpus - (FIG_GPUS - used);
			for (k = 0; k < 3 && need > 0 && (p->ops->flags & POLICY_PREEMPTIVE); k++)
				if (j[k].state == JOB_RUNNING && p->ops->klass(p, &j[k], now) < cls)
					need -= j[k].gpus;
			if (need > 0) {
				if (!(p->ops->flags & POLICY_SKIP))
					break;
				continue;
			}
			while (j[c].gpus > FIG_GPUS - used) {
				for (k = 0, best = -1; k < 3; k++)
					if (j[k].state == JOB_RUNNING && (best < 0 ||
					    p->ops->klass(p, &j[k], now) <
					    p->ops->klass(p, &j[best], now)))
						best = k;
				job_apply(&j[best], JOB_EV_PREEMPT, now, why, sizeof why);
				job_apply(&j[best], JOB_EV_REQUEUE, now, why, sizeof why);
				used -= j[best].gpus;
				strbuf_addf(log, "%g preempt J%d; ", now, best);
			}
			job_apply(&j[c], JOB_EV_START, now, why, sizeof why);
			strbuf_addf(log, "%g start J%d; ", now, c);
		}
		/* the next event: a completion, a change, a promotion */
		next = INFINITY;
		for (i = 0; i < 3; i++) {
			if (j[i].state == JOB_RUNNING) {
				t = now + (j[i].duration - j[i].work_done);
				next = fmin(next, t);
				t = now + (p->ops->change(p, &j[i]) - j[i].attained) / j[i].gpus;
				next = fmin(next, t);
			} else if (j[i].state == JOB_PENDING)
				next = fmin(next, p->ops->wait_change(p, &j[i], now));
		}
		if (isinf(next))
			break;
		for (i = 0; i < 3; i++)
			if (j[i].state == JOB_RUNNING)
				job_account(&j[i], next - now, 1);
		now = next;
		/* completions before anything else at the same instant */
		for (i = 0; i < 3; i++)
			if (j[i].state == JOB_RUNNING && j[i].work_done >= j[i].duration) {
				job_apply(&j[i], JOB_EV_FINISH, now, why, sizeof why);
				job_apply(&j[i], JOB_EV_COMPLETE, now, why, sizeof why);
				if (p->ops->done != NULL)
					p->ops->done((struct policy *)p, &j[i]);
				strbuf_addf(log, "%g done J%d; ", now, i);
				sum += now;
				ndone++;
			}
	}
	return ndone == 3 ? sum / 3 : -1;
}

static void
fig7_case(const struct policy_ops *ops, const char *thresholds,
    const double *sample, size_t n, double want, const char *steps)
{
	struct strbuf log = STRBUF_INIT;
	struct policy p;
	double got;

	mk(&p, ops, thresholds, 0, sample, n);
	got = fig7(&p, &log);
	CHECKF(fabs(got - want) < 1e-9, "%s %s: average JCT %g, want %g: %s",
	    ops->name, thresholds ? thresholds : "", got, want, log.buf);
	if (steps != NULL)
		CHECKF(strcmp(log.buf, steps) == 0, "%s %s:\n  got  %s\n  want %s",
		    ops->name, thresholds ? thresholds : "", log.buf, steps);
	strbuf_release(&log);
	policy_release(&p);
}

static void
test_figure7(void)
{
	static const double gput[] = { 4, 8, 12 };

	fig7_case(&policy_srsf, NULL, NULL, 0, 28.0 / 3,
	    "0 start J0; 2 done J0; 2 start J1; 10 done J1; 10 start J2; 16 done J2; ");
	fig7_case(&policy_las, "6", NULL, 0, 32.0 / 3,
	    "0 start J0; 2 done J0; 2 start J1; 8 preempt J1; 8 start J2; "
	    "14 done J2; 14 start J1; 16 done J1; ");
	fig7_case(&policy_gittins, "6", gput, 3, 32.0 / 3,
	    "0 start J0; 2 done J0; 2 start J1; 8 preempt J1; 8 start J2; "
	    "14 done J2; 14 start J1; 16 done J1; ");
	fig7_case(&policy_las, "2", NULL, 0, 35.0 / 3,
	    "0 start J0; 1 preempt J0; 1 start J1; 3 preempt J1; 3 start J2; "
	    "9 done J2; 9 start J0; 10 done J0; 10 start J1; 16 done J1; ");
	fig7_case(&policy_las, "13", NULL, 0, 28.0 / 3, NULL);
	fig7_case(&policy_fifo, NULL, NULL, 0, 28.0 / 3, NULL);
	/* srtf runs J2 (6 units) before J1 (8): better on average here */
	fig7_case(&policy_srtf, NULL, NULL, 0, 26.0 / 3,
	    "0 start J0; 2 done J0; 2 start J2; 8 done J2; 8 start J1; 16 done J1; ");
}

/*
 * srtf's class at and around every bucket edge (1.5^b) and between them,
 * against the definition: class = max - the smallest b with remaining <=
 * 1.5^b, searched here by bisection with pow as the policy once did.
 */
static int
ref_bucket(double x)
{
	int lo = 0, hi = POLICY_MAX_CLASS - 1, mid;

	if (!(x > 1))
		return 0;
	if (x > pow(1.5, hi))
		return hi;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (x <= pow(1.5, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void
test_srtf_buckets(void)
{
	struct policy t;
	struct job a;
	double x, xs[4];
	int b, i, bad = 0, n = 0;

	mk(&t, &policy_srtf, NULL, 0, NULL, 0);
	running(&a, 0, 0, 1, 0);
	for (b = 0; b < 120; b++) {
		x = pow(1.5, b);
		xs[0] = x;
		xs[1] = nextafter(x, 0);
		xs[2] = nextafter(x, INFINITY);
		xs[3] = x * 1.25;
		for (i = 0; i < 4; i++) {
			a.duration = xs[i];
			if (t.ops->klass(&t, &a, 0) != POLICY_MAX_CLASS - ref_bucket(xs[i]))
				bad++;
			n++;
		}
	}
	CHECKF(bad == 0 && n == 480, "%d of %d remaining times in the wrong class", bad, n);
	policy_release(&t);
}

static const struct test tests[] = {
	{ "srtf-buckets", test_srtf_buckets },
	{ "las-demotion", test_las_demotion },
	{ "las-promotion", test_las_promotion },
	{ "fifo", test_fifo },
	{ "priority", test_priority },
	{ "srtf-srsf", test_srtf_srsf },
	{ "gittins-index", test_gittins_index },
	{ "gittins-learn", test_gittins_learn },
	{ "figure7", test_figure7 },
};

TEST_MAIN(tests)
