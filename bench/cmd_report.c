/*
 * `bench report BASE [PATCH] -o report.html`: one self-contained HTML page
 * with a plot of every sample, drawn by gnuplot.  Exit codes as for
 * compare (64 usage, 65 bad data, 66 no database, 67 unknown label, 68 no
 * complete run, 70 internal error, 72 empty database, 74 I/O error, 76
 * newer schema, 78 bad config), and 69 when gnuplot cannot be run or fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "common/outfile.h"
#include "reports/html.h"
#include "reports/plot.h"
#include "schema/db.h"
#include "schema/db_report.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bench report [--db FILE] [--profiled] -o FILE BASE "
		"[PATCH]\n\n"
		"Writes one self-contained HTML page: every valid sample "
		"by boot, the boot\nmedians, the mean and its 95%% CI, the "
		"comparison of PATCH against BASE,\nlatency percentiles and "
		"shadow-entry coverage where a case has them, and a\n"
		"differential flame graph of each case profiled (bench run "
		"--profile).\nThe plots are "
		"drawn by gnuplot (Debian's gnuplot-nox).\n\n"
		"  --db FILE        results database (default: the config's, "
		"else results.db)\n"
		"  --config FILE    the config whose database to read (default "
		"./config.json,\n                   else the example)\n"
		"  -o, --output FILE  the page to write (- for standard "
		"output)\n"
		"  --profiled       take the samples timed while the kernel "
		"was profiled too\n                   (left out by default: "
		"their times hold the cost of sampling)\n\n"
		"exit codes: 0 ok, 64 usage, 65 bad data, 66 no database, "
		"67 unknown label,\n68 no complete run, 69 gnuplot missing "
		"or failed, 70 internal error,\n72 empty database, 74 I/O "
		"error, 76 newer schema, 78 bad config\n");
}

/*
 * The page's temporary file while it is written: a signal that ends the
 * command (^C, SIGTERM, SIGHUP) removes it first, as a failure does.
 */
static char tmp_path[PATH_MAX];
static volatile sig_atomic_t tmp_armed;
static const int tmp_sigs[] = { SIGINT, SIGTERM, SIGHUP };

static void tmp_drop(int sig)
{
	if (tmp_armed)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tmp_signals(bool on)
{
	struct sigaction sa = { .sa_handler = on ? tmp_drop : SIG_DFL };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tmp_sigs); i++)
		sigaction(tmp_sigs[i], &sa, NULL);
}

/*
 * A temporary file beside out, of a short name of its own (out.tmp.PID
 * would not fit where out's name is near NAME_MAX), with the mode a new
 * file gets; armed for the signals.  NULL with errno set.
 */
static FILE *tmp_create(const char *out)
{
	const char *slash = strrchr(out, '/');
	int dlen = slash ? (int)(slash - out) + 1 : 0, fd, e;
	sigset_t set, old;
	mode_t mask;
	FILE *f;

	if ((size_t)snprintf(tmp_path, sizeof(tmp_path), "%.*s.report.XXXXXX",
			     dlen, out) >= sizeof(tmp_path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	sigemptyset(&set);
	for (size_t i = 0; i < ARRAY_SIZE(tmp_sigs); i++)
		sigaddset(&set, tmp_sigs[i]);
	tmp_signals(true);
	sigprocmask(SIG_BLOCK, &set, &old);
	fd = mkostemp(tmp_path, O_CLOEXEC);
	tmp_armed = fd >= 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0)
		return NULL;
	mask = umask(0);
	umask(mask);
	f = fchmod(fd, 0666 & ~mask) ? NULL : fdopen(fd, "w");
	if (!f) {
		e = errno;
		close(fd);
		unlink(tmp_path);
		tmp_armed = 0;
		errno = e;
	}
	return f;
}

/* Write the page to a temporary file beside out, then rename it. */
static int write_page(const struct report_page *pg, const char *out)
{
	struct strbuf tmp = STRBUF_INIT, err = STRBUF_INIT;
	FILE *f;
	int r, ex = EX_OK;

	if (!strcmp(out, "-")) {
		f = stdout;
	} else {
		f = tmp_create(out);
		strbuf_addf(&tmp, "%s", tmp_path);
		if (!f) {
			fb_err("cannot create a temporary file beside %s: %m",
			       out);
			ex = EX_CANTCREAT;
			goto out;
		}
	}
	r = report_page_print(f, pg, &err);
	if (f != stdout && fclose(f) && !r)
		r = -errno;
	if (plot_failed(r)) {
		fb_err("cannot draw the plots: %s", strbuf_str(&err));
		ex = EX_UNAVAILABLE;
	} else if (r) {
		errno = -r;
		fb_err("cannot write %s: %m", f == stdout ? "the page" :
		       tmp.buf);
		ex = EX_IOERR;
	} else if (f != stdout && rename(tmp.buf, out)) {
		fb_err("cannot rename %s to %s: %m", tmp.buf, out);
		ex = EX_IOERR;
	}
	if (ex && f != stdout)
		unlink(tmp.buf);
	tmp_armed = 0;
out:
	if (f != stdout)
		tmp_signals(false);
	strbuf_release(&tmp);
	strbuf_release(&err);
	return ex;
}

/* The options: an exit code, -1 for --help (printed). */
static int parse(int argc, char **argv, struct report_cmd *rc,
		 const char **out)
{
	static const struct option longopts[] = {
		REPORT_CMD_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "profiled", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:o:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'd': rc->db_arg = optarg; break;
		case 'c': rc->cfg_arg = optarg; break;
		case 'o': *out = optarg; break;
		case 'R': rc->lo.profiled = true; break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	return EX_OK;
}

/* BASE and PATCH (NULL: one label) and -o: an exit code. */
static int check_args(int argc, char **argv, const char *out,
		      const char **base, const char **patch)
{
	if (argc - optind < 1 || argc - optind > 2) {
		fb_err("report takes one label, or two (BASE and PATCH)");
		usage(stderr);
		return EX_USAGE;
	}
	if (!out || !out[0]) {
		fb_err("name the page to write: -o report.html");
		return EX_USAGE;
	}
	*base = argv[optind];
	*patch = argc - optind == 2 ? argv[optind + 1] : NULL;
	if (!(*base)[0] || (*patch && !(*patch)[0])) {
		fb_err("empty label: name BASE and PATCH (make report "
		       "BASE=... PATCH=...)");
		return EX_USAGE;
	}
	if (*patch && !strcmp(*base, *patch)) {
		fb_err("BASE and PATCH are both '%s'; for one kernel name it "
		       "once", *base);
		return EX_USAGE;
	}
	return EX_OK;
}

/*
 * A label whose samples were timed while profiled: they are not plotted
 * unless --profiled, and a page without them has no case of that label.
 */
static void warn_profiled(struct report_cmd *rc, const struct report_side *s)
{
	const char *label = s->db_label;
	int64_t n = 0, total = 0;

	/* no case with a profile (the load saw): no sample profiled */
	if (!s->marks.profile ||
	    db_report_profiled(&rc->db, label, &n, &total) || !n)
		return;
	if (rc->lo.profiled)
		fb_warn("%lld of %lld samples of %s were timed while the "
			"kernel was profiled: plotted (--profiled); their "
			"times hold the cost of sampling", (long long)n,
			(long long)total, label);
	else
		fb_warn("%lld of %lld samples of %s were timed while the "
			"kernel was profiled: left out (their times hold the "
			"cost of sampling)%s; --profiled takes them",
			(long long)n, (long long)total, label, n == total ?
			", and with them every case of it and its flame "
			"graphs" : "");
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd rc = REPORT_CMD_INIT;
	struct report_opts opts = { .primary = report_cmd_primary,
				    .words = report_cmd_words,
				    .primary_only = true };
	const char *out = NULL, *base, *patch;
	struct report_page pg = { 0 };
	char *path = NULL;
	int ex = parse(argc, argv, &rc, &out);
	size_t i;

	if (ex)
		return ex < 0 ? EX_OK : ex;
	ex = check_args(argc, argv, out, &base, &patch);
	if (ex)
		return ex;
	/* -o is checked against the database before anything is read */
	ex = report_cmd_db_path(rc.db_arg, rc.cfg_arg, &path);
	if (ex)
		return ex;
	rc.db_arg = path;
	if (strcmp(out, "-") && out_file_check(out, path, &rc.err)) {
		fb_err("%s", strbuf_str(&rc.err));
		ex = EX_USAGE;
		goto out;
	}
	ex = report_cmd_load(&rc, base, patch, false);
	if (ex)
		goto out;
	ex = report_cmd_load_exit(report_page_load(&rc.db, &rc.a, patch ?
				  &rc.b : NULL, &opts, &pg, &rc.err), &rc.err);
	if (ex)
		goto out;
	pg.tool_version = fb_version;
	warn_profiled(&rc, &rc.a);
	if (patch)
		warn_profiled(&rc, &rc.b);
	for (i = 0; i < pg.cmp.nwarn; i++)
		fb_warn("%s", pg.cmp.warn[i]);
	ex = write_page(&pg, out);
out:
	report_page_release(&pg);
	report_cmd_release(&rc);
	free(path);
	return ex;
}
