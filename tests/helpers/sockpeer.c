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
 *
 * Exit: 0, 1 when the socket cannot be reached, 3 on a timeout.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
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

int
main(int argc, char **argv)
{
	char buf[65536];
	size_t n, i;
	int fd, *fds, k;

	if (argc < 3) {
		fprintf(stderr, "usage: sockpeer PATH send|random N SEED|longline N|"
		    "idle N SECS|half\n");
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
	if ((fd = dial(argv[1])) < 0) {
		fprintf(stderr, "sockpeer: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
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
