/*
 * store-series.c — the series table: a run's time series, one row per
 * struct emu_sample (job/series.h), written by a recorded replay.
 */

#include "store/store-int.h"

#include <stdlib.h>

#include "core/xmalloc.h"

/* ---- time series ---- */

int
store_series_put(struct store *st, int64_t run, const struct emu_sample *x, int n,
    char **cause)
{
	sqlite3_stmt *q;
	int i;

	for (i = 0; i < n; i++) {
		if ((q = store_stmt(st, SQ_SERIES_PUT, cause)) == NULL)
			return -1;
		sqlite3_bind_int64(q, 1, run);
		sqlite3_bind_double(q, 2, x[i].t);
		sqlite3_bind_int(q, 3, x[i].pending);
		sqlite3_bind_int(q, 4, x[i].running);
		sqlite3_bind_int64(q, 5, x[i].used);
		sqlite3_bind_int64(q, 6, x[i].opp);
		sqlite3_bind_int64(q, 7, x[i].bad);
		sqlite3_bind_double(q, 8, x[i].frag);
		sqlite3_bind_double(q, 9, x[i].frag_node);
		if (store_step_done(st, q, cause) != 0)
			return -1;
	}
	return 0;
}

int
store_series_load(struct store *st, int64_t run, struct emu_sample **out, int *n,
    char **cause)
{
	sqlite3_stmt *q;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if ((q = store_stmt(st, SQ_SERIES_LOAD, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(q, 1, run);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct emu_sample *x;

		XGROW(*out, cap, (size_t)*n + 1);
		x = &(*out)[(*n)++];
		x->t = sqlite3_column_double(q, 0);
		x->pending = sqlite3_column_int(q, 1);
		x->running = sqlite3_column_int(q, 2);
		x->used = sqlite3_column_int64(q, 3);
		x->opp = sqlite3_column_int64(q, 4);
		x->bad = sqlite3_column_int64(q, 5);
		x->frag = sqlite3_column_double(q, 6);
		x->frag_node = sqlite3_column_double(q, 7);
	}
	if (store_done(st, q, rc, cause) != 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}
