/*
 * source-store.c — the dashboard on a state store another cellar process
 * writes (`dash --follow`): a replay recording itself (replay --db) or a
 * live session. Read-only: the store is opened without STORE_WRITE (store.h
 * invariant 5) and dash_data.writable stays false.
 *
 * The cluster is the run's stored spec and an engine rebuilt from its
 * placements by session_run_rebuild (the recovery code). Each advance
 * polls: PRAGMA data_version (store_data_version) unchanged means nothing
 * was committed, and nothing else is read. Otherwise the new events are
 * read after the last seq, and the jobs written since the last read (the
 * change numbers of store.h invariant 7: a poll costs what changed, not
 * the run's size); of those, the jobs whose placement differs are
 * released from the engine and restored where the store now has them; a
 * restore that does not fit (the order things happened in matters to the
 * virtual cells, engine.h) falls back to a full rebuild. Jobs whose record
 * differs are the source's changes (source.h invariant 4).
 *
 * What the policy saw: a replay's jobs carry the emulator's per-job state,
 * in which the scheduler's key and class at the last checkpoint are kept
 * (emu_job_saved_key), so the queues show the emulator's order and
 * priority column; a session's are the console's ('priority': higher
 * first, then arrival, as source-live.c). Bad nodes and the engine's bad
 * marks are stored by both writers (health rows, runs.engine): a change of
 * the bad set, or marks that the delta did not reproduce, take the full
 * rebuild, which restores them in the order that gives back the writer's
 * doomed cells. A run moved onto another spec (a reconfiguration), or a
 * newer run in the store, is rebuilt from scratch too (spec_gen moves).
 *
 * Nothing the store holds or lacks aborts: a store that cannot be read
 * (the writer crashed mid-way, the file went away) leaves the last view on
 * screen with the problem in the status text, and the next poll tries
 * again, reopening the file.
 *
 * A live view (source-live.c) follows its server's store through this
 * source and lays over it what the server alone knows (dash_store_live):
 * the live phases, kept beside the jobs by id, and queued jobs' pending
 * reasons, written into the jobs read (a later read of the job replaces
 * it with the stored one until the server speaks again; when it stops
 * speaking, the next poll rereads everything).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/session-log.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "dash/dash-model.h"
#include "dash/source.h"
#include "sim/emu.h"
#include "store/store.h"

/* The policy's rank of a stored job. */
struct jrank {
	struct policy_key	 key;
	int			 klass;
};

struct run_info {
	int64_t			 id;
	enum store_run_kind	 kind;
	int64_t			 spec;
	enum store_run_state	 state;
	double			 now, created;
	char			*policy;
	char			*mode;
	char			*params;	/* JSON: a replay's --borrow */
	bool			 found;
};

struct store_src {
	char			*path;
	struct store		*st;		/* NULL until (re)opened */
	struct run_info		 run;
	struct session_rebuilt	 rb;
	char			*spec_name;
	struct job		*jobs;		/* by stored job id */
	struct jrank		*rank;		/* ... and their rank */
	int			 njobs;
	size_t			 jobs_cap, rank_cap;
	int64_t			 built_spec;	/* the stored spec rb is of */
	int			*vc_map, *cell_map;	/* old spec -> new, by name */
	int			 nvc_map, ncell_map;
	uint64_t		 spec_gen;	/* dash_data.spec_gen */
	struct strbuf		 health;	/* bad nodes as last read, a line each */
	int64_t			 dv;		/* data_version at the last read */
	int64_t			 chg;		/* jobs read up to this change number */
	int64_t			 seq;		/* events read up to */
	bool			 first;		/* no event read yet */
	bool			 force;		/* a read failed: rebuild at the next */
	uint64_t		 gen;
	char			*status;	/* "following PATH: run N ..." */
	char			*problem;	/* the last read failure, or NULL */

	/* a live server's word (dash_store_live): each job's phase, by id
	   (borrowed), or NULL until it spoke */
	const char		**phase;
	int			 nphase;
	size_t			 phase_cap;
	bool			 live;		/* the last call named jobs */

	/* a read in progress: every job by id (a full read), or the jobs
	   changed since chg in id order (a delta: nj[i] is job nj_id[i]) */
	struct job		*nj;
	struct jrank		*nr;
	int			*nj_id;
	int			 nnj;
	size_t			 nj_cap, nr_cap, nj_id_cap;
	int64_t			 nchg;		/* the highest change number read */
	struct strbuf		 nhealth;
	struct engine_placement	*todo;		/* placements to restore */
	int			*todo_job;	/* ... of these stored jobs */
	int			 ntodo;
	size_t			 todo_cap;
	int			*rel;		/* engine ids to release */
	int			 nrel;
	size_t			 rel_cap;

	/* changed since the last changes() */
	bool			 all;
	int			*cj;
	int			 ncj;
	size_t			 cj_cap;
	unsigned char		*cj_in;
	int			 cj_max;
	int			*out_j;
	size_t			 out_j_cap;
};

static void
run_info_release(struct run_info *r)
{
	free(r->policy);
	free(r->mode);
	free(r->params);
	memset(r, 0, sizeof *r);
}

static int
find_run(void *arg, const struct store_run *r)
{
	struct run_info *x = arg;

	if (r->id != x->id)
		return 0;
	x->kind = r->kind;
	x->spec = r->spec;
	x->state = r->state;
	x->now = r->now;
	x->created = r->created;
	free(x->policy);
	x->policy = xstrdup(r->policy != NULL ? r->policy : "-");
	free(x->mode);
	x->mode = xstrdup(r->mode != NULL ? r->mode : "");
	free(x->params);
	x->params = r->params != NULL ? xstrdup(r->params) : NULL;
	x->found = true;
	return 1;
}

/* The run's row (store_run_get would count its events: not on each poll). */
static int
read_run(struct store *st, int64_t id, struct run_info *out, char **cause)
{
	out->id = id;
	out->found = false;
	if (store_run_list(st, find_run, out, cause) < 0)
		return -1;
	if (!out->found) {
		*cause = xasprintf("run %lld is not in the store", (long long)id);
		return -1;
	}
	return 0;
}

static void
set_status(struct store_src *x)
{
	free(x->status);
	x->status = xasprintf("following %s: run %lld (%s, %s)%s%s", x->path,
	    (long long)x->run.id, store_run_kind_name(x->run.kind),
	    store_run_state_name(x->run.state), x->problem ? " - " : "",
	    x->problem ? x->problem : "");
}

static void
set_problem(struct store_src *x, char *cause)
{
	free(x->problem);
	x->problem = cause;
	set_status(x);
	x->gen++;
}

static void
mark_changed(struct store_src *x, int id)
{
	if (id < 0 || id >= x->njobs)
		return;		/* new jobs need no report (invariant 4) */
	if (id >= x->cj_max) {
		int n = id + 1 > 2 * x->cj_max ? id + 1 : 2 * x->cj_max;

		x->cj_in = xreallocarray(x->cj_in, (size_t)n, 1);
		memset(x->cj_in + x->cj_max, 0, (size_t)(n - x->cj_max));
		x->cj_max = n;
	}
	if (x->cj_in[id])
		return;
	x->cj_in[id] = 1;
	XGROW(x->cj, x->cj_cap, (size_t)x->ncj + 1);
	x->cj[x->ncj++] = id;
}

/* A stored job id nothing was stored for (yet): final, so never queued. */
static void
placeholder(struct job *j, int id)
{
	memset(j, 0, sizeof *j);
	snprintf(j->name, sizeof j->name, "-");
	j->id = id;
	j->state = JOB_CANCELLED;
	j->engine_id = -1;
	j->first_start = j->end = -1;
}

/* Grow the array being read to hold id (gaps get placeholders). */
static struct job *
nj_slot(struct store_src *x, int id)
{
	int i;

	if (id >= x->nnj) {
		XGROW(x->nj, x->nj_cap, (size_t)id + 2);
		XGROW(x->nr, x->nr_cap, (size_t)id + 2);
		for (i = x->nnj; i <= id; i++) {
			placeholder(&x->nj[i], i);
			memset(&x->nr[i], 0, sizeof x->nr[i]);
			x->nr[i].key.id = i;
		}
		x->nnj = id + 1;
	}
	return &x->nj[id];
}

static void
todo_clear(struct store_src *x)
{
	int i;

	for (i = 0; i < x->ntodo; i++) {
		engine_placement_free_arrays(&x->todo[i]);
	}
	x->ntodo = 0;
	x->nrel = 0;
}

static bool
same_ints(const int *a, const int *b, int n)
{
	if (a == NULL || b == NULL)
		return a == b;
	return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Whether the engine holds pl exactly (engine id, cells, priorities). */
static bool
engine_has(const struct engine *e, const struct engine_placement *pl)
{
	struct engine_placement cur;

	if (!engine_job_placement(e, pl->id, &cur))
		return false;
	return strcmp(cur.name, pl->name) == 0 && cur.vc == pl->vc &&
	    cur.priority == pl->priority && cur.orig_priority == pl->orig_priority &&
	    cur.lazy == pl->lazy && cur.downgraded == pl->downgraded &&
	    cur.chain == pl->chain && cur.pin == pl->pin && cur.npods == pl->npods &&
	    cur.nleaves == pl->nleaves &&
	    same_ints(cur.pod_first, pl->pod_first, pl->npods + 1) &&
	    same_ints(cur.leaves, pl->leaves, pl->nleaves) &&
	    same_ints(cur.vleaves, pl->vleaves, pl->nleaves);
}

/*
 * A stored job and its rank: a replay's from the emulator's saved key; a
 * session's the console's priority order. A blob that does not read
 * ranks the job by arrival (the emulator would refuse it; the view
 * needs no more than an order).
 */
static void
take_one(struct store_src *x, const struct store_job *sj, struct job *j,
    struct jrank *r)
{
	struct emu_blob b = { sj->blob, sj->blob_len };
	char why[128];
	int id = sj->job.id;

	*j = sj->job;
	memset(r, 0, sizeof *r);
	if (x->run.kind == STORE_RUN_SESSION) {
		r->key.k[0] = -(double)sj->job.priority;
		r->key.k[1] = sj->job.submit;
		r->klass = sj->job.priority;
	} else if (sj->blob_len == 0 ||
	    emu_job_saved_key(&b, id, &r->key, &r->klass, why, sizeof why) != 0) {
		memset(r, 0, sizeof *r);
		r->key.k[0] = sj->job.submit;
	}
	r->key.id = id;
}

/* The full rebuild's job collector. */
static int
take_job(void *arg, const struct store_job *sj)
{
	struct store_src *x = arg;
	struct job *j;

	if (sj->chg > x->nchg)
		x->nchg = sj->chg;
	if (sj->job.id < 0 || sj->job.id >= 1 << 22)
		return 0;	/* beyond any trace: skipped, not a 1 GB table */
	j = nj_slot(x, sj->job.id);	/* grows nr too */
	take_one(x, sj, j, &x->nr[sj->job.id]);
	return 0;
}

/*
 * Each job changed since the last read: its record, and what the engine
 * must do for its placement to be the store's (released first, then
 * restored).
 */
static int
diff_job(void *arg, const struct store_job *sj)
{
	struct store_src *x = arg;
	const struct job *old;
	struct engine_placement *p;
	struct engine_placement cur;
	size_t cap;
	int id = sj->job.id, e0, k;

	if (sj->chg > x->nchg)
		x->nchg = sj->chg;
	if (id < 0 || id >= 1 << 22)
		return 0;
	k = x->nnj++;
	XGROW(x->nj, x->nj_cap, (size_t)x->nnj);
	XGROW(x->nj_id, x->nj_id_cap, (size_t)x->nnj);
	XGROW(x->nr, x->nr_cap, (size_t)x->nnj);
	x->nj_id[k] = id;
	take_one(x, sj, &x->nj[k], &x->nr[k]);
	old = id < x->njobs ? &x->jobs[id] : NULL;
	e0 = old != NULL ? old->engine_id : -1;
	if (sj->placed && engine_has(x->rb.engine, &sj->pl.pl))
		return 0;
	/* what the engine holds under the old id, if it was this job's */
	if (e0 >= 0 && engine_job_placement(x->rb.engine, e0, &cur) &&
	    strcmp(cur.name, sj->job.name) == 0) {
		XGROW(x->rel, x->rel_cap, (size_t)x->nrel + 1);
		x->rel[x->nrel++] = e0;
	}
	if (sj->placed) {
		cap = x->todo_cap;
		XGROW(x->todo, x->todo_cap, (size_t)x->ntodo + 1);
		XGROW(x->todo_job, cap, (size_t)x->ntodo + 1);
		x->todo_job[x->ntodo] = k;
		p = &x->todo[x->ntodo++];
		engine_placement_dup(p, &sj->pl.pl);
		p->name = NULL;	/* the job's, once the read is over */
	}
	return 0;
}

/* Swap in the jobs just read; report those whose record changed. */
static void
take_jobs(struct store_src *x)
{
	struct job *t;
	struct jrank *tr;
	size_t c;
	int i;

	if (x->nnj < x->njobs)
		(void)nj_slot(x, x->njobs - 1);	/* never shrinks (invariant 4) */
	for (i = 0; i < x->njobs; i++)
		if (memcmp(&x->jobs[i], &x->nj[i], sizeof x->nj[i]) != 0 ||
		    memcmp(&x->rank[i], &x->nr[i], sizeof x->nr[i]) != 0)
			mark_changed(x, i);
	/* the old arrays are the next read's */
	t = x->jobs;
	x->jobs = x->nj;
	x->nj = t;
	c = x->jobs_cap;
	x->jobs_cap = x->nj_cap;
	x->nj_cap = c;
	tr = x->rank;
	x->rank = x->nr;
	x->nr = tr;
	c = x->rank_cap;
	x->rank_cap = x->nr_cap;
	x->nr_cap = c;
	x->njobs = x->nnj;
	x->nnj = 0;
}

/*
 * Put the jobs a delta read in place; report those whose record changed
 * (new ids grow the arrays, with placeholders in any gap, and need no
 * report: source.h invariant 4).
 */
static void
take_changed(struct store_src *x)
{
	int i, k, id;

	for (k = 0; k < x->nnj; k++) {
		id = x->nj_id[k];
		if (id >= x->njobs) {
			XGROW(x->jobs, x->jobs_cap, (size_t)id + 1);
			XGROW(x->rank, x->rank_cap, (size_t)id + 1);
			for (i = x->njobs; i < id; i++) {
				placeholder(&x->jobs[i], i);
				memset(&x->rank[i], 0, sizeof x->rank[i]);
				x->rank[i].key.id = i;
			}
			x->njobs = id + 1;
		} else if (memcmp(&x->jobs[id], &x->nj[k], sizeof x->nj[k]) != 0 ||
		    memcmp(&x->rank[id], &x->nr[k], sizeof x->nr[k]) != 0)
			mark_changed(x, id);
		x->jobs[id] = x->nj[k];
		x->rank[id] = x->nr[k];
	}
	x->nnj = 0;
}

/* Where the VCs and cells of spec a are in spec b, by name (-1: gone). */
static void
name_maps(struct store_src *x, const struct spec *a, const struct spec *b)
{
	char path[512];
	int i;

	free(x->vc_map);
	free(x->cell_map);
	x->nvc_map = a->nvcs;
	x->ncell_map = a->ncells;
	x->vc_map = xcalloc((size_t)a->nvcs + 1, sizeof *x->vc_map);
	x->cell_map = xcalloc((size_t)a->ncells + 1, sizeof *x->cell_map);
	for (i = 0; i < a->nvcs; i++)
		x->vc_map[i] = spec_find_vc(b, a->vcs[i].name);
	for (i = 0; i < a->ncells; i++)
		x->cell_map[i] = spec_find_cell(b, spec_cell_path(a, i, path,
		    sizeof path));
}

/* Everything from the store: spec, engine, jobs (all = true). */
static int
full_rebuild(struct store_src *x, char **cause)
{
	struct session_rebuilt rb;
	struct strbuf diags = STRBUF_INIT;
	int rc;

	x->nnj = 0;
	x->nchg = 0;
	rc = session_run_rebuild(x->st, &(struct store_run){ .id = x->run.id,
	    .spec = x->run.spec, .mode = x->run.mode, .params = x->run.params },
	    take_job, x, &diags, &rb,
	    cause);
	strbuf_release(&diags);
	if (rc != 0)
		return -1;
	if (x->built_spec != x->run.spec) {
		/* another spec: nothing derived from the old one holds */
		name_maps(x, x->rb.spec, rb.spec);
		x->built_spec = x->run.spec;
		x->spec_gen++;
		free(x->spec_name);
		x->spec_name = xstrdup(rb.spec_path);
	}
	session_rebuilt_release(&x->rb);
	x->rb = rb;
	take_jobs(x);
	x->chg = x->nchg;
	x->all = true;
	return 0;
}

static int
on_health(void *arg, const char *node, bool bad, double since)
{
	struct strbuf *sb = arg;

	(void)since;
	if (bad)
		strbuf_addf(sb, "%s\n", node);
	return 0;
}

/*
 * Whether the engine's bad marks are the ones the writer stored (the delta
 * releases and restores jobs, which may bind other virtual leaves to bad
 * ones than the writer's engine did). Only read when either side has any.
 */
static int
marks_agree(struct store_src *x, bool *agree, char **cause)
{
	struct engine_mark *mk = NULL, *cur;
	struct engine_stats stats;
	void *blob = NULL;
	size_t len = 0;
	char why[256];
	int n = 0, ncur;

	*agree = true;
	ncur = engine_marks(x->rb.engine, NULL, 0);
	if (x->health.len == 0 && ncur == 0)
		return 0;	/* no bad node, no mark: nothing to differ */
	if (store_run_get_engine(x->st, x->run.id, &blob, &len, cause) != 0)
		return -1;
	if (blob != NULL &&
	    session_engine_state_read(blob, len, &mk, &n, &stats, why, sizeof why) != 0)
		n = -1;		/* unreadable: the rebuild says why */
	free(blob);
	if (n != ncur)
		*agree = false;
	else if (n > 0) {
		cur = xcalloc((size_t)n, sizeof *cur);
		engine_marks(x->rb.engine, cur, n);
		*agree = memcmp(cur, mk, (size_t)n * sizeof *cur) == 0;
		free(cur);
	}
	free(mk);
	return 0;
}

/* The jobs by delta: the placements that moved, released then restored. */
static int
delta_jobs(struct store_src *x, char **cause)
{
	char why[256];
	bool agree;
	int i, rc;

	x->nnj = 0;
	x->nchg = x->chg;
	todo_clear(x);
	rc = store_job_load_since(x->st, x->run.id, x->chg, diff_job, x, cause);
	if (rc != 0) {
		todo_clear(x);
		x->nnj = 0;
		return -1;
	}
	for (i = 0; i < x->nrel; i++)
		if (x->rel[i] >= 0)
			(void)engine_release(x->rb.engine, x->rel[i]);
	for (i = 0; i < x->ntodo; i++) {
		x->todo[i].name = x->nj[x->todo_job[i]].name;
		if (engine_restore_job(x->rb.engine, &x->todo[i], why, sizeof why) != 0) {
			todo_clear(x);
			return full_rebuild(x, cause);
		}
	}
	todo_clear(x);
	take_changed(x);
	x->chg = x->nchg;
	if (marks_agree(x, &agree, cause) != 0)
		return -1;
	return agree ? 0 : full_rebuild(x, cause);
}

/* One poll; -1 with *cause when the store cannot be read. */
static int
poll_store(struct store_src *x, dash_rec_fn fn, void *arg, char **cause)
{
	struct run_info r;
	struct strbuf t;
	int64_t dv, newest;
	bool rebuild;

	if (x->st == NULL && store_open(x->path, 0, &x->st, cause) != 0)
		return -1;
	if (store_data_version(x->st, &dv, cause) != 0)
		return -1;
	if (!x->first && !x->force && dv == x->dv)
		return 0;	/* nothing committed since the last read */
	/* the newest run is the one shown: a session that ended and began
	   again, a second replay */
	if (store_run_last(x->st, -1, &newest, cause) != 0)
		return -1;
	memset(&r, 0, sizeof r);
	if (read_run(x->st, newest, &r, cause) != 0) {
		run_info_release(&r);
		return -1;
	}
	rebuild = r.id != x->run.id || r.spec != x->run.spec ||
	    strcmp(r.mode, x->run.mode) != 0;
	run_info_release(&x->run);
	x->run = r;
	strbuf_reset(&x->nhealth);
	if (store_health_load(x->st, x->run.id, on_health, &x->nhealth, cause) != 0)
		return -1;
	if (x->force || x->nhealth.len != x->health.len || (x->health.len > 0 &&
	    memcmp(x->nhealth.buf, x->health.buf, x->health.len) != 0))
		rebuild = true;		/* bad nodes: see marks_agree */
	t = x->health;
	x->health = x->nhealth;
	x->nhealth = t;
	/* The cluster first, then the events, told in its spec's terms. The
	   first read takes what the event ring keeps. */
	if ((rebuild ? full_rebuild(x, cause) : delta_jobs(x, cause)) != 0 ||
	    dash_store_events(x->st, x->run.id, &x->seq, x->first ? DASH_EVENTS : 0,
	    x->rb.spec, x->built_spec, fn, arg, cause) != 0)
		return -1;
	x->first = false;
	x->force = false;
	x->dv = dv;
	return 0;
}

static int
store_src_advance(void *self, double dt, dash_rec_fn fn, void *arg, char **cause)
{
	struct store_src *x = self;
	char *why = NULL;

	(void)dt;
	(void)cause;
	if (poll_store(x, fn, arg, &why) != 0) {
		/* never fatal: keep the last view, say why, reopen next time
		   and read everything again (a new connection's data_version
		   says nothing about the last one's) */
		x->force = true;
		if (x->st != NULL) {
			store_close(x->st);
			x->st = NULL;
		}
		if (x->problem == NULL || strcmp(x->problem, why) != 0)
			set_problem(x, why);
		else
			free(why);
		return 0;
	}
	if (x->problem != NULL) {
		free(x->problem);
		x->problem = NULL;
	}
	set_status(x);
	x->gen++;
	return 0;
}

static void
store_src_data(void *self, struct dash_data *d)
{
	struct store_src *x = self;

	memset(d, 0, sizeof *d);
	d->backend = "store";
	d->follow = x->status;
	d->spec_name = x->spec_name;
	/* a session's jobs are in its console's order (store_src_key) */
	d->policy = x->run.kind == STORE_RUN_SESSION ? "priority" :
	    x->run.policy != NULL ? x->run.policy : "-";
	d->spec = x->rb.spec;
	d->engine = x->rb.engine;
	d->jobs = x->jobs;
	d->njobs = x->njobs;
	d->now = x->run.now;
	/* a session's clock is Unix time: shown since the run began */
	d->epoch = x->run.kind == STORE_RUN_SESSION ? x->run.created : 0;
	d->wall = x->run.kind == STORE_RUN_SESSION;
	d->done = x->run.state != STORE_RUN_RUNNING;
	d->gen = x->gen;
	d->spec_gen = x->spec_gen;
	d->vc_map = x->vc_map;
	d->nvc_map = x->nvc_map;
	d->cell_map = x->cell_map;
	d->ncell_map = x->ncell_map;
	/* jobs read since the server last spoke have no phase yet */
	d->phases = x->phase != NULL && x->nphase >= x->njobs ? x->phase : NULL;
}

static void
store_src_key(void *self, int job, struct policy_key *key, int *klass)
{
	struct store_src *x = self;

	if (job < 0 || job >= x->njobs) {
		memset(key, 0, sizeof *key);
		key->id = job;
		*klass = 0;
		return;
	}
	*key = x->rank[job].key;
	*klass = x->rank[job].klass;
}

static void
store_src_changes(void *self, struct dash_changes *ch)
{
	struct store_src *x = self;
	int i;

	memset(ch, 0, sizeof *ch);
	ch->all = x->all;
	XGROW(x->out_j, x->out_j_cap, (size_t)x->ncj + 1);
	for (i = 0; i < x->ncj; i++) {
		x->out_j[i] = x->cj[i];
		x->cj_in[x->cj[i]] = 0;
	}
	ch->jobs = x->out_j;
	ch->njobs = x->ncj;
	x->ncj = 0;
	x->all = false;
}

static int
store_src_history(void *self, const char *job, struct strbuf *out)
{
	struct store_src *x = self;
	int i;

	if (x->st == NULL)
		return 0;
	for (i = 0; i < x->njobs; i++)
		if (strcmp(x->jobs[i].name, job) == 0)
			return dash_store_history(x->st, x->run.id, i,
			    x->run.kind == STORE_RUN_SESSION ? x->run.created : 0, out);
	return 0;
}

static void
store_src_free(void *self)
{
	struct store_src *x = self;

	if (x == NULL)
		return;
	todo_clear(x);
	if (x->st != NULL)
		store_close(x->st);
	session_rebuilt_release(&x->rb);
	run_info_release(&x->run);
	free(x->path);
	free(x->spec_name);
	free(x->jobs);
	free(x->nj);
	free(x->nj_id);
	free(x->todo);
	free(x->todo_job);
	free(x->rel);
	free(x->cj);
	free(x->cj_in);
	free(x->out_j);
	free(x->status);
	free(x->problem);
	free(x->rank);
	free(x->nr);
	free(x->vc_map);
	free(x->cell_map);
	free(x->phase);
	strbuf_release(&x->health);
	strbuf_release(&x->nhealth);
	free(x);
}

static const struct dash_source_ops store_src_ops = {
	"store", store_src_data, store_src_advance, store_src_key, store_src_changes,
	store_src_free, store_src_history, NULL,
};

int
dash_source_store(struct dash_source *src, const char *path, char **cause)
{
	struct store_src *x;
	struct store_run run;
	struct strbuf diags = STRBUF_INIT;
	int64_t id;
	int rc;

	x = xcalloc(1, sizeof *x);
	x->path = xstrdup(path);
	x->first = true;
	strbuf_init(&x->health);
	strbuf_init(&x->nhealth);
	if ((rc = store_open(path, 0, &x->st, cause)) != 0)
		goto fail;
	/* read before the rest: whatever commits meanwhile is read again */
	if ((rc = store_data_version(x->st, &x->dv, cause)) != 0)
		goto fail;
	rc = store_run_last(x->st, -1, &id, cause);
	if (rc == STORE_NOTFOUND) {
		free(*cause);
		*cause = xasprintf("the state store at '%s' holds no run yet", path);
		goto fail;
	}
	if (rc != 0 || (rc = read_run(x->st, id, &x->run, cause)) != 0)
		goto fail;
	if ((rc = store_health_load(x->st, x->run.id, on_health, &x->health,
	    cause)) != 0)
		goto fail;
	store_run_init(&run);
	run.id = x->run.id;
	run.spec = x->run.spec;
	run.mode = x->run.mode;
	run.params = x->run.params;	/* --borrow: the engine lends */
	rc = session_run_rebuild(x->st, &run, take_job, x, &diags, &x->rb, cause);
	strbuf_release(&diags);
	if (rc != 0)
		goto fail;
	take_jobs(x);
	x->chg = x->nchg;
	x->spec_name = xstrdup(x->rb.spec_path);
	x->built_spec = x->run.spec;
	x->spec_gen = 1;
	x->all = true;
	x->gen = 1;
	set_status(x);
	src->ops = &store_src_ops;
	src->self = x;
	return 0;
fail:
	store_src_free(x);
	return rc > 0 ? rc : -1;
}

const char *
dash_store_problem(const struct dash_source *src)
{
	if (src->ops != &store_src_ops)
		return NULL;
	return ((const struct store_src *)src->self)->problem;
}

static int
live_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dash_live_job *)a)->name,
	    ((const struct dash_live_job *)b)->name);
}

void
dash_store_live(struct dash_source *src, struct dash_live_job *lj, int n)
{
	struct store_src *x = src->self;
	struct dash_live_job key, *hit;
	struct job *j;
	int i;

	if (src->ops != &store_src_ops)
		return;
	if (lj == NULL) {
		if (x->live)
			x->force = true;	/* the store's reasons again */
		x->live = false;
		free(x->phase);
		x->phase = NULL;
		x->nphase = 0;
		x->phase_cap = 0;
		return;
	}
	qsort(lj, (size_t)n, sizeof *lj, live_cmp);
	XGROW(x->phase, x->phase_cap, (size_t)x->njobs + 1);
	x->nphase = x->njobs;
	for (i = 0; i < x->njobs; i++) {
		j = &x->jobs[i];
		x->phase[i] = NULL;
		if (job_is_final(j) && j->state != JOB_FAILED)
			continue;	/* done: not in a server's queue */
		key.name = j->name;
		if ((hit = bsearch(&key, lj, (size_t)n, sizeof *lj, live_cmp)) == NULL)
			continue;
		x->phase[i] = hit->phase;
		if (hit->queued && j->state == JOB_PENDING && j->reason != hit->reason) {
			j->reason = hit->reason;
			mark_changed(x, i);
		}
	}
	x->live = true;
	x->gen++;
}

struct ev_arg {
	int64_t		*seq;
	const struct spec *shown;
	int64_t		 spec;
	dash_rec_fn	 fn;
	void		*arg;
};

static int
on_event(void *arg, const struct store_event *ev)
{
	struct ev_arg *a = arg;

	struct rec r;

	*a->seq = ev->seq;
	if (a->fn == NULL)
		return 0;
	if (a->shown == NULL || ev->spec == a->spec) {
		a->fn(a->arg, &ev->rec);
		return 0;
	}
	/* recorded on a spec the run has left: its indices are that spec's */
	r = ev->rec;
	r.vc = ev->vc_name != NULL ? spec_find_vc(a->shown, ev->vc_name) : -1;
	r.cell = -1;
	a->fn(a->arg, &r);
	return 0;
}

int
dash_store_events(struct store *st, int64_t run, int64_t *seq, int limit,
    const struct spec *shown, int64_t spec, dash_rec_fn fn, void *arg,
    char **cause)
{
	struct store_event_filter f;
	struct ev_arg a = { seq, shown, spec, fn, arg };

	store_event_filter_init(&f);
	f.run = run;
	f.after = *seq;
	f.limit = limit;
	return store_event_query(st, &f, on_event, &a, cause);
}

struct hist_arg {
	struct strbuf	*out;
	double		 epoch;
};

static int
history_line(void *arg, const struct store_event *ev)
{
	struct hist_arg *h = arg;
	char t[32];

	dash_format_dur(ev->rec.t - h->epoch, t, sizeof t);
	strbuf_addf(h->out, "  t=%s %s%s%s%s%s\n", t, rec_kind_name(ev->rec.kind),
	    ev->by_name != NULL ? " by " : "", ev->by_name != NULL ? ev->by_name : "",
	    ev->rec.detail[0] != '\0' ? "  " : "", ev->rec.detail);
	return 0;
}

int
dash_store_history(struct store *st, int64_t run, int job, double epoch,
    struct strbuf *out)
{
	struct store_event_filter f;
	struct strbuf lines = STRBUF_INIT;
	char *cause = NULL;
	int rc;

	store_event_filter_init(&f);
	f.run = run;
	f.job = job;
	f.limit = DASH_HISTORY;
	rc = store_event_query(st, &f, history_line, &(struct hist_arg){ &lines, epoch },
	    &cause);
	if (rc < 0) {
		strbuf_addf(out, "history: %s\n", cause);
		free(cause);
	} else if (lines.len > 0) {
		strbuf_adds(out, "history (from the store):\n");
		strbuf_add(out, lines.buf, lines.len);
	}
	strbuf_release(&lines);
	return 0;
}
