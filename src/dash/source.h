/*
 * source.h — where the dashboard's data comes from, behind one small ops
 * table: the emulator in this process (source-emu.c), a store that
 * another cellar process writes (source-store.c, dash --follow) and a live
 * cluster as a client of its server sees it (source-live.c). Panels and
 * the model only ever see struct dash_data and the records a source hands
 * out, so they never care which source it is.
 *
 * Ownership: a struct dash_source owns its state (self); dash_source_free
 * releases it. Everything struct dash_data points to belongs to the source
 * and stays valid until its next advance or free.
 *
 * Invariants:
 *  1. gen changes whenever anything dash_data describes has changed since
 *     the last call of data(), and only then may a model reuse what it
 *     derived (the frame benchmark depends on it: nothing changed, nothing
 *     walked).
 *  2. Records reach advance's callback once each, in the order they
 *     happened, with non-decreasing times.
 *  3. A source never aborts on what it reads: -1 with *cause.
 *  4. Between two calls of changes(), every job whose struct job, policy
 *     key, class or cells changed, and every node whose health changed, is
 *     reported (more is allowed), or all is set. Jobs added since (njobs
 *     grew; it never shrinks, and a job keeps its index) need not be
 *     reported. Only one model may consume a source's changes.
 *  5. spec_gen changes exactly when spec is another spec than at the last
 *     call of data() (a followed run reconfigured, or a newer run): a
 *     model then starts over, keeping only its event log; invariant 4's
 *     job indices hold only between equal spec_gens.
 */
#ifndef CELLAR_DASH_SOURCE_H
#define CELLAR_DASH_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/engine.h"
#include "job/job.h"
#include "job/record.h"
#include "policy/policy.h"
#include "spec/spec.h"

struct strbuf;
struct store;

struct dash_data {
	const char		*backend;	/* "emulator", "store", "local"... */
	/* a followed store: "following PATH: run N (kind, state)" and any
	   problem reading it, for the status line; else NULL */
	const char		*follow;
	/* a live spec: its store's server, "cellar server pid N", or "no
	   cellar server is running for STORE" (and any problem reading the
	   store), for the status line; else NULL */
	const char		*server;
	const char		*spec_name;	/* as the session names it */
	const char		*policy;	/* policy name, or "-" */
	const struct spec	*spec;
	const struct engine	*engine;	/* cells and VC usage */
	const struct job	*jobs;		/* indexed by id */
	int			 njobs;
	/* a live session: each job's phase in the live loop (console.h's
	   names: "suspended", "migrating" ...), as jobs; else NULL */
	const char *const	*phases;
	double			 now;		/* the source's clock, seconds */
	double			 epoch;		/* status line's clock shows now - epoch */
	/* times are the wall clock (seconds since 1970: a live session's),
	   shown as local times of day, not as offsets from epoch */
	bool			 wall;
	bool			 can_play;	/* advance(dt) moves virtual time */
	bool			 done;		/* nothing more will happen */
	/* the workload's end (the demo's DASH_DEMO_END); 0: when all is done */
	double			 end;
	/* ':' commands that change state may act on it: a live spec whose
	   server runs (cmd_dispatch sends them there) */
	bool			 writable;
	uint64_t		 gen;		/* invariant 1 */
	uint64_t		 spec_gen;	/* invariant 5 */
	/* when spec_gen moved: per VC and per cell of the spec before, the
	   new spec's index of that name or -1 (records already handed out
	   name the old spec's); NULL: keep the indices */
	const int		*vc_map, *cell_map;
	int			 nvc_map, ncell_map;
};

typedef void (*dash_rec_fn)(void *arg, const struct rec *r);

/* What changed since the last call of changes() (invariant 4). */
struct dash_changes {
	bool		 all;		/* cannot tell: rebuild everything */
	const int	*jobs;		/* job ids, each once */
	int		 njobs;
	const int	*nodes;		/* spec node indices */
	int		 nnodes;
};

struct dash_source_ops {
	const char	*name;
	void		(*data)(void *self, struct dash_data *d);
	/*
	 * Move on: an emulator plays dt more virtual seconds; a follower
	 * reads what was written since. New records go to fn. Returns 0, or
	 * -1 with *cause.
	 */
	int		(*advance)(void *self, double dt, dash_rec_fn fn, void *arg,
			    char **cause);
	/*
	 * The policy's rank of a job (key and preemption class) as the
	 * scheduler orders it; NULL when the source does not know it (the
	 * model then orders by submission).
	 */
	void		(*job_key)(void *self, int job, struct policy_key *key, int *klass);
	/*
	 * What changed since the last call, then forgotten (invariant 4); the
	 * arrays stay valid until the next advance or changes call. NULL: the
	 * source cannot tell, and the model rebuilds at every change of gen.
	 */
	void		(*changes)(void *self, struct dash_changes *ch);
	void		(*free)(void *self);
	/*
	 * A job's history from the store, as lines for the detail view
	 * (dash_store_history); NULL when the source has no store.
	 */
	int		(*history)(void *self, const char *job, struct strbuf *out);
	/*
	 * Play it again from the start (the demo's 'r'): everything as at
	 * creation, spec_gen moved (invariant 5). NULL: the source cannot.
	 * 0, or -1 with *cause.
	 */
	int		(*restart)(void *self, char **cause);
};

struct dash_source {
	const struct dash_source_ops	*ops;
	void				*self;
};

void	dash_source_free(struct dash_source *src);

/* ---- the emulator source (source-emu.c) ---- */

struct dash_emu_cfg {
	const struct spec	*spec;		/* borrowed; outlives the source */
	const char		*spec_name;
	enum engine_mode	 mode;
	const char		*policy;	/* "las" */
	const char		*trace;		/* a file; NULL: the embedded demo */
	const char		*vcmap;		/* --vc-map for trace; NULL: by name */
	double			 load;		/* arrival-rate factor; 0: the demo's */
	uint64_t		 seed;
};

void	dash_emu_cfg_init(struct dash_emu_cfg *c);
/* Prepare the workload and build the emulator at time 0. */
int	dash_source_emu(struct dash_source *src, const struct dash_emu_cfg *c,
	    char **cause);

/* ---- a live cluster, as a client of its server (source-live.c) ---- */

struct session;
/*
 * The live cluster of the session's store, which its server (cellar
 * serve) runs: the store followed read-only as dash_source_store does,
 * the server asked at each advance for what only it knows (each live
 * job's phase, a queued job's pending reason), never a hook run here.
 * Without a server (or before the store has a run: the session's spec,
 * empty) it shows what the store holds, and dash_data.server says so;
 * writable while a server answers. Never fails on what it reads. The
 * session must outlive the source.
 */
int	dash_source_live(struct dash_source *src, struct session *s, char **cause);

/* ---- a store another process writes (source-store.c) ---- */

/*
 * Follow the newest run of the store at path, read-only: its stored spec,
 * an engine rebuilt from its placements, its jobs and events, polled at
 * each advance (nothing is read when nothing was committed). Returns 0;
 * STORE_NOTFOUND (no file, or no run in it) or -1 with *cause. Once made,
 * the source never fails: read problems show in dash_data.follow and the
 * next advance tries again.
 */
int	dash_source_store(struct dash_source *src, const char *path, char **cause);

/* A live job as its server tells it (source-live.c). */
struct dash_live_job {
	const char	*name;
	const char	*phase;		/* "running", "suspended" ..., or NULL */
	bool		 queued;	/* waiting: reason says why */
	enum job_reason	 reason;
};

/*
 * What a followed session's server says of its live jobs that the store
 * does not hold: each one's phase in the live loop (dash_data.phases)
 * and a queued job's pending reason (the scheduler sets it at each pass;
 * the store has it only as of the job's last decision). lj (n of them,
 * sorted here by name; the strings borrowed until the next call or
 * advance) stands until the next call: a job it names shows that phase
 * and, while the store has it pending, that reason; the others show what
 * the store holds. lj NULL: no server speaks; the next advance reads the
 * store's reasons again. Changed jobs are reported (invariant 4). Only
 * for a store source; call it after each advance.
 */
void	dash_store_live(struct dash_source *src, struct dash_live_job *lj, int n);
/* The store source's last read problem, or NULL. */
const char *dash_store_problem(const struct dash_source *src);

/* The events of run after *seq, oldest first, each passed to fn (may be
   NULL); *seq follows them. limit > 0 keeps only the newest limit. With
   shown (NULL: as stored), an event recorded on another stored spec than
   spec (a reconfigured run's older events) has its VC found by name in
   shown (-1 if gone) and no cell. 0, or -1 with *cause. */
int	dash_store_events(struct store *st, int64_t run, int64_t *seq, int limit,
	    const struct spec *shown, int64_t spec, dash_rec_fn fn, void *arg,
	    char **cause);

/* The newest DASH_HISTORY events of a job of run, one line each after a
   title; a read failure is a line too. Times shown as t - epoch. */
#define DASH_HISTORY	20
int	dash_store_history(struct store *st, int64_t run, int job, double epoch,
	    struct strbuf *out);

/*
 * The demo (no --trace), compiled in: a scripted opening
 * (specs/demo-opening.csv, the default spec's VCs by name: they fill
 * their cells, overflow as opportunistic jobs and take their cells back),
 * then from DASH_DEMO_OPENING on a window of the Philly sample
 * (specs/demo-philly.csv, its four busiest VCs mapped by DASH_DEMO_VCMAP)
 * at DASH_DEMO_LOAD times its arrival rate, the part that keeps 128 GPUs
 * 60-90% busy. The demo's nodes fail and come back (source-emu.c's
 * table, on the nodes the spec has) and it ends at DASH_DEMO_END.
 */
extern const char	dash_demo_opening[];
extern const unsigned long dash_demo_opening_len;
extern const char	dash_demo_trace[];
extern const unsigned long dash_demo_trace_len;
#define DASH_DEMO_VCMAP	"6214e9=research,11cb48=prod,6c71a0=dev,b436b2=infer,*=-"
#define DASH_DEMO_LOAD	50.0
#define DASH_DEMO_OPENING	(3 * 3600.0)
#define DASH_DEMO_FROM	(8.5 * 3600.0)	/* the sample's busy part, after load */
#define DASH_DEMO_SPAN	(36 * 3600.0)
#define DASH_DEMO_END	(DASH_DEMO_OPENING + DASH_DEMO_SPAN)

#endif
