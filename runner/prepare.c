/*
 * Each case made ready before anything is made: its workers placed on
 * PUs, its preflight asked and what it adapted kept, the PUs of parallel
 * cases probed for oversubscription; `bench check` says all of it.
 */
#include "run_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noise.h"

void case_init(struct wl_case *c, const struct plan_case *pc,
	       const struct placement *pl, const struct config *cfg,
	       const char *scratch, const char *disk_scratch,
	       const struct prepared *pr)
{
	memset(c, 0, sizeof(*c));
	c->wl = pc->wl;
	c->ps = pr->ps;
	c->scratch = scratch;
	c->disk_scratch = disk_scratch;
	c->scratch_base = cfg->scratch;
	c->disk_scratch_base = cfg->disk_scratch;
	c->cpu = pr->pus ? pr->pus[0] : pl->cpu;
	/* extra threads of a workload go where the placement says */
	c->cpus = pr->pus ? pr->pus : pl->cpus;
	c->ncpus = pr->pus ? pr->nworkers : pl->ncpus;
	c->nworkers = pr->pus ? pr->nworkers : 1;
	c->worker_cpus = c->cpus;
	c->setup_cpus = pl->cpus;
	c->nsetup_cpus = pl->ncpus;
	c->pin_thread = placement_bind;
	c->bind_memory = placement_membind;
	c->stop = &stop_sig;
	c->progress = progress_on;
}

/*
 * Workers of a case and their PUs.  A count that needs more PUs than are
 * usable is skipped with the reason (in pr->err), never oversubscribed.
 */
static enum wl_verdict place_case(const struct plan_case *pc,
				  const struct placement *pl,
				  const struct config *cfg, struct prepared *pr)
{
	pr->nworkers = (int)pc->ps.run.threads;
	pr->processes = pc->ps.run.mode == WL_MODE_PROCESSES;
	/* a workload with threads of its own (seq-read) shares the PUs */
	if (!pc->wl->parallel && pr->nworkers > pl->ncpus)
		pr->nworkers = pl->ncpus;
	pr->pus = calloc((size_t)pr->nworkers, sizeof(int));
	if (!pr->pus) {
		err_setf(&pr->err, "out of memory");
		return WL_REFUSE;
	}
	/* placement says why after the count; kept only when it refuses */
	strbuf_addf(&pr->err, "threads=%d: ", pr->nworkers);
	if (placement_workers(pl, cfg, pr->nworkers, pr->pus, &pr->err)) {
		strbuf_addf(&pr->err, " (%s)", pl->sources);
		free(pr->pus);
		pr->pus = NULL;
		return WL_SKIP;
	}
	strbuf_reset(&pr->err);
	return WL_OK;
}

static void pus_str(const int *pus, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 i ? "," : "", pus[i]);
}

/* The same PUs as an earlier case's, whose slowdown is known: its index. */
static int same_pus(const struct prepared *pr, int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (pr[k].pus && pr[k].nworkers == pr[i].nworkers &&
		    !memcmp(pr[k].pus, pr[i].pus,
			    (size_t)pr[i].nworkers * sizeof(int)))
			return k;
	return -1;
}

/*
 * Steal does not show vCPUs that share fewer host CPUs (TCG, a host that
 * does not report it): each worker count's PUs run a fixed loop at once
 * before the cases, and the samples of a count whose PUs are
 * oversubscribed are flagged noisy with the reason.  With check, said.
 */
void probe_parallel(const struct config *cfg, struct prepared *pr, bool say)
{
	char what[200];
	int i, k;

	for (i = 0; i < cfg->ncases && !stop_sig; i++) {
		/* workers of their own (not seq-read's threads) */
		if (!pr[i].pus || pr[i].nworkers < 2 ||
		    pr[i].verdict != WL_OK || !cfg->cases[i].wl->parallel)
			continue;
		k = same_pus(pr, i);
		if (k >= 0 && pr[k].slowdown > 0) {
			pr[i].slowdown = pr[k].slowdown;
			continue;
		}
		pr[i].slowdown = noise_parallel(pr[i].pus, pr[i].nworkers);
		if (pr[i].slowdown <= NOISE_SLOWDOWN_MAX)
			continue;
		snprintf(what, sizeof(what), "%d workers' PUs are "
			 "oversubscribed: a fixed loop on all at once ran "
			 "%.1fx slower than on one alone (about %.1f CPUs' "
			 "worth)", pr[i].nworkers, pr[i].slowdown,
			 pr[i].nworkers / pr[i].slowdown);
		if (say)
			printf("noise: %s\n", what);
		else
			say_err("warning: %s; their samples are flagged noisy",
				what);
	}
}

/*
 * `bench check`: the topology, the PUs each worker count would use, and
 * why numbers taken now may be noisy.
 */
static void check_topology(const struct config *cfg,
			   const struct placement *pl,
			   struct prepared *pr)
{
	struct strbuf why = STRBUF_INIT;
	char list[512];
	int i, k;

	printf("topology: %s; usable PUs %s (%s); placement %s\n",
	       pl->shape, pl->usable, pl->sources, place_name(pl->place));
	for (i = 0; i < cfg->ncases; i++) {
		bool seen = false;

		if (!pr[i].pus)
			continue;
		for (k = 0; k < i && !seen; k++)
			seen = pr[k].pus && pr[k].nworkers == pr[i].nworkers;
		if (seen)
			continue;
		pus_str(pr[i].pus, pr[i].nworkers, list, sizeof(list));
		printf("%d worker%s: PU%s %s\n", pr[i].nworkers,
		       pr[i].nworkers == 1 ? "" : "s",
		       pr[i].nworkers == 1 ? "" : "s", list);
	}
	fflush(stdout);
	probe_parallel(cfg, pr, true);
	noise_now(pl->cpus, pl->ncpus, &why);
	if (!why.len)
		printf("noise: nothing seen in the last second\n");
	for (const char *l = strbuf_str(&why); *l; l += strcspn(l, "\n") + 1)
		printf("noise: %.*s\n", (int)strcspn(l, "\n"), l);
	strbuf_release(&why);
}

/* Phase 3: preflight every case before anything is made. */
int preflight_all(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct config *cfg = &rn->cfg;
	struct prepared *pr;
	int i, nrefused = 0, nok = 0;

	rn->scratch = xstrfmt("%s/foliobench.%d", cfg->scratch,
			      (int)getpid());
	rn->disk_scratch = xstrfmt("%s/foliobench.%d", cfg->disk_scratch,
				   (int)getpid());
	pr = rn->pr = xcalloc((size_t)cfg->ncases, sizeof(*pr));
	rn->tl = xcalloc((size_t)cfg->ncases, sizeof(*rn->tl));
	for (i = 0; i < cfg->ncases; i++) {
		struct wl_case c;
		const struct plan_case *pc = &cfg->cases[i];

		pr[i].verdict = place_case(pc, &rn->pl, cfg, &pr[i]);
		pr[i].ps = pc->ps;
		case_init(&c, pc, &rn->pl, cfg, rn->scratch, rn->disk_scratch,
			  &pr[i]);
		if (pr[i].verdict == WL_OK && pc->wl->preflight)
			pr[i].verdict = pc->wl->preflight(&c, &pr[i].err);
		/* a preflight may adapt the case (a smaller size): it runs */
		pr[i].ps = c.ps;
		snprintf(pr[i].info, sizeof(pr[i].info), "%s", c.info);
		if (pr[i].verdict == WL_REFUSE) {
			say_err("refused: %s %s: %s", pc->wl->name, pc->title,
				strbuf_str(&pr[i].err));
			nrefused++;
		}
		nok += pr[i].verdict == WL_OK;
		if (o->check_only)
			printf("%-6s %s %s%s%s%s%s\n",
			       pr[i].verdict == WL_OK ? "ok" :
			       pr[i].verdict == WL_SKIP ? "skip" : "refuse",
			       pc->wl->name, pc->title,
			       pr[i].verdict != WL_OK ? ": " : "",
			       pr[i].verdict != WL_OK ?
			       strbuf_str(&pr[i].err) : "",
			       c.info[0] ? "; " : "", c.info);
	}
	/*
	 * A case this machine cannot hold is skipped with its reason and the
	 * others run; only when none is left to run is the run refused (69),
	 * with nothing made.
	 */
	if (nrefused && nok)
		say_err("%s the %d case%s that fit%s; the %d refused %s "
			"skipped", o->check_only ? "would run" : "running",
			nok, nok == 1 ? "" : "s", nok == 1 ? "s" : "",
			nrefused, o->check_only ? "would be" :
			"are recorded as");
	else if (nrefused && cfg->ncases > 1)
		say_err("refused: no case fits this machine; nothing %s",
			o->check_only ? "would run" : "was run");
	if (o->check_only) {
		printf("%d cases: runs %u per boot after %u warm-up; database "
		       "%s; measuring on CPU %d\n", cfg->ncases, cfg->runs,
		       cfg->warmup, rn->db_path, rn->pl.cpu);
		check_topology(cfg, &rn->pl, pr);
		return nrefused && !nok ? RUNNER_EREFUSED : RUNNER_DONE;
	}
	if (nrefused && !nok)
		return RUNNER_EREFUSED;
	return RUNNER_OK;
}
