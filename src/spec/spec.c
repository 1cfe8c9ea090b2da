/*
 * spec.c — validate a HiveD cluster spec into struct spec.
 *
 * Sits between the YAML reader (spec-yaml.c, which turns text into a generic
 * tree) and everything else: the engine, the console and the store only see
 * the plain, checked structs of spec.h. The work goes in phases, each one
 * reporting every problem it finds and carrying on where that is safe, so one
 * run shows the operator as many mistakes as possible:
 *
 *   1. top-level keys (HiveD's Kubernetes-only ones are noted and ignored,
 *      any other unknown one is an error: a misspelt virtualClusters must
 *      not leave a valid spec without VCs)
 *   2. cellTypes: fields, leaf types, cycles, levels, node levels
 *   3. physicalCells, first pass: which top-level cells make which chain
 *   4. layout: every chain's cells, breadth-first per level (spec.h inv. 3)
 *   5. physicalCells, second pass: explicit addresses, pins, children
 *   6. default addresses, node names, nodes across chains
 *   7. duplicate addresses (sorting, never pairwise over a whole level)
 *   8. virtualClusters: cell type paths, cell numbers, pinned cells
 *   9. feasibility of the assignment, level by level (HiveD's check)
 *  10. cellar's own sections: backend (spec-backend.c, after the nodes it
 *      names), access (after the VCs it names)
 *
 * Nothing a spec file contains may abort the program: sizes are bounded
 * (SPEC_MAX_CELLS, SPEC_MAX_LEVELS) before anything is allocated from them.
 *
 * Why one file of ~2,300 lines: phases 1-9 are one pass over one loader
 * (struct loader, spec-int.h), each reading what the one before built,
 * and most of their helpers are each other's. What stands apart is
 * apart: the YAML tree (spec-yaml.c), the backend section
 * (spec-backend.c), the diagnostics (spec-util.c).
 */
#include "spec/spec.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fnv.h"
#include "core/shquote.h"
#include "core/strbuf.h"
#include "core/suggest.h"
#include "core/xmalloc.h"
#include "spec/spec-int.h"

/* Spec files larger than this are refused before reading. */
#define SPEC_MAX_FILE	(512L * 1024 * 1024)

/* Per cell type, what only the loader needs. */
struct tinfo {
	int		 childnode;	/* doc node of childCellType, or -1 */
	bool		 bad;		/* invalid, in or above a cycle: skip quietly */
	long long	 cells;		/* cells in one cell of this type, saturated */
	int		 nodecnt;	/* isNodeLevel types on the way down */
	int		 below;		/* a node-level type above it, or -1 */
	int		 chain;		/* chain whose top type it is, or -1 */
	bool		 chainbad;	/* used as a top type but unusable */
	int		 nin;		/* chains holding it (index_chains) */
	int		 in[4];		/* the first of them */
};

/* Cells at level l inside one top-level cell of chain c (levels are uniform). */
static long long
per_top(const struct spec *s, int c, int l)
{
	const struct spec_chain *ch = &s->chains[c];

	return ch->level_count[l] / ch->level_count[ch->levels];
}

static void
diag_at(struct loader *L, enum spec_severity sev, struct spec_loc loc,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void
vdiag(struct loader *L, enum spec_severity sev, int line, int col,
    const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	spec_diag_add(L->d, sev, L->file, line, col, "%s", sb.buf);
	strbuf_release(&sb);
}

void
ld_err(struct loader *L, int node, const char *fmt, ...)
{
	va_list ap;
	int line = 1, col = 1;

	if (node >= 0) {
		line = L->doc.nodes[node].line;
		col = L->doc.nodes[node].col;
	}
	va_start(ap, fmt);
	vdiag(L, SPEC_ERROR, line, col, fmt, ap);
	va_end(ap);
}

static void
diag_node(struct loader *L, enum spec_severity sev, int node, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void
diag_node(struct loader *L, enum spec_severity sev, int node, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(L, sev, L->doc.nodes[node].line, L->doc.nodes[node].col, fmt, ap);
	va_end(ap);
}

static void
diag_at(struct loader *L, enum spec_severity sev, struct spec_loc loc,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(L, sev, loc.line > 0 ? loc.line : 1, loc.line > 0 ? loc.col : 1, fmt, ap);
	va_end(ap);
}

static struct spec_loc
node_loc(const struct loader *L, int node)
{
	struct spec_loc loc = { 1, 1 };

	if (node >= 0) {
		loc.line = L->doc.nodes[node].line;
		loc.col = L->doc.nodes[node].col;
	}
	return loc;
}

const char *
ld_kind_name(const struct loader *L, int node)
{
	switch (ld_kind(L, node)) {
	case YDOC_NULL:
		return "null";
	case YDOC_SCALAR:
		return "a scalar";
	case YDOC_SEQ:
		return "a sequence";
	case YDOC_MAP:
		return "a mapping";
	}
	return "?";
}

/*
 * Read the known keys of a mapping: val[i] (and key[i]) for names[i], -1 when
 * absent. Duplicate keys are errors; `ignored` keys get a note saying why;
 * anything else is an unknown key, a warning (an error at the top level:
 * get_fields_sev) naming it, where it was and the key most likely meant.
 */
struct ignored_key {
	const char	*name;
	const char	*why;
};

/* "unknown key" with the closest known or ignored key, and for an error
   (the spec's top level) every key that may be there. */
static void
unknown_key(struct loader *L, enum spec_severity sev, int k, const char *ctx,
    const char *const *names, int nnames, const struct ignored_key *ign)
{
	struct strbuf hint = STRBUF_INIT;
	const char **cands;
	int n = 0, j;

	for (j = 0; ign != NULL && ign[j].name != NULL; j++)
		;
	cands = xcalloc((size_t)(nnames + j) + 1, sizeof *cands);
	for (j = 0; j < nnames; j++)
		cands[n++] = names[j];
	for (j = 0; ign != NULL && ign[j].name != NULL; j++)
		cands[n++] = ign[j].name;
	if (sev == SPEC_ERROR)
		suggest_hint(&hint, ld_str(L, k), cands, (size_t)n, "keys");
	else
		suggest_hint(&hint, ld_str(L, k), cands, (size_t)n, NULL);
	diag_node(L, sev, k, "unknown key '%s' in %s%s", ld_str(L, k), ctx, hint.buf);
	strbuf_release(&hint);
	free(cands);
}

static void
get_fields_sev(struct loader *L, int map, const char *ctx, const char *const *names,
    int nnames, const struct ignored_key *ign, int *key, int *val,
    enum spec_severity unknown)
{
	const struct ydoc_node *m = &L->doc.nodes[map];
	int i, j;

	for (j = 0; j < nnames; j++)
		key[j] = val[j] = -1;
	for (i = 0; i < m->n; i++) {
		int k = ydoc_key(&L->doc, map, i);
		const char *name = ld_str(L, k);

		if (ld_kind(L, k) != YDOC_SCALAR && ld_kind(L, k) != YDOC_NULL)
			continue;	/* reported by the parser */
		for (j = 0; j < nnames; j++)
			if (strcmp(name, names[j]) == 0)
				break;
		if (j < nnames) {
			if (key[j] >= 0)
				ld_err(L, k, "duplicate key '%s' in %s (first at line %d)",
				    name, ctx, L->doc.nodes[key[j]].line);
			else {
				key[j] = k;
				val[j] = ydoc_val(&L->doc, map, i);
			}
			continue;
		}
		for (j = 0; ign != NULL && ign[j].name != NULL; j++)
			if (strcmp(name, ign[j].name) == 0)
				break;
		if (ign != NULL && ign[j].name != NULL)
			diag_node(L, SPEC_NOTE, k, "key '%s' ignored: %s", name, ign[j].why);
		else
			unknown_key(L, unknown, k, ctx, names, nnames, ign);
	}
}

void
ld_get_fields(struct loader *L, int map, const char *ctx, const char *const *names,
    int nnames, const struct ignored_key *ign, int *key, int *val)
{
	get_fields_sev(L, map, ctx, names, nnames, ign, key, val, SPEC_WARNING);
}

int
ld_get_int(const struct loader *L, int node, long long lo, long long hi, long long *out)
{
	const char *v = ld_str(L, node);
	char *end;
	long long x;

	if (ld_kind(L, node) != YDOC_SCALAR || L->doc.nodes[node].quoted)
		return -1;
	if (*v == '+')
		v++;
	if (*v == '\0' || !((*v >= '0' && *v <= '9') || *v == '-'))
		return -1;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE || x > hi) {
		*out = hi + 1;
		return 1;	/* too large */
	}
	if (x < lo)
		return -1;
	*out = x;
	return 0;
}

/* A YAML 1.1 boolean as Go's yaml.v2 reads it; -1 when it is not one. */
static int
get_bool(const struct loader *L, int node, bool *out)
{
	static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes",
	    "YES", "on", "On", "ON", NULL };
	static const char *const no[] = { "false", "False", "FALSE", "no", "No",
	    "NO", "off", "Off", "OFF", NULL };
	const char *v = ld_str(L, node);
	int i;

	if (ld_kind(L, node) != YDOC_SCALAR || L->doc.nodes[node].quoted)
		return -1;
	for (i = 0; yes[i]; i++)
		if (strcmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
	for (i = 0; no[i]; i++)
		if (strcmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	return -1;
}

/* ---- phase 2: cellTypes ------------------------------------------------ */

static int
add_type(struct loader *L, const char *name, struct spec_loc loc, bool leaf)
{
	struct spec *s = L->s;
	struct spec_celltype *t = &s->types[s->ntypes];

	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->child = -1;
	t->is_leaf = leaf;
	t->leaf = -1;
	t->loc = loc;
	memset(&L->ti[s->ntypes], 0, sizeof L->ti[0]);
	L->ti[s->ntypes].childnode = -1;
	L->ti[s->ntypes].below = -1;
	L->ti[s->ntypes].chain = -1;
	strmap_put(&L->types, name, s->ntypes);
	return s->ntypes++;
}

static void
parse_cell_types(struct loader *L, int map)
{
	static const char *const names[] = { "childCellType", "childCellNumber",
	    "isNodeLevel" };
	struct spec *s = L->s;
	int n = L->doc.nodes[map].n, i;

	/* Each definition adds at most one leaf type: size for both. */
	s->types = xcalloc((size_t)n * 2 + 1, sizeof *s->types);
	L->ti = xcalloc((size_t)n * 2 + 1, sizeof *L->ti);
	for (i = 0; i < n; i++) {
		int k = ydoc_key(&L->doc, map, i), v = ydoc_val(&L->doc, map, i);
		const char *name = ld_str(L, k);
		int key[3], val[3], t, prev;
		char ctx[300];
		long long num;
		int r;

		if (ld_kind(L, k) != YDOC_SCALAR && ld_kind(L, k) != YDOC_NULL)
			continue;
		if (*name == '\0') {
			ld_err(L, k, "empty cell type name");
			continue;
		}
		if ((prev = strmap_get(&L->types, name)) >= 0) {
			ld_err(L, k, "cell type '%s' is defined twice (first at line %d)",
			    name, s->types[prev].loc.line);
			continue;
		}
		t = add_type(L, name, node_loc(L, k), false);
		if (strchr(name, '.') != NULL)
			diag_node(L, SPEC_WARNING, k, "cell type name '%s' contains "
			    "'.': virtualCells cannot name it in a path", name);
		if (ld_kind(L, v) != YDOC_MAP) {
			ld_err(L, v < 0 ? k : v, "cell type '%s' must be a mapping with "
			    "'childCellType' and 'childCellNumber', not %s",
			    name, ld_kind_name(L, v));
			L->ti[t].bad = true;
			continue;
		}
		snprintf(ctx, sizeof ctx, "cell type '%s'", name);
		ld_get_fields(L, v, ctx, names, 3, NULL, key, val);
		if (ld_kind(L, val[0]) == YDOC_SCALAR && *ld_str(L, val[0]) != '\0')
			L->ti[t].childnode = val[0];
		else {
			ld_err(L, val[0] >= 0 ? val[0] : k,
			    "cell type '%s' has no childCellType", name);
			L->ti[t].bad = true;
		}
		if (val[1] < 0) {
			ld_err(L, k, "cell type '%s' has no childCellNumber", name);
			L->ti[t].bad = true;
		} else if ((r = ld_get_int(L, val[1], 1, SPEC_MAX_CELLS, &num)) != 0) {
			if (r > 0)
				ld_err(L, val[1], "childCellNumber of '%s' is too large "
				    "('%s', at most %d)", name, ld_str(L, val[1]),
				    SPEC_MAX_CELLS);
			else
				ld_err(L, val[1], "childCellNumber of '%s' must be an "
				    "integer >= 1, not '%s'", name,
				    ld_kind(L, val[1]) == YDOC_SCALAR ? ld_str(L, val[1]) :
				    ld_kind_name(L, val[1]));
			L->ti[t].bad = true;
		} else
			s->types[t].nchild = (int)num;
		if (val[2] >= 0 && ld_kind(L, val[2]) != YDOC_NULL &&
		    get_bool(L, val[2], &s->types[t].node_level) != 0) {
			ld_err(L, val[2], "isNodeLevel of '%s' must be true or false, "
			    "not '%s'", name, ld_kind(L, val[2]) == YDOC_SCALAR ?
			    ld_str(L, val[2]) : ld_kind_name(L, val[2]));
			L->ti[t].bad = true;
		}
	}
	L->ndefined = s->ntypes;
	/* Resolve children; a name never defined is a leaf (device) type. */
	for (i = 0; i < L->ndefined; i++) {
		int cn = L->ti[i].childnode, c;

		if (cn < 0)
			continue;
		c = strmap_get(&L->types, ld_str(L, cn));
		if (c < 0) {
			c = add_type(L, ld_str(L, cn), node_loc(L, cn), true);
			s->types[c].level = 1;
			s->types[c].leaf = c;
			s->types[c].leaves = 1;
			L->ti[c].cells = 1;
		}
		s->types[i].child = c;
	}
}

/* Find and report cycles; mark every type in or leading into one bad. */
static void
check_cycles(struct loader *L)
{
	struct spec *s = L->s;
	int *stamp = xcalloc((size_t)s->ntypes + 1, sizeof *stamp);
	int t, u;

	for (t = 0; t < L->ndefined; t++) {
		for (u = t; u >= 0 && !s->types[u].is_leaf && stamp[u] == 0;
		    u = s->types[u].child)
			stamp[u] = t + 1;
		if (u >= 0 && !s->types[u].is_leaf && stamp[u] == t + 1) {
			struct strbuf sb = STRBUF_INIT;
			int v = u, k = 0;

			do {
				if (k++ < 12)
					strbuf_addf(&sb, "'%s' -> ", s->types[v].name);
				else if (k == 14)
					strbuf_adds(&sb, "... -> ");
				L->ti[v].bad = true;
				v = s->types[v].child;
			} while (v != u);
			strbuf_addf(&sb, "'%s'", s->types[u].name);
			diag_at(L, SPEC_ERROR, s->types[u].loc,
			    "cycle in cellTypes: %s", sb.buf);
			strbuf_release(&sb);
		}
	}
	free(stamp);
}

/*
 * Levels, leaf types, leaf and cell counts, node-level counts: each type is
 * computed once, from its child, in an order found without recursion.
 */
static void
compute_levels(struct loader *L)
{
	struct spec *s = L->s;
	int *stack = xcalloc((size_t)s->ntypes + 1, sizeof *stack);
	bool *done = xcalloc((size_t)s->ntypes + 1, sizeof *done);
	int t, u, sp;

	for (t = 0; t < s->ntypes; t++)
		if (s->types[t].is_leaf)
			done[t] = true;
	for (t = 0; t < L->ndefined; t++) {
		sp = 0;
		for (u = t; u >= 0 && !done[u]; u = s->types[u].child) {
			stack[sp++] = u;
			done[u] = true;		/* cycles were stamped bad already */
			if (L->ti[u].bad)
				break;
		}
		while (sp > 0) {
			struct spec_celltype *ty;
			int c;

			u = stack[--sp];
			ty = &s->types[u];
			c = ty->child;
			if (L->ti[u].bad || c < 0 || L->ti[c].bad) {
				L->ti[u].bad = true;
				continue;
			}
			ty->level = s->types[c].level + 1;
			ty->leaf = s->types[c].leaf;
			ty->leaves = s->types[c].leaves * ty->nchild;
			if (ty->leaves > SPEC_MAX_CELLS)
				ty->leaves = (long long)SPEC_MAX_CELLS + 1;
			L->ti[u].cells = 1 + L->ti[c].cells * ty->nchild;
			if (L->ti[u].cells > SPEC_MAX_CELLS)
				L->ti[u].cells = (long long)SPEC_MAX_CELLS + 1;
			L->ti[u].nodecnt = L->ti[c].nodecnt + (ty->node_level ? 1 : 0);
		}
	}
	/* below: the types under a node-level type (each marked once). */
	for (t = 0; t < L->ndefined; t++) {
		if (!s->types[t].node_level || L->ti[t].bad)
			continue;
		for (u = s->types[t].child; u >= 0 && L->ti[u].below < 0;
		    u = s->types[u].is_leaf ? -1 : s->types[u].child)
			L->ti[u].below = t;
	}
	free(stack);
	free(done);
}

/* ---- phase 3: which top-level cells make which chain ------------------- */

/* The first node-level type at or below `from`, or -1. */
static int
next_node_level(const struct spec *s, int from)
{
	int u;

	for (u = from; u >= 0 && !s->types[u].is_leaf; u = s->types[u].child)
		if (s->types[u].node_level)
			return u;
	return -1;
}

/* Validate t as the top type of a chain; report why not (once). */
static int
make_chain(struct loader *L, int t, int where)
{
	struct spec *s = L->s;
	struct spec_chain *ch;
	struct tinfo *ti = &L->ti[t];
	int u, l, c;

	if (ti->chain >= 0)
		return ti->chain;
	if (ti->chainbad || ti->bad)
		return -1;
	ti->chainbad = true;	/* until proven good; reports stay single */
	if (s->types[t].level > SPEC_MAX_LEVELS) {
		ld_err(L, where, "cell type '%s' has %d levels, at most %d",
		    s->types[t].name, s->types[t].level, SPEC_MAX_LEVELS);
		return -1;
	}
	if (ti->nodecnt == 0 && ti->below >= 0) {
		ld_err(L, where, "top-level cell type '%s' is below node level "
		    "(inside node-level type '%s')", s->types[t].name,
		    s->types[ti->below].name);
		return -1;
	}
	if (ti->nodecnt == 0) {
		ld_err(L, where, "chain '%s' has no node-level cell type "
		    "(set isNodeLevel: true on the level of a machine)",
		    s->types[t].name);
		return -1;
	}
	if (ti->nodecnt > 1) {
		int a = next_node_level(s, t);
		int b = next_node_level(s, s->types[a].child);

		ld_err(L, where, "chain '%s' has two node-level cell types, '%s' "
		    "and '%s'", s->types[t].name, s->types[a].name, s->types[b].name);
		return -1;
	}
	if (ti->cells > SPEC_MAX_CELLS) {
		ld_err(L, where, "cell type '%s' is too large (more than %d cells)",
		    s->types[t].name, SPEC_MAX_CELLS);
		return -1;
	}
	ti->chainbad = false;
	c = s->nchains++;
	XGROW(s->chains, L->chains_cap, (size_t)s->nchains);
	XGROW(L->ntop, L->ntop_cap, (size_t)s->nchains);
	L->ntop[c] = 0;
	ch = &s->chains[c];
	memset(ch, 0, sizeof *ch);
	ch->top_type = t;
	ch->leaf_type = s->types[t].leaf;
	ch->levels = s->types[t].level;
	for (u = t, l = ch->levels; l >= 1; u = s->types[u].child, l--) {
		ch->level_type[l] = u;
		if (s->types[u].node_level)
			ch->node_level = l;
	}
	ti->chain = c;
	return c;
}

/*
 * Remember the pinnedCellIds inside a physicalCells entry that could not be
 * built (unknown type, bad chain, too many cells), so that virtual clusters
 * naming them are not reported a second time as naming unknown ids.
 */
static void
collect_lost_pins(struct loader *L, int item, int depth)
{
	const struct ydoc_node *m;
	int j, k;

	if (ld_kind(L, item) != YDOC_MAP || depth > SPEC_MAX_LEVELS + 1)
		return;
	m = &L->doc.nodes[item];
	for (j = 0; j < m->n; j++) {
		const char *key = ld_str(L, ydoc_key(&L->doc, item, j));
		int v = ydoc_val(&L->doc, item, j);

		if (strcmp(key, "pinnedCellId") == 0 && ld_kind(L, v) == YDOC_SCALAR)
			strmap_put(&L->lost_pins, ld_str(L, v), 0);
		else if (strcmp(key, "cellChildren") == 0 && ld_kind(L, v) == YDOC_SEQ)
			for (k = 0; k < L->doc.nodes[v].n; k++)
				collect_lost_pins(L, ydoc_item(&L->doc, v, k), depth + 1);
	}
}

static void
scan_physical_cells(struct loader *L, int seq)
{
	struct spec *s = L->s;
	int n = L->doc.nodes[seq].n, i;

	L->nentries = n;
	L->entry_chain = xcalloc((size_t)n + 1, sizeof *L->entry_chain);
	L->entry_rank = xcalloc((size_t)n + 1, sizeof *L->entry_rank);
	for (i = 0; i < n; i++) {
		int item = ydoc_item(&L->doc, seq, i), tn = -1, t, c, j;
		const struct ydoc_node *m;

		L->entry_chain[i] = -1;
		if (ld_kind(L, item) != YDOC_MAP) {
			ld_err(L, item, "physicalCells entry must be a mapping with "
			    "'cellType', not %s", ld_kind_name(L, item));
			continue;
		}
		m = &L->doc.nodes[item];
		for (j = 0; j < m->n; j++)
			if (strcmp(ld_str(L, ydoc_key(&L->doc, item, j)), "cellType") == 0)
				tn = ydoc_val(&L->doc, item, j);
		if (ld_kind(L, tn) != YDOC_SCALAR) {
			ld_err(L, item, "physicalCells entry has no cellType");
			goto lost;
		}
		t = strmap_get(&L->types, ld_str(L, tn));
		if (t < 0) {
			ld_err(L, tn, "unknown cell type '%s'", ld_str(L, tn));
			goto lost;
		}
		c = make_chain(L, t, tn);
		if (c < 0)
			goto lost;
		if (L->ntop[c] >= SPEC_MAX_CELLS) {
			ld_err(L, tn, "too many top-level cells in chain '%s'",
			    s->types[t].name);
			goto lost;
		}
		L->entry_chain[i] = c;
		L->entry_rank[i] = L->ntop[c]++;
		continue;
lost:
		collect_lost_pins(L, item, 0);
	}
}

/* ---- phase 4: layout --------------------------------------------------- */

static int
layout(struct loader *L, int where)
{
	struct spec *s = L->s;
	long long total = 0;
	int c, l, k;

	for (c = 0; c < s->nchains; c++)
		total += (long long)L->ntop[c] * L->ti[s->chains[c].top_type].cells;
	if (total > SPEC_MAX_CELLS) {
		ld_err(L, where, "the physical cells expand to %lld cells, at most %d",
		    total, SPEC_MAX_CELLS);
		return -1;
	}
	s->ncells = (int)total;
	s->cells = xcalloc((size_t)total + 1, sizeof *s->cells);
	L->written = xcalloc((size_t)total + 1, 1);
	total = 0;
	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];

		ch->level_count[ch->levels] = L->ntop[c];
		for (l = ch->levels; l >= 1; l--) {
			if (l < ch->levels)
				ch->level_count[l] = ch->level_count[l + 1] *
				    s->types[ch->level_type[l + 1]].nchild;
			ch->level_first[l] = (int)total;
			total += ch->level_count[l];
		}
		for (l = ch->levels; l >= 1; l--) {
			int nch = s->types[ch->level_type[l]].nchild;
			int pn = l < ch->levels ?
			    s->types[ch->level_type[l + 1]].nchild : 1;

			for (k = 0; k < ch->level_count[l]; k++) {
				struct spec_cell *cell = &s->cells[ch->level_first[l] + k];

				cell->type = ch->level_type[l];
				cell->chain = c;
				cell->level = l;
				cell->parent = l == ch->levels ? -1 :
				    ch->level_first[l + 1] + k / pn;
				cell->first_child = l == 1 ? -1 :
				    ch->level_first[l - 1] + k * nch;
				cell->nchild = l == 1 ? 0 : nch;
				cell->node = -1;
				cell->pin = -1;
			}
		}
		s->gpus += ch->level_count[1];
	}
	return 0;
}

/* ---- phase 5: explicit addresses, pins and children --------------------- */

static void apply_cell(struct loader *L, int cell, int item, int parent_item);

static void
apply_children(struct loader *L, int cell, int item, int list)
{
	struct spec *s = L->s;
	struct spec_cell *c = &s->cells[cell];
	const char *tname = s->types[c->type].name;
	int n, j;

	if (ld_kind(L, list) == YDOC_NULL)
		return;		/* omitted, null: all children by default */
	if (ld_kind(L, list) != YDOC_SEQ) {
		ld_err(L, list, "cellChildren of a '%s' cell must be a sequence, not %s",
		    tname, ld_kind_name(L, list));
		return;
	}
	n = L->doc.nodes[list].n;
	if (n > 0 && c->nchild == 0) {
		ld_err(L, ydoc_item(&L->doc, list, 0), "too many cellChildren: %d "
		    "listed under a cell of leaf type '%s', which has none", n, tname);
		return;
	}
	if (n > c->nchild)
		ld_err(L, ydoc_item(&L->doc, list, c->nchild), "too many cellChildren: "
		    "%d listed, cell type '%s' has childCellNumber %d",
		    n, tname, c->nchild);
	for (j = 0; j < n && j < c->nchild; j++)
		apply_cell(L, c->first_child + j, ydoc_item(&L->doc, list, j), item);
}

static void
apply_cell(struct loader *L, int cell, int item, int parent_item)
{
	static const char *const names[] = { "cellType", "cellAddress",
	    "pinnedCellId", "cellChildren" };
	struct spec *s = L->s;
	struct spec_cell *c = &s->cells[cell];
	const char *tname = s->types[c->type].name;
	int key[4], val[4];

	if (ld_kind(L, item) != YDOC_MAP) {
		/* "- " with nothing: a child left to its defaults. */
		if (ld_kind(L, item) != YDOC_NULL)
			ld_err(L, item, "cellChildren entry must be a mapping, not %s",
			    ld_kind_name(L, item));
		return;
	}
	c->loc = node_loc(L, item);
	L->written[cell] = 1;
	ld_get_fields(L, item, parent_item < 0 ? "physicalCells entry" :
	    "cellChildren entry", names, 4, NULL, key, val);
	/* A child may name its type (HiveD allows it); it must agree. */
	if (parent_item >= 0 && val[0] >= 0 && ld_kind(L, val[0]) != YDOC_NULL &&
	    strcmp(ld_str(L, val[0]), tname) != 0)
		ld_err(L, val[0], "cell type '%s' does not match the parent's "
		    "childCellType '%s'", ld_str(L, val[0]), tname);
	if (val[1] >= 0 && ld_kind(L, val[1]) != YDOC_NULL) {
		const char *a = ld_str(L, val[1]);

		if (ld_kind(L, val[1]) != YDOC_SCALAR)
			ld_err(L, val[1], "cellAddress must be a scalar, not %s",
			    ld_kind_name(L, val[1]));
		else if (*a == '\0')
			ld_err(L, val[1], "empty cellAddress in a '%s' cell", tname);
		else if (strchr(a, '/') != NULL)
			ld_err(L, val[1], "cellAddress '%s' must not contain '/'", a);
		else {
			c->addr = a;
			L->explicit_bytes += strlen(a) + 1;
		}
	}
	if (val[2] >= 0 && ld_kind(L, val[2]) != YDOC_NULL) {
		const char *id = ld_str(L, val[2]);
		int prev;

		if (ld_kind(L, val[2]) != YDOC_SCALAR || *id == '\0')
			ld_err(L, val[2], "pinnedCellId must be a non-empty scalar");
		else if ((prev = strmap_put(&L->pins, id, s->npins)) >= 0)
			ld_err(L, val[2], "duplicate pinnedCellId '%s' (first at line %d)",
			    id, s->pins[prev].loc.line);
		else {
			struct spec_pin *p;

			XGROW(s->pins, L->pins_cap, (size_t)s->npins + 1);
			p = &s->pins[s->npins];
			p->id = xstrdup(id);
			p->cell = cell;
			p->vc = -1;
			p->loc = node_loc(L, val[2]);
			c->pin = s->npins++;
		}
	}
	apply_children(L, cell, item, val[3]);
}

static void
apply_physical_cells(struct loader *L)
{
	struct spec *s = L->s;
	int i;

	for (i = 0; i < L->nentries; i++) {
		int c = L->entry_chain[i];
		struct spec_chain *ch;

		if (c < 0)
			continue;
		ch = &s->chains[c];
		apply_cell(L, ch->level_first[ch->levels] + L->entry_rank[i],
		    ydoc_item(&L->doc, L->pcs, i), -1);
	}
}

/* ---- phase 6: default addresses and nodes ------------------------------ */

/* The numbers 0 .. n-1 as strings, to share between default addresses. */
static void
build_numtab(struct loader *L, long long n)
{
	size_t len = 0, cap = 0;
	long long i;

	L->nnum = n;
	L->numoff = xreallocarray(NULL, (size_t)n + 1, sizeof *L->numoff);
	for (i = 0; i < n; i++) {
		char buf[24];
		int k = snprintf(buf, sizeof buf, "%lld", i);

		XGROW(L->numtab, cap, len + (size_t)k + 1);
		memcpy(L->numtab + len, buf, (size_t)k + 1);
		L->numoff[i] = len;
		len += (size_t)k + 1;
	}
	if (L->numtab == NULL)
		L->numtab = xcalloc(1, 1);
	L->numoff[n] = len;
}

static const char *
num(const struct loader *L, long long i)
{
	return L->numtab + L->numoff[i];
}

/*
 * Give every unaddressed cell its default (HiveD's rule): below node level
 * its index among the cells of its level in its node, above node level its
 * index among the cells of its level in its top-level cell, at the top its
 * index in physicalCells. Node-level cells need a written address.
 */
static void
default_addresses(struct loader *L)
{
	struct spec *s = L->s;
	long long maxn = L->nentries;
	int c, l, k, i;

	for (c = 0; c < s->nchains; c++)
		for (l = 1; l < s->chains[c].levels; l++)
			if (per_top(s, c, l) > maxn)
				maxn = per_top(s, c, l);
	build_numtab(L, maxn);
	for (i = 0; i < L->nentries; i++) {
		struct spec_chain *ch;
		struct spec_cell *cell;

		if (L->entry_chain[i] < 0)
			continue;
		ch = &s->chains[L->entry_chain[i]];
		cell = &s->cells[ch->level_first[ch->levels] + L->entry_rank[i]];
		if (cell->addr == NULL && ch->node_level != ch->levels)
			cell->addr = num(L, i);
		else if (cell->addr == NULL)
			ld_err(L, ydoc_item(&L->doc, L->pcs, i), "node-level cell of "
			    "type '%s' has no cellAddress (its node name)",
			    s->types[ch->top_type].name);
	}
	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];
		int nl = ch->node_level;

		for (l = ch->levels - 1; l >= 1; l--) {
			long long per = l < nl ?
			    ch->level_count[l] / ch->level_count[nl] : per_top(s, c, l);
			int lastpar = -1, missing = 0;

			for (k = 0; k <= ch->level_count[l]; k++) {
				struct spec_cell *cell;

				i = ch->level_first[l] + k;
				/* Unlisted node-level children: one error per parent. */
				if (l == nl && (k == ch->level_count[l] ||
				    s->cells[i].parent != lastpar)) {
					if (missing > 0) {
						char path[512];

						spec_cell_path(s, lastpar, path, sizeof path);
						diag_at(L, SPEC_ERROR, s->cells[lastpar].loc,
						    "%d node-level cells of type '%s' under "
						    "'%s' are not listed; each needs a "
						    "cellAddress (its node name)", missing,
						    s->types[ch->level_type[l]].name, path);
					}
					missing = 0;
					if (k < ch->level_count[l])
						lastpar = s->cells[i].parent;
				}
				if (k == ch->level_count[l])
					break;
				cell = &s->cells[i];
				if (cell->loc.line == 0)
					cell->loc = s->cells[cell->parent].loc;
				if (cell->addr != NULL)
					continue;
				if (l != nl)
					cell->addr = num(L, k % per);
				else if (L->written[i])
					diag_at(L, SPEC_ERROR, cell->loc, "node-level "
					    "cell of type '%s' has no cellAddress (its "
					    "node name)", s->types[cell->type].name);
				else
					missing++;
			}
		}
	}
}

/*
 * Nodes: node-level cells with the same name are one machine (one cell per
 * chain). Counted first, then laid out in one array, so no malloc per node.
 */
static void
build_nodes(struct loader *L)
{
	struct spec *s = L->s;
	int *count = NULL, *last_chain = NULL, *first_cell = NULL;
	size_t cap = 0, cap2 = 0, cap3 = 0;
	int c, k, i, n, total = 0;

	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];
		int nl = ch->node_level;

		for (k = 0; k < ch->level_count[nl]; k++) {
			struct spec_cell *cell;

			i = ch->level_first[nl] + k;
			cell = &s->cells[i];
			if (cell->addr == NULL)
				continue;
			n = strmap_put(L->nodes, cell->addr, s->nnodes);
			if (n < 0) {
				n = s->nnodes++;
				XGROW(count, cap, (size_t)s->nnodes);
				XGROW(last_chain, cap2, (size_t)s->nnodes);
				XGROW(first_cell, cap3, (size_t)s->nnodes);
				count[n] = 0;
				last_chain[n] = -1;
				first_cell[n] = i;
			}
			if (last_chain[n] == c) {
				char where[64] = "";

				if (s->cells[first_cell[n]].loc.line > 0)
					snprintf(where, sizeof where, " (first at line %d)",
					    s->cells[first_cell[n]].loc.line);
				diag_at(L, SPEC_ERROR, cell->loc, "node '%s' appears twice "
				    "in chain '%s'%s", cell->addr,
				    s->types[ch->top_type].name, where);
				continue;
			}
			last_chain[n] = c;
			cell->node = n;
			count[n]++;
			total++;
		}
	}
	s->nodes = xcalloc((size_t)s->nnodes + 1, sizeof *s->nodes);
	s->node_cells = xcalloc((size_t)total + 1, sizeof *s->node_cells);
	for (n = 0, k = 0; n < s->nnodes; n++) {
		s->nodes[n].cells = s->node_cells + k;
		k += count[n];
	}
	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];
		int nl = ch->node_level, l;

		for (k = 0; k < ch->level_count[nl]; k++) {
			i = ch->level_first[nl] + k;
			n = s->cells[i].node;
			if (n < 0)
				continue;
			if (s->nodes[n].ncells == 0)
				s->nodes[n].name = s->cells[i].addr;
			s->nodes[n].cells[s->nodes[n].ncells++] = i;
		}
		/* Below node level, a cell belongs to its parent's node. */
		for (l = nl - 1; l >= 1; l--)
			for (k = 0; k < ch->level_count[l]; k++) {
				struct spec_cell *cell = &s->cells[ch->level_first[l] + k];

				cell->node = s->cells[cell->parent].node;
			}
	}
	free(count);
	free(last_chain);
	free(first_cell);
}

/* ---- phase 7: duplicate addresses -------------------------------------- */

struct addr_ref {
	const char	*addr;
	int		 cell;
};

static int
addr_cmp(const void *a, const void *b)
{
	const struct addr_ref *x = a, *y = b;
	int r = strcmp(x->addr, y->addr);

	if (r != 0)
		return r;
	return (x->cell > y->cell) - (x->cell < y->cell);
}

/*
 * Sort refs by address and call back for each cell whose address an
 * earlier one (in cell order) already has.
 */
static void
find_dups(struct loader *L, struct addr_ref *refs, size_t n,
    void (*report)(struct loader *, int first, int dup, const void *), const void *arg)
{
	size_t i, j;

	if (n < 2)
		return;
	if (n <= 8) {
		for (i = 1; i < n; i++)
			for (j = 0; j < i; j++)
				if (strcmp(refs[i].addr, refs[j].addr) == 0) {
					report(L, refs[j].cell, refs[i].cell, arg);
					break;
				}
		return;
	}
	qsort(refs, n, sizeof *refs, addr_cmp);
	for (i = 1, j = 0; i < n; i++) {
		if (strcmp(refs[i].addr, refs[j].addr) == 0)
			report(L, refs[j].cell, refs[i].cell, arg);
		else
			j = i;
	}
}

static void
report_leaf_dup(struct loader *L, int first, int dup, const void *arg)
{
	const struct spec *s = L->s;
	const struct spec_cell *a = &s->cells[first], *b = &s->cells[dup];
	const char *node = arg;

	if (a->chain != b->chain)
		diag_at(L, SPEC_ERROR, b->loc, "leaf address '%s' is used twice on "
		    "node '%s' (cell types '%s' and '%s')", b->addr, node,
		    s->types[a->type].name, s->types[b->type].name);
	else
		diag_at(L, SPEC_ERROR, b->loc, "leaf address '%s' is used twice on "
		    "node '%s'", b->addr, node);
}

static void
report_sibling_dup(struct loader *L, int first, int dup, const void *arg)
{
	const struct spec *s = L->s;
	const struct spec_cell *b = &s->cells[dup];
	char path[512];

	(void)first;
	(void)arg;
	if (b->parent < 0)
		diag_at(L, SPEC_ERROR, b->loc, "duplicate cellAddress '%s' among "
		    "the top-level cells of chain '%s'", b->addr,
		    s->types[s->chains[b->chain].top_type].name);
	else {
		spec_cell_path(s, b->parent, path, sizeof path);
		diag_at(L, SPEC_ERROR, b->loc, "duplicate cellAddress '%s' among "
		    "the children of '%s'", b->addr, path);
	}
}

static void
check_addresses(struct loader *L)
{
	struct spec *s = L->s;
	struct addr_ref *refs = NULL;
	size_t cap = 0, nr;
	int c, l, k, n, j;

	/* Leaves of one node, over every chain the node is in. */
	for (n = 0; n < s->nnodes; n++) {
		nr = 0;
		for (j = 0; j < s->nodes[n].ncells; j++) {
			int nc = s->nodes[n].cells[j];
			const struct spec_cell *cell = &s->cells[nc];
			const struct spec_chain *ch = &s->chains[cell->chain];
			int nl = ch->node_level;
			int per = ch->level_count[1] / ch->level_count[nl];
			int first = ch->level_first[1] +
			    (nc - ch->level_first[nl]) * per;

			XGROW(refs, cap, nr + (size_t)per);
			for (k = 0; k < per; k++) {
				refs[nr].addr = s->cells[first + k].addr;
				refs[nr++].cell = first + k;
			}
		}
		find_dups(L, refs, nr, report_leaf_dup, s->nodes[n].name);
	}
	/*
	 * Siblings (contiguous by invariant 3) at the levels that are neither
	 * leaves (checked per node) nor nodes (checked per chain by name).
	 */
	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];

		for (l = ch->levels; l >= 2; l--) {
			int per = l == ch->levels ? ch->level_count[l] :
			    s->types[ch->level_type[l + 1]].nchild;

			if (l == ch->node_level)
				continue;
			for (k = 0; k < ch->level_count[l]; k += per) {
				int first = ch->level_first[l] + k, m;

				nr = 0;
				XGROW(refs, cap, (size_t)per);
				for (m = 0; m < per; m++)
					if (s->cells[first + m].addr != NULL) {
						refs[nr].addr = s->cells[first + m].addr;
						refs[nr++].cell = first + m;
					}
				find_dups(L, refs, nr, report_sibling_dup, NULL);
			}
		}
	}
	free(refs);
}

static void
check_pins_nested(struct loader *L)
{
	struct spec *s = L->s;
	int p, a;

	for (p = 0; p < s->npins; p++)
		for (a = s->cells[s->pins[p].cell].parent; a >= 0; a = s->cells[a].parent)
			if (s->cells[a].pin >= 0) {
				diag_at(L, SPEC_ERROR, s->pins[p].loc, "pinned cell '%s' "
				    "lies inside pinned cell '%s'", s->pins[p].id,
				    s->pins[s->cells[a].pin].id);
				break;
			}
}

/* ---- phase 8: virtual clusters ----------------------------------------- */

/*
 * Per cell type, the chains holding it (the first four, in chain order)
 * and how many: one pass over the chains, once, where a pass for each VC
 * cell named by a bare type was quadratic in a spec of many chains.
 */
static void
index_chains(struct loader *L)
{
	struct spec *s = L->s;
	int c, l;

	if (L->chains_indexed)
		return;
	L->chains_indexed = true;
	for (c = 0; c < s->nchains; c++)
		for (l = 1; l <= s->chains[c].levels; l++) {
			struct tinfo *ti = &L->ti[s->chains[c].level_type[l]];

			if (ti->nin < 4)
				ti->in[ti->nin] = c;
			ti->nin++;
		}
}

/* Whether type t is one of the levels of chain c (its top type included). */
static bool
chain_has_type(const struct spec *s, int c, int t)
{
	int l = s->types[t].level;

	return l >= 1 && l <= s->chains[c].levels &&
	    s->chains[c].level_type[l] == t;
}

/* Report that type t of path is not in chain c, listing the chain's types. */
static void
err_not_in_chain(struct loader *L, int node, const char *path, int c, int t)
{
	struct spec *s = L->s;
	struct strbuf sb = STRBUF_INIT;
	int l;

	for (l = s->chains[c].levels; l >= 1; l--)
		strbuf_addf(&sb, "%s'%s'", l < s->chains[c].levels ? ", " : "",
		    s->types[s->chains[c].level_type[l]].name);
	ld_err(L, node, "cell type '%s' in '%s' is not in chain '%s', whose "
	    "types are %s", s->types[t].name, path,
	    s->types[s->chains[c].top_type].name, sb.buf);
	strbuf_release(&sb);
}

/*
 * Resolve a virtualCells cellType: "CHAIN.T1...TN" or a bare "TYPE" (a
 * chain, or in exactly one chain). A path is read as HiveD reads it (its
 * virtualCellConstructor): the first element is the chain, the last the
 * type, and the ones between say nothing, so "RACK.GPU" (a skipped level)
 * and "RACK.RACK" (a repeated one) are HiveD's own configs. Every element
 * after the chain must still be a type of that chain: a typo or a type of
 * another chain is an error, not silently ignored. Sets chain/level/type;
 * returns -1 after reporting (or quietly, for types that were already
 * reported as broken).
 */
static int
resolve_vc_type(struct loader *L, int node, int *chain, int *level, int *type)
{
	struct spec *s = L->s;
	const char *path = ld_str(L, node);
	const char *p = path, *dot;
	char name[256];
	int t, prev = -1, c = -1;

	/* Without cellTypes every name would be unknown: said once already. */
	if (!L->types_ok)
		return -1;

	if (strchr(path, '.') == NULL) {
		int chs[4], n, i;
		struct strbuf sb = STRBUF_INIT;

		t = strmap_get(&L->types, path);
		if (t < 0) {
			ld_err(L, node, "unknown cell type '%s'", path);
			return -1;
		}
		if (L->ti[t].bad || L->ti[t].chainbad)
			return -1;
		if (L->ti[t].chain >= 0)
			c = L->ti[t].chain;
		else {
			index_chains(L);
			n = L->ti[t].nin;
			memcpy(chs, L->ti[t].in, sizeof chs);
			if (n == 0) {
				ld_err(L, node, "cell type '%s' is in no chain: no "
				    "physical cell contains it", path);
				return -1;
			}
			if (n > 1) {
				for (i = 0; i < n && i < 4; i++)
					strbuf_addf(&sb, "%s'%s'", i ? ", " : "",
					    s->types[s->chains[chs[i]].top_type].name);
				if (n > 4)
					strbuf_adds(&sb, ", ...");
				ld_err(L, node, "cell type '%s' is ambiguous: it is in "
				    "chains %s; write CHAIN.TYPE", path, sb.buf);
				strbuf_release(&sb);
				return -1;
			}
			c = chs[0];
		}
		*chain = c;
		*type = t;
		*level = s->types[t].level;
		return 0;
	}
	for (;;) {
		size_t len;

		dot = strchr(p, '.');
		len = dot ? (size_t)(dot - p) : strlen(p);
		if (len >= sizeof name)
			len = sizeof name - 1;
		memcpy(name, p, len);
		name[len] = '\0';
		t = strmap_get(&L->types, name);
		if (t < 0) {
			ld_err(L, node, "unknown cell type '%s' in '%s'", name, path);
			return -1;
		}
		if (L->ti[t].bad)
			return -1;
		if (prev < 0) {
			if (L->ti[t].chainbad)
				return -1;
			c = L->ti[t].chain;
			if (c < 0) {
				ld_err(L, node, "'%s' in '%s' is not a chain: no "
				    "physicalCells entry has cell type '%s'",
				    name, path, name);
				return -1;
			}
		} else if (!chain_has_type(s, c, t)) {
			err_not_in_chain(L, node, path, c, t);
			return -1;
		}
		prev = t;
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	*chain = c;
	*type = prev;
	*level = s->types[prev].level;
	return 0;
}

static void
parse_vcells(struct loader *L, struct spec_vc *vc, int seq, size_t *cap)
{
	static const char *const names[] = { "cellType", "cellNumber" };
	int n, i, j;

	if (ld_kind(L, seq) == YDOC_NULL)
		return;
	if (ld_kind(L, seq) != YDOC_SEQ) {
		ld_err(L, seq, "virtualCells of '%s' must be a sequence, not %s",
		    vc->name, ld_kind_name(L, seq));
		return;
	}
	n = L->doc.nodes[seq].n;
	for (i = 0; i < n; i++) {
		int item = ydoc_item(&L->doc, seq, i), key[2], val[2];
		int chain = -1, level = 0, type = -1, r, bad = 0;
		long long number = 0;

		if (ld_kind(L, item) != YDOC_MAP) {
			ld_err(L, item, "virtualCells entry must be a mapping with "
			    "'cellType' and 'cellNumber', not %s", ld_kind_name(L, item));
			continue;
		}
		ld_get_fields(L, item, "virtualCells entry", names, 2, NULL, key, val);
		if (val[1] < 0 || ld_kind(L, val[1]) == YDOC_NULL) {
			ld_err(L, item, "virtualCells entry has no cellNumber");
			bad = 1;
		} else if ((r = ld_get_int(L, val[1], 1, SPEC_MAX_CELLS, &number)) != 0) {
			if (r > 0)
				ld_err(L, val[1], "cellNumber '%s' is too large (at most %d)",
				    ld_str(L, val[1]), SPEC_MAX_CELLS);
			else
				ld_err(L, val[1], "cellNumber must be an integer >= 1, "
				    "not '%s'", ld_kind(L, val[1]) == YDOC_SCALAR ?
				    ld_str(L, val[1]) : ld_kind_name(L, val[1]));
			bad = 1;
		}
		if (ld_kind(L, val[0]) != YDOC_SCALAR) {
			ld_err(L, val[0] >= 0 ? val[0] : item,
			    "virtualCells entry has no cellType");
			continue;
		}
		if (resolve_vc_type(L, val[0], &chain, &level, &type) != 0 || bad)
			continue;
		/* The same (chain, level) twice in one VC adds up. */
		for (j = 0; j < vc->ncells; j++)
			if (vc->cells[j].chain == chain && vc->cells[j].level == level)
				break;
		if (j < vc->ncells) {
			if (vc->cells[j].number + number > SPEC_MAX_CELLS)
				number = SPEC_MAX_CELLS - vc->cells[j].number;
			vc->cells[j].number += (int)number;
			continue;
		}
		XGROW(vc->cells, *cap, (size_t)vc->ncells + 1);
		vc->cells[vc->ncells].chain = chain;
		vc->cells[vc->ncells].level = level;
		vc->cells[vc->ncells].type = type;
		vc->cells[vc->ncells].number = (int)number;
		vc->cells[vc->ncells].loc = node_loc(L, item);
		vc->ncells++;
	}
}

static void
parse_vpins(struct loader *L, int v, int seq, size_t *cap)
{
	static const char *const names[] = { "pinnedCellId" };
	struct spec *s = L->s;
	struct spec_vc *vc = &s->vcs[v];
	int n, i;

	if (ld_kind(L, seq) == YDOC_NULL)
		return;
	if (ld_kind(L, seq) != YDOC_SEQ) {
		ld_err(L, seq, "pinnedCells of '%s' must be a sequence, not %s",
		    vc->name, ld_kind_name(L, seq));
		return;
	}
	n = L->doc.nodes[seq].n;
	for (i = 0; i < n; i++) {
		int item = ydoc_item(&L->doc, seq, i), key[1], val[1], p;
		const char *id;

		if (ld_kind(L, item) != YDOC_MAP) {
			ld_err(L, item, "pinnedCells entry must be a mapping with "
			    "'pinnedCellId', not %s", ld_kind_name(L, item));
			continue;
		}
		ld_get_fields(L, item, "pinnedCells entry", names, 1, NULL, key, val);
		if (ld_kind(L, val[0]) != YDOC_SCALAR) {
			ld_err(L, val[0] >= 0 ? val[0] : item,
			    "pinnedCells entry has no pinnedCellId");
			continue;
		}
		id = ld_str(L, val[0]);
		p = strmap_get(&L->pins, id);
		if (p < 0 && strmap_get(&L->lost_pins, id) >= 0)
			continue;	/* its cell was reported already */
		if (p < 0) {
			ld_err(L, val[0], "unknown pinnedCellId '%s'", id);
			continue;
		}
		if (s->pins[p].vc == v) {
			ld_err(L, val[0], "pinnedCellId '%s' is listed twice in virtual "
			    "cluster '%s'", id, vc->name);
			continue;
		}
		if (s->pins[p].vc >= 0) {
			ld_err(L, val[0], "pinned cell '%s' is claimed by virtual "
			    "clusters '%s' and '%s'", id, s->vcs[s->pins[p].vc].name,
			    vc->name);
			continue;
		}
		s->pins[p].vc = v;
		XGROW(vc->pins, *cap, (size_t)vc->npins + 1);
		vc->pins[vc->npins++] = p;
	}
}

static void
parse_vcs(struct loader *L, int map)
{
	static const char *const names[] = { "virtualCells", "pinnedCells" };
	struct spec *s = L->s;
	int n = L->doc.nodes[map].n, i;

	s->vcs = xcalloc((size_t)n + 1, sizeof *s->vcs);
	for (i = 0; i < n; i++) {
		int k = ydoc_key(&L->doc, map, i), v = ydoc_val(&L->doc, map, i);
		const char *name = ld_str(L, k);
		int key[2], val[2], prev, vi;
		size_t cap1 = 0, cap2 = 0;
		char ctx[300];
		struct spec_vc *vc;

		if (ld_kind(L, k) != YDOC_SCALAR && ld_kind(L, k) != YDOC_NULL)
			continue;
		if (*name == '\0') {
			ld_err(L, k, "empty virtual cluster name");
			continue;
		}
		if ((prev = strmap_put(&L->vcs, name, s->nvcs)) >= 0) {
			ld_err(L, k, "virtual cluster '%s' is defined twice (first at "
			    "line %d)", name, s->vcs[prev].loc.line);
			continue;
		}
		vi = s->nvcs++;
		vc = &s->vcs[vi];
		vc->name = xstrdup(name);
		vc->loc = node_loc(L, k);
		if (ld_kind(L, v) == YDOC_NULL) {
			diag_node(L, SPEC_NOTE, k, "virtual cluster '%s' has no "
			    "cells; its jobs can only run opportunistic", name);
			continue;
		}
		if (ld_kind(L, v) != YDOC_MAP) {
			ld_err(L, v, "virtual cluster '%s' must be a mapping with "
			    "'virtualCells', not %s", name, ld_kind_name(L, v));
			continue;
		}
		snprintf(ctx, sizeof ctx, "virtual cluster '%s'", name);
		ld_get_fields(L, v, ctx, names, 2, NULL, key, val);
		parse_vcells(L, vc, val[0], &cap1);
		parse_vpins(L, vi, val[1], &cap2);
	}
}

/* ---- phase 9: feasibility ---------------------------------------------- */

/*
 * HiveD's initial-assignment check, per chain, from the top level down:
 * available(top) = top cells not holding a pinned cell; at each level,
 * left = available - assigned (all VCs); available one level down =
 * left * childCellNumber + the free siblings of pinned cells and of their
 * ancestors (a pinned cell splits every cell above it). Every failing level
 * is reported; the walk goes on from zero left.
 */
static void
check_feasible(struct loader *L)
{
	struct spec *s = L->s;
	int c, l, v, j, p, k, nl = SPEC_MAX_LEVELS + 1;
	/* Per chain, gathered in one pass each: what the VCs are assigned
	   (and where the first such cell is written), and the claimed pins
	   (counting sort: pins[pin_first[c] .. pin_first[c + 1]]). A pass
	   over every VC and pin for each chain was quadratic in a spec of
	   many chains (a node type each). */
	long long *assigned = xcalloc((size_t)s->nchains * (size_t)nl, sizeof *assigned);
	struct spec_loc *where = xcalloc((size_t)s->nchains * (size_t)nl, sizeof *where);
	int *pin_first = xcalloc((size_t)s->nchains + 2, sizeof *pin_first);
	int *pins = xcalloc((size_t)s->npins + 1, sizeof *pins);

	for (v = 0; v < s->nvcs; v++)
		for (j = 0; j < s->vcs[v].ncells; j++) {
			struct spec_vcell *vc = &s->vcs[v].cells[j];
			size_t at = (size_t)vc->chain * (size_t)nl + (size_t)vc->level;

			if (vc->chain < 0 || vc->chain >= s->nchains ||
			    vc->level < 0 || vc->level >= nl)
				continue;	/* reported when it was parsed */
			assigned[at] += vc->number;
			if (where[at].line == 0)
				where[at] = vc->loc;
		}
	for (p = 0; p < s->npins; p++)
		if (s->pins[p].vc >= 0)
			pin_first[s->cells[s->pins[p].cell].chain + 2]++;
	for (c = 0; c < s->nchains; c++)
		pin_first[c + 2] += pin_first[c + 1];
	for (p = 0; p < s->npins; p++)
		if (s->pins[p].vc >= 0)
			pins[pin_first[s->cells[s->pins[p].cell].chain + 1]++] = p;

	for (c = 0; c < s->nchains; c++) {
		struct spec_chain *ch = &s->chains[c];
		long long extra[SPEC_MAX_LEVELS + 1] = { 0 };
		long long *as = &assigned[(size_t)c * (size_t)nl];
		struct spec_loc *wh = &where[(size_t)c * (size_t)nl];
		unsigned char *state = NULL;	/* 1 split, 2 pinned */
		int base = ch->level_first[ch->levels];
		int ncells = 0;
		long long avail = 0, left = 0;

		for (l = 1; l <= ch->levels; l++)
			ncells += ch->level_count[l];
		for (k = pin_first[c]; k < pin_first[c + 1]; k++) {
			int cell = s->pins[pins[k]].cell, a;

			if (state == NULL)
				state = xcalloc((size_t)ncells, 1);
			state[cell - base] = 2;
			for (a = s->cells[cell].parent; a >= 0 && state[a - base] != 1;
			    a = s->cells[a].parent)
				state[a - base] = 1;
		}
		for (l = ch->levels; l >= 1; l--)
			for (k = 0; state != NULL && k < ch->level_count[l]; k++) {
				int i = ch->level_first[l] + k;
				int par = s->cells[i].parent;

				if (state[i - base] == 0 &&
				    (par < 0 || state[par - base] == 1))
					extra[l]++;
			}
		for (l = ch->levels; l >= 1; l--) {
			if (l == ch->levels)
				avail = state != NULL ? extra[l] : ch->level_count[l];
			else
				avail = left * s->types[ch->level_type[l + 1]].nchild +
				    extra[l];
			left = avail - as[l];
			if (left < 0) {
				diag_at(L, SPEC_ERROR, wh[l], "chain '%s' level %d "
				    "(%s): %lld cells assigned, %lld available",
				    s->types[ch->top_type].name, l,
				    s->types[ch->level_type[l]].name, as[l], avail);
				left = 0;
			}
		}
		free(state);
	}
	free(assigned);
	free(where);
	free(pin_first);
	free(pins);
}

/* ---- the loader -------------------------------------------------------- */

static void
finish_arena(struct loader *L)
{
	struct spec *s = L->s;
	size_t numlen = L->numoff ? L->numoff[L->nnum] : 0;
	size_t pos = numlen;
	const char *lo = L->numtab, *hi = L->numtab + numlen;
	int i, n;

	s->arena_len = numlen + L->explicit_bytes;
	s->arena = xmalloc(s->arena_len + 1);
	if (numlen)
		memcpy(s->arena, L->numtab, numlen);
	for (i = 0; i < s->ncells; i++) {
		const char *a = s->cells[i].addr;
		size_t len;

		if (a == NULL)
			continue;
		if (a >= lo && a < hi) {
			s->cells[i].addr = s->arena + (a - lo);
			continue;
		}
		len = strlen(a) + 1;
		if (pos + len > s->arena_len)
			fatal("spec arena overflow");
		memcpy(s->arena + pos, a, len);
		s->cells[i].addr = s->arena + pos;
		pos += len;
	}
	for (n = 0; n < s->nnodes; n++)
		s->nodes[n].name = s->cells[s->nodes[n].cells[0]].addr;
}

static void
load_physical(struct loader *L, int pc)
{
	static const char *const names[] = { "cellTypes", "physicalCells" };
	static const struct ignored_key ign[] = {
		{ "skuTypes", "cellar schedules whole leaf cells, not cpu/memory skus" },
		{ NULL, NULL },
	};
	int key[2], val[2];

	if (ld_kind(L, pc) != YDOC_MAP) {
		ld_err(L, pc >= 0 && ld_kind(L, pc) != YDOC_NULL ? pc : L->pc_key,
		    "'physicalCluster' must be a mapping with 'cellTypes' and "
		    "'physicalCells', not %s", ld_kind_name(L, pc));
		return;
	}
	ld_get_fields(L, pc, "physicalCluster", names, 2, ign, key, val);
	if (key[0] < 0)
		ld_err(L, L->pc_key, "missing 'cellTypes' in 'physicalCluster'");
	else if (ld_kind(L, val[0]) != YDOC_MAP && ld_kind(L, val[0]) != YDOC_NULL)
		ld_err(L, val[0], "'cellTypes' must be a mapping of cell type names, "
		    "not %s", ld_kind_name(L, val[0]));
	else {
		if (ld_kind(L, val[0]) == YDOC_MAP)
			parse_cell_types(L, val[0]);
		L->types_ok = 1;
	}
	if (L->s->types == NULL) {
		L->s->types = xcalloc(1, sizeof *L->s->types);
		L->ti = xcalloc(1, sizeof *L->ti);
	}
	check_cycles(L);
	compute_levels(L);

	if (key[1] < 0) {
		ld_err(L, L->pc_key, "missing 'physicalCells' in 'physicalCluster'");
		return;
	}
	if (ld_kind(L, val[1]) == YDOC_NULL || (ld_kind(L, val[1]) == YDOC_SEQ &&
	    L->doc.nodes[val[1]].n == 0)) {
		diag_node(L, SPEC_WARNING, key[1], "'physicalCells' is empty: the "
		    "cluster has no cells");
		return;
	}
	if (ld_kind(L, val[1]) != YDOC_SEQ) {
		ld_err(L, val[1], "'physicalCells' must be a sequence, not %s",
		    ld_kind_name(L, val[1]));
		return;
	}
	L->pcs = val[1];
	scan_physical_cells(L, val[1]);
	if (layout(L, key[1]) != 0) {
		int i;

		for (i = 0; i < L->nentries; i++)
			collect_lost_pins(L, ydoc_item(&L->doc, val[1], i), 0);
		return;
	}
	L->cells_ok = 1;
	apply_physical_cells(L);
	default_addresses(L);
	build_nodes(L);
	check_addresses(L);
	check_pins_nested(L);
}

/* ---- access: cellar's own section ------------------------------------- */

/* Bytes in a user or group name, at most (useradd's limit on Linux,
   utmp's UT_NAMESIZE). */
#define ACCESS_NAME_MAX	32

/*
 * A user or group name from POSIX's portable set: letters, digits, '.',
 * '_' and '-', not starting with '-', 1 to ACCESS_NAME_MAX bytes. Any
 * other form is refused rather than matched, so whatever the server looks
 * up, logs or prints from here needs no quoting.
 */
bool
access_name_valid(const char *s)
{
	size_t i;

	if (s[0] == '-')
		return false;
	for (i = 0; s[i] != '\0'; i++)
		if (i >= ACCESS_NAME_MAX ||
		    !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || strchr("._-", s[i]) != NULL))
			return false;
	return i > 0;
}

/*
 * `users:` or `groups:` of a rule (what is "user" or "group"): a sequence
 * of names, copied into *names. Null is nobody; a bad name is an error at
 * its item; a name listed again is a warning and kept once.
 */
static void
parse_names(struct loader *L, int seq, const char *ctx, const char *what,
    char ***names, int *n)
{
	struct strmap seen;
	size_t cap = 0;
	int i, it, first;

	if (ld_kind(L, seq) == YDOC_NULL)
		return;
	if (ld_kind(L, seq) == YDOC_SCALAR) {
		ld_err(L, seq, "'%ss' in %s must be a list of names, not a scalar "
		    "(write '%ss: [%s]')", what, ctx, what, ld_str(L, seq));
		return;
	}
	if (ld_kind(L, seq) != YDOC_SEQ) {
		ld_err(L, seq, "'%ss' in %s must be a list of names, not %s", what,
		    ctx, ld_kind_name(L, seq));
		return;
	}
	strmap_init(&seen, STRMAP_COPY);
	for (i = 0; i < L->doc.nodes[seq].n; i++) {
		it = ydoc_item(&L->doc, seq, i);
		if (ld_kind(L, it) != YDOC_SCALAR) {
			ld_err(L, it, "a %s in '%ss' in %s must be a name, not %s", what,
			    what, ctx, ld_kind_name(L, it));
			continue;
		}
		if (!access_name_valid(ld_str(L, it))) {
			ld_err(L, it, "bad %s name '%s' in %s (letters, digits, '.', '_', "
			    "'-', not starting with '-', at most %d bytes)", what,
			    ld_str(L, it), ctx, ACCESS_NAME_MAX);
			continue;
		}
		if ((first = strmap_put(&seen, ld_str(L, it), it)) >= 0) {
			diag_node(L, SPEC_WARNING, it, "%s '%s' is listed twice in "
			    "%s (first at line %d)", what, ld_str(L, it), ctx,
			    L->doc.nodes[first].line);
			continue;
		}
		XGROW(*names, cap, (size_t)*n + 1);
		(*names)[(*n)++] = xstrdup(ld_str(L, it));
	}
	strmap_release(&seen);
}

/* One rule, `{users: [...], groups: [...]}`; null is nobody. */
static void
parse_rule(struct loader *L, int map, const char *ctx, struct spec_access_rule *r)
{
	static const char *const names[] = { "users", "groups" };
	int key[2], val[2];

	if (ld_kind(L, map) == YDOC_NULL)
		return;
	if (ld_kind(L, map) != YDOC_MAP) {
		ld_err(L, map, "%s must be a mapping with 'users' and 'groups', not %s",
		    ctx, ld_kind_name(L, map));
		return;
	}
	ld_get_fields(L, map, ctx, names, 2, NULL, key, val);
	if (key[0] >= 0)
		parse_names(L, val[0], ctx, "user", &r->users, &r->nusers);
	if (key[1] >= 0)
		parse_names(L, val[1], ctx, "group", &r->groups, &r->ngroups);
}

/*
 * The access: section, read after virtualClusters (its VC names are the
 * spec's). Once it is there, given is true and vcs has a rule per VC,
 * empty for a VC it does not name (spec.h invariant 9).
 */
static void
parse_access(struct loader *L, int map)
{
	enum { K_ADMINS, K_SOCKET, K_VCS, K_RUNAS };
	static const char *const names[] = { "admins", "socketGroup",
	    "virtualClusters", "runAs" };
	struct spec_access *a = &L->s->access;
	struct strmap seen;
	int key[4], val[4], i, k, v, first;
	char ctx[300];

	a->given = true;
	a->vcs = xcalloc((size_t)L->s->nvcs + 1, sizeof *a->vcs);
	if (ld_kind(L, map) == YDOC_NULL)
		return;
	if (ld_kind(L, map) != YDOC_MAP) {
		ld_err(L, map, "'access' must be a mapping, not %s", ld_kind_name(L, map));
		return;
	}
	ld_get_fields(L, map, "'access'", names, 4, NULL, key, val);
	if (key[K_ADMINS] >= 0)
		parse_rule(L, val[K_ADMINS], "'access.admins'", &a->admins);
	if (key[K_RUNAS] >= 0)
		spec_run_as_parse(L, val[K_RUNAS]);
	if (key[K_SOCKET] >= 0 && ld_kind(L, val[K_SOCKET]) != YDOC_NULL) {
		if (ld_kind(L, val[K_SOCKET]) != YDOC_SCALAR)
			ld_err(L, val[K_SOCKET], "'socketGroup' in 'access' must be a "
			    "group name, not %s", ld_kind_name(L, val[K_SOCKET]));
		else if (!access_name_valid(ld_str(L, val[K_SOCKET])))
			ld_err(L, val[K_SOCKET], "bad group name '%s' in 'access."
			    "socketGroup' (letters, digits, '.', '_', '-', not "
			    "starting with '-', at most %d bytes)",
			    ld_str(L, val[K_SOCKET]), ACCESS_NAME_MAX);
		else
			a->socket_group = xstrdup(ld_str(L, val[K_SOCKET]));
	}
	if (key[K_VCS] < 0 || ld_kind(L, val[K_VCS]) == YDOC_NULL)
		return;
	if (ld_kind(L, val[K_VCS]) != YDOC_MAP) {
		ld_err(L, val[K_VCS], "'virtualClusters' in 'access' must be a mapping "
		    "of virtual cluster names, not %s", ld_kind_name(L, val[K_VCS]));
		return;
	}
	strmap_init(&seen, STRMAP_COPY);
	for (i = 0; i < L->doc.nodes[val[K_VCS]].n; i++) {
		k = ydoc_key(&L->doc, val[K_VCS], i);
		if (ld_kind(L, k) != YDOC_SCALAR && ld_kind(L, k) != YDOC_NULL)
			continue;	/* reported by the parser */
		if ((v = strmap_get(&L->vcs, ld_str(L, k))) < 0) {
			ld_err(L, k, "unknown virtual cluster '%s' in "
			    "'access.virtualClusters'", ld_str(L, k));
			continue;
		}
		if ((first = strmap_put(&seen, ld_str(L, k), k)) >= 0) {
			ld_err(L, k, "virtual cluster '%s' is listed twice in "
			    "'access.virtualClusters' (first at line %d)", ld_str(L, k),
			    L->doc.nodes[first].line);
			continue;
		}
		snprintf(ctx, sizeof ctx, "'access.virtualClusters.%s'", ld_str(L, k));
		parse_rule(L, ydoc_val(&L->doc, val[K_VCS], i), ctx, &a->vcs[v]);
	}
	strmap_release(&seen);
}

static void
rule_free(struct spec_access_rule *r)
{
	int i;

	for (i = 0; i < r->nusers; i++)
		free(r->users[i]);
	free(r->users);
	for (i = 0; i < r->ngroups; i++)
		free(r->groups[i]);
	free(r->groups);
}

static void
access_free(struct spec_access *a, int nvcs)
{
	int i;

	rule_free(&a->admins);
	for (i = 0; a->vcs != NULL && i < nvcs; i++)
		rule_free(&a->vcs[i]);
	free(a->vcs);
	free(a->socket_group);
	spec_run_as_free(a);
}

static void
load_doc(struct loader *L)
{
	static const char *const names[] = { "physicalCluster", "virtualClusters",
	    "backend", "access" };
	static const char k8s[] = "only used by hived's kubernetes scheduler";
	/* the rest of HiveD's Config (pkg/api/config.go): its YAML keys */
	static const struct ignored_key ign[] = {
		{ "kubeApiServerAddress", k8s },
		{ "kubeConfigFilePath", k8s },
		{ "webServerAddress", k8s },
		{ "waitingPodSchedulingBlockMilliSec", k8s },
		{ "forcePodBindThreshold", k8s },
		{ "quotaExcludeVCs", k8s },
		{ NULL, NULL },
	};
	struct spec *s = L->s;
	int root = L->doc.root, key[4], val[4], p;

	if (ld_kind(L, root) == YDOC_NULL) {
		spec_diag_add(L->d, SPEC_WARNING, L->file, 1, 1, "empty spec: no "
		    "'physicalCluster', the cluster has no cells");
		return;
	}
	if (ld_kind(L, root) != YDOC_MAP) {
		ld_err(L, root, "a spec must be a mapping with 'physicalCluster' and "
		    "'virtualClusters', not %s", ld_kind_name(L, root));
		return;
	}
	get_fields_sev(L, root, "the spec", names, 4, ign, key, val, SPEC_ERROR);
	L->pc_key = key[0];
	if (key[0] < 0)
		ld_err(L, root, "missing 'physicalCluster'");
	else
		load_physical(L, val[0]);
	if (key[1] >= 0 && ld_kind(L, val[1]) == YDOC_MAP)
		parse_vcs(L, val[1]);
	else if (key[1] >= 0 && ld_kind(L, val[1]) != YDOC_NULL)
		ld_err(L, val[1], "'virtualClusters' must be a mapping of virtual "
		    "cluster names, not %s", ld_kind_name(L, val[1]));
	else if (key[0] >= 0)
		spec_diag_add(L->d, SPEC_NOTE, L->file, key[1] >= 0 ?
		    L->doc.nodes[key[1]].line : 0, key[1] >= 0 ?
		    L->doc.nodes[key[1]].col : 0, "no virtual clusters: every "
		    "job runs opportunistic");
	for (p = 0; p < s->npins; p++)
		if (s->pins[p].vc < 0)
			diag_at(L, SPEC_NOTE, s->pins[p].loc, "pinned cell '%s' is "
			    "not claimed by any virtual cluster", s->pins[p].id);
	if (L->cells_ok)
		check_feasible(L);
	if (key[2] >= 0)
		spec_backend_parse(L, val[2]);
	if (key[3] >= 0)
		parse_access(L, val[3]);
}

struct spec *
spec_load_string(const char *name, const char *text, size_t len,
    struct spec_diags *diags)
{
	struct spec_diags local;
	struct loader L;
	struct spec *s;
	int errors0;

	if (diags == NULL) {
		spec_diags_init(&local);
		diags = &local;
	}
	errors0 = diags->errors;
	s = xcalloc(1, sizeof *s);
	spec_backend_defaults(&s->backend);
	s->path = xstrdup(name ? name : "<spec>");
	s->text = xmalloc(len + 1);
	memcpy(s->text, text, len);
	s->text[len] = '\0';
	s->text_len = len;
	s->hash = fnv1a64(text, len);

	memset(&L, 0, sizeof L);
	L.s = s;
	L.file = s->path;
	L.d = diags;
	L.pc_key = -1;
	L.pcs = -1;
	strmap_init(&L.types, STRMAP_COPY);
	strmap_init(&L.vcs, STRMAP_COPY);
	strmap_init(&L.pins, STRMAP_COPY);
	strmap_init(&L.lost_pins, STRMAP_COPY);
	L.nodes = xcalloc(1, sizeof *L.nodes);
	strmap_init(L.nodes, STRMAP_COPY);

	if (ydoc_parse(&L.doc, s->path, text, len, diags) == 0) {
		load_doc(&L);
		if (L.cells_ok)
			finish_arena(&L);
	}
	s->node_map = L.nodes;
	ydoc_release(&L.doc);
	strmap_release(&L.types);
	strmap_release(&L.vcs);
	strmap_release(&L.pins);
	strmap_release(&L.lost_pins);
	free(L.ti);
	free(L.ntop);
	free(L.entry_chain);
	free(L.entry_rank);
	free(L.written);
	free(L.numtab);
	free(L.numoff);
	/* Without errors and without cells (an empty spec) nothing was built. */
	if (diags->errors > errors0) {
		spec_free(s);
		s = NULL;
	}
	if (diags == &local)
		spec_diags_release(&local);
	return s;
}

struct spec *
spec_load(const char *path, struct spec_diags *diags)
{
	struct spec_diags local;
	struct spec *s = NULL;
	struct stat st;
	FILE *f;
	char *buf;
	size_t n;

	if (diags == NULL) {
		spec_diags_init(&local);
		diags = &local;
	}
	f = fopen(path, "rb");
	if (f == NULL) {
		spec_diag_add(diags, SPEC_ERROR, path, 0, 0, "cannot open spec "
		    "'%s': %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fileno(f), &st) != 0)
		memset(&st, 0, sizeof st);
	if (!S_ISREG(st.st_mode) || st.st_size > SPEC_MAX_FILE) {
		spec_diag_add(diags, SPEC_ERROR, path, 0, 0, "cannot read spec "
		    "'%s': %s", path, S_ISDIR(st.st_mode) ? "is a directory" :
		    st.st_size > SPEC_MAX_FILE ? "file too large" :
		    "not a regular file");
		fclose(f);
		goto out;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	n = fread(buf, 1, (size_t)st.st_size, f);
	if (ferror(f)) {
		spec_diag_add(diags, SPEC_ERROR, path, 0, 0, "cannot read spec "
		    "'%s': %s", path, strerror(errno));
		free(buf);
		fclose(f);
		goto out;
	}
	fclose(f);
	s = spec_load_string(path, buf, n, diags);
	free(buf);
out:
	if (diags == &local)
		spec_diags_release(&local);
	return s;
}

void
spec_free(struct spec *s)
{
	int i;

	if (s == NULL)
		return;
	free(s->path);
	free(s->text);
	for (i = 0; i < s->ntypes; i++)
		free(s->types[i].name);
	free(s->types);
	free(s->cells);
	free(s->chains);
	free(s->nodes);
	free(s->node_cells);
	for (i = 0; i < s->nvcs; i++) {
		free(s->vcs[i].name);
		free(s->vcs[i].cells);
		free(s->vcs[i].pins);
	}
	free(s->vcs);
	for (i = 0; i < s->npins; i++)
		free(s->pins[i].id);
	free(s->pins);
	free(s->arena);
	spec_backend_free(&s->backend, s->nnodes);
	access_free(&s->access, s->nvcs);
	if (s->node_map != NULL) {
		strmap_release(s->node_map);
		free(s->node_map);
	}
	free(s);
}

/* ---- lookups ----------------------------------------------------------- */

int
spec_find_vc(const struct spec *s, const char *name)
{
	int i;

	for (i = 0; i < s->nvcs; i++)
		if (strcmp(s->vcs[i].name, name) == 0)
			return i;
	return -1;
}

char *
spec_unknown_vc(const struct spec *s, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	const char **names = xcalloc((size_t)s->nvcs + 1, sizeof *names);
	int i;

	for (i = 0; i < s->nvcs; i++)
		names[i] = s->vcs[i].name;
	strbuf_addf(&sb, "unknown vc '%s'", name);
	if (s->nvcs == 0)
		strbuf_adds(&sb, " (the spec has no virtual clusters)");
	else
		suggest_hint(&sb, name, names, (size_t)s->nvcs, "vcs");
	free(names);
	return strbuf_detach(&sb, NULL);
}

int
spec_find_type(const struct spec *s, const char *name)
{
	int i;

	for (i = 0; i < s->ntypes; i++)
		if (strcmp(s->types[i].name, name) == 0)
			return i;
	return -1;
}

int
spec_find_chain(const struct spec *s, const char *top_type_name)
{
	int c;

	for (c = 0; c < s->nchains; c++)
		if (strcmp(s->types[s->chains[c].top_type].name, top_type_name) == 0)
			return c;
	return -1;
}

int
spec_find_node(const struct spec *s, const char *name)
{
	return s->node_map != NULL ? strmap_get(s->node_map, name) : -1;
}

int
spec_find_pin(const struct spec *s, const char *id)
{
	int i;

	for (i = 0; i < s->npins; i++)
		if (strcmp(s->pins[i].id, id) == 0)
			return i;
	return -1;
}

/* Does the path component at p (up to '/' or NUL) equal addr? */
static bool
comp_eq(const char *p, size_t len, const char *addr)
{
	return addr != NULL && strncmp(p, addr, len) == 0 && addr[len] == '\0';
}

/* Follow the rest of a path (after a '/') down from cell; -1 if absent. */
static int
descend(const struct spec *s, int cell, const char *rest)
{
	while (*rest != '\0') {
		size_t len = strcspn(rest, "/");
		const struct spec_cell *c = &s->cells[cell];
		int j;

		for (j = 0; j < c->nchild; j++)
			if (comp_eq(rest, len, s->cells[c->first_child + j].addr))
				break;
		if (j == c->nchild)
			return -1;
		cell = c->first_child + j;
		rest += len;
		if (*rest == '/')
			rest++;
	}
	return cell;
}

int
spec_find_cell(const struct spec *s, const char *path)
{
	size_t len;
	const char *rest;
	char name[512];
	int c, k, n, j, r;

	if (path == NULL || *path == '\0' || s->ncells == 0)
		return -1;
	len = strcspn(path, "/");
	rest = path + len + (path[len] == '/');
	/* 1. A full path from a top-level cell (above node level: tops of
	 * node-level chains are found as nodes just below). */
	for (c = 0; c < s->nchains; c++) {
		const struct spec_chain *ch = &s->chains[c];

		if (ch->node_level == ch->levels)
			continue;
		for (k = 0; k < ch->level_count[ch->levels]; k++) {
			int i = ch->level_first[ch->levels] + k;

			if (comp_eq(path, len, s->cells[i].addr) &&
			    (r = descend(s, i, rest)) >= 0)
				return r;
		}
	}
	/* 2. A node name, then the cells' own addresses below it. */
	if (len < sizeof name) {
		memcpy(name, path, len);
		name[len] = '\0';
		if ((n = spec_find_node(s, name)) >= 0)
			for (j = 0; j < s->nodes[n].ncells; j++)
				if ((r = descend(s, s->nodes[n].cells[j], rest)) >= 0)
					return r;
	}
	/* 3. A pinned cell id. */
	if ((n = spec_find_pin(s, path)) >= 0)
		return s->pins[n].cell;
	return -1;
}

long long
spec_units(const struct spec *s, int chain, int hi, int lo)
{
	const struct spec_chain *ch;
	long long u = 1;
	int l;

	if (chain < 0 || chain >= s->nchains)
		return 0;
	ch = &s->chains[chain];
	if (lo < 1 || hi > ch->levels || hi < lo)
		return 0;
	for (l = hi; l > lo; l--)
		u *= s->types[ch->level_type[l]].nchild;
	return u;
}

char *
spec_cell_path(const struct spec *s, int cell, char *buf, size_t len)
{
	int stack[SPEC_MAX_LEVELS + 1], n = 0;
	size_t pos = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	if (cell < 0 || cell >= s->ncells)
		return buf;
	for (; cell >= 0 && n < SPEC_MAX_LEVELS + 1; cell = s->cells[cell].parent)
		stack[n++] = cell;
	while (n-- > 0) {
		const char *a = s->cells[stack[n]].addr ? s->cells[stack[n]].addr : "?";
		size_t al = strlen(a), sep = pos > 0, avail = len - pos;
		size_t need = sep + al, k = need < avail ? need : avail - 1;

		/* "/" and the address by hand (snprintf per level was most of
		   an alloc's pod table); cut where snprintf would cut */
		if (sep && k > 0)
			buf[pos] = '/';
		if (k > sep)
			memcpy(buf + pos + sep, a, k - sep);
		buf[pos + k] = '\0';
		if (need >= avail)
			break;
		pos += need;
	}
	return buf;
}

int
spec_vc_cells_at(const struct spec *s, int vc, int chain, int level)
{
	int j, n = 0;

	if (vc < 0 || vc >= s->nvcs)
		return 0;
	for (j = 0; j < s->vcs[vc].ncells; j++)
		if (s->vcs[vc].cells[j].chain == chain &&
		    s->vcs[vc].cells[j].level == level)
			n += s->vcs[vc].cells[j].number;
	return n;
}
