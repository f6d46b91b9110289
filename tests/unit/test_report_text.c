/*
 * The escapes of the report and the exports: text from the database going
 * into HTML, into a gnuplot string, into a file name; and gnuplot itself
 * through its pipes (a real gnuplot, as the report runs it).
 */
#include "common/common.h"
#include "reports/exports.h"
#include "reports/html.h"
#include "reports/plot.h"
#include "tap.h"

static void html(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	report_html_esc(&sb, in);
	STREQ(strbuf_str(&sb), want, "html escape");
	strbuf_release(&sb);
}

static void gp(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	plot_str(&sb, in);
	STREQ(strbuf_str(&sb), want, "gnuplot string");
	strbuf_release(&sb);
}

static void fname(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	report_file_name(in, &sb);
	STREQ(strbuf_str(&sb), want, "file name");
	strbuf_release(&sb);
}

int main(void)
{
	struct strbuf svg = STRBUF_INIT, err = STRBUF_INIT;
	const char *script;
	int r;

	tap_plan(17);
	html("<script>alert('x')</script>",
	     "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	html("a & \"b\"\x01\x7f", "a &amp; &quot;b&quot;  ");
	html("6.18.0-µ", "6.18.0-µ");
	gp("it's", "'it''s'");
	gp("a\nb\\c\"d", "'a b\\c\"d'");
	gp("", "''");
	fname("6.18.0-rc3+", "6.18.0-rc3+");
	fname("../etc/passwd", "_._etc_passwd");
	fname("op=unlink size=8G", "op=unlink,size=8G");
	fname("", "_");

	/* a real gnuplot: inline data in, SVG out, ids made unique */
	script = "set terminal svg size 200,100\n"
		 "plot '-' with points pt 7 notitle\n1 1\n2 2\ne\n";
	r = plot_svg(script, strlen(script), "q9", &svg, &err);
	OK(r == PLOT_OK, "gnuplot draws (%d: %s)", r, strbuf_str(&err));
	OK(!strncmp(strbuf_str(&svg), "<svg", 4), "no XML prolog");
	OK(strstr(strbuf_str(&svg), "id=\"q9_gnuplot_canvas\"") != NULL,
	   "ids prefixed");
	OK(strstr(strbuf_str(&svg), "href='#gpPt") == NULL,
	   "references prefixed too");
	strbuf_release(&svg);

	/* a script error comes back as gnuplot's own message */
	script = "plot nosuchvariable\n";
	r = plot_svg(script, strlen(script), "q", &svg, &err);
	OK(r == PLOT_EFAIL, "a bad script fails (%d)", r);
	STREQ(strbuf_str(&err), "gnuplot failed: line 1: undefined "
	      "variable: nosuchvariable", "with gnuplot's own message");
	strbuf_release(&svg);
	strbuf_release(&err);

	/* a page writer returns PLOT_E* or a stream's -errno: never both */
	{
		int e, hit = 0;

		for (e = 1; e < 1000; e++)	/* Linux's errno stop below 150 */
			hit += plot_failed(-e);
		OK(!hit && plot_failed(PLOT_ESTART) && plot_failed(PLOT_EFAIL) &&
		   plot_failed(PLOT_ETIME) && plot_failed(PLOT_EIO) &&
		   !plot_failed(PLOT_OK), "PLOT_E* lie apart from -errno "
		   "(an EINTR from fclose is not a plot failure)");
	}
	return tap_done();
}
