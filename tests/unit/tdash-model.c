/*
 * tdash-model.c — the dashboard without a terminal: the view model over the
 * emulator source (derived data rebuilt only when the source changes, queue
 * order, counts against the engine, tree rows), the key table against the
 * manual, the view's filter and admin/confirmation rules, and the screen
 * grid (clipping, bad UTF-8, ASCII glyphs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "core/xmalloc.h"
#include "dash/dash-model.h"
#include "dash/dash-view.h"
#include "dash-work.h"

/* Derived data is rebuilt when the source's generation moves, only then. */
static void
test_rebuild_on_change(void)
{
	struct fixture f;
	long long r;
	char *cause = NULL;

	fixture_init(&f, 0);
	r = f.m.rebuilds;
	dash_model_refresh(&f.m);
	dash_model_refresh(&f.m);
	CHECK_INTEQ(f.m.rebuilds, r);
	CHECK(dash_model_advance(&f.m, 3600, &cause) == 0);
	CHECK_INTEQ(f.m.rebuilds, r + 1);
	CHECK(f.m.d.now == 3600);
	dash_model_refresh(&f.m);
	CHECK_INTEQ(f.m.rebuilds, r + 1);
	fixture_release(&f);
}

/* Model invariant 2 and the counts, against the jobs and the engine. */
static void
test_queue_order_and_counts(void)
{
	struct fixture f;
	struct engine_stats st;
	int i, v, pend = 0, run = 0, nodes_used = 0;

	fixture_init(&f, 86400);
	CHECK(f.m.nq > 0);
	CHECK(f.m.running > 0);
	for (i = 1; i < f.m.nq; i++) {
		const struct dash_qrow *a = &f.m.q[i - 1], *b = &f.m.q[i];
		int va = f.m.d.jobs[a->job].vc, vb = f.m.d.jobs[b->job].vc;

		CHECKF(va < vb || (va == vb && (a->active < b->active ||
		    (a->active == b->active && policy_key_cmp(&a->key, &b->key) < 0))),
		    "rows %d and %d out of order", i - 1, i);
	}
	for (i = 0; i < f.m.d.njobs; i++) {
		const struct job *j = &f.m.d.jobs[i];

		if (j->state == JOB_PENDING && j->submit <= f.m.d.now)
			pend++;
		else if (job_holds_cells(j) || j->state == JOB_PREEMPTED)
			run++;
	}
	CHECK_INTEQ(f.m.pending, pend);
	CHECK_INTEQ(f.m.running, run);
	CHECK_INTEQ(f.m.nq, pend + run);
	for (v = 0, pend = 0; v < f.m.nvcs; v++) {
		CHECK_INTEQ(f.m.vq_first[v + 1] - f.m.vq_first[v],
		    f.m.vcs[v].pending + f.m.vcs[v].running);
		pend += f.m.vcs[v].pending;
	}
	CHECK_INTEQ(pend, f.m.pending);
	engine_stats(f.m.d.engine, &st);
	CHECK(fabs(f.m.util - (double)(st.used + st.opp) / st.gpus) < 1e-12);
	for (i = 0; i < f.spec->nnodes; i++) {
		char c;
		unsigned char role;

		dash_model_node(&f.m, i, &c, &role);

		CHECKF(c == '.' || c == ',' || c == '#' || (c >= 'A' && c <= 'D') ||
		    (c >= 'a' && c <= 'd'), "node %d shows '%c'", i, c);
		nodes_used += c != '.' && c != ',';
	}
	/* every busy GPU is on a node the map shows as busy */
	CHECK((st.used + st.opp > 0) == (nodes_used > 0));
	fixture_release(&f);
}

/* Model invariant 3: rows follow opening and closing. */
static void
test_tree_rows(void)
{
	struct fixture f;
	int n, rack, node;

	fixture_init(&f, 0);
	n = f.m.nrows;
	CHECK_INTEQ(n, 2 + 16);		/* two racks open, their nodes closed */
	rack = f.m.rows[0];
	node = f.m.rows[1];
	CHECK_INTEQ(f.spec->cells[node].parent, rack);
	dash_model_set_open(&f.m, node, true);
	CHECK_INTEQ(f.m.nrows, n + 2);		/* two sockets */
	CHECK_INTEQ(f.spec->cells[f.m.rows[2]].parent, node);
	dash_model_set_open(&f.m, rack, false);
	CHECK_INTEQ(f.m.nrows, 2 + 8);
	CHECK_INTEQ(dash_model_depth(&f.m, rack), 0);
	CHECK_INTEQ(dash_model_depth(&f.m, node), 1);
	fixture_release(&f);
}

/* View invariant 3, and the manual's DASHBOARD KEYS lists every key. */
static void
test_keys_table_and_man(void)
{
	const struct dash_key *a, *b;
	FILE *fp = fopen("man/cellar.1", "r");
	struct strbuf sec = STRBUF_INIT;
	char line[1024];
	bool on = false;

	for (a = dash_keys; a->key != 0; a++) {
		CHECKF(a->help != NULL && a->help[0] != '\0', "key %s", a->name);
		for (b = a + 1; b->key != 0; b++)
			CHECKF(a->key != b->key, "key %s twice", a->name);
	}
	CHECK(fp != NULL);
	if (fp == NULL)
		return;
	while (fgets(line, sizeof line, fp) != NULL) {
		if (strncmp(line, ".Sh ", 4) == 0)
			on = strcmp(line, ".Sh DASHBOARD KEYS\n") == 0;
		else if (on && strncmp(line, ".It Li ", 7) == 0)
			strbuf_adds(&sec, line);
	}
	fclose(fp);
	for (a = dash_keys; a->key != 0; a++) {
		char want[64];
		const char *p;
		bool found = false;

		/* ".It Li a , b" lists names separated by " , " */
		snprintf(want, sizeof want, "%s%s", a->key == ':' || a->key == '?' ?
		    "\\&" : "", a->name);
		for (p = sec.buf; (p = strstr(p, want)) != NULL; p++) {
			char before = p == sec.buf ? ' ' : p[-1];
			char after = p[strlen(want)];

			if (before == ' ' && (after == ' ' || after == '\n'))
				found = true;
		}
		CHECKF(found, "key '%s' missing from DASHBOARD KEYS", a->name);
	}
	strbuf_release(&sec);
}

/* Filters: field=value, regex, inverted, and a bad regex refused. */
static void
test_filter(void)
{
	struct fixture f;
	struct dash_view v;
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;
	char *cause = NULL;

	fixture_init(&f, 86400);
	dash_view_init(&v);
	v.panel = DP_QUEUES;
	CHECK(dash_view_set_filter(&v, "vc=prod", &cause) == 0);
	dash_screen_init(&s, 120, 200, true);
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	CHECK(strstr(out.buf, "B prod") != NULL);
	CHECK(strstr(out.buf, "A research") == NULL);
	CHECK(strstr(out.buf, "filter: vc=prod") != NULL);
	CHECK(dash_view_set_filter(&v, "!prod", &cause) == 0);
	strbuf_reset(&out);
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	CHECK(strstr(out.buf, "B prod") == NULL);
	CHECK(strstr(out.buf, "A research") != NULL);
	CHECK(dash_view_set_filter(&v, "([", &cause) == -1);
	CHECK(cause != NULL && strstr(cause, "bad filter '(['") != NULL);
	free(cause);
	CHECK_STREQ(v.filter, "!prod");		/* the old filter stays */
	dash_screen_release(&s);
	strbuf_release(&out);
	dash_view_release(&v);
	fixture_release(&f);
}

struct hooks {
	int	runs;
	char	last[256];
};

static int
h_run(void *arg, const char *line, bool admin, struct strbuf *out)
{
	struct hooks *h = arg;

	(void)admin;
	h->runs++;
	snprintf(h->last, sizeof h->last, "%s", line);
	strbuf_adds(out, "done\n");
	return 0;
}

static bool
h_mutates(void *arg, const char *line)
{
	(void)arg;
	return strncmp(line, "node bad", 8) == 0;
}

static void
type(struct dash_view *v, struct dash_model *m, const char *s)
{
	for (; *s != '\0'; s++)
		dash_view_key(v, m, *s == '\n' ? DK_ENTER : (unsigned char)*s);
}

/* View invariant 2: read-only, then admin with Cancel as the default;
   no admin or y/N for what cannot change anyway. */
static void
test_admin_confirm(void)
{
	struct fixture f;
	struct dash_view v;
	struct hooks h = { 0, "" };

	fixture_init(&f, 0);
	dash_view_init(&v);
	v.run = h_run;
	v.mutates = h_mutates;
	v.arg = &h;
	type(&v, &f.m, ":vcs\n");
	CHECK_INTEQ(h.runs, 1);
	CHECK_STREQ(h.last, "vcs");
	CHECK(strstr(v.out.buf, "done") != NULL);
	/* the emulator changes only by its workload: the line goes at once to
	   the face, which says so, with no admin mode or y/N first */
	type(&v, &f.m, ":node bad r0n00\n");
	CHECK_INTEQ(h.runs, 2);
	CHECK(v.input == DI_NONE && !v.admin);
	h.runs = 1;
	f.m.d.writable = true;			/* a live cluster's server */
	type(&v, &f.m, ":node bad r0n00\n");
	CHECK_INTEQ(h.runs, 1);			/* refused: not admin */
	CHECK(strstr(v.msg, "admin mode") != NULL);
	type(&v, &f.m, ":admin\n");
	CHECK(v.admin);
	type(&v, &f.m, ":node bad r0n00\n");
	CHECK(v.input == DI_CONFIRM);
	dash_view_key(&v, &f.m, DK_ENTER);	/* the default: cancel */
	CHECK_INTEQ(h.runs, 1);
	CHECK_STREQ(v.msg, "cancelled");
	type(&v, &f.m, ":node bad r0n00\n");
	dash_view_key(&v, &f.m, 'n');
	CHECK_INTEQ(h.runs, 1);
	type(&v, &f.m, ":node bad r0n00\ny");
	CHECK_INTEQ(h.runs, 2);
	CHECK_STREQ(h.last, "node bad r0n00");
	type(&v, &f.m, ":q\n");
	CHECK(v.quit);
	dash_view_release(&v);
	fixture_release(&f);
}

/* Keys move between panels; speed stays in bounds; pause toggles. */
static void
test_keys_actions(void)
{
	struct fixture f;
	struct dash_view v;
	int i;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_view_key(&v, &f.m, DK_TAB);
	CHECK_INTEQ(v.panel, DP_VCS);
	dash_view_key(&v, &f.m, DK_BTAB);
	dash_view_key(&v, &f.m, DK_BTAB);
	CHECK_INTEQ(v.panel, DASH_NPANELS - 1);	/* the last: Series */
	dash_view_key(&v, &f.m, '3');
	CHECK_INTEQ(v.panel, DP_QUEUES);
	for (i = 0; i < 64; i++)
		dash_view_key(&v, &f.m, '+');
	CHECK(v.speed == DASH_SPEED_MAX);
	for (i = 0; i < 64; i++)
		dash_view_key(&v, &f.m, '-');
	CHECK(v.speed == DASH_SPEED_MIN);
	dash_view_key(&v, &f.m, ' ');
	CHECK(v.paused);
	dash_view_key(&v, &f.m, '?');
	CHECK(v.help);
	dash_view_key(&v, &f.m, 'x');		/* any key closes help */
	CHECK(!v.help);
	dash_view_key(&v, &f.m, '1');
	dash_view_key(&v, &f.m, DK_ENTER);	/* the first rack */
	CHECK_INTEQ(v.panel, DP_DETAIL);
	CHECK(v.d_kind == DD_CELL && v.d_id == f.m.rows[0]);
	dash_view_key(&v, &f.m, DK_ESC);
	CHECK_INTEQ(v.panel, DP_CELLS);
	dash_view_release(&v);
	fixture_release(&f);
}

static void
test_screen(void)
{
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;

	dash_screen_init(&s, 10, 2, false);
	CHECK_INTEQ(dash_put(&s, 7, 0, -1, DR_NORMAL, "abcdef"), 3);
	CHECK_INTEQ(dash_put(&s, 0, 1, -1, DR_NORMAL, "\xff\x01\xc3\xa9"), 3);
	CHECK_INTEQ(dash_put(&s, 0, 5, -1, DR_NORMAL, "x"), 0);
	dash_screen_text(&s, &out);
	CHECK_STREQ(out.buf, "       abc\n??\xc3\xa9\n");
	dash_screen_release(&s);
	dash_screen_init(&s, 4, 1, true);
	dash_fill(&s, 0, 0, 2, DR_USED, DG_BAR_FULL);
	dash_put(&s, 2, 0, -1, DR_NORMAL, "\xc3\xa9");
	strbuf_reset(&out);
	dash_screen_text(&s, &out);
	CHECK_STREQ(out.buf, "##?\n");
	dash_screen_release(&s);
	strbuf_release(&out);
}

static void
test_too_small(void)
{
	struct fixture f;
	struct dash_view v;
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_screen_init(&s, 40, 10, true);
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	CHECK(strncmp(out.buf, "terminal too small (need 60x12)\n", 32) == 0);
	dash_screen_release(&s);
	strbuf_release(&out);
	dash_view_release(&v);
	fixture_release(&f);
}

/* The mouse: tabs by column, rows by line, a second click opens. */
static void
test_mouse(void)
{
	struct fixture f;
	struct dash_view v;
	struct dash_screen s;

	fixture_init(&f, 3600);
	dash_view_init(&v);
	dash_screen_init(&s, 120, 30, true);
	dash_view_draw(&v, &f.m, &s);
	CHECK(dash_view_click(&v, &f.m, 15, 1));	/* " 2 VCs " starts at 13 */
	CHECK_INTEQ(v.panel, DP_VCS);
	CHECK(dash_view_click(&v, &f.m, 3, 1));
	CHECK_INTEQ(v.panel, DP_CELLS);
	dash_view_draw(&v, &f.m, &s);
	/* the overview: 2 rows of meters (3 a row at 120), the tree's header */
	CHECK_INTEQ(v.list_y, 5);
	CHECK(!dash_view_click(&v, &f.m, 5, 2));	/* a meter */
	CHECK(dash_view_click(&v, &f.m, 5, 7));		/* the third row */
	CHECK_INTEQ(v.sel[DP_CELLS], 2);
	CHECK_INTEQ(v.panel, DP_CELLS);
	CHECK(!dash_view_click(&v, &f.m, 5, 29));	/* the key hints line */
	CHECK(dash_view_click(&v, &f.m, 5, 7));		/* again: open it */
	CHECK_INTEQ(v.panel, DP_DETAIL);
	CHECK(v.d_kind == DD_CELL && v.d_id == f.m.rows[2]);
	CHECK(!dash_view_scroll(&v, &f.m, 3));		/* detail has no rows */
	dash_view_key(&v, &f.m, DK_ESC);
	CHECK(dash_view_scroll(&v, &f.m, 3));
	CHECK_INTEQ(v.sel[DP_CELLS], 5);
	CHECK(dash_view_scroll(&v, &f.m, -100));
	CHECK_INTEQ(v.sel[DP_CELLS], 0);
	dash_screen_release(&s);
	dash_view_release(&v);
	fixture_release(&f);
}

/* The selected row is marked without colour, in the gutter. */
static void
test_select_marker(void)
{
	struct fixture f;
	struct dash_view v;
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;
	char *l3;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_screen_init(&s, 100, 20, true);
	dash_view_key(&v, &f.m, 'j');
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	/* below the meters and the tree's header */
	l3 = strstr(out.buf, "\n - r0 ");
	CHECK(l3 != NULL);
	if (l3 != NULL)
		CHECK(strncmp(strchr(l3 + 1, '\n'), "\n>  + r0n00 ", 12) == 0);
	dash_screen_release(&s);
	strbuf_release(&out);
	dash_view_release(&v);
	fixture_release(&f);
}

/* UI state: saved as text, loaded back; junk and other specs' cells skipped. */
static void
test_ui_state(void)
{
	struct fixture f, g;
	struct dash_view v, w;
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	int node;

	fixture_init(&f, 0);
	fixture_init(&g, 0);
	dash_view_init(&v);
	dash_view_init(&w);
	dash_view_key(&v, &f.m, '3');
	dash_view_key(&v, &f.m, 's');
	dash_view_key(&v, &f.m, '+');
	dash_view_key(&v, &f.m, 'm');
	CHECK(dash_view_set_filter(&v, "state=PD", NULL) == 0);
	node = f.m.rows[1];
	dash_model_set_open(&f.m, node, true);
	dash_model_set_open(&f.m, f.m.rows[0], false);
	dash_view_state_save(&v, &f.m, &out);
	CHECK(strstr(out.buf, "panel queues\n") != NULL);
	CHECK(strstr(out.buf, "closed r0\n") != NULL);
	CHECK(strstr(out.buf, "open r0n00\n") != NULL);
	strbuf_adds(&out, "garbage\nopen nosuchcell\nsort 9\nspeed -4\npanel detail\n");
	dash_view_state_load(&w, &g.m, out.buf);
	CHECK_INTEQ(w.panel, DP_QUEUES);
	CHECK_INTEQ(w.sort, 1);
	/* 1200 was saved: it comes back at the start speed, no faster */
	CHECK(w.speed == DASH_SPEED_START);
	CHECK(w.map);
	CHECK_STREQ(w.filter, "state=PD");
	CHECK(g.m.open[node] && !g.m.open[f.m.rows[0]]);
	CHECK_INTEQ(g.m.nrows, f.m.nrows);
	dash_view_state_save(&w, &g.m, &again);
	strbuf_reset(&out);
	v.speed = w.speed;	/* the one thing that came back otherwise */
	dash_view_state_save(&v, &f.m, &out);
	CHECK_STREQ(again.buf, out.buf);
	strbuf_release(&out);
	strbuf_release(&again);
	dash_view_release(&v);
	dash_view_release(&w);
	fixture_release(&f);
	fixture_release(&g);
}

/*
 * A saved speed never comes back above the start speed (x604800 once
 * made the next demo end before it was seen); a slower one comes back as
 * saved, and --speed (speed_given) wins over either, as --panel does.
 */
static void
test_state_speed(void)
{
	struct fixture f;
	struct dash_view v;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_view_state_load(&v, &f.m, "speed 604800\n");
	CHECK(v.speed == DASH_SPEED_START);
	dash_view_state_load(&v, &f.m, "speed 150\n");
	CHECK(v.speed == 150);
	v.speed = 5000;
	v.speed_given = true;
	dash_view_state_load(&v, &f.m, "speed 300\n");
	CHECK(v.speed == 5000);
	/* so does --panel over a saved panel */
	v.panel = DP_EVENTS;
	v.panel_given = true;
	dash_view_state_load(&v, &f.m, "panel queues\n");
	CHECK_INTEQ(v.panel, DP_EVENTS);
	dash_view_release(&v);
	fixture_release(&f);
}

/* Is word in text as a whole word (blanks, line ends or the edge around)? */
static bool
has_word(const char *text, const char *word, size_t n)
{
	const char *p = text;

	while (*p != '\0') {
		const char *q = strstr(p, word);

		if (q == NULL)
			return false;
		if ((q == text || q[-1] == ' ' || q[-1] == '\n') &&
		    (q[n] == ' ' || q[n] == '\n' || q[n] == '\0'))
			return true;
		p = q + 1;
	}
	return false;
}

/*
 * The '?' overlay at 80x24 holds every key and every word of its help
 * whole (it used to cut them at the column's edge), and the glyph
 * legend.
 */
static void
test_help_fits(void)
{
	static const char *const legend[] = { "tree:", "G=guaranteed", "D=doomed",
	    "map:", "#=bad", "bars:", "meters:", "used/guaranteed," };
	struct fixture f;
	struct dash_view v;
	struct dash_screen s;
	struct strbuf out = STRBUF_INIT;
	const struct dash_key *k;
	char word[128];
	const char *p, *e;
	size_t i;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_screen_init(&s, 80, 24, true);
	dash_view_key(&v, &f.m, '?');
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	for (k = dash_keys; k->key != 0; k++) {
		CHECKF(has_word(out.buf, k->name, strlen(k->name)), "key %s", k->name);
		for (p = k->help; *p != '\0'; p = *e ? e + 1 : e) {
			e = strchr(p, ' ');
			if (e == NULL)
				e = p + strlen(p);
			snprintf(word, sizeof word, "%.*s", (int)(e - p), p);
			CHECKF(has_word(out.buf, word, strlen(word)),
			    "key %s: '%s' cut or missing", k->name, word);
		}
	}
	for (i = 0; i < sizeof legend / sizeof legend[0]; i++)
		CHECKF(has_word(out.buf, legend[i], strlen(legend[i])), "legend %s",
		    legend[i]);
	strbuf_release(&out);
	dash_screen_release(&s);
	dash_view_release(&v);
	fixture_release(&f);
}

/* srsf's key is service (remaining time x GPUs), not remaining time;
   gandiva shows its time-slicing, else the arrival its order follows. */
static void
test_prio_labels(void)
{
	struct dash_qrow r;
	struct job j;
	char buf[64];

	memset(&r, 0, sizeof r);
	job_init(&j, 0, "j0", 0, 0);
	r.key.k[0] = 7200;
	dash_format_prio("srtf", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "rem 2h00m");
	dash_format_prio("srsf", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "svc 2 GPU-h");
	dash_format_prio("gandiva", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "arr 2h00m");
	j.state = JOB_SUSPENDED;
	j.suspensions = 3;
	dash_format_prio("gandiva", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "susp x3");
	j.state = JOB_RUNNING;
	dash_format_prio("gandiva", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "sliced x3");
	j.suspensions = 0;
	dash_format_prio("gandiva", &r, &j, buf, sizeof buf);
	CHECK_STREQ(buf, "arr 2h00m");
}

/* ---- model invariant 5: the delta equals a full rebuild ---- */

static unsigned long long rng_state;

static unsigned
rnd(unsigned n)
{
	rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng_state >> 33) % n;
}

/*
 * Model a (kept up by delta) against a fresh model on the same source (a
 * full rebuild): every derived field, every queue row, every node glyph.
 * The fresh model takes no changes from the source: a has just taken them.
 */
static void
same_as_rebuild(struct dash_model *a, const char *what)
{
	struct dash_model b;
	int i, v, bad = 0;

	dash_model_init(&b, a->src);
	CHECKF(a->gen == b.gen, "%s: gen", what);
	CHECKF(a->nq == b.nq && a->pending == b.pending && a->running == b.running,
	    "%s: %d rows %d pending %d running, rebuild says %d %d %d", what,
	    a->nq, a->pending, a->running, b.nq, b.pending, b.running);
	for (i = 0; i < a->nq && i < b.nq && !bad; i++) {
		const struct dash_qrow *x = &a->q[i], *y = &b.q[i];

		bad = x->job != y->job || x->klass != y->klass || x->active != y->active ||
		    policy_key_cmp(&x->key, &y->key) != 0;
		CHECKF(!bad, "%s: row %d is job %d, rebuild says job %d", what, i,
		    x->job, y->job);
	}
	for (v = 0; v <= a->nvcs; v++)
		CHECKF(a->vq_first[v] == b.vq_first[v], "%s: vq_first[%d]", what, v);
	for (v = 0; v < a->nvcs; v++) {
		CHECKF(a->vcs[v].pending == b.vcs[v].pending &&
		    a->vcs[v].running == b.vcs[v].running, "%s: vc %d counts", what, v);
		CHECKF(memcmp(&a->vcs[v].u, &b.vcs[v].u, sizeof a->vcs[v].u) == 0,
		    "%s: vc %d usage", what, v);
	}
	CHECKF(a->partial == b.partial, "%s: %d partial nodes, rebuild says %d",
	    what, a->partial, b.partial);
	CHECKF(a->frag == b.frag && a->util == b.util, "%s: frag/util", what);
	for (i = 0; i < a->d.spec->nnodes; i++) {
		char c1, c2;
		unsigned char r1, r2;

		CHECKF(a->node_busy[i] == b.node_busy[i], "%s: node %d busy %d, rebuild "
		    "says %d", what, i, a->node_busy[i], b.node_busy[i]);
		dash_model_node(a, i, &c1, &r1);
		dash_model_node(&b, i, &c2, &r2);
		CHECKF(c1 == c2 && r1 == r2, "%s: node %d shows '%c', rebuild '%c'",
		    what, i, c1, c2);
	}
	dash_model_release(&b);
}

/* The emulator under several policies, played in random steps. */
static void
test_delta_emu(void)
{
	static const char *const pols[] = { "las", "fifo", "gittins", "srtf", "gandiva" };
	struct spec *spec = default_spec();
	size_t p;
	int step, steps = test_long ? 200 : 40;
	char what[96];

	rng_state = 7;
	for (p = 0; p < sizeof pols / sizeof pols[0]; p++) {
		struct dash_emu_cfg c;
		struct dash_source src;
		struct dash_model m;
		char *cause = NULL;
		long long frames_before;

		dash_emu_cfg_init(&c);
		c.spec = spec;
		c.policy = pols[p];
		c.seed = 1 + p;
		if (dash_source_emu(&src, &c, &cause) != 0) {
			CHECKF(0, "%s: %s", pols[p], cause);
			free(cause);
			continue;
		}
		dash_model_init(&m, &src);
		frames_before = m.full;
		for (step = 0; step < steps && !test_failed_; step++) {
			/* from a second to six hours: single events and bursts */
			double dt = 1 + rnd(4) * (double)rnd(5400);

			CHECK(dash_model_advance(&m, dt, &cause) == 0);
			snprintf(what, sizeof what, "%s step %d t=%.0f", pols[p], step, m.d.now);
			same_as_rebuild(&m, what);
		}
		/* the delta path ran, on real changes, and no full rebuild */
		CHECKF(m.full == frames_before, "%s: %lld full rebuilds", pols[p],
		    m.full - frames_before);
		CHECKF(m.delta_jobs > 0 && m.running + m.pending > 0, "%s: nothing happened",
		    pols[p]);
		dash_model_release(&m);
		dash_source_free(&src);
	}
	spec_free(spec);
}

static void
test_delta_hand(void)
{
	struct spec *spec = default_spec();
	struct hand h;
	struct dash_source src = { &hand_ops, &h };
	struct dash_model m;
	char *cause = NULL, why[128], what[64];
	int i, op, ops = test_long ? 2000 : 300, n = 200;

	memset(&h, 0, sizeof h);
	h.backend = "test";
	h.spec_name = "default";
	h.s = spec;
	h.e = engine_create(spec, ENGINE_HIVED, &cause);
	CHECK(h.e != NULL);
	if (h.e == NULL)
		return;
	/* 200 jobs; they arrive over the first 200 s of the clock */
	h.njobs = n;
	h.jobs = xcalloc((size_t)n, sizeof *h.jobs);
	for (i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof name, "j%d", i);
		job_init(&h.jobs[i], i, name, (int)rnd((unsigned)spec->nvcs), (double)i);
		job_apply(&h.jobs[i], JOB_EV_SUBMIT, (double)i, why, sizeof why);
	}
	h.gen = 1;
	dash_model_init(&m, &src);
	rng_state = 11;
	for (op = 0; op < ops && !test_failed_; op++) {
		struct job *j = &h.jobs[rnd((unsigned)n)];
		int node = (int)rnd((unsigned)spec->nnodes);

		h.now += rnd(3);
		switch (rnd(4)) {
		case 0:
		case 1:	/* start a pending job that has arrived, guaranteed or not */
			if (j->state == JOB_PENDING && j->submit <= h.now) {
				int prio = rnd(3) == 0 ? -1 : 1;

				hand_start(&h, j, 1 << rnd(4), prio);
			}
			break;
		case 2:	/* a running job ends */
			if (j->engine_id >= 0)
				hand_end(&h, j);
			break;
		case 3:	/* a node goes bad or comes back */
			if (engine_node_set_bad(h.e, spec->nodes[node].name, rnd(2) == 0,
			    NULL, 0) >= 0)
				h.cn[h.ncn++] = node;
			break;
		}
		h.gen++;
		dash_model_refresh(&m);
		snprintf(what, sizeof what, "op %d t=%.0f", op, h.now);
		same_as_rebuild(&m, what);
	}
	CHECK(m.full == 1);
	CHECK(m.running > 0);
	dash_model_release(&m);
	for (i = 0; i < n; i++)
		if (h.jobs[i].engine_id >= 0)
			engine_release(h.e, h.jobs[i].engine_id);
	engine_free(h.e);
	free(h.jobs);
	spec_free(spec);
}

/* The first line of a frame drawn at width w, trailing blanks cut. */
static void
status_at(struct dash_model *m, int w, char *out, size_t len)
{
	struct dash_view v;
	struct dash_screen scr;
	struct strbuf text = STRBUF_INIT;
	char *nl;
	size_t n;

	dash_view_init(&v);
	dash_screen_init(&scr, w, 40, true);
	dash_view_draw(&v, m, &scr);
	dash_screen_text(&scr, &text);
	if ((nl = strchr(text.buf, '\n')) != NULL)
		*nl = '\0';
	n = strlen(text.buf);
	while (n > 0 && text.buf[n - 1] == ' ')
		text.buf[--n] = '\0';
	snprintf(out, len, "%.511s", text.buf);
	strbuf_release(&text);
	dash_screen_release(&scr);
	dash_view_release(&v);
}

/* Is every "  "-separated token of line a whole token of full (the clock
   may lose its play state), or the spec's file name? */
static bool
whole_fields(const char *line, const char *full, const char *spec_base)
{
	char l[512], *tok;

	snprintf(l, sizeof l, "%.511s", line);
	/* split on two blanks by hand: strtok takes single characters */
	for (tok = l; tok != NULL; ) {
		char *next = strstr(tok, "  ");
		char piece[256];
		bool ok;

		if (next != NULL)
			*next = '\0';
		snprintf(piece, sizeof piece, "%.255s", tok);
		ok = strstr(full, piece) != NULL && piece[0] != '\0';
		if (ok) {	/* found whole: bounded by two blanks or an end */
			const char *at = strstr(full, piece);
			size_t k = strlen(piece);

			ok = (at == full || (at >= full + 2 && at[-1] == ' ' && at[-2] == ' ')) &&
			    (at[k] == '\0' || (at[k] == ' ' && (at[k + 1] == ' ' ||
			    strncmp(at + k + 1, "playing", 7) == 0)));
		}
		if (!ok && strcmp(piece, spec_base) == 0)
			ok = true;
		if (!ok)
			return false;
		tok = next != NULL ? next + 2 : NULL;
	}
	return true;
}

/* Issue 7: the status line degrades by whole fields, least needed first. */
static void
test_status_line(void)
{
	static const char *const path =
	    "/srv/cellar/specs/production-cluster-east/default-with-a-long-name.yaml";
	struct dash_emu_cfg c;
	struct dash_source src;
	struct dash_model m;
	struct spec *spec = default_spec();
	char *cause = NULL, full[512], line[512];
	static const int widths[] = { 200, 120, 100, 80, 60 };
	size_t i;

	dash_emu_cfg_init(&c);
	c.spec = spec;
	c.spec_name = path;
	CHECK(dash_source_emu(&src, &c, &cause) == 0);
	dash_model_init(&m, &src);
	CHECK(dash_model_advance(&m, 86400, &cause) == 0);
	status_at(&m, 400, full, sizeof full);
	CHECKF(strstr(full, path) != NULL && strstr(full, "frag ") != NULL &&
	    strstr(full, "emulator") != NULL, "wide: '%.200s'", full);
	for (i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		status_at(&m, widths[i], line, sizeof line);
		CHECKF((int)strlen(line) <= widths[i], "%d: '%.200s'", widths[i], line);
		CHECKF(strncmp(line, "cellar  ", 8) == 0 && strstr(line, "t=1d00h") != NULL,
		    "%d: '%.200s'", widths[i], line);
		CHECKF(whole_fields(line, full, "default-with-a-long-name.yaml"),
		    "%d: a field cut: '%.200s'", widths[i], line);
	}
	/* 120 columns: the path gives way to its file name; the figures stay */
	status_at(&m, 120, line, sizeof line);
	CHECKF(strstr(line, path) == NULL && strstr(line, "default-with-a-long-name.yaml") &&
	    strstr(line, "util ") && strstr(line, " of 128 GPUs") && strstr(line, " run "),
	    "120: '%.200s'", line);
	/* 80 columns: the backend and fragmentation go before utilization */
	status_at(&m, 80, line, sizeof line);
	CHECKF(strstr(line, "emulator") == NULL && strstr(line, "frag") == NULL &&
	    strstr(line, "util ") != NULL, "80: '%.200s'", line);
	dash_model_release(&m);
	dash_source_free(&src);
	spec_free(spec);
}

/*
 * A live view's server field (dash_data.server): while the server answers
 * (writable) it is the first field to go; "no cellar server is running"
 * is the last, kept whole where the backend, figures and policy are not.
 */
static void
test_status_server(void)
{
	static const char *const none =
	    "no cellar server is running for /var/lib/cellar/cellar.db";
	struct dash_emu_cfg c;
	struct dash_source src;
	struct dash_model m;
	struct spec *spec = default_spec();
	char *cause = NULL, line[512], full[512];
	static const int widths[] = { 400, 120, 100, 80 };
	size_t i;

	dash_emu_cfg_init(&c);
	c.spec = spec;
	c.spec_name = "live.yaml";
	CHECK(dash_source_emu(&src, &c, &cause) == 0);
	dash_model_init(&m, &src);
	CHECK(dash_model_advance(&m, 3600, &cause) == 0);
	/* the view draws m.d as the model last read it */
	m.d.server = "cellar server pid 4242";
	m.d.writable = true;
	status_at(&m, 400, line, sizeof line);
	CHECKF(strstr(line, "  cellar server pid 4242") != NULL &&
	    strstr(line, "emulator") != NULL, "wide, served: '%.200s'", line);
	/* as wide as the line without it: it goes, nothing else does */
	m.d.server = NULL;
	status_at(&m, 400, full, sizeof full);
	m.d.server = "cellar server pid 4242";
	status_at(&m, (int)strlen(full), line, sizeof line);
	CHECKF(strcmp(line, full) == 0, "served at %zu: '%.200s', not '%.200s'",
	    strlen(full), line, full);
	m.d.server = none;
	m.d.writable = false;
	for (i = 0; i < sizeof widths / sizeof widths[0]; i++) {
		status_at(&m, widths[i], line, sizeof line);
		CHECKF((int)strlen(line) <= widths[i] && strstr(line, none) != NULL &&
		    strncmp(line, "cellar  ", 8) == 0 && strstr(line, "t=1h") != NULL,
		    "%d, no server: '%.200s'", widths[i], line);
	}
	status_at(&m, 100, line, sizeof line);
	CHECKF(strstr(line, "emulator") == NULL && strstr(line, "policy") == NULL,
	    "100, no server: the rest went first: '%.200s'", line);
	dash_model_release(&m);
	dash_source_free(&src);
	spec_free(spec);
}

static const struct test tests[] = {
	{ "status-line", test_status_line },
	{ "status-server", test_status_server },
	{ "delta-emu", test_delta_emu },
	{ "delta-hand", test_delta_hand },
	{ "mouse", test_mouse },
	{ "select-marker", test_select_marker },
	{ "ui-state", test_ui_state },
	{ "state-speed", test_state_speed },
	{ "help-fits", test_help_fits },
	{ "prio-labels", test_prio_labels },
	{ "rebuild-on-change", test_rebuild_on_change },
	{ "queue-order-and-counts", test_queue_order_and_counts },
	{ "tree-rows", test_tree_rows },
	{ "keys-table-and-man", test_keys_table_and_man },
	{ "filter", test_filter },
	{ "admin-confirm", test_admin_confirm },
	{ "keys-actions", test_keys_actions },
	{ "screen", test_screen },
	{ "too-small", test_too_small },
};

TEST_MAIN(tests)
