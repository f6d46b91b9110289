/*
 * Compare two kernels, or describe one: load the complete runs of a label,
 * take each boot's median, test the boot medians, and say what differs
 * between the two sides besides the kernel.
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

/*
 * Make room for need elements of size bytes in *p, as ALLOC_GROW grows, the
 * new ones zeroed (the loaders rely on it).
 */
static void grow(void *pp, size_t *alloc, size_t need, size_t size)
{
	void **p = pp;
	size_t n = alloc_nr(*alloc);

	if (need <= *alloc)
		return;
	if (n < need)
		n = need;
	*p = xreallocarray(*p, n, size);
	memset((char *)*p + *alloc * size, 0, (n - *alloc) * size);
	*alloc = n;
}

/* A growable list of strings. */
static void list_add(char ***list, size_t *n, size_t *alloc, const char *s)
{
	grow(list, alloc, *n + 1, sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

static void list_free(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

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
	/* the side's runs by id, for the values: sorted, and the last hit */
	struct run_ix { int64_t id; size_t i; } *run_ix;
	size_t last_run;
	/* series by (workload, params, metric): open addressing, 2^k slots */
	size_t *ser_hash, hash_size;
	struct ser_boots *sb;	/* beside s->ser */
	size_t sb_alloc;
	struct boot_hash { const char *id; size_t boot; } *boot_hash;
	size_t boot_hash_size;
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

	grow(&s->runs, &l->runs_alloc, s->nruns + 1, sizeof(*s->runs));
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
		list_add(&s->boot_ids, &s->nboots, &l->boots_alloc,
			 r->boot_id);
		boot_hash_add(l, s->boot_ids[b], b);
	}
	d->boot = (int)b;
	return 0;
}

static bool in_list(const char *list, const char *name);

/* The metric of a series the report with options o shows, or its sibling. */
static bool shows(const struct report_opts *o, const char *workload,
		  const char *metric, const char *unit)
{
	const char *f = strstr(unit, "/folio");

	if (f && !f[6])
		return true;	/* the per-folio sibling of a row */
	if (o->metrics)
		return in_list(o->metrics, metric);
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
		grow(&s->ser, &l->ser_alloc, s->nser + 1, sizeof(*s->ser));
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
		grow(&x->boots, &xb->alloc, x->nboots + 1, sizeof(*x->boots));
		bv = &x->boots[x->nboots++];
		memset(bv, 0, sizeof(*bv));
		bv->boot = run->boot;
		xb->slot[run->boot] = x->nboots;
	}
	grow(&bv->v, &bv->alloc, bv->n + 1, sizeof(*bv->v));
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
	grow(&s->notdone, &l->nd_alloc, s->nnotdone + 1, sizeof(*s->notdone));
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

	grow(&k->x->kv, &k->alloc, k->x->nkv + 1, sizeof(*k->x->kv));
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
			    DB_BUSY_MS / 1000, db->err);
		return REPORT_EBUSY;
	}
	if (r == DB_BADROW) {
		strbuf_addf(err, "%s: %s", db->path, db->err);
		return REPORT_EDATA;
	}
	strbuf_addf(err, "cannot read %s: %s", db->path, db->err);
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
		r = db_report_values_each_kept(db, label, l->drop_noisy,
					       shown ? keep_value : NULL, &k,
					       load_value_all, ls);
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
			  .drop_noisy = lo->drop_noisy };
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
		  .drop_noisy = lo->drop_noisy },
		{ .db = db, .s = even, .err = err, .half = 2,
		  .drop_noisy = lo->drop_noisy },
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
	list_free(s->boot_ids, s->nboots);
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

/* --- comparing ----------------------------------------------------------- */

struct cmp_build {
	size_t rows_alloc, warn_alloc, unm_alloc;
};

static const char *kv_get(const struct report_series *x, const char *key)
{
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key))
			return x->kv[i].value;
	return NULL;
}

static const struct report_series *row_ser(const struct report_row *r)
{
	return r->a ? r->a : r->b;
}

/* Does key take more than one value over the rows of this workload? */
static bool key_varies(const struct report_cmp *c, const char *workload,
		       const char *key)
{
	const char *first = NULL, *v;
	bool seen = false;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);

		if (strcmp(x->workload, workload))
			continue;
		v = kv_get(x, key);
		if (!seen) {
			first = v;
			seen = true;
		} else if (!v != !first || (v && strcmp(v, first))) {
			return true;
		}
	}
	return false;
}

/* Does the table hold more than one metric for this workload? */
static bool metrics_vary(const struct report_cmp *c, const char *workload)
{
	const char *first = NULL;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);

		if (strcmp(x->workload, workload))
			continue;
		if (!first)
			first = x->metric;
		else if (strcmp(first, x->metric))
			return true;
	}
	return false;
}

/* 8589934592 -> "8 GiB"; what a changelog reader expects. */
static void size_words(const char *s, char *buf, size_t n)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB",
					     "TiB" };
	uint64_t u;
	size_t i = 0;

	if (parse_size(s, &u) || !u) {
		snprintf(buf, n, "%s", s);
		return;
	}
	while (i + 1 < ARRAY_SIZE(units) && !(u % 1024)) {
		u /= 1024;
		i++;
	}
	if (i == 0 && u >= 1024)
		human_size(u, buf, n);
	else
		snprintf(buf, n, "%llu %s", (unsigned long long)u, units[i]);
}

/* "4k" -> "4K", "pmd" -> "PMD-sized": the kernel's way to name folios. */
static void folio_words(const char *s, char *buf, size_t n)
{
	uint64_t u;

	if (!strcasecmp(s, "pmd"))
		snprintf(buf, n, "PMD-sized");
	else if (!parse_size(s, &u) && u >= 1024 && !(u % (1ull << 30)))
		snprintf(buf, n, "%lluG", (unsigned long long)(u >> 30));
	else if (!parse_size(s, &u) && u >= 1024 && !(u % (1ull << 20)))
		snprintf(buf, n, "%lluM", (unsigned long long)(u >> 20));
	else if (!parse_size(s, &u) && u >= 1024 && !(u % 1024))
		snprintf(buf, n, "%lluK", (unsigned long long)(u >> 10));
	else
		snprintf(buf, n, "%s", s);
}

/* "key=value", and the value asked beside it where another one ran. */
static void kv_config(const struct report_kv *kv, struct strbuf *sb)
{
	strbuf_addf(sb, "%s=%s", kv->key, kv->value);
	if (kv->asked)
		strbuf_addf(sb, " (asked %s)", kv->asked);
}

/*
 * One param as a reader says it: sizes in bytes units ("8 GiB"), folios
 * the kernel's way ("4K folios"), a value the workload has words for in
 * them ("ftruncate() to 0"), anything else as "key=value".
 */
static void value_words(const struct report_cmp *c, const char *workload,
			const char *key, const char *value, struct strbuf *sb)
{
	const char *w = NULL;
	char buf[96];

	if (!strcmp(key, "size")) {
		size_words(value, buf, sizeof(buf));
		strbuf_addf(sb, "%s", buf);
	} else if (!strcmp(key, "folio")) {
		folio_words(value, buf, sizeof(buf));
		strbuf_addf(sb, "%s folios", buf);
	} else if (c->words && (w = c->words(workload, key, value))) {
		strbuf_addf(sb, "%s", w);
	} else {
		strbuf_addf(sb, "%s=%s", key, value);
	}
}

static void kv_words(const struct report_cmp *c, const char *workload,
		     const struct report_kv *kv, struct strbuf *sb)
{
	value_words(c, workload, kv->key, kv->value, sb);
	if (kv->asked) {
		strbuf_addf(sb, " (asked ");
		if (!strcmp(kv->key, "size") || !strcmp(kv->key, "folio")) {
			char buf[96];

			if (!strcmp(kv->key, "size"))
				size_words(kv->asked, buf, sizeof(buf));
			else
				folio_words(kv->asked, buf, sizeof(buf));
			strbuf_addf(sb, "%s", buf);
		} else {
			value_words(c, workload, kv->key, kv->asked, sb);
		}
		strbuf_addf(sb, ")");
	}
}

static const struct report_kv *kv_find(const struct report_series *x,
				       const char *key)
{
	size_t i;

	for (i = 0; i < x->nkv; i++)
		if (!strcmp(x->kv[i].key, key))
			return &x->kv[i];
	return NULL;
}

/*
 * Only what tells rows apart, twice: in config syntax for the machine
 * formats and the terminal ("shmem-remove op=unlink folio=4k wall"), and
 * in words for changelogs and markdown ("unlink(), 8 GiB, 4K folios").
 */
static int name_rows(struct report_cmp *c)
{
	size_t i, k;

	/*
	 * One workload and nothing that varies: the heading names the
	 * workload, so the row takes its first param ("op=unlink").
	 */
	if (c->workload && c->nrows &&
	    !metrics_vary(c, row_ser(&c->rows[0])->workload)) {
		const struct report_series *x = row_ser(&c->rows[0]);
		bool varies = false;

		for (k = 0; k < x->nkv; k++)
			varies |= key_varies(c, x->workload, x->kv[k].key);
		if (!varies && x->nkv)
			c->name_key = x->kv[0].key;
	}
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);
		struct strbuf sb = STRBUF_INIT, wb = STRBUF_INIT;
		const struct report_kv *nk = c->name_key ?
					     kv_find(x, c->name_key) : NULL;

		if (nk) {
			kv_config(nk, &sb);
			kv_words(c, x->workload, nk, &wb);
		}
		/* One workload: the table's heading names it, rows need not. */
		if (!c->workload) {
			strbuf_addf(&sb, "%s", x->workload);
			strbuf_addf(&wb, "%s", x->workload);
		}
		for (k = 0; k < x->nkv; k++) {
			if (nk || !key_varies(c, x->workload, x->kv[k].key))
				continue;
			strbuf_addf(&sb, "%s", sb.len ? " " : "");
			kv_config(&x->kv[k], &sb);
			strbuf_addf(&wb, "%s", wb.len ? ", " : "");
			kv_words(c, x->workload, &x->kv[k], &wb);
		}
		if (metrics_vary(c, x->workload)) {
			strbuf_addf(&sb, "%s%s", sb.len ? " " : "", x->metric);
			strbuf_addf(&wb, "%s%s", wb.len ? ", " : "",
				    x->metric);
		}
		if (!sb.len)
			strbuf_addf(&sb, "%s", x->workload);
		if (!wb.len)
			strbuf_addf(&wb, "%s", x->workload);
		c->rows[i].name = strbuf_detach(&sb, NULL);
		c->rows[i].words = strbuf_detach(&wb, NULL);
	}
	return 0;
}

static void workload_phrase(const struct report_cmp *c,
			    const struct report_series *x, struct strbuf *sb)
{
	const struct report_kv *size = NULL, *folio = NULL;
	char w1[64], w2[64];
	size_t k, start = sb->len;

	for (k = 0; k < x->nkv; k++) {
		if (key_varies(c, x->workload, x->kv[k].key) ||
		    (c->name_key && !strcmp(x->kv[k].key, c->name_key)))
			continue;
		if (!strcmp(x->kv[k].key, "size"))
			size = &x->kv[k];
		else if (!strcmp(x->kv[k].key, "folio"))
			folio = &x->kv[k];
	}
	if (size) {
		size_words(size->value, w1, sizeof(w1));
		strbuf_addf(sb, "%s file", w1);
		if (size->asked) {
			size_words(size->asked, w1, sizeof(w1));
			strbuf_addf(sb, " (asked %s)", w1);
		}
	}
	if (folio) {
		folio_words(folio->value, w2, sizeof(w2));
		strbuf_addf(sb, "%s%s folios", size ? " of " : "", w2);
	}
	for (k = 0; k < x->nkv; k++) {
		const char *key = x->kv[k].key;

		if (!strcmp(key, "size") || !strcmp(key, "folio") ||
		    key_varies(c, x->workload, key) ||
		    (c->name_key && !strcmp(key, c->name_key)))
			continue;
		strbuf_addf(sb, "%s", sb->len > start ? ", " : "");
		kv_config(&x->kv[k], sb);
	}
}

static int build_phrase(struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, nwl = 0;

	/* One workload: its phrase; several: "name: phrase; name: ..." */
	for (i = 0; i < c->nrows; i++) {
		for (j = 0; j < i; j++)
			if (!strcmp(row_ser(&c->rows[j])->workload,
				    row_ser(&c->rows[i])->workload))
				break;
		nwl += j == i;
	}
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x = row_ser(&c->rows[i]);
		size_t before;

		for (j = 0; j < i; j++)
			if (!strcmp(row_ser(&c->rows[j])->workload,
				    x->workload))
				break;
		if (j < i)
			continue;
		before = sb.len;
		if (nwl > 1)
			strbuf_addf(&sb, "%s%s: ", sb.len ? "; " : "",
				    x->workload);
		workload_phrase(c, x, &sb);
		if (nwl > 1 && sb.len == before + strlen(x->workload) + 2 +
		    (before ? 2 : 0)) {
			/* nothing shared: drop "name: " */
			strbuf_setlen(&sb, before);
		}
	}
	c->phrase = strbuf_detach(&sb, NULL);
	return 0;
}

/*
 * The boots of each kernel that the rows stand on: those of the first row
 * measured on both (all such rows have them unless boots_vary).
 */
static void table_boots(const struct report_cmp *c, size_t *ba, size_t *bb)
{
	size_t i;

	*ba = *bb = 0;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (r->a && (r->b || !c->b)) {
			*ba = r->a->nboots;
			*bb = r->b ? r->b->nboots : 0;
			return;
		}
	}
	for (i = 0; i < c->nrows; i++) {
		*ba = c->rows[i].a ? c->rows[i].a->nboots : *ba;
		*bb = c->rows[i].b ? c->rows[i].b->nboots : *bb;
	}
}

/*
 * "Median of 5 runs, averaged over 2 boots of each kernel, on a 2-CPU
 * machine; 8 GiB file of 4K folios." from what the database holds.  Where
 * every row stands on the runs of a single boot (row_values), the values
 * are means of runs and the sentence says so; a table with only some such
 * rows says it in its notes.
 */
static int build_method(struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t ba, bb;
	bool means = c->nrows && c->nwithin == c->nrows;
	const char *over = means ? " in" : ", averaged over";
	char runs[48];

	table_boots(c, &ba, &bb);
	if (c->runs_min == c->runs_max)
		snprintf(runs, sizeof(runs), "%zu", c->runs_max);
	else
		snprintf(runs, sizeof(runs), "%zu-%zu", c->runs_min,
			 c->runs_max);
	if (c->runs_max == 1 && ba <= 1 && bb <= 1 && !c->boots_vary) {
		/* "One run of each kernel, in a 32 vCPU VM" */
		strbuf_addf(&sb, "One run of %s", !c->b ? "the kernel" :
			    c->aa ? "each half" : "each kernel");
		goto where;
	}
	if (c->runs_max == 1)
		strbuf_addf(&sb, "One run a boot");
	else if (means && ba <= 1 && bb <= 1)
		strbuf_addf(&sb, "Mean of %s runs", runs);
	else if (means)
		strbuf_addf(&sb, "Mean of all runs (%s a boot)", runs);
	else
		strbuf_addf(&sb, "Median of %s runs", runs);
	if (c->boots_vary) {
		strbuf_addf(&sb, "%s %zu to %zu boots%s, as the boots column "
			    "gives for each row", over, c->boots_min,
			    c->boots_max, !c->b ? "" : c->aa ?
			    " in each half" : " of each kernel");
	} else if (!c->b) {
		if (ba == 1)
			strbuf_addf(&sb, " in one boot");
		else
			strbuf_addf(&sb, "%s %zu boots", over, ba);
	} else if (c->aa && ba == bb && ba == 1) {
		strbuf_addf(&sb, " in one boot in each half of %s",
			    c->a->db_label);
	} else if (c->aa && ba == bb) {
		strbuf_addf(&sb, "%s %zu boots in each half of %s", over, ba,
			    c->a->db_label);
	} else if (c->aa) {
		strbuf_addf(&sb, "%s %zu and %zu boots in the two halves of "
			    "%s", over, ba, bb, c->a->db_label);
	} else if (ba == bb && ba == 1) {
		strbuf_addf(&sb, " in one boot of each kernel");
	} else if (ba == bb) {
		strbuf_addf(&sb, "%s %zu boots of each kernel", over, ba);
	} else {
		strbuf_addf(&sb, "%s %zu boot%s of %s and %zu of %s", over,
			    ba, ba == 1 ? "" : "s", c->a->label, bb,
			    c->b->label);
	}
where:
	if (c->a->nruns && !strcmp(c->a->runs[0].virt, "VM"))
		strbuf_addf(&sb, ", in a %lld vCPU VM",
			    (long long)c->a->runs[0].vcpus);
	else if (c->a->nruns && !strcmp(c->a->runs[0].virt, "VM under TCG"))
		/* bench vm's guests: never beside runs that are not (bench
		 * compare refuses), so the first run speaks for all */
		strbuf_addf(&sb, ", in a %lld vCPU VM under QEMU's TCG "
			    "emulator (functional checks, not kernel "
			    "measurements)", (long long)c->a->runs[0].vcpus);
	else if (c->a->nruns)
		strbuf_addf(&sb, ", on a %lld-CPU machine",
			    (long long)c->a->runs[0].vcpus);
	if (c->phrase[0])
		strbuf_addf(&sb, "; %s", c->phrase);
	strbuf_addf(&sb, ".");
	c->method = strbuf_detach(&sb, NULL);
	return 0;
}

static void row_tests(struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	struct stats_summary sa, sb;
	struct stats_welch w;
	struct stats_mwu m;
	const double *ua, *ub;

	r->p = r->p_adj = r->p_mw = r->p_mw_adj = r->df = NAN;
	r->ci_lo = r->ci_hi = r->mde = NAN;
	/* of the same means that Welch and Fieller judge (row_values) */
	r->delta = r->va != 0 ? 100 * (r->vb / r->va - 1) : NAN;
	if (r->untested)
		return;
	if (!r->within) {
		ua = a->med;
		r->na = a->nboots;
		ub = b->med;
		r->nb = b->nboots;
	} else {
		/* A single boot has no boot-to-boot spread: use its runs. */
		ua = a->all;
		r->na = a->nall;
		ub = b->all;
		r->nb = b->nall;
	}
	stats_summarize(ua, r->na, &sa);
	stats_summarize(ub, r->nb, &sb);
	if (!stats_welch(&sa, &sb, &w)) {
		r->p = w.p;
		r->df = w.df;
		stats_delta_ci(&sa, &sb, REPORT_CONF, &r->ci_lo, &r->ci_hi);
	}
	if (r->na >= REPORT_MWU_MIN && r->nb >= REPORT_MWU_MIN &&
	    !stats_mwu(ua, r->na, ub, r->nb, &m)) {
		r->p_mw = m.p;
		r->mw_exact = m.exact;
	}
}

double report_row_pooled_sd(const struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	double va, vb;

	if (!a || !b || a->nboots < 2 || b->nboots < 2)
		return NAN;
	va = stats_var(a->med, a->nboots);
	vb = stats_var(b->med, b->nboots);
	return sqrt(((a->nboots - 1) * va + (b->nboots - 1) * vb) /
		    (a->nboots + b->nboots - 2));
}

long report_row_need(const struct report_row *r, double effect_pct)
{
	double sp = report_row_pooled_sd(r);

	if (isnan(sp) || r->a->mean == 0 || sp == 0)
		return -1;
	return stats_n_needed(sp, effect_pct / 100 * fabs(r->a->mean),
			      REPORT_ALPHA, REPORT_POWER, REPORT_NEED_CAP);
}

/*
 * What the current boots can detect, and how many the change seen needs,
 * at the level the verdict needs: alpha over the rows of the row's Holm
 * family, the strictest step of Holm, which a row that passes it passes
 * whatever the other rows show.  Rows that cannot be planned say why.
 */
static void row_plan(struct report_row *r)
{
	const struct report_series *a = r->a, *b = r->b;
	double sp;

	r->need = -1;
	r->mde = NAN;
	r->plan = PLAN_NONE;
	if (!a || !b || r->sig || r->untested || isnan(r->p) || a->mean == 0)
		return;
	if (r->within) {
		r->plan = PLAN_ONE_BOOT;
		return;
	}
	sp = report_row_pooled_sd(r);
	if (sp == 0) {
		r->plan = PLAN_NO_SPREAD;
		return;
	}
	r->plan = PLAN_OK;
	r->plan_alpha = REPORT_ALPHA / (double)(r->family ? r->family : 1);
	r->mde = 100 * stats_mde(sp, a->nboots, b->nboots, r->plan_alpha,
				 REPORT_POWER) / fabs(a->mean);
	r->need = stats_n_needed(sp, b->mean - a->mean, r->plan_alpha,
				 REPORT_POWER, REPORT_NEED_CAP);
}

/* Is every value of x equal to v? */
static bool all_equal(const struct report_series *x, double v)
{
	size_t i;

	for (i = 0; i < x->nall; i++)
		if (x->all[i] != v)
			return false;
	return x->nall > 0;
}

/* Rows with nothing to test: counts of the input, and constants. */
static void row_untested(struct report_row *r, const struct report_opts *o)
{
	const struct report_series *x = row_ser(r);

	r->untested = NULL;
	if (!r->a || !r->b)
		return;
	if (o->input && o->input(x->workload, x->metric))
		r->untested = "input";
	else if (r->a->nall && all_equal(r->a, r->a->all[0]) &&
		 all_equal(r->b, r->a->all[0]))
		r->untested = "constant";
}

static void row_export(struct report_row *r)
{
	const struct report_series *a = r->a;
	double t, sd;
	size_t n;

	r->p = r->p_adj = r->p_mw = r->p_mw_adj = r->df = NAN;
	r->ci_lo = r->ci_hi = r->mde = r->delta = NAN;
	r->need = -1;
	/* one boot: the value is the mean of its runs, as its CI is */
	sd = r->sda;
	n = r->within ? a->nall : a->nboots;
	r->na = n;
	r->spread = sd;
	r->ci_mean_lo = r->ci_mean_hi = NAN;
	if (n >= 2 && !isnan(sd)) {
		t = stats_t_quantile((1 + REPORT_CONF) / 2, n - 1);
		r->ci_mean_lo = r->va - t * sd / sqrt(n);
		r->ci_mean_hi = r->va + t * sd / sqrt(n);
	}
}

static int add_row(struct report_cmp *c, struct cmp_build *cb,
		   const struct report_series *a,
		   const struct report_series *b)
{
	struct report_row *r;

	grow(&c->rows, &cb->rows_alloc, c->nrows + 1, sizeof(*c->rows));
	r = &c->rows[c->nrows++];
	r->a = a;
	r->b = b;
	return 0;
}

static int add_unmeasurable(struct report_cmp *c, struct cmp_build *cb,
			    const struct report_series *x)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addf(&sb, "%s %s", x->workload, x->metric);
	for (i = 0; i < c->nunmeasurable; i++)
		if (!strcmp(c->unmeasurable[i], strbuf_str(&sb))) {
			strbuf_release(&sb);
			return 0;
		}
	list_add(&c->unmeasurable, &c->nunmeasurable, &cb->unm_alloc,
		 strbuf_str(&sb));
	strbuf_release(&sb);
	return 0;
}

static const struct report_series *match(const struct report_side *s,
					 const struct report_series *x)
{
	size_t i;

	for (i = 0; i < s->nser; i++)
		if (!strcmp(s->ser[i].workload, x->workload) &&
		    !strcmp(s->ser[i].params, x->params) &&
		    !strcmp(s->ser[i].metric, x->metric) &&
		    !strcmp(s->ser[i].unit, x->unit))
			return &s->ser[i];
	return NULL;
}

/* Is name one of the comma-separated names of list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

static bool is_primary(const struct report_opts *o,
		       const struct report_series *x)
{
	if (o->metrics)
		return in_list(o->metrics, x->metric);
	return !o->primary || o->primary(x->workload, x->metric);
}

/* The metric of the same case measured per folio ("ns/folio"). */
static const struct report_series *folio_sibling(const struct report_side *s,
						 const struct report_series *x)
{
	size_t i;

	for (i = 0; i < s->nser; i++) {
		const struct report_series *y = &s->ser[i];
		const char *u = strstr(y->unit, "/folio");

		if (y != x && y->nboots && u && !u[6] &&
		    !strcmp(y->workload, x->workload) &&
		    !strcmp(y->params, x->params))
			return y;
	}
	return NULL;
}

static double series_value(const struct report_series *x, bool within)
{
	return !x ? NAN : within ? x->run_mean : x->mean;
}

/*
 * What a row shows and compares: the mean of the boot medians, or, where a
 * kernel has a single boot, the mean of the runs on both sides, because
 * the tests then stand on the runs and a change of medians could fall
 * outside its own interval (one boot of 55 fast runs and 45 slow ones has
 * a fast median and a slow mean).
 */
static void row_values(struct report_row *r)
{
	r->within = (r->a && r->a->nboots < 2) || (r->b && r->b->nboots < 2);
	r->va = series_value(r->a, r->within);
	r->vb = series_value(r->b, r->within);
	r->sda = !r->a ? NAN : r->within ? r->a->run_sd : r->a->sd;
	r->sdb = !r->b ? NAN : r->within ? r->b->run_sd : r->b->sd;
}

static int build_rows(struct report_cmp *c, struct cmp_build *cb,
		      const struct report_opts *o)
{
	const struct report_series *a, *b;
	size_t i;
	int r;

	for (i = 0; i < c->a->nser; i++) {
		a = &c->a->ser[i];
		b = c->b ? match(c->b, a) : NULL;
		if (!a->nboots && (!c->b || !b || !b->nboots)) {
			if (a->unmeasurable &&
			    (r = add_unmeasurable(c, cb, a)))
				return r;
			continue;
		}
		if (o->primary_only && !is_primary(o, a))
			continue;
		r = add_row(c, cb, a->nboots ? a : NULL,
			    b && b->nboots ? b : NULL);
		if (r)
			return r;
	}
	for (i = 0; c->b && i < c->b->nser; i++) {
		b = &c->b->ser[i];
		a = match(c->a, b);
		if (a)
			continue;	/* paired above */
		if (!b->nboots) {
			if (b->unmeasurable &&
			    (r = add_unmeasurable(c, cb, b)))
				return r;
			continue;
		}
		if (o->primary_only && !is_primary(o, b))
			continue;
		if ((r = add_row(c, cb, NULL, b)))
			return r;
	}
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->primary = is_primary(o, row_ser(row));
		row_values(row);
		c->nwithin += row->within;
		row->delta_folio = NAN;
		/* a time per case gets the same time per folio beside it */
		if (strcmp(row_ser(row)->unit, "ns"))
			continue;
		row->fa = row->a ? folio_sibling(c->a, row->a) : NULL;
		row->fb = row->b ? folio_sibling(c->b, row->b) : NULL;
		if (row->fa && row->fb)
			row->delta_folio = series_value(row->fb, row->within) -
					   series_value(row->fa, row->within);
	}
	for (i = 0; i < c->nrows; i++) {
		const char *w = row_ser(&c->rows[i])->workload;

		if (!i)
			c->workload = w;
		else if (c->workload && strcmp(c->workload, w))
			c->workload = NULL;
	}
	return 0;
}

static int warnf(struct report_cmp *c, struct cmp_build *cb,
		 const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int warnf(struct report_cmp *c, struct cmp_build *cb,
		 const char *fmt, ...)
{
	char buf[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	list_add(&c->warn, &c->nwarn, &cb->warn_alloc, buf);
	return 0;
}

/*
 * The kernel command line without what names the kernel image: a patched
 * kernel boots another BOOT_IMAGE (and initrd) by design.
 */
static void cmdline_norm(const char *in, struct strbuf *out)
{
	const char *p = in, *e;
	size_t len;

	while (*p) {
		p += strspn(p, " \t");
		if (!*p)
			break;
		e = p + strcspn(p, " \t");
		len = (size_t)(e - p);
		if (strncmp(p, "BOOT_IMAGE=", 11) && strncmp(p, "initrd=", 7))
			strbuf_addf(out, "%s%.*s", out->len ? " " : "",
				    (int)len, p);
		p = e;
	}
}

typedef const char *(*field_fn)(const struct report_run *r,
				struct strbuf *tmp);

static const char *f_cpu(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->cpu_model;
}

static const char *f_vcpus(const struct report_run *r, struct strbuf *t)
{
	strbuf_addf(t, "%lld", (long long)r->vcpus);
	return strbuf_str(t);
}

static const char *f_cmdline(const struct report_run *r, struct strbuf *t)
{
	cmdline_norm(r->cmdline, t);
	return strbuf_str(t);
}

static const char *f_thp(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->thp;
}

static const char *f_tmpfs(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->tmpfs;
}

static const char *f_virt(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->virt;
}

static const char *f_tool(const struct report_run *r, struct strbuf *t)
{
	(void)t;
	return r->tool_version;
}

/* The distinct values of one field over a side's runs, "a" or "a | b". */
static void distinct(const struct report_side *s, field_fn fn,
		     struct strbuf *out)
{
	size_t i, j;

	for (i = 0; i < s->nruns; i++) {
		struct strbuf ti = STRBUF_INIT, tj = STRBUF_INIT;
		const char *v = fn(&s->runs[i], &ti);
		bool dup = false;

		for (j = 0; j < i && !dup; j++) {
			dup = !strcmp(v, fn(&s->runs[j], &tj));
			strbuf_release(&tj);
		}
		if (!dup)
			strbuf_addf(out, "%s'%s'", out->len ? " | " : "", v);
		strbuf_release(&ti);
	}
}

static int diff_meta(struct report_cmp *c, struct cmp_build *cb)
{
	static const struct {
		const char *name;
		field_fn fn;
	} fields[] = {
		{ "CPU model", f_cpu },
		{ "vCPUs", f_vcpus },
		{ "VM or bare metal", f_virt },
		{ "kernel command line", f_cmdline },
		{ "THP and shmem settings", f_thp },
		{ "/dev/shm mount", f_tmpfs },
		{ "tool version", f_tool },
	};
	int64_t lo = INT64_MAX, hi = 0;
	size_t i, k;
	int r = 0;

	for (k = 0; k < ARRAY_SIZE(fields) && !r; k++) {
		struct strbuf va = STRBUF_INIT, vb = STRBUF_INIT;

		distinct(c->a, fields[k].fn, &va);
		distinct(c->b, fields[k].fn, &vb);
		if (strcmp(strbuf_str(&va), strbuf_str(&vb)))
			r = warnf(c, cb, "%s differs: %s has %s; %s has %s",
				  fields[k].name, c->a->label, strbuf_str(&va),
				  c->b->label, strbuf_str(&vb));
		strbuf_release(&va);
		strbuf_release(&vb);
	}
	/*
	 * MemTotal moves by a few MiB with the size of the kernel image
	 * itself, so only a difference over 1% is a different machine.
	 */
	for (k = 0; k < 2; k++) {
		const struct report_side *s = k ? c->b : c->a;

		for (i = 0; i < s->nruns; i++) {
			if (s->runs[i].mem_bytes < lo)
				lo = s->runs[i].mem_bytes;
			if (s->runs[i].mem_bytes > hi)
				hi = s->runs[i].mem_bytes;
		}
	}
	/* 0 < lo <= hi: hi - lo cannot overflow where lo + lo / 100 did */
	if (!r && lo > 0 && hi - lo > lo / 100) {
		char l[32], h[32];

		human_size((uint64_t)lo, l, sizeof(l));
		human_size((uint64_t)hi, h, sizeof(h));
		r = warnf(c, cb, "memory differs by more than 1%%: from %s to "
			  "%s across the runs of %s and %s", l, h,
			  c->a->label, c->b->label);
	}
	return r;
}

static int diff_cases(struct report_cmp *c, struct cmp_build *cb)
{
	size_t i, k;
	int r = 0;

	for (i = 0; i < c->nrows && !r; i++) {
		const struct report_row *row = &c->rows[i];
		const struct report_series *x = row_ser(row);
		size_t j;

		if (row->a && row->b)
			continue;
		/* one line a case, however many of its metrics are rows */
		for (j = 0; j < i; j++) {
			const struct report_row *o = &c->rows[j];

			if (!o->a != !row->a || (o->a && o->b))
				continue;
			if (!strcmp(row_ser(o)->workload, x->workload) &&
			    !strcmp(row_ser(o)->params, x->params))
				break;
		}
		if (j < i)
			continue;
		r = warnf(c, cb, "%s %s was measured on %s only", x->workload,
			  x->params, row->a ? c->a->label : c->b->label);
	}
	for (k = 0; k < 2 && !r; k++) {
		const struct report_side *s = k ? c->b : c->a;

		for (i = 0; i < s->nnotdone && !r; i++)
			r = warnf(c, cb, "%s %s %s on %s%s%s",
				  s->notdone[i].workload,
				  s->notdone[i].params, s->notdone[i].status,
				  s->label, s->notdone[i].reason[0] ? ": " : "",
				  s->notdone[i].reason);
	}
	return r;
}

/*
 * The runs of a side whose kernel printed a problem (WARNING:, BUG:, ...)
 * while they ran: a table must never be made silently from such a kernel.
 */
static int kernel_warnings(struct report_cmp *c, size_t *alloc,
			   const struct report_side *s)
{
	const struct report_run *first = NULL;
	int64_t lines = 0;
	size_t i, nruns = 0;
	char buf[2048];

	for (i = 0; i < s->nruns; i++) {
		if (s->runs[i].kernel_warnings <= 0)
			continue;
		if (!first)
			first = &s->runs[i];
		nruns++;
		lines += s->runs[i].kernel_warnings;
	}
	if (!nruns)
		return 0;
	snprintf(buf, sizeof(buf), "%s: the kernel printed %lld line%s "
		 "showing a problem during %zu of %zu runs; the first, in "
		 "boot %.8s, run %.8s: %s", s->label, (long long)lines,
		 lines == 1 ? "" : "s", nruns, s->nruns, first->boot_id,
		 first->uuid, first->kwarn_first);
	list_add(&c->kwarn, &c->nkwarn, alloc, buf);
	return 0;
}

/*
 * Over the headline metrics: wall time and time per folio of one case are
 * one result, and counting it twice would weigh it twice.
 */
static void geomean(struct report_cmp *c)
{
	bool lower = false, higher = false;
	double s = 0, ratio;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		if (!c->rows[i].a || !c->rows[i].b || !c->rows[i].primary)
			continue;
		if (c->rows[i].a->higher)
			higher = true;
		else
			lower = true;
	}
	/* Mixed directions: invert higher-is-better ratios into costs. */
	c->geo_cost = lower && higher;
	c->geo_speed = true;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!r->a || !r->b || !r->primary || !(r->va > 0) ||
		    !(r->vb > 0))
			continue;
		ratio = r->vb / r->va;
		if (c->geo_cost && r->a->higher)
			ratio = 1 / ratio;
		s += log(ratio);
		c->geo_n++;
		c->geo_speed &= report_unit_speed(r->a->unit, r->a->higher);
	}
	c->geo = c->geo_n ? 100 * (exp(s / c->geo_n) - 1) : NAN;
	/* a cost, or every row lower-is-better: below zero is better */
	if (c->geo_n && c->geo != 0)
		c->geo_dir = (c->geo < 0) == (c->geo_cost || lower) ? 1 : -1;
}

/*
 * Holm over one family: the headline metrics, or the other metrics (which
 * only the machine formats carry).  A table of headline metrics then shows
 * the same adjusted p in every format.
 */
static int holm_family(struct report_cmp *c, double *p, double *pm,
		       bool primary)
{
	double *fp, *fm;
	size_t i, n = 0;

	fp = xcalloc(c->nrows + 1, sizeof(*fp));
	fm = xcalloc(c->nrows + 1, sizeof(*fm));
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].primary == primary) {
			fp[n] = p[i];
			fm[n++] = pm[i];
		}
	stats_holm(fp, n, fp);
	stats_holm(fm, n, fm);
	for (i = n = 0; i < c->nrows; i++)
		if (c->rows[i].primary == primary) {
			c->rows[i].p_adj = fp[n];
			c->rows[i].p_mw_adj = fm[n++];
		}
	free(fp);
	free(fm);
	return 0;
}

/*
 * Do the rows differ in their boots?  Rows measured on both kernels are
 * what the method sentence describes; a table of one-sided rows only is
 * judged on those.
 */
static void boots_vary(struct report_cmp *c)
{
	size_t i, ba = 0, bb = 0;
	bool both = false, first = true;

	for (i = 0; i < c->nrows; i++)
		both |= c->rows[i].a && c->rows[i].b;
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];
		size_t na = r->a ? r->a->nboots : 0;
		size_t nb = r->b ? r->b->nboots : 0;

		if (both && !(r->a && r->b))
			continue;
		if (first) {
			ba = na;
			bb = nb;
			first = false;
		} else if (na != ba || nb != bb) {
			c->boots_vary = true;
		}
	}
}

int report_compare(struct report_side *a, struct report_side *b,
		   const struct report_opts *o, struct report_cmp *c)
{
	struct cmp_build cb = { 0 };
	double *p = NULL, *pm = NULL;
	size_t i;
	int r;

	memset(c, 0, sizeof(*c));
	c->a = a;
	c->b = b;
	c->aa = o->aa;
	c->words = o->words;
	r = build_rows(c, &cb, o);
	if (r)
		return r;
	c->runs_min = SIZE_MAX;
	c->boots_min = SIZE_MAX;
	for (i = 0; i < c->nrows; i++) {
		const struct report_series *x[2] = { c->rows[i].a,
						     c->rows[i].b };
		int k;

		for (k = 0; k < 2; k++) {
			if (!x[k])
				continue;
			if (x[k]->runs_min < c->runs_min)
				c->runs_min = x[k]->runs_min;
			if (x[k]->runs_max > c->runs_max)
				c->runs_max = x[k]->runs_max;
			if (x[k]->nboots < c->boots_min)
				c->boots_min = x[k]->nboots;
			if (x[k]->nboots > c->boots_max)
				c->boots_max = x[k]->nboots;
		}
	}
	if (!c->nrows)
		c->runs_min = c->boots_min = 0;
	boots_vary(c);
	if ((r = name_rows(c)) || (r = build_phrase(c)) ||
	    (r = build_method(c)))
		return r;
	{
		size_t kw_alloc = 0;

		if ((r = kernel_warnings(c, &kw_alloc, a)) ||
		    (b && (r = kernel_warnings(c, &kw_alloc, b))))
			return r;
	}
	if (!b) {
		for (i = 0; i < c->nrows; i++)
			row_export(&c->rows[i]);
		return 0;
	}
	p = xcalloc(c->nrows + 1, sizeof(*p));
	pm = xcalloc(c->nrows + 1, sizeof(*pm));
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->p = row->p_mw = row->delta = NAN;
		row->ci_lo = row->ci_hi = row->mde = row->df = NAN;
		row->need = -1;
		row_untested(row, o);
		if (row->a && row->b)
			row_tests(row);
		p[i] = row->p;
		pm[i] = row->p_mw;
		if (!row->primary) {
			c->ntested_other += !isnan(row->p);
			c->nmw_other += !isnan(row->p_mw);
			continue;
		}
		c->ntested += !isnan(row->p);
		c->nmw += !isnan(row->p_mw);
		c->nsig_raw += row->p < REPORT_ALPHA;
	}
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		if (!isnan(row->p))
			row->family = row->primary ? c->ntested :
				      c->ntested_other;
	}
	if ((r = holm_family(c, p, pm, true)) ||
	    (r = holm_family(c, p, pm, false)))
		goto out;
	for (i = 0; i < c->nrows; i++) {
		struct report_row *row = &c->rows[i];

		row->sig = row->p_adj < REPORT_ALPHA;
		c->nsig += row->sig && row->primary;
		if (row->sig)
			row->dir = (row->vb < row->va) != row->a->higher ?
				   1 : -1;
		row_plan(row);
	}
	geomean(c);
	if ((r = diff_meta(c, &cb)) || (r = diff_cases(c, &cb)))
		goto out;
out:
	free(p);
	free(pm);
	return r;
}

void report_cmp_release(struct report_cmp *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		free(c->rows[i].name);
		free(c->rows[i].words);
	}
	free(c->rows);
	list_free(c->warn, c->nwarn);
	list_free(c->kwarn, c->nkwarn);
	list_free(c->unmeasurable, c->nunmeasurable);
	free(c->method);
	free(c->phrase);
	memset(c, 0, sizeof(*c));
}

bool report_unit_speed(const char *u, bool higher)
{
	static const char *const times[] = { "ns", "us", "\xc2\xb5s", "ms",
					     "s" };
	size_t i, n;

	/* a time, or a time per something ("ns/folio") */
	for (i = 0; i < ARRAY_SIZE(times); i++) {
		n = strlen(times[i]);
		if (!strncmp(u, times[i], n) && (!u[n] || u[n] == '/'))
			return true;
	}
	/* throughput: more done per second is faster */
	n = strlen(u);
	return higher && (!strcmp(u, "IOPS") ||
			  (n >= 2 && !strcmp(u + n - 2, "/s")));
}

static const char *dir_word(int dir, bool speed)
{
	if (!dir)
		return "";
	if (speed)
		return dir > 0 ? "faster" : "slower";
	return dir > 0 ? "better" : "worse";
}

const char *report_dir_word(const struct report_row *r)
{
	const struct report_series *x = row_ser(r);

	return dir_word(r->dir, report_unit_speed(x->unit, x->higher));
}

const char *report_geo_word(const struct report_cmp *c)
{
	/* a change that prints as +0.0% goes neither way */
	if (!c->geo_n || !(fabs(c->geo) >= 0.05))
		return "";
	return dir_word(c->geo_dir, c->geo_speed);
}

/*
 * One unit and one precision for values that are read side by side (a
 * row's before and after): the largest unit in which the smaller of them
 * is at least 1 ("913 ms", not "0.913 s"), unless the larger would then
 * take more than 5 digits; and decimals enough for the larger to show 4
 * significant digits ("1163 ms  913 ms", "5.164 s  4.210 s"), so that the
 * change the printed values imply is the change the table prints.  Times
 * are stored in ns ("ns", "ns/folio"); rates and counts in the millions
 * take M or G ("654.2 M/s").
 */
void report_scale(const double *v, size_t nv, const char *unit, bool ascii,
		  struct report_scale *s)
{
	static const struct {
		double div;
		const char *name, *ascii;
	} times[] = {
		{ 1e9, "s", "s" },
		{ 1e6, "ms", "ms" },
		{ 1e3, "\xc2\xb5s", "us" },	/* µs */
		{ 1, "ns", "ns" },
	}, si[] = {
		{ 1e9, "G", "G" },
		{ 1e6, "M", "M" },
		{ 1, "", "" },
	};
	bool time = !strncmp(unit, "ns", 2) && (!unit[2] || unit[2] == '/');
	bool rate = !strcmp(unit, "/s") || !strcmp(unit, "IOPS") ||
		    !strcmp(unit, "count") || !unit[0];
	double lo = INFINITY, hi = 0, x;
	size_t i, k, nsc = time ? ARRAY_SIZE(times) : ARRAY_SIZE(si);
	int digits;

	for (i = 0; i < nv; i++) {
		x = fabs(v[i]);
		if (!isfinite(x))
			continue;
		if (x > 0 && x < lo)
			lo = x;
		if (x > hi)
			hi = x;
	}
	k = nsc - 1;		/* ns, or no prefix */
	if ((time || rate) && isfinite(lo)) {
		for (k = 0; k + 1 < nsc; k++)
			if (lo >= (time ? times[k].div : si[k].div))
				break;
		while (time && k > 0 && hi / times[k].div >= 1e5)
			k--;
	}
	if (time) {
		s->div = times[k].div;
		snprintf(s->unit, sizeof(s->unit), "%s%s",
			 ascii ? times[k].ascii : times[k].name, unit + 2);
	} else if (rate) {
		s->div = si[k].div;
		if (!strcmp(unit, "count") || !unit[0])
			snprintf(s->unit, sizeof(s->unit), "%s", si[k].name);
		else
			snprintf(s->unit, sizeof(s->unit), "%s%s%s", si[k].name,
				 si[k].name[0] && unit[0] != '/' ? " " : "",
				 unit);
	} else {
		s->div = 1;
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
	}
	/* significant digits of the larger value */
	x = hi / s->div;
	digits = 1;
	if (x > 0) {
		while (x >= 10) {
			x /= 10;
			digits++;
		}
		while (x < 1) {
			x *= 10;
			digits--;
		}
	}
	s->decimals = 4 - digits;
	if (s->decimals < 0)
		s->decimals = 0;
	if (s->decimals > 9)
		s->decimals = 9;
}

void report_scaled(double v, const struct report_scale *s, char *buf,
		   size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.*f%s%s", s->decimals, v / s->div,
			 s->unit[0] ? " " : "", s->unit);
}

void report_value(double v, double ref, const char *unit, bool ascii,
		  char *buf, size_t n)
{
	double both[2] = { v, isnan(ref) ? v : ref };
	struct report_scale s;

	report_scale(both, 2, unit, ascii, &s);
	report_scaled(v, &s, buf, n);
}
