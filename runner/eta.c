/* The run's time left, from the workloads' estimates and what reps took. */
#include "eta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

int eta_init(struct eta *e, int n)
{
	memset(e, 0, sizeof(*e));
	e->cur = -1;
	e->c = xcalloc((size_t)(n > 0 ? n : 1), sizeof(*e->c));
	e->n = n;
	return 0;
}

void eta_release(struct eta *e)
{
	free(e->c);
	memset(e, 0, sizeof(*e));
}

void eta_rep_begin(struct eta *e, int i, uint64_t now)
{
	struct eta_case *c;

	if (i < 0 || i >= e->n)
		return;		/* no table (out of memory): no estimate */
	c = &e->c[i];
	e->rep_start_ns = now;
	if (i != e->cur) {
		e->cur = i;
		c->began = 1;
		c->started_ns = now;
		c->eta_at_start_s = eta_left(e, now);
	}
}

void eta_rep_end(struct eta *e, int i, uint64_t now)
{
	struct eta_case *c;

	if (i < 0 || i >= e->n)
		return;
	c = &e->c[i];
	c->done++;
	c->spent_s += (double)(now - e->rep_start_ns) / 1e9;
	e->rep_start_ns = now;
}

void eta_case_drop(struct eta *e, int i)
{
	if (i >= 0 && i < e->n)
		e->c[i].reps = e->c[i].done;
}

/*
 * Measured over estimated, over the finished reps of cases that have an
 * estimate: of workload wl's cases (wl >= 0), or of all.  0: none yet.
 */
static double scale(const struct eta *e, int wl)
{
	double spent = 0, prior = 0;
	int i;

	for (i = 0; i < e->n; i++) {
		const struct eta_case *c = &e->c[i];

		if (!c->done || c->prior_s <= 0 || (wl >= 0 && c->wl != wl))
			continue;
		spent += c->spent_s;
		prior += c->prior_s * c->done;
	}
	return prior > 0 ? spent / prior : 0;
}

/* Mean time of all finished reps; 0: none yet. */
static double mean_rep(const struct eta *e)
{
	double spent = 0;
	unsigned done = 0;
	int i;

	for (i = 0; i < e->n; i++) {
		spent += e->c[i].spent_s;
		done += e->c[i].done;
	}
	return done ? spent / done : 0;
}

/* What one more rep of case i should take; negative: unknown. */
static double per_rep(const struct eta *e, int i)
{
	const struct eta_case *c = &e->c[i];
	double k;

	if (c->done)
		return c->spent_s / c->done;
	if (c->prior_s > 0) {
		k = scale(e, c->wl);
		if (k <= 0)
			k = scale(e, -1);
		return c->prior_s * (k > 0 ? k : 1);
	}
	return mean_rep(e) > 0 ? mean_rep(e) : -1;
}

double eta_left(const struct eta *e, uint64_t now)
{
	double left = 0, in_rep;
	int i;

	if (!e->n)
		return -1;
	for (i = 0; i < e->n; i++) {
		const struct eta_case *c = &e->c[i];
		double r;

		if (c->reps <= c->done)
			continue;
		r = per_rep(e, i);
		if (r < 0)
			return -1;
		left += r * (c->reps - c->done);
		if (i == e->cur) {
			/* the running rep is partly done */
			in_rep = (double)(now - e->rep_start_ns) / 1e9;
			left -= in_rep < r ? in_rep : r;
		}
	}
	return left;
}

int eta_log_write(const struct eta *e, const char *path, const char **names,
		  uint64_t end_ns)
{
	FILE *f = fopen(path, "ae");
	int i, r = 0;

	if (!f)
		return -errno;
	fprintf(f, "# case  eta_at_start_s  real_left_s  eta/real\n");
	for (i = 0; i < e->n; i++) {
		const struct eta_case *c = &e->c[i];
		double real;

		if (!c->began)
			continue;
		real = (double)(end_ns - c->started_ns) / 1e9;
		fprintf(f, "%s  %.1f  %.1f  ", names[i], c->eta_at_start_s,
			real);
		if (c->eta_at_start_s >= 0 && real > 0)
			fprintf(f, "%.3f\n", c->eta_at_start_s / real);
		else
			fprintf(f, "?\n");
	}
	if (fclose(f))
		r = -errno;
	return r;
}
