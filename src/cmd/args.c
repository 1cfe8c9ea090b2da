/*
 * args.c — getopt-style parsing of a command's words against its option
 * table, into an opaque struct args. Called by the dispatcher (cmd.c) and by
 * main.c for the global options, so both speak the same grammar.
 */
#include "cmd/args.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

struct args_item {
	const struct cmd_opt	*opt;
	char			*value;		/* NULL for a flag */
};

struct args {
	struct args_item	*items;
	size_t			 n;
	size_t			 cap;
	struct strvec		 pos;
};

static void
args_add(struct args *a, const struct cmd_opt *o, const char *value)
{
	XGROW(a->items, a->cap, a->n + 1);
	a->items[a->n].opt = o;
	a->items[a->n].value = value ? xstrdup(value) : NULL;
	a->n++;
}

/* Long option by exact name, else unique prefix. */
static const struct cmd_opt *
args_find_long(const struct cmd_opt *const *tables, const char *name, size_t len,
    char **cause)
{
	const struct cmd_opt *found = NULL, *o;
	struct strbuf cands = STRBUF_INIT;
	int nfound = 0;
	size_t t;

	for (t = 0; tables[t] != NULL; t++)
		for (o = tables[t]; o->name != NULL; o++)
			if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
				return o;
	for (t = 0; tables[t] != NULL; t++)
		for (o = tables[t]; o->name != NULL; o++) {
			if (strncmp(o->name, name, len) != 0)
				continue;
			strbuf_addf(&cands, "%s--%s", nfound ? ", " : "", o->name);
			found = o;
			nfound++;
		}
	if (nfound == 1) {
		strbuf_release(&cands);
		return found;
	}
	if (nfound == 0)
		*cause = xasprintf("unknown option '--%.*s'", (int)len, name);
	else
		*cause = xasprintf("ambiguous option '--%.*s': %s", (int)len, name,
		    cands.buf);
	strbuf_release(&cands);
	return NULL;
}

static const struct cmd_opt *
args_find_short(const struct cmd_opt *const *tables, char c, char **cause)
{
	const struct cmd_opt *o;
	size_t t;

	for (t = 0; tables[t] != NULL; t++)
		for (o = tables[t]; o->name != NULL; o++)
			if (o->short_name == c)
				return o;
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		*cause = xasprintf("unknown option '-\\x%02x'", (unsigned char)c);
	else
		*cause = xasprintf("unknown option '-%c'", c);
	return NULL;
}

static bool
args_is_option(const char *w)
{
	/* "-" and negative numbers are positionals. */
	return w[0] == '-' && w[1] != '\0' && !(w[1] >= '0' && w[1] <= '9');
}

struct args *
args_parse(const struct cmd_opt *const *tables, int min, int max, unsigned flags,
    int argc, char *const *argv, char **cause)
{
	struct args *a = xcalloc(1, sizeof *a);
	const struct cmd_opt *o;
	bool only_pos = false;
	int i;

	strvec_init(&a->pos);
	for (i = 0; i < argc; i++) {
		const char *w = argv[i];

		if (only_pos || !args_is_option(w)) {
			strvec_push(&a->pos, w);
			if (flags & ARGS_STOP_AT_POSITIONAL)
				only_pos = true;
			continue;
		}
		if (strcmp(w, "--") == 0) {
			only_pos = true;
			continue;
		}
		if (w[1] == '-') {
			const char *name = w + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);

			if ((o = args_find_long(tables, name, len, cause)) == NULL)
				goto fail;
			if (o->value == NULL) {
				if (eq != NULL) {
					*cause = xasprintf("option '--%s' takes no value", o->name);
					goto fail;
				}
				args_add(a, o, NULL);
			} else if (eq != NULL)
				args_add(a, o, eq + 1);
			else if (i + 1 < argc)
				args_add(a, o, argv[++i]);
			else {
				*cause = xasprintf("option '--%s' needs a value (%s)",
				    o->name, o->value);
				goto fail;
			}
			continue;
		}
		for (w++; *w != '\0'; w++) {	/* bundled short options */
			if ((o = args_find_short(tables, *w, cause)) == NULL)
				goto fail;
			if (o->value == NULL) {
				args_add(a, o, NULL);
				continue;
			}
			if (w[1] != '\0')
				args_add(a, o, w + 1);
			else if (i + 1 < argc)
				args_add(a, o, argv[++i]);
			else {
				*cause = xasprintf("option '-%c' needs a value (%s)",
				    o->short_name, o->value);
				goto fail;
			}
			break;
		}
	}
	if ((int)a->pos.n < min) {
		*cause = xstrdup(min - (int)a->pos.n == 1 ? "missing argument" :
		    "missing arguments");
		goto fail;
	}
	if (max >= 0 && (int)a->pos.n > max) {
		*cause = xasprintf("unexpected argument '%s'", a->pos.v[max]);
		goto fail;
	}
	return a;

fail:
	args_free(a);
	return NULL;
}

void
args_free(struct args *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->n; i++)
		free(a->items[i].value);
	free(a->items);
	strvec_release(&a->pos);
	free(a);
}

bool
args_has(const struct args *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strcmp(a->items[i].opt->name, name) == 0)
			return true;
	return false;
}

const char *
args_get(const struct args *a, const char *name)
{
	size_t i;

	for (i = a->n; i-- > 0;)
		if (strcmp(a->items[i].opt->name, name) == 0)
			return a->items[i].value;
	return NULL;
}

int
args_count(const struct args *a)
{
	return (int)a->pos.n;
}

const char *
args_value(const struct args *a, int i)
{
	return i >= 0 && (size_t)i < a->pos.n ? a->pos.v[i] : NULL;
}

char *const *
args_argv(const struct args *a)
{
	static char *const none[1] = { NULL };

	return a->pos.v != NULL ? a->pos.v : none;
}

size_t
args_nopts(const struct args *a)
{
	return a->n;
}

const char *
args_opt_name(const struct args *a, size_t i)
{
	return i < a->n ? a->items[i].opt->name : NULL;
}

const char *
args_opt_value(const struct args *a, size_t i)
{
	return i < a->n ? a->items[i].value : NULL;
}

long long
args_parse_num(const char *s, const char *what, long long min, long long max,
    char **cause)
{
	long long v;
	char *end;

	*cause = NULL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || (*s != '-' && (*s < '0' || *s > '9'))) {
		*cause = xasprintf("invalid %s '%s': not a number", what, s);
		return 0;
	}
	if (errno == ERANGE || v < min) {
		if (errno == ERANGE && v > 0)
			goto toolarge;
		*cause = xasprintf("invalid %s '%s': less than %lld", what, s, min);
		return 0;
	}
	if (v > max) {
toolarge:
		*cause = xasprintf("invalid %s '%s': more than %lld", what, s, max);
		return 0;
	}
	return v;
}

long long
args_strtonum(const struct args *a, const char *name, long long min,
    long long max, char **cause)
{
	const char *s = args_get(a, name);
	char what[64];

	if (s == NULL) {
		*cause = xasprintf("option '--%s' is missing", name);
		return 0;
	}
	snprintf(what, sizeof what, "--%s", name);
	return args_parse_num(s, what, min, max, cause);
}

int
args_seconds(const char *s, double *out)
{
	static const struct { char unit; double secs; } units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 'w', 604800 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || !isfinite(v) || v < 0)
		return -1;
	if (*end != '\0') {
		for (i = 0; i < sizeof units / sizeof units[0]; i++)
			if (end[0] == units[i].unit && end[1] == '\0')
				break;
		if (i == sizeof units / sizeof units[0])
			return -1;
		v *= units[i].secs;
	}
	*out = v;
	return 0;
}
