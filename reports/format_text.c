/* The text format: aligned tables for a terminal. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

static int print_text_cmp(FILE *f, const struct report_cmp *c)
{
	struct tbl h = { .ncol = 3, .align = "lll" };
	struct tbl t = { .ncol = 12, .align = "lrrrrrrrrrrl",
			 .heading = true };
	struct strbuf sb = STRBUF_INIT;
	struct row_cells x;
	size_t i;

	note_side_line(&h, c->aa ? "half 1" : "base", c->a);
	note_side_line(&h, c->aa ? "half 2" : "patch", c->b);
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

		fmt_row_cells(c, r, false, &x);
		tbl_row(&t, r->name, x.nb, x.a, x.sa, x.b, x.sb, x.d, x.pf,
			x.ci, x.p, x.pm, x.m);
	}
	if (c->geo_n > 1) {
		fmt_pct(c->geo, x.d, sizeof(x.d));
		fmt_geo_mark(c, x.m, sizeof(x.m));
		tbl_row(&t, c->geo_cost ? "geomean (cost)" :
			"geomean", "", "", "", "", "", x.d, "", "", "",
			"", x.m);
	}
	tbl_print(f, &t);
	tbl_free(&t);
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, true);
	notes_boots(c, &sb, false);
	strbuf_addf(&sb, " ±sd: standard deviation of the %s, in percent.",
		    note_within(c) == WITHIN_ALL ? "runs" :
		    note_within(c) == WITHIN_SOME ? "boot medians, or of the "
		    "runs where a kernel has one boot" : "boot medians");
	tbl_wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
	note_unmeasurable(f, c, 78);
	note_aa(f, c, false);
	note_plan(f, c);
	return 0;
}


static int print_text_export(FILE *f, const struct report_cmp *c)
{
	struct tbl h = { .ncol = 3, .align = "lll" };
	struct tbl t = { .ncol = 6, .align = "lrrrrr", .heading = true };
	struct strbuf sb = STRBUF_INIT;
	struct alone_cells x;
	size_t i;

	note_side_line(&h, "label", c->a);
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

		fmt_alone_cells(r, &x);
		tbl_row(&t, r->name, x.v, x.sd, x.ci, x.nb, x.runs);
	}
	tbl_print(f, &t);
	tbl_free(&t);
	fputc('\n', f);
	strbuf_addf(&sb, "%s Value: the mean of the %s; ±sd: their standard "
		    "deviation in percent, and the 95%% CI of the mean by "
		    "Student's t.", c->method, note_within(c) == WITHIN_ALL ?
		    "runs" : "boot medians");
	if (note_within(c) == WITHIN_ALL)
		strbuf_addf(&sb, " With one boot, ±sd and the CI say nothing "
			    "of how much boots differ.");
	else if (note_within(c) == WITHIN_SOME)
		strbuf_addf(&sb, " Where there is one boot, the value is the "
			    "mean of its runs, and ±sd and the CI come from "
			    "them and say nothing of how much boots differ.");
	note_boots_low(c, &sb, false, "");
	tbl_wrap(f, strbuf_str(&sb), 78, "");
	strbuf_release(&sb);
	note_unmeasurable(f, c, 78);
	return 0;
}

const struct report_fmt report_fmt_text = {
	"text", print_text_cmp, print_text_export, true,
};
