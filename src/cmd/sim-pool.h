/*
 * sim-pool.h — independent emulator runs side by side, for compare and
 * anomaly: the engine, the policies and the emulator are pure (no
 * globals, no clock), so runs on separate threads give the very reports
 * they give one after another.
 *
 * The pool owns nothing of the caller's: task i is run(arg, i), on one
 * of `threads` worker threads, each task exactly once. The calling thread
 * only watches: every tick_ms it calls tick(arg) (progress, interrupts;
 * the tasks' own progress callbacks read what it decides through the
 * caller's atomics), and returns when every task has returned.
 *
 * Invariants:
 *  1. run is called once per i in [0, n), never for two i on one thread
 *     at the same time; tick only on the calling thread.
 *  2. sim_pool_run returns after the last run returned (threads joined).
 */
#ifndef CELLAR_SIM_POOL_H
#define CELLAR_SIM_POOL_H

#include <stdbool.h>

/* Worker threads worth starting for n tasks: the CPUs online, at most n. */
int	sim_pool_threads(int n);

/*
 * Run run(arg, i) for every i < n on up to `threads` threads (1: all on
 * the calling thread, tick still called between tasks). Returns 0, or -1
 * when no thread could be started (then nothing ran).
 */
int	sim_pool_run(int n, int threads, void (*run)(void *arg, int i),
	    void (*tick)(void *arg), unsigned tick_ms, void *arg);

#endif
