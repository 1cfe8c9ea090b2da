/*
 * spec-int.h — private to src/spec/: the generic YAML document tree that
 * spec-yaml.c builds and spec.c validates, and the diagnostic writer both
 * use. Names and anchors are indexed with core/strmap (copied keys).
 *
 * Ownership: a struct ydoc owns its node, child and string arrays;
 * ydoc_release() frees them. Node indices and string pointers stay valid
 * until release.
 *
 * Invariants of a parsed ydoc:
 *  1. Every node is a scalar, a null, a sequence or a mapping; root is -1
 *     when the stream holds no document (or only comments).
 *  2. The children of a sequence or mapping are contiguous in kids[]
 *     (mappings alternate key, value); a child index refers to a node that
 *     is complete, so the graph has no cycle even with YAML aliases.
 *  3. Mapping keys are scalars or nulls (others are reported and kept).
 *  4. Scalar strings are NUL-terminated in str[] and never move once the
 *     parse has returned.
 */
#ifndef CELLAR_SPEC_INT_H
#define CELLAR_SPEC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/strmap.h"
#include "spec/spec.h"

enum ydoc_kind {
	YDOC_NULL,		/* "~", "null", an empty value: HiveD's "not given" */
	YDOC_SCALAR,
	YDOC_SEQ,
	YDOC_MAP,
};

struct ydoc_node {
	enum ydoc_kind	 kind;
	int		 line;		/* 1-based */
	int		 col;		/* 1-based, in characters */
	int		 n;		/* map: pairs; seq: items; scalar: bytes */
	size_t		 off;		/* scalar: offset in str; map/seq: first kid */
	bool		 quoted;	/* scalar was quoted or a block scalar */
};

struct ydoc {
	struct ydoc_node	*nodes;
	size_t			 nnodes;
	size_t			 nodes_cap;
	int			*kids;
	size_t			 nkids;
	size_t			 kids_cap;
	char			*str;
	size_t			 str_len;
	size_t			 str_cap;
	int			 root;
};

/*
 * Parse text (len bytes, need not be NUL-terminated) into doc. Syntax errors
 * are reported to d as "name:line:col: error: ..." and make it return -1
 * (doc is then released). Returns 0 otherwise, with doc->root == -1 for an
 * empty stream.
 */
int		 ydoc_parse(struct ydoc *doc, const char *name, const char *text,
		    size_t len, struct spec_diags *d);
void		 ydoc_release(struct ydoc *doc);

static inline const struct ydoc_node *
ydoc_node(const struct ydoc *doc, int i)
{
	return &doc->nodes[i];
}

/* A scalar's text ("" for anything that is not a scalar). */
static inline const char *
ydoc_str(const struct ydoc *doc, int i)
{
	const struct ydoc_node *n = &doc->nodes[i];

	return n->kind == YDOC_SCALAR ? doc->str + n->off : "";
}

/* Item i of a sequence; key and value of pair i of a mapping. */
static inline int
ydoc_item(const struct ydoc *doc, int seq, int i)
{
	return doc->kids[doc->nodes[seq].off + (size_t)i];
}

static inline int
ydoc_key(const struct ydoc *doc, int map, int i)
{
	return doc->kids[doc->nodes[map].off + 2 * (size_t)i];
}

static inline int
ydoc_val(const struct ydoc *doc, int map, int i)
{
	return doc->kids[doc->nodes[map].off + 2 * (size_t)i + 1];
}

/*
 * The validator's state while one spec loads (spec.c), shared with the
 * files that parse a section of their own (spec-backend.c). Lives on
 * spec_load_string's stack; the spec it builds is handed out at the end.
 */
struct tinfo;			/* per cell type, spec.c's own */
struct ignored_key;		/* a key noted and skipped, spec.c's own */

struct loader {
	struct spec		*s;
	const char		*file;
	struct spec_diags	*d;
	struct ydoc		 doc;
	struct strmap		 types;
	struct strmap		 vcs;
	struct strmap		 pins;
	struct strmap		 lost_pins;	/* ids inside cells that failed */
	struct strmap		*nodes;
	struct tinfo		*ti;
	int			 ndefined;	/* defined (non-leaf) types */
	int			 pc_key;	/* key node of physicalCluster */
	int			 types_ok;	/* cellTypes was read */
	int			 cells_ok;	/* the cell array was built */
	bool			 chains_indexed; /* tinfo nin, in */
	/* Capacities of s->chains (and ntop) and s->pins, grown by doubling:
	   growing them by one per chain or pin copied them whole each time,
	   quadratic in a spec of many chains (t.yaml of 12,000: 13 s under
	   ASan, where every realloc copies). */
	size_t			 chains_cap, ntop_cap, pins_cap;
	int			*ntop;		/* top-level cells per chain */
	int			*entry_chain;	/* physicalCells entry -> chain or -1 */
	int			*entry_rank;	/* its index among the chain's tops */
	int			 nentries;
	int			 pcs;		/* the physicalCells sequence, or -1 */
	unsigned char		*written;	/* cell given in the file */
	size_t			 explicit_bytes;
	char			*numtab;	/* "0\0" "1\0" ... for default addresses */
	size_t			*numoff;
	long long		 nnum;
};

/* The loader's helpers (spec.c), for the section parsers. */
static inline enum ydoc_kind
ld_kind(const struct loader *L, int node)
{
	return node < 0 ? YDOC_NULL : L->doc.nodes[node].kind;
}

/* A node's scalar text ("" for anything else, and for node -1). */
static inline const char *
ld_str(const struct loader *L, int node)
{
	return node < 0 ? "" : ydoc_str(&L->doc, node);
}

/* An error at a document node (node -1: the top of the file). */
void		 ld_err(struct loader *L, int node, const char *fmt, ...)
		    __attribute__((format(printf, 3, 4)));
/* What a node is, for "must be a mapping, not a sequence". */
const char	*ld_kind_name(const struct loader *L, int node);
/*
 * Read the known keys of a mapping: val[i] (and key[i]) for names[i], -1
 * when absent. Duplicates are errors, `ignored` keys (may be NULL) get a
 * note, and unknown keys are warnings (cellar's own sections and HiveD's
 * nested ones may grow).
 */
void		 ld_get_fields(struct loader *L, int map, const char *ctx,
		    const char *const *names, int nnames,
		    const struct ignored_key *ign, int *key, int *val);
/* A plain decimal integer in [lo, hi]: 0; 1 (*out = hi + 1) when too
   large; -1 when it is not one. */
int		 ld_get_int(const struct loader *L, int node, long long lo,
		    long long hi, long long *out);

/* A user or group name access: accepts (spec.c). */
bool		 access_name_valid(const char *s);
/* access.runAs (spec-runas.c), read after access.admins; free. */
void		 spec_run_as_parse(struct loader *L, int map);
void		 spec_run_as_free(struct spec_access *a);

/* The backend section (spec-backend.c): defaults, parse, free. */
void		 spec_backend_defaults(struct spec_backend *b);
void		 spec_backend_parse(struct loader *L, int map);
void		 spec_backend_free(struct spec_backend *b, int nnodes);

/*
 * Append one diagnostic "file:line:col: SEVERITY: message" (without the
 * line:col part when line is 0). Counts errors and warnings.
 */
void		 spec_diag_add(struct spec_diags *d, enum spec_severity sev,
		    const char *file, int line, int col, const char *fmt, ...)
		    __attribute__((format(printf, 6, 7)));

#endif
