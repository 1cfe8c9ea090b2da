/*
 * strmap.h — the program's one string -> int map (after git's strmap.h and
 * Redis's dict.c): open addressing with linear probing, deletion by
 * backward shift (no tombstones), so lookups stay short under churn. Used
 * for spec names and YAML anchors, the engine's job names and a trace's
 * job ids and VC names.
 *
 * Ownership: a map made with STRMAP_COPY copies every key and frees its
 * copies on delete and release; one made with STRMAP_BORROW keeps the
 * caller's pointers, which must stay valid and unchanged while the key is
 * in the map. Values are plain ints. strmap_release leaves an empty map of
 * the same kind, ready for reuse.
 *
 * Invariants (strmap_check verifies every one):
 *  1. cap is 0 (tab NULL) or a power of two, and 2 * n <= cap: at least
 *     half the slots are empty, so every probe ends.
 *  2. Each key sits in the run of occupied slots that starts at its home
 *     slot (hash & (cap - 1)): no empty slot lies between the two.
 *  3. Keys are unique, each stored hash is the hash of its key, every
 *     value is >= 0, and n counts the occupied slots.
 */
#ifndef CELLAR_STRMAP_H
#define CELLAR_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

enum strmap_keys {
	STRMAP_COPY,		/* keys are copied and owned (a zeroed map) */
	STRMAP_BORROW,		/* keys are the caller's */
};

struct strmap_entry {
	const char	*key;		/* NULL: an empty slot */
	unsigned	 hash;
	int		 val;
};

struct strmap {
	struct strmap_entry	*tab;
	size_t			 cap;	/* 0 or a power of two */
	size_t			 n;	/* keys present */
	enum strmap_keys	 keys;
};

#define STRMAP_INIT(keys) { NULL, 0, 0, (keys) }

void	strmap_init(struct strmap *m, enum strmap_keys keys);
/* Frees the table (and the keys of a STRMAP_COPY map). */
void	strmap_release(struct strmap *m);
/* Room for n keys in all without growing (a hint; never shrinks). */
void	strmap_reserve(struct strmap *m, size_t n);

/* The value for key, or -1 when key is absent. */
int	strmap_get(const struct strmap *m, const char *key);
/*
 * Insert key -> val (val >= 0) unless key is present. Returns the value
 * already stored for key, or -1 when it inserted.
 */
int	strmap_put(struct strmap *m, const char *key, int val);
/* Insert or replace key -> val (val >= 0). */
void	strmap_set(struct strmap *m, const char *key, int val);
/* Remove key. Returns its value, or -1 when it was absent. */
int	strmap_del(struct strmap *m, const char *key);

/*
 * For a STRMAP_BORROW map whose keys' storage moved (an array of records
 * that was reallocated): each key becomes key_of(arg, its value), which
 * must be an equal string. No rehashing, no allocation: O(cap).
 */
void	strmap_rekey(struct strmap *m, const char *(*key_of)(void *arg, int val),
	    void *arg);

static inline size_t
strmap_count(const struct strmap *m)
{
	return m->n;
}

/* True when every invariant above holds (for asserts and tests). */
bool	strmap_check(const struct strmap *m);

#endif
