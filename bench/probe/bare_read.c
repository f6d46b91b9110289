/*
 * The bare read loop seq-read is held against (bench/seqread_vs_fio.sh):
 * read(2) of bs bytes at a time, lseek to 0 at size, for a number of
 * seconds, and nothing else.  "plain" looks at the clock every 1024 reads,
 * only for the deadline, as seq-read's loop with lat_every=0 does; "clock"
 * (by hand, not in the script) reads CLOCK_MONOTONIC after every read, to
 * show what a vDSO clock reading per read costs.  Prints MiB/s.  Not part
 * of the tool: built by the script.
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t size, bs, secs, off = 0, bytes = 0, reads = 0, t0, t1, dl;
	int fd, per_read;
	char *buf;

	if (argc != 6 ||
	    (strcmp(argv[5], "plain") && strcmp(argv[5], "clock"))) {
		fprintf(stderr, "usage: bare_read FILE SIZE BS SECONDS "
			"plain|clock\n");
		return 64;
	}
	size = number(argv[2], "size");
	bs = number(argv[3], "bs");
	secs = number(argv[4], "seconds");
	per_read = !strcmp(argv[5], "clock");
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "bare_read: cannot open %s: %s\n", argv[1],
			strerror(errno));
		return 66;
	}
	if (posix_memalign((void **)&buf, 4096, bs))
		return 71;
	memset(buf, 0, bs);
	t0 = now_ns();
	dl = t0 + secs * 1000000000ull;
	for (;;) {
		ssize_t got = read(fd, buf, bs);

		if (got <= 0) {
			fprintf(stderr, "bare_read: cannot read %s: %s\n",
				argv[1], got ? strerror(errno) : "end of file");
			return 74;
		}
		bytes += (uint64_t)got;
		off += (uint64_t)got;
		reads++;
		if (off >= size) {
			lseek(fd, 0, SEEK_SET);
			off = 0;
		}
		if (per_read) {
			t1 = now_ns();
			if (t1 >= dl)
				break;
		} else if (!(reads & 1023) && now_ns() >= dl) {
			break;
		}
	}
	t1 = now_ns();
	printf("%.1f\n", (double)bytes / 1048576.0 / ((double)(t1 - t0) / 1e9));
	return 0;
}
