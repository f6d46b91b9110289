/*
 * `bench vm`: boot a kernel in QEMU with the host's root read-only, run a
 * command in it and bring its runs home.  This file holds the steps, in
 * order, and what is checked before any: find the kernel's image and
 * modules (vm_kernel.c), make an initramfs (vm_initrd.c), the guest's
 * command (vm_cmd.c) and scratch disk (vm_scratch.c), start QEMU on a
 * temp dir shared writable (vm_qemu.c, vm_tcg.c) and follow its console
 * (vm_run.c), then record the guest and merge its runs (vm_home.c).
 */
#include "vm_priv.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int rm_entry(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
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

/* A shape QEMU can make, and a bench the guest can see. */
static int check_opts(const struct vm_opts *o, struct strbuf *err)
{
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
	return 0;
}

/* g->tmp made, with the out dir the guest writes into. */
static int make_tmp(struct vm_guest *g, struct strbuf *err)
{
	const char *tdir = getenv("TMPDIR");
	char path[4200];

	snprintf(g->tmp, sizeof(g->tmp), "%s/foliobench-vm.XXXXXX",
		 tdir && tdir[0] ? tdir : "/tmp");
	if (!mkdtemp(g->tmp)) {
		strbuf_addf(err, "cannot create a temp dir %s: %s", g->tmp,
			    strerror(errno));
		g->tmp[0] = '\0';
		return VM_EINTERNAL;
	}
	snprintf(path, sizeof(path), "%s/out", g->tmp);
	if (mkdir(path, 0755)) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		return VM_EINTERNAL;
	}
	return 0;
}

/* Everything the guest boots with, in g->tmp, and QEMU's command line. */
static int make_guest(struct vm_guest *g, struct strbuf *err)
{
	const struct vm_opts *o = g->o;
	struct strbuf notes = STRBUF_INIT;
	char path[4200], note[300];
	int r;

	snprintf(path, sizeof(path), "%s/initrd.cpio", g->tmp);
	r = vm_make_initrd(&g->k, path, &notes, err);
	if (!r && notes.len)
		fprintf(stderr, "bench: vm: %s: modules found neither as files "
			"nor built in: %s\n", g->k.release, notes.buf);
	strbuf_release(&notes);
	if (r)
		return r;
	snprintf(path, sizeof(path), "%s/out/cmd.sh", g->tmp);
	r = vm_write_cmd(o, path, &g->cmd, err);
	if (r)
		return r;
	vm_shape_str(o, &g->shape);
	strbuf_addf(&g->cmdline, "console=ttyS0 quiet panic=-1 rdinit=/init "
		    "fb.cgroup=v%d%s", o->cgroup, o->cgroup == 2 ?
		    " cgroup_no_v1=all" : "");
	snprintf(g->image, sizeof(g->image), "%s", g->k.image);
	if (!g->kvm)
		vm_tcg_prepare(g);
	g->scratch = !vm_make_scratch(g->tmp, note, sizeof(note));
	if (!g->scratch)
		fprintf(stderr, "bench: vm: no scratch disk (%s): the guest's "
			"/var/tmp is on tmpfs\n", note);
	vm_qemu_args(g, &g->qa);
	return 0;
}

static void guest_release(struct vm_guest *g)
{
	if (g->tmp[0])
		nftw(g->tmp, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	vm_argv_release(&g->qa);
	strbuf_release(&g->ver);
	strbuf_release(&g->shape);
	strbuf_release(&g->cmdline);
	strbuf_release(&g->cmd);
}

int vm_boot(const struct vm_opts *o, struct vm_result *res,
	    struct strbuf *err)
{
	struct vm_guest g = {
		.o = o, .res = res, .ver = STRBUF_INIT, .shape = STRBUF_INIT,
		.cmdline = STRBUF_INIT, .cmd = STRBUF_INIT,
	};
	int r;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	res->boot_s = res->first_sample_s = res->uptime_s = res->cmd_s = NAN;
	r = check_opts(o, err);
	if (!r)
		r = vm_kern_find(o->kernel, &g.k, err);
	if (r)
		return r;
	snprintf(g.image_desc, sizeof(g.image_desc), "%s", g.k.image);
	vm_file_sha256(g.k.image, g.image_sha256, sizeof(g.image_sha256));
	r = vm_accel_pick(&g, err);
	if (r)
		return r;
	snprintf(res->accel, sizeof(res->accel), "%s", g.kvm ? "kvm" : "tcg");
	r = vm_qemu_version(&g.ver, err);
	if (!r)
		r = make_tmp(&g, err);
	if (!r)
		r = make_guest(&g, err);
	if (r)
		goto out;
	fprintf(stderr, "bench: vm: booting %s (%s) with %s, %s\n",
		g.k.release, g.image_desc, g.shape.buf, g.kvm ? "KVM" :
		g.icount ? "TCG counting instructions (-icount shift=0)" :
		"TCG");
	iso_now_ms(g.started, sizeof(g.started));
	r = vm_qemu_run(o, g.qa.v, g.tmp, res, err);
	if (!r)
		r = vm_home(&g, err);
out:
	guest_release(&g);
	return r;
}
