/* The subcommands of build/bench, one cmd_*.c each. */
#ifndef FB_CMDS_H
#define FB_CMDS_H

extern const char *fb_version;
extern const char *fb_prog;

/* Each returns an exit code (sysexits). argv[0] is the subcommand name. */
int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* "bench: " + message + "\n" on stderr */
void fb_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
