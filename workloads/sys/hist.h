/*
 * A log-linear latency histogram in the manner of HdrHistogram: values
 * below 64 are exact, and each power of two above is split in 64 linear
 * sub-buckets, so a bucket is never wider than 1/64 (1.6%) of its lower
 * bound.  Recording is a few instructions with no allocation, for use
 * inside a timed loop; histograms of several threads merge by addition.
 */
#ifndef FB_HIST_H
#define FB_HIST_H

#include <stddef.h>
#include <stdint.h>

#define HIST_SUB_BITS	6
#define HIST_SUB	(1u << HIST_SUB_BITS)
/* one group of HIST_SUB buckets per power of two from 2^6 to 2^63 */
#define HIST_BUCKETS	((64 - HIST_SUB_BITS + 1) * HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t min, max;
	uint64_t sum;		/* wraps only after 584 years of ns */
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);

static inline unsigned hist_index(uint64_t v)
{
	unsigned k, shift;

	if (v < HIST_SUB)
		return (unsigned)v;
	k = 63 - (unsigned)__builtin_clzll(v);		/* 2^k <= v */
	shift = k - HIST_SUB_BITS;
	return ((k - HIST_SUB_BITS + 1) << HIST_SUB_BITS) +
	       (unsigned)((v >> shift) - HIST_SUB);
}

static inline void hist_record(struct hist *h, uint64_t v)
{
	h->b[hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

/* Smallest and largest value a bucket holds. */
uint64_t hist_bucket_lo(unsigned idx);
uint64_t hist_bucket_hi(unsigned idx);

/* Add src into dst (threads' histograms into one). */
void hist_merge(struct hist *dst, const struct hist *src);

/*
 * The p-th percentile (0 < p <= 100), nearest-rank: the value of rank
 * ceil(p/100 * count) in sorted order, given as the middle of its bucket
 * (clamped to min and max), so within 1/128 of the exact value.  0 when
 * the histogram is empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);

/* The same percentile, exact, over n sorted values (n > 0). */
uint64_t pct_sorted(const uint64_t *sorted, size_t n, double p);
/* qsort of n values, ascending */
void sort_u64(uint64_t *v, size_t n);

#endif
