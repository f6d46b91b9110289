/*
 * Kernel-vs-kernel comparison and one-kernel export.  A boot is the
 * statistical unit: the median of a boot's valid samples, then the mean of
 * those medians across boots, and the tests run on the boot medians.
 */
#ifndef FB_COMPARE_H
#define FB_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/common.h"
#include "common/strmap.h"
#include "schema/db.h"
#include "schema/db_vm.h"

/* Significance level and power of every test and plan in a report. */
#define REPORT_ALPHA	0.05
#define REPORT_POWER	0.8
#define REPORT_CONF	0.95
/* Boots per kernel beyond which a plan says "more than". */
#define REPORT_NEED_CAP	10000
/* Fewest units a side for the Mann-Whitney U test. */
#define REPORT_MWU_MIN	4
/* Fewest boots a side for the boot-to-boot variance to mean something. */
#define REPORT_BOOTS_OK	3

/*
 * What the reports layer returns: 0 or one of these, in a range of their
 * own (never a -errno, a DB_* or the runner's code); only bench/ maps them
 * to exit codes.
 */
enum report_status {
	REPORT_OK = 0,
	REPORT_EDB = -2001,	/* SQLite could not read: err says */
	REPORT_ENOMEM = -2002,
	REPORT_EEMPTY = -2003,	/* the database holds no run at all */
	REPORT_ELABEL = -2004,	/* no run has this label */
	REPORT_ENOCOMPLETE = -2005,	/* runs, but none complete */
	REPORT_EFEW = -2006,	/* too few boots for what was asked (--aa) */
	REPORT_EDATA = -2007,	/* rows that make no sense: err says which */
	REPORT_EBUSY = -2008,	/* locked by another process past 10 s */
	REPORT_ECLOCK = -2009,	/* counted and timed runs in one table */
};

/*
 * A DB_* code of schema/ as the reports layer's: REPORT_EBUSY or
 * REPORT_EDB, "cannot read PATH: why" into err.  Any other r is returned
 * as it is.
 */
int report_db_status(const struct db *db, int r, struct strbuf *err);

enum report_format {
	REPORT_TEXT,
	REPORT_CHANGELOG,
	REPORT_MARKDOWN,
	REPORT_CSV,
	REPORT_JSON,
};
/*
 * What --format takes besides a report: files for the user's own tools,
 * or one run's document; a command allows some of them (a mask).
 */
enum report_output {
	REPORT_OUT_NONE = 0,		/* a report in an enum report_format */
	REPORT_OUT_MINISTAT = 1 << 0,	/* ministat's files, one a side */
	REPORT_OUT_BENCHSTAT = 1 << 1,	/* Go's benchmark format */
	REPORT_OUT_RUN_JSON = 1 << 2,	/* one run, schema/run.schema.json */
	REPORT_OUT_FOLDED = 1 << 3,	/* kernel profiles, folded stacks */
};
/*
 * "text", "changelog", ... into *f (*out REPORT_OUT_NONE), or one of the
 * outputs allowed ("benchstat") into *out; -1 for a name that is none.
 */
int report_format_parse(const char *name, unsigned allowed,
			enum report_format *f, enum report_output *out);
/* An output's name: "ministat". */
const char *report_output_name(enum report_output out);
/*
 * The names --format takes, "text, changelog, ...", then the outputs
 * allowed, from the one table of the formats; mark (when not NULL)
 * follows the default, text.
 */
void report_format_names(struct strbuf *sb, const char *mark,
			 unsigned allowed);

struct report_run {
	int64_t id;
	char *uuid, *started_at;
	/* what many runs share: the side's own (report_side.pool) */
	const char *kernel_release, *boot_id, *hostname, *cpu_model;
	const char *cmdline, *thp, *tmpfs, *tool_version, *virt;
	int64_t vcpus, mem_bytes;
	int boot;			/* index into report_side.boot_ids */
	int64_t kernel_warnings;	/* kernel log lines showing a problem */
	char *kwarn_first;		/* "[  441.867364] WARNING: ..." */
};

struct report_kv {
	char *key, *value;
	char *asked;		/* the value asked, where another one ran */
};

/* The values of one boot for one series. */
struct report_boot_vals {
	int boot;
	double *v;
	size_t n, alloc;
};

/* One case and metric on one side. */
struct report_series {
	char *workload, *params, *metric, *unit;
	char *asked;			/* params asked, where preflight adapted */
	bool higher;			/* higher is better */
	bool unmeasurable;		/* a value stored as not supported */
	struct report_kv *kv;		/* params decoded, in their order */
	size_t nkv;
	struct report_boot_vals *boots;	/* boots that gave values */
	size_t nboots;
	double *med;			/* median of each boot */
	double mean, sd;		/* of the boot medians (sd NAN for 1) */
	double *all;			/* every value, boot after boot */
	size_t nall;
	double run_mean, run_sd;	/* of every value (sd NAN for 1) */
	size_t runs_min, runs_max;	/* values a boot */
};

/* A case that did not finish in a complete run ('skipped', 'failed'). */
struct report_notdone {
	char *workload, *params, *status, *reason;
};

/*
 * What a side's "times" are.  Timed: nanoseconds of the clock.  Counted
 * (`bench vm --accel icount`, schema 9): the guest's clock advanced 2^shift
 * ns a guest instruction, so a stored time is a count of instructions and
 * is shown as one (report_clock_unit).
 */
struct report_clock {
	bool counted;
	int shift;			/* -icount shift=N; -1 when timed */
};
#define REPORT_CLOCK_TIMED ((struct report_clock){ false, -1 })

/*
 * The one place a stored unit becomes the unit shown for a side of clock
 * ck: into out the unit, and the factor that takes a stored value there.
 * Counted, a time ("ns", "ms", "ns/folio") is guest instructions ("instr",
 * "instr/folio") and a rate per second is one per 10^9 instructions
 * ("MiB/s" -> "MiB/Ginstr", "IOPS" -> "ops/Ginstr"); every other unit, and
 * every unit of a timed side, is itself with factor 1.
 */
double report_clock_unit(const struct report_clock *ck, const char *unit,
			 char *out, size_t n);
/*
 * A time unit in seconds: "ns" -> "sec", "ns/folio" -> "sec/folio", "ms"
 * -> "sec", into out, and the factor that takes a value there; any other
 * unit ("instr", "MiB/s", "count") is itself with factor 1.
 */
double report_unit_seconds(const char *unit, char *out, size_t n);
/* Is unit one report_clock_unit gives a counted side ("instr...")? */
bool report_unit_counted(const char *unit);
/* "guest instructions (icount shift 0)" or "time": what a clock counts. */
void report_clock_words(const struct report_clock *ck, struct strbuf *sb);

/*
 * What the runs' and the cases' passes of a load saw of the whole label
 * (both halves of an A/A comparison alike), for compare's warnings: the
 * packs' marks summed, the distinct topology shapes and guests, whether a
 * case holds a profile.  Strings from the side's pool.
 */
struct report_marks {
	size_t unpacked;		/* complete runs without their pack */
	int64_t samples, noisy;		/* the packs' valid, noisy samples */
	size_t bounded;			/* packs with a bounded count */
	bool profile;			/* a case holds a profile */
	const char **shapes;		/* topology shapes but "", in order */
	size_t nshapes;
	/* the guests (accel, clock, shift, shape), distinct, in order */
	struct db_vm_shape *guests;
	size_t nguests;
};

struct report_side;
/*
 * A side's label's valid samples and noisy ones: its packs' marks summed
 * by the load where every run has its pack, else db_report_noisy's
 * count.  DB_OK or a DB_* code.
 */
int report_side_noisy(struct db *db, const struct report_side *s,
		      int64_t *noisy, int64_t *total);

struct report_side {
	char *label;			/* as asked, or "LABEL (odd boots)" */
	char *db_label;			/* the label in the database */
	struct report_run *runs;
	size_t nruns;
	char **boot_ids;
	size_t nboots;
	struct report_series *ser;
	size_t nser;
	struct report_notdone *notdone;
	size_t nnotdone;
	/*
	 * Timed or counted: every run of a label alike (a label that mixes
	 * them is refused with REPORT_ECLOCK); the series' units and values
	 * are already the clock's (report_clock_unit).
	 */
	struct report_clock clock;
	struct report_marks marks;
	struct strmap pool;		/* the runs' shared strings */
	/*
	 * The database it was loaded from, open while it is used: asked only
	 * why a case the other side has is missing here (its samples all
	 * invalid).  NULL: not asked.
	 */
	struct db *db;
};

/*
 * Load the complete runs of a label.  half 0 takes every boot; 1 and 2 take
 * the odd and even boots in time order (an A/A comparison splits a label
 * this way so that drift over time falls on both halves).  err gets a
 * message for everything but REPORT_OK.
 */
int report_side_load(struct db *db, const char *label, int half,
		     struct report_side *s, struct strbuf *err);
/* The same, leaving out samples flagged noisy (steal) when drop_noisy. */
int report_side_load_noisy(struct db *db, const char *label, int half,
			   bool drop_noisy, struct report_side *s,
			   struct strbuf *err);
struct report_opts;
struct report_prof;
/* How to load a side. */
struct report_load_opts {
	int half;			/* as report_side_load's */
	bool drop_noisy;		/* leave out samples flagged noisy */
	/*
	 * The options of the one report made of the side: read the values
	 * of the series it shows (its primary_only rows: their metric, and
	 * the per-folio one beside), and of the others only what says they
	 * exist and whether they were measured.  NULL: every value.
	 */
	const struct report_opts *shown;
	bool runs_only;			/* the runs and boots, no values */
	/*
	 * Take the samples timed while profiled too (schema 11; their
	 * times hold the cost of sampling): read from the samples, since
	 * run_series keeps the others only.
	 */
	bool profiled;
};
int report_side_load_opts(struct db *db, const char *label,
			  const struct report_load_opts *lo,
			  struct report_side *s, struct strbuf *err);
/*
 * An A/A comparison's two sides, the odd and the even boots of label, in
 * one read (lo->half is not used): as report_side_load_opts with half 1
 * and 2.
 */
int report_side_load_halves(struct db *db, const char *label,
			    const struct report_load_opts *lo,
			    struct report_side *odd, struct report_side *even,
			    struct strbuf *err);
void report_side_release(struct report_side *s);

/*
 * `compare --per-worker`: each worker's own wall time (median over the
 * samples; counted in guest instructions where ck is counted) for every parallel case of a and b, and the spread across
 * workers (slowest over fastest).  -errno when the stream fails.
 */
int report_workers(FILE *f, struct db *db, const char *a, const char *b,
		   const struct report_clock *ck, bool drop_noisy,
		   struct strbuf *err);

struct report_row {
	const struct report_series *a, *b;	/* NULL: absent on that side */
	/* the same case's per-folio metric, where the workload gives one */
	const struct report_series *fa, *fb;
	double delta_folio;		/* fb - fa, in their unit; NAN none */
	bool primary;			/* the workload's headline metric */
	char *name;			/* workload and the params that vary */
	char *words;			/* the same for readers: "unlink, 8 GiB" */
	/*
	 * A kernel with one boot has no boot-to-boot spread: the row then
	 * stands on the runs, and its values, change, CI, p and direction
	 * are all of the mean of the runs (a boot's median would not be
	 * the quantity the tests judge).
	 */
	bool within;
	double va, vb;			/* the values compared; NAN absent */
	double sda, sdb;		/* their spread over the test units */
	size_t na, nb;			/* test units a side */
	double delta;			/* percent, b against a */
	double ci_lo, ci_hi;		/* percent, Fieller; NAN unbounded */
	double df;			/* Welch-Satterthwaite */
	double p, p_adj;		/* Welch, raw and Holm; NAN: no test */
	double p_mw, p_mw_adj;		/* Mann-Whitney U; NAN: too few */
	bool mw_exact;
	bool sig;			/* p_adj < REPORT_ALPHA */
	int dir;			/* +1 better, -1 worse, 0 not shown */
	/*
	 * Why a row with both sides has no test: NULL when it has one;
	 * "input" for a count of what the timed call was given, "constant"
	 * for a value that is the same in every sample of both kernels.
	 * Such rows are in no Holm family.
	 */
	const char *untested;
	size_t family;			/* rows in its Welch Holm family */
	double mde;			/* percent of base; NAN: not planned */
	long need;			/* boots a kernel for |delta| */
	double plan_alpha;		/* the level the plan is made at */
	enum report_plan {
		PLAN_NONE,		/* significant, untested, one side */
		PLAN_OK,		/* mde (and need, unless A/A) */
		PLAN_ONE_BOOT,		/* a kernel has one boot */
		PLAN_NO_SPREAD,		/* the boot medians do not vary */
	} plan;
	/* export: the spread of one side */
	double spread;			/* sd of boot medians, or of runs */
	double ci_mean_lo, ci_mean_hi;	/* CI of the mean, in the unit */
};

/* How to build a report. */
/* How a report says a param's value (report_opts.words). */
enum report_say {
	REPORT_SAY_NONE,	/* no words: "key=value" */
	REPORT_SAY_WORDS,	/* its own: "ftruncate() to 0" */
	REPORT_SAY_FILE,	/* the timed file's size: "8 GiB file" */
	REPORT_SAY_FOLIOS,	/* the folios it is made of: "4K folios" */
	/*
	 * how many workers run the case (the runner's threads): no words
	 * ("key=value"), but a count of instructions sums over them
	 */
	REPORT_SAY_WORKERS,
};

struct report_opts {
	bool aa;			/* a and b are halves of one label */
	/*
	 * Is this the workload's headline metric?  reports/ does not know
	 * the workloads; bench/ does.  NULL: every metric is.
	 */
	bool (*primary)(const char *workload, const char *metric);
	bool primary_only;		/* rows of headline metrics only */
	/*
	 * Comma-separated metric names that are the headline instead of
	 * the workloads' own (--metric): shown, and Holm's first family.
	 */
	const char *metrics;
	/*
	 * Is this metric a count of the input (the folios of the file)?
	 * Such rows are shown but neither tested nor in a Holm family.
	 * NULL: none is.
	 */
	bool (*input)(const char *workload, const char *metric);
	/*
	 * How a table says a param's value for readers, from the
	 * workload's own table: the words in buf ("ftruncate() to 0" for
	 * op=ftruncate, "8 GiB" for size=8G) and how the sentence takes
	 * them; NULL, or REPORT_SAY_NONE: "key=value".
	 */
	enum report_say (*words)(const char *workload, const char *key,
				 const char *value, char *buf, size_t n);
};

struct report_cmp {
	struct report_side *a, *b;	/* b NULL: an export of a alone */
	bool aa;			/* a and b are halves of one label */
	const char *workload;		/* the one workload, or NULL */
	const char *name_key;		/* param naming a lone case's row */
	enum report_say (*words)(const char *workload, const char *key,
				 const char *value, char *buf,
				 size_t n);	/* from report_opts */
	struct report_row *rows;
	size_t nrows;
	size_t ntested, nmw;		/* rows in the headline Holm families */
	size_t ntested_other, nmw_other;	/* in the other metrics' */
	size_t nsig, nsig_raw;		/* significant after / before Holm */
	double geo;			/* geometric mean change, percent */
	size_t geo_n;
	bool geo_cost;			/* higher-is-better ratios inverted */
	int geo_dir;			/* +1 better, -1 worse, 0 none */
	bool geo_speed;			/* every row of it a time or a rate */
	size_t nwithin;			/* rows on the runs of one boot */
	char **warn;			/* differences beyond the kernel */
	size_t nwarn;
	/* a side whose kernel printed warnings during its runs, a line each */
	char **kwarn;
	size_t nkwarn;
	char **unmeasurable;		/* "workload metric" never measured */
	size_t nunmeasurable;
	char *method;			/* the generated method sentence */
	char *phrase;			/* "64 MiB file of 4K folios" or "" */
	size_t runs_min, runs_max;	/* values a boot over the table */
	size_t boots_min, boots_max;	/* boots a row, over the table */
	/*
	 * Rows differ in their boots: the tables give each row's, and the
	 * method sentence says so, rather than a count some rows lack.
	 */
	bool boots_vary;
	/* for JSON: set by the caller, reports/ does not call up to bench/ */
	const char *tool_version;
	int schema_version;
	/* compare --profile: the kernel profiles (reports/profile.h); NULL */
	const struct report_prof *profile;
};

/* Compare b against a (b NULL: describe a alone).  REPORT_ENOMEM only. */
int report_compare(struct report_side *a, struct report_side *b,
		   const struct report_opts *o, struct report_cmp *c);
void report_cmp_release(struct report_cmp *c);

/*
 * Planning, the arithmetic that compare prints and `bench plan` uses: the
 * pooled standard deviation of the two sides' boot medians (NAN with fewer
 * than 2 boots a side), and the boots of each kernel that detect a change
 * of effect_pct percent of the base at REPORT_ALPHA with REPORT_POWER
 * (-1: no spread to plan from; REPORT_NEED_CAP + 1: more than the cap).
 */
double report_row_pooled_sd(const struct report_row *r);
long report_row_need(const struct report_row *r, double effect_pct);

/* Write the report; -errno when the stream fails. */
int report_print(FILE *f, const struct report_cmp *c, enum report_format fmt);
/* JSON, the one user of cJSON (reports/json.c). */
int report_print_json(FILE *f, const struct report_cmp *c);

/*
 * The kernel-warning block that every format carries (JSON as a key):
 * nothing when no run of either side saw the kernel warn.
 */
int report_print_kwarn(FILE *f, const struct report_cmp *c,
		       enum report_format fmt);

/* Shared by the formats: "faster", "slower", "better", "worse". */
const char *report_dir_word(const struct report_row *r);
/* The same for the geometric mean row; "" when it shows no change. */
const char *report_geo_word(const struct report_cmp *c);
/*
 * Is a change of this metric a speed (faster or slower)?  Times are, and
 * rates where higher is better (throughput); a count per second where
 * lower is better (context switches) is better or worse.
 */
bool report_unit_speed(const char *unit, bool higher);
/* A unit and a precision that values read side by side share. */
struct report_scale {
	double div;		/* stored unit per shown unit */
	char unit[64];		/* "ms", "us/folio", "M/s", "MiB/s", "" */
	int decimals;
};
/* The scale of n values of one stored unit (NANs ignored). */
void report_scale(const double *v, size_t n, const char *unit, bool ascii,
		  struct report_scale *s);
/* v in that scale with its unit: "913 ms"; "n/a" for NAN. */
void report_scaled(double v, const struct report_scale *s, char *buf,
		   size_t n);
/* v in the scale of v and ref together: "913 ms" beside "1163 ms". */
void report_value(double v, double ref, const char *unit, bool ascii,
		  char *buf, size_t n);

#endif
