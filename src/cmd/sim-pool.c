/*
 * sim-pool.c — run independent emulator runs on worker threads (compare,
 * anomaly; see sim-pool.h). Workers take the next task index under one
 * mutex; the calling thread waits on a condition variable with a timeout
 * and calls tick at each wake-up, so progress and Ctrl-C stay on the
 * thread that owns the terminal.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cmd/sim-pool.h"
#include "core/xmalloc.h"

#define POOL_MAX_THREADS	64

struct pool {
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 n, next, finished;
	void		(*run)(void *arg, int i);
	void		*arg;
};

int
sim_pool_threads(int n)
{
	long c = sysconf(_SC_NPROCESSORS_ONLN);

	if (c < 1)
		c = 1;
	if (c > POOL_MAX_THREADS)
		c = POOL_MAX_THREADS;
	return n < c ? (n > 0 ? n : 1) : (int)c;
}

static void *
worker(void *p_)
{
	struct pool *p = p_;
	int i;

	for (;;) {
		pthread_mutex_lock(&p->mu);
		i = p->next < p->n ? p->next++ : -1;
		pthread_mutex_unlock(&p->mu);
		if (i < 0)
			return NULL;
		p->run(p->arg, i);
		pthread_mutex_lock(&p->mu);
		p->finished++;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

int
sim_pool_run(int n, int threads, void (*run)(void *arg, int i),
    void (*tick)(void *arg), unsigned tick_ms, void *arg)
{
	struct pool p = { .n = n, .run = run, .arg = arg };
	pthread_t *th;
	struct timespec until;
	int i, started = 0;

	if (threads <= 1 || n <= 1) {
		for (i = 0; i < n; i++) {
			run(arg, i);
			tick(arg);
		}
		return 0;
	}
	if (threads > n)
		threads = n;
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.cv, NULL);
	th = xcalloc((size_t)threads, sizeof *th);
	for (i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, &p) == 0)
			started++;
		else
			break;
	if (started == 0) {
		free(th);
		pthread_cond_destroy(&p.cv);
		pthread_mutex_destroy(&p.mu);
		return -1;
	}
	pthread_mutex_lock(&p.mu);
	while (p.finished < n) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(tick_ms % 1000) * 1000000L;
		until.tv_sec += tick_ms / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (p.finished < n &&
		    pthread_cond_timedwait(&p.cv, &p.mu, &until) != ETIMEDOUT)
			;
		pthread_mutex_unlock(&p.mu);
		tick(arg);
		pthread_mutex_lock(&p.mu);
	}
	pthread_mutex_unlock(&p.mu);
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_cond_destroy(&p.cv);
	pthread_mutex_destroy(&p.mu);
	return 0;
}
