/*
 * tsim-mech.c — the emulator's sharing mechanisms behind struct emu_mech
 * (src/sim/emu-int.h): the table is well formed, each policy turns on the
 * mechanisms it should (in table order), and emu_check, the emulator's
 * own invariants, holds through a run and catches a broken state.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/emu-int.h"
#include "spec/spec.h"
#include "test.h"
#include "emu-work.h"

#define NJOBS	120

static void
test_table(void)
{
	int i, k, n = 0;

	for (i = 0; emu_mechs[i] != NULL; i++) {
		n++;
		CHECKF(emu_mechs[i]->name != NULL && emu_mechs[i]->init != NULL,
		    "mechanism %d has no name or init", i);
		for (k = 0; k < i; k++)
			CHECKF(strcmp(emu_mechs[i]->name, emu_mechs[k]->name) != 0,
			    "two mechanisms named '%s'", emu_mechs[i]->name);
	}
	CHECKF(n == 4 && n <= EMU_MECH_MAX, "%d mechanisms", n);
}

/* The names of the mechanisms on, comma-separated, into buf. */
static void
on_names(const struct emu *m, char *buf, size_t len)
{
	int i;

	buf[0] = '\0';
	for (i = 0; i < m->non; i++) {
		if (i > 0)
			strncat(buf, ",", len - strlen(buf) - 1);
		strncat(buf, m->on[i]->name, len - strlen(buf) - 1);
	}
}

/* Create an emulator for policy on random jobs; NULL on failure. */
static struct emu *
make(const struct spec *s, struct policy *p, const char *policy, struct job *jobs,
    bool elastic)
{
	struct policy_params pp;
	struct emu_params par;
	struct emu *m;
	char *cause = NULL;
	int i;

	policy_params_init(&pp);
	if (policy_init(p, policy_find(policy), &pp, &cause) < 0) {
		fprintf(stderr, "policy_init: %s\n", cause);
		free(cause);
		return NULL;
	}
	random_jobs(s, jobs, NJOBS, 7);
	for (i = 0; elastic && i < NJOBS; i += 5)
		if (jobs[i].nmembers == 1 && jobs[i].members[0].pods == 1)
			jobs[i].elastic_max = jobs[i].gpus * 2;
	emu_params_init(&par);
	m = emu_create(s, ENGINE_HIVED, p, &par, jobs, NJOBS, &cause);
	if (m == NULL) {
		fprintf(stderr, "emu_create: %s\n", cause);
		free(cause);
		policy_release(p);
	}
	return m;
}

static void
test_on(void)
{
	static const struct {
		const char	*policy;
		bool		 elastic;
		const char	*on;
	} cases[] = {
		{ "las", false, "" },
		{ "fifo", true, "" },
		{ "gandiva", false, "migration,time-slicing" },
		{ "gandiva", true, "grow-shrink,migration,time-slicing" },
		{ "antman", false, "antman" },
	};
	struct spec *s = load_file("specs/default.yaml");
	struct job jobs[NJOBS];
	struct policy p;
	struct emu *m;
	char names[256], why[256], *cause = NULL;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if ((m = make(s, &p, cases[i].policy, jobs, cases[i].elastic)) == NULL) {
			CHECK(!"emu_create");
			continue;
		}
		on_names(m, names, sizeof names);
		CHECKF(strcmp(names, cases[i].on) == 0, "%s%s: on '%s', want '%s'",
		    cases[i].policy, cases[i].elastic ? " (elastic)" : "", names,
		    cases[i].on);
		CHECKF(m->own_sm == (strcmp(cases[i].policy, "antman") == 0),
		    "%s: own_sm %d", cases[i].policy, m->own_sm);
		CHECKF(emu_run(m, INFINITY, NULL, NULL, &cause) >= 0, "%s: %s",
		    cases[i].policy, cause != NULL ? cause : "");
		free(cause);
		cause = NULL;
		CHECKF(emu_check(m, why, sizeof why), "%s: %s", cases[i].policy, why);
		CHECK(emu_done(m));
		emu_free(m);
		policy_release(&p);
	}
	spec_free(s);
}

/* emu_check holds mid-run and fails on each invariant broken by hand. */
static void
test_check(void)
{
	struct spec *s = load_file("specs/default.yaml");
	struct job jobs[NJOBS];
	struct policy p;
	struct emu *m;
	char why[256], *cause = NULL;
	uint64_t seq;
	double h;

	if ((m = make(s, &p, "gandiva", jobs, true)) == NULL) {
		CHECK(!"emu_create");
		spec_free(s);
		return;
	}
	CHECK(emu_run(m, jobs[NJOBS / 2].submit, NULL, NULL, &cause) >= 0);
	free(cause);
	CHECKF(emu_check(m, why, sizeof why), "%s", why);
	CHECK(m->nheap > 1);

	m->live++;
	CHECK(!emu_check(m, why, sizeof why) && strstr(why, "live") != NULL);
	m->live--;

	seq = m->heap[m->nheap - 1].seq;
	m->heap[m->nheap - 1].seq = m->seq;
	CHECK(!emu_check(m, why, sizeof why) && strstr(why, "sequence") != NULL);
	m->heap[m->nheap - 1].seq = seq;

	h = m->heap[0].t;
	m->heap[0].t = m->heap[m->nheap - 1].t + 1;
	CHECK(!emu_check(m, why, sizeof why) && strstr(why, "parent") != NULL);
	m->heap[0].t = h;

	h = m->horizon;
	m->horizon = m->now - 1;
	CHECK(!emu_check(m, why, sizeof why) && strstr(why, "last tick") != NULL);
	m->horizon = h;

	CHECKF(emu_check(m, why, sizeof why), "%s", why);
	emu_free(m);
	policy_release(&p);
	spec_free(s);
}

static const struct test tests[] = {
	{ "table", test_table },
	{ "on", test_on },
	{ "check", test_check },
};

TEST_MAIN(tests)
