/*
 * test.h — the unit-test harness (after Redis testhelp.h), header only.
 *
 * A test file lists its tests in a table and ends with TEST_MAIN(table).
 * Each test prints one line, "ok - FILE/NAME" or "not ok - FILE/NAME: why";
 * tests/run.sh counts those lines across every binary. A CHECK that fails
 * marks the current test failed and goes on, so one run shows every failure.
 * A binary exits 1 when any of its tests failed. TEST_SKIP(why) marks the
 * current test as not run here ("skip - FILE/NAME: why", counted apart by
 * run.sh, never a pass); a test that skips must not also check.
 *
 * `test_long` is true under `make check-long` (CELLAR_LONG=1): randomized
 * tests run more operations then.
 */
#ifndef CELLAR_TEST_H
#define CELLAR_TEST_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test {
	const char	*name;
	void		(*fn)(void);
};

static int test_failed_;
static int test_checks_;
static bool test_long;
static char test_why_[512];
static const char *test_skip_;

#define TEST_SKIP(why) (test_skip_ = (why))

#define CHECK(expr) do {						\
	test_checks_++;							\
	if (!(expr)) {							\
		if (!test_failed_)					\
			snprintf(test_why_, sizeof test_why_,		\
			    "%s:%d: %s", __FILE__, __LINE__, #expr);	\
		test_failed_ = 1;					\
	}								\
} while (0)

/* CHECKF adds a printf-style explanation to a failing check. */
#define CHECKF(expr, ...) do {						\
	test_checks_++;							\
	if (!(expr)) {							\
		if (!test_failed_) {					\
			int n_ = snprintf(test_why_, sizeof test_why_,	\
			    "%s:%d: %s: ", __FILE__, __LINE__, #expr);	\
			if (n_ > 0 && (size_t)n_ < sizeof test_why_)	\
				snprintf(test_why_ + n_,		\
				    sizeof test_why_ - (size_t)n_,	\
				    __VA_ARGS__);			\
		}							\
		test_failed_ = 1;					\
	}								\
} while (0)

#define CHECK_STREQ(a, b) CHECKF(strcmp((a), (b)) == 0, "'%s' != '%s'", (a), (b))
#define CHECK_INTEQ(a, b) CHECKF((long long)(a) == (long long)(b), \
	"%lld != %lld", (long long)(a), (long long)(b))

static inline int
test_run_all_(const char *file, const struct test *t, size_t n)
{
	const char *base = strrchr(file, '/');
	const char *e = getenv("CELLAR_LONG");
	int bad = 0;
	size_t i;

	test_long = e != NULL && *e != '\0' && strcmp(e, "0") != 0;
	base = base ? base + 1 : file;
	for (i = 0; i < n; i++) {
		test_failed_ = 0;
		test_checks_ = 0;
		test_why_[0] = '\0';
		test_skip_ = NULL;
		t[i].fn();
		if (test_skip_ != NULL && test_checks_ == 0 && !test_failed_) {
			printf("skip - %.*s/%s: %s\n", (int)(strcspn(base, ".")),
			    base, t[i].name, test_skip_);
			fflush(stdout);
			continue;
		}
		if (test_skip_ != NULL && !test_failed_) {
			test_failed_ = 1;
			snprintf(test_why_, sizeof test_why_, "skipped after "
			    "%d checks", test_checks_);
		}
		if (test_checks_ == 0 && !test_failed_) {
			test_failed_ = 1;
			snprintf(test_why_, sizeof test_why_, "no assertion ran");
		}
		if (test_failed_) {
			char *p_;

			/* one line per verdict: a reason's control bytes would
			   split it (run.sh counts lines) */
			for (p_ = test_why_; *p_ != '\0'; p_++)
				if ((unsigned char)*p_ < 0x20)
					*p_ = ' ';
			printf("not ok - %.*s/%s: %s\n", (int)(strcspn(base, ".")),
			    base, t[i].name, test_why_);
			bad++;
		} else
			printf("ok - %.*s/%s (%d checks)\n", (int)(strcspn(base, ".")),
			    base, t[i].name, test_checks_);
		fflush(stdout);
	}
	return bad ? 1 : 0;
}

#define TEST_MAIN(table)						\
int main(void)								\
{									\
	return test_run_all_(__FILE__, (table),				\
	    sizeof(table) / sizeof((table)[0]));			\
}

#endif
