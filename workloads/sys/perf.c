/* perf_event_open counters of the calling thread (see perf.h). */
#include "perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
	const char *name;
	uint32_t type;
	uint64_t config;
} events[PERF_NR] = {
	[PERF_TASK_CLOCK] = { "task_clock", PERF_TYPE_SOFTWARE,
			      PERF_COUNT_SW_TASK_CLOCK },
	[PERF_CONTEXT_SWITCHES] = { "context_switches", PERF_TYPE_SOFTWARE,
				    PERF_COUNT_SW_CONTEXT_SWITCHES },
	[PERF_CPU_MIGRATIONS] = { "cpu_migrations", PERF_TYPE_SOFTWARE,
				  PERF_COUNT_SW_CPU_MIGRATIONS },
	[PERF_PAGE_FAULTS] = { "page_faults", PERF_TYPE_SOFTWARE,
			       PERF_COUNT_SW_PAGE_FAULTS },
	[PERF_INSTRUCTIONS] = { "instructions", PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS },
	[PERF_CYCLES] = { "cycles", PERF_TYPE_HARDWARE,
			  PERF_COUNT_HW_CPU_CYCLES },
	[PERF_BRANCHES] = { "branches", PERF_TYPE_HARDWARE,
			    PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	[PERF_BRANCH_MISSES] = { "branch_misses", PERF_TYPE_HARDWARE,
				 PERF_COUNT_HW_BRANCH_MISSES },
};

const char *perf_name(enum perf_id id)
{
	return events[id].name;
}

void perf_init(struct perf_set *p)
{
	int i;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < PERF_NR; i++) {
		p->fd[i] = -1;
		p->err[i] = -EBADF;	/* not opened yet */
	}
}

int perf_open(struct perf_set *p)
{
	struct perf_event_attr a;
	int i, n = 0;

	for (i = 0; i < PERF_NR; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = events[i].type;
		a.config = events[i].config;
		a.disabled = 1;
		/* kernel time too: the read path is what is measured */
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		/* one fd per event, not a group: a refused hardware event
		 * must not take the software ones down with it */
		p->fd[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
					PERF_FLAG_FD_CLOEXEC);
		if (p->fd[i] < 0) {
			p->err[i] = -errno;
			p->fd[i] = -1;
			continue;
		}
		p->err[i] = 0;
		n++;
	}
	return n;
}

void perf_enable(struct perf_set *p)
{
	int i;

	for (i = 0; i < PERF_NR; i++)
		if (p->fd[i] >= 0)
			ioctl(p->fd[i], PERF_EVENT_IOC_ENABLE, 0);
}

void perf_disable(struct perf_set *p)
{
	int i;

	for (i = 0; i < PERF_NR; i++)
		if (p->fd[i] >= 0)
			ioctl(p->fd[i], PERF_EVENT_IOC_DISABLE, 0);
}

void perf_read(struct perf_set *p)
{
	uint64_t buf[3];	/* value, time enabled, time running */
	int i;

	for (i = 0; i < PERF_NR; i++) {
		if (p->fd[i] < 0)
			continue;
		if (read(p->fd[i], buf, sizeof(buf)) != sizeof(buf)) {
			p->err[i] = errno ? -errno : -EIO;
			continue;
		}
		if (!buf[2]) {
			/* opened but never counted: no PMU slot for it */
			p->err[i] = -EOPNOTSUPP;
			continue;
		}
		p->value[i] = buf[0];
		p->scaled[i] = buf[2] < buf[1];
		if (p->scaled[i])
			p->value[i] = (uint64_t)((double)buf[0] *
						 (double)buf[1] /
						 (double)buf[2]);
	}
}

void perf_close(struct perf_set *p)
{
	int i;

	for (i = 0; i < PERF_NR; i++) {
		if (p->fd[i] >= 0)
			close(p->fd[i]);
		p->fd[i] = -1;
	}
}

void perf_sum_init(struct perf_set *sum)
{
	perf_init(sum);
	for (int i = 0; i < PERF_NR; i++)
		sum->err[i] = 0;
}

void perf_add(struct perf_set *sum, const struct perf_set *src)
{
	int i;

	for (i = 0; i < PERF_NR; i++) {
		if (src->err[i]) {
			if (!sum->err[i])
				sum->err[i] = src->err[i];
			continue;
		}
		sum->value[i] += src->value[i];
		sum->scaled[i] |= src->scaled[i];
	}
}
