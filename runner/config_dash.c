/* The config's dashboard section: where and how runs are uploaded. */
#include "config_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dash_keys[] = {
	"target", "url", "group", "project", "environment", "token_env",
	"token_file", "upload", "timeout", "connect_timeout", "max_attempts",
	"ca_file", "backoff", "retry_after_max", NULL,
};

void cfg_dashboard_release(struct dashboard_cfg *d)
{
	free(d->url);
	free(d->group);
	free(d->project);
	free(d->environment);
	free(d->token_env);
	free(d->token_file);
	free(d->ca_file);
	memset(d, 0, sizeof(*d));
}

/* SQUAD's slug rule for group and project: [a-zA-Z0-9][a-zA-Z0-9_.-]* */
static bool is_slug(const char *s)
{
	if (!isalnum((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

static bool is_env_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* A string key of the dashboard section; null leaves *out as it is. */
static int dash_str(struct cfg_ctx *x, const cJSON *o, const char *key,
		    char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *s;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring ||
	    strlen(v->valuestring) > 2048) {
		s = cfg_show(v);
		cfg_errf(x, "dashboard.%s: %s is not a non-empty string (of at "
			 "most 2048 characters)", key, s);
		free(s);
		return -1;
	}
	for (s = v->valuestring; *s; s++)
		if (iscntrl((unsigned char)*s))
			return cfg_errf(x, "dashboard.%s: a control character "
					"in \"%s\"", key, v->valuestring);
	free(*out);
	*out = strdup(v->valuestring);
	return 0;
}

static int dash_duration(struct cfg_ctx *x, const cJSON *o, const char *key,
			 uint64_t min, uint64_t max, uint64_t *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char lo[32], hi[32], *s;

	if (!v)
		return 0;
	if (cJSON_IsString(v) && !parse_duration(v->valuestring, out) &&
	    *out >= min && *out <= max)
		return 0;
	format_duration(min, lo, sizeof(lo));
	format_duration(max, hi, sizeof(hi));
	s = cfg_show(v);
	cfg_errf(x, "dashboard.%s: %s is not a duration from %s to %s "
		 "(\"30s\", \"500ms\")", key, s, lo, hi);
	free(s);
	return -1;
}

/*
 * The authority of url (host, or [IPv6], then :port) as a request can
 * reach it: 0, or -1 with why not in err.  "http://[::1", port 99999 and
 * "host;token=abc" passed once and were then retried for ever as 75.
 */
static int bad_authority(const char *host, struct strbuf *err)
{
	size_t len = strcspn(host, "/?#"), h;
	const char *port = NULL, *p;
	uint64_t u = 0;

	if (host[0] == '[') {
		const char *end = memchr(host, ']', len);

		if (!end)
			return err_setf(err, "has no closing \"]\" after its "
					"IPv6 address");
		h = (size_t)(end - host) + 1;
		if (h == 2 || strspn(host + 1, "0123456789abcdefABCDEF:.") !=
		    h - 2) {
			return err_setf(err, "has \"%.*s\", not an IPv6 "
					"address", (int)h, host);
		}
		if (h < len && host[h] != ':') {
			return err_setf(err, "has \"%c\" after its IPv6 "
					"address, not \":PORT\"", host[h]);
		}
	} else {
		h = strcspn(host, ":/?#");
		for (p = host; p < host + h; p++)
			if (!isalnum((unsigned char)*p) && !strchr("-._", *p) &&
			    !((unsigned char)*p & 0x80)) {
				return err_setf(err, "has a host with \"%c\", "
						"which no host name holds", *p);
			}
	}
	if (h < len)
		port = host + h + 1;
	/* an empty port is the scheme's (RFC 3986) */
	if (port && port < host + len) {
		size_t pl = (size_t)(host + len - port);
		char digits[8] = "";

		if (pl && pl < sizeof(digits)) {
			memcpy(digits, port, pl);
			digits[pl] = '\0';
		}
		if (!digits[0] || parse_u64(digits, &u) || !u || u > 65535)
			return err_setf(err, "has port \"%.*s\"; a port is a "
					"number from 1 to 65535", (int)pl,
					port);
	}
	return 0;
}

/*
 * An http or https URL with a host, and no credentials in it: none before
 * the host, none in the query (a query at all for SQUAD, whose submit path
 * is added to the url).  Messages show the query's values masked.
 */
static int dash_url(struct cfg_ctx *x, const char *url, enum dashboard_target t)
{
	const char *host = NULL;
	struct strbuf m = STRBUF_INIT, bad = STRBUF_INIT;
	int r = 0;

	url_masked(&m, url);
	if (!strncmp(url, "https://", 8))
		host = url + 8;
	else if (!strncmp(url, "http://", 7))
		host = url + 7;
	if (!host || !*host || *host == '/')
		r = cfg_errf(x, "dashboard.url: \"%s\" is not an http:// or "
			     "https:// URL with a host", strbuf_str(&m));
	else if (memchr(host, '@', strcspn(host, "/?#")))
		r = cfg_errf(x, "dashboard.url: \"%s\" holds credentials; put "
			     "the token in token_env or token_file",
			     strbuf_str(&m));
	else if (url_query_secret(url))
		r = cfg_errf(x, "dashboard.url: \"%s\" holds a credential in "
			     "its query; put the token in token_env or "
			     "token_file", strbuf_str(&m));
	else if (t == DASHBOARD_SQUAD && strpbrk(url, "?#"))
		r = cfg_errf(x, "dashboard.url: \"%s\" has a query or "
			     "fragment; SQUAD's is the server's address (the "
			     "submit path is added to it)", strbuf_str(&m));
	else if (bad_authority(host, &bad))
		r = cfg_errf(x, "dashboard.url: \"%s\" %s", strbuf_str(&m),
			     bad.buf);
	else if (strpbrk(url, " \t"))
		r = cfg_errf(x, "dashboard.url: \"%s\" holds a blank",
			     strbuf_str(&m));
	strbuf_release(&m);
	strbuf_release(&bad);
	return r;
}

/* The section's keys, each checked alone. */
static int dash_read(struct cfg_ctx *x, struct dashboard_cfg *d,
		     const cJSON *o)
{
	const cJSON *v;
	char *target = NULL, *s;
	unsigned n = 5;

	if (dash_str(x, o, "target", &target))
		return -1;
	if (target && !strcmp(target, "json")) {
		d->target = DASHBOARD_JSON;
	} else if (target && strcmp(target, "squad")) {
		cfg_errf(x, "dashboard.target: \"%s\" is not one of: squad, "
			 "json", target);
		free(target);
		return -1;
	}
	free(target);
	if (dash_str(x, o, "url", &d->url) ||
	    dash_str(x, o, "group", &d->group) ||
	    dash_str(x, o, "project", &d->project) ||
	    dash_str(x, o, "environment", &d->environment) ||
	    dash_str(x, o, "token_env", &d->token_env) ||
	    dash_str(x, o, "token_file", &d->token_file) ||
	    dash_str(x, o, "ca_file", &d->ca_file) ||
	    dash_duration(x, o, "timeout", 1000000ull, 3600000000000ull,
			  &d->timeout_ns) ||
	    dash_duration(x, o, "connect_timeout", 1000000ull,
			  3600000000000ull, &d->connect_timeout_ns) ||
	    dash_duration(x, o, "backoff", 1000000ull, 600000000000ull,
			  &d->backoff_ns) ||
	    dash_duration(x, o, "retry_after_max", 0, 3600000000000ull,
			  &d->retry_after_max_ns) ||
	    cfg_get_uint(x, o, "max_attempts", "dashboard.", 1, 100, &n))
		return -1;
	d->max_attempts = n;
	v = cJSON_GetObjectItemCaseSensitive(o, "upload");
	if (v && !cJSON_IsBool(v)) {
		s = cfg_show(v);
		cfg_errf(x, "dashboard.upload: %s is not true or false", s);
		free(s);
		return -1;
	}
	d->upload = cJSON_IsTrue(v);
	return 0;
}

/* What the keys must be together: a url, SQUAD's slugs, one token. */
static int dash_check(struct cfg_ctx *x, struct dashboard_cfg *d)
{
	const char *key;

	if (!d->url)
		return cfg_errf(x, "dashboard: missing key \"url\"");
	if (dash_url(x, d->url, d->target))
		return -1;
	if (d->target == DASHBOARD_SQUAD) {
		key = !d->group ? "group" : !d->project ? "project" : NULL;
		if (key)
			return cfg_errf(x, "dashboard: missing key \"%s\" "
					"(SQUAD's submit URL names the group "
					"and project)", key);
		key = !is_slug(d->group) ? "group" :
		      !is_slug(d->project) ? "project" : NULL;
		if (key)
			return cfg_errf(x, "dashboard.%s: \"%s\" is not a "
					"SQUAD slug "
					"([a-zA-Z0-9][a-zA-Z0-9_.-]*)", key,
					!strcmp(key, "group") ? d->group :
					d->project);
	} else if (d->group || d->project || d->environment) {
		return cfg_errf(x, "dashboard.%s: only the squad target takes "
				"it", d->group ? "group" : d->project ?
				"project" : "environment");
	}
	if (d->token_env && d->token_file)
		return cfg_errf(x, "dashboard: token_env and token_file both "
				"given; name one");
	if (d->token_file && d->token_file[0] != '/')
		return cfg_errf(x, "dashboard.token_file: \"%s\" is not an "
				"absolute path", d->token_file);
	if (d->ca_file && d->ca_file[0] != '/')
		return cfg_errf(x, "dashboard.ca_file: \"%s\" is not an "
				"absolute path", d->ca_file);
	if (!d->token_file && !d->token_env)
		d->token_env = strdup("FOLIOBENCH_TOKEN");
	if (d->token_env && !is_env_name(d->token_env))
		return cfg_errf(x, "dashboard.token_env: \"%s\" is not an "
				"environment variable name", d->token_env);
	return 0;
}

/*
 * The dashboard section: absent or null, nothing is uploaded; otherwise a
 * url, and for SQUAD its group and project.
 */
int cfg_load_dashboard(struct cfg_ctx *x, struct dashboard_cfg *d,
		       const cJSON *o)
{
	if (!o || cJSON_IsNull(o))
		return 0;
	if (!cJSON_IsObject(o))
		return cfg_errf(x, "dashboard: an object ({ \"url\": ... }) or "
				"null");
	if (cfg_only_keys(x, o, "dashboard", dash_keys))
		return -1;
	d->timeout_ns = 30000000000ull;
	d->connect_timeout_ns = 10000000000ull;
	d->backoff_ns = 1000000000ull;
	d->retry_after_max_ns = 60000000000ull;
	d->max_attempts = 5;
	d->target = DASHBOARD_SQUAD;
	if (dash_read(x, d, o) || dash_check(x, d)) {
		cfg_dashboard_release(d);
		return -1;
	}
	/* the token goes to libcurl alone: no child inherits it */
	if (d->token_env)
		secret_env(d->token_env);
	return 0;
}
