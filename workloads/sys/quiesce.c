/* Waiting for reclaim, compaction and the shadow shrinker to be idle. */
#include "quiesce.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"
#include "proc.h"

static const char *const names[QC_NR] = {
	[QC_PGSCAN_KSWAPD] = "pgscan_kswapd",
	[QC_PGSCAN_DIRECT] = "pgscan_direct",
	[QC_COMPACT_MIGRATE] = "compact_migrate_scanned",
	[QC_COMPACT_FREE] = "compact_free_scanned",
	[QC_NODERECLAIM] = "workingset_nodereclaim",
	[QC_KSWAPD_NS] = "kswapd_ns",
};

const char *quiesce_name(enum quiesce_counter c)
{
	return c < QC_NR ? names[c] : "?";
}

/* kswapd threads are children of kthreadd (2) named kswapdN. */
static uint64_t kswapd_ns(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	uint64_t sum = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[300], comm[32];

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		if (read_file_str(path, comm, sizeof(comm)) ||
		    strncmp(comm, "kswapd", 6))
			continue;
		sum += proc_cpu_ns(atoi(de->d_name));
	}
	closedir(d);
	return sum;
}

int vmstat_refresh(void)
{
	const char *off = getenv("FOLIOBENCH_NO_STAT_REFRESH");
	int fd, r = 0;

	/* lets the tests see a refresh that cannot be done said */
	if (off && *off == '1')
		return -EACCES;
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/*
	 * Kernels before 5.13 fold every counter, then fail with EINVAL if
	 * one was negative: folded all the same.
	 */
	if (write(fd, "1\n", 2) != 2 && errno != EINVAL)
		r = -errno;
	close(fd);
	return r;
}

int quiesce_snap(struct quiesce_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->v[QC_KSWAPD_NS] = kswapd_ns();
	/* the counters before QC_KSWAPD_NS are /proc/vmstat's */
	return proc_vmstat(names, QC_KSWAPD_NS, s->v);
}

bool quiesce_same(const struct quiesce_snap *a, const struct quiesce_snap *b)
{
	int i;

	for (i = 0; i < QC_NR; i++)
		if (a->v[i] != b->v[i])
			return false;
	return true;
}

void quiesce_delta(const struct quiesce_snap *a, const struct quiesce_snap *b,
		   struct quiesce_snap *d)
{
	int i;

	for (i = 0; i < QC_NR; i++)
		d->v[i] = b->v[i] > a->v[i] ? b->v[i] - a->v[i] : 0;
}

int quiesce_wait(struct quiesce_result *r, uint64_t interval_ns, int quiet,
		 uint64_t timeout_ns, volatile sig_atomic_t *stop)
{
	struct quiesce_snap first, prev, cur;
	struct timespec ts = {
		.tv_sec = (time_t)(interval_ns / 1000000000ull),
		.tv_nsec = (long)(interval_ns % 1000000000ull),
	};
	uint64_t t0 = now_ns();
	int still = 0, e;

	memset(r, 0, sizeof(*r));
	/* workingset_nodereclaim is a node counter: folded, or it lags */
	vmstat_refresh();
	e = quiesce_snap(&first);
	if (e)
		return e;
	prev = first;
	while (still < quiet) {
		if ((stop && *stop) || now_ns() - t0 >= timeout_ns)
			break;
		nanosleep(&ts, NULL);
		vmstat_refresh();
		e = quiesce_snap(&cur);
		if (e)
			return e;
		still = quiesce_same(&prev, &cur) ? still + 1 : 0;
		prev = cur;
	}
	r->idle = still >= quiet;
	r->waited_ns = now_ns() - t0;
	quiesce_delta(&first, &prev, &r->moved);
	return 0;
}
