/* The log-linear histogram against exact percentiles of sorted arrays. */
#include <stdint.h>
#include <stdlib.h>

#include "common/common.h"
#include "tap.h"
#include "workloads/sys/hist.h"

/* The reference, written independently of hist.c: nearest rank. */
static uint64_t ref_pct(const uint64_t *sorted, size_t n, double p)
{
	/* nearest rank; the epsilon absorbs 99.9 / 100 * 1000 = 999.0000000000001 */
	size_t rank = (size_t)ceil(p * (double)n / 100.0 - 1e-9);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	return tap_xorshift(&rng);
}

static const double pcts[] = { 0.1, 1, 5, 25, 50, 75, 90, 95, 99, 99.9,
			       99.99, 100 };

/* Every percentile of h within 1/128 of the exact one; returns failures. */
static int check_all(const struct hist *h, uint64_t *v, size_t n,
		     const char *what)
{
	size_t i;
	int bad = 0;
	double worst = 0;

	qsort(v, n, sizeof(*v), cmp);
	for (i = 0; i < ARRAY_SIZE(pcts); i++) {
		uint64_t want = ref_pct(v, n, pcts[i]);
		uint64_t got = hist_percentile(h, pcts[i]);
		double err = want ? fabs((double)got - (double)want) /
				    (double)want : (double)got;

		if (err > worst)
			worst = err;
		if (err > 1.0 / 128) {
			bad++;
			printf("# %s: p%g got %llu want %llu\n", what, pcts[i],
			       (unsigned long long)got,
			       (unsigned long long)want);
		}
	}
	OK(!bad, "%s: percentiles within 1/128 of exact (worst %.4f%%)",
	   what, worst * 100);
	return bad;
}

int main(void)
{
	static struct hist h, a, b, t;
	const size_t n = 200000;
	uint64_t *v = malloc(n * sizeof(*v));
	uint64_t sum = 0;
	unsigned i, idx;
	size_t k;

	tap_plan(22);
	if (!v)
		return 1;

	/* bucket bounds: exact below 64, contiguous, never wider than 1/64 */
	for (i = 0; i < 64; i++)
		if (hist_bucket_lo(i) != i || hist_bucket_hi(i) != i)
			break;
	OK(i == 64, "values below 64 have buckets of their own");
	for (idx = 1; idx < HIST_BUCKETS; idx++)
		if (hist_bucket_lo(idx) != hist_bucket_hi(idx - 1) + 1)
			break;
	OK(idx == HIST_BUCKETS, "buckets are contiguous up to 2^64");
	OK(hist_bucket_hi(HIST_BUCKETS - 1) == UINT64_MAX,
	   "the last bucket ends at UINT64_MAX");
	for (idx = 64; idx < HIST_BUCKETS; idx++)
		if ((double)(hist_bucket_hi(idx) - hist_bucket_lo(idx) + 1) >
		    (double)hist_bucket_lo(idx) / 64)
			break;
	OK(idx == HIST_BUCKETS, "no bucket wider than 1/64 of its start");
	for (k = 0; k < 100000; k++) {
		uint64_t x = xorshift() >> (xorshift() % 64);

		idx = hist_index(x);
		if (x < hist_bucket_lo(idx) || x > hist_bucket_hi(idx))
			break;
	}
	OK(k == 100000, "every value lands in the bucket that holds it");
	OK(hist_index(UINT64_MAX) == HIST_BUCKETS - 1,
	   "UINT64_MAX lands in the last bucket");

	/* empty */
	hist_init(&h);
	OK(hist_percentile(&h, 50) == 0 && h.count == 0, "empty: p50 is 0");

	/* one value */
	hist_record(&h, 12345);
	OK(hist_percentile(&h, 1) == 12345 && hist_percentile(&h, 99) ==
	   12345, "one value: every percentile is that value");

	/* small exact values */
	hist_init(&h);
	for (k = 0; k < 1000; k++) {
		v[k] = k % 64;
		hist_record(&h, v[k]);
	}
	qsort(v, 1000, sizeof(*v), cmp);
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		if (hist_percentile(&h, pcts[i]) != ref_pct(v, 1000, pcts[i]))
			break;
	OK(i == ARRAY_SIZE(pcts), "values below 64 are exact");

	/* latencies like reads: ~700 ns with a long tail */
	hist_init(&h);
	for (k = 0; k < n; k++) {
		uint64_t x = 600 + xorshift() % 200;

		if (k % 100 == 0)
			x += xorshift() % 20000;
		if (k % 10000 == 0)
			x += xorshift() % 10000000;
		v[k] = x;
		sum += x;
		hist_record(&h, x);
	}
	OK(h.count == n, "count is %zu", n);
	NEAR(hist_mean(&h), (double)sum / (double)n, 1e-12, "mean is exact");
	check_all(&h, v, n, "read-like latencies");
	OK(hist_percentile(&h, 100) == v[n - 1], "p100 is the exact max");

	/* log-uniform over the whole range */
	hist_init(&h);
	for (k = 0; k < n; k++) {
		v[k] = xorshift() >> (xorshift() % 64);
		hist_record(&h, v[k]);
	}
	check_all(&h, v, n, "log-uniform 1 to 2^64");

	/* merging two threads' histograms equals one histogram of both */
	hist_init(&a);
	hist_init(&b);
	hist_init(&h);
	for (k = 0; k < n; k++) {
		v[k] = k < n / 2 ? 1000 + xorshift() % 1000 :
				   100000 + xorshift() % 50000;
		hist_record(k % 2 ? &a : &b, v[k]);
		hist_record(&h, v[k]);
	}
	hist_merge(&a, &b);
	OK(a.count == h.count && a.min == h.min && a.max == h.max &&
	   a.sum == h.sum && !memcmp(a.b, h.b, sizeof(a.b)),
	   "merged histogram equals the histogram of all values");
	check_all(&a, v, n, "merged, two modes");

	/* pct_sorted is the same nearest-rank definition */
	for (i = 0; i < ARRAY_SIZE(pcts); i++)
		if (pct_sorted(v, n, pcts[i]) != ref_pct(v, n, pcts[i]))
			break;
	OK(i == ARRAY_SIZE(pcts), "pct_sorted matches the reference");
	v[0] = 5;
	v[1] = 3;
	v[2] = 4;
	sort_u64(v, 3);
	OK(v[0] == 3 && v[1] == 4 && v[2] == 5, "sort_u64 sorts ascending");
	OK(pct_sorted((const uint64_t[]){ 10, 20, 30, 40 }, 4, 50) == 20,
	   "p50 of 10,20,30,40 is 20 (nearest rank)");
	OK(pct_sorted((const uint64_t[]){ 10, 20, 30, 40 }, 4, 1) == 10,
	   "p1 of four values is the first");

	free(v);
	/*
	 * Nearest rank in exact arithmetic: p99.9 of 1000 values is the
	 * 999th, not the largest (ceil(99.9 / 100 * 1000) is 1000 in
	 * doubles).  Values below 64 have exact buckets.
	 */
	hist_init(&t);
	for (i = 1; i <= 1000; i++)
		hist_record(&t, i <= 999 ? 10 : 60);
	OK(hist_percentile(&t, 99.9) == 10,
	   "p99.9 of 1000 values is the 999th (got %llu)",
	   (unsigned long long)hist_percentile(&t, 99.9));
	OK(hist_percentile(&t, 100) == 60, "p100 is the largest");
	return tap_done();
}
