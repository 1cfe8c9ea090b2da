/*
 * tcore-shquote.c — sh_quote against shell metacharacters, checked by a
 * round trip through a real `sh -c` (shquote.h invariant 1), and the name
 * checks.
 */
#include <sys/wait.h>

#include <stdio.h>

#include "core/shquote.h"
#include "test.h"

/* What `sh -c 'printf %s WORD'` prints for sh_quote(s). */
static char *
through_sh(const char *s)
{
	struct strbuf cmd = STRBUF_INIT, out = STRBUF_INIT;
	char buf[256];
	size_t n;
	FILE *fp;

	strbuf_adds(&cmd, "printf %s ");
	sh_quote(&cmd, s);
	/* popen runs sh -c CMD: the quoted word is parsed by a real shell */
	fp = popen(cmd.buf, "r");
	if (fp == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		strbuf_add(&out, buf, n);
	if (pclose(fp) != 0) {
		strbuf_release(&out);
		strbuf_release(&cmd);
		return NULL;
	}
	strbuf_release(&cmd);
	return strbuf_detach(&out, NULL);
}

static void
test_roundtrip(void)
{
	static const char *const cases[] = {
		"", "plain", "two words", "it's", "''", "'", "\\", "\\'",
		"$HOME", "${HOME}", "$(id)", "`id`", "a;b", "a&&b", "a|b",
		"a>b", "<a", "*", "?", "[a]", "~", "#c", "!x", "a\nb", "\t",
		"\"q\"", "-n", "%s%d", "a'b'c'", "'$(touch /tmp/cellar-pwned)'",
		"\xc3\xa9t\xc3\xa9", "x\x01y\x7f", "a\\nb", "{a,b}", "=", NULL,
	};
	char all[256];
	char *got;
	int i;

	for (i = 0; cases[i] != NULL; i++) {
		got = through_sh(cases[i]);
		CHECKF(got != NULL && strcmp(got, cases[i]) == 0,
		    "case %d: got '%s'", i, got ? got : "(failed)");
		free(got);
	}
	/* every byte but NUL in one word */
	for (i = 1; i < 256; i++)
		all[i - 1] = (char)i;
	all[255] = '\0';
	got = through_sh(all);
	CHECK(got != NULL && strcmp(got, all) == 0);
	free(got);
}

static void
test_argv(void)
{
	char *argv[] = { "echo", "a b", "it's", "$x" };
	struct strbuf sb = STRBUF_INIT;

	sh_quote_argv(&sb, argv, 4);
	CHECK_STREQ(sb.buf, "'echo' 'a b' 'it'\\''s' '$x'");
	strbuf_release(&sb);
}

static void
test_names(void)
{
	CHECK(name_valid("job1", 64));
	CHECK(name_valid("a.b_c-d", 64));
	CHECK(!name_valid("", 64));
	CHECK(!name_valid("-x", 64));
	CHECK(!name_valid(".x", 64));
	CHECK(!name_valid("a b", 64));
	CHECK(!name_valid("a;b", 64));
	CHECK(!name_valid("a$(id)", 64));
	CHECK(!name_valid("a'b", 64));
	CHECK(!name_valid("a/b", 64));
	CHECK(!name_valid("\xc3\xa9", 64));
	CHECK(!name_valid("abcd", 4));
	CHECK(name_valid("abc", 4));
	CHECK(env_name_valid("A_1"));
	CHECK(env_name_valid("_x"));
	CHECK(!env_name_valid("1A"));
	CHECK(!env_name_valid("A-B"));
	CHECK(!env_name_valid(""));
	CHECK(!env_name_valid("A=B"));
}

static const struct test tests[] = {
	{ "roundtrip", test_roundtrip },
	{ "argv", test_argv },
	{ "names", test_names },
};

TEST_MAIN(tests)
