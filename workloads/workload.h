/*
 * The workload interface.  A workload says what to set up, what to time and
 * how to check it; the runner owns repetitions, pinning, progress, storage.
 */
#ifndef FB_WORKLOAD_H
#define FB_WORKLOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

#define WL_MAX_PARAMS	16
#define WL_MAX_METRICS	32
#define WL_MAX_NOTES	48

enum param_type {
	PT_SIZE,	/* bytes, "8G" */
	PT_UINT,	/* plain count */
	PT_DURATION,	/* nanoseconds, "10s" */
	PT_ENUM,	/* one of .choices */
	PT_STRING,	/* free text, checked by .check if set */
	PT_PERCENT,	/* 0..100, stored as a number */
	/*
	 * "auto" or a size: kept as written, like a string (and listed as
	 * one); a struct wl_sized, bytes 0 for "auto"
	 */
	PT_SIZE_AUTO,
	/*
	 * A folio size as written: "4k", "pmd" or a power of two from 8k
	 * ("64k"); a struct wl_sized, bytes WL_FOLIO_PMD for "pmd", whose
	 * size is the machine's
	 */
	PT_FOLIO,
	/*
	 * A directory: an absolute path, or the table's .own word (the
	 * runner's own scratch: "scratch", "ext4-loop"); a const char *
	 */
	PT_DIR,
};

/* The field of PT_SIZE_AUTO and PT_FOLIO: the bytes, and how it was written. */
struct wl_sized {
	uint64_t bytes;
	const char *text;
};
#define WL_FOLIO_PMD	0	/* wl_sized.bytes of folio "pmd" */

/* Whether .u is the value and its canonical string is made from it. */
static inline bool param_is_number(enum param_type t)
{
	return t == PT_SIZE || t == PT_UINT || t == PT_DURATION ||
	       t == PT_PERCENT;
}

/*
 * The params the runner owns, in every workload that has them: "threads"
 * (workers; 1 where the table has none) and "mode" (threads or processes).
 */
enum wl_mode { WL_MODE_THREADS, WL_MODE_PROCESSES };
extern const char *const wl_modes[];	/* in the order of enum wl_mode */

struct wl_run_params {
	uint64_t threads;
	enum wl_mode mode;
};

/*
 * How reports say a param's value in words, beside "key=value": the size
 * of the timed file ("8 GiB", "an 8 GiB file") and the folios it is made
 * of ("4K folios").
 */
enum wl_say { WL_SAY_KEY, WL_SAY_FILE, WL_SAY_FOLIOS };

/*
 * A parameter, and the field of the workload's own params struct its
 * value is parsed into (fio's offsetof options): numbers a uint64_t,
 * PT_SIZE_AUTO and PT_FOLIO a struct wl_sized, PT_ENUM a C enum in the
 * order of .choices, PT_STRING and PT_DIR a const char *.  Name a table's
 * entry with WL_PARAM(struct, field, "key") (or WL_RUN_PARAM(threads) for
 * the runner's own): the key is the config's and every stored run's, spelt
 * here so that renaming the field changes neither; a misspelt field does
 * not compile.
 */
struct param {
	const char *name;		/* the key */
	bool runner;			/* a field of struct wl_run_params */
	size_t off, size;		/* of the field */
	enum param_type type;
	const char *def;		/* default, in config syntax */
	const char *const *choices;	/* PT_ENUM: NULL-terminated */
	uint64_t min, max;		/* PT_SIZE, PT_UINT, PT_DURATION, PT_PERCENT; max 0 = none */
	/* optional extra syntax check; adds why to err, returns -1 */
	int (*check)(const char *val, struct strbuf *err);
	const char *help;
	/*
	 * PT_ENUM: how report tables name each choice for readers, in the
	 * order of .choices ("ftruncate() to 0"); NULL: "key=value"
	 */
	const char *const *words;
	enum wl_say say;		/* in reports; WL_SAY_KEY: key=value */
	const char *own;		/* PT_DIR: word for the runner's own */
};

#define WL_PARAM(st, f, key)						\
	.name = key, .off = offsetof(st, f), .size = sizeof(((st *)0)->f)
#define WL_RUN_PARAM(f)							\
	.name = #f, .runner = true,					\
	.off = offsetof(struct wl_run_params, f),			\
	.size = sizeof(((struct wl_run_params *)0)->f)
/* The most bytes a workload's params struct may take. */
#define WL_PARAMS_MAX	256
/*
 * A workload's params struct: checked to fit, and prm(c), the case's
 * params as the config gave them (wl_params_mut(c) in preflight, which
 * may adapt a number).
 */
#define WL_PARAMS_STRUCT(st)						\
	_Static_assert(sizeof(st) <= WL_PARAMS_MAX,			\
		       #st " is larger than WL_PARAMS_MAX");		\
	static inline const st *prm(const struct wl_case *c)		\
	{								\
		return wl_params(c);					\
	}

enum metric_better { LOWER_IS_BETTER, HIGHER_IS_BETTER };

struct metric {
	const char *name;	/* "wall" */
	const char *unit;	/* "ns", "ns/folio", "MiB/s", "IOPS", "count" */
	enum metric_better better;
	bool primary;		/* shown in the run's per-case line */
	const char *help;
	/*
	 * A count of what the timed call was given (the folios of the
	 * file), not a result: reports neither test it nor count it in a
	 * Holm family.
	 */
	bool input;
};

/*
 * A case's params, typed: the only form a case has.  The config fills it
 * once (workloads/params.h), preflight may adapt it in place, and the
 * params JSON a case is stored under is made from it and the table.
 * The strings it points to belong to the config's case.
 */
struct wl_params_set {
	struct wl_run_params run;	/* threads (1 if not a param), mode */
	union {
		max_align_t align;
		unsigned char b[WL_PARAMS_MAX];
	} params;			/* the workload's params struct */
};

/* One value of one metric in one sample. */
struct wl_mval {
	double v;
	bool set;		/* measured */
	bool unsupported;	/* the machine cannot measure it (e.g. perf cycles) */
};

struct wl_note {
	char key[40];
	double v;
};

/* What one repetition produced. */
struct wl_sample {
	struct wl_mval m[WL_MAX_METRICS];	/* indexed like workload.metrics */
	bool invalid;
	char reason[384];			/* why invalid */
	struct wl_note notes[WL_MAX_NOTES];	/* what verify found */
	int nnotes;
	char text[256];				/* free-form verify facts */
	/* the timed region (CLOCK_MONOTONIC ns); 0: the runner's own bounds */
	uint64_t t_begin, t_end;
};

struct workload;

/* What the runner hands a workload for one case. */
struct wl_case {
	const struct workload *wl;
	/* its params: the runner's (c->ps.run) and wl_params(c) */
	struct wl_params_set ps;
	const char *scratch;		/* runner's own scratch dir (on /dev/shm by default) */
	const char *disk_scratch;	/* runner's scratch dir on a disk filesystem */
	/* the directories those are made in, which preflight can look at */
	const char *scratch_base, *disk_scratch_base;
	int cpu;			/* logical PU of the measuring thread (OS index) */
	const int *cpus;		/* PUs the workload may use for extra threads */
	int ncpus;
	/*
	 * Every PU the runner may use, in placement order: where untimed
	 * helpers (a setup's reader, a FUSE server) run, so that a setup is
	 * not confined to the measuring PU while the others idle.
	 */
	const int *setup_cpus;
	int nsetup_cpus;
	int (*pin_thread)(int os_cpu);	/* bind the calling thread */
	/*
	 * Parallel workloads: nworkers workers each call run with worker set,
	 * on worker_cpus[worker], started together.  setup makes each
	 * worker's own file after bind_memory(worker_cpus[w]), which places
	 * the pages it faults on that PU's NUMA node (bind_memory(-1): any).
	 */
	int worker, nworkers;
	const int *worker_cpus;
	int (*bind_memory)(int os_cpu);
	volatile sig_atomic_t *stop;	/* set by SIGINT/SIGTERM: give up soon */
	/* report progress of a long setup: done of total bytes/units */
	void (*progress)(const char *what, uint64_t done, uint64_t total);
	bool warmup;
	int rep;
	void *priv;			/* the workload's own state */
	char info[384];			/* preflight: what it adapted, said to the user */
};

/* Result of a preflight. */
enum wl_verdict {
	WL_OK = 0,
	WL_SKIP,	/* not supported here: recorded as skipped, not failed */
	WL_REFUSE,	/* does not fit: the run is refused before anything is made */
};

struct workload {
	const char *name;
	const char *summary;
	const struct param *params;	/* terminated by { NULL } */
	size_t params_size;		/* of the struct params fill */
	const struct metric *metrics;	/* terminated by { NULL } */
	/*
	 * Look at the machine; may adapt the case: change a number in its
	 * params in place (wl_params_mut: a smaller size) and say why in
	 * c->info.  The runner stores the case under what it adapted, the
	 * asked params beside them, and hands setup the adapted case.
	 */
	enum wl_verdict (*preflight)(struct wl_case *c, struct strbuf *err);
	int (*setup)(struct wl_case *c, struct strbuf *err);	/* untimed */
	/*
	 * Timed.  err is written only when it fails: a call that succeeds
	 * allocates nothing for it.
	 */
	int (*run)(struct wl_case *c, struct wl_sample *s,
		   struct strbuf *err);
	int (*verify)(struct wl_case *c, struct wl_sample *s,
		      struct strbuf *err);
	void (*teardown)(struct wl_case *c);	/* always, also after errors */
	/*
	 * Parallel workers (a "threads" parameter, and "mode": threads or
	 * processes).  run is called once a worker, each in its own thread or
	 * process; combine makes the sample's metrics from the workers'
	 * (span: from the first worker's start to the last one's end);
	 * forked, in processes mode, drops what worker w's process owns (the
	 * fd whose close it times): the parent calls it once w is forked,
	 * and each worker's process for the workers forked after it;
	 * prepare, optional, is worker c->worker's untimed work right before
	 * its timed call (shmem-remove's fill), in the worker's thread or
	 * process on its PU, before the barrier, as a bare program fills and
	 * removes on one CPU back to back (issue 17).
	 */
	bool parallel;
	void (*combine)(struct wl_case *c, const struct wl_sample *w, int n,
			uint64_t span_ns, struct wl_sample *s);
	void (*forked)(struct wl_case *c, int w);
	int (*prepare)(struct wl_case *c, struct strbuf *err);
	/* seconds one repetition takes, setup to teardown, on the 2-vCPU
	 * reference VM (the progress line scales it); NULL: no estimate */
	double (*estimate_s)(const struct wl_case *c);
};

/* The registered workloads, NULL-terminated, in registry order. */
const struct workload *const *workloads_get(void);
const struct workload *workload_find(const char *name);

/* A table's fields against their types and the struct; -1 with why in err. */
int wl_params_check(const struct workload *w, struct strbuf *err);

/* The workload's params struct of a case. */
static inline const void *wl_params(const struct wl_case *c)
{
	return c->ps.params.b;
}
static inline void *wl_params_mut(struct wl_case *c)
{
	return c->ps.params.b;
}

/* Index of a metric by name; aborts on a name the table lacks. */
int wl_metric_index(const struct workload *w, const char *name);
/* Metric m (its index in workload.metrics: the workload's enum) is v. */
void wl_set_m(struct wl_sample *s, int m, double v);
void wl_unsupported_m(struct wl_sample *s, int m);
/* The same by name, for names made at run time (perf counters). */
void wl_set(struct wl_sample *s, const struct workload *w, const char *metric,
	    double v);
void wl_unsupported(struct wl_sample *s, const struct workload *w,
		    const char *metric);
void wl_note(struct wl_sample *s, const char *key, double v);
void wl_invalid(struct wl_sample *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
