/*
 * The check every -o makes before it writes: a report written over the
 * results database loses every run, and a rename over /dev/null replaces
 * the device with a file.
 */
#include "common/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The absolute name of path, its directory resolved (the caller's to
 * free); NULL if it has none.
 */
static char *canon(const char *path)
{
	char *real = realpath(path, NULL), *dir, *base, *out = NULL;

	if (real)
		return real;
	dir = xstrdup(path);
	base = xstrdup(path);
	real = realpath(dirname(dir), NULL);
	if (real)
		out = xstrfmt("%s/%s", strcmp(real, "/") ? real : "",
			      basename(base));
	free(real);
	free(dir);
	free(base);
	return out;
}

static bool same_file(const struct stat *a, const char *path)
{
	struct stat b;

	return !stat(path, &b) && a->st_dev == b.st_dev &&
	       a->st_ino == b.st_ino;
}

/* Is path (st: its stat, or NULL) the database or one of its files? */
static const char *db_file(const char *path, const struct stat *st,
			   const char *db)
{
	static const char *const suffix[] = { "", "-wal", "-shm", "-journal" };
	char *out = canon(path), *dbc = canon(db), *name;
	const char *f = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(suffix) && !f; i++) {
		name = xstrfmt("%s%s", db, suffix[i]);
		if (st && same_file(st, name))
			f = suffix[i];
		free(name);
		if (f || !out || !dbc)
			continue;
		name = xstrfmt("%s%s", dbc, suffix[i]);
		if (!strcmp(out, name))
			f = suffix[i];
		free(name);
	}
	free(out);
	free(dbc);
	return f;
}

int out_file_check(const char *path, const char *db, struct strbuf *err)
{
	struct stat st;
	bool exists = !stat(path, &st);
	const char *f = db ? db_file(path, exists ? &st : NULL, db) : NULL;

	if (f && !f[0])
		strbuf_addf(err, "refusing to write %s: it is the database %s",
			    path, db);
	else if (f)
		strbuf_addf(err, "refusing to write %s: it is the %s file of "
			    "the database %s", path, f, db);
	else if (exists && S_ISDIR(st.st_mode))
		strbuf_addf(err, "refusing to write %s: it is a directory",
			    path);
	else if (exists && !S_ISREG(st.st_mode))
		strbuf_addf(err, "refusing to write %s: it is not a regular "
			    "file", path);
	else
		return 0;
	return -1;
}

int out_no_link(const char *path, bool is_dir, struct strbuf *err)
{
	struct stat st;

	if (lstat(path, &st) || !S_ISLNK(st.st_mode))
		return 0;
	strbuf_addf(err, "refusing to write %s%s: it is a symbolic link",
		    is_dir ? "into " : "", path);
	return -1;
}

FILE *out_file_create(const char *path, struct strbuf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
			    O_CLOEXEC, 0666);
	FILE *f;
	int e;

	if (fd < 0 && errno == ELOOP && out_no_link(path, false, err)) {
		errno = EPERM;
		return NULL;
	}
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		e = errno;
		strbuf_addf(err, "cannot create %s: %s", path, strerror(e));
		if (fd >= 0)
			close(fd);
		errno = e;
	}
	return f;
}
