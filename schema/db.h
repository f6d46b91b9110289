/* The one place that speaks SQL: opening, migrating and writing results. */
#ifndef FB_DB_H
#define FB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

struct strbuf;

/*
 * An open database.  Callers hold it (by value) and pass it to db_*();
 * path is the name it was opened by; the rest is schema/'s: the message of
 * the last failure is read through db_errmsg(), errbuf is named nowhere
 * else (poisoned below outside schema/, whose objects the Makefile builds
 * with FB_SCHEMA_OWN).
 */
struct db {
	sqlite3 *h;
	char path[4096];
	char errbuf[512];	/* last error, for messages */
	bool tidy;		/* read-only: remove the -wal, -shm it made */
};

/*
 * What the database layer returns: 0 or one of these, in a range of their
 * own (never a -errno or another layer's code); bench/ and the runner map
 * them to exit codes.
 */
enum db_code {
	DB_OK = 0,
	DB_ERR = -1001,		/* I/O or SQLite error: db_errmsg() says */
	DB_TOO_NEW = -1002,	/* user_version above what this code knows */
	DB_MISSING = -1003,	/* file absent and create not asked */
	DB_NOT_DB = -1004,	/* not a foliobench/SQLite database */
	DB_FULL = -1005,	/* the disk (or the file system) is full */
	DB_BUSY = -1006,	/* locked by another process past the timeout */
	DB_READONLY = -1007,	/* the file or its file system is read-only */
	DB_CORRUPT = -1008,	/* damaged: truncated, or pages that make no sense */
	DB_BADROW = -1009,	/* a row no report can use: db_errmsg() names it */
};

/* How long a write waits for another process's lock before DB_BUSY. */
#define DB_BUSY_MS 10000

#define DB_SCHEMA_VERSION 16

/*
 * Open the database file at path (a file name, never a SQLite URI), WAL,
 * foreign keys; migrate an older foliobench schema.  create: make the file
 * and the schema where there are none (run, nightly, merge's output);
 * otherwise DB_MISSING.  A SQLite file of another program is DB_NOT_DB,
 * never made a foliobench database.
 */
int db_open(struct db *db, const char *path, bool create);
/*
 * The same for commands that only read: opened read-only, nothing written
 * (but the migration of an older foliobench schema, or the recovery of a
 * WAL or journal a killed writer left, which only a writer can do).
 */
int db_open_read(struct db *db, const char *path);
/*
 * Is path a name db_open takes: not empty, not ":memory:" (nothing would
 * be kept), a file name with room for its -journal beside it?  0 or -1
 * with why added to err.
 */
int db_path_check(const char *path, struct strbuf *err);
/*
 * A database is a regular file: DB_NOT_DB with why added to err ("it is a
 * directory", "it is not a regular file") for a directory or a device,
 * where SQLite would say "disk I/O error" or find an empty database; DB_OK
 * otherwise (also when path does not exist).
 */
int db_file_kind(const char *path, struct strbuf *err);
void db_close(struct db *db);
int db_schema_version(struct db *db);

/*
 * What the last call that failed on db said, for messages: the particulars
 * after the file's name and db_strerror()'s words ("database is locked",
 * "runs row 3 has no boot_id: ...").  Never NULL; "" before any failure.
 */
const char *db_errmsg(const struct db *db);

/* SQL without parameters (BEGIN, COMMIT...); DB_ERR with the message set. */
int db_exec(struct db *db, const char *sql);
/* The message = what + SQLite's message; returns DB_ERR. */
int db_fail(struct db *db, const char *what);
/* Roll the transaction back, keeping the error that made it fail. */
void db_rollback(struct db *db);

/* The run's facts, filled by the runner. */
struct db_run {
	char uuid[40];
	const char *label, *kernel_release, *kernel_version, *boot_id;
	const char *hostname, *cpu_model, *cmdline, *thp, *tmpfs, *topology;
	const char *tool_version, *config;
	const char *virt;	/* "VM", "bare metal" or "" */
	int vcpus;
	uint64_t mem_bytes;
	int pid;
};

int db_run_begin(struct db *db, const struct db_run *r, int64_t *run_id);
int db_run_end(struct db *db, int64_t run_id, const char *status,
	       const char *reason);
/* Add a line to the run's status_reason ("could not undo: ..."). */
int db_run_note(struct db *db, int64_t run_id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Mark a run complete and, when target is not NULL, queue its upload there
 * (the outbox row), in one transaction: a complete run always has its row.
 */
int db_run_complete(struct db *db, int64_t run_id, const char *target);
/*
 * Mark runs left 'running' on this host by a runner that is gone: of
 * another boot than boot_id, or whose pid alive() says is not the runner
 * that started at started_at (a runner with another state dir may be
 * running now).  n: how many.
 */
int db_mend_running(struct db *db, const char *hostname, const char *boot_id,
		    bool (*alive)(int pid, const char *started_at), int *n);

/* A kernel log line that showed a problem during a run (schema 5). */
struct db_kwarn {
	uint64_t seq, at_us;
	int prio;
	const char *line;
};
/*
 * Store the run's kernel warnings (again: lines already stored are kept
 * once) and set runs.kernel_warnings to how many the run has.
 */
int db_kwarn_store(struct db *db, int64_t run_id, const struct db_kwarn *w,
		   size_t n);

/*
 * A case, keyed by the params that ran; asked: the params the config asked
 * for, when preflight adapted them (NULL when the case ran as asked).
 */
int db_case_add(struct db *db, int64_t run_id, int seq, const char *workload,
		const char *params, const char *asked, int64_t *case_id);
int db_case_status(struct db *db, int64_t case_id, const char *status,
		   const char *reason, const char *info);

/* cases.profile: {"off": why} or the profile so far (schema 11). */
int db_case_profile(struct db *db, int64_t case_id, const char *json);

struct db_value {
	const char *metric, *unit, *better;
	double value;
	bool supported;
};

/* One sample and its values, in one transaction. */
int db_sample_add(struct db *db, int64_t case_id, int rep, bool warmup,
		  bool valid, const char *invalid_reason, int cpu,
		  const char *verify_json, const struct db_value *v, int nv);

/* One worker of a parallel sample. */
struct db_worker {
	int worker, pu, pu_checked, node;	/* pu_checked, node: -1 unknown */
	int64_t start_ns, wall_ns;
	int64_t nvcsw, nivcsw, migrations;	/* migrations -1: unknown */
	bool valid;
	const char *invalid_reason;
	const char *metrics_json;
};

/* A folded kernel call chain of a profiled call, and its samples. */
struct db_stack {
	const char *stack;
	uint64_t count;
};

/*
 * What schema 4 adds to a sample: its workers and noise record; schema 11:
 * whether its timed call was profiled, the call's stacks (added to the
 * case's) and the case's profile as it now stands.
 */
struct db_sample_more {
	int workers;
	const char *noise_json;		/* NULL: none */
	bool noisy;
	const struct db_worker *w;	/* [nw], may be 0 */
	int nw;
	bool profiled;
	const struct db_stack *stacks;	/* [nstacks], each stack once */
	size_t nstacks;
	const char *profile_json;	/* cases.profile; NULL: left as it is */
};

/* db_sample_add with the workers and the noise record (more may be NULL). */
int db_sample_add_more(struct db *db, int64_t case_id, int rep, bool warmup,
		       bool valid, const char *invalid_reason, int cpu,
		       const char *verify_json, const struct db_value *v,
		       int nv, const struct db_sample_more *more);

/*
 * The run's topology: its shape ("2 packages, ...") and the hwloc XML,
 * stored zlib-compressed when over 4 KiB.
 */
int db_run_topology(struct db *db, int64_t run_id, const char *shape,
		    const char *xml, size_t len);
/* The XML back, uncompressed (malloc'd, NUL-terminated); NULL if none. */
char *db_run_topology_xml(struct db *db, const char *uuid);

/* `bench runs`: call fn for each run, newest last. */
struct db_run_row {
	int64_t id;
	const char *uuid, *label, *kernel_release, *boot_id, *status;
	const char *started_at, *ended_at;
	const char *hostname;
	int pid;			/* the runner's; 0 where none stored */
	int64_t nsamples;
	int64_t kernel_warnings;	/* -1: the kernel log was not read */
	/* "squad sent", "json pending: why (3 tries)", NULL: no upload */
	const char *upload;
};
int db_runs_each(struct db *db, int (*fn)(const struct db_run_row *, void *),
		 void *arg);

/*
 * A row no report can use, found by a reader outside schema/ (a run
 * document that would break its schema): the message says which and why;
 * DB_BADROW.
 */
int db_bad_row(struct db *db, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The words for a DB_* code (never NULL), as messages put them after the
 * file's name, db_errmsg() then saying the particulars: "cannot read PATH:
 * another process holds it locked, still after 10 s (database is locked)".
 */
const char *db_strerror(int code);

/* Outside schema/, the message is db_errmsg()'s: errbuf cannot be named. */
#ifndef FB_SCHEMA_OWN
#pragma GCC poison errbuf
#endif

#endif
