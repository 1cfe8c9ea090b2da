/*
 * cmd-spec-import.c — `spec import slurm`: a spec for an existing Slurm
 * cluster. The text of `scontrol show node -o` and `scontrol show
 * topology` comes from scontrol itself or from files (--nodes,
 * --topology: a cluster captured elsewhere, and the tests' fixtures);
 * src/spec/slurm.c reads it, slurm-spec.c writes the spec, which is loaded here
 * with the spec loader before it is printed or written, so what the
 * command hands out always loads.
 */
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "core/xmalloc.h"
#include "spec/slurm.h"

/* Slurm's text of a very large cluster fits; more is not its text. */
#define IMPORT_MAX_INPUT	(64 << 20)
/* scontrol retries an unreachable controller for a while; not forever. */
#define IMPORT_TIMEOUT_MS	60000

extern char **environ;

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Run argv (found in PATH) with no input, its stdout into out and its
 * stderr into err, killed after IMPORT_TIMEOUT_MS. Returns its exit
 * status (128 + N for signal N), or -1 with *cause set if it cannot run.
 */
static int
run_capture(char *const argv[], struct strbuf *out, struct strbuf *err,
    char **cause)
{
	posix_spawn_file_actions_t fa;
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, status = 0, rc = -1, i;
	double deadline = now_ms() + IMPORT_TIMEOUT_MS;
	struct pollfd pfd[2];
	struct strbuf *sink[2] = { out, err };
	char buf[65536];
	bool killed = false;
	pid_t pid;
	ssize_t r;

	if (pipe(po) != 0 || pipe(pe) != 0) {
		*cause = xasprintf("cannot run '%s': %s", argv[0], strerror(errno));
		goto out;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, po[1], 1);
	posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
	posix_spawn_file_actions_addclose(&fa, po[0]);
	posix_spawn_file_actions_addclose(&fa, pe[0]);
	i = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(po[1]);
	close(pe[1]);
	po[1] = pe[1] = -1;
	if (i != 0) {
		*cause = xasprintf("cannot run '%s': %s", argv[0], strerror(i));
		goto out;
	}
	pfd[0].fd = po[0];
	pfd[1].fd = pe[0];
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		double left = deadline - now_ms();

		if (left <= 0 && !killed) {
			kill(pid, SIGKILL);
			killed = true;
		}
		pfd[0].events = pfd[1].events = POLLIN;
		if (poll(pfd, 2, left > 0 ? (int)left + 1 : 100) < 0 && errno != EINTR)
			break;
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || pfd[i].revents == 0)
				continue;
			r = read(pfd[i].fd, buf, sizeof buf);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0 || sink[i]->len + (size_t)r > IMPORT_MAX_INPUT) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				continue;
			}
			strbuf_add(sink[i], buf, (size_t)r);
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (killed) {
		*cause = xasprintf("'%s' did not finish in %d s", argv[0],
		    IMPORT_TIMEOUT_MS / 1000);
		goto out;
	}
	rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
	for (i = 0; i < 2; i++) {
		if (po[i] >= 0)
			close(po[i]);
		if (pe[i] >= 0)
			close(pe[i]);
	}
	return rc;
}

/* The first line of a command's stderr, for a message. */
static char *
first_line(const struct strbuf *sb)
{
	size_t n = strcspn(sb->buf, "\n");

	return n == 0 ? xstrdup("no message") : xstrndup(sb->buf, n > 200 ? 200 : n);
}

/* `scontrol show node -o` and `scontrol show topology` from Slurm. */
static int
ask_scontrol(struct cmd_ctx *ctx, struct strbuf *nodes, struct strbuf *topo,
    char **cause)
{
	static char *const node_argv[] = { "scontrol", "show", "node", "-o", NULL };
	static char *const topo_argv[] = { "scontrol", "show", "topology", NULL };
	struct strbuf err = STRBUF_INIT;
	char *msg;
	int st;

	if ((st = run_capture(node_argv, nodes, &err, cause)) != 0) {
		if (st > 0) {
			msg = first_line(&err);
			*cause = xasprintf("'scontrol show node -o' failed (exit %d): %s",
			    st, msg);
			free(msg);
		} else {
			msg = *cause;
			*cause = xasprintf("%s (Slurm's client; or give --nodes FILE)",
			    msg);
			free(msg);
		}
		strbuf_release(&err);
		return -1;
	}
	strbuf_reset(&err);
	/* No topology plugin: scontrol says so on stderr, status 0. */
	if ((st = run_capture(topo_argv, topo, &err, cause)) != 0) {
		if (st < 0) {
			cmd_note(ctx, "%s: no racks", *cause);
			free(*cause);
			*cause = NULL;
		} else {
			msg = first_line(&err);
			cmd_note(ctx, "'scontrol show topology' failed (exit %d): %s: no "
			    "racks", st, msg);
			free(msg);
		}
		strbuf_reset(topo);
	}
	strbuf_release(&err);
	return 0;
}

/* Write text to path through a temporary file, so a reader never sees
   half a spec. */
static int
write_spec(const char *path, const struct strbuf *text, bool force, char **cause)
{
	struct stat st;
	char *tmp;
	FILE *fp;
	int rc = -1;

	if (!force && stat(path, &st) == 0) {
		*cause = xasprintf("'%s' exists (--force replaces it)", path);
		return -1;
	}
	tmp = xasprintf("%s.tmp%ld", path, (long)getpid());
	if ((fp = fopen(tmp, "w")) == NULL) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fwrite(text->buf, 1, text->len, fp) != text->len || fflush(fp) != 0 ||
	    fsync(fileno(fp)) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		fclose(fp);
		unlink(tmp);
		goto out;
	}
	if (fclose(fp) != 0 || rename(tmp, path) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	return rc;
}

/* A VC name that needs no quoting anywhere (as node names). */
static bool
vc_name_ok(const char *s)
{
	size_t len = strlen(s);

	return len >= 1 && len <= 64 && ((s[0] >= 'a' && s[0] <= 'z') ||
	    (s[0] >= 'A' && s[0] <= 'Z')) && strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

/* The generated spec must load: anything else is this command's bug. */
static int
check_loads(const char *name, const struct strbuf *text, char **cause)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load_string(name, text->buf, text->len, &d);
	if (s == NULL)
		*cause = xasprintf("the imported spec does not load: %s",
		    d.n > 0 ? d.v[0].text : "no diagnostic");
	spec_free(s);
	spec_diags_release(&d);
	return s == NULL ? -1 : 0;
}

static const struct cmd_opt import_opts[] = {
	{ 0, "partition", "P", "only the nodes of Slurm partition P", VALUE_NONE },
	{ 0, "gpus-per-switch", "N", "a PCIe-switch level of N GPUs inside each node", VALUE_NONE },
	{ 0, "nodes", "FILE", "read scontrol show node -o's text from FILE, not scontrol", VALUE_FILE },
	{ 0, "topology", "FILE", "read scontrol show topology's text from FILE (with --nodes)", VALUE_FILE },
	{ 0, "hooks", "DIR", "the slurm hook set's directory in the spec (default hooks/slurm)", VALUE_FILE },
	{ 0, "vc", "NAME", "the example VC's name (default all)", VALUE_NONE },
	{ 0, "write", "FILE", "write the spec to FILE, not standard output", VALUE_FILE },
	{ 0, "force", NULL, "let --write replace an existing FILE", VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static void
summary_json(struct cmd_ctx *ctx, const struct slurm_summary *sum,
    const char *file, const struct strbuf *text)
{
	struct json j;

	cmd_json_begin(ctx, &j, "spec-import");
	json_kv_string(&j, "source", "slurm");
	json_kv_string(&j, "file", file);
	json_kv_int(&j, "nodes", sum->nodes);
	json_kv_int(&j, "gpus", sum->gpus);
	json_kv_int(&j, "chains", sum->chains);
	json_kv_int(&j, "racks", sum->racks);
	json_kv_int(&j, "skipped", sum->skipped);
	json_kv_int(&j, "unhealthy", sum->unhealthy);
	json_kv_int(&j, "other_partitions", sum->other_partitions);
	json_kv_string(&j, "spec", file == NULL ? text->buf : NULL);
	cmd_json_end(ctx, &j);
}

static void
summary_text(struct strbuf *sb, const struct slurm_summary *sum)
{
	strbuf_addf(sb, "%d node%s, %lld GPUs, %d chain%s, %d rack%s",
	    sum->nodes, sum->nodes == 1 ? "" : "s", sum->gpus, sum->chains,
	    sum->chains == 1 ? "" : "s", sum->racks, sum->racks == 1 ? "" : "s");
	if (sum->unhealthy > 0)
		strbuf_addf(sb, " (%d down or drained in Slurm)", sum->unhealthy);
	if (sum->skipped > 0)
		strbuf_addf(sb, "; %d node%s without cells (no GPUs, ...)",
		    sum->skipped, sum->skipped == 1 ? "" : "s");
	if (sum->other_partitions > 0)
		strbuf_addf(sb, "; %d in other partitions", sum->other_partitions);
}

static int
spec_import_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const char *src = args_value(a, 0), *nodes_file = args_get(a, "nodes");
	const char *topo_file = args_get(a, "topology"), *file = args_get(a, "write");
	struct strbuf nodes = STRBUF_INIT, topo = STRBUF_INIT, text = STRBUF_INIT;
	struct strbuf what = STRBUF_INIT, line = STRBUF_INIT;
	struct slurm_import im;
	struct slurm_summary sum;
	struct slurm_cluster c;
	int rc = -1;

	memset(&im, 0, sizeof im);
	if (strcmp(src, "slurm") != 0) {
		*cause = xasprintf("unknown source '%s' (slurm)", src);
		return cmd_usage_error(ctx);
	}
	if (topo_file != NULL && nodes_file == NULL) {
		*cause = xstrdup("--topology needs --nodes (scontrol gives both)");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "force") && file == NULL) {
		*cause = xstrdup("--force needs --write");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "gpus-per-switch")) {
		im.gpus_per_switch = (int)args_strtonum(a, "gpus-per-switch", 1, 4096,
		    cause);
		if (*cause != NULL)
			return cmd_usage_error(ctx);
	}
	im.partition = args_get(a, "partition");
	if (im.partition != NULL && im.partition[0] == '\0') {
		*cause = xstrdup("empty partition name");
		return cmd_usage_error(ctx);
	}
	im.hooks = args_has(a, "hooks") ? args_get(a, "hooks") : "hooks/slurm";
	if (im.hooks[0] == '\0') {
		*cause = xstrdup("empty hooks directory");
		return cmd_usage_error(ctx);
	}
	im.vc = args_has(a, "vc") ? args_get(a, "vc") : "all";
	if (!vc_name_ok(im.vc)) {
		*cause = xasprintf("bad VC name '%s' (a letter, then letters, digits, "
		    "'.', '_' or '-')", im.vc);
		return cmd_usage_error(ctx);
	}

	/* Reading: a file or scontrol; bad text is a configuration error. */
	slurm_cluster_init(&c);
	ctx->status = CMD_EXIT_SPEC;
	if (nodes_file != NULL) {
		if (strbuf_read_file(&nodes, nodes_file, IMPORT_MAX_INPUT,
		    cause) != 0 || (topo_file != NULL && strbuf_read_file(&topo,
		    topo_file, IMPORT_MAX_INPUT, cause) != 0))
			goto out;
		strbuf_addf(&what, "%s%s%s", nodes_file, topo_file ? ", " : "",
		    topo_file ? topo_file : "");
	} else {
		if (ask_scontrol(ctx, &nodes, &topo, cause) != 0) {
			ctx->status = CMD_EXIT_FAIL;
			goto out;
		}
		nodes_file = "scontrol show node -o";
		topo_file = "scontrol show topology";
		strbuf_addf(&what, "%s, %s", nodes_file, topo_file);
	}
	im.source = what.buf;
	if (slurm_parse_nodes(&c, nodes.buf, nodes.len, nodes_file, cause) != 0 ||
	    (topo_file != NULL && slurm_parse_topology(&c, topo.buf, topo.len,
	    topo_file, cause) != 0))
		goto out;
	if (slurm_render(&c, &im, &text, &sum, cause) != 0 ||
	    check_loads(file != NULL ? file : "spec import", &text, cause) != 0)
		goto out;

	ctx->status = CMD_EXIT_FAIL;
	if (file != NULL && write_spec(file, &text, args_has(a, "force"), cause) != 0)
		goto out;
	summary_text(&line, &sum);
	if (ctx->out.format == OUT_JSON)
		summary_json(ctx, &sum, file, &text);
	else if (file != NULL)
		strbuf_addf(ctx->o, "wrote '%s': %s\n", file, line.buf);
	else {
		strbuf_add(ctx->o, text.buf, text.len);
		cmd_note(ctx, "imported %s", line.buf);
	}
	rc = 0;
out:
	slurm_cluster_release(&c);
	strbuf_release(&nodes);
	strbuf_release(&topo);
	strbuf_release(&text);
	strbuf_release(&what);
	strbuf_release(&line);
	return rc;
}

const struct cmd_entry cmd_spec_import_entry = {
	.name = "spec import",
	.opts = import_opts,
	.min = 1, .max = 1,
	.arg_kind = VALUE_NONE,
	.usage = "slurm [--partition P] [--gpus-per-switch N] [--nodes FILE "
	    "[--topology FILE]] [--hooks DIR] [--vc NAME] [--write FILE [--force]]",
	.summary = "write a spec for an existing Slurm cluster",
	.help =
	    "Write a spec (HiveD's format, see cellar-spec(5)) for the Slurm "
	    "cluster that scontrol reaches: one node cell per Slurm node with "
	    "GPUs, its GPU count and leaf type from the node's Gres= "
	    "(gpu:a100:8 gives 8 GPUs of type A100, an untyped gpu:4 type GPU), "
	    "one node-level type per GPU type and count; racks from 'scontrol "
	    "show topology' when Slurm has a topology (one rack cell per lowest "
	    "switch and node type); the backend section of the slurm hook set "
	    "(specs/hooks/slurm); and one example VC owning every cell. Comments "
	    "in the spec say what to edit. Nodes without GPUs are left out, "
	    "named in a comment; nodes Slurm has DOWN or DRAIN are kept, "
	    "commented.\n"
	    "--nodes FILE reads the text of 'scontrol show node -o' (or of "
	    "'scontrol show node') from FILE instead of running scontrol, and "
	    "--topology FILE that of 'scontrol show topology'. --partition P "
	    "keeps the nodes of partition P. --gpus-per-switch N adds a level "
	    "of N-GPU PCIe switches inside the nodes whose GPU count it "
	    "divides. --hooks DIR is written as the hook directory (default "
	    "hooks/slurm, relative to the spec), --vc NAME names the example "
	    "VC (default all).\n"
	    "The spec goes to standard output, or to FILE with --write (never "
	    "over an existing file without --force), and is loaded first: what "
	    "is written always loads. Exits with status 3 for text that is not "
	    "scontrol's (the message names the line) or with nothing to import, "
	    "1 when scontrol fails or FILE cannot be written, 2 for a bad "
	    "option.",
	.examples = (const char *const []){
		"spec import slurm --nodes tests/fixtures/slurm/cluster64.nodes "
		    "--topology tests/fixtures/slurm/cluster64.topology",
		"spec import slurm --partition a100 --gpus-per-switch 2 "
		    "--nodes tests/fixtures/slurm/cluster64.nodes",
		NULL },
	.flags = 0,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = spec_import_exec,
};
