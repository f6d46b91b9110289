/*
 * What one run sends (payload.c), made from its rows in the database.
 */
#ifndef FB_UPLOAD_PAYLOAD_H
#define FB_UPLOAD_PAYLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"
#include "common/dashboard.h"
#include "reports/compare.h"
#include "schema/db_upload.h"

#define SLUG_MAX	100	/* SQUAD's slug and version fields */
#define SLUG_BUF	(SLUG_MAX * 4 + 8)	/* a slug too long, escaped */

/*
 * Within the upload, beside DB_* in one int: a run's rows cannot make a
 * document (p->bad says why).  Never returned by upload_pending().
 */
#define UPLOAD_EROWS	(-5100)

/* What one run sends: the URL, and the body or SQUAD's three fields. */
struct payload {
	char *url;
	char *shown;			/* url for messages: query masked */
	char build[SLUG_BUF];		/* squad: the build's version */
	char *doc;			/* json target */
	char *metadata;			/* squad */
	struct strbuf metrics, tests;
	struct strbuf more;		/* metadata: params of cut names */
	uint64_t *longs;		/* hashes of the params in more */
	size_t nlongs, alongs;
	bool first_metric, first_test;
	size_t nmetrics, ntests;	/* names sent */
	char bad[1024];			/* why the run cannot be sent */
	struct report_clock clock;	/* the run's: timed or counted */
};

/* payload.c says what each returns. */
int payload_build(struct db *db, const struct dashboard_cfg *d,
		  const struct db_upload_claim *c, struct payload *p);
void payload_release(struct payload *p);
int dashboard_base_len(const struct dashboard_cfg *d);

#endif
