/*
 * tui-repl.c — unit tests of the REPL's helpers that need no terminal
 * (ui/repl.c): where the history file goes, creating its directories with
 * mode 0700, history events (!!, !-N, !prefix) and the prompt. The loop
 * itself is driven in tmux by tests/scenarios/t01*-repl-*.sh.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "ui/repl.h"

static void
check_path(const char *histfile, const char *state, const char *home,
    const char *want)
{
	char *p = repl_history_path(histfile, state, home);

	if (want == NULL)
		CHECKF(p == NULL, "got '%s', want none", p);
	else
		CHECKF(p != NULL && strcmp(p, want) == 0, "got '%s', want '%s'",
		    p ? p : "(none)", want);
	free(p);
}

static void
test_history_path(void)
{
	check_path(NULL, NULL, "/home/op", "/home/op/.local/state/cellar/history");
	check_path(NULL, "/st", "/home/op", "/st/cellar/history");
	check_path(NULL, "relative", "/home/op", "/home/op/.local/state/cellar/history");
	check_path(NULL, "", "/home/op", "/home/op/.local/state/cellar/history");
	check_path("/tmp/h", "/st", "/home/op", "/tmp/h");
	check_path("", "/st", "/home/op", NULL);	/* set but empty: off */
	check_path(NULL, NULL, NULL, NULL);
	check_path(NULL, NULL, "", NULL);
}

static void
test_make_parents(void)
{
	char tmpl[] = "/tmp/tui-repl.XXXXXX", *dir, *path, *cause = NULL;
	struct stat sb;

	dir = mkdtemp(tmpl);
	CHECK(dir != NULL);
	if (dir == NULL)
		return;
	path = malloc(strlen(dir) + 64);
	sprintf(path, "%s/a/b/history", dir);
	CHECK_INTEQ(repl_make_parents(path, &cause), 0);
	sprintf(path, "%s/a/b", dir);
	CHECK(stat(path, &sb) == 0 && S_ISDIR(sb.st_mode));
	CHECKF((sb.st_mode & 0777) == 0700, "mode %o", (unsigned)(sb.st_mode & 0777));
	/* Existing directories are fine. */
	sprintf(path, "%s/a/b/history", dir);
	CHECK_INTEQ(repl_make_parents(path, &cause), 0);
	/* A file in the way is an error with the directory in quotes. */
	CHECK(fclose(fopen(path, "w")) == 0);
	sprintf(path, "%s/a/b/history/x", dir);
	CHECK_INTEQ(repl_make_parents(path, &cause), -1);
	CHECKF(cause != NULL && strstr(cause, "cannot create directory '") != NULL,
	    "%s", cause ? cause : "(null)");
	free(cause);
	sprintf(path, "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
	free(path);
}

static void
check_expand(const char *line, int want_rc, const char *want)
{
	static char *const hist[] = { "status", "alloc a --vc prod --gpus 1",
	    "jobs -o name", "vcs" };
	char *out = NULL, *cause = NULL;
	int rc = repl_expand(line, hist, 4, &out, &cause);

	CHECKF(rc == want_rc, "[%s]: rc %d, want %d", line, rc, want_rc);
	if (rc == 1)
		CHECKF(strcmp(out, want) == 0, "[%s] -> [%s], want [%s]", line, out, want);
	if (rc == -1)
		CHECKF(cause != NULL && strcmp(cause, want) == 0, "[%s]: [%s]", line,
		    cause ? cause : "(null)");
	free(out);
	free(cause);
}

static void
test_expand(void)
{
	char *out = NULL, *cause = NULL;

	check_expand("!!", 1, "vcs");
	check_expand("!! -o json", 1, "vcs -o json");
	check_expand("  !!", 1, "vcs");
	check_expand("!-1", 1, "vcs");
	check_expand("!-3", 1, "alloc a --vc prod --gpus 1");
	check_expand("!-4 -o json", 1, "status -o json");
	check_expand("!-5", -1, "history event '!-5' not found");
	check_expand("!-0", -1, "history event '!-0' not found");
	check_expand("!al", 1, "alloc a --vc prod --gpus 1");
	check_expand("!s", 1, "status");
	check_expand("!j; vcs", 1, "jobs -o name; vcs");
	check_expand("!zz", -1, "history event '!zz' not found");
	check_expand("status", 0, NULL);
	check_expand("!", 0, NULL);
	check_expand("! status", 0, NULL);
	check_expand("release !!", 0, NULL);	/* only at the start */
	CHECK_INTEQ(repl_expand("!!", NULL, 0, &out, &cause), -1);
	CHECKF(cause != NULL && strcmp(cause, "history event '!!' not found") == 0,
	    "%s", cause ? cause : "(null)");
	free(cause);
}

static void
test_prompt(void)
{
	struct session s;
	char *p;

	session_init(&s);
	session_set_db(&s, ":memory:");	/* never the user's store */
	p = repl_prompt(&s);
	CHECK_STREQ(p, "cellar default/hived> ");
	free(p);
	s.mode = ENGINE_QUOTA;
	s.spec_path = strdup("specs/hived-fig3.yaml");
	p = repl_prompt(&s);
	CHECK_STREQ(p, "cellar hived-fig3/quota> ");
	free(p);
	free(s.spec_path);
	s.spec_path = strdup("/abs/my.cluster.yml");
	p = repl_prompt(&s);
	CHECK_STREQ(p, "cellar my.cluster/quota> ");
	free(p);
	free(s.spec_path);
	s.spec_path = strdup(SESSION_DEFAULT_SPEC);
	p = repl_prompt(&s);
	CHECK_STREQ(p, "cellar default/quota> ");
	free(p);
	session_release(&s);
}

static const struct test tests[] = {
	{ "history-path", test_history_path },
	{ "make-parents", test_make_parents },
	{ "expand", test_expand },
	{ "prompt", test_prompt },
};

TEST_MAIN(tests)
