/*
 * spec-util.c — the small pieces the spec loader shares between its YAML
 * reader (spec-yaml.c) and its validator (spec.c): diagnostics, a string
 * index with open addressing, and the FNV-1a hash of a spec's text.
 *
 * Diagnostics are formatted once, when they are found, so callers (the
 * console, the batch mode, the unit tests) only ever print or match text.
 */
#include "spec/spec-int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"

void
spec_diags_init(struct spec_diags *d)
{
	memset(d, 0, sizeof *d);
}

void
spec_diags_release(struct spec_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->v[i].text);
	free(d->v);
	spec_diags_init(d);
}

void
spec_diag_add(struct spec_diags *d, enum spec_severity sev, const char *file,
    int line, int col, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warning", "note" };
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (sev == SPEC_ERROR)
		d->errors++;
	else if (sev == SPEC_WARNING)
		d->warnings++;
	/* A hostile file could produce millions; keep the first ones. */
	if (d->n >= SPEC_MAX_DIAGS) {
		d->dropped++;
		return;
	}
	if (line > 0)
		strbuf_addf(&sb, "%s:%d:%d: %s: ", file, line, col, names[sev]);
	else
		strbuf_addf(&sb, "%s: %s: ", file, names[sev]);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	XGROW(d->v, d->cap, d->n + 1);
	d->v[d->n].severity = sev;
	d->v[d->n].text = strbuf_detach(&sb, NULL);
	d->n++;
}

unsigned long long
spec_fnv1a(const void *p, size_t len)
{
	const unsigned char *s = p;
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static unsigned
str_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

void
strmap_init(struct strmap *m)
{
	memset(m, 0, sizeof *m);
}

void
strmap_release(struct strmap *m)
{
	free(m->tab);
	free(m->pool);
	strmap_init(m);
}

static struct strmap_ent *
find_slot(const struct strmap *m, const char *key, unsigned h)
{
	size_t i = h & (m->cap - 1);

	for (;;) {
		struct strmap_ent *e = &m->tab[i];

		if (e->val < 0 ||
		    (e->hash == h && strcmp(m->pool + e->off, key) == 0))
			return e;
		i = (i + 1) & (m->cap - 1);
	}
}

static void
rehash(struct strmap *m)
{
	struct strmap_ent *old = m->tab;
	size_t oldcap = m->cap, i;

	m->cap = oldcap ? oldcap * 2 : 16;
	m->tab = xreallocarray(NULL, m->cap, sizeof *m->tab);
	for (i = 0; i < m->cap; i++)
		m->tab[i].val = -1;
	for (i = 0; i < oldcap; i++) {
		struct strmap_ent *e;

		if (old[i].val < 0)
			continue;
		e = find_slot(m, m->pool + old[i].off, old[i].hash);
		*e = old[i];
	}
	free(old);
}

int
strmap_get(const struct strmap *m, const char *key)
{
	if (m->cap == 0)
		return -1;
	return find_slot(m, key, str_hash(key))->val;
}

static struct strmap_ent *
lookup_or_add(struct strmap *m, const char *key, bool *added)
{
	unsigned h = str_hash(key);
	struct strmap_ent *e;
	size_t len;

	/* Keep the load factor under one half. */
	if ((m->n + 1) * 2 > m->cap)
		rehash(m);
	e = find_slot(m, key, h);
	*added = e->val < 0;
	if (*added) {
		len = strlen(key);
		XGROW(m->pool, m->pool_cap, m->pool_len + len + 1);
		memcpy(m->pool + m->pool_len, key, len + 1);
		e->off = m->pool_len;
		e->hash = h;
		m->pool_len += len + 1;
		m->n++;
	}
	return e;
}

int
strmap_put(struct strmap *m, const char *key, int val)
{
	bool added;
	struct strmap_ent *e = lookup_or_add(m, key, &added);

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
spec_cell_lca(const struct spec *s, const int *cells, int n)
{
	int a, b, i;

	if (n <= 0 || cells[0] < 0 || cells[0] >= s->ncells)
		return -1;
	a = cells[0];
	for (i = 1; i < n && a >= 0; i++) {
		b = cells[i];
		if (b < 0 || b >= s->ncells)
			return -1;
		while (a >= 0 && b >= 0 && a != b) {
			if (s->cells[a].level < s->cells[b].level)
				a = s->cells[a].parent;
			else if (s->cells[b].level < s->cells[a].level)
				b = s->cells[b].parent;
			else {
				a = s->cells[a].parent;
				b = s->cells[b].parent;
			}
		}
		if (a != b)
			a = -1;
	}
	return a;
}
