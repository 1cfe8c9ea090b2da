/*
 * refusals.h — the audit of a server's refusals, kept cheap under a flood
 * (serve.c, cellar(1) SERVER).
 *
 * Every request a server refuses gets an audit row (store.h: refused 1,
 * its status and reason), but a user's refusals within REFUSALS_WINDOW
 * seconds of the row share it: the first one's line and reason, and a
 * count of them all. So a flood of refused requests costs a row per user
 * per second, not one per request: the store grows with time, not with
 * what a client sends, and the server writes nothing for the others but
 * the count, once the second is over.
 *
 * Ownership: a struct refusals owns its slots; it borrows the session
 * (its store and run) for each call.
 *
 * Invariants:
 *  1. At most REFUSALS_USERS users have a row open; a new one closes the
 *     oldest (its count written first).
 *  2. A row's count in the store is its slot's count once refusals_flush
 *     ran after its window (or the slot was closed); until then it is the
 *     count last written (at least 1).
 */
#ifndef CELLAR_CMD_REFUSALS_H
#define CELLAR_CMD_REFUSALS_H

#include <stdint.h>

#include "cluster/session.h"

#define REFUSALS_WINDOW	1.0	/* seconds a user's row takes refusals */
#define REFUSALS_USERS	64	/* users with a row open at once */

struct refusal_slot {
	unsigned	 uid;
	int64_t		 id;		/* its audit row */
	double		 first;		/* when its first refusal came */
	long long	 count;		/* refusals it stands for */
	long long	 written;	/* the count its row says */
};

struct refusals {
	struct refusal_slot	 slot[REFUSALS_USERS];
	int			 n;
};

void	refusals_init(struct refusals *r);
/*
 * A request of user (uid) refused at now: a new audit row, or counted
 * into the user's row when its window is still open. 0, or -1 with
 * *cause (not recorded).
 */
int	refusals_note(struct refusals *r, struct session *s, unsigned uid,
	    const char *user, const char *line, int status, const char *reason,
	    double now, char **cause);
/* Write the counts of the rows whose window is over at now (all: now
   < 0) and close them. 0, or -1 with *cause (the first failure). */
int	refusals_flush(struct refusals *r, struct session *s, double now,
	    char **cause);

#endif
