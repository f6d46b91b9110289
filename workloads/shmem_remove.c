/*
 * shmem-remove: fill a tmpfs file or memfd (untimed), then time the one
 * system call that removes its folios: ftruncate to 0, a hole punch over
 * the whole file, close of a memfd's last fd, or unlink.  The measurement
 * of the patch that batches shmem truncation (seeds/000).
 */
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <mntent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "need.h"
#include "sys/proc.h"
#include "sys/sys.h"

#define THP "/sys/kernel/mm/transparent_hugepage"
/* dir's word for the runner's own scratch (on /dev/shm by default) */
#define OWN_DIR "/dev/shm"

enum op { OP_FTRUNCATE, OP_PUNCH, OP_CLOSE, OP_UNLINK };
enum populate { POP_FALLOCATE, POP_WRITE };

static const char *const ops[] = {
	[OP_FTRUNCATE] = "ftruncate", [OP_PUNCH] = "punch-hole",
	[OP_CLOSE] = "memfd-close", [OP_UNLINK] = "unlink", NULL,
};
/* as changelogs name them */
static const char *const op_words[] = {
	[OP_FTRUNCATE] = "ftruncate() to 0", [OP_PUNCH] = "hole punch",
	[OP_CLOSE] = "close() of a memfd", [OP_UNLINK] = "unlink()",
};
static const char *const populates[] = {
	[POP_FALLOCATE] = "fallocate", [POP_WRITE] = "write", NULL,
};

/*
 * A case's params, as the config gave them (threads and mode are the
 * runner's).
 */
struct shm_params {
	enum op op;
	uint64_t size;
	struct wl_sized folio;	/* "4k", "pmd" (WL_FOLIO_PMD) or an mTHP size */
	const char *dir;
	enum populate populate;
};
WL_PARAMS_STRUCT(struct shm_params);

static const struct param params[] = {
	{ WL_PARAM(struct shm_params, op, "op"), PT_ENUM, "unlink", ops, 0, 0,
	  NULL, "the timed removal", op_words },
	{ WL_PARAM(struct shm_params, size, "size"), PT_SIZE, "8G", NULL,
	  1 << 20, 1ull << 40, NULL, "file size", .say = WL_SAY_FILE },
	{ WL_PARAM(struct shm_params, folio, "folio"), PT_FOLIO, "4k", NULL,
	  0, 0, NULL,
	  "folio size: 4k, pmd, or an mTHP size the kernel offers",
	  .say = WL_SAY_FOLIOS },
	{ WL_PARAM(struct shm_params, dir, "dir"), PT_DIR, OWN_DIR, NULL, 0,
	  0, NULL,
	  "tmpfs directory of the file (the default uses the runner's own)",
	  .own = OWN_DIR },
	{ WL_PARAM(struct shm_params, populate, "populate"), PT_ENUM,
	  "fallocate", populates, 0, 0, NULL,
	  "how the file is filled, untimed" },
	{ WL_RUN_PARAM(threads), PT_UINT, "1", NULL, 1, 1024, NULL,
	  "workers, each removing its own file of size at the same time" },
	{ WL_RUN_PARAM(mode), PT_ENUM, "threads", wl_modes, 0, 0, NULL,
	  "workers as threads of one process (one mm) or as processes" },
	{ NULL },
};

/* The metrics, in the order of the table: wl_set_m(s, M_WALL, v). */
enum metric_id {
	M_WALL, M_SYS, M_NS_PER_FOLIO, M_FOLIOS,
};

static const struct metric metrics[] = {
	[M_WALL] = { "wall", "ns", LOWER_IS_BETTER, true,
	  "wall time of the one system call (CLOCK_MONOTONIC); with several "
	  "workers, from the first one's start to the last one's end" },
	[M_SYS] = { "sys", "ns", LOWER_IS_BETTER, false,
	  "system CPU time of the call (getrusage, thread), workers summed" },
	[M_NS_PER_FOLIO] = { "ns_per_folio", "ns/folio", LOWER_IS_BETTER, false,
	  "wall time per folio removed (all workers' folios)" },
	[M_FOLIOS] = { "folios", "count", LOWER_IS_BETTER, false,
	  "folios in the file (all workers' files)", true },
	{ NULL },
};

/* One worker's file. */
struct wfile {
	struct strbuf path;	/* "memfd:..." for a memfd */
	int fd;			/* this process's; -1 once closed */
	int pu;			/* the worker's */
};

/* What worker i's prepare found, shared with the runner's process. */
struct wres {
	uint64_t blocks;	/* st_blocks * 512 after fill */
	int fill_pu;		/* where the fill ended */
	uint64_t alloc_after[16];	/* shmem_alloc counters after it */
	uint64_t huge_after;	/* ShmemHugePages after it */
	uint64_t thp_after;	/* thp_file_alloc after it */
};

struct state {
	enum op op;
	struct strbuf udir;	/* our directory in a user-given dir */
	struct strbuf mnt;	/* private tmpfs mount, when used */
	struct wfile *w;	/* [nw] */
	struct wres *res;	/* [nw], a shared mapping */
	int nw;
	uint64_t size, folio;	/* bytes */
	int nr_sizes;
	char size_dir[16][64];	/* hugepages-*kB names */
	uint64_t alloc_before[16], alloc_after[16];	/* after: the most */
	uint64_t huge_before, huge_after;	/* ShmemHugePages */
	uint64_t thp_before, thp_after;		/* thp_file_alloc */
	char knob[256];
};

/*
 * Per-size THP directories (hugepages-*kB: mTHP, 6.8; shmem counters later)
 * are new; 6.1 has PMD shmem folios without them.  FOLIOBENCH_NO_MTHP=1
 * makes this kernel look like 6.1 for the tests.
 */
static bool no_mthp(void)
{
	const char *v = getenv("FOLIOBENCH_NO_MTHP");

	return v && *v == '1';
}

/*
 * Why this kernel hands out no PMD shmem folios, into err; 0 if it does:
 * THP built in (shmem_enabled, every kernel since 4.8) and not denied to
 * every mount.
 */
static int no_pmd_shmem(struct strbuf *err)
{
	char val[128];

	if (read_file_str(THP "/shmem_enabled", val, sizeof(val)))
		return err_setf(err, "this kernel offers no pmd shmem folios "
				"(no %s: built without transparent huge "
				"pages)", THP "/shmem_enabled");
	if (strstr(val, "[deny]"))
		return err_setf(err, "this kernel offers no pmd shmem folios: "
				"%s is deny, which forces huge pages off on "
				"every tmpfs", THP "/shmem_enabled");
	return 0;
}

static bool is_pmd(const struct wl_case *c)
{
	return prm(c)->folio.bytes == WL_FOLIO_PMD;
}

/* The folio's bytes: pmd's are the machine's. */
static uint64_t folio_bytes(const struct wl_case *c)
{
	uint64_t b;

	if (!is_pmd(c))
		return prm(c)->folio.bytes;
	if (read_file_u64(THP "/hpage_pmd_size", &b))
		b = 2 << 20;
	return b;
}

static bool is_memfd(const struct wl_case *c)
{
	return prm(c)->op == OP_CLOSE;
}

/* "/dev/shm", or another name of the runner's scratch base ("/dev/shm/") */
static bool default_dir(const struct wl_case *c)
{
	return wl_dir_own(prm(c)->dir, OWN_DIR, c->scratch_base);
}

/* Does /dev/shm (or dir) hand out 4K folios only?  huge=never or none. */
static bool mount_huge_never(const char *dir)
{
	FILE *f = setmntent("/proc/mounts", "re");
	struct mntent ent, *me;
	char line[8192];	/* getmntent_r's strings */
	bool never = true;

	if (!f)
		return true;
	/* the mount point unescaped (a space is \040 in the file) */
	while ((me = getmntent_r(f, &ent, line, sizeof(line))))
		if (!strcmp(me->mnt_dir, dir))
			never = !strstr(me->mnt_opts, "huge=") ||
				strstr(me->mnt_opts, "huge=never");
	endmntent(f);
	return never;
}

/*
 * Files of the default dir go on a private tmpfs mount (in the scratch
 * dir) unless the scratch tmpfs itself hands out the folios asked for.
 */
static bool private_mount(const struct wl_case *c)
{
	return default_dir(c) &&
	       !(folio_bytes(c) == 4096 && mount_huge_never(c->scratch_base));
}

/* Does this kernel hand out the folios asked for?  Else why, in err. */
static int folio_offered(const struct wl_case *c, uint64_t folio,
			 struct strbuf *err)
{
	char path[256];

	if (folio == 4096)
		return 0;
	if (is_pmd(c))
		return no_pmd_shmem(err);
	snprintf(path, sizeof(path), THP "/hugepages-%llukB",
		 (unsigned long long)(folio >> 10));
	if (no_mthp() || access(path, F_OK))
		return err_setf(err, "this kernel offers no %s shmem folios "
				"(no %s)", prm(c)->folio.text, path);
	return 0;
}

static enum wl_verdict preflight(struct wl_case *c, struct strbuf *err)
{
	uint64_t size = prm(c)->size, folio = folio_bytes(c);
	uint64_t nw = c->ps.run.threads;
	const char *dir = default_dir(c) ? c->scratch_base : prm(c)->dir;
	const char *all = nw > 1 ? " (all workers' files)" : "";
	char have[32], asked[32];
	enum wl_verdict v;

	if (folio_offered(c, folio, err))
		return WL_SKIP;
	if (size % folio) {
		human_size(folio, have, sizeof(have));
		format_size(size, asked, sizeof(asked));
		err_setf(err, "size %s is not a multiple of the %s folio",
			 asked, have);
		return WL_REFUSE;
	}
	/* every worker has a file of its own */
	size *= nw;
	if (!is_memfd(c) && !private_mount(c) &&
	    ((v = wl_need_tmpfs(c, dir, err)) ||
	     (v = wl_need_space(dir, size, all, err))))
		return v;
	/* the file lives in memory */
	return wl_need_memory(size, all, err);
}

static void counters(struct state *st, uint64_t *alloc)
{
	char path[256];
	int i;

	for (i = 0; i < st->nr_sizes; i++) {
		snprintf(path, sizeof(path), THP "/%s/stats/shmem_alloc",
			 st->size_dir[i]);
		if (read_file_u64(path, &alloc[i]))
			alloc[i] = 0;
	}
}

static void find_sizes(struct state *st)
{
	static const unsigned kb[] = {
		8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
		32768, 65536, 524288, 1048576,
	};
	char path[256];
	size_t i;

	st->nr_sizes = 0;
	for (i = 0; !no_mthp() && i < ARRAY_SIZE(kb) && st->nr_sizes < 16;
	     i++) {
		snprintf(path, sizeof(path), THP "/hugepages-%ukB/stats", kb[i]);
		if (access(path, F_OK))
			continue;
		snprintf(st->size_dir[st->nr_sizes++], sizeof(st->size_dir[0]),
			 "hugepages-%ukB", kb[i]);
	}
}

static int fill(struct wl_case *c, struct state *st, struct wfile *f,
		struct strbuf *err)
{
	char hs[32];

	human_size(st->size, hs, sizeof(hs));
	if (prm(c)->populate == POP_FALLOCATE) {
		if (fallocate(f->fd, 0, 0, (off_t)st->size))
			return err_setf(err, "cannot fallocate %s (%s): %s",
					f->path.buf, hs, strerror(errno));
		return 0;
	}
	{
		size_t chunk = 1 << 20;
		char *buf = malloc(chunk);
		uint64_t off;

		if (!buf)
			return err_setf(err, "out of memory");
		memset(buf, 0x5a, chunk);
		for (off = 0; off < st->size; off += chunk) {
			size_t len = st->size - off < chunk ?
				     (size_t)(st->size - off) : chunk;
			ssize_t w = pwrite(f->fd, buf, len, (off_t)off);

			if (w != (ssize_t)len) {
				free(buf);
				return err_setf(err, "cannot write %s (%s): %s",
						f->path.buf, hs, w < 0 ?
						strerror(errno) : "short write");
			}
			if (*c->stop) {
				free(buf);
				return err_setf(err, "interrupted");
			}
		}
		free(buf);
	}
	return 0;
}

/* The directory the files go in: made, or mounted, once a repetition. */
static int pick_dir(struct wl_case *c, struct state *st, const char **dir,
		    struct strbuf *err)
{
	char opts[128];
	int r;

	if (!default_dir(c)) {
		/* a directory of our own there, journalled */
		if (wl_files_dir(prm(c)->dir, false, NULL, &st->udir, err))
			return -1;
		*dir = st->udir.buf;
		return 0;
	}
	if (!private_mount(c)) {
		*dir = c->scratch;	/* on /dev/shm itself */
		return 0;
	}
	/* a private tmpfs that hands out the folios asked for */
	strbuf_reset(&st->mnt);
	strbuf_addf(&st->mnt, "%s/tmpfs", c->scratch);
	if (mkdir(st->mnt.buf, 0700) && errno != EEXIST) {
		r = err_setf(err, "cannot mkdir %s: %s", st->mnt.buf,
			     strerror(errno));
		strbuf_reset(&st->mnt);
		return r;
	}
	snprintf(opts, sizeof(opts), "huge=%s,size=%llu",
		 st->folio > 4096 ? "always" : "never",
		 (unsigned long long)(st->size * (uint64_t)st->nw +
				      (64 << 20)));
	r = sys_mount("foliobench", st->mnt.buf, "tmpfs", 0, opts);
	if (r) {
		r = err_setf(err, "cannot mount tmpfs (%s) on %s: %s", opts,
			     st->mnt.buf, strerror(-r));
		rmdir(st->mnt.buf);
		strbuf_reset(&st->mnt);
		return r;
	}
	*dir = st->mnt.buf;
	return 0;
}

/* Worker i's file, made empty: its worker fills it (prepare). */
static int make_file(struct wl_case *c, struct state *st, const char *dir,
		     int i, struct strbuf *err)
{
	struct wfile *f = &st->w[i];
	struct strbuf path = STRBUF_INIT;

	if (is_memfd(c)) {
		strbuf_addf(&f->path, "memfd:foliobench.%d", i);
		f->fd = memfd_create("foliobench", MFD_CLOEXEC);
		if (f->fd < 0)
			return err_setf(err, "cannot memfd_create: %s",
					strerror(errno));
		return 0;
	}
	strbuf_addf(&path, "%s/shmem-remove.%d.%d", dir, c->rep, i);
	f->fd = open(path.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		err_setf(err, "cannot create %s: %s", path.buf,
			 strerror(errno));
		strbuf_release(&path);
		return -1;
	}
	/* only now ours to remove */
	f->path = path;
	return 0;
}

/*
 * The worker fills its own file on its PU and its NUMA node, right
 * before the barrier and its timed call, as `fallocate && rm` fills and
 * removes on one CPU: removed on a PU that sat idle through a fill made
 * elsewhere, the call measured 10-36% slower than the bare one (issue 17).
 */
static int prepare(struct wl_case *c, struct strbuf *err)
{
	struct state *st = c->priv;
	struct wfile *f = &st->w[c->worker];
	struct wres *w = &st->res[c->worker];
	struct stat sb;
	int r;

	r = fill(c, st, f, err);
	w->fill_pu = sched_getcpu();
	if (r)
		return r;
	if (fstat(f->fd, &sb))
		return err_setf(err, "cannot stat %s: %s", f->path.buf,
				strerror(errno));
	w->blocks = (uint64_t)sb.st_blocks * 512;
	/* what the kernel gave, read before the timed call */
	counters(st, w->alloc_after);
	meminfo_bytes("ShmemHugePages", &w->huge_after);
	w->thp_after = proc_vmstat_u64("thp_file_alloc");
	if (st->op == OP_UNLINK) {
		close(f->fd);
		f->fd = -1;
	}
	return 0;
}

static int setup(struct wl_case *c, struct strbuf *err)
{
	struct state *st = calloc(1, sizeof(*st));
	const char *dir = NULL;
	int i, r;

	if (!st)
		return err_setf(err, "out of memory");
	c->priv = st;
	st->size = prm(c)->size;
	st->folio = folio_bytes(c);
	st->nw = c->nworkers > 0 ? c->nworkers : 1;
	st->w = calloc((size_t)st->nw, sizeof(*st->w));
	if (!st->w)
		return err_setf(err, "out of memory");
	for (i = 0; i < st->nw; i++) {
		st->w[i].fd = -1;
		st->w[i].pu = c->worker_cpus ? c->worker_cpus[i] : -1;
	}
	st->res = mmap(NULL, (size_t)st->nw * sizeof(*st->res),
		       PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		       0);
	if (st->res == MAP_FAILED) {
		st->res = NULL;
		return err_setf(err, "out of memory");
	}
	/* no 2 MiB folio in the counters this case reads (runner/workers.c) */
	madvise(st->res, (size_t)st->nw * sizeof(*st->res), MADV_NOHUGEPAGE);
	for (i = 0; i < st->nw; i++)
		st->res[i].fill_pu = -1;
	st->op = prm(c)->op;
	find_sizes(st);

	if (is_memfd(c)) {
		/* memfds follow the top-level shmem_enabled knob */
		const char *want = st->folio > 4096 ? "always" : "never";

		snprintf(st->knob, sizeof(st->knob), THP "/shmem_enabled");
		r = sys_knob_set(st->knob, want);
		if (r) {
			st->knob[0] = '\0';
			return err_setf(err, "cannot set %s to %s: %s",
					THP "/shmem_enabled", want,
					strerror(-r));
		}
	} else {
		r = pick_dir(c, st, &dir, err);
		if (r)
			return r;
	}
	counters(st, st->alloc_before);
	meminfo_bytes("ShmemHugePages", &st->huge_before);
	st->thp_before = proc_vmstat_u64("thp_file_alloc");
	for (i = 0; i < st->nw; i++) {
		r = make_file(c, st, dir, i, err);
		if (r)
			return r;
	}
	return 0;
}

/* One worker's timed call on its own file. */
static int run(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	struct wfile *f = &st->w[c->worker];
	const char *op = ops[st->op];
	/* read before the clock: the timed unlink takes it from a register */
	const char *path = f->path.buf;
	uint64_t t0, t1, s0, s1;
	int r;

	s0 = proc_thread_stime_ns(NULL);
	t0 = now_ns();
	switch (st->op) {
	case OP_FTRUNCATE:
		r = ftruncate(f->fd, 0);
		break;
	case OP_PUNCH:
		r = fallocate(f->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			      0, (off_t)st->size);
		break;
	case OP_CLOSE:
		r = close(f->fd);
		break;
	default:
		r = unlink(path);
	}
	t1 = now_ns();
	s1 = proc_thread_stime_ns(NULL);
	if (r)
		return err_setf(err, "%s of %s failed: %s", op, f->path.buf,
				strerror(errno));
	if (st->op == OP_CLOSE)
		f->fd = -1;
	s->t_begin = t0;
	s->t_end = t1;
	wl_set_m(s, M_WALL, (double)(t1 - t0));
	wl_set_m(s, M_SYS, (double)(s1 - s0));
	wl_set_m(s, M_FOLIOS, (double)(st->size / st->folio));
	wl_set_m(s, M_NS_PER_FOLIO,
		 (double)(t1 - t0) / (double)(st->size / st->folio));
	return 0;
}

/* The aggregate: the time until the last worker finished. */
static void combine(struct wl_case *c, const struct wl_sample *w, int n,
		    uint64_t span, struct wl_sample *s)
{
	double sys = 0, folios = 0;
	int i;

	(void)c;
	for (i = 0; i < n; i++) {
		sys += w[i].m[M_SYS].v;
		folios += w[i].m[M_FOLIOS].v;
	}
	wl_set_m(s, M_WALL, (double)span);
	wl_set_m(s, M_SYS, sys);
	wl_set_m(s, M_FOLIOS, folios);
	wl_set_m(s, M_NS_PER_FOLIO, folios ? (double)span / folios : 0);
}

/*
 * Processes mode: the memfd's last fd is the worker's, not ours; and an
 * unlinked file's, which is to go with the unlink.
 */
static void forked(struct wl_case *c, int w)
{
	struct state *st = c->priv;

	if ((st->op == OP_CLOSE || st->op == OP_UNLINK) && st->w[w].fd >= 0) {
		close(st->w[w].fd);
		st->w[w].fd = -1;
	}
}

/* The counters after the fills: the last worker to fill saw them all. */
static void merge_after(struct state *st)
{
	int i, k;

	for (i = 0; i < st->nw; i++) {
		for (k = 0; k < st->nr_sizes; k++)
			if (st->res[i].alloc_after[k] > st->alloc_after[k])
				st->alloc_after[k] = st->res[i].alloc_after[k];
		if (st->res[i].huge_after > st->huge_after)
			st->huge_after = st->res[i].huge_after;
		if (st->res[i].thp_after > st->thp_after)
			st->thp_after = st->res[i].thp_after;
	}
}

/* The large folios the fills were given, of the size asked and others. */
struct folio_count {
	uint64_t given;		/* of the size asked */
	uint64_t other;		/* of other sizes */
	uint64_t larger;	/* of those, larger than asked */
	bool by_size;		/* the folio's size has counters of its own */
	struct strbuf sizes;	/* "32 of 2 MiB, ..." */
};

static void count_folios(struct state *st, struct wl_sample *s,
			 struct folio_count *fc)
{
	char sz[32];
	int i;

	for (i = 0; i < st->nr_sizes; i++)
		fc->by_size |= strtoull(st->size_dir[i] + 10, NULL, 10) *
			       1024 == st->folio;
	/*
	 * Without a counter per size (6.1 LTS): PMD folios are counted
	 * by thp_file_alloc, machine-wide, so others' can only add to it.
	 */
	if (st->folio > 4096 && !fc->by_size) {
		fc->given = st->thp_after - st->thp_before;
		wl_note(s, "folios_by_thp_file_alloc", 1);
	}
	for (i = 0; i < st->nr_sizes; i++) {
		uint64_t kb = strtoull(st->size_dir[i] + 10, NULL, 10);
		uint64_t d = st->alloc_after[i] - st->alloc_before[i];

		if (kb * 1024 == st->folio) {
			fc->given = d;
			continue;
		}
		fc->other += d;
		if (kb * 1024 > st->folio)
			fc->larger += d;
		if (d) {
			human_size(kb * 1024, sz, sizeof(sz));
			strbuf_addf(&fc->sizes, "%s%llu of %s",
				    fc->sizes.len ? ", " : "",
				    (unsigned long long)d, sz);
		}
	}
}

/* Each worker's file filled on the worker's PU, and wholly allocated. */
static void check_fills(struct state *st, struct wl_sample *s)
{
	int i, off_pu = 0;

	for (i = 0; i < st->nw; i++)
		off_pu += st->w[i].pu >= 0 && st->res[i].fill_pu != st->w[i].pu;
	wl_note(s, "fills_off_pu", off_pu);
	for (i = 0; i < st->nw; i++)
		if (st->w[i].pu >= 0 && st->res[i].fill_pu != st->w[i].pu)
			wl_invalid(s, "worker %d's file was filled on PU %d, "
				   "not on the worker's PU %d", i,
				   st->res[i].fill_pu, st->w[i].pu);
	for (i = 0; i < st->nw; i++)
		if (st->res[i].blocks < st->size)
			wl_invalid(s, "%s was not fully allocated: st_blocks "
				   "says %llu of %llu bytes", st->w[i].path.buf,
				   (unsigned long long)st->res[i].blocks,
				   (unsigned long long)st->size);
}

/* The folios are of the size asked, and no other. */
static void check_folios(struct wl_case *c, struct state *st,
			 struct wl_sample *s, const struct folio_count *fc,
			 int64_t huge)
{
	uint64_t want = st->size / st->folio * (uint64_t)st->nw;
	uint64_t total = st->size * (uint64_t)st->nw;
	bool pmd = is_pmd(c), other = fc->other != 0;
	bool by_knob = fc->larger && !pmd;
	char asked[32], knob[64];

	human_size(st->folio, asked, sizeof(asked));
	snprintf(knob, sizeof(knob), "hugepages-%llukB/shmem_enabled",
		 (unsigned long long)(st->folio / 1024));
	if (st->folio == 4096 && (other || huge > 0))
		wl_invalid(s, "asked for 4K folios, the kernel gave %llu large "
			   "folios (%lld bytes of ShmemHugePages)",
			   (unsigned long long)fc->other, (long long)huge);
	if (st->folio > 4096 &&
	    ((fc->by_size ? fc->given != want : fc->given < want) || other))
		wl_invalid(s, "asked for %llu folios of %s, the kernel gave "
			   "%llu of that size and %llu of other sizes%s%s%s%s%s%s",
			   (unsigned long long)want, asked,
			   (unsigned long long)fc->given,
			   (unsigned long long)fc->other, other ? " (" : "",
			   strbuf_str(&fc->sizes), other ? ")" : "",
			   /* 6.18 sizes tmpfs folios by each allocation */
			   by_knob ?
			   ": the kernel sized them by each fallocate or "
			   "write, up to what huge= or shmem_enabled allows; "
			   "the knob " : "", by_knob ? knob : "",
			   by_knob ? " the run set did not limit it" : "");
	if (st->folio > 4096 && pmd && huge < (int64_t)total)
		wl_invalid(s, "ShmemHugePages grew by %lld bytes, not by the "
			   "size of the files %llu", (long long)huge,
			   (unsigned long long)total);
}

/* The call did what it claims, in every worker's file. */
static void check_removed(struct state *st, struct wl_sample *s)
{
	const char *op = ops[st->op];
	struct stat sb;
	int i;

	for (i = 0; i < st->nw; i++) {
		const struct wfile *f = &st->w[i];

		if ((st->op == OP_FTRUNCATE || st->op == OP_PUNCH) &&
		    !fstat(f->fd, &sb) && sb.st_blocks)
			wl_invalid(s, "%s left %lld blocks in %s", op,
				   (long long)sb.st_blocks, f->path.buf);
		if (st->op == OP_UNLINK && !access(f->path.buf, F_OK))
			wl_invalid(s, "%s still exists after unlink",
				   f->path.buf);
	}
}

static int verify(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	struct folio_count fc = { .sizes = STRBUF_INIT };
	uint64_t blocks = 0;
	int64_t huge;
	int i;

	(void)err;
	merge_after(st);
	huge = (int64_t)st->huge_after - (int64_t)st->huge_before;
	count_folios(st, s, &fc);
	for (i = 0; i < st->nw; i++)
		blocks += st->res[i].blocks;
	wl_note(s, "allocated_bytes", (double)blocks);
	wl_note(s, "folios_expected",
		(double)(st->size / st->folio * (uint64_t)st->nw));
	wl_note(s, "large_folios_of_size", (double)fc.given);
	wl_note(s, "large_folios_other_sizes", (double)fc.other);
	wl_note(s, "shmem_huge_bytes", (double)huge);
	check_fills(st, s);
	check_folios(c, st, s, &fc, huge);
	strbuf_release(&fc.sizes);
	check_removed(st, s);
	return 0;
}

static void teardown(struct wl_case *c)
{
	struct state *st = c->priv;
	int i;

	if (!st)
		return;
	for (i = 0; st->w && i < st->nw; i++) {
		if (st->w[i].fd >= 0)
			close(st->w[i].fd);
		if (st->w[i].path.len && st->w[i].path.buf[0] == '/')
			unlink(st->w[i].path.buf);
		strbuf_release(&st->w[i].path);
	}
	if (st->mnt.len) {
		sys_umount(st->mnt.buf);
		rmdir(st->mnt.buf);
	}
	strbuf_release(&st->mnt);
	if (st->udir.len)
		sys_scratch_remove(st->udir.buf);
	strbuf_release(&st->udir);
	if (st->knob[0])
		sys_knob_restore(st->knob);
	free(st->w);
	if (st->res)
		munmap(st->res, (size_t)st->nw * sizeof(*st->res));
	free(st);
	c->priv = NULL;
}

const struct workload wl_shmem_remove = {
	.name = "shmem-remove",
	.summary = "fill a tmpfs file or memfd, time its removal "
		   "(ftruncate, hole punch, memfd close, unlink); "
		   "workers each remove their own file at once",
	.params = params,
	.params_size = sizeof(struct shm_params),
	.metrics = metrics,
	.preflight = preflight,
	.setup = setup,
	.run = run,
	.verify = verify,
	.teardown = teardown,
	.parallel = true,
	.combine = combine,
	.forked = forked,
	.prepare = prepare,
};
