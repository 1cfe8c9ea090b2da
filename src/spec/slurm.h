/*
 * slurm.h — a Slurm cluster read from the text of its own commands, and
 * the HiveD-format spec written for it (`cellar spec import slurm`).
 *
 * slurm_parse_nodes() reads `scontrol show node -o` (one node per line,
 * Key=Value words; the multi-line form without -o, each record's
 * continuation lines indented, reads the same), slurm_parse_topology()
 * reads `scontrol show topology` (one SwitchName= line per switch, nodes
 * as hostlists); both in slurm.c. slurm_render() (slurm-spec.c) turns
 * the result into spec text: a node cell per node with GPUs, racks from the lowest switches when there is
 * a topology, the slurm hook set's backend and one example VC, with
 * comments. Only strings in, strings out: no I/O, so the parser and the
 * renderer are tested on fixtures (tests/unit/tspec-slurm.c).
 *
 * Ownership: a struct slurm_cluster owns every string and array reachable
 * from it; slurm_cluster_init() sets one up, slurm_cluster_release()
 * frees it all (and leaves it zeroed; init again to reuse). Errors come back as a
 * malloc'ed *cause naming the input and its line.
 *
 * Invariants of a parsed cluster:
 *  1. Node names are unique (a second record of a name is an error).
 *  2. nodes[i].gpus >= 0; gpus > 0 means exactly one GPU type was found
 *     (type NULL: untyped GRES), gpus == 0 with skip set otherwise.
 *  3. switches[i].node indices point into nodes[]; a node is in at most
 *     one lowest-level switch (nodes[i].rack, -1 for none), and at most
 *     once in its node list.
 */
#ifndef CELLAR_SLURM_H
#define CELLAR_SLURM_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strbuf.h"

struct strmap;

struct slurm_node {
	char		*name;
	char		*type;		/* GRES type ("a100"), NULL: untyped */
	int		 gpus;		/* GPUs of that type; 0: none */
	char		*gres;		/* Gres= as Slurm printed it */
	char		*state;		/* State= ("IDLE", "DOWN+DRAIN") */
	char		*reason;	/* Reason=, or NULL */
	char		*partitions;	/* Partitions= ("a,b"), or NULL */
	char		*skip;		/* why it gets no cells, or NULL */
	int		 rack;		/* its lowest switch, or -1 */
	int		 line;		/* where its record starts */
};

struct slurm_switch {
	char		*name;
	int		 level;		/* Level=; 0 is next to the nodes */
	int		*node;		/* indices into nodes[] */
	int		 nnode;
	int		 line;
};

struct slurm_cluster {
	struct slurm_node	*nodes;
	int			 nnodes;
	size_t			 nodes_cap;
	struct slurm_switch	*switches;
	int			 nswitches;
	size_t			 switches_cap;
	bool			 topology;	/* a topology was read */
	struct strmap		*byname;	/* node name -> index */
};

/* What the operator chose (the command's options). */
struct slurm_import {
	const char	*partition;	/* keep only its nodes, or NULL */
	int		 gpus_per_switch; /* a PCIe-switch level in nodes, 0: none */
	const char	*hooks;		/* the hook set's directory */
	const char	*vc;		/* the example VC's name */
	const char	*source;	/* where the text came from, for the header */
};

/* What slurm_render wrote, for the command's summary. */
struct slurm_summary {
	int		 nodes;		/* node cells written */
	long long	 gpus;
	int		 chains;
	int		 racks;
	int		 skipped;	/* nodes without cells (no GPU, ...) */
	int		 unhealthy;	/* written, but DOWN, DRAIN, FAIL, ... */
	int		 other_partitions; /* left out by --partition */
};

void	 slurm_cluster_init(struct slurm_cluster *c);
void	 slurm_cluster_release(struct slurm_cluster *c);

/*
 * Read the text of `scontrol show node -o` (what: its name in messages).
 * Returns 0, or -1 with *cause set ("'what' line 3: ...").
 */
int	 slurm_parse_nodes(struct slurm_cluster *c, const char *text, size_t len,
	    const char *what, char **cause);
/*
 * Read the text of `scontrol show topology` after the nodes; a switch
 * naming a node Slurm did not list is an error. Empty text: no topology.
 */
int	 slurm_parse_topology(struct slurm_cluster *c, const char *text, size_t len,
	    const char *what, char **cause);

/*
 * Append the spec to out. Returns 0, or -1 with *cause set when nothing
 * can be imported (no node with GPUs, none in the partition).
 */
int	 slurm_render(const struct slurm_cluster *c, const struct slurm_import *im,
	    struct strbuf *out, struct slurm_summary *sum, char **cause);

/* True if a Slurm State= is one a job can run in (no DOWN, DRAIN, ...). */
bool	 slurm_state_healthy(const char *state);

#endif
