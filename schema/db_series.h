/*
 * Each run's valid values kept per series (run_series, schema 10): what
 * the reports read in the place of a label's samples.
 */
#ifndef FB_DB_SERIES_H
#define FB_DB_SERIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* Make the rows of one run anew from its samples (when it ends). */
int db_series_run(struct db *db, int64_t run_id);
/* Make them for every run without its mark, and the packs of every run
 * without its pack (migration, merge). */
int db_series_missing(struct db *db);
/* A value as kept in run_series.vals: 8 bytes, little-endian. */
void db_series_put(unsigned char *p, double v);
double db_series_get(const unsigned char *p);

/* One series of a run, as run_series holds it (db_pack.c). */
struct db_pack_series {
	const char *w, *p, *m, *u, *better;
	const char *asked;		/* NULL: none */
	size_t n;			/* measured values in vals */
	const unsigned char *vals;	/* 8 bytes a value, little-endian */
	const unsigned char *noisy;	/* NULL: none noisy, else 1 a value */
	int64_t unm, unm_noisy;
};
/* A run's mark in run_series (ord -1): its counts. */
struct db_pack_mark {
	int64_t samples, noisy_samples, bounded, bad;
};
/*
 * Keep the run's series in one row of run_packs (schema 14), anew; none
 * where a value of the run is one no report accepts (mk->bad).
 */
int db_pack_put(struct db *db, int64_t run, const struct db_pack_mark *mk,
		const struct db_pack_series *s, size_t n);
/* Make the rows of every run with its run_series mark and no pack. */
int db_pack_missing(struct db *db);
/* Copy the layouts of the attached database src that main lacks (merge). */
int db_pack_layouts_copy(struct db *db, const char *src);
/* Has every complete run of the label its pack? */
int db_pack_ready(struct db *db, const char *label, bool *ready);
/*
 * In one pass over the label's complete runs: how many lack their pack,
 * and their packs' marks summed: valid samples, noisy ones, and the runs
 * with a bounded count (compare's warnings).
 */
struct db_pack_sums {
	int64_t missing, samples, noisy_samples, bounded;
};
int db_pack_sums(struct db *db, const char *label, struct db_pack_sums *out);
struct db_report_series;
/* The label's packed series, as db_report_series_each gives them. */
int db_pack_each(struct db *db, const char *label,
		 int (*fn)(const struct db_report_series *, void *),
		 void *arg);

#endif
