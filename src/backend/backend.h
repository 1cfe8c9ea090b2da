/*
 * backend.h — what carries out the scheduler's decisions on real nodes
 * (struct backend_ops, registered by name like the policies), and the hook
 * runner every hook-based backend shares.
 *
 * A hook is a shell command from the spec's `backend:` section, run on one
 * node with the job in environment variables (never in the command text).
 * The ops turn (node, hook command, environment) into the argv of a local
 * child: `local` runs `/bin/sh -c HOOK` with the variables added to the
 * environment; `ssh` runs the OpenSSH client (BatchMode, ConnectTimeout,
 * ControlMaster/ControlPersist) with one remote command line built by
 * sh_quote alone. The emulator (src/sim/emu.c) is the third backend; it
 * drives its own virtual clock and is not behind these ops yet: the live
 * console (src/live/) uses start/stop/... as hook runs, which an
 * emulated backend would answer from its event heap instead.
 *
 * The hook queue runs children without blocking: each is watched with
 * poll(2) through hookq_pollfds, its output captured (bounded), killed
 * (its whole process group) at the hook timeout, run again after a
 * backoff that doubles up to `retries` times, and handed back finished by
 * hookq_service. Time comes from the caller (`now`, seconds).
 *
 * Ownership: a backend borrows its spec; a hook queue owns its children,
 * their pipes and the finished results until hookq_done_release.
 *
 * Invariants:
 *  1. Every submitted request comes back exactly once from hookq_service
 *     (success, failure after its last attempt, or cancelled by
 *     hookq_free), and no child is left unreaped by hookq_free.
 *  2. A child runs at most timeout seconds (plus one service interval).
 *  3. Captured output per run is at most HOOK_OUT_MAX bytes; the rest is
 *     counted, not kept.
 */
#ifndef CELLAR_BACKEND_H
#define CELLAR_BACKEND_H

#include <poll.h>
#include <stdbool.h>

#include "core/strbuf.h"
#include "core/strvec.h"
#include "spec/spec.h"

#define HOOK_OUT_MAX	16384
/* Seconds a status hook's output is still read after it exited 0, until
   EOF: ssh's ControlMaster may write the answer after its client exits. */
#define HOOK_EOF_GRACE	2.0

struct backend;

struct backend_ops {
	const char	*name;		/* "local", "ssh" */
	/* Set up for the spec's backend section; 0 or -1 with *cause. */
	int		(*init)(struct backend *b, char **cause);
	void		(*release)(struct backend *b);
	/*
	 * The argv (argv[0] a program found on PATH) and the environment
	 * additions of a child that runs hook `cmd` on node `node` with the
	 * job's variables env ("K=V" strings).
	 */
	void		(*command)(const struct backend *b, int node, const char *cmd,
			    const struct strvec *env, struct strvec *argv,
			    struct strvec *envp);
	/* The child's stdin is a pipe cellar keeps open until the run is
	   reaped or killed (ssh: its end-of-file tells the node the run is
	   over); otherwise /dev/null. */
	bool		hold_stdin;
};

struct backend {
	const struct backend_ops *ops;
	const struct spec	*spec;
	void			*state;		/* the ops' own */
};

extern const struct backend_ops backend_local;
extern const struct backend_ops backend_ssh;

/* The backend for the spec's type, or NULL with *cause (emulator). */
struct backend	*backend_create(const struct spec *s, char **cause);
void		 backend_free(struct backend *b);

/* ---- the hook queue ---- */

struct hook_req {
	int		 job;		/* the caller's job index, -1: a node hook */
	int		 node;		/* spec node index */
	enum spec_hook	 hook;
	long		 tag;		/* the caller's, returned as is */
	struct strvec	 env;		/* "K=V"; the queue takes it over */
};

struct hook_done {
	int		 job, node;
	enum spec_hook	 hook;
	long		 tag;
	int		 status;	/* exit status, or -1 (timeout, signal, no exec) */
	bool		 timed_out;
	int		 attempts;
	char		*out;		/* stdout + stderr of the last attempt */
	size_t		 out_len;	/* its bytes (a NUL a hook printed included) */
	size_t		 dropped;	/* bytes beyond HOOK_OUT_MAX */
};

struct hookq;

struct hookq	*hookq_create(const struct backend *b);
/* Kill and reap everything still running; results are dropped. */
void		 hookq_free(struct hookq *q);
/* Queue a hook run (started at the next service). */
void		 hookq_submit(struct hookq *q, struct hook_req *r);
/* Requests not yet handed back. */
int		 hookq_pending(const struct hookq *q);
/* While held, a service starts nothing (it still reads and reaps): the
   decisions behind the queued runs are not durable yet (store.h, group
   commit). */
void		 hookq_hold(struct hookq *q, bool hold);
/* Fill fds (up to max) with what to poll; returns how many. */
int		 hookq_pollfds(const struct hookq *q, struct pollfd *fds, int max);
/* Seconds until the queue next needs a service (a timeout, a retry, a
   reap), from now; -1 when idle. */
double		 hookq_next(const struct hookq *q, double now);
/*
 * Start due runs, read output, reap children, kill timed-out ones, retry
 * failures; the finished requests are appended to *done (*n of them,
 * release each with hookq_done_release).
 */
void		 hookq_service(struct hookq *q, double now, struct hook_done **done,
		    int *n);
void		 hookq_done_release(struct hook_done *d);
/* Wait (poll) up to ms milliseconds for anything the queue watches, or
   for fd (>= 0) to be readable; true when fd is. */
bool		 hookq_wait(const struct hookq *q, double now, int ms, int fd);

#endif
