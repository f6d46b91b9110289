/*
 * What workloads change on the system, each change recorded in a journal
 * before it is made, so that it is undone at exit, after SIGINT/SIGTERM,
 * and, after a crash or SIGKILL, by the next runner at its start.
 *
 * The journal lives in the state directory (/run/foliobench, or
 * $FOLIOBENCH_STATE): /run is cleared at boot, exactly like the mounts,
 * cgroups and knobs it records.  The same directory holds the machine-wide
 * lock that lets one runner in at a time.
 */
#ifndef FB_SYS_H
#define FB_SYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Take the lock and mend what a dead runner left (journal entries not
 * undone, scratch dirs of dead pids).  mended (may be NULL) gets a
 * human-readable list of what was mended.  Returns 0, -EBUSY when another
 * runner holds the lock (holder's pid in *holder), or -errno.
 */
int sys_init(char *mended, size_t n, pid_t *holder);
/*
 * Undo everything still recorded, newest first, and release the lock.
 * Returns how many changes could not be undone: they stay in the journal,
 * which is then kept, for the next start to try again.
 */
int sys_fini(void);
/* Undo everything still recorded, newest first (keeps the lock); same. */
int sys_undo_all(void);

struct strbuf;
/*
 * How many recorded changes could not be undone (at sys_init, what an
 * earlier run left; later, this run's).  With sb, one line each for people
 * is added: "cgroup PATH: Device or resource busy; by hand: rmdir PATH",
 * for those not reported yet, or all of them with all.
 */
int sys_undo_failures(struct strbuf *sb, bool all);

/*
 * Scratch directories of the runner's own, named with the pid:
 * <base>/foliobench.<pid>; removed recursively on undo.  Asked again in
 * one run, it hands back the same directory.
 */
int sys_scratch(const char *base, struct strbuf *out);

/* Remove such a directory (recursively) and its journal entry. */
int sys_scratch_remove(const char *path);

/* A sysfs/procfs knob: old value recorded, new one written. */
int sys_knob_set(const char *path, const char *value);
int sys_knob_restore(const char *path);

/* mount(2), recorded; sys_umount detaches it (lazily if busy). */
int sys_mount(const char *src, const char *target, const char *fstype,
	      unsigned long flags, const char *data);
int sys_umount(const char *target);
/* Record a mount that some other code makes (libfuse), before it is made. */
int sys_mount_record(const char *target);

/* A cgroup directory, recorded; on remove its tasks move to the parent. */
int sys_cgroup_mkdir(const char *path);
int sys_cgroup_rmdir(const char *path);

/* A loop device on file, detached on undo; dev gets "/dev/loopN". */
int sys_loop_attach(const char *file, char *dev, size_t n);
int sys_loop_detach(const char *dev);

/*
 * A child process: it runs fn(arg) (which never returns; the child exits
 * 0 if it does) or execs path with argv, stdin from /dev/null and
 * stdout and stderr on out (unless -1).  It keeps no descriptor of the
 * runner's from 3 up but those in keep (ended by -1; may be NULL), so no
 * lock or database outlives the runner in it.  Its pid is journalled until
 * it is reaped: a runner killed meanwhile has it ended by the next start.
 */
struct sys_child {
	pid_t pid;		/* 0 once reaped */
	int status;		/* waitpid's, after sys_child_finish */
};
struct sys_child_spec {
	void (*fn)(void *arg);
	void *arg;
	const char *path;
	const char *const *argv;
	const int *keep;
	int out;
};
int sys_child_start(struct sys_child *ch, const struct sys_child_spec *sp);
/* Reap it, after a SIGKILL when kill_it; 0 with ch->status, or -errno. */
int sys_child_finish(struct sys_child *ch, bool kill_it);

/* A helper process to kill (SIGKILL) on undo if still the same process. */
int sys_pid_record(pid_t pid);
int sys_pid_forget(pid_t pid);

/* rm -rf, staying on one filesystem; used by undo and by workloads. */
int sys_rmtree(const char *path);

/* The state directory in use. */
const char *sys_state_dir(void);

#endif
