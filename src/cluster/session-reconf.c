/*
 * session-reconf.c — the session's run moves to a new spec with its jobs
 * (see session-reconf.h). The decisions are job/reconf.c's; this file
 * gathers the jobs from the store and their placements from the live
 * engine, records what reconf_apply decided in one transaction, and only
 * then lets the session switch engines.
 *
 * Events and spec indices: a job's events carry VC and cell indices of
 * the spec the run was on when they were written. So the cancellations
 * (VCs of the old spec) come first, then the reconfig event about no job
 * whose seq closes the old spec's stretch (store_run_set_spec), then the
 * downgrades, requeues and kept jobs, whose indices are the new spec's.
 * Finished jobs are renumbered into the new spec's VCs too (-1 when their
 * VC is gone: their events still name it).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/exit.h"
#include "cluster/session-log.h"
#include "cluster/session-reconf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"
#include "store/store.h"

/*
 * A test hook: CELLAR_CRASH_AT=POINT kills the process with SIGKILL at
 * that point, so the crash tests can stop a reconfiguration exactly before
 * ("reconf-commit") or after ("reconf-switch") its commit.
 */
static void
crash_point(const char *name)
{
	const char *at = getenv("CELLAR_CRASH_AT");

	if (at != NULL && strcmp(at, name) == 0)
		raise(SIGKILL);
}

void
session_reconf_release(struct session_reconf *r)
{
	free(r->items);
	memset(r, 0, sizeof *r);
}

bool
session_same_spec(const struct session *s, const struct spec *spec,
    enum engine_mode mode)
{
	return s->spec != NULL && s->mode == mode &&
	    s->spec->text_len == spec->text_len &&
	    memcmp(s->spec->text, spec->text, spec->text_len) == 0;
}

/* The run's jobs, as stored. */
struct jobs {
	struct job	*v;
	size_t		 n, cap;
};

static int
collect(void *arg, const struct store_job *sj)
{
	struct jobs *js = arg;

	XGROW(js->v, js->cap, js->n + 1);
	js->v[js->n++] = sj->job;
	return 0;
}

static int
collect_bad(void *arg, const char *node, bool bad, double since)
{
	(void)since;
	if (bad)
		strvec_push(arg, node);
	return 0;
}

static int
append(struct session *s, const struct rec *r, int64_t *seq, char **cause)
{
	return store_event_append(s->store, s->run, r, seq, cause) == 0 ? 0 : -1;
}

/* The placement of job j in engine e, for people and for recovery. */
static int
put_placement(struct session *s, const struct spec *spec, struct engine *e,
    const struct job *j, char **cause)
{
	struct engine_placement pl;
	char *nodes, *gpus;
	int rc;

	if (!job_holds_cells(j) || !engine_job_placement(e, j->engine_id, &pl))
		return store_placement_delete(s->store, s->run, j->id, cause) == 0 ?
		    0 : -1;
	nodes = session_leaf_nodes(spec, pl.leaves, pl.nleaves);
	gpus = session_leaf_gpus(spec, pl.leaves, pl.nleaves);
	rc = store_placement_put(s->store, s->run, j->id, &pl, nodes, gpus, cause);
	free(nodes);
	free(gpus);
	return rc == 0 ? 0 : -1;
}

static void
add_item(struct session_reconf *out, const struct job *j, const char *vc,
    const char *what, const char *why)
{
	struct session_reconf_item *it;

	out->items = xreallocarray(out->items, (size_t)out->nitems + 1,
	    sizeof *out->items);
	it = &out->items[out->nitems++];
	snprintf(it->job, sizeof it->job, "%s", j->name);
	snprintf(it->vc, sizeof it->vc, "%s", vc);
	snprintf(it->what, sizeof it->what, "%s", what);
	snprintf(it->why, sizeof it->why, "%s", why);
}

void
session_reconf_report(const struct session_reconf *r, struct strbuf *sb)
{
	int i;

	for (i = 0; i < r->nitems; i++)
		strbuf_addf(sb, "%s '%s' (vc '%s'): %s\n", r->items[i].what,
		    r->items[i].job, r->items[i].vc, r->items[i].why);
	if (r->run != 0)
		strbuf_addf(sb, "reconfigured session run %lld: %d kept, %d "
		    "downgraded, %d requeued, %d cancelled\n", (long long)r->run,
		    r->st.kept, r->st.downgraded, r->st.requeued, r->st.cancelled);
}

/*
 * Everything between the lock and the commit: carry the jobs into e,
 * record it all. Returns 0, -1 (store; *cause) or -2 (refused; *cause).
 */
static int
carry_over(struct session *s, const char *label, struct spec *spec,
    struct engine *e, enum engine_mode mode, bool force,
    struct session_reconf *out, char **cause)
{
	const struct spec *from = s->spec;
	struct engine_placement *pls = NULL;
	struct strvec bad = STRVEC_INIT;
	struct store_run run;
	struct jobs js = { 0 };
	struct rec *recs = NULL, r;
	double now = session_now();
	bool *was_final = NULL, *held = NULL;
	int *old_vc = NULL, nrecs = 0, rc = -1, k;
	int64_t upto = 0, spec_id;
	char why[512], detail[REC_DETAIL_MAX];
	size_t i;

	store_run_init(&run);
	if (store_run_get(s->store, s->run, &run, cause) != 0 ||
	    store_job_load(s->store, s->run, collect, &js, cause) != 0 ||
	    store_health_load(s->store, s->run, collect_bad, &bad, cause) != 0)
		goto out;
	pls = xcalloc(js.n + 1, sizeof *pls);
	was_final = xcalloc(js.n + 1, sizeof *was_final);
	held = xcalloc(js.n + 1, sizeof *held);
	old_vc = xcalloc(js.n + 1, sizeof *old_vc);
	for (i = 0; i < js.n; i++) {
		struct job *j = &js.v[i];

		old_vc[i] = j->vc;
		/* A stored job outside the spec's VCs cannot be carried over. */
		if (!job_is_final(j) && (j->vc < 0 || j->vc >= from->nvcs)) {
			job_apply(j, JOB_EV_CANCEL, now, why, sizeof why);
			j->engine_id = -1;
			add_item(out, j, "-", "cancelled", "its VC is not in the spec");
			out->st.cancelled++;
			held[i] = true;		/* its placement goes */
		}
		was_final[i] = job_is_final(j);
		held[i] = held[i] || job_holds_cells(j);
		/* The live engine says where a job runs (its placement pointers
		   stay valid: the old engine is not changed here). */
		if (job_holds_cells(j) &&
		    (!engine_job_placement(s->engine, j->engine_id, &pls[i]) ||
		    strcmp(pls[i].name, j->name) != 0))
			memset(&pls[i], 0, sizeof pls[i]);
	}
	if (reconf_apply(from, e, js.v, (int)js.n, pls, force, now, &recs, &nrecs,
	    &out->st, why, sizeof why) != 0) {
		*cause = xstrdup(why);
		rc = -2;
		goto out;
	}
	/* Bad nodes stay bad where the node still exists (after the jobs:
	   the order of a recovery). */
	for (i = 0; i < bad.n; i++)
		if (spec_find_node(spec, bad.v[i]) >= 0)
			engine_node_set_bad(e, bad.v[i], true, NULL, 0);
		else if (store_health_delete(s->store, s->run, bad.v[i], cause) != 0)
			goto out;

	/* Jobs: every one renumbered into the new spec's VCs (as reconf_apply
	   did for the live ones; -1 when gone), placements as they now are. */
	for (i = 0; i < js.n; i++) {
		struct job *j = &js.v[i];

		j->vc = old_vc[i] >= 0 && old_vc[i] < from->nvcs ?
		    spec_find_vc(spec, from->vcs[old_vc[i]].name) : -1;
		if (store_job_put(s->store, s->run, j, cause) != 0)
			goto out;
		if (held[i] && put_placement(s, spec, e, j, cause) != 0)
			goto out;
	}
	/* Events: cancellations (old VCs), the reconfiguration, the rest. */
	for (k = 0; k < nrecs; k++)
		if (recs[k].kind == REC_CANCEL && append(s, &recs[k], NULL, cause) != 0)
			goto out;
	bufprintf(detail, sizeof detail, "%s (%s): %d kept, %d downgraded, %d "
	    "requeued, %d cancelled", label, engine_mode_name(mode), out->st.kept,
	    out->st.downgraded, out->st.requeued, out->st.cancelled);
	rec_init(&r, now, REC_RECONFIG, -1, -1);
	bufprintf(r.detail, sizeof r.detail, "%s", detail);
	if (append(s, &r, &upto, cause) != 0 ||
	    store_spec_put(s->store, spec, &spec_id, cause) != 0)
		goto out;
	if ((spec_id != run.spec || strcmp(run.mode, engine_mode_name(mode)) != 0) &&
	    store_run_set_spec(s->store, s->run, spec_id, engine_mode_name(mode),
	    upto, cause) != 0)
		goto out;
	for (k = 0; k < nrecs; k++)
		if (recs[k].kind != REC_CANCEL && append(s, &recs[k], NULL, cause) != 0)
			goto out;
	for (i = 0; i < js.n; i++) {
		const struct job *j = &js.v[i];
		const char *vc = old_vc[i] >= 0 && old_vc[i] < from->nvcs ?
		    from->vcs[old_vc[i]].name : "-";
		const char *what = NULL, *w = NULL;

		if (was_final[i])
			continue;
		for (k = 0; k < nrecs && what == NULL; k++)
			if (recs[k].job == j->id) {
				w = recs[k].detail;
				what = recs[k].kind == REC_DOWNGRADE ? "downgraded" :
				    recs[k].kind == REC_CANCEL ? "cancelled" : "requeued";
			}
		if (what == NULL && job_holds_cells(j)) {
			what = "kept";
			w = "runs on where it was";
			rec_init(&r, now, REC_RECONFIG, j->id, j->vc);
			bufprintf(r.detail, sizeof r.detail, "kept: runs on where it was");
			if (append(s, &r, NULL, cause) != 0)
				goto out;
		} else if (what == NULL) {
			what = "pending";
			w = "waits as before";
		}
		add_item(out, j, vc, what, w);
	}
	rc = 0;
out:
	store_run_release(&run);
	strvec_release(&bad);
	free(recs);
	free(pls);
	free(was_final);
	free(held);
	free(old_vc);
	free(js.v);
	return rc;
}

int
session_reconfigure(struct session *s, const char *path, enum engine_mode mode,
    unsigned flags, struct strbuf *diags, struct session_reconf *out,
    int *status, char **cause)
{
	const char *label = path != NULL ? path : SESSION_DEFAULT_SPEC;
	struct spec *spec;
	struct engine *e;
	char *keep = NULL;
	bool created = false;
	size_t said;
	int rc;

	memset(out, 0, sizeof *out);
	if (s->engine == NULL && session_log_recover(s, diags, cause) < 0) {
		*status = CMD_EXIT_STORE;
		return -1;
	}
	said = diags->len;
	if (session_build(path, mode, diags, &spec, &e, cause) != 0) {
		*status = CMD_EXIT_SPEC;
		return -1;
	}
	if (s->engine == NULL || (s->run == 0 && s->resume_run == 0)) {
		session_install(s, path, spec, e, mode);	/* nothing recorded */
		return 0;
	}
	out->changed = !session_same_spec(s, spec, mode);
	if (!out->changed && (flags & SESSION_RECONF_IF_CHANGED)) {
		/* the current spec again: its warnings and notes were said
		   when it was made current, not again with every command */
		strbuf_setlen(diags, said);
		engine_free(e);
		spec_free(spec);
		return 0;
	}
	if (path != NULL)
		keep = xstrdup(path);	/* path may be the session's own */
	if (session_log_begin(s, &created, cause) != 0) {
		*status = CMD_EXIT_STORE;
		goto fail;
	}
	out->run = s->run;
	rc = carry_over(s, label, spec, e, mode, flags & SESSION_RECONF_FORCE, out,
	    cause);
	if (rc == 0)
		rc = session_log_engine(s, e, cause);
	if (rc == 0 && store_run_touch(s->store, s->run, session_now(), cause) != 0)
		rc = -1;
	if (rc == 0) {
		crash_point("reconf-commit");
		rc = store_commit(s->store, cause);
	}
	if (rc != 0) {
		session_log_rollback(s, created);
		*status = rc == -2 ? CMD_EXIT_FAIL : CMD_EXIT_STORE;
		goto fail;
	}
	crash_point("reconf-switch");
	session_install(s, keep, spec, e, mode);
	free(keep);
	return 0;
fail:
	free(keep);
	engine_free(e);
	spec_free(spec);
	session_reconf_release(out);
	return -1;
}
