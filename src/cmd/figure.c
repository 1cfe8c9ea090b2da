/*
 * figure.c — windowed queuing delay for the plots, and figure files drawn
 * by gnuplot (figure.h). The data go to whitespace-separated files and the
 * drawing to a gnuplot script in a mkdtemp directory; gnuplot runs by
 * fork/exec with its output and errors in a file there, whose first line
 * becomes the message when it fails. An exec failure comes back through a
 * close-on-exec pipe, so a missing gnuplot is told apart from a failing one.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster/exit.h"
#include "cmd/figure.h"
#include "core/strbuf.h"
#include "core/xmalloc.h"
#include "job/job.h"

#define FIG_W		900
#define FIG_PANEL_H	450

/* ---- the windowed delay ---- */

static int
by_submit(const void *a, const void *b)
{
	double x = ((const struct figure_wait *)a)->submit;
	double y = ((const struct figure_wait *)b)->submit;

	return x < y ? -1 : x > y;
}

void
figure_delay_waits(struct figure_wait *w, int nw, int vc, double win,
    const double *t, int n, double *out)
{
	int i, lo = 0, hi = 0, cnt = 0;
	double sum = 0;

	qsort(w, (size_t)nw, sizeof *w, by_submit);
	/* both ends of the window move forward with the times */
	for (i = 0; i < n; i++) {
		for (; hi < nw && w[hi].submit <= t[i]; hi++)
			if (vc < 0 || w[hi].vc == vc) {
				sum += w[hi].wait;
				cnt++;
			}
		for (; lo < hi && w[lo].submit <= t[i] - win; lo++)
			if (vc < 0 || w[lo].vc == vc) {
				sum -= w[lo].wait;
				cnt--;
			}
		out[i] = cnt > 0 ? fmax(0, sum / cnt) : NAN;
	}
}

void
figure_delay(const struct job *jobs, int njobs, int vc, double win,
    const double *t, int n, double *out)
{
	struct figure_wait *w = xcalloc((size_t)njobs + 1, sizeof *w);
	int i, m = 0;

	for (i = 0; i < njobs; i++)
		if (jobs[i].first_start >= 0)
			w[m++] = (struct figure_wait){ jobs[i].submit,
			    jobs[i].first_start - jobs[i].submit, jobs[i].vc };
	figure_delay_waits(w, m, vc, win, t, n, out);
	free(w);
}

/* ---- gnuplot ---- */

/* A gnuplot single-quoted string: ' doubles. */
static void
gp_quote(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '\'');
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			strbuf_addc(sb, '\'');
		strbuf_addc(sb, *s);
	}
	strbuf_addc(sb, '\'');
}

/* A word for a data file: double-quoted, with no quote or newline inside. */
static void
data_word(struct strbuf *sb, const char *s)
{
	strbuf_addc(sb, '"');
	for (; *s != '\0'; s++)
		strbuf_addc(sb, *s == '"' || *s == '\n' || *s == '\\' ? '_' : *s);
	strbuf_addc(sb, '"');
}

static void
data_num(struct strbuf *sb, double v)
{
	if (isnan(v) || isinf(v))
		strbuf_adds(sb, " NaN");
	else
		strbuf_addf(sb, " %.6g", v);
}

static int
write_file(const char *path, const struct strbuf *sb, char **cause)
{
	FILE *fp = fopen(path, "w");

	if (fp == NULL || fwrite(sb->buf, 1, sb->len, fp) != sb->len || fclose(fp) != 0) {
		*cause = xasprintf("cannot write '%s': %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void
script_bars(struct strbuf *gp, struct strbuf *dat, const char *datpath,
    const struct figure_bars *b)
{
	int g, s;

	for (g = 0; g < b->ngroups; g++) {
		data_word(dat, b->group[g]);
		for (s = 0; s < b->nseries; s++)
			data_num(dat, b->v[g * b->nseries + s]);
		strbuf_addc(dat, '\n');
	}
	strbuf_adds(gp, "reset\nset title ");
	gp_quote(gp, b->title);
	strbuf_adds(gp, "\nset ylabel ");
	gp_quote(gp, b->ylabel);
	strbuf_adds(gp, "\nset style data histograms\n"
	    "set style histogram clustered gap 1\n"
	    "set style fill solid 0.85 border -1\n"
	    "set boxwidth 0.9\nset yrange [0:*]\nset grid ytics\n"
	    "set key top left\nset xtics rotate by -30 nomirror\nplot ");
	for (s = 0; s < b->nseries; s++) {
		if (s > 0)
			strbuf_adds(gp, ", ");
		gp_quote(gp, datpath);
		strbuf_addf(gp, " using %d%s title ", s + 2, s == 0 ? ":xticlabels(1)" : "");
		gp_quote(gp, b->series[s]);
	}
	strbuf_addc(gp, '\n');
}

static void
script_curves(struct strbuf *gp, struct strbuf *dat, const char *datpath,
    const struct figure_curves *c)
{
	int i, k;

	for (i = 0; i < c->n; i++) {
		data_num(dat, c->t[i] / 3600);
		for (k = 0; k < c->nc; k++)
			data_num(dat, c->y[(size_t)k * (size_t)c->n + (size_t)i]);
		strbuf_addc(dat, '\n');
	}
	strbuf_adds(gp, "reset\nset title ");
	gp_quote(gp, c->title);
	strbuf_adds(gp, "\nset ylabel ");
	gp_quote(gp, c->ylabel);
	strbuf_adds(gp, "\nset xlabel 'time (h)'\nset yrange [0:*]\nset grid\n"
	    "set key outside right top\nplot ");
	for (k = 0; k < c->nc; k++) {
		if (k > 0)
			strbuf_adds(gp, ", ");
		gp_quote(gp, datpath);
		strbuf_addf(gp, " using 1:%d with lines lw 1.5 lc %d dt %d title ", k + 2,
		    (c->color != NULL ? c->color[k] : k) + 1,
		    c->dashed != NULL && c->dashed[k] ? 2 : 1);
		gp_quote(gp, c->name[k]);
	}
	strbuf_addc(gp, '\n');
}

/* The terminal line for path's kind, or NULL. */
static const char *
terminal_for(const char *path)
{
	static const struct { const char *ext, *term; } kinds[] = {
		{ ".svg", "svg size %d,%d dynamic font 'sans,11' background '#ffffff'" },
		{ ".png", "pngcairo size %d,%d font 'sans,10' background '#ffffff'" },
	};
	size_t i, n = strlen(path);

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (n > 4 && strcasecmp(path + n - 4, kinds[i].ext) == 0)
			return kinds[i].term;
	return NULL;
}

int
figure_path_check(const char *path, char **cause)
{
	if (terminal_for(path) != NULL)
		return 0;
	*cause = xasprintf("figure '%s': the name must end in .svg or .png", path);
	return -1;
}

/* The first line of gnuplot's output file, for a message. */
static char *
first_line(const char *path)
{
	char buf[256] = "";
	FILE *fp = fopen(path, "r");

	if (fp != NULL) {
		while (fgets(buf, sizeof buf, fp) != NULL && strspn(buf, " \t\n^") == strlen(buf))
			;
		fclose(fp);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf[0] != '\0' ? buf : "no message");
}

/*
 * Run gnuplot script, its output to logpath. Returns its exit status, or
 * -1 with errno set when it could not be run.
 */
static int
run_gnuplot(const char *script, const char *logpath)
{
	char *const argv[] = { "gnuplot", (char *)script, NULL };
	int pfd[2], status, err = 0, fd;
	pid_t pid;
	ssize_t r;

	if (pipe(pfd) != 0)
		return -1;
	fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
	if ((pid = fork()) < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		errno = err;
		return -1;
	}
	if (pid == 0) {
		close(pfd[0]);
		if ((fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0) {
			dup2(fd, STDOUT_FILENO);
			dup2(fd, STDERR_FILENO);
			close(fd);
		}
		if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
			dup2(fd, STDIN_FILENO);
			close(fd);
		}
		execvp(argv[0], argv);
		err = errno;
		if (write(pfd[1], &err, sizeof err) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	while ((r = read(pfd[0], &err, sizeof err)) < 0 && errno == EINTR)
		;
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof err) {
		errno = err;
		return -1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
figure_write(const char *path, const struct figure_bars *b,
    const struct figure_curves *c, int *status, char **cause)
{
	struct strbuf gp = STRBUF_INIT, d1 = STRBUF_INIT, d2 = STRBUF_INIT;
	char dir[] = "/tmp/cellar-figure.XXXXXX", *script = NULL, *bars = NULL,
	    *curves = NULL, *log = NULL, *msg;
	const char *term = terminal_for(path);
	struct stat st;
	int rc = -1, st_gp, panels = (b != NULL) + (c != NULL);

	if (figure_path_check(path, cause) < 0) {
		*status = CMD_EXIT_USAGE;
		return -1;
	}
	*status = CMD_EXIT_FAIL;
	if (mkdtemp(dir) == NULL) {
		*cause = xasprintf("cannot make a directory for gnuplot's input: %s",
		    strerror(errno));
		return -1;
	}
	script = xasprintf("%s/figure.gp", dir);
	bars = xasprintf("%s/bars.dat", dir);
	curves = xasprintf("%s/curves.dat", dir);
	log = xasprintf("%s/gnuplot.log", dir);
	strbuf_adds(&gp, "set terminal ");
	strbuf_addf(&gp, term, FIG_W, FIG_PANEL_H * (panels > 0 ? panels : 1));
	strbuf_adds(&gp, "\nset output ");
	gp_quote(&gp, path);
	strbuf_addc(&gp, '\n');
	if (panels > 1)
		strbuf_adds(&gp, "set multiplot layout 2,1\n");
	if (b != NULL)
		script_bars(&gp, &d1, bars, b);
	if (c != NULL)
		script_curves(&gp, &d2, curves, c);
	if (panels > 1)
		strbuf_adds(&gp, "unset multiplot\n");
	strbuf_adds(&gp, "set output\n");
	if (write_file(script, &gp, cause) < 0 || write_file(bars, &d1, cause) < 0 ||
	    write_file(curves, &d2, cause) < 0)
		goto out;
	if ((st_gp = run_gnuplot(script, log)) < 0) {
		if (errno == ENOENT) {
			*cause = xstrdup("cannot draw a figure: gnuplot is not installed "
			    "(Debian: apt-get install gnuplot-nox)");
			*status = CMD_EXIT_SPEC;
		} else
			*cause = xasprintf("cannot run gnuplot: %s", strerror(errno));
		goto out;
	}
	if (st_gp != 0) {
		msg = first_line(log);
		*cause = xasprintf("gnuplot failed (exit %d) drawing '%s': %s", st_gp,
		    path, msg);
		free(msg);
		goto out;
	}
	if (stat(path, &st) != 0 || st.st_size == 0) {
		*cause = xasprintf("gnuplot wrote nothing to '%s'", path);
		goto out;
	}
	rc = 0;
out:
	unlink(script);
	unlink(bars);
	unlink(curves);
	unlink(log);
	rmdir(dir);
	free(script);
	free(bars);
	free(curves);
	free(log);
	strbuf_release(&gp);
	strbuf_release(&d1);
	strbuf_release(&d2);
	return rc;
}
