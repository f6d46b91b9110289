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

/* `bench run` and `bench check`; returns an exit code. */
int runner_main(const struct run_opts *o, const char *version);

#endif
