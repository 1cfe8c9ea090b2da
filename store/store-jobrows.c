/*
 * store-jobrows.c — `job_rows`, the virtual table through which every job
 * row is written: one INSERT ... SELECT FROM job_rows(?1) ... ON CONFLICT
 * DO UPDATE puts a whole array of jobs (struct store_jobrows, bound with
 * sqlite3_bind_pointer) in one statement.
 *
 * Why: a statement per job paid, per row, 34 binds, opening and closing
 * its cursors and its statement's end, about 28,000 instructions; a
 * recorded Philly replay's writer spent four fifths of its time there.
 * One statement for a checkpoint's jobs costs about 21,000 per row
 * (callgrind, measured for commit 168a251).
 *
 * The columns are jr_cols, in the order of the jobs table's columns that
 * the upserts in store-sql.c list (JOB_COLS). Eponymous only (no CREATE
 * VIRTUAL TABLE): it exists on the store's own connections, never in the
 * schema. Without its pointer argument it yields no rows.
 *
 * Each row read counts as a write step for the store's test hooks
 * (store_hook_step): a CELLAR_STORE_KILL or CELLAR_STORE_FAIL point can
 * fall between two jobs of one statement, as it could between two
 * statements before.
 */
#include <stddef.h>
#include <string.h>

#include "job/model-class.h"
#include "store/store-int.h"

enum jr_kind {
	JR_RUN,		/* the rowset's run */
	JR_INT,		/* an int of struct job at off */
	JR_BOOL,	/* a bool of struct job at off */
	JR_DBL,		/* a double of struct job at off */
	JR_STR,		/* a NUL-terminated char array of struct job at off */
	JR_MEMBERS,	/* the gang as "PxN,..." */
	JR_CLASS,
	JR_MODEL,	/* its name, NULL when none */
	JR_STATE,
	JR_REASON,
	JR_EMU,		/* the row's blob, NULL when none */
	JR_TRACED,	/* the rowset's traced */
};

static const struct jr_col {
	const char	*name;
	enum jr_kind	 kind;
	size_t		 off;
} jr_cols[] = {
	{ "run",		JR_RUN,		0 },
	{ "id",			JR_INT,		offsetof(struct job, id) },
	{ "name",		JR_STR,		offsetof(struct job, name) },
	{ "user",		JR_STR,		offsetof(struct job, user) },
	{ "vc",			JR_INT,		offsetof(struct job, vc) },
	{ "submit",		JR_DBL,		offsetof(struct job, submit) },
	{ "members",		JR_MEMBERS,	0 },
	{ "gpus",		JR_INT,		offsetof(struct job, gpus) },
	{ "leaf_type",		JR_INT,		offsetof(struct job, leaf_type) },
	{ "class",		JR_CLASS,	0 },
	{ "soft_affinity",	JR_BOOL,	offsetof(struct job, soft_affinity) },
	{ "duration",		JR_DBL,		offsetof(struct job, duration) },
	{ "model",		JR_MODEL,	0 },
	{ "elastic_min",	JR_INT,		offsetof(struct job, elastic_min) },
	{ "elastic_max",	JR_INT,		offsetof(struct job, elastic_max) },
	{ "state",		JR_STATE,	0 },
	{ "reason",		JR_REASON,	0 },
	{ "state_since",	JR_DBL,		offsetof(struct job, state_since) },
	{ "first_start",	JR_DBL,		offsetof(struct job, first_start) },
	{ "end_time",		JR_DBL,		offsetof(struct job, end) },
	{ "queued",		JR_DBL,		offsetof(struct job, queued) },
	{ "attained",		JR_DBL,		offsetof(struct job, attained) },
	{ "run_time",		JR_DBL,		offsetof(struct job, run_time) },
	{ "work_done",		JR_DBL,		offsetof(struct job, work_done) },
	{ "ckpt_work",		JR_DBL,		offsetof(struct job, ckpt_work) },
	{ "lost_work",		JR_DBL,		offsetof(struct job, lost_work) },
	{ "restarts",		JR_INT,		offsetof(struct job, restarts) },
	{ "preemptions",	JR_INT,		offsetof(struct job, preemptions) },
	{ "suspensions",	JR_INT,		offsetof(struct job, suspensions) },
	{ "opportunistic",	JR_BOOL,	offsetof(struct job, opportunistic) },
	{ "engine_id",		JR_INT,		offsetof(struct job, engine_id) },
	{ "priority",		JR_INT,		offsetof(struct job, priority) },
	{ "weight",		JR_INT,		offsetof(struct job, weight) },
	{ "uid",		JR_INT,		offsetof(struct job, uid) },
	{ "gid",		JR_INT,		offsetof(struct job, gid) },
	{ "emu",		JR_EMU,		0 },
	{ "traced",		JR_TRACED,	0 },
};
#define JR_NCOLS	((int)(sizeof jr_cols / sizeof jr_cols[0]))
#define JR_ARG		JR_NCOLS	/* the hidden column: the rowset */

struct jr_cursor {
	sqlite3_vtab_cursor	 base;
	struct store_jobrows	*rs;
	int			 i;
};

/* n in decimal at p; the end. */
static char *
put_int(char *p, int n)
{
	char tmp[12];
	unsigned int u = n < 0 ? 0u - (unsigned int)n : (unsigned int)n;
	int k = 0;

	do
		tmp[k++] = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (n < 0)
		*p++ = '-';
	while (k > 0)
		*p++ = tmp[--k];
	return p;
}

/*
 * "2x4,1x8" from a job's gang, into buf; members that would not fit are
 * left out. By hand: snprintf was a tenth of the cost of writing a job.
 */
static void
members_text(const struct job *j, char *buf, size_t len)
{
	char *p = buf, m[32], *e;
	int i;

	for (i = 0; i < j->nmembers && i < ENGINE_MAX_MEMBERS; i++) {
		e = m;
		if (i > 0)
			*e++ = ',';
		e = put_int(e, j->members[i].pods);
		*e++ = 'x';
		e = put_int(e, j->members[i].gpus);
		if ((size_t)(e - m) >= len - (size_t)(p - buf))
			break;
		memcpy(p, m, (size_t)(e - m));
		p += e - m;
	}
	*p = '\0';
}

static int
jr_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **vt, char **err)
{
	struct strbuf sb;
	int i, rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	strbuf_init(&sb);
	strbuf_adds(&sb, "CREATE TABLE x(");
	for (i = 0; i < JR_NCOLS; i++)
		strbuf_addf(&sb, "%s, ", jr_cols[i].name);
	strbuf_adds(&sb, "rowset HIDDEN)");
	rc = sqlite3_declare_vtab(db, sb.buf);
	strbuf_release(&sb);
	if (rc != SQLITE_OK)
		return rc;
	*vt = sqlite3_malloc(sizeof **vt);
	if (*vt == NULL)
		return SQLITE_NOMEM;
	memset(*vt, 0, sizeof **vt);
	return SQLITE_OK;
}

static int
jr_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Only one plan: the rowset argument given. */
static int
jr_best_index(sqlite3_vtab *vt, sqlite3_index_info *ii)
{
	int i;

	(void)vt;
	for (i = 0; i < ii->nConstraint; i++)
		if (ii->aConstraint[i].iColumn == JR_ARG &&
		    ii->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_EQ &&
		    ii->aConstraint[i].usable) {
			ii->aConstraintUsage[i].argvIndex = 1;
			ii->aConstraintUsage[i].omit = 1;
			ii->estimatedCost = 1;
			ii->idxNum = 1;
			return SQLITE_OK;
		}
	ii->idxNum = 0;
	ii->estimatedCost = 1e12;
	return SQLITE_OK;
}

static int
jr_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **cur)
{
	struct jr_cursor *c;

	(void)vt;
	if ((c = sqlite3_malloc(sizeof *c)) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof *c);
	*cur = &c->base;
	return SQLITE_OK;
}

static int
jr_close(sqlite3_vtab_cursor *cur)
{
	sqlite3_free(cur);
	return SQLITE_OK;
}

/* The test hooks, once per row; an error fails the statement. */
static int
jr_step(struct jr_cursor *c)
{
	struct store_jobrows *rs = c->rs;

	if (rs == NULL || c->i >= rs->n)
		return SQLITE_OK;
	if (store_hook_step(rs->st, NULL, &rs->hook_cause) != 0)
		return SQLITE_ERROR;
	return SQLITE_OK;
}

static int
jr_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxstr, int argc,
    sqlite3_value **argv)
{
	struct jr_cursor *c = (struct jr_cursor *)cur;

	(void)idxstr;
	c->rs = idx == 1 && argc == 1 ?
	    sqlite3_value_pointer(argv[0], STORE_JOBROWS_POINTER) : NULL;
	c->i = 0;
	return jr_step(c);
}

static int
jr_next(sqlite3_vtab_cursor *cur)
{
	struct jr_cursor *c = (struct jr_cursor *)cur;

	c->i++;
	return jr_step(c);
}

static int
jr_eof(sqlite3_vtab_cursor *cur)
{
	struct jr_cursor *c = (struct jr_cursor *)cur;

	return c->rs == NULL || c->i >= c->rs->n;
}

static int
jr_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct jr_cursor *c = (struct jr_cursor *)cur;
	const struct store_jobrow *r = &c->rs->rows[c->i];
	const struct job *j = r->job;
	const struct jr_col *k;
	const char *p = (const char *)j;
	char members[ENGINE_MAX_MEMBERS * 24];

	if (col < 0 || col >= JR_NCOLS) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	k = &jr_cols[col];
	switch (k->kind) {
	case JR_RUN:
		sqlite3_result_int64(ctx, c->rs->run);
		break;
	case JR_INT:
		sqlite3_result_int(ctx, *(const int *)(p + k->off));
		break;
	case JR_BOOL:
		sqlite3_result_int(ctx, *(const bool *)(p + k->off));
		break;
	case JR_DBL:
		sqlite3_result_double(ctx, *(const double *)(p + k->off));
		break;
	case JR_STR:
		/* the job outlives the statement */
		sqlite3_result_text(ctx, p + k->off, -1, SQLITE_STATIC);
		break;
	case JR_MEMBERS:
		members_text(j, members, sizeof members);
		sqlite3_result_text(ctx, members, -1, SQLITE_TRANSIENT);
		break;
	case JR_CLASS:
		sqlite3_result_text(ctx, job_class_name(j->klass), -1,
		    SQLITE_STATIC);
		break;
	case JR_MODEL:
		if (j->model >= 0 && j->model < model_count)
			sqlite3_result_text(ctx, model_table[j->model].name, -1,
			    SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	case JR_STATE:
		sqlite3_result_text(ctx, job_state_name(j->state), -1,
		    SQLITE_STATIC);
		break;
	case JR_REASON:
		sqlite3_result_text(ctx, job_reason_name(j->reason), -1,
		    SQLITE_STATIC);
		break;
	case JR_TRACED:
		sqlite3_result_int(ctx, c->rs->traced);
		break;
	case JR_EMU:
		if (r->blob != NULL)
			sqlite3_result_blob64(ctx, r->blob, r->len, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		break;
	}
	return SQLITE_OK;
}

static int
jr_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct jr_cursor *)cur)->i;
	return SQLITE_OK;
}

static const sqlite3_module jr_module = {
	.iVersion = 1,
	.xCreate = NULL,		/* eponymous only */
	.xConnect = jr_connect,
	.xBestIndex = jr_best_index,
	.xDisconnect = jr_disconnect,
	.xDestroy = jr_disconnect,
	.xOpen = jr_open,
	.xClose = jr_close,
	.xFilter = jr_filter,
	.xNext = jr_next,
	.xEof = jr_eof,
	.xColumn = jr_column,
	.xRowid = jr_rowid,
};

int
store_jobrows_register(struct store *st, char **cause)
{
	int rc = sqlite3_create_module(st->db, "job_rows", &jr_module, NULL);

	return rc == SQLITE_OK ? 0 : store_fail(st, rc, cause);
}
