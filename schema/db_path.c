/*
 * The database file before SQLite opens it: its name, its kind, the
 * URI and mode it is read with, the -wal and -shm beside it.
 */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/common.h"
#include "db_priv.h"

int db_path_check(const char *path, struct strbuf *err)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!path[0])
		strbuf_addstr(err, "an empty name is not a file; name the "
			      "database file (results.db)");
	else if (!strcmp(path, ":memory:"))
		strbuf_addstr(err, "an in-memory database keeps nothing; "
			      "name a file (results.db)");
	/* SQLite's files beside it, the longest NAME-journal, need room */
	else if (strlen(base) > NAME_MAX - strlen("-journal"))
		strbuf_addf(err, "its name is %zu bytes: with -journal "
			    "beside it, past the %d a file name may have (at "
			    "most %zu)", strlen(base), NAME_MAX,
			    NAME_MAX - strlen("-journal"));
	else
		return 0;
	return -1;
}

/*
 * The name SQLite is given: a file name, never a URI (a name that starts
 * with "file:" is one to a SQLite built with SQLITE_USE_URI, as Debian's is,
 * "?mode=memory" and all).  path itself, or "./path" made in sb.
 */
const char *db_file_name(const char *path, struct strbuf *sb)
{
	if (strncmp(path, "file:", 5))
		return path;
	strbuf_reset(sb);
	strbuf_addf(sb, "./%s", path);
	return sb->buf;
}

/*
 * A file name as a URI that SQLite reads back as exactly that file: every
 * byte but [A-Za-z0-9/._~-] %-escaped, an absolute path with an empty
 * authority, a relative one after "./" (never ":memory:").
 */
void db_uri(struct strbuf *sb, const char *path, const char *query)
{
	const char *p;

	strbuf_addf(sb, "file:%s", path[0] == '/' ? "//" : "./");
	for (p = path; *p; p++) {
		unsigned char c = *p;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("/._~-", c))
			strbuf_addf(sb, "%c", c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
	strbuf_addf(sb, "%s", query);
}

/*
 * How merge's inputs and a read-only file system's databases are read:
 * immutable where it is a WAL database whose -wal is absent or empty (the
 * file holds every commit; reading it so makes no -wal or -shm beside it),
 * read-only with the usual locks otherwise.
 */
const char *db_read_query(const char *path)
{
	unsigned char h[20];
	char *wal;
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is_wal = false, empty = false;

	if (fd >= 0) {
		is_wal = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
			 !memcmp(h, "SQLite format 3", 16) && h[18] == 2;
		close(fd);
	}
	if (is_wal) {
		wal = xstrfmt("%s-wal", path);
		empty = stat(wal, &sb) || !sb.st_size;
		free(wal);
	}
	return empty ? "?immutable=1" : "?mode=ro";
}

int db_file_kind(const char *path, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) || S_ISREG(st.st_mode))
		return DB_OK;
	strbuf_addstr(err, S_ISDIR(st.st_mode) ? "it is a directory" :
		      "it is not a regular file");
	return DB_NOT_DB;
}

/*
 * A database to be made where no directory holds it: -1 with why added to
 * err ("its directory nodir does not exist"), where SQLite says only
 * "unable to open database file"; else 0.
 */
int db_no_dir(const char *path, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT;
	const char *slash = strrchr(path, '/');
	struct stat st;
	int r = 0;

	if (!access(path, F_OK) || (errno != ENOENT && errno != ENOTDIR))
		return 0;
	strbuf_addf(&dir, "%.*s", slash == path ? 1 : slash ?
		    (int)(slash - path) : 1, slash ? path : ".");
	if (stat(dir.buf, &st)) {
		strbuf_addf(err, "its directory %s does not exist", dir.buf);
		r = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		strbuf_addf(err, "%s, where it would be, is not a directory",
			    dir.buf);
		r = -1;
	}
	strbuf_release(&dir);
	return r;
}

/* Does path have a -wal or -shm beside it? */
bool db_wal_files(const char *path)
{
	char *wal = xstrfmt("%s-wal", path), *shm = xstrfmt("%s-shm", path);
	bool r = !access(wal, F_OK) || !access(shm, F_OK);

	free(wal);
	free(shm);
	return r;
}

/* Is path on a file system mounted read-only (where no one writes it)? */
bool db_read_only_fs(const char *path)
{
	struct statvfs vfs;

	return !statvfs(path, &vfs) && (vfs.f_flag & ST_RDONLY);
}
