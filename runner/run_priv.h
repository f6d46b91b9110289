/*
 * What the files of `bench run` and `bench check` share, and nothing else
 * does: run.c (the run's phases), prepare.c (each case made ready before
 * anything is made), rep.c (one repetition measured and stored) and
 * progress.c (what people see meanwhile).
 */
#ifndef FB_RUN_PRIV_H
#define FB_RUN_PRIV_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "runner.h"
#include "kmsg.h"
#include "meta.h"
#include "profile.h"
#include "schema/db.h"

/* Per case: the values of each metric over valid measured samples. */
struct tally {
	double *v[WL_MAX_METRICS];
	size_t n[WL_MAX_METRICS];
	int valid, invalid, noisy;
	int waited;		/* noisy for a wait on a run queue */
};

/* A case as preflight left it, and where its workers run. */
struct prepared {
	/* its params as preflight left them: what runs and is stored */
	struct wl_params_set ps;
	int nworkers;
	bool processes;
	int *pus;				/* [nworkers] */
	enum wl_verdict verdict;
	struct strbuf err;			/* why not WL_OK */
	char info[384];
	double slowdown;	/* of its PUs at once (noise_parallel) */
};

/*
 * What one `bench run` or `bench check` carries from phase to phase.  Each
 * phase returns RUNNER_OK to go on, RUNNER_DONE when the command has done
 * all it was asked (bench check), or the code it ends with; a phase that
 * fails after the run's row exists ends the run itself (give_up).
 */
#define RUNNER_DONE 1

struct runner {
	const struct run_opts *o;
	const char *version;
	const char *cfg_path, *db_path;
	struct config cfg;
	struct placement pl;
	struct strbuf err;
	struct prepared *pr;	/* [cfg.ncases] */
	struct tally *tl;	/* [cfg.ncases] */
	struct db db;
	struct meta meta;
	struct kmsg_scan km;
	struct profile prof;	/* asked: the kernel sampled in timed calls */
	bool prof_said;		/* why it is off was said */
	/* BASE/foliobench.PID of the config's two, made before the first
	 * case is: the cases hold pointers to them */
	char *scratch, *disk_scratch;
	int64_t run_id;
	int nfailed;
	bool sys_up, complete;
};

/* run.c: the run's lifecycle. */
/* The signal that stops the run (SIGINT, SIGTERM, SIGHUP), else 0. */
extern volatile sig_atomic_t stop_sig;
/* "bench: " and the message on stderr, stdout flushed first. */
void say_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A database error, said for people; returns it, for bench/ to map. */
int db_failed(const char *what, const char *path, int r, const char *err);
/* A fault after the run's row exists: the run ends failed; returns ret. */
int give_up(struct runner *rn, int ret);
/* Profiling asked and off: why, said once. */
void profile_say_off(struct runner *rn);

/* prepare.c: each case made ready. */
/* The case of pc as pr holds it (pr->ps), to hand its workload. */
void case_init(struct wl_case *c, const struct plan_case *pc,
	       const struct placement *pl, const struct config *cfg,
	       const char *scratch, const char *disk_scratch,
	       const struct prepared *pr);
/* Phase 3: preflight every case before anything is made. */
int preflight_all(struct runner *rn);
/* Flag (or, with say, print) worker counts whose PUs are oversubscribed. */
void probe_parallel(const struct config *cfg, struct prepared *pr, bool say);

/* rep.c: one repetition of case i, measured and stored. */
int one_rep(struct runner *rn, int i, unsigned rep, int64_t case_id,
	    struct strbuf *err, const char **fail);

/* progress.c: the live line (on a terminal only), summaries, the table. */
void progress_init(bool quiet);
void progress_estimate(const struct config *cfg, const struct prepared *pr,
		       const struct placement *pl, const char *scratch,
		       const char *disk_scratch);
void progress_rep_begin(const struct config *cfg, int i, unsigned rep);
void progress_rep_end(int i);
void progress_case_drop(int i);
/* A workload's progress within a repetition (wl_case.progress). */
void progress_on(const char *what, uint64_t done, uint64_t total);
/* Clear the live line before anything else is printed. */
void progress_undraw(void);
void progress_eta_log(const struct config *cfg);
void progress_release(void);
void tally_add(struct tally *t, const struct workload *w,
	       const struct wl_sample *s, int maxn);
void tally_release(struct tally *t);
void case_summary(const struct workload *w, const struct tally *t,
		  struct strbuf *sb);
void final_table(const struct config *cfg, struct tally *tl,
		 const struct prepared *pr);

#endif
