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

/* A Debian linux-image .deb, unpacked once into the cache. */
static int kern_from_deb(const char *deb, struct kern *k, struct strbuf *err)
{
	const char *cache = kbuild_cache();
	const char *base = strrchr(deb, '/');
	char dir[4096], tmp[4200], name[256], udir[4200], boot[4200];
	char mods[4200];
	char sha[65];
	struct strbuf eo = STRBUF_INIT;
	int st;

	base = base ? base + 1 : deb;
	/* keyed by content: k.deb rebuilt, or two k.deb in two
	 * directories, are two kernels */
	if (vm_file_sha256(deb, sha, sizeof(sha))) {
		strbuf_addf(err, "cannot read %s", deb);
		return VM_ENOKERNEL;
	}
	snprintf(dir, sizeof(dir), "%s/unpacked/%.*s-%.16s", cache,
		 (int)(strlen(base) - 4), base, sha);
	if (!is_dir(dir)) {
		char *argv[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };

		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dir, (int)getpid());
		snprintf(udir, sizeof(udir), "%s/unpacked", cache);
		st = kbuild_mkdirs(udir);
		if (st) {
			strbuf_addf(err, "cannot create the kernel cache %s: "
				    "%s", udir, strerror(-st));
			return VM_EINTERNAL;
		}
		st = vm_spawn_wait(argv, NULL, &eo);
		if (st || rename(tmp, dir)) {
			char *rm[] = { "rm", "-rf", tmp, NULL };

			strbuf_addf(err, "cannot unpack %s with dpkg-deb: %s",
				    deb, eo.buf && eo.buf[0] ? eo.buf :
				    "it failed");
			vm_spawn_wait(rm, NULL, NULL);
			strbuf_release(&eo);
			return VM_ENOKERNEL;
		}
		strbuf_release(&eo);
	}
	snprintf(boot, sizeof(boot), "%s/boot", dir);
	snprintf(mods, sizeof(mods), "%s/lib/modules", dir);
	if (one_entry(boot, "vmlinuz-", name, sizeof(name)) != 1) {
		char *rm[] = { "rm", "-rf", dir, NULL };

		strbuf_addf(err, "%s: no single boot/vmlinuz-* in the package "
			    "(is it a linux-image package?)", deb);
		vm_spawn_wait(rm, NULL, NULL);	/* nothing of it kept */
		return VM_ENOKERNEL;
	}
	snprintf(k->image, sizeof(k->image), "%s/%s", boot, name);
	snprintf(k->release, sizeof(k->release), "%s", name + 8);
	snprintf(k->moddir, sizeof(k->moddir), "%s/%s", mods, k->release);
	if (!is_dir(k->moddir))
		k->moddir[0] = '\0';
	snprintf(k->config, sizeof(k->config), "%s/config-%s", boot,
		 k->release);
	return 0;
}

int vm_kern_find(const char *kernel, struct kern *k, struct strbuf *err)
{
	char p[4200];

	memset(k, 0, sizeof(*k));
	if (vm_ends_with(kernel, ".deb") && is_file(kernel))
		return kern_from_deb(kernel, k, err);
	snprintf(p, sizeof(p), "%s/arch/x86/boot/bzImage", kernel);
	if (is_dir(kernel) && is_file(p)) {
		/* a build tree: its modules where `make modules_install
		 * INSTALL_MOD_PATH=TREE` put them, else none (built in) */
		snprintf(k->image, sizeof(k->image), "%s", p);
		snprintf(p, sizeof(p), "%s/include/config/kernel.release",
			 kernel);
		if (read_file_str(p, k->release, sizeof(k->release)) ||
		    !k->release[0]) {
			strbuf_addf(err, "%s: a kernel tree without "
				    "include/config/kernel.release", kernel);
			return VM_ENOKERNEL;
		}
		snprintf(k->moddir, sizeof(k->moddir), "%s/lib/modules/%s",
			 kernel, k->release);
		if (!is_dir(k->moddir))
			k->moddir[0] = '\0';
		snprintf(k->config, sizeof(k->config), "%s/.config", kernel);
		return 0;
	}
	if (!strchr(kernel, '/')) {
		snprintf(k->image, sizeof(k->image), "/boot/vmlinuz-%s",
			 kernel);
		snprintf(k->release, sizeof(k->release), "%s", kernel);
		snprintf(k->moddir, sizeof(k->moddir), "/lib/modules/%s",
			 kernel);
		snprintf(k->config, sizeof(k->config), "/boot/config-%s",
			 kernel);
		if (is_file(k->image)) {
			if (!is_dir(k->moddir))
				k->moddir[0] = '\0';
			return 0;
		}
	}
	strbuf_addf(err, "kernel '%s': not an installed release (no "
		    "/boot/vmlinuz-%s), a kernel build tree "
		    "(arch/x86/boot/bzImage) or a linux-image .deb file",
		    kernel, kernel);
	return VM_ENOKERNEL;
}

int vm_kernel_release(const char *kernel, char *buf, size_t n,
		      struct strbuf *err)
{
	struct kern k;
	int r = vm_kern_find(kernel, &k, err);

	if (!r)
		snprintf(buf, n, "%s", k.release);
	return r;
}
