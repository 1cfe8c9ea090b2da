/*
 * store-spec.c — the specs table: a spec's text stored once by its hash,
 * with its VCs' names and sizes (spec_vcs) for readers that do not parse
 * it; store_spec_get gives it back.
 */

#include "store/store-int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

/* ---- specs ---- */

static long long
spec_vc_gpus(const struct spec *s, int vc)
{
	const struct spec_vc *v = &s->vcs[vc];
	long long n = 0;
	int i;

	for (i = 0; i < v->ncells; i++)
		n += (long long)v->cells[i].number * s->types[v->cells[i].type].leaves;
	for (i = 0; i < v->npins; i++)
		n += s->types[s->cells[s->pins[v->pins[i]].cell].type].leaves;
	return n;
}

int
store_spec_put(struct store *st, const struct spec *s, int64_t *id, char **cause)
{
	sqlite3_stmt *q;
	char hash[17];
	int rc, i;

	snprintf(hash, sizeof hash, "%016llx", s->hash);
	if ((q = store_stmt(st, SQ_SPEC_BY_HASH, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const void *t = sqlite3_column_blob(q, 1);
		size_t n = (size_t)sqlite3_column_bytes(q, 1);

		if (n == s->text_len && (n == 0 || memcmp(t, s->text, n) == 0)) {
			*id = sqlite3_column_int64(q, 0);
			return store_done(st, q, SQLITE_DONE, cause);
		}
	}
	if (store_done(st, q, rc, cause) != 0)
		return -1;
	if ((q = store_stmt(st, SQ_SPEC_INSERT, cause)) == NULL)
		return -1;
	sqlite3_bind_text(q, 1, hash, -1, SQLITE_STATIC);
	store_bind_text(q, 2, s->path != NULL ? s->path : "");
	sqlite3_bind_text(q, 3, s->text, (int)s->text_len, SQLITE_STATIC);
	sqlite3_bind_double(q, 4, store_wall_now());
	if (store_step_done(st, q, cause) != 0)
		return -1;
	*id = sqlite3_last_insert_rowid(st->db);
	for (i = 0; i < s->nvcs; i++) {
		if ((q = store_stmt(st, SQ_SPEC_VC_INSERT, cause)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, *id);
		sqlite3_bind_int(q, 2, i);
		sqlite3_bind_text(q, 3, s->vcs[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(q, 4, spec_vc_gpus(s, i));
		if (store_step_done(st, q, cause) != 0)
			return -1;
	}
	return 0;
}

int
store_spec_get(struct store *st, int64_t id, struct store_spec *out, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	memset(out, 0, sizeof *out);
	if ((q = store_stmt(st, SQ_SPEC_GET, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, id);
	if ((rc = sqlite3_step(q)) != SQLITE_ROW) {
		if (store_done(st, q, rc, cause) != 0)
			return -1;
		*cause = xasprintf("no spec %lld in the state store", (long long)id);
		return STORE_NOTFOUND;
	}
	out->id = sqlite3_column_int64(q, 0);
	out->hash = store_col_strdup(q, 1);
	out->path = store_col_strdup(q, 2);
	out->text_len = (size_t)sqlite3_column_bytes(q, 3);
	out->text = xmalloc(out->text_len + 1);
	if (out->text_len > 0)
		memcpy(out->text, sqlite3_column_blob(q, 3), out->text_len);
	out->text[out->text_len] = '\0';
	store_done(st, q, SQLITE_DONE, cause);
	if ((q = store_stmt(st, SQ_SPEC_VCS, cause)) == NULL)
		goto fail;
	sqlite3_bind_int64(q, 1, id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		int idx = sqlite3_column_int(q, 0);

		if (idx < 0 || idx > 1 << 20)
			continue;
		if (idx >= out->nvcs) {
			out->vcs = xreallocarray(out->vcs, (size_t)idx + 1, sizeof *out->vcs);
			memset(out->vcs + out->nvcs, 0,
			    (size_t)(idx + 1 - out->nvcs) * sizeof *out->vcs);
			out->nvcs = idx + 1;
		}
		free(out->vcs[idx].name);
		out->vcs[idx].name = store_col_strdup(q, 1);
		out->vcs[idx].gpus = sqlite3_column_int64(q, 2);
	}
	if (store_done(st, q, rc, cause) != 0)
		goto fail;
	return 0;
fail:
	store_spec_release(out);
	return -1;
}

void
store_spec_release(struct store_spec *sp)
{
	int i;

	for (i = 0; i < sp->nvcs; i++)
		free(sp->vcs[i].name);
	free(sp->vcs);
	free(sp->hash);
	free(sp->path);
	free(sp->text);
	memset(sp, 0, sizeof *sp);
}
