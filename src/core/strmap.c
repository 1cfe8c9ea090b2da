/*
 * strmap.c — the string -> int map of strmap.h. A flat table of (key,
 * hash, value) probed linearly from the key's home slot; the stored hash
 * skips most string compares and makes growth a re-slot without
 * rehashing. Kept at most half full, it doubles when an insert would
 * pass that. Deleting shifts the entries behind the hole back (Knuth's
 * algorithm R), so a map under alloc/release churn never fills with
 * tombstones.
 */
#include "core/strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fnv.h"
#include "core/xmalloc.h"

/* FNV-1a folded to 32 bits, so the low bits see every byte. */
static unsigned
str_hash(const char *s)
{
	uint64_t h = fnv1a64_str(s);

	return (unsigned)(h ^ (h >> 32));
}

void
strmap_init(struct strmap *m, enum strmap_keys keys)
{
	memset(m, 0, sizeof *m);
	m->keys = keys;
}

void
strmap_release(struct strmap *m)
{
	size_t i;

	if (m->keys == STRMAP_COPY)
		for (i = 0; i < m->cap; i++)
			free((char *)m->tab[i].key);
	free(m->tab);
	strmap_init(m, m->keys);
}

/* The slot holding key, or the empty slot where it would go (cap > 0). */
static size_t
slot_of(const struct strmap *m, const char *key, unsigned h)
{
	size_t mask = m->cap - 1, i = h & mask;
	const struct strmap_entry *e;

	while ((e = &m->tab[i])->key != NULL) {
		if (e->hash == h && strcmp(e->key, key) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

static void
resize(struct strmap *m, size_t cap)
{
	struct strmap_entry *old = m->tab;
	size_t oldcap = m->cap, i, j, mask = cap - 1;

	m->tab = xcalloc(cap, sizeof *m->tab);
	m->cap = cap;
	for (i = 0; i < oldcap; i++) {
		if (old[i].key == NULL)
			continue;
		/* keys are unique: the first empty slot from home is theirs */
		for (j = old[i].hash & mask; m->tab[j].key != NULL;
		    j = (j + 1) & mask)
			;
		m->tab[j] = old[i];
	}
	free(old);
}

void
strmap_reserve(struct strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 16;

	while (cap < 2 * n)
		cap *= 2;
	if (cap != m->cap)
		resize(m, cap);
}

int
strmap_get(const struct strmap *m, const char *key)
{
	const struct strmap_entry *e;

	if (m->n == 0)
		return -1;
	e = &m->tab[slot_of(m, key, str_hash(key))];
	return e->key != NULL ? e->val : -1;
}

/* The entry for key, added (with val -1) when absent; *added says which. */
static struct strmap_entry *
lookup_or_add(struct strmap *m, const char *key, bool *added)
{
	unsigned h = str_hash(key);
	struct strmap_entry *e;

	if (2 * (m->n + 1) > m->cap)
		strmap_reserve(m, m->n + 1);
	e = &m->tab[slot_of(m, key, h)];
	*added = e->key == NULL;
	if (*added) {
		e->key = m->keys == STRMAP_COPY ? xstrdup(key) : key;
		e->hash = h;
		e->val = -1;
		m->n++;
	}
	return e;
}

int
strmap_put(struct strmap *m, const char *key, int val)
{
	bool added;
	struct strmap_entry *e = lookup_or_add(m, key, &added);

	if (!added)
		return e->val;
	e->val = val;
	return -1;
}

void
strmap_set(struct strmap *m, const char *key, int val)
{
	bool added;

	lookup_or_add(m, key, &added)->val = val;
}

int
strmap_del(struct strmap *m, const char *key)
{
	size_t mask, i, j, home;
	int val;

	if (m->n == 0)
		return -1;
	mask = m->cap - 1;
	i = slot_of(m, key, str_hash(key));
	if (m->tab[i].key == NULL)
		return -1;
	val = m->tab[i].val;
	if (m->keys == STRMAP_COPY)
		free((char *)m->tab[i].key);
	/*
	 * Fill the hole with the next entry of the run that may live there:
	 * one whose home is not cyclically in (i, j].
	 */
	for (j = (i + 1) & mask; m->tab[j].key != NULL; j = (j + 1) & mask) {
		home = m->tab[j].hash & mask;
		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		m->tab[i] = m->tab[j];
		i = j;
	}
	m->tab[i].key = NULL;
	m->n--;
	return val;
}

void
strmap_rekey(struct strmap *m, const char *(*key_of)(void *arg, int val),
    void *arg)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		if (m->tab[i].key != NULL)
			m->tab[i].key = key_of(arg, m->tab[i].val);
}

bool
strmap_check(const struct strmap *m)
{
	size_t i, j, n = 0, mask;

	if (m->cap == 0)
		return m->tab == NULL && m->n == 0;
	if ((m->cap & (m->cap - 1)) != 0 || 2 * m->n > m->cap)
		return false;
	mask = m->cap - 1;
	for (i = 0; i < m->cap; i++) {
		const struct strmap_entry *e = &m->tab[i];

		if (e->key == NULL)
			continue;
		n++;
		if (e->val < 0 || e->hash != str_hash(e->key))
			return false;
		/* invariant 2, and with it uniqueness: the probe finds e here */
		for (j = e->hash & mask; j != i; j = (j + 1) & mask)
			if (m->tab[j].key == NULL ||
			    (m->tab[j].hash == e->hash &&
			    strcmp(m->tab[j].key, e->key) == 0))
				return false;
	}
	return n == m->n;
}
