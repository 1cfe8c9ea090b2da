/*
 * suggest.c — edit distance and the "did you mean" hint (suggest.h). The
 * distance is the optimal string alignment one (Damerau-Levenshtein
 * without repeated edits of a substring), on ASCII letters folded to lower
 * case: "virtualcluster" is one edit from "virtualClusters", "prdo" one
 * from "prod". Three rolling rows, so memory follows the shorter word.
 */
#include <stdlib.h>
#include <string.h>

#include "core/suggest.h"
#include "core/xmalloc.h"

static int
fold(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int
min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *prev2, *prev, *cur, *tmp, d;

	if (lb > la) {		/* rows as long as the shorter word */
		const char *t = a;

		a = b;
		b = t;
		i = la;
		la = lb;
		lb = i;
	}
	prev2 = xcalloc(lb + 1, sizeof *prev2);
	prev = xcalloc(lb + 1, sizeof *prev);
	cur = xcalloc(lb + 1, sizeof *cur);
	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int cost = fold((unsigned char)a[i - 1]) !=
			    fold((unsigned char)b[j - 1]);

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 &&
			    fold((unsigned char)a[i - 1]) == fold((unsigned char)b[j - 2]) &&
			    fold((unsigned char)a[i - 2]) == fold((unsigned char)b[j - 1]) &&
			    prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
		tmp = prev2;
		prev2 = prev;
		prev = cur;
		cur = tmp;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

const char *
suggest_closest(const char *word, const char *const *cands, size_t n)
{
	size_t wl = strlen(word), i, cl;
	int limit = (int)((wl + 1) / 3), best = -1, d;
	const char *hit = NULL;

	if (limit > SUGGEST_MAX_EDITS)
		limit = SUGGEST_MAX_EDITS;
	if (wl == 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if (cands[i] == NULL)
			continue;
		cl = strlen(cands[i]);
		/* the lengths alone may rule it out: no table to fill */
		if ((cl > wl ? cl - wl : wl - cl) > (size_t)limit)
			continue;
		d = suggest_distance(word, cands[i]);
		if (d <= limit && (best < 0 || d < best)) {
			best = d;
			hit = cands[i];
		}
	}
	return hit;
}

void
suggest_hint(struct strbuf *sb, const char *word, const char *const *cands,
    size_t n, const char *what)
{
	const char *hit = suggest_closest(word, cands, n);
	size_t i, shown = 0;

	if (hit == NULL && (what == NULL || n == 0))
		return;
	strbuf_adds(sb, " (");
	if (hit != NULL)
		strbuf_addf(sb, "did you mean '%s'?%s", hit,
		    what != NULL && n > 0 ? " " : "");
	if (what != NULL && n > 0) {
		strbuf_addf(sb, "%s: ", what);
		for (i = 0; i < n; i++) {
			if (cands[i] == NULL)
				continue;
			if (shown == SUGGEST_MAX_LIST) {
				strbuf_addf(sb, " and %zu more", n - i);
				break;
			}
			strbuf_addf(sb, "%s%s", shown ? ", " : "", cands[i]);
			shown++;
		}
	}
	strbuf_addc(sb, ')');
}
