/*
 * What shadow_truncate.c (the workload) lends the files of its runner's
 * side: shadow_control.c (the reader child started, followed and reaped)
 * and shadow_count.c (the shadow entries counted, or bounded).
 */
#ifndef FB_SHADOW_PRIV_H
#define FB_SHADOW_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "shadow_truncate.h"
#include "workload.h"
#include "sys/fuse_zero.h"
#include "sys/memcg.h"
#include "sys/quiesce.h"

/* linux/mman.h of 6.5+; Debian 12's headers lack them */
struct fb_cachestat_range {
	uint64_t off;
	uint64_t len;
};

struct fb_cachestat {
	uint64_t nr_cache;
	uint64_t nr_dirty;
	uint64_t nr_writeback;
	uint64_t nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * The machine-wide counters that say whether shadow entries went without
 * a trace in cachestat's absence: nodes freed by the shadow shrinker, and
 * page cache dropped with its shadow entries by drop_caches or with an
 * inode by the inode shrinker.
 */
struct counts {
	uint64_t nodereclaim, nodes, drop, inodesteal;
};

struct state {
	struct plan plan;
	struct memcg m;
	struct fuse_zero fz;
	bool fuse;
	struct strbuf dir;	/* fs=dir: our own directory, if any */
	struct strbuf path;	/* the file */
	pid_t reader;
	int ctl;		/* to the reader: closed = exit */
	int msgs;		/* from the reader */
	bool memory_reclaim;
	bool ra;		/* fill with readahead(2) */
	bool pin_vmas;		/* a mapping per pin: max_map_count raised */
	uint64_t t_setup;	/* ns, whole setup */
	uint64_t read_ns;
	uint64_t pin_ns, reclaim_ns, unpin_ns;
	struct quiesce_result quiet;	/* the wait before the call */
	struct quiesce_snap during;	/* what moved during the call */
	uint64_t during_steal;		/* ns stolen from our CPU then */
	uint64_t during_preempt;	/* involuntary switches then */
	uint64_t read_cpu_ns;	/* the reader's, pinning and reclaim included */
	uint64_t server_cpu_ns;	/* the FUSE server's during setup */
	/* /proc/vmstat at setup's start, after its wait, after the call */
	struct counts vm[3];
	bool refreshed;		/* stat_refresh folded each of them */
	bool have_cachestat;
	struct fb_cachestat cs;
	uint64_t resident;	/* without cachestat: mincore's count */
	uint64_t memcg_nodereclaim;	/* v2: the cgroup's own, at setup end */
};

static inline uint64_t since(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static inline uint64_t file_pages(const struct state *st)
{
	return (st->plan.size + PAGE - 1) / PAGE;
}

/* ---- shadow_control.c: the reader child ---- */

/* Start the reader in st->m, on the setup CPUs; 0, or -1 with err set. */
int shadow_start_reader(struct wl_case *c, struct state *st,
			struct strbuf *err);
/* Follow the reader until it is ready; poll stop all along. */
int shadow_wait_reader(struct wl_case *c, struct state *st,
		       struct strbuf *err);
/* Close its pipe and wait for it; nothing if it is gone. */
void shadow_reap_reader(struct state *st);

/* ---- shadow_count.c: the shadow entries, counted or bounded ---- */

/*
 * The counters, each CPU's pending deltas folded in first; whether the
 * fold was done.
 */
bool shadow_read_counts(struct counts *k);
/* cachestat(2) of the whole file; 0 or -errno (-ENOSYS before 6.5). */
int shadow_cachestat(const char *path, struct fb_cachestat *cs);
/* Pages of the file in the page cache, by mincore(2); 0 or -errno. */
int shadow_resident_pages(const char *path, uint64_t size, uint64_t *res);
/* Why no bound holds without cachestat, into buf; false if one does. */
bool shadow_unbounded(const struct state *st, char *buf, size_t n);
/* Shadow entries and cached pages: *evicted the least, *most the most. */
void shadow_counts(const struct state *st, uint64_t *evicted,
		   uint64_t *cached, uint64_t *most);

#endif
