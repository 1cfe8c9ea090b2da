/*
 * complete.c — completion for the REPL (see complete.h). Three steps: scan
 * the line up to the cursor into the words of its last command (the
 * tokenizer's rules, cmdline.h, but keeping where the last word starts and
 * whether it is open in a quote); walk those words against the command
 * table to learn what the last word is (a command name, an option, an
 * option's value, a positional); then collect the matching words of that
 * kind from the table or the session.
 */
#include "cmd/complete.h"

#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "policy/policy.h"

/* The last command of a line, split into words, and the word at its end. */
struct scan {
	struct strvec	 words;		/* the command's complete words */
	struct strbuf	 cur;		/* the word being completed, unquoted */
	size_t		 start;
	char		 quote;
	bool		 comment;	/* the cursor is inside a comment */
};

/* Collect matching candidates for the word `cur`. */
struct collect {
	struct completion	*c;
	const char		*cur;
	const char		*lead;	/* prepended to each candidate ("--vc=") */
	const struct cmd_entry	*e;	/* the command, once known */
};

void
completion_init(struct completion *c)
{
	strvec_init(&c->cands);
	c->prefix = NULL;
	c->start = 0;
	c->quote = 0;
}

void
completion_release(struct completion *c)
{
	strvec_release(&c->cands);
	free(c->prefix);
	completion_init(c);
}

/* ---- scanning ---- */

static void
scan_end_word(struct scan *sc, bool *inword)
{
	if (*inword)
		strvec_push(&sc->words, sc->cur.buf);
	strbuf_reset(&sc->cur);
	*inword = false;
}

/* The rules of cmdline.h, stopping at len and remembering the last word. */
static void
scan_line(const char *line, size_t len, struct scan *sc)
{
	bool inword = false;
	size_t i;
	char ch;

	for (i = 0; i < len; i++) {
		ch = line[i];
		if (sc->quote == '\'') {
			if (ch == '\'')
				sc->quote = 0;
			else
				strbuf_addc(&sc->cur, ch);
			continue;
		}
		if (sc->quote == '"') {
			if (ch == '"')
				sc->quote = 0;
			else if (ch == '\\' && i + 1 < len &&
			    strchr("\\\"$`\n", line[i + 1]) != NULL) {
				if (line[++i] != '\n')
					strbuf_addc(&sc->cur, line[i]);
			} else
				strbuf_addc(&sc->cur, ch);
			continue;
		}
		if (ch == ' ' || ch == '\t' || ch == '\r') {
			scan_end_word(sc, &inword);
			continue;
		}
		if (ch == ';' || ch == '\n') {
			scan_end_word(sc, &inword);
			strvec_release(&sc->words);
			continue;
		}
		if (ch == '#' && !inword) {
			while (i < len && line[i] != '\n')
				i++;
			if (i == len)
				sc->comment = true;
			i--;		/* the newline ends the command */
			continue;
		}
		if (!inword) {
			inword = true;
			sc->start = i;
		}
		if (ch == '\'' || ch == '"')
			sc->quote = ch;
		else if (ch == '\\') {
			if (i + 1 < len && line[++i] != '\n')
				strbuf_addc(&sc->cur, line[i]);
		} else
			strbuf_addc(&sc->cur, ch);
	}
	if (!inword)
		sc->start = len;
}

/* ---- candidates ---- */

static void
add(struct collect *k, const char *word)
{
	char *w = xasprintf("%s%s", k->lead, word);

	if (strncmp(w, k->cur, strlen(k->cur)) == 0)
		strvec_push_nodup(&k->c->cands, w);
	else
		free(w);
}

/* Add a word given as a pointer and a length (words of entry names). */
static void
add_n(struct collect *k, const char *w, size_t len)
{
	char *s = xstrndup(w, len);

	add(k, s);
	free(s);
}

/* First words of every command: "alloc", "node", "spec", ... */
static void
add_first_words(struct collect *k)
{
	const struct cmd_entry *const *e;

	for (e = cmd_table; *e != NULL; e++)
		add_n(k, (*e)->name, strcspn((*e)->name, " "));
}

/* The subcommands of a family: "bad", "ok" for "node". */
static void
add_subcommands(struct collect *k, const char *family)
{
	const struct cmd_entry *const *e;
	size_t n = strlen(family);

	for (e = cmd_table; *e != NULL; e++)
		if (strncmp((*e)->name, family, n) == 0 && (*e)->name[n] == ' ')
			add(k, (*e)->name + n + 1);
}

/* The words of a command name, given so far as pos[0 .. npos). */
static void
add_command_name(struct collect *k, char *const *pos, int npos)
{
	char family[64];

	if (npos == 0)
		add_first_words(k);
	else if (npos == 1 && cmd_family_match(pos[0], family, sizeof family))
		add_subcommands(k, family);
}

/* The option tables of a command, as the dispatcher uses them. */
static void
option_tables(const struct cmd_entry *e, const struct cmd_opt *tables[3])
{
	tables[0] = e->opts;
	tables[1] = cmd_common_opts;
	tables[2] = e->columns != NULL ? cmd_list_opts : NULL;
}

static void
add_options(struct collect *k, const struct cmd_entry *e)
{
	const struct cmd_opt *tables[3], *o;
	size_t t;

	option_tables(e, tables);
	for (t = 0; t < 3; t++)
		for (o = tables[t]; o != NULL && o->name != NULL; o++) {
			char *w = xasprintf("--%s", o->name);

			add(k, w);
			free(w);
		}
}

/*
 * A listing's column keys: for --sort after any "KEY," and "-" already
 * typed, for --filter followed by '='.
 */
static void
add_columns(struct collect *k, bool filter)
{
	const struct table_colspec *col;
	const char *cur = k->cur + strlen(k->lead), *p;
	const char *old = k->lead;
	char *lead;

	if (k->e == NULL || k->e->columns == NULL)
		return;
	p = filter ? cur : (strrchr(cur, ',') ? strrchr(cur, ',') + 1 : cur);
	if (!filter && *p == '-')
		p++;
	lead = xasprintf("%s%.*s", old, (int)(p - cur), cur);
	k->lead = lead;
	for (col = k->e->columns; col->key != NULL; col++) {
		char *w = xasprintf("%s%s", col->key, filter ? "=" : "");

		add(k, w);
		free(w);
	}
	k->lead = old;
	free(lead);
}

/*
 * Cells, one level at a time: top-level cells, nodes, chains and pins for a
 * word without '/'; else the children of the cell the word's head names.
 */
static void
add_cells(struct collect *k, const struct spec *s)
{
	const char *cur = k->cur + strlen(k->lead), *slash = strrchr(cur, '/');
	char *head;
	int i, cell, child;

	if (slash == NULL) {
		for (i = 0; i < s->ncells; i++)
			if (s->cells[i].parent < 0)
				add(k, s->cells[i].addr);
		for (i = 0; i < s->nnodes; i++)
			add(k, s->nodes[i].name);
		for (i = 0; i < s->nchains; i++)
			add(k, s->types[s->chains[i].top_type].name);
		for (i = 0; i < s->npins; i++)
			add(k, s->pins[i].id);
		return;
	}
	head = xstrndup(cur, (size_t)(slash - cur));
	if ((cell = spec_find_cell(s, head)) >= 0 && s->cells[cell].first_child >= 0) {
		child = s->cells[cell].first_child;
		for (i = 0; i < s->types[s->cells[cell].type].nchild; i++) {
			char *w = xasprintf("%s/%s", head, s->cells[child + i].addr);

			add(k, w);
			free(w);
		}
	}
	free(head);
}

static void
add_jobs(struct collect *k, const struct engine *e)
{
	struct engine_job_info info;
	int id;

	for (id = 0; id < engine_job_limit(e); id++)
		if (engine_job(e, id, &info))
			add(k, info.name);
}

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Files in the directory part of the word; only YAML and directories for specs. */
static void
add_files(struct collect *k, const struct complete_env *env, bool specs)
{
	const char *cur = k->cur + strlen(k->lead), *slash = strrchr(cur, '/');
	struct strvec names = STRVEC_INIT;
	char *dir = xstrndup(cur, slash != NULL ? (size_t)(slash - cur) + 1 : 0);
	const char *base = cur + strlen(dir);
	size_t i;

	env->list_dir(env->arg, dir, &names);
	for (i = 0; i < names.n; i++) {
		const char *n = names.v[i];
		char *w;

		if (n[0] == '.' && base[0] != '.')
			continue;	/* hidden, unless asked for */
		if (specs && !has_suffix(n, "/") && !has_suffix(n, ".yaml") &&
		    !has_suffix(n, ".yml"))
			continue;
		w = xasprintf("%s%s", dir, n);
		add(k, w);
		free(w);
	}
	strvec_release(&names);
	free(dir);
}

/* Values of one kind; command names are handled by the caller. */
static void
add_values(struct collect *k, const struct complete_env *env, enum cmd_value kind)
{
	const struct session *ss = env->sess;
	const struct spec *s = ss != NULL ? ss->spec : NULL;
	int i;

	switch (kind) {
	case VALUE_MODE:
		for (i = 0; strcmp(engine_mode_name((enum engine_mode)i), "?") != 0; i++)
			add(k, engine_mode_name((enum engine_mode)i));
		return;
	case VALUE_POLICY:
		for (i = 0; policy_table[i] != NULL; i++)
			add(k, policy_table[i]->name);
		return;
	case VALUE_FORMAT:
		for (i = 0; i < OUT_NFORMATS; i++)
			add(k, out_format_name((enum out_format)i));
		return;
	case VALUE_FILE:
	case VALUE_SPEC:
		if (env->list_dir != NULL)
			add_files(k, env, kind == VALUE_SPEC);
		return;
	case VALUE_SORT:
	case VALUE_FILTER:
		add_columns(k, kind == VALUE_FILTER);
		return;
	default:
		break;
	}
	if (s == NULL)
		return;
	switch (kind) {
	case VALUE_VC:
		for (i = 0; i < s->nvcs; i++)
			add(k, s->vcs[i].name);
		break;
	case VALUE_NODE:
		for (i = 0; i < s->nnodes; i++)
			add(k, s->nodes[i].name);
		break;
	case VALUE_CELL:
		add_cells(k, s);
		break;
	case VALUE_TYPE:
		for (i = 0; i < s->ntypes; i++)
			if (s->types[i].is_leaf)
				add(k, s->types[i].name);
		break;
	case VALUE_PIN:
		for (i = 0; i < s->npins; i++)
			add(k, s->pins[i].id);
		break;
	case VALUE_JOB:
		if (ss->engine != NULL)
			add_jobs(k, ss->engine);
		break;
	default:
		break;
	}
}

/* ---- walking a command's words ---- */

static const struct cmd_opt *
find_long(const struct cmd_entry *e, const char *name, size_t len)
{
	const struct cmd_opt *tables[3], *o, *hit = NULL;
	size_t t;
	int n = 0;

	option_tables(e, tables);
	for (t = 0; t < 3; t++)
		for (o = tables[t]; o != NULL && o->name != NULL; o++) {
			if (strlen(o->name) == len && strncmp(o->name, name, len) == 0)
				return o;
			if (strncmp(o->name, name, len) == 0) {
				hit = o;
				n++;
			}
		}
	return n == 1 ? hit : NULL;
}

static const struct cmd_opt *
find_short(const struct cmd_entry *e, char ch)
{
	const struct cmd_opt *tables[3], *o;
	size_t t;

	option_tables(e, tables);
	for (t = 0; t < 3; t++)
		for (o = tables[t]; o != NULL && o->name != NULL; o++)
			if (o->short_name == ch)
				return o;
	return NULL;
}

static bool
is_option(const char *w)
{
	return w[0] == '-' && w[1] != '\0' && (w[1] < '0' || w[1] > '9');
}

/* The option of word w whose value is the next word, or NULL. */
static const struct cmd_opt *
option_wanting_value(const struct cmd_entry *e, const char *w)
{
	const struct cmd_opt *o;
	size_t i;

	if (w[1] == '-') {
		if (strchr(w, '=') != NULL)
			return NULL;
		o = find_long(e, w + 2, strlen(w + 2));
		return o != NULL && o->value != NULL ? o : NULL;
	}
	for (i = 1; w[i] != '\0'; i++) {
		if ((o = find_short(e, w[i])) == NULL)
			return NULL;
		if (o->value != NULL)
			return w[i + 1] == '\0' ? o : NULL;
	}
	return NULL;
}

/* The word being completed starts with '-': an option, or "--name=value". */
static void
complete_option(struct collect *k, const struct complete_env *env,
    const struct cmd_entry *e)
{
	const char *eq = strchr(k->cur, '=');
	const struct cmd_opt *o;
	char *lead;

	if (k->cur[1] == '-' && eq != NULL) {
		o = find_long(e, k->cur + 2, (size_t)(eq - k->cur - 2));
		if (o == NULL || o->value == NULL)
			return;
		lead = xstrndup(k->cur, (size_t)(eq - k->cur) + 1);
		k->lead = lead;
		add_values(k, env, o->kind);
		k->lead = "";
		free(lead);
		return;
	}
	add_options(k, e);
}

static void
complete_words(struct collect *k, const struct complete_env *env, char *const *w,
    int n)
{
	const struct cmd_entry *e;
	const struct cmd_opt *pending = NULL;
	char *cause = NULL, family[64], **pos;
	bool dashdash = false;
	int i, nwords, npos = 0;

	if (n == 0 || (n == 1 && cmd_family_match(w[0], family, sizeof family))) {
		add_command_name(k, w, n);
		return;
	}
	if ((e = cmd_find(n, w, &nwords, &cause)) == NULL) {
		free(cause);
		return;
	}
	k->e = e;
	pos = xcalloc((size_t)n, sizeof *pos);
	for (i = nwords; i < n; i++) {
		if (pending != NULL) {
			pending = NULL;
		} else if (!dashdash && strcmp(w[i], "--") == 0) {
			dashdash = true;
		} else if (!dashdash && is_option(w[i])) {
			pending = option_wanting_value(e, w[i]);
		} else if (e->arg_kind == VALUE_CMDLINE) {
			complete_words(k, env, w + i, n - i);
			free(pos);
			return;
		} else
			pos[npos++] = w[i];
	}
	if (pending != NULL)
		add_values(k, env, pending->kind);
	else if (!dashdash && k->cur[0] == '-')
		complete_option(k, env, e);
	else if (e->arg_kind == VALUE_CMDLINE)
		add_first_words(k);
	else if (e->arg_kind == VALUE_COMMAND)
		add_command_name(k, pos, npos);	/* help node b */
	else
		add_values(k, env, e->arg_kind);
	free(pos);
}

/* ---- results ---- */

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort, drop duplicates, and find the common prefix (invariants 1, 2). */
static void
finish(struct completion *c)
{
	size_t i, j, n;

	if (c->cands.n > 1)
		qsort(c->cands.v, c->cands.n, sizeof *c->cands.v, cmp_str);
	for (i = j = 0; i < c->cands.n; i++) {
		if (j > 0 && strcmp(c->cands.v[j - 1], c->cands.v[i]) == 0) {
			free(c->cands.v[i]);
			continue;
		}
		c->cands.v[j++] = c->cands.v[i];
	}
	c->cands.n = j;
	if (c->cands.v != NULL)
		c->cands.v[j] = NULL;
	if (j == 0) {
		c->prefix = xstrdup("");
		return;
	}
	n = strlen(c->cands.v[0]);
	for (i = 1; i < j; i++) {
		size_t m = 0;

		while (m < n && c->cands.v[i][m] == c->cands.v[0][m])
			m++;
		n = m;
	}
	while (n > 0 && ((unsigned char)c->cands.v[0][n] & 0xc0) == 0x80)
		n--;		/* not inside a UTF-8 character */
	c->prefix = xstrndup(c->cands.v[0], n);
}

void
complete_line(const struct complete_env *env, const char *line, size_t len,
    struct completion *c)
{
	struct scan sc;
	struct collect k;

	completion_release(c);
	memset(&sc, 0, sizeof sc);
	strvec_init(&sc.words);
	strbuf_init(&sc.cur);
	scan_line(line, len, &sc);
	c->start = sc.start;
	c->quote = sc.quote;
	if (!sc.comment) {
		k.c = c;
		k.cur = sc.cur.buf;
		k.lead = "";
		k.e = NULL;
		complete_words(&k, env, sc.words.v, (int)sc.words.n);
	}
	finish(c);
	strvec_release(&sc.words);
	strbuf_release(&sc.cur);
}

/* Append s as it must be written inside quote q (0: unquoted). */
static void
add_quoted(struct strbuf *sb, const char *s, char q)
{
	for (; *s != '\0'; s++) {
		if (q == '\'' && *s == '\'')
			strbuf_adds(sb, "'\\''");	/* close, escaped quote, reopen */
		else if (q == '"' && strchr("\\\"$`", *s) != NULL)
			strbuf_addf(sb, "\\%c", *s);
		else if (q == 0 && strchr(" \t\r\n;#'\"\\$`", *s) != NULL)
			strbuf_addf(sb, "\\%c", *s);
		else
			strbuf_addc(sb, *s);
	}
}

char *
complete_replacement(const struct completion *c)
{
	struct strbuf sb = STRBUF_INIT;
	bool one = c->cands.n == 1;
	const char *text = one ? c->cands.v[0] : c->prefix;

	if (c->cands.n == 0)
		return NULL;
	if (c->quote != 0)
		strbuf_addc(&sb, c->quote);
	add_quoted(&sb, text, c->quote);
	/* After a directory or "key=" one goes on typing. */
	if (one && !has_suffix(text, "/") && !has_suffix(text, "=")) {
		if (c->quote != 0)
			strbuf_addc(&sb, c->quote);
		strbuf_addc(&sb, ' ');
	}
	return strbuf_detach(&sb, NULL);
}
