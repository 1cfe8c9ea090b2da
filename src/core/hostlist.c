/*
 * hostlist.c — compress node names into "node[01-16]" ranges and expand them
 * back. Core utility: the command layer prints job placements and node sets
 * with it, and accepts hostlists wherever a node name is expected.
 */
#include "core/hostlist.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"

/* Longer digit runs would overflow long long; such names stay literal. */
#define HOSTLIST_MAX_DIGITS	18

/* One name split around its last run of digits. */
struct hl_item {
	const char	*name;
	size_t		 pre;		/* prefix length */
	size_t		 ndig;		/* digit run length, 0 for a literal */
	long long	 num;
	bool		 padded;	/* leading zero in a run of 2+ digits */
	int		 group;
};

/* Names sharing prefix, suffix and print width. */
struct hl_group {
	const struct hl_item	*first;	/* prefix and suffix come from here */
	int			 width;	/* 0: natural width */
	bool			 literal;
	long long		*nums;
	size_t			 n, cap;
	size_t			 order;	/* index of the first member */
};

static void
hl_split(struct hl_item *it, const char *name)
{
	size_t len = strlen(name), end, start;

	it->name = name;
	it->pre = len;
	it->ndig = 0;
	it->num = 0;
	it->padded = false;
	it->group = -1;
	if (strpbrk(name, "[],") != NULL)
		return;		/* invariant 3 */
	for (end = len; end > 0 && (name[end - 1] < '0' || name[end - 1] > '9'); end--)
		;
	if (end == 0)
		return;
	for (start = end; start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9'; start--)
		;
	if (end - start > HOSTLIST_MAX_DIGITS)
		return;
	it->pre = start;
	it->ndig = end - start;
	it->num = strtoll(name + start, NULL, 10);
	it->padded = it->ndig > 1 && name[start] == '0';
}

static bool
hl_same_frame(const struct hl_item *a, const struct hl_item *b)
{
	const char *sa = a->name + a->pre + a->ndig, *sb = b->name + b->pre + b->ndig;

	return a->pre == b->pre && strncmp(a->name, b->name, a->pre) == 0 &&
	    strcmp(sa, sb) == 0;
}

static int
hl_find_group(struct hl_group *g, size_t ng, const struct hl_item *it, int width)
{
	size_t i;

	for (i = 0; i < ng; i++)
		if (!g[i].literal && g[i].width == width && hl_same_frame(g[i].first, it))
			return (int)i;
	return -1;
}

static int
hl_cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static int
hl_cmp_order(const void *a, const void *b)
{
	const struct hl_group *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

/* Digits by hand: every alloc prints a few hostlists, and snprintf's
   format parsing was a third of compress's cost (callgrind, bench-batch). */
static void
hl_add_num(struct strbuf *sb, long long v, int width)
{
	char buf[24];
	unsigned long long u = (unsigned long long)v;	/* a digit run: >= 0 */
	int n = 0;

	do {
		buf[sizeof buf - 1 - n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u > 0);
	while (n < width && n < (int)sizeof buf - 1)
		buf[sizeof buf - 1 - n++] = '0';
	strbuf_add(sb, buf + sizeof buf - n, (size_t)n);
}

static void
hl_print_group(struct strbuf *sb, struct hl_group *g)
{
	const struct hl_item *f = g->first;
	size_t i, j, k = 0;

	if (g->literal) {
		strbuf_adds(sb, f->name);
		return;
	}
	qsort(g->nums, g->n, sizeof *g->nums, hl_cmp_ll);
	for (i = 0; i < g->n; i++)	/* drop duplicates */
		if (k == 0 || g->nums[k - 1] != g->nums[i])
			g->nums[k++] = g->nums[i];
	g->n = k;
	strbuf_add(sb, f->name, f->pre);
	if (g->n == 1)
		hl_add_num(sb, g->nums[0], g->width);
	else {
		strbuf_addc(sb, '[');
		for (i = 0; i < g->n; i = j) {
			for (j = i + 1; j < g->n && g->nums[j] == g->nums[j - 1] + 1; j++)
				;
			if (i > 0)
				strbuf_addc(sb, ',');
			hl_add_num(sb, g->nums[i], g->width);
			if (j - i > 1) {
				strbuf_addc(sb, '-');
				hl_add_num(sb, g->nums[j - 1], g->width);
			}
		}
		strbuf_addc(sb, ']');
	}
	strbuf_adds(sb, f->name + f->pre + f->ndig);
}

char *
hostlist_compress(char *const *names, size_t n)
{
	/* a pod's few GPUs or nodes, on every alloc: no malloc for those */
	struct hl_item small[16];
	struct hl_item *items = n <= 16 ? small : xcalloc(n, sizeof *items);
	struct hl_group *g = NULL;
	size_t ng = 0, gcap = 0, i, j;
	struct strbuf sb = STRBUF_INIT;
	int gi, width;

	for (i = 0; i < n; i++)
		hl_split(&items[i], names[i]);

	/*
	 * Padded groups first, so that an unpadded number of the same width
	 * ("10" next to "09") can join them whatever the input order.
	 */
	for (i = 0; i < n; i++) {
		if (!items[i].padded || hl_find_group(g, ng, &items[i], (int)items[i].ndig) >= 0)
			continue;
		XGROW(g, gcap, ng + 1);
		memset(&g[ng], 0, sizeof g[ng]);
		g[ng].first = &items[i];
		g[ng].width = (int)items[i].ndig;
		g[ng].order = i;
		ng++;
	}
	for (i = 0; i < n; i++) {
		struct hl_item *it = &items[i];

		if (it->ndig == 0) {
			/* A literal: one group per distinct name. */
			for (j = 0; j < ng; j++)
				if (g[j].literal && strcmp(g[j].first->name, it->name) == 0)
					break;
			if (j < ng)
				continue;
			XGROW(g, gcap, ng + 1);
			memset(&g[ng], 0, sizeof g[ng]);
			g[ng].first = it;
			g[ng].literal = true;
			g[ng].order = i;
			ng++;
			continue;
		}
		gi = hl_find_group(g, ng, it, (int)it->ndig);
		width = (int)it->ndig;
		if (gi < 0 && !it->padded) {
			width = 0;
			gi = hl_find_group(g, ng, it, 0);
		}
		if (gi < 0) {
			XGROW(g, gcap, ng + 1);
			memset(&g[ng], 0, sizeof g[ng]);
			g[ng].first = it;
			g[ng].width = width;
			g[ng].order = i;
			gi = (int)ng++;
		}
		if (g[gi].order > i)
			g[gi].order = i;
		XGROW(g[gi].nums, g[gi].cap, g[gi].n + 1);
		g[gi].nums[g[gi].n++] = it->num;
	}

	if (ng > 1)		/* qsort(NULL, 0, ...) is undefined */
		qsort(g, ng, sizeof *g, hl_cmp_order);
	for (i = 0; i < ng; i++) {
		if (i > 0)
			strbuf_addc(&sb, ',');
		hl_print_group(&sb, &g[i]);
		free(g[i].nums);
	}
	free(g);
	if (items != small)
		free(items);
	return strbuf_detach(&sb, NULL);
}

/* ---- expansion ---- */

struct hl_expand {
	const char	*expr;		/* the whole expression, for messages */
	struct strvec	*out;
	size_t		 made;
	char		**cause;
};

static bool
hl_digits(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || n > HOSTLIST_MAX_DIGITS)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Expand elem[0..len) with prefix already in sb. */
static int
hl_expand_elem(struct hl_expand *x, struct strbuf *sb, const char *elem, size_t len)
{
	const char *open, *close, *r, *rend, *dash, *end = elem + len;
	size_t keep = sb->len, i;
	long long lo, hi, v;
	int width;

	open = memchr(elem, '[', len);
	close = memchr(elem, ']', open ? (size_t)(open - elem) : len);
	if (close != NULL) {
		*x->cause = xasprintf("unbalanced ']' in hostlist '%s'", x->expr);
		return -1;
	}
	if (open == NULL) {
		if (x->made >= HOSTLIST_MAX) {
			*x->cause = xasprintf("hostlist '%s' expands to more than %d names",
			    x->expr, HOSTLIST_MAX);
			return -1;
		}
		strbuf_add(sb, elem, len);
		strvec_push(x->out, sb->buf);
		x->made++;
		strbuf_setlen(sb, keep);
		return 0;
	}
	for (close = open + 1; close < end && *close != ']'; close++)
		if (*close == '[') {
			*x->cause = xasprintf("nested '[' in hostlist '%s'", x->expr);
			return -1;
		}
	if (close == end) {
		*x->cause = xasprintf("unbalanced '[' in hostlist '%s'", x->expr);
		return -1;
	}
	if (close == open + 1) {
		*x->cause = xasprintf("empty brackets in hostlist '%s'", x->expr);
		return -1;
	}
	for (r = open + 1; r < close; r = rend + 1) {
		rend = memchr(r, ',', (size_t)(close - r));
		if (rend == NULL)
			rend = close;
		dash = memchr(r, '-', (size_t)(rend - r));
		if (!hl_digits(r, (size_t)((dash ? dash : rend) - r)) ||
		    (dash && !hl_digits(dash + 1, (size_t)(rend - dash - 1)))) {
			*x->cause = xasprintf("bad range '%.*s' in hostlist '%s'",
			    (int)(rend - r), r, x->expr);
			return -1;
		}
		lo = strtoll(r, NULL, 10);
		hi = dash ? strtoll(dash + 1, NULL, 10) : lo;
		width = (dash ? dash : rend) - r > 1 && *r == '0' ? (int)((dash ? dash : rend) - r) : 0;
		if (hi < lo) {
			*x->cause = xasprintf("bad range '%.*s' in hostlist '%s': "
			    "end before start", (int)(rend - r), r, x->expr);
			return -1;
		}
		if (hi - lo >= HOSTLIST_MAX) {
			*x->cause = xasprintf("hostlist '%s' expands to more than %d names",
			    x->expr, HOSTLIST_MAX);
			return -1;
		}
		for (v = lo; v <= hi; v++) {
			strbuf_add(sb, elem, (size_t)(open - elem));
			strbuf_addf(sb, "%0*lld", width, v);
			i = (size_t)(end - close - 1);
			if (hl_expand_elem(x, sb, close + 1, i) != 0)
				return -1;
			strbuf_setlen(sb, keep);
		}
	}
	return 0;
}

int
hostlist_expand(const char *expr, struct strvec *out, char **cause)
{
	struct hl_expand x = { expr, out, 0, cause };
	struct strbuf sb = STRBUF_INIT;
	const char *p = expr, *q;
	int depth, rc = 0;

	if (*expr == '\0') {
		*cause = xstrdup("empty hostlist");
		return -1;
	}
	while (rc == 0) {
		/* The element ends at a comma outside brackets. */
		for (q = p, depth = 0; *q != '\0' && (*q != ',' || depth > 0); q++)
			if (*q == '[')
				depth++;
			else if (*q == ']' && depth > 0)
				depth--;
		if (q == p) {
			*cause = xasprintf("empty name in hostlist '%s'", expr);
			rc = -1;
			break;
		}
		rc = hl_expand_elem(&x, &sb, p, (size_t)(q - p));
		if (*q == '\0')
			break;
		p = q + 1;
	}
	strbuf_release(&sb);
	return rc;
}
