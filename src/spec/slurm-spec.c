/*
 * slurm-spec.c — the spec written for a Slurm cluster read by slurm.c
 * (see slurm.h): types, cells, the example VC and the backend, as YAML
 * text with comments. The command loads what this writes before anyone
 * sees it (cmd-spec-import.c), so a mistake here is an error there, not
 * a broken file.
 *
 * How the cluster becomes cells:
 *  1. Each node with GPUs is one node cell; its GPU type, upper-cased,
 *     is the leaf type (GPU when untyped).
 *  2. Nodes of one leaf type and GPU count share a node-level type,
 *     LEAF-NODE, or LEAF-G-NODE when the leaf comes in several counts;
 *     --gpus-per-switch N puts LEAF-SWITCH cells of N GPUs between.
 *  3. With a topology, the nodes of each lowest-level switch, per node
 *     type, make one rack cell; racks of one node type and size share a
 *     type (LEAF-RACK, with -K when sizes differ) and so a chain. Nodes
 *     in no switch, or without a topology, are top-level node cells.
 *  4. Every chain's top cells go to the one example VC.
 */
#include "spec/slurm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/hostlist.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

/* A node-level type: one leaf type and GPU count. */
struct ntype {
	char		*leaf;		/* leaf type name ("A100", "GPU") */
	int		 gpus;
	char		*name;		/* "A100-NODE", "A100-8-NODE" */
	char		*child;		/* its childCellType: a switch type or leaf */
	int		 nchild;
	bool		 first_switch;	/* defines its leaf's switch type */
	const char	*gtype;		/* the GRES type it came from, or NULL */
	int		 nodes;		/* kept nodes of this type */
};

/* A rack type: racks of one node type and size. */
struct rtype {
	int		 ntype;
	int		 size;
	char		*name;
};

/* One rack cell: a lowest switch's kept nodes of one node type. */
struct group {
	int		 sw;
	int		 ntype;
	int		 rtype;
	int		 count;
	char		*addr;
};

/* A chain, in the order of first appearance: a rack or a node type. */
struct top {
	bool		 rack;
	int		 type;		/* rtype or ntype index */
	int		 cells;
};

struct render {
	const struct slurm_cluster *c;
	const struct slurm_import *im;
	struct strbuf	*out;
	int		*ntype_of;	/* per node: its ntype, -1 if not kept */
	int		*group_of;	/* per node: its rack group, or -1 */
	struct ntype	*nt;
	int		 nnt;
	struct rtype	*rt;
	int		 nrt;
	struct group	*g;
	int		 ng;
	struct top	*top;
	int		 ntop;
};

/* YAML 1.1 reads these as booleans or null, whatever their case. */
static bool
yaml_reserved(const char *s)
{
	static const char *const words[] = { "y", "n", "yes", "no", "on", "off",
	    "true", "false", "null", "~", NULL };
	int i;

	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return true;
	return false;
}

/* s as one YAML scalar: plain when that reads back as the same string. */
static void
add_scalar(struct strbuf *out, const char *s)
{
	const char *p;

	if ((isalpha((unsigned char)s[0]) || s[0] == '/') && !yaml_reserved(s) &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._/-") == strlen(s)) {
		strbuf_adds(out, s);
		return;
	}
	strbuf_addc(out, '"');
	for (p = s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			strbuf_addf(out, "\\%c", *p);
		else if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			strbuf_addf(out, "\\x%02x", (unsigned char)*p);
		else
			strbuf_addc(out, *p);
	}
	strbuf_addc(out, '"');
}

/* Text from Slurm inside a comment: printable ASCII, one line, short. */
static void
add_comment_text(struct strbuf *out, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] != '\0' && i < max; i++)
		strbuf_addc(out, isprint((unsigned char)s[i]) ? s[i] : '?');
	if (s[i] != '\0')
		strbuf_adds(out, "...");
}

/* A GRES type as a leaf type name: upper case, [A-Z0-9_-]. */
static char *
leaf_name(const char *type)
{
	char *s, *p;

	if (type == NULL)
		return xstrdup("GPU");
	s = xstrdup(type);
	for (p = s; *p != '\0'; p++) {
		*p = (char)toupper((unsigned char)*p);
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
			*p = '-';
	}
	return s;
}

/* An address for a switch: no '/', nothing the hooks would choke on. */
static char *
switch_addr(const char *name)
{
	char *s = xstrdup(name), *p;

	for (p = s; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			*p = '-';
	return s;
}

/* True if node n is in partition part (Partitions=a,b). */
static bool
in_partition(const struct slurm_node *n, const char *part)
{
	const char *p = n->partitions;
	size_t len = strlen(part), w;

	while (p != NULL && *p != '\0') {
		w = strcspn(p, ",");
		if (w == len && strncmp(p, part, len) == 0)
			return true;
		p += w + (p[w] == ',');
	}
	return false;
}

static int
find_ntype(const struct render *r, const char *leaf, int gpus)
{
	int i;

	for (i = 0; i < r->nnt; i++)
		if (r->nt[i].gpus == gpus && strcmp(r->nt[i].leaf, leaf) == 0)
			return i;
	return -1;
}

/* Rule 2: the node-level types, and which nodes are kept. */
static void
build_ntypes(struct render *r, struct slurm_summary *sum)
{
	const struct slurm_cluster *c = r->c;
	int i, j, s = r->im->gpus_per_switch;
	size_t cap = 0;

	for (i = 0; i < c->nnodes; i++) {
		const struct slurm_node *n = &c->nodes[i];
		char *leaf;
		int t;

		r->ntype_of[i] = -1;
		r->group_of[i] = -1;
		if (r->im->partition != NULL && !in_partition(n, r->im->partition)) {
			sum->other_partitions++;
			continue;
		}
		if (n->skip != NULL) {
			sum->skipped++;
			continue;
		}
		leaf = leaf_name(n->type);
		if ((t = find_ntype(r, leaf, n->gpus)) < 0) {
			XGROW(r->nt, cap, (size_t)r->nnt + 1);
			t = r->nnt++;
			memset(&r->nt[t], 0, sizeof r->nt[t]);
			r->nt[t].leaf = leaf;
			r->nt[t].gpus = n->gpus;
			r->nt[t].gtype = n->type;
		} else
			free(leaf);
		r->ntype_of[i] = t;
		r->nt[t].nodes++;
		sum->nodes++;
		sum->gpus += n->gpus;
		if (!slurm_state_healthy(n->state))
			sum->unhealthy++;
	}
	for (i = 0; i < r->nnt; i++) {
		struct ntype *t = &r->nt[i];
		bool several = false;

		for (j = 0; j < r->nnt; j++)
			several |= j != i && strcmp(r->nt[j].leaf, t->leaf) == 0;
		t->name = several ? xasprintf("%s-%d-NODE", t->leaf, t->gpus) :
		    xasprintf("%s-NODE", t->leaf);
		if (s > 0 && s < t->gpus && t->gpus % s == 0) {
			t->child = xasprintf("%s-SWITCH", t->leaf);
			t->nchild = t->gpus / s;
			/* the leaf's switch type is defined once, by its first user */
			t->first_switch = true;
			for (j = 0; j < i; j++)
				if (strcmp(r->nt[j].leaf, t->leaf) == 0 &&
				    strcmp(r->nt[j].child, r->nt[j].leaf) != 0)
					t->first_switch = false;
		} else {
			t->child = xstrdup(t->leaf);
			t->nchild = t->gpus;
		}
	}
}

/* Rule 3: rack cells from the lowest switches, and their types. */
static void
build_racks(struct render *r)
{
	const struct slurm_cluster *c = r->c;
	size_t gcap = 0, rcap = 0;
	int *count, s, i, j, t, k;

	if (!c->topology || r->nnt == 0)
		return;
	count = xcalloc((size_t)r->nnt, sizeof *count);
	for (s = 0; s < c->nswitches; s++) {
		const struct slurm_switch *sw = &c->switches[s];
		int ntypes = 0;

		memset(count, 0, (size_t)r->nnt * sizeof *count);
		for (j = 0; j < sw->nnode; j++) {
			i = sw->node[j];
			if (c->nodes[i].rack == s && r->ntype_of[i] >= 0 &&
			    count[r->ntype_of[i]]++ == 0)
				ntypes++;
		}
		for (t = 0; t < r->nnt; t++) {
			struct group *g;
			char *addr;

			if (count[t] == 0)
				continue;
			XGROW(r->g, gcap, (size_t)r->ng + 1);
			g = &r->g[r->ng];
			g->sw = s;
			g->ntype = t;
			g->count = count[t];
			addr = switch_addr(sw->name);
			if (ntypes > 1) {
				char *p;

				g->addr = xasprintf("%s-%s", addr, r->nt[t].name);
				for (p = g->addr; *p != '\0'; p++)
					*p = (char)tolower((unsigned char)*p);
				free(addr);
			} else
				g->addr = addr;
			for (k = 0; k < r->nrt; k++)
				if (r->rt[k].ntype == t && r->rt[k].size == count[t])
					break;
			if (k == r->nrt) {
				XGROW(r->rt, rcap, (size_t)r->nrt + 1);
				r->rt[k].ntype = t;
				r->rt[k].size = count[t];
				r->rt[k].name = NULL;
				r->nrt++;
			}
			g->rtype = k;
			for (j = 0; j < sw->nnode; j++)
				if (c->nodes[sw->node[j]].rack == s &&
				    r->ntype_of[sw->node[j]] == t)
					r->group_of[sw->node[j]] = r->ng;
			r->ng++;
		}
	}
	free(count);
	for (k = 0; k < r->nrt; k++) {
		const char *nn = r->nt[r->rt[k].ntype].name;
		size_t base = strlen(nn) - strlen("NODE");
		bool several = false;

		for (i = 0; i < r->nrt; i++)
			several |= i != k && r->rt[i].ntype == r->rt[k].ntype;
		r->rt[k].name = several ?
		    xasprintf("%.*sRACK-%d", (int)base, nn, r->rt[k].size) :
		    xasprintf("%.*sRACK", (int)base, nn);
	}
}

/* The chains, in the order their first node comes in Slurm's list. */
static void
build_tops(struct render *r)
{
	size_t cap = 0;
	int i, k;

	for (i = 0; i < r->c->nnodes; i++) {
		bool rack = r->group_of[i] >= 0;
		int type;

		if (r->ntype_of[i] < 0)
			continue;
		type = rack ? r->g[r->group_of[i]].rtype : r->ntype_of[i];
		for (k = 0; k < r->ntop; k++)
			if (r->top[k].rack == rack && r->top[k].type == type)
				break;
		if (k == r->ntop) {
			XGROW(r->top, cap, (size_t)r->ntop + 1);
			r->top[k].rack = rack;
			r->top[k].type = type;
			r->top[k].cells = 0;
			r->ntop++;
		}
		if (!rack)
			r->top[k].cells++;
	}
	for (i = 0; i < r->ng; i++)
		for (k = 0; k < r->ntop; k++)
			if (r->top[k].rack && r->top[k].type == r->g[i].rtype)
				r->top[k].cells++;
}

/* The nodes without cells: those of other partitions and those without
   GPUs as hostlists, the others one line each with the reason. */
static void
write_skipped(struct render *r)
{
	const struct slurm_cluster *c = r->c;
	struct strvec nogpu = STRVEC_INIT, other = STRVEC_INIT;
	char *hl;
	int i;

	for (i = 0; i < c->nnodes; i++) {
		const struct slurm_node *n = &c->nodes[i];

		if (r->im->partition != NULL && !in_partition(n, r->im->partition))
			strvec_push(&other, n->name);
		else if (n->skip != NULL && strncmp(n->skip, "no GPUs", 7) == 0)
			strvec_push(&nogpu, n->name);
	}
	if (nogpu.n + other.n == 0) {
		for (i = 0; i < c->nnodes && c->nodes[i].skip == NULL; i++)
			;
		if (i == c->nnodes)
			return;
	}
	strbuf_adds(r->out, "#\n# Not imported:\n");
	if (other.n > 0) {
		hl = hostlist_compress(other.v, other.n);
		strbuf_adds(r->out, "#   not in partition ");
		add_comment_text(r->out, r->im->partition, 64);
		strbuf_adds(r->out, ": ");
		add_comment_text(r->out, hl, 1000);
		strbuf_addc(r->out, '\n');
		free(hl);
	}
	if (nogpu.n > 0) {
		hl = hostlist_compress(nogpu.v, nogpu.n);
		strbuf_adds(r->out, "#   without GPUs: ");
		add_comment_text(r->out, hl, 1000);
		strbuf_addc(r->out, '\n');
		free(hl);
	}
	for (i = 0; i < c->nnodes; i++) {
		const struct slurm_node *n = &c->nodes[i];

		if (n->skip == NULL || strncmp(n->skip, "no GPUs", 7) == 0 ||
		    (r->im->partition != NULL && !in_partition(n, r->im->partition)))
			continue;
		strbuf_adds(r->out, "#   ");
		add_comment_text(r->out, n->name, 80);
		strbuf_adds(r->out, ": ");
		add_comment_text(r->out, n->skip, 200);
		strbuf_addc(r->out, '\n');
	}
	strvec_release(&nogpu);
	strvec_release(&other);
}

static void
write_header(struct render *r, const struct slurm_summary *sum)
{
	const struct slurm_cluster *c = r->c;
	struct strbuf *o = r->out;
	int i, low = -1;

	strbuf_adds(o, "# A cellar spec imported from Slurm by 'cellar spec import "
	    "slurm'\n# (");
	add_comment_text(o, r->im->source, 200);
	strbuf_addf(o, "):\n# %d node%s with %lld GPUs in %d chain%s. HiveD's format "
	    "plus cellar's backend:\n# section, see cellar-spec(5).\n#\n",
	    sum->nodes, sum->nodes == 1 ? "" : "s", sum->gpus, r->ntop,
	    r->ntop == 1 ? "" : "s");
	strbuf_adds(o,
	    "# Edit before use:\n"
	    "#  - virtualClusters: the example VC owns every cell; split the cells\n"
	    "#    between your teams ('cellar spec check FILE' says what does not fit).\n"
	    "#  - backend.hooks: the slurm hook set's directory (specs/hooks/slurm in\n"
	    "#    cellar's sources), absolute or relative to this file.\n");
	if (r->im->partition != NULL) {
		strbuf_adds(o, "#  - jobs go to Slurm's default partition: to send them "
		    "to this one, run\n#    'cellar serve' with SBATCH_PARTITION=");
		add_comment_text(o, r->im->partition, 64);
		strbuf_adds(o, " in its environment\n#    (sbatch reads it).\n");
	}
	strbuf_adds(o,
	    "# Keep the node names: they are Slurm's, and the hooks hand them to\n"
	    "# sbatch --nodelist. Nodes Slurm has DOWN, DRAIN, FAIL, ... are here,\n"
	    "# commented: cellar's health hook (sinfo) keeps them bad until Slurm\n"
	    "# has them back.\n");
	if (c->topology) {
		for (i = 0; i < c->nswitches; i++)
			if (c->switches[i].nnode > 0 &&
			    (low < 0 || c->switches[i].level < low))
				low = c->switches[i].level;
		strbuf_addf(o, "# Racks are Slurm's switches of level %d (scontrol show "
		    "topology), one rack\n# cell per switch and node type; switches "
		    "above them are not cells.\n", low);
	} else
		strbuf_adds(o, "# No Slurm topology: the nodes are top-level cells, "
		    "one chain per node type.\n");
	write_skipped(r);
	strbuf_addc(o, '\n');
}

static void
write_types(struct render *r)
{
	struct strbuf *o = r->out;
	int i, k;

	strbuf_adds(o, "physicalCluster:\n  cellTypes:\n");
	for (i = 0; i < r->nnt; i++) {
		const struct ntype *t = &r->nt[i];

		if (t->first_switch) {
			strbuf_adds(o, "    # a PCIe switch (--gpus-per-switch)\n    ");
			add_scalar(o, t->child);
			strbuf_adds(o, ":\n      childCellType: ");
			add_scalar(o, t->leaf);
			strbuf_addf(o, "\n      childCellNumber: %d\n", t->gpus / t->nchild);
		}
		strbuf_addf(o, "    # %d node%s with %d GPU%s of ", t->nodes,
		    t->nodes == 1 ? "" : "s", t->gpus, t->gpus == 1 ? "" : "s");
		if (t->gtype != NULL) {
			strbuf_adds(o, "GRES type ");
			add_comment_text(o, t->gtype, 64);
		} else
			strbuf_adds(o, "untyped GRES (gpu:N)");
		strbuf_adds(o, ", leaf type ");
		add_comment_text(o, t->leaf, 80);
		if (r->im->gpus_per_switch > 0 && strcmp(t->child, t->leaf) == 0)
			strbuf_addf(o, "; no switch level (%d GPUs do not split into "
			    "switches of %d)", t->gpus, r->im->gpus_per_switch);
		strbuf_adds(o, "\n    ");
		add_scalar(o, t->name);
		strbuf_adds(o, ":\n      childCellType: ");
		add_scalar(o, t->child);
		strbuf_addf(o, "\n      childCellNumber: %d\n      isNodeLevel: true\n",
		    t->nchild);
		for (k = 0; k < r->nrt; k++) {
			if (r->rt[k].ntype != i)
				continue;
			strbuf_adds(o, "    # one Slurm switch's nodes: ");
			strbuf_addf(o, "%d ", r->rt[k].size);
			add_comment_text(o, t->name, 80);
			strbuf_adds(o, "\n    ");
			add_scalar(o, r->rt[k].name);
			strbuf_adds(o, ":\n      childCellType: ");
			add_scalar(o, t->name);
			strbuf_addf(o, "\n      childCellNumber: %d\n", r->rt[k].size);
		}
	}
}

/* "cellAddress: NAME", with a comment when Slurm has the node out. */
static void
write_node_addr(struct render *r, const struct slurm_node *n, const char *indent)
{
	struct strbuf *o = r->out;

	strbuf_addf(o, "%scellAddress: ", indent);
	add_scalar(o, n->name);
	if (!slurm_state_healthy(n->state)) {
		strbuf_adds(o, "  # ");
		add_comment_text(o, n->state, 80);
		strbuf_adds(o, " in Slurm");
		if (n->reason != NULL) {
			strbuf_adds(o, ": ");
			add_comment_text(o, n->reason, 120);
		}
	}
	strbuf_addc(o, '\n');
}

static void
write_cells(struct render *r)
{
	const struct slurm_cluster *c = r->c;
	const struct slurm_switch *sw;
	struct strbuf *o = r->out;
	int k, g, i;

	strbuf_adds(o, "  physicalCells:\n");
	for (k = 0; k < r->ntop; k++) {
		const struct top *t = &r->top[k];

		if (!t->rack) {
			for (i = 0; i < c->nnodes; i++) {
				if (r->ntype_of[i] != t->type || r->group_of[i] >= 0)
					continue;
				strbuf_adds(o, "  - cellType: ");
				add_scalar(o, r->nt[t->type].name);
				strbuf_addc(o, '\n');
				write_node_addr(r, &c->nodes[i], "    ");
			}
			continue;
		}
		for (g = 0; g < r->ng; g++) {
			if (r->g[g].rtype != t->type)
				continue;
			strbuf_adds(o, "  - cellType: ");
			add_scalar(o, r->rt[t->type].name);
			strbuf_adds(o, "\n    cellAddress: ");
			add_scalar(o, r->g[g].addr);
			strbuf_adds(o, "\n    cellChildren:\n");
			sw = &c->switches[r->g[g].sw];
			for (i = 0; i < sw->nnode; i++)
				if (r->group_of[sw->node[i]] == g)
					write_node_addr(r, &c->nodes[sw->node[i]], "    - ");
		}
	}
}

static void
write_vc(struct render *r)
{
	struct strbuf *o = r->out;
	int k;

	strbuf_adds(o, "\n# EDIT: one example VC owning every cell. A VC per team, "
	    "each with some\n# of a chain's top cells (or cells below them: "
	    "'cellType: A.B'), see\n# cellar-spec(5); cells no VC owns run "
	    "opportunistic jobs only.\nvirtualClusters:\n  ");
	add_scalar(o, r->im->vc);
	strbuf_adds(o, ":\n    virtualCells:\n");
	for (k = 0; k < r->ntop; k++) {
		strbuf_adds(o, "    - cellType: ");
		add_scalar(o, r->top[k].rack ? r->rt[r->top[k].type].name :
		    r->nt[r->top[k].type].name);
		strbuf_addf(o, "\n      cellNumber: %d\n", r->top[k].cells);
	}
}

static void
write_backend(struct render *r)
{
	struct strbuf *o = r->out;

	strbuf_adds(o,
	    "\n# The slurm hook set (specs/hooks/slurm/README.md): each pod becomes "
	    "one\n# sbatch job on the node and GPU count cellar chose. The hooks run "
	    "on this\n# machine, which needs sbatch, squeue, scancel, scontrol and "
	    "sinfo.\nbackend:\n  type: local\n  hooks: ");
	add_scalar(o, r->im->hooks);
	strbuf_adds(o,
	    "  # EDIT: where the slurm hook set is\n"
	    "  # A preempted job is cancelled in Slurm and requeued in cellar. The "
	    "set's\n  # suspend and resume (scontrol suspend) leave the GPUs "
	    "allocated in Slurm,\n  # so the preemptor waits there unless the "
	    "partition oversubscribes: remove\n  # these two lines to use them "
	    "anyway.\n  suspend: ~\n  resume: ~\n");
}

static void
render_release(struct render *r)
{
	int i;

	for (i = 0; i < r->nnt; i++) {
		free(r->nt[i].leaf);
		free(r->nt[i].name);
		free(r->nt[i].child);
	}
	for (i = 0; i < r->nrt; i++)
		free(r->rt[i].name);
	for (i = 0; i < r->ng; i++)
		free(r->g[i].addr);
	free(r->nt);
	free(r->rt);
	free(r->g);
	free(r->top);
	free(r->ntype_of);
	free(r->group_of);
}

int
slurm_render(const struct slurm_cluster *c, const struct slurm_import *im,
    struct strbuf *out, struct slurm_summary *sum, char **cause)
{
	struct render r;
	int rc = 0;

	memset(sum, 0, sizeof *sum);
	memset(&r, 0, sizeof r);
	r.c = c;
	r.im = im;
	r.out = out;
	r.ntype_of = xcalloc((size_t)c->nnodes + 1, sizeof *r.ntype_of);
	r.group_of = xcalloc((size_t)c->nnodes + 1, sizeof *r.group_of);
	build_ntypes(&r, sum);
	if (r.nnt == 0) {
		if (im->partition != NULL && sum->other_partitions == c->nnodes)
			*cause = xasprintf("no node in partition '%s'", im->partition);
		else
			*cause = xasprintf("no node%s%s%s with GPUs (Gres=gpu...) to import",
			    im->partition ? " of partition '" : "",
			    im->partition ? im->partition : "", im->partition ? "'" : "");
		rc = -1;
		goto out;
	}
	build_racks(&r);
	build_tops(&r);
	sum->chains = r.ntop;
	sum->racks = r.ng;
	write_header(&r, sum);
	write_types(&r);
	write_cells(&r);
	write_vc(&r);
	write_backend(&r);
out:
	render_release(&r);
	return rc;
}
