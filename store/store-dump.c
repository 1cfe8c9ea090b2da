/*
 * store-dump.c — export and import: the whole store as one JSON document,
 * portable between machines and cellar versions that read its
 * store_version.
 *
 *   {"schema_version":1,"kind":"cellar-dump","store_version":1,
 *    "tables":{"specs":{"columns":["id",...],"rows":[[1,"...",...],...]},
 *              "spec_vcs":{...}, "runs", "jobs", "placements", "health",
 *              "events", "heads", "series", "audit", "job_logs"}}
 *
 * Tables come in that order (each refers only to earlier ones), rows in
 * primary-key order, one per line; a dump is a pure function of the
 * store's content. Values: null, integers, reals printed with 17
 * significant digits (so they read back exactly; infinities as +-1e999),
 * strings, and BLOBs as {"base64":"..."}.
 *
 * Import runs constant INSERT statements whose columns are the schema's;
 * the dump's column list must equal them (nothing of the dump's text ever
 * becomes SQL). Everything happens in one transaction.
 */
#include "store/store-int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "core/xmalloc.h"

#define DUMP_KIND	"cellar-dump"
#define DUMP_MAX_COLS	48

enum dump_table_id { T_SPECS, T_SPEC_VCS, T_RUNS, T_JOBS, T_PLACEMENTS, T_HEALTH,
	T_EVENTS, T_RUN_SPECS, T_HEADS, T_SERIES, T_AUDIT, T_JOB_LOGS, T_COUNT };

struct dump_table {
	const char	*name;
	const char	*cols;		/* the schema's columns, in order */
	const char	*order;		/* primary-key order */
};

/* The jobs' columns up to version 7; a dump of those imports with the
   newer columns' defaults (priority 0, weight 1). */
#define JOB_COLS_7 "run, id, name, user, vc, submit, members, gpus, leaf_type, " \
	"class, soft_affinity, duration, model, elastic_min, elastic_max, state, " \
	"reason, state_since, first_start, end_time, queued, attained, run_time, " \
	"work_done, ckpt_work, lost_work, restarts, preemptions, suspensions, " \
	"opportunistic, engine_id, emu"
#define JOB_NCOLS_7 32
/* ... up to version 10 (no uid, gid: imported as -1, unknown). */
#define JOB_NCOLS_10 34
/* The series' columns up to version 9 (no frag_node: imported as 0). */
#define SERIES_NCOLS_9 8
/* The audit's up to version 10 (no reason, refused, count: NULL, 0, 1). */
#define AUDIT_NCOLS_10 6

static const struct dump_table dump_tables[T_COUNT] = {
	{ "specs", "id, hash, path, text, created", "id" },
	{ "spec_vcs", "spec, idx, name, gpus", "spec, idx" },
	{ "runs", "id, kind, spec, mode, policy, trace, params, seed, state, now, "
	  "created, updated, user, report, emu, engine", "id" },
	{ "jobs", JOB_COLS_7 ", priority, weight, uid, gid", "run, id" },
	{ "placements", "run, job, engine_id, chain, pin, priority, orig_priority, "
	  "lazy, downgraded, pod_first, leaves, vleaves, nodes, gpus", "run, job" },
	{ "health", "run, node, bad, since", "run, node" },
	{ "events", "seq, run, t, kind, job, vc, cell, by_job, detail, prev", "seq" },
	{ "run_specs", "run, upto, spec", "run, upto" },
	{ "heads", "run, upto, seqs", "run" },
	{ "series", "run, t, pending, running, used, opp, bad, frag, frag_node", "run, t" },
	{ "audit", "id, at, user, run, cmdline, status, reason, refused, count", "id" },
	{ "job_logs", "run, job, text", "run, job" },
};

/* The constant statements, spelled out so no SQL is assembled at run time. */
static const char *const dump_select[T_COUNT] = {
	"SELECT id, hash, path, text, created FROM specs ORDER BY id",
	"SELECT spec, idx, name, gpus FROM spec_vcs ORDER BY spec, idx",
	"SELECT id, kind, spec, mode, policy, trace, params, seed, state, now, "
	"created, updated, user, report, emu, engine FROM runs ORDER BY id",
	"SELECT run, id, name, user, vc, submit, members, gpus, leaf_type, class, "
	"soft_affinity, duration, model, elastic_min, elastic_max, state, reason, "
	"state_since, first_start, end_time, queued, attained, run_time, "
	"work_done, ckpt_work, lost_work, restarts, preemptions, suspensions, "
	"opportunistic, engine_id, emu, priority, weight, uid, gid FROM jobs "
	"ORDER BY run, id",
	"SELECT run, job, engine_id, chain, pin, priority, orig_priority, lazy, "
	"downgraded, pod_first, leaves, vleaves, nodes, gpus FROM placements "
	"ORDER BY run, job",
	"SELECT run, node, bad, since FROM health ORDER BY run, node",
	"SELECT seq, run, t, kind, job, vc, cell, by_job, detail, prev FROM events "
	"ORDER BY seq",
	"SELECT run, upto, spec FROM run_specs ORDER BY run, upto",
	"SELECT run, upto, seqs FROM heads ORDER BY run",
	"SELECT run, t, pending, running, used, opp, bad, frag, frag_node FROM series "
	"ORDER BY run, t",
	"SELECT id, at, user, run, cmdline, status, reason, refused, count FROM audit "
	"ORDER BY id",
	"SELECT run, job, text FROM job_logs ORDER BY run, job",
};

static const char *const dump_insert[T_COUNT] = {
	"INSERT INTO specs(id, hash, path, text, created) VALUES (?1, ?2, ?3, ?4, ?5)",
	"INSERT INTO spec_vcs(spec, idx, name, gpus) VALUES (?1, ?2, ?3, ?4)",
	"INSERT INTO runs(id, kind, spec, mode, policy, trace, params, seed, state, "
	"now, created, updated, user, report, emu, engine) VALUES (?1, ?2, ?3, ?4, "
	"?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	"INSERT INTO jobs(run, id, name, user, vc, submit, members, gpus, leaf_type, "
	"class, soft_affinity, duration, model, elastic_min, elastic_max, state, "
	"reason, state_since, first_start, end_time, queued, attained, run_time, "
	"work_done, ckpt_work, lost_work, restarts, preemptions, suspensions, "
	"opportunistic, engine_id, emu, priority, weight, uid, gid, traced) "
	"VALUES (?1, ?2, "
	"?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, "
	"?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, "
	"coalesce(?33, 0), coalesce(?34, 1), coalesce(?35, -1), coalesce(?36, -1), "
	"coalesce((SELECT kind = 'replay' FROM runs WHERE id = ?1), 0))",
	"INSERT INTO placements(run, job, engine_id, chain, pin, priority, "
	"orig_priority, lazy, downgraded, pod_first, leaves, vleaves, nodes, gpus) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
	"INSERT INTO health(run, node, bad, since) VALUES (?1, ?2, ?3, ?4)",
	NULL,	/* events: into blocks by imp_event (store-events.c) */
	"INSERT INTO run_specs(run, upto, spec) VALUES (?1, ?2, ?3)",
	"INSERT INTO heads(run, upto, seqs) VALUES (?1, ?2, ?3)",
	"INSERT INTO series(run, t, pending, running, used, opp, bad, frag, frag_node) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, coalesce(?9, 0))",
	"INSERT INTO audit(id, at, user, run, cmdline, status, reason, refused, "
	"count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, coalesce(?8, 0), "
	"coalesce(?9, 1))",
	"INSERT INTO job_logs(run, job, text) VALUES (?1, ?2, ?3)",
};

/* ---- base64 (RFC 4648) ---- */

static const char b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void
b64_encode(struct strbuf *sb, const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		strbuf_addc(sb, b64[p[i] >> 2]);
		strbuf_addc(sb, b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		strbuf_addc(sb, b64[((p[i + 1] & 15) << 2) | (p[i + 2] >> 6)]);
		strbuf_addc(sb, b64[p[i + 2] & 63]);
	}
	if (n - i == 1) {
		strbuf_addc(sb, b64[p[i] >> 2]);
		strbuf_addc(sb, b64[(p[i] & 3) << 4]);
		strbuf_adds(sb, "==");
	} else if (n - i == 2) {
		strbuf_addc(sb, b64[p[i] >> 2]);
		strbuf_addc(sb, b64[((p[i] & 3) << 4) | (p[i + 1] >> 4)]);
		strbuf_addc(sb, b64[(p[i + 1] & 15) << 2]);
		strbuf_addc(sb, '=');
	}
}

static int
b64_value(char c)
{
	const char *p = c != '\0' ? strchr(b64, c) : NULL;

	return p != NULL ? (int)(p - b64) : -1;
}

/* Decode into out (at least 3 * n / 4 bytes); -1 when malformed. */
static long
b64_decode(const char *s, size_t n, unsigned char *out)
{
	size_t i, o = 0;
	int v[4], k;

	if (n % 4 != 0)
		return -1;
	for (i = 0; i < n; i += 4) {
		for (k = 0; k < 4; k++) {
			if (s[i + k] == '=' && i + 4 == n && k >= 2)
				v[k] = -2;
			else if ((v[k] = b64_value(s[i + k])) < 0)
				return -1;
		}
		if (v[2] == -2 && v[3] != -2)
			return -1;
		out[o++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
		if (v[2] != -2)
			out[o++] = (unsigned char)((v[1] & 15) << 4 | v[2] >> 2);
		if (v[3] != -2)
			out[o++] = (unsigned char)((v[2] & 3) << 6 | v[3]);
	}
	return (long)o;
}

/* ---- export ---- */

static void
dump_double(struct strbuf *sb, double d)
{
	char buf[40];

	if (isinf(d)) {
		strbuf_adds(sb, d > 0 ? "1e999" : "-1e999");
		return;
	}
	if (isnan(d)) {
		strbuf_adds(sb, "null");
		return;
	}
	snprintf(buf, sizeof buf, "%.17g", d);
	/* Keep it a real: 3 would read back as an integer. */
	if (strpbrk(buf, ".eEn") == NULL)
		strcat(buf, ".0");
	strbuf_adds(sb, buf);
}

static void
dump_value(struct strbuf *sb, sqlite3_stmt *q, int col)
{
	switch (sqlite3_column_type(q, col)) {
	case SQLITE_NULL:
		strbuf_adds(sb, "null");
		break;
	case SQLITE_INTEGER:
		strbuf_addf(sb, "%lld", (long long)sqlite3_column_int64(q, col));
		break;
	case SQLITE_FLOAT:
		dump_double(sb, sqlite3_column_double(q, col));
		break;
	case SQLITE_BLOB:
		strbuf_adds(sb, "{\"base64\":\"");
		b64_encode(sb, sqlite3_column_blob(q, col),
		    (size_t)sqlite3_column_bytes(q, col));
		strbuf_adds(sb, "\"}");
		break;
	default:
		strbuf_add_json_str(sb, (const char *)sqlite3_column_text(q, col));
		break;
	}
}

static long long *
count_of(struct store_counts *n, int t)
{
	switch (t) {
	case T_SPECS: return &n->specs;
	case T_RUNS: return &n->runs;
	case T_JOBS: return &n->jobs;
	case T_PLACEMENTS: return &n->placements;
	case T_HEALTH: return &n->health;
	case T_EVENTS: return &n->events;
	case T_SERIES: return &n->series;
	case T_AUDIT: return &n->audit;
	default: return NULL;
	}
}

int
store_export(struct store *st, struct strbuf *out, struct store_counts *n,
    char **cause)
{
	sqlite3_stmt *q = NULL;
	long long *cnt;
	int t, c, ncols, rc = SQLITE_OK;
	bool first;

	memset(n, 0, sizeof *n);
	if (store_exec(st, "BEGIN", cause) != 0)	/* one snapshot */
		return -1;
	strbuf_addf(out, "{\"schema_version\":1,\"kind\":\"%s\",\"store_version\":%d,"
	    "\"tables\":{", DUMP_KIND, STORE_SCHEMA_VERSION);
	for (t = 0; t < T_COUNT; t++) {
		if ((rc = sqlite3_prepare_v2(st->db, dump_select[t], -1, &q, NULL)) != SQLITE_OK)
			goto fail;
		ncols = sqlite3_column_count(q);
		strbuf_addf(out, "%s\n\"%s\":{\"columns\":[", t ? "," : "",
		    dump_tables[t].name);
		for (c = 0; c < ncols; c++) {
			if (c > 0)
				strbuf_addc(out, ',');
			strbuf_add_json_str(out, sqlite3_column_name(q, c));
		}
		strbuf_adds(out, "],\"rows\":[");
		cnt = count_of(n, t);
		first = true;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			strbuf_adds(out, first ? "\n[" : ",\n[");
			first = false;
			for (c = 0; c < ncols; c++) {
				if (c > 0)
					strbuf_addc(out, ',');
				dump_value(out, q, c);
			}
			strbuf_addc(out, ']');
			if (cnt != NULL)
				(*cnt)++;
		}
		if (rc != SQLITE_DONE)
			goto fail;
		sqlite3_finalize(q);
		q = NULL;
		strbuf_adds(out, "]}");
	}
	strbuf_adds(out, "}}\n");
	sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
	return 0;
fail:
	sqlite3_finalize(q);
	store_fail(st, rc, cause);
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* ---- import ---- */

/* One value of a row, as read from the dump. */
struct dval {
	enum { DV_NULL, DV_INT, DV_REAL, DV_TEXT, DV_BLOB } type;
	long long	 i;
	double		 d;
	char		*s;		/* text or blob bytes (malloc'ed) */
	size_t		 len;
};

/* The old -> new seq of every event imported under a fresh seq. */
struct seq_map {
	int64_t		*from, *to;
	size_t		 n, cap1, cap2;
};

/* An id map for specs and runs (small): old -> new, new 0 = skip. */
struct id_map {
	int64_t		*from, *to;
	size_t		 n, cap1, cap2;
	bool		*skip;		/* spec already there: skip its VCs */
	size_t		 cap3;
};

struct import {
	struct store		*st;
	struct json_reader	 r;
	bool			 as_new;
	struct store_counts	*n;
	char			**cause;
	struct id_map		 specs, runs;
	struct seq_map		 seqs;
	long long		 row;		/* in the current table, from 1 */
	const char		*table;
	int64_t			 ev_run;	/* events: the last run found in runs */
};

static int
imp_fail(struct import *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
imp_fail(struct import *im, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	if (*im->cause != NULL)
		return STORE_INVALID;
	if (im->table != NULL) {
		strbuf_addf(&sb, "table '%s'", im->table);
		if (im->row > 0)
			strbuf_addf(&sb, " row %lld", im->row);
		strbuf_adds(&sb, ": ");
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	*im->cause = strbuf_detach(&sb, NULL);
	return STORE_INVALID;
}

static int
imp_next(struct import *im, struct json_token *t)
{
	char *why = NULL;

	if (json_reader_next(&im->r, t, &why) != 0) {
		imp_fail(im, "%s", why);
		free(why);
		return STORE_INVALID;
	}
	return 0;
}

static int
imp_expect(struct import *im, struct json_token *t, enum json_tok type,
    const char *what)
{
	if (imp_next(im, t) != 0)
		return STORE_INVALID;
	if (t->type != type)
		return imp_fail(im, "expected %s", what);
	return 0;
}

static void
id_map_add(struct id_map *m, int64_t from, int64_t to, bool skip)
{
	XGROW(m->from, m->cap1, m->n + 1);
	XGROW(m->to, m->cap2, m->n + 1);
	XGROW(m->skip, m->cap3, m->n + 1);
	m->from[m->n] = from;
	m->to[m->n] = to;
	m->skip[m->n] = skip;
	m->n++;
}

static int64_t
id_map_get(const struct id_map *m, int64_t from, bool *skip)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->from[i] == from) {
			if (skip != NULL)
				*skip = m->skip[i];
			return m->to[i];
		}
	return 0;
}

static void
id_map_release(struct id_map *m)
{
	free(m->from);
	free(m->to);
	free(m->skip);
}

/* Events are imported in seq order, so from[] is sorted. */
static int64_t
seq_map_get(const struct seq_map *m, int64_t from)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->from[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->from[lo] == from ? m->to[lo] : 0;
}

static void
dval_clear(struct dval *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		free(v[i].s);
		memset(&v[i], 0, sizeof v[i]);
	}
}

/* One value of a row. */
static int
imp_value(struct import *im, struct dval *v)
{
	struct json_token t;
	char *end;
	long got;

	if (imp_next(im, &t) != 0)
		return STORE_INVALID;
	switch (t.type) {
	case JSON_TOK_NULL:
		v->type = DV_NULL;
		return 0;
	case JSON_TOK_TRUE:
	case JSON_TOK_FALSE:
		v->type = DV_INT;
		v->i = t.type == JSON_TOK_TRUE;
		return 0;
	case JSON_TOK_NUMBER: {
		char num[64];

		if (t.len >= sizeof num)
			return imp_fail(im, "number too long");
		memcpy(num, t.text, t.len);
		num[t.len] = '\0';
		errno = 0;
		if (t.integer) {
			v->i = strtoll(num, &end, 10);
			if (errno == 0) {
				v->type = DV_INT;
				return 0;
			}
		}
		errno = 0;
		v->d = strtod(num, &end);
		v->type = DV_REAL;
		return 0;
	}
	case JSON_TOK_STRING:
		v->type = DV_TEXT;
		v->s = xmalloc(t.str_len + 1);
		memcpy(v->s, t.str, t.str_len + 1);
		v->len = t.str_len;
		return 0;
	case JSON_TOK_OBJECT:
		if (imp_expect(im, &t, JSON_TOK_STRING, "\"base64\"") != 0)
			return STORE_INVALID;
		if (strcmp(t.str, "base64") != 0)
			return imp_fail(im, "an object value must be {\"base64\":...}");
		if (imp_expect(im, &t, JSON_TOK_STRING, "base64 text") != 0)
			return STORE_INVALID;
		v->type = DV_BLOB;
		v->s = xmalloc(t.str_len / 4 * 3 + 1);
		if ((got = b64_decode(t.str, t.str_len, (unsigned char *)v->s)) < 0)
			return imp_fail(im, "malformed base64");
		v->len = (size_t)got;
		if (imp_expect(im, &t, JSON_TOK_OBJECT_END, "'}'") != 0)
			return STORE_INVALID;
		return 0;
	default:
		return imp_fail(im, "expected a value");
	}
}

static void
imp_bind(sqlite3_stmt *q, int i, const struct dval *v)
{
	switch (v->type) {
	case DV_NULL:
		sqlite3_bind_null(q, i);
		break;
	case DV_INT:
		sqlite3_bind_int64(q, i, v->i);
		break;
	case DV_REAL:
		sqlite3_bind_double(q, i, v->d);
		break;
	case DV_TEXT:
		sqlite3_bind_text(q, i, v->s, (int)v->len, SQLITE_STATIC);
		break;
	case DV_BLOB:
		sqlite3_bind_blob(q, i, v->s, (int)v->len, SQLITE_STATIC);
		break;
	}
}

static void
dval_set_int(struct dval *v, long long i, bool null)
{
	free(v->s);
	memset(v, 0, sizeof *v);
	v->type = null ? DV_NULL : DV_INT;
	v->i = i;
}

/*
 * With as_new, give a row its new ids. Returns 1 to skip the row, 0 to
 * insert it, STORE_INVALID/-1 on failure. *fresh_id asks for a new rowid
 * (col 0 bound NULL), whose value then goes into the map kind given.
 */
static int
imp_remap(struct import *im, int t, struct dval *v, int ncols)
{
	struct store *st = im->st;
	int64_t id;
	bool skip = false;

	(void)ncols;
	switch (t) {
	case T_SPECS: {
		sqlite3_stmt *q = store_stmt(st, SQ_SPEC_BY_HASH, im->cause);
		int rc;

		if (q == NULL)
			return -1;
		if (v[1].type != DV_TEXT || v[3].type != DV_TEXT)
			return imp_fail(im, "a spec needs a hash and a text");
		sqlite3_bind_text(q, 1, v[1].s, -1, SQLITE_STATIC);
		id = 0;
		while ((rc = sqlite3_step(q)) == SQLITE_ROW)
			if ((size_t)sqlite3_column_bytes(q, 1) == v[3].len &&
			    (v[3].len == 0 ||
			    memcmp(sqlite3_column_blob(q, 1), v[3].s, v[3].len) == 0)) {
				id = sqlite3_column_int64(q, 0);
				break;
			}
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return store_fail(st, rc, im->cause);
		if (id != 0) {
			id_map_add(&im->specs, v[0].i, id, true);
			return 1;
		}
		id_map_add(&im->specs, v[0].i, 0, false);
		dval_set_int(&v[0], 0, true);
		return 0;
	}
	case T_SPEC_VCS:
		id = id_map_get(&im->specs, v[0].i, &skip);
		if (id == 0 && !skip)
			return imp_fail(im, "spec %lld is not in the dump", v[0].i);
		if (skip)
			return 1;
		dval_set_int(&v[0], id, false);
		return 0;
	case T_RUNS:
		if ((id = id_map_get(&im->specs, v[2].i, NULL)) == 0)
			return imp_fail(im, "spec %lld is not in the dump", v[2].i);
		dval_set_int(&v[2], id, false);
		id_map_add(&im->runs, v[0].i, 0, false);
		dval_set_int(&v[0], 0, true);
		return 0;
	case T_JOBS:
		if ((id = id_map_get(&im->runs, v[0].i, NULL)) == 0)
			return imp_fail(im, "run %lld is not in the dump", v[0].i);
		dval_set_int(&v[0], id, false);
		return 0;
	case T_HEADS:
		/* Their seqs moved: written anew after the import. */
		return 1;
	case T_PLACEMENTS:
	case T_HEALTH:
	case T_SERIES:
	case T_JOB_LOGS:
		if ((id = id_map_get(&im->runs, v[0].i, NULL)) == 0)
			return imp_fail(im, "run %lld is not in the dump", v[0].i);
		dval_set_int(&v[0], id, false);
		return 0;
	case T_EVENTS:
		if ((id = id_map_get(&im->runs, v[1].i, NULL)) == 0)
			return imp_fail(im, "run %lld is not in the dump", v[1].i);
		dval_set_int(&v[1], id, false);
		if (v[9].type == DV_INT) {
			if ((id = seq_map_get(&im->seqs, v[9].i)) == 0)
				return imp_fail(im, "event %lld links to %lld, which is "
				    "not an earlier event of the dump", v[0].i, v[9].i);
			dval_set_int(&v[9], id, false);
		}
		XGROW(im->seqs.from, im->seqs.cap1, im->seqs.n + 1);
		im->seqs.from[im->seqs.n] = v[0].i;
		dval_set_int(&v[0], 0, true);
		return 0;
	case T_RUN_SPECS:
		if ((id = id_map_get(&im->runs, v[0].i, NULL)) == 0)
			return imp_fail(im, "run %lld is not in the dump", v[0].i);
		dval_set_int(&v[0], id, false);
		if ((id = id_map_get(&im->specs, v[2].i, NULL)) == 0)
			return imp_fail(im, "spec %lld is not in the dump", v[2].i);
		dval_set_int(&v[2], id, false);
		if (v[1].type != DV_INT || (id = seq_map_get(&im->seqs, v[1].i)) == 0)
			return imp_fail(im, "a run's earlier spec ends at event %lld, "
			    "which is not in the dump", v[1].type == DV_INT ? v[1].i : 0);
		dval_set_int(&v[1], id, false);
		return 0;
	case T_AUDIT:
		dval_set_int(&v[0], 0, true);
		if (v[3].type == DV_INT) {
			id = id_map_get(&im->runs, v[3].i, NULL);
			dval_set_int(&v[3], id, id == 0);
		}
		return 0;
	}
	return 0;
}

/* After an insert with a fresh id: remember where the old one went. */
static void
imp_mapped(struct import *im, int t, int64_t id)
{
	switch (t) {
	case T_SPECS:
		im->specs.to[im->specs.n - 1] = id;
		break;
	case T_RUNS:
		im->runs.to[im->runs.n - 1] = id;
		break;
	case T_EVENTS:
		XGROW(im->seqs.to, im->seqs.cap2, im->seqs.n + 1);
		im->seqs.to[im->seqs.n++] = id;
		break;
	default:
		break;
	}
}

/* An int column that may be NULL (none: -1) and must fit in an int32. */
static bool
imp_int_or_none(const struct dval *v, int *out)
{
	if (v->type == DV_NULL) {
		*out = -1;
		return true;
	}
	if (v->type != DV_INT || v->i < 0 || v->i > INT32_MAX)
		return false;
	*out = (int)v->i;
	return true;
}

/*
 * One row of events (seq, run, t, kind, job, vc, cell, by_job, detail,
 * prev) into the pending block: the dump keeps events as records of their
 * own, whatever the store packs them into. A NULL seq (as_new) takes the
 * next free one.
 */
static int
imp_event(struct import *im, struct dval *v)
{
	struct store_evrow e;
	int64_t seq;
	int rc;

	if ((v[0].type != DV_INT && v[0].type != DV_NULL) || v[1].type != DV_INT ||
	    (v[2].type != DV_INT && v[2].type != DV_REAL) || v[3].type != DV_TEXT ||
	    v[3].len == 0 || v[3].len > 255 ||
	    (v[8].type != DV_TEXT && v[8].type != DV_NULL) ||
	    (v[9].type != DV_INT && v[9].type != DV_NULL) ||
	    (v[9].type == DV_INT && v[9].i <= 0) ||
	    !imp_int_or_none(&v[4], &e.job) || !imp_int_or_none(&v[5], &e.vc) ||
	    !imp_int_or_none(&v[6], &e.cell) || !imp_int_or_none(&v[7], &e.by))
		return imp_fail(im, "a malformed event");
	if (v[0].type == DV_INT && v[0].i <= 0)
		return imp_fail(im, "event %lld: a seq must be positive", v[0].i);
	/* The block's foreign key is checked when it is written, too late
	   to name the row: check the run here (once per run, in order). */
	if (v[1].i != im->ev_run) {
		sqlite3_stmt *q;
		bool found;

		if ((rc = sqlite3_prepare_v2(im->st->db, "SELECT 1 FROM runs "
		    "WHERE id = ?1", -1, &q, NULL)) != SQLITE_OK)
			return store_fail(im->st, rc, im->cause);
		sqlite3_bind_int64(q, 1, v[1].i);
		found = sqlite3_step(q) == SQLITE_ROW;
		sqlite3_finalize(q);
		if (!found)
			return imp_fail(im, "run %lld is not in the dump", v[1].i);
		im->ev_run = v[1].i;
	}
	e.t = v[2].type == DV_INT ? (double)v[2].i : v[2].d;
	e.kind = v[3].s;
	e.kind_len = v[3].len;
	e.detail = v[8].type == DV_TEXT ? v[8].s : "";
	e.detail_len = v[8].type == DV_TEXT ? v[8].len : 0;
	e.prev = v[9].type == DV_INT ? v[9].i : 0;
	rc = store_events_put(im->st, v[0].type == DV_INT ? v[0].i : 0, v[1].i, &e,
	    &seq, im->cause);
	if (rc == STORE_INVALID) {
		char *why = *im->cause;

		*im->cause = NULL;
		imp_fail(im, "%s", why);
		free(why);
		return STORE_INVALID;
	}
	if (rc != 0)
		return -1;
	if (im->as_new)
		imp_mapped(im, T_EVENTS, seq);
	return 0;
}

/* The schema's columns of table t, checked against the dump's list. */
static int
imp_columns(struct import *im, int t, int *ncols)
{
	struct json_token tok;
	const char *want = dump_tables[t].cols;
	size_t len;
	int n = 0;

	if (imp_expect(im, &tok, JSON_TOK_ARRAY, "the list of columns") != 0)
		return STORE_INVALID;
	for (;;) {
		if (imp_next(im, &tok) != 0)
			return STORE_INVALID;
		if (tok.type == JSON_TOK_ARRAY_END)
			break;
		if (tok.type != JSON_TOK_STRING)
			return imp_fail(im, "a column name must be a string");
		while (*want == ' ' || *want == ',')
			want++;
		len = strcspn(want, ",");
		if (len != tok.str_len || strncmp(want, tok.str, len) != 0)
			return imp_fail(im, "column %d is '%s'; this cellar has: %s",
			    n + 1, tok.str, dump_tables[t].cols);
		want += len;
		n++;
	}
	while (*want == ' ' || *want == ',')
		want++;
	if (*want != '\0' && !(t == T_JOBS && (n == JOB_NCOLS_7 ||
	    n == JOB_NCOLS_10)) &&
	    !(t == T_SERIES && n == SERIES_NCOLS_9) &&
	    !(t == T_AUDIT && n == AUDIT_NCOLS_10))
		return imp_fail(im, "%d columns; this cellar has: %s", n,
		    dump_tables[t].cols);
	*ncols = n;
	return 0;
}

static int
imp_rows(struct import *im, int t, int ncols)
{
	struct dval v[DUMP_MAX_COLS];
	struct json_token tok;
	sqlite3_stmt *q;
	long long *cnt = count_of(im->n, t);
	int c, rc, skip;

	memset(v, 0, sizeof v);
	q = NULL;
	if (dump_insert[t] != NULL && (rc = sqlite3_prepare_v2(im->st->db,
	    dump_insert[t], -1, &q, NULL)) != SQLITE_OK)
		return store_fail(im->st, rc, im->cause);
	if (imp_expect(im, &tok, JSON_TOK_ARRAY, "the list of rows") != 0)
		goto invalid;
	for (im->row = 1;; im->row++) {
		if (imp_next(im, &tok) != 0)
			goto invalid;
		if (tok.type == JSON_TOK_ARRAY_END)
			break;
		if (tok.type != JSON_TOK_ARRAY) {
			imp_fail(im, "a row must be an array");
			goto invalid;
		}
		for (c = 0; c < ncols; c++)
			if (imp_value(im, &v[c]) != 0)
				goto invalid;
		if (imp_expect(im, &tok, JSON_TOK_ARRAY_END, "the end of the row") != 0)
			goto invalid;
		skip = 0;
		if (im->as_new && (skip = imp_remap(im, t, v, ncols)) < 0)
			goto fail;
		if (skip == STORE_INVALID)
			goto invalid;
		if (skip == 0 && t == T_EVENTS) {
			if ((rc = imp_event(im, v)) != 0) {
				if (rc == STORE_INVALID)
					goto invalid;
				goto fail;
			}
		} else if (skip == 0) {
			for (c = 0; c < ncols; c++)
				imp_bind(q, c + 1, &v[c]);
			rc = sqlite3_step(q);
			sqlite3_reset(q);
			sqlite3_clear_bindings(q);
			if ((rc & 0xff) == SQLITE_CONSTRAINT) {
				imp_fail(im, "%s", sqlite3_errmsg(im->st->db));
				goto invalid;
			}
			if (rc != SQLITE_DONE) {
				store_fail(im->st, rc, im->cause);
				goto fail;
			}
			if (im->as_new)
				imp_mapped(im, t, sqlite3_last_insert_rowid(im->st->db));
		}
		if (cnt != NULL)
			(*cnt)++;
		dval_clear(v, ncols);
	}
	im->row = 0;
	sqlite3_finalize(q);
	/* The last block, before the tables that refer to its events. */
	if (t == T_EVENTS && store_events_flush(im->st, im->cause) != 0)
		return -1;
	return 0;
invalid:
	dval_clear(v, DUMP_MAX_COLS);
	sqlite3_finalize(q);
	return STORE_INVALID;
fail:
	dval_clear(v, DUMP_MAX_COLS);
	sqlite3_finalize(q);
	return -1;
}

/* One table: {"columns":[...],"rows":[...]}. */
static int
imp_table(struct import *im, const char *name, int *last)
{
	struct json_token tok;
	int t, ncols = -1, rc;

	for (t = 0; t < T_COUNT; t++)
		if (strcmp(dump_tables[t].name, name) == 0)
			break;
	if (t == T_COUNT)
		return imp_fail(im, "unknown table '%s'", name);
	if (t <= *last)
		return imp_fail(im, "table '%s' out of order (specs, spec_vcs, runs, "
		    "jobs, placements, health, events, run_specs, heads, series, audit, "
		    "job_logs)", name);
	*last = t;
	im->table = dump_tables[t].name;
	if (imp_expect(im, &tok, JSON_TOK_OBJECT, "an object") != 0)
		return STORE_INVALID;
	for (;;) {
		if (imp_next(im, &tok) != 0)
			return STORE_INVALID;
		if (tok.type == JSON_TOK_OBJECT_END)
			break;
		if (strcmp(tok.str, "columns") == 0) {
			if ((rc = imp_columns(im, t, &ncols)) != 0)
				return rc;
		} else if (strcmp(tok.str, "rows") == 0) {
			if (ncols < 0)
				return imp_fail(im, "\"rows\" before \"columns\"");
			if ((rc = imp_rows(im, t, ncols)) != 0)
				return rc;
		} else
			return imp_fail(im, "unknown key '%s'", tok.str);
	}
	im->table = NULL;
	return 0;
}

static int
imp_heads(struct import *im)
{
	int64_t *seq, upto;
	size_t i, n;
	int rc;

	for (i = 0; i < im->runs.n; i++) {
		if (store_heads_read(im->st, im->runs.to[i], &seq, &n, NULL,
		    im->cause) != 0)
			return -1;
		rc = store_event_last_seq(im->st, im->runs.to[i], &upto, im->cause) != 0 ||
		    store_heads_write(im->st, im->runs.to[i], seq, n, upto, im->cause) != 0;
		free(seq);
		if (rc)
			return -1;
	}
	return 0;
}

static int
store_is_empty(struct store *st, bool *empty, char **cause)
{
	sqlite3_stmt *q;
	int rc;

	rc = sqlite3_prepare_v2(st->db, "SELECT (SELECT count(*) FROM specs) + "
	    "(SELECT count(*) FROM runs) + (SELECT count(*) FROM event_blocks) + "
	    "(SELECT count(*) FROM audit)", -1, &q, NULL);
	if (rc != SQLITE_OK)
		return store_fail(st, rc, cause);
	rc = sqlite3_step(q);
	*empty = rc == SQLITE_ROW && sqlite3_column_int64(q, 0) == 0;
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : store_fail(st, rc, cause);
}

int
store_import(struct store *st, const char *text, size_t len, bool as_new,
    struct store_counts *n, char **cause)
{
	struct import im;
	struct json_token tok;
	char *why = NULL;
	size_t end;
	int rc = STORE_INVALID, last = -1;
	bool empty, seen_tables = false;

	memset(n, 0, sizeof *n);
	if (json_validate(text, len, &end, &why) != 0 || end != len) {
		*cause = xasprintf("not a cellar dump: %s", why != NULL ? why :
		    "text after the document");
		free(why);
		return STORE_INVALID;
	}
	memset(&im, 0, sizeof im);
	im.st = st;
	im.as_new = as_new;
	im.n = n;
	im.cause = cause;
	json_reader_init(&im.r, text, len);
	if (store_begin(st, cause) != 0) {
		json_reader_release(&im.r);
		return -1;
	}
	if (store_is_empty(st, &empty, cause) != 0) {
		rc = -1;
		goto out;
	}
	if (!as_new && !empty) {
		*cause = xasprintf("state store '%s' is not empty: import into an "
		    "empty store keeps every id; --as-new adds the dump's runs under "
		    "new ids", st->path);
		goto out;
	}
	if (imp_expect(&im, &tok, JSON_TOK_OBJECT, "a JSON object") != 0)
		goto out;
	for (;;) {
		if ((rc = imp_next(&im, &tok)) != 0)
			goto out;
		rc = STORE_INVALID;
		if (tok.type == JSON_TOK_OBJECT_END)
			break;
		if (strcmp(tok.str, "schema_version") == 0 ||
		    strcmp(tok.str, "store_version") == 0) {
			bool store_v = strcmp(tok.str, "store_version") == 0;
			long long want = store_v ? STORE_SCHEMA_VERSION : 1, got;

			if (imp_next(&im, &tok) != 0)
				goto out;
			got = tok.type == JSON_TOK_NUMBER && tok.integer ?
			    strtoll(tok.text, NULL, 10) : -1;
			/* Version 3's dump is version 4's: events were rows
			   then, and a dump keeps them as records now; 4's
			   is 5's without job logs; 5's is 6's and 6's is 7's
			   (change numbers are not dumped); 7's is 8's
			   without the jobs' priority and weight; 8's is
			   9's (traced is not dumped: it follows from the
			   run's kind); 9's is 10's without the series'
			   frag_node (imported as 0); 10's is 11's
			   without the jobs' uid and gid (imported as -1)
			   and the audit's reason, refused and count (a
			   session's job names may repeat in 11's). */
			if (store_v && got >= 3 && got <= 10)
				got = 11;
			if (got != want) {
				imp_fail(&im, "a dump of %s %.*s; this cellar reads %lld",
				    store_v ? "store version" : "schema version",
				    (int)tok.len, tok.text, want);
				goto out;
			}
		} else if (strcmp(tok.str, "kind") == 0) {
			if (imp_expect(&im, &tok, JSON_TOK_STRING, "a kind") != 0)
				goto out;
			if (strcmp(tok.str, DUMP_KIND) != 0) {
				imp_fail(&im, "not a cellar dump (kind '%s', not '%s')",
				    tok.str, DUMP_KIND);
				goto out;
			}
		} else if (strcmp(tok.str, "tables") == 0) {
			seen_tables = true;
			if (imp_expect(&im, &tok, JSON_TOK_OBJECT, "an object of tables") != 0)
				goto out;
			for (;;) {
				char *name;

				if (imp_next(&im, &tok) != 0)
					goto out;
				if (tok.type == JSON_TOK_OBJECT_END)
					break;
				name = xstrdup(tok.str);
				rc = imp_table(&im, name, &last);
				free(name);
				if (rc != 0)
					goto out;
				rc = STORE_INVALID;
			}
		} else {
			if (imp_next(&im, &tok) != 0 ||
			    json_reader_skip(&im.r, &tok, cause) != 0)
				goto out;
		}
	}
	if (!seen_tables) {
		imp_fail(&im, "not a cellar dump (no \"tables\")");
		goto out;
	}
	/* New runs: their job heads, checkpointed from their events. */
	if (as_new && (rc = imp_heads(&im)) != 0)
		goto out;
	rc = store_commit(st, cause) != 0 ? -1 : 0;
out:
	if (rc != 0)
		store_rollback(st);
	json_reader_release(&im.r);
	id_map_release(&im.specs);
	id_map_release(&im.runs);
	free(im.seqs.from);
	free(im.seqs.to);
	return rc;
}
