/*
 * `bench nightly`: the lab's once-per-boot job.  Runs the configured suite
 * once for this boot and label (a complete run in this boot: nothing to
 * do; a run left aborted or failed: retried once), uploads it where a
 * dashboard is configured, then, where a plan is configured, prepares the
 * next boot and with --reboot boots it.  Ends with one summary line.
 *
 * Exit codes: those of `bench run` for the run (0, 69, 70, 75, 78,
 * 130/143...); 0 when this boot already has its run; 64 usage; 74/76 the
 * database; 78 --reboot without a plan or a way to boot the next kernel;
 * 70 when the boot commands fail.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "reports/compare.h"
#include "reports/plan.h"
#include "runner/boot.h"
#include "runner/meta.h"
#include "runner/runner.h"
#include "schema/db.h"
#include "schema/db_report.h"

static const char nightly_usage[] =
"usage: bench nightly [--config FILE] [--db FILE] [--label NAME] [--reboot]\n"
"                     [--quiet]\n"
"\n"
"Once per boot: runs the suite unless this boot already has a complete run\n"
"of this label (a run left aborted in this boot is retried once), uploads it\n"
"where a dashboard is configured, and where the config has a \"plan\", says\n"
"which kernel boots next and the commands that boot it.\n"
"\n"
"  -c, --config FILE   configuration (default: as for bench run)\n"
"  -d, --db FILE       results database (default: the config's)\n"
"  -l, --label NAME    label of this kernel (default: the config's; with a\n"
"                      plan, the side whose label is uname -r)\n"
"      --reboot        run the boot commands instead of printing them\n"
"  -q, --quiet         print only the final table and the summary\n";

struct nightly {
	const char *cfg_path, *db_path, *label;
	bool reboot, quiet;
	struct config cfg;
	char boot_id[64], release[128];
	char release_label[LABEL_MAX + 1];	/* uname -r as a label */
	/* for the summary line */
	struct strbuf what, next;
	const char *upload;
};

static int parse(int argc, char **argv, struct nightly *n)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "db", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'l' },
		{ "reboot", no_argument, NULL, 'r' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":c:d:l:qh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'c': n->cfg_path = optarg; break;
		case 'd': n->db_path = optarg; break;
		case 'l':
			if (fb_label_arg(optarg))
				return EX_USAGE;
			n->label = optarg;
			break;
		case 'r': n->reboot = true; break;
		case 'q': n->quiet = true; break;
		case 'h':
			fputs(nightly_usage, stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, nightly_usage);
		}
	}
	if (optind < argc) {
		fb_err("unexpected argument '%s'", argv[optind]);
		return EX_USAGE;
	}
	if (n->db_path)
		return report_cmd_db_name(n->db_path, "--db");
	return 0;
}

/*
 * The label `bench run` gives this kernel when none is given: uname -r
 * made a label by the runner's own rule, so that the run this nightly
 * makes is the one it looks for.
 */
static const char *release_label(struct nightly *n)
{
	struct meta m;

	meta_collect(&m);
	snprintf(n->release_label, sizeof(n->release_label), "%s", m.label);
	meta_release(&m);
	return n->release_label;
}

/*
 * A file kexec is to load (key: "kernel", "initrd"; path NULL: none given)
 * is there: a missing image ran the whole suite and then failed to boot
 * (70).  An exit code, said.
 */
static int kexec_file(const struct nightly *n, const char *side,
		      const char *key, const char *path)
{
	struct stat st;
	const char *why = NULL;

	if (!path)
		return EX_OK;
	if (stat(path, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	if (!why)
		return EX_OK;
	fb_err("%s: plan.%s.boot.%s: \"%s\": %s; --reboot could not boot %s",
	       n->cfg_path, side, key, path, why, side);
	return EX_CONFIG;
}

/*
 * The label of this boot, and with --reboot, a plan that can boot both
 * kernels: checked before anything runs, so a bad plan costs no run.
 */
static int check_plan(struct nightly *n)
{
	const struct config_plan *p = &n->cfg.plan;
	struct utsname u;
	int i;

	if (!n->label)
		n->label = n->cfg.label;
	if (n->reboot && !p->set) {
		fb_err("--reboot needs a \"plan\" in %s (the kernels to "
		       "alternate and how to boot them)", n->cfg_path);
		return EX_CONFIG;
	}
	for (i = 0; n->reboot && i < 2; i++)
		if (!p->side[i].grub && !p->side[i].kernel) {
			fb_err("%s: plan.%s.boot: --reboot needs a way to boot "
			       "%s: \"grub\" (a GRUB menu entry) or \"kernel\" "
			       "(an image for kexec)", n->cfg_path,
			       i ? "patch" : "base", p->side[i].label);
			return EX_CONFIG;
		}
	for (i = 0; n->reboot && i < 2; i++) {
		const char *side = i ? "patch" : "base";
		int ex = kexec_file(n, side, "kernel", p->side[i].kernel);
		struct strbuf err = STRBUF_INIT;

		/* an entry GRUB has not: the default kernel, measured as
		 * the other (grub-reboot of a wrong name boots the default) */
		if (!ex && p->side[i].grub &&
		    boot_grub_check(p->side[i].grub, &err)) {
			fb_err("%s: plan.%s.boot.grub: \"%s\": %s; --reboot "
			       "could not boot %s", n->cfg_path, side,
			       p->side[i].grub, err.buf, side);
			strbuf_release(&err);
			return EX_CONFIG;
		}

		if (!ex)
			ex = kexec_file(n, side, "initrd", p->side[i].initrd);
		if (ex)
			return ex;
	}
	uname(&u);
	snprintf(n->release, sizeof(n->release), "%s", u.release);
	if (!p->set) {
		if (!n->label)
			n->label = release_label(n);
		return 0;
	}
	if (!n->label) {
		for (i = 0; i < 2; i++)
			if (!strcmp(p->side[i].label, u.release))
				n->label = p->side[i].label;
		if (!n->label) {
			fb_err("%s: the running kernel %s is neither the plan's "
			       "base (%s) nor its patch (%s); name it with "
			       "--label or \"label\"", n->cfg_path, u.release,
			       p->side[0].label, p->side[1].label);
			return EX_CONFIG;
		}
	}
	if (strcmp(n->label, p->side[0].label) &&
	    strcmp(n->label, p->side[1].label)) {
		fb_err("%s: label %s is neither the plan's base (%s) nor its "
		       "patch (%s)", n->cfg_path, n->label, p->side[0].label,
		       p->side[1].label);
		return EX_CONFIG;
	}
	return 0;
}

/* How many runs this boot already has: whether to run, and say why. */
static int this_boot(struct nightly *n, const char *label, bool *run)
{
	struct db_boot_runs br;
	struct db db;
	int ex;

	*run = true;
	if (access(n->db_path, F_OK))
		return EX_OK;	/* nothing recorded yet */
	ex = report_cmd_open(&db, n->db_path);
	if (ex)
		return ex;
	if (db_report_boot_runs(&db, label, n->boot_id, &br)) {
		fb_err("cannot read %s: %s", n->db_path, db_errmsg(&db));
		db_close(&db);
		return EX_IOERR;
	}
	db_close(&db);
	if (br.complete) {
		printf("nightly: %s already has a complete run in boot %s; "
		       "not running it again\n", label, n->boot_id);
		strbuf_addf(&n->what, "already ran in this boot");
		*run = false;
	} else if (br.other >= 2) {
		printf("nightly: %lld runs of %s in boot %s did not complete; "
		       "not trying again in this boot\n", (long long)br.other,
		       label, n->boot_id);
		strbuf_addf(&n->what, "gave up after %lld runs that did not "
			    "complete", (long long)br.other);
		*run = false;
	} else if (br.other == 1) {
		printf("nightly: the run of %s in boot %s did not complete; "
		       "running it once more\n", label, n->boot_id);
	}
	return EX_OK;
}

/* "run 1a2b3c4d complete, cases 4 valid 0 invalid, kernel warnings 0" */
static void run_words(struct nightly *n, const char *label)
{
	struct db_run_summary s;
	struct db db;

	if (db_open_read(&db, n->db_path)) {
		db_close(&db);
		return;
	}
	if (!db_report_run_summary(&db, label, n->boot_id, &s)) {
		strbuf_addf(&n->what, "%srun %.8s %s, cases %lld valid %lld "
			    "invalid", n->what.len ? "; " : "", s.uuid,
			    s.status, (long long)s.cases_valid,
			    (long long)s.cases_invalid);
		if (s.cases_skipped)
			strbuf_addf(&n->what, " %lld skipped",
				    (long long)s.cases_skipped);
		if (s.kernel_warnings < 0)
			strbuf_addf(&n->what, ", kernel warnings not read");
		else
			strbuf_addf(&n->what, ", kernel warnings %lld",
				    (long long)s.kernel_warnings);
	}
	db_close(&db);
}

static void summary(const struct nightly *n, int ex);

/* Plan the next boot; with --reboot, boot it.  An exit code. */
static int next_boot(struct nightly *n)
{
	const struct config_plan *cp = &n->cfg.plan;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	struct report_bootplan p = { 0 };
	struct boot_cmds bc = { 0 };
	struct db db = { 0 };
	int ex, r;

	if (!cp->set) {
		strbuf_addf(&n->next, "next boot: no plan");
		return EX_OK;
	}
	ex = report_cmd_open(&db, n->db_path);
	if (ex)
		return ex;
	r = report_plan(&db, cp->side[0].label, cp->side[1].label, cp->boots,
			cp->effect, report_cmd_published, report_cmd_primary,
			&p, &err);
	ex = report_cmd_load_exit(r, &err);
	if (ex)
		goto out;
	if (!n->quiet)
		report_cmd_plan_print(&p, cp);
	if (p.next < 0) {
		strbuf_addf(&n->next, "next boot: none, the comparison is "
			    "ready (%u boots of each kernel)", cp->boots);
		goto out;
	}
	strbuf_addf(&n->next, "next boot: %s", p.label[p.next]);
	if (boot_cmds_make(&cp->side[p.next], &bc)) {
		strbuf_addf(&n->next, " (the plan says no way to boot it)");
		goto out;
	}
	boot_cmds_line(&bc, &line);
	strbuf_addf(&n->next, " by `%s`%s", strbuf_str(&line),
		    n->reboot ? "" : " (not run without --reboot)");
out:
	report_plan_release(&p);
	db_close(&db);
	strbuf_release(&err);
	strbuf_release(&line);
	if (!ex && bc.argv[0][0] && n->reboot) {
		/* the summary goes out before the machine goes down */
		summary(n, 0);
		strbuf_release(&n->next);
		if (boot_cmds_run(&bc, &err)) {
			fb_err("cannot boot the next kernel: %s",
			       strbuf_str(&err));
			ex = EX_SOFTWARE;
		}
		strbuf_release(&err);
	}
	boot_cmds_release(&bc);
	return ex;
}

/* The summary line: what this boot did, its upload, what boots next. */
static void summary(const struct nightly *n, int ex)
{
	printf("nightly: label %s, boot %s, %s", n->label, n->boot_id,
	       n->what.len ? strbuf_str(&n->what) : "no run");
	if (ex)
		printf(" (exit %d)", ex);
	printf(", upload %s, %s\n", n->upload ? n->upload : "not configured",
	       strbuf_str(&n->next));
	fflush(stdout);
}

/*
 * A run that did not complete (exit ex) is retried once by the next
 * nightly in this boot: stay in this boot for it (true, n->next says so).
 * After the retry, or when no run was recorded at all (refused, the lock
 * held, interrupted), the boot is not planned away either; only a second
 * failed run gives this boot up (false, n->what says so).
 */
static bool stays(struct nightly *n, int ex)
{
	struct db_boot_runs br = { 0 };
	struct db db;

	if (!db_open_read(&db, n->db_path))
		db_report_boot_runs(&db, n->label, n->boot_id, &br);
	db_close(&db);
	if (br.other < 2 || ex > 128 || ex == EX_TEMPFAIL) {
		strbuf_addf(&n->next, "next boot: none yet (a run that did "
			    "not complete is retried once in this boot)");
		return true;
	}
	strbuf_addf(&n->what, "; gave this boot up after %lld runs",
		    (long long)br.other);
	return false;
}

/* The summary's words for the exit code of the upload. */
static const char *upload_words(int ex)
{
	return ex == EX_OK ? "sent" :
	       ex == EX_TEMPFAIL ? "pending (the dashboard is not reachable; "
	       "the outbox keeps the run)" :
	       ex == EX_NOPERM ? "refused (the token)" :
	       ex == EX_DATAERR ? "rejected (a run the dashboard would not "
	       "take)" :
	       ex == EX_CONFIG ? "not possible (no token)" :
	       "failed";
}

int cmd_nightly(int argc, char **argv)
{
	struct nightly n = { .what = STRBUF_INIT, .next = STRBUF_INIT };
	struct run_opts o = { .runs = -1 };
	struct strbuf err = STRBUF_INIT;
	bool run;
	int ex, r;

	r = parse(argc, argv, &n);
	if (r)
		return r < 0 ? EX_OK : r;
	if (!n.cfg_path)
		n.cfg_path = fb_config_default();
	if (config_load(&n.cfg, n.cfg_path, &err)) {
		fb_err("%s", strbuf_str(&err));
		strbuf_release(&err);
		return EX_CONFIG;
	}
	ex = check_plan(&n);
	if (ex)
		goto out;
	n.db_path = report_cmd_db_rule(n.db_path, &n.cfg);
	boot_id_get(n.boot_id, sizeof(n.boot_id));
	ex = this_boot(&n, n.label, &run);
	if (ex)
		goto out;
	if (run) {
		o.config_path = n.cfg_path;
		o.db_path = n.db_path;
		o.label = n.label;
		o.quiet = n.quiet;
		ex = run_exit(runner_main(&o, fb_version));
	}
	run_words(&n, n.label);
	if (ex && stays(&n, ex)) {
		summary(&n, ex);
		goto out;
	}
	/*
	 * The run is safe in the database: what follows cannot lose it.  The
	 * upload sends every run still pending (this one, and any an earlier
	 * night could not deliver); a failure leaves them in the outbox and
	 * is said in the summary, and the plan goes on.
	 */
	if (n.cfg.dash.target != DASHBOARD_NONE) {
		n.upload = upload_words(upload_cmd(&n.cfg, n.db_path, NULL,
						   false));
	}
	r = next_boot(&n);
	if (n.next.len)
		summary(&n, ex);
	if (!ex)
		ex = r;
out:
	strbuf_release(&n.what);
	strbuf_release(&n.next);
	strbuf_release(&err);
	config_release(&n.cfg);
	return ex;
}
