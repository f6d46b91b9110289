/*
 * One side of a comparison from the database: the complete runs of a label,
 * their values kept per series and boot, each boot's median (compare.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "schema/db_report.h"
#include "schema/db_series.h"
#include "reports/compare_priv.h"
#include "reports/compare_load.h"

static void dup_all(char **out[], const char *in[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*out[i] = xstrdup(in[i]);
}

/* A string many runs share: its predecessor's (mostly), else the pool's. */
static const char *shared(struct report_side *s, const char *had,
			  const char *v)
{
	return had && !strcmp(had, v) ? had : strmap_intern(&s->pool, v);
}

/* The strings of run d that others share, from the side's pool. */
static void run_shared(struct report_side *s, struct report_run *d,
		       const struct db_report_run *r)
{
	const struct report_run *p = s->nruns > 1 ? d - 1 : NULL;

	d->kernel_release = shared(s, p ? p->kernel_release : NULL,
				   r->kernel_release);
	d->boot_id = shared(s, p ? p->boot_id : NULL, r->boot_id);
	d->hostname = shared(s, p ? p->hostname : NULL, r->hostname);
	d->cpu_model = shared(s, p ? p->cpu_model : NULL, r->cpu_model);
	d->cmdline = shared(s, p ? p->cmdline : NULL, r->cmdline);
	d->thp = shared(s, p ? p->thp : NULL, r->thp);
	d->tmpfs = shared(s, p ? p->tmpfs : NULL, r->tmpfs);
	d->tool_version = shared(s, p ? p->tool_version : NULL,
				 r->tool_version);
	d->virt = shared(s, p ? p->virt : NULL, r->virt);
}

static int load_run(const struct db_report_run *r, void *arg)
{
	struct load *l = arg;
	struct report_side *s = l->s;
	struct report_run *d;
	size_t b;

	cmp_grow(&s->runs, &l->runs_alloc, s->nruns + 1, sizeof(*s->runs));
	d = &s->runs[s->nruns++];
	d->id = r->id;
	d->vcpus = r->vcpus;
	d->mem_bytes = r->mem_bytes;
	d->kernel_warnings = r->kernel_warnings;
	if (r->kernel_warnings > 0) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "[%5lld.%06lld] %s",
			    (long long)(r->kwarn_at_us / 1000000),
			    (long long)(r->kwarn_at_us % 1000000),
			    r->kwarn_first);
		d->kwarn_first = strbuf_detach(&sb, NULL);
	}
	d->uuid = xstrdup(r->uuid);
	d->started_at = xstrdup(r->started_at);
	run_shared(s, d, r);
	/* Boots in the order of their first complete run. */
	b = strmap_put(&l->boots, &r->boot_id, 1, s->nboots);
	if (b == s->nboots)
		cmp_list_add(&s->boot_ids, &s->nboots, &l->boots_alloc,
			     r->boot_id);
	d->boot = (int)b;
	cmp_marks_run(l, r);
	if (!strcmp(r->clock, "instructions")) {
		if (!l->ncounted++ || r->icount_shift < l->shift_lo)
			l->shift_lo = r->icount_shift;
		if (l->ncounted == 1 || r->icount_shift > l->shift_hi)
			l->shift_hi = r->icount_shift;
	} else {
		l->ntimed++;
	}
	return 0;
}

/*
 * The side's clock from its runs' (before a half is kept, so that both
 * halves of an A/A comparison judge the whole label): one for all, or the
 * label is refused where it would be shown.
 */
static int side_clock(struct load *l, const char *label)
{
	struct report_side *s = l->s;

	s->clock = REPORT_CLOCK_TIMED;
	if (l->ncounted && l->ntimed) {
		strbuf_addf(l->err, "label '%s' mixes runs counted in guest "
			    "instructions (%zu, bench vm --accel icount) with "
			    "timed runs (%zu): a count is no time, so no "
			    "table shows them together; give them labels of "
			    "their own", label, l->ncounted, l->ntimed);
		return REPORT_ECLOCK;
	}
	if (l->ncounted && l->shift_lo != l->shift_hi) {
		strbuf_addf(l->err, "label '%s' mixes runs counted with icount "
			    "shift %d and shift %d: their counts are in "
			    "different units; give them labels of their own",
			    label, l->shift_lo, l->shift_hi);
		return REPORT_ECLOCK;
	}
	if (l->ncounted) {
		s->clock.counted = true;
		s->clock.shift = l->shift_lo;
	}
	return 0;
}

/* Keep the runs of one half of the boots and number those boots anew. */
static void run_release(struct report_run *r)
{
	free(r->uuid);
	free(r->started_at);
	free(r->kwarn_first);
}

static void keep_half(struct report_side *s, int half)
{
	size_t i, k = 0, nb = 0;

	for (i = 0; i < s->nboots; i++) {
		if ((int)(i % 2) == half - 1)
			s->boot_ids[nb++] = s->boot_ids[i];
		else
			free(s->boot_ids[i]);
	}
	for (i = 0; i < s->nruns; i++) {
		struct report_run *r = &s->runs[i];

		if (r->boot % 2 != half - 1) {
			run_release(r);
			continue;
		}
		r->boot /= 2;
		s->runs[k++] = *r;
	}
	s->nruns = k;
	s->nboots = nb;
}

static int run_ix_cmp(const void *a, const void *b)
{
	const struct run_ix *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Index the side's runs by id (after keep_half). */
static void index_runs(struct load *l)
{
	struct report_side *s = l->s;
	size_t i;

	l->run_ix = xcalloc(s->nruns ? s->nruns : 1, sizeof(*l->run_ix));
	l->boot_runs = xcalloc(s->nboots ? s->nboots : 1,
			       sizeof(*l->boot_runs));
	for (i = 0; i < s->nruns; i++) {
		l->run_ix[i].id = s->runs[i].id;
		l->run_ix[i].i = i;
		l->boot_runs[s->runs[i].boot]++;
	}
	qsort(l->run_ix, s->nruns, sizeof(*l->run_ix), run_ix_cmp);
	l->last_run = 0;
}

/* Values come run after run: the last run found, else a binary search. */
struct report_run *cmp_find_run(struct load *l, int64_t id)
{
	struct report_side *s = l->s;
	struct run_ix key = { .id = id }, *hit;

	if (l->last_run < s->nruns && s->runs[l->last_run].id == id)
		return &s->runs[l->last_run];
	hit = bsearch(&key, l->run_ix, s->nruns, sizeof(*l->run_ix),
		      run_ix_cmp);
	if (!hit)
		return NULL;
	l->last_run = hit->i;
	return &s->runs[hit->i];
}

static bool same_series(const struct report_series *x,
			const struct db_report_value *v)
{
	return !strcmp(x->metric, v->metric) &&
	       !strcmp(x->params, v->params) &&
	       !strcmp(x->workload, v->workload);
}

/* The series of v, or NULL: the last one hit, else by its key. */
struct report_series *cmp_find_series(struct load *l,
					 const struct db_report_value *v)
{
	struct report_side *s = l->s;
	const char *key[] = { v->workload, v->params, v->metric };
	size_t k;

	if (l->last < s->nser && same_series(&s->ser[l->last], v))
		return &s->ser[l->last];
	if (l->last + 1 < s->nser && same_series(&s->ser[l->last + 1], v)) {
		l->last++;
		return &s->ser[l->last];
	}
	k = strmap_get(&l->ser_map, key, ARRAY_SIZE(key));
	if (k == STRMAP_NONE)
		return NULL;
	l->last = k;
	return &s->ser[k];
}

/* A new series was added at the end of s->ser: map it, give it slots. */
static void series_added(struct load *l)
{
	struct report_side *s = l->s;
	size_t n = s->nser;
	const char *key[] = { s->ser[n - 1].workload, s->ser[n - 1].params,
			      s->ser[n - 1].metric };

	strmap_put(&l->ser_map, key, ARRAY_SIZE(key), n - 1);
	if (l->ser_alloc > l->sb_alloc) {
		l->sb = xrealloc(l->sb, l->ser_alloc * sizeof(*l->sb));
		memset(l->sb + l->sb_alloc, 0,
		       (l->ser_alloc - l->sb_alloc) * sizeof(*l->sb));
		l->sb_alloc = l->ser_alloc;
	}
	l->sb[n - 1].slot = xcalloc(s->nboots ? s->nboots : 1,
				    sizeof(*l->sb[n - 1].slot));
}

static void load_release(struct load *l)
{
	size_t i;

	for (i = 0; i < l->sb_alloc; i++)
		free(l->sb[i].slot);
	free(l->sb);
	strmap_release(&l->ser_map);
	free(l->run_ix);
	free(l->boot_runs);
	strmap_release(&l->boots);
	strmap_release(&l->shapes_seen);
	strmap_release(&l->guests_seen);
}

struct report_series *cmp_series_of(struct load *l,
				     const struct db_report_value *v, int *r)
{
	struct report_side *s = l->s;
	struct report_series *x = cmp_find_series(l, v);

	if (!x) {
		cmp_grow(&s->ser, &l->ser_alloc, s->nser + 1, sizeof(*s->ser));
		l->last = s->nser;
		x = &s->ser[s->nser++];
		{
			char **out[] = { &x->workload, &x->params, &x->metric,
					 &x->unit };
			const char *in[] = { v->workload, v->params, v->metric,
					     v->unit };

			dup_all(out, in, ARRAY_SIZE(in));
		}
		x->higher = !strcmp(v->better, "higher");
		series_added(l);
	}
	if (v->asked && !x->asked)
		x->asked = xstrdup(v->asked);
	if (strcmp(x->unit, v->unit)) {
		strbuf_addf(l->err, "%s %s: metric %s is stored both in %s "
			    "and in %s", x->workload, x->params, x->metric,
			    x->unit, v->unit);
		*r = REPORT_EDATA;
		return NULL;
	}
	return x;
}

int cmp_series_add(struct load *l, struct report_series *x,
		   const struct report_run *run, const double *v, size_t n)
{
	struct ser_boots *xb = &l->sb[x - l->s->ser];
	struct report_boot_vals *bv;
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i])) {
			strbuf_addf(l->err, "%s %s: metric %s has a value that "
				    "is not a finite number", x->workload,
				    x->params, x->metric);
			return REPORT_EDATA;
		}
	if (xb->slot[run->boot]) {
		bv = &x->boots[xb->slot[run->boot] - 1];
		/*
		 * A second run's: as many from each run of the boot, mostly,
		 * room for all (a series read for its first value alone
		 * never gets here)
		 */
		if (bv->n + n > bv->alloc)
			cmp_grow(&bv->v, &bv->alloc,
				 n * l->boot_runs[run->boot], sizeof(*bv->v));
	} else {
		cmp_grow(&x->boots, &xb->alloc, x->nboots + 1, sizeof(*x->boots));
		bv = &x->boots[x->nboots++];
		memset(bv, 0, sizeof(*bv));
		bv->boot = run->boot;
		xb->slot[run->boot] = x->nboots;
		/*
		 * room for as many from each run of the boot, no more: most
		 * boots hold one run, and alloc_nr's 24 values a boot for
		 * 10 was more memory, and its first touch, than the values
		 */
		bv->alloc = n * l->boot_runs[run->boot];
		bv->v = xcalloc(bv->alloc ? bv->alloc : 1, sizeof(*bv->v));
	}
	cmp_grow(&bv->v, &bv->alloc, bv->n + n, sizeof(*bv->v));
	memcpy(bv->v + bv->n, v, n * sizeof(*v));
	bv->n += n;
	return 0;
}

int cmp_load_values(struct load *l, const struct db_report_value *v,
		    const double *want, size_t n, bool unm, size_t *known)
{
	struct report_series *x;
	struct report_run *run;
	int r = 0;

	run = cmp_find_run(l, v->run_id);
	if (!run)		/* a run of the other half */
		return 0;
	if (known && *known != STRMAP_NONE) {
		/* its unit and asked params checked when first met */
		x = &l->s->ser[*known];
	} else {
		x = cmp_series_of(l, v, &r);
		if (!x)
			return r;
		if (known)
			*known = (size_t)(x - l->s->ser);
	}
	if (unm)
		x->unmeasurable = true;
	return n ? cmp_series_add(l, x, run, want, n) : 0;
}

int cmp_load_value(const struct db_report_value *v, void *arg)
{
	return cmp_load_values(arg, v, &v->value, v->supported,
			       !v->supported, NULL);
}

static int load_notdone(const struct db_report_case *c, void *arg)
{
	struct load *l = arg;
	struct report_side *s = l->s;
	struct report_notdone *d;
	size_t i;

	s->marks.profile |= c->profile;
	if (!strcmp(c->status, "done"))
		return 0;	/* read for its profile */
	for (i = 0; i < s->nnotdone; i++)
		if (!strcmp(s->notdone[i].workload, c->workload) &&
		    !strcmp(s->notdone[i].params, c->params) &&
		    !strcmp(s->notdone[i].status, c->status))
			return 0;
	cmp_grow(&s->notdone, &l->nd_alloc, s->nnotdone + 1, sizeof(*s->notdone));
	d = &s->notdone[s->nnotdone++];
	{
		char **out[] = { &d->workload, &d->params, &d->status,
				 &d->reason };
		const char *in[] = { c->workload, c->params, c->status,
				     c->reason };

		dup_all(out, in, ARRAY_SIZE(in));
	}
	return 0;
}

int report_side_load(struct db *db, const char *label, int half,
		     struct report_side *s, struct strbuf *err)
{
	return report_side_load_noisy(db, label, half, false, s, err);
}

static int load_run_all(const struct db_report_run *r, void *arg)
{
	struct loads *ls = arg;
	size_t i;
	int r0;

	for (i = 0; i < ls->n; i++)
		if ((r0 = load_run(r, &ls->l[i])))
			return r0;
	return 0;
}

static int load_value_all(const struct db_report_value *v, void *arg)
{
	struct loads *ls = arg;
	size_t i;
	int r;

	for (i = 0; i < ls->n; i++)
		if ((r = cmp_load_value(v, &ls->l[i])))
			return r;
	return 0;
}

static int load_notdone_all(const struct db_report_case *c, void *arg)
{
	struct loads *ls = arg;
	size_t i;
	int r;

	for (i = 0; i < ls->n; i++)
		if ((r = load_notdone(c, &ls->l[i])))
			return r;
	return 0;
}

/*
 * The label's values into the loads: from the runs' packs where every run
 * read has its pack (the runs' pass said so: the one check a load makes),
 * else from run_series where every run has its rows, else from the
 * samples; profiled samples only from the samples (the others hold none).
 */
static int load_values(struct loads *ls, const char *label, struct keep *k)
{
	struct load *l = ls->l;
	struct series_load sl = { .ls = ls, .k = k->shown ? k : NULL,
				  .drop_noisy = l->drop_noisy };
	bool packed = !l->profiled && !l->s->marks.unpacked, ready = false;
	int r = 0;

	if (packed)
		r = db_pack_each(l->db, label, cmp_load_series_all, &sl);
	else if (!l->profiled)
		r = db_report_series_ready(l->db, label, &ready);
	if (!r && ready)
		r = db_report_series_each(l->db, label, cmp_load_series_all,
					  &sl);
	cmp_series_load_release(&sl);
	if (r || packed || ready)
		return r;
	return db_report_values_each_kept(l->db, label, l->drop_noisy,
					  l->profiled,
					  k->shown ? cmp_keep_value : NULL, k,
					  load_value_all, ls);
}

/*
 * Load the sides of ls from one read of the label: each takes the runs of
 * its half of the boots and the values of those runs.
 */
static int side_load(struct loads *ls, const char *label,
		     const struct report_opts *shown, bool runs_only)
{
	struct load *l = ls->l;
	struct db *db = l->db;
	struct strbuf *err = l->err;
	struct keep k = { .shown = shown };
	size_t i;
	int r;

	for (i = 0; i < ls->n; i++)
		memset(l[i].s, 0, sizeof(*l[i].s));
	r = cmp_check_label(db, label, err);
	if (r)
		return r;
	for (i = 0; i < ls->n; i++) {
		struct report_side *s = l[i].s;

		s->db_label = xstrdup(label);
		s->db = db;
		if (l[i].half) {
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "%s (%s boots)", label,
				    l[i].half == 1 ? "odd" : "even");
			s->label = strbuf_detach(&sb, NULL);
		} else {
			s->label = xstrdup(label);
		}
	}
	r = db_report_runs_each(db, label, load_run_all, ls);
	if (r)
		goto fail;
	for (i = 0; i < ls->n; i++) {
		struct report_side *s = l[i].s;

		cmp_marks_finish(&l[i]);
		if ((r = side_clock(&l[i], label)))
			return r;
		if (l[i].half) {
			if (s->nboots < 2) {
				strbuf_addf(err, "label '%s' has complete "
					    "runs in %zu boot%s; an A/A "
					    "comparison needs at least 2",
					    label, s->nboots,
					    s->nboots == 1 ? "" : "s");
				return REPORT_EFEW;
			}
			keep_half(s, l[i].half);
		}
		index_runs(&l[i]);
	}
	if (!runs_only)
		r = load_values(ls, label, &k);
	cmp_keep_release(&k);
	if (r)
		goto fail;
	r = db_report_cases_marked_each(db, label, load_notdone_all, ls);
	if (r)
		goto fail;
	for (i = 0; i < ls->n; i++)
		if ((r = cmp_side_finish(&l[i], label)))
			return r;
	return 0;
fail:
	return report_db_status(db, r, err);
}

int report_side_load_noisy(struct db *db, const char *label, int half,
			   bool drop_noisy, struct report_side *s,
			   struct strbuf *err)
{
	struct report_load_opts lo = { .half = half,
				       .drop_noisy = drop_noisy };

	return report_side_load_opts(db, label, &lo, s, err);
}

int report_side_load_opts(struct db *db, const char *label,
			  const struct report_load_opts *lo,
			  struct report_side *s, struct strbuf *err)
{
	struct load l = { .db = db, .s = s, .err = err, .half = lo->half,
			  .drop_noisy = lo->drop_noisy,
			  .profiled = lo->profiled };
	struct loads ls = { &l, 1 };
	int r = side_load(&ls, label, lo->shown, lo->runs_only);

	load_release(&l);
	return r;
}

int report_side_load_halves(struct db *db, const char *label,
			    const struct report_load_opts *lo,
			    struct report_side *odd, struct report_side *even,
			    struct strbuf *err)
{
	struct load l[2] = {
		{ .db = db, .s = odd, .err = err, .half = 1,
		  .drop_noisy = lo->drop_noisy, .profiled = lo->profiled },
		{ .db = db, .s = even, .err = err, .half = 2,
		  .drop_noisy = lo->drop_noisy, .profiled = lo->profiled },
	};
	struct loads ls = { l, 2 };
	int r = side_load(&ls, label, lo->shown, lo->runs_only);

	load_release(&l[0]);
	load_release(&l[1]);
	return r;
}

void report_side_release(struct report_side *s)
{
	size_t i, j;

	for (i = 0; i < s->nruns; i++)
		run_release(&s->runs[i]);
	free(s->runs);
	cmp_list_free(s->boot_ids, s->nboots);
	for (i = 0; i < s->nser; i++) {
		struct report_series *x = &s->ser[i];

		free(x->workload);
		free(x->params);
		free(x->metric);
		free(x->unit);
		free(x->asked);
		for (j = 0; j < x->nkv; j++) {
			free(x->kv[j].key);
			free(x->kv[j].value);
			free(x->kv[j].asked);
		}
		free(x->kv);
		for (j = 0; j < x->nboots; j++)
			free(x->boots[j].v);
		free(x->boots);
		free(x->med);
		free(x->all);
	}
	free(s->ser);
	for (i = 0; i < s->nnotdone; i++) {
		free(s->notdone[i].workload);
		free(s->notdone[i].params);
		free(s->notdone[i].status);
		free(s->notdone[i].reason);
	}
	free(s->notdone);
	cmp_marks_release(&s->marks);
	strmap_release(&s->pool);
	free(s->label);
	free(s->db_label);
	memset(s, 0, sizeof(*s));
}
