/*
 * sim-run.h — what the emulator's commands share (cmd-replay.c,
 * cmd-compare.c, cmd-anomaly.c; sim-run.c holds it): one option set, one
 * preparation (load the spec and the trace, map it, set up the policy),
 * running one configuration or several at once (sim-pool.h) with a
 * progress line, and the report's rows, JSON and series. The emulator
 * itself lives in src/sim. Reports are deterministic; the wall time of a
 * run goes to stderr as a note so that the report stays byte-identical
 * between machines.
 *
 * Ownership: a struct sim is the command's, on its stack; sim_prepare
 * fills it (it may borrow the session's spec) and sim_release frees what
 * it allocated, prepared or not.
 */
#ifndef CELLAR_SIM_RUN_H
#define CELLAR_SIM_RUN_H

#include <stdbool.h>
#include <time.h>

#include "cmd/cmd.h"
#include "cmd/table.h"
#include "policy/policy.h"
#include "sim/replay.h"
#include "sim/sample.h"

#define SIM_MAX_RUNS	32
#define SIM_MAX_HEIGHT	16	/* --max-height: members per GPU slot */

/* Options every emulator command takes. */
#define SIM_COMMON_OPTS							\
	{ 0, "spec", "FILE", "the cluster spec (default: the session's)", VALUE_SPEC }, \
	{ 0, "format", "FMT", "trace format: auto, philly, itp, tiresias", VALUE_NONE }, \
	{ 0, "vc-map", "MAP", "trace VCs to spec VCs: a=b,c=d,*=x (x '-' drops)", VALUE_NONE }, \
	{ 0, "seed", "N", "seed for models, sampling and synth traces (default 1)", VALUE_NONE }, \
	{ 0, "from", "T", "keep jobs submitted at or after T (30m, 12h, 3d)", VALUE_NONE }, \
	{ 0, "to", "T", "keep jobs submitted before T", VALUE_NONE }, \
	{ 0, "sample", "F", "keep each job with probability F (0 < F <= 1)", VALUE_NONE }, \
	{ 0, "load", "X", "scale the arrival rate by X", VALUE_NONE }, \
	{ 0, "class", "C", "priority class of every job without its own (trace column class): guaranteed, opportunistic, auto (default: auto under antman, else guaranteed)", VALUE_NONE }, \
	{ 0, "affinity", "A", "hard (wait for a compact placement, default) or soft (relax)", VALUE_NONE }, \
	{ 0, "no-affinity-slowdown", NULL, "soft-affinity jobs run at compact speed, however relaxed", VALUE_NONE }, \
	{ 0, "skip-too-big", NULL, "drop jobs larger than their VC instead of failing", VALUE_NONE }, \
	{ 0, "ideal", NULL, "no speed model, free preemption", VALUE_NONE }, \
	{ 0, "binding", "B", "hived: dynamic (buddy, default) or static (each VC's cells bound at the start, for good)", VALUE_NONE }, \
	{ 0, "borrow", NULL, "quota: a job over its VC's quota borrows idle GPUs and keeps them until it ends (YARN-CS without preemption)", VALUE_NONE }, \
	{ 0, "units", "U", "times in tables and csv: s (default), m, h or d (JSON: seconds)", VALUE_NONE }, \
	{ 0, "queues", "K", "las/gittins: number of queues (default 2)", VALUE_NONE }, \
	{ 0, "thresholds", "LIST", "las/gittins: queue thresholds in GPU-time (default 1h)", VALUE_NONE }, \
	{ 0, "promote", "KNOB", "las/gittins: back to the first queue after waiting KNOB x run time", VALUE_NONE }, \
	{ 0, "service", "FILE", "gittins: job service sample (yarn-gput csv)", VALUE_FILE }, \
	{ 0, "fault", "NODE@T[-T2]", "node goes bad at T (back at T2); repeatable", VALUE_NODE }, \
	{ 0, "ckpt-interval", "T", "periodic checkpoint interval for failures (default 30m)", VALUE_NONE }, \
	{ 0, "feedback", "T", "early feedback: time until a job has run T (default 10m)", VALUE_NONE }, \
	{ 0, "slice", "T", "gandiva: time-slice interval (default 60s)", VALUE_NONE }, \
	{ 0, "no-pack", NULL, "gandiva: time-slice only, never try packing", VALUE_NONE }, \
	{ 0, "no-slice", NULL, "gandiva: pack only, never time-slice (jobs that cannot pack wait)", VALUE_NONE }, \
	{ 0, "max-height", "N", "gandiva: at most N jobs time-sliced per GPU (default 2, 1: none)", VALUE_NONE }, \
	{ 0, "gpu-mem", "GB", "gandiva, antman: GiB of memory per GPU (default 16)", VALUE_NONE }, \
	{ 0, "suspend-cost", "X", "gandiva: x each model's suspend+resume cost (default 1)", VALUE_NONE }, \
	{ 0, "migrate-cost", "X", "gandiva: x each model's migration cost (default 1)", VALUE_NONE }, \
	{ 0, "no-migrate", NULL, "gandiva: no locality or defragmentation migrations", VALUE_NONE }, \
	{ 0, "defrag-every", "T", "gandiva: defragmentation pass interval (default 60s, 0: none)", VALUE_NONE }, \
	{ 0, "grow-after", "T", "gandiva: elastic jobs grow into GPUs of their node idle T (default 5m)", VALUE_NONE }, \
	{ 0, "opp-threshold", "M", "antman: opportunistic jobs only on GPUs busy below M (default 0.8)", VALUE_NONE }, \
	{ 0, "opp-window", "T", "antman: GPU utilization averaged over T (default 5m)", VALUE_NONE }

/* A unit for the times of report tables (--units); JSON keeps seconds. */
struct time_unit {
	const char	*name, *word;
	double		 secs;
	const char	*fmt;
};

static const struct time_unit time_units[] = {
	{ "s", "seconds", 1, "%.0f" },
	{ "m", "minutes", 60, "%.1f" },
	{ "h", "hours", 3600, "%.2f" },
	{ "d", "days", 86400, "%.3f" },
};

/* One configuration to run. */
struct simrun {
	const struct policy_ops	*ops;
	enum engine_mode	 mode;
};

/* Everything a command prepared; released by sim_release. */
struct sim {
	struct cmd_ctx		*ctx;
	struct spec		*own_spec;	/* --spec, else borrowed from the session */
	const struct spec	*s;
	struct replay_cfg	 rc;
	struct replay		 r;
	bool			 prepared;
	struct policy_params	 pp;
	struct sample		 service;
	struct emu_params	 ep;
	struct emu_fault	*faults;
	struct simrun		 runs[SIM_MAX_RUNS];
	int			 nruns;
	/* progress */
	struct timespec		 t0, last;
	const char		*label;
	bool			 shown;
	bool			 speed_noted;	/* speed_model_note said it once */
	const struct time_unit	*unit;		/* --units: tables' times */
	void			*batch;		/* sim_run_all's, while it runs */
};

#define FIG_WINDOW	(12 * 3600)	/* HiveD's moving window (Fig. 5-6) */

extern const struct table_colspec sim_replay_columns[];

/* "90", "90s", "15m", "36h", "10d", "2w" -> seconds. */
int	sim_parse_duration(const char *s, const char *what, double *out,
	    char **cause);
/* Parse the options shared by the three commands and prepare the replay
   (def_policies: the --policy default). */
int	sim_prepare(struct sim *m, struct cmd_ctx *ctx, const struct args *a,
	    const char *def_policies, char **cause);
void	sim_release(struct sim *m);
/* Run one configuration; the wall time goes to stderr as a note. */
int	sim_run(struct sim *m, const struct simrun *run,
	    const struct replay_hooks *h, struct replay_result *res, char **cause);
/*
 * Run runs[0..n) into res[0..n), up to --parallel at once (threads: the
 * runs are independent and deterministic, so the reports are those of
 * one run after another). The notes of the wall times follow in order.
 * On a failure: -1 with the first failed run's cause (res all released).
 */
int	sim_run_all(struct sim *m, const struct args *a, const char *what,
	    const struct simrun *runs, int n, bool keep_jobs,
	    struct replay_result *res, char **cause);

/* The report: a time in the table's unit; one group's row; JSON. */
void	sim_cell_time(struct table *t, const struct time_unit *u, double secs);
void	sim_group_row(struct table *t, const struct time_unit *u, long tag,
	    const struct emu_group *g);
void	sim_dist_json(struct json *j, const char *key, const struct emu_dist *d);
void	sim_group_json(struct json *j, const struct emu_group *g);
/* A group's JSON for cmd_table's rows: arg is a struct replay_json_arg. */
struct replay_json_arg {
	const struct emu_report	*rep;
};
void	sim_replay_json_one(struct cmd_ctx *ctx, struct json *j, long tag,
	    void *arg);
void	sim_config_json(struct json *j, const struct sim *m,
	    const struct simrun *run);
void	sim_totals_json(struct json *j, const struct replay_result *res);
/* The experiment switches that are set (static binding, no affinity
   slowdown, gandiva without time-slicing): their JSON keys, and for a
   text header ", ideal" and their words. */
void	sim_settings_json(struct json *j, const struct sim *m);
void	sim_settings_text(struct strbuf *sb, const struct sim *m);
/* AntMan's figures, one line each, when the policy shared GPUs its way. */
void	sim_antman_text(struct strbuf *o, const struct emu_report *r);
/* --borrow applies to quota runs: 0, or -1 with *cause when no run is one. */
int	sim_borrow_check(const struct sim *m, const struct simrun *runs, int n,
	    char **cause);
/* Whether a run lends (--borrow and quota mode). */
bool	sim_run_borrows(const struct sim *m, const struct simrun *run);
/* One line on what ran borrowed, when the run lent (label: NULL or the
   run's name). */
void	sim_borrow_text(struct strbuf *o, const char *label, const struct emu_report *r);
/* The series as CSV, with each VC's queuing delay over a moving window of
   win seconds (sim-run.c says how). */
int	sim_write_series(struct cmd_ctx *ctx, const struct sim *m,
	    const char *path, const struct replay_result *res, double win,
	    char **cause);
/* A --figure's exit status as the command's (figure.h). */
int	sim_figure_status(struct cmd_ctx *ctx, int status);

#endif
