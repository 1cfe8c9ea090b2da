/*
 * session-log.c — the session's run in the state store: what the hand
 * commands do to the live cluster, recorded as jobs, placements, events
 * and node health (store/store.h), one transaction per command.
 *
 * Order of a recorded command: session_log_begin (open the store, create
 * the run on the first write, BEGIN IMMEDIATE: a locked or unwritable
 * store fails here, before anything changes), the engine acts, the
 * session_log_* calls record what it did, session_log_commit. A failure
 * after the engine acted is reported (exit 4) and the caller undoes what
 * the engine allows.
 *
 * Clock: Unix seconds (session_now). Jobs get ids 0, 1, ... in their run;
 * an engine job and its stored job share the name (unique among running
 * jobs, and in the run: a name used again renames the earlier, finished
 * job to NAME~ID, which no job name given by hand can be).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "core/hostlist.h"
#include "core/json.h"
#include "core/pack.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "job/record.h"
#include "store/store.h"

/* Failures of the store are exit 4; everything here returns -1 for them. */

void
session_leaf_node_list(const struct spec *s, const int *leaves, int n,
    struct strvec *out)
{
	size_t k;
	int i, node;

	for (i = 0; i < n; i++) {
		if (leaves[i] < 0 || leaves[i] >= s->ncells ||
		    (node = s->cells[leaves[i]].node) < 0)
			continue;
		for (k = 0; k < out->n; k++)
			if (strcmp(out->v[k], s->nodes[node].name) == 0)
				break;
		if (k == out->n)
			strvec_push(out, s->nodes[node].name);
	}
}

char *
session_leaf_nodes(const struct spec *s, const int *leaves, int n)
{
	struct strvec nodes = STRVEC_INIT;
	char *h;

	session_leaf_node_list(s, leaves, n, &nodes);
	h = hostlist_compress(nodes.v, nodes.n);
	strvec_release(&nodes);
	return h;
}

char *
session_leaf_gpus(const struct spec *s, const int *leaves, int n)
{
	struct strbuf sb = STRBUF_INIT;
	/* borrowed addresses, not copies: an alloc prints this every time */
	const char **addrs = xcalloc((size_t)n + 1, sizeof *addrs);
	bool *done = xcalloc((size_t)n + 1, sizeof *done);
	size_t na;
	int i, k, node;

	for (i = 0; i < n; i++) {
		char *h;

		if (done[i] || leaves[i] < 0 || leaves[i] >= s->ncells)
			continue;
		node = s->cells[leaves[i]].node;
		na = 0;
		for (k = i; k < n; k++)
			if (!done[k] && leaves[k] >= 0 && leaves[k] < s->ncells &&
			    s->cells[leaves[k]].node == node) {
				addrs[na++] = s->cells[leaves[k]].addr;
				done[k] = true;
			}
		h = hostlist_compress((char *const *)addrs, na);
		if (sb.len > 0)
			strbuf_addc(&sb, ' ');
		strbuf_adds(&sb, node >= 0 ? s->nodes[node].name : "-");
		strbuf_addc(&sb, ':');
		strbuf_adds(&sb, h);
		free(h);
	}
	free(done);
	free(addrs);
	return strbuf_detach(&sb, NULL);
}

/*
 * Job `job` runs where engine job engine_id does. The "NODE:ADDRS ..."
 * text goes to *gpus when gpus is not NULL (the caller frees it; NULL if
 * the engine job holds nothing or the write failed), for a start event to
 * say where without working it out again.
 */
static int
put_placement(struct session *s, int job, int engine_id, char **gpus,
    char **cause)
{
	struct engine_placement pl;
	char *nodes, *g;
	int rc;

	if (gpus != NULL)
		*gpus = NULL;
	/* everything engine_restore_job needs to re-create it after a crash */
	if (!engine_job_placement(s->engine, engine_id, &pl))
		return 0;
	nodes = session_leaf_nodes(s->spec, pl.leaves, pl.nleaves);
	g = session_leaf_gpus(s->spec, pl.leaves, pl.nleaves);
	rc = store_placement_put(s->store, s->run, job, &pl, nodes, g, cause);
	free(nodes);
	if (gpus != NULL && rc == 0)
		*gpus = g;
	else
		free(g);
	return rc == 0 ? 0 : -1;
}

int
session_log_placement(struct session *s, int job, int engine_id, char **cause)
{
	return put_placement(s, job, engine_id, NULL, cause);
}

static int
append(struct session *s, const struct rec *r, char **cause)
{
	return store_event_append(s->store, s->run, r, NULL, cause) == 0 ? 0 : -1;
}

/* A new run for this session, on its spec; older ones are interrupted. */
static int
create_run(struct session *s, char **cause)
{
	struct store_run r;
	int64_t spec;
	int n;

	if (store_spec_put(s->store, s->spec, &spec, cause) != 0)
		return -1;
	store_run_init(&r);
	r.kind = STORE_RUN_SESSION;
	r.spec = spec;
	r.mode = (char *)engine_mode_name(s->mode);
	r.state = STORE_RUN_RUNNING;
	r.now = session_now();
	if (store_run_create(s->store, &r, cause) != 0 ||
	    store_run_interrupt_sessions(s->store, r.id, &n, cause) != 0)
		return -1;
	s->run = r.id;
	return 0;
}

/*
 * What the store holds of sessions now: its newest session run and that
 * run's newest event. Every recorded change appends an event to the run
 * it changes, and a new run is a new id, so another process's write
 * moves one of them (issue 23 F1: a writer acting on an engine built
 * before it double-booked GPUs).
 */
static int
fingerprint(struct session *s, int64_t *run, int64_t *seq, char **cause)
{
	int rc;

	*run = *seq = 0;
	rc = store_run_last(s->store, STORE_RUN_SESSION, run, cause);
	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (rc != 0)
		return -1;
	return store_event_last_seq(s->store, *run, seq, cause);
}

/*
 * What the engine is built from now: read before a rebuild (so it can only
 * be older than what the rebuild reads: one reload too many, never one
 * too few), or under the write lock before our commit (after it, another
 * writer's commit could slip in and be taken as seen). *fp gets it;
 * seen_set makes it the session's once the commit went through.
 */
struct seen {
	bool	 valid;
	int64_t	 run, seq;
};

static int
seen_read(struct session *s, struct seen *fp, char **cause)
{
	fp->valid = false;
	if (s->store == NULL || s->serving || s->console != NULL)
		return 0;
	/* in a transaction this writes the pending event block first: its
	   failure is the command's */
	if (fingerprint(s, &fp->run, &fp->seq, cause) != 0)
		return -1;
	fp->valid = true;
	return 0;
}

static void
seen_set(struct session *s, const struct seen *fp)
{
	s->seen_valid = fp->valid;
	s->seen_run = fp->run;
	s->seen_seq = fp->seq;
}

static void
seen_mark(struct session *s)
{
	struct seen fp;
	char *cause = NULL;

	seen_read(s, &fp, &cause);	/* not valid: no check until a commit */
	free(cause);
	seen_set(s, &fp);
}

/* Under the write lock: has another process written since we looked? */
static bool
seen_moved(struct session *s)
{
	int64_t run, seq;
	char *cause = NULL;
	bool moved;

	if (s->serving || s->console != NULL || store_is_memory(store_path(s->store)))
		return false;
	/* built before the store existed: any session run is news */
	if (!s->seen_valid)
		moved = fingerprint(s, &run, &seq, &cause) != 0 || run != 0;
	else
		moved = fingerprint(s, &run, &seq, &cause) != 0 ||
		    run != s->seen_run || seq != s->seen_seq;
	free(cause);
	return moved;
}

int
session_log_begin(struct session *s, bool *run_created, char **cause)
{
	struct store *st;

	*run_created = false;
	if (s->engine == NULL)
		fatal("session_log_begin: no engine");
	if (session_store(s, true, &st, cause) != 0)
		return -1;
	if (store_begin(st, cause) != 0)
		return -1;
	if (!store_in_group(st) && seen_moved(s)) {
		/* the caller runs the command again on a reloaded session */
		store_rollback(st);
		s->stale = true;
		*cause = xasprintf("state store '%s' was changed by another "
		    "process", store_path(st));
		return -1;
	}
	if (s->run == 0 && s->resume_run != 0) {
		s->run = s->resume_run;		/* the recovered run goes on */
		s->resume_run = 0;
	}
	if (s->run == 0) {
		if (create_run(s, cause) != 0) {
			store_rollback(st);
			s->run = 0;
			return -1;
		}
		*run_created = true;
	}
	return 0;
}

/*
 * The engine state the placements do not say (engine.h: the bad marks and
 * the history counters), sealed: version, marks (virtual leaf, leaf), then
 * binds, unbinds, splits, merges. Written with every command, so a
 * recovered engine is the engine that was, not only an equivalent one.
 */
#define ENGINE_STATE_VERSION	1

void
session_engine_state(const struct engine *e, struct strbuf *out)
{
	struct engine_mark *mk;
	struct engine_stats st;
	int i, n = engine_marks(e, NULL, 0);

	mk = xcalloc((size_t)n + 1, sizeof *mk);
	n = engine_marks(e, mk, n);
	engine_stats(e, &st);
	pack_u32(out, ENGINE_STATE_VERSION);
	pack_i32(out, n);
	for (i = 0; i < n; i++) {
		pack_i32(out, mk[i].vleaf);
		pack_i32(out, mk[i].leaf);
	}
	pack_i64(out, st.binds);
	pack_i64(out, st.unbinds);
	pack_i64(out, st.splits);
	pack_i64(out, st.merges);
	pack_seal(out, 0);
	free(mk);
}

int
session_log_engine(struct session *s, const struct engine *e, char **cause)
{
	struct strbuf sb = STRBUF_INIT;
	int rc;

	session_engine_state(e, &sb);
	rc = store_run_set_engine(s->store, s->run, sb.buf, sb.len, cause);
	strbuf_release(&sb);
	return rc == 0 ? 0 : -1;
}

int
session_log_commit(struct session *s, bool run_created, char **cause)
{
	/* the command's audit row commits with its first change, or
	   neither does: a change is never left without its row, nor a
	   committed change reported as a failure of the audit */
	bool audit = s->audit_line != NULL && !s->audited;

	/* in a group, the run's engine state and clock are written once,
	   at its commit (session_group_commit) */
	bool grouped = store_in_group(s->store);
	struct seen fp = { false, 0, 0 };

	if ((!grouped && (session_log_engine(s, s->engine, cause) != 0 ||
	    store_run_touch(s->store, s->run, session_now(), cause) != 0)) ||
	    (audit && store_audit_append_as(s->store, s->run, s->caller,
	    s->audit_line, 0, cause) != 0))
		goto fail;
	/* under the lock, before the commit */
	if ((!grouped && seen_read(s, &fp, cause) != 0) ||
	    store_commit(s->store, cause) != 0)
		goto fail;
	if (audit)
		s->audited = true;
	if (!grouped)
		seen_set(s, &fp);
	return 0;
fail:
	session_log_rollback(s, run_created);
	return -1;
}

int
session_group_begin(struct session *s, char **cause)
{
	struct strbuf diags = STRBUF_INIT;

	if (s->store == NULL || !store_writable(s->store) || store_in_txn(s->store)) {
		*cause = xstrdup("no state store open for writing");
		return -1;
	}
	if (store_group_begin(s->store, cause) != 0)
		return -1;
	/* another process wrote since: rebuild before any command acts,
	   under the lock, so the group works on the store's state */
	if (seen_moved(s)) {
		if (session_reload(s, &diags, cause) != 0) {
			strbuf_release(&diags);
			store_group_rollback(s->store);
			return -1;
		}
		seen_mark(s);
	}
	strbuf_release(&diags);
	return 0;
}

int
session_group_commit(struct session *s, char **cause)
{
	struct seen fp;

	if (store_group_wrote(s->store) && s->run != 0 && s->engine != NULL &&
	    (session_log_engine(s, s->engine, cause) != 0 ||
	    store_run_touch(s->store, s->run, session_now(), cause) != 0)) {
		store_group_rollback(s->store);
		session_started_clear(s);
		return -1;
	}
	/* under the lock, with what the group wrote */
	if (seen_read(s, &fp, cause) != 0) {
		store_group_rollback(s->store);
		session_started_clear(s);
		return -1;
	}
	if (store_group_commit(s->store, cause) != 0) {
		session_started_clear(s);
		return -1;
	}
	seen_set(s, &fp);
	return 0;
}

void
session_log_rollback(struct session *s, bool run_created)
{
	session_started_clear(s);
	if (s->store == NULL)
		return;
	store_rollback(s->store);
	if (run_created)
		s->run = 0;
}

/* The stored job of a running engine job, by name; STORE_NOTFOUND if none. */
static int
find(struct session *s, const char *name, struct store_job *sj, char **cause)
{
	int rc = store_job_find(s->store, s->run, name, sj, cause);

	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
	}
	return rc;
}

/* Leave RUNNING (or SUSPENDED) with ev at now: service accounted first. */
static void
stop_job(struct job *j, enum job_event ev, double now)
{
	char why[128];

	if (j->state == JOB_RUNNING)
		job_account(j, now - j->state_since, 1.0);
	if (now < j->state_since)
		now = j->state_since;
	if (job_apply(j, ev, now, why, sizeof why) == 0)
		j->engine_id = -1;
}

void
session_started_clear(struct session *s)
{
	if (s->nstarted > 0)
		memset(s->started_ok, 0, (size_t)s->nstarted);
	s->started_engine = NULL;
}

static void
started_drop(struct session *s, int id)
{
	if (id >= 0 && id < s->nstarted)
		s->started_ok[id] = 0;
}

/* Keep j's row for the release of engine job id (struct session). */
static void
started_keep(struct session *s, int id, const struct job *j)
{
	int n;

	if (s->console != NULL || s->spec->backend.type != SPEC_BACKEND_EMULATOR ||
	    id < 0)
		return;
	if (s->started_engine != s->engine) {
		session_started_clear(s);
		s->started_engine = s->engine;
	}
	if (id >= s->nstarted) {
		n = id < 64 ? 128 : 2 * id;
		s->started = xreallocarray(s->started, (size_t)n, sizeof *s->started);
		s->started_ok = xreallocarray(s->started_ok, (size_t)n, 1);
		memset(s->started_ok + s->nstarted, 0, (size_t)(n - s->nstarted));
		s->nstarted = n;
	}
	s->started[id] = *j;
	s->started_ok[id] = 1;
}

/*
 * Debug builds read the row anyway and stop if the kept one differs in
 * anything a release reads or writes (store_job_put_state's fields).
 */
static void
started_check(struct session *s, const struct job *j)
{
#ifdef CELLAR_DEBUG
	struct store_job sj;
	char *cause = NULL;
	const struct job *d = &sj.job;

	if (store_job_find_bare(s->store, s->run, j->name, &sj, &cause) != 0) {
		free(cause);	/* the release's own read says so */
		return;
	}
	if (d->id != j->id || d->vc != j->vc || d->gpus != j->gpus ||
	    d->state != j->state || d->reason != j->reason ||
	    d->state_since != j->state_since || d->first_start != j->first_start ||
	    d->end != j->end || d->queued != j->queued ||
	    d->attained != j->attained || d->run_time != j->run_time ||
	    d->work_done != j->work_done || d->ckpt_work != j->ckpt_work ||
	    d->lost_work != j->lost_work || d->restarts != j->restarts ||
	    d->preemptions != j->preemptions || d->suspensions != j->suspensions ||
	    d->opportunistic != j->opportunistic || d->engine_id != j->engine_id ||
	    d->priority != j->priority || d->weight != j->weight ||
	    d->klass != j->klass || d->duration != j->duration)
		fatal("session: the kept row of job '%s' differs from the store's",
		    j->name);
	store_job_release(&sj);
#else
	(void)s;
	(void)j;
#endif
}

/* The kept row of engine job id named name, into *j; false if none. */
static bool
started_take(struct session *s, int id, const char *name, struct job *j)
{
	if (s->started_engine != s->engine || id < 0 || id >= s->nstarted ||
	    !s->started_ok[id] || strcmp(s->started[id].name, name) != 0)
		return false;
	*j = s->started[id];
	s->started_ok[id] = 0;
	return true;
}

int
session_log_alloc(struct session *s, const struct engine_req *r,
    const struct engine_plan *p, char **cause)
{
	struct engine_job_info info;
	struct store_job victim;
	struct job j;
	struct rec rec;
	double now = session_now();
	char why[128], *gpus;
	int id, i, rc;

	if (store_job_next_id(s->store, s->run, &id, cause) != 0)
		return -1;
	job_init(&j, id, r->name, r->vc, now);
	snprintf(j.user, sizeof j.user, "%s", store_user());
	j.nmembers = r->nmembers;
	j.gpus = 0;
	for (i = 0; i < r->nmembers; i++) {
		j.members[i] = r->members[i];
		j.gpus += r->members[i].pods * r->members[i].gpus;
	}
	j.leaf_type = r->leaf_type;
	j.klass = r->priority < 0 ? JOB_OPPORTUNISTIC : JOB_GUARANTEED;
	j.priority = r->priority < 0 ? 0 : r->priority;	/* as a submission's */
	if (job_apply(&j, JOB_EV_START, now, why, sizeof why) != 0)
		fatal("session_log_alloc: %s", why);
	j.opportunistic = p->opportunistic;
	j.engine_id = p->job;
	if (store_job_put(s->store, s->run, &j, cause) != 0 ||
	    put_placement(s, id, p->job, &gpus, cause) != 0)
		return -1;
	rec_init(&rec, now, REC_SUBMIT, id, r->vc);
	if (append(s, &rec, cause) != 0) {
		free(gpus);
		return -1;
	}
	/* The start says where, as the placement's row does. */
	rec_init(&rec, now, REC_START, id, r->vc);
	if (gpus != NULL)
		rec_set_detail(&rec, gpus);
	free(gpus);
	if (append(s, &rec, cause) != 0)
		return -1;
	for (i = 0; i < p->nvictims; i++) {
		started_drop(s, p->victims[i].job);	/* its row changes here */
		if ((rc = find(s, p->victims[i].name, &victim, cause)) == STORE_NOTFOUND)
			continue;
		if (rc != 0)
			return -1;
		if (p->victims[i].kind == ENGINE_VICTIM_LAZY &&
		    engine_job(s->engine, p->victims[i].job, &info)) {
			victim.job.opportunistic = true;
			rc = store_job_put(s->store, s->run, &victim.job, cause) != 0 ||
			    put_placement(s, victim.job.id, p->victims[i].job, NULL,
			    cause) != 0;
			rec_init(&rec, now, REC_DOWNGRADE, victim.job.id, victim.job.vc);
			rec_set_detail(&rec, "runs on as opportunistic (lazy preemption)");
		} else {
			stop_job(&victim.job, JOB_EV_PREEMPT, now);
			rc = store_job_put(s->store, s->run, &victim.job, cause) != 0 ||
			    store_placement_delete(s->store, s->run, victim.job.id,
			    cause) != 0;
			rec_init(&rec, now, REC_PREEMPT, victim.job.id, victim.job.vc);
		}
		rec.by = id;
		store_job_release(&victim);
		if (rc != 0 || append(s, &rec, cause) != 0)
			return -1;
	}
	started_keep(s, p->job, &j);
	return 0;
}

int
session_log_release(struct session *s, int engine_id, char **cause)
{
	struct engine_job_info info;
	struct store_job sj;
	struct rec rec;
	double now = session_now();
	int rc;

	if (!engine_job(s->engine, engine_id, &info))
		return 0;
	store_job_init(&sj);
	/* the row this session started it with, else the row alone: its
	   placement row is deleted, not read */
	if (started_take(s, engine_id, info.name, &sj.job))
		started_check(s, &sj.job);
	else if ((rc = store_job_find_bare(s->store, s->run, info.name, &sj,
	    cause)) == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		return 0;
	} else if (rc != 0)
		return -1;
	stop_job(&sj.job, JOB_EV_CANCEL, now);
	rec_init(&rec, now, REC_RELEASE, sj.job.id, sj.job.vc);
	rec_set_detail(&rec, "released by hand");
	rc = store_job_put_state(s->store, s->run, &sj.job, cause) != 0 ||
	    store_placement_delete(s->store, s->run, sj.job.id, cause) != 0 ||
	    append(s, &rec, cause) != 0;
	store_job_release(&sj);
	return rc ? -1 : 0;
}

int
session_log_node(struct session *s, const char *node, bool bad,
    const char *affected, char **cause)
{
	struct rec rec;
	double now = session_now();
	int n = spec_find_node(s->spec, node);

	session_started_clear(s);	/* the affected jobs' rows change */
	if (store_health_set(s->store, s->run, node, bad, now, cause) != 0)
		return -1;
	rec_init(&rec, now, bad ? REC_NODE_BAD : REC_NODE_OK, -1, -1);
	if (n >= 0 && s->spec->nodes[n].ncells > 0)
		rec.cell = s->spec->nodes[n].cells[0];
	if (affected != NULL && *affected != '\0') {
		char *d = xasprintf("%s; jobs on it: %s", node, affected);

		rec_set_detail(&rec, d);
		free(d);
	} else
		rec_set_detail(&rec, node);
	return append(s, &rec, cause);
}

/* Collect the ids of the run's jobs that hold cells. */
static int
holding(void *arg, const struct store_job *sj)
{
	struct strvec *ids = arg;
	char buf[16];

	if (job_holds_cells(&sj->job)) {
		snprintf(buf, sizeof buf, "%d", sj->job.id);
		strvec_push(ids, buf);
	}
	return 0;
}

int
session_log_end(struct session *s, const char *why, char **cause)
{
	struct strvec ids = STRVEC_INIT;
	struct store_job sj;
	struct rec rec;
	double now = session_now();
	size_t i;
	int rc = -1;

	if (store_job_load(s->store, s->run, holding, &ids, cause) != 0)
		goto out;
	for (i = 0; i < ids.n; i++) {
		if (store_job_get(s->store, s->run, atoi(ids.v[i]), &sj, cause) != 0)
			goto out;
		stop_job(&sj.job, JOB_EV_CANCEL, now);
		rec_init(&rec, now, REC_RECONFIG, sj.job.id, sj.job.vc);
		rec_set_detail(&rec, why);
		if (store_job_put(s->store, s->run, &sj.job, cause) != 0 ||
		    store_placement_delete(s->store, s->run, sj.job.id, cause) != 0 ||
		    append(s, &rec, cause) != 0) {
			store_job_release(&sj);
			goto out;
		}
		store_job_release(&sj);
	}
	if (store_run_set_state(s->store, s->run, STORE_RUN_DONE, now, cause) != 0)
		goto out;
	rc = 0;
out:
	strvec_release(&ids);
	return rc;
}

/* ---- recovery ---- */

struct recover {
	struct engine	*e;
	struct strbuf	*diags;
	int		 jobs, restored, failed;
	int		(*job_fn)(void *, const struct store_job *);
	void		*job_arg;
};

/* A replay recorded with --borrow (its parameters say borrow: true). */
static bool
run_borrows(const struct store_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	char *why = NULL;
	bool on;

	on = run->params != NULL && json_lookup(run->params, strlen(run->params),
	    "borrow", &sb, &why) == 0 && strcmp(sb.buf, "true") == 0;
	free(why);
	strbuf_release(&sb);
	return on;
}

static int
recover_job(void *arg, const struct store_job *sj)
{
	struct recover *x = arg;
	char why[256];
	int rc;

	x->jobs++;
	if (x->job_fn != NULL && (rc = x->job_fn(x->job_arg, sj)) != 0)
		return rc;
	if (!sj->placed)
		return 0;
	rc = engine_restore_job(x->e, &sj->pl.pl, why, sizeof why);
	if (rc != 0 && engine_borrow(x->e) && sj->pl.pl.priority >= 0) {
		/* a replay with --borrow: the store keeps no borrowed flag (the
		   emulator's job blob does), so a job that no longer fits in its
		   VC's quota was a borrower; the GPUs are the writer's, the split
		   between quota and borrowed may differ */
		struct engine_placement pl = sj->pl.pl;
		pl.borrowed = true;
		rc = engine_restore_job(x->e, &pl, why, sizeof why);
	}
	if (rc != 0) {
		strbuf_addf(x->diags, "warning: job '%s' cannot be re-created where "
		    "it ran: %s\n", sj->job.name, why);
		x->failed++;
	} else
		x->restored++;
	return 0;
}

static int
recover_health(void *arg, const char *node, bool bad, double since)
{
	struct recover *x = arg;

	(void)since;
	if (bad && engine_node_set_bad(x->e, node, true, NULL, 0) < 0)
		strbuf_addf(x->diags, "warning: bad node '%s' is not in the spec\n", node);
	return 0;
}

int
session_engine_state_read(const void *blob, size_t len, struct engine_mark **marks,
    int *nmarks, struct engine_stats *stats, char *why, size_t whylen)
{
	struct engine_mark *mk;
	struct unpack u;
	int i, n;

	*marks = NULL;
	*nmarks = 0;
	memset(stats, 0, sizeof *stats);
	unpack_init(&u, blob, len);
	unpack_unseal(&u);
	if (unpack_u32(&u) != ENGINE_STATE_VERSION)
		unpack_fail(&u, "unknown version");
	n = unpack_count(&u, 1 << 24, 8, "marks");
	mk = xcalloc((size_t)n + 1, sizeof *mk);
	for (i = 0; i < n; i++) {
		mk[i].vleaf = unpack_i32(&u);
		mk[i].leaf = unpack_i32(&u);
	}
	stats->binds = unpack_i64(&u);
	stats->unbinds = unpack_i64(&u);
	stats->splits = unpack_i64(&u);
	stats->merges = unpack_i64(&u);
	if (unpack_finish(&u, "saved engine state", why, whylen) != 0) {
		free(mk);
		return -1;
	}
	*marks = mk;
	*nmarks = n;
	return 0;
}

/*
 * The saved engine state: its marks go back now (after the jobs, before
 * the bad nodes), its counters at the end (*saved). A state that cannot be
 * read or a mark that does not fit is a warning: the engine is still
 * right about every job and bad node, only its choice of virtual leaves
 * for bad cells and its counters may differ from before.
 */
static int
recover_marks(struct recover *x, const void *blob, size_t len,
    struct engine_stats *saved, bool *have)
{
	struct engine_mark *mk;
	char why[256];
	int i, n, bad = 0;

	*have = false;
	if (blob == NULL)
		return 0;		/* written by a cellar before version 3 */
	if (session_engine_state_read(blob, len, &mk, &n, saved, why, sizeof why) != 0) {
		strbuf_addf(x->diags, "warning: %s; bad cells and counters are "
		    "recomputed\n", why);
		return 0;
	}
	/* Each mark is validated first; one that does not fit changes nothing. */
	for (i = 0; i < n; i++)
		if (engine_restore_mark(x->e, &mk[i], why, sizeof why) != 0 &&
		    bad++ == 0)
			strbuf_addf(x->diags, "warning: a bad mark of the saved engine "
			    "does not fit: %s\n", why);
	free(mk);
	*have = bad == 0;
	return 0;
}

void
session_rebuilt_release(struct session_rebuilt *r)
{
	engine_free(r->engine);
	spec_free(r->spec);
	free(r->spec_path);
	memset(r, 0, sizeof *r);
}

int
session_run_rebuild(struct store *st, const struct store_run *run,
    int (*job_fn)(void *, const struct store_job *), void *job_arg,
    struct strbuf *diags, struct session_rebuilt *out, char **cause)
{
	struct recover x = { 0 };
	struct store_spec sp;
	struct spec_diags d;
	struct spec *spec;
	struct engine_stats saved;
	char why[256], *ecause = NULL;
	void *blob = NULL;
	size_t blob_len = 0;
	bool have_saved = false;
	int rc, mode;

	memset(out, 0, sizeof *out);
	memset(&sp, 0, sizeof sp);
	if (store_spec_get(st, run->spec, &sp, cause) != 0)
		return -1;
	spec_diags_init(&d);
	spec = spec_load_string(sp.path, sp.text, sp.text_len, &d);
	session_add_errors(diags, &d);	/* the rest was said at its load */
	spec_diags_release(&d);
	mode = engine_mode_parse(run->mode);
	if (spec == NULL || mode < 0 ||
	    (x.e = engine_create(spec, (enum engine_mode)mode, &ecause)) == NULL ||
	    (run_borrows(run) && engine_set_borrow(x.e, &ecause) != 0)) {
		*cause = xasprintf("cannot rebuild run %lld: its spec '%s' no "
		    "longer loads%s%s", (long long)run->id, sp.path, ecause ? ": " : "",
		    ecause ? ecause : "");
		free(ecause);
		engine_free(x.e);
		spec_free(spec);
		store_spec_release(&sp);
		return -1;
	}
	x.diags = diags;
	x.job_fn = job_fn;
	x.job_arg = job_arg;
	/* The order that rebuilds exactly (engine.h): jobs, marks, bad nodes,
	   counters. */
	if ((rc = store_job_load(st, run->id, recover_job, &x, cause)) != 0 ||
	    store_run_get_engine(st, run->id, &blob, &blob_len, cause) != 0 ||
	    recover_marks(&x, blob, blob_len, &saved, &have_saved) != 0 ||
	    store_health_load(st, run->id, recover_health, &x, cause) != 0) {
		free(blob);
		engine_free(x.e);
		spec_free(spec);
		store_spec_release(&sp);
		return rc > 0 ? rc : -1;
	}
	free(blob);
	if (have_saved)
		engine_stats_restore(x.e, &saved);
	if (!engine_check(x.e, why, sizeof why))
		strbuf_addf(diags, "warning: rebuilt engine breaks an invariant: %s\n", why);
	out->spec = spec;
	out->engine = x.e;
	out->spec_path = xstrdup(sp.path);
	out->mode = (enum engine_mode)mode;
	out->restored = x.restored;
	out->failed = x.failed;
	store_spec_release(&sp);
	return 0;
}

int
session_log_recover(struct session *s, struct strbuf *diags, char **cause)
{
	struct session_rebuilt rb;
	struct store_run run;
	struct store *st;
	int64_t id;
	int rc;

	if (store_is_memory(s->db_path ? s->db_path : ""))
		return 0;
	rc = session_store(s, false, &st, cause);
	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (rc != 0)
		return -1;
	rc = store_run_last(st, STORE_RUN_SESSION, &id, cause);
	seen_mark(s);	/* what a session built now is built from */
	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if (rc != 0)
		return -1;
	store_run_init(&run);
	if (store_run_get(st, id, &run, cause) != 0) {
		store_run_release(&run);
		return -1;
	}
	if (run.state != STORE_RUN_RUNNING) {
		store_run_release(&run);
		return 0;
	}
	if (session_run_rebuild(st, &run, NULL, NULL, diags, &rb, cause) != 0) {
		store_run_release(&run);
		return -1;
	}
	s->spec = rb.spec;
	s->engine = rb.engine;
	s->spec_path = rb.spec_path;
	s->mode = rb.mode;
	s->resume_run = id;
	if (rb.failed)
		strbuf_addf(diags, "warning: recovered session run %lld from '%s': "
		    "%d of %d running jobs could not be re-created (see 'db check')\n",
		    (long long)id, store_path(st), rb.failed, rb.failed + rb.restored);
	store_run_release(&run);
	return 1;
}
