/*
 * The cells of a comparison's row as the human formats (and the HTML
 * page) print them: values in a shared scale, changes, p, CIs, verdicts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

void fmt_pct(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f%%", v);
}

void fmt_p(double p, char *buf, size_t n)
{
	if (isnan(p))
		snprintf(buf, n, "-");
	else if (p < 0.001)
		snprintf(buf, n, "<0.001");
	else
		snprintf(buf, n, "%.2g", p);
}

/* The raw p and Holm's beside it: "0.61 (1)", so a capped 1 is not read
 * as "identical". */
void fmt_p_holm(double p, double adj, char *buf, size_t n)
{
	char a[16], b[16];

	if (isnan(p)) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_p(p, a, sizeof(a));
	fmt_p(adj, b, sizeof(b));
	snprintf(buf, n, "%s (%s)", a, b);
}

/* Neither kernel's values vary: an interval of width 0 says nothing. */
static bool fmt_no_spread(const struct report_row *r)
{
	return r->a && r->b && r->sda == 0 && r->sdb == 0;
}

void fmt_ci(const struct report_row *r, char *buf, size_t n)
{
	if (isnan(r->p) && r->untested)
		snprintf(buf, n, "-");
	else if (fmt_no_spread(r))
		snprintf(buf, n, "no spread");
	else if (isnan(r->p))
		snprintf(buf, n, "-");
	else if (isnan(r->ci_lo))
		snprintf(buf, n, "unbounded");
	else
		snprintf(buf, n, "[%+.1f, %+.1f]", r->ci_lo, r->ci_hi);
}

/* The spread as a percentage of the value. */
void fmt_sd(double sd, double mean, char *buf, size_t n)
{
	if (isnan(sd) || isnan(mean) || mean == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * sd / fabs(mean));
}

const struct report_series *fmt_ser(const struct report_row *r)
{
	return r->a ? r->a : r->b;
}

/* Both sides in one unit and precision, so the columns read alike. */
static void fmt_row_scale(const struct report_row *r, bool ascii,
		      struct report_scale *sc)
{
	double v[2] = { r->a ? r->va : NAN, r->b ? r->vb : NAN };

	report_scale(v, 2, fmt_ser(r)->unit, ascii, sc);
}

/* The value a row compares on one side (r->va or r->vb). */
void fmt_val(const struct report_row *r, const struct report_series *x,
	     double v, bool ascii, char *buf, size_t n)
{
	struct report_scale sc;

	if (!x) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_row_scale(r, ascii, &sc);
	report_scaled(v, &sc, buf, n);
}

/* The change per folio, "-15.2 ns/folio"; empty where there is none. */
void fmt_folio(const struct report_row *r, bool ascii, char *buf,
	       size_t n)
{
	char v[64];
	double ref;

	if (isnan(r->delta_folio)) {
		buf[0] = '\0';
		return;
	}
	/* scaled by itself: a change of 4 ns reads "4.00 ns", not "0.00 µs" */
	ref = fabs(r->delta_folio);
	report_value(ref, ref, r->fa->unit, ascii, v, sizeof(v));
	snprintf(buf, n, "%s%s", r->delta_folio < 0 ? "-" : "+", v);
}

/* The verdict column: "faster", "~", "base only". */
void fmt_mark(const struct report_cmp *c, const struct report_row *r,
	      char *buf, size_t n)
{
	if (!r->a || !r->b) {
		snprintf(buf, n, "only %s", r->a ? "base" : "patch");
	} else if (r->untested) {
		snprintf(buf, n, "(%s)", r->untested);
	} else if (isnan(r->p)) {
		snprintf(buf, n, "(no test)");
	} else if (r->sig) {
		snprintf(buf, n, "%s", report_dir_word(r));
	} else {
		snprintf(buf, n, "~");
	}
	(void)c;
}

/* The geometric mean has no test of its own: its cell says so. */
void fmt_geo_mark(const struct report_cmp *c, char *buf, size_t n)
{
	snprintf(buf, n, "(untested)");
	(void)c;
}

/* "5" when both kernels have as many boots, else "5/2"; "-" absent. */
void fmt_boots(const struct report_cmp *c, const struct report_row *r,
	       char *buf, size_t n)
{
	char a[16], b[16];

	if (!c->b) {
		snprintf(buf, n, "%zu", r->a->nboots);
		return;
	}
	snprintf(a, sizeof(a), "%zu", r->a ? r->a->nboots : 0);
	snprintf(b, sizeof(b), "%zu", r->b ? r->b->nboots : 0);
	if (r->a && r->b && r->a->nboots == r->b->nboots)
		snprintf(buf, n, "%s", a);
	else
		snprintf(buf, n, "%s/%s", r->a ? a : "-", r->b ? b : "-");
}


/* "lo to hi": the 95% CI of one kernel's value, or "-" */
void fmt_ci_mean(const struct report_row *r, char *ci, size_t n)
{
	double v[3] = { r->va, r->ci_mean_lo, r->ci_mean_hi };
	struct report_scale sc;
	char lo[48], hi[48];

	if (isnan(r->ci_mean_lo)) {
		snprintf(ci, n, "-");
		return;
	}
	report_scale(v, 3, r->a->unit, false, &sc);
	report_scaled(r->ci_mean_lo, &sc, lo, sizeof(lo));
	report_scaled(r->ci_mean_hi, &sc, hi, sizeof(hi));
	snprintf(ci, n, "%s to %s", lo, hi);
}

void fmt_row_cells(const struct report_cmp *c, const struct report_row *r,
		   bool ascii, struct row_cells *x)
{
	fmt_val(r, r->a, r->va, ascii, x->a, sizeof(x->a));
	fmt_val(r, r->b, r->vb, ascii, x->b, sizeof(x->b));
	fmt_sd(r->sda, r->va, x->sa, sizeof(x->sa));
	fmt_sd(r->sdb, r->vb, x->sb, sizeof(x->sb));
	fmt_pct(r->delta, x->d, sizeof(x->d));
	fmt_ci(r, x->ci, sizeof(x->ci));
	fmt_p_holm(r->p, r->p_adj, x->p, sizeof(x->p));
	fmt_p_holm(r->p_mw, r->p_mw_adj, x->pm, sizeof(x->pm));
	fmt_mark(c, r, x->m, sizeof(x->m));
	fmt_folio(r, ascii, x->pf, sizeof(x->pf));
	x->nb[0] = '\0';
	if (c->boots_vary)
		fmt_boots(c, r, x->nb, sizeof(x->nb));
}

void fmt_alone_cells(const struct report_row *r, struct alone_cells *x)
{
	const struct report_series *a = r->a;

	report_value(r->va, r->va, a->unit, false, x->v, sizeof(x->v));
	fmt_sd(r->spread, r->va, x->sd, sizeof(x->sd));
	fmt_ci_mean(r, x->ci, sizeof(x->ci));
	snprintf(x->nb, sizeof(x->nb), "%zu", a->nboots);
	if (a->runs_min == a->runs_max)
		snprintf(x->runs, sizeof(x->runs), "%zu", a->runs_max);
	else
		snprintf(x->runs, sizeof(x->runs), "%zu-%zu", a->runs_min,
			 a->runs_max);
}
