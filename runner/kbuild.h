/*
 * `bench kernel build`: a guest kernel made from a source tree and patches
 * (runner/kbuild.c).  The source is a Debian linux-source .deb, a kernel
 * tarball, an unpacked tree or a git tree at a ref; the config is
 * x86_64_defconfig + kvm_guest.config + the project's kernel/guest.config
 * (everything a `bench vm` guest needs built in); the result is kept in
 * the kernel cache under a key of source, patches, config, compiler and
 * name, as a directory `bench vm` boots (arch/x86/boot/bzImage,
 * include/config/kernel.release, .config, vmlinux, System.map).  Builds of
 * one source share a build directory, so the second kernel of a pair is
 * an incremental build of the first.
 */
#ifndef FB_KBUILD_H
#define FB_KBUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"

struct kbuild_opts {
	const char *src;		/* .deb, tarball, directory */
	const char *ref;		/* a git ref of src, or NULL */
	const char *const *patches;	/* diffs or mboxes, applied in order */
	size_t npatches;
	const char *name;		/* in the release, or NULL: the patches' */
	const char *fragment;		/* the guest fragment, NULL: the project's */
	unsigned jobs;			/* make -j, 0: the CPUs + 1 */
	bool progress;			/* a line redrawn on a terminal */
	bool dry;			/* key and release only: build nothing */
	bool config_only;		/* source, patches, config: no compile */
};

struct kbuild_result {
	char *dir;			/* the kernel, in the cache */
	char release[128];
	char key[17];
	bool cached;			/* found, not built */
	double seconds;			/* of the build, 0 when cached */
	unsigned compiled;		/* files compiled (CC lines) */
};

/*
 * What kbuild() returns besides 0: codes of their own (KB_ -7xxx), mapped
 * by bench/ to exit codes.
 */
enum kbuild_code {
	KB_EUSAGE = -7001,	/* a bad option, name or ref */
	KB_ENOSRC = -7002,	/* the source or a patch is not there */
	KB_ENOTOOL = -7003,	/* make, gcc, flex, bison, git... missing */
	KB_EPATCH = -7004,	/* a patch does not apply */
	KB_ECONFIG = -7005,	/* the fragment did not survive olddefconfig */
	KB_EBUILD = -7006,	/* the build failed */
	KB_EINTERNAL = -7007,	/* a temp file, the cache, a fork */
};

/* The kernel cache: $FOLIOBENCH_KERNEL_CACHE, else /var/cache/... */
const char *kbuild_cache(void);

/* mkdir -p path (mode 0755): 0 or -errno. */
int kbuild_mkdirs(const char *path);

/* The project's guest fragment (kernel/guest.config) of the tree this
 * bench was built in, or NULL (an installed bench: fb_kernel_fragment()). */
const char *kbuild_fragment(void);

/*
 * Build (or find in the cache) the kernel o asks for.  0 with res filled,
 * else a kbuild_code with err set.  A failed build leaves nothing in the
 * cache's built/ and the shared source tree as it was.  res is the
 * caller's to release, whatever kbuild() returned.
 */
int kbuild(const struct kbuild_opts *o, struct kbuild_result *res,
	   struct strbuf *err);
void kbuild_result_release(struct kbuild_result *res);

#endif
