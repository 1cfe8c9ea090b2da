/*
 * tcore-strmap.c — the string map against its contract (strmap.h): misses,
 * growth, many keys, put versus set, deletion by backward shift (checked
 * against a plain array as the model under random churn), borrowed and
 * copied keys, borrowed keys whose array moved (strmap_rekey), and
 * strmap_check after every change.
 */
#include <stdio.h>

#include "core/strmap.h"
#include "core/xmalloc.h"
#include "test.h"

static void
test_empty_and_miss(void)
{
	struct strmap m = STRMAP_INIT(STRMAP_COPY);

	CHECK_INTEQ(strmap_get(&m, "a"), -1);
	CHECK_INTEQ(strmap_del(&m, "a"), -1);
	CHECK_INTEQ(strmap_count(&m), 0);
	CHECK(strmap_check(&m));
	CHECK_INTEQ(strmap_put(&m, "a", 7), -1);
	CHECK_INTEQ(strmap_get(&m, "a"), 7);
	CHECK_INTEQ(strmap_get(&m, "b"), -1);
	CHECK_INTEQ(strmap_get(&m, ""), -1);
	CHECK_INTEQ(strmap_get(&m, "aa"), -1);
	CHECK(strmap_check(&m));
	strmap_release(&m);
	CHECK_INTEQ(strmap_get(&m, "a"), -1);
	CHECK(m.keys == STRMAP_COPY && strmap_check(&m));
}

static void
test_put_set(void)
{
	struct strmap m;

	strmap_init(&m, STRMAP_COPY);
	CHECK_INTEQ(strmap_put(&m, "x", 1), -1);
	CHECK_INTEQ(strmap_put(&m, "x", 2), 1);	/* put keeps the first */
	CHECK_INTEQ(strmap_get(&m, "x"), 1);
	strmap_set(&m, "x", 3);			/* set replaces */
	CHECK_INTEQ(strmap_get(&m, "x"), 3);
	strmap_set(&m, "", 0);			/* the empty key is a key */
	CHECK_INTEQ(strmap_get(&m, ""), 0);
	CHECK_INTEQ(strmap_count(&m), 2);
	CHECK(strmap_check(&m));
	strmap_release(&m);
}

/* Growth keeps every key; the table doubles and stays at most half full. */
static void
test_growth_many(void)
{
	struct strmap m = STRMAP_INIT(STRMAP_COPY);
	char k[32];
	size_t cap = 0, grows = 0;
	int i, n = test_long ? 1000000 : 100000, bad = 0;

	for (i = 0; i < n; i++) {
		snprintf(k, sizeof k, "job-%d", i);
		CHECK_INTEQ(strmap_put(&m, k, i), -1);
		if (m.cap != cap) {
			grows++;
			cap = m.cap;
			CHECK(strmap_check(&m));
		}
	}
	CHECK_INTEQ(strmap_count(&m), n);
	CHECK(2 * m.n <= m.cap && m.cap < 4 * (size_t)n);
	CHECK(grows > 10);
	for (i = 0; i < n; i++) {
		snprintf(k, sizeof k, "job-%d", i);
		bad += strmap_get(&m, k) != i;
		snprintf(k, sizeof k, "job-%d.", i);
		bad += strmap_get(&m, k) != -1;
	}
	CHECK_INTEQ(bad, 0);
	CHECK(strmap_check(&m));
	strmap_release(&m);
}

static void
test_reserve(void)
{
	struct strmap m = STRMAP_INIT(STRMAP_BORROW);
	static const char *const keys[] = { "a", "b", "c", "d", "e", "f",
	    "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s",
	    "t", "u", "v", "w", "x", "y", "z", "aa", "bb", "cc", "dd" };
	size_t i, n = sizeof keys / sizeof keys[0], cap;

	strmap_reserve(&m, n);
	cap = m.cap;
	CHECK(cap >= 2 * n);
	for (i = 0; i < n; i++)
		strmap_put(&m, keys[i], (int)i);
	CHECK_INTEQ(m.cap, cap);		/* no growth after a reserve */
	for (i = 0; i < n; i++)
		CHECK(m.keys == STRMAP_BORROW && strmap_get(&m, keys[i]) == (int)i);
	strmap_reserve(&m, 1);			/* never shrinks */
	CHECK_INTEQ(m.cap, cap);
	CHECK(strmap_check(&m));
	strmap_release(&m);
}

/* Borrowed keys are the caller's pointers; copied ones are not. */
static void
test_borrow_copy(void)
{
	struct strmap b = STRMAP_INIT(STRMAP_BORROW);
	struct strmap c = STRMAP_INIT(STRMAP_COPY);
	char key[8] = "node1";
	size_t i;

	strmap_put(&b, key, 1);
	strmap_put(&c, key, 1);
	for (i = 0; i < b.cap; i++)
		if (b.tab[i].key != NULL)
			CHECK(b.tab[i].key == key);
	for (i = 0; i < c.cap; i++)
		if (c.tab[i].key != NULL)
			CHECK(c.tab[i].key != key);
	key[4] = '2';		/* the copy does not follow the caller's buffer */
	CHECK_INTEQ(strmap_get(&c, "node1"), 1);
	CHECK_INTEQ(strmap_get(&c, "node2"), -1);
	strmap_release(&b);
	strmap_release(&c);
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned
rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/*
 * Random puts, sets and deletes over a small key space against an array
 * model: deletion keeps every other key findable (invariant 2), and the
 * table does not grow while the number of keys stays bounded.
 */
static void
test_delete_churn(void)
{
	enum { NKEYS = 600 };
	struct strmap m = STRMAP_INIT(STRMAP_COPY);
	int model[NKEYS], i, k, ops = test_long ? 2000000 : 200000, bad = 0;
	size_t n = 0, maxcap = 0;
	char key[32];

	for (i = 0; i < NKEYS; i++)
		model[i] = -1;
	for (i = 0; i < ops; i++) {
		k = (int)rnd(NKEYS);
		snprintf(key, sizeof key, "k%d", k);
		switch (rnd(3)) {
		case 0:
			bad += strmap_put(&m, key, i) != model[k];
			if (model[k] < 0) {
				model[k] = i;
				n++;
			}
			break;
		case 1:
			if (model[k] < 0)
				n++;
			strmap_set(&m, key, i);
			model[k] = i;
			break;
		default:
			bad += strmap_del(&m, key) != model[k];
			if (model[k] >= 0)
				n--;
			model[k] = -1;
			break;
		}
		if (i % 997 == 0 && !strmap_check(&m))
			bad++;
		if (m.cap > maxcap)
			maxcap = m.cap;
	}
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(strmap_count(&m), n);
	CHECK(maxcap <= 2048);		/* 600 keys at most: no tombstone growth */
	for (i = 0; i < NKEYS; i++) {
		snprintf(key, sizeof key, "k%d", i);
		bad += strmap_get(&m, key) != model[i];
	}
	CHECK_INTEQ(bad, 0);
	CHECK(strmap_check(&m));
	/* delete everything: an empty map again */
	for (i = 0; i < NKEYS; i++) {
		snprintf(key, sizeof key, "k%d", i);
		strmap_del(&m, key);
	}
	CHECK_INTEQ(strmap_count(&m), 0);
	CHECK(strmap_check(&m));
	strmap_release(&m);
}

/* Deleting from the middle of a wrapped probe run keeps the run intact. */
static void
test_delete_wrap(void)
{
	struct strmap m = STRMAP_INIT(STRMAP_BORROW);
	static char keys[8][16];
	int i, j, bad = 0;

	strmap_reserve(&m, 8);		/* a small table: long, wrapping runs */
	for (i = 0; i < 8; i++) {
		snprintf(keys[i], sizeof keys[i], "w%d", i);
		strmap_put(&m, keys[i], i);
	}
	for (i = 0; i < 8; i++) {
		CHECK_INTEQ(strmap_del(&m, keys[i]), i);
		for (j = i + 1; j < 8; j++)
			bad += strmap_get(&m, keys[j]) != j;
		bad += !strmap_check(&m);
	}
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(strmap_count(&m), 0);
	strmap_release(&m);
}

struct rec_ {
	char	name[16];
};

static const char *
rec_name(void *arg, int i)
{
	return ((struct rec_ *)arg)[i].name;
}

/*
 * Borrowed keys inside an array that moves: strmap_rekey points them at
 * the copies; the old array is scribbled over and freed first, so a key
 * left behind would miss (or be caught by ASan).
 */
static void
test_rekey(void)
{
	enum { N = 300 };
	struct strmap m = STRMAP_INIT(STRMAP_BORROW);
	struct rec_ *a = xcalloc(N, sizeof *a), *b;
	int i, bad = 0;
	size_t j;

	for (i = 0; i < N; i++) {
		snprintf(a[i].name, sizeof a[i].name, "job-%d", i);
		strmap_put(&m, a[i].name, i);
	}
	strmap_del(&m, "job-7");
	b = xcalloc(N, sizeof *b);
	memcpy(b, a, N * sizeof *a);
	memset(a, 'x', N * sizeof *a);
	free(a);
	strmap_rekey(&m, rec_name, b);
	for (j = 0; j < m.cap; j++)
		if (m.tab[j].key != NULL)
			bad += m.tab[j].key != b[m.tab[j].val].name;
	for (i = 0; i < N; i++)
		bad += strmap_get(&m, b[i].name) != (i == 7 ? -1 : i);
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(strmap_count(&m), N - 1);
	CHECK(strmap_check(&m));
	strmap_release(&m);
	free(b);
}

static const struct test tests[] = {
	{ "empty_and_miss", test_empty_and_miss },
	{ "put_set", test_put_set },
	{ "growth_many", test_growth_many },
	{ "reserve", test_reserve },
	{ "borrow_copy", test_borrow_copy },
	{ "delete_churn", test_delete_churn },
	{ "delete_wrap", test_delete_wrap },
	{ "rekey", test_rekey },
};

TEST_MAIN(tests)
