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

int wl_param_index(const struct workload *w, const char *name)
{
	int i;

	for (i = 0; w->params[i].name; i++)
		if (!strcmp(w->params[i].name, name))
			return i;
	fprintf(stderr, "bench: internal error: workload %s has no param %s\n",
		w->name, name);
	abort();
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

void wl_set(struct wl_sample *s, const struct workload *w, const char *metric,
	    double v)
{
	int i = wl_metric_index(w, metric);

	s->m[i].v = v;
	s->m[i].set = true;
	s->m[i].unsupported = false;
}

void wl_unsupported(struct wl_sample *s, const struct workload *w,
		    const char *metric)
{
	int i = wl_metric_index(w, metric);

	s->m[i].set = false;
	s->m[i].unsupported = true;
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

int wl_errf(struct wl_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -1;
}
