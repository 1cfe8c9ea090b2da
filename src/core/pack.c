/*
 * pack.c — little-endian fixed-width encoding and a failing-safe reader.
 * See pack.h. Byte order is spelled out with shifts, so the code is the
 * same on every host; doubles travel as their bit patterns.
 */
#include "core/pack.h"

#include <stdarg.h>
#include <string.h>

#include "core/crc32-tab.h"

static void
put(struct strbuf *sb, uint64_t v, int n)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	strbuf_add(sb, b, (size_t)n);
}

void
pack_u8(struct strbuf *sb, unsigned v)
{
	put(sb, v & 0xff, 1);
}

void
pack_u32(struct strbuf *sb, uint32_t v)
{
	put(sb, v, 4);
}

void
pack_i32(struct strbuf *sb, int32_t v)
{
	put(sb, (uint32_t)v, 4);
}

void
pack_u64(struct strbuf *sb, uint64_t v)
{
	put(sb, v, 8);
}

void
pack_i64(struct strbuf *sb, int64_t v)
{
	put(sb, (uint64_t)v, 8);
}

void
pack_f64(struct strbuf *sb, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	put(sb, bits, 8);
}

void
unpack_init(struct unpack *u, const void *buf, size_t len)
{
	memset(u, 0, sizeof *u);
	u->p = buf;
	u->len = buf != NULL ? len : 0;
}

int
unpack_fail(struct unpack *u, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (u->failed)
		return -1;
	u->failed = true;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	bufprintf(u->why, sizeof u->why, "%s at byte %zu", sb.buf, u->off);
	strbuf_release(&sb);
	return -1;
}

static uint64_t
get(struct unpack *u, int n)
{
	uint64_t v = 0;
	int i;

	if (u->failed)
		return 0;
	if (u->len - u->off < (size_t)n) {
		unpack_fail(u, "truncated: %zu bytes left, %d needed", u->len - u->off, n);
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (uint64_t)u->p[u->off + (size_t)i] << (8 * i);
	u->off += (size_t)n;
	return v;
}

unsigned
unpack_u8(struct unpack *u)
{
	return (unsigned)get(u, 1);
}

uint32_t
unpack_u32(struct unpack *u)
{
	return (uint32_t)get(u, 4);
}

int32_t
unpack_i32(struct unpack *u)
{
	uint32_t v = (uint32_t)get(u, 4);
	int32_t r;

	memcpy(&r, &v, sizeof r);	/* two's complement, no overflow */
	return r;
}

uint64_t
unpack_u64(struct unpack *u)
{
	return get(u, 8);
}

int64_t
unpack_i64(struct unpack *u)
{
	uint64_t v = get(u, 8);
	int64_t r;

	memcpy(&r, &v, sizeof r);
	return r;
}

double
unpack_f64(struct unpack *u)
{
	uint64_t v = get(u, 8);
	double d;

	memcpy(&d, &v, sizeof d);
	return d;
}

int
unpack_count(struct unpack *u, int max, size_t size, const char *what)
{
	int32_t n = unpack_i32(u);

	if (u->failed)
		return 0;
	if (n < 0 || n > max) {
		unpack_fail(u, "%s count %d is out of range 0..%d", what, (int)n, max);
		return 0;
	}
	if (size > 0 && (size_t)n > (u->len - u->off) / size) {
		unpack_fail(u, "truncated: %d %s of %zu bytes do not fit in %zu bytes",
		    (int)n, what, size, u->len - u->off);
		return 0;
	}
	return (int)n;
}

uint32_t
crc32_update(uint32_t crc, const void *buf, size_t n)
{
	/* Slice-by-8: eight bytes per step through eight tables (bytewise,
	   sealing took 7% of a replay recorded in the store: event blocks,
	   job and run blobs). The eight bytes are read one by one, so the
	   code is the same on every host and alignment does not matter. */
	const unsigned char *p = buf;
	uint32_t lo, hi;

	crc = ~crc;
	for (; n >= 8; n -= 8, p += 8) {
		lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
		    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
		    (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
		crc = crc32_tab[7][lo & 0xff] ^ crc32_tab[6][(lo >> 8) & 0xff] ^
		    crc32_tab[5][(lo >> 16) & 0xff] ^ crc32_tab[4][lo >> 24] ^
		    crc32_tab[3][hi & 0xff] ^ crc32_tab[2][(hi >> 8) & 0xff] ^
		    crc32_tab[1][(hi >> 16) & 0xff] ^ crc32_tab[0][hi >> 24];
	}
	for (; n > 0; n--, p++)
		crc = (crc >> 8) ^ crc32_tab[0][(crc ^ *p) & 0xff];
	return ~crc;
}

void
pack_seal(struct strbuf *sb, size_t start)
{
	pack_u32(sb, crc32_update(0, sb->buf + start, sb->len - start));
}

int
unpack_unseal(struct unpack *u)
{
	uint32_t want, got = 0;
	size_t body;
	int i;

	if (u->failed)
		return -1;
	if (u->len - u->off < 4)
		return unpack_fail(u, "truncated: no checksum");
	body = u->len - 4;
	for (i = 0; i < 4; i++)
		got |= (uint32_t)u->p[body + (size_t)i] << (8 * i);
	want = crc32_update(0, u->p + u->off, body - u->off);
	if (got != want)
		return unpack_fail(u, "checksum %08x, the bytes say %08x (corrupt or "
		    "truncated)", (unsigned)got, (unsigned)want);
	u->len = body;
	return 0;
}

size_t
unpack_left(const struct unpack *u)
{
	return u->len - u->off;
}

int
unpack_finish(struct unpack *u, const char *what, char *why, size_t len)
{
	if (!u->failed && u->off != u->len)
		unpack_fail(u, "%zu bytes left over", u->len - u->off);
	if (!u->failed)
		return 0;
	bufprintf(why, len, "%s: %s", what, u->why);
	return -1;
}
