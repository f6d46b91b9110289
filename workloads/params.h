/*
 * A parameter's values, by its type: parsed from what a config gives into
 * its typed field, formatted back into the canonical string (the params
 * JSON a case is stored under, its title), compared, and said in words
 * for reports.  Each type's operations are one table in params.c (fio's
 * fio_options[] and its struct thread_options): the config reader fills a
 * case's struct wl_params_set once through them, and strings are made of
 * it only for output.
 */
#ifndef FB_PARAMS_H
#define FB_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "workloads/workload.h"

/* What a param takes, for messages: "a size such as \"64M\" or \"8G\"". */
const char *wl_param_type_name(enum param_type t);
/* Its type in one word, as `bench list` shows it: "size", "choice". */
const char *wl_param_kind(enum param_type t);
/* The size of a field of type t. */
size_t wl_param_size(enum param_type t);
/* A JSON number as a whole number: not negative, no fraction, <= 2^53. */
int wl_whole_number(double d, uint64_t *out);

/* One field's value, whatever its type (a sweep's values, one a union). */
union wl_field {
	uint64_t u;
	int e;
	const char *s;
	struct wl_sized z;
};

/*
 * One scalar value of p into f: s is the string given (or the table's
 * default), or NULL for a JSON number num; shown is how the value is
 * shown in messages (NULL: s).  A text the field keeps is malloc'd
 * (wl_param_release frees it).  Returns 0, or -1 with why added to err
 * (without the key path, which the caller puts first).
 */
int wl_param_parse(const struct param *p, const char *s, double num,
		   const char *shown, union wl_field *f, struct strbuf *err);
void wl_param_release(const struct param *p, union wl_field *f);
/* f's text, if it keeps one, copied: f then owns its own. */
void wl_param_dup(const struct param *p, union wl_field *f);
/* Does f hold the same value as g ("1G" and "1024M" do as a size)? */
bool wl_param_same(const struct param *p, const union wl_field *f,
		   const union wl_field *g);

/* Param i's field in a set, and its value in or out of it. */
void *wl_param_at(const struct workload *w, int i, struct wl_params_set *ps);
void wl_param_get(const struct workload *w, int i,
		  const struct wl_params_set *ps, union wl_field *f);
void wl_param_put(const struct workload *w, int i, struct wl_params_set *ps,
		  const union wl_field *f);

/*
 * The canonical string of a field ("64G", "10s", "90", a choice, a text
 * as written): what the params JSON and a case's title hold.
 */
void wl_param_format(const struct param *p, const union wl_field *f,
		     char *buf, size_t n);
/*
 * The bounds a number, size, duration or percentage is held to, as config
 * errors and `bench list` show them: "1M to 1T", "at least 0".
 */
void wl_param_range(const struct param *p, char *buf, size_t n);
/*
 * A stored value of p ("8G", "pmd", "unlink") in words for readers
 * ("8 GiB", "PMD-sized", "unlink()"); -1 where p has none (then
 * "key=value").
 */
int wl_param_words(const struct param *p, const char *value, char *buf,
		   size_t n);

/* The runner's defaults (threads 1, mode threads) in an empty set. */
void wl_params_init(struct wl_params_set *ps);
/* The canonical params JSON of a case: every param, in table order. */
char *wl_params_json(const struct workload *w, const struct wl_params_set *ps);
/* "op=unlink size=8G": the params given[] says the config named. */
char *wl_params_title(const struct workload *w, const struct wl_params_set *ps,
		      const bool *given);
/* Every param the same in a and b (what preflight adapted: none)? */
bool wl_params_same(const struct workload *w, const struct wl_params_set *a,
		    const struct wl_params_set *b);
/* Free the texts a set holds (a config's case). */
void wl_params_release(const struct workload *w, struct wl_params_set *ps);
/* The param of w whose key is key, or NULL. */
const struct param *wl_param_find(const struct workload *w, const char *key);

#endif
