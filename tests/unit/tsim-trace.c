/*
 * tsim-trace.c — the trace readers on the fixtures (tests/fixtures/traces:
 * counts, first and last jobs, the sort of the unsorted Philly sample,
 * epochs), every malformed-row error at its exact line:col, the
 * transformations' properties, the generator's determinism and shape, and
 * trace_to_jobs: VC mapping and gang shapes on specs/default.yaml,
 * specs/philly.yaml and the Tiresias specs, each shape placed on an empty
 * engine to prove it can run. Only the fixtures are used: the full traces
 * of ../shared are for the benchmark.
 */
#include <math.h>
#include <stdio.h>

#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "engine/engine.h"
#include "job/model-class.h"
#include "sim/trace.h"
#include "spec/spec.h"
#include "test.h"

#pragma GCC diagnostic ignored "-Wformat-truncation"

#define FIX "tests/fixtures/traces/"

static int
load_fix(const char *file, struct trace *t)
{
	char *cause = NULL;
	int rc = trace_load(file, TRACE_AUTO, t, &cause);

	CHECKF(rc == 0, "%s", cause ? cause : "?");
	free(cause);
	return rc;
}

static int
load_str(const char *text, enum trace_format fmt, struct trace *t, char **cause)
{
	*cause = NULL;
	return trace_load_string("t.csv", text, strlen(text), fmt, t, cause);
}

static struct spec *
spec_fix(const char *path)
{
	struct spec *s = spec_load(path, NULL);

	CHECKF(s != NULL, "cannot load %s", path);
	return s;
}

/* Invariants 1 and 2 of trace.h, plus lines strictly increasing on ties. */
static bool
trace_ok(const struct trace *t)
{
	int i;

	if (t->njobs > 0 && t->jobs[0].submit != 0)
		return false;
	for (i = 0; i < t->njobs; i++) {
		const struct trace_job *j = &t->jobs[i];
		if (j->gpus < 1 || !(j->duration >= 0))
			return false;
		if (i > 0 && (j->submit < j[-1].submit ||
		    (j->submit == j[-1].submit && j->line != 0 && j->line <= j[-1].line)))
			return false;
	}
	return true;
}

static int
find_job(const struct trace *t, const char *name)
{
	int i;

	for (i = 0; i < t->njobs; i++)
		if (strcmp(t->jobs[i].name, name) == 0)
			return i;
	return -1;
}

/* ---- readers on the fixtures ---- */

static void
test_format_names(void)
{
	CHECK_STREQ(trace_format_name(TRACE_PHILLY), "philly");
	CHECK_STREQ(trace_format_name(TRACE_SYNTH), "synth");
	CHECK_INTEQ(trace_format_parse("Tiresias"), TRACE_TIRESIAS);
	CHECK_INTEQ(trace_format_parse("itp"), TRACE_ITP);
	CHECK_INTEQ(trace_format_parse("auto"), TRACE_AUTO);
	CHECK_INTEQ(trace_format_parse("csv"), -2);
}

static void
test_philly_sample(void)
{
	struct trace t;
	struct trace_job *j;
	int a, b;

	if (load_fix(FIX "philly-sample.csv", &t) < 0)
		return;
	CHECK_INTEQ(t.format, TRACE_PHILLY);
	CHECK_INTEQ(t.njobs, 3062);
	CHECK(trace_ok(&t));
	/* 2017-09-20 09:58:27 UTC, the earliest row (line 219), not the first */
	CHECKF(t.epoch == 1505901507.0, "%.1f", t.epoch);
	j = &t.jobs[0];
	CHECK_INTEQ(j->line, 219);
	CHECK_STREQ(j->name, "philly-sample-219");
	CHECK_STREQ(j->vc, "6214e9");
	CHECK(j->duration == 1313775.0);
	CHECK_INTEQ(j->gpus, 1);
	CHECK_INTEQ(j->model, -1);
	/* 2017-12-22 07:40:07 */
	j = &t.jobs[t.njobs - 1];
	CHECK_INTEQ(j->line, 2323);
	CHECKF(j->submit == 1513928407.0 - 1505901507.0, "%.1f", j->submit);
	CHECK(j->duration == 61.0);
	/* ties keep file order: lines 1252 and 1255 share a second, as do 1229, 1231 */
	a = find_job(&t, "philly-sample-1252");
	b = find_job(&t, "philly-sample-1255");
	CHECK(a >= 0 && b == a + 1 && t.jobs[a].submit == t.jobs[b].submit);
	a = find_job(&t, "philly-sample-1229");
	b = find_job(&t, "philly-sample-1231");
	CHECK(a >= 0 && b == a + 1 && t.jobs[a].submit == t.jobs[b].submit);
	CHECK_STREQ(t.jobs[a].vc, "23dbec");
	/* the file's first data row is somewhere in the middle */
	a = find_job(&t, "philly-sample-2");
	CHECK(a > 0 && t.jobs[a].submit > 0);
	trace_release(&t);
	CHECK(t.jobs == NULL && t.njobs == 0);
}

static void
test_itp_sample(void)
{
	struct trace t;

	if (load_fix(FIX "itp-cluster10.csv", &t) < 0)
		return;
	CHECK_INTEQ(t.format, TRACE_ITP);
	/* 260 rows; the file has no final newline */
	CHECK_INTEQ(t.njobs, 260);
	CHECK(trace_ok(&t));
	CHECK(t.epoch == 2266647.0);
	CHECK_STREQ(t.jobs[0].name, "5dc7d9cd-c300-9a4f-c3cd-dc2cc0935548");
	CHECK_INTEQ(t.jobs[0].gpus, 16);
	CHECK(t.jobs[0].duration == 604);
	CHECK_STREQ(t.jobs[0].vc, "");
	CHECK_STREQ(t.jobs[259].name, "827822bc-4cf5-72f5-3f1e-f01352929ea1");
	CHECK(t.jobs[259].submit == 5104565.0 - 2266647.0);
	CHECK(t.jobs[259].duration == 42698);
	CHECK_INTEQ(t.jobs[259].gpus, 2);
	CHECK_INTEQ(t.jobs[259].line, 261);
	trace_release(&t);
}

static void
test_tiresias_files(void)
{
	struct trace t;

	/* 60_job.csv has CRLF line ends */
	if (load_fix(FIX "tiresias-60_job.csv", &t) == 0) {
		CHECK_INTEQ(t.format, TRACE_TIRESIAS);
		CHECK_INTEQ(t.njobs, 60);
		CHECK(trace_ok(&t));
		CHECK(t.epoch == 0);
		CHECK_STREQ(t.jobs[0].name, "0");
		CHECK_INTEQ(t.jobs[0].model, model_find("vgg19"));
		CHECK(t.jobs[0].duration == 164);
		CHECK_STREQ(t.jobs[59].name, "59");
		CHECK(t.jobs[59].submit == 1779);
		CHECK_INTEQ(t.jobs[59].model, model_find("inception3"));
		CHECK(t.jobs[59].duration == 122);
		trace_release(&t);
	}
	if (load_fix(FIX "synthetic-ygput1000_L5_n32g4.csv", &t) == 0) {
		CHECK_INTEQ(t.njobs, 1001);
		CHECK(trace_ok(&t));
		CHECK(t.jobs[1000].submit == 226025);
		CHECK_INTEQ(t.jobs[1000].gpus, 8);
		trace_release(&t);
	}
}

/* ---- malformed input, each at its line:col ---- */

#define PH "timestamp,duration,num_gpus,gpu_time,cluster\n"
#define IT "job_id,submission_time,duration,num_gpu\n"
#define IT_PW "job_id,submission_time,duration,num_gpu,priority,weight\n"
#define IT_C "job_id,submission_time,duration,num_gpu,priority,class\n"
#define TI "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"

static const struct {
	const char		*text;
	enum trace_format	 fmt;
	const char		*want;
} bad[] = {
	{ "", TRACE_AUTO, "t.csv:1:1: empty file: no header line" },
	{ "\n  \n", TRACE_AUTO, "t.csv:1:1: empty file: no header line" },
	{ PH, TRACE_AUTO, "t.csv:2:1: no jobs after the header" },
	{ PH "\n\n", TRACE_AUTO, "t.csv:4:1: no jobs after the header" },
	{ "a,b\n1,2\n", TRACE_AUTO, "t.csv:1:1: header 'a,b' is not a trace header "
	  "(philly 'timestamp,duration,num_gpus,gpu_time,cluster'; itp 'job_id,"
	  "submission_time,duration,num_gpu'; tiresias 'job_id,num_gpu,submit_time,"
	  "iterations,model_name,duration,interval'; then optionally gpus_max, "
	  "priority, weight, class, affinity)" },
	/* optional columns: each once, only after the format's */
	{ "job_id,submission_time,duration,num_gpu,weight,weight\na,1,2,3,1,1\n",
	  TRACE_AUTO, NULL },
	{ "job_id,submission_time,duration,priority,num_gpu\na,1,2,3,1\n",
	  TRACE_AUTO, NULL },
	{ IT_PW "a,1,2,3,1\n", TRACE_AUTO,
	  "t.csv:2:10: missing column 'weight': 5 of 6 columns of a itp row" },
	{ IT_PW "a,1,2,3,1001,1\n", TRACE_AUTO,
	  "t.csv:2:9: priority must be a whole number from 0 to 1000, not '1001'" },
	{ IT_PW "a,1,2,3,-1,1\n", TRACE_AUTO,
	  "t.csv:2:9: priority must be a whole number from 0 to 1000, not '-1'" },
	{ IT_PW "a,1,2,3,1.5,1\n", TRACE_AUTO,
	  "t.csv:2:9: priority must be a whole number from 0 to 1000, not '1.5'" },
	{ IT_PW "a,1,2,3,,1\n", TRACE_AUTO, "t.csv:2:9: empty priority" },
	{ IT_PW "a,1,2,3,2,0\n", TRACE_AUTO,
	  "t.csv:2:11: weight must be a whole number from 1 to 1000, not '0'" },
	{ IT_PW "a,1,2,3,2,x\n", TRACE_AUTO,
	  "t.csv:2:11: weight must be a whole number from 1 to 1000, not 'x'" },
	{ "job_id,submission_time,duration,num_gpu,weight,gpus_max\na,1,2,3,1,2\n",
	  TRACE_AUTO, "t.csv:2:11: gpus_max 2 is below the job's 3 GPUs" },
	{ "job_id,submission_time,duration,num_gpu,class,class\na,1,2,3,auto,auto\n",
	  TRACE_AUTO, NULL },
	{ "job_id,submission_time,duration,class,num_gpu\na,1,2,auto,3\n",
	  TRACE_AUTO, NULL },
	{ IT_C "a,1,2,3,1,best-effort\n", TRACE_AUTO,
	  "t.csv:2:11: class 'best-effort' is not guaranteed, opportunistic or auto" },
	{ IT_C "a,1,2,3,1,guaranteed-and-then-some-more-than-thirty-two\n",
	  TRACE_AUTO, "t.csv:2:11: class 'guaranteed-and-then-some-more-than-th...' "
	  "is not guaranteed, opportunistic or auto" },
	{ IT_C "a,1,2,3,1\n", TRACE_AUTO,
	  "t.csv:2:10: missing column 'class': 5 of 6 columns of a itp row" },
	/* missing column: the column just past the end of the line */
	{ PH "2017-10-09 07:01:55,66.0,1\n", TRACE_AUTO,
	  "t.csv:2:27: missing column 'gpu_time': 3 of 5 columns of a philly row" },
	{ IT "a,1,2,3\nb,1,2\n", TRACE_AUTO,
	  "t.csv:3:6: missing column 'num_gpu': 3 of 4 columns of a itp row" },
	{ PH "2017-10-09 07:01:55,66.0,1,66.0,11cb48,x,y\n", TRACE_AUTO,
	  "t.csv:2:40: extra column: 7 columns, a philly row has 5" },
	{ PH "2017-10-09 07:01:55,6x6,1,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:21: duration '6x6' is not a number" },
	{ PH "2017-10-09 07:01:55,-66,1,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:21: duration '-66' is negative" },
	{ PH "2017-10-09 07:01:55,66,0,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:24: num_gpus must be a whole number >= 1, not '0'" },
	{ PH "2017-10-09 07:01:55,66,1.5,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:24: num_gpus must be a whole number >= 1, not '1.5'" },
	{ PH "2017-10-09 07:01:55,66,,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:24: empty num_gpus" },
	{ PH "2017-02-29 07:01:55,66,1,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:1: timestamp '2017-02-29 07:01:55' is not a date and time "
	  "'YYYY-MM-DD HH:MM:SS' (UTC, 1970 or later)" },
	{ PH "2017-10-09 24:01:55,66,1,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:1: timestamp '2017-10-09 24:01:55' is not a date and time "
	  "'YYYY-MM-DD HH:MM:SS' (UTC, 1970 or later)" },
	{ PH "10/09/2017,66,1,66.0,11cb48\n", TRACE_AUTO,
	  "t.csv:2:1: timestamp '10/09/2017' is not a date and time "
	  "'YYYY-MM-DD HH:MM:SS' (UTC, 1970 or later)" },
	{ PH "2017-10-09 07:01:55,66,1,66.0,\n", TRACE_AUTO,
	  "t.csv:2:31: empty cluster" },
	{ PH "2017-10-09 07:01:55,66,1,nan,a\n", TRACE_AUTO,
	  "t.csv:2:26: gpu_time 'nan' is not a number" },
	{ IT "a,1,2,3\n\n a , 5,6,7\n", TRACE_AUTO,
	  "t.csv:4:2: duplicate job_id 'a' (first at line 2)" },
	{ IT "a,-1,2,3\n", TRACE_AUTO, "t.csv:2:3: submission_time '-1' is negative" },
	{ IT "a,1e11,2,3\n", TRACE_AUTO, "t.csv:2:3: submission_time '1e11' is too large" },
	{ IT "a,1,2,9999999\n", TRACE_AUTO, "t.csv:2:7: num_gpu '9999999' is more than 1048576" },
	{ IT "0123456789012345678901234567890123456789012345678901234567890123,1,2,3\n",
	  TRACE_AUTO, "t.csv:2:1: '0123456789012345678901234567890123456...' is longer "
	  "than 63 bytes" },
	{ TI "0,1,0,606,bert,164,30\r\n", TRACE_AUTO,
	  "t.csv:2:11: unknown model_name 'bert' (known: resnet50 resnet101 resnet152 "
	  "inception3 inception4 googlenet alexnet vgg11 vgg16 vgg19 lstm transformer "
	  "deepspeech dcgan bert-large mobilenet)" },
	{ TI "0,1,0,606,vgg16,164,30\r\n1,2,5,7,vgg16,x\r,3\r\n", TRACE_AUTO,
	  "t.csv:3:15: duration 'x\\x0d' is not a number" },
	/* a forced format reads line 1 as data unless it is that header */
	{ "job_id,when,duration,num_gpu\na,1,2,3\n", TRACE_ITP,
	  "t.csv:1:8: submission_time 'when' is not a number" },
	{ "a,1,2,3\n", TRACE_SYNTH, "t.csv:1:1: cannot read a trace of format 'synth' "
	  "from a file" },
	/* a span beyond TRACE_MAX_SPAN (issue 23, F5): both rows named, the
	   outlier first submitted or last to end */
	{ PH "2017-10-09 07:01:55,66,1,66.0,a\n9999-12-31 00:00:00,6,1,6.0,a\n"
	  "2017-10-08 07:01:55,66,1,66.0,a\n", TRACE_AUTO,
	  "t.csv:3:1: the trace would span 7982.1 years, from its first submission "
	  "(line 4) to this job's end; a trace may span at most 10 years (a wrong "
	  "date or time unit?)" },
	{ IT "a,0,2,1\nb,9e9,1e9,1\n", TRACE_AUTO,
	  "t.csv:3:1: the trace would span 316.9 years, from its first submission "
	  "(line 2) to this job's end; a trace may span at most 10 years (a wrong "
	  "date or time unit?)" },
	{ IT "a,0,315576001,1\n", TRACE_AUTO,
	  "t.csv:2:1: the trace would span 10.0 years, from its first submission "
	  "(line 2) to this job's end; a trace may span at most 10 years (a wrong "
	  "date or time unit?)" },
	/* no final newline: the last line still counts */
	{ IT "a,1,2,3\nb,1,2,0", TRACE_AUTO,
	  "t.csv:3:7: num_gpu must be a whole number >= 1, not '0'" },
};

static void
test_malformed(void)
{
	struct trace t;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = load_str(bad[i].text, bad[i].fmt, &t, &cause);
		CHECKF(rc < 0 && t.jobs == NULL && t.njobs == 0, "case %zu loaded", i);
		if (bad[i].want == NULL)	/* a header of no format */
			CHECKF(cause != NULL && strncmp(cause, "t.csv:1:1: header '", 19) == 0 &&
			    strstr(cause, "' is not a trace header (") != NULL,
			    "case %zu: got '%s'", i, cause ? cause : "(null)");
		else
			CHECKF(cause != NULL && strcmp(cause, bad[i].want) == 0,
			    "case %zu: got '%s', want '%s'", i, cause ? cause : "(null)",
			    bad[i].want);
		free(cause);
	}
}

/* The same rows with LF, CRLF, blank lines, padding and no final newline. */
static void
test_line_ends(void)
{
	static const char *const texts[] = {
		IT "a,10,2,3\nb,5,7,1\n",
		"job_id,submission_time,duration,num_gpu\r\na,10,2,3\r\nb,5,7,1\r\n",
		IT "a,10,2,3\nb,5,7,1",
		IT "\n  \na , 10 ,\t2,3\n\nb,5,\"7\",1\n\n",
	};
	struct trace t;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		if (load_str(texts[i], TRACE_AUTO, &t, &cause) < 0) {
			CHECKF(0, "text %zu: %s", i, cause);
			free(cause);
			continue;
		}
		CHECK_INTEQ(t.njobs, 2);
		CHECK(t.epoch == 5);
		CHECK_STREQ(t.jobs[0].name, "b");
		CHECK(t.jobs[0].submit == 0 && t.jobs[0].duration == 7 && t.jobs[0].gpus == 1);
		CHECK_STREQ(t.jobs[1].name, "a");
		CHECK(t.jobs[1].submit == 5 && t.jobs[1].duration == 2 && t.jobs[1].gpus == 3);
		trace_release(&t);
	}
	/* a headerless file with a forced format */
	CHECK(load_str("a,10,2,3\nb,5,7,1\n", TRACE_ITP, &t, &cause) == 0);
	CHECK_INTEQ(t.njobs, 2);
	CHECK_INTEQ(t.jobs[0].line, 2);
	trace_release(&t);
	free(cause);
}

/* Dates are UTC, computed from the civil date (no time zone). */
static void
test_dates(void)
{
	static const struct {
		const char	*date;
		double		 epoch;
	} d[] = {
		{ "1970-01-01 00:00:00", 0 },
		{ "2000-02-29 12:00:00", 951825600 },
		{ "2017-09-04 10:30:41", 1504521041 },
		{ "2017-12-31T23:59:59", 1514764799 },
		{ "2100-03-01 00:00:00", 4107542400 },
	};
	char text[256], *cause;
	struct trace t;
	size_t i;

	for (i = 0; i < sizeof d / sizeof d[0]; i++) {
		snprintf(text, sizeof text, PH "%s,1,1,1,x\n", d[i].date);
		if (load_str(text, TRACE_AUTO, &t, &cause) < 0) {
			CHECKF(0, "%s", cause);
			free(cause);
			continue;
		}
		CHECKF(t.epoch == d[i].epoch, "%s: %.0f", d[i].date, t.epoch);
		trace_release(&t);
	}
	CHECK(load_str(PH "2100-02-29 00:00:00,1,1,1,x\n", TRACE_AUTO, &t, &cause) < 0);
	free(cause);
	CHECK(load_str(PH "1969-12-31 23:59:59,1,1,1,x\n", TRACE_AUTO, &t, &cause) < 0);
	free(cause);
}

/* A file cannot crash the reader: random edits of a valid trace. */
static void
test_garbage(void)
{
	static const char base[] = PH
	    "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
	    "2017-10-09 06:13:03,2951.0,4,2951.0,6214e9\n";
	static const char junk[] = ",\n\r\"-.e9 x\t0";
	unsigned long long x = 88172645463325252ULL;
	struct trace t;
	char buf[sizeof base], *cause;
	int i, k, ok = 0, failed = 0;

	for (i = 0; i < 20000; i++) {
		memcpy(buf, base, sizeof base);
		for (k = 0; k < 3; k++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			buf[x % (sizeof base - 1)] = junk[(x >> 20) % (sizeof junk - 1)];
		}
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		if (load_str(buf, TRACE_AUTO, &t, &cause) == 0) {
			ok += trace_ok(&t);
			failed += !trace_ok(&t);
			trace_release(&t);
		} else {
			if (strncmp(cause, "t.csv:", 6) != 0)
				failed++;
			free(cause);
		}
		/* truncated at a random length */
		if (trace_load_string("t.csv", buf, x % sizeof base, TRACE_AUTO, &t,
		    &cause) == 0)
			trace_release(&t);
		else
			free(cause);
	}
	CHECK(ok > 0);
	CHECK_INTEQ(failed, 0);
}

static void
test_missing_file(void)
{
	struct trace t;
	char *cause = NULL;

	CHECK(trace_load(FIX "nope.csv", TRACE_AUTO, &t, &cause) < 0);
	CHECK_STREQ(cause, "cannot open trace '" FIX "nope.csv': No such file or directory");
	free(cause);
}

/* ---- transformations ---- */

static void
test_window(void)
{
	struct trace t, o;
	char *cause;
	double from = 86400 * 10, to = 86400 * 17;
	int i, want = 0, k;

	if (load_fix(FIX "philly-sample.csv", &t) < 0 || load_fix(FIX "philly-sample.csv", &o) < 0)
		return;
	for (i = 0; i < o.njobs; i++)
		want += o.jobs[i].submit >= from && o.jobs[i].submit < to;
	CHECK(trace_window(&t, from, to, &cause) == 0);
	CHECK_INTEQ(t.njobs, want);
	CHECK(want > 100);
	CHECK(trace_ok(&t));
	/* epoch + submit is still each job's original time */
	for (i = 0; i < t.njobs; i++) {
		k = find_job(&o, t.jobs[i].name);
		CHECK(k >= 0 && t.jobs[i].submit + t.epoch == o.jobs[k].submit + o.epoch);
		CHECK(o.jobs[k].submit >= from && o.jobs[k].submit < to);
	}
	/* nothing there: an error, the trace unchanged */
	cause = NULL;
	CHECK(trace_window(&t, 1e9, 2e9, &cause) < 0);
	CHECK(cause != NULL && strstr(cause, "holds no job") != NULL);
	free(cause);
	CHECK_INTEQ(t.njobs, want);
	CHECK(trace_window(&t, 5, 5, &cause) < 0);
	CHECK_STREQ(cause, "bad window [5, 5): it must start before it ends");
	free(cause);
	/* an open end */
	CHECK(trace_window(&o, 0, INFINITY, &cause) == 0);
	CHECK_INTEQ(o.njobs, 3062);
	trace_release(&t);
	trace_release(&o);
}

static void
names_of(const struct trace *t, struct strbuf *sb)
{
	int i;

	strbuf_reset(sb);
	for (i = 0; i < t->njobs; i++)
		strbuf_addf(sb, "%s,", t->jobs[i].name);
}

static void
test_sample(void)
{
	struct trace a, b, c;
	struct strbuf sa = STRBUF_INIT, sb2 = STRBUF_INIT;
	char *cause = NULL;
	double base;
	int i;

	if (load_fix(FIX "philly-sample.csv", &a) < 0 || load_fix(FIX "philly-sample.csv", &b) < 0 ||
	    load_fix(FIX "philly-sample.csv", &c) < 0)
		return;
	CHECK(trace_sample(&a, 0.3, 7, &cause) == 0);
	CHECK(trace_sample(&b, 0.3, 7, &cause) == 0);
	CHECK(trace_sample(&c, 0.3, 8, &cause) == 0);
	/* ~30% of 3062 = 919, sd ~25 */
	CHECKF(a.njobs > 819 && a.njobs < 1019, "%d", a.njobs);
	CHECK(trace_ok(&a));
	names_of(&a, &sa);
	names_of(&b, &sb2);
	CHECK_STREQ(sa.buf, sb2.buf);
	names_of(&c, &sb2);
	CHECK(strcmp(sa.buf, sb2.buf) != 0);
	/* sampling a window = windowing the sample */
	trace_release(&b);
	trace_release(&c);
	if (load_fix(FIX "philly-sample.csv", &b) < 0 || load_fix(FIX "philly-sample.csv", &c) < 0)
		return;
	/* b: window then sample; c: sample then the same window in original time */
	CHECK(trace_window(&b, 86400 * 20, 86400 * 40, &cause) == 0);
	CHECK(trace_sample(&b, 0.5, 3, &cause) == 0);
	base = c.epoch;
	CHECK(trace_sample(&c, 0.5, 3, &cause) == 0);
	CHECK(trace_window(&c, base + 86400 * 20 - c.epoch, base + 86400 * 40 - c.epoch,
	    &cause) == 0);
	names_of(&b, &sa);
	names_of(&c, &sb2);
	CHECK(b.njobs > 50);
	CHECK_STREQ(sa.buf, sb2.buf);
	CHECK(b.epoch == c.epoch);
	CHECK(trace_sample(&a, 0, 1, &cause) < 0);
	CHECK_STREQ(cause, "sample fraction 0 must be in (0, 1]");
	free(cause);
	CHECK(trace_sample(&a, 1.5, 1, &cause) < 0);
	free(cause);
	i = a.njobs;
	CHECK(trace_sample(&a, 1, 1, &cause) == 0);
	CHECK_INTEQ(a.njobs, i);
	strbuf_release(&sa);
	strbuf_release(&sb2);
	trace_release(&a);
	trace_release(&b);
	trace_release(&c);
}

static void
test_scale(void)
{
	struct trace t, o;
	char *cause = NULL;
	int i;

	if (load_fix(FIX "itp-cluster10.csv", &t) < 0 || load_fix(FIX "itp-cluster10.csv", &o) < 0)
		return;
	CHECK(trace_scale_load(&t, 2, &cause) == 0);
	CHECK(trace_ok(&t));
	for (i = 1; i < t.njobs; i++) {
		CHECK(fabs((t.jobs[i].submit - t.jobs[i - 1].submit) * 2 -
		    (o.jobs[i].submit - o.jobs[i - 1].submit)) < 1e-6);
		CHECK(t.jobs[i].duration == o.jobs[i].duration);
	}
	CHECK(trace_scale_load(&t, 0, &cause) < 0);
	CHECK_STREQ(cause, "load factor 0 must be > 0");
	free(cause);
	CHECK(trace_scale_load(&t, NAN, &cause) < 0);
	free(cause);
	trace_release(&t);
	trace_release(&o);
}

/* ---- the generator ---- */

static void
test_synth_deterministic(void)
{
	static const char *const vcs[] = { "a", "b" };
	struct synth_params p;
	struct trace a, b, c;
	char *cause = NULL;
	int i, same = 0;

	synth_params_init(&p);
	p.njobs = 500;
	p.seed = 42;
	p.vcs = vcs;
	p.nvcs = 2;
	CHECK(trace_synth(&p, &a, &cause) == 0);
	CHECK(trace_synth(&p, &b, &cause) == 0);
	p.seed = 43;
	CHECK(trace_synth(&p, &c, &cause) == 0);
	CHECK_INTEQ(a.njobs, 500);
	CHECK_INTEQ(a.format, TRACE_SYNTH);
	CHECK(trace_ok(&a));
	for (i = 0; i < a.njobs && i < b.njobs; i++)
		CHECK(strcmp(a.jobs[i].name, b.jobs[i].name) == 0 &&
		    strcmp(a.jobs[i].vc, b.jobs[i].vc) == 0 &&
		    a.jobs[i].submit == b.jobs[i].submit &&
		    a.jobs[i].duration == b.jobs[i].duration &&
		    a.jobs[i].gpus == b.jobs[i].gpus);
	for (i = 0; i < a.njobs; i++)
		same += a.jobs[i].submit == c.jobs[i].submit &&
		    a.jobs[i].duration == c.jobs[i].duration;
	CHECKF(same < 5, "%d jobs equal across seeds", same);
	CHECK_STREQ(a.jobs[0].name, "synth-0");
	CHECK_INTEQ(a.jobs[0].model, -1);
	trace_release(&a);
	trace_release(&b);
	trace_release(&c);
}

static int
cmpd(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static void
test_synth_shape(void)
{
	static const int sizes[] = { 1, 4, 8 };
	static const double gw[] = { 6, 3, 1 };
	static const char *const vcs[] = { "x", "y", "z" };
	static const double vw[] = { 1, 1, 2 };
	struct synth_params p;
	struct trace t;
	char *cause = NULL;
	double *d, gap;
	int i, k, n = 100000, cnt[3] = { 0 }, vcnt[3] = { 0 }, capped = 0;

	synth_params_init(&p);
	p.njobs = n;
	p.rate = 30;
	p.dur_median = 600;
	p.dur_sigma = 1.5;
	p.dur_max = 86400;
	p.gpu_sizes = sizes;
	p.gpu_weights = gw;
	p.ngpu_sizes = 3;
	p.vcs = vcs;
	p.vc_weights = vw;
	p.nvcs = 3;
	if (trace_synth(&p, &t, &cause) < 0) {
		CHECKF(0, "%s", cause);
		free(cause);
		return;
	}
	CHECK(trace_ok(&t));
	/* Poisson: mean inter-arrival 3600/30 = 120 s (sd of the mean ~0.4 s) */
	gap = t.jobs[n - 1].submit / (n - 1);
	CHECKF(fabs(gap - 120) < 2.4, "mean gap %.2f", gap);
	d = xreallocarray(NULL, (size_t)n, sizeof *d);
	for (i = 0; i < n; i++) {
		for (k = 0; k < 3; k++)
			cnt[k] += t.jobs[i].gpus == sizes[k];
		for (k = 0; k < 3; k++)
			vcnt[k] += strcmp(t.jobs[i].vc, vcs[k]) == 0;
		d[i] = t.jobs[i].duration;
		capped += d[i] == 86400;
		CHECK(d[i] >= 1 && d[i] <= 86400);
	}
	CHECK_INTEQ(cnt[0] + cnt[1] + cnt[2], n);
	CHECKF(fabs(cnt[0] / (double)n - 0.6) < 0.01, "%d", cnt[0]);
	CHECKF(fabs(cnt[1] / (double)n - 0.3) < 0.01, "%d", cnt[1]);
	CHECKF(fabs(cnt[2] / (double)n - 0.1) < 0.01, "%d", cnt[2]);
	CHECKF(fabs(vcnt[2] / (double)n - 0.5) < 0.01, "%d", vcnt[2]);
	CHECKF(fabs(vcnt[0] / (double)n - 0.25) < 0.01, "%d", vcnt[0]);
	qsort(d, (size_t)n, sizeof *d, cmpd);
	CHECKF(fabs(d[n / 2] / 600 - 1) < 0.05, "median %.0f", d[n / 2]);
	/* heavy tail: P(X > 86400) = P(Z > ln(144)/1.5 = 3.31) ~ 0.05% */
	CHECKF(capped > 10 && capped < 150, "%d capped", capped);
	free(d);
	trace_release(&t);

	synth_params_init(&p);
	p.rate = 0;
	CHECK(trace_synth(&p, &t, &cause) < 0);
	CHECK_STREQ(cause, "synth: arrival rate 0 per hour must be > 0");
	free(cause);
	synth_params_init(&p);
	p.gpu_weights = (const double[]){ 0, 0, 0, 0, 0, 0 };
	CHECK(trace_synth(&p, &t, &cause) < 0);
	free(cause);
	synth_params_init(&p);
	p.vcs = (const char *const[]){ "a", "a" };
	p.nvcs = 2;
	CHECK(trace_synth(&p, &t, &cause) < 0);
	CHECK_STREQ(cause, "synth: VC 'a' is listed twice");
	free(cause);
	CHECK(t.jobs == NULL);
}

/* ---- trace_to_jobs ---- */

/* Every job's shape can be placed on an empty engine of the spec. */
static void
check_placeable(const struct spec *s, const struct job *jobs, int n)
{
	struct engine_plan p;
	struct engine_req r;
	struct engine *e;
	char *cause = NULL;
	int i, id;

	e = engine_create(s, ENGINE_HIVED, &cause);
	CHECKF(e != NULL, "%s", cause ? cause : "?");
	if (e == NULL) {
		free(cause);
		return;
	}
	engine_plan_init(&p);
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof r);
		r.name = jobs[i].name;
		r.vc = jobs[i].vc;
		r.leaf_type = -1;
		r.pin = -1;
		r.nmembers = jobs[i].nmembers;
		memcpy(r.members, jobs[i].members, sizeof r.members);
		id = engine_alloc(e, &r, &p);
		CHECKF(id >= 0, "job '%s' %d x %d in vc '%s': %s", jobs[i].name,
		    jobs[i].members[0].pods, jobs[i].members[0].gpus,
		    s->vcs[jobs[i].vc].name, p.why);
		if (id >= 0)
			engine_release(e, id);
	}
	engine_plan_release(&p);
	engine_free(e);
}

static const struct {
	const char	*vc;
	int		 gpus, pods, size;	/* size 0: too big */
} shapes[] = {
	/* research: a rack of 8 nodes x 8 GPUs (switch 2, socket 4, node 8) */
	{ "research", 1, 1, 1 }, { "research", 3, 1, 3 }, { "research", 6, 1, 6 },
	{ "research", 8, 1, 8 }, { "research", 12, 3, 4 }, { "research", 16, 2, 8 },
	{ "research", 24, 3, 8 }, { "research", 10, 5, 2 }, { "research", 9, 9, 1 },
	{ "research", 64, 8, 8 }, { "research", 65, 0, 0 },
	/* dev: 2 sockets + 2 switches (12 GPUs), no node */
	{ "dev", 3, 1, 3 }, { "dev", 4, 1, 4 }, { "dev", 6, 3, 2 }, { "dev", 8, 2, 4 },
	{ "dev", 12, 6, 2 }, { "dev", 11, 11, 1 }, { "dev", 13, 0, 0 },
	/* infer: a pinned node (not for trace jobs) + 1 switch */
	{ "infer", 2, 1, 2 }, { "infer", 1, 1, 1 }, { "infer", 3, 0, 0 },
	/* prod: 4 nodes */
	{ "prod", 32, 4, 8 }, { "prod", 20, 5, 4 },
};

static char *
shapes_trace(bool big)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_adds(&sb, PH);
	for (i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
		if ((shapes[i].size == 0) == big)
			strbuf_addf(&sb, "2017-10-09 07:%02zu:00,%zu,%d,1,%s\n", i,
			    100 + i, shapes[i].gpus, shapes[i].vc);
	return strbuf_detach(&sb, NULL);
}

static void
test_shapes_default(void)
{
	struct spec *s = spec_fix("specs/default.yaml");
	struct trace t;
	struct job *jobs;
	char *text, *cause = NULL;
	int n, skipped, dropped, k;
	size_t i;

	if (s == NULL)
		return;
	text = shapes_trace(false);
	CHECK(load_str(text, TRACE_AUTO, &t, &cause) == 0);
	free(text);
	CHECKF(trace_to_jobs(&t, s, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) == 0,
	    "%s", cause ? cause : "");
	for (i = 0, k = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
		if (shapes[i].size == 0)
			continue;
		CHECKF(k < n && jobs[k].nmembers == 1 && jobs[k].members[0].pods ==
		    shapes[i].pods && jobs[k].members[0].gpus == shapes[i].size &&
		    jobs[k].gpus == shapes[i].gpus, "%s %d gpus: %d x %d", shapes[i].vc,
		    shapes[i].gpus, k < n ? jobs[k].members[0].pods : -1,
		    k < n ? jobs[k].members[0].gpus : -1);
		if (k < n) {
			CHECK_STREQ(s->vcs[jobs[k].vc].name, shapes[i].vc);
			CHECK_INTEQ(jobs[k].id, k);
			CHECK(jobs[k].duration == 100 + (double)i);
			CHECK(jobs[k].submit == t.jobs[k].submit);
			CHECK_INTEQ(jobs[k].state, JOB_PENDING);
			CHECK_INTEQ(jobs[k].model, model_pick(model_hash(jobs[k].name, 1)));
		}
		k++;
	}
	CHECK_INTEQ(n, k);
	CHECK(skipped == 0 && dropped == 0);
	check_placeable(s, jobs, n);
	free(jobs);
	trace_release(&t);

	/* the too-big ones: an error naming the first, or skipped and counted */
	text = shapes_trace(true);
	CHECK(load_str(text, TRACE_AUTO, &t, &cause) == 0);
	free(text);
	CHECK(trace_to_jobs(&t, s, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) < 0);
	CHECK_STREQ(cause, "job 't-2' (t.csv, line 2) asks for 65 gpus; vc 'research' of "
	    "spec 'specs/default.yaml' holds 64 in its largest chain, so it can never "
	    "run (--skip-too-big drops such jobs)");
	free(cause);
	CHECK(trace_to_jobs(&t, s, NULL, 1, true, &jobs, &n, &skipped, &dropped, &cause) == 0);
	CHECK_INTEQ(n, 0);
	CHECK(jobs == NULL);
	CHECK_INTEQ(skipped, 3);
	trace_release(&t);
	spec_free(s);
}

static void
test_vcmap_philly(void)
{
	struct spec *s = spec_fix("specs/philly.yaml");
	struct trace t;
	struct job *jobs;
	char *cause = NULL;
	int n, skipped, dropped, i, v7, n7 = 0, n6 = 0;

	if (s == NULL || load_fix(FIX "philly-sample.csv", &t) < 0) {
		spec_free(s);
		return;
	}
	CHECK(trace_to_jobs(&t, s, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) < 0);
	CHECK_STREQ(cause, "trace VCs '23dbec', '51b7ef', '795a4c', '925e2b' match no VC of "
	    "spec 'specs/philly.yaml' ('6214e9', '7f04ca', '11cb48', 'b436b2', 'ee9e8c', "
	    "'e13805', '6c71a0', '2869ce', 'ed69ec', '103959', '0e4a51'); map them with "
	    "--vc-map ('23dbec=6214e9', or '*=-' to drop their jobs)");
	free(cause);
	CHECK(trace_to_jobs(&t, s, "*=-", 1, false, &jobs, &n, &skipped, &dropped, &cause) == 0);
	CHECK_INTEQ(dropped, 18);
	CHECK_INTEQ(n, 3062 - 18);
	CHECK_INTEQ(skipped, 0);
	for (i = 0; i < n; i++)
		CHECK(jobs[i].id == i && (i == 0 || jobs[i].submit >= jobs[i - 1].submit));
	check_placeable(s, jobs, n < 300 ? n : 300);
	free(jobs);
	/* an explicit entry first, then names, then "*" */
	CHECK(trace_to_jobs(&t, s, " 23dbec = 6214e9 , 6214e9=7f04ca, *=-", 1, false, &jobs, &n,
	    &skipped, &dropped, &cause) == 0);
	CHECK_INTEQ(dropped, 10);
	v7 = spec_find_vc(s, "7f04ca");
	for (i = 0; i < n; i++) {
		n7 += jobs[i].vc == v7;
		n6 += jobs[i].vc == spec_find_vc(s, "6214e9");
	}
	CHECK_INTEQ(n7, 1517 + 21);
	CHECK_INTEQ(n6, 8);
	free(jobs);
	CHECK(trace_to_jobs(&t, s, "*=6214e9", 1, false, &jobs, &n, &skipped, &dropped,
	    &cause) == 0);
	CHECK(n == 3062 && dropped == 0);
	free(jobs);
	/* vcmap mistakes */
	CHECK(trace_to_jobs(&t, s, "23dbec=nope", 1, false, &jobs, &n, NULL, NULL, &cause) < 0);
	CHECK(cause != NULL && strncmp(cause, "--vc-map entry '23dbec=nope': spec "
	    "'specs/philly.yaml' has no VC 'nope' (VCs: '6214e9', ", 70) == 0);
	free(cause);
	CHECK(trace_to_jobs(&t, s, "23dbec", 1, false, &jobs, &n, NULL, NULL, &cause) < 0);
	CHECK_STREQ(cause, "bad --vc-map entry '23dbec': expected TRACE_VC=SPEC_VC, *=SPEC_VC or *=-");
	free(cause);
	CHECK(trace_to_jobs(&t, s, "a=-,a=6214e9", 1, false, &jobs, &n, NULL, NULL, &cause) < 0);
	CHECK_STREQ(cause, "--vc-map maps 'a' twice");
	free(cause);
	CHECK(trace_to_jobs(&t, s, "=6214e9", 1, false, &jobs, &n, NULL, NULL, &cause) < 0);
	CHECK_STREQ(cause, "bad --vc-map entry '=6214e9': empty VC name");
	free(cause);
	trace_release(&t);
	spec_free(s);
}

/*
 * The optional columns in any order and any format, carried into the jobs;
 * without them every job is priority 0, weight 1.
 */
static void
test_priority_weight(void)
{
	static const char with[] =
	    "job_id,num_gpu,submit_time,iterations,model_name,duration,interval,"
	    "Weight, priority ,gpus_max\n"
	    "x,1,0,606,vgg19,164,30,3,7,2\n"
	    "y,2,5,606,lstm,100,30, 1 ,1000,2\n";
	static const char without[] =
	    "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
	    "x,1,0,606,vgg19,164,30\n";
	struct spec *n2 = spec_fix("specs/tiresias-n2g4.yaml");
	struct trace t;
	struct job *jobs;
	char *cause;
	int n, skipped, dropped;

	if (n2 == NULL)
		return;
	CHECKF(load_str(with, TRACE_AUTO, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK_INTEQ(t.njobs, 2);
	CHECK(t.jobs[0].priority == 7 && t.jobs[0].weight == 3 && t.jobs[0].gpus_max == 2);
	CHECK(t.jobs[1].priority == 1000 && t.jobs[1].weight == 1 && t.jobs[1].gpus_max == 2);
	CHECK(trace_to_jobs(&t, n2, NULL, 1, false, &jobs, &n, &skipped, &dropped,
	    &cause) == 0);
	CHECK_INTEQ(n, 2);
	CHECK(jobs[0].priority == 7 && jobs[0].weight == 3 && jobs[0].elastic_max == 2);
	CHECK(jobs[1].priority == 1000 && jobs[1].weight == 1 && jobs[1].elastic_max == 0);
	free(jobs);
	trace_release(&t);
	/* a forced format takes the same header */
	CHECKF(load_str(with, TRACE_TIRESIAS, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK(t.njobs == 2 && t.jobs[0].priority == 7);
	trace_release(&t);
	CHECKF(load_str(without, TRACE_AUTO, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK(t.jobs[0].priority == 0 && t.jobs[0].weight == 0);
	CHECK(trace_to_jobs(&t, n2, NULL, 1, false, &jobs, &n, &skipped, &dropped,
	    &cause) == 0);
	CHECK(n == 1 && jobs[0].priority == 0 && jobs[0].weight == 1);
	free(jobs);
	trace_release(&t);
	spec_free(n2);
}

/*
 * The class column: any case, blanks around it, in any place after the
 * format's columns; a job with an empty field or without the column carries
 * no class of its own, so a run's --class or policy default applies to it.
 */
static void
test_class_column(void)
{
	static const char with[] =
	    "timestamp,duration,num_gpus,gpu_time,cluster,Class,priority\n"
	    "2017-10-09 07:00:00,60,1,60,23dbec, Opportunistic ,3\n"
	    "2017-10-09 07:00:10,60,1,60,23dbec,guaranteed,0\n"
	    "2017-10-09 07:00:20,60,1,60,23dbec,AUTO,0\n"
	    "2017-10-09 07:00:30,60,1,60,23dbec,  ,0\n";
	static const char without[] = IT "a,0,60,1\n";
	struct spec *s = spec_fix("specs/default.yaml");
	struct trace t;
	struct job *jobs;
	char *cause;
	int n;

	if (s == NULL)
		return;
	CHECKF(load_str(with, TRACE_AUTO, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK_INTEQ(t.njobs, 4);
	CHECK_INTEQ(t.jobs[0].klass, 1 + JOB_OPPORTUNISTIC);
	CHECK_INTEQ(t.jobs[1].klass, 1 + JOB_GUARANTEED);
	CHECK_INTEQ(t.jobs[2].klass, 1 + JOB_AUTO);
	CHECK_INTEQ(t.jobs[3].klass, 0);	/* empty: none of its own */
	CHECK_INTEQ(t.jobs[0].priority, 3);
	CHECKF(trace_to_jobs(&t, s, "*=prod", 1, false, &jobs, &n, NULL, NULL, &cause) == 0,
	    "%s", cause ? cause : "");
	CHECK_INTEQ(n, 4);
	CHECK(jobs[0].klass == JOB_OPPORTUNISTIC && jobs[0].class_given);
	CHECK(jobs[1].klass == JOB_GUARANTEED && jobs[1].class_given);
	CHECK(jobs[2].klass == JOB_AUTO && jobs[2].class_given);
	CHECK(jobs[3].klass == JOB_GUARANTEED && !jobs[3].class_given);
	free(jobs);
	trace_release(&t);
	CHECKF(load_str(with, TRACE_PHILLY, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK(t.njobs == 4 && t.jobs[0].klass == 1 + JOB_OPPORTUNISTIC);
	trace_release(&t);
	CHECKF(load_str(without, TRACE_AUTO, &t, &cause) == 0, "%s", cause ? cause : "");
	CHECK_INTEQ(t.jobs[0].klass, 0);
	CHECKF(trace_to_jobs(&t, s, "*=prod", 1, false, &jobs, &n, NULL, NULL, &cause) == 0,
	    "%s", cause ? cause : "");
	CHECK(n == 1 && jobs[0].klass == JOB_GUARANTEED && !jobs[0].class_given);
	free(jobs);
	trace_release(&t);
	spec_free(s);
}

static void
test_novc_traces(void)
{
	struct spec *def = spec_fix("specs/default.yaml");
	struct spec *n32 = spec_fix("specs/tiresias-n32g4.yaml");
	struct spec *n2 = spec_fix("specs/tiresias-n2g4.yaml");
	struct trace itp, tir;
	struct job *jobs;
	char *cause = NULL;
	int n, skipped, dropped, i, g16 = 0;

	if (def == NULL || n32 == NULL || n2 == NULL || load_fix(FIX "itp-cluster10.csv", &itp) < 0 ||
	    load_fix(FIX "tiresias-60_job.csv", &tir) < 0)
		goto out;
	/* a single-VC spec takes everything */
	CHECK(trace_to_jobs(&itp, n32, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) == 0);
	CHECK_INTEQ(n, 260);
	for (i = 0; i < n; i++) {
		CHECK_INTEQ(jobs[i].vc, 0);
		if (jobs[i].gpus == 16) {
			g16++;
			CHECK(jobs[i].members[0].pods == 4 && jobs[i].members[0].gpus == 4);
		}
	}
	CHECK_INTEQ(g16, 2);
	check_placeable(n32, jobs, n);
	free(jobs);
	/* 16 GPUs never fit 8 */
	CHECK(trace_to_jobs(&itp, n2, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) < 0);
	CHECK(cause != NULL && strstr(cause, "asks for 16 gpus; vc 'default'") != NULL);
	free(cause);
	CHECK(trace_to_jobs(&itp, n2, NULL, 1, true, &jobs, &n, &skipped, &dropped, &cause) == 0);
	CHECK(n == 258 && skipped == 2);
	free(jobs);
	/* several VCs: the operator must choose */
	CHECK(trace_to_jobs(&itp, def, NULL, 1, false, &jobs, &n, &skipped, &dropped, &cause) < 0);
	CHECK_STREQ(cause, "trace '" FIX "itp-cluster10.csv' names no VCs and spec "
	    "'specs/default.yaml' has 4 ('research', 'prod', 'dev', 'infer'); choose one "
	    "with --vc-map '*=research'");
	free(cause);
	CHECK(trace_to_jobs(&itp, def, "*=prod", 1, false, &jobs, &n, &skipped, &dropped,
	    &cause) == 0);
	CHECK(n == 260 && jobs[0].vc == spec_find_vc(def, "prod"));
	check_placeable(def, jobs, n);
	free(jobs);
	CHECK(trace_to_jobs(&itp, def, "*=-", 1, false, &jobs, &n, &skipped, &dropped,
	    &cause) == 0);
	CHECK(n == 0 && jobs == NULL && dropped == 260);
	/* tiresias on its 2 x 4 cluster: models from the trace, 8 GPUs = 2 x 4 */
	CHECK(trace_to_jobs(&tir, n2, NULL, 5, false, &jobs, &n, &skipped, &dropped, &cause) == 0);
	CHECK_INTEQ(n, 60);
	for (i = 0; i < n; i++) {
		CHECK_INTEQ(jobs[i].model, tir.jobs[i].model);
		if (jobs[i].gpus == 8)
			CHECK(jobs[i].members[0].pods == 2 && jobs[i].members[0].gpus == 4);
		else
			CHECK(jobs[i].members[0].pods == 1);
	}
	check_placeable(n2, jobs, n);
	free(jobs);
out:
	trace_release(&itp);
	trace_release(&tir);
	spec_free(def);
	spec_free(n32);
	spec_free(n2);
}

/* Models by name hash: deterministic in the seed, not all the same, and
   the hash's values pinned. */
static void
test_models(void)
{
	struct spec *s = spec_fix("specs/tiresias-n32g4.yaml");
	struct trace t;
	struct job *a, *b, *c;
	char *cause = NULL;
	int n, i, diff = 0, seen[64] = { 0 }, kinds = 0;

	if (s == NULL || load_fix(FIX "itp-cluster10.csv", &t) < 0) {
		spec_free(s);
		return;
	}
	CHECK(trace_to_jobs(&t, s, NULL, 9, false, &a, &n, NULL, NULL, &cause) == 0);
	CHECK(trace_to_jobs(&t, s, NULL, 9, false, &b, &n, NULL, NULL, &cause) == 0);
	CHECK(trace_to_jobs(&t, s, NULL, 10, false, &c, &n, NULL, NULL, &cause) == 0);
	for (i = 0; i < n; i++) {
		CHECK(a[i].model == b[i].model && a[i].model >= 0 && a[i].model < model_count);
		diff += a[i].model != c[i].model;
		if (!seen[a[i].model]++)
			kinds++;
	}
	CHECK(diff > n / 2);
	CHECK(kinds >= 8);
	/* the values themselves never change (fnv.h invariant 1): a seed gives
	   a job the model it always had, whatever computes the hash */
	CHECK(model_hash("", 1) == 0x61c1c69d66f33487ULL);
	CHECK(model_hash("job-1", 1) == 0x801ccd290a67f8e8ULL);
	CHECK(model_hash("job-1", 2) == 0x355e7ee1d2e059b1ULL);
	CHECK(model_hash("philly-00042", 7) == 0xe6bfd7d5a192f746ULL);
	free(a);
	free(b);
	free(c);
	trace_release(&t);
	spec_free(s);
}

static void
test_summary(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct trace t;

	if (load_fix(FIX "philly-sample.csv", &t) < 0)
		return;
	trace_summary(&t, &sb);
	CHECK_STREQ(sb.buf, "philly '" FIX "philly-sample.csv': 3062 jobs, 15 VCs, "
	    "submitted over 92.9 days, gpus 1-32 (mean 1.30), duration median 19.0 min "
	    "p95 13.3 h max 23.5 days, 29029 gpu-hours, mean demand 13.0 gpus, "
	    "models by name hash");
	trace_release(&t);
	strbuf_reset(&sb);
	if (load_fix(FIX "tiresias-60_job.csv", &t) < 0)
		return;
	trace_summary(&t, &sb);
	CHECK(strstr(sb.buf, "tiresias '" FIX "tiresias-60_job.csv': 60 jobs, no VCs, ") == sb.buf);
	CHECK(strstr(sb.buf, "models from the trace") != NULL);
	trace_release(&t);
	strbuf_release(&sb);
}

/* The Tiresias specs load cleanly and their VC holds the whole cluster at once. */
static void
test_tiresias_specs(void)
{
	static const struct {
		const char	*path;
		int		 gpus, nodes;
	} sp[] = {
		{ "specs/tiresias-n2g4.yaml", 8, 2 },
		{ "specs/tiresias-n32g4.yaml", 128, 32 },
	};
	struct spec_diags d;
	struct spec *s;
	struct job j;
	size_t i;

	for (i = 0; i < sizeof sp / sizeof sp[0]; i++) {
		spec_diags_init(&d);
		s = spec_load(sp[i].path, &d);
		CHECKF(s != NULL && d.errors == 0 && d.warnings == 0, "%s: %s", sp[i].path,
		    d.n ? d.v[0].text : "?");
		spec_diags_release(&d);
		if (s == NULL)
			continue;
		CHECK_INTEQ(s->gpus, sp[i].gpus);
		CHECK_INTEQ(s->nnodes, sp[i].nodes);
		CHECK_INTEQ(s->nvcs, 1);
		CHECK_STREQ(s->vcs[0].name, "default");
		job_init(&j, 0, "all", 0, 0);
		job_set_shape(&j, sp[i].nodes, 4);
		check_placeable(s, &j, 1);
		spec_free(s);
	}
}

static const struct test tests[] = {
	{ "format-names", test_format_names },
	{ "philly-sample", test_philly_sample },
	{ "itp-sample", test_itp_sample },
	{ "tiresias-files", test_tiresias_files },
	{ "malformed", test_malformed },
	{ "line-ends", test_line_ends },
	{ "dates", test_dates },
	{ "garbage", test_garbage },
	{ "missing-file", test_missing_file },
	{ "window", test_window },
	{ "sample", test_sample },
	{ "scale", test_scale },
	{ "synth-deterministic", test_synth_deterministic },
	{ "synth-shape", test_synth_shape },
	{ "shapes-default", test_shapes_default },
	{ "vcmap-philly", test_vcmap_philly },
	{ "novc-traces", test_novc_traces },
	{ "priority-weight", test_priority_weight },
	{ "class-column", test_class_column },
	{ "models", test_models },
	{ "summary", test_summary },
	{ "tiresias-specs", test_tiresias_specs },
};

TEST_MAIN(tests)
