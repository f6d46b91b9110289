/*
 * The kernel `bench vm` boots, from what the user named: an installed
 * release, a kernel build tree or a Debian linux-image .deb (unpacked
 * once into a cache, never installed).
 */
#include "vm_priv.h"
#include "kbuild.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode);
}

/* The one entry of dir whose name starts with prefix, into out. */
static int one_entry(const char *dir, const char *prefix, char *out,
		     size_t n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    !strncmp(e->d_name, prefix, strlen(prefix))) {
			if (!found)
				snprintf(out, n, "%s", e->d_name);
			found++;
		}
	closedir(d);
	return found;
}

/* The .deb into dir (a temp dir renamed), unless it is there. */
static int unpack_deb(const char *deb, const char *dir, struct strbuf *err)
{
	char *tmp = xstrfmt("%s.tmp.%d", dir, (int)getpid());
	char *udir = xstrfmt("%s/unpacked", kbuild_cache());
	char *argv[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };
	char *rm[] = { "rm", "-rf", tmp, NULL };
	struct strbuf eo = STRBUF_INIT;
	int st, r = 0;

	st = kbuild_mkdirs(udir);
	if (st) {
		strbuf_addf(err, "cannot create the kernel cache %s: %s", udir,
			    strerror(-st));
		r = VM_EINTERNAL;
	} else if (vm_spawn_wait(argv, NULL, &eo) || rename(tmp, dir)) {
		strbuf_addf(err, "cannot unpack %s with dpkg-deb: %s", deb,
			    eo.buf && eo.buf[0] ? eo.buf : "it failed");
		vm_spawn_wait(rm, NULL, NULL);
		r = VM_ENOKERNEL;
	}
	strbuf_release(&eo);
	free(tmp);
	free(udir);
	return r;
}

/* k's image, release and modules of an unpacked linux-image. */
static int kern_of_unpacked(const char *deb, const char *dir,
			    struct kern *k, struct strbuf *err)
{
	char *boot = xstrfmt("%s/boot", dir), name[256];

	if (one_entry(boot, "vmlinuz-", name, sizeof(name)) != 1) {
		char *rm[] = { "rm", "-rf", (char *)dir, NULL };

		strbuf_addf(err, "%s: no single boot/vmlinuz-* in the package "
			    "(is it a linux-image package?)", deb);
		vm_spawn_wait(rm, NULL, NULL);	/* nothing of it kept */
		free(boot);
		return VM_ENOKERNEL;
	}
	k->image = xstrfmt("%s/%s", boot, name);
	snprintf(k->release, sizeof(k->release), "%s", name + 8);
	k->moddir = xstrfmt("%s/lib/modules/%s", dir, k->release);
	k->config = xstrfmt("%s/config-%s", boot, k->release);
	free(boot);
	return 0;
}

/* A Debian linux-image .deb, unpacked once into the cache. */
static int kern_from_deb(const char *deb, struct kern *k, struct strbuf *err)
{
	const char *base = strrchr(deb, '/');
	char sha[65], *dir;
	int r = 0;

	base = base ? base + 1 : deb;
	/* keyed by content: k.deb rebuilt, or two k.deb in two
	 * directories, are two kernels */
	if (vm_file_sha256(deb, sha, sizeof(sha))) {
		strbuf_addf(err, "cannot read %s", deb);
		return VM_ENOKERNEL;
	}
	dir = xstrfmt("%s/unpacked/%.*s-%.16s", kbuild_cache(),
		      (int)(strlen(base) - 4), base, sha);
	if (!is_dir(dir))
		r = unpack_deb(deb, dir, err);
	if (!r)
		r = kern_of_unpacked(deb, dir, k, err);
	free(dir);
	return r;
}

/* A kernel build tree: its bzImage (there), release and modules. */
static int kern_from_tree(const char *kernel, struct kern *k,
			  struct strbuf *err)
{
	char *p = xstrfmt("%s/include/config/kernel.release", kernel);
	int r = read_file_str(p, k->release, sizeof(k->release));

	free(p);
	if (r || !k->release[0]) {
		strbuf_addf(err, "%s: a kernel tree without "
			    "include/config/kernel.release", kernel);
		return VM_ENOKERNEL;
	}
	/* its modules where `make modules_install INSTALL_MOD_PATH=TREE`
	 * put them, else none (built in) */
	k->moddir = xstrfmt("%s/lib/modules/%s", kernel, k->release);
	k->config = xstrfmt("%s/.config", kernel);
	return 0;
}

/* k as vm_kern_find found it: a moddir that is not there, none. */
static int kern_found(struct kern *k, int r)
{
	if (k->moddir && !is_dir(k->moddir)) {
		free(k->moddir);
		k->moddir = NULL;
	}
	if (r)
		vm_kern_release(k);
	return r;
}

int vm_kern_find(const char *kernel, struct kern *k, struct strbuf *err)
{
	char *p;

	memset(k, 0, sizeof(*k));
	if (vm_ends_with(kernel, ".deb") && is_file(kernel))
		return kern_found(k, kern_from_deb(kernel, k, err));
	p = xstrfmt("%s/arch/x86/boot/bzImage", kernel);
	if (is_dir(kernel) && is_file(p)) {
		k->image = p;
		return kern_found(k, kern_from_tree(kernel, k, err));
	}
	free(p);
	if (!strchr(kernel, '/')) {
		k->image = xstrfmt("/boot/vmlinuz-%s", kernel);
		snprintf(k->release, sizeof(k->release), "%s", kernel);
		k->moddir = xstrfmt("/lib/modules/%s", kernel);
		k->config = xstrfmt("/boot/config-%s", kernel);
		if (is_file(k->image))
			return kern_found(k, 0);
		vm_kern_release(k);
	}
	strbuf_addf(err, "kernel '%s': not an installed release (no "
		    "/boot/vmlinuz-%s), a kernel build tree "
		    "(arch/x86/boot/bzImage) or a linux-image .deb file",
		    kernel, kernel);
	return VM_ENOKERNEL;
}

void vm_kern_release(struct kern *k)
{
	free(k->image);
	free(k->moddir);
	free(k->config);
	k->image = k->moddir = k->config = NULL;
}

int vm_kernel_release(const char *kernel, char *buf, size_t n,
		      struct strbuf *err)
{
	struct kern k;
	int r = vm_kern_find(kernel, &k, err);

	if (!r)
		snprintf(buf, n, "%s", k.release);
	vm_kern_release(&k);
	return r;
}
