/*
 * The JSON report, versioned (tool, schema and format versions), and the
 * one file that uses cJSON: build the whole tree, print it, one delete.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "reports/format.h"
#include "reports/profile.h"

/* Version of the layout below: bump it when a key changes meaning. */
#define REPORT_JSON_FORMAT	1

/*
 * NaN is not JSON: a number that cannot be computed is null.  Its text as
 * cJSON prints a number, made faster (json_num.c): a report holds a boot
 * median of each series and boot, 760000 of them at 10^6 samples.
 */
static cJSON *num(double v)
{
	char buf[32];

	if (!isfinite(v))
		return cJSON_CreateNull();
	report_json_number(v, buf, sizeof(buf));
	return cJSON_CreateRaw(buf);
}

static bool add_num(cJSON *o, const char *k, double v)
{
	cJSON *n = num(v);

	return n && cJSON_AddItemToObject(o, k, n);
}

static cJSON *side_json(const struct report_side *s)
{
	cJSON *o = cJSON_CreateObject(), *runs;
	size_t i;

	if (!o || !cJSON_AddStringToObject(o, "label", s->label) ||
	    !cJSON_AddStringToObject(o, "db_label", s->db_label) ||
	    /* what its rows' units are: time, or guest instructions */
	    !cJSON_AddStringToObject(o, "clock", s->clock.counted ?
				     "instructions" : "time") ||
	    !cJSON_AddItemToObject(o, "icount_shift", s->clock.counted ?
				   cJSON_CreateNumber(s->clock.shift) :
				   cJSON_CreateNull()) ||
	    !cJSON_AddNumberToObject(o, "boots", (double)s->nboots) ||
	    !(runs = cJSON_AddArrayToObject(o, "runs")))
		goto fail;
	for (i = 0; i < s->nruns; i++) {
		const struct report_run *r = &s->runs[i];
		cJSON *ro = cJSON_CreateObject();

		if (!ro || !cJSON_AddItemToArray(runs, ro) ||
		    !cJSON_AddStringToObject(ro, "uuid", r->uuid) ||
		    !cJSON_AddStringToObject(ro, "kernel_release",
					     r->kernel_release) ||
		    !cJSON_AddStringToObject(ro, "boot_id", r->boot_id) ||
		    !cJSON_AddStringToObject(ro, "hostname", r->hostname) ||
		    !cJSON_AddStringToObject(ro, "cpu_model", r->cpu_model) ||
		    !cJSON_AddNumberToObject(ro, "vcpus", (double)r->vcpus) ||
		    !cJSON_AddNumberToObject(ro, "mem_bytes",
					     (double)r->mem_bytes) ||
		    !cJSON_AddStringToObject(ro, "cmdline", r->cmdline) ||
		    !cJSON_AddStringToObject(ro, "tool_version",
					     r->tool_version) ||
		    !cJSON_AddStringToObject(ro, "started_at", r->started_at) ||
		    !cJSON_AddItemToObject(ro, "kernel_warnings",
					   r->kernel_warnings < 0 ?
					   cJSON_CreateNull() :
					   cJSON_CreateNumber((double)
						r->kernel_warnings)))
			goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static cJSON *series_json(const struct report_series *x)
{
	cJSON *o = cJSON_CreateObject(), *med;
	size_t i;

	if (!o || !cJSON_AddNumberToObject(o, "boots", (double)x->nboots) ||
	    !cJSON_AddNumberToObject(o, "runs_min", (double)x->runs_min) ||
	    !cJSON_AddNumberToObject(o, "runs_max", (double)x->runs_max) ||
	    !add_num(o, "mean", x->mean) || !add_num(o, "sd", x->sd) ||
	    /* what a row on "runs" compares: the mean of every run */
	    !add_num(o, "run_mean", x->run_mean) ||
	    !add_num(o, "run_sd", x->run_sd) ||
	    !(med = cJSON_AddArrayToObject(o, "boot_medians")))
		goto fail;
	for (i = 0; i < x->nboots; i++) {
		cJSON *n = num(x->med[i]);

		if (!n || !cJSON_AddItemToArray(med, n))
			goto fail;
	}
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static bool add_series(cJSON *o, const char *k,
		       const struct report_series *x)
{
	cJSON *s = x ? series_json(x) : cJSON_CreateNull();

	return s && cJSON_AddItemToObject(o, k, s);
}

/* {"value": -15.2, "unit": "ns/folio"} */
static cJSON *folio_json(const struct report_row *r)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddNumberToObject(o, "value", r->delta_folio) ||
	    !cJSON_AddStringToObject(o, "unit", r->fa->unit)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *row_json(const struct report_cmp *c, const struct report_row *r)
{
	const struct report_series *x = r->a ? r->a : r->b;
	cJSON *o = cJSON_CreateObject(), *params, *ci;
	const char *units = !r->a || (c->b && !r->b) ? NULL :
			    r->within ? "runs" : "boots";

	if (!o)
		return NULL;
	/* The canonical params are JSON already: nest them as an object. */
	params = cJSON_Parse(x->params);
	if (!params)
		params = cJSON_CreateString(x->params);
	if (!params || !cJSON_AddItemToObject(o, "params", params))
		goto fail;
	/* what the config asked for, where preflight adapted the case */
	params = x->asked ? cJSON_Parse(x->asked) : cJSON_CreateNull();
	if (!params && x->asked)
		params = cJSON_CreateString(x->asked);
	if (!params || !cJSON_AddItemToObject(o, "asked", params))
		goto fail;
	if (!cJSON_AddStringToObject(o, "name", r->name) ||
	    !cJSON_AddStringToObject(o, "words", r->words) ||
	    !cJSON_AddStringToObject(o, "workload", x->workload) ||
	    !cJSON_AddStringToObject(o, "metric", x->metric) ||
	    !cJSON_AddStringToObject(o, "unit", x->unit) ||
	    !cJSON_AddStringToObject(o, "better",
				     x->higher ? "higher" : "lower") ||
	    !cJSON_AddBoolToObject(o, "primary", r->primary) ||
	    !cJSON_AddItemToObject(o, "units", units ?
				   cJSON_CreateString(units) :
				   cJSON_CreateNull()))
		goto fail;
	if (!c->b) {
		if (!add_series(o, "value", r->a) ||
		    !add_num(o, "spread", r->spread) ||
		    !(ci = cJSON_AddArrayToObject(o, "ci95")) ||
		    !cJSON_AddItemToArray(ci, num(r->ci_mean_lo)) ||
		    !cJSON_AddItemToArray(ci, num(r->ci_mean_hi)))
			goto fail;
		return o;
	}
	if (!add_series(o, "base", r->a) || !add_series(o, "patch", r->b) ||
	    !add_num(o, "change_pct", r->delta) ||
	    !cJSON_AddItemToObject(o, "change_per_folio", isnan(r->delta_folio)
				   ? cJSON_CreateNull() : folio_json(r)) ||
	    !(ci = cJSON_AddArrayToObject(o, "change_ci95_pct")) ||
	    !cJSON_AddItemToArray(ci, num(r->ci_lo)) ||
	    !cJSON_AddItemToArray(ci, num(r->ci_hi)) ||
	    !add_num(o, "welch_df", r->df) ||
	    !add_num(o, "p_welch", r->p) ||
	    !add_num(o, "p_welch_holm", r->p_adj) ||
	    !add_num(o, "p_mwu", r->p_mw) ||
	    !add_num(o, "p_mwu_holm", r->p_mw_adj) ||
	    !cJSON_AddItemToObject(o, "mwu_exact", isnan(r->p_mw) ?
				   cJSON_CreateNull() :
				   cJSON_CreateBool(r->mw_exact)) ||
	    !cJSON_AddItemToObject(o, "significant", isnan(r->p) ?
				   cJSON_CreateNull() :
				   cJSON_CreateBool(r->sig)) ||
	    !cJSON_AddItemToObject(o, "direction", r->dir ?
				   cJSON_CreateString(report_dir_word(r)) :
				   cJSON_CreateNull()) ||
	    !add_num(o, "detectable_pct", r->mde) ||
	    !add_num(o, "boots_needed", r->need > 0 &&
		     r->need <= REPORT_NEED_CAP ? (double)r->need : NAN) ||
	    !cJSON_AddBoolToObject(o, "boots_needed_over_cap",
				   r->need > REPORT_NEED_CAP) ||
	    !cJSON_AddItemToObject(o, "holm_rows", r->family ?
				   cJSON_CreateNumber((double)r->family) :
				   cJSON_CreateNull()) ||
	    !cJSON_AddItemToObject(o, "no_test", r->untested ?
				   cJSON_CreateString(r->untested) :
				   cJSON_CreateNull()))
		goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

static bool add_strings(cJSON *o, const char *k, char **v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, k);
	size_t i;

	if (!a)
		return false;
	for (i = 0; i < n; i++) {
		cJSON *s = cJSON_CreateString(v[i]);

		if (!s || !cJSON_AddItemToArray(a, s))
			return false;
	}
	return true;
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* {"base": a, "patch": b, "change": b - a}: null where not known. */
static bool add_pair(cJSON *o, const char *k, const double v[2])
{
	cJSON *x = cJSON_AddObjectToObject(o, k);

	return x && add_num(x, "base", v[0]) && add_num(x, "patch", v[1]) &&
	       add_num(x, "change", v[1] - v[0]);
}

static cJSON *prof_side_json(const struct report_prof_side *s)
{
	cJSON *o = cJSON_CreateObject();

	if (!o || !cJSON_AddBoolToObject(o, "profiled", s->has) ||
	    !cJSON_AddItemToObject(o, "off", str_or_null(s->off)) ||
	    !cJSON_AddItemToObject(o, "event", str_or_null(s->event)) ||
	    !cJSON_AddItemToObject(o, "unit", str_or_null(s->unit)) ||
	    !add_num(o, "period", s->period) ||
	    !cJSON_AddNumberToObject(o, "samples", (double)s->samples) ||
	    !cJSON_AddNumberToObject(o, "boots", (double)s->nboots) ||
	    !add_num(o, "median", s->median) ||
	    !cJSON_AddItemToObject(o, "median_unit",
				   str_or_null(s->median_unit))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *prof_fn_json(const struct report_prof_fn *f)
{
	cJSON *o = cJSON_CreateObject();
	bool a = f->incl[0] > 0, b = f->incl[1] > 0;

	if (!o || !cJSON_AddStringToObject(o, "function", f->name) ||
	    !add_pair(o, "self", f->self) ||
	    !add_pair(o, "with_children", f->incl) ||
	    !add_pair(o, "cost", f->cost) ||
	    !cJSON_AddItemToObject(o, "only", str_or_null(!b ? "base" :
				   !a ? "patch" : NULL))) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static cJSON *prof_case_json(const struct report_prof *p,
			     const struct report_prof_case *c)
{
	cJSON *o = cJSON_CreateObject(), *params, *fns, *x;
	size_t i, n = c->nfn < p->top ? c->nfn : p->top;
	bool shown = !c->few && c->s[0].has && c->s[1].has;

	if (!o)
		return NULL;
	params = cJSON_Parse(c->params);
	if (!params)
		params = cJSON_CreateString(c->params);
	if (!params || !cJSON_AddItemToObject(o, "params", params) ||
	    !cJSON_AddStringToObject(o, "workload", c->workload) ||
	    !cJSON_AddStringToObject(o, "name", c->name) ||
	    !(x = prof_side_json(&c->s[0])) ||
	    !cJSON_AddItemToObject(o, "base", x) ||
	    !(x = prof_side_json(&c->s[1])) ||
	    !cJSON_AddItemToObject(o, "patch", x) ||
	    !cJSON_AddBoolToObject(o, "too_few_samples", c->few) ||
	    !cJSON_AddNumberToObject(o, "functions_total", (double)c->nfn) ||
	    !(fns = cJSON_AddArrayToObject(o, "functions")))
		goto fail;
	for (i = 0; shown && i < n; i++)
		if (!(x = prof_fn_json(&c->fn[i])) ||
		    !cJSON_AddItemToArray(fns, x))
			goto fail;
	return o;
fail:
	cJSON_Delete(o);
	return NULL;
}

/* compare --profile: each case's functions, shares and costs. */
static bool add_profile(cJSON *root, const struct report_prof *p)
{
	cJSON *o = cJSON_AddObjectToObject(root, "profile"), *cases, *x;
	size_t i;

	if (!o || !cJSON_AddNumberToObject(o, "min_samples", (double)p->min) ||
	    !cJSON_AddNumberToObject(o, "top", (double)p->top) ||
	    !cJSON_AddItemToObject(o, "base_none", str_or_null(p->none[0])) ||
	    !cJSON_AddItemToObject(o, "patch_none", str_or_null(p->none[1])) ||
	    !(cases = cJSON_AddArrayToObject(o, "cases")))
		return false;
	for (i = 0; i < p->n; i++)
		if (!(x = prof_case_json(p, &p->c[i])) ||
		    !cJSON_AddItemToArray(cases, x))
			return false;
	return true;
}

/* What a comparison has besides one side: the patch, the tests, the mean. */
static bool add_compare(cJSON *root, const struct report_cmp *c)
{
	cJSON *side, *g;

	side = side_json(c->b);
	if (!side || !cJSON_AddItemToObject(root, "patch", side))
		return false;
	if (!cJSON_AddStringToObject(root, "test", !c->nwithin ?
				     "welch t on boot medians, holm" :
				     c->nwithin == c->nrows ?
				     "welch t on runs, holm" :
				     "welch t on boot medians, or "
				     "runs where a kernel has one "
				     "boot, holm") ||
	    !cJSON_AddNumberToObject(root, "power", REPORT_POWER) ||
	    !cJSON_AddStringToObject(root, "plan",
				     "alpha over the rows of the "
				     "row's holm family") ||
	    !cJSON_AddNumberToObject(root, "holm_rows_welch",
				     (double)c->ntested) ||
	    !cJSON_AddNumberToObject(root, "holm_rows_mwu",
				     (double)c->nmw) ||
	    !cJSON_AddNumberToObject(root, "holm_rows_welch_other",
				     (double)c->ntested_other) ||
	    !cJSON_AddNumberToObject(root, "holm_rows_mwu_other",
				     (double)c->nmw_other) ||
	    !cJSON_AddNumberToObject(root, "significant_rows",
				     (double)c->nsig) ||
	    !cJSON_AddNumberToObject(root,
				     "significant_rows_uncorrected",
				     (double)c->nsig_raw))
		return false;
	g = cJSON_AddObjectToObject(root, "geometric_mean");
	if (!g || !add_num(g, "change_pct", c->geo) ||
	    !cJSON_AddNumberToObject(g, "rows", (double)c->geo_n) ||
	    !cJSON_AddBoolToObject(g, "cost", c->geo_cost) ||
	    !cJSON_AddBoolToObject(g, "tested", false) ||
	    !cJSON_AddItemToObject(g, "direction",
				   report_geo_word(c)[0] ?
				   cJSON_CreateString(
					report_geo_word(c)) :
				   cJSON_CreateNull()))
		return false;
	return add_strings(root, "warnings", c->warn, c->nwarn);
}

int report_print_json(FILE *f, const struct report_cmp *c)
{
	cJSON *root = cJSON_CreateObject(), *rows, *side;
	char *text = NULL;
	size_t i;
	int r = -ENOMEM;

	if (!root ||
	    !cJSON_AddStringToObject(root, "tool", "foliobench") ||
	    !cJSON_AddStringToObject(root, "tool_version",
				     c->tool_version ? c->tool_version :
				     "unknown") ||
	    !cJSON_AddNumberToObject(root, "schema_version",
				     c->schema_version) ||
	    !cJSON_AddNumberToObject(root, "format_version",
				     REPORT_JSON_FORMAT) ||
	    !cJSON_AddStringToObject(root, "kind", !c->b ? "export" :
				     c->aa ? "aa" : "compare") ||
	    !cJSON_AddNumberToObject(root, "alpha", REPORT_ALPHA) ||
	    !cJSON_AddNumberToObject(root, "confidence", REPORT_CONF) ||
	    !cJSON_AddStringToObject(root, "method", c->method))
		goto end;
	side = side_json(c->a);
	if (!side || !cJSON_AddItemToObject(root, c->b ? "base" : "label",
					    side))
		goto end;
	if (c->b && !add_compare(root, c))
		goto end;
	if (!add_strings(root, "unmeasurable", c->unmeasurable,
			 c->nunmeasurable) ||
	    !add_strings(root, "kernel_warnings", c->kwarn, c->nkwarn))
		goto end;
	if (c->profile && c->b && !add_profile(root, c->profile))
		goto end;
	rows = cJSON_AddArrayToObject(root, "rows");
	if (!rows)
		goto end;
	for (i = 0; i < c->nrows; i++) {
		cJSON *ro = row_json(c, &c->rows[i]);

		if (!ro || !cJSON_AddItemToArray(rows, ro))
			goto end;
	}
	text = cJSON_Print(root);
	if (!text)
		goto end;
	r = fprintf(f, "%s\n", text) < 0 ? -EIO : 0;
end:
	cJSON_free(text);
	cJSON_Delete(root);
	return r;
}

const struct report_fmt report_fmt_json = {
	"json", report_print_json, report_print_json, false,
};
