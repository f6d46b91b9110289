/*
 * The noise record: steal time of the measuring PUs over a sample's timed
 * region, context switches of the measuring threads, the CPU frequency
 * where the VM exposes one; and `bench check`'s look at the machine now.
 */
#ifndef FB_NOISE_H
#define FB_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"

struct noise {
	uint64_t steal0;	/* ticks of the PUs at the start */
	bool known;		/* /proc/stat could be read both times */
	double steal_ns;	/* over the timed region, all PUs summed */
	double steal_pct;	/* of wall time × PUs */
	int64_t nvcsw, nivcsw;	/* of the measuring threads */
	double freq_mhz;	/* mean over the PUs; NAN when not exposed */
	double steal_max;	/* the threshold it was judged by */
	double slowdown;	/* of the PUs at once (noise_parallel); 0: n/a */
	int64_t runq_wait_ns;	/* measuring threads on a run queue; -1 */
	double runq_wait_pct;	/* of wall time × threads */
	bool waited;		/* noisy for that wait */
	bool noisy;
	char why[320];		/* what made it noisy, each reason */
};

/*
 * PUs at once that run a fixed loop this many times slower than one alone
 * are oversubscribed (vCPUs sharing host CPUs, a CPU quota, other work on
 * them), whatever the steal says: 32 vCPUs on 2 host CPUs run it some 16
 * times slower, 2 workers held to one CPU's time twice.  The loop is one
 * dependent multiply-add chain, which SMT siblings hardly slow.
 */
#define NOISE_SLOWDOWN_MAX	1.5

/*
 * A measuring thread that waits on a run queue during its timed call
 * (another task on its CPU) over this share of the call's wall time makes
 * the sample noisy: a shell loop on the PU of seq-read halved its
 * bandwidth with no steal at all, its wait some half the call.
 */
#define NOISE_WAIT_MAX_PCT	5.0

/*
 * Field k of a thread's schedstat (0: ns on a CPU, 1: ns waiting on a run
 * queue) read through fd, an open /proc/.../schedstat; -1 if unknown.
 */
int64_t noise_schedstat(int fd, int k);
/* The calling thread's schedstat, opened for noise_schedstat; -1. */
int noise_schedstat_open(void);
/* Steal ticks (USER_HZ) of these PUs summed; -1 if unreadable. */
int noise_steal_ticks(const int *pus, int n, uint64_t *sum);
/* Mean scaling_cur_freq of these PUs in MHz; NAN if none exposes one. */
double noise_freq_mhz(const int *pus, int n);
void noise_begin(struct noise *z, const int *pus, int n);
/* Close the record over wall ns on n PUs, judged against steal_max %. */
void noise_end(struct noise *z, const int *pus, int n, uint64_t wall,
	       double steal_max);
/*
 * How many times slower a fixed register-only loop runs on all n PUs at
 * once (one thread each, the last to finish) than on pus[0] alone, the
 * least of three tries each: about 1 where the PUs are CPUs of their own,
 * n / CPUs where n vCPUs share fewer host CPUs.  steal does not show that
 * under TCG, nor inside a guest whose host does not report it.  0 if it
 * cannot be measured.  Takes some 200 ms times the slowdown.
 */
double noise_parallel(const int *pus, int n);
/* Flag z noisy when its PUs ran the loop over NOISE_SLOWDOWN_MAX slower. */
void noise_judge_parallel(struct noise *z, int n, double slowdown);
/*
 * Judge z by the run queue wait of its n threads over wall ns (wait < 0:
 * unknown): over NOISE_WAIT_MAX_PCT, noisy with the reason.
 */
void noise_judge_wait(struct noise *z, int n, uint64_t wall, int64_t wait);
/* The record as a JSON object. */
void noise_json(const struct noise *z, struct strbuf *sb);
/*
 * Why numbers taken now may be noisy, one reason a line into out: few
 * usable PUs, steal in the last second, frequency scaling, a heavy
 * process.  Watches the machine for one second.
 */
void noise_now(const int *pus, int n, struct strbuf *out);

#endif
