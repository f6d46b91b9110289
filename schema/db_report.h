/*
 * The read queries of `bench compare` and `bench export`: complete runs of
 * a label and the samples that enter a median (no warm-ups, valid only).
 */
#ifndef FB_DB_REPORT_H
#define FB_DB_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "db.h"

/* Runs in the whole database. */
int db_report_nruns(struct db *db, int64_t *n);
/* Runs of a label, and how many of them are complete. */
int db_report_label(struct db *db, const char *label, int64_t *nruns,
		    int64_t *ncomplete);
/* Every distinct label, for "did you mean". */
int db_report_labels_each(struct db *db,
			  int (*fn)(const char *label, void *arg), void *arg);

/* One complete run: what must match between the two sides. */
struct db_report_run {
	int64_t id;
	const char *uuid, *kernel_release, *boot_id, *hostname, *cpu_model;
	const char *cmdline, *thp, *tmpfs, *topology, *tool_version;
	const char *started_at, *virt;
	int64_t vcpus, mem_bytes;
	int64_t kernel_warnings;	/* -1: the kernel log was not read */
	int64_t kwarn_at_us;		/* the first of them: when, and */
	const char *kwarn_first;	/* its line ("" none) */
	/* schema 9: "time", or "instructions" counted with this shift */
	const char *clock;
	int icount_shift;		/* -1: timed */
	bool packed;			/* schema 14: the run has its pack */
	/* its pack's mark (0 without a pack): valid and noisy samples, and
	 * how many of its series rest on a bound (coverage_bounded) */
	int64_t pack_samples, pack_noisy, pack_bounded;
	const char *topology_shape;	/* "" not known */
	/* the guest of `bench vm` ("" both: none), as db_vm_shape's */
	const char *vm_accel, *vm_shape;
};
/* Complete runs of a label, oldest first. */
int db_report_runs_each(struct db *db, const char *label,
			int (*fn)(const struct db_report_run *, void *),
			void *arg);

/* One value of a sample that enters a median. */
struct db_report_value {
	int64_t run_id;
	int64_t sample_id;	/* the values of one sample come together */
	const char *boot_id, *workload, *params, *metric, *unit, *better;
	double value;
	bool supported;		/* false: NULL value, not measurable */
	const char *asked;	/* the params asked, where the case was adapted */
};
/*
 * Values of non-warm-up, valid samples of the complete runs of a label, in
 * the order taken: run start, case order, repetition, metric order.
 */
int db_report_values_each(struct db *db, const char *label,
			  int (*fn)(const struct db_report_value *, void *),
			  void *arg);

/* The same, leaving out samples flagged noisy when drop_noisy. */
int db_report_values_each_noisy(struct db *db, const char *label,
				bool drop_noisy,
				int (*fn)(const struct db_report_value *,
					  void *),
				void *arg);
/*
 * The same, reading only the values keep wants: keep (when not NULL) is
 * asked of each value that a report can take without an error (a number,
 * or NULL; no negative or infinite one), with its workload, params,
 * metric, unit and supported set, and nothing else; a value it turns down
 * never leaves SQLite.  Values a report must refuse are always read.
 * Samples timed while profiled (schema 11) are left out unless profiled.
 */
int db_report_values_each_kept(struct db *db, const char *label,
			       bool drop_noisy, bool profiled,
			       bool (*keep)(const struct db_report_value *,
					    void *),
			       void *keep_arg,
			       int (*fn)(const struct db_report_value *,
					 void *),
			       void *arg);
/*
 * What db_report_values_each_kept does without keep, each sample's values
 * read from its row in C (db_report_vals.c), not a row a value by
 * json_each and four lookups in its layout: the same values, in the same
 * order, refused with the same words.
 */
int db_report_values_read(struct db *db, const char *label, bool drop_noisy,
			  bool profiled,
			  int (*fn)(const struct db_report_value *, void *),
			  void *arg);
/* The values of one sample through json_each, as the query above did. */
int db_report_values_sample(struct db *db, int64_t sample_id,
			    int (*fn)(const struct db_report_value *, void *),
			    void *arg);
/*
 * Can the label's values be read from run_series (schema 10)?  *ready true
 * where every complete run has its rows and none holds a value a report
 * refuses (read from the samples, they are named).
 */
int db_report_series_ready(struct db *db, const char *label, bool *ready);

/* One run's values of one series, as db_report_values_each gives them. */
struct db_report_series {
	int64_t run_id;
	const char *workload, *params, *metric, *unit, *better;
	const char *asked;	/* NULL: as asked */
	size_t n;		/* measured values (db_report_series_value) */
	const unsigned char *vals;
	const unsigned char *noisy;	/* NULL: none noisy, else 1 a value */
	int64_t unmeasurable, unmeasurable_noisy;
	/*
	 * Read from a pack (schema 14): the series is the pos-th of the
	 * npos of layout layout, the same series in every run of that
	 * layout, so that a reader may know it by its place; npos 0: a row
	 * of run_series, known by its strings alone.
	 */
	int64_t layout;
	size_t pos, npos;
};
/* The i-th measured value of x (i < x->n). */
double db_report_series_value(const struct db_report_series *x, size_t i);
/* The first n of them (n <= x->n) into out, in one copy where it can. */
void db_report_series_values(const struct db_report_series *x, double *out,
			     size_t n);
/*
 * The rows of the label's complete runs in the order of their first values
 * in db_report_values_each: from run_packs (a row a run, schema 14) where
 * every such run has its pack, else from run_series.
 */
int db_report_series_each(struct db *db, const char *label,
			  int (*fn)(const struct db_report_series *, void *),
			  void *arg);
/* Valid measured samples of a label's complete runs, and the noisy ones. */
/*
 * The cases (workload, params JSON) of a label with a valid sample whose
 * count rests on a bound, not a count (verify's coverage_bounded: a
 * kernel without cachestat(2)), one call each, in order.
 */
int db_report_bounded_each(struct db *db, const char *label,
			   int (*fn)(const char *workload, const char *params,
				     void *),
			   void *arg);
int db_report_noisy(struct db *db, const char *label, int64_t *noisy,
		    int64_t *total);
/* The distinct topology shapes of a label's complete runs. */
int db_report_shapes_each(struct db *db, const char *label,
			  int (*fn)(const char *shape, void *arg), void *arg);
/* One worker of a valid measured sample of a parallel case. */
struct db_report_worker {
	const char *workload, *params;
	int worker, pu, workers;
	int64_t wall_ns;
};
/* Workers of a label's complete runs, case by case, worker by worker. */
int db_report_workers_each(struct db *db, const char *label, bool drop_noisy,
			   int (*fn)(const struct db_report_worker *, void *),
			   void *arg);

/*
 * Cases of complete runs of a label that did not finish ('skipped' ...),
 * and in the same pass those that did with a profile (status "done",
 * profile set): what compare says of a label's cases besides its values.
 */
struct db_report_case {
	const char *workload, *params, *status, *reason;
	bool profile;		/* the case holds a profile (schema 11) */
};
int db_report_cases_marked_each(struct db *db, const char *label,
				int (*fn)(const struct db_report_case *,
					  void *),
				void *arg);

/*
 * Invalid samples (not warm-ups) of the complete runs of a label, counted
 * by run, case and reason, in the order first taken.
 */
struct db_report_invalid {
	int64_t run_id;
	const char *workload, *params, *reason;
	int64_t n;
	bool valid;	/* db_report_invalid_case_each's valid ones */
};
int db_report_invalid_each(struct db *db, const char *label,
			   int (*fn)(const struct db_report_invalid *, void *),
			   void *arg);
/*
 * The same for one case (workload, params) of the label, and its valid
 * samples too (valid set, reason ""): why a case has no value on a side,
 * asked only of a case one side lacks (an index walk of its cases, never a
 * pass over every sample).
 */
int db_report_invalid_case_each(struct db *db, const char *label,
				const char *workload, const char *params,
				int (*fn)(const struct db_report_invalid *,
					  void *),
				void *arg);

/* The keys and values of a canonical params object, in its order. */
int db_report_params_each(struct db *db, const char *params_json,
			  int (*fn)(const char *key, const char *value,
				    void *arg),
			  void *arg);

/*
 * The boots of a label that hold a complete run, in the order they first
 * completed one (bench plan, bench nightly).
 */
int db_report_boots_each(struct db *db, const char *label,
			 int (*fn)(const char *boot_id, const char *at,
				   void *arg),
			 void *arg);

/* The runs of a label in one boot, for `bench nightly`. */
struct db_boot_runs {
	int64_t complete;	/* complete runs */
	int64_t other;		/* aborted, failed or left running */
};
int db_report_boot_runs(struct db *db, const char *label, const char *boot_id,
			struct db_boot_runs *out);

/* What nightly's summary line says of a run. */
struct db_run_summary {
	char uuid[40], status[16];
	int64_t cases_valid;	/* done, every measured sample valid */
	int64_t cases_invalid;	/* failed, or with an invalid sample */
	int64_t cases_skipped;
	int64_t kernel_warnings;	/* -1: the log was not read */
};
/* The newest run of a label in a boot; DB_MISSING when there is none. */
int db_report_run_summary(struct db *db, const char *label,
			  const char *boot_id, struct db_run_summary *out);

/*
 * Valid measured samples of a label's complete runs timed while profiled
 * (schema 11), and all of them: counted only where a case of the label has
 * a profile (else both 0, without reading a sample).
 */
int db_report_profiled(struct db *db, const char *label, int64_t *profiled,
		       int64_t *total);

/* One call chain of a profiled case of a complete run (schema 11). */
struct db_report_prof {
	int64_t run_id, case_id;
	const char *boot_id, *workload, *params;
	const char *off;	/* why the case has no profile, or NULL */
	const char *unit;	/* "ns", "instructions", "cycles" ("" off) */
	const char *event;	/* "cpu-clock" ... */
	double period;		/* units a sample; NAN not said */
	const char *stack;	/* outermost first, ';' between; NULL none */
	int64_t count;		/* samples that ended in stack */
};
/*
 * The stacks of every case of the label's complete runs that has a
 * profile (a case without stacks once, stack NULL), run by run in case
 * order; a profile that is no JSON object, or of an unknown unit, is
 * DB_BADROW naming the case.
 */
int db_report_prof_each(struct db *db, const char *label,
			int (*fn)(const struct db_report_prof *, void *),
			void *arg);

#endif
