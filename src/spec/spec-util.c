/*
 * spec-util.c — the small pieces the spec loader shares between its YAML
 * reader (spec-yaml.c) and its validator (spec.c): diagnostics and the
 * cells' lowest common ancestor.
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
