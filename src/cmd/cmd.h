/*
 * cmd.h — the command table and dispatcher: one grammar for batch mode, the
 * REPL and the dashboard's ':' line (after tmux's cmd_entry and git's
 * commands[]).
 *
 * Each command family lives in one cmd-*.c file exporting its struct
 * cmd_entry values; cmd.c lists them all in cmd_table[]. A command's name is
 * one word ("alloc") or a family and a subcommand ("node bad"). Lookup, word
 * by word: an alias (first word only), an exact name, then a unique prefix;
 * an ambiguous prefix is an error listing the candidates.
 *
 * The dispatcher checks that every word is valid UTF-8, parses the words
 * against the entry's option table plus the common options (-o FORMAT,
 * --no-header, --help) and, for a listing command (one that declares
 * columns), the list options (--sort, --filter) whose keys it checks against
 * those columns; it enforces the entry's flags and output formats, then
 * calls exec. Commands write their output to ctx->o and notes to ctx->err,
 * never to stdio, and report failure by returning -1 with a malloc'ed
 * *cause (lowercase, object in single quotes, no trailing period).
 *
 * A listing command builds one table row per object, tagged with the
 * object's index (table_row_tag), calls cmd_list_apply to filter and sort,
 * then renders the table, or writes JSON for the rows left, in their order,
 * with cmd_list_json. Sorting, filtering, wide, csv and name output then
 * work the same way in every listing.
 *
 * Ownership: entries are static. cmd_dispatch fills a struct cmd_result the
 * caller releases with cmd_result_release.
 *
 * Invariants:
 *  1. Entry names are unique, made of one or two lowercase words; aliases
 *     are single words that are no command's first word.
 *  2. A first word is either a command or a family, never both.
 *  3. Every entry accepts at least table (hence wide) and json output.
 *  4. Every entry has a usage, summary, help and at least one example; the
 *     first example runs on the default spec without -o (t0040 runs it;
 *     watch's, which need a terminal, are run by t0130), or, for a
 *     CMD_LIVE command, on specs/local.yaml (the default spec has no
 *     backend for real jobs).
 *  5. A listing command's column keys are unique and its TABLE_NAME column
 *     is its first column or the one flagged.
 *  6. A CMD_FRONTEND command runs only in a session with a front end
 *     (sess->fe, cmd/frontend.h); elsewhere it fails with a message.
 *  7. Every entry has exactly one row in cmd_access_table, a class other
 *     than CMD_ACCESS_NONE; a CMD_SERVER entry (a client forwards it) is
 *     never CMD_ACCESS_CLIENT.
 */
#ifndef CELLAR_CMD_H
#define CELLAR_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "cluster/exit.h"	/* enum cmd_exit: the exit statuses */
#include "cluster/session.h"
#include "cmd/args.h"
#include "cmd/table.h"
#include "core/json.h"
#include "core/strbuf.h"

/* Every exit status with its meaning ('help exit'); ends with help NULL. */
struct cmd_exit_info {
	int		 status;
	const char	*help;
};
extern const struct cmd_exit_info cmd_exit_table[];

/* Preconditions the dispatcher enforces so commands never re-check. */
#define CMD_MUTATES	 0x1	/* changes cluster state (refused when read-only) */
#define CMD_NEEDS_ENGINE 0x2	/* a spec is loaded first (the default if none) */
#define CMD_FRONTEND	 0x4	/* needs the front end's hooks (watch) */
#define CMD_OPTS_FIRST	 0x8	/* options end at the first positional */
/* About real jobs run by the spec's backend hooks (it may start, stop or
   poll processes): the fuzzer skips it; its examples run on specs/local.yaml. */
#define CMD_LIVE	 0x10
/* Runs in the store's server when one runs (a client forwards it). */
#define CMD_SERVER	 0x20
/* In a server, may share one commit with the other requests of a poll
   round (store.h, group commit): it writes only in store_begin/commit
   transactions of the open store and runs no hook itself. */
#define CMD_GROUP	 0x40

/*
 * Who may send a command to the store's server (cellar(1), SERVER). The
 * server checks it before the command runs (serve.c, authorize); anyone
 * may run any command in their own client, with their own rights.
 */
enum cmd_access {
	CMD_ACCESS_NONE = 0,	/* unclassified: the server refuses it */
	CMD_ACCESS_ANYONE,	/* whoever may open the socket: reads */
	CMD_ACCESS_MEMBER,	/* a VC's users, by the server's own checks
				   (submit to their VC, cancel their job) */
	CMD_ACCESS_ADMIN,	/* access.admins, root, the server's user */
	CMD_ACCESS_CLIENT,	/* never run by a server, for anyone: it reads
				   or writes files, or runs long */
};

/* The JSON schema version of every document; see cellar(1). */
#define CMD_SCHEMA_VERSION	1

struct cmd_entry;
struct console;

/* What a running command sees. */
struct cmd_ctx {
	struct session		*sess;
	const struct cmd_entry	*entry;
	struct out_opts		 out;		/* effective for this command */
	struct table_query	*query;		/* --sort/--filter, or NULL */
	struct strbuf		*o;		/* output (stdout) */
	struct strbuf		*err;		/* diagnostics and notes (stderr) */
	int			 status;	/* exit status if exec fails */
	bool			 reported;	/* exec showed its failure itself */
	bool			 unaudited;	/* exec: write no audit row (an
						   import restoring an exact copy) */
	bool			 again;		/* exec (in a server): not done
						   yet, run me again later (wait) */
};

struct cmd_entry {
	const char		*name;		/* "alloc", "node bad" */
	const char		*alias;		/* one word, or NULL */
	const struct cmd_opt	*opts;		/* own options, or NULL */
	int			 min, max;	/* positionals; max -1: no limit */
	enum cmd_value		 arg_kind;	/* what the positionals are */
	const char		*usage;		/* what follows the name */
	const char		*summary;	/* one line */
	const char		*help;		/* paragraphs, '\n'-separated */
	const char *const	*examples;	/* NULL-terminated, or NULL */
	const struct table_colspec *columns;	/* a listing's columns, or NULL */
	unsigned		 flags;		/* CMD_* */
	unsigned		 formats;	/* OUT_MASK() of supported formats */
	int			(*exec)(struct cmd_ctx *ctx, const struct args *args,
				    char **cause);
};

/* The outcome of one command. */
struct cmd_result {
	int			 status;	/* enum cmd_exit */
	char			*cause;		/* why it failed, or NULL */
	const struct cmd_entry	*entry;		/* the command, once found */
	enum out_format		 format;	/* the output format it used */
	bool			 reported;	/* already shown; print nothing */
	bool			 again;		/* a server's request to run again */
};

/* Every command, NULL-terminated, in the order help lists them. */
extern const struct cmd_entry *const cmd_table[];
/* Who may send each command to a server: one row per entry of cmd_table. */
struct cmd_access_rule {
	const struct cmd_entry	*e;
	enum cmd_access		 access;
};
extern const struct cmd_access_rule cmd_access_table[];
/* e's class in cmd_access_table (CMD_ACCESS_NONE: not there). */
enum cmd_access	 cmd_access_of(const struct cmd_entry *e);
/* "anyone", "member", "admin", "client", or "none". */
const char	*cmd_access_name(enum cmd_access a);
/* The options every command accepts. */
extern const struct cmd_opt cmd_common_opts[];
/* The options every listing command (one with columns) accepts. */
extern const struct cmd_opt cmd_list_opts[];

/*
 * Find the command named by the first words of argv. Returns the entry and
 * the number of words its name used, or NULL with *cause set.
 */
const struct cmd_entry *cmd_find(int argc, char *const *argv, int *nwords,
			    char **cause);
/* True if word is a family ("node") rather than a command. */
bool		 cmd_is_family(const char *word);
/* True if word (or a unique prefix of it) names a family; its name to buf. */
bool		 cmd_family_match(const char *word, char *buf, size_t len);

/*
 * Run one command given as words. Output is appended to out, notes and
 * diagnostics to err. Returns res->status (0 on success).
 */
int		 cmd_dispatch(struct session *s, int argc, char *const *argv,
		    struct strbuf *out, struct strbuf *err, struct cmd_result *res);
void		 cmd_result_release(struct cmd_result *res);

/* Text a hook or a job wrote, for a text output: control bytes but
   newline and tab written \xHH, so none reaches a terminal. */
void		 cmd_add_text(struct strbuf *sb, const char *s, size_t len);
/* A failed command as every face shows it: "cellar: WHERE CAUSE" (control
   bytes escaped), then the usage line or the help hint for a usage
   error; nothing when res->reported. */
void		 cmd_failure(struct strbuf *sb, const char *where,
		    const struct cmd_result *res);

/* "usage: alloc NAME --vc VC ..." plus a newline. */
void		 cmd_usage(struct strbuf *sb, const struct cmd_entry *e);

/* ---- helpers for command files ---- */

/* Open the top-level JSON object with schema_version and kind. */
void		 cmd_json_begin(struct cmd_ctx *ctx, struct json *j, const char *kind);
/* Close it and end the line. */
void		 cmd_json_end(struct cmd_ctx *ctx, struct json *j);
/* Mark the failure as a usage error (exit 2, usage line shown); returns -1. */
int		 cmd_usage_error(struct cmd_ctx *ctx);
/*
 * Apply the command's --filter and --sort to t (a listing's table). Returns
 * 0, or -1 with *cause set and ctx->status marking a usage error.
 */
int		 cmd_list_apply(struct cmd_ctx *ctx, struct table *t, char **cause);
/*
 * Write "key":[...] into an open JSON object: one element per row of t, in
 * order, written by fn from the row's tag.
 */
void		 cmd_list_json(struct cmd_ctx *ctx, struct json *j, const char *key,
		    const struct table *t,
		    void (*fn)(struct cmd_ctx *, struct json *, long, void *), void *arg);
/* A note for stderr ("note: ..."), unless -q. */
void		 cmd_note(struct cmd_ctx *ctx, const char *fmt, ...)
		    __attribute__((format(printf, 2, 3)));

/* The entries, defined in the cmd-*.c files. */
extern const struct cmd_entry cmd_spec_check_entry;
extern const struct cmd_entry cmd_spec_import_entry;
extern const struct cmd_entry cmd_load_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_cells_entry;
extern const struct cmd_entry cmd_vcs_entry;
extern const struct cmd_entry cmd_node_bad_entry;
extern const struct cmd_entry cmd_node_ok_entry;
extern const struct cmd_entry cmd_alloc_entry;
extern const struct cmd_entry cmd_place_entry;
extern const struct cmd_entry cmd_release_entry;
extern const struct cmd_entry cmd_jobs_entry;
extern const struct cmd_entry cmd_help_entry;
extern const struct cmd_entry cmd_replay_entry;
extern const struct cmd_entry cmd_compare_entry;
extern const struct cmd_entry cmd_anomaly_entry;
extern const struct cmd_entry cmd_plot_entry;
extern const struct cmd_entry cmd_apropos_entry;
extern const struct cmd_entry cmd_watch_entry;
extern const struct cmd_entry cmd_dash_entry;
extern const struct cmd_entry cmd_runs_entry;
extern const struct cmd_entry cmd_run_show_entry;
extern const struct cmd_entry cmd_events_entry;
extern const struct cmd_entry cmd_history_entry;
extern const struct cmd_entry cmd_audit_entry;
extern const struct cmd_entry cmd_job_show_entry;
extern const struct cmd_entry cmd_db_check_entry;
extern const struct cmd_entry cmd_db_vacuum_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_serve_entry;
/* `serve`'s loop: src/serve.c is above this layer, so main.c sets this
   (serve_run); NULL in the test programs, where `serve` is refused. */
extern int (*cmd_serve_loop)(struct session *s, const char *spec,
    const char *db, const char *socket, char **cause);
extern const struct cmd_entry cmd_submit_entry;
extern const struct cmd_entry cmd_cancel_entry;
extern const struct cmd_entry cmd_wait_entry;
extern const struct cmd_entry cmd_job_log_entry;
extern const struct cmd_entry cmd_job_migrate_entry;
extern const struct cmd_entry cmd_queue_entry;

/*
 * "pods": [{node, nodes, cell, gpus, cells}], the pods of a placement
 * (alloc, place and jobs; cmd-alloc.c), into an open JSON object.
 */
void		 cmd_pods_json(struct json *j, const struct spec *s, int npods,
		    const int *pod_first, const int *leaves);
/*
 * The session's console (live/console.h; submit, cancel, job log ...);
 * when it was just made from a recovered run, what it could not take over
 * goes to stderr. -1 with *cause and ctx->status set (cmd-live.c).
 */
int		 cmd_live_console(struct cmd_ctx *ctx, struct console **c,
		    char **cause);

/*
 * Write the help of entry e, or (e NULL) of the family ("node"), in ctx's
 * output format. Returns an exit status (0).
 */
int		 cmd_help_write(struct cmd_ctx *ctx, const struct cmd_entry *e,
		    const char *family);

#endif
