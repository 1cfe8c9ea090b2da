/*
 * cmdline.c — the command-line tokenizer (rules in cmdline.h). Sits in front
 * of the dispatcher: text in, argv-style word lists out. A small state
 * machine over the characters; the word under construction lives in a strbuf
 * and `inword` records whether a word has started, so that '' is a word.
 */
#include "cmd/cmdline.h"

#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"

void
cmdline_init(struct cmdline *cl)
{
	cl->cmds = NULL;
	cl->n = 0;
	cl->cap = 0;
}

void
cmdline_release(struct cmdline *cl)
{
	size_t i;

	for (i = 0; i < cl->n; i++)
		strvec_release(&cl->cmds[i]);
	free(cl->cmds);
	cmdline_init(cl);
}

/* End the current command: keep it if it has words. */
static void
cl_end_cmd(struct cmdline *cl, struct strvec *cur)
{
	if (cur->n == 0)
		return;
	XGROW(cl->cmds, cl->cap, cl->n + 1);
	cl->cmds[cl->n++] = *cur;
	strvec_init(cur);
}

bool
cmdline_utf8_valid(const char *s, size_t len, size_t *off)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, n;
	unsigned cp, min;

	while (i < len) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (p[i] >= 0xc2 && p[i] <= 0xdf)
			n = 1, cp = p[i] & 0x1f, min = 0x80;
		else if (p[i] >= 0xe0 && p[i] <= 0xef)
			n = 2, cp = p[i] & 0x0f, min = 0x800;
		else if (p[i] >= 0xf0 && p[i] <= 0xf4)
			n = 3, cp = p[i] & 0x07, min = 0x10000;
		else
			goto bad;
		if (len - i <= n)
			goto bad;
		for (k = 1; k <= n; k++) {
			if ((p[i + k] & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (p[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			goto bad;
		i += n + 1;
	}
	return true;
bad:
	if (off != NULL)
		*off = i;
	return false;
}

static int	cl_tokenize(const char *, struct cmdline *, bool *, char **);

int
cmdline_parse(const char *text, struct cmdline *cl, bool *incomplete, char **cause)
{
	return cmdline_parsen(text, strlen(text), cl, incomplete, cause);
}

int
cmdline_parsen(const char *text, size_t len, struct cmdline *cl,
    bool *incomplete, char **cause)
{
	const char *nul;
	char *copy;
	size_t off;
	int rc;

	cmdline_release(cl);
	if (incomplete != NULL)
		*incomplete = false;
	/* Rule 7, before anything runs. */
	if (len > CMDLINE_MAX) {
		*cause = xasprintf("input too long (%zu bytes; at most %d)", len,
		    CMDLINE_MAX);
		return -1;
	}
	if ((nul = memchr(text, '\0', len)) != NULL) {
		*cause = xasprintf("NUL byte in input (at byte %zu)",
		    (size_t)(nul - text) + 1);
		return -1;
	}
	if (!cmdline_utf8_valid(text, len, &off)) {
		*cause = xasprintf("input is not valid UTF-8 (at byte %zu)", off + 1);
		return -1;
	}
	/* The tokenizer reads up to a NUL; text[len] need not be one. */
	copy = xstrndup(text, len);
	rc = cl_tokenize(copy, cl, incomplete, cause);
	free(copy);
	return rc;
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Rule 8 at *pp ("$'"): the word's text into word, *pp past the closing
 * quote. NULL, or what is wrong with *pp left at the fault (at the NUL
 * when the text ends inside: incomplete).
 */
static const char *
ansi_quoted(const char **pp, struct strbuf *word)
{
	const char *p = *pp + 2;
	int hi, lo;

	for (; *p != '\''; p++) {
		if (*p == '\0') {
			*pp = p;
			return "unterminated $'...' quote";
		}
		if (*p != '\\') {
			strbuf_addc(word, *p);
			continue;
		}
		switch (*++p) {
		case 'n': strbuf_addc(word, '\n'); break;
		case 't': strbuf_addc(word, '\t'); break;
		case 'r': strbuf_addc(word, '\r'); break;
		case '\\': strbuf_addc(word, '\\'); break;
		case '\'': strbuf_addc(word, '\''); break;
		case 'x':
			if ((hi = hexval(p[1])) < 0 || (lo = hexval(p[2])) < 0 ||
			    hi * 16 + lo == 0 || hi * 16 + lo > 0x7f) {
				*pp = p;
				return "bad \\x escape in $'...' (\\x01 to \\x7f)";
			}
			strbuf_addc(word, (char)(hi * 16 + lo));
			p += 2;
			break;
		case '\0':
			*pp = p;
			return "unterminated $'...' quote";
		default:
			*pp = p;
			return "unknown escape in $'...' (\\n \\t \\r \\\\ \\' \\xHH)";
		}
	}
	*pp = p + 1;
	return NULL;
}

/* The state machine of rules 1 to 6 and 8 over NUL-terminated text. */
static int
cl_tokenize(const char *text, struct cmdline *cl, bool *incomplete, char **cause)
{
	struct strbuf word = STRBUF_INIT;
	struct strvec cur = STRVEC_INIT;
	const char *p = text;
	bool inword = false;
	const char *what = NULL;

	for (;;) {
		char c = *p;
		bool was = inword;

		if (c == '\0' || c == ' ' || c == '\t' || c == '\r' || c == '\n' ||
		    c == ';') {
			if (inword) {
				strvec_push(&cur, word.buf);
				strbuf_reset(&word);
				inword = false;
			}
			if (c == '\0' || c == '\n' || c == ';')
				cl_end_cmd(cl, &cur);
			if (c == '\0')
				break;
			p++;
			continue;
		}
		if (c == '#' && !inword) {	/* rule 5 */
			p += strcspn(p, "\n");
			continue;
		}
		inword = true;
		if (c == '$' && p[1] == '\'') {	/* rule 8 */
			if ((what = ansi_quoted(&p, &word)) != NULL) {
				if (*p == '\0')
					goto incomplete;
				goto bad;
			}
		} else if (c == '\'') {		/* rule 2 */
			const char *q = strchr(p + 1, '\'');

			if (q == NULL) {
				what = "unterminated single quote";
				goto incomplete;
			}
			strbuf_add(&word, p + 1, (size_t)(q - p - 1));
			p = q + 1;
		} else if (c == '"') {		/* rule 3 */
			for (p++; *p != '"'; p++) {
				if (*p == '\0') {
					what = "unterminated double quote";
					goto incomplete;
				}
				if (*p == '\\' && p[1] != '\0' && strchr("\\\"$`\n", p[1]) != NULL) {
					p++;
					if (*p != '\n')
						strbuf_addc(&word, *p);
					continue;
				}
				strbuf_addc(&word, *p);
			}
			p++;
		} else if (c == '\\') {		/* rule 4 */
			if (p[1] == '\0') {
				what = "trailing backslash";
				goto incomplete;
			}
			if (p[1] == '\n') {
				/* A continuation joins lines; it does not make a word. */
				inword = was;
			} else
				strbuf_addc(&word, p[1]);
			p += 2;
		} else {
			strbuf_addc(&word, c);
			p++;
		}
	}
	strbuf_release(&word);
	strvec_release(&cur);
	return 0;

incomplete:
	if (incomplete != NULL)
		*incomplete = true;
bad:
	*cause = xstrdup(what);
	strbuf_release(&word);
	strvec_release(&cur);
	cmdline_release(cl);
	return -1;
}

/* Rule 8's form of a word with control bytes: one line, read back exactly. */
static void
quote_ansi(struct strbuf *sb, const char *word)
{
	const char *p;

	strbuf_adds(sb, "$'");
	for (p = word; *p != '\0'; p++)
		switch (*p) {
		case '\n': strbuf_adds(sb, "\\n"); break;
		case '\t': strbuf_adds(sb, "\\t"); break;
		case '\r': strbuf_adds(sb, "\\r"); break;
		case '\\': strbuf_adds(sb, "\\\\"); break;
		case '\'': strbuf_adds(sb, "\\'"); break;
		default:
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				strbuf_addf(sb, "\\x%02x", (unsigned char)*p);
			else
				strbuf_addc(sb, *p);
		}
	strbuf_addc(sb, '\'');
}

void
cmdline_quote(struct strbuf *sb, const char *word)
{
	const char *p;

	for (p = word; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			quote_ansi(sb, word);
			return;
		}
	if (*word != '\0' && strpbrk(word, " \t\r\n;#'\"\\$`") == NULL) {
		strbuf_adds(sb, word);
		return;
	}
	/* Single quotes, with each ' written as '\'' (closing, escaped, reopening). */
	strbuf_addc(sb, '\'');
	for (p = word; *p != '\0'; p++)
		if (*p == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addc(sb, *p);
	strbuf_addc(sb, '\'');
}

void
cmdline_join(struct strbuf *sb, int argc, char *const *argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (i > 0)
			strbuf_addc(sb, ' ');
		cmdline_quote(sb, argv[i]);
	}
}
