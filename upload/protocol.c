/*
 * What the upload says to the dashboard and what its answers mean: the
 * POST of one run (SQUAD's submit API, or the run document to a json
 * endpoint), the verdict on the reply, and for SQUAD's "already have it"
 * the questions to its REST API that tell a whole test run from what a
 * failed try left of one.
 *
 * A run is marked sent only on a 2xx or on the dashboard's "already have
 * it" answer (SQUAD's duplicate job_id, a JSON endpoint's 409): the job_id
 * and the Idempotency-Key are the run's uuid, so a retry after a reply lost
 * on the way back never makes a second copy.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upload/protocol.h"

/* SQUAD's text for a job_id it already holds in that build. */
static const char squad_dup[] = "There is already a test run with job_id";

/* One POST of the payload: 0 with r->code, or the curl error. */
CURLcode upload_post(const struct dashboard_cfg *d, const struct payload *p,
		     const struct db_upload_claim *c, const struct token *tk,
		     struct reply *r)
{
	static const char *const names[] = { "metadata", "metrics", "tests" };
	const char *vals[] = { p->metadata, strbuf_str(&p->metrics),
			       strbuf_str(&p->tests) };
	struct http_body form = { .names = names, .vals = vals,
				  .nfields = ARRAY_SIZE(names) };
	struct http_body json = { .raw = p->doc };
	char auth[TOKEN_MAX + 64], idem[96];
	/* no "Expect: 100-continue": a server that ignores it costs 1 s */
	const char *hdrs[] = { auth, "Expect:", NULL, NULL, NULL };
	CURLcode cc;

	if (d->target == DASHBOARD_SQUAD)
		snprintf(auth, sizeof(auth), "Auth-Token: %s", tk->v);
	else
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", tk->v);
	snprintf(idem, sizeof(idem), "Idempotency-Key: %s", c->uuid);
	if (d->target == DASHBOARD_JSON) {
		hdrs[2] = idem;
		hdrs[3] = "Content-Type: application/json";
	}
	cc = http_request(d, p->url, hdrs, d->target == DASHBOARD_JSON ?
			  &json : &form, r, NULL);
	explicit_bzero(auth, sizeof(auth));
	return cc;
}

/* A GET of SQUAD's REST API (the whole body into all), as the token's user. */
static CURLcode rest_get(const struct dashboard_cfg *d, const char *url,
			 const struct token *tk, struct reply *r,
			 struct strbuf *all)
{
	char auth[TOKEN_MAX + 64];
	const char *hdrs[] = { auth, NULL };
	CURLcode cc;

	snprintf(auth, sizeof(auth), "Authorization: Token %s", tk->v);
	cc = http_request(d, url, hdrs, NULL, r, all);
	explicit_bzero(auth, sizeof(auth));
	return cc;
}

/* What an answer means; why is set to the message for people. */
enum verdict upload_judge(const struct dashboard_cfg *d,
			  const struct payload *p, CURLcode cc,
			  const struct reply *r, const struct token *tk,
			  struct strbuf *why)
{
	bool squad = d->target == DASHBOARD_SQUAD;
	char text[SHOW_MAX + 16];
	const char *sep;

	strbuf_reset(why);
	http_reply_text(r, tk->v, text, sizeof(text));
	sep = text[0] ? ": " : "";
	if (cc != CURLE_OK && http_tls_final(cc)) {
		strbuf_addf(why, "cannot trust %s: %s; give the CA that signed "
			    "its certificate in dashboard.ca_file", p->shown,
			    http_error(r, cc));
		return V_UNTRUSTED;
	}
	if (cc != CURLE_OK) {
		strbuf_addf(why, "cannot reach %s: %s", p->shown,
			    http_error(r, cc));
		return V_RETRY;
	}
	if (r->code >= 200 && r->code < 300) {
		/* SQUAD answers the new test run's id, bare */
		if (squad && r->len && strspn(r->body, "0123456789") == r->len)
			strbuf_addf(why, "%ld, test run %s", r->code, r->body);
		else
			strbuf_addf(why, "%ld%s%s", r->code,
				    text[0] ? " " : "", text);
		return V_SENT;
	}
	if ((squad && r->code == 400 && strstr(r->body, squad_dup)) ||
	    (!squad && r->code == 409)) {
		strbuf_addf(why, "%ld%s%s", r->code, text[0] ? " " : "", text);
		return V_DUP;
	}
	if (r->code == 408 || r->code == 429 || r->code >= 500) {
		strbuf_addf(why, "%s answered %ld%s%s", p->shown, r->code, sep,
			    text);
		return V_RETRY;
	}
	if (r->code == 401 || r->code == 403) {
		const char *what = r->code == 401 ? "401 Unauthorized" :
				   "403 Forbidden";

		if (squad && r->code == 403)
			strbuf_addf(why, "the dashboard refused the token from "
				    "%s: %s, it may not submit to %s/%s "
				    "(SQUAD's answer to a wrong or missing "
				    "token on a public project)", tk->from,
				    what, d->group, d->project);
		else if (squad)
			strbuf_addf(why, "the dashboard refused the token from "
				    "%s: %s (SQUAD's answer to a wrong token "
				    "on a private project %s/%s)", tk->from,
				    what, d->group, d->project);
		else
			strbuf_addf(why, "the dashboard refused the token from "
				    "%s: %s", tk->from, what);
		return V_DENIED;
	}
	if (r->code >= 300 && r->code < 400)
		strbuf_addf(why, "%s answered %ld (a redirect, not followed "
			    "for a POST): set dashboard.url to where it leads",
			    p->shown, r->code);
	else if (squad && r->code == 404)
		strbuf_addf(why, "%s answered 404: SQUAD there has no group "
			    "%s with a project %s%s%s", p->shown, d->group,
			    d->project, sep, text);
	else
		strbuf_addf(why, "%s rejected the run (%ld%s%s)", p->shown,
			    r->code, sep, text);
	return V_REJECTED;
}

/* The results of one page of SQUAD's REST API; -1 with why in err. */
static int rest_results(const struct dashboard_cfg *d, const char *url,
			const struct token *tk, cJSON **doc,
			const cJSON **results, struct strbuf *err)
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
		err_setf(err, "cannot reach %s: %s", strbuf_str(&shown),
			 http_error(&r, cc));
	} else if (r.code != 200) {
		http_reply_text(&r, tk->v, text, sizeof(text));
		err_setf(err, "%s answered %ld%s%s", strbuf_str(&shown),
			 r.code, text[0] ? ": " : "", text);
	} else if (!(*doc = cJSON_Parse(strbuf_str(&all))) ||
		   !cJSON_IsArray(*results = cJSON_GetObjectItemCaseSensitive(
				*doc, "results"))) {
		err_setf(err, "%s answered 200 without a \"results\" list",
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
 * err saying what the results held instead (other job ids: a SQUAD, or a
 * proxy, that did not filter by job_id).
 */
static long long squad_testrun(const cJSON *res, const char *uuid,
			       struct strbuf *err)
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
		err_setf(err, "its list of test runs of job_id %s holds %d "
			 "of other job ids (%s%s)%s: it did not filter by "
			 "job_id", uuid, nother, strbuf_str(&other),
			 nother > 3 ? ", ..." : "", found < 0 ? " and none of "
			 "this one" : "");
	else if (found < 0)
		err_setf(err, "it lists no test run of job_id %s", uuid);
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
 * limit asked) are tr's; -1 with why in err where they are not all its:
 * a reply that did not filter or limit counts nothing.
 */
static int squad_count(const cJSON *res, long long tr, size_t limit,
		       const char *what, struct strbuf *err)
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
		err_setf(err, "its list of the %s of test run %lld holds %d "
			 "of other test runs: it did not filter by test_run",
			 what, tr, other);
	else if ((size_t)k > limit)
		err_setf(err, "it listed %d %s of test run %lld where at "
			 "most %zu were asked (limit): it did not limit", k,
			 what, tr, limit);
	return other || (size_t)k > limit ? -1 : k;
}

/*
 * How many of what ("metrics", "tests": the REST API's name for them and
 * ours) SQUAD holds of test run tr, asking for one more than the sent;
 * -1 with why in err.
 */
static int squad_held(const struct dashboard_cfg *d, const struct token *tk,
		      const char *what, long long tr, size_t sent,
		      struct strbuf *err)
{
	struct strbuf url = STRBUF_INIT;
	const cJSON *res;
	cJSON *doc;
	int k = -1;

	strbuf_addf(&url, "%.*s/api/%s/?test_run=%lld&limit=%zu",
		    dashboard_base_len(d), d->url, what, tr, sent + 1);
	if (!rest_results(d, strbuf_str(&url), tk, &doc, &res, err))
		k = squad_count(res, tr, sent + 1, what, err);
	cJSON_Delete(doc);
	strbuf_release(&url);
	return k;
}

/*
 * SQUAD says it has a test run with this job_id.  A try that failed with a
 * 5xx may have stored the test run and not its metrics: ask SQUAD's REST
 * API whether the test run holds every metric and test sent.  V_DUP when
 * it does; V_REJECTED when it holds less (the run is not on the
 * dashboard); V_RETRY when SQUAD cannot be asked now.
 */
enum verdict squad_check(const struct dashboard_cfg *d,
			 const struct payload *p,
			 const struct db_upload_claim *c,
			 const struct token *tk, struct strbuf *why)
{
	struct strbuf url = STRBUF_INIT, sub = STRBUF_INIT;
	const cJSON *res;
	cJSON *doc = NULL;
	enum verdict v = V_RETRY;
	long long tr;
	int nm, nt;

	/* job_id is unique within a build, not across builds */
	strbuf_addf(&url, "%.*s/api/testruns/?job_id=%s&build__version=%s"
		    "&build__project__slug=%s&build__project__group__slug=%s",
		    dashboard_base_len(d), d->url, c->uuid, p->build,
		    d->project, d->group);
	strbuf_reset(why);
	if (rest_results(d, strbuf_str(&url), tk, &doc, &res, &sub))
		goto cannot;
	tr = squad_testrun(res, c->uuid, &sub);
	if (tr < 0)
		goto cannot;
	cJSON_Delete(doc);
	doc = NULL;
	nm = squad_held(d, tk, "metrics", tr, p->nmetrics, &sub);
	if (nm < 0)
		goto cannot;
	nt = squad_held(d, tk, "tests", tr, p->ntests, &sub);
	if (nt < 0)
		goto cannot;
	if ((size_t)nm == p->nmetrics && (size_t)nt == p->ntests) {
		strbuf_addf(why, "400 There is already a test run with job_id "
			    "%s: test run %lld, with its %d metrics and %d "
			    "tests", c->uuid, tr, nm, nt);
		v = V_DUP;
	} else {
		strbuf_addf(why, "SQUAD holds test run %lld of job_id %s with "
			    "%d of its %zu metrics and %d of its %zu tests (a "
			    "try that failed stored it in part); delete that "
			    "test run on SQUAD, then `bench upload --failed`",
			    tr, c->uuid, nm, p->nmetrics, nt, p->ntests);
		v = V_REJECTED;
	}
	goto out;
cannot:
	strbuf_addf(why, "SQUAD has a test run of job_id %s, and whether it "
		    "holds the run's metrics cannot be checked: %s", c->uuid,
		    strbuf_str(&sub));
out:
	cJSON_Delete(doc);
	strbuf_release(&url);
	strbuf_release(&sub);
	return v;
}
