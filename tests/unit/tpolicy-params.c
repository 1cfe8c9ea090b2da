/*
 * tpolicy-params.c — the policy table, parameters and keys: defaults, the
 * threshold parser and every error it reports, policy_find, policy_init's
 * checks, the key order and queue lookup.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"
#include "test.h"

/* An error message in the house style: lowercase, no trailing period. */
static bool
styled(const char *m)
{
	size_t n = m != NULL ? strlen(m) : 0;

	return n > 0 && !isupper((unsigned char)m[0]) && m[n - 1] != '.' &&
	    m[n - 1] != '\n';
}

static void
test_defaults(void)
{
	struct policy_params par;

	policy_params_init(&par);
	CHECK_INTEQ(par.nqueues, 2);
	CHECK(par.thresholds[0] == 3600);
	CHECK(par.promote_knob == 0);
	CHECK(par.service == NULL);
	CHECK_INTEQ(par.nservice, 0);
}

static const struct {
	const char	*list;
	int		 n;
	double		 t[4];
} good[] = {
	{ "3600,36000", 2, { 3600, 36000 } },
	{ "1h, 10h", 2, { 3600, 36000 } },
	{ "90m", 1, { 5400 } },
	{ "1.5h", 1, { 5400 } },
	{ "30s,1m,2H", 3, { 30, 60, 7200 } },
	{ " 0.5 ,\t1 ", 2, { 0.5, 1 } },
	{ "100M,7200S", 2, { 6000, 7200 } },
};

static void
test_thresholds_good(void)
{
	struct policy_params par;
	char *cause = NULL;
	size_t i;
	int k;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		policy_params_init(&par);
		CHECKF(policy_params_thresholds(&par, good[i].list, &cause) == 0,
		    "'%s': %s", good[i].list, cause ? cause : "");
		CHECKF(par.nqueues == good[i].n + 1, "'%s': %d queues",
		    good[i].list, par.nqueues);
		for (k = 0; k < good[i].n; k++)
			CHECKF(par.thresholds[k] == good[i].t[k], "'%s' #%d: %g",
			    good[i].list, k, par.thresholds[k]);
		CHECK(par.thresholds[good[i].n] == 0);
	}
}

static const struct {
	const char	*list;
	const char	*want;		/* a substring of the message */
} bad[] = {
	{ "", "empty threshold list" },
	{ "  ", "empty threshold list" },
	{ ",", "threshold 1 is empty" },
	{ "3600,", "threshold 2 is empty" },
	{ ",3600", "threshold 1 is empty" },
	{ "3600,,7200", "threshold 2 is empty" },
	{ "abc", "threshold 1 'abc' is not a number" },
	{ "1h,x2", "threshold 2 'x2' is not a number" },
	{ "10x", "threshold 1 '10x' has an unknown unit 'x' (use s, m or h)" },
	{ "10hh", "unknown unit 'hh'" },
	{ "1.5.5", "unknown unit '.5'" },
	{ "1 h", "unknown unit ' h'" },
	{ "0", "threshold 1 '0' is not a positive number of GPU-seconds" },
	{ "0.0h", "'0.0h' is not a positive" },
	{ "-5", "threshold 1 '-5' is not a number" },
	{ "1e3", "unknown unit 'e3'" },
	{ "7200,3600", "threshold 2 '3600' is not above threshold 1 (7200 GPU-seconds)" },
	{ "3600,1h", "threshold 2 '1h' is not above threshold 1" },
	{ "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", "too many thresholds" },
};

static void
test_thresholds_bad(void)
{
	struct policy_params par;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		policy_params_init(&par);
		par.thresholds[0] = 1234;
		cause = NULL;
		CHECKF(policy_params_thresholds(&par, bad[i].list, &cause) == -1,
		    "'%s' accepted", bad[i].list);
		CHECKF(cause != NULL && strstr(cause, bad[i].want) != NULL,
		    "'%s': got '%s', want '%s'", bad[i].list, cause ? cause : "(null)",
		    bad[i].want);
		CHECKF(styled(cause), "'%s'", cause ? cause : "(null)");
		/* the params are untouched by a failed parse */
		CHECK_INTEQ(par.nqueues, 2);
		CHECK(par.thresholds[0] == 1234);
		free(cause);
	}
	cause = NULL;
	CHECK(policy_params_thresholds(&par, NULL, &cause) == -1);
	CHECK(cause != NULL && strcmp(cause, "empty threshold list") == 0);
	free(cause);
	/* fifteen thresholds are the most K = 16 queues take */
	cause = NULL;
	CHECK(policy_params_thresholds(&par, "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15",
	    &cause) == 0);
	CHECK_INTEQ(par.nqueues, POLICY_MAX_QUEUES);
	free(cause);
}

static void
test_find(void)
{
	const char *names[] = { "fifo", "fifo-skip", "las", "gittins", "srtf", "srsf",
		"gandiva", "antman", "priority" };
	size_t i, j, n;

	for (n = 0; policy_table[n] != NULL; n++) {
		CHECK(policy_find(policy_table[n]->name) == policy_table[n]);
		CHECK(policy_table[n]->summary != NULL && policy_table[n]->summary[0]);
		CHECK(policy_table[n]->key && policy_table[n]->klass &&
		    policy_table[n]->change && policy_table[n]->wait_change);
		/* invariant 4: exactly the oracles read durations */
		CHECK(((policy_table[n]->flags & POLICY_ORACLE) != 0) ==
		    (strncmp(policy_table[n]->name, "sr", 2) == 0));
		for (j = 0; j < n; j++)
			CHECK(strcmp(policy_table[n]->name, policy_table[j]->name) != 0);
	}
	CHECK_INTEQ(n, sizeof names / sizeof names[0]);
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		CHECK(policy_find(names[i]) != NULL);
	CHECK(policy_find("nope") == NULL);
	CHECK(policy_find("la") == NULL);	/* exact names only */
	CHECK(policy_find("LAS") == NULL);
	CHECK(policy_find("") == NULL);
	CHECK(policy_find(NULL) == NULL);
	CHECK(policy_find("fifo")->flags == 0);
	CHECK(policy_find("fifo-skip")->flags == POLICY_SKIP);
	CHECK(policy_find("las")->flags == (POLICY_PREEMPTIVE | POLICY_SKIP));
	CHECK(policy_find("gittins")->flags == (POLICY_PREEMPTIVE | POLICY_SKIP));
	CHECK(policy_find("srsf")->flags ==
	    (POLICY_ORACLE | POLICY_PREEMPTIVE | POLICY_SKIP));
}

static void
init_fails(const struct policy_ops *ops, const struct policy_params *par,
    const char *want)
{
	struct policy p;
	char *cause = NULL;

	CHECKF(policy_init(&p, ops, par, &cause) == -1, "%s accepted", want);
	CHECKF(cause != NULL && strstr(cause, want) != NULL, "got '%s', want '%s'",
	    cause ? cause : "(null)", want);
	CHECKF(styled(cause), "'%s'", cause ? cause : "(null)");
	CHECK(p.ops == NULL && p.state == NULL);
	free(cause);
}

static void
test_init(void)
{
	static const double neg[] = { 1, -2, 3 }, nan1[] = { NAN };
	struct policy_params par;
	struct policy p;
	char *cause = NULL;
	int i;

	for (i = 0; policy_table[i] != NULL; i++) {
		policy_params_init(&par);
		CHECKF(policy_init(&p, policy_table[i], &par, &cause) == 0, "%s: %s",
		    policy_table[i]->name, cause ? cause : "");
		CHECK(p.ops == policy_table[i]);
		policy_release(&p);
		CHECK(p.ops == NULL && p.state == NULL);
	}
	policy_params_init(&par);
	par.nqueues = 0;
	init_fails(&policy_las, &par, "number of queues 0 is out of range 1-16");
	par.nqueues = 17;
	init_fails(&policy_las, &par, "number of queues 17");
	policy_params_init(&par);
	par.nqueues = 3;
	par.thresholds[1] = 3600;
	init_fails(&policy_las, &par, "threshold 2 (3600) is not above threshold 1");
	par.thresholds[0] = -1;
	init_fails(&policy_gittins, &par, "threshold 1 (-1) is not a positive");
	policy_params_init(&par);
	par.promote_knob = -1;
	init_fails(&policy_las, &par, "promotion knob -1");
	par.promote_knob = NAN;
	init_fails(&policy_las, &par, "promotion knob");
	policy_params_init(&par);
	par.service = neg;
	par.nservice = 0;
	init_fails(&policy_gittins, &par, "service sample is empty");
	par.nservice = 3;
	init_fails(&policy_gittins, &par, "service sample 2 (-2) is not a number");
	par.service = nan1;
	par.nservice = 1;
	init_fails(&policy_gittins, &par, "service sample 1");
	init_fails(NULL, &par, "no policy given");
	/* only gittins reads the sample */
	par.service = neg;
	par.nservice = 3;
	CHECK(policy_init(&p, &policy_las, &par, &cause) == 0);
	policy_release(&p);
}

static void
test_key_cmp(void)
{
	struct policy_key a = { { 1, 2, 3 }, 5 }, b;
	unsigned long long r = 88172645463325252ULL;
	int i, k;

	b = a;
	CHECK(policy_key_cmp(&a, &b) == 0);
	b.id = 6;
	CHECK(policy_key_cmp(&a, &b) < 0 && policy_key_cmp(&b, &a) > 0);
	b = a;
	b.k[2] = 2.5;
	CHECK(policy_key_cmp(&a, &b) > 0);
	b.k[1] = 2.5;	/* k[1] decides before k[2] */
	CHECK(policy_key_cmp(&a, &b) < 0);
	b = a;
	b.k[0] = 0;
	b.k[1] = 99;
	CHECK(policy_key_cmp(&a, &b) > 0);
	b = a;
	b.k[0] = INFINITY;
	CHECK(policy_key_cmp(&a, &b) < 0);
	b.k[0] = NAN;	/* NaN after everything, infinity included */
	CHECK(policy_key_cmp(&a, &b) < 0 && policy_key_cmp(&b, &a) > 0);
	a.k[0] = NAN;
	a.id = b.id;
	CHECK(policy_key_cmp(&a, &b) == 0);
	/* antisymmetric on random small keys */
	for (i = 0; i < 10000; i++) {
		for (k = 0; k < 3; k++) {
			r ^= r << 13; r ^= r >> 7; r ^= r << 17;
			a.k[k] = (double)(r % 3);
			b.k[k] = (double)((r >> 8) % 3);
		}
		a.id = (int)((r >> 16) % 2);
		b.id = (int)((r >> 24) % 2);
		CHECK(policy_key_cmp(&a, &b) == -policy_key_cmp(&b, &a));
	}
}

static void
test_queue_of(void)
{
	struct policy_params par;
	char *cause = NULL;

	policy_params_init(&par);
	CHECK_INTEQ(policy_queue_of(&par, 0), 0);
	CHECK_INTEQ(policy_queue_of(&par, 3599.999), 0);
	CHECK_INTEQ(policy_queue_of(&par, 3600), 1);	/* thresholds inclusive */
	CHECK_INTEQ(policy_queue_of(&par, 1e12), 1);
	CHECK_INTEQ(policy_queue_of(&par, INFINITY), 1);
	CHECK_INTEQ(policy_queue_of(&par, NAN), 0);
	CHECK(policy_params_thresholds(&par, "10m,1h,10h", &cause) == 0);
	CHECK_INTEQ(policy_queue_of(&par, 599), 0);
	CHECK_INTEQ(policy_queue_of(&par, 600), 1);
	CHECK_INTEQ(policy_queue_of(&par, 3600), 2);
	CHECK_INTEQ(policy_queue_of(&par, 36000), 3);
	par.nqueues = 1;
	CHECK_INTEQ(policy_queue_of(&par, 1e9), 0);
}

static const struct test tests[] = {
	{ "defaults", test_defaults },
	{ "thresholds-good", test_thresholds_good },
	{ "thresholds-bad", test_thresholds_bad },
	{ "find", test_find },
	{ "init", test_init },
	{ "key-cmp", test_key_cmp },
	{ "queue-of", test_queue_of },
};

TEST_MAIN(tests)
