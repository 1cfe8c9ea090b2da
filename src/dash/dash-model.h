/*
 * dash-model.h — what the dashboard's panels show, derived from a source
 * (dash/source.h) and kept between frames: the status figures, each VC's
 * usage, the queues in the policy's order, the node map, the visible rows
 * of the cell tree and the last events. No curses, no clock: the face calls
 * dash_model_advance with the virtual seconds to play and draws from the
 * model.
 *
 * Cost: per-cell counts (used, opportunistic, bad leaves) and per-VC usage
 * are the engine's, kept incrementally by every alloc and release, so a
 * tree row costs O(tree depth) and VC usage O(levels) whatever the
 * cluster's size. A frame over unchanged data (same source gen, source
 * invariant 1) walks no GPU, node or job, only the rows it draws. When the
 * gen moves, the model takes the source's changes (source invariant 4) and
 * updates by delta: the queue rows of the changed jobs are taken out and
 * merged back in order (O(queue) copying, O(k log k) ordering, k changed),
 * and only the nodes those jobs were or are on, or whose health changed,
 * are recounted for fragmentation. Node map glyphs are computed when drawn
 * (dash_model_node), for the nodes on screen only, and kept while the gen
 * stays. A source that cannot
 * tell what changed gets a full rebuild, as does dash_model_rebuild.
 *
 * Ownership: the model borrows its source (which must outlive it) and owns
 * everything else; dash_model_release frees it.
 *
 * Invariants:
 *  1. After dash_model_refresh, gen == the source's gen and every derived
 *     field describes the source's data at that gen.
 *  2. q lists each active job (pending and submitted, running, suspended,
 *     checkpointing, completing) once: VC by VC (vq_first), pending before
 *     running, each group in the policy's order (key, then job id).
 *  3. rows lists exactly the cells whose ancestors are all open, in tree
 *     order (chains, then depth first).
 *  4. The event ring holds the last DASH_EVENTS records, oldest first.
 *  5. After a refresh, every derived field equals what a full rebuild from
 *     the source's data would give (tests/unit/tdash-model.c checks it
 *     after random event sequences).
 */
#ifndef CELLAR_DASH_MODEL_H
#define CELLAR_DASH_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "dash/source.h"

#define DASH_EVENTS	4096

struct dash_vc {
	const char		*name;
	char			 letter;	/* 'A' + index; '*' beyond 26 */
	struct engine_vc_usage	 u;
	int			 pending;	/* jobs waiting in its queue */
	int			 running;	/* holding cells (any class) */
};

struct dash_qrow {
	int			 job;
	int			 klass;		/* the policy's preemption class */
	struct policy_key	 key;
	bool			 active;	/* holds or held cells, not pending */
};

struct dash_model {
	struct dash_source	*src;
	struct dash_data	 d;
	uint64_t		 gen;		/* source gen the fields describe */
	uint64_t		 spec_gen;	/* ... and spec_gen (source.h 5) */
	long long		 rebuilds;	/* derived data updated (tests, bench) */
	long long		 full;		/* ... of which full rebuilds */
	long long		 delta_jobs;	/* jobs updated by delta, all told */

	struct engine_stats	 st;
	double			 util;		/* (guaranteed + opp GPUs) / all GPUs */
	double			 frag;		/* partially free nodes / all nodes */
	int			 pending, running;

	struct dash_vc		*vcs;
	int			 nvcs;

	struct dash_qrow	*q;
	int			 nq;
	size_t			 q_cap;
	int			*vq_first;	/* nvcs + 1 offsets into q */

	/* fragmentation by delta: per spec node, its GPUs and how many are
	   used by guaranteed jobs or bad; partial counts 0 < busy < gpus */
	int			*node_gpus;
	int			*node_busy;
	int			 partial;
	/* map glyphs of the nodes drawn, valid while node_at == gen + 1 */
	char			*node_ch;
	unsigned char		*node_role;
	uint64_t		*node_at;

	/* per job: the spec nodes its cells were on at the last refresh */
	int			**job_nodes;
	int			*job_nnodes;
	int			 known;		/* jobs the arrays cover */
	/* jobs not arrived yet (submit > now), by submit: arrivals by delta */
	int			*future;
	int			 nfuture, future_next;
	size_t			 future_cap;
	double			 last_now;
	/* scratch */
	unsigned char		*jmark, *nmark;
	int			*cj, ncj;	/* changed jobs */
	int			*cn, ncn;	/* nodes to recount */
	size_t			 cj_cap, cn_cap;
	struct dash_qrow	*q2, *qn;	/* merge target, new rows */
	size_t			 q2_cap, qn_cap;

	unsigned char		*open;		/* per cell: expanded in the tree */
	int			*rows;		/* visible tree rows (cells) */
	int			 nrows;
	size_t			 rows_cap;

	struct rec		*ev;		/* ring of DASH_EVENTS */
	int			 ev_head;	/* next slot */
	int			 ev_n;
	long long		 ev_total;
	long long		 ev_kinds[REC_NKINDS];	/* all records seen, by kind */
};

/* What a workload that has ended shows (the demo's summary screen). */
struct dash_summary {
	double		 now;
	int		 jobs;		/* arrived by now */
	int		 done;		/* completed */
	int		 left;		/* still queued or running */
	double		 util;		/* busy GPU-time / (GPUs x now) */
	long long	 preemptions;	/* preempt and downgrade records */
	long long	 node_failures;	/* node-bad records */
	long long	 failed;	/* jobs failed by a node */
};

void	dash_model_init(struct dash_model *m, struct dash_source *src);
void	dash_model_release(struct dash_model *m);
/* Bring the derived data up to the source's generation (cheap if equal). */
void	dash_model_refresh(struct dash_model *m);
/* Recompute every derived field from the source (what refresh does by
   delta; tests compare the two). */
void	dash_model_rebuild(struct dash_model *m);
/* Play dt seconds (or follow), collect the events, refresh. */
int	dash_model_advance(struct dash_model *m, double dt, char **cause);

/*
 * Start the source over (its restart op: the demo's 'r') and the model
 * with it, events and all. -1 with *cause when the source cannot.
 */
int	dash_model_restart(struct dash_model *m, char **cause);
/* The figures of the summary screen, from the jobs and the events seen. */
void	dash_model_summary(const struct dash_model *m, struct dash_summary *su);

/* The i-th event, 0 = oldest kept; NULL past the end. */
const struct rec *dash_model_event(const struct dash_model *m, int i);

/* Tree: open or close a cell (rows rebuilt); depth of a cell in its chain. */
void	dash_model_set_open(struct dash_model *m, int cell, bool open);
int	dash_model_depth(const struct dash_model *m, int cell);

/*
 * The node map's glyph for a spec node, from the engine when asked (only
 * nodes on screen are): its VC's letter (lower case: only opportunistic
 * jobs), '.' free, ',' bound to a VC but idle, '#' bad; *role is an enum
 * dash_role.
 */
void	dash_model_node(const struct dash_model *m, int node, char *ch,
	    unsigned char *role);

/* A VC's letter and a job's name for messages ("-" when out of range). */
char	dash_vc_letter(int vc);
const char *dash_job_name(const struct dash_model *m, int job);

/*
 * How a policy's key reads to a person: "q1" (las queue), "q0 g=0.0021"
 * (gittins), "rem 1h02m" (srtf), "susp x3" (gandiva, j is the row's
 * job)... From a table by policy name; unknown
 * policies show the raw numbers.
 */
void	dash_format_prio(const char *policy, const struct dash_qrow *r,
	    const struct job *j, char *buf, size_t len);
/* "3d04h", "12m05s", "45s" */
void	dash_format_dur(double s, char *buf, size_t len);

#endif
