/*
 * tcore-pack.c — the portable encoding: exact bytes (little-endian, IEEE-754
 * bit patterns), round trips bit for bit, and a reader that fails cleanly
 * and stays failed on truncated, oversized or left-over input.
 */
#include <math.h>
#include <stdint.h>

#include "core/crc32-tab.h"
#include "core/pack.h"
#include "test.h"

static void
test_bytes(void)
{
	struct strbuf sb = STRBUF_INIT;
	static const unsigned char want[] = {
		0xab,
		0x04, 0x03, 0x02, 0x01,
		0xff, 0xff, 0xff, 0xff,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x3f,	/* 1.0 */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80,	/* -0.0 */
	};

	pack_u8(&sb, 0x1ab);		/* only the low byte */
	pack_u32(&sb, 0x01020304);
	pack_i32(&sb, -1);
	pack_u64(&sb, 0x0102030405060708ULL);
	pack_i64(&sb, -2);
	pack_f64(&sb, 1.0);
	pack_f64(&sb, -0.0);
	CHECK_INTEQ(sb.len, sizeof want);
	CHECK(sb.len == sizeof want && memcmp(sb.buf, want, sizeof want) == 0);
	strbuf_release(&sb);
}

static void
test_round_trip(void)
{
	static const double d[] = { 0, -0.0, 1.5, -3e300, 5e-324, 1.0 / 3 };
	struct strbuf sb = STRBUF_INIT;
	struct unpack u;
	uint64_t nanbits = 0x7ff8000000000123ULL, got;
	double nan_in, nan_out, x;
	char why[200];
	size_t i;

	memcpy(&nan_in, &nanbits, sizeof nan_in);
	for (i = 0; i < sizeof d / sizeof d[0]; i++)
		pack_f64(&sb, d[i]);
	pack_f64(&sb, INFINITY);
	pack_f64(&sb, -INFINITY);
	pack_f64(&sb, nan_in);
	pack_i32(&sb, INT32_MIN);
	pack_i32(&sb, INT32_MAX);
	pack_i64(&sb, INT64_MIN);
	pack_u64(&sb, UINT64_MAX);
	pack_u32(&sb, 0xdeadbeef);
	unpack_init(&u, sb.buf, sb.len);
	for (i = 0; i < sizeof d / sizeof d[0]; i++) {
		x = unpack_f64(&u);
		CHECKF(memcmp(&x, &d[i], sizeof x) == 0, "double %zu: %g", i, x);
	}
	CHECK(unpack_f64(&u) == INFINITY);
	CHECK(unpack_f64(&u) == -INFINITY);
	nan_out = unpack_f64(&u);
	memcpy(&got, &nan_out, sizeof got);
	CHECKF(got == nanbits, "nan bits %llx", (unsigned long long)got);
	CHECK(unpack_i32(&u) == INT32_MIN);
	CHECK(unpack_i32(&u) == INT32_MAX);
	CHECK(unpack_i64(&u) == INT64_MIN);
	CHECK(unpack_u64(&u) == UINT64_MAX);
	CHECK(unpack_u32(&u) == 0xdeadbeef);
	CHECK_INTEQ(unpack_left(&u), 0);
	CHECKF(unpack_finish(&u, "blob", why, sizeof why) == 0, "%s", why);
	strbuf_release(&sb);
}

/* Every truncation of a valid encoding fails, and says where. */
static void
test_truncated(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct unpack u;
	char why[200];
	size_t cut;
	int fails = 0;

	pack_u8(&sb, 1);
	pack_i32(&sb, 7);
	pack_f64(&sb, 2.5);
	pack_u64(&sb, 9);
	for (cut = 0; cut < sb.len; cut++) {
		unpack_init(&u, sb.buf, cut);
		(void)unpack_u8(&u);
		(void)unpack_i32(&u);
		(void)unpack_f64(&u);
		(void)unpack_u64(&u);
		if (unpack_finish(&u, "blob", why, sizeof why) < 0 &&
		    strstr(why, "blob: truncated") == why)
			fails++;
		else
			CHECKF(0, "cut at %zu: '%s'", cut, why);
	}
	CHECK_INTEQ(fails, sb.len);
	/* the first failure sticks; later reads give 0 */
	unpack_init(&u, sb.buf, 3);
	CHECK(unpack_u8(&u) == 1);
	CHECK(unpack_i32(&u) == 0);
	CHECK(u.failed);
	CHECK(unpack_u8(&u) == 0);	/* a byte is left, but the cursor failed */
	CHECK(unpack_finish(&u, "x", why, sizeof why) < 0);
	CHECKF(strcmp(why, "x: truncated: 2 bytes left, 4 needed at byte 1") == 0, "%s", why);
	/* NULL input is an empty input */
	unpack_init(&u, NULL, 5);
	CHECK(unpack_u8(&u) == 0 && u.failed);
	strbuf_release(&sb);
}

static void
test_counts_and_leftovers(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct unpack u;
	char why[200];

	pack_i32(&sb, 3);
	pack_f64(&sb, 1);
	pack_f64(&sb, 2);
	pack_f64(&sb, 3);
	unpack_init(&u, sb.buf, sb.len);
	CHECK(unpack_count(&u, 10, 8, "values") == 3);
	/* too many for the bytes left: would let garbage drive an allocation */
	unpack_init(&u, sb.buf, sb.len - 1);
	CHECK(unpack_count(&u, 10, 8, "values") == 0);
	CHECK(unpack_finish(&u, "b", why, sizeof why) < 0);
	CHECKF(strstr(why, "3 values of 8 bytes do not fit") != NULL, "%s", why);
	/* above the caller's maximum */
	unpack_init(&u, sb.buf, sb.len);
	CHECK(unpack_count(&u, 2, 8, "values") == 0 && u.failed);
	CHECKF(strstr(u.why, "values count 3 is out of range 0..2") != NULL, "%s", u.why);
	strbuf_reset(&sb);
	pack_i32(&sb, -1);
	unpack_init(&u, sb.buf, sb.len);
	CHECK(unpack_count(&u, 100, 1, "items") == 0 && u.failed);
	/* bytes left over are garbage too */
	strbuf_reset(&sb);
	pack_u32(&sb, 1);
	pack_u8(&sb, 0);
	unpack_init(&u, sb.buf, sb.len);
	(void)unpack_u32(&u);
	CHECK(unpack_finish(&u, "b", why, sizeof why) < 0);
	CHECK_STREQ(why, "b: 1 bytes left over at byte 4");
	/* a caller's own verdict */
	unpack_init(&u, sb.buf, sb.len);
	CHECK(unpack_fail(&u, "kind %d is unknown", 9) == -1);
	CHECK(unpack_fail(&u, "second") == -1);
	CHECK(unpack_finish(&u, "b", why, sizeof why) < 0);
	CHECK_STREQ(why, "b: kind 9 is unknown at byte 0");
	strbuf_release(&sb);
}

/* The bitwise definition, for checking the tables and the sliced loop. */
static uint32_t
crc_bitwise(uint32_t crc, const unsigned char *p, size_t n)
{
	int k;

	crc = ~crc;
	while (n-- > 0) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1)));
	}
	return ~crc;
}

static void
test_crc(void)
{
	unsigned char buf[300], z[8] = { 0 };
	uint32_t x = 12345, want, got;
	int bad = 0, i, k;
	size_t off, n;

	/* every table entry: byte i then k zero bytes, from register 0 */
	for (k = 0; k < 8; k++)
		for (i = 0; i < 256; i++) {
			unsigned char b = (unsigned char)i;
			uint32_t c = ~crc_bitwise(~0u, &b, 1);	/* raw register */

			c = ~crc_bitwise(~c, z, (size_t)k);
			bad += crc32_tab[k][i] != c;
		}
	CHECK_INTEQ(bad, 0);
	/* the sliced loop against the definition: every length to 64 at
	   every alignment, longer ones, and continued CRCs */
	for (i = 0; i < (int)sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (unsigned char)(x >> 16);
	}
	for (off = 0; off < 8; off++)
		for (n = 0; n <= 64; n++)
			bad += crc32_update(0, buf + off, n) != crc_bitwise(0, buf + off, n);
	for (n = 65; n + 8 <= sizeof buf; n += 7) {
		want = crc_bitwise(0, buf + 3, n);
		got = crc32_update(crc32_update(0, buf + 3, n / 3), buf + 3 + n / 3,
		    n - n / 3);
		bad += crc32_update(0, buf + 3, n) != want || got != want;
	}
	CHECK_INTEQ(bad, 0);
}

static void
test_seal(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct unpack u;
	char why[200];
	size_t i, bit;
	int refused = 0;

	/* the standard check value */
	CHECK(crc32_update(0, "123456789", 9) == 0xcbf43926);
	CHECK(crc32_update(crc32_update(0, "1234", 4), "56789", 5) == 0xcbf43926);
	pack_u8(&sb, 1);
	pack_f64(&sb, 3.25);
	pack_i32(&sb, -7);
	pack_seal(&sb, 0);
	unpack_init(&u, sb.buf, sb.len);
	CHECK(unpack_unseal(&u) == 0);
	CHECK(unpack_u8(&u) == 1);
	CHECK(unpack_f64(&u) == 3.25);
	CHECK(unpack_i32(&u) == -7);
	CHECKF(unpack_finish(&u, "blob", why, sizeof why) == 0, "%s", why);
	/* every single bit flipped, anywhere, is refused before any read */
	for (i = 0; i < sb.len; i++)
		for (bit = 0; bit < 8; bit++) {
			sb.buf[i] ^= (char)(1u << bit);
			unpack_init(&u, sb.buf, sb.len);
			refused += unpack_unseal(&u) < 0 && strstr(u.why, "checksum") != NULL;
			sb.buf[i] ^= (char)(1u << bit);
		}
	CHECK_INTEQ(refused, sb.len * 8);
	/* and every truncation */
	for (refused = 0, i = 0; i < sb.len; i++) {
		unpack_init(&u, sb.buf, i);
		refused += unpack_unseal(&u) < 0;
	}
	CHECK_INTEQ(refused, sb.len);
	strbuf_release(&sb);
}

static const struct test tests[] = {
	{ "crc", test_crc },
	{ "seal", test_seal },
	{ "bytes", test_bytes },
	{ "round-trip", test_round_trip },
	{ "truncated", test_truncated },
	{ "counts-and-leftovers", test_counts_and_leftovers },
};

TEST_MAIN(tests)
