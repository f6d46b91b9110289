/*
 * A parameter's values by type: parsing into the typed field, canonical
 * strings, comparison, words for reports, bounds, the params JSON.
 */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wl_whole_number(double d, uint64_t *out)
{
	/* beyond 2^53 a JSON number is not exact: the config refuses it */
	if (d < 0 || d != floor(d) || d > 9007199254740992.0)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static int err_addf(struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int err_addf(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

/* A number of p (size, count, percentage, duration) into u. */
static int parse_number(const struct param *p, const char *s, double num,
			const char *shown, uint64_t *u, struct strbuf *err)
{
	int r;

	switch (p->type) {
	case PT_SIZE:
		r = s ? parse_size(s, u) : wl_whole_number(num, u);
		if (r == -ERANGE)
			return err_addf(err, "%s is too large (more than "
					   "2^64 bytes)", shown);
		if (r)
			return err_addf(err, "%s is not a size (a whole "
					   "number of bytes, or with k, M, G, "
					   "T: \"64M\", \"8G\")", shown);
		return 0;
	case PT_DURATION:
		r = s ? parse_duration(s, u) :
			duration_from_double(num, 1e9, u);
		if (r == -ERANGE)
			return err_addf(err, "%s is too long a duration "
					   "(more than 292 years)", shown);
		if (r)
			return err_addf(err, "%s is not a duration (\"10s\", "
					   "\"500ms\", \"2m\")", shown);
		return 0;
	default:	/* PT_UINT, PT_PERCENT */
		r = s ? parse_u64(s, u) : wl_whole_number(num, u);
		if (r)
			return err_addf(err, "%s is not %s", shown,
					   p->type == PT_UINT ?
					   "a whole number" :
					   "a whole percentage");
		if (p->type == PT_PERCENT && *u > 100)
			return err_addf(err, "%s is out of range (0 to "
					   "100)", shown);
		return 0;
	}
}


/* A text the field keeps as written: at most 127 bytes, said cut short. */
static int keep_text(const char *s, const char **out, struct strbuf *err)
{
	char head[41];

	if (strlen(s) >= 128) {
		/* the first 40 bytes, not cutting a character */
		memcpy(head, s, sizeof(head) - 1);
		head[sizeof(head) - 1] = '\0';
		utf8_trim(head);
		return err_addf(err, "\"%s...\" is too long", head);
	}
	*out = xstrdup(s);
	return 0;
}

/* What a config gives: a string, or a JSON number; how messages show it. */
struct given {
	const char *s;		/* NULL: num */
	double num;
	const char *shown;
};

static int parse_enum(const struct param *p, const struct given *g,
		      union wl_field *f, struct strbuf *err)
{
	const char *s = g->s;
	int i;

	for (i = 0; p->choices[i]; i++)
		if (!strcmp(s, p->choices[i])) {
			f->e = i;
			return 0;
		}
	strbuf_addf(err, "\"%s\" is not one of: ", s);
	for (i = 0; p->choices[i]; i++)
		strbuf_addf(err, "%s%s", i ? ", " : "", p->choices[i]);
	return -1;
}

static int parse_string(const struct param *p, const struct given *g,
			union wl_field *f, struct strbuf *err)
{
	struct strbuf check = STRBUF_INIT;
	const char *s = g->s;

	if (p->check && p->check(s, &check)) {
		strbuf_addf(err, "\"%s\": %s", s, check.buf);
		strbuf_release(&check);
		return -1;
	}
	return keep_text(s, &f->s, err);
}

/* An absolute path, or the table's word for the runner's own scratch. */
static int parse_dir(const struct param *p, const struct given *g,
		     union wl_field *f, struct strbuf *err)
{
	const char *s = g->s;

	if (s[0] != '/' && !(p->own && !strcmp(s, p->own))) {
		if (p->own && p->own[0] != '/')
			return err_addf(err, "\"%s\": not \"%s\" nor an "
					"absolute path", s, p->own);
		return err_addf(err, "\"%s\": not an absolute path", s);
	}
	return keep_text(s, &f->s, err);
}

static int parse_size_auto(const struct param *p, const struct given *g,
			   union wl_field *f, struct strbuf *err)
{
	const char *s = g->s;

	(void)p;
	f->z.bytes = 0;
	if (strcmp(s, "auto") && parse_size(s, &f->z.bytes))
		return err_addf(err, "\"%s\": not \"auto\" or a size "
				     "(\"512M\", \"4G\")", s);
	return keep_text(s, &f->z.text, err);
}

/* "4k", "pmd" or an mTHP size such as "64k" */
static int parse_folio(const struct param *p, const struct given *g,
		       union wl_field *f, struct strbuf *err)
{
	const char *s = g->s;

	(void)p;
	if (!strcmp(s, "4k"))
		f->z.bytes = 4096;
	else if (!strcmp(s, "pmd"))
		f->z.bytes = WL_FOLIO_PMD;
	else if (parse_size(s, &f->z.bytes) || f->z.bytes < 8192 ||
		 (f->z.bytes & (f->z.bytes - 1)))
		return err_addf(err, "\"%s\": not a folio size (4k, pmd, or a "
				     "power of two such as 64k)", s);
	return keep_text(s, &f->z.text, err);
}

static int parse_num(const struct param *p, const struct given *g,
		     union wl_field *f, struct strbuf *err)
{
	char range[160];

	if (parse_number(p, g->s, g->num, g->shown, &f->u, err))
		return -1;
	if (f->u < p->min || (p->max && f->u > p->max)) {
		wl_param_range(p, range, sizeof(range));
		strbuf_addf(err, "%s is out of range (%s)", g->shown, range);
		return -1;
	}
	return 0;
}

static void format_num(const struct param *p, const union wl_field *f,
		       char *buf, size_t n)
{
	if (p->type == PT_SIZE)
		format_size(f->u, buf, n);
	else if (p->type == PT_DURATION)
		format_duration(f->u, buf, n);
	else
		snprintf(buf, n, "%llu", (unsigned long long)f->u);
}

static void format_enum(const struct param *p, const union wl_field *f,
			char *buf, size_t n)
{
	snprintf(buf, n, "%s", p->choices[f->e]);
}

static void format_text(const struct param *p, const union wl_field *f,
			char *buf, size_t n)
{
	(void)p;
	snprintf(buf, n, "%s", f->s ? f->s : "");
}

static void format_sized(const struct param *p, const union wl_field *f,
			 char *buf, size_t n)
{
	(void)p;
	snprintf(buf, n, "%s", f->z.text ? f->z.text : "");
}

/* 8589934592 -> "8 GiB"; what a changelog reader expects. */
static int words_size(const struct param *p, const char *s, char *buf,
		      size_t n)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB",
					     "TiB" };
	uint64_t u;
	size_t i = 0;

	(void)p;
	if (parse_size(s, &u) || !u) {
		snprintf(buf, n, "%s", s);
		return 0;
	}
	while (i + 1 < ARRAY_SIZE(units) && !(u % 1024)) {
		u /= 1024;
		i++;
	}
	if (i == 0 && u >= 1024)
		human_size(u, buf, n);
	else
		snprintf(buf, n, "%llu %s", (unsigned long long)u, units[i]);
	return 0;
}

/* "4k" -> "4K", "pmd" -> "PMD-sized": the kernel's way to name folios. */
static int words_folio(const struct param *p, const char *s, char *buf,
		       size_t n)
{
	uint64_t u;

	(void)p;
	if (!strcasecmp(s, "pmd"))
		snprintf(buf, n, "PMD-sized");
	else if (!parse_size(s, &u) && u >= 1024 && !(u % (1ull << 30)))
		snprintf(buf, n, "%lluG", (unsigned long long)(u >> 30));
	else if (!parse_size(s, &u) && u >= 1024 && !(u % (1ull << 20)))
		snprintf(buf, n, "%lluM", (unsigned long long)(u >> 20));
	else if (!parse_size(s, &u) && u >= 1024 && !(u % 1024))
		snprintf(buf, n, "%lluK", (unsigned long long)(u >> 10));
	else
		snprintf(buf, n, "%s", s);
	return 0;
}

/* The words the table gives a choice ("ftruncate() to 0"). */
static int words_enum(const struct param *p, const char *s, char *buf,
		      size_t n)
{
	int i;

	for (i = 0; p->words && p->choices[i]; i++)
		if (!strcmp(p->choices[i], s)) {
			snprintf(buf, n, "%s", p->words[i]);
			return 0;
		}
	return -1;
}

/* What a type does: one row a type, fio's fio_option callbacks. */
struct param_ops {
	const char *name;	/* for messages: "a size such as ..." */
	const char *kind;	/* for `bench list`: "size" */
	size_t size;		/* of its field */
	bool text;		/* the field keeps a malloc'd text */
	int (*parse)(const struct param *p, const struct given *g,
		     union wl_field *f, struct strbuf *err);
	void (*format)(const struct param *p, const union wl_field *f,
		       char *buf, size_t n);
	int (*words)(const struct param *p, const char *s, char *buf,
		     size_t n);
};

static const struct param_ops ops[] = {
	[PT_SIZE] = { "a size such as \"64M\" or \"8G\"", "size",
		      sizeof(uint64_t), false, parse_num, format_num,
		      words_size },
	[PT_UINT] = { "a whole number", "count", sizeof(uint64_t), false,
		      parse_num, format_num, NULL },
	[PT_DURATION] = { "a duration such as \"10s\" or \"500ms\"",
			  "duration", sizeof(uint64_t), false, parse_num,
			  format_num, NULL },
	[PT_ENUM] = { "one of the listed choices", "choice", sizeof(int),
		      false, parse_enum, format_enum, words_enum },
	[PT_STRING] = { "a string", "string", sizeof(const char *), true,
			parse_string, format_text, NULL },
	[PT_PERCENT] = { "a percentage from 0 to 100", "percent",
			 sizeof(uint64_t), false, parse_num, format_num,
			 NULL },
	[PT_SIZE_AUTO] = { "a string", "string", sizeof(struct wl_sized),
			   true, parse_size_auto, format_sized, NULL },
	[PT_FOLIO] = { "a string", "string", sizeof(struct wl_sized), true,
		       parse_folio, format_sized, words_folio },
	[PT_DIR] = { "a string", "string", sizeof(const char *), true,
		     parse_dir, format_text, NULL },
};

const char *wl_param_type_name(enum param_type t)
{
	return ops[t].name;
}

const char *wl_param_kind(enum param_type t)
{
	return ops[t].kind;
}

size_t wl_param_size(enum param_type t)
{
	return ops[t].size;
}

int wl_param_parse(const struct param *p, const char *s, double num,
		   const char *shown, union wl_field *f, struct strbuf *err)
{
	struct given g = { s, num, shown ? shown : s };

	memset(f, 0, sizeof(*f));
	return ops[p->type].parse(p, &g, f, err);
}

void wl_param_release(const struct param *p, union wl_field *f)
{
	if (!ops[p->type].text)
		return;
	if (p->type == PT_SIZE_AUTO || p->type == PT_FOLIO)
		free((char *)f->z.text);
	else
		free((char *)f->s);
}

void wl_param_dup(const struct param *p, union wl_field *f)
{
	if (!ops[p->type].text)
		return;
	if (p->type == PT_SIZE_AUTO || p->type == PT_FOLIO)
		f->z.text = f->z.text ? xstrdup(f->z.text) : NULL;
	else
		f->s = f->s ? xstrdup(f->s) : NULL;
}

bool wl_param_same(const struct param *p, const union wl_field *f,
		   const union wl_field *g)
{
	char a[160], b[160];

	if (param_is_number(p->type))
		return f->u == g->u;
	if (p->type == PT_ENUM)
		return f->e == g->e;
	/* a text as written: "1G" and "1024M" are two limits */
	wl_param_format(p, f, a, sizeof(a));
	wl_param_format(p, g, b, sizeof(b));
	return !strcmp(a, b);
}

void *wl_param_at(const struct workload *w, int i, struct wl_params_set *ps)
{
	const struct param *p = &w->params[i];

	return (p->runner ? (unsigned char *)&ps->run : ps->params.b) + p->off;
}

void wl_param_get(const struct workload *w, int i,
		  const struct wl_params_set *ps, union wl_field *f)
{
	memset(f, 0, sizeof(*f));
	memcpy(f, wl_param_at(w, i, (struct wl_params_set *)ps),
	       w->params[i].size);
}

void wl_param_put(const struct workload *w, int i, struct wl_params_set *ps,
		  const union wl_field *f)
{
	memcpy(wl_param_at(w, i, ps), f, w->params[i].size);
}

void wl_param_format(const struct param *p, const union wl_field *f,
		     char *buf, size_t n)
{
	ops[p->type].format(p, f, buf, n);
}

void wl_param_range(const struct param *p, char *buf, size_t n)
{
	union wl_field lo = { .u = p->min }, hi = { .u = p->max };
	char l[64], h[64];

	format_num(p, &lo, l, sizeof(l));
	format_num(p, &hi, h, sizeof(h));
	if (p->max)
		snprintf(buf, n, "%s to %s", l, h);
	else
		snprintf(buf, n, "at least %s", l);
}

int wl_param_words(const struct param *p, const char *value, char *buf,
		   size_t n)
{
	if (!ops[p->type].words || (p->type != PT_ENUM && p->say == WL_SAY_KEY))
		return -1;
	return ops[p->type].words(p, value, buf, n);
}

void wl_params_init(struct wl_params_set *ps)
{
	memset(ps, 0, sizeof(*ps));
	ps->run.threads = 1;
	ps->run.mode = WL_MODE_THREADS;
}

/* Param i's canonical string, from the set. */
static void format_at(const struct workload *w, int i,
		      const struct wl_params_set *ps, char *buf, size_t n)
{
	union wl_field f;

	wl_param_get(w, i, ps, &f);
	wl_param_format(&w->params[i], &f, buf, n);
}

char *wl_params_json(const struct workload *w, const struct wl_params_set *ps)
{
	struct strbuf pj = STRBUF_INIT;
	char buf[160];
	int i;

	strbuf_addf(&pj, "{");
	for (i = 0; w->params[i].name; i++) {
		format_at(w, i, ps, buf, sizeof(buf));
		strbuf_addf(&pj, "%s", i ? "," : "");
		strbuf_json_str(&pj, w->params[i].name);
		strbuf_addf(&pj, ":");
		strbuf_json_str(&pj, buf);
	}
	strbuf_addf(&pj, "}");
	return pj.buf ? pj.buf : xstrdup("{}");
}

char *wl_params_title(const struct workload *w, const struct wl_params_set *ps,
		      const bool *given)
{
	struct strbuf title = STRBUF_INIT;
	char buf[160];
	int i;

	for (i = 0; w->params[i].name; i++) {
		if (!given[i])
			continue;
		format_at(w, i, ps, buf, sizeof(buf));
		strbuf_addf(&title, "%s%s=%s", title.len ? " " : "",
			    w->params[i].name, buf);
	}
	return title.buf ? title.buf : xstrdup("(defaults)");
}

bool wl_params_same(const struct workload *w, const struct wl_params_set *a,
		    const struct wl_params_set *b)
{
	union wl_field f, g;
	int i;

	for (i = 0; w->params[i].name; i++) {
		wl_param_get(w, i, a, &f);
		wl_param_get(w, i, b, &g);
		if (!wl_param_same(&w->params[i], &f, &g))
			return false;
	}
	return true;
}

void wl_params_release(const struct workload *w, struct wl_params_set *ps)
{
	union wl_field f;
	int i;

	for (i = 0; w->params[i].name; i++) {
		wl_param_get(w, i, ps, &f);
		wl_param_release(&w->params[i], &f);
	}
	memset(ps, 0, sizeof(*ps));
}

const struct param *wl_param_find(const struct workload *w, const char *key)
{
	const struct param *p;

	for (p = w->params; p->name; p++)
		if (!strcmp(p->name, key))
			return p;
	return NULL;
}
