/*
 * Units of the reports: which are speeds, the direction words, and one
 * scale for a column of values.
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

bool report_unit_speed(const char *u, bool higher)
{
	static const char *const times[] = { "ns", "us", "\xc2\xb5s", "ms",
					     "s" };
	size_t i, n;

	/* a time, or a time per something ("ns/folio") */
	for (i = 0; i < ARRAY_SIZE(times); i++) {
		n = strlen(times[i]);
		if (!strncmp(u, times[i], n) && (!u[n] || u[n] == '/'))
			return true;
	}
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
	bool rate = !strcmp(unit, "/s") || !strcmp(unit, "IOPS") ||
		    !strcmp(unit, "count") || !unit[0];
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
