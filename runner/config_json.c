/*
 * The config's JSON: where a value stands in the text (line and column,
 * which cJSON does not keep), the checks of every key and value before
 * any is used, and the messages that name them.
 */
#include "config_int.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads/params.h"

int cfg_errf(struct cfg_ctx *x, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	utf8_trim(buf);		/* cut short: never in a character */
	strbuf_addf(x->err, "%s: %s", x->file, buf);
	return -1;
}

/*
 * Up to 12 characters from p, on one line, for messages; bytes that are
 * not printable ASCII are shown as \xNN (the fuzz harness found raw bytes
 * of the input reaching the terminal here).
 */
const char *cfg_excerpt(const char *p)
{
	static char buf[64];
	size_t n = strcspn(p, "\r\n"), i, used = 0;

	for (i = 0; i < n && i < 12; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			buf[used++] = (char)c;
		else
			used += (size_t)snprintf(buf + used, sizeof(buf) - used,
						 "\\x%02x", c);
	}
	buf[used] = '\0';
	return buf;
}

void cfg_line_col(const char *text, const char *at, int *line, int *col)
{
	const char *p;

	*line = 1;
	*col = 1;
	for (p = text; p < at && *p; p++) {
		if (*p == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

/* A JSON value as the user wrote it, for messages. */
char *cfg_show(const cJSON *v)
{
	char *s;

	/* cJSON prints 15 digits: 2^53 + 1 came out 9.00719925474099e+15 */
	if (cJSON_IsNumber(v)) {
		struct strbuf sb = STRBUF_INIT;

		if (v->valuedouble == floor(v->valuedouble) &&
		    fabs(v->valuedouble) < 1e21)
			strbuf_addf(&sb, "%.0f", v->valuedouble);
		else
			strbuf_addf(&sb, "%.15g", v->valuedouble);
		if (strtod(sb.buf, NULL) != v->valuedouble) {
			strbuf_reset(&sb);
			strbuf_addf(&sb, "%.17g", v->valuedouble);
		}
		return sb.buf;
	}
	s = cJSON_PrintUnformatted(v);	/* NULL only when out of memory */

	if (!s)
		die_oom(0);
	return s;
}

bool cfg_is_comment(const char *key)
{
	return key && key[0] == '#';
}

#define MAX_DEPTH	16	/* a config needs 4: root, suite, entry, sweep */
#define MAX_STRING	4000	/* bytes; paths stay below PATH_MAX */
#define MAX_KEY		128

/*
 * What cJSON accepts but C cannot hold whole or people cannot read: a
 * "\u0000" (cJSON hands back C strings, cut there) and nesting deeper
 * than a config needs.  Checked on the text, with line and column.
 */
int cfg_scan_text(struct cfg_ctx *x, const char *text)
{
	const char *p;
	bool in_str = false;
	int depth = 0, line, col;

	for (p = text; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1] == 'u' &&
			    !strncmp(p + 2, "0000", 4)) {
				cfg_line_col(text, p, &line, &col);
				return cfg_errf(x, "line %d, column %d: a "
						"string holds \\u0000, which "
						"would cut it short", line,
						col);
			}
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '[' || *p == '{') {
			if (++depth > MAX_DEPTH) {
				cfg_line_col(text, p, &line, &col);
				return cfg_errf(x, "line %d, column %d: nested "
						"deeper than %d levels", line,
						col, MAX_DEPTH);
			}
		} else if (*p == ']' || *p == '}') {
			depth--;
		}
	}
	return 0;
}

/*
 * Where a value is in the text, for a message about it: cJSON keeps no
 * positions, so the value's place in the tree (the index of each child on
 * the way down) is walked again over the text, which cJSON has parsed.
 */
static int tree_path(const cJSON *o, const cJSON *t, int *idx, int depth)
{
	const cJSON *a;
	int i = 0, n;

	if (o == t)
		return depth;
	if (depth > MAX_DEPTH)
		return -1;
	for (a = o->child; a; a = a->next, i++) {
		idx[depth] = i;
		n = tree_path(a, t, idx, depth + 1);
		if (n >= 0)
			return n;
	}
	return -1;
}

/* cJSON skips every byte up to the space as blank */
static const char *skip_blank(const char *p)
{
	while (*p && (unsigned char)*p <= ' ')
		p++;
	return p;
}

static const char *skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

static const char *skip_value(const char *p)
{
	int depth = 0;

	if (*p == '"')
		return skip_string(p);
	if (*p != '{' && *p != '[')
		return p + strcspn(p, ",]} \t\r\n");
	do {
		if (*p == '"') {
			p = skip_string(p);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		p++;
	} while (*p && depth > 0);
	return p;
}

/* Where the JSON value v starts in x->text; NULL where it is not found. */
static const char *value_at(struct cfg_ctx *x, const cJSON *v)
{
	int idx[MAX_DEPTH + 2], n, d, i;
	const char *p = x->text;

	n = tree_path(x->root, v, idx, 0);
	if (n < 0)
		return NULL;
	if (!strncmp(p, "\xef\xbb\xbf", 3))
		p += 3;
	p = skip_blank(p);
	for (d = 0; d < n && *p; d++) {
		bool obj = *p == '{';

		p = skip_blank(p + 1);
		for (i = 0; *p; i++) {
			if (obj)	/* the key, then the colon */
				p = skip_blank(skip_blank(skip_string(p)) + 1);
			if (i == idx[d])
				break;
			p = skip_blank(skip_blank(skip_value(p)) + 1);
		}
	}
	return p;
}

void cfg_value_line_col(struct cfg_ctx *x, const cJSON *v, int *line,
			int *col)
{
	const char *p = value_at(x, v);

	cfg_line_col(x->text, p ? p : x->text, line, col);
}

/*
 * A number as the user wrote it (at most 40 characters of it): cJSON
 * keeps a double, which turns 9007199254740993 into ...992 and 1e300 into
 * 1.0000000000000001e+300.  "" where the text is not found.
 */
static void number_text(struct cfg_ctx *x, const cJSON *v, char *buf,
			size_t n)
{
	const char *p = value_at(x, v);
	/* a JSON number's own characters: cJSON skips any byte up to a
	 * space (a control byte too) after it as white space */
	size_t len = p ? strspn(p, "0123456789+-.eE") : 0;

	snprintf(buf, n, "%.*s%s", (int)(len > 40 ? 40 : len), p ? p : "",
		 len > 40 ? "..." : "");
}

/*
 * Beyond 2^53, where a double holds no longer every whole number: the
 * text, unless it is 2^53 itself written out (the one exact there).
 */
static bool inexact(struct cfg_ctx *x, const cJSON *v, char *buf, size_t n)
{
	if (fabs(v->valuedouble) < 9007199254740992.0)
		return false;
	number_text(x, v, buf, n);
	if (!buf[0]) {	/* not found: what the double holds */
		snprintf(buf, n, "%.17g", v->valuedouble);
		return fabs(v->valuedouble) > 9007199254740992.0;
	}
	/* a long double's 64 bits tell 2^53 + 1 from 2^53 */
	return fabsl(strtold(buf, NULL)) > 9007199254740992.0L;
}

/* How many bytes of s to show, at most max, not cutting a character. */
static int shown_len(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return (int)len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return (int)max;
}

/*
 * Every key and string is UTF-8 without control characters and of a sane
 * length; every number is finite and exact (at most 2^53).
 */
int cfg_check_values(struct cfg_ctx *x, const cJSON *o, const char *path)
{
	const cJSON *a;
	struct strbuf why = STRBUF_INIT;
	char sub[512], num[48];
	int i = 0, r;

	if (cJSON_IsString(o) &&
	    (r = check_text(o->valuestring, MAX_STRING, &why))) {
		struct strbuf q = STRBUF_INIT;

		/* not UTF-8: the value cannot be shown as it is */
		strbuf_json_str(&q, o->valuestring);
		if (r == -EILSEQ && !strncmp(why.buf, "is not valid", 12))
			cfg_errf(x, "%s: the string %s", *path ? path : "(top)",
				 why.buf);
		else
			cfg_errf(x, "%s: %.*s%s %s", *path ? path : "(top)",
				 shown_len(q.buf, q.len, 60), q.buf,
				 q.len > 60 ? "..." : "", why.buf);
		strbuf_release(&q);
		strbuf_release(&why);
		return -1;
	}
	if (cJSON_IsNumber(o) && !isfinite(o->valuedouble))
		return cfg_errf(x, "%s: a number too large to hold",
				*path ? path : "(top)");
	if (cJSON_IsNumber(o) && inexact(x, o, num, sizeof(num)))
		return cfg_errf(x, "%s: %s is beyond 2^53 "
				"(9007199254740992), where JSON numbers stop "
				"being exact; write sizes as \"8G\"",
				*path ? path : "(top)", num);
	for (a = o->child; a; a = a->next, i++) {
		if (cJSON_IsObject(o)) {
			r = check_text(a->string, MAX_KEY, &why);
			if (r == -EILSEQ &&
			    !strncmp(why.buf, "is not valid", 12)) {
				cfg_errf(x, "%s%sa key %s", path,
					 *path ? ": " : "", why.buf);
				strbuf_release(&why);
				return -1;
			} else if (r) {
				struct strbuf k = STRBUF_INIT;

				strbuf_json_str(&k, a->string);
				cfg_errf(x, "%s%skey %.*s%s %s", path,
					 *path ? ": " : "",
					 shown_len(k.buf, k.len, 60), k.buf,
					 k.len > 60 ? "..." : "", why.buf);
				strbuf_release(&k);
				strbuf_release(&why);
				return -1;
			}
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", a->string);
			utf8_trim(sub);
		} else {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			utf8_trim(sub);
		}
		if (cfg_check_values(x, a, sub))
			return -1;
	}
	return 0;
}

struct key_at {
	const char *key;
	int idx;
};

static int key_at_cmp(const void *a, const void *b)
{
	const struct key_at *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * The index of the first member of o whose key comes again later, or -1:
 * sorted, so that a config of many keys (up to 1 MiB of them) is checked in
 * n log n, not the n^2 of comparing each pair (52 s for 1 MiB).
 */
static int first_dup(const cJSON *o)
{
	const cJSON *a;
	struct key_at *k;
	int n = 0, i, first = -1;

	for (a = o->child; a; a = a->next)
		n++;
	if (n < 2)
		return -1;
	k = xcalloc((size_t)n, sizeof(*k));
	for (a = o->child, i = 0; a; a = a->next, i++)
		k[i] = (struct key_at){ a->string, i };
	qsort(k, (size_t)n, sizeof(*k), key_at_cmp);
	/* the first of each run of equal keys is its earliest */
	for (i = 0; i + 1 < n; i++)
		if (!strcmp(k[i].key, k[i + 1].key) &&
		    (first < 0 || k[i].idx < first) &&
		    (i == 0 || strcmp(k[i - 1].key, k[i].key)))
			first = k[i].idx;
	free(k);
	return first;
}

/* Reject duplicate keys anywhere (cJSON keeps both silently). */
int cfg_check_dups(struct cfg_ctx *x, const cJSON *o, const char *path)
{
	const cJSON *a;
	char sub[512];
	int i = 0, dup;

	if (cJSON_IsObject(o)) {
		dup = first_dup(o);
		for (a = o->child; a; a = a->next, i++) {
			if (i == dup)
				return cfg_errf(x, "%s%s%s: duplicate key",
						path, *path ? "." : "",
						a->string);
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", a->string);
			utf8_trim(sub);
			if (cfg_check_dups(x, a, sub))
				return -1;
		}
	} else if (cJSON_IsArray(o)) {
		for (a = o->child; a; a = a->next, i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			utf8_trim(sub);
			if (cfg_check_dups(x, a, sub))
				return -1;
		}
	}
	return 0;
}

static const char *nearest(const char *key, const char *const *names,
			   const struct param *params)
{
	const char *best = NULL;
	unsigned bd = UINT_MAX, d;
	int i;

	for (i = 0; names && names[i]; i++) {
		d = edit_distance(key, names[i]);
		if (d < bd) {
			bd = d;
			best = names[i];
		}
	}
	for (i = 0; params && params[i].name; i++) {
		d = edit_distance(key, params[i].name);
		if (d < bd) {
			bd = d;
			best = params[i].name;
		}
	}
	/* only suggest what is plausibly a typo */
	return bd <= 3 && bd < strlen(key) ? best : NULL;
}

static int unknown_key(struct cfg_ctx *x, const char *path, const char *key,
		       const char *const *names, const struct param *params,
		       const char *where)
{
	const char *n = nearest(key, names, params);

	if (n)
		return cfg_errf(x, "%s%s: unknown key in %s; did you mean "
				"\"%s\"?", path, key, where, n);
	return cfg_errf(x, "%s%s: unknown key in %s", path, key, where);
}

/* Whole non-negative number from a JSON number. */
int cfg_json_uint(const cJSON *v, uint64_t *out)
{
	return cJSON_IsNumber(v) ? wl_whole_number(v->valuedouble, out) : -1;
}

int cfg_get_uint(struct cfg_ctx *x, const cJSON *o, const char *key,
		 const char *path, uint64_t min, uint64_t max, unsigned *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	uint64_t u;
	char *s;

	if (!v)
		return 0;
	if (cfg_json_uint(v, &u) || u < min || u > max) {
		s = cfg_show(v);
		cfg_errf(x, "%s%s: %s is not a whole number from %llu to %llu",
			 path, key, s, (unsigned long long)min,
			 (unsigned long long)max);
		free(s);
		return -1;
	}
	*out = (unsigned)u;
	return 0;
}

int cfg_get_str(struct cfg_ctx *x, const cJSON *o, const char *key,
		char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *s;

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring) {
		s = cfg_show(v);
		cfg_errf(x, "%s: %s is not a non-empty string", key, s);
		free(s);
		return -1;
	}
	free(*out);
	*out = xstrdup(v->valuestring);
	return 0;
}

/* Every key of o but comments is one of keys or of params' names. */
int cfg_known_keys(struct cfg_ctx *x, const cJSON *o, const char *prefix,
		   const char *const *keys, const struct param *params,
		   const char *where)
{
	const cJSON *v;
	int k;

	for (v = o->child; v; v = v->next) {
		bool known = false;

		if (cfg_is_comment(v->string))
			continue;
		for (k = 0; keys[k]; k++)
			known |= !strcmp(v->string, keys[k]);
		for (k = 0; params && params[k].name; k++)
			known |= !strcmp(v->string, params[k].name);
		if (!known)
			return unknown_key(x, prefix, v->string, keys, params,
					   where);
	}
	return 0;
}

/* Only these keys (and comments) in object o, at path. */
int cfg_only_keys(struct cfg_ctx *x, const cJSON *o, const char *path,
		  const char *const *keys)
{
	char prefix[128];

	if (!cJSON_IsObject(o))
		return cfg_errf(x, "%s: not an object", path);
	snprintf(prefix, sizeof(prefix), "%s.", path);
	return cfg_known_keys(x, o, prefix, keys, NULL, path);
}
