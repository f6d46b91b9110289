/*
 * What a case needs of the machine (workloads/need.c): which directory
 * is the runner's own, the file system checks, free space and memory,
 * each refusal with the one message every workload gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workloads/need.h"
#include "workloads/sys/fs.h"
#include "tap.h"

static const struct workload t_wl = { .name = "t-work" };

static int starts(const char *s, const char *head)
{
	return !strncmp(s, head, strlen(head));
}

int main(void)
{
	struct wl_case c = { .wl = &t_wl };
	char tmp[] = "/tmp/fb-need.XXXXXX", link[64];
	unsigned long magic;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	uint64_t n;

	tap_plan(16);
	if (!mkdtemp(tmp))
		return 1;
	snprintf(link, sizeof(link), "%s/again", tmp);
	OK(!symlink(tmp, link), "a second name of the base: %s", link);
	OK(wl_dir_own("scratch", "scratch", tmp), "the table's word is own");
	OK(wl_dir_own(link, "/dev/shm", tmp),
	   "the base under another name is own");
	OK(!wl_dir_own("/", "/dev/shm", tmp), "another directory is not");
	OK(!wl_files_dir("/x", true, "/run/own", &out, &err) &&
	   !strcmp(strbuf_str(&out), "/run/own"),
	   "own: the runner's scratch itself");
	OK(wl_files_dir("/nonexistent/fb", false, NULL, &out, &err) == -1 &&
	   !out.len &&
	   starts(strbuf_str(&err), "cannot make a directory in /nonexistent/fb: "),
	   "a directory that cannot be made: %s", strbuf_str(&err));

	OK(fs_magic("/nonexistent/fb", &magic) < 0, "no such path: -errno");
	OK(wl_need_tmpfs(&c, "/nonexistent/fb", &err) == WL_REFUSE &&
	   starts(strbuf_str(&err), "cannot use directory /nonexistent/fb: "),
	   "no such directory: %s", strbuf_str(&err));
	OK(!fs_magic("/dev/shm", &magic) && magic == TMPFS_MAGIC &&
	   wl_need_tmpfs(&c, "/dev/shm", &err) == WL_OK,
	   "/dev/shm is tmpfs");
	OK(wl_need_disk("/dev/shm", "fs=dir", "why", &err) == WL_REFUSE &&
	   !strcmp(strbuf_str(&err), "fs=dir needs a disk filesystem: /dev/shm is "
		   "tmpfs, why"), "tmpfs where a disk is needed: %s", strbuf_str(&err));
	if (!fs_magic("/proc", &magic))
		OK(wl_need_tmpfs(&c, "/proc", &err) == WL_REFUSE &&
		   strstr(strbuf_str(&err), "/proc is not on tmpfs (file system magic "
			  "0x9fa0): t-work measures tmpfs"),
		   "not tmpfs, the workload named: %s", strbuf_str(&err));
	else
		OK(1, "# skip no /proc to try a file system not tmpfs");

	OK(!fs_free(tmp, &n) && n > 0, "free bytes in %s: %llu", tmp,
	   (unsigned long long)n);
	OK(wl_need_space(tmp, 0, "", &err) == WL_OK, "nothing needed fits");
	OK(wl_need_space(tmp, 1ull << 52, " for the image", &err) ==
	   WL_REFUSE && starts(strbuf_str(&err), "needs 4096 TiB free in ") &&
	   strstr(strbuf_str(&err), " for the image, has ") &&
	   strstr(strbuf_str(&err), ": short by "), "too little space: %s", strbuf_str(&err));
	OK(wl_need_memory(0, "", &err) == WL_OK, "no memory needed fits");
	OK(wl_need_memory(1ull << 52, " (all workers' files)", &err) ==
	   WL_REFUSE && starts(strbuf_str(&err), "needs 4096 TiB of memory (all "
			       "workers' files) plus 256 MiB, MemAvailable "
			       "is "), "too little memory: %s", strbuf_str(&err));
	unlink(link);
	rmdir(tmp);
	strbuf_release(&err);
	strbuf_release(&out);
	return tap_done();
}
