/*
 * What QEMU is given: the accelerator (KVM where it is hardware
 * virtualisation, else TCG, or what --accel asked) and its command line
 * for the guest's shape, kernel, initramfs, shares and disks.
 */
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int vm_accel_detect(struct strbuf *why)
{
	struct strbuf cpu = STRBUF_INIT;
	bool hw;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		strbuf_addf(why, "TCG: /dev/kvm cannot be opened (%s)",
			    strerror(errno));
		return 0;
	}
	close(fd);
	if (!access("/sys/module/kvm_pvm", F_OK)) {
		strbuf_addf(why, "TCG: /dev/kvm is PVM (the kvm_pvm module: "
			    "nested without hardware virtualisation; a stock "
			    "kernel's ring 0 is emulated instruction by "
			    "instruction and dies on lock cmpxchg16b)");
		return 0;
	}
	hw = !vm_slurp("/proc/cpuinfo", &cpu) &&
	     (strstr(cpu.buf, " vmx") || strstr(cpu.buf, " svm"));
	strbuf_release(&cpu);
	if (!hw) {
		strbuf_addf(why, "TCG: /dev/kvm is there but the CPU shows no "
			    "vmx or svm flag (no hardware virtualisation)");
		return 0;
	}
	strbuf_addf(why, "KVM: /dev/kvm with hardware virtualisation (vmx "
		    "or svm)");
	return 1;
}

/* g->kvm and why, from --accel; VM_ENOQEMU where KVM is asked of none. */
int vm_accel_pick(struct vm_guest *g, struct strbuf *err)
{
	const char *accel = g->o->accel;
	struct strbuf d = STRBUF_INIT;

	if (!strcmp(accel, "icount")) {
		g->kvm = false;
		g->icount = true;
		snprintf(g->why, sizeof(g->why), "counting (--accel icount): "
			 "QEMU's TCG on one thread with -icount shift=0,"
			 "sleep=off, so the guest's clocks count its "
			 "instructions, 1 ns each");
		return 0;
	}
	if (!strcmp(accel, "auto")) {
		g->kvm = vm_accel_detect(&d);
		snprintf(g->why, sizeof(g->why), "%s", d.buf);
		strbuf_release(&d);
		return 0;
	}
	g->kvm = !strcmp(accel, "kvm");
	vm_accel_detect(&d);
	snprintf(g->why, sizeof(g->why), "%s, asked (--accel %s); here auto "
		 "would choose %s", g->kvm ? "KVM" : "TCG", accel, d.buf);
	strbuf_release(&d);
	if (g->kvm && access("/dev/kvm", R_OK | W_OK)) {
		strbuf_addf(err, "--accel kvm: /dev/kvm cannot be opened: %s",
			    strerror(errno));
		return VM_ENOQEMU;
	}
	if (g->kvm && !access("/sys/module/kvm_pvm", F_OK)) {
		strbuf_addf(err, "--accel kvm: /dev/kvm here is PVM (the "
			    "kvm_pvm module: no hardware virtualisation), "
			    "under which a stock kernel stalls; use --accel "
			    "tcg or icount");
		return VM_ENOQEMU;
	}
	return 0;
}

/* QEMU's version line into ver: 0, or VM_ENOQEMU where it does not run. */
int vm_qemu_version(struct strbuf *ver, struct strbuf *err)
{
	char *argv[] = { QEMU, "--version", NULL };

	if (vm_spawn_wait(argv, ver, NULL) || !ver->buf) {
		strbuf_addf(err, "cannot run %s: is Debian's qemu-system-x86 "
			    "installed?", QEMU);
		return VM_ENOQEMU;
	}
	ver->buf[strcspn(ver->buf, "\n")] = '\0';
	return 0;
}

static void argv_add(struct argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void argv_add(struct argv *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (a->n + 2 > a->alloc) {
		a->alloc = a->alloc ? a->alloc * 2 : 64;
		a->v = xrealloc(a->v, a->alloc * sizeof(*a->v));
	}
	a->v[a->n++] = strbuf_detach(&sb, NULL);
	a->v[a->n] = NULL;
}

void vm_argv_release(struct argv *a)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

void vm_shape_str(const struct vm_opts *o, struct strbuf *sb)
{
	char m[32];

	format_size(o->mem, m, sizeof(m));
	strbuf_addf(sb, "smp=%u sockets=%u threads=%u numa=%s mem=%s "
		    "cgroup=v%d", o->smp, o->sockets, o->threads,
		    o->numa ? "on" : "off", m, o->cgroup);
}

/* The machine: accelerator, clocks, CPUs, memory and NUMA nodes. */
static void qemu_machine(const struct vm_guest *g, struct argv *a)
{
	const struct vm_opts *o = g->o;
	bool kvm = g->kvm;
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
	argv_add(a, kvm ? "kvm" : g->icount ? "tcg,thread=single" :
		 "tcg,thread=multi");
	if (g->icount) {
		/* one instruction a nanosecond of the guest's clocks, which
		 * never run while it idles; its RTC on that clock; QEMU's
		 * own randomness the same every boot */
		argv_add(a, "-icount");
		argv_add(a, "shift=0,sleep=off");
		argv_add(a, "-rtc");
		argv_add(a, "clock=vm");
		argv_add(a, "-seed");
		argv_add(a, "1");
	}
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
}

/*
 * What it boots and sees: the kernel, the initramfs, the host's root
 * read-only, tmp/out writable, the shares, the scratch disk, the console
 * into tmp/console.log.
 */
static void qemu_files(const struct vm_guest *g, struct argv *a)
{
	const char *tmp = g->tmp;
	unsigned s;

	argv_add(a, "-kernel");
	argv_add(a, "%s", g->image);
	argv_add(a, "-initrd");
	argv_add(a, "%s/initrd.cpio", tmp);
	argv_add(a, "-append");
	argv_add(a, "%s", strbuf_str(&g->cmdline));
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
	for (s = 0; s < (unsigned)g->nshare; s++) {
		argv_add(a, "-fsdev");
		argv_add(a, "local,id=fbsh%u,path=%s,security_model=none,"
			 "readonly=on,multidevs=remap", s, g->share[s]);
		argv_add(a, "-device");
		argv_add(a, "virtio-9p-pci,fsdev=fbsh%u,mount_tag=fbsh%u", s,
			 s);
	}
	if (g->scratch) {
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

void vm_qemu_args(const struct vm_guest *g, struct argv *a)
{
	qemu_machine(g, a);
	qemu_files(g, a);
}
