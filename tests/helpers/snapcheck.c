/*
 * snapcheck.c — a test helper for the store's concurrency test (t0440):
 * reads one JSON document that `cellar jobs --run ID -o json` or `cellar
 * events --run ID -o json` printed on stdin and checks that it shows one
 * consistent state of a replay, whatever instant a reader caught.
 *
 *   snapcheck jobs      every job once (ids 0..n-1: a replay stores its
 *                       jobs in submission order, so a checkpoint holds a
 *                       prefix of them), a known state code, a job that
 *                       holds cells (R, S, CG) has nodes and GPU addresses
 *                       and no other job has any, and no GPU address is
 *                       held by two jobs
 *   snapcheck events    seqs strictly increasing without a gap, each job's
 *                       history begins with its submission, nothing follows
 *                       its completion, a start never follows a start
 *
 * On success it prints one line of counts ("jobs=N R=.. PD=.. CD=.. other=..
 * gpus=..", "events=N first=S last=L jobs=J") and exits 0; otherwise it
 * prints what is wrong and exits 1. Links the project's JSON reader and
 * hostlist code (core/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostlist.h"
#include "core/json.h"
#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

#define MAXJOBS	(1 << 20)

static char *
slurp(size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	size_t n;

	while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
		strbuf_add(&sb, buf, n);
	*len = sb.len;
	return strbuf_detach(&sb, NULL);
}

static int
fail(const char *fmt, const char *a, long long b)
{
	printf("snapcheck: ");
	printf(fmt, a, b);
	printf("\n");
	return 1;
}

/* One object of the array: its fields as strings ("null" for null). */
struct obj {
	struct strvec	 keys;
	struct strvec	 vals;
};

static const char *
get(const struct obj *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->keys.n; i++)
		if (strcmp(o->keys.v[i], key) == 0)
			return o->vals.v[i];
	return NULL;
}

/*
 * Position r just inside the array under key `name` of the top-level
 * object; then read_obj takes one element at a time.
 */
static int
find_array(struct json_reader *r, const char *name, char **cause)
{
	struct json_token t;
	int depth = 0;

	for (;;) {
		if (json_reader_next(r, &t, cause) != 0)
			return -1;
		switch (t.type) {
		case JSON_TOK_END:
			*cause = xasprintf("no array '%s'", name);
			return -1;
		case JSON_TOK_OBJECT:
			depth++;
			break;
		case JSON_TOK_STRING:
			if (depth == 1 && strcmp(t.str, name) == 0) {
				if (json_reader_next(r, &t, cause) != 0)
					return -1;
				if (t.type != JSON_TOK_ARRAY) {
					*cause = xasprintf("'%s' is no array", name);
					return -1;
				}
				return 0;
			}
			if (depth == 1) {	/* a key: skip its value */
				if (json_reader_next(r, &t, cause) != 0 ||
				    json_reader_skip(r, &t, cause) != 0)
					return -1;
			}
			break;
		default:
			break;
		}
	}
}

/* The next element (1), the array's end (0), or -1. */
static int
read_obj(struct json_reader *r, struct obj *o, char **cause)
{
	struct json_token t;
	char *key;

	strvec_release(&o->keys);
	strvec_release(&o->vals);
	if (json_reader_next(r, &t, cause) != 0)
		return -1;
	if (t.type == JSON_TOK_ARRAY_END)
		return 0;
	if (t.type != JSON_TOK_OBJECT) {
		*cause = xstrdup("an element is no object");
		return -1;
	}
	for (;;) {
		if (json_reader_next(r, &t, cause) != 0)
			return -1;
		if (t.type == JSON_TOK_OBJECT_END)
			return 1;
		if (t.type != JSON_TOK_STRING) {
			*cause = xstrdup("a key is no string");
			return -1;
		}
		key = xstrdup(t.str);
		if (json_reader_next(r, &t, cause) != 0) {
			free(key);
			return -1;
		}
		strvec_push(&o->keys, key);
		free(key);
		if (t.type == JSON_TOK_STRING)
			strvec_push(&o->vals, t.str);
		else if (t.type == JSON_TOK_NULL)
			strvec_push(&o->vals, "null");
		else if (t.type == JSON_TOK_OBJECT || t.type == JSON_TOK_ARRAY) {
			strvec_push(&o->vals, "{}");
			if (json_reader_skip(r, &t, cause) != 0)
				return -1;
		} else {
			char *v = xmalloc(t.len + 1);

			memcpy(v, t.text, t.len);
			v[t.len] = '\0';
			strvec_push(&o->vals, v);
			free(v);
		}
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
check_jobs(struct json_reader *r)
{
	static const char *const holding[] = { "R", "S", "CG" };
	static const char *const idle[] = { "PD", "PR", "CD", "F", "CA" };
	struct obj o = { STRVEC_INIT, STRVEC_INIT };
	struct strvec gpus = STRVEC_INIT, names = STRVEC_INIT;
	char *cause = NULL, *seen = xcalloc(MAXJOBS, 1);
	long long n = 0, nr = 0, npd = 0, ncd = 0, nother = 0, maxid = -1, id;
	const char *st, *nodes, *addrs, *name;
	size_t i;
	bool hold, known;
	int rc, ret = 0;

	if (find_array(r, "jobs", &cause) != 0) {
		ret = fail("%s%.0lld", cause, 0);
		goto out;
	}
	while ((rc = read_obj(r, &o, &cause)) == 1) {
		n++;
		st = get(&o, "state_code");
		nodes = get(&o, "nodes");
		addrs = get(&o, "gpu_addresses");
		name = get(&o, "job");
		if (get(&o, "id") == NULL || st == NULL || nodes == NULL ||
		    addrs == NULL || name == NULL) {
			ret = fail("job %s (element %lld) lacks a field",
			    name ? name : "?", n);
			goto out;
		}
		id = strtoll(get(&o, "id"), NULL, 10);
		if (id < 0 || id >= MAXJOBS || seen[id]) {
			ret = fail("job %s: id %lld twice or out of range", name, id);
			goto out;
		}
		seen[id] = 1;
		if (id > maxid)
			maxid = id;
		strvec_push(&names, name);
		hold = known = false;
		for (i = 0; i < 3; i++)
			if (strcmp(st, holding[i]) == 0)
				hold = known = true;
		for (i = 0; i < 5; i++)
			if (strcmp(st, idle[i]) == 0)
				known = true;
		if (!known) {
			ret = fail("job %s: unknown state code (element %lld)", name, n);
			goto out;
		}
		if (strcmp(st, "R") == 0)
			nr++;
		else if (strcmp(st, "PD") == 0)
			npd++;
		else if (strcmp(st, "CD") == 0)
			ncd++;
		else
			nother++;
		if (hold != (strcmp(nodes, "null") != 0) ||
		    hold != (strcmp(addrs, "null") != 0)) {
			ret = fail("job %s: its state and placement disagree "
			    "(element %lld)", name, n);
			goto out;
		}
		if (!hold)
			continue;
		/* "node:addrs node:addrs": every GPU as "node:addr". */
		{
			char *copy = xstrdup(addrs), *tok, *save = NULL, *colon;

			for (tok = strtok_r(copy, " ", &save); tok != NULL;
			    tok = strtok_r(NULL, " ", &save)) {
				struct strvec a = STRVEC_INIT;

				if ((colon = strchr(tok, ':')) == NULL) {
					free(copy);
					ret = fail("job %s: GPU addresses are no "
					    "NODE:ADDRS list (element %lld)", name, n);
					goto out;
				}
				*colon = '\0';
				if (hostlist_expand(colon + 1, &a, &cause) != 0) {
					strvec_release(&a);
					free(copy);
					ret = fail("job %s: bad GPU addresses (element "
					    "%lld)", name, n);
					goto out;
				}
				for (i = 0; i < a.n; i++) {
					char *g = xasprintf("%s:%s", tok, a.v[i]);

					strvec_push(&gpus, g);
					free(g);
				}
				strvec_release(&a);
			}
			free(copy);
		}
	}
	if (rc < 0) {
		ret = fail("%s%.0lld", cause, 0);
		goto out;
	}
	if (maxid != n - 1) {
		ret = fail("the jobs are not a prefix of the trace (%s%lld jobs)", "", n);
		goto out;
	}
	if (gpus.n > 1) {
		qsort(gpus.v, gpus.n, sizeof *gpus.v, cmp_str);
		for (i = 1; i < gpus.n; i++)
			if (strcmp(gpus.v[i - 1], gpus.v[i]) == 0) {
				ret = fail("GPU %s held by two jobs%.0lld", gpus.v[i], 0);
				goto out;
			}
	}
	if (names.n > 1) {
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
		for (i = 1; i < names.n; i++)
			if (strcmp(names.v[i - 1], names.v[i]) == 0) {
				ret = fail("job %s listed twice%.0lld", names.v[i], 0);
				goto out;
			}
	}
	printf("jobs=%lld R=%lld PD=%lld CD=%lld other=%lld gpus=%zu\n", n, nr, npd,
	    ncd, nother, gpus.n);
out:	/* every path frees: make asan runs this helper under LeakSanitizer */
	strvec_release(&o.keys);
	strvec_release(&o.vals);
	strvec_release(&gpus);
	strvec_release(&names);
	free(seen);
	free(cause);
	return ret;
}

/* What a job's history allows next, by its last event's kind. */
static int
check_events(struct json_reader *r)
{
	struct obj o = { STRVEC_INIT, STRVEC_INIT };
	struct strvec jobs = STRVEC_INIT, last = STRVEC_INIT;
	long long n = 0, seq, prev = 0, first = 0;
	const char *kind, *job;
	char *cause = NULL;
	size_t i;
	int rc, ret = 0;

	if (find_array(r, "events", &cause) != 0) {
		ret = fail("%s%.0lld", cause, 0);
		goto out;
	}
	while ((rc = read_obj(r, &o, &cause)) == 1) {
		n++;
		if (get(&o, "seq") == NULL || (kind = get(&o, "kind")) == NULL ||
		    (job = get(&o, "job")) == NULL) {
			ret = fail("event %s%lld lacks a field", "", n);
			goto out;
		}
		seq = strtoll(get(&o, "seq"), NULL, 10);
		if (n == 1)
			first = seq;
		else if (seq != prev + 1) {
			ret = fail("seq %s%lld does not follow the one before",
			    "", seq);
			goto out;
		}
		prev = seq;
		if (strcmp(job, "null") == 0)
			continue;
		/* Linear search: the test's runs hold a few thousand jobs. */
		for (i = 0; i < jobs.n && strcmp(jobs.v[i], job) != 0; i++)
			;
		if (i == jobs.n) {
			if (strcmp(kind, "submit") != 0) {
				ret = fail("job %s's history begins at seq %lld, not "
				    "with its submission", job, seq);
				goto out;
			}
			strvec_push(&jobs, job);
			strvec_push(&last, kind);
			continue;
		}
		if (strcmp(last.v[i], "complete") == 0) {
			ret = fail("job %s has an event after its completion (seq "
			    "%lld)", job, seq);
			goto out;
		}
		if (strcmp(kind, "start") == 0 && strcmp(last.v[i], "start") == 0) {
			ret = fail("job %s starts twice in a row (seq %lld)", job, seq);
			goto out;
		}
		free(last.v[i]);
		last.v[i] = xstrdup(kind);
	}
	if (rc < 0) {
		ret = fail("%s%.0lld", cause, 0);
		goto out;
	}
	printf("events=%lld first=%lld last=%lld jobs=%zu\n", n, first, prev, jobs.n);
out:
	strvec_release(&o.keys);
	strvec_release(&o.vals);
	strvec_release(&jobs);
	strvec_release(&last);
	free(cause);
	return ret;
}

int
main(int argc, char **argv)
{
	struct json_reader r;
	char *text, *cause = NULL;
	size_t len, end;
	int rc;

	if (argc != 2 || (strcmp(argv[1], "jobs") != 0 && strcmp(argv[1], "events") != 0)) {
		fprintf(stderr, "usage: snapcheck jobs|events < DOCUMENT\n");
		return 2;
	}
	text = slurp(&len);
	if (json_validate(text, len, &end, &cause) != 0 || end != len) {
		rc = fail("not one JSON document: %s%.0lld",
		    cause != NULL ? cause : "trailing bytes", 0);
		free(cause);
		free(text);
		return rc;
	}
	json_reader_init(&r, text, len);
	rc = strcmp(argv[1], "jobs") == 0 ? check_jobs(&r) : check_events(&r);
	json_reader_release(&r);
	free(text);
	return rc;
}
