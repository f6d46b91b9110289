/* The markdown format: a table and notes for a merge request. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

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
void md_text(FILE *f, const char *s)
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
	struct row_cells x;
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

		fmt_row_cells(c, r, false, &x);
		md_cell(f, r->words);
		if (c->boots_vary)
			md_cell(f, x.nb);
		md_cell(f, x.a);
		md_cell(f, x.sa);
		md_cell(f, x.b);
		md_cell(f, x.sb);
		md_cell(f, x.d);
		if (folio)
			md_cell(f, x.pf);
		md_cell(f, x.ci);
		md_cell(f, x.p);
		md_cell(f, x.pm);
		md_cell(f, x.m);
		fprintf(f, "|\n");
	}
	if (c->geo_n > 1) {
		fmt_pct(c->geo, x.d, sizeof(x.d));
		fmt_geo_mark(c, x.m, sizeof(x.m));
		fprintf(f, "| %s %s| | | | | %s %s| | | | %s |\n",
			c->geo_cost ? "geomean (cost)" :
			"geomean", c->boots_vary ? "| " : "", x.d,
			folio ? "| " : "", x.m);
	}
	fputc('\n', f);
	strbuf_addf(&sb, "%s ", c->method);
	notes_tests(c, &sb, true);
	notes_boots(c, &sb, true);
	fprintf(f, "%s\n", strbuf_str(&sb));
	strbuf_release(&sb);
	if (c->nunmeasurable) {
		fputc('\n', f);
		note_unmeasurable(f, c, 78);
	}
	note_aa(f, c, true);
	return 0;
}

static int print_markdown_export(FILE *f, const struct report_cmp *c)
{
	struct strbuf sb = STRBUF_INIT;
	struct alone_cells x;
	size_t i;

	md_cell(f, c->workload ? c->workload : "case");
	md_cell(f, c->a->label);
	fprintf(f, "| ±sd | 95%% CI | boots | runs |\n");
	fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < c->nrows; i++) {
		const struct report_row *r = &c->rows[i];

		fmt_alone_cells(r, &x);
		md_cell(f, r->words);
		md_cell(f, x.v);
		md_cell(f, x.sd);
		md_cell(f, x.ci);
		fprintf(f, "| %s | %s |\n", x.nb, x.runs);
	}
	fputc('\n', f);
	strbuf_addf(&sb, "%s Value: the mean of the %s; ±sd: their standard "
		    "deviation in percent.", c->method,
		    note_within(c) == WITHIN_ALL ? "runs" : "boot medians");
	if (note_within(c) == WITHIN_SOME)
		strbuf_addf(&sb, " Where there is one boot, the value is the "
			    "mean of its runs, and ±sd and the CI come from "
			    "them.");
	fprintf(f, "%s\n", strbuf_str(&sb));
	strbuf_release(&sb);
	if (c->nunmeasurable) {
		fputc('\n', f);
		note_unmeasurable(f, c, 78);
	}
	return 0;
}

const struct report_fmt report_fmt_markdown = {
	"markdown", print_markdown_cmp, print_markdown_export, true,
};
