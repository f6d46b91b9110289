/*
 * A memory cgroup of the runner's own, on cgroup v2 or v1: made, limited,
 * reclaimed and removed through the journal of sys.h, so that page cache
 * can be charged to it and evicted by the kernel's real reclaim path.
 */
#ifndef FB_MEMCG_H
#define FB_MEMCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/common.h"

enum memcg_version {
	MEMCG_NONE = 0,
	MEMCG_V1 = 1,
	MEMCG_V2 = 2,
};

struct memcg {
	enum memcg_version version;
	struct strbuf root;	/* where the child is made */
	struct strbuf path;	/* the child: root/foliobench.<pid>[.tag] */
	bool made;
};

/*
 * Find the hierarchy that holds the memory controller: cgroup v2 when its
 * root offers "memory" to children, else a v1 "memory" mount.  Fills
 * m->version and m->root; MEMCG_NONE with the reason in err (and -ENOENT)
 * when this machine has no usable memory cgroup.
 */
int memcg_detect(struct memcg *m, struct strbuf *err);
/*
 * Make root/foliobench.<pid>[.tag] (journalled); detect first.  0, or
 * -errno with the reason in err.
 */
int memcg_create(struct memcg *m, const char *tag, struct strbuf *err);
/* Move a process (all its threads) into the cgroup. */
int memcg_attach(const struct memcg *m, pid_t pid);
/* Hard limit: v1 memory.limit_in_bytes, v2 memory.max; 0 = none. */
int memcg_set_limit(const struct memcg *m, uint64_t bytes);
/*
 * Real reclaim of up to bytes from the cgroup (UINT64_MAX: all it can):
 * v2 memory.reclaim; v1 has no such file, so all is asked of
 * memory.force_empty, which runs the same reclaim loop.  Returns 0, or
 * -EAGAIN when less than asked could be reclaimed (mlocked memory).
 */
int memcg_reclaim(const struct memcg *m, uint64_t bytes);
/* Charged bytes: v1 memory.usage_in_bytes, v2 memory.current. */
int memcg_usage(const struct memcg *m, uint64_t *bytes);
/* One key of memory.stat (v1 names differ: "cache", "total_cache"...). */
int memcg_stat(const struct memcg *m, const char *key, uint64_t *val);
/*
 * Remove the cgroup (its tasks move to the parent) and free m's strings;
 * safe to call twice, and on an m only detected.
 */
void memcg_destroy(struct memcg *m);

/* "v1" / "v2" / "none" */
const char *memcg_version_name(enum memcg_version v);

#endif
