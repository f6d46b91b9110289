/* What `bench compare` and `bench export` share: exit codes, metric table. */
#ifndef FB_REPORT_CMD_H
#define FB_REPORT_CMD_H

#include <stdbool.h>

#include "common/common.h"
#include "schema/db.h"

/* Exit codes beyond sysexits' own names (see cmd_compare.c). */
#define EX_EMPTY_DB	72
#define EX_NEWER_DB	76

/*
 * Open the results database read-only (never made, never written); an
 * exit code, EX_OK when open.  _write: for a command that writes rows
 * into it (upload), still never making its schema.
 */
int report_cmd_open(struct db *db, const char *path);
int report_cmd_open_write(struct db *db, const char *path);
/*
 * Refuse a database name that keeps nothing ("", ":memory:") given on
 * the command line as what ("--db"): EX_USAGE, said; EX_OK otherwise.
 */
int report_cmd_db_name(const char *path, const char *what);
/*
 * Refuse --format name, naming the report formats and more (the command's
 * own file formats): EX_USAGE, said.
 */
int report_cmd_unknown_format(const char *name, const char *more);
/* The exit code of a report_side_load() status, its message printed. */
int report_cmd_load_exit(int status, const struct strbuf *err);
struct report_cmp;
/*
 * Say on stderr which side's kernel warned during its runs; with strict,
 * refuse (EX_UNAVAILABLE, 69) rather than make a table of such a kernel.
 */
int report_cmd_kwarn(const struct report_cmp *c, bool strict);
/* The smallest change the patch behind a workload published; NAN none. */
double report_cmd_published(const char *workload);
/* "5%", "5", "0.5%": a change in percent above 0 and below 1000; -1 not. */
int report_cmd_effect(const char *s, double *out);
struct report_bootplan;
struct config_plan;
/* What `bench plan` and `bench nightly` print of a plan. */
void report_cmd_plan_print(const struct report_bootplan *p,
			   const struct config_plan *cp);
/* Is metric the headline of workload?  Unknown to this build: yes. */
bool report_cmd_primary(const char *workload, const char *metric);
/* Is metric a count of the timed call's input (no test, no Holm)? */
bool report_cmd_input(const char *workload, const char *metric);
/* The words a workload gives a param's value, or NULL. */
const char *report_cmd_words(const char *workload, const char *key,
			     const char *value);

/* Formats that write files for the user's own tools, not a report. */
enum report_files { FILES_NONE, FILES_MINISTAT, FILES_BENCHSTAT };
enum report_files report_cmd_files(const char *name);
struct report_cmp;
/* Write them into dir; an exit code, its message printed. */
int report_cmd_files_write(struct db *db, const struct report_cmp *c,
			   enum report_files files, const char *dir,
			   bool samples);

#endif
