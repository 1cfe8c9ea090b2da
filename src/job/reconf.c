/*
 * reconf.c — carry running jobs over to a changed spec. See reconf.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "job/reconf.h"

struct out {
	struct rec	*v;
	int		 n;
	size_t		 cap;
};

static void
emit(struct out *o, double now, enum rec_kind k, const struct job *j,
    const char *fmt, const char *arg)
{
	struct rec *r;

	XGROW(o->v, o->cap, (size_t)o->n + 1);
	r = &o->v[o->n++];
	rec_init(r, now, k, j->id, j->vc);
	bufprintf(r->detail, sizeof r->detail, fmt, arg);
}

/* Adoption order: guaranteed first, higher priority first, then by id. */
struct cand {
	int	prio;
	int	job;
};

static int
cmp_adopt(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->job - y->job;
}

/* The job's leaves in the new spec; false (why set) if one is gone. */
static bool
map_leaves(const struct spec *from, const struct spec *to,
    const struct engine_placement *p, int *out, int *chain, char *why, size_t len)
{
	char path[512];
	int i, c;

	*chain = -1;
	for (i = 0; i < p->nleaves; i++) {
		spec_cell_path(from, p->leaves[i], path, sizeof path);
		c = spec_find_cell(to, path);
		if (c < 0 || to->cells[c].level != 1 ||
		    (*chain >= 0 && to->cells[c].chain != *chain) ||
		    strcmp(to->types[to->cells[c].type].name,
		    from->types[from->cells[p->leaves[i]].type].name) != 0) {
			bufprintf(why, len, "GPU '%s' is gone from the new spec", path);
			return false;
		}
		*chain = to->cells[c].chain;
		out[i] = c;
	}
	return true;
}

static void
lose_cells(struct job *j, double now)
{
	char why[256];

	if (job_apply(j, JOB_EV_PREEMPT, now, why, sizeof why) == 0)
		job_apply(j, JOB_EV_REQUEUE, now, why, sizeof why);
	j->engine_id = -1;
	j->opportunistic = false;
}

static int
removed_vcs(const struct spec *from, const struct spec *to, const struct job *jobs,
    int njobs, const int *vcmap, char *why, size_t len)
{
	struct strbuf sb;
	int v, i, n, bad = 0;

	strbuf_init(&sb);
	for (v = 0; v < from->nvcs; v++) {
		if (vcmap[v] >= 0)
			continue;
		for (i = n = 0; i < njobs; i++)
			n += jobs[i].vc == v && !job_is_final(&jobs[i]);
		if (n == 0)
			continue;
		strbuf_addf(&sb, "%s'%s' (%d job%s)", bad++ ? ", " : "",
		    from->vcs[v].name, n, n == 1 ? "" : "s");
	}
	if (bad)
		bufprintf(why, len, "the new spec removes VC%s %s that still ha%s "
		    "jobs; use --force to cancel them", bad > 1 ? "s" : "",
		    sb.buf, bad > 1 ? "ve" : "s");
	strbuf_release(&sb);
	(void)to;
	return bad;
}

int
reconf_apply(const struct spec *from, struct engine *e, struct job *jobs,
    int njobs, const struct engine_placement *placements, bool force,
    double now, struct rec **recs, int *nrecs, struct reconf_stats *st,
    char *why, size_t len)
{
	const struct spec *to = engine_spec(e);
	struct out o = { 0 };
	struct cand *order;
	int *vcmap, *leaves = NULL, n = 0, i, k, chain, id;
	size_t cap = 0;
	char msg[256], w2[256];

	memset(st, 0, sizeof *st);
	vcmap = xcalloc((size_t)from->nvcs + 1, sizeof *vcmap);
	for (i = 0; i < from->nvcs; i++)
		vcmap[i] = spec_find_vc(to, from->vcs[i].name);
	if (!force && removed_vcs(from, to, jobs, njobs, vcmap, why, len) > 0) {
		free(vcmap);
		return -1;
	}
	order = xcalloc((size_t)njobs + 1, sizeof *order);
	for (i = 0; i < njobs; i++) {
		struct job *j = &jobs[i];
		if (job_is_final(j))
			continue;
		if (vcmap[j->vc] < 0) {
			bufprintf(msg, sizeof msg, "VC '%s' removed by reconfiguration",
			    from->vcs[j->vc].name);
			job_apply(j, JOB_EV_CANCEL, now, w2, sizeof w2);
			j->engine_id = -1;
			emit(&o, now, REC_CANCEL, j, "%s", msg);
			st->cancelled++;
			continue;
		}
		j->vc = vcmap[j->vc];
		if (job_holds_cells(j) && placements[i].nleaves > 0) {
			order[n].prio = placements[i].downgraded ? -1 :
			    placements[i].orig_priority;
			order[n++].job = i;
		}
		else if (job_holds_cells(j)) {
			lose_cells(j, now);
			emit(&o, now, REC_REQUEUE, j, "%s", "no placement recorded");
			st->requeued++;
		}
	}
	qsort(order, (size_t)n, sizeof *order, cmp_adopt);
	for (k = 0; k < n; k++) {
		const struct engine_placement *p = &placements[order[k].job];
		struct job *j = &jobs[order[k].job];
		struct engine_req r;
		int pin = p->pin >= 0 ? spec_find_pin(to, from->pins[p->pin].id) : -1;

		XGROW(leaves, cap, (size_t)p->nleaves);
		memset(&r, 0, sizeof r);
		r.name = j->name;
		r.vc = j->vc;
		r.priority = p->downgraded ? -1 : p->orig_priority;
		r.leaf_type = -1;
		r.pin = pin;
		r.lazy = p->lazy;
		r.nmembers = j->nmembers;
		memcpy(r.members, j->members, sizeof r.members);
		if (!map_leaves(from, to, p, leaves, &chain, msg, sizeof msg) ||
		    (p->pin >= 0 && pin < 0)) {
			if (p->pin >= 0 && pin < 0)
				bufprintf(msg, sizeof msg, "pinned cell '%s' is gone",
				    from->pins[p->pin].id);
			lose_cells(j, now);
			emit(&o, now, REC_REQUEUE, j, "%s", msg);
			st->requeued++;
			continue;
		}
		id = engine_adopt(e, &r, chain, p->pod_first, p->npods, leaves,
		    p->nleaves, msg, sizeof msg);
		if (id >= 0) {
			j->engine_id = id;
			j->opportunistic = r.priority < 0;
			st->kept++;
			continue;
		}
		r.priority = ENGINE_PRIO_OPPORTUNISTIC;
		r.pin = -1;
		id = engine_adopt(e, &r, chain, p->pod_first, p->npods, leaves,
		    p->nleaves, w2, sizeof w2);
		if (id >= 0) {
			j->engine_id = id;
			j->opportunistic = true;
			emit(&o, now, REC_DOWNGRADE, j, "reconfiguration: %s", msg);
			st->downgraded++;
			continue;
		}
		lose_cells(j, now);
		emit(&o, now, REC_REQUEUE, j, "reconfiguration: %s", w2);
		st->requeued++;
	}
	free(leaves);
	free(order);
	free(vcmap);
	*recs = o.v;
	*nrecs = o.n;
	return 0;
}
