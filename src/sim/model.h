/*
 * model.h — the table of model classes the emulator's speed model uses.
 * Read-only data plus lookups; no state.
 *
 * A model class says how fast a job trains relative to its ideal placement
 * (all GPUs under one PCIe switch) for each locality tier its gang spans, how
 * much a preemption costs it (checkpoint save + restore), and the profile
 * later policies use for sharing (GPU utilization, memory). The figures are
 * read off the papers' plots and rounded; each row says where it comes from.
 * `--ideal` in the emulator ignores all of them.
 */
#ifndef CELLAR_MODEL_H
#define CELLAR_MODEL_H

#include <stdint.h>

/* How far apart a gang's GPUs are: the lowest cell holding all of them. */
enum locality {
	LOC_SWITCH,	/* one GPU, or one PCIe switch */
	LOC_SOCKET,	/* across switches, one CPU socket */
	LOC_NODE,	/* across sockets, one node */
	LOC_RACK,	/* across nodes, one rack */
	LOC_CLUSTER,	/* across racks */
	LOC_N
};

struct model {
	const char	*name;		/* "vgg16" */
	const char	*family;	/* what it stands for */
	double		 speed[LOC_N];	/* throughput / ideal, by locality */
	double		 ckpt_save;	/* seconds to checkpoint on preemption */
	double		 ckpt_restore;	/* seconds to restore on restart */
	double		 suspend;	/* seconds per suspend+resume (time-slicing) */
	double		 migrate;	/* seconds per migration */
	double		 gpu_util;	/* 0..1, alone on a GPU */
	double		 mem_peak;	/* GiB per GPU */
	double		 mem_min;	/* GiB it can run with (spilling) */
	double		 weight;	/* share when a trace names no model */
	const char	*source;
};

extern const struct model model_table[];
extern const int model_count;

/* Index by name (case-insensitive, exact); -1 if unknown. */
int		 model_find(const char *name);
/* Deterministic choice by weight for a hash value (e.g. of job name + seed). */
int		 model_pick(uint64_t h);
const char	*locality_name(enum locality l);
/* A 64-bit FNV-1a hash, for deterministic choices from names. */
uint64_t	 model_hash(const char *s, uint64_t seed);

#endif
