/*
 * A kernel profile of each case's timed calls (`bench run --profile`,
 * issue 30): the cpu-clock sampled with kernel call chains on the workers'
 * PUs, only while a timed call runs, folded into stacks of kernel function
 * names from the running kernel's kallsyms.
 */
#ifndef FB_PROFILE_H
#define FB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

/* The default period: 10 000 ticks a second, a tenth of the kernel's
 * default perf_event_max_sample_rate, so that it is never throttled. */
#define PROFILE_PERIOD_NS	100000ull
/* The kernel's shortest cpu-clock period (perf_swevent_set_period). */
#define PROFILE_PERIOD_MIN_NS	10000ull
#define PROFILE_PERIOD_MAX_NS	1000000000ull
/* Fewer samples a call than this are too few to compare shares by. */
#define PROFILE_FEW		10

struct profile_sym {
	uint64_t addr;
	const char *name;
};

/* One PU's event: its fd and ring. */
struct profile_pu {
	int pu, fd;
	void *ring;
};

/* A folded call chain and how many samples ended in it. */
struct profile_stack {
	char *stack;
	uint64_t count;
};

/* What one timed call's samples came to. */
struct profile_call {
	struct profile_stack *st;	/* sorted by stack, each once */
	size_t n, alloc;
	uint64_t samples;	/* kept: in the timed region */
	uint64_t lost;		/* records the ring had no room for */
	uint64_t throttled;	/* times the kernel throttled the event */
	uint64_t others;	/* dropped: another program's, on the PU */
	uint32_t own;		/* the calling process's pid */
	struct { uint32_t tid; bool kernel; } *task;	/* tasks seen */
	size_t ntask, task_alloc;
};

struct profile {
	bool on;		/* asked, and the kernel gives it */
	char off[256];		/* asked and not had: why ("" otherwise) */
	uint64_t period;	/* ns of the cpu-clock */
	const char *unit;	/* "ns", or "instructions" counted */
	char symbols[160];	/* where names come from */
	bool pmu;		/* a PMU opens cycles (not used: see .c) */
	struct profile_sym *syms;
	size_t nsyms;
	char *names;		/* the names' storage */
	struct profile_pu *pu;	/* the case's PUs */
	int npu;
	size_t ring_len;	/* data pages + the header page */
	/* the case's sums over its profiled calls */
	uint64_t calls, samples, lost, throttled, others;
};

/*
 * Asked (ask): read kallsyms and try the event once; what the kernel
 * refuses sets off (said once by the caller), never an error.
 */
void profile_init(struct profile *p, bool ask, uint64_t period);
void profile_release(struct profile *p);

/*
 * The events of a case's PUs, opened disabled, with their rings; a
 * refusal turns profiling off for the run (off says why).  0 or -1.
 */
int profile_case_open(struct profile *p, const int *pus, int n);
void profile_case_close(struct profile *p);

/* The fd of the case's i-th PU, -1 when not profiling. */
int profile_fd(const struct profile *p, int i);
/* Right before and after a timed call, on its PU or anywhere. */
void profile_start(int fd);
void profile_stop(int fd);

/*
 * After the call: the ring's samples of PU i whose time is within [t0, t1]
 * (CLOCK_MONOTONIC) folded into c, of the process own (the caller's: the
 * runner's, or a forked worker's) and of kernel threads; the others
 * dropped and counted.
 */
void profile_collect(struct profile *p, int i, uint64_t t0, uint64_t t1,
		     int own, struct profile_call *c);
/* c's stacks sorted and merged, its sums added to the case's. */
void profile_call_done(struct profile *p, struct profile_call *c);
void profile_call_release(struct profile_call *c);
/* The case's profile as cases.profile holds it. */
void profile_json(const struct profile *p, struct strbuf *sb);
/* The case's sums back to 0 (a new case). */
void profile_case_reset(struct profile *p);

/* A kallsyms file's text symbols, sorted (for tests: profile_init). */
int profile_read_kallsyms(struct profile *p, const char *path,
			  struct strbuf *err);
const char *profile_sym_name(const struct profile *p, uint64_t ip);

#endif
