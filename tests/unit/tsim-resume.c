/*
 * tsim-resume.c — crash recovery of the emulator, proved by running it
 * twice: once straight to the end, once cut at random tick boundaries,
 * where everything a store keeps is copied out (struct jobs, placements
 * deep-copied, per-job and per-run state encoded to bytes, the series,
 * the journal), the emulator freed, and a new one restored from the
 * copies with a fresh policy. The final report (every field of every
 * group), the series, the journal and every struct job must be the same
 * bit for bit. The copies follow the dirty set as a store would (only
 * changed jobs are copied again), and a job left out of it would be
 * caught twice: its copy no longer matches, and the restore diverges.
 *
 * Workloads: every policy (gittins with and without a service sample,
 * las also with promotion) in every sharing mode, on random jobs with
 * preemption, opportunistic and auto jobs, soft affinity, checkpoint
 * costs and node faults (overlapping, permanent, a pinned node, an
 * unknown node); the Philly sample on specs/philly.yaml under las and
 * gittins with 20+ cuts and cuts from the progress callback. And stored
 * bytes that are truncated or corrupt must be refused with a message.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/emu.h"
#include "sim/replay.h"
#include "spec/spec.h"
#include "test.h"
#include "emu-work.h"

static unsigned long long rng = 0x853c49e6748fea9bULL;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 17);
}

/* ---- the store, modelled: copies of everything, kept up to date ---- */

struct plcopy {
	bool			 has;
	struct engine_placement	 pl;
	char			 name[64];
	int			*pod_first, *leaves, *vleaves;
};

struct store {
	int			 njobs;
	struct job		*jobs;
	struct strbuf		*blob;		/* per job */
	struct plcopy		*pl;		/* per job */
	struct strbuf		 run;
	struct emu_sample	*series;
	int			 nseries;
	struct rec		*log;
	int			 nlog;
	size_t			 logcap;
	int			 stale;		/* jobs changed but not in the dirty set */
};

static void
pl_clear(struct plcopy *c)
{
	free(c->pod_first);
	free(c->leaves);
	free(c->vleaves);
	memset(c, 0, sizeof *c);
}

static void
pl_copy(struct plcopy *c, const struct engine_placement *pl)
{
	size_t nl = (size_t)pl->nleaves;

	pl_clear(c);
	c->has = true;
	c->pl = *pl;
	snprintf(c->name, sizeof c->name, "%s", pl->name);
	c->pod_first = xcalloc((size_t)pl->npods + 1, sizeof(int));
	memcpy(c->pod_first, pl->pod_first, ((size_t)pl->npods + 1) * sizeof(int));
	c->leaves = xcalloc(nl, sizeof(int));
	memcpy(c->leaves, pl->leaves, nl * sizeof(int));
	if (pl->vleaves != NULL) {
		c->vleaves = xcalloc(nl, sizeof(int));
		memcpy(c->vleaves, pl->vleaves, nl * sizeof(int));
	}
	c->pl.name = c->name;
	c->pl.pod_first = c->pod_first;
	c->pl.leaves = c->leaves;
	c->pl.vleaves = c->vleaves;
}

static bool
pl_equal(const struct engine_placement *a, const struct engine_placement *b)
{
	size_t nl = (size_t)a->nleaves;

	return a->id == b->id && strcmp(a->name, b->name) == 0 && a->vc == b->vc &&
	    a->priority == b->priority && a->orig_priority == b->orig_priority &&
	    a->lazy == b->lazy && a->downgraded == b->downgraded && a->chain == b->chain &&
	    a->pin == b->pin && a->npods == b->npods && a->nleaves == b->nleaves &&
	    memcmp(a->pod_first, b->pod_first, ((size_t)a->npods + 1) * sizeof(int)) == 0 &&
	    memcmp(a->leaves, b->leaves, nl * sizeof(int)) == 0 &&
	    (a->vleaves == NULL) == (b->vleaves == NULL) &&
	    (a->vleaves == NULL || memcmp(a->vleaves, b->vleaves, nl * sizeof(int)) == 0);
}

/* The first save: every job as given, nothing running. */
static void
store_init(struct store *st, const struct emu *m, const struct job *jobs, int n)
{
	int i;

	memset(st, 0, sizeof *st);
	st->njobs = n;
	st->jobs = xcalloc((size_t)n + 1, sizeof *st->jobs);
	memcpy(st->jobs, jobs, (size_t)n * sizeof *jobs);
	st->blob = xcalloc((size_t)n + 1, sizeof *st->blob);
	st->pl = xcalloc((size_t)n + 1, sizeof *st->pl);
	for (i = 0; i < n; i++) {
		strbuf_init(&st->blob[i]);
		emu_job_save(m, i, &st->blob[i]);
	}
	strbuf_init(&st->run);
}

static void
store_free(struct store *st)
{
	int i;

	for (i = 0; i < st->njobs; i++) {
		strbuf_release(&st->blob[i]);
		pl_clear(&st->pl[i]);
	}
	free(st->jobs);
	free(st->blob);
	free(st->pl);
	strbuf_release(&st->run);
	free(st->series);
	free(st->log);
}

static bool
same_bytes(const struct strbuf *a, const struct strbuf *b)
{
	return a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0;
}

/*
 * At a tick boundary: copy what changed (the dirty set), check that what
 * did not change really did not, append the journal, take the run state
 * and the series, drain.
 */
static void
store_sync(struct store *st, struct emu *m, const struct job *jobs)
{
	struct engine_placement pl;
	struct strbuf sb = STRBUF_INIT;
	const struct emu_sample *ser;
	const struct rec *log;
	const int *d;
	unsigned char *isd;
	int nd, i, n, job;

	d = emu_dirty(m, &nd);
	isd = xcalloc((size_t)st->njobs + 1, 1);
	for (i = 0; i < nd; i++) {
		job = d[i];
		CHECKF(job >= 0 && job < st->njobs && !isd[job], "dirty set: job %d", job);
		isd[job] = 1;
		st->jobs[job] = jobs[job];
		strbuf_reset(&st->blob[job]);
		emu_job_save(m, job, &st->blob[job]);
		if (emu_job_placement(m, job, &pl))
			pl_copy(&st->pl[job], &pl);
		else
			pl_clear(&st->pl[job]);
	}
	for (i = 0; i < st->njobs; i++) {
		if (isd[i])
			continue;
		strbuf_reset(&sb);
		emu_job_save(m, i, &sb);
		if (memcmp(&st->jobs[i], &jobs[i], sizeof jobs[i]) != 0 ||
		    !same_bytes(&sb, &st->blob[i]) ||
		    emu_job_placement(m, i, &pl) != st->pl[i].has ||
		    (st->pl[i].has && !pl_equal(&pl, &st->pl[i].pl))) {
			st->stale++;
		}
	}
	free(isd);
	strbuf_release(&sb);
	log = emu_journal(m, &n);
	XGROW(st->log, st->logcap, (size_t)(st->nlog + n) + 1);
	memcpy(st->log + st->nlog, log, (size_t)n * sizeof *log);
	st->nlog += n;
	strbuf_reset(&st->run);
	emu_save(m, &st->run);
	ser = emu_series(m, &n);
	free(st->series);
	st->series = xcalloc((size_t)n + 1, sizeof *ser);
	if (n > 0)
		memcpy(st->series, ser, (size_t)n * sizeof *ser);
	st->nseries = n;
	emu_drain(m);
}

/*
 * Job blobs as a store written before version 4 holds them: every field,
 * in the order version 4 keeps (emu-restore.c), where version 4 writes
 * only those that differ from a fresh job's. Sizes in bytes (0: the GPU
 * list, a count and its entries) and defaults (key id: the job's own).
 */
static const struct v3field {
	int		 size;
	bool		 dbl;
	double		 dflt;
} v3fields[] = {
	{ 4, false, 0 }, { 8, true, 0 }, { 8, true, 0 }, { 8, true, 0 },
	{ 8, true, 0 }, { 8, true, 0 }, { 1, false, 0 }, { 4, false, 0 },
	{ 4, false, 0 }, { 8, true, 0 }, { 8, true, 0 }, { 8, true, 0 },
	{ 4, false, -2 /* the job */ }, { 4, false, 0 }, { 4, false, -1 },
	{ 1, false, 0 }, { 8, false, 0 }, { 8, true, 1 }, { 8, true, 1 },
	{ 8, true, 1 }, { 8, true, 0 }, { 4, false, 0 }, { 8, true, 0 },
	{ 8, true, -1 }, { 1, false, 0 }, { 0, false, 0 }, { 8, false, 0 },
	{ 4, false, 0 }, { 8, true, 0 }, { 8, true, 0 }, { 8, true, 0 },
};
static int old_blobs;		/* store_restore hands over blobs of this version */

/*
 * A version 8 blob as version 4 or 3 wrote it: version 4 is version 8's
 * mask narrowed to 32 bits over the same fields; version 3 every field.
 * Neither has grow-shrink's fields, the promotion marks or borrowing's, so
 * the job must not have grown, been promoted or borrowed; the preempted
 * time is dropped (older blobs read it as 0).
 */
static void
blob_to_old(const struct strbuf *in, int job, int version, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)in->buf;
	size_t off = 9, end;
	uint64_t mask = 0;
	int32_t n;
	int f, k;

	strbuf_reset(out);
	if (in->len < 13 || p[0] != 8) {
		CHECKF(0, "job %d: a blob of version %d, %zu bytes", job,
		    in->len > 0 ? p[0] : -1, in->len);
		return;
	}
	for (k = 0; k < 8; k++)
		mask |= (uint64_t)p[1 + k] << (8 * k);
	end = in->len - 4;
	if ((mask >> 36) != 0) {
		CHECKF(0, "job %d: borrowing fields (mask 0x%llx) have no older form",
		    job, (unsigned long long)mask);
		return;
	}
	if (mask & (UINT64_C(1) << 35)) {
		/* the preempted time, last: older blobs read it as 0 */
		mask &= ~(UINT64_C(1) << 35);
		end -= 8;
	}
	if ((mask >> 31) != 0) {
		CHECKF(0, "job %d: grow-shrink fields (mask 0x%llx) have no older "
		    "form", job, (unsigned long long)mask);
		return;
	}
	if (version == 4) {
		pack_u8(out, 4);
		pack_u32(out, (uint32_t)mask);
		strbuf_add(out, (const char *)p + off, end - off);
		pack_seal(out, 0);
		return;
	}
	pack_u8(out, 3);
	for (f = 0; f < (int)(sizeof v3fields / sizeof v3fields[0]); f++) {
		const struct v3field *d = &v3fields[f];
		if (mask & (UINT64_C(1) << f)) {
			k = d->size;
			if (k == 0) {		/* the GPUs: a count, then each */
				n = (int32_t)((uint32_t)p[off] | (uint32_t)p[off + 1] << 8 |
				    (uint32_t)p[off + 2] << 16 | (uint32_t)p[off + 3] << 24);
				k = 4 + 4 * n;
			}
			strbuf_add(out, (const char *)p + off, (size_t)k);
			off += (size_t)k;
		} else if (d->size == 0 || (d->size == 4 && !d->dbl))
			pack_i32(out, d->dflt == -2 ? job : (int32_t)d->dflt);
		else if (d->size == 1)
			pack_u8(out, (unsigned)d->dflt);
		else if (d->dbl)
			pack_f64(out, d->dflt);
		else
			pack_i64(out, (int64_t)d->dflt);
	}
	CHECKF(off == end, "job %d: %zu of %zu bytes read", job, off, end);
	pack_seal(out, 0);
}

/*
 * A version 8 blob without its preempted time: what a job restored from
 * an older blob (which has none) encodes to. Other blobs are copied.
 */
static void
blob_strip_preempted(const struct strbuf *in, struct strbuf *out)
{
	const unsigned char *p = (const unsigned char *)in->buf;
	uint64_t mask = 0;
	int k;

	strbuf_reset(out);
	strbuf_add(out, in->buf, in->len);
	if (in->len < 13 || p[0] != 8)
		return;
	for (k = 0; k < 8; k++)
		mask |= (uint64_t)p[1 + k] << (8 * k);
	if (!(mask & (UINT64_C(1) << 35)))
		return;
	mask &= ~(UINT64_C(1) << 35);
	for (k = 0; k < 8; k++)
		out->buf[1 + k] = (char)(mask >> (8 * k));
	strbuf_setlen(out, in->len - 12);
	pack_seal(out, 0);
}

/* Rebuild from the store: jobs copied back, blobs and placements handed over. */
static struct emu *
store_restore(struct store *st, const struct spec *s, enum engine_mode mode,
    const struct policy *p, const struct emu_params *par, struct job *jobs, char **cause)
{
	struct engine_placement *pls = xcalloc((size_t)st->njobs + 1, sizeof *pls);
	struct emu_blob *jb = xcalloc((size_t)st->njobs + 1, sizeof *jb);
	struct strbuf *v3 = NULL, tmp = STRBUF_INIT;
	struct emu_saved sv;
	struct emu *m;
	int i, npl = 0;

	memcpy(jobs, st->jobs, (size_t)st->njobs * sizeof *jobs);
	if (old_blobs != 0)
		v3 = xcalloc((size_t)st->njobs + 1, sizeof *v3);
	for (i = 0; i < st->njobs; i++) {
		if (st->pl[i].has) {
			pls[npl] = st->pl[i].pl;
			pls[npl++].borrowed = false;	/* the store keeps no such column */
		}
		jb[i].data = st->blob[i].buf;
		jb[i].len = st->blob[i].len;
		if (v3 != NULL) {
			strbuf_init(&v3[i]);
			blob_to_old(&st->blob[i], i, old_blobs, &v3[i]);
			jb[i].data = v3[i].buf;
			jb[i].len = v3[i].len;
			/* the store now holds what the restored job writes */
			blob_strip_preempted(&st->blob[i], &tmp);
			strbuf_reset(&st->blob[i]);
			strbuf_add(&st->blob[i], tmp.buf, tmp.len);
		}
	}
	memset(&sv, 0, sizeof sv);
	sv.placements = pls;
	sv.nplacements = npl;
	sv.job_state = jb;
	sv.run.data = st->run.buf;
	sv.run.len = st->run.len;
	sv.series = st->series;
	sv.nseries = st->nseries;
	m = emu_restore(s, mode, p, par, jobs, st->njobs, &sv, cause);
	if (v3 != NULL)
		for (i = 0; i < st->njobs; i++)
			strbuf_release(&v3[i]);
	free(v3);
	strbuf_release(&tmp);
	free(pls);
	free(jb);
	return m;
}

/* A restored emulator encodes to exactly the bytes it came from. */
static void
check_idempotent(const struct store *st, const struct emu *m, const char *what)
{
	struct strbuf sb = STRBUF_INIT;
	struct engine_placement pl;
	int i, bad = 0;

	emu_save(m, &sb);
	CHECKF(same_bytes(&sb, &st->run), "%s: run state re-encodes differently "
	    "(%zu vs %zu bytes)", what, sb.len, st->run.len);
	for (i = 0; i < st->njobs; i++) {
		strbuf_reset(&sb);
		emu_job_save(m, i, &sb);
		bad += !same_bytes(&sb, &st->blob[i]);
		bad += emu_job_placement(m, i, &pl) != st->pl[i].has ||
		    (st->pl[i].has && !pl_equal(&pl, &st->pl[i].pl));
	}
	CHECKF(bad == 0, "%s: %d job states or placements re-encode differently", what, bad);
	strbuf_release(&sb);
}

/* ---- comparing two runs ---- */

struct outcome {
	struct job		*jobs;
	struct emu_report	 rep;
	struct emu_sample	*series;
	int			 nseries;
	struct rec		*log;
	int			 nlog;
	long long		 events;
};

static void
outcome_release(struct outcome *o)
{
	free(o->jobs);
	emu_report_release(&o->rep);
	free(o->series);
	free(o->log);
	memset(o, 0, sizeof *o);
}

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static bool
same_group(const struct emu_group *a, const struct emu_group *b)
{
	struct emu_group x, y;

	memcpy(&x, a, sizeof x);
	memcpy(&y, b, sizeof y);
	if (old_blobs != 0)
		x.preempted_gpu_hours = y.preempted_gpu_hours = 0;
	return memcmp(&x, &y, sizeof x) == 0;
}

static void
compare(const struct outcome *a, const struct outcome *b, int n, const char *what)
{
	int i, bad = 0, first = -1;

	for (i = 0; i < n; i++)
		if (memcmp(&a->jobs[i], &b->jobs[i], sizeof a->jobs[i]) != 0) {
			if (first < 0)
				first = i;
			bad++;
		}
	CHECKF(bad == 0, "%s: %d jobs differ, first '%s': end %.17g vs %.17g, attained "
	    "%.17g vs %.17g, state %s vs %s, preemptions %d vs %d", what, bad,
	    first >= 0 ? a->jobs[first].name : "", first >= 0 ? a->jobs[first].end : 0,
	    first >= 0 ? b->jobs[first].end : 0, first >= 0 ? a->jobs[first].attained : 0,
	    first >= 0 ? b->jobs[first].attained : 0,
	    first >= 0 ? job_state_name(a->jobs[first].state) : "",
	    first >= 0 ? job_state_name(b->jobs[first].state) : "",
	    first >= 0 ? a->jobs[first].preemptions : 0,
	    first >= 0 ? b->jobs[first].preemptions : 0);
	/* the report, every field (but the preempted time, which a restore
	   from older blobs, without it, forgets) */
	CHECKF(same_group(&a->rep.all, &b->rep.all),
	    "%s: report 'all' differs: done %d vs %d, jct %.17g vs %.17g, gpu-hours "
	    "%.17g vs %.17g", what, a->rep.all.done, b->rep.all.done, a->rep.all.jct.avg,
	    b->rep.all.jct.avg, a->rep.all.gpu_hours, b->rep.all.gpu_hours);
	CHECK_INTEQ(a->rep.nvcs, b->rep.nvcs);
	for (i = 0; i < a->rep.nvcs && i < b->rep.nvcs; i++)
		CHECKF(same_group(&a->rep.vcs[i], &b->rep.vcs[i]),
		    "%s: report of vc '%s' differs", what, a->rep.vcs[i].name);
	CHECKF(same_double(a->rep.makespan, b->rep.makespan) &&
	    same_double(a->rep.util, b->rep.util) &&
	    same_double(a->rep.frag_avg, b->rep.frag_avg),
	    "%s: makespan %.17g vs %.17g, util %.17g vs %.17g, frag %.17g vs %.17g", what,
	    a->rep.makespan, b->rep.makespan, a->rep.util, b->rep.util, a->rep.frag_avg,
	    b->rep.frag_avg);
	CHECKF(a->rep.events == b->rep.events && a->rep.sched_passes == b->rep.sched_passes &&
	    a->rep.engine_attempts == b->rep.engine_attempts &&
	    a->rep.relaxed == b->rep.relaxed, "%s: events %lld vs %lld, passes %lld vs %lld, "
	    "attempts %lld vs %lld, relaxed %lld vs %lld", what, a->rep.events, b->rep.events,
	    a->rep.sched_passes, b->rep.sched_passes, a->rep.engine_attempts,
	    b->rep.engine_attempts, a->rep.relaxed, b->rep.relaxed);
	/* the series */
	CHECKF(a->nseries == b->nseries && (a->nseries == 0 || memcmp(a->series, b->series,
	    (size_t)a->nseries * sizeof *a->series) == 0), "%s: series of %d vs %d samples "
	    "differ", what, a->nseries, b->nseries);
	/* the journal: nothing lost, nothing twice */
	for (bad = 0, first = -1, i = 0; i < a->nlog && i < b->nlog; i++) {
		const struct rec *x = &a->log[i], *y = &b->log[i];
		if (!same_double(x->t, y->t) || x->kind != y->kind || x->job != y->job ||
		    x->vc != y->vc || x->cell != y->cell || x->by != y->by ||
		    strcmp(x->detail, y->detail) != 0) {
			if (first < 0)
				first = i;
			bad++;
		}
	}
	CHECKF(a->nlog == b->nlog && bad == 0, "%s: journals of %d and %d entries, %d "
	    "differ, first at %d", what, a->nlog, b->nlog, bad, first);
}

/* ---- one workload, straight and cut ---- */

struct setup {
	const struct spec	*s;
	enum engine_mode	 mode;
	const char		*policy;
	struct policy_params	 pp;
	struct emu_params	 ep;
	const struct job	*jobs;		/* pristine */
	int			 njobs;
};

static void
outcome_take(struct outcome *o, struct emu *m, const struct job *jobs, int n,
    const struct rec *log, int nlog)
{
	const struct emu_sample *ser;

	o->jobs = xcalloc((size_t)n + 1, sizeof *o->jobs);
	memcpy(o->jobs, jobs, (size_t)n * sizeof *jobs);
	emu_report(m, &o->rep);
	ser = emu_series(m, &o->nseries);
	o->series = xcalloc((size_t)o->nseries + 1, sizeof *ser);
	if (o->nseries > 0)
		memcpy(o->series, ser, (size_t)o->nseries * sizeof *ser);
	o->log = xcalloc((size_t)nlog + 1, sizeof *log);
	if (nlog > 0)
		memcpy(o->log, log, (size_t)nlog * sizeof *log);
	o->nlog = nlog;
}

static int
straight(const struct setup *su, struct outcome *o)
{
	struct job *jobs = xcalloc((size_t)su->njobs + 1, sizeof *jobs);
	struct policy p;
	struct emu *m;
	const struct rec *log;
	char *cause = NULL;
	int nlog;

	memcpy(jobs, su->jobs, (size_t)su->njobs * sizeof *jobs);
	if (policy_init(&p, policy_find(su->policy), &su->pp, &cause) < 0) {
		CHECKF(0, "%s", cause);
		free(cause);
		free(jobs);
		return -1;
	}
	m = emu_create(su->s, su->mode, &p, &su->ep, jobs, su->njobs, &cause);
	CHECKF(m != NULL, "%s", cause);
	CHECKF(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0, "%s", cause);
	CHECK(emu_done(m));
	log = emu_journal(m, &nlog);
	outcome_take(o, m, jobs, su->njobs, log, nlog);
	o->events = o->rep.events;
	emu_free(m);
	policy_release(&p);
	free(jobs);
	return 0;
}

struct cutter {
	int		 calls;
	int		 stop_at;	/* stop at this call */
	struct store	*st;
	struct emu	*m;
	const struct job *jobs;
};

/* A progress callback that saves at a tick boundary and stops the run. */
static bool
cut_here(void *arg, const struct emu_progress *pr)
{
	struct cutter *c = arg;

	(void)pr;
	if (++c->calls < c->stop_at)
		return true;
	store_sync(c->st, c->m, c->jobs);
	return false;
}

/*
 * Run with cuts at the given times (sorted; -1 for before the first tick),
 * or, when by_progress, at progress callbacks. Returns the number of
 * restores.
 */
static int
resumed(const struct setup *su, const double *cuts, int ncuts, bool by_progress,
    struct outcome *o)
{
	struct job *jobs = xcalloc((size_t)su->njobs + 1, sizeof *jobs);
	struct store st;
	struct policy p;
	struct emu *m;
	struct cutter cu;
	char *cause = NULL, what[160];
	int k = 0, restores = 0;
	long long rc;

	memcpy(jobs, su->jobs, (size_t)su->njobs * sizeof *jobs);
	CHECK(policy_init(&p, policy_find(su->policy), &su->pp, &cause) == 0);
	m = emu_create(su->s, su->mode, &p, &su->ep, jobs, su->njobs, &cause);
	CHECKF(m != NULL, "%s", cause);
	if (m == NULL) {
		free(cause);
		free(jobs);
		policy_release(&p);
		return 0;
	}
	store_init(&st, m, jobs, su->njobs);
	for (;;) {
		if (by_progress) {
			memset(&cu, 0, sizeof cu);
			cu.stop_at = 1 + (int)(xr() % 2);
			cu.st = &st;
			cu.m = m;
			cu.jobs = jobs;
			rc = emu_run(m, INFINITY, cut_here, &cu, &cause);
			if (rc >= 0) {
				store_sync(&st, m, jobs);
				break;
			}
			CHECKF(strstr(cause, "interrupted") != NULL, "%s", cause);
			free(cause);
			cause = NULL;
		} else {
			if (k == ncuts) {
				CHECKF(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0, "%s", cause);
				store_sync(&st, m, jobs);
				break;
			}
			CHECKF(emu_run(m, cuts[k++], NULL, NULL, &cause) >= 0, "%s", cause);
			store_sync(&st, m, jobs);
		}
		/* the crash: everything but the store is gone */
		emu_free(m);
		policy_release(&p);
		memset(jobs, 0xa5, (size_t)su->njobs * sizeof *jobs);
		CHECK(policy_init(&p, policy_find(su->policy), &su->pp, &cause) == 0);
		m = store_restore(&st, su->s, su->mode, &p, &su->ep, jobs, &cause);
		snprintf(what, sizeof what, "%s/%s restore %d", su->policy,
		    engine_mode_name(su->mode), restores);
		CHECKF(m != NULL, "%s: %s", what, cause);
		if (m == NULL) {
			free(cause);
			break;
		}
		check_idempotent(&st, m, what);
		restores++;
	}
	CHECKF(st.stale == 0, "%s/%s: %d jobs changed outside the dirty set", su->policy,
	    engine_mode_name(su->mode), st.stale);
	if (m != NULL) {
		CHECK(emu_done(m));
		outcome_take(o, m, jobs, su->njobs, st.log, st.nlog);
		emu_free(m);
	}
	store_free(&st);
	policy_release(&p);
	free(jobs);
	return restores;
}

/*
 * ncuts tick boundaries, sorted: the first before any tick, then a third
 * at random times up to end, the rest right after ticks where something
 * happened in the straight run (its journal), preemptions first: the
 * scheduler's domains are left dirty only by a pass that preempted, and
 * the next tick (a checkpoint later) cleans them, so random times would
 * seldom cut there.
 */
static void
pick_cuts(const struct outcome *a, double end, double *cuts, int ncuts)
{
	double *pre = xcalloc((size_t)a->nlog + 1, sizeof *pre);
	double *any = xcalloc((size_t)a->nlog + 1, sizeof *any);
	int i, k, npre = 0, nany = 0;
	double t;

	for (i = 0; i < a->nlog; i++) {
		if (a->log[i].kind == REC_PREEMPT)
			pre[npre++] = a->log[i].t;
		any[nany++] = a->log[i].t;
	}
	cuts[0] = -1;
	for (i = 1; i < ncuts; i++) {
		if (i % 3 == 0 || nany == 0)
			cuts[i] = end * (double)(xr() % 100000) / 100000.0;
		else if (i % 3 == 1 && npre > 0)
			cuts[i] = pre[xr() % (unsigned)npre];
		else
			cuts[i] = any[xr() % (unsigned)nany];
	}
	for (i = 1; i < ncuts; i++)
		for (k = i; k > 0 && cuts[k] < cuts[k - 1]; k--) {
			t = cuts[k];
			cuts[k] = cuts[k - 1];
			cuts[k - 1] = t;
		}
	free(pre);
	free(any);
}

static int
one(const struct setup *su, int ncuts)
{
	struct outcome a, b;
	double cuts[64], end = 0;
	char what[160];
	int i, restores;

	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	if (straight(su, &a) < 0)
		return 0;
	for (i = 0; i < su->njobs; i++)
		if (a.jobs[i].end > end)
			end = a.jobs[i].end;
	pick_cuts(&a, end * 1.05, cuts, ncuts);
	restores = resumed(su, cuts, ncuts, false, &b);
	snprintf(what, sizeof what, "%s/%s", su->policy, engine_mode_name(su->mode));
	CHECKF(restores == ncuts, "%s: %d restores of %d", what, restores, ncuts);
	if (b.jobs != NULL)
		compare(&a, &b, su->njobs, what);
	outcome_release(&a);
	outcome_release(&b);
	return restores;
}

/* ---- workloads ---- */

static const struct emu_fault faults[] = {
	{ "r0n01", 1500, 6000 },
	{ "r0n01", 4000, 9000 },	/* overlaps: bad until the last ok */
	{ "r1n03", 2500, 2600 },
	{ "r1n07", 3000, 12000 },	/* the pinned node of 'infer' */
	{ "r0n06", 7000, -1 },		/* never comes back */
	{ "r1n00", 500, 40000 },
	{ "nope", 100, 200 },		/* no such node: nothing happens */
};

/* A run of policy on s in mode over jobs[0..n), every parameter at its
   default and, with_faults, the node faults above. */
static void
setup_init(struct setup *su, const struct spec *s, enum engine_mode mode,
    const char *policy, const struct job *jobs, int n, bool with_faults)
{
	memset(su, 0, sizeof *su);
	su->s = s;
	su->mode = mode;
	su->policy = policy;
	policy_params_init(&su->pp);
	emu_params_init(&su->ep);
	if (with_faults) {
		su->ep.faults = faults;
		su->ep.nfaults = sizeof faults / sizeof faults[0];
	}
	su->jobs = jobs;
	su->njobs = n;
}

static const double service[] = {
	120, 600, 1800, 3600, 3600, 7200, 14400, 30000, 60000, 100000, 250000,
};

struct pconf {
	const char	*policy;
	bool		 sample;
	double		 knob;
	bool		 tiers;		/* jobs of priorities 0-2, weights 1-2 */
	bool		 elastic;	/* every third job may grow to twice its GPUs */
	bool		 no_slice;	/* gandiva packing only: evictions, no slices */
};

static const struct pconf pconfs[] = {
	{ "fifo", false, 0, false, false, false },
	{ "fifo-skip", false, 0, false, false, false },
	{ "las", false, 0, false, false, false },
	{ "las", false, 2, false, false, false },		/* promotion: EV_PROMOTE events */
	{ "gittins", true, 0, false, false, false },
	{ "gittins", false, 0, false, false, false },	/* learns from done() */
	{ "srtf", false, 0, false, false, false },
	{ "srsf", false, 0, false, false, false },
	{ "gandiva", false, 0, false, false, false },	/* time-slicing, packing, guests */
	{ "gandiva", false, 0, true, false, false },	/* priority tiers, weighted slices */
	{ "gandiva", false, 0, false, true, false },	/* grow-shrink */
	{ "gandiva", false, 0, false, false, true },	/* packing, no time-slicing */
	{ "antman", false, 0, false, false, false },	/* opportunistic guests, phases, upgrades */
};

static void
test_policies_and_modes(void)
{
	static const enum engine_mode modes[] = { ENGINE_HIVED, ENGINE_QUOTA, ENGINE_PRIVATE };
	struct spec *s = load_file("specs/default.yaml");
	int n = test_long ? 600 : 220, i, pi, mi, total = 0;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;

	random_jobs(s, jobs, n, 11);
	/* arrivals three times as dense, and some soft affinity: pressure */
	for (i = 0; i < n; i++) {
		jobs[i].submit /= 3;
		jobs[i].state_since = jobs[i].submit;
		jobs[i].soft_affinity = i % 5 == 0;
	}
	for (pi = 0; pi < (int)(sizeof pconfs / sizeof pconfs[0]); pi++)
		for (mi = 0; mi < 3; mi++) {
			for (i = 0; i < n; i++) {
				jobs[i].priority = pconfs[pi].tiers ? (i * 7) % 3 : 0;
				jobs[i].weight = pconfs[pi].tiers ? 1 + i % 2 : 1;
				jobs[i].elastic_min = pconfs[pi].elastic && i % 3 == 0 ?
				    jobs[i].gpus : 0;
				jobs[i].elastic_max = 2 * jobs[i].elastic_min;
			}
			setup_init(&su, s, modes[mi], pconfs[pi].policy, jobs, n, true);
			su.pp.promote_knob = pconfs[pi].knob;
			if (pconfs[pi].sample) {
				su.pp.service = service;
				su.pp.nservice = sizeof service / sizeof service[0];
			}
			su.ep.sample_interval = 1800;
			su.ep.grow_after = 120;
			su.ep.no_slice = pconfs[pi].no_slice;
			total += one(&su, 10);
		}
	CHECKF(total >= 10 * 3 * 10, "%d restores", total);
	free(jobs);
	spec_free(s);
}

/*
 * Static binding (emu_params.static_binding): a restore binds every VC's
 * cells as the first run did before it puts the jobs back, so the resumed
 * run is the straight one, bad nodes and preemptions included.
 */
static void
test_static_binding(void)
{
	static const char *const policies[] = { "las", "fifo" };
	struct spec *s = load_file("specs/default.yaml");
	int n = 180, i, total = 0;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;

	random_jobs(s, jobs, n, 23);
	for (i = 0; i < n; i++) {
		jobs[i].submit /= 3;
		jobs[i].state_since = jobs[i].submit;
	}
	for (i = 0; i < 2; i++) {
		setup_init(&su, s, ENGINE_HIVED, policies[i], jobs, n, true);
		su.ep.static_binding = true;
		total += one(&su, 8);
	}
	CHECKF(total == 2 * 8, "%d restores", total);
	free(jobs);
	spec_free(s);
}

/*
 * Borrowing (emu_params.borrow, quota mode): the store's placements do not
 * say which jobs run borrowed, the job blobs (version 8) do, so a restore
 * gives the engine back its borrowed jobs and the resumed run is the
 * straight one. Not vacuous: the straight run borrowed.
 */
static void
test_borrowing(void)
{
	static const char *const policies[] = { "fifo", "las", "gandiva", "antman" };
	struct spec *s = load_file("specs/default.yaml");
	int n = 200, i, total = 0;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;
	struct outcome o;

	random_jobs(s, jobs, n, 29);
	for (i = 0; i < n; i++) {
		jobs[i].submit /= 3;
		jobs[i].state_since = jobs[i].submit;
	}
	for (i = 0; i < 4; i++) {
		setup_init(&su, s, ENGINE_QUOTA, policies[i], jobs, n, true);
		su.ep.borrow = true;
		memset(&o, 0, sizeof o);
		if (straight(&su, &o) == 0) {
			CHECKF(o.rep.borrow && o.rep.all.borrowed_jobs > 0 &&
			    o.rep.all.borrowed_gpu_hours > 0, "%s: %d jobs borrowed, "
			    "%.1f GPU-h", policies[i], o.rep.all.borrowed_jobs,
			    o.rep.all.borrowed_gpu_hours);
			outcome_release(&o);
		}
		total += one(&su, 8);
	}
	CHECKF(total == 4 * 8, "%d restores", total);
	free(jobs);
	spec_free(s);
}

/* Ideal mode: free preemption requeues at the same instant (two ticks at t). */
static void
test_ideal(void)
{
	struct spec *s = load_file("specs/default.yaml");
	int n = 150;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;

	random_jobs(s, jobs, n, 5);
	setup_init(&su, s, ENGINE_HIVED, "las", jobs, n, false);
	su.pp.thresholds[0] = 600;
	su.ep.ideal = true;
	CHECK(one(&su, 16) == 16);
	free(jobs);
	spec_free(s);
}

static int
philly_setup(struct spec **sp, struct replay *r)
{
	struct replay_cfg c;
	char *cause = NULL;

	*sp = load_file("specs/philly.yaml");
	replay_cfg_init(&c);
	c.trace = "tests/fixtures/traces/philly-sample.csv";
	c.vcmap = "*=-";
	c.load = 1000;
	if (replay_prepare(r, *sp, &c, &cause) < 0) {
		CHECKF(0, "%s", cause);
		free(cause);
		spec_free(*sp);
		return -1;
	}
	return 0;
}

static const struct emu_fault philly_faults[] = {
	{ "r00n03", 20000, 200000 },
	{ "r05n10", 50000, -1 },
	{ "r21n02", 80000, 90000 },
	{ "r21n09", 10000, 400000 },
};

/* The Philly sample under pressure: las, gittins, gandiva, antman, hived, 24 cuts. */
static void
test_philly(void)
{
	static const char *const pol[] = { "las", "gittins", "gandiva", "antman" };
	struct spec *s;
	struct replay r;
	struct setup su;
	int i;

	if (philly_setup(&s, &r) < 0)
		return;
	for (i = 0; i < 4; i++) {
		setup_init(&su, s, ENGINE_HIVED, pol[i], r.jobs, r.njobs, false);
		su.ep.faults = philly_faults;
		su.ep.nfaults = sizeof philly_faults / sizeof philly_faults[0];
		CHECK(one(&su, 24) == 24);
	}
	replay_release(&r);
	spec_free(s);
}

/*
 * Saved from inside the progress callback (a tick boundary), which stops
 * the run: srsf on 700 jobs makes ~20,000 events, a call every 4096.
 */
static void
test_progress_cuts(void)
{
	struct spec *s = load_file("specs/default.yaml");
	int n = 700, restores;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;
	struct outcome a, b;

	random_jobs(s, jobs, n, 17);
	setup_init(&su, s, ENGINE_HIVED, "srsf", jobs, n, true);
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	CHECK(straight(&su, &a) == 0);
	restores = resumed(&su, NULL, 0, true, &b);
	CHECKF(restores >= 3, "%d restores from the progress callback (%lld events)",
	    restores, a.rep.events);
	if (b.jobs != NULL)
		compare(&a, &b, su.njobs, "progress cuts");
	outcome_release(&a);
	outcome_release(&b);
	free(jobs);
	spec_free(s);
}

/*
 * A checkpoint in the middle of a migration: j4 (vgg16, two 1-GPU pods)
 * spreads over two nodes of a 4-node rack and moves onto one when j0 and
 * j1 end at 1000 (emu-migrate.c); cuts at 1000 and 1001 fall inside its
 * migration stall. The resumed run must report as the straight one.
 */
static void
test_migrate_mid(void)
{
	static const double cuts[] = { -1, 1000, 1001, 30000 };
	struct spec *s = rack4();
	struct job jobs[5];
	struct setup su;
	struct outcome a, b;
	struct policy p;
	struct emu *m;
	char *cause = NULL;
	int i, migrations = 0;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	for (i = 0; i < 4; i++)
		add(jobs, i, 0, 0, 3, i < 2 ? 1000 : 1e5);
	add(jobs, 4, 0, 1, 2, 50000);
	job_set_shape(&jobs[4], 2, 1);
	jobs[4].duration = 50000;
	jobs[4].model = model_find("vgg16");
	setup_init(&su, s, ENGINE_HIVED, "gandiva", jobs, 5, false);
	/* the cut at 1000 is mid-migration: j4 moved and stalls */
	CHECK(policy_init(&p, policy_find("gandiva"), &su.pp, &cause) == 0);
	m = emu_create(s, su.mode, &p, &su.ep, jobs, 5, &cause);
	CHECKF(m != NULL, "%s", cause);
	if (m != NULL) {
		const struct rec *log;
		int nlog;
		CHECK(emu_run(m, 1000, NULL, NULL, &cause) >= 0);
		log = emu_journal(m, &nlog);
		for (i = 0; i < nlog; i++)
			migrations += log[i].kind == REC_MIGRATE && log[i].job == 4 &&
			    log[i].t == 1000;
		CHECK_INTEQ(migrations, 1);
		CHECKF(emu_job_rate(m, 4) == 0, "j4 progresses at %g", emu_job_rate(m, 4));
		emu_free(m);
	}
	policy_release(&p);
	/* that run updated jobs in place: the pristine ones again */
	for (i = 0; i < 4; i++)
		add(jobs, i, 0, 0, 3, i < 2 ? 1000 : 1e5);
	add(jobs, 4, 0, 1, 2, 50000);
	job_set_shape(&jobs[4], 2, 1);
	jobs[4].duration = 50000;
	jobs[4].model = model_find("vgg16");
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	CHECK(straight(&su, &a) == 0);
	CHECK_INTEQ(a.rep.all.migrations, 1);
	CHECK_INTEQ(resumed(&su, cuts, 4, false, &b), 4);
	if (b.jobs != NULL)
		compare(&a, &b, su.njobs, "mid-migration");
	outcome_release(&a);
	outcome_release(&b);
	spec_free(s);
}

/* ---- corrupt input ---- */

/*
 * Restore from the store; NULL with *cause when refused. Whatever gets
 * through must run (up to `until`: a time garbled to 1e300 is legal, and
 * the run would sample until then) without crashing; ASan watches.
 */
static bool
try_restore(struct store *st, const struct setup *su, struct job *jobs, double until,
    char **cause)
{
	struct policy p;
	struct emu *m;
	char *c2 = NULL;

	policy_init(&p, policy_find(su->policy), &su->pp, cause);
	m = store_restore(st, su->s, su->mode, &p, &su->ep, jobs, cause);
	if (m != NULL) {
		if (emu_run(m, until, NULL, NULL, &c2) < 0)
			free(c2);
		emu_free(m);
	}
	policy_release(&p);
	return m != NULL;
}

/*
 * Offsets in a job's blob (emu_job_save), from its start: version (u8),
 * ver (u32), since, stall_until, speed, costs, target (f64), by_work (u8),
 * done, failures (i32), the key's three f64, its id (i32), the class
 * (i32), the group (i32), then the guest flag (u8).
 */
#define JB_KEY_ID	(1 + 4 + 5 * 8 + 1 + 4 + 4 + 3 * 8)
#define JB_GUEST	(JB_KEY_ID + 4 + 4 + 4)

/* Replace the trailing checksum: garbage that only the decoder can catch. */
static void
reseal(struct strbuf *b)
{
	strbuf_setlen(b, b->len - 4);
	pack_seal(b, 0);
}

/* Version 4 blobs a decoder must refuse: mask, an int32 (or a flag) after. */
static const struct {
	uint32_t	 mask;
	int		 bytes;		/* 0: none, 1: a flag, 4: an int32 */
	int32_t		 value;		/* -2: the job's id + 1 */
	const char	*want;
} v4bad[] = {
	{ 1u << 31, 0, 0, "unknown fields" },
	{ 1u << 15, 1, 1, "sharing state" },		/* a guest without group */
	{ 1u << 12, 4, -2, "key of job" },		/* another job's key */
	{ 1u << 25, 4, 0, "empty GPU list" },
	{ 1u << 25, 4, 1000000, "GPUs count" },
	{ 1u << 7, 4, -3, "completion -3" },
	{ 1u << 7 | 1u << 8, 4, 1, "" },		/* the failures missing */
};

/* Version 5 blobs a decoder must refuse: mask, an int32 or a double after. */
static const struct {
	uint64_t	 mask;
	int		 bytes;		/* 0: none, 4: an int32, 8: a double */
	double		 value;
	const char	*want;
} v5bad[] = {
	{ UINT64_C(1) << 33, 0, 0, "unknown fields" },
	{ UINT64_C(1) << 31, 4, -1, "grow-shrink state" },	/* extra < 0 */
	{ UINT64_C(1) << 32, 8, -5, "grow-shrink state" },	/* wake-up < -1 */
	{ UINT64_C(1) << 32, 8, NAN, "grow-shrink state" },
	{ UINT64_C(1) << 31, 0, 0, "" },			/* extra missing */
};

/* Versions 6 (version 5 and the promotion marks) and 7 (and the
   preempted time) a decoder must refuse. */
static const struct {
	int		 version;
	uint64_t	 mask;
	double		 value;
	const char	*want;
} v6bad[] = {
	{ 6, UINT64_C(1) << 35, 0, "unknown fields" },
	{ 6, UINT64_C(1) << 33, -1, "promotion state" },	/* service mark < 0 */
	{ 6, UINT64_C(1) << 33, NAN, "promotion state" },
	{ 6, UINT64_C(1) << 34, -2, "promotion state" },	/* wait mark < -1 */
	{ 6, UINT64_C(1) << 34, INFINITY, "promotion state" },
	{ 7, UINT64_C(1) << 36, 0, "unknown fields" },
	{ 7, UINT64_C(1) << 35, -1, "clocks" },			/* preempted < 0 */
	{ 7, UINT64_C(1) << 35, NAN, "clocks" },
};

static void
test_corrupt(void)
{
	struct spec *s = load_file("specs/default.yaml");
	int n = 120, i, cut, fails, ok, job = -1;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct job *live = xcalloc((size_t)n, sizeof *live);
	struct strbuf keep = STRBUF_INIT, jkeep = STRBUF_INIT, v3keep = STRBUF_INIT;
	struct store st;
	struct policy p;
	struct emu *m;
	struct setup su;
	char *cause = NULL, vmsg[64];
	double until = 60000;

	random_jobs(s, jobs, n, 3);
	setup_init(&su, s, ENGINE_HIVED, "gittins", jobs, n, false);
	su.ep.faults = faults;
	su.ep.nfaults = 5;
	memcpy(live, jobs, (size_t)n * sizeof *jobs);
	CHECK(policy_init(&p, policy_find("gittins"), &su.pp, &cause) == 0);
	m = emu_create(s, su.mode, &p, &su.ep, live, n, &cause);
	store_init(&st, m, live, n);
	CHECK(emu_run(m, 4000, NULL, NULL, &cause) >= 0);
	store_sync(&st, m, live);
	emu_free(m);
	policy_release(&p);
	/* the state is good as it is */
	CHECK(try_restore(&st, &su, live, until, &cause));

	/* every truncation of the run state is refused, with a message */
	strbuf_add(&keep, st.run.buf, st.run.len);
	for (fails = 0, cut = 0; cut < (int)keep.len; cut++) {
		st.run.len = (size_t)cut;
		if (!try_restore(&st, &su, live, until, &cause)) {
			fails += strstr(cause, "run state: ") != NULL;
			free(cause);
			cause = NULL;
		}
	}
	CHECKF(fails == (int)keep.len, "%d of %zu truncations refused", fails, keep.len);
	st.run.len = keep.len;
	/* any bit flipped: the checksum */
	for (fails = 0, i = 0; i < 200; i++) {
		size_t at = xr() % keep.len;
		st.run.buf[at] ^= (char)(1u << (xr() % 8));
		if (!try_restore(&st, &su, live, until, &cause)) {
			fails += strstr(cause, "checksum") != NULL;
			free(cause);
			cause = NULL;
		}
		memcpy(st.run.buf, keep.buf, keep.len);
	}
	CHECKF(fails == 200, "%d of 200 flips refused by the checksum", fails);
	/* sealed garbage: trailing bytes, another version */
	strbuf_setlen(&st.run, keep.len - 4);
	strbuf_addc(&st.run, 0);
	pack_seal(&st.run, 0);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "bytes left over") != NULL, "%s", cause);
	free(cause);
	strbuf_reset(&st.run);
	strbuf_add(&st.run, keep.buf, keep.len);
	st.run.buf[0] = 9;
	reseal(&st.run);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "format version 9") != NULL, "%s", cause);
	free(cause);
	/* sealed random flips: refused by the decoder or the restore, or run
	   without harm */
	for (fails = ok = 0, i = 0; i < 300; i++) {
		memcpy(st.run.buf, keep.buf, keep.len);
		st.run.buf[xr() % (keep.len - 4)] ^= (char)(1u << (xr() % 8));
		reseal(&st.run);
		if (!try_restore(&st, &su, live, until, &cause)) {
			fails++;
			free(cause);
			cause = NULL;
		} else
			ok++;
	}
	CHECKF(fails > 50, "only %d of 300 garbled states refused", fails);
	memcpy(st.run.buf, keep.buf, keep.len);

	/* a job's state: truncated, flipped, too long, another version, the
	   key of another job */
	for (i = 0; i < n && job < 0; i++)
		if (st.jobs[i].state == JOB_RUNNING)
			job = i;
	CHECK(job >= 0);
	if (job < 0)
		job = 0;
	strbuf_add(&jkeep, st.blob[job].buf, st.blob[job].len);
	for (fails = 0, cut = 1; cut < (int)jkeep.len; cut++) {
		st.blob[job].len = (size_t)cut;
		if (!try_restore(&st, &su, live, until, &cause)) {
			fails += strstr(cause, "state: ") != NULL;
			free(cause);
			cause = NULL;
		}
	}
	CHECKF(fails == (int)jkeep.len - 1, "%d of %zu truncations refused", fails,
	    jkeep.len - 1);
	st.blob[job].len = jkeep.len;
	st.blob[job].buf[10] ^= 4;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "checksum") != NULL, "%s", cause);
	free(cause);
	memcpy(st.blob[job].buf, jkeep.buf, jkeep.len);
	strbuf_setlen(&st.blob[job], jkeep.len - 4);
	strbuf_addc(&st.blob[job], 1);
	pack_seal(&st.blob[job], 0);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "bytes left over") != NULL, "%s", cause);
	free(cause);
	strbuf_reset(&st.blob[job]);
	strbuf_add(&st.blob[job], jkeep.buf, jkeep.len);
	/* the version after the newest, whatever that is */
	st.blob[job].buf[0] = (char)(jkeep.buf[0] + 1);
	bufprintf(vmsg, sizeof vmsg, "format version %d", jkeep.buf[0] + 1);
	reseal(&st.blob[job]);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, vmsg) != NULL, "%s", cause);
	free(cause);
	/* version 4, made by hand: a mask, then the fields it names */
	for (i = 0; i < (int)(sizeof v4bad / sizeof v4bad[0]); i++) {
		strbuf_reset(&st.blob[job]);
		pack_u8(&st.blob[job], 4);
		pack_u32(&st.blob[job], v4bad[i].mask);
		if (v4bad[i].bytes > 0)
			pack_i32(&st.blob[job], v4bad[i].value == -2 ? job + 1 :
			    v4bad[i].value);
		if (v4bad[i].bytes == 1)	/* a flag: one byte */
			strbuf_setlen(&st.blob[job], st.blob[job].len - 3);
		pack_seal(&st.blob[job], 0);
		CHECK(!try_restore(&st, &su, live, until, &cause));
		CHECKF(cause != NULL && strstr(cause, v4bad[i].want) != NULL,
		    "mask 0x%08x: %s", (unsigned)v4bad[i].mask, cause);
		free(cause);
	}
	/* version 5, made by hand: a 64-bit mask, then the fields it names */
	for (i = 0; i < (int)(sizeof v5bad / sizeof v5bad[0]); i++) {
		strbuf_reset(&st.blob[job]);
		pack_u8(&st.blob[job], 5);
		pack_u64(&st.blob[job], v5bad[i].mask);
		if (v5bad[i].bytes == 4)
			pack_i32(&st.blob[job], (int32_t)v5bad[i].value);
		else if (v5bad[i].bytes == 8)
			pack_f64(&st.blob[job], v5bad[i].value);
		pack_seal(&st.blob[job], 0);
		CHECK(!try_restore(&st, &su, live, until, &cause));
		CHECKF(cause != NULL && strstr(cause, v5bad[i].want) != NULL,
		    "mask 0x%llx: %s", (unsigned long long)v5bad[i].mask, cause);
		free(cause);
	}
	/* versions 6 and 7: the same, with the promotion marks and the
	   preempted time */
	for (i = 0; i < (int)(sizeof v6bad / sizeof v6bad[0]); i++) {
		strbuf_reset(&st.blob[job]);
		pack_u8(&st.blob[job], (unsigned)v6bad[i].version);
		pack_u64(&st.blob[job], v6bad[i].mask);
		if (strcmp(v6bad[i].want, "unknown fields") != 0)
			pack_f64(&st.blob[job], v6bad[i].value);
		pack_seal(&st.blob[job], 0);
		CHECK(!try_restore(&st, &su, live, until, &cause));
		CHECKF(cause != NULL && strstr(cause, v6bad[i].want) != NULL,
		    "mask 0x%llx: %s", (unsigned long long)v6bad[i].mask, cause);
		free(cause);
	}
	/* version 3 as older stores hold it: the guest flag without a group,
	   counted from the blob's start (the fixed fields of versions 1 and 2
	   before it) */
	blob_to_old(&jkeep, job, 3, &st.blob[job]);
	CHECKF(st.blob[job].len == 196, "a version 3 blob of %zu bytes",
	    st.blob[job].len);
	strbuf_reset(&v3keep);
	strbuf_add(&v3keep, st.blob[job].buf, st.blob[job].len);
	st.blob[job].buf[JB_GUEST] ^= 1;
	reseal(&st.blob[job]);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "sharing state") != NULL, "%s", cause);
	free(cause);
	memcpy(st.blob[job].buf, v3keep.buf, v3keep.len);
	/* the key's id, before the class and the sharing state */
	st.blob[job].buf[JB_KEY_ID] ^= 1;
	reseal(&st.blob[job]);
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "key of job") != NULL, "%s", cause);
	free(cause);
	/* and as it was, it restores */
	memcpy(st.blob[job].buf, v3keep.buf, v3keep.len);
	CHECK(try_restore(&st, &su, live, until, &cause));
	strbuf_reset(&st.blob[job]);
	strbuf_add(&st.blob[job], jkeep.buf, jkeep.len);
	CHECKF(jkeep.len < 120, "version 5: a running job's blob of %zu bytes",
	    jkeep.len);

	/* the jobs and placements must agree */
	st.pl[job].has = false;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "placements for") != NULL, "%s", cause);
	free(cause);
	st.pl[job].has = true;
	st.pl[job].leaves[0] ^= 1;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	free(cause);
	st.pl[job].leaves[0] ^= 1;
	st.jobs[job].state = JOB_PENDING;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	free(cause);
	st.jobs[job].state = JOB_RUNNING;
	/* other params than the run had */
	su.ep.nfaults = 4;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	CHECKF(strstr(cause, "faults") != NULL, "%s", cause);
	free(cause);
	su.ep.nfaults = 5;
	st.nseries--;
	CHECK(!try_restore(&st, &su, live, until, &cause));
	free(cause);
	st.nseries++;
	/* and after all that, the store still restores */
	CHECK(try_restore(&st, &su, live, until, &cause));

	store_free(&st);
	strbuf_release(&keep);
	strbuf_release(&jkeep);
	strbuf_release(&v3keep);
	free(jobs);
	free(live);
	spec_free(s);
}

/*
 * Stores written before job blobs of version 5 hold version 4 or 3 ones:
 * a run resumed from those must end as the uninterrupted one, in the
 * modes that set the most fields (sharing groups and guests, AntMan's
 * GPUs).
 */
static void
test_old_blobs(void)
{
	static const char *const policies[] = { "las", "gandiva", "antman" };
	struct spec *s = load_file("specs/default.yaml");
	int n = 160, i, v, total = 0;
	struct job *jobs = xcalloc((size_t)n, sizeof *jobs);
	struct setup su;

	random_jobs(s, jobs, n, 17);
	for (i = 0; i < n; i++) {
		jobs[i].submit /= 3;
		jobs[i].state_since = jobs[i].submit;
	}
	for (v = 3; v <= 4; v++) {
		old_blobs = v;
		for (i = 0; i < 3; i++) {
			setup_init(&su, s, ENGINE_HIVED, policies[i], jobs, n, true);
			total += one(&su, 8);
		}
	}
	old_blobs = 0;
	CHECKF(total == 2 * 3 * 8, "%d restores", total);
	free(jobs);
	spec_free(s);
}

static const struct test tests[] = {
	{ "policies-and-modes", test_policies_and_modes },
	{ "ideal", test_ideal },
	{ "philly", test_philly },
	{ "progress-cuts", test_progress_cuts },
	{ "migrate-mid", test_migrate_mid },
	{ "corrupt", test_corrupt },
	{ "old-blobs", test_old_blobs },
	{ "static-binding", test_static_binding },
	{ "borrowing", test_borrowing },
};

TEST_MAIN(tests)
