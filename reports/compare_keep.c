/*
 * Which of a label's values a load reads (the series a report shows, and
 * of the others enough to name them), and the runs' series read a run at
 * a time (run_series, run_packs) into the loads of a label.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"
#include "reports/compare_load.h"

/* The metric of a series the report with options o shows, or its sibling. */
static bool shows(const struct report_opts *o, const char *workload,
		  const char *metric, const char *unit)
{
	const char *f = strstr(unit, "/folio");

	if (f && !f[6])
		return true;	/* the per-folio sibling of a row */
	if (o->metrics)
		return cmp_in_list(o->metrics, metric);
	return !o->primary || o->primary(workload, metric);
}

/* The flags of a series in unit u, made (not yet measured) if new. */
static size_t keep_of(struct keep *k, const char *w, const char *p,
		      const char *m, const char *u)
{
	const char *key[] = { w, p, m, u };
	size_t i = strmap_put(&k->map, key, ARRAY_SIZE(key), k->n);

	if (i == k->n) {
		cmp_grow(&k->f, &k->alloc, k->n + 1, sizeof(*k->f));
		k->f[i].shown = shows(k->shown, w, m, u);
		k->n++;
	}
	return i;
}

/* Is a value of series f to be read: every one shown, else the first. */
static bool keep_take(struct keep_flags *f, bool supported)
{
	if (f->shown || !supported)
		return true;
	if (f->measured)
		return false;
	f->measured = true;
	return true;
}

bool cmp_keep_value(const struct db_report_value *v, void *arg)
{
	struct keep *k = arg;
	size_t i = keep_of(k, v->workload, v->params, v->metric, v->unit);

	return keep_take(&k->f[i], v->supported);
}

void cmp_keep_release(struct keep *k)
{
	strmap_release(&k->map);
	free(k->f);
}

/*
 * The place of v in its layout, as the loads know it: the flags of the
 * series it keeps (STRMAP_NONE: not met yet) and the series of each load.
 */
static struct place *place_of(struct series_load *sl,
			      const struct db_report_series *v)
{
	struct layout_seen *y = NULL;
	size_t i, k, nl = sl->ls->n;

	if (!v->npos)
		return NULL;
	if (sl->cur < sl->nlay && sl->lay[sl->cur].id == v->layout &&
	    sl->lay[sl->cur].n == v->npos) {
		y = &sl->lay[sl->cur];
	} else {
		for (i = 0; i < sl->nlay && !y; i++)
			if (sl->lay[i].id == v->layout &&
			    sl->lay[i].n == v->npos)
				y = &sl->lay[i];
		if (!y) {
			cmp_grow(&sl->lay, &sl->lay_alloc, sl->nlay + 1,
				 sizeof(*sl->lay));
			y = &sl->lay[sl->nlay++];
			y->id = v->layout;
			y->n = v->npos;
			y->p = xcalloc(v->npos, sizeof(*y->p));
			y->ser = xcalloc(v->npos * nl, sizeof(*y->ser));
			for (i = 0; i < v->npos; i++) {
				y->p[i].keep = STRMAP_NONE;
				y->p[i].ser = y->ser + i * nl;
				for (k = 0; k < nl; k++)
					y->p[i].ser[k] = STRMAP_NONE;
			}
		}
		sl->cur = (size_t)(y - sl->lay);
	}
	return &y->p[v->pos];
}

void cmp_series_load_release(struct series_load *sl)
{
	size_t i;

	for (i = 0; i < sl->nlay; i++) {
		free(sl->lay[i].p);
		free(sl->lay[i].ser);
	}
	free(sl->lay);
	free(sl->buf);
}

/* How many of v's n measured values a load keeps: all, 1 or none. */
static size_t series_keep(struct series_load *sl, struct place *at,
			  const struct db_report_series *v, size_t n)
{
	struct keep *k = sl->k;
	size_t i;

	if (at && at->keep != STRMAP_NONE) {
		i = at->keep;
	} else {
		i = keep_of(k, v->workload, v->params, v->metric, v->unit);
		if (at)
			at->keep = i;
	}
	if (!keep_take(&k->f[i], true))
		return 0;
	return k->f[i].shown ? n : 1;
}

int cmp_load_series_all(const struct db_report_series *v, void *arg)
{
	struct series_load *sl = arg;
	struct place *at = place_of(sl, v);
	/* one value's words: cmp_load_values names the series by them */
	struct db_report_value one = {
		.run_id = v->run_id, .workload = v->workload,
		.params = v->params, .metric = v->metric, .unit = v->unit,
		.better = v->better, .asked = v->asked,
	};
	bool drop = sl->drop_noisy && v->noisy;
	size_t i, k, n = v->n;
	int64_t unm = v->unmeasurable;
	int r;

	if (drop)
		for (i = 0; i < v->n; i++)
			n -= v->noisy[i] != 0;
	if (sl->drop_noisy)
		unm -= v->unmeasurable_noisy;
	if (sl->k && n)
		n = series_keep(sl, at, v, n);
	if (!n && !unm)
		return 0;
	if (n > sl->alloc) {
		free(sl->buf);
		sl->alloc = n;
		sl->buf = xcalloc(n, sizeof(*sl->buf));
	}
	if (!drop)
		db_report_series_values(v, sl->buf, n);
	for (i = k = 0; drop && k < n; i++)
		if (!v->noisy[i])
			sl->buf[k++] = db_report_series_value(v, i);
	for (i = 0; i < sl->ls->n; i++)
		if ((r = cmp_load_values(&sl->ls->l[i], &one, sl->buf, n,
					 unm != 0, at ? &at->ser[i] : NULL)))
			return r;
	return 0;
}
