/*
 * The upload's transport (http.c): one request to the dashboard and what
 * came back, whom it trusts, and the wait before the next try.  The one
 * file that uses libcurl; it knows no dashboard's protocol.
 */
#ifndef FB_UPLOAD_HTTP_H
#define FB_UPLOAD_HTTP_H

#include <curl/curl.h>
#include <stdbool.h>

#include "common/common.h"
#include "common/dashboard.h"

#define REPLY_KEEP	2048	/* bytes of a reply body kept for messages */
#define SHOW_MAX	200	/* characters of it shown */
#define BACKOFF_DOUBLINGS 5	/* the wait stops growing at 32 times the first */

/* What came back from one request. */
struct reply {
	long code;			/* HTTP status; 0: no answer */
	char body[REPLY_KEEP];
	size_t len;
	struct strbuf *all;		/* the whole body too, when wanted */
	double retry_after;		/* seconds; < 0: none given */
	char curl_err[CURL_ERROR_SIZE];
};

/* What a POST sends: a body as it is, or a multipart form. */
struct http_body {
	const char *raw;		/* NULL: the form below */
	const char *const *names;	/* the form's fields and values */
	const char *const *vals;
	size_t nfields;
};

/* Once per upload, around its requests: 0 or -1. */
int http_init(void);
void http_cleanup(void);

/* http.c says what each returns. */
CURLcode http_request(const struct dashboard_cfg *d, const char *url,
		      const char *const *hdrs, const struct http_body *body,
		      struct reply *r, struct strbuf *all);
bool http_broken(CURLcode cc);
const char *http_error(const struct reply *r, CURLcode cc);
bool http_tls_final(CURLcode cc);
void http_reply_text(const struct reply *r, const char *secret, char *text,
		     size_t n);
double http_wait_s(const struct dashboard_cfg *d, unsigned attempt,
		   const struct reply *r);
void http_sleep_s(double s);

#endif
