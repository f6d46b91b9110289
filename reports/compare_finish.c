/*
 * A side of a comparison once its values are loaded: each series' params
 * decoded, its values in the units of the side's clock, each boot's median
 * and the summaries compare.c tests.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"
#include "reports/compare_load.h"

/*
 * A counted side's series in the units of its clock: a time becomes the
 * guest instructions it counts, with its values (report_clock_unit).
 */
static void series_clock(struct report_series *x,
			 const struct report_clock *ck)
{
	char unit[64];
	double f = report_clock_unit(ck, x->unit, unit, sizeof(unit));
	size_t i, k;

	if (!strcmp(unit, x->unit) && f == 1)
		return;
	free(x->unit);
	x->unit = xstrdup(unit);
	for (i = 0; i < x->nboots; i++)
		for (k = 0; k < x->boots[i].n; k++)
			x->boots[i].v[k] *= f;
}

struct kv_load {
	struct report_series *x;
	size_t alloc;
};

/* A value asked for: kept beside the value that ran, where they differ. */
static int load_asked(const char *key, const char *value, void *arg)
{
	struct report_series *x = arg;
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key) && strcmp(x->kv[i].value, value)
		    && !x->kv[i].asked)
			x->kv[i].asked = xstrdup(value);
	return 0;
}

static int load_kv(const char *key, const char *value, void *arg)
{
	struct kv_load *k = arg;
	struct report_kv *kv;

	cmp_grow(&k->x->kv, &k->alloc, k->x->nkv + 1, sizeof(*k->x->kv));
	kv = &k->x->kv[k->x->nkv++];
	kv->key = xstrdup(key);
	kv->value = xstrdup(value);
	return 0;
}

/* Medians of each boot, their mean and spread, every value in one array. */
static int summarize_series(struct report_series *x)
{
	size_t i, k = 0;

	x->mean = x->sd = x->run_mean = x->run_sd = NAN;
	if (!x->nboots)
		return 0;
	x->med = xcalloc(x->nboots, sizeof(*x->med));
	for (i = 0; i < x->nboots; i++)
		x->nall += x->boots[i].n;
	x->all = xcalloc(x->nall, sizeof(*x->all));
	x->runs_min = SIZE_MAX;
	for (i = 0; i < x->nboots; i++) {
		struct report_boot_vals *b = &x->boots[i];

		x->med[i] = stats_median(b->v, b->n);
		memcpy(x->all + k, b->v, b->n * sizeof(*b->v));
		k += b->n;
		if (b->n < x->runs_min)
			x->runs_min = b->n;
		if (b->n > x->runs_max)
			x->runs_max = b->n;
	}
	x->mean = stats_mean(x->med, x->nboots);
	x->sd = stats_sd(x->med, x->nboots);
	x->run_mean = stats_mean(x->all, x->nall);
	x->run_sd = stats_sd(x->all, x->nall);
	return 0;
}

/* The params of each series, decoded, and the summary of its values. */
int cmp_side_finish(struct load *l, const char *label)
{
	struct db *db = l->db;
	struct report_side *s = l->s;
	struct strbuf *err = l->err;
	size_t i;
	int r;

	for (i = 0; i < s->nser; i++) {
		struct kv_load k = { .x = &s->ser[i] };

		r = db_report_params_each(db, s->ser[i].params, load_kv, &k);
		if (r == DB_ERR) {
			strbuf_addf(err, "case %s of label '%s' has params "
				    "that are not a JSON object: %s",
				    s->ser[i].workload, label,
				    s->ser[i].params);
			return REPORT_EDATA;
		}
		if (r)
			return report_db_status(db, r, err);
		series_clock(&s->ser[i], &s->clock);
		if (s->ser[i].asked) {
			r = db_report_params_each(db, s->ser[i].asked,
						  load_asked, &s->ser[i]);
			if (r == DB_ERR) {
				strbuf_addf(err, "case %s of label '%s' has "
					    "asked params that are not a JSON "
					    "object: %s", s->ser[i].workload,
					    label, s->ser[i].asked);
				return REPORT_EDATA;
			}
			if (r)
				return report_db_status(db, r, err);
		}
		r = summarize_series(&s->ser[i]);
		if (r)
			return r;
	}
	return 0;
}
