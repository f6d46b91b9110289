/* Opening, migrating and writing the results database. */
#include "db.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <stdlib.h>
#include <zlib.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_series.h"
#include "schema_sql.h"

/* The kind of a SQLite error, as this layer's code. */
static int classify(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return DB_FULL;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return DB_BUSY;
	case SQLITE_READONLY:
		return DB_READONLY;
	case SQLITE_CORRUPT:
		return DB_CORRUPT;
	case SQLITE_NOTADB:
		return DB_NOT_DB;
	default:
		return DB_ERR;
	}
}

static int fail(struct db *db, const char *what)
{
	snprintf(db->err, sizeof(db->err), "%s: %s", what,
		 db->h ? sqlite3_errmsg(db->h) : "out of memory");
	return db->h ? classify(sqlite3_extended_errcode(db->h)) : DB_ERR;
}

static int exec(struct db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		snprintf(db->err, sizeof(db->err), "%s", msg ? msg : "?");
		sqlite3_free(msg);
		return classify(rc);
	}
	return DB_OK;
}

int db_exec(struct db *db, const char *sql)
{
	return exec(db, sql);
}

int db_fail(struct db *db, const char *what)
{
	return fail(db, what);
}


int db_schema_version(struct db *db)
{
	sqlite3_stmt *st;
	int v = -1;

	if (sqlite3_prepare_v2(db->h, "PRAGMA user_version", -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_negative_version(sqlite3 *h, const char *schema, char *why, size_t n)
{
	char sql[64];
	sqlite3_stmt *st;
	int v = 0;

	snprintf(sql, sizeof(sql), "PRAGMA %s.user_version", schema);
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL))
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v >= 0)
		return 0;
	snprintf(why, n, "its user_version is %d, and no foliobench schema "
		 "version is negative", v);
	return DB_NOT_DB;
}

/* Why the first read failed: this layer's code, db->err filled. */
static int open_error(struct db *db)
{
	int rc = sqlite3_extended_errcode(db->h), r = classify(rc);

	if (db_negative_version(db->h, "main", db->err, sizeof(db->err)))
		return DB_NOT_DB;
	snprintf(db->err, sizeof(db->err), "%s", sqlite3_errmsg(db->h));
	/* a WAL database on a read-only file system cannot make its -shm */
	if (access(db->path, W_OK) && errno == EROFS) {
		snprintf(db->err, sizeof(db->err), "its file system is "
			 "mounted read-only");
		return DB_READONLY;
	}
	/* what cannot be read at all is not a database */
	return r == DB_ERR || r == DB_CORRUPT ? DB_NOT_DB : r;
}

/* Each step in its own transaction, which also sets user_version. */
static int migrate(struct db *db)
{
	int v = db_schema_version(db), i;
	char pragma[64];
	bool series = v < 10;	/* run_series is to be made */
	bool packs = v < 14;	/* run_packs is to be made from it */

	if (v < 0)
		return fail(db, "cannot read the schema version");
	if (v > DB_SCHEMA_VERSION) {
		snprintf(db->err, sizeof(db->err),
			 "schema version %d is newer than this tool's %d", v,
			 DB_SCHEMA_VERSION);
		return DB_TOO_NEW;
	}
	for (i = 0; i < schema_nsteps; i++) {
		const struct schema_step *s = &schema_steps[i];
		int r;

		if (s->version <= v)
			continue;
		r = exec(db, "BEGIN IMMEDIATE");

		if (r)
			return r;
		/*
		 * Another process (a reader beside this one) may have taken
		 * the step while this one waited for the write lock.
		 */
		v = db_schema_version(db);
		if (v < 0) {
			exec(db, "ROLLBACK");
			return fail(db, "cannot read the schema version");
		}
		if (s->version <= v) {
			r = exec(db, "COMMIT");
			if (r)
				return r;
			continue;
		}
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d",
			 s->version);
		/*
		 * run_series is made from the samples (db_series.c) at the
		 * last step, once every column the builder reads is there
		 * (samples.profiled, 11)
		 */
		if ((r = exec(db, s->sql)) ||
		    (series && i == schema_nsteps - 1 &&
		     (r = db_series_missing(db))) ||
		    (packs && i == schema_nsteps - 1 &&
		     (r = db_pack_missing(db))) ||
		    (r = exec(db, pragma))) {
			char keep[400];

			snprintf(keep, sizeof(keep), "%.390s", db->err);
			exec(db, "ROLLBACK");
			snprintf(db->err, sizeof(db->err), "migration %s: %s",
				 s->file, keep);
			return r;
		}
		r = exec(db, "COMMIT");
		if (r)
			return r;
	}
	return DB_OK;
}

/*
 * Switch a rollback-journal database to WAL.  The switch takes an exclusive
 * lock without calling the busy handler, so two processes that open such a
 * file at once see SQLITE_BUSY at once: try again within the busy timeout.
 */
static int journal_wal(struct db *db)
{
	struct timespec t0, now, pause = { 0, 5 * 1000 * 1000 };
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = exec(db, "PRAGMA journal_mode = WAL");
		if (r != DB_BUSY)
			return r;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - t0.tv_sec) * 1000 +
		    (now.tv_nsec - t0.tv_nsec) / 1000000 >= DB_BUSY_MS)
			return r;
		nanosleep(&pause, NULL);
	}
}

int db_path_check(const char *path, char *why, size_t n)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	if (!path[0])
		snprintf(why, n, "an empty name is not a file; name the "
			 "database file (results.db)");
	else if (!strcmp(path, ":memory:"))
		snprintf(why, n, "an in-memory database keeps nothing; name "
			 "a file (results.db)");
	/* SQLite's files beside it, the longest NAME-journal, need room */
	else if (strlen(base) > NAME_MAX - strlen("-journal"))
		snprintf(why, n, "its name is %zu bytes: with -journal beside "
			 "it, past the %d a file name may have (at most %zu)",
			 strlen(base), NAME_MAX, NAME_MAX - strlen("-journal"));
	else
		return 0;
	return -1;
}

/*
 * The name SQLite is given: a file name, never a URI (a name that starts
 * with "file:" is one to a SQLite built with SQLITE_USE_URI, as Debian's is,
 * "?mode=memory" and all).  NULL when it does not fit.
 */
static const char *file_name(const char *path, char *buf, size_t n)
{
	if (strncmp(path, "file:", 5))
		return path;
	if ((size_t)snprintf(buf, n, "./%s", path) >= n)
		return NULL;
	return buf;
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
	char wal[4200];
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is_wal = false;

	if (fd >= 0) {
		is_wal = read(fd, h, sizeof(h)) == (ssize_t)sizeof(h) &&
			 !memcmp(h, "SQLite format 3", 16) && h[18] == 2;
		close(fd);
	}
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (is_wal && (stat(wal, &sb) || !sb.st_size))
		return "?immutable=1";
	return "?mode=ro";
}

/* How many tables (and views, indexes) the database has; -1 unknown. */
static int schema_objects(struct db *db)
{
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(db->h, "SELECT count(*) FROM sqlite_master",
			       -1, &st, NULL))
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

enum open_mode { OPEN_READ, OPEN_WRITE, OPEN_CREATE };

/*
 * Schema version 0 is a database foliobench did not make: its schema is made
 * only where the command may (create) and the file holds nothing else.
 */
static int check_foreign(struct db *db, int v, enum open_mode mode)
{
	int n;

	if (v)
		return DB_OK;
	/*
	 * Version and tables read in one transaction: a process beside this
	 * one may have made the schema since v was read (merges, runs into
	 * one new file at once).
	 */
	if (exec(db, "BEGIN"))
		return open_error(db);
	v = db_schema_version(db);
	n = schema_objects(db);
	exec(db, "COMMIT");
	if (v > 0)
		return DB_OK;
	if (v < 0 || n < 0)
		return open_error(db);
	if (mode == OPEN_CREATE && !n)
		return DB_OK;
	snprintf(db->err, sizeof(db->err), n ? "it holds tables of another "
		 "program and no foliobench schema (user_version 0)" :
		 "it has no foliobench schema yet (an empty SQLite file; "
		 "`bench run` makes one)");
	return DB_NOT_DB;
}

int db_file_kind(const char *path, char *why, size_t n)
{
	struct stat st;

	if (stat(path, &st) || S_ISREG(st.st_mode))
		return DB_OK;
	snprintf(why, n, "%s", S_ISDIR(st.st_mode) ? "it is a directory" :
		 "it is not a regular file");
	return DB_NOT_DB;
}

/*
 * A database to be made where no directory holds it: why filled ("its
 * directory nodir does not exist"), where SQLite says only "unable to open
 * database file"; -1, else 0.
 */
static int no_dir(const char *path, char *why, size_t n)
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
		snprintf(why, n, "its directory %s does not exist", dir.buf);
		r = -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(why, n, "%s, where it would be, is not a directory",
			 dir.buf);
		r = -1;
	}
	strbuf_release(&dir);
	return r;
}

/* Does path have a -wal or -shm beside it? */
static bool wal_files(const char *path)
{
	char name[4200];

	snprintf(name, sizeof(name), "%s-wal", path);
	if (!access(name, F_OK))
		return true;
	snprintf(name, sizeof(name), "%s-shm", path);
	return !access(name, F_OK);
}

/* Is path on a file system mounted read-only (where no one writes it)? */
static bool read_only_fs(const char *path)
{
	struct statvfs vfs;

	return !statvfs(path, &vfs) && (vfs.f_flag & ST_RDONLY);
}

static int open_mode(struct db *db, const char *path, enum open_mode mode)
{
	/*
	 * A reader's connection is used by one thread (the reports have no
	 * other): no mutex a call (SQLite's serialized mode took 20% of the
	 * CPU time of a compare reading 10^6 samples' series, issue 31).
	 */
	int flags = mode == OPEN_READ ? SQLITE_OPEN_READONLY |
					SQLITE_OPEN_NOMUTEX :
		    SQLITE_OPEN_READWRITE |
		    (mode == OPEN_CREATE ? SQLITE_OPEN_CREATE : 0);
	struct strbuf uri = STRBUF_INIT;
	char buf[4200];
	const char *name;
	bool tidy = mode == OPEN_READ && !wal_files(path);
	int r, v;

	memset(db, 0, sizeof(*db));
	snprintf(db->path, sizeof(db->path), "%s", path);
	if (db_path_check(path, db->err, sizeof(db->err)))
		return DB_ERR;
	name = file_name(path, buf, sizeof(buf));
	if (!name) {
		snprintf(db->err, sizeof(db->err), "%s", strerror(ENAMETOOLONG));
		return DB_ERR;
	}
	if (mode != OPEN_CREATE && access(path, F_OK)) {
		snprintf(db->err, sizeof(db->err), "%s", strerror(errno));
		return DB_MISSING;
	}
	if (db_file_kind(path, db->err, sizeof(db->err)))
		return DB_NOT_DB;
	if (mode == OPEN_CREATE && no_dir(path, db->err, sizeof(db->err)))
		return DB_ERR;
again:
	if (sqlite3_open_v2(name, &db->h, flags, NULL) != SQLITE_OK) {
		fail(db, "cannot open");
		db_close(db);
		strbuf_release(&uri);
		return DB_ERR;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_MS);
	/* a file that is not SQLite fails on its first read (or is locked) */
	v = db_schema_version(db);
	/*
	 * A WAL database on a read-only file system: no -shm can be made
	 * there, and no one writes it; read as merge reads its inputs.
	 */
	if (v < 0 && mode == OPEN_READ && !uri.len && read_only_fs(path) &&
	    !strcmp(db_read_query(path), "?immutable=1")) {
		db_close(db);
		db_uri(&uri, path, "?immutable=1");
		name = uri.buf;
		flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX |
			SQLITE_OPEN_URI;
		tidy = false;
		goto again;
	}
	strbuf_release(&uri);
	if (v < 0) {
		/* a WAL to recover, a hot journal: only a writer can */
		if (mode == OPEN_READ &&
		    (sqlite3_extended_errcode(db->h) & 0xff) == SQLITE_READONLY) {
			db_close(db);
			return open_mode(db, path, OPEN_WRITE);
		}
		r = open_error(db);
		db_close(db);
		return r;
	}
	r = check_foreign(db, v, mode);
	if (r) {
		db_close(db);
		return r;
	}
	if (mode == OPEN_READ && v < DB_SCHEMA_VERSION) {
		/* an older foliobench schema: migrated in place, as run does */
		db_close(db);
		return open_mode(db, path, OPEN_WRITE);
	}
	if (mode == OPEN_READ) {
		/*
		 * Pages read in place, not copied by a read(2) each (a fifth
		 * of the same compare's CPU time); as much of the file as
		 * this SQLite maps (SQLITE_MAX_MMAP_SIZE), the rest is read.
		 */
		exec(db, "PRAGMA mmap_size = 4294967296");
		r = migrate(db);	/* writes nothing: refuses a newer one */
		if (r)
			db_close(db);
		db->tidy = tidy;
		return r;
	}
	/* SQLite opens a file it may not write read-only, silently */
	if (mode == OPEN_CREATE && sqlite3_db_readonly(db->h, "main") == 1) {
		snprintf(db->err, sizeof(db->err), "%s",
			 access(path, W_OK) && errno == EROFS ?
			 "its file system is mounted read-only" :
			 "the file is read-only");
		db_close(db);
		return DB_READONLY;
	}
	if ((r = journal_wal(db)) ||
	    (r = exec(db, "PRAGMA synchronous = NORMAL")) ||
	    (r = exec(db, "PRAGMA foreign_keys = ON"))) {
		db_close(db);
		return r;
	}
	r = migrate(db);
	if (r) {
		db_close(db);
		return r;
	}
	return DB_OK;
}

int db_open(struct db *db, const char *path, bool create)
{
	return open_mode(db, path, create ? OPEN_CREATE : OPEN_WRITE);
}

int db_open_read(struct db *db, const char *path)
{
	return open_mode(db, path, OPEN_READ);
}

/*
 * A reader cannot remove the -wal and -shm its reading made: the last
 * connection that may write does, as it closes.  One that opens and
 * closes does so where no other connection (a runner) has the file open,
 * and leaves them be where one has.
 */
static void tidy_wal(const char *path)
{
	char buf[4200];
	const char *name = file_name(path, buf, sizeof(buf));
	sqlite3 *h = NULL;

	if (name && wal_files(path) &&
	    sqlite3_open_v2(name, &h, SQLITE_OPEN_READWRITE, NULL) ==
	    SQLITE_OK)
		sqlite3_exec(h, "SELECT count(*) FROM sqlite_master", NULL,
			     NULL, NULL);
	sqlite3_close_v2(h);
}

void db_close(struct db *db)
{
	if (db->h)
		sqlite3_close_v2(db->h);
	db->h = NULL;
	if (db->tidy)
		tidy_wal(db->path);
	db->tidy = false;
}

void db_iso_now(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int i, rc = SQLITE_OK;

	for (i = 0; fmt[i] && rc == SQLITE_OK; i++) {
		const char *t;

		switch (fmt[i]) {
		case 't':
			t = va_arg(ap, const char *);
			rc = t ? sqlite3_bind_text(st, i + 1, t, -1,
						   SQLITE_TRANSIENT) :
				 sqlite3_bind_null(st, i + 1);
			break;
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1,
						va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1,
						 va_arg(ap, double));
			break;
		default:
			rc = sqlite3_bind_null(st, i + 1);
		}
	}
	return rc;
}

int db_vstmt(struct db *db, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, "prepare");
	db_vbind(st, fmt, ap);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_DONE && r != SQLITE_ROW)
		return fail(db, "write");
	return DB_OK;
}

int db_each(struct db *db, const char *what,
	    int (*fn)(struct db *db, sqlite3_stmt *st, void *arg), void *arg,
	    const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(db, what);
	va_start(ap, fmt);
	r = db_vbind(st, fmt, ap);
	va_end(ap);
	if (r != SQLITE_OK) {
		r = fail(db, what);
		sqlite3_finalize(st);
		return r;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(db, st, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	r = r == SQLITE_DONE ? DB_OK : fail(db, what);
	sqlite3_finalize(st);
	return r;
}

const char *db_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

double db_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	       sqlite3_column_double(st, i);
}

int db_stmt(struct db *db, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = db_vstmt(db, sql, fmt, ap);
	va_end(ap);
	return r;
}

int db_run_begin(struct db *db, const struct db_run *r, int64_t *run_id)
{
	char now[32];

	int rc;

	db_iso_now(now, sizeof(now));
	if ((rc = db_stmt(db, "INSERT INTO runs (uuid, label, kernel_release, "
		     "kernel_version, boot_id, hostname, cpu_model, vcpus, "
		     "mem_bytes, cmdline, thp, tmpfs, topology, tool_version, "
		     "config, pid, started_at, virt) VALUES "
		     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		     "tttttttiittttttitt", r->uuid, r->label, r->kernel_release,
		     r->kernel_version, r->boot_id, r->hostname, r->cpu_model,
		     (int64_t)r->vcpus, (int64_t)r->mem_bytes, r->cmdline,
		     r->thp, r->tmpfs, r->topology, r->tool_version, r->config,
		     (int64_t)r->pid, now, r->virt ? r->virt : "")))
		return rc;
	*run_id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

/* Roll back, keeping the error that made us; returns r. */
static int rollback_r(struct db *db, int r)
{
	char keep[512];

	snprintf(keep, sizeof(keep), "%s", db->err);
	exec(db, "ROLLBACK");
	snprintf(db->err, sizeof(db->err), "%s", keep);
	return r;
}

static int rollback(struct db *db)
{
	return rollback_r(db, DB_ERR);
}

void db_rollback(struct db *db)
{
	rollback(db);
}

int db_run_end(struct db *db, int64_t run_id, const char *status,
	       const char *reason)
{
	char now[32];

	int r;

	db_iso_now(now, sizeof(now));
	if ((r = db_stmt(db, "UPDATE runs SET status = ?, status_reason = ?, "
			  "ended_at = ? WHERE id = ?", "ttti", status, reason,
			  now, run_id)))
		return r;
	/* cases left pending by an interruption */
	if ((r = db_stmt(db, "UPDATE cases SET status = 'aborted' WHERE "
			 "run_id = ? AND status = 'pending'", "i", run_id)))
		return r;
	/*
	 * Its values as the reports read them, now that no more come: all
	 * or none (a run without them is read from its samples), and never
	 * the reason a run is not recorded as ended.
	 */
	if (exec(db, "SAVEPOINT run_series"))
		return DB_OK;
	if (db_series_run(db, run_id))
		exec(db, "ROLLBACK TO run_series");
	exec(db, "RELEASE run_series");
	return DB_OK;
}

int db_run_note(struct db *db, int64_t run_id, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	if (!db->h)
		return DB_ERR;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return db_stmt(db, "UPDATE runs SET status_reason = CASE WHEN "
			"status_reason IS NULL OR status_reason = '' THEN ? "
			"ELSE status_reason || '; ' || ? END WHERE id = ?",
			"tti", text, text, run_id);
}

int db_run_complete(struct db *db, int64_t run_id, const char *target)
{
	char now[32];

	db_iso_now(now, sizeof(now));
	if (exec(db, "BEGIN IMMEDIATE"))
		return DB_ERR;
	if (db_run_end(db, run_id, "complete", NULL))
		return rollback(db);
	if (target && db_stmt(db, "INSERT OR IGNORE INTO uploads (run_id, "
			       "target, created_at) VALUES (?,?,?)", "itt",
			       run_id, target, now))
		return rollback(db);
	if (exec(db, "COMMIT"))
		return rollback(db);
	return DB_OK;
}

int db_mend_running(struct db *db, const char *hostname, const char *boot_id,
		    bool (*alive)(int pid, const char *started_at), int *n)
{
	sqlite3_stmt *st;
	int64_t *dead = NULL;
	size_t ndead = 0, i;
	char now[32];
	int r = DB_OK, rc;

	*n = 0;
	/* read and marked in one transaction: no runner ends a run between */
	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		return fail(db, "write");
	if (sqlite3_prepare_v2(db->h, "SELECT id, pid, boot_id, started_at "
			       "FROM runs WHERE status = 'running' AND "
			       "hostname = ?", -1, &st, NULL) != SQLITE_OK)
		return rollback_r(db, fail(db, "prepare"));
	sqlite3_bind_text(st, 1, hostname, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *boot = (const char *)sqlite3_column_text(st, 2);
		const char *at = (const char *)sqlite3_column_text(st, 3);

		/* a runner of this boot still alive (another state dir) */
		if (boot && !strcmp(boot, boot_id) && at &&
		    sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
		    alive(sqlite3_column_int(st, 1), at))
			continue;
		dead = xrealloc(dead, (ndead + 1) * sizeof(*dead));
		dead[ndead++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		r = fail(db, "read the runs left running");
	sqlite3_finalize(st);
	db_iso_now(now, sizeof(now));
	for (i = 0; !r && i < ndead; i++) {
		r = db_stmt(db, "UPDATE cases SET status = 'aborted' WHERE "
			     "status = 'pending' AND run_id = ?", "i", dead[i]);
		if (!r)
			r = db_stmt(db, "UPDATE runs SET status = 'aborted', "
				     "status_reason = 'the runner died (found "
				     "at the next start)', ended_at = ? WHERE "
				     "id = ? AND status = 'running'", "ti", now,
				     dead[i]);
		if (!r)
			*n += sqlite3_changes(db->h);
	}
	free(dead);
	if (!r && (r = exec(db, "COMMIT")))
		*n = 0;
	return r ? rollback_r(db, r) : DB_OK;
}

int db_kwarn_store(struct db *db, int64_t run_id, const struct db_kwarn *w,
		   size_t n)
{
	size_t i;

	if (exec(db, "BEGIN IMMEDIATE"))
		return DB_ERR;
	for (i = 0; i < n; i++)
		if (db_stmt(db, "INSERT OR IGNORE INTO kernel_warnings (run_id, "
			     "seq, at_us, prio, line) VALUES (?,?,?,?,?)",
			     "iiiit", run_id, (int64_t)w[i].seq,
			     (int64_t)w[i].at_us, (int64_t)w[i].prio,
			     w[i].line))
			goto err;
	if (db_stmt(db, "UPDATE runs SET kernel_warnings = (SELECT count(*) "
		     "FROM kernel_warnings WHERE run_id = ?1) WHERE id = ?1",
		     "i", run_id))
		goto err;
	if (exec(db, "COMMIT"))
		goto err;
	return DB_OK;
err:
	db_rollback(db);
	return DB_ERR;
}

int db_case_add(struct db *db, int64_t run_id, int seq, const char *workload,
		const char *params, const char *asked, int64_t *case_id)
{
	int r = db_stmt(db, "INSERT INTO cases (run_id, seq, workload, "
			 "params, asked) VALUES (?,?,?,?,?)", "iittt", run_id,
			 (int64_t)seq, workload, params, asked);

	if (r)
		return r;
	*case_id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_case_status(struct db *db, int64_t case_id, const char *status,
		   const char *reason, const char *info)
{
	return db_stmt(db, "UPDATE cases SET status = ?, reason = ?, "
			"info = coalesce(?, info) WHERE id = ?", "ttti", status,
			reason, info, case_id);
}

int db_case_profile(struct db *db, int64_t case_id, const char *json)
{
	return db_stmt(db, "UPDATE cases SET profile = ? WHERE id = ?", "ti",
		       json, case_id);
}

int db_sample_add(struct db *db, int64_t case_id, int rep, bool warmup,
		  bool valid, const char *invalid_reason, int cpu,
		  const char *verify_json, const struct db_value *v, int nv)
{
	return db_sample_add_more(db, case_id, rep, warmup, valid,
				  invalid_reason, cpu, verify_json, v, nv,
				  NULL);
}

static int add_workers(struct db *db, int64_t sid,
		       const struct db_sample_more *m)
{
	int i, r0;

	r0 = db_stmt(db, "UPDATE samples SET workers = ?, noise = ?, noisy = ? "
		      "WHERE id = ?", "itii", (int64_t)m->workers, m->noise_json,
		      (int64_t)m->noisy, sid);
	if (r0)
		return r0;
	for (i = 0; i < m->nw; i++) {
		const struct db_worker *w = &m->w[i];
		sqlite3_stmt *st;
		int r;

		if (sqlite3_prepare_v2(db->h, "INSERT INTO sample_workers "
				       "(sample_id, worker, pu, pu_checked, node, "
				       "start_ns, wall_ns, nvcsw, nivcsw, "
				       "migrations, valid, invalid_reason, "
				       "metrics) VALUES "
				       "(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
				       NULL) != SQLITE_OK)
			return fail(db, "prepare");
		sqlite3_bind_int64(st, 1, sid);
		sqlite3_bind_int(st, 2, w->worker);
		sqlite3_bind_int(st, 3, w->pu);
		if (w->pu_checked >= 0)
			sqlite3_bind_int(st, 4, w->pu_checked);
		if (w->node >= 0)
			sqlite3_bind_int(st, 5, w->node);
		sqlite3_bind_int64(st, 6, w->start_ns);
		sqlite3_bind_int64(st, 7, w->wall_ns);
		sqlite3_bind_int64(st, 8, w->nvcsw);
		sqlite3_bind_int64(st, 9, w->nivcsw);
		if (w->migrations >= 0)
			sqlite3_bind_int64(st, 10, w->migrations);
		sqlite3_bind_int(st, 11, w->valid);
		if (w->invalid_reason)
			sqlite3_bind_text(st, 12, w->invalid_reason, -1,
					  SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 13, w->metrics_json, -1,
				  SQLITE_TRANSIENT);
		r = sqlite3_step(st);
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return fail(db, "write a worker");
	}
	return DB_OK;
}

/* A profiled call: its stacks added to the case's, the case's profile. */
static int add_profile(struct db *db, int64_t case_id, int64_t sid,
		       const struct db_sample_more *m)
{
	size_t i;
	int r;

	r = db_stmt(db, "UPDATE samples SET profiled = 1 WHERE id = ?", "i",
		    sid);
	for (i = 0; !r && i < m->nstacks; i++)
		r = db_stmt(db, "INSERT INTO profile_stacks (case_id, stack, "
			    "count) VALUES (?1, ?2, ?3) ON CONFLICT (case_id, "
			    "stack) DO UPDATE SET count = count + ?3", "iti",
			    case_id, m->stacks[i].stack,
			    (int64_t)m->stacks[i].count);
	if (!r && m->profile_json)
		r = db_case_profile(db, case_id, m->profile_json);
	return r;
}

int db_sample_add_more(struct db *db, int64_t case_id, int rep, bool warmup,
		       bool valid, const char *invalid_reason, int cpu,
		       const char *verify_json, const struct db_value *v,
		       int nv, const struct db_sample_more *more)
{
	char now[32];
	int64_t sid;
	int i, r;

	db_iso_now(now, sizeof(now));
	r = exec(db, "BEGIN IMMEDIATE");
	if (r)
		return r;
	r = db_stmt(db, "INSERT INTO samples (case_id, rep, warmup, valid, "
		     "invalid_reason, cpu, verify, taken_at) VALUES "
		     "(?,?,?,?,?,?,?,?)", "iiiititt", case_id, (int64_t)rep,
		     (int64_t)warmup, (int64_t)valid, invalid_reason,
		     (int64_t)cpu, verify_json, now);
	if (r)
		goto err;
	sid = sqlite3_last_insert_rowid(db->h);
	for (i = 0; i < nv; i++) {
		if (v[i].supported)
			r = db_stmt(db, "INSERT INTO sample_values (sample_id, "
				     "metric, value, unit, better, supported) "
				     "VALUES (?,?,?,?,?,1)", "itdtt", sid,
				     v[i].metric, v[i].value, v[i].unit,
				     v[i].better);
		else
			r = db_stmt(db, "INSERT INTO sample_values (sample_id, "
				     "metric, value, unit, better, supported) "
				     "VALUES (?,?,NULL,?,?,0)", "ittt", sid,
				     v[i].metric, v[i].unit, v[i].better);
		if (r)
			goto err;
	}
	if (more) {
		r = add_workers(db, sid, more);
		if (!r && more->profiled)
			r = add_profile(db, case_id, sid, more);
		if (r)
			goto err;
	}
	r = exec(db, "COMMIT");
	if (r)
		goto err;
	return DB_OK;
err:
	return rollback_r(db, r);
}

/* Over this, the XML is stored compressed (a 32-vCPU VM's is ~30 KiB). */
#define XML_PLAIN_MAX	4096

int db_run_topology(struct db *db, int64_t run_id, const char *shape,
		    const char *xml, size_t len)
{
	sqlite3_stmt *st;
	uLongf zlen = compressBound((uLong)len);
	unsigned char *z = NULL;
	bool zipped = len > XML_PLAIN_MAX;
	int r;

	if (zipped) {
		z = malloc(zlen);
		if (!z || compress2(z, &zlen, (const Bytef *)xml, (uLong)len,
				    Z_BEST_COMPRESSION) != Z_OK) {
			free(z);
			snprintf(db->err, sizeof(db->err), "cannot compress "
				 "the topology (%zu bytes of XML)", len);
			return DB_ERR;
		}
	}
	if (sqlite3_prepare_v2(db->h, "UPDATE runs SET topology_shape = ?, "
			       "topology_xml = ?, topology_xml_zlib = ?, "
			       "topology_xml_len = ? WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK) {
		free(z);
		return fail(db, "prepare");
	}
	sqlite3_bind_text(st, 1, shape, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 2, zipped ? (const void *)z : (const void *)xml,
			  (int)(zipped ? zlen : len), SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, zipped);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)len);
	sqlite3_bind_int64(st, 5, run_id);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	free(z);
	return r == SQLITE_DONE ? DB_OK : fail(db, "write the topology");
}

char *db_run_topology_xml(struct db *db, const char *uuid)
{
	sqlite3_stmt *st;
	char *out = NULL;

	if (sqlite3_prepare_v2(db->h, "SELECT topology_xml, topology_xml_zlib, "
			       "topology_xml_len FROM runs WHERE uuid = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		uLongf len = (uLongf)sqlite3_column_int64(st, 2);

		if (!sqlite3_column_int(st, 1))
			len = (uLongf)n;
		out = malloc(len + 1);
		if (out && sqlite3_column_int(st, 1)) {
			if (uncompress((Bytef *)out, &len, b, (uLong)n) !=
			    Z_OK) {
				free(out);
				out = NULL;
			}
		} else if (out) {
			memcpy(out, b, len);
		}
		if (out)
			out[len] = '\0';
	}
	sqlite3_finalize(st);
	return out;
}

int db_runs_each(struct db *db, int (*fn)(const struct db_run_row *, void *),
		 void *arg)
{
	sqlite3_stmt *st;
	int r = DB_OK;

	if (sqlite3_prepare_v2(db->h,
		"SELECT r.id, r.uuid, r.label, r.kernel_release, r.boot_id, "
		"r.status, r.started_at, r.ended_at, (SELECT count(*) FROM "
		"samples s JOIN cases c ON s.case_id = c.id WHERE c.run_id = "
		"r.id), (SELECT group_concat(u.target || ' ' || u.state || "
		"CASE WHEN u.state <> 'sent' AND u.last_error IS NOT NULL "
		"THEN ': ' || u.last_error || ' (' || u.attempts || "
		"CASE u.attempts WHEN 1 THEN ' try)' ELSE ' tries)' END "
		"ELSE '' END, '; ') FROM uploads u WHERE u.run_id = r.id), "
		"coalesce(r.kernel_warnings, -1), r.hostname, "
		"coalesce(r.pid, 0) FROM runs r ORDER BY r.id",
		-1, &st, NULL) != SQLITE_OK)
		return fail(db, "prepare");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_run_row row = {
			.id = sqlite3_column_int64(st, 0),
			.uuid = (const char *)sqlite3_column_text(st, 1),
			.label = (const char *)sqlite3_column_text(st, 2),
			.kernel_release = (const char *)sqlite3_column_text(st, 3),
			.boot_id = (const char *)sqlite3_column_text(st, 4),
			.status = (const char *)sqlite3_column_text(st, 5),
			.started_at = (const char *)sqlite3_column_text(st, 6),
			.ended_at = (const char *)sqlite3_column_text(st, 7),
			.nsamples = sqlite3_column_int64(st, 8),
			.upload = (const char *)sqlite3_column_text(st, 9),
			.kernel_warnings = sqlite3_column_int64(st, 10),
			.hostname = (const char *)sqlite3_column_text(st, 11),
			.pid = sqlite3_column_int(st, 12),
		};

		r = fn(&row, arg);
		if (r)
			break;
	}
	sqlite3_finalize(st);
	return r;
}

/* the words say the seconds: they follow the timeout */
_Static_assert(DB_BUSY_MS == 10000, "db_strerror's DB_BUSY words say 10 s");

const char *db_strerror(int code)
{
	switch (code) {
	case DB_OK:
		return "no error";
	case DB_TOO_NEW:
		return "a schema newer than this tool's";
	case DB_MISSING:
		return "no such database";
	case DB_NOT_DB:
	case DB_CORRUPT:
		return "not a foliobench database";
	case DB_FULL:
		return "the disk is full";
	case DB_BUSY:
		return "another process holds it locked, still after 10 s";
	case DB_READONLY:
		return "it cannot be written";
	case DB_BADROW:
		return "a row no report can use";
	default:	/* DB_ERR: db->err says what */
		return "a database error";
	}
}
