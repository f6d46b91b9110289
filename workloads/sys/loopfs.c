/* A scratch ext4 on a loop device (see loopfs.h). */
#include "loopfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys.h"

extern char **environ;

static const char *const mkfs_paths[] = {
	"/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4", "/usr/local/sbin/mkfs.ext4",
	"/bin/mkfs.ext4", "/usr/bin/mkfs.ext4", NULL,
};

static const char *mkfs_path(void)
{
	int i;

	for (i = 0; mkfs_paths[i]; i++)
		if (!access(mkfs_paths[i], X_OK))
			return mkfs_paths[i];
	return NULL;
}

uint64_t loopfs_image_bytes(uint64_t data_bytes)
{
	/*
	 * Twice the data, since blocks freed by a truncate come back only
	 * after the journal commits, plus 64 MiB for the journal and inode
	 * tables; the image is sparse, so unused room costs nothing.
	 */
	uint64_t b = 2 * data_bytes + (64 << 20);

	return (b + (1 << 20) - 1) & ~(uint64_t)((1 << 20) - 1);
}

int loopfs_check(struct strbuf *err)
{
	if (!mkfs_path())
		return err_setf(err, "mkfs.ext4 not found (install e2fsprogs)");
	if (access("/dev/loop-control", R_OK | W_OK))
		return err_setf(err, "no loop device driver "
				"(/dev/loop-control: %s)", strerror(errno));
	return 0;
}

void loopfs_init(struct loopfs *l)
{
	memset(l, 0, sizeof(*l));
}

/* Run mkfs.ext4 on the image; its complaints come back in err. */
static int mkfs(const char *image, struct strbuf *err)
{
	const char *path = mkfs_path();
	/*
	 * -b 4096: a small image would get the "small" profile's 1 KiB
	 * blocks, four buffer heads per page, which more than doubles the
	 * cost of a truncate (measured: p50 480 against 185 us for 1024
	 * pages).  Inode tables and journal are written now, so that no
	 * ext4lazyinit thread writes behind a measurement.
	 */
	const char *const argv[] = {
		"mkfs.ext4", "-q", "-F", "-b", "4096", "-L", "foliobench",
		"-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard",
		image, NULL,
	};
	struct sys_child ch;
	struct sys_child_spec sp = { .path = path, .argv = argv, .out = -1 };
	char out[512];
	size_t used = 0;
	int pfd[2], status, r;

	if (!path) {
		err_setf(err, "mkfs.ext4 not found");
		return -ENOENT;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		r = -errno;
		err_setf(err, "cannot make a pipe for %s: %s", path,
			 strerror(-r));
		return r;
	}
	/* a large image takes mkfs a while: a runner killed meanwhile
	 * leaves it to the next one to end (the child is journalled) */
	sp.out = pfd[1];
	r = sys_child_start(&ch, &sp);
	close(pfd[1]);
	if (r) {
		close(pfd[0]);
		err_setf(err, "cannot run %s: %s", path, strerror(-r));
		return r;
	}
	/* read to the end, keeping the start: a full pipe would stall it */
	for (;;) {
		char sink[512];
		ssize_t got = used < sizeof(out) - 1 ?
			      read(pfd[0], out + used, sizeof(out) - 1 - used) :
			      read(pfd[0], sink, sizeof(sink));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		if (used < sizeof(out) - 1)
			used += (size_t)got;
	}
	out[used] = '\0';
	close(pfd[0]);
	status = sys_child_finish(&ch, false) ? -1 : ch.status;
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		out[strcspn(out, "\n")] = '\0';
		err_setf(err, "mkfs.ext4 %s failed: %s", image,
			 out[0] ? out : "no reason given");
		return -EIO;
	}
	return 0;
}

int loopfs_create(struct loopfs *l, const char *dir, const char *name,
		  uint64_t image_bytes, struct strbuf *err)
{
	int fd, r;

	strbuf_reset(&l->image);
	strbuf_addf(&l->image, "%s/%s.img", dir, name);
	strbuf_reset(&l->mnt);
	strbuf_addf(&l->mnt, "%s/%s.mnt", dir, name);
	fd = open(l->image.buf, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		err_setf(err, "cannot create %s: %s", l->image.buf,
			 strerror(-r));
		return r;
	}
	l->made = true;
	/* sparse: memory only for what mkfs and the workload write */
	if (ftruncate(fd, (off_t)image_bytes)) {
		r = -errno;
		close(fd);
		err_setf(err, "cannot size %s to %llu bytes: %s", l->image.buf,
			 (unsigned long long)image_bytes, strerror(-r));
		return r;
	}
	close(fd);
	r = mkfs(l->image.buf, err);
	if (r)
		return r;
	if (mkdir(l->mnt.buf, 0700) && errno != EEXIST) {
		r = -errno;
		err_setf(err, "cannot mkdir %s: %s", l->mnt.buf, strerror(-r));
		return r;
	}
	r = sys_loop_attach(l->image.buf, l->dev, sizeof(l->dev));
	if (r) {
		err_setf(err, "cannot attach %s to a loop device: %s",
			 l->image.buf, strerror(-r));
		return r;
	}
	l->attached = true;
	r = sys_mount(l->dev, l->mnt.buf, "ext4", 0, NULL);
	if (r) {
		err_setf(err, "cannot mount %s (%s) as ext4 on %s: %s",
			 l->dev, l->image.buf, l->mnt.buf, strerror(-r));
		return r;
	}
	l->mounted = true;
	return 0;
}

int loopfs_destroy(struct loopfs *l)
{
	int r, first = 0;

	if (l->mounted) {
		r = sys_umount(l->mnt.buf);
		if (r && !first)
			first = r;
		l->mounted = false;
	}
	if (l->attached) {
		/* autoclear has usually freed it at the umount already */
		r = sys_loop_detach(l->dev);
		if (r && !first)
			first = r;
		l->attached = false;
	}
	if (l->mnt.len && rmdir(l->mnt.buf) && errno != ENOENT && !first)
		first = -errno;
	if (l->made) {
		if (unlink(l->image.buf) && errno != ENOENT && !first)
			first = -errno;
		l->made = false;
	}
	strbuf_release(&l->mnt);
	strbuf_release(&l->image);
	return first;
}
