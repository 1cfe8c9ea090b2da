/*
 * tcmd-cmdline.c — unit tests of the command-line tokenizer (cmd/cmdline):
 * words, quoting, escapes, command separators, comments, incomplete input
 * the quoting helper that must read back as the same word, and rule 7:
 * NUL bytes, invalid UTF-8 and overlong text are errors.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/cmdline.h"
#include "core/strbuf.h"

/*
 * Render a parse as text: words in <>, commands separated by " | ", or
 * "ERR cause" / "INC cause" for errors and incomplete input.
 */
static const char *
render(const char *text)
{
	static char out[1024];
	struct cmdline cl;
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;
	bool inc = false;
	size_t i, j;

	cmdline_init(&cl);
	if (cmdline_parse(text, &cl, &inc, &cause) != 0) {
		snprintf(out, sizeof out, "%s %s", inc ? "INC" : "ERR", cause);
		free(cause);
		return out;
	}
	for (i = 0; i < cl.n; i++) {
		if (i > 0)
			strbuf_adds(&sb, " | ");
		for (j = 0; j < cl.cmds[i].n; j++)
			strbuf_addf(&sb, "<%s>", cl.cmds[i].v[j]);
		if (cl.cmds[i].v[cl.cmds[i].n] != NULL)
			strbuf_adds(&sb, "NOT-NULL-TERMINATED");
	}
	snprintf(out, sizeof out, "%s", sb.buf);
	strbuf_release(&sb);
	cmdline_release(&cl);
	return out;
}

static void
test_words(void)
{
	CHECK_STREQ(render(""), "");
	CHECK_STREQ(render("   \t "), "");
	CHECK_STREQ(render("jobs"), "<jobs>");
	CHECK_STREQ(render("  alloc  j1\t--vc a  "), "<alloc><j1><--vc><a>");
	CHECK_STREQ(render("a\r\n"), "<a>");
}

static void
test_separators(void)
{
	CHECK_STREQ(render("a; b"), "<a> | <b>");
	CHECK_STREQ(render("a;b;;c;"), "<a> | <b> | <c>");
	CHECK_STREQ(render(";;;"), "");
	CHECK_STREQ(render("a x\nb y"), "<a><x> | <b><y>");
	CHECK_STREQ(render("a ';' b"), "<a><;><b>");
	CHECK_STREQ(render("a \\; b"), "<a><;><b>");
}

static void
test_quotes(void)
{
	CHECK_STREQ(render("'a b' c"), "<a b><c>");
	CHECK_STREQ(render("\"a b\" c"), "<a b><c>");
	CHECK_STREQ(render("'a\\b'"), "<a\\b>");
	CHECK_STREQ(render("\"a\\\"b\""), "<a\"b>");
	CHECK_STREQ(render("\"a\\\\b\""), "<a\\b>");
	CHECK_STREQ(render("\"a\\nb\""), "<a\\nb>");	/* kept: not special */
	CHECK_STREQ(render("\"$x\\$y\""), "<$x$y>");
	CHECK_STREQ(render("x'y'\"z\"w"), "<xyzw>");
	CHECK_STREQ(render("'' \"\""), "<><>");
	CHECK_STREQ(render("a '' b"), "<a><><b>");
	CHECK_STREQ(render("'it'\\''s'"), "<it's>");
	CHECK_STREQ(render("\"it's\""), "<it's>");
	CHECK_STREQ(render("'a\nb'"), "<a\nb>");
	CHECK_STREQ(render("'#' \"#\""), "<#><#>");
}

static void
test_backslash(void)
{
	CHECK_STREQ(render("a\\ b"), "<a b>");
	CHECK_STREQ(render("\\'"), "<'>");
	CHECK_STREQ(render("a\\\nb"), "<ab>");
	CHECK_STREQ(render("a \\\n b"), "<a><b>");
	CHECK_STREQ(render("\"a\\\nb\""), "<ab>");
	CHECK_STREQ(render("'' \\\nx"), "<><x>");
	CHECK_STREQ(render("\\\\"), "<\\>");
}

static void
test_comments(void)
{
	CHECK_STREQ(render("# all comment"), "");
	CHECK_STREQ(render("jobs # list them"), "<jobs>");
	CHECK_STREQ(render("jobs #x; vcs\ncells"), "<jobs> | <cells>");
	CHECK_STREQ(render("a#b"), "<a#b>");
	CHECK_STREQ(render("a \\#b"), "<a><#b>");
}

static void
test_incomplete(void)
{
	CHECK_STREQ(render("'abc"), "INC unterminated single quote");
	CHECK_STREQ(render("a \"abc"), "INC unterminated double quote");
	CHECK_STREQ(render("\"abc\\\""), "INC unterminated double quote");
	CHECK_STREQ(render("abc\\"), "INC trailing backslash");
	/* Appending the next line completes it. */
	CHECK_STREQ(render("'abc\ndef'"), "<abc\ndef>");
	CHECK_STREQ(render("abc\\\ndef"), "<abcdef>");
}

/* Rule 8: $'...' carries a newline or a control byte in one line. */
static void
test_ansi(void)
{
	CHECK_STREQ(render("$'a\\nb' c"), "<a\nb><c>");
	CHECK_STREQ(render("x$'\\t'y"), "<x\ty>");
	CHECK_STREQ(render("$'it\\'s' $'\\\\'"), "<it's><\\>");
	CHECK_STREQ(render("$'\\x1b[2J'"), "<\x1b[2J>");
	CHECK_STREQ(render("$''"), "<>");
	CHECK_STREQ(render("'$'a"), "<$a>");		/* not after a quote */
	CHECK_STREQ(render("$x \"$'a'\""), "<$x><$'a'>");
	CHECK_STREQ(render("$'a\\qb'"), "ERR unknown escape in $'...' "
	    "(\\n \\t \\r \\\\ \\' \\xHH)");
	CHECK_STREQ(render("$'\\x00'"), "ERR bad \\x escape in $'...' (\\x01 to \\x7f)");
	CHECK_STREQ(render("$'\\xff'"), "ERR bad \\x escape in $'...' (\\x01 to \\x7f)");
	CHECK_STREQ(render("$'abc"), "INC unterminated $'...' quote");
	CHECK_STREQ(render("$'abc\\"), "INC unterminated $'...' quote");
}

/* Rule 7: errors before any word, with the byte that is wrong. */
static void
test_bad_text(void)
{
	static const struct {
		const char	*s;
		bool		 ok;
	} utf8[] = {
		{ "", true }, { "abc", true }, { "\xc3\xa9", true },
		{ "\xe2\x82\xac", true }, { "\xf0\x9f\x98\x80", true },
		{ "\xf4\x8f\xbf\xbf", true },		/* U+10FFFF */
		{ "\xff", false }, { "\xc3", false }, { "\xc0\xaf", false },
		{ "\xe0\x80\xaf", false }, { "\xed\xa0\x80", false },
		{ "\xf4\x90\x80\x80", false }, { "\x80", false },
		{ "a\xe2\x82", false }, { "\xf5\x80\x80\x80", false },
	};
	struct cmdline cl;
	struct strbuf big = STRBUF_INIT;
	char *cause = NULL;
	size_t i, off = 99;

	for (i = 0; i < sizeof utf8 / sizeof utf8[0]; i++)
		CHECKF(cmdline_utf8_valid(utf8[i].s, strlen(utf8[i].s), NULL) ==
		    utf8[i].ok, "case %zu", i);
	CHECK(!cmdline_utf8_valid("ab\xffz", 4, &off) && off == 2);
	CHECK_STREQ(render("jobs \xff"), "ERR input is not valid UTF-8 (at byte 6)");
	CHECK_STREQ(render("'\xc3"), "ERR input is not valid UTF-8 (at byte 2)");

	cmdline_init(&cl);
	CHECK_INTEQ(cmdline_parsen("jobs\0vcs", 8, &cl, NULL, &cause), -1);
	CHECK_STREQ(cause, "NUL byte in input (at byte 5)");
	CHECK_INTEQ(cl.n, 0);
	free(cause);
	cause = NULL;
	CHECK_INTEQ(cmdline_parsen("jobs; vcs", 9, &cl, NULL, &cause), 0);
	CHECK_INTEQ(cl.n, 2);

	strbuf_addchars(&big, 'a', CMDLINE_MAX);
	CHECK_INTEQ(cmdline_parse(big.buf, &cl, NULL, &cause), 0);
	strbuf_addc(&big, 'a');
	CHECK_INTEQ(cmdline_parse(big.buf, &cl, NULL, &cause), -1);
	CHECK_STREQ(cause, "input too long (65537 bytes; at most 65536)");
	free(cause);
	strbuf_release(&big);
	cmdline_release(&cl);
}

static void
test_quote_round_trip(void)
{
	static const char *const words[] = {
		"plain", "", "a b", "it's", "semi;colon", "#hash", "back\\slash",
		"\"dq\"", "$x", "tab\there", "new\nline", "''", "a'b'c",
		"echo one\necho 'two'\n", "\x1b[2J\\x\x7f", "$'x'", "cr\r\n",
	};
	size_t i;

	for (i = 0; i < sizeof words / sizeof words[0]; i++) {
		struct strbuf sb = STRBUF_INIT;
		struct cmdline cl;
		char *cause = NULL;

		cmdline_init(&cl);
		cmdline_quote(&sb, words[i]);
		/* one line: a request on the socket is one */
		CHECKF(strpbrk(sb.buf, "\n\r") == NULL, "'%s' -> [%s]", words[i],
		    sb.buf);
		CHECKF(cmdline_parse(sb.buf, &cl, NULL, &cause) == 0, "%s", cause);
		CHECKF(cl.n == 1 && cl.cmds[0].n == 1 &&
		    strcmp(cl.cmds[0].v[0], words[i]) == 0, "'%s' -> [%s]",
		    words[i], sb.buf);
		free(cause);
		cmdline_release(&cl);
		strbuf_release(&sb);
	}
	{
		struct strbuf sb = STRBUF_INIT;

		cmdline_quote(&sb, "node01");
		CHECK_STREQ(sb.buf, "node01");
		strbuf_release(&sb);
	}
}

/*
 * Every byte sequence parses or fails with a reason (run under ASan), and
 * what parses reads back the same once each word is quoted: the property
 * forwarding to a server relies on (cmd.c quotes parsed words again).
 */
static void
test_garbage(void)
{
	char buf[64];
	unsigned seed = 12345;
	int i, k, n = test_long ? 200000 : 20000, parsed = 0, bad = 0;

	for (i = 0; i < n; i++) {
		int len = (int)((seed = seed * 1103515245 + 12345) >> 16) % 63;
		struct cmdline a, b;
		struct strbuf sb = STRBUF_INIT;
		char *cause = NULL;
		bool inc = false;
		size_t c, w;

		for (k = 0; k < len; k++) {
			seed = seed * 1103515245 + 12345;
			buf[k] = "ab '\"\\;#\n\t$x"[(seed >> 16) % 12];
		}
		buf[len] = '\0';
		cmdline_init(&a);
		if (cmdline_parse(buf, &a, &inc, &cause) != 0) {
			if (cause == NULL || *cause == '\0')
				bad++;
			free(cause);
			cmdline_release(&a);
			continue;
		}
		parsed++;
		for (c = 0; c < a.n; c++) {
			if (c > 0)
				strbuf_adds(&sb, " ; ");
			for (w = 0; w < a.cmds[c].n; w++) {
				if (w > 0)
					strbuf_addc(&sb, ' ');
				cmdline_quote(&sb, a.cmds[c].v[w]);
			}
		}
		cmdline_init(&b);
		if (cmdline_parse(sb.buf != NULL ? sb.buf : "", &b, &inc, &cause) != 0) {
			CHECKF(0, "'%s' quoted as '%s' does not parse: %s", buf,
			    sb.buf, cause);
			free(cause);
		} else {
			/* empty commands vanish; the words must not change */
			size_t cb = 0;

			for (c = 0; c < a.n; c++) {
				if (a.cmds[c].n == 0)
					continue;
				if (cb >= b.n || b.cmds[cb].n != a.cmds[c].n) {
					CHECKF(0, "'%s' quoted as '%s' reads back "
					    "other commands", buf, sb.buf);
					break;
				}
				for (w = 0; w < a.cmds[c].n; w++)
					CHECKF(strcmp(a.cmds[c].v[w],
					    b.cmds[cb].v[w]) == 0, "'%s' quoted as "
					    "'%s': word '%s' read back as '%s'", buf,
					    sb.buf, a.cmds[c].v[w], b.cmds[cb].v[w]);
				cb++;
			}
		}
		cmdline_release(&b);
		cmdline_release(&a);
		strbuf_release(&sb);
	}
	CHECKF(bad == 0, "%d failures without a reason", bad);
	CHECKF(parsed > n / 10, "only %d of %d inputs parsed", parsed, n);
}

static const struct test tests[] = {
	{ "words", test_words },
	{ "separators", test_separators },
	{ "quotes", test_quotes },
	{ "backslash", test_backslash },
	{ "comments", test_comments },
	{ "incomplete", test_incomplete },
	{ "ansi", test_ansi },
	{ "bad-text", test_bad_text },
	{ "quote-round-trip", test_quote_round_trip },
	{ "garbage", test_garbage },
};

TEST_MAIN(tests)
