/*
 * tspec-errors.c — every class of spec error, each at its exact
 * file:line:col with the offending name quoted; several errors in one run;
 * unknown keys as warnings; and a little fuzzing (truncated files, wrong
 * types for every key, huge numbers, deep nesting, aliases, garbage): a spec
 * file may make the load fail, never crash it.
 */
#include <stdio.h>
#include <time.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "tspec.h"

/* A valid spec; the tests below change one line of it at a time. */
#define BASE_TYPES							\
	"physicalCluster:\n"			/*  1 */		\
	"  cellTypes:\n"			/*  2 */		\
	"    SW:\n"				/*  3 */		\
	"      childCellType: GPU\n"		/*  4 */		\
	"      childCellNumber: 2\n"		/*  5 */		\
	"    NODE:\n"				/*  6 */		\
	"      childCellType: SW\n"		/*  7 */		\
	"      childCellNumber: 2\n"		/*  8 */		\
	"      isNodeLevel: true\n"		/*  9 */		\
	"    RACK:\n"				/* 10 */		\
	"      childCellType: NODE\n"		/* 11 */		\
	"      childCellNumber: 2\n"		/* 12 */
#define BASE_CELLS							\
	"  physicalCells:\n"			/* 13 */		\
	"  - cellType: RACK\n"			/* 14 */		\
	"    cellChildren:\n"			/* 15 */		\
	"    - cellAddress: n0\n"		/* 16 */		\
	"    - cellAddress: n1\n"		/* 17 */
#define BASE_VCS							\
	"virtualClusters:\n"			/* 18 */		\
	"  a:\n"				/* 19 */		\
	"    virtualCells:\n"			/* 20 */		\
	"    - cellType: RACK.NODE\n"		/* 21 */		\
	"      cellNumber: 1\n"			/* 22 */

/* Replace line `line` (1-based) of text with `repl` (a whole line, "\n" included). */
static char *
edit(const char *text, int line, const char *repl)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = text;
	int l = 1;

	while (*p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);

		if (l == line)
			strbuf_adds(&sb, repl);
		else
			strbuf_add(&sb, p, len);
		p += len;
		l++;
	}
	return strbuf_detach(&sb, NULL);
}

static const char base[] = BASE_TYPES BASE_CELLS BASE_VCS;

/* Load base with one line replaced; expect a failure at prefix with needle. */
#define CHECK_EDIT_FAILS(line, repl, prefix, needle) do {		\
	char *t_ = edit(base, (line), (repl));				\
	CHECK_LOAD_FAILS(t_, (prefix), (needle));			\
	free(t_);							\
} while (0)

static void
test_base_is_valid(void)
{
	struct spec_diags d;
	struct spec *s = load_str(base, &d);

	/* The edits below mean something only if the base itself is clean. */
	CHECKF(s != NULL && d.n == 0, "%.400s", all_diags(&d));
	if (s != NULL) {
		CHECK_INTEQ(s->gpus, 8);
		CHECK_INTEQ(check_spec_invariants(s), 0);
	}
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_yaml_syntax_error(void)
{
	CHECK_LOAD_FAILS("a: b: c\n", "t.yaml:1:5: error: ",
	    "mapping values are not allowed in this context");
	CHECK_LOAD_FAILS("physicalCluster:\n  cellTypes: [a, b\n",
	    "t.yaml:3:1: error: ", "did not find expected ',' or ']'");
	CHECK_EDIT_FAILS(16, "    - cellAddress: n0\n   bad indent: x\n",
	    "t.yaml:17:", "error: ");
	CHECK_LOAD_FAILS("a: 1\n---\nb: 2\n", "t.yaml:2:1: error: ",
	    "one yaml document");
	CHECK_LOAD_FAILS("a: \"unterminated\n", "t.yaml:", "found unexpected end of stream");
	CHECK_LOAD_FAILS("a: *nope\n", "t.yaml:1:4: error: ", "unknown alias 'nope'");
}

static void
test_missing_sections(void)
{
	CHECK_LOAD_FAILS("virtualClusters: {}\n", "t.yaml:1:1: error: ",
	    "missing 'physicalCluster'");
	CHECK_LOAD_FAILS("kubeApiServerAddress: x\n", "t.yaml:1:1: error: ",
	    "missing 'physicalCluster'");
	CHECK_LOAD_FAILS("virtualClusters: {}\nphysicalCluster:\n  physicalCells: []\n",
	    "t.yaml:2:1: error: ", "missing 'cellTypes' in 'physicalCluster'");
	CHECK_LOAD_FAILS("physicalCluster:\n  cellTypes: {}\n",
	    "t.yaml:1:1: error: ", "missing 'physicalCells' in 'physicalCluster'");
	CHECK_LOAD_FAILS("physicalCluster:\n", "t.yaml:1:1: error: ",
	    "'physicalCluster' must be a mapping");
	CHECK_LOAD_FAILS("- physicalCluster\n", "t.yaml:1:1: error: ",
	    "a spec must be a mapping");
}

static void
test_unknown_cell_type(void)
{
	CHECK_EDIT_FAILS(14, "  - cellType: RAK\n", "t.yaml:14:15: error: ",
	    "unknown cell type 'RAK'");
	CHECK_EDIT_FAILS(21, "    - cellType: RACK.NOD\n", "t.yaml:21:17: error: ",
	    "unknown cell type 'NOD' in 'RACK.NOD'");
	CHECK_EDIT_FAILS(21, "    - cellType: GPUX\n", "t.yaml:21:17: error: ",
	    "unknown cell type 'GPUX'");
	CHECK_EDIT_FAILS(14, "  - cellTyp: RACK\n", "t.yaml:14:5: error: ",
	    "physicalCells entry has no cellType");
}

static void
test_cycle(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    A: {childCellType: B, childCellNumber: 2}\n"
		"    B: {childCellType: A, childCellNumber: 2, isNodeLevel: true}\n"
		"    C: {childCellType: A, childCellNumber: 2}\n"
		"    D: {childCellType: D, childCellNumber: 2}\n"
		"  physicalCells:\n"
		"  - cellType: C\n";
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:3:5: error: ", "cycle in cellTypes: 'A' -> 'B' -> 'A'");
	CHECK_DIAG(&d, "t.yaml:6:5: error: ", "cycle in cellTypes: 'D' -> 'D'");
	/* C leads into the cycle: not reported again, not even where used. */
	CHECKF(d.errors == 2, "%.400s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_child_cell_number(void)
{
	CHECK_EDIT_FAILS(5, "      childCellNumber: 0\n", "t.yaml:5:24: error: ",
	    "childCellNumber of 'SW' must be an integer >= 1, not '0'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: -3\n", "t.yaml:5:24: error: ",
	    "not '-3'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: two\n", "t.yaml:5:24: error: ",
	    "childCellNumber of 'SW' must be an integer >= 1, not 'two'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: 2.5\n", "t.yaml:5:24: error: ",
	    "not '2.5'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: \"2\"\n", "t.yaml:5:24: error: ",
	    "not '2'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: [2]\n", "t.yaml:5:24: error: ",
	    "not 'a sequence'");
	CHECK_EDIT_FAILS(5, "      childCellNumber: 99999999999999999999999\n",
	    "t.yaml:5:24: error: ", "childCellNumber of 'SW' is too large");
	CHECK_EDIT_FAILS(5, "      childCellNumbr: 2\n", "t.yaml:3:5: error: ",
	    "cell type 'SW' has no childCellNumber");
	CHECK_EDIT_FAILS(4, "      childCellType:\n", "t.yaml:4:21: error: ",
	    "cell type 'SW' has no childCellType");
	CHECK_EDIT_FAILS(9, "      isNodeLevel: maybe\n", "t.yaml:9:20: error: ",
	    "isNodeLevel of 'NODE' must be true or false, not 'maybe'");
}

static void
test_node_levels_per_chain(void)
{
	CHECK_EDIT_FAILS(9, "\n", "t.yaml:14:15: error: ",
	    "chain 'RACK' has no node-level cell type");
	CHECK_EDIT_FAILS(12, "      childCellNumber: 2\n      isNodeLevel: true\n",
	    "t.yaml:15:15: error: ",
	    "chain 'RACK' has two node-level cell types, 'RACK' and 'NODE'");
}

static void
test_top_level_below_node_level(void)
{
	CHECK_EDIT_FAILS(14, "  - cellType: SW\n", "t.yaml:14:15: error: ",
	    "top-level cell type 'SW' is below node level (inside node-level type 'NODE')");
	/* A leaf type as a top-level cell is below node level too. */
	CHECK_EDIT_FAILS(14, "  - cellType: GPU\n", "t.yaml:14:15: error: ",
	    "top-level cell type 'GPU' is below node level");
}

static void
test_node_without_address(void)
{
	static const char top[] = BASE_TYPES
		"  physicalCells:\n"
		"  - cellType: NODE\n"		/* 14 */
		"  - cellType: NODE\n"		/* 15 */
		"    cellAddress: ~\n";
	/* A listed child without an address, and children not listed. */
	CHECK_EDIT_FAILS(17, "    - pinnedCellId: x\n", "t.yaml:17:7: error: ",
	    "node-level cell of type 'NODE' has no cellAddress");
	CHECK_EDIT_FAILS(17, "", "t.yaml:14:5: error: ",
	    "1 node-level cells of type 'NODE' under '0' are not listed");
	CHECK_LOAD_FAILS(BASE_TYPES "  physicalCells:\n  - cellType: RACK\n" BASE_VCS,
	    "t.yaml:14:5: error: ",
	    "2 node-level cells of type 'NODE' under '0' are not listed");
	CHECK_LOAD_FAILS(top, "t.yaml:14:5: error: ",
	    "node-level cell of type 'NODE' has no cellAddress");
	CHECK_LOAD_FAILS(top, "t.yaml:15:5: error: ",
	    "node-level cell of type 'NODE' has no cellAddress");
}

static void
test_duplicate_node_in_chain(void)
{
	static const char y[] = BASE_TYPES
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren: [{cellAddress: n0}, {cellAddress: n1}]\n"	/* 15 */
		"  - cellType: RACK\n"
		"    cellChildren: [{cellAddress: n2}, {cellAddress: n0}]\n";	/* 17 */

	CHECK_EDIT_FAILS(17, "    - cellAddress: n0\n", "t.yaml:17:7: error: ",
	    "node 'n0' appears twice in chain 'RACK' (first at line 16)");
	CHECK_LOAD_FAILS(y, "t.yaml:17:39: error: ",
	    "node 'n0' appears twice in chain 'RACK' (first at line 15)");
}

static void
test_duplicate_leaf_across_chains(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    K80-NODE: {childCellType: K80, childCellNumber: 2, isNodeLevel: true}\n"
		"    M60-NODE: {childCellType: M60, childCellNumber: 2, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - cellType: K80-NODE\n"
		"    cellAddress: h1\n"
		"  - cellType: M60-NODE\n"		/* 8 */
		"    cellAddress: h1\n"
		"    cellChildren: [{cellAddress: 2}, {cellAddress: 1}]\n"; /* 10 */
	char *ok;
	struct spec_diags d;
	struct spec *s;

	CHECK_LOAD_FAILS(y, "t.yaml:10:38: error: ",
	    "leaf address '1' is used twice on node 'h1' (cell types 'K80' and 'M60')");
	/* With distinct addresses one node carries two leaf types. */
	ok = edit(y, 10, "    cellChildren: [{cellAddress: 2}, {cellAddress: 3}]\n");
	s = load_str(ok, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s != NULL) {
		CHECK_INTEQ(s->nnodes, 1);
		CHECK_INTEQ(s->nodes[0].ncells, 2);
		CHECK_INTEQ(check_spec_invariants(s), 0);
	}
	spec_free(s);
	spec_diags_release(&d);
	free(ok);
	/* Within one node, two switches' GPUs with the same address. */
	CHECK_EDIT_FAILS(16, "    - cellAddress: n0\n      cellChildren:\n"
	    "      - cellChildren: [{cellAddress: 0}, {cellAddress: 1}]\n"
	    "      - cellChildren: [{cellAddress: 5}, {cellAddress: 0}]\n",
	    "t.yaml:19:42: error: ", "leaf address '0' is used twice on node 'n0'");
}

static void
test_duplicate_sibling_address(void)
{
	CHECK_EDIT_FAILS(16, "    - cellAddress: n0\n"
	    "      cellChildren: [{cellAddress: s}, {cellAddress: s}]\n",
	    "t.yaml:17:40: error: ", "duplicate cellAddress 's' among the children of '0/n0'");
	CHECK_EDIT_FAILS(14, "  - cellType: RACK\n    cellAddress: r\n"
	    "    cellChildren: [{cellAddress: a0}, {cellAddress: a1}]\n"
	    "  - cellType: RACK\n    cellAddress: r\n",
	    "t.yaml:17:5: error: ", "duplicate cellAddress 'r' among the top-level cells of chain 'RACK'");
	/* Addresses are path components: no '/'. */
	CHECK_EDIT_FAILS(16, "    - cellAddress: a/b\n", "t.yaml:16:20: error: ",
	    "cellAddress 'a/b' must not contain '/'");
}

static void
test_too_many_children(void)
{
	CHECK_EDIT_FAILS(16, "    - cellAddress: n0\n"
	    "      cellChildren: [{}, {}, {cellAddress: x}]\n",
	    "t.yaml:17:30: error: ",
	    "too many cellChildren: 3 listed, cell type 'NODE' has childCellNumber 2");
	CHECK_EDIT_FAILS(17, "    - cellAddress: n1\n    - cellAddress: n2\n",
	    "t.yaml:18:7: error: ",
	    "too many cellChildren: 3 listed, cell type 'RACK' has childCellNumber 2");
	CHECK_EDIT_FAILS(16, "    - cellAddress: n0\n"
	    "      cellChildren: [{cellChildren: [{}, {cellChildren: [{}]}]}]\n",
	    "t.yaml:17:58: error: ", "listed under a cell of leaf type 'GPU'");
}

static void
test_duplicate_pinned_id(void)
{
	static const char y[] = BASE_TYPES
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren:\n"
		"    - cellAddress: n0\n"
		"      pinnedCellId: p\n"		/* 17 */
		"    - cellAddress: n1\n"
		"      pinnedCellId: p\n";		/* 19 */

	CHECK_LOAD_FAILS(y, "t.yaml:19:21: error: ",
	    "duplicate pinnedCellId 'p' (first at line 17)");
}

#define PINNED_BASE BASE_TYPES						\
	"  physicalCells:\n"			/* 13 */		\
	"  - cellType: RACK\n"			/* 14 */		\
	"    cellChildren:\n"			/* 15 */		\
	"    - cellAddress: n0\n"		/* 16 */		\
	"      pinnedCellId: p\n"		/* 17 */		\
	"    - cellAddress: n1\n"		/* 18 */		\
	"virtualClusters:\n"			/* 19 */		\
	"  a:\n"				/* 20 */		\
	"    pinnedCells:\n"			/* 21 */		\
	"    - pinnedCellId: p\n"		/* 22 */

static void
test_unknown_pinned_id(void)
{
	static const char y[] = PINNED_BASE
		"    - pinnedCellId: q\n";		/* 23 */

	CHECK_LOAD_FAILS(y, "t.yaml:23:21: error: ", "unknown pinnedCellId 'q'");
}

static void
test_pinned_id_claimed_twice(void)
{
	static const char two_vcs[] = PINNED_BASE
		"  b:\n"
		"    pinnedCells: [{pinnedCellId: p}]\n";		/* 24 */
	static const char same_vc[] = PINNED_BASE
		"    - pinnedCellId: p\n";				/* 23 */
	struct spec_diags d;
	struct spec *s;

	CHECK_LOAD_FAILS(two_vcs, "t.yaml:24:34: error: ",
	    "pinned cell 'p' is claimed by virtual clusters 'a' and 'b'");
	CHECK_LOAD_FAILS(same_vc, "t.yaml:23:21: error: ",
	    "pinnedCellId 'p' is listed twice in virtual cluster 'a'");
	/* Claimed once: fine. */
	s = load_str(PINNED_BASE, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s != NULL) {
		CHECK_INTEQ(s->pins[0].vc, 0);
		CHECK_INTEQ(s->vcs[0].npins, 1);
	}
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_vc_type_not_in_chain(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    K80-NODE: {childCellType: K80, childCellNumber: 4, isNodeLevel: true}\n"
		"    3-K80-NODE: {childCellType: K80-NODE, childCellNumber: 3}\n"
		"    M60-NODE: {childCellType: M60, childCellNumber: 4, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - cellType: 3-K80-NODE\n"
		"    cellChildren: [{cellAddress: a}, {cellAddress: b}, {cellAddress: c}]\n"
		"  - cellType: M60-NODE\n"
		"    cellAddress: d\n"
		"virtualClusters:\n"
		"  vc1:\n"
		"    virtualCells:\n"
		"    - cellType: 3-K80-NODE.M60-NODE\n"	/* 14 */
		"      cellNumber: 1\n"
		"    - cellType: K80-NODE.K80\n"		/* 16 */
		"      cellNumber: 1\n"
		"    - cellType: M60-NODE.K80\n"		/* 18 */
		"      cellNumber: 1\n"
		"    - cellType: 3-K80-NODE.M60.K80\n"	/* 20 */
		"      cellNumber: 1\n"
		"    - cellType: 3-K80-NODE.K80.K81\n"	/* 22 */
		"      cellNumber: 1\n";

	CHECK_LOAD_FAILS(y, "t.yaml:14:17: error: ", "cell type 'M60-NODE' in "
	    "'3-K80-NODE.M60-NODE' is not in chain '3-K80-NODE', whose types are "
	    "'3-K80-NODE', 'K80-NODE', 'K80'");
	CHECK_LOAD_FAILS(y, "t.yaml:16:17: error: ", "'K80-NODE' in 'K80-NODE.K80' "
	    "is not a chain");
	/* A leaf of another chain, last or between: HiveD would ignore neither. */
	CHECK_LOAD_FAILS(y, "t.yaml:18:17: error: ", "cell type 'K80' in "
	    "'M60-NODE.K80' is not in chain 'M60-NODE', whose types are "
	    "'M60-NODE', 'M60'");
	CHECK_LOAD_FAILS(y, "t.yaml:20:17: error: ", "cell type 'M60' in "
	    "'3-K80-NODE.M60.K80' is not in chain '3-K80-NODE'");
	CHECK_LOAD_FAILS(y, "t.yaml:22:17: error: ", "unknown cell type 'K81' in "
	    "'3-K80-NODE.K80.K81'");
}

static void
test_vc_type_ambiguous_or_unused(void)
{
	static const char y[] = BASE_TYPES
		"    BIG: {childCellType: NODE, childCellNumber: 1}\n"	/* 13 */
		"    LONE: {childCellType: GPU, childCellNumber: 8, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: n0}, {cellAddress: n1}]}\n"
		"  - {cellType: BIG, cellChildren: [{cellAddress: n2}]}\n"
		"virtualClusters:\n"
		"  a:\n"
		"    virtualCells:\n"
		"    - {cellType: NODE, cellNumber: 1}\n"	/* 21 */
		"    - {cellType: LONE, cellNumber: 1}\n"	/* 22 */
		"    - {cellType: BIG.NODE.SW, cellNumber: 1}\n";

	CHECK_LOAD_FAILS(y, "t.yaml:21:18: error: ", "cell type 'NODE' is ambiguous: "
	    "it is in chains 'RACK', 'BIG'");
	CHECK_LOAD_FAILS(y, "t.yaml:22:18: error: ", "cell type 'LONE' is in no chain");
}

static void
test_cell_number(void)
{
	CHECK_EDIT_FAILS(22, "      cellNumber: 0\n", "t.yaml:22:19: error: ",
	    "cellNumber must be an integer >= 1, not '0'");
	CHECK_EDIT_FAILS(22, "      cellNumber: -1\n", "t.yaml:22:19: error: ",
	    "not '-1'");
	CHECK_EDIT_FAILS(22, "      cellNumber: lots\n", "t.yaml:22:19: error: ",
	    "not 'lots'");
	CHECK_EDIT_FAILS(22, "      cellNumber: 1e9\n", "t.yaml:22:19: error: ",
	    "not '1e9'");
	CHECK_EDIT_FAILS(22, "      cellNumber: 4000000000000\n", "t.yaml:22:19: error: ",
	    "cellNumber '4000000000000' is too large");
	CHECK_EDIT_FAILS(22, "      cellNumbr: 1\n", "t.yaml:21:7: error: ",
	    "virtualCells entry has no cellNumber");
}

static void
test_unknown_keys_warn(void)
{
	static const char y[] =
		"backend: {type: emulator, extra: 1}\n"	/* 1 */
		"physicalCluster:\n"
		"  cellTypez: {}\n"				/* 3 */
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 2, isNodeLevel: true, "
		"color: red}\n"					/* 5 */
		"  physicalCells:\n"
		"  - cellType: NODE\n"
		"    cellAddress: n0\n"
		"    rack: 4\n"					/* 9 */
		"    cellChildren: [{cellAddress: 0, slot: 1}, {}]\n" /* 10 */
		"virtualClusters:\n"
		"  a:\n"
		"    owner: me\n"				/* 13 */
		"    virtualCells:\n"
		"    - {cellType: NODE, cellNumber: 1, why: x}\n"	/* 15 */
		"    pinnedCells: []\n";
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	/* Unknown keys are warnings: the spec still loads. */
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	CHECK_INTEQ(d.errors, 0);
	CHECK_INTEQ(d.warnings, 7);
	CHECK_DIAG(&d, "t.yaml:1:27: warning: ", "unknown key 'extra' in backend");
	/* a near miss names the key meant */
	CHECK_DIAG(&d, "t.yaml:3:3: warning: ", "unknown key 'cellTypez' in "
	    "physicalCluster (did you mean 'cellTypes'?)");
	CHECK_DIAG(&d, "t.yaml:5:71: warning: ", "unknown key 'color' in cell type 'NODE'");
	CHECK_DIAG(&d, "t.yaml:9:5: warning: ", "unknown key 'rack' in physicalCells entry");
	CHECK_DIAG(&d, "t.yaml:10:37: warning: ", "unknown key 'slot' in cellChildren entry");
	CHECK_DIAG(&d, "t.yaml:13:5: warning: ", "unknown key 'owner' in virtual cluster 'a'");
	CHECK_DIAG(&d, "t.yaml:15:39: warning: ", "unknown key 'why' in virtualCells entry");
	spec_free(s);
	spec_diags_release(&d);
}

/*
 * At the top level an unknown key is an error (issue 21): a misspelt
 * virtualClusters left a "valid" spec without VCs. HiveD's own
 * Kubernetes keys (pkg/api/config.go) still load, with a note each.
 */
static void
test_unknown_top_key_errs(void)
{
	static const char body[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 2, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - {cellType: NODE, cellAddress: n0}\n";
	static const char hived[] =
		"kubeApiServerAddress: http://10.0.0.1:8080\n"
		"kubeConfigFilePath: /etc/kube\n"
		"webServerAddress: ':30096'\n"
		"waitingPodSchedulingBlockMilliSec: 50\n"
		"forcePodBindThreshold: 3\n"
		"quotaExcludeVCs: [default]\n";
	struct strbuf y = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;

	strbuf_addf(&y, "%svirtualCluster:\n  a: {virtualCells: [{cellType: NODE, "
	    "cellNumber: 1}]}\n", body);
	CHECK_LOAD_FAILS(y.buf, "t.yaml:6:1: error: ", "unknown key 'virtualCluster' "
	    "in the spec (did you mean 'virtualClusters'? keys: physicalCluster, "
	    "virtualClusters, backend, access, kubeApiServerAddress, ");
	strbuf_reset(&y);
	strbuf_addf(&y, "extra: 1\n%s", body);
	CHECK_LOAD_FAILS(y.buf, "t.yaml:1:1: error: ", "unknown key 'extra' in the "
	    "spec (keys: physicalCluster, ");
	/* not a key of HiveD's config: an error too */
	strbuf_reset(&y);
	strbuf_addf(&y, "podBindAttempts: 3\n%s", body);
	CHECK_LOAD_FAILS(y.buf, "t.yaml:1:1: error: ", "unknown key 'podBindAttempts'");

	strbuf_reset(&y);
	strbuf_addf(&y, "%s%s", hived, body);
	s = load_str(y.buf, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	CHECK_INTEQ(d.errors, 0);
	CHECK_INTEQ(d.warnings, 0);
	CHECK_DIAG(&d, "t.yaml:1:1: note: ", "key 'kubeApiServerAddress' ignored");
	CHECK_DIAG(&d, "t.yaml:6:1: note: ", "key 'quotaExcludeVCs' ignored");
	spec_free(s);
	spec_diags_release(&d);
	strbuf_release(&y);
}

static void
test_infeasible_every_level(void)
{
	static const char y[] = BASE_TYPES
		"  physicalCells:\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: n0}, {cellAddress: n1}]}\n"
		"  - {cellType: RACK, cellChildren: [{cellAddress: n2}, {cellAddress: n3}]}\n"
		"virtualClusters:\n"
		"  a:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK, cellNumber: 2}\n"		/* 19 */
		"  b:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK, cellNumber: 1}\n"		/* 22 */
		"    - {cellType: RACK.NODE.SW.GPU, cellNumber: 1}\n"	/* 23 */
		"  c:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.NODE, cellNumber: 1}\n";	/* 26 */
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:19:7: error: ",
	    "chain 'RACK' level 4 (RACK): 3 cells assigned, 2 available");
	CHECK_DIAG(&d, "t.yaml:26:7: error: ",
	    "chain 'RACK' level 3 (NODE): 1 cells assigned, 0 available");
	CHECK_DIAG(&d, "t.yaml:23:7: error: ",
	    "chain 'RACK' level 1 (GPU): 1 cells assigned, 0 available");
	CHECKF(d.errors == 3, "%.400s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
	/* Over by one node: only that level fails. */
	CHECK_EDIT_FAILS(22, "      cellNumber: 3\n", "t.yaml:21:7: error: ",
	    "chain 'RACK' level 3 (NODE): 3 cells assigned, 2 available");
}

/*
 * A pinned cell splits its ancestors: with a GPU of n1 pinned, one rack
 * offers n0 whole, one switch of n1 and the pinned GPU's buddy.
 */
static void
test_infeasible_with_pinned_cell(void)
{
	static const char y[] = BASE_TYPES
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren:\n"
		"    - cellAddress: n0\n"
		"    - cellAddress: n1\n"
		"      cellChildren:\n"
		"      - cellChildren:\n"
		"        - pinnedCellId: g\n"
		"virtualClusters:\n"
		"  a:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.NODE, cellNumber: 1}\n"		/* 24 */
		"    pinnedCells: [{pinnedCellId: g}]\n"
		"  b:\n"
		"    virtualCells:\n"
		"    - {cellType: RACK.NODE.SW.GPU, cellNumber: @}\n";	/* 28 */
	char *t;
	struct spec_diags d;
	struct spec *s;

	t = xstrdup(y);
	*strchr(t, '@') = '3';
	s = load_str(t, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
	*strchr(t, '3') = '4';
	CHECK_LOAD_FAILS(t, "t.yaml:28:7: error: ",
	    "chain 'RACK' level 1 (GPU): 4 cells assigned, 3 available");
	free(t);
	/* Unclaimed, a pinned cell is not set aside (and a note says so). */
	t = edit(y, 25, "");
	t[strchr(t, '@') - t] = '4';
	s = load_str(t, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	CHECK_DIAG(&d, "t.yaml:20:25: note: ", "pinned cell 'g' is not claimed");
	spec_free(s);
	spec_diags_release(&d);
	free(t);
}

static void
test_pinned_inside_pinned(void)
{
	static const char y[] = BASE_TYPES
		"  physicalCells:\n"
		"  - cellType: RACK\n"
		"    cellChildren:\n"
		"    - cellAddress: n0\n"
		"      pinnedCellId: outer\n"
		"      cellChildren: [{pinnedCellId: inner}]\n"	/* 18 */
		"    - cellAddress: n1\n";

	CHECK_LOAD_FAILS(y, "t.yaml:18:37: error: ",
	    "pinned cell 'inner' lies inside pinned cell 'outer'");
}

static void
test_several_errors_in_one_run(void)
{
	static const char y[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    SW: {childCellType: GPU, childCellNumber: 2}\n"
		"    NODE: {childCellType: SW, childCellNumber: 2, isNodeLevel: true}\n"
		"    BAD: {childCellType: GPU, childCellNumber: -1}\n"	/* 5 */
		"  physicalCells:\n"
		"  - cellType: NODE\n"
		"    cellAddress: n0\n"
		"  - cellType: NODE\n"					/* 9 */
		"    cellAddress: n0\n"
		"  - cellType: NOPE\n"					/* 11 */
		"virtualClusters:\n"
		"  a:\n"
		"    virtualCells:\n"
		"    - {cellType: NODE, cellNumber: 0}\n"		/* 15 */
		"    pinnedCells:\n"
		"    - pinnedCellId: ghost\n"				/* 17 */
		"  b:\n"
		"    virtualCells:\n"
		"    - {cellType: NODE, cellNumber: 5}\n";		/* 20 */
	struct spec_diags d;
	struct spec *s = load_str(y, &d);

	CHECK(s == NULL);
	CHECKF(d.errors == 6, "%.400s", all_diags(&d));
	CHECK_DIAG(&d, "t.yaml:5:48: error: ", "childCellNumber of 'BAD'");
	CHECK_DIAG(&d, "t.yaml:9:5: error: ", "node 'n0' appears twice");
	CHECK_DIAG(&d, "t.yaml:11:15: error: ", "unknown cell type 'NOPE'");
	CHECK_DIAG(&d, "t.yaml:15:36: error: ", "cellNumber must be an integer");
	CHECK_DIAG(&d, "t.yaml:17:21: error: ", "unknown pinnedCellId 'ghost'");
	CHECK_DIAG(&d, "t.yaml:20:7: error: ", "5 cells assigned, 2 available");
	spec_free(s);
	spec_diags_release(&d);
}

/* One mistake, one error: what follows from it is not reported again. */
static void
test_cascades_are_quiet(void)
{
	static const char unknown_top[] =
		"physicalCluster:\n"
		"  cellTypes:\n"
		"    NODE: {childCellType: GPU, childCellNumber: 2, isNodeLevel: true}\n"
		"  physicalCells:\n"
		"  - cellType: NODEX\n"			/* 5 */
		"    cellAddress: n0\n"
		"    pinnedCellId: p\n"
		"virtualClusters:\n"
		"  a:\n"
		"    pinnedCells: [{pinnedCellId: p}]\n";
	static const char no_physical[] =
		"virtualClusters:\n"
		"  a:\n"
		"    virtualCells: [{cellType: NODE, cellNumber: 1}]\n";
	struct spec_diags d;
	struct spec *s;

	s = load_str(unknown_top, &d);
	CHECK(s == NULL);
	CHECKF(d.errors == 1, "%.400s", all_diags(&d));
	CHECK_DIAG(&d, "t.yaml:5:15: error: ", "unknown cell type 'NODEX'");
	spec_free(s);
	spec_diags_release(&d);
	s = load_str(no_physical, &d);
	CHECK(s == NULL);
	CHECKF(d.errors == 1, "%.400s", all_diags(&d));
	CHECK_DIAG(&d, "t.yaml:1:1: error: ", "missing 'physicalCluster'");
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_diags_are_capped(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;
	int i;

	strbuf_adds(&sb, "virtualClusters: {}\nphysicalCluster:\n  cellTypes: {}\n"
	    "  physicalCells:\n");
	for (i = 0; i < SPEC_MAX_DIAGS + 500; i++)
		strbuf_addf(&sb, "  - cellType: T%d\n", i);
	s = load_str(sb.buf, &d);
	CHECK(s == NULL);
	CHECK_INTEQ(d.errors, SPEC_MAX_DIAGS + 500);
	CHECK_INTEQ(d.n, SPEC_MAX_DIAGS);
	CHECK_INTEQ(d.dropped, 500);
	spec_free(s);
	spec_diags_release(&d);
	strbuf_release(&sb);
}

static void
test_file_errors(void)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load("tests/fixtures/no-such-spec.yaml", &d);
	CHECK(s == NULL);
	CHECK_DIAG(&d, "tests/fixtures/no-such-spec.yaml: error: ",
	    "cannot open spec 'tests/fixtures/no-such-spec.yaml'");
	s = spec_load("tests/fixtures", &d);
	CHECK(s == NULL);
	CHECK_DIAG(&d, "tests/fixtures: error: ", "is a directory");
	CHECK_INTEQ(d.errors, 2);
	spec_diags_release(&d);
	/* diags may be NULL. */
	CHECK(spec_load("tests/fixtures/no-such-spec.yaml", NULL) == NULL);
}

/* Either a clean spec that keeps every invariant, or errors: never a crash. */
static void
load_anything(const char *text, size_t len, int *loaded, int *failed)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load_string("t.yaml", text, len, &d);
	if (s != NULL) {
		CHECK_INTEQ(check_spec_invariants(s), 0);
		(*loaded)++;
	} else {
		CHECK(d.errors > 0 && d.n > 0);
		(*failed)++;
	}
	spec_free(s);
	spec_diags_release(&d);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;

	if (f == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, len);
}

/*
 * HiveD's design.yaml: the pinned GPU VC1-YQW-CT1 inside node 1.0.0.2 splits
 * it, so chain CT1-NODE offers 2 whole nodes and 1 GPU to everyone else.
 */
static void
test_infeasible_design_pinned_gpu(void)
{
	size_t len;
	char *text = slurp("tests/fixtures/hived-configs/design.yaml", &len);
	char *t;
	struct spec_diags d;
	struct spec *s;

	CHECK(text != NULL);
	if (text == NULL)
		return;
	/* 2 nodes and 1 GPU: exactly what is left. */
	t = edit(text, 290, "      cellNumber: 2\n    - cellType: CT1-NODE.CT1\n"
	    "      cellNumber: 1\n");
	s = load_str(t, &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s != NULL) {
		CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "VC2"),
		    spec_find_chain(s, "CT1-NODE"), 2), 2);
		CHECK_INTEQ(spec_vc_cells_at(s, spec_find_vc(s, "VC2"),
		    spec_find_chain(s, "CT1-NODE"), 1), 1);
	}
	spec_free(s);
	spec_diags_release(&d);
	free(t);
	/* One node more, or one GPU more, does not fit. */
	t = edit(text, 290, "      cellNumber: 3\n");
	CHECK_LOAD_FAILS(t, "t.yaml:289:7: error: ",
	    "chain 'CT1-NODE' level 2 (CT1-NODE): 3 cells assigned, 2 available");
	free(t);
	t = edit(text, 290, "      cellNumber: 2\n    - cellType: CT1-NODE.CT1\n"
	    "      cellNumber: 2\n");
	CHECK_LOAD_FAILS(t, "t.yaml:291:7: error: ",
	    "chain 'CT1-NODE' level 1 (CT1): 2 cells assigned, 1 available");
	free(t);
	free(text);
}

static void
test_fuzz_truncated(void)
{
	static const char *const files[] = {
		"tests/fixtures/hived-configs/design.yaml", "specs/default.yaml",
		"tests/fixtures/hived-configs/basic.yaml",
	};
	size_t i, len, cut, step = test_long ? 1 : 13;
	int loaded = 0, failed = 0;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *text = slurp(files[i], &len);

		CHECKF(text != NULL, "%s", files[i]);
		if (text == NULL)
			continue;
		for (cut = 0; cut <= len; cut += step)
			load_anything(text, cut, &loaded, &failed);
		load_anything(text, len, &loaded, &failed);
		free(text);
	}
	/* Some prefixes are valid specs (e.g. the empty one), most are not. */
	CHECK(loaded > 0);
	CHECK(failed > 0);
}

static void
test_fuzz_wrong_types(void)
{
	static const char *const values[] = { "[1, 2]", "{x: 1}", "~", "\"\"",
	    "0", "-1", "zz", "99999999999999999999", "&a [*a]", "!!binary aGk=" };
	size_t v;
	int line, loaded = 0, failed = 0;
	struct strbuf sb = STRBUF_INIT;

	/* Every value of the base spec, replaced by every kind of value. */
	for (line = 1; line <= 22; line++) {
		const char *p = base;
		const char *colon;
		int l;

		for (l = 1; l < line; l++)
			p = strchr(p, '\n') + 1;
		colon = strchr(p, ':');
		for (v = 0; v < sizeof values / sizeof values[0]; v++) {
			strbuf_reset(&sb);
			strbuf_add(&sb, base, (size_t)(colon - base) + 1);
			strbuf_addf(&sb, " %s", values[v]);
			strbuf_adds(&sb, strchr(p, '\n'));
			load_anything(sb.buf, sb.len, &loaded, &failed);
			/* and the key itself */
			strbuf_reset(&sb);
			strbuf_add(&sb, base, (size_t)(p - base));
			strbuf_addf(&sb, "%.*s%s%s", (int)strspn(p, " -"), p,
			    values[v], colon);
			load_anything(sb.buf, sb.len, &loaded, &failed);
		}
	}
	CHECK(loaded > 0);
	CHECK(failed > 100);
	strbuf_release(&sb);
}

static void
test_fuzz_huge_and_deep(void)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	/* Too many cells: refused before anything is allocated for them. */
	CHECK_LOAD_FAILS(
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 4000000, isNodeLevel: true}\n"
	    "    RACK: {childCellType: NODE, childCellNumber: 4000000}\n"
	    "  physicalCells:\n"
	    "  - {cellType: RACK}\n",
	    "t.yaml:6:16: error: ", "cell type 'RACK' is too large");
	CHECK_LOAD_FAILS(
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 4000000, isNodeLevel: true}\n"
	    "  physicalCells:\n"
	    "  - {cellType: NODE, cellAddress: a}\n"
	    "  - {cellType: NODE, cellAddress: b}\n",
	    "t.yaml:4:3: error: ", "the physical cells expand to 8000002 cells");
	/* Deeper than SPEC_MAX_LEVELS. */
	strbuf_adds(&sb, "physicalCluster:\n  cellTypes:\n");
	strbuf_adds(&sb, "    T1: {childCellType: GPU, childCellNumber: 1, isNodeLevel: true}\n");
	for (i = 2; i <= 20; i++)
		strbuf_addf(&sb, "    T%d: {childCellType: T%d, childCellNumber: 1}\n", i, i - 1);
	strbuf_adds(&sb, "  physicalCells:\n  - cellType: T20\n");
	CHECK_LOAD_FAILS(sb.buf, "t.yaml:24:15: error: ", "cell type 'T20' has 21 levels, at most 16");
	/* Deep YAML nesting. */
	strbuf_reset(&sb);
	strbuf_adds(&sb, "physicalCluster: ");
	for (i = 0; i < 100000; i++)
		strbuf_addc(&sb, '[');
	CHECK_LOAD_FAILS(sb.buf, "t.yaml:1:", "nested too deeply");
	/* A long chain of types, defined in reverse (no recursion anywhere). */
	strbuf_reset(&sb);
	strbuf_adds(&sb, "physicalCluster:\n  cellTypes:\n");
	for (i = 100000; i >= 2; i--)
		strbuf_addf(&sb, "    T%d: {childCellType: T%d, childCellNumber: 1}\n", i, i - 1);
	strbuf_adds(&sb, "  physicalCells:\n  - cellType: T100000\n");
	CHECK_LOAD_FAILS(sb.buf, "t.yaml:", "cell type 'T100000' has 100000 levels");
	strbuf_release(&sb);
}

/*
 * A generated spec of n chains (a node type each, with its own GPU type),
 * one node each, every node pinned, and a VC per node that claims either
 * a GPU by its bare cell type ("G7": the loader finds its chain) or the
 * node's pin.
 */
static void
many_chains(struct strbuf *sb, int n, bool bare)
{
	int i;

	strbuf_reset(sb);
	strbuf_adds(sb, "physicalCluster:\n  cellTypes:\n");
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "    N%d: {childCellType: G%d, childCellNumber: 4, "
		    "isNodeLevel: true}\n", i, i);
	strbuf_adds(sb, "  physicalCells:\n");
	for (i = 0; i < n; i++)
		strbuf_addf(sb, "  - {cellType: N%d, cellAddress: n%d, "
		    "pinnedCellId: p%d}\n", i, i, i);
	strbuf_adds(sb, "virtualClusters:\n");
	for (i = 0; i < n; i++)
		if (bare)
			strbuf_addf(sb, "  v%d: {virtualCells: [{cellType: G%d, "
			    "cellNumber: 1}]}\n", i, i);
		else
			strbuf_addf(sb, "  v%d: {pinnedCells: [{pinnedCellId: p%d}]}\n",
			    i, i);
}

/* The least CPU time of three loads of text (noise only adds). */
static double
load_cpu(const char *text)
{
	double best = -1;
	int k;

	for (k = 0; k < 3; k++) {
		struct spec_diags d;
		struct timespec a, b;
		struct spec *s;
		double t;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		s = load_str(text, &d);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		CHECKF(s != NULL, "%.300s", all_diags(&d));
		spec_free(s);
		spec_diags_release(&d);
		t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/*
 * Huge generated specs load in time linear in their size (issue 23, F5:
 * 5,000-20,000-node specs of many chains took seconds, quadratic in the
 * feasibility check and in resolving bare VC cell types). Four times the
 * chains must take less than eight times the CPU time (linear: four;
 * quadratic: sixteen): a ratio, not a wall-clock limit, so a loaded
 * machine does not fail it.
 */
static void
test_fuzz_huge_linear(void)
{
	struct strbuf sb = STRBUF_INIT;
	double t1, t4;
	int bare;

	for (bare = 0; bare <= 1; bare++) {
		many_chains(&sb, 3000, bare);
		t1 = load_cpu(sb.buf);
		many_chains(&sb, 12000, bare);
		t4 = load_cpu(sb.buf);
		CHECKF(t4 < 8 * t1 + 0.02, "%s: 3000 chains load in %.3f s, 12000 "
		    "in %.3f s (x%.1f)", bare ? "bare types" : "pins", t1, t4,
		    t4 / t1);
	}
	strbuf_release(&sb);
}

static void
test_fuzz_aliases(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;
	int i, j;

	/* Anchors and aliases work for ordinary reuse. */
	s = load_str(BASE_TYPES BASE_CELLS
	    "virtualClusters:\n"
	    "  a:\n"
	    "    virtualCells: &cells\n"
	    "    - {cellType: RACK.NODE, cellNumber: 1}\n"
	    "  b:\n"
	    "    virtualCells: *cells\n", &d);
	CHECKF(s != NULL, "%.400s", all_diags(&d));
	if (s != NULL)
		CHECK_INTEQ(spec_vc_cells_at(s, 1, 0, 3), 1);
	spec_free(s);
	spec_diags_release(&d);
	/* A billion laughs. */
	strbuf_adds(&sb, "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
	for (i = 1; i < 12; i++) {
		strbuf_addf(&sb, "l%d: &l%d [", i, i);
		for (j = 0; j < 10; j++)
			strbuf_addf(&sb, "%s*l%d", j ? ", " : "", i - 1);
		strbuf_adds(&sb, "]\n");
	}
	CHECK_LOAD_FAILS(sb.buf, "t.yaml:1:1: error: ", "aliases expand the document too much");
	/* An alias inside its own anchor. */
	CHECK_LOAD_FAILS("physicalCluster: &a {cellTypes: *a}\n", "t.yaml:1:33: error: ",
	    "alias 'a' refers to a node that contains it");
	strbuf_release(&sb);
}

static void
test_fuzz_garbage(void)
{
	static const char *const bits[] = { "physicalCluster", ":", " ", "\n",
	    "  ", "- ", "cellTypes", "cellType", "cellChildren", "[", "]", "{",
	    "}", ",", "NODE", "childCellType", "childCellNumber", "2", "\"",
	    "'", "&a", "*a", "#", "\t", "\xff", "?", "isNodeLevel", "true",
	    "virtualClusters", "cellNumber", "\0" };
	struct strbuf sb = STRBUF_INIT;
	unsigned x = 12345;
	int n, i, k, loaded = 0, failed = 0;

	n = test_long ? 20000 : 2000;
	for (i = 0; i < n; i++) {
		strbuf_reset(&sb);
		for (k = 0; k < 40; k++) {
			const char *b;

			x = x * 1103515245u + 12345u;
			b = bits[(x >> 16) % (sizeof bits / sizeof bits[0])];
			if (*b == '\0')
				strbuf_addc(&sb, '\0');
			else
				strbuf_adds(&sb, b);
		}
		load_anything(sb.buf, sb.len, &loaded, &failed);
	}
	CHECK(failed > 0);
	CHECK_INTEQ(loaded + failed, n);
	strbuf_release(&sb);
}

static const struct test tests[] = {
	{ "base-is-valid", test_base_is_valid },
	{ "yaml-syntax-error", test_yaml_syntax_error },
	{ "missing-sections", test_missing_sections },
	{ "unknown-cell-type", test_unknown_cell_type },
	{ "cycle", test_cycle },
	{ "child-cell-number", test_child_cell_number },
	{ "node-levels-per-chain", test_node_levels_per_chain },
	{ "top-level-below-node-level", test_top_level_below_node_level },
	{ "node-without-address", test_node_without_address },
	{ "duplicate-node-in-chain", test_duplicate_node_in_chain },
	{ "duplicate-leaf-across-chains", test_duplicate_leaf_across_chains },
	{ "duplicate-sibling-address", test_duplicate_sibling_address },
	{ "too-many-children", test_too_many_children },
	{ "duplicate-pinned-id", test_duplicate_pinned_id },
	{ "unknown-pinned-id", test_unknown_pinned_id },
	{ "pinned-id-claimed-twice", test_pinned_id_claimed_twice },
	{ "vc-type-not-in-chain", test_vc_type_not_in_chain },
	{ "vc-type-ambiguous-or-unused", test_vc_type_ambiguous_or_unused },
	{ "cell-number", test_cell_number },
	{ "unknown-keys-warn", test_unknown_keys_warn },
	{ "unknown-top-key-errs", test_unknown_top_key_errs },
	{ "infeasible-every-level", test_infeasible_every_level },
	{ "infeasible-with-pinned-cell", test_infeasible_with_pinned_cell },
	{ "infeasible-design-pinned-gpu", test_infeasible_design_pinned_gpu },
	{ "pinned-inside-pinned", test_pinned_inside_pinned },
	{ "several-errors-in-one-run", test_several_errors_in_one_run },
	{ "cascades-are-quiet", test_cascades_are_quiet },
	{ "diags-are-capped", test_diags_are_capped },
	{ "file-errors", test_file_errors },
	{ "fuzz-truncated", test_fuzz_truncated },
	{ "fuzz-wrong-types", test_fuzz_wrong_types },
	{ "fuzz-huge-and-deep", test_fuzz_huge_and_deep },
	{ "fuzz-huge-linear", test_fuzz_huge_linear },
	{ "fuzz-aliases", test_fuzz_aliases },
	{ "fuzz-garbage", test_fuzz_garbage },
};

TEST_MAIN(tests)
