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

/* The directory a database that is not there yet is to be made in. */
static int check_db_dir(const char *path, struct strbuf *err)
{
	const char *slash = strrchr(path, '/');
	char *dir = !slash ? xstrdup(".") : slash == path ? xstrdup("/") :
		    xstrndup(path, (size_t)(slash - path));
	struct stat st;
	int r = 0;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    access(dir, W_OK | X_OK)) {
		strbuf_addf(err, "--db %s: its directory %s %s", path, dir,
			    stat(dir, &st) ? "does not exist" :
			    !S_ISDIR(st.st_mode) ? "is not a directory" :
			    "cannot be written");
		r = VM_EDB;
	}
	free(dir);
	return r;
}

/*
 * The host's database, before any boot: a name db_open takes, and a file
 * it opens as foliobench's (migrated where older), or a directory where
 * it can be made.  A finished guest run must have a home to go to.
 */
static int check_db(const char *path, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	struct db db = { 0 };
	struct stat st;
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
	return check_db_dir(path, err);
}

/* Share dir (or a file's directory) when it lies where the guest mounts
 * its own: one share a tree, the widest kept. */
static void add_share(struct vm_guest *g, const char *path, bool file)
{
	char *p, *slash;
	int i, j;

	if (!path || !guest_own_dir(path) || !(p = realpath(path, NULL)))
		return;
	if (file && (slash = strrchr(p, '/')) && slash != p)
		*slash = '\0';
	if (!guest_own_dir(p) || !strcmp(p, guest_own_dir(p)))
		goto out;	/* /tmp itself: never the host's */
	for (i = 0; i < g->nshare; i++) {
		size_t a = strlen(g->share[i]), b = strlen(p);

		if (!strncmp(g->share[i], p, a) && (p[a] == '/' || !p[a]))
			goto out;	/* inside a share */
		if (!strncmp(g->share[i], p, b) && g->share[i][b] == '/') {
			/* p holds share i: it takes its place */
			free(g->share[i]);
			for (j = i; j + 1 < g->nshare; j++)
				g->share[j] = g->share[j + 1];
			g->nshare--;
			i--;
		}
	}
	if (g->nshare < (int)ARRAY_SIZE(g->share)) {
		g->share[g->nshare++] = p;
		return;
	}
out:
	free(p);
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
	char *p, *lp, *slash;
	struct strbuf list = STRBUF_INIT;
	int i, up, r = 0;
	FILE *f;

	if (o->bench) {
		p = xstrdup(o->bench);
		for (up = 0; up < 2 && (slash = strrchr(p, '/')) &&
		     slash != p; up++)
			*slash = '\0';	/* TREE/build/bench: TREE */
		add_share(g, p, false);
		free(p);
	}
	p = getcwd(NULL, 0);
	add_share(g, p, false);
	free(p);
	for (i = 0; o->cmd && o->cmd[i]; i++) {
		const char *a = strchr(o->cmd[i], '=');

		a = o->cmd[i][0] == '-' && a ? a + 1 : o->cmd[i];
		if (!access(a, F_OK))
			add_share(g, a, true);
	}
	for (i = 0; i < g->nshare; i++)
		strbuf_addf(&list, "fbsh%d %s\n", i, g->share[i]);
	lp = xstrfmt("%s/out/shares", g->tmp);
	f = fopen(lp, "we");
	if (!f || fputs(strbuf_str(&list), f) < 0 || fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", lp, strerror(errno));
		r = VM_EINTERNAL;
	}
	free(lp);
	strbuf_release(&list);
	return r;
}

/* This boot's id, "" when unknown. */
static void boot_id(char *b, size_t n)
{
	if (read_file_str("/proc/sys/kernel/random/boot_id", b, n))
		b[0] = '\0';
}

/*
 * The pid of the `bench vm` whose temp dir dir is, where it has died
 * (or is of another boot) and the dir is not kept; else 0.
 */
static long dead_owner(const char *dir, const char *boot)
{
	char *f = xstrfmt("%s/owner", dir), owner[128], *sp;
	long pid = 0;
	int r = read_file_str(f, owner, sizeof(owner));

	free(f);
	if (!r)
		pid = strtol(owner, &sp, 10);
	if (pid <= 0 || *sp != ' ')
		return 0;
	if (!strcmp(sp + 1, boot) &&
	    (!kill((pid_t)pid, 0) || errno == EPERM))
		return 0;	/* alive */
	f = xstrfmt("%s/out/kept", dir);
	r = access(f, F_OK);
	free(f);
	return r ? pid : 0;
}

/*
 * The temp dirs of `bench vm`s that died without their cleanup (kill -9,
 * a crash): each holds its owner's pid and boot; one whose owner is gone
 * (or of another boot) is removed and said.  A dir without an owner yet
 * (being made) and one kept for its results are left alone.
 */
static void sweep_dead(const char *tdir)
{
	char *pat = xstrfmt("%s/foliobench-vm.*", tdir), boot[64];
	glob_t gl;
	size_t i;
	int r;

	boot_id(boot, sizeof(boot));
	r = glob(pat, GLOB_NOSORT, NULL, &gl);
	free(pat);
	if (r)
		return;
	for (i = 0; i < gl.gl_pathc; i++) {
		long pid = dead_owner(gl.gl_pathv[i], boot);

		if (!pid)
			continue;
		fprintf(stderr, "bench: vm: removing %s, the temp dir of a "
			"bench vm (pid %ld) that died without its cleanup\n",
			gl.gl_pathv[i], pid);
		nftw(gl.gl_pathv[i], rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	}
	globfree(&gl);
}

/* A file in g->tmp, written: 0, or VM_EINTERNAL with err set. */
static int tmp_file(struct vm_guest *g, const char *name, const char *text,
		    struct strbuf *err)
{
	char *path = xstrfmt("%s/%s", g->tmp, name);
	FILE *f = fopen(path, "we");
	int r = 0;

	if (!f || fputs(text, f) < 0 || fclose(f)) {
		strbuf_addf(err, "cannot write %s: %s", path, strerror(errno));
		r = VM_EINTERNAL;
	}
	free(path);
	return r;
}

/* g->tmp made, with its owner and the out dir the guest writes into. */
static int make_tmp(struct vm_guest *g, struct strbuf *err)
{
	const char *tdir = getenv("TMPDIR");
	char *owner, *path, boot[64];
	int r;

	if (!tdir || !tdir[0])
		tdir = "/tmp";
	sweep_dead(tdir);
	g->tmp = xstrfmt("%s/foliobench-vm.XXXXXX", tdir);
	if (!mkdtemp(g->tmp)) {
		strbuf_addf(err, "cannot create a temp dir %s: %s", g->tmp,
			    strerror(errno));
		free(g->tmp);
		g->tmp = NULL;
		return VM_EINTERNAL;
	}
	boot_id(boot, sizeof(boot));
	owner = xstrfmt("%d %s\n", (int)getpid(), boot);
	r = tmp_file(g, "owner", owner, err);
	free(owner);
	if (r)
		return r;
	path = xstrfmt("%s/out", g->tmp);
	if (mkdir(path, 0755)) {
		strbuf_addf(err, "cannot create %s: %s", path, strerror(errno));
		r = VM_EINTERNAL;
	}
	free(path);
	return r;
}

/* Everything the guest boots with, in g->tmp, and QEMU's command line. */
static int make_guest(struct vm_guest *g, struct strbuf *err)
{
	const struct vm_opts *o = g->o;
	struct strbuf notes = STRBUF_INIT;
	char *path = xstrfmt("%s/initrd.cpio", g->tmp), note[300];
	int r;

	r = vm_make_initrd(&g->k, path, &notes, err);
	free(path);
	if (!r && notes.len)
		fprintf(stderr, "bench: vm: %s: modules found neither as files "
			"nor built in: %s\n", g->k.release, notes.buf);
	strbuf_release(&notes);
	if (!r)
		r = find_shares(g, err);
	if (r)
		return r;
	path = xstrfmt("%s/out/cmd.sh", g->tmp);
	r = vm_write_cmd(o, path, &g->cmd, err);
	free(path);
	if (r)
		return r;
	vm_shape_str(o, &g->shape);
	strbuf_addf(&g->cmdline, "console=ttyS0 quiet panic=-1 rdinit=/init "
		    "fb.cgroup=v%d%s", o->cgroup, o->cgroup == 2 ?
		    " cgroup_no_v1=all" : "");
	g->image = xstrdup(g->k.image);
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
	size_t i;
	int s;

	/* a guest's results that did not reach home are kept, whatever
	 * else of it goes */
	for (i = 0; g->tmp && g->keep && i < ARRAY_SIZE(big); i++) {
		char *p = xstrfmt("%s/%s", g->tmp, big[i]);

		unlink(p);
		free(p);
	}
	if (g->tmp && !g->keep)
		nftw(g->tmp, rm_entry, 32, FTW_DEPTH | FTW_PHYS);
	free(g->tmp);
	for (s = 0; s < g->nshare; s++)
		free(g->share[s]);
	free(g->image);
	free(g->image_desc);
	vm_kern_release(&g->k);
	vm_argv_release(&g->qa);
	strbuf_release(&g->ver);
	strbuf_release(&g->shape);
	strbuf_release(&g->cmdline);
	strbuf_release(&g->cmd);
}

/*
 * The guest's results, where they did not reach the database: kept in
 * g->tmp (marked so for sweep_dead: not a dead one's), and said in err.
 */
static void keep_results(struct vm_guest *g, struct strbuf *err)
{
	char *db = xstrfmt("%s/out/results.db", g->tmp), *kept;
	FILE *kf;

	g->keep = !access(db, F_OK);
	if (g->keep) {
		kept = xstrfmt("%s/out/kept", g->tmp);
		kf = fopen(kept, "we");
		if (kf)
			fclose(kf);
		free(kept);
		strbuf_addf(err, "\nthe guest's results are kept in %s: "
			    "`bench merge %s %s` brings them home", db,
			    g->o->db_path, db);
	}
	free(db);
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
		r = check_db(o->db_path, err);
	if (!r)
		r = vm_kern_find(o->kernel, &g.k, err);
	if (r)
		return r;
	g.image_desc = xstrdup(g.k.image);
	vm_file_sha256(g.k.image, g.image_sha256, sizeof(g.image_sha256));
	r = vm_accel_pick(&g, err);
	if (r)
		goto out;
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
	if (r == VM_EDB)
		keep_results(&g, err);
out:
	guest_release(&g);
	return r;
}
