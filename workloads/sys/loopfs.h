/*
 * A scratch ext4 filesystem: an image file (in the runner's tmpfs scratch),
 * made with mkfs.ext4, attached to a loop device and mounted, both through
 * the journal of sys.h so that a killed run is mended at the next start.
 * On /dev/shm this is as close as a machine without a ramdisk gets to
 * "ext4 on a ramdisk".
 */
#ifndef FB_LOOPFS_H
#define FB_LOOPFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct loopfs {
	struct strbuf image;	/* <dir>/<name>.img */
	char dev[32];		/* /dev/loopN */
	struct strbuf mnt;	/* <dir>/<name>.mnt: where it is mounted */
	bool made, attached, mounted;
};

/* Size of an image that holds data_bytes of file data with room to spare. */
uint64_t loopfs_image_bytes(uint64_t data_bytes);
/*
 * Can this machine make one?  0, or -1 with why in err (mkfs.ext4 or the
 * loop driver missing): a reason to skip, not a failure.
 */
int loopfs_check(struct strbuf *err);
/*
 * Make, attach and mount an ext4 of image_bytes in dir (which must exist
 * and be removed by its owner).  Returns 0, or -errno with a message in
 * err; what was made is undone by loopfs_destroy, which is always safe to
 * call after loopfs_init.
 */
void loopfs_init(struct loopfs *l);
int loopfs_create(struct loopfs *l, const char *dir, const char *name,
		  uint64_t image_bytes, struct strbuf *err);
/*
 * Unmount, detach, remove the image, free l's strings; returns 0 or the
 * first -errno.
 */
int loopfs_destroy(struct loopfs *l);

#endif
