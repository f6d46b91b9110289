/*
 * What the files of `bench vm` share, and nothing else does: vm.c (the
 * boot's steps, in order), vm_kernel.c (finding the kernel), vm_initrd.c
 * (the initramfs), vm_scratch.c (the scratch disk), vm_tcg.c (what TCG
 * needs to boot in reasonable time), vm_qemu.c (the accelerator and
 * QEMU's command line), vm_cmd.c (the guest's command), vm_run.c (QEMU
 * run and its console followed), vm_home.c (the guest's runs brought
 * home) and vm_util.c (file and process helpers).
 */
#ifndef FB_VM_PRIV_H
#define FB_VM_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "vm.h"

#define QEMU "qemu-system-x86_64"

/* A kernel to boot; its paths released by vm_kern_release. */
struct kern {
	char *image;
	char *moddir;		/* lib/modules/R, NULL when there is none */
	char *config;		/* its .config (it may not be there) */
	char release[256];
};

/* An argv built an argument at a time, NULL-terminated. */
struct argv {
	char **v;
	size_t n, alloc;
};

/* One boot, as vm_boot() makes it on its way; released at its end. */
struct vm_guest {
	const struct vm_opts *o;
	struct vm_result *res;
	struct kern k;
	bool kvm, scratch;
	bool icount;		/* counting mode: -icount shift=0 */
	bool keep;		/* results not brought home: tmp/out kept */
	/* host directories under ones the guest mounts anew (/tmp...),
	 * shared read-only at the same path: bench's tree, the working
	 * directory, the files the command names */
	char *share[8];
	int nshare;
	char image_sha256[65];	/* of k.image, "" when unknown */
	char *tmp;		/* the temp dir, NULL until it is made */
	char why[256];		/* why this accelerator, in words */
	char *image;		/* what QEMU boots */
	char *image_desc;	/* and what that is, in words */
	char started[40];	/* when QEMU was started, ISO 8601 */
	struct strbuf ver;	/* QEMU's version line */
	struct strbuf shape, cmdline, cmd;
	struct argv qa;		/* QEMU's command line */
};

/* vm_util.c: files and processes. */
int vm_slurp(const char *path, struct strbuf *b);
int vm_spawn_wait(char *const *argv, struct strbuf *out,
		  struct strbuf *err_out);
bool vm_ends_with(const char *s, const char *suffix);
/* The SHA-256 of a file in hex into h (64 digits): 0, or -1 with h "". */
int vm_file_sha256(const char *path, char *h, size_t n);

/* vm_kernel.c: the image, modules and .config of a kernel. */
int vm_kern_find(const char *kernel, struct kern *k, struct strbuf *err);
void vm_kern_release(struct kern *k);

/* vm_initrd.c: busybox, /init and the modules the guest needs, at path. */
int vm_make_initrd(const struct kern *k, const char *path,
		   struct strbuf *notes, struct strbuf *err);

/* vm_scratch.c: the guest's /var/tmp, an ext4 image in dir. */
int vm_make_scratch(const char *dir, char *note, size_t nn);

/* vm_tcg.c: g's command line and image made quick to boot under TCG. */
void vm_tcg_prepare(struct vm_guest *g);

/* vm_qemu.c: the accelerator and QEMU's command line. */
int vm_accel_pick(struct vm_guest *g, struct strbuf *err);
int vm_qemu_version(struct strbuf *ver, struct strbuf *err);
void vm_shape_str(const struct vm_opts *o, struct strbuf *sb);
void vm_qemu_args(const struct vm_guest *g, struct argv *a);
void vm_argv_release(struct argv *a);

/* vm_cmd.c: the guest's command, a shell script at path, also in cmd. */
int vm_write_cmd(const struct vm_opts *o, const char *path,
		 struct strbuf *cmd, struct strbuf *err);

/* vm_run.c: QEMU run to its end, its console followed. */
int vm_qemu_run(const struct vm_opts *o, char *const *argv,
		const char *tmp, struct vm_result *res, struct strbuf *err);

/* vm_home.c: what the guest left in tmp, brought into o->db_path. */
int vm_home(const struct vm_guest *g, struct strbuf *err);

#endif
