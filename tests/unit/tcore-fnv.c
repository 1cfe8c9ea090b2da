/*
 * tcore-fnv.c — the 64-bit FNV-1a hash against the published test vectors
 * (fnv.h invariant 1: the values never change) and its forms against each
 * other (invariant 2).
 */
#include <stdint.h>

#include "core/fnv.h"
#include "test.h"

static void
test_vectors(void)
{
	/* from the FNV reference (isthe.com/chongo/tech/comp/fnv) */
	CHECK(fnv1a64_str("") == 0xcbf29ce484222325ULL);
	CHECK(fnv1a64_str("a") == 0xaf63dc4c8601ec8cULL);
	CHECK(fnv1a64_str("foobar") == 0x85944171f73967e8ULL);
	CHECK(fnv1a64("\0", 1) == 0xaf63bd4c8601b7dfULL);
}

static void
test_forms_agree(void)
{
	static const char *const s[] = { "", "x", "node-17", "a\xc3\xa9z",
	    "application_1506638472019_10238", NULL };
	int i;

	for (i = 0; s[i] != NULL; i++) {
		CHECK(fnv1a64_str(s[i]) == fnv1a64(s[i], strlen(s[i])));
		CHECK(fnv1a64_add_str(42, s[i]) == fnv1a64_add(42, s[i], strlen(s[i])));
		CHECK(fnv1a64(s[i], strlen(s[i])) ==
		    fnv1a64_add(FNV1A64_BASIS, s[i], strlen(s[i])));
	}
	/* continuing a hash is hashing the concatenation */
	CHECK(fnv1a64_add_str(fnv1a64_str("foo"), "bar") == fnv1a64_str("foobar"));
}

static const struct test tests[] = {
	{ "vectors", test_vectors },
	{ "forms_agree", test_forms_agree },
};

TEST_MAIN(tests)
