/* Statements: binding, stepping, walking rows, reading columns. */
#include "db.h"

#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "common/common.h"
#include "db_priv.h"

void db_iso_now(char *buf, size_t n)
{
	struct timespec ts;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int db_vbind(sqlite3_stmt *st, const char *fmt, va_list ap)
{
	int i, rc = SQLITE_OK;

	for (i = 0; fmt[i] && rc == SQLITE_OK; i++) {
		const char *t;

		switch (fmt[i]) {
		case 't':
			t = va_arg(ap, const char *);
			rc = t ? sqlite3_bind_text(st, i + 1, t, -1,
						   SQLITE_TRANSIENT) :
				 sqlite3_bind_null(st, i + 1);
			break;
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1,
						va_arg(ap, int64_t));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1,
						 va_arg(ap, double));
			break;
		default:
			rc = sqlite3_bind_null(st, i + 1);
		}
	}
	return rc;
}

int db_vstmt(struct db *db, const char *sql, const char *fmt, va_list ap)
{
	sqlite3_stmt *st;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "prepare");
	db_vbind(st, fmt, ap);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r != SQLITE_DONE && r != SQLITE_ROW)
		return db_fail(db, "write");
	return DB_OK;
}

int db_each(struct db *db, const char *what,
	    int (*fn)(struct db *db, sqlite3_stmt *st, void *arg), void *arg,
	    const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int r;

	if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_fail(db, what);
	va_start(ap, fmt);
	r = db_vbind(st, fmt, ap);
	va_end(ap);
	if (r != SQLITE_OK) {
		r = db_fail(db, what);
		sqlite3_finalize(st);
		return r;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(db, st, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	r = r == SQLITE_DONE ? DB_OK : db_fail(db, what);
	sqlite3_finalize(st);
	return r;
}

const char *db_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

double db_col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN :
	       sqlite3_column_double(st, i);
}

int db_stmt(struct db *db, const char *sql, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = db_vstmt(db, sql, fmt, ap);
	va_end(ap);
	return r;
}
