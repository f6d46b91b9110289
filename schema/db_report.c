/*
 * The read queries of reports.  Every query is a prepared statement with
 * bound parameters; a callback that returns nonzero stops the walk and its
 * value is returned.
 */
#include "db_report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_series.h"

/* A row walk's callback and its argument, of whichever query. */
struct walk {
	union {
		int (*text)(const char *, void *);
		int (*pair)(const char *, const char *, void *);
		int (*run)(const struct db_report_run *, void *);
		int (*value)(const struct db_report_value *, void *);
		int (*kase)(const struct db_report_case *, void *);
		int (*invalid)(const struct db_report_invalid *, void *);
		int (*worker)(const struct db_report_worker *, void *);
		int (*series)(const struct db_report_series *, void *);
		int (*prof)(const struct db_report_prof *, void *);
	} fn;
	void *arg;
};

/* The first column of a row, to fn.text. */
static int row_text(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;

	(void)db;
	return w->fn.text(db_col_text(st, 0), w->arg);
}

/* The first two columns of a row, to fn.pair. */
static int row_pair(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;

	(void)db;
	return w->fn.pair(db_col_text(st, 0), db_col_text(st, 1), w->arg);
}

/* The int64 columns of a row, as many as the array holds (counts). */
struct ints {
	int64_t *v[6];
	int n;
};

static int row_ints(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct ints *c = arg;
	int i;

	(void)db;
	for (i = 0; i < c->n; i++)
		*c->v[i] = sqlite3_column_int64(st, i);
	return 0;
}

/* A unit of time, alone or per something ("ns", "ns/folio"). */
bool db_time_unit(const char *u)
{
	static const char *const t[] = { "ns", "us", "\xc2\xb5s", "ms", "s" };
	size_t i, n = strcspn(u, "/");

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (strlen(t[i]) == n && !strncmp(u, t[i], n))
			return true;
	return false;
}

/* A run's boot id as the reports group on it: a NULL or '' pools boots. */
static int check_boot_id(struct db *db, sqlite3_stmt *st, int col,
			 int64_t run_id)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	if (sqlite3_column_type(st, col) != SQLITE_TEXT || !t || !*t)
		return db_bad_row(db, "runs row %lld has %s boot_id: its "
			       "runs cannot be told from another boot's",
			       (long long)run_id, sqlite3_column_type(st, col)
			       == SQLITE_NULL ? "a NULL" : "an empty or "
			       "non-text");
	return DB_OK;
}


int db_report_nruns(struct db *db, int64_t *n)
{
	struct ints c = { { n }, 1 };

	return db_each(db, "cannot count runs", row_ints, &c,
		       "SELECT count(*) FROM runs", "");
}

int db_report_label(struct db *db, const char *label, int64_t *nruns,
		    int64_t *ncomplete)
{
	struct ints c = { { nruns, ncomplete }, 2 };

	return db_each(db, "cannot count the runs of a label", row_ints, &c,
		       "SELECT count(*), coalesce(sum(status = 'complete'), 0) "
		       "FROM runs WHERE label = ?1", "t", label);
}

int db_report_labels_each(struct db *db,
			  int (*fn)(const char *label, void *arg), void *arg)
{
	struct walk w = { .fn.text = fn, .arg = arg };

	return db_each(db, "cannot list labels", row_text, &w,
		       "SELECT DISTINCT label FROM runs ORDER BY label", "");
}

static int row_run(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_run run = {
		.id = sqlite3_column_int64(st, 0),
		.uuid = db_col_text(st, 1),
		.kernel_release = db_col_text(st, 2),
		.boot_id = db_col_text(st, 3),
		.hostname = db_col_text(st, 4),
		.cpu_model = db_col_text(st, 5),
		.cmdline = db_col_text(st, 6),
		.thp = db_col_text(st, 7),
		.tmpfs = db_col_text(st, 8),
		.topology = db_col_text(st, 9),
		.tool_version = db_col_text(st, 10),
		.started_at = db_col_text(st, 11),
		.vcpus = sqlite3_column_int64(st, 12),
		.mem_bytes = sqlite3_column_int64(st, 13),
		.virt = db_col_text(st, 14),
		.kernel_warnings = sqlite3_column_int64(st, 15),
		.kwarn_at_us = sqlite3_column_int64(st, 16),
		.kwarn_first = db_col_text(st, 17),
		.clock = db_col_text(st, 18),
		.icount_shift = sqlite3_column_type(st, 19) == SQLITE_NULL ?
				-1 : sqlite3_column_int(st, 19),
		.packed = sqlite3_column_type(st, 20) != SQLITE_NULL,
		.pack_samples = sqlite3_column_int64(st, 21),
		.pack_noisy = sqlite3_column_int64(st, 22),
		.pack_bounded = sqlite3_column_int64(st, 23),
		.topology_shape = db_col_text(st, 24),
		.vm_accel = db_col_text(st, 25),
		.vm_shape = db_col_text(st, 26),
	};

	if (check_boot_id(db, st, 3, run.id))
		return DB_BADROW;
	return w->fn.run(&run, w->arg);
}

int db_report_runs_each(struct db *db, const char *label,
			int (*fn)(const struct db_report_run *, void *),
			void *arg)
{
	struct walk w = { .fn.run = fn, .arg = arg };

	return db_each(db, "cannot read runs", row_run, &w,
		       "SELECT runs.id, uuid, kernel_release, boot_id, "
		       "hostname, cpu_model, cmdline, thp, tmpfs, topology, "
		       "tool_version, started_at, vcpus, mem_bytes, "
		       "CASE WHEN v.accel = 'tcg' "
		       "THEN 'VM under TCG' ELSE virt END, "
		       "coalesce(kernel_warnings, -1), "
		       /* the first warning, looked for where there is one */
		       "CASE WHEN kernel_warnings > 0 THEN (SELECT at_us "
		       "FROM kernel_warnings k WHERE k.run_id = runs.id "
		       "ORDER BY seq LIMIT 1) END, "
		       "CASE WHEN kernel_warnings > 0 THEN (SELECT line "
		       "FROM kernel_warnings k WHERE k.run_id = runs.id "
		       "ORDER BY seq LIMIT 1) END, "
		       "coalesce(v.clock, 'time'), v.icount_shift, "
		       /* the pack's mark: what compare's warnings sum */
		       "p.run_id, coalesce(p.samples, 0), "
		       "coalesce(p.noisy_samples, 0), "
		       "coalesce(p.bounded, 0), topology_shape, "
		       "coalesce(v.accel, ''), coalesce(v.shape, '') "
		       "FROM runs LEFT JOIN run_vm v ON v.run_id = runs.id "
		       "LEFT JOIN run_packs p ON p.run_id = runs.id "
		       "WHERE label = ?1 AND status = 'complete' "
		       "ORDER BY started_at, runs.id", "t", label);
}

int db_report_values_each(struct db *db, const char *label,
			  int (*fn)(const struct db_report_value *, void *),
			  void *arg)
{
	return db_report_values_each_noisy(db, label, false, fn, arg);
}

int db_report_values_each_noisy(struct db *db, const char *label,
				bool drop_noisy,
				int (*fn)(const struct db_report_value *,
					  void *),
				void *arg)
{
	return db_report_values_each_kept(db, label, drop_noisy, false, NULL,
					  NULL, fn, arg);
}

/* A value's place in its sample keeps the metric order the workload gave. */
#define VALUES_SQL(filter) \
	"SELECT r.id, r.boot_id, c.workload, c.params, " DB_V_METRIC ", " \
	DB_V_UNIT ", " DB_V_BETTER ", " DB_V_VALUE ", " DB_V_SUPPORTED ", " \
	"s.id, c.asked " \
	"FROM runs r JOIN cases c ON c.run_id = r.id " \
	"JOIN samples s ON s.case_id = c.id " \
	DB_VALUES_OF("s") \
	"WHERE r.label = ?1 AND r.status = 'complete' " \
	"AND s.warmup = 0 AND s.valid = 1 AND (?3 = 1 OR s.profiled = 0) " \
	"AND (?2 = 0 OR s.noisy = 0) " \
	filter "ORDER BY r.started_at, r.id, c.seq, s.rep, v.key"

struct keep_call {
	bool (*keep)(const struct db_report_value *, void *);
	void *arg;
};

/*
 * fb_keep(workload, params, metric, unit, value, supported): 1 for a value
 * to read.  A value check_value or the reports refuse (text, a blob, below
 * zero, infinite) is read whatever keep says, so that it is refused.
 */
static void fb_keep(sqlite3_context *ctx, int argc, sqlite3_value **a)
{
	const struct keep_call *k = sqlite3_user_data(ctx);
	int type = sqlite3_value_type(a[4]);
	struct db_report_value v = { .run_id = 0 };
	double x = 0;

	(void)argc;
	if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
		x = sqlite3_value_double(a[4]);
	if (type == SQLITE_TEXT || type == SQLITE_BLOB || x < 0 ||
	    !isfinite(x)) {
		sqlite3_result_int(ctx, 1);
		return;
	}
	v.workload = (const char *)sqlite3_value_text(a[0]);
	v.params = (const char *)sqlite3_value_text(a[1]);
	v.metric = (const char *)sqlite3_value_text(a[2]);
	v.unit = (const char *)sqlite3_value_text(a[3]);
	if (!v.workload || !v.params || !v.metric || !v.unit) {
		sqlite3_result_int(ctx, 1);
		return;
	}
	v.value = x;
	v.supported = type != SQLITE_NULL && sqlite3_value_int(a[5]);
	sqlite3_result_int(ctx, k->keep(&v, k->arg));
}

static int row_value(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_value v = {
		.run_id = sqlite3_column_int64(st, 0),
		.boot_id = db_col_text(st, 1),
		.workload = db_col_text(st, 2),
		.params = db_col_text(st, 3),
		.metric = db_col_text(st, 4),
		.unit = db_col_text(st, 5),
		.better = db_col_text(st, 6),
		.value = sqlite3_column_double(st, 7),
		.supported = sqlite3_column_type(st, 7) != SQLITE_NULL &&
			     sqlite3_column_int(st, 8),
		.sample_id = sqlite3_column_int64(st, 9),
		.asked = sqlite3_column_type(st, 10) == SQLITE_NULL ? NULL :
			 db_col_text(st, 10),
	};

	if (db_check_value(db, st, 7, v.sample_id, v.run_id, v.metric,
			   v.unit))
		return DB_BADROW;
	return w->fn.value(&v, w->arg);
}

int db_report_values_each_kept(struct db *db, const char *label,
			       bool drop_noisy, bool profiled,
			       bool (*keep)(const struct db_report_value *,
					    void *),
			       void *keep_arg,
			       int (*fn)(const struct db_report_value *,
					 void *),
			       void *arg)
{
	struct keep_call k = { keep, keep_arg };
	struct walk w = { .fn.value = fn, .arg = arg };
	int r;

	/* every value: each sample's read in C (db_report_vals.c) */
	if (!keep)
		return db_report_values_read(db, label, drop_noisy, profiled,
					     fn, arg);
	if (keep && sqlite3_create_function(db->h, "fb_keep", 6, SQLITE_UTF8,
					    &k, fb_keep, NULL, NULL))
		return db_fail(db, "cannot make the report's value filter");
	r = db_each(db, "cannot read samples", row_value, &w,
		    keep ? VALUES_SQL("AND fb_keep(c.workload, c.params, "
				      DB_V_METRIC ", " DB_V_UNIT ", "
				      DB_V_VALUE ", " DB_V_SUPPORTED ") ") :
			   VALUES_SQL(""),
		    "tii", label, (int64_t)drop_noisy, (int64_t)profiled);
	/* k lives on this stack: the function goes with it */
	if (keep)
		sqlite3_create_function(db->h, "fb_keep", 6, SQLITE_UTF8,
					NULL, NULL, NULL, NULL);
	return r;
}

int db_report_values_sample(struct db *db, int64_t sample_id,
			    int (*fn)(const struct db_report_value *, void *),
			    void *arg)
{
	struct walk w = { .fn.value = fn, .arg = arg };

	return db_each(db, "cannot read samples", row_value, &w,
		       "SELECT r.id, r.boot_id, c.workload, c.params, "
		       DB_V_METRIC ", " DB_V_UNIT ", " DB_V_BETTER ", "
		       DB_V_VALUE ", " DB_V_SUPPORTED ", s.id, c.asked "
		       "FROM samples s JOIN cases c ON c.id = s.case_id "
		       "JOIN runs r ON r.id = c.run_id " DB_VALUES_OF("s")
		       "WHERE s.id = ?1 ORDER BY v.key", "i", sample_id);
}

int db_report_series_ready(struct db *db, const char *label, bool *ready)
{
	int64_t missing = 1;
	struct ints c = { { &missing }, 1 };
	int r;

	/* a run's pack is there only where its rows are, none bad */
	if ((r = db_pack_ready(db, label, ready)) || *ready)
		return r;
	r = db_each(db, "cannot read the runs' series", row_ints, &c,
		    "SELECT count(*) FROM runs r LEFT JOIN run_series x "
		    "ON x.run_id = r.id AND x.ord = -1 "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND (x.run_id IS NULL OR x.bad > 0)", "t", label);
	*ready = !r && !missing;
	return r;
}

static int row_series(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_series x = {
		.run_id = sqlite3_column_int64(st, 0),
		.workload = db_col_text(st, 1),
		.params = db_col_text(st, 2),
		.metric = db_col_text(st, 3),
		.unit = db_col_text(st, 4),
		.better = db_col_text(st, 5),
		.asked = sqlite3_column_type(st, 6) == SQLITE_NULL ? NULL :
			 db_col_text(st, 6),
		.n = (size_t)sqlite3_column_int64(st, 7),
		.unmeasurable = sqlite3_column_int64(st, 8),
		.unmeasurable_noisy = sqlite3_column_int64(st, 9),
	};

	if ((size_t)sqlite3_column_bytes(st, 10) != 8 * x.n ||
	    (sqlite3_column_type(st, 11) != SQLITE_NULL &&
	     (size_t)sqlite3_column_bytes(st, 11) != x.n))
		return db_bad_row(db, "run_series row of run %lld, metric %s, "
			       "holds %zu values in blobs of another size",
			       (long long)x.run_id, x.metric, x.n);
	x.vals = sqlite3_column_blob(st, 10);
	x.noisy = sqlite3_column_type(st, 11) == SQLITE_NULL ? NULL :
		  sqlite3_column_blob(st, 11);
	return w->fn.series(&x, w->arg);
}

int db_report_series_each(struct db *db, const char *label,
			  int (*fn)(const struct db_report_series *, void *),
			  void *arg)
{
	struct walk w = { .fn.series = fn, .arg = arg };
	bool packed;
	int r;

	/* a row a run where each has it (schema 14), not a row a series */
	if ((r = db_pack_ready(db, label, &packed)))
		return r;
	if (packed)
		return db_pack_each(db, label, fn, arg);
	return db_each(db, "cannot read the runs' series", row_series, &w,
		    "SELECT r.id, x.workload, x.params, x.metric, x.unit, "
		    "x.better, x.asked, x.n, x.unmeasurable, "
		    "x.unmeasurable_noisy, x.vals, x.noisy "
		    "FROM runs r JOIN run_series x ON x.run_id = r.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND x.ord >= 0 ORDER BY r.started_at, r.id, x.ord",
		    "t", label);
}

double db_report_series_value(const struct db_report_series *x, size_t i)
{
	return db_series_get(x->vals + 8 * i);
}

void db_report_series_values(const struct db_report_series *x, double *out,
			     size_t n)
{
	size_t i;

	/* the blob's bytes are the doubles' own on a little-endian host */
	if (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
		if (n)
			memcpy(out, x->vals, n * sizeof(*out));
		return;
	}
	for (i = 0; i < n; i++)
		out[i] = db_series_get(x->vals + 8 * i);
}

static int row_case(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_case c = {
		.workload = db_col_text(st, 0),
		.params = db_col_text(st, 1),
		.status = db_col_text(st, 2),
		.reason = db_col_text(st, 3),
		.profile = sqlite3_column_int(st, 4),
	};

	(void)db;
	return w->fn.kase(&c, w->arg);
}

int db_report_cases_marked_each(struct db *db, const char *label,
				int (*fn)(const struct db_report_case *,
					  void *),
				void *arg)
{
	struct walk w = { .fn.kase = fn, .arg = arg };

	/* each case's row is read for its status: its profile comes free */
	return db_each(db, "cannot read cases", row_case, &w,
		       "SELECT c.workload, c.params, c.status, c.reason, "
		       "c.profile IS NOT NULL "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND (c.status <> 'done' OR c.profile IS NOT NULL) "
		       "ORDER BY r.started_at, r.id, c.seq", "t", label);
}

static int row_invalid(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_invalid v = {
		.run_id = sqlite3_column_int64(st, 0),
		.workload = db_col_text(st, 1),
		.params = db_col_text(st, 2),
		.reason = db_col_text(st, 3),
		.n = sqlite3_column_int64(st, 4),
		.valid = sqlite3_column_count(st) > 5 &&
			 sqlite3_column_int(st, 5),
	};

	(void)db;
	return w->fn.invalid(&v, w->arg);
}

int db_report_invalid_each(struct db *db, const char *label,
			   int (*fn)(const struct db_report_invalid *, void *),
			   void *arg)
{
	struct walk w = { .fn.invalid = fn, .arg = arg };

	return db_each(db, "cannot read invalid samples", row_invalid, &w,
		       "SELECT r.id, c.workload, c.params, "
		       "coalesce(s.invalid_reason, ''), count(*) "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND s.warmup = 0 AND s.valid = 0 "
		       "GROUP BY r.id, c.id, s.invalid_reason "
		       "ORDER BY min(s.id)", "t", label);
}

int db_report_invalid_case_each(struct db *db, const char *label,
				const char *workload, const char *params,
				int (*fn)(const struct db_report_invalid *,
					  void *),
				void *arg)
{
	struct walk w = { .fn.invalid = fn, .arg = arg };

	return db_each(db, "cannot read invalid samples", row_invalid, &w,
		       "SELECT r.id, c.workload, c.params, CASE s.valid "
		       "WHEN 0 THEN coalesce(s.invalid_reason, '') ELSE '' "
		       "END, count(*), s.valid "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND c.workload = ?2 AND c.params = ?3 "
		       "AND s.warmup = 0 "
		       "GROUP BY r.id, c.id, s.valid, s.invalid_reason "
		       "ORDER BY min(s.id)", "ttt", label, workload, params);
}

int db_report_params_each(struct db *db, const char *params_json,
			  int (*fn)(const char *key, const char *value,
				    void *arg),
			  void *arg)
{
	struct walk w = { .fn.pair = fn, .arg = arg };
	int64_t obj = 0;
	struct ints c = { { &obj }, 1 };
	int r;

	/* an array or a number walks as keys 0, 1...: not a case's params */
	r = db_each(db, "cannot read case params", row_ints, &c,
		    "SELECT CASE WHEN json_valid(?1) THEN json_type(?1) = "
		    "'object' ELSE 0 END", "t",
		    params_json);
	if (r)
		return r;
	if (!obj) {
		snprintf(db->errbuf, sizeof(db->errbuf), "not a JSON object");
		return DB_ERR;
	}
	/* SQLite's own JSON reader: the JSON library stays in reports/. */
	return db_each(db, "cannot read case params", row_pair, &w,
		       "SELECT key, value FROM json_each(?1) "
		       "WHERE type NOT IN ('object', 'array') ORDER BY id",
		       "t", params_json);
}

int db_report_boots_each(struct db *db, const char *label,
			 int (*fn)(const char *boot_id, const char *at,
				   void *arg),
			 void *arg)
{
	struct walk w = { .fn.pair = fn, .arg = arg };

	return db_each(db, "cannot read the boots of a label", row_pair, &w,
		       "SELECT boot_id, min(started_at) AS at FROM runs "
		       "WHERE label = ?1 AND status = 'complete' "
		       "GROUP BY boot_id ORDER BY at, min(id)", "t", label);
}

int db_report_boot_runs(struct db *db, const char *label, const char *boot_id,
			struct db_boot_runs *out)
{
	struct ints c = { { &out->complete, &out->other }, 2 };

	memset(out, 0, sizeof(*out));
	return db_each(db, "cannot count the runs of this boot", row_ints, &c,
		       "SELECT count(*) FILTER (WHERE status = 'complete'), "
		       "count(*) FILTER (WHERE status <> 'complete') FROM runs "
		       "WHERE label = ?1 AND boot_id = ?2", "tt", label,
		       boot_id);
}

struct summary {
	struct db_run_summary *out;
	bool found;
};

static int row_summary(struct db *db, sqlite3_stmt *st, void *arg)
{
	struct summary *s = arg;
	struct db_run_summary *out = s->out;

	(void)db;
	s->found = true;
	snprintf(out->uuid, sizeof(out->uuid), "%s", db_col_text(st, 0));
	snprintf(out->status, sizeof(out->status), "%s", db_col_text(st, 1));
	out->kernel_warnings = sqlite3_column_int64(st, 2);
	out->cases_valid = sqlite3_column_int64(st, 3);
	out->cases_invalid = sqlite3_column_int64(st, 4);
	out->cases_skipped = sqlite3_column_int64(st, 5);
	return 0;
}

int db_report_run_summary(struct db *db, const char *label,
			  const char *boot_id, struct db_run_summary *out)
{
	struct summary s = { out, false };
	int r;

	memset(out, 0, sizeof(*out));
	r = db_each(db, "cannot read the run of this boot", row_summary, &s,
		    "SELECT r.uuid, r.status, "
		    "coalesce(r.kernel_warnings, -1), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " c.status = 'done' AND NOT EXISTS (SELECT 1 FROM "
		    " samples s WHERE s.case_id = c.id AND s.valid = 0 AND "
		    " s.warmup = 0)), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " (c.status = 'failed' OR (c.status = 'done' AND EXISTS "
		    " (SELECT 1 FROM samples s WHERE s.case_id = c.id AND "
		    " s.valid = 0 AND s.warmup = 0)))), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " c.status = 'skipped') "
		    "FROM runs r WHERE r.label = ?1 AND r.boot_id = ?2 "
		    "ORDER BY r.id DESC LIMIT 1", "tt", label, boot_id);
	if (r)
		return r;
	return s.found ? DB_OK : DB_MISSING;
}

/* A label's noisy and valid samples from table t, a row a run. */
#define NOISY_SQL(t, on) \
	"SELECT coalesce(sum(x.noisy_samples), 0), " \
	"coalesce(sum(x.samples), 0) FROM runs r JOIN " t " x " \
	"ON x.run_id = r.id" on " WHERE r.label = ?1 " \
	"AND r.status = 'complete'"

int db_report_noisy(struct db *db, const char *label, int64_t *noisy,
		    int64_t *total)
{
	struct ints c = { { noisy, total }, 2 };
	struct db_pack_sums ps;
	bool ready;
	int r;

	/* the runs' counts where each has them: packs (one pass), else marks */
	if ((r = db_pack_sums(db, label, &ps)))
		return r;
	if (!ps.missing) {
		*noisy = ps.noisy_samples;
		*total = ps.samples;
		return 0;
	}
	if ((r = db_report_series_ready(db, label, &ready)))
		return r;
	if (ready)
		return db_each(db, "cannot count noisy samples", row_ints, &c,
			       NOISY_SQL("run_series", " AND x.ord = -1"),
			       "t", label);
	return db_each(db, "cannot count noisy samples", row_ints, &c,
		       "SELECT coalesce(sum(s.noisy), 0), count(*) FROM runs r "
		       "JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND s.warmup = 0 AND s.valid = 1 AND s.profiled = 0",
		       "t", label);
}

/* A label's bounded cases from the runs' marks: JOIN m, each run's mark. */
#define BOUNDED_SQL(join) \
	"SELECT DISTINCT x.workload, x.params FROM runs r " join \
	" JOIN run_series x ON x.run_id = r.id AND x.ord >= 0 " \
	"WHERE r.label = ?1 AND r.status = 'complete' AND x.bounded = 1 " \
	"ORDER BY x.workload, x.params"

int db_report_bounded_each(struct db *db, const char *label,
			   int (*fn)(const char *workload, const char *params,
				     void *),
			   void *arg)
{
	struct walk w = { .fn.pair = fn, .arg = arg };
	struct db_pack_sums ps;
	bool ready;
	int r;

	/* the packs' marks say whether a run has a bounded count at all */
	if ((r = db_pack_sums(db, label, &ps)))
		return r;
	if (!ps.missing && !ps.bounded)
		return 0;
	if (!ps.missing)
		return db_each(db, "cannot read samples", row_pair, &w,
			       BOUNDED_SQL("JOIN run_packs m ON m.run_id = "
					   "r.id AND m.bounded > 0"),
			       "t", label);
	if ((r = db_report_series_ready(db, label, &ready)))
		return r;
	if (ready)
		return db_each(db, "cannot read samples", row_pair, &w,
			       BOUNDED_SQL("JOIN run_series m ON m.run_id = "
					   "r.id AND m.ord = -1 AND "
					   "m.bounded > 0"),
			       "t", label);
	return db_each(db, "cannot read samples", row_pair, &w,
		       "SELECT DISTINCT c.workload, c.params FROM runs r "
		       "JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND s.warmup = 0 AND s.valid = 1 AND s.profiled = 0 "
		       "AND instr(s.verify, 'coverage_bounded') "
		       "AND json_extract(s.verify, '$.coverage_bounded') = 1 "
		       "ORDER BY c.workload, c.params", "t", label);
}

int db_report_shapes_each(struct db *db, const char *label,
			  int (*fn)(const char *shape, void *arg), void *arg)
{
	struct walk w = { .fn.text = fn, .arg = arg };

	return db_each(db, "cannot read topologies", row_text, &w,
		       "SELECT DISTINCT topology_shape FROM runs "
		       "WHERE label = ?1 AND status = 'complete' "
		       "AND topology_shape != '' ORDER BY 1", "t", label);
}

static int row_worker(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_worker k = {
		.workload = db_col_text(st, 0),
		.params = db_col_text(st, 1),
		.worker = sqlite3_column_int(st, 2),
		.pu = sqlite3_column_int(st, 3),
		.wall_ns = sqlite3_column_int64(st, 4),
		.workers = sqlite3_column_int(st, 5),
	};

	(void)db;
	return w->fn.worker(&k, w->arg);
}

int db_report_workers_each(struct db *db, const char *label, bool drop_noisy,
			   int (*fn)(const struct db_report_worker *, void *),
			   void *arg)
{
	struct walk w = { .fn.worker = fn, .arg = arg };

	return db_each(db, "cannot read workers", row_worker, &w,
		       "SELECT c.workload, c.params, w.worker, w.pu, "
		       "w.wall_ns, s.workers FROM runs r JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "JOIN sample_workers w ON w.sample_id = s.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND s.warmup = 0 AND s.valid = 1 AND s.profiled = 0 "
		       "AND (?2 = 0 OR s.noisy = 0) "
		       "ORDER BY c.workload, c.params, w.worker, r.started_at, "
		       "s.rep", "ti", label, (int64_t)drop_noisy);
}

int db_report_profiled(struct db *db, const char *label, int64_t *profiled,
		       int64_t *total)
{
	int64_t any = 0;
	struct ints c = { { &any }, 1 }, n = { { profiled, total }, 2 };
	int r;

	*profiled = *total = 0;
	/* a sample is profiled only in a case with a profile: look there */
	r = db_each(db, "cannot read the cases' profiles", row_ints, &c,
		    "SELECT EXISTS (SELECT 1 FROM runs r JOIN cases c "
		    "ON c.run_id = r.id WHERE r.label = ?1 AND "
		    "r.status = 'complete' AND c.profile IS NOT NULL)",
		    "t", label);
	if (r || !any)
		return r;
	return db_each(db, "cannot count profiled samples", row_ints, &n,
		       "SELECT coalesce(sum(s.profiled), 0), count(*) "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "JOIN samples s ON s.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND s.warmup = 0 AND s.valid = 1", "t", label);
}

static int row_prof(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct walk *w = arg;
	struct db_report_prof p = {
		.run_id = sqlite3_column_int64(st, 0),
		.case_id = sqlite3_column_int64(st, 1),
		.boot_id = db_col_text(st, 2),
		.workload = db_col_text(st, 3),
		.params = db_col_text(st, 4),
		.off = sqlite3_column_type(st, 6) == SQLITE_NULL ? NULL :
		       db_col_text(st, 6),
		.unit = db_col_text(st, 7),
		.event = db_col_text(st, 8),
		.period = db_col_real(st, 9),
		.stack = sqlite3_column_type(st, 10) == SQLITE_NULL ? NULL :
			 db_col_text(st, 10),
		.count = sqlite3_column_int64(st, 11),
	};

	if (!sqlite3_column_int(st, 5))
		return db_bad_row(db, "case %lld of run %lld (%s): its profile "
				  "is not a JSON object: %s",
				  (long long)p.case_id, (long long)p.run_id,
				  p.workload, db_col_text(st, 12));
	if (!p.off && strcmp(p.unit, "ns") && strcmp(p.unit, "instructions")
	    && strcmp(p.unit, "cycles"))
		return db_bad_row(db, "case %lld of run %lld (%s): profile "
				  "unit '%s' is none of ns, instructions, "
				  "cycles", (long long)p.case_id,
				  (long long)p.run_id, p.workload, p.unit);
	return w->fn.prof(&p, w->arg);
}

int db_report_prof_each(struct db *db, const char *label,
			int (*fn)(const struct db_report_prof *, void *),
			void *arg)
{
	struct walk w = { .fn.prof = fn, .arg = arg };

	return db_each(db, "cannot read the cases' profiles", row_prof, &w,
		       "SELECT r.id, c.id, r.boot_id, c.workload, c.params, "
		       "CASE WHEN json_valid(c.profile) THEN "
		       "json_type(c.profile) = 'object' ELSE 0 END, "
		       "CASE WHEN json_valid(c.profile) THEN "
		       "json_extract(c.profile, '$.off') END, "
		       "CASE WHEN json_valid(c.profile) THEN "
		       "json_extract(c.profile, '$.unit') END, "
		       "CASE WHEN json_valid(c.profile) THEN "
		       "json_extract(c.profile, '$.event') END, "
		       "CASE WHEN json_valid(c.profile) THEN "
		       "json_extract(c.profile, '$.period') END, "
		       "p.stack, p.count, c.profile "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "LEFT JOIN profile_stacks p ON p.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "AND c.profile IS NOT NULL "
		       "ORDER BY r.started_at, r.id, c.seq", "t", label);
}
