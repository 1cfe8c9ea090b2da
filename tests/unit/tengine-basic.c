/*
 * tengine-basic.c — the engine on the HiveD paper's Figure 3 cluster: every
 * ordering of the tenants' legal requests succeeds, opportunistic jobs fill
 * idle GPUs and are preempted when a tenant claims its cells, dry runs leave
 * no trace, priorities, lazy preemption, bad nodes, pinned cells, quota.
 * Debug builds run engine_check() after every mutation, so each step here
 * also checks every invariant.
 */
#include <string.h>

#include "engine/engine.h"
#include "spec/spec.h"
#include "test.h"
#include "engine-work.h"

static unsigned long long rng;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 11);
}

struct want { int vc; int gpus; };
static const struct want fig3_reqs[9] = {
	{ 0, 4 }, { 0, 2 }, { 0, 1 }, { 1, 4 }, { 1, 2 }, { 1, 1 },
	{ 2, 8 }, { 2, 8 }, { 2, 2 },
};

/* Run the 9 legal requests in the given order on a cluster full of
   opportunistic jobs; every one must succeed. Returns failures. */
static int
run_order(const struct spec *s, const int *order, bool opp_fill)
{
	char *cause = NULL, name[32], why[512];
	struct engine *e = engine_create(s, ENGINE_HIVED, &cause);
	struct engine_plan p;
	struct engine_req r;
	int i, bad = 0, n;

	engine_plan_init(&p);
	for (n = 0; opp_fill; n++) {
		snprintf(name, sizeof name, "opp%d", n);
		work_req(&r, name, n % 3, 1, 1, -1);
		if (engine_alloc(e, &r, &p) < 0)
			break;
	}
	for (i = 0; i < 9; i++) {
		const struct want *w = &fig3_reqs[order[i]];
		snprintf(name, sizeof name, "job%d", order[i]);
		work_req(&r, name, w->vc, 1, w->gpus, 0);
		if (engine_alloc(e, &r, &p) < 0) {
			fprintf(stderr, "order step %d: %s\n", i, p.why);
			bad++;
		}
		for (n = 0; n < p.nvictims; n++)
			if (strncmp(p.victims[n].name, "opp", 3) != 0)
				bad++;
	}
	if (!engine_check(e, why, sizeof why))
		bad++;
	engine_plan_release(&p);
	engine_free(e);
	return bad;
}

static void
test_fig3_orders(void)
{
	struct spec *s = work_spec(fig3);
	int order[9], i, k, t, bad = 0, trials = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INTEQ(s->gpus, 32);
	rng = 0x9e3779b97f4a7c15ULL;
	for (t = 0; t < (test_long ? 20000 : 1500); t++) {
		for (i = 0; i < 9; i++)
			order[i] = i;
		for (i = 8; i > 0; i--) {
			k = (int)(xr() % (unsigned)(i + 1));
			int tmp = order[i]; order[i] = order[k]; order[k] = tmp;
		}
		bad += run_order(s, order, t % 2 == 0);
		trials++;
	}
	CHECKF(bad == 0, "%d failures over %d orderings", bad, trials);
	spec_free(s);
}

/* The emulator's light queries say what engine_cell says, cell by cell. */
static void
check_light(const struct engine *e)
{
	const struct spec *s = engine_spec(e);
	struct engine_cell_info ci;
	int c, leaves, used, opp, bad, jobs = 0;

	for (c = 0; c < s->ncells; c++) {
		engine_cell(e, c, &ci);
		engine_cell_use(e, c, &leaves, &used, &opp, &bad);
		CHECKF(leaves == ci.leaves && used == ci.used && opp == ci.opp &&
		    bad == ci.bad, "cell %d: %d/%d/%d/%d, engine_cell %d/%d/%d/%d", c,
		    leaves, used, opp, bad, ci.leaves, ci.used, ci.opp, ci.bad);
		CHECK_INTEQ(engine_leaf_job(e, c), ci.job);
		CHECK_INTEQ(engine_cell_vc(e, c), ci.vc);
		jobs += ci.job >= 0;
	}
	CHECK_INTEQ(jobs, 32);	/* not vacuous: every GPU has a job */
}

static void
test_opportunistic_fill_and_preempt(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL, name[16];
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_stats st;
	unsigned long long serial;
	int n;

	if (!s) { CHECK(s != NULL); return; }
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	for (n = 0; ; n++) {
		snprintf(name, sizeof name, "o%d", n);
		work_req(&r, name, 0, 1, 1, -1);
		if (engine_alloc(e, &r, &p) < 0)
			break;
		CHECK(p.opportunistic);
	}
	CHECK_INTEQ(n, 32);
	CHECK_INTEQ(p.fail, ENGINE_ECLUSTERFULL);
	/* C claims a whole node: 8 opportunistic jobs go (and the counts'
	   serial moves) */
	serial = engine_use_serial(e);
	work_req(&r, "c8", 2, 1, 8, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(engine_use_serial(e) != serial);
	CHECK_INTEQ(p.nvictims, 8);
	engine_stats(e, &st);
	CHECK_INTEQ(st.opp, 24);
	CHECK_INTEQ(st.used, 8);
	check_light(e);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

/* Everything a query can see, to compare before and after a dry run. */
static void
snapshot(struct engine *e, struct engine_cell_info *out)
{
	const struct spec *s = engine_spec(e);
	int c;

	for (c = 0; c < s->ncells; c++)
		engine_cell(e, c, &out[c]);
}

static void
test_dry_run_exact(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p, q;
	struct engine_req r;
	struct engine_cell_info *a, *b;
	int n, i;

	if (!s) { CHECK(s != NULL); return; }
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	engine_plan_init(&q);
	a = calloc((size_t)s->ncells, sizeof *a);
	b = calloc((size_t)s->ncells, sizeof *b);
	work_req(&r, "low", 2, 1, 8, 1);
	r.lazy = true;
	CHECK(engine_alloc(e, &r, &p) >= 0);
	for (n = 0; n < 6; n++) {
		char name[16];
		snprintf(name, sizeof name, "o%d", n);
		work_req(&r, name, 1, 1, 2, -1);
		engine_alloc(e, &r, &p);
	}
	snapshot(e, a);
	work_req(&r, "high", 2, 2, 8, 5);
	CHECK(engine_place(e, &r, &p) == 0);
	snapshot(e, b);
	for (i = 0; i < s->ncells; i++)
		if (memcmp(&a[i], &b[i], sizeof a[i]) != 0)
			break;
	CHECKF(i == s->ncells, "cell %d differs after a dry run", i);
	CHECK(engine_job_find(e, "high") < 0);
	CHECK(engine_job_find(e, "low") >= 0);
	/* the real thing lands where the dry run said */
	CHECK(engine_alloc(e, &r, &q) >= 0);
	CHECK_INTEQ(q.nleaves, p.nleaves);
	CHECK(memcmp(q.leaves, p.leaves, (size_t)p.nleaves * sizeof(int)) == 0);
	CHECK_INTEQ(q.nvictims, p.nvictims);
	free(a);
	free(b);
	engine_plan_release(&p);
	engine_plan_release(&q);
	engine_free(e);
	spec_free(s);
}

static void
test_priority_and_lazy(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_job_info ji;
	int low, i;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	/* non-lazy: the victim is preempted */
	e = engine_create(s, ENGINE_HIVED, &cause);
	work_req(&r, "low", 2, 1, 8, 1);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	work_req(&r, "eq", 2, 2, 8, 1);
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EVCFULL);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EPREEMPT);
	work_req(&r, "high", 2, 2, 8, 9);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK_INTEQ(p.nvictims, 1);
	CHECK(p.nvictims == 1 && p.victims[0].kind == ENGINE_VICTIM_PREEMPT);
	CHECK(engine_job_find(e, "low") < 0);
	engine_free(e);
	/* lazy: the victim gives up its virtual node and runs on elsewhere */
	e = engine_create(s, ENGINE_HIVED, &cause);
	work_req(&r, "low", 2, 1, 8, 1);
	r.lazy = true;
	low = engine_alloc(e, &r, &p);
	CHECK(low >= 0);
	work_req(&r, "high", 2, 2, 8, 9);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(p.nvictims == 1 && p.victims[0].kind == ENGINE_VICTIM_LAZY);
	CHECK(engine_job(e, low, &ji));
	CHECK(ji.downgraded && ji.priority == -1);
	for (i = 0; i < p.nleaves; i++)
		CHECK(engine_job(e, low, &ji) && ji.leaves[0] != p.leaves[i]);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_bad_nodes(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_vc_usage u;
	int aff[8], i;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECK(engine_node_set_bad(e, "nope", true, aff, 8) == -1);
	CHECK(engine_node_set_bad(e, "n0", true, aff, 8) == 0);
	/* C's two nodes are still whole: 3 healthy nodes remain */
	work_req(&r, "c16", 2, 2, 8, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	for (i = 0; i < p.nleaves; i++)
		CHECK(strcmp(s->nodes[s->cells[p.leaves[i]].node].name, "n0") != 0);
	/* c16 runs on two of n1..n3; n1 going bad hits it */
	i = engine_node_set_bad(e, "n1", true, aff, 8);
	CHECK(i == 1 && aff[0] == p.job);
	CHECK(engine_release(e, p.job) == 0);
	/* two bad nodes: A, B and C's cells no longer all fit healthily */
	engine_vc_usage(e, 0, &u);
	{
		struct engine_vc_usage ub;
		engine_vc_usage(e, 1, &ub);
		CHECKF(u.bad + ub.bad > 0, "no VC sees the bad nodes (doomed cells)");
	}
	/* recovery releases the doomed cells */
	CHECK(engine_node_set_bad(e, "n0", false, aff, 8) == 0);
	CHECK(engine_node_set_bad(e, "n1", false, aff, 8) == 0);
	engine_vc_usage(e, 0, &u);
	CHECK_INTEQ(u.bad, 0);
	CHECK_INTEQ(u.doomed, 0);
	/* a job on a node that goes bad is reported */
	work_req(&r, "a4", 0, 1, 4, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	i = engine_node_set_bad(e, s->nodes[s->cells[p.leaves[0]].node].name, true, aff, 8);
	CHECK_INTEQ(i, 1);
	CHECK(i == 1 && aff[0] == p.job);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_pinned(void)
{
	char text[4096];
	struct spec *s;
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	int i;

	/* C: one node cell plus the pinned node n3, one switch */
	snprintf(text, sizeof text, "%s%s", fig3, fig3_pinned_tail);
	{
		char *x = strstr(text, "{cellType: RACK.NODE, cellNumber: 2}");
		if (x)
			x[strlen("{cellType: RACK.NODE, cellNumber: ")] = '1';
	}
	s = work_spec(text);
	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	e = engine_create(s, ENGINE_HIVED, &cause);
	work_req(&r, "p8", 2, 1, 8, 0);
	r.pin = spec_find_pin(s, "PIN");
	CHECK(r.pin >= 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	for (i = 0; i < p.nleaves; i++)
		CHECK_STREQ(s->nodes[s->cells[p.leaves[i]].node].name, "n3");
	work_req(&r, "p1", 2, 1, 1, 0);
	r.pin = spec_find_pin(s, "PIN");
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EPINBUSY);
	/* A does not hold the pin */
	work_req(&r, "a1", 0, 1, 1, 0);
	r.pin = spec_find_pin(s, "PIN");
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EBADREQ);
	/* unpinned requests never land on n3 */
	work_req(&r, "c8", 2, 1, 8, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	for (i = 0; i < p.nleaves; i++)
		CHECK(strcmp(s->nodes[s->cells[p.leaves[i]].node].name, "n3") != 0);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_quota_and_private(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	e = engine_create(s, ENGINE_QUOTA, &cause);
	CHECK(e != NULL);
	/* A's quota is 7 GPUs, anywhere: a 7-GPU pod fits in one node */
	work_req(&r, "a7", 0, 1, 7, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	work_req(&r, "a1", 0, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EQUOTA);
	/* over the quota for now, and over it forever */
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EQUOTA);
	work_req(&r, "a8", 0, 1, 8, 0);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	CHECK_STREQ(p.why, "vc 'A' can never hold 8 gpus: its quota is 7");
	engine_free(e);
	/* private: A alone on its 7 GPUs; a 7-GPU pod cannot exist there */
	e = engine_create(s, ENGINE_PRIVATE, &cause);
	CHECK(e != NULL);
	work_req(&r, "a7", 0, 1, 7, 0);
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	work_req(&r, "a4", 0, 1, 4, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static void
test_bad_requests(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	e = engine_create(s, ENGINE_HIVED, &cause);
	work_req(&r, "x", 7, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) < 0 && p.fail == ENGINE_EBADREQ);
	work_req(&r, "x", 0, 1, 0, 0);
	CHECK(engine_alloc(e, &r, &p) < 0 && p.fail == ENGINE_EBADREQ);
	work_req(&r, "x", 0, 1, 1, 2000);
	CHECK(engine_alloc(e, &r, &p) < 0 && p.fail == ENGINE_EBADREQ);
	work_req(&r, "x", 0, 1, 8, 0);
	CHECK(engine_alloc(e, &r, &p) < 0 && p.fail == ENGINE_ETOOBIG);
	work_req(&r, "x", 0, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(engine_alloc(e, &r, &p) < 0 && p.fail == ENGINE_EBADREQ);
	CHECK(strstr(p.why, "'x'") != NULL);
	CHECK(engine_release(e, 99) == -1);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

/*
 * A gang the VC could not hold even empty (issue 21): the dry run says
 * so (ETOOBIG, what the live submit refuses on), naming the cell type a
 * pod takes, never a level number; the real alloc, which does not
 * diagnose, says the VC has no room, with the type too.
 */
static void
test_never_fits(void)
{
	static const char box[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    SWITCH: {childCellType: GPU, childCellNumber: 2}\n"
		"    BOX: {childCellType: SWITCH, childCellNumber: 4, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - {cellType: BOX, cellAddress: box}\n"
		"virtualClusters:\n"
		"  prod: {virtualCells: [{cellType: BOX.SWITCH, cellNumber: 2}]}\n"
		"  research: {virtualCells: [{cellType: BOX.SWITCH, cellNumber: 2}]}\n";
	struct spec *s = work_spec(box);
	char *cause = NULL;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	e = engine_create(s, ENGINE_HIVED, &cause);
	/* a pod larger than any cell of the VC */
	work_req(&r, "big", 0, 1, 4, 0);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	/* more pods than the VC has cells for, in the same VC */
	work_req(&r, "wide", 0, 3, 2, 0);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	CHECK_STREQ(p.why, "vc 'prod' can never hold 3 pods of 2 gpus: each takes "
	    "a cell of type 'SWITCH' and it has 2");
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EVCFULL);
	CHECK_STREQ(p.why, "vc 'prod' has no room for 3 pods of 2 gpus (each in a "
	    "cell of type 'SWITCH')");
	/* an opportunistic pod larger than any cell of the cluster */
	work_req(&r, "opp", 0, 1, 16, ENGINE_PRIO_OPPORTUNISTIC);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	CHECK_STREQ(p.why, "a pod of 16 gpus is larger than any cell of the cluster");
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ETOOBIG);
	work_req(&r, "opp", 0, 1, 8, ENGINE_PRIO_OPPORTUNISTIC);
	CHECK(engine_place(e, &r, &p) == 0);
	/* what fits once the VC is free is not "never": the dry run says
	   whom it would have to preempt */
	work_req(&r, "a", 0, 2, 2, 5);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	work_req(&r, "b", 0, 1, 2, 5);
	CHECK(engine_place(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_EPREEMPT);
	CHECK(strstr(p.why, "level") == NULL);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

/*
 * Static binding (HiveD Fig. 10's baseline): each VC's cells are bound at
 * creation and never move, so a tenant's job preempts the opportunistic
 * job on its fixed node and waits out bad hardware there, where dynamic
 * binding takes the clean or healthy node instead.
 */
static void
test_static_binding(void)
{
	static const char two[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
		"    RACK: {childCellType: NODE, childCellNumber: 2}\n"
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren:\n"
		"    - cellAddress: n0\n"
		"    - cellAddress: n1\n"
		"virtualClusters:\n"
		"  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
		"  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n";
	static const char four[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
		"    RACK: {childCellType: NODE, childCellNumber: 4}\n"
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren: [{cellAddress: n0}, {cellAddress: n1}, "
		"{cellAddress: n2}, {cellAddress: n3}]\n"
		"virtualClusters:\n"
		"  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
		"  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n";
	struct spec *s = work_spec(two), *s4;
	char *cause = NULL, why[256];
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	struct engine_cell_info ci;
	int bound, st;

	if (!s) { CHECK(s != NULL); return; }
	s4 = work_spec(four);
	if (!s4) { CHECK(s4 != NULL); spec_free(s); return; }
	engine_plan_init(&p);
	for (st = 0; st < 2; st++) {
		/* an opportunistic job of B's on a node, then A's 4-GPU job */
		e = engine_create(s, ENGINE_HIVED, &cause);
		CHECK(!engine_binding_static(e));
		if (st) {
			CHECK(engine_bind_static(e, &cause) == 0);
			CHECK(engine_binding_static(e));
			/* both nodes bound from the start, A first in buddy order */
			engine_cell(e, spec_find_cell(s, "n0"), &ci);
			CHECK_INTEQ(ci.state, ENGINE_CELL_BOUND);
			CHECK_INTEQ(ci.vc, 0);
			engine_cell(e, spec_find_cell(s, "n1"), &ci);
			CHECK_INTEQ(ci.vc, 1);
		}
		work_req(&r, "o", 1, 1, 4, ENGINE_PRIO_OPPORTUNISTIC);
		CHECK(engine_alloc(e, &r, &p) >= 0);
		CHECKF(s->cells[p.leaves[0]].parent == spec_find_cell(s, "n0"),
		    "opp on leaf %d", p.leaves[0]);
		work_req(&r, "a", 0, 1, 4, 0);
		CHECK(engine_alloc(e, &r, &p) >= 0);
		/* dynamic: A binds the clean node; static: its own, preempting */
		CHECK_INTEQ(p.nvictims, st ? 1 : 0);
		CHECK_INTEQ(engine_job_find(e, "o") >= 0, !st);
		CHECK(engine_check(e, why, sizeof why));
		engine_free(e);

		/* n0 goes bad before A asks, a spare node left: only static
		   binding keeps A there */
		e = engine_create(s4, ENGINE_HIVED, &cause);
		if (st)
			CHECK(engine_bind_static(e, &cause) == 0);
		CHECK(engine_node_set_bad(e, "n0", true, NULL, 0) == 0);
		work_req(&r, "a", 0, 1, 4, 0);
		bound = engine_alloc(e, &r, &p);
		CHECKF((bound >= 0) == !st, "static %d: alloc %d (%s)", st, bound, p.why);
		CHECK(engine_node_set_bad(e, "n0", false, NULL, 0) == 0);
		CHECK(engine_check(e, why, sizeof why));
		engine_free(e);
	}
	/* quota and private: a no-op (no cells, or static already) */
	e = engine_create(s, ENGINE_QUOTA, &cause);
	CHECK(engine_bind_static(e, &cause) == 0 && !engine_binding_static(e));
	engine_free(e);
	e = engine_create(s, ENGINE_PRIVATE, &cause);
	CHECK(engine_binding_static(e));
	engine_free(e);
	/* not once jobs run */
	e = engine_create(s, ENGINE_HIVED, &cause);
	work_req(&r, "a", 0, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(engine_bind_static(e, &cause) < 0);
	free(cause);
	engine_free(e);
	engine_plan_release(&p);
	spec_free(s4);
	spec_free(s);
}

/*
 * Borrowing (invariant 10): in quota mode with engine_set_borrow, a
 * request over its VC's quota runs on idle GPUs, counted apart, and
 * nobody takes them back: a tenant within its quota waits behind it, and
 * gets them when the borrower ends. Without borrowing the same request is
 * refused and the tenant runs at once.
 */
static void
test_borrowing(void)
{
	struct spec *s = work_spec(fig3);
	char *cause = NULL, why[256];
	struct engine *e, *e2;
	struct engine_plan p;
	struct engine_req r;
	struct engine_vc_usage u;
	struct engine_job_info ji;
	struct engine_placement pl;
	int lend, bw, i;

	if (!s) { CHECK(s != NULL); return; }
	engine_plan_init(&p);
	/* only quota mode lends, and only before any job runs */
	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECK(engine_set_borrow(e, &cause) < 0);
	CHECK_STREQ(cause, "borrowing needs quota mode, not 'hived'");
	free(cause);
	cause = NULL;
	engine_free(e);
	for (lend = 0; lend < 2; lend++) {
		e = engine_create(s, ENGINE_QUOTA, &cause);
		CHECK(!engine_borrow(e));
		if (lend)
			CHECK(engine_set_borrow(e, &cause) == 0 && engine_borrow(e));
		/* A (quota 7) fills its quota, then asks for two whole nodes */
		work_req(&r, "a7", 0, 1, 7, 0);
		CHECK(engine_alloc(e, &r, &p) >= 0 && !p.borrowed);
		work_req(&r, "a16", 0, 2, 8, 0);
		CHECK(engine_place(e, &r, &p) == (lend ? 0 : -1));	/* dry run */
		engine_vc_usage(e, 0, &u);
		CHECK_INTEQ(u.used, 7);
		CHECK_INTEQ(u.borrowed, 0);
		bw = engine_alloc(e, &r, &p);
		CHECKF((bw >= 0) == lend, "lend %d: %s", lend, p.why);
		if (!lend) {
			CHECK_INTEQ(p.fail, ENGINE_EQUOTA);
		} else {
			CHECK(p.borrowed && p.nvictims == 0);
			CHECK(engine_job(e, bw, &ji) && ji.borrowed && ji.priority == 0);
			engine_vc_usage(e, 0, &u);
			CHECK_INTEQ(u.used, 23);
			CHECK_INTEQ(u.borrowed, 16);
			/* still 0 of A's quota left: a borrower, not a quota user */
			work_req(&r, "a1", 0, 1, 1, 0);
			CHECK(engine_alloc(e, &r, &p) >= 0 && p.borrowed);
			CHECK(engine_release(e, p.job) == 0);
		}
		/* C (quota 18) within its quota: one node, then (after an
		   opportunistic job took the last idle GPU) another */
		work_req(&r, "c8a", 2, 1, 8, 0);
		CHECK(engine_alloc(e, &r, &p) >= 0 && !p.borrowed);
		work_req(&r, "opp", 1, 1, 1, -1);
		CHECK(engine_alloc(e, &r, &p) >= 0);
		work_req(&r, "c8b", 2, 1, 8, 0);
		i = engine_alloc(e, &r, &p);
		CHECKF((i >= 0) == !lend, "lend %d: c8b %d (%s)", lend, i, p.why);
		if (lend) {
			/* waits: the lent nodes are not taken back */
			CHECK_INTEQ(p.fail, ENGINE_EVCFULL);
			CHECK_INTEQ(p.nvictims, 0);
			/* a 1-GPU job of C takes the opportunistic GPU, not a lent one */
			work_req(&r, "c1", 2, 1, 1, 0);
			CHECK(engine_alloc(e, &r, &p) >= 0 && p.nvictims == 1);
			CHECK_STREQ(p.victims[0].name, "opp");
			/* nothing idle left to lend */
			work_req(&r, "a2", 0, 1, 2, 0);
			CHECK(engine_alloc(e, &r, &p) < 0);
			CHECK_INTEQ(p.fail, ENGINE_EQUOTA);
			/* a stored placement comes back borrowed, on a lending engine only */
			CHECK(engine_job_placement(e, bw, &pl) && pl.borrowed);
			e2 = engine_create(s, ENGINE_QUOTA, &cause);
			CHECK(engine_restore_job(e2, &pl, why, sizeof why) < 0);
			CHECK_STREQ(why, "job 'a16': borrowed, but this engine does not lend");
			CHECK(engine_set_borrow(e2, &cause) == 0);
			CHECK(engine_restore_job(e2, &pl, why, sizeof why) == 0);
			engine_vc_usage(e2, 0, &u);
			CHECK_INTEQ(u.borrowed, 16);
			CHECK(engine_check(e2, why, sizeof why));
			engine_free(e2);
			/* the borrower ends: C runs, A's counters go back */
			CHECK(engine_release(e, bw) == 0);
			engine_vc_usage(e, 0, &u);
			CHECK_INTEQ(u.used, 7);
			CHECK_INTEQ(u.borrowed, 0);
			work_req(&r, "c8b", 2, 1, 8, 0);
			CHECK(engine_alloc(e, &r, &p) >= 0 && !p.borrowed);
		}
		CHECK(engine_check(e, why, sizeof why));
		engine_free(e);
	}
	engine_plan_release(&p);
	spec_free(s);
}

/*
 * Best fit among partly used cells (view_choose's rule 1): on two 4-GPU
 * nodes of one VC, a 3-GPU pod joins the node a 1-GPU pod already
 * uses, so a 4-GPU pod still finds a whole node; a 2-GPU pod then takes
 * the fuller of two partly used nodes. Without the rule the 3-GPU pod
 * breaks the second node and the 4-GPU pod is refused.
 */
static void
test_best_fit(void)
{
	static const char text[] =
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
	    "    RACK: {childCellType: NODE, childCellNumber: 2}\n"
	    "  physicalCells:\n"
	    "  - cellType: RACK\n"
	    "    cellChildren:\n"
	    "    - cellAddress: n0\n"
	    "    - cellAddress: n1\n"
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK.NODE, cellNumber: 2}\n";
	struct spec *s = work_spec(text);
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	char *cause = NULL, why[256];
	int one, node1;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECK(e != NULL);
	engine_plan_init(&p);
	work_req(&r, "one", 0, 1, 1, 0);
	CHECK((one = engine_alloc(e, &r, &p)) >= 0);
	node1 = s->cells[p.leaves[0]].node;
	work_req(&r, "three", 0, 1, 3, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECKF(s->cells[p.leaves[0]].node == node1, "the 3-GPU pod went to "
	    "node %d, the 1-GPU pod is on node %d", s->cells[p.leaves[0]].node,
	    node1);
	work_req(&r, "four", 0, 1, 4, 0);
	CHECKF(engine_alloc(e, &r, &p) >= 0, "4 GPUs refused: %s", p.why);
	CHECK(engine_check(e, why, sizeof why));
	(void)one;
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

/*
 * Binding prefers a healthy cell (buddy_take's rule 1): with the free
 * GPUs of a bad node at the level asked for, a healthy node above them
 * is split instead of binding a bad GPU.
 */
static void
test_bind_healthy(void)
{
	static const char text[] =
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
	    "    RACK: {childCellType: NODE, childCellNumber: 2}\n"
	    "  physicalCells:\n"
	    "  - cellType: RACK\n"
	    "    cellChildren:\n"
	    "    - cellAddress: n0\n"
	    "    - cellAddress: n1\n"
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK.NODE.GPU, cellNumber: 2}\n";
	struct spec *s = work_spec(text);
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	char *cause = NULL, why[256];
	int aff[4], n;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECK(e != NULL);
	engine_plan_init(&p);
	work_req(&r, "a1", 0, 1, 1, 0);
	CHECK(engine_alloc(e, &r, &p) >= 0);
	n = s->cells[p.leaves[0]].node;
	/* a1's node goes bad: its three free GPUs are bad free cells */
	CHECK(engine_node_set_bad(e, s->nodes[n].name, true, aff, 4) == 1);
	work_req(&r, "a2", 0, 1, 1, 0);
	CHECKF(engine_alloc(e, &r, &p) >= 0, "%s", p.why);
	CHECKF(s->cells[p.leaves[0]].node != n, "a2 was bound on the bad node "
	    "'%s'", s->nodes[n].name);
	CHECK(engine_check(e, why, sizeof why));
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
}

static const struct test tests[] = {
	{ "fig3-orders", test_fig3_orders },
	{ "opportunistic-fill-and-preempt", test_opportunistic_fill_and_preempt },
	{ "dry-run-exact", test_dry_run_exact },
	{ "priority-and-lazy", test_priority_and_lazy },
	{ "bad-nodes", test_bad_nodes },
	{ "pinned", test_pinned },
	{ "quota-and-private", test_quota_and_private },
	{ "bad-requests", test_bad_requests },
	{ "never-fits", test_never_fits },
	{ "static-binding", test_static_binding },
	{ "borrowing", test_borrowing },
	{ "best-fit", test_best_fit },
	{ "bind-healthy", test_bind_healthy },
};
TEST_MAIN(tests)
