/*
 * The guest's initramfs: a newc cpio of busybox, runner/vm_init.sh as
 * /init, and the modules the guest needs, each after what it depends on,
 * in the order /init loads them.
 */
#include "vm_priv.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const char vm_init_sh[];		/* build/gen/vm_init.c */

#define BUSYBOX "/bin/busybox"

/* The modules the guest needs: 9p for the root and the share, overlay
 * for a writable root, virtio_blk and ext4 for the scratch disk, and what
 * the workloads mount (FUSE, loop, ext4). */
static const char *const wanted_mods[] = {
	"virtio_pci", "9pnet_virtio", "9p", "overlay", "virtio_blk", "fuse",
	"loop", "crc32c_generic", "ext4",
};

struct cpio {
	FILE *f;
	unsigned ino;
};

static void cpio_add(struct cpio *c, const char *name, unsigned mode,
		     const void *data, size_t len, unsigned rmaj,
		     unsigned rmin)
{
	static const char zero[4];
	size_t nl = strlen(name) + 1;

	fprintf(c->f, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X"
		"%08zX%08X", ++c->ino, mode, 0, 0, 1, 0, len, 0, 0, rmaj, rmin,
		nl, 0);
	fwrite(name, 1, nl, c->f);
	fwrite(zero, 1, (4 - (110 + nl) % 4) % 4, c->f);
	if (len) {
		fwrite(data, 1, len, c->f);
		fwrite(zero, 1, (4 - len % 4) % 4, c->f);
	}
}

struct mod {
	char name[64];		/* '-' as '_' */
	char *path;
};

static struct {
	struct mod *m;
	size_t n, alloc;
} mods;

static void mod_name(const char *file, char *out, size_t n)
{
	const char *b = strrchr(file, '/');
	size_t i;

	snprintf(out, n, "%s", b ? b + 1 : file);
	for (i = 0; out[i]; i++) {
		if (out[i] == '-')
			out[i] = '_';
		if (!strncmp(out + i, ".ko", 3) &&
		    (!out[i + 3] || out[i + 3] == '.')) {
			out[i] = '\0';
			break;
		}
	}
}

static int mod_walk(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type != FTW_F || !strstr(path, ".ko"))
		return 0;
	ALLOC_GROW(mods.m, mods.n + 1, mods.alloc);
	mod_name(path, mods.m[mods.n].name, sizeof(mods.m[0].name));
	mods.m[mods.n++].path = xstrdup(path);
	return 0;
}

static void mods_release(void)
{
	size_t i;

	for (i = 0; i < mods.n; i++)
		free(mods.m[i].path);
	free(mods.m);
	memset(&mods, 0, sizeof(mods));
}

/* The module's bytes, decompressed where the distribution compressed it. */
static int mod_read(const char *path, struct strbuf *b)
{
	char *argv[] = { NULL, "-dc", (char *)path, NULL };

	if (vm_ends_with(path, ".ko"))
		return vm_slurp(path, b);
	argv[0] = vm_ends_with(path, ".xz") ? "xz" : vm_ends_with(path, ".zst") ?
		  "zstd" : "gzip";
	return vm_spawn_wait(argv, b, NULL) ? -EIO : 0;
}

struct initrd {
	struct cpio c;
	const char *builtin;	/* modules.builtin */
	char loaded[64][64];
	int nloaded;
	struct strbuf *notes;	/* wanted but found nowhere */
};

/* Add name and what it depends on (first) to the initramfs, once. */
static int add_mod(struct initrd *ir, const char *name, int depth)
{
	struct strbuf b = STRBUF_INIT;
	char path[96], want[64];
	const char *dep;
	size_t i;
	int r = 0;

	if (depth > 16)
		return 0;
	for (i = 0; i < (size_t)ir->nloaded; i++)
		if (!strcmp(ir->loaded[i], name))
			return 0;
	for (i = 0; i < mods.n; i++)
		if (!strcmp(mods.m[i].name, name))
			break;
	if (i == mods.n) {
		snprintf(want, sizeof(want), "/%s.ko\n", name);
		if (!ir->builtin || !strstr(ir->builtin, want))
			strbuf_addf(ir->notes, "%s%s", ir->notes->len ? ", " :
				    "", name);
		return 0;
	}
	if (mod_read(mods.m[i].path, &b))
		return -EIO;
	/* the .modinfo strings: "depends=a,b" */
	for (dep = b.buf; dep && dep < b.buf + b.len;
	     dep = memchr(dep, '\0', b.len - (size_t)(dep - b.buf))) {
		dep++;
		if (dep + 8 < b.buf + b.len && !strncmp(dep, "depends=", 8))
			break;
	}
	if (dep && dep + 8 < b.buf + b.len && dep[8]) {
		char list[512], *save, *d;

		snprintf(list, sizeof(list), "%s", dep + 8);
		for (d = strtok_r(list, ",", &save); d && !r;
		     d = strtok_r(NULL, ",", &save)) {
			mod_name(d, want, sizeof(want));
			r = add_mod(ir, want, depth + 1);
		}
	}
	if (!r && ir->nloaded < (int)ARRAY_SIZE(ir->loaded)) {
		snprintf(ir->loaded[ir->nloaded], sizeof(ir->loaded[0]), "%s",
			 name);
		snprintf(path, sizeof(path), "mods/%03d-%s.ko", ir->nloaded++,
			 name);
		cpio_add(&ir->c, path, 0100644, b.buf, b.len, 0, 0);
	}
	strbuf_release(&b);
	return r;
}

int vm_make_initrd(const struct kern *k, const char *path,
		   struct strbuf *notes, struct strbuf *err)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys",
					    "mods", "newroot" };
	struct initrd ir = { .notes = notes };
	struct strbuf bb = STRBUF_INIT, builtin = STRBUF_INIT;
	char *p;
	size_t i;
	int r = 0;

	if (vm_slurp(BUSYBOX, &bb)) {
		strbuf_addf(err, "cannot read %s: %s (Debian's busybox-static)",
			    BUSYBOX, strerror(errno));
		return VM_ENOQEMU;
	}
	ir.c.f = fopen(path, "we");
	if (!ir.c.f) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		strbuf_release(&bb);
		return VM_EINTERNAL;
	}
	cpio_add(&ir.c, ".", 040755, NULL, 0, 0, 0);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		cpio_add(&ir.c, dirs[i], 040755, NULL, 0, 0, 0);
	cpio_add(&ir.c, "dev/console", 020600, NULL, 0, 5, 1);
	cpio_add(&ir.c, "bin/busybox", 0100755, bb.buf, bb.len, 0, 0);
	cpio_add(&ir.c, "init", 0100755, vm_init_sh, strlen(vm_init_sh), 0,
		 0);
	if (k->moddir) {
		p = xstrfmt("%s/modules.builtin", k->moddir);
		if (!vm_slurp(p, &builtin))
			ir.builtin = builtin.buf;
		free(p);
		p = xstrfmt("%s/kernel", k->moddir);
		nftw(p, mod_walk, 32, FTW_PHYS);
		free(p);
		for (i = 0; i < ARRAY_SIZE(wanted_mods) && !r; i++)
			r = add_mod(&ir, wanted_mods[i], 0);
		mods_release();
	}
	cpio_add(&ir.c, "TRAILER!!!", 0, NULL, 0, 0, 0);
	if (fclose(ir.c.f) || r) {
		strbuf_addf(err, "cannot write the initramfs %s: %s", path,
			    strerror(r ? -r : errno));
		r = VM_EINTERNAL;
	}
	strbuf_release(&bb);
	strbuf_release(&builtin);
	return r;
}
