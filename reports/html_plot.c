/*
 * The gnuplot scripts of the HTML page: strip plots of every sample by
 * boot, latency percentile curves; each drawn by plot_svg() into SVG.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"
#include "reports/html_priv.h"
#include "reports/plot.h"
#include "reports/stats.h"

/* Plot size in SVG units; `dynamic` lets the page scale it. */
#define PLOT_W		760
#define PLOT_H		340
/* How far apart the samples of one boot spread around its column. */
#define JITTER		0.28
/* Longest label a plot prints before cutting it (the page has it whole). */
#define PLOT_LABEL_MAX	40

/* Boot colours: blues and greens for the base, reds for the patch. */
static const unsigned palette[2][6] = {
	{ 0x1f77b4, 0x2ca02c, 0x17becf, 0x9467bd, 0x393b79, 0x637939 },
	{ 0xd62728, 0xff7f0e, 0xe377c2, 0x8c564b, 0xbd9e39, 0xad494a },
};
static const unsigned mean_colour[2] = { 0x08306b, 0x67000d };

/*
 * The unit a plot axis shows and the divisor that gets there from the
 * stored unit: ns to what fits ref; a count of guest instructions as the
 * tables scale it ("M instr").
 */
static double axis_scale(const char *unit, double ref, char *u, size_t n)
{
	static const struct {
		double div;
		const char *name;
	} scale[] = {
		{ 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" }, { 1, "ns" },
	};
	size_t i;

	if (!strncmp(unit, "ns", 2) && (!unit[2] || unit[2] == '/')) {
		for (i = 0; i + 1 < ARRAY_SIZE(scale); i++)
			if (fabs(ref) >= scale[i].div)
				break;
		snprintf(u, n, "%s%s", scale[i].name, unit + 2);
		return scale[i].div;
	}
	if (report_unit_counted(unit)) {
		struct report_scale sc;

		report_scale(&ref, 1, unit, false, &sc);
		snprintf(u, n, "%s", sc.unit);
		return sc.div;
	}
	snprintf(u, n, "%s", strcmp(unit, "count") ? unit : "");
	return 1;
}

/* A label for a plot: whole up to PLOT_LABEL_MAX bytes, else cut. */
static void plot_label(struct strbuf *sb, const char *s)
{
	char buf[PLOT_LABEL_MAX + 4];
	size_t n = strlen(s);

	if (n <= PLOT_LABEL_MAX) {
		plot_str(sb, s);
		return;
	}
	n = PLOT_LABEL_MAX - 3;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;		/* never inside a UTF-8 character */
	snprintf(buf, sizeof(buf), "%.*s...", (int)n, s);
	plot_str(sb, buf);
}

static void script_head(struct strbuf *g, const char *ylabel)
{
	strbuf_addf(g, "set terminal svg size %d,%d dynamic "
		    "font 'sans,11' background '#ffffff'\n"
		    "set encoding utf8\nset termoption noenhanced\n"
		    "set border 3\nset tics nomirror\nset grid ytics\n"
		    "set key outside below horizontal\n"
		    "set ylabel ", PLOT_W, PLOT_H);
	plot_str(g, ylabel);
	strbuf_addf(g, "\n");
}


static double series_max(const struct report_series *x)
{
	double m = 0;
	size_t i;

	for (i = 0; x && i < x->nall; i++)
		if (fabs(x->all[i]) > m)
			m = fabs(x->all[i]);
	return m;
}


size_t html_strip_samples(const struct strip *s, size_t ns)
{
	size_t k, n = 0;

	for (k = 0; k < ns; k++)
		n += s[k].x ? s[k].x->nall : 0;
	return n;
}

size_t html_boot_group(size_t nb)
{
	return nb > PLOT_MAX_BOOTS ? (nb + PLOT_MAX_BOOTS - 1) / PLOT_MAX_BOOTS
				   : 1;
}

/*
 * The median of x's boot medians (those over zero where pos) in each group
 * of g consecutive boots of nb, NAN where it has none: (nb + g - 1) / g.
 */
static double *group_medians(const struct report_series *x, size_t nb,
			     size_t g, bool pos)
{
	size_t ng = (nb + g - 1) / g, i, k, *at = xcalloc(ng + 1, sizeof(*at));
	double *v = xcalloc(x->nboots + 1, sizeof(*v));
	double *m = xcalloc(ng, sizeof(*m));
	size_t *fill = xcalloc(ng, sizeof(*fill));

	for (i = 0; i < x->nboots; i++)
		if ((size_t)x->boots[i].boot < nb && (!pos || x->med[i] > 0))
			at[x->boots[i].boot / g + 1]++;
	for (k = 0; k < ng; k++)
		at[k + 1] += at[k];
	for (i = 0; i < x->nboots; i++)
		if ((size_t)x->boots[i].boot < nb && (!pos || x->med[i] > 0)) {
			k = x->boots[i].boot / g;
			v[at[k] + fill[k]++] = x->med[i];
		}
	for (k = 0; k < ng; k++)
		m[k] = at[k + 1] > at[k] ?
		       stats_median(v + at[k], at[k + 1] - at[k]) : NAN;
	free(at);
	free(v);
	free(fill);
	return m;
}

/* The groups of a strip too many boots to show one by one (bars, points). */
static void strip_groups(struct strbuf *g, const struct strip *s,
			 double div, bool bars)
{
	size_t gs = html_boot_group(s->nb), ng = (s->nb + gs - 1) / gs, k;
	double *m = group_medians(s->x, s->nb, gs, false);

	for (k = 0; k < ng; k++) {
		double mid = s->x0 + (double)(k * gs) + (double)(gs - 1) / 2;

		if (isnan(m[k]))
			continue;
		if (bars)
			strbuf_addf(g, "%.6f %.9g %.2f 0 %u\n",
				    mid - 0.3 * (double)gs, m[k] / div,
				    0.6 * (double)gs,
				    palette[s->colour][k % 6]);
		else
			strbuf_addf(g, "%.6f %.9g %u\n", mid, m[k] / div,
				    palette[s->colour][k % 6]);
	}
	free(m);
}

/*
 * The samples (x, y, colour), one block (or each boot's median, where the
 * samples are too many to show, or the median of a group's medians, where
 * the boots are); the boot medians as short bars
 * (vectors), one block; the mean with its CI (yerrorbars), one block.
 */
static void strip_data(struct strbuf *g, const struct strip *s, size_t ns,
		       double div)
{
	bool thin = html_strip_samples(s, ns) > PLOT_MAX_SAMPLES;
	size_t k, i, j;

	for (k = 0; k < ns; k++) {
		const struct report_series *x = s[k].x;

		if (thin && x && html_boot_group(s[k].nb) > 1) {
			strip_groups(g, &s[k], div, false);
			continue;
		}
		for (i = 0; thin && x && i < x->nboots; i++)
			strbuf_addf(g, "%.6f %.9g %u\n",
				    s[k].x0 + x->boots[i].boot,
				    x->med[i] / div,
				    palette[s[k].colour][x->boots[i].boot % 6]);
		for (i = 0; !thin && x && i < x->nboots; i++) {
			const struct report_boot_vals *b = &x->boots[i];
			unsigned rgb = palette[s[k].colour][b->boot % 6];

			for (j = 0; j < b->n; j++) {
				double off = b->n > 1 ? JITTER *
					((double)j / (double)(b->n - 1) - 0.5) : 0;

				strbuf_addf(g, "%.6f %.9g %u\n",
					    s[k].x0 + b->boot + off,
					    b->v[j] / div, rgb);
			}
		}
	}
	strbuf_addf(g, "e\n");
	for (k = 0; k < ns; k++) {
		const struct report_series *x = s[k].x;

		if (thin && x && html_boot_group(s[k].nb) > 1) {
			strip_groups(g, &s[k], div, true);
			continue;
		}
		for (i = 0; x && i < x->nboots; i++)
			strbuf_addf(g, "%.6f %.9g %.2f 0 %u\n",
				    s[k].x0 + x->boots[i].boot - 0.3,
				    x->med[i] / div, 0.6,
				    palette[s[k].colour][x->boots[i].boot % 6]);
	}
	strbuf_addf(g, "e\n");
	for (k = 0; k < ns; k++) {
		const struct report_row *r = s[k].alone;
		double lo, hi;

		if (!s[k].x || !r)
			continue;
		lo = isnan(r->ci_mean_lo) ? r->va : r->ci_mean_lo;
		hi = isnan(r->ci_mean_hi) ? r->va : r->ci_mean_hi;
		strbuf_addf(g, "%.6f %.9g %.9g %.9g %u\n",
			    s[k].x0 + (double)s[k].nb + 0.2, r->va / div, lo / div,
			    hi / div, mean_colour[s[k].colour]);
	}
	strbuf_addf(g, "e\n");
}

/* Boots a side has (its boot indexes run from 0). */
static size_t side_boots(const struct report_side *s)
{
	return s ? s->nboots : 0;
}

int html_strip_plot(struct strbuf *out, const char *idp,
		    const char *metric, const char *unit,
		    struct strip *s, size_t ns, bool percent,
		    struct strbuf *err)
{
	struct strbuf g = STRBUF_INIT, lab = STRBUF_INIT;
	double ref = 0, div;
	char u[64];
	size_t k, b;
	bool any = false;
	int r;

	for (k = 0; k < ns; k++) {
		double m = series_max(s[k].x);

		ref = m > ref ? m : ref;
		any |= s[k].x && s[k].x->nall;
	}
	if (!any)
		return 0;
	div = axis_scale(unit, ref, u, sizeof(u));
	strbuf_addf(&lab, "%s%s%s%s", metric, u[0] ? " (" : "", u,
		    u[0] ? ")" : "");
	script_head(&g, strbuf_str(&lab));
	strbuf_addf(&g, "set xtics scale 0 (");
	for (k = 0; k < ns; k++) {
		/* many boots: about 20 numbered, the first always */
		size_t step = s[k].nb > 40 ? (s[k].nb + 19) / 20 : 1;

		for (b = 0; b < s[k].nb; b += step)
			strbuf_addf(&g, "%s'%zu' %.1f", k || b ? ", " : "",
				    b + 1, s[k].x0 + (double)b);
		if (s[k].x && s[k].alone)
			strbuf_addf(&g, ", 'mean' %.1f",
				    s[k].x0 + (double)s[k].nb + 0.2);
	}
	strbuf_addf(&g, ")\nset link x2\n"
		    "set x2tics scale 0 (");
	for (k = 0; k < ns; k++) {
		if (k)
			strbuf_addf(&g, ", ");
		plot_label(&g, s[k].label);
		strbuf_addf(&g, " %.2f", s[k].x0 + ((double)s[k].nb - 1) / 2);
	}
	strbuf_addf(&g, ")\nset xrange [%.2f:%.2f]\n", s[0].x0 - 0.7,
		    s[ns - 1].x0 + (double)s[ns - 1].nb + 0.9);
	if (percent)
		strbuf_addf(&g, "set yrange [0:105]\nset arrow from graph 0, "
			    "first 100 to graph 1, first 100 nohead dt 2 "
			    "lc rgb '#888888'\n");
	else
		strbuf_addf(&g, "set yrange [*:*]\nset offsets 0, 0, "
			    "graph 0.08, graph 0.08\n");
	strbuf_addf(&g, "plot '-' using 1:2:3 with points pt 7 ps 0.55 "
		    "lc rgb variable notitle, "
		    "'-' using 1:2:3:4:5 with vectors nohead lw 2.5 "
		    "lc rgb variable title 'median of a boot', "
		    "'-' using 1:2:3:4:5 with yerrorbars pt 13 ps 1.3 lw 1.5 "
		    "lc rgb variable title 'mean of the boot medians, 95%% CI'"
		    "\n");
	strip_data(&g, s, ns, div);
	r = plot_svg(g.buf, g.len, idp, out, err);
	strbuf_release(&g);
	strbuf_release(&lab);
	return r;
}

/*
 * The percentile a metric names: "p50" 50, "lat_p99" 99, "p999" 99.9,
 * "p1" 1; -1 for any other metric.
 */
static double metric_pct(const char *m)
{
	const char *d = strrchr(m, 'p');
	double v;
	size_t n;

	if (!d || (d != m && (d - m != 4 || strncmp(m, "lat_", 4))))
		return -1;
	d++;
	n = strlen(d);
	if (!n || n > 5 || strspn(d, "0123456789") != n)
		return -1;
	v = strtod(d, NULL);
	/* p999 is 99.9, p9999 99.99: the digits after "99" are decimals */
	if (n > 2 && d[0] == '9' && d[1] == '9')
		v = 99 + strtod(d + 2, NULL) / pow(10, (double)n - 2);
	return v > 0 && v < 100 ? v : -1;
}

struct pct_ser {
	const struct report_series *x;
	double p;
};

static int pct_cmp(const void *a, const void *b)
{
	const struct pct_ser *x = a, *y = b;

	return (x->p > y->p) - (x->p < y->p);
}

/* The percentile series of a case on one side, ascending; how many. */
static size_t pct_series(const struct report_side *s, const char *workload,
			 const char *params, struct pct_ser *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; s && i < s->nser && n < max; i++) {
		const struct report_series *x = &s->ser[i];
		double p = metric_pct(x->metric);

		if (p < 0 || !x->nboots || strcmp(x->workload, workload) ||
		    strcmp(x->params, params))
			continue;
		out[n].x = x;
		out[n++].p = p;
	}
	qsort(out, n, sizeof(*out), pct_cmp);
	return n;
}

/* gnuplot's x for a percentile: 1/(1-p), so that each nine is a decade. */
static double pct_x(double p)
{
	return 100 / (100 - p);
}

/* The lines of a side of too many boots: one a group of gs boots. */
static void pct_groups(struct strbuf *g, const struct pct_ser *ps, size_t np,
		       size_t nb, size_t gs, double div)
{
	size_t ng = (nb + gs - 1) / gs, i, k;
	double **m = xcalloc(np, sizeof(*m));

	for (i = 0; i < np; i++)
		m[i] = group_medians(ps[i].x, nb, gs, true);
	for (k = 0; k < ng; k++) {
		for (i = 0; i < np; i++)
			if (!isnan(m[i][k]))
				strbuf_addf(g, "%.9g %.9g\n", pct_x(ps[i].p),
					    m[i][k] / div);
		strbuf_addf(g, "\n");
	}
	for (i = 0; i < np; i++)
		free(m[i]);
	free(m);
}

/* The x tics (the base's, or the patch's where it has no base), the lines. */
static void pct_plot_lines(struct strbuf *g, const struct report_page *pg,
			   struct pct_ser ps[2][16], const size_t np[2])
{
	struct strbuf lab = STRBUF_INIT;
	bool first = true;
	size_t k, i;

	strbuf_addf(g, "set logscale xy\nset xtics (");
	for (k = 0; k < 2; k++)
		for (i = 0; i < np[k] && (!k || np[0] < 2); i++) {
			strbuf_addf(g, "%s'p%g' %.9g", first ? "" : ", ",
				    ps[k][i].p, pct_x(ps[k][i].p));
			first = false;
		}
	strbuf_addf(g, ")\nset offsets graph 0.05, graph 0.05, 0, 0\n"
		    "plot ");
	first = true;
	for (k = 0; k < 2; k++) {
		if (np[k] < 2)
			continue;
		strbuf_addf(g, "%s'-' with lines lw 0.8 lc rgb '#%06x' "
			    "title ", first ? "" : ", ", palette[k][0]);
		strbuf_reset(&lab);
		strbuf_addf(&lab, "%s: each boot", pg->side[k]->label);
		plot_label(g, lab.buf);
		strbuf_addf(g, ", '-' with linespoints pt 7 lw 2.5 "
			    "lc rgb '#%06x' title ", mean_colour[k]);
		strbuf_reset(&lab);
		strbuf_addf(&lab, "%s: mean", pg->side[k]->label);
		plot_label(g, lab.buf);
		first = false;
	}
	strbuf_addf(g, "\n");
	strbuf_release(&lab);
}

/* One side's data: each boot's line (or each group's), then the mean. */
static void pct_side_data(struct strbuf *g, const struct report_side *s,
			  const struct pct_ser *ps, size_t np, double div)
{
	size_t nb = side_boots(s), gs = html_boot_group(nb), i, b, j;
	size_t *at;	/* at[i * nb + b]: series i's boot b, + 1 */

	if (gs > 1) {
		pct_groups(g, ps, np, nb, gs, div);
	} else {
		at = xcalloc(np * nb + 1, sizeof(*at));
		for (i = 0; i < np; i++)
			for (j = ps[i].x->nboots; j-- > 0;)
				if ((size_t)ps[i].x->boots[j].boot < nb)
					at[i * nb + ps[i].x->boots[j].boot] =
						j + 1;
		/* one line a boot: a blank line starts the next */
		for (b = 0; b < nb; b++) {
			for (i = 0; i < np; i++) {
				j = at[i * nb + b];
				if (j && ps[i].x->med[j - 1] > 0)
					strbuf_addf(g, "%.9g %.9g\n",
						    pct_x(ps[i].p),
						    ps[i].x->med[j - 1] / div);
			}
			strbuf_addf(g, "\n");
		}
		free(at);
	}
	strbuf_addf(g, "e\n");
	for (i = 0; i < np; i++)
		if (ps[i].x->mean > 0)
			strbuf_addf(g, "%.9g %.9g\n", pct_x(ps[i].p),
				    ps[i].x->mean / div);
	strbuf_addf(g, "e\n");
}

int html_pct_plot(struct strbuf *out, const char *idp,
		  const struct report_page *pg, const char *workload,
		  const char *params, struct strbuf *err)
{
	struct pct_ser ps[2][16];
	size_t np[2] = { 0, 0 }, k, i;
	struct strbuf g = STRBUF_INIT, lab = STRBUF_INIT;
	double ref = 0, div;
	char u[64];
	int r;

	/* the unit of the lowest percentile: the tail reads in thousands */
	for (k = 0; k < 2; k++) {
		np[k] = pct_series(pg->side[k], workload, params, ps[k], 16);
		for (i = 0; i < np[k]; i++)
			if (ps[k][i].x->mean > 0 && (ref == 0 ||
						     ps[k][i].x->mean < ref))
				ref = ps[k][i].x->mean;
	}
	if (np[0] < 2 && np[1] < 2)
		return 0;
	div = axis_scale(np[0] ? ps[0][0].x->unit : ps[1][0].x->unit, ref,
			 u, sizeof(u));
	strbuf_addf(&lab, "latency (%s)", u);
	script_head(&g, strbuf_str(&lab));
	pct_plot_lines(&g, pg, ps, np);
	for (k = 0; k < 2; k++)
		if (np[k] >= 2)
			pct_side_data(&g, pg->side[k], ps[k], np[k], div);
	r = plot_svg(g.buf, g.len, idp, out, err);
	strbuf_release(&g);
	strbuf_release(&lab);
	return r;
}
