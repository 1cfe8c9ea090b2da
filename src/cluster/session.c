/*
 * session.c — the session: current spec, engine, output defaults and the
 * state store. Loading a spec goes spec_load -> engine_create and swaps
 * both in only when both succeed, so a bad file never leaves the console
 * without a cluster. The store is opened lazily, read-only until a command
 * needs to write.
 */
#include "cluster/session.h"
#include "cluster/session-log.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/xmalloc.h"
#include "ipc/ipc.h"
#include "store/store.h"

void
session_init(struct session *s)
{
	memset(s, 0, sizeof *s);	/* every field not named below is 0 */
	s->spec_path = NULL;
	s->spec = NULL;
	s->engine = NULL;
	s->mode = ENGINE_HIVED;
	s->out.format = OUT_TABLE;
	s->out.header = true;
	s->out.color = false;
	s->quiet = false;
	s->read_only = false;
	s->db_path = NULL;
	s->store = NULL;
	s->run = 0;
	s->resume_run = 0;
	s->fe = NULL;
	s->console = NULL;
	s->console_release = NULL;
	s->socket_path = NULL;
	s->serving = false;
	s->remote_fd = -1;
	s->remote_state = 0;
	s->remote_pid = 0;
	s->stop = NULL;
	s->caller = NULL;
	s->caller_uid = 0;
	s->run_uid = -1;
	s->run_gid = -1;
	s->request_at = 0;
	s->audit_line = NULL;
	s->audited = false;
	s->authorize = NULL;
	s->authorize_arg = NULL;
}

/* Drop the spec and its engine, as before any load. */
static void
session_unload(struct session *s)
{
	if (s->console != NULL)		/* before the engine it schedules on */
		s->console_release(s->console);
	s->console = NULL;
	session_started_clear(s);
	engine_free(s->engine);		/* before the spec it points into */
	spec_free(s->spec);
	free(s->spec_path);
	s->engine = NULL;
	s->spec = NULL;
	s->spec_path = NULL;
}

void
session_release(struct session *s)
{
	session_store_close(s);
	session_unload(s);
	session_remote_close(s);
	free(s->started);
	free(s->started_ok);
	s->started = NULL;
	s->started_ok = NULL;
	s->nstarted = 0;
	free(s->db_path);
	s->db_path = NULL;
	free(s->socket_path);
	s->socket_path = NULL;
}

void
session_set_db(struct session *s, const char *path)
{
	session_store_close(s);
	session_remote_close(s);
	s->remote_state = 0;
	free(s->db_path);
	s->db_path = path != NULL ? xstrdup(path) : NULL;
}

char *
session_db_path(const struct session *s, char **cause)
{
	if (s->db_path != NULL)
		return xstrdup(s->db_path);
	return store_default_path(cause);
}

void
session_store_close(struct session *s)
{
	store_close(s->store);
	s->store = NULL;
	s->run = 0;
}

int
session_store(struct session *s, bool write, struct store **out, char **cause)
{
	char *path;
	int rc;

	*out = NULL;
	if (s->store != NULL && (!write || store_writable(s->store))) {
		*out = s->store;
		return 0;
	}
	if ((path = session_db_path(s, cause)) == NULL)
		return -1;
	/* A throw-away database exists once opened, for writing. */
	if (!write && store_is_memory(path)) {
		*cause = xstrdup("no state store at ':memory:' (nothing recorded yet)");
		free(path);
		return STORE_NOTFOUND;
	}
	session_store_close(s);
	rc = store_open(path, write ? STORE_WRITE | (s->db_path == NULL ?
	    STORE_MKDIR : 0) : 0, &s->store, cause);
	free(path);
	if (rc == 0)
		*out = s->store;
	return rc;
}

char *
session_socket_path(const struct session *s, char **cause)
{
	char *db, *p;

	if (s->socket_path != NULL)
		return ipc_socket_path(NULL, s->socket_path, cause);
	if ((db = session_db_path(s, cause)) == NULL)
		return NULL;
	p = ipc_socket_path(db, NULL, cause);
	free(db);
	return p;
}

void
session_remote_close(struct session *s)
{
	if (s->remote_fd >= 0)
		close(s->remote_fd);
	s->remote_fd = -1;
	if (s->remote_state == 1)
		s->remote_state = 0;
}

int
session_remote(struct session *s, char **cause)
{
	char *sock, *db, *lock = NULL, *why = NULL;
	int rc;

	if (s->serving || s->remote_state < 0)
		return 0;
	if (s->remote_state == 1)
		return 1;
	/* a store in memory is private to this process: no server */
	if (s->socket_path == NULL && s->db_path != NULL &&
	    store_is_memory(s->db_path)) {
		s->remote_state = -1;
		return 0;
	}
	if ((sock = session_socket_path(s, cause)) == NULL)
		return -1;
	/* the lock beside the store vouches for the socket (a socket named
	   by hand for a store in memory has none) */
	if ((db = session_db_path(s, &why)) != NULL && !store_is_memory(db))
		lock = ipc_lock_path(db);
	free(db);
	free(why);
	rc = ipc_connect(sock, lock, &s->remote_fd, cause);
	if (rc == 0) {
		s->remote_state = 1;
		s->remote_pid = lock != NULL ? (long)ipc_lock_holder(lock) : 0;
	} else if (rc == 1)
		s->remote_state = -1;
	free(sock);
	free(lock);
	return rc == 0 ? 1 : rc == 1 ? 0 : -1;
}

double
session_now(void)
{
	return store_wall_now();
}

void
session_add_diags(struct strbuf *sb, const struct spec_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		strbuf_addf(sb, "%s\n", d->v[i].text);
	if (d->dropped > 0)
		strbuf_addf(sb, "(%zu more diagnostics not shown)\n", d->dropped);
}

void
session_add_errors(struct strbuf *sb, const struct spec_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].severity == SPEC_ERROR)
			strbuf_addf(sb, "%s\n", d->v[i].text);
}

int
session_njobs(const struct session *s)
{
	struct engine_job_info info;
	int id, n = 0, lim;

	if (s->engine == NULL)
		return 0;
	lim = engine_job_limit(s->engine);
	for (id = 0; id < lim; id++)
		if (engine_job(s->engine, id, &info))
			n++;
	return n;
}

int
session_build(const char *path, enum engine_mode mode, struct strbuf *diags,
    struct spec **specp, struct engine **ep, char **cause)
{
	const char *label = path ? path : SESSION_DEFAULT_SPEC;
	struct spec_diags d;
	struct spec *spec;
	struct engine *e;
	char *ecause = NULL;

	*specp = NULL;
	*ep = NULL;
	spec_diags_init(&d);
	if (path != NULL)
		spec = spec_load(path, &d);
	else
		spec = spec_load_string(SESSION_DEFAULT_SPEC, default_spec_yaml,
		    default_spec_yaml_len, &d);
	session_add_diags(diags, &d);
	if (spec == NULL) {
		if (d.errors > 0)
			*cause = xasprintf("cannot load spec '%s': %d error%s", label,
			    d.errors, d.errors == 1 ? "" : "s");
		else
			*cause = xasprintf("cannot load spec '%s'", label);
		spec_diags_release(&d);
		return -1;
	}
	spec_diags_release(&d);
	e = engine_create(spec, mode, &ecause);
	if (e == NULL) {
		*cause = xasprintf("cannot use spec '%s' in %s mode: %s", label,
		    engine_mode_name(mode), ecause ? ecause : "unknown error");
		free(ecause);
		spec_free(spec);
		return -1;
	}
	*specp = spec;
	*ep = e;
	return 0;
}

void
session_install(struct session *s, const char *path, struct spec *spec,
    struct engine *e, enum engine_mode mode)
{
	char *label = xstrdup(path ? path : SESSION_DEFAULT_SPEC);

	session_unload(s);	/* path may be s->spec_path: copied first */
	s->spec = spec;
	s->engine = e;
	s->spec_path = label;
	s->mode = mode;
}

int
session_load(struct session *s, const char *path, enum engine_mode mode,
    struct strbuf *diags, int *dropped, char **cause)
{
	struct spec *spec;
	struct engine *e;

	if (session_build(path, mode, diags, &spec, &e, cause) != 0)
		return -1;
	if (dropped != NULL)
		*dropped = session_njobs(s);
	session_install(s, path, spec, e, mode);
	return 0;
}

int
session_reload(struct session *s, struct strbuf *diags, char **cause)
{
	/* the same spec again, the embedded one by its label */
	char *path = s->spec_path != NULL && strcmp(s->spec_path,
	    SESSION_DEFAULT_SPEC) != 0 ? xstrdup(s->spec_path) : NULL;
	int rc;

	if (s->console != NULL)
		fatal("session_reload: a console drives this session");
	session_unload(s);
	s->run = 0;
	s->resume_run = 0;
	s->stale = false;
	if ((rc = session_log_recover(s, diags, cause)) == 0)
		rc = session_load(s, path, s->mode, diags, NULL, cause);
	free(path);
	return rc < 0 ? -1 : 0;
}

int
session_ensure(struct session *s, struct strbuf *diags, char **cause)
{
	int rc;

	if (s->engine != NULL)
		return 0;
	if ((rc = session_log_recover(s, diags, cause)) != 0)
		return rc < 0 ? -2 : 0;
	return session_load(s, NULL, s->mode, diags, NULL, cause);
}
