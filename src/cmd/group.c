/*
 * group.c — group commit for commands run one after another (group.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "cluster/session.h"
#include "cmd/group.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "store/store.h"

/* A command of the open group, waiting for its commit. */
struct cmd_group_held {
	void			*tag;
	struct strbuf		 out, err;
	struct cmd_result	 res;
};

void
cmd_group_init(struct cmd_group *g, struct session *s,
    const struct cmd_group_ops *ops, void *arg)
{
	memset(g, 0, sizeof *g);
	g->s = s;
	g->ops = ops;
	g->arg = arg;
}

int
cmd_group_release(struct cmd_group *g, char **cause)
{
	int rc = cmd_group_close(g, cause);

	free(g->held);
	g->held = NULL;
	g->cap = 0;
	return rc;
}

/*
 * May this command share the group's commit? Only one that writes in
 * store_begin/commit transactions of this session's own store: not one a
 * server would run (a client's group would hold the write lock the
 * server waits for), and not before the session knows there is none.
 */
static bool
groupable(const struct cmd_group *g, const struct cmd_entry *e)
{
	const struct session *s = g->s;

	if (!g->enabled || e == NULL || !(e->flags & CMD_GROUP) || s->store == NULL ||
	    !store_writable(s->store) || store_in_txn(s->store) || s->read_only)
		return false;
	return !(e->flags & CMD_SERVER) || s->serving || s->remote_state < 0;
}

static void
emit(struct cmd_group *g, void *tag, struct strbuf *out, struct strbuf *err,
    struct cmd_result *res)
{
	g->ops->emit(g->arg, tag, out, err, res);
	cmd_result_release(res);
	strbuf_release(out);
	strbuf_release(err);
}

int
cmd_group_close(struct cmd_group *g, char **cause)
{
	struct cmd_group_held *h;
	char *why = NULL;
	int i, rc = 0;

	if (!g->open)
		return 0;
	g->open = false;
	if (session_group_commit(g->s, &why) != 0) {
		for (i = 0; i < g->n; i++) {
			h = &g->held[i];
			g->ops->lost(g->arg, h->tag, &h->res, why);
			cmd_result_release(&h->res);
			strbuf_release(&h->out);
			strbuf_release(&h->err);
		}
		if (cause != NULL)
			*cause = why;
		else
			free(why);
		rc = -1;
	} else
		for (i = 0; i < g->n; i++) {
			h = &g->held[i];
			emit(g, h->tag, &h->out, &h->err, &h->res);
		}
	g->n = 0;
	return rc;
}

int
cmd_group_dispatch(struct cmd_group *g, int argc, char *const *argv, void *tag)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct cmd_result res;
	const struct cmd_entry *e;
	struct cmd_group_held *h;
	char *cause = NULL;
	int nw, status;

	e = cmd_find(argc, argv, &nw, &cause);
	free(cause);
	cause = NULL;
	if (!groupable(g, e)) {
		/* what ran before it is committed (and shown) first; a
		   failed group was handed to lost */
		cmd_group_close(g, NULL);
		status = cmd_dispatch(g->s, argc, argv, &out, &err, &res);
		emit(g, tag, &out, &err, &res);
		return status;
	}
	if (!g->open) {
		if (session_group_begin(g->s, &cause) != 0) {
			free(cause);	/* then alone: it fails on its own */
			status = cmd_dispatch(g->s, argc, argv, &out, &err, &res);
			emit(g, tag, &out, &err, &res);
			return status;
		}
		g->open = true;
	}
	status = cmd_dispatch(g->s, argc, argv, &out, &err, &res);
	XGROW(g->held, g->cap, (size_t)g->n + 1);
	h = &g->held[g->n++];
	h->tag = tag;
	h->out = out;
	h->err = err;
	h->res = res;
	/* a failure is reported after what came before it, at once */
	if (status != 0 || g->n >= CMD_GROUP_MAX)
		cmd_group_close(g, NULL);
	return status;
}
