/*
 * Guest kernels from source (kbuild.h): what the kernel is and whether
 * the cache has it (kbuild_make.c makes it there).  The cache, under
 * kbuild_cache():
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
#include "kbuild_priv.h"
#include "runner.h"
#include "vm_priv.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KERNEL_CACHE "/var/cache/foliobench/kernels"

const char *kbuild_cache(void)
{
	const char *c = getenv("FOLIOBENCH_KERNEL_CACHE");

	return c && c[0] ? c : KERNEL_CACHE;
}

int kbuild_mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int r = 0;

	for (s = p + 1; *s && !r; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			r = -errno;
		*s = '/';
	}
	if (!r && mkdir(p, 0755) && errno != EEXIST)
		r = -errno;
	free(p);
	return r;
}

const char *kbuild_fragment(void)
{
	static char *path;

	if (!path)
		path = tree_file("kernel/guest.config");
	return path;
}

void kbuild_result_release(struct kbuild_result *res)
{
	free(res->dir);
	res->dir = NULL;
}

bool kb_is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* GIT_CEILING_DIRECTORIES keeps git from taking a repository above the
 * cache for the tree's. */
int kb_sh(const struct kb *b, const char *script, const char *a1,
	  const char *a2, const char *a3, struct strbuf *out,
	  struct strbuf *eo)
{
	char *argv[] = { "sh", "-c", (char *)script, "kbuild", (char *)a1,
			 (char *)a2, (char *)a3, NULL };

	if (b->workdir)
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

/* The first word of what script prints for $1 and $2, into h: 0 or -1. */
static int sh_word(const struct kb *b, const char *script, const char *a1,
		   const char *a2, char *h, size_t n)
{
	struct strbuf out = STRBUF_INIT;
	int r = kb_sh(b, script, a1, a2, NULL, &out, NULL);

	r = r || first_word(&out, h, n) ? -1 : 0;
	strbuf_release(&out);
	return r;
}

static int hash_file(const struct kb *b, const char *path, char *h, size_t n)
{
	return sh_word(b, "sha256sum < \"$1\"", path, NULL, h, n);
}

static int hash_text(const struct kb *b, const char *text, char *h,
		     size_t n)
{
	return sh_word(b, "printf %s \"$1\" | sha256sum", text, NULL, h, n);
}

int kb_fail(struct kb *b, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(b->err, fmt, ap);
	va_end(ap);
	return code;
}

void kb_say(const struct kb *b, const char *fmt, ...)
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

/* The tools a build needs, each named where it is missing. */
static int check_tools(struct kb *b)
{
	static const char *const tools[] = {
		"make", "gcc", "flex", "bison", "bc", "perl", "git",
		"sha256sum", "tar", "xz",
	};
	struct strbuf miss = STRBUF_INIT;
	size_t i;
	int r = 0;

	for (i = 0; i < ARRAY_SIZE(tools); i++) {
		struct strbuf out = STRBUF_INIT;

		if (kb_sh(b, "command -v \"$1\"", tools[i], NULL, NULL, &out,
			  NULL))
			strbuf_addf(&miss, " %s", tools[i]);
		strbuf_release(&out);
	}
	if (access("/usr/include/libelf.h", R_OK))
		strbuf_addstr(&miss, " libelf.h (libelf-dev)");
	if (access("/usr/include/openssl/ssl.h", R_OK))
		strbuf_addstr(&miss, " openssl/ssl.h (libssl-dev)");
	if (miss.len)
		r = kb_fail(b, KB_ENOTOOL, "cannot build a kernel: missing%s; "
			    "`make deps` (mk/deps.sh) installs them, or "
			    "apt-get install build-essential flex bison bc "
			    "libelf-dev libssl-dev git xz-utils", miss.buf);
	strbuf_release(&miss);
	return r;
}

/* A directory source: a git tree at --ref, or a tree as it is. */
static int dir_source(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	char *git = xstrfmt("%s/.git", b->src);
	char *mk = xstrfmt("%s/Makefile", b->src);
	bool nogit = access(git, F_OK), nomk = access(mk, R_OK);
	char h[80];

	free(git);
	free(mk);
	if (o->ref && nogit)
		return kb_fail(b, KB_EUSAGE, "--ref '%s': %s is not a git "
			       "tree (no .git)", o->ref, b->src);
	if (o->ref) {
		b->kind = SRC_GIT;
		if (sh_word(b, "git -C \"$1\" rev-parse --verify -q "
			    "\"$2^{commit}\"", b->src, o->ref, h, sizeof(h)))
			return kb_fail(b, KB_EUSAGE, "--ref '%s': not a "
				       "commit of the git tree %s", o->ref,
				       b->src);
		snprintf(b->ident, sizeof(b->ident), "git %s", h);
	} else {
		if (nomk)
			return kb_fail(b, KB_ENOSRC, "%s: not a kernel tree "
				       "(no Makefile)", b->src);
		b->kind = SRC_DIR;
		if (sh_word(b, "cd \"$1\" && find . -path ./.git -prune -o "
			    "-type f -printf '%P %s %T@\\n' | LC_ALL=C sort "
			    "| sha256sum", b->src, NULL, h, sizeof(h)))
			return kb_fail(b, KB_ENOSRC, "%s: cannot list the "
				       "tree", b->src);
		snprintf(b->ident, sizeof(b->ident), "tree %s", h);
	}
	/* one build directory a tree, wherever its refs go */
	if (hash_text(b, b->src, h, sizeof(h)))
		return kb_fail(b, KB_EINTERNAL, "cannot hash %s", b->src);
	snprintf(b->lineage, sizeof(b->lineage), "%.16s", h);
	return 0;
}

/* The source's kind, absolute path and content identity. */
static int find_source(struct kb *b)
{
	const struct kbuild_opts *o = b->o;
	char h[80];

	b->src = realpath(o->src, NULL);
	if (!b->src)
		return kb_fail(b, KB_ENOSRC, "kernel source '%s': %s", o->src,
			       strerror(errno));
	if (kb_is_dir(b->src))
		return dir_source(b);
	if (o->ref)
		return kb_fail(b, KB_EUSAGE, "--ref '%s': %s is not a git "
			       "tree", o->ref, b->src);
	if (vm_ends_with(b->src, ".deb"))
		b->kind = SRC_DEB;
	else if (strstr(b->src, ".tar"))
		b->kind = SRC_TAR;
	else
		return kb_fail(b, KB_ENOSRC, "kernel source '%s': not a "
			       "directory, a linux-source .deb or a tarball "
			       "(.tar, .tar.xz, .tar.gz)", o->src);
	if (hash_file(b, b->src, h, sizeof(h)))
		return kb_fail(b, KB_ENOSRC, "cannot read %s", b->src);
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
	if (!n.len || n.len > KB_NAME_MAX || n.buf[bad] ||
	    strstr(n.buf, "..") || n.buf[0] == '.') {
		int r = kb_fail(b, KB_EUSAGE, "kernel name '%s': 1 to %d "
				"letters, digits and . _ + (it goes into the "
				"release, after -fb-)%s", strbuf_str(&n),
				KB_NAME_MAX, o->name ? "" :
				"; give one with --name");

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
			return kb_fail(b, KB_ENOSRC, "patch '%s': %s",
				       o->patches[i],
				       strerror(errno ? errno : EIO));
		strbuf_addf(&b->keytext, "patch %s\n", h);
	}
	strbuf_addstr(&b->keytext, "config x86_64_defconfig "
		      "kvm_guest.config\n");
	if (hash_file(b, o->fragment, h, sizeof(h)))
		return kb_fail(b, KB_ENOSRC, "config fragment '%s': cannot "
			       "read it", o->fragment);
	strbuf_addf(&b->keytext, "fragment %s\n", h);
	kb_sh(b, "gcc --version | head -1", NULL, NULL, NULL, &cc, NULL);
	strbuf_addf(&b->keytext, "compiler %s", cc.buf ? cc.buf : "?\n");
	strbuf_release(&cc);
	strbuf_addf(&b->keytext, "name %s\n", b->name);
	if (hash_text(b, b->keytext.buf, h, sizeof(h)))
		return kb_fail(b, KB_EINTERNAL, "cannot hash the kernel's key");
	snprintf(b->res->key, sizeof(b->res->key), "%.16s", h);
	snprintf(b->localversion, sizeof(b->localversion), "-fb-%s-%.8s",
		 b->name, h);
	return 0;
}

bool kb_find_built(struct kb *b)
{
	char *p;
	int r;

	free(b->res->dir);
	b->res->dir = xstrfmt("%s/built/%s", kbuild_cache(), b->res->key);
	p = xstrfmt("%s/include/config/kernel.release", b->res->dir);
	r = read_file_str(p, b->res->release, sizeof(b->res->release));
	free(p);
	return !r && b->res->release[0];
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
		return kb_fail(&b, KB_ENOSRC, "cannot find "
			       "kernel/guest.config beside this bench (the "
			       "project's guest config fragment); give one "
			       "with --fragment");
	r = find_source(&b);
	if (!r)
		r = pick_name(&b);
	if (!r)
		r = make_key(&b);
	if (!r && !o->config_only && kb_find_built(&b))
		res->cached = true;
	else if (!r && o->dry)
		snprintf(res->release, sizeof(res->release), "*%s",
			 b.localversion);
	else if (!r && !(r = check_tools(&b)))
		r = kb_build(&b);
	if (b.lockfd >= 0)
		close(b.lockfd);
	strbuf_release(&b.keytext);
	free(b.src);
	free(b.pristine);
	free(b.workdir);
	free(b.work);
	free(b.build);
	unsetenv("GIT_CEILING_DIRECTORIES");
	return r;
}
