/*
 * What the two files of `bench kernel build` share, and nothing else
 * does: kbuild.c says what the kernel is (its source, name and key) and
 * whether the cache has it; kbuild_make.c makes it there (the lock, the
 * tree, the patches, the config, make, the install).
 */
#ifndef FB_KBUILD_PRIV_H
#define FB_KBUILD_PRIV_H

#include "kbuild.h"

#define KB_NAME_MAX 40

enum src_kind { SRC_DEB, SRC_TAR, SRC_DIR, SRC_GIT };

/* One build as kbuild() makes it on its way; its paths freed at its end. */
struct kb {
	const struct kbuild_opts *o;
	struct kbuild_result *res;
	struct strbuf *err;
	enum src_kind kind;
	char *src;			/* the source, absolute */
	char ident[200];		/* its content: a hash or a commit */
	char lineage[17];
	char *pristine;			/* src/L, or the directory itself */
	char *workdir;			/* work/L */
	char *work;			/* work/L/src */
	char *build;			/* work/L/build */
	char name[KB_NAME_MAX + 1];
	char localversion[KB_NAME_MAX + 16];
	struct strbuf keytext;
	int lockfd;
};

/*
 * sh -c script with args as $1...: the exit status (-1: not run), stdout
 * into out and stderr into eo where not NULL.
 */
int kb_sh(const struct kb *b, const char *script, const char *a1,
	  const char *a2, const char *a3, struct strbuf *out,
	  struct strbuf *eo);
/* fmt added to b->err; returns code. */
int kb_fail(struct kb *b, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A line of progress on stderr. */
void kb_say(const struct kb *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool kb_is_dir(const char *p);
/* A cached kernel: res->dir and release, true where it is there whole. */
bool kb_find_built(struct kb *b);

/* kbuild_make.c: the kernel made in the cache, or found made meanwhile. */
int kb_build(struct kb *b);

#endif
