/*
 * Merging result databases.  The merge has a connection of its own to the
 * output, on which the input is attached as "src", read-only: a WAL input
 * whose -wal holds nothing is attached immutable (no lock, no -wal or -shm
 * made next to it, so a read-only file system is no obstacle), any other
 * read-only with SQLite's locks.  An input of an older schema is copied
 * into memory and migrated there; nothing is ever written next to the
 * input or in a temporary directory (temp_store is memory), so a merge
 * that is killed or finds the disk full leaves no copy behind.
 *
 * The tables and columns come from the output's own schema (PRAGMA
 * table_info, foreign_key_list), so that a table a later migration adds is
 * merged without a change here; every column is checked to exist in the
 * input first.  Those names are the only text put into SQL, quoted as
 * identifiers, with double-quoted strings turned off on every connection
 * (SQLITE_DBCONFIG_DQS_*), so that a name that does not resolve is an
 * error and never read as a string.
 *
 * The new runs (by uuid) and everything under them are copied in one
 * transaction, in foreign-key order, one INSERT ... SELECT a table: a temp
 * table maps each table's ids in the input to the ones they get in the
 * output (max(id) + 1, 2, ... in the input's order), and the rows are
 * selected through the maps of their parents.  Where no other connection
 * has the output open, through a rollback journal (merge_journal_rollback).
 */
#include "merge_priv.h"

/*
 * The last schema step that changed a table the merge reads: an input of
 * this version or later is read as it is (16 added a trigger alone).
 */
#define MERGE_INPUT_TABLES	15

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "common/common.h"
#include "db_series.h"
#include "schema_sql.h"
#include "db_priv.h"

/* No double-quoted string literals: an unknown name is an error. */
static void no_dqs(sqlite3 *h)
{
	sqlite3_db_config(h, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	sqlite3_db_config(h, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)NULL);
}

/* ATTACH name AS as, on the merge's connection. */
static int attach(struct merge *m, const char *name, const char *as)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	int r = DB_OK;

	strbuf_addf(&sql, "ATTACH DATABASE ?1 AS %s", as);
	if (sqlite3_prepare_v2(m->db.h, sql.buf, -1, &st, NULL) != SQLITE_OK) {
		strbuf_release(&sql);
		return db_fail(&m->db, "cannot attach the input");
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(&m->db, "cannot attach the input");
	sqlite3_finalize(st);
	strbuf_release(&sql);
	return r;
}

/*
 * The input of schema version v < this tool's, migrated in memory and
 * attached as "src" in the place of the file.
 */
static int migrate_input(struct merge *m, int v)
{
	struct db mem = { .h = NULL };
	sqlite3_backup *bk;
	int i, r = DB_ERR;

	if (sqlite3_open_v2(":memory:", &mem.h, SQLITE_OPEN_READWRITE, NULL)) {
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "out of memory");
		goto out;
	}
	no_dqs(mem.h);
	bk = sqlite3_backup_init(mem.h, "main", m->db.h, "src");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		r = db_fail(&mem, "cannot read the input");
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "%s", mem.errbuf);
		goto out;
	}
	if (sqlite3_backup_finish(bk) != SQLITE_OK)
		goto mem_err;
	for (i = 0; i < schema_nsteps; i++)
		if (schema_steps[i].version > v &&
		    db_exec(&mem, schema_steps[i].sql)) {
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "cannot migrate "
				 "it in memory: migration %s: %.400s",
				 schema_steps[i].file, mem.errbuf);
			r = DB_NOT_DB;
			goto out;
		}
	if ((r = db_exec(&m->db, "DETACH DATABASE src")) ||
	    (r = attach(m, ":memory:", "src")))
		goto out;
	r = DB_ERR;
	bk = sqlite3_backup_init(m->db.h, "src", mem.h, "main");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		db_fail(&m->db, "cannot keep the migrated input");
		goto out;
	}
	if (sqlite3_backup_finish(bk) == SQLITE_OK) {
		r = DB_OK;
		goto out;
	}
mem_err:
	r = db_fail(&mem, "cannot copy the input into memory");
	snprintf(m->db.errbuf, sizeof(m->db.errbuf), "%s", mem.errbuf);
out:
	sqlite3_close_v2(mem.h);
	return r;
}

/* The merge's connection to out, with the input attached as "src". */
static int open_merge(struct merge *m, const char *out_path,
		      struct db_merge_stats *st)
{
	struct strbuf name = STRBUF_INIT;
	int r, v;

	db_uri(&name, out_path, "");
	if (sqlite3_open_v2(name.buf, &m->db.h, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		r = db_fail(&m->db, "cannot open the output");
		goto out;
	}
	no_dqs(m->db.h);
	/*
	 * The triggers that drop a run's series when its samples change
	 * (schema 10) would fire for every row copied: the merge copies the
	 * series with the runs and makes those missing itself.
	 */
	sqlite3_db_config(m->db.h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0,
			  (int *)NULL);
	sqlite3_busy_timeout(m->db.h, DB_BUSY_MS);
	/*
	 * Foreign keys are not checked row by row: every row copied takes
	 * its parents' ids from their maps, which hold only rows copied into
	 * main in this transaction (a third of the time of the largest table).
	 */
	if ((r = db_exec(&m->db, "PRAGMA foreign_keys = OFF")) ||
	    (r = db_exec(&m->db, "PRAGMA synchronous = NORMAL")) ||
	    (r = db_exec(&m->db, "PRAGMA temp_store = MEMORY")))
		goto out;
	strbuf_release(&name);
	db_uri(&name, m->in_path, db_read_query(m->in_path));
	if ((r = attach(m, name.buf, "src")))
		goto out;
	v = (int)merge_query_int(m, "PRAGMA src.user_version", NULL);
	if (v < 0 && db_negative_version(&m->db, "src")) {
		r = DB_NOT_DB;
		goto out;
	}
	if (v < 0 || merge_query_int(m, "SELECT count(*) FROM "
				     "src.sqlite_master WHERE type = 'table' "
				     "AND name = 'runs'", NULL) != 1) {
		r = db_fail(&m->db, "cannot read it");
		if (v >= 0)
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "no runs "
				 "table");
		r = r == DB_ERR || r == DB_CORRUPT || v >= 0 ? DB_NOT_DB : r;
		goto out;
	}
	st->in_version = v;
	if (v > DB_SCHEMA_VERSION) {
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "schema version %d is "
			 "newer than this tool's %d", v, DB_SCHEMA_VERSION);
		r = DB_TOO_NEW;
		goto out;
	}
	/*
	 * Migrated in memory (the whole input copied twice) only where a
	 * step since v changed what the merge reads: 16 added a trigger alone
	 * (016_series_marks.sql), so an input of 15 holds 16's tables, read
	 * from the file as they are (a 10^6 input of 15 is 1.7 GB).
	 */
	st->in_migrated = v < MERGE_INPUT_TABLES;
	r = st->in_migrated ? migrate_input(m, v) : DB_OK;
out:
	strbuf_release(&name);
	return r;
}

void db_merge_drop_new(const char *path)
{
	static const char *const suffix[] = { "-wal", "-shm", "-journal" };
	struct merge m = { .in_path = NULL };
	struct strbuf name = STRBUF_INIT;
	size_t i;

	if (sqlite3_open_v2(path, &m.db.h, SQLITE_OPEN_READWRITE, NULL) !=
	    SQLITE_OK)
		goto out;
	sqlite3_busy_timeout(m.db.h, DB_BUSY_MS);
	if (db_exec(&m.db, "BEGIN EXCLUSIVE"))
		goto out;
	if (!merge_query_int(&m, "SELECT EXISTS (SELECT 1 FROM main.runs)",
			     NULL)) {
		unlink(path);
		for (i = 0; i < ARRAY_SIZE(suffix); i++) {
			strbuf_reset(&name);
			strbuf_addf(&name, "%s%s", path, suffix[i]);
			unlink(name.buf);
		}
	}
	db_exec(&m.db, "ROLLBACK");
out:
	sqlite3_close_v2(m.db.h);
	strbuf_release(&name);
}

/* The output's journal mode after "PRAGMA main.journal_mode = mode". */
static bool journal_mode(struct merge *m, const char *mode)
{
	char sql[64];
	sqlite3_stmt *st;
	bool ok = false;

	snprintf(sql, sizeof(sql), "PRAGMA main.journal_mode = %s", mode);
	if (sqlite3_prepare_v2(m->db.h, sql, -1, &st, NULL) != SQLITE_OK)
		return false;
	if (sqlite3_step(st) == SQLITE_ROW)
		ok = !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0),
				      mode);
	sqlite3_finalize(st);
	return ok;
}

/*
 * The row by row copy through a rollback journal where no other
 * connection has the output open (WAL cannot be left then, and the copy
 * goes through it): the journal holds the few pages the merge changes,
 * the pages it appends are not journalled, where WAL writes every page
 * twice (the -wal, then the file at the checkpoint).  A crash leaves the
 * journal, hot, which the next opener plays back (nothing of the merge
 * stays); db_open puts the file back in WAL.  Synchronous FULL as SQLite
 * asks of a rollback journal.
 */
bool merge_journal_rollback(struct merge *m)
{
	if (!journal_mode(m, "delete"))
		return false;
	db_exec(&m->db, "PRAGMA main.synchronous = FULL");
	return true;
}

/*
 * WAL again, as every writer keeps it (db_open), the rollback journal gone:
 * in exclusive locking mode (merge_fresh.c) SQLite keeps it, its header
 * zeroed, past the switch, and no one reads it once the file is WAL.
 */
void merge_wal_again(struct merge *m)
{
	struct strbuf name = STRBUF_INIT;

	db_exec(&m->db, "PRAGMA main.synchronous = NORMAL");
	if (!journal_mode(m, "wal"))
		return;
	strbuf_addf(&name, "%s-journal", sqlite3_db_filename(m->db.h, "main"));
	unlink(name.buf);
	strbuf_release(&name);
}

int db_merge(struct db *out, const char *in_path, struct db_merge_stats *st)
{
	struct strbuf why = STRBUF_INIT;
	struct merge *m;
	struct stat sb;
	bool rollback;
	int r;

	memset(st, 0, sizeof(*st));
	if (access(in_path, F_OK)) {
		snprintf(out->errbuf, sizeof(out->errbuf), "%s", strerror(errno));
		return DB_MISSING;
	}
	if (db_file_kind(in_path, &why))
		return db_take_err(out, &why, DB_NOT_DB);
	if (!stat(in_path, &sb) && !sb.st_size) {
		snprintf(out->errbuf, sizeof(out->errbuf), "it is empty (0 bytes)");
		return DB_NOT_DB;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(out->errbuf, sizeof(out->errbuf), "out of memory");
		return DB_ERR;
	}
	m->in_path = in_path;
	r = open_merge(m, out->path, st);
	if (r)
		goto out;
	r = merge_load_schema(m);
	/* what is copied is read as the reports read it */
	if (!r)
		r = db_values_check(&m->db, "src", NULL);
	if (!r)
		r = merge_fresh_copy(m, st);
	if (r != 1)
		goto out;
	rollback = merge_journal_rollback(m);
	r = db_exec(&m->db, "BEGIN IMMEDIATE");
	if (!r)
		r = merge_load_schema(m);
	if (!r)
		st->runs_present = merge_query_int(m, "SELECT count(*) FROM "
						   "src.runs WHERE uuid IN "
						   "(SELECT uuid FROM main.runs)",
						   NULL);
	if (!r)
		r = merge_copy_all(m, st, false);
	/* the layouts of the runs' packs (no run's child: not copied) */
	if (!r)
		r = db_pack_layouts_copy(&m->db, "src");
	/* the series of runs copied without them (an older input) */
	if (!r && m->t[0].added)
		r = db_series_missing(&m->db);
	if (!r)
		r = db_exec(&m->db, "COMMIT");
	if (r)
		db_rollback(&m->db);
	if (rollback)
		merge_wal_again(m);
out:
	snprintf(out->errbuf, sizeof(out->errbuf), "%s", m->db.errbuf);
	/* the maps live in temp, in memory: they go with the connection */
	sqlite3_close_v2(m->db.h);
	free(m);
	return r;
}
