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
 * selected through the maps of their parents.
 */
#include "merge.h"

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

struct fk {
	int col;		/* index into the table's columns */
	int parent;		/* index into the merge's tables */
};

struct table {
	char name[64];
	char cols[64][64];
	int ncols;
	int id_col;		/* INTEGER PRIMARY KEY, or -1 */
	struct fk fk[8];
	int nfk;
	bool done;
	int64_t added;		/* rows copied (the map's rows) */
};

struct merge {
	struct db db;		/* the merge's own connection to the output */
	const char *in_path;
	struct table t[DB_MERGE_MAX_TABLES];
	int n;
	bool by_map;		/* few new runs: read the input through maps */
};

/* An identifier, double-quoted. */
static void ident(struct strbuf *sb, const char *name)
{
	const char *p;

	strbuf_addf(sb, "\"");
	for (p = name; *p; p++)
		strbuf_addf(sb, *p == '"' ? "\"\"" : "%c", *p);
	strbuf_addf(sb, "\"");
}

/* The temp table that maps a table's ids in the input to the output's. */
static void map_ident(struct strbuf *sb, const char *table)
{
	struct strbuf n = STRBUF_INIT;

	strbuf_addf(sb, "temp.");
	strbuf_addf(&n, "fbmap_%s", table);
	ident(sb, strbuf_str(&n));
	strbuf_release(&n);
}

/* No double-quoted string literals: an unknown name is an error. */
static void no_dqs(sqlite3 *h)
{
	sqlite3_db_config(h, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	sqlite3_db_config(h, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)NULL);
}

/* One number from SQL with at most one text parameter; -1 on error. */
static int64_t query_int(struct merge *m, const char *sql, const char *arg)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(m->db.h, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (arg)
		sqlite3_bind_text(st, 1, arg, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int find_table(const struct merge *m, const char *name)
{
	int i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->t[i].name, name))
			return i;
	return -1;
}

static int find_col(const struct table *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i], name))
			return i;
	return -1;
}

/* The columns, row-id primary key and foreign keys of main's table i. */
static int load_table(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	sqlite3_stmt *st;
	int r, npk = 0, pkcol = -1;
	bool int_pk = false;

	if (sqlite3_prepare_v2(m->db.h, "SELECT name, upper(type), pk FROM "
			       "pragma_table_info(?1, 'main') ORDER BY cid",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(&m->db, "cannot read the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (t->ncols == (int)ARRAY_SIZE(t->cols)) {
			sqlite3_finalize(st);
			snprintf(m->db.err, sizeof(m->db.err), "table %s has "
				 "too many columns to merge", t->name);
			return DB_ERR;
		}
		snprintf(t->cols[t->ncols], sizeof(t->cols[0]), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		if (sqlite3_column_int(st, 2)) {
			npk++;
			pkcol = t->ncols;
			int_pk = !strcmp((const char *)sqlite3_column_text(st, 1),
					 "INTEGER");
		}
		t->ncols++;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(&m->db, "cannot read the schema");
	t->id_col = npk == 1 && int_pk ? pkcol : -1;
	return DB_OK;
}

static int load_fks(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(m->db.h, "SELECT \"from\", \"table\" FROM "
			       "pragma_foreign_key_list(?1, 'main')", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(&m->db, "cannot read the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int col = find_col(t, (const char *)sqlite3_column_text(st, 0));
		int par = find_table(m, (const char *)sqlite3_column_text(st,
									  1));

		if (col < 0 || par < 0 || m->t[par].id_col < 0 ||
		    t->nfk == (int)ARRAY_SIZE(t->fk)) {
			sqlite3_finalize(st);
			snprintf(m->db.err, sizeof(m->db.err), "table %s: a "
				 "foreign key this merge cannot follow",
				 t->name);
			return DB_ERR;
		}
		t->fk[t->nfk].col = col;
		t->fk[t->nfk++].parent = par;
	}
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? DB_OK : db_fail(&m->db, "cannot read the "
						  "schema");
}

/*
 * Every column of a table the merge copies must be in the input: DB_NOT_DB
 * naming the first one missing.
 */
static int check_input(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	sqlite3_stmt *st;
	int c, r = DB_OK;

	if (i && !t->nfk)
		return DB_OK;	/* not under runs: not copied */
	if (query_int(m, "SELECT count(*) FROM src.sqlite_master WHERE "
		      "type = 'table' AND name = ?1", t->name) != 1) {
		snprintf(m->db.err, sizeof(m->db.err), "no table %s", t->name);
		return DB_NOT_DB;
	}
	if (sqlite3_prepare_v2(m->db.h, "SELECT count(*) FROM "
			       "pragma_table_info(?1, 'src') WHERE name = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(&m->db, "cannot read the input's schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	for (c = 0; c < t->ncols && !r; c++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 2, t->cols[c], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW) {
			r = db_fail(&m->db, "cannot read the input's schema");
		} else if (!sqlite3_column_int(st, 0)) {
			snprintf(m->db.err, sizeof(m->db.err), "table %s has "
				 "no column %s", t->name, t->cols[c]);
			r = DB_NOT_DB;
		}
	}
	sqlite3_finalize(st);
	return r;
}

static int load_schema(struct merge *m)
{
	sqlite3_stmt *st;
	int r, i;

	if (sqlite3_prepare_v2(m->db.h, "SELECT name FROM main.sqlite_master "
			       "WHERE type = 'table' AND name NOT LIKE "
			       "'sqlite_%' ORDER BY name = 'runs' DESC, rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(&m->db, "cannot read the schema");
	m->n = 0;	/* read again in the merge's transaction */
	memset(m->t, 0, sizeof(m->t));
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->n == DB_MERGE_MAX_TABLES) {
			sqlite3_finalize(st);
			snprintf(m->db.err, sizeof(m->db.err), "more than "
				 "%d tables to merge", DB_MERGE_MAX_TABLES);
			return DB_ERR;
		}
		snprintf(m->t[m->n++].name, sizeof(m->t[0].name), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(&m->db, "cannot read the schema");
	if (!m->n || strcmp(m->t[0].name, "runs")) {
		snprintf(m->db.err, sizeof(m->db.err), "no runs table");
		return DB_ERR;
	}
	for (i = 0; i < m->n; i++)
		if ((r = load_table(m, i)))
			return r;
	for (i = 0; i < m->n; i++)
		if ((r = load_fks(m, i)))
			return r;
	for (i = 0; i < m->n; i++)
		if ((r = check_input(m, i)))
			return r;
	return DB_OK;
}

/*
 * The rows of table i to copy, as " FROM ...": runs whose uuid the output
 * lacks; any other table's rows whose every foreign key is in its parent's
 * map (pK.new the parent's new id), read in the input's order or, with
 * few new runs, through the first parent's map.
 */
static void rows_from(struct merge *m, int i, struct strbuf *sb)
{
	struct table *t = &m->t[i];
	int k;

	if (!i) {
		strbuf_addf(sb, " FROM src.");
		ident(sb, t->name);
		strbuf_addf(sb, " AS s WHERE s.\"uuid\" NOT IN (SELECT "
			    "\"uuid\" FROM main.");
		ident(sb, t->name);
		strbuf_addf(sb, ")");
		return;
	}
	strbuf_addf(sb, " FROM ");
	if (m->by_map) {
		map_ident(sb, m->t[t->fk[0].parent].name);
		strbuf_addf(sb, " AS p0 CROSS JOIN src.");
		ident(sb, t->name);
		strbuf_addf(sb, " AS s ON s.");
	} else {
		strbuf_addf(sb, "src.");
		ident(sb, t->name);
		strbuf_addf(sb, " AS s CROSS JOIN ");
		map_ident(sb, m->t[t->fk[0].parent].name);
		strbuf_addf(sb, " AS p0 ON s.");
	}
	ident(sb, t->cols[t->fk[0].col]);
	strbuf_addf(sb, " = p0.old");
	for (k = 1; k < t->nfk; k++) {
		strbuf_addf(sb, " CROSS JOIN ");
		map_ident(sb, m->t[t->fk[k].parent].name);
		strbuf_addf(sb, " AS p%d ON s.", k);
		ident(sb, t->cols[t->fk[k].col]);
		strbuf_addf(sb, " = p%d.old", k);
	}
}

/* Run sql with ?1 bound to v (when v >= 0); DB_ERR naming the table. */
static int run_sql(struct merge *m, const struct table *t, const char *sql,
		   int64_t v)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(m->db.h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(&m->db, t->name);
	if (v >= 0)
		sqlite3_bind_int64(st, 1, v);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? DB_OK : db_fail(&m->db, t->name);
}

/*
 * Copy the rows of table i that belong to runs new to the output: runs by
 * uuid, any other table by its foreign keys into what was copied.  A table
 * with an INTEGER PRIMARY KEY gets its map first; its rows take the next
 * ids after the output's largest, in the input's id order.
 */
static int copy_table(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT;
	int c, k, r;
	int64_t base = 0;

	t->added = 0;
	if (t->id_col >= 0) {
		strbuf_addf(&sql, "CREATE TABLE ");
		map_ident(&sql, t->name);
		strbuf_addf(&sql, " (old INTEGER PRIMARY KEY, new INTEGER "
			    "NOT NULL)");
		if ((r = db_exec(&m->db, sql.buf)))
			goto out;
	}
	/* nothing new above: nothing to copy here */
	for (k = 0; k < t->nfk; k++)
		if (!m->t[t->fk[k].parent].added) {
			r = DB_OK;
			goto out;
		}
	if (t->id_col >= 0) {
		strbuf_release(&sql);
		strbuf_addf(&sql, "SELECT coalesce(max(");
		ident(&sql, t->cols[t->id_col]);
		strbuf_addf(&sql, "), 0) FROM main.");
		ident(&sql, t->name);
		base = query_int(m, sql.buf, NULL);
		if (base < 0) {
			r = db_fail(&m->db, t->name);
			goto out;
		}
		strbuf_release(&sql);
		strbuf_addf(&sql, "INSERT INTO ");
		map_ident(&sql, t->name);
		strbuf_addf(&sql, " (old, new) SELECT s.");
		ident(&sql, t->cols[t->id_col]);
		strbuf_addf(&sql, ", ?1 + row_number() OVER (ORDER BY s.");
		ident(&sql, t->cols[t->id_col]);
		strbuf_addf(&sql, ")");
		rows_from(m, i, &sql);
		if ((r = run_sql(m, t, sql.buf, base)))
			goto out;
		t->added = sqlite3_changes64(m->db.h);
		if (!t->added)
			goto out;
	}
	strbuf_release(&sql);
	strbuf_addf(&sql, "INSERT INTO main.");
	ident(&sql, t->name);
	strbuf_addf(&sql, " (");
	for (c = 0; c < t->ncols; c++) {
		strbuf_addf(&sql, "%s", c ? ", " : "");
		ident(&sql, t->cols[c]);
	}
	strbuf_addf(&sql, ") SELECT ");
	for (c = 0; c < t->ncols; c++) {
		strbuf_addf(&sql, "%s", c ? ", " : "");
		for (k = 0; k < t->nfk; k++)
			if (t->fk[k].col == c)
				break;
		if (c == t->id_col)
			strbuf_addf(&sql, "m.new");
		else if (k < t->nfk)
			strbuf_addf(&sql, "p%d.new", k);
		else {
			strbuf_addf(&sql, "s.");
			ident(&sql, t->cols[c]);
		}
	}
	if (t->id_col >= 0) {
		/* the map holds exactly the rows, in the order of their ids */
		strbuf_addf(&sql, " FROM ");
		map_ident(&sql, t->name);
		strbuf_addf(&sql, " AS m CROSS JOIN src.");
		ident(&sql, t->name);
		strbuf_addf(&sql, " AS s ON s.");
		ident(&sql, t->cols[t->id_col]);
		strbuf_addf(&sql, " = m.old");
		for (k = 0; k < t->nfk; k++) {
			strbuf_addf(&sql, " CROSS JOIN ");
			map_ident(&sql, m->t[t->fk[k].parent].name);
			strbuf_addf(&sql, " AS p%d ON p%d.old = s.", k, k);
			ident(&sql, t->cols[t->fk[k].col]);
		}
	} else {
		rows_from(m, i, &sql);
	}
	if ((r = run_sql(m, t, sql.buf, -1)))
		goto out;
	t->added = sqlite3_changes64(m->db.h);
out:
	strbuf_release(&sql);
	return r;
}

/* The rows of table i in the input (a whole-file copy copies them all). */
static int count_rows(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT;

	strbuf_addf(&sql, "SELECT count(*) FROM src.");
	ident(&sql, t->name);
	t->added = query_int(m, sql.buf, NULL);
	strbuf_release(&sql);
	return t->added < 0 ? db_fail(&m->db, t->name) : DB_OK;
}

/*
 * Tables in an order where every parent comes before its children: copied,
 * or only counted after a whole-file copy (counted).
 */
static int copy_all(struct merge *m, struct db_merge_stats *st, bool counted)
{
	int i, k, done = 0, r;
	bool progress = true;

	while (done < m->n && progress) {
		progress = false;
		for (i = 0; i < m->n; i++) {
			struct table *t = &m->t[i];
			bool ready = !t->done;

			for (k = 0; ready && k < t->nfk; k++)
				ready = m->t[t->fk[k].parent].done;
			/* only runs and what hangs under them travel */
			if (ready && i && !t->nfk) {
				t->done = true;
				done++;
				progress = true;
				continue;
			}
			if (!ready)
				continue;
			r = counted ? count_rows(m, i) : copy_table(m, i);
			if (r)
				return r;
			if (!i && !counted)
				m->by_map = t->added * 4 < query_int(m,
					"SELECT count(*) FROM src.runs", NULL);
			/* run_series is made from the others: not said */
			if (strcmp(t->name, "run_series") &&
			    strcmp(t->name, "run_packs")) {
				snprintf(st->table[st->ntables].name,
					 sizeof(st->table[0].name), "%s",
					 t->name);
				st->table[st->ntables++].added = t->added;
			}
			t->done = true;
			done++;
			progress = true;
		}
	}
	if (done < m->n) {
		snprintf(m->db.err, sizeof(m->db.err), "the tables' foreign "
			 "keys form a cycle");
		return DB_ERR;
	}
	return DB_OK;
}


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
 * merge of its rows would copy into an empty output?  The same schema and
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
	ok = query_int(m, "SELECT (SELECT count(*) FROM (SELECT type, name, "
		       "tbl_name, sql FROM main.sqlite_master EXCEPT SELECT "
		       "type, name, tbl_name, sql FROM src.sqlite_master)) + "
		       "(SELECT count(*) FROM (SELECT type, name, tbl_name, "
		       "sql FROM src.sqlite_master EXCEPT SELECT type, name, "
		       "tbl_name, sql FROM main.sqlite_master))", NULL) == 0 &&
	     query_int(m, "PRAGMA main.page_size", NULL) ==
	     src_int(src, "PRAGMA page_size") &&
	     query_int(m, "PRAGMA main.user_version", NULL) ==
	     src_int(src, "PRAGMA user_version");
	for (i = 0; ok && i < m->n; i++) {
		const struct table *t = &m->t[i];

		strbuf_release(&sql);
		/* the runs' layouts travel too (db_pack_layouts_copy) */
		if (i && !t->nfk && strcmp(t->name, "series_layouts")) {
			strbuf_addf(&sql, "SELECT count(*) = 0 FROM ");
			ident(&sql, t->name);
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

/*
 * The rollback journal of the copy: in exclusive locking mode SQLite keeps
 * it, its header zeroed, past the switch back to WAL.  No one reads it
 * again once the database is WAL: it goes.
 */
static void drop_journal(struct merge *m)
{
	struct strbuf name = STRBUF_INIT;

	strbuf_addf(&name, "%s-journal", sqlite3_db_filename(m->db.h, "main"));
	unlink(name.buf);
	strbuf_release(&name);
}

/*
 * The first merge into an empty output of an input whose file is what the
 * merge would make of it (whole_file): the file copied page by page
 * (sqlite3_backup), the same rows, without the row by row inserts.  The output is held locked (locking_mode EXCLUSIVE) from
 * the check that it is empty to the end of the copy, so that no run
 * written into it meanwhile is lost; the copy commits whole or not at all.
 * 1 when this does not apply (the input is migrated, or is not such a
 * file, the output is not empty or is open elsewhere): the merge then
 * copies rows.  Counts what it copied into st like copy_all.
 */
static int fresh_copy(struct merge *m, struct db_merge_stats *st)
{
	struct strbuf name = STRBUF_INIT;
	sqlite3 *src = NULL;
	sqlite3_backup *bk;
	int i, r = 1;

	if (st->in_version != DB_SCHEMA_VERSION)
		return 1;	/* migrated in memory: rows it is */
	db_uri(&name, m->in_path, db_read_query(m->in_path));
	if (sqlite3_open_v2(name.buf, &src, SQLITE_OPEN_READONLY |
			    SQLITE_OPEN_URI, NULL) != SQLITE_OK)
		goto out;
	sqlite3_busy_timeout(src, DB_BUSY_MS);
	sqlite3_busy_timeout(m->db.h, 0);
	if (db_exec(&m->db, "PRAGMA main.locking_mode = EXCLUSIVE") ||
	    db_exec(&m->db, "BEGIN IMMEDIATE")) {
		r = 1;
		goto unlock;
	}
	for (i = 0; i < m->n; i++) {
		struct strbuf sql = STRBUF_INIT;
		int64_t n;

		strbuf_addf(&sql, "SELECT EXISTS (SELECT 1 FROM main.");
		ident(&sql, m->t[i].name);
		strbuf_addf(&sql, ")");
		n = query_int(m, sql.buf, NULL);
		strbuf_release(&sql);
		if (n)
			break;
	}
	if (i < m->n || db_exec(&m->db, "COMMIT")) {
		db_rollback(&m->db);
		goto unlock;
	}
	if (sqlite3_exec(src, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		goto unlock;
	if (!whole_file(m, src)) {
		sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
		goto unlock;
	}
	/*
	 * Nothing copied yet: an error from here on is the merge's error.
	 * The copy goes through a rollback journal, which holds the pages
	 * of the empty output (a crash leaves it empty) and lets each page
	 * of the input be written once; WAL would write each twice (into
	 * the -wal, then into the file).  WAL again after, as every writer
	 * keeps it (db_open).  Where another connection holds the output
	 * open the mode cannot change, and the copy goes through WAL.
	 */
	db_exec(&m->db, "PRAGMA main.journal_mode = DELETE");
	db_exec(&m->db, "PRAGMA main.synchronous = FULL");
	bk = sqlite3_backup_init(m->db.h, "main", src, "main");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		r = db_fail(&m->db, "cannot copy the input");
	} else if (sqlite3_backup_finish(bk) != SQLITE_OK) {
		r = db_fail(&m->db, "cannot copy the input");
	} else if (!(r = copy_all(m, st, true)) &&
		   !(r = db_exec(&m->db, "BEGIN IMMEDIATE"))) {
		/* an input whose runs lack their series (db_series.c) */
		r = db_series_missing(&m->db);
		r = r ? r : db_exec(&m->db, "COMMIT");
		if (r)
			db_rollback(&m->db);
	}
	db_exec(&m->db, "PRAGMA main.synchronous = NORMAL");
	if (!db_exec(&m->db, "PRAGMA main.journal_mode = WAL"))
		drop_journal(m);
	sqlite3_exec(src, "COMMIT", NULL, NULL, NULL);
unlock:
	/* the lock goes with the next read in normal mode */
	db_exec(&m->db, "PRAGMA main.locking_mode = NORMAL");
	query_int(m, "SELECT count(*) FROM main.sqlite_master", NULL);
	sqlite3_busy_timeout(m->db.h, DB_BUSY_MS);
out:
	sqlite3_close_v2(src);
	strbuf_release(&name);
	return r;
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
		snprintf(m->db.err, sizeof(m->db.err), "out of memory");
		goto out;
	}
	no_dqs(mem.h);
	bk = sqlite3_backup_init(mem.h, "main", m->db.h, "src");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		sqlite3_backup_finish(bk);
		r = db_fail(&mem, "cannot read the input");
		snprintf(m->db.err, sizeof(m->db.err), "%s", mem.err);
		goto out;
	}
	if (sqlite3_backup_finish(bk) != SQLITE_OK)
		goto mem_err;
	for (i = 0; i < schema_nsteps; i++)
		if (schema_steps[i].version > v &&
		    db_exec(&mem, schema_steps[i].sql)) {
			snprintf(m->db.err, sizeof(m->db.err), "cannot migrate "
				 "it in memory: migration %s: %.400s",
				 schema_steps[i].file, mem.err);
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
	snprintf(m->db.err, sizeof(m->db.err), "%s", mem.err);
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
	v = (int)query_int(m, "PRAGMA src.user_version", NULL);
	if (v < 0 && db_negative_version(m->db.h, "src", m->db.err,
					 sizeof(m->db.err))) {
		r = DB_NOT_DB;
		goto out;
	}
	if (v < 0 || query_int(m, "SELECT count(*) FROM src.sqlite_master "
			       "WHERE type = 'table' AND name = 'runs'",
			       NULL) != 1) {
		r = db_fail(&m->db, "cannot read it");
		if (v >= 0)
			snprintf(m->db.err, sizeof(m->db.err), "no runs "
				 "table");
		r = r == DB_ERR || r == DB_CORRUPT || v >= 0 ? DB_NOT_DB : r;
		goto out;
	}
	st->in_version = v;
	if (v > DB_SCHEMA_VERSION) {
		snprintf(m->db.err, sizeof(m->db.err), "schema version %d is "
			 "newer than this tool's %d", v, DB_SCHEMA_VERSION);
		r = DB_TOO_NEW;
		goto out;
	}
	r = v < DB_SCHEMA_VERSION ? migrate_input(m, v) : DB_OK;
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
	if (!query_int(&m, "SELECT EXISTS (SELECT 1 FROM main.runs)", NULL)) {
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

int db_merge(struct db *out, const char *in_path, struct db_merge_stats *st)
{
	struct merge *m;
	struct stat sb;
	int r;

	memset(st, 0, sizeof(*st));
	if (access(in_path, F_OK)) {
		snprintf(out->err, sizeof(out->err), "%s", strerror(errno));
		return DB_MISSING;
	}
	if (db_file_kind(in_path, out->err, sizeof(out->err)))
		return DB_NOT_DB;
	if (!stat(in_path, &sb) && !sb.st_size) {
		snprintf(out->err, sizeof(out->err), "it is empty (0 bytes)");
		return DB_NOT_DB;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(out->err, sizeof(out->err), "out of memory");
		return DB_ERR;
	}
	m->in_path = in_path;
	r = open_merge(m, out->path, st);
	if (r)
		goto out;
	r = load_schema(m);
	/* what is copied is read as the reports read it */
	if (!r)
		r = db_values_check(&m->db, "src", NULL);
	if (!r)
		r = fresh_copy(m, st);
	if (r != 1)
		goto out;
	r = db_exec(&m->db, "BEGIN IMMEDIATE");
	if (!r)
		r = load_schema(m);
	if (!r)
		st->runs_present = query_int(m, "SELECT count(*) FROM src.runs "
					     "WHERE uuid IN (SELECT uuid FROM "
					     "main.runs)", NULL);
	if (!r)
		r = copy_all(m, st, false);
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
out:
	snprintf(out->err, sizeof(out->err), "%s", m->db.err);
	/* the maps live in temp, in memory: they go with the connection */
	sqlite3_close_v2(m->db.h);
	free(m);
	return r;
}
