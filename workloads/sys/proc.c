/* The kernel's counters as the workloads read them (proc.h). */
#include "proc.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int proc_vmstat(const char *const *names, int n, uint64_t *vals)
{
	FILE *f = fopen("/proc/vmstat", "re");
	char key[64];
	unsigned long long v;
	int i;

	memset(vals, 0, sizeof(*vals) * (size_t)n);
	if (!f)
		return -errno;
	while (fscanf(f, "%63s %llu", key, &v) == 2)
		for (i = 0; i < n; i++)
			if (!strcmp(key, names[i]))
				vals[i] = v;
	fclose(f);
	return 0;
}

uint64_t proc_vmstat_u64(const char *name)
{
	uint64_t v;

	proc_vmstat(&name, 1, &v);
	return v;
}

uint64_t proc_steal_ns(int cpu)
{
	FILE *f = fopen("/proc/stat", "re");
	unsigned long long v[8];
	char line[512], want[16];
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t r = 0;

	if (!f || hz <= 0) {
		if (f)
			fclose(f);
		return 0;
	}
	/* cpuN user nice system idle iowait irq softirq steal */
	snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, want, strlen(want)))
			continue;
		if (sscanf(line + strlen(want), "%llu %llu %llu %llu %llu "
			   "%llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
			   &v[4], &v[5], &v[6], &v[7]) == 8)
			r = v[7] * (1000000000ull / (unsigned long long)hz);
		break;
	}
	fclose(f);
	return r;
}

uint64_t proc_thread_stime_ns(uint64_t *nivcsw)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	if (nivcsw)
		*nivcsw = (uint64_t)ru.ru_nivcsw;
	return (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
	       (uint64_t)ru.ru_stime.tv_usec * 1000ull;
}
