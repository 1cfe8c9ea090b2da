/*
 * record.h — one entry of the event log: what happened to which job, VC or
 * cell at what time. The emulator and the session produce them, the store
 * appends them (never rewrites one), and `events` / `history` show them.
 * Pure: no I/O.
 *
 * Times are on the backend's clock (virtual seconds for the emulator).
 * Indices refer to the spec of the run the record belongs to: job is the
 * job's id in its run, vc a spec VC index, cell a spec cell index (a node's
 * cell for node events); -1 means "not about one".
 *
 * Ownership: a struct rec is a plain value (its detail is inline); the
 * functions here live in record.c.
 */
#ifndef CELLAR_RECORD_H
#define CELLAR_RECORD_H

enum rec_kind {
	REC_SUBMIT,		/* job entered the queue */
	REC_START,		/* job got its cells (detail: where) */
	REC_SUSPEND,
	REC_RESUME,
	REC_PREEMPT,		/* job lost its cells to `by` */
	REC_REQUEUE,		/* back to pending (after preemption or failure) */
	REC_COMPLETE,
	REC_FAIL,
	REC_CANCEL,
	REC_DOWNGRADE,		/* lazily preempted by `by`: runs on as opportunistic */
	REC_RELEASE,		/* cells freed by an operator (session) */
	REC_NODE_BAD,
	REC_NODE_OK,
	REC_RECONFIG,		/* a spec change moved the job (detail: how) */
	REC_MIGRATE,		/* moved to other GPUs (detail: where to) */
	REC_PACK,		/* runs at once with others on the same GPUs (detail: with whom) */
	REC_UNPACK,		/* a pack undone: back to time-slicing (detail: why) */
	REC_GROW,		/* an elastic job took more GPUs */
	REC_SHRINK,		/* an elastic job gave GPUs back */
	REC_UPGRADE,		/* opportunistic -> guaranteed in place */
	REC_NKINDS
};

#define REC_DETAIL_MAX	128

struct rec {
	double		 t;
	enum rec_kind	 kind;
	int		 job;		/* -1: not about a job */
	int		 vc;		/* -1: none */
	int		 cell;		/* -1: none */
	int		 by;		/* preempt/downgrade: the job that took the cells */
	char		 detail[REC_DETAIL_MAX];	/* "" or one line */
};

/*
 * The one initialiser of a record: kind at t about job in vc (-1: none),
 * no cell, no `by`, an empty detail. Every producer starts from it.
 */
void		 rec_init(struct rec *r, double t, enum rec_kind kind, int job,
		    int vc);
/* Set r's detail to text, cut to fit on a UTF-8 boundary with "...". */
void		 rec_set_detail(struct rec *r, const char *text);

/* "submit", "start"...; rec_kind_parse returns -1 for an unknown name. */
const char	*rec_kind_name(enum rec_kind k);
int		 rec_kind_parse(const char *name);

#endif
