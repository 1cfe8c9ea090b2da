/*
 * tcore-suggest.c — the edit distance (suggest.h invariant 1) against
 * hand-counted pairs and its symmetry on random words, the threshold and
 * tie rule of suggest_closest (invariant 2), and the hint's text.
 */
#include "core/suggest.h"
#include "test.h"

static void
test_distance(void)
{
	CHECK_INTEQ(suggest_distance("", ""), 0);
	CHECK_INTEQ(suggest_distance("abc", ""), 3);
	CHECK_INTEQ(suggest_distance("", "abc"), 3);
	CHECK_INTEQ(suggest_distance("prod", "prod"), 0);
	CHECK_INTEQ(suggest_distance("PROD", "prod"), 0);
	CHECK_INTEQ(suggest_distance("prdo", "prod"), 1);	/* a swap */
	CHECK_INTEQ(suggest_distance("prd", "prod"), 1);
	CHECK_INTEQ(suggest_distance("prodd", "prod"), 1);
	CHECK_INTEQ(suggest_distance("kitten", "sitting"), 3);
	CHECK_INTEQ(suggest_distance("virtualCluster", "virtualClusters"), 1);
	CHECK_INTEQ(suggest_distance("ca", "abc"), 3);	/* OSA, not full DL */
	CHECK_INTEQ(suggest_distance("fifo", "las"), 4);
}

static void
test_symmetric(void)
{
	char a[9], b[9];
	int i, k, bad = 0;

	srand(7);
	for (i = 0; i < 2000; i++) {
		int la = rand() % 9, lb = rand() % 9;

		for (k = 0; k < la; k++)
			a[k] = "abcAB"[rand() % 5];
		a[la] = '\0';
		for (k = 0; k < lb; k++)
			b[k] = "abcAB"[rand() % 5];
		b[lb] = '\0';
		if (suggest_distance(a, b) != suggest_distance(b, a) ||
		    suggest_distance(a, b) > (la > lb ? la : lb) ||
		    suggest_distance(a, b) < (la > lb ? la - lb : lb - la))
			bad++;
	}
	CHECK_INTEQ(bad, 0);
}

static void
test_closest(void)
{
	static const char *const vcs[] = { "research", "prod", "dev", "infer" };
	static const char *const modes[] = { "hived", "quota", "private" };
	static const char *const tie[] = { "ab", "ba", "ac" };

	CHECK_STREQ(suggest_closest("prdo", vcs, 4), "prod");
	CHECK_STREQ(suggest_closest("Prod", vcs, 4), "prod");
	CHECK_STREQ(suggest_closest("reserch", vcs, 4), "research");
	CHECK_STREQ(suggest_closest("hive", modes, 3), "hived");
	CHECK_STREQ(suggest_closest("quotas", modes, 3), "quota");
	/* too far: no guess */
	CHECK(suggest_closest("zzz", vcs, 4) == NULL);
	CHECK(suggest_closest("training", vcs, 4) == NULL);
	/* four letters allow one edit: "frob" is two from "job" */
	CHECK(suggest_closest("frob", (const char *const []){ "job", "jobs" }, 2) == NULL);
	CHECK_STREQ(suggest_closest("lass", (const char *const []){ "las", "fifo" }, 2), "las");
	/* a short word allows one edit only: "de" -> "dev", "d" nothing */
	CHECK_STREQ(suggest_closest("de", vcs, 4), "dev");
	CHECK(suggest_closest("x", vcs, 4) == NULL);
	CHECK(suggest_closest("", vcs, 4) == NULL);
	/* ties: the first candidate of the closest */
	CHECK_STREQ(suggest_closest("aa", tie, 3), "ab");
	CHECK(suggest_closest("prod", NULL, 0) == NULL);
}

static void
test_hint(void)
{
	static const char *const vcs[] = { "research", "prod", "dev", "infer" };
	const char *many[20];
	char names[20][16];
	struct strbuf sb = STRBUF_INIT;
	int i;

	suggest_hint(&sb, "prdo", vcs, 4, "vcs");
	CHECK_STREQ(sb.buf, " (did you mean 'prod'? vcs: research, prod, dev, infer)");
	strbuf_reset(&sb);
	suggest_hint(&sb, "zzz", vcs, 4, "vcs");
	CHECK_STREQ(sb.buf, " (vcs: research, prod, dev, infer)");
	strbuf_reset(&sb);
	suggest_hint(&sb, "prdo", vcs, 4, NULL);
	CHECK_STREQ(sb.buf, " (did you mean 'prod'?)");
	strbuf_reset(&sb);
	suggest_hint(&sb, "zzz", vcs, 4, NULL);
	CHECK_STREQ(sb.buf, "");
	suggest_hint(&sb, "zzz", vcs, 0, "vcs");
	CHECK_STREQ(sb.buf, "");
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof names[i], "v%02d", i);
		many[i] = names[i];
	}
	suggest_hint(&sb, "zzz", many, 20, "vcs");
	CHECK_STREQ(sb.buf, " (vcs: v00, v01, v02, v03, v04, v05, v06, v07, v08, "
	    "v09, v10, v11, v12, v13, v14, v15 and 4 more)");
	strbuf_release(&sb);
}

static const struct test tests[] = {
	{ "distance", test_distance },
	{ "symmetric", test_symmetric },
	{ "closest", test_closest },
	{ "hint", test_hint },
};

TEST_MAIN(tests)
