/*
 * The first merge into an empty output: the input file copied page by page
 * where it is what the row by row merge would make of it.
 */
#include "merge_priv.h"

#include <string.h>
#include <unistd.h>

#include "db_priv.h"
#include "db_series.h"

/* One number of SQL on the input's own connection; -1 on error. */
static int64_t src_int(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/*
 * Does a copy of the input file, page by page, hold exactly the rows the
 * merge of its rows would copy into an empty output (and the run_series
 * rows of its packed runs, which that merge leaves: readers take packs)?  The same schema and
 * page size, no row in a table not under runs (the merge leaves them) and
 * none whose parent is missing (PRAGMA foreign_key_check).  The ids are
 * the input's (the row by row merge numbers them 1, 2, ... in the input's
 * order: the same ids where the input's have no gap).  On src, the
 * input's own connection, in its read transaction; the output is checked
 * empty by the caller.
 */
static bool whole_file(struct merge *m, sqlite3 *src)
{
	struct strbuf sql = STRBUF_INIT;
	sqlite3_stmt *st;
	bool ok = true;
	int i;

	/* the same schema, text for text, both ways */
	ok = merge_query_int(m, "SELECT (SELECT count(*) FROM (SELECT type, "
			     "name, tbl_name, sql FROM main.sqlite_master "
			     "EXCEPT SELECT type, name, tbl_name, sql FROM "
			     "src.sqlite_master)) + (SELECT count(*) FROM "
			     "(SELECT type, name, tbl_name, sql FROM "
			     "src.sqlite_master EXCEPT SELECT type, name, "
			     "tbl_name, sql FROM main.sqlite_master))",
			     NULL) == 0 &&
	     merge_query_int(m, "PRAGMA main.page_size", NULL) ==
	     src_int(src, "PRAGMA page_size") &&
	     merge_query_int(m, "PRAGMA main.user_version", NULL) ==
	     src_int(src, "PRAGMA user_version");
	for (i = 0; ok && i < m->n; i++) {
		const struct table *t = &m->t[i];

		strbuf_release(&sql);
		/*
		 * the runs' layouts travel too (db_pack_layouts_copy), and
		 * the samples' (value_layouts, a dictionary)
		 */
		if (i && !t->nfk && !t->dict &&
		    strcmp(t->name, "series_layouts")) {
			strbuf_addf(&sql, "SELECT count(*) = 0 FROM ");
			merge_ident(&sql, t->name);
		} else {
			continue;
		}
		ok = src_int(src, sql.buf) == 1;
	}
	strbuf_release(&sql);
	if (!ok || sqlite3_prepare_v2(src, "PRAGMA foreign_key_check", -1, &st,
				      NULL) != SQLITE_OK)
		return false;
	ok = sqlite3_step(st) == SQLITE_DONE;
	sqlite3_finalize(st);
	return ok;
}

/* Whether every table of the output is empty (in its write transaction). */
static bool output_empty(struct merge *m)
{
	int i;

	for (i = 0; i < m->n; i++) {
		struct strbuf sql = STRBUF_INIT;
		int64_t n;

		strbuf_addf(&sql, "SELECT EXISTS (SELECT 1 FROM main.");
		merge_ident(&sql, m->t[i].name);
		strbuf_addf(&sql, ")");
		n = merge_query_int(m, sql.buf, NULL);
		strbuf_release(&sql);
		if (n)
			return false;
	}
	return true;
}

/*
 * The input's file copied page by page into the empty output, its rows
 * counted, the series of runs that lack them made.  Nothing copied yet:
 * an error from here on is the merge's error.  The copy goes through a
 * rollback journal, which holds the pages of the empty output (a crash
 * leaves it empty) and lets each page of the input be written once; WAL
 * would write each twice (into the -wal, then into the file).  WAL again
 * after, as every writer keeps it (db_open).  Where another connection
 * holds the output open the mode cannot change, and the copy goes
 * through WAL.
 */
static int copy_file(struct merge *m, sqlite3 *src,
		     struct db_merge_stats *st)
{
	sqlite3_backup *bk;
	int r;

	merge_journal_rollback(m);
	bk = sqlite3_backup_init(m->db.h, "main", src, "main");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		r = db_fail(&m->db, "cannot copy the input");
	} else if (sqlite3_backup_finish(bk) != SQLITE_OK) {
		r = db_fail(&m->db, "cannot copy the input");
	} else if (!(r = merge_copy_all(m, st, true)) &&
		   !(r = db_exec(&m->db, "BEGIN IMMEDIATE"))) {
		/* an input whose runs lack their series (db_series.c) */
		r = db_series_missing(&m->db);
		r = r ? r : db_exec(&m->db, "COMMIT");
		if (r)
			db_rollback(&m->db);
	}
	merge_wal_again(m);
	return r;
}

/*
 * The first merge into an empty output of an input whose file is what the
 * merge would make of it (whole_file): the file copied page by page
 * (sqlite3_backup), the same rows, without the row by row inserts.  The
 * output is held locked (locking_mode EXCLUSIVE) from the check that it
 * is empty to the end of the copy, so that no run written into it
 * meanwhile is lost; the copy commits whole or not at all.
 * 1 when this does not apply (the input is migrated, or is not such a
 * file, the output is not empty or is open elsewhere): the merge then
 * copies rows.  Counts what it copied into st like copy_all.
 */
int merge_fresh_copy(struct merge *m, struct db_merge_stats *st)
{
	struct strbuf name = STRBUF_INIT;
	sqlite3 *src = NULL;
	int r = 1;

	if (st->in_version != DB_SCHEMA_VERSION)
		return 1;	/* another schema (or migrated in memory): rows */
	db_uri(&name, m->in_path, db_read_query(m->in_path));
	if (sqlite3_open_v2(name.buf, &src, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_URI, NULL) != SQLITE_OK)
		goto out;
	sqlite3_busy_timeout(src, DB_BUSY_MS);
	sqlite3_busy_timeout(m->db.h, 0);
	if (db_exec(&m->db, "PRAGMA main.locking_mode = EXCLUSIVE") ||
	    db_exec(&m->db, "BEGIN IMMEDIATE"))
		goto unlock;
	if (!output_empty(m) || db_exec(&m->db, "COMMIT")) {
		db_rollback(&m->db);
		goto unlock;
	}
	if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto unlock;
	if (whole_file(m, src))
		r = copy_file(m, src, st);
	sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
unlock:
	/* the lock goes with the next read in normal mode */
	db_exec(&m->db, "PRAGMA main.locking_mode = NORMAL");
	merge_query_int(m, "SELECT count(*) FROM main.sqlite_master", NULL);
	sqlite3_busy_timeout(m->db.h, DB_BUSY_MS);
out:
	sqlite3_close_v2(src);
	strbuf_release(&name);
	return r;
}
