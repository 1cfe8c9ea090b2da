/*
 * model.h — what the dashboard's panels show, derived from a source
 * (dash/source.h) and kept between frames: the status figures, each VC's
 * usage, the queues in the policy's order, the node map, the visible rows
 * of the cell tree and the last events. No curses, no clock: the face calls
 * dash_model_advance with the virtual seconds to play and draws from the
 * model.
 *
 * Cost: per-cell counts (used, opportunistic, bad leaves) are the engine's,
 * kept incrementally by every alloc and release, so a tree row costs O(tree
 * depth) whatever the cluster's size. Everything else (VC usage, queue
 * order, node glyphs, utilization and fragmentation) is recomputed only
 * when the source's generation moves (source invariant 1): a frame over
 * unchanged data walks no GPU, node or job, only the rows it draws.
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
	long long		 rebuilds;	/* derived data recomputed (tests, bench) */

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

	char			*node_ch;	/* per spec node: map character */
	unsigned char		*node_role;	/* enum dash_role */

	unsigned char		*open;		/* per cell: expanded in the tree */
	int			*rows;		/* visible tree rows (cells) */
	int			 nrows;
	size_t			 rows_cap;

	struct rec		*ev;		/* ring of DASH_EVENTS */
	int			 ev_head;	/* next slot */
	int			 ev_n;
	long long		 ev_total;
};

void	dash_model_init(struct dash_model *m, struct dash_source *src);
void	dash_model_release(struct dash_model *m);
/* Bring the derived data up to the source's generation (cheap if equal). */
void	dash_model_refresh(struct dash_model *m);
/* Play dt seconds (or follow), collect the events, refresh. */
int	dash_model_advance(struct dash_model *m, double dt, char **cause);

/* The i-th event, 0 = oldest kept; NULL past the end. */
const struct rec *dash_model_event(const struct dash_model *m, int i);

/* Tree: open or close a cell (rows rebuilt); depth of a cell in its chain. */
void	dash_model_set_open(struct dash_model *m, int cell, bool open);
int	dash_model_depth(const struct dash_model *m, int cell);

/* A VC's letter and a job's name for messages ("-" when out of range). */
char	dash_vc_letter(int vc);
const char *dash_job_name(const struct dash_model *m, int job);

/*
 * How a policy's key reads to a person: "q1" (las queue), "q0 g=0.0021"
 * (gittins), "rem 1h02m" (srtf)... From a table by policy name; unknown
 * policies show the raw numbers.
 */
void	dash_format_prio(const char *policy, const struct dash_qrow *r,
	    char *buf, size_t len);
/* "3d04h", "12m05s", "45s" */
void	dash_format_dur(double s, char *buf, size_t len);

#endif
