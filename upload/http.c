/*
 * The transport of the upload, and the one file that uses libcurl, in
 * curl's own shape: init, setopt, perform, the HTTP code, cleanup.  One
 * request (a POST of a body or a form, or a GET), its timeouts, whom it
 * trusts, what came back, and the wait before the next try.  It knows no
 * dashboard: what to send and what an answer means is protocol.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "upload/http.h"

#define REST_MAX	(64 << 20)	/* bytes of a whole answer, at most */

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

/* Once per upload, before the first request; 0 or -1. */
int http_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) ? -1 : 0;
}

void http_cleanup(void)
{
	curl_global_cleanup();
}

/*
 * The form's fields as a multipart body on curl; CURLE_OUT_OF_MEMORY
 * where libcurl cannot make it (*mime is freed by the caller).
 */
static CURLcode form_init(CURL *curl, const struct http_body *b,
			  curl_mime **mime)
{
	curl_mimepart *part;

	*mime = curl_mime_init(curl);
	if (!*mime)
		return CURLE_OUT_OF_MEMORY;
	for (size_t i = 0; i < b->nfields; i++) {
		part = curl_mime_addpart(*mime);
		if (!part || curl_mime_name(part, b->names[i]) ||
		    curl_mime_data(part, b->vals[i], CURL_ZERO_TERMINATED))
			return CURLE_OUT_OF_MEMORY;
	}
	curl_easy_setopt(curl, CURLOPT_MIMEPOST, *mime);
	return CURLE_OK;
}

/*
 * One request to url with the headers hdrs (NULL ends them): a GET where
 * body is NULL, else a POST of it.  0 with r->code, or the curl error;
 * all, when given, gets the whole body of the reply too.
 */
CURLcode http_request(const struct dashboard_cfg *d, const char *url,
		      const char *const *hdrs, const struct http_body *body,
		      struct reply *r, struct strbuf *all)
{
	struct curl_slist *hdr = NULL, *h;
	curl_mime *mime = NULL;
	CURLcode cc = CURLE_OUT_OF_MEMORY;
	CURL *curl;

	memset(r, 0, sizeof(*r));
	r->retry_after = -1;
	r->all = all;
	curl = curl_easy_init();
	if (!curl)
		return CURLE_FAILED_INIT;
	for (; *hdrs; hdrs++) {
		if (!(h = curl_slist_append(hdr, *hdrs)))
			goto out;
		hdr = h;
	}
	cc = request_init(curl, d, url, hdr, r);
	if (cc)
		goto out;
	if (!body) {
		curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
	} else if (body->raw) {
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body->raw);
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE,
				 (long)strlen(body->raw));
	} else if ((cc = form_init(curl, body, &mime))) {
		goto out;
	}
	cc = curl_easy_perform(curl);
	if (cc == CURLE_OK)
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r->code);
out:
	curl_easy_cleanup(curl);
	curl_mime_free(mime);
	curl_slist_free_all(hdr);
	return cc;
}

/* libcurl cannot make a request at all: every other run would fail too. */
bool http_broken(CURLcode cc)
{
	return cc == CURLE_FAILED_INIT || cc == CURLE_OUT_OF_MEMORY ||
	       cc == CURLE_UNKNOWN_OPTION;
}

/* What went wrong in a request: libcurl's detail, else its code's words. */
const char *http_error(const struct reply *r, CURLcode cc)
{
	return r && r->curl_err[0] ? r->curl_err : curl_easy_strerror(cc);
}

/* A certificate that failed: the next try meets the same one. */
bool http_tls_final(CURLcode cc)
{
	return cc == CURLE_PEER_FAILED_VERIFICATION ||
	       cc == CURLE_SSL_CACERT_BADFILE ||
	       cc == CURLE_SSL_CERTPROBLEM ||
	       cc == CURLE_SSL_ISSUER_ERROR ||
	       cc == CURLE_SSL_PINNEDPUBKEYNOTMATCH ||
	       cc == CURLE_SSL_INVALIDCERTSTATUS;
}

/* A reply's text for a message: one line, printable, the secret blanked. */
static void show_text(const char *in, const char *secret, char *out,
		      size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = in, *hit;
	size_t tl = strlen(secret), i = 0;

	while (tl && (hit = strstr(p, secret))) {
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
 * A reply's text for a message, the secret blanked; none of a page (SQUAD
 * answers even plain text as text/html, so the body tells).
 */
void http_reply_text(const struct reply *r, const char *secret, char *text,
		     size_t n)
{
	const char *b = r->body;

	while (isspace((unsigned char)*b))
		b++;
	if (*b == '<')
		snprintf(text, n, "an HTML page");
	else
		show_text(r->body, secret, text, n);
}

/* Seconds before try number attempt+1: doubled each time, equal jitter. */
double http_wait_s(const struct dashboard_cfg *d, unsigned attempt,
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

void http_sleep_s(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - floor(s)) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}
