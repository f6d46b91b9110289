/*
 * reports/stats.c against values computed independently with SciPy 1.10.1
 * (Debian 12 python3-scipy, run as /usr/bin/python3) and the statistics
 * module of Python 3.11.  The reference script, kept here so anyone can
 * recompute the numbers:
 *
 *   import math, statistics
 *   from scipy import special, stats, optimize
 *   a = [101.2, 99.8, 100.5, 102.1, 98.9]
 *   statistics.mean(a), statistics.variance(a), statistics.stdev(a)
 *       -> 100.5, 1.5249999999999928, 1.234908903522844
 *   statistics.geometric_mean([1, 2, 4, 8, 3]) -> 2.861938162210511
 *   special.betainc(a, b, x)     -> values in test_betai below
 *   stats.t.cdf(t, df)           -> values in test_t below
 *   stats.t.ppf(p, df)           -> values in test_t below
 *   A = [100.2e6, 101.9e6, 99.1e6, 100.8e6]
 *   B = [80.5e6, 81.7e6, 79.2e6, 80.1e6, 82.0e6]
 *   stats.ttest_ind(B, A, equal_var=False)
 *       -> t -25.379054071067518, p 9.010642854566449e-08
 *   Welch-Satterthwaite df, written out from its textbook formula
 *       -> 6.5300038206042705
 *   C = [100.0, 103.0, 98.0]; D = [101.0, 99.5, 102.5]
 *   stats.ttest_ind(D, C, equal_var=False)
 *       -> t 0.39413171126572005, p 0.7178544295505048
 *   Fieller, found NOT from the closed form used in stats.c but by
 *   optimize.brentq (xtol 1e-15) on the defining equation
 *   (mb - r ma)^2 - tq^2 (sb + r^2 sa) = 0 either side of mb/ma, with
 *   tq = stats.t.ppf(0.975, welch df), sa, sb the variances of the means:
 *       A, B -> (-21.35281674830677, -18.018881730840853) percent
 *       C, D -> (-4.3032174861497685, 6.023766211715831) percent
 *   stats.mannwhitneyu(x, y, alternative='two-sided', method=M,
 *                      use_continuity=True) -> (U of x, p)
 *       [1,2,3,4] [5,6,7,8] exact             -> (0.0, 0.02857142857142857)
 *       [1.5,3.2,4.1,6.0,7.7] [2.2,2.9,5.5,6.6,8.1,9.0] exact
 *                                             -> (11.0, 0.5367965367965368)
 *       [1,2,2,3,4] [2,3,3,5,6] asymptotic    -> (6.0, 0.19882894401644247)
 *       range(0,60,2) vs v+0.5 for v in range(10,70,2) asymptotic
 *                                             -> (300.0, 0.027086318388295935)
 *   Holm by its definition (sort, scale the k-th smallest by m - k + 1,
 *   running max, cap 1) in a separate Python loop:
 *       [0.01, 0.04, 0.03, 0.005, nan, 0.5]
 *           -> [0.04, 0.09, 0.09, 0.025, nan, 0.5]
 *   Power: mde = (t.ppf(0.975, df) + t.ppf(0.8, df)) * sd * sqrt(1/na + 1/nb)
 *       (2.0, 4, 4) -> 4.741313791879706   (1.3, 3, 5) -> 3.18292508821623
 *       (0.7, 2, 2) -> 3.7543190311837678  (5.0, 10, 10) -> 6.625403918944225
 *   and the exact power of the t-test at that difference, by the noncentral
 *   t (stats.nct.sf(tc, df, nc) + stats.nct.cdf(-tc, df, nc)): 0.797, 0.797,
 *   0.766, 0.800 -- the approximation is slightly optimistic at 2 boots a
 *   side, which reports say by calling such figures approximate.
 *   Boots needed, by a plain Python loop n = 2, 3, ... until mde <= delta:
 *       (sd 2, delta 3) -> 9   (1, 0.1) -> 1571   (1, 5) -> 3
 *       (1, 0.001) -> 10001 (more than the cap of 10000)
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/stats.h"
#include "tests/unit/tap.h"

#define TOL 1e-9

static void test_median(void)
{
	double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	double ties[] = { 5, 5, 1, 5 }, keep[] = { 9, 2, 7 }, big[101];
	int i;

	NEAR(stats_median(odd, 3), 2, TOL, "median of an odd count");
	NEAR(stats_median(even, 4), 2.5, TOL, "median of an even count");
	NEAR(stats_median(one, 1), 7, TOL, "median of one sample");
	NEAR(stats_median(ties, 4), 5, TOL, "median with ties");
	OK(isnan(stats_median(one, 0)), "median of nothing is NAN");
	stats_median(keep, 3);
	OK(keep[0] == 9 && keep[1] == 2 && keep[2] == 7,
	   "median leaves its input in order");
	for (i = 0; i < 100; i++)
		big[i] = 99 - i;
	NEAR(stats_median(big, 100), 49.5, TOL, "median of 100 (heap copy)");
	big[100] = 1000;
	NEAR(stats_median(big, 101), 50, TOL, "median of 101");
	NEAR(stats_min(keep, 3), 2, TOL, "min");
	NEAR(stats_max(keep, 3), 9, TOL, "max");
	OK(isnan(stats_min(keep, 0)) && isnan(stats_max(keep, 0)),
	   "min and max of nothing are NAN");
}

/* The median of a stable sort (insertion), bit for bit the reference. */
static double ref_median(const double *v, size_t n)
{
	double s[512], x;
	size_t i, k;

	memcpy(s, v, n * sizeof(*v));
	for (i = 1; i < n; i++) {
		x = s[i];
		for (k = i; k > 0 && s[k - 1] > x; k--)
			s[k] = s[k - 1];
		s[k] = x;
	}
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/*
 * Past 64 values the median is selected, not sorted: the same bits as a
 * stable sort gives, ties and zeros of both signs included (a -0 median
 * would print "-0"), for counts odd and even, sorted input, few values.
 */
static void test_median_select(void)
{
	static const double pool[] = { -0.0, 0.0, 1, -1, 2.5, 1e9, -3 };
	double v[512], got, want;
	size_t n, i, bad = 0, tries = 0;
	int t;

	srand(31);
	for (n = 65; n < 512; n += 7) {
		for (t = 0; t < 20; t++, tries++) {
			for (i = 0; i < n; i++)
				v[i] = t % 4 == 3 ? (double)i :
				       t % 2 ? pool[rand() % 2] :
				       pool[rand() % 7];
			got = stats_median(v, n);
			want = ref_median(v, n);
			bad += memcmp(&got, &want, sizeof(got)) != 0;
		}
	}
	OK(!bad, "selected median is the sorted one, bit for bit: %zu of "
	   "%zu differ", bad, tries);
	/* 101 zeros: the 51st in the order given is the median */
	for (i = 0; i < 101; i++)
		v[i] = i < 50 ? 0.0 : -0.0;
	got = stats_median(v, 101);
	for (i = 0; i < 101; i++)
		v[i] = i < 51 ? 0.0 : -0.0;
	want = stats_median(v, 101);
	OK(signbit(got) && !signbit(want), "the zeros' order decides the "
	   "median's sign: %g and %g", got, want);
}

static void test_moments(void)
{
	double a[] = { 101.2, 99.8, 100.5, 102.1, 98.9 }, same[] = { 5, 5, 5 };
	double g[] = { 1, 2, 4, 8, 3 }, gz[] = { 1, 0, 2 };

	NEAR(stats_mean(a, 5), 100.5, 1e-12, "mean");
	NEAR(stats_var(a, 5), 1.5249999999999928, 1e-12, "sample variance");
	NEAR(stats_sd(a, 5), 1.234908903522844, 1e-12, "sample sd");
	OK(isnan(stats_sd(a, 1)), "sd of one sample is NAN");
	OK(isnan(stats_mean(a, 0)), "mean of nothing is NAN");
	NEAR(stats_sd(same, 3), 0, 1e-15, "sd of equal values is 0");
	NEAR(stats_geomean(g, 5), 2.861938162210511, 1e-12, "geometric mean");
	OK(isnan(stats_geomean(gz, 3)), "geometric mean with a zero is NAN");
}

static void test_betai(void)
{
	NEAR(stats_betai(2, 3, 0.4), 0.5247999999999999, 1e-12, "I_0.4(2,3)");
	NEAR(stats_betai(0.5, 0.5, 0.2), 0.29516723530086664, 1e-12,
	     "I_0.2(0.5,0.5)");
	NEAR(stats_betai(10, 0.5, 0.9), 0.15164090963470997, 1e-12,
	     "I_0.9(10,0.5)");
	NEAR(stats_betai(50, 50, 0.45), 0.15865219893709973, 1e-11,
	     "I_0.45(50,50)");
	NEAR(stats_betai(1.5, 0.5, 0.999), 0.9597433418849682, 1e-12,
	     "I_0.999(1.5,0.5)");
	OK(stats_betai(2, 3, 0) == 0 && stats_betai(2, 3, 1) == 1,
	   "I at the ends is 0 and 1");
}

static void test_t(void)
{
	NEAR(stats_t_cdf(2.0, 3), 0.9303370157205785, 1e-12, "t cdf(2, 3)");
	NEAR(stats_t_cdf(-1.5, 7.3), 0.08778154640154301, 1e-12,
	     "t cdf(-1.5, 7.3)");
	NEAR(stats_t_cdf(0.3, 1), 0.5927735790777423, 1e-12, "t cdf(0.3, 1)");
	NEAR(stats_t_cdf(8.0, 2.5), 0.9961716779344783, 1e-12,
	     "t cdf(8, 2.5)");
	NEAR(stats_t_quantile(0.975, 1), 12.706204736432095, 1e-10,
	     "t ppf(0.975, 1)");
	NEAR(stats_t_quantile(0.975, 2), 4.302652729911275, 1e-10,
	     "t ppf(0.975, 2)");
	NEAR(stats_t_quantile(0.975, 4.7), 2.6207260753531694, 1e-10,
	     "t ppf(0.975, 4.7)");
	NEAR(stats_t_quantile(0.8, 6), 0.9057032851797618, 1e-10,
	     "t ppf(0.8, 6)");
	NEAR(stats_t_quantile(0.025, 10), -2.2281388519649385, 1e-10,
	     "t ppf(0.025, 10)");
	NEAR(stats_t_quantile(0.9995, 3), 12.923978636637424, 1e-9,
	     "t ppf(0.9995, 3)");
	NEAR(stats_t_quantile(0.975, 1000), 1.9623390808264074, 1e-10,
	     "t ppf(0.975, 1000)");
	OK(isnan(stats_t_quantile(1, 3)) && isnan(stats_t_quantile(0.9, 0)),
	   "t ppf outside its domain is NAN");
}

static void test_welch(void)
{
	double A[] = { 100.2e6, 101.9e6, 99.1e6, 100.8e6 };
	double B[] = { 80.5e6, 81.7e6, 79.2e6, 80.1e6, 82.0e6 };
	double C[] = { 100.0, 103.0, 98.0 }, D[] = { 101.0, 99.5, 102.5 };
	double Z1[] = { 7, 7, 7 }, Z2[] = { 9, 9 };
	struct stats_summary a, b, c, d, z1, z2;
	struct stats_welch w;
	double lo, hi;

	stats_summarize(A, 4, &a);
	stats_summarize(B, 5, &b);
	OK(!stats_welch(&a, &b, &w), "welch runs");
	NEAR(w.t, -25.379054071067518, 1e-10, "welch t");
	NEAR(w.p / 9.010642854566449e-08, 1, 1e-9, "welch p (relative)");
	NEAR(w.df, 6.5300038206042705, 1e-10, "welch-satterthwaite df");
	OK(!stats_delta_ci(&a, &b, 0.95, &lo, &hi), "fieller ci runs");
	NEAR(lo, -21.35281674830677, 1e-9, "fieller ci low, 20% change");
	NEAR(hi, -18.018881730840853, 1e-9, "fieller ci high, 20% change");

	stats_summarize(C, 3, &c);
	stats_summarize(D, 3, &d);
	stats_welch(&c, &d, &w);
	NEAR(w.t, 0.39413171126572005, 1e-10, "welch t, no change");
	NEAR(w.p, 0.7178544295505048, 1e-10, "welch p, no change");
	OK(!stats_delta_ci(&c, &d, 0.95, &lo, &hi), "fieller ci, no change");
	NEAR(lo, -4.3032174861497685, 1e-9, "fieller ci low, no change");
	NEAR(hi, 6.023766211715831, 1e-9, "fieller ci high, no change");

	stats_summarize(Z1, 3, &z1);
	stats_summarize(Z2, 2, &z2);
	OK(!stats_welch(&z1, &z2, &w) && w.p == 0 && isnan(w.t),
	   "zero variance, different means: p 0, t undefined");
	OK(!stats_welch(&z1, &z1, &w) && w.p == 1,
	   "zero variance, same means: p 1");
	OK(!stats_delta_ci(&z1, &z2, 0.95, &lo, &hi) &&
	   fabs(lo - 100.0 * 2 / 7) < 1e-12 && lo == hi,
	   "zero variance: the ci is the point");
	stats_summarize(C, 1, &c);
	OK(stats_welch(&c, &d, &w) == -EINVAL && isnan(w.p),
	   "one sample a side: no welch test");
	OK(stats_delta_ci(&c, &d, 0.95, &lo, &hi) == -EINVAL && isnan(lo),
	   "one sample a side: no ci");
}

static void test_welch_unbounded(void)
{
	/* A base mean within noise of zero: the ratio has no finite bound. */
	double A[] = { -1, 1, 2 }, B[] = { 5, 6, 7 };
	struct stats_summary a, b;
	double lo, hi;

	stats_summarize(A, 3, &a);
	stats_summarize(B, 3, &b);
	OK(stats_delta_ci(&a, &b, 0.95, &lo, &hi) == -ERANGE && isnan(hi),
	   "fieller ci unbounded when the base mean is not told from zero");
}

static void test_mwu(void)
{
	double x1[] = { 1, 2, 3, 4 }, y1[] = { 5, 6, 7, 8 };
	double x2[] = { 1.5, 3.2, 4.1, 6.0, 7.7 };
	double y2[] = { 2.2, 2.9, 5.5, 6.6, 8.1, 9.0 };
	double x3[] = { 1, 2, 2, 3, 4 }, y3[] = { 2, 3, 3, 5, 6 };
	double x4[30], y4[30], e[] = { 5, 5, 5 };
	struct stats_mwu r;
	int i;

	OK(!stats_mwu(x1, 4, y1, 4, &r) && r.exact, "mwu exact, separated");
	NEAR(r.u, 0, TOL, "mwu U, separated");
	NEAR(r.p, 0.02857142857142857, 1e-12, "mwu p, separated (2/70)");
	OK(!stats_mwu(y1, 4, x1, 4, &r), "mwu, sides swapped");
	NEAR(r.u, 16, TOL, "mwu U of the other side");
	NEAR(r.p, 0.02857142857142857, 1e-12, "mwu p is symmetric");
	OK(!stats_mwu(x2, 5, y2, 6, &r) && r.exact, "mwu exact, 5 vs 6");
	NEAR(r.u, 11, TOL, "mwu U, 5 vs 6");
	NEAR(r.p, 0.5367965367965368, 1e-12, "mwu p, 5 vs 6");
	OK(!stats_mwu(x3, 5, y3, 5, &r) && !r.exact,
	   "mwu with ties: normal approximation");
	NEAR(r.u, 6, TOL, "mwu U with ties (midranks)");
	NEAR(r.p, 0.19882894401644247, 1e-12, "mwu p with tie correction");
	for (i = 0; i < 30; i++) {
		x4[i] = 2 * i;
		y4[i] = 10 + 2 * i + 0.5;
	}
	OK(!stats_mwu(x4, 30, y4, 30, &r) && !r.exact,
	   "mwu 30 vs 30: normal approximation");
	NEAR(r.u, 300, TOL, "mwu U, 30 vs 30");
	NEAR(r.p, 0.027086318388295935, 1e-12, "mwu p, 30 vs 30");
	OK(!stats_mwu(e, 3, e, 3, &r) && r.p == 1,
	   "mwu, every value equal: p 1");
	OK(stats_mwu(e, 0, e, 3, &r) == -EINVAL, "mwu with an empty side");
}

static void test_holm(void)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005, NAN, 0.5 }, adj[6];
	double want[] = { 0.04, 0.09, 0.09, 0.025, NAN, 0.5 };
	double one[] = { 0.03 }, many[100];
	int i, ok = 1;

	stats_holm(p, 6, adj);
	for (i = 0; i < 6; i++)
		if (isnan(want[i]) ? !isnan(adj[i]) :
		    fabs(adj[i] - want[i]) > 1e-15)
			ok = 0;
	OK(ok, "holm of 5 p-values and a row without a test");
	stats_holm(one, 1, one);
	NEAR(one[0], 0.03, 1e-15, "holm of one p-value, in place");
	for (i = 0; i < 100; i++)
		many[i] = 0.0001 * (i + 1);
	stats_holm(many, 100, many);
	/* k-th smallest (1-based) 1e-4 k scaled by 101 - k, running max. */
	NEAR(many[0], 0.01, 1e-12, "holm of 100: smallest");
	NEAR(many[99], 0.2550, 1e-12, "holm of 100: largest is the max");
}

static void test_power(void)
{
	NEAR(stats_mde(2.0, 4, 4, 0.05, 0.8), 4.741313791879706, 1e-9,
	     "mde, 4 boots a side");
	NEAR(stats_mde(1.3, 3, 5, 0.05, 0.8), 3.18292508821623, 1e-9,
	     "mde, 3 and 5 boots");
	NEAR(stats_mde(0.7, 2, 2, 0.05, 0.8), 3.7543190311837678, 1e-9,
	     "mde, 2 boots a side");
	NEAR(stats_mde(5.0, 10, 10, 0.05, 0.8), 6.625403918944225, 1e-9,
	     "mde, 10 boots a side");
	OK(isnan(stats_mde(1, 1, 1, 0.05, 0.8)), "mde of one boot a side");
	OK(stats_n_needed(2.0, 3.0, 0.05, 0.8, 10000) == 9, "boots needed 9");
	OK(stats_n_needed(1.0, 0.1, 0.05, 0.8, 10000) == 1571,
	   "boots needed 1571");
	OK(stats_n_needed(1.0, 5.0, 0.05, 0.8, 10000) == 3, "boots needed 3");
	OK(stats_n_needed(1.0, 0.001, 0.05, 0.8, 10000) == 10001,
	   "boots needed beyond the cap");
	OK(stats_n_needed(1.0, 0, 0.05, 0.8, 10000) == 0,
	   "no change seen: nothing to detect");
	OK(stats_n_needed(NAN, 1, 0.05, 0.8, 10000) == -1,
	   "boots needed without a spread");
}

int main(void)
{
	tap_plan(89);
	test_median();
	test_median_select();
	test_moments();
	test_betai();
	test_t();
	test_welch();
	test_welch_unbounded();
	test_mwu();
	test_holm();
	test_power();
	return tap_done();
}
