/*
 * store-vfs.c — "cellar-wal", a VFS over the platform's default one that
 * writes a WAL transaction's frames to the -wal file in one write instead
 * of two per frame.
 *
 * Why: SQLite writes each frame as its 24-byte header, then its page, two
 * pwrite(2)s. A group of 256 commands on a run of 10,000 jobs commits
 * ~200 frames (its releases touch that many pages of the jobs and
 * placements tables), 400 system calls: ~550 us of a ~1.9 ms commit,
 * against ~140 us for the same bytes in one write (bench-batch, and a
 * micro-benchmark of both ways on this file system).
 *
 * How: a -wal file's contiguous writes collect in a buffer, written out
 * (1) when the page of a commit frame (a header whose "database size"
 * field is not 0) has been added, so a transaction's frames are in the
 * file before SQLite's write of them returns and before the WAL index
 * tells any reader they are there: a committed transaction is in the
 * file exactly as before (kill -9 loses nothing committed); (2) before
 * any other use of the file (a read, a write elsewhere, truncate, sync,
 * size, lock, close), so SQLite never sees the file without its own
 * writes; (3) when the buffer is full. A failed write is the failure of
 * SQLite's write that caused it, as before. Every other file (the
 * database, its journals, the -shm) is the default VFS's own, untouched.
 *
 * Invariant: outside a call into a -wal file's methods, its buffer holds
 * no byte of a committed transaction.
 */
#include "store/store-int.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Bytes buffered at most: the unix VFS writes at most 0x1ffff bytes in
   one call (it masks the count, and a larger write comes out short). */
#define WB_CAP		0x1f000
#define WAL_HDR		32		/* the WAL file's header */
#define FRAME_HDR	24		/* a frame's header */

struct wb_file {
	sqlite3_file	 base;		/* methods: wb_io */
	sqlite3_file	*real;		/* the default VFS's file, after us */
	unsigned char	*buf;
	size_t		 len;		/* buffered bytes, from off */
	sqlite3_int64	 off;
	bool		 commit;	/* the last header buffered: a commit's */
	bool		 page;		/* the next write may be its page */
};

static sqlite3_vfs *wb_base;	/* the default VFS */

static int
wb_flush(struct wb_file *w)
{
	int rc = SQLITE_OK;

	if (w->len > 0)
		rc = w->real->pMethods->xWrite(w->real, w->buf, (int)w->len, w->off);
	w->len = 0;
	w->page = false;
	return rc;
}

static int
wb_close(sqlite3_file *f)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w), rc2;

	rc2 = w->real->pMethods->xClose(w->real);
	sqlite3_free(w->buf);
	w->buf = NULL;
	return rc != SQLITE_OK ? rc : rc2;
}

static int
wb_read(sqlite3_file *f, void *p, int n, sqlite3_int64 off)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xRead(w->real, p, n, off);
}

/* Add n bytes at off to the buffer (contiguous with what it holds). */
static int
wb_add(struct wb_file *w, const void *p, int n, sqlite3_int64 off)
{
	int rc;

	if (w->len + (size_t)n > WB_CAP && (rc = wb_flush(w)) != SQLITE_OK)
		return rc;
	if (w->len == 0)
		w->off = off;
	memcpy(w->buf + w->len, p, (size_t)n);
	w->len += (size_t)n;
	return SQLITE_OK;
}

/*
 * Only the pattern SQLite writes frames in is held back: a 24-byte frame
 * header, then its page right after it. Anything else (the WAL's header,
 * a frame written some other way) goes to the file at once, after what
 * the buffer holds.
 */
static int
wb_write(sqlite3_file *f, const void *p, int n, sqlite3_int64 off)
{
	struct wb_file *w = (struct wb_file *)f;
	const unsigned char *h = p;
	bool page = w->page;
	int rc;

	w->page = false;
	if (page && off == w->off + (sqlite3_int64)w->len) {
		if ((rc = wb_add(w, p, n, off)) != SQLITE_OK || !w->commit)
			return rc;
		/* a commit frame's page: the transaction is whole */
		w->commit = false;
		return wb_flush(w);
	}
	if (w->buf != NULL && n == FRAME_HDR && off >= WAL_HDR) {
		if (w->len > 0 && off != w->off + (sqlite3_int64)w->len &&
		    (rc = wb_flush(w)) != SQLITE_OK)
			return rc;
		if ((rc = wb_add(w, p, n, off)) != SQLITE_OK)
			return rc;
		/* bytes 4-7: the database's size after a commit, else 0 */
		w->commit = (h[4] | h[5] | h[6] | h[7]) != 0;
		w->page = true;
		return SQLITE_OK;
	}
	if ((rc = wb_flush(w)) != SQLITE_OK)
		return rc;
	return w->real->pMethods->xWrite(w->real, p, n, off);
}

static int
wb_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xTruncate(w->real, size);
}

static int
wb_sync(sqlite3_file *f, int flags)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xSync(w->real, flags);
}

static int
wb_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xFileSize(w->real, size);
}

static int
wb_lock(sqlite3_file *f, int lock)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xLock(w->real, lock);
}

static int
wb_unlock(sqlite3_file *f, int lock)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc : w->real->pMethods->xUnlock(w->real, lock);
}

static int
wb_reserved(sqlite3_file *f, int *out)
{
	struct wb_file *w = (struct wb_file *)f;

	return w->real->pMethods->xCheckReservedLock(w->real, out);
}

static int
wb_control(sqlite3_file *f, int op, void *arg)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc = wb_flush(w);

	return rc != SQLITE_OK ? rc :
	    w->real->pMethods->xFileControl(w->real, op, arg);
}

static int
wb_sector(sqlite3_file *f)
{
	struct wb_file *w = (struct wb_file *)f;

	return w->real->pMethods->xSectorSize(w->real);
}

static int
wb_caps(sqlite3_file *f)
{
	struct wb_file *w = (struct wb_file *)f;

	return w->real->pMethods->xDeviceCharacteristics(w->real);
}

/* No shared memory or mapping of a -wal file: SQLite asks neither. */
static const sqlite3_io_methods wb_io = {
	.iVersion = 1,
	.xClose = wb_close,
	.xRead = wb_read,
	.xWrite = wb_write,
	.xTruncate = wb_truncate,
	.xSync = wb_sync,
	.xFileSize = wb_size,
	.xLock = wb_lock,
	.xUnlock = wb_unlock,
	.xCheckReservedLock = wb_reserved,
	.xFileControl = wb_control,
	.xSectorSize = wb_sector,
	.xDeviceCharacteristics = wb_caps,
};

static int
wb_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *f, int flags,
    int *oflags)
{
	struct wb_file *w = (struct wb_file *)f;
	int rc;

	(void)vfs;
	/* anything but a -wal file: the default VFS's, in place */
	if (!(flags & SQLITE_OPEN_WAL))
		return wb_base->xOpen(wb_base, name, f, flags, oflags);
	memset(w, 0, sizeof *w);
	w->real = (sqlite3_file *)(w + 1);
	if ((rc = wb_base->xOpen(wb_base, name, w->real, flags, oflags)) !=
	    SQLITE_OK)
		return rc;
	/* without a buffer every write goes straight through */
	w->buf = sqlite3_malloc(WB_CAP);
	w->base.pMethods = &wb_io;
	return SQLITE_OK;
}

static int
wb_delete(sqlite3_vfs *v, const char *name, int sync)
{
	(void)v;
	return wb_base->xDelete(wb_base, name, sync);
}

static int
wb_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	(void)v;
	return wb_base->xAccess(wb_base, name, flags, out);
}

static int
wb_fullname(sqlite3_vfs *v, const char *name, int n, char *out)
{
	(void)v;
	return wb_base->xFullPathname(wb_base, name, n, out);
}

static int
wb_random(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return wb_base->xRandomness(wb_base, n, out);
}

static int
wb_sleep(sqlite3_vfs *v, int us)
{
	(void)v;
	return wb_base->xSleep(wb_base, us);
}

static int
wb_time(sqlite3_vfs *v, double *t)
{
	(void)v;
	return wb_base->xCurrentTime(wb_base, t);
}

static int
wb_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return wb_base->xGetLastError(wb_base, n, out);
}

static int
wb_time64(sqlite3_vfs *v, sqlite3_int64 *t)
{
	(void)v;
	return wb_base->xCurrentTimeInt64(wb_base, t);
}

static void *
wb_dlopen(sqlite3_vfs *v, const char *name)
{
	(void)v;
	return wb_base->xDlOpen(wb_base, name);
}

static void
wb_dlerror(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	wb_base->xDlError(wb_base, n, out);
}

static void (*
wb_dlsym(sqlite3_vfs *v, void *h, const char *sym))(void)
{
	(void)v;
	return wb_base->xDlSym(wb_base, h, sym);
}

static void
wb_dlclose(sqlite3_vfs *v, void *h)
{
	(void)v;
	wb_base->xDlClose(wb_base, h);
}

static sqlite3_vfs wb_vfs = {
	.iVersion = 2,
	.zName = STORE_VFS,
	.xOpen = wb_open,
	.xDelete = wb_delete,
	.xAccess = wb_access,
	.xFullPathname = wb_fullname,
	.xDlOpen = wb_dlopen,
	.xDlError = wb_dlerror,
	.xDlSym = wb_dlsym,
	.xDlClose = wb_dlclose,
	.xRandomness = wb_random,
	.xSleep = wb_sleep,
	.xCurrentTime = wb_time,
	.xGetLastError = wb_error,
	.xCurrentTimeInt64 = wb_time64,
};

int
store_vfs_register(void)
{
	if (wb_base != NULL)
		return SQLITE_OK;
	if ((wb_base = sqlite3_vfs_find(NULL)) == NULL)
		return SQLITE_ERROR;
	wb_vfs.szOsFile = (int)sizeof(struct wb_file) + wb_base->szOsFile;
	wb_vfs.mxPathname = wb_base->mxPathname;
	return sqlite3_vfs_register(&wb_vfs, 0);
}
