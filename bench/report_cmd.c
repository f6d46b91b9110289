/*
 * What the commands that read results share: which database they read (one
 * --db rule), opening it, loading the sides, and one exit code for each
 * status, so that each cmd_*.c keeps only its options and its output.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "cmds.h"
#include "bench/report_cmd.h"
#include "reports/compare.h"
#include "reports/exports.h"
#include "runner/runner.h"
#include "workloads/params.h"
#include "schema/db.h"
#include "schema/db_vm.h"
#include "workloads/workload.h"

int report_cmd_db_name(const char *path, const char *what)
{
	struct strbuf q = STRBUF_INIT, why = STRBUF_INIT;

	if (!db_path_check(path, &why))
		return EX_OK;
	strbuf_json_str(&q, path);
	fb_err("%s %s: %s", what, q.buf, why.buf);
	strbuf_release(&q);
	strbuf_release(&why);
	return EX_USAGE;
}

const char *report_cmd_db_rule(const char *db_arg, const struct config *cfg)
{
	if (db_arg)
		return db_arg;
	return cfg ? cfg->database : "results.db";
}

int report_cmd_db_path(const char *db_arg, const char *cfg_arg, char **out)
{
	struct strbuf err = STRBUF_INIT;
	const char *path = cfg_arg;
	struct config cfg;

	*out = NULL;
	if (!db_arg && !path) {
		path = fb_config_default();
		if (access(path, F_OK))
			path = NULL;	/* no config to ask */
	}
	if (db_arg || !path) {
		*out = xstrdup(report_cmd_db_rule(db_arg, NULL));
		return EX_OK;
	}
	if (config_load(&cfg, path, &err)) {
		fb_err("%s", strbuf_str(&err));
		strbuf_release(&err);
		return EX_CONFIG;
	}
	*out = xstrdup(report_cmd_db_rule(NULL, &cfg));
	config_release(&cfg);
	return EX_OK;
}

int report_cmd_unknown_format(const char *name, unsigned allowed)
{
	struct strbuf names = STRBUF_INIT;

	report_format_names(&names, NULL, allowed);
	fb_err("unknown format '%s' (%s)", name, names.buf);
	strbuf_release(&names);
	return EX_USAGE;
}

int report_cmd_db_exit(int r)
{
	switch (r) {
	case DB_OK:
		return EX_OK;
	case DB_MISSING:
		return EX_NOINPUT;
	case DB_TOO_NEW:
		return EX_NEWER_DB;
	case DB_NOT_DB:
	case DB_CORRUPT:
	case DB_BADROW:
		return EX_DATAERR;
	case DB_BUSY:
		return EX_TEMPFAIL;
	default:	/* DB_ERR, DB_FULL, DB_READONLY */
		return EX_IOERR;
	}
}

/* Open path: read-only, or for a command that writes rows (write). */
static int cmd_open(struct db *db, const char *path, bool write)
{
	int r = report_cmd_db_name(path, "--db");

	if (r)
		return r;
	r = write ? db_open(db, path, false) : db_open_read(db, path);
	switch (r) {
	case DB_OK:
		break;
	case DB_MISSING:
		fb_err("no database at %s (record runs with `bench run` "
		       "first)", path);
		break;
	case DB_TOO_NEW:
		fb_err("cannot read %s: %s; use a newer foliobench", path,
		       db_errmsg(db));
		break;
	case DB_NOT_DB:
	case DB_CORRUPT:
		fb_err("%s is %s: %s", path, db_strerror(r), db_errmsg(db));
		break;
	case DB_BUSY:
		fb_err("cannot read %s: %s (%s)", path, db_strerror(r),
		       db_errmsg(db));
		break;
	default:
		fb_err("cannot open database %s: %s", path, db_errmsg(db));
	}
	return report_cmd_db_exit(r);
}

int report_cmd_open(struct db *db, const char *path)
{
	return cmd_open(db, path, false);
}

int report_cmd_open_write(struct db *db, const char *path)
{
	return cmd_open(db, path, true);
}

int report_cmd_load_exit(int r, const struct strbuf *err)
{
	if (r && r != REPORT_ENOMEM)
		fb_err("%s", strbuf_str(err));
	switch (r) {
	case REPORT_OK:
		return EX_OK;
	case REPORT_EEMPTY:
		return EX_EMPTY_DB;
	case REPORT_ELABEL:
		return EX_NOUSER;
	case REPORT_ENOCOMPLETE:
	case REPORT_EFEW:
		return EX_NOHOST;
	case REPORT_ENOMEM:
		fb_err("out of memory");
		return EX_SOFTWARE;
	case REPORT_EDATA:
		return EX_DATAERR;
	case REPORT_EDB:
		return EX_IOERR;
	case REPORT_EBUSY:
		return EX_TEMPFAIL;
	case REPORT_ECLOCK:
		return EX_UNAVAILABLE;
	default:
		return EX_SOFTWARE;
	}
}

static int add_vm(const struct db_vm_shape *g, void *arg)
{
	struct report_cmd_vm *v = arg;

	if (!strcmp(g->clock, "instructions"))
		v->counted++;
	else if (!strcmp(g->accel, "tcg"))
		v->tcg++;
	else
		v->other++;
	strbuf_addf(&v->shape, "%s'%s", v->shape.len ? " | " : "",
		    g->accel[0] ? g->accel : "not a bench vm guest");
	if (!strcmp(g->clock, "instructions"))
		strbuf_addf(&v->shape, " icount shift=%d", g->icount_shift);
	strbuf_addf(&v->shape, "%s%s'", g->shape[0] ? " " : "", g->shape);
	return 0;
}

int report_cmd_vm_sides(struct db *db, const char *label,
			struct report_cmd_vm *v)
{
	return db_vm_shapes_each(db, label, add_vm, v);
}

void report_cmd_vm_side(const struct report_side *s, struct report_cmd_vm *v)
{
	size_t i;

	for (i = 0; i < s->marks.nguests; i++)
		add_vm(&s->marks.guests[i], v);
}

/*
 * Counting mode (schema 9): a count of guest instructions is no time, so
 * a counted side is never put beside a timed one (TCG, KVM or bare metal),
 * nor beside one counted with another shift (another unit): always
 * refused, EX_UNAVAILABLE, naming what each side has.
 */
static int check_clocks(struct report_cmd *rc)
{
	const struct report_clock *a = &rc->a.clock, *b = &rc->b.clock;
	struct report_cmd_vm va = REPORT_CMD_VM_INIT, vb = REPORT_CMD_VM_INIT;
	struct strbuf wa = STRBUF_INIT, wb = STRBUF_INIT;

	if (a->counted == b->counted && a->shift == b->shift)
		return EX_OK;
	report_cmd_vm_sides(&rc->db, rc->a.db_label, &va);
	report_cmd_vm_sides(&rc->db, rc->b.db_label, &vb);
	report_clock_words(a, &wa);
	report_clock_words(b, &wb);
	fb_err("refusing to compare %s with %s: %s; %s has %s: %s, %s has "
	       "%s: %s", rc->a.label, rc->b.label, a->counted == b->counted ?
	       "runs counted with different icount shifts (one instruction "
	       "is 2^shift ns of the guest's clock: the counts are in "
	       "different units)" :
	       "runs counted in guest instructions (bench vm --accel icount) "
	       "beside runs that are timed (a count is no time)",
	       rc->a.label, wa.buf, strbuf_str(&va.shape), rc->b.label,
	       wb.buf, strbuf_str(&vb.shape));
	strbuf_release(&va.shape);
	strbuf_release(&vb.shape);
	strbuf_release(&wa);
	strbuf_release(&wb);
	return EX_UNAVAILABLE;
}

int report_cmd_load(struct report_cmd *rc, const char *base,
		    const char *patch, bool aa)
{
	int ex = report_cmd_db_path(rc->db_arg, rc->cfg_arg, &rc->path), r;

	if (ex || (ex = report_cmd_open(&rc->db, rc->path)))
		return ex;
	if (aa)
		return report_cmd_load_exit(report_side_load_halves(&rc->db,
				base, &rc->lo, &rc->a, &rc->b, &rc->err),
				&rc->err);
	r = report_side_load_opts(&rc->db, base, &rc->lo, &rc->a, &rc->err);
	if (!r && patch)
		r = report_side_load_opts(&rc->db, patch, &rc->lo, &rc->b,
					  &rc->err);
	if (!r && patch)
		return check_clocks(rc);
	return report_cmd_load_exit(r, &rc->err);
}

int report_cmd_compare(struct report_cmd *rc, bool two,
		       const struct report_opts *opts, struct report_cmp *c)
{
	if (report_compare(&rc->a, two ? &rc->b : NULL, opts, c))
		return report_cmd_load_exit(REPORT_ENOMEM, &rc->err);
	c->tool_version = fb_version;
	c->schema_version = db_schema_version(&rc->db);
	return EX_OK;
}

int report_cmd_print(const struct report_cmp *c, enum report_format fmt)
{
	if (!report_print(stdout, c, fmt))
		return EX_OK;
	fb_err("cannot write the report: %m");
	return EX_IOERR;
}

void report_cmd_release(struct report_cmd *rc)
{
	report_side_release(&rc->a);
	report_side_release(&rc->b);
	strbuf_release(&rc->err);
	db_close(&rc->db);
	free(rc->path);
	rc->path = NULL;
}

int report_cmd_kwarn(const struct report_cmp *c, bool strict)
{
	size_t i;

	for (i = 0; i < c->nkwarn; i++)
		fb_warn("kernel warnings: %s", c->kwarn[i]);
	if (!strict || !c->nkwarn)
		return EX_OK;
	fb_err("refusing to make a table of a kernel that printed warnings "
	       "during its runs (--strict); see `bench runs`");
	return EX_UNAVAILABLE;
}

/* The metric's entry in its workload's table; NULL when this build lacks it. */
static const struct metric *find_metric(const char *workload,
					const char *metric)
{
	const struct workload *w = workload_find(workload);
	const struct metric *m;

	for (m = w ? w->metrics : NULL; m && m->name; m++)
		if (!strcmp(m->name, metric))
			return m;
	return NULL;
}

bool report_cmd_primary(const char *workload, const char *metric)
{
	const struct metric *m = find_metric(workload, metric);

	return !m || m->primary;
}

bool report_cmd_input(const char *workload, const char *metric)
{
	const struct metric *m = find_metric(workload, metric);

	return m && m->input;
}

enum report_say report_cmd_words(const char *workload, const char *key,
				 const char *value, char *buf, size_t n)
{
	static const enum report_say says[] = {
		[WL_SAY_KEY] = REPORT_SAY_WORDS,
		[WL_SAY_FILE] = REPORT_SAY_FILE,
		[WL_SAY_FOLIOS] = REPORT_SAY_FOLIOS,
	};
	const struct workload *w = workload_find(workload);
	const struct param *p = w ? wl_param_find(w, key) : NULL;

	/* the runner's own field of workers, whatever the table calls it */
	if (p && p->runner &&
	    p->off == offsetof(struct wl_run_params, threads)) {
		snprintf(buf, n, "%s", value);
		return REPORT_SAY_WORKERS;
	}
	if (!p || wl_param_words(p, value, buf, n))
		return REPORT_SAY_NONE;
	return says[p->say];
}
