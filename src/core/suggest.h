/*
 * suggest.h — "did you mean": the one edit distance of the program and the
 * hint every "unknown NAME" message appends (commands, VCs, policies,
 * sharing modes, spec keys), so a misspelt word is answered with the
 * closest valid one and the list of valid values, the same way everywhere.
 *
 * Ownership: nothing is kept; candidates are borrowed for the call.
 *
 * Invariants:
 *  1. suggest_distance is symmetric, 0 exactly for words equal ignoring
 *     ASCII case, and counts a swap of two neighbouring letters as one
 *     edit (optimal string alignment).
 *  2. suggest_closest returns a candidate only within SUGGEST_MAX_EDITS
 *     edits and at most a third of the word's length (rounded to the
 *     nearest: "frob" is not one edit from "job", "prdo" is from "prod"), the
 *     first of the closest in the candidates' order: the same input gives
 *     the same suggestion.
 */
#ifndef CELLAR_SUGGEST_H
#define CELLAR_SUGGEST_H

#include <stddef.h>

#include "core/strbuf.h"

#define SUGGEST_MAX_EDITS	3	/* beyond this a word is not a typo */
#define SUGGEST_MAX_LIST	16	/* valid values listed, then "N more" */

/* Edits (insert, delete, substitute, swap neighbours) from a to b. */
int		 suggest_distance(const char *a, const char *b);
/* The candidate word most likely meant (invariant 2), or NULL. */
const char	*suggest_closest(const char *word, const char *const *cands,
		    size_t n);
/*
 * Append " (did you mean 'X'? WHAT: a, b, c)" to sb: the suggestion when
 * there is one, then the valid values (at most SUGGEST_MAX_LIST, "and N
 * more" after them) when what is not NULL. Nothing when there is neither.
 */
void		 suggest_hint(struct strbuf *sb, const char *word,
		    const char *const *cands, size_t n, const char *what);

#endif
