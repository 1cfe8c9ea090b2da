/*
 * tcore-strbuf.c — strbuf_addf against snprintf: short and long lines,
 * lines that fill the room exactly, that overflow it after many appends,
 * and the empty line (strbuf_vaddf formats once into the room it has and
 * again only when the line did not fit).
 */
#include <stdio.h>

#include "core/strbuf.h"
#include "test.h"

static void
test_addf_like_snprintf(void)
{
	static const int widths[] = { 0, 1, 62, 63, 64, 65, 127, 128, 1000, 5000 };
	struct strbuf sb = STRBUF_INIT;
	char *want = NULL;
	size_t wantlen = 0, wcap = 0, i;
	int round;

	for (round = 0; round < 40; round++)
		for (i = 0; i < sizeof widths / sizeof widths[0]; i++) {
			char piece[6000];
			int n = snprintf(piece, sizeof piece, "%d:%*s|", round,
			    widths[i], "x");

			if (wantlen + (size_t)n + 1 > wcap) {
				wcap = (wantlen + (size_t)n + 1) * 2;
				want = realloc(want, wcap);
			}
			memcpy(want + wantlen, piece, (size_t)n + 1);
			wantlen += (size_t)n;
			strbuf_addf(&sb, "%d:%*s|", round, widths[i], "x");
			if (sb.len != wantlen || strcmp(sb.buf, want) != 0) {
				CHECKF(0, "round %d width %d: length %zu, want %zu",
				    round, widths[i], sb.len, wantlen);
				goto out;
			}
		}
	CHECK(sb.len == wantlen);
out:
	strbuf_release(&sb);
	free(want);
}

static void
test_addf_empty(void)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s", "");
	CHECK_INTEQ((int)sb.len, 0);
	CHECK_STREQ(sb.buf, "");
	strbuf_addf(&sb, "%s-%d", "a", 7);
	CHECK_STREQ(sb.buf, "a-7");
	strbuf_release(&sb);
}

static const struct test tests[] = {
	{ "addf_like_snprintf", test_addf_like_snprintf },
	{ "addf_empty", test_addf_empty },
};

TEST_MAIN(tests)
