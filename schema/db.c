/* Opening and migrating the results database, and its error words. */
#include "db.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	snprintf(db->errbuf, sizeof(db->errbuf), "%s: %s", what,
		 db->h ? sqlite3_errmsg(db->h) : "out of memory");
	return db->h ? classify(sqlite3_extended_errcode(db->h)) : DB_ERR;
}

static int exec(struct db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		snprintf(db->errbuf, sizeof(db->errbuf), "%s", msg ? msg : "?");
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

const char *db_errmsg(const struct db *db)
{
	return db->errbuf;
}

int db_take_err(struct db *db, struct strbuf *why, int r)
{
	snprintf(db->errbuf, sizeof(db->errbuf), "%s", strbuf_str(why));
	strbuf_release(why);
	return r;
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

int db_negative_version(struct db *db, const char *schema)
{
	char sql[64];
	sqlite3_stmt *st;
	int v = 0;

	snprintf(sql, sizeof(sql), "PRAGMA %s.user_version", schema);
	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL))
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (v >= 0)
		return 0;
	snprintf(db->errbuf, sizeof(db->errbuf), "its user_version is %d, "
		 "and no foliobench schema version is negative", v);
	return DB_NOT_DB;
}

/* Why the first read failed: this layer's code, db->errbuf filled. */
static int open_error(struct db *db)
{
	int rc = sqlite3_extended_errcode(db->h), r = classify(rc);

	if (db_negative_version(db, "main"))
		return DB_NOT_DB;
	snprintf(db->errbuf, sizeof(db->errbuf), "%s", sqlite3_errmsg(db->h));
	/* a WAL database on a read-only file system cannot make its -shm */
	if (access(db->path, W_OK) && errno == EROFS) {
		snprintf(db->errbuf, sizeof(db->errbuf), "its file system is "
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
		snprintf(db->errbuf, sizeof(db->errbuf),
			 "schema version %d is newer than this tool's %d", v,
			 DB_SCHEMA_VERSION);
		return DB_TOO_NEW;
	}
	/*
	 * Said where someone waits at a terminal: from 14, 15 rewrites every
	 * sample (91 s for a lab's 10^6, docs/scale.md); 16 adds a trigger.
	 */
	if (v > 0 && v < 15 && isatty(STDERR_FILENO))
		fprintf(stderr, "bench: %s: schema %d -> %d, migrating in "
			"place (a minute or more at 10^6 samples)\n", db->path,
			v, DB_SCHEMA_VERSION);
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

			snprintf(keep, sizeof(keep), "%.390s", db->errbuf);
			exec(db, "ROLLBACK");
			snprintf(db->errbuf, sizeof(db->errbuf), "migration %s: %s",
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
	snprintf(db->errbuf, sizeof(db->errbuf), n ? "it holds tables of another "
		 "program and no foliobench schema (user_version 0)" :
		 "it has no foliobench schema yet (an empty SQLite file; "
		 "`bench run` makes one)");
	return DB_NOT_DB;
}

/*
 * What open_mode checks before SQLite opens path: a path it can name
 * (*name, made in buf where it is not path), there unless it is to be
 * made, a file SQLite can hold,
 * a directory to make it in.
 */
static int check_path(struct db *db, const char *path, enum open_mode mode,
		      struct strbuf *buf, const char **name)
{
	struct strbuf why = STRBUF_INIT;

	if (db_path_check(path, &why))
		return db_take_err(db, &why, DB_ERR);
	*name = db_file_name(path, buf);
	if (mode != OPEN_CREATE && access(path, F_OK)) {
		snprintf(db->errbuf, sizeof(db->errbuf), "%s", strerror(errno));
		return DB_MISSING;
	}
	if (db_file_kind(path, &why))
		return db_take_err(db, &why, DB_NOT_DB);
	if (mode == OPEN_CREATE && db_no_dir(path, &why))
		return db_take_err(db, &why, DB_ERR);
	return DB_OK;
}

/* A writer's connection: writable indeed, WAL, its pragmas, migrated. */
static int set_up_writer(struct db *db, const char *path,
			 enum open_mode mode)
{
	int r;

	/* SQLite opens a file it may not write read-only, silently */
	if (mode == OPEN_CREATE && sqlite3_db_readonly(db->h, "main") == 1) {
		snprintf(db->errbuf, sizeof(db->errbuf), "%s",
			 access(path, W_OK) && errno == EROFS ?
			 "its file system is mounted read-only" :
			 "the file is read-only");
		return DB_READONLY;
	}
	if ((r = journal_wal(db)) ||
	    (r = exec(db, "PRAGMA synchronous = NORMAL")) ||
	    (r = exec(db, "PRAGMA foreign_keys = ON")))
		return r;
	return migrate(db);
}

static int open_mode(struct db *db, const char *path, enum open_mode mode);

/*
 * The connection open_mode made, of schema version v (negative: not read):
 * a reader's set up, or the file opened again as a writer where only a
 * writer can read it (a WAL to recover, a hot journal, an older schema
 * to migrate); a writer's set up.  Closed on an error.
 */
static int opened(struct db *db, const char *path, enum open_mode mode,
		  int v, bool tidy)
{
	int r;

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
	r = set_up_writer(db, path, mode);
	if (r)
		db_close(db);
	return r;
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
	struct strbuf uri = STRBUF_INIT, buf = STRBUF_INIT;
	const char *name;
	bool tidy = mode == OPEN_READ && !db_wal_files(path);
	int r, v;

	memset(db, 0, sizeof(*db));
	snprintf(db->path, sizeof(db->path), "%s", path);
	r = check_path(db, path, mode, &buf, &name);
	if (r) {
		strbuf_release(&buf);
		return r;
	}
again:
	if (sqlite3_open_v2(name, &db->h, flags, NULL) != SQLITE_OK) {
		fail(db, "cannot open");
		db_close(db);
		strbuf_release(&uri);
		strbuf_release(&buf);
		return DB_ERR;
	}
	sqlite3_busy_timeout(db->h, DB_BUSY_MS);
	/* a file that is not SQLite fails on its first read (or is locked) */
	v = db_schema_version(db);
	/*
	 * A WAL database on a read-only file system: no -shm can be made
	 * there, and no one writes it; read as merge reads its inputs.
	 */
	if (v < 0 && mode == OPEN_READ && !uri.len && db_read_only_fs(path) &&
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
	strbuf_release(&buf);
	return opened(db, path, mode, v, tidy);
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
	struct strbuf buf = STRBUF_INIT;
	const char *name = db_file_name(path, &buf);
	sqlite3 *h = NULL;

	if (db_wal_files(path) &&
	    sqlite3_open_v2(name, &h, SQLITE_OPEN_READWRITE, NULL) ==
	    SQLITE_OK)
		sqlite3_exec(h, "SELECT count(*) FROM sqlite_master", NULL,
			     NULL, NULL);
	sqlite3_close_v2(h);
	strbuf_release(&buf);
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
	default:	/* DB_ERR: db->errbuf says what */
		return "a database error";
	}
}
