/*
 * engine-work.h — set-ups for the engine tests (tengine-basic.c,
 * tengine-move.c; tjob-reconf.c takes its spec loader), header only: the
 * HiveD paper's Figure 3 cluster, a spec from text, and a one-member
 * request. Include after test.h.
 */
#ifndef CELLAR_ENGINE_WORK_H
#define CELLAR_ENGINE_WORK_H

#include <stdio.h>
#include <string.h>

#include "engine/engine.h"
#include "spec/spec.h"

/*
 * Figure 3: one rack of four 8-GPU nodes (SOCK of 2 SW of 2 GPUs), VCs
 * A and B (a socket, a switch, a GPU each) and C (two nodes, a switch).
 * Node n3 carries the pinned cell id PIN, which no VC pins unless
 * fig3_pinned_tail is appended (it pins it to C).
 */
static const char fig3[] =
    "physicalCluster:\n"
    "  cellTypes:\n"
    "    SW: {childCellType: GPU, childCellNumber: 2}\n"
    "    SOCK: {childCellType: SW, childCellNumber: 2}\n"
    "    NODE: {childCellType: SOCK, childCellNumber: 2, isNodeLevel: true}\n"
    "    RACK: {childCellType: NODE, childCellNumber: 4}\n"
    "  physicalCells:\n"
    "  - cellType: RACK\n"
    "    cellChildren:\n"
    "    - cellAddress: n0\n"
    "    - cellAddress: n1\n"
    "    - cellAddress: n2\n"
    "    - cellAddress: n3\n"
    "      pinnedCellId: PIN\n"
    "virtualClusters:\n"
    "  A:\n"
    "    virtualCells:\n"
    "    - {cellType: RACK.NODE.SOCK, cellNumber: 1}\n"
    "    - {cellType: RACK.NODE.SOCK.SW, cellNumber: 1}\n"
    "    - {cellType: RACK.NODE.SOCK.SW.GPU, cellNumber: 1}\n"
    "  B:\n"
    "    virtualCells:\n"
    "    - {cellType: RACK.NODE.SOCK, cellNumber: 1}\n"
    "    - {cellType: RACK.NODE.SOCK.SW, cellNumber: 1}\n"
    "    - {cellType: RACK.NODE.SOCK.SW.GPU, cellNumber: 1}\n"
    "  C:\n"
    "    virtualCells:\n"
    "    - {cellType: RACK.NODE, cellNumber: 2}\n"
    "    - {cellType: RACK.NODE.SOCK.SW, cellNumber: 1}\n";

/* Appended to fig3: node n3 pinned to C instead of one of its nodes. */
static const char fig3_pinned_tail[] =
    "    pinnedCells:\n"
    "    - pinnedCellId: PIN\n";

/* A spec from text, or NULL with its first diagnostic on stderr. */
static inline struct spec *
work_spec(const char *text)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load_string("fig3.yaml", text, strlen(text), &d);
	if (s == NULL && d.n)
		fprintf(stderr, "%s\n", d.v[0].text);
	spec_diags_release(&d);
	return s;
}

/* A one-member request of `pods` pods of `gpus` GPUs in VC `vc`
   (priority < 0: opportunistic), any leaf type, unpinned. */
static inline void
work_req(struct engine_req *r, const char *name, int vc, int pods, int gpus,
    int prio)
{
	memset(r, 0, sizeof *r);
	r->name = name;
	r->vc = vc;
	r->priority = prio;
	r->leaf_type = -1;
	r->pin = -1;
	r->nmembers = 1;
	r->members[0].pods = pods;
	r->members[0].gpus = gpus;
}

#endif
