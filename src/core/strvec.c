/*
 * strvec.c — owned string arrays. Core utility with no project deps; the
 * tokenizer and hostlist expansion hand their results back in one.
 */
#include "core/strvec.h"

#include <stdarg.h>
#include <stdlib.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"

void
strvec_init(struct strvec *sv)
{
	sv->v = NULL;
	sv->n = 0;
	sv->cap = 0;
}

void
strvec_release(struct strvec *sv)
{
	size_t i;

	for (i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	strvec_init(sv);
}

void
strvec_push_nodup(struct strvec *sv, char *s)
{
	/* One slot more than n keeps the array NULL-terminated. */
	XGROW(sv->v, sv->cap, sv->n + 2);
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
strvec_push(struct strvec *sv, const char *s)
{
	strvec_push_nodup(sv, xstrdup(s));
}

void
strvec_pushf(struct strvec *sv, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strvec_push_nodup(sv, strbuf_detach(&sb, NULL));
}
