/*
 * gnuplot as a child process: a script with its data inline goes in
 * through a pipe, the SVG comes back through another, under a time limit.
 */
#ifndef FB_PLOT_H
#define FB_PLOT_H

#include <stddef.h>

#include "common/common.h"

/* The program run and how long it may take (overridable for tests). */
#define PLOT_GNUPLOT		"gnuplot"
#define PLOT_TIMEOUT_MS		30000
#define PLOT_ENV_GNUPLOT	"FOLIOBENCH_GNUPLOT"
#define PLOT_ENV_TIMEOUT	"FOLIOBENCH_GNUPLOT_TIMEOUT_MS"

/*
 * In a range of their own, as DB_* and REPORT_* are: a page writer returns
 * these or -errno of its stream, and the two must not meet (PLOT_EIO was
 * -4, which an EINTR from fclose also is).
 */
enum plot_status {
	PLOT_OK = 0,
	PLOT_ESTART = -4001,	/* cannot start gnuplot (not installed?) */
	PLOT_EFAIL = -4002,	/* gnuplot exited with an error */
	PLOT_ETIME = -4003,	/* gnuplot took longer than the limit */
	PLOT_EIO = -4004,	/* the pipes failed */
};
/* Is r one of the PLOT_E* codes (not 0, not a -errno)? */
static inline int plot_failed(int r)
{
	return r <= PLOT_ESTART && r >= PLOT_EIO;
}

/*
 * Run script through gnuplot and put the SVG it printed into svg, ready to
 * sit inline in an HTML page: no XML prolog, and every id (and reference
 * to one) prefixed with idp so that several plots share one page.  err
 * gets a message for everything but PLOT_OK.
 */
int plot_svg(const char *script, size_t len, const char *idp,
	     struct strbuf *svg, struct strbuf *err);

/*
 * Append s as a gnuplot single-quoted string: quotes doubled (the only
 * escape such a string knows), control characters as spaces.  Scripts set
 * `noenhanced`, so ^ _ @ & { } stay literal.
 */
void plot_str(struct strbuf *sb, const char *s);

#endif
