/*
 * tcmd-complete.c — unit tests of REPL completion (cmd/complete): command
 * names, families and subcommands, options, values of every kind from the
 * default spec and a live engine, files through a fake directory lister,
 * quoting of the replacement, and the invariants of complete.h checked on
 * every prefix of a set of command lines.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/complete.h"
#include "core/xmalloc.h"

static struct session sess;
static bool sess_ready;

/* A fake file system: "" holds specs/, x.yaml, notes.txt, .hidden.yaml. */
static char last_dir[256];

static void
fake_list_dir(void *arg, const char *dir, struct strvec *names)
{
	(void)arg;
	snprintf(last_dir, sizeof last_dir, "%s", dir);
	if (strcmp(dir, "") == 0) {
		strvec_push(names, "specs/");
		strvec_push(names, "x.yaml");
		strvec_push(names, "notes.txt");
		strvec_push(names, ".hidden.yaml");
		strvec_push(names, "my file.yaml");
		strvec_push(names, "it's.yaml");
	} else if (strcmp(dir, "specs/") == 0) {
		strvec_push(names, "default.yaml");
		strvec_push(names, "hived-fig3.yaml");
		strvec_push(names, "old/");
	}
}

static struct session *
session(void)
{
	struct strbuf diags = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	char *argv[] = { "alloc", "train1", "--vc", "prod", "--gpus", "8", NULL };
	struct cmd_result res;
	char *cause = NULL;

	if (!sess_ready) {
		session_init(&sess);
		session_set_db(&sess, ":memory:");	/* never the user's store */
		if (session_ensure(&sess, &diags, &cause) != 0)
			fatal("default spec: %s", cause);
		cmd_dispatch(&sess, 6, argv, &out, &err, &res);
		if (res.status != 0)
			fatal("alloc: %s", res.cause);
		cmd_result_release(&res);
		sess_ready = true;
	}
	strbuf_release(&diags);
	strbuf_release(&out);
	strbuf_release(&err);
	return &sess;
}

/* Complete line (to its end); candidates joined by ' ' into a static buffer. */
static const char *
comp(const char *line, struct completion *c)
{
	static char buf[4096];
	struct complete_env env = { session(), fake_list_dir, NULL };
	size_t i, n = 0;

	complete_line(&env, line, strlen(line), c);
	buf[0] = '\0';
	for (i = 0; i < c->cands.n && n < sizeof buf - 1; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", i ? " " : "",
		    c->cands.v[i]);
	return buf;
}

/* The replacement text for line, "" when there is none. */
static char *
repl_of(const char *line)
{
	struct completion c;
	char *r;

	completion_init(&c);
	comp(line, &c);
	r = complete_replacement(&c);
	completion_release(&c);
	return r != NULL ? r : strdup("");
}

#define CHECK_COMP(line, want) do {					\
	struct completion c_;						\
	completion_init(&c_);						\
	CHECKF(strcmp(comp((line), &c_), (want)) == 0,			\
	    "[%s]: [%s], want [%s]", (line), comp((line), &c_), (want));	\
	completion_release(&c_);					\
} while (0)

#define CHECK_REPL(line, want) do {					\
	char *r_ = repl_of(line);					\
	CHECKF(strcmp(r_, (want)) == 0, "[%s] -> [%s], want [%s]",	\
	    (line), r_, (want));					\
	free(r_);							\
} while (0)

static void
test_command_names(void)
{
	CHECK_COMP("", "alloc anomaly apropos audit cancel cells compare dash db events "
	    "export help history import job jobs load node place plot queue release replay "
	    "run runs serve spec status submit vcs wait watch");
	CHECK_COMP("s", "serve spec status submit");
	CHECK_REPL("s", "s");
	CHECK_COMP("sta", "status");
	CHECK_REPL("sta", "status ");
	CHECK_REPL("  sta", "status ");
	CHECK_COMP("zz", "");
	CHECK_REPL("zz", "");
	CHECK_COMP("status; al", "alloc");
	CHECK_COMP("status\nal", "alloc");
}

static void
test_families(void)
{
	CHECK_COMP("node ", "bad ok");
	CHECK_COMP("node b", "bad");
	CHECK_REPL("node b", "bad ");
	CHECK_COMP("n b", "bad");		/* a unique prefix of the family */
	CHECK_COMP("spec ", "check import");
	CHECK_COMP("spec import slurm --gp", "--gpus-per-switch");
	CHECK_COMP("node x", "");
}

static void
test_options(void)
{
	CHECK_COMP("jobs -", "--all --filter --help --no-header --output --run --sort --vc");
	CHECK_COMP("jobs --v", "--vc");
	CHECK_COMP("alloc j1 --p", "--pin --pods --priority");
	CHECK_COMP("alloc j1 --vc prod --o", "--opportunistic --output");
	CHECK_COMP("status --", "--help --no-header --output");	/* no listing */
	/* After "--" everything is positional. */
	CHECK_COMP("release -- -", "");
}

static void
test_values(void)
{
	struct completion c;

	CHECK_COMP("alloc j1 --vc ", "dev infer prod research");
	CHECK_COMP("alloc j1 --vc re", "research");
	CHECK_REPL("alloc j1 --vc re", "research ");
	CHECK_COMP("alloc j1 --vc=p", "--vc=prod");
	CHECK_COMP("alloc j1 --v p", "prod");	/* a unique prefix of --vc */
	CHECK_COMP("alloc j1 --gpus ", "");	/* a number: nothing to offer */
	CHECK_COMP("alloc j1 -g 8 --type ", "V100");
	CHECK_COMP("alloc j1 -t", "");		/* -t needs a value: "-t" is done */
	CHECK_COMP("alloc j1 -t ", "V100");
	CHECK_COMP("alloc j1 --pin ", "infer-node");
	CHECK_COMP("jobs -o ", "csv json name table wide");
	CHECK_COMP("jobs -oj", "");		/* -oj holds its value */
	CHECK_COMP("jobs --output j", "json");
	CHECK_COMP("load --mode ", "hived private quota");
	CHECK_COMP("release ", "train1");
	CHECK_COMP("release train1 t", "train1");
	CHECK_COMP("node bad r0n0", "r0n00 r0n01 r0n02 r0n03 r0n04 r0n05 r0n06 r0n07");
	completion_init(&c);
	comp("node bad r0n0", &c);
	CHECK_STREQ(c.prefix, "r0n0");
	CHECK_INTEQ(c.start, strlen("node bad "));
	completion_release(&c);
	CHECK_COMP("node ok r1n07 r1n0", "r1n00 r1n01 r1n02 r1n03 r1n04 r1n05 "
	    "r1n06 r1n07");
}

/* Listings: --sort and --filter complete column keys. */
static void
test_columns(void)
{
	CHECK_COMP("jobs --so", "--sort");
	CHECK_COMP("jobs --sort g", "gpu_hours gpus");
	CHECK_COMP("jobs --sort gpus", "gpus");
	CHECK_REPL("jobs --sort gpus", "gpus ");
	CHECK_COMP("jobs --sort -gpus", "-gpus");
	CHECK_COMP("jobs --sort job,-po", "job,-pods");
	CHECK_COMP("jobs --sort job,-pr", "job,-preemptions job,-priority");
	CHECK_COMP("jobs --sort=orig", "--sort=orig_priority");
	CHECK_COMP("vcs --filter fr", "free=");
	CHECK_REPL("vcs --filter fr", "free=");	/* the value follows */
	CHECK_COMP("cells --filter st", "state=");
	CHECK_COMP("status --sort ", "");
	CHECK_COMP("watch jobs --sort re", "reason");
}

static void
test_cells(void)
{
	CHECK_COMP("cells V", "V100-RACK");
	CHECK_COMP("cells i", "infer-node");
	CHECK_COMP("cells r0/", "r0/r0n00 r0/r0n01 r0/r0n02 r0/r0n03 r0/r0n04 "
	    "r0/r0n05 r0/r0n06 r0/r0n07");
	CHECK_COMP("cells r0/r0n03/", "r0/r0n03/0 r0/r0n03/1");
	CHECK_COMP("cells r0n03/1/", "r0n03/1/2 r0n03/1/3");	/* from a node */
	CHECK_COMP("cells r0/r0n03/1/3/", "r0/r0n03/1/3/6 r0/r0n03/1/3/7");
	CHECK_COMP("cells r0/r0n03/1/3/7/", "");		/* a GPU: no children */
	CHECK_COMP("cells nope/", "");
	CHECK_COMP("cells r0 --depth ", "");
}

static void
test_files(void)
{
	CHECK_COMP("load ", "it's.yaml my file.yaml specs/ x.yaml");
	CHECK_STREQ(last_dir, "");
	CHECK_COMP("load sp", "specs/");
	CHECK_REPL("load sp", "specs/");		/* no blank after a directory */
	CHECK_COMP("load specs/", "specs/default.yaml specs/hived-fig3.yaml specs/old/");
	CHECK_STREQ(last_dir, "specs/");
	CHECK_COMP("spec check specs/d", "specs/default.yaml");
	CHECK_COMP("load .", ".hidden.yaml");	/* hidden only when asked for */
	CHECK_REPL("load my", "my\\ file.yaml ");
	CHECK_REPL("load 'my", "'my file.yaml' ");
	CHECK_REPL("load \"my", "\"my file.yaml\" ");
	CHECK_REPL("load it", "it\\'s.yaml ");
	CHECK_REPL("load 'it", "'it'\\''s.yaml' ");
	/* The quoted word is matched unquoted. */
	CHECK_COMP("load my\\ f", "my file.yaml");
}

static void
test_help_and_watch(void)
{
	CHECK_COMP("help a", "alloc anomaly apropos audit");
	CHECK_COMP("help al", "alloc");
	CHECK_COMP("help node ", "bad ok");
	CHECK_COMP("help -o json n", "node");
	CHECK_COMP("help node bad ", "");
	CHECK_COMP("watch ", "alloc anomaly apropos audit cancel cells compare dash db "
	    "events export help history import job jobs load node place plot queue release "
	    "replay run runs serve spec status submit vcs wait watch");
	CHECK_COMP("watch -n 5 jo", "job jobs");
	CHECK_COMP("watch --c", "--count");
	CHECK_COMP("watch jobs --v", "--vc");
	CHECK_COMP("watch -n 1 jobs --vc d", "dev");
	CHECK_COMP("watch node b", "bad");
	CHECK_COMP("watch node bad r1n0", "r1n00 r1n01 r1n02 r1n03 r1n04 r1n05 "
	    "r1n06 r1n07");
}

/* The state store's commands: families, options, values, columns. */
static void
test_store_commands(void)
{
	CHECK_COMP("e", "events export");
	CHECK_COMP("db ", "check vacuum");
	CHECK_COMP("run ", "show");
	CHECK_COMP("job ", "log migrate show");
	CHECK_COMP("ru", "run runs");
	CHECK_COMP("events --", "--filter --follow --for --help --job --kind --limit "
	    "--no-header --output --run --since --sort --until-run-done --vc");
	CHECK_COMP("events --vc ", "dev infer prod research");
	CHECK_COMP("events --job t", "train1");
	CHECK_COMP("events --sort k", "kind");
	CHECK_COMP("events --filter de", "detail=");
	CHECK_COMP("events --run ", "");
	CHECK_COMP("history ", "train1");
	CHECK_COMP("history train1 --", "--filter --help --no-header --output --run "
	    "--sort");
	CHECK_COMP("job show t", "train1");
	CHECK_COMP("job show train1 --", "--help --no-header --output --run");
	CHECK_COMP("runs --filter st", "state=");
	CHECK_COMP("runs --sort -j", "-jobs");
	CHECK_COMP("run show 1 --", "--help --no-header --output");
	CHECK_COMP("db check --", "--help --no-header --output");
	CHECK_COMP("export ", "it's.yaml my file.yaml notes.txt specs/ x.yaml");
	CHECK_COMP("import x.yaml --", "--as-new --help --no-header --output");
	CHECK_COMP("import sp", "specs/");
	CHECK_COMP("jobs --run ", "");
}

static void
test_no_completion(void)
{
	struct complete_env env = { NULL, NULL, NULL };
	struct completion c;

	CHECK_COMP("status # al", "");
	CHECK_COMP("bogus x", "");
	CHECK_COMP("alloc", "alloc");
	/* Without a session or a lister there are no live values, no files. */
	completion_init(&c);
	complete_line(&env, "alloc j1 --vc ", 14, &c);
	CHECK_INTEQ(c.cands.n, 0);
	CHECK_STREQ(c.prefix, "");
	complete_line(&env, "load ", 5, &c);
	CHECK_INTEQ(c.cands.n, 0);
	complete_line(&env, "jobs -o t", 9, &c);
	CHECK_INTEQ(c.cands.n, 1);
	completion_release(&c);
}

/* Invariants 1-3 of complete.h hold at every cursor position. */
static void
test_invariants_everywhere(void)
{
	static const char *const lines[] = {
		"alloc j1 --vc research --gpus 8 --pods 2; release j1",
		"node bad 'r0n03' \"r1n0\\\"0\" # comment",
		"watch -n 0.5 --count 3 cells r0/r0n03/1 --depth 2",
		"help node ok -o json; load specs/de --mode quo",
		"jobs --vc=prod -oname\n spec check 'it'\\''s.yaml'",
		"jobs --sort -gpus,jo --filter state=R --filter vc=pr",
		"alloc \xc3\xa9t\xc3\xa9 --vc \xc3\xa9",
		"events --run last --job tr --kind pre; history train1 -o json",
		"db check; job show 'train1' --run=1; import 'my f' --as-new",
	};
	struct complete_env env = { session(), fake_list_dir, NULL };
	struct completion c;
	size_t i, len, k;

	completion_init(&c);
	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		for (len = 0; len <= strlen(lines[i]); len++) {
			complete_line(&env, lines[i], len, &c);
			CHECKF(c.start <= len, "start %zu > %zu", c.start, len);
			CHECK(c.prefix != NULL);
			for (k = 0; k < c.cands.n; k++) {
				CHECKF(strncmp(c.cands.v[k], c.prefix,
				    strlen(c.prefix)) == 0, "'%s' lacks prefix '%s'",
				    c.cands.v[k], c.prefix);
				if (k > 0)
					CHECKF(strcmp(c.cands.v[k - 1], c.cands.v[k]) < 0,
					    "'%s' before '%s'", c.cands.v[k - 1],
					    c.cands.v[k]);
			}
			/* The replacement reads back as the prefix (or the candidate). */
			if (c.cands.n > 0) {
				char *r = complete_replacement(&c);
				struct cmdline cl;
				char *cause = NULL;
				bool more = false;

				cmdline_init(&cl);
				if (cmdline_parse(r, &cl, &more, &cause) == 0 && cl.n == 1)
					CHECKF(strcmp(cl.cmds[0].v[0], c.cands.n == 1 ?
					    c.cands.v[0] : c.prefix) == 0, "[%s]", r);
				else
					CHECKF(more || c.prefix[0] == '\0', "[%s]: %s", r,
					    cause ? cause : "?");
				free(cause);
				cmdline_release(&cl);
				free(r);
			}
		}
	}
	completion_release(&c);
}

static void
test_cleanup(void)
{
	session_release(&sess);
	sess_ready = false;
	CHECK(sess.engine == NULL);
}

static const struct test tests[] = {
	{ "command-names", test_command_names },
	{ "families", test_families },
	{ "options", test_options },
	{ "values", test_values },
	{ "columns", test_columns },
	{ "cells", test_cells },
	{ "files", test_files },
	{ "help-and-watch", test_help_and_watch },
	{ "store-commands", test_store_commands },
	{ "no-completion", test_no_completion },
	{ "invariants-everywhere", test_invariants_everywhere },
	{ "cleanup", test_cleanup },
};

TEST_MAIN(tests)
