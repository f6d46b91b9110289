/*
 * Each run's valid values kept per series (run_series, schema 10), so that
 * the reports read a label's runs and not its samples: made from the
 * samples when a run ends, by merge for what it copied, by the migration.
 * A profiled sample (schema 11) is left out, as from the samples-level
 * reads of db_report.c: its time holds the cost of the sampling.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_series.h"

/* One series of the run being read: its values as stored, in order. */
struct acc {
	char *w, *p, *m, *u, *better, *asked;
	int64_t ord;
	unsigned char *vals, *noisy;
	size_t n, alloc;
	bool any_noisy, bounded;
	int64_t unm, unm_noisy, bad;
};

struct build {
	struct db *db;
	sqlite3_stmt *ins;
	int64_t run;		/* the run being read, -1 none */
	int64_t pos;		/* the place of the next value in it */
	struct acc *a;
	size_t n, alloc, last;
	int64_t bad;		/* of the run, for its mark: values refused, */
	int64_t samples, noisy;	/* samples, noisy ones */
	int64_t sample;		/* the last sample's id */
};

void db_series_put(unsigned char *p, double v)
{
	uint64_t u;
	int i;

	memcpy(&u, &v, sizeof(u));
	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

double db_series_get(const unsigned char *p)
{
	uint64_t u = 0;
	double v;
	int i;

	for (i = 0; i < 8; i++)
		u |= (uint64_t)p[i] << (8 * i);
	memcpy(&v, &u, sizeof(v));
	return v;
}

static void acc_release(struct acc *a)
{
	free(a->w);
	free(a->p);
	free(a->m);
	free(a->u);
	free(a->better);
	free(a->asked);
	free(a->vals);
	free(a->noisy);
}

static bool acc_is(const struct acc *a, const char *w, const char *p,
		   const char *m, const char *u)
{
	return !strcmp(a->m, m) && !strcmp(a->p, p) && !strcmp(a->w, w) &&
	       !strcmp(a->u, u);
}

/* The run's series in one row too (db_pack.c), after its rows. */
static int pack(struct build *b, int64_t nbounded)
{
	struct db_pack_mark mk = { .samples = b->samples,
				   .noisy_samples = b->noisy,
				   .bounded = nbounded, .bad = b->bad };
	struct db_pack_series *s = xcalloc(b->n ? b->n : 1, sizeof(*s));
	size_t i;
	int r;

	for (i = 0; i < b->n; i++) {
		const struct acc *a = &b->a[i];

		s[i] = (struct db_pack_series){
			.w = a->w, .p = a->p, .m = a->m, .u = a->u,
			.better = a->better, .asked = a->asked, .n = a->n,
			.vals = a->vals, .noisy = a->any_noisy ? a->noisy :
			NULL, .unm = a->unm, .unm_noisy = a->unm_noisy,
		};
	}
	r = db_pack_put(b->db, b->run, &mk, s, b->n);
	free(s);
	return r;
}

/* Write the run's series and its mark; ready for the next run. */
static int flush(struct build *b)
{
	sqlite3_stmt *st = b->ins;
	int64_t nbounded = 0;
	size_t i;
	int r = DB_OK;

	for (i = 0; i < b->n && !r; i++) {
		const struct acc *a = &b->a[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, b->run);
		sqlite3_bind_int64(st, 2, a->ord);
		sqlite3_bind_text(st, 3, a->w, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, a->p, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, a->m, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 6, a->u, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 7, a->better, -1, SQLITE_STATIC);
		if (a->asked)
			sqlite3_bind_text(st, 8, a->asked, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 8);
		sqlite3_bind_int64(st, 9, (int64_t)a->n);
		sqlite3_bind_int64(st, 10, a->unm);
		sqlite3_bind_int64(st, 11, a->unm_noisy);
		sqlite3_bind_int64(st, 12, a->bad);
		sqlite3_bind_int(st, 15, a->bounded);
		if (a->n)
			sqlite3_bind_blob(st, 13, a->vals, (int)(8 * a->n),
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 13);
		if (a->any_noisy)
			sqlite3_bind_blob(st, 14, a->noisy, (int)a->n,
					  SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 14);
		if (sqlite3_step(st) != SQLITE_DONE)
			r = db_fail(b->db, "cannot keep a run's series");
	}
	for (i = 0; i < b->n; i++)
		nbounded += b->a[i].bounded;
	if (!r && b->run >= 0)
		r = db_stmt(b->db, "INSERT INTO run_series (run_id, ord, "
			    "workload, params, metric, unit, better, n, "
			    "unmeasurable, unmeasurable_noisy, bad, samples, "
			    "noisy_samples, bounded) VALUES (?1, -1, '', '', "
			    "'', '', '', 0, 0, 0, ?2, ?3, ?4, ?5)", "iiiii",
			    b->run, b->bad, b->samples, b->noisy, nbounded);
	if (!r && b->run >= 0)
		r = pack(b, nbounded);
	for (i = 0; i < b->n; i++)
		acc_release(&b->a[i]);
	b->n = b->last = 0;
	b->pos = 0;
	b->bad = b->samples = b->noisy = 0;
	return r;
}

/* The series of this row: the one after the last (metrics come in turn). */
static struct acc *acc_find(struct build *b, const char *w, const char *p,
			    const char *m, const char *u)
{
	size_t i;

	if (b->last + 1 < b->n && acc_is(&b->a[b->last + 1], w, p, m, u))
		return &b->a[++b->last];
	for (i = 0; i < b->n; i++)
		if (acc_is(&b->a[i], w, p, m, u)) {
			b->last = i;
			return &b->a[i];
		}
	return NULL;
}

/* A value no report accepts (db_report.c check_value, load_value). */
static bool bad_value(sqlite3_stmt *st, const char *unit)
{
	int type = sqlite3_column_type(st, 6);
	double v = sqlite3_column_double(st, 6);

	if (type == SQLITE_TEXT || type == SQLITE_BLOB)
		return true;
	if (type == SQLITE_NULL)
		return false;
	return (v < 0 && db_time_unit(unit)) ||
	       (sqlite3_column_int(st, 7) && !isfinite(v));
}

/*
 * Columns: run, workload, params, metric, unit, better, value, supported,
 * asked, noisy, sample, bounded; in the run's order.
 */
static int row(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct build *b = arg;
	int64_t run = sqlite3_column_int64(st, 0);
	const char *w = db_col_text(st, 1), *p = db_col_text(st, 2);
	const char *m = db_col_text(st, 3), *u = db_col_text(st, 4);
	bool noisy = sqlite3_column_int(st, 9);
	struct acc *a;

	(void)db;
	b->run = run;	/* one run a query (build) */
	if (sqlite3_column_int64(st, 10) != b->sample) {
		b->sample = sqlite3_column_int64(st, 10);
		b->samples++;
		b->noisy += noisy;
	}
	a = acc_find(b, w, p, m, u);
	if (!a) {
		if (b->n == b->alloc) {
			b->alloc = b->alloc ? 2 * b->alloc : 32;
			b->a = xrealloc(b->a, b->alloc * sizeof(*b->a));
		}
		a = &b->a[b->n];
		memset(a, 0, sizeof(*a));
		a->w = xstrdup(w);
		a->p = xstrdup(p);
		a->m = xstrdup(m);
		a->u = xstrdup(u);
		a->better = xstrdup(db_col_text(st, 5));
		a->ord = b->pos;
		b->last = b->n++;
	}
	b->pos++;
	a->bounded |= sqlite3_column_int(st, 11) != 0;
	if (!a->asked && sqlite3_column_type(st, 8) != SQLITE_NULL)
		a->asked = xstrdup(db_col_text(st, 8));
	if (bad_value(st, u)) {
		a->bad++;
		b->bad++;
		return 0;
	}
	if (sqlite3_column_type(st, 6) == SQLITE_NULL ||
	    !sqlite3_column_int(st, 7)) {
		a->unm++;
		a->unm_noisy += noisy;
		return 0;
	}
	if (a->n == a->alloc) {
		a->alloc = a->alloc ? 2 * a->alloc : 16;
		a->vals = xrealloc(a->vals, 8 * a->alloc);
		a->noisy = xrealloc(a->noisy, a->alloc);
	}
	db_series_put(a->vals + 8 * a->n, sqlite3_column_double(st, 6));
	a->noisy[a->n++] = noisy;
	a->any_noisy |= noisy;
	return 0;
}

#define SERIES_SQL(where) \
	"SELECT c.run_id, c.workload, c.params, " DB_V_METRIC ", " \
	DB_V_UNIT ", " DB_V_BETTER ", " DB_V_VALUE ", " DB_V_SUPPORTED ", " \
	"c.asked, s.noisy, s.id, " \
	"instr(s.verify, 'coverage_bounded') AND " \
	"json_extract(s.verify, '$.coverage_bounded') = 1 " \
	"FROM cases c JOIN samples s ON s.case_id = c.id " \
	DB_VALUES_OF("s") \
	"WHERE " where " AND s.warmup = 0 AND s.valid = 1 AND s.profiled = 0 " \
	"ORDER BY c.run_id, c.seq, s.rep, v.key"

/* The ids of the runs without their mark. */
struct ids {
	int64_t *v;
	size_t n, alloc;
};

static int add_id(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct ids *ids = arg;

	(void)db;
	if (ids->n == ids->alloc) {
		ids->alloc = ids->alloc ? 2 * ids->alloc : 64;
		ids->v = xrealloc(ids->v, ids->alloc * sizeof(*ids->v));
	}
	ids->v[ids->n++] = sqlite3_column_int64(st, 0);
	return 0;
}

/*
 * The rows of each run of ids, made anew: a run at a time, which SQLite
 * reads through the indexes of cases and samples (all the
 * runs in one query sort every value of the database).
 */
static int build(struct db *db, const int64_t *ids, size_t n)
{
	struct build b = { .db = db, .run = -1, .sample = -1 };
	size_t i;
	int r = DB_OK;

	if (sqlite3_prepare_v2(db->h, "INSERT INTO run_series (run_id, ord, "
			       "workload, params, metric, unit, better, asked, "
			       "n, unmeasurable, unmeasurable_noisy, bad, vals, "
			       "noisy, bounded) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
			       "?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)", -1,
			       &b.ins, NULL) != SQLITE_OK)
		return db_fail(db, "cannot keep a run's series");
	for (i = 0; i < n && !r; i++) {
		r = db_stmt(db, "DELETE FROM run_series WHERE run_id = ?1", "i",
			    ids[i]);
		if (!r)
			r = db_each(db, "cannot read a run's values", row, &b,
				    SERIES_SQL("c.run_id = ?1"), "i", ids[i]);
		/* a run with no value: its mark alone */
		b.run = ids[i];
		if (!r)
			r = flush(&b);
	}
	for (i = 0; i < b.n; i++)
		acc_release(&b.a[i]);
	free(b.a);
	sqlite3_finalize(b.ins);
	return r;
}

int db_series_run(struct db *db, int64_t run_id)
{
	return build(db, &run_id, 1);
}

int db_series_missing(struct db *db)
{
	struct ids ids = { .v = NULL };
	int r;

	/*
	 * A run with its mark alone and no pack (merge copies a packed run's
	 * mark only, and a change to the mark drops the pack): made anew
	 * from its samples, not packed from rows that are not there.
	 */
	r = db_each(db, "cannot read the runs", add_id, &ids,
		    "SELECT id FROM runs WHERE NOT EXISTS (SELECT 1 FROM "
		    "run_series x WHERE x.run_id = runs.id AND x.ord = -1) "
		    "OR (NOT EXISTS (SELECT 1 FROM run_packs p WHERE "
		    "p.run_id = runs.id) AND NOT EXISTS (SELECT 1 FROM "
		    "run_series x WHERE x.run_id = runs.id AND x.ord >= 0)) "
		    "ORDER BY id", "");
	if (!r)
		r = build(db, ids.v, ids.n);
	free(ids.v);
	/* and the packs of runs that have their rows only (schema 14) */
	return r ? r : db_pack_missing(db);
}
