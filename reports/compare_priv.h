/*
 * What the files of compare share (compare.c, compare_load.c,
 * compare_words.c, compare_meta.c); not for the rest of reports/.
 */
#ifndef FB_COMPARE_PRIV_H
#define FB_COMPARE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "reports/compare.h"

/* What report_compare grows as it builds a comparison. */
struct cmp_build {
	size_t rows_alloc, warn_alloc, unm_alloc;
};

/* Room for need elements in *pp, the new ones zeroed (ALLOC_GROW's way). */
void cmp_grow(void *pp, size_t *alloc, size_t need, size_t size);
/* A growable list of strings. */
void cmp_list_add(char ***list, size_t *n, size_t *alloc, const char *s);
void cmp_list_free(char **list, size_t n);
/* Is name one of the comma-separated names of list? */
bool cmp_in_list(const char *list, const char *name);
int cmp_warnf(struct report_cmp *c, struct cmp_build *cb, const char *fmt,
	      ...) __attribute__((format(printf, 3, 4)));

static inline const struct report_series *row_ser(const struct report_row *r)
{
	return r->a ? r->a : r->b;
}

/* compare_words.c */
int cmp_name_rows(struct report_cmp *c);
int cmp_build_phrase(struct report_cmp *c);
int cmp_build_method(struct report_cmp *c);

/* compare_meta.c */
int cmp_diff_meta(struct report_cmp *c, struct cmp_build *cb);
int cmp_diff_cases(struct report_cmp *c, struct cmp_build *cb);
int cmp_kernel_warnings(struct report_cmp *c, size_t *alloc,
			const struct report_side *s);

#endif
