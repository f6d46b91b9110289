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

static uint64_t keep_hash(const char *w, const char *p, const char *m,
			  const char *u)
{
	uint64_t h = cmp_hash_str(CMP_FNV_BASIS, w);

	return cmp_hash_str(cmp_hash_str(cmp_hash_str(h, p), m), u);
}

static struct keep_key *keep_slot(struct keep *k, const char *w,
				  const char *p, const char *m, const char *u)
{
	size_t mask = k->size - 1, i;

	for (i = keep_hash(w, p, m, u) & mask; k->k[i].w; i = (i + 1) & mask)
		if (!strcmp(k->k[i].m, m) && !strcmp(k->k[i].p, p) &&
		    !strcmp(k->k[i].w, w) && !strcmp(k->k[i].u, u))
			break;
	return &k->k[i];
}

bool cmp_keep_value(const struct db_report_value *v, void *arg)
{
	struct keep *k = arg;
	struct keep_key *e;
	size_t i;

	if (2 * (k->n + 1) > k->size) {
		struct keep_key *old = k->k;
		size_t n = k->size;

		k->size = n ? 2 * n : 64;
		k->k = xcalloc(k->size, sizeof(*k->k));
		for (i = 0; i < n; i++)
			if (old[i].w)
				*keep_slot(k, old[i].w, old[i].p, old[i].m,
					   old[i].u) = old[i];
		free(old);
	}
	e = keep_slot(k, v->workload, v->params, v->metric, v->unit);
	if (!e->w) {
		e->w = xstrdup(v->workload);
		e->p = xstrdup(v->params);
		e->m = xstrdup(v->metric);
		e->u = xstrdup(v->unit);
		e->shown = shows(k->shown, v->workload, v->metric, v->unit);
		k->n++;
	}
	if (e->shown || !v->supported)
		return true;
	if (e->measured)
		return false;
	e->measured = true;
	return true;
}

void cmp_keep_release(struct keep *k)
{
	size_t i;

	for (i = 0; i < k->size; i++) {
		free(k->k[i].w);
		free(k->k[i].p);
		free(k->k[i].m);
		free(k->k[i].u);
	}
	free(k->k);
}

/*
 * One run's values of one series (run_series) into load l: what cmp_load_value
 * makes of those values one by one: the measured ones kept (want, n) and
 * how many were not measurable (unm).
 */
static int load_series(struct load *l, const struct db_report_series *v,
		       const double *want, size_t n, int64_t unm)
{
	struct report_side *s = l->s;
	struct db_report_value one = {
		.run_id = v->run_id, .workload = v->workload,
		.params = v->params, .metric = v->metric, .unit = v->unit,
		.better = v->better, .asked = v->asked, .supported = false,
	};
	struct report_series *x;
	struct report_boot_vals *bv;
	struct report_run *run;
	struct ser_boots *xb;
	int r;

	run = cmp_find_run(l, v->run_id);
	if (!run)		/* a run of the other half */
		return 0;
	/* creates the series, checks its unit, marks it */
	if (unm && (r = cmp_load_value(&one, l)))
		return r;
	if (n) {
		/* makes the boot's slot */
		one.supported = true;
		one.value = want[0];
		if ((r = cmp_load_value(&one, l)))
			return r;
		want++;
		n--;
	}
	if (!n)
		return 0;
	/* the series cmp_load_value put the first value in */
	x = &s->ser[l->last];
	xb = &l->sb[x - s->ser];
	bv = &x->boots[xb->slot[run->boot] - 1];
	cmp_grow(&bv->v, &bv->alloc, bv->n + n, sizeof(*bv->v));
	memcpy(bv->v + bv->n, want, n * sizeof(*want));
	bv->n += n;
	return 0;
}

void cmp_series_load_release(struct series_load *sl)
{
	size_t i;

	for (i = 0; i < sl->nseen; i++) {
		free(sl->seen[i].w);
		free(sl->seen[i].p);
		free(sl->seen[i].m);
		free(sl->seen[i].u);
	}
	free(sl->seen);
	free(sl->buf);
}

/* How many of v's measured values cmp_keep_value keeps: all, 1 or none. */
static size_t series_keep(struct series_load *sl,
			  const struct db_report_series *v, size_t n)
{
	struct db_report_value kv = {
		.workload = v->workload, .params = v->params,
		.metric = v->metric, .unit = v->unit, .supported = true,
	};
	struct keep_seen *e;
	bool take;

	if (v->run_id != sl->run) {
		sl->run = v->run_id;
		sl->cur = 0;
	}
	e = sl->cur < sl->nseen ? &sl->seen[sl->cur] : NULL;
	if (e && !strcmp(e->m, v->metric) && !strcmp(e->p, v->params) &&
	    !strcmp(e->w, v->workload) && !strcmp(e->u, v->unit)) {
		sl->cur++;
		if (e->shown)
			return n;
		if (e->measured)
			return 0;
	} else {
		if (!e) {
			cmp_grow(&sl->seen, &sl->seen_alloc, sl->nseen + 1,
				 sizeof(*sl->seen));
			e = &sl->seen[sl->nseen++];
		} else {
			free(e->w);
			free(e->p);
			free(e->m);
			free(e->u);
		}
		e->w = xstrdup(v->workload);
		e->p = xstrdup(v->params);
		e->m = xstrdup(v->metric);
		e->u = xstrdup(v->unit);
		sl->cur++;
	}
	/* all of a shown series, else its first measured value */
	take = cmp_keep_value(&kv, sl->k);
	e->shown = keep_slot(sl->k, v->workload, v->params, v->metric,
			     v->unit)->shown;
	e->measured = !e->shown;	/* now, if not before */
	return !take ? 0 : e->shown ? n : 1;
}

int cmp_load_series_all(const struct db_report_series *v, void *arg)
{
	struct series_load *sl = arg;
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
		n = series_keep(sl, v, n);
	if (!n && !unm)
		return 0;
	if (n > sl->alloc) {
		free(sl->buf);
		sl->alloc = n;
		sl->buf = xcalloc(n, sizeof(*sl->buf));
	}
	for (i = k = 0; k < n; i++)
		if (!drop || !v->noisy[i])
			sl->buf[k++] = db_report_series_value(v, i);
	for (i = 0; i < sl->ls->n; i++)
		if ((r = load_series(&sl->ls->l[i], v, sl->buf, n, unm)))
			return r;
	return 0;
}
