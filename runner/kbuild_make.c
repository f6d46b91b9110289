/*
 * A guest kernel made in the cache (kbuild_priv.h): one build of its
 * source at a time, the tree unpacked or copied, the patches applied, the
 * config made and checked, make, and the kernel installed whole.
 */
#include "kbuild_priv.h"
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* One build of this source at a time: 0, or -1 with err set. */
static int lock_lineage(struct kb *b)
{
	char *p = xstrfmt("%s.lock", b->workdir);
	int r = 0;

	b->lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lockfd < 0) {
		r = kb_fail(b, KB_EINTERNAL, "cannot open %s: %s", p,
			    strerror(errno));
	} else if (flock(b->lockfd, LOCK_EX | LOCK_NB)) {
		kb_say(b, "another build of this source is running; waiting");
		if (flock(b->lockfd, LOCK_EX))
			r = kb_fail(b, KB_EINTERNAL, "cannot lock %s: %s", p,
				    strerror(errno));
	}
	free(p);
	return r;
}

/* The .deb's or tarball's tree, unpacked once into src/L. */
static int unpack(struct kb *b)
{
	static const char script[] =
		"set -e; mkdir \"$2\"; cd \"$2\"; "
		"case \"$1\" in "
		"*.deb) t=$(dpkg-deb -c \"$1\" | "
		"  sed -n 's,.* \\./\\(usr/src/linux-source-[^/]*\\.tar\\.xz\\)$,\\1,p'"
		"  | head -1); "
		"  [ -n \"$t\" ] || { echo \"no usr/src/linux-source-*.tar.xz in"
		" it (is it Debian's linux-source package?)\" >&2; exit 1; }; "
		"  dpkg-deb --fsys-tarfile \"$1\" | tar -xOf - \"./$t\" | "
		"  tar -xJf - ;; "
		"*) tar -xf \"$1\" ;; esac; "
		"set -- */; [ $# = 1 ] && [ -f \"$1/Makefile\" ] || "
		"{ echo 'not one kernel tree at its top' >&2; exit 1; }; "
		"mv \"$1\" ../\"$3\"";
	struct strbuf eo = STRBUF_INIT;
	char *tmp;
	int r;

	b->pristine = xstrfmt("%s/src/%s", kbuild_cache(), b->lineage);
	if (kb_is_dir(b->pristine))
		return 0;
	kb_say(b, "unpacking %s", b->src);
	tmp = xstrfmt("%s.tmp.%d", b->pristine, (int)getpid());
	r = kb_sh(b, script, b->src, tmp, b->lineage, NULL, &eo);
	kb_sh(b, "rm -rf \"$1\"", tmp, NULL, NULL, NULL, NULL);
	free(tmp);
	if (r || !kb_is_dir(b->pristine))
		r = kb_fail(b, KB_ENOSRC, "cannot unpack %s: %s", b->src,
			    eo.buf && eo.buf[0] ? eo.buf : "it failed");
	strbuf_release(&eo);
	return r;
}

/*
 * Is work/L/src a copy of another state of a directory source (a file
 * changed, added or removed since: its listing, b->ident, is not the one
 * work/L/copied holds)?  L names the directory, not its content.
 */
static bool copy_stale(const struct kb *b, const char *copied)
{
	char was[sizeof(b->ident)];

	return b->kind == SRC_DIR &&
	       (read_file_str(copied, was, sizeof(was)) ||
		strcmp(was, b->ident));
}

/*
 * work/L/src as the source is (a copy, its times kept: make recompiles
 * only what differs), its listing into work/L/copied for a directory.
 */
static int copy_tree(struct kb *b, const char *copied, struct strbuf *eo)
{
	char *tmp = xstrfmt("%s.tmp.%d", b->work, (int)getpid());
	int r;

	kb_say(b, kb_is_dir(b->work) ? "the source tree has changed: "
	       "copying it into the cache again" :
	       "copying the source into the cache");
	r = kb_sh(b, "cp -a \"$1\" \"$2\" && rm -rf \"$3\" && "
		  "mv \"$2\" \"$3\" || { rm -rf \"$2\"; exit 1; }",
		  b->pristine, tmp, b->work, NULL, eo);
	free(tmp);
	if (!r && b->kind == SRC_DIR) {
		FILE *f = fopen(copied, "we");

		if (!f || fputs(b->ident, f) < 0 || fclose(f)) {
			strbuf_addf(eo, "cannot write %s: %s", copied,
				    strerror(errno));
			r = -1;
		}
	}
	return r;
}

/*
 * work/L/src as the source is, without the last build's patches: a copy
 * made once (again where a directory source has changed); the files the
 * last patches touched put back (with a new time, so make rebuilds what
 * used them).  A git tree: a shared clone, checked out at the commit (git
 * rewrites only the files that differ).
 */
static int ready_tree(struct kb *b)
{
	static const char restore[] =
		"cd \"$1\" && while IFS= read -r f; do "
		"  if [ -f \"$2/$f\" ]; then cp \"$2/$f\" \"$f\" || exit 1; "
		"  else rm -f \"$f\"; fi; done < \"$3\"";
	struct strbuf eo = STRBUF_INIT;
	char *applied = xstrfmt("%s/applied", b->workdir);
	char *copied = xstrfmt("%s/copied", b->workdir);
	int r = 0;

	if (b->kind == SRC_GIT) {
		if (!kb_is_dir(b->work))
			r = kb_sh(b, "git clone -q --shared --no-checkout "
				  "\"$1\" \"$2\"", b->src, b->work, NULL,
				  NULL, &eo);
		if (!r)
			r = kb_sh(b, "cd \"$1\" && git checkout -q -f "
				  "--detach \"$2\" && git clean -q -fd",
				  b->work, b->ident + 4, NULL, NULL, &eo);
	} else if (!kb_is_dir(b->work) || copy_stale(b, copied)) {
		r = copy_tree(b, copied, &eo);
	} else if (!access(applied, F_OK)) {
		r = kb_sh(b, restore, b->work, b->pristine, applied, NULL,
			  &eo);
	}
	if (r)
		r = kb_fail(b, KB_EINTERNAL, "cannot make the source tree "
			    "%s: %s", b->work, eo.buf ? eo.buf : "it failed");
	else
		unlink(applied);
	strbuf_release(&eo);
	free(applied);
	free(copied);
	return r;
}

/*
 * One patch (abs, as the user named it name) checked then applied with
 * git apply, the files it touches listed in applied first.
 */
static int apply_one(struct kb *b, const char *applied, const char *abs,
		     const char *name, bool after)
{
	static const char list[] =
		"git apply --numstat \"$2\" > \"$1.new\" && "
		"cut -f3- \"$1.new\" >> \"$1\"; r=$?; rm -f \"$1.new\"; "
		"exit $r";
	static const char apply[] =
		"cd \"$1\" && git apply --check -p1 \"$2\" && "
		"git apply -p1 \"$2\"";
	struct strbuf eo = STRBUF_INIT;
	int r = 0;

	if (kb_sh(b, list, applied, abs, NULL, NULL, &eo)) {
		r = kb_fail(b, KB_EPATCH, "patch %s: not a patch git apply "
			    "reads: %s", name, strbuf_str(&eo));
	} else {
		kb_say(b, "applying %s", name);
		if (kb_sh(b, apply, b->work, abs, NULL, NULL, &eo))
			r = kb_fail(b, KB_EPATCH, "patch %s does not apply "
				    "to %s%s:\n%s", name, b->src,
				    after ? " with the patches before it" : "",
				    strbuf_str(&eo));
	}
	strbuf_release(&eo);
	return r;
}

/*
 * The patches, in order, each checked then applied with git apply (a diff
 * or an mbox: the mail around the diff is skipped); the files each
 * touches listed in work/L/applied first, so that the next build puts
 * them back whatever happened.
 */
static int apply_patches(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	char *applied = xstrfmt("%s/applied", b->workdir), *abs;
	size_t i;
	int r = 0;

	for (i = 0; !r && i < o->npatches; i++) {
		abs = realpath(o->patches[i], NULL);
		if (!abs)
			r = kb_fail(b, KB_ENOSRC, "patch '%s': %s",
				    o->patches[i], strerror(errno));
		else
			r = apply_one(b, applied, abs, o->patches[i], i > 0);
		free(abs);
	}
	free(applied);
	return r;
}

/*
 * The config: x86_64_defconfig, kvm_guest.config and the fragment merged,
 * olddefconfig; each line of the fragment must have survived it.
 */
static int configure(struct kb *b)
{
	static const char script[] =
		"set -e; make -s -C \"$1\" O=\"$2\" x86_64_defconfig; "
		"\"$1\"/scripts/kconfig/merge_config.sh -m -O \"$2\" "
		"\"$2\"/.config \"$1\"/kernel/configs/kvm_guest.config "
		"\"$3\" >/dev/null; make -s -C \"$1\" O=\"$2\" olddefconfig";
	static const char check[] =
		"n=0; grep -n '^CONFIG_' \"$1\" | while IFS= read -r l; do "
		"  at=${l%%:*}; l=${l#*:}; k=${l%%=*}; v=${l#*=}; "
		"  if [ \"$v\" = n ]; then "
		"    grep -q \"^# $k is not set\" \"$2\" && continue; "
		"    ! grep -q \"^$k=\" \"$2\" && continue; "
		"  else grep -qxF \"$l\" \"$2\" && continue; fi; "
		"  now=$(grep \"^$k=\\|^# $k is not set\" \"$2\"); "
		"  echo \"$1:$at: $l became ${now:-nothing (no such option in "
		"this kernel, or its dependencies are off)}\"; done";
	struct strbuf eo = STRBUF_INIT, out = STRBUF_INIT;
	char *cfg;
	int r;

	kb_say(b, "configuring (x86_64_defconfig + kvm_guest.config + %s)",
	       b->o->fragment);
	if (kbuild_mkdirs(b->build))
		return kb_fail(b, KB_EINTERNAL, "cannot make %s: %s",
			       b->build, strerror(errno));
	r = kb_sh(b, script, b->work, b->build, b->o->fragment, NULL, &eo);
	if (r) {
		r = kb_fail(b, KB_ECONFIG, "cannot configure the kernel: %s",
			    eo.buf ? eo.buf : "make failed");
		strbuf_release(&eo);
		return r;
	}
	cfg = xstrfmt("%s/.config", b->build);
	r = kb_sh(b, check, b->o->fragment, cfg, NULL, &out, NULL);
	free(cfg);
	if (r || (out.buf && out.buf[0]))
		r = kb_fail(b, KB_ECONFIG, "the config fragment did not "
			    "survive olddefconfig:\n%s", strbuf_str(&out));
	strbuf_release(&eo);
	strbuf_release(&out);
	return r;
}

/* A "  CC      mm/shmem.o" line of make: the file, or NULL. */
static const char *compiled_file(const char *line)
{
	if (strncmp(line, "  CC ", 5) && strncmp(line, "  AS ", 5))
		return NULL;
	line += 5;
	while (*line == ' ')
		line++;
	return *line ? line : NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The compiler's lines of a failed build's log: those around errors. */
static void error_lines(const char *log, struct strbuf *sb)
{
	struct strbuf l = STRBUF_INIT;
	const char *p, *e;
	int n = 0;

	if (vm_slurp(log, &l) || !l.buf)
		return;
	for (p = l.buf; *p && n < 40; p = *e ? e + 1 : e) {
		e = strchrnul(p, '\n');
		if (memmem(p, (size_t)(e - p), "error", 5) ||
		    memmem(p, (size_t)(e - p), "Error", 5) ||
		    memmem(p, (size_t)(e - p), "undefined reference", 19)) {
			strbuf_addf(sb, "\n  %.*s", (int)(e - p), p);
			n++;
		}
	}
	strbuf_release(&l);
}

/*
 * make bzImage in the background, its output (stdout and stderr) on
 * *out: the pid, or -1 with err set.
 */
static pid_t start_make(struct kb *b, const char *jobs, FILE **out)
{
	char *lv = xstrfmt("LOCALVERSION=%s", b->localversion);
	char *obuild = xstrfmt("O=%s", b->build);
	char *argv[] = { "make", "-C", b->work, obuild, (char *)jobs, lv,
			 "KBUILD_BUILD_USER=foliobench",
			 "KBUILD_BUILD_HOST=foliobench", "bzImage", NULL };
	int p[2] = { -1, -1 };
	pid_t pid = pipe2(p, O_CLOEXEC) ? -1 : fork();

	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp("make", argv);
		_exit(127);
	}
	if (pid < 0) {
		kb_fail(b, KB_EINTERNAL, "cannot run make: %s",
			strerror(errno));
		if (p[0] >= 0)
			close(p[0]);
	} else {
		*out = fdopen(p[0], "r");
	}
	if (p[1] >= 0)
		close(p[1]);
	free(lv);
	free(obuild);
	return pid;
}

/*
 * make's output into lf and, on a terminal, one line redrawn: files
 * compiled, time so far, the file (else a line a minute).
 */
static void follow_make(struct kb *b, FILE *in, FILE *lf, double t0)
{
	char *line = NULL;
	size_t cap = 0;
	double last = 0;

	while (in && getline(&line, &cap, in) > 0) {
		const char *f = compiled_file(line);
		double t = now_s();

		fputs(line, lf);
		if (!f)
			continue;
		line[strcspn(line, "\n")] = '\0';
		b->res->compiled++;
		if (b->o->progress && t - last > 0.25) {
			unsigned s = (unsigned)(t - t0);

			fprintf(stderr, "\r\033[Kbench: kernel: %u files "
				"compiled, %um%02us: %.60s", b->res->compiled,
				s / 60, s % 60, f);
			last = t;
		} else if (!b->o->progress && t - last > 60) {
			if (last > 0)
				kb_say(b, "%u files compiled, %.0f s",
				       b->res->compiled, t - t0);
			last = t;
		}
	}
	free(line);
}

/* make bzImage, its output into work/L/build.log. */
static int compile(struct kb *b)
{
	char *log = xstrfmt("%s/build.log", b->workdir), jobs[32];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	double t0 = now_s();
	FILE *in = NULL, *lf = fopen(log, "we");
	int st, r = 0;
	pid_t pid;

	snprintf(jobs, sizeof(jobs), "-j%u", b->o->jobs ? b->o->jobs :
		 (unsigned)(cpus > 0 ? cpus + 1 : 2));
	if (!lf) {
		r = kb_fail(b, KB_EINTERNAL, "cannot write %s: %s", log,
			    strerror(errno));
		goto out;
	}
	kb_say(b, "compiling (make %s bzImage; its output in %s)", jobs, log);
	fflush(stderr);
	pid = start_make(b, jobs, &in);
	if (pid < 0) {
		fclose(lf);
		r = KB_EINTERNAL;
		goto out;
	}
	follow_make(b, in, lf, t0);
	if (in)
		fclose(in);
	fclose(lf);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	b->res->seconds = now_s() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		r = kb_fail(b, KB_EBUILD, "the kernel build failed (%s after "
			    "%.0f s; the whole log: %s):", WIFSIGNALED(st) ?
			    strsignal(WTERMSIG(st)) : "make exited non-zero",
			    b->res->seconds, log);
		error_lines(log, b->err);
		goto out;
	}
	kb_say(b, "%u files compiled in %um%02us", b->res->compiled,
	       (unsigned)b->res->seconds / 60,
	       (unsigned)b->res->seconds % 60);
out:
	free(log);
	return r;
}

/* The kernel into built/KEY, whole: a temp dir renamed. */
static int install(struct kb *b)
{
	static const char script[] =
		"set -e; B=\"$1\"; T=\"$2\"; mkdir -p \"$T/arch/x86/boot\" "
		"\"$T/include/config\"; cp \"$B/arch/x86/boot/bzImage\" "
		"\"$T/arch/x86/boot/\"; cp \"$B/include/config/kernel.release\" "
		"\"$T/include/config/\"; cp \"$B/.config\" \"$B/System.map\" "
		"\"$B/vmlinux\" \"$T/\"; cp \"$B/../build.log\" \"$T/build.log\"; "
		"printf %s \"$3\" > \"$T/key.txt\"";
	struct strbuf eo = STRBUF_INIT;
	char *dir = xstrfmt("%s/built", kbuild_cache()), *tmp;
	int r;

	if (kbuild_mkdirs(dir)) {
		r = kb_fail(b, KB_EINTERNAL, "cannot make %s: %s", dir,
			    strerror(errno));
		free(dir);
		return r;
	}
	tmp = xstrfmt("%s/%s.tmp.%d", dir, b->res->key, (int)getpid());
	free(dir);
	r = kb_sh(b, script, b->build, tmp, b->keytext.buf, NULL, &eo);
	if (r || rename(tmp, b->res->dir)) {
		kb_sh(b, "rm -rf \"$1\"", tmp, NULL, NULL, NULL, NULL);
		r = kb_fail(b, KB_EINTERNAL, "cannot put the kernel into %s: "
			    "%s", b->res->dir, eo.buf ? eo.buf :
			    strerror(errno));
	}
	strbuf_release(&eo);
	free(tmp);
	if (!r && !kb_find_built(b))
		r = kb_fail(b, KB_EINTERNAL, "%s: no kernel.release after "
			    "the build", b->res->dir);
	return r;
}

/* The tree of the source ready, patched and configured. */
static int prepare(struct kb *b)
{
	int r = 0;

	if (kbuild_mkdirs(b->workdir))
		return kb_fail(b, KB_EINTERNAL, "cannot make %s: %s",
			       b->workdir, strerror(errno));
	if (b->kind == SRC_DEB || b->kind == SRC_TAR)
		r = unpack(b);
	else
		b->pristine = xstrdup(b->src);
	if (!r)
		r = ready_tree(b);
	if (!r)
		r = apply_patches(b);
	if (!r)
		r = configure(b);
	return r;
}

int kb_build(struct kb *b)
{
	char *p = xstrfmt("%s/work", kbuild_cache());
	int r = kbuild_mkdirs(p);

	if (r)
		r = kb_fail(b, KB_EINTERNAL, "cannot make the kernel cache "
			    "%s: %s", p, strerror(-r));
	free(p);
	if (r)
		return r;
	b->workdir = xstrfmt("%s/work/%s", kbuild_cache(), b->lineage);
	b->work = xstrfmt("%s/src", b->workdir);
	b->build = xstrfmt("%s/%s", b->workdir,
			   b->o->config_only ? "config.tmp" : "build");
	if ((r = lock_lineage(b)))
		return r;
	if (!b->o->config_only && kb_find_built(b)) {	/* built meanwhile */
		b->res->cached = true;
		return 0;
	}
	r = prepare(b);
	if (b->o->config_only) {
		free(b->res->dir);
		b->res->dir = xstrfmt("%s/.config", b->build);
		return r;
	}
	if (!r)
		r = compile(b);
	if (!r)
		r = install(b);
	return r;
}
