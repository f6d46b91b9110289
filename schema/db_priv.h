/* What the files of schema/ share and nothing else sees. */
#ifndef FB_DB_PRIV_H
#define FB_DB_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "db.h"

/*
 * Bind by fmt, one letter a parameter from ?1: 't' text (NULL binds NULL),
 * 'i' int64_t (pass an int64_t), 'd' double, anything else NULL.
 */
int db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap);
/* Prepare, bind by fmt as db_vbind does, step. */
int db_vstmt(struct db *db, const char *sql, const char *fmt, va_list ap);
int db_stmt(struct db *db, const char *sql, const char *fmt, ...);
/*
 * Walk the rows of sql: prepare, bind by fmt as db_vbind does, hand each
 * row to fn, finalize.  DB_OK after the last row; fn's nonzero value stops
 * the walk and is returned; an error of prepare, bind or step is said once,
 * "what: what SQLite said" in db->err, and its code returned.
 */
int db_each(struct db *db, const char *what,
	    int (*fn)(struct db *db, sqlite3_stmt *st, void *arg), void *arg,
	    const char *sql, const char *fmt, ...);
/* A text column, "" for NULL. */
const char *db_col_text(sqlite3_stmt *st, int i);
/* A real column, NAN for NULL. */
double db_col_real(sqlite3_stmt *st, int i);
/* A unit of time, alone or per something ("ns", "ns/folio"). */
bool db_time_unit(const char *u);
/* The current time, ISO 8601 UTC, as runs and samples store it. */
void db_iso_now(char *buf, size_t n);

#endif
