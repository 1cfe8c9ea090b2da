/*
 * dash.c — the dashboard on a terminal (ncursesw). Everything the
 * dashboard shows and does is in src/dash (model, view, keys); this file
 * only moves frames and keys between it and curses:
 *
 *   wgetch -> key_table / mouse -> dash_view_key / click / scroll
 *   every refresh_ms (unless paused): dash_model_advance(speed x elapsed)
 *   then, once per frame: dash_view_draw -> blit (roles -> theme) -> doupdate
 *
 * curses keeps its own copy of the screen and sends only what changed, so
 * writing every cell of every frame does not flicker. ncurses handles
 * SIGTSTP/SIGCONT itself (endwin before stopping, a full repaint after) and
 * turns SIGWINCH into KEY_RESIZE.
 */
#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "dash/dash-model.h"
#include "dash/dash-view.h"
#include "ui/dash.h"
#include "ui/repl.h"

/* curses key codes -> the key table's (dash/dash-view.h). */
static const struct {
	int	curses;
	int	dash;
} key_table[] = {
	{ KEY_UP, DK_UP }, { KEY_DOWN, DK_DOWN }, { KEY_LEFT, DK_LEFT },
	{ KEY_RIGHT, DK_RIGHT }, { KEY_PPAGE, DK_PGUP }, { KEY_NPAGE, DK_PGDN },
	{ KEY_HOME, DK_HOME }, { KEY_END, DK_END }, { KEY_ENTER, DK_ENTER },
	{ '\r', DK_ENTER }, { '\n', DK_ENTER }, { 27, DK_ESC }, { '\t', DK_TAB },
	{ KEY_BTAB, DK_BTAB }, { KEY_BACKSPACE, DK_BACKSPACE }, { 127, DK_BACKSPACE },
	{ 8, DK_BACKSPACE },
};

/*
 * The theme: each role's colours and, without colour (NO_COLOR,
 * --no-color, a monochrome terminal), the attributes that keep it
 * readable. -1 is the terminal's default colour.
 */
static const struct {
	short	fg, bg;
	attr_t	color_attr;
	attr_t	mono;
} theme[DR_NROLES] = {
	[DR_NORMAL]	= { -1, -1, A_NORMAL, A_NORMAL },
	[DR_DIM]	= { -1, -1, A_DIM, A_DIM },
	[DR_TITLE]	= { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE },
	[DR_TAB]	= { -1, -1, A_NORMAL, A_NORMAL },
	[DR_TAB_ON]	= { COLOR_BLACK, COLOR_CYAN, A_BOLD, A_REVERSE | A_BOLD },
	[DR_HEADER]	= { COLOR_YELLOW, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[DR_SELECT]	= { COLOR_BLACK, COLOR_WHITE, A_NORMAL, A_REVERSE },
	[DR_FREE]	= { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[DR_USED]	= { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[DR_OPP]	= { COLOR_MAGENTA, -1, A_NORMAL, A_UNDERLINE },
	[DR_RESERVED]	= { COLOR_YELLOW, -1, A_NORMAL, A_DIM },
	[DR_BAD]	= { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[DR_DOOMED]	= { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[DR_WARN]	= { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[DR_ADMIN]	= { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[DR_VC0 + 0]	= { COLOR_CYAN, -1, A_NORMAL, A_NORMAL },
	[DR_VC0 + 1]	= { COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL },
	[DR_VC0 + 2]	= { COLOR_YELLOW, -1, A_NORMAL, A_NORMAL },
	[DR_VC0 + 3]	= { COLOR_GREEN, -1, A_NORMAL, A_NORMAL },
	[DR_VC0 + 4]	= { COLOR_BLUE, -1, A_BOLD, A_NORMAL },
	[DR_VC0 + 5]	= { COLOR_RED, -1, A_NORMAL, A_NORMAL },
};

struct tui {
	struct dash_model	*m;
	struct dash_view	*v;
	struct dash_screen	 scr;
	bool			 color;
	attr_t			 attr[DR_NROLES];
	char			*state_path;
};

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

char *
dash_ui_state_path(const char *state_home, const char *home)
{
	if (state_home != NULL && state_home[0] == '/')
		return xasprintf("%s/cellar/ui", state_home);
	if (home != NULL && home[0] != '\0')
		return xasprintf("%s/.local/state/cellar/ui", home);
	return NULL;
}

static void
state_load(struct tui *t)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *fp;

	if (t->state_path == NULL || (fp = fopen(t->state_path, "r")) == NULL)
		return;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(fp);
	dash_view_state_load(t->v, t->m, sb.buf);
	strbuf_release(&sb);
}

/* Write the UI state (invariant 2); a failure only loses the state. */
static void
state_save(struct tui *t)
{
	struct strbuf sb = STRBUF_INIT;
	char *cause = NULL, *tmp;
	int fd;

	if (t->state_path == NULL)
		return;
	if (repl_make_parents(t->state_path, &cause) != 0) {
		free(cause);
		return;
	}
	dash_view_state_save(t->v, t->m, &sb);
	/* a new file renamed over the old: a crash never leaves half of one */
	tmp = xasprintf("%s.tmp", t->state_path);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
		if (write(fd, sb.buf, sb.len) == (ssize_t)sb.len && close(fd) == 0)
			rename(tmp, t->state_path);
		else
			unlink(tmp);
	}
	free(tmp);
	strbuf_release(&sb);
}

static void
theme_init(struct tui *t)
{
	int r;

	for (r = 0; r < DR_NROLES; r++)
		t->attr[r] = theme[r].mono;
	if (!t->color)
		return;
	start_color();
	use_default_colors();
	for (r = 0; r < DR_NROLES && r + 1 < COLOR_PAIRS; r++) {
		init_pair((short)(r + 1), theme[r].fg, theme[r].bg);
		t->attr[r] = COLOR_PAIR(r + 1) | theme[r].color_attr;
	}
}

/* The frame to the terminal: runs of one role, one attribute change each. */
static void
blit(struct tui *t)
{
	const struct dash_screen *s = &t->scr;
	struct strbuf run = STRBUF_INIT;
	int x, y, x0, role;

	for (y = 0; y < s->h; y++) {
		for (x = 0; x < s->w; x = x0) {
			role = s->c[(size_t)y * (size_t)s->w + (size_t)x].role;
			strbuf_reset(&run);
			for (x0 = x; x0 < s->w; x0++) {
				const struct dash_cell *c = &s->c[(size_t)y * (size_t)s->w + (size_t)x0];

				if (c->role != role)
					break;
				strbuf_add(&run, c->ch, c->len);
			}
			attrset(t->attr[role < DR_NROLES ? role : DR_NORMAL]);
			/* the bottom-right cell cannot be written without a
			   scroll: curses says ERR there, harmlessly */
			mvaddstr(y, x, run.buf);
		}
	}
	attrset(A_NORMAL);
	strbuf_release(&run);
}

static void
draw(struct tui *t)
{
	int w = COLS, h = LINES;

	if (w != t->scr.w || h != t->scr.h) {
		dash_screen_release(&t->scr);
		dash_screen_init(&t->scr, w, h, t->v->ascii);
	}
	dash_view_draw(t->v, t->m, &t->scr);
	blit(t);
	wnoutrefresh(stdscr);
	doupdate();
}

static int
map_key(int ch)
{
	size_t i;

	for (i = 0; i < sizeof key_table / sizeof key_table[0]; i++)
		if (key_table[i].curses == ch)
			return key_table[i].dash;
	return ch >= 0 && ch < 0x100 ? ch : 0;
}

/* One input event; true when the frame should be drawn again. */
static bool
handle(struct tui *t, int ch, long long *resize_at)
{
	MEVENT ev;

	if (ch == KEY_RESIZE) {
		*resize_at = now_ms();
		return false;
	}
	if (ch == KEY_MOUSE) {
		if (getmouse(&ev) != OK)
			return false;
		if (ev.bstate & BUTTON4_PRESSED)
			return dash_view_scroll(t->v, t->m, -3);
		if (ev.bstate & BUTTON5_PRESSED)
			return dash_view_scroll(t->v, t->m, 3);
		if (ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
			return dash_view_click(t->v, t->m, ev.x, ev.y);
		return false;
	}
	if ((ch = map_key(ch)) == 0)
		return false;
	return dash_view_key(t->v, t->m, ch);
}

static bool
is_utf8_locale(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs != NULL && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

int
dash_tui_run(struct dash_model *m, struct dash_view *v,
    volatile sig_atomic_t *interrupted, char **cause)
{
	struct tui t;
	SCREEN *sp;
	long long next_tick, last_tick, resize_at = 0, now, wait;
	bool dirty = true;
	int ch;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		*cause = xasprintf("the dashboard needs a terminal (dash --once prints a frame)");
		return -1;
	}
	setlocale(LC_CTYPE, "");
	if (!is_utf8_locale())
		v->ascii = true;	/* line drawing falls back to ASCII */
	/* Esc must feel instant: curses waits this long for the rest of a
	   function key's sequence (ESCDELAY in the environment wins) */
	if (getenv("ESCDELAY") == NULL)
		set_escdelay(25);
	/* newterm, not initscr: a terminal curses cannot drive is an error
	   here, not an exit inside the library */
	if ((sp = newterm(NULL, stdout, stdin)) == NULL) {
		const char *term = getenv("TERM");

		*cause = xasprintf("cannot use terminal '%s'", term ? term : "");
		return -1;
	}
	set_term(sp);
	memset(&t, 0, sizeof t);
	t.m = m;
	t.v = v;
	t.color = v->color && has_colors();
	t.state_path = dash_ui_state_path(getenv("XDG_STATE_HOME"), getenv("HOME"));
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	keypad(stdscr, TRUE);
	curs_set(0);
	leaveok(stdscr, TRUE);
	theme_init(&t);
	if (v->mouse) {
		mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED |
		    BUTTON5_PRESSED, NULL);
		mouseinterval(0);
	}
	state_load(&t);
	dash_screen_init(&t.scr, COLS, LINES, v->ascii);
	last_tick = now_ms();
	next_tick = last_tick + v->refresh_ms;
	while (!v->quit && !*interrupted) {
		now = now_ms();
		if (now >= next_tick) {
			/* the source moves at most once per refresh (invariant 1);
			   dt 0 still lets a follower read what was written */
			double dt = v->paused || m->d.done || !m->d.can_play ? 0 :
			    v->speed * (double)(now - last_tick) / 1000;

			if (dash_model_advance(m, dt, cause) != 0)
				break;
			last_tick = now;
			next_tick = now + v->refresh_ms;
			dirty = true;
		}
		if (resize_at != 0 && now - resize_at >= DASH_RESIZE_MS) {
			resize_at = 0;
			clearok(curscr, TRUE);
			dirty = true;
		}
		if (dirty && resize_at == 0) {
			draw(&t);
			dirty = false;
		}
		wait = next_tick - now;
		if (resize_at != 0 && resize_at + DASH_RESIZE_MS - now < wait)
			wait = resize_at + DASH_RESIZE_MS - now;
		timeout(wait > 0 ? (int)wait : 0);
		if ((ch = getch()) == ERR)
			continue;
		dirty |= handle(&t, ch, &resize_at);
		/* everything typed meanwhile, before one redraw (invariant 1) */
		timeout(0);
		while (!v->quit && (ch = getch()) != ERR)
			dirty |= handle(&t, ch, &resize_at);
	}
	state_save(&t);
	endwin();
	delscreen(sp);
	dash_screen_release(&t.scr);
	free(t.state_path);
	return v->quit || *interrupted ? 0 : -1;
}
