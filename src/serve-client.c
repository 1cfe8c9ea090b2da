/*
 * serve-client.c — a server's client buffers (serve-client.h): reading
 * requests, writing replies, and the caps that keep a client that does
 * not read from costing the others (serve.h invariant 3). The loop in
 * serve.c decides when; this file says how much.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/session.h"
#include "cmd/cmd.h"
#include "core/xmalloc.h"
#include "serve-client.h"
#include "serve.h"

size_t
client_unsent(const struct client *cl)
{
	return cl->out.len - cl->off;
}

static bool
client_blocked(const struct server *sv, const struct client *cl)
{
	return client_unsent(cl) > (cl->held ? SERVE_CLIENT_LOW : SERVE_CLIENT_HIGH) ||
	    (sv->buffered > sv->budget && client_unsent(cl) > 0);
}

/* May cl's requests run now? */
bool
client_runnable(const struct server *sv, const struct client *cl)
{
	return !cl->closing && cl->parked.n == 0 && !client_blocked(sv, cl);
}

void
client_free(struct client *cl)
{
	close(cl->fd);
	strbuf_release(&cl->in);
	strbuf_release(&cl->out);
	strvec_release(&cl->parked);
	free(cl);
}

/* A protocol error: say it, then close once it is written. */
void
client_error(struct client *cl, int status, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "cellar: %s\n", msg);
	ipc_reply_text(&cl->out, 'e', sb.buf, sb.len);
	ipc_reply_end(&cl->out, status);
	strbuf_release(&sb);
}

/*
 * Read what cl sent (the loop runs it after every client was read, so
 * one round's requests can share a commit); false: drop it.
 */
bool
client_read(struct client *cl)
{
	char buf[16384];
	ssize_t n;

	for (;;) {
		n = read(cl->fd, buf, sizeof buf);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0) {
			/* a last request without its newline is a request */
			cl->eof = true;
			if (cl->in.len > 0 && cl->in.buf[cl->in.len - 1] != '\n')
				strbuf_addc(&cl->in, '\n');
			return true;
		}
		/* bounded: past a line's worth unanswered, stop reading */
		strbuf_add(&cl->in, buf, (size_t)n);
		if (cl->in.len > IPC_LINE_MAX)
			return true;
	}
}

/* The requests waiting in cl->in, up to 2: do two or more wait? */
int
client_waiting(const struct client *cl, int want)
{
	const char *p = cl->in.buf, *end = cl->in.buf + cl->in.len, *nl;
	int n = 0;

	if (cl->closing || cl->parked.n > 0)
		return 0;
	while (n < want && p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p = nl + 1;
	}
	return n;
}

/* Write what is pending; false: drop it. */
bool
client_write(struct client *cl)
{
	ssize_t n;

	while (cl->off < cl->out.len) {
		n = send(cl->fd, cl->out.buf + cl->off, cl->out.len - cl->off,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			/* a slow reader: what it read goes, so the buffer
			   holds only what it has not */
			if (cl->off > SERVE_CLIENT_HIGH) {
				memmove(cl->out.buf, cl->out.buf + cl->off,
				    cl->out.len - cl->off);
				strbuf_setlen(&cl->out, cl->out.len - cl->off);
				cl->off = 0;
			}
			cl->held = client_unsent(cl) > (cl->held ?
			    SERVE_CLIENT_LOW : SERVE_CLIENT_HIGH);
			return true;
		}
		if (n < 0)
			return false;
		cl->off += (size_t)n;
	}
	/* all of it: a buffer a big reply grew goes back to the system */
	if (cl->out.alloc > 2 * SERVE_CLIENT_HIGH) {
		strbuf_release(&cl->out);
		strbuf_init(&cl->out);
	} else
		strbuf_reset(&cl->out);
	cl->off = 0;
	cl->held = false;
	return !cl->closing;
}

void
client_drop(struct server *sv, int k)
{
	client_free(sv->c[k]);
	sv->c[k] = sv->c[--sv->n];
}

/* Over budget too long: drop the client with the most unsent. */
void
clients_over_budget(struct server *sv)
{
	struct client *cl;
	double now = session_now();
	int k, big = -1;

	for (k = 0, sv->buffered = 0; k < sv->n; k++) {
		cl = sv->c[k];
		sv->buffered += client_unsent(cl) + cl->in.len;
		if (big < 0 || client_unsent(cl) > client_unsent(sv->c[big]))
			big = k;
	}
	if (sv->buffered <= sv->budget || big < 0) {
		sv->over_since = 0;
		return;
	}
	if (sv->over_since == 0)
		sv->over_since = now;
	if (now - sv->over_since < SERVE_OVER_GRACE)
		return;
	cl = sv->c[big];
	slog("dropped a client of user %s: %zu bytes of replies unread while "
	    "the server's buffers held %zu bytes for %.0f s (budget %zu): read "
	    "each reply before the next request", cl->user, client_unsent(cl),
	    sv->buffered, now - sv->over_since, sv->budget);
	sv->buffered -= client_unsent(cl) + cl->in.len;
	client_drop(sv, big);
	sv->over_since = now;
}
