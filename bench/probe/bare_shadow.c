/*
 * The bare call shadow-truncate is held against (bench/shadow_vs_bare.sh):
 * the recipe of the patch thread it reproduces (seeds/002), done plainly.
 * A sparse file of SIZE is read, 1 MiB a pread(2), by a child in the
 * memory cgroup CGDIR (made and limited by the script), which holds an
 * mlocked anonymous ballast of BALLAST bytes so that the shadow-node
 * shrinker leaves the shadow entries alone; what the read leaves cached
 * is reclaimed (memory.reclaim on v2, memory.force_empty on v1); then,
 * with the child still holding its ballast, truncate(FILE, 0) is timed
 * with CLOCK_MONOTONIC on PU, and nothing else.  Prints the call's time in
 * nanoseconds and the shadow entries it found (cachestat nr_evicted).  Not
 * part of the tool: built by the Makefile.
 *
 *   bare_shadow FILE SIZE CGDIR BALLAST PU
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat	451
#endif

struct cs_range {
	uint64_t off, len;
};

struct cs {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

static const char *cgdir;

/* Write val to CGDIR/name; errno on failure, EAGAIN allowed if ok_again. */
static void cg_write(const char *name, const char *val, int ok_again)
{
	char path[4200];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", cgdir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	n = write(fd, val, strlen(val));
	if (n < 0 && !(ok_again && errno == EAGAIN))
		die(path);
	close(fd);
}

static uint64_t cg_read(const char *name)
{
	char path[4200];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", cgdir, name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die(path);
	fclose(f);
	return v;
}

static void child(const char *file, uint64_t size, uint64_t ballast,
		  int up, int down)
{
	char val[32], *buf, c = 'r';
	uint64_t off;
	char path[4200];
	int v2, fd;
	void *b;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.current", cgdir);
	v2 = !access(path, F_OK);

	snprintf(val, sizeof(val), "%d", getpid());
	cg_write("cgroup.procs", val, 0);
	b = mmap(NULL, ballast, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b == MAP_FAILED || mlock(b, ballast))
		die("ballast");
	/* flush the cgroup's statistics: the shrinker sizes its cap by them */
	snprintf(path, sizeof(path), "%s/memory.stat", cgdir);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(path, sizeof(path), f))
		;
	fclose(f);
	buf = aligned_alloc(4096, 1 << 20);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0)
		die(file);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	for (off = 0; off < size; off += 1 << 20)
		if (pread(fd, buf, 1 << 20, (off_t)off) <= 0)
			die("pread");
	close(fd);
	/* what the read left cached goes through the same reclaim */
	if (v2) {
		snprintf(val, sizeof(val), "%llu",
			 (unsigned long long)cg_read("memory.current"));
		cg_write("memory.reclaim", val, 1);
	} else {
		cg_write("memory.force_empty", "0", 0);
	}
	if (write(up, &c, 1) != 1)
		die("pipe");
	/* hold the ballast until the parent is done */
	while (read(down, &c, 1) > 0)
		;
	_exit(0);
}

int main(int argc, char **argv)
{
	struct cs_range range = { 0, 0 };
	struct cs cs;
	uint64_t size, ballast, t0, t1;
	int up[2], down[2], fd, status;
	pid_t pid;
	char c;

	if (argc != 6) {
		fprintf(stderr, "usage: bare_shadow FILE SIZE CGDIR BALLAST "
			"PU\n");
		return 64;
	}
	size = number(argv[2], "SIZE");
	cgdir = argv[3];
	ballast = number(argv[4], "BALLAST");
	pin(atoi(argv[5]));
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size))
		die(argv[1]);
	if (pipe(up) || pipe(down))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(up[0]);
		close(down[1]);
		child(argv[1], size, ballast, up[1], down[0]);
	}
	close(up[1]);
	close(down[0]);
	if (read(up[0], &c, 1) != 1) {
		fprintf(stderr, "bare_shadow: the reader failed\n");
		return 1;
	}
	/* let what reclaim set going settle, as the workload waits for it */
	usleep(300000);
	if (syscall(__NR_cachestat, fd, &range, &cs, 0))
		die("cachestat");
	t0 = now_ns();
	if (truncate(argv[1], 0))
		die("truncate");
	t1 = now_ns();
	close(down[1]);
	waitpid(pid, &status, 0);
	close(fd);
	unlink(argv[1]);
	printf("%llu %llu %llu\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)cs.nr_evicted,
	       (unsigned long long)cs.nr_cache);
	return 0;
}
