/*
 * `bench run` and `bench check`: preflight every case before anything is
 * made, then warm-ups and repetitions, each setup -> run -> verify ->
 * teardown, every sample stored as it is taken.
 */
#include "runner.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "kmsg.h"
#include "eta.h"
#include "meta.h"
#include "noise.h"
#include "reports/stats.h"
#include "workers.h"
#include "schema/db.h"
#include "workloads/params.h"
#include "workloads/sys/sys.h"

#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void say_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say_err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Progress: a live line on a terminal, nothing otherwise. */
static struct {
	bool tty, quiet;
	char head[256];		/* "[3/16] shmem-remove op=... rep 2/6" */
	uint64_t t_start;	/* of the run's measuring part */
	uint64_t reps_done, reps_total;
	uint64_t last_draw;
	struct eta eta;
} P;

static void fmt_eta(double s, char *buf, size_t n)
{
	if (!isfinite(s) || s < 0)
		snprintf(buf, n, "?");
	else if (s < 90)
		snprintf(buf, n, "%.0fs", s);
	else if (s < 5400)
		snprintf(buf, n, "%.0fm%02.0fs", floor(s / 60), fmod(s, 60));
	else
		snprintf(buf, n, "%.0fh%02.0fm", floor(s / 3600),
			 fmod(s / 60, 60));
}

static void draw(const char *extra)
{
	char eta[32];
	double left;

	if (!P.tty || P.quiet)
		return;
	left = eta_left(&P.eta, now_ns());
	if (left < 0)
		left = NAN;
	fmt_eta(left, eta, sizeof(eta));
	fprintf(stderr, "\r\033[K%s%s%s  (about %s left)", P.head,
		extra ? "  " : "", extra ? extra : "", eta);
	fflush(stderr);
	P.last_draw = now_ns();
}

static void undraw(void)
{
	if (P.tty && !P.quiet)
		fprintf(stderr, "\r\033[K");
}

static void on_progress(const char *what, uint64_t done, uint64_t total)
{
	char d[32], t[32], line[160];

	if (!P.tty || P.quiet || now_ns() - P.last_draw < 200000000ull)
		return;
	human_size(done, d, sizeof(d));
	human_size(total, t, sizeof(t));
	snprintf(line, sizeof(line), "%s %s of %s (%.0f%%)", what, d, t,
		 total ? 100.0 * (double)done / (double)total : 0.0);
	draw(line);
}

/* A value with its unit, scaled for people: "1.71 s", "815 ns/folio". */
static void fmt_value(double v, const char *unit, char *buf, size_t n)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "n/a");
	} else if (!strcmp(unit, "ns")) {
		if (v >= 1e9)
			snprintf(buf, n, "%.3g s", v / 1e9);
		else if (v >= 1e6)
			snprintf(buf, n, "%.4g ms", v / 1e6);
		else if (v >= 1e3)
			snprintf(buf, n, "%.4g us", v / 1e3);
		else
			snprintf(buf, n, "%.0f ns", v);
	} else if (fabs(v) >= 100 || v == floor(v)) {
		snprintf(buf, n, "%.0f %s", v, unit);
	} else {
		snprintf(buf, n, "%.3g %s", v, unit);
	}
}

/* Per case: the values of each metric over valid measured samples. */
struct tally {
	double *v[WL_MAX_METRICS];
	size_t n[WL_MAX_METRICS];
	int valid, invalid, noisy;
};

static void tally_add(struct tally *t, const struct workload *w,
		      const struct wl_sample *s, int maxn)
{
	int i;

	if (s->invalid) {
		t->invalid++;
		return;
	}
	t->valid++;
	for (i = 0; w->metrics[i].name; i++) {
		if (!s->m[i].set)
			continue;
		if (!t->v[i])
			t->v[i] = xcalloc((size_t)maxn, sizeof(double));
		if (t->n[i] < (size_t)maxn)
			t->v[i][t->n[i]++] = s->m[i].v;
	}
}

static void tally_release(struct tally *t)
{
	for (int i = 0; i < WL_MAX_METRICS; i++)
		free(t->v[i]);
	memset(t, 0, sizeof(*t));
}

/* "median 1.71 s (min 1.69 s, max 1.80 s), 815 ns/folio" */
static void case_summary(const struct workload *w, const struct tally *t,
			 struct strbuf *sb)
{
	char a[48], b[48], c[48];
	int i, shown = 0;

	for (i = 0; w->metrics[i].name; i++) {
		const struct metric *m = &w->metrics[i];

		if (!t->n[i] || !m->primary)
			continue;
		fmt_value(stats_median(t->v[i], t->n[i]), m->unit, a, sizeof(a));
		fmt_value(stats_min(t->v[i], t->n[i]), m->unit, b, sizeof(b));
		fmt_value(stats_max(t->v[i], t->n[i]), m->unit, c, sizeof(c));
		strbuf_addf(sb, "%s%s median %s (min %s, max %s)",
			    shown++ ? ", " : "", m->name, a, b, c);
	}
	for (i = 0; w->metrics[i].name; i++) {
		const struct metric *m = &w->metrics[i];

		if (!t->n[i] || m->primary || !strchr(m->unit, '/') ||
		    strstr(m->unit, "/s"))
			continue;
		fmt_value(stats_median(t->v[i], t->n[i]), m->unit, a, sizeof(a));
		strbuf_addf(sb, ", %s", a);
	}
	strbuf_addf(sb, " [%d valid", t->valid);
	if (t->invalid)
		strbuf_addf(sb, ", %d invalid", t->invalid);
	if (t->noisy)
		strbuf_addf(sb, ", %d noisy", t->noisy);
	strbuf_addf(sb, "]");
}


static char *verify_json(const struct wl_sample *s, int cpu)
{
	struct strbuf sb = STRBUF_INIT;
	int i;

	strbuf_addf(&sb, "{\"cpu\":%d", cpu);
	for (i = 0; i < s->nnotes; i++) {
		strbuf_addf(&sb, ",");
		strbuf_json_str(&sb, s->notes[i].key);
		if (isfinite(s->notes[i].v))
			strbuf_addf(&sb, ":%.17g", s->notes[i].v);
		else
			strbuf_addf(&sb, ":null");
	}
	if (s->text[0]) {
		strbuf_addf(&sb, ",\"text\":");
		strbuf_json_str(&sb, s->text);
	}
	strbuf_addf(&sb, "}");
	return sb.buf;
}

/* A parallel sample's workers, as the database keeps them. */
struct rep_workers {
	struct workers w;
	struct db_worker *dw;
	char (*why)[256];
	struct strbuf *mj;	/* each worker's metrics as JSON */
	int n;
};

static void rep_workers_release(struct rep_workers *rw)
{
	int i;

	for (i = 0; rw->mj && i < rw->n; i++)
		strbuf_release(&rw->mj[i]);
	free(rw->mj);
	free(rw->dw);
	free(rw->why);
	workers_release(&rw->w);
	memset(rw, 0, sizeof(*rw));
}

static void metrics_json(const struct workload *w, const struct wl_sample *s,
			 struct strbuf *sb)
{
	int i, k = 0;

	strbuf_addf(sb, "{");
	for (i = 0; w->metrics[i].name; i++) {
		if (!s->m[i].set || !isfinite(s->m[i].v))
			continue;
		strbuf_addf(sb, "%s", k++ ? "," : "");
		strbuf_json_str(sb, w->metrics[i].name);
		strbuf_addf(sb, ":%.17g", s->m[i].v);
	}
	strbuf_addf(sb, "}");
}

static int store_sample(struct db *db, int64_t case_id, const struct wl_case *c,
			const struct wl_sample *s, int cpu,
			const struct noise *z, const struct rep_workers *rw)
{
	const struct workload *w = c->wl;
	struct db_value vals[WL_MAX_METRICS];
	struct db_sample_more more = { 0 };
	struct strbuf nj = STRBUF_INIT;
	char *vj = verify_json(s, cpu);
	int i, nv = 0, r;

	for (i = 0; w->metrics[i].name; i++) {
		if (!s->m[i].set && !s->m[i].unsupported)
			continue;
		vals[nv].metric = w->metrics[i].name;
		vals[nv].unit = w->metrics[i].unit;
		vals[nv].better = w->metrics[i].better == LOWER_IS_BETTER ?
				  "lower" : "higher";
		vals[nv].value = s->m[i].v;
		vals[nv].supported = s->m[i].set;
		nv++;
	}
	noise_json(z, &nj);
	more.workers = rw && rw->n ? rw->n : 1;
	more.noise_json = strbuf_str(&nj);
	more.noisy = z->noisy;
	more.w = rw ? rw->dw : NULL;
	more.nw = rw ? rw->n : 0;
	r = db_sample_add_more(db, case_id, c->rep, c->warmup, !s->invalid,
			       s->invalid ? s->reason : NULL, cpu, vj, vals, nv,
			       &more);
	strbuf_release(&nj);
	free(vj);
	return r;
}

struct prepared {
	struct wl_value v[WL_MAX_PARAMS];	/* as preflight left them */
	int nworkers;
	bool processes;
	int *pus;				/* [nworkers] */
	char str[WL_MAX_PARAMS][128];		/* the .str of adapted values */
	char *params_json;	/* what will run, where preflight adapted it */
	enum wl_verdict verdict;
	char msg[512];
	char info[384];
	double slowdown;	/* of its PUs at once (noise_parallel) */
};

/*
 * Keep what preflight left in c as the case that will run: a value it
 * changed gets its canonical string anew (numbers from .u), and the case
 * gets the params JSON of what runs, so that it is stored under those and
 * the config's own params are kept beside them as what was asked.
 */
static int adopt_preflight(struct prepared *pr, const struct plan_case *pc,
			   const struct wl_case *c)
{
	const struct workload *w = pc->wl;
	bool changed = false;
	int i;

	memcpy(pr->v, c->v, sizeof(pr->v));
	for (i = 0; w->params[i].name; i++) {
		const struct param *p = &w->params[i];
		bool num = param_is_number(p->type);

		if (num ? c->v[i].u == pc->v[i].u :
		    c->v[i].str == pc->v[i].str ||
		    (c->v[i].str && !strcmp(c->v[i].str, pc->v[i].str))) {
			pr->v[i] = pc->v[i];
			continue;
		}
		wl_param_str(p, &c->v[i], pr->str[i], sizeof(pr->str[i]));
		pr->v[i].str = pr->str[i];
		changed = true;
	}
	if (!changed)
		return 0;
	pr->params_json = wl_params_json(w, pr->v);
	return pr->params_json ? 0 : -ENOMEM;
}

static void case_init(struct wl_case *c, const struct plan_case *pc,
		      const struct wl_value *v, const struct placement *pl,
		      const struct config *cfg, const char *scratch,
		      const char *disk_scratch, const struct prepared *pr)
{
	memset(c, 0, sizeof(*c));
	c->wl = pc->wl;
	memcpy(c->v, v ? v : pc->v, sizeof(c->v));
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
	c->progress = on_progress;
	wl_params_fill(c);
}

/* A database error, said for people; returns it, for bench/ to map. */
static int db_failed(const char *what, const char *path, int r,
		     const char *err)
{
	switch (r) {
	case DB_BUSY:
		say_err("%s %s: another process holds it locked, still after "
			"%d s (%s)", what, path, DB_BUSY_MS / 1000, err);
		break;
	case DB_FULL:
		say_err("%s %s: the disk is full (%s); what was stored before "
			"is kept", what, path, err);
		break;
	case DB_READONLY:
		say_err("%s %s: it cannot be written (%s)", what, path, err);
		break;
	case DB_CORRUPT:
	case DB_NOT_DB:
		say_err("%s %s: not a foliobench database, or a damaged one "
			"(%s); see sqlite3 %s 'PRAGMA integrity_check'", what,
			path, err, path);
		break;
	case DB_TOO_NEW:
		say_err("%s %s: %s; use a newer foliobench", what, path, err);
		break;
	default:
		say_err("%s %s: %s", what, path, err);
		if (r >= 0)
			r = DB_ERR;
	}
	return r;
}

/* What the journal could not undo, one message a change; how many. */
static int say_undo_failures(const char *head, struct strbuf *note)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	int n = sys_undo_failures(&sb, false);

	if (!sb.buf)
		return n;
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		say_err("%s%s", head, line);
		if (note)
			strbuf_addf(note, "%s%s", note->len ? "; " : "", line);
	}
	strbuf_release(&sb);
	return n;
}

/*
 * Workers of a case and their PUs.  A count that needs more PUs than are
 * usable is skipped with the reason, never oversubscribed.
 */
static enum wl_verdict place_case(const struct plan_case *pc,
				  const struct placement *pl,
				  const struct config *cfg, struct prepared *pr,
				  struct wl_err *e)
{
	struct strbuf why = STRBUF_INIT;
	struct wl_run_params rp;

	wl_run_params_of(pc->wl, pc->v, &rp);
	pr->nworkers = (int)rp.threads;
	pr->processes = rp.mode == WL_MODE_PROCESSES;
	/* a workload with threads of its own (seq-read) shares the PUs */
	if (!pc->wl->parallel && pr->nworkers > pl->ncpus)
		pr->nworkers = pl->ncpus;
	pr->pus = calloc((size_t)pr->nworkers, sizeof(int));
	if (!pr->pus) {
		wl_errf(e, "out of memory");
		return WL_REFUSE;
	}
	if (placement_workers(pl, cfg, pr->nworkers, pr->pus, &why)) {
		wl_errf(e, "threads=%d: %s (%s)", pr->nworkers,
			strbuf_str(&why), pl->sources);
		strbuf_release(&why);
		free(pr->pus);
		pr->pus = NULL;
		return WL_SKIP;
	}
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

struct noise_arg {
	struct noise *z;
	const int *pus;
	int n;
};

static void noise_start(void *arg)
{
	struct noise_arg *a = arg;

	noise_begin(a->z, a->pus, a->n);
}

/*
 * One repetition of a parallel case: its workers run the timed call
 * together; the sample gets the aggregate (combine) and each worker's own
 * result and PU, checked after the timed call.  0, or -1 with e set.
 */
static int rep_parallel(struct wl_case *c, const struct prepared *pr,
			const struct config *cfg, struct wl_sample *s,
			struct noise *z, struct rep_workers *rw, int *cpu,
			struct wl_err *e)
{
	struct noise_arg na = { z, pr->pus, pr->nworkers };
	struct wl_sample *ws;
	uint64_t first = UINT64_MAX, last = 0, latest = 0;
	int64_t busy = -1;	/* the runner's thread ran during a call */
	int i, n = pr->nworkers;

	rw->n = n;
	rw->dw = calloc((size_t)n, sizeof(*rw->dw));
	rw->why = calloc((size_t)n, sizeof(*rw->why));
	rw->mj = calloc((size_t)n, sizeof(*rw->mj));
	ws = calloc((size_t)n, sizeof(*ws));
	if (!rw->dw || !rw->why || !rw->mj || !ws) {
		free(ws);
		return wl_errf(e, "out of memory");
	}
	if (workers_run(&rw->w, c, n, pr->pus, pr->processes, noise_start, &na,
			e)) {
		free(ws);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct worker_res *r = &rw->w.res[i];

		if (r->rc) {
			snprintf(e->msg, sizeof(e->msg), "%s",
				 r->e.msg[0] ? r->e.msg : "a worker failed");
			free(ws);
			return -1;
		}
		ws[i] = r->s;
		if (r->t_begin < first)
			first = r->t_begin;
		if (r->t_begin > latest)
			latest = r->t_begin;
		if (r->t_end > last)
			last = r->t_end;
		if (r->runner_ns > busy)
			busy = r->runner_ns;
	}
	noise_end(z, pr->pus, n, last - first, cfg->steal_max);
	noise_judge_parallel(z, n, pr->slowdown);
	c->wl->combine(c, ws, n, last - first, s);
	s->t_begin = first;
	s->t_end = last;
	wl_note(s, "workers", n);
	wl_note(s, "start_spread_ns", (double)(latest - first));
	wl_note(s, "release_to_start_ns", (double)(first - rw->w.t_release));
	if (busy >= 0)
		wl_note(s, "runner_ran_ns", (double)busy);
	for (i = 0; i < n; i++) {
		struct worker_res *r = &rw->w.res[i];
		struct db_worker *d = &rw->dw[i];

		workers_check(&rw->w, i, rw->why[i], sizeof(rw->why[i]));
		if (!rw->why[i][0] && r->s.invalid)
			snprintf(rw->why[i], sizeof(rw->why[i]), "worker %d: "
				 "%.200s", i, r->s.reason);
		if (rw->why[i][0])
			wl_invalid(s, "%s", rw->why[i]);
		metrics_json(c->wl, &r->s, &rw->mj[i]);
		z->nvcsw += r->nvcsw;
		z->nivcsw += r->nivcsw;
		d->worker = i;
		d->pu = r->pu;
		d->pu_checked = r->pu_after;
		d->node = placement_node_of(r->pu);
		d->start_ns = (int64_t)(r->t_begin - first);
		d->wall_ns = (int64_t)(r->t_end - r->t_begin);
		d->nvcsw = r->nvcsw;
		d->nivcsw = r->nivcsw;
		d->migrations = r->migrations;
		d->valid = !rw->why[i][0];
		d->invalid_reason = rw->why[i][0] ? rw->why[i] : NULL;
		d->metrics_json = strbuf_str(&rw->mj[i]);
	}
	*cpu = rw->w.res[0].pu_after;
	free(ws);
	return 0;
}

/* One repetition of a case the runner's own thread measures. */
static int rep_inline(struct wl_case *c, const struct prepared *pr,
		      const struct config *cfg, struct wl_sample *s,
		      struct noise *z, int *cpu, struct wl_err *e)
{
	struct rusage u0, u1;
	uint64_t t0, t1;
	int r;

	noise_begin(z, pr->pus, pr->nworkers);
	getrusage(RUSAGE_SELF, &u0);
	t0 = now_ns();
	r = c->wl->run(c, s, e);
	t1 = now_ns();
	*cpu = sched_getcpu();
	getrusage(RUSAGE_SELF, &u1);
	if (s->t_begin && s->t_end >= s->t_begin) {
		t0 = s->t_begin;
		t1 = s->t_end;
	}
	z->nvcsw = u1.ru_nvcsw - u0.ru_nvcsw;
	z->nivcsw = u1.ru_nivcsw - u0.ru_nivcsw;
	noise_end(z, pr->pus, pr->nworkers, t1 - t0, cfg->steal_max);
	return r;
}

static int exit_for_signal(void)
{
	return RUNNER_SIGNALED(stop_sig);	/* bench/: 128 + the signal */
}

static void handle_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: long calls stop */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* Print the final table: one row per case and primary metric. */
static void final_table(const struct config *cfg, struct tally *tl,
			const struct prepared *pr)
{
	int i, k;

	printf("\n%-16s %-44s %-8s %12s %12s %12s %s\n", "workload", "case",
	       "metric", "median", "min", "max", "n");
	for (i = 0; i < cfg->ncases; i++) {
		const struct plan_case *pc = &cfg->cases[i];
		const struct workload *w = pc->wl;
		bool any = false;

		for (k = 0; w->metrics[k].name; k++) {
			char a[48], b[48], c[48];
			const struct metric *m = &w->metrics[k];

			if (!m->primary || !tl[i].n[k])
				continue;
			fmt_value(stats_median(tl[i].v[k], tl[i].n[k]), m->unit,
				  a, sizeof(a));
			fmt_value(stats_min(tl[i].v[k], tl[i].n[k]), m->unit,
				  b, sizeof(b));
			fmt_value(stats_max(tl[i].v[k], tl[i].n[k]), m->unit,
				  c, sizeof(c));
			printf("%-16s %-44s %-8s %12s %12s %12s %zu\n",
			       w->name, pc->title, m->name, a, b, c,
			       tl[i].n[k]);
			any = true;
		}
		if (!any)
			printf("%-16s %-44s %s\n", w->name, pc->title,
			       pr[i].verdict != WL_OK ? "skipped" :
			       "no valid sample");
	}
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
static void probe_parallel(const struct config *cfg, struct prepared *pr,
			   bool say)
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

/* The progress line's estimate: each case's reps and its workload's guess. */
static void eta_setup(const struct config *cfg, const struct prepared *pr,
		      const struct placement *pl, const char *scratch,
		      const char *disk_scratch)
{
	int i, j;

	if (eta_init(&P.eta, cfg->ncases))
		return;		/* no estimate: the line says "?" */
	for (i = 0; i < cfg->ncases; i++) {
		const struct plan_case *pc = &cfg->cases[i];
		struct eta_case *ec = &P.eta.c[i];
		struct wl_case c;

		ec->reps = pc->warmup + pc->runs;
		for (j = 0; j < i && cfg->cases[j].wl != pc->wl; j++)
			;
		ec->wl = j;
		if (!pc->wl->estimate_s || pr[i].verdict != WL_OK)
			continue;
		case_init(&c, pc, pr[i].v, pl, cfg, scratch, disk_scratch,
			  &pr[i]);
		ec->prior_s = pc->wl->estimate_s(&c);
	}
}

/*
 * FOLIOBENCH_ETA_LOG=file: append the estimate of the time left given at
 * each case's start and the real time left from then, to check the
 * estimate against.
 */
static void eta_log(const struct config *cfg)
{
	const char *path = getenv("FOLIOBENCH_ETA_LOG");
	const char **names;
	char *buf;
	int i, r;

	if (!path || !*path)
		return;
	names = calloc((size_t)cfg->ncases + 1, sizeof(*names));
	buf = calloc((size_t)cfg->ncases + 1, 512);
	if (!names || !buf)
		goto out;
	for (i = 0; i < cfg->ncases; i++) {
		snprintf(buf + 512 * i, 512, "%s %s", cfg->cases[i].wl->name,
			 cfg->cases[i].title);
		names[i] = buf + 512 * i;
	}
	r = eta_log_write(&P.eta, path, names, now_ns());
	if (r)
		say_err("warning: cannot write the estimates to %s: %s", path,
			strerror(-r));
out:
	free(names);
	free(buf);
}

/*
 * The kernel log lines of the run that show a problem, stored with it and
 * said on stderr: a kernel that warned must not pass unnoticed.
 */
static void store_kmsg(struct db *db, int64_t run_id, struct kmsg_scan *km)
{
	struct db_kwarn *w;
	size_t i;
	int r;

	r = kmsg_end(km);
	if (r && !km->said_err)
		say_err("warning: cannot read the kernel log /dev/kmsg: %s; "
			"this run's kernel warnings are not known",
			strerror(-r));
	km->said_err = r != 0;
	if (r)
		return;		/* runs.kernel_warnings stays NULL */
	if (km->lost)
		say_err("warning: %llu kernel log record%s of this run were "
			"overwritten before they were read",
			(unsigned long long)km->lost, km->lost == 1 ? "" : "s");
	km->lost = 0;
	w = xcalloc(km->n + 1, sizeof(*w));
	for (i = 0; i < km->n; i++) {
		w[i].seq = km->lines[i].seq;
		w[i].at_us = km->lines[i].at_us;
		w[i].prio = km->lines[i].prio;
		w[i].line = km->lines[i].text;
	}
	if (db_kwarn_store(db, run_id, w, km->n))
		say_err("cannot store the run's kernel warnings: %s", db->err);
	free(w);
	for (i = km->said; i < km->n; i++)
		say_err("warning: kernel: [%5llu.%06llu] %s",
			(unsigned long long)(km->lines[i].at_us / 1000000),
			(unsigned long long)(km->lines[i].at_us % 1000000),
			km->lines[i].text);
	km->said = km->n;
}

/* Every end of a run: its kernel log first, then its status. */
static void run_finish(struct db *db, int64_t run_id, struct kmsg_scan *km,
		       const char *status, const char *reason)
{
	store_kmsg(db, run_id, km);
	db_run_end(db, run_id, status, reason);
}

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
	char scratch[4200], disk_scratch[4200];
	int64_t run_id;
	int nfailed;
	bool sys_up, complete;
};

/* A fault after the run's row exists: the run ends failed. */
static int give_up(struct runner *rn, int ret)
{
	run_finish(&rn->db, rn->run_id, &rn->km, "failed",
		   "the runner could not go on");
	return ret;
}

/* Phase 1: the command line over the config, the PUs, root. */
static int settle(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	char why[160];
	int i, r;

	if (o->only && config_only(&rn->cfg, o->only, &rn->err)) {
		say_err("%s", strbuf_str(&rn->err));
		return RUNNER_EUSAGE;
	}
	if (o->runs > 0)
		for (i = 0; i < rn->cfg.ncases; i++)
			rn->cfg.cases[i].runs = (unsigned)o->runs;
	rn->db_path = o->db_path ? o->db_path : rn->cfg.database;
	if (db_path_check(rn->db_path, why, sizeof(why))) {
		struct strbuf q = STRBUF_INIT;

		strbuf_json_str(&q, rn->db_path);
		if (o->db_path)
			say_err("--db %s: %s", q.buf, why);
		else
			say_err("%s: database: %s: %s", rn->cfg_path, q.buf,
				why);
		strbuf_release(&q);
		return o->db_path ? RUNNER_EUSAGE : RUNNER_ECONFIG;
	}
	r = placement_init(&rn->pl, &rn->cfg, &rn->err);
	if (r == -2) {
		say_err("refused: %s", strbuf_str(&rn->err));
		/* check shows the machine even when nothing can run on it */
		if (o->check_only)
			printf("topology: %s; usable PUs none (%s)\n",
			       rn->pl.shape, rn->pl.sources);
		return RUNNER_EREFUSED;
	}
	if (r) {
		say_err("%s: %s", rn->cfg_path, strbuf_str(&rn->err));
		return RUNNER_ECONFIG;
	}
	if (o->check_only && geteuid() != 0)
		printf("topology: %s; usable PUs %s (%s); placement %s\n",
		       rn->pl.shape, rn->pl.usable, rn->pl.sources,
		       place_name(rn->pl.place));
	if (geteuid() != 0) {
		say_err("refused: foliobench needs root (it mounts, makes "
			"cgroups and sets THP knobs); run it with sudo");
		return RUNNER_EREFUSED;
	}
	return RUNNER_OK;
}

/* When pid started, as a wall-clock second; 0 when it cannot be told. */
static time_t proc_started(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ticks = 0, btime = 0;
	long hz = sysconf(_SC_CLK_TCK);
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (hz <= 0 || read_file_str(path, buf, sizeof(buf)))
		return 0;
	/* field 22, starttime: clock ticks after boot; comm may hold spaces */
	p = strrchr(buf, ')');
	for (i = 3; i <= 22 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p, " %llu", &ticks) != 1)
		return 0;
	f = fopen("/proc/stat", "re");
	if (!f)
		return 0;
	while (fgets(buf, sizeof(buf), f) &&
	       sscanf(buf, "btime %llu", &btime) != 1)
		;
	fclose(f);
	return btime ? (time_t)(btime + ticks / (unsigned long long)hz) : 0;
}

/*
 * Is the runner that began a run at started_at (pid, this boot) alive?  A
 * pid taken again since is a process that started after the run did.
 * What cannot be told counts as alive: a live run is never marked dead.
 */
static bool runner_alive(int pid, const char *started_at)
{
	struct tm tm = { 0 };
	time_t born;

	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH))
		return false;
	born = proc_started(pid);
	if (!born || !strptime(started_at, "%Y-%m-%dT%H:%M:%SZ", &tm))
		return true;
	/* btime and started_at are whole seconds */
	return born <= timegm(&tm) + 2;
}

/* The runs of this host that a dead runner left `running` end aborted. */
static int mark_dead_runs(struct db *db, const char *path,
			  const struct meta *meta)
{
	int n = 0, r = db_mend_running(db, meta->hostname, meta->boot_id,
				       runner_alive, &n);

	if (r)
		return db_failed("cannot write", path, r, db->err);
	if (n)
		say_err("marked %d run%s that died as aborted", n,
			n == 1 ? "" : "s");
	return 0;
}

/*
 * `bench check` mends a dead run's changes to the system (sys_init) and,
 * as `bench run` would, its row in the database, where there is one (it
 * creates none).  A database it cannot write is the run's problem, not
 * the preflight's: a warning.
 */
static void check_dead_runs(struct runner *rn)
{
	struct db db;
	int r;

	if (access(rn->db_path, F_OK))
		return;
	meta_collect(&rn->meta);
	r = db_open(&db, rn->db_path, false);
	if (r)
		db_failed("warning: cannot mark dead runs aborted in",
			  rn->db_path, r, db.err);
	else
		mark_dead_runs(&db, rn->db_path, &rn->meta);
	db_close(&db);
}

/* Phase 2: the machine's lock and journal; what an earlier run left. */
static int take_machine(struct runner *rn)
{
	char mended[2048];
	pid_t holder = 0;
	int r;

	handle_signals();
	r = sys_init(mended, sizeof(mended), &holder);
	if (r == -EBUSY) {
		say_err("another foliobench runner (pid %d) is running on this "
			"machine; wait for it to finish", (int)holder);
		return RUNNER_ELOCKED;
	}
	if (r) {
		say_err("cannot take the runner lock in %s: %s",
			sys_state_dir(), strerror(-r));
		return RUNNER_ESTATE;
	}
	rn->sys_up = true;
	if (mended[0])
		say_err("mended what an earlier run left: %s", mended);
	say_undo_failures("cannot undo what an earlier run left: ", NULL);
	if (rn->o->check_only)
		check_dead_runs(rn);
	return RUNNER_OK;
}

/* Phase 3: preflight every case before anything is made. */
static int preflight_all(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct config *cfg = &rn->cfg;
	struct prepared *pr;
	int i, nrefused = 0, nok = 0;

	snprintf(rn->scratch, sizeof(rn->scratch), "%s/foliobench.%d",
		 cfg->scratch, (int)getpid());
	snprintf(rn->disk_scratch, sizeof(rn->disk_scratch),
		 "%s/foliobench.%d", cfg->disk_scratch, (int)getpid());
	pr = rn->pr = xcalloc((size_t)cfg->ncases, sizeof(*pr));
	rn->tl = xcalloc((size_t)cfg->ncases, sizeof(*rn->tl));
	for (i = 0; i < cfg->ncases; i++) {
		struct wl_case c;
		struct wl_err e = { { 0 } };
		const struct plan_case *pc = &cfg->cases[i];

		pr[i].verdict = place_case(pc, &rn->pl, cfg, &pr[i], &e);
		case_init(&c, pc, NULL, &rn->pl, cfg, rn->scratch,
			  rn->disk_scratch, &pr[i]);
		if (pr[i].verdict == WL_OK)
			pr[i].verdict = wl_preflight(&c, &e);
		/* a preflight may adapt the case (a smaller size): keep it */
		if (adopt_preflight(&pr[i], pc, &c))
			return RUNNER_EINTERNAL;
		snprintf(pr[i].msg, sizeof(pr[i].msg), "%s", e.msg);
		snprintf(pr[i].info, sizeof(pr[i].info), "%s", c.info);
		if (pr[i].verdict == WL_REFUSE) {
			say_err("refused: %s %s: %s", pc->wl->name, pc->title,
				e.msg);
			nrefused++;
		}
		nok += pr[i].verdict == WL_OK;
		if (o->check_only)
			printf("%-6s %s %s%s%s%s%s\n",
			       pr[i].verdict == WL_OK ? "ok" :
			       pr[i].verdict == WL_SKIP ? "skip" : "refuse",
			       pc->wl->name, pc->title,
			       pr[i].verdict != WL_OK ? ": " : "",
			       pr[i].verdict != WL_OK ? e.msg : "",
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



/* Phase 4: the database, the run's row and facts, the scratch dirs. */
static int begin_run(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct meta *meta = &rn->meta;
	struct db_run row = { 0 };
	struct statfs sf;
	size_t len = 0;
	char *xml;
	int r;

	r = db_open(&rn->db, rn->db_path, true);
	if (r)
		return db_failed("cannot open database", rn->db_path, r,
				 rn->db.err);
	if (!o->db_path && !statfs(rn->db_path, &sf) &&
	    sf.f_type == TMPFS_MAGIC)
		say_err("warning: database %s is on tmpfs: it is lost at "
			"reboot", rn->db_path);
	meta_collect(meta);
	r = mark_dead_runs(&rn->db, rn->db_path, meta);
	if (r)
		return r;
	snprintf(row.uuid, sizeof(row.uuid), "%s", meta->uuid);
	row.label = o->label ? o->label : rn->cfg.label ? rn->cfg.label :
		    meta->label;
	row.kernel_release = meta->release;
	row.kernel_version = meta->version;
	row.boot_id = meta->boot_id;
	row.hostname = meta->hostname;
	row.cpu_model = meta->cpu_model;
	row.cmdline = meta->cmdline;
	row.thp = meta->thp;
	row.tmpfs = meta->tmpfs;
	row.topology = rn->pl.summary;
	row.tool_version = rn->version;
	row.config = rn->cfg.json;
	row.virt = meta->virt;
	row.vcpus = meta->vcpus;
	row.mem_bytes = meta->mem_bytes;
	row.pid = (int)getpid();
	kmsg_begin(&rn->km);
	r = db_run_begin(&rn->db, &row, &rn->run_id);
	if (r)
		return db_failed("cannot record the run in", rn->db_path, r,
				 rn->db.err);
	xml = placement_xml(&len);
	if (xml && db_run_topology(&rn->db, rn->run_id, rn->pl.shape, xml,
				   len))
		say_err("warning: cannot store the topology: %s", rn->db.err);
	free(xml);
	if (!o->quiet)
		printf("run %s, label %s, kernel %s, boot %.8s, CPU %d\n",
		       meta->uuid, row.label, meta->release, meta->boot_id,
		       rn->pl.cpu);
	if (sys_scratch(rn->cfg.scratch, rn->scratch, sizeof(rn->scratch)) ||
	    sys_scratch(rn->cfg.disk_scratch, rn->disk_scratch,
			sizeof(rn->disk_scratch))) {
		say_err("cannot make scratch directory %s: %s", rn->scratch,
			strerror(errno));
		return give_up(rn, RUNNER_ESCRATCH);
	}
	return RUNNER_OK;
}

/*
 * One repetition of case i: setup, the timed call, verify, teardown, the
 * sample stored.  Returns RUNNER_OK to go on, RUNNER_DONE when the case
 * stops here (a signal, or a failure: *fail points into e), or the code
 * of a fault the run cannot go on after.
 */
static int one_rep(struct runner *rn, int i, unsigned rep, int64_t case_id,
		   struct wl_err *e, const char **fail)
{
	const struct plan_case *pc = &rn->cfg.cases[i];
	const struct prepared *pr = &rn->pr[i];
	struct wl_case c;
	struct wl_sample s;
	struct noise z;
	struct rep_workers rw = { 0 };
	int cpu = -1, r;

	memset(&s, 0, sizeof(s));
	memset(&z, 0, sizeof(z));
	case_init(&c, pc, pr->v, &rn->pl, &rn->cfg, rn->scratch,
		  rn->disk_scratch, pr);
	c.rep = (int)rep;
	c.warmup = rep < pc->warmup;
	snprintf(P.head, sizeof(P.head), "[%d/%d] %s %s  %s %u/%u", i + 1,
		 rn->cfg.ncases, pc->wl->name, pc->title,
		 c.warmup ? "warm-up" : "rep",
		 c.warmup ? rep + 1 : rep - pc->warmup + 1,
		 c.warmup ? pc->warmup : pc->runs);
	eta_rep_begin(&P.eta, i, now_ns());
	draw(NULL);
	r = pc->wl->setup ? pc->wl->setup(&c, e) : 0;
	if (!r && !stop_sig)
		r = pc->wl->parallel ?
		    rep_parallel(&c, pr, &rn->cfg, &s, &z, &rw, &cpu, e) :
		    rep_inline(&c, pr, &rn->cfg, &s, &z, &cpu, e);
	if (!r && !stop_sig && pc->wl->verify)
		r = pc->wl->verify(&c, &s, e);
	if (pc->wl->teardown)
		pc->wl->teardown(&c);
	if (stop_sig || r) {
		rep_workers_release(&rw);
		if (r && !stop_sig)
			*fail = e->msg[0] ? e->msg : "failed";
		return RUNNER_DONE;
	}
	if (!pc->wl->parallel && cpu != c.cpu)
		wl_invalid(&s, "ran on CPU %d, not on the pinned CPU %d", cpu,
			   c.cpu);
	r = store_sample(&rn->db, case_id, &c, &s, cpu, &z, &rw);
	rep_workers_release(&rw);
	if (r) {
		undraw();
		return give_up(rn, db_failed("cannot store a sample in",
					     rn->db_path, r, rn->db.err));
	}
	if (!c.warmup) {
		tally_add(&rn->tl[i], pc->wl, &s, (int)pc->runs);
		rn->tl[i].noisy += z.noisy;
	}
	if (s.invalid && !rn->o->quiet) {
		undraw();
		printf("%s %s: rep %u invalid: %s\n", pc->wl->name, pc->title,
		       rep, s.reason);
	}
	P.reps_done++;
	eta_rep_end(&P.eta, i, now_ns());
	return RUNNER_OK;
}

/* Phase 5, once a case: its row, its warm-ups and repetitions, its line. */
static int run_case(struct runner *rn, int i)
{
	const struct plan_case *pc = &rn->cfg.cases[i];
	const struct prepared *pr = &rn->pr[i];
	unsigned rep, nreps = pc->warmup + pc->runs;
	const char *fail = NULL;
	struct wl_err e = { { 0 } };
	int64_t case_id;
	int r;

	r = db_case_add(&rn->db, rn->run_id, i, pc->wl->name,
			pr->params_json ? pr->params_json : pc->params_json,
			pr->params_json ? pc->params_json : NULL, &case_id);
	if (r)
		return give_up(rn, db_failed("cannot record a case in",
					     rn->db_path, r, rn->db.err));
	/* skipped: the workload's reason, or a refusal of this machine's */
	if (pr->verdict != WL_OK) {
		db_case_status(&rn->db, case_id, "skipped", pr->msg,
			       pr->info[0] ? pr->info : NULL);
		P.reps_total -= nreps;
		eta_case_drop(&P.eta, i);
		if (!rn->o->quiet)
			printf("%s %s: skipped: %s\n", pc->wl->name, pc->title,
			       pr->msg);
		return RUNNER_OK;
	}
	/* the runner's own thread: off the workers' PUs if it can */
	if (pc->wl->parallel ?
	    placement_bind_spare(&rn->pl, pr->pus, pr->nworkers) :
	    placement_bind(pr->pus[0]))
		say_err("warning: cannot bind to CPU %d; samples will say "
			"where they ran", pr->pus[0]);
	if (pr->info[0] && !rn->o->quiet) {
		undraw();
		printf("%s %s: %s\n", pc->wl->name, pc->title, pr->info);
	}
	for (rep = 0; rep < nreps && !stop_sig; rep++) {
		r = one_rep(rn, i, rep, case_id, &e, &fail);
		if (r == RUNNER_DONE)
			break;
		if (r)
			return r;
	}
	undraw();
	if (stop_sig)
		return RUNNER_OK;
	if (fail) {
		rn->nfailed++;
		say_err("%s %s: %s", pc->wl->name, pc->title, fail);
		db_case_status(&rn->db, case_id, "failed", fail, NULL);
		P.reps_total -= nreps - rep;
		eta_case_drop(&P.eta, i);
		return RUNNER_OK;
	}
	db_case_status(&rn->db, case_id, "done", NULL,
		       pr->info[0] ? pr->info : NULL);
	if (!rn->o->quiet) {
		struct strbuf sb = STRBUF_INIT;

		case_summary(pc->wl, &rn->tl[i], &sb);
		printf("%s %s: %s\n", pc->wl->name, pc->title, strbuf_str(&sb));
		fflush(stdout);
		strbuf_release(&sb);
	}
	return RUNNER_OK;
}

/* Phase 5: every case, until the last or a signal. */
static int run_cases(struct runner *rn)
{
	int i, r;

	probe_parallel(&rn->cfg, rn->pr, false);
	P.t_start = now_ns();
	for (i = 0; i < rn->cfg.ncases; i++)
		P.reps_total += rn->cfg.cases[i].warmup +
				rn->cfg.cases[i].runs;
	eta_setup(&rn->cfg, rn->pr, &rn->pl, rn->scratch, rn->disk_scratch);
	for (i = 0; i < rn->cfg.ncases && !stop_sig; i++) {
		r = run_case(rn, i);
		if (r)
			return r;
	}
	undraw();
	return RUNNER_OK;
}

/* Phase 6: the summary, the kernel's log, the run's status. */
static int end_run(struct runner *rn)
{
	int r;

	if (stop_sig) {
		say_err("interrupted by %s: run %s marked aborted",
			strsignal(stop_sig), rn->meta.uuid);
		run_finish(&rn->db, rn->run_id, &rn->km, "aborted",
			   strsignal(stop_sig));
		return exit_for_signal();
	}
	final_table(&rn->cfg, rn->tl, rn->pr);
	eta_log(&rn->cfg);
	store_kmsg(&rn->db, rn->run_id, &rn->km);
	if (rn->nfailed) {
		char why[64];

		snprintf(why, sizeof(why), "%d case%s failed", rn->nfailed,
			 rn->nfailed == 1 ? "" : "s");
		db_run_end(&rn->db, rn->run_id, "failed", why);
		return RUNNER_EFAILED;
	}
	r = db_run_complete(&rn->db, rn->run_id,
			    dashboard_target_name(rn->cfg.dash.target));
	if (r)
		return db_failed("cannot mark the run complete in",
				 rn->db_path, r, rn->db.err);
	rn->complete = true;
	return RUNNER_OK;
}

/*
 * Last, whatever came before: undo what the run changed (what cannot be
 * undone stays in the journal and fails the run), a late signal, the lock
 * released, then bench/'s hook.
 */
static int finish(struct runner *rn, int ret)
{
	const struct run_opts *o = rn->o;
	int i;

	undraw();
	if (rn->sys_up && sys_undo_all()) {
		struct strbuf note = STRBUF_INIT;

		/* kept in the journal: the next start tries again */
		say_undo_failures("cannot undo: ", &note);
		say_err("the journal in %s keeps what is left; the next `bench "
			"run` or `bench check` tries again", sys_state_dir());
		if (rn->run_id >= 0 && note.len)
			db_run_note(&rn->db, rn->run_id, "could not undo: %s",
				    note.buf);
		strbuf_release(&note);
		if (ret == RUNNER_OK)
			ret = RUNNER_EFAILED;
	}
	if (rn->sys_up)
		sys_fini();	/* keeps the journal while it holds anything */
	if (stop_sig && ret != exit_for_signal()) {
		if (rn->run_id >= 0)
			run_finish(&rn->db, rn->run_id, &rn->km, "aborted",
				   strsignal(stop_sig));
		ret = exit_for_signal();
	}
	kmsg_release(&rn->km);
	db_close(&rn->db);
	/* the lock is released: an upload may take its time */
	/* bench/'s hook: it returns an exit code, passed on as it is */
	if (rn->complete && ret == RUNNER_OK && o->after)
		ret = o->after(&rn->cfg, rn->db_path, rn->meta.uuid,
			       o->after_arg);
	meta_release(&rn->meta);
	for (i = 0; rn->tl && i < rn->cfg.ncases; i++)
		tally_release(&rn->tl[i]);
	for (i = 0; rn->pr && i < rn->cfg.ncases; i++) {
		free(rn->pr[i].pus);
		free(rn->pr[i].params_json);
	}
	free(rn->tl);
	free(rn->pr);
	placement_release(&rn->pl);
	eta_release(&P.eta);
	config_release(&rn->cfg);
	strbuf_release(&rn->err);
	return ret;
}

int runner_main(const struct run_opts *o, const char *version)
{
	struct runner rn = {
		.o = o,
		.version = version,
		.cfg_path = o->config_path ? o->config_path :
			    config_default_path(),
		.err = STRBUF_INIT,
		.km = KMSG_SCAN_INIT,
		.run_id = -1,
	};
	int ret;

	P.tty = isatty(STDERR_FILENO);
	P.quiet = o->quiet;
	if (config_load(&rn.cfg, rn.cfg_path, &rn.err)) {
		say_err("%s", strbuf_str(&rn.err));
		strbuf_release(&rn.err);
		return RUNNER_ECONFIG;
	}
	ret = settle(&rn);
	if (!ret)
		ret = take_machine(&rn);
	if (!ret)
		ret = preflight_all(&rn);
	if (!ret)
		ret = begin_run(&rn);
	if (!ret)
		ret = run_cases(&rn);
	if (!ret)
		ret = end_run(&rn);
	if (ret == RUNNER_DONE)
		ret = RUNNER_OK;
	return finish(&rn, ret);
}
