/*
 * Upload of complete runs to the lab's dashboard: SQUAD's submit API or
 * the run document as JSON, from the outbox, with retries.  The one file
 * that speaks HTTP (libcurl) is upload/http.c; upload/upload.c maps the
 * others.
 */
#ifndef FB_UPLOAD_H
#define FB_UPLOAD_H

#include <stdbool.h>

#include "common/common.h"
#include "common/dashboard.h"
#include "schema/db.h"

/*
 * What an upload ended with, in a range of its own as DB_* and REPORT_*
 * are (never mistaken for another layer's code or a -errno); the front
 * end maps it to an exit code.
 */
enum upload_status {
	UPLOAD_OK = 0,		/* every run wanted is at the dashboard: 0 */
	UPLOAD_PENDING = -5001,	/* some could not be delivered yet: 75 */
	UPLOAD_DENIED = -5002,	/* the dashboard refused the token: 77 */
	UPLOAD_REJECTED = -5003,	/* it rejected a run (bad data): 65 */
	UPLOAD_ECONFIG = -5004,	/* no token, a token file others read: 78 */
	UPLOAD_EDB = -5005,	/* the database failed: 74 */
	UPLOAD_ENORUN = -5006,	/* --run names no run: 67 */
	UPLOAD_EINCOMPLETE = -5007,	/* --run names a run not complete: 68 */
	UPLOAD_EINTERNAL = -5008,	/* libcurl could not start: 70 */
	UPLOAD_EBUSY = -5009,	/* the database stayed locked: 75 */
	UPLOAD_UNTRUSTED = -5010,	/* the server's certificate failed: 77 */
};

struct upload_opts {
	const char *uuid;	/* one run (queued first if it has no row) */
	bool failed_too;	/* retry rows left failed too */
	/* a line for people: a run sent, a retry, why a run stays */
	void (*say)(bool error, const char *msg, void *arg);
	void *arg;
};

struct upload_tally {
	int sent;		/* delivered now, duplicates included */
	int duplicate;		/* of those, the dashboard had already */
	int pending;		/* left pending (dashboard unreachable) */
	int denied, rejected;	/* left failed */
	int untrusted;		/* left pending: the certificate failed */
	int busy;		/* held by another uploader */
};

/*
 * Send every pending run of the configured target, oldest first (or only
 * opts->uuid).  Errors that stop it (no token, database) are in err; the
 * token never appears in err, in a message or in the database.
 */
enum upload_status upload_pending(struct db *db,
				  const struct dashboard_cfg *d,
				  const struct upload_opts *opts,
				  struct upload_tally *t, struct strbuf *err);

#endif
