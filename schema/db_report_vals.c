/*
 * Every value of a label's valid samples, read from each sample's row in C
 * (samples.vals, schema 15): what `export --format benchstat` and a load
 * without packs or series read.  A row a value through json_each and four
 * lookups of its metric, unit, better and supported in the layout's JSON
 * cost about 2.5 us a value (26 s for the 9.2 * 10^6 values of a lab's
 * 10^6 samples); here a layout's names are asked of SQLite once a place,
 * and a sample's numbers are read as json_each reads them (db_vals_next).
 * A sample with anything else in its values (text, a blob, no JSON) is
 * read by json_each as before, which refuses it in the same words.
 */
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_report.h"

/* What a layout names at one place: DB_V_METRIC ... of that v.key. */
struct place {
	char *metric, *unit, *better;
	int supported;		/* DB_V_SUPPORTED as sqlite3_column_int */
	bool known;
};

struct layout {
	int64_t id;
	bool exists;		/* the samples' JOIN value_layouts */
	struct place *p;
	size_t n;
};

struct item {
	int type;		/* SQLITE_INTEGER, _FLOAT, _NULL */
	double v;
};

struct vals_walk {
	int (*fn)(const struct db_report_value *, void *);
	void *arg;
	struct layout *l;
	size_t nl;
	struct item *items;
	size_t items_alloc;
};

static int row_exists(struct db *db, sqlite3_stmt *st, void *arg)
{
	(void)db;
	*(bool *)arg = sqlite3_column_int(st, 0);
	return 0;
}

static int row_place(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct place *p = arg;

	(void)db;
	p->metric = xstrdup(db_col_text(st, 0));
	p->unit = xstrdup(db_col_text(st, 1));
	p->better = xstrdup(db_col_text(st, 2));
	p->supported = sqlite3_column_int(st, 3);
	p->known = true;
	return 0;
}

/* The layout of id, read the first time it is met. */
static int layout_of(struct db *db, struct vals_walk *w, int64_t id,
		     struct layout **out)
{
	struct layout *l;
	size_t i;

	for (i = 0; i < w->nl; i++)
		if (w->l[i].id == id) {
			*out = &w->l[i];
			return 0;
		}
	w->l = xrealloc(w->l, (w->nl + 1) * sizeof(*w->l));
	l = &w->l[w->nl++];
	memset(l, 0, sizeof(*l));
	l->id = id;
	*out = l;
	return db_each(db, "cannot read samples", row_exists, &l->exists,
		       "SELECT EXISTS (SELECT 1 FROM value_layouts "
		       "WHERE id = ?1)", "i", id);
}

/* The names at place k of l: the same expressions as DB_V_*, once. */
static int place_of(struct db *db, struct layout *l, size_t k,
		    struct place **out)
{
	int r = 0;

	if (k >= l->n) {
		l->p = xrealloc(l->p, (k + 1) * sizeof(*l->p));
		memset(l->p + l->n, 0, (k + 1 - l->n) * sizeof(*l->p));
		l->n = k + 1;
	}
	if (!l->p[k].known)
		r = db_each(db, "cannot read samples", row_place, &l->p[k],
			    "SELECT metrics ->> ('$[' || ?2 || '][0]'), "
			    "metrics ->> ('$[' || ?2 || '][1]'), "
			    "metrics ->> ('$[' || ?2 || '][2]'), "
			    "metrics ->> ('$[' || ?2 || '][3]') "
			    "FROM value_layouts WHERE id = ?1", "ii", l->id,
			    (int64_t)k);
	*out = &l->p[k];
	return r;
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/*
 * The items of vals into w->items: their count, or -1 where json_each is
 * to read them (not an array of numbers and nulls alone).
 */
static long items_of(struct vals_walk *w, const char *vals, size_t len)
{
	const char *p = vals, *end = vals + len;
	size_t n = 0;
	int type;

	while (p < end && space(*p))
		p++;
	if (p >= end || *p != '[')
		return -1;
	for (;;) {
		ALLOC_GROW(w->items, n + 1, w->items_alloc);
		type = db_vals_next(&p, end, &w->items[n].v);
		if (type < 0)
			return -1;
		if (!type)
			break;
		w->items[n++].type = type;
	}
	while (p < end && space(*p))
		p++;
	return p == end ? (long)n : -1;
}

/*
 * Columns: run, boot, workload, params, layout, vals, sample, asked; a
 * sample's values one by one to fn, as row_value gives them.
 */
static int vals_row(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct vals_walk *w = arg;
	struct db_report_value v = {
		.run_id = sqlite3_column_int64(st, 0),
		.boot_id = db_col_text(st, 1),
		.workload = db_col_text(st, 2),
		.params = db_col_text(st, 3),
		.sample_id = sqlite3_column_int64(st, 6),
		.asked = sqlite3_column_type(st, 7) == SQLITE_NULL ? NULL :
			 db_col_text(st, 7),
	};
	struct layout *l;
	struct place *p;
	long i, n = -1;
	int r;

	if (sqlite3_column_type(st, 4) == SQLITE_NULL ||
	    sqlite3_column_type(st, 5) == SQLITE_NULL)
		return 0;	/* no layout, no values: no row of the JOIN */
	if ((r = layout_of(db, w, sqlite3_column_int64(st, 4), &l)))
		return r;
	if (!l->exists)
		return 0;
	if (sqlite3_column_type(st, 5) == SQLITE_TEXT)
		n = items_of(w, db_col_text(st, 5),
			     (size_t)sqlite3_column_bytes(st, 5));
	if (n < 0)
		return db_report_values_sample(db, v.sample_id, w->fn, w->arg);
	for (i = 0; i < n; i++) {
		const struct item *it = &w->items[i];

		if ((r = place_of(db, l, (size_t)i, &p)))
			return r;
		v.metric = p->metric;
		v.unit = p->unit;
		v.better = p->better;
		v.value = it->type == SQLITE_NULL ? 0 : it->v;
		v.supported = it->type != SQLITE_NULL && p->supported;
		if (db_check_number(db, it->type, v.value, v.sample_id,
				    v.run_id, v.metric, v.unit))
			return DB_BADROW;
		if ((r = w->fn(&v, w->arg)))
			return r;
	}
	return 0;
}

int db_report_values_read(struct db *db, const char *label, bool drop_noisy,
			  bool profiled,
			  int (*fn)(const struct db_report_value *, void *),
			  void *arg)
{
	struct vals_walk w = { .fn = fn, .arg = arg };
	size_t i, k;
	int r;

	r = db_each(db, "cannot read samples", vals_row, &w,
		    "SELECT r.id, r.boot_id, c.workload, c.params, s.layout, "
		    "s.vals, s.id, c.asked "
		    "FROM runs r JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 1 "
		    "AND (?3 = 1 OR s.profiled = 0) AND (?2 = 0 OR s.noisy = 0) "
		    "ORDER BY r.started_at, r.id, c.seq, s.rep",
		    "tii", label, (int64_t)drop_noisy, (int64_t)profiled);
	for (i = 0; i < w.nl; i++) {
		for (k = 0; k < w.l[i].n; k++) {
			free(w.l[i].p[k].metric);
			free(w.l[i].p[k].unit);
			free(w.l[i].p[k].better);
		}
		free(w.l[i].p);
	}
	free(w.l);
	free(w.items);
	return r;
}
