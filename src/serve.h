/*
 * serve.h — the cellar server: one long-running process that owns a live
 * cluster's store, runs its live loop (live/console.h: hooks, health checks,
 * scheduler passes, restart reconciliation) and answers clients on a Unix
 * socket in the command grammar (ipc.h has the protocol). The CLI, the
 * REPL and the dashboard are its clients; closing them touches no job.
 *
 * The server takes the store's driver lock before anything else (a second
 * server on the same store is refused with the holder's pid), loads its
 * spec (--spec, else the store's running session run), refuses a spec
 * without a backend: section, takes the live jobs over, then serves until
 * SIGTERM or SIGINT (a self-pipe wakes the loop at once). SIGHUP re-reads
 * the spec as `load` does. One line per decision and per accepted change
 * goes to stderr, stamped with the UTC time unless stderr is journald's
 * (JOURNAL_STREAM). Replies are formatted for the client: never coloured.
 *
 * Requests run one at a time, in the order their lines arrive, each as the
 * connecting user (SO_PEERCRED): the spec's access: section says who may
 * change what (cellar-spec(5), ACCESS); a refused request changes nothing.
 * A wait is parked and run again after each tick until it is answered.
 *
 * Ownership: serve_run borrows the session for its whole life and leaves
 * it as the caller gave it, save the store, spec and run it served.
 *
 * Invariants:
 *  1. Only a process inside serve_run has s->serving set, and it holds
 *     the store's lock all that time (ipc.h invariant 1).
 *  2. Every request line gets exactly one reply, unless its client goes
 *     first.
 *  3. Input is bounded per client (IPC_LINE_MAX unanswered bytes) and so
 *     are clients (SERVE_MAX_CLIENTS). A client with more than 256 KB of
 *     replies unread is neither read nor served until it reads them
 *     (backpressure); one whose replies pile up past SERVE_MAX_BACKLOG is
 *     dropped; while all clients' buffers together exceed the budget
 *     (256 MB, serve.c) only clients with nothing unsent are served, and
 *     after a second over it the one with the most unsent is dropped,
 *     one a round, said in the log.
 *  4. A halted server (a store write failed after the engine acted)
 *     starts no hook, answers reads, refuses changes, and tries the store
 *     again every 1 s doubling to 10 s; when it takes a write, the server
 *     rebuilds from the store and takes the live jobs over as a restart
 *     would. It never spins: its poll timeout is that timer.
 */
#ifndef CELLAR_SERVE_H
#define CELLAR_SERVE_H

#include "core/strbuf.h"

struct session;

#define SERVE_MAX_CLIENTS	4096
#define SERVE_MAX_BACKLOG	(64u << 20)

struct serve_opts {
	const char	*spec;		/* --spec, or NULL */
	const char	*db;		/* --db, or NULL: the session's */
	const char	*socket;	/* --socket, or NULL: the session's */
};

/*
 * Serve until SIGTERM/SIGINT. Returns the exit status: 0 after a signal;
 * otherwise (*cause set) 1 when another server holds the store, 3 for a
 * spec without a backend, 4 for the store.
 */
int	serve_run(struct session *s, const struct serve_opts *o, char **cause);

#endif
