/*
 * A sample's values as the runner writes them (schema 15): one JSON array
 * in samples.vals, named by its layout in value_layouts (the JSON array of
 * [metric, unit, better, supported], as SQLite's json_array writes it, so
 * that the shell's writes through the sample_values view find the same
 * row).  See schema/015_sample_vals.sql.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "db_priv.h"

/*
 * A double as JSON that reads back as the same double (json_each reads
 * with strtod): the fewest digits that do, and always a point or an
 * exponent, so that it reads back as a real and not an integer; NULL
 * (not finite NaN, as SQLite stores it) as null, an infinity as a number
 * past the largest double.
 */
static void add_number(struct strbuf *sb, double x)
{
	char buf[40];
	int prec;

	if (isnan(x)) {
		strbuf_addstr(sb, "null");
		return;
	}
	if (isinf(x)) {
		strbuf_addstr(sb, x < 0 ? "-9e999" : "9e999");
		return;
	}
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", x);
	strbuf_addstr(sb, buf);
	if (!strpbrk(buf, ".e"))
		strbuf_addstr(sb, ".0");
}

static int layout_row(struct db *db, sqlite3_stmt *st, void *arg)
{
	(void)db;
	*(int64_t *)arg = sqlite3_column_int64(st, 0);
	return 0;
}

int db_vals_make(struct db *db, const struct db_value *v, int nv,
		 int64_t *layout, struct strbuf *vals)
{
	struct strbuf lay = STRBUF_INIT;
	int i, r;

	strbuf_addch(&lay, '[');
	strbuf_addch(vals, '[');
	for (i = 0; i < nv; i++) {
		strbuf_addstr(&lay, i ? ",[" : "[");
		strbuf_json_str(&lay, v[i].metric);
		strbuf_addch(&lay, ',');
		strbuf_json_str(&lay, v[i].unit);
		strbuf_addch(&lay, ',');
		strbuf_json_str(&lay, v[i].better);
		strbuf_addstr(&lay, v[i].supported ? ",1]" : ",0]");
		if (i)
			strbuf_addch(vals, ',');
		add_number(vals, v[i].supported ? v[i].value : NAN);
	}
	strbuf_addch(&lay, ']');
	strbuf_addch(vals, ']');
	*layout = -1;
	r = db_stmt(db, "INSERT OR IGNORE INTO value_layouts (metrics) "
		    "VALUES (?1)", "t", lay.buf);
	if (!r)
		r = db_each(db, "cannot read a layout of values", layout_row,
			    layout, "SELECT id FROM value_layouts WHERE "
			    "metrics = ?1", "t", lay.buf);
	if (!r && *layout < 0)
		r = db_fail(db, "cannot keep a layout of values");
	strbuf_release(&lay);
	return r;
}
