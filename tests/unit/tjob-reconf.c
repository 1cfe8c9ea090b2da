/*
 * tjob-reconf.c — reconfiguration (job/reconf.h) and engine_adopt on the
 * HiveD Figure 3 cluster and variants of it: the same spec keeps every job
 * on the same GPUs; a VC whose assignment shrinks sees its jobs downgraded
 * to opportunistic; a node that disappears requeues its jobs; a removed VC
 * is refused without force and its jobs cancelled with it; random workloads
 * carried over to the same spec in every mode keep every job and every
 * engine invariant. Debug builds check the engine after each mutation.
 */
#include <string.h>

#include "engine/engine.h"
#include "job/reconf.h"
#include "spec/spec.h"
#include "test.h"
#include "engine-work.h"

#define FIG3_HEAD							\
    "physicalCluster:\n"						\
    "  cellTypes:\n"							\
    "    SW: {childCellType: GPU, childCellNumber: 2}\n"		\
    "    SOCK: {childCellType: SW, childCellNumber: 2}\n"		\
    "    NODE: {childCellType: SOCK, childCellNumber: 2, isNodeLevel: true}\n" \
    "    RACK: {childCellType: NODE, childCellNumber: 4}\n"		\
    "  physicalCells:\n"						\
    "  - cellType: RACK\n"						\
    "    cellChildren:\n"						\
    "    - cellAddress: n0\n"						\
    "    - cellAddress: n1\n"						\
    "    - cellAddress: n2\n"

static const char base[] = FIG3_HEAD
    "    - cellAddress: n3\n"
    "virtualClusters:\n"
    "  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 2}]}\n"
    "  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
    "  C: {virtualCells: [{cellType: RACK.NODE.SOCK, cellNumber: 2}]}\n";

/* A shrinks to one node. */
static const char shrunk[] = FIG3_HEAD
    "    - cellAddress: n3\n"
    "virtualClusters:\n"
    "  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
    "  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
    "  C: {virtualCells: [{cellType: RACK.NODE.SOCK, cellNumber: 2}]}\n";

/* n3 replaced by n4 (n3's GPUs are gone). */
static const char renamed[] = FIG3_HEAD
    "    - cellAddress: n4\n"
    "virtualClusters:\n"
    "  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 2}]}\n"
    "  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n"
    "  C: {virtualCells: [{cellType: RACK.NODE.SOCK, cellNumber: 2}]}\n";

/* C is gone. */
static const char no_c[] = FIG3_HEAD
    "    - cellAddress: n3\n"
    "virtualClusters:\n"
    "  A: {virtualCells: [{cellType: RACK.NODE, cellNumber: 2}]}\n"
    "  B: {virtualCells: [{cellType: RACK.NODE, cellNumber: 1}]}\n";

/* The running state of one side: jobs, deep-copied placements. */
struct world {
	struct spec		*s;
	struct engine		*e;
	struct job		 jobs[64];
	struct engine_placement	 pl[64];
	int			 n;
};

static void
world_free(struct world *w)
{
	int i;

	for (i = 0; i < w->n; i++) {
		free((void *)w->pl[i].pod_first);
		free((void *)w->pl[i].leaves);
		free((void *)w->pl[i].vleaves);
	}
	engine_free(w->e);
	spec_free(w->s);
}

static int *
dup_ints(const int *v, int n)
{
	int *r;

	if (v == NULL)
		return NULL;
	r = malloc((size_t)n * sizeof *r + 1);
	memcpy(r, v, (size_t)n * sizeof *r);
	return r;
}

/* Start a job (vc, pods x gpus, priority) and record it; false if it fails. */
static bool
start(struct world *w, const char *vc, int pods, int gpus, int prio)
{
	struct engine_plan plan;
	struct engine_req r;
	struct job *j = &w->jobs[w->n];
	char name[32], why[256];
	int id;

	snprintf(name, sizeof name, "j%d", w->n);
	job_init(j, w->n, name, spec_find_vc(w->s, vc), 0);
	job_set_shape(j, pods, gpus);
	memset(&r, 0, sizeof r);
	r.name = j->name;
	r.vc = j->vc;
	r.priority = prio;
	r.leaf_type = -1;
	r.pin = -1;
	r.nmembers = 1;
	r.members[0].pods = pods;
	r.members[0].gpus = gpus;
	engine_plan_init(&plan);
	id = engine_alloc(w->e, &r, &plan);
	engine_plan_release(&plan);
	if (id < 0)
		return false;
	job_apply(j, JOB_EV_START, 0, why, sizeof why);
	j->engine_id = id;
	j->opportunistic = prio < 0;
	w->n++;
	return true;
}

/* Copy every running job's placement (after all starts: victims gone). */
static void
snapshot(struct world *w)
{
	struct engine_placement p;
	int i;

	for (i = 0; i < w->n; i++) {
		memset(&w->pl[i], 0, sizeof w->pl[i]);
		if (!engine_job_placement(w->e, w->jobs[i].engine_id, &p))
			continue;
		w->pl[i] = p;
		w->pl[i].pod_first = dup_ints(p.pod_first, p.npods + 1);
		w->pl[i].leaves = dup_ints(p.leaves, p.nleaves);
		w->pl[i].vleaves = dup_ints(p.vleaves, p.nleaves);
	}
}

/* Carry w over to a new spec text; returns reconf_apply's status. */
static int
carry(struct world *w, const char *text, enum engine_mode mode, bool force,
    struct engine **ne, struct spec **ns, struct reconf_stats *st,
    struct rec **recs, int *nrecs, char *why)
{
	char *cause = NULL;
	int rc;

	*ns = work_spec(text);
	CHECK(*ns != NULL);
	*ne = engine_create(*ns, mode, &cause);
	CHECKF(*ne != NULL, "%s", cause ? cause : "");
	free(cause);
	rc = reconf_apply(w->s, *ne, w->jobs, w->n, w->pl, force, 100, recs,
	    nrecs, st, why, 256);
	return rc;
}

/* Path of a job's i-th leaf in its engine. */
static const char *
leaf_path(const struct spec *s, const struct engine *e, int id, int i, char *buf)
{
	struct engine_job_info info;

	if (!engine_job(e, id, &info) || i >= info.nleaves)
		return "?";
	return spec_cell_path(s, info.leaves[i], buf, 256);
}

static void
test_same_spec(void)
{
	static const enum engine_mode modes[] = { ENGINE_HIVED, ENGINE_QUOTA, ENGINE_PRIVATE };
	size_t m;

	for (m = 0; m < sizeof modes / sizeof modes[0]; m++) {
		struct world w = { 0 };
		struct engine *ne;
		struct spec *ns;
		struct reconf_stats st;
		struct rec *recs = NULL;
		char why[256], a[256], b[256], *cause = NULL;
		int nrecs = 0, i, k;

		w.s = work_spec(base);
		w.e = engine_create(w.s, modes[m], &cause);
		CHECK(w.e != NULL);
		CHECK(start(&w, "A", 1, 8, 0));
		CHECK(start(&w, "A", 2, 2, 1));
		CHECK(start(&w, "B", 1, 4, 0));
		CHECK(start(&w, "C", 1, 2, 0));
		CHECK(start(&w, "C", 2, 1, 0));
		CHECK(start(&w, "B", 1, 2, -1));
		snapshot(&w);
		CHECK(carry(&w, base, modes[m], false, &ne, &ns, &st, &recs, &nrecs, why) == 0);
		CHECKF(st.kept == w.n && nrecs == 0, "mode %zu kept %d of %d, %d records",
		    m, st.kept, w.n, nrecs);
		for (i = 0; i < w.n; i++) {
			CHECK(w.jobs[i].state == JOB_RUNNING);
			for (k = 0; k < w.pl[i].nleaves; k++)
				CHECK_STREQ(leaf_path(ns, ne, w.jobs[i].engine_id, k, a),
				    spec_cell_path(w.s, w.pl[i].leaves[k], b, sizeof b));
		}
		CHECK(engine_check(ne, why, sizeof why));
		/* the adopted engine places new work like one that never moved */
		{
			struct engine_stats s1, s2;
			engine_stats(w.e, &s1);
			engine_stats(ne, &s2);
			CHECK(s1.used == s2.used && s1.opp == s2.opp && s1.jobs == s2.jobs);
		}
		free(recs);
		engine_free(ne);
		spec_free(ns);
		world_free(&w);
	}
}

static void
test_shrunk_vc_downgrades(void)
{
	struct world w = { 0 };
	struct engine *ne;
	struct spec *ns;
	struct reconf_stats st;
	struct rec *recs = NULL;
	char why[256], *cause = NULL;
	int nrecs = 0;

	w.s = work_spec(base);
	w.e = engine_create(w.s, ENGINE_HIVED, &cause);
	CHECK(start(&w, "A", 1, 8, 5));	/* a whole node */
	CHECK(start(&w, "A", 1, 8, 0));	/* the second node of A */
	CHECK(start(&w, "B", 1, 8, 0));
	snapshot(&w);
	CHECK(carry(&w, shrunk, ENGINE_HIVED, false, &ne, &ns, &st, &recs, &nrecs, why) == 0);
	CHECKF(st.kept == 2 && st.downgraded == 1 && st.requeued == 0,
	    "kept %d downgraded %d requeued %d", st.kept, st.downgraded, st.requeued);
	/* the higher-priority job keeps its guarantee */
	CHECK(!w.jobs[0].opportunistic && w.jobs[1].opportunistic);
	CHECK(nrecs == 1 && recs[0].kind == REC_DOWNGRADE && recs[0].job == 1);
	CHECKF(strstr(recs[0].detail, "does not fit VC 'A'") != NULL, "%s", recs[0].detail);
	CHECK(engine_check(ne, why, sizeof why));
	free(recs);
	engine_free(ne);
	spec_free(ns);
	world_free(&w);
}

static void
test_gone_node_requeues(void)
{
	struct world w = { 0 };
	struct engine *ne;
	struct spec *ns;
	struct reconf_stats st;
	struct rec *recs = NULL;
	char why[256], *cause = NULL;
	int nrecs = 0, i, on_n3 = 0;

	w.s = work_spec(base);
	w.e = engine_create(w.s, ENGINE_HIVED, &cause);
	for (i = 0; i < 4; i++)
		CHECK(start(&w, i < 2 ? "A" : i == 2 ? "B" : "C", 1, i == 3 ? 4 : 8, 0));
	snapshot(&w);
	for (i = 0; i < w.n; i++) {
		char p[256];
		spec_cell_path(w.s, w.pl[i].leaves[0], p, sizeof p);
		on_n3 += strstr(p, "n3") != NULL;
	}
	CHECK(on_n3 >= 1);
	CHECK(carry(&w, renamed, ENGINE_HIVED, false, &ne, &ns, &st, &recs, &nrecs, why) == 0);
	CHECKF(st.requeued == on_n3 && st.kept == w.n - on_n3, "requeued %d kept %d",
	    st.requeued, st.kept);
	for (i = 0; i < nrecs; i++) {
		CHECK(recs[i].kind == REC_REQUEUE);
		CHECK(w.jobs[recs[i].job].state == JOB_PENDING);
		CHECK(w.jobs[recs[i].job].engine_id == -1);
		CHECKF(strstr(recs[i].detail, "is gone") != NULL, "%s", recs[i].detail);
	}
	CHECK(engine_check(ne, why, sizeof why));
	free(recs);
	engine_free(ne);
	spec_free(ns);
	world_free(&w);
}

static void
test_removed_vc(void)
{
	struct world w = { 0 };
	struct engine *ne;
	struct spec *ns;
	struct reconf_stats st;
	struct rec *recs = NULL;
	char why[256], *cause = NULL;
	int nrecs = 0;

	w.s = work_spec(base);
	w.e = engine_create(w.s, ENGINE_HIVED, &cause);
	CHECK(start(&w, "A", 1, 8, 0));
	CHECK(start(&w, "C", 1, 4, 0));
	snapshot(&w);
	CHECK(carry(&w, no_c, ENGINE_HIVED, false, &ne, &ns, &st, &recs, &nrecs, why) == -1);
	CHECKF(strstr(why, "removes VC 'C' (1 job)") != NULL && strstr(why, "--force"),
	    "%s", why);
	CHECK(w.jobs[1].state == JOB_RUNNING && w.jobs[1].vc == 2);	/* untouched */
	engine_free(ne);
	spec_free(ns);
	CHECK(carry(&w, no_c, ENGINE_HIVED, true, &ne, &ns, &st, &recs, &nrecs, why) == 0);
	CHECK(st.cancelled == 1 && st.kept == 1);
	CHECK(w.jobs[1].state == JOB_CANCELLED && w.jobs[0].state == JOB_RUNNING);
	CHECK(nrecs == 1 && recs[0].kind == REC_CANCEL);
	free(recs);
	engine_free(ne);
	spec_free(ns);
	world_free(&w);
}

/* Random mixes carried over to the same spec keep every job in place. */
static void
test_random_same(void)
{
	static const char *const vcs[] = { "A", "B", "C" };
	static const enum engine_mode modes[] = { ENGINE_HIVED, ENGINE_QUOTA, ENGINE_PRIVATE };
	unsigned long long rng = 42;
	int round, rounds = test_long ? 400 : 60;

	for (round = 0; round < rounds; round++) {
		struct world w = { 0 };
		struct engine *ne;
		struct spec *ns;
		struct reconf_stats st;
		struct rec *recs = NULL;
		char why[256], *cause = NULL;
		int nrecs = 0, k, live = 0;
		enum engine_mode mode = modes[round % 3];

		w.s = work_spec(base);
		w.e = engine_create(w.s, mode, &cause);
		for (k = 0; k < 40 && w.n < 60; k++) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			int g = 1 << (int)(rng % 4), pods = 1 + (int)((rng >> 8) % 2);
			int prio = (int)((rng >> 16) % 4) - 1;
			start(&w, vcs[(rng >> 24) % 3], pods, g, prio);
		}
		/* victims of later starts no longer hold cells */
		for (k = 0; k < w.n; k++) {
			struct engine_job_info info;
			if (!engine_job(w.e, w.jobs[k].engine_id, &info) ||
			    strcmp(info.name, w.jobs[k].name) != 0) {
				w.jobs[k].state = JOB_PENDING;
				w.jobs[k].engine_id = -1;
			} else
				live++;
		}
		snapshot(&w);
		CHECK(carry(&w, base, mode, false, &ne, &ns, &st, &recs, &nrecs, why) == 0);
		CHECKF(st.kept == live && nrecs == 0, "round %d mode %d: kept %d of %d (%s)",
		    round, (int)mode, st.kept, live, nrecs ? recs[0].detail : "");
		CHECK(engine_check(ne, why, sizeof why));
		free(recs);
		engine_free(ne);
		spec_free(ns);
		world_free(&w);
	}
}

static const struct test tests[] = {
	{ "same-spec", test_same_spec },
	{ "shrunk-vc-downgrades", test_shrunk_vc_downgrades },
	{ "gone-node-requeues", test_gone_node_requeues },
	{ "removed-vc", test_removed_vc },
	{ "random-same", test_random_same },
};

TEST_MAIN(tests)
