/*
 * session.h — what one cellar session holds between commands: the current
 * spec and the engine built from it, the sharing mode, the default output
 * options, and the state store with the session's run in it. The batch
 * runner, the REPL and the dashboard each own one session and hand it to
 * the dispatcher with every command, and lend it their front-end hooks
 * (cmd/frontend.h) for commands such as watch.
 *
 * The store is opened on first use (session_store): read-only for commands
 * that only read it (a missing file is then "nothing recorded yet", never
 * created), read-write for the first command that records. What hand
 * commands do (alloc, release, node bad/ok, load) is recorded in the
 * session's run (session-log.c), created by the first of them. When the
 * engine is first needed and the store holds a running session run, that
 * run is recovered instead of loading the default spec: its stored spec,
 * its mode, every job that holds cells re-created exactly where it was
 * (engine_restore_job) and its bad nodes (session_log_recover); the next
 * write goes on in that run.
 *
 * Server and clients (src/serve.c, src/ipc/ipc.h): only the store's
 * server (serving) runs hooks; in any other process a command flagged
 * CMD_SERVER goes to the server when one runs for the store (remote,
 * connected on first use), and a live command without a server is
 * refused (console_get). In the server, caller names who sent the
 * request being run (the audit's user, a submitted job's owner) and
 * authorize, when set, may refuse a parsed command before it runs.
 *
 * Ownership: a session owns its spec, engine, spec path, store path,
 * socket path, server connection and open store; session_release frees
 * them (engine before spec, since the engine points into the spec). The
 * live console is opaque here: whoever makes it (console_get) sets
 * console_release, which frees it before the engine it schedules on. The
 * front end is borrowed: it outlives the session's use.
 *
 * Invariants:
 *  1. spec, engine and spec_path are all NULL (nothing loaded yet) or all
 *     set, and engine was built from spec in mode `mode`.
 *  2. A failed load leaves the session exactly as it was.
 *  3. run != 0 only while store is open for writing, and then names a
 *     session run on the current spec holding exactly the engine's running
 *     jobs among its jobs that hold cells.
 */
#ifndef CELLAR_SESSION_H
#define CELLAR_SESSION_H

#include <stdbool.h>

#include <stdint.h>

#include "cluster/output.h"
#include "core/strbuf.h"
#include "engine/engine.h"
#include "spec/spec.h"

struct store;

/* The name the embedded default spec goes by in messages and output. */
#define SESSION_DEFAULT_SPEC	"specs/default.yaml (embedded)"

struct frontend;
struct console;
struct cmd_entry;
struct args;

struct session {
	char			*spec_path;	/* as given, or SESSION_DEFAULT_SPEC */
	struct spec		*spec;
	struct engine		*engine;
	enum engine_mode	 mode;		/* for the next load; engine's mode */
	struct out_opts		 out;		/* defaults; -o etc. override per command */
	bool			 quiet;		/* -q: command output is discarded */
	bool			 read_only;	/* refuse commands flagged CMD_MUTATES */
	char			*db_path;	/* --db / CELLAR_DB; NULL: the default */
	struct store		*store;		/* open state store, or NULL */
	int64_t			 run;		/* our session run, 0 until the first write */
	int64_t			 resume_run;	/* a recovered run to write into, else 0 */
	/* What the engine was built from or last wrote (the store's newest
	   session run and that run's newest event): another process's
	   write moves them, and session_log_begin then refuses (stale) so
	   the command runs again on a reloaded session (issue 23 F1). */
	bool			 seen_valid;
	int64_t			 seen_run, seen_seq;
	bool			 stale;
	/* The stored row of each engine job this session started by hand
	   (session_log_alloc), by engine id, for its release, which read it
	   back from the store (an index probe and some thirty columns) on
	   every release. Kept only on an emulated spec with no console, for
	   started_engine; anything else that may change such a row drops the
	   entry, or all of them (session-log.c). */
	struct job		*started;
	unsigned char		*started_ok;
	int			 nstarted;
	const struct engine	*started_engine;
	const struct frontend	*fe;		/* the face running commands, or NULL */
	struct console		*console;	/* live jobs (live/console.h), or NULL */
	/* frees console: set by whoever made it (console_get) */
	void			(*console_release)(struct console *c);

	char			*socket_path;	/* --socket / CELLAR_SOCKET, or NULL:
						   beside the store */
	bool			 serving;	/* this process is the store's
						   server: it alone runs hooks */
	int			 remote_fd;	/* connected to the store's server,
						   or -1 */
	int			 remote_state;	/* 0: not looked yet; 1: connected;
						   -1: no server */
	long			 remote_pid;	/* the server's pid when connected */
	volatile const int	*stop;		/* a client's interrupt flag */
	const char		*caller;	/* serving: the request's user, or
						   NULL (this process's user) */
	unsigned		 caller_uid;
	/* serving: who the request's job runs as (its caller, or the
	   account access.runAs maps them to), or -1: this process's user */
	int			 run_uid;
	int			 run_gid;
	const char		*audit_line;	/* the running command's audit line
						   (CMD_MUTATES), or NULL */
	bool			 audited;	/* its row went into a commit */
	double			 request_at;	/* serving: when the request came
						   (wait's clock), or 0: now */
	/* serving: refuse a parsed command (0, or -1 with *cause) */
	int			(*authorize)(struct session *s,
				    const struct cmd_entry *e,
				    const struct args *a, char **cause);
	void			*authorize_arg;
};

void	session_init(struct session *s);
void	session_release(struct session *s);
/* Use the state store at path (NULL: the default path); shown by status. */
void	session_set_db(struct session *s, const char *path);

/* The store's path (db_path or the default; malloc'ed), or NULL with *cause. */
char	*session_db_path(const struct session *s, char **cause);
/*
 * The state store, opened on first use; with write, opened (or reopened)
 * for writing, creating it if needed. Returns 0 with *out set;
 * STORE_NOTFOUND without write when there is no store yet (*cause: "no
 * state store at ..."); -1 with *cause when it cannot be opened (exit 4).
 */
int	session_store(struct session *s, bool write, struct store **out,
	    char **cause);
/*
 * The store's server, as a client sees it: 1 connected (remote_fd), 0 no
 * server runs for the store, -1 with *cause (the socket cannot be
 * trusted, or no socket path). Looks once; a lost connection looks again.
 */
int	session_remote(struct session *s, char **cause);
void	session_remote_close(struct session *s);
/* The server's socket for this session's store (malloc'ed), or NULL. */
char	*session_socket_path(const struct session *s, char **cause);

/* Close the store (forgetting the session's run). */
void	session_store_close(struct session *s);
/* Unix seconds now: the clock of session runs. */
double	session_now(void);

/*
 * Load a spec (path NULL: the embedded default) and build an engine for it in
 * `mode`; on success replace the current spec and engine. Every diagnostic
 * (errors, warnings, notes) is appended to diags, one per line. *dropped
 * (may be NULL) gets the number of running jobs the old engine had, which
 * are lost (no persistence yet). Returns 0, or -1 with *cause set.
 */
int	session_load(struct session *s, const char *path, enum engine_mode mode,
	    struct strbuf *diags, int *dropped, char **cause);

/*
 * The parts of session_load: build a spec and its engine without touching
 * the session (0, or -1 with *cause; diagnostics to diags), and install
 * them (taking ownership; the old spec and engine are freed).
 */
int	session_build(const char *path, enum engine_mode mode, struct strbuf *diags,
	    struct spec **spec, struct engine **e, char **cause);
void	session_install(struct session *s, const char *path, struct spec *spec,
	    struct engine *e, enum engine_mode mode);

/* Make sure a spec is loaded: the store's running session run if there is
   one, else the embedded default. -1: the spec failed; -2: the store. */
int	session_ensure(struct session *s, struct strbuf *diags, char **cause);
/*
 * Drop the engine and build it again from the store as a new process
 * would (its running session run, else the same spec): another process
 * wrote the store since. Never with a console. 0, or -1 with *cause.
 */
int	session_reload(struct session *s, struct strbuf *diags, char **cause);

/* Running jobs in the current engine (0 when nothing is loaded). */
int	session_njobs(const struct session *s);

/* Append every diagnostic of d to sb, one per line. */
void	session_add_diags(struct strbuf *sb, const struct spec_diags *d);
/* Only its errors: a spec read back from the store had its warnings and
   notes shown when it was made current (spec check, load, --spec). */
void	session_add_errors(struct strbuf *sb, const struct spec_diags *d);

#endif
