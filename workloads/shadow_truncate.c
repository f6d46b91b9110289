/*
 * shadow-truncate: read a file inside a memory cgroup, let real reclaim
 * evict its page cache so that (nearly) every page leaves a shadow entry,
 * then time the truncate (or unlink) that removes them.  The measurement of
 * the patch that removes shadow entries in one tree walk (seeds/002): a
 * 200 GiB file on FUSE, reclaimed with memory.reclaim, `truncate -s 0`.
 *
 * The shadow-node shrinker frees xarray nodes made only of shadow entries
 * beyond about 8 entries per page on the cgroup's LRU, and a cgroup whose
 * cache was just reclaimed holds few LRU pages.  keep=pin (the default on
 * FUSE) keeps every leaf node off the shrinker's list instead: as the read
 * goes, the reader mlocks one page in each 64 (one per leaf node, 256 KiB)
 * while its neighbours are still cached, so no node is ever made only of
 * shadow entries while reclaim runs; after
 * the last reclaim the pins are dropped with fadvise, which leaves an empty
 * slot, no shadow.  That is 63 shadow entries per node (98.4%) for 1/64 of
 * the file in memory, where the published way, keep=ballast (mlocked
 * anonymous memory of 1/8 of the file in the cgroup), needs 1/8.
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "need.h"
#include "shadow_priv.h"
#include "sys/memcg.h"
#include "sys/proc.h"
#include "sys/quiesce.h"
#include "sys/sys.h"

/* dir's word for the runner's own disk scratch */
#define OWN_DIR		"scratch"

/* before the timed call: reclaim still for 3 looks 100 ms apart, 10 s at most */
#define QUIET_INTERVAL	(100 * 1000000ull)
#define QUIET_INTERVALS	3
#define QUIET_TIMEOUT	(10 * 1000000000ull)
#define MAX_MAP_COUNT	"/proc/sys/vm/max_map_count"
#define MAP_COUNT_SLACK	4096	/* for all else the reader maps */

enum fs { FS_FUSE, FS_DIR };
enum op { OP_TRUNCATE, OP_UNLINK };
enum reclaim { RECLAIM_AUTO, RECLAIM_LIMIT, RECLAIM_MEMORY };

static const char *const fss[] = {
	[FS_FUSE] = "fuse", [FS_DIR] = "dir", NULL,
};
static const char *const opnames[] = {
	[OP_TRUNCATE] = "truncate", [OP_UNLINK] = "unlink", NULL,
};
static const char *const op_words[] = {
	[OP_TRUNCATE] = "truncate() to 0", [OP_UNLINK] = "unlink()",
};
static const char *const keeps[] = {
	[KEEP_AUTO] = "auto", [KEEP_PIN] = "pin", [KEEP_BALLAST] = "ballast",
	[KEEP_NONE] = "none", NULL,
};
static const char *const reclaims[] = {
	[RECLAIM_AUTO] = "auto", [RECLAIM_LIMIT] = "limit",
	[RECLAIM_MEMORY] = "memory.reclaim", NULL,
};

/* A case's params, as the config gave them. */
struct sh_params {
	uint64_t size;
	enum fs fs;
	const char *dir;	/* "scratch" or an absolute path */
	enum op op;
	enum keep keep;
	struct wl_sized ballast, limit;	/* bytes 0: auto */
	enum reclaim reclaim;
	uint64_t coverage;
};
WL_PARAMS_STRUCT(struct sh_params);

static const struct param params[] = {
	{ WL_PARAM(struct sh_params, size, "size"), PT_SIZE, "200G", NULL,
	  16 << 20, 1ull << 50, NULL,
	  "file size; where memory cannot hold what keeps its shadow "
	  "entries, the largest size that fits is used and said",
	  .say = WL_SAY_FILE },
	{ WL_PARAM(struct sh_params, fs, "fs"), PT_ENUM, "fuse", fss, 0, 0,
	  NULL,
	  "fuse: a zero file served by our own FUSE server, no disk; dir: a "
	  "sparse file in dir" },
	{ WL_PARAM(struct sh_params, dir, "dir"), PT_DIR, OWN_DIR, NULL, 0, 0,
	  NULL,
	  "fs=dir: a directory on a disk filesystem (scratch: the runner's "
	  "disk scratch)", .own = OWN_DIR },
	{ WL_PARAM(struct sh_params, op, "op"), PT_ENUM, "truncate", opnames,
	  0, 0, NULL, "the timed call: truncate(2) to 0 or unlink(2)",
	  op_words },
	{ WL_PARAM(struct sh_params, keep, "keep"), PT_ENUM, "auto", keeps, 0,
	  0, NULL,
	  "how shadow entries escape the shadow-node shrinker: pin one page "
	  "per xarray node during reclaim, a mlocked ballast, or none (auto: "
	  "pin on fuse, ballast on dir, whose large folios pins would split)" },
	{ WL_PARAM(struct sh_params, ballast, "ballast"), PT_SIZE_AUTO, "auto",
	  NULL, 0, 0, NULL,
	  "keep=ballast: mlocked anonymous memory in the cgroup (auto: 1/8 of "
	  "the file)" },
	{ WL_PARAM(struct sh_params, reclaim, "reclaim"), PT_ENUM, "auto",
	  reclaims, 0, 0, NULL,
	  "how the cache is evicted: the cgroup's limit during the read, or "
	  "memory.reclaim as it grows (v2 only); auto: memory.reclaim on v2, "
	  "limit on v1; what is left is reclaimed at the end either way" },
	{ WL_PARAM(struct sh_params, limit, "limit"), PT_SIZE_AUTO, "auto",
	  NULL, 0, 0, NULL,
	  "memory limit of the cgroup during the read (auto: what keep holds, "
	  "the shadow nodes and 256 MiB of page cache)" },
	{ WL_PARAM(struct sh_params, coverage, "coverage"), PT_PERCENT, "90",
	  NULL, 0, 100, NULL,
	  "least share of the file's pages with a shadow entry for a valid "
	  "sample" },
	{ NULL },
};

/* The metrics, in the order of the table: wl_set_m(s, M_WALL, v). */
enum metric_id {
	M_WALL, M_SYS, M_NS_PER_SHADOW, M_SHADOW_ENTRIES, M_CACHED_PAGES,
	M_COVERAGE,
};

static const struct metric metrics[] = {
	[M_WALL] = { "wall", "ns", LOWER_IS_BETTER, true,
	  "wall time of the truncate(2) or unlink(2) (CLOCK_MONOTONIC)" },
	[M_SYS] = { "sys", "ns", LOWER_IS_BETTER, false,
	  "system CPU time of the call (getrusage, thread)" },
	[M_NS_PER_SHADOW] = { "ns_per_shadow", "ns/entry", LOWER_IS_BETTER,
	  false, "wall time per shadow entry removed" },
	[M_SHADOW_ENTRIES] = { "shadow_entries", "count", HIGHER_IS_BETTER,
	  false,
	  "pages with a shadow entry before the call (cachestat nr_evicted; "
	  "one large folio's entry counts all its pages; before 6.5, the "
	  "least count that mincore and workingset_nodereclaim allow)", true },
	[M_CACHED_PAGES] = { "cached_pages", "count", LOWER_IS_BETTER, false,
	  "pages still cached before the call (cachestat nr_cache; before "
	  "6.5, mincore)", true },
	[M_COVERAGE] = { "coverage", "%", HIGHER_IS_BETTER, false,
	  "shadow entries per page of the file", true },
	{ NULL },
};

static enum keep keep_of(const struct wl_case *c)
{
	if (prm(c)->keep != KEEP_AUTO)
		return prm(c)->keep;
	/*
	 * Pins would split a disk filesystem's large folios (a cached page
	 * in every 256 KiB caps the folios readahead makes), changing what
	 * is measured; a ballast leaves them alone.
	 */
	return prm(c)->fs == FS_FUSE ? KEEP_PIN : KEEP_BALLAST;
}

/*
 * MemTotal as the size rule reads it.  FOLIOBENCH_MEMTOTAL (bytes, or with
 * a suffix) lets the tests play a smaller machine, so that a case is
 * shrunk at sizes a test can run; the run itself is real.
 */
static int mem_total_bytes(uint64_t *total)
{
	const char *fake = getenv("FOLIOBENCH_MEMTOTAL");

	if (fake && *fake)
		return parse_size(fake, total) ? -EINVAL : 0;
	return meminfo_bytes("MemTotal", total);
}

/*
 * Preflight's plan: the size from the rule above, written back into the
 * case's params (the runner's path to setup), so that the case is stored
 * under the size that runs, with the asked one beside it.
 */
static int make_plan(struct wl_case *c, struct plan *p)
{
	struct sh_params *pa = wl_params_mut(c);
	uint64_t total = 0, avail = 0;
	int r;

	memset(p, 0, sizeof(*p));
	p->asked = pa->size;
	p->keep = keep_of(c);
	if (mem_total_bytes(&total) || meminfo_bytes("MemAvailable", &avail))
		return -EIO;
	r = shadow_plan_size(p, total, avail, pa->limit.bytes,
			     pa->ballast.bytes);
	pa->size = p->size;
	return r;
}

/* Setup's plan: the size preflight decided, as the case now says. */
static void plan_as_given(const struct wl_case *c, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	p->asked = prm(c)->size;
	p->keep = keep_of(c);
	shadow_plan_fill(p, p->asked, prm(c)->limit.bytes,
			 prm(c)->ballast.bytes);
}

static bool use_memory_reclaim(const struct wl_case *c, const struct memcg *m)
{
	if (prm(c)->reclaim == RECLAIM_AUTO)
		return m->version == MEMCG_V2;
	return prm(c)->reclaim == RECLAIM_MEMORY;
}

/* "scratch", or another name of the runner's disk scratch base */
static bool default_dir(const struct wl_case *c)
{
	return wl_dir_own(prm(c)->dir, OWN_DIR, c->disk_scratch_base);
}

/* Can this machine's memory cgroup evict the cache as asked?  Else why. */
static int reclaim_offered(const struct wl_case *c, struct strbuf *err)
{
	struct memcg m;
	struct strbuf rp = STRBUF_INIT;
	bool none;

	if (memcg_detect(&m, err))
		return -1;
	/* the reader's last eviction writes it whatever reclaim is */
	strbuf_addf(&rp, "%s/memory.reclaim", m.root.buf);
	none = m.version == MEMCG_V2 && access(rp.buf, F_OK);
	if (none)
		err_setf(err, "cgroup v2 without memory.reclaim (no %s: a "
			 "kernel before 5.19): the page cache cannot be "
			 "reclaimed on demand", rp.buf);
	strbuf_release(&rp);
	memcg_destroy(&m);
	if (none)
		return -1;
	if (prm(c)->reclaim == RECLAIM_MEMORY && m.version != MEMCG_V2)
		return err_setf(err, "reclaim=memory.reclaim needs cgroup v2; "
				"this machine has the memory controller on "
				"cgroup v1 (reclaim=limit works on both)");
	return 0;
}

static enum wl_verdict preflight(struct wl_case *c, struct strbuf *err)
{
	char a[32], b[32], d[32], asked[32];
	uint64_t given_limit = prm(c)->limit.bytes;
	enum wl_verdict v;
	struct plan p;
	int r;

	format_size(prm(c)->size, asked, sizeof(asked));
	if (prm(c)->fs == FS_FUSE) {
		if (fuse_zero_available(err))
			return WL_SKIP;
	} else {
		/* a file system whose page cache leaves shadows */
		v = wl_need_disk(default_dir(c) ? c->disk_scratch_base :
				 prm(c)->dir, "fs=dir", "whose sparse files "
				 "cache nothing and leave no shadow entries",
				 err);
		if (v != WL_OK)
			return v;
	}
	if (reclaim_offered(c, err))
		return WL_SKIP;
	r = make_plan(c, &p);
	if (r == -EIO) {
		err_setf(err, "cannot read /proc/meminfo (or "
			 "FOLIOBENCH_MEMTOTAL is not a size)");
		return WL_REFUSE;
	}
	if (given_limit &&
	    given_limit < shadow_least_limit(p.keep, p.size, p.ballast)) {
		human_size(given_limit, a, sizeof(a));
		human_size(shadow_least_limit(p.keep, p.size, p.ballast), b,
			   sizeof(b));
		err_setf(err, "limit %s is below the %s the cgroup holds "
			 "besides page cache (what keep=%s holds and the "
			 "shadow nodes, plus 64 MiB): its reader would be "
			 "OOM-killed", a, b, keeps[p.keep]);
		return WL_REFUSE;
	}
	if (r == -ENOMEM) {
		human_size(p.limit, a, sizeof(a));
		human_size(p.budget, b, sizeof(b));
		human_size(p.limit - p.budget, d, sizeof(d));
		err_setf(err, "the cgroup needs %s of memory for %s; it may "
			 "take %s here (half of MemTotal in whole GiB): short "
			 "by %s", a,
			 p.size == p.asked ? asked : "even 1 GiB",
			 b, d);
		return WL_REFUSE;
	}
	if (r == -EBUSY) {
		format_size(p.size, d, sizeof(d));
		human_size(p.limit, a, sizeof(a));
		human_size(p.avail, b, sizeof(b));
		err_setf(err, "the cgroup needs %s of memory for %s (the size "
			 "this machine's MemTotal gives), but only %s is free "
			 "now (3/4 of MemAvailable): something else holds "
			 "memory; free it rather than measure another size",
			 a, d, b);
		return WL_REFUSE;
	}
	if (p.size != p.asked) {
		format_size(p.size, a, sizeof(a));
		snprintf(c->info, sizeof(c->info), "asked %s, using %s: %s",
			 asked, a, p.why);
	}
	return WL_OK;
}

static int make_file(struct wl_case *c, struct state *st, struct strbuf *err)
{
	int fd, r;

	if (st->fuse) {
		struct strbuf mnt = STRBUF_INIT;

		strbuf_addf(&mnt, "%s/fuse", c->scratch);
		r = fuse_zero_start(&st->fz, mnt.buf, st->plan.size,
				    c->setup_cpus, c->nsetup_cpus, err);
		strbuf_release(&mnt);
		if (r)
			return -1;
		strbuf_addstr(&st->path, st->fz.file.buf);
		/*
		 * A readahead window of one READ_BUF, so that readahead(2)
		 * of a chunk reads all of it (the default 128 KiB would read
		 * an eighth); else fill with read(2).
		 */
		st->ra = !fuse_zero_set_readahead(&st->fz, READ_BUF >> 10);
		return 0;
	}
	if (default_dir(c)) {
		strbuf_addf(&st->path, "%s/shadow-truncate.%d",
			    c->disk_scratch, c->rep);
	} else {
		/*
		 * A directory of our own in dir, journalled, so a killed
		 * run's file goes at the next start.
		 */
		if (wl_files_dir(prm(c)->dir, false, NULL, &st->dir, err))
			return -1;
		strbuf_addf(&st->path, "%s/shadow-truncate.%d", st->dir.buf,
			    c->rep);
	}
	fd = open(st->path.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return err_setf(err, "cannot create %s: %s", st->path.buf,
				strerror(errno));
	/* sparse: reads of it are zeros from the page cache, no disk */
	if (ftruncate(fd, (off_t)st->plan.size)) {
		r = errno;
		close(fd);
		return err_setf(err, "cannot size %s to %llu bytes: %s",
				st->path.buf, (unsigned long long)st->plan.size,
				strerror(r));
	}
	close(fd);
	return 0;
}

/*
 * Room for one mapping per pin (819200 for 200 GiB) beside what the reader
 * has: vm.max_map_count, journalled and put back at teardown.  0, or
 * -errno when it cannot be raised (the pins then share one mapping).
 */
static int raise_map_count(uint64_t pins)
{
	uint64_t cur = 0, want = pins + MAP_COUNT_SLACK;
	char val[32];
	int r;

	r = read_file_u64(MAX_MAP_COUNT, &cur);
	if (r || cur >= want)
		return r;
	snprintf(val, sizeof(val), "%llu", (unsigned long long)want);
	return sys_knob_set(MAX_MAP_COUNT, val);
}

static int setup(struct wl_case *c, struct strbuf *err)
{
	struct state *st = calloc(1, sizeof(*st));
	uint64_t t0 = now_ns();
	int r;

	if (!st)
		return err_setf(err, "out of memory");
	c->priv = st;
	st->ctl = st->msgs = -1;
	st->fuse = prm(c)->fs == FS_FUSE;
	plan_as_given(c, &st->plan);
	r = memcg_create(&st->m, "shadow", err);
	if (r)
		return -1;
	st->memory_reclaim = use_memory_reclaim(c, &st->m);
	r = make_file(c, st, err);
	if (r)
		return r;
	r = shadow_cachestat(st->path.buf, &st->cs);
	if (r && r != -ENOSYS && r != -EOPNOTSUPP)
		return err_setf(err, "cannot cachestat %s: %s", st->path.buf,
				strerror(-r));
	st->have_cachestat = !r;
	/*
	 * Without cachestat the shadow entries are bounded from the pages
	 * not cached at the end, which needs every page cached once:
	 * read(2) adds each page it returns, readahead(2) may skip some
	 * under the cgroup's limit.
	 */
	if (!st->have_cachestat)
		st->ra = false;
	/* memory.reclaim keeps it below; the limit backs that up */
	r = memcg_set_limit(&st->m, st->plan.limit);
	if (r)
		return err_setf(err, "cannot limit %s to %llu bytes: %s",
				st->m.path.buf,
				(unsigned long long)st->plan.limit,
				strerror(-r));
	if (st->plan.keep == KEEP_PIN)
		st->pin_vmas = !raise_map_count(st->plan.size / PIN_STRIDE);
	st->refreshed = shadow_read_counts(&st->vm[0]);
	st->server_cpu_ns = st->fuse ? fuse_zero_cpu_ns(&st->fz) : 0;
	r = shadow_start_reader(c, st, err);
	if (!r)
		r = shadow_wait_reader(c, st, err);
	if (r)
		return r;
	if (st->fuse)
		st->server_cpu_ns = fuse_zero_cpu_ns(&st->fz) -
				    st->server_cpu_ns;
	/*
	 * Reclaim, compaction or the shadow shrinker still at work would run
	 * beside the timed call, on the same locks: wait for them to stop,
	 * and record the wait.
	 */
	r = quiesce_wait(&st->quiet, QUIET_INTERVAL, QUIET_INTERVALS,
			 QUIET_TIMEOUT, c->stop);
	if (r)
		return err_setf(err, "cannot read /proc/vmstat: %s",
				strerror(-r));
	if (*c->stop)
		return err_setf(err, "interrupted");
	/* what the timed call will find, counted just before it */
	if (st->have_cachestat)
		r = shadow_cachestat(st->path.buf, &st->cs);
	else
		r = shadow_resident_pages(st->path.buf, st->plan.size,
					  &st->resident);
	if (r)
		return err_setf(err, "cannot %s %s: %s", st->have_cachestat ?
				"cachestat" : "mincore", st->path.buf,
				strerror(-r));
	if (st->m.version == MEMCG_V2)
		memcg_stat(&st->m, "workingset_nodereclaim",
			   &st->memcg_nodereclaim);
	st->refreshed &= shadow_read_counts(&st->vm[1]);
	st->t_setup = now_ns() - t0;
	return 0;
}

static int run(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	bool unl = prm(c)->op == OP_UNLINK;
	/* read before the clock: the timed call takes it from a register */
	const char *path = st->path.buf;
	uint64_t t0, t1, s0, s1, evicted, cached, most, st0, cs0, cs1;
	struct quiesce_snap q0, q1;
	int r;

	quiesce_snap(&q0);
	st0 = proc_steal_ns(c->cpu);
	s0 = proc_thread_stime_ns(&cs0);
	t0 = now_ns();
	r = unl ? unlink(path) : truncate(path, 0);
	t1 = now_ns();
	s1 = proc_thread_stime_ns(&cs1);
	st->during_steal = proc_steal_ns(c->cpu) - st0;
	st->during_preempt = cs1 - cs0;
	quiesce_snap(&q1);
	quiesce_delta(&q0, &q1, &st->during);
	if (r)
		return err_setf(err, "%s of %s failed: %s", unl ? "unlink" :
				"truncate", st->path.buf, strerror(errno));
	/* the timed region: the reads of /proc around it are not the call */
	s->t_begin = t0;
	s->t_end = t1;
	/* the shrinker up to the call, folded: after the timed call */
	st->refreshed &= shadow_read_counts(&st->vm[2]);
	shadow_counts(st, &evicted, &cached, &most);
	wl_set_m(s, M_WALL, (double)(t1 - t0));
	wl_set_m(s, M_SYS, (double)(s1 - s0));
	wl_set_m(s, M_SHADOW_ENTRIES, (double)evicted);
	wl_set_m(s, M_CACHED_PAGES, (double)cached);
	wl_set_m(s, M_COVERAGE,
		 100.0 * (double)evicted / (double)(file_pages(st)));
	if (evicted)
		wl_set_m(s, M_NS_PER_SHADOW,
			 (double)(t1 - t0) / (double)evicted);
	return 0;
}

/* What the setup did and took, and what moved around the call. */
static void note_setup(const struct state *st, struct wl_sample *s)
{
	int i;

	wl_note(s, "vmstat_refreshed", st->refreshed);
	wl_note(s, "cgroup_version", st->m.version == MEMCG_V2 ? 2 : 1);
	wl_note(s, "nodereclaim_setup",
		(double)since(st->vm[0].nodereclaim, st->vm[1].nodereclaim));
	wl_note(s, "nodereclaim_run",
		(double)since(st->vm[1].nodereclaim, st->vm[2].nodereclaim));
	if (st->m.version == MEMCG_V2)
		wl_note(s, "memcg_nodereclaim",
			(double)st->memcg_nodereclaim);
	wl_note(s, "workingset_nodes_setup",
		(double)((int64_t)st->vm[1].nodes - (int64_t)st->vm[0].nodes));
	wl_note(s, "keep_bytes", (double)st->plan.keep_bytes);
	wl_note(s, "limit_bytes", (double)st->plan.limit);
	wl_note(s, "setup_s", (double)st->t_setup / 1e9);
	if (st->pin_ns)
		wl_note(s, "pin_s", (double)st->pin_ns / 1e9);
	wl_note(s, "reclaim_s", (double)st->reclaim_ns / 1e9);
	wl_note(s, "quiet_wait_s", (double)st->quiet.waited_ns / 1e9);
	wl_note(s, "quiet", st->quiet.idle);
	wl_note(s, "during_steal_ns", (double)st->during_steal);
	wl_note(s, "during_preemptions", (double)st->during_preempt);
	for (i = 0; i < QC_NR; i++) {
		char key[64];

		snprintf(key, sizeof(key), "wait_%s", quiesce_name(i));
		wl_note(s, key, (double)st->quiet.moved.v[i]);
		snprintf(key, sizeof(key), "during_%s", quiesce_name(i));
		wl_note(s, key, (double)st->during.v[i]);
	}
	wl_note(s, "fill_readahead", st->ra);
	wl_note(s, "pin_mappings", st->pin_vmas);
	if (st->pin_ns)
		wl_note(s, "unpin_s", (double)st->unpin_ns / 1e9);
	if (st->read_cpu_ns)
		wl_note(s, "reader_cpu_s", (double)st->read_cpu_ns / 1e9);
	if (st->fuse)
		wl_note(s, "server_cpu_s", (double)st->server_cpu_ns / 1e9);
	if (st->read_ns)
		wl_note(s, "read_mib_s", (double)st->plan.size / MiB /
			((double)st->read_ns / 1e9));
}

/* The timed call did what it claims. */
static void check_call(const struct wl_case *c, const struct state *st,
		       struct wl_sample *s)
{
	struct stat sb;

	if (prm(c)->op == OP_UNLINK) {
		if (!access(st->path.buf, F_OK))
			wl_invalid(s, "%s still exists after unlink",
				   st->path.buf);
	} else if (stat(st->path.buf, &sb) || sb.st_size) {
		wl_invalid(s, "%s is not empty after truncate", st->path.buf);
	}
}

static int verify(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	uint64_t pages = file_pages(st), evicted, cached, most;
	uint64_t want = prm(c)->coverage;
	double cov;
	char why[256];

	(void)err;
	shadow_counts(st, &evicted, &cached, &most);
	cov = 100.0 * (double)evicted / (double)pages;
	wl_note(s, "size_used", (double)st->plan.size);
	wl_note(s, "file_pages", (double)pages);
	wl_note(s, "evicted_pages", (double)evicted);
	wl_note(s, "cached_pages", (double)cached);
	wl_note(s, "coverage", cov);
	wl_note(s, "cachestat", st->have_cachestat ? 1 : 0);
	/* compare marks the rows that rest on a bound */
	wl_note(s, "coverage_bounded", st->have_cachestat ? 0 : 1);
	if (!st->have_cachestat)
		wl_note(s, "evicted_pages_max", (double)most);
	note_setup(st, s);
	snprintf(s->text, sizeof(s->text),
		 "cgroup %s; keep=%s; reclaim=%s; %s",
		 memcg_version_name(st->m.version), keeps[st->plan.keep],
		 st->memory_reclaim ? "memory.reclaim" :
		 st->m.version == MEMCG_V2 ? "memory.max" :
		 "memory.limit_in_bytes",
		 st->have_cachestat ? "counted with cachestat(2)" :
		 "no cachestat(2): shadow entries bounded by mincore(2) and "
		 "workingset_nodereclaim");
	if (!st->have_cachestat && shadow_unbounded(st, why, sizeof(why)))
		wl_invalid(s, "no cachestat(2), and the shadow entries cannot "
			   "be bounded: %s", why);
	else if (cov < (double)want)
		wl_invalid(s, "shadow coverage %.1f%% is below the %llu%% "
			   "threshold: %llu of %llu pages left a shadow "
			   "entry, %llu are cached%s", cov,
			   (unsigned long long)want,
			   (unsigned long long)evicted,
			   (unsigned long long)pages,
			   (unsigned long long)cached,
			   st->have_cachestat ? "" : " (the least count "
			   "without cachestat(2))");
	check_call(c, st, s);
	return 0;
}

static void teardown(struct wl_case *c)
{
	struct state *st = c->priv;

	if (!st)
		return;
	shadow_reap_reader(st);
	if (st->pin_vmas)
		sys_knob_restore(MAX_MAP_COUNT);
	if (st->msgs >= 0)
		close(st->msgs);
	memcg_destroy(&st->m);
	if (st->fuse) {
		fuse_zero_stop(&st->fz);
	} else if (st->path.len) {
		unlink(st->path.buf);
		if (st->dir.len)
			sys_rmtree(st->dir.buf);
	}
	strbuf_release(&st->path);
	strbuf_release(&st->dir);
	free(st);
	c->priv = NULL;
}

/*
 * Setup, the call and teardown of one repetition, per GiB of the size used,
 * and what does not grow with it (the wait for reclaim to stop, the mount),
 * on the 2-vCPU VM with the reader and the FUSE server on both PUs: setups
 * of 16 GiB took 3.7 s, of 200 GiB 52-60 s (0.23-0.30 s/GiB), the call
 * 11-16 ms/GiB.  Only the first repetition of a case relies on it, scaled
 * by how the finished cases did against their own estimates.
 */
#define EST_S_PER_GIB	0.29
#define EST_S_FIXED	1.0

static double estimate_s(const struct wl_case *c)
{
	struct plan p;

	/* the case as preflight left it: the size that will run */
	plan_as_given(c, &p);
	return EST_S_FIXED + EST_S_PER_GIB * (double)p.size / (double)GiB;
}

const struct workload wl_shadow_truncate = {
	.name = "shadow-truncate",
	.summary = "read a file in a memory cgroup, reclaim its cache into "
		   "shadow entries, time the truncate (or unlink)",
	.params = params,
	.params_size = sizeof(struct sh_params),
	.metrics = metrics,
	.preflight = preflight,
	.setup = setup,
	.run = run,
	.verify = verify,
	.teardown = teardown,
	.estimate_s = estimate_s,
};
