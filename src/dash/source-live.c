/*
 * source-live.c — the dashboard on a live spec (a backend: section), as a
 * client of the store's server (serve.h): only the server runs hooks, and
 * this source runs none and starts, stops or touches no job, so closing
 * the dashboard changes nothing on the cluster.
 *
 * Why the store and not only the server: the server commits every
 * decision (job row, placement, event) before its hooks run, so its store
 * is its cluster; the store source (source-store.c, dash --follow) already
 * rebuilds cells and VC usage from the stored placements, reads only what
 * was committed since the last refresh and the events as they commit, and
 * shows a job's history — all without a request to the server, and just
 * the same when no server runs (a read-only view of what the store holds).
 * What the store lacks is what the server keeps in memory: each live job's
 * phase (starting, suspended, migrating ...; stored too, in the job's
 * sealed blob, but only the console reads that format) and a queued job's
 * pending reason, which the scheduler sets at each pass and the store has
 * only as of the job's last decision. So each advance also asks the
 * server `queue -o json` (the command grammar, on a connection of the
 * source's own: ipc.h) and lays its phases and reasons over the stored
 * jobs (dash_store_live). A request runs one tick in the server first,
 * as any queue does; it is small next to what a refresh draws.
 *
 * The server is looked for at each advance: when its socket is there,
 * connected to (the connection trusted only when its peer holds the
 * store's lock, ipc_connect); a reply that fails means it went away. The
 * status line (dash_data.server) says "cellar server pid N", or "no cellar
 * server is running for STORE"; writable (':' commands that change state,
 * which cmd_dispatch sends to the server) only while one answers. Until
 * the store has a run (no file yet, or a server that has recorded nothing)
 * the view is the session's spec with nothing on it; the first run found
 * replaces it (spec_gen moves).
 *
 * The session is borrowed for its spec, engine (the empty view) and its
 * store's and socket's paths; the source keeps its own connection and its
 * own read-only store connection (through the store source).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster/session.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "dash/source.h"
#include "ipc/ipc.h"
#include "store/store.h"

struct live_src {
	struct session		*s;
	char			*db;		/* the store's path */
	char			*sock;		/* the server's socket, or NULL */
	char			*lock;		/* the store's lock, or NULL */
	bool			 memory;	/* a store in memory: no server */
	struct dash_source	 st;		/* the store source, once a run is there */
	int			 fd;		/* connected to the server, or -1 */
	long			 pid;		/* its pid when connected */
	char			*why;		/* the server could not be asked, or NULL */
	char			*status;	/* dash_data.server */
	struct dash_live_job	*lj;		/* the server's word, last asked */
	int			 nlj;
	size_t			 lj_cap;
	struct strbuf		 names;		/* lj's strings, NUL-separated */
	double			 now, epoch;
	uint64_t		 gen;
};

static const char *
backend_name(const struct spec *sp)
{
	switch (sp->backend.type) {
	case SPEC_BACKEND_LOCAL:
		return "local";
	case SPEC_BACKEND_SSH:
		return "ssh";
	default:
		return "emulator";
	}
}

static void
disconnect(struct live_src *x)
{
	if (x->fd >= 0)
		close(x->fd);
	x->fd = -1;
	x->pid = 0;
}

static void
set_why(struct live_src *x, char *why)
{
	free(x->why);
	x->why = why;
}

/*
 * Look for the server when not connected. Its socket not there: none
 * (the lock is not even looked at). A socket whose peer is not the lock's
 * holder is a problem to show, not a server.
 */
static void
find_server(struct live_src *x)
{
	struct stat sb;
	char *cause = NULL;
	int rc;

	if (x->fd >= 0 || x->memory || x->sock == NULL)
		return;
	if (lstat(x->sock, &sb) != 0)
		return;
	rc = ipc_connect(x->sock, x->lock, &x->fd, &cause);
	if (rc == 0) {
		x->pid = (long)ipc_lock_holder(x->lock);
		set_why(x, NULL);
	} else {
		x->fd = -1;
		set_why(x, rc < 0 ? cause : NULL);
		if (rc >= 0)
			free(cause);
	}
}

/* A reason's name as job_reason_name gives it, back to the enum. */
static enum job_reason
reason_of(const char *name)
{
	int r;

	for (r = 0; r < JOB_NREASONS; r++)
		if (strcmp(job_reason_name((enum job_reason)r), name) == 0)
			return (enum job_reason)r;
	return JOB_REASON_NONE;
}

/* Offsets into names until the array is complete (names may move). */
struct pending {
	size_t		 name, phase, reason;	/* (size_t)-1: none */
};

static size_t
keep(struct strbuf *sb, const char *s)
{
	size_t at = sb->len;

	strbuf_adds(sb, s);
	strbuf_addc(sb, '\0');
	return at;
}

/* One job object of the reply's "jobs" array. */
static int
parse_job(struct json_reader *r, struct strbuf *names, struct pending *p,
    char **cause)
{
	struct json_token t;
	char key[16];

	p->name = p->phase = p->reason = (size_t)-1;
	for (;;) {
		if (json_reader_next(r, &t, cause) != 0)
			return -1;
		if (t.type == JSON_TOK_OBJECT_END)
			return 0;
		if (t.type != JSON_TOK_STRING) {
			*cause = xstrdup("a job that is not an object");
			return -1;
		}
		snprintf(key, sizeof key, "%s", t.str);
		if (json_reader_next(r, &t, cause) != 0 ||
		    json_reader_skip(r, &t, cause) != 0)
			return -1;
		if (t.type != JSON_TOK_STRING)
			continue;
		if (strcmp(key, "job") == 0)
			p->name = keep(names, t.str);
		else if (strcmp(key, "phase") == 0)
			p->phase = keep(names, t.str);
		else if (strcmp(key, "reason") == 0)
			p->reason = keep(names, t.str);
	}
}

/* The jobs of a `queue -o json` reply: name, phase, a queued one's reason. */
static int
parse_queue(struct live_src *x, const char *text, size_t len, char **cause)
{
	struct json_reader r;
	struct json_token t;
	struct pending *p = NULL;
	size_t end, cap = 0;
	int n = 0, i, rc = -1;
	bool jobs;

	strbuf_reset(&x->names);
	if (json_validate(text, len, &end, cause) != 0)
		return -1;
	json_reader_init(&r, text, len);
	if (json_reader_next(&r, &t, cause) != 0)
		goto out;
	if (t.type != JSON_TOK_OBJECT) {
		*cause = xstrdup("not a JSON object");
		goto out;
	}
	for (;;) {
		if (json_reader_next(&r, &t, cause) != 0)
			goto out;
		if (t.type == JSON_TOK_OBJECT_END)
			break;
		jobs = t.type == JSON_TOK_STRING && strcmp(t.str, "jobs") == 0;
		if (json_reader_next(&r, &t, cause) != 0)
			goto out;
		if (!jobs || t.type != JSON_TOK_ARRAY) {
			if (json_reader_skip(&r, &t, cause) != 0)
				goto out;
			continue;
		}
		for (;;) {
			if (json_reader_next(&r, &t, cause) != 0)
				goto out;
			if (t.type == JSON_TOK_ARRAY_END)
				break;
			if (t.type != JSON_TOK_OBJECT) {
				*cause = xstrdup("a job that is not an object");
				goto out;
			}
			XGROW(p, cap, (size_t)n + 1);
			if (parse_job(&r, &x->names, &p[n], cause) != 0)
				goto out;
			if (p[n].name != (size_t)-1)
				n++;
		}
	}
	XGROW(x->lj, x->lj_cap, (size_t)n + 1);
	for (i = 0; i < n; i++) {
		struct dash_live_job *l = &x->lj[i];

		l->name = x->names.buf + p[i].name;
		l->phase = p[i].phase != (size_t)-1 ? x->names.buf + p[i].phase : NULL;
		l->queued = p[i].reason != (size_t)-1;
		l->reason = l->queued ? reason_of(x->names.buf + p[i].reason) :
		    JOB_REASON_NONE;
	}
	x->nlj = n;
	rc = 0;
out:
	free(p);
	json_reader_release(&r);
	return rc;
}

/* Ask the server for its live jobs; false when it did not say. */
static bool
ask_server(struct live_src *x)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *cause = NULL, *nl;
	int status = 0;
	bool said = false;

	if (x->fd < 0)
		return false;
	if (ipc_request(x->fd, "queue -o json", &out, &err, &status, NULL, 2000,
	    &cause) != 0) {
		/* gone (or it answered something else): looked for again */
		free(cause);
		cause = NULL;	/* freed once more below */
		disconnect(x);
		set_why(x, NULL);
	} else if (status != 0) {
		/* it answered, with an error (a halted loop, an access rule) */
		if (err.len > 0 && (nl = memchr(err.buf, '\n', err.len)) != NULL)
			*nl = '\0';
		set_why(x, xasprintf("queue: %s", err.len > 0 ? err.buf :
		    "failed"));
	} else if (parse_queue(x, out.buf != NULL ? out.buf : "", out.len,
	    &cause) != 0)
		set_why(x, xasprintf("queue: %s", cause));
	else {
		set_why(x, NULL);
		said = true;
	}
	free(cause);
	strbuf_release(&out);
	strbuf_release(&err);
	return said;
}

/* The store source, once the store has a run to show. */
static void
find_store(struct live_src *x)
{
	char *cause = NULL;

	if (x->st.ops != NULL || x->memory || !store_exists(x->db))
		return;
	if (dash_source_store(&x->st, x->db, &cause) != 0) {
		x->st.ops = NULL;
		x->st.self = NULL;
	}
	free(cause);	/* no run yet, or not readable yet: the next advance */
}

static void
set_status(struct live_src *x)
{
	const char *problem = x->st.ops != NULL ? dash_store_problem(&x->st) : NULL;
	const char *why = x->why != NULL ? x->why : problem;

	free(x->status);
	if (x->fd >= 0)
		x->status = xasprintf("cellar server pid %ld%s%s", x->pid,
		    why != NULL ? " - " : "", why != NULL ? why : "");
	else
		x->status = xasprintf("no cellar server is running for %s%s%s", x->db,
		    why != NULL ? " - " : "", why != NULL ? why : "");
}

static void
live_src_data(void *self, struct dash_data *d)
{
	struct live_src *x = self;

	if (x->st.ops != NULL) {
		x->st.ops->data(x->st.self, d);
		d->spec_gen++;	/* 1 was the empty view's */
		if (d->epoch == 0)
			d->epoch = x->epoch;	/* not a session's run */
	} else {
		memset(d, 0, sizeof *d);
		d->spec_name = x->s->spec_path;
		d->policy = "priority";
		d->spec = x->s->spec;
		d->engine = x->s->engine;
		d->epoch = x->epoch;
		d->spec_gen = 1;
	}
	d->backend = backend_name(d->spec);
	d->follow = NULL;
	d->server = x->status;
	d->now = x->now;	/* the wall clock: waits go on between commits */
	d->wall = true;
	d->done = false;
	d->writable = x->fd >= 0;
	d->gen = x->gen;
}

static int
live_src_advance(void *self, double dt, dash_rec_fn fn, void *arg, char **cause)
{
	struct live_src *x = self;
	bool said;

	(void)dt;
	find_server(x);
	find_store(x);
	if (x->st.ops != NULL && x->st.ops->advance(x->st.self, 0, fn, arg, cause) != 0)
		return -1;	/* (the store source never fails) */
	said = ask_server(x);
	if (x->st.ops != NULL)
		dash_store_live(&x->st, said ? x->lj : NULL, said ? x->nlj : 0);
	x->now = session_now();
	set_status(x);
	x->gen++;
	return 0;
}

static void
live_src_key(void *self, int job, struct policy_key *key, int *klass)
{
	struct live_src *x = self;

	if (x->st.ops != NULL) {
		x->st.ops->job_key(x->st.self, job, key, klass);
		return;
	}
	memset(key, 0, sizeof *key);
	key->id = job;
	*klass = 0;
}

static void
live_src_changes(void *self, struct dash_changes *ch)
{
	struct live_src *x = self;

	if (x->st.ops != NULL) {
		x->st.ops->changes(x->st.self, ch);
		return;
	}
	memset(ch, 0, sizeof *ch);
	ch->all = true;
}

static int
live_src_history(void *self, const char *job, struct strbuf *out)
{
	struct live_src *x = self;

	if (x->st.ops == NULL)
		return 0;
	return x->st.ops->history(x->st.self, job, out);
}

static void
live_src_free(void *self)
{
	struct live_src *x = self;

	if (x == NULL)
		return;
	disconnect(x);
	dash_source_free(&x->st);
	free(x->db);
	free(x->sock);
	free(x->lock);
	free(x->why);
	free(x->status);
	free(x->lj);
	strbuf_release(&x->names);
	free(x);
}

static const struct dash_source_ops live_src_ops = {
	"live", live_src_data, live_src_advance, live_src_key, live_src_changes,
	live_src_free, live_src_history, NULL,
};

int
dash_source_live(struct dash_source *src, struct session *s, char **cause)
{
	struct live_src *x;
	char *why = NULL;

	x = xcalloc(1, sizeof *x);
	x->s = s;
	x->fd = -1;
	strbuf_init(&x->names);
	if ((x->db = session_db_path(s, cause)) == NULL) {
		live_src_free(x);
		return -1;
	}
	x->memory = store_is_memory(x->db);
	if (!x->memory) {
		x->sock = session_socket_path(s, &why);
		x->lock = ipc_lock_path(x->db);
		if (x->sock == NULL)
			set_why(x, why);	/* shown: no server can be found */
	}
	x->epoch = x->now = session_now();
	find_server(x);
	find_store(x);
	set_status(x);
	x->gen = 1;
	src->ops = &live_src_ops;
	src->self = x;
	return 0;
}
