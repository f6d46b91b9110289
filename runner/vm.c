/*
 * `bench vm`: boot a kernel in QEMU with the host's root read-only, run a
 * command in it and bring its runs home.  The steps, in order: find the
 * kernel's image and modules (a .deb is unpacked into a cache, never
 * installed), make an initramfs (busybox, runner/vm_init.sh as /init, the
 * modules the guest needs in load order), start QEMU on a temp dir shared
 * writable, follow its console, then record the guest in its database and
 * merge that into the host's.
 */
#include "vm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "schema/db.h"
#include "schema/db_vm.h"
#include "schema/merge.h"

extern const char vm_init_sh[];		/* build/gen/vm_init.c */

#define QEMU "qemu-system-x86_64"
#define BUSYBOX "/bin/busybox"
#define KERNEL_CACHE "/var/cache/foliobench/kernels"
#define GUEST_DB "/var/tmp/fbvm/results.db"

/* The modules the guest needs: 9p for the root and the share, overlay
 * for a writable root, virtio_blk and ext4 for the scratch disk, and what
 * the workloads mount (FUSE, loop, ext4). */
static const char *const wanted_mods[] = {
	"virtio_pci", "9pnet_virtio", "9p", "overlay", "virtio_blk", "fuse",
	"loop", "crc32c_generic", "ext4",
};

/* The guest's /var/tmp (the runner's disk scratch): an ext4 of this many
 * bytes on a virtio disk, a sparse file in the temp dir. */
#define SCRATCH_BYTES (16ull << 30)

struct kern {
	char image[4608];
	char moddir[4608];	/* lib/modules/R, "" when there is none */
	char config[4608];	/* its .config, "" when there is none */
	char release[256];
};

static int slurp(const char *path, struct strbuf *b)
{
	char chunk[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		strbuf_add(b, chunk, (size_t)n);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	if (!b->buf)
		strbuf_add(b, "", 0);
	return 0;
}

/*
 * Run argv with stdin from /dev/null and stdout into out (NULL: to
 * /dev/null); stderr into err_out when not NULL.  The exit status, or -1.
 */
static int spawn_wait(char *const *argv, struct strbuf *out,
		      struct strbuf *err_out)
{
	int po[2] = { -1, -1 }, pe[2] = { -1, -1 }, st;
	pid_t pid;
	char chunk[65536];
	ssize_t n;

	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC))
		goto fail;
	pid = fork();
	if (pid < 0)
		goto fail;
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	/* stdout first, then stderr: these tools say little on stderr */
	while ((n = read(po[0], chunk, sizeof(chunk))) > 0)
		if (out)
			strbuf_add(out, chunk, (size_t)n);
	while ((n = read(pe[0], chunk, sizeof(chunk))) > 0)
		if (err_out)
			strbuf_add(err_out, chunk, (size_t)n);
	close(po[0]);
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
fail:
	for (n = 0; n < 2; n++) {
		if (po[n] >= 0)
			close(po[n]);
		if (pe[n] >= 0)
			close(pe[n]);
	}
	return -1;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

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
	const char *cache = getenv("FOLIOBENCH_KERNEL_CACHE");
	const char *base = strrchr(deb, '/');
	char dir[4096], tmp[4200], name[256], boot[4200], mods[4200];
	struct strbuf eo = STRBUF_INIT;
	int st;

	if (!cache || !cache[0])
		cache = KERNEL_CACHE;
	base = base ? base + 1 : deb;
	snprintf(dir, sizeof(dir), "%s/unpacked/%.*s", cache,
		 (int)(strlen(base) - 4), base);
	if (!is_dir(dir)) {
		char *argv[] = { "dpkg-deb", "-x", (char *)deb, tmp, NULL };

		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dir, (int)getpid());
		snprintf(name, sizeof(name), "%s/unpacked", cache);
		if ((mkdir(cache, 0755) && errno != EEXIST) ||
		    (mkdir(name, 0755) && errno != EEXIST)) {
			strbuf_addf(err, "cannot create the kernel cache %s: "
				    "%s", name, strerror(errno));
			return VM_EINTERNAL;
		}
		st = spawn_wait(argv, NULL, &eo);
		if (st || rename(tmp, dir)) {
			char *rm[] = { "rm", "-rf", tmp, NULL };

			strbuf_addf(err, "cannot unpack %s with dpkg-deb: %s",
				    deb, eo.buf && eo.buf[0] ? eo.buf :
				    "it failed");
			spawn_wait(rm, NULL, NULL);
			strbuf_release(&eo);
			return VM_ENOKERNEL;
		}
		strbuf_release(&eo);
	}
	snprintf(boot, sizeof(boot), "%s/boot", dir);
	snprintf(mods, sizeof(mods), "%s/lib/modules", dir);
	if (one_entry(boot, "vmlinuz-", name, sizeof(name)) != 1) {
		strbuf_addf(err, "%s: no single boot/vmlinuz-* in the package "
			    "(is it a linux-image package?)", deb);
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

static int kern_find(const char *kernel, struct kern *k, struct strbuf *err)
{
	char p[4200];

	memset(k, 0, sizeof(*k));
	if (ends_with(kernel, ".deb") && is_file(kernel))
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
	int r = kern_find(kernel, &k, err);

	if (!r)
		snprintf(buf, n, "%s", k.release);
	return r;
}

int vm_accel_detect(char *why, size_t n)
{
	struct strbuf cpu = STRBUF_INIT;
	bool hw;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		snprintf(why, n, "TCG: /dev/kvm cannot be opened (%s)",
			 strerror(errno));
		return 0;
	}
	close(fd);
	if (!access("/sys/module/kvm_pvm", F_OK)) {
		snprintf(why, n, "TCG: /dev/kvm is PVM (the kvm_pvm module: "
			 "nested without hardware virtualisation; a stock "
			 "kernel's ring 0 is emulated instruction by "
			 "instruction and dies on lock cmpxchg16b)");
		return 0;
	}
	hw = !slurp("/proc/cpuinfo", &cpu) &&
	     (strstr(cpu.buf, " vmx") || strstr(cpu.buf, " svm"));
	strbuf_release(&cpu);
	if (!hw) {
		snprintf(why, n, "TCG: /dev/kvm is there but the CPU shows no "
			 "vmx or svm flag (no hardware virtualisation)");
		return 0;
	}
	snprintf(why, n, "KVM: /dev/kvm with hardware virtualisation (vmx "
		 "or svm)");
	return 1;
}

/* ---- the initramfs: a newc cpio of busybox, /init and the modules ---- */

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

	if (ends_with(path, ".ko"))
		return slurp(path, b);
	argv[0] = ends_with(path, ".xz") ? "xz" : ends_with(path, ".zst") ?
		  "zstd" : "gzip";
	return spawn_wait(argv, b, NULL) ? -EIO : 0;
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

static int make_initrd(const struct kern *k, const char *path,
		       struct strbuf *notes, struct strbuf *err)
{
	static const char *const dirs[] = { "bin", "dev", "proc", "sys",
					    "mods", "newroot" };
	struct initrd ir = { .notes = notes };
	struct strbuf bb = STRBUF_INIT, builtin = STRBUF_INIT;
	char p[4700];
	size_t i;
	int r = 0;

	if (slurp(BUSYBOX, &bb)) {
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
	if (k->moddir[0]) {
		snprintf(p, sizeof(p), "%s/modules.builtin", k->moddir);
		if (!slurp(p, &builtin))
			ir.builtin = builtin.buf;
		snprintf(p, sizeof(p), "%s/kernel", k->moddir);
		nftw(p, mod_walk, 32, FTW_PHYS);
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

/* ---- what TCG needs to boot in reasonable time ---- */

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The kernel's CONFIG_HZ from its .config, 0 when unknown. */
static unsigned kern_hz(const struct kern *k)
{
	struct strbuf c = STRBUF_INIT;
	const char *p;
	unsigned hz = 0;

	if (!k->config[0] || slurp(k->config, &c) || !c.buf)
		return 0;
	for (p = c.buf; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (!strncmp(p, "CONFIG_HZ=", 10)) {
			hz = (unsigned)strtoul(p + 10, NULL, 10);
			break;
		}
	}
	strbuf_release(&c);
	return hz;
}

/*
 * lpj= for a TCG guest, 0 for none.  Each vCPU a guest brings up
 * calibrates its delay loop against the timer; under TCG that calibration
 * fails on every AP ("calibrate_delay_direct() failed to get a good
 * estimate") and falls back to the slow converging loop: with 32 vCPUs on
 * 2 host CPUs it took about 50 s of an 85 s boot.  lpj= skips it.  TCG's
 * guest TSC ticks at the host's rate, so the value is TSC cycles per
 * guest jiffy (what the guest's udelay counts in): the host's TSC rate
 * (its bogomips are twice it in MHz on x86) rounded up to 100 MHz, so
 * that every boot on this host, and on its like, has the same command
 * line, and a delay is never shorter than asked; HZ from the kernel's
 * config, else 100 (a longer jiffy, again never shorter).
 */
static unsigned long long tcg_lpj(const struct kern *k)
{
#if defined(__x86_64__)
	struct strbuf c = STRBUF_INIT;
	const char *p;
	double bogo = 0;
	unsigned long long mhz;
	unsigned hz;

	if (slurp("/proc/cpuinfo", &c) || !c.buf)
		return 0;
	p = strstr(c.buf, "\nbogomips");
	if (p)
		p = strchr(p, ':');
	if (p)
		bogo = strtod(p + 1, NULL);
	strbuf_release(&c);
	if (!(bogo > 1 && bogo < 1e6))
		return 0;
	mhz = ((unsigned long long)(bogo / 2) / 100 + 1) * 100;
	hz = kern_hz(k);
	return mhz * 1000000ull / (hz ? hz : 100);
#else
	(void)k;
	return 0;
#endif
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* An ELF64 x86-64 image with Xen's PHYS32_ENTRY note: QEMU boots it
 * through PVH. */
static bool elf_has_pvh(const unsigned char *e, size_t n)
{
	uint64_t phoff;
	unsigned phnum, phentsize, i;

	if (n < 64 || memcmp(e, "\177ELF\2\1", 6) || e[18] != 62)
		return false;
	memcpy(&phoff, e + 32, 8);
	phentsize = e[54] | e[55] << 8;
	phnum = e[56] | e[57] << 8;
	for (i = 0; i < phnum; i++) {
		const unsigned char *ph = e + phoff + (uint64_t)i * phentsize;
		uint64_t off, sz, at;

		if (phoff + (uint64_t)(i + 1) * phentsize > n || phentsize < 56)
			return false;
		if (le32(ph) != 4)	/* PT_NOTE */
			continue;
		memcpy(&off, ph + 8, 8);
		memcpy(&sz, ph + 32, 8);
		if (off > n || sz > n - off)
			continue;
		for (at = off; at + 12 <= off + sz;) {
			uint32_t nsz = le32(e + at), dsz = le32(e + at + 4);
			uint32_t type = le32(e + at + 8);

			if (type == 18 && nsz == 4 && at + 16 <= n &&
			    !memcmp(e + at + 12, "Xen", 4))
				return true;
			at += 12 + ((nsz + 3) & ~3u) + ((dsz + 3) & ~3u);
		}
	}
	return false;
}

/*
 * The uncompressed kernel of a bzImage, written to out, when it can boot
 * through PVH (CONFIG_PVH): 0, else -1 with why in note.  A TCG guest
 * spends 6-10 s decompressing a bzImage instruction by instruction; the
 * host's xz (gzip, zstd...) does it in under a second.  The same kernel,
 * entered at its PVH entry point rather than through the decompressor
 * (so without KASLR).
 */
static int pvh_vmlinux(const char *bzimage, const char *dir, char *out,
		       size_t n, char *note, size_t nn)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *tool;
	} fmt[] = {
		{ "\375" "7zXZ", 6, "xz" }, { "\135\0\0", 3, "xz" },
		{ "\037\213", 2, "gzip" }, { "\050\265\057\375", 4, "zstd" },
		{ "BZh", 3, "bzip2" }, { "\002\041\114\030", 4, "lz4" },
	};
	struct strbuf bz = STRBUF_INIT, vm = STRBUF_INIT, eo = STRBUF_INIT;
	char payload[4200] = "";
	const unsigned char *h;
	size_t off, len, i;
	char *argv[4] = { NULL, "-dc", payload, NULL };
	int r = -1, fd;

	if (slurp(bzimage, &bz) || bz.len < 0x250) {
		snprintf(note, nn, "cannot read it: %s", strerror(errno));
		goto out;
	}
	h = (const unsigned char *)bz.buf;
	if (memcmp(h + 0x202, "HdrS", 4) || (h[0x206] | h[0x207] << 8) < 0x208) {
		snprintf(note, nn, "not a bzImage of boot protocol 2.08+");
		goto out;
	}
	off = (size_t)((h[0x1f1] ? h[0x1f1] : 4) + 1) * 512 + le32(h + 0x248);
	len = le32(h + 0x24c);
	/* the build appends the uncompressed size: 4 bytes */
	if (len < 8 || off + len > bz.len) {
		snprintf(note, nn, "no payload in the bzImage header");
		goto out;
	}
	len -= 4;
	for (i = 0; i < ARRAY_SIZE(fmt); i++)
		if (len >= fmt[i].len &&
		    !memcmp(bz.buf + off, fmt[i].magic, fmt[i].len))
			break;
	if (i == ARRAY_SIZE(fmt)) {
		snprintf(note, nn, "its payload is in no format known here");
		goto out;
	}
	snprintf(payload, sizeof(payload), "%.4000s/payload", dir);
	fd = open(payload, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, bz.buf + off, len)) {
		if (fd >= 0)
			close(fd);
		snprintf(note, nn, "cannot write its payload: %s",
			 strerror(errno));
		goto out;
	}
	close(fd);
	strbuf_release(&bz);
	argv[0] = (char *)fmt[i].tool;
	if (spawn_wait(argv, &vm, &eo) || !vm.buf) {
		snprintf(note, nn, "%s -dc failed on its payload", fmt[i].tool);
		goto out;
	}
	if (!elf_has_pvh((const unsigned char *)vm.buf, vm.len)) {
		snprintf(note, nn, "it has no PVH entry (CONFIG_PVH)");
		goto out;
	}
	snprintf(out, n, "%.4000s/vmlinux", dir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, vm.buf, vm.len)) {
		snprintf(note, nn, "cannot write its vmlinux: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	r = 0;
out:
	if (payload[0])
		unlink(payload);
	strbuf_release(&bz);
	strbuf_release(&vm);
	strbuf_release(&eo);
	return r;
}

/*
 * The guest's disk scratch: a sparse image in dir, made ext4 here (the
 * host's mkfs.ext4 takes a fraction of a second; under TCG it would take
 * many).  The guest mounts it on /var/tmp, where the runner's disk_scratch
 * is, so that what is measured on a disk is on one, not on tmpfs.  Inode
 * tables are left to be zeroed lazily, and the guest mounts with
 * noinit_itable, so no ext4lazyinit thread runs.  0, else -1 with why.
 */
static int make_scratch(const char *dir, char *note, size_t nn)
{
	static const char *const mkfs[] = {
		"/sbin/mkfs.ext4", "/usr/sbin/mkfs.ext4",
		"/usr/local/sbin/mkfs.ext4", NULL,
	};
	struct strbuf eo = STRBUF_INIT;
	char img[4200];
	const char *m = NULL;
	int fd, i, st;

	for (i = 0; mkfs[i] && !m; i++)
		if (!access(mkfs[i], X_OK))
			m = mkfs[i];
	if (!m) {
		snprintf(note, nn, "mkfs.ext4 not found (install e2fsprogs)");
		return -1;
	}
	snprintf(img, sizeof(img), "%.4000s/scratch.img", dir);
	fd = open(img, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)SCRATCH_BYTES)) {
		snprintf(note, nn, "cannot make a sparse %.200s: %s", img,
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	{
		char *argv[] = { (char *)m, "-q", "-F", "-b", "4096", "-L",
				 "fbscratch", "-E", "lazy_itable_init=1,"
				 "lazy_journal_init=1,nodiscard", img, NULL };

		st = spawn_wait(argv, NULL, &eo);
	}
	if (st) {
		snprintf(note, nn, "%s failed: %.200s", m,
			 eo.buf ? eo.buf : "(it said nothing)");
		strbuf_release(&eo);
		return -1;
	}
	strbuf_release(&eo);
	return 0;
}

/* ---- QEMU ---- */

struct argv {
	char **v;
	size_t n, alloc;
};

static void argv_add(struct argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void argv_add(struct argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die_oom(strlen(fmt));
	va_end(ap);
	if (a->n + 2 > a->alloc) {
		a->alloc = a->alloc ? a->alloc * 2 : 64;
		a->v = xrealloc(a->v, a->alloc * sizeof(*a->v));
	}
	a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void argv_release(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static void shape_str(const struct vm_opts *o, struct strbuf *sb)
{
	char m[32];

	format_size(o->mem, m, sizeof(m));
	strbuf_addf(sb, "smp=%u sockets=%u threads=%u numa=%s mem=%s "
		    "cgroup=v%d", o->smp, o->sockets, o->threads,
		    o->numa ? "on" : "off", m, o->cgroup);
}

static void qemu_args(const struct vm_opts *o, bool kvm, const char *tmp,
		      const char *image, const char *cmdline, bool scratch,
		      struct argv *a)
{
	unsigned cores = o->smp / o->sockets / o->threads, s;
	uint64_t mib = o->mem >> 20;

	argv_add(a, QEMU);
	argv_add(a, "-nodefaults");
	argv_add(a, "-no-user-config");
	argv_add(a, "-display");
	argv_add(a, "none");
	argv_add(a, "-no-reboot");
	argv_add(a, "-machine");
	argv_add(a, "q35");
	argv_add(a, "-accel");
	argv_add(a, kvm ? "kvm" : "tcg,thread=multi");
	argv_add(a, "-cpu");
	argv_add(a, kvm ? "host" : "max");
	argv_add(a, "-smp");
	argv_add(a, "%u,sockets=%u,cores=%u,threads=%u", o->smp, o->sockets,
		 cores, o->threads);
	argv_add(a, "-m");
	argv_add(a, "%lluM", (unsigned long long)mib);
	for (s = 0; o->numa && s < o->sockets; s++) {
		argv_add(a, "-object");
		argv_add(a, "memory-backend-ram,id=mem%u,size=%lluM", s,
			 (unsigned long long)(mib / o->sockets));
		argv_add(a, "-numa");
		argv_add(a, "node,nodeid=%u,cpus=%u-%u,memdev=mem%u", s,
			 s * cores * o->threads,
			 (s + 1) * cores * o->threads - 1, s);
	}
	argv_add(a, "-kernel");
	argv_add(a, "%s", image);
	argv_add(a, "-initrd");
	argv_add(a, "%s/initrd.cpio", tmp);
	argv_add(a, "-append");
	argv_add(a, "%s", cmdline);
	argv_add(a, "-fsdev");
	argv_add(a, "local,id=fbroot,path=/,security_model=none,readonly=on,"
		 "multidevs=remap");
	argv_add(a, "-device");
	argv_add(a, "virtio-9p-pci,fsdev=fbroot,mount_tag=fbroot");
	argv_add(a, "-fsdev");
	argv_add(a, "local,id=fbout,path=%s/out,security_model=none,"
		 "multidevs=remap", tmp);
	argv_add(a, "-device");
	argv_add(a, "virtio-9p-pci,fsdev=fbout,mount_tag=fbout");
	if (scratch) {
		argv_add(a, "-drive");
		argv_add(a, "file=%s/scratch.img,format=raw,if=none,"
			 "id=scratch,cache=unsafe", tmp);
		argv_add(a, "-device");
		argv_add(a, "virtio-blk-pci,drive=scratch,serial=fbscratch");
	}
	argv_add(a, "-chardev");
	argv_add(a, "file,id=con,path=%s/console.log", tmp);
	argv_add(a, "-serial");
	argv_add(a, "chardev:con");
}

/* The command the guest runs, as a shell script: quoted argv. */
static void shell_quote(struct strbuf *sb, const char *s)
{
	strbuf_addf(sb, "'");
	for (; *s; s++)
		strbuf_addf(sb, *s == '\'' ? "'\\''" : "%c", *s);
	strbuf_addf(sb, "'");
}

static int write_cmd(const struct vm_opts *o, const char *path,
		     struct strbuf *cmd, struct strbuf *err)
{
	char cwd[4096];
	size_t i;
	FILE *f;
	bool run = o->cmd && o->cmd[0] && !strcmp(o->cmd[0], "run");

	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	strbuf_addf(cmd, "cd ");
	shell_quote(cmd, cwd);
	strbuf_addf(cmd, " 2>/dev/null || cd /\nexport HOME=/root TERM=dumb "
		    "FOLIOBENCH_VM=1 PATH=/usr/local/sbin:/usr/local/bin:"
		    "/usr/sbin:/usr/bin:/sbin:/bin\nexport FB_BIN=");
	shell_quote(cmd, o->bench);
	strbuf_addf(cmd, "\nmkdir -p /var/tmp/fbvm\n");
	if (o->sh) {
		strbuf_addf(cmd, "sh -c ");
		shell_quote(cmd, o->sh);
	} else {
		shell_quote(cmd, o->bench);
		for (i = 0; o->cmd && o->cmd[i]; i++) {
			strbuf_addf(cmd, " ");
			shell_quote(cmd, o->cmd[i]);
		}
		if (run)
			strbuf_addf(cmd, " --db " GUEST_DB);
	}
	strbuf_addf(cmd, "\nst=$?\nfor f in " GUEST_DB " " GUEST_DB "-wal; do "
		    "[ -e \"$f\" ] && cp \"$f\" /run/fbvm/; done\nexit $st\n");
	f = fopen(path, "we");
	if (!f || fputs(strbuf_str(cmd), f) < 0 || fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		return VM_EINTERNAL;
	}
	return 0;
}

static double mono_s(void)
{
	return (double)now_ns() / 1e9;
}

static volatile sig_atomic_t vm_signal;

static void on_signal(int sig)
{
	vm_signal = sig;
}

/* The console so far, from *off: lines to the terminal as they come. */
struct follow {
	int fd;
	off_t off;
	struct strbuf line;
	bool in_cmd, verbose;
	bool started, ended;
	double t0, start_s, end_s;	/* when the markers came, after t0 */
};

static void follow_line(struct follow *f, char *l)
{
	size_t n = strlen(l);

	while (n && (l[n - 1] == '\r' || l[n - 1] == '\n'))
		l[--n] = '\0';
	if (strstr(l, "foliobench-vm: command start")) {
		f->in_cmd = f->started = true;
		f->start_s = mono_s() - f->t0;
		if (!f->verbose)
			return;
	} else if (strstr(l, "foliobench-vm: command end")) {
		f->in_cmd = false;
		f->ended = true;
		f->end_s = mono_s() - f->t0;
		if (!f->verbose)
			return;
	}
	if (f->verbose || f->in_cmd)
		printf("%s\n", l);
	else if (strstr(l, "foliobench-vm: "))
		fprintf(stderr, "bench: guest: %s\n",
			strstr(l, "foliobench-vm: ") + 15);
}

static void follow(struct follow *f)
{
	char chunk[16384];
	ssize_t n;

	while ((n = pread(f->fd, chunk, sizeof(chunk), f->off)) > 0) {
		ssize_t i, s = 0;

		f->off += n;
		for (i = 0; i < n; i++)
			if (chunk[i] == '\n') {
				strbuf_add(&f->line, chunk + s,
					   (size_t)(i - s));
				follow_line(f, f->line.buf);
				strbuf_reset(&f->line);
				s = i + 1;
			}
		strbuf_add(&f->line, chunk + s, (size_t)(n - s));
	}
	fflush(stdout);
}

/* Start QEMU, follow the console until it exits (or the time is up, or a
 * signal came: then it is killed).  0, or VM_ESIGNAL - sig, VM_EBOOT. */
static int qemu_run(const struct vm_opts *o, char *const *argv,
		    const char *tmp, struct vm_result *res,
		    struct strbuf *err)
{
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	double t0 = mono_s();
	struct follow f = { .fd = -1, .verbose = o->verbose, .t0 = t0 };
	char path[4200];
	pid_t pid;
	int st = 0, i, r = 0, logfd;
	bool timed_out = false;

	vm_signal = 0;
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
	snprintf(path, sizeof(path), "%s/qemu.log", tmp);
	logfd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	snprintf(path, sizeof(path), "%s/console.log", tmp);
	close(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
	pid = fork();
	if (pid < 0) {
		strbuf_addf(err, "cannot fork: %s", strerror(errno));
		r = VM_EINTERNAL;
		goto out;
	}
	if (!pid) {
		int nul = open("/dev/null", O_RDWR);

		for (i = 0; i < 3; i++)
			signal(sigs[i], SIG_DFL);
		/* its own process group: a ^C reaches us, and we stop it;
		 * and it dies with us, even with a SIGKILL */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(nul, 0);
		dup2(logfd >= 0 ? logfd : nul, 1);
		dup2(logfd >= 0 ? logfd : nul, 2);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	f.fd = open(path, O_RDONLY | O_CLOEXEC);
	for (;;) {
		struct timespec ts = { 0, 200 * 1000 * 1000 };
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (f.fd >= 0)
			follow(&f);
		if (w == pid)
			break;
		if (vm_signal || (o->timeout_s &&
				  mono_s() - t0 > o->timeout_s)) {
			timed_out = !vm_signal;
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			break;
		}
		nanosleep(&ts, NULL);
	}
	if (f.fd >= 0) {
		follow(&f);
		if (f.line.len)
			follow_line(&f, f.line.buf);
	}
	res->wall_s = mono_s() - t0;
	res->booted = f.started;
	res->boot_s = f.started ? f.start_s : NAN;
	res->cmd_s = f.ended ? f.end_s - f.start_s : NAN;
	if (vm_signal) {
		strbuf_addf(err, "interrupted: the guest was stopped");
		r = VM_ESIGNAL - vm_signal;
	} else if (timed_out) {
		strbuf_addf(err, "the guest ran past --timeout %u s and was "
			    "stopped", o->timeout_s);
		r = VM_EBOOT;
	} else if (!f.ended) {
		strbuf_addf(err, "QEMU exited (%s %d) before the guest's "
			    "command ended", WIFEXITED(st) ? "status" :
			    "signal", WIFEXITED(st) ? WEXITSTATUS(st) :
			    WTERMSIG(st));
		r = VM_EBOOT;
	}
out:
	if (f.fd >= 0)
		close(f.fd);
	if (logfd >= 0)
		close(logfd);
	strbuf_release(&f.line);
	for (i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	return r;
}

/* The last lines of a file, for an error message. */
static void tail_of(const char *path, int lines, struct strbuf *sb)
{
	struct strbuf b = STRBUF_INIT;
	const char *p;
	int n = 0;

	if (slurp(path, &b) || !b.len) {
		strbuf_release(&b);
		return;
	}
	for (p = b.buf + b.len - 1; p > b.buf; p--)
		if (*p == '\n' && ++n > lines)
			break;
	strbuf_addf(sb, "\n%s:\n%s", path, p == b.buf ? p : p + 1);
	strbuf_release(&b);
}

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

struct home {
	const struct vm_opts *o;
	struct vm_result *res;
};

static int said_home(const struct db_vm_run *run, void *arg)
{
	struct home *h = arg;

	h->res->nruns++;
	if (!isnan(run->first_sample_s) && (isnan(h->res->first_sample_s) ||
	    run->first_sample_s < h->res->first_sample_s))
		h->res->first_sample_s = run->first_sample_s;
	fprintf(stderr, "bench: vm: run %s (label %s, kernel %s, boot %.8s, "
		"%s) brought home into %s\n", run->uuid, run->label,
		run->kernel_release, run->boot_id, run->status,
		h->o->db_path);
	return 0;
}

/* Record the guest in its database, then merge that into the host's. */
static int bring_home(const struct vm_opts *o, const char *tmp,
		      const struct db_vm *vm, struct vm_result *res,
		      struct strbuf *err)
{
	struct home h = { o, res };
	struct db_merge_stats ms;
	struct db g = { 0 }, out = { 0 };
	char path[4200];
	int r;

	snprintf(path, sizeof(path), "%s/out/results.db", tmp);
	if (access(path, F_OK))
		return 0;	/* the command stored nothing */
	r = db_open(&g, path, false);
	if (!r)
		r = db_vm_attach(&g, vm, said_home, &h);
	if (r) {
		strbuf_addf(err, "cannot record the guest in its database "
			    "%s: %s", path, g.err);
		db_close(&g);
		return VM_EDB;
	}
	db_close(&g);
	r = db_open(&out, o->db_path, true);
	if (!r)
		r = db_merge(&out, path, &ms);
	if (r) {
		strbuf_addf(err, "cannot merge the guest's runs into %s: %s",
			    o->db_path, out.err);
		db_close(&out);
		return VM_EDB;
	}
	db_close(&out);
	return 0;
}

static void iso_now_ms(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, n, "%s.%03dZ", s, (int)(ts.tv_nsec / 1000000));
}

static void json_argv(char *const *v, struct strbuf *sb)
{
	size_t i;

	strbuf_addf(sb, "[");
	for (i = 0; v[i]; i++) {
		if (i)
			strbuf_addf(sb, ", ");
		strbuf_json_str(sb, v[i]);
	}
	strbuf_addf(sb, "]");
}

/*
 * The directory of the host's under which path lies that the guest mounts
 * anew, its own (runner/vm_init.sh): a file there is not the guest's to
 * see; NULL where path is the host's in the guest too.
 */
static const char *guest_own_dir(const char *path)
{
	static const char *const own[] = {
		"/tmp", "/run", "/dev", "/proc", "/sys", "/var/tmp", NULL,
	};
	int i;

	for (i = 0; own[i]; i++) {
		size_t n = strlen(own[i]);

		if (!strncmp(path, own[i], n) &&
		    (path[n] == '/' || !path[n]))
			return own[i];
	}
	return NULL;
}

int vm_boot(const struct vm_opts *o, struct vm_result *res,
	    struct strbuf *err)
{
	struct strbuf shape = STRBUF_INIT, cmdline = STRBUF_INIT;
	struct strbuf cmd = STRBUF_INIT, args = STRBUF_INIT;
	struct strbuf notes = STRBUF_INIT;
	struct strbuf ver = STRBUF_INIT, con = STRBUF_INIT;
	struct strbuf kmsg = STRBUF_INIT, bs = STRBUF_INIT;
	struct argv qa = { 0 };
	char tmp[4096], path[4200], why[256], started[40];
	char image[4700], image_desc[4800];
	const char *tdir = getenv("TMPDIR");
	struct kern k;
	bool kvm, scratch;
	int r;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	res->boot_s = res->first_sample_s = res->uptime_s = res->cmd_s = NAN;
	if (!o->smp || !o->sockets || !o->threads ||
	    o->smp % (o->sockets * o->threads)) {
		strbuf_addf(err, "--smp %u is not a whole number of sockets "
			    "(%u) times threads per core (%u)", o->smp,
			    o->sockets, o->threads);
		return VM_EUSAGE;
	}
	if (o->numa && (o->mem >> 20) % o->sockets) {
		strbuf_addf(err, "--mem does not split evenly over %u NUMA "
			    "nodes", o->sockets);
		return VM_EUSAGE;
	}
	if (o->bench && guest_own_dir(o->bench)) {
		strbuf_addf(err, "%s lies under %s, which the guest mounts "
			    "anew (its own): run a foliobench built or "
			    "installed elsewhere", o->bench,
			    guest_own_dir(o->bench));
		return VM_EUSAGE;
	}
	r = kern_find(o->kernel, &k, err);
	if (r)
		return r;
	snprintf(image_desc, sizeof(image_desc), "%s", k.image);
	if (!strcmp(o->accel, "auto")) {
		kvm = vm_accel_detect(why, sizeof(why));
	} else {
		char d[200];

		kvm = !strcmp(o->accel, "kvm");
		vm_accel_detect(d, sizeof(d));
		snprintf(why, sizeof(why), "%s, asked (--accel %s); here "
			 "auto would choose %s", kvm ? "KVM" : "TCG",
			 o->accel, d);
		if (kvm && access("/dev/kvm", R_OK | W_OK)) {
			strbuf_addf(err, "--accel kvm: /dev/kvm cannot be "
				    "opened: %s", strerror(errno));
			return VM_ENOQEMU;
		}
	}
	snprintf(res->accel, sizeof(res->accel), "%s", kvm ? "kvm" : "tcg");
	{
		char *argv[] = { QEMU, "--version", NULL };

		if (spawn_wait(argv, &ver, NULL) || !ver.buf) {
			strbuf_addf(err, "cannot run %s: is Debian's "
				    "qemu-system-x86 installed?", QEMU);
			strbuf_release(&ver);
			return VM_ENOQEMU;
		}
		ver.buf[strcspn(ver.buf, "\n")] = '\0';
	}
	snprintf(tmp, sizeof(tmp), "%s/foliobench-vm.XXXXXX",
		 tdir && tdir[0] ? tdir : "/tmp");
	if (!mkdtemp(tmp)) {
		strbuf_addf(err, "cannot create a temp dir %s: %s", tmp,
			    strerror(errno));
		strbuf_release(&ver);
		return VM_EINTERNAL;
	}
	snprintf(path, sizeof(path), "%s/out", tmp);
	if (mkdir(path, 0755)) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		r = VM_EINTERNAL;
		goto out;
	}
	snprintf(path, sizeof(path), "%s/initrd.cpio", tmp);
	r = make_initrd(&k, path, &notes, err);
	if (r)
		goto out;
	if (notes.len)
		fprintf(stderr, "bench: vm: %s: modules found neither as files "
			"nor built in: %s\n", k.release, notes.buf);
	snprintf(path, sizeof(path), "%s/out/cmd.sh", tmp);
	r = write_cmd(o, path, &cmd, err);
	if (r)
		goto out;
	shape_str(o, &shape);
	strbuf_addf(&cmdline, "console=ttyS0 quiet panic=-1 rdinit=/init "
		    "fb.cgroup=v%d%s", o->cgroup, o->cgroup == 2 ?
		    " cgroup_no_v1=all" : "");
	snprintf(image, sizeof(image), "%s", k.image);
	if (!kvm) {
		/* TCG only: what emulation makes slow (see each helper); a
		 * KVM guest boots the image as it is */
		unsigned long long lpj = tcg_lpj(&k);
		char note[200];

		if (lpj)
			strbuf_addf(&cmdline, " lpj=%llu", lpj);
		if (!pvh_vmlinux(k.image, tmp, image, sizeof(image), note,
				 sizeof(note)))
			snprintf(image_desc, sizeof(image_desc), "%s (its "
				 "vmlinux, decompressed here, entered through "
				 "PVH)", k.image);
		else
			fprintf(stderr, "bench: vm: %s: booting the bzImage "
				"itself (its decompression is slow under TCG): "
				"%s\n", k.release, note);
	}
	{
		char note[300];

		scratch = !make_scratch(tmp, note, sizeof(note));
		if (!scratch)
			fprintf(stderr, "bench: vm: no scratch disk (%s): the "
				"guest's /var/tmp is on tmpfs\n", note);
	}
	qemu_args(o, kvm, tmp, image, strbuf_str(&cmdline), scratch, &qa);
	json_argv(qa.v, &args);
	fprintf(stderr, "bench: vm: booting %s (%s) with %s, %s\n", k.release,
		image_desc, shape.buf, kvm ? "KVM" : "TCG");
	iso_now_ms(started, sizeof(started));
	r = qemu_run(o, qa.v, tmp, res, err);
	if (r) {
		if (r == VM_EBOOT) {
			snprintf(path, sizeof(path), "%s/qemu.log", tmp);
			tail_of(path, 10, err);
			snprintf(path, sizeof(path), "%s/console.log", tmp);
			tail_of(path, 20, err);
		}
		goto out;
	}
	snprintf(path, sizeof(path), "%s/out/status", tmp);
	if (!slurp(path, &bs))
		res->status = atoi(bs.buf);
	strbuf_release(&bs);
	snprintf(path, sizeof(path), "%s/out/boot_s", tmp);
	if (!slurp(path, &bs))
		res->uptime_s = strtod(bs.buf, NULL);
	snprintf(path, sizeof(path), "%s/console.log", tmp);
	slurp(path, &con);
	snprintf(path, sizeof(path), "%s/out/kmsg", tmp);
	slurp(path, &kmsg);
	{
		struct db_vm vm = {
			.accel = res->accel, .accel_why = why,
			.shape = shape.buf, .kernel = o->kernel,
			.kernel_image = image_desc, .qemu_version = ver.buf,
			.qemu_args = args.buf, .guest_cmdline = cmdline.buf,
			.command = cmd.buf, .started_at = started,
			.boot_s = res->boot_s, .wall_s = res->wall_s,
			.console = con.buf ? con.buf : "",
			.kmsg = kmsg.buf ? kmsg.buf : "",
		};

		r = bring_home(o, tmp, &vm, res, err);
	}
out:
	nftw(tmp, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	argv_release(&qa);
	strbuf_release(&ver);
	strbuf_release(&con);
	strbuf_release(&kmsg);
	strbuf_release(&bs);
	strbuf_release(&shape);
	strbuf_release(&cmdline);
	strbuf_release(&cmd);
	strbuf_release(&args);
	strbuf_release(&notes);
	return r;
}
