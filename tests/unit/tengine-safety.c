/*
 * tengine-safety.c — sharing safety, randomized.
 *
 * Random feasible specs (chains of 2..5 levels, split factors 1..3, node
 * level anywhere from 2 to the top, shared or distinct leaf types, VC
 * assignments carved out of the physical trees at random levels) and long
 * random sequences of guaranteed requests at several priorities (some lazy),
 * releases, opportunistic noise and opportunistic releases.
 *
 * The oracle is the same spec in private mode, where each VC runs alone on
 * a private copy of its cells: a guaranteed request is legal when it fits
 * there. Every legal request must succeed in the shared (hived) cluster, and
 * nothing illegal may; debug builds check every invariant (Theorem 1
 * included) after each step. At least 10^5 operations per normal run;
 * CELLAR_LONG=1 (make check-long) runs ten times more.
 */
#include <string.h>

#include "core/strbuf.h"
#include "engine/engine.h"
#include "engine/engine-int.h"	/* theorem1_holds */
#include "spec/spec.h"
#include "test.h"
#include "engine-work.h"	/* fig3, work_spec */

static unsigned long long rng;
static unsigned
xr(void)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
	return (unsigned)(rng >> 17);
}
#define RND(n) ((int)(xr() % (unsigned)(n)))

struct gen_chain {
	int levels, node_level, ntop, nchild[8];
};

static void
emit_cell(struct strbuf *sb, const struct gen_chain *g, int c, int level, int indent,
    int *node_seq)
{
	int k;

	if (level == g->node_level) {
		strbuf_addchars(sb, ' ', (size_t)indent);
		strbuf_addf(sb, "- cellAddress: c%dn%d\n", c, (*node_seq)++);
		return;
	}
	strbuf_addchars(sb, ' ', (size_t)indent);
	strbuf_adds(sb, "- cellChildren:\n");
	for (k = 0; k < g->nchild[level]; k++)
		emit_cell(sb, g, c, level - 1, indent + 4, node_seq);
}

/* Carve VC assignments out of one subtree: assign, split or leave it. */
static void
carve(const struct gen_chain *g, int level, int nvc, int counts[][8])
{
	int r = RND(10), k;

	if (r < 4 || level == 1) {
		if (RND(5) > 0)
			counts[RND(nvc)][level]++;
		return;
	}
	for (k = 0; k < g->nchild[level]; k++)
		carve(g, level - 1, nvc, counts);
}

static char *
gen_spec(int nchains, int nvc)
{
	struct strbuf sb = STRBUF_INIT;
	struct gen_chain g[3];
	int counts[3][4][8], c, l, v, t, seq;
	bool shared_leaf = RND(2) == 0;

	memset(counts, 0, sizeof counts);
	strbuf_adds(&sb, "physicalCluster:\n  cellTypes:\n");
	for (c = 0; c < nchains; c++) {
		g[c].levels = 2 + RND(4);
		g[c].node_level = 2 + RND(g[c].levels - 1);
		g[c].ntop = 1 + RND(3);
		for (l = 2; l <= g[c].levels; l++) {
			g[c].nchild[l] = 1 + RND(3);
			strbuf_addf(&sb, "    C%dL%d:\n      childCellType: ", c, l);
			if (l == 2)
				strbuf_addf(&sb, "G%d\n", shared_leaf ? 0 : c);
			else
				strbuf_addf(&sb, "C%dL%d\n", c, l - 1);
			strbuf_addf(&sb, "      childCellNumber: %d\n", g[c].nchild[l]);
			if (l == g[c].node_level)
				strbuf_adds(&sb, "      isNodeLevel: true\n");
		}
	}
	strbuf_adds(&sb, "  physicalCells:\n");
	for (c = 0; c < nchains; c++) {
		seq = 0;
		for (t = 0; t < g[c].ntop; t++) {
			strbuf_addf(&sb, "  - cellType: C%dL%d\n", c, g[c].levels);
			if (g[c].node_level == g[c].levels)
				strbuf_addf(&sb, "    cellAddress: c%dn%d\n", c, seq++);
			else {
				int k;
				strbuf_adds(&sb, "    cellChildren:\n");
				for (k = 0; k < g[c].nchild[g[c].levels]; k++)
					emit_cell(&sb, &g[c], c, g[c].levels - 1, 4, &seq);
			}
			carve(&g[c], g[c].levels, nvc, counts[c]);
		}
	}
	strbuf_adds(&sb, "virtualClusters:\n");
	for (v = 0; v < nvc; v++) {
		strbuf_addf(&sb, "  vc%d:\n    virtualCells:\n", v);
		int any = 0;
		for (c = 0; c < nchains; c++)
			for (l = g[c].levels; l >= 1; l--) {
				if (counts[c][v][l] == 0)
					continue;
				strbuf_addf(&sb, "    - cellType: C%dL%d", c, g[c].levels);
				for (t = g[c].levels - 1; t >= l; t--) {
					if (t == 1)
						strbuf_addf(&sb, ".G%d", shared_leaf ? 0 : c);
					else
						strbuf_addf(&sb, ".C%dL%d", c, t);
				}
				strbuf_addf(&sb, "\n      cellNumber: %d\n", counts[c][v][l]);
				any = 1;
			}
		if (!any)
			strbuf_addf(&sb, "    - cellType: C0L%d.C0L%d\n      cellNumber: 0\n",
			    g[0].levels, g[0].levels - 1);
	}
	return strbuf_detach(&sb, NULL);
}

struct tjob {
	char	name[16];
	int	vc;
	bool	opp;
};

/* Run one random spec for `ops` operations; returns the number checked. */
static int
run_spec(int seed, int ops, int *legal, int *illegal, int *mismatch, int *badcheck)
{
	struct spec_diags d;
	struct spec *s;
	struct engine *h, *p;
	struct engine_plan hp, pp;
	struct engine_req r;
	struct tjob *jobs = calloc((size_t)ops + 1, sizeof *jobs);
	int nj = 0, seq = 0, i, k, op, done = 0;
	char *text, *cause = NULL, why[512];

	rng = 0x2545F4914F6CDD1DULL ^ ((unsigned long long)seed * 0x9E3779B97F4A7C15ULL);
	text = gen_spec(1 + RND(2), 1 + RND(4));
	spec_diags_init(&d);
	s = spec_load_string("random.yaml", text, strlen(text), &d);
	if (s == NULL) {
		/* a VC with nothing carved gets "cellNumber: 0": skip that spec */
		spec_diags_release(&d);
		free(text);
		free(jobs);
		return 0;
	}
	h = engine_create(s, ENGINE_HIVED, &cause);
	p = engine_create(s, ENGINE_PRIVATE, &cause);
	engine_plan_init(&hp);
	engine_plan_init(&pp);
	for (op = 0; op < ops && h && p; op++) {
		int what = RND(100);
		memset(&r, 0, sizeof r);
		r.leaf_type = -1;
		r.pin = -1;
		r.nmembers = 1;
		if (what < 50 || nj == 0) {
			bool opp = what >= 35 && what < 50;
			snprintf(jobs[nj].name, sizeof jobs[nj].name, "j%d", seq++);
			r.name = jobs[nj].name;
			r.vc = RND(s->nvcs);
			r.members[0].pods = 1 + (RND(4) == 0);
			r.members[0].gpus = 1 << RND(4);
			if (RND(3) == 0)
				r.members[0].gpus = 1 + RND(6);
			r.priority = opp ? -1 : 5 * RND(3);
			r.lazy = RND(2);
			if (opp) {
				engine_alloc(h, &r, &hp);
			} else {
				int pr = engine_place(p, &r, &pp), hr = engine_alloc(h, &r, &hp);
				if (pr == 0) {
					(*legal)++;
					if (hr < 0) {
						(*mismatch)++;
						fprintf(stderr, "seed %d op %d: legal request "
						    "'%s' (%dx%d prio %d in %s) failed: %s\n",
						    seed, op, r.name, r.members[0].pods,
						    r.members[0].gpus, r.priority,
						    s->vcs[r.vc].name, hp.why);
					}
					if (engine_alloc(p, &r, &pp) < 0)
						(*mismatch)++;
				} else {
					(*illegal)++;
					if (hr >= 0) {
						(*mismatch)++;
						fprintf(stderr, "seed %d op %d: illegal request "
						    "placed in the shared cluster\n", seed, op);
					}
				}
			}
			if (engine_job_find(h, r.name) >= 0) {
				jobs[nj].vc = r.vc;
				jobs[nj].opp = opp;
				nj++;
			}
		} else {
			k = RND(nj);
			engine_release(h, engine_job_find(h, jobs[k].name));
			if (!jobs[k].opp)
				engine_release(p, engine_job_find(p, jobs[k].name));
			jobs[k] = jobs[--nj];
		}
		/* victims: drop what is gone, demote what was downgraded */
		for (i = 0; i < nj; i++) {
			struct engine_job_info ji;
			int id = engine_job_find(h, jobs[i].name);
			if (id < 0) {
				if (!jobs[i].opp && engine_job_find(p, jobs[i].name) >= 0)
					(*mismatch)++;
				jobs[i--] = jobs[--nj];
				continue;
			}
			engine_job(h, id, &ji);
			if (!jobs[i].opp && ji.downgraded) {
				jobs[i].opp = true;
				if (engine_job_find(p, jobs[i].name) >= 0)
					(*mismatch)++;
			} else if (!jobs[i].opp && engine_job_find(p, jobs[i].name) < 0)
				(*mismatch)++;
		}
		done++;
	}
	if (h && !engine_check(h, why, sizeof why)) {
		(*badcheck)++;
		fprintf(stderr, "seed %d: %s\n", seed, why);
	}
	if (!h || !p)
		(*badcheck)++;
	engine_plan_release(&hp);
	engine_plan_release(&pp);
	engine_free(h);
	engine_free(p);
	spec_free(s);
	spec_diags_release(&d);
	free(text);
	free(jobs);
	return done;
}

static void
test_random_safety(void)
{
	int legal = 0, illegal = 0, mismatch = 0, badcheck = 0, ops = 0, seed;
	int target = test_long ? 1000000 : 100000;

	for (seed = 1; ops < target; seed++)
		ops += run_spec(seed, 2000, &legal, &illegal, &mismatch, &badcheck);
	CHECKF(mismatch == 0, "%d requests differ between shared and private", mismatch);
	CHECKF(badcheck == 0, "%d engines failed their invariants", badcheck);
	CHECKF(ops >= target, "only %d operations", ops);
	/* the generator must exercise both outcomes */
	CHECKF(legal > ops / 10 && illegal > ops / 50, "legal %d illegal %d", legal, illegal);
	printf("# %d operations over %d specs: %d legal, %d illegal requests\n",
	    ops, seed - 1, legal, illegal);
}

/*
 * Theorem 1 at its edge, on the HiveD Figure 3 chain (GPU, SW of 2, SOCK
 * of 2 SW, NODE of 2 SOCK, RACK of 4 NODE): cells owed at each level must
 * be covered by free cells of that level or above, in units of the
 * level; one unit short fails, exactly covered holds.
 */
static void
test_theorem1_edges(void)
{
	struct spec *s = work_spec(fig3);
	long long owed[8] = { 0 }, fr[8] = { 0 };
	int bad = 0;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	owed[1] = 1;			/* a GPU owed, nothing free */
	CHECK(!theorem1_holds(s, 0, owed, fr, &bad) && bad == 1);
	fr[1] = 1;			/* exactly covered */
	CHECK(theorem1_holds(s, 0, owed, fr, &bad));
	owed[2] = 1;			/* and a switch (2 GPUs): 3 needed, 1 free */
	CHECK(!theorem1_holds(s, 0, owed, fr, &bad) && bad == 1);
	fr[2] = 1;			/* a free switch covers it at level 2, and
					   level 1 has 1 + 2 GPUs for 1 + 2 owed */
	CHECK(theorem1_holds(s, 0, owed, fr, &bad));
	owed[3] = 2;			/* two sockets (8 GPUs) against one node */
	fr[4] = 1;
	CHECK(theorem1_holds(s, 0, owed, fr, &bad));
	owed[3] = 3;			/* three: short, first seen in GPUs */
	CHECK(!theorem1_holds(s, 0, owed, fr, &bad) && bad == 1);
	spec_free(s);
}

static const struct test tests[] = {
	{ "random-safety", test_random_safety },
	{ "theorem1-edges", test_theorem1_edges },
};
TEST_MAIN(tests)
