/*
 * `bench report`: one self-contained HTML page of a comparison (or of one
 * kernel) with gnuplot's SVG plots of every sample inline.
 */
#ifndef FB_HTML_H
#define FB_HTML_H

#include <stdio.h>

#include "reports/compare.h"
#include "reports/profile.h"

/* Invalid samples of one case on one side, by reason. */
struct report_invalid {
	char *workload, *params, *reason;
	size_t n;
};

struct report_page {
	struct report_side *side[2];	/* [1] NULL: one kernel */
	struct report_cmp cmp;		/* a against b, or a alone */
	struct report_cmp alone[2];	/* each side alone, every metric */
	struct report_invalid *inv[2];
	size_t ninv[2];
	int64_t noisy[2], nvalid[2];	/* samples flagged noisy (steal) */
	struct report_prof prof;	/* the cases' kernel profiles */
	const char *tool_version;	/* for the page's footer */
};

/*
 * Build what the page shows from loaded sides (b NULL: one kernel): the
 * comparison through report_compare(), the invalid samples of each
 * side's runs and the cases' kernel profiles (schema 11).  REPORT_ENOMEM, REPORT_EDB (err says).
 */
int report_page_load(struct db *db, struct report_side *a,
		     struct report_side *b, const struct report_opts *o,
		     struct report_page *p, struct strbuf *err);
void report_page_release(struct report_page *p);

/*
 * Write the page, running gnuplot once a plot.  0, or a negative plot_status
 * (err says why gnuplot failed), or -errno when the stream fails.
 */
int report_page_print(FILE *f, const struct report_page *p,
		      struct strbuf *err);

/* Append s escaped for HTML text and attribute values. */
void report_html_esc(struct strbuf *sb, const char *s);

#endif
