/*
 * shadow-truncate's count of the shadow entries the timed call removes:
 * cachestat(2) where the kernel has it (6.5+), else a bound from the pages
 * not cached (mincore(2)) and the machine-wide counters of /proc/vmstat
 * that say how else a slot may have emptied.
 */
#include "shadow_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/proc.h"
#include "sys/sys.h"

#ifndef __NR_cachestat
#define __NR_cachestat	451	/* the same on every architecture */
#endif

/*
 * The counters, each CPU's pending deltas folded in first: unfolded, they
 * drift by up to a threshold per CPU, more than a 256 MiB file's 1024
 * nodes on 32 CPUs.  Returns whether the fold was done.
 */
bool shadow_read_counts(struct counts *k)
{
	static const char *const names[] = {
		"workingset_nodereclaim", "workingset_nodes", "drop_pagecache",
		"pginodesteal", "kswapd_inodesteal",
	};
	bool refreshed = !vmstat_refresh();
	uint64_t v[ARRAY_SIZE(names)];

	memset(k, 0, sizeof(*k));
	if (proc_vmstat(names, ARRAY_SIZE(names), v))
		return false;
	k->nodereclaim = v[0];
	k->nodes = v[1];
	k->drop = v[2];
	k->inodesteal = v[3] + v[4];
	return refreshed;
}

/*
 * Pages of the file in the page cache, by mincore(2) over a mapping of it
 * a GiB at a time: cachestat's nr_cache on kernels before 6.5.  Nothing is
 * faulted in or read.  0 or -errno.
 */
int shadow_resident_pages(const char *path, uint64_t size, uint64_t *res)
{
	unsigned char *vec = malloc(GiB / PAGE);
	uint64_t off, i, n = 0;
	int fd, r = 0;

	if (!vec)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(vec);
		return -errno;
	}
	for (off = 0; off < size && !r; off += GiB) {
		size_t len = (size_t)(size - off < GiB ? size - off : GiB);
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			       (off_t)off);

		if (p == MAP_FAILED) {
			r = -errno;
			break;
		}
		if (mincore(p, len, vec))
			r = -errno;
		for (i = 0; !r && i < (len + PAGE - 1) / PAGE; i++)
			n += vec[i] & 1;
		munmap(p, len);
	}
	close(fd);
	free(vec);
	*res = n;
	return r;
}

int shadow_cachestat(const char *path, struct fb_cachestat *cs)
{
	struct fb_cachestat_range range = { 0, 0 };	/* 0: to the end */
	const char *off = getenv("FOLIOBENCH_NO_CACHESTAT");
	int fd, r = 0;

	/* lets the tests take the fallback on kernels that have cachestat */
	if (off && *off == '1')
		return -ENOSYS;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(cs, 0, sizeof(*cs));
	if (syscall(__NR_cachestat, fd, &range, cs, 0))
		r = -errno;
	close(fd);
	return r;
}

/*
 * Why no bound holds without cachestat, into buf; false if one does.  The
 * bound counts on knowing every way a slot emptied: a fold of the
 * counters, and no drop_caches or inode steal (machine-wide, so another's
 * voids ours too: cautious).
 */
bool shadow_unbounded(const struct state *st, char *buf, size_t n)
{
	const struct counts *a = &st->vm[0], *b = &st->vm[2];

	if (!st->refreshed)
		snprintf(buf, n, "/proc/sys/vm/stat_refresh cannot be written "
			 "(not root?): unfolded, workingset_nodereclaim may lag "
			 "by a threshold per CPU");
	else if (since(a->drop, b->drop))
		snprintf(buf, n, "drop_caches ran during the setup "
			 "(drop_pagecache +%llu): it takes shadow entries "
			 "without a count", (unsigned long long)
			 since(a->drop, b->drop));
	else if (since(a->inodesteal, b->inodesteal))
		snprintf(buf, n, "the inode shrinker dropped page cache with "
			 "inodes during the setup (pginodesteal and "
			 "kswapd_inodesteal +%llu): shadow entries may have "
			 "gone with them", (unsigned long long)
			 since(a->inodesteal, b->inodesteal));
	else
		return false;
	return true;
}

/*
 * Shadow entries and cached pages: counted by cachestat, or without it
 * (kernels before 6.5) bounded.  Every page was cached once (read(2)
 * through all of it), so a page not cached now left a shadow entry when
 * reclaimed, or an empty slot where its pin was dropped or the shadow
 * shrinker freed its node (64 slots each, machine-wide: cautious).  What
 * the pins and freed nodes may account for is taken off: *evicted is the
 * least count, *most the most.
 */
void shadow_counts(const struct state *st, uint64_t *evicted,
		   uint64_t *cached, uint64_t *most)
{
	uint64_t pages = file_pages(st), lost, res;
	char why[256];

	if (st->have_cachestat) {
		*evicted = *most = st->cs.nr_evicted;
		*cached = st->cs.nr_cache;
		return;
	}
	res = st->resident < pages ? st->resident : pages;
	*cached = res;
	*most = pages - res;
	lost = 64 * since(st->vm[0].nodereclaim, st->vm[2].nodereclaim);
	if (st->plan.keep == KEEP_PIN)
		lost += (st->plan.size + PIN_STRIDE - 1) / PIN_STRIDE;
	*evicted = *most > lost ? *most - lost : 0;
	if (shadow_unbounded(st, why, sizeof(why)))
		*evicted = 0;
}
