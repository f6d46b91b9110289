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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "need.h"
#include "sys/fs.h"
#include "sys/hist.h"
#include "sys/loopfs.h"
#include "sys/sys.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451	/* one number on every architecture */
#endif

#define LOOP_DIR	"ext4-loop"
#define CHECK_EVERY	500	/* iterations between page-cache checks */
#define KPF_COMPOUND_TAIL	16	/* bit of /proc/kpageflags */

enum op { OP_TRUNCATE };
static const char *const ops[] = { [OP_TRUNCATE] = "truncate", NULL };
static const char *const op_words[] = { [OP_TRUNCATE] = "ftruncate() to 0" };

/*
 * A case's params, as the config gave them (threads and mode are the
 * runner's).
 */
struct st_params {
	uint64_t count, pages;
	const char *dir;	/* LOOP_DIR or an absolute path */
	enum op op;
	uint64_t wsize;
};
WL_PARAMS_STRUCT(struct st_params);

static const struct param params[] = {
	{ WL_PARAM(struct st_params, count, "count"), PT_UINT, "10000", NULL,
	  1, 100000000, NULL, "truncates timed" },
	{ WL_PARAM(struct st_params, pages, "pages"), PT_UINT, "1024", NULL,
	  1, 1u << 26, NULL, "pages written before each truncate" },
	{ WL_PARAM(struct st_params, dir, "dir"), PT_DIR, LOOP_DIR, NULL, 0, 0,
	  NULL,
	  "ext4-loop: an ext4 on a loop device over a file in the runner's "
	  "scratch on /dev/shm; or any directory", .own = LOOP_DIR },
	{ WL_PARAM(struct st_params, op, "op"), PT_ENUM, "truncate", ops, 0, 0,
	  NULL, "the timed call: ftruncate to 0", op_words },
	{ WL_PARAM(struct st_params, wsize, "wsize"), PT_SIZE, "64k", NULL,
	  512, 64 << 20, NULL,
	  "bytes per write(2) filling the file; where the page cache has "
	  "large folios (ext4) it decides their size: 4k gives one folio "
	  "per page" },
	{ WL_RUN_PARAM(threads), PT_UINT, "1", NULL, 1, 1024, NULL,
	  "workers, each truncating its own file at the same time" },
	{ WL_RUN_PARAM(mode), PT_ENUM, "threads", wl_modes, 0, 0, NULL,
	  "workers as threads of one process (one mm) or as processes" },
	{ NULL },
};

/*
 * The median is the primary figure: a few truncates meet a journal
 * commit, a timer or a flusher and take several times longer, which moves
 * the mean from one repetition to the next far more than the median.
 */
/* The metrics, in the order of the table: wl_set_m(s, M_WALL, v). */
enum metric_id {
	M_P50, M_P1, M_P95, M_P99, M_MEAN, M_WALL, M_TRUNCATES_PER_S,
};

static const struct metric metrics[] = {
	[M_P50] = { "p50", "ns", LOWER_IS_BETTER, true,
	  "median time of one truncate" },
	[M_P1] = { "p1", "ns", LOWER_IS_BETTER, false, "1st percentile" },
	[M_P95] = { "p95", "ns", LOWER_IS_BETTER, false, "95th percentile" },
	[M_P99] = { "p99", "ns", LOWER_IS_BETTER, false, "99th percentile" },
	[M_MEAN] = { "mean", "ns", LOWER_IS_BETTER, false,
	  "mean time of one truncate" },
	[M_WALL] = { "wall", "ns", LOWER_IS_BETTER, false,
	  "the whole timed loop; with several workers, from the first one's "
	  "start to the last one's end" },
	[M_TRUNCATES_PER_S] = { "truncates_per_s", "/s", HIGHER_IS_BETTER,
	  false, "truncates of all workers over wall" },
	{ NULL },
};

struct cachestat_range {
	uint64_t off, len;
};

struct cachestat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted;
	uint64_t nr_recently_evicted;
};

/*
 * One worker's file and buffers.  t is in shared memory, so that the
 * runner's process sees the times of workers that are processes.
 */
struct worker {
	struct strbuf path;
	int fd;
	uint64_t *t;		/* ns of each truncate */
	char *buf;
	bool cachestat;		/* else mincore */
};

struct state {
	struct loopfs fs;
	bool loop;
	struct strbuf dir;	/* where the files are */
	struct worker *w;	/* [nw] */
	int nw;
	uint64_t count, len, page;
	size_t chunk;
	int64_t folios;		/* in worker 0's file; -errno if unknown */
};

/* A worker's page-cache checks around sampled truncates. */
struct checks {
	uint64_t checks, short_before, left_after, min_cached_before;
};

static bool loop_dir(const struct wl_case *c)
{
	return !strcmp(prm(c)->dir, LOOP_DIR);
}

static uint64_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (uint64_t)p : 4096;
}

static enum wl_verdict preflight(struct wl_case *c, struct strbuf *err)
{
	uint64_t len = prm(c)->pages * page_size(), need;
	const char *dir = loop_dir(c) ? c->scratch_base : prm(c)->dir;
	enum wl_verdict v;

	if (loop_dir(c) && loopfs_check(err))
		return WL_SKIP;
	/* every worker has a file of its own */
	len *= c->ps.run.threads;
	/* the image lives in memory, and the file's pages on top of it */
	need = loop_dir(c) ? loopfs_image_bytes(len) : len;
	v = wl_need_space(dir, need, loop_dir(c) ? " for the ext4 image" : "",
			  err);
	if (v != WL_OK)
		return v;
	return wl_need_memory(loop_dir(c) ? need + len : len,
			      loop_dir(c) ? " for the image and page cache" :
			      " for the page cache", err);
}

/* Pages of the file in the page cache; -errno. */
static int cached_pages(struct state *st, struct worker *wk, uint64_t len,
			uint64_t *out)
{
	struct cachestat_range range = { 0, 0 };	/* 0: to the end */
	struct cachestat cs;
	unsigned char *vec;
	uint64_t i, n = 0;
	void *p;

	if (wk->cachestat) {
		if (!syscall(__NR_cachestat, wk->fd, &range, &cs, 0)) {
			*out = cs.nr_cache;
			return 0;
		}
		if (errno != ENOSYS)
			return -errno;
		wk->cachestat = false;
	}
	if (!len) {
		*out = 0;
		return 0;
	}
	/* mapped only for the check and unmapped before the truncate */
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, wk->fd, 0);
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

static int pick_dir(struct wl_case *c, struct state *st, struct strbuf *err)
{
	int r;

	if (loop_dir(c)) {
		r = loopfs_create(&st->fs, c->scratch, "small-truncate",
				  loopfs_image_bytes(st->len *
						     (uint64_t)st->nw), err);
		st->loop = true;
		if (r)
			return -1;
		strbuf_addstr(&st->dir, st->fs.mnt.buf);
		return 0;
	}
	return wl_files_dir(prm(c)->dir, false, NULL, &st->dir, err);
}

static int fill(struct wl_case *c, struct state *st, struct worker *wk,
		struct strbuf *err)
{
	uint64_t off = 0;

	while (off < st->len) {
		size_t n = st->len - off < st->chunk ? st->len - off :
			   st->chunk;
		ssize_t w = pwrite(wk->fd, wk->buf, n, (off_t)off);

		if (w < 0 && errno == EINTR && !*c->stop)
			continue;
		if (w <= 0) {
			if (*c->stop)
				return err_setf(err, "interrupted");
			return err_setf(err, "cannot write %s: %s",
					wk->path.buf, w ? strerror(errno) :
					"wrote nothing");
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
static int64_t count_folios(struct state *st, int fd)
{
	uint64_t i, n = 0, pages = st->len / st->page, pme, flags;
	volatile const char *p;
	int pm = -1, kf = -1;
	int64_t r = 0;

	p = mmap(NULL, st->len, PROT_READ, MAP_SHARED, fd, 0);
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

/* Worker i's file, written once on its NUMA node to count its folios. */
static int make_worker(struct wl_case *c, struct state *st, int i,
		       struct strbuf *err)
{
	struct worker *wk = &st->w[i];
	struct strbuf path = STRBUF_INIT;
	size_t tlen = st->count * sizeof(*wk->t);
	int r;

	if (c->bind_memory && c->worker_cpus)
		c->bind_memory(c->worker_cpus[i]);
	wk->cachestat = true;
	strbuf_addf(&path, "%s/small-truncate.%d.%d", st->dir.buf, c->rep,
		    i);
	wk->fd = open(path.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (wk->fd < 0) {
		err_setf(err, "cannot create %s: %s", path.buf,
			 strerror(errno));
		strbuf_release(&path);
		return -1;
	}
	wk->path = path;	/* only now ours to remove */
	wk->t = mmap(NULL, tlen, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (wk->t == MAP_FAILED) {
		wk->t = NULL;
		return err_setf(err, "out of memory for %llu times",
				(unsigned long long)st->count);
	}
	wk->buf = malloc(st->chunk);
	if (!wk->buf)
		return err_setf(err, "out of memory");
	/* fault them in now, not between the truncates */
	memset(wk->t, 0, tlen);
	memset(wk->buf, 0x5a, st->chunk);
	/* one untimed round to see which folios the writes make */
	r = fill(c, st, wk, err);
	if (r)
		return r;
	/* a page at a time through procfs: bounded to 1 GiB of file */
	if (!i)
		st->folios = st->len <= (1ull << 30) ?
			     count_folios(st, wk->fd) : -E2BIG;
	if (ftruncate(wk->fd, 0))
		return err_setf(err, "cannot truncate %s: %s", wk->path.buf,
				strerror(errno));
	return 0;
}

static int setup(struct wl_case *c, struct strbuf *err)
{
	struct state *st = calloc(1, sizeof(*st));
	int i, r = 0;

	if (!st)
		return err_setf(err, "out of memory");
	c->priv = st;
	loopfs_init(&st->fs);
	st->page = page_size();
	st->count = prm(c)->count;
	st->len = prm(c)->pages * st->page;
	st->chunk = prm(c)->wsize;
	if (st->chunk > st->len)
		st->chunk = st->len;
	st->nw = c->nworkers > 0 ? c->nworkers : 1;
	st->w = calloc((size_t)st->nw, sizeof(*st->w));
	if (!st->w)
		return err_setf(err, "out of memory");
	for (i = 0; i < st->nw; i++)
		st->w[i].fd = -1;
	r = pick_dir(c, st, err);
	if (r)
		return r;
	for (i = 0; i < st->nw && !r; i++)
		r = make_worker(c, st, i, err);
	if (c->bind_memory)
		c->bind_memory(-1);
	return r;
}

/* Count the cached pages around a sampled truncate. */
static int check_cached(struct state *st, struct worker *wk, bool before,
			struct checks *k, struct strbuf *err)
{
	uint64_t n = 0, want = (st->len + st->page - 1) / st->page;
	int r = cached_pages(st, wk, st->len, &n);

	if (r)
		return err_setf(err, "cannot count the cached pages of %s: %s",
				wk->path.buf, strerror(-r));
	if (!before) {
		if (n)
			k->left_after++;
		return 0;
	}
	k->checks++;
	if (n < want)
		k->short_before++;
	if (n < k->min_cached_before)
		k->min_cached_before = n;
	return 0;
}

/* One worker's timed loop on its own file. */
static int run(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	struct worker *wk = &st->w[c->worker];
	struct checks k = { .min_cached_before = UINT64_MAX };
	uint64_t i, t0, t1, sum = 0, *t = wk->t;
	int r;

	s->t_begin = now_ns();
	for (i = 0; i < st->count; i++) {
		bool check = i % CHECK_EVERY == 0 || i == st->count - 1;

		r = fill(c, st, wk, err);
		if (r)
			return r;
		if (check && (r = check_cached(st, wk, true, &k, err)))
			return r;
		t0 = now_ns();
		r = ftruncate(wk->fd, 0);
		t1 = now_ns();
		if (r)
			return err_setf(err, "cannot truncate %s: %s",
					wk->path.buf, strerror(errno));
		t[i] = t1 - t0;
		if (check && (r = check_cached(st, wk, false, &k, err)))
			return r;
		if (*c->stop)
			return err_setf(err, "interrupted");
	}
	s->t_end = now_ns();
	for (i = 0; i < st->count; i++)
		sum += t[i];
	wl_note(s, "truncates", (double)st->count);
	wl_note(s, "cache_checks", (double)k.checks);
	wl_note(s, "min_cached_pages", (double)k.min_cached_before);
	wl_note(s, "checks_short", (double)k.short_before);
	wl_note(s, "checks_left_after", (double)k.left_after);
	wl_note(s, "cachestat", wk->cachestat);
	if (k.short_before)
		wl_invalid(s, "%llu of %llu checks found the file not fully "
			   "cached before the truncate (down to %llu of %llu "
			   "pages)", (unsigned long long)k.short_before,
			   (unsigned long long)k.checks,
			   (unsigned long long)k.min_cached_before,
			   (unsigned long long)(st->len / st->page));
	if (k.left_after)
		wl_invalid(s, "%llu of %llu checks found pages cached after "
			   "the truncate", (unsigned long long)k.left_after,
			   (unsigned long long)k.checks);
	/* the worker's own figures; combine merges every worker's times */
	wl_set_m(s, M_MEAN, (double)sum / (double)st->count);
	wl_set_m(s, M_WALL, (double)(s->t_end - s->t_begin));
	wl_set_m(s, M_TRUNCATES_PER_S, (double)st->count * 1e9 /
	       (double)(s->t_end - s->t_begin));
	return 0;
}

static double note_of(const struct wl_sample *s, const char *key)
{
	int i;

	for (i = 0; i < s->nnotes; i++)
		if (!strcmp(s->notes[i].key, key))
			return s->notes[i].v;
	return 0;
}

/* Percentiles over the truncates of every worker, from shared memory. */
static void combine(struct wl_case *c, const struct wl_sample *w, int n,
		    uint64_t span, struct wl_sample *s)
{
	struct state *st = c->priv;
	uint64_t total = st->count * (uint64_t)n, i, sum = 0, *all;
	double checks = 0, shrt = 0, left = 0, minc = INFINITY;
	int k;

	for (k = 0; k < n; k++) {
		checks += note_of(&w[k], "cache_checks");
		shrt += note_of(&w[k], "checks_short");
		left += note_of(&w[k], "checks_left_after");
		minc = fmin(minc, note_of(&w[k], "min_cached_pages"));
	}
	wl_note(s, "truncates", (double)total);
	wl_note(s, "cache_checks", checks);
	wl_note(s, "min_cached_pages", minc);
	wl_note(s, "checks_short", shrt);
	wl_note(s, "checks_left_after", left);
	wl_note(s, "cachestat", note_of(&w[0], "cachestat"));
	all = malloc(total * sizeof(*all));
	if (!all) {
		wl_invalid(s, "out of memory for %llu times",
			   (unsigned long long)total);
		return;
	}
	for (k = 0; k < n; k++)
		memcpy(all + (uint64_t)k * st->count, st->w[k].t,
		       st->count * sizeof(*all));
	for (i = 0; i < total; i++)
		sum += all[i];
	sort_u64(all, total);
	wl_set_m(s, M_P1, (double)pct_sorted(all, total, 1));
	wl_set_m(s, M_P50, (double)pct_sorted(all, total, 50));
	wl_set_m(s, M_P95, (double)pct_sorted(all, total, 95));
	wl_set_m(s, M_P99, (double)pct_sorted(all, total, 99));
	wl_set_m(s, M_MEAN, (double)sum / (double)total);
	wl_set_m(s, M_WALL, (double)span);
	wl_set_m(s, M_TRUNCATES_PER_S, (double)total * 1e9 /
	       (double)(span ? span : 1));
	wl_note(s, "min", (double)all[0]);
	wl_note(s, "max", (double)all[total - 1]);
	free(all);
}

static int verify(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	unsigned long magic;
	struct stat sb;
	int i;

	(void)err;
	wl_note(s, "bytes_each", (double)st->len);
	if (st->folios >= 0)
		wl_note(s, "folios", (double)st->folios);
	if (!fs_fd_magic(st->w[0].fd, &magic))
		wl_note(s, "fs_magic", (double)magic);
	snprintf(s->text, sizeof(s->text), "%.180s; page cache counted with %s",
		 st->loop ? "ext4 on a loop device over a file in /dev/shm" :
		 st->dir.buf, note_of(s, "cachestat") ? "cachestat(2)" :
		 "mincore(2)");
	for (i = 0; i < st->nw; i++)
		if (fstat(st->w[i].fd, &sb) || sb.st_size != 0)
			wl_invalid(s, "%s is not empty after the truncates",
				   st->w[i].path.buf);
	return 0;
}

static void teardown(struct wl_case *c)
{
	struct state *st = c->priv;
	int i;

	if (!st)
		return;
	for (i = 0; st->w && i < st->nw; i++) {
		struct worker *wk = &st->w[i];

		if (wk->fd >= 0)
			close(wk->fd);
		if (wk->path.len)
			unlink(wk->path.buf);
		strbuf_release(&wk->path);
		if (wk->t)
			munmap(wk->t, st->count * sizeof(*wk->t));
		free(wk->buf);
	}
	if (st->loop)
		loopfs_destroy(&st->fs);
	strbuf_release(&st->dir);
	free(st->w);
	free(st);
	c->priv = NULL;
}

const struct workload wl_small_truncate = {
	.name = "small-truncate",
	.summary = "write a small file, time ftruncate to 0, many times: "
		   "percentiles of one truncate (ext4 on loop by default); "
		   "workers each truncate their own file at once",
	.params = params,
	.params_size = sizeof(struct st_params),
	.metrics = metrics,
	.preflight = preflight,
	.setup = setup,
	.run = run,
	.verify = verify,
	.teardown = teardown,
	.parallel = true,
	.combine = combine,
};
