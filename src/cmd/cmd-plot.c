/*
 * cmd-plot.c — `plot [RUN]`: a run's time series from the state store as
 * line charts in the terminal (GPUs in use, the queue, each VC's queuing
 * delay over a moving window, fragmentation), drawn by dash/chart.h into
 * a screen grid and printed as text: braille on a UTF-8 locale, ASCII
 * marks with --ascii or any other locale. -o json gives the same numbers.
 *
 * The samples are the run's series rows (replay records one an hour); the
 * delay curves are computed here from the run's jobs, as replay --series
 * computes its queue_VC columns (cmd/figure.h). A file argument is such a
 * CSV instead, its delay columns taken as they are.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/frontend.h"
#include "cmd/figure.h"
#include "core/xmalloc.h"
#include "dash/chart.h"
#include "job/job.h"
#include "sim/emu.h"
#include "store/store.h"

#define PLOT_MAX_CURVES	16	/* delay: the first VCs; a legend has room for few */
#define PLOT_DEFAULT_W	80
#define PLOT_DEFAULT_H	24

/* What one plot has read: the samples, the jobs, the VC names. */
struct plot {
	struct store_run	 run;
	struct store_spec	 sp;
	const char		*file;		/* a --series CSV instead of a run */
	/* From a CSV: the VCs' names and delay columns (delay[v * nx + i]). */
	char			**csv_vcs;
	int			 csv_nvcs;
	double			*csv_delay;
	struct emu_sample	*x;
	int			 nx;
	double			*t;
	struct figure_wait	*waits;		/* the started jobs' */
	int			 nwaits;
	size_t			 capwaits;
	double			 window;
};

/* One chart's curves, filled by its kind. */
struct plot_chart {
	struct dash_curve	 c[PLOT_MAX_CURVES];
	char			*names[PLOT_MAX_CURVES];
	double			*y[PLOT_MAX_CURVES];
	int			 nc;
	struct dash_chart	 ch;
};

static double *
curve(struct plot_chart *pc, const struct plot *p, const char *name)
{
	int k = pc->nc++;

	pc->names[k] = xstrdup(name);
	pc->y[k] = xcalloc((size_t)p->nx + 1, sizeof *pc->y[k]);
	pc->c[k].name = pc->names[k];
	pc->c[k].y = pc->y[k];
	return pc->y[k];
}

static void
fill_util(const struct plot *p, struct plot_chart *pc)
{
	double *g = curve(pc, p, "guaranteed"), *o = curve(pc, p, "opportunistic"),
	    *b = curve(pc, p, "bad");
	int i;

	for (i = 0; i < p->nx; i++) {
		g[i] = (double)p->x[i].used;
		o[i] = (double)p->x[i].opp;
		b[i] = (double)p->x[i].bad;
	}
}

static void
fill_queue(const struct plot *p, struct plot_chart *pc)
{
	double *q = curve(pc, p, "pending"), *r = curve(pc, p, "running");
	int i;

	for (i = 0; i < p->nx; i++) {
		q[i] = p->x[i].pending;
		r[i] = p->x[i].running;
	}
}

static void
fill_delay(const struct plot *p, struct plot_chart *pc)
{
	int v;

	for (v = 0; v < p->csv_nvcs && pc->nc < PLOT_MAX_CURVES; v++)
		memcpy(curve(pc, p, p->csv_vcs[v]), p->csv_delay + (size_t)v * (size_t)p->nx,
		    (size_t)p->nx * sizeof *p->csv_delay);
	for (v = 0; v < p->sp.nvcs && pc->nc < PLOT_MAX_CURVES; v++)
		figure_delay_waits(p->waits, p->nwaits, v, p->window, p->t, p->nx,
		    curve(pc, p, p->sp.vcs[v].name != NULL ? p->sp.vcs[v].name : "?"));
}

static void
fill_frag(const struct plot *p, struct plot_chart *pc)
{
	double *f = curve(pc, p, "partially free"), *n = curve(pc, p, "HiveD's");
	int i;

	for (i = 0; i < p->nx; i++) {
		f[i] = 100 * p->x[i].frag;
		n[i] = 100 * p->x[i].frag_node;
	}
}

/* The charts by name, in the default order. */
static const struct plot_kind {
	const char	*name;
	const char	*title;
	const char	*unit;
	double		 scale;
	bool		 jobs;		/* needs the run's jobs */
	bool		 deflt;		/* drawn when --chart is not given */
	void		(*fill)(const struct plot *p, struct plot_chart *pc);
} plot_kinds[] = {
	{ "util", "GPUs in use", "GPUs", 1, false, true, fill_util },
	{ "queue", "jobs pending and running", "jobs", 1, false, true, fill_queue },
	{ "delay", "queuing delay per VC, moving window of submissions", "h", 3600,
	  true, true, fill_delay },
	{ "frag", "fragmentation, % of nodes", "%", 1, false, false, fill_frag },
};
#define PLOT_NKINDS	(sizeof plot_kinds / sizeof plot_kinds[0])

static const struct plot_kind *
kind_find(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < PLOT_NKINDS; i++)
		if (strlen(plot_kinds[i].name) == len &&
		    strncmp(plot_kinds[i].name, name, len) == 0)
			return &plot_kinds[i];
	return NULL;
}

/* --chart's list into kinds[]; returns how many, or -1 with *cause. */
static int
parse_charts(const char *list, const struct plot_kind **kinds, char **cause)
{
	const char *p = list;
	size_t i, len;
	int n = 0;

	if (list == NULL) {
		for (i = 0; i < PLOT_NKINDS; i++)
			if (plot_kinds[i].deflt)
				kinds[n++] = &plot_kinds[i];
		return n;
	}
	for (;;) {
		len = strcspn(p, ",");
		if ((kinds[n] = kind_find(p, len)) == NULL) {
			*cause = xasprintf("unknown chart '%.*s' (util, queue, delay, frag)",
			    (int)len, p);
			return -1;
		}
		if (++n >= (int)PLOT_NKINDS || p[len] == '\0')
			break;
		p += len + 1;
	}
	return n;
}

/* "90", "90s", "15m", "12h", "2d" -> seconds. */
static int
parse_window(const char *s, double *out, char **cause)
{
	static const struct { char unit; double secs; } units[] = {
		{ '\0', 1 }, { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
	};
	char *end;
	double v;
	size_t i;

	errno = 0;
	v = strtod(s, &end);
	for (i = 0; errno == 0 && end != s && i < sizeof units / sizeof units[0]; i++)
		if (*end == units[i].unit && (*end == '\0' || end[1] == '\0') && v > 0) {
			*out = v * units[i].secs;
			return 0;
		}
	*cause = xasprintf("invalid --window '%s' (a duration: 90s, 30m, 12h, 2d)", s);
	return -1;
}

/* --size WxH, else the terminal's (the front end's), else 80x24. */
static int
plot_size(const struct frontend *fe, const char *arg, int *w, int *h,
    char **cause)
{
	char *end;
	long a, b;
	int cols, rows;

	*w = PLOT_DEFAULT_W;
	*h = PLOT_DEFAULT_H;
	if (arg == NULL) {
		if (fe != NULL && fe->term_size != NULL &&
		    fe->term_size(fe, &cols, &rows) && cols > 0 && rows > 1) {
			*w = cols;
			*h = rows - 1;	/* the prompt's line */
		}
		return 0;
	}
	errno = 0;
	a = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || (*end != 'x' && *end != 'X') ||
	    (b = strtol(end + 1, &end, 10), errno != 0 || *end != '\0') ||
	    a <= 0 || b <= 0 || a > 1000 || b > 1000) {
		*cause = xasprintf("invalid --size '%s' (WIDTHxHEIGHT, e.g. 100x30)", arg);
		return -1;
	}
	*w = (int)a;
	*h = (int)b;
	return 0;
}

/* Braille only where the locale says UTF-8 (the environment's, as libc's). */
static bool
utf8_locale(void)
{
	static const char *const vars[] = { "LC_ALL", "LC_CTYPE", "LANG" };
	const char *v;
	size_t i;

	for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
		if ((v = getenv(vars[i])) != NULL && *v != '\0')
			return strstr(v, "UTF-8") != NULL || strstr(v, "utf-8") != NULL ||
			    strstr(v, "UTF8") != NULL || strstr(v, "utf8") != NULL;
	return false;
}

static int
add_job(void *arg, const struct store_job *sj)
{
	struct plot *p = arg;
	const struct job *j = &sj->job;

	if (j->first_start < 0)
		return 0;
	XGROW(p->waits, p->capwaits, (size_t)p->nwaits + 1);
	p->waits[p->nwaits++] = (struct figure_wait){ j->submit,
	    j->first_start - j->submit, j->vc };
	return 0;
}

static int
store_fail(struct cmd_ctx *ctx, int rc)
{
	ctx->status = rc < 0 ? CMD_EXIT_STORE : CMD_EXIT_FAIL;
	return -1;
}

/* ---- a CSV of replay --series ---- */

/* The sample's columns by their header names. */
static const struct csv_col {
	const char	*name;
	size_t		 off;
	bool		 ll;		/* long long, else int or double */
	bool		 dbl;
} csv_cols[] = {
	{ "time", offsetof(struct emu_sample, t), false, true },
	{ "pending", offsetof(struct emu_sample, pending), false, false },
	{ "running", offsetof(struct emu_sample, running), false, false },
	{ "gpus_guaranteed", offsetof(struct emu_sample, used), true, false },
	{ "gpus_opportunistic", offsetof(struct emu_sample, opp), true, false },
	{ "gpus_bad", offsetof(struct emu_sample, bad), true, false },
	{ "frag", offsetof(struct emu_sample, frag), false, true },
	{ "frag_node", offsetof(struct emu_sample, frag_node), false, true },
};
#define CSV_NCOLS	(sizeof csv_cols / sizeof csv_cols[0])

static void
csv_set(struct emu_sample *x, const struct csv_col *c, double v)
{
	char *at = (char *)x + c->off;

	if (c->dbl)
		*(double *)(void *)at = v;
	else if (c->ll)
		*(long long *)(void *)at = (long long)v;
	else
		*(int *)(void *)at = (int)v;
}

/* What each field of the header is: a sample column, a VC's delay
   (CSV_NCOLS + v), or -1 (ignored). */
static int *
csv_header(struct plot *p, char *line)
{
	int *what = NULL, n = 0;
	size_t cap = 0, k;
	char *f, *save = NULL;

	for (f = strtok_r(line, ",", &save); f != NULL; f = strtok_r(NULL, ",", &save)) {
		XGROW(what, cap, (size_t)n + 1);
		what[n] = -1;
		for (k = 0; k < CSV_NCOLS; k++)
			if (strcmp(f, csv_cols[k].name) == 0)
				what[n] = (int)k;
		if (strncmp(f, "queue_", 6) == 0) {
			p->csv_vcs = xreallocarray(p->csv_vcs, (size_t)p->csv_nvcs + 1,
			    sizeof *p->csv_vcs);
			p->csv_vcs[p->csv_nvcs] = xstrdup(f + 6);
			what[n] = (int)CSV_NCOLS + p->csv_nvcs++;
		}
		n++;
	}
	XGROW(what, cap, (size_t)n + 1);
	what[n] = -2;
	return what;
}

/* The samples of a replay --series file. */
static int
plot_load_csv(struct cmd_ctx *ctx, struct plot *p, char **cause)
{
	char *buf = NULL;
	size_t len = 0;
	double *delay = NULL;
	size_t cap = 0, capd = 0;
	int *what = NULL, i, v, rc = -1;
	FILE *fp;

	if ((fp = fopen(p->file, "r")) == NULL) {
		*cause = xasprintf("cannot read '%s': %s", p->file, strerror(errno));
		ctx->status = CMD_EXIT_FAIL;
		return -1;
	}
	while (getline(&buf, &len, fp) > 0) {
		char *f = buf, *end;

		buf[strcspn(buf, "\r\n")] = '\0';
		if (what == NULL) {
			what = csv_header(p, buf);
			if (what[0] != 0) {
				*cause = xasprintf("'%s' is not a replay --series file (no "
				    "time column first)", p->file);
				goto out;
			}
			continue;
		}
		XGROW(p->x, cap, (size_t)p->nx + 1);
		memset(&p->x[p->nx], 0, sizeof p->x[p->nx]);
		XGROW(delay, capd, ((size_t)p->nx + 1) * ((size_t)p->csv_nvcs + 1));
		for (i = 0; what[i] != -2; i++) {
			double val = strtod(f, &end);
			if (end == f)
				val = NAN;
			if (what[i] >= 0 && what[i] < (int)CSV_NCOLS)
				csv_set(&p->x[p->nx], &csv_cols[what[i]], val);
			else if (what[i] >= (int)CSV_NCOLS)
				delay[(size_t)p->nx * (size_t)p->csv_nvcs +
				    (size_t)(what[i] - (int)CSV_NCOLS)] = val;
			if ((f = strchr(f, ',')) == NULL)
				break;
			f++;
		}
		p->nx++;
	}
	if (p->nx == 0) {
		*cause = xasprintf("'%s' has no samples", p->file);
		goto out;
	}
	/* by VC, as the curves want them */
	p->csv_delay = xcalloc((size_t)p->csv_nvcs * (size_t)p->nx + 1, sizeof *p->csv_delay);
	for (v = 0; v < p->csv_nvcs; v++)
		for (i = 0; i < p->nx; i++)
			p->csv_delay[(size_t)v * (size_t)p->nx + (size_t)i] =
			    delay[(size_t)i * (size_t)p->csv_nvcs + (size_t)v];
	rc = 0;
out:
	if (rc != 0)
		ctx->status = CMD_EXIT_FAIL;
	fclose(fp);
	free(what);
	free(delay);
	free(buf);
	return rc;
}

/* Open the store and read the run's series (and its jobs, if needed). */
static int
plot_load(struct cmd_ctx *ctx, const char *arg, bool jobs, struct plot *p,
    char **cause)
{
	struct store *st;
	int64_t id = 0;
	char *end;
	int rc, i;

	if (arg != NULL && strcmp(arg, "last") != 0 && strspn(arg, "0123456789") != strlen(arg)) {
		p->file = arg;
		if (plot_load_csv(ctx, p, cause) < 0)
			return -1;
		goto times;
	}
	if ((rc = session_store(ctx->sess, false, &st, cause)) != 0)
		return store_fail(ctx, rc);
	if (arg == NULL || strcmp(arg, "last") == 0)
		rc = store_run_last(st, -1, &id, cause);
	else {
		errno = 0;
		id = strtoll(arg, &end, 10);
		if (errno != 0 || end == arg || *end != '\0' || id <= 0) {
			*cause = xasprintf("invalid run '%s' (a run id, or 'last')", arg);
			return cmd_usage_error(ctx);
		}
		rc = 0;
	}
	if (rc != 0 || (rc = store_run_get(st, id, &p->run, cause)) != 0 ||
	    (rc = store_spec_get(st, p->run.spec, &p->sp, cause)) != 0 ||
	    (rc = store_series_load(st, id, &p->x, &p->nx, cause)) != 0)
		return store_fail(ctx, rc);
	if (p->nx == 0) {
		*cause = xasprintf("run %lld has no time series (a replay records one "
		    "sample an hour)", (long long)id);
		ctx->status = CMD_EXIT_FAIL;
		return -1;
	}
	if (jobs && (rc = store_job_load(st, id, add_job, p, cause)) != 0)
		return store_fail(ctx, rc);
times:
	p->t = xcalloc((size_t)p->nx, sizeof *p->t);
	for (i = 0; i < p->nx; i++)
		p->t[i] = p->x[i].t;
	return 0;
}

static void
chart_release(struct plot_chart *pc)
{
	int k;

	for (k = 0; k < pc->nc; k++) {
		free(pc->names[k]);
		free(pc->y[k]);
	}
	pc->nc = 0;
}

static void
plot_json(struct cmd_ctx *ctx, const struct plot *p, struct plot_chart *pcs,
    const struct plot_kind **kinds, int nk)
{
	struct json j;
	int i, k, c;

	cmd_json_begin(ctx, &j, "plot");
	if (p->file != NULL)
		json_kv_string(&j, "file", p->file);
	else
		json_kv_int(&j, "run", (long long)p->run.id);
	json_kv_double(&j, "window", p->window);
	json_key(&j, "t");
	json_array_begin(&j);
	for (i = 0; i < p->nx; i++)
		json_double(&j, p->t[i]);
	json_array_end(&j);
	json_key(&j, "charts");
	json_array_begin(&j);
	for (k = 0; k < nk; k++) {
		json_object_begin(&j);
		json_kv_string(&j, "chart", kinds[k]->name);
		json_kv_string(&j, "title", kinds[k]->title);
		json_kv_string(&j, "unit", kinds[k]->unit);
		json_key(&j, "curves");
		json_array_begin(&j);
		for (c = 0; c < pcs[k].nc; c++) {
			json_object_begin(&j);
			json_kv_string(&j, "name", pcs[k].names[c]);
			json_key(&j, "y");
			json_array_begin(&j);
			for (i = 0; i < p->nx; i++) {
				double v = pcs[k].y[c][i] / kinds[k]->scale;
				if (isnan(v))
					json_null(&j);
				else
					json_double(&j, v);
			}
			json_array_end(&j);
			json_object_end(&j);
		}
		json_array_end(&j);
		json_object_end(&j);
	}
	json_array_end(&j);
	cmd_json_end(ctx, &j);
}

/* The curves' colours when the output is coloured (a terminal, no
   NO_COLOR): the screen's VC roles, in the order the legend gives them. */
static const char *const curve_sgr[DASH_VC_COLORS] = {
	"\033[31m", "\033[32m", "\033[33m", "\033[34m", "\033[35m", "\033[36m",
};

/* The frame as text with each curve's cells in its colour. */
static void
screen_text_color(const struct dash_screen *s, struct strbuf *out)
{
	int x, y, end, on;

	for (y = 0; y < s->h; y++) {
		const struct dash_cell *row = &s->c[(size_t)y * (size_t)s->w];

		for (end = s->w; end > 0 && row[end - 1].len == 1 &&
		    row[end - 1].ch[0] == ' '; end--)
			;
		for (x = 0, on = -1; x < end; x++) {
			int r = row[x].role - DR_VC0;
			if (r < 0 || r >= DASH_VC_COLORS)
				r = -1;
			if (r != on)
				strbuf_adds(out, r >= 0 ? curve_sgr[r] : "\033[0m");
			on = r;
			strbuf_add(out, row[x].ch, row[x].len);
		}
		if (on >= 0)
			strbuf_adds(out, "\033[0m");
		strbuf_addc(out, '\n');
	}
}

static const struct cmd_opt plot_opts[] = {
	{ 0, "chart", "C,...", "charts: util, queue, delay, frag (default util,queue,delay)", VALUE_NONE },
	{ 0, "size", "WxH", "the whole plot's size in characters (default: the terminal's, else 80x24)", VALUE_NONE },
	{ 0, "ascii", NULL, "ASCII marks instead of braille (the default outside UTF-8 locales)", VALUE_NONE },
	{ 0, "window", "T", "delay: the moving window of submissions (default 12h)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
plot_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct plot_kind *kinds[PLOT_NKINDS];
	struct plot_chart pcs[PLOT_NKINDS];
	struct dash_screen s;
	struct plot p;
	int nk, k, w, h, each, rc = -1, i;
	bool jobs = false, screen = false;

	memset(&p, 0, sizeof p);
	memset(pcs, 0, sizeof pcs);
	store_run_init(&p.run);
	p.window = 12 * 3600;
	if ((nk = parse_charts(args_get(a, "chart"), kinds, cause)) < 0 ||
	    plot_size(ctx->sess->fe, args_get(a, "size"), &w, &h, cause) < 0 ||
	    (args_has(a, "window") && parse_window(args_get(a, "window"), &p.window,
	    cause) < 0)) {
		cmd_usage_error(ctx);
		goto out;
	}
	each = h / nk;
	if (ctx->out.format != OUT_JSON &&
	    (w < DASH_CHART_MIN_W || each < DASH_CHART_MIN_H)) {
		*cause = xasprintf("a plot of %d chart(s) needs at least %dx%d "
		    "characters, not %dx%d (--size, or fewer --chart)", nk,
		    DASH_CHART_MIN_W, DASH_CHART_MIN_H * nk, w, h);
		cmd_usage_error(ctx);
		goto out;
	}
	for (k = 0; k < nk; k++)
		jobs |= kinds[k]->jobs;
	if (plot_load(ctx, args_count(a) > 0 ? args_value(a, 0) : NULL, jobs, &p,
	    cause) < 0)
		goto out;
	if (p.file != NULL && args_has(a, "window")) {
		*cause = xasprintf("--window is for a stored run; '%s' holds the delays "
		    "replay --series-window gave it", p.file);
		cmd_usage_error(ctx);
		goto out;
	}
	for (k = 0; k < nk; k++) {
		kinds[k]->fill(&p, &pcs[k]);
		pcs[k].ch = (struct dash_chart){ kinds[k]->title, kinds[k]->unit,
		    p.t, p.nx, pcs[k].c, pcs[k].nc, kinds[k]->scale };
	}
	if (ctx->out.format == OUT_JSON) {
		plot_json(ctx, &p, pcs, kinds, nk);
		rc = 0;
		goto out;
	}
	dash_screen_init(&s, w, each * nk, args_has(a, "ascii") || !utf8_locale());
	screen = true;
	for (k = 0; k < nk; k++)
		if (dash_chart_draw(&s, 0, k * each, w, each, &pcs[k].ch, cause) < 0)
			goto out;
	if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header && p.file != NULL)
		strbuf_addf(ctx->o, "%s: %d samples\n", p.file, p.nx);
	else if (OUT_IS_TEXT(ctx->out.format) && ctx->out.header)
		strbuf_addf(ctx->o, "run %lld: %s %s of %s, %d samples\n",
		    (long long)p.run.id, p.run.policy ? p.run.policy : "-", p.run.mode,
		    p.run.trace ? p.run.trace : store_run_kind_name(p.run.kind), p.nx);
	if (ctx->out.color)
		screen_text_color(&s, ctx->o);
	else
		dash_screen_text(&s, ctx->o);
	rc = 0;
out:
	if (screen)
		dash_screen_release(&s);
	for (i = 0; i < nk; i++)
		chart_release(&pcs[i]);
	free(p.x);
	free(p.t);
	free(p.waits);
	for (i = 0; i < p.csv_nvcs; i++)
		free(p.csv_vcs[i]);
	free(p.csv_vcs);
	free(p.csv_delay);
	store_spec_release(&p.sp);
	store_run_release(&p.run);
	return rc;
}

const struct cmd_entry cmd_plot_entry = {
	.name = "plot",
	.opts = plot_opts,
	.min = 0, .max = 1,
	.usage = "[RUN | FILE]",
	.arg_kind = VALUE_FILE,
	.summary = "draw a run's time series in the terminal",
	.help =
	    "Draw the time series of RUN (a run id, or last, the default) from the "
	    "state store, or of FILE (a CSV of replay --series), as line charts: GPUs in use (guaranteed, opportunistic, "
	    "bad), jobs pending and running, each VC's queuing delay (submission "
	    "to first start) averaged over the jobs submitted in a moving window "
	    "(--window, 12 h by default, as replay --series), and with --chart "
	    "frag the fragmentation (partially free nodes, and HiveD's measure). "
	    "The y axis is labelled in the chart's unit, the x axis in seconds, "
	    "minutes, hours or days of the run's clock; the legend names the "
	    "curves. Charts use braille dots in a UTF-8 locale and ASCII marks "
	    "otherwise or with --ascii; the plot fills the terminal, or --size. "
	    "-o json gives the numbers drawn.",
	.examples = (const char *const []){
		"plot /tmp/series.csv --size 100x30 --ascii",
		"plot /tmp/series.csv --chart delay,frag",
		"plot /tmp/series.csv --chart queue -o json",
		NULL },
	.flags = 0,
	.formats = OUT_ALL,
	.exec = plot_exec,
};
