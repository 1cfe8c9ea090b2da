/*
 * sample.c — read a service sample (Tiresias' yarn-gput*.csv) into an array
 * of GPU-seconds for the gittins policy. See sample.h.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/xmalloc.h"
#include "sim/sample.h"

#define SAMPLE_COLUMN	"duration"

/* One line being read: its text, number and where each field starts. */
struct line {
	const char	*p;
	size_t		 len;
	int		 no;
};

static bool
blank(const struct line *l)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (l->p[i] != ' ' && l->p[i] != '\t' && l->p[i] != '\r')
			return false;
	return true;
}

/*
 * Field number col of line l (0-based), trimmed; *at is its 1-based
 * column. Returns false when the line has fewer fields.
 */
static bool
field(const struct line *l, int col, const char **f, size_t *flen, size_t *at)
{
	size_t i = 0, start, end;
	int c = 0;

	for (;;) {
		start = i;
		while (i < l->len && l->p[i] != ',')
			i++;
		if (c == col)
			break;
		if (i == l->len)
			return false;
		i++;
		c++;
	}
	end = i;
	while (start < end && (l->p[start] == ' ' || l->p[start] == '\t'))
		start++;
	while (end > start && (l->p[end - 1] == ' ' || l->p[end - 1] == '\t' ||
	    l->p[end - 1] == '\r'))
		end--;
	*f = l->p + start;
	*flen = end - start;
	*at = start + 1;
	return true;
}

static int
nfields(const struct line *l)
{
	size_t i;
	int n = 1;

	for (i = 0; i < l->len; i++)
		if (l->p[i] == ',')
			n++;
	return n;
}

/* Parse a decimal number: digits [. digits] [e [+-] digits], whole field. */
static bool
number(const char *s, size_t len, double *out)
{
	double v = 0, scale = 1;
	size_t i = 0, digits = 0;
	int ex = 0, esign = 1, edigits = 0;

	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
		v = v * 10 + (s[i] - '0');
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
			v += (s[i] - '0') * (scale /= 10);
	if (digits == 0)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '+' || s[i] == '-'))
			esign = s[i++] == '-' ? -1 : 1;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, edigits++)
			if (ex < 10000)
				ex = ex * 10 + (s[i] - '0');
		if (edigits == 0)
			return false;
		if (v != 0)
			v *= pow(10, esign * ex);
	}
	if (i != len)
		return false;
	*out = v;
	return true;
}

/* An error about field f of line l: "file:line:col: <pre> 'f' <post>". */
static int
fail(char **cause, const char *name, const struct line *l, size_t col,
    const char *pre, const char *f, size_t flen, const char *post)
{
	*cause = xasprintf("%s:%d:%zu: %s '%.*s' %s", name, l->no, col, pre,
	    (int)(flen > 40 ? 40 : flen), f, post);
	return -1;
}

int
sample_load_string(const char *name, const char *text, size_t len,
    struct sample *s, char **cause)
{
	struct line l;
	const char *p = text, *end = text + len, *nl, *f;
	size_t cap = 0, flen, at;
	double v;
	int col = 0, i, n;
	bool header = true;

	s->v = NULL;
	s->n = 0;
	for (l.no = 1; p < end; l.no++, p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		l.p = p;
		l.len = (size_t)(nl - p);
		if (blank(&l))
			continue;
		if (header) {
			header = false;
			n = nfields(&l);
			for (i = 0; i < n; i++) {
				field(&l, i, &f, &flen, &at);
				if (flen == strlen(SAMPLE_COLUMN) &&
				    strncasecmp(f, SAMPLE_COLUMN, flen) == 0)
					break;
			}
			if (i < n) {
				col = i;
				continue;
			}
			field(&l, 0, &f, &flen, &at);
			if (n == 1 && !number(f, flen, &v))
				continue;	/* a single column, named otherwise */
			if (n > 1) {
				*cause = xasprintf("%s:%d:1: no '%s' column in the header",
				    name, l.no, SAMPLE_COLUMN);
				goto out_free;
			}
			/* a single column and no header: this line is data */
		}
		if (!field(&l, col, &f, &flen, &at)) {
			*cause = xasprintf("%s:%d:%zu: missing the '%s' column (field %d)",
			    name, l.no, l.len + 1, SAMPLE_COLUMN, col + 1);
			goto out_free;
		}
		if (flen == 0) {
			*cause = xasprintf("%s:%d:%zu: empty '%s' value", name, l.no,
			    at, SAMPLE_COLUMN);
			goto out_free;
		}
		if (f[0] == '-') {
			fail(cause, name, &l, at, "service", f, flen, "is negative");
			goto out_free;
		}
		if (!number(f, flen, &v)) {
			fail(cause, name, &l, at, "value", f, flen, "is not a number");
			goto out_free;
		}
		if (!isfinite(v)) {
			fail(cause, name, &l, at, "value", f, flen, "is out of range");
			goto out_free;
		}
		XGROW(s->v, cap, s->n + 1);
		s->v[s->n++] = v;
		if (nl == end)
			break;
	}
	if (s->n == 0) {
		*cause = xasprintf("%s: no samples", name);
		goto out_free;
	}
	return 0;

out_free:
	sample_release(s);
	return -1;
}

int
sample_load(const char *path, struct sample *s, char **cause)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	int rc;

	s->v = NULL;
	s->n = 0;
	if ((f = fopen(path, "rb")) == NULL) {
		*cause = xasprintf("cannot open sample '%s': %s", path, strerror(errno));
		return -1;
	}
	for (;;) {
		XGROW(buf, cap, len + 65536);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		*cause = xasprintf("cannot read sample '%s': %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	rc = sample_load_string(path, buf, len, s, cause);
	free(buf);
	return rc;
}

void
sample_release(struct sample *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
