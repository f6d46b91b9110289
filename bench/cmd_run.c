/* `bench run` and `bench check`: options, then the runner. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "bench/report_cmd.h"
#include "cmds.h"
#include "runner/runner.h"
#include "schema/db.h"

static const char run_usage[] =
"usage: bench run [--config FILE] [--db FILE] [--label NAME]\n"
"                 [--only WORKLOAD,...] [--runs N] [--profile] [--upload]\n"
"                 [--quiet]\n"
"\n"
"  -c, --config FILE   configuration (default ./config.json, else the example)\n"
"  -d, --db FILE       results database (default: the config's, results.db)\n"
"  -l, --label NAME    label of this kernel (default: uname -r)\n"
"  -o, --only LIST     run only these workloads\n"
"  -n, --runs N        repetitions per case (default: the config's, 5)\n"
"  -p, --profile       sample the kernel in each timed call (as the config's\n"
"                      \"profile\": true); profiled samples are left out of\n"
"                      what reports compare unless asked\n"
"  -u, --upload        upload the run at its end (as dashboard.upload: true)\n"
"  -q, --quiet         print only the final table\n"
"\n"
"The run is stored whatever becomes of its upload: exit 75 when the upload\n"
"stays pending (dashboard unreachable), 77 or 65 when it was refused.\n";

static const char check_usage[] =
"usage: bench check [--config FILE] [--only WORKLOAD,...]\n"
"\n"
"Preflight only: lists each case as ok, skip or refuse (and why) and\n"
"creates nothing.  Exit 69 when a case is refused.  As `bench run` does at\n"
"its start, it undoes what a runner that died changed on the system and\n"
"marks its run aborted in the database.\n";

static int parse(int argc, char **argv, struct run_opts *o, bool check,
		 bool *upload)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "only", required_argument, NULL, 'o' },
		{ "runs", required_argument, NULL, 'n' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "upload", no_argument, NULL, 'u' },
		{ "profile", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	uint64_t u;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:d:l:o:n:qhup", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'c': o->config_path = optarg; break;
		case 'd': o->db_path = optarg; break;
		case 'l':
			if (fb_label_arg(optarg))
				return EX_USAGE;
			o->label = optarg;
			break;
		case 'o': o->only = optarg; break;
		case 'q': o->quiet = true; break;
		case 'p':
			if (check)	/* bench check profiles nothing */
				return fb_opt_error('?', argv, check_usage);
			o->profile = true;
			break;
		case 'u':
			if (check)	/* bench check has no --upload */
				return fb_opt_error('?', argv, check_usage);
			*upload = true;
			break;
		case 'n':
			if (parse_u64(optarg, &u) || u < 1 || u > 100000) {
				fb_err("--runs: '%s' is not a whole number "
				       "from 1 to 100000", optarg);
				return EX_USAGE;
			}
			o->runs = (int)u;
			break;
		case 'h':
			fputs(check ? check_usage : run_usage, stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, check ? check_usage : run_usage);
		}
	}
	if (optind < argc) {
		fb_err("unexpected argument '%s'", argv[optind]);
		return EX_USAGE;
	}
	return 0;
}

/* The runner's codes (and the database's, passed up) as exit codes. */
int run_exit(int r)
{
	if (r > 0)
		return r;	/* the after-run hook's (bench/'s own) exit code */
	if (r < RUNNER_ESIGNAL && r > RUNNER_SIGNALED(65))
		return 128 + (RUNNER_ESIGNAL - r);	/* 130 SIGINT, 143 SIGTERM */
	switch (r) {
	case RUNNER_OK:
		return EX_OK;
	case RUNNER_ECONFIG:
		return EX_CONFIG;
	case RUNNER_EUSAGE:
		return EX_USAGE;
	case RUNNER_EREFUSED:
		return EX_UNAVAILABLE;
	case RUNNER_ELOCKED:
		return EX_TEMPFAIL;
	case RUNNER_ESTATE:
		return EX_IOERR;
	case RUNNER_ESCRATCH:
		return EX_CANTCREAT;
	case DB_BUSY:
	case DB_ERR:
	case DB_FULL:
	case DB_READONLY:
	case DB_NOT_DB:
	case DB_CORRUPT:
	case DB_TOO_NEW:
		return report_cmd_db_exit(r);	/* the database's, passed up */
	default:	/* RUNNER_EFAILED, RUNNER_EINTERNAL */
		return EX_SOFTWARE;
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { .runs = -1, .after = upload_after_run };
	bool upload = false;
	int r = parse(argc, argv, &o, false, &upload);

	if (r)
		return r < 0 ? EX_OK : r;
	o.after_arg = &upload;
	if (!o.config_path)
		o.config_path = fb_config_default();
	return run_exit(runner_main(&o, fb_version));
}

int cmd_check(int argc, char **argv)
{
	struct run_opts o = { .runs = -1, .check_only = true };
	bool upload = false;
	int r = parse(argc, argv, &o, true, &upload);

	if (r)
		return r < 0 ? EX_OK : r;
	if (!o.config_path)
		o.config_path = fb_config_default();
	return run_exit(runner_main(&o, fb_version));
}
