/*
 * The upload outbox (`uploads`) and what an upload sends: the run
 * document, SQUAD's metadata, metrics and tests.  An uploader claims a row
 * before it sends it, so that two uploaders never send one run twice; a
 * claim whose lease ran out, or whose process on this host is gone, is
 * taken over.
 */
#ifndef FB_DB_UPLOAD_H
#define FB_DB_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* Who claims, and which rows. */
struct db_upload_want {
	const char *target;		/* "squad", "json" */
	const char *uuid;		/* one run, or NULL for all */
	bool failed_too;		/* also rows left 'failed' */
	const char *host;		/* this host and process */
	int pid;
	int64_t lease_s;		/* how long a claim holds */
	const int64_t *skip;		/* runs already tried this time */
	size_t nskip;
};

struct db_upload_claim {
	int64_t run_id;			/* -1: nothing left to claim */
	char uuid[40];
	char label[256];		/* SQUAD's build */
	char hostname[256];		/* SQUAD's default environment */
	int64_t attempts;		/* before this claim */
	int took_over;			/* pid of a dead claimer, or 0 */
};

/*
 * Claim the oldest row wanted that nobody else holds.  *busy counts the
 * rows wanted but held by a live uploader.
 */
int db_upload_claim(struct db *db, const struct db_upload_want *w,
		    struct db_upload_claim *c, int *busy);
/* One more try of a claimed row: its error (NULL: none) and next try. */
int db_upload_tried(struct db *db, const struct db_upload_want *w,
		    int64_t run_id, const char *error, const char *next_try);
/*
 * Leave a claimed row in state ('sent', 'pending', 'failed') and release
 * the claim.  *lost: the claim had been taken over meanwhile.
 */
int db_upload_done(struct db *db, const struct db_upload_want *w,
		   int64_t run_id, const char *state, const char *error,
		   const char *reply, bool *lost);
/*
 * Queue a run for target if it has no row yet.  DB_MISSING: no such run;
 * *status gets the run's status (a run that is not complete is never
 * queued).
 */
int db_upload_queue(struct db *db, const char *uuid, const char *target,
		    char *status, size_t n);
/* Rows of a target in a state ("pending", "failed"). */
int db_upload_count(struct db *db, const char *target, const char *state,
		    int64_t *n);

/* The run document (schema/run.schema.json), malloc'd. DB_MISSING: none. */
int db_run_doc(struct db *db, const char *uuid, char **json);
/* SQUAD's metadata object of a run: job_id, datetime and its facts. */
int db_upload_metadata(struct db *db, int64_t run_id, char **json);

/* Every value of the run checked as the reports check them: DB_BADROW. */
int db_upload_values_check(struct db *db, const char *uuid);

/*
 * Every valid measured value of one case and metric, in the order measured,
 * as stored (a double each), and the metric's unit.
 */
struct db_upload_metric {
	const char *workload, *params, *metric, *unit;
	const double *values;
	size_t n;
};
int db_upload_metrics_each(struct db *db, int64_t run_id,
			   int (*fn)(const struct db_upload_metric *, void *),
			   void *arg);

/*
 * Every verification: a measured sample (rep >= 0) that passed or not, and
 * a case that failed (rep -1).  params is "k=v,k=v".
 */
struct db_upload_check {
	const char *workload, *params, *reason;
	int64_t rep;
	bool pass;
};
int db_upload_checks_each(struct db *db, int64_t run_id,
			  int (*fn)(const struct db_upload_check *, void *),
			  void *arg);

#endif
