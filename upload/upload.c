/*
 * The upload as a command: runs from the outbox to the dashboard (SQUAD's
 * submit API, or the run document to a JSON endpoint), each claimed under
 * a lease so two uploaders never send one run at once, tried up to
 * dashboard.max_attempts times with a wait between, then marked sent,
 * pending or failed.
 *
 * The upload's files, split as git splits http.c from remote-curl.c; each
 * calls only those below it, through its header:
 *
 *   upload.c    the command: the outbox's claims and leases, which runs,
 *               the tries and their waits, marking runs sent, pending or
 *               failed
 *   protocol.c  what is said to the dashboard and what its answers mean:
 *               the POST of a run, the verdict, SQUAD's REST check
 *   payload.c   what one run sends, made from the database: SQUAD's names,
 *               slugs and fields, or the run document
 *   token.c     the dashboard's token, from its variable or its file
 *   http.c      the transport, the one file that uses libcurl: a request,
 *               its timeouts and TLS, the reply, the backoff
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "upload/http.h"
#include "upload/payload.h"
#include "upload/protocol.h"
#include "upload/token.h"
#include "upload/upload.h"

static void say(const struct upload_opts *o, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct upload_opts *o, bool error, const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;

	if (!o->say)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	o->say(error, msg.buf, o->arg);
	strbuf_release(&msg);
}

static void iso_in(double s, char *buf, size_t n)
{
	time_t t = time(NULL) + (time_t)ceil(s);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* "what [uuid]: why", in the words of the database's code r. */
static void db_upload_say(const struct db *db, int r, struct strbuf *err,
			  const char *what, const char *uuid)
{
	strbuf_addf(err, "%s%s%s: ", what, uuid ? " " : "", uuid ? uuid : "");
	switch (r) {
	case DB_BUSY:
		strbuf_addf(err, "another process holds %s locked, still after "
			    "%d s (%s)", db->path, DB_BUSY_MS / 1000,
			    db_errmsg(db));
		break;
	case DB_FULL:
		strbuf_addf(err, "the disk holding %s is full (%s)", db->path,
			    db_errmsg(db));
		break;
	case DB_READONLY:
		strbuf_addf(err, "%s cannot be written: it or its file system "
			    "is read-only (%s)", db->path, db_errmsg(db));
		break;
	default:
		strbuf_addstr(err, db_errmsg(db));
	}
}

/* The upload_status of a DB_* code that stops the upload. */
static enum upload_status db_status(int dbr)
{
	return dbr == DB_BUSY ? UPLOAD_EBUSY : UPLOAD_EDB;
}

/*
 * Keep the verdict v on a run in the outbox and say it (after attempt
 * tries); 0 or the DB_* code that failed.
 */
static int record(struct db *db, const struct db_upload_want *w,
		  const struct db_upload_claim *c, enum verdict v,
		  const char *why, unsigned attempt,
		  const struct upload_opts *o, bool *lost)
{
	int dbr;

	switch (v) {
	case V_SENT:
	case V_DUP:
		if ((dbr = db_upload_tried(db, w, c->run_id, NULL, NULL)) ||
		    (dbr = db_upload_done(db, w, c->run_id, "sent", NULL, why,
					  lost)))
			return dbr;
		say(o, false, "sent run %s (%s) to %s: %s%s", c->uuid,
		    c->label, w->target, why, v == V_DUP ?
		    " (the dashboard had it already: a reply was lost)" : "");
		break;
	case V_RETRY:
		if ((dbr = db_upload_done(db, w, c->run_id, "pending", why,
					  NULL, lost)))
			return dbr;
		say(o, true, "run %s stays pending after %u %s: %s",
		    c->uuid, attempt, attempt == 1 ? "try" : "tries", why);
		break;
	case V_DENIED:
	case V_REJECTED:
	case V_UNTRUSTED:
		if ((dbr = db_upload_tried(db, w, c->run_id, why, NULL)) ||
		    (dbr = db_upload_done(db, w, c->run_id, "failed", why,
					  NULL, lost)))
			return dbr;
		say(o, true, "run %s failed: %s", c->uuid, why);
		break;
	}
	return 0;
}

/*
 * Try one claimed run up to max_attempts times: its verdict (0 or more),
 * or what stops the upload (UPLOAD_EINTERNAL, UPLOAD_EDB, UPLOAD_EBUSY;
 * err says why).
 */
static int send_run(struct db *db, const struct dashboard_cfg *d,
		    const struct db_upload_want *w,
		    const struct db_upload_claim *c, const struct token *tk,
		    const struct upload_opts *o, struct strbuf *err)
{
	struct payload p = { .metrics = STRBUF_INIT, .tests = STRBUF_INIT,
			     .more = STRBUF_INIT };
	struct strbuf why = STRBUF_INIT;	/* the answer, in words */
	struct reply r;
	char next[32];
	enum verdict v = V_RETRY;
	bool lost = false;
	unsigned attempt;
	int ret = UPLOAD_EINTERNAL, dbr;

	dbr = payload_build(db, d, c, &p);
	if (dbr && dbr != DB_ERR && dbr != DB_BADROW && dbr != UPLOAD_EROWS)
		goto dberr;	/* busy, full...: not the run's rows */
	if (dbr) {
		/* bad rows: this run waits for --failed, the others go on */
		err_setf(&why, "cannot make the upload of run "
			 "%s from its rows: %s", c->uuid,
			 dbr == UPLOAD_EROWS ? p.bad : db_errmsg(db));
		if ((dbr = db_upload_done(db, w, c->run_id, "failed", why.buf,
					  NULL, &lost)))
			goto dberr;
		say(o, true, "run %s failed: %s", c->uuid, why.buf);
		ret = V_REJECTED;
		goto out;
	}
	for (attempt = 1; attempt <= d->max_attempts; attempt++) {
		CURLcode cc = upload_post(d, &p, c, tk, &r);
		double s;

		if (http_broken(cc)) {
			strbuf_addf(err, "libcurl cannot post: %s",
				    http_error(NULL, cc));
			goto out;
		}
		v = upload_judge(d, &p, cc, &r, tk, &why);
		if (v != V_RETRY)
			break;
		s = http_wait_s(d, attempt, &r);
		if (attempt == d->max_attempts) {
			if ((dbr = db_upload_tried(db, w, c->run_id, why.buf,
						   NULL)))
				goto dberr;
			break;
		}
		iso_in(s, next, sizeof(next));
		if ((dbr = db_upload_tried(db, w, c->run_id, why.buf,
					   next)))
			goto dberr;
		say(o, true, "run %s: try %u of %u: %s; again in %.3g s",
		    c->uuid, attempt, d->max_attempts, why.buf, s);
		http_sleep_s(s);
	}
	/* the test run SQUAD has may be what a failed try left of it */
	if (v == V_DUP && d->target == DASHBOARD_SQUAD)
		v = squad_check(d, &p, c, tk, &why);
	if (attempt > d->max_attempts)
		attempt = d->max_attempts;
	if ((dbr = record(db, w, c, v, strbuf_str(&why), attempt, o,
			  &lost)))
		goto dberr;
	if (lost)
		say(o, true, "run %s: another uploader took the claim over "
		    "meanwhile (it ran past its lease)", c->uuid);
	ret = (int)v;
	goto out;
dberr:
	db_upload_say(db, dbr, err, "cannot record the upload of run",
		      c->uuid);
	ret = db_status(dbr);
out:
	strbuf_release(&why);
	payload_release(&p);
	explicit_bzero(&r, sizeof(r));
	return ret;
}

/* Longest a claim may need: every try timing out, every wait at its top. */
static int64_t lease_s(const struct dashboard_cfg *d)
{
	double top = (double)d->backoff_ns * (1u << BACKOFF_DOUBLINGS);
	double one = (double)(d->timeout_ns + d->connect_timeout_ns);

	if ((double)d->retry_after_max_ns > top)
		top = (double)d->retry_after_max_ns;
	/* the tries, and three questions to SQUAD's REST API after them */
	return (int64_t)(((double)d->max_attempts * (one + top) +
			  3.0 * one) / 1e9) + 60;
}

/* --run UUID: queue the run for target; UPLOAD_OK, or why it cannot be. */
static enum upload_status queue_one(struct db *db, const char *uuid,
				    const char *target, struct strbuf *err)
{
	char status[32];
	int r;

	r = db_upload_queue(db, uuid, target, status, sizeof(status));
	if (r == DB_MISSING) {
		strbuf_addf(err, "no run %s in %s", uuid, db->path);
		return UPLOAD_ENORUN;
	}
	if (r) {
		db_upload_say(db, r, err, "cannot queue run", uuid);
		return db_status(r);
	}
	if (strcmp(status, "complete")) {
		strbuf_addf(err, "run %s is %s: only complete runs are "
			    "uploaded", uuid, status);
		return UPLOAD_EINCOMPLETE;
	}
	return UPLOAD_OK;
}

/*
 * Count a run's verdict in t; true when the next runs would meet the
 * same refusal (the token, the certificate) and the upload stops.
 */
static bool tally(struct upload_tally *t, enum verdict v)
{
	t->sent += v == V_SENT || v == V_DUP;
	t->duplicate += v == V_DUP;
	t->pending += v == V_RETRY;
	t->rejected += v == V_REJECTED;
	t->denied += v == V_DENIED;
	t->untrusted += v == V_UNTRUSTED;
	return v == V_DENIED || v == V_UNTRUSTED;
}

/* Claim and send runs one by one until none is left or one stops it. */
static enum upload_status send_claimed(struct db *db,
				       const struct dashboard_cfg *d,
				       struct db_upload_want *w,
				       const struct token *tk,
				       const struct upload_opts *o,
				       struct upload_tally *t,
				       struct strbuf *err)
{
	struct db_upload_claim c;
	enum upload_status ret = UPLOAD_OK;
	int64_t *skip = NULL;
	size_t nskip = 0, askip = 0;
	int r, busy = 0;

	for (;;) {
		w->skip = skip;
		w->nskip = nskip;
		if ((r = db_upload_claim(db, w, &c, &busy))) {
			db_upload_say(db, r, err, "cannot claim an upload",
				      NULL);
			ret = db_status(r);
			break;
		}
		if (c.run_id < 0)
			break;
		if (c.took_over)
			say(o, true, "run %s: taking over from uploader pid %d, "
			    "which is gone or ran past its lease", c.uuid,
			    c.took_over);
		ALLOC_GROW(skip, nskip + 1, askip);
		skip[nskip++] = c.run_id;
		r = send_run(db, d, w, &c, tk, o, err);
		if (r < 0) {
			ret = r;
			break;
		}
		if (tally(t, r))
			break;
	}
	t->busy = busy;
	free(skip);
	return ret;
}

enum upload_status upload_pending(struct db *db,
				  const struct dashboard_cfg *d,
				  const struct upload_opts *o,
				  struct upload_tally *t, struct strbuf *err)
{
	struct db_upload_want w = { 0 };
	struct token tk = { { 0 } };
	enum upload_status ret;
	char host[256] = "";

	memset(t, 0, sizeof(*t));
	w.target = dashboard_target_name(d->target);
	if (!w.target) {
		strbuf_addf(err, "no dashboard is configured (add a "
			    "\"dashboard\" section to the config)");
		return UPLOAD_ECONFIG;
	}
	if (o->uuid && (ret = queue_one(db, o->uuid, w.target, err)))
		return ret;
	if (d->ca_file && access(d->ca_file, R_OK)) {
		strbuf_addf(err, "cannot read dashboard.ca_file %s: %s",
			    d->ca_file, strerror(errno));
		return UPLOAD_ECONFIG;
	}
	if (token_load(d, &tk, err)) {
		ret = UPLOAD_ECONFIG;
		goto out;
	}
	if (http_init()) {
		strbuf_addf(err, "libcurl cannot start");
		ret = UPLOAD_EINTERNAL;
		goto out;
	}
	gethostname(host, sizeof(host) - 1);
	w.uuid = o->uuid;
	w.failed_too = o->failed_too || o->uuid;
	w.host = host;
	w.pid = (int)getpid();
	w.lease_s = lease_s(d);
	ret = send_claimed(db, d, &w, &tk, o, t, err);
	http_cleanup();
	if (ret == UPLOAD_OK)
		ret = t->denied ? UPLOAD_DENIED : t->untrusted ?
		      UPLOAD_UNTRUSTED : t->rejected ?
		      UPLOAD_REJECTED : t->pending ? UPLOAD_PENDING : UPLOAD_OK;
out:
	explicit_bzero(&tk, sizeof(tk));
	return ret;
}

