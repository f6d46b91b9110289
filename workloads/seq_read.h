/*
 * What the files of seq-read share: seq_read.c (the params, the readers and
 * their timed loops) and seq_read_files.c (the files read: made, filled,
 * cached, and checked after the run).
 */
#ifndef FB_SEQ_READ_H
#define FB_SEQ_READ_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "need.h"
#include "workload.h"
#include "sys/perf.h"

/* dir's word for the runner's own scratch (on /dev/shm by default) */
#define OWN_DIR "/dev/shm"

enum populate { POP_WRITE, POP_FALLOCATE };

/* The pattern's block: each holds its index (fill_pattern). */
#define BLOCK		4096

/* A case's params, as the config gave them (threads is the runner's). */
struct sr_params {
	const char *dir;
	uint64_t size, bs, duration;
	enum populate populate;
	int shared;		/* a bool, as yesno's index */
	const char *file;	/* "": files of our own */
	uint64_t lat_every;
};
WL_PARAMS_STRUCT(struct sr_params);

struct state;

struct reader {
	struct state *st;
	int idx, fd, cpu;	/* cpu < 0: stay where the runner put us */
	char *buf;
	struct hist *hist;	/* in ticks */
	struct perf_set perf;
	uint64_t bytes, reads, wraps;
	uint64_t ns_start, ns_end, tk_start, tk_end;
	int err;		/* -errno of a failed read or pin */
	const char *what;	/* what failed */
	pthread_t th;
};

struct state {
	struct strbuf dir;	/* where the files are made */
	int nfiles;
	struct strbuf *paths;	/* [nfiles] the files we made */
	bool *made;
	uint64_t size, bs, duration;
	int nreaders;
	struct reader *r;
	bool tsc;		/* time reads with the TSC */
	uint64_t every;		/* lat_every */
	double ns_per_tick;	/* calibrated in setup, for the deadline */
	double clock_cost_ns;	/* one reading of the clock in use */
	uint64_t allocated, cached_before;
	bool cached_known;
	/* readers start together: each reports ready, then waits for go */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int ready, go;		/* go: 0 wait, 1 start, -1 give up */
	bool threaded;
	int (*pin)(int os_cpu);
	volatile sig_atomic_t *stop;
	char perf_why[200];	/* which counters are not supported, why */
};

/* "/dev/shm", or another name of the runner's scratch base */
static inline bool default_dir(const struct wl_case *c)
{
	return wl_dir_own(prm(c)->dir, OWN_DIR, c->scratch_base);
}

static inline bool given_file(const struct wl_case *c)
{
	return prm(c)->file[0] != '\0';
}

static inline int nfiles_of(const struct wl_case *c)
{
	if (given_file(c))
		return 0;
	return prm(c)->shared ? 1 : (int)c->ps.run.threads;
}

static inline const char *
file_of(const struct wl_case *c, const struct state *st, int reader)
{
	if (given_file(c))
		return prm(c)->file;
	return st->paths[st->nfiles == 1 ? 0 : reader].buf;
}

/*
 * Make the files (or open the one given), fill them and read them once so
 * that they are cached: st->allocated, st->cached_before.  0, or -1 with
 * err set.
 */
int seq_read_files(struct wl_case *c, struct state *st, struct strbuf *err);
/* The notes of a run, and whether its files were cached and intact. */
int seq_read_verify(struct wl_case *c, struct wl_sample *s,
		    struct strbuf *err);

#endif
