/*
 * store-open.c — opening and closing the state store: its default path,
 * creating a new one whole, checking its header, the read-only and
 * immutable modes, the connection's settings (its buffers registered in
 * their order, store-int.h invariant 3), the WAL checkpointer. The
 * schema's versions and the steps between them are in store-migrate.c.
 *
 * Opening, in order: a missing store we may write is built whole under a
 * name of its own (PATH.new.PID, O_EXCL, mode 0600: SQLite never creates
 * it with the umask's mode) and linked into place (store_create, store.h
 * invariant 6); then the connection gets its busy timeout and foreign
 * keys; the header is read
 * (application_id, user_version: a file that is no database fails here);
 * then, for writing, WAL mode, synchronous=NORMAL (a commit is durable
 * once the WAL is synced at checkpoint; a power cut may lose the last
 * transactions, never corrupt the file), checkpoints at commits only past
 * STORE_WAL_PAGES, and the schema is created or migrated in one
 * transaction. A writer's WAL goes through the cellar-wal VFS
 * (store-vfs.c: a transaction's frames in one write). A reader that cannot or must not make the
 * -wal and -shm files beside a store nobody has open reads it immutable
 * (store_read_mode).
 */

#include "store/store-int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/xmalloc.h"

/* ---- paths ---- */

bool
store_is_memory(const char *path)
{
	return strcmp(path, ":memory:") == 0;
}

bool
store_exists(const char *path)
{
	struct stat sb;

	return !store_is_memory(path) && stat(path, &sb) == 0;
}

char *
store_default_path(char **cause)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/cellar/cellar.db", xdg);
	if (home != NULL && home[0] == '/')
		return xasprintf("%s/.local/state/cellar/cellar.db", home);
	*cause = xstrdup("no place for the state store: neither XDG_STATE_HOME "
	    "nor HOME is an absolute path (give --db PATH)");
	return NULL;
}

/* ---- opening ---- */

/* Make the directories of path that are missing, mode 0700. */
static int
store_mkdirs(const char *path, char **cause)
{
	char *dir = xstrdup(path), *p;
	struct stat sb;
	int rc = 0;

	if ((p = strrchr(dir, '/')) == NULL || p == dir) {
		free(dir);
		return 0;
	}
	*p = '\0';
	for (p = dir + 1; rc == 0; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (stat(dir, &sb) != 0) {
			if (errno != ENOENT || mkdir(dir, 0700) != 0) {
				*cause = xasprintf("cannot create directory '%s' for the "
				    "state store: %s", dir, strerror(errno));
				rc = -1;
			}
		} else if (!S_ISDIR(sb.st_mode)) {
			*cause = xasprintf("cannot create directory '%s' for the state "
			    "store: %s", dir, strerror(ENOTDIR));
			rc = -1;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	free(dir);
	return rc;
}

static void
store_unlink_files(const char *path)
{
	char *x;

	unlink(path);
	x = xasprintf("%s-wal", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-shm", path);
	unlink(x);
	free(x);
	x = xasprintf("%s-journal", path);
	unlink(x);
	free(x);
}

static int
store_busy_ms(void)
{
	const char *v = getenv("CELLAR_BUSY_TIMEOUT");
	char *end;
	long ms;

	if (v == NULL || *v == '\0')
		return STORE_BUSY_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || ms < 0 || ms > 3600000)
		return STORE_BUSY_MS;
	return (int)ms;
}

/*
 * Read the header: is this a cellar database, an empty one, or something
 * else? *fresh when it holds nothing yet.
 */
static int
store_check_header(struct store *st, bool *fresh, int *version, char **cause)
{
	long long appid = 0, ntables = 0;
	int rc;

	/* One read transaction: a store being created by another process
	   must look either empty or complete, never half of each. */
	if (store_exec(st, "BEGIN", cause) != 0)
		return -1;
	rc = store_pragma_int(st, "PRAGMA application_id", &appid, cause);
	if (rc == 0)
		rc = store_pragma_int(st, "PRAGMA user_version", &ntables, cause);
	*version = (int)ntables;
	if (rc == 0)
		rc = store_pragma_int(st, "SELECT count(*) FROM sqlite_master",
		    &ntables, cause);
	sqlite3_exec(st->db, rc == 0 ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL);
	if (rc != 0)
		return -1;
	*fresh = appid == 0 && *version == 0 && ntables == 0;
	if (*fresh)
		return 0;
	if (appid != STORE_APPLICATION_ID) {
		*cause = xasprintf("'%s' is not a cellar state store (a SQLite "
		    "database of something else)", st->path);
		return -1;
	}
	if (*version > STORE_SCHEMA_VERSION) {
		*cause = xasprintf("state store '%s' has schema version %d, newer "
		    "than this cellar (%d): upgrade cellar", st->path, *version,
		    STORE_SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

static int	open_store(const char *, unsigned, const struct store *,
		    struct store **, char **);

/*
 * A read-only open found an older schema: migrate it with a writing open,
 * then open read-only again. When this process may not write the store
 * (a read-only file or directory, a lock held too long), it says what to
 * run instead.
 */
static int
store_open_upgrade(const char *path, unsigned oflags, int version,
    struct store **out, char **cause)
{
	struct store *w;
	char *why = NULL;
	int rc;

	if ((rc = open_store(path, STORE_WRITE, NULL, &w, &why)) != 0) {
		if (rc == STORE_MISMATCH) {
			/* not a matter of who runs what: say so, no hint */
			*cause = why;
			return -1;
		}
		*cause = xasprintf("state store '%s' has schema version %d, older "
		    "than this cellar (%d), and cannot be migrated here (%s): run "
		    "a command that writes, e.g. 'cellar --db %s db vacuum', as a "
		    "user who may write it", path, version, STORE_SCHEMA_VERSION,
		    why != NULL ? why : "unknown error", path);
		free(why);
		return -1;
	}
	store_close(w);
	rc = store_open(path, oflags, out, cause);
	return rc;
}

/*
 * Before SQLite initializes (the first open in the process): no memory
 * statistics, which take a global mutex and count on every allocation
 * (5% of a replay's store writer thread); statement journals always in
 * memory. SQLite's default spills them to a temporary file past 64 KB,
 * and a checkpoint's one INSERT of all its jobs journals every page it
 * changes that was there before: 10,000 page writes to /var/tmp in a
 * Philly replay. A higher spill threshold is no better: it becomes the
 * size of the journal's first chunk, so every statement that journals
 * maps and unmaps that much (4,800 munmaps in that replay, each flushing
 * the other threads' TLBs). In memory the chunks are 1 KB; a statement's
 * journal holds at most the pages it changes. Once: later calls would
 * only be refused.
 */
static void
store_sqlite_config(void)
{
	static bool done;

	if (!done) {
		done = true;
		sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1);
		(void)store_mem_install();	/* store-mem.c; SQLite's own if refused */
	}
}

/*
 * A new store appears whole or not at all (invariant 6): it is built
 * under a name of its own beside path (PATH.new.PID: WAL mode, the
 * schema), closed, and linked to path, which fails if another process
 * made path first (then that one is used). A kill -9 on the way leaves
 * only the builder's file, which the next creator removes once its pid
 * is gone; before, it left a 0-byte file or one with a hot rollback
 * journal that no read-only open could roll back. st's test hooks count
 * the builder's steps (the file, WAL mode, the migration) as its own.
 */

static void
store_sweep_new(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/'), *base, *x;
	const char *d = ".";
	struct dirent *de;
	size_t blen;
	DIR *dp;
	long pid;

	if (slash != NULL) {
		*slash = '\0';
		d = slash == dir ? "/" : dir;
		base = slash + 1;
	} else
		base = dir;
	if ((dp = opendir(d)) == NULL) {
		free(dir);
		return;
	}
	blen = strlen(base);
	while ((de = readdir(dp)) != NULL) {
		char *end;

		if (strncmp(de->d_name, base, blen) != 0 ||
		    strncmp(de->d_name + blen, ".new.", 5) != 0)
			continue;
		pid = strtol(de->d_name + blen + 5, &end, 10);
		/* a builder still alive (or not ours to ask) is left alone */
		if (*end != '\0' || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		x = xasprintf("%s/%s", d, de->d_name);
		store_unlink_files(x);
		free(x);
	}
	closedir(dp);
	free(dir);
}

static int
store_create(struct store *st, const char *path, char **cause)
{
	struct store *b = NULL;
	char *tmp = xasprintf("%s.new.%ld", path, (long)getpid());
	int fd, rc = -1;

	store_sweep_new(path);
	store_unlink_files(tmp);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) != 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* the builder: a writing open of the empty file, with our hooks */
	if (store_hook_step(st, NULL, cause) != 0 ||
	    open_store(tmp, STORE_WRITE, st, &b, cause) != 0)
		goto out;
	st->steps = b->steps;
	st->fail_at = b->fail_at;
	b->kill_at = 0;		/* its close says nothing of our steps */
	store_close(b);		/* checkpoints the WAL into the file */
	b = NULL;
	if ((fd = open(tmp, O_RDONLY | O_CLOEXEC)) < 0 || fsync(fd) != 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	if (store_hook_step(st, NULL, cause) != 0)
		goto out;
	if (link(tmp, path) != 0 && errno != EEXIST) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	store_close(b);
	store_unlink_files(tmp);
	free(tmp);
	return rc;
}

/*
 * How to read a store file (a read-only open). A reader of a WAL store
 * needs its -wal and -shm files, which SQLite creates beside it when they
 * are missing (no process has the store open). Where this process cannot
 * create them (a read-only file system, a directory it may not write:
 * every read failed, "No such file or directory" or "cannot be written")
 * or must not (the store is another user's: files it made would be the
 * reader's, and the owner's next writer could not use them), and no -wal
 * is there, the file is complete as it is (a writer's last close folds
 * its -wal in and removes it): SQLite reads it immutable (no locks, no
 * -wal, no -shm). Nobody writes a read-only file system meanwhile;
 * elsewhere a shared lock on the file (the byte range of SQLite's own
 * SHARED lock, st->guard) stops a writer that opens meanwhile from
 * folding its -wal into the file at its close while we read (SQLite takes
 * an EXCLUSIVE lock first, and skips that step without it). What is left
 * is a writer checkpointing a large transaction into the file during the
 * read, which the read may then report as damage: retry. 0: a normal
 * read; 1: immutable; -1 with *cause: neither can work (a -wal is there,
 * but no -shm, and none can be made).
 */
#define STORE_SHARED_FIRST	(0x40000000 + 2)	/* SQLite's os_unix.c */
#define STORE_SHARED_SIZE	510

static int
store_read_mode(const char *path, char **cause)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	char *wal = xasprintf("%s-wal", path), *shm = xasprintf("%s-shm", path);
	struct stat sb, ws, ss;
	struct statvfs vfs;
	bool rofs, canmake, other, haswal, hasshm;
	int rc = 0;

	if (slash != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	rofs = statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0;
	canmake = !rofs && faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;
	other = stat(path, &sb) == 0 && sb.st_uid != geteuid();
	haswal = stat(wal, &ws) == 0 && ws.st_size > 0;
	hasshm = stat(shm, &ss) == 0;
	if (!haswal && (!canmake || other))
		rc = 1;
	else if (haswal && !hasshm && !canmake) {
		*cause = xasprintf("state store '%s' cannot be read here: its "
		    "write-ahead log '%s' holds changes not yet in the file, and "
		    "SQLite cannot make '%s' beside it (%s): open it once as a "
		    "user who may write '%s'", path, wal, shm, rofs ?
		    "a read-only file system" : "the directory is not writable "
		    "by this user", dir);
		rc = -1;
	}
	free(dir);
	free(wal);
	free(shm);
	return rc;
}

/* "file:PATH?immutable=1" with PATH escaped for a URI. */
static char *
store_immutable_uri(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p;

	strbuf_adds(&sb, "file:");
	for (p = (const unsigned char *)path; *p != '\0'; p++)
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
			strbuf_addf(&sb, "%%%02X", *p);
		else
			strbuf_addc(&sb, (char)*p);
	strbuf_adds(&sb, "?immutable=1");
	return strbuf_detach(&sb, NULL);
}

/* The shared lock of an immutable reader (store_read_mode). */
static int
store_guard(struct store *st, const char *path, char **cause)
{
	struct flock fl;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		*cause = xasprintf("cannot open state store '%s': %s", path,
		    strerror(errno));
		return -1;
	}
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_RDLCK;
	fl.l_whence = SEEK_SET;
	fl.l_start = STORE_SHARED_FIRST;
	fl.l_len = STORE_SHARED_SIZE;
	/* a writer changing the file's journal mode holds it exclusively
	   for a moment: wait as for any busy store */
	if (fcntl(fd, F_SETLKW, &fl) != 0) {
		*cause = xasprintf("cannot lock state store '%s': %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	st->guard = fd;
	return 0;
}

/* store_open; like (the builder of a new store) lends its test hooks. */
static int
open_store(const char *path, unsigned oflags, const struct store *like,
    struct store **out, char **cause)
{
	struct store *st = xcalloc(1, sizeof *st);
	bool fresh, write = (oflags & STORE_WRITE) != 0;
	struct stat sb;
	int rc = 0, flags, version;

	*out = NULL;
	/* the builder's messages name the store it builds */
	st->path = xstrdup(like != NULL ? like->path : path);
	st->write = write;
	st->memory = store_is_memory(path);
	st->guard = -1;
	st->busy_ms = store_busy_ms();
	st->heads_every = STORE_HEADS_EVERY;
	st->wal_pages = STORE_WAL_PAGES;
	if (like != NULL) {
		st->kill_at = like->kill_at;
		st->fail_at = like->fail_at;
		st->steps = like->steps;
	} else {
		if (write && getenv("CELLAR_STORE_KILL") != NULL)
			st->kill_at = strtoll(getenv("CELLAR_STORE_KILL"), NULL, 10);
		if (write && getenv("CELLAR_STORE_FAIL") != NULL)
			st->fail_at = strtoll(getenv("CELLAR_STORE_FAIL"), NULL, 10);
	}
	if (!st->memory) {
		if (stat(path, &sb) != 0) {
			if (errno != ENOENT) {
				*cause = xasprintf("cannot open state store '%s': %s", path,
				    strerror(errno));
				goto fail;
			}
			if (!write) {
				*cause = xasprintf("no state store at '%s' (nothing "
				    "recorded yet)", path);
				store_close(st);
				return STORE_NOTFOUND;
			}
			if ((oflags & STORE_MKDIR) && store_mkdirs(path, cause) != 0)
				goto fail;
			/* made whole here, or by another process meanwhile */
			if (store_create(st, path, cause) != 0)
				goto fail;
		} else if (S_ISDIR(sb.st_mode)) {
			*cause = xasprintf("cannot open state store '%s': %s", path,
			    strerror(EISDIR));
			goto fail;
		}
		if (!write && (rc = store_read_mode(path, cause)) < 0)
			goto fail;
		if (!write && rc == 1 && store_guard(st, path, cause) != 0)
			goto fail;
		st->immutable = !write && rc == 1;
	}
	flags = (write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
	    SQLITE_OPEN_NOMUTEX | (st->memory ? SQLITE_OPEN_CREATE : 0);
	store_sqlite_config();
	if (st->immutable) {
		char *uri = store_immutable_uri(path);

		rc = sqlite3_open_v2(uri, &st->db, flags | SQLITE_OPEN_URI, NULL);
		free(uri);
	} else
		/* a writer's WAL transactions in one write each (store-vfs.c) */
		rc = sqlite3_open_v2(path, &st->db, flags,
		    write && !st->memory && store_vfs_register() == SQLITE_OK ?
		    STORE_VFS : NULL);
	if (rc != SQLITE_OK) {
		store_fail(st, rc, cause);
		goto fail;
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_timeout(st->db, st->busy_ms);
	/* the buffers register in the order their flushes must run */
	if (store_events_register(st, cause) != 0 ||
	    store_jobrows_register(st, cause) != 0)
		goto fail;
	store_chain_register(st);
	store_job_register(st);
	/* SQLite opens a file it may not write read-only, without a word. */
	if (write && sqlite3_db_readonly(st->db, "main") == 1) {
		struct statvfs vfs;

		*cause = xasprintf("state store '%s' cannot be written: %s", path,
		    statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) ?
		    "it is on a read-only file system" : "the file is read-only");
		goto fail;
	}
	if (store_exec(st, "PRAGMA foreign_keys = ON", cause) != 0 ||
	    store_check_header(st, &fresh, &version, cause) != 0)
		goto fail;
	if (!write) {
		if (fresh) {
			/* Being created by another process: nothing in it yet. */
			*cause = xasprintf("no state store at '%s' (nothing recorded "
			    "yet)", path);
			store_close(st);
			return STORE_NOTFOUND;
		}
		if (version < STORE_SCHEMA_VERSION) {
			/* An operator who upgrades cellar must not be locked out
			   of a store by commands that only read: one we may write
			   is migrated now (a writing open, one transaction), then
			   opened read-only again. */
			store_close(st);
			return store_open_upgrade(path, oflags, version, out, cause);
		}
		*out = st;
		return 0;
	}
	if (!st->memory && store_exec(st, "PRAGMA journal_mode = WAL", cause) != 0)
		goto fail;
	if (store_exec(st, "PRAGMA synchronous = NORMAL", cause) != 0 ||
	    store_exec(st, "PRAGMA cache_size = -16384", cause) != 0 ||
	    store_wal_autocheckpoint(st, true, cause) != 0)
		goto fail;
	if ((fresh || version < STORE_SCHEMA_VERSION) &&
	    (rc = store_migrate(st, store_migrations, store_nmigrations,
	    STORE_SCHEMA_VERSION, cause)) != 0) {
		store_close(st);
		return rc;
	}
	*out = st;
	return 0;
fail:
	store_close(st);
	return -1;
}

int
store_open(const char *path, unsigned oflags, struct store **out, char **cause)
{
	int rc = open_store(path, oflags, NULL, out, cause);

	return rc == STORE_MISMATCH ? -1 : rc;
}

int
store_wal_autocheckpoint(struct store *st, bool on, char **cause)
{
	int rc;

	if (st->memory)
		return 0;
	rc = sqlite3_wal_autocheckpoint(st->db, on ? st->wal_pages : 0);
	return rc == SQLITE_OK ? 0 : store_fail(st, rc, cause);
}

int
store_open_checkpointer(const struct store *st, struct store **out,
    char **cause)
{
	struct store *ck;
	int rc;

	*out = NULL;
	if (st->memory)
		return 0;
	ck = xcalloc(1, sizeof *ck);
	ck->path = xstrdup(st->path);
	ck->write = true;
	ck->guard = -1;
	ck->busy_ms = st->busy_ms;
	ck->heads_every = STORE_HEADS_EVERY;
	rc = sqlite3_open_v2(st->path, &ck->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_extended_result_codes(ck->db, 1);
		rc = sqlite3_wal_autocheckpoint(ck->db, 0);
	}
	/* A connection finds the WAL on its first read; until then a
	   checkpoint has nothing to do. */
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(ck->db, "SELECT count(*) FROM sqlite_schema",
		    NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		store_fail(ck, rc, cause);
		store_close(ck);
		return -1;
	}
	*out = ck;
	return 0;
}

int
store_wal_checkpoint(struct store *ck, int *wal, int *done, char **cause)
{
	int rc;

	*wal = *done = 0;
	rc = sqlite3_wal_checkpoint_v2(ck->db, "main",
	    SQLITE_CHECKPOINT_PASSIVE, wal, done);
	if ((rc & 0xff) == SQLITE_BUSY)
		return 0;	/* another checkpoint runs: later */
	return rc == SQLITE_OK ? 0 : store_fail(ck, rc, cause);
}

void
store_close(struct store *st)
{
	int i;

	if (st == NULL)
		return;
	if (st->kill_at > 0)
		fprintf(stderr, "cellar: state store '%s': %lld write steps "
		    "(CELLAR_STORE_KILL=%lld not reached)\n", st->path, st->steps,
		    st->kill_at);
	if (st->db != NULL && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	for (i = 0; i < SQ_COUNT; i++)
		sqlite3_finalize(st->stmt[i]);
	if (st->db != NULL)
		sqlite3_close(st->db);
	if (st->guard >= 0)
		close(st->guard);
	store_buffer_release(st);
	free(st->path);
	free(st);
}

const char *
store_path(const struct store *st)
{
	return st->path;
}

bool
store_writable(const struct store *st)
{
	return st->write;
}

long long
store_size(const struct store *st)
{
	struct stat sb;
	long long n = 0;
	char *wal;

	if (st->memory)
		return 0;
	if (stat(st->path, &sb) == 0)
		n += sb.st_size;
	wal = xasprintf("%s-wal", st->path);
	if (stat(wal, &sb) == 0)
		n += sb.st_size;
	free(wal);
	return n;
}
