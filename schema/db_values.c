/*
 * The check of a stored value that every reader and copier of samples
 * makes (the reports, merge, upload): a text value reads as 0.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "db_priv.h"

int db_bad_row(struct db *db, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->errbuf, sizeof(db->errbuf), fmt, ap);
	va_end(ap);
	return DB_BADROW;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * What a text or blob column holds, for people: a blob's bytes as \xNN
 * (a blob value is kept as {"blob": hex} in a sample's values, schema 15:
 * its bytes are the hex's).
 */
static void shown(sqlite3_stmt *st, int col, char *out, size_t n)
{
	static const char kept[] = "{\"blob\":\"";
	const char *b = sqlite3_column_blob(st, col);
	int i, len = sqlite3_column_bytes(st, col);
	size_t at = 0;
	unsigned x;

	out[0] = '\0';
	if (sqlite3_column_type(st, col) == SQLITE_TEXT) {
		snprintf(out, n, "%.40s", db_col_text(st, col));
		return;
	}
	if (b && len > (int)strlen(kept) &&
	    !strncmp(b, kept, strlen(kept))) {
		for (i = (int)strlen(kept); i + 1 < len && i < 40 &&
		     at + 5 <= n && hex(b[i]) >= 0 && hex(b[i + 1]) >= 0;
		     i += 2) {
			x = (unsigned)(hex(b[i]) << 4 | hex(b[i + 1]));
			at += (size_t)snprintf(out + at, n - at, "\\x%02x", x);
		}
		return;
	}
	for (i = 0; b && i < len && i < 10 && at + 5 <= n; i++)
		at += (size_t)snprintf(out + at, n - at, "\\x%02x",
				       (unsigned char)b[i]);
}

int db_check_value(struct db *db, sqlite3_stmt *st, int col,
		   int64_t sample_id, int64_t run_id, const char *metric,
		   const char *unit)
{
	int type = sqlite3_column_type(st, col);
	double v = sqlite3_column_double(st, col);
	char what[48];

	if (type == SQLITE_TEXT || type == SQLITE_BLOB) {
		shown(st, col, what, sizeof(what));
		return db_bad_row(db, "sample_values row of sample %lld "
				  "(run %lld), metric %s, holds %s, not a "
				  "number: '%s'", (long long)sample_id,
				  (long long)run_id, metric,
				  type == SQLITE_TEXT ? "text" : "a blob",
				  what);
	}
	return db_check_number(db, type, v, sample_id, run_id, metric, unit);
}

int db_check_number(struct db *db, int type, double v, int64_t sample_id,
		    int64_t run_id, const char *metric, const char *unit)
{
	if (type != SQLITE_NULL && v < 0 && db_time_unit(unit))
		return db_bad_row(db, "sample_values row of sample %lld "
				  "(run %lld), metric %s, holds a negative "
				  "time: %g %s", (long long)sample_id,
				  (long long)run_id, metric, v, unit);
	return DB_OK;
}

static int row_check(struct db *db, sqlite3_stmt *st, void *arg)
{
	(void)arg;
	return db_check_value(db, st, 4, sqlite3_column_int64(st, 0),
			      sqlite3_column_int64(st, 1), db_col_text(st, 2),
			      db_col_text(st, 3));
}

int db_values_check(struct db *db, const char *schema, const char *uuid)
{
	char sql[1280];

	/*
	 * Only the samples whose values may be bad are read, found through
	 * the partial index of exactly them (samples_suspect, schema 15;
	 * materialized, so that the order asked does not make SQLite scan
	 * the table for it); schema is ours.
	 */
	snprintf(sql, sizeof(sql), "WITH v AS MATERIALIZED (SELECT s.id AS "
		 "sample_id, s.case_id, v.key, " DB_V_METRIC " AS metric, "
		 DB_V_UNIT " AS unit, " DB_V_VALUE " AS value "
		 "FROM %1$s.samples s JOIN %1$s.value_layouts vl "
		 "ON vl.id = s.layout, json_each(s.vals) v "
		 "WHERE (instr(s.vals, '\"') OR instr(s.vals, '[-') OR "
		 "instr(s.vals, ',-')) AND (v.type IN ('text', 'object') OR "
		 "v.atom < 0)) "
		 "SELECT v.sample_id, c.run_id, v.metric, v.unit, v.value "
		 "FROM v JOIN %1$s.cases c ON c.id = v.case_id "
		 "WHERE (?1 IS NULL OR c.run_id = (SELECT id FROM %1$s.runs "
		 "WHERE uuid = ?1)) ORDER BY v.sample_id, v.key", schema);
	return db_each(db, "cannot read the values", row_check, NULL, sql,
		       "t", uuid);
}
