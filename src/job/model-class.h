/*
 * model-class.h — the table of model classes the emulator's speed model uses.
 * Read-only data plus lookups; no state.
 *
 * A model class says how fast a job trains relative to its ideal placement
 * (all GPUs under one PCIe switch) for each locality tier its gang spans, how
 * much a preemption costs it (checkpoint save + restore), and the profile
 * later policies use for sharing (GPU utilization, memory). The figures are
 * read off the papers' plots and rounded; each row says where it comes from.
 * `--ideal` in the emulator ignores all of them.
 *
 * For AntMan's GPU sharing (sim/antman.h) a job's demand is its model's,
 * shaped over its run by phases (model_phase): SM utilization and memory
 * as a share of the model's gpu_util and mem_peak. A job capped below its
 * memory need spills the rest to host memory (AntMan's universal memory)
 * and slows down as model_cap_speed says; below mem_min it cannot run.
 *
 * Rows with weight 0 are never picked for a job whose trace names no
 * model (model_pick); traces and tests name them.
 */
#ifndef CELLAR_MODEL_CLASS_H
#define CELLAR_MODEL_CLASS_H

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
	/* speed when capped to half its memory need (spilling to host memory;
	   AntMan Fig. 10): near 1 for models whose big tensors are touched
	   rarely, low for those that stream their memory every step */
	double		 cap_half;
};

/* One phase of a job's run, by the fraction of its work done. */
struct model_phase {
	double		 until;		/* the phase lasts while work / duration < until */
	double		 sm;		/* x the model's gpu_util */
	double		 mem;		/* x the model's mem_peak */
	const char	*what;
};

extern const struct model model_table[];
extern const int model_count;

/* Index by name (case-insensitive, exact); -1 if unknown. */
int		 model_find(const char *name);
/* Deterministic choice by weight for a hash value (e.g. of job name + seed). */
int		 model_pick(uint64_t h);
const char	*locality_name(enum locality l);
/*
 * The phase a job is in when it has done `done` of `duration` seconds of
 * work (duration < 0: unknown, the main phase throughout); *next is the
 * work at which the next phase starts (INFINITY: none).
 */
const struct model_phase *model_phase(double done, double duration, double *next);
/* The phases in order (the first and last are short, model-class.c). */
extern const struct model_phase model_phases[];
extern const int model_nphases;
/*
 * Speed, as a fraction of its uncapped speed, of a model given `cap` GiB
 * per GPU when it needs `need` (>= its mem_min): 1 when cap >= need, 0
 * below mem_min (it cannot run), else 1 / (1 + k x spilled share) with k
 * from cap_half.
 */
double		 model_cap_speed(const struct model *md, double cap, double need);
/* A 64-bit FNV-1a hash (core/fnv.h) of s, folded with seed and mixed,
   for deterministic choices from names. */
uint64_t	 model_hash(const char *s, uint64_t seed);

#endif
