/*
 * Boot planning for two kernels (`bench plan`, `bench nightly`): the boots
 * each has had, the order they ran in, which kernel to boot next so that
 * the sequence stays balanced and alternating, and how many boots each
 * needs to detect a change, from the boot-to-boot spread so far.
 */
#ifndef FB_PLAN_H
#define FB_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "common/common.h"
#include "schema/db.h"

/*
 * The sequence a plan follows, A the base and B the patch: ABAB, then
 * BAAB, repeated.  Over any 8 boots each kernel has 4, each pair of boots
 * has one of each, and each kernel has been first and second as often, so
 * a drift of the host over the night falls on both.
 */
#define REPORT_PLAN_SEQ "ABABBAAB"

struct report_plan_row {
	char *name;		/* "shmem-remove op=unlink" */
	double effect;		/* percent of base it must detect */
	double sd_pct;		/* pooled sd of the boot medians, % of base */
	long need;		/* boots of each kernel; -1 no spread to plan */
};

struct report_bootplan {
	const char *label[2];	/* base, patch */
	size_t boots[2];	/* distinct boots with a complete run */
	char *order;		/* "ABAB", oldest first */
	unsigned target;	/* boots of each kernel asked for */
	int next;		/* 0 base, 1 patch, -1 both have their boots */
	struct report_plan_row *rows;
	size_t nrows;
	long need_max;		/* over the rows; -1 none could be planned */
};

/*
 * Plan from what db holds (db may be NULL: nothing recorded yet).  effect
 * is the change to detect in percent, or NAN for each workload's
 * published change (published(workload), itself NAN when unknown: such a
 * row is not planned).  0 or a REPORT_* error with err set.
 */
int report_plan(struct db *db, const char *base, const char *patch,
		unsigned target, double effect,
		double (*published)(const char *workload),
		bool (*primary)(const char *workload, const char *metric),
		struct report_bootplan *p, struct strbuf *err);
void report_plan_release(struct report_bootplan *p);

/* The next kernel for a history of na and nb boots (0 base, 1 patch). */
int report_plan_next(size_t na, size_t nb, unsigned target);

#endif
