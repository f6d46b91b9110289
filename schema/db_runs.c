/* Reading runs back: `bench runs`, and a run's topology XML. */
#include "db.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/common.h"
#include "db_priv.h"

char *db_run_topology_xml(struct db *db, const char *uuid)
{
	sqlite3_stmt *st;
	char *out = NULL;

	if (sqlite3_prepare_v2(db->h, "SELECT topology_xml, topology_xml_zlib, "
			       "topology_xml_len FROM runs WHERE uuid = ?",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, uuid, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_BLOB) {
		const void *b = sqlite3_column_blob(st, 0);
		int n = sqlite3_column_bytes(st, 0);
		uLongf len = (uLongf)sqlite3_column_int64(st, 2);

		if (!sqlite3_column_int(st, 1))
			len = (uLongf)n;
		out = malloc(len + 1);
		if (out && sqlite3_column_int(st, 1)) {
			if (uncompress((Bytef *)out, &len, b, (uLong)n) !=
			    Z_OK) {
				free(out);
				out = NULL;
			}
		} else if (out) {
			memcpy(out, b, len);
		}
		if (out)
			out[len] = '\0';
	}
	sqlite3_finalize(st);
	return out;
}

int db_runs_each(struct db *db, int (*fn)(const struct db_run_row *, void *),
		 void *arg)
{
	sqlite3_stmt *st;
	int r = DB_OK;

	if (sqlite3_prepare_v2(db->h,
		"SELECT r.id, r.uuid, r.label, r.kernel_release, r.boot_id, "
		"r.status, r.started_at, r.ended_at, (SELECT count(*) FROM "
		"samples s JOIN cases c ON s.case_id = c.id WHERE c.run_id = "
		"r.id), (SELECT group_concat(u.target || ' ' || u.state || "
		"CASE WHEN u.state <> 'sent' AND u.last_error IS NOT NULL "
		"THEN ': ' || u.last_error || ' (' || u.attempts || "
		"CASE u.attempts WHEN 1 THEN ' try)' ELSE ' tries)' END "
		"ELSE '' END, '; ') FROM uploads u WHERE u.run_id = r.id), "
		"coalesce(r.kernel_warnings, -1), r.hostname, "
		"coalesce(r.pid, 0) FROM runs r ORDER BY r.id",
		-1, &st, NULL) != SQLITE_OK)
		return db_fail(db, "prepare");
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct db_run_row row = {
			.id = sqlite3_column_int64(st, 0),
			.uuid = (const char *)sqlite3_column_text(st, 1),
			.label = (const char *)sqlite3_column_text(st, 2),
			.kernel_release = (const char *)sqlite3_column_text(st, 3),
			.boot_id = (const char *)sqlite3_column_text(st, 4),
			.status = (const char *)sqlite3_column_text(st, 5),
			.started_at = (const char *)sqlite3_column_text(st, 6),
			.ended_at = (const char *)sqlite3_column_text(st, 7),
			.nsamples = sqlite3_column_int64(st, 8),
			.upload = (const char *)sqlite3_column_text(st, 9),
			.kernel_warnings = sqlite3_column_int64(st, 10),
			.hostname = (const char *)sqlite3_column_text(st, 11),
			.pid = sqlite3_column_int(st, 12),
		};

		r = fn(&row, arg);
		if (r)
			break;
	}
	sqlite3_finalize(st);
	return r;
}
