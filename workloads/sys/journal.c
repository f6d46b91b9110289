/*
 * The journal of system changes (see sys.h).  Each change is appended and
 * fsync'ed before it is made; undoing it appends "ID done".  A runner that
 * finds entries not done at its start mends them, newest first.  An undo
 * that fails leaves its entry in the journal, with why, for the next start
 * to try again: the journal forgets only what was really undone.
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

#define MAX_ENTRIES	256


static struct {
	struct strbuf dir;
	int machine_fd;		/* the abstract socket: one runner a machine */
	int lock_fd;
	int fd;			/* journal, O_APPEND */
	int next_id;
	bool loading;		/* reading a dead runner's journal: no writes */
	struct entry *e;	/* what this process recorded */
	int n;
} J = { .machine_fd = -1, .lock_fd = -1, .fd = -1 };

const char *sys_state_dir(void)
{
	const char *d;

	if (!J.dir.len) {
		d = getenv("FOLIOBENCH_STATE");
		strbuf_addstr(&J.dir, d && *d ? d : "/run/foliobench");
	}
	return J.dir.buf;
}

static int append(const char *line)
{
	size_t len = strlen(line);

	if (J.fd < 0)
		return -EBADF;
	if (write(J.fd, line, len) != (ssize_t)len)
		return errno ? -errno : -EIO;
	if (fsync(J.fd))
		return -errno;
	return 0;
}

/* Record an intended change; returns its entry or NULL. */
struct entry *journal_record(const char *kind, const char *a, const char *b)
{
	struct strbuf line = STRBUF_INIT;
	struct entry *e;
	int r;

	if (strpbrk(a, "\t\n") || (b && strpbrk(b, "\t\n")))
		return NULL;
	if (!J.e)
		J.e = xcalloc(MAX_ENTRIES, sizeof(*J.e));
	if (J.n == MAX_ENTRIES)
		return NULL;
	e = &J.e[J.n];
	memset(e, 0, sizeof(*e));
	e->id = ++J.next_id;
	snprintf(e->kind, sizeof(e->kind), "%s", kind);
	strbuf_addf(&line, "%d\t%s\t%s\t%s\n", e->id, kind, a, b ? b : "");
	r = J.loading ? 0 : append(line.buf);
	strbuf_release(&line);
	if (r)
		return NULL;
	e->a = xstrdup(a);
	e->b = xstrdup(b ? b : "");
	J.n++;
	return e;
}

static void forget(int i)
{
	if (i >= 0 && i < J.n) {
		free(J.e[i].a);
		free(J.e[i].b);
		memmove(&J.e[i], &J.e[i + 1],
			sizeof(J.e[0]) * (size_t)(J.n - i - 1));
		J.n--;
	}
}

/* Undone: say so in the journal and forget it, so that slots are reused. */
void journal_mark_done(struct entry *e)
{
	char line[32];
	int i;

	if (!e)
		return;
	i = (int)(e - J.e);
	e->done = true;
	snprintf(line, sizeof(line), "%d\tdone\n", e->id);
	append(line);
	forget(i);
}

struct entry *journal_find(const char *kind, const char *a)
{
	int i;

	for (i = J.n - 1; i >= 0; i--)
		if (!J.e[i].done && !strcmp(J.e[i].kind, kind) &&
		    !strcmp(J.e[i].a, a))
			return &J.e[i];
	return NULL;
}

static int rm_err;	/* first error of the tree being removed */

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	if (remove(path) && errno != ENOENT && !rm_err)
		rm_err = errno;	/* go on: remove what can be removed */
	return 0;
}

int sys_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	rm_err = 0;
	if (nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT))
		return -errno;
	if (!access(path, F_OK))
		return rm_err ? -rm_err : -ENOTEMPTY;
	return 0;
}

/* A file system mounted at or below path (it keeps a directory busy). */
static bool mounted_below(const char *path, struct strbuf *at)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char line[8192];
	size_t len = strlen(path);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *t = strchr(line, ' '), *end;

		if (!t)
			continue;
		end = strchr(++t, ' ');
		if (end)
			*end = '\0';
		if (!strncmp(t, path, len) && (t[len] == '/' || !t[len])) {
			strbuf_reset(at);
			strbuf_addstr(at, t);
			found = true;
		}
	}
	fclose(f);
	return found;
}

unsigned long long journal_starttime(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long st = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_file_str(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');	/* comm may hold spaces */
	if (!p)
		return 0;
	/* field 22 is starttime; after ")" come fields 3.. */
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p, " %llu", &st);
	return st;
}

int journal_undo_cgroup(const char *path)
{
	struct strbuf procs = STRBUF_INIT, pprocs = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	int tries, r = -EBUSY;

	/* v1 has "tasks", v2 "cgroup.procs"; move them to the parent */
	strbuf_addf(&procs, "%s/cgroup.procs", path);
	strbuf_addf(&pprocs, "%.*s/cgroup.procs",
		    slash ? (int)(slash - path) : (int)strlen(path), path);
	for (tries = 0; tries < 50; tries++) {
		FILE *f = fopen(procs.buf, "re");
		char line[32];

		if (f) {
			while (fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\n")] = '\0';
				write_file_str(pprocs.buf, line);
			}
			fclose(f);
		}
		if (!rmdir(path) || errno == ENOENT) {
			r = 0;
			break;
		}
		if (errno != EBUSY) {
			r = -errno;
			break;
		}
		usleep(20000);
	}
	strbuf_release(&procs);
	strbuf_release(&pprocs);
	return r;
}

/*
 * Undo one entry; on success it is marked done and forgotten (e is gone),
 * on failure it stays, with the error, for the next try.
 */
int journal_undo(struct entry *e)
{
	int r = 0;

	if (!strcmp(e->kind, "dir")) {
		r = sys_rmtree(e->a);
	} else if (!strcmp(e->kind, "knob")) {
		r = write_file_str(e->a, e->b);
	} else if (!strcmp(e->kind, "mount")) {
		if (umount2(e->a, 0) && errno != EINVAL && errno != ENOENT) {
			if (umount2(e->a, MNT_DETACH) && errno != EINVAL)
				r = -errno;
		}
	} else if (!strcmp(e->kind, "cgroup")) {
		r = journal_undo_cgroup(e->a);
	} else if (!strcmp(e->kind, "loop")) {
		int fd = open(e->a, O_RDONLY | O_CLOEXEC);
		struct loop_info64 li;

		/* only if it still holds our file (lo_file_name is cut) */
		if (fd >= 0 && (ioctl(fd, LOOP_GET_STATUS64, &li) ||
				strncmp((char *)li.lo_file_name, e->b,
					sizeof(li.lo_file_name) - 1))) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			/* ENXIO: already free (autoclear did it) */
			if (ioctl(fd, LOOP_CLR_FD, 0) && errno != ENXIO)
				r = -errno;
			close(fd);
		}
	} else if (!strcmp(e->kind, "pid")) {
		pid_t pid = (pid_t)strtol(e->a, NULL, 10);
		unsigned long long st = strtoull(e->b, NULL, 10);

		if (pid > 0 && journal_starttime(pid) == st) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);	/* fails harmlessly if not ours */
		}
	}
	if (r) {
		struct strbuf at = STRBUF_INIT;

		e->err = r;
		if (!strcmp(e->kind, "dir") && mounted_below(e->a, &at))
			snprintf(e->why, sizeof(e->why), "%s (%.400s is mounted "
				 "in it)", strerror(-r), at.buf);
		else
			snprintf(e->why, sizeof(e->why), "%s", strerror(-r));
		strbuf_release(&at);
		return r;
	}
	journal_mark_done(e);
	return 0;
}

/* A word of a shell command, quoted when it must be. */
static void sh_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789/._-+=:,@") == strlen(s)) {
		strbuf_addf(sb, "%s", s);
		return;
	}
	strbuf_addf(sb, "'");
	for (; *s; s++)
		if (*s == '\'')
			strbuf_addf(sb, "'\\''");
		else
			strbuf_addf(sb, "%c", *s);
	strbuf_addf(sb, "'");
}

/* What a person runs to undo e by hand. */
static void by_hand(struct strbuf *sb, const struct entry *e)
{
	struct strbuf at = STRBUF_INIT;

	if (!strcmp(e->kind, "dir")) {
		if (mounted_below(e->a, &at)) {
			strbuf_addf(sb, "umount ");
			sh_word(sb, at.buf);
			strbuf_addf(sb, " && ");
		}
		strbuf_release(&at);
		strbuf_addf(sb, "rm -rf --one-file-system ");
		sh_word(sb, e->a);
	} else if (!strcmp(e->kind, "knob")) {
		strbuf_addf(sb, "echo ");
		sh_word(sb, e->b);
		strbuf_addf(sb, " > ");
		sh_word(sb, e->a);
	} else if (!strcmp(e->kind, "mount")) {
		strbuf_addf(sb, "umount ");
		sh_word(sb, e->a);
	} else if (!strcmp(e->kind, "cgroup")) {
		/* its tasks go to the parent first; child cgroups block it */
		strbuf_addf(sb, "rmdir ");
		sh_word(sb, e->a);
	} else if (!strcmp(e->kind, "loop")) {
		strbuf_addf(sb, "losetup -d ");
		sh_word(sb, e->a);
	} else if (!strcmp(e->kind, "pid")) {
		strbuf_addf(sb, "kill -9 %s", e->a);
	}
}

int sys_undo_failures(struct strbuf *sb, bool all)
{
	int i, n = 0;

	for (i = J.n - 1; i >= 0; i--) {
		struct entry *e = &J.e[i];

		if (e->done || !e->err)
			continue;
		n++;
		if (!sb || (e->told && !all))
			continue;
		e->told = true;
		strbuf_addf(sb, "%s%s %s: %s; by hand: ", sb->len ? "\n" : "",
			    e->kind, e->a, e->why);
		by_hand(sb, e);
	}
	return n;
}

int sys_undo_all(void)
{
	int i, n = 0;

	for (i = J.n - 1; i >= 0; i--)
		if (!J.e[i].done && journal_undo(&J.e[i]))
			n++;
	return n;
}

/* Read the journal a dead runner left; undo what it did not. */
static void mend(char *mended, size_t n)
{
	struct strbuf path = STRBUF_INIT;
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	size_t used = 0;
	int i;

	char boot[64] = "", now_boot[64] = "";
	bool other_boot;

	strbuf_addf(&path, "%s/journal", J.dir.buf);
	f = fopen(path.buf, "re");
	strbuf_release(&path);
	if (!f)
		return;
	read_file_str("/proc/sys/kernel/random/boot_id", now_boot,
		      sizeof(now_boot));
	J.loading = true;
	while (getline(&line, &cap, f) > 0) {
		char *id = strtok(line, "\t\n"), *kind = strtok(NULL, "\t\n");
		char *a = strtok(NULL, "\t\n"), *b = strtok(NULL, "\t\n");
		struct entry *e;

		if (!id || !kind)
			continue;
		if (!strcmp(kind, "boot")) {
			snprintf(boot, sizeof(boot), "%s", a ? a : "");
			continue;
		}
		if (!strcmp(kind, "done")) {
			for (i = 0; i < J.n; i++)
				if (J.e[i].id == atoi(id))
					forget(i--);
			continue;
		}
		if (!a)
			continue;
		/* loading: memory only */
		e = journal_record(kind, a, b);
		if (e)
			e->id = atoi(id);
	}
	free(line);
	fclose(f);
	J.loading = false;
	/*
	 * A journal from an earlier boot (a state dir that outlived a
	 * reboot): its mounts, cgroups, loops and knobs went with that boot;
	 * only its directories may still be there.
	 */
	other_boot = boot[0] && strcmp(boot, now_boot);
	for (i = J.n - 1; other_boot && i >= 0; i--)
		if (strcmp(J.e[i].kind, "dir"))
			forget(i);
	for (i = J.n - 1; i >= 0; i--) {
		struct entry *e = &J.e[i];
		char what[600];

		if (e->done)
			continue;
		snprintf(what, sizeof(what), "%s %.500s", e->kind, e->a);
		/* kept, with why, for sys_undo_failures */
		if (journal_undo(e))
			continue;
		if (mended && used < n) {
			int w = snprintf(mended + used, n - used, "%s%s",
					 used ? ", " : "", what);
			if (w > 0)
				used += (size_t)w;
		}
	}
}

/* Scratch dirs named foliobench.<pid> of pids that are gone. */
static void mend_scratch(const char *base, char *mended, size_t n)
{
	DIR *d = opendir(base);
	struct strbuf path = STRBUF_INIT;
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		long pid;
		char *end;

		if (strncmp(de->d_name, "foliobench.", 11))
			continue;
		pid = strtol(de->d_name + 11, &end, 10);
		if (*end || pid <= 0 || (kill((pid_t)pid, 0) == 0 &&
					 pid != getpid()))
			continue;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", base, de->d_name);
		/*
		 * Not in our journal: what cannot be removed (a mount of a
		 * runner with another state dir in it) is left to its own
		 * journal, neither mended nor ours to report.
		 */
		if (journal_find("dir", path.buf) || sys_rmtree(path.buf))
			continue;
		if (mended) {
			size_t used = strlen(mended);

			snprintf(mended + used, n - used, "%sdir %s",
				 used ? ", " : "", path.buf);
		}
	}
	strbuf_release(&path);
	closedir(d);
}

static int restart_journal(const char *boot);

/* Close the journal and release the lock, without undoing anything. */
static void sys_fini_lock(void)
{
	if (J.fd >= 0) {
		close(J.fd);
		J.fd = -1;
	}
	if (J.lock_fd >= 0) {
		close(J.lock_fd);
		J.lock_fd = -1;
	}
	if (J.machine_fd >= 0) {
		close(J.machine_fd);
		J.machine_fd = -1;
	}
}

/* Does fd still hold the file at path (not one removed or replaced)? */
static bool still_at(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * Lock the file at path: the one there after the lock is taken.  A lock
 * on a file that was removed (rm -rf of the state dir) or replaced while
 * we opened it holds nothing: the next runner locks the file it finds.
 */
static int take_lock(const char *path, pid_t *holder)
{
	char buf[32] = "";
	int fd, tries;

	for (tries = 0; tries < 100; tries++) {
		if (mkdir(J.dir.buf, 0755) && errno != EEXIST)
			return -errno;
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			if (holder) {
				*holder = 0;
				if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
					*holder = (pid_t)atoi(buf);
			}
			close(fd);
			return e == EWOULDBLOCK ? -EBUSY : -e;
		}
		if (still_at(fd, path))
			return fd;
		close(fd);
	}
	return -ESTALE;
}

/*
 * The machine's lock: an abstract unix socket of a fixed name, bound by
 * the runner that holds it.  The state dir's lock file guards its
 * journal, but $FOLIOBENCH_STATE (or rm -rf of the dir) gives a second
 * runner a lock of its own, and two runners then measure each other at
 * half speed.  No file stands for this one: nothing removes or moves it,
 * and the kernel releases it when the holder dies.  Its holder's pid is
 * the listener's, by SO_PEERCRED.
 */
static int take_machine_lock(pid_t *holder)
{
	static const char name[] = "\0foliobench/runner";
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) +
			sizeof(name) - 1;
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	int fd, e;

	memcpy(sa.sun_path, name, sizeof(name) - 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (!bind(fd, (struct sockaddr *)&sa, len) && !listen(fd, 8)) {
		J.machine_fd = fd;
		return 0;
	}
	e = errno;
	close(fd);
	if (e != EADDRINUSE)
		return -e;
	if (holder) {
		*holder = 0;
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    0);
		if (fd >= 0 && !connect(fd, (struct sockaddr *)&sa, len) &&
		    !getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
			*holder = cred.pid;
		if (fd >= 0)
			close(fd);
	}
	return -EBUSY;
}

int sys_init(char *mended, size_t n, pid_t *holder)
{
	struct strbuf path = STRBUF_INIT;
	char buf[32], buf2[64];
	int fd, e;

	if (mended && n)
		mended[0] = '\0';
	sys_state_dir();
	fd = take_machine_lock(holder);
	if (fd < 0)
		return fd;
	strbuf_addf(&path, "%s/lock", J.dir.buf);
	fd = take_lock(path.buf, holder);
	strbuf_release(&path);
	if (fd < 0) {
		sys_fini_lock();
		return fd;
	}
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0) {
		e = -errno;
		close(fd);
		sys_fini_lock();
		return e;
	}
	J.lock_fd = fd;
	/*
	 * Open the journal before mending, so that what is mended is marked
	 * done as it goes: a runner killed while mending is not followed by
	 * one that undoes it all again.
	 */
	strbuf_addf(&path, "%s/journal", J.dir.buf);
	J.fd = open(path.buf, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		    0644);
	strbuf_release(&path);
	if (J.fd < 0) {
		e = -errno;
		sys_fini_lock();
		return e;
	}
	mend(mended, n);
	mend_scratch("/dev/shm", mended, n);
	mend_scratch("/var/tmp", mended, n);
	if (read_file_str("/proc/sys/kernel/random/boot_id", buf2,
			  sizeof(buf2)))
		buf2[0] = '\0';
	return restart_journal(buf2);
}

/*
 * A fresh journal: this boot, then what could not be undone, renumbered,
 * so that it is tried again at the next start.  Written beside and renamed
 * over the old one: a runner killed here leaves one or the other whole.
 */
static int restart_journal(const char *boot)
{
	struct strbuf path = STRBUF_INIT, tmp = STRBUF_INIT;
	struct strbuf line = STRBUF_INIT;
	int fd, i, r = 0;

	strbuf_addf(&path, "%s/journal", J.dir.buf);
	strbuf_addf(&tmp, "%s/journal.new", J.dir.buf);
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
		  O_CLOEXEC, 0644);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	close(J.fd);
	J.fd = fd;
	J.next_id = 0;
	if (boot[0]) {
		strbuf_addf(&line, "0\tboot\t%s\n", boot);
		r = append(line.buf);
	}
	for (i = 0; i < J.n && !r; i++) {
		struct entry *e = &J.e[i];

		e->id = ++J.next_id;
		strbuf_reset(&line);
		strbuf_addf(&line, "%d\t%s\t%s\t%s\n", e->id, e->kind, e->a,
			    e->b);
		r = append(line.buf);
	}
	if (!r && rename(tmp.buf, path.buf))
		r = -errno;
	if (r) {
		unlink(tmp.buf);
		sys_fini_lock();
	}
out:
	strbuf_release(&line);
	strbuf_release(&tmp);
	strbuf_release(&path);
	return r;
}

int sys_fini(void)
{
	struct strbuf path = STRBUF_INIT;
	int left = sys_undo_all(), i;

	/*
	 * A journal that still holds something is the record to mend it.
	 * The one at the path may be another runner's (ours removed with the
	 * state dir, and a runner started since): only ours goes.
	 */
	strbuf_addf(&path, "%s/journal", J.dir.buf);
	if (J.fd >= 0 && !left && still_at(J.fd, path.buf))
		unlink(path.buf);
	strbuf_release(&path);
	sys_fini_lock();
	for (i = 0; i < J.n; i++) {
		free(J.e[i].a);
		free(J.e[i].b);
	}
	free(J.e);
	J.e = NULL;
	J.n = 0;
	return left;
}
