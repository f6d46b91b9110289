/*
 * What the report formats share, private to reports/: the table engine
 * (table.c), the cells of a row (cells.c, html.c's too), the notes under
 * a table (notes.c), and one entry a format (format_*.c, json.c) that
 * report_print() picks from (format.c): the formats' names are there.
 */
#ifndef FB_REPORT_FORMAT_H
#define FB_REPORT_FORMAT_H

#include <stdbool.h>
#include <stdio.h>

#include "reports/compare.h"

#define CHANGELOG_COLS	75
#define WRAP_COLS	72

/* --- the table engine: aligned columns, wrapped text (table.c) ---------- */

struct tbl {
	size_t ncol;
	const char *align;	/* 'l' or 'r' per column */
	bool heading;		/* row 0 names the columns */
	char **cell;		/* row-major */
	size_t nrows, alloc;
};

/* Display width of UTF-8 text: count the bytes that start a character. */
size_t tbl_width(const char *s);
void tbl_row(struct tbl *t, ...);
void tbl_free(struct tbl *t);
/*
 * Column widths; a column empty below its heading is left out (width 0),
 * such as "per folio" for a workload that gives no per-folio metric.
 */
void tbl_widths(const struct tbl *t, size_t *w);
/* One row, columns two spaces apart, no trailing blanks. */
void tbl_print_row(FILE *f, const struct tbl *t, const size_t *w,
		   size_t r, size_t first);
void tbl_print(FILE *f, const struct tbl *t);
/*
 * Words wrapped at cols, the first line starting with first and the others
 * with indent.  A word wider than a line is broken (cut), so that no line
 * is wider than cols: the changelog's promise of 75 columns holds for any
 * label, path or name.
 */
void tbl_wrap_hang(FILE *f, const char *text, size_t cols,
		   const char *first, const char *indent);
/* Words wrapped at cols, each line starting with indent. */
void tbl_wrap(FILE *f, const char *text, size_t cols, const char *indent);

/* --- the cells of a row, shared by every human format (cells.c) --------- */

void fmt_pct(double v, char *buf, size_t n);
void fmt_p(double p, char *buf, size_t n);
/* The raw p and Holm's beside it: "0.61 (1)", so a capped 1 is not read
 * as "identical". */
void fmt_p_holm(double p, double adj, char *buf, size_t n);
void fmt_ci(const struct report_row *r, char *buf, size_t n);
/* The spread as a percentage of the value. */
void fmt_sd(double sd, double mean, char *buf, size_t n);
const struct report_series *fmt_ser(const struct report_row *r);
/* The value a row compares on one side (r->va or r->vb). */
void fmt_val(const struct report_row *r, const struct report_series *x,
	     double v, bool ascii, char *buf, size_t n);
/* The change per folio, "-15.2 ns/folio"; empty where there is none. */
void fmt_folio(const struct report_row *r, bool ascii, char *buf,
	       size_t n);
/* The verdict column: "faster", "~", "base only". */
void fmt_mark(const struct report_cmp *c, const struct report_row *r,
	      char *buf, size_t n);
/* The geometric mean has no test of its own: its cell says so. */
void fmt_geo_mark(const struct report_cmp *c, char *buf, size_t n);
/* "5" when both kernels have as many boots, else "5/2"; "-" absent. */
void fmt_boots(const struct report_cmp *c, const struct report_row *r,
	       char *buf, size_t n);
/* "lo to hi": the 95% CI of one kernel's value, or "-" */
void fmt_ci_mean(const struct report_row *r, char *ci, size_t n);

/* The cells of one compare row, as every human format shows them. */
struct row_cells {
	char a[64], sa[32];	/* base (half 1): value, ±sd */
	char b[64], sb[32];	/* patch (half 2) */
	char d[32], ci[48];	/* the change and its 95% CI */
	char p[40], pm[40];	/* Welch's p (Holm), Mann-Whitney's */
	char m[64], pf[80];	/* the verdict, the change per folio */
	char nb[32];		/* boots where they vary, else "" */
};
/* Every cell of r; ascii: units in ASCII ("us" for "µs"). */
void fmt_row_cells(const struct report_cmp *c, const struct report_row *r,
		   bool ascii, struct row_cells *x);
/* The cells of one kernel's row alone (an export). */
struct alone_cells {
	char v[64], sd[32], ci[128];	/* value, ±sd, 95% CI of the value */
	char nb[16], runs[32];		/* boots; runs a boot, "3" or "2-4" */
};
void fmt_alone_cells(const struct report_row *r, struct alone_cells *x);

/* --- notes under a table (notes.c) -------------------------------------- */

/* Do the rows stand on boot medians, on the runs of one boot, or both? */
enum within { WITHIN_NONE, WITHIN_SOME, WITHIN_ALL };
enum within note_within(const struct report_cmp *c);
/*
 * "Fewer than 3 boots of a kernel: ..." for the whole table, or naming
 * the rows it holds for (in words, or config syntax for the terminal).
 */
void note_boots_low(const struct report_cmp *c, struct strbuf *sb,
		    bool words, const char *of);
void notes_tests(const struct report_cmp *c, struct strbuf *sb,
		 bool with_ci);
void notes_boots(const struct report_cmp *c, struct strbuf *sb,
		 bool words);
void note_side_line(struct tbl *t, const char *role,
		    const struct report_side *s);
/*
 * What more boots would buy.  The verdict is Holm's, whose threshold for
 * a row depends on the p of the others, unknown until the boots are run:
 * plan at alpha over the family's rows, the strictest step, which a row
 * that reaches it passes whatever the others show.
 */
void note_plan(FILE *f, const struct report_cmp *c);
void note_aa(FILE *f, const struct report_cmp *c, bool md);
void note_unmeasurable(FILE *f, const struct report_cmp *c,
		       size_t cols);

/* --- the formats -------------------------------------------------------- */

/*
 * One format: its name for --format, how it prints a comparison and one
 * kernel alone (an export), and whether its text goes through
 * fputs_term() (the formats people read on a terminal) or stays exact.
 */
struct report_fmt {
	const char *name;
	int (*print_cmp)(FILE *f, const struct report_cmp *c);
	int (*print_export)(FILE *f, const struct report_cmp *c);
	bool term;
};
extern const struct report_fmt report_fmt_text;	/* format_text.c */
extern const struct report_fmt report_fmt_changelog;
extern const struct report_fmt report_fmt_markdown;
extern const struct report_fmt report_fmt_csv;
extern const struct report_fmt report_fmt_json;	/* json.c */
/*
 * d as cJSON 1.7.15 prints a number ("null", "%1.15g" or "%1.17g"),
 * faster (json_num.c): into buf of len >= 32, its length.
 */
int report_json_number(double d, char *buf, size_t len);
/* Running text: what markdown would take for markup is escaped. */
void md_text(FILE *f, const char *s);

#endif
