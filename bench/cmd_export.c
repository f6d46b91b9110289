/*
 * `bench export LABEL`: one kernel's results for a changelog, as `bench
 * compare` prints them: the median of each boot, the mean across boots and
 * its spread.  Exit codes as for compare: 64 usage, 65 bad data, 66 no
 * database, 67 unknown label, 68 no complete run, 69 refused by --strict
 * (the kernel printed warnings during its runs), 70 internal error,
 * 72 empty database, 74 I/O error, 76 newer schema, 78 the config that
 * names the database does not load; --format folded, 69 also where the
 * label's runs hold no kernel profile.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "reports/compare.h"
#include "reports/exports.h"
#include "schema/db.h"

static void usage(FILE *f)
{
	struct strbuf names = STRBUF_INIT;

	report_format_names(&names, " (default)", 0);
	fprintf(f, "usage: bench export [--db FILE] [--format FORMAT] "
		"[--strict] LABEL\n"
		"       bench export [--db FILE] --run UUID --format run-json\n\n"
		"One kernel's results: the median of each boot, the mean "
		"across boots and its\nspread.\n\n"
		"  --db FILE        results database (default: the config's, "
		"else results.db)\n"
		"  --config FILE    the config whose database to read (default "
		"./config.json,\n                   else the example)\n"
		"  --format FORMAT  %s,\n"
		"                   benchstat (every sample in Go's "
		"benchmark format),\n"
		"                   folded (the kernel profiles of `bench run "
		"--profile`, a line\n"
		"                   a stack, the case its first frame: "
		"flamegraph.pl reads it)\n"
		"  --run UUID       one run, whole, as the JSON document of\n"
		"                   schema/run.schema.json (--format run-json)\n"
		"  --strict         refuse a kernel that printed warnings "
		"during its runs\n", names.buf);
	strbuf_release(&names);
}

/* What export writes besides a report. */
#define OUTPUTS	(REPORT_OUT_BENCHSTAT | REPORT_OUT_FOLDED |	\
		 REPORT_OUT_RUN_JSON)

struct export {
	struct report_cmd rc;
	struct report_opts opts;
	enum report_format fmt;
	const char *run;	/* --run UUID */
	enum report_output out;	/* benchstat, folded, run-json */
	bool strict;
};

/* The options into x: an exit code, -1 for --help (printed). */
static int parse(int argc, char **argv, struct export *x)
{
	static const struct option longopts[] = {
		REPORT_CMD_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:f:r:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'd': x->rc.db_arg = optarg; break;
		case 'c': x->rc.cfg_arg = optarg; break;
		case 'r': x->run = optarg; break;
		case 'f':
			if (report_format_parse(optarg, OUTPUTS, &x->fmt,
						&x->out))
				return report_cmd_unknown_format(optarg,
								 OUTPUTS);
			break;
		case 's': x->strict = true; break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	return EX_OK;
}

/* `--run UUID --format run-json`: the one run's document. */
static int run_doc(int argc, struct export *x)
{
	int ex;

	if (!x->run || x->out != REPORT_OUT_RUN_JSON || optind < argc) {
		fb_err("--run UUID goes with --format run-json, and without a "
		       "label");
		usage(stderr);
		return EX_USAGE;
	}
	ex = report_cmd_db_path(x->rc.db_arg, x->rc.cfg_arg, &x->rc.path);
	return ex ? ex : export_run_doc(x->rc.path, x->run);
}

/* Every sample in Go's benchmark format, read by the printer itself. */
static int print_benchstat(struct report_cmd *rc)
{
	int r = report_print_benchstat(stdout, &rc->db, &rc->a,
				       report_cmd_primary, fb_version,
				       &rc->err);

	if (r == REPORT_EDB || r == REPORT_EBUSY || r == REPORT_ENOMEM ||
	    r == REPORT_EDATA)
		return report_cmd_load_exit(r, &rc->err);
	if (r) {
		fb_err("cannot write the export: %s", strerror(-r));
		return EX_IOERR;
	}
	return EX_OK;
}

/* The label's kernel profiles as folded stacks. */
static int print_folded(struct report_cmd *rc, const char *label)
{
	size_t lines = 0;
	int r = report_print_folded(stdout, &rc->db, rc->a.db_label, &lines,
				    &rc->err);

	if (r == REPORT_EDB || r == REPORT_EBUSY || r == REPORT_EDATA)
		return report_cmd_load_exit(r, &rc->err);
	if (r) {
		fb_err("cannot write the export: %s", strerror(-r));
		return EX_IOERR;
	}
	if (!lines) {
		fb_err("label '%s' has no kernel profile: its runs were not "
		       "profiled (bench run --profile), or the kernel would "
		       "not give one (cases.profile says why)", label);
		return EX_UNAVAILABLE;
	}
	return EX_OK;
}

int cmd_export(int argc, char **argv)
{
	struct export x = { .rc = REPORT_CMD_INIT, .fmt = REPORT_TEXT,
			    .opts = REPORT_CMD_OPTS };
	struct report_cmp c = { 0 };
	int ex = parse(argc, argv, &x);

	if (ex)
		return ex < 0 ? EX_OK : ex;
	if (x.run || x.out == REPORT_OUT_RUN_JSON) {
		ex = run_doc(argc, &x);
		goto out;
	}
	if (argc - optind != 1) {
		fb_err("export takes one label");
		usage(stderr);
		return EX_USAGE;
	}
	if (!argv[optind][0]) {
		fb_err("empty label: name one (make export LABEL=...)");
		return EX_USAGE;
	}
	/* people read one row a case; machines get every metric */
	x.opts.primary_only = x.fmt != REPORT_CSV && x.fmt != REPORT_JSON;
	x.rc.lo.shown = x.opts.primary_only ? &x.opts : NULL;
	/* they read the values themselves */
	x.rc.lo.runs_only = x.out == REPORT_OUT_BENCHSTAT ||
			    x.out == REPORT_OUT_FOLDED;
	ex = report_cmd_load(&x.rc, argv[optind], NULL, false);
	if (ex)
		goto out;
	if (x.out == REPORT_OUT_BENCHSTAT) {
		ex = print_benchstat(&x.rc);
		goto out;
	}
	if (x.out == REPORT_OUT_FOLDED) {
		ex = print_folded(&x.rc, argv[optind]);
		goto out;
	}
	ex = report_cmd_compare(&x.rc, false, &x.opts, &c);
	if (!ex)
		ex = report_cmd_kwarn(&c, x.strict);
	if (!ex)
		ex = report_cmd_print(&c, x.fmt);
out:
	report_cmp_release(&c);
	report_cmd_release(&x.rc);
	return ex;
}
