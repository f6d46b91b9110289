/*
 * The estimate of the time a run has left, for the progress line: each
 * case's repetitions at the mean time its own finished repetitions took,
 * and a case not yet begun at its workload's estimate, scaled by how the
 * estimates of the cases already measured compared with what they took.
 */
#ifndef FB_ETA_H
#define FB_ETA_H

#include <stdint.h>

struct eta_case {
	double prior_s;		/* workload's estimate of one rep; 0: none */
	unsigned reps;		/* repetitions still to come or done */
	unsigned done;
	double spent_s;		/* by the finished ones */
	int wl;			/* workload index: cases of one share a scale */
	/* the estimate given when the case began, and when that was */
	double eta_at_start_s;
	uint64_t started_ns;
	int began;
};

struct eta {
	struct eta_case *c;
	int n;
	int cur;		/* the case running, -1 before the first */
	uint64_t rep_start_ns;	/* of the repetition running */
};

/* n cases, all zero; -ENOMEM. */
int eta_init(struct eta *e, int n);
void eta_release(struct eta *e);
/* A repetition of case i begins, or ends having taken secs. */
void eta_rep_begin(struct eta *e, int i, uint64_t now);
void eta_rep_end(struct eta *e, int i, uint64_t now);
/* Case i will run no more repetitions than it has (skipped, failed). */
void eta_case_drop(struct eta *e, int i);
/* Seconds left at now; negative when nothing is known yet. */
double eta_left(const struct eta *e, uint64_t now);
/*
 * The log of the estimates: per case that began, the estimate of the time
 * left given at its start, the real time left from then to end_ns, and
 * their ratio, one line each.  -errno.
 */
int eta_log_write(const struct eta *e, const char *path, const char **names,
		  uint64_t end_ns);

#endif
