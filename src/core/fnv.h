/*
 * fnv.h — the 64-bit FNV-1a hash, the program's one hash of bytes and
 * strings: a spec's content hash, the string map's slots, a trace's
 * sampling by job name, a trace job's model class (model_hash). Header
 * only (inline: it sits on hot paths).
 *
 * Invariants:
 *  1. The values never change: a spec's stored hash and which jobs a seed
 *     samples depend on them. A caller that needs another mix folds the
 *     result itself, or starts from its own basis with the _add forms.
 *  2. fnv1a64(p, n) == fnv1a64_add(FNV1A64_BASIS, p, n), and
 *     fnv1a64_add_str(h, s) == fnv1a64_add(h, s, strlen(s)).
 */
#ifndef CELLAR_FNV_H
#define CELLAR_FNV_H

#include <stddef.h>
#include <stdint.h>

#define FNV1A64_BASIS	0xcbf29ce484222325ULL
#define FNV1A64_PRIME	0x100000001b3ULL

/* Continue hash h over n bytes at p. */
static inline uint64_t
fnv1a64_add(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= s[i];
		h *= FNV1A64_PRIME;
	}
	return h;
}

/* Continue hash h over the string s (without its NUL). */
static inline uint64_t
fnv1a64_add_str(uint64_t h, const char *s)
{
	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= FNV1A64_PRIME;
	}
	return h;
}

static inline uint64_t
fnv1a64(const void *p, size_t n)
{
	return fnv1a64_add(FNV1A64_BASIS, p, n);
}

static inline uint64_t
fnv1a64_str(const char *s)
{
	return fnv1a64_add_str(FNV1A64_BASIS, s);
}

#endif
