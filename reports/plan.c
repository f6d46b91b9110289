/*
 * Boot planning: the history of two labels' boots, the next kernel to
 * boot, and the boots each needs, by the planning arithmetic of compare
 * (report_row_need) on the boot medians recorded so far.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/plan.h"
#include "schema/db_report.h"

struct boot_at {
	char *at;
	int side;
};

struct history {
	struct boot_at *b;
	size_t n, alloc;
	int side;
};

static int add_boot(const char *boot_id, const char *at, void *arg)
{
	struct history *h = arg;

	(void)boot_id;
	ALLOC_GROW(h->b, h->n + 1, h->alloc);
	h->b[h->n].at = xstrdup(at);
	h->b[h->n++].side = h->side;
	return 0;
}

static int by_time(const void *x, const void *y)
{
	const struct boot_at *a = x, *b = y;
	int c = strcmp(a->at, b->at);

	return c ? c : a->side - b->side;
}

int report_plan_next(size_t na, size_t nb, unsigned target)
{
	if (na >= target && nb >= target)
		return -1;
	if (na != nb)
		return na < nb ? 0 : 1;
	return REPORT_PLAN_SEQ[(na + nb) % (sizeof(REPORT_PLAN_SEQ) - 1)] ==
	       'A' ? 0 : 1;
}

/* How many boots each row needs, where both kernels have a spread. */
static int plan_rows(struct db *db, struct report_bootplan *p, double effect,
		     double (*published)(const char *workload),
		     bool (*primary)(const char *, const char *),
		     struct strbuf *err)
{
	struct report_side a, b;
	struct report_opts o = { .primary = primary, .primary_only = true };
	/* the values of the headline rows, of the others what they are */
	struct report_load_opts lo = { .shown = &o };
	struct report_cmp c;
	size_t i;
	int r;

	r = report_side_load_opts(db, p->label[0], &lo, &a, err);
	if (!r)
		r = report_side_load_opts(db, p->label[1], &lo, &b, err);
	else
		memset(&b, 0, sizeof(b));
	/* a count's spread plans nothing for a time (bench compare's rule) */
	if (!r && (a.clock.counted != b.clock.counted ||
		   a.clock.shift != b.clock.shift)) {
		strbuf_addf(err, "refusing to plan %s against %s: ",
			    p->label[0], p->label[1]);
		report_clock_words(&a.clock, err);
		strbuf_addf(err, " beside ");
		report_clock_words(&b.clock, err);
		strbuf_addf(err, " (see bench compare %s %s)", p->label[0],
			    p->label[1]);
		r = REPORT_ECLOCK;
	}
	if (!r)
		r = report_compare(&a, &b, &o, &c);
	else
		memset(&c, 0, sizeof(c));
	if (r)
		goto out;
	p->rows = xcalloc(c.nrows + 1, sizeof(*p->rows));
	for (i = 0; i < c.nrows; i++) {
		const struct report_row *row = &c.rows[i];
		struct report_plan_row *pr;
		double sp;

		if (!row->a || !row->b || row->within)
			continue;
		pr = &p->rows[p->nrows];
		pr->effect = isnan(effect) && published ?
			     published(row->a->workload) : effect;
		sp = report_row_pooled_sd(row);
		pr->sd_pct = row->a->mean ? 100 * sp / fabs(row->a->mean) :
			     NAN;
		pr->need = isnan(pr->effect) ? -1 :
			   report_row_need(row, pr->effect);
		{
			struct strbuf sb = STRBUF_INIT;

			/* a table of one workload leaves it out of the rows */
			if (strncmp(row->name, row->a->workload,
				    strlen(row->a->workload)))
				strbuf_addf(&sb, "%s ", row->a->workload);
			strbuf_addf(&sb, "%s", row->name);
			pr->name = strbuf_detach(&sb, NULL);
		}
		p->nrows++;
		if (pr->need > p->need_max)
			p->need_max = pr->need;
	}
out:
	report_cmp_release(&c);
	report_side_release(&a);
	report_side_release(&b);
	return r;
}

int report_plan(struct db *db, const char *base, const char *patch,
		unsigned target, double effect,
		double (*published)(const char *workload),
		bool (*primary)(const char *workload, const char *metric),
		struct report_bootplan *p, struct strbuf *err)
{
	struct history h = { 0 };
	size_t i;
	int r = 0;

	memset(p, 0, sizeof(*p));
	p->label[0] = base;
	p->label[1] = patch;
	p->target = target;
	p->need_max = -1;
	for (h.side = 0; db && h.side < 2 && !r; h.side++)
		r = db_report_boots_each(db, p->label[h.side], add_boot, &h);
	r = report_db_status(db, r, err);
	if (r)
		goto out;
	if (h.n)
		qsort(h.b, h.n, sizeof(*h.b), by_time);
	p->order = xcalloc(h.n + 1, 1);
	for (i = 0; i < h.n; i++) {
		p->order[i] = h.b[i].side ? 'B' : 'A';
		p->boots[h.b[i].side]++;
	}
	p->next = report_plan_next(p->boots[0], p->boots[1], target);
	if (p->boots[0] >= 2 && p->boots[1] >= 2)
		r = plan_rows(db, p, effect, published, primary, err);
out:
	for (i = 0; i < h.n; i++)
		free(h.b[i].at);
	free(h.b);
	return r;
}

void report_plan_release(struct report_bootplan *p)
{
	size_t i;

	for (i = 0; i < p->nrows; i++)
		free(p->rows[i].name);
	free(p->rows);
	free(p->order);
	memset(p, 0, sizeof(*p));
}
