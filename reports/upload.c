/*
 * The upload: runs from the outbox to SQUAD's submit API or as the run
 * document to a JSON endpoint.  The one file that uses libcurl, in curl's
 * own shape: init, setopt, perform, check the HTTP code, cleanup.
 *
 * A run is marked sent only on a 2xx or on the dashboard's "already have
 * it" answer (SQUAD's duplicate job_id, a JSON endpoint's 409): the job_id
 * and the Idempotency-Key are the run's uuid, so a retry after a reply lost
 * on the way back never makes a second copy.
 */
#include "reports/upload.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "schema/db_upload.h"

#define TOKEN_MAX	4096
#define REPLY_KEEP	2048	/* bytes of a reply body kept for messages */
#define SHOW_MAX	200	/* characters of it shown */
#define SLUG_MAX	100	/* SQUAD's slug and version fields */
#define BACKOFF_DOUBLINGS 5	/* the wait stops growing at 32 times the first */

/* SQUAD's text for a job_id it already holds in that build. */
static const char squad_dup[] = "There is already a test run with job_id";

struct token {
	char v[TOKEN_MAX];
	char from[2200];	/* "the environment variable X", "the file Y" */
};

/* The token from its variable or file; the file readable by its owner only. */
static int token_load(const struct dashboard_cfg *d, struct token *tk,
		      struct strbuf *err)
{
	struct stat sb;
	ssize_t n;
	size_t len;
	int fd;

	if (d->token_file) {
		snprintf(tk->from, sizeof(tk->from), "the file %s",
			 d->token_file);
		fd = open(d->token_file, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &sb)) {
			strbuf_addf(err, "cannot read the dashboard token file "
				    "%s: %s", d->token_file, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (sb.st_mode & (S_IRGRP | S_IROTH)) {
			strbuf_addf(err, "refusing the dashboard token file %s: "
				    "it is readable by group or others (mode "
				    "%04o); chmod 600 %s", d->token_file,
				    (unsigned)(sb.st_mode & 07777),
				    d->token_file);
			close(fd);
			return -1;
		}
		n = read(fd, tk->v, sizeof(tk->v) - 1);
		close(fd);
		if (n < 0) {
			strbuf_addf(err, "cannot read the dashboard token file "
				    "%s: %s", d->token_file, strerror(errno));
			return -1;
		}
		tk->v[n] = '\0';
	} else {
		const char *e = getenv(d->token_env);

		snprintf(tk->from, sizeof(tk->from),
			 "the environment variable %s", d->token_env);
		if (!e || !*e) {
			strbuf_addf(err, "no dashboard token: the environment "
				    "variable %s is not set (dashboard."
				    "token_env)", d->token_env);
			return -1;
		}
		snprintf(tk->v, sizeof(tk->v), "%s", e);
	}
	len = strlen(tk->v);
	while (len && isspace((unsigned char)tk->v[len - 1]))
		tk->v[--len] = '\0';
	if (!len) {
		strbuf_addf(err, "no dashboard token: %s is empty", tk->from);
		return -1;
	}
	for (size_t i = 0; i < len; i++)
		if (iscntrl((unsigned char)tk->v[i])) {
			strbuf_addf(err, "the dashboard token in %s holds a "
				    "control character", tk->from);
			return -1;
		}
	return 0;
}

/* A reply's text for a message: one line, printable, token blanked. */
static void show_text(const char *in, const struct token *tk, char *out,
		      size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = in, *hit;
	size_t tl = strlen(tk->v), i = 0;

	while (tl && (hit = strstr(p, tk->v))) {
		strbuf_addf(&sb, "%.*s<token>", (int)(hit - p), p);
		p = hit + tl;
	}
	strbuf_addf(&sb, "%s", p);
	for (p = strbuf_str(&sb); *p && i + 1 < n && i < SHOW_MAX; p++) {
		if (iscntrl((unsigned char)*p)) {
			if (i && out[i - 1] != ' ')
				out[i++] = ' ';
		} else {
			out[i++] = *p;
		}
	}
	while (i && out[i - 1] == ' ')
		i--;
	out[i] = '\0';
	strbuf_release(&sb);
}

/* SQUAD's slug rule [a-zA-Z0-9][a-zA-Z0-9_.-]*: other characters become -. */
static void slug(const char *in, char *out, size_t n)
{
	size_t i = 0;

	if (!isalnum((unsigned char)*in) && n > 1)
		out[i++] = 'x';
	for (; *in && i + 1 < n && i < SLUG_MAX; in++)
		out[i++] = isalnum((unsigned char)*in) || *in == '_' ||
			   *in == '.' || *in == '-' ? *in : '-';
	out[i] = '\0';
}

/* What one run sends: the URL, and the body or SQUAD's three fields. */
struct payload {
	char url[4096];
	char *doc;			/* json target */
	char *metadata;			/* squad */
	struct strbuf metrics, tests;
	bool first_metric, first_test;
};

static void payload_release(struct payload *p)
{
	free(p->doc);
	free(p->metadata);
	strbuf_release(&p->metrics);
	strbuf_release(&p->tests);
}

/* "shmem-remove/wall[op=unlink,size=16M,...]": the suite is the workload. */
static int add_metric(const struct db_upload_metric *m, void *arg)
{
	struct payload *p = arg;
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "%s/%s[%s]", m->workload, m->metric, m->params);
	strbuf_addf(&p->metrics, "%s", p->first_metric ? "{" : ",");
	strbuf_json_str(&p->metrics, strbuf_str(&key));
	strbuf_addf(&p->metrics, ":%s", m->values);
	p->first_metric = false;
	strbuf_release(&key);
	return 0;
}

/* "shmem-remove/verify-rep2[...]": pass, or fail for an invalid sample. */
static int add_check(const struct db_upload_check *k, void *arg)
{
	struct payload *p = arg;
	struct strbuf key = STRBUF_INIT;

	if (k->rep >= 0)
		strbuf_addf(&key, "%s/verify-rep%lld[%s]", k->workload,
			    (long long)k->rep, k->params);
	else
		strbuf_addf(&key, "%s/case[%s]", k->workload, k->params);
	strbuf_addf(&p->tests, "%s", p->first_test ? "{" : ",");
	strbuf_json_str(&p->tests, strbuf_str(&key));
	strbuf_addf(&p->tests, ":\"%s\"", k->pass ? "pass" : "fail");
	p->first_test = false;
	strbuf_release(&key);
	return 0;
}

static int payload_build(struct db *db, const struct dashboard_cfg *d,
			 const struct db_upload_claim *c, struct payload *p)
{
	char build[SLUG_MAX + 2], env[SLUG_MAX + 2];
	size_t ul = strlen(d->url);

	while (ul && d->url[ul - 1] == '/')
		ul--;
	p->first_metric = p->first_test = true;
	if (d->target == DASHBOARD_JSON) {
		snprintf(p->url, sizeof(p->url), "%s", d->url);
		return db_run_doc(db, c->uuid, &p->doc);
	}
	slug(c->label, build, sizeof(build));
	slug(d->environment ? d->environment : c->hostname, env, sizeof(env));
	snprintf(p->url, sizeof(p->url), "%.*s/api/submit/%s/%s/%s/%s",
		 (int)ul, d->url, d->group, d->project, build, env);
	if (db_upload_metadata(db, c->run_id, &p->metadata) ||
	    db_upload_metrics_each(db, c->run_id, add_metric, p) ||
	    db_upload_checks_each(db, c->run_id, add_check, p))
		return DB_ERR;
	strbuf_addf(&p->metrics, "%s", p->first_metric ? "{}" : "}");
	strbuf_addf(&p->tests, "%s", p->first_test ? "{}" : "}");
	return DB_OK;
}

/* What came back from one POST. */
struct reply {
	long code;			/* HTTP status; 0: no answer */
	char body[REPLY_KEEP];
	size_t len;
	double retry_after;		/* seconds; < 0: none given */
	char curl_err[CURL_ERROR_SIZE];
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct reply *r = arg;
	size_t len = size * n, room = sizeof(r->body) - 1 - r->len;

	memcpy(r->body + r->len, data, len < room ? len : room);
	r->len += len < room ? len : room;
	r->body[r->len] = '\0';
	return len;
}

/* Retry-After: seconds, or an HTTP date. */
static size_t on_header(char *data, size_t size, size_t n, void *arg)
{
	static const char name[] = "retry-after:";
	struct reply *r = arg;
	size_t len = size * n;
	char val[128];
	char *end;
	double s;

	if (len <= sizeof(name) - 1 || strncasecmp(data, name, sizeof(name) - 1))
		return len;
	snprintf(val, sizeof(val), "%.*s", (int)(len - (sizeof(name) - 1)),
		 data + sizeof(name) - 1);
	s = strtod(val, &end);
	if (end != val && s >= 0 && isfinite(s)) {
		r->retry_after = s;
	} else {
		time_t t = curl_getdate(val, NULL);

		if (t != -1)
			r->retry_after = t > time(NULL) ?
					 (double)(t - time(NULL)) : 0;
	}
	return len;
}

static long ms(uint64_t ns)
{
	return (long)(ns / 1000000u);
}

/* One POST of the payload: 0 with r->code, or the curl error. */
static CURLcode post(const struct dashboard_cfg *d, const struct payload *p,
		     const struct db_upload_claim *c, const struct token *tk,
		     struct reply *r)
{
	char auth[TOKEN_MAX + 64], idem[96];
	struct curl_slist *hdr = NULL, *h;
	curl_mime *mime = NULL;
	curl_mimepart *part;
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	CURL *curl;

	memset(r, 0, sizeof(*r));
	r->retry_after = -1;
	curl = curl_easy_init();
	if (!curl)
		return CURLE_FAILED_INIT;
	if (d->target == DASHBOARD_SQUAD)
		snprintf(auth, sizeof(auth), "Auth-Token: %s", tk->v);
	else
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tk->v);
	snprintf(idem, sizeof(idem), "Idempotency-Key: %s", c->uuid);
	/* no "Expect: 100-continue": a server that ignores it costs 1 s */
	h = curl_slist_append(hdr, auth);
	if (!h)
		goto out;
	hdr = h;
	if (!(h = curl_slist_append(hdr, "Expect:")))
		goto out;
	if (d->target == DASHBOARD_JSON &&
	    (!(h = curl_slist_append(hdr, idem)) ||
	     !(h = curl_slist_append(hdr, "Content-Type: application/json"))))
		goto out;
	cc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
	if (cc)
		goto out;
	curl_easy_setopt(curl, CURLOPT_URL, p->url);
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, ms(d->timeout_ns));
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
			 ms(d->connect_timeout_ns));
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
	if (d->ca_file)
		curl_easy_setopt(curl, CURLOPT_CAINFO, d->ca_file);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "foliobench");
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, r->curl_err);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(curl, CURLOPT_HEADERDATA, r);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, hdr);
	if (d->target == DASHBOARD_JSON) {
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, p->doc);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(p->doc));
	} else {
		const char *names[] = { "metadata", "metrics", "tests" };
		const char *vals[] = { p->metadata, strbuf_str(&p->metrics),
				       strbuf_str(&p->tests) };

		cc = CURLE_OUT_OF_MEMORY;
		mime = curl_mime_init(curl);
		if (!mime)
			goto out;
		for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
			part = curl_mime_addpart(mime);
			if (!part || curl_mime_name(part, names[i]) ||
			    curl_mime_data(part, vals[i],
					   CURL_ZERO_TERMINATED))
				goto out;
		}
		curl_easy_setopt(curl, CURLOPT_MIMEPOST, mime);
	}
	cc = curl_easy_perform(curl);
	if (cc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->code);
out:
	curl_easy_cleanup(curl);
	curl_mime_free(mime);
	curl_slist_free_all(hdr);
	explicit_bzero(auth, sizeof(auth));
	return cc;
}

enum verdict { V_SENT, V_DUP, V_RETRY, V_DENIED, V_REJECTED };

/* What an answer means; why gets the message for people. */
static enum verdict judge(const struct dashboard_cfg *d, const struct payload *p,
			  CURLcode cc, const struct reply *r,
			  const struct token *tk, char *why, size_t n)
{
	char text[SHOW_MAX + 16];

	show_text(r->body, tk, text, sizeof(text));
	if (cc != CURLE_OK) {
		snprintf(why, n, "cannot reach %s: %s", p->url,
			 r->curl_err[0] ? r->curl_err : curl_easy_strerror(cc));
		return V_RETRY;
	}
	if (r->code >= 200 && r->code < 300) {
		snprintf(why, n, "%ld%s%s", r->code, text[0] ? " " : "", text);
		return V_SENT;
	}
	if ((d->target == DASHBOARD_SQUAD && r->code == 400 &&
	     strstr(r->body, squad_dup)) ||
	    (d->target == DASHBOARD_JSON && r->code == 409)) {
		snprintf(why, n, "%ld%s%s", r->code, text[0] ? " " : "", text);
		return V_DUP;
	}
	if (r->code == 408 || r->code == 429 || r->code >= 500) {
		snprintf(why, n, "%s answered %ld%s%s", p->url, r->code,
			 text[0] ? ": " : "", text);
		return V_RETRY;
	}
	if (r->code == 401 || r->code == 403) {
		snprintf(why, n, "the dashboard refused the token from %s "
			 "(%ld%s%s)", tk->from, r->code, text[0] ? ": " : "",
			 text);
		return V_DENIED;
	}
	if (r->code >= 300 && r->code < 400)
		snprintf(why, n, "%s answered %ld (a redirect, not followed "
			 "for a POST): set dashboard.url to where it leads",
			 p->url, r->code);
	else
		snprintf(why, n, "%s rejected the run (%ld%s%s)", p->url,
			 r->code, text[0] ? ": " : "", text);
	return V_REJECTED;
}

/* Seconds before try number attempt+1: doubled each time, equal jitter. */
static double wait_s(const struct dashboard_cfg *d, unsigned attempt,
		     const struct reply *r)
{
	unsigned k = attempt - 1 < BACKOFF_DOUBLINGS ? attempt - 1 :
		     BACKOFF_DOUBLINGS;
	double base = (double)d->backoff_ns / 1e9 * (double)(1u << k);
	unsigned short rnd = 0;
	double w;

	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (unsigned short)(getpid() ^ time(NULL));
	w = base / 2 + base / 2 * (double)rnd / 65535.0;
	if (r->retry_after >= 0) {
		double ra = r->retry_after;
		double cap = (double)d->retry_after_max_ns / 1e9;

		if (ra > cap)
			ra = cap;
		if (ra > w)
			w = ra;
	}
	return w;
}

static void sleep_s(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - floor(s)) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void say(const struct upload_opts *o, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(const struct upload_opts *o, bool error, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (!o->say)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->say(error, msg, o->arg);
}

static void iso_in(double s, char *buf, size_t n)
{
	time_t t = time(NULL) + (time_t)ceil(s);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Try one claimed run up to max_attempts times; its verdict, or -1 (db). */
static int send_run(struct db *db, const struct dashboard_cfg *d,
		    const struct db_upload_want *w,
		    const struct db_upload_claim *c, const struct token *tk,
		    const struct upload_opts *o, struct strbuf *err)
{
	const char *target = w->target;
	struct payload p = { .metrics = STRBUF_INIT, .tests = STRBUF_INIT };
	struct reply r;
	char why[8192], next[32];
	enum verdict v = V_RETRY;
	bool lost = false;
	unsigned attempt;
	int ret = -1;

	if (payload_build(db, d, c, &p)) {
		/* bad rows: this run waits for --failed, the others go on */
		snprintf(why, sizeof(why), "cannot make the upload of run "
			 "%s from its rows: %s", c->uuid, db->err);
		if (db_upload_done(db, w, c->run_id, "failed", why, NULL,
				   &lost))
			goto dberr;
		say(o, true, "run %s failed: %s", c->uuid, why);
		ret = V_REJECTED;
		goto out;
	}
	for (attempt = 1; attempt <= d->max_attempts; attempt++) {
		CURLcode cc = post(d, &p, c, tk, &r);
		double s;

		if (cc == CURLE_FAILED_INIT || cc == CURLE_OUT_OF_MEMORY ||
		    cc == CURLE_UNKNOWN_OPTION) {
			strbuf_addf(err, "libcurl cannot post: %s",
				    curl_easy_strerror(cc));
			goto out;
		}
		v = judge(d, &p, cc, &r, tk, why, sizeof(why));
		if (v != V_RETRY)
			break;
		s = wait_s(d, attempt, &r);
		if (attempt == d->max_attempts) {
			if (db_upload_tried(db, w, c->run_id, why, NULL))
				goto dberr;
			break;
		}
		iso_in(s, next, sizeof(next));
		if (db_upload_tried(db, w, c->run_id, why, next))
			goto dberr;
		say(o, true, "run %s: try %u of %u: %s; again in %.3g s",
		    c->uuid, attempt, d->max_attempts, why, s);
		sleep_s(s);
	}
	switch (v) {
	case V_SENT:
	case V_DUP:
		if (db_upload_tried(db, w, c->run_id, NULL, NULL) ||
		    db_upload_done(db, w, c->run_id, "sent", NULL, why, &lost))
			goto dberr;
		say(o, false, "sent run %s (%s) to %s: %s%s", c->uuid,
		    c->label, target, why, v == V_DUP ?
		    " (the dashboard had it already: a reply was lost)" : "");
		break;
	case V_RETRY:
		if (db_upload_done(db, w, c->run_id, "pending", why, NULL,
				   &lost))
			goto dberr;
		say(o, true, "run %s stays pending after %u %s: %s",
		    c->uuid, d->max_attempts,
		    d->max_attempts == 1 ? "try" : "tries", why);
		break;
	case V_DENIED:
	case V_REJECTED:
		if (db_upload_tried(db, w, c->run_id, why, NULL) ||
		    db_upload_done(db, w, c->run_id, "failed", why, NULL,
				   &lost))
			goto dberr;
		say(o, true, "run %s failed: %s", c->uuid, why);
		break;
	}
	if (lost)
		say(o, true, "run %s: another uploader took the claim over "
		    "meanwhile (it ran past its lease)", c->uuid);
	ret = (int)v;
	goto out;
dberr:
	strbuf_addf(err, "cannot record the upload of run %s: %s", c->uuid,
		    db->err);
out:
	payload_release(&p);
	explicit_bzero(&r, sizeof(r));
	return ret;
}

/* Longest a claim may need: every try timing out, every wait at its top. */
static int64_t lease_s(const struct dashboard_cfg *d)
{
	double top = (double)d->backoff_ns * (1u << BACKOFF_DOUBLINGS);

	if ((double)d->retry_after_max_ns > top)
		top = (double)d->retry_after_max_ns;
	return (int64_t)((double)d->max_attempts *
			 ((double)(d->timeout_ns + d->connect_timeout_ns) +
			  top) / 1e9) + 60;
}

enum upload_status upload_pending(struct db *db,
				  const struct dashboard_cfg *d,
				  const struct upload_opts *o,
				  struct upload_tally *t, struct strbuf *err)
{
	struct db_upload_want w = { 0 };
	struct db_upload_claim c;
	struct token tk = { { 0 } };
	enum upload_status ret = UPLOAD_OK;
	int64_t *skip = NULL;
	char host[256] = "", status[32];
	size_t nskip = 0;
	int r, busy = 0;

	memset(t, 0, sizeof(*t));
	w.target = dashboard_target_name(d->target);
	if (!w.target) {
		strbuf_addf(err, "no dashboard is configured (add a "
			    "\"dashboard\" section to the config)");
		return UPLOAD_ECONFIG;
	}
	if (o->uuid) {
		r = db_upload_queue(db, o->uuid, w.target, status,
				    sizeof(status));
		if (r == DB_MISSING) {
			strbuf_addf(err, "no run %s in %s", o->uuid, db->path);
			return UPLOAD_ENORUN;
		}
		if (r) {
			strbuf_addf(err, "cannot queue run %s: %s", o->uuid,
				    db->err);
			return UPLOAD_EDB;
		}
		if (strcmp(status, "complete")) {
			strbuf_addf(err, "run %s is %s: only complete runs are "
				    "uploaded", o->uuid, status);
			return UPLOAD_EINCOMPLETE;
		}
	}
	if (d->ca_file && access(d->ca_file, R_OK)) {
		strbuf_addf(err, "cannot read dashboard.ca_file %s: %s",
			    d->ca_file, strerror(errno));
		return UPLOAD_ECONFIG;
	}
	if (token_load(d, &tk, err)) {
		ret = UPLOAD_ECONFIG;
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
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
	for (;;) {
		int64_t *ns;

		w.skip = skip;
		w.nskip = nskip;
		if (db_upload_claim(db, &w, &c, &busy)) {
			strbuf_addf(err, "cannot claim an upload: %s", db->err);
			ret = UPLOAD_EDB;
			break;
		}
		if (c.run_id < 0)
			break;
		if (c.took_over)
			say(o, true, "run %s: taking over from uploader pid %d, "
			    "which is gone or ran past its lease", c.uuid,
			    c.took_over);
		ns = realloc(skip, (nskip + 1) * sizeof(*skip));
		if (!ns) {
			strbuf_addf(err, "out of memory");
			ret = UPLOAD_EINTERNAL;
			break;
		}
		skip = ns;
		skip[nskip++] = c.run_id;
		r = send_run(db, d, &w, &c, &tk, o, err);
		if (r < 0) {
			ret = err->len && strstr(err->buf, "libcurl") ?
			      UPLOAD_EINTERNAL : UPLOAD_EDB;
			break;
		}
		if (r == V_SENT || r == V_DUP)
			t->sent++;
		t->duplicate += r == V_DUP;
		t->pending += r == V_RETRY;
		t->rejected += r == V_REJECTED;
		if (r == V_DENIED) {
			/* the next runs would meet the same refusal */
			t->denied++;
			break;
		}
	}
	t->busy = busy;
	curl_global_cleanup();
	if (ret == UPLOAD_OK)
		ret = t->denied ? UPLOAD_DENIED : t->rejected ?
		      UPLOAD_REJECTED : t->pending ? UPLOAD_PENDING : UPLOAD_OK;
out:
	free(skip);
	explicit_bzero(&tk, sizeof(tk));
	return ret;
}
