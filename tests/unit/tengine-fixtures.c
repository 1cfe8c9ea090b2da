/*
 * tengine-fixtures.c — the engine on the public HiveD example configs and
 * the shipped specs: in every sharing mode each VC can hold its whole
 * assignment at once (1-GPU jobs until full, VCs interleaved), nothing more;
 * leaf types route requests to the right chains; releasing everything
 * restores the initial free lists exactly.
 */
#include <string.h>

#include "engine/engine.h"
#include "spec/spec.h"
#include "test.h"

static const char *const files[] = {
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
	"specs/default.yaml",
	"specs/hived-fig3.yaml",
	"specs/philly.yaml",
};

/* Fill every VC with 1-GPU jobs (round robin); return jobs placed per VC. */
static void
fill(struct engine *e, const struct spec *s, long long *placed, int pinned)
{
	struct engine_plan p;
	struct engine_req r;
	char name[48];
	int vc, seq = 0, progress = 1;

	engine_plan_init(&p);
	memset(placed, 0, sizeof(long long) * (size_t)s->nvcs);
	while (progress) {
		progress = 0;
		for (vc = 0; vc < s->nvcs; vc++) {
			int k;
			memset(&r, 0, sizeof r);
			snprintf(name, sizeof name, "f%d", seq++);
			r.name = name;
			r.vc = vc;
			r.leaf_type = -1;
			r.pin = -1;
			r.nmembers = 1;
			r.members[0].pods = 1;
			r.members[0].gpus = 1;
			if (engine_alloc(e, &r, &p) >= 0) {
				placed[vc]++;
				progress = 1;
				continue;
			}
			/* then its pinned cells */
			for (k = 0; pinned && k < s->vcs[vc].npins; k++) {
				snprintf(name, sizeof name, "f%d", seq++);
				r.pin = s->vcs[vc].pins[k];
				if (engine_alloc(e, &r, &p) >= 0) {
					placed[vc]++;
					progress = 1;
					break;
				}
			}
		}
	}
	engine_plan_release(&p);
}

static void
test_fill_every_vc(void)
{
	size_t f;
	int m, vc, c, l, j;
	char *cause = NULL, why[300];

	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		struct spec_diags d;
		struct spec *s;

		spec_diags_init(&d);
		s = spec_load(files[f], &d);
		CHECKF(s != NULL, "%s does not load", files[f]);
		if (!s) {
			spec_diags_release(&d);
			continue;
		}
		for (m = ENGINE_HIVED; m <= ENGINE_PRIVATE; m++) {
			struct engine *e = engine_create(s, (enum engine_mode)m, &cause);
			long long placed[64], before[64][SPEC_MAX_LEVELS + 1];
			CHECKF(e != NULL, "%s: %s", files[f], cause ? cause : "");
			if (!e)
				continue;
			for (c = 0; c < s->nchains && c < 64; c++)
				for (l = 1; l <= s->chains[c].levels; l++)
					before[c][l] = engine_free_cells(e, c, l);
			fill(e, s, placed, m != ENGINE_QUOTA);
			for (vc = 0; vc < s->nvcs && vc < 64; vc++) {
				struct engine_vc_usage u;
				engine_vc_usage(e, vc, &u);
				CHECKF(placed[vc] == u.gpus, "%s mode %s vc '%s': %lld of %lld gpus",
				    files[f], engine_mode_name((enum engine_mode)m),
				    s->vcs[vc].name, placed[vc], u.gpus);
			}
			CHECKF(engine_check(e, why, sizeof why), "%s: %s", files[f], why);
			for (j = 0; j < engine_job_limit(e); j++)
				engine_release(e, j);
			if (m != ENGINE_QUOTA)
				for (c = 0; c < s->nchains && c < 64; c++)
					for (l = 1; l <= s->chains[c].levels; l++)
						CHECKF(engine_free_cells(e, c, l) == before[c][l],
						    "%s: chain %d level %d free cells not restored",
						    files[f], c, l);
			engine_free(e);
		}
		spec_free(s);
		spec_diags_release(&d);
	}
}

static void
test_leaf_types(void)
{
	struct spec_diags d;
	struct spec *s;
	struct engine *e;
	struct engine_plan p;
	struct engine_req r;
	char *cause = NULL;
	int vc1, vc2, ct1, p100;

	spec_diags_init(&d);
	s = spec_load("tests/fixtures/hived-configs/design.yaml", &d);
	CHECK(s != NULL);
	if (!s)
		return;
	e = engine_create(s, ENGINE_HIVED, &cause);
	engine_plan_init(&p);
	vc1 = spec_find_vc(s, "VC1");
	vc2 = spec_find_vc(s, "VC2");
	ct1 = spec_find_type(s, "CT1");
	p100 = spec_find_type(s, "DGX1-P100");
	CHECK(vc1 >= 0 && vc2 >= 0 && ct1 >= 0 && p100 >= 0);
	memset(&r, 0, sizeof r);
	r.name = "t1";
	r.vc = vc2;
	r.leaf_type = ct1;
	r.pin = -1;
	r.nmembers = 1;
	r.members[0].pods = 1;
	r.members[0].gpus = 2;
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(p.chain >= 0 && s->chains[p.chain].leaf_type == ct1);
	r.name = "t2";
	r.leaf_type = p100;
	r.members[0].gpus = 8;
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(p.chain >= 0 && s->chains[p.chain].leaf_type == p100);
	/* VC1 holds no DGX1-P100 cells */
	r.name = "t3";
	r.vc = vc1;
	CHECK(engine_alloc(e, &r, &p) < 0);
	CHECK_INTEQ(p.fail, ENGINE_ENOTYPE);
	/* opportunistic: any cluster-wide P100 */
	r.priority = -1;
	r.members[0].gpus = 2;
	CHECK(engine_alloc(e, &r, &p) >= 0);
	CHECK(p.opportunistic && s->chains[p.chain].leaf_type == p100);
	engine_plan_release(&p);
	engine_free(e);
	spec_free(s);
	spec_diags_release(&d);
}

static const struct test tests[] = {
	{ "fill-every-vc", test_fill_every_vc },
	{ "leaf-types", test_leaf_types },
};
TEST_MAIN(tests)
