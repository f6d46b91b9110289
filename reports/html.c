/*
 * The HTML report: a header that says what was compared and how, then per
 * case a strip plot of every valid sample (grouped and coloured by boot,
 * boot medians and the mean with its 95% CI marked), the compare row and
 * the invalid samples; percentile curves where a case has latency
 * percentiles, and the shadow-entry coverage where it has one.  Every
 * string from the database or the machine is escaped, for HTML here and
 * for gnuplot by plot_str(); nothing on the page needs a network.
 */
#include "reports/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/plot.h"
#include "schema/db_report.h"

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

/* --- loading ----------------------------------------------------------- */

struct inv_load {
	const struct report_side *s;
	struct report_invalid **inv;
	size_t *n, alloc;
};

static bool side_has_run(const struct report_side *s, int64_t id)
{
	size_t i;

	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].id == id)
			return true;
	return false;
}

static int load_invalid(const struct db_report_invalid *v, void *arg)
{
	struct inv_load *l = arg;
	struct report_invalid *x;
	size_t i;

	if (!side_has_run(l->s, v->run_id))
		return 0;
	for (i = 0; i < *l->n; i++) {
		x = &(*l->inv)[i];
		if (!strcmp(x->workload, v->workload) &&
		    !strcmp(x->params, v->params) &&
		    !strcmp(x->reason, v->reason)) {
			x->n += (size_t)v->n;
			return 0;
		}
	}
	ALLOC_GROW(*l->inv, *l->n + 1, l->alloc);
	x = &(*l->inv)[(*l->n)++];
	x->workload = xstrdup(v->workload);
	x->params = xstrdup(v->params);
	x->reason = xstrdup(v->reason);
	x->n = (size_t)v->n;
	return 0;
}

int report_page_load(struct db *db, struct report_side *a,
		     struct report_side *b, const struct report_opts *o,
		     struct report_page *p, struct strbuf *err)
{
	struct report_opts every = *o;
	int i, r;

	memset(p, 0, sizeof(*p));
	p->side[0] = a;
	p->side[1] = b;
	if (report_compare(a, b, o, &p->cmp))
		return REPORT_ENOMEM;
	/* each side alone gives the mean and its CI of every metric */
	every.primary_only = false;
	every.aa = false;
	for (i = 0; i < 2 && p->side[i]; i++) {
		struct inv_load l = { p->side[i], &p->inv[i], &p->ninv[i], 0 };

		if (report_compare(p->side[i], NULL, &every, &p->alone[i]))
			return REPORT_ENOMEM;
		r = db_report_invalid_each(db, p->side[i]->db_label,
					   load_invalid, &l);
		if (!r)
			r = db_report_noisy(db, p->side[i]->db_label,
					    &p->noisy[i], &p->nvalid[i]);
		if (r)
			return report_db_status(db, r, err);
	}
	return REPORT_OK;
}

void report_page_release(struct report_page *p)
{
	size_t i, k;

	report_cmp_release(&p->cmp);
	for (i = 0; i < 2; i++) {
		if (p->side[i])
			report_cmp_release(&p->alone[i]);
		for (k = 0; k < p->ninv[i]; k++) {
			free(p->inv[i][k].workload);
			free(p->inv[i][k].params);
			free(p->inv[i][k].reason);
		}
		free(p->inv[i]);
	}
	memset(p, 0, sizeof(*p));
}

/* --- plots ------------------------------------------------------------- */

/* The unit a plot axis shows and the divisor that gets there from ns. */
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

/* One side of a strip plot. */
struct strip {
	const char *label;
	const struct report_series *x;	/* NULL: not measured there */
	const struct report_row *alone;	/* its mean and CI, or NULL */
	int colour;			/* 0 base, 1 patch */
	size_t nb;			/* boots of the side: its columns */
	double x0;			/* column of its first boot */
};

static double series_max(const struct report_series *x)
{
	double m = 0;
	size_t i;

	for (i = 0; x && i < x->nall; i++)
		if (fabs(x->all[i]) > m)
			m = fabs(x->all[i]);
	return m;
}

/*
 * Samples a plot shows one by one: past this, one point a boot median (a
 * page of 10^6 points is unreadable, and too large to open).
 */
#define PLOT_MAX_SAMPLES 5000

static size_t strip_samples(const struct strip *s, size_t ns)
{
	size_t k, n = 0;

	for (k = 0; k < ns; k++)
		n += s[k].x ? s[k].x->nall : 0;
	return n;
}

/*
 * The samples (x, y, colour), one block (or each boot's median, where the
 * samples are too many to show); the boot medians as short bars
 * (vectors), one block; the mean with its CI (yerrorbars), one block.
 */
static void strip_data(struct strbuf *g, const struct strip *s, size_t ns,
		       double div)
{
	bool thin = strip_samples(s, ns) > PLOT_MAX_SAMPLES;
	size_t k, i, j;

	for (k = 0; k < ns; k++) {
		const struct report_series *x = s[k].x;

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

static int strip_plot(struct strbuf *out, const char *idp,
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

static int pct_plot(struct strbuf *out, const char *idp,
		    const struct report_page *pg, const char *workload,
		    const char *params, struct strbuf *err)
{
	struct pct_ser ps[2][16];
	size_t np[2] = { 0, 0 }, k, i, b;
	struct strbuf g = STRBUF_INIT, lab = STRBUF_INIT;
	double ref = 0, div;
	char u[64];
	bool first = true;
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
	/* the tics of the base, and of the patch where it has no base */
	strbuf_addf(&g, "set logscale xy\nset xtics (");
	for (k = 0; k < 2; k++)
		for (i = 0; i < np[k] && (!k || np[0] < 2); i++) {
			strbuf_addf(&g, "%s'p%g' %.9g", first ? "" : ", ",
				    ps[k][i].p, pct_x(ps[k][i].p));
			first = false;
		}
	strbuf_addf(&g, ")\nset offsets graph 0.05, graph 0.05, 0, 0\n"
		    "plot ");
	first = true;
	for (k = 0; k < 2; k++) {
		if (np[k] < 2)
			continue;
		strbuf_addf(&g, "%s'-' with lines lw 0.8 lc rgb '#%06x' "
			    "title ", first ? "" : ", ", palette[k][0]);
		strbuf_reset(&lab);
		strbuf_addf(&lab, "%s: each boot", pg->side[k]->label);
		plot_label(&g, lab.buf);
		strbuf_addf(&g, ", '-' with linespoints pt 7 lw 2.5 "
			    "lc rgb '#%06x' title ", mean_colour[k]);
		strbuf_reset(&lab);
		strbuf_addf(&lab, "%s: mean", pg->side[k]->label);
		plot_label(&g, lab.buf);
		first = false;
	}
	strbuf_addf(&g, "\n");
	for (k = 0; k < 2; k++) {
		size_t nb = side_boots(pg->side[k]);

		if (np[k] < 2)
			continue;
		/* one line a boot: a blank line starts the next */
		for (b = 0; b < nb; b++) {
			for (i = 0; i < np[k]; i++) {
				const struct report_series *x = ps[k][i].x;
				size_t j;

				for (j = 0; j < x->nboots; j++)
					if ((size_t)x->boots[j].boot == b &&
					    x->med[j] > 0)
						strbuf_addf(&g, "%.9g %.9g\n",
							    pct_x(ps[k][i].p),
							    x->med[j] / div);
			}
			strbuf_addf(&g, "\n");
		}
		strbuf_addf(&g, "e\n");
		for (i = 0; i < np[k]; i++)
			if (ps[k][i].x->mean > 0)
				strbuf_addf(&g, "%.9g %.9g\n",
					    pct_x(ps[k][i].p),
					    ps[k][i].x->mean / div);
		strbuf_addf(&g, "e\n");
	}
	r = plot_svg(g.buf, g.len, idp, out, err);
	strbuf_release(&g);
	strbuf_release(&lab);
	return r;
}

/* --- the page ---------------------------------------------------------- */

static const char css[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:62em;"
	"padding:0 1em;color:#222;line-height:1.4}"
	"h1{font-size:1.5em}h2{font-size:1.15em;margin-top:2em;"
	"border-bottom:1px solid #ccc;word-break:break-all}"
	"table{border-collapse:collapse;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
	"vertical-align:top}"
	"td.num{text-align:right;white-space:nowrap}"
	"figure{margin:.5em 0}figure svg{width:100%;height:auto}"
	"figcaption{font-size:.9em;color:#555}"
	".warn{background:#fff3cd;border:1px solid #e0b000;padding:.5em}"
	".strict{background:#f8d7da;border-color:#c00}"
	".sig{font-weight:bold}.code{font-family:monospace;"
	"word-break:break-all}\n";

struct out {
	FILE *f;
	struct strbuf sb;	/* the page so far */
};

static void esc(struct out *o, const char *s)
{
	report_html_esc(&o->sb, s);
}

#define put(o, ...) strbuf_addf(&(o)->sb, __VA_ARGS__)

/* Distinct values of one field over a side's runs, ", " between. */
static void distinct(struct out *o, const struct report_side *s,
		     void (*field)(const struct report_run *, struct strbuf *))
{
	struct strbuf seen = STRBUF_INIT, v = STRBUF_INIT;
	size_t i, n = 0;

	for (i = 0; i < s->nruns; i++) {
		const char *p, *q;
		bool dup = false;

		strbuf_reset(&v);
		field(&s->runs[i], &v);
		/* seen holds each value followed by a NUL-free separator */
		for (p = strbuf_str(&seen); *p; p = q + 1) {
			q = strchr(p, '\x1f');
			if ((size_t)(q - p) == v.len &&
			    !memcmp(p, strbuf_str(&v), v.len))
				dup = true;
		}
		if (dup)
			continue;
		strbuf_addf(&seen, "%s\x1f", strbuf_str(&v));
		if (n++)
			put(o, "<br>");
		esc(o, strbuf_str(&v));
	}
	strbuf_release(&seen);
	strbuf_release(&v);
}

static void f_kernel(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addf(sb, "%s", r->kernel_release);
}

static void f_machine(const struct report_run *r, struct strbuf *sb)
{
	char mem[32];

	human_size((uint64_t)r->mem_bytes, mem, sizeof(mem));
	strbuf_addf(sb, "%s: %s, %lld CPUs, %s%s%s", r->hostname,
		    r->cpu_model, (long long)r->vcpus, mem,
		    r->virt[0] ? ", " : "", r->virt);
}

static void f_cmdline(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addf(sb, "%s", r->cmdline);
}

static void f_tool(const struct report_run *r, struct strbuf *sb)
{
	strbuf_addf(sb, "%s", r->tool_version);
}

static void dates(struct out *o, const struct report_side *s)
{
	const char *lo = NULL, *hi = NULL;
	size_t i;

	for (i = 0; i < s->nruns; i++) {
		const char *t = s->runs[i].started_at;

		if (!lo || strcmp(t, lo) < 0)
			lo = t;
		if (!hi || strcmp(t, hi) > 0)
			hi = t;
	}
	if (!lo)
		return;
	esc(o, lo);
	if (strcmp(lo, hi)) {
		put(o, " to ");
		esc(o, hi);
	}
}

static void head_row(struct out *o, const struct report_page *p,
		     const char *name,
		     void (*field)(const struct report_run *, struct strbuf *))
{
	int k;

	put(o, "<tr><th>%s</th>", name);
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<td class=\"code\">");
		distinct(o, p->side[k], field);
		put(o, "</td>");
	}
	put(o, "</tr>\n");
}

static void header(struct out *o, const struct report_page *p)
{
	const struct report_cmp *c = &p->cmp;
	int k;
	size_t i;

	put(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
	    "<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width\">\n"
	    "<title>foliobench: ");
	esc(o, p->side[0]->label);
	if (p->side[1]) {
		put(o, " against ");
		esc(o, p->side[1]->label);
	}
	put(o, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>", css);
	if (p->side[1]) {
		esc(o, p->side[1]->label);
		put(o, " against ");
		esc(o, p->side[0]->label);
	} else {
		esc(o, p->side[0]->label);
	}
	put(o, "</h1>\n<table class=\"meta\">\n<tr><th></th>");
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<th>%s: ", !p->side[1] ? "kernel" :
		    k ? "patch" : "base");
		esc(o, p->side[k]->label);
		put(o, "</th>");
	}
	put(o, "</tr>\n");
	head_row(o, p, "kernel", f_kernel);
	head_row(o, p, "machine", f_machine);
	head_row(o, p, "command line", f_cmdline);
	head_row(o, p, "foliobench", f_tool);
	put(o, "<tr><th>dates</th>");
	for (k = 0; k < 2 && p->side[k]; k++) {
		put(o, "<td>");
		dates(o, p->side[k]);
		put(o, "</td>");
	}
	put(o, "</tr>\n<tr><th>boots, runs</th>");
	for (k = 0; k < 2 && p->side[k]; k++)
		put(o, "<td class=\"boots\">%zu boot%s, %zu run%s</td>",
		    p->side[k]->nboots, p->side[k]->nboots == 1 ? "" : "s",
		    p->side[k]->nruns, p->side[k]->nruns == 1 ? "" : "s");
	put(o, "</tr>\n</table>\n<p class=\"method\">");
	esc(o, c->method ? c->method : "");
	put(o, "</p>\n");
	if (c->nwarn) {
		put(o, "<div class=\"warn strict\"><strong>The two sides differ "
		    "in more than the kernel; <code>bench compare --strict"
		    "</code> refuses this comparison:</strong><ul>\n");
		for (i = 0; i < c->nwarn; i++) {
			put(o, "<li>");
			esc(o, c->warn[i]);
			put(o, "</li>\n");
		}
		put(o, "</ul></div>\n");
	}
	for (k = 0; k < 2 && p->side[k]; k++) {
		const struct report_side *s = p->side[k];

		for (i = 0; i < s->nnotdone; i++) {
			const struct report_notdone *d = &s->notdone[i];

			put(o, "<p class=\"warn\">");
			esc(o, s->label);
			put(o, ": ");
			esc(o, d->workload);
			put(o, " <span class=\"code\">");
			esc(o, d->params);
			put(o, "</span> ");
			esc(o, d->status);
			if (d->reason && d->reason[0]) {
				put(o, ": ");
				esc(o, d->reason);
			}
			put(o, "</p>\n");
		}
	}
	if (p->noisy[0] || p->noisy[1]) {
		put(o, "<p class=\"warn noisy\">Samples flagged noisy (steal "
		    "over steal_max, or PUs oversubscribed), plotted and "
		    "counted like the others "
		    "(<code>bench compare --drop-noisy</code> leaves them "
		    "out):");
		for (k = 0; k < 2 && p->side[k]; k++) {
			put(o, "%s ", k ? ";" : "");
			esc(o, p->side[k]->label);
			put(o, " %lld of %lld", (long long)p->noisy[k],
			    (long long)p->nvalid[k]);
		}
		put(o, ".</p>\n");
	}
	for (i = 0; i < c->nunmeasurable; i++) {
		put(o, "%s", i ? ", " : "<p class=\"warn unmeasurable\">"
		    "Not measurable on this machine (stored as not "
		    "supported): ");
		esc(o, c->unmeasurable[i]);
	}
	if (c->nunmeasurable)
		put(o, ".</p>\n");
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

static void fmt_p(double p, char *buf, size_t n)
{
	if (isnan(p))
		snprintf(buf, n, "-");
	else if (p < 0.001)
		snprintf(buf, n, "&lt;0.001");
	else
		snprintf(buf, n, "%.3f", p);
}

static void fmt_pct(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f%%", v);
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
	put(o, "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
	    "<td class=\"num\">%s</td>", pw, pr, pm);
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
	if (strip_samples(s, ns) > PLOT_MAX_SAMPLES)
		put(o, "; one point a boot median (the plot shows every "
		    "sample only up to %d)", PLOT_MAX_SAMPLES);
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

static int one_case(struct out *o, const struct report_page *p,
		    const struct report_row *r, size_t idx, int *nplot,
		    struct strbuf *err)
{
	const struct report_series *x = r->a ? r->a : r->b;
	struct strbuf svg = STRBUF_INIT;
	struct strip s[2];
	char idp[32];
	size_t ns;
	int ret;

	put(o, "<section class=\"case\" id=\"case-%zu\">\n<h2>", idx + 1);
	esc(o, r->name);
	put(o, "</h2>\n");
	strips_of(p, r->a, p->side[1] ? r->b : NULL, s, &ns);
	snprintf(idp, sizeof(idp), "p%d", ++*nplot);
	ret = strip_plot(&svg, idp, x->metric, x->unit, s, ns, false, err);
	if (ret)
		goto out;
	if (!svg.len) {
		put(o, "<p class=\"warn\">No valid sample to plot: ");
		counts_caption(o, s, ns);
		put(o, ".</p>\n");
	} else {
		put(o, "<figure class=\"plot strip\" data-metric=\"");
		esc(o, x->metric);
		put(o, "\">%s<figcaption>Every valid sample, by boot "
		    "(colours); bars: the median of each boot; diamond: the "
		    "mean of the boot medians and its 95%% confidence "
		    "interval. ", strbuf_str(&svg));
		counts_caption(o, s, ns);
		put(o, ".</figcaption></figure>\n");
	}
	strbuf_reset(&svg);
	if (p->side[1])
		cmp_table(o, p, r);
	else if (s[0].alone)
		alone_table(o, s[0].alone);
	invalid_line(o, p, x);

	snprintf(idp, sizeof(idp), "p%d", *nplot + 1);
	ret = pct_plot(&svg, idp, p, x->workload, x->params, err);
	if (ret)
		goto out;
	if (svg.len) {
		++*nplot;
		put(o, "<figure class=\"plot percentiles\">%s<figcaption>"
		    "Latency percentiles on log axes: thin lines the median "
		    "of each boot, thick the mean over boots.</figcaption>"
		    "</figure>\n", strbuf_str(&svg));
		strbuf_reset(&svg);
	}
	{
		const struct report_series *ca, *cb;

		ca = sibling(p->side[0], x, "coverage");
		cb = sibling(p->side[1], x, "coverage");
		if ((ca && ca->nall) || (cb && cb->nall)) {
			strips_of(p, ca, cb, s, &ns);
			snprintf(idp, sizeof(idp), "p%d", ++*nplot);
			ret = strip_plot(&svg, idp, "shadow-entry coverage",
					 "%", s, ns, true, err);
			if (ret)
				goto out;
			put(o, "<figure class=\"plot coverage\">%s<figcaption>"
			    "Shadow-entry coverage of each sample: the share "
			    "of the file's pages that were shadow entries "
			    "when the timed truncate began. ",
			    strbuf_str(&svg));
			counts_caption(o, s, ns);
			put(o, ".</figcaption></figure>\n");
		}
	}
	put(o, "</section>\n");
	ret = flush(o);
out:
	strbuf_release(&svg);
	return ret;
}

int report_page_print(FILE *f, const struct report_page *p,
		      struct strbuf *err)
{
	struct out o = { f, STRBUF_INIT };
	const struct report_cmp *c = &p->cmp;
	int nplot = 0, r = 0;
	size_t i;

	header(&o, p);
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
