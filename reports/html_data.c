/*
 * The data of the HTML page: the comparison, each side alone, and the
 * invalid samples and noisy counts of each side's runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html_priv.h"
#include "schema/db_report.h"

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
			r = report_side_noisy(db, p->side[i], &p->noisy[i],
					      &p->nvalid[i]);
		if (r)
			return report_db_status(db, r, err);
	}
	return report_prof_load(db, &p->cmp, REPORT_PROF_MIN, REPORT_PROF_TOP,
				&p->prof, err);
}

void report_page_release(struct report_page *p)
{
	size_t i, k;

	report_cmp_release(&p->cmp);
	report_prof_release(&p->prof);
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
