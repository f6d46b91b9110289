/* The file system a path is on, and its free bytes. */
#include "fs.h"

#include <errno.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

int fs_magic(const char *path, unsigned long *magic)
{
	struct statfs sf;

	if (statfs(path, &sf))
		return -errno;
	*magic = (unsigned long)sf.f_type;
	return 0;
}

int fs_fd_magic(int fd, unsigned long *magic)
{
	struct statfs sf;

	if (fstatfs(fd, &sf))
		return -errno;
	*magic = (unsigned long)sf.f_type;
	return 0;
}

int fs_free(const char *path, uint64_t *bytes)
{
	struct statvfs sv;

	if (statvfs(path, &sv))
		return -errno;
	*bytes = (uint64_t)sv.f_bavail * sv.f_frsize;
	return 0;
}
