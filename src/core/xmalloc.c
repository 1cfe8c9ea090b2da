/*
 * xmalloc.c — the allocation wrappers of xmalloc.h. Out-of-memory is the one
 * runtime failure cellar does not try to survive.
 */
#include "core/xmalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("cellar: fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

void *
xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu x %zu bytes)", nmemb, size);
	return p;
}

void *
xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (p == NULL)
		fatal("out of memory (%zu bytes)", size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		fatal("allocation overflow (%zu x %zu)", nmemb, size);
	return xrealloc(ptr, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("xasprintf: bad format '%s'", fmt);
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void
xgrow(void **arr, size_t *cap, size_t need, size_t sz)
{
	size_t ncap;

	if (need <= *cap)
		return;
	ncap = *cap ? *cap : 8;
	while (ncap < need)
		ncap *= 2;
	*arr = xreallocarray(*arr, ncap, sz);
	*cap = ncap;
}
