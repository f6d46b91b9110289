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
#include "reports/schema_check.h"
#include "reports/upload.h"

#include <cjson/cJSON.h>
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

#include "reports/compare.h"
#include "schema/db_upload.h"
#include "schema/db_vm.h"

#define TOKEN_MAX	4096
#define REPLY_KEEP	2048	/* bytes of a reply body kept for messages */
#define SHOW_MAX	200	/* characters of it shown */
#define REST_MAX	(64 << 20)	/* bytes of a REST answer, at most */
#define SLUG_MAX	100	/* SQUAD's slug and version fields */
#define SLUG_BUF	(SLUG_MAX * 4 + 8)	/* a slug too long, escaped */
#define SQUAD_NAME_MAX	256	/* SQUAD drops a test name longer */
#define UNIT_MAX	30	/* SQUAD's unit field */
#define HASH_HEX	12	/* hex digits of a long params' hash */
#define BACKOFF_DOUBLINGS 5	/* the wait stops growing at 32 times the first */

/*
 * Within this file, beside DB_* in one int: a run's rows cannot make a
 * document (p->bad says why).  Never returned by upload_pending().
 */
#define UPLOAD_EROWS	(-5100)

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
		/* O_NONBLOCK: a FIFO would wait here for a writer */
		fd = open(d->token_file, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &sb)) {
			strbuf_addf(err, "cannot read the dashboard token file "
				    "%s: %s", d->token_file, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		if (!S_ISREG(sb.st_mode)) {
			strbuf_addf(err, "refusing the dashboard token file %s: "
				    "it is not a regular file", d->token_file);
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
		if (strlen(tk->v) != (size_t)n) {
			strbuf_addf(err, "the dashboard token in %s holds a "
				    "NUL byte", tk->from);
			return -1;
		}
	} else {
		const char *e = secret_env(d->token_env);

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
	strbuf_addstr(&sb, p);
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

/*
 * SQUAD's slug rule [a-zA-Z0-9][a-zA-Z0-9_.-]*, one to one: '_' becomes
 * "__" and every other byte outside the rule "_" and its two hex digits
 * ("6.18+fix" is 6.18_2bfix, "6.18:fix" 6.18_3afix), a first character
 * that is not a letter or digit "0" and its escape.  Two labels never share
 * a build.  -1 when the slug would be longer than SQUAD keeps.
 */
static int slug(const char *in, char *out, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)in;
	int r = 0;

	if (*p && !isalnum(*p)) {
		strbuf_addf(&sb, "0_%02x", *p);
		p++;
	}
	for (; *p; p++) {
		if (isalnum(*p) || *p == '.' || *p == '-')
			strbuf_addch(&sb, *p);
		else if (*p == '_')
			strbuf_addf(&sb, "__");
		else
			strbuf_addf(&sb, "_%02x", *p);
	}
	if (!sb.len || sb.len > SLUG_MAX || sb.len >= n)
		r = -1;
	snprintf(out, n, "%s", strbuf_str(&sb));
	strbuf_release(&sb);
	return r;
}

/* What one run sends: the URL, and the body or SQUAD's three fields. */
struct payload {
	char url[4096];
	char shown[4096];		/* url for messages: query masked */
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

static void payload_release(struct payload *p)
{
	free(p->doc);
	free(p->metadata);
	free(p->longs);
	strbuf_release(&p->metrics);
	strbuf_release(&p->tests);
	strbuf_release(&p->more);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/*
 * "suite/name[params]" within SQUAD's SQUAD_NAME_MAX characters for the part
 * after the suite: the params cut short and marked with ~ and a hash of
 * them, the full params in the metadata under "params~HASH".  UPLOAD_EROWS
 * (p->bad says why) when even that does not fit.
 */
static int test_name(struct payload *p, struct strbuf *key,
		     const char *suite, const char *name, const char *params)
{
	size_t nl = strlen(name), pl = strlen(params), keep;
	uint64_t h;

	if (nl + pl + 2 <= SQUAD_NAME_MAX) {
		strbuf_addf(key, "%s/%s[%s]", suite, name, params);
		return 0;
	}
	if (nl + 2 + 1 + HASH_HEX + 8 > SQUAD_NAME_MAX) {
		snprintf(p->bad, sizeof(p->bad), "the metric or test name "
			 "%.64s... of %s is %zu characters long, over the %d "
			 "SQUAD keeps", name, suite, nl, SQUAD_NAME_MAX);
		return UPLOAD_EROWS;
	}
	h = fnv1a(params) & ((1ull << (4 * HASH_HEX)) - 1);
	keep = SQUAD_NAME_MAX - nl - 2 - 1 - HASH_HEX;
	/* cut on a character, not inside one */
	while (keep && ((unsigned char)params[keep] & 0xc0) == 0x80)
		keep--;
	strbuf_addf(key, "%s/%s[%.*s~%0*llx]", suite, name, (int)keep,
		    params, HASH_HEX, (unsigned long long)h);
	for (size_t i = 0; i < p->nlongs; i++)
		if (p->longs[i] == h)
			return 0;
	ALLOC_GROW(p->longs, p->nlongs + 1, p->alongs);
	p->longs[p->nlongs++] = h;
	strbuf_addf(&p->more, ",\"params~%0*llx\":", HASH_HEX,
		    (unsigned long long)h);
	strbuf_json_str(&p->more, params);
	return 0;
}

/*
 * "shmem-remove/wall[op=unlink,size=16M,...]": {"value": [...], "unit":
 * "ns"}, each value with 17 significant digits, so it reads back as it was
 * stored.
 */
static int add_metric(const struct db_upload_metric *m, void *arg)
{
	struct payload *p = arg;
	struct strbuf key = STRBUF_INIT;
	char num[40], unit[64];
	/* a counted run's times go as the guest instructions they are */
	double f = report_clock_unit(&p->clock, m->unit, unit, sizeof(unit));
	int r = UPLOAD_EROWS;

	if (strlen(unit) > UNIT_MAX) {
		snprintf(p->bad, sizeof(p->bad), "the unit \"%.40s\" of %s/%s "
			 "is longer than the %d characters SQUAD keeps",
			 unit, m->workload, m->metric, UNIT_MAX);
		goto out;
	}
	if (test_name(p, &key, m->workload, m->metric, m->params))
		goto out;
	strbuf_addch(&p->metrics, p->first_metric ? '{' : ',');
	strbuf_json_str(&p->metrics, strbuf_str(&key));
	strbuf_addf(&p->metrics, ":{\"value\":[");
	for (size_t i = 0; i < m->n; i++) {
		if (!isfinite(m->values[i])) {
			snprintf(p->bad, sizeof(p->bad), "a value of %s/%s is "
				 "%g, not a number SQUAD takes", m->workload,
				 m->metric, m->values[i]);
			goto out;
		}
		snprintf(num, sizeof(num), "%.17g", m->values[i] * f);
		strbuf_addf(&p->metrics, "%s%s%s", i ? "," : "", num,
			    strpbrk(num, ".eE") ? "" : ".0");
	}
	strbuf_addf(&p->metrics, "]");
	if (*unit) {
		strbuf_addf(&p->metrics, ",\"unit\":");
		strbuf_json_str(&p->metrics, unit);
	}
	strbuf_addf(&p->metrics, "}");
	p->first_metric = false;
	p->nmetrics++;
	r = 0;
out:
	strbuf_release(&key);
	return r;
}

/* "shmem-remove/verify-rep2[...]": pass, or fail for an invalid sample. */
static int add_check(const struct db_upload_check *k, void *arg)
{
	struct payload *p = arg;
	struct strbuf key = STRBUF_INIT;
	char name[64];
	int r = UPLOAD_EROWS;

	if (k->rep >= 0)
		snprintf(name, sizeof(name), "verify-rep%lld",
			 (long long)k->rep);
	else
		snprintf(name, sizeof(name), "case");
	if (test_name(p, &key, k->workload, name, k->params))
		goto out;
	strbuf_addch(&p->tests, p->first_test ? '{' : ',');
	strbuf_json_str(&p->tests, strbuf_str(&key));
	strbuf_addf(&p->tests, ":\"%s\"", k->pass ? "pass" : "fail");
	p->first_test = false;
	p->ntests++;
	r = 0;
out:
	strbuf_release(&key);
	return r;
}

/* The server's address: dashboard.url less its trailing slashes. */
static int base_len(const struct dashboard_cfg *d)
{
	size_t ul = strlen(d->url);

	while (ul && d->url[ul - 1] == '/')
		ul--;
	return (int)ul;
}

static void shown_url(struct payload *p)
{
	struct strbuf sb = STRBUF_INIT;

	url_masked(&sb, p->url);
	snprintf(p->shown, sizeof(p->shown), "%s", strbuf_str(&sb));
	strbuf_release(&sb);
}

/*
 * DB_OK; DB_* of the database; UPLOAD_EROWS with p->bad for a run SQUAD
 * cannot take.
 */
static int payload_build(struct db *db, const struct dashboard_cfg *d,
			 const struct db_upload_claim *c, struct payload *p)
{
	char build[SLUG_BUF], env[SLUG_BUF];
	const char *envname = d->environment ? d->environment : c->hostname;
	size_t ml;
	bool b;
	int r;

	p->first_metric = p->first_test = true;
	if (d->target == DASHBOARD_JSON) {
		snprintf(p->url, sizeof(p->url), "%s", d->url);
		shown_url(p);
		return report_run_doc(db, c->uuid, &p->doc);
	}
	if ((r = db_upload_values_check(db, c->uuid)))
		return r;
	b = slug(c->label, build, sizeof(build)) != 0;
	if (b || slug(envname, env, sizeof(env))) {
		snprintf(p->bad, sizeof(p->bad), "the %s \"%.200s\" makes a "
			 "SQUAD %s of more than the %d characters it keeps "
			 "(%.120s...)", b ? "label" : "environment",
			 b ? c->label : envname, b ? "build" : "environment",
			 SLUG_MAX, b ? build : env);
		return UPLOAD_EROWS;
	}
	snprintf(p->build, sizeof(p->build), "%s", build);
	snprintf(p->url, sizeof(p->url), "%.*s/api/submit/%s/%s/%s/%s",
		 base_len(d), d->url, d->group, d->project, build, env);
	shown_url(p);
	if ((r = db_upload_metadata(db, c->run_id, &p->metadata)) ||
	    (r = db_vm_run_clock(db, c->run_id, &p->clock.shift)))
		return r;
	p->clock.counted = p->clock.shift >= 0;
	if ((r = db_upload_metrics_each(db, c->run_id, add_metric, p)) ||
	    (r = db_upload_checks_each(db, c->run_id, add_check, p)))
		return r;
	strbuf_addstr(&p->metrics, p->first_metric ? "{}" : "}");
	strbuf_addstr(&p->tests, p->first_test ? "{}" : "}");
	/* the full params of the names cut short, in the metadata */
	ml = strlen(p->metadata);
	if (p->more.len && ml && p->metadata[ml - 1] == '}') {
		char *md = xmalloc(ml + p->more.len + 1);

		snprintf(md, ml + p->more.len + 1, "%.*s%s}", (int)(ml - 1),
			 p->metadata, strbuf_str(&p->more));
		free(p->metadata);
		p->metadata = md;
	}
	return DB_OK;
}

/* What came back from one request. */
struct reply {
	long code;			/* HTTP status; 0: no answer */
	char body[REPLY_KEEP];
	size_t len;
	struct strbuf *all;		/* the whole body too, when wanted */
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
	if (r->all) {
		if (r->all->len + len > REST_MAX)
			return 0;	/* CURLE_WRITE_ERROR: far too much */
		strbuf_add(r->all, data, len);
	}
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

/* What every request of an upload sets: where, how long, whom to trust. */
static CURLcode request_init(CURL *curl, const struct dashboard_cfg *d,
			     const char *url, struct curl_slist *hdr,
			     struct reply *r)
{
	CURLcode cc = curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR,
				       "http,https");

	if (cc)
		return cc;
	curl_easy_setopt(curl, CURLOPT_URL, url);
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
	return CURLE_OK;
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
	cc = request_init(curl, d, p->url, hdr, r);
	if (cc)
		goto out;
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

/* A GET of SQUAD's REST API (the whole body into all), as the token's user. */
static CURLcode rest_get(const struct dashboard_cfg *d, const char *url,
			 const struct token *tk, struct reply *r,
			 struct strbuf *all)
{
	char auth[TOKEN_MAX + 64];
	struct curl_slist *hdr;
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	CURL *curl;

	memset(r, 0, sizeof(*r));
	r->retry_after = -1;
	r->all = all;
	curl = curl_easy_init();
	if (!curl)
		return CURLE_FAILED_INIT;
	snprintf(auth, sizeof(auth), "Authorization: Token %s", tk->v);
	hdr = curl_slist_append(NULL, auth);
	if (hdr && !(cc = request_init(curl, d, url, hdr, r))) {
		curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
		cc = curl_easy_perform(curl);
		if (cc == CURLE_OK)
			curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE,
					  &r->code);
	}
	curl_easy_cleanup(curl);
	curl_slist_free_all(hdr);
	explicit_bzero(auth, sizeof(auth));
	return cc;
}

enum verdict { V_SENT, V_DUP, V_RETRY, V_DENIED, V_REJECTED, V_UNTRUSTED };

/* A certificate that failed: the next try meets the same one. */
static bool tls_final(CURLcode cc)
{
	return cc == CURLE_PEER_FAILED_VERIFICATION ||
	       cc == CURLE_SSL_CACERT_BADFILE ||
	       cc == CURLE_SSL_CERTPROBLEM ||
	       cc == CURLE_SSL_ISSUER_ERROR ||
	       cc == CURLE_SSL_PINNEDPUBKEYNOTMATCH ||
	       cc == CURLE_SSL_INVALIDCERTSTATUS;
}

/*
 * A reply's text for a message; none of a page (SQUAD answers even plain
 * text as text/html, so the body tells).
 */
static void reply_text(const struct reply *r, const struct token *tk,
		       char *text, size_t n)
{
	const char *b = r->body;

	while (isspace((unsigned char)*b))
		b++;
	if (*b == '<')
		snprintf(text, n, "an HTML page");
	else
		show_text(r->body, tk, text, n);
}

/* What an answer means; why gets the message for people. */
static enum verdict judge(const struct dashboard_cfg *d, const struct payload *p,
			  CURLcode cc, const struct reply *r,
			  const struct token *tk, char *why, size_t n)
{
	bool squad = d->target == DASHBOARD_SQUAD;
	char text[SHOW_MAX + 16];
	const char *sep;

	reply_text(r, tk, text, sizeof(text));
	sep = text[0] ? ": " : "";
	if (cc != CURLE_OK && tls_final(cc)) {
		snprintf(why, n, "cannot trust %s: %s; give the CA that signed "
			 "its certificate in dashboard.ca_file", p->shown,
			 r->curl_err[0] ? r->curl_err : curl_easy_strerror(cc));
		return V_UNTRUSTED;
	}
	if (cc != CURLE_OK) {
		snprintf(why, n, "cannot reach %s: %s", p->shown,
			 r->curl_err[0] ? r->curl_err : curl_easy_strerror(cc));
		return V_RETRY;
	}
	if (r->code >= 200 && r->code < 300) {
		/* SQUAD answers the new test run's id, bare */
		if (squad && r->len && strspn(r->body, "0123456789") == r->len)
			snprintf(why, n, "%ld, test run %s", r->code, r->body);
		else
			snprintf(why, n, "%ld%s%s", r->code,
				 text[0] ? " " : "", text);
		return V_SENT;
	}
	if ((squad && r->code == 400 && strstr(r->body, squad_dup)) ||
	    (!squad && r->code == 409)) {
		snprintf(why, n, "%ld%s%s", r->code, text[0] ? " " : "", text);
		return V_DUP;
	}
	if (r->code == 408 || r->code == 429 || r->code >= 500) {
		snprintf(why, n, "%s answered %ld%s%s", p->shown, r->code, sep,
			 text);
		return V_RETRY;
	}
	if (r->code == 401 || r->code == 403) {
		const char *what = r->code == 401 ? "401 Unauthorized" :
				   "403 Forbidden";

		if (squad && r->code == 403)
			snprintf(why, n, "the dashboard refused the token from "
				 "%s: %s, it may not submit to %s/%s (SQUAD's "
				 "answer to a wrong or missing token on a "
				 "public project)", tk->from, what, d->group,
				 d->project);
		else if (squad)
			snprintf(why, n, "the dashboard refused the token from "
				 "%s: %s (SQUAD's answer to a wrong token on a "
				 "private project %s/%s)", tk->from, what,
				 d->group, d->project);
		else
			snprintf(why, n, "the dashboard refused the token from "
				 "%s: %s", tk->from, what);
		return V_DENIED;
	}
	if (r->code >= 300 && r->code < 400)
		snprintf(why, n, "%s answered %ld (a redirect, not followed "
			 "for a POST): set dashboard.url to where it leads",
			 p->shown, r->code);
	else if (squad && r->code == 404)
		snprintf(why, n, "%s answered 404: SQUAD there has no group "
			 "%s with a project %s%s%s", p->shown, d->group,
			 d->project, sep, text);
	else
		snprintf(why, n, "%s rejected the run (%ld%s%s)", p->shown,
			 r->code, sep, text);
	return V_REJECTED;
}

/* The results of one page of SQUAD's REST API; -1 with why. */
static int rest_results(const struct dashboard_cfg *d, const char *url,
			const struct token *tk, cJSON **doc,
			const cJSON **results, char *why, size_t n)
{
	struct strbuf all = STRBUF_INIT;
	struct strbuf shown = STRBUF_INIT;
	struct reply r;
	char text[SHOW_MAX + 16];
	CURLcode cc = rest_get(d, url, tk, &r, &all);
	int ret = -1;

	url_masked(&shown, url);
	*doc = NULL;
	if (cc != CURLE_OK) {
		snprintf(why, n, "cannot reach %s: %s", strbuf_str(&shown),
			 r.curl_err[0] ? r.curl_err : curl_easy_strerror(cc));
	} else if (r.code != 200) {
		reply_text(&r, tk, text, sizeof(text));
		snprintf(why, n, "%s answered %ld%s%s", strbuf_str(&shown),
			 r.code, text[0] ? ": " : "", text);
	} else if (!(*doc = cJSON_Parse(strbuf_str(&all))) ||
		   !cJSON_IsArray(*results = cJSON_GetObjectItemCaseSensitive(
				*doc, "results"))) {
		snprintf(why, n, "%s answered 200 without a \"results\" list",
			 strbuf_str(&shown));
	} else {
		ret = 0;
	}
	strbuf_release(&all);
	strbuf_release(&shown);
	explicit_bzero(&r, sizeof(r));
	return ret;
}

/*
 * The test run of job_id uuid among SQUAD's results: its id, or -1 with
 * why saying what the results held instead (other job ids: a SQUAD, or a
 * proxy, that did not filter by job_id).
 */
static long long squad_testrun(const cJSON *res, const char *uuid, char *why,
			       size_t n)
{
	const cJSON *t, *id, *job;
	struct strbuf other = STRBUF_INIT;
	long long found = -1;
	int nother = 0;

	cJSON_ArrayForEach(t, res) {
		id = cJSON_GetObjectItemCaseSensitive(t, "id");
		job = cJSON_GetObjectItemCaseSensitive(t, "job_id");
		if (cJSON_IsString(job) && !strcmp(job->valuestring, uuid) &&
		    cJSON_IsNumber(id) && found < 0) {
			found = (long long)id->valuedouble;
			continue;
		}
		if (nother++ < 3)
			strbuf_addf(&other, "%s%s", nother > 1 ? ", " : "",
				    cJSON_IsString(job) ? job->valuestring :
				    "none");
	}
	if (nother)
		snprintf(why, n, "its list of test runs of job_id %s holds %d "
			 "of other job ids (%s%s)%s: it did not filter by "
			 "job_id", uuid, nother, strbuf_str(&other),
			 nother > 3 ? ", ..." : "", found < 0 ? " and none of "
			 "this one" : "");
	else if (found < 0)
		snprintf(why, n, "it lists no test run of job_id %s", uuid);
	strbuf_release(&other);
	return nother ? -1 : found;
}

/* Does a metric's or test's "test_run" (SQUAD's URL of it) name tr? */
static bool of_testrun(const cJSON *x, long long tr)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(x, "test_run");
	const char *p;

	if (cJSON_IsNumber(t))
		return (long long)t->valuedouble == tr;
	if (!cJSON_IsString(t))
		return true;	/* not said: as the filter asked */
	p = strstr(t->valuestring, "/testruns/");
	return p && strtoll(p + 10, NULL, 10) == tr;
}

/*
 * How many of SQUAD's results (metrics or tests of test run tr, at most
 * limit asked) are tr's; -1 with why where they are not all its: a reply
 * that did not filter or limit counts nothing.
 */
static int squad_count(const cJSON *res, long long tr, size_t limit,
		       const char *what, char *why, size_t n)
{
	const cJSON *x;
	int k = 0, other = 0;

	cJSON_ArrayForEach(x, res) {
		if (of_testrun(x, tr))
			k++;
		else
			other++;
	}
	if (other)
		snprintf(why, n, "its list of the %s of test run %lld holds %d "
			 "of other test runs: it did not filter by test_run",
			 what, tr, other);
	else if ((size_t)k > limit)
		snprintf(why, n, "it listed %d %s of test run %lld where at "
			 "most %zu were asked (limit): it did not limit", k,
			 what, tr, limit);
	return other || (size_t)k > limit ? -1 : k;
}

/*
 * SQUAD says it has a test run with this job_id.  A try that failed with a
 * 5xx may have stored the test run and not its metrics: ask SQUAD's REST
 * API whether the test run holds every metric and test sent.  V_DUP when
 * it does; V_REJECTED when it holds less (the run is not on the
 * dashboard); V_RETRY when SQUAD cannot be asked now.
 */
static enum verdict squad_check(const struct dashboard_cfg *d,
				const struct payload *p,
				const struct db_upload_claim *c,
				const struct token *tk, char *why, size_t n)
{
	struct strbuf url = STRBUF_INIT;
	const cJSON *res;
	cJSON *doc = NULL;
	enum verdict v = V_RETRY;
	char sub[1024];
	long long tr;
	int nm, nt;

	/* job_id is unique within a build, not across builds */
	strbuf_addf(&url, "%.*s/api/testruns/?job_id=%s&build__version=%s"
		    "&build__project__slug=%s&build__project__group__slug=%s",
		    base_len(d), d->url, c->uuid, p->build, d->project,
		    d->group);
	if (rest_results(d, strbuf_str(&url), tk, &doc, &res, sub,
			 sizeof(sub)))
		goto cannot;
	tr = squad_testrun(res, c->uuid, sub, sizeof(sub));
	if (tr < 0)
		goto cannot;
	cJSON_Delete(doc);
	strbuf_release(&url);
	strbuf_addf(&url, "%.*s/api/metrics/?test_run=%lld&limit=%zu",
		    base_len(d), d->url, tr, p->nmetrics + 1);
	if (rest_results(d, strbuf_str(&url), tk, &doc, &res, sub,
			 sizeof(sub)))
		goto cannot;
	nm = squad_count(res, tr, p->nmetrics + 1, "metrics", sub,
			 sizeof(sub));
	if (nm < 0)
		goto cannot;
	cJSON_Delete(doc);
	strbuf_release(&url);
	strbuf_addf(&url, "%.*s/api/tests/?test_run=%lld&limit=%zu",
		    base_len(d), d->url, tr, p->ntests + 1);
	if (rest_results(d, strbuf_str(&url), tk, &doc, &res, sub,
			 sizeof(sub)))
		goto cannot;
	nt = squad_count(res, tr, p->ntests + 1, "tests", sub, sizeof(sub));
	if (nt < 0)
		goto cannot;
	if ((size_t)nm == p->nmetrics && (size_t)nt == p->ntests) {
		snprintf(why, n, "400 There is already a test run with job_id "
			 "%s: test run %lld, with its %d metrics and %d tests",
			 c->uuid, tr, nm, nt);
		v = V_DUP;
	} else {
		snprintf(why, n, "SQUAD holds test run %lld of job_id %s with "
			 "%d of its %zu metrics and %d of its %zu tests (a "
			 "try that failed stored it in part); delete that "
			 "test run on SQUAD, then `bench upload --failed`",
			 tr, c->uuid, nm, p->nmetrics, nt, p->ntests);
		v = V_REJECTED;
	}
	goto out;
cannot:
	snprintf(why, n, "SQUAD has a test run of job_id %s, and whether it "
		 "holds the run's metrics cannot be checked: %s", c->uuid,
		 sub);
out:
	cJSON_Delete(doc);
	strbuf_release(&url);
	return v;
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

/* "what [uuid]: why", in the words of the database's code r. */
static void db_upload_say(const struct db *db, int r, struct strbuf *err,
			  const char *what, const char *uuid)
{
	strbuf_addf(err, "%s%s%s: ", what, uuid ? " " : "", uuid ? uuid : "");
	switch (r) {
	case DB_BUSY:
		strbuf_addf(err, "another process holds %s locked, still after "
			    "%d s (%s)", db->path, DB_BUSY_MS / 1000, db->err);
		break;
	case DB_FULL:
		strbuf_addf(err, "the disk holding %s is full (%s)", db->path,
			    db->err);
		break;
	case DB_READONLY:
		strbuf_addf(err, "%s cannot be written: it or its file system "
			    "is read-only (%s)", db->path, db->err);
		break;
	default:
		strbuf_addstr(err, db->err);
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
	struct reply r;
	char why[8192], next[32];
	enum verdict v = V_RETRY;
	bool lost = false;
	unsigned attempt;
	int ret = UPLOAD_EINTERNAL, dbr;

	dbr = payload_build(db, d, c, &p);
	if (dbr && dbr != DB_ERR && dbr != DB_BADROW && dbr != UPLOAD_EROWS)
		goto dberr;	/* busy, full...: not the run's rows */
	if (dbr) {
		/* bad rows: this run waits for --failed, the others go on */
		snprintf(why, sizeof(why), "cannot make the upload of run "
			 "%s from its rows: %s", c->uuid,
			 dbr == UPLOAD_EROWS ? p.bad : db->err);
		if ((dbr = db_upload_done(db, w, c->run_id, "failed", why,
					  NULL, &lost)))
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
			if ((dbr = db_upload_tried(db, w, c->run_id, why,
						   NULL)))
				goto dberr;
			break;
		}
		iso_in(s, next, sizeof(next));
		if ((dbr = db_upload_tried(db, w, c->run_id, why, next)))
			goto dberr;
		say(o, true, "run %s: try %u of %u: %s; again in %.3g s",
		    c->uuid, attempt, d->max_attempts, why, s);
		sleep_s(s);
	}
	/* the test run SQUAD has may be what a failed try left of it */
	if (v == V_DUP && d->target == DASHBOARD_SQUAD)
		v = squad_check(d, &p, c, tk, why, sizeof(why));
	if (attempt > d->max_attempts)
		attempt = d->max_attempts;
	if ((dbr = record(db, w, c, v, why, attempt, o, &lost)))
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
	ret = send_claimed(db, d, &w, &tk, o, t, err);
	curl_global_cleanup();
	if (ret == UPLOAD_OK)
		ret = t->denied ? UPLOAD_DENIED : t->untrusted ?
		      UPLOAD_UNTRUSTED : t->rejected ?
		      UPLOAD_REJECTED : t->pending ? UPLOAD_PENDING : UPLOAD_OK;
out:
	explicit_bzero(&tk, sizeof(tk));
	return ret;
}
