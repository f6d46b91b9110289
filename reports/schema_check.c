/*
 * The run document checked against schema/run.schema.json (compiled in)
 * before it is printed or sent: the part of JSON Schema that file uses
 * (type, properties, required, additionalProperties, items, $ref into
 * $defs, enum, const, minimum, maximum, minLength, oneOf, if/then), and
 * every string valid UTF-8.  The first violation is said with its place
 * in the document: "/cases/0/samples/1/cpu: "x" is not an integer".
 */
#include "schema_check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/db.h"
#include "schema/db_upload.h"

#include <cjson/cJSON.h>

extern const char run_schema_json[];	/* build/gen/run_schema.c */

static bool utf8_ok(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 :
			(*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;

		if (n < 0 || (n == 1 && *p < 0xc2))
			return false;
		for (p++; n > 0; n--, p++)
			if ((*p & 0xc0) != 0x80)
				return false;
	}
	return true;
}

static bool is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	       v->valuedouble == floor(v->valuedouble);
}

static bool type_is(const cJSON *v, const char *t)
{
	if (!strcmp(t, "object"))
		return cJSON_IsObject(v);
	if (!strcmp(t, "array"))
		return cJSON_IsArray(v);
	if (!strcmp(t, "string"))
		return cJSON_IsString(v);
	if (!strcmp(t, "integer"))
		return is_integer(v);
	if (!strcmp(t, "number"))
		return cJSON_IsNumber(v);
	if (!strcmp(t, "boolean"))
		return cJSON_IsBool(v);
	if (!strcmp(t, "null"))
		return cJSON_IsNull(v);
	return false;
}

struct ck {
	const cJSON *root;		/* the schema, for $ref */
	struct strbuf *err;
	char path[512];
};

/* v shown short, for a message. */
static void show(const cJSON *v, char *buf, size_t n)
{
	char *s = cJSON_PrintUnformatted(v);

	snprintf(buf, n, "%.60s%s", s ? s : "?", s && strlen(s) > 60 ?
		 "..." : "");
	cJSON_free(s);
}

static int fail(struct ck *c, const cJSON *v, const char *why)
{
	char b[80];

	show(v, b, sizeof(b));
	if (!c->err->len)
		strbuf_addf(c->err, "%s: %s %s", c->path[0] ? c->path : "/",
			    b, why);
	return -1;
}

static int check(struct ck *c, const cJSON *s, const cJSON *v);

static const cJSON *deref(struct ck *c, const cJSON *s)
{
	const cJSON *ref = cJSON_GetObjectItemCaseSensitive(s, "$ref");

	if (!cJSON_IsString(ref) || strncmp(ref->valuestring, "#/$defs/", 8))
		return s;
	return cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(c->root, "$defs"),
		ref->valuestring + 8);
}

static int check_type(struct ck *c, const cJSON *s, const cJSON *v)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "type"), *e;
	char why[120];

	if (!t)
		return 0;
	if (cJSON_IsString(t)) {
		if (type_is(v, t->valuestring))
			return 0;
		snprintf(why, sizeof(why), "is not %s %s",
			 strchr("aeiou", t->valuestring[0]) ? "an" : "a",
			 t->valuestring);
		return fail(c, v, why);
	}
	cJSON_ArrayForEach(e, t)
		if (cJSON_IsString(e) && type_is(v, e->valuestring))
			return 0;
	return fail(c, v, "is none of the types the schema allows");
}

static int check_object(struct ck *c, const cJSON *s, const cJSON *v)
{
	const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
	const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
	const cJSON *add = cJSON_GetObjectItemCaseSensitive(s,
						"additionalProperties");
	const cJSON *e;
	size_t at = strlen(c->path);
	char why[200];

	cJSON_ArrayForEach(e, req)
		if (cJSON_IsString(e) &&
		    !cJSON_GetObjectItemCaseSensitive(v, e->valuestring)) {
			snprintf(why, sizeof(why), "lacks \"%.100s\"",
				 e->valuestring);
			return fail(c, v, why);
		}
	cJSON_ArrayForEach(e, v) {
		const cJSON *ps = cJSON_GetObjectItemCaseSensitive(props,
								   e->string);
		int r;

		snprintf(c->path + at, sizeof(c->path) - at, "/%s", e->string);
		if (!utf8_ok(e->string))
			return fail(c, e, "has a name that is not UTF-8");
		if (!ps && cJSON_IsFalse(add))
			return fail(c, e, "is a member the schema does not "
				    "allow");
		r = check(c, ps ? ps : cJSON_IsObject(add) ? add : NULL, e);
		if (r)
			return r;
		c->path[at] = '\0';
	}
	return 0;
}

static int check_array(struct ck *c, const cJSON *s, const cJSON *v)
{
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items"), *e;
	size_t at = strlen(c->path);
	int i = 0, r;

	cJSON_ArrayForEach(e, v) {
		snprintf(c->path + at, sizeof(c->path) - at, "/%d", i++);
		r = check(c, items, e);
		if (r)
			return r;
		c->path[at] = '\0';
	}
	return 0;
}

static int check_value(struct ck *c, const cJSON *s, const cJSON *v)
{
	const cJSON *k, *e;
	char why[80];

	if ((k = cJSON_GetObjectItemCaseSensitive(s, "const")) &&
	    !cJSON_Compare(k, v, true))
		return fail(c, v, "is not the value the schema fixes");
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "enum"))) {
		cJSON_ArrayForEach(e, k)
			if (cJSON_Compare(e, v, true))
				break;
		if (!e)
			return fail(c, v, "is none of the values the schema "
				    "lists");
	}
	if (cJSON_IsNumber(v) &&
	    (k = cJSON_GetObjectItemCaseSensitive(s, "minimum")) &&
	    v->valuedouble < k->valuedouble) {
		snprintf(why, sizeof(why), "is below %g", k->valuedouble);
		return fail(c, v, why);
	}
	if (cJSON_IsNumber(v) &&
	    (k = cJSON_GetObjectItemCaseSensitive(s, "maximum")) &&
	    v->valuedouble > k->valuedouble) {
		snprintf(why, sizeof(why), "is above %g", k->valuedouble);
		return fail(c, v, why);
	}
	if (cJSON_IsString(v) && !utf8_ok(v->valuestring))
		return fail(c, v, "is not UTF-8");
	if (cJSON_IsString(v) &&
	    (k = cJSON_GetObjectItemCaseSensitive(s, "minLength")) &&
	    strlen(v->valuestring) < (size_t)k->valuedouble)
		return fail(c, v, "is shorter than the schema allows");
	return 0;
}

/* A check that says nothing: the error of a branch tried and left. */
static int quiet(struct ck *c, const cJSON *s, const cJSON *v)
{
	struct strbuf mute = STRBUF_INIT, *keep = c->err;
	char path[sizeof(c->path)];
	int r;

	memcpy(path, c->path, sizeof(path));
	c->err = &mute;
	r = check(c, s, v);
	c->err = keep;
	memcpy(c->path, path, sizeof(path));
	strbuf_release(&mute);
	return r;
}

static int check(struct ck *c, const cJSON *s, const cJSON *v)
{
	const cJSON *k, *e;
	int r, n = 0;

	if (!s)
		return cJSON_IsString(v) && !utf8_ok(v->valuestring) ?
		       fail(c, v, "is not UTF-8") : 0;
	s = deref(c, s);
	if (!s)
		return fail(c, v, "names a $ref the schema lacks");
	if ((r = check_type(c, s, v)) || (r = check_value(c, s, v)))
		return r;
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "oneOf"))) {
		cJSON_ArrayForEach(e, k)
			n += !quiet(c, e, v);
		if (n != 1)
			return fail(c, v, "matches none or more than one of "
				    "the schema's oneOf");
	}
	if ((k = cJSON_GetObjectItemCaseSensitive(s, "if")) && !quiet(c, k, v) &&
	    (e = cJSON_GetObjectItemCaseSensitive(s, "then")) &&
	    (r = check(c, e, v)))
		return r;
	if (cJSON_IsObject(v))
		return check_object(c, s, v);
	if (cJSON_IsArray(v))
		return check_array(c, s, v);
	return 0;
}

int report_run_doc_check(const char *doc, struct strbuf *err)
{
	cJSON *schema = cJSON_Parse(run_schema_json), *v = cJSON_Parse(doc);
	struct ck c = { .root = schema, .err = err };
	int r;

	if (!schema) {
		strbuf_addf(err, "run.schema.json, compiled in, does not "
			    "parse");
		r = -1;
	} else if (!v) {
		strbuf_addf(err, "the run document is not JSON");
		r = -1;
	} else {
		r = check(&c, schema, v);
	}
	cJSON_Delete(schema);
	cJSON_Delete(v);
	return r;
}

int report_run_doc(struct db *db, const char *uuid, char **json)
{
	struct strbuf err = STRBUF_INIT;
	int r = db_run_doc(db, uuid, json);

	if (r || !report_run_doc_check(*json, &err)) {
		strbuf_release(&err);
		return r;
	}
	r = db_bad_row(db, "run %s: its run document would break "
		       "run.schema.json: %s", uuid, strbuf_str(&err));
	strbuf_release(&err);
	free(*json);
	*json = NULL;
	return r;
}
