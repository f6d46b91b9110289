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
 *      kernel printed warnings (WARNING:, BUG:, ...) during its runs
 *   70 out of memory              72  the database holds no run at all
 *   74 cannot read the database or write the report
 *   76 the database has a newer schema than this tool
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "common/outfile.h"
#include "reports/compare.h"
#include "reports/exports.h"
#include "schema/db.h"
#include "schema/db_vm.h"
#include "schema/db_report.h"
#include "workloads/workload.h"

int report_cmd_db_name(const char *path, const char *what)
{
	struct strbuf q = STRBUF_INIT;
	char why[160];

	if (!db_path_check(path, why, sizeof(why)))
		return EX_OK;
	strbuf_json_str(&q, path);
	fb_err("%s %s: %s", what, q.buf, why);
	strbuf_release(&q);
	return EX_USAGE;
}

int report_cmd_unknown_format(const char *name, const char *more)
{
	struct strbuf names = STRBUF_INIT;

	report_format_names(&names, NULL);
	fb_err("unknown format '%s' (%s, %s)", name, names.buf, more);
	strbuf_release(&names);
	return EX_USAGE;
}

/* Open path: read-only, or for a command that writes rows (write). */
static int cmd_open(struct db *db, const char *path, bool write)
{
	int r = report_cmd_db_name(path, "--db");

	if (r)
		return r;
	r = write ? db_open(db, path, false) : db_open_read(db, path);
	switch (r) {
	case DB_OK:
		return EX_OK;
	case DB_MISSING:
		fb_err("no database at %s (record runs with `bench run` "
		       "first)", path);
		return EX_NOINPUT;
	case DB_TOO_NEW:
		fb_err("cannot read %s: %s; use a newer foliobench", path,
		       db->err);
		return EX_NEWER_DB;
	case DB_NOT_DB:
	case DB_CORRUPT:
		fb_err("%s is not a foliobench database: %s", path, db->err);
		return EX_DATAERR;
	case DB_BUSY:
		fb_err("cannot read %s: another process holds it locked, still "
		       "after %d s (%s)", path, DB_BUSY_MS / 1000, db->err);
		return EX_TEMPFAIL;
	default:
		fb_err("cannot open database %s: %s", path, db->err);
		return EX_IOERR;
	}
}

int report_cmd_open(struct db *db, const char *path)
{
	return cmd_open(db, path, false);
}

int report_cmd_open_write(struct db *db, const char *path)
{
	return cmd_open(db, path, true);
}

int report_cmd_load_exit(int r, const struct strbuf *err)
{
	if (r && r != REPORT_ENOMEM)
		fb_err("%s", strbuf_str(err));
	switch (r) {
	case REPORT_OK:
		return EX_OK;
	case REPORT_EEMPTY:
		return EX_EMPTY_DB;
	case REPORT_ELABEL:
		return EX_NOUSER;
	case REPORT_ENOCOMPLETE:
	case REPORT_EFEW:
		return EX_NOHOST;
	case REPORT_ENOMEM:
		fb_err("out of memory");
		return EX_SOFTWARE;
	case REPORT_EDATA:
		return EX_DATAERR;
	case REPORT_EDB:
		return EX_IOERR;
	case REPORT_EBUSY:
		return EX_TEMPFAIL;
	default:
		return EX_SOFTWARE;
	}
}

int report_cmd_kwarn(const struct report_cmp *c, bool strict)
{
	size_t i;

	for (i = 0; i < c->nkwarn; i++)
		fb_warn("kernel warnings: %s", c->kwarn[i]);
	if (!strict || !c->nkwarn)
		return EX_OK;
	fb_err("refusing to make a table of a kernel that printed warnings "
	       "during its runs (--strict); see `bench runs`");
	return EX_UNAVAILABLE;
}

/* The metric's entry in its workload's table; NULL when this build lacks it. */
static const struct metric *find_metric(const char *workload,
					const char *metric)
{
	const struct workload *w = workload_find(workload);
	const struct metric *m;

	for (m = w ? w->metrics : NULL; m && m->name; m++)
		if (!strcmp(m->name, metric))
			return m;
	return NULL;
}

bool report_cmd_primary(const char *workload, const char *metric)
{
	const struct metric *m = find_metric(workload, metric);

	return !m || m->primary;
}

bool report_cmd_input(const char *workload, const char *metric)
{
	const struct metric *m = find_metric(workload, metric);

	return m && m->input;
}

const char *report_cmd_words(const char *workload, const char *key,
			     const char *value)
{
	const struct workload *w = workload_find(workload);
	const struct param *p;
	size_t i;

	if (!w)
		return NULL;
	for (p = w->params; p->name; p++) {
		if (strcmp(p->name, key) || p->type != PT_ENUM || !p->words)
			continue;
		for (i = 0; p->choices[i]; i++)
			if (!strcmp(p->choices[i], value))
				return p->words[i];
	}
	return NULL;
}

static int add_shape(const char *shape, void *arg)
{
	struct strbuf *sb = arg;

	strbuf_addf(sb, "%s'%s'", sb->len ? " | " : "", shape);
	return 0;
}

/* Warn when the two sides ran on machines of another shape; how many. */
static size_t warn_topology(struct db *db, const char *base, const char *patch)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t n = 0;

	if (!db_report_shapes_each(db, base, add_shape, &a) &&
	    !db_report_shapes_each(db, patch, add_shape, &b) &&
	    a.len && b.len && strcmp(a.buf, b.buf)) {
		fb_warn("CPU topology differs: %s has %s, %s has %s", base,
			a.buf, patch, b.buf);
		n = 1;
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return n;
}

struct vm_sides {
	struct strbuf shape;	/* "'tcg smp=32 ...' | ''" */
	int tcg, other;		/* runs of QEMU's emulator, and the rest */
};

static int add_vm(const char *accel, const char *shape, void *arg)
{
	struct vm_sides *v = arg;

	if (!strcmp(accel, "tcg"))
		v->tcg++;
	else
		v->other++;
	strbuf_addf(&v->shape, "%s'%s%s%s'", v->shape.len ? " | " : "",
		    accel[0] ? accel : "not a bench vm guest",
		    shape[0] ? " " : "", shape);
	return 0;
}

/*
 * The runs `bench vm` made (schema 8): a run under TCG (an emulator:
 * functional checks, never kernel measurements) is never put beside one
 * that is not (EX_UNAVAILABLE, always); a difference in the guest's shape
 * is warned and counts for --strict (*n).
 */
static int check_vm(struct db *db, const char *base, const char *patch,
		    size_t *n)
{
	struct vm_sides a = { STRBUF_INIT, 0, 0 }, b = { STRBUF_INIT, 0, 0 };
	int ex = EX_OK;

	if (!db_vm_shapes_each(db, base, add_vm, &a) &&
	    !db_vm_shapes_each(db, patch, add_vm, &b)) {
		if (a.tcg + b.tcg && a.other + b.other) {
			fb_err("refusing to compare %s with %s: runs under "
			       "QEMU's TCG emulator (functional checks, not "
			       "kernel measurements) beside runs that are "
			       "not: %s has %s; %s has %s", base, patch, base,
			       a.shape.buf, patch, b.shape.buf);
			ex = EX_UNAVAILABLE;
		} else if (strcmp(strbuf_str(&a.shape),
				  strbuf_str(&b.shape))) {
			fb_warn("VM shape differs: %s has %s, %s has %s", base,
				strbuf_str(&a.shape), patch,
				strbuf_str(&b.shape));
			(*n)++;
		}
	}
	strbuf_release(&a.shape);
	strbuf_release(&b.shape);
	return ex;
}

/* Say how many samples of each side steal or oversubscription made noisy. */
static void warn_noisy(struct db *db, const char *base, const char *patch,
		       bool aa, bool drop)
{
	int64_t na = 0, ta = 0, nb = 0, tb = 0;

	if (db_report_noisy(db, base, &na, &ta) ||
	    db_report_noisy(db, patch, &nb, &tb) || (!na && !nb))
		return;
	if (aa)
		fb_warn("%lld of %lld samples of %s are flagged noisy (steal "
			"over steal_max, or PUs oversubscribed); %s", (long long)na, (long long)ta,
			base, drop ? "left out (--drop-noisy)" :
			"--drop-noisy leaves them out");
	else
		fb_warn("samples flagged noisy (steal over steal_max, or PUs "
			"oversubscribed): %s %lld "
			"of %lld, %s %lld of %lld; %s", base, (long long)na,
			(long long)ta, patch, (long long)nb, (long long)tb,
			drop ? "left out (--drop-noisy)" :
			"--drop-noisy leaves them out");
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
static void note_bounded(struct db *db, const char *label)
{
	struct bounded b = { label, STRBUF_INIT };

	if (!db_report_bounded_each(db, label, add_bounded, &b) &&
	    b.rows.len)
		fb_warn("%s's shadow entries are bounded, not counted "
			"(its kernel has no cachestat(2), 6.5+): coverage and "
			"shadow_entries are their least count in %s",
			label, strbuf_str(&b.rows));
	strbuf_release(&b.rows);
}

enum report_files report_cmd_files(const char *name)
{
	if (!strcmp(name, "ministat"))
		return FILES_MINISTAT;
	if (!strcmp(name, "benchstat"))
		return FILES_BENCHSTAT;
	return FILES_NONE;
}

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
		if (out_file_check(path.buf, db->path, &err)) {
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
		f = fopen(path.buf, "w");
		if (!f) {
			fb_err("cannot create %s: %m", path.buf);
			ex = EX_CANTCREAT;
			break;
		}
		r = report_print_benchstat(f, db, side[i], report_cmd_primary,
					   fb_version, &err);
		if (fclose(f) && !r)
			r = -EIO;
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

int report_cmd_files_write(struct db *db, const struct report_cmp *c,
			   enum report_files files, const char *dir,
			   bool samples)
{
	struct strbuf err = STRBUF_INIT;
	int r, ex = EX_OK;

	if (files == FILES_BENCHSTAT)
		return benchstat_files(db, c, dir);
	r = report_write_ministat(dir, c, samples, db->path, &err);
	if (r) {
		fb_err("%s", strbuf_str(&err));
		ex = r == -EEXIST || r == -EPERM ? EX_USAGE : EX_CANTCREAT;
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

	report_format_names(&names, " (default)");
	fprintf(f, "usage: bench compare [--db FILE] [--format FORMAT] "
		"[--strict] BASE PATCH\n"
		"       bench compare --aa [--db FILE] [--format FORMAT] "
		"LABEL\n\n"
		"Compares the complete runs of two labels (kernels): the "
		"median of each boot,\nthe mean across boots, Welch's t-test "
		"on the boot medians (Holm-corrected),\nMann-Whitney U with "
		"4 or more boots a side.\n\n"
		"  --db FILE        results database (default results.db)\n"
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
		"Holm family\n\n"
		"exit codes: 0 ok, 64 usage, 65 bad data, 66 no database, "
		"67 unknown label,\n68 no complete run (--aa: fewer than 2 "
		"boots), 69 refused by --strict,\n70 internal error, 72 empty "
		"database, 74 I/O error, 76 newer schema\n", names.buf);
	strbuf_release(&names);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "format", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "aa", no_argument, NULL, 'a' },
		{ "per-worker", no_argument, NULL, 'w' },
		{ "drop-noisy", no_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "samples", no_argument, NULL, 'S' },
		{ "metric", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "results.db", *base, *patch;
	struct report_side a = { 0 }, b = { 0 };
	struct strbuf err = STRBUF_INIT;
	enum report_format fmt = REPORT_TEXT;
	struct report_opts opts = { .primary = report_cmd_primary,
				    .input = report_cmd_input,
				    .words = report_cmd_words };
	struct report_cmp c = { 0 };
	struct report_load_opts lo = { 0 };
	bool strict = false, aa = false, per_worker = false, drop = false;
	bool samples = false;
	size_t ntopo = 0;
	enum report_files files = FILES_NONE;
	const char *outdir = NULL;
	struct db db = { 0 };
	int ch, ex, r;
	size_t i;

	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, ":d:f:o:h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd': path = optarg; break;
		case 'f':
			files = report_cmd_files(optarg);
			if (files == FILES_NONE &&
			    report_format_parse(optarg, &fmt))
				return report_cmd_unknown_format(optarg,
						"ministat, benchstat");
			break;
		case 'o': outdir = optarg; break;
		case 'S': samples = true; break;
		case 's': strict = true; break;
		case 'a': aa = true; break;
		case 'w': per_worker = true; break;
		case 'n': drop = true; break;
		case 'm':
			if (!optarg[0]) {
				fb_err("--metric needs metric names, comma "
				       "separated (bw,branches_per_s)");
				return EX_USAGE;
			}
			opts.metrics = optarg;
			break;
		case 'h':
			usage(stdout);
			return EX_OK;
		default:
			return fb_opt_error(ch, argv, NULL);
		}
	}
	if (argc - optind != (aa ? 1 : 2)) {
		fb_err(aa ? "--aa takes one label" :
		       "compare takes two labels, BASE and PATCH");
		usage(stderr);
		return EX_USAGE;
	}
	if (files != FILES_NONE && (!outdir || !outdir[0])) {
		fb_err("--format %s writes files: name their directory with "
		       "-o DIR", files == FILES_MINISTAT ? "ministat" :
		       "benchstat");
		return EX_USAGE;
	}
	if (files == FILES_NONE && outdir) {
		fb_err("-o is for --format ministat and benchstat; the "
		       "other formats go to standard output");
		return EX_USAGE;
	}
	if (samples && files != FILES_MINISTAT) {
		fb_err("--samples is for --format ministat");
		return EX_USAGE;
	}
	base = argv[optind];
	patch = aa ? base : argv[optind + 1];
	if (!base[0] || !patch[0]) {
		fb_err("empty label: name BASE and PATCH (make compare "
		       "BASE=... PATCH=...)");
		return EX_USAGE;
	}
	if (!aa && !strcmp(base, patch)) {
		fb_err("BASE and PATCH are both '%s'; to compare a label with "
		       "itself use --aa", base);
		return EX_USAGE;
	}
	if (per_worker && (fmt == REPORT_CSV || fmt == REPORT_JSON)) {
		fb_err("--per-worker adds a text table; use it with text, "
		       "changelog or markdown");
		return EX_USAGE;
	}
	ex = report_cmd_open(&db, path);
	if (ex)
		return ex;
	opts.aa = aa;
	/* people read one row a case; machines get every metric */
	opts.primary_only = files != FILES_NONE ||
			    (fmt != REPORT_CSV && fmt != REPORT_JSON);
	lo.drop_noisy = drop;
	lo.shown = opts.primary_only ? &opts : NULL;
	if (aa) {
		r = report_side_load_halves(&db, base, &lo, &a, &b, &err);
	} else {
		r = report_side_load_opts(&db, base, &lo, &a, &err);
		if (!r)
			r = report_side_load_opts(&db, patch, &lo, &b, &err);
	}
	ex = report_cmd_load_exit(r, &err);
	if (ex)
		goto out;
	if (report_compare(&a, &b, &opts, &c)) {
		ex = report_cmd_load_exit(REPORT_ENOMEM, &err);
		goto out;
	}
	c.tool_version = fb_version;
	c.schema_version = db_schema_version(&db);
	if (opts.metrics && (ex = metrics_known(&c, opts.metrics)))
		goto out;
	for (i = 0; i < c.nwarn; i++)
		fb_warn("%s", c.warn[i]);
	if (!aa)
		ntopo = warn_topology(&db, base, patch);
	if (!aa && (ex = check_vm(&db, a.db_label, b.db_label, &ntopo)))
		goto out;
	warn_noisy(&db, a.db_label, b.db_label, aa, drop);
	note_bounded(&db, a.db_label);
	if (!aa)
		note_bounded(&db, b.db_label);
	ex = report_cmd_kwarn(&c, strict);
	if (ex)
		goto out;
	if (strict && c.nwarn + ntopo) {
		fb_err("refusing to compare %s with %s: %zu difference%s "
		       "besides the kernel (--strict)", a.label, b.label,
		       c.nwarn + ntopo, c.nwarn + ntopo == 1 ? "" : "s");
		ex = EX_UNAVAILABLE;
		goto out;
	}
	if (files != FILES_NONE)
		ex = report_cmd_files_write(&db, &c, files, outdir, samples);
	else if (report_print(stdout, &c, fmt)) {
		fb_err("cannot write the report: %m");
		ex = EX_IOERR;
		goto out;
	}
	if (per_worker) {
		r = report_workers(stdout, &db, base, patch, drop, &err);
		if (r == REPORT_ENOMEM || r == -EIO) {
			fb_err(r == -EIO ? "cannot write the report: %m" :
			       "out of memory");
			ex = r == -EIO ? EX_IOERR : EX_SOFTWARE;
		} else if (r) {
			fb_err("cannot read the workers: %s", strbuf_str(&err));
			ex = EX_IOERR;
		}
	}
out:
	report_cmp_release(&c);
	report_side_release(&a);
	report_side_release(&b);
	strbuf_release(&err);
	db_close(&db);
	return ex;
}
