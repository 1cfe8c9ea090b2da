/*
 * screen.c — the character grid panels draw into, and the glyph table.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "dash/screen.h"

/* UTF-8 and ASCII forms of every glyph (invariant 2). */
static const struct {
	const char	*utf8;
	const char	*ascii;
} glyphs[DG_NGLYPHS] = {
	[DG_HLINE]	= { "\u2500", "-" },
	[DG_VLINE]	= { "\u2502", "|" },
	[DG_OPEN]	= { "\u25be", "-" },
	[DG_CLOSED]	= { "\u25b8", "+" },
	[DG_LEAF]	= { "\u00b7", " " },
	[DG_BAR_FULL]	= { "\u2588", "#" },
	[DG_BAR_OPP]	= { "\u2592", "o" },
	[DG_BAR_BAD]	= { "\u2573", "x" },
	[DG_BAR_EMPTY]	= { "\u2591", "." },
	[DG_BAD_BELOW]	= { "!", "!" },
	[DG_BAD]	= { "\u2716", "X" },
	[DG_DOOMED]	= { "\u2620", "D" },
	[DG_HEALTHY]	= { " ", " " },
	[DG_ARROW]	= { "\u2190", "<" },
	[DG_SELECT]	= { "\u25b6", ">" },
};

void
dash_screen_init(struct dash_screen *s, int w, int h, bool ascii)
{
	s->w = w > 0 ? w : 1;
	s->h = h > 0 ? h : 1;
	s->ascii = ascii;
	s->ox = 0;
	s->c = xcalloc((size_t)s->w * (size_t)s->h, sizeof *s->c);
	dash_screen_clear(s);
}

void
dash_screen_release(struct dash_screen *s)
{
	free(s->c);
	s->c = NULL;
}

void
dash_screen_clear(struct dash_screen *s)
{
	size_t i, n = (size_t)s->w * (size_t)s->h;

	for (i = 0; i < n; i++) {
		s->c[i].ch[0] = ' ';
		s->c[i].len = 1;
		s->c[i].role = DR_NORMAL;
	}
}

const char *
dash_glyph(const struct dash_screen *s, enum dash_glyph g)
{
	return s->ascii ? glyphs[g].ascii : glyphs[g].utf8;
}

/* Length of the UTF-8 sequence at p (1..4), or 0 if invalid. */
static int
utf8_len(const unsigned char *p)
{
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0 && p[0] >= 0xc2)
		n = 2;
	else if ((p[0] & 0xf0) == 0xe0)
		n = 3;
	else if ((p[0] & 0xf8) == 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

int
dash_put(struct dash_screen *s, int x, int y, int maxw, enum dash_role role,
    const char *text)
{
	const unsigned char *p = (const unsigned char *)text;
	int n = 0, len;

	x += s->ox;
	if (y < 0 || y >= s->h)
		return 0;
	if (maxw < 0 || x + maxw > s->w)
		maxw = s->w - x;
	while (*p != '\0' && n < maxw) {
		struct dash_cell *c;

		len = utf8_len(p);
		if (x + n < 0) {
			p += len > 0 ? len : 1;
			n++;
			continue;
		}
		c = &s->c[(size_t)y * (size_t)s->w + (size_t)(x + n)];
		if (len == 0 || *p < 0x20 || *p == 0x7f) {
			c->ch[0] = '?';
			c->len = 1;
			p += len > 0 ? len : 1;
		} else if (s->ascii && len > 1) {
			c->ch[0] = '?';
			c->len = 1;
			p += len;
		} else {
			memcpy(c->ch, p, (size_t)len);
			c->len = (unsigned char)len;
			p += len;
		}
		c->role = (unsigned char)role;
		n++;
	}
	return n;
}

int
dash_putf(struct dash_screen *s, int x, int y, int maxw, enum dash_role role,
    const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int n;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	n = dash_put(s, x, y, maxw, role, sb.buf);
	strbuf_release(&sb);
	return n;
}

void
dash_fill(struct dash_screen *s, int x, int y, int n, enum dash_role role,
    enum dash_glyph g)
{
	const char *gl = dash_glyph(s, g);
	int i;

	for (i = 0; i < n; i++)
		dash_put(s, x + i, y, 1, role, gl);
}

void
dash_bar(struct dash_screen *s, int x, int y, int w, long long total,
    long long used, long long opp, long long bad)
{
	int nu = 0, no = 0, nb = 0;

	if (w <= 0)
		return;
	if (total > 0) {
		nu = (int)(used * w / total);
		no = (int)(opp * w / total);
		nb = (int)(bad * w / total);
		/* what is there shows, however small */
		nu += used > 0 && nu == 0;
		no += opp > 0 && no == 0;
		nb += bad > 0 && nb == 0;
		while (nu + no + nb > w) {
			if (no > 0) no--; else if (nu > 0) nu--; else nb--;
		}
	}
	dash_fill(s, x, y, nu, DR_USED, DG_BAR_FULL);
	dash_fill(s, x + nu, y, no, DR_OPP, DG_BAR_OPP);
	dash_fill(s, x + nu + no, y, nb, DR_BAD, DG_BAR_BAD);
	dash_fill(s, x + nu + no + nb, y, w - nu - no - nb, DR_FREE, DG_BAR_EMPTY);
}

void
dash_role_span(struct dash_screen *s, int x, int y, int n, enum dash_role role)
{
	int i;

	if (y < 0 || y >= s->h)
		return;
	x += s->ox;
	for (i = x < 0 ? 0 : x; i < x + n && i < s->w; i++)
		s->c[(size_t)y * (size_t)s->w + (size_t)i].role = (unsigned char)role;
}

void
dash_screen_text(const struct dash_screen *s, struct strbuf *out)
{
	int x, y, end;

	for (y = 0; y < s->h; y++) {
		const struct dash_cell *row = &s->c[(size_t)y * (size_t)s->w];

		for (end = s->w; end > 0 && row[end - 1].len == 1 &&
		    row[end - 1].ch[0] == ' '; end--)
			;
		for (x = 0; x < end; x++)
			strbuf_add(out, row[x].ch, row[x].len);
		strbuf_addc(out, '\n');
	}
}
