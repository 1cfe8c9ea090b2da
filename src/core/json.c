/*
 * json.c — the JSON writer every command's "-o json" goes through, and the
 * validator and path lookup the tests use to check that output. Core
 * utility: depends only on strbuf and xmalloc.
 */
#include "core/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"

/* Deep enough for any document cellar writes; keeps recursion bounded. */
#define JSON_PARSE_DEPTH	256

void
json_init(struct json *j, struct strbuf *sb)
{
	memset(j, 0, sizeof *j);
	j->sb = sb;
}

/* Write the separator a value needs here and check it is allowed. */
static void
json_pre_value(struct json *j)
{
	if (j->depth == 0) {
		if (j->done)
			fatal("json: second top-level value");
		return;
	}
	if (j->kind[j->depth - 1] == '{') {
		if (!j->want_value)
			fatal("json: value without a key");
		j->want_value = false;
		return;
	}
	if (!j->empty[j->depth - 1])
		strbuf_addc(j->sb, ',');
	j->empty[j->depth - 1] = false;
}

static void
json_post_value(struct json *j)
{
	if (j->depth == 0)
		j->done = true;
}

static void
json_open(struct json *j, char kind)
{
	json_pre_value(j);
	if (j->depth == JSON_MAX_DEPTH)
		fatal("json: nesting deeper than %d", JSON_MAX_DEPTH);
	j->kind[j->depth] = kind;
	j->empty[j->depth] = true;
	j->depth++;
	strbuf_addc(j->sb, kind);
}

static void
json_close(struct json *j, char kind)
{
	if (j->depth == 0 || j->kind[j->depth - 1] != kind || j->want_value)
		fatal("json: unbalanced '%c'", kind == '{' ? '}' : ']');
	j->depth--;
	strbuf_addc(j->sb, kind == '{' ? '}' : ']');
	json_post_value(j);
}

void json_object_begin(struct json *j) { json_open(j, '{'); }
void json_object_end(struct json *j) { json_close(j, '{'); }
void json_array_begin(struct json *j) { json_open(j, '['); }
void json_array_end(struct json *j) { json_close(j, '['); }

void
json_key(struct json *j, const char *key)
{
	if (j->depth == 0 || j->kind[j->depth - 1] != '{' || j->want_value)
		fatal("json: key '%s' out of place", key);
	if (!j->empty[j->depth - 1])
		strbuf_addc(j->sb, ',');
	j->empty[j->depth - 1] = false;
	strbuf_add_json_str(j->sb, key);
	strbuf_addc(j->sb, ':');
	j->want_value = true;
}

/* Length of the valid UTF-8 sequence at p (1 to 4), or 0 if it is not one. */
static size_t
json_utf8_len(const unsigned char *p)
{
	size_t n, k;
	unsigned cp, min;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 1, cp = p[0] & 0x1f, min = 0x80;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 2, cp = p[0] & 0x0f, min = 0x800;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 3, cp = p[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (k = 1; k <= n; k++) {
		if ((p[k] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[k] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n + 1;
}

/*
 * A string literal that is always valid JSON: control characters escaped,
 * and any byte that is not part of valid UTF-8 (a file name, say) written
 * as U+FFFD, so that strict parsers accept every document.
 */
static void
json_add_str(struct strbuf *sb, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	size_t n;

	strbuf_addc(sb, '"');
	while (p < end) {
		if (*p < 0x80) {
			if (*p == '"' || *p == '\\')
				strbuf_addf(sb, "\\%c", *p);
			else if (*p == '\n')
				strbuf_adds(sb, "\\n");
			else if (*p == '\r')
				strbuf_adds(sb, "\\r");
			else if (*p == '\t')
				strbuf_adds(sb, "\\t");
			else if (*p < 0x20 || *p == 0x7f)
				strbuf_addf(sb, "\\u%04x", *p);
			else
				strbuf_addc(sb, (char)*p);
			p++;
		} else if ((n = json_utf8_len(p)) > 0 && n <= (size_t)(end - p)) {
			strbuf_add(sb, p, n);
			p += n;
		} else {
			strbuf_adds(sb, "\\ufffd");
			p++;
		}
	}
	strbuf_addc(sb, '"');
}

void
json_string(struct json *j, const char *s)
{
	json_pre_value(j);
	if (s == NULL)
		strbuf_adds(j->sb, "null");
	else
		json_add_str(j->sb, s, strlen(s));
	json_post_value(j);
}

void
json_string_len(struct json *j, const char *s, size_t len)
{
	json_pre_value(j);
	json_add_str(j->sb, s, len);
	json_post_value(j);
}

void
json_int(struct json *j, long long v)
{
	json_pre_value(j);
	strbuf_addf(j->sb, "%lld", v);
	json_post_value(j);
}

void
json_double(struct json *j, double v)
{
	json_pre_value(j);
	if (isfinite(v))
		strbuf_addf(j->sb, "%.10g", v);
	else
		strbuf_adds(j->sb, "null");
	json_post_value(j);
}

void
json_raw(struct json *j, const char *text, size_t len)
{
	json_pre_value(j);
	strbuf_add(j->sb, text, len);
	json_post_value(j);
}

void
json_bool(struct json *j, bool v)
{
	json_pre_value(j);
	strbuf_adds(j->sb, v ? "true" : "false");
	json_post_value(j);
}

void
json_null(struct json *j)
{
	json_pre_value(j);
	strbuf_adds(j->sb, "null");
	json_post_value(j);
}

void json_kv_string(struct json *j, const char *k, const char *s) { json_key(j, k); json_string(j, s); }
void json_kv_int(struct json *j, const char *k, long long v) { json_key(j, k); json_int(j, v); }
void json_kv_double(struct json *j, const char *k, double v) { json_key(j, k); json_double(j, v); }
void json_kv_bool(struct json *j, const char *k, bool v) { json_key(j, k); json_bool(j, v); }
void json_kv_null(struct json *j, const char *k) { json_key(j, k); json_null(j); }

bool
json_done(const struct json *j)
{
	return j->done && j->depth == 0;
}

/* ---- reading: a strict recursive-descent scanner ---- */

struct jp {
	const char	*s;
	size_t		 len;
	size_t		 pos;
	int		 depth;
	char		**cause;
};

static int
jp_fail(struct jp *p, const char *what)
{
	if (p->pos >= p->len)
		*p->cause = xasprintf("invalid json: %s at end of input", what);
	else
		*p->cause = xasprintf("invalid json: %s at offset %zu", what, p->pos);
	return -1;
}

static void
jp_ws(struct jp *p)
{
	while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) != NULL &&
	    p->s[p->pos] != '\0')
		p->pos++;
}

static bool
jp_peek(struct jp *p, char c)
{
	return p->pos < p->len && p->s[p->pos] == c;
}

static int
jp_hex4(struct jp *p, unsigned *v)
{
	size_t i;
	char c;

	*v = 0;
	for (i = 0; i < 4; i++) {
		if (p->pos >= p->len)
			return jp_fail(p, "short \\u escape");
		c = p->s[p->pos++];
		*v <<= 4;
		if (c >= '0' && c <= '9')
			*v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*v |= (unsigned)(c - 'A' + 10);
		else {
			p->pos--;
			return jp_fail(p, "bad \\u escape");
		}
	}
	return 0;
}

static void
jp_utf8(struct strbuf *out, unsigned cp)
{
	if (cp < 0x80)
		strbuf_addc(out, (char)cp);
	else if (cp < 0x800) {
		strbuf_addc(out, (char)(0xc0 | (cp >> 6)));
		strbuf_addc(out, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		strbuf_addc(out, (char)(0xe0 | (cp >> 12)));
		strbuf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addc(out, (char)(0x80 | (cp & 0x3f)));
	} else {
		strbuf_addc(out, (char)(0xf0 | (cp >> 18)));
		strbuf_addc(out, (char)(0x80 | ((cp >> 12) & 0x3f)));
		strbuf_addc(out, (char)(0x80 | ((cp >> 6) & 0x3f)));
		strbuf_addc(out, (char)(0x80 | (cp & 0x3f)));
	}
}

/* A string at pos; decoded into out when out is not NULL. */
static int
jp_string(struct jp *p, struct strbuf *out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	unsigned cp, lo;
	const char *e;
	char c;

	if (!jp_peek(p, '"'))
		return jp_fail(p, "expected a string");
	p->pos++;
	for (;;) {
		if (p->pos >= p->len)
			return jp_fail(p, "unterminated string");
		c = p->s[p->pos];
		if ((unsigned char)c < 0x20)
			return jp_fail(p, "control character in string");
		p->pos++;
		if (c == '"')
			return 0;
		if ((unsigned char)c >= 0x80) {
			/* RFC 8259: text is UTF-8; look at most 4 bytes ahead. */
			unsigned char u[5] = { 0, 0, 0, 0, 0 };
			size_t n, avail = p->len - p->pos + 1;

			memcpy(u, p->s + p->pos - 1, avail < 4 ? avail : 4);
			if ((n = json_utf8_len(u)) == 0) {
				p->pos--;
				return jp_fail(p, "invalid UTF-8 in string");
			}
			if (out)
				strbuf_add(out, p->s + p->pos - 1, n);
			p->pos += n - 1;
			continue;
		}
		if (c != '\\') {
			if (out)
				strbuf_addc(out, c);
			continue;
		}
		if (p->pos >= p->len)
			return jp_fail(p, "unterminated string");
		c = p->s[p->pos++];
		if (c == 'u') {
			if (jp_hex4(p, &cp) != 0)
				return -1;
			if (cp >= 0xd800 && cp < 0xdc00 && p->pos + 1 < p->len &&
			    p->s[p->pos] == '\\' && p->s[p->pos + 1] == 'u') {
				p->pos += 2;
				if (jp_hex4(p, &lo) != 0)
					return -1;
				if (lo >= 0xdc00 && lo < 0xe000)
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			if (out)
				jp_utf8(out, cp);
			continue;
		}
		e = c != '\0' ? strchr(esc_in, c) : NULL;
		if (e == NULL) {
			p->pos--;
			return jp_fail(p, "bad escape");
		}
		if (out)
			strbuf_addc(out, esc_out[e - esc_in]);
	}
}

static bool
jp_digit(struct jp *p)
{
	return p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9';
}

static int
jp_number(struct jp *p)
{
	if (jp_peek(p, '-'))
		p->pos++;
	if (jp_peek(p, '0'))
		p->pos++;
	else if (jp_digit(p))
		while (jp_digit(p))
			p->pos++;
	else
		return jp_fail(p, "bad number");
	if (jp_peek(p, '.')) {
		p->pos++;
		if (!jp_digit(p))
			return jp_fail(p, "bad number");
		while (jp_digit(p))
			p->pos++;
	}
	if (jp_peek(p, 'e') || jp_peek(p, 'E')) {
		p->pos++;
		if (jp_peek(p, '+') || jp_peek(p, '-'))
			p->pos++;
		if (!jp_digit(p))
			return jp_fail(p, "bad number");
		while (jp_digit(p))
			p->pos++;
	}
	return 0;
}

static int jp_value(struct jp *p);

static int
jp_container(struct jp *p, char open)
{
	char close = open == '{' ? '}' : ']';

	if (++p->depth > JSON_PARSE_DEPTH)
		return jp_fail(p, "nesting too deep");
	p->pos++;
	jp_ws(p);
	if (jp_peek(p, close)) {
		p->pos++;
		p->depth--;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			if (jp_string(p, NULL) != 0)
				return -1;
			jp_ws(p);
			if (!jp_peek(p, ':'))
				return jp_fail(p, "expected ':'");
			p->pos++;
			jp_ws(p);
		}
		if (jp_value(p) != 0)
			return -1;
		jp_ws(p);
		if (jp_peek(p, close)) {
			p->pos++;
			p->depth--;
			return 0;
		}
		if (!jp_peek(p, ','))
			return jp_fail(p, open == '{' ? "expected ',' or '}'" :
			    "expected ',' or ']'");
		p->pos++;
		jp_ws(p);
	}
}

static int
jp_literal(struct jp *p, const char *word)
{
	size_t n = strlen(word);

	if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
		return jp_fail(p, "unexpected character");
	p->pos += n;
	return 0;
}

/* Skip one value at pos (no leading whitespace). */
static int
jp_value(struct jp *p)
{
	if (p->pos >= p->len)
		return jp_fail(p, "expected a value");
	switch (p->s[p->pos]) {
	case '{':
	case '[':
		return jp_container(p, p->s[p->pos]);
	case '"':
		return jp_string(p, NULL);
	case 't':
		return jp_literal(p, "true");
	case 'f':
		return jp_literal(p, "false");
	case 'n':
		return jp_literal(p, "null");
	default:
		return jp_number(p);
	}
}

int
json_validate(const char *text, size_t len, size_t *end, char **cause)
{
	struct jp p = { text, len, 0, 0, cause };

	jp_ws(&p);
	if (jp_value(&p) != 0)
		return -1;
	jp_ws(&p);
	if (end != NULL)
		*end = p.pos;
	return 0;
}

/* Descend from the value at pos along path; append what it names to out. */
static int
jp_lookup(struct jp *p, const char *path, struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT;
	size_t comp = strcspn(path, "."), start = p->pos, count = 0, want = 0;
	const char *rest = path[comp] == '.' ? path + comp + 1 : path + comp;
	bool is_index = comp > 0 && strspn(path, "0123456789") == comp;
	bool is_count = comp == 1 && path[0] == '#';
	char open, close;
	int rc = -1;

	if (comp == 0 && *path == '\0') {
		if (jp_peek(p, '"'))
			return jp_string(p, out);
		if (jp_value(p) != 0)
			return -1;
		strbuf_add(out, p->s + start, p->pos - start);
		return 0;
	}
	if (!jp_peek(p, '{') && !jp_peek(p, '[')) {
		*p->cause = xasprintf("no '%.*s' in a scalar value", (int)comp, path);
		return -1;
	}
	open = p->s[p->pos];
	close = open == '{' ? '}' : ']';
	if (is_index)
		want = (size_t)strtoull(path, NULL, 10);
	p->pos++;
	jp_ws(p);
	while (!jp_peek(p, close)) {
		bool hit;

		strbuf_reset(&key);
		if (open == '{') {
			if (jp_string(p, &key) != 0)
				goto out;
			jp_ws(p);
			if (!jp_peek(p, ':')) {
				jp_fail(p, "expected ':'");
				goto out;
			}
			p->pos++;
			jp_ws(p);
			hit = !is_count && strlen(key.buf) == comp &&
			    strncmp(key.buf, path, comp) == 0;
		} else
			hit = is_index && count == want;
		if (hit) {
			rc = jp_lookup(p, rest, out);
			goto out;
		}
		if (jp_value(p) != 0)
			goto out;
		count++;
		jp_ws(p);
		if (jp_peek(p, ',')) {
			p->pos++;
			jp_ws(p);
		} else if (!jp_peek(p, close)) {
			jp_fail(p, "expected ','");
			goto out;
		}
	}
	if (is_count && *rest == '\0') {
		strbuf_addf(out, "%zu", count);
		rc = 0;
	} else
		*p->cause = xasprintf("no '%.*s' in the %s", (int)comp, path,
		    open == '{' ? "object" : "array");
out:
	strbuf_release(&key);
	return rc;
}

int
json_lookup(const char *text, size_t len, const char *path, struct strbuf *out,
    char **cause)
{
	struct jp p = { text, len, 0, 0, cause };
	size_t end;

	if (json_validate(text, len, &end, cause) != 0)
		return -1;
	jp_ws(&p);
	return jp_lookup(&p, path, out);
}

/* ---- the pull reader ---- */

void
json_reader_init(struct json_reader *r, const char *text, size_t len)
{
	r->s = text;
	r->len = len;
	r->pos = 0;
	strbuf_init(&r->str);
}

void
json_reader_release(struct json_reader *r)
{
	strbuf_release(&r->str);
}

int
json_reader_next(struct json_reader *r, struct json_token *t, char **cause)
{
	struct jp p = { r->s, r->len, r->pos, 0, cause };
	size_t start, i;

	memset(t, 0, sizeof *t);
	while (p.pos < p.len && strchr(" \t\r\n,:", p.s[p.pos]) != NULL &&
	    p.s[p.pos] != '\0')
		p.pos++;
	start = p.pos;
	t->text = r->s + start;
	if (p.pos >= p.len) {
		t->type = JSON_TOK_END;
		r->pos = p.pos;
		return 0;
	}
	switch (p.s[p.pos]) {
	case '{': t->type = JSON_TOK_OBJECT; p.pos++; break;
	case '}': t->type = JSON_TOK_OBJECT_END; p.pos++; break;
	case '[': t->type = JSON_TOK_ARRAY; p.pos++; break;
	case ']': t->type = JSON_TOK_ARRAY_END; p.pos++; break;
	case '"':
		strbuf_reset(&r->str);
		if (jp_string(&p, &r->str) != 0)
			return -1;
		t->type = JSON_TOK_STRING;
		t->str = r->str.buf;
		t->str_len = r->str.len;
		break;
	case 't':
		if (jp_literal(&p, "true") != 0)
			return -1;
		t->type = JSON_TOK_TRUE;
		break;
	case 'f':
		if (jp_literal(&p, "false") != 0)
			return -1;
		t->type = JSON_TOK_FALSE;
		break;
	case 'n':
		if (jp_literal(&p, "null") != 0)
			return -1;
		t->type = JSON_TOK_NULL;
		break;
	default:
		if (jp_number(&p) != 0)
			return -1;
		t->type = JSON_TOK_NUMBER;
		t->integer = true;
		for (i = start; i < p.pos; i++)
			if (p.s[i] == '.' || p.s[i] == 'e' || p.s[i] == 'E')
				t->integer = false;
		break;
	}
	t->len = p.pos - start;
	r->pos = p.pos;
	return 0;
}

int
json_reader_skip(struct json_reader *r, const struct json_token *t, char **cause)
{
	struct json_token x;
	int depth;

	if (t->type != JSON_TOK_OBJECT && t->type != JSON_TOK_ARRAY)
		return 0;
	for (depth = 1; depth > 0;) {
		if (json_reader_next(r, &x, cause) != 0)
			return -1;
		switch (x.type) {
		case JSON_TOK_END:
			*cause = xstrdup("invalid json: unexpected end of input");
			return -1;
		case JSON_TOK_OBJECT:
		case JSON_TOK_ARRAY:
			depth++;
			break;
		case JSON_TOK_OBJECT_END:
		case JSON_TOK_ARRAY_END:
			depth--;
			break;
		default:
			break;
		}
	}
	return 0;
}
