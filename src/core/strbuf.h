/*
 * strbuf.h — a growable NUL-terminated byte buffer (after git's strbuf).
 *
 * Ownership: a strbuf owns its buffer; strbuf_release frees it and leaves an
 * empty, reusable strbuf. strbuf_detach hands the buffer to the caller.
 *
 * Invariants:
 *  1. buf is never NULL after strbuf_init; buf[len] == '\0'.
 *  2. len < alloc whenever alloc > 0.
 */
#ifndef CELLAR_STRBUF_H
#define CELLAR_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char	*buf;
	size_t	 len;
	size_t	 alloc;
};

#define STRBUF_INIT { strbuf_empty_, 0, 0 }
extern char strbuf_empty_[1];

void	 strbuf_init(struct strbuf *sb);
void	 strbuf_release(struct strbuf *sb);
char	*strbuf_detach(struct strbuf *sb, size_t *len);
void	 strbuf_reset(struct strbuf *sb);
void	 strbuf_grow(struct strbuf *sb, size_t extra);
void	 strbuf_add(struct strbuf *sb, const void *data, size_t len);
void	 strbuf_adds(struct strbuf *sb, const char *s);
void	 strbuf_addc(struct strbuf *sb, char c);
void	 strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append n copies of c. */
void	 strbuf_addchars(struct strbuf *sb, char c, size_t n);
/* Append s as a JSON string literal, quotes included. */
void	 strbuf_add_json_str(struct strbuf *sb, const char *s);
void	 strbuf_setlen(struct strbuf *sb, size_t len);
/* Append the whole of file path (at most max bytes; 0: no bound); 0, or
   -1 with *cause ("cannot read 'PATH': ..."). */
int	 strbuf_read_file(struct strbuf *sb, const char *path, size_t max,
	    char **cause);

/*
 * snprintf into a caller buffer, always NUL-terminated. For the pure layers
 * (engine, policies), which must not include <stdio.h>.
 */
int	 bufprintf(char *buf, size_t len, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
