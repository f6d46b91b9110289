/*
 * What the files that load a side of a comparison share (compare_load.c,
 * compare_keep.c, compare_finish.c, compare_label.c); not for the rest of
 * reports/.
 */
#ifndef FB_COMPARE_LOAD_H
#define FB_COMPARE_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "reports/compare.h"
#include "schema/db_report.h"

/* Where a series keeps each boot's values: slot[boot] - 1, 0 for none. */
struct ser_boots {
	size_t *slot;
	size_t alloc;		/* of the series' boots */
};

struct load {
	struct db *db;
	struct report_side *s;
	size_t runs_alloc, boots_alloc, ser_alloc, nd_alloc;
	size_t last;		/* last series hit: rows come in runs */
	struct strbuf *err;
	int half;
	bool drop_noisy;	/* leave out samples flagged noisy */
	bool profiled;		/* take the profiled samples too */
	/* the side's runs by id, for the values: sorted, and the last hit */
	struct run_ix { int64_t id; size_t i; } *run_ix;
	size_t last_run;
	/* series by (workload, params, metric): open addressing, 2^k slots */
	size_t *ser_hash, hash_size;
	struct ser_boots *sb;	/* beside s->ser */
	size_t sb_alloc;
	struct boot_hash { const char *id; size_t boot; } *boot_hash;
	size_t boot_hash_size;
	/* the runs' clocks: how many counted (and with which shifts), timed */
	size_t ncounted, ntimed;
	int shift_lo, shift_hi;
};

/*
 * Which values a load reads (report_load_opts.shown): every value of a
 * series the report shows; of the others, enough to know what they are:
 * the first measured value of each unit (a series stored in two units is
 * refused) and every one not measurable ("Not measurable on these
 * machines").  By (workload, params, metric, unit), in open addressing,
 * 2^k slots: whether the report shows it, and whether a measured value of
 * it was read.
 */
struct keep {
	const struct report_opts *shown;
	struct keep_key {
		char *w, *p, *m, *u;
		bool shown, measured;
	} *k;
	size_t size, n;
};

/* Loads of one label read together (--aa: its two halves). */
struct loads {
	struct load *l;
	size_t n;
};

/*
 * What cmp_keep_value decided for the series of a run's rows in turn (every
 * run of a label has the same series in the same order, mostly): shown, or
 * measured already (then no more of its measured values), as in sl->k.
 */
struct keep_seen {
	char *w, *p, *m, *u;
	bool shown, measured;
};

struct series_load {
	struct loads *ls;
	struct keep *k;		/* NULL: every value */
	bool drop_noisy;
	double *buf;
	size_t alloc;
	struct keep_seen *seen;
	size_t nseen, seen_alloc, cur;
	int64_t run;
};

/* FNV-1a of a string, its end marked (the loads' hashes), from h. */
#define CMP_FNV_BASIS 0xcbf29ce484222325ull
static inline uint64_t cmp_hash_str(uint64_t h, const char *p)
{
	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

/* compare_load.c */
/* Values come run after run: the last run found, else a binary search. */
struct report_run *cmp_find_run(struct load *l, int64_t id);
/* The series of v, or NULL: the last one hit, else by hash. */
struct report_series *cmp_find_series(struct load *l,
				      const struct db_report_value *v);
/* One value into load arg (a struct load): its series, boot and run. */
int cmp_load_value(const struct db_report_value *v, void *arg);

/* compare_keep.c */
/* Is v's value one to read (a struct keep as arg)? */
bool cmp_keep_value(const struct db_report_value *v, void *arg);
void cmp_keep_release(struct keep *k);
/* One run's values of one series (run_series) into the loads of arg. */
int cmp_load_series_all(const struct db_report_series *v, void *arg);
void cmp_series_load_release(struct series_load *sl);

/* compare_finish.c */
/* The params of each series, decoded, and the summary of its values. */
int cmp_side_finish(struct load *l, const char *label);

/* compare_label.c */
/* Why a label cannot be used: no runs at all, unknown, or none complete. */
int cmp_check_label(struct db *db, const char *label, struct strbuf *err);

#endif
