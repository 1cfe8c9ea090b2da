/*
 * fuzz-main.c — a deterministic driver for fuzz-cmdline.c, so that `make
 * check` fuzzes the command grammar without libFuzzer: it replays every
 * file of the seed corpus, then a fixed number of mutations of each
 * (byte flips, insertions, deletions, dictionary tokens, splices with other
 * seeds) from a fixed seed, so every run tries the same inputs. A crash
 * aborts; success prints one "ok" line for tests/run.sh.
 *
 *   fuzz-main [-n MUTATIONS] [-x DICT] [-s SEED] CORPUS-DIR-OR-FILE...
 *
 * DICT is libFuzzer's dictionary format (one "token" per line, \xNN, \\ and
 * \" escapes, '#' comments), the file `make fuzz` hands libFuzzer too.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "core/strvec.h"
#include "core/xmalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_INPUT	4096	/* mutations stay small and fast */

struct blob {
	char	*buf;
	size_t	 len;
};

struct blobs {
	struct blob	*v;
	size_t		 n, cap;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

/* xorshift64*: the same sequence on every machine. */
static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static size_t
rnd(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static void
blobs_add(struct blobs *b, const char *buf, size_t len)
{
	XGROW(b->v, b->cap, b->n + 1);
	b->v[b->n].buf = xmalloc(len + 1);
	memcpy(b->v[b->n].buf, buf, len);
	b->v[b->n].buf[len] = '\0';
	b->v[b->n].len = len;
	b->n++;
}

static int
read_file(const char *path, struct strbuf *sb)
{
	char buf[4096];
	FILE *fp = fopen(path, "rb");
	size_t n;

	if (fp == NULL)
		return -1;
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0)
		strbuf_add(sb, buf, n);
	fclose(fp);
	return 0;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every regular file of a directory in name order. */
static int
load_corpus(const char *path, struct blobs *seeds)
{
	struct strvec names = STRVEC_INIT;
	struct strbuf sb = STRBUF_INIT;
	struct dirent *de;
	struct stat st;
	DIR *d;
	size_t i;

	if (stat(path, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		if (read_file(path, &sb) != 0)
			return -1;
		blobs_add(seeds, sb.buf, sb.len);
		strbuf_release(&sb);
		return 0;
	}
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			strvec_pushf(&names, "%s/%s", path, de->d_name);
	closedir(d);
	if (names.n > 0)
		qsort(names.v, names.n, sizeof *names.v, cmp_str);
	for (i = 0; i < names.n; i++) {
		strbuf_reset(&sb);
		if (stat(names.v[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    read_file(names.v[i], &sb) == 0)
			blobs_add(seeds, sb.buf, sb.len);
	}
	strbuf_release(&sb);
	strvec_release(&names);
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The quoted token of each dictionary line. */
static int
load_dict(const char *path, struct blobs *dict)
{
	struct strbuf sb = STRBUF_INIT, tok = STRBUF_INIT;
	char *line, *save = NULL, *p;

	if (read_file(path, &sb) != 0)
		return -1;
	for (line = strtok_r(sb.buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#' || (p = strchr(line, '"')) == NULL)
			continue;
		strbuf_reset(&tok);
		for (p++; *p != '\0' && *p != '"'; p++) {
			if (*p == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 &&
			    hexval(p[3]) >= 0) {
				strbuf_addc(&tok, (char)(hexval(p[2]) * 16 + hexval(p[3])));
				p += 3;
			} else if (*p == '\\' && p[1] != '\0')
				strbuf_addc(&tok, *++p);
			else
				strbuf_addc(&tok, *p);
		}
		blobs_add(dict, tok.buf, tok.len);
	}
	strbuf_release(&tok);
	strbuf_release(&sb);
	return 0;
}

/* One random edit of b, in place. */
static void
mutate_once(struct strbuf *b, const struct blobs *seeds, const struct blobs *dict)
{
	static const char bytes[] = " \t\n;'\"\\#-=,[]*!<>\x01\x7f\xc3\xff";
	size_t pos = rnd(b->len + 1), n;
	struct strbuf t = STRBUF_INIT;
	const struct blob *o;

	switch (rnd(7)) {
	case 0:		/* flip a bit */
		if (b->len > 0)
			b->buf[rnd(b->len)] ^= (char)(1u << rnd(8));
		return;
	case 1:		/* insert a special byte */
		strbuf_add(&t, b->buf, pos);
		strbuf_addc(&t, bytes[rnd(sizeof bytes - 1)]);
		break;
	case 2:		/* delete a range */
		n = rnd(b->len - pos + 1);
		strbuf_add(&t, b->buf, pos);
		strbuf_add(&t, b->buf + pos + n, b->len - pos - n);
		strbuf_release(b);
		*b = t;
		return;
	case 3:		/* insert a dictionary token, with a blank */
	case 4:
		if (dict->n == 0)
			return;
		o = &dict->v[rnd(dict->n)];
		strbuf_add(&t, b->buf, pos);
		strbuf_addc(&t, ' ');
		strbuf_add(&t, o->buf, o->len);
		strbuf_addc(&t, ' ');
		break;
	case 5:		/* splice in a piece of another seed */
		o = &seeds->v[rnd(seeds->n)];
		n = rnd(o->len + 1);
		strbuf_add(&t, b->buf, pos);
		strbuf_add(&t, o->buf + n, rnd(o->len - n + 1));
		break;
	default:	/* duplicate a range */
		n = rnd(b->len - pos + 1);
		strbuf_add(&t, b->buf, pos + n);
		strbuf_add(&t, b->buf + pos, n);
		break;
	}
	strbuf_add(&t, b->buf + pos, b->len - pos);
	strbuf_release(b);
	*b = t;
}

int
main(int argc, char **argv)
{
	struct blobs seeds = { NULL, 0, 0 }, dict = { NULL, 0, 0 };
	struct strbuf b = STRBUF_INIT;
	unsigned long mutations = 20, k, runs = 0;
	size_t i, bytes = 0, edits;
	int c;

	while ((c = getopt(argc, argv, "n:s:x:")) != -1) {
		switch (c) {
		case 'n':
			mutations = strtoul(optarg, NULL, 10);
			break;
		case 's':
			rng_state = strtoull(optarg, NULL, 10) | 1;
			break;
		case 'x':
			if (load_dict(optarg, &dict) != 0) {
				printf("not ok - fuzz/dict: cannot read '%s': %s\n",
				    optarg, strerror(errno));
				return 1;
			}
			break;
		default:
			fprintf(stderr, "usage: fuzz-main [-n N] [-s SEED] [-x DICT] "
			    "CORPUS...\n");
			return 2;
		}
	}
	for (c = optind; c < argc; c++)
		if (load_corpus(argv[c], &seeds) != 0) {
			printf("not ok - fuzz/corpus: cannot read '%s': %s\n",
			    argv[c], strerror(errno));
			return 1;
		}
	if (seeds.n == 0) {
		printf("not ok - fuzz/corpus: no seed inputs\n");
		return 1;
	}
	for (i = 0; i < seeds.n; i++) {
		LLVMFuzzerTestOneInput((const uint8_t *)seeds.v[i].buf, seeds.v[i].len);
		runs++;
		bytes += seeds.v[i].len;
		for (k = 0; k < mutations; k++) {
			strbuf_reset(&b);
			strbuf_add(&b, seeds.v[i].buf, seeds.v[i].len);
			for (edits = 1 + rnd(4); edits > 0; edits--)
				mutate_once(&b, &seeds, &dict);
			if (b.len > FUZZ_MAX_INPUT)
				strbuf_setlen(&b, FUZZ_MAX_INPUT);
			LLVMFuzzerTestOneInput((const uint8_t *)b.buf, b.len);
			runs++;
			bytes += b.len;
		}
	}
	printf("ok - fuzz/cmdline (%zu seeds, %lu inputs, %zu bytes, %zu "
	    "dictionary tokens)\n", seeds.n, runs, bytes, dict.n);
	for (i = 0; i < seeds.n; i++)
		free(seeds.v[i].buf);
	for (i = 0; i < dict.n; i++)
		free(dict.v[i].buf);
	free(seeds.v);
	free(dict.v);
	strbuf_release(&b);
	return 0;
}
