/*
 * replay-db.c — a replay recorded in the state store as it runs, resumable
 * after a crash. See replay-db.h.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/replay-db.h"
#include "cluster/session-log.h"
#include "core/xmalloc.h"

static int	writer_start(struct rdb *d, char **cause);
static void	writer_stop(struct rdb *d);

/* ---- finding or creating the run ---- */

struct find {
	int64_t		 spec;
	const char	*params;
	int64_t		 found;		/* the newest such run */
	bool		 done;		/* and it is done */
};

static int
find_one(void *arg, const struct store_run *r)
{
	struct find *f = arg;

	if (r->kind == STORE_RUN_REPLAY && r->spec == f->spec &&
	    r->params != NULL && strcmp(r->params, f->params) == 0) {
		f->found = r->id;	/* the newest wins: runs come oldest first */
		f->done = r->state == STORE_RUN_DONE;
	}
	return 0;
}

/*
 * Take the lease on run id (replay-db.h): 0, RDB_BUSY (d->holder set) or
 * -1 with *cause.
 */
static int
take_lease(struct rdb *d, int64_t id, char **cause)
{
	const char *db = store_path(d->st);
	char *path;
	int rc;

	if (store_is_memory(db))
		return 0;
	path = xasprintf("%s.runs.lock", db);
	rc = ipc_lease(&d->lease, path, (long long)id, &d->holder, cause);
	free(path);
	return rc == 1 ? RDB_BUSY : rc;
}

static int
load_job(void *arg, const struct store_job *sj)
{
	struct rdb *d = arg;
	int id = sj->job.id, prio, weight;
	struct engine_placement *p;

	if (id < 0 || id >= d->njobs)
		return 2;	/* not a job of this trace: refuse below */
	prio = d->jobs[id].priority;
	weight = d->jobs[id].weight;
	d->jobs[id] = sj->job;
	/* the trace's, read again (rows migrated from schema 7 hold 0, 1) */
	d->jobs[id].priority = prio;
	d->jobs[id].weight = weight;
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
	int rc;

	memset(d, 0, sizeof *d);
	d->lease.fd = -1;
	d->st = st;
	d->s = r->s;
	d->nheld = r->njobs;
	d->held = xcalloc((size_t)r->njobs + 1, sizeof *d->held);
	/* One transaction: the spec, and the run found or created. */
	if (store_begin(st, cause) != 0)
		return -1;
	if (store_spec_put(st, r->s, &spec, cause) != 0)
		goto fail;
	f.spec = spec;
	f.params = proto->params != NULL ? proto->params : "{}";
	f.found = 0;
	f.done = false;
	if (!fresh && store_run_list(st, find_one, &f, cause) != 0)
		goto fail;
	if (f.found > 0 && f.done) {
		store_rollback(st);
		d->run = f.found;
		return RDB_DONE;
	}
	if (f.found > 0) {
		d->run = f.found;
		if ((rc = take_lease(d, f.found, cause)) != 0) {
			store_rollback(st);
			return rc;
		}
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
		/* Before the commit: nobody sees the run unleased. The id is
		   new, so only a process that leased a run since deleted
		   (db prune) can hold it: refused like any busy run. */
		if ((rc = take_lease(d, run.id, cause)) != 0)
			goto fail_rc;
	}
	if (store_commit(st, cause) != 0)
		goto fail;
	return writer_start(d, cause);
fail:
	rc = -1;
fail_rc:
	store_rollback(st);
	if (rc != RDB_BUSY)
		d->run = 0;
	return rc;
}

/* ---- checkpoints ----
 *
 * The replay packs a checkpoint (struct ckpt) and hands it to the writer
 * thread, which commits it in one transaction while the replay runs on:
 * SQLite's work (about 60% of a recorded replay's CPU) overlaps the
 * emulator's. A checkpoint owns all it holds (copies of the jobs, their
 * blobs and placements, the journal, the new series points, the run's
 * blob), so the writer reads nothing the replay mutates; the spec and the
 * store are the writer's alone until it is idle (w->busy false and no
 * w->next), which every function that touches the store from the replay's
 * side waits for (rdb_drain). At most one checkpoint waits while one is
 * written. After a failed write the writer discards whatever follows (a
 * later checkpoint without the failed one's rows would not be a state the
 * replay was in), and the replay learns of it at its next checkpoint.
 */

enum ck_place { CK_KEEP, CK_PUT, CK_DELETE };

struct ckjob {
	struct job		 job;
	size_t			 off, len;	/* its blob in ck->blobs */
	enum ck_place		 place;
	struct engine_placement	 pl;		/* CK_PUT: owns its arrays */
};

struct ckpt {
	struct ckjob		*jobs;
	int			 njobs;
	size_t			 capjobs;
	struct store_jobrow	*rows;		/* the writer's, over jobs */
	size_t			 caprows;
	struct strbuf		 blobs;
	struct emu_jlog		 log;		/* the journal */
	struct emu_sample	*series;
	int			 nseries;
	size_t			 capseries;
	struct strbuf		 run;		/* emu_save */
	struct strbuf		 engine;	/* session_engine_state */
	double			 now;
};

struct rdb_writer {
	pthread_t		 thread;
	pthread_mutex_t		 lock;
	pthread_cond_t		 work;		/* to the writer: next or stop */
	pthread_cond_t		 done;		/* to the replay: a slot freed */
	struct ckpt		*next;		/* handed over, not yet taken */
	struct ckpt		*spare;		/* a written one, for reuse */
	bool			 busy;		/* writing one now */
	bool			 stop;
	char			*error;		/* the first failed write's cause */
	double			 cpu;		/* its CPU seconds, set as it ends */
	/* WAL checkpoints, on a thread and a connection of their own (NULL
	   for a store in memory), asked for after each commit: the writer's
	   connection does none (store_wal_autocheckpoint). One that fails
	   leaves its pages in the WAL, where readers and the last close
	   find them: nothing is lost, so it is not an error of the run. */
	struct store		*ckst;
	pthread_t		 ckthread;
	pthread_cond_t		 ckwork;
	bool			 ckasked;
	double			 ckcpu;		/* its CPU seconds, set as it ends */
};

static struct ckpt *
ck_new(void)
{
	struct ckpt *ck = xcalloc(1, sizeof *ck);

	strbuf_init(&ck->blobs);
	emu_jlog_init(&ck->log);
	strbuf_init(&ck->run);
	strbuf_init(&ck->engine);
	return ck;
}

/* Empty it for reuse, keeping its buffers. */
static void
ck_reset(struct ckpt *ck)
{
	int i;

	for (i = 0; i < ck->njobs; i++)
		if (ck->jobs[i].place == CK_PUT)
			engine_placement_free_arrays(&ck->jobs[i].pl);
	ck->njobs = ck->log.n = ck->nseries = 0;
	strbuf_reset(&ck->blobs);
	strbuf_reset(&ck->run);
	strbuf_reset(&ck->engine);
	ck->now = 0;
}

static void
ck_free(struct ckpt *ck)
{
	if (ck == NULL)
		return;
	ck_reset(ck);
	free(ck->jobs);
	free(ck->rows);
	emu_jlog_release(&ck->log);
	free(ck->series);
	strbuf_release(&ck->blobs);
	strbuf_release(&ck->run);
	strbuf_release(&ck->engine);
	free(ck);
}

/*
 * Copy what changed since the last checkpoint. Placements only where they
 * change something: a put for a job that holds cells, a delete only where
 * the store holds one (d->held, as of the checkpoints packed so far).
 */
static void
ck_pack(struct rdb *d, struct ckpt *ck, struct emu *m, const struct job *jobs)
{
	const struct emu_sample *series;
	const int *dirty;
	struct engine_placement pl;
	struct ckjob *cj;
	bool any = true, *held;
	int nj, nd, ns, i;

	dirty = emu_dirty(m, &nd);
	series = emu_series(m, &ns);
	XGROW(ck->jobs, ck->capjobs, (size_t)nd);
	for (i = 0; i < nd; i++) {
		cj = &ck->jobs[ck->njobs++];
		cj->job = jobs[dirty[i]];
		cj->off = ck->blobs.len;
		emu_job_save(m, cj->job.id, &ck->blobs);
		cj->len = ck->blobs.len - cj->off;
		cj->place = CK_KEEP;
		held = cj->job.id >= 0 && cj->job.id < d->nheld ?
		    &d->held[cj->job.id] : &any;
		if (emu_job_placement(m, cj->job.id, &pl)) {
			engine_placement_dup(&cj->pl, &pl);
			cj->place = CK_PUT;
			*held = true;
		} else if (*held) {
			cj->place = CK_DELETE;
			*held = false;
		}
	}
	emu_journal_copy(m, &ck->log);
	nj = ck->log.n;
	if (nj > 0)
		ck->now = ck->log.v[nj - 1].t;
	if (ns > d->nseries) {
		XGROW(ck->series, ck->capseries, (size_t)(ns - d->nseries));
		memcpy(ck->series, series + d->nseries,
		    (size_t)(ns - d->nseries) * sizeof *series);
		ck->nseries = ns - d->nseries;
	}
	if (ns > 0 && series[ns - 1].t > ck->now)
		ck->now = series[ns - 1].t;
	emu_save(m, &ck->run);
	/* The engine's bad marks and counters, as a session stores them: with
	   the health rows, a reader rebuilds the bad nodes and doomed cells
	   the emulator has (session_run_rebuild) without its fault list. */
	session_engine_state(emu_engine(m), &ck->engine);
	d->nseries = ns;
}

/* The placement change of one job of the checkpoint, if any. */
static int
ck_put_placement(struct rdb *d, const struct ckjob *cj, char **cause)
{
	char *nodes, *gpus;
	int rc;

	switch (cj->place) {
	case CK_KEEP:
		return 0;
	case CK_DELETE:
		return store_placement_delete(d->st, d->run, cj->job.id, cause);
	case CK_PUT:
		break;
	}
	nodes = session_leaf_nodes(d->s, cj->pl.leaves, cj->pl.nleaves);
	gpus = session_leaf_gpus(d->s, cj->pl.leaves, cj->pl.nleaves);
	rc = store_placement_put(d->st, d->run, cj->job.id, &cj->pl, nodes, gpus,
	    cause);
	free(nodes);
	free(gpus);
	return rc;
}

/* Every job of the checkpoint in one statement, then their placements. */
static int
ck_put_jobs(struct rdb *d, struct ckpt *ck, char **cause)
{
	int i;

	XGROW(ck->rows, ck->caprows, (size_t)ck->njobs);
	for (i = 0; i < ck->njobs; i++) {
		ck->rows[i].job = &ck->jobs[i].job;
		ck->rows[i].blob = ck->blobs.buf + ck->jobs[i].off;
		ck->rows[i].len = ck->jobs[i].len;
	}
	if (store_job_put_many(d->st, d->run, ck->rows, ck->njobs, cause) != 0)
		return -1;
	for (i = 0; i < ck->njobs; i++)
		if (ck_put_placement(d, &ck->jobs[i], cause) != 0)
			return -1;
	return 0;
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

/* One checkpoint in one transaction (the writer's side). */
static int
ck_write(struct rdb *d, struct ckpt *ck, char **cause)
{
	struct rec r;
	int i;

	if (store_begin(d->st, cause) != 0)
		return -1;
	if (ck_put_jobs(d, ck, cause) != 0)
		goto fail;
	for (i = 0; i < ck->log.n; i++) {
		emu_jlog_rec(&ck->log, i, &r);
		if (store_event_append(d->st, d->run, &r, NULL, cause) != 0 ||
		    put_health(d, &r, cause) != 0)
			goto fail;
	}
	if (store_run_set_engine(d->st, d->run, ck->engine.buf, ck->engine.len,
	    cause) != 0)
		goto fail;
	if (ck->nseries > 0 &&
	    store_series_put(d->st, d->run, ck->series, ck->nseries, cause) != 0)
		goto fail;
	if (store_run_set_blob(d->st, d->run, ck->run.buf, ck->run.len, cause) != 0)
		goto fail;
	if (ck->now > 0 && store_run_set_state(d->st, d->run, STORE_RUN_RUNNING,
	    ck->now, cause) != 0)
		goto fail;
	if (store_commit(d->st, cause) != 0)
		goto fail;
	return 0;
fail:
	store_rollback(d->st);
	return -1;
}

/* This thread's CPU time (user + system), seconds; 0 if unknown. */
static double
thread_cpu(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *
writer_main(void *arg)
{
	struct rdb *d = arg;
	struct rdb_writer *w = d->w;
	struct ckpt *ck;
	char *cause;
	int rc;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->next == NULL && !w->stop)
			pthread_cond_wait(&w->work, &w->lock);
		if (w->next == NULL)
			break;			/* stopped, nothing left */
		ck = w->next;
		w->next = NULL;
		w->busy = true;
		pthread_cond_broadcast(&w->done);
		rc = 0;
		cause = NULL;
		if (w->error == NULL) {
			pthread_mutex_unlock(&w->lock);
			rc = ck_write(d, ck, &cause);
			pthread_mutex_lock(&w->lock);
		}
		if (rc != 0)
			w->error = cause != NULL ? cause :
			    xstrdup("state store error");
		else if (w->error == NULL) {
			d->commits++;
			if (ck->now > d->now)
				d->now = ck->now;
			if (w->ckst != NULL) {
				w->ckasked = true;
				pthread_cond_signal(&w->ckwork);
			}
		}
		ck_reset(ck);
		if (w->spare == NULL)
			w->spare = ck;
		else
			ck_free(ck);
		w->busy = false;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->lock);
	w->cpu = thread_cpu();	/* read by writer_stop after the join */
	return NULL;
}

static void *
checkpointer_main(void *arg)
{
	struct rdb_writer *w = arg;
	char *cause;
	int wal, done;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->ckasked && !w->stop)
			pthread_cond_wait(&w->ckwork, &w->lock);
		if (w->stop)
			break;		/* the last close copies the rest */
		w->ckasked = false;
		pthread_mutex_unlock(&w->lock);
		cause = NULL;
		if (store_wal_checkpoint(w->ckst, &wal, &done, &cause) != 0)
			free(cause);
		pthread_mutex_lock(&w->lock);
	}
	pthread_mutex_unlock(&w->lock);
	w->ckcpu = thread_cpu();	/* read after the join */
	return NULL;
}

/*
 * The checkpointer, if it can be had (a store on disk, a second
 * connection, a thread); else the writer's connection checkpoints as
 * SQLite does by default.
 */
static void
checkpointer_start(struct rdb *d)
{
	struct rdb_writer *w = d->w;
	char *cause = NULL;

	if (store_open_checkpointer(d->st, &w->ckst, &cause) != 0 ||
	    w->ckst == NULL) {
		free(cause);
		return;
	}
	if (store_wal_autocheckpoint(d->st, false, &cause) != 0 ||
	    pthread_create(&w->ckthread, NULL, checkpointer_main, w) != 0) {
		free(cause);
		cause = NULL;
		if (store_wal_autocheckpoint(d->st, true, &cause) != 0)
			free(cause);
		store_close(w->ckst);
		w->ckst = NULL;
	}
}

/* End the checkpointer (w->stop set or not) and give the WAL back. */
static void
checkpointer_stop(struct rdb *d)
{
	struct rdb_writer *w = d->w;
	char *cause = NULL;

	if (w->ckst == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->ckwork);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->ckthread, NULL);
	store_close(w->ckst);
	w->ckst = NULL;
	if (store_wal_autocheckpoint(d->st, true, &cause) != 0)
		free(cause);
}

/*
 * Start the writer and the checkpointer, their signals blocked: the
 * replay's thread takes them.
 */
static int
writer_start(struct rdb *d, char **cause)
{
	struct rdb_writer *w = xcalloc(1, sizeof *w);
	sigset_t all, old;
	int err;

	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_cond_init(&w->done, NULL);
	pthread_cond_init(&w->ckwork, NULL);
	d->w = w;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	checkpointer_start(d);
	err = pthread_create(&w->thread, NULL, writer_main, d);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err != 0) {
		*cause = xasprintf("cannot start the state store's writer: %s",
		    strerror(err));
		checkpointer_stop(d);
		pthread_cond_destroy(&w->ckwork);
		pthread_cond_destroy(&w->done);
		pthread_cond_destroy(&w->work);
		pthread_mutex_destroy(&w->lock);
		free(w);
		d->w = NULL;
		return -1;
	}
	return 0;
}

/* Wait for the writer to be idle; the first failed write's cause if any. */
static int
writer_wait(struct rdb *d, char **cause)
{
	struct rdb_writer *w = d->w;
	int rc = 0;

	if (w == NULL)
		return 0;
	pthread_mutex_lock(&w->lock);
	while (w->next != NULL || w->busy)
		pthread_cond_wait(&w->done, &w->lock);
	if (w->error != NULL) {
		d->failed = true;
		if (cause != NULL)
			*cause = xstrdup(w->error);
		rc = -1;
	}
	pthread_mutex_unlock(&w->lock);
	return rc;
}

/* Drain and end the writer (every exit path comes here, some twice). */
static void
writer_stop(struct rdb *d)
{
	struct rdb_writer *w = d->w;

	if (w == NULL)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = true;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	checkpointer_stop(d);
	if (w->error != NULL)
		d->failed = true;
	d->writer_cpu = w->cpu;
	/* For bench-replay-store: the writer's share of the process's CPU. */
	if (getenv("CELLAR_WRITER_CPU") != NULL)
		fprintf(stderr, "cellar: the state store's writer thread used "
		    "%.3f s of CPU; its checkpointer thread %.3f s\n", w->cpu,
		    w->ckcpu);
	ck_free(w->next);
	ck_free(w->spare);
	free(w->error);
	pthread_cond_destroy(&w->ckwork);
	pthread_cond_destroy(&w->done);
	pthread_cond_destroy(&w->work);
	pthread_mutex_destroy(&w->lock);
	free(w);
	d->w = NULL;
}

int
rdb_drain(struct rdb *d, char **cause)
{
	return writer_wait(d, cause);
}

int
rdb_checkpoint(void *arg, struct emu *m, const struct job *jobs, bool final,
    char **cause)
{
	struct rdb *d = arg;
	struct rdb_writer *w = d->w;
	struct ckpt *ck;

	if (w == NULL) {
		*cause = xstrdup("the state store's writer is not running");
		d->failed = true;
		return -1;
	}
	pthread_mutex_lock(&w->lock);
	ck = w->spare;
	w->spare = NULL;
	pthread_mutex_unlock(&w->lock);
	if (ck == NULL)
		ck = ck_new();
	ck_pack(d, ck, m, jobs);
	emu_drain(m);
	pthread_mutex_lock(&w->lock);
	while (w->next != NULL && w->error == NULL)
		pthread_cond_wait(&w->done, &w->lock);
	if (w->error != NULL) {
		pthread_mutex_unlock(&w->lock);
		ck_free(ck);
		return writer_wait(d, cause);
	}
	w->next = ck;
	d->queued++;
	pthread_cond_signal(&w->work);
	pthread_mutex_unlock(&w->lock);
	/* The last one is committed before the report is. */
	return final ? writer_wait(d, cause) : 0;
}

int
rdb_finish(struct rdb *d, const char *report, char **cause)
{
	if (writer_wait(d, cause) != 0)
		return -1;
	writer_stop(d);
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

	/* What was handed over is committed (or failed) first. */
	writer_stop(d);
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

	writer_stop(d);
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
	/* last: the run is written to the end, or left resumable */
	ipc_unlock(&d->lease);
	memset(d, 0, sizeof *d);
	d->lease.fd = -1;
}
