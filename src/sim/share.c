/*
 * share.c — time-slicing and packing plans for a sharing group. See
 * share.h. Used by emu-share.c when it (re)plans a group; pure.
 *
 * The packing model. Gandiva (OSDI'18) §4.3 and Table 1: packing two jobs
 * of low GPU utilization on one GPU raises aggregate throughput (each
 * keeps most of its speed), packing two of high utilization lowers it
 * below time-slicing, so Gandiva measures and undoes such packs. We model
 * each job of a pack as getting capacity / demand of its speed when the
 * summed utilization exceeds the GPU (a fair share of a saturated GPU),
 * less PACK_OVERHEAD per co-runner (context switches and cache sharing,
 * which Gandiva reports even for light pairs) and PACK_CONTENTION per
 * unit of excess demand (memory-bandwidth and cache thrashing beyond the
 * fair share). The constants are ours, chosen so that the model table's
 * low-utilization classes (lstm 0.45, dcgan 0.35) gain about 1.8x and its
 * high-utilization ones (resnet50 0.90, 2 x 0.42 = 0.84x) lose: the shape
 * of Table 1, not its figures.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/share.h"

#define PACK_OVERHEAD	0.10	/* per co-runner */
#define PACK_CONTENTION	0.20	/* per unit of utilization above 1 */

double
share_packed_factor(double u, double total, int n)
{
	double f;

	(void)u;
	if (n <= 1)
		return 1;
	f = total > 1 ? 1 / total : 1;
	f *= 1 - PACK_OVERHEAD * (n - 1);
	if (total > 1)
		f *= 1 - PACK_CONTENTION * (total - 1);
	return f > 0 ? f : 0;
}

void
share_plan_slice(const struct share_member *mb, int n, int slots,
    struct share_slot *out)
{
	int i;

	(void)mb;
	for (i = 0; i < n; i++) {
		out[i].run = i < slots;
		out[i].factor = 1;
		out[i].share = 1;
		out[i].partner = -1;
	}
}

/* Member indices by (utilization, job id), the pairing order: an
   insertion sort, since groups are small and qsort's comparator could not
   see mb without state a pure module must not keep. */
static void
order_by_util(const struct share_member *mb, int *idx, int n)
{
	int i, k, v;

	for (i = 0; i < n; i++)
		idx[i] = i;
	for (i = 1; i < n; i++) {
		v = idx[i];
		for (k = i - 1; k >= 0; k--) {
			const struct share_member *x = &mb[idx[k]], *y = &mb[v];
			if (x->util < y->util || (x->util == y->util && x->job < y->job))
				break;
			idx[k + 1] = idx[k];
		}
		idx[k + 1] = v;
	}
}

bool
share_plan_pack(const struct share_member *mb, int n, int slots, double gpu_mem,
    struct share_slot *out)
{
	int pairs = n - slots, i, a, b, *idx;
	bool ok = true;

	if (n <= 0 || n <= slots || pairs > slots || slots <= 0)
		return false;
	for (i = 0; i < n; i++)
		if (!(mb[i].util <= 1) || !(mb[i].mem >= 0) || mb[i].prio != mb[0].prio)
			return false;
	idx = calloc((size_t)n + 1, sizeof *idx);
	if (idx == NULL)
		return false;
	order_by_util(mb, idx, n);
	for (i = 0; i < pairs && ok; i++)
		if (mb[idx[2 * i]].mem + mb[idx[2 * i + 1]].mem > gpu_mem)
			ok = false;
	if (ok) {
		for (i = 0; i < n; i++) {
			out[i].run = true;
			out[i].factor = 1;
			out[i].share = 1;
			out[i].partner = -1;
		}
		for (i = 0; i < pairs; i++) {
			double total;
			a = idx[2 * i];
			b = idx[2 * i + 1];
			total = mb[a].util + mb[b].util;
			out[a].factor = share_packed_factor(mb[a].util, total, 2);
			out[b].factor = share_packed_factor(mb[b].util, total, 2);
			out[a].share = out[b].share = 0.5;
			out[a].partner = b;
			out[b].partner = a;
		}
	}
	free(idx);
	return ok;
}

double
share_slice_rate(const double *alone, int n, int slots, double cost, double slice)
{
	double sum = 0;
	int i;

	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++)
		sum += alone[i];
	if (n <= slots)
		return sum;
	return sum * slots / n * (slice > 0 && cost < slice ? 1 - cost / slice : 0);
}
