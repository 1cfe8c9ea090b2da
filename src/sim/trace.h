/*
 * trace.h — job traces: readers for the public trace shapes, a synthetic
 * generator, transformations (trace.c, synth.c), and the mapping of a
 * trace onto a spec's VCs (trace-vcmap.c).
 *
 * Formats (detected from the header line, or forced):
 *   philly    timestamp,duration,num_gpus,gpu_time,cluster
 *             wall-clock "YYYY-MM-DD HH:MM:SS" (UTC), NOT sorted; the VC is
 *             the cluster column; jobs are named "<file>-<line>".
 *   itp       job_id,submission_time,duration,num_gpu   (seconds, sorted)
 *   tiresias  job_id,num_gpu,submit_time,iterations,model_name,duration,interval
 *             (model_name must be in model_table; the synthetic/ traces too)
 * Any format may end with optional columns, named by a header, each at most
 * once and in any order: gpus_max, the most GPUs the job may grow to
 * (elastic, Gandiva's grow-shrink; >= num_gpus; equal means not elastic);
 * priority, a whole number 0 to TRACE_MAX_PRIORITY (struct job's priority;
 * 0 when not given); weight, a whole number 1 to TRACE_MAX_WEIGHT (its
 * time-slice weight within its priority; 1 when not given); class, the
 * job's own class: guaranteed, opportunistic or auto (any case, as
 * --class; when not given the run's class applies, see replay_class);
 * affinity, hard or soft (any case, as --affinity; when not given the
 * run's --affinity applies).
 * A forced format skips line 1 only when it is that format's header. Fields
 * may be padded with blanks; CRLF line ends and a missing final newline are
 * fine; blank lines carry no job and are ignored. Numbers are decimals
 * ("66.0", "1e3"); GPU counts whole numbers >= 1; durations and times >= 0.
 * job_ids must be unique (the engine names running jobs by them).
 *
 * A loaded trace is sorted by (submit, line) and its times are shifted so the
 * first submission is at 0; t->epoch is the original time of that first
 * submission (seconds since 1970 UTC for philly, the trace's own seconds
 * otherwise), so the original time of any job is epoch + submit. A
 * malformed row is an error naming the file, the line and the column
 * ("file:line:col: ..."), never a silent skip. So is a trace spanning more
 * than TRACE_MAX_SPAN from its first submission to a job's end (at its
 * trace duration): the error names both rows.
 *
 * Ownership: a struct trace owns its jobs and strings; trace_release frees
 * them. Transformations edit the trace in place and keep the invariants.
 *
 * Invariants:
 *  1. jobs sorted by (submit, line); jobs[0].submit == 0 when njobs > 0.
 *  2. every job has gpus >= 1 and duration >= 0.
 *
 * Refinements of the first contract: trace_window re-bases to the first kept
 * job (not to `from`) so invariant 1 holds, and adjusts epoch; the three
 * transformations return 0 / -1 with *cause for arguments out of range;
 * trace_to_jobs also counts the jobs a vcmap drops ("*=-"); epoch is the
 * first submission's original time for every format. Service samples for
 * gittins (yarn-gput*.csv) are read by sim/sample.h.
 */
#ifndef CELLAR_TRACE_H
#define CELLAR_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "job/job.h"
#include "spec/spec.h"

/* Limits; a file beyond them is an error. */
#define TRACE_MAX_JOBS	(1 << 25)
#define TRACE_MAX_GPUS	(1 << 20)
#define TRACE_MAX_TIME	1e10		/* seconds, ~317 years */
/* From the first submission to the last job's end at its ideal speed:
   ten years (a Philly row dated 9999 is a typo, and a replay's clock, its
   time series with it, runs as long as the trace spans). */
#define TRACE_MAX_SPAN	(10 * 365.25 * 86400)
#define TRACE_MAX_PRIORITY 1000		/* as a submission's priority */
#define TRACE_MAX_WEIGHT 1000

enum trace_format {
	TRACE_AUTO = -1,
	TRACE_PHILLY,
	TRACE_ITP,
	TRACE_TIRESIAS,
	TRACE_SYNTH,		/* made by trace_synth */
};

struct trace_job {
	char		 name[JOB_NAME_MAX];	/* job_id, or "<file>-<line>" */
	char		 vc[64];		/* trace VC; "" if none */
	double		 submit;		/* seconds from the first submission */
	double		 duration;		/* seconds */
	int		 gpus;
	int		 model;			/* model_table index, -1 if not given */
	int		 gpus_max;		/* elastic: grows up to this; 0 not given */
	int		 priority;		/* 0 not given */
	int		 weight;		/* >= 1; 0 not given (1) */
	int		 klass;			/* 1 + enum job_class; 0 not given
						   (zero-filled jobs carry none) */
	int		 affinity;		/* 1 hard, 2 soft; 0 not given */
	int		 line;			/* in the source file; 0 if synthetic */
};

struct trace {
	char			*path;
	enum trace_format	 format;
	double			 epoch;
	struct trace_job	*jobs;
	int			 njobs;
};

/* "philly", "itp", "tiresias", "synth"; trace_format_parse also takes "auto". */
const char	*trace_format_name(enum trace_format f);
int		 trace_format_parse(const char *name);	/* -2 if unknown */

/*
 * Read a trace file (the whole file at once, parsed in place). Returns 0, or
 * -1 with *cause ("file:line:col: ...", malloc'ed) and *t empty.
 */
int		 trace_load(const char *path, enum trace_format fmt, struct trace *t,
		    char **cause);
/* The same from a buffer (tests); name is used in messages and job names. */
int		 trace_load_string(const char *name, const char *text, size_t len,
		    enum trace_format fmt, struct trace *t, char **cause);
void		 trace_release(struct trace *t);

/*
 * One line, e.g. "philly 'philly.csv': 82247 jobs, 15 VCs, 109.0 days,
 * gpus 1-128 (mean 1.7), duration median 0.24 h p95 .. h max .. h,
 * 1.23M gpu-hours, mean demand 470 gpus".
 */
void		 trace_summary(const struct trace *t, struct strbuf *sb);

/* Keep jobs submitted in [from, to) seconds; times re-based to the first kept. */
int		 trace_window(struct trace *t, double from, double to, char **cause);
/*
 * Keep each job with probability fraction (0 < fraction <= 1), decided by a
 * hash of its name and seed: the same job is kept for the same seed whatever
 * else the trace holds, so window and sample commute.
 */
int		 trace_sample(struct trace *t, double fraction, uint64_t seed, char **cause);
/* Scale the load by x > 0: inter-arrival times divided by x. */
int		 trace_scale_load(struct trace *t, double x, char **cause);

/*
 * The synthetic generator, deterministic in seed (xoshiro256** seeded by
 * splitmix64, no libc randomness). Jobs "synth-<i>", format TRACE_SYNTH,
 * model -1 (trace_to_jobs picks one by name).
 */
struct synth_params {
	int		 njobs;
	uint64_t	 seed;
	double		 rate;		/* arrivals per hour (Poisson) */
	double		 dur_median;	/* seconds; log-normal durations */
	double		 dur_sigma;	/* log-normal sigma (heavy tail) */
	double		 dur_max;	/* cap, seconds */
	const int	*gpu_sizes;	/* GPU-count mix: sizes and weights */
	const double	*gpu_weights;
	int		 ngpu_sizes;
	const char *const *vcs;		/* VC names and their load shares */
	const double	*vc_weights;	/* NULL: equal shares */
	int		 nvcs;		/* 0: jobs without a VC */
};
/*
 * Defaults: 1000 jobs, seed 1, 20 jobs/h, median 30 min, sigma 1.8 (a few
 * jobs run for days), cap 14 days, Philly's GPU mix (1: 93%, 2: 2.2%,
 * 4: 2.3%, 8: 2.0%, 16: 0.3%, 32: 0.1%), no VCs.
 */
void		 synth_params_init(struct synth_params *p);
int		 trace_synth(const struct synth_params *p, struct trace *t, char **cause);

/*
 * Turn a trace into jobs for a spec.
 *
 * VCs. For each trace VC, in this order: an exact vcmap entry ("a=b"), the
 * spec VC of the same name, the vcmap's "*" entry. The target "-" drops the
 * jobs (counted in *dropped). vcmap is "a=b,c=d,*=x" (blanks around names
 * are ignored; NULL or "" = none). An unmatched VC is an error listing the
 * unmatched trace VCs and the spec's VCs. A trace without VCs (itp,
 * tiresias, synth without vcs) goes to the "*" entry, else to the spec's VC
 * when it has exactly one, else it is an error asking for "*=VC".
 *
 * Gang shape, in the chain of the VC's cells that gives the largest pods
 * (only virtualCells count: a trace job names no pinned cell), where a
 * "cell size" is the leaf count of a level of that chain at or below its
 * node level and N is the node size:
 *  1. G <= N and the VC holds a cell of >= G leaves: one pod of G (the
 *     engine keeps it in the smallest cell that holds G: 3 GPUs on one
 *     socket, 6 on one node);
 *  2. else pods of the largest cell size p that divides G and whose G/p
 *     cells the VC holds: 12 on 8-GPU nodes = 3 x 4, 16 = 2 x 8, 24 = 3 x 8,
 *     10 = 5 x 2; a VC of 2 sockets + 2 switches takes 12 as 6 x 2.
 * A job of more GPUs than the VC holds in any one chain can never run: an
 * error naming the first such job, unless skip_too_big, which drops it and
 * counts it in *skipped.
 *
 * Jobs get the trace's model, else model_pick(model_hash(name, seed)); the
 * trace's submit and duration; ids 0..n-1 in trace order. Returns 0 (with
 * *jobs malloc'ed, NULL when *njobs == 0) or -1 with *cause. skipped and
 * dropped may be NULL.
 */
int		 trace_to_jobs(const struct trace *t, const struct spec *s,
		    const char *vcmap, uint64_t seed, bool skip_too_big,
		    struct job **jobs, int *njobs, int *skipped, int *dropped,
		    char **cause);

#endif
