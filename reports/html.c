/*
 * The HTML report: a header that says what was compared and how, then per
 * case a strip plot of every valid sample (grouped and coloured by boot,
 * boot medians and the mean with its 95% CI marked), the compare row and
 * the invalid samples; percentile curves where a case has latency
 * percentiles, and the shadow-entry coverage where it has one.  Every
 * string from the database or the machine is escaped, for HTML here and
 * for gnuplot by plot_str(); nothing on the page needs a network.  This
 * file writes the page; its data is html_data.c's, its header blocks
 * html_head.c's, its plots' gnuplot scripts html_plot.c's.
 */
#include "reports/html_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"
#include "reports/plot.h"
#include "schema/db_report.h"

void report_html_esc(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		case '\'': strbuf_addstr(sb, "&#39;"); break;
		default:
			/* control characters would be parse errors */
			if ((ch < 0x20 && ch != '\n' && ch != '\t') ||
			    ch == 0x7f)
				strbuf_addch(sb, ' ');
			else
				strbuf_addch(sb, ch);
		}
	}
}

/* The row of p->alone[k] for the same case and metric as x. */
static const struct report_row *alone_row(const struct report_page *p,
					  int k,
					  const struct report_series *x)
{
	const struct report_cmp *c = &p->alone[k];
	size_t i;

	if (!x || !p->side[k])
		return NULL;
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *y = c->rows[i].a;

		if (y && !strcmp(y->workload, x->workload) &&
		    !strcmp(y->params, x->params) &&
		    !strcmp(y->metric, x->metric))
			return &c->rows[i];
	}
	return NULL;
}

/* The same case's series of another metric on side k, or NULL. */
static const struct report_series *sibling(const struct report_side *s,
					   const struct report_series *x,
					   const char *metric)
{
	size_t i;

	for (i = 0; s && x && i < s->nser; i++)
		if (!strcmp(s->ser[i].workload, x->workload) &&
		    !strcmp(s->ser[i].params, x->params) &&
		    !strcmp(s->ser[i].metric, metric))
			return &s->ser[i];
	return NULL;
}

/* A number's cell; p's "<0.001" is escaped as all text is. */
static void num_td(struct out *o, const char *s)
{
	put(o, "<td class=\"num\">");
	esc(o, s);
	put(o, "</td>");
}

/* The compare row: both values, the change, its CI, p and the verdict. */
static void cmp_table(struct out *o, const struct report_page *p,
		      const struct report_row *r)
{
	const struct report_series *x = r->a ? r->a : r->b;
	char va[64], vb[64], d[32], lo[32], hi[32], pw[32], pr[32], pm[32];
	double ref = fmax(fabs(r->va), fabs(r->vb));

	report_value(r->va, ref, x->unit, false, va, sizeof(va));
	report_value(r->vb, ref, x->unit, false, vb, sizeof(vb));
	fmt_pct(r->delta, d, sizeof(d));
	fmt_pct(r->ci_lo, lo, sizeof(lo));
	fmt_pct(r->ci_hi, hi, sizeof(hi));
	fmt_p(r->p_adj, pw, sizeof(pw));
	fmt_p(r->p, pr, sizeof(pr));
	fmt_p(r->p_mw_adj, pm, sizeof(pm));
	put(o, "<table class=\"cmp\"><tr><th>");
	esc(o, p->side[0]->label);
	put(o, "</th><th>");
	esc(o, p->side[1]->label);
	put(o, "</th><th>change</th><th>95%% CI of the change</th>"
	    "<th>p (Welch, Holm)</th><th>p (Welch, raw)</th>"
	    "<th>p (Mann-Whitney, Holm)</th><th>verdict</th></tr>\n"
	    "<tr><td class=\"num\">%s</td><td class=\"num\">%s</td>"
	    "<td class=\"num\">%s</td>", r->a ? va : "-", r->b ? vb : "-", d);
	if (isnan(r->ci_lo) && isnan(r->ci_hi))
		put(o, "<td class=\"num\">-</td>");
	else
		put(o, "<td class=\"num\">[%s, %s]</td>", lo, hi);
	num_td(o, pw);
	num_td(o, pr);
	num_td(o, pm);
	if (!r->a || !r->b) {
		put(o, "<td>measured on ");
		esc(o, p->side[r->a ? 0 : 1]->label);
		put(o, " only</td>");
	} else if (isnan(r->p)) {
		put(o, "<td>not tested</td>");
	} else if (r->sig && r->dir) {
		put(o, "<td class=\"sig\">%s</td>", report_dir_word(r));
	} else if (r->sig) {
		put(o, "<td class=\"sig\">differs</td>");
	} else {
		put(o, "<td>no significant change</td>");
	}
	put(o, "</tr></table>\n");
	if (r->within)
		put(o, "<p>One kernel has a single boot: the values, change "
		    "and tests are of the runs, not of boot medians.</p>\n");
}

/* One kernel alone: the mean of the boot medians, spread and CI. */
static void alone_table(struct out *o, const struct report_row *r)
{
	const struct report_series *x = r->a;
	char v[64], sd[64], lo[64], hi[64];
	double ref = fabs(r->va);

	report_value(r->va, ref, x->unit, false, v, sizeof(v));
	report_value(r->spread, ref, x->unit, false, sd, sizeof(sd));
	report_value(r->ci_mean_lo, ref, x->unit, false, lo, sizeof(lo));
	report_value(r->ci_mean_hi, ref, x->unit, false, hi, sizeof(hi));
	put(o, "<table class=\"alone\"><tr><th>%s</th><th>sd</th>"
	    "<th>95%% CI of the mean</th><th>boots</th>"
	    "<th>runs a boot</th></tr>\n<tr><td class=\"num\">%s</td>"
	    "<td class=\"num\">%s</td><td class=\"num\">[%s, %s]</td>"
	    "<td class=\"num\">%zu</td><td class=\"num\">%zu",
	    r->within ? "mean of the runs" : "mean of the boot medians", v,
	    sd, lo, hi, x->nboots, x->runs_min);
	if (x->runs_max != x->runs_min)
		put(o, "-%zu", x->runs_max);
	put(o, "</td></tr></table>\n");
}

static void invalid_line(struct out *o, const struct report_page *p,
			 const struct report_series *x)
{
	int k;

	put(o, "<p class=\"invalid\">Invalid samples (never in a median):");
	for (k = 0; k < 2 && p->side[k]; k++) {
		size_t i, n = 0, shown = 0;

		for (i = 0; i < p->ninv[k]; i++)
			if (!strcmp(p->inv[k][i].workload, x->workload) &&
			    !strcmp(p->inv[k][i].params, x->params))
				n += p->inv[k][i].n;
		put(o, "%s ", k ? ";" : "");
		esc(o, p->side[k]->label);
		put(o, " <span class=\"ninvalid\">%zu</span>", n);
		for (i = 0; i < p->ninv[k]; i++) {
			const struct report_invalid *v = &p->inv[k][i];

			if (strcmp(v->workload, x->workload) ||
			    strcmp(v->params, x->params))
				continue;
			put(o, "%s%zu ", shown++ ? ", " : " (", v->n);
			esc(o, v->reason[0] ? v->reason : "no reason given");
		}
		if (shown)
			put(o, ")");
	}
	put(o, ".</p>\n");
}

/* Where a side has too many boots to show one by one: how it is shown. */
static void group_caption(struct out *o, const struct strip *s, size_t ns)
{
	size_t k, g = 1;

	for (k = 0; k < ns; k++)
		if (s[k].x && html_boot_group(s[k].nb) > g)
			g = html_boot_group(s[k].nb);
	if (g > 1 && html_strip_samples(s, ns) > PLOT_MAX_SAMPLES)
		put(o, "; past %d boots a kernel, one point a group of up to "
		    "%zu consecutive boots: the median of their boot "
		    "medians", PLOT_MAX_BOOTS, g);
}

static void counts_caption(struct out *o, const struct strip *s, size_t ns)
{
	size_t k;

	for (k = 0; k < ns; k++) {
		put(o, "%s", k ? "; " : "");
		esc(o, s[k].label);
		if (s[k].x)
			put(o, ": <span class=\"nvalid\">%zu</span> valid "
			    "sample%s in %zu boot%s", s[k].x->nall,
			    s[k].x->nall == 1 ? "" : "s", s[k].x->nboots,
			    s[k].x->nboots == 1 ? "" : "s");
		else
			put(o, ": not measured");
	}
	if (html_strip_samples(s, ns) > PLOT_MAX_SAMPLES)
		put(o, "; one point a boot median (the plot shows every "
		    "sample only up to %d)", PLOT_MAX_SAMPLES);
	group_caption(o, s, ns);
}

/* Flush what the page holds so far; -errno when the stream fails. */
static int flush(struct out *o)
{
	if (o->sb.len && fwrite(o->sb.buf, 1, o->sb.len, o->f) != o->sb.len)
		return -errno;
	strbuf_reset(&o->sb);
	return 0;
}

static void strips_of(const struct report_page *p,
		      const struct report_series *a,
		      const struct report_series *b, struct strip *s,
		      size_t *ns)
{
	size_t na;

	na = p->side[0]->nboots;
	s[0] = (struct strip){ p->side[0]->label, a, alone_row(p, 0, a), 0,
			       na, 0 };
	*ns = 1;
	if (!p->side[1])
		return;
	s[1] = (struct strip){ p->side[1]->label, b, alone_row(p, 1, b), 1,
			       p->side[1]->nboots, (double)na + 1.6 };
	*ns = 2;
}

/* The case's strip plot of every valid sample, or why it has none. */
static int case_strip(struct out *o, const struct report_page *p,
		      const struct report_row *r, struct strip s[2],
		      size_t *ns, int *nplot, struct strbuf *err)
{
	const struct report_series *x = r->a ? r->a : r->b;
	struct strbuf svg = STRBUF_INIT;
	char idp[32];
	int ret;

	strips_of(p, r->a, p->side[1] ? r->b : NULL, s, ns);
	snprintf(idp, sizeof(idp), "p%d", ++*nplot);
	ret = html_strip_plot(&svg, idp, x->metric, x->unit, s, *ns, false,
			      err);
	if (ret)
		goto out;
	if (!svg.len) {
		put(o, "<p class=\"warn\">No valid sample to plot: ");
		counts_caption(o, s, *ns);
		put(o, ".</p>\n");
	} else {
		put(o, "<figure class=\"plot strip\" data-metric=\"");
		esc(o, x->metric);
		put(o, "\">%s<figcaption>Every valid sample, by boot "
		    "(colours); bars: the median of each boot; diamond: the "
		    "mean of the boot medians and its 95%% confidence "
		    "interval. ", strbuf_str(&svg));
		counts_caption(o, s, *ns);
		put(o, ".</figcaption></figure>\n");
	}
out:
	strbuf_release(&svg);
	return ret;
}

/* The case's flame graph, where it has a profile. */
static void case_flame(struct out *o, const struct report_page *p,
		       const struct report_series *x, size_t idx)
{
	char idp[32];
	size_t k;

	for (k = 0; k < p->prof.n; k++) {
		const struct report_prof_case *pc = &p->prof.c[k];

		if (strcmp(pc->workload, x->workload) ||
		    strcmp(pc->params, x->params))
			continue;
		snprintf(idp, sizeof(idp), "flame%zu", idx + 1);
		html_flame(o, &p->prof, pc, idp);
		break;
	}
}

/* The case's latency percentiles, where it has them. */
static int case_pct(struct out *o, const struct report_page *p,
		    const struct report_series *x, int *nplot,
		    struct strbuf *err)
{
	struct strbuf svg = STRBUF_INIT;
	char idp[32];
	size_t g;
	int ret;

	snprintf(idp, sizeof(idp), "p%d", *nplot + 1);
	ret = html_pct_plot(&svg, idp, p, x->workload, x->params, err);
	if (ret || !svg.len)
		goto out;
	++*nplot;
	g = html_boot_group(p->side[0]->nboots);
	if (p->side[1] && html_boot_group(p->side[1]->nboots) > g)
		g = html_boot_group(p->side[1]->nboots);
	put(o, "<figure class=\"plot percentiles\">%s<figcaption>"
	    "Latency percentiles on log axes: thin lines the median "
	    "of each boot, thick the mean over boots", strbuf_str(&svg));
	if (g > 1)
		put(o, " (past %d boots a kernel, one line a group of "
		    "up to %zu consecutive boots: the median of their "
		    "boot medians)", PLOT_MAX_BOOTS, g);
	put(o, ".</figcaption></figure>\n");
out:
	strbuf_release(&svg);
	return ret;
}

/* The shadow-entry coverage of each sample, where the case counts it. */
static int case_coverage(struct out *o, const struct report_page *p,
			 const struct report_series *x, int *nplot,
			 struct strbuf *err)
{
	const struct report_series *ca = sibling(p->side[0], x, "coverage");
	const struct report_series *cb = sibling(p->side[1], x, "coverage");
	struct strbuf svg = STRBUF_INIT;
	struct strip s[2];
	char idp[32];
	size_t ns;
	int ret;

	if (!(ca && ca->nall) && !(cb && cb->nall))
		return 0;
	strips_of(p, ca, cb, s, &ns);
	snprintf(idp, sizeof(idp), "p%d", ++*nplot);
	ret = html_strip_plot(&svg, idp, "shadow-entry coverage", "%", s, ns,
			      true, err);
	if (!ret) {
		put(o, "<figure class=\"plot coverage\">%s<figcaption>"
		    "Shadow-entry coverage of each sample: the share of the "
		    "file's pages that were shadow entries when the timed "
		    "truncate began. ", strbuf_str(&svg));
		counts_caption(o, s, ns);
		put(o, ".</figcaption></figure>\n");
	}
	strbuf_release(&svg);
	return ret;
}

static int one_case(struct out *o, const struct report_page *p,
		    const struct report_row *r, size_t idx, int *nplot,
		    struct strbuf *err)
{
	const struct report_series *x = r->a ? r->a : r->b;
	struct strip s[2];
	size_t ns;
	int ret;

	put(o, "<section class=\"case\" id=\"case-%zu\">\n<h2>", idx + 1);
	esc(o, r->name);
	put(o, "</h2>\n");
	if ((ret = case_strip(o, p, r, s, &ns, nplot, err)))
		return ret;
	if (p->side[1])
		cmp_table(o, p, r);
	else if (s[0].alone)
		alone_table(o, s[0].alone);
	invalid_line(o, p, x);
	case_flame(o, p, x, idx);
	if ((ret = case_pct(o, p, x, nplot, err)) ||
	    (ret = case_coverage(o, p, x, nplot, err)))
		return ret;
	put(o, "</section>\n");
	return flush(o);
}

int report_page_print(FILE *f, const struct report_page *p,
		      struct strbuf *err)
{
	struct out o = { f, STRBUF_INIT };
	const struct report_cmp *c = &p->cmp;
	int nplot = 0, r = 0;
	size_t i;

	html_header(&o, p);
	r = flush(&o);
	for (i = 0; !r && i < c->nrows; i++)
		r = one_case(&o, p, &c->rows[i], i, &nplot, err);
	if (!r) {
		put(&o, "<footer><p>Made by foliobench ");
		esc(&o, p->tool_version ? p->tool_version : "");
		put(&o, " with gnuplot; %d plot%s.</p></footer>\n</body>\n"
		    "</html>\n", nplot, nplot == 1 ? "" : "s");
		r = flush(&o);
	}
	if (!r && fflush(f))
		r = -errno;
	strbuf_release(&o.sb);
	return r;
}
