/*
 * xmalloc.h — allocation that never returns NULL.
 *
 * Owns nothing. Every function aborts the program with a message on
 * out-of-memory (the only condition cellar treats as fatal besides
 * programmer errors); callers never check for NULL.
 */
#ifndef CELLAR_XMALLOC_H
#define CELLAR_XMALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/* Like reallocarray(3): nmemb * size with overflow checking. */
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A malloc'ed string built like printf. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *cap elements of size sz) so it holds at least need elements. */
void xgrow(void **arr, size_t *cap, size_t need, size_t sz);
#define XGROW(arr, cap, need) xgrow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* Programmer error: print and abort. Never for user input. */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
