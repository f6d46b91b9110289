/*
 * The workloads' shared helpers: parts_run splits a range among threads
 * (every byte once, in whole units, each part run once), and the /proc
 * readers (a counter present, one missing).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workloads/sys/parts.h"
#include "workloads/sys/proc.h"
#include "tap.h"

struct t_part {
	struct part part;
	atomic_int runs;
	pthread_t who;
};

static void *note(void *arg)
{
	struct t_part *p = arg;

	atomic_fetch_add(&p->runs, 1);
	p->who = pthread_self();
	return NULL;
}

/* Split size among n in units; -1 unless every byte is in one part. */
static int check_split(int n, uint64_t size, uint64_t unit, int *in_caller)
{
	struct t_part parts[8];
	uint64_t at = 0;
	int i;

	memset(parts, 0, sizeof(parts));
	parts_run(parts, sizeof(parts[0]), n, size, unit, note);
	*in_caller = pthread_equal(parts[n - 1].who, pthread_self());
	for (i = 0; i < n; i++) {
		if (parts[i].runs != 1 || parts[i].part.off != at ||
		    (parts[i].part.len % unit && at + parts[i].part.len != size))
			return -1;
		at += parts[i].part.len;
	}
	return at == size ? 0 : -1;
}

int main(void)
{
	static const uint64_t sizes[] = { 0, 1, 4095, 4096, 262144,
					  262144 * 3 + 17, 1ull << 30 };
	const char *names[] = { "nr_free_pages", "no_such_counter_here" };
	uint64_t v[2], s0, s1, sw = ~0ull;
	int n, k, bad = 0, caller = 1, in;
	volatile unsigned long sink = 0;

	tap_plan(5);
	for (n = 1; n <= 8; n++)
		for (k = 0; k < (int)(sizeof(sizes) / sizeof(sizes[0])); k++) {
			if (check_split(n, sizes[k], 262144, &in)) {
				bad++;
				printf("# n %d size %llu\n", n,
				       (unsigned long long)sizes[k]);
			}
			caller &= in;
		}
	OK(!bad, "parts_run: every byte in one part, in whole units, "
	   "each part run once (1 to 8 parts, 7 sizes)");
	OK(caller, "the last part runs in the calling thread");

	OK(!proc_vmstat(names, 2, v) && v[0] > 0 && v[1] == 0,
	   "proc_vmstat: nr_free_pages %llu, a missing counter 0",
	   (unsigned long long)v[0]);
	OK(proc_vmstat_u64("no_such_counter_here") == 0 &&
	   proc_vmstat_u64("nr_free_pages") > 0, "proc_vmstat_u64");
	s0 = proc_thread_stime_ns(&sw);
	for (n = 0; n < 200000; n++)
		sink += (unsigned long)getppid();
	s1 = proc_thread_stime_ns(NULL);
	OK(sw != ~0ull && s1 >= s0, "proc_thread_stime_ns: %llu then %llu ns, "
	   "%llu involuntary switches", (unsigned long long)s0,
	   (unsigned long long)s1, (unsigned long long)sw);
	(void)sink;
	return tap_done();
}
