/*
 * `bench upload`: the outbox to the dashboard; `bench run --upload` and
 * `bench nightly` end with upload_cmd().  Also `bench export --run UUID
 * --format run-json`, the document the json target sends.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sysexits.h>

#include "reports/schema_check.h"
#include "cmds.h"
#include "report_cmd.h"
#include "upload/upload.h"
#include "runner/runner.h"
#include "schema/db_upload.h"

static const char upload_usage[] =
"usage: bench upload [--config FILE] [--db FILE] [--run UUID] [--failed]\n"
"\n"
"Sends every complete run still pending to the configured dashboard,\n"
"oldest first, and says what became of each.\n"
"\n"
"  -c, --config FILE   configuration (default ./config.json, else the example)\n"
"  -d, --db FILE       results database (default: the config's)\n"
"  -r, --run UUID      only this run (queued if it has no upload yet; a\n"
"                      run that failed to upload is tried again)\n"
"  -f, --failed        also retry runs whose upload failed (a refused token)\n"
"\n"
"exit: 0 all sent, 75 some still pending (dashboard unreachable, or the\n"
"database locked), 77 the token was refused or the dashboard's certificate\n"
"is not trusted, 65 the dashboard rejected a run (or holds it in part), 78\n"
"no dashboard or no token, 67 no such run, 68 the run is not complete\n";

static void say(bool error, const char *msg, void *arg)
{
	(void)arg;
	if (error) {
		fb_err("%s", msg);
	} else {
		printf("%s\n", msg);
		fflush(stdout);
	}
}

static int exit_code(enum upload_status s)
{
	switch (s) {
	case UPLOAD_OK: return EX_OK;
	case UPLOAD_PENDING: return EX_TEMPFAIL;
	case UPLOAD_DENIED: return EX_NOPERM;
	case UPLOAD_REJECTED: return EX_DATAERR;
	case UPLOAD_ECONFIG: return EX_CONFIG;
	case UPLOAD_EDB: return EX_IOERR;
	case UPLOAD_ENORUN: return EX_NOUSER;
	case UPLOAD_EINCOMPLETE: return EX_NOHOST;
	case UPLOAD_EINTERNAL: return EX_SOFTWARE;
	case UPLOAD_EBUSY: return EX_TEMPFAIL;
	case UPLOAD_UNTRUSTED: return EX_NOPERM;
	}
	return EX_SOFTWARE;
}

int upload_cmd_db(struct db *db, const struct config *cfg, const char *uuid,
		  bool failed_too)
{
	struct upload_opts o = { .uuid = uuid, .failed_too = failed_too,
				 .say = say };
	struct strbuf err = STRBUF_INIT;
	struct upload_tally t;
	enum upload_status s;

	s = upload_pending(db, &cfg->dash, &o, &t, &err);
	if (err.len)
		fb_err("%s", strbuf_str(&err));
	strbuf_release(&err);
	if (t.busy)
		fb_warn("%d run%s being sent by another `bench upload`",
			t.busy, t.busy == 1 ? " is" : "s are");
	if (t.denied)
		fb_err("the token was refused; runs stay queued: fix the token "
		       "and run `bench upload --failed`");
	if (t.untrusted)
		fb_err("the dashboard's certificate is not trusted; runs stay "
		       "queued: set dashboard.ca_file and run `bench upload "
		       "--failed`");
	if (s == UPLOAD_OK && !t.sent && !t.busy) {
		if (uuid)
			printf("run %s is at %s already\n", uuid,
			       dashboard_target_name(cfg->dash.target));
		else
			printf("nothing to upload to %s\n",
			       dashboard_target_name(cfg->dash.target));
	}
	return exit_code(s);
}

int upload_cmd(const struct config *cfg, const char *db_path,
	       const char *uuid, bool failed_too)
{
	struct db db;
	int ex = report_cmd_open_write(&db, db_path);

	if (ex)
		return ex;
	ex = upload_cmd_db(&db, cfg, uuid, failed_too);
	db_close(&db);
	return ex;
}

/* `bench run`: the run is stored; its upload decides the exit code. */
int upload_after_run(const struct config *cfg, const char *db_path,
		     const char *uuid, void *arg)
{
	bool asked = arg && *(bool *)arg;

	if (cfg->dash.target == DASHBOARD_NONE) {
		if (asked)
			fb_warn("--upload: no dashboard is configured in %s; "
				"run %s stays here", cfg->path, uuid);
		return EX_OK;
	}
	if (!asked && !cfg->dash.upload)
		return EX_OK;
	/* the run is over: a signal now ends the upload, not a run */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	return upload_cmd(cfg, db_path, uuid, false);
}

int cmd_upload(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "run", required_argument, NULL, 'r' },
		{ "failed", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = NULL, *db_path = NULL, *uuid = NULL;
	struct strbuf err = STRBUF_INIT;
	struct config cfg;
	bool failed = false;
	int ch, ex;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:d:r:fh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'c': cfg_path = optarg; break;
		case 'd': db_path = optarg; break;
		case 'r': uuid = optarg; break;
		case 'f': failed = true; break;
		case 'h':
			fputs(upload_usage, stdout);
			return EX_OK;
		default:
			return fb_opt_error(ch, argv, upload_usage);
		}
	}
	if (optind < argc) {
		fb_err("unexpected argument '%s'", argv[optind]);
		return EX_USAGE;
	}
	if (db_path && (ex = report_cmd_db_name(db_path, "--db")))
		return ex;
	if (!cfg_path)
		cfg_path = config_default_path();
	if (config_load(&cfg, cfg_path, &err)) {
		fb_err("%s", strbuf_str(&err));
		strbuf_release(&err);
		return EX_CONFIG;
	}
	if (cfg.dash.target == DASHBOARD_NONE) {
		fb_err("%s: no dashboard is configured (add a \"dashboard\" "
		       "section; see config.example.json)", cfg.path);
		ex = EX_CONFIG;
	} else {
		ex = upload_cmd(&cfg, report_cmd_db_rule(db_path, &cfg), uuid,
				failed);
	}
	config_release(&cfg);
	return ex;
}

int export_run_doc(const char *db_path, const char *uuid)
{
	struct db db;
	char *doc = NULL;
	int ex = report_cmd_open(&db, db_path), r;

	if (ex)
		return ex;
	r = report_run_doc(&db, uuid, &doc);
	if (r == DB_MISSING) {
		fb_err("no run %s in %s (see `bench runs`)", uuid, db_path);
		ex = EX_NOUSER;
	} else if (r) {
		fb_err("cannot read run %s from %s: %s", uuid, db_path,
		       db_errmsg(&db));
		ex = EX_DATAERR;
	} else if (printf("%s\n", doc) < 0 || fflush(stdout)) {
		fb_err("cannot write the run document: %m");
		ex = EX_IOERR;
	}
	free(doc);
	db_close(&db);
	return ex;
}
