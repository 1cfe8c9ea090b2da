/*
 * hookq.c — the hook runner (see backend.h): children started with
 * posix_spawnp in their own process group (no fork: a server's page
 * tables are not copied for each hook, nor its heap faulted in again), their merged stdout/stderr read
 * through a non-blocking pipe, reaped with waitpid(WNOHANG), killed at the
 * timeout, retried after a doubling backoff. Nothing here blocks except
 * hookq_wait, which polls for at most the time it is given.
 *
 * A run's life:
 *
 *   WAITING --(due)--> RUNNING --(exit 0)--------------------> done
 *      ^                  |  \--(exit != 0, timeout; tries left)--> WAITING
 *      |                  \----(exit != 0, timeout; last try)----> done
 */
#define _GNU_SOURCE	/* posix_spawn_file_actions_addclosefrom_np */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "core/xmalloc.h"

struct run {
	struct hook_req	 req;
	pid_t		 pid;		/* > 0 while the child runs */
	int		 fd;		/* its output, -1 once closed */
	int		 in;		/* its stdin's write end (hold_stdin),
					   -1: none; closed when it is reaped */
	bool		 exited;	/* reaped; fd may still hold output */
	int		 status;
	bool		 timed_out;
	int		 attempts;
	double		 due;		/* start at (WAITING) */
	double		 deadline;	/* kill at (RUNNING) */
	double		 eof_by;	/* > 0: reaped, output read until EOF or
					   then (HOOK_EOF_GRACE) */
	struct strbuf	 out;
	size_t		 dropped;
};

struct hookq {
	const struct backend	*b;
	struct run		**runs;
	int			 n;
	size_t			 cap;
	bool			 hold;		/* start nothing (hookq_hold) */
};

struct hookq *
hookq_create(const struct backend *b)
{
	struct hookq *q = xcalloc(1, sizeof *q);

	q->b = b;
	return q;
}

static void
run_free(struct run *r)
{
	if (r->pid > 0) {
		kill(-r->pid, SIGKILL);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (r->fd >= 0)
		close(r->fd);
	if (r->in >= 0)
		close(r->in);
	strvec_release(&r->req.env);
	strbuf_release(&r->out);
	free(r);
}

void
hookq_free(struct hookq *q)
{
	int i;

	if (q == NULL)
		return;
	for (i = 0; i < q->n; i++)
		run_free(q->runs[i]);
	free(q->runs);
	free(q);
}

void
hookq_submit(struct hookq *q, struct hook_req *req)
{
	struct run *r = xcalloc(1, sizeof *r);

	r->req = *req;
	memset(&req->env, 0, sizeof req->env);
	r->fd = -1;
	r->in = -1;
	r->due = 0;
	strbuf_init(&r->out);
	XGROW(q->runs, q->cap, (size_t)q->n + 1);
	q->runs[q->n++] = r;
}

void
hookq_hold(struct hookq *q, bool hold)
{
	q->hold = hold;
}

int
hookq_pending(const struct hookq *q)
{
	return q->n;
}

extern char **environ;

/*
 * Start argv in a process group of its own, stdin from in (-1:
 * /dev/null), stdout and stderr to out, no other descriptor, signals at
 * their defaults, this environment with envp's entries over it. 0 with
 * *pid, or -1 with errno.
 */
static int
spawn(const struct strvec *argv, const struct strvec *envp, int in, int out,
    pid_t *pid)
{
	static const int deflt[] = { SIGINT, SIGPIPE, SIGTERM, SIGHUP, SIGQUIT };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	struct strvec env = STRVEC_INIT;
	sigset_t set;
	size_t i, k, len;
	int rc;

	/* the environment: ours, then the hook's entries replacing ours */
	for (i = 0; environ[i] != NULL; i++) {
		for (k = 0; k < envp->n; k++) {
			len = strcspn(envp->v[k], "=");
			if (strncmp(environ[i], envp->v[k], len) == 0 &&
			    environ[i][len] == '=')
				break;
		}
		if (k == envp->n)
			strvec_push(&env, environ[i]);
	}
	for (k = 0; k < envp->n; k++)
		strvec_push(&env, envp->v[k]);
	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	posix_spawnattr_init(&at);
	sigemptyset(&set);
	posix_spawnattr_setsigmask(&at, &set);
	for (i = 0; i < sizeof deflt / sizeof deflt[0]; i++)
		sigaddset(&set, deflt[i]);
	posix_spawnattr_setsigdefault(&at, &set);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawnp(pid, argv->v[0], &fa, &at, argv->v, env.v);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	strvec_release(&env);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

/* Start r's child; on failure it counts as an attempt that exited 127. */
static void
start(struct hookq *q, struct run *r, double now)
{
	const struct spec_backend *sb = &q->b->spec->backend;
	struct strvec argv = STRVEC_INIT, envp = STRVEC_INIT;
	const char *cmd = sb->hooks[r->req.hook];
	int p[2], in[2] = { -1, -1 };
	pid_t pid;

	r->attempts++;
	r->exited = false;
	r->timed_out = false;
	r->status = -1;
	strbuf_reset(&r->out);
	r->dropped = 0;
	r->deadline = now + sb->timeout;
	if (cmd == NULL) {
		strbuf_addf(&r->out, "no '%s' hook in the spec\n",
		    spec_hook_names[r->req.hook]);
		r->exited = true;
		r->status = 127;
		return;
	}
	q->b->ops->command(q->b, r->req.node, cmd, &r->req.env, &argv, &envp);
	if (pipe(p) != 0) {
		strbuf_addf(&r->out, "cannot make a pipe: %s\n", strerror(errno));
		r->exited = true;
		r->status = 127;
		goto out;
	}
	if (q->b->ops->hold_stdin && pipe(in) != 0) {
		strbuf_addf(&r->out, "cannot make a pipe: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		r->exited = true;
		r->status = 127;
		goto out;
	}
	if (spawn(&argv, &envp, in[0], p[1], &pid) != 0) {
		strbuf_addf(&r->out, "cannot start '%s': %s\n", argv.v[0],
		    strerror(errno));
		close(p[0]);
		close(p[1]);
		if (in[0] >= 0) {
			close(in[0]);
			close(in[1]);
		}
		r->exited = true;
		r->status = 127;
		goto out;
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	r->pid = pid;
	r->fd = p[0];
	if (in[0] >= 0) {
		/* nothing is ever written: the child sees end-of-file once
		   the run is reaped, or once cellar is gone */
		close(in[0]);
		fcntl(in[1], F_SETFD, FD_CLOEXEC);
		r->in = in[1];
	}
out:
	strvec_release(&argv);
	strvec_release(&envp);
}

static void
drain(struct run *r)
{
	char buf[4096];
	ssize_t got;
	size_t keep;

	while (r->fd >= 0) {
		got = read(r->fd, buf, sizeof buf);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return;		/* EAGAIN: later */
		if (got == 0) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		keep = r->out.len < HOOK_OUT_MAX ? HOOK_OUT_MAX - r->out.len : 0;
		if (keep > (size_t)got)
			keep = (size_t)got;
		strbuf_add(&r->out, buf, keep);
		r->dropped += (size_t)got - keep;
	}
}

/* A reaped run is done: what its output holds is its answer. */
static void
finish(struct run *r)
{
	r->exited = true;
	r->eof_by = 0;
	if (r->fd >= 0) {
		close(r->fd);
		r->fd = -1;
	}
	if (r->in >= 0) {
		close(r->in);
		r->in = -1;
	}
}

static void
reap(struct run *r, double now)
{
	int st;
	pid_t got;

	if (r->pid <= 0) {
		/* a status answer still on its way (below) */
		if (r->eof_by > 0 && (r->fd < 0 || now >= r->eof_by))
			finish(r);
		return;
	}
	if (now >= r->deadline && !r->timed_out) {
		kill(-r->pid, SIGKILL);
		r->timed_out = true;
	}
	got = waitpid(r->pid, &st, WNOHANG);
	if (got != r->pid)
		return;
	r->pid = 0;
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (r->timed_out)
		r->status = -1;
	drain(r);
	/*
	 * A hook that left a background child holding the pipe: do not wait
	 * for it, take what is there. But a status hook's answer may come
	 * after the hook exited: ssh with ControlMaster hands its output to
	 * the master, which may write it after the client is gone (t0650
	 * under load: an empty answer made a running pod look gone). Its
	 * pipe is read until EOF, for HOOK_EOF_GRACE seconds at most.
	 */
	if (r->fd >= 0 && r->status == 0 && r->req.hook == SPEC_HOOK_STATUS) {
		r->eof_by = now + HOOK_EOF_GRACE;
		return;
	}
	finish(r);
}

void
hookq_service(struct hookq *q, double now, struct hook_done **done, int *n)
{
	const struct spec_backend *sb = &q->b->spec->backend;
	size_t cap = (size_t)*n;
	int i, k;

	for (i = 0; i < q->n; i++) {
		struct run *r = q->runs[i];

		if (r->pid <= 0 && !r->exited && r->eof_by == 0 &&
		    now >= r->due && !q->hold)
			start(q, r, now);
		if (r->fd >= 0)
			drain(r);
		reap(r, now);
	}
	for (i = k = 0; i < q->n; i++) {
		struct run *r = q->runs[i];
		struct hook_done *d;

		if (!r->exited) {
			q->runs[k++] = r;
			continue;
		}
		if (r->status != 0 && r->attempts <= sb->retries) {
			/* again after backoff, 2 x backoff, 4 x ... */
			r->exited = false;
			r->due = now + sb->backoff * (double)(1u << (r->attempts - 1 < 20 ?
			    r->attempts - 1 : 20));
			q->runs[k++] = r;
			continue;
		}
		XGROW(*done, cap, (size_t)*n + 1);
		d = &(*done)[(*n)++];
		memset(d, 0, sizeof *d);
		d->job = r->req.job;
		d->node = r->req.node;
		d->hook = r->req.hook;
		d->tag = r->req.tag;
		d->status = r->status;
		d->timed_out = r->timed_out;
		d->attempts = r->attempts;
		d->dropped = r->dropped;
		d->out = strbuf_detach(&r->out, &d->out_len);
		run_free(r);
	}
	q->n = k;
}

void
hookq_done_release(struct hook_done *d)
{
	free(d->out);
	d->out = NULL;
}

int
hookq_pollfds(const struct hookq *q, struct pollfd *fds, int max)
{
	int i, n = 0;

	for (i = 0; i < q->n && n < max; i++)
		if (q->runs[i]->fd >= 0) {
			fds[n].fd = q->runs[i]->fd;
			fds[n].events = POLLIN;
			fds[n].revents = 0;
			n++;
		}
	return n;
}

double
hookq_next(const struct hookq *q, double now)
{
	double best = -1, t;
	int i;

	for (i = 0; i < q->n; i++) {
		const struct run *r = q->runs[i];

		/* a running child is reaped by polling waitpid: look often;
		   a late answer's grace ends at eof_by */
		t = r->pid > 0 ? 0.02 : r->eof_by > 0 ? r->eof_by - now :
		    r->due - now;
		if (t < 0)
			t = 0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

bool
hookq_wait(const struct hookq *q, double now, int ms, int fd)
{
	struct pollfd fds[65];
	double next = hookq_next(q, now);
	int n = 0, rc;

	if (fd >= 0) {
		fds[0].fd = fd;
		fds[0].events = POLLIN;
		fds[0].revents = 0;
		n = 1;
	}
	n += hookq_pollfds(q, fds + n, 64);
	if (next >= 0 && next * 1000 < ms)
		ms = (int)(next * 1000);
	rc = poll(fds, (nfds_t)n, ms);
	return rc > 0 && fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP)) != 0;
}
