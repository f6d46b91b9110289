/*
 * The kernel profile of the timed calls (profile.h).  One cpu-clock event
 * per PU the case's workers run on (pid -1, cpu PU), not one per worker
 * thread: the work a call hands to its PU's softirqs and kworkers (RCU
 * frees, a FUSE server's replies) is part of what the call costs, the
 * workers are pinned (a worker that moved makes its sample invalid), and
 * one scheme serves threads and forked processes alike.  The events are
 * enabled right before the timed call and disabled right after it, their
 * rings read after it, and only samples stamped (CLOCK_MONOTONIC) inside
 * the workload's own timed region are kept: the runner's reads of /proc
 * around the call are not the call.
 *
 * Why the cpu-clock and not cycles where a PMU is there: compare gives a
 * function's share times the case's median time; a clock's share is a
 * share of that time, a cycle count's is not (stalls, frequency), and in
 * a counting guest the cpu-clock ticks on instructions, which repeats.
 * Whether a PMU is there is recorded with the profile.
 */
#include "profile.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A ring of 2^11 pages (8 MiB) a PU: ~25 000 samples of 40 frames, 2.5 s
 * of one PU's kernel time at 100 us, read only once a call is done. */
#define RING_PAGES	2048
/* Deeper chains are cut (perf's own default is 127). */
#define MAX_FRAMES	127

static long page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? ps : 4096;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct profile_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The text symbols (t, T) of a kallsyms file, sorted by address.  0, or
 * -1 with why in err: unreadable, or every address 0 (kptr_restrict,
 * not root).
 */
int profile_read_kallsyms(struct profile *p, const char *path,
			  struct strbuf *err)
{
	FILE *f = fopen(path, "re");
	struct strbuf names = STRBUF_INIT;
	size_t alloc = 0, off_alloc = 0, i, *off = NULL;
	char line[512], type, name[256];
	unsigned long long addr;
	bool nonzero = false;

	if (!f) {
		return err_setf(err, "cannot read %s: %s", path,
				strerror(errno));
	}
	p->nsyms = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		nonzero |= addr != 0;
		if (type != 't' && type != 'T')
			continue;
		ALLOC_GROW(p->syms, p->nsyms + 1, alloc);
		ALLOC_GROW(off, p->nsyms + 1, off_alloc);
		p->syms[p->nsyms].addr = addr;
		off[p->nsyms++] = names.len;
		strbuf_add(&names, name, strlen(name) + 1);
	}
	fclose(f);
	if (!nonzero || !p->nsyms) {
		err_setf(err, "%s shows %s", path, p->nsyms ?
			 "every address as 0 (kernel.kptr_restrict, or not "
			 "root)" : "no kernel function");
		strbuf_release(&names);
		free(off);
		return -1;
	}
	p->names = strbuf_detach(&names, NULL);
	for (i = 0; i < p->nsyms; i++)
		p->syms[i].name = p->names + off[i];
	free(off);
	qsort(p->syms, p->nsyms, sizeof(*p->syms), sym_cmp);
	return 0;
}

/* The function holding ip: the last symbol at or below it. */
const char *profile_sym_name(const struct profile *p, uint64_t ip)
{
	size_t lo = 0, hi = p->nsyms;

	if (!p->nsyms || ip < p->syms[0].addr)
		return "[unknown]";
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->syms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return p->syms[lo].name;
}

static int event_open(const struct profile *p, int cpu, bool sample)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.disabled = 1;
	a.exclude_user = 1;
	a.exclude_hv = 1;
	if (sample) {
		a.type = PERF_TYPE_SOFTWARE;
		a.config = PERF_COUNT_SW_CPU_CLOCK;
		a.sample_period = p->period;
		a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
		a.exclude_callchain_user = 1;
		/* an idle PU's loop is not the call's kernel work */
		a.exclude_idle = 1;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;	/* now_ns()'s clock */
		a.sample_max_stack = MAX_FRAMES;
		/* never woken: the ring is read after the call */
		a.watermark = 1;
		a.wakeup_watermark = (uint32_t)(RING_PAGES * page_size());
	} else {
		a.type = PERF_TYPE_HARDWARE;
		a.config = PERF_COUNT_HW_CPU_CYCLES;
	}
	return (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

static bool counted(void)
{
	const char *c = getenv("FOLIOBENCH_CLOCK");

	return c && !strcmp(c, "instructions");
}

static void release_rings(struct profile *p)
{
	int i;

	for (i = 0; i < p->npu; i++) {
		if (p->pu[i].ring)
			munmap(p->pu[i].ring, p->ring_len);
		if (p->pu[i].fd >= 0)
			close(p->pu[i].fd);
	}
	free(p->pu);
	p->pu = NULL;
	p->npu = 0;
}

/* Why the kernel refused, with what would change its mind. */
static void turn_off(struct profile *p, const char *fmt, int cpu, int err)
{
	char par[32] = "?";
	int n;

	p->on = false;
	n = snprintf(p->off, sizeof(p->off), fmt, cpu, strerror(err));
	if (n < 0 || (size_t)n >= sizeof(p->off))
		return;
	read_file_str("/proc/sys/kernel/perf_event_paranoid", par,
		      sizeof(par));
	if (err == EACCES || err == EPERM)
		snprintf(p->off + n, sizeof(p->off) - (size_t)n, " (a CPU's "
			 "events need CAP_PERFMON or kernel.perf_event_paranoid"
			 " <= 0; it is %s)", par);
	else if (err == ENOENT || err == ENOSYS || err == EOPNOTSUPP)
		snprintf(p->off + n, sizeof(p->off) - (size_t)n, " (a kernel "
			 "without CONFIG_PERF_EVENTS?)");
}

void profile_init(struct profile *p, bool ask, uint64_t period)
{
	struct strbuf err = STRBUF_INIT;
	char why[200];
	int fd, cpu = sched_getcpu();

	memset(p, 0, sizeof(*p));
	if (!ask)
		return;
	p->period = period;
	p->unit = counted() ? "instructions" : "ns";
	p->ring_len = (RING_PAGES + 1) * (size_t)page_size();
	if (cpu < 0)
		cpu = 0;
	if (profile_read_kallsyms(p, "/proc/kallsyms", &err)) {
		snprintf(p->off, sizeof(p->off), "%s", err.buf);
		strbuf_release(&err);
		return;
	}
	read_file_str("/proc/sys/kernel/osrelease", why, sizeof(why));
	snprintf(p->symbols, sizeof(p->symbols), "/proc/kallsyms of %.64s "
		 "(%zu functions)", why, p->nsyms);
	fd = event_open(p, cpu, true);
	if (fd < 0) {
		turn_off(p, "the kernel refuses a cpu-clock event on CPU %d: "
			 "%s", cpu, errno);
		return;
	}
	close(fd);
	fd = event_open(p, cpu, false);
	p->pmu = fd >= 0;
	if (fd >= 0)
		close(fd);
	p->on = true;
}

void profile_release(struct profile *p)
{
	release_rings(p);
	free(p->syms);
	free(p->names);
	memset(p, 0, sizeof(*p));
}

int profile_case_open(struct profile *p, const int *pus, int n)
{
	int i;

	profile_case_reset(p);
	if (!p->on)
		return -1;
	p->pu = xcalloc((size_t)n, sizeof(*p->pu));
	p->npu = n;
	for (i = 0; i < n; i++)
		p->pu[i].fd = -1;
	for (i = 0; i < n; i++) {
		p->pu[i].pu = pus[i];
		p->pu[i].fd = event_open(p, pus[i], true);
		if (p->pu[i].fd < 0) {
			turn_off(p, "the kernel refuses a cpu-clock event on "
				 "CPU %d: %s", pus[i], errno);
			break;
		}
		p->pu[i].ring = mmap(NULL, p->ring_len, PROT_READ | PROT_WRITE,
				     MAP_SHARED, p->pu[i].fd, 0);
		if (p->pu[i].ring == MAP_FAILED) {
			p->pu[i].ring = NULL;
			turn_off(p, "cannot map the profile's ring of CPU %d: "
				 "%s", pus[i], errno);
			break;
		}
	}
	if (p->on)
		return 0;
	release_rings(p);
	return -1;
}

void profile_case_close(struct profile *p)
{
	release_rings(p);
}

int profile_fd(const struct profile *p, int i)
{
	return p->on && i < p->npu ? p->pu[i].fd : -1;
}

void profile_start(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void profile_stop(int fd)
{
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* len bytes of the ring at pos (which wraps) into out. */
static void ring_copy(const unsigned char *data, uint64_t size, uint64_t pos,
		      void *out, size_t len)
{
	size_t at = (size_t)(pos % size), first = len;

	if (first > size - at)
		first = (size_t)(size - at);
	memcpy(out, data + at, first);
	memcpy((unsigned char *)out + first, data, len - first);
}

/* A sample's call chain folded, outermost first, into sb. */
static void fold(const struct profile *p, const uint64_t *ips, uint64_t nr,
		 uint64_t ip, struct strbuf *sb)
{
	uint64_t k;
	int frames = 0;

	strbuf_reset(sb);
	for (k = nr; k-- > 0;) {
		if (ips[k] >= (uint64_t)PERF_CONTEXT_MAX)
			continue;	/* a context marker */
		strbuf_addf(sb, "%s%s", frames++ ? ";" : "",
			    profile_sym_name(p, ips[k]));
	}
	if (!frames)
		strbuf_addstr(sb, profile_sym_name(p, ip));
}

/* Is tid a kernel thread (PF_KTHREAD in /proc/TID/stat's flags)? */
static bool kthread(uint32_t tid)
{
	char path[64], buf[1024], *q;
	unsigned long long flags;
	int i;

	snprintf(path, sizeof(path), "/proc/%u/stat", tid);
	if (read_file_str(path, buf, sizeof(buf)))
		return false;	/* gone: a task's, which ends */
	q = strrchr(buf, ')');	/* comm may hold spaces */
	for (i = 3; i <= 9 && q; i++)
		q = strchr(q + 1, ' ');
	return q && sscanf(q, " %llu", &flags) == 1 && (flags & 0x00200000);
}

/*
 * Is a sample of this task the call's?  Its own process's, the idle
 * task's interrupts and kernel threads' (the work it hands to its PU) are;
 * another program's system calls on the PU (a noisy sample) are not.
 */
static bool the_calls(struct profile_call *c, uint32_t pid, uint32_t tid)
{
	size_t i;

	if (pid == c->own || !pid)
		return true;
	for (i = 0; i < c->ntask; i++)
		if (c->task[i].tid == tid)
			return c->task[i].kernel;
	ALLOC_GROW(c->task, c->ntask + 1, c->task_alloc);
	c->task[c->ntask].tid = tid;
	c->task[c->ntask].kernel = kthread(tid);
	return c->task[c->ntask++].kernel;
}

/* A PERF_RECORD_SAMPLE: ip, pid and tid, time, nr, ips[nr]. */
static void one_sample(const struct profile *p, const unsigned char *rec,
		       size_t len, uint64_t t0, uint64_t t1,
		       struct profile_call *c, struct strbuf *sb)
{
	const size_t head = sizeof(struct perf_event_header);
	uint64_t ip, time, nr;
	uint32_t pid, tid;

	if (len < head + 32)
		return;
	memcpy(&ip, rec + head, 8);
	memcpy(&pid, rec + head + 8, 4);
	memcpy(&tid, rec + head + 12, 4);
	memcpy(&time, rec + head + 16, 8);
	memcpy(&nr, rec + head + 24, 8);
	if (nr > (len - head - 32) / 8 || time < t0 || time > t1)
		return;
	if (!the_calls(c, pid, tid)) {
		c->others++;
		return;
	}
	fold(p, (const uint64_t *)(const void *)(rec + head + 32), nr, ip, sb);
	ALLOC_GROW(c->st, c->n + 1, c->alloc);
	c->st[c->n].stack = xstrdup(strbuf_str(sb));
	c->st[c->n++].count = 1;
	c->samples++;
}

void profile_collect(struct profile *p, int i, uint64_t t0, uint64_t t1,
		     int own, struct profile_call *c)
{
	struct perf_event_mmap_page *mp;
	const unsigned char *data;
	struct perf_event_header h;
	struct strbuf sb = STRBUF_INIT;
	unsigned char *rec = NULL;
	uint64_t head, tail, size, lost;
	size_t alloc = 0;

	if (!p->on || i >= p->npu || !p->pu[i].ring)
		return;
	c->own = (uint32_t)own;
	mp = p->pu[i].ring;
	data = (const unsigned char *)mp + mp->data_offset;
	size = mp->data_size;
	head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
	for (tail = mp->data_tail; head - tail >= sizeof(h);
	     tail += h.size) {
		ring_copy(data, size, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - tail)
			break;	/* never: the kernel writes whole records */
		ALLOC_GROW(rec, h.size, alloc);
		ring_copy(data, size, tail, rec, h.size);
		if (h.type == PERF_RECORD_SAMPLE) {
			one_sample(p, rec, h.size, t0, t1, c, &sb);
		} else if (h.type == PERF_RECORD_LOST && h.size >= 24) {
			memcpy(&lost, rec + 16, 8);
			c->lost += lost;
		} else if (h.type == PERF_RECORD_THROTTLE) {
			c->throttled++;
		}
	}
	__atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
	free(rec);
	strbuf_release(&sb);
}

static int stack_cmp(const void *a, const void *b)
{
	const struct profile_stack *x = a, *y = b;

	return strcmp(x->stack, y->stack);
}

void profile_call_done(struct profile *p, struct profile_call *c)
{
	size_t i, k = 0;

	if (c->n)
		qsort(c->st, c->n, sizeof(*c->st), stack_cmp);
	for (i = 0; i < c->n; i++) {
		if (k && !strcmp(c->st[k - 1].stack, c->st[i].stack)) {
			c->st[k - 1].count += c->st[i].count;
			free(c->st[i].stack);
			continue;
		}
		c->st[k++] = c->st[i];
	}
	c->n = k;
	p->calls++;
	p->samples += c->samples;
	p->lost += c->lost;
	p->throttled += c->throttled;
	p->others += c->others;
}

void profile_call_release(struct profile_call *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->st[i].stack);
	free(c->st);
	free(c->task);
	memset(c, 0, sizeof(*c));
}

void profile_json(const struct profile *p, struct strbuf *sb)
{
	if (!p->on) {
		strbuf_addstr(sb, "{\"off\":");
		strbuf_json_str(sb, p->off);
		strbuf_addch(sb, '}');
		return;
	}
	strbuf_addf(sb, "{\"event\":\"cpu-clock\",\"period\":%llu,\"unit\":",
		    (unsigned long long)p->period);
	strbuf_json_str(sb, p->unit);
	strbuf_addf(sb, ",\"calls\":%llu,\"samples\":%llu,\"lost\":%llu,"
		    "\"throttled\":%llu,\"others\":%llu,\"pmu\":%s,"
		    "\"symbols\":", (unsigned long long)p->calls,
		    (unsigned long long)p->samples,
		    (unsigned long long)p->lost,
		    (unsigned long long)p->throttled,
		    (unsigned long long)p->others,
		    p->pmu ? "true" : "false");
	strbuf_json_str(sb, p->symbols);
	strbuf_addch(sb, '}');
}

void profile_case_reset(struct profile *p)
{
	p->calls = p->samples = p->lost = p->throttled = p->others = 0;
}
