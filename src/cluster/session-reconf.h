/*
 * session-reconf.h — reconfiguration of the live session: a new spec (or
 * mode) while the session's run holds jobs. `load` and a start with
 * `--spec` come here. The jobs are carried over by job/reconf.h (kept,
 * downgraded to opportunistic, requeued, or with force cancelled with
 * their VC) into an engine built from the new spec, and the run goes on
 * on the new spec, under the write-ahead discipline of session-log.h:
 *
 *   build spec + engine (session untouched) -> session_log_begin (lock)
 *   -> reconf_apply into the new engine -> jobs, placements, health,
 *   events and the run's spec written -> commit -> the session switches
 *
 * Any failure before the commit rolls the transaction back and frees the
 * new engine: the session, its engine and the store are as before. A
 * crash before the commit leaves the store as before, after it the store
 * holds the new state, and recovery rebuilds whichever it finds.
 *
 * Ownership: struct session_reconf owns its items; session_reconf_release
 * frees them.
 *
 * Invariants:
 *  1. On -1 nothing changed: not the session, not the store.
 *  2. On 0 every job of the run that held cells is, in the store and in
 *     the session's engine alike, kept, downgraded, requeued or cancelled,
 *     with one event each (kept: kind reconfig), after one reconfig event
 *     about no job that says what changed; the run's spec is the new one.
 */
#ifndef CELLAR_SESSION_RECONF_H
#define CELLAR_SESSION_RECONF_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/session.h"
#include "job/reconf.h"

/* What happened to one job. */
struct session_reconf_item {
	char	 job[64];
	char	 vc[64];		/* in the spec it was placed on */
	char	 what[16];		/* kept, downgraded, requeued, cancelled, pending */
	char	 why[REC_DETAIL_MAX];
};

struct session_reconf {
	int64_t				 run;	/* the run reconfigured, 0: none */
	bool				 changed;	/* spec text or mode differs */
	struct reconf_stats		 st;
	struct session_reconf_item	*items;
	int				 nitems;
};

void	session_reconf_release(struct session_reconf *r);

/*
 * Make path (NULL: the embedded default) in mode the session's spec. When
 * nothing is loaded yet the store's running session run is recovered
 * first. Without a run (nothing recorded) this is a plain load. Returns 0
 * (out filled; out->run 0 when there was no run or, with IF_CHANGED,
 * nothing changed), or -1 with *cause and *status: CMD_EXIT_SPEC for a
 * spec that does not load, CMD_EXIT_FAIL when the new spec removes VCs
 * with jobs and FORCE is not given (the VCs named),
 * CMD_EXIT_STORE for the store. Diagnostics of the spec go to diags
 * (with IF_CHANGED and nothing changed, none: the current spec's were
 * said when it was made current).
 */
#define SESSION_RECONF_FORCE		0x1	/* cancel the jobs of removed VCs */
#define SESSION_RECONF_IF_CHANGED	0x2	/* same text and mode: do nothing */

int	session_reconfigure(struct session *s, const char *path,
	    enum engine_mode mode, unsigned flags, struct strbuf *diags,
	    struct session_reconf *out, int *status, char **cause);

/* One line per job ("kept a (research): ..."), then the summary line. */
void	session_reconf_report(const struct session_reconf *r, struct strbuf *sb);

/* Whether the session's spec has this text and its engine this mode. */
bool	session_same_spec(const struct session *s, const struct spec *spec,
	    enum engine_mode mode);

#endif
