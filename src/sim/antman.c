/*
 * antman.c — one GPU's memory and SM shares under AntMan's control or
 * under plain packing. See antman.h. Called by emu-antman.c whenever
 * something on a GPU changes (a job comes or goes, a job's phase moves).
 */
#include "sim/antman.h"
#include "job/model-class.h"
#include "sim/share.h"

static double
mem_min(const struct am_user *u)
{
	if (u->model < 0 || u->model >= model_count)
		return u->need;
	return model_table[u->model].mem_min < u->need ?
	    model_table[u->model].mem_min : u->need;
}

static double
cap_speed(const struct am_user *u, double cap)
{
	if (u->model < 0 || u->model >= model_count)
		return cap >= u->need ? 1 : 0;
	return model_cap_speed(&model_table[u->model], cap, u->need);
}

static void
plan_pack(const struct am_user *u, int n, double gpu_mem, struct am_grant *out)
{
	double used = 0, total = 0;
	int i, live = 0;
	bool full = false;

	for (i = 0; i < n; i++) {
		out[i].oom = full || used + u[i].need > gpu_mem;
		if (out[i].oom) {
			full = true;
			out[i].mem = out[i].sm = out[i].factor = 0;
			continue;
		}
		used += u[i].need;
		out[i].mem = u[i].need;
		total += u[i].sm;
		live++;
	}
	for (i = 0; i < n; i++) {
		if (out[i].oom)
			continue;
		out[i].factor = share_packed_factor(u[i].sm, total, live);
		out[i].sm = total > 1 ? u[i].sm / total : u[i].sm;
	}
}

void
am_plan_gpu(const struct am_user *u, int n, double gpu_mem, bool control,
    struct am_grant *out)
{
	double mem_left = gpu_mem, sm_left = 1, extra = 0, demand = 0, gsm = 0;
	int i, first = 0;

	for (i = 0; i < n; i++) {
		out[i].factor = 0;
		out[i].mem = out[i].sm = 0;
		out[i].oom = false;
	}
	if (n <= 0)
		return;
	if (!control) {
		plan_pack(u, n, gpu_mem, out);
		return;
	}
	if (u[0].host) {
		out[0].mem = u[0].need < gpu_mem ? u[0].need : gpu_mem;
		out[0].sm = u[0].sm < 1 ? u[0].sm : 1;
		mem_left -= out[0].mem;
		sm_left -= out[0].sm;
		first = 1;
	}
	/* memory: every guest its minimum while it fits, in order */
	for (i = first; i < n; i++) {
		double lo = mem_min(&u[i]);
		if (lo <= mem_left + 1e-12) {
			out[i].mem = lo;
			mem_left -= lo;
			extra += u[i].need - lo;
			demand += u[i].sm;
		} else
			out[i].mem = -1;	/* paused */
	}
	/* then what is left, pro rata to what each still needs */
	for (i = first; i < n; i++) {
		if (out[i].mem < 0)
			continue;
		if (extra > 0)
			out[i].mem += (u[i].need - mem_min(&u[i])) *
			    (mem_left >= extra ? 1 : mem_left / extra);
		out[i].sm = demand > sm_left && demand > 0 ? u[i].sm * sm_left / demand :
		    u[i].sm;
		out[i].factor = (u[i].sm > 0 ? out[i].sm / u[i].sm : 1) *
		    cap_speed(&u[i], out[i].mem);
		if (out[i].factor <= 0)
			out[i].mem = out[i].sm = out[i].factor = 0;
		gsm += out[i].sm;
	}
	for (i = first; i < n; i++)
		if (out[i].mem < 0)
			out[i].mem = 0;
	if (first)
		out[0].factor = 1 - AM_RESIDUAL * (gsm < 1 ? gsm : 1);
}
