/*
 * The kernel's counters as the workloads read them: /proc/vmstat, a CPU's
 * steal time in /proc/stat, and the calling thread's system CPU time.
 */
#ifndef FB_PROC_H
#define FB_PROC_H

#include <stdint.h>

/* vals[i]: the /proc/vmstat counter names[i], 0 if missing; 0 or -errno */
int proc_vmstat(const char *const *names, int n, uint64_t *vals);
/* One /proc/vmstat counter; 0 if missing or unreadable. */
uint64_t proc_vmstat_u64(const char *name);
/*
 * Time the hypervisor ran something else on CPU cpu (steal in /proc/stat),
 * in ns; 0 when it cannot be read.
 */
uint64_t proc_steal_ns(int cpu);
/*
 * System CPU time of the calling thread (getrusage), in ns, and how often
 * it was preempted (involuntary context switches) in *nivcsw unless NULL.
 */
uint64_t proc_thread_stime_ns(uint64_t *nivcsw);

#endif
