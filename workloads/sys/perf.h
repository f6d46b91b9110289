/*
 * The counters `perf stat` shows by default, read through perf_event_open
 * for the calling thread (kernel and user), so that a workload can count
 * exactly its timed loop.  A counter the kernel or the VM refuses, or one
 * that never got onto the PMU, is unsupported with the reason, never 0.
 */
#ifndef FB_PERF_H
#define FB_PERF_H

#include <stdbool.h>
#include <stdint.h>

enum perf_id {
	PERF_TASK_CLOCK,	/* ns */
	PERF_CONTEXT_SWITCHES,
	PERF_CPU_MIGRATIONS,
	PERF_PAGE_FAULTS,
	PERF_INSTRUCTIONS,
	PERF_CYCLES,
	PERF_BRANCHES,
	PERF_BRANCH_MISSES,
	PERF_NR
};

struct perf_set {
	int fd[PERF_NR];
	int err[PERF_NR];	/* 0, or -errno: why it cannot be counted */
	uint64_t value[PERF_NR];	/* scaled if it was multiplexed */
	bool scaled[PERF_NR];	/* it shared the PMU: value is an estimate */
};

/* "task_clock", "context_switches", ... (metric names) */
const char *perf_name(enum perf_id id);

/* All closed and marked not opened; safe to perf_close. */
void perf_init(struct perf_set *p);
/*
 * Open every counter, disabled, for the calling thread.  Returns how many
 * could be opened; the others keep their reason in err[].
 */
int perf_open(struct perf_set *p);
void perf_enable(struct perf_set *p);
void perf_disable(struct perf_set *p);
/*
 * Read the opened counters.  A counter that was enabled but never ran
 * (no PMU slot) is marked unsupported (-EOPNOTSUPP).
 */
void perf_read(struct perf_set *p);
void perf_close(struct perf_set *p);
static inline bool perf_ok(const struct perf_set *p, enum perf_id id)
{
	return p->err[id] == 0;
}
/*
 * Add the values of src into sum; a counter stays supported in sum only if
 * it is in both.  Start sum with perf_sum_init.
 */
void perf_sum_init(struct perf_set *sum);
void perf_add(struct perf_set *sum, const struct perf_set *src);

#endif
