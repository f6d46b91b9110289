/*
 * The report's differential flame graph of a case, drawn here as inline
 * SVG (no script, nothing fetched): a frame a path of the merged call
 * tree, outermost at the bottom, as wide as its share of the patch's call
 * (the base's where only the base was profiled), red where that share
 * grew, blue where it shrank, the deeper the colour the larger the change.
 * Each frame's <title> gives its numbers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html_priv.h"
#include "reports/profile.h"

#define FLAME_W		1000.0	/* of the viewBox */
#define FLAME_ROW	17.0
/*
 * Frames a graph draws at most: past this, the narrowest go (their
 * children are narrower still).  A frame is 255 bytes (the control
 * profiles, 2026-12-06), so a case adds at most some 150 KB; and the
 * graphs of a page share FLAME_PAGE frames, so that a page of many cases
 * stays well under issue 31's 5 MB (about 2 MB of graphs at most).
 */
#define FLAME_MAX	600
#define FLAME_PAGE	8000
#define FLAME_LEAST	100
/* Narrower than this (of FLAME_W) a frame is not drawn: below a pixel. */
#define FLAME_MIN_W	1.0
/* The change that saturates the colour at least: smaller never does. */
#define FLAME_SAT	0.02

struct flame {
	const struct report_prof *p;
	const struct report_prof_case *c;
	int w;			/* the side whose shares are the widths */
	bool diff;		/* both sides: colour by the change */
	double min_w;		/* narrowest frame drawn */
	double sat;		/* change of full colour */
	int depth;		/* deepest row drawn */
	const char *label[2];
	const char *unit;	/* of the costs, or NULL */
};

static int dbl_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x < y) - (x > y);
}

/* The narrowest width drawn: FLAME_MIN_W, or more to keep max frames. */
static double min_width(const struct report_prof_case *c, int w, size_t max)
{
	double *v = xcalloc(c->nnode ? c->nnode : 1, sizeof(*v)), m;
	size_t i;

	for (i = 0; i < c->nnode; i++)
		v[i] = c->node[i].incl[w] * FLAME_W;
	qsort(v, c->nnode, sizeof(*v), dbl_desc);
	m = c->nnode > max ? fmax(v[max - 1], FLAME_MIN_W) : FLAME_MIN_W;
	/* ties at the edge go too: never more than max */
	if (c->nnode > max && v[max] >= m)
		m = nextafter(m, INFINITY);
	free(v);
	return m;
}

/* Frames a graph of p may draw: FLAME_MAX, less on a page of many. */
static size_t max_frames(const struct report_prof *p)
{
	size_t i, n = 0, share;

	for (i = 0; i < p->n; i++)
		n += (p->c[i].s[0].has || p->c[i].s[1].has) && !p->c[i].few;
	share = n ? FLAME_PAGE / n : FLAME_MAX;
	return share > FLAME_MAX ? FLAME_MAX :
	       share < FLAME_LEAST ? FLAME_LEAST : share;
}

/*
 * The sampling error of the change of a path's share: sqrt(p (1 - p) / n)
 * of each side's samples, added in quadrature.  A change within twice it
 * is drawn grey: a tick more or less is not a change.
 */
static double sampling_error(const struct flame *fl,
			     const struct report_prof_node *n)
{
	double v = 0, p;
	int k;

	for (k = 0; k < 2; k++) {
		p = n->incl[k];
		if (fl->c->s[k].samples > 0)
			v += p * (1 - p) / (double)fl->c->s[k].samples;
	}
	return sqrt(v);
}

static void fill(const struct flame *fl, const struct report_prof_node *n,
		 char *buf, size_t len)
{
	double d = n->incl[1] - n->incl[0], s;
	int lo;

	if (!fl->diff) {
		snprintf(buf, len, "#e8e0d0");
		return;
	}
	s = fmin(1.0, fabs(d) / fl->sat);
	lo = (int)lround(235 - 185 * s);
	if (fabs(d) <= 2 * sampling_error(fl, n))
		snprintf(buf, len, "#ebebeb");
	else if (d > 0)
		snprintf(buf, len, "#ff%02x%02x", lo, lo);
	else
		snprintf(buf, len, "#%02x%02xff", lo, lo);
}

static void pct(struct out *o, double v)
{
	put(o, "%.1f%%", 100 * v);
}

/*
 * The frame's <title>: its name on a line of its own, then its path's
 * share of the call on each side (and that share of the side's median),
 * the change, and the kernel that alone has the path.
 */
static void frame_title(struct out *o, const struct flame *fl,
			const struct report_prof_node *n)
{
	int k, shown = 0, only = -1;

	put(o, "<title>");
	esc(o, n->name);
	put(o, "\nwith children, of the call:");
	for (k = 0; k < 2; k++) {
		if (!fl->label[k] || !fl->c->s[k].has)
			continue;
		if (!n->incl[k]) {
			only = !k;
			continue;
		}
		put(o, "%s ", shown++ ? "," : "");
		esc(o, fl->label[k]);
		put(o, " ");
		pct(o, n->incl[k]);
		if (isfinite(fl->c->s[k].median) && fl->unit) {
			char v[48];

			report_value(n->incl[k] * fl->c->s[k].median,
				     fl->c->s[k].median, fl->unit, false, v,
				     sizeof(v));
			put(o, " (%s)", v);
		}
	}
	if (fl->diff)
		put(o, "; %+.1f points", 100 * (n->incl[1] - n->incl[0]));
	if (fl->diff && only >= 0) {
		put(o, "; only on ");
		esc(o, fl->label[only]);
	}
	put(o, "</title>");
}

/* Frame n at x, then its children left to right, by name. */
static void frame(struct out *o, struct flame *fl, size_t n, double x)
{
	const struct report_prof_node *nd = &fl->c->node[n];
	double wd = nd->incl[fl->w] * FLAME_W;
	double y = (double)(fl->depth - nd->depth) * FLAME_ROW;
	size_t i;
	char col[16];

	if (wd < fl->min_w)
		return;
	fill(fl, nd, col, sizeof(col));
	put(o, "<g>");
	frame_title(o, fl, nd);
	put(o, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\" "
	    "fill=\"%s\"/>", x, y, wd, FLAME_ROW - 1, col);
	/* the name where it fits, about 6.5 units a character at 11px */
	if (wd > 20) {
		size_t fit = (size_t)((wd - 6) / 6.5), len = strlen(nd->name);
		struct strbuf sb = STRBUF_INIT;

		if (len > fit)
			strbuf_addf(&sb, "%.*s..", (int)(fit > 2 ? fit - 2 : 0),
				    nd->name);
		else
			strbuf_addstr(&sb, nd->name);
		put(o, "<text x=\"%.1f\" y=\"%.1f\">", x + 3,
		    y + FLAME_ROW - 5);
		esc(o, sb.buf);
		put(o, "</text>");
		strbuf_release(&sb);
	}
	put(o, "</g>\n");
	for (i = nd->child; i != SIZE_MAX; i = fl->c->node[i].next) {
		frame(o, fl, i, x);
		x += fl->c->node[i].incl[fl->w] * FLAME_W;
	}
}

/* The deepest row that holds a frame drawn. */
static int max_depth(const struct report_prof_case *c, int w, double min_w)
{
	size_t i;
	int d = 0;

	for (i = 0; i < c->nnode; i++)
		if (c->node[i].incl[w] * FLAME_W >= min_w &&
		    c->node[i].depth > d)
			d = c->node[i].depth;
	return d;
}

/* The functions the graph cannot show: the base's, where patch has none. */
static void only_base(struct out *o, const struct flame *fl)
{
	const struct report_prof_case *c = fl->c;
	size_t i, n = 0;

	for (i = 0; i < c->nfn; i++) {
		const struct report_prof_fn *f = &c->fn[i];

		if (f->incl[1] > 0 || f->incl[0] * FLAME_W < fl->min_w)
			continue;
		if (!n++) {
			put(o, "<p class=\"flame-gone\">Only on ");
			esc(o, fl->label[0]);
			put(o, " (not drawn: the widths are ");
			esc(o, fl->label[1]);
			put(o, "'s): ");
		} else {
			put(o, ", ");
		}
		put(o, "<span class=\"fn\">");
		esc(o, f->name);
		put(o, "</span> ");
		pct(o, f->incl[0]);
	}
	if (n)
		put(o, " of the call, with children.</p>\n");
}

/* Rows of the table beside a graph: compare --profile's first. */
#define FLAME_TOP	5

static void share_td(struct out *o, double v, bool has)
{
	if (has)
		put(o, "<td class=\"num\">%.1f%%</td>", 100 * v);
	else
		put(o, "<td class=\"num\">-</td>");
}

static void cost_td(struct out *o, const struct flame *fl, double v,
		    double ref, bool sign)
{
	char buf[64];

	if (!isfinite(v) || !fl->unit) {
		put(o, "<td class=\"num\">-</td>");
		return;
	}
	report_value(fabs(v), ref, fl->unit, false, buf, sizeof(buf));
	put(o, "<td class=\"num\">%s", sign ? v < 0 ? "-" : "+" : "");
	esc(o, buf);
	put(o, "</td>");
}

/*
 * The functions whose cost (or share) with children changed most, as
 * compare --profile sorts them: the graph's numbers in a table.
 */
static void top_table(struct out *o, const struct flame *fl)
{
	const struct report_prof_case *c = fl->c;
	size_t i, n = c->nfn < FLAME_TOP ? c->nfn : FLAME_TOP;

	put(o, "<table class=\"flame-top\"><tr><th>function (with "
	    "children)</th><th>");
	esc(o, fl->label[0]);
	put(o, "</th><th>");
	esc(o, fl->label[1]);
	put(o, "</th><th>change</th><th>cost, ");
	esc(o, fl->label[0]);
	put(o, "</th><th>cost, ");
	esc(o, fl->label[1]);
	put(o, "</th><th>change</th></tr>\n");
	for (i = 0; i < n; i++) {
		const struct report_prof_fn *f = &c->fn[i];
		bool a = f->incl[0] > 0, b = f->incl[1] > 0;
		double ref = fmax(fabs(f->cost[0]), fabs(f->cost[1])), d;

		put(o, "<tr><td class=\"fn\">");
		esc(o, f->name);
		put(o, "</td>");
		share_td(o, f->incl[0], a);
		share_td(o, f->incl[1], b);
		d = 100 * (f->incl[1] - f->incl[0]);
		/* no "-0.0": a change that rounds to none is none */
		put(o, "<td class=\"num\">%+.1f pt</td>",
		    fabs(d) < 0.05 ? 0.0 : d);
		cost_td(o, fl, a ? f->cost[0] : NAN, ref, false);
		cost_td(o, fl, b ? f->cost[1] : NAN, ref, false);
		cost_td(o, fl, f->cost[1] - f->cost[0], ref, true);
		put(o, "</tr>\n");
	}
	put(o, "</table>\n");
}

static void flame_svg(struct out *o, struct flame *fl, const char *idp)
{
	const struct report_prof_case *c = fl->c;
	double x = 0;
	size_t i;

	fl->min_w = min_width(c, fl->w, max_frames(fl->p));
	fl->depth = max_depth(c, fl->w, fl->min_w);
	put(o, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" "
	    "class=\"flame\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
	    "font-family=\"monospace\" font-size=\"11\">\n", idp, FLAME_W,
	    (fl->depth + 1) * FLAME_ROW);
	for (i = c->nnode ? c->root : SIZE_MAX; i != SIZE_MAX;
	     i = c->node[i].next) {
		frame(o, fl, i, x);
		x += c->node[i].incl[fl->w] * FLAME_W;
	}
	put(o, "</svg>");
}

/* The largest change of a path drawn, for the colour's scale. */
static double max_change(const struct report_prof_case *c)
{
	double m = 0;
	size_t i;

	for (i = 0; i < c->nnode; i++)
		m = fmax(m, fabs(c->node[i].incl[1] - c->node[i].incl[0]));
	return fmax(m, FLAME_SAT);
}

void html_flame(struct out *o, const struct report_prof *p,
		const struct report_prof_case *c, const char *idp)
{
	struct flame fl = { .p = p, .c = c,
			    .label = { p->label[0], p->label[1] } };
	int k;

	if (!c->s[0].has && !c->s[1].has)
		return;
	fl.w = c->s[1].has ? 1 : 0;
	fl.diff = p->label[1] && c->s[0].has && c->s[1].has;
	fl.unit = c->s[0].median_unit ? c->s[0].median_unit :
		  c->s[1].median_unit;
	fl.sat = max_change(c);
	if (c->few) {
		put(o, "<p class=\"flame-few\">Kernel profile: too few "
		    "samples (");
		for (k = 0; k < 2 && p->label[k]; k++) {
			put(o, "%s", k ? ", " : "");
			esc(o, p->label[k]);
			put(o, " %lld", (long long)c->s[k].samples);
		}
		put(o, "): fewer than %zu a side are not drawn.</p>\n",
		    p->min);
		return;
	}
	put(o, "<figure class=\"flame\">");
	flame_svg(o, &fl, idp);
	put(o, "<figcaption>Kernel profile of the timed call");
	if (fl.diff) {
		put(o, ", a differential flame graph: a frame is a call path "
		    "(outermost at the bottom), as wide as its share of ");
		esc(o, p->label[1]);
		put(o, "'s samples; red where its share grew against ");
		esc(o, p->label[0]);
		put(o, ", blue where it shrank, the deeper the larger (full "
		    "at %.1f points), grey within twice its sampling error; "
		    "hover a frame for its numbers. ", 100 * fl.sat);
	} else {
		put(o, " on ");
		esc(o, p->label[fl.w]);
		put(o, " alone (the other kernel was not profiled): a frame "
		    "is a call path, as wide as its share of the samples. ");
	}
	for (k = 0; k < 2 && p->label[k]; k++) {
		struct strbuf sb = STRBUF_INIT;

		if (!c->s[k].has)
			continue;
		report_prof_side_words(&c->s[k], &sb);
		esc(o, p->label[k]);
		put(o, ": ");
		esc(o, sb.buf);
		put(o, ". ");
		strbuf_release(&sb);
	}
	put(o, "Frames narrower than %.1f%% of the call are left out."
	    "</figcaption></figure>\n", 100 * fl.min_w / FLAME_W);
	if (fl.diff) {
		only_base(o, &fl);
		top_table(o, &fl);
	}
}
