/*
 * Merging result databases.  The input is copied (backup API) into a
 * temporary file and that copy migrated, so an older input is read in the
 * current schema and the input file itself is never written.  The copy is
 * attached to the output as "src", and the new runs with everything under
 * them are copied in one transaction, in foreign-key order, each row's
 * references mapped from the input's ids to the output's.
 *
 * The tables and columns come from the output's own schema (PRAGMA
 * table_info, foreign_key_list), so that a table a later migration adds is
 * merged without a change here.  Those names are the only text put into
 * SQL, quoted as identifiers; every value is bound.
 */
#include "merge.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"

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
};

struct merge {
	struct db *db;
	struct table t[DB_MERGE_MAX_TABLES];
	int n;
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

	strbuf_addf(&n, "fbmap_%s", table);
	ident(sb, strbuf_str(&n));
	strbuf_release(&n);
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

	if (sqlite3_prepare_v2(m->db->h, "SELECT name, upper(type), pk FROM "
			       "pragma_table_info(?1, 'main') ORDER BY cid",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(m->db, "cannot read the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (t->ncols == (int)ARRAY_SIZE(t->cols)) {
			sqlite3_finalize(st);
			snprintf(m->db->err, sizeof(m->db->err), "table %s has "
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
		return db_fail(m->db, "cannot read the schema");
	t->id_col = npk == 1 && int_pk ? pkcol : -1;
	return DB_OK;
}

static int load_fks(struct merge *m, int i)
{
	struct table *t = &m->t[i];
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(m->db->h, "SELECT \"from\", \"table\" FROM "
			       "pragma_foreign_key_list(?1, 'main')", -1, &st,
			       NULL) != SQLITE_OK)
		return db_fail(m->db, "cannot read the schema");
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int col = find_col(t, (const char *)sqlite3_column_text(st, 0));
		int par = find_table(m, (const char *)sqlite3_column_text(st,
									  1));

		if (col < 0 || par < 0 || m->t[par].id_col < 0 ||
		    t->nfk == (int)ARRAY_SIZE(t->fk)) {
			sqlite3_finalize(st);
			snprintf(m->db->err, sizeof(m->db->err), "table %s: a "
				 "foreign key this merge cannot follow",
				 t->name);
			return DB_ERR;
		}
		t->fk[t->nfk].col = col;
		t->fk[t->nfk++].parent = par;
	}
	sqlite3_finalize(st);
	return r == SQLITE_DONE ? DB_OK : db_fail(m->db, "cannot read the "
						  "schema");
}

static int load_schema(struct merge *m)
{
	sqlite3_stmt *st;
	int r, i;

	if (sqlite3_prepare_v2(m->db->h, "SELECT name FROM main.sqlite_master "
			       "WHERE type = 'table' AND name NOT LIKE "
			       "'sqlite_%' ORDER BY name = 'runs' DESC, rowid",
			       -1, &st, NULL) != SQLITE_OK)
		return db_fail(m->db, "cannot read the schema");
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (m->n == DB_MERGE_MAX_TABLES) {
			sqlite3_finalize(st);
			snprintf(m->db->err, sizeof(m->db->err), "more than "
				 "%d tables to merge", DB_MERGE_MAX_TABLES);
			return DB_ERR;
		}
		snprintf(m->t[m->n++].name, sizeof(m->t[0].name), "%s",
			 (const char *)sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(m->db, "cannot read the schema");
	if (!m->n || strcmp(m->t[0].name, "runs")) {
		snprintf(m->db->err, sizeof(m->db->err), "no runs table");
		return DB_ERR;
	}
	for (i = 0; i < m->n; i++)
		if ((r = load_table(m, i)))
			return r;
	for (i = 0; i < m->n; i++)
		if ((r = load_fks(m, i)))
			return r;
	return DB_OK;
}

/*
 * Copy the rows of table i that belong to runs new to the output: runs by
 * uuid, any other table by its foreign keys into what was copied.
 */
static int copy_table(struct merge *m, int i, int64_t *added)
{
	struct table *t = &m->t[i];
	struct strbuf sel = STRBUF_INIT, ins = STRBUF_INIT, map = STRBUF_INIT;
	sqlite3_stmt *s = NULL, *in = NULL, *mp = NULL, *lk[8] = { NULL };
	int c, k, r = DB_ERR, nbind;

	*added = 0;
	strbuf_addf(&sel, "SELECT ");
	for (c = 0; c < t->ncols; c++) {
		strbuf_addf(&sel, "%s", c ? ", " : "");
		ident(&sel, t->cols[c]);
	}
	strbuf_addf(&sel, " FROM src.");
	ident(&sel, t->name);
	if (i == 0) {
		strbuf_addf(&sel, " WHERE uuid NOT IN (SELECT uuid FROM "
			    "main.runs)");
	} else {
		for (k = 0; k < t->nfk; k++) {
			strbuf_addf(&sel, " %s ", k ? "AND" : "WHERE");
			ident(&sel, t->cols[t->fk[k].col]);
			strbuf_addf(&sel, " IN (SELECT old FROM temp.");
			map_ident(&sel, m->t[t->fk[k].parent].name);
			strbuf_addf(&sel, ")");
		}
	}
	strbuf_addf(&sel, " ORDER BY rowid");
	strbuf_addf(&ins, "INSERT INTO main.");
	ident(&ins, t->name);
	strbuf_addf(&ins, " (");
	for (c = 0, nbind = 0; c < t->ncols; c++) {
		if (c == t->id_col)
			continue;
		strbuf_addf(&ins, "%s", nbind++ ? ", " : "");
		ident(&ins, t->cols[c]);
	}
	strbuf_addf(&ins, ") VALUES (");
	for (c = 0; c < nbind; c++)
		strbuf_addf(&ins, "%s?", c ? ", " : "");
	strbuf_addf(&ins, ")");
	if (t->id_col >= 0) {
		/* the old id to the new one, named after the table */
		strbuf_addf(&map, "CREATE TEMP TABLE ");
		map_ident(&map, t->name);
		strbuf_addf(&map, " (old INTEGER PRIMARY KEY, new INTEGER)");
		if (db_exec(m->db, map.buf))
			goto out;
		strbuf_release(&map);
		strbuf_addf(&map, "INSERT INTO temp.");
		map_ident(&map, t->name);
		strbuf_addf(&map, " VALUES (?, ?)");
		if (sqlite3_prepare_v2(m->db->h, map.buf, -1, &mp, NULL))
			goto sqlerr;
	}
	for (k = 0; k < t->nfk; k++) {
		strbuf_release(&map);
		strbuf_addf(&map, "SELECT new FROM temp.");
		map_ident(&map, m->t[t->fk[k].parent].name);
		strbuf_addf(&map, " WHERE old = ?");
		if (sqlite3_prepare_v2(m->db->h, map.buf, -1, &lk[k], NULL))
			goto sqlerr;
	}
	if (sqlite3_prepare_v2(m->db->h, sel.buf, -1, &s, NULL) ||
	    sqlite3_prepare_v2(m->db->h, ins.buf, -1, &in, NULL))
		goto sqlerr;
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		for (c = 0, nbind = 0; c < t->ncols; c++) {
			if (c == t->id_col)
				continue;
			nbind++;
			for (k = 0; k < t->nfk; k++)
				if (t->fk[k].col == c)
					break;
			if (k == t->nfk) {
				sqlite3_bind_value(in, nbind,
						   sqlite3_column_value(s, c));
				continue;
			}
			sqlite3_reset(lk[k]);
			sqlite3_bind_int64(lk[k], 1,
					   sqlite3_column_int64(s, c));
			if (sqlite3_step(lk[k]) != SQLITE_ROW)
				goto sqlerr;
			sqlite3_bind_int64(in, nbind,
					   sqlite3_column_int64(lk[k], 0));
		}
		if (sqlite3_step(in) != SQLITE_DONE)
			goto sqlerr;
		sqlite3_reset(in);
		if (mp) {
			sqlite3_reset(mp);
			sqlite3_bind_int64(mp, 1,
					   sqlite3_column_int64(s, t->id_col));
			sqlite3_bind_int64(mp, 2,
					   sqlite3_last_insert_rowid(m->db->h));
			if (sqlite3_step(mp) != SQLITE_DONE)
				goto sqlerr;
		}
		(*added)++;
	}
	if (r != SQLITE_DONE)
		goto sqlerr;
	r = DB_OK;
	goto out;
sqlerr:
	r = db_fail(m->db, t->name);
out:
	for (k = 0; k < t->nfk; k++)
		sqlite3_finalize(lk[k]);
	sqlite3_finalize(s);
	sqlite3_finalize(in);
	sqlite3_finalize(mp);
	strbuf_release(&sel);
	strbuf_release(&ins);
	strbuf_release(&map);
	return r;
}

/* Tables in an order where every parent comes before its children. */
static int copy_all(struct merge *m, struct db_merge_stats *st)
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
			snprintf(st->table[st->ntables].name,
				 sizeof(st->table[0].name), "%s", t->name);
			r = copy_table(m, i, &st->table[st->ntables].added);
			if (r)
				return r;
			st->ntables++;
			t->done = true;
			done++;
			progress = true;
		}
	}
	if (done < m->n) {
		snprintf(m->db->err, sizeof(m->db->err), "the tables' foreign "
			 "keys form a cycle");
		return DB_ERR;
	}
	return DB_OK;
}

/* A consistent copy of the input, never written, in the current schema. */
static int copy_input(struct db *out, const char *in_path, char *tmp,
		      size_t n, struct db_merge_stats *st)
{
	sqlite3 *src = NULL, *dst = NULL;
	sqlite3_backup *bk;
	struct db cp;
	const char *dir = getenv("TMPDIR");
	int fd, r = DB_ERR, v = -1;
	sqlite3_stmt *q;

	if (access(in_path, F_OK)) {
		snprintf(out->err, sizeof(out->err), "%s", strerror(errno));
		return DB_MISSING;
	}
	if (sqlite3_open_v2(in_path, &src, SQLITE_OPEN_READONLY, NULL)) {
		snprintf(out->err, sizeof(out->err), "%s", sqlite3_errmsg(src));
		goto out;
	}
	if (!sqlite3_prepare_v2(src, "PRAGMA user_version", -1, &q, NULL)) {
		if (sqlite3_step(q) == SQLITE_ROW)
			v = sqlite3_column_int(q, 0);
		sqlite3_finalize(q);
	}
	if (v < 0 || sqlite3_prepare_v2(src, "SELECT uuid FROM runs LIMIT 0",
					-1, &q, NULL)) {
		snprintf(out->err, sizeof(out->err), "%s", sqlite3_errmsg(src));
		r = DB_NOT_DB;
		goto out;
	}
	sqlite3_finalize(q);
	st->in_version = v;
	if (v > DB_SCHEMA_VERSION) {
		snprintf(out->err, sizeof(out->err), "schema version %d is "
			 "newer than this tool's %d", v, DB_SCHEMA_VERSION);
		r = DB_TOO_NEW;
		goto out;
	}
	snprintf(tmp, n, "%s/foliobench-merge.XXXXXX", dir && *dir ? dir :
		 "/tmp");
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(out->err, sizeof(out->err), "cannot make %.300s: %s",
			 tmp, strerror(errno));
		tmp[0] = '\0';
		goto out;
	}
	close(fd);
	if (sqlite3_open_v2(tmp, &dst, SQLITE_OPEN_READWRITE, NULL))
		goto dst_err;
	bk = sqlite3_backup_init(dst, "main", src, "main");
	if (!bk)
		goto dst_err;
	sqlite3_backup_step(bk, -1);
	if (sqlite3_backup_finish(bk) != SQLITE_OK)
		goto dst_err;
	sqlite3_close_v2(dst);
	dst = NULL;
	r = db_open(&cp, tmp, false);	/* migrates the copy */
	if (r)
		snprintf(out->err, sizeof(out->err), "cannot migrate a copy "
			 "of %.200s: %.280s", in_path, cp.err);
	db_close(&cp);
	goto out;
dst_err:
	snprintf(out->err, sizeof(out->err), "cannot copy %.150s to %.150s: "
		 "%.150s", in_path, tmp, sqlite3_errmsg(dst));
	r = DB_ERR;
out:
	sqlite3_close_v2(dst);
	sqlite3_close_v2(src);
	return r;
}

static void remove_copy(const char *tmp)
{
	char side[4200];

	if (!tmp[0])
		return;
	unlink(tmp);
	snprintf(side, sizeof(side), "%s-wal", tmp);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", tmp);
	unlink(side);
}

int db_merge(struct db *out, const char *in_path, struct db_merge_stats *st)
{
	struct merge *m;
	char tmp[4096] = "";
	sqlite3_stmt *q = NULL;
	bool attached = false;
	int r;

	memset(st, 0, sizeof(*st));
	m = calloc(1, sizeof(*m));
	if (!m) {
		snprintf(out->err, sizeof(out->err), "out of memory");
		return DB_ERR;
	}
	m->db = out;
	r = copy_input(out, in_path, tmp, sizeof(tmp), st);
	if (r)
		goto out;
	r = DB_ERR;
	if (sqlite3_prepare_v2(out->h, "ATTACH DATABASE ? AS src", -1, &q,
			       NULL) ||
	    sqlite3_bind_text(q, 1, tmp, -1, SQLITE_TRANSIENT) ||
	    sqlite3_step(q) != SQLITE_DONE) {
		db_fail(out, "cannot attach the copy");
		goto out;
	}
	attached = true;
	sqlite3_finalize(q);
	q = NULL;
	if (db_exec(out, "BEGIN IMMEDIATE"))
		goto out;
	r = load_schema(m);
	if (!r && sqlite3_prepare_v2(out->h, "SELECT count(*) FROM src.runs "
				     "WHERE uuid IN (SELECT uuid FROM "
				     "main.runs)", -1, &q, NULL) == SQLITE_OK &&
	    sqlite3_step(q) == SQLITE_ROW)
		st->runs_present = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	q = NULL;
	if (!r)
		r = copy_all(m, st);
	if (!r && db_exec(out, "COMMIT"))
		r = DB_ERR;
	if (r) {
		db_rollback(out);
	}
out:
	sqlite3_finalize(q);
	/* the map tables live in temp: drop them with the attachment */
	for (int i = 0; attached && i < m->n; i++) {
		struct strbuf d = STRBUF_INIT;

		strbuf_addf(&d, "DROP TABLE IF EXISTS temp.");
		map_ident(&d, m->t[i].name);
		db_exec(out, d.buf);
		strbuf_release(&d);
	}
	if (attached)
		db_exec(out, "DETACH DATABASE src");
	remove_copy(tmp);
	free(m);
	return r;
}
