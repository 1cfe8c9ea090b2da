/*
 * tspec-slurm.c — `spec import slurm`'s reader and writer (src/spec/slurm.c)
 * on Slurm's own text: the fixtures under tests/fixtures/slurm (64 nodes of
 * two GPU types on 4 switches with a node without GPUs, a DOWN and a
 * DRAIN node; the output of a real Slurm 22.05, with and without -o),
 * every GRES form, node states, and broken input, which must give an
 * error naming its line, never a crash. Whatever is read is written as a
 * spec that the spec loader takes, with every spec.h invariant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "spec/slurm.h"
#include "test.h"
#include "tspec.h"

#define FIX	"tests/fixtures/slurm/"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	*len = 0;
	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = xmalloc((size_t)n + 1);
		*len = fread(buf, 1, (size_t)n, f);
		buf[*len] = '\0';
	}
	fclose(f);
	return buf;
}

/* Parse the fixtures (topo may be NULL); 0 or -1 with *cause. */
static int
parse_files(struct slurm_cluster *c, const char *nodes, const char *topo,
    char **cause)
{
	char *text;
	size_t len;
	int rc;

	slurm_cluster_init(c);
	if ((text = slurp(nodes, &len)) == NULL) {
		*cause = xasprintf("cannot read %s", nodes);
		return -1;
	}
	rc = slurm_parse_nodes(c, text, len, nodes, cause);
	free(text);
	if (rc != 0 || topo == NULL)
		return rc;
	if ((text = slurp(topo, &len)) == NULL) {
		*cause = xasprintf("cannot read %s", topo);
		return -1;
	}
	rc = slurm_parse_topology(c, text, len, topo, cause);
	free(text);
	return rc;
}

static int
parse_str(struct slurm_cluster *c, const char *nodes, const char *topo,
    char **cause)
{
	slurm_cluster_init(c);
	if (slurm_parse_nodes(c, nodes, strlen(nodes), "n", cause) != 0)
		return -1;
	return topo == NULL ? 0 : slurm_parse_topology(c, topo, strlen(topo), "t",
	    cause);
}

static struct slurm_import
opts(void)
{
	struct slurm_import im = { NULL, 0, "hooks/slurm", "all", "test" };

	return im;
}

/* Render c and load the result; the spec (or NULL, with a failed check). */
static struct spec *
render_load(const struct slurm_cluster *c, const struct slurm_import *im,
    struct strbuf *text, struct slurm_summary *sum)
{
	struct spec_diags d;
	struct spec *s;
	char *cause = NULL;

	strbuf_reset(text);
	if (slurm_render(c, im, text, sum, &cause) != 0) {
		CHECKF(0, "render: %s", cause);
		free(cause);
		return NULL;
	}
	s = load_str(text->buf, &d);
	CHECKF(s != NULL, "does not load: %.300s\n%.2000s", all_diags(&d), text->buf);
	if (s != NULL)
		CHECK_INTEQ(check_spec_invariants(s), 0);
	spec_diags_release(&d);
	return s;
}

static int
vc_gpus(const struct spec *s, const char *name)
{
	int v = spec_find_vc(s, name), i, n = 0;

	for (i = 0; v >= 0 && i < s->vcs[v].ncells; i++)
		n += s->vcs[v].cells[i].number *
		    (int)s->types[s->vcs[v].cells[i].type].leaves;
	return v < 0 ? -1 : n;
}

static const struct slurm_node *
node(const struct slurm_cluster *c, const char *name)
{
	int i;

	for (i = 0; i < c->nnodes; i++)
		if (strcmp(c->nodes[i].name, name) == 0)
			return &c->nodes[i];
	return NULL;
}

static void
test_cluster64_topology(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;
	int ch;

	CHECKF(parse_files(&c, FIX "cluster64.nodes", FIX "cluster64.topology",
	    &cause) == 0, "%s", cause);
	CHECK_INTEQ(c.nnodes, 65);
	CHECK_INTEQ(c.nswitches, 5);
	CHECK(c.topology);
	CHECK(node(&c, "gpu001") && node(&c, "gpu001")->gpus == 8);
	CHECK(node(&c, "gpu001") && strcmp(node(&c, "gpu001")->type, "a100") == 0);
	CHECK(node(&c, "gpu064") && node(&c, "gpu064")->gpus == 4);
	CHECK(node(&c, "login01") && node(&c, "login01")->skip != NULL);
	CHECK(node(&c, "gpu017") && strcmp(node(&c, "gpu017")->state, "DOWN*") == 0);
	/* a value with spaces runs to the next key */
	CHECK(node(&c, "gpu040") && strcmp(node(&c, "gpu040")->reason,
	    "bad GPU 3, RMA open [root@2024-03-01T17:02:10]") == 0);
	CHECK(node(&c, "gpu020") && node(&c, "gpu020")->rack == 1);
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.nodes, 64);
	CHECK_INTEQ(sum.gpus, 384);
	CHECK_INTEQ(sum.chains, 2);
	CHECK_INTEQ(sum.racks, 4);
	CHECK_INTEQ(sum.skipped, 1);
	CHECK_INTEQ(sum.unhealthy, 2);
	if (s != NULL) {
		CHECK_INTEQ(s->nnodes, 64);
		CHECK_INTEQ(s->gpus, 384);
		CHECK(spec_find_node(s, "login01") < 0);
		CHECK((ch = spec_find_chain(s, "A100-RACK")) >= 0);
		if (ch >= 0) {
			CHECK_INTEQ(s->chains[ch].levels, 3);
			CHECK_INTEQ(s->chains[ch].level_count[3], 2);
			CHECK_INTEQ(s->chains[ch].node_level, 2);
		}
		CHECK(spec_find_chain(s, "V100-RACK") >= 0);
		CHECK(spec_find_cell(s, "sw1/gpu017") >= 0);
		CHECK_INTEQ(vc_gpus(s, "all"), 384);
		CHECK(s->backend.type == SPEC_BACKEND_LOCAL);
		CHECK(s->backend.hooks[SPEC_HOOK_SUSPEND] == NULL);
	}
	CHECK(strstr(text.buf, "cellAddress: gpu017  # DOWN* in Slurm: Not "
	    "responding") != NULL);
	CHECK(strstr(text.buf, "cellAddress: gpu040  # IDLE+DRAIN in Slurm") != NULL);
	CHECK(strstr(text.buf, "#   without GPUs: login01\n") != NULL);
	CHECK(strstr(text.buf, "# EDIT") != NULL);
	spec_free(s);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

static void
test_cluster64_flat(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;
	int ch;

	CHECKF(parse_files(&c, FIX "cluster64.nodes", NULL, &cause) == 0, "%s", cause);
	CHECK(!c.topology);
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.racks, 0);
	if (s != NULL) {
		CHECK((ch = spec_find_chain(s, "A100-NODE")) >= 0);
		if (ch >= 0)
			CHECK_INTEQ(s->chains[ch].level_count[2], 32);
		CHECK(spec_find_chain(s, "V100-NODE") >= 0);
		CHECK_INTEQ(s->gpus, 384);
	}
	CHECK(strstr(text.buf, "No Slurm topology") != NULL);
	spec_free(s);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

static void
test_partition(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;

	CHECKF(parse_files(&c, FIX "cluster64.nodes", FIX "cluster64.topology",
	    &cause) == 0, "%s", cause);
	im.partition = "a100";
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.nodes, 32);
	CHECK_INTEQ(sum.other_partitions, 33);
	CHECK_INTEQ(sum.chains, 1);
	if (s != NULL)
		CHECK(spec_find_node(s, "gpu033") < 0 && spec_find_node(s, "gpu032") >= 0);
	CHECK(strstr(text.buf, "not in partition a100: login01,gpu[033-064]") != NULL);
	CHECK(strstr(text.buf, "SBATCH_PARTITION=a100") != NULL);
	spec_free(s);
	/* "all" is a partition too; "cpu" has only a node without GPUs */
	im.partition = "cpu";
	strbuf_reset(&text);
	CHECK(slurm_render(&c, &im, &text, &sum, &cause) == -1);
	CHECKF(cause && strstr(cause, "no node of partition 'cpu' with GPUs"), "%s", cause);
	free(cause);
	cause = NULL;
	im.partition = "nosuch";
	CHECK(slurm_render(&c, &im, &text, &sum, &cause) == -1);
	CHECKF(cause && strcmp(cause, "no node in partition 'nosuch'") == 0, "%s", cause);
	free(cause);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

static void
test_gpus_per_switch(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;
	int t;

	CHECKF(parse_files(&c, FIX "cluster64.nodes", FIX "cluster64.topology",
	    &cause) == 0, "%s", cause);
	im.gpus_per_switch = 2;
	s = render_load(&c, &im, &text, &sum);
	if (s != NULL) {
		CHECK((t = spec_find_type(s, "A100-SWITCH")) >= 0);
		if (t >= 0)
			CHECK_INTEQ(s->types[t].nchild, 2);
		CHECK((t = spec_find_type(s, "A100-NODE")) >= 0);
		if (t >= 0)
			CHECK_INTEQ(s->types[t].nchild, 4);
		CHECK((t = spec_find_type(s, "V100-NODE")) >= 0);
		if (t >= 0)
			CHECK_INTEQ(s->types[t].nchild, 2);
		CHECK_INTEQ(s->gpus, 384);
	}
	spec_free(s);
	/* 8 GPUs split in 4s, 4 GPUs not: no switch level there, said so */
	im.gpus_per_switch = 4;
	s = render_load(&c, &im, &text, &sum);
	if (s != NULL) {
		CHECK(spec_find_type(s, "A100-SWITCH") >= 0);
		CHECK(spec_find_type(s, "V100-SWITCH") < 0);
	}
	CHECK(strstr(text.buf, "no switch level (4 GPUs do not split into "
	    "switches of 4)") != NULL);
	spec_free(s);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

/* The real Slurm 22.05 of t0625 (captured by hand): n2 drained. */
static void
test_real(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c, m;
	struct spec *s;
	char *cause = NULL;
	int i;

	CHECKF(parse_files(&c, FIX "real-2n.nodes", FIX "real-2n.topology",
	    &cause) == 0, "%s", cause);
	CHECK_INTEQ(c.nnodes, 2);
	CHECK(node(&c, "n2") && strcmp(node(&c, "n2")->state, "IDLE+DRAIN") == 0);
	CHECK(node(&c, "n2") && node(&c, "n2")->type == NULL && node(&c, "n2")->gpus == 4);
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.racks, 2);
	CHECK_INTEQ(sum.unhealthy, 1);
	if (s != NULL) {
		CHECK(spec_find_chain(s, "GPU-RACK") >= 0);
		CHECK(spec_find_cell(s, "s1/n2") >= 0);
	}
	spec_free(s);
	/* without -o: the same nodes */
	CHECKF(parse_files(&m, FIX "real-2n-multiline.nodes", NULL, &cause) == 0,
	    "%s", cause);
	CHECK_INTEQ(m.nnodes, 2);
	for (i = 0; i < m.nnodes && i < c.nnodes; i++) {
		CHECK_STREQ(m.nodes[i].name, c.nodes[i].name);
		CHECK_INTEQ(m.nodes[i].gpus, c.nodes[i].gpus);
		CHECK_STREQ(m.nodes[i].partitions, "all");
	}
	strbuf_release(&text);
	slurm_cluster_release(&c);
	slurm_cluster_release(&m);
}

/* Every GRES form: GPUs, type, or why the node gets no cells. */
static void
test_gres(void)
{
	static const struct {
		const char	*gres;
		const char	*type;	/* NULL: untyped */
		int		 gpus;	/* -1: an error */
		const char	*skip;	/* start of the skip reason */
	} cases[] = {
		{ "gpu:4", NULL, 4, NULL },
		{ "gpu:a100:8(S:0-1)", "a100", 8, NULL },
		{ "gpu:tesla:2(S:0),gpu:tesla:2(S:1)", "tesla", 4, NULL },
		{ "gpu:a100:2(S:0,2),gpu:a100:2(S:1,3)", "a100", 4, NULL },
		{ "gpu:a100:no_consume:2", "a100", 2, NULL },
		{ "nic:mlx5:1,gpu:v100:4", "v100", 4, NULL },
		{ "gpu", NULL, 1, NULL },
		{ "gpu:k80", "k80", 1, NULL },
		{ "gpu:1g.5gb:7", "1g.5gb", 7, NULL },
		{ "(null)", NULL, 0, "no GPUs" },
		{ "gpu:0", NULL, 0, "no GPUs" },
		{ "mps:100", NULL, 0, "no GPUs" },
		{ "gpu:a100:4,gpu:v100:4", NULL, 0, "several GPU types" },
		{ "gpu:2,gpu:a100:2", NULL, 0, "several GPU types" },
		{ "gpu:a:b:4", NULL, -1, NULL },
		{ "gpu::4", NULL, -1, NULL },
		{ "gpu:99999", NULL, -1, NULL },
		{ "gpu:4096,gpu:1", NULL, -1, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct slurm_cluster c;
		char *line = xasprintf("NodeName=n1 Gres=%s State=IDLE\n", cases[i].gres);
		char *cause = NULL;
		int rc = parse_str(&c, line, NULL, &cause);

		if (cases[i].gpus < 0) {
			CHECKF(rc == -1, "'%s' read", cases[i].gres);
			CHECKF(cause && strstr(cause, "'n' line 1: node 'n1': "),
			    "'%s': %s", cases[i].gres, cause);
		} else if (rc != 0)
			CHECKF(rc == 0, "'%s': %s", cases[i].gres, cause);
		else {
			const struct slurm_node *n = &c.nodes[0];

			CHECKF(n->gpus == cases[i].gpus, "'%s': %d GPUs", cases[i].gres,
			    n->gpus);
			CHECKF(cases[i].type ? n->type && !strcmp(n->type, cases[i].type) :
			    n->type == NULL || cases[i].skip != NULL, "'%s': type %s",
			    cases[i].gres, n->type ? n->type : "NULL");
			CHECKF(cases[i].skip ? n->skip && !strncmp(n->skip, cases[i].skip,
			    strlen(cases[i].skip)) : n->skip == NULL, "'%s': skip %s",
			    cases[i].gres, n->skip ? n->skip : "NULL");
		}
		free(cause);
		free(line);
		slurm_cluster_release(&c);
	}
}

static void
test_states(void)
{
	static const struct {
		const char	*state;
		bool		 healthy;
	} cases[] = {
		{ "IDLE", true }, { "MIXED", true }, { "ALLOCATED", true },
		{ "ALLOCATED+COMPLETING", true }, { "IDLE+CLOUD", true },
		{ "RESERVED", true }, { "PLANNED", true },
		{ "DOWN", false }, { "DOWN*", false }, { "IDLE*", false },
		{ "IDLE~", false }, { "IDLE+DRAIN", false }, { "DOWN+DRAIN", false },
		{ "MIXED+DRAIN", false }, { "ALLOCATED+FAIL", false },
		{ "IDLE+POWERED_DOWN", false }, { "UNKNOWN", false },
		{ "UNKNOWN+DRAIN", false }, { "FUTURE", false },
		{ "IDLE+NOT_RESPONDING", false }, { "", false },
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
		CHECKF(slurm_state_healthy(cases[i].state) == cases[i].healthy,
		    "'%s'", cases[i].state);
	CHECK(slurm_state_healthy(NULL));
}

/*
 * Node types by GPU type and count, typed and untyped GRES, a switch
 * holding two node types (two rack cells), racks of two sizes, nodes in
 * no switch, and names YAML would read as something else.
 */
static void
test_mixed(void)
{
	static const char nodes[] =
	    "NodeName=a1 Gres=gpu:a100:8 State=IDLE Partitions=p\n"
	    "NodeName=a2 Gres=gpu:a100:8 State=MIXED Partitions=p\n"
	    "NodeName=a3 Gres=gpu:a100:8 State=DOWN+DRAIN Partitions=p Reason=fan\n"
	    "NodeName=a4 Gres=gpu:a100:8 State=IDLE\n"
	    "NodeName=a5 Gres=gpu:a100:8 State=IDLE\n"
	    "NodeName=a6 Gres=gpu:a100:8 State=IDLE\n"
	    "NodeName=a7 Gres=gpu:a100:4 State=IDLE\n"
	    "\n"
	    "NodeName=u1 Gres=gpu:2 State=IDLE\n"
	    "NodeName=true Gres=gpu:2 State=IDLE\n"
	    "NodeName=007 Gres=gpu:1 State=IDLE\n"
	    "NodeName=c1 Gres=(null) State=IDLE\n"
	    "NodeName=-x Gres=gpu:1 State=IDLE\n"
	    "NodeName=m1 Gres=gpu:a100:4,gpu:v100:4 State=IDLE\n";
	static const char topo[] =
	    "SwitchName=s1 Level=0 LinkSpeed=1 Nodes=a[1-2],u1\n"
	    "SwitchName=s2 Level=0 LinkSpeed=1 Nodes=a[3-5]\n"
	    "SwitchName=s/3 Level=0 LinkSpeed=1 Nodes=a6\n"
	    "SwitchName=top Level=1 LinkSpeed=1 Nodes=a[1-6],u1 Switches=s[1-2],s/3\n";
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;

	CHECKF(parse_str(&c, nodes, topo, &cause) == 0, "%s", cause);
	CHECK_INTEQ(c.nnodes, 13);
	im.vc = "team-a";
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.nodes, 10);
	CHECK_INTEQ(sum.skipped, 3);
	CHECK_INTEQ(sum.unhealthy, 1);
	CHECK_INTEQ(sum.gpus, 6 * 8 + 4 + 2 + 2 + 1);
	if (s != NULL) {
		CHECK(spec_find_type(s, "A100-8-NODE") >= 0);
		CHECK(spec_find_type(s, "A100-4-NODE") >= 0);
		CHECK(spec_find_type(s, "GPU-2-NODE") >= 0);
		CHECK(spec_find_type(s, "GPU-1-NODE") >= 0);
		/* racks of 2 (s1), 3 (s2) and 1 (s/3) A100-8 nodes */
		CHECK(spec_find_chain(s, "A100-8-RACK-2") >= 0);
		CHECK(spec_find_chain(s, "A100-8-RACK-3") >= 0);
		CHECK(spec_find_chain(s, "A100-8-RACK-1") >= 0);
		CHECK(spec_find_chain(s, "GPU-2-RACK") >= 0);
		CHECK(spec_find_cell(s, "s1-a100-8-node/a1") >= 0);
		CHECK(spec_find_cell(s, "s1-gpu-2-node/u1") >= 0);
		CHECK(spec_find_cell(s, "s-3/a6") >= 0);
		/* no switch: a top-level node cell */
		CHECK(spec_find_chain(s, "A100-4-NODE") >= 0);
		CHECK(spec_find_node(s, "true") >= 0);
		CHECK(spec_find_node(s, "007") >= 0);
		CHECK(spec_find_node(s, "c1") < 0);
		CHECK(spec_find_node(s, "-x") < 0);
		CHECK(spec_find_node(s, "m1") < 0);
		CHECK_INTEQ(vc_gpus(s, "team-a"), sum.gpus);
	}
	CHECK(strstr(text.buf, "#   -x: a name cellar's hooks cannot take") != NULL);
	CHECK(strstr(text.buf, "#   m1: several GPU types (Gres=gpu:a100:4,gpu:v100:4)") != NULL);
	CHECK(strstr(text.buf, "cellAddress: a3  # DOWN+DRAIN in Slurm: fan\n") != NULL);
	CHECK(strstr(text.buf, "cellAddress: \"true\"\n") != NULL);
	spec_free(s);
	/* only the partition's nodes; one node left: a chain of one */
	im.partition = "p";
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.nodes, 3);
	spec_free(s);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

/*
 * A big cluster, built here: 8192 nodes on 512 switches, a node listed
 * twice by its switch. Nothing quadratic, and the spec loads.
 */
static void
test_big(void)
{
	struct strbuf nodes = STRBUF_INIT, topo = STRBUF_INIT, text = STRBUF_INIT;
	struct slurm_import im = opts();
	struct slurm_summary sum;
	struct slurm_cluster c;
	struct spec *s;
	char *cause = NULL;
	int i;

	for (i = 0; i < 8192; i++)
		strbuf_addf(&nodes, "NodeName=n%05d Gres=gpu:h100:8(S:0-1) State=IDLE "
		    "Partitions=all\n", i);
	for (i = 0; i < 512; i++)
		strbuf_addf(&topo, "SwitchName=s%d Level=0 Nodes=n[%05d-%05d]%s\n", i,
		    i * 16, i * 16 + 15, i == 0 ? ",n00003" : "");
	strbuf_adds(&topo, "SwitchName=top Level=1 Switches=s[0-511]\n");
	CHECKF(parse_str(&c, nodes.buf, topo.buf, &cause) == 0, "%s", cause);
	CHECK_INTEQ(c.nswitches, 513);
	CHECK_INTEQ(c.switches[0].nnode, 16);
	s = render_load(&c, &im, &text, &sum);
	CHECK_INTEQ(sum.nodes, 8192);
	CHECK_INTEQ(sum.racks, 512);
	if (s != NULL)
		CHECK_INTEQ(s->gpus, 65536);
	spec_free(s);
	free(cause);
	strbuf_release(&nodes);
	strbuf_release(&topo);
	strbuf_release(&text);
	slurm_cluster_release(&c);
}

/* Broken input: an error naming the input and the line, nothing else. */
static void
test_errors(void)
{
	static const struct {
		const char	*nodes;
		const char	*topo;
		const char	*want;
	} cases[] = {
		{ "NodeName=n1 Gres=gpu:4\nthis is garbage\n", NULL,
		  "'n' line 2: not a node (want NodeName=" },
		{ "Gres=gpu:4 NodeName=n1\n", NULL, "'n' line 1: not a node" },
		{ "\n\n   \n", NULL, "'n' lists no node" },
		{ "", NULL, "'n' lists no node" },
		{ "NodeName= Gres=gpu:4\n", NULL, "'n' line 1: a node without a name" },
		{ "NodeName=n1\nNodeName=n1\n", NULL, "'n' line 2: node 'n1' listed twice" },
		{ "NodeName=n1 Gres=gpu:4\n", "SwitchName=s0 Nodes=n1\nfoo bar\n",
		  "'t' line 2: not a switch (want SwitchName=" },
		{ "NodeName=n1 Gres=gpu:4\n", "SwitchName=s0 Nodes=n[1-2]\n",
		  "'t' line 1: switch 's0' holds node 'n2' that the node list does not have" },
		{ "NodeName=n1 Gres=gpu:4\n", "SwitchName=s0 Nodes=n[1-\n",
		  "'t' line 1: switch 's0': " },
		{ "NodeName=n1 Gres=gpu:4\n", "SwitchName=s0 Level=x Nodes=n1\n",
		  "'t' line 1: switch 's0': bad Level 'x'" },
		{ "NodeName=n1 Gres=gpu:4\n",
		  "SwitchName=s0 Level=0 Nodes=n1\nSwitchName=s1 Level=0 Nodes=n1\n",
		  "'t' line 2: node 'n1' is in switch 's1' and in switch 's0' (line 1)" },
		{ "NodeName=n1 Gres=gpu:4\n", "SwitchName=s0 Nodes=n[1-99999999]\n",
		  "'t' line 1: switch 's0': " },
	};
	struct slurm_cluster c;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *cause = NULL;

		CHECKF(parse_str(&c, cases[i].nodes, cases[i].topo, &cause) == -1,
		    "case %zu read", i);
		CHECKF(cause && strncmp(cause, cases[i].want, strlen(cases[i].want)) == 0,
		    "case %zu: '%s'", i, cause ? cause : "no cause");
		free(cause);
		slurm_cluster_release(&c);
	}
	/* a NUL byte: not text */
	{
		char *cause = NULL;

		slurm_cluster_init(&c);
		CHECK(slurm_parse_nodes(&c, "NodeName=n1\0x", 13, "n", &cause) == -1);
		CHECKF(cause && strcmp(cause, "'n' is not text (a NUL byte)") == 0, "%s",
		    cause);
		free(cause);
		slurm_cluster_release(&c);
	}
	/* scontrol's own words without a topology: no racks */
	{
		char *cause = NULL;

		CHECK(parse_str(&c, "NodeName=n1 Gres=gpu:4\n",
		    "scontrol: error: No topology information available\n", &cause) == 0);
		CHECK(!c.topology);
		free(cause);
		slurm_cluster_release(&c);
	}
}

/*
 * Mutations of real lines (bytes dropped, changed, lines cut and doubled,
 * seeded): each either fails with a cause or renders a spec that loads.
 */
static void
test_mutations(void)
{
	struct strbuf text = STRBUF_INIT;
	struct slurm_import im = opts();
	size_t len, tlen, k;
	char *base, *topo;
	unsigned seed = 19;
	int i, n = test_long ? 3000 : 300, ok = 0;

	base = slurp(FIX "real-2n.nodes", &len);
	topo = slurp(FIX "real-2n.topology", &tlen);
	CHECK(base != NULL && topo != NULL);
	if (base == NULL || topo == NULL)
		goto out;
	for (i = 0; i < n; i++) {
		struct slurm_cluster c;
		struct slurm_summary sum;
		char *t = xmalloc(len + 1), *cause = NULL;
		size_t tl = len;
		int j;

		memcpy(t, base, len);
		for (j = 0; j < 1 + i % 8; j++) {
			seed = seed * 1103515245 + 12345;
			k = (seed >> 8) % tl;
			switch ((seed >> 4) % 4) {
			case 0: t[k] = " =:,()[]+\n\tx9"[(seed >> 16) % 13]; break;
			case 1: memmove(t + k, t + k + 1, tl - k - 1); tl--; break;
			case 2: t[k] = (char)(seed >> 16); break;
			default: tl = k; break;
			}
			if (tl == 0)
				break;
		}
		slurm_cluster_init(&c);
		if (slurm_parse_nodes(&c, t, tl, "m", &cause) == 0 &&
		    slurm_parse_topology(&c, topo, tlen, "t", &cause) == 0) {
			strbuf_reset(&text);
			if (slurm_render(&c, &im, &text, &sum, &cause) == 0) {
				struct spec_diags d;
				struct spec *s = load_str(text.buf, &d);

				CHECKF(s != NULL, "mutation %d: %.300s\n%.1500s", i,
				    all_diags(&d), text.buf);
				ok += s != NULL;
				spec_free(s);
				spec_diags_release(&d);
			} else
				CHECK(cause != NULL);
		} else
			CHECK(cause != NULL && cause[0] == '\'');
		free(cause);
		free(t);
		slurm_cluster_release(&c);
	}
	CHECKF(ok > 0, "no mutation rendered");
out:
	free(base);
	free(topo);
	strbuf_release(&text);
}

static const struct test tests[] = {
	{ "cluster64-topology", test_cluster64_topology },
	{ "cluster64-flat", test_cluster64_flat },
	{ "partition", test_partition },
	{ "gpus-per-switch", test_gpus_per_switch },
	{ "real-slurm", test_real },
	{ "gres", test_gres },
	{ "states", test_states },
	{ "mixed", test_mixed },
	{ "big", test_big },
	{ "errors", test_errors },
	{ "mutations", test_mutations },
};

TEST_MAIN(tests)
