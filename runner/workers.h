/*
 * Parallel workers: n threads or processes, each pinned to its PU with its
 * memory on that PU's node, released together from one barrier into the
 * workload's timed call, and checked afterwards for where they really ran.
 */
#ifndef FB_WORKERS_H
#define FB_WORKERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "workloads/workload.h"

/* What one worker did; in memory its process shares with the runner. */
struct worker_res {
	struct wl_sample s;
	/*
	 * Why it failed: the worker's err, copied here once its calls are
	 * over (a worker process's heap means nothing to the runner), cut
	 * at 511 bytes
	 */
	char err[512];
	int rc;			/* of the workload's run; or -1 */
	int pu;			/* where it was placed (OS index) */
	int node;		/* that PU's NUMA node, -1 unknown */
	int pu_before, pu_after;	/* sched_getcpu around the timed call */
	bool mask_moved;	/* its affinity was not {pu} afterwards */
	int64_t migrations;	/* se.nr_migrations over the call; -1 unknown */
	int64_t nvcsw, nivcsw;	/* context switches over the call */
	int64_t runner_ns;	/* the runner's thread on a CPU meanwhile; -1 */
	int64_t runq_wait_ns;	/* its own wait on a run queue meanwhile; -1 */
	uint64_t t_begin, t_end;	/* the timed region, CLOCK_MONOTONIC */
	pid_t tid;
	int prof_fd;		/* its PU's profile event, -1 none */
	int pin_errno;		/* binding to pu failed */
	bool prep_failed;	/* the workload's prepare failed (err: why) */
	bool ran;
};

struct workers {
	int n;
	bool processes;
	uint64_t t_release;	/* when the barrier let them go */
	struct worker_res *res;	/* [n], shared */
	void *shm;		/* the mapping that holds barrier and res */
	size_t shm_len;
};

/*
 * Start n workers on pus[] (threads, or processes when processes), each
 * calling c->wl->run with c->worker set, after one barrier.  before() is
 * called once every worker waits at the barrier, just before it opens
 * (the runner reads its noise counters there).  Returns 0 when every
 * worker was started and has finished (its own result says how it went);
 * -1 with err set when they could not be started.  prof_fds (NULL: none):
 * each worker's profile event, enabled around its timed call alone.
 */
int workers_run(struct workers *w, struct wl_case *c, int n, const int *pus,
		bool processes, void (*before)(void *), void *arg,
		const int *prof_fds, struct strbuf *err);
/*
 * "ran on PU 0, not on its PU 1" and the like, for worker i, added to err;
 * nothing if fine.
 */
void workers_check(const struct workers *w, int i, struct strbuf *err);
void workers_release(struct workers *w);

#endif
