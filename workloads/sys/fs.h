/*
 * The file system a path is on and the room it has, for every workload and
 * the runner alike (fio's filesetup.c asks these once for every engine).
 */
#ifndef FB_FS_H
#define FB_FS_H

#include <stdint.h>
#include <linux/magic.h>	/* TMPFS_MAGIC, for fs_magic's answer */

/* statfs(2)'s f_type of path (TMPFS_MAGIC, ...): 0 or -errno. */
int fs_magic(const char *path, unsigned long *magic);
/* The same of the file open at fd. */
int fs_fd_magic(int fd, unsigned long *magic);
/* Bytes an unprivileged writer may still put in path's file system. */
int fs_free(const char *path, uint64_t *bytes);

#endif
