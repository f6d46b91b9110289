/*
 * A parameter's values as text: parsed from what a config gives into a
 * struct wl_value, and written back (the canonical string, the bounds,
 * the params JSON a case is stored under).  The config reader and
 * `bench list` use these; runner/ fills the typed params from the values.
 */
#ifndef FB_PARAMS_H
#define FB_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "workloads/workload.h"

/* What a param takes, for messages: "a size such as \"64M\" or \"8G\"". */
const char *wl_param_type_name(enum param_type t);
/* Its type in one word, as `bench list` shows it: "size", "choice". */
const char *wl_param_kind(enum param_type t);
/* A JSON number as a whole number: not negative, no fraction, <= 2^53. */
int wl_whole_number(double d, uint64_t *out);

/*
 * One scalar value of p into its canonical form: s is the string given
 * (or the table's default), or NULL for a JSON number num; shown is how
 * the value is shown in messages (NULL: s).  Returns 0, or -1 with why
 * said in why (without the key path, which the caller puts first).
 */
int wl_param_parse(const struct param *p, const char *s, double num,
		   const char *shown, struct wl_value *out,
		   struct strbuf *why);

/*
 * The canonical string of a parameter's value, as wl_param_parse writes
 * it: numbers from .u ("64G", "10s", "90"), enums and strings from .str.
 */
void wl_param_str(const struct param *p, const struct wl_value *v,
		  char *buf, size_t n);
/*
 * The bounds a number, size, duration or percentage is held to, as config
 * errors and `bench list` show them: "1M to 1T", "at least 0".
 */
void wl_param_range(const struct param *p, char *buf, size_t n);
/* The canonical params JSON of a case: every param, in table order. */
char *wl_params_json(const struct workload *w, const struct wl_value *v);

#endif
