/*
 * tspec-access.c — the spec's `access:` section (cellar's own): who may do
 * what through a cellar server. A full section into struct spec_access, the
 * fixture tests/fixtures/specs/access.yaml, absence (given false), null and
 * empty forms, a rule per VC whether named or not (spec.h invariant 9),
 * every error at its file:line:col, the warnings (unknown keys, a name
 * listed twice), the section reaching the spec's text and hash, which
 * is all a reload, the store and `load` compare, and the examples of
 * specs/README.md and cellar-spec(5).
 */
#include <stdio.h>

#include "core/strbuf.h"
#include "tspec.h"

#define CLUSTER								\
	"physicalCluster:\n"			/*  1 */		\
	"  cellTypes:\n"			/*  2 */		\
	"    NODE: {childCellType: GPU, childCellNumber: 4, isNodeLevel: true}\n" \
	"  physicalCells:\n"			/*  4 */		\
	"  - {cellType: NODE, cellAddress: n1}\n"	/*  5 */	\
	"  - {cellType: NODE, cellAddress: n2}\n"	/*  6 */	\
	"virtualClusters:\n"			/*  7 */		\
	"  prod: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n"	/* 8 */ \
	"  research: {virtualCells: [{cellType: NODE, cellNumber: 1}]}\n" /* 9 */

/* The section of the brief and of cellar-spec(5), from line 10. */
#define FULL								\
	"access:\n"						/* 10 */ \
	"  admins: {users: [alice], groups: [ops]}\n"		/* 11 */ \
	"  socketGroup: cellar            # optional\n"	/* 12 */ \
	"  virtualClusters:\n"					/* 13 */ \
	"    prod: {users: [bob, carol], groups: [ml]}\n"	/* 14 */ \
	"    research: {groups: [research]}\n"			/* 15 */

static struct spec *
load_ok(const char *text, struct spec_diags *d)
{
	struct spec *s = load_str(text, d);

	CHECKF(s != NULL, "did not load: %.400s", all_diags(d));
	if (s != NULL)
		CHECK(check_spec_invariants(s) == 0);
	return s;
}

/* A list of names is exactly want (a NULL-terminated list). */
static bool
names_are(char *const *v, int n, const char *const *want)
{
	int i;

	for (i = 0; want[i] != NULL; i++)
		if (i >= n || strcmp(v[i], want[i]) != 0)
			return false;
	return i == n && (n > 0 || v == NULL);
}

#define NAMES(...)	((const char *const[]){ __VA_ARGS__, NULL })
#define NONE		((const char *const[]){ NULL })

/* The section as both the brief's example and the fixture write it. */
static void
check_full(const struct spec *s)
{
	int prod = spec_find_vc(s, "prod"), research = spec_find_vc(s, "research");
	const struct spec_access *a = &s->access;

	CHECK(a->given);
	CHECK(a->vcs != NULL && prod >= 0 && research >= 0);
	CHECK(names_are(a->admins.users, a->admins.nusers, NAMES("alice")));
	CHECK(names_are(a->admins.groups, a->admins.ngroups, NAMES("ops")));
	CHECK(a->socket_group != NULL && strcmp(a->socket_group, "cellar") == 0);
	if (a->vcs == NULL || prod < 0 || research < 0)
		return;
	CHECK(names_are(a->vcs[prod].users, a->vcs[prod].nusers,
	    NAMES("bob", "carol")));
	CHECK(names_are(a->vcs[prod].groups, a->vcs[prod].ngroups, NAMES("ml")));
	CHECK(names_are(a->vcs[research].users, a->vcs[research].nusers, NONE));
	CHECK(names_are(a->vcs[research].groups, a->vcs[research].ngroups,
	    NAMES("research")));
}

static void
test_full(void)
{
	struct spec_diags d;
	struct spec *s = load_ok(CLUSTER FULL, &d);

	if (s != NULL)
		check_full(s);
	CHECKF(d.warnings == 0, "%.300s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_fixture(void)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load("tests/fixtures/specs/access.yaml", &d);
	CHECKF(s != NULL, "%.300s", all_diags(&d));
	if (s != NULL) {
		CHECK(check_spec_invariants(s) == 0);
		check_full(s);
	}
	CHECKF(d.warnings == 0, "%.300s", all_diags(&d));
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_absent(void)
{
	struct spec_diags d;
	struct spec *s = load_ok(CLUSTER, &d);

	if (s != NULL) {
		CHECK(!s->access.given);
		CHECK(s->access.vcs == NULL && s->access.socket_group == NULL);
		CHECK(s->access.admins.nusers == 0 && s->access.admins.users == NULL);
		CHECK(s->access.admins.ngroups == 0 && s->access.admins.groups == NULL);
	}
	spec_free(s);
	spec_diags_release(&d);
}

/* Each part optional; null and [] are nobody; a VC not named has an empty
   rule all the same (nvcs rules whenever given). */
static void
test_optional_parts(void)
{
	static const char *const texts[] = {
		CLUSTER "access:\n",
		CLUSTER "access: ~\n",
		CLUSTER "access: {}\n",
		CLUSTER "access: {socketGroup: ~}\n",
		CLUSTER "access: {admins: ~, virtualClusters: ~}\n",
		CLUSTER "access:\n  admins: {users: [], groups: ~}\n"
		    "  virtualClusters: {prod: ~, research: {}}\n",
	};
	struct spec_diags d;
	struct spec *s;
	size_t i;
	int v;

	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		s = load_ok(texts[i], &d);
		if (s == NULL) {
			spec_diags_release(&d);
			continue;
		}
		CHECKF(s->access.given, "text %zu", i);
		CHECKF(s->access.vcs != NULL, "text %zu", i);
		CHECK(s->access.socket_group == NULL);
		CHECK(names_are(s->access.admins.users, s->access.admins.nusers, NONE));
		CHECK(names_are(s->access.admins.groups, s->access.admins.ngroups, NONE));
		for (v = 0; s->access.vcs != NULL && v < s->nvcs; v++) {
			CHECK(names_are(s->access.vcs[v].users, s->access.vcs[v].nusers, NONE));
			CHECK(names_are(s->access.vcs[v].groups, s->access.vcs[v].ngroups,
			    NONE));
		}
		CHECKF(d.warnings == 0, "text %zu: %.300s", i, all_diags(&d));
		spec_free(s);
		spec_diags_release(&d);
	}
	/* only admins: both VCs still get their (empty) rule */
	s = load_ok(CLUSTER "access: {admins: {groups: [wheel]}}\n", &d);
	if (s != NULL) {
		CHECK(s->access.vcs != NULL && s->nvcs == 2);
		CHECK(names_are(s->access.admins.groups, s->access.admins.ngroups,
		    NAMES("wheel")));
		for (v = 0; s->access.vcs != NULL && v < s->nvcs; v++)
			CHECK(s->access.vcs[v].nusers == 0 && s->access.vcs[v].ngroups == 0);
	}
	spec_free(s);
	spec_diags_release(&d);
	/* a spec without VCs may still name admins */
	s = load_ok("physicalCluster:\n  cellTypes:\n    NODE: {childCellType: GPU, "
	    "childCellNumber: 1, isNodeLevel: true}\n  physicalCells:\n"
	    "  - {cellType: NODE, cellAddress: n1}\n"
	    "access: {admins: {users: [root]}}\n", &d);
	if (s != NULL) {
		CHECK(s->nvcs == 0 && s->access.given && s->access.vcs != NULL);
		CHECK(names_are(s->access.admins.users, s->access.admins.nusers,
		    NAMES("root")));
	}
	spec_free(s);
	spec_diags_release(&d);
}

/* The portable set: letters, digits, '.', '_', '-'; no leading '-'; 32
   bytes at most. Quoted or plain, a YAML scalar is the name's text. */
static void
test_names(void)
{
	struct spec_diags d;
	struct spec *s;

	s = load_ok(CLUSTER "access:\n  admins:\n"
	    "    users: [_apt, a.b-c_d, 0123, 'x.y', abcdefghijklmnopqrstuvwxyz012345]\n"
	    "    groups: [\"A-Z\", .hidden, '1']\n", &d);
	if (s != NULL) {
		CHECK(names_are(s->access.admins.users, s->access.admins.nusers,
		    NAMES("_apt", "a.b-c_d", "0123", "x.y",
		    "abcdefghijklmnopqrstuvwxyz012345")));
		CHECK(names_are(s->access.admins.groups, s->access.admins.ngroups,
		    NAMES("A-Z", ".hidden", "1")));
	}
	spec_free(s);
	spec_diags_release(&d);
}

static void
test_errors(void)
{
	const char *why = "(letters, digits, '.', '_', '-', not starting with "
	    "'-', at most 32 bytes)";
	char want[200];

	CHECK_LOAD_FAILS(CLUSTER "access: [alice]\n", "t.yaml:10:9: error: ",
	    "'access' must be a mapping, not a sequence");
	CHECK_LOAD_FAILS(CLUSTER "access: everyone\n", "t.yaml:10:9: error: ",
	    "'access' must be a mapping, not a scalar");
	/* a single string where a list is wanted */
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: alice}\n",
	    "t.yaml:11:19: error: ", "'users' in 'access.admins' must be a "
	    "list of names, not a scalar (write 'users: [alice]')");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters:\n"
	    "    prod:\n      groups: ml\n", "t.yaml:13:15: error: ",
	    "'groups' in 'access.virtualClusters.prod' must be a list of names, "
	    "not a scalar (write 'groups: [ml]')");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {groups: {ops: 1}}\n",
	    "t.yaml:11:20: error: ", "'groups' in 'access.admins' must be a "
	    "list of names, not a mapping");
	/* items that are not names */
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: [a, [b]]}\n",
	    "t.yaml:11:23: error: ", "a user in 'users' in 'access.admins' must "
	    "be a name, not a sequence");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins:\n    users:\n    - alice\n"
	    "    -\n", "t.yaml:14:6: error: ",
	    "a user in 'users' in 'access.admins' must be a name, not null");
	/* names outside the portable set, each at its item */
	snprintf(want, sizeof want, "bad user name '-rf' in 'access.admins' %s", why);
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: [ok, -rf]}\n",
	    "t.yaml:11:24: error: ", want);
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: ['a b']}\n",
	    "t.yaml:11:20: error: ", "bad user name 'a b' in 'access.admins'");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: ['']}\n",
	    "t.yaml:11:20: error: ", "bad user name '' in 'access.admins'");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: [\"r\\u00e9mi\"]}\n",
	    "t.yaml:11:20: error: ", "bad user name 'r\xc3\xa9mi'");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: ['$(id)']}\n",
	    "t.yaml:11:20: error: ", "bad user name '$(id)'");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins:\n"
	    "    users: [abcdefghijklmnopqrstuvwxyz0123456]\n",
	    "t.yaml:12:13: error: ",
	    "bad user name 'abcdefghijklmnopqrstuvwxyz0123456' in 'access.admins'");
	snprintf(want, sizeof want, "bad group name 'ml;x' in "
	    "'access.virtualClusters.research' %s", why);
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters:\n"
	    "    research: {groups: ['ml;x']}\n", "t.yaml:12:25: error: ", want);
	/* rules that are not mappings */
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: [alice]\n", "t.yaml:11:11: error: ",
	    "'access.admins' must be a mapping with 'users' and 'groups', not a "
	    "sequence");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters:\n    prod: bob\n",
	    "t.yaml:12:11: error: ", "'access.virtualClusters.prod' must be a "
	    "mapping with 'users' and 'groups', not a scalar");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters: [prod]\n",
	    "t.yaml:11:20: error: ", "'virtualClusters' in 'access' must be a "
	    "mapping of virtual cluster names, not a sequence");
	/* VCs the spec does not have, or named twice */
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters:\n"
	    "    prod: {users: [bob]}\n    dev: {users: [eve]}\n",
	    "t.yaml:13:5: error: ",
	    "unknown virtual cluster 'dev' in 'access.virtualClusters'");
	CHECK_LOAD_FAILS(CLUSTER "access:\n  virtualClusters:\n"
	    "    prod: {users: [bob]}\n    prod: {users: [eve]}\n",
	    "t.yaml:13:5: error: ", "virtual cluster 'prod' is listed twice in "
	    "'access.virtualClusters' (first at line 12)");
	/* socketGroup */
	snprintf(want, sizeof want, "bad group name '-wheel' in "
	    "'access.socketGroup' %s", why);
	CHECK_LOAD_FAILS(CLUSTER "access:\n  socketGroup: -wheel\n",
	    "t.yaml:11:16: error: ", want);
	CHECK_LOAD_FAILS(CLUSTER "access:\n  socketGroup: [cellar]\n",
	    "t.yaml:11:16: error: ", "'socketGroup' in 'access' must be a "
	    "group name, not a sequence");
	/* a key twice, as everywhere in a spec */
	CHECK_LOAD_FAILS(CLUSTER "access:\n  admins: {users: [a]}\n"
	    "  admins: {users: [b]}\n", "t.yaml:12:3: error: ",
	    "duplicate key 'admins' in 'access' (first at line 11)");
}

/* One load reports every problem, each at its place. */
static void
test_errors_all_reported(void)
{
	struct spec_diags d;
	struct spec *s = load_str(CLUSTER "access:\n"
	    "  admins: {users: ['a b'], groups: wheel}\n"
	    "  socketGroup: 'x y'\n"
	    "  virtualClusters:\n    nope: {}\n", &d);

	CHECK(s == NULL);
	CHECK(d.errors == 4);
	CHECK_DIAG(&d, "t.yaml:11:20: error: ", "bad user name 'a b'");
	CHECK_DIAG(&d, "t.yaml:11:36: error: ", "'groups' in 'access.admins' must "
	    "be a list of names");
	CHECK_DIAG(&d, "t.yaml:12:16: error: ", "bad group name 'x y'");
	CHECK_DIAG(&d, "t.yaml:14:5: error: ", "unknown virtual cluster 'nope'");
	spec_free(s);
	spec_diags_release(&d);
}

/* Unknown keys (often typos) and names listed twice are warnings: the
   spec loads, each name once. */
static void
test_warnings(void)
{
	struct spec_diags d;
	struct spec *s;
	int prod;

	s = load_ok(CLUSTER "access:\n"
	    "  admin: {users: [alice]}\n"			/* 11 */
	    "  admins: {users: [root], roles: [x]}\n"		/* 12 */
	    "  virtualClusters:\n"				/* 13 */
	    "    prod:\n"					/* 14 */
	    "      users: [bob, carol, bob]\n"			/* 15 */
	    "      groups: [ml, ml]\n"				/* 16 */
	    "      user: [dave]\n"				/* 17 */
	    "  socketgroup: cellar\n", &d);			/* 18 */
	CHECK(d.errors == 0);
	CHECK(d.warnings == 6);
	CHECK_DIAG(&d, "t.yaml:11:3: warning: ", "unknown key 'admin' in 'access'");
	CHECK_DIAG(&d, "t.yaml:12:27: warning: ",
	    "unknown key 'roles' in 'access.admins'");
	CHECK_DIAG(&d, "t.yaml:15:27: warning: ", "user 'bob' is listed twice in "
	    "'access.virtualClusters.prod' (first at line 15)");
	CHECK_DIAG(&d, "t.yaml:16:20: warning: ", "group 'ml' is listed twice in "
	    "'access.virtualClusters.prod' (first at line 16)");
	CHECK_DIAG(&d, "t.yaml:17:7: warning: ",
	    "unknown key 'user' in 'access.virtualClusters.prod'");
	CHECK_DIAG(&d, "t.yaml:18:3: warning: ", "unknown key 'socketgroup' in 'access'");
	if (s != NULL && (prod = spec_find_vc(s, "prod")) >= 0 && s->access.vcs) {
		CHECK(names_are(s->access.admins.users, s->access.admins.nusers,
		    NAMES("root")));
		CHECK(s->access.socket_group == NULL);
		CHECK(names_are(s->access.vcs[prod].users, s->access.vcs[prod].nusers,
		    NAMES("bob", "carol")));
		CHECK(names_are(s->access.vcs[prod].groups, s->access.vcs[prod].ngroups,
		    NAMES("ml")));
	}
	spec_free(s);
	spec_diags_release(&d);
}

/*
 * Nothing copies a struct spec: a reload, the store (session-log.c) and
 * `load` (session_same_spec) all go through the spec's text and its hash.
 * So the section must come back from s->text, and a change to it alone
 * must change the hash (a new spec in the store).
 */
static void
test_text_and_hash(void)
{
	struct spec_diags d, d2;
	struct spec *s = load_ok(CLUSTER FULL, &d), *again = NULL, *other;

	if (s != NULL) {
		spec_diags_init(&d2);
		again = spec_load_string(s->path, s->text, s->text_len, &d2);
		CHECKF(again != NULL, "%.300s", all_diags(&d2));
		if (again != NULL) {
			check_full(again);
			CHECK(again->hash == s->hash);
		}
		spec_diags_release(&d2);
	}
	other = load_ok(CLUSTER "access:\n  admins: {users: [alice], groups: [ops]}\n"
	    "  socketGroup: cellar            # optional\n"
	    "  virtualClusters:\n"
	    "    prod: {users: [bob, carol, mallory], groups: [ml]}\n"
	    "    research: {groups: [research]}\n", &d2);
	if (s != NULL && other != NULL)
		CHECK(other->hash != s->hash);
	spec_free(other);
	spec_diags_release(&d2);
	spec_free(again);
	spec_free(s);
	spec_diags_release(&d);
}

/*
 * access.runAs: user -> account, looked up by spec_run_as; root only for
 * a user admins.users names; bad names, a user twice and a non-mapping
 * are errors at their place. backend.switchUser: ssh only, three words.
 */
static void
test_run_as(void)
{
	struct spec_diags d;
	struct spec *s;

	s = load_ok(CLUSTER "access:\n"
	    "  admins: {users: [alice]}\n"			/* 11 */
	    "  runAs: {bob: svc-bob, alice: root}\n", &d);	/* 12 */
	if (s != NULL) {
		CHECK(s->access.nrun_as == 2);
		CHECK_STREQ(spec_run_as(s, "bob"), "svc-bob");
		CHECK_STREQ(spec_run_as(s, "alice"), "root");
		CHECK(spec_run_as(s, "carol") == NULL);
	}
	spec_free(s);
	spec_diags_release(&d);

	s = load_str(CLUSTER "access:\n"
	    "  admins: {groups: [bob]}\n"			/* 11 */
	    "  runAs:\n"					/* 12 */
	    "    bob: root\n"					/* 13 */
	    "    carol: [x]\n"					/* 14 */
	    "    -dave: svc\n"					/* 15 */
	    "    erin: svc\n"					/* 16 */
	    "    erin: svc2\n", &d);				/* 17 */
	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:13:10: error: ", "'access.runAs.bob' is root, but "
	    "'bob' is not in 'access.admins.users': only admins run jobs as root");
	CHECK_DIAG(&d, "t.yaml:14:12: error: ", "'access.runAs.carol' must be an "
	    "account name");
	CHECK_DIAG(&d, "t.yaml:15:5: error: ", "bad user name '-dave' in "
	    "'access.runAs'");
	spec_free(s);
	spec_diags_release(&d);

	s = load_str(CLUSTER "access:\n  runAs: [bob]\n", &d);
	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:11:10: error: ", "'runAs' in 'access' must be a "
	    "mapping of user names to accounts, not a sequence");
	spec_free(s);
	spec_diags_release(&d);

	s = load_ok(CLUSTER "backend: {type: ssh, hooks: /x, switchUser: sudo}\n", &d);
	CHECK(s == NULL || s->backend.switch_user == SPEC_SWITCH_SUDO);
	spec_free(s);
	spec_diags_release(&d);
	s = load_ok(CLUSTER "backend: {type: ssh, hooks: /x}\n", &d);
	CHECK(s == NULL || s->backend.switch_user == SPEC_SWITCH_LOGIN);
	spec_free(s);
	spec_diags_release(&d);
	s = load_str(CLUSTER "backend: {type: local, hooks: /x, switchUser: login}\n", &d);
	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:10:47: error: ", "'switchUser' is for backends of "
	    "type ssh");
	spec_free(s);
	spec_diags_release(&d);
	s = load_str(CLUSTER "backend: {type: ssh, hooks: /x, switchUser: su}\n", &d);
	CHECK(s == NULL);
	CHECK_DIAG(&d, "t.yaml:10:45: error: ", "unknown 'switchUser' 'su' (login, "
	    "sudo or none)");
	spec_free(s);
	spec_diags_release(&d);
}

/* Either a clean spec that keeps every invariant, or errors: never a crash. */
static void
load_anything(const char *text, size_t len, int *loaded, int *failed)
{
	struct spec_diags d;
	struct spec *s;

	spec_diags_init(&d);
	s = spec_load_string("t.yaml", text, len, &d);
	if (s != NULL) {
		CHECK_INTEQ(check_spec_invariants(s), 0);
		(*loaded)++;
	} else {
		CHECK(d.errors > 0 && d.n > 0);
		(*failed)++;
	}
	spec_free(s);
	spec_diags_release(&d);
}

/* Every value and key of a block-style section, replaced by every kind of
   value (tspec-errors' fuzz-wrong-types, for this section). */
static void
test_wrong_types(void)
{
	static const char section[] =
	    "access:\n"
	    "  admins:\n"
	    "    users: [alice]\n"
	    "    groups:\n"
	    "    - ops\n"
	    "  socketGroup: cellar\n"
	    "  virtualClusters:\n"
	    "    prod:\n"
	    "      users: [bob, carol]\n"
	    "      groups: [ml]\n"
	    "    research:\n"
	    "      groups: [research]\n";
	static const char *const values[] = { "[1, 2]", "{x: 1}", "~", "\"\"",
	    "0", "-1", "zz", "[[a]]", "[{a: b}]", "&a [*a]", "!!binary aGk=",
	    "[a, a, -a]", "'a b'" };
	struct strbuf base = STRBUF_INIT, sb = STRBUF_INIT;
	const char *p, *start, *colon, *eol;
	int loaded = 0, failed = 0;
	size_t v;

	strbuf_adds(&base, CLUSTER);
	strbuf_adds(&base, section);
	for (p = base.buf + strlen(CLUSTER); *p != '\0'; p = eol + 1) {
		eol = strchr(p, '\n');
		start = p + strspn(p, " -");
		colon = memchr(p, ':', (size_t)(eol - p));
		for (v = 0; v < sizeof values / sizeof values[0]; v++) {
			/* the value (or the item) */
			strbuf_reset(&sb);
			strbuf_add(&sb, base.buf, (size_t)((colon ? colon + 1 : start) -
			    base.buf));
			strbuf_addf(&sb, " %s", values[v]);
			strbuf_adds(&sb, eol);
			load_anything(sb.buf, sb.len, &loaded, &failed);
			if (colon == NULL)
				continue;
			/* and the key itself */
			strbuf_reset(&sb);
			strbuf_add(&sb, base.buf, (size_t)(start - base.buf));
			strbuf_addf(&sb, "%s%s", values[v], colon);
			load_anything(sb.buf, sb.len, &loaded, &failed);
		}
	}
	CHECK(loaded > 20);
	CHECK(failed > 50);
	strbuf_release(&sb);
	strbuf_release(&base);
}

static char *
slurp(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (f == NULL)
		return NULL;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	return strbuf_detach(&sb, NULL);
}

/* The text after the first `start` in doc, up to `end`, appended to sb. */
static bool
add_block(struct strbuf *sb, const char *doc, const char *start, const char *end)
{
	const char *a = strstr(doc, start), *b;

	if (a == NULL || (b = strstr(a + strlen(start), end)) == NULL)
		return false;
	a += strlen(start);
	strbuf_add(sb, a, (size_t)(b - a));
	return true;
}

/*
 * The access examples of specs/README.md and cellar-spec(5) load, each
 * after the document's own cluster example (whose VCs they name), without
 * a diagnostic; tspec-load checks the cluster examples alone.
 */
static void
check_doc_example(const char *path, const char *open, const char *close,
    const char *vc, const char *group)
{
	char *doc = slurp(path), start[64];
	struct strbuf sb = STRBUF_INIT;
	struct spec_diags d;
	struct spec *s;
	int v;

	CHECKF(doc != NULL, "%s", path);
	if (doc == NULL)
		return;
	snprintf(start, sizeof start, "%saccess:\n", open);
	CHECKF(add_block(&sb, doc, open, close), "%s: no cluster example", path);
	strbuf_adds(&sb, "access:\n");
	CHECKF(add_block(&sb, doc, start, close), "%s: no access example", path);
	spec_diags_init(&d);
	s = spec_load_string(path, sb.buf, sb.len, &d);
	CHECKF(s != NULL && d.n == 0, "%.400s", all_diags(&d));
	if (s != NULL && (v = spec_find_vc(s, vc)) >= 0 && s->access.vcs != NULL) {
		CHECK(names_are(s->access.admins.users, s->access.admins.nusers,
		    NAMES("alice")));
		CHECK(s->access.socket_group != NULL &&
		    strcmp(s->access.socket_group, "cellar") == 0);
		CHECK(names_are(s->access.vcs[v].groups, s->access.vcs[v].ngroups,
		    NAMES(group)));
	} else
		CHECKF(0, "%s: no VC '%s' with a rule", path, vc);
	spec_free(s);
	spec_diags_release(&d);
	strbuf_release(&sb);
	free(doc);
}

static void
test_doc_examples(void)
{
	check_doc_example("specs/README.md", "```yaml\n", "```", "infer", "serving");
	check_doc_example("man/cellar-spec.5", ".Bd -literal -offset indent\n",
	    ".Ed", "dev", "research");
}

static const struct test tests[] = {
	{ "full", test_full },
	{ "fixture", test_fixture },
	{ "absent", test_absent },
	{ "optional-parts", test_optional_parts },
	{ "names", test_names },
	{ "errors", test_errors },
	{ "errors-all-reported", test_errors_all_reported },
	{ "warnings", test_warnings },
	{ "text-and-hash", test_text_and_hash },
	{ "wrong-types", test_wrong_types },
	{ "doc-examples", test_doc_examples },
	{ "run-as", test_run_as },
};

TEST_MAIN(tests)
