/*
 * Statistics for reports: medians within a boot, means and spread across
 * boots, Welch's t, Mann-Whitney U, Holm, power.  Pure functions of their
 * inputs; none modifies the arrays it is given.  A result that cannot be
 * computed (too few values, a zero denominator) is NAN, never a made-up
 * number, so that callers print "n/a" rather than a zero.
 */
#ifndef FB_STATS_H
#define FB_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* Median of n values; v is not modified.  NAN when n == 0. */
double stats_median(const double *v, size_t n);
/* Smallest / largest of n values; NAN when n == 0. */
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);
/* Arithmetic mean; NAN when n == 0. */
double stats_mean(const double *v, size_t n);
/* Sample variance and standard deviation (n - 1); NAN when n < 2. */
double stats_var(const double *v, size_t n);
double stats_sd(const double *v, size_t n);
/* exp(mean(log v)); NAN when n == 0 or any value is not > 0. */
double stats_geomean(const double *v, size_t n);

/* Regularized incomplete beta I_x(a, b), a, b > 0, 0 <= x <= 1. */
double stats_betai(double a, double b, double x);
/* Student t with df > 0 degrees of freedom (df need not be whole). */
double stats_t_cdf(double t, double df);
/* Inverse of stats_t_cdf for 0 < p < 1; NAN outside. */
double stats_t_quantile(double p, double df);
/* Standard normal upper tail, P(Z > z). */
double stats_norm_sf(double z);

/* One side of a two-sample comparison, as its summary. */
struct stats_summary {
	double mean, var;	/* var: sample variance, NAN when n < 2 */
	size_t n;
};
void stats_summarize(const double *v, size_t n, struct stats_summary *s);

struct stats_welch {
	double t;	/* (mean b - mean a) / se */
	double df;	/* Welch-Satterthwaite degrees of freedom */
	double se;	/* standard error of the difference of means */
	double p;	/* two-sided */
};
/*
 * Welch's unequal-variance t-test of b against a.  -EINVAL when a side has
 * fewer than 2 values.  When both variances are zero the difference is
 * either none (p = 1) or exact (p = 0); t and df are then NAN.
 */
int stats_welch(const struct stats_summary *a, const struct stats_summary *b,
		struct stats_welch *w);

/*
 * Confidence interval (conf, e.g. 0.95) of the change of b against a in
 * percent, 100 * (mean b / mean a - 1), by Fieller's theorem for the ratio
 * of two independent means with the Welch-Satterthwaite df.  Fieller rather
 * than the delta method because the base mean is itself uncertain and the
 * interval of a ratio is not symmetric.  -EINVAL when a side has fewer than
 * 2 values; -ERANGE when the interval is unbounded (the base mean is not
 * itself distinguishable from zero), lo and hi are then NAN.
 */
int stats_delta_ci(const struct stats_summary *a,
		   const struct stats_summary *b, double conf,
		   double *lo, double *hi);

struct stats_mwu {
	double u;	/* U of a: pairs x in a > y in b, ties count 1/2 */
	double p;	/* two-sided */
	bool exact;	/* exact null distribution, else normal approximation */
};
/*
 * Mann-Whitney U test.  Exact distribution when there are no ties and
 * na + nb <= 50 (the counts then stay exact in a double); otherwise the
 * normal approximation with tie correction and continuity correction.
 * -EINVAL when a side is empty.
 */
int stats_mwu(const double *a, size_t na, const double *b, size_t nb,
	      struct stats_mwu *r);

/*
 * Holm's step-down adjustment of n p-values into adj (may alias p).  NAN
 * entries are rows without a test: they stay NAN and do not count in n.
 */
void stats_holm(const double *p, size_t n, double *adj);

/*
 * Power of a two-sided two-sample t-test at level alpha, by the usual
 * approximation (t_{1-alpha/2,df} + t_{power,df}) * sd * sqrt(1/na + 1/nb)
 * with df = na + nb - 2.  stats_mde: the smallest difference of means
 * detectable with na and nb values of standard deviation sd (NAN when
 * na + nb < 3).  stats_n_needed: the fewest values per side (>= 2) that
 * detect a difference delta; cap + 1 when cap is not enough, 0 when delta
 * is 0, -1 when sd or delta is not a number.
 */
double stats_mde(double sd, size_t na, size_t nb, double alpha, double power);
long stats_n_needed(double sd, double delta, double alpha, double power,
		    long cap);

#endif
