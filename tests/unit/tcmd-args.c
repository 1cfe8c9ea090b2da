/*
 * tcmd-args.c — unit tests of the argument parser (cmd/args): long and
 * short options, values, bundling, prefixes, positionals, "--", order, and
 * the numeric conversions with their messages.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/args.h"

static const struct cmd_opt opts[] = {
	{ 'g', "gpus", "N", "gpus", VALUE_NONE },
	{ 'p', "pods", "P", "pods", VALUE_NONE },
	{ 0, "priority", "P", "priority", VALUE_NONE },
	{ 0, "lazy", NULL, "lazy", VALUE_NONE },
	{ 'v', "verbose", NULL, "verbose", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};
static const struct cmd_opt common[] = {
	{ 'o', "output", "FORMAT", "format", VALUE_FORMAT },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};
static const struct cmd_opt *const tables[] = { opts, common, NULL };

static struct args *
parse(unsigned flags, int min, int max, const char *const *words, char **cause)
{
	int n = 0;

	*cause = NULL;
	while (words[n] != NULL)
		n++;
	return args_parse(tables, min, max, flags, n, (char *const *)words, cause);
}

static void
test_long_short(void)
{
	const char *w[] = { "job", "--gpus", "4", "-p2", "--lazy", "-o", "json",
	    "--priority=-1", NULL };
	char *cause;
	struct args *a = parse(0, 0, -1, w, &cause);

	CHECK(a != NULL);
	if (a == NULL)
		return;
	CHECK_STREQ(args_get(a, "gpus"), "4");
	CHECK_STREQ(args_get(a, "pods"), "2");
	CHECK_STREQ(args_get(a, "output"), "json");
	CHECK_STREQ(args_get(a, "priority"), "-1");
	CHECK(args_has(a, "lazy"));
	CHECK(args_get(a, "lazy") == NULL);
	CHECK(!args_has(a, "verbose"));
	CHECK_INTEQ(args_count(a), 1);
	CHECK_STREQ(args_value(a, 0), "job");
	CHECK(args_value(a, 1) == NULL);
	CHECK(args_argv(a)[1] == NULL);
	args_free(a);
}

static void
test_values_and_order(void)
{
	const char *w[] = { "--priority", "-1", "-vg", "8", "-o", "a", "x", "-o", "b",
	    "--", "--lazy", "-", NULL };
	char *cause;
	struct args *a = parse(0, 0, -1, w, &cause);

	CHECK(a != NULL);
	if (a == NULL)
		return;
	CHECK_STREQ(args_get(a, "priority"), "-1");	/* value option takes "-1" */
	CHECK(args_has(a, "verbose"));
	CHECK_STREQ(args_get(a, "gpus"), "8");		/* bundled then value */
	CHECK_STREQ(args_get(a, "output"), "b");	/* the last wins */
	CHECK_INTEQ(args_count(a), 3);
	CHECK_STREQ(args_value(a, 1), "--lazy");	/* after "--" */
	CHECK_STREQ(args_value(a, 2), "-");
	CHECK_INTEQ(args_nopts(a), 5);
	CHECK_STREQ(args_opt_name(a, 3), "output");
	CHECK_STREQ(args_opt_value(a, 3), "a");
	CHECK(args_opt_name(a, 9) == NULL);
	args_free(a);
}

static void
test_prefix(void)
{
	const char *ok[] = { "--gp", "3", "--la", "--out=csv", NULL };
	const char *amb[] = { "--p", "3", NULL };
	char *cause;
	struct args *a = parse(0, 0, -1, ok, &cause);

	CHECK(a != NULL);
	if (a != NULL) {
		CHECK_STREQ(args_get(a, "gpus"), "3");
		CHECK(args_has(a, "lazy"));
		CHECK_STREQ(args_get(a, "output"), "csv");
		args_free(a);
	}
	a = parse(0, 0, -1, amb, &cause);
	CHECK(a == NULL);
	CHECK_STREQ(cause, "ambiguous option '--p': --pods, --priority");
	free(cause);
}

static void
test_errors(void)
{
	static const struct {
		const char	*words[4];
		const char	*cause;
	} cases[] = {
		{ { "--nope", NULL }, "unknown option '--nope'" },
		{ { "-x", NULL }, "unknown option '-x'" },
		{ { "-\001", NULL }, "unknown option '-\\x01'" },
		{ { "--gpus", NULL }, "option '--gpus' needs a value (N)" },
		{ { "-g", NULL }, "option '-g' needs a value (N)" },
		{ { "--lazy=yes", NULL }, "option '--lazy' takes no value" },
		{ { "a", "b", "c", NULL }, "unexpected argument 'c'" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cause;
		struct args *a = parse(0, 0, 2, cases[i].words, &cause);

		CHECKF(a == NULL, "case %zu parsed", i);
		CHECKF(cause != NULL && strcmp(cause, cases[i].cause) == 0,
		    "case %zu: '%s'", i, cause ? cause : "(null)");
		free(cause);
		args_free(a);
	}
	{
		const char *w[] = { NULL };
		char *cause;
		struct args *a = parse(0, 1, 1, w, &cause);

		CHECK(a == NULL);
		CHECK_STREQ(cause, "missing argument");
		free(cause);
	}
}

/* Global options stop at the command name; the rest is the command's. */
static void
test_stop_at_positional(void)
{
	const char *w[] = { "-o", "json", "alloc", "--gpus", "4", "--bogus", NULL };
	char *cause;
	struct args *a = parse(ARGS_STOP_AT_POSITIONAL, 0, -1, w, &cause);

	CHECK(a != NULL);
	if (a == NULL)
		return;
	CHECK_STREQ(args_get(a, "output"), "json");
	CHECK(!args_has(a, "gpus"));
	CHECK_INTEQ(args_count(a), 4);
	CHECK_STREQ(args_value(a, 3), "--bogus");
	args_free(a);
}

static void
test_numbers(void)
{
	const char *w[] = { "--gpus", "12", "--pods", "x", "--priority", "-1", NULL };
	char *cause = NULL;
	struct args *a = parse(0, 0, -1, w, &cause);
	long long v;

	CHECK(a != NULL);
	if (a == NULL)
		return;
	v = args_strtonum(a, "gpus", 1, 100, &cause);
	CHECK(cause == NULL && v == 12);
	v = args_strtonum(a, "gpus", 1, 8, &cause);
	CHECK_STREQ(cause, "invalid --gpus '12': more than 8");
	free(cause);
	v = args_strtonum(a, "pods", 1, 8, &cause);
	CHECK_STREQ(cause, "invalid --pods 'x': not a number");
	free(cause);
	v = args_strtonum(a, "priority", -1, 1000, &cause);
	CHECK(cause == NULL && v == -1);
	v = args_strtonum(a, "priority", 0, 1000, &cause);
	CHECK_STREQ(cause, "invalid --priority '-1': less than 0");
	free(cause);
	v = args_strtonum(a, "lazy", 0, 1, &cause);
	CHECK_STREQ(cause, "option '--lazy' is missing");
	free(cause);
	args_free(a);

	static const char *const bad[] = { "", " 1", "1 ", "0x10", "+1", "1e3",
	    "99999999999999999999", "-99999999999999999999", "--1" };
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		(void)args_parse_num(bad[i], "n", -1000, 1000, &cause);
		CHECKF(cause != NULL, "'%s' accepted", bad[i]);
		free(cause);
	}
	CHECK(args_parse_num("007", "n", 0, 10, &cause) == 7 && cause == NULL);
}

static const struct test tests[] = {
	{ "long-short", test_long_short },
	{ "values-and-order", test_values_and_order },
	{ "prefix", test_prefix },
	{ "errors", test_errors },
	{ "stop-at-positional", test_stop_at_positional },
	{ "numbers", test_numbers },
};

TEST_MAIN(tests)
