/*
 * ipc.c — the driver lock, the socket and the line protocol (ipc.h).
 */
#define _GNU_SOURCE	/* struct ucred (SO_PEERCRED) */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/xmalloc.h"
#include "ipc/ipc.h"

char *
ipc_lock_path(const char *db)
{
	return xasprintf("%s.lock", db);
}

char *
ipc_socket_path(const char *db, const char *sock, char **cause)
{
	struct sockaddr_un sun;
	char *p;

	if (sock == NULL && (db == NULL || strcmp(db, ":memory:") == 0)) {
		*cause = xstrdup("a store in memory has no socket: name one with "
		    "--socket or CELLAR_SOCKET");
		return NULL;
	}
	p = sock != NULL ? xstrdup(sock) : xasprintf("%s.sock", db);
	if (strlen(p) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long (%zu bytes at most): "
		    "name a shorter one with --socket or CELLAR_SOCKET", p,
		    sizeof sun.sun_path - 1);
		free(p);
		return NULL;
	}
	return p;
}

static pid_t
read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	long v;

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	v = strtol(buf, NULL, 10);
	return v > 0 ? (pid_t)v : 0;
}

int
ipc_lock(struct ipc_lock *l, const char *path, pid_t *holder, char **cause)
{
	char buf[32];
	int fd, n;

	l->fd = -1;
	l->path = NULL;
	*holder = 0;
	/* 0644: clients read the holder's pid from it to trust the socket */
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
		*cause = xasprintf("cannot open lock file '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK) {
			*holder = read_pid(fd);
			close(fd);
			return 1;
		}
		*cause = xasprintf("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		*cause = xasprintf("cannot write lock file '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->path = xstrdup(path);
	return 0;
}

void
ipc_unlock(struct ipc_lock *l)
{
	/* the file stays: removing it would race with the next server */
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	free(l->path);
	l->path = NULL;
}

pid_t
ipc_lock_holder(const char *path)
{
	pid_t pid = 0;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	/* a shared lock we can take means no server holds it */
	if (flock(fd, LOCK_SH | LOCK_NB) == 0)
		flock(fd, LOCK_UN);
	else if (errno == EWOULDBLOCK)
		pid = read_pid(fd);
	close(fd);
	return pid;
}

int
ipc_lease(struct ipc_lock *l, const char *path, long long key, pid_t *holder,
    char **cause)
{
	struct flock fl;
	int fd;

	l->fd = -1;
	l->path = NULL;
	*holder = 0;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		*cause = xasprintf("cannot open lock file '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = (off_t)key;
	fl.l_len = 1;
	if (fcntl(fd, F_SETLK, &fl) != 0) {
		if (errno == EACCES || errno == EAGAIN) {
			/* F_GETLK names a POSIX lock's owner (it may have
			   gone in between: then 0, "unknown") */
			fl.l_type = F_WRLCK;
			if (fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK &&
			    fl.l_pid > 0)
				*holder = fl.l_pid;
			close(fd);
			return 1;
		}
		*cause = xasprintf("cannot lock '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->path = xstrdup(path);
	return 0;
}

static void
fill_addr(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, strlen(path) + 1);	/* checked by the caller */
}

/*
 * Does a live server listen at path? A connect answers it: refused means
 * nobody listens (a dead server's socket, safe to replace); accepted, or
 * a full backlog, means somebody does. True with *cause naming the path
 * and, when the kernel says (SO_PEERCRED), the listener's pid; a socket
 * we cannot even try is not ours to remove either.
 */
static bool
socket_live(const char *path, char **cause)
{
	struct sockaddr_un sun;
	uid_t uid;
	gid_t gid;
	pid_t pid = 0;
	int s, e;

	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0) {
		*cause = xasprintf("socket: %s", strerror(errno));
		return true;
	}
	fill_addr(&sun, path);
	e = connect(s, (struct sockaddr *)&sun, sizeof sun) == 0 ? 0 : errno;
	if (e == 0 && ipc_peer(s, &uid, &gid, &pid) != 0)
		pid = 0;
	close(s);
	if (e == ECONNREFUSED || e == ENOENT)
		return false;
	if (e == 0 || e == EAGAIN || e == EINPROGRESS) {
		if (pid > 0)
			*cause = xasprintf("socket '%s' is in use by a live server "
			    "(pid %ld): name another with --socket, or stop that "
			    "server first", path, (long)pid);
		else
			*cause = xasprintf("socket '%s' is in use by a live server: "
			    "name another with --socket, or stop that server "
			    "first", path);
		return true;
	}
	*cause = xasprintf("cannot check socket '%s' (is a server listening "
	    "there?): %s", path, strerror(e));
	return true;
}

int
ipc_listen(const char *path, gid_t gid, char **cause)
{
	struct sockaddr_un sun;
	struct stat sb;
	mode_t old;
	int fd, rc;

	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long", path);
		return -1;
	}
	/* the caller holds its store's lock, but --socket may name another
	   store's socket: only one nobody answers is removed */
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode)) {
			*cause = xasprintf("'%s' exists and is not a socket", path);
			return -1;
		}
		if (socket_live(path, cause))
			return -1;
		if (unlink(path) != 0) {
			*cause = xasprintf("cannot remove stale socket '%s': %s", path,
			    strerror(errno));
			return -1;
		}
	}
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0) {
		*cause = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	fill_addr(&sun, path);
	/* born 0600: no window in which others could connect */
	old = umask(0177);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (rc != 0) {
		*cause = xasprintf("cannot bind '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (gid != (gid_t)-1 && (chown(path, (uid_t)-1, gid) != 0 ||
	    chmod(path, 0660) != 0)) {
		*cause = xasprintf("cannot give socket '%s' to group %ld: %s", path,
		    (long)gid, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	if (listen(fd, 128) != 0) {
		*cause = xasprintf("cannot listen on '%s': %s", path, strerror(errno));
		unlink(path);
		close(fd);
		return -1;
	}
	return fd;
}

int
ipc_peer(int fd, uid_t *uid, gid_t *gid, pid_t *pid)
{
	struct ucred cr;
	socklen_t len = sizeof cr;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0)
		return -1;
	*uid = cr.uid;
	*gid = cr.gid;
	*pid = cr.pid;
	return 0;
}

/* The socket refused us: say who may use it and what to ask for. */
static char *
denied(const char *path)
{
	struct stat sb;
	struct group *gr;

	if (stat(path, &sb) != 0 || (sb.st_mode & 0060) != 0060)
		return xasprintf("cannot connect to '%s': Permission denied: only "
		    "its owner may use it; ask the cluster's admin to name a group "
		    "of yours in the spec's access.socketGroup (cellar-spec(5), "
		    "ACCESS)", path);
	if ((gr = getgrgid(sb.st_gid)) != NULL)
		return xasprintf("cannot connect to '%s': Permission denied: it is "
		    "for members of group '%s' (the spec's access.socketGroup); "
		    "ask the cluster's admin to add you to '%s', then log in again",
		    path, gr->gr_name, gr->gr_name);
	return xasprintf("cannot connect to '%s': Permission denied: it is for "
	    "members of group %ld (the spec's access.socketGroup); ask the "
	    "cluster's admin to add you to it, then log in again", path,
	    (long)sb.st_gid);
}

int
ipc_connect(const char *path, const char *lock, int *fd, char **cause)
{
	struct sockaddr_un sun;
	uid_t uid;
	gid_t gid;
	pid_t pid, holder;
	int s;

	if (strlen(path) >= sizeof sun.sun_path) {
		*cause = xasprintf("socket path '%s' is too long", path);
		return -1;
	}
	if ((s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		*cause = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	fill_addr(&sun, path);
	if (connect(s, (struct sockaddr *)&sun, sizeof sun) != 0) {
		int e = errno;

		close(s);
		/* nothing there (ENOTDIR: not even its directory): the
		   command goes on here and finds out what is wrong itself */
		if (e == ENOENT || e == ECONNREFUSED || e == ENOTDIR)
			return 1;
		if (e == EACCES)
			*cause = denied(path);
		else
			*cause = xasprintf("cannot connect to '%s': %s", path,
			    strerror(e));
		return -1;
	}
	/* a socket is trusted only when the store's lock holder answers it */
	if (lock != NULL) {
		holder = ipc_lock_holder(lock);
		if (holder == 0) {
			close(s);
			return 1;
		}
		if (ipc_peer(s, &uid, &gid, &pid) != 0 || pid != holder) {
			*cause = xasprintf("'%s' is not served by the store's server "
			    "(pid %ld holds '%s')", path, (long)holder, lock);
			close(s);
			return -1;
		}
	}
	*fd = s;
	return 0;
}

void
ipc_reply_text(struct strbuf *sb, char tag, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		strbuf_addc(sb, tag);
		strbuf_addc(sb, ' ');
		strbuf_add(sb, p, (size_t)((nl != NULL ? nl : end) - p));
		strbuf_addc(sb, '\n');
		p = nl != NULL ? nl + 1 : end;
	}
}

void
ipc_reply_end(struct strbuf *sb, int status)
{
	strbuf_addf(sb, "exit %d\n", status);
}

static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = send(fd, p, len, MSG_NOSIGNAL)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One reply line (without its '\n'): 1 at "exit N", 0 to go on, -1. */
static int
reply_line(const char *l, size_t len, struct strbuf *out, struct strbuf *err,
    int *status)
{
	char buf[32];
	char *end;
	long v;

	if (len >= 2 && l[1] == ' ' && (l[0] == 'o' || l[0] == 'e')) {
		struct strbuf *sb = l[0] == 'o' ? out : err;

		strbuf_add(sb, l + 2, len - 2);
		strbuf_addc(sb, '\n');
		return 0;
	}
	if (len > 5 && len < sizeof buf && memcmp(l, "exit ", 5) == 0) {
		memcpy(buf, l + 5, len - 5);
		buf[len - 5] = '\0';
		v = strtol(buf, &end, 10);
		if (*end == '\0' && v >= 0 && v <= 255) {
			*status = (int)v;
			return 1;
		}
	}
	return -1;
}

int
ipc_request(int fd, const char *line, struct strbuf *out, struct strbuf *err,
    int *status, volatile const int *stop, int timeout_ms, char **cause)
{
	struct timespec t0, t;
	struct strbuf in = STRBUF_INIT, req = STRBUF_INIT;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t start = 0, i;
	char buf[65536];
	ssize_t n;
	int rc = -1, r;

	*cause = NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	strbuf_adds(&req, line);
	strbuf_addc(&req, '\n');
	if (write_all(fd, req.buf, req.len) != 0) {
		*cause = xasprintf("the cellar server went away: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		if (stop != NULL && *stop)
			goto out;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (timeout_ms > 0 && (t.tv_sec - t0.tv_sec) * 1000 +
		    (t.tv_nsec - t0.tv_nsec) / 1000000 >= timeout_ms) {
			*cause = xasprintf("the cellar server did not answer within "
			    "%d ms", timeout_ms);
			goto out;
		}
		if (poll(&p, 1, 200) < 0 && errno != EINTR) {
			*cause = xasprintf("poll: %s", strerror(errno));
			goto out;
		}
		if ((p.revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		if ((n = read(fd, buf, sizeof buf)) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*cause = xasprintf("the cellar server went away: %s",
			    strerror(errno));
			goto out;
		}
		if (n == 0) {
			*cause = xstrdup("the cellar server closed the connection "
			    "before it answered");
			goto out;
		}
		strbuf_add(&in, buf, (size_t)n);
		for (i = start; i < in.len; i++) {
			if (in.buf[i] != '\n')
				continue;
			r = reply_line(in.buf + start, i - start, out, err, status);
			start = i + 1;
			if (r < 0) {
				*cause = xstrdup("the cellar server's reply is garbled");
				goto out;
			}
			if (r == 1) {
				rc = 0;
				goto out;
			}
		}
		/* keep only the partial line */
		if (start > 0) {
			memmove(in.buf, in.buf + start, in.len - start);
			strbuf_setlen(&in, in.len - start);
			start = 0;
		}
	}
out:
	strbuf_release(&in);
	strbuf_release(&req);
	return rc;
}
