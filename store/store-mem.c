/*
 * store-mem.c — SQLite's allocator: malloc, with the blocks SQLite frees
 * kept on a stack per size class for its next malloc of that class.
 *
 * Why: every command of a group journals the pages it changes into an
 * in-memory sub-journal of 1 KB chunks (store_sqlite_config), about 20 a
 * command, all freed at its RELEASE. glibc's per-thread cache keeps 7
 * blocks of a size, so the rest took malloc's and free's slow paths: 6.5%
 * of a hand command's instructions (callgrind, bench-batch). Here they
 * come back last-in first-out, still in the CPU's cache.
 *
 * Classes: 16-byte steps up to 1 KB, 256-byte steps up to 8 KB (a page
 * and its header); larger blocks go to malloc and free directly. At most
 * MEM_CACHED bytes wait on the stacks; beyond that a freed block goes
 * back to free. One spin lock guards the stacks: the replay's checkpoint
 * writer runs SQLite on a thread of its own, and the lock is held for a
 * push or a pop. Under AddressSanitizer nothing is cached, so a use after
 * free inside SQLite is still caught.
 *
 * Every block has a 16-byte header before it (the size asked for, for
 * xSize, and the class), so blocks stay 16-byte aligned.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store-int.h"

#if defined(__SANITIZE_ADDRESS__)
#define MEM_CACHE_ON	0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEM_CACHE_ON	0
#endif
#endif
#ifndef MEM_CACHE_ON
#define MEM_CACHE_ON	1
#endif

#define MEM_HDR		16
#define MEM_SMALL	1024		/* 16-byte classes up to here */
#define MEM_LARGE	8192		/* 256-byte classes up to here */
#define MEM_NSMALL	(MEM_SMALL / 16)
#define MEM_NCLASS	(MEM_NSMALL + (MEM_LARGE - MEM_SMALL) / 256)
#define MEM_CACHED	(8 << 20)	/* bytes on the stacks at most */

struct mem_hdr {
	int64_t	 size;		/* asked for */
	int32_t	 cls;		/* -1: not a class size (freed directly) */
	int32_t	 pad;
};

struct mem_free {
	struct mem_free	*next;
};

static struct mem_free	*mem_stack[MEM_NCLASS];
static size_t		 mem_cached;
static atomic_flag	 mem_lock = ATOMIC_FLAG_INIT;

/* The class of a block of n bytes, and its size; -1 above MEM_LARGE. */
static int
mem_class(size_t n, size_t *csize)
{
	if (n <= MEM_SMALL) {
		*csize = n <= 16 ? 16 : (n + 15) & ~(size_t)15;
		return (int)(*csize / 16) - 1;
	}
	if (n <= MEM_LARGE) {
		*csize = (n + 255) & ~(size_t)255;
		return MEM_NSMALL + (int)((*csize - MEM_SMALL) / 256) - 1;
	}
	*csize = n;
	return -1;
}

static void
mem_lock_take(void)
{
	while (atomic_flag_test_and_set_explicit(&mem_lock, memory_order_acquire))
		;
}

static void
mem_lock_give(void)
{
	atomic_flag_clear_explicit(&mem_lock, memory_order_release);
}

static void *
mem_malloc(int n)
{
	struct mem_hdr *h = NULL;
	size_t csize;
	int cls;

	if (n <= 0)
		return NULL;
	cls = mem_class((size_t)n, &csize);
	if (MEM_CACHE_ON && cls >= 0) {
		mem_lock_take();
		if (mem_stack[cls] != NULL) {
			h = (struct mem_hdr *)(void *)mem_stack[cls];
			mem_stack[cls] = mem_stack[cls]->next;
			mem_cached -= csize + MEM_HDR;
		}
		mem_lock_give();
	}
	if (h == NULL && (h = malloc(csize + MEM_HDR)) == NULL)
		return NULL;
	h->size = n;
	h->cls = cls;
	return (char *)h + MEM_HDR;
}

static void
mem_free(void *p)
{
	struct mem_hdr *h;
	size_t csize;
	bool kept = false;

	if (p == NULL)
		return;
	h = (struct mem_hdr *)(void *)((char *)p - MEM_HDR);
	if (MEM_CACHE_ON && h->cls >= 0) {
		(void)mem_class((size_t)h->size, &csize);
		mem_lock_take();
		if (mem_cached + csize + MEM_HDR <= MEM_CACHED) {
			struct mem_free *f = (struct mem_free *)(void *)h;

			f->next = mem_stack[h->cls];
			mem_stack[h->cls] = f;
			mem_cached += csize + MEM_HDR;
			kept = true;
		}
		mem_lock_give();
	}
	if (!kept)
		free(h);
}

static int
mem_size(void *p)
{
	return p == NULL ? 0 : (int)((struct mem_hdr *)(void *)((char *)p -
	    MEM_HDR))->size;
}

static void *
mem_realloc(void *p, int n)
{
	struct mem_hdr *h = (struct mem_hdr *)(void *)((char *)p - MEM_HDR);
	size_t csize;
	void *q;
	int cls = mem_class((size_t)(n > 0 ? n : 1), &csize);

	if (n > 0 && cls >= 0 && cls == h->cls) {	/* still fits its block */
		h->size = n;
		return p;
	}
	if ((q = mem_malloc(n)) == NULL)
		return NULL;
	memcpy(q, p, (size_t)(h->size < n ? h->size : n));
	mem_free(p);
	return q;
}

static int
mem_roundup(int n)
{
	size_t csize;

	if (n > MEM_LARGE)
		return (n + 7) & ~7;
	(void)mem_class((size_t)(n > 0 ? n : 1), &csize);
	return (int)csize;
}

static int
mem_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void
mem_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods mem_methods = {
	mem_malloc, mem_free, mem_realloc, mem_size, mem_roundup, mem_init,
	mem_shutdown, NULL
};

int
store_mem_install(void)
{
	return sqlite3_config(SQLITE_CONFIG_MALLOC, &mem_methods);
}
