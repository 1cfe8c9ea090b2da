/*
 * stored.h — what the commands that read the state store share (runs and
 * run show, events and history, job show and jobs --run, db check and
 * export): a command's view of one stored run (struct sctx), the mapping
 * of store results to exit statuses, times on a run's clock, and the
 * events table that events, history and job show print.
 *
 * Reading never creates a store: the store is opened read-only (a session
 * that already has it open for writing reads through that connection). A
 * listing of a store that does not exist is empty, with a note saying so;
 * a lookup in it fails (status 1). Anything the store itself cannot do
 * (open, read, write) is status 4.
 *
 * Times are on the run's clock: Unix seconds for a session, shown as UTC
 * dates; virtual seconds for a replay, shown as seconds. JSON gives them
 * as numbers.
 *
 * Ownership: a struct sctx owns the run, the specs it parsed and nothing
 * else (the store is the session's); sctx_release frees them. An ev_list
 * owns its table, its events and their names; ev_list_release frees them.
 *
 * Invariants:
 *  1. sc->run.id is 0 until sctx_resolve_run succeeds, then the run read.
 *  2. Every spec sctx hands out stays valid until sctx_release, except an
 *     older spec of ev_spec's cache, which the next lookup may replace
 *     (callers copy what they need before asking for another).
 *  3. l->v[i] is the event of the table row tagged i; l->last is the
 *     highest seq added since ev_list_init.
 */
#ifndef CELLAR_CMD_STORED_H
#define CELLAR_CMD_STORED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/cmd.h"
#include "store/store.h"

#define STORED_PATH_LEN		1024	/* a cell's path */

/* What one command has found out about its run. */
struct sctx {
	struct cmd_ctx		*ctx;
	struct store		*st;
	struct store_run	 run;		/* run.id 0: none yet */
	struct store_spec	 sp;		/* the run's spec, once asked for */
	struct spec		*spec;		/* parsed, once asked for (may fail) */
	bool			 spec_tried;
	/* Other runs seen by events --follow (every run): their kinds. */
	int64_t			 other[32];
	enum store_run_kind	 other_kind[32];
	int			 nother;
	/* Other specs events were recorded on (a reconfigured run's older
	   ones, other runs'), parsed once: their cells are named with them. */
	int64_t			 espec_id[8];
	struct spec		*espec[8];	/* NULL: cannot be parsed */
	int			 nespec;
};

void		 sctx_init(struct sctx *sc, struct cmd_ctx *ctx);
void		 sctx_release(struct sctx *sc);
/*
 * Open the store to read it. Returns 0; 1 when there is none (for a
 * listing, which then shows nothing: the note is written and *cause
 * freed); -1 with *cause and ctx->status for a failure or (missing_ok
 * false) a missing store.
 */
int		 sctx_open(struct sctx *sc, bool missing_ok, char **cause);
/* "last", or a run id; NULL: the newest run (with a job `name`, if given). */
int		 sctx_resolve_run(struct sctx *sc, const char *arg, const char *name,
		    char **cause);
/* The run's spec, parsed; NULL when it cannot be (names then show as -). */
const struct spec *sctx_spec(struct sctx *sc);
/* The name of VC vc in the run's spec, or "-". */
const char	*sctx_vc_name(struct sctx *sc, int vc);
/* A VC of the run's spec by name; -1 with *cause if it has none such. */
int		 sctx_vc_find(struct sctx *sc, const char *name, char **cause);

/*
 * Map a store result to the command's: -1 is status 4; STORE_NOTFOUND and
 * STORE_INVALID are status 1. Returns -1 either way.
 */
int		 stored_status(struct cmd_ctx *ctx, int rc);
/*
 * The time a job's open period (pending or running since its last change)
 * runs to: now for a session run still running, else 0.
 */
double		 stored_open_now(const struct store_run *run);
/* "run": the run's id, or null when none was resolved (no store yet). */
void		 stored_json_run(struct json *j, const struct sctx *sc);
/* Wall-clock seconds as a UTC date ("-" for none). */
const char	*stored_fmt_date(double t, char *buf, size_t len);
/* A UTC date "YYYY-MM-DD[THH:MM[:SS]]" as Unix seconds into *out. */
bool		 stored_parse_date(const char *s, double *out);
/* A time on the run's clock: a date for a session, seconds for a replay. */
const char	*stored_fmt_t(const struct store_run *r, double t, char *buf,
		    size_t len);

/* The columns of events, history and job show's last events. */
extern const struct table_colspec stored_events_columns[];

/* The events of one query, kept for the table and for JSON. */
struct ev_list {
	struct sctx		*sc;
	struct table		*t;
	struct store_event	*v;
	char			**names;	/* job, by, vc per event */
	size_t			 n, cap, ncap;
	int64_t			 last;		/* highest seq seen */
};

/* An empty list with an empty events table. */
void		 ev_list_init(struct ev_list *l, struct sctx *sc);
/* Forget the events and start a new table (l->last is kept). */
void		 ev_list_clear(struct ev_list *l);
void		 ev_list_release(struct ev_list *l);
/* store_event_query's callback: a row and a copy of ev. */
int		 ev_list_add(void *arg, const struct store_event *ev);
/* cmd_list_json's callback: the event of a row. */
void		 ev_list_json_one(struct cmd_ctx *ctx, struct json *j, long tag,
		    void *arg);
/* Write the events (filtered and sorted) as the command's output of kind. */
int		 ev_list_write(struct cmd_ctx *ctx, struct ev_list *l,
		    const char *kind, bool header, char **cause);

#endif
