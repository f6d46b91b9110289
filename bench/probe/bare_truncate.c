/*
 * The bare truncate loop small-truncate is held against
 * (bench/smalltrunc_vs_bare.sh): write PAGES pages to a file in WSIZE
 * writes, time ftruncate(fd, 0) with CLOCK_MONOTONIC, COUNT times, and
 * nothing else.  With N workers, N threads each loop on their own file on
 * their own PU, released together from one barrier.  Prints the median of
 * every worker's truncates, in nanoseconds, as small-truncate's p50.  Not
 * part of the tool: built by the Makefile.
 *
 *   bare_truncate DIR COUNT PAGES WSIZE PU[,PU...]
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct worker {
	pthread_t th;
	int i, pu;
	uint64_t *t;
};

static const char *dir;
static uint64_t count, len, wsize;
static pthread_barrier_t go;

static void fill(int fd, const char *buf)
{
	uint64_t off;

	for (off = 0; off < len; off += wsize) {
		size_t n = len - off < wsize ? len - off : wsize;

		if (pwrite(fd, buf, n, (off_t)off) != (ssize_t)n)
			die("pwrite");
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	char *path, *buf;
	uint64_t i, t0, t1;
	int fd;

	pin(w->pu);
	path = path_of("%s/bare_truncate.%d", dir, w->i);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	buf = malloc(wsize);
	w->t = calloc(count, sizeof(*w->t));
	if (fd < 0 || !buf || !w->t)
		die(path);
	memset(buf, 0x5a, wsize);
	/* one untimed round, as small-truncate's setup writes one */
	fill(fd, buf);
	if (ftruncate(fd, 0))
		die("ftruncate");
	pthread_barrier_wait(&go);
	for (i = 0; i < count; i++) {
		fill(fd, buf);
		t0 = now_ns();
		if (ftruncate(fd, 0))
			die("ftruncate");
		t1 = now_ns();
		w->t[i] = t1 - t0;
	}
	close(fd);
	unlink(path);
	free(path);
	free(buf);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct worker *w;
	uint64_t *all;
	int n = 1, i;
	char *p, *end;

	if (argc != 6) {
		fprintf(stderr, "usage: bare_truncate DIR COUNT PAGES WSIZE "
			"PU[,PU...]\n");
		return 64;
	}
	dir = argv[1];
	count = number(argv[2], "COUNT");
	len = number(argv[3], "PAGES") * (uint64_t)sysconf(_SC_PAGESIZE);
	wsize = number(argv[4], "WSIZE");
	for (p = argv[5]; (p = strchr(p, ',')); p++)
		n++;
	w = calloc((size_t)n, sizeof(*w));
	all = calloc(count * (uint64_t)n, sizeof(*all));
	if (!w || !all)
		die("calloc");
	pthread_barrier_init(&go, NULL, (unsigned)n);
	for (i = 0, p = argv[5]; i < n; i++, p = end + 1) {
		w[i].i = i;
		w[i].pu = (int)strtol(p, &end, 10);
		if ((errno = pthread_create(&w[i].th, NULL, worker_main,
					    &w[i])))
			die("pthread_create");
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].th, NULL);
		memcpy(all + (uint64_t)i * count, w[i].t,
		       count * sizeof(*all));
		free(w[i].t);
	}
	/* the nearest-rank median, as small-truncate's p50 */
	qsort(all, count * (uint64_t)n, sizeof(*all), cmp);
	printf("%llu\n", (unsigned long long)all[(count * (uint64_t)n - 1) / 2]);
	free(all);
	free(w);
	return 0;
}
