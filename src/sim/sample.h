/*
 * sample.h — a sample of job service (GPU-seconds per job), the input of
 * the gittins policy's index (policy_params.service).
 *
 * Format: the Tiresias simulator's yarn-gput*.csv. A CSV file whose header
 * names a `duration` column (values are GPU-time: the simulator compares
 * them with executed time x GPUs), one job per row; other columns are
 * ignored. A file of a single column may name it anything or have no header
 * at all (the first line is then a number). Blank lines are skipped; CRLF
 * line ends are fine. A value is a decimal number >= 0 ("121", "3.5",
 * "1e4"), read without the locale. Any other row is an error naming the
 * file, the line and the column, never a silent skip.
 *
 * Ownership: a struct sample owns v; sample_release frees it and leaves an
 * empty sample.
 *
 * Invariants:
 *  1. After a successful load, n >= 1 and every v[i] is finite and >= 0,
 *     in file order.
 */
#ifndef CELLAR_SAMPLE_H
#define CELLAR_SAMPLE_H

#include <stddef.h>

struct sample {
	double	*v;
	size_t	 n;
};

/* Read a sample file. Returns 0, or -1 with *cause ("file:line:col: ..."). */
int	 sample_load(const char *path, struct sample *s, char **cause);
/* The same from memory (tests); name is used in messages. */
int	 sample_load_string(const char *name, const char *text, size_t len,
	    struct sample *s, char **cause);
void	 sample_release(struct sample *s);

#endif
