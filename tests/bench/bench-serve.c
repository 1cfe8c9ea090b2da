/*
 * bench-serve.c — submits through a cellar server (cellar serve, a store
 * on a file): throughput with 1 and 8 concurrent clients, and each
 * submit's latency from the client's send to its reply (the decision
 * committed), p50 and p99, as the store grows from 0 to 100,000 jobs.
 *
 * The cluster: 8 nodes x 8 GPUs, one VC, hooks that do nothing (start
 * true, status running). Each client sends `submit NAME --vc a --gpus 64
 * -- true` then `cancel NAME`, in a loop, on its own connection; only the
 * submits are timed, throughput counts pairs. Two kinds of round:
 *  - queued (the goal's measure, as Slurm's submission rate is): a job
 *    submitted first holds the whole cluster, so every submit is queued
 *    behind it and its cancel takes it out again; no hook runs. The store
 *    grows by one job per pair; between the measured rounds 8 clients
 *    fill it up to the next size with the same pairs.
 *  - started (first, on the empty store): no holder, so a submit's job
 *    starts at once and its cancel stops it: a start and a stop hook per
 *    pair, each a process (the hook's watchdog shell and the hook's).
 *
 * Clients are processes (fork), each with one connection, started at once
 * through a pipe. The goal (issue 18): >= 5,000 submits/s with 8 clients,
 * p99 < 5 ms, flat within 1.5x from 0 to 100,000 jobs; Slurm's
 * high-throughput guide aims at a few hundred submissions per second.
 * CELLAR_BENCH_SERVE_MAX (default 100000) caps the store size.
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>

#include "bench.h"

#define ROUND	2000	/* submits timed per round and client count */

static char sock_path[100];	/* sun_path holds 108 */

static int
dial(void)
{
	struct sockaddr_un sun;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Send line, read to the "exit N" line; N, or -1. */
static int
request(int fd, const char *line)
{
	char buf[8192];
	size_t have = 0, len = strlen(line);
	ssize_t n;
	char *p, *last;

	if (write(fd, line, len) != (ssize_t)len)
		return -1;
	for (;;) {
		if ((n = read(fd, buf + have, sizeof buf - 1 - have)) <= 0)
			return -1;
		have += (size_t)n;
		buf[have] = '\0';
		/* the reply ends with "exit N\n" */
		if (have > 0 && buf[have - 1] == '\n') {
			buf[have - 1] = '\0';
			last = (p = strrchr(buf, '\n')) != NULL ? p + 1 : buf;
			if (strncmp(last, "exit ", 5) == 0)
				return atoi(last + 5);
			buf[have - 1] = '\n';
		}
		if (have >= sizeof buf - 1)
			have = 0;	/* output we do not read */
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static long job_seq;	/* names stay unique across rounds */

/*
 * nclients processes, each doing `pairs` submit+cancel pairs; the submit
 * latencies (seconds) into lat (room for nclients * pairs) when not NULL.
 * The wall time of the whole round, or -1.
 */
static double
round_run(int nclients, int pairs, double *lat)
{
	int go[2], res[2], c, k, fd, failed = 0;
	pid_t pids[64];
	double t0, t1;
	char line[256], b;

	if (pipe(go) != 0 || pipe(res) != 0)
		return -1;
	for (c = 0; c < nclients; c++) {
		if ((pids[c] = fork()) < 0)
			return -1;
		if (pids[c] == 0) {
			double *mine = calloc((size_t)pairs, sizeof *mine), s;
			long base = job_seq + (long)c * pairs;

			close(go[1]);
			close(res[0]);
			if ((fd = dial()) < 0)
				_exit(2);
			if (read(go[0], &b, 1) < 0)
				_exit(2);
			for (k = 0; k < pairs; k++) {
				snprintf(line, sizeof line,
				    "submit j%ld --vc a --gpus 64 -- true\n", base + k);
				s = bench_now();
				if (request(fd, line) != 0)
					_exit(3);
				mine[k] = bench_now() - s;
				snprintf(line, sizeof line, "cancel j%ld\n", base + k);
				if (request(fd, line) != 0)
					_exit(3);
			}
			if (write(res[1], mine, (size_t)pairs * sizeof *mine) < 0)
				_exit(2);
			_exit(0);
		}
	}
	close(go[0]);
	close(res[1]);
	job_seq += (long)nclients * pairs;
	t0 = bench_now();
	close(go[1]);	/* everyone starts now */
	{
		/* every child writes its share at once (<= PIPE_BUF with 8
		   clients: atomic); the order does not matter to percentiles */
		size_t want = (size_t)nclients * pairs * sizeof(double), got = 0;
		char *into = lat != NULL ? (char *)lat : malloc(want);
		ssize_t n;

		while (got < want && (n = read(res[0], into + got, want - got)) > 0)
			got += (size_t)n;
		if (lat == NULL)
			free(into);
		if (got < want)
			failed = 1;
	}
	t1 = bench_now();
	for (c = 0; c < nclients; c++) {
		int st;

		waitpid(pids[c], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	close(res[0]);
	return failed ? -1 : t1 - t0;
}

static void
measure(const char *kind, int nclients, long size, double *base_p99)
{
	int pairs = ROUND / nclients;
	double *lat = calloc(ROUND, sizeof *lat), wall, p50, p99;

	if ((wall = round_run(nclients, pairs, lat)) < 0) {
		printf("  %d clients: a client failed\n", nclients);
		free(lat);
		return;
	}
	qsort(lat, (size_t)nclients * pairs, sizeof *lat, cmp_double);
	p50 = lat[(size_t)(nclients * pairs) / 2] * 1000;
	p99 = lat[(size_t)(nclients * pairs) * 99 / 100] * 1000;
	printf("  %-7s store %6ld jobs, %d client%s: %6.0f submits/s (with a "
	    "cancel each), latency p50 %.2f ms, p99 %.2f ms", kind, size, nclients,
	    nclients > 1 ? "s" : " ", nclients * pairs / wall, p50, p99);
	if (base_p99 != NULL) {
		if (*base_p99 == 0)
			*base_p99 = p99;
		else
			printf(" (p99 %.2fx the first round's)", p99 / *base_p99);
	}
	printf("\n");
	fflush(stdout);
	free(lat);
}

int
main(int argc, char **argv)
{
	static const long sizes[] = { 0, 10000, 100000 };
	char cellar[512], tdir[512], spec[600], db[600], log[600];
	const char *e = getenv("CELLAR_BENCH_SERVE_MAX");
	long max = e != NULL ? atol(e) : 100000, have = 0;
	double p99_8 = 0;
	FILE *fp;
	pid_t srv;
	size_t i;
	int k, n;

	(void)argc;
	if ((k = bench_cellar("serve", argv[0], cellar, sizeof cellar, tdir,
	    sizeof tdir)) != 0)
		return k < 0 ? 1 : 0;
	snprintf(spec, sizeof spec, "%s/s.yaml", tdir);
	snprintf(db, sizeof db, "%s/s.db", tdir);
	snprintf(log, sizeof log, "%s/serve.log", tdir);
	if (strlen(db) + 6 > sizeof sock_path) {
		printf("bench-serve: '%s' is too long for a socket path; skipped\n", db);
		return 0;
	}
	memcpy(sock_path, db, strlen(db));
	memcpy(sock_path + strlen(db), ".sock", 6);
	if ((fp = fopen(spec, "w")) == NULL)
		return 1;
	fprintf(fp, "physicalCluster:\n  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: 8, isNodeLevel: true}\n"
	    "    ALL: {childCellType: NODE, childCellNumber: 8}\n"
	    "  physicalCells:\n  - cellType: ALL\n    cellChildren:\n");
	for (n = 0; n < 8; n++)
		fprintf(fp, "    - cellAddress: n%d\n", n);
	fprintf(fp, "virtualClusters:\n  a: {virtualCells: [{cellType: ALL, cellNumber: 1}]}\n"
	    "backend:\n  type: local\n  rundir: %s/run\n"
	    "  start: 'true'\n  stop: 'true'\n  status: echo running\n"
	    "  health: 'true'\n  statusInterval: 60\n  healthInterval: 60\n", tdir);
	fclose(fp);
	if ((srv = fork()) == 0) {
		int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		dup2(lfd, 2);
		execl(cellar, "cellar", "--db", db, "serve", "--spec", spec, (char *)NULL);
		_exit(127);
	}
	for (k = 0; k < 400 && access(sock_path, F_OK) != 0; k++)
		usleep(25000);
	usleep(100000);
	printf("bench-serve: submits through cellar serve (store on a file, %s)\n",
	    tdir);
	/* each job starts at once: hooks run */
	measure("started", 1, have, NULL);
	have += ROUND;
	measure("started", 8, have, NULL);
	have += ROUND;
	/* from here on every submit queues behind the holder */
	if ((k = dial()) < 0 || request(k, "submit holder --vc a --gpus 64 -- "
	    "true\n") != 0 || request(k, "wait holder --state running "
	    "--timeout 60s\n") != 0) {
		printf("  the holder job did not start\n");
		goto out;
	}
	close(k);
	have++;
	for (i = 0; i < sizeof sizes / sizeof sizes[0] && sizes[i] <= max; i++) {
		/* fill to the size with 8 clients' pairs */
		while (have < sizes[i]) {
			long step = sizes[i] - have < 8000 ? sizes[i] - have : 8000;

			if (round_run(8, (int)(step / 8 > 0 ? step / 8 : 1), NULL) < 0) {
				printf("  filling: a client failed\n");
				goto out;
			}
			have += step / 8 > 0 ? step / 8 * 8 : 8;
		}
		measure("queued", 1, have, NULL);
		have += ROUND;
		measure("queued", 8, have, &p99_8);
		have += ROUND;
	}
out:
	kill(srv, SIGTERM);
	waitpid(srv, NULL, 0);
	return 0;
}
