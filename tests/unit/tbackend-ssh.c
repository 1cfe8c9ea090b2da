/*
 * tbackend-ssh.c — the ssh backend's command line: the OpenSSH options
 * (BatchMode, ConnectTimeout, ControlMaster/ControlPersist on a private
 * socket directory), the node's target (host, user, port, identity) over
 * the backend's defaults, and the one remote command line. That line is
 * what the node's shell runs, so the test runs it through a real
 * `sh -c` here and checks that the hook sees every variable byte for
 * byte, shell metacharacters included, and that nothing else ran.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
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

/* SPEC with more backend keys after it */
static struct spec *
load_with(const char *more)
{
	struct spec_diags d;
	struct spec *s;
	char *text = xasprintf("%s%s", SPEC, more);

	spec_diags_init(&d);
	s = spec_load_string("t.yaml", text, strlen(text), &d);
	CHECKF(s != NULL, "spec did not load (%zu diagnostics)", d.n);
	spec_diags_release(&d);
	free(text);
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
	    "/bin/sh -c '") != NULL, "%s", got);
	/* the node's own deadline: the default timeout (30 s) and 2 */
	CHECKF(strstr(got, "' sh '/opt/h/start' 32]") != NULL, "%s", got);
	CHECK(b->ops->hold_stdin);
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

/*
 * backend.switchUser: a job's hooks (CELLAR_USER in their environment)
 * log in as its user (login, the default), or as the ssh user and then
 * sudo -n -u USER (sudo), or as the ssh user alone (none); a node hook
 * (no CELLAR_USER) always as the ssh user.
 */
static void
test_switch_user(void)
{
	static const char *const modes[] = { "", "  switchUser: sudo\n",
	    "  switchUser: none\n" };
	static const char *const want[] = {
		"[-l] [al ice] [-i] [/k/id] [-oIdentitiesOnly=yes] [--] [n1] "
		"[exec env 'CELLAR_USER=al ice' ",
		"[-l] [ops] [-i] [/k/id] [-oIdentitiesOnly=yes] [--] [n1] "
		"[exec sudo -n -u 'al ice' -- env 'CELLAR_USER=al ice' ",
		"[-l] [ops] [-i] [/k/id] [-oIdentitiesOnly=yes] [--] [n1] "
		"[exec env 'CELLAR_USER=al ice' ",
	};
	struct strvec env = STRVEC_INIT, none = STRVEC_INIT, argv = STRVEC_INIT,
	    envp = STRVEC_INIT;
	struct spec_diags d;
	struct strbuf text = STRBUF_INIT;
	struct backend *b;
	struct spec *s;
	char *cause = NULL, *got;
	int m;

	strvec_push(&env, "CELLAR_USER=al ice");
	strvec_push(&none, "CELLAR_NODE=n1");
	for (m = 0; m < 3; m++) {
		strbuf_reset(&text);
		strbuf_addf(&text, "%s%s", SPEC, modes[m]);
		spec_diags_init(&d);
		s = spec_load_string("t.yaml", text.buf, text.len, &d);
		spec_diags_release(&d);
		CHECKF(s != NULL, "mode %d did not load", m);
		if (s == NULL || (b = backend_create(s, &cause)) == NULL) {
			free(cause);
			cause = NULL;
			spec_free(s);
			continue;
		}
		b->ops->command(b, 0, "/opt/h/start", &env, &argv, &envp);
		got = joined(&argv);
		CHECKF(strstr(got, want[m]) != NULL, "mode %d: %s", m, got);
		free(got);
		strvec_release(&argv);
		b->ops->command(b, 0, "/opt/h/health", &none, &argv, &envp);
		got = joined(&argv);
		CHECKF(strstr(got, "[-l] [ops] [-i] [/k/id] [-oIdentitiesOnly=yes] "
		    "[--] [n1] [exec env 'CELLAR_NODE=n1' ") != NULL, "mode %d: %s",
		    m, got);
		free(got);
		strvec_release(&argv);
		backend_free(b);
		spec_free(s);
	}
	strbuf_release(&text);
	strvec_release(&env);
	strvec_release(&none);
	strvec_release(&envp);
}

/*
 * Run the remote line as the node's login shell would (sh -c LINE), its
 * stdin a pipe held open as the ssh session's is while the client lives;
 * close_stdin: closed once the line has written its first byte (the
 * client killed mid-run). Its stdout; *status its exit status.
 */
static char *
remote_run(const char *line, bool close_stdin, int *status)
{
	struct strbuf out = STRBUF_INIT;
	char buf[4096];
	int in[2], o[2], st = -1, fd;
	ssize_t n;
	pid_t pid;

	if (pipe(in) != 0 || pipe(o) != 0)
		return xstrdup("");
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(o[1], 1);
		/* the shell's "Killed" notes are not the test's output */
		if ((fd = open("/dev/null", O_WRONLY)) >= 0)
			dup2(fd, 2);
		close(in[0]);
		close(in[1]);
		close(o[0]);
		close(o[1]);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(o[1]);
	while ((n = read(o[0], buf, sizeof buf)) > 0) {
		strbuf_add(&out, buf, (size_t)n);
		if (close_stdin && in[1] >= 0) {
			close(in[1]);
			in[1] = -1;
		}
	}
	close(o[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return strbuf_detach(&out, NULL);
}

static char *
remote(const char *line)
{
	int st;

	return remote_run(line, false, &st);
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

/*
 * The remote watchdog: a hook ends with its own exit status while the
 * session lasts; when the session's stdin ends first (the ssh client was
 * killed at a timeout), the hook's whole process group is killed on the
 * node instead of running on.
 */
static void
test_remote_hook_dies_with_session(void)
{
	struct spec *s = load();
	struct backend *b;
	struct strvec env = STRVEC_INIT, argv = STRVEC_INIT, envp = STRVEC_INIT;
	char *cause = NULL, *got;
	int st;
	pid_t child;

	if (s == NULL)
		return;
	b = backend_create(s, &cause);
	CHECK(b != NULL);
	if (b == NULL) {
		free(cause);
		goto out;
	}
	/* the session lasts: output and exit status come through */
	b->ops->command(b, 0, "echo hello; exit 3", &env, &argv, &envp);
	got = remote_run(argv.v[argv.n - 1], false, &st);
	CHECKF(strcmp(got, "hello\n") == 0, "got [%s]", got);
	CHECKF(st == 3, "status %d", st);
	free(got);
	strvec_release(&argv);
	/* stdin ends while the hook (and a child of it) sleep: both killed;
	   the sleeps would outlast any wait of this test by far */
	b->ops->command(b, 0, "sleep 300 & echo $!; exec sleep 301", &env, &argv,
	    &envp);
	got = remote_run(argv.v[argv.n - 1], true, &st);
	CHECKF(st == 128 + 9, "status %d (output [%s])", st, got);
	child = (pid_t)atol(got);
	CHECKF(child > 0, "no pid in [%s]", got);
	/* the background sleep was in the hook's group: gone (or a zombie
	   nobody reaps in a container without init). SIGKILL to a group is
	   not instant: a loaded machine showed it still running (R) as the
	   session ended, so it gets up to 10 s to die */
	if (child > 0) {
		char path[64], stat[256];
		FILE *f;
		int tries;

		snprintf(path, sizeof path, "/proc/%ld/stat", (long)child);
		for (tries = 0; tries < 1000 && kill(child, 0) == 0; tries++) {
			stat[0] = '\0';
			if ((f = fopen(path, "r")) != NULL) {
				if (fgets(stat, sizeof stat, f) == NULL)
					stat[0] = '\0';
				fclose(f);
			}
			if (strstr(stat, ") Z ") != NULL)
				break;
			nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
		}
		CHECKF(kill(child, 0) != 0 || strstr(stat, ") Z ") != NULL,
		    "pid %ld lives on: %s", (long)child, stat);
	}
	free(got);
	strvec_release(&argv);
	backend_free(b);
	spec_free(s);
	/* stdin never ends (the client died while a ControlMaster was still
	   opening its session): the node ends the hook itself at its own
	   deadline, timeout 0.5 s + 2 (and an int's truncation) */
	if ((s = load_with("  timeout: 0.5\n")) == NULL)
		goto out;
	if ((b = backend_create(s, &cause)) == NULL) {
		CHECKF(0, "%s", cause);
		free(cause);
		goto out;
	}
	b->ops->command(b, 0, "exec sleep 30", &env, &argv, &envp);
	CHECKF(strstr(argv.v[argv.n - 1], "' sh 'exec sleep 30' 2") != NULL,
	    "%s", argv.v[argv.n - 1]);
	got = remote_run(argv.v[argv.n - 1], false, &st);
	CHECKF(st == 128 + 9, "status %d (output [%s])", st, got);
	free(got);
	backend_free(b);
out:
	strvec_release(&env);
	strvec_release(&argv);
	strvec_release(&envp);
	spec_free(s);
}

/*
 * The ControlPath directory holds logged-in connections to every node:
 * one writable by others, a symlink, or (as root, where chown works) one
 * owned by someone else is refused with a message naming it.
 */
static void
test_control_dir_checked(void)
{
	char rt[] = "/tmp/tbssh.XXXXXX", dir[64], other[64];
	const char *saved = getenv("XDG_RUNTIME_DIR");
	char *keep = saved ? xstrdup(saved) : NULL;
	struct spec *s = load();
	struct backend *b;
	char *cause = NULL;

	if (s == NULL || mkdtemp(rt) == NULL) {
		CHECK(false);
		goto out;
	}
	snprintf(dir, sizeof dir, "%s/cellar-ssh", rt);
	snprintf(other, sizeof other, "%s/elsewhere", rt);
	setenv("XDG_RUNTIME_DIR", rt, 1);
	/* made 0700 on first use, and accepted */
	b = backend_create(s, &cause);
	CHECKF(b != NULL, "%s", cause ? cause : "");
	backend_free(b);
	chmod(dir, 0777);
	b = backend_create(s, &cause);
	CHECK(b == NULL);
	CHECKF(cause != NULL && strstr(cause, "is writable by group or others "
	    "(mode 0777)") != NULL && strstr(cause, dir) != NULL, "%s",
	    cause ? cause : "");
	free(cause);
	cause = NULL;
	chmod(dir, 0700);
	if (geteuid() == 0) {
		CHECK(chown(dir, 65534, 65534) == 0);
		b = backend_create(s, &cause);
		CHECK(b == NULL);
		CHECKF(cause != NULL && strstr(cause, "is owned by uid 65534, not by "
		    "us") != NULL, "%s", cause ? cause : "");
		free(cause);
		cause = NULL;
	}
	rmdir(dir);
	CHECK(mkdir(other, 0700) == 0);
	CHECK(symlink(other, dir) == 0);
	b = backend_create(s, &cause);
	CHECK(b == NULL);
	CHECKF(cause != NULL && strstr(cause, "is not a directory") != NULL, "%s",
	    cause ? cause : "");
	free(cause);
	unlink(dir);
	rmdir(other);
	rmdir(rt);
out:
	if (keep != NULL)
		setenv("XDG_RUNTIME_DIR", keep, 1);
	else
		unsetenv("XDG_RUNTIME_DIR");
	free(keep);
	spec_free(s);
}

static const struct test tests[] = {
	{ "options-and-targets", test_options_and_targets },
	{ "switch-user", test_switch_user },
	{ "remote-line-is-inert", test_remote_line_is_inert },
	{ "remote-hook-dies-with-session", test_remote_hook_dies_with_session },
	{ "control-dir-checked", test_control_dir_checked },
};

TEST_MAIN(tests)
