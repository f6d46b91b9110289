/*
 * `bench vm`: one boot of a kernel in a QEMU guest of a given shape, the
 * host's root shared read-only (9p) under a tmpfs overlay, an init of our
 * own (runner/vm_init.sh in a busybox initramfs with the kernel's own
 * modules), a command run in it, and the guest's run brought home into
 * the host's database with how the guest was made (schema/db_vm.h).
 */
#ifndef FB_VM_H
#define FB_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct vm_opts {
	const char *kernel;	/* release, kernel build tree or .deb file */
	unsigned smp, sockets, threads;	/* threads per core */
	bool numa;		/* one NUMA node per socket */
	uint64_t mem;		/* bytes */
	int cgroup;		/* 1 or 2 */
	const char *accel;	/* "auto", "kvm", "tcg" or "icount" */
	unsigned timeout_s;	/* QEMU is killed after this long */
	bool verbose;		/* the whole console, boot included */
	char *const *cmd;	/* the guest's bench arguments ("run", ...) */
	const char *sh;		/* or a shell command line (cmd NULL) */
	const char *db_path;	/* the host's database */
	const char *bench;	/* this bench, an absolute path */
};

struct vm_result {
	bool booted;		/* the guest's command started */
	int status;		/* its exit status, -1 when it did not end */
	int nruns;		/* runs brought home */
	double boot_s;		/* QEMU start to the command's start */
	double uptime_s;	/* the guest's uptime then (its kernel's view) */
	double cmd_s;		/* the command's own time */
	double wall_s;		/* QEMU start to exit */
	double first_sample_s;	/* QEMU start to the first sample, or NAN */
	char accel[8];		/* "kvm" or "tcg" */
};

/*
 * What vm_* return besides 0: codes in a range of their own (DB_ -1xxx,
 * REPORT_ -2xxx, RUNNER_ -3xxx, PLOT_ -4xxx, UPLOAD_ -5xxx, VM_ -6xxx),
 * mapped by bench/.
 */
enum vm_code {
	VM_EUSAGE = -6001,	/* a bad option or shape */
	VM_ENOKERNEL = -6002,	/* KERNEL is none of the three kinds */
	VM_ENOQEMU = -6003,	/* qemu or busybox missing, KVM asked of none */
	VM_EBOOT = -6004,	/* the guest did not reach or end its command */
	VM_EDB = -6005,		/* the run could not be brought home */
	VM_EINTERNAL = -6006,	/* out of memory, a temp file, a fork */
	VM_ESIGNAL = -6100,	/* VM_ESIGNAL - signo: interrupted */
};

/*
 * Boot o->kernel, run the command, bring its runs home into o->db_path
 * (made when missing).  res says what happened as far as it got.  0 when
 * the guest ran its command to the end (whatever its status), else a
 * vm_code with err set.  Everything it made (temp dir, guest) is gone on
 * return, on every path.
 */
int vm_boot(const struct vm_opts *o, struct vm_result *res,
	    struct strbuf *err);

/* The release of a kernel as vm_boot() would find it (for labels). */
int vm_kernel_release(const char *kernel, char *buf, size_t n,
		      struct strbuf *err);

/*
 * Which accelerator "auto" means here: 1 KVM (hardware virtualisation),
 * 0 TCG, with why in words added to why.
 */
int vm_accel_detect(struct strbuf *why);

#endif
