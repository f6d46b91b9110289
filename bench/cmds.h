/* The subcommands of build/bench, one cmd_*.c each. */
#ifndef FB_CMDS_H
#define FB_CMDS_H

#include <stdbool.h>

extern const char *fb_version;
extern const char *fb_prog;

/* Each returns an exit code (sysexits). argv[0] is the subcommand name. */
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_nightly(int argc, char **argv);
int cmd_merge(int argc, char **argv);

/*
 * The config used when --config is not given.  A development build: the
 * runner's (./config.json, else the example beside the build).  An
 * installed one (make install): $(SYSCONFDIR)/foliobench/config.json,
 * else the example under $(PREFIX)/share/foliobench.
 */
const char *fb_config_default(void);
/* The guest kernel config fragment: the installed one (make install puts
 * kernel/guest.config under the data directory), else the source tree's. */
const char *fb_kernel_fragment(void);
/* runner_main's code (RUNNER_*, DB_*, or the after-run hook's exit code)
 * as the exit code: the one place the runner's codes become sysexits. */
int run_exit(int r);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_upload(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_vm(int argc, char **argv);
int cmd_lab(int argc, char **argv);
int cmd_kernel(int argc, char **argv);

struct kbuild_opts;
struct kbuild_result;
/* kbuild() with its messages said; the exit code (sysexits). */
int kernel_build(const struct kbuild_opts *o, struct kbuild_result *res);
/* A kbuild_code as the exit code. */
int kbuild_exit(int r);

struct config;
struct db;
/*
 * Upload the pending runs of cfg's dashboard from the database at db_path
 * (only run uuid when not NULL; failed_too: retry failed ones), printing
 * what becomes of each.  Returns the exit code: 0 all sent, 75 some still
 * pending, 77 token refused, 65 a run rejected, 78 no dashboard or token,
 * 74 database error.  upload_cmd_db() does it on a database already open.
 */
int upload_cmd(const struct config *cfg, const char *db_path,
	       const char *uuid, bool failed_too);
int upload_cmd_db(struct db *db, const struct config *cfg, const char *uuid,
		  bool failed_too);
/* run_opts.after of `bench run`: arg points to the --upload flag. */
int upload_after_run(const struct config *cfg, const char *db_path,
		     const char *uuid, void *arg);
/* `bench export --run UUID --format run-json` */
int export_run_doc(const char *db_path, const char *uuid);

/* "bench: " + message + "\n" on stderr */
void fb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A --label value that is not a label (label_check) is a usage error:
 * says so, with the value escaped, and returns EX_USAGE; 0 when it is one.
 */
int fb_label_arg(const char *label);
/*
 * getopt_long's ':' (a value missing) or anything else it did not know, as
 * the error every command prints (then usage, when given): EX_USAGE.
 */
int fb_opt_error(int ch, char **argv, const char *usage);

#endif
