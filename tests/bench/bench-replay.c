/*
 * bench-replay.c — the emulator on the full public traces: the Philly trace
 * (82,247 jobs) on specs/philly.yaml under every policy in hived mode and
 * las in the other modes, and the ITP cluster04 trace (15,802 jobs) on the
 * same cluster's largest VC, where it queues deeply. Each run happens in a
 * child process so its peak memory is its own. Prints one line per run:
 *
 *   replay TRACE policy=P sharing=M jobs=N events=E wall_s=.. jobs_per_s=..
 *          us_per_event=.. peak_rss_mb=..
 *
 * The traces come from $CELLAR_TRACES, /work/shared/traces or
 * ../shared/traces; without them the benchmark says so and skips.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "policy/policy.h"
#include "sim/replay.h"
#include "spec/spec.h"

/* One run, in this (child) process. */
static int
one(const char *label, const char *trace, const char *vcmap, const char *policy,
    enum engine_mode mode)
{
	struct spec *s = spec_load("specs/philly.yaml", NULL);
	struct replay_cfg c;
	struct replay r;
	struct replay_result res;
	struct policy_params pp;
	struct emu_params ep;
	struct policy p;
	struct rusage ru;
	char *cause = NULL;
	double t0, t1, t2;

	if (s == NULL) {
		fprintf(stderr, "bench-replay: cannot load specs/philly.yaml\n");
		return 1;
	}
	replay_cfg_init(&c);
	c.trace = trace;
	c.vcmap = vcmap;
	t0 = bench_now();
	if (replay_prepare(&r, s, &c, &cause) < 0) {
		fprintf(stderr, "bench-replay: %s\n", cause);
		return 1;
	}
	policy_params_init(&pp);
	emu_params_init(&ep);
	if (policy_init(&p, policy_find(policy), &pp, &cause) < 0) {
		fprintf(stderr, "bench-replay: %s\n", cause);
		return 1;
	}
	t1 = bench_now();
	if (replay_run(&r, &p, mode, &ep, NULL, NULL, &res, &cause) < 0) {
		fprintf(stderr, "bench-replay: %s\n", cause);
		return 1;
	}
	t2 = bench_now();
	getrusage(RUSAGE_SELF, &ru);
	printf("replay %s policy=%s sharing=%s jobs=%d done=%d events=%lld load_s=%.3f "
	    "wall_s=%.3f jobs_per_s=%.0f us_per_event=%.2f peak_rss_mb=%.1f "
	    "jct_avg=%.0f queue_avg=%.0f\n",
	    label, policy, engine_mode_name(mode), r.njobs, res.report.all.done,
	    res.events, t1 - t0, t2 - t1, r.njobs / (t2 - t1),
	    1e6 * (t2 - t1) / (double)(res.events ? res.events : 1),
	    ru.ru_maxrss / 1024.0, res.report.all.jct.avg, res.report.all.queue.avg);
	fflush(stdout);
	replay_result_release(&res);
	policy_release(&p);
	replay_release(&r);
	spec_free(s);
	return 0;
}

static int
child(const char *label, const char *trace, const char *vcmap, const char *policy,
    enum engine_mode mode)
{
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(one(label, trace, vcmap, policy, mode));
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int
main(void)
{
	static const char *const policies[] = { "fifo", "las", "gittins", "srtf" };
	const char *dir = bench_traces_dir();
	char philly[4096], itp[4096];
	size_t i;
	int bad = 0;

	if (dir == NULL) {
		printf("replay: no traces found (set CELLAR_TRACES); skipped\n");
		return 0;
	}
	snprintf(philly, sizeof philly, "%s/philly.csv", dir);
	snprintf(itp, sizeof itp, "%s/itp/cluster04.csv", dir);
	for (i = 0; i < sizeof policies / sizeof policies[0]; i++)
		bad |= child("philly", philly, "*=-", policies[i], ENGINE_HIVED);
	bad |= child("philly", philly, "*=-", "las", ENGINE_QUOTA);
	bad |= child("philly", philly, "*=-", "las", ENGINE_PRIVATE);
	bad |= child("itp-cluster04", itp, "*=6214e9", "las", ENGINE_HIVED);
	bad |= child("itp-cluster04", itp, "*=6214e9", "fifo", ENGINE_HIVED);
	return bad;
}
