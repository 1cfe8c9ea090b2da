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
#include "dash/model.h"
#include "dash/view.h"

static struct spec *
default_spec(void)
{
	struct spec *s = spec_load_string("default.yaml", default_spec_yaml,
	    default_spec_yaml_len, NULL);

	if (s == NULL)
		abort();
	return s;
}

struct fixture {
	struct spec		*spec;
	struct dash_source	 src;
	struct dash_model	 m;
};

static void
fixture_init(struct fixture *f, double at)
{
	struct dash_emu_cfg c;
	char *cause = NULL;

	f->spec = default_spec();
	dash_emu_cfg_init(&c);
	c.spec = f->spec;
	c.spec_name = "default";
	if (dash_source_emu(&f->src, &c, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		abort();
	}
	dash_model_init(&f->m, &f->src);
	if (at > 0 && dash_model_advance(&f->m, at, &cause) != 0)
		abort();
}

static void
fixture_release(struct fixture *f)
{
	dash_model_release(&f->m);
	dash_source_free(&f->src);
	spec_free(f->spec);
}

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
		char c = f.m.node_ch[i];

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

/* View invariant 2: read-only, then admin with Cancel as the default. */
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
	CHECK_INTEQ(v.panel, DP_DETAIL);
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
	CHECK(dash_view_click(&v, &f.m, 12, 1));	/* " 2 VCs " starts at 10 */
	CHECK_INTEQ(v.panel, DP_VCS);
	CHECK(dash_view_click(&v, &f.m, 3, 1));
	CHECK_INTEQ(v.panel, DP_CELLS);
	dash_view_draw(&v, &f.m, &s);
	CHECK_INTEQ(v.list_y, 3);
	CHECK(dash_view_click(&v, &f.m, 5, 5));		/* the third row */
	CHECK_INTEQ(v.sel[DP_CELLS], 2);
	CHECK_INTEQ(v.panel, DP_CELLS);
	CHECK(!dash_view_click(&v, &f.m, 5, 29));	/* the key hints line */
	CHECK(dash_view_click(&v, &f.m, 5, 5));		/* again: open it */
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
	char *l3, *l4;

	fixture_init(&f, 0);
	dash_view_init(&v);
	dash_screen_init(&s, 100, 20, true);
	dash_view_key(&v, &f.m, 'j');
	dash_view_draw(&v, &f.m, &s);
	dash_screen_text(&s, &out);
	l3 = strchr(strchr(strchr(out.buf, '\n') + 1, '\n') + 1, '\n') + 1;
	l4 = strchr(l3, '\n') + 1;
	CHECK(strncmp(l3, " - r0 ", 6) == 0);
	CHECK(strncmp(l4, ">  + r0n00 ", 11) == 0);
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
	CHECK(w.speed == 1200);
	CHECK(w.map);
	CHECK_STREQ(w.filter, "state=PD");
	CHECK(g.m.open[node] && !g.m.open[f.m.rows[0]]);
	CHECK_INTEQ(g.m.nrows, f.m.nrows);
	dash_view_state_save(&w, &g.m, &again);
	strbuf_reset(&out);
	dash_view_state_save(&v, &f.m, &out);
	CHECK_STREQ(again.buf, out.buf);
	strbuf_release(&out);
	strbuf_release(&again);
	dash_view_release(&v);
	dash_view_release(&w);
	fixture_release(&f);
	fixture_release(&g);
}

/* srsf's key is service (remaining time x GPUs), not remaining time. */
static void
test_prio_labels(void)
{
	struct dash_qrow r;
	char buf[64];

	memset(&r, 0, sizeof r);
	r.key.k[0] = 7200;
	dash_format_prio("srtf", &r, buf, sizeof buf);
	CHECK_STREQ(buf, "rem 2h00m");
	dash_format_prio("srsf", &r, buf, sizeof buf);
	CHECK_STREQ(buf, "svc 2 GPU-h");
}

static const struct test tests[] = {
	{ "mouse", test_mouse },
	{ "select-marker", test_select_marker },
	{ "ui-state", test_ui_state },
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
