/*
 * sockpeer.c — a misbehaving (or plain) client of a cellar server's socket,
 * for tests/scenarios/t0690-serve.sh: what socat would do, without socat.
 *
 *   sockpeer PATH send          stdin to the socket, then half-close it;
 *                               the replies to stdout until the server
 *                               closes (or 30 s pass: exit 3)
 *   sockpeer PATH random N SEED N pseudo-random bytes, then close at once
 *   sockpeer PATH longline N    one line of N bytes ('a'), then '\n'; the
 *                               replies to stdout until the server closes
 *   sockpeer PATH idle N SECS   N connections that send nothing, held SECS
 *                               seconds (or until stdin closes); prints
 *                               "connected K" once they are all open
 *   sockpeer PATH half          connect and half-close at once, then wait
 *                               for the server to close (30 s: exit 3)
 *   sockpeer PATH flood N LINE  N connections that send LINE again and
 *                               again and never read a reply, until stdin
 *                               closes; prints "connected N" once all are
 *                               open, "flooding N" once none of them could
 *                               send a byte for a second (the server stopped
 *                               reading them all), and at the end "dropped
 *                               K" (connections the server closed)
 *   sockpeer PATH rtt K LINE    one well-behaved client: K requests, each
 *                               sent after the last reply was read;
 *                               prints "rtt MEDIAN P90 MAX" in
 *                               microseconds
 *
 * Exit: 0, 1 when the socket cannot be reached, 3 on a timeout.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int
dial(const char *path)
{
	struct sockaddr_un sun;
	int fd;

	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0)
		return -1;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int
put(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = send(fd, p, n, MSG_NOSIGNAL)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy the socket to stdout until EOF; 3 after 30 s without it. */
static int
drain(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char buf[65536];
	ssize_t n;
	time_t end = time(NULL) + 30;

	for (;;) {
		if (time(NULL) > end)
			return 3;
		if (poll(&p, 1, 1000) <= 0)
			continue;
		if ((n = read(fd, buf, sizeof buf)) <= 0)
			return 0;
		fwrite(buf, 1, (size_t)n, stdout);
	}
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* K round trips of LINE; a reply ends with its "exit N" line. */
static int
rtt(int fd, int k, const char *line)
{
	char req[4096], buf[65536];
	double *t = calloc((size_t)k, sizeof *t), t0;
	size_t len;
	ssize_t n;
	int i, at_bol;

	len = (size_t)snprintf(req, sizeof req, "%s\n", line);
	for (i = 0; i < k; i++) {
		t0 = now_us();
		if (put(fd, req, len) != 0)
			return 1;
		/* read until a line starting "exit " ends */
		at_bol = 1;
		for (int state = 0; state != 6;) {
			if ((n = read(fd, buf, sizeof buf)) <= 0)
				return 1;
			for (ssize_t j = 0; j < n && state != 6; j++) {
				char c = buf[j];

				if (state == 5) {
					if (c == '\n')
						state = 6;
					continue;
				}
				if (at_bol && state < 5 && c == "exit "[state]) {
					state++;
					if (state == 5)
						at_bol = 0;
					continue;
				}
				state = 0;
				at_bol = c == '\n';
			}
		}
		t[i] = now_us() - t0;
	}
	qsort(t, (size_t)k, sizeof *t, cmp_double);
	printf("rtt %.0f %.0f %.0f\n", t[k / 2], t[k * 9 / 10], t[k - 1]);
	free(t);
	return 0;
}

/* N connections pipelining LINE without reading, until stdin closes. */
static int
flood(const char *path, int want, const char *line)
{
	struct pollfd *p = calloc((size_t)want + 1, sizeof *p);
	size_t *sent = calloc((size_t)want, sizeof *sent), len;
	char chunk[65536];
	int k, said = 0, dropped = 0;
	double last;
	ssize_t n;

	/* whole lines in a chunk: a partial line is never sent */
	len = strlen(line) + 1;
	for (n = 0; (size_t)n + len <= sizeof chunk; n += (ssize_t)len) {
		memcpy(chunk + n, line, len - 1);
		chunk[n + (ssize_t)len - 1] = '\n';
	}
	len = (size_t)n;
	p[0].fd = 0;
	p[0].events = POLLIN;
	for (k = 1; k <= want; k++) {
		if ((p[k].fd = dial(path)) < 0) {
			fprintf(stderr, "sockpeer: connection %d: %s\n", k,
			    strerror(errno));
			return 1;
		}
		fcntl(p[k].fd, F_SETFL, O_NONBLOCK);
		p[k].events = POLLOUT;
	}
	printf("connected %d\n", want);
	fflush(stdout);
	last = now_us();
	for (;;) {
		if (poll(p, (nfds_t)want + 1, 200) < 0 && errno != EINTR)
			return 1;
		if (p[0].revents & (POLLIN | POLLHUP))
			break;
		for (k = 1; k <= want; k++) {
			if (p[k].fd < 0)
				continue;
			if (p[k].revents & (POLLHUP | POLLERR)) {
				close(p[k].fd);
				p[k].fd = -1;
				dropped++;
				continue;
			}
			if (p[k].revents & POLLOUT) {
				n = send(p[k].fd, chunk, len, MSG_NOSIGNAL | MSG_DONTWAIT);
				if (n < 0 && errno != EAGAIN && errno != EINTR) {
					close(p[k].fd);
					p[k].fd = -1;
					dropped++;
					continue;
				}
				if (n > 0) {
					sent[k - 1] += (size_t)n;
					last = now_us();
				}
			}
		}
		if (!said && now_us() - last > 1e6) {
			printf("flooding %d\n", want);
			fflush(stdout);
			said = 1;
		}
	}
	printf("dropped %d\n", dropped);
	return 0;
}

int
main(int argc, char **argv)
{
	char buf[65536];
	size_t n, i;
	int fd, *fds, k;

	if (argc < 3) {
		fprintf(stderr, "usage: sockpeer PATH send|random N SEED|longline N|"
		    "idle N SECS|half|flood N LINE|rtt K LINE\n");
		return 2;
	}
	if (strcmp(argv[2], "idle") == 0 && argc == 5) {
		int want = atoi(argv[3]), secs = atoi(argv[4]);
		struct pollfd p = { .fd = 0, .events = POLLIN };

		fds = calloc((size_t)want, sizeof *fds);
		for (k = 0; k < want; k++)
			if ((fds[k] = dial(argv[1])) < 0) {
				fprintf(stderr, "sockpeer: connection %d: %s\n", k,
				    strerror(errno));
				return 1;
			}
		printf("connected %d\n", want);
		fflush(stdout);
		poll(&p, 1, secs * 1000);
		for (k = 0; k < want; k++)
			close(fds[k]);
		return 0;
	}
	if (strcmp(argv[2], "flood") == 0 && argc == 5)
		return flood(argv[1], atoi(argv[3]), argv[4]);
	if ((fd = dial(argv[1])) < 0) {
		fprintf(stderr, "sockpeer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (strcmp(argv[2], "rtt") == 0 && argc == 5)
		return rtt(fd, atoi(argv[3]), argv[4]);
	if (strcmp(argv[2], "send") == 0) {
		while ((n = fread(buf, 1, sizeof buf, stdin)) > 0)
			if (put(fd, buf, n) != 0)
				break;
		shutdown(fd, SHUT_WR);
		return drain(fd);
	}
	if (strcmp(argv[2], "random") == 0 && argc == 5) {
		unsigned long left = strtoul(argv[3], NULL, 10);
		unsigned seed = (unsigned)strtoul(argv[4], NULL, 10);

		while (left > 0) {
			n = left < sizeof buf ? left : sizeof buf;
			for (i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				buf[i] = (char)(seed >> 16);
			}
			if (put(fd, buf, n) != 0)
				break;	/* the server may close on us: fine */
			left -= n;
		}
		close(fd);
		return 0;
	}
	if (strcmp(argv[2], "longline") == 0 && argc == 4) {
		unsigned long left = strtoul(argv[3], NULL, 10);

		memset(buf, 'a', sizeof buf);
		while (left > 0) {
			n = left < sizeof buf ? left : sizeof buf;
			if (put(fd, buf, n) != 0)
				break;	/* closed after its error reply */
			left -= n;
		}
		put(fd, "\n", 1);
		shutdown(fd, SHUT_WR);
		return drain(fd);
	}
	if (strcmp(argv[2], "half") == 0) {
		shutdown(fd, SHUT_WR);
		return drain(fd);
	}
	fprintf(stderr, "sockpeer: unknown mode '%s'\n", argv[2]);
	return 2;
}
