/*
 * The bare removal shmem-remove is held against (bench/shmem_vs_bare.sh):
 * fill a tmpfs file or memfd with fallocate, then time the one call that
 * removes its folios (ftruncate to 0, hole punch, close of a memfd,
 * unlink) with CLOCK_MONOTONIC, and nothing else.  With N workers, N
 * threads each fill their own file on their own PU, wait at one barrier
 * and remove it together; the time is from the first one's start to the
 * last one's end, as shmem-remove's.  Prints one line a repetition: that
 * wall time and the workers' CPU time of the call summed (the thread CPU
 * clock: on a loaded machine, the time the call ran), in nanoseconds.  Not part of the tool: built by the Makefile.
 *
 *   bare_remove OP SIZE DIR REPS PU[,PU...] [FILL_PU]
 *
 * FILL_PU (by hand, for the investigation of issue 17): fill on that PU
 * instead of the worker's own, to show what a fill on another PU costs.
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum op { OP_FTRUNCATE, OP_PUNCH, OP_CLOSE, OP_UNLINK };

struct worker {
	pthread_t th;
	int i, pu, fill_pu, fd;
	char *path;		/* NULL: a memfd */
	uint64_t t0, t1, c0, c1;
	int err;
};

static enum op op;
static uint64_t size;
static const char *dir;
static int rep;
static pthread_barrier_t filled, done;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	int r;

	pin(w->fill_pu);
	if (op == OP_CLOSE) {
		w->fd = memfd_create("bare_remove", MFD_CLOEXEC);
	} else {
		w->path = path_of("%s/bare_remove.%d.%d", dir, rep, w->i);
		w->fd = open(w->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			     0600);
	}
	if (w->fd < 0)
		die("create");
	if (fallocate(w->fd, 0, 0, (off_t)size))
		die("fallocate");
	if (op == OP_UNLINK)
		close(w->fd);
	pin(w->pu);
	pthread_barrier_wait(&filled);
	w->c0 = cpu_ns();
	w->t0 = now_ns();
	switch (op) {
	case OP_FTRUNCATE:
		r = ftruncate(w->fd, 0);
		break;
	case OP_PUNCH:
		r = fallocate(w->fd, FALLOC_FL_PUNCH_HOLE |
			      FALLOC_FL_KEEP_SIZE, 0, (off_t)size);
		break;
	case OP_CLOSE:
		r = close(w->fd);
		break;
	default:
		r = unlink(w->path);
	}
	w->t1 = now_ns();
	w->c1 = cpu_ns();
	w->err = r ? errno : 0;
	pthread_barrier_wait(&done);
	if (op == OP_FTRUNCATE || op == OP_PUNCH) {
		close(w->fd);
		unlink(w->path);
	}
	free(w->path);
	w->path = NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"ftruncate", "punch-hole", "memfd-close", "unlink",
	};
	struct worker *w;
	int reps, n = 1, i, fill_pu = -1;
	char *p, *end;

	if (argc < 6 || argc > 7) {
		fprintf(stderr, "usage: bare_remove OP SIZE DIR REPS "
			"PU[,PU...] [FILL_PU]\n");
		return 64;
	}
	for (i = 0; i < 4 && strcmp(argv[1], names[i]); i++)
		;
	if (i == 4) {
		fprintf(stderr, "bare_remove: op '%s' is none of ftruncate, "
			"punch-hole, memfd-close, unlink\n", argv[1]);
		return 64;
	}
	op = (enum op)i;
	size = number(argv[2], "SIZE (bytes)");
	dir = argv[3];
	reps = (int)number(argv[4], "REPS");
	for (p = argv[5]; (p = strchr(p, ',')); p++)
		n++;
	if (argc == 7)
		fill_pu = atoi(argv[6]);
	w = calloc((size_t)n, sizeof(*w));
	if (!w)
		die("calloc");
	for (i = 0, p = argv[5]; i < n; i++, p = end + 1) {
		w[i].i = i;
		w[i].pu = (int)strtol(p, &end, 10);
		w[i].fill_pu = fill_pu >= 0 ? fill_pu : w[i].pu;
	}
	for (rep = 0; rep < reps; rep++) {
		uint64_t first = UINT64_MAX, last = 0, cpu = 0;

		pthread_barrier_init(&filled, NULL, (unsigned)n);
		pthread_barrier_init(&done, NULL, (unsigned)n);
		for (i = 0; i < n; i++)
			if ((errno = pthread_create(&w[i].th, NULL,
						    worker_main, &w[i])))
				die("pthread_create");
		for (i = 0; i < n; i++) {
			pthread_join(w[i].th, NULL);
			if (w[i].err) {
				errno = w[i].err;
				die(names[op]);
			}
			if (w[i].t0 < first)
				first = w[i].t0;
			if (w[i].t1 > last)
				last = w[i].t1;
			cpu += w[i].c1 - w[i].c0;
		}
		pthread_barrier_destroy(&filled);
		pthread_barrier_destroy(&done);
		printf("%llu %llu\n", (unsigned long long)(last - first),
		       (unsigned long long)cpu);
		fflush(stdout);
	}
	free(w);
	return 0;
}
