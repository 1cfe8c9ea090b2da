/*
 * group.h — group commit for commands run one after another: `cellar -f
 * FILE`, `-c`, and the requests of one poll round of `cellar serve`.
 *
 * The CMD_GROUP commands in a row share one store commit (store.h: each
 * command's transaction becomes a savepoint of the group's). A command's
 * output is handed to ops->emit only once its writes are committed, in
 * the order the commands ran; a command that may not share a commit (or
 * would be forwarded to a server) first closes the group, then runs and
 * is emitted at once. A failed command closes the group after it, so its
 * report comes after what ran before it. A group whose commit fails
 * emits nothing: ops->lost gets each of its commands instead, and the
 * caller must treat the session as ahead of its store (stop, or halt).
 *
 * Ownership: the group borrows the session; it owns the held outputs and
 * results until it emits them (emit may keep neither: they are freed
 * after it returns). A tag is the caller's, handed back untouched.
 *
 * Invariants:
 *  1. Every dispatched command is handed back exactly once, by emit or
 *     lost, and in dispatch order.
 *  2. Nothing is emitted before the writes it reports are committed.
 *  3. At most CMD_GROUP_MAX commands wait in an open group.
 */
#ifndef CELLAR_CMD_GROUP_H
#define CELLAR_CMD_GROUP_H

#include <stdbool.h>

#include "cmd/cmd.h"

#define CMD_GROUP_MAX	256	/* commands per commit: bounds a reply's wait */

struct cmd_group_ops {
	/* Committed (or needing no commit): show it. */
	void	(*emit)(void *arg, void *tag, struct strbuf *out,
		    struct strbuf *err, struct cmd_result *res);
	/* The group's commit failed with cause: nothing of it is recorded. */
	void	(*lost)(void *arg, void *tag, const struct cmd_result *res,
		    const char *cause);
};

struct cmd_group_held;

struct cmd_group {
	struct session			*s;
	const struct cmd_group_ops	*ops;
	void				*arg;
	bool				 enabled;	/* may open a group now */
	bool				 open;
	struct cmd_group_held		*held;
	int				 n;
	size_t				 cap;
};

void	cmd_group_init(struct cmd_group *g, struct session *s,
	    const struct cmd_group_ops *ops, void *arg);
/* Close (commit) what is open, then free; 0, or -1 with *cause. */
int	cmd_group_release(struct cmd_group *g, char **cause);
/* Run one command (cmd_dispatch); its exit status. */
int	cmd_group_dispatch(struct cmd_group *g, int argc, char *const *argv,
	    void *tag);
/* Commit the open group and emit it; 0, or -1 with *cause (lost). */
int	cmd_group_close(struct cmd_group *g, char **cause);

#endif
