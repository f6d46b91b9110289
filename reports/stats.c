/*
 * Statistics for reports.  Kept free of SQL and output so that the unit
 * tests can pin every number against an independent reference.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "reports/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Sort a few values in place by insertion: stable, as qsort's merge sort
 * is, so that equal values (0 and -0) keep their order, and without its
 * calls a compare.
 */
static void sort_few(double *s, size_t n)
{
	size_t i, k;
	double x;

	for (i = 1; i < n; i++) {
		x = s[i];
		for (k = i; k > 0 && s[k - 1] > x; k--)
			s[k] = s[k - 1];
		s[k] = x;
	}
}

static void swap_d(double *s, ptrdiff_t i, ptrdiff_t k)
{
	double t = s[i];

	s[i] = s[k];
	s[k] = t;
}

/*
 * Hoare's selection: s (no NaN) rearranged so that s[k] is the value a
 * sort would put there and none before it is larger; O(n), where a boot's
 * median of 400 values took 3600 calls a compare by qsort (issue 31).
 */
static void select_kth(double *s, size_t n, size_t k)
{
	ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, want = (ptrdiff_t)k;

	while (hi > lo) {
		ptrdiff_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
		double p;

		/* the median of three: no run of sorted input is slow */
		if (s[mid] < s[lo])
			swap_d(s, lo, mid);
		if (s[hi] < s[lo])
			swap_d(s, lo, hi);
		if (s[hi] < s[mid])
			swap_d(s, mid, hi);
		p = s[mid];
		while (i <= j) {
			while (s[i] < p)
				i++;
			while (p < s[j])
				j--;
			if (i <= j)
				swap_d(s, i++, j--);
		}
		if (want <= j)
			hi = j;
		else if (want >= i)
			lo = i;
		else
			return;	/* between: equal to p */
	}
}

/*
 * The k-th value of v in a stable sort, given m, a value equal to it: the
 * same but for a zero's sign, which a stable sort takes from the zeros in
 * the order given.
 */
static double stable_kth(const double *v, size_t n, size_t k, double m)
{
	size_t i, below = 0;

	if (m != 0)
		return m;
	for (i = 0; i < n; i++)
		below += v[i] < 0;
	for (i = 0; i < n; i++)
		if (v[i] == 0 && below++ == k)
			return v[i];
	return m;
}

double stats_median(const double *v, size_t n)
{
	double small[64], *s = small, lo, hi;
	size_t i, k = n / 2;

	if (!n)
		return NAN;
	/* Sort a copy: callers keep their samples in the order taken. */
	if (n > sizeof(small) / sizeof(small[0]))
		s = xreallocarray(NULL, n, sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	for (i = 0; i < n && !isnan(s[i]); i++)
		;
	if (n <= sizeof(small) / sizeof(small[0]) || i < n) {
		/* a NaN: the order qsort gives it */
		if (i < n)
			qsort(s, n, sizeof(*s), cmp_double);
		else
			sort_few(s, n);
		hi = s[k];
		lo = n % 2 ? hi : s[k - 1];
	} else {
		select_kth(s, n, k);
		hi = s[k];
		lo = hi;
		for (i = 0; n % 2 == 0 && i < k; i++)
			if (i == 0 || s[i] > lo)
				lo = s[i];
		hi = stable_kth(v, n, k, hi);
		lo = n % 2 ? hi : stable_kth(v, n, k - 1, lo);
	}
	if (s != small)
		free(s);
	return n % 2 ? hi : (lo + hi) / 2;
}

double stats_min(const double *v, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = v[0];
	for (i = 1; i < n; i++)
		if (v[i] < m)
			m = v[i];
	return m;
}

double stats_max(const double *v, size_t n)
{
	double m;
	size_t i;

	if (!n)
		return NAN;
	m = v[0];
	for (i = 1; i < n; i++)
		if (v[i] > m)
			m = v[i];
	return m;
}

double stats_mean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++)
		s += v[i];
	return s / n;
}

double stats_var(const double *v, size_t n)
{
	double m, s = 0;
	size_t i;

	if (n < 2)
		return NAN;
	/* Two passes: a one-pass sum of squares cancels badly on ns values. */
	m = stats_mean(v, n);
	for (i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return s / (n - 1);
}

double stats_sd(const double *v, size_t n)
{
	return sqrt(stats_var(v, n));
}

double stats_geomean(const double *v, size_t n)
{
	double s = 0;
	size_t i;

	if (!n)
		return NAN;
	for (i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		s += log(v[i]);
	}
	return exp(s / n);
}

/* Continued fraction of the incomplete beta (modified Lentz). */
static double betacf(double a, double b, double x)
{
	const double eps = 1e-16, tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h, aa, del;
	int m, m2;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 1000; m++) {
		m2 = 2 * m;
		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

double stats_betai(double a, double b, double x)
{
	double lbt;

	if (!(a > 0) || !(b > 0) || isnan(x))
		return NAN;
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
	      b * log1p(-x);
	/* The fraction converges fast only below the mean; use symmetry. */
	if (x < (a + 1) / (a + b + 2))
		return exp(lbt) * betacf(a, b, x) / a;
	return 1 - exp(lbt) * betacf(b, a, 1 - x) / b;
}

/* P(|T| > t) for t >= 0: computed directly so small p keep their digits. */
static double t_two_tail(double t, double df)
{
	return stats_betai(df / 2, 0.5, df / (df + t * t));
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = t_two_tail(fabs(t), df) / 2;
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = 0, hi = 1, mid, want;
	int i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, df);
	/* Bisect the upper tail: monotone, and never leaves the bracket. */
	want = 2 * (1 - p);
	while (t_two_tail(hi, df) > want) {
		lo = hi;
		hi *= 2;
		if (hi > 1e300)
			return INFINITY;
	}
	for (i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		mid = (lo + hi) / 2;
		if (t_two_tail(mid, df) > want)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

void stats_summarize(const double *v, size_t n, struct stats_summary *s)
{
	s->mean = stats_mean(v, n);
	s->var = stats_var(v, n);
	s->n = n;
}

int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		struct stats_welch *w)
{
	double va, vb;

	w->t = w->df = w->se = w->p = NAN;
	if (a->n < 2 || b->n < 2)
		return -EINVAL;
	va = a->var / a->n;
	vb = b->var / b->n;
	w->se = sqrt(va + vb);
	if (w->se == 0) {
		w->p = a->mean == b->mean ? 1 : 0;
		return 0;
	}
	w->df = (va + vb) * (va + vb) /
		(va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->t = (b->mean - a->mean) / w->se;
	w->p = t_two_tail(fabs(w->t), w->df);
	return 0;
}

int stats_delta_ci(const struct stats_summary *a,
		   const struct stats_summary *b, double conf,
		   double *lo, double *hi)
{
	struct stats_welch w;
	double sa, sb, tq, A, root, r1, r2;

	*lo = *hi = NAN;
	if (stats_welch(a, b, &w))
		return -EINVAL;
	if (a->mean == 0)
		return -ERANGE;
	if (w.se == 0) {
		*lo = *hi = 100 * (b->mean / a->mean - 1);
		return 0;
	}
	sa = a->var / a->n;
	sb = b->var / b->n;
	tq = stats_t_quantile((1 + conf) / 2, w.df);
	/*
	 * The ratios r with (mb - r ma)^2 <= tq^2 (sb + r^2 sa): a quadratic
	 * in r whose roots bound the interval while A > 0.
	 */
	A = a->mean * a->mean - tq * tq * sa;
	if (!(A > 0))
		return -ERANGE;
	root = tq * sqrt(a->mean * a->mean * sb + b->mean * b->mean * sa -
			 tq * tq * sa * sb);
	r1 = (a->mean * b->mean - root) / A;
	r2 = (a->mean * b->mean + root) / A;
	*lo = 100 * (r1 - 1);
	*hi = 100 * (r2 - 1);
	return 0;
}

struct ranked {
	double v;
	int side;	/* 0: a, 1: b */
};

static int cmp_ranked(const void *x, const void *y)
{
	return cmp_double(&((const struct ranked *)x)->v,
			  &((const struct ranked *)y)->v);
}

/*
 * P(U >= u) under the null hypothesis for sides of m and n values without
 * ties.  The counts of U are the coefficients of the Gaussian binomial
 * [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i); every step
 * only looks at lower coefficients, so truncating at degree m n is exact.
 */
static double mwu_exact_sf(size_t m, size_t n, double u)
{
	size_t deg = m * n, i, k, s;
	double *c, tail = 0, total = 0;

	c = xcalloc(deg + 1, sizeof(*c));
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		s = n + i;
		for (k = deg; k >= s && s <= deg; k--)
			c[k] -= c[k - s];
		for (k = i; k <= deg; k++)
			c[k] += c[k - i];
	}
	for (k = 0; k <= deg; k++) {
		total += c[k];
		if ((double)k >= u)
			tail += c[k];
	}
	free(c);
	return tail / total;
}

int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      struct stats_mwu *r)
{
	size_t n = na + nb, i, j, t;
	struct ranked *all;
	double ra = 0, ties = 0, u1, u, mu, s, rank;

	r->u = r->p = NAN;
	r->exact = false;
	if (!na || !nb)
		return -EINVAL;
	all = xreallocarray(NULL, n, sizeof(*all));
	for (i = 0; i < na; i++)
		all[i] = (struct ranked){ a[i], 0 };
	for (i = 0; i < nb; i++)
		all[na + i] = (struct ranked){ b[i], 1 };
	qsort(all, n, sizeof(*all), cmp_ranked);
	/* Midranks: a run of t equal values shares the mean of its ranks. */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && all[j].v == all[i].v; j++)
			;
		t = j - i;
		rank = (i + 1 + j) / 2.0;
		if (t > 1)
			ties += (double)t * t * t - t;
		while (i < j)
			if (all[i++].side == 0)
				ra += rank;
	}
	free(all);
	u1 = ra - na * (na + 1) / 2.0;
	u = fmax(u1, (double)na * nb - u1);
	r->u = u1;
	if (ties == 0 && n <= 50) {
		r->exact = true;
		r->p = fmin(1, 2 * mwu_exact_sf(na, nb, u));
		return 0;
	}
	mu = na * (double)nb / 2;
	s = sqrt(na * (double)nb / 12 * ((n + 1) - ties / (n * (n - 1.0))));
	if (s == 0) {		/* every value equal: nothing to tell apart */
		r->p = 1;
		return 0;
	}
	r->p = fmin(1, 2 * stats_norm_sf((u - mu - 0.5) / s));
	return 0;
}

struct holm_item {
	double p;
	size_t i;
};

static int cmp_holm(const void *x, const void *y)
{
	return cmp_double(&((const struct holm_item *)x)->p,
			  &((const struct holm_item *)y)->p);
}

void stats_holm(const double *p, size_t n, double *adj)
{
	struct holm_item small[64], *it = small;
	size_t i, m = 0;
	double run = 0, q;

	if (n > sizeof(small) / sizeof(small[0])) {
		it = malloc(n * sizeof(*it));
		if (!it) {
			/* Bonferroni bounds Holm from above: still valid. */
			for (i = 0; i < n; i++)
				adj[i] = isnan(p[i]) ? NAN : fmin(1, p[i] * n);
			return;
		}
	}
	for (i = 0; i < n; i++)
		if (!isnan(p[i]))
			it[m++] = (struct holm_item){ p[i], i };
	qsort(it, m, sizeof(*it), cmp_holm);
	for (i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	/* Step down: the k-th smallest p is scaled by m - k + 1, monotone. */
	for (i = 0; i < m; i++) {
		q = fmin(1, (m - i) * it[i].p);
		run = fmax(run, q);
		adj[it[i].i] = run;
	}
	if (it != small)
		free(it);
}

double stats_mde(double sd, size_t na, size_t nb, double alpha, double power)
{
	double df = (double)na + nb - 2;

	if (!na || !nb || df < 1 || isnan(sd))
		return NAN;
	return (stats_t_quantile(1 - alpha / 2, df) +
		stats_t_quantile(power, df)) * sd * sqrt(1.0 / na + 1.0 / nb);
}

long stats_n_needed(double sd, double delta, double alpha, double power,
		    long cap)
{
	long lo = 2, hi = cap, mid;

	if (isnan(sd) || isnan(delta))
		return -1;
	delta = fabs(delta);
	if (delta == 0)
		return 0;
	if (stats_mde(sd, lo, lo, alpha, power) <= delta)
		return lo;
	if (cap < 2 || stats_mde(sd, hi, hi, alpha, power) > delta)
		return cap + 1;
	/* The detectable difference shrinks as n grows: bisect. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (stats_mde(sd, mid, mid, alpha, power) <= delta)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}
