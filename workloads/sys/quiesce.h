/*
 * Wait, before a timed call, until the kernel's background memory work has
 * stopped: kswapd and direct reclaim, compaction, the shadow-node shrinker.
 * Reclaim that is still running when a timed truncate starts contends for
 * the same locks and CPU, which shows as spread between repetitions.
 */
#ifndef FB_QUIESCE_H
#define FB_QUIESCE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

/* The counters watched: /proc/vmstat and the CPU time of kswapd. */
enum quiesce_counter {
	QC_PGSCAN_KSWAPD,
	QC_PGSCAN_DIRECT,
	QC_COMPACT_MIGRATE,
	QC_COMPACT_FREE,
	QC_NODERECLAIM,
	QC_KSWAPD_NS,		/* CPU time of every kswapd thread, ns */
	QC_NR,
};

struct quiesce_snap {
	uint64_t v[QC_NR];
};

struct quiesce_result {
	uint64_t waited_ns;
	bool idle;		/* reached within the timeout */
	/* what moved over the whole wait, per counter */
	struct quiesce_snap moved;
};

/*
 * Fold every CPU's pending counter deltas into /proc/vmstat (a write to
 * /proc/sys/vm/stat_refresh, root only): node counters such as
 * workingset_nodes and workingset_nodereclaim are otherwise off by up to
 * a threshold per CPU (84 each on a 32-vCPU guest), more than a small
 * file's nodes.  A trigger, nothing to put back.  0 or -errno.
 */
int vmstat_refresh(void);
/* Read the counters now; 0 or -errno. */
int quiesce_snap(struct quiesce_snap *s);
/* Whether nothing moved from a to b. */
bool quiesce_same(const struct quiesce_snap *a, const struct quiesce_snap *b);
/* b - a, counter by counter (0 where a counter went back). */
void quiesce_delta(const struct quiesce_snap *a, const struct quiesce_snap *b,
		   struct quiesce_snap *d);
/*
 * Poll every interval_ns until the counters have stood still for quiet
 * consecutive intervals, or timeout_ns has passed (then r->idle is false).
 * stop, when set, ends the wait early.  0 or -errno.
 */
int quiesce_wait(struct quiesce_result *r, uint64_t interval_ns, int quiet,
		 uint64_t timeout_ns, volatile sig_atomic_t *stop);
/* The name of a counter, for notes: "pgscan_kswapd", "kswapd_ns" ... */
const char *quiesce_name(enum quiesce_counter c);

#endif
