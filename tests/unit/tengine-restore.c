/*
 * tengine-restore.c — crash recovery of the engine: random alloc, release,
 * re-prioritize and node bad/ok sequences on the shipped specs and the
 * HiveD example configs, in every sharing mode; at random points every
 * placement, bad mark and bad node is copied out, a fresh engine is built
 * from the copies (jobs in a shuffled order), and the complete observable
 * state must be the same: every cell, every VC's usage, free and owed
 * cells per chain and level, every job with its virtual leaves, the marks
 * and the counters. Then the same operations go to both engines, with the
 * same results, and the states are compared again. Corrupt placements
 * (overlapping leaves, bad ids, the wrong VC, broken pods, bindings that
 * break Theorem 1...) must fail with a message and change nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine.h"
#include "spec/spec.h"
#include "test.h"

static const char *const files[] = {
	"specs/default.yaml",
	"specs/hived-fig3.yaml",
	"specs/tiresias-n2g4.yaml",
	"specs/tiresias-n32g4.yaml",
	"specs/philly.yaml",
	"tests/fixtures/hived-configs/basic.yaml",
	"tests/fixtures/hived-configs/design.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-1.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-2.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-3.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-33.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-4.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-5.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-6.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-7.yaml",
	"tests/fixtures/hived-configs/feature-hived-config-8.yaml",
};

static unsigned long long rng;
/* Comparisons of two engines: failed ones are counted, and checked unless
   quiet (test_marks_needed expects them). */
static int diverged;
static bool quiet;

#define AGREE(cond, ...) do {						\
	if (!(cond)) {							\
		diverged++;						\
		if (!quiet)						\
			CHECKF(cond, __VA_ARGS__);			\
	} else								\
		CHECK(true);						\
} while (0)

static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 17);
}
#define RND(n) ((int)(xr() % (unsigned)(n)))

/* ---- the complete observable state, as text ---- */

static void
dump(const struct engine *e, struct strbuf *sb)
{
	const struct spec *s = engine_spec(e);
	struct engine_cell_info ci;
	struct engine_vc_usage u;
	struct engine_placement pl;
	struct engine_stats st;
	struct engine_mark *mk;
	int c, v, l, j, k, n;

	strbuf_reset(sb);
	for (c = 0; c < s->ncells; c++) {
		engine_cell(e, c, &ci);
		strbuf_addf(sb, "cell %d %s vc=%d doomed=%d pinned=%d leaves=%d used=%d "
		    "opp=%d bad=%d job=%d prio=%d\n", c, engine_cell_state_name(ci.state),
		    ci.vc, ci.doomed, ci.pinned, ci.leaves, ci.used, ci.opp, ci.bad, ci.job,
		    ci.priority);
	}
	for (v = 0; v < s->nvcs; v++) {
		engine_vc_usage(e, v, &u);
		strbuf_addf(sb, "vc %d gpus=%lld used=%lld bad=%lld free=%lld opp=%lld "
		    "jobs=%d opp_jobs=%d doomed=%d", v, u.gpus, u.used, u.bad, u.free, u.opp,
		    u.jobs, u.opp_jobs, u.doomed);
		for (l = 0; l <= SPEC_MAX_LEVELS; l++)
			strbuf_addf(sb, " %d/%d", u.assigned[l], u.bound[l]);
		strbuf_addc(sb, '\n');
	}
	for (c = 0; c < s->nchains; c++)
		for (l = 1; l <= s->chains[c].levels; l++)
			strbuf_addf(sb, "chain %d level %d free=%lld owed=%lld\n", c, l,
			    engine_free_cells(e, c, l), engine_owed_cells(e, c, l));
	for (j = 0; j < engine_job_limit(e); j++) {
		if (!engine_job_placement(e, j, &pl))
			continue;
		strbuf_addf(sb, "job %d '%s' vc=%d prio=%d/%d lazy=%d down=%d chain=%d "
		    "pin=%d pods=%d:", pl.id, pl.name, pl.vc, pl.priority, pl.orig_priority,
		    pl.lazy, pl.downgraded, pl.chain, pl.pin, pl.npods);
		for (k = 0; k <= pl.npods; k++)
			strbuf_addf(sb, " %d", pl.pod_first[k]);
		strbuf_adds(sb, " leaves:");
		for (k = 0; k < pl.nleaves; k++)
			strbuf_addf(sb, " %d", pl.leaves[k]);
		strbuf_addf(sb, " vleaves:%s", pl.vleaves ? "" : " none");
		for (k = 0; pl.vleaves && k < pl.nleaves; k++)
			strbuf_addf(sb, " %d", pl.vleaves[k]);
		strbuf_addc(sb, '\n');
	}
	n = engine_marks(e, NULL, 0);
	mk = xcalloc((size_t)n + 1, sizeof *mk);
	CHECK(engine_marks(e, mk, n) == n);
	for (k = 0; k < n; k++)
		strbuf_addf(sb, "mark %d -> %d\n", mk[k].vleaf, mk[k].leaf);
	free(mk);
	engine_stats(e, &st);
	strbuf_addf(sb, "stats gpus=%lld used=%lld opp=%lld bad=%lld jobs=%d opp_jobs=%d "
	    "binds=%lld unbinds=%lld splits=%lld merges=%lld\n", st.gpus, st.used, st.opp,
	    st.bad, st.jobs, st.opp_jobs, st.binds, st.unbinds, st.splits, st.merges);
}

/* Equal dumps, or a check that names the first line that differs. */
static bool
same(const struct strbuf *a, const struct strbuf *b, const char *what)
{
	size_t i = 0, ls = 0;

	if (a->len == b->len && memcmp(a->buf, b->buf, a->len) == 0) {
		CHECK(true);
		return true;
	}
	while (i < a->len && i < b->len && a->buf[i] == b->buf[i])
		if (a->buf[i++] == '\n')
			ls = i;
	diverged++;
	if (!quiet)
		CHECKF(0, "%s: states differ at '%.*s' vs '%.*s'", what,
	    (int)strcspn(a->buf + ls, "\n"), a->buf + ls,
	    (int)strcspn(b->buf + ls, "\n"), b->buf + ls);
	return false;
}

/* ---- saved state: deep copies of what the store keeps ---- */

struct saved_job {
	struct engine_placement	 pl;
	char			 name[64];
	int			*pod_first, *leaves, *vleaves;
};

struct saved {
	struct saved_job	*jobs;
	int			 njobs;
	struct engine_mark	*marks;
	int			 nmarks;
	bool			*bad;		/* per node */
	struct engine_stats	 st;
};

static void
save(const struct engine *e, const bool *bad, struct saved *sv)
{
	const struct spec *s = engine_spec(e);
	struct engine_placement pl;
	int j, n;

	memset(sv, 0, sizeof *sv);
	sv->jobs = xcalloc((size_t)engine_job_limit(e) + 1, sizeof *sv->jobs);
	for (j = 0; j < engine_job_limit(e); j++) {
		struct saved_job *x = &sv->jobs[sv->njobs];
		size_t nl;
		if (!engine_job_placement(e, j, &pl))
			continue;
		nl = (size_t)pl.nleaves;
		x->pl = pl;
		snprintf(x->name, sizeof x->name, "%s", pl.name);
		x->pod_first = xcalloc((size_t)pl.npods + 1, sizeof(int));
		memcpy(x->pod_first, pl.pod_first, ((size_t)pl.npods + 1) * sizeof(int));
		x->leaves = xcalloc(nl, sizeof(int));
		memcpy(x->leaves, pl.leaves, nl * sizeof(int));
		if (pl.vleaves != NULL) {
			x->vleaves = xcalloc(nl, sizeof(int));
			memcpy(x->vleaves, pl.vleaves, nl * sizeof(int));
		}
		x->pl.name = x->name;
		x->pl.pod_first = x->pod_first;
		x->pl.leaves = x->leaves;
		x->pl.vleaves = x->vleaves;
		sv->njobs++;
	}
	n = engine_marks(e, NULL, 0);
	sv->marks = xcalloc((size_t)n + 1, sizeof *sv->marks);
	sv->nmarks = engine_marks(e, sv->marks, n);
	sv->bad = xcalloc((size_t)s->nnodes + 1, sizeof *sv->bad);
	memcpy(sv->bad, bad, (size_t)s->nnodes * sizeof *bad);
	engine_stats(e, &sv->st);
}

static void
saved_free(struct saved *sv)
{
	int i;

	for (i = 0; i < sv->njobs; i++) {
		free(sv->jobs[i].pod_first);
		free(sv->jobs[i].leaves);
		free(sv->jobs[i].vleaves);
	}
	free(sv->jobs);
	free(sv->marks);
	free(sv->bad);
}

/* A fresh engine from saved state: jobs in a shuffled order. */
static struct engine *
restore(const struct spec *s, enum engine_mode mode, const struct saved *sv, bool marks)
{
	struct engine *e;
	char *cause = NULL, why[256];
	int *order, i, k, t, n;

	e = engine_create(s, mode, &cause);
	if (e == NULL) {
		CHECKF(0, "engine_create: %s", cause);
		free(cause);
		return NULL;
	}
	order = xcalloc((size_t)sv->njobs + 1, sizeof *order);
	for (i = 0; i < sv->njobs; i++)
		order[i] = i;
	for (i = sv->njobs - 1; i > 0; i--) {
		k = RND(i + 1);
		t = order[i];
		order[i] = order[k];
		order[k] = t;
	}
	for (i = 0; i < sv->njobs; i++)
		CHECKF(engine_restore_job(e, &sv->jobs[order[i]].pl, why, sizeof why) == 0,
		    "restore '%s': %s", sv->jobs[order[i]].name, why);
	for (i = 0; marks && i < sv->nmarks; i++)
		CHECKF(engine_restore_mark(e, &sv->marks[i], why, sizeof why) == 0,
		    "restore mark: %s", why);
	for (i = 0; i < s->nnodes; i++)
		if (sv->bad[i]) {
			n = engine_node_set_bad(e, s->nodes[i].name, true, NULL, 0);
			CHECK(n >= 0);
		}
	engine_stats_restore(e, &sv->st);
	CHECKF(engine_check(e, why, sizeof why), "%s", why);
	free(order);
	return e;
}

/* ---- random operations, applied identically to one or two engines ---- */

struct world {
	const struct spec	*s;
	enum engine_mode	 mode;
	bool			*bad;		/* per node */
	int			 seq;		/* job names */
	int			 maxpod;	/* largest pod size worth asking */
};

/* One random operation on e (and e2 when not NULL): same results. */
static void
step(struct world *w, struct engine *e, struct engine *e2)
{
	const struct spec *s = w->s;
	static const int gsz[] = { 1, 1, 1, 2, 4, 8, 16 };
	struct engine_plan p, p2;
	struct engine_req r;
	struct engine_job_info info;
	char name[32];
	int op = RND(100), id, id2, k, a[64], b[64], na, nb, lim, tries;

	if (op < 62) {
		memset(&r, 0, sizeof r);
		snprintf(name, sizeof name, "j%d", w->seq++);
		r.name = name;
		r.vc = RND(s->nvcs);
		r.priority = RND(4) == 0 ? ENGINE_PRIO_OPPORTUNISTIC : RND(4);
		r.leaf_type = -1;
		r.pin = -1;
		r.lazy = r.priority <= 1 || RND(2);
		if (w->mode != ENGINE_QUOTA && r.priority >= 0 && s->vcs[r.vc].npins > 0 &&
		    RND(5) == 0)
			r.pin = s->vcs[r.vc].pins[RND(s->vcs[r.vc].npins)];
		r.nmembers = 1 + (RND(6) == 0);
		for (k = 0; k < r.nmembers; k++) {
			do
				r.members[k].gpus = gsz[RND(7)];
			while (r.members[k].gpus > w->maxpod);
			r.members[k].pods = 1 + (RND(4) == 0);
		}
		engine_plan_init(&p);
		engine_plan_init(&p2);
		id = engine_alloc(e, &r, &p);
		if (e2 != NULL) {
			id2 = engine_alloc(e2, &r, &p2);
			AGREE(id == id2 && p.fail == p2.fail && p.nleaves == p2.nleaves &&
			    p.nvictims == p2.nvictims && (p.nleaves == 0 ||
			    memcmp(p.leaves, p2.leaves, (size_t)p.nleaves * sizeof(int)) == 0),
			    "alloc '%s': %d (%.100s) vs %d (%.100s)", name, id, p.why, id2, p2.why);
			for (k = 0; k < p.nvictims && k < p2.nvictims; k++)
				AGREE(p.victims[k].job == p2.victims[k].job &&
				    p.victims[k].kind == p2.victims[k].kind, "victim %d", k);
		}
		engine_plan_release(&p);
		engine_plan_release(&p2);
	} else if (op < 78) {
		lim = engine_job_limit(e);
		for (tries = 0; tries < 8; tries++) {
			id = RND(lim > 0 ? lim : 1);
			if (engine_job(e, id, &info))
				break;
		}
		k = engine_release(e, id);
		if (e2 != NULL)
			AGREE(engine_release(e2, id) == k, "release %d", id);
	} else if (op < 92) {
		lim = engine_job_limit(e);
		id = RND(lim > 0 ? lim : 1);
		k = RND(4);
		id2 = engine_job_set_priority(e, id, k);
		if (e2 != NULL)
			AGREE(engine_job_set_priority(e2, id, k) == id2, "priority of %d", id);
	} else if (s->nnodes > 0) {
		int n = RND(s->nnodes);
		/* keep most nodes healthy: recover more often than fail */
		bool bad = !w->bad[n] && RND(3) != 0;
		w->bad[n] = bad;
		na = engine_node_set_bad(e, s->nodes[n].name, bad, a, 64);
		if (e2 != NULL) {
			nb = engine_node_set_bad(e2, s->nodes[n].name, bad, b, 64);
			AGREE(na == nb && memcmp(a, b, (size_t)(na < 64 ? na : 64) *
			    sizeof(int)) == 0, "node '%s' %s: %d vs %d affected",
			    s->nodes[n].name, bad ? "bad" : "ok", na, nb);
		}
	}
}

/*
 * On one spec and mode: nops random operations; every so often save,
 * restore, compare, and run both engines on for a while. Returns the
 * number of marks seen at the save points (to know the test saw some).
 */
static int
churn(const char *file, const struct spec *s, enum engine_mode mode, int nops, bool marks)
{
	struct world w = { 0 };
	struct strbuf da = STRBUF_INIT, db = STRBUF_INIT;
	struct saved sv;
	struct engine *e, *e2;
	char *cause = NULL, what[256];
	int i, k, nmarks = 0, c;

	memset(&w, 0, sizeof w);
	w.s = s;
	w.mode = mode;
	w.bad = xcalloc((size_t)s->nnodes + 1, sizeof *w.bad);
	w.maxpod = 1;
	for (c = 0; c < s->ncells; c++)
		if (s->cells[c].node >= 0 && s->cells[c].level > 1) {
			long long g = spec_units(s, s->cells[c].chain, s->cells[c].level, 1);
			if (g > w.maxpod && g <= 16)
				w.maxpod = (int)g;
		}
	e = engine_create(s, mode, &cause);
	CHECKF(e != NULL, "%s: %s", file, cause);
	if (e == NULL) {
		free(cause);
		free(w.bad);
		return 0;
	}
	for (i = 0; i < nops; i++) {
		step(&w, e, NULL);
		if (RND(nops / 6 + 1) != 0)
			continue;
		save(e, w.bad, &sv);
		nmarks += sv.nmarks;
		e2 = restore(s, mode, &sv, marks);
		saved_free(&sv);
		if (e2 == NULL)
			break;
		snprintf(what, sizeof what, "%s %s op %d", file, engine_mode_name(mode), i);
		dump(e, &da);
		dump(e2, &db);
		same(&da, &db, what);
		for (k = 0; k < 60; k++)
			step(&w, e, e2);
		dump(e, &da);
		dump(e2, &db);
		snprintf(what, sizeof what, "%s %s op %d + 60", file, engine_mode_name(mode), i);
		same(&da, &db, what);
		engine_free(e2);
	}
	engine_free(e);
	strbuf_release(&da);
	strbuf_release(&db);
	free(w.bad);
	return nmarks;
}

static void
test_random(void)
{
	size_t f;
	int m, marks = 0;

	rng = 0x9e3779b97f4a7c15ULL;
	diverged = 0;
	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		struct spec *s = spec_load(files[f], NULL);
		CHECKF(s != NULL, "%s does not load", files[f]);
		if (s == NULL)
			continue;
		for (m = ENGINE_HIVED; m <= ENGINE_PRIVATE; m++)
			marks += churn(files[f], s, (enum engine_mode)m,
			    (test_long ? 6000 : 600) / (s->gpus > 1000 ? 3 : 1), true);
		spec_free(s);
	}
	CHECK_INTEQ(diverged, 0);
	/* the bad-mark path must have been exercised */
	CHECKF(marks > 20, "only %d marks at the save points", marks);
}

/*
 * Without the marks, bad nodes re-marked after the jobs pick their
 * virtual leaves afresh, and some of them differ: the marks are needed.
 */
static void
test_marks_needed(void)
{
	struct spec *s = spec_load("specs/default.yaml", NULL);

	CHECK(s != NULL);
	if (s == NULL)
		return;
	rng = 0x2545f4914f6cdd1dULL;
	diverged = 0;
	quiet = true;
	(void)churn("specs/default.yaml", s, ENGINE_HIVED, 2000, false);
	quiet = false;
	CHECKF(diverged > 0, "no difference without the marks in 2000 operations");
	spec_free(s);
}

/*
 * A lazily preempted job runs on, downgraded, outside its VC's cells: its
 * placement has no virtual leaves and a priority of -1 over the one it
 * asked for. Restored, and run on with random operations, it must match.
 */
static void
test_downgraded(void)
{
	struct spec *s = spec_load("specs/hived-fig3.yaml", NULL);
	struct strbuf da = STRBUF_INIT, db = STRBUF_INIT;
	struct engine *e, *e2;
	struct engine_plan p;
	struct engine_req r;
	struct engine_placement pl;
	struct world w;
	struct saved sv;
	char *cause = NULL;
	int low, k;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	memset(&r, 0, sizeof r);
	r.vc = spec_find_vc(s, "C");
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	r.name = "low";
	r.priority = 1;
	r.lazy = true;
	r.members[0].pods = 1;
	r.members[0].gpus = 8;
	low = engine_alloc(e, &r, &p);
	CHECK(low >= 0);
	r.name = "high";
	r.priority = 9;
	r.lazy = false;
	r.members[0].pods = 2;
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(p.nvictims == 1 && p.victims[0].kind == ENGINE_VICTIM_LAZY);
	engine_plan_release(&p);
	CHECK(engine_job_placement(e, low, &pl) && pl.downgraded && pl.priority == -1 &&
	    pl.orig_priority == 1 && pl.vleaves == NULL);
	memset(&w, 0, sizeof w);
	w.s = s;
	w.mode = ENGINE_HIVED;
	w.bad = xcalloc((size_t)s->nnodes + 1, sizeof *w.bad);
	w.maxpod = 8;
	save(e, w.bad, &sv);
	e2 = restore(s, ENGINE_HIVED, &sv, true);
	saved_free(&sv);
	dump(e, &da);
	dump(e2, &db);
	same(&da, &db, "downgraded");
	rng = 0x1234567;
	for (k = 0; k < 300; k++)
		step(&w, e, e2);
	dump(e, &da);
	dump(e2, &db);
	same(&da, &db, "downgraded + 300");
	engine_free(e);
	engine_free(e2);
	free(w.bad);
	strbuf_release(&da);
	strbuf_release(&db);
	spec_free(s);
}

/* ---- corrupt input ---- */

static const char tiny[] =
    "physicalCluster:\n"
    "  cellTypes:\n"
    "    NODE: {childCellType: GPU, childCellNumber: 2, isNodeLevel: true}\n"
    "    RACK: {childCellType: NODE, childCellNumber: 2}\n"
    "  physicalCells:\n"
    "  - {cellType: RACK, cellAddress: r0, cellChildren: [{cellAddress: n0}, "
    "{cellAddress: n1}]}\n"
    "  - {cellType: RACK, cellAddress: r1, cellChildren: [{cellAddress: n2}, "
    "{cellAddress: n3}]}\n"
    "virtualClusters:\n"
    "  A:\n"
    "    virtualCells:\n"
    "    - {cellType: RACK, cellNumber: 1}\n"
    "  B:\n"
    "    virtualCells:\n"
    "    - {cellType: RACK.NODE, cellNumber: 2}\n";

/* The leaves of node n (two GPUs). */
static void
node_leaves(const struct spec *s, const char *node, int *out)
{
	int c = s->nodes[spec_find_node(s, node)].cells[0];

	out[0] = s->cells[c].first_child;
	out[1] = out[0] + 1;
}

/* Restoring pl must fail with a message mentioning want, changing nothing. */
static void
must_fail(struct engine *e, const struct engine_placement *pl, const char *want)
{
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;
	char why[256] = "";

	dump(e, &before);
	CHECKF(engine_restore_job(e, pl, why, sizeof why) < 0, "restored: want '%s'", want);
	CHECKF(strstr(why, want) != NULL, "'%s' does not say '%s'", why, want);
	dump(e, &after);
	same(&before, &after, want);
	strbuf_release(&before);
	strbuf_release(&after);
}

static void
test_corrupt(void)
{
	struct spec *s = spec_load_string("tiny.yaml", tiny, strlen(tiny), NULL);
	struct engine *ref, *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_placement a, b, x;
	struct engine_mark mk;
	char *cause = NULL, why[256];
	int leaves[4], vl[4], pf[3], r1[2], id;
	struct strbuf before = STRBUF_INIT, after = STRBUF_INIT;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	/* reference: B's two 2-GPU jobs, one per node root, in rack r0 */
	ref = engine_create(s, ENGINE_HIVED, &cause);
	CHECK(ref != NULL);
	engine_plan_init(&p);
	memset(&r, 0, sizeof r);
	r.vc = spec_find_vc(s, "B");
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	r.members[0].pods = 1;
	r.members[0].gpus = 2;
	r.priority = 1;
	r.name = "b0";
	CHECK(engine_alloc(ref, &r, &p) == 0);
	r.name = "b1";
	CHECK(engine_alloc(ref, &r, &p) == 1);
	engine_plan_release(&p);
	CHECK(engine_job_placement(ref, 0, &a));
	CHECK(engine_job_placement(ref, 1, &b));

	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECKF(engine_restore_job(e, &a, why, sizeof why) == 0, "%s", why);

	/* ids */
	x = b;
	x.id = -1;
	must_fail(e, &x, "id -1 is out of range");
	x.id = 8;
	must_fail(e, &x, "id 8 is out of range");
	x.id = 0;
	must_fail(e, &x, "id 0 is taken by job 'b0'");
	/* names */
	x = b;
	x.name = "b0";
	must_fail(e, &x, "job 'b0' exists");
	x.name = "";
	must_fail(e, &x, "job name must be");
	/* overlapping leaves: b1 on b0's GPUs */
	x = b;
	x.leaves = a.leaves;
	must_fail(e, &x, "is in use by job 'b0'");
	/* the same leaf twice */
	memcpy(leaves, b.leaves, 2 * sizeof(int));
	leaves[1] = leaves[0];
	x = b;
	x.leaves = leaves;
	must_fail(e, &x, "listed twice");
	/* the wrong VC: A's view does not hold these virtual leaves */
	x = b;
	x.vc = spec_find_vc(s, "A");
	must_fail(e, &x, "belong to vc 'B'");
	x.vc = 7;
	must_fail(e, &x, "no vc 7");
	/* virtual leaves taken, out of range, or missing */
	x = b;
	x.vleaves = a.vleaves;
	must_fail(e, &x, "is in use by job");
	memcpy(vl, b.vleaves, 2 * sizeof(int));
	vl[1] = 99999;
	x.vleaves = vl;
	must_fail(e, &x, "not a leaf virtual cell");
	x.vleaves = NULL;
	must_fail(e, &x, "needs virtual leaves");
	/* a leaf that is not a leaf, or of no chain */
	memcpy(leaves, b.leaves, 2 * sizeof(int));
	leaves[0] = s->nodes[0].cells[0];
	x = b;
	x.leaves = leaves;
	must_fail(e, &x, "is not a leaf");
	leaves[0] = s->ncells + 3;
	must_fail(e, &x, "is not a leaf");
	/* pods that do not add up, or a pod across nodes */
	x = b;
	pf[0] = 0;
	pf[1] = 3;
	x.pod_first = pf;
	must_fail(e, &x, "do not cover");
	node_leaves(s, "n2", leaves);
	node_leaves(s, "n3", r1);
	leaves[1] = r1[0];
	x = b;
	x.leaves = leaves;
	must_fail(e, &x, "spans a level-3 cell");
	node_leaves(s, "n1", leaves);
	node_leaves(s, "n2", r1);
	leaves[1] = r1[0];
	must_fail(e, &x, "spans several top-level cells");
	/* priorities the engine never makes */
	x = b;
	x.downgraded = true;
	must_fail(e, &x, "not a state the engine makes");
	x = b;
	x.orig_priority = 3;
	must_fail(e, &x, "not a state the engine makes");
	x = b;
	x.priority = -1;
	x.orig_priority = -1;
	must_fail(e, &x, "has no virtual leaves");
	x.priority = x.orig_priority = 5000;
	must_fail(e, &x, "out of range");
	/* virtual leaves bound across: b1's virtual leaves onto b0's node */
	x = b;
	node_leaves(s, "n0", leaves);
	x.leaves = leaves;
	must_fail(e, &x, "in use by job 'b0'");
	/* Theorem 1: b1's node root in rack r1 leaves no whole rack for A */
	x = b;
	x.leaves = r1;
	must_fail(e, &x, "theorem 1");
	/* and the real one fits */
	CHECKF(engine_restore_job(e, &b, why, sizeof why) == 0, "%s", why);
	CHECKF(engine_check(e, why, sizeof why), "%s", why);

	/* bad marks */
	mk.vleaf = b.vleaves[0];
	mk.leaf = b.leaves[0];
	dump(e, &before);
	CHECK(engine_restore_mark(e, &mk, why, sizeof why) < 0);
	CHECKF(strstr(why, "bound or in use") != NULL, "%s", why);
	mk.vleaf = -4;
	CHECK(engine_restore_mark(e, &mk, why, sizeof why) < 0);
	CHECKF(strstr(why, "not a virtual leaf") != NULL, "%s", why);
	dump(e, &after);
	same(&before, &after, "marks");
	/* quota mode: no virtual leaves at all */
	engine_free(e);
	e = engine_create(s, ENGINE_QUOTA, &cause);
	must_fail(e, &a, "has no virtual leaves");
	x = a;
	x.vleaves = NULL;
	id = engine_restore_job(e, &x, why, sizeof why);
	CHECKF(id == 0, "%s", why);
	CHECK(engine_restore_mark(e, &mk, why, sizeof why) < 0);
	engine_free(e);
	engine_free(ref);
	strbuf_release(&before);
	strbuf_release(&after);
	spec_free(s);
}

static const struct test tests[] = {
	{ "random", test_random },
	{ "marks-needed", test_marks_needed },
	{ "downgraded", test_downgraded },
	{ "corrupt", test_corrupt },
};

TEST_MAIN(tests)
