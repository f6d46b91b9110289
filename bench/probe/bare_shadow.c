/*
 * The bare call shadow-truncate is held against (bench/shadow_vs_bare.sh):
 * the recipe of the patch thread it reproduces (seeds/002), done plainly.
 * A sparse file of SIZE is read, 1 MiB a pread(2), by a child in the
 * memory cgroup CGDIR (made and limited by the script), which holds an
 * mlocked anonymous ballast of BALLAST bytes so that the shadow-node
 * shrinker leaves the shadow entries alone; what the read leaves cached
 * is reclaimed (memory.reclaim on v2, memory.force_empty on v1); then,
 * with the child still holding its ballast, truncate(FILE, 0) is timed
 * with CLOCK_MONOTONIC on PU, and nothing else.  The reader (and the FUSE
 * server) run on any PU, as the workload's do.  Prints the call's time in
 * nanoseconds, the shadow entries it found (cachestat nr_evicted), the
 * pages still cached and the time of the read loop in nanoseconds (the
 * bare setup that bench/fill_vs_bare.sh holds shadow-truncate's against).
 * Not part of the tool: built by the Makefile.
 *
 * With FILE "fuse:MNT" the file is MNT/zero on a FUSE zero file system the
 * probe mounts and serves itself (a forked libfuse server), as the seed
 * measured and as shadow-truncate's fs=fuse does.  A second server, on
 * purpose, not the workload's: the probe shares no code with the harness.
 * It asks the kernel for what shadow-truncate's server asks (the writeback
 * cache, so that a read is a hole the kernel zero-fills; no open, so no
 * RELEASE holds the inode; no invalidation on a changed mtime), since those
 * decide the path the truncate takes.
 *
 *   bare_shadow FILE|fuse:MNT SIZE CGDIR BALLAST PU [all-on-pu]
 *
 * all-on-pu (by hand, for the investigation of issue 17): the reader and
 * the server on PU too, to show what the placement of the setup costs.
 */
#include "probe.h"	/* first: it asks for _GNU_SOURCE */

#define FUSE_USE_VERSION 35

#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat	451
#endif

struct cs_range {
	uint64_t off, len;
};

struct cs {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted,
		 nr_recently_evicted;
};

static const char *cgdir;
static uint64_t fsize;		/* the FUSE file's size */
static struct fuse_session *se;	/* the parent's, to unmount at the end */

static void fz_attr(fuse_ino_t ino, struct stat *a)
{
	memset(a, 0, sizeof(*a));
	a->st_ino = ino;
	a->st_mode = ino == FUSE_ROOT_ID ? S_IFDIR | 0755 : S_IFREG | 0644;
	a->st_nlink = 1;
	a->st_size = ino == FUSE_ROOT_ID ? 0 : (off_t)fsize;
}

static void fz_init(void *data, struct fuse_conn_info *conn)
{
	(void)data;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	if (conn->capable & FUSE_CAP_WRITEBACK_CACHE)
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
}

static void fz_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e = { .ino = 2, .attr_timeout = 1e6,
				      .entry_timeout = 1e6 };

	if (parent != FUSE_ROOT_ID || strcmp(name, "zero")) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fz_attr(2, &e.attr);
	fuse_reply_entry(req, &e);
}

static void fz_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct stat a;

	(void)fi;
	fz_attr(ino, &a);
	fuse_reply_attr(req, &a, 1e6);
}

static void fz_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr,
		       int to_set, struct fuse_file_info *fi)
{
	struct stat a;

	(void)fi;
	if (to_set & FUSE_SET_ATTR_SIZE)
		fsize = (uint64_t)attr->st_size;
	fz_attr(ino, &a);
	fuse_reply_attr(req, &a, 1e6);
}

static void fz_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, ENOSYS);
}

/* With the writeback cache an empty reply is a hole: zeros, no copy. */
static void fz_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	(void)ino;
	(void)size;
	(void)off;
	(void)fi;
	fuse_reply_buf(req, NULL, 0);
}

static const struct fuse_lowlevel_ops fz_ops = {
	.init = fz_init, .lookup = fz_lookup, .getattr = fz_getattr,
	.setattr = fz_setattr, .open = fz_open, .read = fz_read,
};

/* Mount the zero file system on mnt and serve it from a child; its pid. */
static pid_t fz_start(const char *mnt, uint64_t size)
{
	char *argv[] = { "bare_shadow", "-o", "allow_other", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	char *path, val[16];
	struct stat sb;
	pid_t pid;
	int fd;

	fsize = size;
	if (mkdir(mnt, 0755) && errno != EEXIST)
		die(mnt);
	se = fuse_session_new(&args, &fz_ops, sizeof(fz_ops), NULL);
	fuse_opt_free_args(&args);
	if (!se || fuse_session_mount(se, mnt))
		die("fuse_session_mount");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		fuse_session_loop(se);
		_exit(0);
	}
	/*
	 * The server's copy of /dev/fuse is the only one: if it dies (a ^C
	 * to the process group), the kernel aborts the connection and a
	 * read waiting on it fails, where a copy held here or by the reader
	 * would keep the connection, and every user of it, waiting forever.
	 * /dev/null takes its place under the session's number, which the
	 * session closes at the end.
	 */
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup3(fd, fuse_session_fd(se), O_CLOEXEC) < 0)
		die("/dev/null");
	close(fd);
	path = path_of("%s/zero", mnt);
	if (stat(path, &sb) || (uint64_t)sb.st_size != size)
		die(path);
	free(path);
	/* a readahead window of 1 MiB, as shadow-truncate's mount has */
	path = path_of("/sys/class/bdi/%u:%u/read_ahead_kb",
		       major(sb.st_dev), minor(sb.st_dev));
	snprintf(val, sizeof(val), "1024");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, val, strlen(val)) < 0)
		die(path);
	close(fd);
	free(path);
	return pid;
}

/* Write val to CGDIR/name; errno on failure, EAGAIN allowed if ok_again. */
static void cg_write(const char *name, const char *val, int ok_again)
{
	char *path = path_of("%s/%s", cgdir, name);
	int fd;
	ssize_t n;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die(path);
	n = write(fd, val, strlen(val));
	if (n < 0 && !(ok_again && errno == EAGAIN))
		die(path);
	close(fd);
	free(path);
}

static uint64_t cg_read(const char *name)
{
	char *path = path_of("%s/%s", cgdir, name);
	unsigned long long v = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu", &v) != 1)
		die(path);
	fclose(f);
	free(path);
	return v;
}

static void child(const char *file, uint64_t size, uint64_t ballast,
		  int up, int down)
{
	char val[32], line[256], *buf, *path;
	uint64_t off, t0;
	int v2, fd;
	void *b;
	FILE *f;

	path = path_of("%s/memory.current", cgdir);
	v2 = !access(path, F_OK);
	free(path);

	snprintf(val, sizeof(val), "%d", getpid());
	cg_write("cgroup.procs", val, 0);
	b = mmap(NULL, ballast, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b == MAP_FAILED || mlock(b, ballast))
		die("ballast");
	/* flush the cgroup's statistics: the shrinker sizes its cap by them */
	path = path_of("%s/memory.stat", cgdir);
	f = fopen(path, "r");
	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f))
		;
	fclose(f);
	free(path);
	buf = aligned_alloc(4096, 1 << 20);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0)
		die(file);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	t0 = now_ns();
	for (off = 0; off < size; off += 1 << 20)
		if (pread(fd, buf, 1 << 20, (off_t)off) <= 0)
			die("pread");
	t0 = now_ns() - t0;
	close(fd);
	/* what the read left cached goes through the same reclaim */
	if (v2) {
		snprintf(val, sizeof(val), "%llu",
			 (unsigned long long)cg_read("memory.current"));
		cg_write("memory.reclaim", val, 1);
	} else {
		cg_write("memory.force_empty", "0", 0);
	}
	/* the read's time says it is done */
	if (write(up, &t0, sizeof(t0)) != (ssize_t)sizeof(t0))
		die("pipe");
	/* hold the ballast until the parent is done */
	while (read(down, val, 1) > 0)
		;
	_exit(0);
}

/*
 * The file to truncate: FILE, sparse, or "fuse:MNT", the zero file of a
 * FUSE server started here (*mnt and *server set); its fd, or death.
 */
static int open_file(const char *arg, uint64_t size, char **file,
		     const char **mnt, pid_t *server)
{
	int fd;

	if (!strncmp(arg, "fuse:", 5)) {
		*mnt = arg + 5;
		*server = fz_start(*mnt, size);
		*file = path_of("%s/zero", *mnt);
		fd = open(*file, O_RDONLY | O_CLOEXEC);
	} else {
		*file = path_of("%s", arg);
		fd = open(*file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd >= 0 && ftruncate(fd, (off_t)size))
			die(*file);
	}
	if (fd < 0)
		die(*file);
	return fd;
}

/* The reader child, forked: up says its read is done, down holds it. */
static pid_t start_child(const char *file, uint64_t size, uint64_t ballast,
			 int *up, int *down)
{
	int u[2], d[2];
	pid_t pid;

	if (pipe(u) || pipe(d))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		close(u[0]);
		close(d[1]);
		child(file, size, ballast, u[1], d[0]);
	}
	close(u[1]);
	close(d[0]);
	*up = u[0];
	*down = d[1];
	return pid;
}

/* The reader let go, the FUSE server (if any) stopped, the file gone. */
static void clean_up(pid_t pid, int down, int fd, const char *file,
		     const char *mnt, pid_t server)
{
	int status;

	close(down);
	waitpid(pid, &status, 0);
	close(fd);
	if (mnt) {
		fuse_session_unmount(se);
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
		fuse_session_destroy(se);
		rmdir(mnt);
	} else {
		unlink(file);
	}
}

int main(int argc, char **argv)
{
	struct cs_range range = { 0, 0 };
	struct cs cs;
	uint64_t size, ballast, t0, t1, read_ns;
	int up, down, fd;
	const char *mnt = NULL;
	char *file;
	pid_t pid, server = 0;

	if (argc != 6 && !(argc == 7 && !strcmp(argv[6], "all-on-pu"))) {
		fprintf(stderr, "usage: bare_shadow FILE SIZE CGDIR BALLAST "
			"PU [all-on-pu]\n");
		return 64;
	}
	size = number(argv[2], "SIZE");
	cgdir = argv[3];
	ballast = number(argv[4], "BALLAST");
	/* by hand, for issue 17: the reader and the server on PU too */
	if (argc == 7)
		pin(atoi(argv[5]));
	fd = open_file(argv[1], size, &file, &mnt, &server);
	pid = start_child(file, size, ballast, &up, &down);
	/*
	 * The timed call on PU, pinned from here, long before it; the server
	 * and the reader run anywhere, as shadow-truncate's do (on every PU
	 * the runner may use).  all-on-pu against this differed by 1.005
	 * [0.972, 1.039] on the 2-vCPU VM (12 blocks, 2G on FUSE).
	 */
	pin(atoi(argv[5]));
	if (read(up, &read_ns, sizeof(read_ns)) != (ssize_t)sizeof(read_ns)) {
		fprintf(stderr, "bare_shadow: the reader failed\n");
		return 1;
	}
	/* let what reclaim set going settle, as the workload waits for it */
	usleep(300000);
	if (syscall(__NR_cachestat, fd, &range, &cs, 0))
		die("cachestat");
	t0 = now_ns();
	if (truncate(file, 0))
		die("truncate");
	t1 = now_ns();
	clean_up(pid, down, fd, file, mnt, server);
	free(file);
	printf("%llu %llu %llu %llu\n", (unsigned long long)(t1 - t0),
	       (unsigned long long)cs.nr_evicted,
	       (unsigned long long)cs.nr_cache, (unsigned long long)read_ns);
	return 0;
}
