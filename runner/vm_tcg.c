/*
 * What a guest under TCG needs to boot in reasonable time: the delay
 * loop's calibration skipped (lpj=), and the kernel's vmlinux entered
 * through PVH in place of a bzImage that would decompress itself
 * instruction by instruction.  A KVM guest boots the image as it is.
 */
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel's CONFIG_HZ from its .config, 0 when unknown. */
static unsigned kern_hz(const struct kern *k)
{
	struct strbuf c = STRBUF_INIT;
	const char *p;
	unsigned hz = 0;

	if (!k->config || vm_slurp(k->config, &c) || !c.buf)
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

	if (vm_slurp("/proc/cpuinfo", &c) || !c.buf)
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

/* All n bytes of p to fd, through short writes: 0 or -1. */
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

/* n bytes at p into a new file path: 0, or -1 with errno set. */
static int write_file(const char *path, const char *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int e;

	if (fd < 0)
		return -1;
	if (write_all(fd, p, n)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * The compressed kernel a bzImage carries: *off and *len in bz, and the
 * tool that decompresses it; NULL with why in note.
 */
static const char *bz_payload(const struct strbuf *bz, size_t *off,
			      size_t *len, char *note, size_t nn)
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
	const unsigned char *h = (const unsigned char *)bz->buf;
	size_t i;

	if (memcmp(h + 0x202, "HdrS", 4) ||
	    (h[0x206] | h[0x207] << 8) < 0x208) {
		snprintf(note, nn, "not a bzImage of boot protocol 2.08+");
		return NULL;
	}
	*off = (size_t)((h[0x1f1] ? h[0x1f1] : 4) + 1) * 512 + le32(h + 0x248);
	*len = le32(h + 0x24c);
	if (*len < 8 || *off + *len > bz->len) {
		snprintf(note, nn, "no payload in the bzImage header");
		return NULL;
	}
	for (i = 0; i < ARRAY_SIZE(fmt); i++)
		if (*len >= fmt[i].len &&
		    !memcmp(bz->buf + *off, fmt[i].magic, fmt[i].len))
			return fmt[i].tool;
	snprintf(note, nn, "its payload is in no format known here");
	return NULL;
}

/*
 * The uncompressed kernel of a bzImage, written to out, when it can boot
 * through PVH (CONFIG_PVH): 0, else -1 with why in note.  A TCG guest
 * spends 6-10 s decompressing a bzImage instruction by instruction; the
 * host's xz (gzip, zstd...) does it in under a second.  The same kernel,
 * entered at its PVH entry point rather than through the decompressor
 * (so without KASLR).
 */
static int pvh_vmlinux(const char *bzimage, const char *dir, char **out,
		       char *note, size_t nn)
{
	struct strbuf bz = STRBUF_INIT, vm = STRBUF_INIT, eo = STRBUF_INIT;
	char *payload = NULL;
	char *argv[4] = { NULL, "-dc", NULL, NULL };
	const char *tool;
	size_t off, len, cut;
	int r = -1;

	if ((r = vm_slurp(bzimage, &bz)) || bz.len < 0x250) {
		if (r)
			snprintf(note, nn, "cannot read it: %s", strerror(-r));
		else
			snprintf(note, nn, "%zu bytes, too short for a "
				 "bzImage", bz.len);
		r = -1;
		goto out;
	}
	tool = bz_payload(&bz, &off, &len, note, nn);
	if (!tool)
		goto out;
	payload = xstrfmt("%s/payload", dir);
	argv[0] = (char *)tool;
	argv[2] = payload;
	/* the payload as the header sizes it, else without the 4 bytes of
	 * the uncompressed size the build appends (xz stops at them; gzip
	 * reads its own trailer there, as its kernels size it) */
	for (cut = 0; cut <= 4; cut += 4) {
		strbuf_reset(&vm);
		strbuf_reset(&eo);
		if (write_file(payload, bz.buf + off, len - cut)) {
			snprintf(note, nn, "cannot write its payload: %s",
				 strerror(errno));
			goto out;
		}
		if (!vm_spawn_wait(argv, &vm, &eo) && vm.len)
			break;
	}
	strbuf_release(&bz);
	if (cut > 4) {
		snprintf(note, nn, "%s -dc failed on its payload", tool);
		goto out;
	}
	if (!elf_has_pvh((const unsigned char *)vm.buf, vm.len)) {
		snprintf(note, nn, "it has no PVH entry (CONFIG_PVH)");
		goto out;
	}
	*out = xstrfmt("%s/vmlinux", dir);
	if (write_file(*out, vm.buf, vm.len)) {
		snprintf(note, nn, "cannot write its vmlinux: %s",
			 strerror(errno));
		free(*out);
		*out = NULL;
		goto out;
	}
	r = 0;
out:
	if (payload)
		unlink(payload);
	free(payload);
	strbuf_release(&bz);
	strbuf_release(&vm);
	strbuf_release(&eo);
	return r;
}

void vm_tcg_prepare(struct vm_guest *g)
{
	unsigned hz = kern_hz(&g->k);
	/* counting: the guest's TSC runs at 1000 MHz of instructions */
	unsigned long long lpj = g->icount ? 1000000000ull / (hz ? hz : 100) :
				 tcg_lpj(&g->k);
	char note[200], *image = NULL;

	if (lpj)
		strbuf_addf(&g->cmdline, " lpj=%llu", lpj);
	if (!pvh_vmlinux(g->k.image, g->tmp, &image, note, sizeof(note))) {
		free(g->image);
		free(g->image_desc);
		g->image = image;
		g->image_desc = xstrfmt("%s (its vmlinux, decompressed here, "
					"entered through PVH)", g->k.image);
	} else
		fprintf(stderr, "bench: vm: %s: booting the bzImage itself "
			"(its decompression is slow under TCG): %s\n",
			g->k.release, note);
}
