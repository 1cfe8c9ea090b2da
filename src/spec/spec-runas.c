/*
 * spec-runas.c — access.runAs (cellar-spec(5), ACCESS): the account a
 * user's jobs run as when it is not their own (a service account, a
 * shared project user). The server (serve.c) applies it at submit;
 * here it is read and checked: names from access:'s set, each user
 * once, and root only for a user access.admins names (jobs as root are
 * the admins'; the server checks the uid again, as another name may
 * have uid 0).
 */
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"
#include "core/xmalloc.h"
#include "spec/spec-int.h"

static bool
admin_named(const struct spec_access *a, const char *user)
{
	int i;

	for (i = 0; i < a->admins.nusers; i++)
		if (strcmp(a->admins.users[i], user) == 0)
			return true;
	return false;
}

void
spec_run_as_parse(struct loader *L, int map)
{
	struct spec_access *a = &L->s->access;
	struct strmap seen;
	const char *user, *acct;
	int i, k, v, first;

	if (ld_kind(L, map) == YDOC_NULL)
		return;
	if (ld_kind(L, map) != YDOC_MAP) {
		ld_err(L, map, "'runAs' in 'access' must be a mapping of user names "
		    "to accounts, not %s", ld_kind_name(L, map));
		return;
	}
	strmap_init(&seen, STRMAP_COPY);
	a->run_as = xcalloc((size_t)L->doc.nodes[map].n + 1, sizeof *a->run_as);
	for (i = 0; i < L->doc.nodes[map].n; i++) {
		k = ydoc_key(&L->doc, map, i);
		v = ydoc_val(&L->doc, map, i);
		user = ld_str(L, k);
		acct = ld_str(L, v);
		if (!access_name_valid(user)) {
			ld_err(L, k, "bad user name '%s' in 'access.runAs' (letters, "
			    "digits, '.', '_', '-', not starting with '-')", user);
			continue;
		}
		if (ld_kind(L, v) != YDOC_SCALAR || !access_name_valid(acct)) {
			ld_err(L, v, "'access.runAs.%s' must be an account name "
			    "(letters, digits, '.', '_', '-', not starting with '-')",
			    user);
			continue;
		}
		if ((first = strmap_put(&seen, user, k)) >= 0) {
			ld_err(L, k, "user '%s' is listed twice in 'access.runAs' "
			    "(first at line %d)", user, L->doc.nodes[first].line);
			continue;
		}
		if (strcmp(acct, "root") == 0 && !admin_named(a, user)) {
			ld_err(L, v, "'access.runAs.%s' is root, but '%s' is not in "
			    "'access.admins.users': only admins run jobs as root",
			    user, user);
			continue;
		}
		a->run_as[a->nrun_as].user = xstrdup(user);
		a->run_as[a->nrun_as++].account = xstrdup(acct);
	}
	strmap_release(&seen);
}

void
spec_run_as_free(struct spec_access *a)
{
	int i;

	for (i = 0; i < a->nrun_as; i++) {
		free(a->run_as[i].user);
		free(a->run_as[i].account);
	}
	free(a->run_as);
	a->run_as = NULL;
	a->nrun_as = 0;
}

const char *
spec_run_as(const struct spec *s, const char *user)
{
	int i;

	for (i = 0; i < s->access.nrun_as; i++)
		if (strcmp(s->access.run_as[i].user, user) == 0)
			return s->access.run_as[i].account;
	return NULL;
}
