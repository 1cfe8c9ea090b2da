/*
 * slurm.c — a Slurm cluster read from the text of `scontrol show node -o`
 * and `scontrol show topology` (see slurm.h); slurm-spec.c writes the
 * spec for it. The command (cmd-spec-import.c) gets the text, from
 * scontrol or from files; this file only reads strings.
 *
 * A record is Key=Value words; a word that is not "Key=" belongs to the
 * value before it (OS=Linux 6.1 #1 SMP, Reason=Not responding [slurm@..]).
 * A node's GPUs are the "gpu" items of its Gres= ("gpu:a100:8(S:0-1)",
 * "gpu:4"), summed per type. A node without GPUs, with two GPU types or
 * with a name the hooks refuse gets no cells, and a reason (skip).
 * Names are found through a strmap (spec-int.h): nothing here is
 * quadratic in the number of nodes.
 */
#include "spec/slurm.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/hostlist.h"
#include "core/xmalloc.h"
#include "spec/spec-int.h"

/* More GPUs on one node than this is a misread, not a machine. */
#define SLURM_MAX_GPUS	4096

/* ---- reading Key=Value records ---- */

/* One Key=Value word of a record; the value runs to the next key. */
struct kv {
	const char	*key;
	size_t		 klen;
	const char	*val;
	size_t		 vlen;
};

/* True if the word at p (up to end) starts "Key=". */
static bool
is_key(const char *p, const char *end)
{
	if (p >= end || !(isalpha((unsigned char)*p) || *p == '_'))
		return false;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	return p < end && *p == '=';
}

/*
 * Split a record into its pairs. A word that is not "Key=..." belongs to
 * the value before it: OS=Linux 6.1 #1 SMP, Reason=Not responding [x].
 * Returns the number of pairs (at most max), or -1 if the record does not
 * start with a key.
 */
static int
split_kv(const char *p, const char *end, struct kv *kv, int max)
{
	int n = 0;

	while (p < end && isspace((unsigned char)*p))
		p++;
	if (p < end && !is_key(p, end))
		return -1;
	while (p < end) {
		const char *w = p, *eq;

		while (p < end && !isspace((unsigned char)*p))
			p++;
		if (is_key(w, p) && n < max) {
			eq = memchr(w, '=', (size_t)(p - w));
			kv[n].key = w;
			kv[n].klen = (size_t)(eq - w);
			kv[n].val = eq + 1;
			kv[n].vlen = (size_t)(p - eq - 1);
			n++;
		} else if (n > 0)
			kv[n - 1].vlen = (size_t)(p - kv[n - 1].val);
		while (p < end && isspace((unsigned char)*p))
			p++;
	}
	return n;
}

/* The value of key, malloc'ed; NULL when absent, empty or "(null)". */
static char *
kv_get(const struct kv *kv, int n, const char *key)
{
	size_t klen = strlen(key);
	int i;

	for (i = n - 1; i >= 0; i--) {
		if (kv[i].klen != klen || strncmp(kv[i].key, key, klen) != 0)
			continue;
		if (kv[i].vlen == 0 || (kv[i].vlen == 6 &&
		    strncmp(kv[i].val, "(null)", 6) == 0))
			return NULL;
		return xstrndup(kv[i].val, kv[i].vlen);
	}
	return NULL;
}

/* The first bytes of a line, printable, for an error message. */
static char *
excerpt(const char *p, const char *end)
{
	struct strbuf sb = STRBUF_INIT;

	while (p < end && *p != '\n' && sb.len < 40) {
		strbuf_addc(&sb, isprint((unsigned char)*p) ? *p : '?');
		p++;
	}
	if (p < end && *p != '\n')
		strbuf_adds(&sb, "...");
	return strbuf_detach(&sb, NULL);
}

/* ---- nodes ---- */

void
slurm_cluster_init(struct slurm_cluster *c)
{
	memset(c, 0, sizeof *c);
	c->byname = xcalloc(1, sizeof *c->byname);
	strmap_init(c->byname, STRMAP_COPY);
}

void
slurm_cluster_release(struct slurm_cluster *c)
{
	int i;

	for (i = 0; i < c->nnodes; i++) {
		struct slurm_node *n = &c->nodes[i];

		free(n->name);
		free(n->type);
		free(n->gres);
		free(n->state);
		free(n->reason);
		free(n->partitions);
		free(n->skip);
	}
	free(c->nodes);
	for (i = 0; i < c->nswitches; i++) {
		free(c->switches[i].name);
		free(c->switches[i].node);
	}
	free(c->switches);
	strmap_release(c->byname);
	free(c->byname);
	memset(c, 0, sizeof *c);
}

/* Digits only, at most SLURM_MAX_GPUS + 1 (too many is caught later). */
static int
gres_count(const char *s, size_t len)
{
	long long v = 0;
	size_t i;

	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v <= SLURM_MAX_GPUS)
			v = v * 10 + (s[i] - '0');
	}
	return v > SLURM_MAX_GPUS ? SLURM_MAX_GPUS + 1 : (int)v;
}

/*
 * One GRES item, "(...)" already cut: gpu[:TYPE][:no_consume][:COUNT].
 * A gpu item sets *type (malloc'ed, NULL: untyped) and *count and
 * returns 1; another GRES returns 0; a gpu item of another shape, -1.
 */
static int
gres_item(const char *s, size_t len, char **type, int *count)
{
	const char *f[4];
	size_t fl[4];
	int nf = 0, c;
	const char *p = s, *end = s + len, *colon;

	*type = NULL;
	*count = 0;
	while (p <= end && nf < 4) {
		colon = memchr(p, ':', (size_t)(end - p));
		if (colon == NULL)
			colon = end;
		f[nf] = p;
		fl[nf] = (size_t)(colon - p);
		/* Slurm's flag, not a type */
		if (!(nf > 0 && fl[nf] == 10 && strncmp(p, "no_consume", 10) == 0))
			nf++;
		p = colon + 1;
	}
	if (p <= end || fl[0] != 3 || strncmp(f[0], "gpu", 3) != 0)
		return p <= end && fl[0] == 3 && strncmp(f[0], "gpu", 3) == 0 ? -1 : 0;
	*count = 1;		/* "gpu" and "gpu:TYPE" are one GPU */
	if (nf > 1 && (c = gres_count(f[nf - 1], fl[nf - 1])) >= 0) {
		*count = c;
		nf--;
	}
	if (nf > 2)
		return -1;
	if (nf == 2) {
		if (fl[1] == 0)
			return -1;
		*type = xstrndup(f[1], fl[1]);
	}
	return 1;
}

static bool
same_type(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/*
 * Gres= of node n: its GPU type and count, summed over items (Slurm
 * lists one type per socket group: gpu:a:2(S:0),gpu:a:2(S:1)). Returns 0,
 * or -1 with *cause for an item it cannot read.
 */
static int
parse_gres(struct slurm_node *n, char **cause)
{
	const char *p = n->gres, *item;
	bool several = false;
	int depth, r, count;
	long long total = 0;
	char *type;

	while (p != NULL && *p != '\0') {
		item = p;
		for (depth = 0; *p != '\0' && (depth > 0 || *p != ','); p++)
			depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		r = gres_item(item, strcspn(item, "(,"), &type, &count);
		if (*p == ',')
			p++;
		if (r < 0) {
			*cause = xasprintf("node '%s': cannot read GRES '%.*s'", n->name,
			    (int)strcspn(item, ","), item);
			return -1;
		}
		if (r == 0 || count == 0) {
			free(type);
			continue;
		}
		if (total > 0 && !same_type(n->type, type))
			several = true;
		if (total == 0) {
			n->type = type;
			type = NULL;
		}
		free(type);
		total += count;
	}
	if (total > SLURM_MAX_GPUS) {
		*cause = xasprintf("node '%s': %lld GPUs in GRES '%s' (at most %d)",
		    n->name, total, n->gres, SLURM_MAX_GPUS);
		return -1;
	}
	n->gpus = (int)total;
	if (several) {
		n->skip = xasprintf("several GPU types (Gres=%s): one node cell "
		    "per type is not imported, add them by hand", n->gres);
		n->gpus = 0;
	} else if (total == 0)
		n->skip = xasprintf("no GPUs (Gres=%s)", n->gres ? n->gres : "(null)");
	return 0;
}

/* A node name the hooks accept (spec.c's rule for backend nodes). */
static bool
name_ok(const char *s)
{
	size_t len = strlen(s);

	return len >= 1 && len <= 64 && s[0] != '-' &&
	    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789._-") == len;
}

static int
find_node(const struct slurm_cluster *c, const char *name)
{
	return strmap_get(c->byname, name);
}

/* One node record (its lines joined in [p, end)), starting at line. */
static int
add_node(struct slurm_cluster *c, const char *p, const char *end, int line,
    const char *what, char **cause)
{
	struct kv kv[128];
	struct slurm_node *n;
	char *name, *why = NULL;
	int nkv;

	nkv = split_kv(p, end, kv, (int)(sizeof kv / sizeof kv[0]));
	if (nkv <= 0 || kv[0].klen != 8 || strncmp(kv[0].key, "NodeName", 8) != 0) {
		char *ex = excerpt(p, end);

		*cause = xasprintf("'%s' line %d: not a node (want NodeName=... as "
		    "scontrol show node -o prints): '%s'", what, line, ex);
		free(ex);
		return -1;
	}
	if ((name = kv_get(kv, 1, "NodeName")) == NULL) {
		*cause = xasprintf("'%s' line %d: a node without a name", what, line);
		return -1;
	}
	if (find_node(c, name) >= 0) {
		*cause = xasprintf("'%s' line %d: node '%s' listed twice", what, line,
		    name);
		free(name);
		return -1;
	}
	strmap_put(c->byname, name, c->nnodes);
	XGROW(c->nodes, c->nodes_cap, (size_t)c->nnodes + 1);
	n = &c->nodes[c->nnodes++];
	memset(n, 0, sizeof *n);
	n->name = name;
	n->line = line;
	n->rack = -1;
	n->gres = kv_get(kv, nkv, "Gres");
	n->state = kv_get(kv, nkv, "State");
	n->reason = kv_get(kv, nkv, "Reason");
	n->partitions = kv_get(kv, nkv, "Partitions");
	if (parse_gres(n, &why) != 0) {
		*cause = xasprintf("'%s' line %d: %s", what, line, why);
		free(why);
		return -1;
	}
	if (n->skip == NULL && !name_ok(n->name)) {
		n->skip = xstrdup("a name cellar's hooks cannot take (letters, "
		    "digits, '.', '_' and '-' only)");
		n->gpus = 0;
	}
	return 0;
}

int
slurm_parse_nodes(struct slurm_cluster *c, const char *text, size_t len,
    const char *what, char **cause)
{
	const char *p = text, *end = text + len, *eol;
	struct strbuf joined = STRBUF_INIT;
	int line = 0, recline = 0, rc = 0;
	bool blank;

	if (memchr(text, '\0', len) != NULL) {
		*cause = xasprintf("'%s' is not text (a NUL byte)", what);
		return -1;
	}
	/* Records: a line at the margin starts one, indented lines go on
	   with it (scontrol without -o), a blank line ends it. */
	for (; p < end && rc == 0; p = eol + 1) {
		line++;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		blank = strspn(p, " \t\r") >= (size_t)(eol - p);
		if (!blank && isspace((unsigned char)*p) && joined.len > 0) {
			strbuf_addc(&joined, ' ');
			strbuf_add(&joined, p, (size_t)(eol - p));
			continue;
		}
		if (joined.len > 0)
			rc = add_node(c, joined.buf, joined.buf + joined.len, recline,
			    what, cause);
		strbuf_reset(&joined);
		if (!blank) {
			strbuf_add(&joined, p, (size_t)(eol - p));
			recline = line;
		}
	}
	if (rc == 0 && joined.len > 0)
		rc = add_node(c, joined.buf, joined.buf + joined.len, recline, what,
		    cause);
	strbuf_release(&joined);
	if (rc == 0 && c->nnodes == 0) {
		*cause = xasprintf("'%s' lists no node", what);
		rc = -1;
	}
	return rc;
}

/* ---- topology ---- */

static bool
has_text(const char *p, const char *end, const char *needle)
{
	size_t len = strlen(needle);

	for (; (size_t)(end - p) >= len; p++)
		if (memcmp(p, needle, len) == 0)
			return true;
	return false;
}

static int
add_switch(struct slurm_cluster *c, const char *p, const char *end, int line,
    const char *what, char **cause)
{
	struct strvec names = STRVEC_INIT;
	struct slurm_switch *sw;
	struct kv kv[16];
	char *nodes, *lvl, *sws, *why = NULL;
	int nkv, rc = -1;
	size_t i;

	nkv = split_kv(p, end, kv, (int)(sizeof kv / sizeof kv[0]));
	if (nkv <= 0 || kv[0].klen != 10 || strncmp(kv[0].key, "SwitchName", 10) != 0) {
		char *ex = excerpt(p, end);

		*cause = xasprintf("'%s' line %d: not a switch (want SwitchName=... as "
		    "scontrol show topology prints): '%s'", what, line, ex);
		free(ex);
		return -1;
	}
	XGROW(c->switches, c->switches_cap, (size_t)c->nswitches + 1);
	sw = &c->switches[c->nswitches++];
	memset(sw, 0, sizeof *sw);
	sw->line = line;
	if ((sw->name = kv_get(kv, 1, "SwitchName")) == NULL)
		sw->name = xasprintf("switch%d", c->nswitches - 1);
	nodes = kv_get(kv, nkv, "Nodes");
	lvl = kv_get(kv, nkv, "Level");
	sws = kv_get(kv, nkv, "Switches");
	/* no Level=: a switch of switches is above one of nodes */
	sw->level = sws != NULL ? 1 : 0;
	if (lvl != NULL && (strspn(lvl, "0123456789") != strlen(lvl) ||
	    strlen(lvl) > 4)) {
		*cause = xasprintf("'%s' line %d: switch '%s': bad Level '%s'", what,
		    line, sw->name, lvl);
		goto out;
	}
	if (lvl != NULL)
		sw->level = atoi(lvl);
	if (nodes != NULL && hostlist_expand(nodes, &names, &why) != 0) {
		*cause = xasprintf("'%s' line %d: switch '%s': %s", what, line,
		    sw->name, why);
		free(why);
		goto out;
	}
	sw->node = xreallocarray(NULL, names.n + 1, sizeof *sw->node);
	for (i = 0; i < names.n; i++) {
		int k = find_node(c, names.v[i]);

		if (k < 0) {
			*cause = xasprintf("'%s' line %d: switch '%s' holds node '%s' "
			    "that the node list does not have", what, line, sw->name,
			    names.v[i]);
			goto out;
		}
		sw->node[sw->nnode++] = k;
	}
	rc = 0;
out:
	strvec_release(&names);
	free(nodes);
	free(lvl);
	free(sws);
	return rc;
}

int
slurm_parse_topology(struct slurm_cluster *c, const char *text, size_t len,
    const char *what, char **cause)
{
	const char *p = text, *end = text + len, *eol;
	int line = 0, i, j, low = -1;

	if (memchr(text, '\0', len) != NULL) {
		*cause = xasprintf("'%s' is not text (a NUL byte)", what);
		return -1;
	}
	for (; p < end; p = eol + 1) {
		line++;
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (strspn(p, " \t\r") >= (size_t)(eol - p))
			continue;
		/* scontrol's answer without a topology plugin, if captured
		   with its stderr */
		if (has_text(p, eol, "No topology information"))
			continue;
		if (add_switch(c, p, eol, line, what, cause) != 0)
			return -1;
	}
	c->topology = c->nswitches > 0;
	/* racks: the lowest level that holds nodes */
	for (i = 0; i < c->nswitches; i++)
		if (c->switches[i].nnode > 0 && (low < 0 || c->switches[i].level < low))
			low = c->switches[i].level;
	for (i = 0; i < c->nswitches; i++) {
		struct slurm_switch *sw = &c->switches[i];
		int k = 0;

		if (sw->level != low)
			continue;
		for (j = 0; j < sw->nnode; j++) {
			struct slurm_node *n = &c->nodes[sw->node[j]];

			if (n->rack == i)	/* listed twice: once is enough */
				continue;
			sw->node[k++] = sw->node[j];
			if (n->rack >= 0) {
				*cause = xasprintf("'%s' line %d: node '%s' is in switch "
				    "'%s' and in switch '%s' (line %d)", what, sw->line,
				    n->name, sw->name, c->switches[n->rack].name,
				    c->switches[n->rack].line);
				return -1;
			}
			n->rack = i;
		}
		sw->nnode = k;
	}
	return 0;
}

/* ---- health ---- */

bool
slurm_state_healthy(const char *state)
{
	/* Base states a job runs in (the hook set's health: idle, mix,
	   alloc, comp, resv, plnd), and flags that take a node out. */
	static const char *const good[] = { "IDLE", "MIXED", "ALLOCATED",
	    "COMPLETING", "RESERVED", "PLANNED", NULL };
	static const char *const bad[] = { "DRAIN", "DRAINING", "DRAINED", "FAIL",
	    "FAILING", "MAINT", "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN",
	    "POWERING_DOWN", "POWERING_UP", "REBOOT_ISSUED", "REBOOT_REQUESTED",
	    "INVALID_REG", "FUTURE", "DOWN", NULL };
	const char *p = state, *e;
	size_t len;
	bool first = true, ok = false;
	int i;

	if (state == NULL)
		return true;	/* nothing said: let the health hook tell */
	for (; *p != '\0'; p = *e == '+' ? e + 1 : e, first = false) {
		e = p + strcspn(p, "+");
		len = (size_t)(e - p);
		/* "DOWN*": not responding; "IDLE~": powered down */
		if (len > 0 && !isalpha((unsigned char)p[len - 1]) && p[len - 1] != '_')
			return false;
		for (i = 0; first && good[i] != NULL; i++)
			if (strlen(good[i]) == len && strncmp(p, good[i], len) == 0)
				ok = true;
		for (i = 0; bad[i] != NULL; i++)
			if (strlen(bad[i]) == len && strncmp(p, bad[i], len) == 0)
				return false;
	}
	return ok;
}
