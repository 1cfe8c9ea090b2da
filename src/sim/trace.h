/*
 * trace.h — job traces: readers for the public trace shapes, a synthetic
 * generator, transformations, and the mapping of a trace onto a spec's VCs.
 *
 * Formats (detected from the header line, or forced):
 *   philly    timestamp,duration,num_gpus,gpu_time,cluster
 *             wall-clock "YYYY-MM-DD HH:MM:SS" (UTC), NOT sorted; the VC is
 *             the cluster column.
 *   itp       job_id,submission_time,duration,num_gpu   (seconds, sorted)
 *   tiresias  job_id,num_gpu,submit_time,iterations,model_name,duration,interval
 *
 * A loaded trace is sorted by (submit, line) and its times are shifted so the
 * first submission is at 0 (t->epoch keeps the original origin, seconds since
 * 1970 for philly, 0 otherwise). A malformed row is an error naming the file,
 * the line and the column, never a silent skip.
 *
 * Ownership: a struct trace owns its jobs and strings; trace_release frees
 * them. Transformations edit the trace in place.
 *
 * Invariants:
 *  1. jobs sorted by (submit, line); jobs[0].submit == 0 when njobs > 0.
 *  2. every job has gpus >= 1 and duration >= 0.
 */
#ifndef CELLAR_TRACE_H
#define CELLAR_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "job/job.h"
#include "spec/spec.h"

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
	int		 line;			/* in the source file; 0 if synthetic */
};

struct trace {
	char			*path;
	enum trace_format	 format;
	double			 epoch;
	struct trace_job	*jobs;
	int			 njobs;
};

const char	*trace_format_name(enum trace_format f);
int		 trace_format_parse(const char *name);	/* -1 if unknown */

/* Read a trace file. Returns 0, or -1 with *cause ("file:line:col: ..."). */
int		 trace_load(const char *path, enum trace_format fmt, struct trace *t,
		    char **cause);
/* The same from a string (tests); name is used in messages. */
int		 trace_load_string(const char *name, const char *text, size_t len,
		    enum trace_format fmt, struct trace *t, char **cause);
void		 trace_release(struct trace *t);

/* One line: "82247 jobs, 15 VCs, 3.5 months, 1-128 GPUs (mean 1.9), ..." */
void		 trace_summary(const struct trace *t, struct strbuf *sb);

/* Keep jobs submitted in [from, to) seconds; times re-based to from. */
void		 trace_window(struct trace *t, double from, double to);
/* Keep each job with probability fraction (deterministic in seed). */
void		 trace_sample(struct trace *t, double fraction, uint64_t seed);
/* Scale the load by x: inter-arrival times divided by x. */
void		 trace_scale_load(struct trace *t, double x);

/* The synthetic generator. */
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
	const double	*vc_weights;
	int		 nvcs;
};
void		 synth_params_init(struct synth_params *p);	/* sensible defaults */
int		 trace_synth(const struct synth_params *p, struct trace *t, char **cause);

/*
 * Turn a trace into jobs for a spec. VCs are matched by name, then through
 * vcmap ("6214e9=research,11cb48=prod,*=dev"; NULL = none; "*" catches the
 * rest); an unmatched VC is an error listing the trace VCs. Jobs get a gang
 * shape that fits the spec (pods of the largest cell size that divides the
 * GPU count and is at most a node; 12 GPUs on 8-GPU nodes = 3 pods x 4), a
 * model (the trace's, else model_pick of the name and seed), and ids 0..n-1
 * in trace order. A job larger than its VC could ever hold is an error
 * unless skip_too_big, which drops it and counts it in *skipped.
 * Returns 0 (with *jobs malloc'ed) or -1 with *cause.
 */
int		 trace_to_jobs(const struct trace *t, const struct spec *s,
		    const char *vcmap, uint64_t seed, bool skip_too_big,
		    struct job **jobs, int *njobs, int *skipped, char **cause);

#endif
