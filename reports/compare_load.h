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
#include "common/strmap.h"
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
	size_t *boot_runs;	/* the side's runs in each of its boots */
	struct strmap ser_map;	/* (workload, params, metric): series */
	struct ser_boots *sb;	/* beside s->ser */
	size_t sb_alloc;
	struct strmap boots;	/* boot id: its index in s->boot_ids */
	/* the runs' clocks: how many counted (and with which shifts), timed */
	size_t ncounted, ntimed;
	int shift_lo, shift_hi;
	/* s->marks' lists: what is in them, the last one met (runs repeat) */
	struct strmap shapes_seen, guests_seen;
	size_t shapes_alloc, guests_alloc, shape_last, guest_last;
};

/*
 * Which values a load reads (report_load_opts.shown): every value of a
 * series the report shows; of the others, enough to know what they are:
 * the first measured value of each unit (a series stored in two units is
 * refused) and every one not measurable ("Not measurable on these
 * machines").  By (workload, params, metric, unit): whether the report
 * shows it, and whether a measured value of it was read.
 */
struct keep {
	const struct report_opts *shown;
	struct strmap map;	/* the key: its flags' index in f */
	struct keep_flags {
		bool shown, measured;
	} *f;
	size_t n, alloc;
};

/* Loads of one label read together (--aa: its two halves). */
struct loads {
	struct load *l;
	size_t n;
};

/*
 * A place in a layout of packed series (db_report_series.pos): the same
 * series in every run of the layout, so that its keep flags and its
 * series in each load are looked up by their strings once a layout.
 */
struct place {
	size_t keep;		/* in keep.f; STRMAP_NONE: not met yet */
	size_t *ser;		/* in each load's s->ser (the same) */
};

struct layout_seen {
	int64_t id;
	size_t n;		/* places */
	struct place *p;
	size_t *ser;		/* of p[i]: ls->n each */
};

struct series_load {
	struct loads *ls;
	struct keep *k;		/* NULL: every value */
	bool drop_noisy;
	double *buf;
	size_t alloc;
	struct layout_seen *lay;
	size_t nlay, lay_alloc, cur;	/* cur: the last layout met */
};

/* compare_load.c */
/* Values come run after run: the last run found, else a binary search. */
struct report_run *cmp_find_run(struct load *l, int64_t id);
/* The series of v, or NULL: the last one hit, else by its key. */
struct report_series *cmp_find_series(struct load *l,
				      const struct db_report_value *v);
/*
 * The series of v's workload, params and metric, made where l has none;
 * NULL with *r set where v's unit is not the series'.
 */
struct report_series *cmp_series_of(struct load *l,
				     const struct db_report_value *v, int *r);
/* Values of x measured in run, into the run's boot (finite, or an error). */
int cmp_series_add(struct load *l, struct report_series *x,
		   const struct report_run *run, const double *v, size_t n);
/*
 * Values of v's run and series into l: n measured ones (want), and the
 * series marked not measurable where unm.  known: NULL, or the series'
 * index in l->s->ser where the caller knows it (else STRMAP_NONE, then
 * set), its unit and asked params checked when it was first met.
 */
int cmp_load_values(struct load *l, const struct db_report_value *v,
		    const double *want, size_t n, bool unm, size_t *known);
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

/* compare_marks.c */
/* What s->marks says of the run r (its pack's mark, topology, guest). */
void cmp_marks_run(struct load *l, const struct db_report_run *r);
/* The lists in order, once every run was met. */
void cmp_marks_finish(struct load *l);
void cmp_marks_release(struct report_marks *m);

/* compare_label.c */
/* Why a label cannot be used: no runs at all, unknown, or none complete. */
int cmp_check_label(struct db *db, const char *label, struct strbuf *err);

#endif
