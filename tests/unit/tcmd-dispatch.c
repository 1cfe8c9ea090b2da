/*
 * tcmd-dispatch.c — unit tests of the command table and dispatcher
 * (cmd/cmd): table invariants, lookup by alias / exact / prefix, statuses of
 * failures, precondition flags, and a randomized run of word salad through
 * cmd_dispatch that must never crash, must keep JSON output valid and must
 * leave the engine's invariants intact.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "core/json.h"

/* Run a line; return the status, with output in out (reset first). */
static int
run(struct session *s, const char *line, struct strbuf *out, char **cause)
{
	struct strbuf err = STRBUF_INIT;
	struct cmd_result res;
	struct cmdline cl;
	char *tcause = NULL;
	int status = 0;
	size_t i;

	strbuf_reset(out);
	cmdline_init(&cl);
	if (cmdline_parse(line, &cl, NULL, &tcause) != 0) {
		free(tcause);
		return -1;
	}
	for (i = 0; i < cl.n && status == 0; i++) {
		status = cmd_dispatch(s, (int)cl.cmds[i].n, cl.cmds[i].v, out, &err, &res);
		if (cause != NULL) {
			free(*cause);
			*cause = res.cause ? strdup(res.cause) : NULL;
		}
		cmd_result_release(&res);
	}
	cmdline_release(&cl);
	strbuf_release(&err);
	return status;
}

static void
test_table_invariants(void)
{
	const struct cmd_entry *const *e, *const *f;
	size_t words;

	for (e = cmd_table; *e != NULL; e++) {
		const char *n = (*e)->name;

		words = 1 + (strchr(n, ' ') != NULL);
		CHECKF(strspn(n, "abcdefghijklmnopqrstuvwxyz ") == strlen(n) &&
		    n[0] != ' ' && n[strlen(n) - 1] != ' ' &&
		    (words == 1 || strchr(strchr(n, ' ') + 1, ' ') == NULL),
		    "bad name '%s'", n);
		CHECKF(((*e)->formats & OUT_MASK(OUT_TABLE)) &&
		    ((*e)->formats & OUT_MASK(OUT_JSON)), "'%s' lacks table/json", n);
		CHECKF((*e)->usage != NULL && (*e)->summary != NULL &&
		    (*e)->help != NULL && (*e)->exec != NULL, "'%s' incomplete", n);
		CHECKF((*e)->examples != NULL && (*e)->examples[0] != NULL,
		    "'%s' has no example", n);
		/* Invariant 4: the first example is plain (t0040 runs it). */
		if ((*e)->examples != NULL && (*e)->examples[0] != NULL)
			CHECKF(strstr((*e)->examples[0], " -o") == NULL &&
			    strncmp((*e)->examples[0], n, strlen(n)) == 0,
			    "first example of '%s': '%s'", n, (*e)->examples[0]);
		/* Invariant 5: listing columns have unique keys and help. */
		if ((*e)->columns != NULL) {
			const struct table_colspec *c, *d;

			CHECKF((*e)->columns[0].header != NULL, "'%s' no columns", n);
			for (c = (*e)->columns; c->header != NULL; c++) {
				CHECKF(c->key != NULL && c->help != NULL &&
				    strspn(c->key, "abcdefghijklmnopqrstuvwxyz_0123456789") ==
				    strlen(c->key) && c->key[0] >= 'a' && c->key[0] <= 'z',
				    "'%s' column '%s'", n, c->header);
				for (d = c + 1; d->header != NULL; d++)
					CHECKF(strcmp(c->key, d->key) != 0,
					    "'%s' key '%s' twice", n, c->key);
			}
			CHECKF(!((*e)->columns[0].flags & TABLE_WIDE),
			    "'%s': first column is wide", n);
		}
		for (f = e + 1; *f != NULL; f++)
			CHECKF(strcmp(n, (*f)->name) != 0, "'%s' twice", n);
		if ((*e)->alias != NULL) {
			CHECKF(strchr((*e)->alias, ' ') == NULL, "alias of '%s'", n);
			for (f = cmd_table; *f != NULL; f++)
				CHECKF(strncmp((*f)->name, (*e)->alias,
				    strlen((*e)->alias)) != 0 ||
				    ((*f)->name[strlen((*e)->alias)] != '\0' &&
				    (*f)->name[strlen((*e)->alias)] != ' '),
				    "alias '%s' is a first word", (*e)->alias);
		}
		/* Invariant 2: a first word is a command or a family, not both. */
		if (words == 1)
			CHECKF(!cmd_is_family(n), "'%s' is both", n);
		/* Invariant 7: who may send it to a server, said once. */
		{
			const struct cmd_access_rule *r;
			int rows = 0;

			for (r = cmd_access_table; r->e != NULL; r++)
				rows += r->e == *e;
			CHECKF(rows == 1, "'%s' has %d rows in cmd_access_table "
			    "(want 1: anyone, member, admin or client)", n, rows);
			CHECKF(cmd_access_of(*e) != CMD_ACCESS_NONE,
			    "'%s' has no access class", n);
			CHECKF(!((*e)->flags & CMD_SERVER) ||
			    cmd_access_of(*e) != CMD_ACCESS_CLIENT,
			    "'%s' is forwarded to a server that runs it for nobody", n);
		}
	}
}

/* Every row of cmd_access_table is a command of cmd_table. */
static void
test_access_rows(void)
{
	const struct cmd_access_rule *r;
	const struct cmd_entry *const *e;
	int n = 0, rows = 0;

	for (r = cmd_access_table; r->e != NULL; r++, rows++) {
		for (e = cmd_table; *e != NULL; e++)
			if (*e == r->e)
				break;
		CHECKF(*e != NULL, "'%s' is in cmd_access_table, not cmd_table",
		    r->e->name);
		CHECKF(strcmp(cmd_access_name(r->access), "none") != 0,
		    "'%s': class %d", r->e->name, (int)r->access);
	}
	for (e = cmd_table; *e != NULL; e++)
		n++;
	CHECK_INTEQ(rows, n);
	CHECK_STREQ(cmd_access_name(cmd_access_of(&cmd_submit_entry)), "member");
	CHECK_STREQ(cmd_access_name(cmd_access_of(&cmd_export_entry)), "client");
}

static void
test_lookup(void)
{
	static const struct {
		const char	*words[3];
		const char	*want;		/* entry name, or NULL */
		int		 nwords;
		const char	*cause;		/* expected error text */
	} cases[] = {
		{ { "alloc", NULL }, "alloc", 1, NULL },
		{ { "al", "x", NULL }, "alloc", 1, NULL },
		{ { "ps", NULL }, "jobs", 1, NULL },
		{ { "?", NULL }, "help", 1, NULL },
		{ { "spec", "check", NULL }, "spec check", 2, NULL },
		{ { "sp", "c", NULL }, "spec check", 2, NULL },
		{ { "n", "o", NULL }, "node ok", 2, NULL },
		{ { "s", NULL }, NULL, 0, "ambiguous command 's': spec, status, serve, submit" },
		/* one edit from a command: named (issue 21) */
		{ { "nope", NULL }, NULL, 0, "unknown command 'nope' (did you mean 'node'?)" },
		{ { "frobnicate", NULL }, NULL, 0, "unknown command 'frobnicate'" },
		{ { "sttaus", NULL }, NULL, 0, "unknown command 'sttaus' (did you mean 'status'?)" },
		{ { "node", "bda", NULL }, NULL, 0, "unknown command 'node bda' (did you "
		    "mean 'node bad'? 'node' has: bad, ok)" },
		{ { "", NULL }, NULL, 0, "unknown command ''" },
		{ { "node", NULL }, NULL, 0, "command 'node' needs a subcommand: bad, ok" },
		{ { "node", "--help", NULL }, NULL, 0, "command 'node' needs a subcommand: bad, ok" },
		{ { "node", "x", NULL }, NULL, 0, "unknown command 'node x' ('node' has: bad, ok)" },
		{ { "allocate", NULL }, NULL, 0, "unknown command 'allocate' (did you mean 'alloc'?)" },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct cmd_entry *e;
		char *cause = NULL;
		int argc = 0, nwords = 0;

		while (cases[i].words[argc] != NULL)
			argc++;
		e = cmd_find(argc, (char *const *)cases[i].words, &nwords, &cause);
		if (cases[i].want != NULL) {
			CHECKF(e != NULL && strcmp(e->name, cases[i].want) == 0,
			    "case %zu: %s", i, e ? e->name : cause);
			CHECK_INTEQ(nwords, cases[i].nwords);
		} else {
			CHECKF(e == NULL, "case %zu found '%s'", i, e ? e->name : "");
			CHECKF(cause != NULL && strcmp(cause, cases[i].cause) == 0,
			    "case %zu: '%s'", i, cause ? cause : "(null)");
		}
		free(cause);
	}
}

static void
test_statuses(void)
{
	struct session s;
	struct strbuf out = STRBUF_INIT;
	char *cause = NULL;

	session_init(&s);
	session_set_db(&s, ":memory:");	/* never the user's store */
	CHECK_INTEQ(run(&s, "status", &out, &cause), CMD_EXIT_OK);
	CHECK(strstr(out.buf, "specs/default.yaml (embedded)") != NULL);
	CHECK_INTEQ(run(&s, "", &out, &cause), CMD_EXIT_OK);
	CHECK_INTEQ(run(&s, "frob", &out, &cause), CMD_EXIT_USAGE);
	CHECK_INTEQ(run(&s, "release nope", &out, &cause), CMD_EXIT_FAIL);
	CHECK_STREQ(cause, "unknown job 'nope'");
	CHECK_INTEQ(run(&s, "spec check /nonexistent.yaml", &out, &cause), CMD_EXIT_SPEC);
	CHECK_INTEQ(run(&s, "load /nonexistent.yaml", &out, &cause), CMD_EXIT_SPEC);
	CHECK_INTEQ(run(&s, "status -o csv", &out, &cause), CMD_EXIT_USAGE);
	CHECK_INTEQ(run(&s, "alloc --help", &out, &cause), CMD_EXIT_OK);
	CHECK(strncmp(out.buf, "usage: alloc NAME", 17) == 0);
	CHECK_INTEQ(run(&s, "alloc x --vc prod --gpus 1 --bogus", &out, &cause), CMD_EXIT_USAGE);

	/* Listings: --sort/--filter keys are checked before anything runs. */
	CHECK_INTEQ(run(&s, "jobs --sort nope", &out, &cause), CMD_EXIT_USAGE);
	CHECK(cause != NULL && strncmp(cause, "unknown sort key 'nope' (keys: job,", 35) == 0);
	CHECK_INTEQ(run(&s, "vcs --filter gpus>x", &out, &cause), CMD_EXIT_USAGE);
	CHECK_INTEQ(run(&s, "vcs --filter vc=prod -o name", &out, &cause), CMD_EXIT_OK);
	CHECK_STREQ(out.buf, "prod\n");
	CHECK_INTEQ(run(&s, "vcs --sort -gpus,vc -o name", &out, &cause), CMD_EXIT_OK);
	CHECK_STREQ(out.buf, "research\nprod\ndev\ninfer\n");
	CHECK_INTEQ(run(&s, "status --sort x", &out, &cause), CMD_EXIT_USAGE);
	CHECK_STREQ(cause, "unknown option '--sort'");
	CHECK_INTEQ(run(&s, "status -o wide", &out, &cause), CMD_EXIT_OK);
	CHECK_INTEQ(run(&s, "help states --sort x", &out, &cause), CMD_EXIT_USAGE);
	CHECK_INTEQ(run(&s, "help states -o csv", &out, &cause), CMD_EXIT_USAGE);
	CHECK_INTEQ(run(&s, "apropos zzzz", &out, &cause), CMD_EXIT_FAIL);
	CHECK_STREQ(cause, "nothing matches 'zzzz'");
	{
		char *const bad[] = { (char *)"cells", (char *)"r0\xff", NULL };
		struct strbuf err = STRBUF_INIT;
		struct cmd_result res;

		CHECK_INTEQ(cmd_dispatch(&s, 2, bad, &out, &err, &res), CMD_EXIT_USAGE);
		CHECK_STREQ(res.cause, "word 2 is not valid UTF-8 (at byte 3)");
		cmd_result_release(&res);
		strbuf_release(&err);
	}

	/* Read-only sessions refuse CMD_MUTATES commands and allow the rest. */
	s.read_only = true;
	CHECK_INTEQ(run(&s, "alloc x --vc prod --gpus 1", &out, &cause), CMD_EXIT_FAIL);
	CHECK(cause != NULL && strstr(cause, "read-only") != NULL);
	CHECK_INTEQ(run(&s, "place x --vc prod --gpus 1", &out, &cause), CMD_EXIT_OK);
	CHECK_INTEQ(run(&s, "jobs -o name", &out, &cause), CMD_EXIT_OK);
	CHECK_STREQ(out.buf, "");

	/* The session's defaults apply; a command's -o overrides them. */
	s.read_only = false;
	s.out.format = OUT_JSON;
	CHECK_INTEQ(run(&s, "jobs", &out, &cause), CMD_EXIT_OK);
	CHECK(strncmp(out.buf, "{\"schema_version\":1,\"kind\":\"jobs\"", 33) == 0);
	CHECK_INTEQ(run(&s, "jobs -o name", &out, &cause), CMD_EXIT_OK);
	CHECK_STREQ(out.buf, "");

	free(cause);
	strbuf_release(&out);
	session_release(&s);
}

static unsigned
rnd(unsigned *seed, unsigned n)
{
	*seed = *seed * 1103515245 + 12345;
	return (*seed >> 16) % n;
}

#define PICK(seed, arr) ((arr)[rnd((seed), sizeof (arr) / sizeof (arr)[0])])

/*
 * A random command line: mostly a real command with plausible and
 * implausible options, sometimes word salad.
 */
static void
random_line(unsigned *seed, struct strbuf *line)
{
	static const char *const heads[] = {
		"alloc j%u --vc %s", "place j%u --vc %s", "release j%u", "jobs",
		"cells", "vcs", "node bad", "node ok", "status", "help", "load",
		"spec check", "alloc j%u --vc %s", "alloc j%u --vc %s", "apropos",
		"help states",
	};
	static const char *const vcs[] = { "prod", "dev", "research", "infer", "nope", "a" };
	static const char *const opts[] = {
		"--gpus", "--pods", "--gang", "--priority", "--opportunistic",
		"--lazy", "--pin", "--type", "--depth", "--mode", "--default",
		"--vc", "-o", "--no-header", "--help", "--", "-x", "--sort",
		"--filter",
	};
	static const char *const vals[] = {
		"1", "2", "4", "8", "16", "64", "0", "-1", "10", "1000", "x", "",
		"2x2,1x4", "9x9", "1x1,1x1,1x1,1x1,1x1,1x1,1x1,1x1,1x1", "infer-node",
		"V100", "V100-NODE", "json", "csv", "name", "table", "quota",
		"private", "hived", "r0", "r1n00", "r1n[00-03]", "r0/r0n00/0",
		"j1", "V100-RACK", "tests/fixtures/cmd/small.yaml", "'a b'", "-",
		"99999999999999999999", "r0n[0-", "-gpus,vc", "state=R",
		"gpus>2", "nodes=r1n[00-03]", "node=r0n0*", "level<=2", "wide",
		"bogus=1", "gpus<x", "used%>0",
	};
	static const char *const nums[] = { "1", "2", "4", "8", "3", "16" };
	static const char *const alloc_opts[] = {
		"--pods 2", "--pods 4", "--priority 5", "--priority -1",
		"--priority 1000", "--lazy", "--opportunistic", "--type V100",
		"--pin infer-node", "--gang 2x2,1x4", "--type K80", "--pods 0",
	};
	static const char *const other_opts[] = {
		"--depth 1", "--depth 0", "--no-header", "--mode quota",
		"--mode private", "--default", "--vc prod", "--vc nope", "--depth 40",
		"--sort -gpus", "--sort job,-priority", "--filter state=R",
		"--filter gpus>=2 --sort vc", "--filter node=r1n[00-01] --depth 3",
		"-o wide", "--sort nope",
	};
	const char *head = PICK(seed, heads);
	unsigned k, n = rnd(seed, 5);

	strbuf_reset(line);
	if (rnd(seed, 5) == 0) {		/* word salad */
		for (k = 0; k <= n; k++)
			strbuf_addf(line, "%s%s", k ? " " : "",
			    rnd(seed, 2) ? PICK(seed, opts) : PICK(seed, vals));
		return;
	}
	if (strstr(head, "%u") != NULL)
		strbuf_addf(line, head, rnd(seed, 6), PICK(seed, vcs));
	else
		strbuf_adds(line, head);
	if (strncmp(head, "alloc", 5) == 0 || strncmp(head, "place", 5) == 0) {
		strbuf_addf(line, " --gpus %s", rnd(seed, 4) ? PICK(seed, nums) :
		    PICK(seed, vals));
		for (k = 0; k < n % 3; k++)
			strbuf_addf(line, " %s", rnd(seed, 8) ? PICK(seed, alloc_opts) :
			    PICK(seed, opts));
	} else {
		if (strncmp(head, "node", 4) == 0 || strncmp(head, "cells", 5) == 0 ||
		    strncmp(head, "spec", 4) == 0)
			strbuf_addf(line, " %s", PICK(seed, vals));
		if (n % 3 == 1)
			strbuf_addf(line, " %s", PICK(seed, other_opts));
		else if (n % 3 == 2)
			strbuf_addf(line, " %s %s", PICK(seed, opts), PICK(seed, vals));
	}
	if (rnd(seed, 2))
		strbuf_addf(line, " -o %s", rnd(seed, 10) ? "json" : PICK(seed, vals));
}

/* Random commands: each runs or fails cleanly, and the engine stays sound. */
static void
test_random(void)
{
	struct session s;
	struct strbuf out = STRBUF_INIT, line = STRBUF_INIT;
	unsigned seed = 2024;
	int i, n = test_long ? 50000 : 5000, bad = 0;
	int count[4] = { 0, 0, 0, 0 };
	char why[256];

	session_init(&s);
	session_set_db(&s, ":memory:");	/* never the user's store */
	for (i = 0; i < n; i++) {
		int status;

		random_line(&seed, &line);
		status = run(&s, line.buf, &out, NULL);
		CHECKF(status >= 0 && status <= 3, "'%s' -> %d", line.buf, status);
		if (status >= 0 && status <= 3)
			count[status]++;
		/* Whatever -o the line ended with decides the format. */
		if (status == 0 && out.len > 0 && out.buf[0] == '{') {
			char *cause = NULL;
			size_t end;

			if ((json_validate(out.buf, out.len, &end, &cause) != 0 ||
			    end != out.len) && !bad++)
				CHECKF(0, "'%s': invalid json: %s", line.buf,
				    cause ? cause : "trailing text");
			free(cause);
		}
		if (s.engine != NULL && !engine_check(s.engine, why, sizeof why)) {
			CHECKF(0, "after '%s': %s", line.buf, why);
			break;
		}
	}
	/* The mix must exercise success and the failure classes. */
	CHECKF(count[0] > n / 10 && count[1] > n / 20 && count[2] > n / 20,
	    "ok %d, failed %d, usage %d, spec %d", count[0], count[1], count[2],
	    count[3]);
	strbuf_release(&line);
	strbuf_release(&out);
	session_release(&s);
}

static const struct test tests[] = {
	{ "table-invariants", test_table_invariants },
	{ "access-rows", test_access_rows },
	{ "lookup", test_lookup },
	{ "statuses", test_statuses },
	{ "random", test_random },
};

TEST_MAIN(tests)
