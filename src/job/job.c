/*
 * job.c — the job state machine and its name tables. See job.h.
 */
#include <string.h>
#include <strings.h>

#include "core/strbuf.h"
#include "job/job.h"

/* Every transition in one place: trans[state][event] = next state + 1. */
#define T(to) ((to) + 1)
static const signed char trans[JOB_NSTATES][JOB_NEVENTS] = {
	[JOB_PENDING] = {
		[JOB_EV_START] = T(JOB_RUNNING),
		[JOB_EV_CANCEL] = T(JOB_CANCELLED),
	},
	[JOB_RUNNING] = {
		[JOB_EV_SUSPEND] = T(JOB_SUSPENDED),
		[JOB_EV_PREEMPT] = T(JOB_PREEMPTED),
		[JOB_EV_FINISH] = T(JOB_COMPLETING),
		[JOB_EV_FAIL] = T(JOB_FAILED),
		[JOB_EV_CANCEL] = T(JOB_CANCELLED),
	},
	[JOB_SUSPENDED] = {
		[JOB_EV_RESUME] = T(JOB_RUNNING),
		[JOB_EV_PREEMPT] = T(JOB_PREEMPTED),
		[JOB_EV_FAIL] = T(JOB_FAILED),
		[JOB_EV_CANCEL] = T(JOB_CANCELLED),
	},
	[JOB_PREEMPTED] = {
		[JOB_EV_REQUEUE] = T(JOB_PENDING),
		[JOB_EV_CANCEL] = T(JOB_CANCELLED),
	},
	[JOB_COMPLETING] = {
		[JOB_EV_COMPLETE] = T(JOB_COMPLETED),
		[JOB_EV_FAIL] = T(JOB_FAILED),
	},
	[JOB_FAILED] = {
		[JOB_EV_REQUEUE] = T(JOB_PENDING),
		[JOB_EV_CANCEL] = T(JOB_CANCELLED),
	},
};
#undef T

static const struct {
	const char	*name, *code, *help;
} states[JOB_NSTATES] = {
	[JOB_PENDING]	 = { "pending", "PD", "waiting for cells; the REASON column says why" },
	[JOB_RUNNING]	 = { "running", "R", "holds its cells and makes progress" },
	[JOB_SUSPENDED]	 = { "suspended", "S", "holds its cells, paused (time-slicing)" },
	[JOB_PREEMPTED]	 = { "preempted", "PR", "lost its cells to a higher-priority job; "
			     "checkpointed and requeued" },
	[JOB_COMPLETING] = { "completing", "CG", "work done, releasing its cells" },
	[JOB_COMPLETED]	 = { "completed", "CD", "finished successfully" },
	[JOB_FAILED]	 = { "failed", "F", "stopped by an error or a node failure" },
	[JOB_CANCELLED]	 = { "cancelled", "CA", "cancelled by an operator" },
};

static const char *const events[JOB_NEVENTS] = {
	"submit", "start", "suspend", "resume", "preempt", "requeue", "finish",
	"complete", "fail", "cancel",
};

static const struct {
	const char	*name, *help;
} reasons[JOB_NREASONS] = {
	[JOB_REASON_NONE]	= { "None", "not pending, or not considered yet" },
	[JOB_REASON_RESOURCES]	= { "Resources", "no idle GPUs of that kind in the cluster" },
	[JOB_REASON_VCFULL]	= { "VCFull", "its VC's cells (or GPU quota) are all in use" },
	[JOB_REASON_FRAGMENTED]	= { "Fragmented", "its VC has enough free GPUs, but not "
				    "inside one cell of the size a pod needs" },
	[JOB_REASON_BADNODES]	= { "BadNodes", "room only on nodes marked bad" },
	[JOB_REASON_PRIORITY]	= { "Priority", "jobs ahead of it in the policy's order "
				    "go first" },
	[JOB_REASON_GANG]	= { "Gang", "some pods of its gang fit, but not all at once" },
	[JOB_REASON_PREEMPTING]	= { "Preempting", "lower-priority jobs are being preempted "
				    "to make room" },
	[JOB_REASON_NODEFAIL]	= { "NodeFail", "requeued after a node it ran on failed" },
};

static const char *const classes[] = {
	[JOB_GUARANTEED] = "guaranteed",
	[JOB_OPPORTUNISTIC] = "opportunistic",
	[JOB_AUTO] = "auto",
};

void
job_init(struct job *j, int id, const char *name, int vc, double submit)
{
	memset(j, 0, sizeof *j);
	bufprintf(j->name, sizeof j->name, "%s", name);
	j->id = id;
	j->vc = vc;
	j->submit = submit;
	j->leaf_type = -1;
	j->klass = JOB_GUARANTEED;
	j->weight = 1;
	j->uid = -1;
	j->gid = -1;
	j->duration = -1;
	j->state = JOB_PENDING;
	j->state_since = submit;
	j->first_start = -1;
	j->end = -1;
	j->engine_id = -1;
	job_set_shape(j, 1, 1);
}

void
job_set_shape(struct job *j, int pods, int gpus)
{
	j->nmembers = 1;
	j->members[0].pods = pods;
	j->members[0].gpus = gpus;
	j->gpus = pods * gpus;
}

int
job_next_state(enum job_state s, enum job_event ev)
{
	if ((unsigned)s >= JOB_NSTATES || (unsigned)ev >= JOB_NEVENTS)
		return -1;
	return trans[s][ev] - 1;
}

int
job_apply(struct job *j, enum job_event ev, double now, char *why, size_t len)
{
	int to;

	if (ev == JOB_EV_SUBMIT) {
		/* (re)submission starts the clock; only from the initial state */
		if (j->state != JOB_PENDING || j->first_start >= 0 || j->restarts) {
			bufprintf(why, len, "job '%s' was already submitted", j->name);
			return -1;
		}
		j->submit = j->state_since = now;
		return 0;
	}
	to = job_next_state(j->state, ev);
	if (to < 0) {
		bufprintf(why, len, "job '%s' cannot %s: it is %s", j->name,
		    job_event_name(ev), job_state_name(j->state));
		return -1;
	}
	if (now < j->state_since) {
		bufprintf(why, len, "job '%s': %s at %.3f is before its last change at %.3f",
		    j->name, job_event_name(ev), now, j->state_since);
		return -1;
	}
	if (j->state == JOB_PENDING)
		j->queued += now - j->state_since;
	if (to == JOB_RUNNING && j->first_start < 0)
		j->first_start = now;
	switch (ev) {
	case JOB_EV_PREEMPT:
		j->preemptions++;
		break;
	case JOB_EV_SUSPEND:
		j->suspensions++;
		break;
	case JOB_EV_REQUEUE:
		j->restarts++;
		break;
	default:
		break;
	}
	if (to != JOB_PENDING)
		j->reason = JOB_REASON_NONE;
	j->state = to;
	j->state_since = now;
	if (to == JOB_RUNNING && j->promo_wait < 0)	/* first run since a promotion */
		j->promo_wait = j->queued - (j->first_start - j->submit);
	if (job_is_final(j))
		j->end = now;
	else
		j->end = -1;
	return 0;
}

void
job_account(struct job *j, double dt, double speed)
{
	job_account_shared(j, dt, speed, 1);
}

void
job_account_shared(struct job *j, double dt, double speed, double share)
{
	if (dt <= 0)
		return;
	j->attained += dt * j->gpus * share;
	j->run_time += dt;
	j->work_done += dt * speed;
	if (j->duration >= 0 && j->work_done > j->duration)
		j->work_done = j->duration;
}

double
job_queued_at(const struct job *j, double now)
{
	if (j->state == JOB_PENDING && now > j->state_since)
		return j->queued + (now - j->state_since);
	return j->queued;
}

double
job_run_time_at(const struct job *j, double now)
{
	if (j->state == JOB_RUNNING && now > j->state_since)
		return j->run_time + (now - j->state_since);
	return j->run_time;
}

bool
job_is_final(const struct job *j)
{
	return j->state == JOB_COMPLETED || j->state == JOB_CANCELLED ||
	    j->state == JOB_FAILED;
}

bool
job_holds_cells(const struct job *j)
{
	return j->state == JOB_RUNNING || j->state == JOB_SUSPENDED ||
	    j->state == JOB_COMPLETING;
}

const char *
job_state_name(enum job_state s)
{
	return (unsigned)s < JOB_NSTATES ? states[s].name : "?";
}

const char *
job_state_code(enum job_state s)
{
	return (unsigned)s < JOB_NSTATES ? states[s].code : "?";
}

const char *
job_state_help(enum job_state s)
{
	return (unsigned)s < JOB_NSTATES ? states[s].help : "";
}

const char *
job_event_name(enum job_event ev)
{
	return (unsigned)ev < JOB_NEVENTS ? events[ev] : "?";
}

const char *
job_reason_name(enum job_reason r)
{
	return (unsigned)r < JOB_NREASONS ? reasons[r].name : "?";
}

const char *
job_reason_help(enum job_reason r)
{
	return (unsigned)r < JOB_NREASONS ? reasons[r].help : "";
}

const char *
job_class_name(enum job_class c)
{
	return (unsigned)c < sizeof classes / sizeof classes[0] ? classes[c] : "?";
}

int
job_class_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof classes / sizeof classes[0]; i++)
		if (strcasecmp(s, classes[i]) == 0)
			return (int)i;
	return -1;
}

enum job_reason
job_reason_from_engine(enum engine_fail f)
{
	static const enum job_reason map[] = {
		[ENGINE_OK] = JOB_REASON_NONE,
		[ENGINE_EBADREQ] = JOB_REASON_NONE,
		[ENGINE_ENOTYPE] = JOB_REASON_RESOURCES,
		[ENGINE_ETOOBIG] = JOB_REASON_RESOURCES,
		[ENGINE_EVCFULL] = JOB_REASON_VCFULL,
		[ENGINE_EBADONLY] = JOB_REASON_BADNODES,
		[ENGINE_EPINBUSY] = JOB_REASON_VCFULL,
		[ENGINE_EPREEMPT] = JOB_REASON_PRIORITY,
		[ENGINE_ECLUSTERFULL] = JOB_REASON_RESOURCES,
		[ENGINE_EQUOTA] = JOB_REASON_VCFULL,
	};
	return (unsigned)f < sizeof map / sizeof map[0] ? map[f] : JOB_REASON_NONE;
}
