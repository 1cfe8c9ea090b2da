/* tcore-bitset.c — the summary-tree bitset against a plain bool array. */
#include "core/bitset.h"
#include "test.h"

static unsigned long long rng = 88172645463325252ULL;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)rng;
}

static void
test_small(void)
{
	struct bitset b;

	bitset_init(&b, 10);
	CHECK(bitset_next(&b, 0) == -1);
	bitset_set(&b, 3);
	bitset_set(&b, 9);
	CHECK(bitset_next(&b, 0) == 3);
	CHECK(bitset_next(&b, 4) == 9);
	CHECK(bitset_next(&b, 10) == -1);
	bitset_clear(&b, 3);
	CHECK(bitset_next(&b, 0) == 9);
	CHECK(b.count == 1);
	CHECK(bitset_valid(&b));
	bitset_release(&b);
}

static void
randomized(int n, int ops)
{
	struct bitset b;
	bool *ref = calloc((size_t)n, 1);
	int i, k, bad = 0;

	bitset_init(&b, n);
	for (k = 0; k < ops; k++) {
		i = (int)(xr() % (unsigned)n);
		if (xr() & 1) { bitset_set(&b, i); ref[i] = true; }
		else { bitset_clear(&b, i); ref[i] = false; }
		if ((k & 63) == 0) {
			int from = (int)(xr() % (unsigned)(n + 1)), want = -1, j;
			for (j = from; j < n; j++)
				if (ref[j]) { want = j; break; }
			if (bitset_next(&b, from) != want)
				bad++;
		}
	}
	CHECKF(bad == 0, "%d wrong next() answers at n=%d", bad, n);
	CHECK(bitset_valid(&b));
	bitset_release(&b);
	free(ref);
}

static void test_random_64(void) { randomized(64, 20000); }
static void test_random_4097(void) { randomized(4097, 100000); }
static void test_random_300000(void) { randomized(300000, 200000); }

static void
test_dense_walk(void)
{
	struct bitset b;
	int i, n = 70000, seen = 0;

	bitset_init(&b, n);
	for (i = 0; i < n; i += 7)
		bitset_set(&b, i);
	for (i = bitset_next(&b, 0); i >= 0; i = bitset_next(&b, i + 1))
		seen++;
	CHECK_INTEQ(seen, (n + 6) / 7);
	CHECK_INTEQ(b.count, seen);
	bitset_release(&b);
}

static const struct test tests[] = {
	{ "small", test_small },
	{ "random-64", test_random_64 },
	{ "random-4097", test_random_4097 },
	{ "random-300000", test_random_300000 },
	{ "dense-walk", test_dense_walk },
};
TEST_MAIN(tests)
