/*
 * tpolicy-sample.c — the service sample loader (src/sim/sample.h): the
 * Tiresias yarn-gput*.csv format with CRLF, headerless and multi-column
 * files, every error at its line and column, a file on disk, a loaded
 * sample driving the gittins policy, and Tiresias' yarn-gput1000 sample
 * with its index table checked against the definition computed directly.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"
#include "sim/sample.h"
#include "test.h"

static int
load(const char *text, struct sample *s, char **cause)
{
	*cause = NULL;
	return sample_load_string("g.csv", text, strlen(text), s, cause);
}

static void
test_formats(void)
{
	static const struct {
		const char	*text;
		size_t		 n;
		double		 first, last;
	} ok[] = {
		{ "duration\r\n121\r\n122\r\n53294624\r\n", 3, 121, 53294624 },
		{ "duration\n5\n", 1, 5, 5 },
		{ "duration\n5", 1, 5, 5 },			/* no final newline */
		{ "7\n8\n9\n", 3, 7, 9 },			/* no header */
		{ "gput\n1.5\n\n2.5\n\n", 2, 1.5, 2.5 },	/* one column, any name */
		{ "job,Duration,gpus\na,10,1\nb, 20 ,2\n", 2, 10, 20 },
		{ "duration\n1e4\n2.5E-1\n0\n", 3, 1e4, 0 },
		{ "\n\nduration\n3\n", 1, 3, 3 },
	};
	struct sample s;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		CHECKF(load(ok[i].text, &s, &cause) == 0, "#%zu: %s", i,
		    cause ? cause : "");
		CHECKF(s.n == ok[i].n, "#%zu: %zu samples", i, s.n);
		if (s.n > 0)
			CHECKF(s.v[0] == ok[i].first && s.v[s.n - 1] == ok[i].last,
			    "#%zu: %g .. %g", i, s.v[0], s.v[s.n - 1]);
		sample_release(&s);
		CHECK(s.v == NULL && s.n == 0);
	}
	CHECK(load("duration\n1\n2.5e-1\n", &s, &cause) == 0 && s.v[1] == 0.25);
	sample_release(&s);
}

static void
test_errors(void)
{
	static const struct {
		const char	*text;
		const char	*want;
	} bad[] = {
		{ "", "g.csv: no samples" },
		{ "duration\r\n\r\n", "g.csv: no samples" },
		{ "duration\n12\nabc\n", "g.csv:3:1: value 'abc' is not a number" },
		{ "duration\n12\n-5\n", "g.csv:3:1: service '-5' is negative" },
		{ "duration\n  7x\n", "g.csv:2:3: value '7x' is not a number" },
		{ "a,b\n1,2\n", "g.csv:1:1: no 'duration' column in the header" },
		{ "id,duration\n1,2\n3\n", "g.csv:3:2: missing the 'duration' column (field 2)" },
		{ "id,duration\n1,\n", "g.csv:2:3: empty 'duration' value" },
		{ "duration\n1e999\n", "g.csv:2:1: value '1e999' is out of range" },
		{ "duration\n1.\n.\n", "g.csv:3:1: value '.' is not a number" },
		{ "duration\n1e\n", "g.csv:2:1: value '1e' is not a number" },
		{ "duration\n0x10\n", "g.csv:2:1: value '0x10' is not a number" },
		{ "duration\n0e999\n5\nnan\n", "g.csv:4:1: value 'nan' is not a number" },
	};
	struct sample s;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECKF(load(bad[i].text, &s, &cause) == -1, "#%zu accepted", i);
		CHECKF(cause != NULL && strcmp(cause, bad[i].want) == 0,
		    "#%zu: got '%s', want '%s'", i, cause ? cause : "(null)", bad[i].want);
		CHECK(s.v == NULL && s.n == 0);
		free(cause);
	}
}

static void
test_file(void)
{
	char path[] = "/tmp/cellar-sample-XXXXXX", *cause = NULL;
	struct policy_params par;
	struct policy_key k;
	struct policy p;
	struct sample s;
	struct job j;
	FILE *f;
	int fd;

	CHECK(sample_load("/nonexistent/yarn.csv", &s, &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "cannot open sample "
	    "'/nonexistent/yarn.csv'") != NULL);
	free(cause);
	cause = NULL;
	CHECK(sample_load("/", &s, &cause) == -1 && cause != NULL);
	free(cause);
	cause = NULL;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs("duration\r\n1\r\n2\r\n3\r\n10\r\n", f);
	fclose(f);
	CHECKF(sample_load(path, &s, &cause) == 0, "%s", cause ? cause : "");
	unlink(path);
	CHECK(s.n == 4);
	/* the loaded sample drives gittins: index 2/7 below 1 for T0 = 2 */
	policy_params_init(&par);
	par.thresholds[0] = 2;
	par.service = s.v;
	par.nservice = s.n;
	CHECK(policy_init(&p, &policy_gittins, &par, &cause) == 0);
	job_init(&j, 0, "j", 0, 0);
	p.ops->key(&p, &j, 0, &k);
	CHECKF(fabs(-k.k[1] - 2.0 / 7) < 1e-12, "%.17g", -k.k[1]);
	policy_release(&p);
	sample_release(&s);
}

/* G(a) straight from the definition, O(n), for the prefix-sum version. */
static double
brute_index(const double *v, size_t n, double a, double d)
{
	double m = 0, done = 0, e = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(v[i] > a))
			continue;
		m++;
		if (v[i] - a <= d)
			done++;
		e += fmin(v[i] - a, d);
	}
	return m == 0 ? 0 : (done / m) / (e / m);
}

/* Tiresias' own sample, from the fixtures. */
static void
test_yarn(void)
{
	struct policy_params par;
	struct policy_key k;
	struct policy p;
	struct sample s;
	struct job j;
	char *cause = NULL;
	double a, want;
	size_t i;

	CHECKF(sample_load("tests/fixtures/traces/tiresias-yarn-gput1000.csv", &s,
	    &cause) == 0, "%s", cause ? cause : "");
	if (s.n == 0)
		return;
	CHECK(s.n == 1001 && s.v[0] == 121 && s.v[s.n - 1] == 53294624);
	policy_params_init(&par);
	par.service = s.v;
	par.nservice = s.n;
	CHECK(policy_init(&p, &policy_gittins, &par, &cause) == 0);
	job_init(&j, 0, "j", 0, 0);
	j.state = JOB_RUNNING;
	j.first_start = 0;
	/* at 0 and at every sample point (an interval start), and between */
	for (i = 0; i <= s.n; i += 7) {
		a = i == 0 ? 0 : s.v[i - 1];
		j.attained = a;
		p.ops->key(&p, &j, 0, &k);
		want = brute_index(s.v, s.n, a, 3600);
		CHECKF(fabs(-k.k[1] - want) <= 1e-12 * want, "G(%g) = %.17g, want %.17g",
		    a, -k.k[1], want);
		CHECK(p.ops->change(&p, &j) > a);
	}
	j.attained = 0;
	CHECK(p.ops->change(&p, &j) == 3600);	/* the queue threshold */
	j.attained = 6e7;			/* past the largest: index 0 */
	p.ops->key(&p, &j, 0, &k);
	CHECK(k.k[0] == 1 && k.k[1] == 0 && isinf(p.ops->change(&p, &j)));
	policy_release(&p);
	sample_release(&s);
}

static const struct test tests[] = {
	{ "formats", test_formats },
	{ "errors", test_errors },
	{ "file", test_file },
	{ "yarn", test_yarn },
};

TEST_MAIN(tests)
