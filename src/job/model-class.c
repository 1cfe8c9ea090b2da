/*
 * model-class.c — the model-class table. See model-class.h.
 *
 * Sources, read off the plots and rounded:
 *  - locality: Tiresias (NSDI'19) Fig. 3 (VGG and AlexNet, with large dense
 *    layers, lose most when spread; ResNet and Inception almost nothing) and
 *    Gandiva (OSDI'18) Fig. 1-2 (intra-server: crossing CPU sockets costs
 *    VGG-like models ~40%; inter-server costs much more).
 *  - checkpoint save/restore: Tiresias Fig. 4-5 (seconds, growing with model
 *    size; restore slower than save).
 *  - suspend/resume and migration: Gandiva §5 (suspend+resume ~0.1-1 s,
 *    migration ~1-3.5 s).
 *  - utilization and memory: Gandiva Table 1 and AntMan (OSDI'20) Fig. 2,
 *    with low-utilization models (LSTM, DCGAN) where packing wins and
 *    high-utilization ones (ResNet, VGG) where it loses.
 *  - memory caps (cap_half): AntMan Fig. 10 in shape only — some models
 *    run almost as fast with part of their memory spilled to host memory
 *    (ResNet, Inception, DCGAN: we say 0.8-0.9 at half their need), others
 *    lose most of their speed (VGG, AlexNet with large dense layers that
 *    every step reads: 0.35-0.4). The paper's exact figures were not at
 *    hand when this table was written; these constants are ours.
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "core/fnv.h"
#include "job/model-class.h"

const struct model model_table[] = {
	/* name        family                 switch socket node  rack  cluster
	                                      save restore susp migr util  mem  min  weight */
	{ "resnet50",    "image CNN, 25M params", { 1.00, 0.99, 0.97, 0.92, 0.90 },
	  3, 6, 0.3, 1.5, 0.90, 7, 3.5, 20, "Tiresias Fig. 3; Gandiva Fig. 2", 0.85 },
	{ "resnet101",   "image CNN, 45M params", { 1.00, 0.99, 0.96, 0.90, 0.88 },
	  4, 8, 0.4, 2.0, 0.92, 9, 4.5, 6, "Tiresias Fig. 3", 0.85 },
	{ "resnet152",   "image CNN, 60M params", { 1.00, 0.98, 0.95, 0.88, 0.85 },
	  5, 9, 0.5, 2.5, 0.93, 11, 5, 4, "Tiresias Fig. 3", 0.8 },
	{ "inception3",  "image CNN, 24M params", { 1.00, 0.98, 0.95, 0.88, 0.85 },
	  3, 7, 0.3, 1.5, 0.85, 7, 3.5, 10, "Tiresias Fig. 3", 0.85 },
	{ "inception4",  "image CNN, 43M params", { 1.00, 0.97, 0.93, 0.85, 0.82 },
	  4, 8, 0.4, 2.0, 0.88, 9, 4.5, 4, "Tiresias Fig. 3", 0.8 },
	{ "googlenet",   "image CNN, 7M params",  { 1.00, 0.98, 0.94, 0.85, 0.82 },
	  2, 5, 0.2, 1.0, 0.60, 4, 2, 6, "Tiresias Fig. 3", 0.9 },
	{ "alexnet",     "CNN, large dense layers", { 1.00, 0.85, 0.62, 0.35, 0.30 },
	  6, 9, 0.5, 2.5, 0.55, 5, 2.5, 6, "Tiresias Fig. 3; Gandiva Fig. 1", 0.4 },
	{ "vgg11",       "CNN, 133M params",      { 1.00, 0.88, 0.65, 0.40, 0.34 },
	  7, 10, 0.6, 3.0, 0.80, 8, 4, 4, "Tiresias Fig. 3", 0.4 },
	{ "vgg16",       "CNN, 138M params",      { 1.00, 0.88, 0.60, 0.35, 0.30 },
	  8, 12, 0.8, 3.5, 0.85, 10, 5, 8, "Gandiva Fig. 1-2; Tiresias Fig. 3", 0.35 },
	{ "vgg19",       "CNN, 144M params",      { 1.00, 0.87, 0.58, 0.33, 0.28 },
	  9, 13, 0.9, 3.5, 0.87, 11, 5.5, 4, "Tiresias Fig. 3", 0.35 },
	{ "lstm",        "language model (LSTM)", { 1.00, 0.95, 0.85, 0.60, 0.55 },
	  4, 6, 0.2, 1.5, 0.45, 4, 1.5, 12, "Gandiva Table 1; AntMan Fig. 2", 0.6 },
	{ "transformer", "attention model",       { 1.00, 0.96, 0.88, 0.65, 0.60 },
	  6, 10, 0.6, 3.0, 0.90, 14, 7, 10, "AntMan Fig. 2", 0.5 },
	{ "deepspeech",  "speech RNN",            { 1.00, 0.93, 0.80, 0.55, 0.50 },
	  5, 8, 0.5, 2.5, 0.70, 9, 4, 4, "Gandiva Fig. 1", 0.6 },
	{ "dcgan",       "GAN, small convs",      { 1.00, 0.97, 0.92, 0.80, 0.75 },
	  2, 3, 0.1, 1.0, 0.35, 2, 1, 2, "Gandiva Table 1", 0.9 },
	/* named by traces and tests only (weight 0): AntMan Table 2's pair,
	   a large guaranteed job and a small opportunistic one on a 32 GB GPU */
	{ "bert-large",  "BERT-large, 340M params", { 1.00, 0.96, 0.88, 0.65, 0.60 },
	  10, 16, 1.0, 3.5, 0.85, 30, 8, 0, "AntMan Table 2, Fig. 2", 0.45 },
	{ "mobilenet",   "small image CNN, 4M params", { 1.00, 0.99, 0.97, 0.92, 0.90 },
	  2, 4, 0.2, 1.0, 0.40, 3.5, 1, 0, "AntMan Table 2", 0.9 },
};

/*
 * Phases of a run (ours, in the shape of AntMan Fig. 3-4: usage is low
 * while a job loads data and builds its graph, steady while it trains,
 * and falls again while it evaluates and saves at the end).
 */
const struct model_phase model_phases[] = {
	{ 0.02, 0.30, 0.50, "start" },
	{ 0.90, 1.00, 1.00, "train" },
	{ INFINITY, 0.30, 0.60, "evaluate" },
};

const int model_nphases = sizeof model_phases / sizeof model_phases[0];

const int model_count = sizeof model_table / sizeof model_table[0];

int
model_find(const char *name)
{
	int i;

	for (i = 0; i < model_count; i++)
		if (strcasecmp(name, model_table[i].name) == 0)
			return i;
	return -1;
}

int
model_pick(uint64_t h)
{
	double total = 0, x;
	int i;

	for (i = 0; i < model_count; i++)
		total += model_table[i].weight;
	/* 53 high bits -> [0, 1) */
	x = (double)(h >> 11) / 9007199254740992.0 * total;
	for (i = 0; i < model_count - 1; i++) {
		if (x < model_table[i].weight)
			return i;
		x -= model_table[i].weight;
	}
	/* rounding: the last row that can be picked */
	for (i = model_count - 1; i > 0 && model_table[i].weight <= 0; i--)
		;
	return i;
}

const struct model_phase *
model_phase(double done, double duration, double *next)
{
	const struct model_phase *ph = model_phases;
	int i, n = model_nphases;

	if (!(duration > 0)) {
		*next = INFINITY;
		return &ph[1];
	}
	for (i = 0; i < n - 1 && done >= ph[i].until * duration; i++)
		;
	*next = i < n - 1 ? ph[i].until * duration : INFINITY;
	return &ph[i];
}

double
model_cap_speed(const struct model *md, double cap, double need)
{
	double k;

	if (cap >= need)
		return 1;
	if (cap < md->mem_min || need <= 0)
		return 0;
	/* 1 / (1 + k/2) == cap_half */
	k = md->cap_half > 0 ? 2 * (1 / md->cap_half - 1) : 0;
	return 1 / (1 + k * (need - cap) / need);
}

const char *
locality_name(enum locality l)
{
	static const char *const names[LOC_N] = {
		"switch", "socket", "node", "rack", "cluster",
	};
	return (unsigned)l < LOC_N ? names[l] : "?";
}

/* Its basis, a digit short of FNV's (as trace.c's sampling hash), and the
   seed's fold are the ones it has always had: kept, so a seed gives every
   job the model it always had (fnv.h invariant 1). */
uint64_t
model_hash(const char *s, uint64_t seed)
{
	uint64_t h = fnv1a64_add_str(1469598103934665603ULL ^
	    (seed * FNV1A64_PRIME), s);

	/* FNV's low bits are weak; finish with a 64-bit mix (splitmix64) */
	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}
