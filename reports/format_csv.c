/* The CSV format: one row a case, every value exact, for machines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

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
		const struct report_series *x = fmt_ser(r);

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

const struct report_fmt report_fmt_csv = {
	"csv", print_csv, print_csv, false,
};
