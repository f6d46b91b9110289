/*
 * The read queries of reports.  Every query is a prepared statement with
 * bound parameters; a callback that returns nonzero stops the walk and its
 * value is returned.
 */
#include "db_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* What SQLite said, as schema/'s one error path sorts it (db_fail). */
static int fail(struct db *db, const char *what)
{
	return db_fail(db, what);
}

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* Prepare sql and bind label (when not NULL) as ?1. */
static int prepare(struct db *db, const char *sql, const char *label,
		   sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK)
		return fail(db, "cannot prepare a report query");
	if (label && sqlite3_bind_text(*st, 1, label, -1,
				       SQLITE_TRANSIENT) != SQLITE_OK) {
		sqlite3_finalize(*st);
		return fail(db, "cannot bind a label");
	}
	return DB_OK;
}

/* Step to the end: DB_OK, or the error of the step. */
static int step_end(struct db *db, sqlite3_stmt *st, int r, const char *what)
{
	if (r != SQLITE_DONE) {
		r = fail(db, what);
		sqlite3_finalize(st);
		return r;
	}
	sqlite3_finalize(st);
	return DB_OK;
}

/*
 * A row that would make a report say something false: refuse it, naming
 * it.  Finalizes st.
 */
static int bad_row(struct db *db, sqlite3_stmt *st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad_row(struct db *db, sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(db->err, sizeof(db->err), fmt, ap);
	va_end(ap);
	sqlite3_finalize(st);
	return DB_BADROW;
}

/* A unit of time, alone or per something ("ns", "ns/folio"). */
static bool time_unit(const char *u)
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
		return bad_row(db, st, "runs row %lld has %s boot_id: its "
			       "runs cannot be told from another boot's",
			       (long long)run_id, sqlite3_column_type(st, col)
			       == SQLITE_NULL ? "a NULL" : "an empty or "
			       "non-text");
	return DB_OK;
}

/*
 * A value a median can take: a number (or NULL, not measurable), never
 * text or a blob (they read as 0), and no negative time.
 */
static int check_value(struct db *db, sqlite3_stmt *st, int col,
		       const struct db_report_value *v)
{
	int type = sqlite3_column_type(st, col);

	if (type == SQLITE_TEXT || type == SQLITE_BLOB)
		return bad_row(db, st, "sample_values row of sample %lld "
			       "(run %lld), metric %s, holds %s, not a "
			       "number: '%.40s'", (long long)v->sample_id,
			       (long long)v->run_id, v->metric,
			       type == SQLITE_TEXT ? "text" : "a blob",
			       col_text(st, col));
	if (type != SQLITE_NULL && v->value < 0 && time_unit(v->unit))
		return bad_row(db, st, "sample_values row of sample %lld "
			       "(run %lld), metric %s, holds a negative "
			       "time: %g %s", (long long)v->sample_id,
			       (long long)v->run_id, v->metric, v->value,
			       v->unit);
	return DB_OK;
}

int db_report_nruns(struct db *db, int64_t *n)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db, "SELECT count(*) FROM runs", NULL, &st);
	if (r)
		return r;
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail(db, "cannot count runs");
		sqlite3_finalize(st);
		return DB_ERR;
	}
	*n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return DB_OK;
}

int db_report_label(struct db *db, const char *label, int64_t *nruns,
		    int64_t *ncomplete)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db, "SELECT count(*), "
			"coalesce(sum(status = 'complete'), 0) "
			"FROM runs WHERE label = ?1", label, &st);
	if (r)
		return r;
	if (sqlite3_step(st) != SQLITE_ROW) {
		fail(db, "cannot count the runs of a label");
		sqlite3_finalize(st);
		return DB_ERR;
	}
	*nruns = sqlite3_column_int64(st, 0);
	*ncomplete = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return DB_OK;
}

int db_report_labels_each(struct db *db,
			  int (*fn)(const char *label, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db, "SELECT DISTINCT label FROM runs ORDER BY label",
		    NULL, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(col_text(st, 0), arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot list labels");
}

int db_report_runs_each(struct db *db, const char *label,
			int (*fn)(const struct db_report_run *, void *),
			void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT id, uuid, kernel_release, boot_id, hostname, "
		    "cpu_model, cmdline, thp, tmpfs, topology, tool_version, "
		    "started_at, vcpus, mem_bytes, CASE WHEN EXISTS (SELECT 1 "
		    "FROM run_vm v WHERE v.run_id = runs.id AND v.accel = "
		    "'tcg') THEN 'VM under TCG' ELSE virt END, "
		    "coalesce(kernel_warnings, -1), (SELECT at_us FROM "
		    "kernel_warnings k WHERE k.run_id = runs.id ORDER BY seq "
		    "LIMIT 1), (SELECT line FROM kernel_warnings k WHERE "
		    "k.run_id = runs.id ORDER BY seq LIMIT 1) FROM runs "
		    "WHERE label = ?1 AND status = 'complete' "
		    "ORDER BY started_at, id", label, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_report_run run = {
			.id = sqlite3_column_int64(st, 0),
			.uuid = col_text(st, 1),
			.kernel_release = col_text(st, 2),
			.boot_id = col_text(st, 3),
			.hostname = col_text(st, 4),
			.cpu_model = col_text(st, 5),
			.cmdline = col_text(st, 6),
			.thp = col_text(st, 7),
			.tmpfs = col_text(st, 8),
			.topology = col_text(st, 9),
			.tool_version = col_text(st, 10),
			.started_at = col_text(st, 11),
			.vcpus = sqlite3_column_int64(st, 12),
			.mem_bytes = sqlite3_column_int64(st, 13),
			.virt = col_text(st, 14),
			.kernel_warnings = sqlite3_column_int64(st, 15),
			.kwarn_at_us = sqlite3_column_int64(st, 16),
			.kwarn_first = col_text(st, 17),
		};
		int stop;

		if (check_boot_id(db, st, 3, run.id))
			return DB_BADROW;
		stop = fn(&run, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read runs");
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
	sqlite3_stmt *st;
	int r;

	/* sample_values.rowid keeps the metric order the workload gave. */
	r = prepare(db,
		    "SELECT r.id, r.boot_id, c.workload, c.params, v.metric, "
		    "v.unit, v.better, v.value, v.supported, s.id, c.asked "
		    "FROM runs r JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "JOIN sample_values v ON v.sample_id = s.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 1 "
		    "AND (?2 = 0 OR s.noisy = 0) "
		    "ORDER BY r.started_at, r.id, c.seq, s.rep, v.rowid",
		    label, &st);
	if (r)
		return r;
	sqlite3_bind_int(st, 2, drop_noisy);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_report_value v = {
			.run_id = sqlite3_column_int64(st, 0),
			.boot_id = col_text(st, 1),
			.workload = col_text(st, 2),
			.params = col_text(st, 3),
			.metric = col_text(st, 4),
			.unit = col_text(st, 5),
			.better = col_text(st, 6),
			.value = sqlite3_column_double(st, 7),
			.supported = sqlite3_column_type(st, 7) != SQLITE_NULL
				     && sqlite3_column_int(st, 8),
			.sample_id = sqlite3_column_int64(st, 9),
			.asked = sqlite3_column_type(st, 10) == SQLITE_NULL ?
				 NULL : col_text(st, 10),
		};
		int stop;

		if (check_value(db, st, 7, &v))
			return DB_BADROW;
		stop = fn(&v, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read samples");
}

int db_report_cases_not_done_each(struct db *db, const char *label,
				  int (*fn)(const struct db_report_case *,
					    void *),
				  void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT c.workload, c.params, c.status, c.reason "
		    "FROM runs r JOIN cases c ON c.run_id = r.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND c.status <> 'done' "
		    "ORDER BY r.started_at, r.id, c.seq", label, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_report_case c = {
			.workload = col_text(st, 0),
			.params = col_text(st, 1),
			.status = col_text(st, 2),
			.reason = col_text(st, 3),
		};
		int stop = fn(&c, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read cases");
}

int db_report_invalid_each(struct db *db, const char *label,
			   int (*fn)(const struct db_report_invalid *, void *),
			   void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT r.id, c.workload, c.params, "
		    "coalesce(s.invalid_reason, ''), count(*) "
		    "FROM runs r JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 0 "
		    "GROUP BY r.id, c.id, s.invalid_reason "
		    "ORDER BY min(s.id)", label, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_report_invalid v = {
			.run_id = sqlite3_column_int64(st, 0),
			.workload = col_text(st, 1),
			.params = col_text(st, 2),
			.reason = col_text(st, 3),
			.n = sqlite3_column_int64(st, 4),
		};
		int stop = fn(&v, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read invalid samples");
}

/* Hand fn the first two columns of each row of st, then finalize it. */
static int pairs_each(struct db *db, sqlite3_stmt *st,
		      int (*fn)(const char *a, const char *b, void *arg),
		      void *arg, const char *what)
{
	int r;

	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(col_text(st, 0), col_text(st, 1), arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, what);
}

int db_report_params_each(struct db *db, const char *params_json,
			  int (*fn)(const char *key, const char *value,
				    void *arg),
			  void *arg)
{
	sqlite3_stmt *st;
	int r;

	/* SQLite's own JSON reader: the JSON library stays in reports/. */
	r = prepare(db, "SELECT key, value FROM json_each(?1) "
			"WHERE type NOT IN ('object', 'array') ORDER BY id",
		    params_json, &st);
	if (r)
		return r;
	return pairs_each(db, st, fn, arg, "cannot read case params");
}

int db_report_boots_each(struct db *db, const char *label,
			 int (*fn)(const char *boot_id, const char *at,
				   void *arg),
			 void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db, "SELECT boot_id, min(started_at) AS at FROM runs "
		    "WHERE label = ?1 AND status = 'complete' GROUP BY boot_id "
		    "ORDER BY at, min(id)", label, &st);
	if (r)
		return r;
	return pairs_each(db, st, fn, arg, "cannot read the boots of a label");
}

/* Prepare sql with label as ?1 and boot_id as ?2. */
static int prepare_boot(struct db *db, const char *sql, const char *label,
			const char *boot_id, sqlite3_stmt **st)
{
	int r = prepare(db, sql, label, st);

	if (r)
		return r;
	if (sqlite3_bind_text(*st, 2, boot_id, -1, SQLITE_TRANSIENT)) {
		sqlite3_finalize(*st);
		return fail(db, "cannot bind a boot id");
	}
	return DB_OK;
}

int db_report_boot_runs(struct db *db, const char *label, const char *boot_id,
			struct db_boot_runs *out)
{
	sqlite3_stmt *st;
	int r;

	memset(out, 0, sizeof(*out));
	r = prepare_boot(db, "SELECT count(*) FILTER (WHERE status = "
			 "'complete'), count(*) FILTER (WHERE status <> "
			 "'complete') FROM runs WHERE label = ?1 AND boot_id "
			 "= ?2", label, boot_id, &st);
	if (r)
		return r;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		out->complete = sqlite3_column_int64(st, 0);
		out->other = sqlite3_column_int64(st, 1);
		r = sqlite3_step(st);
	}
	return step_end(db, st, r, "cannot count the runs of this boot");
}

int db_report_run_summary(struct db *db, const char *label,
			  const char *boot_id, struct db_run_summary *out)
{
	sqlite3_stmt *st;
	int r, found = 0;

	memset(out, 0, sizeof(*out));
	r = prepare_boot(db, "SELECT r.uuid, r.status, "
		    "coalesce(r.kernel_warnings, -1), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " c.status = 'done' AND NOT EXISTS (SELECT 1 FROM samples s "
		    " WHERE s.case_id = c.id AND s.valid = 0 AND "
		    " s.warmup = 0)), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " (c.status = 'failed' OR (c.status = 'done' AND EXISTS "
		    " (SELECT 1 FROM samples s WHERE s.case_id = c.id AND "
		    " s.valid = 0 AND s.warmup = 0)))), "
		    "(SELECT count(*) FROM cases c WHERE c.run_id = r.id AND "
		    " c.status = 'skipped') "
		    "FROM runs r WHERE r.label = ?1 AND r.boot_id = ?2 "
		    "ORDER BY r.id DESC LIMIT 1", label, boot_id, &st);
	if (r)
		return r;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		found = 1;
		snprintf(out->uuid, sizeof(out->uuid), "%s", col_text(st, 0));
		snprintf(out->status, sizeof(out->status), "%s",
			 col_text(st, 1));
		out->kernel_warnings = sqlite3_column_int64(st, 2);
		out->cases_valid = sqlite3_column_int64(st, 3);
		out->cases_invalid = sqlite3_column_int64(st, 4);
		out->cases_skipped = sqlite3_column_int64(st, 5);
		r = sqlite3_step(st);
	}
	r = step_end(db, st, r, "cannot read the run of this boot");
	if (r)
		return r;
	return found ? DB_OK : DB_MISSING;
}

int db_report_noisy(struct db *db, const char *label, int64_t *noisy,
		    int64_t *total)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT coalesce(sum(s.noisy), 0), count(*) FROM runs r "
		    "JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 1", label, &st);
	if (r)
		return r;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*noisy = sqlite3_column_int64(st, 0);
		*total = sqlite3_column_int64(st, 1);
		r = SQLITE_DONE;
	}
	return step_end(db, st, r, "cannot count noisy samples");
}

int db_report_bounded_each(struct db *db, const char *label,
			   int (*fn)(const char *workload, const char *params,
				     void *),
			   void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT DISTINCT c.workload, c.params FROM runs r "
		    "JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 1 "
		    "AND json_extract(s.verify, '$.coverage_bounded') = 1 "
		    "ORDER BY c.workload, c.params", label, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(col_text(st, 0), col_text(st, 1), arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read samples");
}

int db_report_shapes_each(struct db *db, const char *label,
			  int (*fn)(const char *shape, void *arg), void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT DISTINCT topology_shape FROM runs WHERE label = ?1 "
		    "AND status = 'complete' AND topology_shape != '' "
		    "ORDER BY 1", label, &st);
	if (r)
		return r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int stop = fn(col_text(st, 0), arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read topologies");
}

int db_report_workers_each(struct db *db, const char *label, bool drop_noisy,
			   int (*fn)(const struct db_report_worker *, void *),
			   void *arg)
{
	sqlite3_stmt *st;
	int r;

	r = prepare(db,
		    "SELECT c.workload, c.params, w.worker, w.pu, w.wall_ns, "
		    "s.workers FROM runs r JOIN cases c ON c.run_id = r.id "
		    "JOIN samples s ON s.case_id = c.id "
		    "JOIN sample_workers w ON w.sample_id = s.id "
		    "WHERE r.label = ?1 AND r.status = 'complete' "
		    "AND s.warmup = 0 AND s.valid = 1 "
		    "AND (?2 = 0 OR s.noisy = 0) "
		    "ORDER BY c.workload, c.params, w.worker, r.started_at, "
		    "s.rep", label, &st);
	if (r)
		return r;
	sqlite3_bind_int(st, 2, drop_noisy);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct db_report_worker w = {
			.workload = col_text(st, 0),
			.params = col_text(st, 1),
			.worker = sqlite3_column_int(st, 2),
			.pu = sqlite3_column_int(st, 3),
			.wall_ns = sqlite3_column_int64(st, 4),
			.workers = sqlite3_column_int(st, 5),
		};
		int stop = fn(&w, arg);

		if (stop) {
			sqlite3_finalize(st);
			return stop;
		}
	}
	return step_end(db, st, r, "cannot read workers");
}
