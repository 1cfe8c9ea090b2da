/*
 * spec.h — a cluster spec in HiveD's format, loaded and validated.
 *
 * A spec describes cell types (physicalCluster.cellTypes), the physical
 * cells instantiated from them (physicalCluster.physicalCells), and the
 * virtual clusters with their cell assignments and pinned cells
 * (virtualClusters). spec_load() parses YAML (src/spec/spec-yaml.c, the only
 * file that includes <yaml.h>) into a generic document and spec.c validates
 * it into the plain structs below. Nothing here depends on the engine.
 *
 * Ownership: a struct spec owns every array and string reachable from it;
 * spec_free() releases them all. Indices (type, cell, chain, vc, pin) are
 * positions in the spec's arrays and stay valid for the spec's lifetime.
 *
 * Invariants of a spec returned by spec_load*():
 *  1. Cell types form a forest: every type's child chain ends at a leaf type
 *     (a name used as childCellType but not defined, e.g. "K80"), no cycles.
 *     types[t].level is 1 for leaf types and child level + 1 otherwise.
 *  2. Physical cells are fully expanded: every cell of type t with t not a
 *     leaf has exactly types[t].nchild children, of types[t].child.
 *  3. Cells are numbered per chain, per level, in breadth-first order: the
 *     children of a cell are contiguous (first_child .. first_child+nchild-1)
 *     and chains[c].level_first[l] .. + level_count[l] are the chain's cells
 *     at level l (1-based; index 0 unused). Chains are laid out one after the
 *     other, top level first.
 *  4. Every physical cell has exactly one node-level cell on its root path or
 *     in its subtree; cells[i].node is the node index of the node-level cell
 *     at or above i, or -1 for cells above node level.
 *  5. Leaf cells of one node have distinct addresses; node names are unique
 *     within a chain (one node may carry several leaf types, one per chain).
 *  6. Each VC's assignment is feasible: at every level of every chain, the
 *     cells assigned (counted in cells of that level) fit in what the chain
 *     offers after pinned cells are set aside (HiveD's Theorem 1 at time 0).
 *  7. Every pinned cell id names exactly one physical cell and is claimed by
 *     at most one VC.
 *  8. Every cell has an address (cells[].addr, never NULL, in the arena);
 *     siblings have distinct addresses, so a path of addresses from a
 *     top-level cell names one cell of a chain.
 *  9. access.vcs has nvcs rules (by VC index) when access.given and is
 *     NULL otherwise (admins then empty, socket_group NULL). Every name
 *     in access (users, groups, socket_group) is 1 to 32 bytes of
 *     letters, digits, '.', '_' and '-', not starting with '-', and a
 *     name appears at most once in its list.
 *
 * An empty document (HiveD's all-defaults config, e.g. only comments) or an
 * empty physicalCells loads as a spec without cells, with a warning.
 * Limits: SPEC_MAX_LEVELS levels, SPEC_MAX_CELLS physical cells; a spec
 * beyond them is an error, never an abort.
 */
#ifndef CELLAR_SPEC_H
#define CELLAR_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#define SPEC_MAX_LEVELS 16
/* Physical cells a spec may expand to (about 1M GPUs with 4 levels). */
#define SPEC_MAX_CELLS	(1 << 22)
/* Diagnostics kept per load; the rest are counted in spec_diags.dropped. */
#define SPEC_MAX_DIAGS	1000

/* Where something was written: file:line:col (1-based; 0 when synthesized). */
struct strmap;

struct spec_loc {
	int	line;
	int	col;
};

struct spec_celltype {
	char		*name;
	int		 child;		/* type index of childCellType, -1 for a leaf type */
	int		 nchild;	/* childCellNumber, 0 for a leaf type */
	bool		 node_level;	/* isNodeLevel */
	bool		 is_leaf;	/* a leaf (device) type, never defined in cellTypes */
	int		 level;		/* 1 for leaf types */
	int		 leaf;		/* type index of the leaf type below */
	long long	 leaves;	/* leaf cells in one cell of this type */
	struct spec_loc	 loc;		/* definition (or first use for leaf types) */
};

struct spec_cell {
	int		 type;		/* spec_celltype index */
	int		 chain;		/* spec_chain index */
	int		 level;		/* == types[type].level */
	int		 parent;	/* cell index, -1 for a top-level cell */
	int		 first_child;	/* cell index of the first child, -1 for a leaf */
	int		 nchild;
	int		 node;		/* spec node index (invariant 4), -1 above node level */
	int		 pin;		/* spec_pin index pinned at this cell, or -1 */
	const char	*addr;		/* this cell's own address (given or default) */
	struct spec_loc	 loc;		/* where written, or the nearest written ancestor */
};

/* A chain: all top-level physical cells of one cell type (HiveD CellChain). */
struct spec_chain {
	int	 top_type;		/* type index of the top-level cells; names the chain */
	int	 leaf_type;		/* the chain's leaf (GPU) type */
	int	 levels;		/* number of levels; the top level == levels */
	int	 level_type[SPEC_MAX_LEVELS + 1];	/* cell type at each level (1-based) */
	int	 level_first[SPEC_MAX_LEVELS + 1];	/* first cell index at each level */
	int	 level_count[SPEC_MAX_LEVELS + 1];	/* cells at each level */
	int	 node_level;		/* the level flagged isNodeLevel */
};

/* A node: a machine. Node-level cells with the same address are one node. */
struct spec_node {
	const char	*name;		/* the node-level cell's address */
	int		*cells;		/* node-level cell indices, one per chain */
	int		 ncells;
};

/* One entry of virtualClusters.<vc>.virtualCells. */
struct spec_vcell {
	int		 chain;
	int		 level;		/* level within the chain */
	int		 type;		/* cell type at that level */
	int		 number;	/* cellNumber */
	struct spec_loc	 loc;
};

struct spec_vc {
	char			*name;
	struct spec_vcell	*cells;
	int			 ncells;
	int			*pins;		/* spec_pin indices this VC holds */
	int			 npins;
	struct spec_loc		 loc;
};

struct spec_pin {
	char		*id;		/* pinnedCellId */
	int		 cell;		/* the physical cell */
	int		 vc;		/* the VC that claims it, -1 if none */
	struct spec_loc	 loc;
};

enum spec_severity { SPEC_ERROR, SPEC_WARNING, SPEC_NOTE };

/* One diagnostic, already formatted "file:line:col: error: message". */
struct spec_diag {
	enum spec_severity	 severity;
	char			*text;
};

/*
 * The diagnostics of one or more loads, in the order found. Only the first
 * SPEC_MAX_DIAGS are kept; errors and warnings counts include all.
 */
struct spec_diags {
	struct spec_diag	*v;
	size_t			 n;
	size_t			 cap;
	int			 errors;
	int			 warnings;
	size_t			 dropped;	/* not kept: beyond SPEC_MAX_DIAGS */
};

/*
 * The `backend:` section (cellar's own, not HiveD's): what runs the jobs.
 * Hooks are shell commands run on a node (`sh -c`), the job reaching them
 * only through environment variables.
 */
enum spec_backend_type {
	SPEC_BACKEND_EMULATOR,		/* no real jobs (the default) */
	SPEC_BACKEND_LOCAL,		/* hooks run on this machine */
	SPEC_BACKEND_SSH,		/* hooks run on the node through ssh */
};

enum spec_hook {
	SPEC_HOOK_START,
	SPEC_HOOK_STOP,
	SPEC_HOOK_SUSPEND,
	SPEC_HOOK_RESUME,
	SPEC_HOOK_STATUS,
	SPEC_HOOK_HEALTH,
	SPEC_HOOK_MIGRATE,
	SPEC_NHOOKS
};

/* "start", "stop", ...: the YAML keys and the hook files of a hook set. */
extern const char *const spec_hook_names[SPEC_NHOOKS];
/* suspend, resume (both or neither) and migrate may be left out: without
   suspend a preemption stops the job; null in the spec turns one off. */
bool		 spec_hook_optional(enum spec_hook h);

/* How to reach a node over ssh; NULL / 0 fields use the defaults
   (the backend's, then ~/.ssh/config). */
struct spec_ssh_target {
	char		*host;		/* NULL: the node name */
	char		*user;
	int		 port;
	char		*identity;	/* identityFile */
	char		*config;	/* ssh -F FILE (the defaults only) */
};

/* How an ssh backend's hooks for a job become the job's user on the node
   (backend.switchUser); node hooks (health) run as the ssh user. */
enum spec_switch_user {
	SPEC_SWITCH_LOGIN,	/* ssh -l USER (the default) */
	SPEC_SWITCH_SUDO,	/* as the ssh user, then sudo -n -u USER */
	SPEC_SWITCH_NONE,	/* as the ssh user: jobs too */
};

struct spec_backend {
	enum spec_backend_type	 type;
	enum spec_switch_user	 switch_user;	/* ssh only */
	char			*hooks[SPEC_NHOOKS];	/* shell commands; NULL: none */
	double			 timeout;	/* seconds per hook run (default 30) */
	int			 retries;	/* runs after the first (default 2) */
	double			 backoff;	/* seconds before the first retry,
						   doubled each time (default 1) */
	double			 status_interval;	/* seconds (default 2) */
	double			 health_interval;	/* seconds (default 10) */
	int			 health_concurrency;	/* health hooks running at
							   once, at most (default 16) */
	double			 connect_timeout;	/* ssh ConnectTimeout (default 5) */
	char			*rundir;	/* CELLAR_RUNDIR for hooks, or NULL */
	struct spec_ssh_target	 ssh;		/* defaults for every node */
	struct spec_ssh_target	*nodes;		/* per spec node index, or NULL */
};

/*
 * The `access:` section (cellar's own): who may do what through a cellar
 * server (cellar serve). A rule names users and groups by name; the
 * server matches a caller's uid and groups (SO_PEERCRED, getgrouplist)
 * against them. Admins may do everything; a VC's rule lets its users and
 * groups submit to the VC and cancel their own jobs there. Root and the
 * server's own uid are always admins. Without the section only they may
 * change anything; anyone who can open the socket may read.
 */
struct spec_access_rule {
	char		**users;	/* user names, or NULL */
	int		  nusers;
	char		**groups;	/* group names, or NULL */
	int		  ngroups;
};

/* access.runAs: jobs submitted by user run as account. */
struct spec_run_as {
	char		*user;
	char		*account;
};

struct spec_access {
	bool			 given;		/* the spec has an access: section */
	struct spec_run_as	*run_as;	/* runAs, or NULL */
	int			 nrun_as;
	struct spec_access_rule	 admins;
	struct spec_access_rule	*vcs;		/* per VC index (nvcs); NULL when
						   !given */
	char			*socket_group;	/* socketGroup: the server's
						   socket's group, or NULL */
};

struct spec {
	char			*path;		/* as given to spec_load, or a label */
	char			*text;		/* the source text, NUL-terminated */
	size_t			 text_len;
	unsigned long long	 hash;		/* FNV-1a of text, for the store */

	struct spec_celltype	*types;
	int			 ntypes;
	struct spec_cell	*cells;
	int			 ncells;
	struct spec_chain	*chains;
	int			 nchains;
	struct spec_node	*nodes;
	int			 nnodes;
	struct spec_vc		*vcs;
	int			 nvcs;
	struct spec_pin		*pins;
	int			 npins;

	struct spec_backend	 backend;	/* type EMULATOR when absent */
	struct spec_access	 access;	/* given false when absent */

	long long		 gpus;		/* leaf cells in the whole cluster */
	char			*arena;		/* backing store of cell addresses */
	size_t			 arena_len;	/* bytes used in arena */
	int			*node_cells;	/* backing store of nodes[].cells */
	struct strmap		*node_map;	/* private to spec.c: name -> node */
};

/*
 * Load and validate a spec from a file. Returns NULL when the file cannot be
 * read or has any error; every problem found (not just the first) is
 * appended to diags, each with file:line:col. Warnings and notes (unknown
 * keys, Kubernetes-only keys that are ignored) are appended as well when the
 * load succeeds. diags may be NULL.
 */
struct spec	*spec_load(const char *path, struct spec_diags *diags);
/* The same from a buffer; name is used as the file name in diagnostics. */
struct spec	*spec_load_string(const char *name, const char *text, size_t len,
		    struct spec_diags *diags);
void		 spec_free(struct spec *s);

void		 spec_diags_init(struct spec_diags *d);
void		 spec_diags_release(struct spec_diags *d);

/* Lookups by name; -1 when absent. */
int		 spec_find_vc(const struct spec *s, const char *name);
/* The account access.runAs runs user's jobs as, or NULL: their own. */
const char	*spec_run_as(const struct spec *s, const char *user);
int		 spec_find_type(const struct spec *s, const char *name);
int		 spec_find_chain(const struct spec *s, const char *top_type_name);
int		 spec_find_node(const struct spec *s, const char *name);
int		 spec_find_pin(const struct spec *s, const char *id);
/* "unknown vc 'NAME' (did you mean 'X'? vcs: ...)", malloc'ed: the one
   message for a VC name spec_find_vc does not know. */
char		*spec_unknown_vc(const struct spec *s, const char *name);
/*
 * A cell by name, or -1. Tried in this order: a full path of addresses from
 * a top-level cell ("rack0/node3/1/0/5"); a path from a node name down with
 * the cells' own addresses ("node3/1/0/5", each chain the node is in, in
 * chain order), which includes a bare node name ("node3": its node-level
 * cell in the first chain it appears in); a pinnedCellId.
 */
int		 spec_find_cell(const struct spec *s, const char *path);

/*
 * Leaf cells of one level-`hi` cell counted in cells of level `lo` of a chain
 * (1 when hi == lo): how many level-lo cells one level-hi cell holds. Used
 * by feasibility and the engine's counters. 0 for a chain or levels that do
 * not exist or hi < lo.
 */
long long	 spec_units(const struct spec *s, int chain, int hi, int lo);

/*
 * Write the full address of a cell into buf: the addresses of the top-level
 * cell down to it joined by '/'. Returns buf, always NUL-terminated (cut
 * short if len is too small; "" for an invalid cell).
 */
char		*spec_cell_path(const struct spec *s, int cell, char *buf, size_t len);

/*
 * The lowest cell holding all n cells (their lowest common ancestor), or -1
 * when n is 0, a cell is out of range, or they lie in different chains.
 */
int		 spec_cell_lca(const struct spec *s, const int *cells, int n);

/*
 * Number of cells the VC is assigned at exactly this chain and level (the
 * entries of virtualCells that name the same chain and level are summed).
 */
int		 spec_vc_cells_at(const struct spec *s, int vc, int chain, int level);

/* The embedded default spec (specs/default.yaml compiled in). */
extern const char	default_spec_yaml[];
extern const size_t	default_spec_yaml_len;

#endif
