/*
 * compare --profile as text: per case, the functions whose share of the
 * timed call changed most, self and with children, and what that share
 * is of the case's time (or guest instructions) on each kernel.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "reports/format.h"
#include "reports/profile.h"

static void share(double v, bool has, char *buf, size_t n)
{
	if (!has)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * v);
}

/* A change in points of share; "" where a side has no profile. */
static void points(double a, double b, char *buf, size_t n)
{
	double d = 100 * (b - a);

	snprintf(buf, n, "%+.1f pt", fabs(d) < 0.05 ? 0.0 : d);
}

/* A cost's change in the scale of the costs: "-20.05 ms". */
static void cost_change(const struct report_prof_fn *f, const char *unit,
			char *buf, size_t n)
{
	double d = f->cost[1] - f->cost[0];
	double ref = fmax(fabs(f->cost[0]), fabs(f->cost[1]));
	char v[48];

	if (isnan(d)) {
		snprintf(buf, n, "-");
		return;
	}
	report_value(fabs(d), ref, unit, false, v, sizeof(v));
	snprintf(buf, n, "%s%s", d < 0 ? "-" : "+", v);
}

void report_prof_side_words(const struct report_prof_side *s,
			    struct strbuf *sb)
{
	strbuf_addf(sb, "%lld sample%s", (long long)s->samples,
		    s->samples == 1 ? "" : "s");
	if (s->event && s->event[0])
		strbuf_addf(sb, " of %s", s->event);
	if (isfinite(s->period) && s->unit && !strcmp(s->unit, "ns")) {
		char v[48];

		report_value(s->period, s->period, "ns", false, v, sizeof(v));
		strbuf_addf(sb, " every %s", v);
	} else if (isfinite(s->period) && s->unit) {
		strbuf_addf(sb, " every %.6g %s", s->period, s->unit);
	}
	strbuf_addf(sb, " in %zu boot%s", s->nboots,
		    s->nboots == 1 ? "" : "s");
}

/* Where a case cannot be compared: the line that says why; false none. */
static bool case_gap(FILE *f, const struct report_prof *p,
		     const struct report_prof_case *c)
{
	int k;

	for (k = 0; k < 2; k++) {
		if (c->s[k].has)
			continue;
		fprintf(f, "  no profile on %s%s%s\n", p->label[k],
			c->s[k].off ? ": " : " (the case was not profiled)",
			c->s[k].off ? c->s[k].off : "");
		return true;
	}
	if (!c->few)
		return false;
	fprintf(f, "  too few samples (%s %lld, %s %lld): fewer than %zu a "
		"side are not compared\n", p->label[0],
		(long long)c->s[0].samples, p->label[1],
		(long long)c->s[1].samples, p->min);
	return true;
}

/* Do two functions have the same shares, to well below what is shown? */
static bool same_numbers(const struct report_prof_fn *a,
			 const struct report_prof_fn *b)
{
	int k;

	for (k = 0; k < 2; k++)
		if (fabs(a->self[k] - b->self[k]) > 1e-9 ||
		    fabs(a->incl[k] - b->incl[k]) > 1e-9 ||
		    (a->incl[k] > 0) != (b->incl[k] > 0))
			return false;
	return true;
}

/*
 * How many functions from c->fn[i] on have its numbers: the frames that
 * only pass the call on (entry_SYSCALL_64, do_syscall_64, ...) have the
 * same shares and costs, and take one row, not the whole top.
 */
static size_t alike(const struct report_prof_case *c, size_t i)
{
	size_t j = i + 1;

	while (j < c->nfn && same_numbers(&c->fn[i], &c->fn[j]))
		j++;
	return j - i;
}

static void fn_row(struct tbl *t, const struct report_prof_case *c,
		   const struct report_prof_fn *fn, size_t more)
{
	const char *unit = c->s[0].median_unit ? c->s[0].median_unit :
			   c->s[1].median_unit ? c->s[1].median_unit : "";
	bool has[2] = { fn->incl[0] > 0, fn->incl[1] > 0 };
	char sa[16], sb[16], sd[16], ia[16], ib[16], id[16];
	char ca[48], cb[48], cd[64];
	double ref = fmax(fabs(fn->cost[0]), fabs(fn->cost[1]));
	struct strbuf name = STRBUF_INIT;

	share(fn->self[0], has[0], sa, sizeof(sa));
	share(fn->self[1], has[1], sb, sizeof(sb));
	points(fn->self[0], fn->self[1], sd, sizeof(sd));
	share(fn->incl[0], has[0], ia, sizeof(ia));
	share(fn->incl[1], has[1], ib, sizeof(ib));
	points(fn->incl[0], fn->incl[1], id, sizeof(id));
	snprintf(ca, sizeof(ca), "-");
	snprintf(cb, sizeof(cb), "-");
	if (has[0] && isfinite(fn->cost[0]))
		report_value(fn->cost[0], ref, unit, false, ca, sizeof(ca));
	if (has[1] && isfinite(fn->cost[1]))
		report_value(fn->cost[1], ref, unit, false, cb, sizeof(cb));
	cost_change(fn, unit, cd, sizeof(cd));
	/* indented under the case's name */
	strbuf_addf(&name, "  %s", fn->name);
	if (more)
		strbuf_addf(&name, " (+%zu alike)", more);
	tbl_row(t, name.buf, sa, sb, sd, ia, ib, id, ca, cb, cd,
		!has[1] ? "only base" : !has[0] ? "only patch" : "");
	strbuf_release(&name);
}

/* Which functions each "(+N alike)" row of the first n stands for. */
static void alike_names(FILE *f, const struct report_prof_case *c, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, j, same;

	for (i = 0; i < n; i += same) {
		same = alike(c, i);
		if (same < 2)
			continue;
		strbuf_reset(&sb);
		strbuf_addf(&sb, "%s (+%zu alike):", c->fn[i].name, same - 1);
		for (j = i + 1; j < i + same; j++)
			strbuf_addf(&sb, " %s%s", c->fn[j].name,
				    j + 1 < i + same ? "," : "");
		tbl_wrap_hang(f, sb.buf, WRAP_COLS, "  ", "    ");
	}
	strbuf_release(&sb);
}

static void one_case(FILE *f, const struct report_prof *p,
		     const struct report_prof_case *c)
{
	struct tbl t = { .ncol = 11, .align = "lrrrrrrrrrl", .heading = true };
	struct strbuf sb = STRBUF_INIT;
	size_t i, n, shown;
	int k;

	/* a table of several workloads names each row's already */
	if (!strncmp(c->name, c->workload, strlen(c->workload)))
		fprintf(f, "\n%s\n", c->name);
	else
		fprintf(f, "\n%s %s\n", c->workload, c->name);
	for (k = 0; k < 2; k++) {
		strbuf_reset(&sb);
		if (c->s[k].has)
			report_prof_side_words(&c->s[k], &sb);
		else
			strbuf_addstr(&sb, "not profiled");
		fprintf(f, "  %s: %s\n", p->label[k], sb.buf);
	}
	strbuf_release(&sb);
	if (case_gap(f, p, c))
		return;
	tbl_row(&t, "  function", "self base", "patch", "change",
		"with children base", "patch", "change", "cost base", "patch",
		"change", "");
	for (i = 0, shown = 0; i < c->nfn && shown < p->top; shown++) {
		size_t same = alike(c, i);

		fn_row(&t, c, &c->fn[i], same - 1);
		i += same;
	}
	n = i;
	tbl_print(f, &t);
	alike_names(f, c, n);
	for (k = 0; k < 2; k++)
		if (!c->s[k].median_unit)
			fprintf(f, "  no cost on %s: it has no time of the "
				"call (a rate is the case's headline metric, "
				"or no sample is in its table)\n",
				p->label[k]);
	if (n < c->nfn)
		fprintf(f, "  %zu more function%s (--profile-top)\n",
			c->nfn - n, c->nfn - n == 1 ? "" : "s");
	tbl_free(&t);
}

int report_prof_print(FILE *f, const struct report_prof *p)
{
	size_t i;
	int k;

	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "Kernel profile of the timed calls, %s against %s: "
		    "each function's share of the call's samples (each "
		    "boot's shares, averaged over the boots), self and with "
		    "children (a function once a stack), and as cost: that "
		    "share of the case's mean of boot medians.  Top %zu a "
		    "case by the change of the cost with children (of the "
		    "share where a case has no time).", p->label[1],
		    p->label[0], p->top);
	fputc('\n', f);
	tbl_wrap(f, sb.buf, WRAP_COLS, "");
	strbuf_release(&sb);
	for (k = 0; k < 2; k++)
		if (p->none[k])
			fprintf(f, "\nprofile: %s has none: %s\n", p->label[k],
				p->none[k]);
	if (p->none[0] || p->none[1])
		return ferror(f) ? -EIO : 0;
	for (i = 0; i < p->n; i++)
		one_case(f, p, &p->c[i]);
	return ferror(f) ? -EIO : 0;
}
