/*
 * What the parts of the HTML report share, private to them: the page being
 * written (html.c), its header blocks (html_head.c), the gnuplot scripts
 * of its plots (html_plot.c); the page data is built by html_data.c.
 */
#ifndef FB_HTML_PRIV_H
#define FB_HTML_PRIV_H

#include "reports/html.h"

/* The page being written: flushed to f case by case. */
struct out {
	FILE *f;
	struct strbuf sb;	/* the page so far */
};

static inline void esc(struct out *o, const char *s)
{
	report_html_esc(&o->sb, s);
}

#define put(o, ...) strbuf_addf(&(o)->sb, __VA_ARGS__)

/*
 * Samples a plot shows one by one: past this, one point a boot median (a
 * page of 10^6 points is unreadable, and too large to open).
 */
#define PLOT_MAX_SAMPLES 5000
/*
 * Boots of a kernel a plot shows one by one; past it, the medians of
 * groups of consecutive boots (10^4 boots a kernel drew 3.6 MB a plot,
 * on an axis of 760 pixels).
 */
#define PLOT_MAX_BOOTS 400

/* One side of a strip plot. */
struct strip {
	const char *label;
	const struct report_series *x;	/* NULL: not measured there */
	const struct report_row *alone;	/* its mean and CI, or NULL */
	int colour;			/* 0 base, 1 patch */
	size_t nb;			/* boots of the side: its columns */
	double x0;			/* column of its first boot */
};

/* The samples the strips hold, all sides together. */
size_t html_strip_samples(const struct strip *s, size_t ns);
/* How many consecutive boots of nb a plot shows as one: 1, or more. */
size_t html_boot_group(size_t nb);
/*
 * The strip plot of one metric, each side's samples by boot, as inline
 * SVG in out (empty when no side has a valid sample); a PLOT_E* code with
 * err filled in when gnuplot fails.
 */
int html_strip_plot(struct strbuf *out, const char *idp,
		    const char *metric, const char *unit,
		    struct strip *s, size_t ns, bool percent,
		    struct strbuf *err);
/* The latency percentile curves of one case, as inline SVG (or none). */
int html_pct_plot(struct strbuf *out, const char *idp,
		  const struct report_page *pg, const char *workload,
		  const char *params, struct strbuf *err);
/*
 * The kernel profile of case c as a differential flame graph (inline SVG
 * of id idp), or the line that says why there is none; nothing where no
 * side was profiled (html_flame.c).
 */
void html_flame(struct out *o, const struct report_prof *p,
		const struct report_prof_case *c, const char *idp);
/* The page's head: what was compared, on what, how, and its warnings. */
void html_header(struct out *o, const struct report_page *p);

#endif
