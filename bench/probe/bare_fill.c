/*
 * The rate at which this host fills memory with zeroed pages, which
 * bench/fill_vs_bare.sh holds shadow-truncate's setup against: FILE (on
 * /dev/shm) created, fallocate(2)d to SIZE, the one call timed with
 * CLOCK_MONOTONIC, then removed.  Each page is allocated, charged, zeroed
 * and put in the page cache and on the LRU, as a FUSE read of the same
 * size puts them; nothing is reclaimed.  Prints the call's time in
 * nanoseconds.  Not part of the tool: built by the Makefile.
 *
 *   bare_fill FILE SIZE
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#include <fcntl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t size, t0, t1;
	int fd, r;

	if (argc != 3) {
		fprintf(stderr, "usage: bare_fill FILE SIZE\n");
		return 64;
	}
	size = number(argv[2], "SIZE");
	fd = open(argv[1], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		die(argv[1]);
	t0 = now_ns();
	r = fallocate(fd, 0, 0, (off_t)size);
	t1 = now_ns();
	if (r) {
		r = errno;
		unlink(argv[1]);
		errno = r;
		die("fallocate");
	}
	close(fd);
	if (unlink(argv[1]))
		die(argv[1]);
	printf("%llu\n", (unsigned long long)(t1 - t0));
	return 0;
}
