/*
 * ministat and benchstat exports.  The values are the ones compare uses:
 * valid samples of complete runs, no warm-ups.
 */
#include "reports/exports.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/outfile.h"
#include "common/strmap.h"
#include "schema/db_folded.h"
#include "schema/db_report.h"

#define NAME_MAX_LEN	200

void report_file_name(const char *s, struct strbuf *out)
{
	size_t n = 0;

	for (; *s && n < NAME_MAX_LEN; s++, n++) {
		unsigned char ch = (unsigned char)*s;

		if (isalnum(ch) || strchr("._+-=,", ch))
			strbuf_addf(out, "%c", (!n && ch == '.') ? '_' : ch);
		else
			strbuf_addf(out, "%c", ch == ' ' ? ',' : '_');
	}
	if (!n)
		strbuf_addf(out, "_");
}

static int make_dir(const char *path, struct strbuf *err)
{
	if (!mkdir(path, 0777) || errno == EEXIST)
		return 0;
	strbuf_addf(err, "cannot create directory %s: %s", path,
		    strerror(errno));
	return -errno;
}

/* The case's name for a directory: the workload, then what tells it. */
static void case_name(const struct report_row *r, struct strbuf *out)
{
	const struct report_series *x = r->a ? r->a : r->b;
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(x->workload);

	if (strncmp(r->name, x->workload, n) || (r->name[n] &&
						 r->name[n] != ' '))
		strbuf_addf(&sb, "%s ", x->workload);
	strbuf_addf(&sb, "%s", r->name);
	report_file_name(sb.buf, out);
	strbuf_release(&sb);
}

static int write_values(const char *path, const struct report_series *x,
			bool samples, const char *db, struct strbuf *err)
{
	const double *v = samples ? x->all : x->med;
	size_t i, n = samples ? x->nall : x->nboots;
	FILE *f;
	int r = 0;

	if (out_file_check(path, db, err))
		return -EPERM;
	f = out_file_create(path, err);
	if (!f)
		return -errno;
	/* a comment to ministat: what the values are, where not a time */
	if (report_unit_counted(x->unit))
		fprintf(f, "# %s: counted in guest instructions (bench vm "
			"--accel icount), not timed\n", x->unit);
	for (i = 0; i < n; i++)
		fprintf(f, "%.10g\n", v[i]);
	if (ferror(f) | fclose(f)) {
		r = -(errno ? errno : EIO);
		strbuf_addf(err, "cannot write %s: %s", path, strerror(-r));
	}
	return r;
}

int report_write_ministat(const char *dir, const struct report_cmp *c,
			  bool samples, const char *db, struct strbuf *err)
{
	struct strbuf fa = STRBUF_INIT, fb = STRBUF_INIT, cs = STRBUF_INIT;
	struct strbuf path = STRBUF_INIT;
	size_t i;
	int r;

	report_file_name(c->a->label, &fa);
	report_file_name(c->b->label, &fb);
	if (!strcmp(fa.buf, fb.buf)) {
		strbuf_addf(err, "labels '%s' and '%s' give the same file name "
			    "%s", c->a->label, c->b->label, fa.buf);
		r = -EEXIST;
		goto out;
	}
	r = make_dir(dir, err);
	for (i = 0; !r && i < c->nrows; i++) {
		const struct report_row *row = &c->rows[i];

		if (!row->a || !row->b)
			continue;
		strbuf_reset(&cs);
		case_name(row, &cs);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s", dir, cs.buf);
		r = make_dir(path.buf, err);
		if (!r && out_no_link(path.buf, true, err))
			r = -EPERM;
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s/%s", dir, cs.buf, fa.buf);
		if (!r)
			r = write_values(path.buf, row->a, samples, db,
					 err);
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/%s/%s", dir, cs.buf, fb.buf);
		if (!r)
			r = write_values(path.buf, row->b, samples, db,
					 err);
	}
out:
	strbuf_release(&fa);
	strbuf_release(&fb);
	strbuf_release(&cs);
	strbuf_release(&path);
	return r;
}

/* --- benchstat --------------------------------------------------------- */

/* "shmem-remove" -> "ShmemRemove" */
static void camel(const char *s, struct strbuf *out)
{
	bool up = true;

	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '-' || ch == '_' || ch == ' ') {
			up = true;
			continue;
		}
		if (!isalnum(ch)) {
			strbuf_addf(out, "%%%02X", ch);
			continue;
		}
		strbuf_addch(out, up ? toupper(ch) : ch);
		up = false;
	}
}

/*
 * A value inside a name part "/key=value": no space (the format splits
 * fields on spaces), no '/' (it starts the next part), no '=' and '%'
 * (ambiguous), as %XX like a URL; nor a '-' before digits only, which Go's
 * tools read as a GOMAXPROCS suffix at the end of a name.
 */
static void name_value(const char *s, struct strbuf *out)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		bool procs = ch == '-' && s[1] &&
			     strspn(s + 1, "0123456789") == strlen(s + 1);

		if (ch <= 0x20 || ch >= 0x7f || strchr("/=%", ch) || procs)
			strbuf_addf(out, "%%%02X", ch);
		else
			strbuf_addch(out, ch);
	}
}

/*
 * The unit of a metric on a result line, as the side's clock shows it and
 * with times in seconds.  The headline time is "sec/op", other times
 * "<metric>-sec/op" (the format takes the last hyphen-separated word as
 * the measurement unit), counts "<metric>/op", and any other unit keeps
 * its name behind the metric's ("ns_per_folio-sec/folio").  Seconds, not
 * Go's "ns/op": benchstat's reader tidies "ns" to "sec" only where that
 * changes the value, so a 0 stays "ns/op" beside the others' "sec/op" and
 * one metric becomes two (golang.org/x/perf, benchfmt: "if tidyVal ==
 * val"); with "sec" there is nothing to tidy.  Counted, a time is
 * "instr/op" (a unit of its own to benchstat), "sys-instr/op",
 * "..-instr/folio".
 */
static void bs_unit(const char *metric, const char *unit, bool primary,
		    struct strbuf *out)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p;

	if ((!strcmp(unit, "sec") || !strcmp(unit, "instr")) && primary)
		strbuf_addf(&sb, "%s/op", unit);
	else if (!strcmp(unit, "sec") || !strcmp(unit, "instr"))
		strbuf_addf(&sb, "%s-%s/op", metric, unit);
	else if (!strcmp(unit, "count"))
		strbuf_addf(&sb, "%s/op", metric);
	else if (primary)
		strbuf_addf(&sb, "%s", unit);
	else
		strbuf_addf(&sb, "%s-%s", metric, unit);
	for (p = strbuf_str(&sb); *p; p++)
		strbuf_addch(out, isspace((unsigned char)*p) ? '_' : *p);
	strbuf_release(&sb);
}

/* A value of a configuration or comment line: one line, no controls. */
static void line_value(FILE *f, const char *s)
{
	fputs_term(s, f, "");
}

/*
 * What a value's name and checks need of its series, by (workload, params,
 * metric): the unit it was first stored in and the params decoded.
 */
struct bs_ser {
	char *workload, *params, *metric, *unit;
	char **kv;		/* key, value, key, value ... */
	size_t nkv, kv_alloc;
	/* what each line and value of it says, made once (9 * 10^6 values
	 * at 10^6 samples): "BenchmarkName/k=v 1", " sec/op", seconds */
	struct strbuf name, bs_unit;
	double f;
};

struct bs_walk {
	FILE *f;
	struct db *db;
	const struct report_side *s;
	bool (*primary)(const char *, const char *);
	struct strbuf *err;
	int64_t sample, run;
	struct strbuf line;
	size_t nvals, nlines;
	/* the side's runs by id, sorted, for a binary search */
	struct bs_run { int64_t id; const struct report_run *r; } *runs;
	const struct report_run *last;
	struct bs_ser *ser;
	size_t nser, ser_alloc;
	struct strmap ser_map;	/* (workload, params, metric): in ser */
};

static int bs_run_cmp(const void *a, const void *b)
{
	const struct bs_run *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The run of a value: the last one again, else a binary search. */
static const struct report_run *run_of(struct bs_walk *w, int64_t id)
{
	struct bs_run key = { .id = id }, *hit;

	if (w->last && w->last->id == id)
		return w->last;
	hit = bsearch(&key, w->runs, w->s->nruns, sizeof(*w->runs),
		      bs_run_cmp);
	w->last = hit ? hit->r : NULL;
	return w->last;
}

static int bs_kv(const char *key, const char *value, void *arg)
{
	struct bs_ser *x = arg;

	ALLOC_GROW(x->kv, x->nkv + 2, x->kv_alloc);
	x->kv[x->nkv++] = xstrdup(key);
	x->kv[x->nkv++] = xstrdup(value);
	return 0;
}

/* The words of x's lines and values, v one of its values. */
static void bs_words(const struct bs_walk *w, struct bs_ser *x,
		     const struct db_report_value *v)
{
	char shown[64], unit[64];
	size_t k;

	strbuf_addstr(&x->name, "Benchmark");
	camel(v->workload, &x->name);
	for (k = 0; k + 1 < x->nkv; k += 2) {
		strbuf_addch(&x->name, '/');
		name_value(x->kv[k], &x->name);
		strbuf_addch(&x->name, '=');
		name_value(x->kv[k + 1], &x->name);
	}
	/* one operation a sample: its values are per op already */
	strbuf_addstr(&x->name, " 1");
	x->f = report_clock_unit(&w->s->clock, v->unit, shown, sizeof(shown));
	x->f *= report_unit_seconds(shown, unit, sizeof(unit));
	strbuf_addch(&x->bs_unit, ' ');
	bs_unit(v->metric, unit, !w->primary ||
		w->primary(v->workload, v->metric), &x->bs_unit);
}

/* The series of v, met before or new; NULL with err set. */
static struct bs_ser *bs_series(struct bs_walk *w,
				const struct db_report_value *v, int *r)
{
	const char *key[] = { v->workload, v->params, v->metric };
	size_t i = strmap_put(&w->ser_map, key, ARRAY_SIZE(key), w->nser);
	struct bs_ser *x;

	if (i < w->nser)
		return &w->ser[i];
	ALLOC_GROW(w->ser, w->nser + 1, w->ser_alloc);
	x = &w->ser[w->nser++];
	memset(x, 0, sizeof(*x));
	x->workload = xstrdup(v->workload);
	x->params = xstrdup(v->params);
	x->metric = xstrdup(v->metric);
	x->unit = xstrdup(v->unit);
	x->name = (struct strbuf)STRBUF_INIT;
	x->bs_unit = (struct strbuf)STRBUF_INIT;
	*r = db_report_params_each(w->db, v->params, bs_kv, x);
	if (!*r)
		bs_words(w, x, v);
	if (*r == DB_ERR) {
		/* the words of report_side_load's refusal */
		strbuf_addf(w->err, "case %s of label '%s' has params that "
			    "are not a JSON object: %s", v->workload,
			    w->s->db_label, v->params);
		*r = REPORT_EDATA;
	}
	return *r ? NULL : x;
}

static void bs_flush(struct bs_walk *w)
{
	if (w->nvals) {
		fprintf(w->f, "%s\n", w->line.buf);
		w->nlines++;
	}
	strbuf_reset(&w->line);
	w->nvals = 0;
}

static int bs_value(const struct db_report_value *v, void *arg)
{
	struct bs_walk *w = arg;
	const struct report_run *run = run_of(w, v->run_id);
	const struct bs_ser *x;
	int r = 0;

	if (!run)
		return 0;
	x = bs_series(w, v, &r);
	if (!x)
		return r;
	/* what report_side_load refuses, in its words */
	if (strcmp(x->unit, v->unit)) {
		strbuf_addf(w->err, "%s %s: metric %s is stored both in %s "
			    "and in %s", x->workload, x->params, x->metric,
			    x->unit, v->unit);
		return REPORT_EDATA;
	}
	if (v->supported && !isfinite(v->value)) {
		strbuf_addf(w->err, "%s %s: metric %s has a value that is not "
			    "a finite number", x->workload, x->params,
			    x->metric);
		return REPORT_EDATA;
	}
	if (v->sample_id != w->sample) {
		bs_flush(w);
		w->sample = v->sample_id;
		if (v->run_id != w->run) {
			w->run = v->run_id;
			fprintf(w->f, "# boot %d of %zu: ", run->boot + 1,
				w->s->nboots);
			line_value(w->f, run->boot_id);
			fprintf(w->f, ", run ");
			line_value(w->f, run->uuid);
			fprintf(w->f, ", started ");
			line_value(w->f, run->started_at);
			fputc('\n', w->f);
		}
		strbuf_add(&w->line, x->name.buf, x->name.len);
	}
	if (!v->supported)
		return 0;
	strbuf_addf(&w->line, " %.15g", v->value * x->f);
	strbuf_add(&w->line, x->bs_unit.buf, x->bs_unit.len);
	w->nvals++;
	return 0;
}

static void bs_release(struct bs_walk *w)
{
	size_t i, k;

	for (i = 0; i < w->nser; i++) {
		struct bs_ser *x = &w->ser[i];

		free(x->workload);
		free(x->params);
		free(x->metric);
		free(x->unit);
		for (k = 0; k < x->nkv; k++)
			free(x->kv[k]);
		free(x->kv);
		strbuf_release(&x->name);
		strbuf_release(&x->bs_unit);
	}
	free(w->ser);
	strmap_release(&w->ser_map);
	free(w->runs);
	strbuf_release(&w->line);
}

/* Distinct values of a run field, "; " between. */
static void config_line(FILE *f, const char *key, const struct report_side *s,
			const char *(*field)(const struct report_run *))
{
	size_t i, k;

	fprintf(f, "%s:", key);
	for (i = 0; i < s->nruns; i++) {
		const char *v = field(&s->runs[i]);

		for (k = 0; k < i; k++)
			if (!strcmp(field(&s->runs[k]), v))
				break;
		if (k < i)
			continue;
		fputs(i ? "; " : " ", f);
		line_value(f, v);
	}
	fputc('\n', f);
}

static const char *f_cpu(const struct report_run *r)
{
	return r->cpu_model;
}

static const char *f_host(const struct report_run *r)
{
	return r->hostname;
}

static const char *f_kernel(const struct report_run *r)
{
	return r->kernel_release;
}

static const char *f_tool(const struct report_run *r)
{
	return r->tool_version;
}

int report_print_benchstat(FILE *f, struct db *db, const struct report_side *s,
			   bool (*primary)(const char *workload,
					   const char *metric),
			   const char *tool_version, struct strbuf *err)
{
	struct bs_walk w = { .f = f, .db = db, .s = s, .primary = primary,
			     .err = err, .sample = -1, .run = -1,
			     .line = STRBUF_INIT };
	size_t i;
	int r;

	fprintf(f, "# foliobench %s: every valid sample of ", tool_version);
	line_value(f, s->label);
	fprintf(f, ", one line a sample, in Go's benchmark format.\n"
		"# What differs between kernels stays in these comment lines,"
		" so that\n# `benchstat base.txt patch.txt` compares them in "
		"one table.\n# label: ");
	line_value(f, s->label);
	fputc('\n', f);
	config_line(f, "# kernel", s, f_kernel);
	config_line(f, "# foliobench", s, f_tool);
	fprintf(f, "# boots: %zu\n# runs: %zu\n", s->nboots, s->nruns);
	if (s->clock.counted)
		fprintf(f, "# clock: guest instructions (bench vm --accel "
			"icount, -icount shift=%d): every time is a count, "
			"instr\n", s->clock.shift);
	fprintf(f, "goos: linux\npkg: foliobench\n");
	config_line(f, "cpu", s, f_cpu);
	config_line(f, "host", s, f_host);
	if (s->nruns)
		fprintf(f, "cpu-count: %lld\n", (long long)s->runs[0].vcpus);
	w.runs = xcalloc(s->nruns ? s->nruns : 1, sizeof(*w.runs));
	for (i = 0; i < s->nruns; i++) {
		w.runs[i].id = s->runs[i].id;
		w.runs[i].r = &s->runs[i];
	}
	qsort(w.runs, s->nruns, sizeof(*w.runs), bs_run_cmp);
	r = db_report_values_each(db, s->db_label, bs_value, &w);
	if (!r)
		bs_flush(&w);
	bs_release(&w);
	if (r == REPORT_ENOMEM || r == REPORT_EDATA)
		return r;
	if (r)
		return report_db_status(db, r, err);
	if (fflush(f) || ferror(f))
		return -(errno ? errno : EIO);	/* ENOSPC: said as it is */
	return 0;
}

/* --- folded stacks ------------------------------------------------------ */

struct fold_walk {
	FILE *f;
	struct db *db;
	const char *label;
	struct strbuf *err;
	char *workload, *params;	/* the case whose frame is in frame */
	struct strbuf frame;
	size_t lines;
};

/* " key=value" into the case's frame, ';' (a frame's end) as ','. */
static int frame_kv(const char *key, const char *value, void *arg)
{
	struct strbuf *sb = arg;
	const char *p;

	strbuf_addf(sb, " %s=", key);
	for (p = value; *p; p++)
		strbuf_addch(sb, *p == ';' || *p == '\n' ? ',' : *p);
	return 0;
}

static int fold_row(const char *workload, const char *params,
		    const char *stack, int64_t count, void *arg)
{
	struct fold_walk *w = arg;
	int r;

	if (!w->params || strcmp(w->params, params) ||
	    strcmp(w->workload, workload)) {
		free(w->params);
		free(w->workload);
		w->params = xstrdup(params);
		w->workload = xstrdup(workload);
		strbuf_reset(&w->frame);
		strbuf_addstr(&w->frame, workload);
		r = db_report_params_each(w->db, params, frame_kv, &w->frame);
		if (r == DB_ERR) {
			strbuf_addf(w->err, "case %s of label '%s' has params "
				    "that are not a JSON object: %s", workload,
				    w->label, params);
			return REPORT_EDATA;
		}
		if (r)
			return r;
	}
	fprintf(w->f, "%s;%s %lld\n", w->frame.buf, stack, (long long)count);
	w->lines++;
	return 0;
}

int report_print_folded(FILE *f, struct db *db, const char *label,
			size_t *lines, struct strbuf *err)
{
	struct fold_walk w = { .f = f, .db = db, .label = label, .err = err,
			       .frame = STRBUF_INIT };
	int r = db_folded_each(db, label, fold_row, &w);

	free(w.params);
	free(w.workload);
	strbuf_release(&w.frame);
	*lines = w.lines;
	if (r == REPORT_EDATA)
		return r;
	if (r)
		return report_db_status(db, r, err);
	if (fflush(f) || ferror(f))
		return -EIO;
	return 0;
}
