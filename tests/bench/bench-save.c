/*
 * bench-save.c — what crash recovery costs on the full Philly trace
 * (specs/philly.yaml, las, hived): the run is cut where a tenth, a
 * quarter, half, three quarters and all of the jobs have arrived; at each
 * cut it prints the per-run state (bytes, stored events), the jobs that
 * changed since the last cut and their encoded state, the running jobs,
 * the journal entries, and how long saving everything and restoring from
 * it take. The restored emulator then goes on, so the last line also says
 * that the end result is the uninterrupted one (same report).
 *
 *   save philly cut=N t=T run_bytes=.. stored_events=.. heap=.. dirty=..
 *        job_bytes=.. running=.. journal=.. save_ms=.. restore_ms=..
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "policy/policy.h"
#include "sim/replay.h"
#include "spec/spec.h"

int
main(void)
{
	static const double frac[] = { 0.10, 0.25, 0.50, 0.75, 1.0 };
	const char *dir = bench_traces_dir();
	char path[4096], *cause = NULL;
	struct spec *s;
	struct replay r;
	struct replay_cfg c;
	struct policy_params pp;
	struct emu_params ep;
	struct policy *pol;
	struct emu *m;
	struct job *jobs, *saved;
	struct strbuf run = STRBUF_INIT, *jb;
	struct emu_blob *blobs;
	struct engine_placement *pl;
	struct emu_report a, b;
	struct emu_saved sv;
	const struct emu_sample *ser;
	struct emu_sample *series;
	int i, k, n, nd, nj, npl, nser;
	size_t jbytes;
	double t0, t1, t2, t3, cut;

	if (dir == NULL) {
		printf("save: no traces found (set CELLAR_TRACES); skipped\n");
		return 0;
	}
	snprintf(path, sizeof path, "%s/philly.csv", dir);
	s = spec_load("specs/philly.yaml", NULL);
	replay_cfg_init(&c);
	c.trace = path;
	c.vcmap = "*=-";
	if (s == NULL || replay_prepare(&r, s, &c, &cause) < 0) {
		fprintf(stderr, "bench-save: %s\n", cause ? cause : "cannot load the spec");
		return 1;
	}
	policy_params_init(&pp);
	emu_params_init(&ep);
	n = r.njobs;
	jobs = xcalloc((size_t)n, sizeof *jobs);
	saved = xcalloc((size_t)n, sizeof *saved);
	jb = xcalloc((size_t)n, sizeof *jb);
	blobs = xcalloc((size_t)n, sizeof *blobs);
	pl = xcalloc((size_t)n, sizeof *pl);

	/* the uninterrupted run, for the final comparison */
	memcpy(jobs, r.jobs, (size_t)n * sizeof *jobs);
	pol = xcalloc(1, sizeof *pol);
	policy_init(pol, policy_find("las"), &pp, &cause);
	m = emu_create(s, ENGINE_HIVED, pol, &ep, jobs, n, &cause);
	emu_run(m, INFINITY, NULL, NULL, &cause);
	emu_report(m, &a);
	emu_free(m);
	policy_release(pol);

	memcpy(jobs, r.jobs, (size_t)n * sizeof *jobs);
	policy_init(pol, policy_find("las"), &pp, &cause);
	m = emu_create(s, ENGINE_HIVED, pol, &ep, jobs, n, &cause);
	for (i = 0; i < n; i++) {
		strbuf_init(&jb[i]);
		emu_job_save(m, i, &jb[i]);
	}
	memcpy(saved, jobs, (size_t)n * sizeof *jobs);
	for (k = 0; k < (int)(sizeof frac / sizeof frac[0]); k++) {
		int idx = (int)(frac[k] * n) - 1;
		const int *d;
		struct job *fresh;
		struct policy *p2;
		struct emu *m2;

		cut = frac[k] < 1 ? r.jobs[idx < 0 ? 0 : idx].submit : INFINITY;
		if (emu_run(m, cut, NULL, NULL, &cause) < 0) {
			fprintf(stderr, "bench-save: %s\n", cause);
			return 1;
		}
		/* save what a store would: changed jobs, placements, the run,
		   the series (placements point into the engine: restore before
		   it goes, as a store's copies would) */
		t0 = bench_now();
		d = emu_dirty(m, &nd);
		for (jbytes = 0, i = 0; i < nd; i++) {
			saved[d[i]] = jobs[d[i]];
			strbuf_reset(&jb[d[i]]);
			emu_job_save(m, d[i], &jb[d[i]]);
			jbytes += jb[d[i]].len;
		}
		for (npl = 0, i = 0; i < n; i++)
			if (emu_job_placement(m, i, &pl[npl]))
				npl++;
		strbuf_reset(&run);
		emu_save(m, &run);
		(void)emu_journal(m, &nj);
		ser = emu_series(m, &nser);
		series = xcalloc((size_t)nser + 1, sizeof *series);
		memcpy(series, ser, (size_t)nser * sizeof *ser);
		t1 = bench_now();
		/* the crash, and back */
		fresh = xcalloc((size_t)n, sizeof *fresh);
		memcpy(fresh, saved, (size_t)n * sizeof *fresh);
		for (i = 0; i < n; i++) {
			blobs[i].data = jb[i].buf;
			blobs[i].len = jb[i].len;
		}
		memset(&sv, 0, sizeof sv);
		sv.placements = pl;
		sv.nplacements = npl;
		sv.job_state = blobs;
		sv.run.data = run.buf;
		sv.run.len = run.len;
		sv.series = series;
		sv.nseries = nser;
		p2 = xcalloc(1, sizeof *p2);
		policy_init(p2, policy_find("las"), &pp, &cause);
		t2 = bench_now();
		m2 = emu_restore(s, ENGINE_HIVED, p2, &ep, fresh, n, &sv, &cause);
		t3 = bench_now();
		if (m2 == NULL) {
			fprintf(stderr, "bench-save: %s\n", cause);
			return 1;
		}
		printf("save philly cut=%d%% t=%.0f run_bytes=%zu dirty=%d job_bytes=%zu "
		    "running=%d journal=%d series=%d save_ms=%.2f restore_ms=%.2f\n",
		    (int)(frac[k] * 100), cut, run.len, nd, jbytes, npl, nj, nser,
		    1e3 * (t1 - t0), 1e3 * (t3 - t2));
		fflush(stdout);
		emu_free(m);
		policy_release(pol);
		free(pol);
		free(jobs);
		free(series);
		m = m2;
		pol = p2;
		jobs = fresh;
	}
	emu_report(m, &b);
	printf("save philly end: jct_avg %.3f vs %.3f uninterrupted, events %lld vs %lld: %s\n",
	    b.all.jct.avg, a.all.jct.avg, b.events, a.events,
	    memcmp(&a.all, &b.all, sizeof a.all) == 0 && a.events == b.events ?
	    "same" : "DIFFERENT");
	emu_report_release(&a);
	emu_report_release(&b);
	emu_free(m);
	policy_release(pol);
	free(pol);
	strbuf_release(&run);
	for (i = 0; i < n; i++)
		strbuf_release(&jb[i]);
	free(jb);
	free(blobs);
	free(pl);
	free(jobs);
	free(saved);
	replay_release(&r);
	spec_free(s);
	return 0;
}
