/*
 * The guest's /var/tmp (the runner's disk scratch): an ext4 made here on
 * a sparse image in the temp dir, a virtio disk in the guest.
 */
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The image's size in bytes: sparse, so only what the guest writes is
 * the host's. */
#define SCRATCH_BYTES (16ull << 30)

/*
 * The guest's disk scratch: a sparse image in dir, made ext4 here (the
 * host's mkfs.ext4 takes a fraction of a second; under TCG it would take
 * many).  The guest mounts it on /var/tmp, where the runner's disk_scratch
 * is, so that what is measured on a disk is on one, not on tmpfs.  Inode
 * tables are left to be zeroed lazily, and the guest mounts with
 * noinit_itable, so no ext4lazyinit thread runs.  0, else -1 with why.
 */
int vm_make_scratch(const char *dir, char *note, size_t nn)
{
	static const char *const mkfs[] = {
		"/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4",
		"/usr/local/sbin/mkfs.ext4", NULL,
	};
	struct strbuf eo = STRBUF_INIT;
	char *img;
	const char *m = NULL;
	int fd, i, st;

	for (i = 0; mkfs[i] && !m; i++)
		if (!access(mkfs[i], X_OK))
			m = mkfs[i];
	if (!m) {
		snprintf(note, nn, "mkfs.ext4 not found (install e2fsprogs)");
		return -1;
	}
	img = xstrfmt("%s/scratch.img", dir);
	fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)SCRATCH_BYTES)) {
		snprintf(note, nn, "cannot make a sparse %s: %s", img,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		free(img);
		return -1;
	}
	close(fd);
	{
		char *argv[] = { (char *)m, "-q", "-F", "-b", "4096", "-L",
				 "fbscratch", "-E", "lazy_itable_init=1,"
				 "lazy_journal_init=1,nodiscard", img, NULL };

		st = vm_spawn_wait(argv, NULL, &eo);
	}
	if (st)
		snprintf(note, nn, "%s failed: %.200s", m,
			 eo.buf ? eo.buf : "(it said nothing)");
	strbuf_release(&eo);
	free(img);
	return st ? -1 : 0;
}
