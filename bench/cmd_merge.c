/*
 * `bench merge OUT.db IN.db...`: the runs of several lab machines in one
 * database.  Idempotent (runs are keyed by uuid), the inputs are never
 * written (an older one is migrated in a copy in memory), and it says
 * what each input added.  Exit codes: 0 ok, 64 usage, 65 an input is not
 * a foliobench database (or a damaged one), 66 no such input, 74 I/O
 * error, 75 a database locked past 10 s, 76 a newer schema (the output is
 * left as it was for that input and the rest).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "schema/db.h"
#include "schema/merge.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: bench merge OUT.db IN.db...\n\n"
		"Adds the runs of each IN.db that OUT.db lacks (by run uuid), "
		"with their cases,\nsamples, values and kernel warnings.  "
		"OUT.db is made when missing; the inputs\nare never written "
		"(an older schema is migrated in a copy in memory).\n");
}

static void report(const char *in, const struct db_merge_stats *st)
{
	int i;

	printf("%s: added %lld run%s", in, (long long)st->table[0].added,
	       st->table[0].added == 1 ? "" : "s");
	for (i = 1; i < st->ntables; i++)
		printf("%s%s %lld", i == 1 ? " (" : ", ", st->table[i].name,
		       (long long)st->table[i].added);
	printf("%s; %lld already there", st->ntables > 1 ? ")" : "",
	       (long long)st->runs_present);
	if (st->in_migrated)
		printf("; read from schema %d, migrated in a copy",
		       st->in_version);
	printf("\n");
}

/* Why in could not be merged into out, said; the exit code. */
static int merge_failed(const char *in, const char *out, int r,
			const char *err)
{
	switch (r) {
	case DB_MISSING:
	case DB_BADROW:
		fb_err("cannot merge %s: %s", in, err);
		break;
	case DB_NOT_DB:
		fb_err("%s is %s: %s", in, db_strerror(r), err);
		break;
	case DB_TOO_NEW:
		fb_err("cannot merge %s: %s; use a newer foliobench", in, err);
		break;
	default:
		fb_err("cannot merge %s into %s: %s", in, out, err);
	}
	return report_cmd_db_exit(r);
}

int cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct db_merge_stats st;
	struct db out;
	int ch, i, r, ex = EX_OK, merged = 0;
	bool made;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			usage(stdout);
			return EX_OK;
		}
		return fb_opt_error(ch, argv, NULL);
	}
	if (argc - optind < 2) {
		fb_err("merge takes an output database and at least one input");
		usage(stderr);
		return EX_USAGE;
	}
	for (i = optind; i < argc; i++) {
		ex = report_cmd_db_name(argv[i], i == optind ?
					"the output database" : "an input");
		if (ex)
			return ex;
	}
	made = access(argv[optind], F_OK) && errno == ENOENT;
	r = db_open(&out, argv[optind], true);
	if (r) {
		fb_err("cannot open %s: %s", argv[optind], db_errmsg(&out));
		return report_cmd_db_exit(r);
	}
	/*
	 * Made and migrated: each merge has a connection of its own, and a
	 * first merge into an empty file copies it whole only where no other
	 * connection has it open.
	 */
	db_close(&out);
	for (i = optind + 1; i < argc; i++) {
		r = db_merge(&out, argv[i], &st);
		if (r) {
			ex = merge_failed(argv[i], argv[optind], r,
					  db_errmsg(&out));
		} else {
			report(argv[i], &st);
			merged++;
		}
	}
	db_close(&out);
	/* a failed merge leaves no empty output it made */
	if (made && !merged)
		db_merge_drop_new(argv[optind]);
	return ex;
}
