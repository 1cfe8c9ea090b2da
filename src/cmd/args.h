/*
 * args.h — parsed command arguments (after tmux's arguments.c). The
 * dispatcher parses a command's words against its option table; commands
 * only ever see the opaque struct args, never argv.
 *
 * Grammar: "--name VALUE", "--name=VALUE", "-x VALUE", "-xVALUE", bundled
 * flags "-ab", a unique prefix of a long name ("--gp 4"), "--" ending the
 * options, a lone "-" and words starting "-<digit>" as positionals. Options
 * and positionals may be interleaved unless ARGS_STOP_AT_POSITIONAL is given
 * (then everything from the first positional on is positional: that is how
 * global options stop in front of the command name). A value option takes
 * the next word whatever it looks like ("--priority -1").
 *
 * Ownership: args_parse returns a struct args the caller frees with
 * args_free; strings returned by the accessors live as long as it.
 *
 * Invariants:
 *  1. Options are kept in the order given; args_get returns the last value.
 *  2. The positional count is within the template's [min, max].
 */
#ifndef CELLAR_ARGS_H
#define CELLAR_ARGS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * What kind of word an option's value or a command's positionals are, so
 * that the REPL can complete them (cmd/complete.h). VALUE_NONE: free text.
 */
enum cmd_value {
	VALUE_NONE = 0,
	VALUE_VC,		/* a virtual cluster of the current spec */
	VALUE_JOB,		/* a running job */
	VALUE_NODE,		/* a node name */
	VALUE_CELL,		/* a cell address, node or chain name */
	VALUE_FILE,		/* a file name */
	VALUE_SPEC,		/* a spec file (YAML) */
	VALUE_MODE,		/* a sharing mode */
	VALUE_FORMAT,		/* an output format */
	VALUE_TYPE,		/* a leaf cell (GPU) type */
	VALUE_PIN,		/* a pinned cell id */
	VALUE_SORT,		/* a listing's column keys, "-" to descend (--sort) */
	VALUE_FILTER,		/* a listing's column key, then '=' (--filter) */
	VALUE_COMMAND,		/* a command name, one or two words (help) */
	VALUE_CMDLINE,		/* a whole command with its arguments (watch) */
	VALUE_POLICY,		/* a scheduling policy (policy_table); help
				   lists them, so the list cannot drift */
};

/* One option of a command's template; a table ends with a zeroed entry. */
struct cmd_opt {
	char		 short_name;	/* 'o', or 0 for long-only */
	const char	*name;		/* long name, also the key for args_get */
	const char	*value;		/* placeholder ("N"), NULL for a flag */
	const char	*help;		/* one line for help and the man page */
	enum cmd_value	 kind;		/* what the value is, for completion */
};

#define ARGS_STOP_AT_POSITIONAL	0x1

struct args;

/*
 * Parse argv against the option tables (a NULL-terminated list: a command's
 * own table and the common one). min/max bound the positionals (max -1: no
 * limit). Returns NULL with *cause set (malloc'ed) on a usage error.
 */
struct args	*args_parse(const struct cmd_opt *const *tables, int min, int max,
		    unsigned flags, int argc, char *const *argv, char **cause);
void		 args_free(struct args *a);

bool		 args_has(const struct args *a, const char *name);
/* The last value given for a value option, or NULL. */
const char	*args_get(const struct args *a, const char *name);

/* Positionals, argv-style (args_argv(a)[args_count(a)] == NULL). */
int		 args_count(const struct args *a);
const char	*args_value(const struct args *a, int i);
char *const	*args_argv(const struct args *a);

/* Every option in the order given: name and value (NULL for a flag). */
size_t		 args_nopts(const struct args *a);
const char	*args_opt_name(const struct args *a, size_t i);
const char	*args_opt_value(const struct args *a, size_t i);

/*
 * The value of option `name` as an integer in [min, max]. On error (absent,
 * not a number, out of range) returns 0 with *cause set (malloc'ed);
 * *cause is left NULL on success.
 */
long long	 args_strtonum(const struct args *a, const char *name,
		    long long min, long long max, char **cause);

/* The same for any string; `what` names it in the message ("--gpus"). */
long long	 args_parse_num(const char *s, const char *what, long long min,
		    long long max, char **cause);

/* A duration: "90", "90s", "15m", "36h", "10d", "2w" -> seconds (>= 0). 0 or -1. */
int	 args_seconds(const char *s, double *out);

#endif
