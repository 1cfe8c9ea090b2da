/*
 * tspec-backend.c — the spec's `backend:` section (cellar's own): types,
 * defaults, a hook set directory resolved against the spec file's own
 * directory (absolute, whatever the working directory) and quoted as one
 * shell word, single hooks overriding a set, ssh targets per node, and
 * every error at its file:line:col.
 */
#include <stdio.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "tspec.h"

#define CLUSTER								\
	"physicalCluster:\n"			/*  1 */		\
	"  cellTypes:\n"			/*  2 */		\
	"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n" \
	"  physicalCells:\n"			/*  4 */		\
	"  - {cellType: NODE, cellAddress: n1}\n"	/*  5 */	\
	"  - {cellType: NODE, cellAddress: n2}\n"	/*  6 */	\
	"virtualClusters:\n"			/*  7 */		\
	"  a: {virtualCells: [{cellType: NODE, cellNumber: 2}]}\n"	/* 8 */

static struct spec *
load_ok(const char *text, struct spec_diags *d)
{
	struct spec *s = load_str(text, d);

	CHECKF(s != NULL, "did not load: %.400s", all_diags(d));
	return s;
}

static void
test_default_is_emulator(void)
{
	struct spec_diags d;
	struct spec *s = load_ok(CLUSTER, &d);
	int i;

	if (s == NULL)
		goto out;
	CHECK(s->backend.type == SPEC_BACKEND_EMULATOR);
	for (i = 0; i < SPEC_NHOOKS; i++)
		CHECK(s->backend.hooks[i] == NULL);
	CHECK(s->backend.timeout == 30 && s->backend.retries == 2 &&
	    s->backend.backoff == 1 && s->backend.status_interval == 2 &&
	    s->backend.health_interval == 10 && s->backend.connect_timeout == 5 &&
	    s->backend.health_concurrency == 16);
out:
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_local_with_hooks_and_override(void)
{
	struct spec_diags d;
	struct spec *s;
	char cwd[4096], want[4200];

	s = load_ok(CLUSTER "backend:\n  type: local\n  hooks: hk\n"
	    "  stop: /bin/echo stopped\n  timeout: 0.5\n  retries: 0\n"
	    "  statusInterval: 0.25\n  rundir: /var/tmp/x\n"
	    "  healthConcurrency: 3\n", &d);
	if (s == NULL)
		goto out;
	CHECK(s->backend.type == SPEC_BACKEND_LOCAL);
	/* t.yaml has no directory part: its directory is the working one,
	   made absolute, and the path is one quoted word */
	CHECK(getcwd(cwd, sizeof cwd) != NULL);
	snprintf(want, sizeof want, "'%s/hk/start'", cwd);
	CHECKF(strcmp(s->backend.hooks[SPEC_HOOK_START], want) == 0, "start [%s], want [%s]",
	    s->backend.hooks[SPEC_HOOK_START], want);
	/* hk has no files: the optional hooks are not taken from it */
	CHECK(s->backend.hooks[SPEC_HOOK_MIGRATE] == NULL);
	CHECK(s->backend.hooks[SPEC_HOOK_SUSPEND] == NULL);
	CHECK(strcmp(s->backend.hooks[SPEC_HOOK_STOP], "/bin/echo stopped") == 0);
	CHECK(s->backend.timeout == 0.5 && s->backend.retries == 0 &&
	    s->backend.status_interval == 0.25);
	CHECK(strcmp(s->backend.rundir, "/var/tmp/x") == 0);
	CHECK(s->backend.health_concurrency == 3);
out:
	spec_free(s);
	spec_diags_release(&d);
}

/* A spec file in a directory: hooks found from there, not from the cwd. */
static void
test_hooks_relative_to_file(void)
{
	char dir[] = "/tmp/tspec-backend.XXXXXX", path[256], want[512];
	char *real = NULL;
	struct spec_diags d;
	struct spec *s = NULL;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/c.yaml", dir);
	if ((f = fopen(path, "w")) == NULL) {
		CHECK(!"cannot write the spec file");
		return;
	}
	fputs(CLUSTER "backend: {type: local, hooks: sets/p}\n", f);
	fclose(f);
	spec_diags_init(&d);
	s = spec_load(path, &d);
	CHECKF(s != NULL, "%.300s", all_diags(&d));
	real = realpath(dir, NULL);
	snprintf(want, sizeof want, "'%s/sets/p/status'", real ? real : dir);
	if (s != NULL)
		CHECKF(strcmp(s->backend.hooks[SPEC_HOOK_STATUS], want) == 0,
		    "[%s] want [%s]", s->backend.hooks[SPEC_HOOK_STATUS], want);
	spec_free(s);
	spec_diags_release(&d);
	free(real);
	unlink(path);
	rmdir(dir);
}

/* suspend and resume are optional, both or neither; null turns a set's
   own off (preemption then stops the job) */
static void
test_optional_hooks(void)
{
	char dir[] = "/tmp/tspec-hooks.XXXXXX", path[256];
	struct strbuf text = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;
	FILE *f;
	int i;

	/* a set with every hook's file: the optional ones are taken */
	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < SPEC_NHOOKS; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, spec_hook_names[i]);
		if ((f = fopen(path, "w")) != NULL)
			fclose(f);
	}
	strbuf_addf(&text, CLUSTER "backend:\n  type: local\n  hooks: %s\n", dir);
	s = load_ok(text.buf, &d);
	if (s != NULL) {
		snprintf(path, sizeof path, "'%s/migrate'", dir);
		CHECK(strcmp(s->backend.hooks[SPEC_HOOK_MIGRATE], path) == 0);
		CHECK(s->backend.hooks[SPEC_HOOK_SUSPEND] != NULL &&
		    s->backend.hooks[SPEC_HOOK_RESUME] != NULL);
	}
	spec_free(s);
	spec_diags_release(&d);
	strbuf_addf(&text, "  suspend: ~\n  resume:\n  migrate: ~\n");
	s = load_ok(text.buf, &d);
	if (s != NULL) {
		CHECK(s->backend.hooks[SPEC_HOOK_SUSPEND] == NULL);
		CHECK(s->backend.hooks[SPEC_HOOK_RESUME] == NULL);
		CHECK(s->backend.hooks[SPEC_HOOK_MIGRATE] == NULL);
		snprintf(path, sizeof path, "'%s/stop'", dir);
		CHECK(strcmp(s->backend.hooks[SPEC_HOOK_STOP], path) == 0);
	}
	spec_free(s);
	spec_diags_release(&d);
	/* one of the pair turned off */
	strbuf_reset(&text);
	strbuf_addf(&text, CLUSTER "backend:\n  type: local\n  hooks: %s\n"
	    "  resume: ~\n", dir);
	CHECK_LOAD_FAILS(text.buf, "t.yaml:10:",
	    "backend has a 'suspend' hook but no 'resume' hook (both or neither)");
	for (i = 0; i < SPEC_NHOOKS; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, spec_hook_names[i]);
		unlink(path);
	}
	rmdir(dir);
	strbuf_release(&text);
	s = load_ok(CLUSTER "backend:\n  type: local\n  start: a\n  stop: b\n"
	    "  status: c\n  health: d\n", &d);
	if (s != NULL)
		CHECK(s->backend.hooks[SPEC_HOOK_SUSPEND] == NULL &&
		    s->backend.hooks[SPEC_HOOK_RESUME] == NULL);
	spec_free(s);
	spec_diags_release(&d);
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: /h\n"
	    "  resume: /bin/true\n", "t.yaml:10:",
	    "has a 'resume' hook but no 'suspend' hook");
	/* null is "none" only for the optional hooks */
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: /h\n"
	    "  stop: ~\n", "t.yaml:12:", "'stop' must be a non-empty string");
}

static void
test_ssh_targets(void)
{
	struct spec_diags d;
	struct spec *s;

	s = load_ok(CLUSTER "backend:\n  type: ssh\n  hooks: /opt/h\n"
	    "  ssh: {user: ops, port: 2222, identityFile: /k, config: /c}\n"
	    "  nodes:\n    n2: {host: 127.0.0.3, port: 22}\n", &d);
	if (s == NULL)
		goto out;
	CHECK(s->backend.type == SPEC_BACKEND_SSH);
	CHECK(strcmp(s->backend.hooks[SPEC_HOOK_HEALTH], "'/opt/h/health'") == 0);
	CHECK(strcmp(s->backend.ssh.user, "ops") == 0 && s->backend.ssh.port == 2222 &&
	    strcmp(s->backend.ssh.identity, "/k") == 0 &&
	    strcmp(s->backend.ssh.config, "/c") == 0);
	CHECK(s->backend.nodes != NULL);
	if (s->backend.nodes != NULL) {
		CHECK(s->backend.nodes[0].host == NULL);
		CHECK(strcmp(s->backend.nodes[1].host, "127.0.0.3") == 0 &&
		    s->backend.nodes[1].port == 22);
	}
out:
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_errors(void)
{
	CHECK_LOAD_FAILS(CLUSTER "backend: {type: cloud}\n", "t.yaml:9:",
	    "unknown backend type 'cloud'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  hooks: h\n", "t.yaml:10:",
	    "missing 'type' in 'backend'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  start: x\n", "t.yaml:10:",
	    "needs a 'stop' hook");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: ssh\n  hooks: h\n"
	    "  nodes:\n    n3: {host: h}\n", "t.yaml:13:5: error: ",
	    "unknown node 'n3' in 'backend.nodes'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: ssh\n  hooks: h\n"
	    "  nodes:\n    n1: {host: -oProxyCommand=x}\n", "t.yaml:13:16: error: ",
	    "bad host '-oProxyCommand=x'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: ssh\n  hooks: h\n"
	    "  ssh: {user: 'a b'}\n", "t.yaml:12:",
	    "bad user name 'a b'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: ssh\n  hooks: h\n"
	    "  ssh: {port: 70000}\n", "t.yaml:12:",
	    "'port' must be a port number");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: h\n"
	    "  timeout: -1\n", "t.yaml:12:",
	    "'timeout' must be a number");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: h\n"
	    "  retries: lots\n", "t.yaml:12:",
	    "'retries' must be a whole number");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: h\n"
	    "  healthConcurrency: 0\n", "t.yaml:12:",
	    "'healthConcurrency' must be a whole number from 1 to 100000, not '0'");
	CHECK_LOAD_FAILS(CLUSTER "backend:\n  type: local\n  hooks: h\n"
	    "  ssh: {host: x}\n", "t.yaml:12:",
	    "'host' belongs in a node's entry");
}

/* Node names that could reach a shell or ssh as an option are refused
   when hooks run, and fine for the emulator. */
static void
test_node_names(void)
{
	const char *bad = "physicalCluster:\n  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
	    "  physicalCells:\n  - {cellType: NODE, cellAddress: 'n$1'}\n"
	    "virtualClusters:\n  a: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n";
	struct strbuf sb = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s = load_str(bad, &d);

	CHECKF(s != NULL, "emulator: %.300s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
	strbuf_adds(&sb, bad);
	strbuf_adds(&sb, "backend: {type: local, hooks: h}\n");
	CHECK_LOAD_FAILS(sb.buf, "t.yaml:8:",
	    "node name 'n$1' cannot be handed to hooks");
	strbuf_release(&sb);
}

static const struct test tests[] = {
	{ "default-is-emulator", test_default_is_emulator },
	{ "local-with-hooks-and-override", test_local_with_hooks_and_override },
	{ "hooks-relative-to-file", test_hooks_relative_to_file },
	{ "optional-hooks", test_optional_hooks },
	{ "ssh-targets", test_ssh_targets },
	{ "errors", test_errors },
	{ "node-names", test_node_names },
};

TEST_MAIN(tests)
