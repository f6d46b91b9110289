/* The log-linear latency histogram (see hist.h) and exact percentiles. */
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

uint64_t hist_bucket_lo(unsigned idx)
{
	unsigned group = idx >> HIST_SUB_BITS, sub = idx & (HIST_SUB - 1);

	if (group == 0)
		return idx;
	/* group g holds [2^(g+5), 2^(g+6)) in steps of 2^(g-1) */
	return (uint64_t)(HIST_SUB + sub) << (group - 1);
}

uint64_t hist_bucket_hi(unsigned idx)
{
	unsigned group = idx >> HIST_SUB_BITS;

	if (group == 0)
		return idx;
	return hist_bucket_lo(idx) + ((1ull << (group - 1)) - 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned i;

	if (!src->count)
		return;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* 1-based nearest rank of the p-th percentile among n */
static uint64_t rank_of(uint64_t n, double p)
{
	/* in integers: p in thousandths of a percent, so 99.9 * 1000 is exact */
	uint64_t pm = (uint64_t)llround(p * 1000);
	uint64_t r = (n * pm + 99999) / 100000;

	if (r < 1)
		return 1;
	return r > n ? n : r;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;
	unsigned i;

	if (!h->count)
		return 0;
	rank = rank_of(h->count, p);
	if (rank == h->count)
		return h->max;
	if (rank == 1)
		return h->min;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank)
			break;
	}
	if (i == HIST_BUCKETS)		/* counts disagree: cannot happen */
		return h->max;
	lo = hist_bucket_lo(i);
	hi = hist_bucket_hi(i);
	mid = lo + (hi - lo) / 2;
	if (mid < h->min)
		mid = h->min;
	if (mid > h->max)
		mid = h->max;
	return mid;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

uint64_t pct_sorted(const uint64_t *sorted, size_t n, double p)
{
	return sorted[rank_of(n, p) - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}
