/*
 * series.h — one point of a run's time series: what the cluster held at a
 * moment (jobs pending and running, GPUs used, bad, fragmentation). The
 * emulator samples it (sim/emu.h: emu_series) and the store keeps it
 * (store/store.h: store_series_put); it lives here, below both, so the
 * store needs nothing of the emulator. Plain data: no functions, no
 * ownership.
 *
 * Invariants:
 *  1. 0 <= frag <= 1 and 0 <= frag_node <= 1; the counts are >= 0.
 */
#ifndef CELLAR_SERIES_H
#define CELLAR_SERIES_H

/* One point of the time series. */
struct emu_sample {
	double		 t;
	int		 pending;
	int		 running;
	long long	 used;		/* GPUs of guaranteed jobs */
	long long	 opp;		/* GPUs of opportunistic jobs */
	long long	 bad;
	double		 frag;		/* partially free nodes / all nodes */
	/* HiveD's fragmentation (OSDI'20 §5.2): nodes that cannot give a
	   guaranteed job the whole node (a leaf used by a guaranteed job, or
	   bad; opportunistic jobs would be preempted) / all nodes */
	double		 frag_node;
};

#endif
