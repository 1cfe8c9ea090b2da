/*
 * cmd-live.c — the live session's commands: submit, cancel, wait and
 * queue (job log and job migrate are in cmd-job.c). They hand the work to the console (src/live/console.h), which
 * records every decision in the store before hooks carry it out; wait
 * runs the console's loop until the jobs named reach a state, so scripts
 * and tests can drive a live cluster in batch mode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/frontend.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "live/console.h"

static int
status_of(struct cmd_ctx *ctx, int status)
{
	ctx->status = status;
	return -1;
}

/* The session's console, its notes to stderr when just made (cmd.h). */
int
cmd_live_console(struct cmd_ctx *ctx, struct console **c, char **cause)
{
	bool fresh = ctx->sess->console == NULL;
	const char *notes;
	int rc;

	if ((rc = console_get(ctx->sess, c, cause)) != 0) {
		ctx->status = rc == -2 ? CMD_EXIT_NOSERVER : CMD_EXIT_SPEC;
		return -1;
	}
	if (fresh && (notes = console_notes(*c)) != NULL)
		strbuf_adds(ctx->err, notes);
	return 0;
}

/* ---- submit ---- */

static const struct cmd_opt submit_opts[] = {
	{ 0, "vc", "VC", "the job's virtual cluster", VALUE_VC },
	{ 'g', "gpus", "N", "GPUs per pod (default 1)", VALUE_NONE },
	{ 'p', "pods", "P", "pods of the gang (default 1)", VALUE_NONE },
	{ 0, "priority", "PRIO", "0 to 1000 (default 0); -1 opportunistic", VALUE_NONE },
	{ 'e', "env", "NAME=VALUE", "an environment variable for the job (repeatable)",
	  VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static int
submit_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct session *s = ctx->sess;
	struct console_submit sub;
	struct console *c;
	struct strvec env = STRVEC_INIT;
	const char *vc = args_get(a, "vc");
	size_t i;
	int rc, status, id;

	memset(&sub, 0, sizeof sub);
	sub.name = args_value(a, 0);
	sub.gpus = sub.pods = 1;
	if (vc == NULL) {
		*cause = xstrdup("missing '--vc VC'");
		return cmd_usage_error(ctx);
	}
	if (args_has(a, "gpus") && ((sub.gpus = (int)args_strtonum(a, "gpus", 1,
	    4096, cause)), *cause != NULL))
		return cmd_usage_error(ctx);
	if (args_has(a, "pods") && ((sub.pods = (int)args_strtonum(a, "pods", 1,
	    1024, cause)), *cause != NULL))
		return cmd_usage_error(ctx);
	if (args_has(a, "priority") && ((sub.priority = (int)args_strtonum(a,
	    "priority", -1, 1000, cause)), *cause != NULL))
		return cmd_usage_error(ctx);
	if (args_count(a) < 2) {
		*cause = xstrdup("missing the job's command (after '--')");
		return cmd_usage_error(ctx);
	}
	/* the console first: without a server the local spec is not the
	   cluster's, and its VCs say nothing */
	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	if ((sub.vc = spec_find_vc(s->spec, vc)) < 0) {
		*cause = spec_unknown_vc(s->spec, vc);
		return -1;
	}
	for (i = 0; i < args_nopts(a); i++)
		if (strcmp(args_opt_name(a, i), "env") == 0)
			strvec_push(&env, args_opt_value(a, i));
	sub.argv = args_argv(a) + 1;
	sub.argc = args_count(a) - 1;
	sub.env = env.v;
	sub.nenv = (int)env.n;
	rc = console_submit(c, &sub, &status, cause);
	strvec_release(&env);
	if (rc != 0)
		return status_of(ctx, status);
	id = console_job(c, console_find(c, sub.name))->id;	/* the newest */
	/* one tick: a job that fits starts now, not at the next command */
	if (console_tick(c, cause) != 0)
		return status_of(ctx, CMD_EXIT_STORE);
	if (ctx->out.format == OUT_JSON) {
		struct json j;

		cmd_json_begin(ctx, &j, "submit");
		json_key(&j, "name");
		json_string(&j, sub.name);
		json_kv_int(&j, "id", id);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "submitted job '%s' (id %d)\n", sub.name, id);
	return 0;
}

const struct cmd_entry cmd_submit_entry = {
	.name = "submit",
	.opts = submit_opts,
	.min = 1, .max = -1,
	.usage = "NAME --vc VC [--gpus N] [--pods P] [--priority PRIO] "
	    "[--env NAME=VALUE]... -- COMMAND [ARG...]",
	.summary = "submit a real job to the live cluster",
	.help =
	    "Queue job NAME in virtual cluster VC: P pods of N GPUs each, run "
	    "by the spec's backend (backend: local or ssh) through its hooks. "
	    "The scheduler (policy priority: higher priority first, then "
	    "arrival; a job preempts lower priorities in its VC) starts it when "
	    "its cells are free. A preempted job is stopped and requeued, or, "
	    "when the hook set has suspend and resume and the job is "
	    "guaranteed, suspended: it gives its cells up and is resumed later "
	    "on exactly the same GPUs. The start hook runs COMMAND on each pod's node "
	    "with the job in environment variables (CELLAR_JOB, CELLAR_VC, "
	    "CELLAR_POD, CELLAR_PODS, CELLAR_NODES, CELLAR_NODE, CELLAR_GPUS, "
	    "CUDA_VISIBLE_DEVICES, CELLAR_PRIORITY, CELLAR_COMMAND, "
	    "CELLAR_RUNDIR, CELLAR_USER, CELLAR_UID, CELLAR_GID); the --env "
	    "entries are set for COMMAND alone (env NAME=VALUE ... COMMAND), "
	    "never for the hooks. The job runs as the user who submitted it, "
	    "or as the account the spec's access.runAs maps them to; only an "
	    "admin's job runs as root.\n"
	    "NAME is letters, digits, '.', '_' and '-' (no shell "
	    "metacharacters); the submission is committed to the state store "
	    "before anything runs. A job its VC could never hold (a pod larger "
	    "than any of its cells, more pods than it has cells for) is refused "
	    "with place's reason.",
	.examples = (const char *const []){
		"submit train1 --vc prod --gpus 2 -- sleep 30",
		"submit train2 --vc prod --gpus 2 -- sleep 60",
		"submit bert --vc research --gpus 2 --pods 2 --priority 10 "
		"--env EPOCHS=3 -- ./train.sh --resume",
		NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = submit_exec,
};

/* ---- cancel ---- */

static int
cancel_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	struct console *c;
	char name[JOB_NAME_MAX];
	int status, i, id = -1;

	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	/* NAME or %ID: the reply names the job */
	snprintf(name, sizeof name, "%s", args_value(a, 0));
	if ((i = console_find(c, args_value(a, 0))) >= 0) {
		snprintf(name, sizeof name, "%s", console_job(c, i)->name);
		id = console_job(c, i)->id;
	}
	if (console_cancel(c, args_value(a, 0), &status, cause) != 0)
		return status_of(ctx, status);
	if (console_tick(c, cause) != 0)
		return status_of(ctx, CMD_EXIT_STORE);
	if (ctx->out.format == OUT_JSON) {
		struct json j;

		cmd_json_begin(ctx, &j, "cancel");
		json_key(&j, "name");
		json_string(&j, name);
		json_kv_int(&j, "id", id);
		cmd_json_end(ctx, &j);
	} else
		strbuf_addf(ctx->o, "cancelled %s\n", name);
	return 0;
}

const struct cmd_entry cmd_cancel_entry = {
	.name = "cancel",
	.min = 1, .max = 1,
	.arg_kind = VALUE_JOB,
	.usage = "NAME",
	.summary = "cancel a submitted job (queued, running or suspended)",
	.help =
	    "Take job NAME out of the queue, or stop it: its cells are freed "
	    "and the stop hook runs on each of its pods' nodes (wait shows when "
	    "they are done).",
	.examples = (const char *const []){ "cancel train1", NULL },
	.flags = CMD_MUTATES | CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = cancel_exec,
};

/* ---- wait ---- */

static const struct cmd_opt wait_opts[] = {
	{ 0, "state", "STATE", "wait for this state: running, done (default) "
	  "or a job state (completed, failed, cancelled, pending, suspended)", VALUE_NONE },
	{ 't', "timeout", "DURATION", "give up after this long (default 1h; 90s, 5m)",
	  VALUE_NONE },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

/* Has job i reached what wait asks for? */
static bool
reached(const struct console_job *cj, const char *want)
{
	if (strcmp(want, "done") == 0)
		return cj->phase == CONSOLE_DONE && cj->hooks_out == 0;
	if (strcmp(want, "running") == 0)
		return cj->phase == CONSOLE_RUNNING;
	/* its suspend hooks are done; the status polls a suspended job
	   gets (hooks_out) must not hide it */
	if (strcmp(want, "suspended") == 0)
		return cj->phase == CONSOLE_SUSPENDED;
	return strcmp(job_state_name(cj->job.state), want) == 0 &&
	    (cj->phase != CONSOLE_STOPPING && cj->hooks_out == 0);
}

/* What wait found: one line (or JSON object) per job it waited for. */
static void
write_states(struct cmd_ctx *ctx, const struct args *a, const struct console *c,
    const struct console_snapshot *snap)
{
	struct json j;
	int i, k, n = args_count(a) > 0 ? args_count(a) : snap->njobs;

	if (ctx->out.format == OUT_JSON) {
		cmd_json_begin(ctx, &j, "wait");
		json_key(&j, "jobs");
		json_array_begin(&j);
	}
	for (k = 0; k < n; k++) {
		const struct console_job *cj;

		i = args_count(a) > 0 ? console_find(c, args_value(a, k)) : k;
		cj = &snap->jobs[i];
		if (ctx->out.format == OUT_JSON) {
			json_object_begin(&j);
			json_key(&j, "name");
			json_string(&j, cj->job.name);
			json_kv_int(&j, "id", cj->job.id);
			json_key(&j, "state");
			json_string(&j, job_state_name(cj->job.state));
			json_key(&j, "phase");
			json_string(&j, console_phase_name(cj->phase));
			json_object_end(&j);
		} else
			strbuf_addf(ctx->o, "%s %s\n", cj->job.name,
			    job_state_name(cj->job.state));
	}
	if (ctx->out.format == OUT_JSON) {
		json_array_end(&j);
		cmd_json_end(ctx, &j);
	}
}

static int
wait_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct frontend *fe = ctx->sess->fe;
	const char *want = args_get(a, "state") ? args_get(a, "state") : "done";
	struct console_snapshot snap;
	struct console *c;
	double timeout = 3600, start;
	bool all;
	int i, k, idx;

	if (args_has(a, "timeout") && args_seconds(args_get(a, "timeout"), &timeout) != 0) {
		*cause = xasprintf("bad duration '%s'", args_get(a, "timeout"));
		return cmd_usage_error(ctx);
	}
	if (strcmp(want, "done") != 0 && strcmp(want, "running") != 0) {
		for (i = 0; i < JOB_NSTATES; i++)
			if (strcmp(job_state_name((enum job_state)i), want) == 0)
				break;
		if (i == JOB_NSTATES) {
			*cause = xasprintf("unknown state '%s'", want);
			return cmd_usage_error(ctx);
		}
	}
	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	for (k = 0; k < args_count(a); k++)
		if (console_find(c, args_value(a, k)) < 0) {
			*cause = xasprintf("no job '%s'", args_value(a, k));
			return -1;
		}
	/* a server runs a wait again until done: its clock is the request's */
	start = ctx->sess->request_at > 0 ? ctx->sess->request_at : session_now();
	for (;;) {
		/* a server ticks each round of its loop, a parked wait
		   only looks (a halted loop's tick just says why) */
		if ((!ctx->sess->serving || console_halted(c) != NULL) &&
		    console_tick(c, cause) != 0)
			return status_of(ctx, CMD_EXIT_STORE);
		console_snapshot(c, &snap);
		all = true;
		if (args_count(a) == 0) {
			for (i = 0; i < snap.njobs; i++)
				all = all && reached(&snap.jobs[i], want);
		} else
			for (k = 0; k < args_count(a); k++) {
				idx = console_find(c, args_value(a, k));
				all = all && reached(&snap.jobs[idx], want);
			}
		if (all) {
			write_states(ctx, a, c, &snap);
			console_snapshot_release(&snap);
			return 0;
		}
		console_snapshot_release(&snap);
		if (session_now() - start >= timeout) {
			*cause = xasprintf("timed out waiting for %s", want);
			return -1;
		}
		if (ctx->sess->serving) {
			ctx->again = true;	/* the server's loop goes on */
			return -1;
		}
		if (fe != NULL && fe->interrupted(fe))
			return status_of(ctx, CMD_EXIT_INTR);
		if (console_wait(c, 200, -1, cause) < 0)
			return status_of(ctx, CMD_EXIT_STORE);
	}
}

const struct cmd_entry cmd_wait_entry = {
	.name = "wait",
	.opts = wait_opts,
	.min = 0, .max = -1,
	.arg_kind = VALUE_JOB,
	.usage = "[NAME...] [--state STATE] [--timeout DURATION]",
	.summary = "wait until live jobs reach a state",
	.help =
	    "Wait while the store's server runs the live cluster (hooks, status "
	    "polls, the scheduler) until "
	    "every job named (or every submitted job) is done — completed, "
	    "failed or cancelled, with its stop hooks finished — or reaches "
	    "--state: running (its start hooks all succeeded; after a job "
	    "migrate, its migrate hook too) or a job state "
	    "such as pending or completed. Fails after --timeout.",
	.examples = (const char *const []){ "wait train1 --timeout 10m",
	    "wait train2 --state running", NULL },
	.flags = CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER,
	.formats = OUT_TEXT | OUT_MASK(OUT_JSON),
	.exec = wait_exec,
};

/* ---- queue ---- */

static const struct cmd_opt queue_opts[] = {
	{ 0, "vc", "VC", "only this virtual cluster's queue", VALUE_VC },
	{ 0, NULL, NULL, NULL, VALUE_NONE }
};

static const struct table_colspec queue_columns[] = {
	{ "VC", "vc", 0, "the virtual cluster" },
	{ "POS", "pos", TABLE_NUM, "place in the VC's queue (1 is tried first), "
	  "- for a job that holds cells" },
	{ "JOB", "job", TABLE_NAME, "the job's name" },
	{ "ID", "id", TABLE_NUM, "the job's id (%ID names it: a name is reused, an id never)" },
	{ "USER", "user", 0, "who submitted it (the server's caller)" },
	{ "ST", "state", 0, "state code: PD, R, CG ... (help states)" },
	{ "PHASE", "phase", 0, "queued, starting, running, stopping, suspending, suspended or resuming" },
	{ "PRIO", "priority", TABLE_NUM, "0 to 1000, -1 opportunistic" },
	{ "GPUS", "gpus", TABLE_NUM, "GPUs of the gang (pods x GPUs per pod)" },
	{ "PODS", "pods", TABLE_NUM, "pods" },
	{ "NODES", "nodes", TABLE_HOSTS, "its nodes, as a hostlist, or -" },
	{ "REASON", "reason", 0, "why a queued job waits (help states), else -" },
	{ NULL, NULL, 0, NULL }
};

struct queue_arg {
	const struct console_snapshot	*snap;
	const int			*pos;
};

static int
prio_of(const struct job *j)
{
	return j->klass == JOB_OPPORTUNISTIC ? -1 : j->priority;
}

static void
queue_json_one(struct cmd_ctx *ctx, struct json *j, long i, void *arg)
{
	const struct queue_arg *q = arg;
	const struct console_job *cj = &q->snap->jobs[i];

	json_object_begin(j);
	json_kv_string(j, "vc", ctx->sess->spec->vcs[cj->job.vc].name);
	if (q->pos[i] > 0)
		json_kv_int(j, "pos", q->pos[i]);
	else
		json_kv_null(j, "pos");
	json_kv_string(j, "job", cj->job.name);
	json_kv_int(j, "id", cj->job.id);
	json_kv_string(j, "user", cj->job.user);
	json_kv_string(j, "state", job_state_name(cj->job.state));
	json_kv_string(j, "state_code", job_state_code(cj->job.state));
	json_kv_string(j, "phase", console_phase_name(cj->phase));
	json_kv_int(j, "priority", prio_of(&cj->job));
	json_kv_int(j, "gpus", cj->job.gpus);
	json_kv_int(j, "pods", cj->job.members[0].pods);
	json_kv_string(j, "nodes", cj->nodes);
	if (cj->phase == CONSOLE_QUEUED)
		json_kv_string(j, "reason", job_reason_name(cj->job.reason));
	else
		json_kv_null(j, "reason");
	json_object_end(j);
}

static int
queue_exec(struct cmd_ctx *ctx, const struct args *a, char **cause)
{
	const struct spec *s = ctx->sess->spec;
	const char *vcname = args_get(a, "vc");
	struct console_snapshot snap;
	struct queue_arg qa;
	struct console *c;
	struct table *t;
	struct json j;
	int *order, *pos, n, k, vc = -1;

	if (cmd_live_console(ctx, &c, cause) != 0)
		return -1;
	if (vcname != NULL && (vc = spec_find_vc(s, vcname)) < 0) {
		*cause = spec_unknown_vc(s, vcname);
		return -1;
	}
	/* a tick first: hooks that finished are counted, a pass has run;
	   a halted console is read as it is (reads go on) */
	if (console_halted(c) == NULL && console_tick(c, cause) != 0)
		return status_of(ctx, CMD_EXIT_STORE);
	console_snapshot(c, &snap);
	order = xcalloc((size_t)snap.njobs + 1, sizeof *order);
	pos = xcalloc((size_t)snap.njobs + 1, sizeof *pos);
	n = console_queue(c, order, pos);
	t = table_create();
	table_columns(t, queue_columns);
	for (k = 0; k < n; k++) {
		const struct console_job *cj = &snap.jobs[order[k]];
		bool queued = cj->phase == CONSOLE_QUEUED;

		if (vc >= 0 && cj->job.vc != vc)
			continue;
		table_row(t);
		table_row_tag(t, order[k]);
		table_cell(t, "%s", s->vcs[cj->job.vc].name);
		if (queued)
			table_cell_int(t, pos[order[k]]);
		else
			table_cell(t, "-");
		table_cell(t, "%s", cj->job.name);
		table_cell_int(t, cj->job.id);
		table_cell(t, "%s", cj->job.user[0] != '\0' ? cj->job.user : "-");
		table_cell_role(t, queued ? ROLE_NONE : ROLE_BUSY, "%s",
		    job_state_code(cj->job.state));
		table_cell(t, "%s", console_phase_name(cj->phase));
		table_cell_int(t, prio_of(&cj->job));
		table_cell_int(t, cj->job.gpus);
		table_cell_int(t, cj->job.members[0].pods);
		table_cell(t, "%s", cj->nodes[0] ? cj->nodes : "-");
		table_cell(t, "%s", queued ? job_reason_name(cj->job.reason) : "-");
	}
	if (cmd_list_apply(ctx, t, cause) != 0) {
		table_free(t);
		free(order);
		free(pos);
		console_snapshot_release(&snap);
		return -1;
	}
	if (ctx->out.format == OUT_JSON) {
		qa.snap = &snap;
		qa.pos = pos;
		cmd_json_begin(ctx, &j, "queue");
		cmd_list_json(ctx, &j, "jobs", t, queue_json_one, &qa);
		cmd_json_end(ctx, &j);
	} else
		table_render(t, &ctx->out, ctx->o);
	table_free(t);
	free(order);
	free(pos);
	console_snapshot_release(&snap);
	return 0;
}

const struct cmd_entry cmd_queue_entry = {
	.name = "queue",
	.opts = queue_opts,
	.min = 0, .max = 0,
	.usage = "[--vc VC]",
	.summary = "list the live session's queues in the policy's order",
	.help =
	    "The submitted jobs that are not done, per virtual cluster: first "
	    "the ones that hold cells, are giving them back or are suspended "
	    "(starting, running, stopping, suspending, suspended, resuming; by "
	    "the time of their last change), then the queued ones in the "
	    "order the policy tries them (priority: higher first, then "
	    "arrival), numbered in POS, with the reason each one waits.",
	.examples = (const char *const []){ "queue", "queue --vc prod -o json",
		NULL },
	.flags = CMD_NEEDS_ENGINE | CMD_LIVE | CMD_SERVER |
	    CMD_GROUP,
	.formats = OUT_ALL,
	.columns = queue_columns,
	.exec = queue_exec,
};
