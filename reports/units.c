/*
 * Units of the reports: the unit a side's clock shows a stored unit in,
 * which are speeds, the direction words, and one scale for a column of
 * values.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/compare.h"
#include "reports/stats.h"
#include "schema/db_report.h"
#include "reports/compare_priv.h"

/* The stored units that are times, and the nanoseconds of each. */
static const struct {
	const char *name;
	double ns;
} time_units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "\xc2\xb5s", 1e3 }, { "ms", 1e6 },
	{ "s", 1e9 },
};

/* The length of the time unit u starts with ("ns" of "ns/folio"), or 0. */
static size_t time_prefix(const char *u, double *ns)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(time_units); i++) {
		n = strlen(time_units[i].name);
		if (!strncmp(u, time_units[i].name, n) &&
		    (!u[n] || u[n] == '/')) {
			*ns = time_units[i].ns;
			return n;
		}
	}
	return 0;
}

double report_clock_unit(const struct report_clock *ck, const char *unit,
			 char *out, size_t n)
{
	/* one instruction advances the guest's clock 2^shift ns */
	double per_instr = ck->counted && ck->shift > 0 ?
			   ldexp(1, ck->shift) : 1, ns;
	size_t len = strlen(unit), k;

	if (ck->counted && (k = time_prefix(unit, &ns))) {
		snprintf(out, n, "instr%s", unit + k);
		return ns / per_instr;
	}
	/* per second of the guest: per 10^9 ns, 10^9 / 2^shift instructions */
	if (ck->counted && !strcmp(unit, "IOPS")) {
		snprintf(out, n, "ops/Ginstr");
		return per_instr;
	}
	if (ck->counted && len >= 2 && !strcmp(unit + len - 2, "/s")) {
		snprintf(out, n, "%.*s/Ginstr", (int)(len - 2), unit);
		return per_instr;
	}
	snprintf(out, n, "%s", unit);
	return 1;
}

double report_unit_seconds(const char *unit, char *out, size_t n)
{
	double ns;
	size_t k = time_prefix(unit, &ns);

	if (!k) {
		snprintf(out, n, "%s", unit);
		return 1;
	}
	snprintf(out, n, "sec%s", unit + k);
	return ns / 1e9;
}

bool report_unit_counted(const char *u)
{
	size_t n = strlen(u);

	return !strncmp(u, "instr", 5) ||
	       (n >= 7 && !strcmp(u + n - 7, "/Ginstr"));
}

void report_clock_words(const struct report_clock *ck, struct strbuf *sb)
{
	if (ck->counted)
		strbuf_addf(sb, "guest instructions (icount shift %d)",
			    ck->shift);
	else
		strbuf_addf(sb, "time");
}

bool report_unit_speed(const char *u, bool higher)
{
	double ns;
	size_t n;

	/* a time, or a time per something ("ns/folio") */
	if (time_prefix(u, &ns))
		return true;
	/* throughput: more done per second is faster */
	n = strlen(u);
	return higher && (!strcmp(u, "IOPS") ||
			  (n >= 2 && !strcmp(u + n - 2, "/s")));
}

static const char *dir_word(int dir, bool speed)
{
	if (!dir)
		return "";
	if (speed)
		return dir > 0 ? "faster" : "slower";
	return dir > 0 ? "better" : "worse";
}

const char *report_dir_word(const struct report_row *r)
{
	const struct report_series *x = row_ser(r);

	return dir_word(r->dir, report_unit_speed(x->unit, x->higher));
}

const char *report_geo_word(const struct report_cmp *c)
{
	/* a change that prints as +0.0% goes neither way */
	if (!c->geo_n || !(fabs(c->geo) >= 0.05))
		return "";
	return dir_word(c->geo_dir, c->geo_speed);
}

/*
 * One unit and one precision for values that are read side by side (a
 * row's before and after): the largest unit in which the smaller of them
 * is at least 1 ("913 ms", not "0.913 s"), unless the larger would then
 * take more than 5 digits; and decimals enough for the larger to show 4
 * significant digits ("1163 ms  913 ms", "5.164 s  4.210 s"), so that the
 * change the printed values imply is the change the table prints.  Times
 * are stored in ns ("ns", "ns/folio"); rates and counts in the millions
 * take M or G ("654.2 M/s").
 */
void report_scale(const double *v, size_t nv, const char *unit, bool ascii,
		  struct report_scale *s)
{
	static const struct {
		double div;
		const char *name, *ascii;
	} times[] = {
		{ 1e9, "s", "s" },
		{ 1e6, "ms", "ms" },
		{ 1e3, "\xc2\xb5s", "us" },	/* µs */
		{ 1, "ns", "ns" },
	}, si[] = {
		{ 1e9, "G", "G" },
		{ 1e6, "M", "M" },
		{ 1, "", "" },
	};
	bool time = !strncmp(unit, "ns", 2) && (!unit[2] || unit[2] == '/');
	/* counts of guest instructions too: "135.0 M instr" */
	bool rate = !strcmp(unit, "/s") || !strcmp(unit, "IOPS") ||
		    !strcmp(unit, "count") || !unit[0] ||
		    !strncmp(unit, "instr", 5) || !strcmp(unit, "/Ginstr") ||
		    !strcmp(unit, "ops/Ginstr");
	double lo = INFINITY, hi = 0, x;
	size_t i, k, nsc = time ? ARRAY_SIZE(times) : ARRAY_SIZE(si);
	int digits;

	for (i = 0; i < nv; i++) {
		x = fabs(v[i]);
		if (!isfinite(x))
			continue;
		if (x > 0 && x < lo)
			lo = x;
		if (x > hi)
			hi = x;
	}
	k = nsc - 1;		/* ns, or no prefix */
	if ((time || rate) && isfinite(lo)) {
		for (k = 0; k + 1 < nsc; k++)
			if (lo >= (time ? times[k].div : si[k].div))
				break;
		while (time && k > 0 && hi / times[k].div >= 1e5)
			k--;
	}
	if (time) {
		s->div = times[k].div;
		snprintf(s->unit, sizeof(s->unit), "%s%s",
			 ascii ? times[k].ascii : times[k].name, unit + 2);
	} else if (rate) {
		s->div = si[k].div;
		if (!strcmp(unit, "count") || !unit[0])
			snprintf(s->unit, sizeof(s->unit), "%s", si[k].name);
		else
			snprintf(s->unit, sizeof(s->unit), "%s%s%s", si[k].name,
				 si[k].name[0] && unit[0] != '/' ? " " : "",
				 unit);
	} else {
		s->div = 1;
		snprintf(s->unit, sizeof(s->unit), "%s", unit);
	}
	/* significant digits of the larger value */
	x = hi / s->div;
	digits = 1;
	if (x > 0) {
		while (x >= 10) {
			x /= 10;
			digits++;
		}
		while (x < 1) {
			x *= 10;
			digits--;
		}
	}
	s->decimals = 4 - digits;
	if (s->decimals < 0)
		s->decimals = 0;
	if (s->decimals > 9)
		s->decimals = 9;
}

void report_scaled(double v, const struct report_scale *s, char *buf,
		   size_t n)
{
	if (isnan(v))
		snprintf(buf, n, "n/a");
	else
		snprintf(buf, n, "%.*f%s%s", s->decimals, v / s->div,
			 s->unit[0] ? " " : "", s->unit);
}

void report_value(double v, double ref, const char *unit, bool ascii,
		  char *buf, size_t n)
{
	double both[2] = { v, isnan(ref) ? v : ref };
	struct report_scale s;

	report_scale(both, 2, unit, ascii, &s);
	report_scaled(v, &s, buf, n);
}
