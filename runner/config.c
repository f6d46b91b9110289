/*
 * The configuration: strict validation against the workloads' parameter
 * tables, then sweep expansion (a parameter given as an array is a sweep).
 * Keys that start with "#" are comments and are ignored everywhere.
 */
#include "runner.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schema/db.h"

static const char *const top_keys[] = {
	"database", "label", "runs", "warmup", "cpu", "scratch",
	"disk_scratch", "suite", "cpus", "placement", "steal_max",
	"dashboard", "plan", NULL,
};
static const char *const plan_keys[] = { "base", "patch", "boots", "effect",
					 NULL };
static const char *const side_keys[] = { "label", "boot", NULL };
static const char *const boot_keys[] = { "grub", "kernel", "initrd",
					 "cmdline", NULL };
static const char *const entry_keys[] = { "workload", "runs", "warmup", NULL };

struct ctx {
	const char *file;
	const char *text;
	const cJSON *root;
	struct strbuf *err;
};

static int errf(struct ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int errf(struct ctx *x, const char *fmt, ...)
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
static const char *excerpt(const char *p)
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

static void line_col(const char *text, const char *at, int *line, int *col)
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
static char *show(const cJSON *v)
{
	char *s = cJSON_PrintUnformatted(v);	/* NULL only when out of memory */

	if (!s)
		die_oom(0);
	return s;
}

static bool is_comment(const char *key)
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
static int scan_text(struct ctx *x, const char *text)
{
	const char *p;
	bool in_str = false;
	int depth = 0, line, col;

	for (p = text; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1] == 'u' &&
			    !strncmp(p + 2, "0000", 4)) {
				line_col(text, p, &line, &col);
				return errf(x, "line %d, column %d: a string "
					    "holds \\u0000, which would cut it "
					    "short", line, col);
			}
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '[' || *p == '{') {
			if (++depth > MAX_DEPTH) {
				line_col(text, p, &line, &col);
				return errf(x, "line %d, column %d: nested deeper "
					    "than %d levels", line, col,
					    MAX_DEPTH);
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

static void value_line_col(struct ctx *x, const cJSON *v, int *line, int *col)
{
	int idx[MAX_DEPTH + 2], n, d, i;
	const char *p = x->text;

	n = tree_path(x->root, v, idx, 0);
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
	line_col(x->text, n < 0 ? x->text : p, line, col);
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
static int check_values(struct ctx *x, const cJSON *o, const char *path)
{
	const cJSON *a;
	char sub[512], why[128];
	int i = 0, r;

	if (cJSON_IsString(o) &&
	    (r = check_text(o->valuestring, MAX_STRING, why, sizeof(why)))) {
		struct strbuf q = STRBUF_INIT;

		/* not UTF-8: the value cannot be shown as it is */
		strbuf_json_str(&q, o->valuestring);
		if (r == -EILSEQ && !strncmp(why, "is not valid", 12))
			errf(x, "%s: the string %s", *path ? path : "(top)", why);
		else
			errf(x, "%s: %.*s%s %s", *path ? path : "(top)",
			     shown_len(q.buf, q.len, 60), q.buf,
			     q.len > 60 ? "..." : "", why);
		strbuf_release(&q);
		return -1;
	}
	if (cJSON_IsNumber(o) && !isfinite(o->valuedouble))
		return errf(x, "%s: a number too large to hold",
			    *path ? path : "(top)");
	if (cJSON_IsNumber(o) && fabs(o->valuedouble) > 9007199254740992.0)
		return errf(x, "%s: %.17g is beyond 2^53 (9007199254740992), "
			    "where JSON numbers stop being exact; write sizes "
			    "as \"8G\"", *path ? path : "(top)",
			    o->valuedouble);
	for (a = o->child; a; a = a->next, i++) {
		if (cJSON_IsObject(o)) {
			r = check_text(a->string, MAX_KEY, why, sizeof(why));
			if (r == -EILSEQ && !strncmp(why, "is not valid", 12)) {
				return errf(x, "%s%sa key %s", path,
					    *path ? ": " : "", why);
			} else if (r) {
				struct strbuf k = STRBUF_INIT;

				strbuf_json_str(&k, a->string);
				errf(x, "%s%skey %.*s%s %s", path,
				     *path ? ": " : "",
				     shown_len(k.buf, k.len, 60), k.buf,
				     k.len > 60 ? "..." : "", why);
				strbuf_release(&k);
				return -1;
			}
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", a->string);
			utf8_trim(sub);
		} else {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			utf8_trim(sub);
		}
		if (check_values(x, a, sub))
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
static int check_dups(struct ctx *x, const cJSON *o, const char *path)
{
	const cJSON *a;
	char sub[512];
	int i = 0, dup;

	if (cJSON_IsObject(o)) {
		dup = first_dup(o);
		for (a = o->child; a; a = a->next, i++) {
			if (i == dup)
				return errf(x, "%s%s%s: duplicate key",
					    path, *path ? "." : "",
					    a->string);
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", a->string);
			utf8_trim(sub);
			if (check_dups(x, a, sub))
				return -1;
		}
	} else if (cJSON_IsArray(o)) {
		for (a = o->child; a; a = a->next, i++) {
			snprintf(sub, sizeof(sub), "%s[%d]", path, i);
			utf8_trim(sub);
			if (check_dups(x, a, sub))
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

static int unknown_key(struct ctx *x, const char *path, const char *key,
		       const char *const *names, const struct param *params,
		       const char *where)
{
	const char *n = nearest(key, names, params);

	if (n)
		return errf(x, "%s%s: unknown key in %s; did you mean \"%s\"?",
			    path, key, where, n);
	return errf(x, "%s%s: unknown key in %s", path, key, where);
}

/* Whole non-negative number from a JSON number. */
static int json_uint(const cJSON *v, uint64_t *out)
{
	double d = v->valuedouble;

	/* beyond 2^53 a JSON number is not exact: check_values refuses it */
	if (!cJSON_IsNumber(v) || d < 0 || d != floor(d) || d > 9007199254740992.0)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static const char *type_name(enum param_type t)
{
	switch (t) {
	case PT_SIZE: return "a size such as \"64M\" or \"8G\"";
	case PT_UINT: return "a whole number";
	case PT_DURATION: return "a duration such as \"10s\" or \"500ms\"";
	case PT_ENUM: return "one of the listed choices";
	case PT_STRING:
	case PT_SIZE_AUTO: return "a string";
	case PT_PERCENT: return "a percentage from 0 to 100";
	}
	return "?";
}

/*
 * Parse one scalar value of a parameter into its canonical form.  v is the
 * JSON value, or NULL with def set for the table's default.
 */
static int parse_value(struct ctx *x, const char *path, const struct param *p,
		       const cJSON *v, const char *def, struct wl_value *out)
{
	char buf[128], why[256], *shown = NULL;
	const char *s = def;
	uint64_t u = 0;
	int r = 0, i;

	if (v) {
		shown = show(v);
		if (cJSON_IsString(v))
			s = v->valuestring;
		else if (cJSON_IsNumber(v) && param_is_number(p->type))
			s = NULL;
		else {
			errf(x, "%s: %s is not %s", path, shown,
			     type_name(p->type));
			free(shown);
			return -1;
		}
	}
	buf[0] = '\0';
	switch (p->type) {
	case PT_SIZE:
		r = s ? parse_size(s, &u) : json_uint(v, &u);
		if (r == -ERANGE) {
			errf(x, "%s: %s is too large (more than 2^64 bytes)",
			     path, shown ? shown : s);
			goto fail;
		}
		if (r) {
			errf(x, "%s: %s is not a size (a whole number of "
			     "bytes, or with k, M, G, T: \"64M\", \"8G\")",
			     path, shown ? shown : s);
			goto fail;
		}
		format_size(u, buf, sizeof(buf));
		break;
	case PT_UINT:
	case PT_PERCENT:
		r = s ? parse_u64(s, &u) : json_uint(v, &u);
		if (r) {
			errf(x, "%s: %s is not %s", path, shown ? shown : s,
			     p->type == PT_UINT ? "a whole number"
						: "a whole percentage");
			goto fail;
		}
		if (p->type == PT_PERCENT && u > 100) {
			errf(x, "%s: %s is out of range (0 to 100)", path,
			     shown ? shown : s);
			goto fail;
		}
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)u);
		break;
	case PT_DURATION:
		if (s)
			r = parse_duration(s, &u);
		else
			r = duration_from_double(v->valuedouble, 1e9, &u);
		if (r == -ERANGE) {
			errf(x, "%s: %s is too long a duration (more than 292 "
			     "years)", path, shown ? shown : s);
			goto fail;
		}
		if (r) {
			errf(x, "%s: %s is not a duration (\"10s\", \"500ms\", "
			     "\"2m\")", path, shown ? shown : s);
			goto fail;
		}
		format_duration(u, buf, sizeof(buf));
		break;
	case PT_ENUM:
		for (i = 0; p->choices[i]; i++)
			if (!strcmp(s, p->choices[i]))
				break;
		if (!p->choices[i]) {
			struct strbuf c = STRBUF_INIT;

			for (i = 0; p->choices[i]; i++)
				strbuf_addf(&c, "%s%s", i ? ", " : "",
					    p->choices[i]);
			errf(x, "%s: \"%s\" is not one of: %s", path, s,
			     strbuf_str(&c));
			strbuf_release(&c);
			goto fail;
		}
		snprintf(buf, sizeof(buf), "%s", s);
		break;
	case PT_STRING:
	case PT_SIZE_AUTO:
		if (p->check && p->check(s, why, sizeof(why))) {
			errf(x, "%s: \"%s\": %s", path, s, why);
			goto fail;
		}
		if (p->type == PT_SIZE_AUTO && strcmp(s, "auto") &&
		    parse_size(s, &u)) {
			errf(x, "%s: \"%s\": not \"auto\" or a size "
			     "(\"512M\", \"4G\")", path, s);
			goto fail;
		}
		if (strlen(s) >= sizeof(buf)) {
			errf(x, "%s: \"%.*s...\" is too long", path,
			     shown_len(s, strlen(s), 40), s);
			goto fail;
		}
		snprintf(buf, sizeof(buf), "%s", s);
		break;
	}
	if (param_is_number(p->type)) {
		if (u < p->min || (p->max && u > p->max)) {
			char range[160];

			config_range_str(p, range, sizeof(range));
			errf(x, "%s: %s is out of range (%s)", path,
			     shown ? shown : s, range);
			goto fail;
		}
	}
	out->str = xstrdup(buf);
	out->u = u;
	free(shown);
	return 0;
fail:
	free(shown);
	return -1;
}

/* Values of one parameter in one entry: a scalar, or a sweep. */
struct axis {
	struct wl_value vals[64];
	int n;
};

/*
 * A sweep takes each value once: the last of ax is e, an element of the
 * sweep v at path; refuse it when it is an earlier one again, in any
 * spelling ("1G" after "1024M").
 */
static int same_value(struct ctx *x, const char *path, const struct param *p,
		      const cJSON *v, const cJSON *e, const struct axis *ax)
{
	const struct wl_value *last = &ax->vals[ax->n - 1];
	const cJSON *f = v->child;
	char *a, *b;
	int i, line, col;

	for (i = 0; i < ax->n - 1; i++, f = f->next) {
		bool num = param_is_number(p->type);

		if (num ? ax->vals[i].u != last->u :
			  strcmp(ax->vals[i].str, last->str))
			continue;
		value_line_col(x, e, &line, &col);
		a = show(e);
		b = show(f);
		errf(x, "line %d, column %d: %s[%d]: %s is the value of %s[%d] "
		     "(%s) again; a sweep takes each value once", line, col,
		     path, ax->n - 1, a, path, i, b);
		free(a);
		free(b);
		return -1;
	}
	return 0;
}

static int parse_axis(struct ctx *x, const char *path, const struct param *p,
		      const cJSON *v, struct axis *ax)
{
	const cJSON *e;
	char sub[540];
	int i = 0;

	ax->n = 0;
	if (!v)
		return parse_value(x, path, p, NULL, p->def, &ax->vals[ax->n++]);
	if (!cJSON_IsArray(v))
		return parse_value(x, path, p, v, NULL, &ax->vals[ax->n++]);
	if (!v->child)
		return errf(x, "%s: an empty sweep runs nothing", path);
	for (e = v->child; e; e = e->next, i++) {
		if (ax->n == (int)ARRAY_SIZE(ax->vals))
			return errf(x, "%s: more than %zu values in one sweep",
				    path, ARRAY_SIZE(ax->vals));
		snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		utf8_trim(sub);
		if (cJSON_IsArray(e) || cJSON_IsObject(e))
			return errf(x, "%s: a sweep holds plain values", sub);
		if (parse_value(x, sub, p, e, NULL, &ax->vals[ax->n++]))
			return -1;
		if (same_value(x, path, p, v, e, ax))
			return -1;
	}
	return 0;
}


void config_value_str(const struct param *p, const struct wl_value *v,
		      char *buf, size_t n)
{
	switch (p->type) {
	case PT_SIZE:
		format_size(v->u, buf, n);
		break;
	case PT_DURATION:
		format_duration(v->u, buf, n);
		break;
	case PT_UINT:
	case PT_PERCENT:
		snprintf(buf, n, "%llu", (unsigned long long)v->u);
		break;
	case PT_ENUM:
	case PT_STRING:
	case PT_SIZE_AUTO:
		snprintf(buf, n, "%s", v->str ? v->str : "");
		break;
	}
}

void config_range_str(const struct param *p, char *buf, size_t n)
{
	struct wl_value lo = { .u = p->min }, hi = { .u = p->max };
	char l[64], h[64];

	config_value_str(p, &lo, l, sizeof(l));
	config_value_str(p, &hi, h, sizeof(h));
	if (p->max)
		snprintf(buf, n, "%s to %s", l, h);
	else
		snprintf(buf, n, "at least %s", l);
}

char *config_params_json(const struct workload *w, const struct wl_value *v)
{
	struct strbuf pj = STRBUF_INIT;
	int i;

	strbuf_addf(&pj, "{");
	for (i = 0; w->params[i].name; i++) {
		strbuf_addf(&pj, "%s", i ? "," : "");
		strbuf_json_str(&pj, w->params[i].name);
		strbuf_addf(&pj, ":");
		strbuf_json_str(&pj, v[i].str ? v[i].str : "");
	}
	strbuf_addf(&pj, "}");
	return pj.buf ? pj.buf : strdup("{}");
}

static int add_cases(struct config *cfg, const struct workload *w,
		     struct axis *axes, const bool *given, int np,
		     unsigned runs, unsigned warmup)
{
	int idx[WL_MAX_PARAMS] = { 0 }, i;

	for (;;) {
		struct plan_case *c;
		struct strbuf title = STRBUF_INIT;

		c = xrealloc(cfg->cases, sizeof(*c) * (size_t)(cfg->ncases + 1));
		cfg->cases = c;
		c = &cfg->cases[cfg->ncases++];
		memset(c, 0, sizeof(*c));
		c->wl = w;
		c->runs = runs;
		c->warmup = warmup;
		for (i = 0; i < np; i++) {
			c->v[i].str = xstrdup(axes[i].vals[idx[i]].str);
			c->v[i].u = axes[i].vals[idx[i]].u;
			/* the title names what the config chose */
			if (given[i])
				strbuf_addf(&title, "%s%s=%s",
					    title.len ? " " : "",
					    w->params[i].name, c->v[i].str);
		}
		c->params_json = config_params_json(w, c->v);
		c->title = title.buf ? title.buf : xstrdup("(defaults)");
		/* next point of the cartesian product, last axis fastest */
		for (i = np - 1; i >= 0; i--) {
			if (++idx[i] < axes[i].n)
				break;
			idx[i] = 0;
		}
		if (i < 0)
			return 0;
	}
}

#define MAX_CASES	10000	/* a week of runs at a minute a case */

/*
 * The cases of entry i, with those of the entries before, stay within
 * MAX_CASES: a product of sweeps (64^4) would otherwise be expanded in
 * memory until it runs out.
 */
static int too_many_cases(struct ctx *x, const struct config *cfg,
			  const struct workload *w, const struct axis *axes,
			  int np, int i)
{
	struct strbuf how = STRBUF_INIT;
	uint64_t n = 1, all;
	bool over = false;
	char total[96] = "";
	int k;

	for (k = 0; k < np; k++) {
		over |= __builtin_mul_overflow(n, (uint64_t)axes[k].n, &n);
		if (axes[k].n > 1)
			strbuf_addf(&how, "%s%s: %d values", how.len ? " x " : "",
				    w->params[k].name, axes[k].n);
	}
	over |= __builtin_add_overflow(n, (uint64_t)cfg->ncases, &all);
	if (!over && all <= MAX_CASES) {
		strbuf_release(&how);
		return 0;
	}
	if (cfg->ncases)
		snprintf(total, sizeof(total), ", %llu with the %d before it",
			 (unsigned long long)all, cfg->ncases);
	if (over)
		errf(x, "suite[%d]: its sweeps (%s) make more than 2^64 cases, "
		     "more than the %d a config may run", i, strbuf_str(&how),
		     MAX_CASES);
	else
		errf(x, "suite[%d]: %s%s%s%s %llu case%s%s, more than the %d "
		     "a config may run", i, how.len ? "its sweeps (" : "",
		     strbuf_str(&how), how.len ? ")" : "the entry",
		     how.len ? " make" : " makes", (unsigned long long)n,
		     n == 1 ? "" : "s", total, MAX_CASES);
	strbuf_release(&how);
	return -1;
}

static int get_uint(struct ctx *x, const cJSON *o, const char *key,
		    const char *path, uint64_t min, uint64_t max, unsigned *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	uint64_t u;
	char *s;

	if (!v)
		return 0;
	if (json_uint(v, &u) || u < min || u > max) {
		s = show(v);
		errf(x, "%s%s: %s is not a whole number from %llu to %llu",
		     path, key, s, (unsigned long long)min,
		     (unsigned long long)max);
		free(s);
		return -1;
	}
	*out = (unsigned)u;
	return 0;
}

static int get_str(struct ctx *x, const cJSON *o, const char *key, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *s;

	if (!v)
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring) {
		s = show(v);
		errf(x, "%s: %s is not a non-empty string", key, s);
		free(s);
		return -1;
	}
	free(*out);
	*out = xstrdup(v->valuestring);
	return 0;
}

static int load_entry(struct ctx *x, struct config *cfg, const cJSON *e,
		      int i)
{
	const struct workload *w;
	const cJSON *v, *name;
	struct axis *axes;
	bool given[WL_MAX_PARAMS] = { false };
	char path[64], sub[512];
	unsigned runs = cfg->runs, warmup = cfg->warmup;
	int np, k, r = -1;

	snprintf(path, sizeof(path), "suite[%d].", i);
	if (!cJSON_IsObject(e))
		return errf(x, "suite[%d]: a suite entry is an object with a "
			    "\"workload\" key", i);
	name = cJSON_GetObjectItemCaseSensitive(e, "workload");
	if (!name)
		return errf(x, "suite[%d]: missing key \"workload\"", i);
	if (!cJSON_IsString(name))
		return errf(x, "suite[%d].workload: not a string", i);
	w = workload_find(name->valuestring);
	if (!w) {
		const struct workload *const *ws = workloads_get();
		const char *best = NULL;
		unsigned bd = UINT_MAX;

		for (; *ws; ws++) {
			unsigned d = edit_distance(name->valuestring,
						   (*ws)->name);
			if (d < bd) {
				bd = d;
				best = (*ws)->name;
			}
		}
		if (best && bd <= 3)
			return errf(x, "suite[%d].workload: unknown workload "
				    "\"%s\"; did you mean \"%s\"?", i,
				    name->valuestring, best);
		return errf(x, "suite[%d].workload: unknown workload \"%s\" "
			    "(see `bench list`)", i, name->valuestring);
	}
	for (v = e->child; v; v = v->next) {
		bool known = false;

		if (is_comment(v->string))
			continue;
		for (k = 0; entry_keys[k]; k++)
			known |= !strcmp(v->string, entry_keys[k]);
		for (k = 0; w->params[k].name; k++)
			known |= !strcmp(v->string, w->params[k].name);
		if (!known)
			return unknown_key(x, path, v->string, entry_keys,
					   w->params, w->name);
	}
	if (get_uint(x, e, "runs", path, 1, 100000, &runs) ||
	    get_uint(x, e, "warmup", path, 0, 100000, &warmup))
		return -1;
	for (np = 0; w->params[np].name; np++)
		;
	axes = xcalloc((size_t)np + 1, sizeof(*axes));
	for (k = 0; k < np; k++) {
		snprintf(sub, sizeof(sub), "%s%s", path, w->params[k].name);
		v = cJSON_GetObjectItemCaseSensitive(e, w->params[k].name);
		given[k] = v != NULL;
		if (parse_axis(x, sub, &w->params[k], v, &axes[k]))
			goto out;
	}
	if (!too_many_cases(x, cfg, w, axes, np, i))
		r = add_cases(cfg, w, axes, given, np, runs, warmup);
out:
	for (k = 0; k < np; k++)
		for (i = 0; i < axes[k].n; i++)
			free((char *)axes[k].vals[i].str);
	free(axes);
	return r;
}

static const char *const dash_keys[] = {
	"target", "url", "group", "project", "environment", "token_env",
	"token_file", "upload", "timeout", "connect_timeout", "max_attempts",
	"ca_file", "backoff", "retry_after_max", NULL,
};

static void dashboard_release(struct dashboard_cfg *d)
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
static int dash_str(struct ctx *x, const cJSON *o, const char *key,
		    char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	char *s;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v) || !*v->valuestring ||
	    strlen(v->valuestring) > 2048) {
		s = show(v);
		errf(x, "dashboard.%s: %s is not a non-empty string (of at most "
		     "2048 characters)", key, s);
		free(s);
		return -1;
	}
	for (s = v->valuestring; *s; s++)
		if (iscntrl((unsigned char)*s))
			return errf(x, "dashboard.%s: a control character in "
				    "\"%s\"", key, v->valuestring);
	free(*out);
	*out = strdup(v->valuestring);
	return 0;
}

static int dash_duration(struct ctx *x, const cJSON *o, const char *key,
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
	s = show(v);
	errf(x, "dashboard.%s: %s is not a duration from %s to %s (\"30s\", "
	     "\"500ms\")", key, s, lo, hi);
	free(s);
	return -1;
}

/*
 * An http or https URL with a host, and no credentials in it: none before
 * the host, none in the query (a query at all for SQUAD, whose submit path
 * is added to the url).  Messages show the query's values masked.
 */
static int dash_url(struct ctx *x, const char *url, enum dashboard_target t)
{
	const char *host = NULL;
	struct strbuf m = STRBUF_INIT;
	int r = 0;

	url_masked(&m, url);
	if (!strncmp(url, "https://", 8))
		host = url + 8;
	else if (!strncmp(url, "http://", 7))
		host = url + 7;
	if (!host || !*host || *host == '/')
		r = errf(x, "dashboard.url: \"%s\" is not an http:// or "
			 "https:// URL with a host", strbuf_str(&m));
	else if (memchr(host, '@', strcspn(host, "/?#")))
		r = errf(x, "dashboard.url: \"%s\" holds credentials; put "
			 "the token in token_env or token_file",
			 strbuf_str(&m));
	else if (url_query_secret(url))
		r = errf(x, "dashboard.url: \"%s\" holds a credential in its "
			 "query; put the token in token_env or token_file",
			 strbuf_str(&m));
	else if (t == DASHBOARD_SQUAD && strpbrk(url, "?#"))
		r = errf(x, "dashboard.url: \"%s\" has a query or fragment; "
			 "SQUAD's is the server's address (the submit path is "
			 "added to it)", strbuf_str(&m));
	else if (strpbrk(url, " \t"))
		r = errf(x, "dashboard.url: \"%s\" holds a blank",
			 strbuf_str(&m));
	strbuf_release(&m);
	return r;
}

/*
 * The dashboard section: absent or null, nothing is uploaded; otherwise a
 * url, and for SQUAD its group and project.
 */
static int load_dashboard(struct ctx *x, struct dashboard_cfg *d,
			  const cJSON *o)
{
	const cJSON *v;
	char *target = NULL;
	unsigned n = 5;
	int k;

	if (!o || cJSON_IsNull(o))
		return 0;
	if (!cJSON_IsObject(o))
		return errf(x, "dashboard: an object ({ \"url\": ... }) or "
			    "null");
	for (v = o->child; v; v = v->next) {
		bool known = false;

		if (is_comment(v->string))
			continue;
		for (k = 0; dash_keys[k]; k++)
			known |= !strcmp(v->string, dash_keys[k]);
		if (!known)
			return unknown_key(x, "dashboard.", v->string,
					   dash_keys, NULL, "dashboard");
	}
	d->timeout_ns = 30000000000ull;
	d->connect_timeout_ns = 10000000000ull;
	d->backoff_ns = 1000000000ull;
	d->retry_after_max_ns = 60000000000ull;
	d->max_attempts = 5;
	d->target = DASHBOARD_SQUAD;
	if (dash_str(x, o, "target", &target))
		return -1;
	if (target && !strcmp(target, "json")) {
		d->target = DASHBOARD_JSON;
	} else if (target && strcmp(target, "squad")) {
		errf(x, "dashboard.target: \"%s\" is not one of: squad, json",
		     target);
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
	    get_uint(x, o, "max_attempts", "dashboard.", 1, 100, &n))
		goto fail;
	d->max_attempts = n;
	v = cJSON_GetObjectItemCaseSensitive(o, "upload");
	if (v && !cJSON_IsBool(v)) {
		char *s = show(v);

		errf(x, "dashboard.upload: %s is not true or false", s);
		free(s);
		goto fail;
	}
	d->upload = cJSON_IsTrue(v);
	if (!d->url) {
		errf(x, "dashboard: missing key \"url\"");
		goto fail;
	}
	if (dash_url(x, d->url, d->target))
		goto fail;
	if (d->target == DASHBOARD_SQUAD) {
		const char *key = !d->group ? "group" :
				  !d->project ? "project" : NULL;

		if (key) {
			errf(x, "dashboard: missing key \"%s\" (SQUAD's "
			     "submit URL names the group and project)", key);
			goto fail;
		}
		key = !is_slug(d->group) ? "group" :
		      !is_slug(d->project) ? "project" : NULL;
		if (key) {
			errf(x, "dashboard.%s: \"%s\" is not a SQUAD slug "
			     "([a-zA-Z0-9][a-zA-Z0-9_.-]*)", key,
			     !strcmp(key, "group") ? d->group : d->project);
			goto fail;
		}
	} else if (d->group || d->project || d->environment) {
		errf(x, "dashboard.%s: only the squad target takes it",
		     d->group ? "group" : d->project ? "project" :
		     "environment");
		goto fail;
	}
	if (d->token_env && d->token_file) {
		errf(x, "dashboard: token_env and token_file both given; "
		     "name one");
		goto fail;
	}
	if (d->token_file && d->token_file[0] != '/') {
		errf(x, "dashboard.token_file: \"%s\" is not an absolute path",
		     d->token_file);
		goto fail;
	}
	if (d->ca_file && d->ca_file[0] != '/') {
		errf(x, "dashboard.ca_file: \"%s\" is not an absolute path",
		     d->ca_file);
		goto fail;
	}
	if (!d->token_file && !d->token_env)
		d->token_env = strdup("FOLIOBENCH_TOKEN");
	if (d->token_env && !is_env_name(d->token_env)) {
		errf(x, "dashboard.token_env: \"%s\" is not an environment "
		     "variable name", d->token_env);
		goto fail;
	}
	/* the token goes to libcurl alone: no child inherits it */
	if (d->token_env)
		secret_env(d->token_env);
	return 0;
fail:
	dashboard_release(d);
	return -1;
}

/* Only these keys (and comments) in object o, at path. */
static int only_keys(struct ctx *x, const cJSON *o, const char *path,
		     const char *const *keys)
{
	const cJSON *v;
	int k;

	if (!cJSON_IsObject(o))
		return errf(x, "%s: not an object", path);
	for (v = o->child; v; v = v->next) {
		bool known = false;

		if (is_comment(v->string))
			continue;
		for (k = 0; keys[k]; k++)
			known |= !strcmp(v->string, keys[k]);
		if (!known) {
			char prefix[128];

			snprintf(prefix, sizeof(prefix), "%s.", path);
			return unknown_key(x, prefix, v->string, keys, NULL,
					   path);
		}
	}
	return 0;
}

/* A non-empty string of at most 4000 bytes without control characters. */
static int plan_str(struct ctx *x, const cJSON *o, const char *key,
		    const char *path, bool abs_path, char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *p;
	char *s;

	if (!v)
		return 0;
	if (cJSON_IsString(v) && *v->valuestring &&
	    strlen(v->valuestring) <= 4000 &&
	    (!abs_path || v->valuestring[0] == '/')) {
		for (p = v->valuestring; *p && (unsigned char)*p >= 0x20 &&
		     *p != 0x7f; p++)
			;
		if (!*p) {
			*out = xstrdup(v->valuestring);
			return 0;
		}
	}
	s = show(v);
	errf(x, "%s.%s: %s is not %s", path, key, s, abs_path ?
	     "an absolute path" : "a non-empty string of one line");
	free(s);
	return -1;
}

static int load_plan_side(struct ctx *x, const cJSON *plan, const char *key,
			  struct plan_side *ps)
{
	const cJSON *o = cJSON_GetObjectItemCaseSensitive(plan, key);
	const cJSON *boot;
	char path[64], bpath[80], why[128];

	snprintf(path, sizeof(path), "plan.%s", key);
	if (!o)
		return errf(x, "plan: missing key \"%s\" (an object with "
			    "\"label\" and \"boot\")", key);
	if (only_keys(x, o, path, side_keys) ||
	    plan_str(x, o, "label", path, false, &ps->label))
		return -1;
	if (!ps->label)
		return errf(x, "%s: missing key \"label\"", path);
	if (label_check(ps->label, why, sizeof(why)))
		return errf(x, "%s.label: \"%s\": %s", path, ps->label, why);
	boot = cJSON_GetObjectItemCaseSensitive(o, "boot");
	if (!boot)
		return 0;	/* `bench plan` works without; --reboot not */
	snprintf(bpath, sizeof(bpath), "%s.boot", path);
	if (only_keys(x, boot, bpath, boot_keys) ||
	    plan_str(x, boot, "grub", bpath, false, &ps->grub) ||
	    plan_str(x, boot, "kernel", bpath, true, &ps->kernel) ||
	    plan_str(x, boot, "initrd", bpath, true, &ps->initrd) ||
	    plan_str(x, boot, "cmdline", bpath, false, &ps->cmdline))
		return -1;
	if (!ps->grub == !ps->kernel)
		return errf(x, "%s: give either \"grub\" (a GRUB menu entry) "
			    "or \"kernel\" (an image for kexec), not %s",
			    bpath, ps->grub ? "both" : "neither");
	if (ps->grub && (ps->initrd || ps->cmdline))
		return errf(x, "%s: \"%s\" goes with \"kernel\" (kexec), "
			    "not with \"grub\"", bpath,
			    ps->initrd ? "initrd" : "cmdline");
	return 0;
}

/* Parse "5%", "5", 5 or "0.5%" as a percentage above 0 and below 1000. */
static int load_effect(struct ctx *x, const cJSON *v, double *out)
{
	char *end = NULL, *s;
	double d = NAN;

	if (cJSON_IsNumber(v)) {
		d = v->valuedouble;
	} else if (cJSON_IsString(v)) {
		d = strtod(v->valuestring, &end);
		if (end == v->valuestring || (*end && strcmp(end, "%")))
			d = NAN;
	}
	if (!(d > 0 && d < 1000)) {
		s = show(v);
		errf(x, "plan.effect: %s is not a change in percent above 0 "
		     "and below 1000, such as \"5%%\"", s);
		free(s);
		return -1;
	}
	*out = d;
	return 0;
}

static int load_plan(struct ctx *x, struct config *cfg, const cJSON *plan)
{
	struct config_plan *p = &cfg->plan;
	const cJSON *v;

	if (only_keys(x, plan, "plan", plan_keys) ||
	    load_plan_side(x, plan, "base", &p->side[0]) ||
	    load_plan_side(x, plan, "patch", &p->side[1]) ||
	    get_uint(x, plan, "boots", "plan.", 1, 10000, &p->boots))
		return -1;
	if (!strcmp(p->side[0].label, p->side[1].label))
		return errf(x, "plan: base and patch both have the label "
			    "\"%s\"", p->side[0].label);
	v = cJSON_GetObjectItemCaseSensitive(plan, "effect");
	if (v && load_effect(x, v, &p->effect))
		return -1;
	p->set = true;
	return 0;
}

#define CONFIG_MAX	(1 << 20)	/* bytes: a config is a page or two */

static char *slurp(const char *path, int *err)
{
	FILE *f = fopen(path, "re");
	struct strbuf sb = STRBUF_INIT;
	char buf[8192];
	size_t n;

	if (!f) {
		*err = errno;
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		if (sb.len + n > CONFIG_MAX) {
			fclose(f);
			strbuf_release(&sb);
			*err = EFBIG;
			return NULL;
		}
		if (memchr(buf, '\0', n)) {
			fclose(f);
			strbuf_release(&sb);
			*err = EILSEQ;
			return NULL;
		}
		strbuf_addf(&sb, "%.*s", (int)n, buf);
	}
	fclose(f);
	return sb.buf ? sb.buf : xstrdup("");
}

/* cpus ("all", "node:N" or a list), placement, steal_max. */
static int load_placement(struct ctx *x, struct config *cfg,
			  const cJSON *root)
{
	const cJSON *v;
	char why[128], *s;
	int n;

	if (get_str(x, root, "cpus", &cfg->cpus))
		return -1;
	if (!strncmp(cfg->cpus, "node:", 5)) {
		uint64_t u;

		if (parse_u64(cfg->cpus + 5, &u) || u > 4095)
			return errf(x, "cpus: \"%s\": not a NUMA node "
				    "(node:0, node:1, ...)", cfg->cpus);
		cfg->cpus_node = (int)u;
	} else if (strcmp(cfg->cpus, "all")) {
		n = cpulist_parse(cfg->cpus, NULL, 0, CPU_MAX, why,
				  sizeof(why));
		if (n < 0)
			return errf(x, "cpus: \"%s\": %s (all, node:N, or a "
				    "list such as 2-15,18)", cfg->cpus, why);
		cfg->cpu_list = calloc((size_t)n, sizeof(int));
		if (!cfg->cpu_list)
			return errf(x, "out of memory");
		cfg->ncpu_list = cpulist_parse(cfg->cpus, cfg->cpu_list, n,
					       CPU_MAX, why, sizeof(why));
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "placement");
	if (v && (!cJSON_IsString(v) ||
		  place_parse(v->valuestring, &cfg->placement))) {
		s = show(v);
		errf(x, "placement: %s is not \"scatter\", \"compact\" or "
		     "\"explicit\"", s);
		free(s);
		return -1;
	}
	if (cfg->placement == PLACE_EXPLICIT && !cfg->cpu_list)
		return errf(x, "placement: \"explicit\" places workers on the "
			    "list in cpus, which is \"%s\"", cfg->cpus);
	v = cJSON_GetObjectItemCaseSensitive(root, "steal_max");
	if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
		  v->valuedouble > 100)) {
		s = show(v);
		errf(x, "steal_max: %s is not a percentage from 0 to 100", s);
		free(s);
		return -1;
	}
	if (v)
		cfg->steal_max = v->valuedouble;
	return 0;
}

static void config_defaults(struct config *cfg, const char *path)
{
	memset(cfg, 0, sizeof(*cfg));
	snprintf(cfg->path, sizeof(cfg->path), "%s", path);
	cfg->runs = 5;
	cfg->warmup = 1;
	cfg->cpu = -1;
	cfg->database = xstrdup("results.db");
	cfg->scratch = xstrdup("/dev/shm");
	cfg->disk_scratch = xstrdup("/var/tmp");
	cfg->cpus = xstrdup("all");
	cfg->cpus_node = -1;
	cfg->placement = PLACE_SCATTER;
	cfg->steal_max = 2;
	cfg->plan.boots = 4;
	cfg->plan.effect = NAN;
}

int config_load(struct config *cfg, const char *path, struct strbuf *err)
{
	char *text;
	int e = 0, r;

	memset(cfg, 0, sizeof(*cfg));	/* config_parse sets the defaults */
	text = slurp(path, &e);
	if (!text) {
		strbuf_addf(err, "cannot read %s: %s", path,
			    e == EILSEQ ? "not a text file" :
			    e == EFBIG ? "larger than 1 MiB, not a config" :
			    strerror(e));
		config_release(cfg);
		return -1;
	}
	r = config_parse(cfg, path, text, err);
	free(text);
	return r;
}

int config_parse(struct config *cfg, const char *path, const char *text,
		 struct strbuf *err)
{
	struct ctx x = { .file = path, .text = text, .err = err };
	const char *end = NULL;
	cJSON *root = NULL, *v, *suite;
	int line, col, i, r = -1;

	static cJSON_Hooks hooks = { xmalloc, free };

	cJSON_InitHooks(&hooks);	/* allocation failure dies, never NULL */
	config_defaults(cfg, path);
	if (scan_text(&x, text))
		goto out;
	root = cJSON_ParseWithOpts(text, &end, 0);
	x.root = root;
	if (!root) {
		const char *at = cJSON_GetErrorPtr();

		line_col(text, at ? at : text, &line, &col);
		if (at && !*at)
			errf(&x, "line %d, column %d: malformed JSON: "
			     "unexpected end of file", line, col);
		else
			errf(&x, "line %d, column %d: malformed JSON near "
			     "'%s'", line, col, excerpt(at ? at : ""));
		goto out;
	}
	end += strspn(end, " \t\r\n");
	if (*end) {
		line_col(text, end, &line, &col);
		errf(&x, "line %d, column %d: trailing garbage after the "
		     "JSON value: '%s'", line, col, excerpt(end));
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		errf(&x, "the config is a JSON object ({ ... })");
		goto out;
	}
	if (check_values(&x, root, "") || check_dups(&x, root, ""))
		goto out;
	for (v = root->child; v; v = v->next) {
		bool known = false;

		if (is_comment(v->string))
			continue;
		for (i = 0; top_keys[i]; i++)
			known |= !strcmp(v->string, top_keys[i]);
		if (!known) {
			unknown_key(&x, "", v->string, top_keys, NULL,
				    "the top level");
			goto out;
		}
	}
	if (get_str(&x, root, "database", &cfg->database) ||
	    get_str(&x, root, "label", &cfg->label) ||
	    get_str(&x, root, "scratch", &cfg->scratch) ||
	    get_str(&x, root, "disk_scratch", &cfg->disk_scratch) ||
	    get_uint(&x, root, "runs", "", 1, 100000, &cfg->runs) ||
	    get_uint(&x, root, "warmup", "", 0, 100000, &cfg->warmup))
		goto out;
	if (cfg->database) {
		char why[160];

		/* a name SQLite keeps in memory: the runs would go nowhere */
		if (db_path_check(cfg->database, why, sizeof(why))) {
			errf(&x, "database: \"%s\": %s", cfg->database, why);
			goto out;
		}
	}
	if (cfg->label) {
		char why[128];

		if (label_check(cfg->label, why, sizeof(why))) {
			errf(&x, "label: \"%s\": %s", cfg->label, why);
			goto out;
		}
	}
	/* journalled and mended by the next runner, wherever it runs from */
	if (cfg->scratch[0] != '/' || cfg->disk_scratch[0] != '/' ||
	    strpbrk(cfg->scratch, "\t\n") ||
	    strpbrk(cfg->disk_scratch, "\t\n") ||
	    strlen(cfg->scratch) > 1024 || strlen(cfg->disk_scratch) > 1024) {
		errf(&x, "%s: \"%s\" is not an absolute path (of at most 1024 "
		     "characters, without tabs or newlines)",
		     cfg->scratch[0] != '/' || strpbrk(cfg->scratch, "\t\n") ||
		     strlen(cfg->scratch) > 1024 ? "scratch" : "disk_scratch",
		     cfg->scratch[0] != '/' || strpbrk(cfg->scratch, "\t\n") ||
		     strlen(cfg->scratch) > 1024 ? cfg->scratch :
		     cfg->disk_scratch);
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "cpu");
	if (v && !(cJSON_IsString(v) && !strcmp(v->valuestring, "auto"))) {
		uint64_t u;

		if (json_uint(v, &u) || u > 65535) {
			char *s = show(v);

			errf(&x, "cpu: %s is not \"auto\" or a logical CPU "
			     "index", s);
			free(s);
			goto out;
		}
		cfg->cpu = (int)u;
	}
	if (load_placement(&x, cfg, root))
		goto out;
	suite = cJSON_GetObjectItemCaseSensitive(root, "suite");
	if (!suite) {
		errf(&x, "missing key \"suite\" (the list of workloads to run)");
		goto out;
	}
	if (!cJSON_IsArray(suite) || !suite->child) {
		errf(&x, "suite: a non-empty array of workload entries");
		goto out;
	}
	for (i = 0, v = suite->child; v; v = v->next, i++)
		if (load_entry(&x, cfg, v, i))
			goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "plan");
	if (v && load_plan(&x, cfg, v))
		goto out;
	if (load_dashboard(&x, &cfg->dash,
			   cJSON_GetObjectItemCaseSensitive(root, "dashboard")))
		goto out;
	cfg->json = show(root);
	r = 0;
out:
	cJSON_Delete(root);
	if (r)
		config_release(cfg);
	return r;
}

void config_release(struct config *cfg)
{
	int i, k;

	for (i = 0; i < cfg->ncases; i++) {
		for (k = 0; k < WL_MAX_PARAMS; k++)
			free((char *)cfg->cases[i].v[k].str);
		free(cfg->cases[i].params_json);
		free(cfg->cases[i].title);
	}
	free(cfg->cases);
	free(cfg->database);
	free(cfg->label);
	free(cfg->scratch);
	free(cfg->disk_scratch);
	for (i = 0; i < 2; i++) {
		struct plan_side *ps = &cfg->plan.side[i];

		free(ps->label);
		free(ps->grub);
		free(ps->kernel);
		free(ps->initrd);
		free(ps->cmdline);
	}
	free(cfg->cpus);
	free(cfg->cpu_list);
	free(cfg->json);
	dashboard_release(&cfg->dash);
	memset(cfg, 0, sizeof(*cfg));
}

int config_only(struct config *cfg, const char *list, struct strbuf *err)
{
	char *dup = xstrdup(list), *tok, *save = NULL;
	int i, n = 0;

	for (tok = strtok_r(dup, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		if (!workload_find(tok)) {
			strbuf_addf(err, "--only: unknown workload \"%s\" "
				    "(see `bench list`)", tok);
			free(dup);
			return -1;
		}
	for (i = 0; i < cfg->ncases; i++) {
		bool keep = false;

		memcpy(dup, list, strlen(list) + 1);	/* same length */
		for (tok = strtok_r(dup, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save))
			keep |= !strcmp(tok, cfg->cases[i].wl->name);
		if (keep) {
			cfg->cases[n++] = cfg->cases[i];
		} else {
			for (int k = 0; k < WL_MAX_PARAMS; k++)
				free((char *)cfg->cases[i].v[k].str);
			free(cfg->cases[i].params_json);
			free(cfg->cases[i].title);
		}
	}
	cfg->ncases = n;
	free(dup);
	if (!n) {
		strbuf_addf(err, "--only %s: the config runs none of these",
			    list);
		return -1;
	}
	return 0;
}

const char *config_default_path(void)
{
	static char path[4200];
	char exe[4096];
	ssize_t n;
	char *slash;

	if (!access("config.json", F_OK))
		return "config.json";
	/* the example beside the source tree the binary was built in */
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 3; up++) {
			slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
			snprintf(path, sizeof(path), "%s/config.example.json",
				 exe);
			if (!access(path, F_OK))
				return path;
		}
	}
	return "config.example.json";
}
