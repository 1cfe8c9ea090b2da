/*
 * record.c — the event log's entries (record.h): the one initialiser every
 * producer (the emulator's journal, the session, the live loop, a
 * reconfiguration) starts from, the detail writer, and the kinds' names.
 * Pure: no I/O.
 */
#include "job/record.h"

#include <string.h>

#include "core/strbuf.h"

void
rec_init(struct rec *r, double t, enum rec_kind kind, int job, int vc)
{
	memset(r, 0, sizeof *r);
	r->t = t;
	r->kind = kind;
	r->job = job;
	r->vc = vc;
	r->cell = -1;
	r->by = -1;
}

void
rec_set_detail(struct rec *r, const char *text)
{
	size_t n = strlen(text);

	if (n >= sizeof r->detail) {
		/* back off to a character's first byte, then mark the cut */
		n = sizeof r->detail - 4;
		while (n > 0 && ((unsigned char)text[n] & 0xc0) == 0x80)
			n--;
		bufprintf(r->detail, sizeof r->detail, "%.*s...", (int)n, text);
	} else
		memcpy(r->detail, text, n + 1);
}

/* ---- event log kinds (job/record.h) ---- */

static const char *const rec_kinds[REC_NKINDS] = {
	"submit", "start", "suspend", "resume", "preempt", "requeue", "complete",
	"fail", "cancel", "downgrade", "release", "node-bad", "node-ok", "reconfig",
	"migrate", "pack", "unpack", "grow", "shrink", "upgrade",
};

const char *
rec_kind_name(enum rec_kind k)
{
	return (unsigned)k < REC_NKINDS ? rec_kinds[k] : "?";
}

int
rec_kind_parse(const char *name)
{
	int i;

	for (i = 0; i < REC_NKINDS; i++)
		if (strcmp(rec_kinds[i], name) == 0)
			return i;
	return -1;
}
