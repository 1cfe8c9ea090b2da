/*
 * replay-db.c — a replay recorded in the state store as it runs, resumable
 * after a crash. See replay-db.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/replay-db.h"
#include "cmd/session-log.h"
#include "core/xmalloc.h"

/* ---- finding or creating the run ---- */

struct find {
	int64_t		 spec;
	const char	*params;
	int64_t		 found;
};

static int
find_one(void *arg, const struct store_run *r)
{
	struct find *f = arg;

	if (r->kind == STORE_RUN_REPLAY && r->spec == f->spec &&
	    r->state != STORE_RUN_DONE && r->params != NULL &&
	    strcmp(r->params, f->params) == 0)
		f->found = r->id;	/* the newest wins: runs come oldest first */
	return 0;
}

static int
load_job(void *arg, const struct store_job *sj)
{
	struct rdb *d = arg;
	int id = sj->job.id;
	struct engine_placement *p;

	if (id < 0 || id >= d->njobs)
		return 2;	/* not a job of this trace: refuse below */
	d->jobs[id] = sj->job;
	if (sj->blob_len > 0) {
		void *b = xmalloc(sj->blob_len);
		memcpy(b, sj->blob, sj->blob_len);
		d->jb[id].data = b;
		d->jb[id].len = sj->blob_len;
	}
	if (sj->placed) {
		d->held[id] = true;
		p = &d->pl[d->npl++];
		engine_placement_dup(p, &sj->pl.pl);
		p->name = d->jobs[id].name;
	}
	return 0;
}

static int
load_saved(struct rdb *d, const struct replay *r, char **cause)
{
	struct store_run run;
	int rc, n;

	d->njobs = r->njobs;
	d->jobs = xcalloc((size_t)r->njobs + 1, sizeof *d->jobs);
	if (r->njobs > 0)
		memcpy(d->jobs, r->jobs, (size_t)r->njobs * sizeof *r->jobs);
	d->pl = xcalloc((size_t)r->njobs + 1, sizeof *d->pl);
	d->jb = xcalloc((size_t)r->njobs + 1, sizeof *d->jb);
	rc = store_job_load(d->st, d->run, load_job, d, cause);
	if (rc == 2) {
		*cause = xasprintf("run %lld holds jobs this trace does not have",
		    (long long)d->run);
		return -1;
	}
	if (rc != 0 ||
	    store_run_get_blob(d->st, d->run, &d->runblob, &d->runlen, cause) != 0 ||
	    store_series_load(d->st, d->run, &d->series, &n, cause) != 0)
		return -1;
	store_run_init(&run);
	if (store_run_get(d->st, d->run, &run, cause) != 0) {
		store_run_release(&run);
		return -1;
	}
	d->resumed_at = d->now = run.now;
	store_run_release(&run);
	d->nseries = n;
	d->saved.placements = d->pl;
	d->saved.nplacements = d->npl;
	d->saved.job_state = d->jb;
	d->saved.run.data = d->runblob;
	d->saved.run.len = d->runlen;
	d->saved.series = d->series;
	d->saved.nseries = n;
	return 0;
}

int
rdb_open(struct rdb *d, struct store *st, const struct replay *r,
    const struct store_run *proto, bool fresh, char **cause)
{
	struct store_run run = *proto;
	struct find f;
	int64_t spec;

	memset(d, 0, sizeof *d);
	d->st = st;
	d->s = r->s;
	d->nheld = r->njobs;
	d->held = xcalloc((size_t)r->njobs + 1, sizeof *d->held);
	strbuf_init(&d->buf);
	/* One transaction: the spec, and the run found or created. */
	if (store_begin(st, cause) != 0)
		return -1;
	if (store_spec_put(st, r->s, &spec, cause) != 0)
		goto fail;
	f.spec = spec;
	f.params = proto->params != NULL ? proto->params : "{}";
	f.found = 0;
	if (!fresh && store_run_list(st, find_one, &f, cause) != 0)
		goto fail;
	if (f.found > 0) {
		d->run = f.found;
		if (load_saved(d, r, cause) != 0)
			goto fail;
		/* Killed before its first checkpoint: nothing to resume from,
		   and nothing stored either (a checkpoint writes the run's
		   state with its jobs), so the run starts over. */
		d->resumed = d->runlen > 0;
	} else {
		run.kind = STORE_RUN_REPLAY;
		run.spec = spec;
		run.state = STORE_RUN_RUNNING;
		if (store_run_create(st, &run, cause) != 0)
			goto fail;
		d->run = run.id;
	}
	if (store_commit(st, cause) != 0)
		goto fail;
	return 0;
fail:
	store_rollback(st);
	d->run = 0;
	return -1;
}

/* ---- checkpoints ---- */

static int
put_job(struct rdb *d, struct emu *m, const struct job *j, char **cause)
{
	struct engine_placement pl;
	char *nodes, *gpus;
	bool any = true, *held;
	int rc;

	strbuf_reset(&d->buf);
	emu_job_save(m, j->id, &d->buf);
	if (store_job_put_emu(d->st, d->run, j, d->buf.buf, d->buf.len, cause) != 0)
		return -1;
	/* Placements only where they change something: a put for a job that
	   holds cells, a delete only where the store holds one. */
	held = j->id >= 0 && j->id < d->nheld ? &d->held[j->id] : &any;
	if (!emu_job_placement(m, j->id, &pl)) {
		if (!*held)
			return 0;
		if (store_placement_delete(d->st, d->run, j->id, cause) != 0)
			return -1;
		*held = false;
		return 0;
	}
	nodes = session_leaf_nodes(d->s, pl.leaves, pl.nleaves);
	gpus = session_leaf_gpus(d->s, pl.leaves, pl.nleaves);
	rc = store_placement_put(d->st, d->run, j->id, &pl, nodes, gpus, cause);
	free(nodes);
	free(gpus);
	if (rc == 0)
		*held = true;
	return rc;
}

/* A node's health as the emulator's journal says it changed. */
static int
put_health(struct rdb *d, const struct rec *r, char **cause)
{
	if (r->kind != REC_NODE_BAD && r->kind != REC_NODE_OK)
		return 0;
	if (r->cell < 0 || r->cell >= d->s->ncells || d->s->cells[r->cell].node < 0)
		return 0;
	return store_health_set(d->st, d->run,
	    d->s->nodes[d->s->cells[r->cell].node].name, r->kind == REC_NODE_BAD,
	    r->t, cause);
}

int
rdb_checkpoint(void *arg, struct emu *m, const struct job *jobs, bool final,
    char **cause)
{
	struct rdb *d = arg;
	const struct emu_sample *series;
	const struct rec *journal;
	const int *dirty;
	int nj, nd, ns, i;
	double now = 0;

	(void)final;
	journal = emu_journal(m, &nj);
	dirty = emu_dirty(m, &nd);
	series = emu_series(m, &ns);
	if (store_begin(d->st, cause) != 0) {
		d->failed = true;
		return -1;
	}
	for (i = 0; i < nd; i++)
		if (put_job(d, m, &jobs[dirty[i]], cause) != 0)
			goto fail;
	for (i = 0; i < nj; i++) {
		if (store_event_append(d->st, d->run, &journal[i], NULL, cause) != 0 ||
		    put_health(d, &journal[i], cause) != 0)
			goto fail;
		now = journal[i].t;
	}
	/* The engine's bad marks and counters, as a session stores them: with
	   the health rows, a reader rebuilds the bad nodes and doomed cells
	   the emulator has (session_run_rebuild) without its fault list. */
	strbuf_reset(&d->buf);
	session_engine_state(emu_engine(m), &d->buf);
	if (store_run_set_engine(d->st, d->run, d->buf.buf, d->buf.len, cause) != 0)
		goto fail;
	if (ns > d->nseries &&
	    store_series_put(d->st, d->run, series + d->nseries, ns - d->nseries,
	    cause) != 0)
		goto fail;
	if (ns > 0 && series[ns - 1].t > now)
		now = series[ns - 1].t;
	strbuf_reset(&d->buf);
	emu_save(m, &d->buf);
	if (store_run_set_blob(d->st, d->run, d->buf.buf, d->buf.len, cause) != 0)
		goto fail;
	if (now > 0 && store_run_set_state(d->st, d->run, STORE_RUN_RUNNING, now,
	    cause) != 0)
		goto fail;
	if (store_commit(d->st, cause) != 0)
		goto fail;
	d->nseries = ns;
	d->commits++;
	if (now > d->now)
		d->now = now;
	emu_drain(m);
	return 0;
fail:
	store_rollback(d->st);
	d->failed = true;
	/* What the rollback undid is unknown here: assume every job may hold
	   a placement row (an extra delete is harmless, a missing one not). */
	memset(d->held, 1, (size_t)d->nheld * sizeof *d->held);
	return -1;
}

int
rdb_finish(struct rdb *d, const char *report, char **cause)
{
	if (store_begin(d->st, cause) != 0)
		return -1;
	if (store_run_set_report(d->st, d->run, report, cause) != 0 ||
	    store_run_set_state(d->st, d->run, STORE_RUN_DONE, d->now, cause) != 0 ||
	    store_commit(d->st, cause) != 0) {
		store_rollback(d->st);
		return -1;
	}
	return 0;
}

void
rdb_abandon(struct rdb *d)
{
	char *cause = NULL;

	if (d->st == NULL || d->run == 0)
		return;
	if (store_in_txn(d->st))
		store_rollback(d->st);
	/* Resumable from its last checkpoint; 'interrupted' says nobody is
	   writing it (after a kill -9 it stays 'running'). */
	if (store_begin(d->st, &cause) == 0 &&
	    (store_run_set_state(d->st, d->run, STORE_RUN_INTERRUPTED,
	    d->now, &cause) != 0 || store_commit(d->st, &cause) != 0))
		store_rollback(d->st);
	free(cause);
}

void
rdb_release(struct rdb *d)
{
	int i;

	if (d->pl != NULL)
		for (i = 0; i < d->npl; i++) {
			engine_placement_free_arrays(&d->pl[i]);
		}
	if (d->jb != NULL)
		for (i = 0; i < d->njobs; i++)
			free((void *)d->jb[i].data);
	free(d->pl);
	free(d->held);
	free(d->jb);
	free(d->jobs);
	free(d->runblob);
	free(d->series);
	strbuf_release(&d->buf);
	memset(d, 0, sizeof *d);
}
