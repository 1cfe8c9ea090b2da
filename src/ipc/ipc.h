/*
 * ipc.h — how a cellar server and its clients find and talk to each other:
 * the store's driver lock, the Unix socket, peer credentials, and the
 * line protocol (after tmux's client/server split, with a protocol as
 * plain as Redis's inline commands, so socat or a few lines of Python can
 * drive it).
 *
 * Protocol (one connection, any number of requests, one at a time):
 *
 *   request   one command of the command grammar (cmd/cmdline.h) on one
 *             line ending in '\n', at most IPC_LINE_MAX bytes. Global
 *             defaults travel as the command's own options ("queue -o
 *             json"). Several commands on one line (';') are refused.
 *   reply     zero or more lines "o TEXT" (standard output) and "e TEXT"
 *             (standard error), in the order they were written, then one
 *             line "exit N": N is the command's exit status (cellar(1),
 *             EXIT STATUS). Every line ends in '\n'; a last line of
 *             output without one gets one.
 *
 * A request that waits (wait) gets its reply when the server sees the
 * state; the next request on the same connection is read after it. A
 * connection closed before its reply drops the request (a wait), never a
 * decision already taken (a submit is committed before its reply).
 *
 * Files beside the store STORE (a file; a server needs one):
 *
 *   STORE.lock  the driver lock: flock(2) LOCK_EX held by the server for
 *               its lifetime (released by the kernel when it dies, so a
 *               kill -9 leaves no stale lock), its pid written inside.
 *   STORE.sock  the socket (unless --socket or CELLAR_SOCKET name
 *               another), mode 0600, or 0660 with the spec's socketGroup.
 *               Made only by the lock's holder, which first removes a
 *               stale one (nobody answers it) and refuses a live one
 *               (--socket naming another store's server's): a socket at
 *               that path is never trusted without the lock (a client
 *               checks that the peer's pid is the lock holder's).
 *
 * Ownership: struct ipc_lock is the caller's (ipc_unlock closes it); fds
 * returned are the caller's.
 *
 * Invariants:
 *  1. While an ipc_lock is held, no other process holds the same store's
 *     lock: at most one server per store; likewise one holder per lease
 *     key.
 *  2. Every reply ends with exactly one "exit N" line, and no other line
 *     of it starts with "exit".
 */
#ifndef CELLAR_IPC_H
#define CELLAR_IPC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/strbuf.h"

/* The longest request line (= CMDLINE_MAX) and the most a client buffers. */
#define IPC_LINE_MAX	65536

struct ipc_lock {
	int	 fd;		/* -1: not held */
	char	*path;
};

/* STORE.lock and the socket's path (sock: --socket / CELLAR_SOCKET, or
   NULL for STORE.sock); malloc'ed, or NULL with *cause (a :memory:
   store, a path too long for a socket). */
char	*ipc_lock_path(const char *db);
char	*ipc_socket_path(const char *db, const char *sock, char **cause);

/*
 * Take the store's driver lock. 0: held (our pid written in it); 1:
 * another process holds it (*holder its pid, 0 if unknown); -1 with
 * *cause when the file cannot be made or locked.
 */
int	 ipc_lock(struct ipc_lock *l, const char *path, pid_t *holder,
	    char **cause);
void	 ipc_unlock(struct ipc_lock *l);
/* The pid of the process holding the lock at path, or 0 if none does. */
pid_t	 ipc_lock_holder(const char *path);

/*
 * A lease on one key (>= 0) of the lock file at path (made 0600 if
 * missing): an fcntl(2) write lock on byte `key`, so one file serves any
 * number of keys (a replay's run ids). Held until ipc_unlock or this
 * process's death (a kill -9 leaves no stale lease). A process holds at
 * most one lease per file: POSIX record locks belong to the process, and
 * closing any descriptor of the file drops them all. 0: held; 1: another
 * process holds it (*holder its pid, 0 if unknown); -1 with *cause.
 */
int	 ipc_lease(struct ipc_lock *l, const char *path, long long key,
	    pid_t *holder, char **cause);

/* Listen on path (a stale socket there, one nobody answers, is removed;
   one a live process listens on is refused, naming its pid; any other
   file is an error), mode 0600, or 0660 and group gid when gid !=
   (gid_t)-1. The fd (non-blocking, close-on-exec), or -1 with *cause. */
int	 ipc_listen(const char *path, gid_t gid, char **cause);

/*
 * Connect to a server: 0 with *fd, 1 when no server listens there (no
 * socket, or nobody behind it), -1 with *cause (the peer is not the lock
 * holder named by lock, or another error). lock may be NULL: no check.
 */
int	 ipc_connect(const char *path, const char *lock, int *fd, char **cause);

/* The peer's credentials (SO_PEERCRED). 0, or -1. */
int	 ipc_peer(int fd, uid_t *uid, gid_t *gid, pid_t *pid);

/* Append text as reply lines tagged 'o' or 'e' (rule: every line ends). */
void	 ipc_reply_text(struct strbuf *sb, char tag, const char *text, size_t len);
/* Append the final "exit N" line. */
void	 ipc_reply_end(struct strbuf *sb, int status);

/*
 * One request on a connected fd: send line (no '\n' in it), read the
 * reply, its output to out and err. 0 with *status; -1 with *cause when
 * the server went away or answered something else. *stop (may be NULL)
 * is polled: when it turns true the request is abandoned (-1, *cause
 * NULL). timeout_ms > 0: give up (-1, *cause says so) when no reply has
 * come by then (a dashboard's refresh); 0: wait as long as it takes (a
 * wait is answered when its jobs get there).
 */
int	 ipc_request(int fd, const char *line, struct strbuf *out,
	    struct strbuf *err, int *status, volatile const int *stop,
	    int timeout_ms, char **cause);

#endif
