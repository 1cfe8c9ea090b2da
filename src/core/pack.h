/*
 * pack.h — portable binary encoding for state that outlives the process
 * (the store's opaque blobs): fixed-width little-endian integers and
 * IEEE-754 doubles as their 64-bit patterns, whatever the host.
 *
 * Writing appends to a strbuf (pack_*). Reading goes through a cursor
 * (struct unpack) over bytes that may be truncated or corrupt: a read past
 * the end returns 0 and marks the cursor failed, and so does unpack_fail
 * for a value the caller finds out of range; the first failure is kept,
 * later reads return 0, and unpack_finish says whether everything was read
 * cleanly and nothing is left over. Callers check once at the end (or
 * before using a count to allocate: unpack_count).
 *
 * A sealed encoding ends with the CRC-32 (IEEE 802.3, as zlib's crc32) of
 * all its bytes before: pack_seal appends it, unpack_unseal checks it first
 * and hides it from the reads, so a bit flipped anywhere is refused before
 * any value is believed.
 *
 * Ownership: a cursor borrows its bytes; they must outlive it.
 *
 * Invariants:
 *  1. unpack_X(pack_X(v)) == v bit for bit (doubles included: NaN payloads,
 *     -0, infinities).
 *  2. Once failed, a cursor stays failed and its message names the first
 *     problem and its byte offset.
 */
#ifndef CELLAR_PACK_H
#define CELLAR_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

void	 pack_u8(struct strbuf *sb, unsigned v);
void	 pack_u32(struct strbuf *sb, uint32_t v);
void	 pack_i32(struct strbuf *sb, int32_t v);
void	 pack_u64(struct strbuf *sb, uint64_t v);
void	 pack_i64(struct strbuf *sb, int64_t v);
void	 pack_f64(struct strbuf *sb, double v);

struct unpack {
	const unsigned char	*p;
	size_t			 len;
	size_t			 off;
	bool			 failed;
	char			 why[160];
};

void	 unpack_init(struct unpack *u, const void *buf, size_t len);
unsigned unpack_u8(struct unpack *u);
uint32_t unpack_u32(struct unpack *u);
int32_t	 unpack_i32(struct unpack *u);
uint64_t unpack_u64(struct unpack *u);
int64_t	 unpack_i64(struct unpack *u);
double	 unpack_f64(struct unpack *u);
/*
 * A count of items of at least `size` bytes each that follow: an i32 in
 * 0..max that the remaining bytes can hold; else 0 and the cursor fails.
 * Safe to allocate by.
 */
int	 unpack_count(struct unpack *u, int max, size_t size, const char *what);
/* Mark the cursor failed (if not already) with a message; returns -1. */
int	 unpack_fail(struct unpack *u, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/* CRC-32 of n bytes, continuing from crc (0 to start). */
uint32_t crc32_update(uint32_t crc, const void *buf, size_t n);
/* Append the CRC-32 of sb's bytes from offset start on. */
void	 pack_seal(struct strbuf *sb, size_t start);
/* Check and drop the trailing CRC-32 of a sealed encoding (fails the cursor). */
int	 unpack_unseal(struct unpack *u);
/* Bytes not read yet. */
size_t	 unpack_left(const struct unpack *u);
/*
 * 0 when every read succeeded and all bytes were consumed; else -1 with
 * "WHAT: MESSAGE" in why.
 */
int	 unpack_finish(struct unpack *u, const char *what, char *why, size_t len);

#endif
