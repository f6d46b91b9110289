/*
 * What the files of the merge share (merge.c opens and attaches, and drives
 * the rest; merge_schema.c reads the tables to copy; merge_copy.c copies
 * rows; merge_fresh.c copies a whole file into an empty output).
 */
#ifndef FB_MERGE_PRIV_H
#define FB_MERGE_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"
#include "merge.h"

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
	bool dict;		/* no parent, some child: copied by value */
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
void merge_ident(struct strbuf *sb, const char *name);
/* The temp table that maps a table's ids in the input to the output's. */
void merge_map_ident(struct strbuf *sb, const char *table);
/* One number from SQL with at most one text parameter; -1 on error. */
int64_t merge_query_int(struct merge *m, const char *sql, const char *arg);
/*
 * The output through a rollback journal where no other connection has it
 * open (true), else through WAL; merge_wal_again after.
 */
bool merge_journal_rollback(struct merge *m);
void merge_wal_again(struct merge *m);
/*
 * The output's tables (runs first), their columns and foreign keys, each
 * checked to be in the input: DB_OK, DB_NOT_DB naming what is missing.
 */
int merge_load_schema(struct merge *m);
/*
 * Tables in an order where every parent comes before its children: copied,
 * or only counted after a whole-file copy (counted).
 */
int merge_copy_all(struct merge *m, struct db_merge_stats *st, bool counted);
/*
 * The input copied page by page into an empty output; 1 where that does
 * not apply and the merge copies rows (merge_fresh.c says when).
 */
int merge_fresh_copy(struct merge *m, struct db_merge_stats *st);

#endif
