/*
 * seq-read: read(2) of a page-cache-resident file, bs at a time, wrapping
 * to the start at its end, for a fixed time: the fio job of the shmem
 * read-batching series (seeds/001, `fio --ioengine=sync --rw=read --bs=4k
 * --size=1G --time_based`), in C, with per-read latency and the counters
 * of `perf stat` taken around the loop of each reader.
 */
#include "seq_read.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include "need.h"
#include "sys/hist.h"
#include "sys/perf.h"
#include "sys/sys.h"

#define MIB		(1024.0 * 1024.0)
#define MAX_THREADS	1024

static const char *const populates[] = {
	[POP_WRITE] = "write", [POP_FALLOCATE] = "fallocate", NULL,
};
static const char *const yesno[] = { [false] = "no", [true] = "yes", NULL };

/* "" or an absolute path */
static int check_file(const char *val, struct strbuf *err)
{
	if (val[0] && val[0] != '/') {
		strbuf_addstr(err, "not an absolute path");
		return -1;
	}
	return 0;
}

static const struct param params[] = {
	{ WL_PARAM(struct sr_params, dir, "dir"), PT_DIR, OWN_DIR, NULL, 0, 0,
	  NULL,
	  "directory of the file(s); the default uses the runner's own "
	  "scratch on /dev/shm", .own = OWN_DIR },
	{ WL_PARAM(struct sr_params, size, "size"), PT_SIZE, "1G", NULL, 4096,
	  1ull << 40, NULL,
	  "bytes of each file read before wrapping to its start",
	  .say = WL_SAY_FILE },
	{ WL_PARAM(struct sr_params, bs, "bs"), PT_SIZE, "4k", NULL, 1,
	  64 << 20, NULL, "bytes per read(2)" },
	{ WL_PARAM(struct sr_params, duration, "duration"), PT_DURATION,
	  "10s", NULL, 10000000ull, 86400000000000ull, NULL,
	  "how long to read (fio's runtime)" },
	{ WL_PARAM(struct sr_params, populate, "populate"), PT_ENUM, "write",
	  populates, 0, 0, NULL,
	  "write real data, or fallocate (tmpfs then reads another path)" },
	{ WL_RUN_PARAM(threads), PT_UINT, "1", NULL, 1, MAX_THREADS, NULL,
	  "readers, each pinned to its own CPU in turn" },
	{ WL_PARAM(struct sr_params, shared, "shared"), PT_ENUM, "no", yesno,
	  0, 0, NULL, "yes: all readers read one file; no: each its own" },
	{ WL_PARAM(struct sr_params, file, "file"), PT_STRING, "", NULL, 0, 0,
	  check_file,
	  "read this existing file instead (not written, not removed)" },
	{ WL_PARAM(struct sr_params, lat_every, "lat_every"), PT_UINT, "1",
	  NULL, 0, 1u << 20, NULL,
	  "time every Nth read for the latency percentiles (1: every read; "
	  "a prime such as 61 lets the timed reads fall on every place in a "
	  "folio; 0: none, bandwidth only)" },
	{ NULL },
};

/* The metrics, in the order of the table: wl_set_m(s, M_BW, v). */
enum metric_id {
	M_BW, M_IOPS, M_LAT_P50, M_LAT_P99, M_LAT_P999, M_LAT_MAX,
	M_TASK_CLOCK, M_CPUS_UTILIZED, M_CONTEXT_SWITCHES,
	M_CONTEXT_SWITCHES_PER_S, M_CPU_MIGRATIONS, M_CPU_MIGRATIONS_PER_S,
	M_PAGE_FAULTS, M_PAGE_FAULTS_PER_S, M_INSTRUCTIONS,
	M_INSTRUCTIONS_PER_S, M_CYCLES, M_CYCLES_PER_S, M_BRANCHES,
	M_BRANCHES_PER_S, M_BRANCH_MISSES, M_BRANCH_MISSES_PER_S,
};

/* A read(2) latency of the timed reads (lat_every). */
#define LATENCY(id, name, help)						\
	[id] = { name, "ns", LOWER_IS_BETTER, false, help }
/* A perf counter: its count, and its rate (set_perf names it NAME_per_s). */
#define PERF_COUNT(id, name)						\
	[id] = { name, "count", LOWER_IS_BETTER, false, NULL },		\
	[id##_PER_S] = { name "_per_s", "/s", LOWER_IS_BETTER, false, NULL }

/* perf stat's rates are per second of task-clock, so are these */
static const struct metric metrics[] = {
	[M_BW] = { "bw", "MiB/s", HIGHER_IS_BETTER, true,
	  "bytes read over the wall time of the readers" },
	[M_IOPS] = { "iops", "IOPS", HIGHER_IS_BETTER, false,
	  "reads per second" },
	LATENCY(M_LAT_P50, "lat_p50", "median read(2) time"),
	LATENCY(M_LAT_P99, "lat_p99", "99th percentile"),
	LATENCY(M_LAT_P999, "lat_p999", "99.9th percentile"),
	LATENCY(M_LAT_MAX, "lat_max", "slowest read"),
	[M_TASK_CLOCK] = { "task_clock", "ns", LOWER_IS_BETTER, false,
	  "CPU time of the readers' loops" },
	[M_CPUS_UTILIZED] = { "cpus_utilized", "CPUs", LOWER_IS_BETTER, false,
	  "task-clock over wall time" },
	PERF_COUNT(M_CONTEXT_SWITCHES, "context_switches"),
	PERF_COUNT(M_CPU_MIGRATIONS, "cpu_migrations"),
	PERF_COUNT(M_PAGE_FAULTS, "page_faults"),
	PERF_COUNT(M_INSTRUCTIONS, "instructions"),
	PERF_COUNT(M_CYCLES, "cycles"),
	PERF_COUNT(M_BRANCHES, "branches"),
	PERF_COUNT(M_BRANCH_MISSES, "branch_misses"),
	{ NULL },
};

static enum wl_verdict preflight(struct wl_case *c, struct strbuf *err)
{
	uint64_t size = prm(c)->size, bs = prm(c)->bs, need;
	const char *dir = default_dir(c) ? c->scratch_base : prm(c)->dir;
	unsigned threads = (unsigned)c->ps.run.threads;
	enum wl_verdict v;
	char a[32], b[32];
	struct stat sb;

	format_size(size, b, sizeof(b));
	if (bs > size) {
		format_size(bs, a, sizeof(a));
		err_setf(err, "bs %s is larger than size %s", a, b);
		return WL_REFUSE;
	}
	if (given_file(c)) {
		const char *f = prm(c)->file;

		if (stat(f, &sb)) {
			err_setf(err, "cannot read file %s: %s", f,
				 strerror(errno));
			return WL_REFUSE;
		}
		if (!S_ISREG(sb.st_mode)) {
			err_setf(err, "file %s is not a regular file", f);
			return WL_REFUSE;
		}
		if ((uint64_t)sb.st_size < size) {
			human_size((uint64_t)sb.st_size, a, sizeof(a));
			err_setf(err, "file %s holds %s, less than size %s", f,
				 a, b);
			return WL_REFUSE;
		}
		if (threads > 1 && !prm(c)->shared) {
			err_setf(err, "file names one file: %u readers need "
				 "shared set to yes", threads);
			return WL_REFUSE;
		}
		return WL_OK;
	}
	need = size * (uint64_t)nfiles_of(c);
	if ((v = wl_need_space(dir, need, "", err)))
		return v;
	/* the files must stay cached (on tmpfs they are memory) */
	return wl_need_memory(need, " for the page cache", err);
}

/*
 * The clock of the timed loop.  Per read, vDSO clock_gettime and the
 * histogram cost ~25 ns on the 2-vCPU VM, 3% of an ~830 ns 4K tmpfs read;
 * rdtsc and the histogram ~12 ns, 1.5%; lat_every spreads that over N
 * reads.  The TSC is used where it is invariant (tsc_usable), and turned
 * into ns with a ratio measured against CLOCK_MONOTONIC over the whole run.
 */
static inline __attribute__((always_inline)) uint64_t ticks(bool tsc)
{
#ifdef HAVE_TSC
	if (tsc)
		return __rdtsc();
#else
	(void)tsc;
#endif
	return now_ns();
}

/* Whether /proc/cpuinfo's first flags line holds every flag asked for. */
static bool cpu_flags(const char *const *want)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[8192];
	bool ok = false;
	int i;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		ok = true;
		for (i = 0; want[i]; i++) {
			char *p = line;
			size_t n = strlen(want[i]);

			/* a whole word: after a blank, before one or the end */
			while ((p = strstr(p, want[i])) &&
			       !(p > line && (p[-1] == ' ' || p[-1] == '\t') &&
				 (p[n] == ' ' || p[n] == '\n' || !p[n])))
				p += n;
			if (!p)
				ok = false;
		}
		break;
	}
	fclose(f);
	return ok;
}

/*
 * The TSC counts at one rate whatever the CPU's frequency and sleep state
 * when it is invariant (constant_tsc, nonstop_tsc), which is all a reader
 * pinned to one CPU needs: its ticks are turned into ns with the ratio
 * measured against CLOCK_MONOTONIC over the whole run.  A VM whose kernel
 * prefers kvm-clock still has it (measured on the 2-vCPU VM, loaded, in
 * one minute: vDSO kvm-clock 79 ns a reading, rdtsc 14-32 ns).
 */
static bool tsc_usable(void)
{
#ifdef HAVE_TSC
	static const char *const inv[] = { "constant_tsc", "nonstop_tsc",
					   NULL };
	char cs[64];

	if (!read_file_str("/sys/devices/system/clocksource/clocksource0/"
			   "current_clocksource", cs, sizeof(cs)) &&
	    !strcmp(cs, "tsc"))
		return true;
	return cpu_flags(inv);
#else
	return false;
#endif
}

static void calibrate(struct state *st)
{
	uint64_t n0, n1, t0, t1, i;
	volatile uint64_t sink = 0;
	const uint64_t calls = 200000;

	st->tsc = tsc_usable();
	n0 = now_ns();
	t0 = ticks(st->tsc);
	while (now_ns() - n0 < 20000000ull)	/* 20 ms */
		;
	n1 = now_ns();
	t1 = ticks(st->tsc);
	st->ns_per_tick = t1 > t0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1;
	n0 = now_ns();
	for (i = 0; i < calls; i++)
		sink += ticks(st->tsc);
	n1 = now_ns();
	st->clock_cost_ns = (double)(n1 - n0) / (double)calls;
}

/* Each reader's file, buffer and histogram, faulted in now. */
static int open_readers(struct wl_case *c, struct state *st,
			struct strbuf *err)
{
	int i;

	for (i = 0; i < st->nreaders; i++) {
		struct reader *rd = &st->r[i];
		const char *path = file_of(c, st, i);

		rd->st = st;
		rd->idx = i;
		rd->cpu = st->nreaders == 1 || !c->ncpus ? -1 :
			  c->cpus[i % c->ncpus];
		rd->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (rd->fd < 0)
			return err_setf(err, "cannot open %s: %s", path,
					strerror(errno));
		if (posix_memalign((void **)&rd->buf, 4096, st->bs))
			return err_setf(err, "out of memory for a %llu-byte "
					"buffer", (unsigned long long)st->bs);
		/* fault in buffer and histogram now, not in the loop */
		memset(rd->buf, 0, st->bs);
		/* page-aligned: its header and the buckets up to ~4 us in
		 * ticks share one page (see read_loop) */
		if (posix_memalign((void **)&rd->hist, 4096,
				   sizeof(*rd->hist)))
			return err_setf(err, "out of memory");
		hist_init(rd->hist);
		perf_init(&rd->perf);
	}
	return 0;
}

static int setup(struct wl_case *c, struct strbuf *err)
{
	struct state *st = calloc(1, sizeof(*st));
	int i, r;

	if (!st)
		return err_setf(err, "out of memory");
	c->priv = st;
	st->stop = c->stop;
	st->size = prm(c)->size;
	st->bs = prm(c)->bs;
	st->duration = prm(c)->duration;
	st->every = prm(c)->lat_every;
	st->nreaders = (int)c->ps.run.threads;
	st->nfiles = nfiles_of(c);
	st->r = calloc((size_t)st->nreaders, sizeof(*st->r));
	st->paths = calloc((size_t)st->nfiles + 1, sizeof(*st->paths));
	st->made = calloc((size_t)st->nfiles + 1, sizeof(*st->made));
	if (!st->r || !st->paths || !st->made)
		return err_setf(err, "out of memory");
	for (i = 0; i < st->nreaders; i++)
		st->r[i].fd = -1;
	r = seq_read_files(c, st, err);
	if (!r)
		r = open_readers(c, st, err);
	if (r)
		return r;
	calibrate(st);
	return 0;
}

/* At the end of the file, back to its start; false (rd->err) if not. */
static inline __attribute__((always_inline)) bool
wrap(struct reader *rd, uint64_t *off, uint64_t *wraps)
{
	if (*off < rd->st->size)
		return true;
	if (lseek(rd->fd, 0, SEEK_SET)) {
		rd->err = -errno;
		rd->what = "lseek";
		return false;
	}
	*off = 0;
	(*wraps)++;
	return true;
}

static inline __attribute__((always_inline)) void
loop_end(struct reader *rd, uint64_t tk, uint64_t bytes, uint64_t reads,
	 uint64_t wraps)
{
	rd->tk_end = tk;
	rd->ns_end = now_ns();
	rd->bytes = bytes;
	rd->reads = reads;
	rd->wraps = wraps;
}

/* A failed read: false to stop (rd->err set, or stop asked). */
static inline __attribute__((always_inline)) bool
read_failed(struct reader *rd, ssize_t got)
{
	if (got < 0 && errno == EINTR)
		return !*rd->st->stop;
	rd->err = got < 0 ? -errno : -ENODATA;
	rd->what = "read";
	return false;
}

/*
 * The timed loop, specialized for each clock so that the clock test is
 * not in it.  Each read's time runs from the end of the previous one, so
 * one clock reading per read is enough; the wrap's lseek is left out.
 *
 * The loops touch no memory of their own but the stack and, timing, the
 * histogram's first page: in a guest whose user TLB entries do not survive
 * a system call (the 2-vCPU PVM VM), every other page a loop touched cost
 * a TLB miss a read, ~0.9% of a 4K read each (measured: the bare loop
 * reading its size from a heap page each time, 0.991 [0.984, 0.998] of
 * itself).  So the size is a local, the stop flag (a global) is looked at
 * every 1024 reads, and the histogram is page-aligned.
 */
static inline __attribute__((always_inline)) void
read_loop(struct reader *rd, const bool tsc)
{
	struct state *st = rd->st;
	struct hist *h = rd->hist;
	volatile sig_atomic_t *stop = st->stop;
	const int fd = rd->fd;
	char *const buf = rd->buf;
	const size_t bs = st->bs;
	const uint64_t size = st->size;
	uint64_t off = 0, bytes = 0, reads = 0, wraps = 0, t0, t1, deadline;

	rd->ns_start = now_ns();
	t0 = rd->tk_start = ticks(tsc);
	deadline = t0 + (uint64_t)((double)st->duration / st->ns_per_tick);
	for (;;) {
		ssize_t got = read(fd, buf, bs);

		t1 = ticks(tsc);
		if (got <= 0) {
			if (!read_failed(rd, got))
				break;
			t0 = ticks(tsc);	/* a signal's time */
			continue;
		}
		hist_record(h, t1 - t0);
		reads++;
		bytes += (uint64_t)got;
		off += (uint64_t)got;
		if (off >= size) {
			if (!wrap(rd, &off, &wraps))
				break;
			t1 = ticks(tsc);
		}
		if (t1 >= deadline || (!(reads & 1023) && *stop))
			break;
		t0 = t1;
	}
	loop_end(rd, t1, bytes, reads, wraps);
}

/*
 * lat_every N > 1: only every Nth read is timed, between two clock
 * readings of its own; the others are bare, as is the whole loop with
 * N = 0.  The deadline is looked at every 1024 reads, as the bare loop
 * of bench/probe does, or at each timed read.
 */
static inline __attribute__((always_inline)) void
sampled_loop(struct reader *rd, const bool tsc, const uint64_t every)
{
	struct state *st = rd->st;
	struct hist *h = rd->hist;
	volatile sig_atomic_t *stop = st->stop;
	const int fd = rd->fd;
	char *const buf = rd->buf;
	const size_t bs = st->bs;
	const uint64_t size = st->size;
	uint64_t off = 0, bytes = 0, reads = 0, wraps = 0, t0 = 0, t1;
	uint64_t deadline, left = every ? 1 : UINT64_MAX;

	rd->ns_start = now_ns();
	t1 = rd->tk_start = ticks(tsc);
	deadline = t1 + (uint64_t)((double)st->duration / st->ns_per_tick);
	for (;;) {
		bool timed = left == 1;
		ssize_t got;

		if (timed)
			t0 = ticks(tsc);
		got = read(fd, buf, bs);
		if (timed)
			t1 = ticks(tsc);
		if (got <= 0) {
			if (!read_failed(rd, got))
				break;
			continue;
		}
		if (timed) {
			hist_record(h, t1 - t0);
			left = every + 1;
		}
		left--;
		reads++;
		bytes += (uint64_t)got;
		off += (uint64_t)got;
		if (off >= size && !wrap(rd, &off, &wraps))
			break;
		if (!timed && (reads & 1023))
			continue;
		if (!timed)
			t1 = ticks(tsc);
		if (t1 >= deadline || *stop)
			break;
	}
	loop_end(rd, ticks(tsc), bytes, reads, wraps);
}

static void *reader_main(void *arg)
{
	struct reader *rd = arg;
	struct state *st = rd->st;
	int go = 1;

	if (rd->cpu >= 0 && st->pin && st->pin(rd->cpu)) {
		rd->err = -EINVAL;
		rd->what = NULL;	/* pinning, not I/O */
	}
	perf_open(&rd->perf);
	if (st->threaded) {
		pthread_mutex_lock(&st->lock);
		st->ready++;
		pthread_cond_broadcast(&st->cond);
		while (!st->go)
			pthread_cond_wait(&st->cond, &st->lock);
		go = st->go;
		pthread_mutex_unlock(&st->lock);
	}
	if (go > 0 && !rd->err) {
		perf_enable(&rd->perf);
		if (st->every == 1 && st->tsc)
			read_loop(rd, true);
		else if (st->every == 1)
			read_loop(rd, false);
		else if (st->tsc)
			sampled_loop(rd, true, st->every);
		else
			sampled_loop(rd, false, st->every);
		perf_disable(&rd->perf);
		perf_read(&rd->perf);
	}
	perf_close(&rd->perf);
	return NULL;
}

/* Start the readers together and wait for them; -errno if one can't. */
static int run_readers(struct state *st)
{
	int i, n, r = 0;

	if (st->nreaders == 1) {
		/* on the CPU the runner pinned us to */
		reader_main(&st->r[0]);
		return 0;
	}
	st->threaded = true;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->cond, NULL);
	for (n = 0; n < st->nreaders; n++) {
		r = -pthread_create(&st->r[n].th, NULL, reader_main,
				    &st->r[n]);
		if (r)
			break;
	}
	pthread_mutex_lock(&st->lock);
	while (!r && st->ready < st->nreaders)
		pthread_cond_wait(&st->cond, &st->lock);
	st->go = r ? -1 : 1;
	pthread_cond_broadcast(&st->cond);
	pthread_mutex_unlock(&st->lock);
	for (i = 0; i < n; i++)
		pthread_join(st->r[i].th, NULL);
	pthread_cond_destroy(&st->cond);
	pthread_mutex_destroy(&st->lock);
	return r;
}

static void set_perf(struct wl_case *c, struct wl_sample *s,
		     struct state *st, const struct perf_set *sum,
		     uint64_t wall)
{
	const struct workload *w = c->wl;
	double tc_s = perf_ok(sum, PERF_TASK_CLOCK) ?
		      (double)sum->value[PERF_TASK_CLOCK] / 1e9 : 0;
	char rate[64];
	size_t used = 0;
	int i, last_err = 0;

	st->perf_why[0] = '\0';
	for (i = 0; i < PERF_NR; i++) {
		const char *name = perf_name((enum perf_id)i);

		if (i == PERF_TASK_CLOCK)
			snprintf(rate, sizeof(rate), "cpus_utilized");
		else
			snprintf(rate, sizeof(rate), "%s_per_s", name);
		if (!perf_ok(sum, (enum perf_id)i)) {
			int err = -sum->err[i];
			int k;

			wl_unsupported(s, w, name);
			wl_unsupported(s, w, rate);
			k = snprintf(st->perf_why + used,
				     sizeof(st->perf_why) - used, "%s%s%s%s",
				     used ? ", " : "", name,
				     err != last_err ? ": " : "",
				     err != last_err ? strerror(err) : "");
			if (k > 0 && used + (size_t)k < sizeof(st->perf_why))
				used += (size_t)k;
			last_err = err;
			continue;
		}
		wl_set(s, w, name, (double)sum->value[i]);
		if (i == PERF_TASK_CLOCK)
			wl_set(s, w, rate,
			       (double)sum->value[i] / (double)wall);
		else if (tc_s > 0)
			wl_set(s, w, rate, (double)sum->value[i] / tc_s);
		else
			wl_unsupported(s, w, rate);
	}
}

static int run(struct wl_case *c, struct wl_sample *s, struct strbuf *err)
{
	struct state *st = c->priv;
	struct hist *all = st->r[0].hist;
	struct perf_set sum;
	uint64_t bytes = 0, reads = 0, first = UINT64_MAX, last = 0, wall;
	double tk = 0, tns = 0, npt, secs;
	int i, r;

	st->pin = c->pin_thread;
	r = run_readers(st);
	if (r)
		return err_setf(err, "cannot start %d reader threads: %s",
				st->nreaders, strerror(-r));
	if (*c->stop)
		return err_setf(err, "interrupted");
	perf_sum_init(&sum);
	for (i = 0; i < st->nreaders; i++) {
		struct reader *rd = &st->r[i];

		if (rd->err && !rd->what)
			return err_setf(err, "cannot pin reader %d to CPU %d",
					i, rd->cpu);
		if (rd->err)
			return err_setf(err, "reader %d cannot %s %s: %s", i,
					rd->what, file_of(c, st, i),
					rd->err == -ENODATA ?
					"unexpected end of file" :
					strerror(-rd->err));
		if (i)
			hist_merge(all, rd->hist);
		perf_add(&sum, &rd->perf);
		bytes += rd->bytes;
		reads += rd->reads;
		if (rd->ns_start < first)
			first = rd->ns_start;
		if (rd->ns_end > last)
			last = rd->ns_end;
		tns += (double)(rd->ns_end - rd->ns_start);
		tk += (double)(rd->tk_end - rd->tk_start);
	}
	wall = last > first ? last - first : 1;
	secs = (double)wall / 1e9;
	/* ticks to ns, measured over the whole run */
	npt = st->tsc && tk > 0 ? tns / tk : 1;
	wl_set_m(s, M_BW, (double)bytes / MIB / secs);
	wl_set_m(s, M_IOPS, (double)reads / secs);
	if (st->every) {
		wl_set_m(s, M_LAT_P50, (double)hist_percentile(all, 50) * npt);
		wl_set_m(s, M_LAT_P99, (double)hist_percentile(all, 99) * npt);
		wl_set_m(s, M_LAT_P999,
			 (double)hist_percentile(all, 99.9) * npt);
		wl_set_m(s, M_LAT_MAX, (double)all->max * npt);
	} else {
		wl_unsupported_m(s, M_LAT_P50);
		wl_unsupported_m(s, M_LAT_P99);
		wl_unsupported_m(s, M_LAT_P999);
		wl_unsupported_m(s, M_LAT_MAX);
	}
	set_perf(c, s, st, &sum, wall);
	wl_note(s, "perf_multiplexed", 0);
	for (i = 0; i < PERF_NR; i++)
		if (perf_ok(&sum, (enum perf_id)i) && sum.scaled[i])
			wl_note(s, "perf_multiplexed", 1);
	wl_note(s, "ns_per_tick", npt);
	return 0;
}

static void teardown(struct wl_case *c)
{
	struct state *st = c->priv;
	int i;

	if (!st)
		return;
	for (i = 0; st->r && i < st->nreaders; i++) {
		if (st->r[i].fd >= 0)
			close(st->r[i].fd);
		free(st->r[i].buf);
		free(st->r[i].hist);
	}
	for (i = 0; st->made && i < st->nfiles; i++)
		if (st->made[i])
			unlink(st->paths[i].buf);
	free(st->r);
	for (i = 0; st->paths && i < st->nfiles; i++)
		strbuf_release(&st->paths[i]);
	free(st->paths);
	strbuf_release(&st->dir);
	free(st->made);
	free(st);
	c->priv = NULL;
}

/*
 * The reading time, and the writing and caching of each file made, at the
 * rate measured on the 2-vCPU VM.
 */
#define EST_S_PER_GIB	0.6

static double estimate_s(const struct wl_case *c)
{
	return (double)prm(c)->duration / 1e9 + 0.2 +
	       EST_S_PER_GIB * (double)prm(c)->size * nfiles_of(c) /
	       (double)(1ull << 30);
}

const struct workload wl_seq_read = {
	.name = "seq-read",
	.summary = "sequential read(2) of a cached file for a fixed time "
		   "(fio sync engine, time_based), with latency and perf "
		   "counters",
	.params = params,
	.params_size = sizeof(struct sr_params),
	.metrics = metrics,
	.preflight = preflight,
	.setup = setup,
	.run = run,
	.verify = seq_read_verify,
	.teardown = teardown,
	.estimate_s = estimate_s,
	/* counted here, around each reader's loop, not by the runner */
};
