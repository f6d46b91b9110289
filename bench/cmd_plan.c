/*
 * `bench plan BASE PATCH`: the boots each kernel has had, the order they
 * ran in, the kernel to boot next, and how many boots each needs to detect
 * a change.  Exit codes: 0 ok, 64 usage, 65 bad data, 70 internal error,
 * 74 cannot read the database, 76 newer schema, 78 bad configuration.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "reports/compare.h"
#include "reports/plan.h"
#include "runner/boot.h"
#include "runner/runner.h"

/*
 * The changes the patches behind each workload published (shared/seeds),
 * the smallest where a patch published several: what `bench plan` aims to
 * detect when no --effect is given.
 */
static const struct {
	const char *workload;
	double pct;
	const char *from;
} published[] = {
	{ "shmem-remove", 20.9, "hole punch 1155 -> 914 ms" },
	{ "shadow-truncate", 18.5, "5.164 -> 4.21 s" },
	{ "small-truncate", 15.5, "p1 248 -> 209.6 us, mean of 5 rows" },
	{ "seq-read", 0.4, "2697 -> 2709 MiB/s" },
};

double report_cmd_published(const char *workload)
{
	size_t i;

	for (i = 0; i < sizeof(published) / sizeof(published[0]); i++)
		if (!strcmp(published[i].workload, workload))
			return published[i].pct;
	return NAN;
}

int report_cmd_effect(const char *s, double *out)
{
	char *end;
	double d = strtod(s, &end);

	if (end == s || (*end && strcmp(end, "%")) || !(d > 0 && d < 1000))
		return -1;
	*out = d;
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: bench plan [--db FILE] [--config FILE] "
		"[--effect PCT] [--boots N] [--remaining] [BASE PATCH]\n\n"
		"Boots so far of two kernels (complete runs in distinct "
		"boots), the order they\nran in, the kernel to boot next "
		"(ABAB, then BAAB), and the boots each needs to\ndetect a "
		"change, from the boot-to-boot spread so far.  BASE and PATCH "
		"default\nto the config's plan.\n\n"
		"  --db FILE      results database (default: the config's, "
		"else results.db)\n"
		"  --config FILE  configuration with a \"plan\" (default "
		"./config.json, else the example)\n"
		"  --effect PCT   change to detect, such as 5%% (default: the "
		"plan's, else each\n                 workload's published "
		"change)\n"
		"  --boots N      boots of each kernel wanted (default: the "
		"plan's, 4)\n"
		"  --remaining    only the labels of the boots still to go "
		"until each kernel has\n                 N, one a line, "
		"in the order to boot them (a LAVA job each:\n"
		"                 lava/render-jobs)\n");
}

static void print_rows(const struct report_bootplan *p)
{
	size_t i;

	if (p->boots[0] < 2 || p->boots[1] < 2) {
		printf("boots needed to see a change: the boot-to-boot spread "
		       "needs 2 boots of each kernel\n");
		return;
	}
	printf("boots needed to see a change (each row alone, two-sided "
	       "alpha %.2g, power %.1f,\nfrom the spread of the boot "
	       "medians so far):\n", REPORT_ALPHA, REPORT_POWER);
	for (i = 0; i < p->nrows; i++) {
		const struct report_plan_row *r = &p->rows[i];

		printf("  %s: %.1f%%, spread %.2f%%: ", r->name, r->effect,
		       r->sd_pct);
		if (isnan(r->effect))
			printf("no published change; give --effect\n");
		else if (r->need < 0)
			printf("no spread yet\n");
		else if (r->need > REPORT_NEED_CAP)
			printf("more than %d boots of each kernel\n",
			       REPORT_NEED_CAP);
		else
			printf("%ld boots of each kernel (%ld more of base, "
			       "%ld more of patch)\n", r->need,
			       r->need > (long)p->boots[0] ?
			       r->need - (long)p->boots[0] : 0,
			       r->need > (long)p->boots[1] ?
			       r->need - (long)p->boots[1] : 0);
	}
}

void report_cmd_plan_print(const struct report_bootplan *p,
			   const struct config_plan *cp)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	printf("boots: %s %zu, %s %zu (of %u each)\n", p->label[0],
	       p->boots[0], p->label[1], p->boots[1], p->target);
	printf("order: ");
	for (i = 0; p->order[i]; i++)
		printf("%s%c", i && !(i % 4) ? " " : "", p->order[i]);
	printf("%s (A %s, B %s; oldest first)\n", p->order[0] ? "" : "none",
	       p->label[0], p->label[1]);
	if (p->next < 0) {
		printf("next: none: both kernels have their %u boots; the "
		       "comparison is ready: bench compare %s %s\n", p->target,
		       p->label[0], p->label[1]);
	} else {
		printf("next: %s (%s)\n", p->label[p->next],
		       p->next ? "B, the patch" : "A, the base");
		if (cp && cp->set &&
		    !strcmp(cp->side[p->next].label, p->label[p->next])) {
			struct boot_cmds bc;

			if (!boot_cmds_make(&cp->side[p->next], &bc)) {
				const char *g = cp->side[p->next].grub;
				struct strbuf err = STRBUF_INIT;

				boot_cmds_line(&bc, &sb);
				printf("boot it: %s\n", strbuf_str(&sb));
				/* printed for a person: a warning, not a stop */
				if (g && boot_grub_check(g, &err))
					fb_warn("plan.%s.boot.grub: \"%s\": %s",
						p->next ? "patch" : "base", g,
						err.buf);
				strbuf_release(&err);
			} else {
				printf("boot it: the plan says no way to boot "
				       "it (plan.%s.boot)\n",
				       p->next ? "patch" : "base");
			}
			boot_cmds_release(&bc);
		}
	}
	print_rows(p);
	strbuf_release(&sb);
}

struct plan_cli {
	const char *db_arg, *cfg_path;	/* --db, --config */
	double effect;			/* --effect; NAN: not given */
	long boots;			/* --boots; -1: not given */
	bool remaining;			/* --remaining */
};

/* The options into o: an exit code, -1 for --help (printed). */
static int parse(int argc, char **argv, struct plan_cli *o)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "effect", required_argument, NULL, 'e' },
		{ "boots", required_argument, NULL, 'b' },
		{ "remaining", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	int ch;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:e:b:rh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'd': o->db_arg = optarg; break;
		case 'c': o->cfg_path = optarg; break;
		case 'e':
			if (report_cmd_effect(optarg, &o->effect)) {
				fb_err("--effect: '%s' is not a change in "
				       "percent above 0 and below 1000, such "
				       "as 5%%", optarg);
				return EX_USAGE;
			}
			break;
		case 'b':
			if (parse_u64(optarg, &u) || u < 1 || u > 10000) {
				fb_err("--boots: '%s' is not a whole number "
				       "from 1 to 10000", optarg);
				return EX_USAGE;
			}
			o->boots = (long)u;
			break;
		case 'r': o->remaining = true; break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	if (argc - optind != 0 && argc - optind != 2) {
		fb_err("plan takes two labels, BASE and PATCH, or none (the "
		       "config's plan)");
		usage(stderr);
		return EX_USAGE;
	}
	return EX_OK;
}

/*
 * The boots still to go, in the order the plan's next boot would give after
 * each of them: what a lab that schedules its boots ahead (LAVA) submits.
 */
static void print_remaining(const struct report_bootplan *p)
{
	size_t n[2] = { p->boots[0], p->boots[1] };
	int side;

	while ((side = report_plan_next(n[0], n[1], p->target)) >= 0) {
		printf("%s\n", p->label[side]);
		n[side]++;
	}
}

/* BASE and PATCH: given, else the config's plan's.  An exit code. */
static int plan_labels(int argc, char **argv, const struct plan_cli *o,
		       const struct config *cfg, const char *lab[2])
{
	if (argc - optind == 2) {
		lab[0] = argv[optind];
		lab[1] = argv[optind + 1];
	} else if (cfg->plan.set) {
		lab[0] = cfg->plan.side[0].label;
		lab[1] = cfg->plan.side[1].label;
	} else {
		fb_err("no labels given and %s has no \"plan\"", o->cfg_path);
		return EX_USAGE;
	}
	if (!lab[0][0] || !lab[1][0] || !strcmp(lab[0], lab[1])) {
		fb_err("BASE and PATCH must be two different labels");
		return EX_USAGE;
	}
	return EX_OK;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_cli o = { .effect = NAN, .boots = -1 };
	struct strbuf err = STRBUF_INIT;
	struct report_bootplan p = { 0 };
	const char *lab[2], *db_path;
	struct config cfg;
	struct db db = { 0 };
	bool have_db;
	int ex = parse(argc, argv, &o);

	if (ex)
		return ex < 0 ? EX_OK : ex;
	if (!o.cfg_path)
		o.cfg_path = fb_config_default();
	if (config_load(&cfg, o.cfg_path, &err)) {
		fb_err("%s", strbuf_str(&err));
		strbuf_release(&err);
		return EX_CONFIG;
	}
	ex = plan_labels(argc, argv, &o, &cfg, lab);
	if (ex)
		goto out;
	if (isnan(o.effect) && cfg.plan.set)
		o.effect = cfg.plan.effect;
	if (o.boots < 0)
		o.boots = cfg.plan.set ? (long)cfg.plan.boots : 4;
	db_path = report_cmd_db_rule(o.db_arg, &cfg);
	ex = report_cmd_db_name(db_path, "--db");
	have_db = !access(db_path, F_OK);
	if (ex || (have_db && (ex = report_cmd_open(&db, db_path))))
		goto out;
	ex = report_cmd_load_exit(report_plan(have_db ? &db : NULL, lab[0],
			lab[1], (unsigned)o.boots, o.effect,
			report_cmd_published, report_cmd_primary, &p, &err),
			&err);
	if (ex)
		goto out;
	if (o.remaining) {
		print_remaining(&p);
		goto out;
	}
	if (!have_db)
		printf("no database at %s yet: nothing recorded\n", db_path);
	report_cmd_plan_print(&p, &cfg.plan);
out:
	report_plan_release(&p);
	config_release(&cfg);
	db_close(&db);
	strbuf_release(&err);
	return ex;
}
