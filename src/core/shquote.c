/*
 * shquote.c — shell quoting and name checks (see shquote.h). Single quotes
 * protect everything but a single quote, which is closed, escaped and
 * reopened: the POSIX way that needs no knowledge of which characters a
 * given shell treats specially.
 */
#include <string.h>

#include "core/shquote.h"

void
sh_quote(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			strbuf_adds(sb, "'\\''");
		else
			strbuf_addc(sb, *s);
	}
	strbuf_addc(sb, '\'');
}

void
sh_quote_argv(struct strbuf *sb, char *const *argv, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i > 0)
			strbuf_addc(sb, ' ');
		sh_quote(sb, argv[i]);
	}
}

static bool
alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

bool
name_valid(const char *s, size_t max)
{
	size_t n = strlen(s), i;

	if (n == 0 || n >= max || !alnum(s[0]))
		return false;
	for (i = 1; i < n; i++)
		if (!alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

bool
name_ref_id(const char *s, int *id)
{
	size_t i;

	if (s[0] != '%' || s[1] == '\0')
		return false;
	*id = 0;
	for (i = 1; s[i] != '\0'; i++) {
		if (s[i] < '0' || s[i] > '9' || i > 9)
			return false;
		*id = *id * 10 + (s[i] - '0');
	}
	return true;
}

bool
env_name_valid(const char *s)
{
	size_t i;

	if (s[0] == '\0' || (s[0] >= '0' && s[0] <= '9'))
		return false;
	for (i = 0; s[i] != '\0'; i++)
		if (!alnum(s[i]) && s[i] != '_')
			return false;
	return true;
}
