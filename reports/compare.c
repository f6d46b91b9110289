/*
 * Compare two kernels, or describe one: the rows of the two sides' series,
 * each row's tests on the boot medians, Holm's family, the geometric mean.
 * Loading a side is compare_load.c's, the words compare_words.c's, what
 * differs besides the kernel compare_meta.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"

/*
 * Make room for need elements of size bytes in *p, as ALLOC_GROW grows, the
 * new ones zeroed (the loaders rely on it).
 */
void cmp_grow(void *pp, size_t *alloc, size_t need, size_t size)
{
	void **p = pp;
	size_t n = alloc_nr(*alloc);

	if (need <= *alloc)
		return;
	if (n < need)
		n = need;
	*p = xreallocarray(*p, n, size);
	memset((char *)*p + *alloc * size, 0, (n - *alloc) * size);
	*alloc = n;
}

/* A growable list of strings. */
void cmp_list_add(char ***list, size_t *n, size_t *alloc, const char *s)
{
	cmp_grow(list, alloc, *n + 1, sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

void cmp_list_free(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static void row_tests(struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	struct stats_summary sa, sb;
	struct stats_welch w;
	struct stats_mwu m;
	const double *ua, *ub;

	r->p = r->p_adj = r->p_mw = r->p_mw_adj = r->df = NAN;
	r->ci_lo = r->ci_hi = r->mde = NAN;
	/* of the same means that Welch and Fieller judge (row_values) */
	r->delta = r->va != 0 ? 100 * (r->vb / r->va - 1) : NAN;
	if (r->untested)
		return;
	if (!r->within) {
		ua = a->med;
		r->na = a->nboots;
		ub = b->med;
		r->nb = b->nboots;
	} else {
		/* A single boot has no boot-to-boot spread: use its runs. */
		ua = a->all;
		r->na = a->nall;
		ub = b->all;
		r->nb = b->nall;
	}
	stats_summarize(ua, r->na, &sa);
	stats_summarize(ub, r->nb, &sb);
	if (!stats_welch(&sa, &sb, &w)) {
		r->p = w.p;
		r->df = w.df;
		stats_delta_ci(&sa, &sb, REPORT_CONF, &r->ci_lo, &r->ci_hi);
	}
	if (r->na >= REPORT_MWU_MIN && r->nb >= REPORT_MWU_MIN &&
	    !stats_mwu(ua, r->na, ub, r->nb, &m)) {
		r->p_mw = m.p;
		r->mw_exact = m.exact;
	}
}

double report_row_pooled_sd(const struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	double va, vb;

	if (!a || !b || a->nboots < 2 || b->nboots < 2)
		return NAN;
	va = stats_var(a->med, a->nboots);
	vb = stats_var(b->med, b->nboots);
	return sqrt(((a->nboots - 1) * va + (b->nboots - 1) * vb) /
		    (a->nboots + b->nboots - 2));
}

long report_row_need(const struct report_row *r, double effect_pct)
{
	double sp = report_row_pooled_sd(r);

	if (isnan(sp) || r->a->mean == 0 || sp == 0)
		return -1;
	return stats_n_needed(sp, effect_pct / 100 * fabs(r->a->mean),
			      REPORT_ALPHA, REPORT_POWER, REPORT_NEED_CAP);
}

/*
 * What the current boots can detect, and how many the change seen needs,
 * at the level the verdict needs: alpha over the rows of the row's Holm
 * family, the strictest step of Holm, which a row that passes it passes
 * whatever the other rows show.  Rows that cannot be planned say why.
 */
static void row_plan(struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	double sp;

	r->need = -1;
	r->mde = NAN;
	r->plan = PLAN_NONE;
	if (!a || !b || r->sig || r->untested || isnan(r->p) || a->mean == 0)
		return;
	if (r->within) {
		r->plan = PLAN_ONE_BOOT;
		return;
	}
	sp = report_row_pooled_sd(r);
	if (sp == 0) {
		r->plan = PLAN_NO_SPREAD;
		return;
	}
	r->plan = PLAN_OK;
	r->plan_alpha = REPORT_ALPHA / (double)(r->family ? r->family : 1);
	r->mde = 100 * stats_mde(sp, a->nboots, b->nboots, r->plan_alpha,
				 REPORT_POWER) / fabs(a->mean);
	r->need = stats_n_needed(sp, b->mean - a->mean, r->plan_alpha,
				 REPORT_POWER, REPORT_NEED_CAP);
}

/* Is every value of x equal to v? */
static bool all_equal(const struct report_series *x, double v)
{
	size_t i;

	for (i = 0; i < x->nall; i++)
		if (x->all[i] != v)
			return false;
	return x->nall > 0;
}

/* Rows with nothing to test: counts of the input, and constants. */
static void row_untested(struct report_row *r, const struct report_opts *o)
{
	const struct report_series *x = row_ser(r);

	r->untested = NULL;
	if (!r->a || !r->b)
		return;
	if (o->input && o->input(x->workload, x->metric))
		r->untested = "input";
	else if (r->a->nall && all_equal(r->a, r->a->all[0]) &&
		 all_equal(r->b, r->a->all[0]))
		r->untested = "constant";
}

static void row_export(struct report_row *r)
{
	const struct report_series *a = r->a;
	double t, sd;
	size_t n;

	r->p = r->p_adj = r->p_mw = r->p_mw_adj = r->df = NAN;
	r->ci_lo = r->ci_hi = r->mde = r->delta = NAN;
	r->need = -1;
	/* one boot: the value is the mean of its runs, as its CI is */
	sd = r->sda;
	n = r->within ? a->nall : a->nboots;
	r->na = n;
	r->spread = sd;
	r->ci_mean_lo = r->ci_mean_hi = NAN;
	if (n >= 2 && !isnan(sd)) {
		t = stats_t_quantile((1 + REPORT_CONF) / 2, n - 1);
		r->ci_mean_lo = r->va - t * sd / sqrt(n);
		r->ci_mean_hi = r->va + t * sd / sqrt(n);
	}
}

static int add_row(struct report_cmp *c, struct cmp_build *cb,
		   const struct report_series *a,
		   const struct report_series *b)
{
	struct report_row *r;

	cmp_grow(&c->rows, &cb->rows_alloc, c->nrows + 1, sizeof(*c->rows));
	r = &c->rows[c->nrows++];
	r->a = a;
	r->b = b;
	return 0;
}

static int add_unmeasurable(struct report_cmp *c, struct cmp_build *cb,
			    const struct report_series *x)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "%s %s", x->workload, x->metric);
	for (i = 0; i < c->nunmeasurable; i++)
		if (!strcmp(c->unmeasurable[i], strbuf_str(&sb))) {
			strbuf_release(&sb);
			return 0;
		}
	cmp_list_add(&c->unmeasurable, &c->nunmeasurable, &cb->unm_alloc,
		 strbuf_str(&sb));
	strbuf_release(&sb);
	return 0;
}

static const struct report_series *match(const struct report_side *s,
					 const struct report_series *x)
{
	size_t i;

	for (i = 0; i < s->nser; i++)
		if (!strcmp(s->ser[i].workload, x->workload) &&
		    !strcmp(s->ser[i].params, x->params) &&
		    !strcmp(s->ser[i].metric, x->metric) &&
		    !strcmp(s->ser[i].unit, x->unit))
			return &s->ser[i];
	return NULL;
}

/* Is name one of the comma-separated names of list? */
bool cmp_in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static bool is_primary(const struct report_opts *o,
		       const struct report_series *x)
{
	if (o->metrics)
		return cmp_in_list(o->metrics, x->metric);
	return !o->primary || o->primary(x->workload, x->metric);
}

/* The metric of the same case measured per folio ("ns/folio"). */
static const struct report_series *folio_sibling(const struct report_side *s,
						 const struct report_series *x)
{
	size_t i;

	for (i = 0; i < s->nser; i++) {
		const struct report_series *y = &s->ser[i];
		const char *u = strstr(y->unit, "/folio");

		if (y != x && y->nboots && u && !u[6] &&
		    !strcmp(y->workload, x->workload) &&
		    !strcmp(y->params, x->params))
			return y;
	}
	return NULL;
}

static double series_value(const struct report_series *x, bool within)
{
	return !x ? NAN : within ? x->run_mean : x->mean;
}

/*
 * What a row shows and compares: the mean of the boot medians, or, where a
 * kernel has a single boot, the mean of the runs on both sides, because
 * the tests then stand on the runs and a change of medians could fall
 * outside its own interval (one boot of 55 fast runs and 45 slow ones has
 * a fast median and a slow mean).
 */
static void row_values(struct report_row *r)
{
	r->within = (r->a && r->a->nboots < 2) || (r->b && r->b->nboots < 2);
	r->va = series_value(r->a, r->within);
	r->vb = series_value(r->b, r->within);
	r->sda = !r->a ? NAN : r->within ? r->a->run_sd : r->a->sd;
	r->sdb = !r->b ? NAN : r->within ? r->b->run_sd : r->b->sd;
}

static int build_rows(struct report_cmp *c, struct cmp_build *cb,
		      const struct report_opts *o)
{
	const struct report_series *a, *b;
	size_t i;
	int r;

	for (i = 0; i < c->a->nser; i++) {
		a = &c->a->ser[i];
		b = c->b ? match(c->b, a) : NULL;
		if (!a->nboots && (!c->b || !b || !b->nboots)) {
			if (a->unmeasurable &&
			    (r = add_unmeasurable(c, cb, a)))
				return r;
			continue;
		}
		if (o->primary_only && !is_primary(o, a))
			continue;
		r = add_row(c, cb, a->nboots ? a : NULL,
			    b && b->nboots ? b : NULL);
		if (r)
			return r;
	}
	for (i = 0; c->b && i < c->b->nser; i++) {
		b = &c->b->ser[i];
		a = match(c->a, b);
		if (a)
			continue;	/* paired above */
		if (!b->nboots) {
			if (b->unmeasurable &&
			    (r = add_unmeasurable(c, cb, b)))
				return r;
			continue;
		}
		if (o->primary_only && !is_primary(o, b))
			continue;
		if ((r = add_row(c, cb, NULL, b)))
			return r;
	}
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->primary = is_primary(o, row_ser(row));
		row_values(row);
		c->nwithin += row->within;
		row->delta_folio = NAN;
		/* a time per case gets the same time per folio beside it */
		if (strcmp(row_ser(row)->unit, "ns") &&
		    strcmp(row_ser(row)->unit, "instr"))
			continue;
		row->fa = row->a ? folio_sibling(c->a, row->a) : NULL;
		row->fb = row->b ? folio_sibling(c->b, row->b) : NULL;
		if (row->fa && row->fb)
			row->delta_folio = series_value(row->fb, row->within) -
					   series_value(row->fa, row->within);
	}
	for (i = 0; i < c->nrows; i++) {
		const char *w = row_ser(&c->rows[i])->workload;

		if (!i)
			c->workload = w;
		else if (c->workload && strcmp(c->workload, w))
			c->workload = NULL;
	}
	return 0;
}

int cmp_warnf(struct report_cmp *c, struct cmp_build *cb,
		 const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cmp_list_add(&c->warn, &c->nwarn, &cb->warn_alloc, buf);
	return 0;
}

/*
 * Over the headline metrics: wall time and time per folio of one case are
 * one result, and counting it twice would weigh it twice.
 */
static void geomean(struct report_cmp *c)
{
	bool lower = false, higher = false;
	double s = 0, ratio;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		if (!c->rows[i].a || !c->rows[i].b || !c->rows[i].primary)
			continue;
		if (c->rows[i].a->higher)
			higher = true;
		else
			lower = true;
	}
	/* Mixed directions: invert higher-is-better ratios into costs. */
	c->geo_cost = lower && higher;
	c->geo_speed = true;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!r->a || !r->b || !r->primary || !(r->va > 0) ||
		    !(r->vb > 0))
			continue;
		ratio = r->vb / r->va;
		if (c->geo_cost && r->a->higher)
			ratio = 1 / ratio;
		s += log(ratio);
		c->geo_n++;
		c->geo_speed &= report_unit_speed(r->a->unit, r->a->higher);
	}
	c->geo = c->geo_n ? 100 * (exp(s / c->geo_n) - 1) : NAN;
	/* a cost, or every row lower-is-better: below zero is better */
	if (c->geo_n && c->geo != 0)
		c->geo_dir = (c->geo < 0) == (c->geo_cost || lower) ? 1 : -1;
}

/*
 * Holm over one family: the headline metrics, or the other metrics (which
 * only the machine formats carry).  A table of headline metrics then shows
 * the same adjusted p in every format.
 */
static int holm_family(struct report_cmp *c, double *p, double *pm,
		       bool primary)
{
	double *fp, *fm;
	size_t i, n = 0;

	fp = xcalloc(c->nrows + 1, sizeof(*fp));
	fm = xcalloc(c->nrows + 1, sizeof(*fm));
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].primary == primary) {
			fp[n] = p[i];
			fm[n++] = pm[i];
		}
	stats_holm(fp, n, fp);
	stats_holm(fm, n, fm);
	for (i = n = 0; i < c->nrows; i++)
		if (c->rows[i].primary == primary) {
			c->rows[i].p_adj = fp[n];
			c->rows[i].p_mw_adj = fm[n++];
		}
	free(fp);
	free(fm);
	return 0;
}

/*
 * Do the rows differ in their boots?  Rows measured on both kernels are
 * what the method sentence describes; a table of one-sided rows only is
 * judged on those.
 */
static void boots_vary(struct report_cmp *c)
{
	size_t i, ba = 0, bb = 0;
	bool both = false, first = true;

	for (i = 0; i < c->nrows; i++)
		both |= c->rows[i].a && c->rows[i].b;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];
		size_t na = r->a ? r->a->nboots : 0;
		size_t nb = r->b ? r->b->nboots : 0;

		if (both && !(r->a && r->b))
			continue;
		if (first) {
			ba = na;
			bb = nb;
			first = false;
		} else if (na != ba || nb != bb) {
			c->boots_vary = true;
		}
	}
}

/* The fewest and most runs a boot and boots a row stands on. */
static void rows_extent(struct report_cmp *c)
{
	size_t i;
	int k;

	c->runs_min = SIZE_MAX;
	c->boots_min = SIZE_MAX;
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x[2] = { c->rows[i].a,
						     c->rows[i].b };

		for (k = 0; k < 2; k++) {
			if (!x[k])
				continue;
			if (x[k]->runs_min < c->runs_min)
				c->runs_min = x[k]->runs_min;
			if (x[k]->runs_max > c->runs_max)
				c->runs_max = x[k]->runs_max;
			if (x[k]->nboots < c->boots_min)
				c->boots_min = x[k]->nboots;
			if (x[k]->nboots > c->boots_max)
				c->boots_max = x[k]->nboots;
		}
	}
	if (!c->nrows)
		c->runs_min = c->boots_min = 0;
}

/* Each row tested where both sides have it; p and pm its p-values. */
static void rows_test(struct report_cmp *c, const struct report_opts *o,
		      double *p, double *pm)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->p = row->p_mw = row->delta = NAN;
		row->ci_lo = row->ci_hi = row->mde = row->df = NAN;
		row->need = -1;
		row_untested(row, o);
		if (row->a && row->b)
			row_tests(row);
		p[i] = row->p;
		pm[i] = row->p_mw;
		if (!row->primary) {
			c->ntested_other += !isnan(row->p);
			c->nmw_other += !isnan(row->p_mw);
			continue;
		}
		c->ntested += !isnan(row->p);
		c->nmw += !isnan(row->p_mw);
		c->nsig_raw += row->p < REPORT_ALPHA;
	}
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		if (!isnan(row->p))
			row->family = row->primary ? c->ntested :
				      c->ntested_other;
	}
}

/* After Holm: which rows changed, which way, and the boots a plan needs. */
static void rows_judge(struct report_cmp *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->sig = row->p_adj < REPORT_ALPHA;
		c->nsig += row->sig && row->primary;
		if (row->sig)
			row->dir = (row->vb < row->va) != row->a->higher ?
				   1 : -1;
		row_plan(row);
	}
}

int report_compare(struct report_side *a, struct report_side *b,
		   const struct report_opts *o, struct report_cmp *c)
{
	struct cmp_build cb = { 0 };
	double *p = NULL, *pm = NULL;
	size_t i, kw_alloc = 0;
	int r;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->aa = o->aa;
	c->words = o->words;
	r = build_rows(c, &cb, o);
	if (r)
		return r;
	rows_extent(c);
	boots_vary(c);
	if ((r = cmp_name_rows(c)) || (r = cmp_build_phrase(c)) ||
	    (r = cmp_build_method(c)))
		return r;
	if ((r = cmp_kernel_warnings(c, &kw_alloc, a)) ||
	    (b && (r = cmp_kernel_warnings(c, &kw_alloc, b))))
		return r;
	if (!b) {
		for (i = 0; i < c->nrows; i++)
			row_export(&c->rows[i]);
		return 0;
	}
	p = xcalloc(c->nrows + 1, sizeof(*p));
	pm = xcalloc(c->nrows + 1, sizeof(*pm));
	rows_test(c, o, p, pm);
	if ((r = holm_family(c, p, pm, true)) ||
	    (r = holm_family(c, p, pm, false)))
		goto out;
	rows_judge(c);
	geomean(c);
	r = cmp_diff_meta(c, &cb);
	if (!r)
		r = cmp_diff_cases(c, &cb);
out:
	free(p);
	free(pm);
	return r;
}

void report_cmp_release(struct report_cmp *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		free(c->rows[i].name);
		free(c->rows[i].words);
	}
	free(c->rows);
	cmp_list_free(c->warn, c->nwarn);
	cmp_list_free(c->kwarn, c->nkwarn);
	cmp_list_free(c->unmeasurable, c->nunmeasurable);
	free(c->method);
	free(c->phrase);
	memset(c, 0, sizeof(*c));
}
