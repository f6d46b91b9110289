/*
 * What one run sends, made from its rows in the database: for SQUAD the
 * URL of its build and environment (slugs) and the three fields of its
 * submit API (metadata, metrics, tests), each name within what SQUAD
 * keeps; for the json target the run document.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/schema_check.h"
#include "schema/db_vm.h"
#include "upload/payload.h"

#define SQUAD_NAME_MAX	256	/* SQUAD drops a test name longer */
#define UNIT_MAX	30	/* SQUAD's unit field */
#define HASH_HEX	12	/* hex digits of a long params' hash */

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

void payload_release(struct payload *p)
{
	free(p->url);
	free(p->shown);
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
int dashboard_base_len(const struct dashboard_cfg *d)
{
	size_t ul = strlen(d->url);

	while (ul && d->url[ul - 1] == '/')
		ul--;
	return (int)ul;
}

/* p->url, and p->shown made of it. */
static void set_url(struct payload *p, char *url)
{
	struct strbuf sb = STRBUF_INIT;

	p->url = url;
	url_masked(&sb, p->url);
	p->shown = strbuf_detach(&sb, NULL);
}

/*
 * DB_OK; DB_* of the database; UPLOAD_EROWS with p->bad for a run SQUAD
 * cannot take.
 */
int payload_build(struct db *db, const struct dashboard_cfg *d,
		  const struct db_upload_claim *c, struct payload *p)
{
	char build[SLUG_BUF], env[SLUG_BUF];
	const char *envname = d->environment ? d->environment : c->hostname;
	size_t ml;
	bool b;
	int r;

	p->first_metric = p->first_test = true;
	if (d->target == DASHBOARD_JSON) {
		set_url(p, xstrdup(d->url));
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
	set_url(p, xstrfmt("%.*s/api/submit/%s/%s/%s/%s",
			   dashboard_base_len(d), d->url, d->group,
			   d->project, build, env));
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
