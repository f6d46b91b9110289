/* A parameter's values as text: parsing, canonical strings, bounds, JSON. */
#include "params.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *wl_param_type_name(enum param_type t)
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

const char *wl_param_kind(enum param_type t)
{
	switch (t) {
	case PT_SIZE: return "size";
	case PT_UINT: return "count";
	case PT_DURATION: return "duration";
	case PT_ENUM: return "choice";
	case PT_STRING:
	case PT_SIZE_AUTO: return "string";
	case PT_PERCENT: return "percent";
	}
	return "?";
}

int wl_whole_number(double d, uint64_t *out)
{
	/* beyond 2^53 a JSON number is not exact: the config refuses it */
	if (d < 0 || d != floor(d) || d > 9007199254740992.0)
		return -1;
	*out = (uint64_t)d;
	return 0;
}

static int whyf(struct strbuf *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int whyf(struct strbuf *why, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	strbuf_addf(why, "%s", buf);
	return -1;
}

/* A number of p (size, count, percentage, duration) into u and buf. */
static int parse_number(const struct param *p, const char *s, double num,
			const char *shown, uint64_t *u, char *buf, size_t n,
			struct strbuf *why)
{
	int r;

	switch (p->type) {
	case PT_SIZE:
		r = s ? parse_size(s, u) : wl_whole_number(num, u);
		if (r == -ERANGE)
			return whyf(why, "%s is too large (more than "
					   "2^64 bytes)", shown);
		if (r)
			return whyf(why, "%s is not a size (a whole "
					   "number of bytes, or with k, M, G, "
					   "T: \"64M\", \"8G\")", shown);
		format_size(*u, buf, n);
		return 0;
	case PT_DURATION:
		r = s ? parse_duration(s, u) :
			duration_from_double(num, 1e9, u);
		if (r == -ERANGE)
			return whyf(why, "%s is too long a duration "
					   "(more than 292 years)", shown);
		if (r)
			return whyf(why, "%s is not a duration (\"10s\", "
					   "\"500ms\", \"2m\")", shown);
		format_duration(*u, buf, n);
		return 0;
	default:	/* PT_UINT, PT_PERCENT */
		r = s ? parse_u64(s, u) : wl_whole_number(num, u);
		if (r)
			return whyf(why, "%s is not %s", shown,
					   p->type == PT_UINT ?
					   "a whole number" :
					   "a whole percentage");
		if (p->type == PT_PERCENT && *u > 100)
			return whyf(why, "%s is out of range (0 to "
					   "100)", shown);
		snprintf(buf, n, "%llu", (unsigned long long)*u);
		return 0;
	}
}

/* A choice, a string or "auto"-or-a-size, kept as given, into buf. */
static int parse_text(const struct param *p, const char *s, uint64_t *u,
		      char *buf, size_t n, struct strbuf *why)
{
	char check[256], head[41];
	int i;

	if (p->type == PT_ENUM) {
		for (i = 0; p->choices[i]; i++)
			if (!strcmp(s, p->choices[i]))
				break;
		if (!p->choices[i]) {
			strbuf_addf(why, "\"%s\" is not one of: ", s);
			for (i = 0; p->choices[i]; i++)
				strbuf_addf(why, "%s%s", i ? ", " : "",
					    p->choices[i]);
			return -1;
		}
	}
	if (p->check && p->check(s, check, sizeof(check)))
		return whyf(why, "\"%s\": %s", s, check);
	if (p->type == PT_SIZE_AUTO && strcmp(s, "auto") && parse_size(s, u))
		return whyf(why, "\"%s\": not \"auto\" or a size "
				   "(\"512M\", \"4G\")", s);
	if (strlen(s) >= n) {
		/* the first 40 bytes, not cutting a character */
		memcpy(head, s, sizeof(head) - 1);
		head[sizeof(head) - 1] = '\0';
		utf8_trim(head);
		return whyf(why, "\"%s...\" is too long", head);
	}
	snprintf(buf, n, "%s", s);
	return 0;
}

int wl_param_parse(const struct param *p, const char *s, double num,
		   const char *shown, struct wl_value *out,
		   struct strbuf *why)
{
	char buf[128], range[160];
	uint64_t u = 0;

	if (!shown)
		shown = s;
	if (!param_is_number(p->type)) {
		if (parse_text(p, s, &u, buf, sizeof(buf), why))
			return -1;
	} else if (parse_number(p, s, num, shown, &u, buf, sizeof(buf), why)) {
		return -1;
	} else if (u < p->min || (p->max && u > p->max)) {
		wl_param_range(p, range, sizeof(range));
		strbuf_addf(why, "%s is out of range (%s)", shown, range);
		return -1;
	}
	out->str = xstrdup(buf);
	out->u = u;
	return 0;
}

void wl_param_str(const struct param *p, const struct wl_value *v,
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

void wl_param_range(const struct param *p, char *buf, size_t n)
{
	struct wl_value lo = { .u = p->min }, hi = { .u = p->max };
	char l[64], h[64];

	wl_param_str(p, &lo, l, sizeof(l));
	wl_param_str(p, &hi, h, sizeof(h));
	if (p->max)
		snprintf(buf, n, "%s to %s", l, h);
	else
		snprintf(buf, n, "at least %s", l);
}

char *wl_params_json(const struct workload *w, const struct wl_value *v)
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
