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

/*
 * An integer's text (RFC 8259's grammar, checked) as json_each gives it:
 * an int64, or past it a real as its reals are read (strtod: the JSON
 * reader of the linked SQLite, tests/unit/test_db_vals.c holds them to it).
 */
static int json_int(const char *z, const char *end, double *v)
{
	bool neg = *z == '-';
	const char *p = z + neg;
	uint64_t i = 0;

	for (; p < end; p++) {
		if (i > (uint64_t)INT64_MAX / 10 ||
		    (i == (uint64_t)INT64_MAX / 10 &&
		     (p + 1 < end || *p == '9' || (*p == '8' && !neg)))) {
			*v = strtod(z, NULL);
			return SQLITE_FLOAT;
		}
		i = i * 10 + (uint64_t)(*p - '0');
	}
	/* an integer has no sign of zero: "-0" is 0 */
	*v = neg ? (i > (uint64_t)INT64_MAX ? (double)INT64_MIN :
		    (double)-(int64_t)i) : (double)(int64_t)i;
	return SQLITE_INTEGER;
}

static bool json_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *digits(const char *q, const char *end)
{
	while (q < end && *q >= '0' && *q <= '9')
		q++;
	return q;
}

/* A JSON number at p (RFC 8259's grammar); its end, or NULL. */
static const char *number_end(const char *p, const char *end, bool *real)
{
	const char *q = p + (*p == '-');

	*real = false;
	if (q >= end || *q < '0' || *q > '9' ||
	    (*q == '0' && q + 1 < end && q[1] >= '0' && q[1] <= '9'))
		return NULL;
	q = digits(q, end);
	if (q < end && *q == '.') {
		*real = true;
		if (++q >= end || *q < '0' || *q > '9')
			return NULL;
		q = digits(q, end);
	}
	if (q < end && (*q == 'e' || *q == 'E')) {
		*real = true;
		q += q + 1 < end && (q[1] == '-' || q[1] == '+') ? 2 : 1;
		if (q >= end || *q < '0' || *q > '9')
			return NULL;
		q = digits(q, end);
	}
	return q;
}

int db_vals_next(const char **pp, const char *end, double *v)
{
	const char *p = *pp, *q;
	bool real, comma;
	int type;

	while (p < end && json_space(*p))
		p++;
	comma = p < end && *p == ',';
	if (p < end && (*p == '[' || comma))
		p++;
	while (p < end && json_space(*p))
		p++;
	if (p < end && *p == ']' && !comma) {
		*pp = p + 1;
		return 0;
	}
	*v = 0;
	if (p >= end)
		return -1;
	if (end - p >= 4 && !memcmp(p, "null", 4)) {
		q = p + 4;
		type = SQLITE_NULL;
	} else if ((q = number_end(p, end, &real))) {
		/* the text goes on past q: a ',' or ']' stops strtod there */
		type = real ? SQLITE_FLOAT : json_int(p, q, v);
		if (real)
			*v = strtod(p, NULL);
	} else {
		return -1;	/* a string, an object, true, false: SQLite's */
	}
	while (q < end && json_space(*q))
		q++;
	if (q >= end || (*q != ',' && *q != ']'))
		return -1;
	*pp = q;
	return type;
}
