/*
 * small-truncate: write a small file so that it is page-cache resident
 * (untimed), then time ftruncate(fd, 0); many times over, reported as
 * percentiles of one truncate.  The benchmark of the patch that batched
 * radix tree operations when truncating (seeds/003: 10000 truncates of 1024
 * pages on ext4 on a ramdisk, 1% and 95% percentiles).
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sys/hist.h"
#include "sys/loopfs.h"
#include "sys/sys.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* one number on every architecture */
#endif

#define LOOP_DIR	"ext4-loop"
#define CHECK_EVERY	500	/* iterations between page-cache checks */
#define KPF_COMPOUND_TAIL	16	/* bit of /proc/kpageflags */

static const char *const ops[] = { "truncate", NULL };

static int check_dir(const char *val, char *buf, size_t n)
{
	if (strcmp(val, LOOP_DIR) && val[0] != '/') {
		snprintf(buf, n, "not \"%s\" nor an absolute path", LOOP_DIR);
		return -1;
	}
	return 0;
}

static const struct param params[] = {
	{ "count", PT_UINT, "10000", NULL, 1, 100000000, NULL,
	  "truncates timed" },
	{ "pages", PT_UINT, "1024", NULL, 1, 1u << 26, NULL,
	  "pages written before each truncate" },
	{ "dir", PT_STRING, LOOP_DIR, NULL, 0, 0, check_dir,
	  "ext4-loop: an ext4 on a loop device over a file in the runner's "
	  "scratch on /dev/shm; or any directory" },
	{ "op", PT_ENUM, "truncate", ops, 0, 0, NULL,
	  "the timed call: ftruncate to 0" },
	{ "wsize", PT_SIZE, "64k", NULL, 512, 64 << 20, NULL,
	  "bytes per write(2) filling the file; where the page cache has "
	  "large folios (ext4) it decides their size: 4k gives one folio "
	  "per page" },
	{ NULL },
};

/*
 * The median is the primary figure: a few truncates meet a journal
 * commit, a timer or a flusher and take several times longer, which moves
 * the mean from one repetition to the next far more than the median.
 */
static const struct metric metrics[] = {
	{ "p50", "ns", LOWER_IS_BETTER, true, "median time of one truncate" },
	{ "p1", "ns", LOWER_IS_BETTER, false, "1st percentile" },
	{ "p95", "ns", LOWER_IS_BETTER, false, "95th percentile" },
	{ "p99", "ns", LOWER_IS_BETTER, false, "99th percentile" },
	{ "mean", "ns", LOWER_IS_BETTER, false, "mean time of one truncate" },
	{ NULL },
};

struct cachestat_range {
	uint64_t off, len;
};

struct cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

struct state {
	struct loopfs fs;
	bool loop;
	char dir[4200];
	char path[4300];
	int fd;
	uint64_t count, len, page;
	uint64_t *t;		/* ns of each truncate */
	char *buf;
	size_t chunk;
	/* page-cache checks around sampled truncates */
	uint64_t checks, short_before, left_after, min_cached_before;
	bool cachestat;		/* else mincore */
	uint64_t done;
	int64_t folios;		/* in the written file; -errno if unknown */
};

static bool loop_dir(const struct wl_case *c)
{
	return !strcmp(wl_s(c, "dir"), LOOP_DIR);
}

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

static enum wl_verdict preflight(struct wl_case *c, struct wl_err *e)
{
	uint64_t len = wl_u(c, "pages") * page_size(), need, mem, avail;
	char dir[4200], why[256], a[32], b[32], d[32];
	struct statvfs sv;

	if (loop_dir(c) && loopfs_check(why, sizeof(why))) {
		wl_errf(e, "%s", why);
		return WL_SKIP;
	}
	/* the image lives in memory, and the file's pages on top of it */
	need = loop_dir(c) ? loopfs_image_bytes(len) : len;
	mem = (loop_dir(c) ? need + len : len) + (256 << 20);
	snprintf(dir, sizeof(dir), "%s",
		 loop_dir(c) ? c->scratch_base : wl_s(c, "dir"));
	if (statvfs(dir, &sv)) {
		wl_errf(e, "cannot use directory %s: %s", dir, strerror(errno));
		return WL_REFUSE;
	}
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (avail < need) {
		human_size(need, a, sizeof(a));
		human_size(avail, b, sizeof(b));
		human_size(need - avail, d, sizeof(d));
		wl_errf(e, "needs %s free in %s%s, has %s: short by %s", a, dir,
			loop_dir(c) ? " for the ext4 image" : "", b, d);
		return WL_REFUSE;
	}
	if (!meminfo_bytes("MemAvailable", &avail) && avail < mem) {
		human_size(mem, a, sizeof(a));
		human_size(avail, b, sizeof(b));
		human_size(mem - avail, d, sizeof(d));
		wl_errf(e, "needs %s of memory (%s, 256 MiB spare), "
			"MemAvailable is %s: short by %s", a,
			loop_dir(c) ? "image and page cache" : "page cache",
			b, d);
		return WL_REFUSE;
	}
	return WL_OK;
}

/* Pages of the file in the page cache; -errno. */
static int cached_pages(struct state *st, uint64_t len, uint64_t *out)
{
	struct cachestat_range range = { 0, 0 };	/* 0: to the end */
	struct cachestat cs;
	unsigned char *vec;
	uint64_t i, n = 0;
	void *p;

	if (st->cachestat) {
		if (!syscall(__NR_cachestat, st->fd, &range, &cs, 0)) {
			*out = cs.nr_cache;
			return 0;
		}
		if (errno != ENOSYS)
			return -errno;
		st->cachestat = false;
	}
	if (!len) {
		*out = 0;
		return 0;
	}
	/* mapped only for the check and unmapped before the truncate */
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, st->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	vec = malloc(len / st->page + 1);
	if (!vec || mincore(p, len, vec)) {
		int r = vec ? -errno : -ENOMEM;

		free(vec);
		munmap(p, len);
		return r;
	}
	for (i = 0; i < (len + st->page - 1) / st->page; i++)
		n += vec[i] & 1;
	free(vec);
	munmap(p, len);
	*out = n;
	return 0;
}

static int pick_dir(struct wl_case *c, struct state *st, struct wl_err *e)
{
	char err[512];
	int r;

	if (loop_dir(c)) {
		r = loopfs_create(&st->fs, c->scratch, "small-truncate",
				  loopfs_image_bytes(st->len), err,
				  sizeof(err));
		st->loop = true;
		if (r)
			return wl_errf(e, "%s", err);
		snprintf(st->dir, sizeof(st->dir), "%s", st->fs.mnt);
		return 0;
	}
	/* made once, reused by later repetitions */
	r = sys_scratch(wl_s(c, "dir"), st->dir, sizeof(st->dir));
	if (r)
		return wl_errf(e, "cannot make a scratch directory in %s: %s",
			       wl_s(c, "dir"), strerror(-r));
	return 0;
}

static int fill(struct wl_case *c, struct state *st, struct wl_err *e)
{
	uint64_t off = 0;

	while (off < st->len) {
		size_t n = st->len - off < st->chunk ? st->len - off :
			   st->chunk;
		ssize_t w = pwrite(st->fd, st->buf, n, (off_t)off);

		if (w < 0 && errno == EINTR && !*c->stop)
			continue;
		if (w <= 0) {
			if (*c->stop)
				return wl_errf(e, "interrupted");
			return wl_errf(e, "cannot write %s: %s", st->path,
				       w ? strerror(errno) : "wrote nothing");
		}
		off += (uint64_t)w;
	}
	return 0;
}

/*
 * Folios of the written file: map it, fault every page in, and count the
 * pages that are not the tail of a compound page (pagemap gives the PFN,
 * kpageflags its flags; both need root).  Done once in setup, untimed,
 * since the mapping itself would change what the truncate has to do.
 */
static int64_t count_folios(struct state *st)
{
	uint64_t i, n = 0, pages = st->len / st->page, pme, flags;
	volatile const char *p;
	int pm = -1, kf = -1;
	int64_t r = 0;

	p = mmap(NULL, st->len, PROT_READ, MAP_SHARED, st->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (pm < 0 || kf < 0) {
		r = -errno;
		goto out;
	}
	for (i = 0; i < pages; i++) {
		uint64_t va = (uint64_t)(uintptr_t)p + i * st->page;

		(void)p[i * st->page];		/* fault it in */
		if (pread(pm, &pme, 8, (off_t)(va / st->page * 8)) != 8 ||
		    !(pme >> 63) || !(pme & ((1ull << 55) - 1))) {
			r = -EPERM;	/* no PFN: not root */
			goto out;
		}
		if (pread(kf, &flags, 8,
			  (off_t)((pme & ((1ull << 55) - 1)) * 8)) != 8) {
			r = -errno;
			goto out;
		}
		if (!(flags & (1ull << KPF_COMPOUND_TAIL)))
			n++;
	}
	r = (int64_t)n;
out:
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	munmap((void *)p, st->len);
	return r;
}

static int setup(struct wl_case *c, struct wl_err *e)
{
	struct state *st = calloc(1, sizeof(*st));
	int r;

	if (!st)
		return wl_errf(e, "out of memory");
	c->priv = st;
	st->fd = -1;
	loopfs_init(&st->fs);
	st->page = page_size();
	st->count = wl_u(c, "count");
	st->len = wl_u(c, "pages") * st->page;
	st->cachestat = true;
	st->min_cached_before = UINT64_MAX;
	st->chunk = wl_u(c, "wsize");
	if (st->chunk > st->len)
		st->chunk = st->len;
	r = pick_dir(c, st, e);
	if (r)
		return r;
	snprintf(st->path, sizeof(st->path), "%s/small-truncate.%d", st->dir,
		 c->rep);
	st->fd = open(st->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (st->fd < 0)
		return wl_errf(e, "cannot create %s: %s", st->path,
			       strerror(errno));
	st->t = malloc(st->count * sizeof(*st->t));
	st->buf = malloc(st->chunk);
	if (!st->t || !st->buf)
		return wl_errf(e, "out of memory");
	/* fault them in now, not between the truncates */
	memset(st->t, 0, st->count * sizeof(*st->t));
	memset(st->buf, 0x5a, st->chunk);
	/* one untimed round to see which folios the writes make */
	r = fill(c, st, e);
	if (r)
		return r;
	/* a page at a time through procfs: bounded to 1 GiB of file */
	st->folios = st->len <= (1ull << 30) ? count_folios(st) : -E2BIG;
	if (ftruncate(st->fd, 0))
		return wl_errf(e, "cannot truncate %s: %s", st->path,
			       strerror(errno));
	return 0;
}

static int run(struct wl_case *c, struct wl_sample *s, struct wl_err *e)
{
	struct state *st = c->priv;
	uint64_t i, t0, t1, n, sum = 0;
	uint64_t want = (st->len + st->page - 1) / st->page;
	int r;

	for (i = 0; i < st->count; i++) {
		bool check = i % CHECK_EVERY == 0 || i == st->count - 1;

		r = fill(c, st, e);
		if (r)
			return r;
		if (check) {
			r = cached_pages(st, st->len, &n);
			if (r)
				return wl_errf(e, "cannot count the cached "
					       "pages of %s: %s", st->path,
					       strerror(-r));
			st->checks++;
			if (n < want)
				st->short_before++;
			if (n < st->min_cached_before)
				st->min_cached_before = n;
		}
		t0 = now_ns();
		r = ftruncate(st->fd, 0);
		t1 = now_ns();
		if (r)
			return wl_errf(e, "cannot truncate %s: %s", st->path,
				       strerror(errno));
		st->t[i] = t1 - t0;
		if (check) {
			r = cached_pages(st, st->len, &n);
			if (r)
				return wl_errf(e, "cannot count the cached "
					       "pages of %s: %s", st->path,
					       strerror(-r));
			if (n)
				st->left_after++;
		}
		if (*c->stop)
			return wl_errf(e, "interrupted");
	}
	st->done = st->count;
	for (i = 0; i < st->count; i++)
		sum += st->t[i];
	sort_u64(st->t, st->count);
	wl_set(s, c->wl, "p1", (double)pct_sorted(st->t, st->count, 1));
	wl_set(s, c->wl, "p50", (double)pct_sorted(st->t, st->count, 50));
	wl_set(s, c->wl, "p95", (double)pct_sorted(st->t, st->count, 95));
	wl_set(s, c->wl, "p99", (double)pct_sorted(st->t, st->count, 99));
	wl_set(s, c->wl, "mean", (double)sum / (double)st->count);
	wl_note(s, "min", (double)st->t[0]);
	wl_note(s, "max", (double)st->t[st->count - 1]);
	return 0;
}

static int verify(struct wl_case *c, struct wl_sample *s, struct wl_err *e)
{
	struct state *st = c->priv;
	struct statfs sf;
	struct stat sb;

	(void)c;
	(void)e;
	wl_note(s, "truncates", (double)st->done);
	wl_note(s, "bytes_each", (double)st->len);
	if (st->folios >= 0)
		wl_note(s, "folios", (double)st->folios);
	wl_note(s, "cache_checks", (double)st->checks);
	wl_note(s, "min_cached_pages", (double)st->min_cached_before);
	wl_note(s, "checks_short", (double)st->short_before);
	wl_note(s, "checks_left_after", (double)st->left_after);
	if (!fstatfs(st->fd, &sf))
		wl_note(s, "fs_magic", (double)sf.f_type);
	snprintf(s->text, sizeof(s->text), "%.180s; page cache counted with %s",
		 st->loop ? "ext4 on a loop device over a file in /dev/shm" :
		 st->dir, st->cachestat ? "cachestat(2)" : "mincore(2)");
	if (st->short_before)
		wl_invalid(s, "%llu of %llu checks found the file not fully "
			   "cached before the truncate (down to %llu of %llu "
			   "pages)", (unsigned long long)st->short_before,
			   (unsigned long long)st->checks,
			   (unsigned long long)st->min_cached_before,
			   (unsigned long long)(st->len / st->page));
	if (st->left_after)
		wl_invalid(s, "%llu of %llu checks found pages cached after "
			   "the truncate", (unsigned long long)st->left_after,
			   (unsigned long long)st->checks);
	if (fstat(st->fd, &sb) || sb.st_size != 0)
		wl_invalid(s, "the file is not empty after the truncates");
	return 0;
}

static void teardown(struct wl_case *c)
{
	struct state *st = c->priv;

	if (!st)
		return;
	if (st->fd >= 0)
		close(st->fd);
	if (st->path[0])
		unlink(st->path);
	if (st->loop)
		loopfs_destroy(&st->fs);
	free(st->t);
	free(st->buf);
	free(st);
	c->priv = NULL;
}

const struct workload wl_small_truncate = {
	.name = "small-truncate",
	.summary = "write a small file, time ftruncate to 0, many times: "
		   "percentiles of one truncate (ext4 on loop by default)",
	.params = params,
	.metrics = metrics,
	.preflight = preflight,
	.setup = setup,
	.run = run,
	.verify = verify,
	.teardown = teardown,
};
