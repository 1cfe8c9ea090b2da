/*
 * session-log.h — recording the hand commands (alloc, release, node bad and
 * ok, load) in the session's run of the state store. One transaction per
 * command:
 *
 *   session_log_begin -> the engine acts -> session_log_* -> session_log_commit
 *                                      \-> (failure) session_log_rollback
 *
 * session_log_begin opens the store for writing and takes its write lock
 * before the engine changes anything, so a store that cannot be opened,
 * is locked or read-only fails the command with nothing changed.
 *
 * Ownership: nothing is handed out but the strings of session_leaf_nodes,
 * session_leaf_gpus, which the caller frees.
 *
 * Invariants:
 *  1. Every call between begin and commit writes into one transaction; a
 *     rollback also forgets a run that begin created.
 *  2. A stored job holds a placement exactly while its engine job runs.
 *  3. Every -1 is a store failure: the command exits with status 4.
 */
#ifndef CELLAR_SESSION_LOG_H
#define CELLAR_SESSION_LOG_H

#include <stdbool.h>

#include "cluster/session.h"
#include "engine/engine.h"

/* Open for writing, create the run if needed (*run_created), BEGIN. */
int	session_log_begin(struct session *s, bool *run_created, char **cause);
/* Record the run's clock and commit; on failure everything is rolled back. */
int	session_log_commit(struct session *s, bool run_created, char **cause);
void	session_log_rollback(struct session *s, bool run_created);
/*
 * Group commit (cmd/group.h, store.h): between these, each command's
 * begin..commit is a savepoint of one transaction, and the run's engine
 * state and clock are written once, at session_group_commit, which makes
 * all of it durable or none (-1 with *cause: the group is rolled back).
 */
int	session_group_begin(struct session *s, char **cause);
int	session_group_commit(struct session *s, char **cause);
/*
 * The run's saved engine state (bad marks and history counters, which the
 * placements do not give back) from e; session_log_commit writes it for
 * the session's engine. session_engine_state appends the sealed bytes.
 */
int	session_log_engine(struct session *s, const struct engine *e, char **cause);
void	session_engine_state(const struct engine *e, struct strbuf *out);
/* Read such bytes back: the marks (malloc'ed, lowest virtual leaf first)
   and counters. 0, or -1 with why. */
int	session_engine_state_read(const void *blob, size_t len,
	    struct engine_mark **marks, int *nmarks, struct engine_stats *stats,
	    char *why, size_t whylen);

/* Job p->job started for r (after engine_alloc): job (a new id: an
   earlier job of r's name that has ended keeps its own, store.h
   invariant 8), placement, events, and what happened to the victims. */
int	session_log_alloc(struct session *s, const struct engine_req *r,
	    const struct engine_plan *p, char **cause);
/* Record where stored job `job` runs: engine job engine_id's placement. */
int	session_log_placement(struct session *s, int job, int engine_id, char **cause);
/* Forget every row session_log_alloc kept for a release (struct session's
   started): the engine goes, or rows changed by another path. */
void	session_started_clear(struct session *s);
/* Engine job id is released by hand (call before engine_release). */
int	session_log_release(struct session *s, int engine_id, char **cause);
/* node went bad or healthy; affected: the jobs on it, comma-separated. */
int	session_log_node(struct session *s, const char *node, bool bad,
	    const char *affected, char **cause);
/* The run ends (a load rebuilt the engine): its running jobs are cancelled
   with a reconfig event saying why, the run is done. */
int	session_log_end(struct session *s, const char *why, char **cause);

/*
 * Recover the store's running session run into an empty session (no spec
 * loaded): the engine rebuilt in the order that gives it back exactly
 * (engine.h): placements, bad marks, bad nodes, history counters. Returns
 * 1 when recovered (diagnostics for jobs that could not
 * be re-created go to diags), 0 when there is nothing to recover, -1 with
 * *cause when the store cannot be read or its spec no longer loads.
 */
int	session_log_recover(struct session *s, struct strbuf *diags, char **cause);

/*
 * The cluster of a stored run as the store last saw it: its stored spec and
 * an engine in the run's mode rebuilt exactly (every placement, the saved
 * bad marks, the bad nodes, the counters; engine.h), what recovery and
 * `dash --follow` both use. job_fn (may be NULL) sees every stored job on
 * the way (nonzero stops and is returned). Only reads the store. Returns 0
 * with *out filled (session_rebuilt_release frees it), -1 with *cause.
 */
struct session_rebuilt {
	struct spec		*spec;
	struct engine		*engine;
	char			*spec_path;
	enum engine_mode	 mode;
	int			 restored, failed;	/* placements */
};
struct store_run;
struct store_job;
int	session_run_rebuild(struct store *st, const struct store_run *run,
	    int (*job_fn)(void *, const struct store_job *), void *job_arg,
	    struct strbuf *diags, struct session_rebuilt *out, char **cause);
void	session_rebuilt_release(struct session_rebuilt *r);

struct strvec;
/* The distinct nodes of some leaves, in order of first appearance. */
void	session_leaf_node_list(const struct spec *s, const int *leaves, int n,
	    struct strvec *out);
/* The nodes of some leaves as a hostlist, and "NODE:ADDRS ..." per node. */
char	*session_leaf_nodes(const struct spec *s, const int *leaves, int n);
char	*session_leaf_gpus(const struct spec *s, const int *leaves, int n);

#endif
