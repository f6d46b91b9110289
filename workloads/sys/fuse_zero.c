/*
 * The zero-file FUSE server: one regular file of zeros, served by a forked
 * child on libfuse's low-level API.  We mount(2) the connection ourselves
 * through sys.h, so the journal holds the mount before it exists, and hand
 * the open /dev/fuse to libfuse as "/dev/fd/N".  A forked server rather
 * than a thread: a runner that dies or is killed takes the connection down
 * with the server (PR_SET_PDEATHSIG), so a stale mount only ever answers
 * ENOTCONN and is detached at the next start, and teardown never waits on a
 * loop that is still serving a busy mount.
 */
#define FUSE_USE_VERSION 35

#include "fuse_zero.h"
#include "sys.h"
#include "common/common.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ZERO_INO	2
/* The kernel caches names and attributes this long: they never change
 * behind its back, and a revalidation must not invalidate the cache. */
#define ZERO_TIMEOUT	1e6
/*
 * One zero buffer, repeated in an iovec: enough for the largest request
 * the kernel makes (fuse_max_pages_limit caps it at 256 MiB).
 */
#define ZERO_CHUNK	(1u << 20)
#define ZERO_IOV	256

struct zero_state {
	uint64_t size;
	int exists;
	int zero_fill;		/* the kernel zero-fills short reads */
	time_t mtime;
};

static const char *zero_buf;

static void zero_attr(const struct zero_state *st, fuse_ino_t ino,
		      struct stat *a)
{
	memset(a, 0, sizeof(*a));
	a->st_ino = ino;
	a->st_mtime = a->st_ctime = a->st_atime = st->mtime;
	if (ino == FUSE_ROOT_ID) {
		a->st_mode = S_IFDIR | 0755;
		a->st_nlink = 2;
		return;
	}
	a->st_mode = S_IFREG | 0644;
	a->st_nlink = 1;
	a->st_size = (off_t)st->size;
	a->st_blksize = 4096;
	a->st_blocks = (blkcnt_t)((st->size + 511) / 512);
}

static void zero_init(void *data, struct fuse_conn_info *conn)
{
	struct zero_state *st = data;

	/* A changed mtime must not drop the cache (and its shadow entries). */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_ASYNC_READ)
		conn->want |= FUSE_CAP_ASYNC_READ;
	/*
	 * With the writeback cache the kernel owns i_size, so an empty reply
	 * to a read is a hole it fills with zeros (clear_page) instead of an
	 * EOF that shrinks the file.  That spares copying every byte from
	 * our buffer into the page cache: measured on the 2-vCPU VM, a third
	 * of the CPU time per GiB read.  Truncation, the timed part, still
	 * goes through truncate_pagecache() as without it.
	 */
	if (conn->capable & FUSE_CAP_WRITEBACK_CACHE) {
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
		st->zero_fill = 1;
	}
}

static void zero_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct zero_state *st = fuse_req_userdata(req);
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, FUSE_ZERO_NAME) ||
	    !st->exists) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = ZERO_INO;
	e.attr_timeout = ZERO_TIMEOUT;
	e.entry_timeout = ZERO_TIMEOUT;
	zero_attr(st, ZERO_INO, &e.attr);
	fuse_reply_entry(req, &e);
}

static void zero_getattr(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	struct zero_state *st = fuse_req_userdata(req);
	struct stat a;

	(void)fi;
	if (ino != FUSE_ROOT_ID && (ino != ZERO_INO || !st->exists)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	zero_attr(st, ino, &a);
	fuse_reply_attr(req, &a, ZERO_TIMEOUT);
}

static void zero_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
			 int to_set, struct fuse_file_info *fi)
{
	struct zero_state *st = fuse_req_userdata(req);
	struct stat a;

	(void)fi;
	if (ino != ZERO_INO || !st->exists) {
		fuse_reply_err(req, ino == FUSE_ROOT_ID ? EPERM : ENOENT);
		return;
	}
	if (to_set & FUSE_SET_ATTR_SIZE)
		st->size = (uint64_t)attr->st_size;
	zero_attr(st, ino, &a);
	fuse_reply_attr(req, &a, ZERO_TIMEOUT);
}

/*
 * No open: the kernel then opens with FOPEN_KEEP_CACHE (an open must not
 * invalidate the cache and the shadow entries the workload built) and sends
 * no RELEASE.  An asynchronous RELEASE holds the inode until we answer it,
 * so the last iput(), and with it the teardown of the page cache after an
 * unlink, would run in our reply instead of in the timed unlink(2).
 */
static void zero_open(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, ENOSYS);
}

static void zero_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct zero_state *st = fuse_req_userdata(req);
	struct iovec iov[ZERO_IOV];
	uint64_t left;
	int n = 0;

	(void)ino;
	(void)fi;
	if (off < 0 || (uint64_t)off >= st->size || st->zero_fill) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	left = st->size - (uint64_t)off;
	if (left > size)
		left = size;
	if (left > (uint64_t)ZERO_CHUNK * ZERO_IOV)
		left = (uint64_t)ZERO_CHUNK * ZERO_IOV;
	while (left) {
		size_t k = left > ZERO_CHUNK ? ZERO_CHUNK : (size_t)left;

		iov[n].iov_base = (void *)zero_buf;
		iov[n++].iov_len = k;
		left -= k;
	}
	fuse_reply_iov(req, iov, n);
}

static void zero_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct zero_state *st = fuse_req_userdata(req);

	if (parent != FUSE_ROOT_ID || strcmp(name, FUSE_ZERO_NAME) ||
	    !st->exists) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	st->exists = 0;
	st->size = 0;
	fuse_reply_err(req, 0);
}

static void zero_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	struct zero_state *st = fuse_req_userdata(req);
	static const char *const names[] = { ".", "..", FUSE_ZERO_NAME };
	char buf[512];
	size_t used = 0;
	int i;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	for (i = (int)off; i < 3; i++) {
		struct stat a = { 0 };
		size_t len;

		if (i == 2 && !st->exists)
			break;
		a.st_ino = i == 2 ? ZERO_INO : FUSE_ROOT_ID;
		a.st_mode = i == 2 ? S_IFREG : S_IFDIR;
		len = fuse_add_direntry(req, buf + used, sizeof(buf) - used,
					names[i], &a, i + 1);
		if (len > sizeof(buf) - used || used + len > size)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
}

static const struct fuse_lowlevel_ops zero_ops = {
	.init		= zero_init,
	.lookup		= zero_lookup,
	.getattr	= zero_getattr,
	.setattr	= zero_setattr,
	.open		= zero_open,
	.read		= zero_read,
	.unlink		= zero_unlink,
	.readdir	= zero_readdir,
};

struct serve_args {
	int fd;
	pid_t parent;
	uint64_t size;
	const int *cpus;
	int ncpus;
};

/*
 * The server child: never returns.  It holds nothing of the runner's but
 * fd (sys_child_start closed the rest: an inherited descriptor of its lock
 * or database would outlive it in a server that lingers).
 */
static void __attribute__((noreturn)) zero_serve(void *p)
{
	const struct serve_args *a = p;
	static char argv0[] = "foliobench-fuse-zero";
	char *argv[] = { argv0, NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	struct zero_state st = { a->size, 1, 0, 0 };
	struct fuse_session *se;
	char mp[32];

	/* Die with the runner; a Ctrl-C for the runner is its to handle. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->parent)
		_exit(1);
	fuse_zero_place(a->cpus, a->ncpus);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	zero_buf = calloc(1, ZERO_CHUNK);
	st.mtime = time(NULL);
	se = fuse_session_new(&args, &zero_ops, sizeof(zero_ops), &st);
	if (!zero_buf || !se)
		_exit(1);
	snprintf(mp, sizeof(mp), "/dev/fd/%d", a->fd);
	if (fuse_session_mount(se, mp))
		_exit(1);
	fuse_session_loop(se);
	_exit(0);
}

void fuse_zero_place(const int *cpus, int ncpus)
{
	cpu_set_t set;
	int i;

	if (!cpus || ncpus <= 0)
		return;
	CPU_ZERO(&set);
	for (i = 0; i < ncpus; i++)
		if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE)
			CPU_SET(cpus[i], &set);
	sched_setaffinity(0, sizeof(set), &set);
}

int fuse_zero_available(struct strbuf *err)
{
	int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;

		err_setf(err, "no FUSE: cannot open /dev/fuse: %s",
			 strerror(-r));
		return r;
	}
	close(fd);
	return 0;
}

int fuse_zero_start(struct fuse_zero *fz, const char *dir, uint64_t size,
		    const int *cpus, int ncpus, struct strbuf *err)
{
	char data[160];
	struct stat sb;
	struct serve_args sa;
	struct sys_child ch;
	int keep[2] = { -1, -1 };
	int fd = -1, r;

	memset(fz, 0, sizeof(*fz));
	strbuf_addstr(&fz->dir, dir);
	strbuf_addf(&fz->file, "%s/%s", dir, FUSE_ZERO_NAME);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		r = -errno;
		err_setf(err, "cannot create %s: %s", dir, strerror(-r));
		return r;
	}
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		err_setf(err, "cannot open /dev/fuse: %s", strerror(-r));
		goto out;
	}
	snprintf(data, sizeof(data),
		 "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	r = sys_mount("foliobench", dir, "fuse.foliobench",
		      MS_NOSUID | MS_NODEV, data);
	if (r) {
		err_setf(err, "cannot mount FUSE on %s: %s", dir,
			 strerror(-r));
		goto out;
	}
	fz->mounted = 1;
	/* the parent's pid read before the fork, checked after it */
	sa = (struct serve_args){ fd, getpid(), size, cpus, ncpus };
	keep[0] = fd;
	r = sys_child_start(&ch, &(struct sys_child_spec){
		.fn = zero_serve, .arg = &sa, .keep = keep, .out = -1 });
	if (r) {
		err_setf(err, "cannot fork the FUSE server: %s",
			 strerror(-r));
		goto out;
	}
	fz->server = ch.pid;
	/* The server's copy is now the only one: if it dies, the kernel
	 * aborts the connection and the stat below fails instead of hanging. */
	close(fd);
	fd = -1;
	if (stat(fz->file.buf, &sb)) {
		r = -errno;
		err_setf(err, "FUSE server on %s does not answer: %s", dir,
			 strerror(-r));
		goto out;
	}
	if ((uint64_t)sb.st_size != size) {
		r = -EIO;
		err_setf(err, "FUSE file %s has %lld bytes, not %llu",
			 fz->file.buf, (long long)sb.st_size,
			 (unsigned long long)size);
		goto out;
	}
	return 0;
out:
	if (fd >= 0)
		close(fd);
	fuse_zero_stop(fz);
	return r;
}

uint64_t fuse_zero_cpu_ns(const struct fuse_zero *fz)
{
	return fz->server > 0 ? proc_cpu_ns(fz->server) : 0;
}

int fuse_zero_set_readahead(const struct fuse_zero *fz, unsigned kb)
{
	char path[128], val[32];
	struct stat sb;

	if (stat(fz->dir.buf, &sb))
		return -errno;
	/*
	 * The bdi is the mount's own ("maj:min" of its anonymous device),
	 * made with the superblock and freed with it at the unmount: the
	 * knob needs no restoring, and no other file system sees it.
	 */
	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb",
		 major(sb.st_dev), minor(sb.st_dev));
	snprintf(val, sizeof(val), "%u", kb);
	return write_file_str(path, val);
}

void fuse_zero_stop(struct fuse_zero *fz)
{
	if (fz->mounted) {
		/* Detaches lazily when busy; the kill below then aborts the
		 * connection, so no user of it can hang. */
		sys_umount(fz->dir.buf);
		fz->mounted = 0;
	}
	if (fz->server > 0) {
		struct sys_child ch = { .pid = fz->server };

		sys_child_finish(&ch, true);
		fz->server = 0;
	}
	if (fz->dir.len)
		rmdir(fz->dir.buf);
	strbuf_release(&fz->dir);
	strbuf_release(&fz->file);
}
