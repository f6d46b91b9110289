/*
 * What people see while a run measures: the live progress line and its
 * estimate of the time left, each case's summary line, the final table.
 */
#include "run_priv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eta.h"
#include "reports/stats.h"

/* Progress: a live line on a terminal, nothing otherwise. */
static struct {
	bool tty, quiet;
	char head[256];		/* "[3/16] shmem-remove op=... rep 2/6" */
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

void progress_undraw(void)
{
	if (P.tty && !P.quiet)
		fprintf(stderr, "\r\033[K");
}

void progress_on(const char *what, uint64_t done, uint64_t total)
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

void progress_init(bool quiet)
{
	P.tty = isatty(STDERR_FILENO);
	P.quiet = quiet;
}

/* The line's head for repetition rep of case i, drawn; its clock started. */
void progress_rep_begin(const struct config *cfg, int i, unsigned rep)
{
	const struct plan_case *pc = &cfg->cases[i];
	bool warmup = rep < pc->warmup;

	snprintf(P.head, sizeof(P.head), "[%d/%d] %s %s  %s %u/%u", i + 1,
		 cfg->ncases, pc->wl->name, pc->title,
		 warmup ? "warm-up" : "rep",
		 warmup ? rep + 1 : rep - pc->warmup + 1,
		 warmup ? pc->warmup : pc->runs);
	eta_rep_begin(&P.eta, i, now_ns());
	draw(NULL);
}

void progress_rep_end(int i)
{
	eta_rep_end(&P.eta, i, now_ns());
}

/* Case i runs no (more) repetitions: the estimate stops counting them. */
void progress_case_drop(int i)
{
	eta_case_drop(&P.eta, i);
}

void progress_release(void)
{
	eta_release(&P.eta);
}

/* The progress line's estimate: each case's reps and its workload's guess. */
void progress_estimate(const struct config *cfg, const struct prepared *pr,
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
		case_init(&c, pc, pl, cfg, scratch, disk_scratch, &pr[i]);
		ec->prior_s = pc->wl->estimate_s(&c);
	}
}

/*
 * FOLIOBENCH_ETA_LOG=file: append the estimate of the time left given at
 * each case's start and the real time left from then, to check the
 * estimate against.
 */
void progress_eta_log(const struct config *cfg)
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
 * In a guest of `bench vm --accel icount` (FOLIOBENCH_CLOCK=instructions,
 * set by its command): a "nanosecond" of its clocks is an instruction.
 */
static bool counted(void)
{
	const char *c = getenv("FOLIOBENCH_CLOCK");

	return c && !strcmp(c, "instructions");
}

/* A value with its unit, scaled for people: "1.71 s", "815 ns/folio";
 * counted, "123.2 M instr", "1880 instr/folio". */
static void fmt_value(double v, const char *unit, char *buf, size_t n)
{
	if (!isfinite(v)) {
		snprintf(buf, n, "n/a");
	} else if (counted() && !strncmp(unit, "ns", 2) &&
		   (!unit[2] || unit[2] == '/')) {
		if (v >= 1e9)
			snprintf(buf, n, "%.4g G instr%s", v / 1e9, unit + 2);
		else if (v >= 1e6)
			snprintf(buf, n, "%.4g M instr%s", v / 1e6, unit + 2);
		else if (v >= 1e4)
			snprintf(buf, n, "%.4g k instr%s", v / 1e3, unit + 2);
		else
			snprintf(buf, n, "%.0f instr%s", v, unit + 2);
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

void tally_add(struct tally *t, const struct workload *w,
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

void tally_release(struct tally *t)
{
	for (int i = 0; i < WL_MAX_METRICS; i++)
		free(t->v[i]);
	memset(t, 0, sizeof(*t));
}

/* "median 1.71 s (min 1.69 s, max 1.80 s), 815 ns/folio" */
void case_summary(const struct workload *w, const struct tally *t,
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

/* Print the final table: one row per case and primary metric. */
void final_table(const struct config *cfg, struct tally *tl,
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
