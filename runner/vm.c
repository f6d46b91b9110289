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

#include "schema/db.h"

#include <errno.h>
#include <ftw.h>
#include <glob.h>
#include <signal.h>
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
	return 0;
}

/*
 * The host's database, before any boot: a name db_open takes, and a file
 * it opens as foliobench's (migrated where older), or a directory where
 * it can be made.  A finished guest run must have a home to go to.
 */
static int check_db(const char *path, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	char dir[4096];
	struct db db = { 0 };
	struct stat st;
	char *slash;
	int r;

	if (db_path_check(path, &why)) {
		strbuf_addf(err, "--db '%s': %s", path, why.buf);
		strbuf_release(&why);
		return VM_EUSAGE;
	}
	if (!stat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			strbuf_addf(err, "--db %s: a directory, not a "
				    "database file", path);
			return VM_EDB;
		}
		r = db_open(&db, path, false);
		if (r)
			strbuf_addf(err, "--db %s: %s", path, db_errmsg(&db));
		db_close(&db);
		return r ? VM_EDB : 0;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(dir, W_OK | X_OK)) {
		strbuf_addf(err, "--db %s: its directory %s %s", path, dir,
			    stat(dir, &st) ? "does not exist" :
			    !S_ISDIR(st.st_mode) ? "is not a directory" :
			    "cannot be written");
		return VM_EDB;
	}
	return 0;
}

/* Share dir (or a file's directory) when it lies where the guest mounts
 * its own: one share a tree, the widest kept. */
static void add_share(struct vm_guest *g, const char *path, bool file)
{
	char p[4096], *slash;
	int i, j;

	if (!path || !guest_own_dir(path) || !realpath(path, p))
		return;
	if (file && (slash = strrchr(p, '/')) && slash != p)
		*slash = '\0';
	if (!guest_own_dir(p) || !strcmp(p, guest_own_dir(p)))
		return;		/* /tmp itself: never the host's */
	for (i = 0; i < g->nshare; i++) {
		size_t a = strlen(g->share[i]), b = strlen(p);

		if (!strncmp(g->share[i], p, a) && (p[a] == '/' || !p[a]))
			return;	/* inside a share */
		if (!strncmp(g->share[i], p, b) && g->share[i][b] == '/') {
			/* p holds share i: it takes its place */
			for (j = i; j + 1 < g->nshare; j++)
				memcpy(g->share[j], g->share[j + 1],
				       sizeof(g->share[j]));
			g->nshare--;
			i--;
		}
	}
	if (g->nshare < (int)ARRAY_SIZE(g->share))
		snprintf(g->share[g->nshare++], sizeof(g->share[0]), "%s", p);
}

/*
 * What the guest must see of the host's /tmp, /var/tmp, /run or /dev/shm:
 * the tree bench was built in (its config example and kernel fragment
 * beside it), the working directory, and each argument of the command that
 * names a file there.  Listed in tmp/out/shares for /init: "TAG PATH".
 */
static int find_shares(struct vm_guest *g, struct strbuf *err)
{
	const struct vm_opts *o = g->o;
	char p[4096], cwd[4096], lp[4200], *slash;
	struct strbuf list = STRBUF_INIT;
	int i, up;
	FILE *f;

	if (o->bench) {
		snprintf(p, sizeof(p), "%s", o->bench);
		for (up = 0; up < 2 && (slash = strrchr(p, '/')) &&
		     slash != p; up++)
			*slash = '\0';	/* TREE/build/bench: TREE */
		add_share(g, p, false);
	}
	if (getcwd(cwd, sizeof(cwd)))
		add_share(g, cwd, false);
	for (i = 0; o->cmd && o->cmd[i]; i++) {
		const char *a = strchr(o->cmd[i], '=');

		a = o->cmd[i][0] == '-' && a ? a + 1 : o->cmd[i];
		if (!access(a, F_OK))
			add_share(g, a, true);
	}
	for (i = 0; i < g->nshare; i++)
		strbuf_addf(&list, "fbsh%d %s\n", i, g->share[i]);
	snprintf(lp, sizeof(lp), "%s/out/shares", g->tmp);
	f = fopen(lp, "we");
	if (!f || fputs(strbuf_str(&list), f) < 0 || fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", lp, strerror(errno));
		strbuf_release(&list);
		return VM_EINTERNAL;
	}
	strbuf_release(&list);
	return 0;
}

/* g->tmp made, with the out dir the guest writes into. */
/* This boot's id, "" when unknown. */
static void boot_id(char *b, size_t n)
{
	if (read_file_str("/proc/sys/kernel/random/boot_id", b, n))
		b[0] = '\0';
}

/*
 * The temp dirs of `bench vm`s that died without their cleanup (kill -9,
 * a crash): each holds its owner's pid and boot; one whose owner is gone
 * (or of another boot) is removed and said.  A dir without an owner yet
 * (being made) and one kept for its results are left alone.
 */
static void sweep_dead(const char *tdir)
{
	char pat[4200], f[4300], owner[128], boot[64];
	glob_t gl;
	size_t i;

	boot_id(boot, sizeof(boot));
	snprintf(pat, sizeof(pat), "%s/foliobench-vm.*", tdir);
	if (glob(pat, GLOB_NOSORT, NULL, &gl))
		return;
	for (i = 0; i < gl.gl_pathc; i++) {
		long pid;
		char *sp;

		snprintf(f, sizeof(f), "%s/owner", gl.gl_pathv[i]);
		if (read_file_str(f, owner, sizeof(owner)))
			continue;
		pid = strtol(owner, &sp, 10);
		if (pid <= 0 || !sp || *sp != ' ')
			continue;
		if (!strcmp(sp + 1, boot) &&
		    (!kill((pid_t)pid, 0) || errno == EPERM))
			continue;	/* alive */
		snprintf(f, sizeof(f), "%s/out/kept", gl.gl_pathv[i]);
		if (!access(f, F_OK))
			continue;
		fprintf(stderr, "bench: vm: removing %s, the temp dir of a "
			"bench vm (pid %ld) that died without its cleanup\n",
			gl.gl_pathv[i], pid);
		nftw(gl.gl_pathv[i], rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	}
	globfree(&gl);
}

static int make_tmp(struct vm_guest *g, struct strbuf *err)
{
	const char *tdir = getenv("TMPDIR");
	char path[4200], boot[64];
	FILE *f;

	if (!tdir || !tdir[0])
		tdir = "/tmp";
	sweep_dead(tdir);
	snprintf(g->tmp, sizeof(g->tmp), "%s/foliobench-vm.XXXXXX", tdir);
	if (!mkdtemp(g->tmp)) {
		strbuf_addf(err, "cannot create a temp dir %s: %s", g->tmp,
			    strerror(errno));
		g->tmp[0] = '\0';
		return VM_EINTERNAL;
	}
	snprintf(path, sizeof(path), "%s/owner", g->tmp);
	boot_id(boot, sizeof(boot));
	f = fopen(path, "we");
	if (!f || fprintf(f, "%d %s\n", (int)getpid(), boot) < 0 ||
	    fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
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
	r = find_shares(g, err);
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
	static const char *const big[] = {
		"scratch.img", "initrd.cpio", "vmlinux", "payload",
	};
	char p[4200];
	size_t i;

	/* a guest's results that did not reach home are kept, whatever
	 * else of it goes */
	for (i = 0; g->keep && i < ARRAY_SIZE(big); i++) {
		snprintf(p, sizeof(p), "%s/%s", g->tmp, big[i]);
		unlink(p);
	}
	if (g->tmp[0] && !g->keep)
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
	char path[4200];
	int r;

	memset(res, 0, sizeof(*res));
	res->status = -1;
	res->boot_s = res->first_sample_s = res->uptime_s = res->cmd_s = NAN;
	r = check_opts(o, err);
	if (!r)
		r = check_db(o->db_path, err);
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
	if (r == VM_EDB) {
		snprintf(path, sizeof(path), "%s/out/results.db", g.tmp);
		g.keep = !access(path, F_OK);
		snprintf(path, sizeof(path), "%s/out/kept", g.tmp);
		if (g.keep) {	/* for sweep_dead: not a dead one's */
			FILE *kf = fopen(path, "we");

			if (kf)
				fclose(kf);
		}
		snprintf(path, sizeof(path), "%s/out/results.db", g.tmp);
		if (g.keep)
			strbuf_addf(err, "\nthe guest's results are kept in "
				    "%s: `bench merge %s %s` brings them home",
				    path, o->db_path, path);
	}
out:
	guest_release(&g);
	return r;
}
