/*
 * The merge's tables: read from the output's own schema (PRAGMA table_info,
 * foreign_key_list) and checked in the input, and their names quoted as
 * SQL identifiers, the only text the merge puts into SQL.
 */
#include "merge_priv.h"

#include <stdio.h>
#include <string.h>

#include "db_priv.h"

/* An identifier, double-quoted. */
void merge_ident(struct strbuf *sb, const char *name)
{
	const char *p;

	strbuf_addf(sb, "\"");
	for (p = name; *p; p++)
		strbuf_addf(sb, *p == '"' ? "\"\"" : "%c", *p);
	strbuf_addf(sb, "\"");
}

/* The temp table that maps a table's ids in the input to the output's. */
void merge_map_ident(struct strbuf *sb, const char *table)
{
	struct strbuf n = STRBUF_INIT;

	strbuf_addf(sb, "temp.");
	strbuf_addf(&n, "fbmap_%s", table);
	merge_ident(sb, strbuf_str(&n));
	strbuf_release(&n);
}

/* One number from SQL with at most one text parameter; -1 on error. */
int64_t merge_query_int(struct merge *m, const char *sql, const char *arg)
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
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "table %s has "
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
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "table %s: a "
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

	if (i && !t->nfk && !t->dict)
		return DB_OK;	/* not under runs: not copied */
	if (merge_query_int(m, "SELECT count(*) FROM src.sqlite_master "
			    "WHERE type = 'table' AND name = ?1",
			    t->name) != 1) {
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "no table %s", t->name);
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
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "table %s has "
				 "no column %s", t->name, t->cols[c]);
			r = DB_NOT_DB;
		}
	}
	sqlite3_finalize(st);
	return r;
}

int merge_load_schema(struct merge *m)
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
			snprintf(m->db.errbuf, sizeof(m->db.errbuf), "more than "
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
		snprintf(m->db.errbuf, sizeof(m->db.errbuf), "no runs table");
		return DB_ERR;
	}
	for (i = 0; i < m->n; i++)
		if ((r = load_table(m, i)))
			return r;
	for (i = 0; i < m->n; i++)
		if ((r = load_fks(m, i)))
			return r;
	/*
	 * A table not under runs that a copied row names (value_layouts,
	 * schema 15) is a dictionary: copied by value, its ids mapped.
	 */
	for (i = 0; i < m->n; i++) {
		int k, p;

		for (k = 0; k < m->t[i].nfk; k++) {
			p = m->t[i].fk[k].parent;
			m->t[p].dict = p && !m->t[p].nfk;
		}
	}
	/* a row is copied through its first parent: never a dictionary */
	for (i = 0; i < m->n; i++) {
		struct table *t = &m->t[i];
		int k;

		for (k = 1; k < t->nfk && m->t[t->fk[0].parent].dict; k++) {
			struct fk x = t->fk[0];

			t->fk[0] = t->fk[k];
			t->fk[k] = x;
		}
	}
	for (i = 0; i < m->n; i++)
		if ((r = check_input(m, i)))
			return r;
	return DB_OK;
}
