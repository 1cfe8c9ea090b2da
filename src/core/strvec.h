/*
 * strvec.h — a growable array of owned, malloc'ed strings (after git's
 * strvec). Used for word lists: tokenized command lines, expanded hostlists.
 *
 * Ownership: a strvec owns every string in it; strvec_release frees them all
 * and leaves an empty, reusable strvec.
 *
 * Invariants:
 *  1. v is NULL when cap == 0; otherwise v[n] == NULL (argv-style).
 *  2. n < cap whenever cap > 0.
 */
#ifndef CELLAR_STRVEC_H
#define CELLAR_STRVEC_H

#include <stddef.h>

struct strvec {
	char	**v;
	size_t	  n;
	size_t	  cap;
};

#define STRVEC_INIT { NULL, 0, 0 }

void	strvec_init(struct strvec *sv);
void	strvec_release(struct strvec *sv);
/* Append a copy of s. */
void	strvec_push(struct strvec *sv, const char *s);
/* Append s itself; the strvec takes ownership. */
void	strvec_push_nodup(struct strvec *sv, char *s);
void	strvec_pushf(struct strvec *sv, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
