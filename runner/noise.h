/*
 * The noise record: steal time of the measuring PUs over a sample's timed
 * region, context switches of the measuring threads, the CPU frequency
 * where the VM exposes one; and `bench check`'s look at the machine now.
 */
#ifndef FB_NOISE_H
#define FB_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"

struct noise {
	uint64_t steal0;	/* ticks of the PUs at the start */
	bool known;		/* /proc/stat could be read both times */
	double steal_ns;	/* over the timed region, all PUs summed */
	double steal_pct;	/* of wall time × PUs */
	int64_t nvcsw, nivcsw;	/* of the measuring threads */
	double freq_mhz;	/* mean over the PUs; NAN when not exposed */
	double steal_max;	/* the threshold it was judged by */
	bool noisy;
};

/* Steal ticks (USER_HZ) of these PUs summed; -1 if unreadable. */
int noise_steal_ticks(const int *pus, int n, uint64_t *sum);
/* Mean scaling_cur_freq of these PUs in MHz; NAN if none exposes one. */
double noise_freq_mhz(const int *pus, int n);
void noise_begin(struct noise *z, const int *pus, int n);
/* Close the record over wall ns on n PUs, judged against steal_max %. */
void noise_end(struct noise *z, const int *pus, int n, uint64_t wall,
	       double steal_max);
/* The record as a JSON object. */
void noise_json(const struct noise *z, struct strbuf *sb);
/*
 * Why numbers taken now may be noisy, one reason a line into out: few
 * usable PUs, steal in the last second, frequency scaling, a heavy
 * process.  Watches the machine for one second.
 */
void noise_now(const int *pus, int n, struct strbuf *out);

#endif
