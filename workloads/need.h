/*
 * What a case needs of the machine, checked in one place for every
 * workload: whether its directory is the runner's own scratch, the file
 * system it is on, the free space there and the free memory.  Each check
 * returns WL_OK, or WL_REFUSE with the one message every workload gives
 * in err; a preflight is left with what is its own.
 */
#ifndef FB_NEED_H
#define FB_NEED_H

#include <stdbool.h>
#include <stdint.h>

#include "workloads/workload.h"

/* Memory a case leaves to everything else, besides what it needs. */
#define WL_SPARE_MEMORY		(256ull << 20)

/*
 * Does a PT_DIR param's value dir name the runner's own scratch: own,
 * the table's word for it ("/dev/shm", "scratch"), or base, the
 * directory the runner makes its scratch in, under any name?
 */
bool wl_dir_own(const char *dir, const char *own, const char *base);
/*
 * The directory files go in: the runner's scratch (own), else one of our
 * own made in dir, journalled; into out.  0, or -1 with why in err.
 */
int wl_files_dir(const char *dir, bool own, const char *scratch,
		 struct strbuf *out, struct strbuf *err);

/* dir on tmpfs, which the workload measures. */
enum wl_verdict wl_need_tmpfs(const struct wl_case *c, const char *dir,
			      struct strbuf *err);
/* dir on a disk file system: what (a param, "fs=dir") needs it, and why. */
enum wl_verdict wl_need_disk(const char *dir, const char *what,
			     const char *why, struct strbuf *err);
/* bytes free in dir; what ("for the ext4 image") says for what, or "". */
enum wl_verdict wl_need_space(const char *dir, uint64_t bytes,
			      const char *what, struct strbuf *err);
/* bytes of MemAvailable besides WL_SPARE_MEMORY; what as above. */
enum wl_verdict wl_need_memory(uint64_t bytes, const char *what,
			       struct strbuf *err);

#endif
