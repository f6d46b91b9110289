/* The registry: one line per workload, and the helpers of workload.h. */
#include "workload.h"
#include "params.h"

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

int wl_params_check(const struct workload *w, struct strbuf *err)
{
	int i;

	if (w->params_size > WL_PARAMS_MAX)
		return err_setf(err, "%s: params struct of %zu bytes, more "
				"than %d", w->name, w->params_size,
				WL_PARAMS_MAX);
	for (i = 0; w->params[i].name; i++) {
		const struct param *p = &w->params[i];
		size_t end = p->runner ? sizeof(struct wl_run_params) :
					 w->params_size;

		if (i == WL_MAX_PARAMS)
			return err_setf(err, "%s: more than %d params", w->name,
					WL_MAX_PARAMS);
		if (p->size != wl_param_size(p->type) || p->off + p->size > end)
			return err_setf(err, "%s: param %s: a field of %zu "
					"bytes at %zu, not one of %zu within "
					"%zu", w->name, p->name, p->size,
					p->off, wl_param_size(p->type), end);
		if (p->runner && strcmp(p->name, "threads") &&
		    (strcmp(p->name, "mode") || p->choices != wl_modes))
			return err_setf(err, "%s: param %s: the runner's are "
					"threads, and mode with wl_modes",
					w->name, p->name);
	}
	return 0;
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
