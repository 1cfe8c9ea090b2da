/*
 * backend.c — the hook-based backends behind struct backend_ops: `local`
 * (hooks run here with sh -c) and `ssh` (hooks run on the node through the
 * OpenSSH client, one multiplexed connection per node). Both hand the job
 * to the hook in environment variables; only ssh needs a command line for
 * the remote shell, and builds it with sh_quote alone.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/shquote.h"
#include "core/xmalloc.h"

/* ---- local ---- */

/*
 * A hook must not outlive the cellar that ran it: a server killed with
 * SIGKILL while a stop hook waits would leave it running beside the next
 * server's hooks for the same pod (a late 'rm pid' of the old stop once
 * made a restarted job look absent, and it ran twice). The queue holds
 * the hook's stdin open while the run lasts (hold_stdin); a watchdog in
 * the hook's process group reads it and kills the group at end-of-file,
 * which comes only when cellar dies first. A hook that ends by itself
 * stops the watchdog; what it started in a session of its own (the
 * process set's job) lives on. The watchdog reads with the shell's own
 * read, so stopping it leaves no orphan behind.
 */
static const char local_watch[] =
    "exec 3<&0; /bin/sh -c \"$1\" </dev/null 3<&- & p=$!; "
    "{ while read -r _ <&3; do :; done; kill -KILL 0; } >/dev/null 2>&1 & "
    "w=$!; exec 3<&-; wait $p; s=$?; kill $w 2>/dev/null; wait $w 2>/dev/null; exit $s";

static void
local_command(const struct backend *b, int node, const char *cmd,
    const struct strvec *env, struct strvec *argv, struct strvec *envp)
{
	size_t i;

	(void)b;
	(void)node;
	strvec_push(argv, "/bin/sh");
	strvec_push(argv, "-c");
	strvec_push(argv, local_watch);
	strvec_push(argv, "sh");
	strvec_push(argv, cmd);
	for (i = 0; i < env->n; i++)
		strvec_push(envp, env->v[i]);
}

const struct backend_ops backend_local = {
	.name = "local",
	.command = local_command,
	.hold_stdin = true,
};

/* ---- ssh ---- */

struct ssh_state {
	char	*control_dir;	/* ControlPath directory, 0700 */
};

/*
 * The sockets in the ControlPath directory are logged-in connections to
 * every node: whoever can put a socket there (or swap the directory) can
 * hand our hooks to a connection of theirs. So it must be a real
 * directory (not a symlink), ours, and writable by nobody else.
 */
static int
control_dir_check(const char *dir, char **cause)
{
	struct stat sb;

	if (lstat(dir, &sb) != 0) {
		*cause = xasprintf("cannot use ssh control directory '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode)) {
		*cause = xasprintf("ssh control directory '%s' is not a directory", dir);
		return -1;
	}
	if (sb.st_uid != geteuid()) {
		*cause = xasprintf("ssh control directory '%s' is owned by uid %lu, "
		    "not by us (uid %lu)", dir, (unsigned long)sb.st_uid,
		    (unsigned long)geteuid());
		return -1;
	}
	if ((sb.st_mode & 022) != 0) {
		*cause = xasprintf("ssh control directory '%s' is writable by group "
		    "or others (mode %04o)", dir, (unsigned)(sb.st_mode & 07777));
		return -1;
	}
	return 0;
}

static int
ssh_init(struct backend *b, char **cause)
{
	struct ssh_state *st = xcalloc(1, sizeof *st);
	const char *rt = getenv("XDG_RUNTIME_DIR");

	/* socket paths must stay short (sun_path): %C is a 40-char hash */
	if (rt != NULL && rt[0] == '/' && strlen(rt) < 40)
		st->control_dir = xasprintf("%s/cellar-ssh", rt);
	else
		st->control_dir = xasprintf("/tmp/cellar-ssh-%lu",
		    (unsigned long)getuid());
	if (mkdir(st->control_dir, 0700) != 0 && errno != EEXIST)
		*cause = xasprintf("cannot create ssh control directory '%s': %s",
		    st->control_dir, strerror(errno));
	else if (control_dir_check(st->control_dir, cause) == 0) {
		b->state = st;
		return 0;
	}
	free(st->control_dir);
	free(st);
	return -1;
}

static void
ssh_release(struct backend *b)
{
	struct ssh_state *st = b->state;

	if (st != NULL)
		free(st->control_dir);
	free(st);
}

/*
 * The remote side of a hook run. Killing the local ssh client (a timeout,
 * cellar killed) does not end what it started on the node: sshd sends no
 * signal to a session without a terminal. What the node does see is the
 * session's stdin reaching end-of-file (the hook queue keeps the client's
 * stdin open while the run lasts: hold_stdin). So the hook runs in its own
 * session (setsid: one process group), a watchdog reads stdin, and on
 * end-of-file before the hook is done it kills the hook's group. A hook
 * that ends by itself stops the watchdog first, so what it started in its
 * process group lives on, as with the local backend. Background jobs of a
 * non-interactive shell read /dev/null, hence stdin as fd 3.
 *
 * The end-of-file never comes when the client is killed while its session
 * is still being opened through a ControlMaster (the master forgets the
 * channel, the node runs the hook with stdin open): so the watchdog also
 * ends the hook itself one or two seconds after the spec's timeout ($2), which is
 * after cellar gave up on it (the node started it later than cellar did).
 */
static const char ssh_watch[] =
    "exec 3<&0; setsid /bin/sh -c \"$1\" </dev/null 3<&- & p=$!; "
    "{ timeout $2 cat <&3 >/dev/null 2>&1; kill -KILL -$p 2>/dev/null; } "
    ">/dev/null 2>&1 & w=$!; exec 3<&-; "
    "wait $p; s=$?; kill $w 2>/dev/null; exit $s";

/* The value of K in env ("K=V" strings), or NULL. */
static const char *
env_get(const struct strvec *env, const char *k)
{
	size_t i, n = strlen(k);

	for (i = 0; i < env->n; i++)
		if (strncmp(env->v[i], k, n) == 0 && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/*
 * ssh -o BatchMode=yes ... [-p PORT] [-l USER] [-i KEY] -- HOST 'exec
 * [sudo -n -u JOBUSER --] env K=V ... /bin/sh -c WATCH sh HOOK': every
 * word of the remote line quoted. A job's hooks run as its user
 * (CELLAR_USER) as backend.switchUser says: logged in as them (login),
 * or through sudo from the ssh user (sudo); node hooks as the ssh user.
 */
static void
ssh_command(const struct backend *b, int node, const char *cmd,
    const struct strvec *env, struct strvec *argv, struct strvec *envp)
{
	const struct spec_backend *sb = &b->spec->backend;
	const struct spec_ssh_target *t = sb->nodes ? &sb->nodes[node] : NULL;
	const struct ssh_state *st = b->state;
	const char *host = t && t->host ? t->host : b->spec->nodes[node].name;
	const char *user = t && t->user ? t->user : sb->ssh.user;
	const char *key = t && t->identity ? t->identity : sb->ssh.identity;
	int port = t && t->port ? t->port : sb->ssh.port;
	const char *job_user = env_get(env, "CELLAR_USER");
	struct strbuf line = STRBUF_INIT;
	size_t i;

	(void)envp;
	if (job_user != NULL && sb->switch_user == SPEC_SWITCH_LOGIN)
		user = job_user;
	else if (sb->switch_user != SPEC_SWITCH_SUDO)
		job_user = NULL;
	strvec_push(argv, "ssh");
	if (sb->ssh.config != NULL) {
		strvec_push(argv, "-F");
		strvec_push(argv, sb->ssh.config);
	}
	strvec_push(argv, "-o");
	strvec_push(argv, "BatchMode=yes");
	strvec_pushf(argv, "-oConnectTimeout=%d", (int)(sb->connect_timeout + 0.5));
	strvec_push(argv, "-oControlMaster=auto");
	strvec_pushf(argv, "-oControlPath=%s/%%C", st->control_dir);
	strvec_push(argv, "-oControlPersist=60");
	if (port > 0) {
		strvec_push(argv, "-p");
		strvec_pushf(argv, "%d", port);
	}
	if (user != NULL) {
		strvec_push(argv, "-l");
		strvec_push(argv, user);
	}
	if (key != NULL) {
		strvec_push(argv, "-i");
		strvec_push(argv, key);
		strvec_push(argv, "-oIdentitiesOnly=yes");
	}
	strvec_push(argv, "--");
	strvec_push(argv, host);
	strbuf_adds(&line, "exec ");
	if (job_user != NULL && user != job_user) {
		strbuf_adds(&line, "sudo -n -u ");
		sh_quote(&line, job_user);
		strbuf_adds(&line, " -- ");
	}
	strbuf_adds(&line, "env");
	for (i = 0; i < env->n; i++) {
		strbuf_addc(&line, ' ');
		sh_quote(&line, env->v[i]);
	}
	strbuf_adds(&line, " /bin/sh -c ");
	sh_quote(&line, ssh_watch);
	strbuf_adds(&line, " sh ");
	sh_quote(&line, cmd);
	strbuf_addf(&line, " %d", (int)b->spec->backend.timeout + 2);
	strvec_push(argv, line.buf);
	strbuf_release(&line);
}

const struct backend_ops backend_ssh = {
	.name = "ssh",
	.init = ssh_init,
	.release = ssh_release,
	.command = ssh_command,
	.hold_stdin = true,
};

struct backend *
backend_create(const struct spec *s, char **cause)
{
	struct backend *b;
	const struct backend_ops *ops;

	switch (s->backend.type) {
	case SPEC_BACKEND_LOCAL:
		ops = &backend_local;
		break;
	case SPEC_BACKEND_SSH:
		ops = &backend_ssh;
		break;
	default:
		*cause = xasprintf("spec '%s' has no backend for real jobs (add a "
		    "'backend:' section of type local or ssh)", s->path);
		return NULL;
	}
	b = xcalloc(1, sizeof *b);
	b->ops = ops;
	b->spec = s;
	if (ops->init != NULL && ops->init(b, cause) != 0) {
		free(b);
		return NULL;
	}
	return b;
}

void
backend_free(struct backend *b)
{
	if (b == NULL)
		return;
	if (b->ops->release != NULL)
		b->ops->release(b);
	free(b);
}
