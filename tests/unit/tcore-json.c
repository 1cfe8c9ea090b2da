/*
 * tcore-json.c — unit tests of core/json (writer, validator, lookup).
 *
 * The binary doubles as the JSON tool of the scenario tests, so they need
 * neither python nor jq:
 *   tcore-json --check      stdin holds one JSON document per non-empty line
 *   tcore-json --get PATH   print the value at PATH of the document on stdin
 * Both exit 0 on success and 1 with a message on stderr otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/json.h"
#include "core/strbuf.h"

static bool
valid(const char *s)
{
	char *cause = NULL;
	size_t end = 0;
	int rc = json_validate(s, strlen(s), &end, &cause);

	free(cause);
	return rc == 0 && end == strlen(s);
}

static char *
lookup(const char *doc, const char *path)
{
	static char buf[256];
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	if (json_lookup(doc, strlen(doc), path, &sb, &cause) != 0)
		snprintf(buf, sizeof buf, "ERR %s", cause);
	else
		snprintf(buf, sizeof buf, "%s", sb.buf);
	free(cause);
	strbuf_release(&sb);
	return buf;
}

static void
test_writer(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb);
	json_object_begin(&j);
	json_kv_int(&j, "schema_version", 1);
	json_kv_string(&j, "kind", "test");
	json_kv_string(&j, "quote", "a\"b\\c\nd\x01");
	json_kv_string(&j, "nothing", NULL);
	json_key(&j, "list");
	json_array_begin(&j);
	json_int(&j, -3);
	json_bool(&j, true);
	json_null(&j);
	json_object_begin(&j);
	json_object_end(&j);
	json_array_begin(&j);
	json_array_end(&j);
	json_double(&j, 0.5);
	json_array_end(&j);
	json_kv_bool(&j, "f", false);
	json_kv_null(&j, "n");
	json_kv_double(&j, "inf", 1.0 / 0.0);
	CHECK(!json_done(&j));
	json_object_end(&j);
	CHECK(json_done(&j));
	CHECK_STREQ(sb.buf, "{\"schema_version\":1,\"kind\":\"test\","
	    "\"quote\":\"a\\\"b\\\\c\\nd\\u0001\",\"nothing\":null,"
	    "\"list\":[-3,true,null,{},[],0.5],\"f\":false,\"n\":null,\"inf\":null}");
	CHECK(valid(sb.buf));
	strbuf_release(&sb);
}

/* Whatever bytes a string holds, the document is valid UTF-8 JSON. */
static void
test_writer_utf8(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb);
	json_array_begin(&j);
	json_string(&j, "\xc3\xa9t\xc3\xa9");		/* valid: kept */
	json_string(&j, "a\xff" "b\xc3");			/* stray bytes */
	json_string(&j, "\xed\xa0\x80\xc0\xaf\x7f");	/* surrogate, overlong, DEL */
	json_string(&j, "\xf0\x9f\x98\x80");		/* U+1F600 */
	json_array_end(&j);
	CHECK_STREQ(sb.buf, "[\"\xc3\xa9t\xc3\xa9\",\"a\\ufffdb\\ufffd\","
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\u007f\",\"\xf0\x9f\x98\x80\"]");
	CHECK(valid(sb.buf));
	CHECK(!valid("\"a\xff\""));
	CHECK(!valid("\"\xc3\""));
	CHECK(!valid("\"\xe2\x82"));
	CHECK(valid("\"\xe2\x82\xac\""));
	strbuf_release(&sb);
}

static void
test_writer_scalar(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct json j;

	json_init(&j, &sb);
	json_string(&j, "x");
	CHECK(json_done(&j));
	CHECK_STREQ(sb.buf, "\"x\"");
	strbuf_release(&sb);
}

static void
test_validate(void)
{
	static const char *const good[] = {
		"{}", "[]", "0", "-0", "1.5e+3", "\"\\u00e9\\ud83d\\ude00\"",
		"true", "null", " { \"a\" : [ 1 , 2 ] } ", "[[[[]]]]",
		"{\"a\":{\"b\":{\"c\":\"\\/\"}}}",
	};
	static const char *const bad[] = {
		"", "{", "}", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}", "01", "1.",
		"-", "+1", "1e", "tru", "nul", "\"abc", "\"a\\x\"", "\"\\u12g4\"",
		"\"a\nb\"", "[1 2]", "{\"a\":1,}", "'a'", "NaN", "[", "{\"a\":1 \"b\":2}",
	};
	char deep[600];
	size_t i;

	for (i = 0; i < sizeof good / sizeof good[0]; i++)
		CHECKF(valid(good[i]), "rejected %s", good[i]);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECKF(!valid(bad[i]), "accepted %s", bad[i]);
	/* Too deep is an error, not a stack overflow. */
	memset(deep, '[', sizeof deep - 1);
	deep[sizeof deep - 1] = '\0';
	CHECK(!valid(deep));
	/* Two documents: the first is valid, end stops after it. */
	{
		char *cause = NULL;
		size_t end = 0;

		CHECK(json_validate("{} {}", 5, &end, &cause) == 0);
		CHECK_INTEQ(end, 3);
		free(cause);
	}
}

static void
test_lookup(void)
{
	const char *doc = "{\"kind\":\"alloc\",\"pods\":[{\"node\":\"n1\","
	    "\"gpus\":[\"0\",\"1\"]},{\"node\":\"n\\u0032\"}],\"n\":3,"
	    "\"o\":{\"x\":null},\"e\":[]}";

	CHECK_STREQ(lookup(doc, "kind"), "alloc");
	CHECK_STREQ(lookup(doc, "pods.0.node"), "n1");
	CHECK_STREQ(lookup(doc, "pods.1.node"), "n2");
	CHECK_STREQ(lookup(doc, "pods.0.gpus.1"), "1");
	CHECK_STREQ(lookup(doc, "pods.#"), "2");
	CHECK_STREQ(lookup(doc, "pods.0.gpus.#"), "2");
	CHECK_STREQ(lookup(doc, "e.#"), "0");
	CHECK_STREQ(lookup(doc, "#"), "5");
	CHECK_STREQ(lookup(doc, "n"), "3");
	CHECK_STREQ(lookup(doc, "o"), "{\"x\":null}");
	CHECK_STREQ(lookup(doc, "o.x"), "null");
	CHECK_STREQ(lookup(doc, "pods.0.gpus"), "[\"0\",\"1\"]");
	CHECK(strncmp(lookup(doc, "pods.2"), "ERR no '2'", 10) == 0);
	CHECK(strncmp(lookup(doc, "nope"), "ERR no 'nope'", 13) == 0);
	CHECK(strncmp(lookup(doc, "n.x"), "ERR no 'x'", 10) == 0);
	CHECK(strncmp(lookup("{\"a\":", "a"), "ERR invalid json", 16) == 0);
}

static const struct test tests[] = {
	{ "writer", test_writer },
	{ "writer-scalar", test_writer_scalar },
	{ "writer-utf8", test_writer_utf8 },
	{ "validate", test_validate },
	{ "lookup", test_lookup },
};

static int
read_stdin(struct strbuf *sb)
{
	char buf[4096];
	size_t n;

	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		strbuf_add(sb, buf, n);
	return ferror(stdin) ? -1 : 0;
}

/* --check: every non-empty line is exactly one document. */
static int
tool_check(const struct strbuf *in)
{
	const char *line = in->buf, *nl;
	size_t len, end, lineno = 0, docs = 0;
	char *cause = NULL;

	for (; *line != '\0'; line = nl ? nl + 1 : line + len) {
		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		lineno++;
		if (strspn(line, " \t\r") >= len)
			continue;
		if (json_validate(line, len, &end, &cause) != 0 || end != len) {
			fprintf(stderr, "line %zu: %s\n", lineno,
			    cause ? cause : "trailing text after the document");
			free(cause);
			return 1;
		}
		docs++;
	}
	if (docs == 0) {
		fprintf(stderr, "no json document\n");
		return 1;
	}
	return 0;
}

static int
tool_get(const struct strbuf *in, const char *path)
{
	struct strbuf out = STRBUF_INIT;
	char *cause = NULL;

	if (json_lookup(in->buf, in->len, path, &out, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return 1;
	}
	printf("%s\n", out.buf);
	strbuf_release(&out);
	return 0;
}

int
main(int argc, char **argv)
{
	struct strbuf in = STRBUF_INIT;
	int rc;

	if (argc == 1)
		return test_run_all_(__FILE__, tests, sizeof tests / sizeof tests[0]);
	if (read_stdin(&in) != 0) {
		fprintf(stderr, "cannot read stdin\n");
		return 1;
	}
	if (argc == 2 && strcmp(argv[1], "--check") == 0)
		rc = tool_check(&in);
	else if (argc == 3 && strcmp(argv[1], "--get") == 0)
		rc = tool_get(&in, argv[2]);
	else {
		fprintf(stderr, "usage: tcore-json [--check | --get PATH]\n");
		rc = 2;
	}
	strbuf_release(&in);
	return rc;
}
