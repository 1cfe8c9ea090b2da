/*
 * serve-client.h — what the server's two files share: serve.c (the loop, the
 * requests, access, halting) and serve-client.c (a client's buffers: what
 * it sent, what it has not read, and the caps on both, serve.h
 * invariant 3). Private to src/serve*.c.
 *
 * Ownership: the server owns its clients (sv->c); client_drop frees one.
 */
#ifndef CELLAR_SERVE_CLIENT_H
#define CELLAR_SERVE_CLIENT_H

#include <sys/stat.h>

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "cmd/group.h"
#include "cmd/refusals.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "ipc/ipc.h"

#define MAX_GROUPS	256

struct client {
	int		 fd;
	uid_t		 uid;
	gid_t		 gids[MAX_GROUPS];
	int		 ngids;
	char		 user[64];
	struct strbuf	 in;		/* read, not yet a whole line */
	struct strbuf	 out;		/* reply bytes not yet written */
	size_t		 off;		/* of out, written */
	struct strvec	 parked;	/* a wait to run again, or empty */
	double		 at;		/* when the parked request came */
	bool		 eof;		/* the peer sends no more */
	bool		 closing;	/* close once out is written */
	bool		 held;		/* unsent went past SERVE_CLIENT_HIGH and
					   has not come down to SERVE_CLIENT_LOW */
};

struct server {
	struct session	 *s;
	struct ipc_lock	  lock;
	int		  lfd;
	char		 *sock;
	char		 *db;
	struct client	**c;
	int		  n;
	size_t		  cap;
	uid_t		  self;
	struct pollfd	 *pfd;
	size_t		  pcap;
	struct client	 *cur;		/* whose request runs now */
	struct store	 *ck;		/* checkpoints the WAL (for wst), or NULL */
	struct store	 *wst;		/* the store whose own checkpoints are off */
	int		  busy;		/* rounds with requests since the last
					   checkpoint */
	struct cmd_group  group;	/* this round's requests' commit */
	struct refusals	  refusals;	/* their audit rows, one per user and second */
	bool		  halted;	/* said so in the log */
	double		  retry_at;	/* halted: when to try the store again */
	double		  retry_wait;	/* halted: the wait after that (1..10 s) */
	double		  retry_min;	/* the first wait (SERVE_RETRY_MIN) */
	double		  ck_at;	/* a failing checkpoint: the next try */
	char		 *ck_failed;	/* why the last checkpoint failed, or NULL */
	size_t		  buffered;	/* all clients' unsent replies and unread
					   input, at the start of the round */
	size_t		  budget;	/* the most buffered may be for long */
	double		  over_since;	/* buffered over budget since, or 0 */
	struct stat	  sock_st;	/* our socket's file, to remove only it */
	int		  sigfd;	/* the self-pipe's read end */
};

/*
 * Buffers (serve.h invariant 3). A client's unsent replies past
 * SERVE_CLIENT_HIGH stop its requests: it is not reading, so nothing more
 * is made for it (and its input is not read) until it has read them down
 * to SERVE_CLIENT_LOW. The kernel's part is kept small too (SO_SNDBUF
 * SERVE_CLIENT_SNDBUF; Linux's default let each such client take ~210 kB
 * more, ~70 more listings each to make before it was stopped).
 * While all clients' buffers together are over the budget, only clients
 * with nothing unsent are served, and past SERVE_OVER_GRACE the one with
 * the most unsent is dropped, one a round, with a line in the log. A
 * client runs at most SERVE_ROUND_LINES requests a round, and past
 * SERVE_ROUND_FLOOR only while its requests took less than SERVE_ROUND_MS
 * of the round, so one that pipelines thousands (of listings, say) costs
 * the others a round's share; the floor keeps a short batch written at
 * once (t0695's four) in one round and so in one commit.
 */
#define SERVE_CLIENT_HIGH	(128u << 10)
#define SERVE_CLIENT_LOW	(32u << 10)
#define SERVE_CLIENT_SNDBUF	(64 << 10)	/* SO_SNDBUF of a client socket */
#define SERVE_BUDGET		(256u << 20)
#define SERVE_OVER_GRACE	1.0
#define SERVE_ROUND_LINES	64
#define SERVE_ROUND_FLOOR	4
#define SERVE_ROUND_MS		2.0

/* One line to the server's log (stderr): see serve.c. */
void	slog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reply bytes not yet written. */
size_t	client_unsent(const struct client *cl);
/* May cl's requests run now (not closing, no wait parked, reading)? */
bool	client_runnable(const struct server *sv, const struct client *cl);
void	client_free(struct client *cl);
/* A protocol error: say it, then close once it is written. */
void	client_error(struct client *cl, int status, const char *msg);
/* Read what cl sent; false: drop it. */
bool	client_read(struct client *cl);
/* The requests waiting in cl->in, up to want. */
int	client_waiting(const struct client *cl, int want);
/* Write what is pending; false: drop it. */
bool	client_write(struct client *cl);
/* Free client k and take it out of the server's list. */
void	client_drop(struct server *sv, int k);
/* Sum the buffers; over the budget too long, drop the biggest. */
void	clients_over_budget(struct server *sv);

#endif
