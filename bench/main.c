/* build/bench: the command line.  A table of subcommands, one cmd_*.c each. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "runner/kbuild.h"
#include "runner/runner.h"

#ifndef FB_VERSION
#define FB_VERSION "unknown"
#endif

const char *fb_version = FB_VERSION;

const char *fb_config_default(void)
{
#if defined(FB_SYSCONFDIR) && defined(FB_DATADIR)
	if (!access(FB_SYSCONFDIR "/foliobench/config.json", F_OK))
		return FB_SYSCONFDIR "/foliobench/config.json";
	return FB_DATADIR "/config.example.json";
#else
	return config_default_path();
#endif
}
const char *fb_kernel_fragment(void)
{
#if defined(FB_DATADIR)
	if (!access(FB_DATADIR "/kernel/guest.config", R_OK))
		return FB_DATADIR "/kernel/guest.config";
#endif
	return kbuild_fragment();
}

const char *fb_prog = "bench";

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} cmds[] = {
	{ "run", cmd_run, "run the suite and store every sample" },
	{ "check", cmd_check, "preflight only: what would run, what is refused" },
	{ "list", cmd_list, "workloads, their parameters and defaults" },
	{ "runs", cmd_runs, "recorded runs" },
	{ "compare", cmd_compare, "compare two kernels (BASE PATCH)" },
	{ "export", cmd_export, "results of one kernel for a changelog" },
	{ "plan", cmd_plan, "boots so far and the kernel to boot next" },
	{ "nightly", cmd_nightly, "once per boot: run, upload, plan the next "
	  "boot" },
	{ "merge", cmd_merge, "merge result databases of several machines" },
	{ "upload", cmd_upload, "send pending runs to the dashboard" },
	{ "report", cmd_report, "an HTML page with plots of every sample" },
	{ "vm", cmd_vm, "boot a kernel in a QEMU guest, run there, bring the "
	  "run home" },
	{ "lab", cmd_lab, "boot two kernels in guests in turn, then compare" },
	{ "kernel", cmd_kernel, "build a guest kernel from source and patches" },
};

/* One line: what the message quotes (labels, kernel lines) is escaped. */
static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	char buf[1024], *msg = buf;
	va_list aq;
	int n;

	fflush(stdout);
	va_copy(aq, ap);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf)) {
		msg = xmalloc((size_t)n + 1);
		vsnprintf(msg, (size_t)n + 1, fmt, aq);
	}
	va_end(aq);
	/* a tool's output quoted at the end (dpkg-deb's) ends in a line
	 * break: the message's own end, not a \x0a to show */
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';
	fprintf(stderr, "%s: %s", fb_prog, kind);
	fputs_term(n < 0 ? fmt : msg, stderr, "");
	fputc('\n', stderr);
	if (msg != buf)
		free(msg);
}

void fb_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

int fb_opt_error(int ch, char **argv, const char *usage)
{
	if (ch == ':') {
		fb_err("option '%s' needs a value", argv[optind - 1]);
		return EX_USAGE;
	}
	fb_err("unknown option '%s'", argv[optind - 1]);
	if (usage)
		fputs(usage, stderr);
	return EX_USAGE;
}

int fb_label_arg(const char *label)
{
	struct strbuf q = STRBUF_INIT, err = STRBUF_INIT;

	if (!label_check(label, &err))
		return 0;
	strbuf_json_str(&q, label);	/* shown escaped */
	fb_err("--label %s: %s", q.buf, err.buf);
	strbuf_release(&q);
	strbuf_release(&err);
	return EX_USAGE;
}

void fb_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: bench <command> [options]\n\n"
		"foliobench: page-cache and shmem benchmarks for kernel "
		"patches.\n\ncommands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].fn)
			fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n`bench <command> --help` for its options.\n"
		"exit codes: 0 ok, 64 usage, 65 bad data, 69 refused by "
		"preflight,\n70 internal error, 74 I/O error, 75 temporary "
		"failure, 77 credentials refused,\n78 bad config, 130/143 interrupted\n");
}

/*
 * A command that printed its answer into a full disk or a closed pipe has
 * not answered: exit 74 rather than 0 (as git's close of stdout at exit).
 */
static int output_written(int r)
{
	int e = fflush(stdout) ? errno : 0;

	if (!e && !ferror(stdout))
		return r;
	if (!e)		/* a write failed earlier: its errno is gone */
		e = write(STDOUT_FILENO, "", 0) < 0 ? errno : EIO;
	fb_err("cannot write the output: %s", strerror(e));
	return r ? r : EX_IOERR;
}

int main(int argc, char **argv)
{
	size_t i;

	/* a line at a time, also into a file or the journal's pipe: an
	 * unattended run's progress is in its log when it happens, and a
	 * run killed midway has said what it did */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* the default token variable: kept, and out of every child's sight
	 * (a config naming another one takes that one out as it loads) */
	secret_env("FOLIOBENCH_TOKEN");
	if (argc < 2) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return output_written(EX_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("foliobench %s\n", fb_version);
		return output_written(EX_OK);
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (cmds[i].fn && !strcmp(argv[1], cmds[i].name))
			return output_written(cmds[i].fn(argc - 1, argv + 1));
	fb_err("'%s' is not a command; see 'bench --help'", argv[1]);
	return EX_USAGE;
}
