/*
 * exit.h — cellar's exit statuses, documented in cellar(1) and by
 * cmd_exit_table ('help exit'). They live below the command layer, which
 * includes this through cmd/cmd.h, because the cluster state reports its
 * failures with them too (session_reconfigure's *status).
 *
 * Ownership: constants only.
 */
#ifndef CELLAR_EXIT_H
#define CELLAR_EXIT_H

enum cmd_exit {
	CMD_EXIT_OK = 0,
	CMD_EXIT_FAIL = 1,	/* a command failed */
	CMD_EXIT_USAGE = 2,	/* bad command line */
	CMD_EXIT_SPEC = 3,	/* spec or configuration error */
	CMD_EXIT_STORE = 4,	/* state store error */
	CMD_EXIT_NOSERVER = 5,	/* a live command, and no server runs */
	CMD_EXIT_DENIED = 6,	/* the spec's access rules refuse it */
	CMD_EXIT_INTR = 130,	/* interrupted */
};

#endif
