/* What the files of schema/ share and nothing else sees. */
#ifndef FB_DB_PRIV_H
#define FB_DB_PRIV_H

#include <stdarg.h>
#include <stddef.h>

#include "db.h"

/* Prepare, bind by fmt ('t' text or NULL, 'i' int64, 'd' double), step. */
int db_vstmt(struct db *db, const char *sql, const char *fmt, va_list ap);
/* The current time, ISO 8601 UTC, as runs and samples store it. */
void db_iso_now(char *buf, size_t n);

#endif
