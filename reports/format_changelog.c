/*
 * The changelog format: plain ASCII in at most 75 columns, as kernel
 * changelogs quote results.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

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
			tbl_wrap_hang(f, strbuf_str(&sb), cols, "", "  ");
			strbuf_release(&sb);
		}
		return;
	}
	name_cap = cols - fixed;
	if (w[0] > name_cap) {
		/* the widest name that fits decides the column */
		w[0] = 0;
		for (r = 0; r < t->nrows; r++) {
			size_t x = tbl_width(t->cell[r * t->ncol]);

			if (x <= name_cap && x > w[0])
				w[0] = x;
		}
	}
	for (r = 0; r < t->nrows; r++) {
		const char *name = t->cell[r * t->ncol];

		if (tbl_width(name) > w[0]) {
			tbl_wrap_hang(f, name, cols, "", "  ");
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
	tbl_wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
}

/* The table of the rows both sides measured, and the geomean's. */
static void changelog_cmp_table(FILE *f, const struct report_cmp *c,
				size_t *nonly)
{
	struct tbl t = { .ncol = 7, .align = "lrrrrrl", .heading = true };
	char a[64], b[64], d[32], m[64], pf[80], nb[32];
	size_t i;

	tbl_row(&t, c->workload ? c->workload : "", "boots", c->aa ?
		"half 1" : "before", c->aa ? "half 2" : "after", "",
		"per folio", "");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		if (!r->a || !r->b) {
			(*nonly)++;
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
}

/* "Only measured on LABEL: ..." for each side that has such rows. */
static void changelog_only(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i, k, n;

	for (i = 0; i < 2; i++) {
		const struct report_side *s = i ? c->b : c->a;

		for (k = n = 0; k < c->nrows; k++) {
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
			tbl_wrap(f, strbuf_str(&sb), WRAP_COLS, "");
			strbuf_release(&sb);
		}
	}
}

static int print_changelog_cmp(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t nonly = 0;

	strbuf_addf(&sb, "%s: %s, %s: %s", c->aa ? "first half" : "before",
		    c->a->label, c->aa ? "second half" : "after", c->b->label);
	tbl_wrap(f, strbuf_str(&sb), CHANGELOG_COLS, "");
	strbuf_release(&sb);
	fputc('\n', f);
	changelog_cmp_table(f, c, &nonly);
	if (nonly)
		changelog_only(f, c);
	changelog_p(f, c);
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, false);
	notes_boots(c, &sb, true);
	tbl_wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
	note_unmeasurable(f, c, WRAP_COLS);
	if (c->aa && c->ntested) {
		strbuf_addf(&sb, "A/A: %zu of %zu rows differ after Holm (%zu "
			    "before); the halves are one kernel, so any that "
			    "differs is a false positive.", c->nsig, c->ntested,
			    c->nsig_raw);
		tbl_wrap(f, strbuf_str(&sb), WRAP_COLS, "");
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

	tbl_wrap(f, c->a->label, CHANGELOG_COLS, "");
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
		    note_within(c) == WITHIN_ALL ? "runs of a single boot, "
		    "which does not show how much boots differ" :
		    note_within(c) == WITHIN_SOME ? "boot medians, or, where "
		    "there is one boot, of its runs (whose mean is then the "
		    "value)" : "boot medians");
	note_boots_low(c, &sb, true, "");
	tbl_wrap(f, strbuf_str(&sb), WRAP_COLS, "");
	strbuf_release(&sb);
	note_unmeasurable(f, c, WRAP_COLS);
	return 0;
}

const struct report_fmt report_fmt_changelog = {
	"changelog", print_changelog_cmp, print_changelog_export, true,
};
