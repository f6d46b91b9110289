/* The noise record of each sample, and `bench check`'s noise report. */
#include "noise.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int noise_steal_ticks(const int *pus, int n, uint64_t *sum)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];
	int cpu, i, found = 0;
	unsigned long long v[8];

	*sum = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		/* cpuN user nice system idle iowait irq softirq steal */
		if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu "
			   "%llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) != 9)
			continue;
		for (i = 0; i < n; i++)
			if (pus[i] == cpu) {
				*sum += v[7];
				found++;
			}
	}
	fclose(f);
	return found ? 0 : -1;
}

double noise_freq_mhz(const int *pus, int n)
{
	char path[128];
	uint64_t khz;
	double sum = 0;
	int i, got = 0;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "cpufreq/scaling_cur_freq", pus[i]);
		if (read_file_u64(path, &khz))
			continue;
		sum += (double)khz / 1000.0;
		got++;
	}
	return got ? sum / got : NAN;
}

int noise_schedstat_open(void)
{
	return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int64_t noise_schedstat(int fd, int k)
{
	char buf[96], *p = buf, *end;
	long long v = -1;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	for (; k >= 0; k--, p = end) {
		v = strtoll(p, &end, 10);
		if (end == p)
			return -1;
	}
	return v;
}

/* Mark z noisy for one more reason, after any already there. */
static void __attribute__((format(printf, 2, 3)))
add_reason(struct noise *z, const char *fmt, ...)
{
	size_t used = strlen(z->why);
	va_list ap;

	z->noisy = true;
	if (used && used + 2 < sizeof(z->why)) {
		memcpy(z->why + used, "; ", 3);
		used += 2;
	}
	va_start(ap, fmt);
	vsnprintf(z->why + used, sizeof(z->why) - used, fmt, ap);
	va_end(ap);
}

void noise_judge_wait(struct noise *z, int n, uint64_t wall, int64_t wait)
{
	z->runq_wait_ns = wait;
	if (wait < 0 || !wall || n < 1)
		return;
	z->runq_wait_pct = 100.0 * (double)wait / ((double)wall * n);
	if (z->runq_wait_pct <= NOISE_WAIT_MAX_PCT)
		return;
	z->waited = true;
	add_reason(z, "waited %.3g ms on a run queue during the timed call "
		   "(%.0f%% of its wall time, %lld involuntary context "
		   "switches)", (double)wait / 1e6, z->runq_wait_pct,
		   (long long)z->nivcsw);
}

void noise_begin(struct noise *z, const int *pus, int n)
{
	memset(z, 0, sizeof(*z));
	z->runq_wait_ns = -1;
	z->known = !noise_steal_ticks(pus, n, &z->steal0);
}

void noise_end(struct noise *z, const int *pus, int n, uint64_t wall,
	       double steal_max)
{
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t s1;

	z->steal_max = steal_max;
	z->freq_mhz = noise_freq_mhz(pus, n);
	if (!z->known || noise_steal_ticks(pus, n, &s1) || s1 < z->steal0) {
		z->known = false;
		return;
	}
	z->steal_ns = (double)(s1 - z->steal0) * 1e9 / (double)(hz > 0 ?
								hz : 100);
	z->steal_pct = wall && n ? 100.0 * z->steal_ns /
				   ((double)wall * n) : 0;
	if (z->steal_pct > steal_max)
		add_reason(z, "steal %.2f%% of the wall time, over steal_max "
			   "%.4g%%", z->steal_pct, steal_max);
}

/* The loop: a multiply and an add a turn, kept in a register. */
static void spin(uint64_t turns)
{
	uint64_t x = 1, i;

	for (i = 0; i < turns; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		__asm__ __volatile__("" : "+r"(x));
	}
}

/* released together: a thread that cannot start leaves none waiting */
struct start {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready;
	bool go;
};

struct spinner {
	pthread_t th;
	struct start *st;
	int pu;
	uint64_t turns, ns, cpu_ns;
	bool started;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int bind_self(int pu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(pu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *spinner_main(void *arg)
{
	struct spinner *sp = arg;
	uint64_t t0, c0;

	bind_self(sp->pu);
	pthread_mutex_lock(&sp->st->lock);
	sp->st->ready++;
	pthread_cond_broadcast(&sp->st->cond);
	while (!sp->st->go)
		pthread_cond_wait(&sp->st->cond, &sp->st->lock);
	pthread_mutex_unlock(&sp->st->lock);
	c0 = thread_cpu_ns();
	t0 = now_ns();
	spin(sp->turns);
	sp->ns = now_ns() - t0;
	sp->cpu_ns = thread_cpu_ns() - c0;
	return NULL;
}

/*
 * All n at once; the time of the last to finish, 0 on failure; *cpu: the
 * CPU time of the first.
 */
static uint64_t spin_all(const int *pus, int n, uint64_t turns,
			 uint64_t *cpu)
{
	struct spinner *sp = xcalloc((size_t)n, sizeof(*sp));
	struct start st = { PTHREAD_MUTEX_INITIALIZER,
			    PTHREAD_COND_INITIALIZER, 0, false };
	uint64_t most = 0;
	int i, ok = 1, started = 0;

	for (i = 0; i < n && ok; i++) {
		sp[i].st = &st;
		sp[i].pu = pus[i];
		sp[i].turns = turns;
		ok = !pthread_create(&sp[i].th, NULL, spinner_main, &sp[i]);
		sp[i].started = ok;
		started += ok;
	}
	/* every thread on its PU before any starts */
	pthread_mutex_lock(&st.lock);
	while (st.ready < started)
		pthread_cond_wait(&st.cond, &st.lock);
	st.go = true;
	pthread_cond_broadcast(&st.cond);
	pthread_mutex_unlock(&st.lock);
	for (i = 0; i < n; i++) {
		if (!sp[i].started)
			continue;
		pthread_join(sp[i].th, NULL);
		if (sp[i].ns > most)
			most = sp[i].ns;
	}
	if (cpu)
		*cpu = sp[0].cpu_ns;
	free(sp);
	return ok ? most : 0;
}

double noise_parallel(const int *pus, int n)
{
	uint64_t turns = 1 << 16, alone = UINT64_MAX, all = UINT64_MAX, t;
	uint64_t cpu = 0;
	int i;

	if (n < 2)
		return 0;
	/*
	 * A loop of about 40 ms of CPU time on pus[0] (a shorter one runs
	 * mostly on a waker's credit, and shows no sharing)
	 */
	for (;;) {
		if (!spin_all(pus, 1, turns, &cpu))
			return 0;
		if (cpu >= 40000000 || turns >= (1ull << 40))
			break;
		turns *= cpu < 500000 ? 8 : 2;
	}
	for (i = 0; i < 3; i++) {
		t = spin_all(pus, 1, turns, NULL);
		if (t && t < alone)
			alone = t;
		t = spin_all(pus, n, turns, NULL);
		if (t && t < all)
			all = t;
	}
	if (alone == UINT64_MAX || all == UINT64_MAX)
		return 0;
	return (double)all / (double)alone;
}

void noise_judge_parallel(struct noise *z, int n, double slowdown)
{
	z->slowdown = slowdown;
	if (slowdown <= NOISE_SLOWDOWN_MAX)
		return;
	add_reason(z, "oversubscribed: %d PUs at once ran a fixed loop %.1fx "
		   "slower than one alone (about %.1f CPUs' worth)", n,
		   slowdown, (double)n / slowdown);
}

void noise_json(const struct noise *z, struct strbuf *sb)
{
	strbuf_addf(sb, "{");
	if (z->known)
		strbuf_addf(sb, "\"steal_ns\":%.0f,\"steal_pct\":%.4g,",
			    z->steal_ns, z->steal_pct);
	else
		strbuf_addf(sb, "\"steal_ns\":null,\"steal_pct\":null,");
	strbuf_addf(sb, "\"nvcsw\":%lld,\"nivcsw\":%lld,",
		    (long long)z->nvcsw, (long long)z->nivcsw);
	if (isfinite(z->freq_mhz))
		strbuf_addf(sb, "\"freq_mhz\":%.0f,", z->freq_mhz);
	else
		strbuf_addf(sb, "\"freq_mhz\":null,");
	if (z->slowdown > 0)
		strbuf_addf(sb, "\"parallel_slowdown\":%.3g,", z->slowdown);
	if (z->runq_wait_ns >= 0)
		strbuf_addf(sb, "\"runq_wait_ns\":%lld,\"runq_wait_pct\":%.4g,",
			    (long long)z->runq_wait_ns, z->runq_wait_pct);
	else
		strbuf_addf(sb, "\"runq_wait_ns\":null,");
	if (z->why[0]) {
		strbuf_addf(sb, "\"noisy_reason\":");
		strbuf_json_str(sb, z->why);
		strbuf_addf(sb, ",");
	}
	strbuf_addf(sb, "\"steal_max_pct\":%.4g,\"noisy\":%s}", z->steal_max,
		    z->noisy ? "true" : "false");
}

/* CPU ticks of every process but ours: pid and utime+stime. */
struct proc_tick {
	int pid;
	uint64_t ticks;
	char comm[32];
};

static int proc_ticks(struct proc_tick **out)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc_tick *v = NULL;
	int n = 0, alloc = 0, self = (int)getpid();

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[300], buf[1024], *rp;
		unsigned long long ut, st;
		FILE *f;
		int pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (pid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (!fgets(buf, sizeof(buf), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		rp = strrchr(buf, ')');
		/* after "pid (comm)": state ppid ... utime(14) stime(15) */
		if (!rp || sscanf(rp + 2, "%*c %*d %*d %*d %*d %*d %*u %*u "
				  "%*u %*u %*u %llu %llu", &ut, &st) != 2)
			continue;
		ALLOC_GROW(v, n + 1, alloc);
		v[n].pid = pid;
		v[n].ticks = ut + st;
		*rp = '\0';
		snprintf(v[n].comm, sizeof(v[n].comm), "%s",
			 strchr(buf, '(') ? strchr(buf, '(') + 1 : "?");
		n++;
	}
	closedir(d);
	*out = v;
	return n;
}

void noise_now(const int *pus, int n, struct strbuf *out)
{
	struct timespec sec = { 1, 0 };
	struct proc_tick *a = NULL, *b = NULL;
	uint64_t s0 = 0, s1 = 0;
	long hz = sysconf(_SC_CLK_TCK);
	int na, nb, i, k, best = -1;
	double best_pct = 0, steal_pct;
	char gov[64], path[128];

	if (n < 4)
		strbuf_addf(out, "only %d usable PU%s: the workers share them "
			    "with the runner and the kernel's own work\n", n,
			    n == 1 ? "" : "s");
	na = proc_ticks(&a);
	if (noise_steal_ticks(pus, n, &s0))
		s0 = UINT64_MAX;
	nanosleep(&sec, NULL);
	nb = proc_ticks(&b);
	if (s0 != UINT64_MAX && !noise_steal_ticks(pus, n, &s1) && s1 > s0) {
		steal_pct = 100.0 * (double)(s1 - s0) / (double)hz / n;
		strbuf_addf(out, "steal: the hypervisor took %.1f%% of the "
			    "usable PUs in the last second\n", steal_pct);
	}
	for (i = 0; i < nb; i++)
		for (k = 0; k < na; k++)
			if (a[k].pid == b[i].pid && b[i].ticks > a[k].ticks) {
				double pct = 100.0 * (double)(b[i].ticks -
						     a[k].ticks) / (double)hz;

				if (pct > best_pct) {
					best_pct = pct;
					best = i;
				}
			}
	if (best >= 0 && best_pct >= 20)
		strbuf_addf(out, "another process is busy: pid %d (%s) used "
			    "%.0f%% of a CPU in the last second\n",
			    b[best].pid, b[best].comm, best_pct);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/"
			 "cpufreq/scaling_governor", pus[i]);
		if (!read_file_str(path, gov, sizeof(gov)) &&
		    strcmp(gov, "performance")) {
			strbuf_addf(out, "frequency scaling: PU %d's governor "
				    "is %s, not performance\n", pus[i], gov);
			break;
		}
	}
	free(a);
	free(b);
}
