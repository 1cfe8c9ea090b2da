/*
 * tstore-data.c — the state store's data on an in-memory database: every
 * field of struct job round-trips exactly (doubles bit for bit), placements
 * and blobs, specs stored once per text, runs, node health, time series,
 * the audit log, events with every filter and the per-job history chains,
 * transactions that roll back, db check on a clean store and on planted
 * problems, export -> import -> export giving the same document, and the
 * change numbers a follower reads by, and group commit.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/xmalloc.h"
#include "job/model-class.h"
#include "store/store-int.h"
#include "test.h"

static struct spec *
default_spec(void)
{
	struct spec *s = spec_load_string("specs/default.yaml (embedded)",
	    default_spec_yaml, default_spec_yaml_len, NULL);

	if (s == NULL)
		abort();
	return s;
}

static struct store *
mem_store(void)
{
	struct store *st = NULL;
	char *cause = NULL;

	if (store_open(":memory:", STORE_WRITE, &st, &cause) != 0) {
		fprintf(stderr, "open: %s\n", cause);
		abort();
	}
	return st;
}

/* A run on the default spec. */
static int64_t
new_run(struct store *st, enum store_run_kind kind)
{
	struct spec *s = default_spec();
	struct store_run r;
	char *cause = NULL;
	int64_t spec;

	store_run_init(&r);
	if (store_spec_put(st, s, &spec, &cause) != 0)
		abort();
	r.kind = kind;
	r.spec = spec;
	r.mode = (char *)"hived";
	r.policy = kind == STORE_RUN_REPLAY ? (char *)"las" : NULL;
	r.trace = kind == STORE_RUN_REPLAY ? (char *)"synth:10" : NULL;
	r.params = (char *)"{\"seed\":7}";
	r.seed = 7;
	if (store_run_create(st, &r, &cause) != 0)
		abort();
	spec_free(s);
	return r.id;
}

/* A job with every field set to something unusual. */
static void
odd_job(struct job *j, int id)
{
	char name[32];

	snprintf(name, sizeof name, "job-%d", id);
	job_init(j, id, name, id % 4, 1.0 / 3.0 + id);
	snprintf(j->user, sizeof j->user, "u%d", id);
	j->nmembers = 2;
	j->members[0].pods = 2;
	j->members[0].gpus = 4;
	j->members[1].pods = 1;
	j->members[1].gpus = 8;
	j->gpus = 16;
	j->leaf_type = id % 2 ? -1 : 0;
	j->klass = JOB_AUTO;
	j->soft_affinity = true;
	j->duration = M_PI * 1e4;
	j->model = model_count - 1;
	j->elastic_min = 2;
	j->elastic_max = 16;
	j->state = JOB_PREEMPTED;
	j->reason = JOB_REASON_FRAGMENTED;
	j->state_since = nextafter(100.0, 200.0);
	j->first_start = 0.1;
	j->end = -1;
	j->queued = 1e-300;
	j->attained = 1.7976931348623157e308;
	j->run_time = 5e-324;		/* the smallest denormal */
	j->work_done = 0.0;		/* -0.0 reads back as 0.0: SQLite stores
					   integral reals as integers */
	j->ckpt_work = 12345.678901234567;
	j->lost_work = 0.30000000000000004;
	j->restarts = 3;
	j->preemptions = 4;
	j->suspensions = 5;
	j->opportunistic = true;
	j->engine_id = -1;
}

/* One job of a replay with its emulator state. */
static int
put_emu(struct store *st, int64_t run, const struct job *j, const void *data,
    size_t len, char **cause)
{
	struct store_jobrow r = { j, data, len };

	return store_job_put_many(st, run, &r, 1, cause);
}

static bool
same_double(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

static void
test_job_roundtrip(void)
{
	struct store *st = mem_store();
	struct store_job sj;
	struct job j;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_REPLAY);
	int id;

	odd_job(&j, 5);
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	CHECK(store_job_get(st, run, 5, &sj, &cause) == 0);
	CHECK_STREQ(sj.job.name, "job-5");
	CHECK_STREQ(sj.job.user, "u5");
	CHECK_INTEQ(sj.job.id, 5);
	CHECK_INTEQ(sj.job.vc, 1);
	CHECK(same_double(sj.job.submit, j.submit));
	CHECK_INTEQ(sj.job.nmembers, 2);
	CHECK_INTEQ(sj.job.members[1].gpus, 8);
	CHECK_INTEQ(sj.job.members[0].pods, 2);
	CHECK_INTEQ(sj.job.gpus, 16);
	CHECK_INTEQ(sj.job.leaf_type, -1);
	CHECK_INTEQ(sj.job.klass, JOB_AUTO);
	CHECK(sj.job.soft_affinity);
	CHECK(same_double(sj.job.duration, j.duration));
	CHECK_INTEQ(sj.job.model, model_count - 1);
	CHECK_INTEQ(sj.job.elastic_min, 2);
	CHECK_INTEQ(sj.job.elastic_max, 16);
	CHECK_INTEQ(sj.job.state, JOB_PREEMPTED);
	CHECK_INTEQ(sj.job.reason, JOB_REASON_FRAGMENTED);
	CHECK(same_double(sj.job.state_since, j.state_since));
	CHECK(same_double(sj.job.first_start, j.first_start));
	CHECK(same_double(sj.job.end, j.end));
	CHECK(same_double(sj.job.queued, j.queued));
	CHECK(same_double(sj.job.attained, j.attained));
	CHECK(same_double(sj.job.run_time, j.run_time));
	CHECK(same_double(sj.job.work_done, j.work_done));
	CHECK(same_double(sj.job.ckpt_work, j.ckpt_work));
	CHECK(same_double(sj.job.lost_work, j.lost_work));
	CHECK_INTEQ(sj.job.restarts, 3);
	CHECK_INTEQ(sj.job.preemptions, 4);
	CHECK_INTEQ(sj.job.suspensions, 5);
	CHECK(sj.job.opportunistic);
	CHECK_INTEQ(sj.job.engine_id, -1);
	CHECK(!sj.placed);
	CHECK(sj.blob == NULL);
	/* The whole struct, field for field, is what went in. */
	CHECK(memcmp(&sj.job, &j, sizeof j) == 0);
	store_job_release(&sj);

	/* An update changes fields in place; the name finds it. */
	j.state = JOB_COMPLETED;
	j.end = 1e9 + 0.5;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	CHECK(store_job_find(st, run, "job-5", &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.state, JOB_COMPLETED);
	CHECK(same_double(sj.job.end, 1e9 + 0.5));
	store_job_release(&sj);
	CHECK(store_job_find(st, run, "nope", &sj, &cause) == STORE_NOTFOUND);
	CHECK_STREQ(cause, "no job 'nope' in run 1");
	free(cause);
	cause = NULL;
	CHECK(store_job_next_id(st, run, &id, &cause) == 0);
	CHECK_INTEQ(id, 6);
	store_close(st);
}

static void
test_placement_blob(void)
{
	struct store *st = mem_store();
	int pod_first[] = { 0, 2, 5 }, leaves[] = { 7, 8, 100, -3, 2147483647 };
	int vleaves[] = { 1, 2, 3, 4, 5 };
	struct engine_placement pl = {
		.id = 42, .name = "job-1", .vc = 1, .priority = -1,
		.orig_priority = 10, .lazy = true, .downgraded = true, .chain = 1,
		.pin = 0, .npods = 2, .pod_first = pod_first, .leaves = leaves,
		.vleaves = vleaves, .nleaves = 5,
	};
	unsigned char blob[300];
	struct store_job sj;
	struct job j;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION);
	int i;

	for (i = 0; i < (int)sizeof blob; i++)
		blob[i] = (unsigned char)(i * 7);
	odd_job(&j, 1);
	j.state = JOB_RUNNING;
	j.engine_id = 42;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	CHECK(store_placement_put(st, run, 1, &pl, "r0n[00-01]", "r0n00:0-1 r0n01:0-2",
	    &cause) == 0);
	CHECK(store_job_set_blob(st, run, 1, blob, sizeof blob, &cause) == 0);
	CHECK(store_job_set_blob(st, run, 9, blob, 1, &cause) == STORE_NOTFOUND);
	free(cause);
	cause = NULL;
	CHECK(store_job_get(st, run, 1, &sj, &cause) == 0);
	CHECK(sj.placed);
	CHECK_INTEQ(sj.pl.pl.id, 42);
	CHECK_STREQ(sj.pl.pl.name, "job-1");
	CHECK_INTEQ(sj.pl.pl.priority, -1);
	CHECK_INTEQ(sj.pl.pl.orig_priority, 10);
	CHECK(sj.pl.pl.lazy && sj.pl.pl.downgraded);
	CHECK_INTEQ(sj.pl.pl.chain, 1);
	CHECK_INTEQ(sj.pl.pl.pin, 0);
	CHECK_INTEQ(sj.pl.pl.npods, 2);
	CHECK_INTEQ(sj.pl.pl.nleaves, 5);
	CHECK(memcmp(sj.pl.pl.pod_first, pod_first, sizeof pod_first) == 0);
	CHECK(memcmp(sj.pl.pl.leaves, leaves, sizeof leaves) == 0);
	CHECK(sj.pl.pl.vleaves != NULL &&
	    memcmp(sj.pl.pl.vleaves, vleaves, sizeof vleaves) == 0);
	CHECK_STREQ(sj.pl.nodes, "r0n[00-01]");
	CHECK_STREQ(sj.pl.gpus, "r0n00:0-1 r0n01:0-2");
	CHECK_INTEQ(sj.blob_len, sizeof blob);
	CHECK(sj.blob != NULL && memcmp(sj.blob, blob, sizeof blob) == 0);
	store_job_release(&sj);

	/* No virtual leaves (opportunistic), no pin. */
	pl.vleaves = NULL;
	pl.pin = -1;
	CHECK(store_placement_put(st, run, 1, &pl, "x", "y", &cause) == 0);
	CHECK(store_job_get(st, run, 1, &sj, &cause) == 0);
	CHECK(sj.pl.pl.vleaves == NULL);
	CHECK_INTEQ(sj.pl.pl.pin, -1);
	store_job_release(&sj);
	CHECK(store_placement_delete(st, run, 1, &cause) == 0);
	CHECK(store_job_get(st, run, 1, &sj, &cause) == 0);
	CHECK(!sj.placed);
	store_job_release(&sj);

	/* Row and BLOB in one upsert: a new job, an update that changes both
	   (the BLOB of job 1 stays), and a NULL that clears it. */
	odd_job(&j, 2);
	CHECK(put_emu(st, run, &j, blob + 10, 20, &cause) == 0);
	CHECK(store_job_get(st, run, 2, &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.state, j.state);
	CHECK(sj.blob_len == 20 && memcmp(sj.blob, blob + 10, 20) == 0);
	store_job_release(&sj);
	j.state = JOB_COMPLETED;
	CHECK(put_emu(st, run, &j, blob, 7, &cause) == 0);
	CHECK(store_job_get(st, run, 2, &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.state, JOB_COMPLETED);
	CHECK(sj.blob_len == 7 && memcmp(sj.blob, blob, 7) == 0);
	store_job_release(&sj);
	CHECK(store_job_get(st, run, 1, &sj, &cause) == 0);
	CHECK(sj.blob_len == sizeof blob && memcmp(sj.blob, blob, sizeof blob) == 0);
	store_job_release(&sj);
	CHECK(put_emu(st, run, &j, NULL, 0, &cause) == 0);
	CHECK(store_job_get(st, run, 2, &sj, &cause) == 0);
	CHECK(sj.blob == NULL && sj.blob_len == 0);
	store_job_release(&sj);

	/* The run's blob. */
	{
		void *data;
		size_t len;

		CHECK(store_run_set_blob(st, run, "\0abc", 4, &cause) == 0);
		CHECK(store_run_get_blob(st, run, &data, &len, &cause) == 0);
		CHECK(len == 4 && memcmp(data, "\0abc", 4) == 0);
		free(data);
	}
	store_close(st);
}

static void
test_specs_runs(void)
{
	struct store *st = mem_store();
	struct spec *s = default_spec(), *s2;
	struct store_spec sp;
	struct store_run r;
	char *cause = NULL, *text;
	int64_t a, b, c, last;
	int n;

	CHECK(store_spec_put(st, s, &a, &cause) == 0);
	CHECK(store_spec_put(st, s, &b, &cause) == 0);
	CHECK_INTEQ(a, b);		/* the same text: stored once */
	text = xasprintf("%s\n# changed\n", default_spec_yaml);
	s2 = spec_load_string("other.yaml", text, strlen(text), NULL);
	CHECK(s2 != NULL);
	CHECK(store_spec_put(st, s2, &c, &cause) == 0);
	CHECK(c != a);
	CHECK(store_spec_get(st, a, &sp, &cause) == 0);
	CHECK_INTEQ(sp.text_len, s->text_len);
	CHECK(memcmp(sp.text, s->text, s->text_len) == 0);
	CHECK_INTEQ(strlen(sp.hash), 16);
	CHECK_INTEQ(sp.nvcs, s->nvcs);
	CHECK_STREQ(sp.vcs[0].name, s->vcs[0].name);
	CHECK_INTEQ(sp.vcs[0].gpus, 64);	/* research: a rack of 64 GPUs */
	store_spec_release(&sp);
	CHECK(store_spec_get(st, 99, &sp, &cause) == STORE_NOTFOUND);
	free(cause);
	cause = NULL;

	a = new_run(st, STORE_RUN_SESSION);
	b = new_run(st, STORE_RUN_REPLAY);
	c = new_run(st, STORE_RUN_SESSION);
	CHECK(store_run_last(st, -1, &last, &cause) == 0 && last == c);
	CHECK(store_run_last(st, STORE_RUN_REPLAY, &last, &cause) == 0 && last == b);
	CHECK(store_run_interrupt_sessions(st, c, &n, &cause) == 0);
	CHECK_INTEQ(n, 1);
	CHECK(store_run_get(st, a, &r, &cause) == 0);
	CHECK_INTEQ(r.state, STORE_RUN_INTERRUPTED);
	CHECK_STREQ(r.user, store_user());
	store_run_release(&r);
	CHECK(store_run_set_state(st, b, STORE_RUN_DONE, 1234.5, &cause) == 0);
	CHECK(store_run_set_report(st, b, "{\"x\":1}", &cause) == 0);
	CHECK(store_run_get(st, b, &r, &cause) == 0);
	CHECK_INTEQ(r.kind, STORE_RUN_REPLAY);
	CHECK_INTEQ(r.state, STORE_RUN_DONE);
	CHECK(r.now == 1234.5);
	CHECK_STREQ(r.report, "{\"x\":1}");
	CHECK_STREQ(r.policy, "las");
	CHECK_STREQ(r.trace, "synth:10");
	CHECK_STREQ(r.params, "{\"seed\":7}");
	CHECK_INTEQ(r.seed, 7);
	CHECK(r.created > 1e9 && r.updated >= r.created);
	CHECK_INTEQ(r.njobs, 0);
	CHECK_INTEQ(r.nevents, 0);
	store_run_release(&r);
	CHECK(store_run_get(st, 77, &r, &cause) == STORE_NOTFOUND);
	CHECK(strstr(cause, "no run 77") != NULL);
	free(cause);
	cause = NULL;
	CHECK(store_run_set_state(st, 77, STORE_RUN_DONE, 0, &cause) == STORE_NOTFOUND);
	free(cause);
	free(text);
	spec_free(s);
	spec_free(s2);
	store_close(st);
}

static int
count_cb(void *arg, const struct store_event *ev)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, "%lld:%s:%s:%s ", (long long)ev->seq, rec_kind_name(ev->rec.kind),
	    ev->job_name ? ev->job_name : "-", ev->vc_name ? ev->vc_name : "-");
	return 0;
}

static const char *
query(struct store *st, const struct store_event_filter *f)
{
	static struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	strbuf_reset(&sb);
	if (store_event_query(st, f, count_cb, &sb, &cause) != 0) {
		strbuf_addf(&sb, "error: %s", cause);
		free(cause);
	}
	return sb.buf;
}

static void
test_events(void)
{
	struct store *st = mem_store();
	struct store_event_filter f;
	struct job j;
	struct rec r;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION), other, seq;
	int i;

	other = new_run(st, STORE_RUN_REPLAY);
	for (i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof name, "j%d", i);
		job_init(&j, i, name, i, 0);
		CHECK(store_job_put(st, run, &j, &cause) == 0);
		CHECK(store_job_put(st, other, &j, &cause) == 0);
	}
	/* Interleaved: j0 j1 j0 (other run) j2 j0, in one transaction. */
	CHECK(store_begin(st, &cause) == 0);
	rec_init(&r, 1, REC_SUBMIT, 0, 0);
	CHECK(store_event_append(st, run, &r, &seq, &cause) == 0 && seq == 1);
	rec_init(&r, 2, REC_SUBMIT, 1, 1);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	rec_init(&r, 3, REC_START, 0, 0);
	snprintf(r.detail, sizeof r.detail, "on r1n00");
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	rec_init(&r, 3.5, REC_SUBMIT, 0, 0);
	CHECK(store_event_append(st, other, &r, NULL, &cause) == 0);
	rec_init(&r, 4, REC_PREEMPT, 2, 2);
	r.by = 0;
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	rec_init(&r, 5, REC_COMPLETE, 0, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	/* One job's history reads our own uncommitted appends. */
	store_event_filter_init(&f);
	f.run = run;
	f.job = 0;
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 3:start:j0:research "
	    "6:complete:j0:research ");
	CHECK(store_commit(st, &cause) == 0);
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 3:start:j0:research "
	    "6:complete:j0:research ");
	rec_init(&r, 6, REC_RELEASE, -1, -1);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);	/* outside a txn */
	rec_init(&r, 7, REC_REQUEUE, 0, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);

	store_event_filter_init(&f);
	f.run = run;
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 2:submit:j1:prod "
	    "3:start:j0:research 5:preempt:j2:dev 6:complete:j0:research "
	    "7:release:-:- 8:requeue:j0:research ");
	f.job = 0;
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 3:start:j0:research "
	    "6:complete:j0:research 8:requeue:j0:research ");
	f.limit = 2;
	CHECK_STREQ(query(st, &f), "6:complete:j0:research 8:requeue:j0:research ");
	f.limit = 0;
	f.after = 3;
	CHECK_STREQ(query(st, &f), "6:complete:j0:research 8:requeue:j0:research ");
	f.after = 0;
	f.kind = REC_START;
	CHECK_STREQ(query(st, &f), "3:start:j0:research ");
	f.kind = -1;
	f.has_since = true;
	f.since = 5;
	CHECK_STREQ(query(st, &f), "6:complete:j0:research 8:requeue:j0:research ");
	store_event_filter_init(&f);
	f.run = run;
	f.vc = 1;
	CHECK_STREQ(query(st, &f), "2:submit:j1:prod ");
	f.vc = -1;
	f.limit = 3;
	CHECK_STREQ(query(st, &f), "6:complete:j0:research 7:release:-:- "
	    "8:requeue:j0:research ");
	store_event_filter_init(&f);	/* every run */
	f.after = 3;
	CHECK_STREQ(query(st, &f), "4:submit:j0:research 5:preempt:j2:dev "
	    "6:complete:j0:research 7:release:-:- 8:requeue:j0:research ");
	f.kind = REC_PREEMPT;
	CHECK_STREQ(query(st, &f), "5:preempt:j2:dev ");
	CHECK(store_event_last_seq(st, 0, &seq, &cause) == 0 && seq == 8);
	CHECK(store_event_last_seq(st, other, &seq, &cause) == 0 && seq == 4);

	/* A rolled back transaction leaves neither events nor links. */
	CHECK(store_begin(st, &cause) == 0);
	rec_init(&r, 9, REC_CANCEL, 0, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	store_rollback(st);
	store_event_filter_init(&f);
	f.run = run;
	f.job = 0;
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 3:start:j0:research "
	    "6:complete:j0:research 8:requeue:j0:research ");
	rec_init(&r, 10, REC_FAIL, 0, 0);
	CHECK(store_event_append(st, run, &r, &seq, &cause) == 0);
	CHECK_STREQ(query(st, &f), "1:submit:j0:research 3:start:j0:research "
	    "6:complete:j0:research 8:requeue:j0:research 9:fail:j0:research ");
	store_close(st);
}

static void
problems_cb(void *arg, const char *p)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, "%s\n", p);
}

static int
health_cb(void *arg, const char *node, bool bad, double since)
{
	strbuf_addf(arg, "%s:%d:%g ", node, bad, since);
	return 0;
}

static int
audit_cb(void *arg, const struct store_audit *a)
{
	strbuf_addf(arg, "%lld:%s:%lld:%s:%d:%d ", (long long)a->id, a->user,
	    (long long)a->run, a->cmdline, a->status, a->at > 1e9);
	return 0;
}

static void
test_health_series_audit(void)
{
	struct store *st = mem_store();
	struct emu_sample x[3] = {
		{ 0, 1, 2, 3, 4, 5, 0.125, 0.75 }, { 3600, 6, 7, 8, 9, 10, 1.0 / 3, 1 },
		{ 7200, 0, 0, 0, 0, 0, 0, 0 },
	}, *y;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_REPLAY);
	int n;

	CHECK(store_series_put(st, run, x, 3, &cause) == 0);
	CHECK(store_series_load(st, run, &y, &n, &cause) == 0);
	CHECK_INTEQ(n, 3);
	CHECK(n == 3 && memcmp(x, y, sizeof x) == 0);
	free(y);
	CHECK(store_health_set(st, run, "r0n01", true, 5, &cause) == 0);
	CHECK(store_health_set(st, run, "r0n01", false, 6, &cause) == 0);
	CHECK(store_audit_append(st, run, "alloc a --vc prod --gpus 1", 0, &cause) == 0);
	CHECK(store_audit_append(st, 0, "release nope", 1, &cause) == 0);
	{
		struct strbuf sb = STRBUF_INIT;
		char *want;

		CHECK(store_health_load(st, run, health_cb, &sb, &cause) == 0);
		CHECK_STREQ(sb.buf, "r0n01:0:6 ");
		strbuf_reset(&sb);
		CHECK(store_audit_list(st, audit_cb, &sb, &cause) == 0);
		want = xasprintf("1:%s:1:alloc a --vc prod --gpus 1:0:1 "
		    "2:%s:0:release nope:1:1 ", store_user(), store_user());
		CHECK_STREQ(sb.buf, want);
		free(want);
		strbuf_release(&sb);
	}
	store_close(st);
}

static void
test_check(void)
{
	struct store *st = mem_store();
	struct strbuf probs = STRBUF_INIT;
	int pod_first[] = { 0, 2 }, leaves[] = { 3, 4 };
	struct engine_placement pl = {
		.id = 0, .name = "a", .vc = 0, .chain = 0, .pin = -1, .npods = 1,
		.pod_first = pod_first, .leaves = leaves, .nleaves = 2,
	};
	struct job j;
	struct rec r;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION);
	int np = -1;

	job_init(&j, 0, "a", 0, 0);
	j.state = JOB_RUNNING;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	CHECK(store_placement_put(st, run, 0, &pl, "r0n00", "r0n00:3-4", &cause) == 0);
	rec_init(&r, 1, REC_START, 0, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 0, "%s", probs.buf);

	/* Plant: a second job on leaf 4, a placement for a finished job, an
	   event about a job the run does not have. */
	job_init(&j, 1, "b", 0, 0);
	j.state = JOB_RUNNING;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	leaves[0] = 4;
	leaves[1] = 5;
	CHECK(store_placement_put(st, run, 1, &pl, "r0n00", "r0n00:4-5", &cause) == 0);
	job_init(&j, 2, "c", 0, 0);
	j.state = JOB_COMPLETED;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	leaves[0] = 10;
	leaves[1] = 11;
	CHECK(store_placement_put(st, run, 2, &pl, "r0n01", "r0n01:0-1", &cause) == 0);
	job_init(&j, 3, "d", 0, 0);
	j.state = JOB_RUNNING;
	j.engine_id = 7;	/* holds cells, yet no placement */
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	/* not a problem: a guest time-sliced on another job's GPUs holds none */
	job_init(&j, 4, "e", 0, 0);
	j.state = JOB_RUNNING;
	j.engine_id = -1;
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	rec_init(&r, 2, REC_START, 9, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);
	strbuf_reset(&probs);
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 4, "%d problems: %s", np, probs.buf);
	CHECKF(strstr(probs.buf, "run 1: leaf cell 4 is held by jobs 0 and 1") != NULL,
	    "%s", probs.buf);
	CHECKF(strstr(probs.buf, "run 1: job 'c' (completed) has a placement but "
	    "holds no cells") != NULL, "%s", probs.buf);
	CHECKF(strstr(probs.buf, "run 1: job 'd' is running but has no placement") != NULL,
	    "%s", probs.buf);
	CHECKF(strstr(probs.buf, "run 1: event 2 (start) is about job 9, which the "
	    "run does not have") != NULL, "%s", probs.buf);

	/* Change rows (invariant 7): a job the run does not have, ids out of
	   order, a torn id. */
	CHECK(store_exec(st, "INSERT INTO job_changes VALUES (1, 100, "
	    "x'0100000009000000'), (1, 101, x'0200000001000000'), "
	    "(1, 102, x'010000')", &cause) == 0);
	strbuf_reset(&probs);
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 7, "%d problems: %s", np, probs.buf);
	CHECKF(strstr(probs.buf, "run 1: change 100 names job 9, which the run "
	    "does not have") != NULL, "%s", probs.buf);
	CHECKF(strstr(probs.buf, "run 1: change 101 lists job 1 after 2") != NULL,
	    "%s", probs.buf);
	CHECKF(strstr(probs.buf, "run 1: change 102 is malformed (3 bytes)") != NULL,
	    "%s", probs.buf);
	strbuf_release(&probs);
	store_close(st);
}

/* A store with a bit of everything, dumped twice through a second store. */
static void
test_dump_roundtrip(void)
{
	struct store *a = mem_store(), *b = mem_store(), *c = mem_store();
	struct strbuf d1 = STRBUF_INIT, d2 = STRBUF_INIT, d3 = STRBUF_INIT;
	struct store_counts n;
	struct store_job sj;
	struct store_event_filter f;
	struct emu_sample x = { 3600, 1, 2, 3, 4, 0, 0.5, 0.625 };
	int pod_first[] = { 0, 1 }, leaves[] = { 3 };
	struct engine_placement pl = {
		.id = 0, .name = "j0", .vc = 0, .chain = 0, .pin = -1, .npods = 1,
		.pod_first = pod_first, .leaves = leaves, .nleaves = 1,
	};
	struct job j;
	struct rec r;
	char *cause = NULL;
	int64_t run, seq;
	int i;

	run = new_run(a, STORE_RUN_REPLAY);
	for (i = 0; i < 3; i++) {
		odd_job(&j, i);
		j.state = i == 0 ? JOB_RUNNING : JOB_COMPLETED;
		CHECK(store_job_put(a, run, &j, &cause) == 0);
		rec_init(&r, i, REC_SUBMIT, i, i);
		CHECK(store_event_append(a, run, &r, NULL, &cause) == 0);
	}
	rec_init(&r, 9, REC_START, 0, 0);
	snprintf(r.detail, sizeof r.detail, "\"quoted\" \\ and \xc3\xa9");
	CHECK(store_event_append(a, run, &r, NULL, &cause) == 0);
	CHECK(store_placement_put(a, run, 0, &pl, "r0n00", "r0n00:3", &cause) == 0);
	CHECK(store_job_set_blob(a, run, 1, "\x01\x02\x03\x04\x05", 5, &cause) == 0);
	CHECK(store_run_set_blob(a, run, "zz", 2, &cause) == 0);
	CHECK(store_series_put(a, run, &x, 1, &cause) == 0);
	CHECK(store_health_set(a, run, "r0n00", true, 1.5, &cause) == 0);
	CHECK(store_audit_append(a, run, "replay synth:3", 0, &cause) == 0);
	CHECK(store_run_set_report(a, run, "{\"makespan\":1e999}", &cause) == 0);

	CHECK(store_export(a, &d1, &n, &cause) == 0);
	CHECK_INTEQ(n.runs, 1);
	CHECK_INTEQ(n.jobs, 3);
	CHECK_INTEQ(n.events, 4);
	CHECK(store_import(b, d1.buf, d1.len, false, &n, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK(store_export(b, &d2, &n, &cause) == 0);
	CHECK_INTEQ(d1.len, d2.len);
	CHECK(strcmp(d1.buf, d2.buf) == 0);

	/* Into a non-empty store: refused without as_new. */
	CHECK(store_import(b, d1.buf, d1.len, false, &n, &cause) == STORE_INVALID);
	CHECK(cause != NULL && strstr(cause, "is not empty") != NULL);
	free(cause);
	cause = NULL;
	/* As new runs: ids and seqs move, links and heads follow them. */
	new_run(c, STORE_RUN_SESSION);
	rec_init(&r, 0, REC_RELEASE, -1, -1);
	CHECK(store_event_append(c, 1, &r, NULL, &cause) == 0);
	CHECK(store_import(c, d1.buf, d1.len, true, &n, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(n.specs, 1);
	CHECK(store_job_get(c, 2, 0, &sj, &cause) == 0);
	CHECK(sj.placed && sj.pl.pl.leaves[0] == 3);
	CHECK_INTEQ(sj.last_seq, 5);
	store_job_release(&sj);
	store_event_filter_init(&f);
	f.run = 2;
	f.job = 0;
	CHECK_STREQ(query(c, &f), "2:submit:job-0:research 5:start:job-0:research ");
	{
		int np = -1;
		struct strbuf probs = STRBUF_INIT;

		CHECK(store_check(c, problems_cb, &probs, &np, &cause) == 0);
		CHECKF(np == 0, "%s", probs.buf);
		strbuf_release(&probs);
	}
	CHECK(store_event_last_seq(c, 0, &seq, &cause) == 0 && seq == 5);

	/* Malformed dumps are refused whole. */
	CHECK(store_import(c, "{", 1, true, &n, &cause) == STORE_INVALID);
	free(cause);
	cause = NULL;
	strbuf_addf(&d3, "%.*s", (int)d1.len, d1.buf);
	{
		char want[32], *p;

		snprintf(want, sizeof want, "\"store_version\":%d", STORE_SCHEMA_VERSION);
		p = strstr(d3.buf, want);
		CHECK(p != NULL);
		if (p != NULL)
			p[16] = '2';	/* before dumps existed */
	}
	CHECK(store_import(c, d3.buf, d3.len, true, &n, &cause) == STORE_INVALID);
	CHECKF(cause != NULL && strstr(cause, "store version 2") != NULL, "%s", cause);
	free(cause);
	strbuf_release(&d1);
	strbuf_release(&d2);
	strbuf_release(&d3);
	store_close(a);
	store_close(b);
	store_close(c);
}

/* "ID@CHG " per job. */
static int
chg_cb(void *arg, const struct store_job *sj)
{
	strbuf_addf(arg, "%d@%lld ", sj->job.id, (long long)sj->chg);
	return 0;
}

/* The jobs of run changed since `after`, as "ID@CHG ..." */
static const char *
since(struct store *st, int64_t run, int64_t after)
{
	static struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	strbuf_reset(&sb);
	if (store_job_load_since(st, run, after, chg_cb, &sb, &cause) != 0) {
		strbuf_addf(&sb, "error: %s", cause);
		free(cause);
	}
	return sb.buf;
}

/* Every job of run by a full load, as "ID@CHG ..." */
static const char *
loaded(struct store *st, int64_t run)
{
	static struct strbuf sb = STRBUF_INIT;
	char *cause = NULL;

	strbuf_reset(&sb);
	if (store_job_load(st, run, chg_cb, &sb, &cause) != 0) {
		strbuf_addf(&sb, "error: %s", cause);
		free(cause);
	}
	return sb.buf;
}

/*
 * Change numbers (store.h invariant 7): a write alone takes the next, a
 * transaction's writes share one, a placement put or delete changes its
 * job (a delete of nothing does not), a blob too, a rolled-back write
 * leaves no trace, each run counts its own; a full load gives the newest,
 * a job changed twice comes once; a dump leaves them out and its import
 * starts them over, and version 5 and 6 dumps import.
 */
static void
test_job_changes(void)
{
	struct store *st = mem_store(), *b = mem_store();
	int pod_first[] = { 0, 1 }, leaves[] = { 3 };
	struct engine_placement pl = {
		.id = 5, .name = "job-1", .vc = 1, .priority = 1, .orig_priority = 1,
		.chain = 0, .pin = -1, .npods = 1, .pod_first = pod_first,
		.leaves = leaves, .nleaves = 1,
	};
	struct store_counts n;
	struct strbuf d = STRBUF_INIT;
	struct job j[5];
	char *cause = NULL, *p;
	int64_t run = new_run(st, STORE_RUN_SESSION), other;
	int i;

	for (i = 0; i < 5; i++) {
		odd_job(&j[i], i);
		CHECK(store_job_put(st, run, &j[i], &cause) == 0);
	}
	CHECK_STREQ(since(st, run, 0), "0@1 1@2 2@3 3@4 4@5 ");
	CHECK_STREQ(since(st, run, 3), "3@4 4@5 ");
	CHECK_STREQ(since(st, run, 5), "");
	/* one transaction: one number, for the placement's job too */
	CHECK(store_begin(st, &cause) == 0);
	j[4].attained += 1;
	CHECK(store_job_put(st, run, &j[4], &cause) == 0);
	CHECK(store_job_put(st, run, &j[2], &cause) == 0);
	CHECK(store_placement_put(st, run, 1, &pl, "n", "g", &cause) == 0);
	CHECK(store_commit(st, &cause) == 0);
	CHECK_STREQ(since(st, run, 5), "1@6 2@6 4@6 ");
	/* a job, then its placement (a checkpoint's order) */
	CHECK(store_begin(st, &cause) == 0);
	CHECK(store_job_put(st, run, &j[3], &cause) == 0);
	CHECK(store_placement_put(st, run, 3, &pl, "n", "g", &cause) == 0);
	CHECK(store_commit(st, &cause) == 0);
	CHECK_STREQ(since(st, run, 6), "3@7 ");
	/* deletes: of nothing, nothing; of a placement, its job */
	CHECK(store_placement_delete(st, run, 0, &cause) == 0);
	CHECK_STREQ(since(st, run, 7), "");
	CHECK(store_placement_delete(st, run, 1, &cause) == 0);
	CHECK_STREQ(since(st, run, 7), "1@8 ");
	CHECK(store_job_set_blob(st, run, 0, "x", 1, &cause) == 0);
	CHECK_STREQ(since(st, run, 8), "0@9 ");
	/* rolled back: as if never written, and the next commit is above */
	CHECK(store_begin(st, &cause) == 0);
	CHECK(store_job_put(st, run, &j[2], &cause) == 0);
	store_rollback(st);
	CHECK_STREQ(since(st, run, 9), "");
	CHECK(store_begin(st, &cause) == 0);
	CHECK(store_job_put(st, run, &j[2], &cause) == 0);
	CHECK(store_commit(st, &cause) == 0);
	CHECK_STREQ(since(st, run, 9), "2@10 ");
	/* another run counts its own */
	other = new_run(st, STORE_RUN_REPLAY);
	CHECK(store_job_put(st, other, &j[0], &cause) == 0);
	CHECK_STREQ(since(st, other, 0), "0@1 ");
	CHECK_STREQ(since(st, run, 10), "");

	/* more jobs than one read takes (STORE_IDS_PER_READ), each with
	   its own newest number, in id order */
	{
		struct strbuf want = STRBUF_INIT;
		struct store *c = mem_store();
		int64_t many = new_run(c, STORE_RUN_REPLAY);
		struct job m;

		CHECK(store_begin(c, &cause) == 0);
		for (i = 0; i < 150; i++) {
			odd_job(&m, i);
			CHECK(store_job_put(c, many, &m, &cause) == 0);
		}
		CHECK(store_commit(c, &cause) == 0);
		CHECK(store_begin(c, &cause) == 0);
		for (i = 149; i >= 0; i -= 73) {	/* 149, 76, 3 */
			odd_job(&m, i);
			m.attained += 1;
			CHECK(store_job_put(c, many, &m, &cause) == 0);
		}
		CHECK(store_commit(c, &cause) == 0);
		for (i = 0; i < 150; i++)
			strbuf_addf(&want, "%d@%d ", i, i % 73 == 3 ? 2 : 1);
		CHECK_STREQ(since(c, many, 0), want.buf);
		CHECK_STREQ(since(c, many, 1), "3@2 76@2 149@2 ");
		strbuf_release(&want);
		store_close(c);
	}

	/* a full load says the newest number; a job changed twice since
	   comes once, with the newer */
	CHECK_STREQ(loaded(st, run), "0@10 1@10 2@10 3@10 4@10 ");
	CHECK(store_job_put(st, run, &j[3], &cause) == 0);
	CHECK(store_job_put(st, run, &j[1], &cause) == 0);
	CHECK(store_job_put(st, run, &j[3], &cause) == 0);
	CHECK_STREQ(since(st, run, 10), "1@12 3@13 ");

	/* a dump has no change numbers; an import starts them over */
	CHECK(store_export(st, &d, &n, &cause) == 0);
	CHECK(strstr(d.buf, "chg") == NULL);
	CHECK(strstr(d.buf, "job_changes") == NULL);
	CHECK(store_import(b, d.buf, d.len, false, &n, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_STREQ(since(b, run, -1), "");
	CHECK_STREQ(loaded(b, run), "0@0 1@0 2@0 3@0 4@0 ");
	CHECK(store_job_put(b, run, &j[1], &cause) == 0);
	CHECK_STREQ(since(b, run, 0), "1@1 ");
	/* versions 5's and 6's dumps are version 11's but for the series'
	   frag_node (7's lack the jobs' priority and weight: t0410) */
	p = strstr(d.buf, "\"store_version\":11,");
	CHECK(p != NULL);
	if (p != NULL) {
		p[16] = '5';
		p[17] = ' ';
	}
	CHECK(store_import(b, d.buf, d.len, true, &n, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(n.jobs, 6);
	if (p != NULL)
		p[16] = '6';
	CHECK(store_import(b, d.buf, d.len, true, &n, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK_INTEQ(n.jobs, 6);
	strbuf_release(&d);
	store_close(st);
	store_close(b);
}

/*
 * Many jobs in one statement (store_job_put_many, through job_rows): each
 * reads back as put, a job named twice ends as its last row says, a gang
 * of ENGINE_MAX_MEMBERS members with the widest numbers round-trips, and
 * a batch in a transaction of its own rolls back whole.
 */
static void
test_job_many(void)
{
	struct store *st = mem_store();
	struct store_jobrow rows[5];
	struct store_job sj;
	struct job j[5];
	char blob[3][8] = { "aaaaaaa", "bbbbbbb", "ccccccc" }, *cause = NULL;
	struct strbuf probs = STRBUF_INIT;
	int64_t run = new_run(st, STORE_RUN_REPLAY);
	int i, n = 0, np = -1;

	for (i = 0; i < 4; i++) {
		odd_job(&j[i], 10 + i);
		rows[i].job = &j[i];
		rows[i].blob = i < 3 ? blob[i] : NULL;
		rows[i].len = i < 3 ? (size_t)(i + 1) : 0;
	}
	j[1].nmembers = ENGINE_MAX_MEMBERS;
	for (i = 0; i < ENGINE_MAX_MEMBERS; i++) {
		j[1].members[i].pods = i == 0 ? 2147483647 : i;
		j[1].members[i].gpus = i == 1 ? -2147483647 - 1 : 1000000 + i;
	}
	j[2].state = JOB_RUNNING;
	j[3] = j[2];			/* job 12 again, later in the batch */
	j[3].state = JOB_COMPLETED;
	j[3].restarts = 9;
	CHECK(store_job_put_many(st, run, rows, 4, &cause) == 0);
	CHECKF(cause == NULL, "%s", cause);
	CHECK(store_job_get(st, run, 10, &sj, &cause) == 0);
	CHECK_STREQ(sj.job.name, "job-10");
	CHECK(sj.blob_len == 1 && memcmp(sj.blob, "a", 1) == 0);
	CHECK(same_double(sj.job.duration, j[0].duration));
	store_job_release(&sj);
	CHECK(store_job_get(st, run, 11, &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.nmembers, ENGINE_MAX_MEMBERS);
	for (i = 0; i < ENGINE_MAX_MEMBERS && i < sj.job.nmembers; i++)
		n += sj.job.members[i].pods == j[1].members[i].pods &&
		    sj.job.members[i].gpus == j[1].members[i].gpus;
	CHECK_INTEQ(n, ENGINE_MAX_MEMBERS);
	CHECK(sj.blob_len == 2 && memcmp(sj.blob, "bb", 2) == 0);
	store_job_release(&sj);
	CHECK(store_job_get(st, run, 12, &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.state, JOB_COMPLETED);
	CHECK_INTEQ(sj.job.restarts, 9);
	CHECK(sj.blob == NULL && sj.blob_len == 0);	/* the last row's */
	store_job_release(&sj);
	/* an empty batch writes nothing and succeeds */
	CHECK(store_job_put_many(st, run, rows, 0, &cause) == 0);
	/* a replay's jobs are found by name too (not in jobs_name) */
	CHECK(store_job_find(st, run, "job-12", &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.id, 12);
	store_job_release(&sj);
	CHECK(store_job_find(st, run, "job-99", &sj, &cause) == STORE_NOTFOUND);
	CHECKF(cause != NULL && strstr(cause, "no job 'job-99'") != NULL, "%s",
	    cause != NULL ? cause : "(none)");
	free(cause);
	cause = NULL;
	/* a batch for a run that does not exist: nothing of it stays */
	odd_job(&j[0], 20);
	odd_job(&j[1], 21);
	CHECK(store_job_put_many(st, run + 99, rows, 2, &cause) == -1);
	CHECKF(cause != NULL && strstr(cause, "FOREIGN KEY") != NULL, "%s",
	    cause != NULL ? cause : "(none)");
	free(cause);
	cause = NULL;
	CHECK(store_job_get(st, run + 99, 20, &sj, &cause) == STORE_NOTFOUND);
	free(cause);
	cause = NULL;
	/* a replay's names are not held unique by the index but by its
	   trace: db check finds two alike */
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 0, "%s", probs.buf);
	snprintf(j[1].name, sizeof j[1].name, "job-10");
	CHECK(store_job_put_many(st, run, rows + 1, 1, &cause) == 0);
	strbuf_reset(&probs);
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 1 && strstr(probs.buf, "job name 'job-10' is used by 2 "
	    "jobs") != NULL, "%d: %s", np, probs.buf);
	strbuf_release(&probs);
	store_close(st);
}

/*
 * A lookup by name costs a few index probes in a session's run however
 * many jobs it holds, also for a name it does not hold (what every alloc
 * asks): the second statement, for a replay's names, reads a run's rows
 * only when the run is a replay. Counted in SQLite's VM steps, which
 * grew with the run's rows before (5 per row: 10,012 here).
 */
static void
test_job_find_cost(void)
{
	struct store *st = mem_store();
	struct store_jobrow rows[64];
	struct store_job sj;
	struct job j[64];
	sqlite3_stmt *q[2];
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION), replay;
	int i, k, n = 0, steps[2];

	CHECK(store_begin(st, &cause) == 0);
	for (i = 0; i < 2000; i++) {
		odd_job(&j[0], i);
		n += store_job_put(st, run, &j[0], &cause) == 0;
	}
	CHECK_INTEQ(n, 2000);
	CHECK(store_commit(st, &cause) == 0);
	q[0] = store_stmt(st, SQ_JOB_FIND, &cause);
	q[1] = store_stmt(st, SQ_JOB_FIND_TRACED, &cause);
	CHECK(q[0] != NULL && q[1] != NULL);
	for (k = 0; k < 2; k++) {
		const char *name = k == 0 ? "job-1234" : "job-2000";

		for (i = 0; i < 2; i++)
			sqlite3_stmt_status(q[i], SQLITE_STMTSTATUS_VM_STEP, 1);
		if (k == 0) {
			CHECK(store_job_find(st, run, name, &sj, &cause) == 0);
			CHECK_INTEQ(sj.job.id, 1234);
			store_job_release(&sj);
		} else {
			CHECK(store_job_find(st, run, name, &sj, &cause) == STORE_NOTFOUND);
			free(cause);
			cause = NULL;
		}
		for (i = 0; i < 2; i++)
			steps[i] = sqlite3_stmt_status(q[i], SQLITE_STMTSTATUS_VM_STEP, 0);
		CHECKF(steps[0] < 200 && steps[1] < 50, "'%s': %d and %d VM steps",
		    name, steps[0], steps[1]);
	}
	/* a replay's run: its names are found by reading its rows */
	replay = new_run(st, STORE_RUN_REPLAY);
	for (i = 0; i < 64; i++) {
		odd_job(&j[i], i);
		rows[i].job = &j[i];
		rows[i].blob = NULL;
		rows[i].len = 0;
	}
	CHECK(store_job_put_many(st, replay, rows, 64, &cause) == 0);
	CHECK(store_job_find(st, replay, "job-63", &sj, &cause) == 0);
	CHECK_INTEQ(sj.job.id, 63);
	store_job_release(&sj);
	CHECK(store_job_find(st, replay, "job-64", &sj, &cause) == STORE_NOTFOUND);
	free(cause);
	store_close(st);
}


/* One command of a group: job id named name, and one event of it. */
static int
group_cmd(struct store *st, int64_t run, int id, const char *name, bool keep)
{
	struct job j;
	struct rec r;
	char *cause = NULL;

	if (store_begin(st, &cause) != 0)
		return -1;
	job_init(&j, id, name, 0, 0);
	rec_init(&r, id, REC_SUBMIT, id, 0);
	if (store_job_put(st, run, &j, &cause) != 0 ||
	    store_event_append(st, run, &r, NULL, &cause) != 0) {
		free(cause);
		store_rollback(st);
		return -1;
	}
	if (!keep) {
		store_rollback(st);
		return 0;
	}
	return store_commit(st, &cause);
}

static bool
has_job(struct store *st, int64_t run, const char *name)
{
	struct store_job sj;
	char *cause = NULL;
	int rc = store_job_find(st, run, name, &sj, &cause);

	if (rc == 0)
		store_job_release(&sj);
	free(cause);
	return rc == 0;
}

/*
 * Group commit (store.h invariant 9): a command's rollback undoes it
 * alone, the group commits the rest at once; a group rolled back, or
 * whose COMMIT fails, keeps nothing; the event chains stay whole.
 */
static void
test_group(void)
{
	struct store *st = mem_store();
	struct strbuf probs = STRBUF_INIT;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION);
	int np = -1;
	struct rec r;

	CHECK(store_group_begin(st, &cause) == 0 && store_in_group(st));
	CHECK(group_cmd(st, run, 0, "a", true) == 0);
	CHECK(group_cmd(st, run, 1, "b", false) == 0);		/* rolled back */
	CHECK(group_cmd(st, run, 1, "c", true) == 0);
	CHECK(!store_in_txn(st));
	CHECK(store_group_commit(st, &cause) == 0 && !store_in_group(st));
	CHECK(has_job(st, run, "a") && !has_job(st, run, "b") && has_job(st, run, "c"));

	/* rolled back as a whole: d is gone, and a's next event still
	   links to its first (the heads forgot what the group wrote) */
	CHECK(store_group_begin(st, &cause) == 0);
	CHECK(group_cmd(st, run, 2, "d", true) == 0);
	rec_init(&r, 5, REC_START, 0, 0);
	CHECK(store_begin(st, &cause) == 0 &&
	    store_event_append(st, run, &r, NULL, &cause) == 0 &&
	    store_commit(st, &cause) == 0);
	store_group_rollback(st);
	CHECK(!store_in_group(st) && !has_job(st, run, "d"));
	rec_init(&r, 6, REC_START, 0, 0);
	CHECK(store_event_append(st, run, &r, NULL, &cause) == 0);

	/* the COMMIT fails (as a full disk makes it): nothing is kept, and
	   the store takes the next transaction as usual */
	CHECK(store_group_begin(st, &cause) == 0);
	CHECK(group_cmd(st, run, 2, "e", true) == 0);
	st->steps = 0;
	st->fail_at = 1;
	CHECK(store_group_commit(st, &cause) == -1 && cause != NULL &&
	    strstr(cause, "CELLAR_STORE_FAIL") != NULL);
	free(cause);
	cause = NULL;
	st->fail_at = 0;
	CHECK(!store_in_group(st) && !store_in_txn(st) && !has_job(st, run, "e"));
	CHECK(group_cmd(st, run, 2, "f", true) == 0 && has_job(st, run, "f"));

	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 0, "%d problems: %s", np, probs.buf);
	strbuf_release(&probs);
	store_close(st);
}

/*
 * The buffers (store-int.h invariants 3 and 4): an open store has the
 * event block, the job heads and the changed jobs registered, in the order
 * their flushes run; in a group, a statement flagged STORE_SQL_LOG read
 * outside a command (store_run_get counts the run's events, and settles
 * nothing itself) sees the events the group's commands kept.
 */
static void
test_buffers(void)
{
	struct store *st = mem_store();
	struct store_run r;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION);

	CHECK_INTEQ(st->nbuf, 3);
	if (st->nbuf == 3) {
		CHECK_STREQ(st->buf[0]->name, "events");
		CHECK_STREQ(st->buf[1]->name, "heads");
		CHECK_STREQ(st->buf[2]->name, "changes");
		CHECK(st->buf[0]->at == STORE_FLUSH_TXN &&
		    st->buf[1]->at == STORE_FLUSH_CMD &&
		    st->buf[2]->at == STORE_FLUSH_TXN);
	}
	CHECK(store_group_begin(st, &cause) == 0);
	CHECK(group_cmd(st, run, 0, "a", true) == 0);
	CHECK(group_cmd(st, run, 1, "b", true) == 0);
	CHECK_INTEQ(st->ev_n, 2);	/* pending to the group's commit */
	CHECK(store_run_get(st, run, &r, &cause) == 0);
	CHECK_INTEQ(r.nevents, 2);
	CHECK_INTEQ(st->ev_n, 0);	/* settled before the read */
	store_run_release(&r);
	CHECK(group_cmd(st, run, 2, "c", true) == 0);
	CHECK(store_group_commit(st, &cause) == 0);
	CHECK(store_run_get(st, run, &r, &cause) == 0);
	CHECK_INTEQ(r.nevents, 3);
	store_run_release(&r);
	store_close(st);
}

/*
 * A release's narrow write and read: store_job_put_state moves exactly the
 * state fields of an existing row (a missing one is STORE_NOTFOUND), and
 * store_job_find_bare reads the row by name without its placement.
 */
static void
test_job_put_state(void)
{
	struct store *st = mem_store();
	struct store_job sj;
	struct job j, k;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION);

	odd_job(&j, 7);
	CHECK(store_job_put(st, run, &j, &cause) == 0);
	k = j;
	k.state = JOB_CANCELLED;
	k.reason = JOB_REASON_NONE;
	k.state_since = k.end = 123.25;
	k.run_time = 42.5;
	k.attained = 7.0;
	k.restarts = 9;
	k.engine_id = -1;
	k.priority = 3;
	k.weight = 2;
	snprintf(k.name, sizeof k.name, "renamed");	/* identity: not written */
	k.vc = 3;
	CHECK(store_job_put_state(st, run, &k, &cause) == 0);
	CHECK(store_job_get(st, run, 7, &sj, &cause) == 0);
	CHECK_STREQ(sj.job.name, "job-7");
	CHECK_INTEQ(sj.job.vc, j.vc);
	CHECK_INTEQ(sj.job.state, JOB_CANCELLED);
	CHECK_INTEQ(sj.job.reason, JOB_REASON_NONE);
	CHECK(same_double(sj.job.end, 123.25) && same_double(sj.job.run_time, 42.5));
	CHECK_INTEQ(sj.job.restarts, 9);
	CHECK_INTEQ(sj.job.priority, 3);
	CHECK_INTEQ(sj.job.weight, 2);
	CHECK(same_double(sj.job.lost_work, j.lost_work));
	store_job_release(&sj);
	CHECK(store_job_find_bare(st, run, "job-7", &sj, &cause) == 0 &&
	    !sj.placed && sj.job.id == 7 && sj.job.state == JOB_CANCELLED);
	store_job_release(&sj);
	CHECK(store_job_find_bare(st, run, "nope", &sj, &cause) == STORE_NOTFOUND);
	free(cause);
	cause = NULL;
	k.id = 99;
	CHECK(store_job_put_state(st, run, &k, &cause) == STORE_NOTFOUND);
	free(cause);
	store_close(st);
}

/*
 * A group's events are one block, written at its commit (store-events.c
 * invariant 2): a read between its commands sees them; a command that
 * read the log (flushing the earlier commands' events into its own
 * savepoint) and then rolled back keeps those events and drops its own.
 */
static void
test_group_events(void)
{
	struct store *st = mem_store();
	struct strbuf probs = STRBUF_INIT;
	char *cause = NULL;
	int64_t run = new_run(st, STORE_RUN_SESSION), seq = 0, a, c;
	struct job j;
	struct rec r;
	int np = -1;

	CHECK(store_group_begin(st, &cause) == 0);
	CHECK(group_cmd(st, run, 0, "a", true) == 0);
	CHECK(st->ev_n == 1);			/* held for the group */
	CHECK(store_event_last_seq(st, run, &a, &cause) == 0 && a > 0);
	CHECK(group_cmd(st, run, 1, "a2", true) == 0);

	/* b reads the log inside its savepoint, then rolls back */
	CHECK(store_begin(st, &cause) == 0);
	job_init(&j, 2, "b", 0, 0);
	rec_init(&r, 2, REC_SUBMIT, 2, 0);
	CHECK(store_job_put(st, run, &j, &cause) == 0 &&
	    store_event_append(st, run, &r, NULL, &cause) == 0);
	CHECK(store_event_last_seq(st, run, &seq, &cause) == 0 && seq == a + 2);
	store_rollback(st);
	CHECK(st->ev_n == 1);			/* a2's, put back */

	CHECK(group_cmd(st, run, 2, "c", true) == 0);
	CHECK(store_group_commit(st, &cause) == 0);
	CHECK(store_event_last_seq(st, run, &c, &cause) == 0);
	CHECKF(c == a + 2, "c's event is %lld, a's %lld", (long long)c,
	    (long long)a);
	CHECK(has_job(st, run, "a2") && !has_job(st, run, "b") &&
	    has_job(st, run, "c"));
	CHECK(store_check(st, problems_cb, &probs, &np, &cause) == 0);
	CHECKF(np == 0, "%d problems: %s", np, probs.buf);
	strbuf_release(&probs);
	store_close(st);
}

static const struct test tests[] = {
	{ "job-roundtrip", test_job_roundtrip },
	{ "group-events", test_group_events },
	{ "job-put-state", test_job_put_state },
	{ "job-many", test_job_many },
	{ "job-find-cost", test_job_find_cost },
	{ "placement-blob", test_placement_blob },
	{ "specs-runs", test_specs_runs },
	{ "events", test_events },
	{ "health-series-audit", test_health_series_audit },
	{ "check", test_check },
	{ "dump-roundtrip", test_dump_roundtrip },
	{ "job-changes", test_job_changes },
	{ "group", test_group },
	{ "buffers", test_buffers },
};

TEST_MAIN(tests)
