/* The registry: one line per workload, and the helpers of workload.h. */
#include "workload.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line per workload; its file exports const struct workload wl_NAME. */
#define WORKLOADS(X)		\
	X(shmem_remove)		\
	X(shadow_truncate)	\
	X(seq_read)		\
	X(small_truncate)

#define DECLARE(name) extern const struct workload wl_##name;
#define ENTRY(name) &wl_##name,
WORKLOADS(DECLARE)

static const struct workload *const all[] = { WORKLOADS(ENTRY) NULL };

const struct workload *const *workloads_get(void)
{
	return all;
}

const struct workload *workload_find(const char *name)
{
	const struct workload *const *w;

	for (w = workloads_get(); *w; w++)
		if (!strcmp((*w)->name, name))
			return *w;
	return NULL;
}

const char *const wl_modes[] = {
	[WL_MODE_THREADS] = "threads",
	[WL_MODE_PROCESSES] = "processes",
	NULL,
};

/* The size a param's field has, by its type. */
static size_t field_size(enum param_type t)
{
	switch (t) {
	case PT_ENUM:
		return sizeof(int);
	case PT_STRING:
		return sizeof(const char *);
	default:
		return sizeof(uint64_t);
	}
}

int wl_params_check(const struct workload *w, struct fb_err *e)
{
	int i;

	if (w->params_size > WL_PARAMS_MAX)
		return fb_errf(e, "%s: params struct of %zu bytes, more than "
			       "%d", w->name, w->params_size, WL_PARAMS_MAX);
	for (i = 0; w->params[i].name; i++) {
		const struct param *p = &w->params[i];
		size_t end = p->runner ? sizeof(struct wl_run_params) :
					 w->params_size;

		if (i == WL_MAX_PARAMS)
			return fb_errf(e, "%s: more than %d params", w->name,
				       WL_MAX_PARAMS);
		if (p->size != field_size(p->type) || p->off + p->size > end)
			return fb_errf(e, "%s: param %s: a field of %zu bytes "
				       "at %zu, not one of %zu within %zu",
				       w->name, p->name, p->size, p->off,
				       field_size(p->type), end);
		if (p->runner && strcmp(p->name, "threads") &&
		    (strcmp(p->name, "mode") || p->choices != wl_modes))
			return fb_errf(e, "%s: param %s: the runner's are "
				       "threads, and mode with wl_modes",
				       w->name, p->name);
	}
	return 0;
}

static int choice_of(const struct param *p, const char *s)
{
	int i;

	for (i = 0; s && p->choices[i]; i++)
		if (!strcmp(p->choices[i], s))
			return i;
	return -1;
}

static void check_or_die(const struct workload *w)
{
	struct fb_err e;

	if (wl_params_check(w, &e)) {
		fprintf(stderr, "bench: internal error: %s\n", e.msg);
		abort();
	}
}

/* One value into its field at base. */
static void fill_one(const struct workload *w, const struct param *p,
		     const struct wl_value *v, void *base)
{
	char *f = (char *)base + p->off;
	int k;

	switch (p->type) {
	case PT_ENUM:
		k = choice_of(p, v->str);
		if (k < 0) {
			fprintf(stderr, "bench: internal error: %s: %s is not "
				"a choice of %s\n", w->name,
				v->str ? v->str : "(null)", p->name);
			abort();
		}
		memcpy(f, &k, sizeof(k));
		break;
	case PT_STRING:
		memcpy(f, &v->str, sizeof(v->str));
		break;
	default:
		memcpy(f, &v->u, sizeof(v->u));
	}
}

void wl_run_params_of(const struct workload *w, const struct wl_value *v,
		      struct wl_run_params *rp)
{
	int i;

	check_or_die(w);
	rp->threads = 1;
	rp->mode = WL_MODE_THREADS;
	for (i = 0; w->params[i].name; i++)
		if (w->params[i].runner)
			fill_one(w, &w->params[i], &v[i], rp);
}

void wl_params_fill(struct wl_case *c)
{
	const struct workload *w = c->wl;
	int i;

	memset(&c->params, 0, sizeof(c->params));
	wl_run_params_of(w, c->v, &c->run);
	for (i = 0; w->params[i].name; i++)
		if (!w->params[i].runner)
			fill_one(w, &w->params[i], &c->v[i], c->params.b);
}

enum wl_verdict wl_preflight(struct wl_case *c, struct fb_err *e)
{
	const struct workload *w = c->wl;
	enum wl_verdict r;
	int i;

	if (!w->preflight)
		return WL_OK;
	r = w->preflight(c, e);
	/* the numbers it adapted, where the runner stores the case from */
	for (i = 0; w->params[i].name; i++)
		if (!w->params[i].runner &&
		    param_is_number(w->params[i].type))
			memcpy(&c->v[i].u, c->params.b + w->params[i].off,
			       sizeof(c->v[i].u));
	return r;
}

int wl_metric_index(const struct workload *w, const char *name)
{
	int i;

	for (i = 0; w->metrics[i].name; i++)
		if (!strcmp(w->metrics[i].name, name))
			return i;
	fprintf(stderr, "bench: internal error: workload %s has no metric %s\n",
		w->name, name);
	abort();
}

void wl_set_m(struct wl_sample *s, int m, double v)
{
	s->m[m].v = v;
	s->m[m].set = true;
	s->m[m].unsupported = false;
}

void wl_unsupported_m(struct wl_sample *s, int m)
{
	s->m[m].set = false;
	s->m[m].unsupported = true;
}

void wl_set(struct wl_sample *s, const struct workload *w, const char *metric,
	    double v)
{
	wl_set_m(s, wl_metric_index(w, metric), v);
}

void wl_unsupported(struct wl_sample *s, const struct workload *w,
		    const char *metric)
{
	wl_unsupported_m(s, wl_metric_index(w, metric));
}

void wl_note(struct wl_sample *s, const char *key, double v)
{
	int i;

	for (i = 0; i < s->nnotes; i++)
		if (!strcmp(s->notes[i].key, key))
			break;
	if (i == WL_MAX_NOTES)
		return;
	snprintf(s->notes[i].key, sizeof(s->notes[i].key), "%s", key);
	s->notes[i].v = v;
	if (i == s->nnotes)
		s->nnotes++;
}

void wl_invalid(struct wl_sample *s, const char *fmt, ...)
{
	va_list ap;

	if (s->invalid)		/* keep the first reason */
		return;
	s->invalid = true;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}
