/*
 * Each run's valid values kept per series (run_series, schema 10): what
 * the reports read in the place of a label's samples.
 */
#ifndef FB_DB_SERIES_H
#define FB_DB_SERIES_H

#include <stdint.h>

#include "db.h"

/* Make the rows of one run anew from its samples (when it ends). */
int db_series_run(struct db *db, int64_t run_id);
/* Make them for every run without its mark (migration, merge). */
int db_series_missing(struct db *db);
/* A value as kept in run_series.vals: 8 bytes, little-endian. */
void db_series_put(unsigned char *p, double v);
double db_series_get(const unsigned char *p);

#endif
