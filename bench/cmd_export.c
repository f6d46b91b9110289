/*
 * `bench export LABEL`: one kernel's results for a changelog, as `bench
 * compare` prints them: the median of each boot, the mean across boots and
 * its spread.  Exit codes as for compare: 64 usage, 65 bad data, 66 no
 * database, 67 unknown label, 68 no complete run, 69 refused by --strict
 * (the kernel printed warnings during its runs), 70 internal error,
 * 72 empty database, 74 I/O error, 76 newer schema.
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

	report_format_names(&names, " (default)");
	fprintf(f, "usage: bench export [--db FILE] [--format FORMAT] "
		"[--strict] LABEL\n"
		"       bench export [--db FILE] --run UUID --format run-json\n\n"
		"One kernel's results: the median of each boot, the mean "
		"across boots and its\nspread.\n\n"
		"  --db FILE        results database (default results.db)\n"
		"  --format FORMAT  %s,\n"
		"                   benchstat (every sample in Go's "
		"benchmark format)\n"
		"  --run UUID       one run, whole, as the JSON document of\n"
		"                   schema/run.schema.json (--format run-json)\n"
		"  --strict         refuse a kernel that printed warnings "
		"during its runs\n", names.buf);
	strbuf_release(&names);
}

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "run", required_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool strict = false;
	const char *path = "results.db", *label, *run = NULL;
	bool run_json = false;
	struct strbuf err = STRBUF_INIT;
	enum report_format fmt = REPORT_TEXT;
	struct report_opts opts = { .primary = report_cmd_primary,
				    .input = report_cmd_input,
				    .words = report_cmd_words };
	struct report_side s = { 0 };
	struct report_load_opts lo = { 0 };
	struct report_cmp c = { 0 };
	struct db db = { 0 };
	bool benchstat = false;
	int ch, ex, r;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:f:r:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': path = optarg; break;
		case 'r': run = optarg; break;
		case 'f':
			if (!strcmp(optarg, "run-json")) {
				run_json = true;
				break;
			}
			benchstat = !strcmp(optarg, "benchstat");
			if (!benchstat && report_format_parse(optarg, &fmt))
				return report_cmd_unknown_format(optarg,
								 "benchstat");
			break;
		case 's': strict = true; break;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	if (run || run_json) {
		if (!run || !run_json || optind < argc) {
			fb_err("--run UUID goes with --format run-json, and "
			       "without a label");
			usage(stderr);
			return EX_USAGE;
		}
		return export_run_doc(path, run);
	}
	if (argc - optind != 1) {
		fb_err("export takes one label");
		usage(stderr);
		return EX_USAGE;
	}
	label = argv[optind];
	if (!label[0]) {
		fb_err("empty label: name one (make export LABEL=...)");
		return EX_USAGE;
	}
	ex = report_cmd_open(&db, path);
	if (ex)
		return ex;
	/* people read one row a case; machines get every metric */
	opts.primary_only = fmt != REPORT_CSV && fmt != REPORT_JSON;
	lo.shown = opts.primary_only ? &opts : NULL;
	lo.runs_only = benchstat;	/* it reads the values itself */
	r = report_side_load_opts(&db, label, &lo, &s, &err);
	ex = report_cmd_load_exit(r, &err);
	if (ex)
		goto out;
	if (benchstat) {
		r = report_print_benchstat(stdout, &db, &s, report_cmd_primary,
					   fb_version, &err);
		if (r == REPORT_EDB || r == REPORT_EBUSY ||
		    r == REPORT_ENOMEM || r == REPORT_EDATA) {
			ex = report_cmd_load_exit(r, &err);
		} else if (r) {
			fb_err("cannot write the export: %s", strerror(-r));
			ex = EX_IOERR;
		}
		goto out;
	}
	if (report_compare(&s, NULL, &opts, &c)) {
		ex = report_cmd_load_exit(REPORT_ENOMEM, &err);
		goto out;
	}
	c.tool_version = fb_version;
	c.schema_version = db_schema_version(&db);
	ex = report_cmd_kwarn(&c, strict);
	if (ex)
		goto out;
	if (report_print(stdout, &c, fmt)) {
		fb_err("cannot write the report: %m");
		ex = EX_IOERR;
	}
out:
	report_cmp_release(&c);
	report_side_release(&s);
	strbuf_release(&err);
	db_close(&db);
	return ex;
}
