/* What the files of schema/ share and nothing else sees. */
#ifndef FB_DB_PRIV_H
#define FB_DB_PRIV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "db.h"
#include "common/common.h"

/* why's words become db's message (why released); returns r. */
int db_take_err(struct db *db, struct strbuf *why, int r);
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
 * "what: what SQLite said" in db->errbuf, and its code returned.
 */
int db_each(struct db *db, const char *what,
	    int (*fn)(struct db *db, sqlite3_stmt *st, void *arg), void *arg,
	    const char *sql, const char *fmt, ...);
/* A text column, "" for NULL. */
const char *db_col_text(sqlite3_stmt *st, int i);
/* A real column, NAN for NULL. */
double db_col_real(sqlite3_stmt *st, int i);
/*
 * A sample's values (schema 15: samples.vals, a JSON array named by its
 * layout, schema/015_sample_vals.sql) as rows, for a query's FROM after
 * the samples s: v.key is a value's place in the sample, the metric order
 * the workload gave.  The columns: the metric, unit, better, supported
 * from the layout; the value, a number, NULL, the text kept, or the bytes
 * of its {"blob": hex} (db_check_value says which).
 */
#define DB_VALUES_OF(s) \
	" JOIN value_layouts vl ON vl.id = " s ".layout, " \
	"json_each(" s ".vals) v "
/*
 * The layout of v's nv values (its row in value_layouts, made where
 * missing) and the JSON of their values, for a sample's layout and vals.
 */
struct db_value;
int db_vals_make(struct db *db, const struct db_value *v, int nv,
		 int64_t *layout, struct strbuf *vals);
#define DB_V_METRIC	"(vl.metrics ->> ('$[' || v.key || '][0]'))"
#define DB_V_UNIT	"(vl.metrics ->> ('$[' || v.key || '][1]'))"
#define DB_V_BETTER	"(vl.metrics ->> ('$[' || v.key || '][2]'))"
#define DB_V_SUPPORTED	"(vl.metrics ->> ('$[' || v.key || '][3]'))"
#define DB_V_VALUE \
	"(CASE v.type WHEN 'object' THEN CAST(v.value AS BLOB) ELSE v.atom END)"
/*
 * The one check of a stored value (column col of st, of that sample, run,
 * metric and unit), wherever samples are read or copied: a number or NULL
 * (not measurable), never text or a blob (they read as 0), and no
 * negative time.  DB_OK, or DB_BADROW naming the row.
 */
int db_check_value(struct db *db, sqlite3_stmt *st, int col,
		   int64_t sample_id, int64_t run_id, const char *metric,
		   const char *unit);
/* The same of a value of SQLite's type (a number or NULL) read apart. */
int db_check_number(struct db *db, int type, double v, int64_t sample_id,
		    int64_t run_id, const char *metric, const char *unit);
/*
 * The next item of a sample's vals (a JSON array, text that SQLite keeps
 * NUL-terminated) at *p, before end, as json_each gives it: a number
 * (SQLITE_INTEGER or SQLITE_FLOAT, *v the same bits), SQLITE_NULL, or 0 at
 * the array's end; -1 for anything else (a string, an object, true, text
 * that is no JSON: the caller asks SQLite).  *p starts at the '['.
 */
int db_vals_next(const char **p, const char *end, double *v);
/*
 * db_check_value over the values of schema's (main, src) run of that uuid,
 * or of all its runs for NULL: DB_OK, DB_BADROW naming the first bad row.
 */
int db_values_check(struct db *db, const char *schema, const char *uuid);
/*
 * A file name as a URI that SQLite reads back as exactly that file, query
 * ("?mode=ro") appended.
 */
void db_uri(struct strbuf *sb, const char *path, const char *query);
/*
 * How to read path without writing beside it: "?immutable=1" for a WAL
 * database whose -wal is absent or empty (the file holds every commit),
 * "?mode=ro" otherwise.
 */
const char *db_read_query(const char *path);
/*
 * A user_version of schema ("main", "src") on db's connection that reads
 * but is negative (SQLite keeps any 32-bit number there): no foliobench
 * schema, said in db's message; DB_NOT_DB, else 0.  Where it is not
 * checked, the read of a "version" of -1 looks failed and SQLite's message
 * for it is "not an error".
 */
int db_negative_version(struct db *db, const char *schema);
/*
 * The name SQLite is given for path: path, or "./path" (made in sb) where
 * SQLite would take it for a URI.
 */
const char *db_file_name(const char *path, struct strbuf *sb);
/* A database to be made where no directory holds it: -1, why in err. */
int db_no_dir(const char *path, struct strbuf *err);
/* Does path have a -wal or -shm beside it? */
bool db_wal_files(const char *path);
/* Is path on a file system mounted read-only? */
bool db_read_only_fs(const char *path);
/* A unit of time, alone or per something ("ns", "ns/folio"). */
bool db_time_unit(const char *u);
/* The current time, ISO 8601 UTC, as runs and samples store it. */
void db_iso_now(char *buf, size_t n);

#endif
