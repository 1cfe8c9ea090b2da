/*
 * tsim-gandiva.c — Gandiva's node choice (its Algorithm 1) in the
 * emulator, one hand-worked case per branch, on one rack of four 4-GPU
 * nodes (n0..n3) that VC A holds whole:
 *  1. same affinity, least loaded first (over a lower, fuller node);
 *  2. an unallocated node (over relaxed affinity);
 *  3. relaxed affinity when no same-affinity or empty node has room;
 *  4. over-subscription on a same-affinity node (time-sliced, no cells);
 *  5. queued when nothing fits and no node has the job's affinity;
 * and that migrations stay inside the job's VC (two VCs on the rack).
 * fifo on the same jobs is the contrast: the engine's buddy placement
 * packs into the cells it already holds, so the cases tell them apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/emu.h"
#include "test.h"
#include "emu-work.h"

struct run {
	struct spec	*s;
	struct policy	 p;
	struct emu	*m;
};

static void
start_run(struct run *r, const char *policy, struct job *jobs, int n, double until)
{
	struct policy_params pp;
	struct emu_params ep;
	char *cause = NULL;

	r->s = rack4();
	policy_params_init(&pp);
	emu_params_init(&ep);
	CHECK(policy_init(&r->p, policy_find(policy), &pp, &cause) == 0);
	r->m = emu_create(r->s, ENGINE_HIVED, &r->p, &ep, jobs, n, &cause);
	CHECKF(r->m != NULL, "%s", cause ? cause : "");
	CHECK(emu_run(r->m, until, NULL, NULL, &cause) >= 0);
}

static void
end_run(struct run *r)
{
	emu_free(r->m);
	policy_release(&r->p);
	spec_free(r->s);
}

/* The node job runs on (its cells), "" if it holds none. */
static const char *
node_of(const struct run *r, int job)
{
	struct engine_placement pl;
	int node;

	if (!emu_job_placement(r->m, job, &pl) || pl.nleaves == 0)
		return "";
	node = r->s->cells[pl.leaves[0]].node;
	return node >= 0 ? r->s->nodes[node].name : "?";
}

static void
min_load_jobs(struct job *jobs)
{
	int i;

	for (i = 0; i < 7; i++)
		add(jobs, i, 0, i, 1, 1e6);
	jobs[0].duration = 10;
	jobs[6].submit = 20;
}

/* Branch 1: j0-j3 fill n0, j4 opens n1, j5 joins it; j0 ends (n0 3/4,
   n1 2/4); j6 goes to n1, the less loaded same-affinity node. */
static void
test_same_affinity_min_load(void)
{
	struct job jobs[7];
	struct run r;
	int i;

	min_load_jobs(jobs);
	start_run(&r, "gandiva", jobs, 7, 30);
	for (i = 1; i < 4; i++)
		CHECK_STREQ(node_of(&r, i), "n0");
	CHECK_STREQ(node_of(&r, 4), "n1");	/* n0 full: an empty node */
	CHECK_STREQ(node_of(&r, 5), "n1");	/* same affinity with room */
	CHECK(jobs[0].state == JOB_COMPLETED);
	CHECK_STREQ(node_of(&r, 6), "n1");	/* 2/4 beats n0's 3/4 */
	end_run(&r);

	/* the engine alone fills the freed GPU of n0 */
	min_load_jobs(jobs);
	start_run(&r, "fifo", jobs, 7, 30);
	CHECK_STREQ(node_of(&r, 6), "n0");
	end_run(&r);
}

/* Branches 2-5 on one sequence of arrivals (GPUs @ time): 1@0 2@1 1@2
   2@3 4@4 4@5 2@6 1@7 3@8. */
static void
test_branches(void)
{
	static const int gpus[] = { 1, 2, 1, 2, 4, 4, 2, 1, 3 };
	struct job jobs[9];
	const struct rec *log;
	struct run r;
	int i, n, guest_starts = 0;

	for (i = 0; i < 9; i++)
		add(jobs, i, 0, i, gpus[i], 1e6);
	start_run(&r, "gandiva", jobs, 9, 20);
	CHECK_STREQ(node_of(&r, 0), "n0");	/* empty cluster: the first node */
	CHECK_STREQ(node_of(&r, 1), "n1");	/* 2: unallocated over relaxed n0 */
	CHECK_STREQ(node_of(&r, 2), "n0");	/* 1: same affinity over empty n2 */
	CHECK_STREQ(node_of(&r, 3), "n1");
	CHECK_STREQ(node_of(&r, 4), "n2");	/* 2 */
	CHECK_STREQ(node_of(&r, 5), "n3");	/* 2 */
	CHECK_STREQ(node_of(&r, 6), "n0");	/* 3: relaxed, n0 has 2 idle GPUs */
	/* 4: over-subscribed on n0, the 1-GPU jobs' node: runs without cells */
	CHECK(jobs[7].state == JOB_RUNNING || jobs[7].state == JOB_SUSPENDED);
	CHECK_STREQ(node_of(&r, 7), "");
	log = emu_journal(r.m, &n);
	for (i = 0; i < n; i++)
		if (log[i].kind == REC_START && log[i].job == 7) {
			CHECK_STREQ(log[i].detail, "n0 (time-sliced)");
			guest_starts++;
		}
	CHECK_INTEQ(guest_starts, 1);
	/* 5: no room and no 3-GPU node to share: it waits */
	CHECK(jobs[8].state == JOB_PENDING);
	end_run(&r);

	/* fifo: the engine packs j1 next to j0, and nothing is time-sliced */
	for (i = 0; i < 9; i++)
		add(jobs, i, 0, i, gpus[i], 1e6);
	start_run(&r, "fifo", jobs, 9, 20);
	CHECK_STREQ(node_of(&r, 1), "n0");
	CHECK(jobs[7].state == JOB_PENDING);
	end_run(&r);
}

/*
 * Migrations stay inside the job's VC: VCs A and B of two nodes each on
 * the rack. A's 1-GPU jobs a0-a3 fill n0, a4-a7 n1; a8 finds A full and
 * is time-sliced on n0. a5-a7 end at 500 (n1 1/4 loaded); a0 ends at
 * 1240 (time-sliced with a8, it ran slower) and gives its place to the guest a8, which Algorithm 1 sends to
 * the less loaded n1: a migration, onto cells bound to A (B's two nodes
 * are idle all along: a choice blind to VCs would take them).
 */
static void
test_migrations_in_vc(void)
{
	struct job jobs[9];
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	struct spec *s = rack4_two_vcs(2);
	struct engine_placement pl;
	const struct rec *log;
	struct emu *m;
	char *cause = NULL;
	int i, k, n, migrations = 0, vc_a = -1;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	for (i = 0; i < s->nvcs; i++)
		if (strcmp(s->vcs[i].name, "A") == 0)
			vc_a = i;
	for (i = 0; i < 9; i++)
		add(jobs, i, vc_a, i, 1, 1e5);
	jobs[0].duration = 1000;
	for (i = 5; i < 8; i++)
		jobs[i].duration = 490;
	policy_params_init(&pp);
	emu_params_init(&ep);
	CHECK(policy_init(&p, policy_find("gandiva"), &pp, &cause) == 0);
	m = emu_create(s, ENGINE_HIVED, &p, &ep, jobs, 9, &cause);
	CHECKF(m != NULL, "%s", cause ? cause : "");
	CHECK(emu_run(m, 900, NULL, NULL, &cause) >= 0);
	CHECK(!emu_job_placement(m, 8, &pl));		/* a guest so far */
	emu_drain(m);
	CHECK(emu_run(m, 3000, NULL, NULL, &cause) >= 0);
	log = emu_journal(m, &n);
	for (i = 0; i < n; i++)
		if (log[i].kind == REC_MIGRATE) {
			CHECK_INTEQ(log[i].job, 8);
			CHECK_STREQ(log[i].detail, "n1");
			migrations++;
		}
	CHECK_INTEQ(migrations, 1);
	CHECK(emu_job_placement(m, 8, &pl));
	for (k = 0; k < pl.nleaves; k++) {
		struct engine_cell_info ci;
		engine_cell(emu_engine(m), pl.leaves[k], &ci);
		CHECKF(ci.vc == vc_a, "a8 migrated onto a cell of VC %d", ci.vc);
	}
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

static const struct test tests[] = {
	{ "same-affinity-min-load", test_same_affinity_min_load },
	{ "branches", test_branches },
	{ "migrations-in-vc", test_migrations_in_vc },
};

TEST_MAIN(tests)
