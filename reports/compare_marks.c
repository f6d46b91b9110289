/*
 * What a load's runs' and cases' passes see of the whole label besides its
 * values (struct report_marks): the packs' marks summed, the distinct
 * topology shapes and guests, whether a case holds a profile.  compare's
 * warnings read them here, where each was a pass over the label's runs or
 * cases of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"
#include "reports/compare_load.h"

/* A topology shape not met yet into the side's list; "" is none. */
static void mark_shape(struct load *l, const char *shape)
{
	struct report_marks *m = &l->s->marks;
	size_t i;

	if (!shape[0] || (l->shape_last < m->nshapes &&
			  !strcmp(m->shapes[l->shape_last], shape)))
		return;
	i = strmap_put(&l->shapes_seen, &shape, 1, m->nshapes);
	if (i == m->nshapes) {
		cmp_grow(&m->shapes, &l->shapes_alloc, m->nshapes + 1,
			 sizeof(*m->shapes));
		m->shapes[m->nshapes++] = strmap_intern(&l->s->pool, shape);
	}
	l->shape_last = i;
}

static bool same_guest(const struct db_vm_shape *g,
		       const struct db_vm_shape *h)
{
	return g->icount_shift == h->icount_shift &&
	       !strcmp(g->accel, h->accel) && !strcmp(g->clock, h->clock) &&
	       !strcmp(g->shape, h->shape);
}

/* The run's guest (or none) into the side's list where it is new. */
static void mark_guest(struct load *l, const struct db_report_run *r)
{
	struct report_marks *m = &l->s->marks;
	struct db_vm_shape g = { .accel = r->vm_accel, .shape = r->vm_shape,
				 .clock = r->clock,
				 .icount_shift = r->icount_shift };
	char shift[16];
	const char *key[] = { g.accel, g.clock, shift, g.shape };
	size_t i;

	if (l->guest_last < m->nguests &&
	    same_guest(&m->guests[l->guest_last], &g))
		return;
	snprintf(shift, sizeof(shift), "%d", g.icount_shift);
	i = strmap_put(&l->guests_seen, key, ARRAY_SIZE(key), m->nguests);
	if (i == m->nguests) {
		cmp_grow(&m->guests, &l->guests_alloc, m->nguests + 1,
			 sizeof(*m->guests));
		g.accel = strmap_intern(&l->s->pool, g.accel);
		g.shape = strmap_intern(&l->s->pool, g.shape);
		g.clock = strmap_intern(&l->s->pool, g.clock);
		m->guests[m->nguests++] = g;
	}
	l->guest_last = i;
}

void cmp_marks_run(struct load *l, const struct db_report_run *r)
{
	struct report_marks *m = &l->s->marks;

	if (r->packed) {
		m->samples += r->pack_samples;
		m->noisy += r->pack_noisy;
		m->bounded += r->pack_bounded > 0;
	} else {
		m->unpacked++;
	}
	mark_shape(l, r->topology_shape);
	mark_guest(l, r);
}

static int shape_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The order of SQL's ORDER BY accel, clock, icount_shift (NULL first), shape. */
static int guest_cmp(const void *a, const void *b)
{
	const struct db_vm_shape *g = a, *h = b;
	int c = strcmp(g->accel, h->accel);

	if (!c)
		c = strcmp(g->clock, h->clock);
	if (!c)
		c = (g->icount_shift > h->icount_shift) -
		    (g->icount_shift < h->icount_shift);
	return c ? c : strcmp(g->shape, h->shape);
}

void cmp_marks_finish(struct load *l)
{
	struct report_marks *m = &l->s->marks;

	/* qsort's base may not be NULL, even for none */
	if (m->nshapes > 1)
		qsort(m->shapes, m->nshapes, sizeof(*m->shapes), shape_cmp);
	if (m->nguests > 1)
		qsort(m->guests, m->nguests, sizeof(*m->guests), guest_cmp);
	strmap_release(&l->shapes_seen);
	strmap_release(&l->guests_seen);
}

int report_side_noisy(struct db *db, const struct report_side *s,
		      int64_t *noisy, int64_t *total)
{
	if (s->marks.unpacked)
		return db_report_noisy(db, s->db_label, noisy, total);
	*noisy = s->marks.noisy;
	*total = s->marks.samples;
	return 0;
}

void cmp_marks_release(struct report_marks *m)
{
	free(m->shapes);
	free(m->guests);
	memset(m, 0, sizeof(*m));
}
