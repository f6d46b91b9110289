/*
 * seq-read's files: made in the runner's scratch (or our own directory in
 * dir), filled with a pattern or fallocated, read once so that the timed
 * reads find them cached; after the run, checked still cached and intact.
 */
#include "seq_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/fs.h"
#include "sys/hist.h"

/* Bytes of the first size bytes of fd in the page cache; -errno. */
static int cached_bytes(int fd, uint64_t size, uint64_t *out)
{
	const uint64_t win = 256ull << 20;
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	uint64_t off, n = 0;

	vec = malloc(win / (uint64_t)page);
	if (!vec)
		return -ENOMEM;
	for (off = 0; off < size; off += win) {
		uint64_t len = size - off < win ? size - off : win, i, pages;
		void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd,
			       (off_t)off);

		if (p == MAP_FAILED) {
			free(vec);
			return -errno;
		}
		if (mincore(p, len, vec)) {
			int r = -errno;

			munmap(p, len);
			free(vec);
			return r;
		}
		pages = (len + (uint64_t)page - 1) / (uint64_t)page;
		for (i = 0; i < pages; i++)
			if (vec[i] & 1)
				n += (uint64_t)page;
		munmap(p, len);
	}
	free(vec);
	*out = n > size ? size : n;
	return 0;
}

/* Real data: each 4 KiB block holds its index, so a stale block shows. */
static void fill_pattern(char *buf, size_t len, uint64_t off)
{
	size_t i;

	for (i = 0; i < len; i += BLOCK) {
		uint64_t blk = (off + i) / BLOCK;
		size_t n = len - i < BLOCK ? len - i : BLOCK;

		memset(buf + i, (int)(blk % 251) + 1, n);
	}
}

static int populate(struct wl_case *c, struct state *st, int fd,
		    const char *path, struct strbuf *err)
{
	const size_t chunk = 1 << 20;
	char hs[32], *buf;
	unsigned long magic;
	uint64_t off;

	human_size(st->size, hs, sizeof(hs));
	if (prm(c)->populate == POP_FALLOCATE) {
		if (fallocate(fd, 0, 0, (off_t)st->size))
			return err_setf(err, "cannot fallocate %s (%s): %s",
					path, hs, strerror(errno));
		return 0;
	}
	buf = malloc(chunk);
	if (!buf)
		return err_setf(err, "out of memory");
	for (off = 0; off < st->size; off += chunk) {
		size_t len = st->size - off < chunk ? st->size - off : chunk;
		ssize_t w;

		fill_pattern(buf, len, off);
		w = pwrite(fd, buf, len, (off_t)off);
		if (w != (ssize_t)len) {
			int r = w < 0 ? errno : 0;

			free(buf);
			if (r == EINTR || *c->stop)
				return err_setf(err, "interrupted");
			return err_setf(err, "cannot write %s (%s): %s", path,
					hs, r ? strerror(r) : "short write");
		}
		if (*c->stop) {
			free(buf);
			return err_setf(err, "interrupted");
		}
		if (c->progress)
			c->progress("writing", off + len, st->size);
	}
	free(buf);
	/* on a disk filesystem, writeback must not run behind the reads */
	if (!fs_fd_magic(fd, &magic) && magic != TMPFS_MAGIC && fdatasync(fd))
		return err_setf(err, "cannot fdatasync %s: %s", path,
				strerror(errno));
	return 0;
}

/* Read the file once, untimed, so that the timed reads find it cached. */
static int warm(struct wl_case *c, struct state *st, int fd, const char *path,
		struct strbuf *err)
{
	char *buf = malloc(1 << 20);
	uint64_t off;

	if (!buf)
		return err_setf(err, "out of memory");
	for (off = 0; off < st->size; off += 1 << 20) {
		ssize_t r = pread(fd, buf, 1 << 20, (off_t)off);

		if (r <= 0 || *c->stop) {
			free(buf);
			if (*c->stop || (r < 0 && errno == EINTR))
				return err_setf(err, "interrupted");
			return err_setf(err, "cannot read %s: %s", path,
					r ? strerror(errno) : "end of file");
		}
		if (c->progress)
			c->progress("caching", off, st->size);
	}
	free(buf);
	return 0;
}

/* The runner's scratch, or our own scratch dir inside the given dir. */
static int pick_dir(struct wl_case *c, struct state *st, struct strbuf *err)
{
	return wl_files_dir(prm(c)->dir, default_dir(c), c->scratch, &st->dir,
			    err);
}

int seq_read_files(struct wl_case *c, struct state *st, struct strbuf *err)
{
	int i, r, fd = -1;
	struct stat sb;
	uint64_t cached;

	if (st->nfiles) {
		r = pick_dir(c, st, err);
		if (r)
			return r;
	}
	st->cached_known = true;
	for (i = 0; i < st->nfiles || (i == 0 && given_file(c)); i++) {
		const char *path;

		if (st->nfiles) {
			strbuf_addf(&st->paths[i], "%s/seq-read.%d.%d",
				    st->dir.buf, c->rep, i);
			path = st->paths[i].buf;
			fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
				  0600);
			if (fd < 0)
				return err_setf(err, "cannot create %s: %s",
						path, strerror(errno));
			st->made[i] = true;
			r = populate(c, st, fd, path, err);
		} else {
			path = prm(c)->file;
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				return err_setf(err, "cannot open %s: %s", path,
						strerror(errno));
			r = 0;
		}
		if (!r && !fstat(fd, &sb))
			st->allocated += (uint64_t)sb.st_blocks * 512;
		cached = 0;
		if (!r && (cached_bytes(fd, st->size, &cached) ||
			   cached < st->size)) {
			r = warm(c, st, fd, path, err);
			if (!r && cached_bytes(fd, st->size, &cached)) {
				st->cached_known = false;	/* no mmap */
				cached = 0;
			}
		}
		st->cached_before += cached;
		close(fd);
		fd = -1;
		if (r)
			return r;
	}
	return 0;
}

/* Is block blk of fd what fill_pattern wrote? */
static bool block_ok(int fd, uint64_t blk, char *buf)
{
	int want = (int)(blk % 251) + 1;
	ssize_t got = pread(fd, buf, BLOCK, (off_t)(blk * BLOCK));
	ssize_t i;

	if (got <= 0)
		return false;
	for (i = 0; i < got; i++)
		if (buf[i] != (char)want)
			return false;
	return true;
}

/*
 * The files after the run: the bytes of them still cached (or
 * st->cached_known false), and whether the ones we wrote hold the pattern
 * at both ends.
 */
static bool files_after(struct wl_case *c, struct state *st,
			uint64_t *cached_after)
{
	int i, nf = st->nfiles ? st->nfiles : 1;
	bool content_ok = true;
	char buf[BLOCK];
	uint64_t cached;

	for (i = 0; i < nf; i++) {
		const char *path = st->nfiles ? st->paths[i].buf :
					       prm(c)->file;
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0 || cached_bytes(fd, st->size, &cached)) {
			st->cached_known = false;
		} else {
			*cached_after += cached;
		}
		if (fd >= 0 && st->nfiles &&
		    prm(c)->populate == POP_WRITE &&
		    (!block_ok(fd, 0, buf) ||
		     !block_ok(fd, (st->size - 1) / BLOCK, buf)))
			content_ok = false;
		if (fd >= 0)
			close(fd);
	}
	return content_ok;
}

int seq_read_verify(struct wl_case *c, struct wl_sample *s,
		    struct strbuf *err)
{
	struct state *st = c->priv;
	uint64_t reads = 0, wraps = 0, bytes = 0, cached_after = 0;
	uint64_t timed;
	uint64_t want = st->size * (uint64_t)(st->nfiles ? st->nfiles : 1);
	bool content_ok;
	int i;

	(void)err;
	for (i = 0; i < st->nreaders; i++) {
		reads += st->r[i].reads;
		wraps += st->r[i].wraps;
		bytes += st->r[i].bytes;
	}
	content_ok = files_after(c, st, &cached_after);
	wl_note(s, "reads", (double)reads);
	wl_note(s, "bytes", (double)bytes);
	wl_note(s, "passes", (double)wraps);
	wl_note(s, "threads", st->nreaders);
	wl_note(s, "allocated_bytes", (double)st->allocated);
	wl_note(s, "clock_tsc", st->tsc);
	wl_note(s, "clock_cost_ns", st->clock_cost_ns);
	if (st->cached_known) {
		wl_note(s, "cached_before_bytes", (double)st->cached_before);
		wl_note(s, "cached_after_bytes", (double)cached_after);
	}
	if (st->perf_why[0])
		snprintf(s->text, sizeof(s->text), "perf counters not "
			 "supported here: %s", st->perf_why);
	if (!reads)
		wl_invalid(s, "no read completed in %llu ns",
			   (unsigned long long)st->duration);
	/* each reader timed its reads 0, N, 2N ...: ceil(reads / N) */
	for (i = 0, timed = 0; st->every && i < st->nreaders; i++)
		timed += (st->r[i].reads + st->every - 1) / st->every;
	wl_note(s, "lat_every", (double)st->every);
	wl_note(s, "timed_reads", (double)timed);
	if (st->r[0].hist->count != timed)
		wl_invalid(s, "the histogram holds %llu reads, not the %llu "
			   "timed (every %llu of %llu)",
			   (unsigned long long)st->r[0].hist->count,
			   (unsigned long long)timed,
			   (unsigned long long)st->every,
			   (unsigned long long)reads);
	if (st->nfiles && st->allocated < want)
		wl_invalid(s, "the file%s held %llu of %llu bytes (st_blocks)",
			   st->nfiles > 1 ? "s" : "",
			   (unsigned long long)st->allocated,
			   (unsigned long long)want);
	if (st->cached_known && (st->cached_before < want ||
				 cached_after < want))
		wl_invalid(s, "not all of the data was in the page cache "
			   "(%llu bytes before, %llu after, of %llu): reads "
			   "went to the backing store",
			   (unsigned long long)st->cached_before,
			   (unsigned long long)cached_after,
			   (unsigned long long)want);
	if (!content_ok)
		wl_invalid(s, "the file does not hold the data written to it");
	return 0;
}
