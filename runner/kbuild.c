/*
 * Guest kernels from source (kbuild.h).  The cache, under kbuild_cache():
 *
 *   src/L/        a .deb's or tarball's tree, unpacked once (read only)
 *   work/L/src    the tree the builds of source L patch (a copy, or a
 *                 shared clone of a git tree), work/L/applied the files the
 *                 last patches touched (restored before the next ones)
 *   work/L/build  make's O=: shared by every build of L, so the second
 *                 kernel of a pair recompiles what its patches touch
 *   work/L.lock   one build of L at a time
 *   built/KEY/    a finished kernel, made under built/KEY.tmp.PID and
 *                 renamed: it is there whole or not at all
 *
 * L names the source (a file's hash, a tree's path); KEY hashes what makes
 * the kernel: the source's content (a file's hash, a commit, a listing of
 * the tree with sizes and times), each patch, the fragments, the compiler
 * and the name.
 */
#include "kbuild.h"
#include "vm_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KERNEL_CACHE "/var/cache/foliobench/kernels"
#define NAME_MAX_LEN 40

enum src_kind { SRC_DEB, SRC_TAR, SRC_DIR, SRC_GIT };

/* One build as kbuild() makes it on its way. */
struct kb {
	const struct kbuild_opts *o;
	struct kbuild_result *res;
	struct strbuf *err;
	enum src_kind kind;
	char src[PATH_MAX];		/* the source, absolute */
	char ident[200];		/* its content: a hash or a commit */
	char lineage[17];
	char pristine[PATH_MAX + 64];	/* src/L, or the directory itself */
	char workdir[PATH_MAX + 64];	/* work/L */
	char work[PATH_MAX + 80];	/* work/L/src */
	char build[PATH_MAX + 80];	/* work/L/build */
	char name[NAME_MAX_LEN + 1];
	char localversion[NAME_MAX_LEN + 16];
	struct strbuf keytext;
	int lockfd;
};

const char *kbuild_cache(void)
{
	const char *c = getenv("FOLIOBENCH_KERNEL_CACHE");

	return c && c[0] ? c : KERNEL_CACHE;
}

int kbuild_mkdirs(const char *path)
{
	char p[PATH_MAX];
	char *s;

	if (snprintf(p, sizeof(p), "%s", path) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	for (s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

const char *kbuild_fragment(void)
{
	static char path[PATH_MAX + 64];
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;
	int up;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	for (up = 0; up < 3; up++) {
		slash = strrchr(exe, '/');
		if (!slash)
			break;
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/kernel/guest.config", exe);
		if (!access(path, R_OK))
			return path;
	}
	return NULL;
}

static bool is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/*
 * sh -c script with args as $1...: the exit status (-1: not run), stdout
 * into out and stderr into eo where not NULL.  GIT_CEILING_DIRECTORIES
 * keeps git from taking a repository above the cache for the tree's.
 */
static int sh(const struct kb *b, const char *script, const char *a1,
	      const char *a2, const char *a3, struct strbuf *out,
	      struct strbuf *eo)
{
	char *argv[] = { "sh", "-c", (char *)script, "kbuild", (char *)a1,
			 (char *)a2, (char *)a3, NULL };

	if (b->workdir[0])
		setenv("GIT_CEILING_DIRECTORIES", b->workdir, 1);
	return vm_spawn_wait(argv, out, eo);
}

/* The first word of out (a hash), into h: 0 or -1. */
static int first_word(const struct strbuf *out, char *h, size_t n)
{
	size_t w;

	if (!out->buf)
		return -1;
	w = strcspn(out->buf, " \t\n");
	if (!w || w >= n)
		return -1;
	memcpy(h, out->buf, w);
	h[w] = '\0';
	return 0;
}

static int hash_file(const struct kb *b, const char *path, char *h, size_t n)
{
	struct strbuf out = STRBUF_INIT;
	int r = sh(b, "sha256sum < \"$1\"", path, NULL, NULL, &out, NULL);

	r = r || first_word(&out, h, n) ? -1 : 0;
	strbuf_release(&out);
	return r;
}

static int hash_text(const struct kb *b, const char *text, char *h,
		     size_t n)
{
	struct strbuf out = STRBUF_INIT;
	int r = sh(b, "printf %s \"$1\" | sha256sum", text, NULL, NULL, &out,
		   NULL);

	r = r || first_word(&out, h, n) ? -1 : 0;
	strbuf_release(&out);
	return r;
}

static int fail(struct kb *b, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct kb *b, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(b->err, fmt, ap);
	va_end(ap);
	return code;
}

/* The tools a build needs, each named where it is missing. */
static int check_tools(struct kb *b)
{
	static const char *const tools[] = {
		"make", "gcc", "flex", "bison", "bc", "perl", "git",
		"sha256sum", "tar", "xz",
	};
	struct strbuf miss = STRBUF_INIT;
	char path[64];
	size_t i;
	int r = 0;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		struct strbuf out = STRBUF_INIT;

		if (sh(b, "command -v \"$1\"", tools[i], NULL, NULL, &out,
		       NULL))
			strbuf_addf(&miss, " %s", tools[i]);
		strbuf_release(&out);
	}
	snprintf(path, sizeof(path), "/usr/include/libelf.h");
	if (access(path, R_OK))
		strbuf_addstr(&miss, " libelf.h (libelf-dev)");
	if (access("/usr/include/openssl/ssl.h", R_OK))
		strbuf_addstr(&miss, " openssl/ssl.h (libssl-dev)");
	if (miss.len)
		r = fail(b, KB_ENOTOOL, "cannot build a kernel: missing%s; "
			 "`make deps` (mk/deps.sh) installs them, or apt-get "
			 "install build-essential flex bison bc libelf-dev "
			 "libssl-dev git xz-utils", miss.buf);
	strbuf_release(&miss);
	return r;
}

/* The source's kind, absolute path and content identity. */
static int find_source(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	struct strbuf out = STRBUF_INIT, eo = STRBUF_INIT;
	char h[80];
	int r;

	if (!realpath(o->src, b->src))
		return fail(b, KB_ENOSRC, "kernel source '%s': %s", o->src,
			    strerror(errno));
	if (is_dir(b->src)) {
		char mk[PATH_MAX + 16];

		snprintf(mk, sizeof(mk), "%s/Makefile", b->src);
		snprintf(mk, sizeof(mk), "%s/.git", b->src);
		if (o->ref && access(mk, F_OK))
			return fail(b, KB_EUSAGE, "--ref '%s': %s is not a "
				    "git tree (no .git)", o->ref, b->src);
		snprintf(mk, sizeof(mk), "%s/Makefile", b->src);
		if (o->ref) {
			b->kind = SRC_GIT;
			r = sh(b, "git -C \"$1\" rev-parse --verify -q "
			       "\"$2^{commit}\"", b->src, o->ref, NULL, &out,
			       &eo);
			if (r || first_word(&out, h, sizeof(h))) {
				strbuf_release(&out);
				strbuf_release(&eo);
				return fail(b, KB_EUSAGE, "--ref '%s': not a "
					    "commit of the git tree %s",
					    o->ref, b->src);
			}
			snprintf(b->ident, sizeof(b->ident), "git %s", h);
		} else {
			if (access(mk, R_OK))
				return fail(b, KB_ENOSRC, "%s: not a kernel "
					    "tree (no Makefile)", b->src);
			b->kind = SRC_DIR;
			r = sh(b, "cd \"$1\" && find . -path ./.git -prune -o "
			       "-type f -printf '%P %s %T@\\n' | LC_ALL=C "
			       "sort | sha256sum", b->src, NULL, NULL, &out,
			       NULL);
			if (r || first_word(&out, h, sizeof(h))) {
				strbuf_release(&out);
				return fail(b, KB_ENOSRC, "%s: cannot list "
					    "the tree", b->src);
			}
			snprintf(b->ident, sizeof(b->ident), "tree %s", h);
		}
		strbuf_release(&out);
		strbuf_release(&eo);
		/* one build directory a tree, wherever its refs go */
		if (hash_text(b, b->src, h, sizeof(h)))
			return fail(b, KB_EINTERNAL, "cannot hash %s", b->src);
		snprintf(b->lineage, sizeof(b->lineage), "%.16s", h);
		return 0;
	}
	if (o->ref)
		return fail(b, KB_EUSAGE, "--ref '%s': %s is not a git tree",
			    o->ref, b->src);
	if (vm_ends_with(b->src, ".deb"))
		b->kind = SRC_DEB;
	else if (strstr(b->src, ".tar"))
		b->kind = SRC_TAR;
	else
		return fail(b, KB_ENOSRC, "kernel source '%s': not a "
			    "directory, a linux-source .deb or a tarball "
			    "(.tar, .tar.xz, .tar.gz)", o->src);
	if (hash_file(b, b->src, h, sizeof(h)))
		return fail(b, KB_ENOSRC, "cannot read %s", b->src);
	snprintf(b->ident, sizeof(b->ident), "file %s", h);
	snprintf(b->lineage, sizeof(b->lineage), "%.16s", h);
	return 0;
}

/* The name in the release: --name, else the patches' stems, else base. */
static int pick_name(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	struct strbuf n = STRBUF_INIT;
	size_t i, bad;

	if (o->name) {
		strbuf_addstr(&n, o->name);
	} else if (!o->npatches) {
		strbuf_addstr(&n, "base");
	}
	for (i = 0; !o->name && i < o->npatches; i++) {
		const char *s = strrchr(o->patches[i], '/');
		size_t len;

		s = s ? s + 1 : o->patches[i];
		len = strcspn(s, ".");
		/* "seed000-shmem-batch-remove.patch": the first word */
		if (strcspn(s, "-") < len && strcspn(s, "-") >= 3)
			len = strcspn(s, "-");
		strbuf_addf(&n, "%s%.*s", i ? "+" : "", (int)len, s);
	}
	bad = strspn(strbuf_str(&n), "abcdefghijklmnopqrstuvwxyz"
		     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+");
	if (!n.len || n.len > NAME_MAX_LEN || n.buf[bad] ||
	    strstr(n.buf, "..") || n.buf[0] == '.') {
		int r = fail(b, KB_EUSAGE, "kernel name '%s': 1 to %d letters, "
			     "digits and . _ + (it goes into the release, "
			     "after -fb-)%s", strbuf_str(&n), NAME_MAX_LEN,
			     o->name ? "" : "; give one with --name");

		strbuf_release(&n);
		return r;
	}
	snprintf(b->name, sizeof(b->name), "%s", n.buf);
	strbuf_release(&n);
	return 0;
}

/* The key: everything that makes the kernel, hashed; the text kept. */
static int make_key(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	struct strbuf cc = STRBUF_INIT;
	char h[80];
	size_t i;

	strbuf_addf(&b->keytext, "source %s\n", b->ident);
	for (i = 0; i < o->npatches; i++) {
		if (access(o->patches[i], R_OK) ||
		    hash_file(b, o->patches[i], h, sizeof(h)))
			return fail(b, KB_ENOSRC, "patch '%s': %s",
				    o->patches[i], strerror(errno ? errno :
							    EIO));
		strbuf_addf(&b->keytext, "patch %s\n", h);
	}
	strbuf_addstr(&b->keytext, "config x86_64_defconfig "
		      "kvm_guest.config\n");
	if (hash_file(b, o->fragment, h, sizeof(h)))
		return fail(b, KB_ENOSRC, "config fragment '%s': cannot read "
			    "it", o->fragment);
	strbuf_addf(&b->keytext, "fragment %s\n", h);
	sh(b, "gcc --version | head -1", NULL, NULL, NULL, &cc, NULL);
	strbuf_addf(&b->keytext, "compiler %s", cc.buf ? cc.buf : "?\n");
	strbuf_release(&cc);
	strbuf_addf(&b->keytext, "name %s\n", b->name);
	if (hash_text(b, b->keytext.buf, h, sizeof(h)))
		return fail(b, KB_EINTERNAL, "cannot hash the kernel's key");
	snprintf(b->res->key, sizeof(b->res->key), "%.16s", h);
	snprintf(b->localversion, sizeof(b->localversion), "-fb-%s-%.8s",
		 b->name, h);
	return 0;
}

/* A cached kernel: res->dir and release, true where it is there whole. */
static bool find_built(struct kb *b)
{
	char p[sizeof(b->res->dir) + 64];

	snprintf(b->res->dir, sizeof(b->res->dir), "%s/built/%s",
		 kbuild_cache(), b->res->key);
	snprintf(p, sizeof(p), "%s/include/config/kernel.release",
		 b->res->dir);
	return !read_file_str(p, b->res->release, sizeof(b->res->release)) &&
	       b->res->release[0];
}

static void say(const struct kb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct kb *b, const char *fmt, ...)
{
	va_list ap;

	if (b->o->progress)
		fputs("\r\033[K", stderr);
	fputs("bench: kernel: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* One build of this source at a time: 0, or -1 with err set. */
static int lock_lineage(struct kb *b)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/work/%s.lock", kbuild_cache(), b->lineage);
	b->lockfd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lockfd < 0)
		return fail(b, KB_EINTERNAL, "cannot open %s: %s", p,
			    strerror(errno));
	if (flock(b->lockfd, LOCK_EX | LOCK_NB)) {
		say(b, "another build of this source is running; waiting");
		if (flock(b->lockfd, LOCK_EX))
			return fail(b, KB_EINTERNAL, "cannot lock %s: %s", p,
				    strerror(errno));
	}
	return 0;
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
	char tmp[PATH_MAX + 96], name[40];
	int r;

	snprintf(b->pristine, sizeof(b->pristine), "%s/src/%s",
		 kbuild_cache(), b->lineage);
	if (is_dir(b->pristine))
		return 0;
	say(b, "unpacking %s", b->src);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", b->pristine, (int)getpid());
	snprintf(name, sizeof(name), "%s", b->lineage);
	r = sh(b, script, b->src, tmp, name, NULL, &eo);
	sh(b, "rm -rf \"$1\"", tmp, NULL, NULL, NULL, NULL);
	if (r || !is_dir(b->pristine)) {
		r = fail(b, KB_ENOSRC, "cannot unpack %s: %s", b->src,
			 eo.buf && eo.buf[0] ? eo.buf : "it failed");
		strbuf_release(&eo);
		return r;
	}
	strbuf_release(&eo);
	return 0;
}

/*
 * work/L/src as the source is, without the last build's patches: a copy
 * made once; the files the last patches touched put back (with a new
 * time, so make rebuilds what used them).  A git tree: a shared clone,
 * checked out at the commit (git rewrites only the files that differ).
 */
static int ready_tree(struct kb *b)
{
	static const char restore[] =
		"cd \"$1\" && while IFS= read -r f; do "
		"  if [ -f \"$2/$f\" ]; then cp \"$2/$f\" \"$f\" || exit 1; "
		"  else rm -f \"$f\"; fi; done < \"$3\"";
	struct strbuf eo = STRBUF_INIT;
	char applied[PATH_MAX + 96], tmp[PATH_MAX + 128];
	int r;

	snprintf(applied, sizeof(applied), "%s/applied", b->workdir);
	if (b->kind == SRC_GIT) {
		if (!is_dir(b->work))
			r = sh(b, "git clone -q --shared --no-checkout \"$1\" "
			       "\"$2\"", b->src, b->work, NULL, NULL, &eo);
		else
			r = 0;
		if (!r)
			r = sh(b, "cd \"$1\" && git checkout -q -f --detach "
			       "\"$2\" && git clean -q -fd", b->work,
			       b->ident + 4, NULL, NULL, &eo);
	} else if (!is_dir(b->work)) {
		say(b, "copying the source into the cache");
		snprintf(tmp, sizeof(tmp), "%s.tmp.%d", b->work,
			 (int)getpid());
		r = sh(b, "cp -a \"$1\" \"$2\" && mv \"$2\" \"$3\" || "
		       "{ rm -rf \"$2\"; exit 1; }", b->pristine, tmp, b->work,
		       NULL, &eo);
	} else {
		r = access(applied, F_OK) ? 0 :
		    sh(b, restore, b->work, b->pristine, applied, NULL, &eo);
	}
	if (r) {
		r = fail(b, KB_EINTERNAL, "cannot make the source tree %s: %s",
			 b->work, eo.buf ? eo.buf : "it failed");
		strbuf_release(&eo);
		return r;
	}
	strbuf_release(&eo);
	unlink(applied);
	return 0;
}

/*
 * The patches, in order, each checked then applied with git apply (a diff
 * or an mbox: the mail around the diff is skipped); the files each
 * touches listed in work/L/applied first, so that the next build puts
 * them back whatever happened.
 */
static int apply_patches(struct kb *b)
{
	static const char list[] =
		"git apply --numstat \"$2\" > \"$1.new\" && "
		"cut -f3- \"$1.new\" >> \"$1\"; r=$?; rm -f \"$1.new\"; "
		"exit $r";
	static const char apply[] =
		"cd \"$1\" && git apply --check -p1 \"$2\" && "
		"git apply -p1 \"$2\"";
	const struct kbuild_opts *o = b->o;
	char applied[PATH_MAX + 96], abs[PATH_MAX];
	size_t i;

	snprintf(applied, sizeof(applied), "%s/applied", b->workdir);
	for (i = 0; i < o->npatches; i++) {
		struct strbuf eo = STRBUF_INIT;
		int r;

		if (!realpath(o->patches[i], abs))
			return fail(b, KB_ENOSRC, "patch '%s': %s",
				    o->patches[i], strerror(errno));
		if (sh(b, list, applied, abs, NULL, NULL, &eo)) {
			r = fail(b, KB_EPATCH, "patch %s: not a patch git "
				 "apply reads: %s", o->patches[i],
				 eo.buf ? eo.buf : "");
			strbuf_release(&eo);
			return r;
		}
		say(b, "applying %s", o->patches[i]);
		if (sh(b, apply, b->work, abs, NULL, NULL, &eo)) {
			r = fail(b, KB_EPATCH, "patch %s does not apply to %s"
				 "%s:\n%s", o->patches[i], b->src,
				 i ? " with the patches before it" : "",
				 eo.buf ? eo.buf : "");
			strbuf_release(&eo);
			return r;
		}
		strbuf_release(&eo);
	}
	return 0;
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
	char cfg[PATH_MAX + 96];
	int r;

	say(b, "configuring (x86_64_defconfig + kvm_guest.config + %s)",
	    b->o->fragment);
	if (kbuild_mkdirs(b->build))
		return fail(b, KB_EINTERNAL, "cannot make %s: %s", b->build,
			    strerror(errno));
	r = sh(b, script, b->work, b->build, b->o->fragment, NULL, &eo);
	if (r) {
		r = fail(b, KB_ECONFIG, "cannot configure the kernel: %s",
			 eo.buf ? eo.buf : "make failed");
		strbuf_release(&eo);
		return r;
	}
	snprintf(cfg, sizeof(cfg), "%s/.config", b->build);
	r = sh(b, check, b->o->fragment, cfg, NULL, &out, NULL);
	if (r || (out.buf && out.buf[0]))
		r = fail(b, KB_ECONFIG, "the config fragment did not survive "
			 "olddefconfig:\n%s", out.buf ? out.buf : "");
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
 * make bzImage, its output into work/L/build.log and, on a terminal, one
 * line redrawn: files compiled, time so far, the file.
 */
static int compile(struct kb *b)
{
	char jobs[32], lv[NAME_MAX_LEN + 40], log[PATH_MAX + 96];
	char *argv[] = { "make", "-C", b->work, NULL, jobs, lv,
			 "KBUILD_BUILD_USER=foliobench",
			 "KBUILD_BUILD_HOST=foliobench", "bzImage", NULL };
	char obuild[PATH_MAX + 96], line[4096];
	double t0 = now_s(), last = 0;
	FILE *in, *lf;
	int p[2], st;
	pid_t pid;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(obuild, sizeof(obuild), "O=%s", b->build);
	argv[3] = obuild;
	snprintf(jobs, sizeof(jobs), "-j%u", b->o->jobs ? b->o->jobs :
		 (unsigned)(cpus > 0 ? cpus + 1 : 2));
	snprintf(lv, sizeof(lv), "LOCALVERSION=%s", b->localversion);
	snprintf(log, sizeof(log), "%s/build.log", b->workdir);
	lf = fopen(log, "we");
	if (!lf || pipe2(p, O_CLOEXEC))
		return fail(b, KB_EINTERNAL, "cannot write %s: %s", log,
			    strerror(errno));
	say(b, "compiling (make %s bzImage; its output in %s)", jobs, log);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return fail(b, KB_EINTERNAL, "fork: %s", strerror(errno));
	if (!pid) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		execvp("make", argv);
		_exit(127);
	}
	close(p[1]);
	in = fdopen(p[0], "r");
	while (in && fgets(line, sizeof(line), in)) {
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
				say(b, "%u files compiled, %.0f s",
				    b->res->compiled, t - t0);
			last = t;
		}
	}
	if (in)
		fclose(in);
	fclose(lf);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	b->res->seconds = now_s() - t0;
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		int r = fail(b, KB_EBUILD, "the kernel build failed (%s after "
			     "%.0f s; the whole log: %s):", WIFSIGNALED(st) ?
			     strsignal(WTERMSIG(st)) : "make exited non-zero",
			     b->res->seconds, log);

		error_lines(log, b->err);
		return r;
	}
	say(b, "%u files compiled in %um%02us", b->res->compiled,
	    (unsigned)b->res->seconds / 60, (unsigned)b->res->seconds % 60);
	return 0;
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
	char tmp[PATH_MAX + 64], dir[PATH_MAX];
	int r;

	snprintf(dir, sizeof(dir), "%s/built", kbuild_cache());
	if (kbuild_mkdirs(dir))
		return fail(b, KB_EINTERNAL, "cannot make %s: %s", dir,
			    strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s/%s.tmp.%d", dir, b->res->key,
		 (int)getpid());
	r = sh(b, script, b->build, tmp, b->keytext.buf, NULL, &eo);
	if (r || rename(tmp, b->res->dir)) {
		sh(b, "rm -rf \"$1\"", tmp, NULL, NULL, NULL, NULL);
		r = fail(b, KB_EINTERNAL, "cannot put the kernel into %s: %s",
			 b->res->dir, eo.buf ? eo.buf : strerror(errno));
		strbuf_release(&eo);
		return r;
	}
	strbuf_release(&eo);
	if (!find_built(b))
		return fail(b, KB_EINTERNAL, "%s: no kernel.release after "
			    "the build", b->res->dir);
	return 0;
}

static int build(struct kb *b)
{
	char p[PATH_MAX + 64];
	int r;

	snprintf(p, sizeof(p), "%s/work", kbuild_cache());
	if (kbuild_mkdirs(p))
		return fail(b, KB_EINTERNAL, "cannot make the kernel cache %s: "
			    "%s", p, strerror(errno));
	snprintf(b->workdir, sizeof(b->workdir), "%s/work/%s", kbuild_cache(),
		 b->lineage);
	snprintf(b->work, sizeof(b->work), "%s/src", b->workdir);
	snprintf(b->build, sizeof(b->build), "%s/%s", b->workdir,
		 b->o->config_only ? "config.tmp" : "build");
	if ((r = lock_lineage(b)))
		return r;
	if (!b->o->config_only && find_built(b)) {	/* built meanwhile */
		b->res->cached = true;
		return 0;
	}
	if (kbuild_mkdirs(b->workdir))
		return fail(b, KB_EINTERNAL, "cannot make %s: %s", b->workdir,
			    strerror(errno));
	if (b->kind == SRC_DEB || b->kind == SRC_TAR)
		r = unpack(b);
	else
		snprintf(b->pristine, sizeof(b->pristine), "%s", b->src);
	if (!r)
		r = ready_tree(b);
	if (!r)
		r = apply_patches(b);
	if (!r)
		r = configure(b);
	if (b->o->config_only) {
		snprintf(b->res->dir, sizeof(b->res->dir), "%s/.config",
			 b->build);
		return r;
	}
	if (!r)
		r = compile(b);
	if (!r)
		r = install(b);
	return r;
}

int kbuild(const struct kbuild_opts *o, struct kbuild_result *res,
	   struct strbuf *err)
{
	struct kbuild_opts oo = *o;
	struct kb b = { .o = &oo, .res = res, .err = err, .lockfd = -1 };
	int r;

	memset(res, 0, sizeof(*res));
	b.keytext = (struct strbuf)STRBUF_INIT;
	if (!oo.fragment)
		oo.fragment = kbuild_fragment();
	if (!oo.fragment)
		return fail(&b, KB_ENOSRC, "cannot find kernel/guest.config "
			    "beside this bench (the project's guest config "
			    "fragment); give one with --fragment");
	r = find_source(&b);
	if (!r)
		r = pick_name(&b);
	if (!r)
		r = make_key(&b);
	if (!r && !o->config_only && find_built(&b))
		res->cached = true;
	else if (!r && o->dry)
		snprintf(res->release, sizeof(res->release), "*%s",
			 b.localversion);
	else if (!r && !(r = check_tools(&b)))
		r = build(&b);
	if (b.lockfd >= 0)
		close(b.lockfd);
	strbuf_release(&b.keytext);
	unsetenv("GIT_CEILING_DIRECTORIES");
	return r;
}
