/* What a case needs of the machine: its directory, file system, room. */
#include "need.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sys/fs.h"
#include "sys/sys.h"

bool wl_dir_own(const char *dir, const char *own, const char *base)
{
	struct stat a, b;

	if (!strcmp(dir, own))
		return true;
	return !stat(dir, &a) && !stat(base, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int wl_files_dir(const char *dir, bool own, const char *scratch,
		 struct strbuf *out, struct strbuf *err)
{
	int r;

	if (own) {
		strbuf_reset(out);
		strbuf_addstr(out, scratch);
		return 0;
	}
	/* made once, reused by later repetitions */
	r = sys_scratch(dir, out);
	if (r) {
		strbuf_reset(out);
		return err_setf(err, "cannot make a directory in %s: %s", dir,
				strerror(-r));
	}
	return 0;
}

/* dir's file system, or WL_REFUSE: "cannot use directory DIR: why". */
static enum wl_verdict magic_of(const char *dir, unsigned long *magic,
				struct strbuf *err)
{
	int r = fs_magic(dir, magic);

	if (!r)
		return WL_OK;
	err_setf(err, "cannot use directory %s: %s", dir, strerror(-r));
	return WL_REFUSE;
}

enum wl_verdict wl_need_tmpfs(const struct wl_case *c, const char *dir,
			      struct strbuf *err)
{
	unsigned long magic;

	if (magic_of(dir, &magic, err))
		return WL_REFUSE;
	if (magic == TMPFS_MAGIC)
		return WL_OK;
	err_setf(err, "%s is not on tmpfs (file system magic 0x%lx): %s "
		 "measures tmpfs", dir, magic, c->wl->name);
	return WL_REFUSE;
}

enum wl_verdict wl_need_disk(const char *dir, const char *what,
			     const char *why, struct strbuf *err)
{
	unsigned long magic;

	if (magic_of(dir, &magic, err))
		return WL_REFUSE;
	if (magic != TMPFS_MAGIC)
		return WL_OK;
	err_setf(err, "%s needs a disk filesystem: %s is tmpfs, %s", what, dir,
		 why);
	return WL_REFUSE;
}

enum wl_verdict wl_need_space(const char *dir, uint64_t bytes,
			      const char *what, struct strbuf *err)
{
	char need[32], have[32], shortby[32];
	uint64_t avail;
	int r = fs_free(dir, &avail);

	if (r) {
		err_setf(err, "cannot use directory %s: %s", dir, strerror(-r));
		return WL_REFUSE;
	}
	if (avail >= bytes)
		return WL_OK;
	human_size(bytes, need, sizeof(need));
	human_size(avail, have, sizeof(have));
	human_size(bytes - avail, shortby, sizeof(shortby));
	err_setf(err, "needs %s free in %s%s, has %s: short by %s", need, dir,
		 what, have, shortby);
	return WL_REFUSE;
}

enum wl_verdict wl_need_memory(uint64_t bytes, const char *what,
			       struct strbuf *err)
{
	char need[32], have[32], shortby[32];
	uint64_t avail;

	/* a kernel without MemAvailable (before 3.14): not judged */
	if (meminfo_bytes("MemAvailable", &avail) ||
	    avail >= bytes + WL_SPARE_MEMORY)
		return WL_OK;
	human_size(bytes, need, sizeof(need));
	human_size(avail, have, sizeof(have));
	human_size(bytes + WL_SPARE_MEMORY - avail, shortby, sizeof(shortby));
	err_setf(err, "needs %s of memory%s plus 256 MiB, MemAvailable is %s: "
		 "short by %s", need, what, have, shortby);
	return WL_REFUSE;
}
