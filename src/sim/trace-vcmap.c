/*
 * trace-vcmap.c — a trace onto a spec: trace_to_jobs (rules in trace.h).
 * Each trace VC is resolved once, through the vcmap ("a=b,*=x"), the spec
 * VC of the same name or the "*" entry, and each job gets its gang shape
 * from what its VC holds in each chain. The reader (trace.c) knows
 * nothing of specs; this file is where traces meet them, before the
 * emulator's replay hands the jobs to the scheduler.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/strmap.h"
#include "core/xmalloc.h"
#include "job/model-class.h"
#include "sim/trace.h"

/* What the VC holds in one chain, for the gang shape. */
struct vc_chain {
	int		 chain;
	int		 node_level;
	long long	 size[SPEC_MAX_LEVELS + 1];	/* leaves of a level-l cell */
	long long	 cap[SPEC_MAX_LEVELS + 1];	/* level-l cells the VC's cells hold */
};

struct vc_shape {
	struct vc_chain	*ch;
	int		 nch;
	long long	 most;		/* leaves in its largest chain */
};

static void
vc_shape_init(const struct spec *s, int vc, struct vc_shape *v)
{
	int c, l, hi, n;

	/* a VC with no cells (a tenant without quota) runs its jobs only
	   opportunistically, anywhere: they take the cluster's shape */
	bool none = s->vcs[vc].ncells == 0 && s->vcs[vc].npins == 0;

	memset(v, 0, sizeof *v);
	v->ch = xcalloc((size_t)s->nchains + 1, sizeof *v->ch);
	for (c = 0; c < s->nchains; c++) {
		struct vc_chain *x = &v->ch[v->nch];
		const struct spec_chain *sc = &s->chains[c];
		bool any = false;

		x->chain = c;
		x->node_level = sc->node_level;
		for (l = 1; l <= sc->levels; l++) {
			x->size[l] = spec_units(s, c, l, 1);
			for (hi = l; hi <= sc->levels; hi++) {
				if (none)
					n = hi == sc->levels ? sc->level_count[hi] : 0;
				else
					n = spec_vc_cells_at(s, vc, c, hi);
				x->cap[l] += n * spec_units(s, c, hi, l);
				any |= n > 0;
			}
		}
		if (!any)
			continue;
		if (x->cap[1] > v->most)
			v->most = x->cap[1];
		v->nch++;
	}
}

/* Pods x size for g GPUs in one chain; the pod size, or 0 if it cannot fit. */
static int
chain_shape(const struct vc_chain *x, int g, int *pods)
{
	int l, nl = x->node_level;

	if (g > x->cap[1])
		return 0;
	/* rule 1: one pod in the smallest cell that holds it */
	if (g <= x->size[nl])
		for (l = 1; l <= nl; l++)
			if (x->size[l] >= g) {
				if (x->cap[l] > 0) {
					*pods = 1;
					return g;
				}
				break;
			}
	/* rule 2: pods of the largest cell size dividing g that the VC holds */
	for (l = nl; l >= 1; l--)
		if (x->size[l] <= g && g % x->size[l] == 0 &&
		    g / x->size[l] <= x->cap[l]) {
			*pods = (int)(g / x->size[l]);
			return (int)x->size[l];
		}
	return 0;
}

/* The best shape over the VC's chains; 0 if the job can never run. */
static int
vc_job_shape(const struct vc_shape *v, int g, int *pods)
{
	int c, best = 0, p, sz;

	for (c = 0; c < v->nch; c++) {
		sz = chain_shape(&v->ch[c], g, &p);
		if (sz > best) {
			best = sz;
			*pods = p;
		}
	}
	return best;
}

/* A parsed vcmap entry. */
struct vcmap_ent {
	char	*from;		/* trace VC, or "*" */
	int	 to;		/* spec VC, -1 = drop */
};

struct vcmap {
	struct vcmap_ent	*v;
	int			 n;
	size_t			 cap;
	int			 star;		/* index of "*", or -1 */
};

static void
vcmap_release(struct vcmap *m)
{
	int i;

	for (i = 0; i < m->n; i++)
		free(m->v[i].from);
	free(m->v);
	memset(m, 0, sizeof *m);
}

static void
add_vc_names(struct strbuf *sb, const struct spec *s)
{
	int i;

	for (i = 0; i < s->nvcs; i++)
		strbuf_addf(sb, "%s'%s'", i ? ", " : "", s->vcs[i].name);
}

static char *
trimmed(const char *p, const char *e)
{
	while (p < e && isspace((unsigned char)*p))
		p++;
	while (e > p && isspace((unsigned char)e[-1]))
		e--;
	return xstrndup(p, (size_t)(e - p));
}

static int
vcmap_parse(const char *text, const struct spec *s, struct vcmap *m, char **cause)
{
	const char *p = text, *e, *eq;
	struct strbuf sb = STRBUF_INIT;
	char *to;
	int i;

	memset(m, 0, sizeof *m);
	m->star = -1;
	while (text != NULL && *p != '\0') {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		eq = memchr(p, '=', (size_t)(e - p));
		if (eq == NULL) {
			char *ent = trimmed(p, e);
			if (*ent == '\0' && *e == '\0') {	/* a trailing comma */
				free(ent);
				break;
			}
			*cause = xasprintf("bad --vc-map entry '%s': expected TRACE_VC=SPEC_VC, "
			    "*=SPEC_VC or *=-", ent);
			free(ent);
			goto fail;
		}
		XGROW(m->v, m->cap, (size_t)m->n + 1);
		m->v[m->n].from = trimmed(p, eq);
		to = trimmed(eq + 1, e);
		m->n++;
		if (*m->v[m->n - 1].from == '\0' || *to == '\0') {
			*cause = xasprintf("bad --vc-map entry '%.*s': empty VC name", (int)(e - p), p);
			free(to);
			goto fail;
		}
		for (i = 0; i < m->n - 1; i++)
			if (strcmp(m->v[i].from, m->v[m->n - 1].from) == 0) {
				*cause = xasprintf("--vc-map maps '%s' twice", m->v[i].from);
				free(to);
				goto fail;
			}
		m->v[m->n - 1].to = strcmp(to, "-") == 0 ? -1 : spec_find_vc(s, to);
		if (m->v[m->n - 1].to < 0 && strcmp(to, "-") != 0) {
			add_vc_names(&sb, s);
			*cause = xasprintf("--vc-map entry '%s=%s': spec '%s' has no VC '%s' "
			    "(VCs: %s)", m->v[m->n - 1].from, to, s->path, to,
			    s->nvcs ? sb.buf : "none");
			free(to);
			goto fail;
		}
		free(to);
		if (strcmp(m->v[m->n - 1].from, "*") == 0)
			m->star = m->n - 1;
		p = *e != '\0' ? e + 1 : e;
	}
	strbuf_release(&sb);
	return 0;
fail:
	strbuf_release(&sb);
	vcmap_release(m);
	return -1;
}

#define VC_UNMATCHED	(-2)

/* The spec VC (>= 0), -1 (drop) or VC_UNMATCHED for one trace VC. */
static int
vcmap_resolve(const struct vcmap *m, const struct spec *s, const char *vc)
{
	int i, v;

	if (vc[0] != '\0')
		for (i = 0; i < m->n; i++)
			if (strcmp(m->v[i].from, vc) == 0)
				return m->v[i].to;
	if (vc[0] != '\0' && (v = spec_find_vc(s, vc)) >= 0)
		return v;
	if (m->star >= 0)
		return m->v[m->star].to;
	if (vc[0] == '\0' && s->nvcs == 1)
		return 0;
	return VC_UNMATCHED;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The error for trace VCs that match nothing (names sorted, at most 20). */
static char *
unmatched_error(const struct trace *t, const struct spec *s, const char **names, int n)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	if (s->nvcs == 0)
		return xasprintf("spec '%s' has no virtual clusters: a trace's jobs need one",
		    s->path);
	if (n == 1 && names[0][0] == '\0') {
		strbuf_addf(&sb, "trace '%s' names no VCs and spec '%s' has %d (", t->path,
		    s->path, s->nvcs);
		add_vc_names(&sb, s);
		strbuf_addf(&sb, "); choose one with --vc-map '*=%s'", s->vcs[0].name);
		return strbuf_detach(&sb, NULL);
	}
	qsort(names, (size_t)n, sizeof *names, cmp_str);
	strbuf_addf(&sb, "trace VC%s ", n == 1 ? "" : "s");
	for (i = 0; i < n && i < 20; i++)
		strbuf_addf(&sb, "%s'%s'", i ? ", " : "", names[i][0] ? names[i] : "(none)");
	if (n > 20)
		strbuf_addf(&sb, " and %d more", n - 20);
	strbuf_addf(&sb, " match%s no VC of spec '%s' (", n == 1 ? "es" : "", s->path);
	add_vc_names(&sb, s);
	strbuf_addf(&sb, "); map %s with --vc-map ('%s=%s', or '*=-' to drop %s)",
	    n == 1 ? "it" : "them", names[0][0] ? names[0] : "*", s->vcs[0].name,
	    n == 1 ? "its jobs" : "their jobs");
	return strbuf_detach(&sb, NULL);
}

/* Resolve every distinct trace VC once: vcidx[i] for job i. */
static int
resolve_vcs(const struct trace *t, const struct spec *s, const struct vcmap *m,
    int *vcidx, char **cause)
{
	/* trace VC -> its resolution + 2 (map values are >= 0) */
	struct strmap st = STRMAP_INIT(STRMAP_BORROW);
	const char **bad = NULL;
	size_t cap = 0;
	int i, v, nbad = 0;

	for (i = 0; i < t->njobs; i++) {
		const char *name = t->jobs[i].vc;
		int known = strmap_get(&st, name);

		if (known >= 0)
			v = known - 2;
		else {
			v = vcmap_resolve(m, s, name);
			strmap_put(&st, name, v + 2);
			if (v == VC_UNMATCHED) {
				XGROW(bad, cap, (size_t)nbad + 1);
				bad[nbad++] = name;
			}
		}
		vcidx[i] = v;
	}
	strmap_release(&st);
	if (nbad > 0) {
		*cause = unmatched_error(t, s, bad, nbad);
		free(bad);
		return -1;
	}
	return 0;
}

static char *
too_big_error(const struct trace *t, const struct trace_job *tj, const struct spec *s,
    int vc, long long most)
{
	char where[32] = "";

	if (tj->line > 0)
		bufprintf(where, sizeof where, ", line %d", tj->line);
	return xasprintf("job '%s' (%s%s) asks for %d gpus; vc '%s' of spec '%s' holds "
	    "%lld in its largest chain, so it can never run (--skip-too-big drops such jobs)",
	    tj->name, t->path ? t->path : "trace", where, tj->gpus, s->vcs[vc].name,
	    s->path, most);
}

int
trace_to_jobs(const struct trace *t, const struct spec *s, const char *vcmap, uint64_t seed,
    bool skip_too_big, struct job **jobsp, int *njobsp, int *skippedp, int *droppedp,
    char **cause)
{
	struct vcmap m;
	struct vc_shape *shapes;
	struct job *jobs = NULL;
	int *vcidx, i, n = 0, skipped = 0, dropped = 0, pods = 1, size, rc = -1;

	*jobsp = NULL;
	*njobsp = 0;
	if (vcmap_parse(vcmap, s, &m, cause) < 0)
		return -1;
	vcidx = xcalloc((size_t)t->njobs + 1, sizeof *vcidx);
	shapes = xcalloc((size_t)s->nvcs + 1, sizeof *shapes);
	if (resolve_vcs(t, s, &m, vcidx, cause) < 0)
		goto out;
	for (i = 0; i < s->nvcs; i++)
		vc_shape_init(s, i, &shapes[i]);
	if (t->njobs > 0)
		jobs = xcalloc((size_t)t->njobs, sizeof *jobs);
	for (i = 0; i < t->njobs; i++) {
		const struct trace_job *tj = &t->jobs[i];
		struct job *j;

		if (vcidx[i] < 0) {
			dropped++;
			continue;
		}
		size = vc_job_shape(&shapes[vcidx[i]], tj->gpus, &pods);
		if (size == 0) {
			if (skip_too_big) {
				skipped++;
				continue;
			}
			*cause = too_big_error(t, tj, s, vcidx[i], shapes[vcidx[i]].most);
			goto out;
		}
		j = &jobs[n];
		job_init(j, n, tj->name, vcidx[i], tj->submit);
		job_set_shape(j, pods, size);
		j->duration = tj->duration;
		j->model = tj->model >= 0 ? tj->model : model_pick(model_hash(tj->name, seed));
		if (tj->priority > 0)
			j->priority = tj->priority;
		if (tj->weight > 0)
			j->weight = tj->weight;
		if (tj->klass > 0) {
			j->klass = (enum job_class)(tj->klass - 1);
			j->class_given = true;
		}
		if (tj->affinity > 0) {
			j->soft_affinity = tj->affinity == 2;
			j->affinity_given = true;
		}
		if (tj->gpus_max > size * pods) {
			j->elastic_min = size * pods;
			j->elastic_max = tj->gpus_max;
		}
		n++;
	}
	if (n == 0) {
		free(jobs);
		jobs = NULL;
	}
	*jobsp = jobs;
	*njobsp = n;
	jobs = NULL;
	rc = 0;
out:
	if (skippedp != NULL)
		*skippedp = skipped;
	if (droppedp != NULL)
		*droppedp = dropped;
	free(jobs);
	for (i = 0; i < s->nvcs; i++)
		free(shapes[i].ch);
	free(shapes);
	free(vcidx);
	vcmap_release(&m);
	return rc;
}
