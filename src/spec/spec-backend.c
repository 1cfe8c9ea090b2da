/*
 * spec-backend.c — cellar's own `backend:` section of a spec: the backend
 * type, its hooks (a hook set's directory or one command per hook), the
 * timing and retry knobs, and the ssh targets (one for the cluster, one
 * per node). spec.c's loader calls spec_backend_parse after the nodes
 * are known, since `backend.nodes` names them; what is wrong is reported
 * through the loader like any other spec error, with its line and column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/shquote.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "spec/spec-int.h"

const char *const spec_hook_names[SPEC_NHOOKS] = {
	"start", "stop", "suspend", "resume", "status", "health", "migrate",
};

bool
spec_hook_optional(enum spec_hook h)
{
	return h == SPEC_HOOK_SUSPEND || h == SPEC_HOOK_RESUME || h == SPEC_HOOK_MIGRATE;
}

/* A plain number in [lo, hi]; false (reported) when it is not one. */
static bool
get_num(struct loader *L, int node, const char *what, double lo, double hi,
    double *out)
{
	const char *v = ld_str(L, node);
	char *end;
	double x;

	errno = 0;
	x = ld_kind(L, node) == YDOC_SCALAR && !L->doc.nodes[node].quoted &&
	    *v != '\0' ? strtod(v, &end) : 0;
	if (ld_kind(L, node) != YDOC_SCALAR || L->doc.nodes[node].quoted ||
	    *v == '\0' || *end != '\0' || errno != 0 || !(x >= lo && x <= hi)) {
		ld_err(L, node, "'%s' must be a number from %g to %g, not '%s'", what,
		    lo, hi, v);
		return false;
	}
	*out = x;
	return true;
}

/* A scalar string, copied; NULL (reported) when it is not one. */
static char *
get_str(struct loader *L, int node, const char *what)
{
	if (ld_kind(L, node) != YDOC_SCALAR || *ld_str(L, node) == '\0') {
		ld_err(L, node, "'%s' must be a non-empty string, not %s", what,
		    ld_kind_name(L, node));
		return NULL;
	}
	return xstrdup(ld_str(L, node));
}

/* A host name or address ssh may be given: no option, no shell syntax. */
static bool
host_valid(const char *h)
{
	size_t i;

	if (h[0] == '\0' || h[0] == '-')
		return false;
	for (i = 0; h[i] != '\0'; i++)
		if (!((h[i] >= 'a' && h[i] <= 'z') || (h[i] >= 'A' && h[i] <= 'Z') ||
		    (h[i] >= '0' && h[i] <= '9') || strchr(".-_:", h[i]) != NULL))
			return false;
	return true;
}

static void
parse_target(struct loader *L, int map, const char *ctx, struct spec_ssh_target *t,
    bool with_host)
{
	static const char *const names[] = { "user", "port", "identityFile",
	    "host", "config" };
	int key[5], val[5];
	long long port;

	if (ld_kind(L, map) != YDOC_MAP) {
		ld_err(L, map, "%s must be a mapping, not %s", ctx, ld_kind_name(L, map));
		return;
	}
	ld_get_fields(L, map, ctx, names, 5, NULL, key, val);
	if (with_host && key[4] >= 0)
		ld_err(L, key[4], "'config' belongs in 'backend.ssh', not in a node's entry");
	else if (key[4] >= 0)
		t->config = get_str(L, val[4], "config");
	if (!with_host && key[3] >= 0)
		ld_err(L, key[3], "'host' belongs in a node's entry in 'backend.nodes'");
	if (key[0] >= 0 && (t->user = get_str(L, val[0], "user")) != NULL &&
	    !name_valid(t->user, 64))
		ld_err(L, val[0], "bad user name '%s' (letters, digits, '.', '_', '-')",
		    t->user);
	if (key[1] >= 0) {
		if (ld_get_int(L, val[1], 1, 65535, &port) != 0)
			ld_err(L, val[1], "'port' must be a port number (1 to 65535), "
			    "not '%s'", ld_str(L, val[1]));
		else
			t->port = (int)port;
	}
	if (key[2] >= 0)
		t->identity = get_str(L, val[2], "identityFile");
	if (with_host && key[3] >= 0 && (t->host = get_str(L, val[3], "host")) != NULL &&
	    !host_valid(t->host))
		ld_err(L, val[3], "bad host '%s' (a name or address; no spaces, "
		    "no leading '-')", t->host);
}

/*
 * "DIR/NAME" as one quoted shell word; a relative DIR is taken from the
 * spec file's directory, made absolute when that exists, so hooks are
 * found whatever the working directory (and the same path on ssh nodes).
 * An optional hook is taken only when the set has its file (looked for
 * here): a set without suspend stops preempted jobs, one without
 * migrate refuses 'job migrate'. NULL then.
 */
static char *
hook_in_dir(struct loader *L, const char *dir, const char *name, bool optional)
{
	struct strbuf path = STRBUF_INIT, cmd = STRBUF_INIT;
	const char *slash = strrchr(L->file, '/');
	char *sdir, *real;

	if (dir[0] != '/') {
		sdir = slash != NULL ? xstrndup(L->file, (size_t)(slash - L->file)) :
		    xstrdup(".");
		real = realpath(sdir[0] != '\0' ? sdir : "/", NULL);
		strbuf_addf(&path, "%s/", real != NULL ? real : sdir);
		free(real);
		free(sdir);
	}
	strbuf_addf(&path, "%s/%s", dir, name);
	if (optional && access(path.buf, F_OK) != 0) {
		strbuf_release(&path);
		return NULL;
	}
	sh_quote(&cmd, path.buf);
	strbuf_release(&path);
	return strbuf_detach(&cmd, NULL);
}

/* switchUser: how an ssh backend's job hooks become the job's user. */
static void
parse_switch_user(struct loader *L, int node, struct spec_backend *b)
{
	static const char *const words[] = { "login", "sudo", "none" };
	int i;

	if (b->type != SPEC_BACKEND_SSH) {
		ld_err(L, node, "'switchUser' is for backends of type ssh (a local "
		    "backend's hooks run as the server's user and switch "
		    "themselves: CELLAR_UID)");
		return;
	}
	for (i = 0; i < 3; i++)
		if (strcmp(ld_str(L, node), words[i]) == 0) {
			b->switch_user = (enum spec_switch_user)i;
			return;
		}
	ld_err(L, node, "unknown 'switchUser' '%s' (login, sudo or none)",
	    ld_str(L, node));
}

void
spec_backend_parse(struct loader *L, int map)
{
	enum { K_TYPE, K_HOOKS, K_TIMEOUT, K_RETRIES, K_BACKOFF, K_STATUS, K_HEALTH,
	    K_CONNECT, K_RUNDIR, K_SSH, K_NODES, K_HCONC, K_SWITCH, K_HOOK0 };
	static const char *const names[] = { "type", "hooks", "timeout", "retries",
	    "backoff", "statusInterval", "healthInterval", "connectTimeout",
	    "rundir", "ssh", "nodes", "healthConcurrency", "switchUser", "start",
	    "stop", "suspend", "resume",
	    "status", "health", "migrate" };
	enum { NKEYS = K_HOOK0 + SPEC_NHOOKS };
	struct spec_backend *b = &L->s->backend;
	int key[NKEYS], val[NKEYS], i, n;
	long long x;
	char *dir;

	if (ld_kind(L, map) != YDOC_MAP) {
		ld_err(L, map, "'backend' must be a mapping, not %s", ld_kind_name(L, map));
		return;
	}
	ld_get_fields(L, map, "backend", names, NKEYS, NULL, key, val);
	if (key[K_TYPE] < 0)
		ld_err(L, map, "missing 'type' in 'backend' (emulator, local or ssh)");
	else if (strcmp(ld_str(L, val[K_TYPE]), "emulator") == 0)
		b->type = SPEC_BACKEND_EMULATOR;
	else if (strcmp(ld_str(L, val[K_TYPE]), "local") == 0)
		b->type = SPEC_BACKEND_LOCAL;
	else if (strcmp(ld_str(L, val[K_TYPE]), "ssh") == 0)
		b->type = SPEC_BACKEND_SSH;
	else
		ld_err(L, val[K_TYPE], "unknown backend type '%s' (emulator, local or ssh)",
		    ld_str(L, val[K_TYPE]));
	if (key[K_HOOKS] >= 0 && (dir = get_str(L, val[K_HOOKS], "hooks")) != NULL) {
		for (i = 0; i < SPEC_NHOOKS; i++)
			b->hooks[i] = hook_in_dir(L, dir, spec_hook_names[i],
			    spec_hook_optional(i));
		free(dir);
	}
	for (i = 0; i < SPEC_NHOOKS; i++)
		if (key[K_HOOK0 + i] >= 0) {
			free(b->hooks[i]);
			b->hooks[i] = NULL;
			/* an optional hook given as null (`suspend: ~`) is
			   turned off, even when the set has it */
			if (spec_hook_optional(i) &&
			    ld_kind(L, val[K_HOOK0 + i]) == YDOC_NULL)
				continue;
			b->hooks[i] = get_str(L, val[K_HOOK0 + i], spec_hook_names[i]);
		}
	if (key[K_TIMEOUT] >= 0)
		get_num(L, val[K_TIMEOUT], "timeout", 0.01, 86400, &b->timeout);
	if (key[K_RETRIES] >= 0) {
		if (ld_get_int(L, val[K_RETRIES], 0, 100, &x) != 0)
			ld_err(L, val[K_RETRIES], "'retries' must be a whole number from 0 "
			    "to 100, not '%s'", ld_str(L, val[K_RETRIES]));
		else
			b->retries = (int)x;
	}
	if (key[K_BACKOFF] >= 0)
		get_num(L, val[K_BACKOFF], "backoff", 0, 3600, &b->backoff);
	if (key[K_STATUS] >= 0)
		get_num(L, val[K_STATUS], "statusInterval", 0.01, 86400,
		    &b->status_interval);
	if (key[K_HEALTH] >= 0)
		get_num(L, val[K_HEALTH], "healthInterval", 0.01, 86400,
		    &b->health_interval);
	if (key[K_CONNECT] >= 0)
		get_num(L, val[K_CONNECT], "connectTimeout", 1, 3600,
		    &b->connect_timeout);
	if (key[K_HCONC] >= 0) {
		if (ld_get_int(L, val[K_HCONC], 1, 100000, &x) != 0)
			ld_err(L, val[K_HCONC], "'healthConcurrency' must be a whole number "
			    "from 1 to 100000, not '%s'", ld_str(L, val[K_HCONC]));
		else
			b->health_concurrency = (int)x;
	}
	if (key[K_RUNDIR] >= 0)
		b->rundir = get_str(L, val[K_RUNDIR], "rundir");
	if (key[K_SWITCH] >= 0)
		parse_switch_user(L, val[K_SWITCH], b);
	if (key[K_SSH] >= 0)
		parse_target(L, val[K_SSH], "'ssh'", &b->ssh, false);
	if (key[K_NODES] >= 0 && ld_kind(L, val[K_NODES]) != YDOC_MAP)
		ld_err(L, val[K_NODES], "'nodes' must be a mapping of node names, not %s",
		    ld_kind_name(L, val[K_NODES]));
	else if (key[K_NODES] >= 0 && L->cells_ok) {
		b->nodes = xcalloc((size_t)L->s->nnodes + 1, sizeof *b->nodes);
		n = L->doc.nodes[val[K_NODES]].n;
		for (i = 0; i < n; i++) {
			int k = ydoc_key(&L->doc, val[K_NODES], i), node;

			/* s->node_map is only set when the load ends */
			if ((node = strmap_get(L->nodes, ld_str(L, k))) < 0) {
				ld_err(L, k, "unknown node '%s' in 'backend.nodes'", ld_str(L, k));
				continue;
			}
			parse_target(L, ydoc_val(&L->doc, val[K_NODES], i),
			    "a node's entry in 'backend.nodes'", &b->nodes[node], true);
		}
	}
	if (b->type == SPEC_BACKEND_EMULATOR)
		return;
	for (i = 0; i < SPEC_NHOOKS; i++)
		if (b->hooks[i] == NULL && !spec_hook_optional(i))
			ld_err(L, map, "backend of type '%s' needs a '%s' hook (or "
			    "'hooks: DIR')", ld_str(L, val[K_TYPE]), spec_hook_names[i]);
	/* a job suspended by one must be resumable by the other */
	if ((b->hooks[SPEC_HOOK_SUSPEND] == NULL) != (b->hooks[SPEC_HOOK_RESUME] == NULL))
		ld_err(L, map, "backend has a '%s' hook but no '%s' hook (both or "
		    "neither)", b->hooks[SPEC_HOOK_SUSPEND] ? "suspend" : "resume",
		    b->hooks[SPEC_HOOK_SUSPEND] ? "resume" : "suspend");
	if (L->cells_ok)
		for (i = 0; i < L->s->nnodes; i++)
			if (!name_valid(L->s->nodes[i].name, 64))
				ld_err(L, map, "node name '%s' cannot be handed to hooks "
				    "(letters, digits, '.', '_', '-')", L->s->nodes[i].name);
}

void
spec_backend_defaults(struct spec_backend *b)
{
	b->type = SPEC_BACKEND_EMULATOR;
	b->timeout = 30;
	b->retries = 2;
	b->backoff = 1;
	b->status_interval = 2;
	b->health_interval = 10;
	b->health_concurrency = 16;
	b->connect_timeout = 5;
	b->switch_user = SPEC_SWITCH_LOGIN;
}

static void
target_free(struct spec_ssh_target *t)
{
	free(t->host);
	free(t->user);
	free(t->identity);
	free(t->config);
}

void
spec_backend_free(struct spec_backend *b, int nnodes)
{
	int i;

	for (i = 0; i < SPEC_NHOOKS; i++)
		free(b->hooks[i]);
	free(b->rundir);
	target_free(&b->ssh);
	for (i = 0; b->nodes != NULL && i < nnodes; i++)
		target_free(&b->nodes[i]);
	free(b->nodes);
}
