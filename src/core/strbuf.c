/*
 * strbuf.c — growable strings. Every command writes its output into one of
 * these, so formatting never touches stdio directly.
 */
#include "core/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/xmalloc.h"

char strbuf_empty_[1];

void
strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty_;
	sb->len = 0;
	sb->alloc = 0;
}

void
strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *
strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *p;

	if (len)
		*len = sb->len;
	p = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb);
	return p;
}

void
strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void
strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (sb->alloc == 0)
		return;
	if (len > sb->len)
		fatal("strbuf_setlen beyond length");
	sb->len = len;
	sb->buf[len] = '\0';
}

void
strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc)
		return;
	if (sb->alloc == 0)
		sb->buf = NULL;
	XGROW(sb->buf, sb->alloc, need);
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void
strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void
strbuf_adds(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void
strbuf_addc(struct strbuf *sb, char c)
{
	strbuf_add(sb, &c, 1);
}

void
strbuf_addchars(struct strbuf *sb, char c, size_t n)
{
	strbuf_grow(sb, n);
	memset(sb->buf + sb->len, c, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void
strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	size_t avail;
	int n;

	/* format once into the room there is; again only if it did not fit
	   (measuring first formatted every line twice) */
	strbuf_grow(sb, 64);
	avail = sb->alloc - sb->len;
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, avail, fmt, cp);
	va_end(cp);
	if (n < 0) {
		sb->buf[sb->len] = '\0';
		fatal("strbuf_vaddf: bad format '%s'", fmt);
	}
	if ((size_t)n >= avail) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	}
	sb->len += (size_t)n;
}

void
strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void
strbuf_add_json_str(struct strbuf *sb, const char *s)
{
	const unsigned char *p;

	strbuf_addc(sb, '"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  strbuf_adds(sb, "\\\""); break;
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		case '\t': strbuf_adds(sb, "\\t"); break;
		default:
			if (*p < 0x20)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addc(sb, (char)*p);
		}
	}
	strbuf_addc(sb, '"');
}

int
bufprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len == 0)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

int
strbuf_read_file(struct strbuf *sb, const char *path, size_t max, char **cause)
{
	char buf[65536];
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot read '%s': %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if ((r = read(fd, buf, sizeof buf)) < 0) {
			if (errno == EINTR)
				continue;
			*cause = xasprintf("cannot read '%s': %s", path, strerror(errno));
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		if (max > 0 && sb->len + (size_t)r > max) {
			*cause = xasprintf("cannot read '%s': more than %zu MiB", path,
			    max >> 20);
			close(fd);
			return -1;
		}
		strbuf_add(sb, buf, (size_t)r);
	}
	close(fd);
	return 0;
}
