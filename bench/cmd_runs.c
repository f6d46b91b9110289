/* `bench runs`: the recorded runs. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cmds.h"
#include "common/common.h"
#include "report_cmd.h"
#include "runner/runner.h"
#include "schema/db.h"

static const char runs_usage[] =
"usage: bench runs [--db FILE] [--config FILE]\n"
"\n"
"Lists recorded runs: id, uuid, label, kernel, boot, status, start, samples,\n"
"the kernel log lines that showed a kernel problem during the run (kwarn; -\n"
"where the log was not read), and upload: per target pending, sent or failed,\n"
"with the last error and the tries so far.  A run stored as running whose\n"
"runner is gone (it died, or a full disk kept it from writing its end) shows\n"
"as dead; the next `bench run` or `bench check` marks it aborted.\n"
"\n"
"  -d, --db FILE       results database (default: the config's, else\n"
"                      results.db)\n"
"  -c, --config FILE   the config whose database to read (default\n"
"                      ./config.json, else the example)\n";

/*
 * A run stored as running whose runner is gone (it died, or could not
 * write its end: a full disk) is shown dead; the next `bench run` or
 * `bench check` marks it aborted.
 */
static const char *shown_status(const struct db_run_row *r, int *ndead)
{
	if (!r->status || strcmp(r->status, "running") ||
	    !runner_run_dead(r->hostname, r->boot_id, r->pid, r->started_at))
		return r->status;
	(*ndead)++;
	return "dead";
}

static int row(const struct db_run_row *r, void *arg)
{
	struct strbuf line = STRBUF_INIT;
	char kw[24];
	const char *status = shown_status(r, arg);

	if (r->kernel_warnings < 0)
		snprintf(kw, sizeof(kw), "-");
	else
		snprintf(kw, sizeof(kw), "%lld", (long long)r->kernel_warnings);
	strbuf_addf(&line, "%-5lld %-36s %-20s %-24s %-8.8s %-9s %-20s %-7lld "
		    "%-5s %s", (long long)r->id, r->uuid, r->label,
		    r->kernel_release, r->boot_id, status, r->started_at,
		    (long long)r->nsamples, kw, r->upload ? r->upload : "-");
	/* a row a line, whatever the database holds */
	fputs_term(strbuf_str(&line), stdout, "");
	putchar('\n');
	strbuf_release(&line);
	return 0;
}

int cmd_runs(int argc, char **argv)
{
	static const struct option longopts[] = {
		REPORT_CMD_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *db_arg = NULL, *cfg_arg = NULL;
	char *path;
	struct db db;
	int ch, r, ndead = 0;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': db_arg = optarg; break;
		case 'c': cfg_arg = optarg; break;
		case 'h':
			fputs(runs_usage, stdout);
			return EX_OK;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	if (optind < argc) {
		fb_err("unexpected argument '%s'", argv[optind]);
		return EX_USAGE;
	}
	r = report_cmd_db_path(db_arg, cfg_arg, &path);
	if (r)
		return r;
	r = report_cmd_open(&db, path);
	if (r)
		goto out;
	printf("%-5s %-36s %-20s %-24s %-8s %-9s %-20s %-7s %-5s %s\n", "id",
	       "uuid", "label", "kernel", "boot", "status", "started",
	       "samples", "kwarn", "upload");
	r = db_runs_each(&db, row, &ndead);
	if (r)
		fb_err("cannot read runs from %s: %s", path, db_errmsg(&db));
	else if (ndead)
		fb_warn("%d run%s stored as running %s dead: %s runner is "
			"gone (it died, or could not write the end: a full "
			"disk); the next `bench run` or `bench check` marks "
			"%s aborted", ndead, ndead == 1 ? "" : "s",
			ndead == 1 ? "is" : "are", ndead == 1 ? "its" :
			"their", ndead == 1 ? "it" : "them");
	db_close(&db);
	r = r ? EX_IOERR : EX_OK;
out:
	free(path);
	return r;
}
