/*
 * schema/'s one error path: what SQLite says during an upload's queries
 * comes back as its DB_ code (busy, full), not as DB_ERR, so that bench
 * exits 75 for a database another process holds and 74 with the right
 * words for a full disk.  Real SQLite files: a second connection holds the
 * write lock; a page limit makes the file full.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/db.h"
#include "schema/db_upload.h"
#include "tap.h"

static void exec_or_die(sqlite3 *h, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK) {
		printf("# %s: %s\n", sql, msg ? msg : "?");
		exit(1);
	}
}

static void add_run(sqlite3 *h, const char *uuid, int label_len)
{
	char sql[1024];

	snprintf(sql, sizeof(sql), "INSERT INTO runs (uuid, label, "
		 "kernel_release, kernel_version, boot_id, hostname, "
		 "cpu_model, vcpus, mem_bytes, cmdline, thp, tmpfs, topology, "
		 "tool_version, config, pid, started_at, status) VALUES ('%s', "
		 "printf('%%.%dc', 'x'), 'r', 'v', 'b', 'h', 'c', 2, 1, '', "
		 "'{}', '', '{}', 'x', '{}', 1, '2026-01-01T00:00:00Z', "
		 "'complete')", uuid, label_len);
	exec_or_die(h, sql);
}

int main(void)
{
	struct db_upload_want w = { .target = "squad", .host = "h", .pid = 1,
				    .lease_s = 60 };
	struct db_upload_claim c;
	char path[256], status[32], sql[64], big[40000];
	struct db db;
	sqlite3 *other;
	bool lost;
	int r, busy;

	tap_plan(7);
	snprintf(path, sizeof(path), "/tmp/fb-unit-db-errors.%d.db",
		 (int)getpid());
	OK(db_open(&db, path, true) == DB_OK, "a fresh database opens");
	add_run(db.h, "u1", 2);
	OK(db_upload_queue(&db, "u1", "squad", status, sizeof(status)) ==
	   DB_OK, "run u1 queued");
	sqlite3_busy_timeout(db.h, 50);

	/* another process holds the write lock past the busy timeout */
	if (sqlite3_open(path, &other) != SQLITE_OK)
		return 1;
	exec_or_die(other, "BEGIN IMMEDIATE");
	r = db_upload_claim(&db, &w, &c, &busy);
	OK(r == DB_BUSY, "claiming on a locked file: DB_BUSY (got %d: %s)",
	   r, db_errmsg(&db));
	r = db_upload_done(&db, &w, 1, "sent", NULL, "201", &lost);
	OK(r == DB_BUSY, "recording on a locked file: DB_BUSY (got %d: %s)",
	   r, db_errmsg(&db));
	add_run(other, "u2", 2);
	exec_or_die(other, "COMMIT");
	exec_or_die(other, "BEGIN IMMEDIATE");
	r = db_upload_queue(&db, "u2", "squad", status, sizeof(status));
	OK(r == DB_BUSY, "queueing on a locked file: DB_BUSY (got %d: %s)",
	   r, db_errmsg(&db));
	exec_or_die(other, "COMMIT");
	sqlite3_close(other);
	r = db_upload_claim(&db, &w, &c, &busy);
	OK(r == DB_OK && c.run_id == 1, "unlocked: run 1 claimed (got %d)", r);

	/* the disk is full: not a page more (a row that needs some) */
	add_run(db.h, "u3", 2);
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %d", 1);
	exec_or_die(db.h, sql);
	memset(big, 't', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	r = db_upload_queue(&db, "u3", big, status, sizeof(status));
	OK(r == DB_FULL, "queueing on a full file: DB_FULL (got %d: %s)", r,
	   db_errmsg(&db));
	db_close(&db);
	unlink(path);
	strcat(path, "-wal");
	unlink(path);
	strcpy(path + strlen(path) - 4, "-shm");
	unlink(path);
	return tap_done();
}
