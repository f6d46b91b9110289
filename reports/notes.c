/*
 * The notes the human formats print under a table: the tests used, the
 * boots behind the rows, what more boots would buy, A/A, the kernel's
 * warnings.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

enum within note_within(const struct report_cmp *c)
{
	return !c->nwithin ? WITHIN_NONE : c->nwithin == c->nrows ?
	       WITHIN_ALL : WITHIN_SOME;
}

/* Does a row on boot medians have fewer boots than can be judged? */
static bool note_row_boots_low(const struct report_row *r)
{
	return !r->within && ((r->a && r->a->nboots < REPORT_BOOTS_OK) ||
			      (r->b && r->b->nboots < REPORT_BOOTS_OK));
}

/*
 * "Fewer than 3 boots of a kernel: ..." for the whole table, or naming
 * the rows it holds for (in words, or config syntax for the terminal).
 */
void note_boots_low(const struct report_cmp *c, struct strbuf *sb,
		    bool words, const char *of)
{
	size_t i, n = 0, nrow = 0;

	for (i = 0; i < c->nrows; i++) {
		nrow++;
		n += note_row_boots_low(&c->rows[i]);
	}
	if (!n)
		return;
	if (n == nrow) {
		strbuf_addf(sb, " Fewer than %d boots%s: the boot-to-boot "
			    "variance cannot be judged.", REPORT_BOOTS_OK, of);
		return;
	}
	strbuf_addf(sb, " Fewer than %d boots%s in", REPORT_BOOTS_OK, of);
	for (i = 0, n = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!note_row_boots_low(r))
			continue;
		strbuf_addf(sb, "%s %s", n++ ? "," : "",
			    words ? r->words : r->name);
	}
	strbuf_addf(sb, ": the boot-to-boot variance cannot be judged "
		    "there.");
}

void notes_tests(const struct report_cmp *c, struct strbuf *sb,
		 bool with_ci)
{
	static const char *const units[] = {
		[WITHIN_NONE] = "boot medians",
		[WITHIN_SOME] = "boot medians, or the runs where a kernel has "
				"one boot",
		[WITHIN_ALL] = "runs",
	};
	bool exact = false, approx = false;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		if (isnan(c->rows[i].p_mw))
			continue;
		exact |= c->rows[i].mw_exact;
		approx |= !c->rows[i].mw_exact;
	}
	if (!c->ntested) {
		/* nothing to correct, and no ~ to explain */
		strbuf_addf(sb, "No row has a test: Welch's t-test needs 2 "
			    "boots, or 2 runs of one boot, of each kernel.");
		goto untested;
	}
	strbuf_addf(sb, "Welch's t-test on the %s, Holm-corrected over %zu "
		    "row%s", units[note_within(c)], c->ntested,
		    c->ntested == 1 ? "" : "s");
	if (c->nmw)
		strbuf_addf(sb, "; Mann-Whitney U (%s), Holm-corrected over "
			    "%zu row%s", exact && approx ? "exact, or normal "
			    "with ties" : exact ? "exact" : "normal, tie-"
			    "corrected", c->nmw, c->nmw == 1 ? "" : "s");
	if (with_ci)
		strbuf_addf(sb, "; the change's 95%% CI by Fieller");
	strbuf_addf(sb, ". ~ marks a change not shown at p < %.2g after "
		    "Holm.", REPORT_ALPHA);
untested:
	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].untested)
			break;
	if (i < c->nrows)
		strbuf_addf(sb, " Counts of the input and values that never "
			    "vary are shown, not tested.");
}

void notes_boots(const struct report_cmp *c, struct strbuf *sb,
		 bool words)
{
	if (!c->nrows)
		return;
	if (c->geo_n > 1)
		strbuf_addf(sb, " The geomean is the geometric mean of the "
			    "rows' ratios%s, with no test of its own.",
			    c->geo_cost && c->geo_n > 1 ? ", those of "
			    "higher-is-better metrics inverted (a cost: "
			    "below zero is better)" : "");
	switch (note_within(c)) {
	case WITHIN_ALL:
		strbuf_addf(sb, " One boot of a kernel: its runs stand in for "
			    "boots, so values, changes and tests are of the "
			    "mean of the runs and cannot see how much boots "
			    "differ.");
		break;
	case WITHIN_SOME:
		strbuf_addf(sb, " Where a kernel has one boot, its runs stand "
			    "in for boots: the row's values, change and tests "
			    "are of the mean of the runs and cannot see how "
			    "much boots differ.");
		break;
	case WITHIN_NONE:
		break;
	}
	note_boots_low(c, sb, words, " of a kernel");
}

void note_side_line(struct tbl *t, const char *role,
		    const struct report_side *s)
{
	char what[160];
	size_t nb = 0, i, j;
	bool *seen = xcalloc(s->nboots ? s->nboots : 1, sizeof(*seen));

	/* boots that gave values, as the table counts them */
	for (j = 0; j < s->nser; j++)
		for (i = 0; i < s->ser[j].nboots; i++) {
			int b = s->ser[j].boots[i].boot;

			if (b >= 0 && (size_t)b < s->nboots && !seen[b]) {
				seen[b] = true;
				nb++;
			}
		}
	free(seen);
	snprintf(what, sizeof(what), "%zu boot%s, %zu complete run%s, "
		 "kernel %s", nb, nb == 1 ? "" : "s", s->nruns,
		 s->nruns == 1 ? "" : "s",
		 s->nruns ? s->runs[0].kernel_release : "?");
	tbl_row(t, role, s->label, what);
}

/* "4 boots of each kernel", "2 boots of A and 4 of B" */
static void note_boots_words(const struct report_cmp *c, size_t na, size_t nb,
			struct strbuf *sb)
{
	if (na == nb)
		strbuf_addf(sb, "%zu boot%s %s", na, na == 1 ? "" : "s",
			    c->aa ? "in each half" : "of each kernel");
	else
		strbuf_addf(sb, "%zu boot%s of %s and %zu of %s", na,
			    na == 1 ? "" : "s", c->a->label, nb, c->b->label);
}

/* One row's plan, or why it has none; true when it printed one. */
static bool note_plan_row(const struct report_cmp *c, const struct report_row *r,
		     struct strbuf *sb)
{
	size_t na = r->a ? r->a->nboots : 0, nb = r->b ? r->b->nboots : 0;
	char p[16], h[16];

	switch (r->plan) {
	case PLAN_NONE:
		return false;
	case PLAN_ONE_BOOT:
		if (na < 2 && nb < 2)
			strbuf_addf(sb, "each kernel has one boot");
		else
			strbuf_addf(sb, "%s has one boot",
				    na < 2 ? c->a->label : c->b->label);
		strbuf_addf(sb, ", whose runs cannot say how much boots "
			    "differ: a plan needs at least 2 boots of each "
			    "kernel");
		return true;
	case PLAN_NO_SPREAD:
		strbuf_addf(sb, "the boot medians do not vary at all over ");
		note_boots_words(c, na, nb, sb);
		strbuf_addf(sb, ": with no spread there is nothing to plan "
			    "with");
		return true;
	case PLAN_OK:
		break;
	}
	strbuf_addf(sb, "with ");
	note_boots_words(c, na, nb, sb);
	strbuf_addf(sb, ", a change of %.1f%% can be detected", r->mde);
	if (c->aa)
		return true;	/* the change seen is noise by design */
	if (r->need == 0) {
		strbuf_addf(sb, "; no change was seen");
	} else if (r->need > REPORT_NEED_CAP) {
		strbuf_addf(sb, "; the %+.1f%% seen needs more than %d boots "
			    "of each kernel", r->delta, REPORT_NEED_CAP);
	} else if ((size_t)r->need > (na < nb ? na : nb)) {
		strbuf_addf(sb, "; the %+.1f%% seen needs %ld boots of each "
			    "kernel", r->delta, r->need);
	} else {
		fmt_p(r->p, p, sizeof(p));
		fmt_p(r->p_adj, h, sizeof(h));
		strbuf_addf(sb, "; the %+.1f%% seen is within that, yet was "
			    "not shown (p=%s, Holm %s): a miss, which power "
			    "%.1f allows one time in %.0f, or a smaller true "
			    "change; more boots of each kernel would tell",
			    r->delta, p, h, REPORT_POWER,
			    1 / (1 - REPORT_POWER));
	}
	return true;
}

/*
 * What more boots would buy.  The verdict is Holm's, whose threshold for
 * a row depends on the p of the others, unknown until the boots are run:
 * plan at alpha over the family's rows, the strictest step, which a row
 * that reaches it passes whatever the others show.
 */
void note_plan(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	bool head = false;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		strbuf_release(&line);
		strbuf_addf(&line, "%s: ", r->name);
		if (!note_plan_row(c, r, &line))
			continue;
		if (!head) {
			strbuf_addf(&sb, "What more boots would buy (two-sided "
				    "alpha %.2g, Holm-corrected over %zu "
				    "row%s: %.2g a row, the level that passes "
				    "whatever the other rows show; power %.1f; "
				    "approximate):", REPORT_ALPHA, c->ntested,
				    c->ntested == 1 ? "" : "s",
				    REPORT_ALPHA / (double)(c->ntested ?
							    c->ntested : 1),
				    REPORT_POWER);
			fputc('\n', f);
			tbl_wrap(f, strbuf_str(&sb), 78, "");
			head = true;
		}
		tbl_wrap(f, strbuf_str(&line), 78, "  ");
	}
	strbuf_release(&line);
	strbuf_release(&sb);
}

void note_aa(FILE *f, const struct report_cmp *c, bool md)
{
	struct strbuf sb = STRBUF_INIT;

	if (!c->aa || !c->ntested)
		return;
	strbuf_addf(&sb, "A/A: %zu of %zu rows differ at p < %.2g after Holm "
		    "(%.0f%%), %zu before correction (%.0f%%); the two halves "
		    "are one kernel, so any row that differs is a false "
		    "positive.",
		    c->nsig, c->ntested, REPORT_ALPHA,
		    100.0 * c->nsig / c->ntested, c->nsig_raw,
		    100.0 * c->nsig_raw / c->ntested);
	fputc('\n', f);
	if (md)
		fprintf(f, "%s\n", strbuf_str(&sb));
	else
		tbl_wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
}

void note_unmeasurable(FILE *f, const struct report_cmp *c,
		       size_t cols)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	if (!c->nunmeasurable)
		return;
	strbuf_addf(&sb, "Not measurable on these machines:");
	for (i = 0; i < c->nunmeasurable; i++)
		strbuf_addf(&sb, "%s %s", i ? "," : "", c->unmeasurable[i]);
	strbuf_addf(&sb, ".");
	tbl_wrap(f, strbuf_str(&sb), cols, "");
	strbuf_release(&sb);
}

/* --- kernel warnings, in every format ----------------------------------- */

int report_print_kwarn(FILE *f, const struct report_cmp *c,
		       enum report_format fmt)
{
	static const char head[] = "Kernel warnings: these kernels printed "
				   "problems while the runs ran (the lines "
				   "are in the database; `bench runs` "
				   "counts them; --strict refuses them).";
	size_t i;

	if (!c->nkwarn || fmt == REPORT_JSON)	/* JSON: a key of its own */
		return 0;
	switch (fmt) {
	case REPORT_CSV:
		/* after the rows, where a reader skipping '#' loses nothing */
		fprintf(f, "# %s\n", head);
		for (i = 0; i < c->nkwarn; i++) {
			fputs("# ", f);
			fputs_term(c->kwarn[i], f, "");	/* a line, a comment */
			fputc('\n', f);
		}
		break;
	case REPORT_MARKDOWN:
		fprintf(f, "\n> **%s**\n", head);
		for (i = 0; i < c->nkwarn; i++) {
			fprintf(f, ">\n> ");
			md_text(f, c->kwarn[i]);
			fputc('\n', f);
		}
		break;
	default:
		fputc('\n', f);
		tbl_wrap(f, head, fmt == REPORT_CHANGELOG ? WRAP_COLS : 78, "");
		for (i = 0; i < c->nkwarn; i++) {
			/* a line of its own: its newlines escaped too */
			char *line = NULL;
			size_t n = 0;
			FILE *m = xopen_memstream(&line, &n);

			fputs_term(c->kwarn[i], m, "");
			if (fclose(m))
				return -ENOMEM;
			tbl_wrap_hang(f, line, fmt == REPORT_CHANGELOG ?
				  WRAP_COLS : 78, "  ", "    ");
			free(line);
		}
		break;
	}
	return 0;
}
