/* The runner: configuration, the plan of cases, placement, the timing loop. */
#ifndef FB_RUNNER_H
#define FB_RUNNER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/common.h"
#include "common/dashboard.h"
#include "runner/topo.h"
#include "workloads/workload.h"

#define CPU_MAX		4095	/* highest CPU number a config may name */

/* One point of a sweep. */
struct plan_case {
	const struct workload *wl;
	struct wl_params_set ps;		/* asked; owns its texts */
	char *title;				/* "op=unlink size=8G folio=4k" */
	unsigned runs, warmup;
	int entry;				/* of the suite[] it came from */
};

/* How to boot one kernel of a plan: a GRUB menu entry, or kexec. */
struct plan_side {
	char *label;
	char *grub;			/* grub-reboot ENTRY, or NULL */
	char *kernel, *initrd, *cmdline; /* kexec -l; initrd, cmdline opt. */
};

/* The config's "plan": which kernels alternate, and for how long. */
struct config_plan {
	bool set;
	struct plan_side side[2];	/* base, patch */
	unsigned boots;			/* of each kernel; default 4 */
	double effect;			/* percent; NAN: the published changes */
};

struct config {
	char *path;			/* where it was read from */
	char *database, *label, *scratch, *disk_scratch;
	int cpu;			/* logical PU index, or -1 for auto */
	char *cpus;			/* "all", "node:N" or a list */
	int cpus_node;			/* node:N, else -1 */
	int *cpu_list;			/* the list, in order (OS indexes) */
	int ncpu_list;
	enum place placement;
	double steal_max;		/* percent of a sample's wall time */
	unsigned runs, warmup;
	bool profile;			/* sample the kernel in timed calls */
	uint64_t profile_period;	/* ns of its cpu-clock */
	char *json;			/* the effective config, for the run row */
	struct config_plan plan;
	struct dashboard_cfg dash;	/* target DASHBOARD_NONE: no section */
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
/*
 * rel in the source tree this bench was built in (beside the binary or up
 * to two folders above it), the caller's to free; NULL where there is none
 * (an installed bench).
 */
char *tree_file(const char *rel);
/* Keep only the cases of these workloads (comma list); -1 if unknown. */
int config_only(struct config *cfg, const char *list, struct strbuf *err);

/* Placement with hwloc. */
struct placement {
	int cpu;		/* OS index of a single measuring PU */
	int logical;		/* its hwloc logical index */
	int *cpus;		/* usable PUs (OS indexes), in placement order */
	int ncpus;
	enum place place;
	char *summary;		/* JSON: packages, numa nodes, cores, PUs */
	char shape[128];	/* "2 packages, 2 NUMA nodes, ..." */
	char usable[256];	/* the usable PUs as a list, "0-1" */
	char sources[512];	/* what made it: "cpus all, affinity 1, ..." */
	int nnodes;		/* NUMA nodes of the machine */
};
/*
 * The usable PUs: the config's cpus, intersected with the affinity mask
 * (taskset) and the cgroup cpuset.  Returns 0; -1 for a config error
 * (cpu or cpus names what is not there); -2 when nothing is left, which
 * is a refusal.  err says why.
 */
int placement_init(struct placement *p, const struct config *cfg,
		   struct strbuf *err);
/*
 * The PUs of n workers under the config's placement; a single worker
 * keeps `cpu` (or its automatic choice).  -1 with why added to err when
 * n do not fit.
 */
int placement_workers(const struct placement *p, const struct config *cfg,
		      int n, int *out, struct strbuf *err);
int placement_bind(int os_cpu);
/* Bind the calling thread to the usable PUs outside busy[] (all if none). */
int placement_bind_spare(const struct placement *p, const int *busy, int n);
/* Allocate the calling thread's memory on os_cpu's NUMA node (-1: any). */
int placement_membind(int os_cpu);
int placement_node_of(int os_cpu);
/* The topology as hwloc XML (malloc'd), for the run row. */
char *placement_xml(size_t *len);
void placement_release(struct placement *p);

struct run_opts {
	const char *config_path;
	const char *db_path;
	const char *label;
	const char *only;
	int runs;		/* -1: from config */
	bool quiet;
	bool profile;		/* --profile: as the config's "profile": true */
	bool check_only;	/* `bench check` */
	/*
	 * Called once a run is complete and stored, the runner's lock
	 * released: the front end uploads there.  Its exit code is the run's.
	 */
	int (*after)(const struct config *cfg, const char *db_path,
		     const char *uuid, void *arg);
	void *after_arg;
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

/*
 * A run stored as running whose runner is gone: of this host (hostname as
 * runs store it), and of an earlier boot or of a pid that is dead or
 * started after the run did.  What cannot be told (another host) is not.
 */
bool runner_run_dead(const char *hostname, const char *boot_id, int pid,
		     const char *started_at);

#endif
