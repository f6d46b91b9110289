/*
 * The row by row copy: the new runs and the rows under them, a table at a
 * time in foreign-key order, each through the maps of its parents' ids.
 */
#include "merge_priv.h"

#include <stdio.h>
#include <string.h>

#include "db_priv.h"

/*
 * The join of the map of t's parent k: a dictionary's (value_layouts) is
 * a LEFT JOIN, as a row may name none (a sample without values).
 */
static void join_parent(struct merge *m, const struct table *t, int k,
			struct strbuf *sb)
{
	strbuf_addf(sb, m->t[t->fk[k].parent].dict ? " LEFT JOIN " :
		    " CROSS JOIN ");
	merge_map_ident(sb, m->t[t->fk[k].parent].name);
	strbuf_addf(sb, " AS p%d ON p%d.old = s.", k, k);
	merge_ident(sb, t->cols[t->fk[k].col]);
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
		merge_ident(sb, t->name);
		strbuf_addf(sb, " AS s WHERE s.\"uuid\" NOT IN (SELECT "
			    "\"uuid\" FROM main.");
		merge_ident(sb, t->name);
		strbuf_addf(sb, ")");
		return;
	}
	strbuf_addf(sb, " FROM ");
	if (m->by_map) {
		merge_map_ident(sb, m->t[t->fk[0].parent].name);
		strbuf_addf(sb, " AS p0 CROSS JOIN src.");
		merge_ident(sb, t->name);
		strbuf_addf(sb, " AS s ON s.");
	} else {
		strbuf_addf(sb, "src.");
		merge_ident(sb, t->name);
		strbuf_addf(sb, " AS s CROSS JOIN ");
		merge_map_ident(sb, m->t[t->fk[0].parent].name);
		strbuf_addf(sb, " AS p0 ON s.");
	}
	merge_ident(sb, t->cols[t->fk[0].col]);
	strbuf_addf(sb, " = p0.old");
	for (k = 1; k < t->nfk; k++)
		join_parent(m, t, k, sb);
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
 * The map of table i's new rows: their ids in the input, and the next ids
 * after the output's largest, in the input's id order; t->added its rows.
 * Numbered by a table's rowid, not row_number(): SQLite gives a row
 * without one the largest + 1, here in the ORDER BY's order from a first
 * row of the output's largest, and the window's sort of every row took
 * 1.0 of the 1.2 s of the samples' map at 10^6 samples.  The map then
 * keyed by the old id, in the same order: an append.
 */
static int fill_map(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT;
	int64_t base;
	int r;

	strbuf_addf(&sql, "SELECT coalesce(max(");
	merge_ident(&sql, t->cols[t->id_col]);
	strbuf_addf(&sql, "), 0) FROM main.");
	merge_ident(&sql, t->name);
	base = merge_query_int(m, sql.buf, NULL);
	strbuf_release(&sql);
	if (base < 0)
		return db_fail(&m->db, t->name);
	r = db_exec(&m->db, "CREATE TABLE temp.fbseq (new INTEGER PRIMARY "
		    "KEY, old INTEGER)");
	if (!r)
		r = run_sql(m, t, "INSERT INTO temp.fbseq (new) VALUES (?1)",
			    base);
	strbuf_addf(&sql, "INSERT INTO temp.fbseq (old) SELECT s.");
	merge_ident(&sql, t->cols[t->id_col]);
	rows_from(m, i, &sql);
	strbuf_addf(&sql, " ORDER BY s.");
	merge_ident(&sql, t->cols[t->id_col]);
	if (!r)
		r = run_sql(m, t, sql.buf, -1);
	strbuf_reset(&sql);
	strbuf_addf(&sql, "INSERT INTO ");
	merge_map_ident(&sql, t->name);
	strbuf_addf(&sql, " (old, new) SELECT old, new FROM temp.fbseq "
		    "WHERE new > ?1 ORDER BY new");
	if (!r)
		r = run_sql(m, t, sql.buf, base);
	t->added = r ? 0 : sqlite3_changes64(m->db.h);
	if (!r)
		r = db_exec(&m->db, "DROP TABLE temp.fbseq");
	strbuf_release(&sql);
	return r;
}

/*
 * Of run_series, a run's mark (ord -1) and, where the run has no pack, its
 * series: every reader takes a run's series from its pack where the run
 * has one (db_report.c, db_pack.c), and the mark keeps what the triggers
 * of schema 10 and 14 do (a change to a sample or case drops the run's
 * rows, the pack with them) and db_series_missing's test for a run that
 * lacks its series.  At 10^6 samples 863040 rows of 214 MB, 23287 left.
 * Read through the runs' map, by the key (run_id, ord): the marks, then
 * the rows of the runs without a pack (a scan of every row for them took
 * 0.45 s, this 0.09 s).  sel is the SELECT of the columns; false where
 * table i is not run_series as schema 10 made it.
 */
static bool packed_series(struct merge *m, int i, const struct strbuf *sel,
			  struct strbuf *sql)
{
	const struct table *t = &m->t[i];
	bool by_map = m->by_map;

	if (strcmp(t->name, "run_series") || t->nfk != 1 ||
	    strcmp(t->cols[t->fk[0].col], "run_id"))
		return false;
	m->by_map = true;
	strbuf_addf(sql, "%s", sel->buf);
	rows_from(m, i, sql);
	strbuf_addf(sql, " AND s.\"ord\" = -1 UNION ALL %s", sel->buf);
	rows_from(m, i, sql);
	strbuf_addf(sql, " AND s.\"ord\" >= 0 AND NOT EXISTS (SELECT 1 FROM "
		    "src.\"run_packs\" AS k WHERE k.\"run_id\" = p0.old)");
	m->by_map = by_map;
	return true;
}

/*
 * "INSERT INTO main.t (cols) SELECT ..." of table i: its id from its map,
 * each foreign key from its parent's, the other columns as they are.
 */
static void insert_select(struct merge *m, int i, struct strbuf *sql)
{
	struct table *t = &m->t[i];
	struct strbuf sel = STRBUF_INIT;
	int c, k;

	strbuf_addf(sql, "INSERT INTO main.");
	merge_ident(sql, t->name);
	strbuf_addf(sql, " (");
	for (c = 0; c < t->ncols; c++) {
		strbuf_addf(sql, "%s", c ? ", " : "");
		merge_ident(sql, t->cols[c]);
	}
	strbuf_addf(sql, ") ");
	strbuf_addf(&sel, "SELECT ");
	for (c = 0; c < t->ncols; c++) {
		strbuf_addf(&sel, "%s", c ? ", " : "");
		for (k = 0; k < t->nfk; k++)
			if (t->fk[k].col == c)
				break;
		if (c == t->id_col)
			strbuf_addf(&sel, "m.new");
		else if (k < t->nfk)
			strbuf_addf(&sel, "p%d.new", k);
		else {
			strbuf_addf(&sel, "s.");
			merge_ident(&sel, t->cols[c]);
		}
	}
	if (t->id_col < 0 && packed_series(m, i, &sel, sql)) {
		strbuf_release(&sel);
		return;
	}
	strbuf_addf(sql, "%s", sel.buf);
	strbuf_release(&sel);
	if (t->id_col < 0) {
		rows_from(m, i, sql);
		return;
	}
	/* the map holds exactly the rows, in the order of their ids */
	strbuf_addf(sql, " FROM ");
	merge_map_ident(sql, t->name);
	strbuf_addf(sql, " AS m CROSS JOIN src.");
	merge_ident(sql, t->name);
	strbuf_addf(sql, " AS s ON s.");
	merge_ident(sql, t->cols[t->id_col]);
	strbuf_addf(sql, " = m.old");
	for (k = 0; k < t->nfk; k++)
		join_parent(m, t, k, sql);
}

/*
 * Copy the rows of table i that belong to runs new to the output: runs by
 * uuid, any other table by its foreign keys into what was copied.  A table
 * with an INTEGER PRIMARY KEY gets its map first (fill_map).
 */
static int copy_table(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT;
	int k, r = DB_OK;

	t->added = 0;
	if (t->id_col >= 0) {
		strbuf_addf(&sql, "CREATE TABLE ");
		merge_map_ident(&sql, t->name);
		strbuf_addf(&sql, " (old INTEGER PRIMARY KEY, new INTEGER "
			    "NOT NULL)");
		r = db_exec(&m->db, sql.buf);
		strbuf_release(&sql);
		if (r)
			return r;
	}
	/* nothing new above: nothing to copy here */
	for (k = 0; k < t->nfk; k++)
		if (!m->t[t->fk[k].parent].added &&
		    !m->t[t->fk[k].parent].dict)
			return DB_OK;
	if (t->id_col >= 0 && ((r = fill_map(m, i)) || !t->added))
		return r;
	insert_select(m, i, &sql);
	r = run_sql(m, t, sql.buf, -1);
	if (!r)
		t->added = sqlite3_changes64(m->db.h);
	strbuf_release(&sql);
	return r;
}

/* " AND o.c = s.c" for each column of t but its id. */
static void same_values(const struct table *t, struct strbuf *sb)
{
	int c;

	for (c = 0; c < t->ncols; c++) {
		if (c == t->id_col)
			continue;
		strbuf_addf(sb, " AND o.");
		merge_ident(sb, t->cols[c]);
		strbuf_addf(sb, " = s.");
		merge_ident(sb, t->cols[c]);
	}
}

/*
 * A dictionary (value_layouts, schema 15): the input's rows the output
 * lacks, by the values of every column but the id, which the output
 * gives; and the map of every input row to the output's row of the same
 * values, which its children follow.
 */
static int copy_dict(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT, cols = STRBUF_INIT;
	int c, r;

	for (c = 0; c < t->ncols; c++) {
		if (c == t->id_col)
			continue;
		strbuf_addf(&cols, "%s", cols.len ? ", " : "");
		merge_ident(&cols, t->cols[c]);
	}
	strbuf_addf(&sql, "INSERT INTO main.");
	merge_ident(&sql, t->name);
	strbuf_addf(&sql, " (%s) SELECT %s FROM src.", cols.buf, cols.buf);
	merge_ident(&sql, t->name);
	strbuf_addf(&sql, " AS s WHERE NOT EXISTS (SELECT 1 FROM main.");
	merge_ident(&sql, t->name);
	strbuf_addf(&sql, " AS o WHERE 1");
	same_values(t, &sql);
	strbuf_addf(&sql, ")");
	r = run_sql(m, t, sql.buf, -1);
	t->added = sqlite3_changes64(m->db.h);
	strbuf_reset(&sql);
	strbuf_addf(&sql, "CREATE TABLE ");
	merge_map_ident(&sql, t->name);
	strbuf_addf(&sql, " (old INTEGER PRIMARY KEY, new INTEGER NOT NULL)");
	if (!r)
		r = db_exec(&m->db, sql.buf);
	strbuf_reset(&sql);
	strbuf_addf(&sql, "INSERT INTO ");
	merge_map_ident(&sql, t->name);
	strbuf_addf(&sql, " (old, new) SELECT s.");
	merge_ident(&sql, t->cols[t->id_col]);
	strbuf_addf(&sql, ", o.");
	merge_ident(&sql, t->cols[t->id_col]);
	strbuf_addf(&sql, " FROM src.");
	merge_ident(&sql, t->name);
	strbuf_addf(&sql, " AS s JOIN main.");
	merge_ident(&sql, t->name);
	strbuf_addf(&sql, " AS o ON 1");
	same_values(t, &sql);
	if (!r)
		r = run_sql(m, t, sql.buf, -1);
	strbuf_release(&sql);
	strbuf_release(&cols);
	return r;
}

/* The rows of table i in the input (a whole-file copy copies them all). */
static int count_rows(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	struct strbuf sql = STRBUF_INIT;

	strbuf_addf(&sql, "SELECT count(*) FROM src.");
	merge_ident(&sql, t->name);
	t->added = merge_query_int(m, sql.buf, NULL);
	strbuf_release(&sql);
	return t->added < 0 ? db_fail(&m->db, t->name) : DB_OK;
}

/*
 * Tables in an order where every parent comes before its children: copied,
 * or only counted after a whole-file copy (counted).
 */
int merge_copy_all(struct merge *m, struct db_merge_stats *st, bool counted)
{
	int i, k, done = 0, r;
	bool progress = true;

	/* the dictionaries first: their rows named by the others' */
	for (i = 0; i < m->n; i++) {
		if (!m->t[i].dict)
			continue;
		r = counted ? count_rows(m, i) : copy_dict(m, i);
		if (r)
			return r;
		m->t[i].done = true;
		done++;
	}
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
				m->by_map = t->added * 4 < merge_query_int(m,
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
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "the tables' foreign "
			 "keys form a cycle");
		return DB_ERR;
	}
	return DB_OK;
}
