/*
 * tspec-load.c — the spec loader on valid input: HiveD's own example
 * configs, the specs cellar ships, default and out-of-order addresses, the
 * breadth-first layout checked over every cell, the lookup helpers, and a
 * spec of 65,536 GPUs built in memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "core/strbuf.h"
#include "tspec.h"

struct fixture {
	const char	*file;
	int		 ntypes, nchains, ncells, nnodes;
	long long	 gpus;
	int		 nvcs, npins;
};

/*
 * Counted by hand from the files. design.yaml: chains CT1-NODE (3 nodes x
 * 2 GPUs: 9 cells), 3-DGX1-P100-NODE (1+3+6+12+24 = 46), DGX2-V100-NODE
 * (2 x 31 = 62), 3-DGX2-V100-NODE (1+3x31 = 94), 4-DGX2-V100-NODE (2 x
 * (1+2+4x31) = 254), 2-IB-DGX2-V100-NODE (1+2x31 = 63): 528 cells, 6+24+32+
 * 48+128+32 = 270 GPUs; 21 defined types + 5 leaf types; 21 node-level
 * cells, 20 nodes (1.0.0.2 is in two chains).
 */
static const struct fixture fixtures[] = {
	{ "basic.yaml", 4, 1, 22, 3, 12, 2, 1 },
	{ "default.yaml", 0, 0, 0, 0, 0, 0, 0 },
	{ "design.yaml", 26, 6, 528, 20, 270, 2, 3 },
	{ "feature-hived-config-1.yaml", 5, 2, 37, 5, 20, 3, 1 },
	{ "feature-hived-config-2.yaml", 8, 2, 37, 5, 20, 2, 0 },
	{ "feature-hived-config-3.yaml", 8, 2, 37, 5, 20, 2, 0 },
	{ "feature-hived-config-33.yaml", 8, 1, 29, 4, 16, 2, 0 },
	{ "feature-hived-config-4.yaml", 8, 2, 44, 6, 24, 2, 0 },
	{ "feature-hived-config-5.yaml", 8, 2, 37, 5, 20, 1, 0 },
	{ "feature-hived-config-6.yaml", 8, 2, 37, 5, 20, 2, 0 },
	{ "feature-hived-config-7.yaml", 8, 2, 30, 4, 16, 2, 0 },
	{ "feature-hived-config-8.yaml", 5, 2, 37, 5, 20, 3, 1 },
};

static struct spec *
load_file(const char *path, struct spec_diags *d)
{
	spec_diags_init(d);
	return spec_load(path, d);
}

/* Every cell's full path leads back to it. */
static void
check_round_trip(const struct spec *s)
{
	char buf[512];
	int i, bad = 0;

	for (i = 0; i < s->ncells; i++) {
		spec_cell_path(s, i, buf, sizeof buf);
		if (spec_find_cell(s, buf) != i && bad++ == 0)
			CHECKF(0, "%.60s: cell %d '%.200s' finds %d", s->path, i, buf,
			    spec_find_cell(s, buf));
	}
	CHECK(bad == 0);
}

static void
test_hived_fixtures(void)
{
	size_t i;

	for (i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
		const struct fixture *f = &fixtures[i];
		char path[256];
		struct spec_diags d;
		struct spec *s;

		snprintf(path, sizeof path, "tests/fixtures/hived-configs/%s", f->file);
		s = load_file(path, &d);
		CHECKF(s != NULL && d.errors == 0, "%.60s: %.380s", path, all_diags(&d));
		if (s == NULL) {
			spec_diags_release(&d);
			continue;
		}
		CHECKF(s->ntypes == f->ntypes, "%s types %d", f->file, s->ntypes);
		CHECKF(s->nchains == f->nchains, "%s chains %d", f->file, s->nchains);
		CHECKF(s->ncells == f->ncells, "%s cells %d", f->file, s->ncells);
		CHECKF(s->nnodes == f->nnodes, "%s nodes %d", f->file, s->nnodes);
		CHECKF(s->gpus == f->gpus, "%s gpus %lld", f->file, s->gpus);
		CHECKF(s->nvcs == f->nvcs, "%s vcs %d", f->file, s->nvcs);
		CHECKF(s->npins == f->npins, "%s pins %d", f->file, s->npins);
		CHECK_INTEQ(check_spec_invariants(s), 0);
		check_round_trip(s);
		spec_free(s);
		spec_diags_release(&d);
	}
}

static void
test_kubernetes_keys_are_notes(void)
{
	struct spec_diags d;
	struct spec *s = load_file("tests/fixtures/hived-configs/feature-hived-config-1.yaml", &d);
	size_t i;
	int notes = 0;

	CHECK(s != NULL);
	CHECK_INTEQ(d.errors, 0);
	CHECK_INTEQ(d.warnings, 0);
	CHECK_DIAG(&d, "tests/fixtures/hived-configs/feature-hived-config-1.yaml:1:1: note: ",
	    "'kubeApiServerAddress' ignored");
	CHECK_DIAG(&d, "tests/fixtures/hived-configs/feature-hived-config-1.yaml:4:3: note: ",
	    "'skuTypes' ignored");
	for (i = 0; i < d.n; i++)
		notes += d.v[i].severity == SPEC_NOTE;
	CHECK_INTEQ(notes, 2);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_empty_spec(void)
{
	struct spec_diags d;
	struct spec *s = load_file("tests/fixtures/hived-configs/default.yaml", &d);

	/* HiveD's all-defaults config: no cells, a warning, not an error. */
	CHECK(s != NULL);
	CHECK_INTEQ(d.errors, 0);
	CHECK_INTEQ(d.warnings, 1);
	CHECK_DIAG(&d, "tests/fixtures/hived-configs/default.yaml:1:1: warning: ", "empty spec");
	if (s != NULL) {
		CHECK_INTEQ(s->ncells, 0);
		CHECK_INTEQ(s->gpus, 0);
		CHECK_INTEQ(spec_find_cell(s, "0"), -1);
		CHECK_INTEQ(spec_find_node(s, "x"), -1);
	}
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_design_multi_chain_nodes(void)
{
	struct spec_diags d;
	struct spec *s = load_file("tests/fixtures/hived-configs/design.yaml", &d);
	int n, ct1, dgx1, cell, j, vc1, vc2;
	char buf[256];

	CHECK(s != NULL);
	if (s == NULL)
		return;
	/* 1.0.0.2 is a CT1-NODE and a DGX1-P100-NODE: one node, two cells. */
	n = spec_find_node(s, "1.0.0.2");
	CHECK(n >= 0);
	ct1 = spec_find_chain(s, "CT1-NODE");
	dgx1 = spec_find_chain(s, "3-DGX1-P100-NODE");
	CHECK(ct1 >= 0 && dgx1 >= 0);
	if (n >= 0) {
		CHECK_INTEQ(s->nodes[n].ncells, 2);
		CHECK_INTEQ(s->cells[s->nodes[n].cells[0]].chain, ct1);
		CHECK_INTEQ(s->cells[s->nodes[n].cells[1]].chain, dgx1);
	}
	/* Its CT1 GPUs are 8 and 9 (explicit), its P100 GPUs 0..7 (default). */
	CHECK(spec_find_cell(s, "1.0.0.2/8") >= 0);
	CHECK(spec_find_cell(s, "1.0.0.2/9") >= 0);
	/* A node path tries each chain of the node: "0" is a P100 socket. */
	cell = spec_find_cell(s, "1.0.0.2/0");
	CHECK(cell >= 0 && s->cells[cell].chain == dgx1 && s->cells[cell].level == 3);
	CHECK_INTEQ(spec_find_cell(s, "1.0.0.2/10"), -1);
	cell = spec_find_cell(s, "3/1.0.0.2/1/3/7");
	CHECK(cell >= 0);
	if (cell >= 0) {
		CHECK_INTEQ(s->cells[cell].chain, dgx1);
		CHECK_INTEQ(s->cells[cell].level, 1);
		CHECK_STREQ(s->types[s->cells[cell].type].name, "DGX1-P100");
		/* written nowhere: located at the nearest written ancestor */
		CHECK_INTEQ(s->cells[cell].loc.line, 167);
	}
	CHECK_INTEQ(spec_find_cell(s, "1.0.0.2/1/3/7"), cell);
	/* The pinned CT1 GPU. */
	j = spec_find_pin(s, "VC1-YQW-CT1");
	CHECK(j >= 0);
	if (j >= 0) {
		CHECK_STREQ(spec_cell_path(s, s->pins[j].cell, buf, sizeof buf),
		    "1.0.0.2/8");
		CHECK_INTEQ(spec_find_cell(s, "VC1-YQW-CT1"), s->pins[j].cell);
		CHECK_INTEQ(s->pins[j].loc.line, 158);
		CHECK_INTEQ(s->pins[j].vc, spec_find_vc(s, "VC1"));
	}
	/* Default addresses above node level: index in physicalCells at the
	 * top (entry 7), index within the top cell below it. */
	j = spec_find_pin(s, "VC1-YQW-DGX2");
	CHECK(j >= 0);
	if (j >= 0)
		CHECK_STREQ(spec_cell_path(s, s->pins[j].cell, buf, sizeof buf), "7/0");
	/* a short buffer holds what fits, cut as snprintf cuts */
	j = spec_find_pin(s, "VC1-YQW-CT1");
	if (j >= 0) {
		char small[16], exp[16];
		size_t k;

		for (k = 1; k <= 12; k++) {
			snprintf(exp, k, "%s", "1.0.0.2/8");
			CHECK_STREQ(spec_cell_path(s, s->pins[j].cell, small, k), exp);
		}
	}
	CHECK(spec_find_cell(s, "8/1/0.0.4.3") >= 0);
	CHECK_INTEQ(spec_find_cell(s, "VC1-YQW-IB-DGX2"), spec_find_cell(s, "9"));
	/* VCs: bare DGX2-V100-NODE names its own chain, levels add up. */
	vc1 = spec_find_vc(s, "VC1");
	vc2 = spec_find_vc(s, "VC2");
	CHECK(vc1 >= 0 && vc2 >= 0);
	CHECK_INTEQ(s->vcs[vc1].ncells, 4);
	CHECK_INTEQ(s->vcs[vc1].npins, 3);
	CHECK_INTEQ(spec_vc_cells_at(s, vc1, spec_find_chain(s, "4-DGX2-V100-NODE"), 5), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, vc1, spec_find_chain(s, "4-DGX2-V100-NODE"), 6), 1);
	CHECK_INTEQ(spec_vc_cells_at(s, vc1, spec_find_chain(s, "DGX2-V100-NODE"), 5), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, vc2, dgx1, 4), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, vc2, dgx1, 3), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, vc2, ct1, 2), 1);
	CHECK_INTEQ(spec_vc_cells_at(s, vc2, ct1, 1), 0);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_out_of_order_addresses(void)
{
	/* design.yaml node 1.0.0.0 lists GPUs 1,3,4,7,0,2,6,5 in that order. */
	static const char *const order[] = { "1", "3", "4", "7", "0", "2", "6", "5" };
	static const int lines[] = { 197, 198, 201, 202, 207, 208, 211, 212 };
	struct spec_diags d;
	struct spec *s = load_file("tests/fixtures/hived-configs/design.yaml", &d);
	int n, node, first, i;
	char buf[256];

	CHECK(s != NULL);
	if (s == NULL)
		return;
	n = spec_find_node(s, "1.0.0.0");
	CHECK(n >= 0 && s->nodes[n].ncells == 1);
	node = s->nodes[n].cells[0];
	/* Breadth-first, in file order: the first leaf under the node. */
	first = s->cells[s->cells[s->cells[node].first_child].first_child].first_child;
	for (i = 0; i < 8; i++) {
		CHECK_STREQ(s->cells[first + i].addr, order[i]);
		CHECK_INTEQ(s->cells[first + i].loc.line, lines[i]);
		CHECK_INTEQ(s->cells[first + i].loc.col, 13);
		CHECK_INTEQ(s->cells[first + i].node, n);
	}
	/* Sockets 1 then 0, switches 1,0 within each: paths follow addresses. */
	CHECK_STREQ(spec_cell_path(s, first, buf, sizeof buf), "3/1.0.0.0/1/1/1");
	CHECK_STREQ(spec_cell_path(s, first + 7, buf, sizeof buf), "3/1.0.0.0/0/0/5");
	CHECK_INTEQ(spec_find_cell(s, "1.0.0.0/0/0/5"), first + 7);
	CHECK_INTEQ(spec_find_cell(s, "1.0.0.0/1/0/4"), first + 2);
	spec_free(s);
	spec_diags_release(&d);
}

static const char default_addr_yaml[] =
	"physicalCluster:\n"
	"  cellTypes:\n"
	"    SW: {childCellType: GPU, childCellNumber: 2}\n"
	"    SOCK: {childCellType: SW, childCellNumber: 2}\n"
	"    NODE: {childCellType: SOCK, childCellNumber: 2, isNodeLevel: true}\n"
	"    RACK: {childCellType: NODE, childCellNumber: 2}\n"
	"    POD: {childCellType: RACK, childCellNumber: 2}\n"
	"  physicalCells:\n"
	"  - cellType: NODE\n"		/* 9: entry 0, a lone node */
	"    cellAddress: lone\n"
	"  - cellType: POD\n"		/* 11: entry 1, default address "1" */
	"    cellChildren:\n"
	"    - cellChildren: [{cellAddress: a0}, {cellAddress: a1}]\n"
	"    - cellAddress: east\n"
	"      cellChildren: [{cellAddress: a2}, {cellAddress: a3}]\n"
	"  - cellType: POD\n"		/* 16: entry 2 */
	"    cellAddress: p2\n"
	"    cellChildren:\n"
	"    - cellChildren:\n"
	"      - cellAddress: b0\n"
	"        cellChildren:\n"
	"        - {}\n"		/* socket by default: "0" */
	"        - cellChildren: [{cellAddress: x}, {}]\n" /* socket "1": switch x, switch "3" */
	"      - cellAddress: b1\n"
	"    - cellChildren: [{cellAddress: b2}, {cellAddress: b3}]\n"
	"virtualClusters: {}\n";

static void
test_default_addresses(void)
{
	struct spec_diags d;
	struct spec *s = load_str(default_addr_yaml, &d);
	char buf[256];
	int c, i;

	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->nchains, 2);
	CHECK_INTEQ(check_spec_invariants(s), 0);
	check_round_trip(s);
	/* Top: index in physicalCells; racks: index within their pod. */
	CHECK(spec_find_cell(s, "1/0/a0") >= 0);
	CHECK(spec_find_cell(s, "1/east/a3") >= 0);
	CHECK(spec_find_cell(s, "p2/0/b1") >= 0);
	CHECK(spec_find_cell(s, "p2/1/b3") >= 0);
	CHECK_INTEQ(spec_find_cell(s, "p2/2/b3"), -1);
	/* Below node level: index among the node's cells of that level. */
	CHECK(spec_find_cell(s, "b0/0/0/0") >= 0);
	CHECK(spec_find_cell(s, "b0/0/1/3") >= 0);
	CHECK(spec_find_cell(s, "b0/1/x/4") >= 0);
	CHECK(spec_find_cell(s, "b0/1/3/7") >= 0);
	CHECK(spec_find_cell(s, "a3/1/3/7") >= 0);
	CHECK_INTEQ(spec_find_cell(s, "b0/1/2/4"), -1);
	CHECK_STREQ(spec_cell_path(s, spec_find_cell(s, "b0/1/3/6"), buf, sizeof buf),
	    "p2/0/b0/1/3/6");
	/* The lone node's GPUs: 0..7. */
	c = spec_find_cell(s, "lone");
	CHECK(c >= 0 && s->cells[c].parent == -1);
	for (i = 0; i < 8; i++) {
		char p[32];

		snprintf(p, sizeof p, "lone/%d/%d/%d", i / 4, i / 2, i);
		CHECKF(spec_find_cell(s, p) >= 0, "%s", p);
	}
	/* Locations: written cells where written, others at the ancestor. */
	c = spec_find_cell(s, "b0/1/x");
	CHECK(c >= 0 && s->cells[c].loc.line == 23 && s->cells[c].loc.col == 26);
	c = spec_find_cell(s, "b0/1/x/5");
	CHECK(c >= 0 && s->cells[c].loc.line == 23);
	c = spec_find_cell(s, "b0/0");
	CHECK(c >= 0 && s->cells[c].loc.line == 22 && s->cells[c].loc.col == 11);
	spec_free(s);
	spec_diags_release(&d);
}

/* GPUs a VC is assigned, over all its cells. */
static long long
vc_gpus(const struct spec *s, int v)
{
	long long g = 0;
	int j;

	for (j = 0; j < s->vcs[v].ncells; j++)
		g += (long long)s->vcs[v].cells[j].number *
		    s->types[s->vcs[v].cells[j].type].leaves;
	for (j = 0; j < s->vcs[v].npins; j++)
		g += s->types[s->cells[s->pins[s->vcs[v].pins[j]].cell].type].leaves;
	return g;
}

static void
test_shipped_default(void)
{
	struct spec_diags d, d2;
	struct spec *s = load_file("specs/default.yaml", &d);
	struct spec *e;
	int c, v, p, total = 0;

	CHECKF(s != NULL && d.errors == 0 && d.warnings == 0, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->gpus, 128);
	CHECK_INTEQ(s->nnodes, 16);
	CHECK_INTEQ(s->nchains, 1);
	CHECK_INTEQ(s->nvcs, 4);
	CHECK_INTEQ(s->npins, 1);
	CHECK_INTEQ(check_spec_invariants(s), 0);
	check_round_trip(s);
	c = spec_find_chain(s, "V100-RACK");
	CHECK_INTEQ(c, 0);
	CHECK_INTEQ(s->chains[0].levels, 5);
	CHECK_INTEQ(s->chains[0].node_level, 4);
	CHECK_INTEQ(s->chains[0].level_count[5], 2);
	CHECK_STREQ(s->nodes[0].name, "r0n00");
	/* Cells at several levels: rack, node, socket, switch. */
	CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "research"), c, 5), 1);
	CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "prod"), c, 4), 4);
	CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "dev"), c, 3), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "dev"), c, 2), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "infer"), c, 2), 1);
	/* Exactly one pinned cell, a node, held by infer. */
	p = spec_find_pin(s, "infer-node");
	CHECK_INTEQ(p, 0);
	CHECK_INTEQ(s->pins[0].vc, spec_find_vc(s, "infer"));
	CHECK_INTEQ(s->pins[0].cell, spec_find_cell(s, "r1n07"));
	CHECK_INTEQ(s->cells[s->pins[0].cell].level, 4);
	/* Some capacity is left for opportunistic jobs. */
	for (v = 0; v < s->nvcs; v++)
		total += (int)vc_gpus(s, v);
	CHECK_INTEQ(total, 118);
	/* The embedded copy is the same file. */
	CHECK_INTEQ(default_spec_yaml_len, s->text_len);
	CHECK(memcmp(default_spec_yaml, s->text, s->text_len) == 0);
	spec_diags_init(&d2);
	e = spec_load_string("default", default_spec_yaml, default_spec_yaml_len, &d2);
	CHECK(e != NULL && e->hash == s->hash && e->ncells == s->ncells);
	spec_free(e);
	spec_diags_release(&d2);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_shipped_fig3(void)
{
	struct spec_diags d;
	struct spec *s = load_file("specs/hived-fig3.yaml", &d);
	int c, a, b, cc, v;
	long long total = 0;

	CHECKF(s != NULL && d.errors == 0 && d.warnings == 0, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->gpus, 32);
	CHECK_INTEQ(s->nnodes, 4);
	CHECK_INTEQ(s->nvcs, 3);
	CHECK_INTEQ(s->npins, 0);
	CHECK_INTEQ(check_spec_invariants(s), 0);
	check_round_trip(s);
	c = 0;
	CHECK_INTEQ(s->chains[c].levels, 5);
	CHECK_INTEQ(s->chains[c].level_count[5], 1);
	a = spec_find_vc(s, "A");
	b = spec_find_vc(s, "B");
	cc = spec_find_vc(s, "C");
	CHECK(a >= 0 && b >= 0 && cc >= 0);
	/* A and B: a socket, a PCIe switch and a GPU each. */
	for (v = 0; v < 2; v++) {
		int x = v ? b : a;

		CHECK_INTEQ(spec_vc_cells_at(s, x, c, 3), 1);
		CHECK_INTEQ(spec_vc_cells_at(s, x, c, 2), 1);
		CHECK_INTEQ(spec_vc_cells_at(s, x, c, 1), 1);
		CHECK_INTEQ(vc_gpus(s, x), 7);
	}
	/* C: two nodes and a PCIe switch. */
	CHECK_INTEQ(spec_vc_cells_at(s, cc, c, 4), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, cc, c, 2), 1);
	CHECK_INTEQ(vc_gpus(s, cc), 18);
	for (v = 0; v < s->nvcs; v++)
		total += vc_gpus(s, v);
	CHECK_INTEQ(total, 32);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_shipped_philly(void)
{
	static const struct { const char *name; int nodes; } vcs[] = {
		{ "6214e9", 64 }, { "7f04ca", 32 }, { "11cb48", 16 },
		{ "b436b2", 64 }, { "ee9e8c", 64 }, { "e13805", 16 },
		{ "6c71a0", 32 }, { "2869ce", 16 }, { "ed69ec", 8 },
		{ "103959", 8 }, { "0e4a51", 32 },
	};
	struct spec_diags d;
	struct spec *s = load_file("specs/philly.yaml", &d);
	size_t i;

	CHECKF(s != NULL && d.errors == 0 && d.warnings == 0, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->gpus, 2816);
	CHECK_INTEQ(s->nnodes, 352);
	CHECK_INTEQ(s->nvcs, 11);
	CHECK_INTEQ(s->npins, 0);
	CHECK_INTEQ(check_spec_invariants(s), 0);
	for (i = 0; i < sizeof vcs / sizeof vcs[0]; i++) {
		int v = spec_find_vc(s, vcs[i].name);

		CHECKF(v >= 0, "%s", vcs[i].name);
		if (v >= 0)
			CHECKF(vc_gpus(s, v) == 8LL * vcs[i].nodes, "%s: %lld",
			    vcs[i].name, vc_gpus(s, v));
	}
	spec_free(s);
	spec_diags_release(&d);
}

/* specs/philly-hived-*.yaml: quotas from each VC's GPU-time share
   (specs/gen-philly-hived.sh), every node assigned. */
static void
check_philly_hived(const char *path, int nodes, const int *q)
{
	static const char *const names[] = {
		"6214e9", "7f04ca", "11cb48", "b436b2", "ee9e8c", "e13805",
		"6c71a0", "2869ce", "ed69ec", "103959", "0e4a51",
	};
	struct spec_diags d;
	struct spec *s = load_file(path, &d);
	long long total = 0;
	size_t i;

	CHECKF(s != NULL && d.errors == 0 && d.warnings == 0, "%s: %.400s", path,
	    all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->gpus, 8 * nodes);
	CHECK_INTEQ(s->nnodes, nodes);
	CHECK_INTEQ(s->nvcs, 11);
	CHECK_INTEQ(check_spec_invariants(s), 0);
	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		int v = spec_find_vc(s, names[i]);

		CHECKF(v >= 0, "%s", names[i]);
		if (v < 0)
			continue;
		total += vc_gpus(s, v);
		CHECKF(vc_gpus(s, v) == 8LL * q[i], "%s %s: %lld", path, names[i],
		    vc_gpus(s, v));
	}
	CHECK(total == 8LL * nodes);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_shipped_philly_hived(void)
{
	static const int q200[] = { 20, 33, 6, 25, 52, 4, 17, 16, 2, 9, 16 };
	static const int q279[] = { 28, 47, 8, 36, 73, 4, 23, 23, 3, 12, 22 };

	check_philly_hived("specs/philly-hived-200.yaml", 200, q200);
	check_philly_hived("specs/philly-hived-279.yaml", 279, q279);
}

static void
test_units(void)
{
	struct spec *s = spec_load("specs/default.yaml", NULL);

	CHECK(s != NULL);
	if (s == NULL)
		return;
	CHECK_INTEQ(spec_units(s, 0, 5, 1), 64);
	CHECK_INTEQ(spec_units(s, 0, 5, 4), 8);
	CHECK_INTEQ(spec_units(s, 0, 4, 1), 8);
	CHECK_INTEQ(spec_units(s, 0, 3, 2), 2);
	CHECK_INTEQ(spec_units(s, 0, 2, 2), 1);
	CHECK_INTEQ(spec_units(s, 0, 1, 1), 1);
	CHECK_INTEQ(spec_units(s, 0, 1, 2), 0);
	CHECK_INTEQ(spec_units(s, 0, 6, 1), 0);
	CHECK_INTEQ(spec_units(s, 0, 2, 0), 0);
	CHECK_INTEQ(spec_units(s, 1, 2, 1), 0);
	CHECK_INTEQ(spec_units(s, -1, 2, 1), 0);
	spec_free(s);
}

static void
test_find_cell(void)
{
	struct spec *s = spec_load("specs/default.yaml", NULL);
	char small[8];
	int gpu, node;

	CHECK(s != NULL);
	if (s == NULL)
		return;
	/* A full path from the rack, a path from the node, the bare node. */
	gpu = spec_find_cell(s, "r0/r0n03/1/3/7");
	CHECK(gpu >= 0 && s->cells[gpu].level == 1);
	CHECK_INTEQ(spec_find_cell(s, "r0n03/1/3/7"), gpu);
	node = spec_find_cell(s, "r0n03");
	CHECK(node >= 0 && s->cells[node].level == 4);
	CHECK_INTEQ(s->cells[s->cells[s->cells[gpu].parent].parent].parent, node);
	CHECK_INTEQ(spec_find_cell(s, "r0/r0n03"), node);
	CHECK_INTEQ(spec_find_cell(s, "r1"), s->cells[spec_find_cell(s, "r1n00")].parent);
	/* A pinned cell id. */
	CHECK_INTEQ(spec_find_cell(s, "infer-node"), spec_find_cell(s, "r1n07"));
	/* Not there. */
	CHECK_INTEQ(spec_find_cell(s, "r0/r0n03/1/2/7"), -1);
	CHECK_INTEQ(spec_find_cell(s, "r0n03/1/3/7/0"), -1);
	CHECK_INTEQ(spec_find_cell(s, "r1/r0n03"), -1);
	CHECK_INTEQ(spec_find_cell(s, "nope"), -1);
	CHECK_INTEQ(spec_find_cell(s, ""), -1);
	CHECK_INTEQ(spec_find_cell(s, NULL), -1);
	/* Paths are truncated, never overflowed. */
	spec_cell_path(s, gpu, small, sizeof small);
	CHECK_STREQ(small, "r0/r0n0");
	spec_cell_path(s, -1, small, sizeof small);
	CHECK_STREQ(small, "");
	CHECK_INTEQ(spec_find_node(s, "r1n07"), 15);
	CHECK_INTEQ(spec_find_node(s, "r1n08"), -1);
	CHECK_INTEQ(spec_find_type(s, "V100"), s->chains[0].leaf_type);
	CHECK_INTEQ(spec_find_type(s, "P100"), -1);
	CHECK_INTEQ(spec_find_vc(s, "nope"), -1);
	CHECK_INTEQ(spec_find_pin(s, "nope"), -1);
	CHECK_INTEQ(spec_find_chain(s, "V100-NODE"), -1);
	spec_free(s);
}

static void
test_vc_levels_add_up(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n"
		"    RACK: {childCellType: NODE, childCellNumber: 4}\n"
		"  physicalCells:\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: a}, {cellAddress: b}, "
		"{cellAddress: c}, {cellAddress: d}]}\n"
		"virtualClusters:\n"
		"  v:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.NODE, cellNumber: 1}\n"
		"    - {cellType: NODE, cellNumber: 2}\n"
		"    - {cellType: GPU, cellNumber: 3}\n";
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ(s->vcs[0].ncells, 2);
	CHECK_INTEQ(spec_vc_cells_at(s, 0, 0, 2), 3);
	CHECK_INTEQ(spec_vc_cells_at(s, 0, 0, 1), 3);
	CHECK_INTEQ(spec_vc_cells_at(s, 0, 0, 3), 0);
	CHECK_INTEQ(spec_vc_cells_at(s, 1, 0, 2), 0);
	CHECK_INTEQ(s->vcs[0].cells[0].loc.line, 10);
	spec_free(s);
	spec_diags_release(&d);
}

/*
 * HiveD reads a virtual cell's path as CHAIN...TYPE and ignores what lies
 * between, so its configs may skip levels (RACK.GPU) or repeat one
 * (RACK.RACK, RACK.NODE.NODE); each means the same cells as the full path
 * or the bare chain would.
 */
static void
test_vc_shortcut_paths(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    SW: {childCellType: GPU, childCellNumber: 2}\n"
		"    NODE: {childCellType: SW, childCellNumber: 2, isNodeLevel: true}\n"
		"    RACK: {childCellType: NODE, childCellNumber: 4}\n"
		"  physicalCells:\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: a}, {cellAddress: b}, "
		"{cellAddress: c}, {cellAddress: d}]}\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: e}, {cellAddress: f}, "
		"{cellAddress: g}, {cellAddress: h}]}\n"
		"virtualClusters:\n"
		"  skip:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.GPU, cellNumber: 3}\n"
		"    - {cellType: RACK.SW, cellNumber: 1}\n"
		"    - {cellType: RACK.NODE.GPU, cellNumber: 1}\n"
		"  repeat:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.RACK, cellNumber: 1}\n"
		"  full:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.NODE.SW, cellNumber: 2}\n"
		"    - {cellType: RACK.NODE.NODE, cellNumber: 1}\n";
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s == NULL)
		return;
	CHECK_INTEQ((int)d.errors, 0);
	/* skip: 3 + 1 GPUs (level 1), one switch (level 2) */
	CHECK_INTEQ(spec_vc_cells_at(s, 0, 0, 1), 4);
	CHECK_INTEQ(spec_vc_cells_at(s, 0, 0, 2), 1);
	/* repeat: one whole rack (level 4, the chain's top) */
	CHECK_INTEQ(spec_vc_cells_at(s, 1, 0, 4), 1);
	CHECK_INTEQ(spec_vc_cells_at(s, 1, 0, 3), 0);
	/* full: the full path, and a repeated node */
	CHECK_INTEQ(spec_vc_cells_at(s, 2, 0, 2), 2);
	CHECK_INTEQ(spec_vc_cells_at(s, 2, 0, 3), 1);
	CHECK_INTEQ(s->nvcs, 3);
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_hash(void)
{
	static const char a[] = "physicalCluster: {cellTypes: {}, physicalCells: []}\n";
	static const char b[] = "physicalCluster: {cellTypes: {}, physicalCells: [ ]}\n";
	struct spec *sa = spec_load_string("a", a, sizeof a - 1, NULL);
	struct spec *sb = spec_load_string("b", b, sizeof b - 1, NULL);
	unsigned long long h = 0xcbf29ce484222325ULL;
	size_t i;

	for (i = 0; i < sizeof a - 1; i++) {
		h ^= (unsigned char)a[i];
		h *= 0x100000001b3ULL;
	}
	CHECK(sa != NULL && sb != NULL);
	if (sa != NULL && sb != NULL) {
		CHECK(sa->hash == h);
		CHECK(sb->hash != sa->hash);
		CHECK_STREQ(sa->text, a);
		CHECK_INTEQ(sa->text_len, sizeof a - 1);
		CHECK_STREQ(sa->path, "a");
	}
	spec_free(sa);
	spec_free(sb);
}

/* A spec of `racks` racks x `nodes` nodes x 8 GPUs, built in memory. */
static void
build_big(struct strbuf *sb, int racks, int nodes)
{
	int r, n;

	strbuf_adds(sb,
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    SW: {childCellType: GPU, childCellNumber: 2}\n"
	    "    SOCK: {childCellType: SW, childCellNumber: 2}\n"
	    "    NODE: {childCellType: SOCK, childCellNumber: 2, isNodeLevel: true}\n");
	strbuf_addf(sb, "    RACK: {childCellType: NODE, childCellNumber: %d}\n", nodes);
	strbuf_adds(sb, "  physicalCells:\n");
	for (r = 0; r < racks; r++) {
		strbuf_addf(sb, "  - cellType: RACK\n    cellAddress: rack%d\n"
		    "    cellChildren:\n", r);
		for (n = 0; n < nodes; n++) {
			strbuf_addf(sb, "    - cellAddress: r%dn%d\n", r, n);
			if (r == 0 && n == 0)
				strbuf_adds(sb, "      pinnedCellId: first\n");
		}
	}
	strbuf_addf(sb,
	    "virtualClusters:\n"
	    "  big:\n"
	    "    virtualCells: [{cellType: RACK, cellNumber: %d}]\n"
	    "  small:\n"
	    "    virtualCells: [{cellType: RACK.NODE, cellNumber: %d}, "
	    "{cellType: SW, cellNumber: 3}]\n"
	    "    pinnedCells: [{pinnedCellId: first}]\n", racks / 2, nodes);
}

static void
check_big(int racks, int nodes, double limit)
{
	struct strbuf sb = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;
	clock_t t0;
	double secs;
	char buf[128];
	int c;

	build_big(&sb, racks, nodes);
	spec_diags_init(&d);
	t0 = clock();
	s = spec_load_string("big.yaml", sb.buf, sb.len, &d);
	secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s != NULL) {
		long long g = (long long)racks * nodes * 8;

		CHECK_INTEQ(s->gpus, g);
		CHECK_INTEQ(s->nnodes, racks * nodes);
		CHECK_INTEQ(s->ncells, racks + racks * nodes * 15);
		CHECK_INTEQ(check_spec_invariants(s), 0);
		snprintf(buf, sizeof buf, "rack%d/r%dn%d/1/3/7", racks - 1,
		    racks - 1, nodes - 1);
		c = spec_find_cell(s, buf);
		CHECK_INTEQ(c, s->ncells - 1);
		CHECK_INTEQ(spec_find_cell(s, buf + strcspn(buf, "/") + 1), c);
		CHECK_INTEQ(spec_find_cell(s, "first"), spec_find_cell(s, "r0n0"));
	}
	/* Generous: catches quadratic work, not a slow machine. */
	CHECKF(secs < limit, "%d GPUs loaded in %.2f s", racks * nodes * 8, secs);
	spec_free(s);
	spec_diags_release(&d);
	strbuf_release(&sb);
}

static void
test_scale_65536_gpus(void)
{
	check_big(256, 32, 5.0);
}

static void
test_scale_524288_gpus_long(void)
{
	/* 65,536 nodes x 8 GPUs: only under make check-long. */
	if (!test_long) {
		TEST_SKIP("only under make check-long (CELLAR_LONG=1)");
		return;
	}
	check_big(2048, 32, 10.0);
}

static char *
slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

/* Load the text between `start` and `end` in a document: its example. */
static void
check_example(const char *path, const char *start, const char *end,
    long long gpus, int nvcs)
{
	char *doc = slurp(path), *a, *b;
	struct spec_diags d;
	struct spec *s;

	CHECKF(doc != NULL, "%s", path);
	if (doc == NULL)
		return;
	a = strstr(doc, start);
	b = a ? strstr(a + strlen(start), end) : NULL;
	CHECKF(a != NULL && b != NULL, "%s: no example", path);
	if (a != NULL && b != NULL) {
		a += strlen(start);
		spec_diags_init(&d);
		s = spec_load_string(path, a, (size_t)(b - a), &d);
		CHECKF(s != NULL && d.n == 0, "%.400s", all_diags(&d));
		if (s != NULL) {
			CHECK_INTEQ(s->gpus, gpus);
			CHECK_INTEQ(s->nvcs, nvcs);
		}
		spec_free(s);
		spec_diags_release(&d);
	}
	free(doc);
}

/* The examples of specs/README.md and cellar-spec(5) are valid specs. */
static void
test_doc_examples_load(void)
{
	check_example("specs/README.md", "```yaml\n", "```", 24, 2);
	check_example("man/cellar-spec.5", ".Bd -literal -offset indent\n", ".Ed", 16, 2);
}

static const struct test tests[] = {
	{ "hived-fixtures", test_hived_fixtures },
	{ "kubernetes-keys-are-notes", test_kubernetes_keys_are_notes },
	{ "empty-spec", test_empty_spec },
	{ "design-multi-chain-nodes", test_design_multi_chain_nodes },
	{ "out-of-order-addresses", test_out_of_order_addresses },
	{ "default-addresses", test_default_addresses },
	{ "shipped-default", test_shipped_default },
	{ "shipped-fig3", test_shipped_fig3 },
	{ "shipped-philly", test_shipped_philly },
	{ "shipped-philly-hived", test_shipped_philly_hived },
	{ "units", test_units },
	{ "find-cell", test_find_cell },
	{ "vc-levels-add-up", test_vc_levels_add_up },
	{ "vc-shortcut-paths", test_vc_shortcut_paths },
	{ "hash", test_hash },
	{ "doc-examples-load", test_doc_examples_load },
	{ "scale-65536-gpus", test_scale_65536_gpus },
	{ "scale-524288-gpus-long", test_scale_524288_gpus_long },
};

TEST_MAIN(tests)
