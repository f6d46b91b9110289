/*
 * `compare --per-worker`: the spread across the workers of parallel cases,
 * each worker's own wall time as a median over the samples of each side.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"

struct wvals {
	double *v;
	size_t n, alloc;
	int pu;			/* -1: none yet, -2: more than one */
};

struct wrow {
	char *workload, *params;
	int worker;
	struct wvals side[2];
};

struct wtab {
	struct wrow *rows;
	size_t n, alloc;
	int side;
};

static struct wrow *find_row(struct wtab *t, const struct db_report_worker *w)
{
	struct wrow *r;
	size_t i;

	for (i = 0; i < t->n; i++) {
		r = &t->rows[i];
		if (r->worker == w->worker && !strcmp(r->params, w->params) &&
		    !strcmp(r->workload, w->workload))
			return r;
	}
	ALLOC_GROW(t->rows, t->n + 1, t->alloc);
	r = &t->rows[t->n];
	memset(r, 0, sizeof(*r));
	r->workload = xstrdup(w->workload);
	r->params = xstrdup(w->params);
	r->worker = w->worker;
	r->side[0].pu = r->side[1].pu = -1;
	t->n++;
	return r;
}

static int add_worker(const struct db_report_worker *w, void *arg)
{
	struct wtab *t = arg;
	struct wrow *r;
	struct wvals *v;

	if (w->workers < 2)
		return 0;	/* one worker has no spread */
	r = find_row(t, w);
	v = &r->side[t->side];
	ALLOC_GROW(v->v, v->n + 1, v->alloc);
	v->v[v->n++] = (double)w->wall_ns;
	v->pu = v->pu == -1 || v->pu == w->pu ? w->pu : -2;
	return 0;
}

static int add_param(const char *key, const char *value, void *arg)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, " %s=%s", key, value);
	return 0;
}

static void fmt_pu(int pu, char *buf, size_t n)
{
	if (pu == -2)
		snprintf(buf, n, "mixed");
	else if (pu < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%d", pu);
}

static double median_of(const struct wvals *v)
{
	return v->n ? stats_median(v->v, v->n) : NAN;
}

/* Slowest over fastest worker median of one case on one side. */
static double spread(const struct wtab *t, size_t first, size_t end, int s)
{
	double lo = INFINITY, hi = 0, m;
	size_t i;

	for (i = first; i < end; i++) {
		m = median_of(&t->rows[i].side[s]);
		if (!isfinite(m))
			continue;
		lo = fmin(lo, m);
		hi = fmax(hi, m);
	}
	return lo > 0 && isfinite(lo) ? hi / lo : NAN;
}

static void print_case(FILE *f, struct db *db, const struct wtab *t,
		       size_t first, size_t end, const char *a, const char *b,
		       const struct report_clock *ck)
{
	char unit[64];
	double k = report_clock_unit(ck, "ns", unit, sizeof(unit));
	struct strbuf title = STRBUF_INIT;
	char va[48], vb[48], pa[16], pb[16];
	double sa, sb;
	size_t i;

	db_report_params_each(db, t->rows[first].params, add_param, &title);
	fprintf(f, "\n%s%s\n", t->rows[first].workload, strbuf_str(&title));
	fprintf(f, "  %-6s %5s %12s %5s %12s\n", "worker", "PU", a, "PU", b);
	for (i = first; i < end; i++) {
		const struct wrow *r = &t->rows[i];
		double ma = median_of(&r->side[0]) * k;
		double mb = median_of(&r->side[1]) * k;

		report_value(ma, ma, unit, false, va, sizeof(va));
		report_value(mb, mb, unit, false, vb, sizeof(vb));
		fmt_pu(r->side[0].pu, pa, sizeof(pa));
		fmt_pu(r->side[1].pu, pb, sizeof(pb));
		fprintf(f, "  %-6d %5s %12s %5s %12s\n", r->worker, pa,
			isfinite(ma) ? va : "-", pb, isfinite(mb) ? vb : "-");
	}
	sa = spread(t, first, end, 0);
	sb = spread(t, first, end, 1);
	snprintf(va, sizeof(va), isfinite(sa) ? "%.3f" : "-", sa);
	snprintf(vb, sizeof(vb), isfinite(sb) ? "%.3f" : "-", sb);
	fprintf(f, "  %-12s %12s %5s %12s\n", "slowest/fastest", va, "", vb);
	strbuf_release(&title);
}

int report_workers(FILE *f, struct db *db, const char *a, const char *b,
		   const struct report_clock *ck, bool drop_noisy,
		   struct strbuf *err)
{
	struct wtab t = { 0 };
	size_t i, first;
	int r;

	r = db_report_workers_each(db, a, drop_noisy, add_worker, &t);
	if (!r) {
		t.side = 1;
		r = db_report_workers_each(db, b, drop_noisy, add_worker, &t);
	}
	if (r) {
		strbuf_addstr(err, db_errmsg(db));
		goto out;
	}
	fprintf(f, "\nper worker: each worker's own wall %s, median over the "
		"samples\n", ck->counted ? "count of guest instructions" :
		"time");
	if (!t.n)
		fprintf(f, "(no case with 2 or more workers on either side)\n");
	for (first = 0; first < t.n; first = i) {
		for (i = first + 1; i < t.n; i++)
			if (strcmp(t.rows[i].params, t.rows[first].params) ||
			    strcmp(t.rows[i].workload, t.rows[first].workload))
				break;
		print_case(f, db, &t, first, i, a, b, ck);
	}
	if (ferror(f))
		r = -EIO;
out:
	for (i = 0; i < t.n; i++) {
		free(t.rows[i].workload);
		free(t.rows[i].params);
		free(t.rows[i].side[0].v);
		free(t.rows[i].side[1].v);
	}
	free(t.rows);
	return r;
}
