/*
 * A FUSE filesystem of our own that serves one file of zeros of a given
 * size, needing no disk: a page cache of any size, for the shadow-entry
 * workload, filled at memory speed.
 */
#ifndef FB_FUSE_ZERO_H
#define FB_FUSE_ZERO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/common.h"

/* The name of the one file, in the root of the mount. */
#define FUSE_ZERO_NAME	"zero"

struct fuse_zero {
	struct strbuf dir;	/* mount point, made and removed */
	struct strbuf file;	/* dir + "/" FUSE_ZERO_NAME */
	pid_t server;		/* forked server process, 0 when none */
	int mounted;
};

/*
 * Make dir, mount the filesystem on it (recorded in the journal of sys.h
 * before it is made) and start its server in a forked child (pid
 * recorded too) that may run on cpus (all of them: the caller is usually
 * pinned to one, which the server must not share).  Returns 0 or -errno
 * with the reason in err.
 */
int fuse_zero_start(struct fuse_zero *fz, const char *dir, uint64_t size,
		    const int *cpus, int ncpus, struct strbuf *err);
/* Let the calling process run on cpus (none given: leave it as it is). */
void fuse_zero_place(const int *cpus, int ncpus);
/* Readahead window of the mount's own bdi, in KiB; -errno. */
int fuse_zero_set_readahead(const struct fuse_zero *fz, unsigned kb);
/* CPU time the server has used so far (user and system), ns; 0: unknown. */
uint64_t fuse_zero_cpu_ns(const struct fuse_zero *fz);
/*
 * Unmount, kill and reap the server, remove dir, free fz's strings; safe
 * to call twice.
 */
void fuse_zero_stop(struct fuse_zero *fz);
/*
 * Whether this kernel has FUSE (/dev/fuse can be opened): 0, or -errno
 * with why in err.
 */
int fuse_zero_available(struct strbuf *err);

#endif
