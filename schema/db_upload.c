/*
 * The outbox and the queries of an upload.  Claims are taken inside BEGIN
 * IMMEDIATE, so two uploaders serialise on SQLite's write lock and never
 * pick the same row.
 */
#include "db_upload.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/common.h"
#include "db_priv.h"

static int prepare(struct db *db, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(db->h, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(db, "cannot prepare an upload query");
	return DB_OK;
}

static int64_t now_s(void)
{
	return (int64_t)time(NULL);
}

/* A claim stands while its lease runs and its process (here) lives. */
static bool claim_stands(sqlite3_stmt *st, const struct db_upload_want *w,
			 int *dead_pid)
{
	int64_t pid, until;

	*dead_pid = 0;
	if (sqlite3_column_type(st, 6) == SQLITE_NULL)
		return false;
	pid = sqlite3_column_int64(st, 6);
	until = sqlite3_column_int64(st, 7);
	if (until < now_s()) {
		*dead_pid = (int)pid;
		return false;
	}
	if (!strcmp(db_col_text(st, 5), w->host) && pid > 0 &&
	    kill((pid_t)pid, 0) && errno == ESRCH) {
		*dead_pid = (int)pid;
		return false;
	}
	return true;
}

static bool skipped(const struct db_upload_want *w, int64_t id)
{
	for (size_t i = 0; i < w->nskip; i++)
		if (w->skip[i] == id)
			return true;
	return false;
}

int db_upload_claim(struct db *db, const struct db_upload_want *w,
		    struct db_upload_claim *c, int *busy)
{
	sqlite3_stmt *st = NULL;
	int r, dead, ret;

	memset(c, 0, sizeof(*c));
	c->run_id = -1;
	*busy = 0;
	ret = db_stmt(db, "BEGIN IMMEDIATE", "");
	if (ret)
		return ret;
	if ((ret = prepare(db, "SELECT u.run_id, r.uuid, r.label, r.hostname, "
		    "u.attempts, u.claim_host, u.claim_pid, u.claim_until "
		    "FROM uploads u JOIN runs r ON r.id = u.run_id "
		    "WHERE u.target = ?1 AND r.status = 'complete' "
		    "AND (u.state = 'pending' OR (?2 AND u.state = 'failed')) "
		    "AND (?3 IS NULL OR r.uuid = ?3) "
		    "ORDER BY r.started_at, r.id", &st)))
		goto err;
	sqlite3_bind_text(st, 1, w->target, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, w->failed_too);
	if (w->uuid)
		sqlite3_bind_text(st, 3, w->uuid, -1, SQLITE_TRANSIENT);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (skipped(w, id))
			continue;
		if (claim_stands(st, w, &dead)) {
			(*busy)++;
			continue;
		}
		c->run_id = id;
		snprintf(c->uuid, sizeof(c->uuid), "%s", db_col_text(st, 1));
		snprintf(c->label, sizeof(c->label), "%s", db_col_text(st, 2));
		snprintf(c->hostname, sizeof(c->hostname), "%s",
			 db_col_text(st, 3));
		c->attempts = sqlite3_column_int64(st, 4);
		c->took_over = dead;
		break;
	}
	if (r != SQLITE_ROW && r != SQLITE_DONE) {
		ret = db_fail(db, "cannot read the outbox");
		goto err;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (c->run_id >= 0 &&
	    (ret = db_stmt(db, "UPDATE uploads SET claim_host = ?, "
			   "claim_pid = ?, claim_until = ? WHERE run_id = ? "
			   "AND target = ?", "tiiit", w->host,
			   (int64_t)w->pid, now_s() + w->lease_s, c->run_id,
			   w->target)))
		goto err;
	if ((ret = db_stmt(db, "COMMIT", "")))
		goto err;
	return DB_OK;
err:
	{
		char keep[512];

		snprintf(keep, sizeof(keep), "%s", db->errbuf);
		sqlite3_finalize(st);
		db_stmt(db, "ROLLBACK", "");
		snprintf(db->errbuf, sizeof(db->errbuf), "%s", keep);
	}
	c->run_id = -1;
	return ret;
}

int db_upload_tried(struct db *db, const struct db_upload_want *w,
		    int64_t run_id, const char *error, const char *next_try)
{
	return db_stmt(db, "UPDATE uploads SET attempts = attempts + 1, "
		    "last_error = ?, next_try = ?, claim_until = ? "
		    "WHERE run_id = ? AND target = ? AND claim_pid = ? "
		    "AND claim_host = ?", "ttiitit", error, next_try,
		    now_s() + w->lease_s, run_id, w->target, (int64_t)w->pid,
		    w->host);
}

int db_upload_done(struct db *db, const struct db_upload_want *w,
		   int64_t run_id, const char *state, const char *error,
		   const char *reply, bool *lost)
{
	char now[32];
	int r;

	db_iso_now(now, sizeof(now));
	if ((r = db_stmt(db, "UPDATE uploads SET state = ?1, last_error = ?2, "
		 "reply = coalesce(?3, reply), sent_at = CASE ?1 WHEN 'sent' "
		 "THEN ?4 ELSE sent_at END, next_try = CASE ?1 WHEN 'pending' "
		 "THEN next_try END, claim_host = NULL, claim_pid = NULL, "
		 "claim_until = NULL WHERE run_id = ?5 AND target = ?6 "
		 "AND claim_pid = ?7 AND claim_host = ?8", "ttttitit", state,
		 error, reply, now, run_id, w->target, (int64_t)w->pid,
		 w->host)))
		return r;
	*lost = sqlite3_changes(db->h) == 0;
	return DB_OK;
}

int db_upload_queue(struct db *db, const char *uuid, const char *target,
		    char *status, size_t n)
{
	sqlite3_stmt *st;
	char now[32];
	int64_t id;
	int r;

	if ((r = prepare(db, "SELECT id, status FROM runs WHERE uuid = ?1",
			 &st)))
		return r;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(st);
	if (r != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (r == SQLITE_DONE)
			return DB_MISSING;
		return db_fail(db, "cannot read runs");
	}
	id = sqlite3_column_int64(st, 0);
	snprintf(status, n, "%s", db_col_text(st, 1));
	sqlite3_finalize(st);
	if (strcmp(status, "complete"))
		return DB_OK;
	db_iso_now(now, sizeof(now));
	return db_stmt(db, "INSERT OR IGNORE INTO uploads (run_id, target, "
		    "created_at) VALUES (?,?,?)", "itt", id, target, now);
}

int db_upload_count(struct db *db, const char *target, const char *state,
		    int64_t *n)
{
	sqlite3_stmt *st;
	int r;

	if ((r = prepare(db, "SELECT count(*) FROM uploads u JOIN runs r ON "
			 "r.id = u.run_id WHERE u.target = ?1 AND u.state = ?2 "
			 "AND r.status = 'complete'", &st)))
		return r;
	sqlite3_bind_text(st, 1, target, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_TRANSIENT);
	r = sqlite3_step(st);
	*n = sqlite3_column_int64(st, 0);
	if (r != SQLITE_ROW) {
		r = db_fail(db, "cannot count uploads");
		sqlite3_finalize(st);
		return r;
	}
	sqlite3_finalize(st);
	return DB_OK;
}

/* The first row's first column, the caller's to free; stops the walk. */
static int row_dup(struct db *db, sqlite3_stmt *st, void *arg)
{
	char **out = arg;

	(void)db;
	*out = xstrdup(db_col_text(st, 0));
	return 1;
}

/* One text column of one row, malloc'd; DB_MISSING when no row. */
static int one_text(struct db *db, const char *sql, const char *uuid,
		    int64_t id, char **out)
{
	int r;

	*out = NULL;
	r = uuid ? db_each(db, "cannot read the run", row_dup, out, sql, "t",
			   uuid) :
		   db_each(db, "cannot read the run", row_dup, out, sql, "i",
			   id);
	if (r == 1)
		return DB_OK;
	return r ? r : DB_MISSING;
}

/*
 * SQLite's JSON functions write the document: every number as SQLite
 * stores it, NULL for a value that was not measurable.  json() marks the
 * text columns that hold JSON, and every nested object, as JSON.
 */
#define BOOL(x) "json(CASE " x " WHEN 1 THEN 'true' ELSE 'false' END)"

int db_upload_values_check(struct db *db, const char *uuid)
{
	return db_values_check(db, "main", uuid);
}

int db_run_doc(struct db *db, const char *uuid, char **json)
{
	int r = db_values_check(db, "main", uuid);

	if (r)
		return r;
	return one_text(db,
		"SELECT json_object("
		"'format', 'foliobench-run', 'format_version', 1, "
		"'schema_version', (SELECT user_version FROM "
		"pragma_user_version), "
		"'run', json_object('uuid', r.uuid, 'label', r.label, "
		"'status', r.status, 'status_reason', r.status_reason, "
		"'started_at', r.started_at, 'ended_at', r.ended_at, "
		"'kernel', json_object('release', r.kernel_release, "
		"'version', r.kernel_version, 'cmdline', r.cmdline), "
		"'boot_id', r.boot_id, "
		"'machine', json_object('hostname', r.hostname, 'cpu_model', "
		"r.cpu_model, 'vcpus', r.vcpus, 'mem_bytes', r.mem_bytes, "
		"'virt', r.virt, 'topology', json(r.topology), "
		"'topology_shape', r.topology_shape), "
		"'thp', json(r.thp), 'tmpfs', r.tmpfs, "
		"'tool_version', r.tool_version, 'pid', r.pid, "
		"'config', json(r.config), "
		"'clock', coalesce((SELECT clock FROM run_vm WHERE run_id = "
		"r.id), 'time'), "
		"'vm', (SELECT json_object('accel', v.accel, 'accel_why', "
		"v.accel_why, 'shape', v.shape, 'kernel', v.kernel, "
		"'kernel_image', v.kernel_image, 'kernel_sha256', "
		"v.kernel_sha256, 'qemu_version', v.qemu_version, 'clock', "
		"v.clock, 'icount_shift', v.icount_shift) FROM run_vm v "
		"WHERE v.run_id = r.id)), "
		"'cases', (SELECT json_group_array(json(cj)) FROM ("
		" SELECT json_object('seq', c.seq, 'workload', c.workload, "
		" 'params', json(c.params), 'status', c.status, "
		" 'reason', c.reason, 'info', c.info, "
		" 'profile', json(c.profile), "
		" 'profile_stacks', (SELECT json_group_array(json_object("
		"  'stack', p.stack, 'count', p.count)) FROM (SELECT stack, "
		"  count FROM profile_stacks WHERE case_id = c.id "
		"  ORDER BY count DESC, stack) AS p), "
		" 'samples', (SELECT json_group_array(json(sj)) FROM ("
		"  SELECT json_object('rep', s.rep, 'warmup', " BOOL("s.warmup")
		"  , 'valid', " BOOL("s.valid") ", 'invalid_reason', "
		"  s.invalid_reason, 'cpu', s.cpu, 'taken_at', s.taken_at, "
		"  'verify', json(s.verify), 'workers', s.workers, "
		"  'noise', json(s.noise), 'noisy', " BOOL("s.noisy") ", "
		"  'profiled', " BOOL("s.profiled") ", "
		"  'per_worker', (SELECT json_group_array(json(wj)) FROM ("
		"   SELECT json_object('worker', w.worker, 'pu', w.pu, "
		"   'pu_checked', w.pu_checked, 'node', w.node, 'start_ns', "
		"   w.start_ns, 'wall_ns', w.wall_ns, 'nvcsw', w.nvcsw, "
		"   'nivcsw', w.nivcsw, 'migrations', w.migrations, 'valid', "
		    BOOL("w.valid") ", 'invalid_reason', w.invalid_reason, "
		"   'metrics', json(w.metrics)) AS wj FROM sample_workers w "
		"   WHERE w.sample_id = s.id ORDER BY w.worker)), "
		"  'metrics', (SELECT json_group_array(json(vj)) FROM ("
		"   SELECT json_object('name', " DB_V_METRIC ", 'value', "
		    DB_V_VALUE ", 'unit', " DB_V_UNIT ", 'better', "
		    DB_V_BETTER ", 'supported', " BOOL(DB_V_SUPPORTED) ") "
		"   AS vj FROM samples s1" DB_VALUES_OF("s1")
		"   WHERE s1.id = s.id ORDER BY v.key))"
		"  ) AS sj FROM samples s WHERE s.case_id = c.id "
		"  ORDER BY s.rep))"
		" ) AS cj FROM cases c WHERE c.run_id = r.id ORDER BY c.seq))"
		") FROM runs r WHERE r.uuid = ?1", uuid, 0, json);
}

int db_upload_metadata(struct db *db, int64_t run_id, char **json)
{
	/* SQUAD keeps metadata as strings; job_id makes a retry harmless */
	return one_text(db,
		"SELECT json_object('job_id', uuid, 'datetime', started_at, "
		"'label', label, 'kernel_release', kernel_release, "
		"'kernel_version', kernel_version, 'boot_id', boot_id, "
		"'hostname', hostname, 'cpu_model', cpu_model, "
		"'vcpus', CAST(vcpus AS TEXT), "
		"'mem_bytes', CAST(mem_bytes AS TEXT), 'virt', virt, "
		"'cmdline', cmdline, 'tmpfs', tmpfs, 'thp', thp, "
		"'tool', 'foliobench', 'tool_version', tool_version, "
		"'started_at', started_at, 'ended_at', coalesce(ended_at, ''), "
		"'clock', coalesce((SELECT CASE clock WHEN 'instructions' "
		"THEN 'instructions (icount shift=' || icount_shift || ')' "
		"END FROM run_vm WHERE run_id = runs.id), 'time')) "
		"FROM runs WHERE id = ?1", NULL, run_id, json);
}

/* "k=v,k=v" of a case's params; '%' and '/' escaped, as '/' ends a suite */
#define PARAMS_TEXT \
	"(SELECT group_concat(key || '=' || replace(replace(value, '%', " \
	"'%25'), '/', '%2F'), ',') FROM json_each(c.params))"

/* A value's place in the run: its sample's, then its own in the sample. */
#define VID "(s.id * 65536 + v.key)"

int db_upload_metrics_each(struct db *db, int64_t run_id,
			   int (*fn)(const struct db_upload_metric *, void *),
			   void *arg)
{
	struct db_upload_metric m = { 0 };
	char *workload = NULL, *params = NULL, *metric = NULL, *unit = NULL;
	double *vals = NULL;
	size_t alloc = 0;
	int64_t cid = -1;
	sqlite3_stmt *st;
	int r, stop = 0;

	/* one row a value: a case's metric in the order it was first met */
	if ((r = prepare(db,
		    "SELECT cid, workload, p, metric, unit, value FROM ("
		    " SELECT c.id AS cid, c.seq, c.workload, " PARAMS_TEXT
		    " AS p, " DB_V_METRIC " AS metric, " DB_V_UNIT " AS unit, "
		    DB_V_VALUE " AS value, s.rep, " VID " AS vid, "
		    " min(" VID ") OVER (PARTITION BY c.id, " DB_V_METRIC ") "
		    " AS first FROM cases c JOIN samples s ON s.case_id = c.id"
		    DB_VALUES_OF("s")
		    " WHERE c.run_id = ?1 AND s.warmup = 0 AND s.valid = 1 "
		    " AND " DB_V_SUPPORTED " = 1 AND " DB_V_VALUE
		    " IS NOT NULL) "
		    "ORDER BY seq, first, rep, vid", &st)))
		return r;
	sqlite3_bind_int64(st, 1, run_id);
	for (;;) {
		int64_t id = -1;
		const char *name = "";

		r = sqlite3_step(st);
		if (r == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			name = db_col_text(st, 3);
		}
		if (m.n && (id != cid || strcmp(name, metric))) {
			m.values = vals;
			stop = fn(&m, arg);
			m.n = 0;
			if (stop)
				break;
		}
		if (r != SQLITE_ROW)
			break;
		if (!m.n) {
			free(workload);
			free(params);
			free(metric);
			free(unit);
			cid = id;
			m.workload = workload = xstrdup(db_col_text(st, 1));
			m.params = params = xstrdup(db_col_text(st, 2));
			m.metric = metric = xstrdup(name);
			m.unit = unit = xstrdup(db_col_text(st, 4));
		}
		ALLOC_GROW(vals, m.n + 1, alloc);
		vals[m.n++] = sqlite3_column_double(st, 5);
	}
	if (!stop && r != SQLITE_DONE)
		stop = db_fail(db, "cannot read values");
	sqlite3_finalize(st);
	free(workload);
	free(params);
	free(metric);
	free(unit);
	free(vals);
	return stop;
}

struct check_walk {
	int (*fn)(const struct db_upload_check *, void *);
	void *arg;
};

static int row_check(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct check_walk *w = arg;
	struct db_upload_check k = {
		.workload = db_col_text(st, 0),
		.params = db_col_text(st, 1),
		.rep = sqlite3_column_int64(st, 2),
		.pass = sqlite3_column_int(st, 3),
		.reason = db_col_text(st, 4),
	};

	(void)db;
	return w->fn(&k, w->arg);
}

int db_upload_checks_each(struct db *db, int64_t run_id,
			  int (*fn)(const struct db_upload_check *, void *),
			  void *arg)
{
	struct check_walk w = { fn, arg };

	return db_each(db, "cannot read samples", row_check, &w,
		       "SELECT c.workload, " PARAMS_TEXT ", s.rep, s.valid, "
		       "s.invalid_reason, c.seq FROM cases c JOIN samples s ON "
		       "s.case_id = c.id WHERE c.run_id = ?1 AND s.warmup = 0 "
		       "UNION ALL SELECT c.workload, " PARAMS_TEXT ", -1, 0, "
		       "c.reason, c.seq FROM cases c WHERE c.run_id = ?1 AND "
		       "c.status = 'failed' ORDER BY 6, 3", "i", run_id);
}
