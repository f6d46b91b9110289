/*
 * Writing a run as the runner makes it: the run, its cases, samples,
 * workers, kernel warnings and topology.
 */
#include "db.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/common.h"
#include "db_priv.h"
#include "db_series.h"

int db_run_begin(struct db *db, const struct db_run *r, int64_t *run_id)
{
	char now[32];

	int rc;

	db_iso_now(now, sizeof(now));
	if ((rc = db_stmt(db, "INSERT INTO runs (uuid, label, kernel_release, "
		     "kernel_version, boot_id, hostname, cpu_model, vcpus, "
		     "mem_bytes, cmdline, thp, tmpfs, topology, tool_version, "
		     "config, pid, started_at, virt) VALUES "
		     "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
		     "tttttttiittttttitt", r->uuid, r->label, r->kernel_release,
		     r->kernel_version, r->boot_id, r->hostname, r->cpu_model,
		     (int64_t)r->vcpus, (int64_t)r->mem_bytes, r->cmdline,
		     r->thp, r->tmpfs, r->topology, r->tool_version, r->config,
		     (int64_t)r->pid, now, r->virt ? r->virt : "")))
		return rc;
	*run_id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

/* Roll back, keeping the error that made us; returns r. */
static int rollback_r(struct db *db, int r)
{
	char keep[512];

	snprintf(keep, sizeof(keep), "%s", db->errbuf);
	db_exec(db, "ROLLBACK");
	snprintf(db->errbuf, sizeof(db->errbuf), "%s", keep);
	return r;
}

static int rollback(struct db *db)
{
	return rollback_r(db, DB_ERR);
}

void db_rollback(struct db *db)
{
	rollback(db);
}

int db_run_end(struct db *db, int64_t run_id, const char *status,
	       const char *reason)
{
	char now[32];

	int r;

	db_iso_now(now, sizeof(now));
	if ((r = db_stmt(db, "UPDATE runs SET status = ?, status_reason = ?, "
			  "ended_at = ? WHERE id = ?", "ttti", status, reason,
			  now, run_id)))
		return r;
	/* cases left pending by an interruption */
	if ((r = db_stmt(db, "UPDATE cases SET status = 'aborted' WHERE "
			 "run_id = ? AND status = 'pending'", "i", run_id)))
		return r;
	/*
	 * Its values as the reports read them, now that no more come: all
	 * or none (a run without them is read from its samples), and never
	 * the reason a run is not recorded as ended.
	 */
	if (db_exec(db, "SAVEPOINT run_series"))
		return DB_OK;
	if (db_series_run(db, run_id))
		db_exec(db, "ROLLBACK TO run_series");
	db_exec(db, "RELEASE run_series");
	return DB_OK;
}

int db_run_note(struct db *db, int64_t run_id, const char *fmt, ...)
{
	char text[2048];
	va_list ap;

	if (!db->h)
		return DB_ERR;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return db_stmt(db, "UPDATE runs SET status_reason = CASE WHEN "
			"status_reason IS NULL OR status_reason = '' THEN ? "
			"ELSE status_reason || '; ' || ? END WHERE id = ?",
			"tti", text, text, run_id);
}

int db_run_complete(struct db *db, int64_t run_id, const char *target)
{
	char now[32];

	db_iso_now(now, sizeof(now));
	if (db_exec(db, "BEGIN IMMEDIATE"))
		return DB_ERR;
	if (db_run_end(db, run_id, "complete", NULL))
		return rollback(db);
	if (target && db_stmt(db, "INSERT OR IGNORE INTO uploads (run_id, "
			       "target, created_at) VALUES (?,?,?)", "itt",
			       run_id, target, now))
		return rollback(db);
	if (db_exec(db, "COMMIT"))
		return rollback(db);
	return DB_OK;
}

int db_mend_running(struct db *db, const char *hostname, const char *boot_id,
		    bool (*alive)(int pid, const char *started_at), int *n)
{
	sqlite3_stmt *st;
	int64_t *dead = NULL;
	size_t ndead = 0, i;
	char now[32];
	int r = DB_OK, rc;

	*n = 0;
	/* read and marked in one transaction: no runner ends a run between */
	if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL))
		return db_fail(db, "write");
	if (sqlite3_prepare_v2(db->h, "SELECT id, pid, boot_id, started_at "
			       "FROM runs WHERE status = 'running' AND "
			       "hostname = ?", -1, &st, NULL) != SQLITE_OK)
		return rollback_r(db, db_fail(db, "prepare"));
	sqlite3_bind_text(st, 1, hostname, -1, SQLITE_TRANSIENT);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *boot = (const char *)sqlite3_column_text(st, 2);
		const char *at = (const char *)sqlite3_column_text(st, 3);

		/* a runner of this boot still alive (another state dir) */
		if (boot && !strcmp(boot, boot_id) && at &&
		    sqlite3_column_type(st, 1) == SQLITE_INTEGER &&
		    alive(sqlite3_column_int(st, 1), at))
			continue;
		dead = xrealloc(dead, (ndead + 1) * sizeof(*dead));
		dead[ndead++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE)
		r = db_fail(db, "read the runs left running");
	sqlite3_finalize(st);
	db_iso_now(now, sizeof(now));
	for (i = 0; !r && i < ndead; i++) {
		r = db_stmt(db, "UPDATE cases SET status = 'aborted' WHERE "
			     "status = 'pending' AND run_id = ?", "i", dead[i]);
		if (!r)
			r = db_stmt(db, "UPDATE runs SET status = 'aborted', "
				     "status_reason = 'the runner died (found "
				     "at the next start)', ended_at = ? WHERE "
				     "id = ? AND status = 'running'", "ti", now,
				     dead[i]);
		if (!r)
			*n += sqlite3_changes(db->h);
	}
	free(dead);
	if (!r && (r = db_exec(db, "COMMIT")))
		*n = 0;
	return r ? rollback_r(db, r) : DB_OK;
}

int db_kwarn_store(struct db *db, int64_t run_id, const struct db_kwarn *w,
		   size_t n)
{
	size_t i;

	if (db_exec(db, "BEGIN IMMEDIATE"))
		return DB_ERR;
	for (i = 0; i < n; i++)
		if (db_stmt(db, "INSERT OR IGNORE INTO kernel_warnings (run_id, "
			     "seq, at_us, prio, line) VALUES (?,?,?,?,?)",
			     "iiiit", run_id, (int64_t)w[i].seq,
			     (int64_t)w[i].at_us, (int64_t)w[i].prio,
			     w[i].line))
			goto err;
	if (db_stmt(db, "UPDATE runs SET kernel_warnings = (SELECT count(*) "
		     "FROM kernel_warnings WHERE run_id = ?1) WHERE id = ?1",
		     "i", run_id))
		goto err;
	if (db_exec(db, "COMMIT"))
		goto err;
	return DB_OK;
err:
	db_rollback(db);
	return DB_ERR;
}

int db_case_add(struct db *db, int64_t run_id, int seq, const char *workload,
		const char *params, const char *asked, int64_t *case_id)
{
	int r = db_stmt(db, "INSERT INTO cases (run_id, seq, workload, "
			 "params, asked) VALUES (?,?,?,?,?)", "iittt", run_id,
			 (int64_t)seq, workload, params, asked);

	if (r)
		return r;
	*case_id = sqlite3_last_insert_rowid(db->h);
	return DB_OK;
}

int db_case_status(struct db *db, int64_t case_id, const char *status,
		   const char *reason, const char *info)
{
	return db_stmt(db, "UPDATE cases SET status = ?, reason = ?, "
			"info = coalesce(?, info) WHERE id = ?", "ttti", status,
			reason, info, case_id);
}

int db_case_profile(struct db *db, int64_t case_id, const char *json)
{
	return db_stmt(db, "UPDATE cases SET profile = ? WHERE id = ?", "ti",
		       json, case_id);
}

int db_sample_add(struct db *db, int64_t case_id, int rep, bool warmup,
		  bool valid, const char *invalid_reason, int cpu,
		  const char *verify_json, const struct db_value *v, int nv)
{
	return db_sample_add_more(db, case_id, rep, warmup, valid,
				  invalid_reason, cpu, verify_json, v, nv,
				  NULL);
}

static int add_workers(struct db *db, int64_t sid,
		       const struct db_sample_more *m)
{
	int i, r0;

	r0 = db_stmt(db, "UPDATE samples SET workers = ?, noise = ?, noisy = ? "
		      "WHERE id = ?", "itii", (int64_t)m->workers, m->noise_json,
		      (int64_t)m->noisy, sid);
	if (r0)
		return r0;
	for (i = 0; i < m->nw; i++) {
		const struct db_worker *w = &m->w[i];
		sqlite3_stmt *st;
		int r;

		if (sqlite3_prepare_v2(db->h, "INSERT INTO sample_workers "
				       "(sample_id, worker, pu, pu_checked, node, "
				       "start_ns, wall_ns, nvcsw, nivcsw, "
				       "migrations, valid, invalid_reason, "
				       "metrics) VALUES "
				       "(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
				       NULL) != SQLITE_OK)
			return db_fail(db, "prepare");
		sqlite3_bind_int64(st, 1, sid);
		sqlite3_bind_int(st, 2, w->worker);
		sqlite3_bind_int(st, 3, w->pu);
		if (w->pu_checked >= 0)
			sqlite3_bind_int(st, 4, w->pu_checked);
		if (w->node >= 0)
			sqlite3_bind_int(st, 5, w->node);
		sqlite3_bind_int64(st, 6, w->start_ns);
		sqlite3_bind_int64(st, 7, w->wall_ns);
		sqlite3_bind_int64(st, 8, w->nvcsw);
		sqlite3_bind_int64(st, 9, w->nivcsw);
		if (w->migrations >= 0)
			sqlite3_bind_int64(st, 10, w->migrations);
		sqlite3_bind_int(st, 11, w->valid);
		if (w->invalid_reason)
			sqlite3_bind_text(st, 12, w->invalid_reason, -1,
					  SQLITE_TRANSIENT);
		sqlite3_bind_text(st, 13, w->metrics_json, -1,
				  SQLITE_TRANSIENT);
		r = sqlite3_step(st);
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return db_fail(db, "write a worker");
	}
	return DB_OK;
}

/* A profiled call: its stacks added to the case's, the case's profile. */
static int add_profile(struct db *db, int64_t case_id, int64_t sid,
		       const struct db_sample_more *m)
{
	size_t i;
	int r;

	r = db_stmt(db, "UPDATE samples SET profiled = 1 WHERE id = ?", "i",
		    sid);
	for (i = 0; !r && i < m->nstacks; i++)
		r = db_stmt(db, "INSERT INTO profile_stacks (case_id, stack, "
			    "count) VALUES (?1, ?2, ?3) ON CONFLICT (case_id, "
			    "stack) DO UPDATE SET count = count + ?3", "iti",
			    case_id, m->stacks[i].stack,
			    (int64_t)m->stacks[i].count);
	if (!r && m->profile_json)
		r = db_case_profile(db, case_id, m->profile_json);
	return r;
}

int db_sample_add_more(struct db *db, int64_t case_id, int rep, bool warmup,
		       bool valid, const char *invalid_reason, int cpu,
		       const char *verify_json, const struct db_value *v,
		       int nv, const struct db_sample_more *more)
{
	struct strbuf vals = STRBUF_INIT;
	int64_t sid, layout = -1;
	char now[32];
	int r;

	db_iso_now(now, sizeof(now));
	r = db_exec(db, "BEGIN IMMEDIATE");
	if (r)
		return r;
	/* the values in the sample's own row (schema 15) */
	if (nv > 0 && (r = db_vals_make(db, v, nv, &layout, &vals)))
		goto err;
	r = db_stmt(db, "INSERT INTO samples (case_id, rep, warmup, valid, "
		     "invalid_reason, cpu, verify, taken_at, layout, vals) "
		     "VALUES (?,?,?,?,?,?,?,?,nullif(?,-1),?)", "iiiitittit",
		     case_id, (int64_t)rep, (int64_t)warmup, (int64_t)valid,
		     invalid_reason, (int64_t)cpu, verify_json, now, layout,
		     nv > 0 ? vals.buf : NULL);
	if (r)
		goto err;
	sid = sqlite3_last_insert_rowid(db->h);
	if (more) {
		r = add_workers(db, sid, more);
		if (!r && more->profiled)
			r = add_profile(db, case_id, sid, more);
		if (r)
			goto err;
	}
	r = db_exec(db, "COMMIT");
	if (r)
		goto err;
	strbuf_release(&vals);
	return DB_OK;
err:
	strbuf_release(&vals);
	return rollback_r(db, r);
}

/* Over this, the XML is stored compressed (a 32-vCPU VM's is ~30 KiB). */
#define XML_PLAIN_MAX	4096

int db_run_topology(struct db *db, int64_t run_id, const char *shape,
		    const char *xml, size_t len)
{
	sqlite3_stmt *st;
	uLongf zlen = compressBound((uLong)len);
	unsigned char *z = NULL;
	bool zipped = len > XML_PLAIN_MAX;
	int r;

	if (zipped) {
		z = malloc(zlen);
		if (!z || compress2(z, &zlen, (const Bytef *)xml, (uLong)len,
				    Z_BEST_COMPRESSION) != Z_OK) {
			free(z);
			snprintf(db->errbuf, sizeof(db->errbuf), "cannot compress "
				 "the topology (%zu bytes of XML)", len);
			return DB_ERR;
		}
	}
	if (sqlite3_prepare_v2(db->h, "UPDATE runs SET topology_shape = ?, "
			       "topology_xml = ?, topology_xml_zlib = ?, "
			       "topology_xml_len = ? WHERE id = ?", -1, &st,
			       NULL) != SQLITE_OK) {
		free(z);
		return db_fail(db, "prepare");
	}
	sqlite3_bind_text(st, 1, shape, -1, SQLITE_TRANSIENT);
	sqlite3_bind_blob(st, 2, zipped ? (const void *)z : (const void *)xml,
			  (int)(zipped ? zlen : len), SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 3, zipped);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)len);
	sqlite3_bind_int64(st, 5, run_id);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	free(z);
	return r == SQLITE_DONE ? DB_OK : db_fail(db, "write the topology");
}
