/*
 * emu-restore.c — the emulator's state out (emu_save, emu_job_save) and
 * back (emu_restore). See emu.h ("Crash recovery") for what is kept and
 * what is made again; the encodings are core/pack.h's, versioned and
 * sealed. Everything stored is checked before it is believed: a restore
 * either gives the emulator that was saved or fails with a message.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "sim/emu-int.h"

/* ---- saving ---- */

static int
cmp_seq(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Version 2 added the sharing state (groups, guests, feedback), version 3
   AntMan's (guests' GPUs, phases, the GPUs' utilization), version 4
   writes only the fields that differ from a fresh job's (below); older
   blobs still restore, as emulators that never shared that way. Run blobs of
   version 4 add the submission window's sums (older: restored as 0, so
   a run resumed from one reports the window from the restore on), of
   version 5 AntMan's upgrades that migrated (older: 0), of version 6
   grow-shrink's idle clocks and counts. Job blobs of version 5 add a
   job's extra GPUs and wake-up and take a 64-bit mask (older: jobs that
   never grew). */
#define JOB_BLOB_VERSION	8
/* Bytes of one stored heap entry: t, seq, kind, arg, ver. */
#define EV_BYTES		(8 + 8 + 1 + 4 + 4)

/*
 * Version 4 writes a field only where it differs from a fresh job's
 * (emu_js_init; failures, class 0; the key zero with its own id): a mask
 * of the fields present, then those fields in the order below. Most of a
 * job's sharing and AntMan state keeps its default outside those modes,
 * and a finished job carries little else: on the Philly replay (las,
 * hived) a blob shrinks from 196 bytes to 70 on average, and the store
 * writes ~90,000 of them.
 * Doubles are compared bit for bit, so -0.0 is written, not taken as 0.
 * Version 5 appends grow-shrink's two fields, which take the mask past 32
 * bits: its mask is a u64, version 4's stays a u32 naming JF_V4_COUNT.
 * Version 6 appends the job's promotion marks (job.h promo_attained,
 * promo_wait: Tiresias' reset), fields of struct job the jobs table does
 * not hold; older blobs read them as a job never promoted.
 * Version 7 appends the time the runs preemptions cut short had run
 * (the report's preempted GPU-hours); older blobs read it as 0.
 * Version 8 appends borrowing's (quota mode, emu_params.borrow): whether
 * the job's placement is borrowed (the store's placements do not say) and
 * the time it held borrowed GPUs; older blobs read them as a job that
 * never borrowed.
 */
enum {
	JF_VER, JF_SINCE, JF_STALL, JF_SPEED, JF_COSTS, JF_TARGET, JF_BY_WORK,
	JF_DONE, JF_FAILURES, JF_K0, JF_K1, JF_K2, JF_KEY_ID, JF_CLASS, JF_GRP,
	JF_GUEST, JF_RR, JF_ALONE, JF_FACTOR, JF_SHARE, JF_SWCOST,
	JF_MIGRATIONS, JF_MIGCOST, JF_FEEDBACK, JF_AM, JF_GPUS, JF_AM_SEQ,
	JF_PHASE, JF_C_BUSY, JF_C_HOST, JF_C_LOST,
	JF_V4_COUNT,		/* version 4's mask: 32 bits, these fields */
	JF_EXTRA = JF_V4_COUNT, JF_GROW_AT,
	JF_V5_COUNT,		/* version 5's fields */
	JF_PROMO_ATT = JF_V5_COUNT, JF_PROMO_WAIT,
	JF_V6_COUNT,		/* version 6's fields */
	JF_PREEMPTED = JF_V6_COUNT,
	JF_V7_COUNT,		/* version 7's fields */
	JF_LENT = JF_V7_COUNT, JF_LENT_TIME, JF_COUNT
};

static bool
f64_differs(double v, double d)
{
	uint64_t a, b;

	memcpy(&a, &v, sizeof a);
	memcpy(&b, &d, sizeof b);
	return a != b;
}

void
emu_job_save(const struct emu *m, int job, struct strbuf *out)
{
	const struct ejob_state *x = &m->js[job];
	struct policy_key key;
	size_t start = out->len, at;
	uint64_t mask = 0;
	int klass, i;

	sched_job_key(m->sch, job, &key, &klass);
	pack_u8(out, JOB_BLOB_VERSION);
	at = out->len;
	pack_u64(out, 0);	/* the mask, filled in below */
#define F_INT(f, v, d, pack) \
	do { if ((v) != (d)) { mask |= UINT64_C(1) << (f); pack(out, (v)); } } while (0)
#define F_DBL(f, v, d) \
	do { if (f64_differs((v), (d))) { mask |= UINT64_C(1) << (f); \
	    pack_f64(out, (v)); } } while (0)
	F_INT(JF_VER, x->ver, 0u, pack_u32);
	F_DBL(JF_SINCE, x->since, 0);
	F_DBL(JF_STALL, x->stall_until, 0);
	F_DBL(JF_SPEED, x->speed, 0);
	F_DBL(JF_COSTS, x->costs, 0);
	F_DBL(JF_TARGET, x->target, 0);
	F_INT(JF_BY_WORK, (unsigned)x->by_work, 0u, pack_u8);
	F_INT(JF_DONE, x->done, 0, pack_i32);
	F_INT(JF_FAILURES, m->failures[job], 0, pack_i32);
	F_DBL(JF_K0, key.k[0], 0);
	F_DBL(JF_K1, key.k[1], 0);
	F_DBL(JF_K2, key.k[2], 0);
	F_INT(JF_KEY_ID, key.id, job, pack_i32);
	F_INT(JF_CLASS, klass, 0, pack_i32);
	F_INT(JF_GRP, x->grp, -1, pack_i32);
	F_INT(JF_GUEST, (unsigned)x->guest, 0u, pack_u8);
	F_INT(JF_RR, x->rr, 0, pack_i64);
	F_DBL(JF_ALONE, x->alone, 1);
	F_DBL(JF_FACTOR, x->factor, 1);
	F_DBL(JF_SHARE, x->share, 1);
	F_DBL(JF_SWCOST, x->swcost, 0);
	F_INT(JF_MIGRATIONS, x->migrations, 0, pack_i32);
	F_DBL(JF_MIGCOST, x->migcost, 0);
	F_DBL(JF_FEEDBACK, x->feedback, -1);
	F_INT(JF_AM, (unsigned)x->am, 0u, pack_u8);
	if (x->ngpus > 0) {
		mask |= UINT64_C(1) << JF_GPUS;
		pack_i32(out, x->ngpus);
		for (i = 0; i < x->ngpus; i++)
			pack_i32(out, x->gpus[i]);
	}
	F_INT(JF_AM_SEQ, x->am_seq, 0, pack_i64);
	F_INT(JF_PHASE, x->phase, 0, pack_i32);
	F_DBL(JF_C_BUSY, x->c_busy, 0);
	F_DBL(JF_C_HOST, x->c_host, 0);
	F_DBL(JF_C_LOST, x->c_lost, 0);
	F_INT(JF_EXTRA, x->extra, 0, pack_i32);
	F_DBL(JF_GROW_AT, x->grow_at, -1);
	F_DBL(JF_PROMO_ATT, m->jobs[job].promo_attained, 0);
	F_DBL(JF_PROMO_WAIT, m->jobs[job].promo_wait, 0);
	F_DBL(JF_PREEMPTED, x->preempted, 0);
	F_INT(JF_LENT, (unsigned)emu_job_lent(m, job), 0u, pack_u8);
	F_DBL(JF_LENT_TIME, x->lent_time, 0);
#undef F_INT
#undef F_DBL
	for (i = 0; i < 8; i++)
		out->buf[at + (size_t)i] = (char)(mask >> (8 * i));
	pack_seal(out, start);
}

/* Is this heap entry re-made by emu_restore (an arrival or a fault)? */
static bool
derived(const struct ev *x)
{
	return x->kind == EV_ARRIVE || x->kind == EV_NODE_BAD || x->kind == EV_NODE_OK;
}

void
emu_save(const struct emu *m, struct strbuf *out)
{
	struct sched_stats ss;
	struct engine_stats es;
	struct engine_mark *mk;
	struct ev *ev;
	size_t start = out->len;
	int i, n, nmk, sec;

	pack_u8(out, RUN_BLOB_VERSION);
	pack_i32(out, m->njobs);
	pack_i32(out, m->par.nfaults);
	pack_i32(out, m->nseries);
	pack_f64(out, m->now);
	pack_f64(out, m->horizon);
	pack_f64(out, m->busy_since);
	pack_f64(out, m->busy_gpu_time);
	pack_f64(out, m->first_submit);
	pack_f64(out, m->last_end);
	pack_u64(out, m->seq);
	pack_i64(out, m->events);
	pack_i64(out, m->next_progress);
	pack_i32(out, m->nfinal);
	pack_i32(out, m->live);
	/* the event heap but arrivals and faults (emu_restore makes those),
	   by sequence: the same state always encodes to the same bytes */
	ev = xcalloc((size_t)m->nheap + 1, sizeof *ev);
	for (n = 0, i = 0; i < m->nheap; i++)
		if (!derived(&m->heap[i]))
			ev[n++] = m->heap[i];
	qsort(ev, (size_t)n, sizeof *ev, cmp_seq);
	pack_i32(out, n);
	for (i = 0; i < n; i++) {
		pack_f64(out, ev[i].t);
		pack_u64(out, ev[i].seq);
		pack_u8(out, (unsigned)ev[i].kind);
		pack_i32(out, ev[i].arg);
		pack_u32(out, ev[i].ver);
	}
	free(ev);
	/* the scheduler's dirty domains and counters */
	n = sched_domains(m->sch);
	pack_i32(out, n);
	for (i = 0; i < n; i++)
		pack_u8(out, sched_domain_dirty(m->sch, i));
	sched_stats(m->sch, &ss);
	pack_i64(out, ss.passes);
	pack_i64(out, ss.attempts);
	pack_i64(out, ss.starts);
	pack_i64(out, ss.preemptions);
	pack_i64(out, ss.fast_rejects);
	pack_i64(out, ss.relaxed);
	/* the engine's history counters and bad marks */
	engine_stats(m->e, &es);
	pack_i64(out, es.binds);
	pack_i64(out, es.unbinds);
	pack_i64(out, es.splits);
	pack_i64(out, es.merges);
	nmk = engine_marks(m->e, NULL, 0);
	mk = xcalloc((size_t)nmk + 1, sizeof *mk);
	engine_marks(m->e, mk, nmk);
	pack_i32(out, nmk);
	for (i = 0; i < nmk; i++) {
		pack_i32(out, mk[i].vleaf);
		pack_i32(out, mk[i].leaf);
	}
	free(mk);
	/* versions 2 to 6: the mechanisms' sections, and the window's (4) */
	for (sec = 2; sec <= RUN_BLOB_VERSION; sec++) {
		if (sec == 4) {
			pack_f64(out, m->win_busy);
			pack_f64(out, m->win_sm);
		}
		for (i = 0; emu_mechs[i] != NULL; i++)
			if (emu_mechs[i]->save != NULL)
				emu_mechs[i]->save(m, sec, out);
	}
	pack_seal(out, start);
}

/* ---- restoring ---- */

static void
run_state_release(struct emu_run_state *rs)
{
	free(rs->idle_cell);
	free(rs->idle_t);
	free(rs->ev);
	free(rs->dirty);
	free(rs->marks);
	free(rs->grp);
	free(rs->gpu);
}

static int
decode_run(const struct emu_blob *b, int njobs, struct emu_run_state *rs, char *why, size_t len)
{
	struct unpack u;
	unsigned v;
	int i;

	memset(rs, 0, sizeof *rs);
	unpack_init(&u, b->data, b->len);
	unpack_unseal(&u);
	if (((v = unpack_u8(&u)) < 1 || v > RUN_BLOB_VERSION) && !u.failed)
		unpack_fail(&u, "format version %u, this build reads 1 to %d", v,
		    RUN_BLOB_VERSION);
	rs->njobs = unpack_i32(&u);
	rs->nfaults = unpack_i32(&u);
	rs->nseries = unpack_i32(&u);
	rs->now = unpack_f64(&u);
	rs->horizon = unpack_f64(&u);
	rs->busy_since = unpack_f64(&u);
	rs->busy_gpu_time = unpack_f64(&u);
	rs->first_submit = unpack_f64(&u);
	rs->last_end = unpack_f64(&u);
	rs->seq = unpack_u64(&u);
	rs->events = unpack_i64(&u);
	rs->next_progress = unpack_i64(&u);
	rs->nfinal = unpack_i32(&u);
	rs->live = unpack_i32(&u);
	rs->nev = unpack_count(&u, INT32_MAX / 2, EV_BYTES, "events");
	rs->ev = xcalloc((size_t)rs->nev + 1, sizeof *rs->ev);
	for (i = 0; i < rs->nev; i++) {
		struct ev *x = &rs->ev[i];
		x->t = unpack_f64(&u);
		x->seq = unpack_u64(&u);
		x->kind = (int)unpack_u8(&u);
		x->arg = unpack_i32(&u);
		x->ver = unpack_u32(&u);
		if (u.failed)
			break;
		/* a slice's group is checked once the groups are read */
		if (!(x->t >= rs->now) || (x->kind != EV_FINISH && x->kind != EV_REKEY &&
		    x->kind != EV_PROMOTE && x->kind != EV_REQUEUE && x->kind != EV_SAMPLE &&
		    x->kind != EV_SLICE && x->kind != EV_PHASE && x->kind != EV_GROW) || (x->kind != EV_SAMPLE && x->kind != EV_SLICE &&
		    (x->arg < 0 || x->arg >= njobs)) ||
		    x->seq >= rs->seq) {
			unpack_fail(&u, "event %d (kind %d, job %d, seq %llu) cannot be", i,
			    x->kind, x->arg, (unsigned long long)x->seq);
			break;
		}
	}
	rs->ndoms = unpack_count(&u, 1 << 20, 1, "domains");
	rs->dirty = xcalloc((size_t)rs->ndoms + 1, 1);
	for (i = 0; i < rs->ndoms; i++)
		rs->dirty[i] = unpack_u8(&u) != 0;
	rs->ss.passes = unpack_i64(&u);
	rs->ss.attempts = unpack_i64(&u);
	rs->ss.starts = unpack_i64(&u);
	rs->ss.preemptions = unpack_i64(&u);
	rs->ss.fast_rejects = unpack_i64(&u);
	rs->ss.relaxed = unpack_i64(&u);
	rs->es.binds = unpack_i64(&u);
	rs->es.unbinds = unpack_i64(&u);
	rs->es.splits = unpack_i64(&u);
	rs->es.merges = unpack_i64(&u);
	rs->nmarks = unpack_count(&u, INT32_MAX / 2, 8, "bad marks");
	rs->marks = xcalloc((size_t)rs->nmarks + 1, sizeof *rs->marks);
	for (i = 0; i < rs->nmarks; i++) {
		rs->marks[i].vleaf = unpack_i32(&u);
		rs->marks[i].leaf = unpack_i32(&u);
	}
	if (v >= 2) {
		rs->rr_back = unpack_i64(&u);
		rs->rr_front = unpack_i64(&u);
		rs->packs = unpack_i64(&u);
		rs->unpacks = unpack_i64(&u);
		rs->guests = unpack_i64(&u);
		rs->ngrp = unpack_count(&u, 1 << 24, 4 * 4 + 1 + 4 + 16, "sharing groups");
		rs->grp = xcalloc((size_t)rs->ngrp + 1, sizeof *rs->grp);
		for (i = 0; i < rs->ngrp && !u.failed; i++) {
			struct sgroup *g = &rs->grp[i];
			g->node = unpack_i32(&u);
			g->vc = unpack_i32(&u);
			g->gpus = unpack_i32(&u);
			g->mode = (int)unpack_u8(&u);
			g->ver = unpack_u32(&u);
			g->eval_t = unpack_f64(&u);
			g->eval_work = unpack_f64(&u);
			g->nmb = unpack_i32(&u);
			if (!u.failed && (g->mode > SG_NOPACK || g->nmb < 0 || g->gpus < 0 ||
			    (g->nmb > 0 && (g->node < 0 || g->vc < 0 || g->gpus < 1))))
				unpack_fail(&u, "sharing group %d (node %d, vc %d, %d gpus, mode "
				    "%d, %d members) cannot be", i, g->node, g->vc, g->gpus,
				    g->mode, g->nmb);
		}
	}
	if (v >= 3) {
		rs->am_seq = unpack_i64(&u);
		for (i = 0; i < 9; i++)
			rs->am[i] = unpack_f64(&u);
		rs->am_done = unpack_i64(&u);
		rs->am_upgrades = unpack_i64(&u);
		rs->am_ooms = unpack_i64(&u);
		rs->am_guests = unpack_i64(&u);
		rs->ngpu = unpack_count(&u, 1 << 26, 32, "GPUs");
		rs->gpu = xcalloc((size_t)rs->ngpu * 4 + 1, sizeof *rs->gpu);
		for (i = 0; i < 4 * rs->ngpu && !u.failed; i++)
			if (!isfinite(rs->gpu[i] = unpack_f64(&u)) && !u.failed)
				unpack_fail(&u, "GPU %d: a value is not finite", i / 4);
		for (i = 0; i < 9 && !u.failed; i++)
			if (!isfinite(rs->am[i]))
				unpack_fail(&u, "AntMan sums: value %d is not finite", i);
	}
	if (v >= 4) {
		rs->win_busy = unpack_f64(&u);
		rs->win_sm = unpack_f64(&u);
		if (!u.failed && (!(rs->win_busy >= 0) || !(rs->win_sm >= 0) ||
		    !isfinite(rs->win_busy) || !isfinite(rs->win_sm)))
			unpack_fail(&u, "submission window sums %g, %g cannot be",
			    rs->win_busy, rs->win_sm);
	}
	if (v >= 5 && ((rs->am_moved = unpack_i64(&u)) < 0 ||
	    rs->am_moved > rs->am_upgrades) && !u.failed)
		unpack_fail(&u, "%lld of %lld upgrades migrated", rs->am_moved,
		    rs->am_upgrades);
	if (v >= RUN_V_GROW && !u.failed) {
		rs->grows = unpack_i64(&u);
		rs->shrinks = unpack_i64(&u);
		rs->nidle = unpack_count(&u, 1 << 26, 12, "idle GPUs");
		rs->idle_cell = xcalloc((size_t)rs->nidle + 1, sizeof *rs->idle_cell);
		rs->idle_t = xcalloc((size_t)rs->nidle + 1, sizeof *rs->idle_t);
		for (i = 0; i < rs->nidle && !u.failed; i++) {
			rs->idle_cell[i] = unpack_i32(&u);
			rs->idle_t[i] = unpack_f64(&u);
			if (!u.failed && (rs->idle_cell[i] < 0 || !(rs->idle_t[i] >= 0) ||
			    !(rs->idle_t[i] <= rs->now)))
				unpack_fail(&u, "idle GPU %d (cell %d, since %g) cannot be", i,
				    rs->idle_cell[i], rs->idle_t[i]);
		}
		if (!u.failed && (rs->grows < 0 || rs->shrinks < 0))
			unpack_fail(&u, "grow-shrink counts %lld %lld cannot be",
			    rs->grows, rs->shrinks);
	}
	for (i = 0; i < rs->nev && !u.failed; i++)
		if (rs->ev[i].kind == EV_SLICE && (rs->ev[i].arg < 0 ||
		    rs->ev[i].arg >= rs->ngrp))
			unpack_fail(&u, "event %d: a slice of group %d, of %d", i,
			    rs->ev[i].arg, rs->ngrp);
	if (!u.failed && (rs->njobs != njobs || rs->nfinal < 0 || rs->nfinal > njobs ||
	    rs->live < 0 || rs->nseries < 0 || rs->events < 0 || !isfinite(rs->now) ||
	    (rs->horizon != -INFINITY && rs->horizon != rs->now)))
		unpack_fail(&u, "counts or times do not fit %d jobs (%d jobs, %d completed, "
		    "%d live events, now %g, last tick %g)", njobs, rs->njobs, rs->nfinal,
		    rs->live, rs->now, rs->horizon);
	if (unpack_finish(&u, "run state", why, len) < 0)
		return -1;
	/* sequence numbers are unique */
	qsort(rs->ev, (size_t)rs->nev, sizeof *rs->ev, cmp_seq);
	for (i = 1; i < rs->nev; i++)
		if (rs->ev[i].seq == rs->ev[i - 1].seq) {
			bufprintf(why, len, "run state: two events with sequence %llu",
			    (unsigned long long)rs->ev[i].seq);
			return -1;
		}
	return 0;
}

/* Version 4's fields: those the mask names, the others as a fresh job's. */
static void
decode_fields(struct unpack *u, unsigned v, int job, struct ejob_state *x,
    int *failures, struct policy_key *key, int *klass, int ngpu, struct job *j)
{
	uint64_t mask = v >= 5 ? unpack_u64(u) : unpack_u32(u);
	int nf = v >= 8 ? JF_COUNT : v >= 7 ? JF_V7_COUNT : v >= 6 ? JF_V6_COUNT :
	    v >= 5 ? JF_V5_COUNT : JF_V4_COUNT, i;

	if (!u->failed && (mask >> nf) != 0) {
		unpack_fail(u, "field mask 0x%08llx names unknown fields",
		    (unsigned long long)mask);
		return;
	}
#define HAS(f)	((mask & (UINT64_C(1) << (f))) != 0)
	if (HAS(JF_VER)) x->ver = unpack_u32(u);
	if (HAS(JF_SINCE)) x->since = unpack_f64(u);
	if (HAS(JF_STALL)) x->stall_until = unpack_f64(u);
	if (HAS(JF_SPEED)) x->speed = unpack_f64(u);
	if (HAS(JF_COSTS)) x->costs = unpack_f64(u);
	if (HAS(JF_TARGET)) x->target = unpack_f64(u);
	if (HAS(JF_BY_WORK)) x->by_work = unpack_u8(u) != 0;
	if (HAS(JF_DONE)) x->done = unpack_i32(u);
	if (HAS(JF_FAILURES)) *failures = unpack_i32(u);
	if (HAS(JF_K0)) key->k[0] = unpack_f64(u);
	if (HAS(JF_K1)) key->k[1] = unpack_f64(u);
	if (HAS(JF_K2)) key->k[2] = unpack_f64(u);
	key->id = HAS(JF_KEY_ID) ? unpack_i32(u) : job;
	if (HAS(JF_CLASS)) *klass = unpack_i32(u);
	if (HAS(JF_GRP)) x->grp = unpack_i32(u);
	if (HAS(JF_GUEST)) x->guest = unpack_u8(u) != 0;
	if (HAS(JF_RR)) x->rr = unpack_i64(u);
	if (HAS(JF_ALONE)) x->alone = unpack_f64(u);
	if (HAS(JF_FACTOR)) x->factor = unpack_f64(u);
	if (HAS(JF_SHARE)) x->share = unpack_f64(u);
	if (HAS(JF_SWCOST)) x->swcost = unpack_f64(u);
	if (HAS(JF_MIGRATIONS)) x->migrations = unpack_i32(u);
	if (HAS(JF_MIGCOST)) x->migcost = unpack_f64(u);
	if (HAS(JF_FEEDBACK)) x->feedback = unpack_f64(u);
	if (HAS(JF_AM)) x->am = unpack_u8(u) != 0;
	if (HAS(JF_GPUS) && !u->failed) {
		x->ngpus = unpack_count(u, ngpu, 4, "GPUs");
		if (x->ngpus == 0 && !u->failed)
			unpack_fail(u, "an empty GPU list is not written");
		x->gpus = xcalloc((size_t)x->ngpus + 1, sizeof *x->gpus);
		for (i = 0; i < x->ngpus && !u->failed; i++)
			x->gpus[i] = unpack_i32(u);
	}
	if (HAS(JF_AM_SEQ)) x->am_seq = unpack_i64(u);
	if (HAS(JF_PHASE)) x->phase = unpack_i32(u);
	if (HAS(JF_C_BUSY)) x->c_busy = unpack_f64(u);
	if (HAS(JF_C_HOST)) x->c_host = unpack_f64(u);
	if (HAS(JF_C_LOST)) x->c_lost = unpack_f64(u);
	if (HAS(JF_EXTRA)) x->extra = unpack_i32(u);
	if (HAS(JF_GROW_AT)) x->grow_at = unpack_f64(u);
	if (HAS(JF_PROMO_ATT)) j->promo_attained = unpack_f64(u);
	if (HAS(JF_PROMO_WAIT)) j->promo_wait = unpack_f64(u);
	if (HAS(JF_PREEMPTED)) x->preempted = unpack_f64(u);
	if (HAS(JF_LENT)) x->lent = unpack_u8(u) != 0;
	if (HAS(JF_LENT_TIME)) x->lent_time = unpack_f64(u);
#undef HAS
}

/* One job's blob (empty: as emu_create left it). */
static int
decode_job(const struct emu_blob *b, int job, struct ejob_state *x, int *failures,
    struct policy_key *key, int *klass, int ngpu, struct job *j, char *why,
    size_t len)
{
	struct job scratch;
	struct unpack u;
	char what[64];
	unsigned v;
	int i;

	emu_js_init(x);
	*failures = 0;
	memset(key, 0, sizeof *key);
	key->id = job;
	*klass = 0;
	if (j == NULL)
		j = &scratch;
	j->promo_attained = j->promo_wait = 0;
	if (b == NULL || b->len == 0)
		return 0;
	unpack_init(&u, b->data, b->len);
	unpack_unseal(&u);
	if (((v = unpack_u8(&u)) < 1 || v > JOB_BLOB_VERSION) && !u.failed)
		unpack_fail(&u, "format version %u, this build reads 1 to %d", v,
		    JOB_BLOB_VERSION);
	if (v >= 4)
		decode_fields(&u, v, job, x, failures, key, klass, ngpu, j);
	else {
		x->ver = unpack_u32(&u);
		x->since = unpack_f64(&u);
		x->stall_until = unpack_f64(&u);
		x->speed = unpack_f64(&u);
		x->costs = unpack_f64(&u);
		x->target = unpack_f64(&u);
		x->by_work = unpack_u8(&u) != 0;
		x->done = unpack_i32(&u);
		*failures = unpack_i32(&u);
		key->k[0] = unpack_f64(&u);
		key->k[1] = unpack_f64(&u);
		key->k[2] = unpack_f64(&u);
		key->id = unpack_i32(&u);
		*klass = unpack_i32(&u);
	}
	if (v == 2 || v == 3) {
		x->grp = unpack_i32(&u);
		x->guest = unpack_u8(&u) != 0;
		x->rr = unpack_i64(&u);
		x->alone = unpack_f64(&u);
		x->factor = unpack_f64(&u);
		x->share = unpack_f64(&u);
		x->swcost = unpack_f64(&u);
		x->migrations = unpack_i32(&u);
		x->migcost = unpack_f64(&u);
		x->feedback = unpack_f64(&u);
	}
	if (v == 3 && !u.failed) {
		x->am = unpack_u8(&u) != 0;
		x->ngpus = unpack_count(&u, ngpu, 4, "GPUs");
		x->gpus = xcalloc((size_t)x->ngpus + 1, sizeof *x->gpus);
		for (i = 0; i < x->ngpus && !u.failed; i++)
			x->gpus[i] = unpack_i32(&u);
		x->am_seq = unpack_i64(&u);
		x->phase = unpack_i32(&u);
		x->c_busy = unpack_f64(&u);
		x->c_host = unpack_f64(&u);
		x->c_lost = unpack_f64(&u);
	}
	/* every version: a fresh job's defaults pass these */
	if (!u.failed && (x->grp < -1 || (x->guest && x->grp < 0) ||
	    !(x->alone >= 0) || !(x->factor >= 0) || !(x->share >= 0) ||
	    !(x->share <= 1) || !isfinite(x->swcost) || x->migrations < 0 ||
	    !isfinite(x->migcost) || !isfinite(x->feedback)))
		unpack_fail(&u, "sharing state (group %d, guest %d, factor %g, "
		    "share %g) cannot be", x->grp, x->guest, x->factor, x->share);
	if (!u.failed && (x->extra < 0 || x->extra > (1 << 20) ||
	    !(x->grow_at >= -1) || !isfinite(x->grow_at)))
		unpack_fail(&u, "grow-shrink state (%d extra GPUs, wake-up at %g) "
		    "cannot be", x->extra, x->grow_at);
	if (!u.failed && (!(j->promo_attained >= 0) || !isfinite(j->promo_attained) ||
	    !(j->promo_wait >= -1) || !isfinite(j->promo_wait)))
		unpack_fail(&u, "promotion state (service from %g, wait from %g) "
		    "cannot be", j->promo_attained, j->promo_wait);
	for (i = 0; i < x->ngpus && !u.failed; i++)
		if (x->gpus[i] < 0 || x->gpus[i] >= ngpu)
			unpack_fail(&u, "GPU %d of %d cannot be", x->gpus[i], ngpu);
	if (!u.failed && ((x->am && x->ngpus == 0) || (x->am && x->guest) ||
	    x->phase < 0 || x->phase >= model_nphases || !isfinite(x->c_busy) ||
	    !isfinite(x->c_host) || !isfinite(x->c_lost)))
		unpack_fail(&u, "AntMan state (guest %d, %d GPUs, phase %d) cannot be",
		    x->am, x->ngpus, x->phase);
	if (!u.failed && (!(x->lent_time >= 0) || !isfinite(x->lent_time)))
		unpack_fail(&u, "borrowing state (%g s borrowed) cannot be",
		    x->lent_time);
	if (!u.failed && (x->done < 0 || *failures < 0 || key->id != job ||
	    !isfinite(x->since) || !isfinite(x->stall_until) || !isfinite(x->costs) ||
	    !(x->preempted >= 0) || !isfinite(x->preempted) ||
	    !(x->speed >= 0) || !isfinite(x->speed) || x->target != x->target))
		unpack_fail(&u, "completion %d, failures %d, key of job %d, clocks %g %g, "
		    "speed %g", x->done, *failures, key->id, x->since, x->stall_until,
		    x->speed);
	bufprintf(what, sizeof what, "job %d state", job);
	return unpack_finish(&u, what, why, len);
}

int
emu_job_saved_key(const struct emu_blob *b, int job, struct policy_key *key,
    int *klass, char *why, size_t len)
{
	struct ejob_state x;
	int failures, rc;

	/* no spec here: any GPU index a blob of this size can hold is taken */
	rc = decode_job(b, job, &x, &failures, key, klass, INT32_MAX / 8, NULL,
	    why, len);
	free(x.gpus);
	return rc;
}

/* Health of each spec node at the last tick: fault events up to it, in order. */
static void
restore_health(struct emu *m)
{
	struct ev *fe = xcalloc((size_t)m->nfault_ev + 1, sizeof *fe);
	signed char *st = xcalloc((size_t)m->s->nnodes + 1, 1);
	int i, node;

	emu_fault_events(&m->par, fe, (uint64_t)m->njobs);
	/* (t, seq) order: a later event for the same node wins */
	for (i = 0; i < m->nfault_ev; i++) {
		int k, best = -1;
		for (k = 0; k < m->nfault_ev; k++)
			if (fe[k].kind >= 0 && (best < 0 || emu_ev_before(&fe[k], &fe[best])))
				best = k;
		if (!(fe[best].t <= m->horizon))
			break;
		node = spec_find_node(m->s, m->par.faults[fe[best].arg].node);
		if (node >= 0)
			st[node] = fe[best].kind == EV_NODE_BAD ? 1 : 0;
		fe[best].kind = -1;
	}
	for (i = 0; i < m->s->nnodes; i++)
		if (st[i] == 1)
			engine_node_set_bad(m->e, m->s->nodes[i].name, true, NULL, 0);
	free(fe);
	free(st);
}

struct done_order {
	int		 job;
	int		 done;
};

static int
cmp_done_order(const void *a, const void *b)
{
	const struct done_order *x = a, *y = b;

	return (x->done > y->done) - (x->done < y->done);
}

/* The jobs as stored: plain facts first, before anything is built. */
static int
check_jobs(const struct spec *s, const struct job *jobs, int njobs, char **cause)
{
	int i;

	for (i = 0; i < njobs; i++) {
		const struct job *j = &jobs[i];
		if (j->id != i || j->vc < 0 || j->vc >= s->nvcs || j->gpus <= 0 ||
		    j->nmembers < 1 || j->nmembers > ENGINE_MAX_MEMBERS ||
		    (unsigned)j->state >= JOB_NSTATES || !(j->submit >= 0) ||
		    (job_holds_cells(j) ? j->engine_id < -1 || j->engine_id >= s->gpus :
		    j->engine_id != -1)) {
			*cause = xasprintf("job '%.64s' (index %d) is not a job this "
			    "emulator could have", j->name, i);
			return -1;
		}
	}
	return 0;
}

/* The jobs' emulator state and cached keys from their blobs; the clock. */
static int
restore_jobs(struct emu *m, const struct emu_saved *sv, const struct emu_run_state *rs,
    struct policy_key *keys, int *klass, char *why, size_t len)
{
	int i;

	if (rs->nfaults != m->par.nfaults || rs->nseries != sv->nseries ||
	    (sv->nseries > 0 && sv->series == NULL) || (sv->nplacements > 0 &&
	    sv->placements == NULL) || rs->seq < (uint64_t)m->njobs + (uint64_t)m->nfault_ev) {
		bufprintf(why, len, "run state: %d faults and %d samples, given %d "
		    "and %d", rs->nfaults, rs->nseries, m->par.nfaults, sv->nseries);
		return -1;
	}
	for (i = 0; i < m->njobs; i++)
		if (decode_job(sv->job_state != NULL ? &sv->job_state[i] : NULL, i, &m->js[i],
		    &m->failures[i], &keys[i], &klass[i], m->am.on ? m->am.ngpu : 0,
		    &m->jobs[i], why, len) < 0)
			return -1;
	m->now = rs->now;
	m->horizon = rs->horizon;
	return 0;
}

/* The engine (created): placements, then marks, then bad nodes. */
static int
restore_engine(struct emu *m, const struct emu_saved *sv, const struct emu_run_state *rs,
    char *why, size_t len)
{
	const struct spec *s = m->s;
	const struct job *jobs = m->jobs;
	int *by_eid = xcalloc((size_t)s->gpus + 1, sizeof *by_eid), i, njob_holding = 0;
	int rc = -1;
	struct engine_placement plb;

	for (i = 0; i < m->njobs; i++)
		if (job_holds_cells(&jobs[i]) && jobs[i].engine_id >= 0) {
			if (by_eid[jobs[i].engine_id] != 0) {
				bufprintf(why, len, "jobs '%s' and '%s' hold engine job %d",
				    jobs[by_eid[jobs[i].engine_id] - 1].name, jobs[i].name,
				    jobs[i].engine_id);
				goto out;
			}
			by_eid[jobs[i].engine_id] = i + 1;
			njob_holding++;
		}
	if (sv->nplacements != njob_holding) {
		bufprintf(why, len, "%d placements for %d jobs holding cells",
		    sv->nplacements, njob_holding);
		goto out;
	}
	for (i = 0; i < sv->nplacements; i++) {
		const struct engine_placement *pl = &sv->placements[i];
		int job = pl->id >= 0 && pl->id < s->gpus ? by_eid[pl->id] - 1 : -1;
		if (job < 0 || pl->name == NULL || strcmp(pl->name, jobs[job].name) != 0) {
			bufprintf(why, len, "placement %d (engine job %d, '%.64s') "
			    "belongs to no job holding cells", i, pl->id,
			    pl->name != NULL ? pl->name : "");
			goto out;
		}
		/* the store's placement does not say borrowed: the job blob does */
		plb = *pl;
		plb.borrowed = m->js[job].lent;
		if (engine_restore_job(m->e, &plb, why, len) < 0)
			goto out;
	}
	for (i = 0; i < rs->nmarks; i++)
		if (engine_restore_mark(m->e, &rs->marks[i], why, len) < 0)
			goto out;
	restore_health(m);
	engine_stats_restore(m->e, &rs->es);
	rc = 0;
out:
	free(by_eid);
	return rc;
}

/* The scheduler (created), from the cached keys; its domains and counts. */
static int
restore_sched(struct emu *m, const struct emu_run_state *rs, const struct policy_key *keys,
    const int *klass, char *why, size_t len)
{
	int i, rc;
	bool arrived;

	for (i = 0; i < m->njobs; i++) {
		const struct job *j = &m->jobs[i];
		arrived = j->submit <= m->horizon;
		if (arrived != (m->js[i].ver > 0)) {
			bufprintf(why, len, "job '%s' submitted at %g has %s events "
			    "at the last tick (%g)", j->name, j->submit,
			    arrived ? "no" : "had", m->horizon);
			return -1;
		}
		if (!arrived && (j->state != JOB_PENDING || j->first_start >= 0 ||
		    j->restarts > 0 || m->js[i].done > 0)) {
			bufprintf(why, len, "job '%s' is not submitted yet but %s",
			    j->name, job_state_name(j->state));
			return -1;
		}
		if (arrived && !(j->state_since <= m->now)) {
			bufprintf(why, len, "job '%s' changed at %g, after the last "
			    "tick (%g)", j->name, j->state_since, m->now);
			return -1;
		}
		if (arrived && j->state == JOB_PENDING)
			rc = sched_restore_pending(m->sch, i, &keys[i], klass[i], why, len);
		else if (job_holds_cells(j) && !m->js[i].guest && !m->js[i].am)
			rc = sched_restore_running(m->sch, i, &keys[i], klass[i], why, len);
		else
			rc = sched_restore_key(m->sch, i, &keys[i], klass[i], why, len);
		if (rc < 0)
			return -1;
	}
	if (rs->ndoms != sched_domains(m->sch)) {
		bufprintf(why, len, "run state: %d scheduler domains, %d here",
		    rs->ndoms, sched_domains(m->sch));
		return -1;
	}
	for (i = 0; i < rs->ndoms; i++)
		sched_set_domain_dirty(m->sch, i, rs->dirty[i]);
	sched_stats_restore(m->sch, &rs->ss);
	emu_sched_hooks(m);
	return 0;
}

/* The events: arrivals and faults still ahead, then the stored ones; the
   run's counters and its series. */
static int
restore_events(struct emu *m, const struct emu_saved *sv, const struct emu_run_state *rs,
    char *why, size_t len)
{
	struct ev *fe;
	int i;

	for (i = 0; i < m->njobs; i++)
		if (!(m->jobs[i].submit <= m->horizon)) {
			struct ev x = { m->jobs[i].submit, (uint64_t)i, EV_ARRIVE, i, 0 };
			emu_ev_insert(m, &x);
		}
	fe = xcalloc((size_t)m->nfault_ev + 1, sizeof *fe);
	emu_fault_events(&m->par, fe, (uint64_t)m->njobs);
	for (i = 0; i < m->nfault_ev; i++)
		if (!(fe[i].t <= m->horizon))
			emu_ev_insert(m, &fe[i]);
	free(fe);
	for (i = 0; i < rs->nev; i++) {
		if (rs->ev[i].seq < (uint64_t)m->njobs + (uint64_t)m->nfault_ev) {
			bufprintf(why, len, "run state: event sequence %llu belongs to "
			    "an arrival or a fault", (unsigned long long)rs->ev[i].seq);
			return -1;
		}
		emu_ev_insert(m, &rs->ev[i]);
	}
	if (m->live != rs->live) {
		bufprintf(why, len, "run state: %d live events, the heap has %d",
		    rs->live, m->live);
		return -1;
	}
	m->seq = rs->seq;
	m->events = rs->events;
	m->next_progress = rs->next_progress;
	m->nfinal = rs->nfinal;
	m->busy_since = rs->busy_since;
	m->busy_gpu_time = rs->busy_gpu_time;
	m->first_submit = rs->first_submit;
	m->win_busy = rs->win_busy;
	m->win_sm = rs->win_sm;
	m->last_end = rs->last_end;
	if (sv->nseries > 0) {
		m->series = xcalloc((size_t)sv->nseries, sizeof *m->series);
		memcpy(m->series, sv->series, (size_t)sv->nseries * sizeof *m->series);
		m->nseries = sv->nseries;
		m->series_cap = (size_t)sv->nseries;
	}
	return 0;
}

/* What learning policies saw: the completions, replayed in their order. */
static int
restore_completions(struct emu *m, char *why, size_t len)
{
	struct done_order *order = xcalloc((size_t)m->njobs + 1, sizeof *order);
	const struct job *jobs = m->jobs;
	int i, k, rc = -1;

	for (k = 0, i = 0; i < m->njobs; i++) {
		if ((jobs[i].state == JOB_COMPLETED) != (m->js[i].done > 0)) {
			bufprintf(why, len, "job '%s' is %s with completion %d",
			    jobs[i].name, job_state_name(jobs[i].state), m->js[i].done);
			goto out;
		}
		if (m->js[i].done > 0) {
			order[k].job = i;
			order[k].done = m->js[i].done;
			k++;
		}
	}
	qsort(order, (size_t)k, sizeof *order, cmp_done_order);
	for (i = 0; i < k; i++)
		if (order[i].done != i + 1) {
			bufprintf(why, len, "completions are not 1..%d: job '%s' has %d",
			    k, jobs[order[i].job].name, order[i].done);
			goto out;
		}
	if (k != m->nfinal) {
		bufprintf(why, len, "run state: %d completed, %d jobs are", m->nfinal, k);
		goto out;
	}
	if (m->p->ops->done != NULL)
		for (i = 0; i < k; i++)
			m->p->ops->done((struct policy *)m->p, &m->jobs[order[i].job]);
	rc = 0;
out:
	free(order);
	return rc;
}

/*
 * The phases, in order: the jobs' facts, the run blob, the jobs' state,
 * the engine, the scheduler, the events, the completions, then each
 * mechanism's restore hook; last the invariants of all three.
 */
struct emu *
emu_restore(const struct spec *s, enum engine_mode mode, const struct policy *p,
    const struct emu_params *par, struct job *jobs, int njobs, const struct emu_saved *sv,
    char **cause)
{
	struct emu_run_state rs;
	struct emu *m = NULL;
	struct policy_key *keys = NULL;
	int *klass = NULL, i;
	char why[512];

	if (check_jobs(s, jobs, njobs, cause) < 0)
		return NULL;
	if (decode_run(&sv->run, njobs, &rs, why, sizeof why) < 0) {
		*cause = xstrdup(why);
		run_state_release(&rs);
		return NULL;
	}
	m = emu_alloc(s, p, par, jobs, njobs);
	m->nfault_ev = emu_fault_events(par, NULL, 0);
	keys = xcalloc((size_t)njobs + 1, sizeof *keys);
	klass = xcalloc((size_t)njobs + 1, sizeof *klass);
	if (restore_jobs(m, sv, &rs, keys, klass, why, sizeof why) < 0)
		goto fail;
	m->e = engine_create(s, mode, cause);
	if (m->e == NULL || (par->static_binding && engine_bind_static(m->e, cause) < 0) ||
	    (par->borrow && mode == ENGINE_QUOTA && engine_set_borrow(m->e, cause) < 0)) {
		emu_free(m);
		run_state_release(&rs);
		free(keys);
		free(klass);
		return NULL;
	}
	m->lend = engine_borrow(m->e);
	if (restore_engine(m, sv, &rs, why, sizeof why) < 0)
		goto fail;
	m->sch = sched_create(m->e, p, jobs, njobs);
	if (restore_sched(m, &rs, keys, klass, why, sizeof why) < 0 ||
	    restore_events(m, sv, &rs, why, sizeof why) < 0 ||
	    restore_completions(m, why, sizeof why) < 0)
		goto fail;
	for (i = 0; emu_mechs[i] != NULL; i++)
		if (emu_mechs[i]->restore != NULL &&
		    emu_mechs[i]->restore(m, &rs, why, sizeof why) < 0)
			goto fail;
	if (!emu_check(m, why, sizeof why) || !engine_check(m->e, why, sizeof why) ||
	    !sched_check(m->sch, why, sizeof why))
		goto fail;
	run_state_release(&rs);
	free(keys);
	free(klass);
	return m;
fail:
	*cause = xasprintf("cannot restore the emulator: %s", why);
	run_state_release(&rs);
	free(keys);
	free(klass);
	emu_free(m);
	return NULL;
}
