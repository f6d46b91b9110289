/*
 * One side of a comparison from the database: the complete runs of a label,
 * their values kept per series and boot, each boot's median (compare.c).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"

/* --- loading one side --------------------------------------------------- */

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

static void dup_all(char **out[], const char *in[], size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		*out[i] = xstrdup(in[i]);
}

static uint64_t hash_str(uint64_t h, const char *p)
{
	while (*p)
		h = (h ^ (unsigned char)*p++) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;
}

/* The boot of this id among the side's boots; s->nboots if none yet. */
static size_t boot_find(struct load *l, const char *id)
{
	size_t m, i;

	if (!l->boot_hash_size)
		return l->s->nboots;
	m = l->boot_hash_size - 1;
	for (i = hash_str(0xcbf29ce484222325ull, id) & m; l->boot_hash[i].id;
	     i = (i + 1) & m)
		if (!strcmp(l->boot_hash[i].id, id))
			return l->boot_hash[i].boot;
	return l->s->nboots;
}

static void boot_hash_put(struct boot_hash *h, size_t size, const char *id,
			  size_t boot)
{
	size_t m = size - 1, i;

	for (i = hash_str(0xcbf29ce484222325ull, id) & m; h[i].id;
	     i = (i + 1) & m)
		;
	h[i].id = id;
	h[i].boot = boot;
}

/* Boot ids stay where s->boot_ids holds them while the runs load. */
static void boot_hash_add(struct load *l, const char *id, size_t boot)
{
	size_t i;

	if (2 * (boot + 1) > l->boot_hash_size) {
		size_t n = l->boot_hash_size ? 2 * l->boot_hash_size : 64;

		free(l->boot_hash);
		l->boot_hash = xcalloc(n, sizeof(*l->boot_hash));
		l->boot_hash_size = n;
		for (i = 0; i < boot; i++)
			boot_hash_put(l->boot_hash, n, l->s->boot_ids[i], i);
	}
	boot_hash_put(l->boot_hash, l->boot_hash_size, id, boot);
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
	{
		char **out[] = { &d->uuid, &d->kernel_release, &d->boot_id,
				 &d->hostname, &d->cpu_model, &d->cmdline,
				 &d->thp, &d->tmpfs, &d->tool_version,
				 &d->started_at, &d->virt };
		const char *in[] = { r->uuid, r->kernel_release, r->boot_id,
				     r->hostname, r->cpu_model, r->cmdline,
				     r->thp, r->tmpfs, r->tool_version,
				     r->started_at, r->virt };

		dup_all(out, in, ARRAY_SIZE(in));
	}
	/* Boots in the order of their first complete run. */
	b = boot_find(l, r->boot_id);
	if (b == s->nboots) {
		cmp_list_add(&s->boot_ids, &s->nboots, &l->boots_alloc,
			 r->boot_id);
		boot_hash_add(l, s->boot_ids[b], b);
	}
	d->boot = (int)b;
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

/*
 * A counted side's series in the units of its clock: a time becomes the
 * guest instructions it counts, with its values (report_clock_unit).
 */
static void series_clock(struct report_series *x,
			 const struct report_clock *ck)
{
	char unit[64];
	double f = report_clock_unit(ck, x->unit, unit, sizeof(unit));
	size_t i, k;

	if (!strcmp(unit, x->unit) && f == 1)
		return;
	free(x->unit);
	x->unit = xstrdup(unit);
	for (i = 0; i < x->nboots; i++)
		for (k = 0; k < x->boots[i].n; k++)
			x->boots[i].v[k] *= f;
}


/* The metric of a series the report with options o shows, or its sibling. */
static bool shows(const struct report_opts *o, const char *workload,
		  const char *metric, const char *unit)
{
	const char *f = strstr(unit, "/folio");

	if (f && !f[6])
		return true;	/* the per-folio sibling of a row */
	if (o->metrics)
		return cmp_in_list(o->metrics, metric);
	return !o->primary || o->primary(workload, metric);
}

static uint64_t keep_hash(const char *w, const char *p, const char *m,
			  const char *u)
{
	return hash_str(hash_str(hash_str(hash_str(0xcbf29ce484222325ull, w),
					  p), m), u);
}

static struct keep_key *keep_slot(struct keep *k, const char *w,
				  const char *p, const char *m, const char *u)
{
	size_t mask = k->size - 1, i;

	for (i = keep_hash(w, p, m, u) & mask; k->k[i].w; i = (i + 1) & mask)
		if (!strcmp(k->k[i].m, m) && !strcmp(k->k[i].p, p) &&
		    !strcmp(k->k[i].w, w) && !strcmp(k->k[i].u, u))
			break;
	return &k->k[i];
}

static bool keep_value(const struct db_report_value *v, void *arg)
{
	struct keep *k = arg;
	struct keep_key *e;
	size_t i;

	if (2 * (k->n + 1) > k->size) {
		struct keep_key *old = k->k;
		size_t n = k->size;

		k->size = n ? 2 * n : 64;
		k->k = xcalloc(k->size, sizeof(*k->k));
		for (i = 0; i < n; i++)
			if (old[i].w)
				*keep_slot(k, old[i].w, old[i].p, old[i].m,
					   old[i].u) = old[i];
		free(old);
	}
	e = keep_slot(k, v->workload, v->params, v->metric, v->unit);
	if (!e->w) {
		e->w = xstrdup(v->workload);
		e->p = xstrdup(v->params);
		e->m = xstrdup(v->metric);
		e->u = xstrdup(v->unit);
		e->shown = shows(k->shown, v->workload, v->metric, v->unit);
		k->n++;
	}
	if (e->shown || !v->supported)
		return true;
	if (e->measured)
		return false;
	e->measured = true;
	return true;
}

static void keep_release(struct keep *k)
{
	size_t i;

	for (i = 0; i < k->size; i++) {
		free(k->k[i].w);
		free(k->k[i].p);
		free(k->k[i].m);
		free(k->k[i].u);
	}
	free(k->k);
}

/* Keep the runs of one half of the boots and number those boots anew. */
static void run_release(struct report_run *r)
{
	free(r->uuid);
	free(r->kernel_release);
	free(r->boot_id);
	free(r->hostname);
	free(r->cpu_model);
	free(r->cmdline);
	free(r->thp);
	free(r->tmpfs);
	free(r->tool_version);
	free(r->started_at);
	free(r->virt);
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
	for (i = 0; i < s->nruns; i++) {
		l->run_ix[i].id = s->runs[i].id;
		l->run_ix[i].i = i;
	}
	qsort(l->run_ix, s->nruns, sizeof(*l->run_ix), run_ix_cmp);
	l->last_run = 0;
}

/* Values come run after run: the last run found, else a binary search. */
static struct report_run *find_run(struct load *l, int64_t id)
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

static uint64_t series_hash(const char *workload, const char *params,
			    const char *metric)
{
	return hash_str(hash_str(hash_str(0xcbf29ce484222325ull, workload),
				 params), metric);
}

static void ser_hash_put(struct load *l, size_t i)
{
	const struct report_series *x = &l->s->ser[i];
	size_t m = l->hash_size - 1, k;

	for (k = series_hash(x->workload, x->params, x->metric) & m;
	     l->ser_hash[k]; k = (k + 1) & m)
		;
	l->ser_hash[k] = i + 1;
}

/* The series of v, or NULL: the last one hit, else by hash. */
static struct report_series *find_series(struct load *l,
					 const struct db_report_value *v)
{
	struct report_side *s = l->s;
	size_t m, k;

	if (l->last < s->nser && same_series(&s->ser[l->last], v))
		return &s->ser[l->last];
	if (l->last + 1 < s->nser && same_series(&s->ser[l->last + 1], v)) {
		l->last++;
		return &s->ser[l->last];
	}
	if (!l->hash_size)
		return NULL;
	m = l->hash_size - 1;
	for (k = series_hash(v->workload, v->params, v->metric) & m;
	     l->ser_hash[k]; k = (k + 1) & m)
		if (same_series(&s->ser[l->ser_hash[k] - 1], v)) {
			l->last = l->ser_hash[k] - 1;
			return &s->ser[l->last];
		}
	return NULL;
}

/* A new series was added at the end of s->ser: hash it, give it slots. */
static void series_added(struct load *l)
{
	struct report_side *s = l->s;
	size_t i, n = s->nser;

	if (2 * n > l->hash_size) {
		l->hash_size = l->hash_size ? 2 * l->hash_size : 64;
		free(l->ser_hash);
		l->ser_hash = xcalloc(l->hash_size, sizeof(*l->ser_hash));
		for (i = 0; i + 1 < n; i++)
			ser_hash_put(l, i);
	}
	ser_hash_put(l, n - 1);
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
	free(l->ser_hash);
	free(l->run_ix);
	free(l->boot_hash);
}

static int load_value(const struct db_report_value *v, void *arg)
{
	struct load *l = arg;
	struct report_side *s = l->s;
	struct report_series *x = NULL;
	struct report_boot_vals *bv;
	struct report_run *run;
	struct ser_boots *xb;

	run = find_run(l, v->run_id);
	if (!run)		/* a run of the other half */
		return 0;
	x = find_series(l, v);
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
	xb = &l->sb[x - s->ser];
	if (v->asked && !x->asked)
		x->asked = xstrdup(v->asked);
	if (strcmp(x->unit, v->unit)) {
		strbuf_addf(l->err, "%s %s: metric %s is stored both in %s "
			    "and in %s", x->workload, x->params, x->metric,
			    x->unit, v->unit);
		return REPORT_EDATA;
	}
	if (!v->supported) {
		x->unmeasurable = true;
		return 0;
	}
	if (!isfinite(v->value)) {
		strbuf_addf(l->err, "%s %s: metric %s has a value that is not "
			    "a finite number", x->workload, x->params,
			    x->metric);
		return REPORT_EDATA;
	}
	if (xb->slot[run->boot]) {
		bv = &x->boots[xb->slot[run->boot] - 1];
	} else {
		cmp_grow(&x->boots, &xb->alloc, x->nboots + 1, sizeof(*x->boots));
		bv = &x->boots[x->nboots++];
		memset(bv, 0, sizeof(*bv));
		bv->boot = run->boot;
		xb->slot[run->boot] = x->nboots;
	}
	cmp_grow(&bv->v, &bv->alloc, bv->n + 1, sizeof(*bv->v));
	bv->v[bv->n++] = v->value;
	return 0;
}

static int load_notdone(const struct db_report_case *c, void *arg)
{
	struct load *l = arg;
	struct report_side *s = l->s;
	struct report_notdone *d;
	size_t i;

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

struct kv_load {
	struct report_series *x;
	size_t alloc;
};

/* A value asked for: kept beside the value that ran, where they differ. */
static int load_asked(const char *key, const char *value, void *arg)
{
	struct report_series *x = arg;
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key) && strcmp(x->kv[i].value, value)
		    && !x->kv[i].asked)
			x->kv[i].asked = xstrdup(value);
	return 0;
}

static int load_kv(const char *key, const char *value, void *arg)
{
	struct kv_load *k = arg;
	struct report_kv *kv;

	cmp_grow(&k->x->kv, &k->alloc, k->x->nkv + 1, sizeof(*k->x->kv));
	kv = &k->x->kv[k->x->nkv++];
	kv->key = xstrdup(key);
	kv->value = xstrdup(value);
	return 0;
}

/* Medians of each boot, their mean and spread, every value in one array. */
static int summarize_series(struct report_series *x)
{
	size_t i, k = 0;

	x->mean = x->sd = x->run_mean = x->run_sd = NAN;
	if (!x->nboots)
		return 0;
	x->med = xcalloc(x->nboots, sizeof(*x->med));
	for (i = 0; i < x->nboots; i++)
		x->nall += x->boots[i].n;
	x->all = xcalloc(x->nall, sizeof(*x->all));
	x->runs_min = SIZE_MAX;
	for (i = 0; i < x->nboots; i++) {
		struct report_boot_vals *b = &x->boots[i];

		x->med[i] = stats_median(b->v, b->n);
		memcpy(x->all + k, b->v, b->n * sizeof(*b->v));
		k += b->n;
		if (b->n < x->runs_min)
			x->runs_min = b->n;
		if (b->n > x->runs_max)
			x->runs_max = b->n;
	}
	x->mean = stats_mean(x->med, x->nboots);
	x->sd = stats_sd(x->med, x->nboots);
	x->run_mean = stats_mean(x->all, x->nall);
	x->run_sd = stats_sd(x->all, x->nall);
	return 0;
}

/* Why a label cannot be used: no runs at all, unknown, or none complete. */
struct near_label {
	const char *want;
	char best[256];
	unsigned dist;
	struct strbuf all;
	int n;
};

static int near_label(const char *label, void *arg)
{
	struct near_label *nl = arg;
	unsigned d = edit_distance(nl->want, label);

	if (d < nl->dist) {
		nl->dist = d;
		snprintf(nl->best, sizeof(nl->best), "%s", label);
	}
	if (nl->n < 8)
		strbuf_addf(&nl->all, "%s%s", nl->n ? ", " : "", label);
	else if (nl->n == 8)
		strbuf_addf(&nl->all, ", ...");
	nl->n++;
	return 0;
}

static int check_label(struct db *db, const char *label, struct strbuf *err)
{
	struct near_label nl = { .want = label, .dist = ~0u,
				 .all = STRBUF_INIT };
	int64_t nall, nruns, ncomplete;
	int r;

	if ((r = db_report_nruns(db, &nall)))
		goto db_err;
	if (!nall) {
		strbuf_addf(err, "%s holds no runs yet (record some with "
			    "`bench run`)", db->path);
		return REPORT_EEMPTY;
	}
	if ((r = db_report_label(db, label, &nruns, &ncomplete)))
		goto db_err;
	if (!nruns) {
		r = db_report_labels_each(db, near_label, &nl);
		if (r) {
			strbuf_release(&nl.all);
			goto db_err;
		}
		if (nl.dist <= 3)
			strbuf_addf(err, "no run has the label '%s' in %s; "
				    "did you mean '%s'?", label, db->path,
				    nl.best);
		else
			strbuf_addf(err, "no run has the label '%s' in %s "
				    "(labels: %s)", label, db->path,
				    strbuf_str(&nl.all));
		strbuf_release(&nl.all);
		return REPORT_ELABEL;
	}
	if (!ncomplete) {
		strbuf_addf(err, "label '%s' has %lld run%s in %s but none "
			    "complete (see `bench runs`)", label,
			    (long long)nruns, nruns == 1 ? "" : "s", db->path);
		return REPORT_ENOCOMPLETE;
	}
	return 0;
db_err:
	return report_db_status(db, r, err);
}

int report_db_status(const struct db *db, int r, struct strbuf *err)
{
	if (r > DB_ERR || r < DB_BADROW)
		return r;
	if (r == DB_BUSY) {
		strbuf_addf(err, "cannot read %s: another process holds it "
			    "locked, still after %d s (%s)", db->path,
			    DB_BUSY_MS / 1000, db_errmsg(db));
		return REPORT_EBUSY;
	}
	if (r == DB_BADROW) {
		strbuf_addf(err, "%s: %s", db->path, db_errmsg(db));
		return REPORT_EDATA;
	}
	strbuf_addf(err, "cannot read %s: %s", db->path, db_errmsg(db));
	return REPORT_EDB;
}

int report_side_load(struct db *db, const char *label, int half,
		     struct report_side *s, struct strbuf *err)
{
	return report_side_load_noisy(db, label, half, false, s, err);
}

/* Loads of one label read together (--aa: its two halves). */
struct loads {
	struct load *l;
	size_t n;
};

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
		if ((r = load_value(v, &ls->l[i])))
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
 * One run's values of one series (run_series) into load l: what load_value
 * makes of those values one by one: the measured ones kept (want, n) and
 * how many were not measurable (unm).
 */
static int load_series(struct load *l, const struct db_report_series *v,
		       const double *want, size_t n, int64_t unm)
{
	struct report_side *s = l->s;
	struct db_report_value one = {
		.run_id = v->run_id, .workload = v->workload,
		.params = v->params, .metric = v->metric, .unit = v->unit,
		.better = v->better, .asked = v->asked, .supported = false,
	};
	struct report_series *x;
	struct report_boot_vals *bv;
	struct report_run *run;
	struct ser_boots *xb;
	int r;

	run = find_run(l, v->run_id);
	if (!run)		/* a run of the other half */
		return 0;
	/* creates the series, checks its unit, marks it */
	if (unm && (r = load_value(&one, l)))
		return r;
	if (n) {
		/* makes the boot's slot */
		one.supported = true;
		one.value = want[0];
		if ((r = load_value(&one, l)))
			return r;
		want++;
		n--;
	}
	if (!n)
		return 0;
	x = find_series(l, &one);
	xb = &l->sb[x - s->ser];
	bv = &x->boots[xb->slot[run->boot] - 1];
	cmp_grow(&bv->v, &bv->alloc, bv->n + n, sizeof(*bv->v));
	memcpy(bv->v + bv->n, want, n * sizeof(*want));
	bv->n += n;
	return 0;
}

/*
 * What keep_value decided for the series of a run's rows in turn (every
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

static void series_load_release(struct series_load *sl)
{
	size_t i;

	for (i = 0; i < sl->nseen; i++) {
		free(sl->seen[i].w);
		free(sl->seen[i].p);
		free(sl->seen[i].m);
		free(sl->seen[i].u);
	}
	free(sl->seen);
	free(sl->buf);
}

/* How many of v's measured values keep_value keeps: all, 1 or none. */
static size_t series_keep(struct series_load *sl,
			  const struct db_report_series *v, size_t n)
{
	struct db_report_value kv = {
		.workload = v->workload, .params = v->params,
		.metric = v->metric, .unit = v->unit, .supported = true,
	};
	struct keep_seen *e;
	bool take;

	if (v->run_id != sl->run) {
		sl->run = v->run_id;
		sl->cur = 0;
	}
	e = sl->cur < sl->nseen ? &sl->seen[sl->cur] : NULL;
	if (e && !strcmp(e->m, v->metric) && !strcmp(e->p, v->params) &&
	    !strcmp(e->w, v->workload) && !strcmp(e->u, v->unit)) {
		sl->cur++;
		if (e->shown)
			return n;
		if (e->measured)
			return 0;
	} else {
		if (!e) {
			cmp_grow(&sl->seen, &sl->seen_alloc, sl->nseen + 1,
				 sizeof(*sl->seen));
			e = &sl->seen[sl->nseen++];
		} else {
			free(e->w);
			free(e->p);
			free(e->m);
			free(e->u);
		}
		e->w = xstrdup(v->workload);
		e->p = xstrdup(v->params);
		e->m = xstrdup(v->metric);
		e->u = xstrdup(v->unit);
		sl->cur++;
	}
	/* all of a shown series, else its first measured value */
	take = keep_value(&kv, sl->k);
	e->shown = keep_slot(sl->k, v->workload, v->params, v->metric,
			     v->unit)->shown;
	e->measured = !e->shown;	/* now, if not before */
	return !take ? 0 : e->shown ? n : 1;
}

static int load_series_all(const struct db_report_series *v, void *arg)
{
	struct series_load *sl = arg;
	bool drop = sl->drop_noisy && v->noisy;
	size_t i, k, n = v->n;
	int64_t unm = v->unmeasurable;
	int r;

	if (drop)
		for (i = 0; i < v->n; i++)
			n -= v->noisy[i] != 0;
	if (sl->drop_noisy)
		unm -= v->unmeasurable_noisy;
	if (sl->k && n)
		n = series_keep(sl, v, n);
	if (!n && !unm)
		return 0;
	if (n > sl->alloc) {
		free(sl->buf);
		sl->alloc = n;
		sl->buf = xcalloc(n, sizeof(*sl->buf));
	}
	for (i = k = 0; k < n; i++)
		if (!drop || !v->noisy[i])
			sl->buf[k++] = db_report_series_value(v, i);
	for (i = 0; i < sl->ls->n; i++)
		if ((r = load_series(&sl->ls->l[i], v, sl->buf, n, unm)))
			return r;
	return 0;
}

/* The params of each series, decoded, and the summary of its values. */
static int side_finish(struct load *l, const char *label)
{
	struct db *db = l->db;
	struct report_side *s = l->s;
	struct strbuf *err = l->err;
	size_t i;
	int r;

	for (i = 0; i < s->nser; i++) {
		struct kv_load k = { .x = &s->ser[i] };

		r = db_report_params_each(db, s->ser[i].params, load_kv, &k);
		if (r == DB_ERR) {
			strbuf_addf(err, "case %s of label '%s' has params "
				    "that are not a JSON object: %s",
				    s->ser[i].workload, label,
				    s->ser[i].params);
			return REPORT_EDATA;
		}
		if (r)
			return report_db_status(db, r, err);
		series_clock(&s->ser[i], &s->clock);
		if (s->ser[i].asked) {
			r = db_report_params_each(db, s->ser[i].asked,
						  load_asked, &s->ser[i]);
			if (r == DB_ERR) {
				strbuf_addf(err, "case %s of label '%s' has "
					    "asked params that are not a JSON "
					    "object: %s", s->ser[i].workload,
					    label, s->ser[i].asked);
				return REPORT_EDATA;
			}
			if (r)
				return report_db_status(db, r, err);
		}
		r = summarize_series(&s->ser[i]);
		if (r)
			return r;
	}
	return 0;
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
	r = check_label(db, label, err);
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
	if (!runs_only) {
		bool ready = false;

		/* run_series holds no profiled sample */
		if (!l->profiled)
			r = db_report_series_ready(db, label, &ready);
		if (!r && ready) {
			struct series_load sl = { .ls = ls,
						  .k = shown ? &k : NULL,
						  .drop_noisy = l->drop_noisy,
						  .run = -1 };

			r = db_report_series_each(db, label, load_series_all,
						  &sl);
			series_load_release(&sl);
		} else if (!r) {
			r = db_report_values_each_kept(db, label,
						       l->drop_noisy,
						       l->profiled,
						       shown ? keep_value :
						       NULL, &k,
						       load_value_all, ls);
		}
	}
	keep_release(&k);
	if (r)
		goto fail;
	r = db_report_cases_not_done_each(db, label, load_notdone_all, ls);
	if (r)
		goto fail;
	for (i = 0; i < ls->n; i++)
		if ((r = side_finish(&l[i], label)))
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
	free(s->label);
	free(s->db_label);
	memset(s, 0, sizeof(*s));
}
