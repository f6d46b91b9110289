/*
 * Each run's series in one row (run_packs, schema 14), named by a layout
 * that the runs of one config share (series_layouts): what compare and
 * report read in the place of a row a series of each run (run_series),
 * some 40 times fewer rows.  Written beside a run's run_series rows
 * (db_series.c), from them by the migration and merge; read by
 * db_report_series_each where every complete run of the label has one.
 */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_report.h"
#include "db_series.h"

/* counts: n, unmeasurable, unmeasurable_noisy, 8 bytes each */
#define PACK_COUNTS 24

static void put_int(unsigned char *p, int64_t v)
{
	uint64_t u = (uint64_t)v;
	int i;

	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(u >> (8 * i));
}

/* One load on a little-endian host (compare reads 3 a series a run). */
static int64_t get_int(const unsigned char *p)
{
	uint64_t u;

	memcpy(&u, p, sizeof(u));
	return (int64_t)le64toh(u);
}

/* The layout's text, and its id: the text's hash (FNV-1a), not negative. */
static int64_t layout_of(struct strbuf *sb, const struct db_pack_series *s,
			 size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i, k;

	strbuf_addch(sb, '[');
	for (i = 0; i < n; i++) {
		const char *f[] = { s[i].w, s[i].p, s[i].m, s[i].u,
				    s[i].better };

		strbuf_addstr(sb, i ? ",[" : "[");
		for (k = 0; k < ARRAY_SIZE(f); k++) {
			strbuf_json_str(sb, f[k]);
			strbuf_addch(sb, ',');
		}
		if (s[i].asked)
			strbuf_json_str(sb, s[i].asked);
		else
			strbuf_addstr(sb, "null");
		strbuf_addch(sb, ']');
	}
	strbuf_addch(sb, ']');
	for (i = 0; i < sb->len; i++)
		h = (h ^ (unsigned char)sb->buf[i]) * 0x100000001b3ull;
	return (int64_t)(h & INT64_MAX);
}

static int row_same(struct db *db, sqlite3_stmt *st, void *arg)
{
	(void)db;
	*(int *)arg = sqlite3_column_int(st, 0);
	return 0;
}

/* The layout in the database, or an error where its id names another. */
static int layout_put(struct db *db, int64_t id, const char *text)
{
	int same = 0, r;

	r = db_stmt(db, "INSERT OR IGNORE INTO series_layouts (id, series) "
		    "VALUES (?1, ?2)", "it", id, text);
	if (r || sqlite3_changes(db->h))
		return r;
	r = db_each(db, "cannot read the series' layouts", row_same, &same,
		    "SELECT series = ?2 FROM series_layouts WHERE id = ?1",
		    "it", id, text);
	if (!r && !same) {
		snprintf(db->errbuf, sizeof(db->errbuf), "series_layouts %lld "
			 "holds another layout of the same hash",
			 (long long)id);
		r = DB_ERR;
	}
	return r;
}

static int bind_blob(sqlite3_stmt *st, int i, const unsigned char *p,
		     size_t n)
{
	/* a NULL pointer binds NULL: an empty blob is a zeroblob */
	return p ? sqlite3_bind_blob(st, i, p, (int)n, SQLITE_STATIC) :
		   sqlite3_bind_zeroblob(st, i, 0);
}

int db_pack_put(struct db *db, int64_t run, const struct db_pack_mark *mk,
		const struct db_pack_series *s, size_t n)
{
	struct strbuf text = STRBUF_INIT;
	unsigned char *counts = NULL, *vals = NULL, *noisy = NULL;
	size_t i, nv = 0, k = 0;
	bool any_noisy = false;
	sqlite3_stmt *st = NULL;
	int64_t id;
	int r;

	/* read from the samples, which name the value */
	if (mk->bad)
		return db_stmt(db, "DELETE FROM run_packs WHERE run_id = ?1",
			       "i", run);
	id = layout_of(&text, s, n);
	if ((r = layout_put(db, id, strbuf_str(&text))))
		goto out;
	for (i = 0; i < n; i++) {
		nv += s[i].n;
		any_noisy |= s[i].noisy != NULL;
	}
	counts = xcalloc(n ? n : 1, PACK_COUNTS);
	vals = xcalloc(nv ? nv : 1, 8);
	noisy = xcalloc(nv ? nv : 1, 1);
	for (i = 0; i < n; k += s[i++].n) {
		put_int(counts + PACK_COUNTS * i, (int64_t)s[i].n);
		put_int(counts + PACK_COUNTS * i + 8, s[i].unm);
		put_int(counts + PACK_COUNTS * i + 16, s[i].unm_noisy);
		if (s[i].n)
			memcpy(vals + 8 * k, s[i].vals, 8 * s[i].n);
		if (s[i].noisy && s[i].n)
			memcpy(noisy + k, s[i].noisy, s[i].n);
	}
	if (sqlite3_prepare_v2(db->h, "INSERT OR REPLACE INTO run_packs "
			       "(run_id, layout, counts, vals, noisy, samples, "
			       "noisy_samples, bounded) VALUES (?1, ?2, ?3, "
			       "?4, ?5, ?6, ?7, ?8)", -1, &st, NULL) !=
	    SQLITE_OK) {
		r = db_fail(db, "cannot keep a run's series");
		goto out;
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, id);
	bind_blob(st, 3, counts, PACK_COUNTS * n);
	if (nv)
		bind_blob(st, 4, vals, 8 * nv);
	if (nv && any_noisy)
		bind_blob(st, 5, noisy, nv);
	sqlite3_bind_int64(st, 6, mk->samples);
	sqlite3_bind_int64(st, 7, mk->noisy_samples);
	sqlite3_bind_int64(st, 8, mk->bounded);
	if (sqlite3_step(st) != SQLITE_DONE)
		r = db_fail(db, "cannot keep a run's series");
out:
	sqlite3_finalize(st);
	strbuf_release(&text);
	free(counts);
	free(vals);
	free(noisy);
	return r;
}

/* The run_series rows of the runs without a pack, a run at a time. */
struct from_rows {
	struct db *db;
	int64_t run;
	struct db_pack_mark mk;
	struct db_pack_series *s;
	size_t n, alloc;
};

static void from_rows_clear(struct from_rows *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free((char *)f->s[i].w);
		free((char *)f->s[i].p);
		free((char *)f->s[i].m);
		free((char *)f->s[i].u);
		free((char *)f->s[i].better);
		free((char *)f->s[i].asked);
		free((unsigned char *)f->s[i].vals);
		free((unsigned char *)f->s[i].noisy);
	}
	f->n = 0;
}

static int from_rows_flush(struct from_rows *f)
{
	int r = f->run < 0 ? DB_OK :
		db_pack_put(f->db, f->run, &f->mk, f->s, f->n);

	from_rows_clear(f);
	return r;
}

static unsigned char *blob_dup(sqlite3_stmt *st, int col, size_t n)
{
	const void *p = sqlite3_column_blob(st, col);
	unsigned char *d;

	if (!p || (size_t)sqlite3_column_bytes(st, col) != n || !n)
		return NULL;
	d = xcalloc(n, 1);
	memcpy(d, p, n);
	return d;
}

/*
 * Columns: run, ord, workload, params, metric, unit, better, asked, n,
 * unmeasurable, unmeasurable_noisy, vals, noisy, bad, samples,
 * noisy_samples, bounded; the mark (ord -1) first.
 */
static int from_row(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct from_rows *f = arg;
	int64_t run = sqlite3_column_int64(st, 0);
	struct db_pack_series *s;
	size_t n;
	int r;

	if (run != f->run) {
		if ((r = from_rows_flush(f)))
			return r;
		f->run = run;
	}
	if (sqlite3_column_int64(st, 1) < 0) {
		f->mk = (struct db_pack_mark){
			.bad = sqlite3_column_int64(st, 13),
			.samples = sqlite3_column_int64(st, 14),
			.noisy_samples = sqlite3_column_int64(st, 15),
			.bounded = sqlite3_column_int64(st, 16),
		};
		return 0;
	}
	n = (size_t)sqlite3_column_int64(st, 8);
	if ((n && (size_t)sqlite3_column_bytes(st, 11) != 8 * n) ||
	    (sqlite3_column_type(st, 12) != SQLITE_NULL &&
	     (size_t)sqlite3_column_bytes(st, 12) != n))
		return db_bad_row(db, "run_series row of run %lld, metric %s, "
				  "holds %zu values in blobs of another size",
				  (long long)run, db_col_text(st, 4), n);
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 32;
		f->s = xrealloc(f->s, f->alloc * sizeof(*f->s));
	}
	s = &f->s[f->n++];
	s->w = xstrdup(db_col_text(st, 2));
	s->p = xstrdup(db_col_text(st, 3));
	s->m = xstrdup(db_col_text(st, 4));
	s->u = xstrdup(db_col_text(st, 5));
	s->better = xstrdup(db_col_text(st, 6));
	s->asked = sqlite3_column_type(st, 7) == SQLITE_NULL ? NULL :
		   xstrdup(db_col_text(st, 7));
	s->n = n;
	s->unm = sqlite3_column_int64(st, 9);
	s->unm_noisy = sqlite3_column_int64(st, 10);
	s->vals = blob_dup(st, 11, 8 * n);
	s->noisy = blob_dup(st, 12, n);
	return 0;
}

int db_pack_missing(struct db *db)
{
	struct from_rows f = { .db = db, .run = -1 };
	int r;

	r = db_each(db, "cannot read the runs' series", from_row, &f,
		    "SELECT x.run_id, x.ord, x.workload, x.params, x.metric, "
		    "x.unit, x.better, x.asked, x.n, x.unmeasurable, "
		    "x.unmeasurable_noisy, x.vals, x.noisy, x.bad, x.samples, "
		    "x.noisy_samples, x.bounded FROM run_series x "
		    "WHERE x.run_id IN (SELECT r.id FROM runs r WHERE "
		    "EXISTS (SELECT 1 FROM run_series m WHERE m.run_id = r.id "
		    "AND m.ord = -1 AND m.bad = 0) AND NOT EXISTS (SELECT 1 "
		    "FROM run_packs p WHERE p.run_id = r.id)) "
		    "ORDER BY x.run_id, x.ord",
		    "");
	if (!r)
		r = from_rows_flush(&f);
	from_rows_clear(&f);
	free(f.s);
	return r;
}

static int row_int(struct db *db, sqlite3_stmt *st, void *arg)
{
	(void)db;
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return 0;
}

/* The first n columns of a row, int64 each. */
struct ints {
	int64_t **v;
	size_t n;
};

static int row_ints(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct ints *c = arg;
	size_t i;

	(void)db;
	for (i = 0; i < c->n; i++)
		*c->v[i] = sqlite3_column_int64(st, (int)i);
	return 0;
}

int db_pack_layouts_copy(struct db *db, const char *src)
{
	struct strbuf sql = STRBUF_INIT;
	int64_t other = 0;
	int r;

	/* a hash that names another layout here: not copied over it */
	strbuf_addf(&sql, "SELECT count(*) FROM %s.series_layouts s JOIN "
		    "main.series_layouts m ON m.id = s.id "
		    "WHERE m.series != s.series", src);
	r = db_each(db, "cannot read the series' layouts", row_int, &other,
		    sql.buf, "");
	if (!r && other) {
		snprintf(db->errbuf, sizeof(db->errbuf), "%lld of the input's "
			 "series_layouts hold another layout of the same "
			 "hash", (long long)other);
		r = DB_ERR;
	}
	strbuf_reset(&sql);
	strbuf_addf(&sql, "INSERT OR IGNORE INTO main.series_layouts "
		    "(id, series) SELECT id, series FROM %s.series_layouts",
		    src);
	if (!r)
		r = db_stmt(db, sql.buf, "");
	strbuf_release(&sql);
	return r;
}

int db_pack_ready(struct db *db, const char *label, bool *ready)
{
	int64_t missing = 1;
	int r;

	r = db_each(db, "cannot read the runs' series", row_int, &missing,
		    "SELECT count(*) FROM runs r WHERE r.label = ?1 "
		    "AND r.status = 'complete' AND NOT EXISTS (SELECT 1 "
		    "FROM run_packs p WHERE p.run_id = r.id)", "t", label);
	*ready = !r && !missing;
	return r;
}

int db_pack_sums(struct db *db, const char *label, struct db_pack_sums *out)
{
	int64_t *v[] = { &out->missing, &out->samples, &out->noisy_samples,
			 &out->bounded };
	struct ints c = { v, ARRAY_SIZE(v) };

	memset(out, 0, sizeof(*out));
	out->missing = 1;
	return db_each(db, "cannot read the runs' series", row_ints, &c,
		       "SELECT count(*) - count(p.run_id), "
		       "coalesce(sum(p.samples), 0), "
		       "coalesce(sum(p.noisy_samples), 0), "
		       "coalesce(sum(p.bounded > 0), 0) FROM runs r "
		       "LEFT JOIN run_packs p ON p.run_id = r.id "
		       "WHERE r.label = ?1 AND r.status = 'complete'",
		       "t", label);
}

/* A layout as read: 6 strings a series (asked NULL where none). */
struct layout {
	int64_t id;
	char **f;
	size_t n, alloc;
};

struct pack_walk {
	int (*fn)(const struct db_report_series *, void *);
	void *arg;
	struct layout *l;
	size_t nl;
};

static int layout_row(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct layout *l = arg;
	size_t k;

	if (sqlite3_column_int(st, 6) != 6)
		return db_bad_row(db, "series_layouts %lld: series %zu is not "
				  "an array of 6", (long long)l->id, l->n);
	if (l->n == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 32;
		l->f = xrealloc(l->f, 6 * l->alloc * sizeof(*l->f));
	}
	for (k = 0; k < 6; k++)
		l->f[6 * l->n + k] = k == 5 &&
			sqlite3_column_type(st, k) == SQLITE_NULL ? NULL :
			xstrdup(db_col_text(st, (int)k));
	l->n++;
	return 0;
}

static int layout_get(struct db *db, struct pack_walk *w, int64_t id,
		      struct layout **out)
{
	struct layout *l;
	size_t i;
	int r;

	for (i = 0; i < w->nl; i++)
		if (w->l[i].id == id) {
			*out = &w->l[i];
			return 0;
		}
	w->l = xrealloc(w->l, (w->nl + 1) * sizeof(*w->l));
	l = &w->l[w->nl++];
	memset(l, 0, sizeof(*l));
	l->id = id;
	r = db_each(db, "cannot read the series' layouts", layout_row, l,
		    "SELECT json_extract(j.value, '$[0]'), "
		    "json_extract(j.value, '$[1]'), "
		    "json_extract(j.value, '$[2]'), "
		    "json_extract(j.value, '$[3]'), "
		    "json_extract(j.value, '$[4]'), "
		    "json_extract(j.value, '$[5]'), "
		    "json_array_length(j.value) FROM series_layouts s, "
		    "json_each(s.series) j WHERE s.id = ?1 ORDER BY j.key",
		    "i", id);
	*out = l;
	return r;
}

/* Columns: run, layout, counts, vals, noisy. */
static int pack_row(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct pack_walk *w = arg;
	int64_t run = sqlite3_column_int64(st, 0);
	const unsigned char *counts = sqlite3_column_blob(st, 2);
	const unsigned char *vals = sqlite3_column_blob(st, 3);
	const unsigned char *noisy = sqlite3_column_blob(st, 4);
	size_t nc = (size_t)sqlite3_column_bytes(st, 2);
	size_t nv = (size_t)sqlite3_column_bytes(st, 3);
	size_t nn = (size_t)sqlite3_column_bytes(st, 4);
	struct layout *l;
	size_t i, k = 0;
	int r;

	if ((r = layout_get(db, w, sqlite3_column_int64(st, 1), &l)))
		return r;
	if (nc != PACK_COUNTS * l->n)
		return db_bad_row(db, "run_packs row of run %lld holds the "
				  "counts of %zu series, its layout %lld "
				  "names %zu", (long long)run,
				  nc / PACK_COUNTS, (long long)l->id, l->n);
	for (i = 0; i < l->n; i++) {
		char **f = l->f + 6 * i;
		struct db_report_series x = {
			.run_id = run, .workload = f[0], .params = f[1],
			.metric = f[2], .unit = f[3], .better = f[4],
			.asked = f[5],
			.n = (size_t)get_int(counts + PACK_COUNTS * i),
			.unmeasurable = get_int(counts + PACK_COUNTS * i + 8),
			.unmeasurable_noisy =
				get_int(counts + PACK_COUNTS * i + 16),
			.layout = l->id, .pos = i, .npos = l->n,
		};

		if (x.n > nv / 8 - k || (noisy && nn != nv / 8) ||
		    nv % 8)
			return db_bad_row(db, "run_packs row of run %lld, "
					  "metric %s, holds %zu values in "
					  "blobs of another size",
					  (long long)run, x.metric, x.n);
		x.vals = vals ? vals + 8 * k : NULL;
		x.noisy = noisy ? noisy + k : NULL;
		k += x.n;
		if ((r = w->fn(&x, w->arg)))
			return r;
	}
	if (k != nv / 8)
		return db_bad_row(db, "run_packs row of run %lld holds %zu "
				  "values, its counts %zu", (long long)run,
				  nv / 8, k);
	return 0;
}

int db_pack_each(struct db *db, const char *label,
		 int (*fn)(const struct db_report_series *, void *),
		 void *arg)
{
	struct pack_walk w = { .fn = fn, .arg = arg };
	size_t i, k;
	int r;

	r = db_each(db, "cannot read the runs' series", pack_row, &w,
		    "SELECT r.id, p.layout, p.counts, p.vals, p.noisy "
		    "FROM runs r JOIN run_packs p ON p.run_id = r.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "ORDER BY r.started_at, r.id", "t", label);
	for (i = 0; i < w.nl; i++) {
		for (k = 0; k < 6 * w.l[i].n; k++)
			free(w.l[i].f[k]);
		free(w.l[i].f);
	}
	free(w.l);
	return r;
}
