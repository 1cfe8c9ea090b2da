/*
 * tengine-move.c — engine_move on the HiveD paper's Figure 3 cluster: a
 * job grows by a GPU of its node and shrinks back, migrates to another
 * node, and every refused move (GPU in use, another VC's cell, the VC's
 * assignment or quota exhausted, a pinned or opportunistic job) leaves
 * the engine exactly as it was. Random churn of moves keeps every
 * invariant (engine_check) and restores bit for bit (engine_restore_job).
 */
#include <string.h>

#include "core/xmalloc.h"
#include "engine/engine.h"
#include "spec/spec.h"
#include "test.h"
#include "engine-work.h"

/* The whole visible state: every cell, every job's placement, the stats. */
struct state {
	struct engine_cell_info	*cells;
	struct engine_placement	*pl;
	bool			*live;
	int			 njobs;
	struct engine_stats	 st;
};

static void
state_take(struct engine *e, struct state *x)
{
	const struct spec *s = engine_spec(e);
	int c, i;

	x->cells = xcalloc((size_t)s->ncells, sizeof *x->cells);
	for (c = 0; c < s->ncells; c++)
		engine_cell(e, c, &x->cells[c]);
	x->njobs = engine_job_limit(e);
	x->pl = xcalloc((size_t)x->njobs + 1, sizeof *x->pl);
	x->live = xcalloc((size_t)x->njobs + 1, sizeof *x->live);
	for (i = 0; i < x->njobs; i++) {
		struct engine_placement p;
		if ((x->live[i] = engine_job_placement(e, i, &p)))
			engine_placement_dup(&x->pl[i], &p);
	}
	engine_stats(e, &x->st);
}

static void
state_release(struct state *x)
{
	int i;

	for (i = 0; i < x->njobs; i++)
		if (x->live[i])
			engine_placement_free_arrays(&x->pl[i]);
	free(x->pl);
	free(x->live);
	free(x->cells);
}

static bool
same_ints(const int *a, const int *b, int n)
{
	if (a == NULL || b == NULL)
		return a == b;
	return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* Is the engine as x saw it? */
static bool
state_same(struct engine *e, const struct state *x)
{
	struct state y;
	bool ok;
	int i;

	state_take(e, &y);
	ok = y.njobs == x->njobs && memcmp(&y.st, &x->st, sizeof y.st) == 0;
	for (i = 0; ok && i < engine_spec(e)->ncells; i++)
		ok = memcmp(&y.cells[i], &x->cells[i], sizeof y.cells[i]) == 0;
	for (i = 0; ok && i < x->njobs; i++) {
		ok = y.live[i] == x->live[i];
		if (!ok || !x->live[i])
			continue;
		ok = y.pl[i].npods == x->pl[i].npods && y.pl[i].nleaves == x->pl[i].nleaves &&
		    same_ints(y.pl[i].pod_first, x->pl[i].pod_first, x->pl[i].npods + 1) &&
		    same_ints(y.pl[i].leaves, x->pl[i].leaves, x->pl[i].nleaves) &&
		    same_ints(y.pl[i].vleaves, x->pl[i].vleaves, x->pl[i].nleaves);
	}
	state_release(&y);
	return ok;
}

/* The free GPUs of the node holding leaf, lowest first; returns how many. */
static int
free_on_node(struct engine *e, int leaf, int *out)
{
	const struct spec *s = engine_spec(e);
	struct engine_cell_info ci;
	int c, n = 0;

	for (c = 0; c < s->ncells; c++) {
		if (s->cells[c].level != 1 || s->cells[c].node != s->cells[leaf].node)
			continue;
		engine_cell(e, c, &ci);
		if (ci.job < 0 && ci.bad == 0)
			out[n++] = c;
	}
	return n;
}

/* Move job to its leaves plus `add` (one extra pod each) or minus its last `drop`. */
static int
grow(struct engine *e, int job, const int *add, int nadd, int drop, char *why, size_t len)
{
	struct engine_job_info in;
	int pf[64], lv[64], np, nl, i, rc;

	if (!engine_job(e, job, &in))
		return -1;
	np = in.npods;
	nl = in.nleaves;
	memcpy(pf, in.pod_first, (size_t)(np + 1) * sizeof *pf);
	memcpy(lv, in.leaves, (size_t)nl * sizeof *lv);
	for (i = 0; i < nadd; i++) {
		lv[nl++] = add[i];
		pf[++np] = nl;
	}
	for (i = 0; i < drop; i++)
		nl = pf[--np];
	rc = engine_move(e, job, pf, np, lv, nl, why, len);
	return rc;
}

static void
test_grow_shrink(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL, why[256];
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_job_info in;
	struct engine_vc_usage u;
	int id, fr[32], n;

	if (!s) { CHECK(s != NULL); return; }
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	work_req(&r, "a2", 0, 1, 2, 0);
	CHECK((id = engine_alloc(e, &r, &p)) >= 0);
	n = free_on_node(e, p.leaves[0], fr);
	CHECK_INTEQ(n, 6);
	/*
	 * A owns a socket, a switch and a GPU; a2 took the switch. Two GPUs
	 * of one free switch next to it cannot both be A's (the socket cell
	 * is split there): refused. One GPU there (A's GPU cell) and one of
	 * the other socket (A's socket cell) can.
	 */
	CHECK(grow(e, id, fr, 2, 0, why, sizeof why) < 0);
	CHECKF(strstr(why, "'A'") != NULL, "%s", why);
	fr[1] = fr[2];
	CHECKF(grow(e, id, fr, 2, 0, why, sizeof why) == 0, "%s", why);
	CHECK(engine_job(e, id, &in));
	CHECK_INTEQ(in.nleaves, 4);
	CHECK_INTEQ(in.npods, 3);
	CHECK_STREQ(in.name, "a2");
	engine_vc_usage(e, 0, &u);
	CHECK_INTEQ(u.used, 4);
	CHECK(engine_check(e, why, sizeof why));
	/* shrink back by one pod, then the other */
	CHECKF(grow(e, id, NULL, 0, 1, why, sizeof why) == 0, "%s", why);
	engine_vc_usage(e, 0, &u);
	CHECK_INTEQ(u.used, 3);
	CHECKF(grow(e, id, NULL, 0, 1, why, sizeof why) == 0, "%s", why);
	CHECK(engine_job(e, id, &in));
	CHECK_INTEQ(in.nleaves, 2);
	CHECK(in.leaves[0] == p.leaves[0] && in.leaves[1] == p.leaves[1]);
	engine_vc_usage(e, 0, &u);
	CHECK_INTEQ(u.used, 2);
	CHECK(engine_job_find(e, "a2") == id);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_refusals_change_nothing(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL, why[256];
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct state x;
	int a4, a2, a1, b1, c8, n, leaf;

	if (!s) { CHECK(s != NULL); return; }
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	work_req(&r, "a4", 0, 1, 4, 0);
	CHECK((a4 = engine_alloc(e, &r, &p)) >= 0);
	work_req(&r, "a2", 0, 1, 2, 0);
	CHECK((a2 = engine_alloc(e, &r, &p)) >= 0);
	work_req(&r, "b1", 1, 1, 1, 0);
	CHECK((b1 = engine_alloc(e, &r, &p)) >= 0);
	work_req(&r, "c8", 2, 1, 8, 0);
	CHECK((c8 = engine_alloc(e, &r, &p)) >= 0);
	(void)c8;
	state_take(e, &x);

	/* a GPU another job uses */
	CHECK(engine_job(e, b1, &(struct engine_job_info){ 0 }));
	{
		struct engine_job_info in;
		engine_job(e, b1, &in);
		leaf = in.leaves[0];
	}
	CHECK(grow(e, a2, &leaf, 1, 0, why, sizeof why) < 0);
	CHECKF(strstr(why, "use") != NULL || strstr(why, "VC") != NULL, "%s", why);
	CHECK(state_same(e, &x));

	/* a free GPU inside a cell bound to B (its second 1-GPU job splits
	   B's switch cell): not A's to take */
	work_req(&r, "b1b", 1, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	state_release(&x);
	state_take(e, &x);
	for (leaf = -1, n = 0; n < s->ncells && leaf < 0; n++) {
		struct engine_cell_info ci;
		engine_cell(e, n, &ci);
		if (s->cells[n].level == 1 && ci.job < 0 && ci.vc == 1)
			leaf = n;
	}
	CHECK(leaf >= 0);
	if (leaf >= 0) {
		CHECK(grow(e, a2, &leaf, 1, 0, why, sizeof why) < 0);
		CHECKF(strstr(why, "'B'") != NULL, "%s", why);
		CHECK(state_same(e, &x));
	}

	/* A has 7 GPUs: a4, a2 and a1 hold them all; no free GPU is A's */
	work_req(&r, "a1", 0, 1, 1, 0);
	CHECK((a1 = engine_alloc(e, &r, &p)) >= 0);
	state_release(&x);
	state_take(e, &x);
	for (n = 0, leaf = 0; leaf < s->ncells; leaf++) {
		struct engine_cell_info ci;
		engine_cell(e, leaf, &ci);
		if (s->cells[leaf].level != 1 || ci.job >= 0 || ci.vc >= 0)
			continue;
		n++;
		CHECK(grow(e, a2, &leaf, 1, 0, why, sizeof why) < 0);
		CHECK(grow(e, a4, &leaf, 1, 0, why, sizeof why) < 0);
	}
	CHECK(n >= 2);
	CHECK(state_same(e, &x));

	/* malformed and unknown */
	CHECK(grow(e, 99, &leaf, 1, 0, why, sizeof why) < 0);
	leaf = 0;	/* the rack: not a GPU */
	CHECK(grow(e, a1, &leaf, 1, 0, why, sizeof why) < 0);
	CHECK(state_same(e, &x));
	state_release(&x);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_migrate_and_quota(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL, why[256];
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_job_info in;
	struct state x;
	int id, o, fr[32], n, pf[2] = { 0, 2 }, k, c;

	if (!s) { CHECK(s != NULL); return; }
	/* hived: A's 2-GPU job moves to a switch of another node */
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	work_req(&r, "a2", 0, 1, 2, 0);
	CHECK((id = engine_alloc(e, &r, &p)) >= 0);
	k = s->cells[p.leaves[0]].node;
	for (c = 0, n = 0; c < s->ncells && n < 2; c++)
		if (s->cells[c].level == 1 && s->cells[c].node != k)
			fr[n++] = c;
	CHECKF(engine_move(e, id, pf, 1, fr, 2, why, sizeof why) == 0, "%s", why);
	CHECK(engine_job(e, id, &in));
	CHECK(in.leaves[0] == fr[0] && in.leaves[1] == fr[1]);
	CHECK(engine_check(e, why, sizeof why));
	/* an opportunistic job does not move */
	work_req(&r, "o1", 1, 1, 1, -1);
	CHECK((o = engine_alloc(e, &r, &p)) >= 0);
	state_take(e, &x);
	CHECK(engine_move(e, o, pf, 1, fr, 2, why, sizeof why) < 0);
	CHECKF(strstr(why, "opportunistic") != NULL, "%s", why);
	CHECK(state_same(e, &x));
	state_release(&x);
	engine_free(e);

	/* quota: A's quota is 7 GPUs */
	e = engine_create(s, ENGINE_QUOTA, &cause);
	work_req(&r, "a6", 0, 1, 4, 0);
	CHECK((id = engine_alloc(e, &r, &p)) >= 0);
	work_req(&r, "a2", 0, 1, 2, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	engine_job(e, id, &in);
	n = free_on_node(e, in.leaves[0], fr);
	CHECK(n >= 2);
	CHECKF(grow(e, id, fr, 1, 0, why, sizeof why) == 0, "%s", why);
	state_take(e, &x);
	engine_job(e, id, &in);	/* the move replaced its arrays */
	n = free_on_node(e, in.leaves[0], fr);
	CHECK(grow(e, id, fr, 1, 0, why, sizeof why) < 0);
	CHECKF(strstr(why, "quota") != NULL, "%s", why);
	CHECK(state_same(e, &x));
	state_release(&x);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static unsigned long long rng = 0x2545f4914f6cdd1dULL;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

/* Random allocs, releases, grows, shrinks and migrations in every mode:
   invariants hold, refusals change nothing, a restore rebuilds it all. */
static void
test_churn(void)
{
	static const enum engine_mode modes[] = { ENGINE_HIVED, ENGINE_QUOTA, ENGINE_PRIVATE };
	struct spec *s = work_spec(fig3);
	char *cause = NULL, why[256], name[32];
	int step, mi, ok = 0, refused = 0, bad = 0, moved = 0;

	if (!s) { CHECK(s != NULL); return; }
	for (mi = 0; mi < 3; mi++) {
		struct engine *e = engine_create(s, modes[mi], &cause), *f;
		struct engine_plan p;
		struct engine_req r;
		struct state x;
		int i;

		engine_plan_init(&p);
		for (step = 0; step < (test_long ? 20000 : 2000); step++) {
			int op = (int)(xr() % 6), lim = engine_job_limit(e), id = -1;
			struct engine_job_info in;
			for (i = 0; i < lim; i++) {
				int k = (int)((unsigned)(i + (int)xr()) % (unsigned)lim);
				if (engine_job(e, k, &in) && in.priority >= 0) {
					id = k;
					break;
				}
			}
			if (op <= 1 || id < 0) {
				snprintf(name, sizeof name, "j%d", step);
				work_req(&r, name, (int)(xr() % 3), 1, 1 << (xr() % 3), 0);
				engine_alloc(e, &r, &p);
				continue;
			}
			if (op == 2) {
				engine_release(e, id);
				continue;
			}
			engine_job(e, id, &in);
			state_take(e, &x);
			if (op == 3) {
				int fr[32], n = free_on_node(e, in.leaves[0], fr);
				int leaf = n > 0 ? fr[xr() % (unsigned)n] : (int)(xr() % (unsigned)s->ncells);
				i = grow(e, id, &leaf, 1, 0, why, sizeof why);
			} else if (op == 4 && in.npods > 1) {
				i = grow(e, id, NULL, 0, 1, why, sizeof why);
			} else {
				/* migrate: the same pods on random GPUs */
				int lv[64], c;
				for (c = 0; c < in.nleaves; c++)
					lv[c] = s->chains[0].level_first[1] +
					    (int)(xr() % (unsigned)s->chains[0].level_count[1]);
				i = engine_move(e, id, in.pod_first, in.npods, lv, in.nleaves,
				    why, sizeof why);
			}
			if (i == 0) {
				ok++;
				moved++;
			} else {
				refused++;
				if (!state_same(e, &x)) {
					fprintf(stderr, "mode %d step %d op %d: refusal changed the engine: %s\n", mi, step, op, why);
					bad++;
				}
			}
			state_release(&x);
			if (!engine_check(e, why, sizeof why)) {
				bad++;
				break;
			}
		}
		/* rebuild from the placements alone */
		f = engine_create(s, modes[mi], &cause);
		state_take(e, &x);
		for (i = 0; i < x.njobs; i++) {
			struct engine_job_info in;
			if (x.live[i] && engine_job(e, i, &in))
				x.pl[i].name = in.name;	/* dup leaves it to us */
		}
		for (i = 0; i < x.njobs; i++)
			if (x.live[i] && engine_restore_job(f, &x.pl[i], why, sizeof why) < 0) {
				fprintf(stderr, "mode %d restore: %s\n", mi, why);
				bad++;
			}
		engine_stats_restore(f, &x.st);
		if (!state_same(f, &x))
			bad++;
		state_release(&x);
		engine_free(f);
		engine_plan_release(&p);
		engine_free(e);
	}
	CHECKF(bad == 0, "%d broken (%d moves, %d refused)", bad, ok, refused);
	CHECKF(moved > 100 && refused > 100, "%d moves, %d refused", moved, refused);
	spec_free(s);
}

static const struct test tests[] = {
	{ "grow-shrink", test_grow_shrink },
	{ "refusals-change-nothing", test_refusals_change_nothing },
	{ "migrate-and-quota", test_migrate_and_quota },
	{ "churn", test_churn },
};
TEST_MAIN(tests)
