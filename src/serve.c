/*
 * serve.c — the cellar server (serve.h): the driver lock, the socket, the
 * clients, access control, and the loop that ties them to the console.
 *
 *   poll(listen socket, clients, hooks) -> accept, read requests, run them
 *   -> console_tick -> parked waits run again -> replies written
 */
#define _GNU_SOURCE	/* accept4 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cluster/session-log.h"
#include "cluster/session-reconf.h"
#include "cluster/session.h"
#include "cmd/cmd.h"
#include "cmd/cmdline.h"
#include "cmd/group.h"
#include "cmd/refusals.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "ipc/ipc.h"
#include "live/console.h"
#include "serve-client.h"
#include "serve.h"
#include "store/store.h"


static volatile sig_atomic_t serve_stop, serve_hup;
static int serve_wake = -1;	/* the self-pipe's write end: wakes poll */
static bool serve_stamp;	/* log lines carry a time (no journald) */

/* A signal wakes the loop through a pipe: one that came between the
   flag's test and poll(2) would otherwise wait out the timeout. */
static void
wake(void)
{
	int e = errno;

	if (serve_wake >= 0)
		(void)!write(serve_wake, "", 1);
	errno = e;
}

static void
on_stop(int sig)
{
	(void)sig;
	serve_stop = 1;
	wake();
}

static void
on_hup(int sig)
{
	(void)sig;
	serve_hup = 1;
	wake();
}

/*
 * One line to stderr. Under journald (systemd sets JOURNAL_STREAM for a
 * service's stderr) the journal stamps each line itself; anywhere else
 * the line starts with the time, ISO-8601 UTC to the millisecond.
 */
void
slog(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	struct timespec ts;
	struct tm tm;
	va_list ap;
	char *p;

	if (serve_stamp && clock_gettime(CLOCK_REALTIME, &ts) == 0 &&
	    gmtime_r(&ts.tv_sec, &tm) != NULL)
		strbuf_addf(&sb, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ",
		    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		    tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000);
	strbuf_adds(&sb, "cellar serve: ");
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	/* one record per line: a message's own newlines would split it */
	for (p = sb.buf; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	while (sb.len > 0 && sb.buf[sb.len - 1] == ' ')
		strbuf_setlen(&sb, sb.len - 1);
	strbuf_addc(&sb, '\n');
	fputs(sb.buf, stderr);
	fflush(stderr);
	strbuf_release(&sb);
}

static void
say_decision(void *arg, const char *line)
{
	(void)arg;
	slog("%s", line);
}

/* ---- access (cellar-spec(5), ACCESS) ---- */

static bool
rule_has(const struct spec_access_rule *r, const struct client *cl)
{
	struct group *gr;
	int i, k;

	for (i = 0; i < r->nusers; i++)
		if (strcmp(r->users[i], cl->user) == 0)
			return true;
	for (i = 0; i < r->ngroups; i++) {
		if ((gr = getgrnam(r->groups[i])) == NULL)
			continue;
		for (k = 0; k < cl->ngids; k++)
			if (cl->gids[k] == gr->gr_gid)
				return true;
	}
	return false;
}

static bool
is_admin(const struct server *sv, const struct client *cl)
{
	const struct spec_access *acc = &sv->s->spec->access;

	return cl->uid == 0 || cl->uid == sv->self ||
	    (acc->given && rule_has(&acc->admins, cl));
}

static bool
vc_member(const struct server *sv, const struct client *cl, int vc)
{
	const struct spec_access *acc = &sv->s->spec->access;

	return acc->given && vc >= 0 && vc < sv->s->spec->nvcs &&
	    rule_has(&acc->vcs[vc], cl);
}

/* submit: the caller is one of the VC's users or groups. */
static int
may_submit(struct server *sv, struct client *cl, const struct args *a, char **cause)
{
	const char *vc = args_get(a, "vc");
	int v;

	/* an unknown VC or none: the command says so itself */
	if (vc == NULL || (v = spec_find_vc(sv->s->spec, vc)) < 0 ||
	    vc_member(sv, cl, v))
		return 0;
	*cause = xasprintf("user '%s' may not submit to vc '%s': "
	    "access.virtualClusters.%s names neither the user nor a group of "
	    "theirs", cl->user, vc, vc);
	return -1;
}

/* cancel: the caller's own job, in a VC they belong to. */
static int
may_cancel(struct server *sv, struct client *cl, const struct args *a, char **cause)
{
	const char *name = args_value(a, 0);
	const struct job *j;
	struct console *c;
	int i;

	if (console_get(sv->s, &c, cause) != 0) {
		free(*cause);
		*cause = NULL;
		return 0;	/* cancel itself reports it */
	}
	if ((i = console_find(c, name)) < 0)
		return 0;	/* no such job: cancel says so */
	j = console_job(c, i);
	if (strcmp(j->user, cl->user) == 0 && vc_member(sv, cl, j->vc))
		return 0;
	if (strcmp(j->user, cl->user) != 0)
		*cause = xasprintf("job '%s' belongs to '%s': only its owner or an "
		    "admin (access.admins) may cancel it", name, j->user);
	else
		*cause = xasprintf("user '%s' is no longer in vc '%s' "
		    "(access.virtualClusters.%s): only an admin may cancel job '%s'",
		    cl->user, sv->s->spec->vcs[j->vc].name,
		    sv->s->spec->vcs[j->vc].name, name);
	return -1;
}

/*
 * Who a job submitted by cl runs as (cellar-spec(5), ACCESS): the
 * caller's uid and gid (SO_PEERCRED), or the account access.runAs maps
 * their name to; into s->run_uid and run_gid. Refused: root for a
 * non-admin (whatever the account's name), and any other uid than the
 * server's own when the server is not root (it could not switch to it).
 */
static int
run_as(struct server *sv, struct client *cl, char **cause)
{
	const char *acct = spec_run_as(sv->s->spec, cl->user);
	struct passwd *pw;
	uid_t uid = cl->uid;
	gid_t gid = cl->gids[0];
	char self[64];

	if (acct != NULL) {
		if ((pw = getpwnam(acct)) == NULL) {
			*cause = xasprintf("user '%s' runs jobs as '%s' (access.runAs), "
			    "but this machine has no user '%s': add it, or change "
			    "access.runAs", cl->user, acct, acct);
			return -1;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
	}
	if (uid == 0 && !is_admin(sv, cl)) {
		*cause = xasprintf("user '%s' may not run jobs as root: "
		    "access.runAs maps them to '%s' (uid 0), and only admins "
		    "(access.admins) run jobs as root", cl->user, acct);
		return -1;
	}
	if (sv->self != 0 && uid != sv->self) {
		if ((pw = getpwuid(sv->self)) != NULL)
			snprintf(self, sizeof self, "%s", pw->pw_name);
		else
			snprintf(self, sizeof self, "uid%ld", (long)sv->self);
		*cause = xasprintf("this cellar server runs as '%s', not root, so "
		    "its jobs can run only as '%s', not as '%s' (uid %ld): run the "
		    "server as root (cellar.service) for jobs to run as their "
		    "users, or map user '%s' to '%s' in access.runAs", self, self,
		    acct != NULL ? acct : cl->user, (long)uid, cl->user, self);
		return -1;
	}
	sv->s->run_uid = (int)uid;
	sv->s->run_gid = (int)gid;
	return 0;
}

/* The checks of the CMD_ACCESS_MEMBER commands (cmd_access_table). */
static const struct {
	const struct cmd_entry	*e;
	int			(*check)(struct server *, struct client *,
				    const struct args *, char **);
} access_table[] = {
	{ &cmd_submit_entry, may_submit },
	{ &cmd_cancel_entry, may_cancel },
};

/*
 * May the caller have the server run e? By e's class (cmd.h, enum
 * cmd_access); a class the server does not know, or a member command
 * without a check here, is refused: a new command is closed until
 * classified.
 */
static int
authorize(struct session *s, const struct cmd_entry *e, const struct args *a,
    char **cause)
{
	struct server *sv = s->authorize_arg;
	struct client *cl = sv->cur;
	enum cmd_access acc = cmd_access_of(e);
	size_t i;

	if (cl == NULL)
		return 0;	/* the server's own (a SIGHUP's load) */
	/* a job runs as someone the server can and may run it as, even an
	   admin's */
	if (e == &cmd_submit_entry && run_as(sv, cl, cause) != 0)
		return -1;
	switch (acc) {
	case CMD_ACCESS_ANYONE:
		return 0;
	case CMD_ACCESS_CLIENT:
		*cause = xasprintf("the cellar server runs '%s' for nobody (it "
		    "reads or writes files, or runs long): run 'cellar %s' "
		    "yourself, with your own rights", e->name, e->name);
		return -1;
	case CMD_ACCESS_MEMBER:
		if (is_admin(sv, cl))
			return 0;
		for (i = 0; i < sizeof access_table / sizeof access_table[0]; i++)
			if (access_table[i].e == e)
				return access_table[i].check(sv, cl, a, cause);
		break;
	case CMD_ACCESS_ADMIN:
		if (is_admin(sv, cl))
			return 0;
		*cause = xasprintf("'%s' is for admins: user '%s' is not root, the "
		    "server's user or in access.admins", e->name, cl->user);
		return -1;
	case CMD_ACCESS_NONE:
		break;
	}
	*cause = xasprintf("'%s' has no access class the server knows (%s): "
	    "refused", e->name, cmd_access_name(acc));
	return -1;
}

/* ---- clients ---- */

static void
client_new(struct server *sv, int fd)
{
	struct client *cl;
	struct passwd *pw;
	gid_t gid;
	pid_t pid;

	cl = xcalloc(1, sizeof *cl);
	cl->fd = fd;
	strbuf_init(&cl->in);
	strbuf_init(&cl->out);
	strvec_init(&cl->parked);
	if (ipc_peer(fd, &cl->uid, &gid, &pid) != 0) {
		client_free(cl);
		return;
	}
	cl->gids[0] = gid;
	cl->ngids = 1;
	if ((pw = getpwuid(cl->uid)) != NULL) {
		snprintf(cl->user, sizeof cl->user, "%s", pw->pw_name);
		cl->ngids = MAX_GROUPS;
		if (getgrouplist(pw->pw_name, gid, cl->gids, &cl->ngids) < 0)
			cl->ngids = 1;
	} else
		snprintf(cl->user, sizeof cl->user, "uid%ld", (long)cl->uid);
	if ((size_t)sv->n >= SERVE_MAX_CLIENTS) {
		/* refuse with a reply, not a hang */
		ipc_reply_text(&cl->out, 'e', "cellar: too many connections to the "
		    "cellar server\n", 45);
		ipc_reply_end(&cl->out, CMD_EXIT_FAIL);
		(void)!write(fd, cl->out.buf, cl->out.len);
		client_free(cl);
		return;
	}
	XGROW(sv->c, sv->cap, (size_t)sv->n + 1);
	sv->c[sv->n++] = cl;
}

/* ---- requests and group commit ---- */

/*
 * The requests of one poll round share a commit when two or more came
 * (cmd/group.h): under load, N submits cost one COMMIT instead of N.
 * Their replies wait for it, and no hook starts before it (the console's
 * tick holds the hook queue while a group is open), so a client never
 * hears of, and no node ever acts on, a decision the store could still
 * lose. A lone request commits alone, as before: a failure is then its
 * own (exit 4) and changes nothing. A group whose commit fails has
 * changed the server's memory but not the store: every request of it is
 * answered exit 4, and the server halts (as after a failed pass): it
 * answers reads and refuses changes until a restart takes over from the
 * store.
 */

/* One request on its way through the group (the group's tag). */
struct request {
	struct client	*cl;
	int		 argc;
	char		**argv;		/* copied: the line is gone by then */
	double		 at;
	bool		 refused;	/* by a halted server: it did not run */
};

static struct request *
request_new(struct client *cl, int argc, char *const *argv, double at)
{
	struct request *rq = xcalloc(1, sizeof *rq);
	int i;

	rq->cl = cl;
	rq->at = at;
	rq->argc = argc;
	rq->argv = xcalloc((size_t)argc + 1, sizeof *rq->argv);
	for (i = 0; i < argc; i++)
		rq->argv[i] = xstrdup(argv[i]);
	return rq;
}

static void
request_free(struct request *rq)
{
	int i;

	for (i = 0; i < rq->argc; i++)
		free(rq->argv[i]);
	free(rq->argv);
	free(rq);
}

/* The first store retry of a halted server, and the longest wait. */
#define SERVE_RETRY_MIN	1.0
#define SERVE_RETRY_MAX	10.0

static void
halt(struct server *sv, const char *why)
{
	if (sv->s->console != NULL)
		console_halt(sv->s->console, why);
	if (!sv->halted) {
		slog("halted: %s (reads go on, changes are refused; the store "
		    "is tried again in %.0f s)", why, sv->retry_min);
		sv->retry_wait = sv->retry_min;
		sv->retry_at = session_now() + sv->retry_wait;
	}
	sv->halted = true;
}

/*
 * The log and the audit of a request: every change accepted or refused,
 * by whom. An accepted change's audit row is the dispatcher's (cmd.c); a
 * refusal's is ours, counted into the user's row of this second under a
 * flood (cmd/refusals.h).
 */
static void
request_record(struct server *sv, struct request *rq, const struct cmd_result *res)
{
	struct strbuf line = STRBUF_INIT;
	bool refused = rq->refused || res->status == CMD_EXIT_DENIED;
	char *cause = NULL;

	if (res->entry == NULL || (!refused && !(res->entry->flags & CMD_MUTATES)))
		return;
	cmdline_join(&line, rq->argc, rq->argv);
	slog("%s %s: %s (exit %d%s%s)", refused ? "refused" : "request",
	    rq->cl->user, line.buf, res->status, res->cause != NULL ? ": " : "",
	    res->cause != NULL ? res->cause : "");
	if (refused && refusals_note(&sv->refusals, sv->s, (unsigned)rq->cl->uid,
	    rq->cl->user, line.buf, res->status, res->cause, rq->at, &cause) != 0) {
		slog("the audit log was not written: %s", cause);
		free(cause);
	}
	strbuf_release(&line);
}

/* A request answered (its writes committed), or parked (a wait). */
static void
request_emit(void *arg, void *tag, struct strbuf *out, struct strbuf *err,
    struct cmd_result *res)
{
	struct server *sv = arg;
	struct request *rq = tag;
	struct client *cl = rq->cl;
	int i;

	if (res->again) {
		if (cl->parked.n == 0)
			for (i = 0; i < rq->argc; i++)
				strvec_push(&cl->parked, rq->argv[i]);
		cl->at = rq->at;
		request_free(rq);
		return;
	}
	if (res->status != 0)
		cmd_failure(err, "", res);
	ipc_reply_text(&cl->out, 'o', out->buf != NULL ? out->buf : "", out->len);
	ipc_reply_text(&cl->out, 'e', err->buf != NULL ? err->buf : "", err->len);
	ipc_reply_end(&cl->out, res->status);
	request_record(sv, rq, res);
	strvec_release(&cl->parked);
	strvec_init(&cl->parked);
	request_free(rq);
}

/* Its group did not commit: say so; nothing of it is recorded. */
static void
request_lost(void *arg, void *tag, const struct cmd_result *res,
    const char *cause)
{
	struct request *rq = tag;
	struct strbuf msg = STRBUF_INIT, line = STRBUF_INIT;

	(void)res;
	cmdline_join(&line, rq->argc, rq->argv);
	slog("request %s: %s did not commit: %s", rq->cl->user, line.buf, cause);
	halt(arg, cause);
	strbuf_addf(&msg, "cellar: %s (nothing of this request was recorded; "
	    "the server halted: restart it)\n", cause);
	ipc_reply_text(&rq->cl->out, 'e', msg.buf, msg.len);
	ipc_reply_end(&rq->cl->out, CMD_EXIT_STORE);
	strbuf_release(&msg);
	strbuf_release(&line);
	request_free(rq);
}

static const struct cmd_group_ops request_ops = { request_emit, request_lost };

/* Commit the round's group, if one is open (a failure halts us: lost). */
static void
group_close(struct server *sv)
{
	cmd_group_close(&sv->group, NULL);
}

/*
 * A change asked of a halted server (a failed pass or group commit left
 * its memory ahead of the store): refused, saying why, logged and
 * audited as any refusal. True when it was.
 */
static bool
refuse_halted(struct server *sv, struct client *cl, int argc, char *const *argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const struct cmd_entry *e;
	struct cmd_result res;
	struct request *rq;
	const char *why;
	char *cause = NULL;
	int nw;

	/* the console halts itself when a lone request's pass fails; the
	   server hears of it only at the round's end: ask both */
	why = sv->s->console != NULL ? console_halted(sv->s->console) : NULL;
	if (!sv->halted && why == NULL)
		return false;
	if (why == NULL)
		why = "the store is being tried again";
	e = cmd_find(argc, argv, &nw, &cause);
	free(cause);
	if (e == NULL || !(e->flags & CMD_MUTATES))
		return false;
	group_close(sv);	/* replies keep their order */
	rq = request_new(cl, argc, argv, session_now());
	rq->refused = true;
	memset(&res, 0, sizeof res);
	res.status = CMD_EXIT_STORE;
	res.entry = e;
	res.cause = xasprintf("the live session is halted after a store "
	    "failure (%s); the server tries the store again and resumes by "
	    "itself once it takes writes (see its log), or restart it", why);
	request_emit(sv, rq, &out, &err, &res);
	cmd_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&err);
	return true;
}

/* Run one request's words as cl; false when it was parked (a wait). */
static bool
run_request(struct server *sv, struct client *cl, int argc, char *const *argv,
    double at)
{
	struct session *s = sv->s;
	struct request *rq;
	char *cause = NULL;

	/* the counts of refusal rows whose second is over, before anything
	   (an audit listing) reads them */
	if (refusals_flush(&sv->refusals, s, at, &cause) != 0) {
		slog("the audit log was not written: %s", cause);
		free(cause);
	}
	if (refuse_halted(sv, cl, argc, argv))
		return true;
	rq = request_new(cl, argc, argv, at);
	s->caller = cl->user;
	s->caller_uid = (unsigned)cl->uid;
	s->request_at = at;
	sv->cur = cl;
	cmd_group_dispatch(&sv->group, argc, argv, rq);
	sv->cur = NULL;
	s->caller = NULL;
	s->run_uid = -1;
	s->run_gid = -1;
	s->request_at = 0;
	/* rq is the group's now; a wait is never grouped: parked by now */
	return cl->parked.n == 0;
}

/* The whole lines in cl->in, one request each, until one is parked. */
static void
client_lines(struct server *sv, struct client *cl)
{
	struct cmdline cmd;
	char *nl, *cause = NULL;
	size_t len;
	bool bad;
	int ran = 0;

	/* a round's share, and nothing for a client that is not reading */
	double t0 = session_now();

	while (ran < SERVE_ROUND_LINES && (ran < SERVE_ROUND_FLOOR ||
	    (session_now() - t0) * 1000 < SERVE_ROUND_MS) && client_runnable(sv, cl) &&
	    (nl = memchr(cl->in.buf, '\n', cl->in.len)) != NULL) {
		len = (size_t)(nl - cl->in.buf);
		if (len > 0 && cl->in.buf[len - 1] == '\r')
			len--;		/* a telnet-style client */
		cmdline_init(&cmd);
		bad = cmdline_parsen(cl->in.buf, len, &cmd, NULL, &cause) != 0;
		if (bad || cmd.n != 1)
			group_close(sv);	/* a reply now: replies keep their order */
		if (bad) {
			client_error(cl, CMD_EXIT_USAGE, cause);
			free(cause);
			cause = NULL;
		} else if (cmd.n > 1)
			client_error(cl, CMD_EXIT_USAGE, "one command per request "
			    "line (no ';')");
		else if (cmd.n == 0)
			ipc_reply_end(&cl->out, 0);
		else
			run_request(sv, cl, (int)cmd.cmds[0].n, cmd.cmds[0].v,
			    session_now());
		cmdline_release(&cmd);
		ran++;
		len = (size_t)(nl - cl->in.buf) + 1;
		memmove(cl->in.buf, cl->in.buf + len, cl->in.len - len);
		strbuf_setlen(&cl->in, cl->in.len - len);
	}
	/* a whole line's worth without its end (whole lines wait their turn) */
	if (cl->in.len > IPC_LINE_MAX && !cl->closing &&
	    memchr(cl->in.buf, '\n', cl->in.len) == NULL) {
		group_close(sv);
		client_error(cl, CMD_EXIT_USAGE, "request line too long (at most "
		    "65536 bytes)");
		cl->closing = true;
		strbuf_reset(&cl->in);
	}
}

/* ---- the loop ---- */

/*
 * WAL checkpoints off the requests' path: the session's store copies no
 * WAL into the database at its commits (a commit past 1,000 pages did,
 * with two fsyncs, inside whichever request it was); a connection of our
 * own does it, passively, when a round of the loop had no request, or
 * after SERVE_BUSY_ROUNDS rounds that all had one (a steady load). A
 * failing checkpoint leaves its pages in the WAL (readers and a restart
 * read them there); it is said once, and so is its working again, and it
 * is tried again SERVE_RETRY_MIN later, not at every idle round (a full
 * disk made that 450 log lines a second).
 */
#define SERVE_BUSY_ROUNDS	2000

static void
checkpoint(struct server *sv, bool idle)
{
	struct store *st = sv->s->store;
	char *cause = NULL;
	int wal, done;

	if (st == NULL)
		return;
	if (st != sv->wst) {
		/* a new connection (a load reopened it): ours anew */
		store_close(sv->ck);
		sv->ck = NULL;
		sv->wst = NULL;
		if (store_wal_autocheckpoint(st, false, &cause) != 0 ||
		    store_open_checkpointer(st, &sv->ck, &cause) != 0) {
			slog("WAL checkpoints stay with the commits: %s", cause);
			free(cause);
			store_wal_autocheckpoint(st, true, &cause);
			free(cause);
			sv->wst = st;	/* not again for this connection */
			return;
		}
		sv->wst = st;
	}
	if (sv->ck == NULL || (!idle && ++sv->busy < SERVE_BUSY_ROUNDS) ||
	    (sv->ck_failed != NULL && session_now() < sv->ck_at))
		return;
	sv->busy = 0;
	/* what a reader holds stays in the WAL: the next round gets it */
	if (store_wal_checkpoint(sv->ck, &wal, &done, &cause) != 0) {
		if (sv->ck_failed == NULL || strcmp(sv->ck_failed, cause) != 0)
			slog("WAL checkpoint: %s (tried again every %.0f s, said "
			    "again when it works)", cause, SERVE_RETRY_MIN);
		free(sv->ck_failed);
		sv->ck_failed = cause;
		sv->ck_at = session_now() + SERVE_RETRY_MIN;
	} else if (sv->ck_failed != NULL) {
		slog("WAL checkpoint: works again");
		free(sv->ck_failed);
		sv->ck_failed = NULL;
	}
}

static void
accept_all(struct server *sv)
{
	int fd;

	int snd = SERVE_CLIENT_SNDBUF;

	while ((fd = accept4(sv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		/* the kernel's share of a client that does not read: small */
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, sizeof snd);
		client_new(sv, fd);
	}
}

/* The console, made again after a load replaced the engine. */
static int
console_up(struct server *sv, char **cause)
{
	struct console *c;
	const char *notes;
	bool fresh = sv->s->console == NULL;

	if (console_get(sv->s, &c, cause) != 0)
		return -1;
	if (fresh) {
		console_set_log(c, say_decision, sv);
		if ((notes = console_notes(c)) != NULL)
			slog("%s", notes);
	}
	return 0;
}

static void
reload(struct server *sv)
{
	char *argv[] = { (char *)"load", sv->s->spec_path, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct cmd_result res;

	slog("SIGHUP: reloading '%s'", sv->s->spec_path);
	if (cmd_dispatch(sv->s, 2, argv, &out, &err, &res) != 0)
		cmd_failure(&err, "", &res);
	if (out.len > 0)
		slog("%s", out.buf);
	if (err.len > 0)
		slog("%s", err.buf);
	cmd_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&err);
}

/*
 * A halted server tries the store again on a timer (1 s, doubling to
 * 10 s): a write of its own (the run's clock). When the store takes it,
 * the server does in its own process what a restart would: the console
 * (its memory ahead of the store) is dropped with its hooks in flight,
 * the session rebuilt from the store, and the live jobs taken over from
 * it (console_get: status asked of every started pod), so nothing the
 * store lacks ever reaches a node. 0: resumed; -1 with *cause: still
 * halted.
 */
static int
resume(struct server *sv, char **cause)
{
	struct session *s = sv->s;
	struct strbuf diags = STRBUF_INIT;
	bool created;

	/* a probe first, unless a failed resume left no run to write to */
	if (s->store != NULL && s->run != 0) {
		if (store_begin(s->store, cause) != 0)
			return -1;
		if (store_run_touch(s->store, s->run, session_now(), cause) != 0 ||
		    store_commit(s->store, cause) != 0) {
			store_rollback(s->store);
			return -1;
		}
	}
	console_free(s->console);
	s->console = NULL;
	if (session_reload(s, &diags, cause) != 0 ||
	    session_log_begin(s, &created, cause) != 0 ||
	    session_log_commit(s, created, cause) != 0 ||
	    console_up(sv, cause) != 0) {
		strbuf_release(&diags);
		return -1;
	}
	if (diags.len > 0)
		slog("%s", diags.buf);
	strbuf_release(&diags);
	return 0;
}

/* Halted: the store's turn came again? The poll timeout until the next. */
static int
halted_turn(struct server *sv)
{
	char *cause = NULL;
	double now = session_now();

	if (now >= sv->retry_at) {
		if (resume(sv, &cause) == 0) {
			slog("resumed: the store takes writes again; the live jobs "
			    "were taken over from it, as after a restart");
			sv->halted = false;
			return 0;
		}
		if ((sv->retry_wait *= 2) > SERVE_RETRY_MAX)
			sv->retry_wait = sv->retry_min > SERVE_RETRY_MAX ?
			    sv->retry_min : SERVE_RETRY_MAX;
		sv->retry_at = now + sv->retry_wait;
		free(cause);
	}
	return (int)((sv->retry_at - now) * 1000) + 1;
}

static void
serve_loop(struct server *sv)
{
	struct client *cl;
	char *cause = NULL;
	int k, np, ms, waiting;
	char buf[64];

	while (!serve_stop) {
		if (serve_hup) {
			serve_hup = 0;
			reload(sv);
		}
		if (!sv->halted && console_up(sv, &cause) != 0) {
			slog("%s", cause);
			free(cause);
			cause = NULL;
		}
		XGROW(sv->pfd, sv->pcap, (size_t)sv->n + 2 + 64);
		np = 0;
		ms = 200;
		sv->pfd[np++] = (struct pollfd){ .fd = sv->lfd, .events = POLLIN };
		sv->pfd[np++] = (struct pollfd){ .fd = sv->sigfd, .events = POLLIN };
		for (k = 0; k < sv->n; k++) {
			cl = sv->c[k];
			sv->pfd[np].fd = cl->fd;
			sv->pfd[np].events = 0;
			if (!cl->eof && client_runnable(sv, cl) && cl->in.len <= IPC_LINE_MAX)
				sv->pfd[np].events |= POLLIN;
			if (client_unsent(cl) > 0)
				sv->pfd[np].events |= POLLOUT;
			sv->pfd[np++].revents = 0;
			/* requests left over from the last round: no sleep */
			if (client_runnable(sv, cl) && memchr(cl->in.buf, '\n', cl->in.len))
				ms = 0;
		}
		if (sv->halted) {
			/* no hook is serviced: their fds and due times would spin */
			int turn = halted_turn(sv);

			ms = ms == 0 ? 0 : turn;
		}
		if (!sv->halted && sv->s->console != NULL) {
			np += console_pollfds(sv->s->console, sv->pfd + np, 64);
			ms = console_timeout(sv->s->console, ms);
		}
		if ((k = poll(sv->pfd, (nfds_t)np, ms)) < 0 && errno != EINTR) {
			slog("poll: %s", strerror(errno));
			break;
		}
		if (sv->pfd[1].revents & POLLIN)
			while (read(sv->sigfd, buf, sizeof buf) > 0)
				;
		if (serve_stop)
			break;
		checkpoint(sv, k == 0);
		if (sv->pfd[0].revents & POLLIN)
			accept_all(sv);
		/* clients in the order they came: requests keep their order */
		for (k = 0; k < sv->n && k + 2 < np; k++) {
			short re = sv->pfd[k + 2].revents;

			cl = sv->c[k];
			if (sv->pfd[k + 2].fd != cl->fd)
				continue;	/* a client accepted just now */
			if ((re & (POLLIN | POLLHUP | POLLERR)) && !cl->eof &&
			    (sv->pfd[k + 2].events & POLLIN) && !client_read(cl))
				cl->closing = true, strbuf_reset(&cl->out);
			/* gone for good: drop it (a wait parked, or replies
			   nobody will read) */
			if ((re & (POLLHUP | POLLERR)) && (cl->parked.n > 0 ||
			    !(sv->pfd[k + 2].events & POLLIN)))
				cl->closing = true, strbuf_reset(&cl->out);
		}
		/* then their requests, sharing a commit when two or more came */
		for (k = waiting = 0; k < sv->n && waiting < 2; k++)
			if (client_runnable(sv, sv->c[k]))
				waiting += client_waiting(sv->c[k], 2 - waiting);
		sv->group.enabled = waiting >= 2;
		for (k = 0; k < sv->n; k++)
			client_lines(sv, sv->c[k]);
		sv->group.enabled = false;
		group_close(sv);
		if (!sv->halted && sv->s->console != NULL) {
			struct console *c = sv->s->console;

			if (console_halted(c) == NULL && console_tick(c, &cause) != 0) {
				free(cause);
				cause = NULL;
			}
			/* the tick's failure, or a request's pass */
			if (console_halted(c) != NULL)
				halt(sv, console_halted(c));
		}
		for (k = 0; k < sv->n; k++) {
			cl = sv->c[k];
			if (cl->parked.n > 0 && !cl->closing &&
			    run_request(sv, cl, (int)cl->parked.n, cl->parked.v, cl->at))
				client_lines(sv, cl);	/* what came behind it */
			else if (cl->parked.n == 0 && !cl->closing)
				client_lines(sv, cl);
		}
		for (k = sv->n - 1; k >= 0; k--) {
			cl = sv->c[k];
			if (client_unsent(cl) > 0 && !client_write(cl)) {
				client_drop(sv, k);
				continue;
			}
			if (client_unsent(cl) > SERVE_MAX_BACKLOG ||
			    (cl->closing && client_unsent(cl) == 0) ||
			    (cl->eof && cl->parked.n == 0 && client_unsent(cl) == 0 &&
			    memchr(cl->in.buf, '\n', cl->in.len) == NULL))
				client_drop(sv, k);
		}
		clients_over_budget(sv);
	}
}

/* ---- start and stop ---- */

/* As many fds as the hard limit allows: a client is one. */
static void
raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The spec: --spec (reconfiguring the store's run onto it), else the
   store's running session run, else the default; it needs a backend. */
static int
serve_spec(struct session *s, const char *path, char **cause)
{
	struct strbuf diags = STRBUF_INIT;
	struct session_reconf rc;
	int status = CMD_EXIT_SPEC, r;
	bool created;

	memset(&rc, 0, sizeof rc);
	if (path != NULL)
		r = session_reconfigure(s, path, s->mode, SESSION_RECONF_IF_CHANGED,
		    &diags, &rc, &status, cause);
	else if ((r = session_ensure(s, &diags, cause)) == -2)
		status = CMD_EXIT_STORE;
	if (r == 0 && path != NULL)
		session_reconf_report(&rc, &diags);
	session_reconf_release(&rc);
	if (diags.len > 0)
		slog("%s", diags.buf);
	strbuf_release(&diags);
	if (r != 0)
		return status;
	if (s->spec->backend.type == SPEC_BACKEND_EMULATOR) {
		*cause = xasprintf("spec '%s' has no backend: section: there is "
		    "nothing to serve (see cellar-spec(5), BACKEND)", s->spec_path);
		return CMD_EXIT_SPEC;
	}
	/* the run, now: a server restarted without --spec finds its spec */
	if (session_log_begin(s, &created, cause) != 0 ||
	    session_log_commit(s, created, cause) != 0)
		return CMD_EXIT_STORE;
	return 0;
}

/*
 * Does stderr go to the journal? systemd sets JOURNAL_STREAM to the
 * "DEVICE:INODE" of the stream it gave a service; stderr redirected
 * elsewhere (a file, a pipe) is not it (sd_journal_stream_fd(3)).
 */
static bool
stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js != NULL && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
	    fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == dev &&
	    (unsigned long long)st.st_ino == ino;
}

/* A test's setting (a number, else the default). */
static double
env_number(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double d;

	if (v == NULL || *v == '\0')
		return dflt;
	d = strtod(v, &end);
	return *end == '\0' && d > 0 ? d : dflt;
}

static gid_t
socket_gid(const struct session *s, char **cause)
{
	const char *g = s->spec->access.socket_group;
	struct group *gr;

	if (g == NULL)
		return (gid_t)-1;
	if ((gr = getgrnam(g)) == NULL) {
		*cause = xasprintf("access.socketGroup: no group '%s'", g);
		return (gid_t)-2;
	}
	return gr->gr_gid;
}

int
serve_run(struct session *s, const struct serve_opts *o, char **cause)
{
	const struct frontend *fe = s->fe;
	struct server sv;
	struct sigaction sa;
	struct store *st;
	char *lockp;
	struct stat st_now;
	pid_t holder;
	gid_t gid;
	int rc, status, wakep[2] = { -1, -1 };
	bool color = s->out.color;

	memset(&sv, 0, sizeof sv);
	sv.s = s;
	sv.lfd = -1;
	sv.sigfd = -1;
	sv.self = geteuid();
	/* CELLAR_SERVE_BUDGET: the tests' smaller budget (bytes) */
	sv.budget = (size_t)env_number("CELLAR_SERVE_BUDGET", SERVE_BUDGET);
	/* CELLAR_SERVE_RETRY: the first retry of a halted server (seconds) */
	sv.retry_min = env_number("CELLAR_SERVE_RETRY", SERVE_RETRY_MIN);
	serve_stop = serve_hup = 0;
	serve_stamp = !stderr_is_journal();
	if (o->db != NULL)
		session_set_db(s, o->db);
	if (o->socket != NULL) {
		free(s->socket_path);
		s->socket_path = xstrdup(o->socket);
	}
	if ((sv.db = session_db_path(s, cause)) == NULL)
		return CMD_EXIT_STORE;
	if (store_is_memory(sv.db)) {
		free(sv.db);
		*cause = xstrdup("a server needs a store file (--db PATH or "
		    "CELLAR_DB), not ':memory:': the cluster's state must outlive it");
		return CMD_EXIT_STORE;
	}
	/* the store's directory first: the lock lives beside it */
	if (session_store(s, true, &st, cause) != 0) {
		free(sv.db);
		return CMD_EXIT_STORE;
	}
	lockp = ipc_lock_path(sv.db);
	rc = ipc_lock(&sv.lock, lockp, &holder, cause);
	free(lockp);
	if (rc != 0) {
		if (rc == 1)
			*cause = xasprintf("a cellar server (pid %ld) already drives "
			    "'%s'", (long)holder, sv.db);
		free(sv.db);
		return rc == 1 ? CMD_EXIT_FAIL : CMD_EXIT_STORE;
	}
	s->serving = true;	/* invariant 1: from here on we may drive */
	s->remote_state = -1;
	status = serve_spec(s, o->spec, cause);
	if (status == 0 && (sv.sock = session_socket_path(s, cause)) == NULL)
		status = CMD_EXIT_USAGE;
	if (status == 0 && (gid = socket_gid(s, cause)) == (gid_t)-2)
		status = CMD_EXIT_SPEC;
	if (status == 0 && (sv.lfd = ipc_listen(sv.sock, gid, cause)) < 0)
		status = CMD_EXIT_FAIL;
	if (status == 0 && (lstat(sv.sock, &sv.sock_st) != 0 ||
	    pipe2(wakep, O_NONBLOCK | O_CLOEXEC) != 0)) {
		*cause = xasprintf("cannot start serving '%s': %s", sv.sock,
		    strerror(errno));
		unlink(sv.sock);
		status = CMD_EXIT_FAIL;
	}
	if (status != 0)
		goto out;
	sv.sigfd = wakep[0];
	serve_wake = wakep[1];

	raise_nofile();
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;	/* no SA_RESTART: poll returns EINTR */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	s->authorize = authorize;
	s->authorize_arg = &sv;
	cmd_group_init(&sv.group, s, &request_ops, &sv);
	refusals_init(&sv.refusals);
	s->fe = NULL;	/* requests get no terminal: watch and dash are refused */
	/* replies go to the clients, never to our terminal: no colour, and
	   a client's NO_COLOR and --no-color hold whatever ours are (ours is
	   put back at the end: color) */
	s->out.color = false;

	slog("pid %ld serving '%s' (spec '%s', backend %s) on '%s'",
	    (long)getpid(), sv.db, s->spec_path,
	    s->spec->backend.type == SPEC_BACKEND_SSH ? "ssh" : "local", sv.sock);
	serve_loop(&sv);
	group_close(&sv);
	cmd_group_release(&sv.group, NULL);
	if (refusals_flush(&sv.refusals, s, -1, cause) != 0) {
		slog("the audit log was not written: %s", *cause);
		free(*cause);
		*cause = NULL;
	}
	slog("stopping (%s)", serve_stop ? "signal" : "error");
	/* ours only: never a socket another server bound there since */
	if (lstat(sv.sock, &st_now) == 0 && st_now.st_dev == sv.sock_st.st_dev &&
	    st_now.st_ino == sv.sock_st.st_ino)
		unlink(sv.sock);
out:
	while (sv.n > 0)
		client_drop(&sv, sv.n - 1);
	free(sv.c);
	free(sv.pfd);
	if (sv.lfd >= 0)
		close(sv.lfd);
	serve_wake = -1;
	if (wakep[0] >= 0) {
		close(wakep[0]);
		close(wakep[1]);
	}
	free(sv.ck_failed);
	/* hooks in flight are killed with the console; jobs run on */
	console_free(s->console);
	s->console = NULL;
	store_close(sv.ck);
	if (sv.wst != NULL && sv.wst == s->store) {
		char *why = NULL;

		store_wal_autocheckpoint(s->store, true, &why);
		free(why);
	}
	s->authorize = NULL;
	s->fe = fe;
	s->out.color = color;
	s->serving = false;
	ipc_unlock(&sv.lock);
	free(sv.sock);
	free(sv.db);
	return status;
}
