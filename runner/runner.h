/* The runner: configuration, the plan of cases, placement, the timing loop. */
#ifndef FB_RUNNER_H
#define FB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"
#include "workloads/workload.h"

/* One point of a sweep. */
struct plan_case {
	const struct workload *wl;
	struct wl_value v[WL_MAX_PARAMS];	/* .str owned */
	char *params_json;			/* canonical, table order */
	char *title;				/* "op=unlink size=8G folio=4k" */
	unsigned runs, warmup;
};

struct config {
	char path[4096];		/* where it was read from */
	char *database, *label, *scratch, *disk_scratch;
	int cpu;			/* logical PU index, or -1 for auto */
	unsigned runs, warmup;
	char *json;			/* the effective config, for the run row */
	struct plan_case *cases;
	int ncases;
};

/*
 * Read and validate a config file and expand its sweeps.  On error,
 * returns -1 with a message in err (naming file, line/column or key path,
 * and value); nothing else is touched.
 */
int config_load(struct config *cfg, const char *path, struct strbuf *err);
/* The same for a config's text in memory (path only names it). */
int config_parse(struct config *cfg, const char *path, const char *text,
		 struct strbuf *err);
void config_release(struct config *cfg);
/* The config used when none is given: ./config.json, else the example. */
const char *config_default_path(void);
/* Keep only the cases of these workloads (comma list); -1 if unknown. */
int config_only(struct config *cfg, const char *list, struct strbuf *err);

/* Placement with hwloc. */
struct placement {
	int cpu;		/* OS index of the measuring PU */
	int logical;		/* its hwloc logical index */
	int *cpus;		/* allowed PUs (OS indexes) */
	int ncpus;
	char *summary;		/* JSON: packages, numa nodes, cores, PUs */
};
int placement_init(struct placement *p, int want_logical, struct strbuf *err);
int placement_bind(int os_cpu);
void placement_release(struct placement *p);

struct run_opts {
	const char *config_path;
	const char *db_path;
	const char *label;
	const char *only;
	int runs;		/* -1: from config */
	bool quiet;
	bool check_only;	/* `bench check` */
};

/*
 * What runner_main returns: 0, one of these, or a DB_* code (schema/db.h)
 * passed up unchanged; each is said on stderr by then, and only bench/
 * maps them to exit codes.  Ranges of their own: no -errno or other
 * layer's code is mistaken for one.
 */
enum runner_code {
	RUNNER_OK = 0,
	RUNNER_ECONFIG = -3001,		/* the config (or its CPU) is bad */
	RUNNER_EUSAGE = -3002,		/* --only names an unknown workload */
	RUNNER_EREFUSED = -3003,	/* preflight refused, or not root */
	RUNNER_ELOCKED = -3004,		/* another runner holds the machine */
	RUNNER_ESTATE = -3005,		/* the state directory cannot be used */
	RUNNER_ESCRATCH = -3006,	/* the scratch directory cannot be made */
	RUNNER_EFAILED = -3007,		/* a case failed, or an undo did */
	RUNNER_EINTERNAL = -3008,
	RUNNER_ESIGNAL = -3100,		/* less the signal: interrupted */
};
#define RUNNER_SIGNALED(sig)	(RUNNER_ESIGNAL - (sig))

/* `bench run` and `bench check`; returns 0 or a code above. */
int runner_main(const struct run_opts *o, const char *version);

#endif
