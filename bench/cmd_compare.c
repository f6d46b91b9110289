/*
 * `bench compare BASE PATCH`: the table a patch changelog quotes, with the
 * boot as the statistical unit.  `--aa LABEL` compares the two halves of
 * one label's boots, which shows the false-positive rate of the machine.
 *
 * Exit codes (sysexits where one fits; each failure its own code so that
 * scripts can tell them apart):
 *   0  ok                         64  usage
 *   65 not a foliobench database, or rows it cannot use
 *   66 no database file           67  no run has the label
 *   68 the label has no complete run (--aa: fewer than 2 boots)
 *   69 --strict: the sides differ in more than the kernel, or a
 *      kernel printed warnings (WARNING:, BUG:, ...) during its runs;
 *      always: timed TCG runs beside others, runs counted in guest
 *      instructions beside timed ones or ones of another icount shift,
 *      a label that mixes counted and timed runs
 *   70 out of memory              72  the database holds no run at all
 *   74 cannot read the database or write the report
 *   76 the database has a newer schema than this tool
 *   78 the config that names the database does not load
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "common/outfile.h"
#include "reports/compare.h"
#include "reports/exports.h"
#include "reports/profile.h"
#include "schema/db.h"
#include "schema/db_vm.h"
#include "schema/db_report.h"

/* "'shape' | 'shape'": the topology shapes of a side's runs. */
static void side_shapes(const struct report_side *s, struct strbuf *sb)
{
	size_t i;

	for (i = 0; i < s->marks.nshapes; i++)
		strbuf_addf(sb, "%s'%s'", i ? " | " : "", s->marks.shapes[i]);
}

/* Warn when the two sides ran on machines of another shape; how many. */
static size_t warn_topology(const struct report_side *sa,
			    const struct report_side *sb, const char *base,
			    const char *patch)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t n = 0;

	side_shapes(sa, &a);
	side_shapes(sb, &b);
	if (a.len && b.len && strcmp(a.buf, b.buf)) {
		fb_warn("CPU topology differs: %s has %s, %s has %s", base,
			a.buf, patch, b.buf);
		n = 1;
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return n;
}

/*
 * The runs `bench vm` made (schema 8): a run timed under TCG (an emulator:
 * functional checks, never kernel measurements) is never put beside one
 * that is not (EX_UNAVAILABLE, always); runs counted in guest instructions
 * (schema 9) are measurements, and report_cmd_load has already refused
 * them beside any others.  A difference in the guest's shape is warned
 * and counts for --strict (*n).  The guests are those the load met.
 */
static int check_vm(const struct report_side *sa, const struct report_side *sb,
		    size_t *n)
{
	struct report_cmd_vm a = REPORT_CMD_VM_INIT, b = REPORT_CMD_VM_INIT;
	const char *base = sa->db_label, *patch = sb->db_label;
	int ex = EX_OK;

	report_cmd_vm_side(sa, &a);
	report_cmd_vm_side(sb, &b);
	if (a.tcg + b.tcg && a.other + b.other) {
		fb_err("refusing to compare %s with %s: runs under QEMU's TCG "
		       "emulator (functional checks, not kernel "
		       "measurements) beside runs that are not: %s has %s; "
		       "%s has %s", base, patch, base, a.shape.buf, patch,
		       b.shape.buf);
		ex = EX_UNAVAILABLE;
	} else if (strcmp(strbuf_str(&a.shape), strbuf_str(&b.shape))) {
		fb_warn("VM shape differs: %s has %s, %s has %s", base,
			strbuf_str(&a.shape), patch, strbuf_str(&b.shape));
		(*n)++;
	}
	strbuf_release(&a.shape);
	strbuf_release(&b.shape);
	return ex;
}

/*
 * Say how many samples of each side were flagged noisy, and why they are;
 * counted in guest instructions (counted: both sides are), steal and
 * oversubscription judge time and say nothing of a count, where a wait on
 * a run queue (a kernel thread ran inside the call) does.
 */
#define NOISY_WHY	"(steal over steal_max, PUs oversubscribed, or a wait " \
			"on a run queue)"

static void warn_noisy(struct db *db, const struct report_side *a,
		       const struct report_side *b, bool aa, bool drop,
		       bool counted)
{
	const char *base = a->db_label, *patch = b->db_label;
	int64_t na = 0, ta = 0, nb = 0, tb = 0;

	if (report_side_noisy(db, a, &na, &ta) ||
	    report_side_noisy(db, b, &nb, &tb) ||
	    (!na && !nb))
		return;
	if (counted) {
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s %lld of %lld", base, (long long)na,
			    (long long)ta);
		if (!aa)
			strbuf_addf(&sb, ", %s %lld of %lld", patch,
				    (long long)nb, (long long)tb);
		fb_warn("samples flagged noisy " NOISY_WHY ": %s; steal and "
			"the oversubscription probe judge time and do not "
			"apply to counts of guest instructions; a wait on a "
			"run queue does (a kernel thread ran inside the call), "
			"as an interrupt would; %s", sb.buf, drop ? "left out "
			"(--drop-noisy)" : "kept");
		strbuf_release(&sb);
	} else if (aa)
		fb_warn("%lld of %lld samples of %s are flagged noisy "
			NOISY_WHY "; %s", (long long)na, (long long)ta, base,
			drop ? "left out (--drop-noisy)" :
			"--drop-noisy leaves them out");
	else
		fb_warn("samples flagged noisy " NOISY_WHY ": %s %lld "
			"of %lld, %s %lld of %lld; %s", base, (long long)na,
			(long long)ta, patch, (long long)nb, (long long)tb,
			drop ? "left out (--drop-noisy)" :
			"--drop-noisy leaves them out");
}

/*
 * Samples timed while the kernel was profiled (schema 11) hold the cost
 * of sampling: the table leaves them out unless --profiled takes them.
 * Say so for each label that has some, and when that leaves a label
 * without a timed sample, say that rather than show an empty table.
 * all: the labels whose every sample was left out.
 */
static void warn_profiled(struct db *db, const struct report_side *s,
			  bool taken, struct strbuf *all)
{
	const char *label = s->db_label;
	int64_t n = 0, total = 0;

	/* no case with a profile (the load saw): no sample profiled */
	if (!s->marks.profile ||
	    db_report_profiled(db, label, &n, &total) || !n)
		return;
	if (taken)
		fb_warn("%lld of %lld samples of %s were timed while the "
			"kernel was profiled: taken (--profiled); their times "
			"hold the cost of sampling", (long long)n,
			(long long)total, label);
	else if (n == total) {
		fb_warn("every timed sample of %s (%lld) was taken while the "
			"kernel was profiled: none is in the table (their "
			"times hold the cost of sampling); --profiled takes "
			"them, --profile compares the profiles", label,
			(long long)n);
		strbuf_addf(all, "%s%s", all->len ? " and " : "", label);
	} else
		fb_warn("%lld of %lld samples of %s were timed while the "
			"kernel was profiled: left out (their times hold the "
			"cost of sampling; --profiled takes them)",
			(long long)n, (long long)total, label);
}

struct bounded {
	const char *label;
	struct strbuf rows;
};

/* "shadow-truncate size=256M op=truncate": the case, its params in order. */
static int add_bounded(const char *workload, const char *params, void *arg)
{
	struct bounded *b = arg;
	const char *p = params;
	char key[64], val[128];
	int n;

	strbuf_addf(&b->rows, "%s%s", b->rows.len ? "; " : "", workload);
	/* the params object is flat: "key":"value" pairs */
	while ((p = strchr(p, '"')) &&
	       sscanf(p, "\"%63[^\"]\":\"%127[^\"]\"%n", key, val, &n) == 2) {
		strbuf_addf(&b->rows, " %s=%s", key, val);
		p += n;
	}
	return 0;
}

/*
 * A footnote to the table: the rows of a side whose counts rest on a
 * bound (shadow-truncate on a kernel without cachestat(2): coverage is the
 * least count mincore and workingset_nodereclaim allow).
 */
static void note_bounded(struct db *db, const struct report_side *s)
{
	struct bounded b = { s->db_label, STRBUF_INIT };

	/* every run's pack marks none bounded (the load saw): none */
	if (!s->marks.unpacked && !s->marks.bounded)
		return;
	if (!db_report_bounded_each(db, b.label, add_bounded, &b) &&
	    b.rows.len)
		fb_warn("%s's shadow entries are bounded, not counted "
			"(its kernel has no cachestat(2), 6.5+): coverage and "
			"shadow_entries are their least count in %s",
			b.label, strbuf_str(&b.rows));
	strbuf_release(&b.rows);
}

/* What compare writes besides a report: files for the user's own tools. */
#define FILES	(REPORT_OUT_MINISTAT | REPORT_OUT_BENCHSTAT)

/* benchstat: DIR/LABEL.txt for each side, LABEL as a file name. */
static int benchstat_files(struct db *db, const struct report_cmp *c,
			   const char *dir)
{
	const struct report_side *side[2] = { c->a, c->b };
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	struct strbuf name[2] = { STRBUF_INIT, STRBUF_INIT };
	int i, r, ex = EX_OK;
	FILE *f;

	/* one file a side: the patch's must not take the base's place */
	for (i = 0; i < 2; i++)
		report_file_name(side[i]->label, &name[i]);
	if (!strcmp(name[0].buf, name[1].buf)) {
		fb_err("labels '%s' and '%s' give the same file name %s.txt",
		       side[0]->label, side[1]->label, name[0].buf);
		ex = EX_USAGE;
		goto out;
	}
	for (i = 0; i < 2; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s.txt", dir, name[i].buf);
		if (out_file_check(path.buf, db->path, &err) ||
		    out_no_link(path.buf, false, &err)) {
			fb_err("%s", strbuf_str(&err));
			ex = EX_USAGE;
			goto out;
		}
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fb_err("cannot create directory %s: %m", dir);
		ex = EX_CANTCREAT;
		goto out;
	}
	for (i = 0; i < 2 && !ex; i++) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s.txt", dir, name[i].buf);
		f = out_file_create(path.buf, &err);
		if (!f) {
			fb_err("%s", strbuf_str(&err));
			ex = errno == EPERM ? EX_USAGE : EX_CANTCREAT;
			break;
		}
		r = report_print_benchstat(f, db, side[i], report_cmd_primary,
					   fb_version, &err);
		if (fclose(f) && !r)
			r = -(errno ? errno : EIO);	/* ENOSPC: said */
		if (r == REPORT_EDB || r == REPORT_EBUSY || r == REPORT_ENOMEM)
			ex = report_cmd_load_exit(r, &err);
		else if (r) {
			fb_err("cannot write %s: %s", path.buf, strerror(-r));
			ex = EX_IOERR;
		}
	}
out:
	strbuf_release(&name[0]);
	strbuf_release(&name[1]);
	strbuf_release(&path);
	strbuf_release(&err);
	return ex;
}

/* Write them into dir; an exit code, its message printed. */
static int files_write(struct db *db, const struct report_cmp *c,
		       enum report_output files, const char *dir, bool samples)
{
	struct strbuf err = STRBUF_INIT;
	int r, ex = EX_OK;

	if (files == REPORT_OUT_BENCHSTAT)
		return benchstat_files(db, c, dir);
	r = report_write_ministat(dir, c, samples, db->path, &err);
	if (r) {
		fb_err("%s", strbuf_str(&err));
		/* a file made but not written (ENOSPC, EIO): an I/O error,
		 * as benchstat's */
		ex = r == -EEXIST || r == -EPERM ? EX_USAGE :
		     r == -ENOSPC || r == -EIO || r == -EDQUOT ? EX_IOERR :
		     EX_CANTCREAT;
	}
	strbuf_release(&err);
	return ex;
}

/* Every name of --metric is a metric some row of the table has. */
static int metrics_known(const struct report_cmp *c, const char *list)
{
	const char *p = list, *e;
	size_t i, len;

	for (; *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, ",");
		len = (size_t)(e - p);
		for (i = 0; i < c->nrows; i++) {
			const struct report_series *x = c->rows[i].a ?
							c->rows[i].a :
							c->rows[i].b;

			if (strlen(x->metric) == len &&
			    !strncmp(x->metric, p, len))
				break;
		}
		if (i == c->nrows) {
			fb_err("--metric: no case of these labels has a metric "
			       "'%.*s' with values", (int)len, p);
			return EX_USAGE;
		}
	}
	return EX_OK;
}

static void usage(FILE *f)
{
	struct strbuf names = STRBUF_INIT;

	report_format_names(&names, " (default)", 0);
	fprintf(f, "usage: bench compare [--db FILE] [--format FORMAT] "
		"[--strict] BASE PATCH\n"
		"       bench compare --aa [--db FILE] [--format FORMAT] "
		"LABEL\n\n"
		"Compares the complete runs of two labels (kernels): the "
		"median of each boot,\nthe mean across boots, Welch's t-test "
		"on the boot medians (Holm-corrected),\nMann-Whitney U with "
		"4 or more boots a side.\n\n"
		"  --db FILE        results database (default: the config's, "
		"else results.db)\n"
		"  --config FILE    the config whose database to read (default "
		"./config.json,\n                   else the example)\n"
		"  --format FORMAT  %s;\n"
		"                   ministat, benchstat: files in the "
		"directory -o names\n"
		"  -o, --output DIR where ministat and benchstat files go\n"
		"  --samples        ministat: every sample, not the boot "
		"medians\n"
		"  --strict         refuse when the runs differ in more than "
		"the kernel, or\n                   when a kernel printed "
		"warnings during its runs\n"
		"  --aa             compare the odd and even boots of one "
		"label (false positives)\n"
		"  --per-worker     then each worker's own time in parallel "
		"cases (text)\n"
		"  --drop-noisy     leave out samples flagged noisy (steal "
		"over steal_max)\n"
		"  --metric M,...   show these metrics (bw,branches_per_s) "
		"instead of each\n"
		"                   workload's headline one; they form the "
		"Holm family\n"
		"  --profile        then each case's kernel functions whose "
		"share of the call\n                   changed most (runs of "
		"bench run --profile; text, json)\n"
		"  --profile-top N  functions a case (default %d)\n"
		"  --profile-min N  fewest samples a side to compare a case "
		"(default %d)\n"
		"  --profiled       take the samples timed while profiled "
		"too (left out by\n                   default: their times "
		"hold the cost of sampling)\n\n"
		"exit codes: 0 ok, 64 usage, 65 bad data, 66 no database, "
		"67 unknown label,\n68 no complete run (--aa: fewer than 2 "
		"boots), 69 refused by --strict,\n70 internal error, 72 empty "
		"database, 74 I/O error, 76 newer schema,\n78 bad config\n",
		names.buf, REPORT_PROF_TOP, REPORT_PROF_MIN);
	strbuf_release(&names);
}

struct compare {
	struct report_cmd rc;
	struct report_opts opts;
	enum report_format fmt;
	enum report_output files;
	const char *outdir, *base, *patch;
	bool strict, aa, per_worker, samples;
	bool profile;			/* --profile */
	struct strbuf all_profiled;	/* labels left without a sample */
	size_t prof_top, prof_min;
};

/* A count of --profile-top or --profile-min into *out: an exit code. */
static int prof_count(const char *opt, const char *arg, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v ||
	    v > 1000000) {
		fb_err("%s: '%s' is not a count from 1 to 1000000", opt, arg);
		return EX_USAGE;
	}
	*out = (size_t)v;
	return EX_OK;
}

/* The options into k: an exit code, -1 for --help (printed). */
static int parse(int argc, char **argv, struct compare *k)
{
	static const struct option longopts[] = {
		REPORT_CMD_LONGOPTS,
		{ "format", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "aa", no_argument, NULL, 'a' },
		{ "per-worker", no_argument, NULL, 'w' },
		{ "drop-noisy", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "samples", no_argument, NULL, 'S' },
		{ "metric", required_argument, NULL, 'm' },
		{ "profile", no_argument, NULL, 'P' },
		{ "profile-top", required_argument, NULL, 'T' },
		{ "profile-min", required_argument, NULL, 'M' },
		{ "profiled", no_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	int ch, ex;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:c:f:o:h", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'd': k->rc.db_arg = optarg; break;
		case 'c': k->rc.cfg_arg = optarg; break;
		case 'f':
			if (report_format_parse(optarg, FILES, &k->fmt,
						&k->files))
				return report_cmd_unknown_format(optarg,
								 FILES);
			break;
		case 'o': k->outdir = optarg; break;
		case 'S': k->samples = true; break;
		case 's': k->strict = true; break;
		case 'a': k->aa = true; break;
		case 'w': k->per_worker = true; break;
		case 'n': k->rc.lo.drop_noisy = true; break;
		case 'm':
			if (!optarg[0]) {
				fb_err("--metric needs metric names, comma "
				       "separated (bw,branches_per_s)");
				return EX_USAGE;
			}
			k->opts.metrics = optarg;
			break;
		case 'P': k->profile = true; break;
		case 'R': k->rc.lo.profiled = true; break;
		case 'T':
		case 'M':
			ex = prof_count(ch == 'T' ? "--profile-top" :
					"--profile-min", optarg, ch == 'T' ?
					&k->prof_top : &k->prof_min);
			if (ex)
				return ex;
			break;
		case 'h':
			usage(stdout);
			return -1;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	return EX_OK;
}

/* The labels, and the options that go together: an exit code. */
static int check_args(int argc, char **argv, struct compare *k)
{
	if (argc - optind != (k->aa ? 1 : 2)) {
		fb_err(k->aa ? "--aa takes one label" :
		       "compare takes two labels, BASE and PATCH");
		usage(stderr);
		return EX_USAGE;
	}
	if (k->files != REPORT_OUT_NONE && (!k->outdir || !k->outdir[0])) {
		fb_err("--format %s writes files: name their directory with "
		       "-o DIR", report_output_name(k->files));
		return EX_USAGE;
	}
	if (k->files == REPORT_OUT_NONE && k->outdir) {
		fb_err("-o is for --format ministat and benchstat; the "
		       "other formats go to standard output");
		return EX_USAGE;
	}
	if (k->samples && k->files != REPORT_OUT_MINISTAT) {
		fb_err("--samples is for --format ministat");
		return EX_USAGE;
	}
	k->base = argv[optind];
	k->patch = k->aa ? k->base : argv[optind + 1];
	if (!k->base[0] || !k->patch[0]) {
		fb_err("empty label: name BASE and PATCH (make compare "
		       "BASE=... PATCH=...)");
		return EX_USAGE;
	}
	if (!k->aa && !strcmp(k->base, k->patch)) {
		fb_err("BASE and PATCH are both '%s'; to compare a label with "
		       "itself use --aa", k->base);
		return EX_USAGE;
	}
	if (k->profile && (k->files != REPORT_OUT_NONE ||
			   (k->fmt != REPORT_TEXT && k->fmt != REPORT_JSON))) {
		fb_err("--profile adds a table to text or json; use --format "
		       "text or json");
		return EX_USAGE;
	}
	if (!k->profile && (k->prof_top || k->prof_min)) {
		fb_err("--profile-top and --profile-min are for --profile");
		return EX_USAGE;
	}
	if (k->per_worker && (k->fmt == REPORT_CSV || k->fmt == REPORT_JSON)) {
		fb_err("--per-worker adds a text table; use it with text, "
		       "changelog or markdown");
		return EX_USAGE;
	}
	return EX_OK;
}

/*
 * What the table leaves out of the sides, said on stderr: differences
 * besides the kernel, noisy samples, bounded counts, kernel warnings.
 * Refused (69) under --strict, and TCG runs beside others always.
 */
static int warn_sides(struct compare *k, const struct report_cmp *c)
{
	struct report_cmd *rc = &k->rc;
	const struct report_side *a = &rc->a, *b = &rc->b;
	size_t i, ntopo = 0;
	int ex;

	for (i = 0; i < c->nwarn; i++)
		fb_warn("%s", c->warn[i]);
	if (!k->aa)
		ntopo = warn_topology(a, b, k->base, k->patch);
	if (!k->aa && (ex = check_vm(a, b, &ntopo)))
		return ex;
	warn_noisy(&rc->db, a, b, k->aa, rc->lo.drop_noisy,
		   rc->a.clock.counted);
	warn_profiled(&rc->db, a, rc->lo.profiled, &k->all_profiled);
	if (!k->aa)
		warn_profiled(&rc->db, b, rc->lo.profiled, &k->all_profiled);
	note_bounded(&rc->db, a);
	if (!k->aa)
		note_bounded(&rc->db, b);
	ex = report_cmd_kwarn(c, k->strict);
	if (ex || !k->strict || !(c->nwarn + ntopo))
		return ex;
	fb_err("refusing to compare %s with %s: %zu difference%s besides the "
	       "kernel (--strict)", rc->a.label, rc->b.label, c->nwarn + ntopo,
	       c->nwarn + ntopo == 1 ? "" : "s");
	return EX_UNAVAILABLE;
}

/* `--per-worker`: each worker's own time, after the table. */
static int print_workers(struct compare *k)
{
	struct report_cmd *rc = &k->rc;
	int r = report_workers(stdout, &rc->db, k->base, k->patch,
			       &rc->a.clock, rc->lo.drop_noisy, &rc->err);

	if (r == -EIO) {
		fb_err("cannot write the report: %m");
		return EX_IOERR;
	}
	if (r == REPORT_ENOMEM) {
		fb_err("out of memory");
		return EX_SOFTWARE;
	}
	if (r) {
		fb_err("cannot read the workers: %s", strbuf_str(&rc->err));
		return EX_IOERR;
	}
	return EX_OK;
}

/* --profile: the profiles of c's cases, for the text or in the json. */
static int load_profile(struct compare *k, struct report_cmp *c,
			struct report_prof *p)
{
	int r = report_prof_load(&k->rc.db, c, k->prof_min ? k->prof_min :
				 REPORT_PROF_MIN, k->prof_top ? k->prof_top :
				 REPORT_PROF_TOP, p, &k->rc.err);

	if (r)
		return report_cmd_load_exit(r, &k->rc.err);
	c->profile = p;
	return EX_OK;
}

int cmd_compare(int argc, char **argv)
{
	struct compare k = { .rc = REPORT_CMD_INIT, .fmt = REPORT_TEXT,
			     .opts = REPORT_CMD_OPTS,
			     .all_profiled = STRBUF_INIT };
	struct report_cmp c = { 0 };
	struct report_prof prof = { 0 };
	int r, ex = parse(argc, argv, &k);

	if (ex)
		return ex < 0 ? EX_OK : ex;
	ex = check_args(argc, argv, &k);
	if (ex)
		return ex;
	k.opts.aa = k.aa;
	/* people read one row a case; machines get every metric */
	k.opts.primary_only = k.files != REPORT_OUT_NONE ||
			      (k.fmt != REPORT_CSV && k.fmt != REPORT_JSON);
	k.rc.lo.shown = k.opts.primary_only ? &k.opts : NULL;
	ex = report_cmd_load(&k.rc, k.base, k.patch, k.aa);
	if (ex || (ex = report_cmd_compare(&k.rc, true, &k.opts, &c)))
		goto out;
	if (k.opts.metrics && (ex = metrics_known(&c, k.opts.metrics)))
		goto out;
	ex = warn_sides(&k, &c);
	if (ex)
		goto out;
	if (k.profile && (ex = load_profile(&k, &c, &prof)))
		goto out;
	if (k.files != REPORT_OUT_NONE)
		ex = files_write(&k.rc.db, &c, k.files, k.outdir, k.samples);
	else if (k.all_profiled.len && k.fmt == REPORT_TEXT)
		/* a table of one side would read as cases lost */
		printf("No table: every timed sample of %s was taken while "
		       "the kernel was profiled,\nand such samples hold the "
		       "cost of sampling (--profiled compares them).\n",
		       k.all_profiled.buf);
	else if ((ex = report_cmd_print(&c, k.fmt)))
		goto out;
	if (k.profile && k.fmt == REPORT_TEXT &&
	    report_prof_print(stdout, &prof)) {
		fb_err("cannot write the report: %m");
		ex = EX_IOERR;
		goto out;
	}
	if (k.per_worker && (r = print_workers(&k)))
		ex = r;
out:
	report_prof_release(&prof);
	strbuf_release(&k.all_profiled);
	report_cmp_release(&c);
	report_cmd_release(&k.rc);
	return ex;
}
