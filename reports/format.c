/*
 * The report formats but JSON: an aligned terminal table, the changelog
 * table (plain ASCII, at most 75 columns, as kernel changelogs quote
 * results), markdown and CSV.  Values are stored in the metric's unit;
 * only the human formats scale them (ns to µs, ms, s).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"

#define CHANGELOG_COLS	75
#define WRAP_COLS	72

/* --- a small table printer --------------------------------------------- */

struct tbl {
	size_t ncol;
	const char *align;	/* 'l' or 'r' per column */
	bool heading;		/* row 0 names the columns */
	char **cell;		/* row-major */
	size_t nrows, alloc;
};

/* Display width of UTF-8 text: count the bytes that start a character. */
static size_t width(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void tbl_row(struct tbl *t, ...)
{
	va_list ap;
	size_t i;

	ALLOC_GROW(t->cell, (t->nrows + 1) * t->ncol, t->alloc);
	va_start(ap, t);
	for (i = 0; i < t->ncol; i++) {
		const char *s = va_arg(ap, const char *);

		t->cell[t->nrows * t->ncol + i] = xstrdup(s ? s : "");
	}
	va_end(ap);
	t->nrows++;
}

static void tbl_free(struct tbl *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncol; i++)
		free(t->cell[i]);
	free(t->cell);
}

/*
 * Column widths; a column empty below its heading is left out (width 0),
 * such as "per folio" for a workload that gives no per-folio metric.
 */
static void tbl_widths(const struct tbl *t, size_t *w)
{
	size_t r, i, data[16] = { 0 };

	for (i = 0; i < t->ncol; i++)
		w[i] = 0;
	for (r = 0; r < t->nrows; r++)
		for (i = 0; i < t->ncol; i++) {
			size_t x = width(t->cell[r * t->ncol + i]);

			if (x > w[i])
				w[i] = x;
			if (r && x > data[i])
				data[i] = x;
		}
	for (i = 1; t->heading && i < t->ncol; i++)
		if (!data[i])
			w[i] = 0;
}

/* One row, columns two spaces apart, no trailing blanks. */
static void tbl_print_row(FILE *f, const struct tbl *t, const size_t *w,
			  size_t r, size_t first)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, pad, end;

	for (i = first; i < t->ncol; i++) {
		const char *s = t->cell[r * t->ncol + i];

		if (i > first && !w[i])
			continue;	/* a column left out */
		pad = w[i] - width(s);
		if (i > first)
			strbuf_addf(&sb, "  ");
		if (t->align[i] == 'r')
			strbuf_addf(&sb, "%*s%s", (int)pad, "", s);
		else
			strbuf_addf(&sb, "%s%*s", s, (int)pad, "");
	}
	end = sb.len;
	while (end && sb.buf[end - 1] == ' ')
		end--;
	fprintf(f, "%.*s\n", (int)end, strbuf_str(&sb));
	strbuf_release(&sb);
}

static void tbl_print(FILE *f, const struct tbl *t)
{
	size_t w[16], r;

	tbl_widths(t, w);
	for (r = 0; r < t->nrows; r++)
		tbl_print_row(f, t, w, r, 0);
}

/* Display width of the first len bytes of s. */
static size_t width_n(const char *s, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/*
 * Bytes of the head of a word of len bytes that fits room columns: up to
 * its last '/' or ',' that fits (a path or a list reads well broken
 * there) unless that leaves the line less than half full, else cut at
 * room columns.  At least one character, so that a caller always moves on.
 */
static size_t cut(const char *s, size_t len, size_t room)
{
	size_t i = 0, col = 0, brk = 0, brk_col = 0, n;

	if (!room)
		room = 1;
	while (i < len && col < room) {
		n = 1;
		while (i + n < len && ((unsigned char)s[i + n] & 0xc0) == 0x80)
			n++;
		i += n;
		col++;
		if (s[i - n] == '/' || s[i - n] == ',') {
			brk = i;
			brk_col = col;
		}
	}
	if (i >= len)
		return len;
	return brk && 2 * brk_col >= room ? brk : i;
}

/*
 * Words wrapped at cols, the first line starting with first and the others
 * with indent.  A word wider than a line is broken (cut), so that no line
 * is wider than cols: the changelog's promise of 75 columns holds for any
 * label, path or name.
 */
static void wrap_hang(FILE *f, const char *text, size_t cols,
		      const char *first, const char *indent)
{
	const char *p = text, *e;
	size_t col = 0, len, n;
	bool fresh = true;

	while (*p) {
		p += strspn(p, " ");
		if (!*p)
			break;
		e = p + strcspn(p, " ");
		len = width_n(p, (size_t)(e - p));
		if (col && col + 1 + len > cols) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fputs(fresh ? first : indent, f);
			col = width(fresh ? first : indent);
			fresh = false;
		} else {
			fputc(' ', f);
			col++;
		}
		while (len && col + len > cols) {
			n = cut(p, (size_t)(e - p), cols > col ? cols - col :
				1);
			fwrite(p, 1, n, f);
			fputc('\n', f);
			p += n;
			len = width_n(p, (size_t)(e - p));
			fputs(indent, f);
			col = width(indent);
		}
		fwrite(p, 1, (size_t)(e - p), f);
		col += len;
		p = e;
	}
	if (col)
		fputc('\n', f);
}

/* Words wrapped at cols, each line starting with indent. */
static void wrap(FILE *f, const char *text, size_t cols, const char *indent)
{
	wrap_hang(f, text, cols, indent, indent);
}

/* --- cells ---------------------------------------------------------------- */

static void fmt_pct(double v, char *buf, size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%+.1f%%", v);
}

static void fmt_p(double p, char *buf, size_t n)
{
	if (isnan(p))
		snprintf(buf, n, "-");
	else if (p < 0.001)
		snprintf(buf, n, "<0.001");
	else
		snprintf(buf, n, "%.2g", p);
}

/* The raw p and Holm's beside it: "0.61 (1)", so a capped 1 is not read
 * as "identical". */
static void fmt_p_holm(double p, double adj, char *buf, size_t n)
{
	char a[16], b[16];

	if (isnan(p)) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_p(p, a, sizeof(a));
	fmt_p(adj, b, sizeof(b));
	snprintf(buf, n, "%s (%s)", a, b);
}

/* Neither kernel's values vary: an interval of width 0 says nothing. */
static bool no_spread(const struct report_row *r)
{
	return r->a && r->b && r->sda == 0 && r->sdb == 0;
}

static void fmt_ci(const struct report_row *r, char *buf, size_t n)
{
	if (isnan(r->p) && r->untested)
		snprintf(buf, n, "-");
	else if (no_spread(r))
		snprintf(buf, n, "no spread");
	else if (isnan(r->p))
		snprintf(buf, n, "-");
	else if (isnan(r->ci_lo))
		snprintf(buf, n, "unbounded");
	else
		snprintf(buf, n, "[%+.1f, %+.1f]", r->ci_lo, r->ci_hi);
}

/* The spread as a percentage of the value. */
static void fmt_sd(double sd, double mean, char *buf, size_t n)
{
	if (isnan(sd) || isnan(mean) || mean == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100 * sd / fabs(mean));
}

static const struct report_series *ser(const struct report_row *r)
{
	return r->a ? r->a : r->b;
}

/* Both sides in one unit and precision, so the columns read alike. */
static void row_scale(const struct report_row *r, bool ascii,
		      struct report_scale *sc)
{
	double v[2] = { r->a ? r->va : NAN, r->b ? r->vb : NAN };

	report_scale(v, 2, ser(r)->unit, ascii, sc);
}

/* The value a row compares on one side (r->va or r->vb). */
static void fmt_val(const struct report_row *r, const struct report_series *x,
		    double v, bool ascii, char *buf, size_t n)
{
	struct report_scale sc;

	if (!x) {
		snprintf(buf, n, "-");
		return;
	}
	row_scale(r, ascii, &sc);
	report_scaled(v, &sc, buf, n);
}

/* The change per folio, "-15.2 ns/folio"; empty where there is none. */
static void fmt_folio(const struct report_row *r, bool ascii, char *buf,
		      size_t n)
{
	char v[64];
	double ref;

	if (isnan(r->delta_folio)) {
		buf[0] = '\0';
		return;
	}
	/* scaled by itself: a change of 4 ns reads "4.00 ns", not "0.00 µs" */
	ref = fabs(r->delta_folio);
	report_value(ref, ref, r->fa->unit, ascii, v, sizeof(v));
	snprintf(buf, n, "%s%s", r->delta_folio < 0 ? "-" : "+", v);
}

/* The verdict column: "faster", "~", "base only". */
static void fmt_mark(const struct report_cmp *c, const struct report_row *r,
		     char *buf, size_t n)
{
	if (!r->a || !r->b) {
		snprintf(buf, n, "only %s", r->a ? "base" : "patch");
	} else if (r->untested) {
		snprintf(buf, n, "(%s)", r->untested);
	} else if (isnan(r->p)) {
		snprintf(buf, n, "(no test)");
	} else if (r->sig) {
		snprintf(buf, n, "%s", report_dir_word(r));
	} else {
		snprintf(buf, n, "~");
	}
	(void)c;
}

/* The geometric mean has no test of its own: its cell says so. */
static void fmt_geo_mark(const struct report_cmp *c, char *buf, size_t n)
{
	snprintf(buf, n, "(untested)");
	(void)c;
}

/* "5" when both kernels have as many boots, else "5/2"; "-" absent. */
static void fmt_boots(const struct report_cmp *c, const struct report_row *r,
		      char *buf, size_t n)
{
	char a[16], b[16];

	if (!c->b) {
		snprintf(buf, n, "%zu", r->a->nboots);
		return;
	}
	snprintf(a, sizeof(a), "%zu", r->a ? r->a->nboots : 0);
	snprintf(b, sizeof(b), "%zu", r->b ? r->b->nboots : 0);
	if (r->a && r->b && r->a->nboots == r->b->nboots)
		snprintf(buf, n, "%s", a);
	else
		snprintf(buf, n, "%s/%s", r->a ? a : "-", r->b ? b : "-");
}

/* --- notes shared by the human formats ------------------------------------ */

/* Do the rows stand on boot medians, on the runs of one boot, or both? */
enum within { WITHIN_NONE, WITHIN_SOME, WITHIN_ALL };

static enum within within_kind(const struct report_cmp *c)
{
	return !c->nwithin ? WITHIN_NONE : c->nwithin == c->nrows ?
	       WITHIN_ALL : WITHIN_SOME;
}

/* Does a row on boot medians have fewer boots than can be judged? */
static bool row_boots_low(const struct report_row *r)
{
	return !r->within && ((r->a && r->a->nboots < REPORT_BOOTS_OK) ||
			      (r->b && r->b->nboots < REPORT_BOOTS_OK));
}

/*
 * "Fewer than 3 boots of a kernel: ..." for the whole table, or naming
 * the rows it holds for (in words, or config syntax for the terminal).
 */
static void note_boots_low(const struct report_cmp *c, struct strbuf *sb,
			   bool words, const char *of)
{
	size_t i, n = 0, nrow = 0;

	for (i = 0; i < c->nrows; i++) {
		nrow++;
		n += row_boots_low(&c->rows[i]);
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

		if (!row_boots_low(r))
			continue;
		strbuf_addf(sb, "%s %s", n++ ? "," : "",
			    words ? r->words : r->name);
	}
	strbuf_addf(sb, ": the boot-to-boot variance cannot be judged "
		    "there.");
}

static void notes_tests(const struct report_cmp *c, struct strbuf *sb,
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
		    "row%s", units[within_kind(c)], c->ntested,
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

static void notes_boots(const struct report_cmp *c, struct strbuf *sb,
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
	switch (within_kind(c)) {
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

static void side_line(struct tbl *t, const char *role,
		      const struct report_side *s)
{
	char what[160];
	size_t nb = 0, i, j;

	/* boots that gave values, as the table counts them */
	for (i = 0; i < s->nboots; i++) {
		bool seen = false;

		for (j = 0; j < s->nser && !seen; j++) {
			size_t k;

			for (k = 0; k < s->ser[j].nboots; k++)
				seen |= s->ser[j].boots[k].boot == (int)i;
		}
		nb += seen;
	}
	snprintf(what, sizeof(what), "%zu boot%s, %zu complete run%s, "
		 "kernel %s", nb, nb == 1 ? "" : "s", s->nruns,
		 s->nruns == 1 ? "" : "s",
		 s->nruns ? s->runs[0].kernel_release : "?");
	tbl_row(t, role, s->label, what);
}

/* "4 boots of each kernel", "2 boots of A and 4 of B" */
static void boots_words(const struct report_cmp *c, size_t na, size_t nb,
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
static bool plan_row(const struct report_cmp *c, const struct report_row *r,
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
		boots_words(c, na, nb, sb);
		strbuf_addf(sb, ": with no spread there is nothing to plan "
			    "with");
		return true;
	case PLAN_OK:
		break;
	}
	strbuf_addf(sb, "with ");
	boots_words(c, na, nb, sb);
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
static void print_plan(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT, line = STRBUF_INIT;
	bool head = false;
	size_t i;

	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		strbuf_release(&line);
		strbuf_addf(&line, "%s: ", r->name);
		if (!plan_row(c, r, &line))
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
			wrap(f, strbuf_str(&sb), 78, "");
			head = true;
		}
		wrap(f, strbuf_str(&line), 78, "  ");
	}
	strbuf_release(&line);
	strbuf_release(&sb);
}

static void print_aa(FILE *f, const struct report_cmp *c, bool md)
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
		wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
}

static void print_unmeasurable(FILE *f, const struct report_cmp *c,
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
	wrap(f, strbuf_str(&sb), cols, "");
	strbuf_release(&sb);
}

/* --- text ----------------------------------------------------------------- */

static int print_text_cmp(FILE *f, const struct report_cmp *c)
{
	struct tbl h = { .ncol = 3, .align = "lll" };
	struct tbl t = { .ncol = 12, .align = "lrrrrrrrrrrl",
			 .heading = true };
	struct strbuf sb = STRBUF_INIT;
	char a[64], sa[32], b[64], sbd[32], d[32], ci[48], p[40], pm[40];
	char m[64], pf[80], nb[32];
	size_t i;

	side_line(&h, c->aa ? "half 1" : "base", c->a);
	side_line(&h, c->aa ? "half 2" : "patch", c->b);
	tbl_print(f, &h);
	tbl_free(&h);
	fputc('\n', f);
	if (!c->nrows) {
		fprintf(f, "No case has values on either side.\n");
		return 0;
	}
	tbl_row(&t, c->workload ? c->workload : "case", "boots",
		c->aa ? "half 1" : "base", "±sd", c->aa ? "half 2" : "patch",
		"±sd", "change", "per folio", "95% CI", "p (Holm)",
		"p(U) (Holm)", "");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		fmt_val(r, r->a, r->va, false, a, sizeof(a));
		fmt_val(r, r->b, r->vb, false, b, sizeof(b));
		fmt_sd(r->sda, r->va, sa, sizeof(sa));
		fmt_sd(r->sdb, r->vb, sbd, sizeof(sbd));
		fmt_pct(r->delta, d, sizeof(d));
		fmt_ci(r, ci, sizeof(ci));
		fmt_p_holm(r->p, r->p_adj, p, sizeof(p));
		fmt_p_holm(r->p_mw, r->p_mw_adj, pm, sizeof(pm));
		fmt_mark(c, r, m, sizeof(m));
		fmt_folio(r, false, pf, sizeof(pf));
		nb[0] = '\0';
		if (c->boots_vary)
			fmt_boots(c, r, nb, sizeof(nb));
		tbl_row(&t, r->name, nb, a, sa, b, sbd, d, pf, ci, p, pm, m);
	}
	if (c->geo_n > 1) {
		fmt_pct(c->geo, d, sizeof(d));
		fmt_geo_mark(c, m, sizeof(m));
		tbl_row(&t, c->geo_cost ? "geomean (cost)" :
			"geomean", "", "", "", "", "", d, "", "", "",
			"", m);
	}
	tbl_print(f, &t);
	tbl_free(&t);
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, true);
	notes_boots(c, &sb, false);
	strbuf_addf(&sb, " ±sd: standard deviation of the %s, in percent.",
		    within_kind(c) == WITHIN_ALL ? "runs" :
		    within_kind(c) == WITHIN_SOME ? "boot medians, or of the "
		    "runs where a kernel has one boot" : "boot medians");
	wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
	print_unmeasurable(f, c, 78);
	print_aa(f, c, false);
	print_plan(f, c);
	return 0;
}


/* "lo to hi": the 95% CI of one kernel's value, or "-" */
static void fmt_ci_mean(const struct report_row *r, char *ci, size_t n)
{
	double v[3] = { r->va, r->ci_mean_lo, r->ci_mean_hi };
	struct report_scale sc;
	char lo[48], hi[48];

	if (isnan(r->ci_mean_lo)) {
		snprintf(ci, n, "-");
		return;
	}
	report_scale(v, 3, r->a->unit, false, &sc);
	report_scaled(r->ci_mean_lo, &sc, lo, sizeof(lo));
	report_scaled(r->ci_mean_hi, &sc, hi, sizeof(hi));
	snprintf(ci, n, "%s to %s", lo, hi);
}

static int print_text_export(FILE *f, const struct report_cmp *c)
{
	struct tbl h = { .ncol = 3, .align = "lll" };
	struct tbl t = { .ncol = 6, .align = "lrrrrr", .heading = true };
	struct strbuf sb = STRBUF_INIT;
	char v[64], sd[32], ci[128], nb[16], runs[32];
	size_t i;

	side_line(&h, "label", c->a);
	tbl_print(f, &h);
	tbl_free(&h);
	fputc('\n', f);
	if (!c->nrows) {
		fprintf(f, "No case has values.\n");
		return 0;
	}
	tbl_row(&t, c->workload ? c->workload : "case", "value", "±sd",
		"95% CI of the value", "boots", "runs");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];
		const struct report_series *x = r->a;

		report_value(r->va, r->va, x->unit, false, v, sizeof(v));
		fmt_sd(r->spread, r->va, sd, sizeof(sd));
		fmt_ci_mean(r, ci, sizeof(ci));
		snprintf(nb, sizeof(nb), "%zu", x->nboots);
		if (x->runs_min == x->runs_max)
			snprintf(runs, sizeof(runs), "%zu", x->runs_max);
		else
			snprintf(runs, sizeof(runs), "%zu-%zu", x->runs_min,
				 x->runs_max);
		tbl_row(&t, r->name, v, sd, ci, nb, runs);
	}
	tbl_print(f, &t);
	tbl_free(&t);
	fputc('\n', f);
	strbuf_addf(&sb, "%s Value: the mean of the %s; ±sd: their standard "
		    "deviation in percent, and the 95%% CI of the mean by "
		    "Student's t.", c->method, within_kind(c) == WITHIN_ALL ?
		    "runs" : "boot medians");
	if (within_kind(c) == WITHIN_ALL)
		strbuf_addf(&sb, " With one boot, ±sd and the CI say nothing "
			    "of how much boots differ.");
	else if (within_kind(c) == WITHIN_SOME)
		strbuf_addf(&sb, " Where there is one boot, the value is the "
			    "mean of its runs, and ±sd and the CI come from "
			    "them and say nothing of how much boots differ.");
	note_boots_low(c, &sb, false, "");
	wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
	print_unmeasurable(f, c, 78);
	return 0;
}

/* --- changelog ------------------------------------------------------------ */

/*
 * The table in at most cols columns.  Rows whose name would push it wider
 * get the name on lines of its own (broken where one line cannot hold it)
 * and the numbers on the next, indented.  Should the numbers alone be too
 * wide (a value of absurd size), each row becomes one wrapped paragraph.
 */
static void changelog_table(FILE *f, struct tbl *t, size_t cols)
{
	size_t w[16], r, i, fixed = 0, name_cap;

	tbl_widths(t, w);
	for (i = 1; i < t->ncol; i++)
		fixed += w[i] ? 2 + w[i] : 0;
	if (fixed > cols) {
		for (r = 0; r < t->nrows; r++) {
			struct strbuf sb = STRBUF_INIT;

			for (i = 0; i < t->ncol; i++)
				if ((!i || w[i]) && t->cell[r * t->ncol + i][0])
					strbuf_addf(&sb, "%s%s", sb.len ?
						    " " : "",
						    t->cell[r * t->ncol + i]);
			wrap_hang(f, strbuf_str(&sb), cols, "", "  ");
			strbuf_release(&sb);
		}
		return;
	}
	name_cap = cols - fixed;
	if (w[0] > name_cap) {
		/* the widest name that fits decides the column */
		w[0] = 0;
		for (r = 0; r < t->nrows; r++) {
			size_t x = width(t->cell[r * t->ncol]);

			if (x <= name_cap && x > w[0])
				w[0] = x;
		}
	}
	for (r = 0; r < t->nrows; r++) {
		const char *name = t->cell[r * t->ncol];

		if (width(name) > w[0]) {
			wrap_hang(f, name, cols, "", "  ");
			t->cell[r * t->ncol][0] = '\0';
		}
		tbl_print_row(f, t, w, r, 0);
	}
}

/*
 * The p of the rows marked ~, raw and after Holm, under the table: a
 * Holm-capped 1 beside a raw 0.61 is not "identical", and the table
 * itself stays narrow enough for the row names.
 */
static void changelog_p(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	char p[16], h[16];
	size_t i, n = 0;

	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!r->a || !r->b || r->untested || isnan(r->p) || r->sig)
			continue;
		fmt_p(r->p, p, sizeof(p));
		fmt_p(r->p_adj, h, sizeof(h));
		strbuf_addf(&sb, "%s%s (p=%s, Holm %s)", n++ ? "; " :
			    "Marked ~: ", r->words, p, h);
	}
	if (!n)
		return;
	strbuf_addf(&sb, ".");
	fputc('\n', f);
	wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
}

static int print_changelog_cmp(FILE *f, const struct report_cmp *c)
{
	struct tbl t = { .ncol = 7, .align = "lrrrrrl", .heading = true };
	struct strbuf sb = STRBUF_INIT;
	char a[64], b[64], d[32], m[64], pf[80], nb[32];
	size_t i, nonly = 0;

	strbuf_addf(&sb, "%s: %s, %s: %s", c->aa ? "first half" : "before",
		    c->a->label, c->aa ? "second half" : "after", c->b->label);
	wrap(f, strbuf_str(&sb), CHANGELOG_COLS, "");
	strbuf_release(&sb);
	fputc('\n', f);
	tbl_row(&t, c->workload ? c->workload : "", "boots", c->aa ?
		"half 1" : "before", c->aa ? "half 2" : "after", "",
		"per folio", "");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!r->a || !r->b) {
			nonly++;
			continue;
		}
		fmt_val(r, r->a, r->va, true, a, sizeof(a));
		fmt_val(r, r->b, r->vb, true, b, sizeof(b));
		fmt_pct(r->delta, d, sizeof(d));
		fmt_mark(c, r, m, sizeof(m));
		fmt_folio(r, true, pf, sizeof(pf));
		nb[0] = '\0';
		if (c->boots_vary)
			fmt_boots(c, r, nb, sizeof(nb));
		tbl_row(&t, r->words, nb, a, b, d, pf, m);
	}
	if (c->geo_n > 1) {
		fmt_pct(c->geo, d, sizeof(d));
		fmt_geo_mark(c, m, sizeof(m));
		tbl_row(&t, c->geo_cost ? "geomean (cost)" :
			"geomean", "", "", "", d, "", m);
	}
	if (t.nrows > 1)
		changelog_table(f, &t, CHANGELOG_COLS);
	tbl_free(&t);
	for (i = 0; nonly && i < 2; i++) {
		const struct report_side *s = i ? c->b : c->a;
		size_t k, n = 0;

		for (k = 0; k < c->nrows; k++) {
			const struct report_row *r = &c->rows[k];

			if (r->a && r->b)
				continue;
			if ((i == 0) != (r->a != NULL))
				continue;
			if (!n++)
				strbuf_addf(&sb, "Only measured on %s:",
					    s->label);
			strbuf_addf(&sb, "%s %s", n > 1 ? "," : "", r->words);
		}
		if (n) {
			strbuf_addf(&sb, ".");
			fputc('\n', f);
			wrap(f, strbuf_str(&sb), WRAP_COLS, "");
			strbuf_release(&sb);
		}
	}
	changelog_p(f, c);
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, false);
	notes_boots(c, &sb, true);
	wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
	print_unmeasurable(f, c, WRAP_COLS);
	if (c->aa && c->ntested) {
		strbuf_addf(&sb, "A/A: %zu of %zu rows differ after Holm (%zu "
			    "before); the halves are one kernel, so any that "
			    "differs is a false positive.", c->nsig, c->ntested,
			    c->nsig_raw);
		wrap(f, strbuf_str(&sb), WRAP_COLS, "");
		strbuf_release(&sb);
	}
	return 0;
}

static int print_changelog_export(FILE *f, const struct report_cmp *c)
{
	struct tbl t = { .ncol = 4, .align = "lrrr", .heading = true };
	struct strbuf sb = STRBUF_INIT;
	char v[64], sd[32], nb[32];
	size_t i;

	wrap(f, c->a->label, CHANGELOG_COLS, "");
	fputc('\n', f);
	tbl_row(&t, c->workload ? c->workload : "", "boots", "value",
		"spread");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		report_value(r->va, r->va, r->a->unit, true, v, sizeof(v));
		if (isnan(r->spread) || r->va == 0)
			snprintf(sd, sizeof(sd), "-");
		else
			snprintf(sd, sizeof(sd), "+-%.1f%%",
				 100 * r->spread / fabs(r->va));
		nb[0] = '\0';
		if (c->boots_vary)
			fmt_boots(c, r, nb, sizeof(nb));
		tbl_row(&t, r->words, nb, v, sd);
	}
	if (t.nrows > 1)
		changelog_table(f, &t, CHANGELOG_COLS);
	tbl_free(&t);
	fputc('\n', f);
	strbuf_addf(&sb, "%s Spread: standard deviation of the %s.", c->method,
		    within_kind(c) == WITHIN_ALL ? "runs of a single boot, "
		    "which does not show how much boots differ" :
		    within_kind(c) == WITHIN_SOME ? "boot medians, or, where "
		    "there is one boot, of its runs (whose mean is then the "
		    "value)" : "boot medians");
	note_boots_low(c, &sb, true, "");
	wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
	print_unmeasurable(f, c, WRAP_COLS);
	return 0;
}

/* --- markdown ------------------------------------------------------------- */

/* A cell: '|' would end it early. */
static void md_cell(FILE *f, const char *s)
{
	fputs("| ", f);
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r') {	/* a row a line */
			fprintf(f, "\\x%02x", *s);
			continue;
		}
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc(' ', f);
}

/* Running text: what markdown would take for markup is escaped. */
static void md_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\n' || *s == '\r') {	/* a paragraph a line */
			fprintf(f, "\\x%02x", *s);
			continue;
		}
		if (strchr("\\`*_[]<>|#", *s))
			fputc('\\', f);
		fputc(*s, f);
	}
}

static int print_markdown_cmp(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	char a[64], sa[32], b[64], sbd[32], d[32], ci[48], p[40], pm[40];
	char m[64], pf[80], nb[32];
	bool folio = false;
	size_t i;

	for (i = 0; i < c->nrows; i++)
		folio |= !isnan(c->rows[i].delta_folio);
	md_cell(f, c->workload ? c->workload : "case");
	if (c->boots_vary)
		fprintf(f, "| boots ");
	md_cell(f, c->a->label);
	fprintf(f, "| ±sd ");
	md_cell(f, c->b->label);
	fprintf(f, "| ±sd | change %s| 95%% CI | p (Holm) | p(U) (Holm) | "
		"|\n", folio ? "| per folio " : "");
	fprintf(f, "| --- %s| ---: | ---: | ---: | ---: | ---: %s| ---: | "
		"---: | ---: | --- |\n", c->boots_vary ? "| ---: " : "",
		folio ? "| ---: " : "");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		fmt_val(r, r->a, r->va, false, a, sizeof(a));
		fmt_val(r, r->b, r->vb, false, b, sizeof(b));
		fmt_sd(r->sda, r->va, sa, sizeof(sa));
		fmt_sd(r->sdb, r->vb, sbd, sizeof(sbd));
		fmt_pct(r->delta, d, sizeof(d));
		fmt_ci(r, ci, sizeof(ci));
		fmt_p_holm(r->p, r->p_adj, p, sizeof(p));
		fmt_p_holm(r->p_mw, r->p_mw_adj, pm, sizeof(pm));
		fmt_mark(c, r, m, sizeof(m));
		md_cell(f, r->words);
		if (c->boots_vary) {
			fmt_boots(c, r, nb, sizeof(nb));
			md_cell(f, nb);
		}
		md_cell(f, a);
		md_cell(f, sa);
		md_cell(f, b);
		md_cell(f, sbd);
		md_cell(f, d);
		if (folio) {
			fmt_folio(r, false, pf, sizeof(pf));
			md_cell(f, pf);
		}
		md_cell(f, ci);
		md_cell(f, p);
		md_cell(f, pm);
		md_cell(f, m);
		fprintf(f, "|\n");
	}
	if (c->geo_n > 1) {
		fmt_pct(c->geo, d, sizeof(d));
		fmt_geo_mark(c, m, sizeof(m));
		fprintf(f, "| %s %s| | | | | %s %s| | | | %s |\n",
			c->geo_cost ? "geomean (cost)" :
			"geomean", c->boots_vary ? "| " : "", d,
			folio ? "| " : "", m);
	}
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, true);
	notes_boots(c, &sb, true);
	fprintf(f, "%s\n", strbuf_str(&sb));
	strbuf_release(&sb);
	if (c->nunmeasurable) {
		fputc('\n', f);
		print_unmeasurable(f, c, 78);
	}
	print_aa(f, c, true);
	return 0;
}

static int print_markdown_export(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	char v[64], sd[32], ci[128];
	size_t i;

	md_cell(f, c->workload ? c->workload : "case");
	md_cell(f, c->a->label);
	fprintf(f, "| ±sd | 95%% CI | boots | runs |\n");
	fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];
		const struct report_series *x = r->a;

		report_value(r->va, r->va, x->unit, false, v, sizeof(v));
		fmt_sd(r->spread, r->va, sd, sizeof(sd));
		fmt_ci_mean(r, ci, sizeof(ci));
		md_cell(f, r->words);
		md_cell(f, v);
		md_cell(f, sd);
		md_cell(f, ci);
		fprintf(f, "| %zu ", x->nboots);
		if (x->runs_min == x->runs_max)
			fprintf(f, "| %zu |\n", x->runs_max);
		else
			fprintf(f, "| %zu-%zu |\n", x->runs_min, x->runs_max);
	}
	fputc('\n', f);
	strbuf_addf(&sb, "%s Value: the mean of the %s; ±sd: their standard "
		    "deviation in percent.", c->method,
		    within_kind(c) == WITHIN_ALL ? "runs" : "boot medians");
	if (within_kind(c) == WITHIN_SOME)
		strbuf_addf(&sb, " Where there is one boot, the value is the "
			    "mean of its runs, and ±sd and the CI come from "
			    "them.");
	fprintf(f, "%s\n", strbuf_str(&sb));
	strbuf_release(&sb);
	if (c->nunmeasurable) {
		fputc('\n', f);
		print_unmeasurable(f, c, 78);
	}
	return 0;
}

/* --- csv ------------------------------------------------------------------ */

static void csv_str(FILE *f, const char *s, bool last)
{
	if (strpbrk(s, ",\"\n\r")) {
		fputc('"', f);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

/* Full precision for machines; an empty field where there is no value. */
static void csv_num(FILE *f, double v, bool last)
{
	if (!isnan(v))
		fprintf(f, "%.10g", v);
	fputc(last ? '\n' : ',', f);
}

/* mean and sd: what the row compares, over its units ("boots", "runs") */
static void csv_side(FILE *f, const struct report_side *s,
		     const struct report_series *x, double mean, double sd)
{
	csv_str(f, s->label, false);
	if (!x) {
		fputs(",,,,,", f);
		return;
	}
	fprintf(f, "%zu,%zu,%zu,", x->nboots, x->runs_min, x->runs_max);
	csv_num(f, mean, false);
	csv_num(f, sd, false);
}

static int print_csv(FILE *f, const struct report_cmp *c)
{
	size_t i;

	if (c->b)
		fputs("workload,params,asked,metric,unit,better,primary,base,"
		      "base_boots,"
		      "base_runs_min,base_runs_max,base_mean,base_sd,patch,"
		      "patch_boots,patch_runs_min,patch_runs_max,patch_mean,"
		      "patch_sd,change_pct,ci_low_pct,ci_high_pct,units,"
		      "welch_df,p_welch,p_welch_holm,p_mwu,p_mwu_holm,"
		      "significant,direction,detectable_pct,boots_needed,"
		      "holm_rows,no_test\n", f);
	else
		fputs("workload,params,asked,metric,unit,better,primary,label,"
		      "boots,"
		      "runs_min,runs_max,mean,sd,spread_units,spread,"
		      "ci_low,ci_high\n", f);
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];
		const struct report_series *x = ser(r);

		csv_str(f, x->workload, false);
		csv_str(f, x->params, false);
		csv_str(f, x->asked ? x->asked : "", false);
		csv_str(f, x->metric, false);
		csv_str(f, x->unit, false);
		csv_str(f, x->higher ? "higher" : "lower", false);
		csv_str(f, r->primary ? "yes" : "no", false);
		csv_side(f, c->a, r->a, r->va, c->b ? r->sda : r->a->sd);
		if (!c->b) {
			csv_str(f, r->within ? "runs" : "boots", false);
			csv_num(f, r->spread, false);
			csv_num(f, r->ci_mean_lo, false);
			csv_num(f, r->ci_mean_hi, true);
			continue;
		}
		csv_side(f, c->b, r->b, r->vb, r->sdb);
		csv_num(f, r->delta, false);
		csv_num(f, r->ci_lo, false);
		csv_num(f, r->ci_hi, false);
		csv_str(f, !r->a || !r->b ? "" : r->within ? "runs" : "boots",
			false);
		csv_num(f, r->df, false);
		csv_num(f, r->p, false);
		csv_num(f, r->p_adj, false);
		csv_num(f, r->p_mw, false);
		csv_num(f, r->p_mw_adj, false);
		csv_str(f, !r->a || !r->b || isnan(r->p) ? "" :
			r->sig ? "yes" : "no", false);
		csv_str(f, report_dir_word(r), false);
		csv_num(f, r->mde, false);
		if (r->need > REPORT_NEED_CAP)
			fprintf(f, ">%d,", REPORT_NEED_CAP);
		else if (r->need > 0)
			fprintf(f, "%ld,", r->need);
		else
			fputc(',', f);
		/* the rows its p was corrected over; why it has no test */
		if (r->family)
			fprintf(f, "%zu", r->family);
		fputc(',', f);
		csv_str(f, r->untested ? r->untested : "", true);
	}
	return 0;
}

/* --- kernel warnings, in every format ------------------------------------ */

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
		wrap(f, head, fmt == REPORT_CHANGELOG ? WRAP_COLS : 78, "");
		for (i = 0; i < c->nkwarn; i++) {
			/* a line of its own: its newlines escaped too */
			char *line = NULL;
			size_t n = 0;
			FILE *m = xopen_memstream(&line, &n);

			fputs_term(c->kwarn[i], m, "");
			if (fclose(m))
				return -ENOMEM;
			wrap_hang(f, line, fmt == REPORT_CHANGELOG ?
				  WRAP_COLS : 78, "  ", "    ");
			free(line);
		}
		break;
	}
	return 0;
}

static int report_print_raw(FILE *f, const struct report_cmp *c,
			    enum report_format fmt);

/*
 * The formats people read on a terminal (text, changelog, markdown) are
 * written through fputs_term(): labels, kernel names and lines from the
 * database can hold any byte.  CSV and JSON are for machines and keep
 * every value exact (JSON escapes control characters; CSV quotes them).
 */
int report_print(FILE *f, const struct report_cmp *c, enum report_format fmt)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = f;
	int r;

	if (fmt != REPORT_CSV && fmt != REPORT_JSON) {
		f = xopen_memstream(&text, &len);
	}
	r = report_print_raw(f, c, fmt);
	if (f != out) {
		if (fclose(f) && !r)
			r = -ENOMEM;
		if (!r && fputs_term(text, out, "\n"))
			r = -EIO;
		free(text);
	}
	if (r)
		return r;
	if (fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

static int report_print_raw(FILE *f, const struct report_cmp *c,
			    enum report_format fmt)
{
	int r = 0;

	switch (fmt) {
	case REPORT_TEXT:
		r = c->b ? print_text_cmp(f, c) : print_text_export(f, c);
		break;
	case REPORT_CHANGELOG:
		r = c->b ? print_changelog_cmp(f, c) :
			   print_changelog_export(f, c);
		break;
	case REPORT_MARKDOWN:
		r = c->b ? print_markdown_cmp(f, c) :
			   print_markdown_export(f, c);
		break;
	case REPORT_CSV:
		r = print_csv(f, c);
		break;
	case REPORT_JSON:
		r = report_print_json(f, c);
		break;
	}
	if (r)
		return r;
	report_print_kwarn(f, c, fmt);
	return ferror(f) ? -EIO : 0;
}
