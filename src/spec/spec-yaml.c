/*
 * spec-yaml.c — YAML text -> generic document tree (struct ydoc), with
 * libyaml's event parser. This is the only file in cellar that includes
 * <yaml.h>: spec.c validates the tree into a struct spec and never sees
 * libyaml, so the YAML library could be swapped here alone.
 *
 * The tree is built without recursion and without a malloc per node: nodes,
 * child lists and strings live in three growing arrays. Children of an open
 * sequence or mapping are collected on a pending stack and copied into kids[]
 * as one contiguous block when it closes. Aliases point at the anchored node
 * (a shared subtree); an alias to a node still open is refused (it would make
 * a cycle), and so is a document whose aliases expand it far beyond its own
 * size (a "billion laughs" file), so nothing downstream can loop or explode.
 */
#include "spec/spec-int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/xmalloc.h"

/* Deeper nesting than any spec needs; refused rather than walked. */
#define YDOC_MAX_DEPTH		1000
/* Aliases may expand a document to at most this many times its node count. */
#define YDOC_MAX_EXPANSION	16
#define YDOC_MIN_BUDGET		(1LL << 20)

struct frame {
	int		 node;		/* the open sequence or mapping */
	size_t		 pending;	/* height of the pending stack at open */
	long long	 size;		/* expanded size so far (itself included) */
};

struct builder {
	struct ydoc		*doc;
	const char		*name;
	const char		*text;
	size_t			 len;
	struct spec_diags	*d;
	int			 errors;

	struct frame		*frames;
	size_t			 nframes;
	size_t			 frames_cap;
	int			*pending;
	size_t			 npending;
	size_t			 pending_cap;
	long long		*size;		/* expanded size of each node */
	size_t			 size_cap;
	struct strmap		 anchors;
	long long		 total;		/* expanded size of the root */
};

static void
b_error(struct builder *b, int line, int col, const char *fmt, const char *arg)
{
	/* Every message here has at most one %s argument. */
	char msg[512];

	snprintf(msg, sizeof msg, fmt, arg ? arg : "");
	spec_diag_add(b->d, SPEC_ERROR, b->name, line, col, "%s", msg);
	b->errors++;
}

static int
new_node(struct builder *b, enum ydoc_kind kind, const yaml_mark_t *m)
{
	struct ydoc *doc = b->doc;
	struct ydoc_node *n;

	XGROW(doc->nodes, doc->nodes_cap, doc->nnodes + 1);
	if (doc->nnodes >= b->size_cap) {
		b->size = xreallocarray(b->size, doc->nodes_cap, sizeof *b->size);
		b->size_cap = doc->nodes_cap;
	}
	n = &doc->nodes[doc->nnodes];
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->line = (int)(m->line > INT32_MAX - 1 ? INT32_MAX - 1 : m->line) + 1;
	n->col = (int)(m->column > INT32_MAX - 1 ? INT32_MAX - 1 : m->column) + 1;
	b->size[doc->nnodes] = 1;
	return (int)doc->nnodes++;
}

/* Copy a string into doc->str, NUL-terminated; return its offset. */
static size_t
add_str(struct ydoc *doc, const char *s, size_t len)
{
	size_t off = doc->str_len;

	XGROW(doc->str, doc->str_cap, doc->str_len + len + 1);
	memcpy(doc->str + off, s, len);
	doc->str[off + len] = '\0';
	doc->str_len += len + 1;
	return off;
}

static bool
is_null_scalar(const char *v, size_t len)
{
	static const char *const nulls[] = { "", "~", "null", "Null", "NULL" };
	size_t i;

	for (i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
		if (strlen(nulls[i]) == len && memcmp(nulls[i], v, len) == 0)
			return true;
	return false;
}

/* A finished node goes to its parent's pending list, or becomes the root. */
static void
emit(struct builder *b, int node)
{
	struct frame *f;

	if (b->nframes == 0) {
		b->doc->root = node;
		b->total = b->size[node];
		return;
	}
	f = &b->frames[b->nframes - 1];
	if (b->doc->nodes[f->node].kind == YDOC_MAP &&
	    (b->npending - f->pending) % 2 == 0) {
		enum ydoc_kind k = b->doc->nodes[node].kind;

		if (k != YDOC_SCALAR && k != YDOC_NULL)
			b_error(b, b->doc->nodes[node].line, b->doc->nodes[node].col,
			    "mapping key must be a scalar%s", NULL);
	}
	XGROW(b->pending, b->pending_cap, b->npending + 1);
	b->pending[b->npending++] = node;
	f->size += b->size[node];
	if (f->size > INT64_MAX / 4)
		f->size = INT64_MAX / 4;
}

static void
set_anchor(struct builder *b, const yaml_char_t *anchor, int node)
{
	/* A later anchor of the same name replaces the earlier one. */
	if (anchor != NULL)
		strmap_set(&b->anchors, (const char *)anchor, node);
}

static void
open_container(struct builder *b, enum ydoc_kind kind, const yaml_mark_t *m,
    const yaml_char_t *anchor)
{
	int node = new_node(b, kind, m);
	struct frame *f;

	/* n == -1 marks it open, so an alias to it is recognised as a cycle. */
	b->doc->nodes[node].n = -1;
	set_anchor(b, anchor, node);
	XGROW(b->frames, b->frames_cap, b->nframes + 1);
	f = &b->frames[b->nframes++];
	f->node = node;
	f->pending = b->npending;
	f->size = 1;
}

static void
close_container(struct builder *b)
{
	struct ydoc *doc = b->doc;
	struct frame *f = &b->frames[b->nframes - 1];
	struct ydoc_node *n = &doc->nodes[f->node];
	size_t cnt = b->npending - f->pending;
	int node = f->node;

	if (cnt > 0) {
		XGROW(doc->kids, doc->kids_cap, doc->nkids + cnt);
		memcpy(doc->kids + doc->nkids, b->pending + f->pending,
		    cnt * sizeof *doc->kids);
	}
	n->off = doc->nkids;
	n->n = (int)(n->kind == YDOC_MAP ? cnt / 2 : cnt);
	doc->nkids += cnt;
	b->npending = f->pending;
	b->size[node] = f->size;
	b->nframes--;
	emit(b, node);
}

static void
on_scalar(struct builder *b, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ||
	    ev->data.scalar.style == YAML_ANY_SCALAR_STYLE;
	bool isnull = plain && is_null_scalar(v, len);
	int node = new_node(b, isnull ? YDOC_NULL : YDOC_SCALAR, &ev->start_mark);
	struct ydoc_node *n = &b->doc->nodes[node];

	if (len > INT32_MAX)
		len = INT32_MAX;
	n->quoted = !plain;
	n->n = isnull ? 0 : (int)len;
	n->off = isnull ? 0 : add_str(b->doc, v, len);
	set_anchor(b, ev->data.scalar.anchor, node);
	emit(b, node);
}

static void
on_alias(struct builder *b, const yaml_event_t *ev)
{
	const char *a = (const char *)ev->data.alias.anchor;
	int line = (int)ev->start_mark.line + 1, col = (int)ev->start_mark.column + 1;
	int target = strmap_get(&b->anchors, a);
	const struct ydoc_node *t;

	if (target < 0) {
		b_error(b, line, col, "unknown alias '%s'", a);
		emit(b, new_node(b, YDOC_NULL, &ev->start_mark));
		return;
	}
	t = &b->doc->nodes[target];
	if ((t->kind == YDOC_MAP || t->kind == YDOC_SEQ) && t->n < 0) {
		b_error(b, line, col, "alias '%s' refers to a node that contains it", a);
		emit(b, new_node(b, YDOC_NULL, &ev->start_mark));
		return;
	}
	emit(b, target);
}

/* Line and column of a byte offset, for reader errors that carry no mark. */
static void
offset_pos(const char *text, size_t len, size_t off, int *line, int *col)
{
	size_t i;

	*line = 1;
	*col = 1;
	for (i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++;
	}
}

static void
syntax_error(struct builder *b, const yaml_parser_t *p)
{
	char msg[512];
	int line, col;

	if (p->error == YAML_MEMORY_ERROR) {
		b_error(b, 0, 0, "out of memory while parsing yaml%s", NULL);
		return;
	}
	if (p->error == YAML_READER_ERROR)
		offset_pos(b->text, b->len, p->problem_offset, &line, &col);
	else {
		line = (int)p->problem_mark.line + 1;
		col = (int)p->problem_mark.column + 1;
	}
	if (p->context != NULL)
		snprintf(msg, sizeof msg, "%s (%s)",
		    p->problem ? p->problem : "invalid yaml", p->context);
	else
		snprintf(msg, sizeof msg, "%s", p->problem ? p->problem : "invalid yaml");
	b_error(b, line, col, "%s", msg);
}

int
ydoc_parse(struct ydoc *doc, const char *name, const char *text, size_t len,
    struct spec_diags *d)
{
	struct builder b;
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0, done = 0;
	long long budget;

	memset(doc, 0, sizeof *doc);
	doc->root = -1;
	memset(&b, 0, sizeof b);
	b.doc = doc;
	b.name = name;
	b.text = text;
	b.len = len;
	b.d = d;
	strmap_init(&b.anchors, STRMAP_COPY);

	if (!yaml_parser_initialize(&p)) {
		b_error(&b, 0, 0, "cannot initialise the yaml parser%s", NULL);
		goto out;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(&b, &p);
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				b_error(&b, (int)ev.start_mark.line + 1,
				    (int)ev.start_mark.column + 1,
				    "a spec is one yaml document; found a second one%s",
				    NULL);
				done = 1;
			}
			break;
		case YAML_SCALAR_EVENT:
			on_scalar(&b, &ev);
			break;
		case YAML_ALIAS_EVENT:
			on_alias(&b, &ev);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (b.nframes >= YDOC_MAX_DEPTH) {
				b_error(&b, (int)ev.start_mark.line + 1,
				    (int)ev.start_mark.column + 1,
				    "yaml nested too deeply%s", NULL);
				done = 1;
				break;
			}
			open_container(&b, ev.type == YAML_MAPPING_START_EVENT ?
			    YDOC_MAP : YDOC_SEQ, &ev.start_mark,
			    ev.type == YAML_MAPPING_START_EVENT ?
			    ev.data.mapping_start.anchor : ev.data.sequence_start.anchor);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (b.nframes > 0)
				close_container(&b);
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);

	budget = (long long)doc->nnodes * YDOC_MAX_EXPANSION;
	if (budget < YDOC_MIN_BUDGET)
		budget = YDOC_MIN_BUDGET;
	if (b.errors == 0 && b.total > budget)
		b_error(&b, 1, 1, "yaml aliases expand the document too much%s", NULL);
out:
	free(b.frames);
	free(b.pending);
	free(b.size);
	strmap_release(&b.anchors);
	if (b.errors > 0) {
		ydoc_release(doc);
		return -1;
	}
	return 0;
}

void
ydoc_release(struct ydoc *doc)
{
	free(doc->nodes);
	free(doc->kids);
	free(doc->str);
	memset(doc, 0, sizeof *doc);
	doc->root = -1;
}
