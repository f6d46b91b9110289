/*
 * One repetition of a case: setup, the timed call (on the runner's own
 * thread, or on parallel workers), verify, teardown, the sample stored.
 */
#include "run_priv.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "noise.h"
#include "workers.h"

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
	struct strbuf *why;	/* each worker's invalid reason */
	struct strbuf *mj;	/* each worker's metrics as JSON */
	int n;
};

static void rep_workers_release(struct rep_workers *rw)
{
	int i;

	for (i = 0; rw->mj && i < rw->n; i++)
		strbuf_release(&rw->mj[i]);
	for (i = 0; rw->why && i < rw->n; i++)
		strbuf_release(&rw->why[i]);
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

/* A profiled call's stacks and the case's profile, for the sample's row. */
static void more_profile(const struct profile *p, const struct profile_call *pc,
			 struct db_sample_more *more, struct strbuf *pj)
{
	struct db_stack *st = xcalloc(pc->n + 1, sizeof(*st));
	size_t i;

	for (i = 0; i < pc->n; i++) {
		st[i].stack = pc->st[i].stack;
		st[i].count = pc->st[i].count;
	}
	profile_json(p, pj);
	more->profiled = true;
	more->stacks = st;
	more->nstacks = pc->n;
	more->profile_json = strbuf_str(pj);
}

static int store_sample(struct db *db, int64_t case_id, const struct wl_case *c,
			const struct wl_sample *s, int cpu,
			const struct noise *z, const struct rep_workers *rw,
			const struct profile *p, const struct profile_call *pc)
{
	const struct workload *w = c->wl;
	struct db_value vals[WL_MAX_METRICS];
	struct db_sample_more more = { 0 };
	struct strbuf nj = STRBUF_INIT, pj = STRBUF_INIT;
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
	if (p)
		more_profile(p, pc, &more, &pj);
	r = db_sample_add_more(db, case_id, c->rep, c->warmup, !s->invalid,
			       s->invalid ? s->reason : NULL, cpu, vj, vals, nv,
			       &more);
	free((void *)more.stacks);
	strbuf_release(&pj);
	strbuf_release(&nj);
	free(vj);
	return r;
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

/* When the workers' calls ran, and what ran beside them. */
struct span {
	uint64_t first, latest, last;	/* starts, the last end */
	int64_t busy;	/* the runner's thread ran during a call */
	int64_t wait;	/* the workers' on a run queue; -1 unknown */
};

/* The workers run their calls, each with its profile's fd if profiled. */
static int start_workers(struct wl_case *c, const struct prepared *pr,
			 struct noise_arg *na, struct rep_workers *rw,
			 struct profile *p, struct strbuf *err)
{
	int *pfd = NULL;
	int i, r, n = pr->nworkers;

	if (p) {
		pfd = xcalloc((size_t)n, sizeof(*pfd));
		for (i = 0; i < n; i++)
			pfd[i] = profile_fd(p, i);
	}
	r = workers_run(&rw->w, c, n, pr->pus, pr->processes, noise_start, na,
			pfd, err);
	free(pfd);
	return r;
}

/*
 * Each worker's sample into ws and its times into sp, its profile taken;
 * -1 with the first failed worker's own message.
 */
static int gather_workers(const struct prepared *pr, struct rep_workers *rw,
			  struct wl_sample *ws, struct span *sp,
			  struct profile *p, struct profile_call *pc,
			  struct strbuf *err)
{
	int i;

	for (i = 0; i < pr->nworkers; i++) {
		struct worker_res *r = &rw->w.res[i];

		if (r->rc)
			return err_setf(err, "%s",
					r->err[0] ? r->err : "a worker failed");
		ws[i] = r->s;
		if (r->t_begin < sp->first)
			sp->first = r->t_begin;
		if (r->t_begin > sp->latest)
			sp->latest = r->t_begin;
		if (r->t_end > sp->last)
			sp->last = r->t_end;
		if (p)
			profile_collect(p, i, r->t_begin, r->t_end,
					pr->processes ? r->tid : getpid(), pc);
		if (r->runner_ns > sp->busy)
			sp->busy = r->runner_ns;
		sp->wait = sp->wait < 0 || r->runq_wait_ns < 0 ? -1 :
			   sp->wait + r->runq_wait_ns;
	}
	return 0;
}

/* Worker i's row: checked, its metrics, its PU and times, its switches. */
static void record_worker(const struct wl_case *c, struct rep_workers *rw,
			  int i, uint64_t first, struct wl_sample *s,
			  struct noise *z)
{
	struct worker_res *r = &rw->w.res[i];
	struct db_worker *d = &rw->dw[i];

	workers_check(&rw->w, i, &rw->why[i]);
	if (!rw->why[i].len && r->s.invalid)
		strbuf_addf(&rw->why[i], "worker %d: %.200s", i, r->s.reason);
	if (rw->why[i].len)
		wl_invalid(s, "%s", rw->why[i].buf);
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
	d->valid = !rw->why[i].len;
	d->invalid_reason = rw->why[i].len ? rw->why[i].buf : NULL;
	d->metrics_json = strbuf_str(&rw->mj[i]);
}

/*
 * One repetition of a parallel case: its workers run the timed call
 * together; the sample gets the aggregate (combine) and each worker's own
 * result and PU, checked after the timed call.  0, or -1 with err set.
 */
static int rep_parallel(struct wl_case *c, const struct prepared *pr,
			const struct config *cfg, struct wl_sample *s,
			struct noise *z, struct rep_workers *rw, int *cpu,
			struct profile *p, struct profile_call *pc,
			struct strbuf *err)
{
	struct noise_arg na = { z, pr->pus, pr->nworkers };
	struct span sp = { UINT64_MAX, 0, 0, -1, 0 };
	struct wl_sample *ws;
	int i, n = pr->nworkers;

	rw->n = n;
	rw->dw = calloc((size_t)n, sizeof(*rw->dw));
	rw->why = calloc((size_t)n, sizeof(*rw->why));
	rw->mj = calloc((size_t)n, sizeof(*rw->mj));
	ws = calloc((size_t)n, sizeof(*ws));
	if (!rw->dw || !rw->why || !rw->mj || !ws) {
		free(ws);
		return err_setf(err, "out of memory");
	}
	if (start_workers(c, pr, &na, rw, p, err) ||
	    gather_workers(pr, rw, ws, &sp, p, pc, err)) {
		free(ws);
		return -1;
	}
	noise_end(z, pr->pus, n, sp.last - sp.first, cfg->steal_max);
	noise_judge_parallel(z, n, pr->slowdown);
	c->wl->combine(c, ws, n, sp.last - sp.first, s);
	s->t_begin = sp.first;
	s->t_end = sp.last;
	wl_note(s, "workers", n);
	wl_note(s, "start_spread_ns", (double)(sp.latest - sp.first));
	wl_note(s, "release_to_start_ns",
		(double)(sp.first - rw->w.t_release));
	if (sp.busy >= 0)
		wl_note(s, "runner_ran_ns", (double)sp.busy);
	for (i = 0; i < n; i++)
		record_worker(c, rw, i, sp.first, s, z);
	noise_judge_wait(z, n, sp.last - sp.first, sp.wait);
	*cpu = rw->w.res[0].pu_after;
	free(ws);
	return 0;
}

/* One repetition of a case the runner's own thread measures. */
static int rep_inline(struct wl_case *c, const struct prepared *pr,
		      const struct config *cfg, struct wl_sample *s,
		      struct noise *z, int *cpu, struct profile *p,
		      struct profile_call *pc, struct strbuf *err)
{
	struct rusage u0, u1;
	uint64_t t0, t1, call;
	int64_t q0, q1;
	int r, fd = noise_schedstat_open(), pfd = p ? profile_fd(p, 0) : -1;

	noise_begin(z, pr->pus, pr->nworkers);
	getrusage(RUSAGE_SELF, &u0);
	q0 = noise_schedstat(fd, 1);
	if (pfd >= 0)
		profile_start(pfd);
	t0 = now_ns();
	r = c->wl->run(c, s, err);
	t1 = now_ns();
	if (pfd >= 0)
		profile_stop(pfd);
	q1 = noise_schedstat(fd, 1);
	call = t1 - t0;
	if (fd >= 0)
		close(fd);
	*cpu = sched_getcpu();
	getrusage(RUSAGE_SELF, &u1);
	if (s->t_begin && s->t_end >= s->t_begin) {
		t0 = s->t_begin;
		t1 = s->t_end;
	}
	if (pfd >= 0)
		profile_collect(p, 0, t0, t1, getpid(), pc);
	z->nvcsw = u1.ru_nvcsw - u0.ru_nvcsw;
	z->nivcsw = u1.ru_nivcsw - u0.ru_nivcsw;
	noise_end(z, pr->pus, pr->nworkers, t1 - t0, cfg->steal_max);
	noise_judge_wait(z, 1, call, q0 >= 0 && q1 >= q0 ? q1 - q0 : -1);
	return r;
}

/*
 * One repetition of case i: setup, the timed call, verify, teardown, the
 * sample stored.  Returns RUNNER_OK to go on, RUNNER_DONE when the case
 * stops here (a signal, or a failure: *fail points into err), or the code
 * of a fault the run cannot go on after.
 */
int one_rep(struct runner *rn, int i, unsigned rep, int64_t case_id,
	    struct strbuf *err, const char **fail)
{
	const struct plan_case *pc = &rn->cfg.cases[i];
	const struct prepared *pr = &rn->pr[i];
	struct wl_case c;
	struct wl_sample s;
	struct noise z;
	struct rep_workers rw = { 0 };
	struct profile_call call = { 0 };
	struct profile *prof = NULL;
	int cpu = -1, r;

	memset(&s, 0, sizeof(s));
	memset(&z, 0, sizeof(z));
	case_init(&c, pc, &rn->pl, &rn->cfg, rn->scratch, rn->disk_scratch,
		  pr);
	c.rep = (int)rep;
	c.warmup = rep < pc->warmup;
	/* warm-ups are not profiled: the profile is of the timed calls */
	if (rn->prof.on && rn->prof.npu && !c.warmup)
		prof = &rn->prof;
	progress_rep_begin(&rn->cfg, i, rep);
	r = pc->wl->setup ? pc->wl->setup(&c, err) : 0;
	if (!r && !stop_sig)
		r = pc->wl->parallel ?
		    rep_parallel(&c, pr, &rn->cfg, &s, &z, &rw, &cpu, prof,
				 &call, err) :
		    rep_inline(&c, pr, &rn->cfg, &s, &z, &cpu, prof, &call,
			       err);
	if (!r && !stop_sig && pc->wl->verify)
		r = pc->wl->verify(&c, &s, err);
	if (pc->wl->teardown)
		pc->wl->teardown(&c);
	if (stop_sig || r) {
		profile_call_release(&call);
		rep_workers_release(&rw);
		if (r && !stop_sig)
			*fail = err->len ? err->buf : "failed";
		return RUNNER_DONE;
	}
	if (!pc->wl->parallel && cpu != c.cpu)
		wl_invalid(&s, "ran on CPU %d, not on the pinned CPU %d", cpu,
			   c.cpu);
	if (prof) {
		profile_call_done(prof, &call);
		wl_note(&s, "profile_samples", (double)call.samples);
		if (call.lost)
			wl_note(&s, "profile_lost", (double)call.lost);
	}
	r = store_sample(&rn->db, case_id, &c, &s, cpu, &z, &rw, prof, &call);
	profile_call_release(&call);
	rep_workers_release(&rw);
	if (r) {
		progress_undraw();
		return give_up(rn, db_failed("cannot store a sample in",
					     rn->db_path, r,
					     db_errmsg(&rn->db)));
	}
	if (!c.warmup) {
		tally_add(&rn->tl[i], pc->wl, &s, (int)pc->runs);
		rn->tl[i].noisy += z.noisy;
		rn->tl[i].waited += z.waited;
	}
	if (s.invalid && !rn->o->quiet) {
		progress_undraw();
		printf("%s %s: rep %u invalid: %s\n", pc->wl->name, pc->title,
		       rep, s.reason);
	}
	progress_rep_end(i);
	return RUNNER_OK;
}
