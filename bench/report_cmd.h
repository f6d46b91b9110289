/*
 * What the commands that read results share (report_cmd.c): the database
 * they read, opening it, loading the sides, exit codes, metric table.
 */
#ifndef FB_REPORT_CMD_H
#define FB_REPORT_CMD_H

#include <stdbool.h>

#include "common/common.h"
#include "reports/compare.h"
#include "schema/db.h"

/* Exit codes beyond sysexits' own names (see cmd_compare.c). */
#define EX_EMPTY_DB	72
#define EX_NEWER_DB	76

struct config;
/*
 * The one --db rule of every command that reads a database: db_arg (--db)
 * when given, else the "database" of cfg (the config given with --config,
 * or the one `bench run` finds), else results.db.
 */
const char *report_cmd_db_rule(const char *db_arg, const struct config *cfg);
/*
 * The rule for a command that needs no config of its own: cfg_arg
 * (--config) is loaded, or the default config where there is one, only
 * when db_arg is NULL.  An exit code (78: a config that does not load,
 * said); *out malloc'd.
 */
int report_cmd_db_path(const char *db_arg, const char *cfg_arg, char **out);
/*
 * Open the results database read-only (never made, never written); an
 * exit code, EX_OK when open.  _write: for a command that writes rows
 * into it (upload), still never making its schema.
 */
int report_cmd_open(struct db *db, const char *path);
int report_cmd_open_write(struct db *db, const char *path);
/* The exit code of a DB_* code (DB_OK: EX_OK). */
int report_cmd_db_exit(int r);
/*
 * Refuse a database name that keeps nothing ("", ":memory:") given on
 * the command line as what ("--db"): EX_USAGE, said; EX_OK otherwise.
 */
int report_cmd_db_name(const char *path, const char *what);
/*
 * Refuse --format name, naming the report formats and the outputs the
 * command allows (enum report_output): EX_USAGE, said.
 */
int report_cmd_unknown_format(const char *name, unsigned allowed);
/* The exit code of a report_side_load() status, its message printed. */
int report_cmd_load_exit(int status, const struct strbuf *err);

/* What `bench compare`, `export` and `report` read: a database, sides. */
struct report_cmd {
	const char *db_arg, *cfg_arg;	/* --db, --config; NULL: not given */
	struct report_load_opts lo;
	char *path;			/* the database read (the rule's) */
	struct db db;
	struct report_side a, b;	/* base, and patch where there is one */
	struct strbuf err;
};
#define REPORT_CMD_INIT { .err = STRBUF_INIT }
/* The getopt_long entries of a reader's --db, --config (as 'd', 'c'), --help. */
#define REPORT_CMD_LONGOPTS						\
	{ "db", required_argument, NULL, 'd' },				\
	{ "config", required_argument, NULL, 'c' },			\
	{ "help", no_argument, NULL, 'h' }
/*
 * Open the database the --db rule names and load base into a and patch
 * (unless NULL) into b with lo; with aa, the odd and the even boots of
 * base.  An exit code, its message printed.
 */
int report_cmd_load(struct report_cmd *rc, const char *base,
		    const char *patch, bool aa);
/*
 * The guests of a label's complete runs, each distinct one as compare
 * names it ("'tcg smp=2 ...' | 'not a bench vm guest'"), and how many of
 * them ran timed under TCG, counted (icount), or otherwise (KVM, bare).
 */
struct report_cmd_vm {
	struct strbuf shape;
	int tcg, counted, other;
};
#define REPORT_CMD_VM_INIT { STRBUF_INIT, 0, 0, 0 }
/* The guests of label into v (released by the caller); DB_OK or DB_*. */
int report_cmd_vm_sides(struct db *db, const char *label,
			struct report_cmd_vm *v);
/* The same from the guests the load of s met (its label's, whole). */
void report_cmd_vm_side(const struct report_side *s, struct report_cmd_vm *v);
/* The table of a beside b (two) or alone, as opts say: an exit code. */
int report_cmd_compare(struct report_cmd *rc, bool two,
		       const struct report_opts *opts, struct report_cmp *c);
/* The table on stdout in fmt: an exit code, said. */
int report_cmd_print(const struct report_cmp *c, enum report_format fmt);
void report_cmd_release(struct report_cmd *rc);

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
/* Report options that ask this build's workload tables (below). */
#define REPORT_CMD_OPTS { .primary = report_cmd_primary,		\
			  .input = report_cmd_input,			\
			  .words = report_cmd_words }
/* Is metric the headline of workload?  Unknown to this build: yes. */
bool report_cmd_primary(const char *workload, const char *metric);
/* Is metric a count of the timed call's input (no test, no Holm)? */
bool report_cmd_input(const char *workload, const char *metric);
/* The words a workload's table gives a param's value, into buf. */
enum report_say report_cmd_words(const char *workload, const char *key,
				 const char *value, char *buf, size_t n);

#endif
