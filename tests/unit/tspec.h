/*
 * tspec.h — helpers shared by the spec unit tests (tspec-*.c): load a spec
 * from a string, look for a diagnostic, and check every numbered invariant
 * of spec.h over every cell of a loaded spec. Header only, included after
 * test.h.
 */
#ifndef CELLAR_TSPEC_H
#define CELLAR_TSPEC_H

#include <stdlib.h>
#include <string.h>

#include "spec/spec.h"
#include "test.h"

/* Failure messages quote diagnostics; cutting a long one short is fine. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

/* Load text under the name "t.yaml"; diags are kept in *d (caller releases). */
static inline struct spec *
load_str(const char *text, struct spec_diags *d)
{
	spec_diags_init(d);
	return spec_load_string("t.yaml", text, strlen(text), d);
}

/* The first diagnostic starting with prefix and containing needle, or NULL. */
static inline const char *
find_diag(const struct spec_diags *d, const char *prefix, const char *needle)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strncmp(d->v[i].text, prefix, strlen(prefix)) == 0 &&
		    strstr(d->v[i].text, needle) != NULL)
			return d->v[i].text;
	return NULL;
}

/* All diagnostics on one line, for failure messages. */
static inline const char *
all_diags(const struct spec_diags *d)
{
	static char buf[4096];
	size_t i, pos = 0;

	buf[0] = '\0';
	for (i = 0; i < d->n && pos < sizeof buf - 1; i++) {
		int w = snprintf(buf + pos, sizeof buf - pos, "[%s] ", d->v[i].text);

		if (w < 0)
			break;
		pos += (size_t)w;
	}
	return buf;
}

/* CHECK_DIAG(d, "t.yaml:3:5: error: ", "unknown cell type 'X'") */
#define CHECK_DIAG(d, prefix, needle) \
	CHECKF(find_diag((d), (prefix), (needle)) != NULL, \
	    "no diagnostic '%.60s...%.80s' in: %.300s", (prefix), (needle), all_diags(d))

/*
 * Expect text to fail to load with a diagnostic at prefix mentioning needle.
 */
#define CHECK_LOAD_FAILS(text, prefix, needle) do {			\
	struct spec_diags d_;						\
	struct spec *s_ = load_str((text), &d_);			\
	CHECKF(s_ == NULL, "loaded, diags: %.400s", all_diags(&d_));	\
	CHECK(d_.errors > 0);						\
	CHECK_DIAG(&d_, (prefix), (needle));				\
	spec_free(s_);							\
	spec_diags_release(&d_);					\
} while (0)

static inline int
cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* spec.h invariant 9's name: [A-Za-z0-9._-], 1 to 32 bytes, no leading '-'. */
static inline bool
access_name_ok(const char *n)
{
	size_t len = strlen(n);

	return len >= 1 && len <= 32 && n[0] != '-' &&
	    strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == len;
}

/* Invariant 9 over one rule's two lists: valid names, none twice. */
static inline int
check_name_list(char *const *names, int n)
{
	int bad = 0, i, j;

	if (n == 0 && names != NULL) {
		bad++;
		CHECK(n > 0 || names == NULL);
	}
	for (i = 0; i < n; i++) {
		if (!access_name_ok(names[i])) {
			bad++;
			CHECKF(access_name_ok(names[i]), "name '%s'", names[i]);
		}
		for (j = 0; j < i; j++)
			if (strcmp(names[i], names[j]) == 0) {
				bad++;
				CHECKF(strcmp(names[i], names[j]) != 0,
				    "'%s' twice", names[i]);
			}
	}
	return bad;
}

static inline int
check_access_rule(const struct spec_access_rule *r)
{
	return check_name_list(r->users, r->nusers) +
	    check_name_list(r->groups, r->ngroups);
}

/*
 * Every numbered invariant of spec.h, over every type, cell, chain, node,
 * VC, pin and access rule. Returns the number of violations (each also
 * fails a CHECK).
 */
static inline int
check_spec_invariants(const struct spec *s)
{
	int bad = 0, t, c, l, i, n, j, p, v;
	long long gpus = 0;
	int next = 0;

#define INV(expr) do { if (!(expr)) { bad++; CHECK(expr); } } while (0)
	/* 1. cell types form a forest with consistent levels */
	for (t = 0; t < s->ntypes; t++) {
		const struct spec_celltype *ty = &s->types[t];

		if (ty->is_leaf) {
			INV(ty->child == -1 && ty->nchild == 0 && ty->level == 1);
			INV(ty->leaf == t && ty->leaves == 1);
		} else if (ty->child >= 0) {
			INV(ty->nchild >= 1);
			INV(ty->level == s->types[ty->child].level + 1);
			INV(ty->leaf == s->types[ty->child].leaf);
			INV(ty->leaves == ty->nchild * s->types[ty->child].leaves);
		}
		INV(spec_find_type(s, ty->name) == t);
	}
	/* 3. chains one after the other, top level first, per level */
	for (c = 0; c < s->nchains; c++) {
		const struct spec_chain *ch = &s->chains[c];
		int nodelevels = 0;

		INV(ch->levels == s->types[ch->top_type].level);
		INV(ch->level_type[ch->levels] == ch->top_type);
		INV(ch->leaf_type == s->types[ch->top_type].leaf);
		for (l = ch->levels; l >= 1; l--) {
			INV(ch->level_first[l] == next);
			next += ch->level_count[l];
			if (s->types[ch->level_type[l]].node_level) {
				nodelevels++;
				INV(ch->node_level == l);
			}
			if (l > 1)
				INV(s->types[ch->level_type[l]].child ==
				    ch->level_type[l - 1]);
		}
		INV(nodelevels == 1);
		gpus += ch->level_count[1];
		INV(spec_find_chain(s, s->types[ch->top_type].name) == c);
	}
	INV(next == s->ncells);
	INV(gpus == s->gpus);
	/* 2, 3, 4: every cell */
	for (i = 0; i < s->ncells; i++) {
		const struct spec_cell *cell = &s->cells[i];
		const struct spec_chain *ch = &s->chains[cell->chain];
		int k = i - ch->level_first[cell->level];

		INV(cell->level >= 1 && cell->level <= ch->levels);
		INV(k >= 0 && k < ch->level_count[cell->level]);
		INV(cell->type == ch->level_type[cell->level]);
		INV(cell->nchild == s->types[cell->type].nchild);
		INV(cell->addr != NULL && cell->addr >= s->arena &&
		    cell->addr < s->arena + s->arena_len + 1);
		INV(cell->loc.line >= 1);
		if (cell->level == ch->levels)
			INV(cell->parent == -1);
		else
			INV(cell->parent >= 0 && s->cells[cell->parent].level ==
			    cell->level + 1);
		if (cell->level == 1)
			INV(cell->first_child == -1);
		else {
			/* breadth-first: the k-th cell's children follow the
			 * (k-1)-th's, contiguously */
			INV(cell->first_child == ch->level_first[cell->level - 1] +
			    k * cell->nchild);
			for (j = 0; j < cell->nchild; j++)
				INV(s->cells[cell->first_child + j].parent == i);
		}
		if (cell->level > ch->node_level)
			INV(cell->node == -1);
		else if (cell->level == ch->node_level) {
			INV(cell->node >= 0 && cell->node < s->nnodes);
			if (cell->node >= 0)
				INV(strcmp(s->nodes[cell->node].name, cell->addr) == 0);
		} else
			INV(cell->node == s->cells[cell->parent].node);
		if (cell->pin >= 0)
			INV(cell->pin < s->npins && s->pins[cell->pin].cell == i);
	}
	/* 4, 5: nodes; one cell per chain; distinct leaf addresses per node */
	for (n = 0; n < s->nnodes; n++) {
		const struct spec_node *nd = &s->nodes[n];
		const char **leaves = NULL;
		size_t nl = 0;

		INV(nd->ncells >= 1);
		INV(spec_find_node(s, nd->name) == n);
		for (j = 0; j < nd->ncells; j++) {
			const struct spec_cell *cell = &s->cells[nd->cells[j]];
			const struct spec_chain *ch = &s->chains[cell->chain];
			int per = ch->level_count[1] / ch->level_count[ch->node_level];
			int first = ch->level_first[1] +
			    (nd->cells[j] - ch->level_first[ch->node_level]) * per;
			int q;

			INV(cell->level == ch->node_level && cell->node == n);
			for (q = 0; q < j; q++)
				INV(s->cells[nd->cells[q]].chain != cell->chain);
			leaves = realloc(leaves, (nl + (size_t)per) * sizeof *leaves);
			for (q = 0; q < per; q++) {
				INV(s->cells[first + q].node == n);
				leaves[nl++] = s->cells[first + q].addr;
			}
		}
		qsort(leaves, nl, sizeof *leaves, cmp_str_ptr);
		for (j = 1; j < (int)nl; j++)
			INV(strcmp(leaves[j - 1], leaves[j]) != 0);
		free(leaves);
	}
	/* 7. pins */
	for (p = 0; p < s->npins; p++) {
		INV(s->pins[p].cell >= 0 && s->pins[p].cell < s->ncells);
		INV(s->cells[s->pins[p].cell].pin == p);
		INV(spec_find_pin(s, s->pins[p].id) == p);
		if (s->pins[p].vc >= 0) {
			const struct spec_vc *vc = &s->vcs[s->pins[p].vc];
			int found = 0;

			for (j = 0; j < vc->npins; j++)
				found += vc->pins[j] == p;
			INV(found == 1);
		}
	}
	for (v = 0; v < s->nvcs; v++) {
		INV(spec_find_vc(s, s->vcs[v].name) == v);
		for (j = 0; j < s->vcs[v].ncells; j++) {
			const struct spec_vcell *vc = &s->vcs[v].cells[j];

			INV(vc->number >= 1);
			INV(vc->chain >= 0 && vc->chain < s->nchains);
			INV(s->chains[vc->chain].level_type[vc->level] == vc->type);
		}
		for (j = 0; j < s->vcs[v].npins; j++)
			INV(s->pins[s->vcs[v].pins[j]].vc == v);
	}
	/* 9. access: a rule per VC when given; valid names, once per list */
	if (!s->access.given)
		INV(s->access.vcs == NULL && s->access.admins.nusers == 0 &&
		    s->access.admins.ngroups == 0 && s->access.socket_group == NULL);
	else
		INV(s->access.vcs != NULL);
	bad += check_access_rule(&s->access.admins);
	for (v = 0; s->access.vcs != NULL && v < s->nvcs; v++)
		bad += check_access_rule(&s->access.vcs[v]);
	if (s->access.socket_group != NULL)
		INV(access_name_ok(s->access.socket_group));
#undef INV
	return bad;
}

#endif
