/*
 * What the config reader's files share (config.c, config_json.c,
 * config_plan.c, config_dash.c): the message context and the JSON checks.
 * Not for use outside them.
 */
#ifndef FB_CONFIG_INT_H
#define FB_CONFIG_INT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdint.h>

#include "runner.h"

/* The config being read, for messages that name file, line and column. */
struct cfg_ctx {
	const char *file;
	const char *text;
	const cJSON *root;
	struct strbuf *err;
};

/* "FILE: message" into x->err (cut at 1 KiB, never in a character); -1. */
int cfg_errf(struct cfg_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Up to 12 characters of text at p, on one line, non-ASCII as \xNN. */
const char *cfg_excerpt(const char *p);
void cfg_line_col(const char *text, const char *at, int *line, int *col);
/* Where the JSON value v stands in x->text. */
void cfg_value_line_col(struct cfg_ctx *x, const cJSON *v, int *line,
			int *col);
/* A JSON value as the user wrote it (malloc'd), for messages. */
char *cfg_show(const cJSON *v);
/* Keys that start with "#" are comments, ignored everywhere. */
bool cfg_is_comment(const char *key);

/* What cJSON accepts but a config may not hold: \u0000, deep nesting. */
int cfg_scan_text(struct cfg_ctx *x, const char *text);
/* Every key and string sane UTF-8, every number finite and exact. */
int cfg_check_values(struct cfg_ctx *x, const cJSON *o, const char *path);
/* No key twice in any object. */
int cfg_check_dups(struct cfg_ctx *x, const cJSON *o, const char *path);
/* Only keys (and comments) in object o, at path. */
int cfg_only_keys(struct cfg_ctx *x, const cJSON *o, const char *path,
		  const char *const *keys);
/*
 * Every key of o but comments one of keys or of params' names (params may
 * be NULL); else "PREFIXkey: unknown key in WHERE", with the nearest name
 * when one is plausibly meant.
 */
int cfg_known_keys(struct cfg_ctx *x, const cJSON *o, const char *prefix,
		   const char *const *keys, const struct param *params,
		   const char *where);

/* A whole non-negative number from a JSON number; -1 if it is not one. */
int cfg_json_uint(const cJSON *v, uint64_t *out);
/* o's key as a whole number from min to max; absent leaves *out. */
int cfg_get_uint(struct cfg_ctx *x, const cJSON *o, const char *key,
		 const char *path, uint64_t min, uint64_t max, unsigned *out);
/* o's key as a non-empty string (malloc'd); absent leaves *out. */
int cfg_get_str(struct cfg_ctx *x, const cJSON *o, const char *key,
		char **out);

/* config_plan.c: the "plan" section. */
int cfg_load_plan(struct cfg_ctx *x, struct config *cfg, const cJSON *plan);
/* config_dash.c: the "dashboard" section; null or absent: none. */
int cfg_load_dashboard(struct cfg_ctx *x, struct dashboard_cfg *d,
		       const cJSON *o);
void cfg_dashboard_release(struct dashboard_cfg *d);

#endif
