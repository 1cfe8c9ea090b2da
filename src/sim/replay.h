/*
 * replay.h — a trace prepared for a spec, replayed under any number of
 * policies and sharing modes, and the sharing-anomaly comparison of a shared
 * run against private clusters. What the replay, compare and anomaly
 * commands share.
 *
 * Ownership: a struct replay owns its trace and its pristine jobs (never
 * run); replay_run copies them, so one prepared replay serves every run.
 * The spec is borrowed and must outlive it.
 *
 * Invariants:
 *  1. jobs are new (PENDING, not submitted), ids 0..njobs-1, each fits its
 *     VC's assignment in the spec.
 *  2. replay_run never changes the replay: two runs with the same inputs
 *     give identical jobs and reports.
 */
#ifndef CELLAR_REPLAY_H
#define CELLAR_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "sim/emu.h"
#include "sim/trace.h"

struct replay_cfg {
	const char		*trace;		/* a file, or "synth[:N]" */
	enum trace_format	 format;	/* TRACE_AUTO */
	const char		*vcmap;		/* NULL: by name */
	uint64_t		 seed;		/* models, sampling, synth: 1 */
	bool			 skip_too_big;
	double			 from, to;	/* window, seconds; to < 0: none */
	double			 sample;	/* fraction kept: 1 */
	double			 load;		/* arrival-rate factor: 1 */
	int			 klass;		/* enum job_class of every job whose
						   trace gives none; -1: the
						   policy's (replay_class) */
	bool			 soft_affinity;	/* every job may relax its pods */
};

void	replay_cfg_init(struct replay_cfg *c);

/*
 * The class every job of a run gets unless its trace's class column gives
 * its own (struct job's class_given): klass when >= 0, else the policy's
 * own: auto under a policy with POLICY_OPPSHARE (antman: its
 * auto-classification is the point), guaranteed otherwise.
 */
enum job_class	replay_class(int klass, const struct policy_ops *ops);

struct replay {
	const struct spec	*s;
	struct trace		 t;
	struct job		*jobs;
	int			 njobs;
	int			 skipped;	/* too big for their VC */
	int			 dropped;	/* VC mapped to "-" */
	int			 klass;		/* the cfg's: -1, each run's policy's */
};

/* Load, transform and map a trace. Returns 0, or -1 with *cause. */
int	replay_prepare(struct replay *r, const struct spec *s,
	    const struct replay_cfg *c, char **cause);
void	replay_release(struct replay *r);
/* "82229 jobs of philly.csv (18 dropped, 0 too big): ..." */
void	replay_describe(const struct replay *r, struct strbuf *sb);

/* One finished run. */
struct replay_result {
	struct job		*jobs;		/* the jobs as they ended */
	struct emu_report	 report;
	struct emu_sample	*series;
	int			 nseries;
	long long		 events;
};

int	replay_run(const struct replay *r, const struct policy *p,
	    enum engine_mode mode, const struct emu_params *par,
	    bool (*progress)(void *arg, const struct emu_progress *pr), void *arg,
	    struct replay_result *out, char **cause);
void	replay_result_release(struct replay_result *res);
/*
 * A replay that can be checkpointed and resumed (the state store). At a
 * tick boundary where progress would be called and at least `every` events
 * after the last checkpoint (0: at each such boundary), and once at the
 * end (final true), checkpoint gets the emulator and the jobs; returning
 * -1 with *cause stops the run. With resume set, the run continues from
 * that saved state, resume_jobs being the r->njobs jobs as saved.
 */
struct replay_hooks {
	int			(*checkpoint)(void *arg, struct emu *m,
				    const struct job *jobs, bool final, char **cause);
	void			*arg;
	const struct emu_saved	*resume;
	const struct job	*resume_jobs;
	long long		 every;
};

int	replay_run_hooked(const struct replay *r, const struct policy *p,
	    enum engine_mode mode, const struct emu_params *par,
	    bool (*progress)(void *arg, const struct emu_progress *pr), void *arg,
	    const struct replay_hooks *h, struct replay_result *out, char **cause);


#define ANOMALY_MAX_WINDOWS	32

/*
 * The sharing-anomaly check of one VC. Its delay is HiveD's queuing delay,
 * submission to first start (JCT = queuing delay + training time): a job
 * that ran early as opportunistic, was preempted and waited again has had
 * its start; those waits are `pend_*` (all time PENDING), reported but not
 * judged.
 */
struct anomaly_vc {
	char		 name[64];
	int		 jobs;		/* completed in both runs */
	double		 q_shared;	/* mean delay to first start, seconds */
	double		 q_private;
	double		 pend_shared;	/* mean time PENDING, requeues included */
	double		 pend_private;
	double		 ratio;		/* shared / private (1 when both ~0) */
	int		 windows;	/* windows with jobs of this VC */
	int		 worse;		/* windows where shared was worse */
	double		 worse_at[ANOMALY_MAX_WINDOWS];	/* the first worse windows' starts */
	/* the window where shared exceeds private the most (or falls short
	   the least): its start and both means */
	double		 worst_at;
	double		 worst_shared;
	double		 worst_private;
	bool		 anomalous;	/* worse than private beyond noise */
};

/*
 * "Worse beyond noise": shared > private x (1 + ANOMALY_TOLERANCE) +
 * ANOMALY_SLACK seconds, for the VC's average and for each window.
 */
#define ANOMALY_TOLERANCE	0.10
#define ANOMALY_SLACK		60.0

/* Compare two runs of the same jobs; out has one entry per spec VC. */
void	anomaly_compute(const struct spec *s, const struct job *shared,
	    const struct job *priv, int n, double window, struct anomaly_vc *out);
/* Did every job start, end and wait the same in both runs? */
bool	anomaly_identical(const struct job *a, const struct job *b, int n);

#endif
