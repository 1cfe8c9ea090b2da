/*
 * emu-work.h — workloads for the emulator tests (tsim-*.c), header only:
 * a one-node spec, a rack of four nodes with one VC or two, spec files,
 * jobs one by one, and random jobs on specs/default.yaml. Include after
 * test.h.
 */
#ifndef CELLAR_EMU_WORK_H
#define CELLAR_EMU_WORK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "job/model-class.h"
#include "spec/spec.h"

/* One node of `gpus` GPUs (a switch level in between when gpus == 8), VC A. */
static inline struct spec *
one_node(int gpus)
{
	char text[1024];
	struct spec *s;

	snprintf(text, sizeof text,
	    "physicalCluster:\n"
	    "  cellTypes:\n"
	    "    NODE: {childCellType: GPU, childCellNumber: %d, isNodeLevel: true}\n"
	    "  physicalCells:\n"
	    "  - {cellType: NODE, cellAddress: n0}\n"
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: NODE, cellNumber: 1}\n", gpus);
	s = spec_load_string("one-node.yaml", text, strlen(text), NULL);
	if (s == NULL)
		abort();
	return s;
}

/* One rack r0 of four 4-GPU nodes n0..n3; the VCs follow it. */
#define RACK4_CELLS \
	    "physicalCluster:\n" \
	    "  cellTypes:\n" \
	    "    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n" \
	    "    RACK: {childCellType: NODE, childCellNumber: 4}\n" \
	    "  physicalCells:\n" \
	    "  - cellType: RACK\n" \
	    "    cellAddress: r0\n" \
	    "    cellChildren:\n" \
	    "    - {cellAddress: n0}\n" \
	    "    - {cellAddress: n1}\n" \
	    "    - {cellAddress: n2}\n" \
	    "    - {cellAddress: n3}\n"

/* A spec from text; a fixture that does not load is the test's bug. */
static inline struct spec *
load_text(const char *text)
{
	struct spec *s = spec_load_string("work.yaml", text, strlen(text), NULL);

	if (s == NULL)
		abort();
	return s;
}

/* The rack, VC A holding it whole (one RACK cell). */
static inline struct spec *
rack4(void)
{
	return load_text(RACK4_CELLS
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK, cellNumber: 1}\n");
}

/* The rack, VC A holding `a` of its nodes and VC B the 4 - a others. */
static inline struct spec *
rack4_two_vcs(int a)
{
	char text[1024];

	snprintf(text, sizeof text, RACK4_CELLS
	    "virtualClusters:\n"
	    "  A:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK.NODE, cellNumber: %d}\n"
	    "  B:\n"
	    "    virtualCells:\n"
	    "    - {cellType: RACK.NODE, cellNumber: %d}\n", a, 4 - a);
	return load_text(text);
}

static inline struct spec *
load_file(const char *path)
{
	struct spec *s = spec_load(path, NULL);

	if (s == NULL) {
		fprintf(stderr, "cannot load %s\n", path);
		abort();
	}
	return s;
}

static inline void
add(struct job *jobs, int i, int vc, double submit, int gpus, double dur)
{
	char name[32];

	snprintf(name, sizeof name, "j%d", i);
	job_init(&jobs[i], i, name, vc, submit);
	job_set_shape(&jobs[i], 1, gpus);
	jobs[i].duration = dur;
	jobs[i].model = -1;
}

/*
 * n random jobs on specs/default.yaml (srand(seed)): mixed sizes, VCs,
 * models and classes (a quarter opportunistic, some auto).
 */
static inline void
random_jobs(const struct spec *s, struct job *jobs, int n, unsigned seed)
{
	static const int sizes[] = { 1, 1, 1, 1, 2, 4, 8, 16 };
	/* the largest job each VC of specs/default.yaml can hold */
	static const struct { const char *vc; int max; } cap[] = {
		{ "research", 16 }, { "prod", 16 }, { "dev", 4 }, { "infer", 2 },
	};
	int i, k;

	srand(seed);
	for (i = 0; i < n; i++) {
		int g = sizes[rand() % 8], vc = rand() % s->nvcs;
		for (k = 0; k < 4; k++)
			if (strcmp(s->vcs[vc].name, cap[k].vc) == 0 && g > cap[k].max)
				g = cap[k].max;
		add(jobs, i, vc, i * 30.0 + rand() % 30, 1, 60 + rand() % 20000);
		if (g > 8)
			job_set_shape(&jobs[i], g / 8, 8);
		else
			job_set_shape(&jobs[i], 1, g);
		jobs[i].model = rand() % model_count;
		jobs[i].klass = rand() % 4 == 0 ? JOB_OPPORTUNISTIC : rand() % 3 == 0 ?
		    JOB_AUTO : JOB_GUARANTEED;
	}
}

#endif
