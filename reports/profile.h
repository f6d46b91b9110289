/*
 * The kernel profile of each case (schema 11) beside the other kernel's:
 * the functions whose share of the timed call changed (compare --profile)
 * and the merged call tree the report draws as a differential flame graph.
 */
#ifndef FB_PROFILE_H
#define FB_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "reports/compare.h"

/*
 * Fewest samples a side for a case's shares to be compared: a share p of
 * n samples has a sampling error of sqrt(p (1 - p) / n), 5 points at
 * p = 0.5 and n = 100; fewer, and one tick more or less reads as a change.
 */
#define REPORT_PROF_MIN	100
/* Functions a case shows by default (--profile-top). */
#define REPORT_PROF_TOP	10

/* A function of a case on both sides: shares of the call, 0 to 1. */
struct report_prof_fn {
	char *name;
	double self[2];		/* samples that ended in it */
	double incl[2];		/* samples with it on the stack, once each */
	double cost[2];		/* incl x the side's median; NAN none */
};

/*
 * A frame of the merged call tree, a path from the outermost function:
 * widths of a flame graph.  SIZE_MAX: no parent, child or sibling.
 */
struct report_prof_node {
	char *name;
	size_t parent, child, next;
	int depth;		/* 0: outermost */
	double incl[2];		/* share of the call on this path */
};

struct report_prof_side {
	bool has;		/* profiled: its stacks are read */
	char *off;		/* asked for and not had: why (else NULL) */
	char *unit, *event;	/* of one sample: "ns", "cpu-clock" */
	double period;		/* units a sample; NAN not said */
	int64_t samples;	/* over its boots */
	size_t nboots;		/* boots with samples: the mean's */
	double median;		/* the case's median (compare's); NAN none */
	char *median_unit;	/* its unit: a time or "instr" */
};

struct report_prof_case {
	char *workload, *params;
	char *name;		/* as compare names the row, else params */
	struct report_prof_side s[2];
	bool few;		/* a side has fewer than min samples */
	/* sorted by the change of the cost with children, largest first */
	struct report_prof_fn *fn;
	size_t nfn;
	/* siblings linked in the order of their names, from root */
	struct report_prof_node *node;
	size_t nnode, root;
};

struct report_prof {
	const char *label[2];	/* base, patch (NULL: one kernel) */
	/* a side none of whose cases has a profile: why, else NULL */
	char *none[2];
	struct report_prof_case *c;	/* in compare's row order */
	size_t n;
	size_t min, top;
};

/*
 * The profiles of the cases of c's sides (c->b NULL: of c->a alone), each
 * case's stacks as shares of its boots' samples, averaged over the boots;
 * costs from c's rows.  REPORT_OK, REPORT_ENOMEM, or a database status
 * with err filled in.
 */
int report_prof_load(struct db *db, const struct report_cmp *c, size_t min,
		     size_t top, struct report_prof *p, struct strbuf *err);
void report_prof_release(struct report_prof *p);
/* The text tables; -errno when the stream fails. */
int report_prof_print(FILE *f, const struct report_prof *p);
/* "42 samples of cpu-clock every 100 us in 3 boots" into sb. */
void report_prof_side_words(const struct report_prof_side *s,
			    struct strbuf *sb);

#endif
