/*
 * refusals.c — a server's refusals into the audit, one row per user and
 * second (refusals.h). serve.c calls it for each refused request and
 * after each request it answers.
 */
#include "cmd/refusals.h"

#include <stdlib.h>
#include <string.h>

#include "store/store.h"

void
refusals_init(struct refusals *r)
{
	memset(r, 0, sizeof *r);
}

/* Bring slot k's row up to date and close it. */
static int
close_slot(struct refusals *r, struct session *s, int k, char **cause)
{
	struct refusal_slot *sl = &r->slot[k];
	struct store *st;
	int rc = 0;

	if (sl->count != sl->written &&
	    (session_store(s, true, &st, cause) != 0 ||
	    store_audit_set_count(st, sl->id, sl->count, cause) != 0))
		rc = -1;
	r->slot[k] = r->slot[--r->n];
	return rc;
}

int
refusals_flush(struct refusals *r, struct session *s, double now, char **cause)
{
	char *why = NULL;
	int k, rc = 0;

	/* not into a group's commit, which could still be lost: later */
	if (now >= 0 && s->store != NULL && store_in_group(s->store))
		return 0;
	for (k = r->n - 1; k >= 0; k--) {
		if (now >= 0 && now - r->slot[k].first < REFUSALS_WINDOW)
			continue;
		if (close_slot(r, s, k, rc == 0 ? cause : &why) != 0)
			rc = -1;
		free(why);
		why = NULL;
	}
	return rc;
}

int
refusals_note(struct refusals *r, struct session *s, unsigned uid,
    const char *user, const char *line, int status, const char *reason,
    double now, char **cause)
{
	struct store_audit row;
	struct refusal_slot *sl;
	struct store *st;
	int k, old;
	char *why = NULL;

	for (k = 0; k < r->n; k++)
		if (r->slot[k].uid == uid)
			break;
	if (k < r->n && now - r->slot[k].first < REFUSALS_WINDOW) {
		r->slot[k].count++;
		return 0;
	}
	/* the user's row of an earlier second, or the oldest row when
	   every slot is taken, is closed first (invariant 1) */
	if (k == r->n && r->n == REFUSALS_USERS) {
		for (k = old = 0; k < r->n; k++)
			if (r->slot[k].first < r->slot[old].first)
				old = k;
		k = old;
	}
	if (k < r->n && close_slot(r, s, k, &why) != 0)
		free(why);	/* the count is lost; this row still goes in */
	memset(&row, 0, sizeof row);
	row.at = now;
	row.user = user;
	row.run = s->run;
	row.cmdline = line;
	row.status = status;
	row.reason = reason;
	row.refused = true;
	row.count = 1;
	sl = &r->slot[r->n];
	if (session_store(s, true, &st, cause) != 0 ||
	    store_audit_add(st, &row, &sl->id, cause) != 0)
		return -1;
	sl->uid = uid;
	sl->first = now;
	sl->count = sl->written = 1;
	r->n++;
	return 0;
}
