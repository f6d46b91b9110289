/*
 * shadow-truncate's reader: a child in the cgroup that reads the file and
 * has it reclaimed as it goes, pinning one page per xarray leaf node (or
 * holding a ballast) so that the shadow entries escape the shrinker, and
 * says how far it got through a pipe (struct msg).
 */
#include "shadow_truncate.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/common.h"
#include "sys/memcg.h"
#include "sys/parts.h"

#define PROGRESS_STEP	(64 * MiB)
/* pinning: threads at most, and progress every so many bytes of file */
#define PIN_THREADS_MAX	16
#define PIN_PROGRESS	(1024 * PIN_STRIDE)

static void say(int fd, int kind, const char *what, uint64_t done,
		uint64_t total, uint64_t ns)
{
	struct msg m;

	memset(&m, 0, sizeof(m));
	m.kind = kind;
	m.done = done;
	m.total = total;
	m.ns = ns;
	snprintf(m.what, sizeof(m.what), "%s", what ? what : "");
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(3);
}

/* The read is done: its time, and the CPU time of all the readers. */
static void say_read(int fd, uint64_t size, uint64_t ns, uint64_t pin_ns)
{
	struct rusage ru;
	struct msg m;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_PROGRESS;
	m.done = m.total = size;
	m.ns = ns;
	m.pin_ns = pin_ns;
	if (!getrusage(RUSAGE_SELF, &ru))
		m.cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
			   1000000000ull +
			   (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) *
			   1000ull;
	snprintf(m.what, sizeof(m.what), "reading");
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m))
		_exit(3);
}

static void __attribute__((noreturn, format(printf, 2, 3)))
fail(int fd, const char *fmt, ...)
{
	struct msg m;
	va_list ap;

	memset(&m, 0, sizeof(m));
	m.kind = MSG_ERROR;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	if (write(fd, &m, sizeof(m)) < 0)
		_exit(2);
	_exit(1);
}

/*
 * Pinning ahead of the read, where vm.max_map_count cannot be raised for a
 * mapping per pin (pin_chunk): the pins then share one mapping, whose
 * fault-around would map (and lock) cached neighbours, so they are taken
 * before anything else is cached.  That is one single-page FUSE read and
 * one fault per 256 KiB, 819200 of each for 200 GiB: a round trip to the
 * server each, so it is bound by
 * latency, and threads, one per PU, keep more of them in flight (measured
 * on the 2-vCPU VM, 8 GiB: 0.73-0.89 s with two threads against 1.04-1.58 s
 * with one, alternating).  The pages are asked for with WILLNEED, which
 * queues their reads without waiting for each, then mapped with
 * MADV_POPULATE_READ rather than touched: a fault taken from user space
 * costs more than the same fault taken in a system call in this VM (8 GiB:
 * 0.84-1.15 s against 1.44-3.94 s).
 */
struct pin_part {
	struct part part;	/* first: parts_run's */
	int fd, out;
	char *map;
	uint64_t size;
	int err;
};

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t pin_done, pin_next;

static void pin_progress(const struct pin_part *p, uint64_t n)
{
	pthread_mutex_lock(&pin_lock);
	pin_done += n;
	if (pin_done >= pin_next) {
		say(p->out, MSG_PROGRESS, "pinning", pin_done / 2, p->size, 0);
		pin_next += PIN_PROGRESS;
	}
	pthread_mutex_unlock(&pin_lock);
}

static void *pin_range(void *arg)
{
	struct pin_part *p = arg;
	uint64_t off, end = p->part.off + p->part.len, n = 0;

	for (off = p->part.off; off < end; off += PIN_STRIDE) {
		posix_fadvise(p->fd, (off_t)off, PAGE, POSIX_FADV_WILLNEED);
		if ((n += PIN_STRIDE) == PIN_PROGRESS) {
			pin_progress(p, n);
			n = 0;
		}
	}
	for (off = p->part.off; off < end; off += PIN_STRIDE) {
		/* MLOCK_ONFAULT: mapped is locked */
		if (madvise(p->map + off, PAGE, MADV_POPULATE_READ)) {
			p->err = errno;
			break;
		}
		if ((n += PIN_STRIDE) == PIN_PROGRESS) {
			pin_progress(p, n);
			n = 0;
		}
	}
	return NULL;
}

/*
 * Split [0, size) into parts of whole pin strides, one per thread (at
 * most PIN_THREADS_MAX), and run fn on each part of parts (parts_run).
 * Returns the number of parts.
 */
static int run_parts(struct pin_part *parts, int threads, int fd,
		     uint64_t size, void *(*fn)(void *))
{
	int i, n = threads < 1 ? 1 : threads > PIN_THREADS_MAX ?
		   PIN_THREADS_MAX : threads;

	for (i = 0; i < n; i++)
		parts[i].fd = fd;
	parts_run(parts, sizeof(*parts), n, size, PIN_STRIDE, fn);
	return n;
}

/*
 * Pin one page per xarray leaf node.  MLOCK_ONFAULT locks only what is
 * faulted in, and MADV_RANDOM keeps the fault from reading ahead; nothing
 * else of the file is cached yet, so fault-around maps no neighbour.
 */
static char *pin_pages(int fd, const char *path, uint64_t size, int threads,
		       int out)
{
	struct pin_part parts[PIN_THREADS_MAX];
	char *map;
	int i, n;

	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		fail(out, "cannot mmap %s: %s", path, strerror(errno));
	if (madvise(map, size, MADV_RANDOM))
		fail(out, "cannot madvise %s: %s", path,
		     strerror(errno));
	if (mlock2(map, size, MLOCK_ONFAULT))
		fail(out, "cannot mlock %s: %s", path, strerror(errno));
	pin_done = 0;
	pin_next = PIN_PROGRESS;
	memset(parts, 0, sizeof(parts));
	for (i = 0; i < PIN_THREADS_MAX; i++) {
		parts[i].out = out;
		parts[i].map = map;
		parts[i].size = size;
	}
	n = run_parts(parts, threads, fd, size, pin_range);
	for (i = 0; i < n; i++)
		if (parts[i].err)
			fail(out, "cannot map a page of %s: %s", path,
			     strerror(parts[i].err));
	return map;
}

static void *drop_range(void *arg)
{
	const struct pin_part *p = arg;
	uint64_t off;

	for (off = p->part.off; off < p->part.off + p->part.len;
	     off += PIN_STRIDE)
		posix_fadvise(p->fd, (off_t)off, PAGE, POSIX_FADV_DONTNEED);
	return NULL;
}

/*
 * Drop the pins without reclaim: an invalidated page leaves no shadow.
 * The pinned pages are dropped one fadvise(2) each, by as many threads as
 * the setup has PUs (measured, 32 GiB on the 2-vCPU VM, alternating: two
 * threads 0.26-0.30 s, one 0.46-0.47 s).
 */
static void unpin_pages(int fd, char *map, uint64_t maplen, uint64_t size,
			int threads)
{
	struct pin_part parts[PIN_THREADS_MAX];

	munmap(map, maplen);
	memset(parts, 0, sizeof(parts));
	run_parts(parts, threads, fd, size, drop_range);
}


/*
 * Pin the pages of [from, to) that start an xarray leaf node, each in a
 * one-page mapping of its own, locked and populated by mmap(2) itself.
 * Called on a chunk just read, while all of it is still cached: no read of
 * its own, and a mapping of one page leaves fault-around nothing else to
 * map (and lock).  Measured against pin_pages(), 8 GiB, alternating: the
 * same 2064384 shadow entries, 3.73 s of CPU (reader and server) against
 * 4.34 s.
 */
static void pin_chunk(const struct reader_args *a, int fd, char *base,
		      uint64_t from, uint64_t to)
{
	uint64_t off = (from + PIN_STRIDE - 1) / PIN_STRIDE * PIN_STRIDE;

	for (; off < to; off += PIN_STRIDE)
		if (mmap(base + off / PIN_STRIDE * PAGE, PAGE, PROT_READ,
			 MAP_SHARED | MAP_FIXED | MAP_POPULATE | MAP_LOCKED,
			 fd, (off_t)off) == MAP_FAILED)
			fail(a->out, "cannot map and lock page %llu of %s: %s",
			     (unsigned long long)(off / PAGE), a->path,
			     strerror(errno));
}

/*
 * Bring the file into the page cache, READ_BUF at a time.  With a.ra,
 * readahead(2) instead of read(2): the same pages enter the cache and leave
 * it through the same reclaim, but nothing is copied to user space
 * (measured, 8 GiB on FUSE: 2.99 s of CPU against 3.84 s, reader and
 * server).  readahead(2) does not wait for the reads, so each call first
 * waits for the previous chunk with a one-byte read of its last page, which
 * holds the reads in flight to one chunk.  With pins, each chunk's are
 * taken once it has been read.  Fails (the reader exits) on an error.
 *
 * One reader: this loop is the setup's critical path, its time the
 * kernel's (adding and charging each page, and the reclaim the limit asks
 * of whoever charges: a quarter to a third of the reader's and the
 * server's CPU together), while the server zero-fills on the other PU.
 * Two readers, each on half the file, contend on the mapping's and the
 * LRU's locks: measured on the 2-vCPU VM (8 GiB, keep=pin, 8 runs each,
 * alternating, chrt -f 10), 3246 MiB/s against 3134 (within the scatter)
 * for 1.2x the reader's CPU.  make bench-fill holds this loop against the
 * bare FUSE read.
 */
static void fill(const struct reader_args *a, int fd, char *pins)
{
	uint64_t off = 0, since = 0, prev = 0, next = PROGRESS_STEP;
	char *buf = aligned_alloc(PAGE, READ_BUF);
	ssize_t n;
	int r;

	if (!buf)
		fail(a->out, "out of memory");
	while (off < a->size) {
		uint64_t len = a->size - off < READ_BUF ? a->size - off :
			       READ_BUF;

		if (a->ra) {
			if (readahead(fd, (off_t)off, len))
				fail(a->out, "cannot read ahead %s at %llu: "
				     "%s", a->path, (unsigned long long)off,
				     strerror(errno));
			errno = 0;
			if (prev && pread(fd, buf, 1, (off_t)(prev - PAGE)) != 1) {
				off = prev - PAGE;
				break;
			}
			if (prev && pins)
				pin_chunk(a, fd, pins, prev - READ_BUF, prev);
			prev = off + len;
			n = (ssize_t)len;
		} else {
			errno = 0;
			n = pread(fd, buf, len, (off_t)off);
			if (n <= 0)
				break;
			if (pins)
				pin_chunk(a, fd, pins, off, off + (uint64_t)n);
		}
		off += (uint64_t)n;
		since += (uint64_t)n;
		if (a->memory_reclaim && since >= a->step) {
			/* -EAGAIN: less than asked; the limit backs it up */
			r = memcg_reclaim(a->m, since);
			if (r && r != -EAGAIN)
				fail(a->out, "cannot write %s/memory."
				     "reclaim: %s", a->m->path.buf,
				     strerror(-r));
			since = 0;
		}
		if (off >= next) {
			say(a->out, MSG_PROGRESS, "reading", off, a->size, 0);
			next += PROGRESS_STEP;
		}
	}
	errno = 0;
	if (off == a->size && prev &&
	    pread(fd, buf, 1, (off_t)(prev - PAGE)) != 1)
		off = prev - PAGE;
	else if (off == a->size && prev && pins)
		pin_chunk(a, fd, pins, (prev - 1) / READ_BUF * READ_BUF, prev);
	if (off != a->size)
		fail(a->out, "cannot read %s at %llu: %s", a->path,
		     (unsigned long long)off, errno ? strerror(errno) :
		     "end of file");
	free(buf);
}

void shadow_reader(const struct reader_args *a)
{
	uint64_t t0, tp, unevictable, maplen = 0;
	char *map = NULL, c;
	int fd, r;

	/* die with the runner; its signals are its to handle */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* wait until the runner has moved us into the cgroup */
	if (read(a->ctl, &c, 1) != 1)
		_exit(1);
	if (a->ballast) {
		void *b = mmap(NULL, a->ballast, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
			       0);

		if (b == MAP_FAILED || mlock(b, a->ballast))
			fail(a->out, "cannot mlock a ballast of %llu "
			     "bytes: %s", (unsigned long long)a->ballast,
			     strerror(errno));
		/*
		 * The shrinker sizes its cap from the cgroup's statistics,
		 * which are flushed at most every two seconds: reading
		 * memory.stat flushes them now, so the ballast counts from
		 * the first reclaim on (measured: without this, 8G with a
		 * 1.25G ballast kept 53-60% of its shadow entries).
		 */
		memcg_stat(a->m, "unevictable", &unevictable);
	}
	fd = open(a->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail(a->out, "cannot open %s: %s", a->path,
		     strerror(errno));
	tp = now_ns();
	if (a->keep == KEEP_PIN && a->pin_vmas) {
		/* an address range for the one-page mappings of the pins */
		maplen = (a->size + PIN_STRIDE - 1) / PIN_STRIDE * PAGE;
		map = mmap(NULL, maplen, PROT_NONE, MAP_PRIVATE |
			   MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (map == MAP_FAILED)
			fail(a->out, "cannot reserve %llu bytes of address "
			     "space: %s", (unsigned long long)maplen,
			     strerror(errno));
	} else if (a->keep == KEEP_PIN) {
		maplen = a->size;
		map = pin_pages(fd, a->path, a->size, a->threads, a->out);
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	t0 = now_ns();
	fill(a, fd, a->pin_vmas ? map : NULL);
	say_read(a->out, a->size, now_ns() - t0, t0 - tp);
	tp = now_ns();
	/* evict what the read left cached, through the same reclaim */
	r = memcg_reclaim(a->m, UINT64_MAX);
	if (r && r != -EAGAIN)
		fail(a->out, "cannot reclaim %s: %s", a->m->path.buf,
		     strerror(-r));
	t0 = now_ns();
	if (map)
		unpin_pages(fd, map, maplen, a->size, a->threads);
	close(fd);
	say(a->out, MSG_READY, NULL, t0 - tp, 0, now_ns() - t0);
	/* hold the ballast (and our place in the cgroup) until teardown */
	while (read(a->ctl, &c, 1) > 0)
		;
	_exit(0);
}
