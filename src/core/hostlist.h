/*
 * hostlist.h — compact node-name lists ("node[01-16]", Slurm style).
 *
 * Owns nothing between calls. hostlist_compress() returns a malloc'ed string
 * the caller frees; hostlist_expand() appends malloc'ed names to a strvec the
 * caller owns.
 *
 * Grammar of an expression: elements separated by ',' at bracket depth 0; an
 * element is literal text with any number of bracket groups "[R,R,...]",
 * each R a number "7" or a range "01-16". The element expands to the cartesian
 * product of its groups, left to right. A range keeps the width of its lower
 * bound when that bound is zero-padded ("[08-10]" gives 08 09 10).
 *
 * Invariants:
 *  1. hostlist_expand(hostlist_compress(names)) yields the distinct names in
 *     the same multiset order as the groups printed (first appearance of each
 *     group, numbers ascending inside a group).
 *  2. compress varies only the last run of digits of a name; earlier digits
 *     stay in the prefix ("r0n[00-07],r1n[00-07]"). Zero padding is kept: a
 *     number joins a padded group only when printing it at that width gives
 *     back the same digits ("node09,node10" -> "node[09-10]", but
 *     "node9,node09" stays two groups).
 *  3. A name holding '[', ']' or ',' (not a valid node name) is copied
 *     verbatim, never bracketed.
 */
#ifndef CELLAR_HOSTLIST_H
#define CELLAR_HOSTLIST_H

#include <stddef.h>

#include "core/strvec.h"

/* The most names one expansion may produce; more is an error, not a hang. */
#define HOSTLIST_MAX	65536

/* Compress n names (duplicates dropped) into one expression; "" when n == 0. */
char	*hostlist_compress(char *const *names, size_t n);

/*
 * Expand an expression, appending every name to out. Returns 0, or -1 with
 * *cause set (malloc'ed) on a syntax error or an expansion over HOSTLIST_MAX;
 * out may then hold a partial result.
 */
int	 hostlist_expand(const char *expr, struct strvec *out, char **cause);

#endif
