/*
 * The changes the runner makes to the machine, each recorded in the
 * journal (journal.c) before it is made and marked done once undone:
 * scratch dirs, sysfs knobs, mounts, cgroups, loop devices, processes.
 */
#include "sys.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/loop.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/common.h"
#include "journal_priv.h"

int sys_scratch(const char *base, struct strbuf *out)
{
	const char *d;

	strbuf_reset(out);
	strbuf_addf(out, "%s/foliobench.%d", base, (int)getpid());
	d = out->buf;
	/* asked again for a directory this run already made: the same one */
	if (journal_find("dir", d) && !access(d, F_OK))
		return 0;
	if (!journal_record("dir", d, NULL))
		return -EIO;
	if (mkdir(d, 0700) && errno != EEXIST) {
		int e = -errno;

		journal_mark_done(journal_find("dir", d));
		return e;
	}
	return 0;
}

int sys_scratch_remove(const char *path)
{
	struct entry *e = journal_find("dir", path);

	return e ? journal_undo(e) : sys_rmtree(path);
}

/* "always within_size advise [never] deny force" -> "never" */
static void knob_current(const char *raw, char *out, size_t n)
{
	const char *l = strchr(raw, '['), *r = l ? strchr(l, ']') : NULL;

	if (l && r)
		snprintf(out, n, "%.*s", (int)(r - l - 1), l + 1);
	else
		snprintf(out, n, "%s", raw);
}

int sys_knob_set(const char *path, const char *value)
{
	char raw[512], old[512];
	int r;

	r = read_file_str(path, raw, sizeof(raw));
	if (r)
		return r;
	knob_current(raw, old, sizeof(old));
	if (!strcmp(old, value))
		return 0;
	if (!journal_find("knob", path) && !journal_record("knob", path, old))
		return -EIO;
	r = write_file_str(path, value);
	return r;
}

int sys_knob_restore(const char *path)
{
	struct entry *e = journal_find("knob", path);

	return e ? journal_undo(e) : 0;
}

int sys_mount_record(const char *target)
{
	return journal_record("mount", target, NULL) ? 0 : -EIO;
}

int sys_mount(const char *src, const char *target, const char *fstype,
	      unsigned long flags, const char *data)
{
	struct entry *e = journal_record("mount", target, NULL);

	if (!e)
		return -EIO;
	if (mount(src, target, fstype, flags, data)) {
		int r = -errno;

		journal_mark_done(e);
		return r;
	}
	return 0;
}

int sys_umount(const char *target)
{
	struct entry *e = journal_find("mount", target);

	if (e)
		return journal_undo(e);
	if (umount2(target, 0) && umount2(target, MNT_DETACH))
		return -errno;
	return 0;
}

int sys_cgroup_mkdir(const char *path)
{
	struct entry *e = journal_record("cgroup", path, NULL);

	if (!e)
		return -EIO;
	if (mkdir(path, 0755)) {
		int r = -errno;

		journal_mark_done(e);
		return r;
	}
	return 0;
}

int sys_cgroup_rmdir(const char *path)
{
	struct entry *e = journal_find("cgroup", path);

	return e ? journal_undo(e) : journal_undo_cgroup(path);
}

int sys_loop_attach(const char *file, char *dev, size_t n)
{
	struct loop_info64 info;
	struct entry *e;
	int ctl, nr, lfd = -1, ffd = -1, r = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	/* other runners (a shared lab machine) take free devices too */
	for (int tries = 0; tries < 32; tries++) {
		if (tries)
			usleep(2000 * tries);
		nr = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (nr < 0) {
			r = -errno;
			break;
		}
		snprintf(dev, n, "/dev/loop%d", nr);
		e = journal_record("loop", dev, file);
		if (!e) {
			r = -EIO;
			break;
		}
		lfd = open(dev, O_RDWR | O_CLOEXEC);
		ffd = open(file, O_RDWR | O_CLOEXEC);
		if (lfd < 0 || ffd < 0) {
			r = -errno;
			journal_mark_done(e);
			break;
		}
		if (ioctl(lfd, LOOP_SET_FD, ffd)) {
			r = -errno;
			journal_mark_done(e);
			close(lfd);
			close(ffd);
			lfd = ffd = -1;
			if (r == -EBUSY)	/* raced another user: next */
				continue;
			break;
		}
		memset(&info, 0, sizeof(info));
		/*
		 * No LO_FLAGS_AUTOCLEAR: it frees the device at the last
		 * close, which is the close of lfd below, before anyone can
		 * mount it.  Undo clears it; LOOP_CLR_FD on a device still
		 * mounted sets autoclear, so it goes at the unmount.
		 */
		info.lo_flags = 0;
		snprintf((char *)info.lo_file_name, sizeof(info.lo_file_name),
			 "%s", file);
		if (ioctl(lfd, LOOP_SET_STATUS64, &info)) {
			r = -errno;
			journal_undo(e);
		}
		break;
	}
	if (lfd >= 0)
		close(lfd);
	if (ffd >= 0)
		close(ffd);
	close(ctl);
	return r;
}

int sys_loop_detach(const char *dev)
{
	struct entry *e = journal_find("loop", dev);

	return e ? journal_undo(e) : 0;
}

int sys_pid_record(pid_t pid)
{
	char a[32], b[32];

	snprintf(a, sizeof(a), "%d", (int)pid);
	snprintf(b, sizeof(b), "%llu", journal_starttime(pid));
	return journal_record("pid", a, b) ? 0 : -EIO;
}

int sys_pid_forget(pid_t pid)
{
	char a[32];
	struct entry *e;

	snprintf(a, sizeof(a), "%d", (int)pid);
	e = journal_find("pid", a);
	if (e)
		journal_mark_done(e);
	return 0;
}
