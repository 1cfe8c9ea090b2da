/*
 * cmd-dash.c — `dash`: the dashboard. It builds the data source (the
 * emulator on the session's spec, playing the compiled-in demo workload or
 * a given trace), the view model (dash/dash-model.h) and the view
 * (dash/dash-view.h), then either draws one frame as plain text (--once: no terminal, for
 * golden tests and bug reports) or hands them to the face's terminal
 * dashboard (frontend.h's dashboard hook, ui/dash.c).
 *
 * Rules:
 *  1. --once needs --size or takes 120x40; --at T plays T emulated seconds
 *     first; --keys replays keys (the terminal's own key table) before the
 *     frame is drawn, so any screen can be reached without a terminal.
 *  2. The ':' line runs commands through cmd_dispatch on this session,
 *     read-only unless admin mode is on (the view asks for confirmation
 *     first; dash-view.h invariant 2).
 *  3. Commands on the ':' line read the cluster on screen (the source's
 *     spec and engine lent to the session for the command, unless it
 *     changes state), not the session's own engine; a command the server
 *     runs (CMD_SERVER) reads the server's.
 *  4. A command that changes state runs only on a source that is a live
 *     cluster whose server answers (dash_data.writable): cmd_dispatch sends
 *     it to the server (CMD_SERVER). On the emulator, a followed store or a
 *     live spec without a server it is refused with a message, after the
 *     confirmation.
 *  5. --once output is ASCII unless --unicode; the terminal draws UTF-8 when
 *     the face says the terminal can, unless --ascii.
 *  6. On a spec with a backend (local, ssh) the dashboard is a client of
 *     the store's server (dash/source-live.c: the store it writes, read
 *     only, and its word on phases and pending reasons), and ':' commands
 *     go to that server; this process runs no hook, so closing the
 *     dashboard touches no job. Without a server it shows what the store
 *     holds (or the spec, empty) and its status line says "no cellar
 *     server is running for STORE" (console_get is never called). --policy,
 *     --trace, --load and --at's play are the emulator's.
 *  7. --follow shows the newest run of the --db store another process
 *     writes (dash/source-store.c), read-only: ':' commands that change
 *     state are refused (rule 4). No --db, or a store without a run, is an
 *     error; on a terminal a store not there yet is waited for (Ctrl-C
 *     stops), with --once it is an error. The emulator's options are
 *     refused with it.
 *  8. The detail view shows a job's history from the store when the source
 *     has one (a followed store, a live cluster).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/complete.h"
#include "cmd/frontend.h"
#include "core/xmalloc.h"
#include "dash/dash-model.h"
#include "dash/dash-view.h"
#include "store/store.h"

static const struct cmd_opt dash_opts[] = {
	{ 0, "once", NULL, "print one frame as plain text and exit (no terminal)", VALUE_NONE },
	{ 0, "size", "WxH", "--once: the frame's size (default 120x40)", VALUE_NONE },
	{ 0, "at", "T", "play the emulator T emulated seconds first (30m, 6h, 2d)", VALUE_NONE },
	{ 0, "panel", "NAME", "start on overview (or cells), vcs, queues, events or detail", VALUE_NONE },
	{ 0, "keys", "KEYS", "press these keys first (<Enter> <Esc> <Tab> <Up> <Down> <Left> <Right>)", VALUE_NONE },
	{ 0, "map", NULL, "cells as a compact node map", VALUE_NONE },
	{ 0, "follow", NULL, "show the newest run of the --db store another process writes", VALUE_NONE },
	{ 0, "policy", "P", "the emulator's policy (default las)", VALUE_POLICY },
	{ 0, "trace", "FILE", "play this trace instead of the demo", VALUE_FILE },
	{ 0, "load", "X", "scale the trace's arrival rate by X", VALUE_NONE },
	{ 0, "vc-map", "MAP", "--trace: its VCs to the spec's (a=b,c=d,*=x; x '-' drops)", VALUE_NONE },
	{ 0, "speed", "X", "emulated seconds per second (default 600)", VALUE_NONE },
	{ 0, "refresh", "MS", "at most one frame per MS milliseconds (default 500)", VALUE_NONE },
	{ 0, "unicode", NULL, "--once: UTF-8 glyphs", VALUE_NONE },
	{ 0, "ascii", NULL, "ASCII glyphs and line drawing only", VALUE_NONE },
	{ 0, "no-mouse", NULL, "ignore the mouse", VALUE_NONE },
	{ 0, "no-color", NULL, "no colour: attributes only (also NO_COLOR)", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct {
	const char	*name;
	int		 key;
} key_names[] = {
	{ "Enter", DK_ENTER }, { "Esc", DK_ESC }, { "Tab", DK_TAB }, { "S-Tab", DK_BTAB },
	{ "Up", DK_UP }, { "Down", DK_DOWN }, { "Left", DK_LEFT }, { "Right", DK_RIGHT },
	{ "PgUp", DK_PGUP }, { "PgDn", DK_PGDN }, { "Home", DK_HOME }, { "End", DK_END },
	{ "BS", DK_BACKSPACE }, { "Space", ' ' }, { "lt", '<' },
	{ "C-u", DK_KILL }, { "C-w", DK_WERASE },
};

/* Feed --keys to the view: characters, or <Name> from key_names. */
static int
press_keys(struct dash_view *v, struct dash_model *m, const char *keys, char **cause)
{
	const char *p = keys, *e;
	size_t i;

	while (*p != '\0' && !v->quit) {
		if (*p == '<' && (e = strchr(p, '>')) != NULL && e > p + 1) {
			for (i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
				if (strlen(key_names[i].name) == (size_t)(e - p - 1) &&
				    strncmp(key_names[i].name, p + 1, (size_t)(e - p - 1)) == 0)
					break;
			if (i == sizeof key_names / sizeof key_names[0]) {
				*cause = xasprintf("unknown key '%.*s' in --keys", (int)(e - p + 1), p);
				return -1;
			}
			dash_view_key(v, m, key_names[i].key);
			p = e + 1;
		} else
			dash_view_key(v, m, (unsigned char)*p++);
	}
	return 0;
}

/* ---- the ':' line's hooks (rule 2) ---- */

/* What the ':' line runs on: the session, looking at the source's cluster. */
struct dash_cmdenv {
	struct session		*sess;
	struct dash_model	*m;
	struct dash_source	*src;
};

/* The detail view's history (rule 8). */
static void
dash_history(void *arg, const char *job, struct strbuf *out)
{
	struct dash_cmdenv *env = arg;

	if (env->src->ops->history != NULL)
		(void)env->src->ops->history(env->src->self, job, out);
}

static bool dash_line_mutates(void *arg, const char *line);

static int
dash_run_line(void *arg, const char *line, bool admin, struct strbuf *out)
{
	struct dash_cmdenv *env = arg;
	struct session *s = env->sess;
	struct spec *spec = s->spec;
	struct engine *engine = s->engine;
	struct cmdline cl;
	struct strbuf err = STRBUF_INIT;
	char *cause = NULL;
	bool ro = s->read_only, color = s->out.color, mut = dash_line_mutates(arg, line);
	size_t i;
	int status = 0;

	/* rule 4: only a live cluster's server changes it */
	if (mut && !env->m->d.writable && env->m->d.server != NULL) {
		strbuf_adds(out, "error: no cellar server runs for this store (start "
		    "one with 'cellar serve'): only it changes the cluster\n");
		return CMD_EXIT_NOSERVER;
	}
	if (mut && !env->m->d.writable) {
		strbuf_addf(out, "error: the cluster on screen is the %s's: it changes "
		    "only by its workload (commands that change state act on a live "
		    "cluster, through its server)\n", env->m->d.backend);
		return CMD_EXIT_FAIL;
	}
	/* a live view: a server that started since the session last looked
	   is looked for again (session_remote remembers "none") */
	if (env->m->d.server != NULL && s->remote_state < 0)
		s->remote_state = 0;
	cmdline_init(&cl);
	if (cmdline_parse(line, &cl, NULL, &cause) != 0) {
		strbuf_addf(out, "error: %s\n", cause);
		free(cause);
		return CMD_EXIT_USAGE;
	}
	s->read_only = !admin;
	s->out.color = false;	/* the pane shows text, not escape sequences */
	/*
	 * Rule 3: commands read the cluster on screen. The borrowed engine is
	 * only read (place plans without binding): only commands that change
	 * nothing get it, and on a live view those that change state go to
	 * the server with the session's own.
	 */
	if ((!env->m->d.writable || !mut) && env->m->d.engine != NULL) {
		s->spec = (struct spec *)env->m->d.spec;
		s->engine = (struct engine *)env->m->d.engine;
		s->read_only = true;
	}
	for (i = 0; i < cl.n && status == 0; i++) {
		struct cmd_result res;

		if (cl.cmds[i].n > 0 && strcmp(cl.cmds[i].v[0], "dash") == 0) {
			strbuf_adds(out, "error: the dashboard is already open\n");
			status = CMD_EXIT_FAIL;
			break;
		}
		status = cmd_dispatch(s, (int)cl.cmds[i].n, cl.cmds[i].v, out, &err, &res);
		if (status != 0 && res.cause != NULL)
			strbuf_addf(&err, "error: %s\n", res.cause);
		cmd_result_release(&res);
	}
	s->read_only = ro;
	s->out.color = color;
	s->spec = spec;
	s->engine = engine;
	strbuf_add(out, err.buf, err.len);
	strbuf_release(&err);
	cmdline_release(&cl);
	return status;
}

static bool
dash_line_mutates(void *arg, const char *line)
{
	const struct cmd_entry *e;
	struct cmdline cl;
	char *cause = NULL;
	bool mut = false;
	size_t i;
	int nw;

	(void)arg;
	cmdline_init(&cl);
	if (cmdline_parse(line, &cl, NULL, &cause) != 0) {
		free(cause);
		return false;
	}
	for (i = 0; i < cl.n; i++) {
		if ((e = cmd_find((int)cl.cmds[i].n, cl.cmds[i].v, &nw, &cause)) == NULL) {
			free(cause);
			cause = NULL;
			continue;
		}
		if (e->flags & CMD_MUTATES)
			mut = true;
	}
	cmdline_release(&cl);
	return mut;
}

static void
dash_complete(void *arg, char *line, size_t len, struct strbuf *choices)
{
	const struct dash_cmdenv *de = arg;
	struct session view = *de->sess;
	struct complete_env env = { &view, NULL, NULL };
	struct completion c;
	char *rep;
	size_t n = strlen(line), i;

	/* names (jobs, nodes, VCs) of the cluster on screen (rule 3) */
	if (de->m->d.engine != NULL) {
		view.spec = (struct spec *)de->m->d.spec;
		view.engine = (struct engine *)de->m->d.engine;
	}
	completion_init(&c);
	complete_line(&env, line, n, &c);
	if ((rep = complete_replacement(&c)) != NULL) {
		if (c.start + strlen(rep) < len)
			snprintf(line + c.start, len - c.start, "%s", rep);
		free(rep);
	}
	if (c.cands.n > 1)
		for (i = 0; i < c.cands.n; i++)
			strbuf_addf(choices, "%s%s", c.cands.v[i], i + 1 < c.cands.n ? "  " : "\n");
	completion_release(&c);
}

static int
parse_size(const char *s, int *w, int *h, char **cause)
{
	char *end;
	long a, b;

	a = strtol(s, &end, 10);
	if (end == s || (*end != 'x' && *end != 'X'))
		goto bad;
	b = strtol(end + 1, &end, 10);
	if (*end != '\0' || a < 1 || b < 1 || a > 1000 || b > 1000)
		goto bad;
	*w = (int)a;
	*h = (int)b;
	return 0;
bad:
	*cause = xasprintf("invalid --size '%s' (WxH, 1 to 1000 each)", s);
	return -1;
}

/* -o json: the frame's lines and the status figures, one document. */
static void
frame_json(struct cmd_ctx *ctx, const struct dash_model *m, const struct dash_screen *scr)
{
	struct strbuf text = STRBUF_INIT;
	struct json j;
	char *line, *save = NULL;

	dash_screen_text(scr, &text);
	cmd_json_begin(ctx, &j, "dash");
	json_kv_double(&j, "now", m->d.now);
	json_kv_string(&j, "backend", m->d.backend);
	json_kv_string(&j, "policy", m->d.policy);
	if (m->d.follow != NULL)
		json_kv_string(&j, "follow", m->d.follow);
	if (m->d.server != NULL)
		json_kv_string(&j, "server", m->d.server);
	json_kv_double(&j, "util", m->util);
	json_kv_double(&j, "frag", m->frag);
	json_kv_int(&j, "running", m->running);
	json_kv_int(&j, "pending", m->pending);
	json_key(&j, "lines");
	json_array_begin(&j);
	for (line = strtok_r(text.buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		json_string(&j, line);
	json_array_end(&j);
	cmd_json_end(ctx, &j);
	strbuf_release(&text);
}

/* Rule 7: the store source, waited for on a terminal. Sets ctx->status. */
static int
follow_source(struct cmd_ctx *ctx, const struct args *a, struct dash_source *src,
    char **cause)
{
	static const char *const emu_only[] = { "at", "policy", "trace", "load",
	    "vc-map" };
	const struct frontend *fe = ctx->sess->fe;
	const char *path = ctx->sess->db_path;
	bool waiting = false, wait = !args_has(a, "once") && fe != NULL &&
	    fe->interactive && fe->dashboard != NULL;
	size_t i;
	int rc;

	for (i = 0; i < sizeof emu_only / sizeof emu_only[0]; i++)
		if (args_has(a, emu_only[i])) {
			*cause = xasprintf("--%s is the emulator's: not with --follow",
			    emu_only[i]);
			ctx->status = CMD_EXIT_USAGE;
			return -1;
		}
	if (path == NULL || store_is_memory(path)) {
		*cause = xasprintf("--follow needs a store another process writes: "
		    "give its file with --db PATH");
		ctx->status = CMD_EXIT_USAGE;
		return -1;
	}
	for (;;) {
		rc = dash_source_store(src, path, cause);
		/* a missing file is waited for (then also its first run); a
		   store found without a run is not what the user meant */
		if (rc == 0 || !wait || rc != STORE_NOTFOUND ||
		    (!waiting && store_exists(path)))
			break;
		if (!waiting && fe->progress != NULL) {
			char *line = xasprintf("waiting for a state store at '%s' "
			    "(Ctrl-C stops)", path);

			fe->progress(fe, line);
			free(line);
		}
		waiting = true;
		free(*cause);
		*cause = NULL;
		if (fe->interrupted(fe) || !fe->sleep(fe, 250)) {
			*cause = xasprintf("interrupted while waiting for '%s'", path);
			rc = CMD_EXIT_INTR;
			break;
		}
	}
	if (waiting && fe->progress != NULL)
		fe->progress(fe, NULL);
	if (rc != 0)
		ctx->status = rc == CMD_EXIT_INTR ? CMD_EXIT_INTR :
		    rc == STORE_NOTFOUND ? CMD_EXIT_FAIL : CMD_EXIT_STORE;
	return rc == 0 ? 0 : -1;
}

static int
dash_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct session *sess = ctx->sess;
	struct dash_emu_cfg cfg;
	struct dash_source src = { NULL, NULL };
	struct dash_model m;
	struct dash_view v;
	struct dash_screen scr;
	struct dash_cmdenv env = { sess, &m, &src };
	const char *val;
	double at = 0, x;
	int w = 120, h = 40, rc = -1, p;
	bool live, follow;
	long long n;

	dash_emu_cfg_init(&cfg);
	cfg.spec = sess->spec;
	cfg.spec_name = sess->spec_path;
	cfg.mode = engine_mode(sess->engine);
	if ((val = args_get(a, "policy")) != NULL)
		cfg.policy = val;
	cfg.trace = args_get(a, "trace");
	if ((cfg.vcmap = args_get(a, "vc-map")) != NULL && cfg.trace == NULL) {
		*cause = xstrdup("--vc-map maps a --trace's VCs (the demo's are mapped already)");
		return cmd_usage_error(ctx);
	}
	if ((val = args_get(a, "load")) != NULL) {
		x = strtod(val, NULL);
		if (!(x > 0) || x > 1e6) {
			*cause = xasprintf("invalid --load '%s' (a factor > 0)", val);
			return cmd_usage_error(ctx);
		}
		cfg.load = x;
	}
	if ((val = args_get(a, "at")) != NULL && args_seconds(val, &at) != 0) {
		*cause = xasprintf("invalid --at '%s' (a duration: 90, 30m, 6h, 2d)", val);
		return cmd_usage_error(ctx);
	}
	if ((val = args_get(a, "size")) != NULL && parse_size(val, &w, &h, cause) != 0)
		return cmd_usage_error(ctx);
	if ((val = args_get(a, "panel")) != NULL && dash_panel_parse(val) < 0) {
		*cause = xasprintf("unknown panel '%s' (overview, vcs, queues, events, detail)", val);
		return cmd_usage_error(ctx);
	}
	dash_view_init(&v);
	if ((val = args_get(a, "speed")) != NULL) {
		x = strtod(val, NULL);
		if (!(x >= DASH_SPEED_MIN && x <= DASH_SPEED_MAX)) {
			*cause = xasprintf("invalid --speed '%s' (1 to %.0f)", val, DASH_SPEED_MAX);
			dash_view_release(&v);
			return cmd_usage_error(ctx);
		}
		v.speed = x;
		v.speed_given = true;
	}
	if (args_has(a, "refresh")) {
		n = args_strtonum(a, "refresh", 50, 60000, cause);
		if (*cause != NULL) {
			dash_view_release(&v);
			return cmd_usage_error(ctx);
		}
		v.refresh_ms = (unsigned)n;
	}
	if ((follow = args_has(a, "follow"))) {
		if ((rc = follow_source(ctx, a, &src, cause)) != 0) {
			dash_view_release(&v);
			return -1;
		}
		live = true;	/* reads before the first frame */
		at = 0;
		rc = -1;
	} else {
		/* rule 6: a spec with a backend shows its server's cluster */
		live = sess->spec->backend.type != SPEC_BACKEND_EMULATOR;
		if ((live ? dash_source_live(&src, sess, cause) :
		    dash_source_emu(&src, &cfg, cause)) != 0) {
			dash_view_release(&v);
			return -1;
		}
	}
	dash_model_init(&m, &src);
	/* a live source reads its events and asks its server once before the
	   first frame */
	if ((at > 0 || live) && dash_model_advance(&m, at, cause) != 0)
		goto out;
	if ((val = args_get(a, "panel")) != NULL && (p = dash_panel_parse(val)) >= 0) {
		v.panel = p;
		v.panel_given = true;
	}
	v.map = args_has(a, "map");
	v.mouse = !args_has(a, "no-mouse");
	v.color = ctx->out.color && !args_has(a, "no-color");
	v.ascii = args_has(a, "ascii");
	v.run = dash_run_line;
	v.mutates = dash_line_mutates;
	v.complete = dash_complete;
	v.history = dash_history;
	v.arg = &env;
	if ((val = args_get(a, "keys")) != NULL && press_keys(&v, &m, val, cause) != 0) {
		ctx->status = CMD_EXIT_USAGE;
		goto out;
	}
	if (args_has(a, "once")) {
		dash_screen_init(&scr, w, h, !args_has(a, "unicode"));
		dash_view_draw(&v, &m, &scr);
		if (ctx->out.format == OUT_JSON)
			frame_json(ctx, &m, &scr);
		else
			dash_screen_text(&scr, ctx->o);
		dash_screen_release(&scr);
		rc = 0;
	} else if (sess->fe == NULL || sess->fe->dashboard == NULL || !sess->fe->interactive) {
		*cause = xasprintf("the dashboard needs a terminal (dash --once prints a frame)");
	} else
		rc = sess->fe->dashboard(sess->fe, &m, &v, cause);
out:
	dash_model_release(&m);
	dash_source_free(&src);
	dash_view_release(&v);
	return rc;
}

const struct cmd_entry cmd_dash_entry = {
	.name = "dash",
	.opts = dash_opts,
	.min = 0, .max = 0,
	.usage = "[--once [--size WxH]] [--at T] [--panel NAME] [--keys KEYS] [--map] [--follow] "
	    "[--policy P] [--trace FILE [--vc-map MAP]] [--load X] [--speed X] [--refresh MS] "
	    "[--unicode | --ascii] [--no-mouse] [--no-color]",
	.summary = "the dashboard: cells, VC usage, queues, events",
	.help =
	    "Open the dashboard. On a spec with a backend (local, ssh) it is a "
	    "client of the store's server (cellar serve): it shows the real "
	    "jobs the server runs, read from the store it writes at each "
	    "refresh, with their live phases and pending reasons from the "
	    "server, and ':' commands (submit, cancel...) go to the server in "
	    "admin mode; it runs no hook itself, so closing it stops no job. "
	    "With no server it shows what the store holds, read-only, and the "
	    "status line says 'no cellar server is running for STORE'. "
	    "Otherwise it shows the emulated cluster of the session's spec, "
	    "playing a workload: by default the demo (a scripted opening, then "
	    "a sample of the public Philly trace, its four busiest VCs mapped to "
	    "the default spec's research, prod, dev and infer, arrivals 50 times "
	    "faster, every job auto: guaranteed while its VC has room; two nodes "
	    "fail and come back; it ends at 39h with a summary, and r plays it "
	    "again); --trace plays another trace (its VCs by name). Panels: cells (tree or --map node map: a letter "
	    "per VC, lower case for opportunistic, '.' free, ',' bound to a VC "
	    "but idle, '#' bad), VCs (guaranteed used / free / bad of each VC's "
	    "assigned GPUs, and its opportunistic GPUs elsewhere), queues (per VC, "
	    "pending then running jobs in the policy's order, with the policy's "
	    "priority, class, wait and pending reason), events and detail "
	    "(Enter; explains why a pending job waits). The status line shows "
	    "spec, sharing mode, policy, backend, emulated time and speed, "
	    "utilization (busy GPUs of all GPUs) and fragmentation (partially "
	    "free nodes of all nodes).\n"
	    "On a terminal the dashboard runs until q (keys: '?' inside, and "
	    "DASHBOARD KEYS in cellar(1)); bare 'cellar' on a "
	    "terminal opens it. --once prints one frame as plain text instead "
	    "(ASCII unless --unicode), of --size WxH (default 120x40), after "
	    "playing --at T emulated seconds and pressing --keys (characters, "
	    "or <Enter>, <Esc>, <Tab>, <S-Tab>, <Up>, <Down>, <Left>, <Right>, "
	    "<PgUp>, <PgDn>, <Home>, <End>, <BS>, <Space>, <lt>, <C-u>, <C-w>). "
	    "Commands on "
	    "the ':' line read the cluster on screen, read-only until ':admin' "
	    "(an ADMIN banner); a command that changes state then asks for "
	    "confirmation, Cancel by default, and runs only on a live session "
	    "(the emulated cluster changes only by its workload). The UI state "
	    "(panel, sort, filter, speed, open cells) is kept in "
	    "$XDG_STATE_HOME/cellar/ui.\n"
	    "--follow shows, read-only, the newest run of the store given by "
	    "--db (or CELLAR_DB) that another cellar process writes: a replay "
	    "--db recording itself or a live session. Cells and VC usage come "
	    "from its stored placements, queues from its stored jobs, events "
	    "from its log as they commit; each refresh asks the store whether "
	    "anything was committed and reads only then. The status line says "
	    "which file and run it follows, and why it cannot read it if so "
	    "(the last view stays; it tries again). On a terminal a store not "
	    "there yet is waited for; --once prints one frame of the store's "
	    "state. Enter on a job shows its history from the store (also on a "
	    "live cluster).",
	.examples = (const char *const []){
		"dash --once --size 100x30",
		"dash --once --at 6h --panel queues",
		"dash --once --at 2h --map --size 80x24",
		NULL },
	.flags = CMD_NEEDS_ENGINE,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = dash_exec,
};
