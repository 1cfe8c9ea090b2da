/*
 * repl.c — the read-eval loop on libedit (see repl.h). It reads a line,
 * expands a history event, hands the text to the caller's run hook (which
 * tokenizes and dispatches it), asks for more while a command continues, and
 * records finished commands in the history file. Tab asks cmd/complete.c
 * what may come next and edits the line; an interrupt ends the read through
 * our own character reader, so Ctrl-C cancels the line at once.
 */
#include "ui/repl.h"

#include <sys/ioctl.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <histedit.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "cmd/complete.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

#define REPL_HISTORY_SIZE	1000
#define REPL_LIST_MAX		200	/* candidates listed at most */

struct repl_state {
	const struct repl	*r;
	EditLine		*el;
	History			*hist;
	char			*histfile;	/* NULL: no history file */
	bool			 save_warned;
	char			*prompt;
	bool			 more;		/* reading a continuation line */
};

/* ---- pure helpers (unit-tested) ---- */

char *
repl_history_path(const char *histfile, const char *state_home, const char *home)
{
	if (histfile != NULL)
		return *histfile != '\0' ? xstrdup(histfile) : NULL;
	/* The XDG spec: a relative XDG_STATE_HOME is invalid and ignored. */
	if (state_home != NULL && state_home[0] == '/')
		return xasprintf("%s/cellar/history", state_home);
	if (home != NULL && *home != '\0')
		return xasprintf("%s/.local/state/cellar/history", home);
	return NULL;
}

int
repl_make_parents(const char *path, char **cause)
{
	char *dir = xstrdup(path), *p;
	struct stat sb;
	int rc = 0, e;

	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && !(errno == EEXIST &&
		    stat(dir, &sb) == 0 && S_ISDIR(sb.st_mode))) {
			e = errno == EEXIST ? ENOTDIR : errno;
			*cause = xasprintf("cannot create directory '%s': %s", dir,
			    strerror(e));
			rc = -1;
			break;
		}
		*p = '/';
	}
	free(dir);
	return rc;
}

/* The length of the event word after '!': "!!", "!-3", "!load". */
static size_t
event_len(const char *s)
{
	if (s[1] == '!')
		return 2;
	if (s[1] == '-' && s[2] >= '0' && s[2] <= '9')
		return 2 + strspn(s + 2, "0123456789");
	return 1 + strcspn(s + 1, " \t;");
}

int
repl_expand(const char *line, char *const *hist, size_t n, char **out, char **cause)
{
	const char *s = line + strspn(line, " \t"), *hit = NULL;
	size_t len, i;
	char *end;

	if (s[0] != '!' || s[1] == '\0' || s[1] == ' ' || s[1] == '\t')
		return 0;
	len = event_len(s);
	if (s[1] == '!') {
		if (n > 0)
			hit = hist[n - 1];
	} else if (s[1] == '-' && len > 2) {
		unsigned long back = strtoul(s + 2, &end, 10);

		if (back >= 1 && back <= n)
			hit = hist[n - back];
	} else {
		for (i = n; i > 0 && hit == NULL; i--)
			if (strncmp(hist[i - 1], s + 1, len - 1) == 0)
				hit = hist[i - 1];
	}
	if (hit == NULL) {
		*cause = xasprintf("history event '%.*s' not found", (int)len, s);
		return -1;
	}
	*out = xasprintf("%s%s", hit, s + len);
	return 1;
}

char *
repl_prompt(const struct session *s)
{
	const char *path = s->spec_path, *base;
	size_t len;

	if (path == NULL || strcmp(path, SESSION_DEFAULT_SPEC) == 0)
		return xasprintf("cellar default/%s> ", engine_mode_name(s->mode));
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".yaml") == 0)
		len -= 5;
	else if (len > 4 && strcmp(base + len - 4, ".yml") == 0)
		len -= 4;
	return xasprintf("cellar %.*s/%s> ", (int)len, base, engine_mode_name(s->mode));
}

/* ---- libedit glue ---- */

static struct repl_state *
state_of(EditLine *el)
{
	void *p = NULL;

	el_get(el, EL_CLIENTDATA, &p);
	return p;
}

static char *
prompt_fn(EditLine *el)
{
	struct repl_state *st = state_of(el);

	return st->more ? (char *)"> " : st->prompt;
}

/*
 * Read one character. Unlike libedit's own reader, give up on the first
 * interrupted read when the user pressed Ctrl-C, so the line ends at once.
 */
static int
getc_fn(EditLine *el, wchar_t *wc)
{
	struct repl_state *st = state_of(el);
	char buf[MB_LEN_MAX];
	mbstate_t mbs;
	size_t n = 0, k;
	ssize_t got;

	for (;;) {
		/* the live loop runs while the user thinks */
		while (n == 0 && st->r->idle != NULL && !*st->r->interrupted &&
		    st->r->idle(st->r->arg, STDIN_FILENO) == 0)
			;
		got = read(STDIN_FILENO, buf + n, 1);
		if (got < 0 && errno == EINTR && !*st->r->interrupted)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			return 0;
		n++;
		memset(&mbs, 0, sizeof mbs);
		k = mbrtowc(wc, buf, n, &mbs);
		if (k == (size_t)-2 && n < sizeof buf)
			continue;	/* more bytes of one character */
		if (k == (size_t)-1 || k == (size_t)-2) {
			n = 0;		/* not a character: drop it */
			continue;
		}
		return 1;
	}
}

static void
list_dir(void *arg, const char *dir, struct strvec *names)
{
	struct dirent *de;
	struct stat sb;
	DIR *d;

	(void)arg;
	if ((d = opendir(*dir != '\0' ? dir : ".")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *path;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		path = xasprintf("%s%s", dir, de->d_name);
		if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
			strvec_pushf(names, "%s/", de->d_name);
		else
			strvec_push(names, de->d_name);
		free(path);
	}
	closedir(d);
}

static int
term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

/* Print candidates in columns, down then across, as ls does. */
static void
list_candidates(const struct strvec *cands)
{
	size_t i, w = 0, n = cands->n < REPL_LIST_MAX ? cands->n : REPL_LIST_MAX;
	size_t cols, rows, r, c;

	for (i = 0; i < n; i++)
		if (strlen(cands->v[i]) > w)
			w = strlen(cands->v[i]);
	cols = (size_t)term_width() / (w + 2);
	if (cols == 0)
		cols = 1;
	rows = (n + cols - 1) / cols;
	fputc('\n', stderr);
	for (r = 0; r < rows; r++) {
		for (c = 0; c < cols && c * rows + r < n; c++) {
			i = c * rows + r;
			fprintf(stderr, "%-*s", (int)(c + 1 < cols && i + rows < n ?
			    w + 2 : 0), cands->v[i]);
		}
		fputc('\n', stderr);
	}
	if (cands->n > n)
		fprintf(stderr, "(%zu more)\n", cands->n - n);
}

/* Characters (not bytes) in s[0 .. len): el_deletestr counts characters. */
static int
nchars(const char *s, size_t len)
{
	size_t i;
	int n = 0;

	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

/* Tab: complete the word before the cursor, or list the choices. */
static unsigned char
complete_fn(EditLine *el, int ch)
{
	struct repl_state *st = state_of(el);
	const LineInfo *li = el_line(el);
	struct complete_env env = { st->r->sess, list_dir, NULL };
	struct completion c;
	size_t len = (size_t)(li->cursor - li->buffer), oldlen;
	unsigned char rc = CC_REFRESH_BEEP;
	char *rep;

	(void)ch;
	completion_init(&c);
	complete_line(&env, li->buffer, len, &c);
	if ((rep = complete_replacement(&c)) != NULL) {
		oldlen = len - c.start;
		if (strlen(rep) != oldlen ||
		    strncmp(rep, li->buffer + c.start, oldlen) != 0) {
			el_deletestr(el, nchars(li->buffer + c.start, oldlen));
			rc = el_insertstr(el, rep) == 0 ? CC_REFRESH : CC_REFRESH_BEEP;
		} else if (c.cands.n > 1) {
			list_candidates(&c.cands);
			rc = CC_REDISPLAY;
		}
	}
	free(rep);
	completion_release(&c);
	return rc;
}

/* The history, oldest first, for event expansion. */
static void
history_lines(History *h, struct strvec *out)
{
	HistEvent ev;
	int rc;

	for (rc = history(h, &ev, H_LAST); rc != -1; rc = history(h, &ev, H_PREV))
		strvec_push(out, ev.str);
}

static void
history_add(struct repl_state *st, const char *text)
{
	HistEvent ev;

	if (st->hist == NULL || text[strspn(text, " \t\n")] == '\0')
		return;
	history(st->hist, &ev, H_ENTER, text);
	if (st->histfile != NULL && history(st->hist, &ev, H_SAVE, st->histfile) == -1 &&
	    !st->save_warned) {
		fprintf(stderr, "cellar: cannot write history file '%s'\n",
		    st->histfile);
		st->save_warned = true;
	}
}

static void
history_open(struct repl_state *st)
{
	HistEvent ev;
	char *cause = NULL;

	st->hist = history_init();
	history(st->hist, &ev, H_SETSIZE, REPL_HISTORY_SIZE);
	history(st->hist, &ev, H_SETUNIQUE, 1);
	st->histfile = repl_history_path(getenv("CELLAR_HISTFILE"),
	    getenv("XDG_STATE_HOME"), getenv("HOME"));
	if (st->histfile != NULL && repl_make_parents(st->histfile, &cause) != 0) {
		fprintf(stderr, "cellar: no history: %s\n", cause);
		free(cause);
		free(st->histfile);
		st->histfile = NULL;
	}
	if (st->histfile != NULL)
		history(st->hist, &ev, H_LOAD, st->histfile);	/* may not exist yet */
}

static void
banner(const struct repl *r)
{
	char *p = repl_prompt(r->sess);

	/* "cellar default/hived> " -> "default/hived" */
	p[strlen(p) - 2] = '\0';
	fprintf(stderr, "cellar %s on %s; 'help' lists commands, Tab completes, "
	    "Ctrl-D leaves\n", r->version, p + strlen("cellar "));
	free(p);
}

/* Apply a history event to a new line; false if the line is to be dropped. */
static bool
expand(struct repl_state *st, char **text)
{
	struct strvec lines = STRVEC_INIT;
	char *out = NULL, *cause = NULL;
	int rc;

	if (st->hist == NULL)
		return true;
	history_lines(st->hist, &lines);
	rc = repl_expand(*text, lines.v, lines.n, &out, &cause);
	strvec_release(&lines);
	if (rc < 0) {
		fprintf(stderr, "cellar: %s\n", cause);
		free(cause);
		return false;
	}
	if (rc > 0) {
		fprintf(stderr, "%s\n", out);	/* show what runs, as shells do */
		free(*text);
		*text = out;
	}
	return true;
}

/* Returns -1 if libedit cannot start (out of memory). */
static int
repl_setup(struct repl_state *st, bool tty)
{
	if ((st->el = el_init("cellar", stdin, stderr, stderr)) == NULL)
		return -1;
	el_set(st->el, EL_CLIENTDATA, st);
	el_set(st->el, EL_EDITOR, "emacs");
	el_set(st->el, EL_PROMPT, prompt_fn);
	el_set(st->el, EL_GETCFN, getc_fn);
	/* The wide call: libedit's narrow EL_ADDFN leaks copies of the names. */
	el_wset(st->el, EL_ADDFN, L"cellar-complete", L"complete a command, "
	    "option or value", complete_fn);
	el_set(st->el, EL_BIND, "^I", "cellar-complete", NULL);
	if (tty) {
		history_open(st);
		el_set(st->el, EL_HIST, history, st->hist);
		el_source(st->el, NULL);	/* $EDITRC or ~/.editrc, may override */
	}
	return 0;
}

/*
 * One line read: expand a history event, join it to a command that
 * continues, run what is complete, record it. *last gets the status of
 * the last command run.
 */
static void
run_line(struct repl_state *st, struct strbuf *stmt, const char *line,
    bool tty, int *last)
{
	const struct repl *r = st->r;
	char *text = xstrndup(line, strcspn(line, "\n"));
	int status;

	if (!st->more && !expand(st, &text)) {
		free(text);
		return;
	}
	if (st->more)
		strbuf_addc(stmt, '\n');
	strbuf_adds(stmt, text);
	free(text);
	if ((status = r->run(r->arg, stmt->buf, &st->more)) >= 0)
		*last = status;
	if (*r->interrupted && tty)
		fputc('\n', stderr);	/* after the terminal's "^C" */
	if (st->more)
		return;
	history_add(st, stmt->buf);
	strbuf_reset(stmt);
}

int
repl_run(const struct repl *r)
{
	struct repl_state st;
	struct strbuf stmt = STRBUF_INIT;
	const char *line;
	bool tty = isatty(STDIN_FILENO) != 0;
	int n, last = 0;

	memset(&st, 0, sizeof st);
	st.r = r;
	setlocale(LC_CTYPE, "");	/* libedit reads characters, not bytes */
	if (repl_setup(&st, tty) != 0) {
		fputs("cellar: cannot start the line editor\n", stderr);
		return 1;
	}
	if (tty)
		banner(r);
	for (;;) {
		free(st.prompt);
		st.prompt = repl_prompt(r->sess);
		*r->interrupted = 0;
		if ((line = el_gets(st.el, &n)) == NULL) {
			if (n < 0 && *r->interrupted) {
				fputs("^C\n", stderr);	/* cancel the line, stay */
				strbuf_reset(&stmt);
				st.more = false;
				continue;
			}
			if (tty)
				fputc('\n', stderr);
			break;
		}
		run_line(&st, &stmt, line, tty, &last);
	}
	*r->interrupted = 0;
	strbuf_release(&stmt);
	el_end(st.el);
	if (st.hist != NULL)
		history_end(st.hist);
	free(st.histfile);
	free(st.prompt);
	return last;
}
