/*
 * tbackend-ssh.c — the ssh backend's command line: the OpenSSH options
 * (BatchMode, ConnectTimeout, ControlMaster/ControlPersist on a private
 * socket directory), the node's target (host, user, port, identity) over
 * the backend's defaults, and the one remote command line. That line is
 * what the node's shell runs, so the test runs it through a real
 * `sh -c` here and checks that the hook sees every variable byte for
 * byte, shell metacharacters included, and that nothing else ran.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/shquote.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "test.h"

#define SPEC								\
	"physicalCluster:\n"						\
	"  cellTypes:\n"						\
	"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n" \
	"  physicalCells:\n"						\
	"  - {cellType: NODE, cellAddress: n1}\n"			\
	"  - {cellType: NODE, cellAddress: n2}\n"			\
	"virtualClusters:\n"						\
	"  a: {virtualCells: [{cellType: NODE, cellNumber: 2}]}\n"	\
	"backend:\n"							\
	"  type: ssh\n"							\
	"  hooks: /opt/h\n"						\
	"  connectTimeout: 7\n"						\
	"  ssh: {user: ops, port: 2222, identityFile: /k/id}\n"		\
	"  nodes:\n"							\
	"    n2: {host: 127.0.0.3, user: root, port: 22}\n"

static struct spec *
load(void)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load_string("t.yaml", SPEC, strlen(SPEC), &d);
	CHECKF(s != NULL, "spec did not load (%zu diagnostics)", d.n);
	spec_diags_release(&d);
	return s;
}

static char *
joined(const struct strvec *v)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	for (i = 0; i < v->n; i++)
		strbuf_addf(&sb, "%s[%s]", i ? " " : "", v->v[i]);
	return strbuf_detach(&sb, NULL);
}

static void
test_options_and_targets(void)
{
	struct spec *s = load();
	struct backend *b;
	struct strvec env = STRVEC_INIT, argv = STRVEC_INIT, envp = STRVEC_INIT;
	char *cause = NULL, *got;

	if (s == NULL)
		return;
	b = backend_create(s, &cause);
	CHECKF(b != NULL, "%s", cause ? cause : "");
	if (b == NULL)
		goto out;
	strvec_push(&env, "CELLAR_JOB=j");
	b->ops->command(b, 0, "/opt/h/start", &env, &argv, &envp);
	got = joined(&argv);
	/* n1: the backend's defaults; the host is the node's name */
	CHECKF(strstr(got, "[ssh] [-o] [BatchMode=yes] [-oConnectTimeout=7] "
	    "[-oControlMaster=auto] [-oControlPath=") == got, "%s", got);
	CHECKF(strstr(got, "/%C] [-oControlPersist=60] [-p] [2222] [-l] [ops] [-i] "
	    "[/k/id] [-oIdentitiesOnly=yes] [--] [n1] [exec env 'CELLAR_JOB=j' "
	    "/bin/sh -c '/opt/h/start']") != NULL, "%s", got);
	CHECK(envp.n == 0);
	free(got);
	strvec_release(&argv);
	/* n2: its own host, user and port over the defaults */
	b->ops->command(b, 1, "/opt/h/start", &env, &argv, &envp);
	got = joined(&argv);
	CHECKF(strstr(got, "[-p] [22] [-l] [root] [-i] [/k/id] [-oIdentitiesOnly=yes] "
	    "[--] [127.0.0.3] ") != NULL, "%s", got);
	free(got);
	backend_free(b);
out:
	strvec_release(&env);
	strvec_release(&argv);
	strvec_release(&envp);
	spec_free(s);
}

/* Run the remote line as the node's shell would; its stdout. */
static char *
remote(const char *line)
{
	struct strbuf out = STRBUF_INIT;
	char buf[4096];
	FILE *p;
	size_t n;
	struct strbuf cmd = STRBUF_INIT;

	/* popen's own sh -c gets the line as one quoted word, then runs
	   it with a second sh -c, as sshd hands it to the login shell */
	strbuf_adds(&cmd, "/bin/sh -c ");
	sh_quote(&cmd, line);
	p = popen(cmd.buf, "r");
	strbuf_release(&cmd);
	if (p == NULL)
		return xstrdup("");
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		strbuf_add(&out, buf, n);
	pclose(p);
	return strbuf_detach(&out, NULL);
}

static void
test_remote_line_is_inert(void)
{
	static const char *const nasty[] = {
		"it's $HOME `id` $(id) \"q\" \\ ; & | < > * ? [a] ~ # !",
		"a\nb\tc",
		"'",
		"''\\''",
		"",
	};
	char dir[] = "/tmp/tbackend-ssh.XXXXXX", pwned[128];
	struct spec *s = load();
	struct backend *b;
	struct strvec env = STRVEC_INIT, argv = STRVEC_INIT, envp = STRVEC_INIT;
	struct strbuf want = STRBUF_INIT;
	char *cause = NULL, *got;
	size_t i;

	if (s == NULL)
		return;
	CHECK(mkdtemp(dir) != NULL);
	snprintf(pwned, sizeof pwned, "%s/pwned", dir);
	b = backend_create(s, &cause);
	CHECK(b != NULL);
	if (b == NULL) {
		free(cause);
		goto out;
	}
	for (i = 0; i < sizeof nasty / sizeof nasty[0]; i++) {
		strvec_pushf(&env, "V%zu=%s", i, nasty[i]);
		strbuf_addf(&want, "%s|", nasty[i]);
	}
	/* a value that would create a file if it were ever expanded */
	strvec_pushf(&env, "W=$(touch %s)", pwned);
	strbuf_addf(&want, "$(touch %s)|", pwned);
	b->ops->command(b, 0, "printf '%s|' \"$V0\" \"$V1\" \"$V2\" \"$V3\" \"$V4\" \"$W\"",
	    &env, &argv, &envp);
	got = remote(argv.v[argv.n - 1]);
	CHECKF(strcmp(got, want.buf) == 0, "got [%s], want [%s]", got, want.buf);
	CHECK(access(pwned, F_OK) != 0);
	free(got);
	backend_free(b);
out:
	unlink(pwned);
	rmdir(dir);
	strbuf_release(&want);
	strvec_release(&env);
	strvec_release(&argv);
	strvec_release(&envp);
	spec_free(s);
}

static const struct test tests[] = {
	{ "options-and-targets", test_options_and_targets },
	{ "remote-line-is-inert", test_remote_line_is_inert },
};

TEST_MAIN(tests)
