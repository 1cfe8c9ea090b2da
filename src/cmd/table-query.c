/*
 * table-query.c — --sort and --filter, once for every listing (see
 * table.h). A listing command fills a table with every row; the dispatcher
 * has already parsed and checked the query against the command's columns;
 * table_query_apply then drops the rows a filter rejects and sorts the
 * rest, and the command renders what is left (or writes its JSON in that
 * order).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/table-int.h"
#include "core/hostlist.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

enum tq_op { TQ_EQ, TQ_NE, TQ_LT, TQ_LE, TQ_GT, TQ_GE };

/* Longest first, so "!=" is not read as "!" and "<=" not as "<". */
static const struct {
	const char	*text;
	enum tq_op	 op;
	bool		 numeric;	/* only for TABLE_NUM columns */
} tq_ops[] = {
	{ "!=", TQ_NE, false },
	{ "<=", TQ_LE, true },
	{ ">=", TQ_GE, true },
	{ "=", TQ_EQ, false },
	{ "<", TQ_LT, true },
	{ ">", TQ_GT, true },
};

struct tq_key {
	char		*key;
	bool		 desc;
};

struct tq_filter {
	char		*expr;		/* as given, for messages */
	char		*field;
	int		 op;		/* index into tq_ops */
	char		*value;
};

struct table_query {
	struct tq_key		*keys;
	size_t			 nkeys, capkeys;
	struct tq_filter	*filters;
	size_t			 nfilters, capfilters;
};

struct table_query *
table_query_create(void)
{
	return xcalloc(1, sizeof(struct table_query));
}

void
table_query_free(struct table_query *q)
{
	size_t i;

	if (q == NULL)
		return;
	for (i = 0; i < q->nkeys; i++)
		free(q->keys[i].key);
	for (i = 0; i < q->nfilters; i++) {
		free(q->filters[i].expr);
		free(q->filters[i].field);
		free(q->filters[i].value);
	}
	free(q->keys);
	free(q->filters);
	free(q);
}

bool
table_query_empty(const struct table_query *q)
{
	return q == NULL || (q->nkeys == 0 && q->nfilters == 0);
}

/* Keys and fields are words of letters, digits, '_' and '%' ("used%"). */
static bool
tq_is_key(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789_%", s[i]) == NULL || s[i] == '\0')
			return false;
	return true;
}

int
table_query_sort(struct table_query *q, const char *spec, char **cause)
{
	const char *p = spec, *comma;
	size_t len;
	bool desc;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		desc = len > 0 && *p == '-';
		if (len > 0 && (*p == '-' || *p == '+')) {
			p++;
			len--;
		}
		if (!tq_is_key(p, len)) {
			*cause = xasprintf("invalid sort '%s' (KEY[,-KEY]...)", spec);
			return -1;
		}
		XGROW(q->keys, q->capkeys, q->nkeys + 1);
		q->keys[q->nkeys].key = xstrndup(p, len);
		q->keys[q->nkeys].desc = desc;
		q->nkeys++;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

int
table_query_filter(struct table_query *q, const char *expr, char **cause)
{
	size_t flen = strcspn(expr, "!=<>"), i;
	struct tq_filter *f;

	for (i = 0; i < sizeof tq_ops / sizeof tq_ops[0]; i++)
		if (strncmp(expr + flen, tq_ops[i].text, strlen(tq_ops[i].text)) == 0)
			break;
	if (!tq_is_key(expr, flen) || i == sizeof tq_ops / sizeof tq_ops[0]) {
		*cause = xasprintf("invalid filter '%s' (FIELD=VALUE, FIELD!=VALUE, "
		    "or FIELD<N, <=, >, >=)", expr);
		return -1;
	}
	XGROW(q->filters, q->capfilters, q->nfilters + 1);
	f = &q->filters[q->nfilters++];
	f->expr = xstrdup(expr);
	f->field = xstrndup(expr, flen);
	f->op = (int)i;
	f->value = xstrdup(expr + flen + strlen(tq_ops[i].text));
	return 0;
}

/* A number, the whole string; false for "", "-", "12abc". */
static bool
tq_number(const char *s, double *v)
{
	char *end;

	if (*s == '\0')
		return false;
	*v = strtod(s, &end);
	return *end == '\0' && end != s && *v == *v;	/* not NaN */
}

/*
 * Column of key among n keys/headers (case-insensitively); -1 if none. The
 * header is accepted too, so that what a table shows can be typed back.
 */
static int
tq_find(const char *key, const char *const *keys, const char *const *headers,
    int n)
{
	int c;

	for (c = 0; c < n; c++)
		if (strcasecmp(key, keys[c]) == 0)
			return c;
	for (c = 0; c < n; c++)
		if (strcasecmp(key, headers[c]) == 0)
			return c;
	return -1;
}

/* "unknown sort key 'x' (keys: a, b, c)" */
static char *
tq_unknown(const char *what, const char *noun, const char *key,
    const char *const *keys, const unsigned *flags, int n, bool numeric_only)
{
	struct strbuf sb = STRBUF_INIT;
	char *msg;
	int c;

	for (c = 0; c < n; c++)
		if (!numeric_only || (flags[c] & TABLE_NUM))
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", keys[c]);
	msg = xasprintf("unknown %s '%s' (%s: %s)", what, key, noun,
	    sb.len ? sb.buf : "none");
	strbuf_release(&sb);
	return msg;
}

/*
 * Resolve every key and field of q against n columns: cols[] gets the
 * column of each sort key, then of each filter. Returns 0 or -1 with *cause.
 */
static int
tq_resolve(const struct table_query *q, const char *const *keys,
    const char *const *headers, const unsigned *flags, int n, int *cols,
    char **cause)
{
	size_t i;
	int c;

	for (i = 0; i < q->nkeys; i++) {
		if ((c = tq_find(q->keys[i].key, keys, headers, n)) < 0) {
			*cause = tq_unknown("sort key", "keys", q->keys[i].key, keys,
			    flags, n, false);
			return -1;
		}
		if (cols != NULL)
			cols[i] = c;
	}
	for (i = 0; i < q->nfilters; i++) {
		const struct tq_filter *f = &q->filters[i];
		double v;

		if ((c = tq_find(f->field, keys, headers, n)) < 0) {
			*cause = tq_unknown("filter field", "fields", f->field, keys,
			    flags, n, false);
			return -1;
		}
		if (tq_ops[f->op].numeric && !(flags[c] & TABLE_NUM)) {
			*cause = tq_unknown("numeric field", "numeric fields",
			    f->field, keys, flags, n, true);
			return -1;
		}
		if (tq_ops[f->op].numeric && !tq_number(f->value, &v)) {
			*cause = xasprintf("invalid filter '%s': '%s' is not a number",
			    f->expr, f->value);
			return -1;
		}
		if (flags[c] & TABLE_HOSTS) {
			struct strvec sv = STRVEC_INIT;
			char *why = NULL;
			int rc = hostlist_expand(f->value, &sv, &why);

			strvec_release(&sv);
			if (rc != 0) {
				*cause = xasprintf("invalid filter '%s': %s", f->expr, why);
				free(why);
				return -1;
			}
		}
		if (cols != NULL)
			cols[q->nkeys + i] = c;
	}
	return 0;
}

int
table_query_check(const struct table_query *q, const struct table_colspec *cols,
    char **cause)
{
	const char **keys, **headers;
	unsigned *flags;
	int n = 0, c, rc;

	if (table_query_empty(q))
		return 0;
	while (cols[n].header != NULL)
		n++;
	keys = xcalloc((size_t)n + 1, sizeof *keys);
	headers = xcalloc((size_t)n + 1, sizeof *headers);
	flags = xcalloc((size_t)n + 1, sizeof *flags);
	for (c = 0; c < n; c++) {
		keys[c] = cols[c].key;
		headers[c] = cols[c].header;
		flags[c] = cols[c].flags;
	}
	rc = tq_resolve(q, keys, headers, flags, n, NULL, cause);
	free(keys);
	free(headers);
	free(flags);
	return rc;
}

/* ---- matching ---- */

static int
tq_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Glob with '*' and '?', without regard to ASCII case; iterative. */
static bool
tq_glob(const char *pat, const char *s)
{
	const char *star = NULL, *retry = NULL;

	while (*s != '\0') {
		if (*pat == '*') {
			star = ++pat;
			retry = s;
		} else if (*pat != '\0' && (*pat == '?' || tq_lower(*pat) == tq_lower(*s))) {
			pat++;
			s++;
		} else if (star != NULL) {
			pat = star;
			s = ++retry;
		} else
			return false;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

/* One alternative against one value: numbers compare as numbers. */
static bool
tq_alt_match(const char *alt, const char *text, bool numeric)
{
	double a, b;

	if (numeric && tq_number(alt, &a) && tq_number(text, &b))
		return a == b;
	return tq_glob(alt, text);
}

/* Split a value into its alternatives: a hostlist, or ','-separated. */
static void
tq_alternatives(const char *value, unsigned flags, struct strvec *out)
{
	const char *p = value, *comma;
	char *why = NULL;

	if ((flags & TABLE_HOSTS) && hostlist_expand(value, out, &why) == 0)
		return;
	free(why);
	strvec_release(out);
	for (;;) {
		comma = strchr(p, ',');
		strvec_push_nodup(out, comma ? xstrndup(p, (size_t)(comma - p)) :
		    xstrdup(p));
		if (comma == NULL)
			return;
		p = comma + 1;
	}
}

/* Does text (a cell) hold a value equal to one of the alternatives? */
static bool
tq_equal(const struct strvec *alts, const char *text, unsigned flags)
{
	struct strvec names = STRVEC_INIT;
	char *why = NULL;
	size_t i, k;
	bool hit = false;

	if (!(flags & TABLE_HOSTS) || hostlist_expand(text, &names, &why) != 0) {
		free(why);
		strvec_release(&names);
		for (i = 0; i < alts->n; i++)
			if (tq_alt_match(alts->v[i], text, (flags & TABLE_NUM) != 0))
				return true;
		return false;
	}
	for (k = 0; k < names.n && !hit; k++)
		for (i = 0; i < alts->n && !hit; i++)
			hit = tq_glob(alts->v[i], names.v[k]);
	strvec_release(&names);
	return hit;
}

static bool
tq_keep(const struct tq_filter *f, const struct strvec *alts, const char *text,
    unsigned flags)
{
	double a, b;

	switch (tq_ops[f->op].op) {
	case TQ_EQ:
		return tq_equal(alts, text, flags);
	case TQ_NE:
		return !tq_equal(alts, text, flags);
	default:
		break;
	}
	/* Ordered comparisons: a cell that is no number never matches. */
	if (!tq_number(text, &a) || !tq_number(f->value, &b))
		return false;
	switch (tq_ops[f->op].op) {
	case TQ_LT: return a < b;
	case TQ_LE: return a <= b;
	case TQ_GT: return a > b;
	default: return a >= b;
	}
}

/* ---- sorting ---- */

/*
 * Natural order: runs of digits compare as numbers ("r0n2" < "r0n10"),
 * letters without regard to case; ties fall back to strcmp.
 */
static int
tq_natcmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;

	while (*a != '\0' && *b != '\0') {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			const char *ea = a, *eb = b;
			size_t la, lb;

			while (*a == '0' && a[1] >= '0' && a[1] <= '9')
				a++;
			while (*b == '0' && b[1] >= '0' && b[1] <= '9')
				b++;
			for (ea = a; *ea >= '0' && *ea <= '9'; ea++)
				;
			for (eb = b; *eb >= '0' && *eb <= '9'; eb++)
				;
			la = (size_t)(ea - a);
			lb = (size_t)(eb - b);
			if (la != lb)
				return la < lb ? -1 : 1;
			if (memcmp(a, b, la) != 0)
				return memcmp(a, b, la);
			a = ea;
			b = eb;
			continue;
		}
		if (tq_lower((unsigned char)*a) != tq_lower((unsigned char)*b))
			return tq_lower((unsigned char)*a) - tq_lower((unsigned char)*b);
		a++;
		b++;
	}
	if (*a != *b)
		return *a == '\0' ? -1 : 1;
	return strcmp(a0, b0);
}

struct tq_sortctx {
	const struct table	*t;
	const struct table_query *q;
	const int		*cols;
};

/* Compare two rows by the sort keys; 0 when they tie on all of them. */
static int
tq_rowcmp(const struct tq_sortctx *x, size_t ra, size_t rb)
{
	size_t k;

	for (k = 0; k < x->q->nkeys; k++) {
		int c = x->cols[k], d;
		const char *sa = table_text(&x->t->rows[ra], c);
		const char *sb = table_text(&x->t->rows[rb], c);
		double va, vb;

		if (x->t->cols[c].flags & TABLE_NUM) {
			bool na = tq_number(sa, &va), nb = tq_number(sb, &vb);

			if (na != nb)	/* invariant 4: numbers first, either way */
				return na ? -1 : 1;
			if (na) {
				d = va < vb ? -1 : va > vb ? 1 : 0;
				if (d != 0)
					return x->q->keys[k].desc ? -d : d;
				continue;
			}
		}
		if ((d = tq_natcmp(sa, sb)) != 0)
			return x->q->keys[k].desc ? -d : d;
	}
	return 0;
}

/* Stable merge sort of idx[0..n) using tmp as scratch. */
static void
tq_msort(const struct tq_sortctx *x, size_t *idx, size_t *tmp, size_t n)
{
	size_t mid = n / 2, i = 0, j, k = 0;

	if (n < 2)
		return;
	tq_msort(x, idx, tmp, mid);
	tq_msort(x, idx + mid, tmp, n - mid);
	j = mid;
	while (i < mid && j < n)
		tmp[k++] = tq_rowcmp(x, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
	while (i < mid)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof *idx);
}

static void
tq_free_row(struct table *t, size_t r)
{
	int c;

	for (c = 0; c < t->rows[r].n; c++)
		free(t->rows[r].cells[c].text);
	free(t->rows[r].cells);
}

int
table_query_apply(struct table *t, const struct table_query *q, char **cause)
{
	const char **keys, **headers;
	unsigned *flags;
	struct strvec *alts;
	struct tq_sortctx x;
	struct table_rowv *rows;
	size_t *idx, *tmp, r, i, n = 0;
	int *cols, c, rc = -1;

	if (table_query_empty(q))
		return 0;
	keys = xcalloc((size_t)t->ncols + 1, sizeof *keys);
	headers = xcalloc((size_t)t->ncols + 1, sizeof *headers);
	flags = xcalloc((size_t)t->ncols + 1, sizeof *flags);
	cols = xcalloc(q->nkeys + q->nfilters + 1, sizeof *cols);
	alts = xcalloc(q->nfilters + 1, sizeof *alts);
	for (c = 0; c < t->ncols; c++) {
		keys[c] = t->cols[c].key;
		headers[c] = t->cols[c].header;
		flags[c] = t->cols[c].flags;
	}
	if (tq_resolve(q, keys, headers, flags, t->ncols, cols, cause) != 0)
		goto out;
	for (i = 0; i < q->nfilters; i++)
		tq_alternatives(q->filters[i].value, flags[cols[q->nkeys + i]], &alts[i]);

	/* Filters: every one must hold; dropped rows are freed now. */
	idx = xcalloc(t->nrows + 1, sizeof *idx);
	for (r = 0; r < t->nrows; r++) {
		bool keep = true;

		for (i = 0; i < q->nfilters && keep; i++) {
			c = cols[q->nkeys + i];
			keep = tq_keep(&q->filters[i], &alts[i],
			    table_text(&t->rows[r], c), flags[c]);
		}
		if (keep)
			idx[n++] = r;
		else
			tq_free_row(t, r);
	}
	x.t = t;
	x.q = q;
	x.cols = cols;
	tmp = xcalloc(n + 1, sizeof *tmp);
	tq_msort(&x, idx, tmp, n);
	free(tmp);
	rows = xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++) {
		rows[i] = t->rows[idx[i]];
		rows[i].indent = 0;	/* invariant 3: shown flat */
	}
	free(idx);
	free(t->rows);
	t->rows = rows;
	t->nrows = n;
	t->rowcap = n + 1;
	rc = 0;
out:
	for (i = 0; i < q->nfilters; i++)
		strvec_release(&alts[i]);
	free(alts);
	free(cols);
	free(keys);
	free(headers);
	free(flags);
	return rc;
}
