/*
 * A number of the JSON report as cJSON 1.7.15's print_number writes it, made
 * faster: compare's json at 10^6 samples holds 760000 boot medians, and
 * cJSON prints each with sprintf("%1.15g"), reads it back with sscanf and
 * prints it again with "%1.17g" where that is not within DBL_EPSILON:
 * half of the command's time.  Here the digits of a double between 1e-6
 * and 2^53 come from exact integer arithmetic (128 bits), rounded half to
 * even as glibc's printf rounds, and the check reads them back with
 * strtod; any other double goes through snprintf.  The same bytes:
 * tests/unit/test_json_num.c holds them to the linked cJSON's own.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/format.h"

typedef unsigned __int128 u128;

static u128 pow10_u128(int k)
{
	u128 p = 1;

	while (k-- > 0)
		p *= 10;
	return p;
}

/*
 * d * 10^k rounded half to even to an integer, for d = m * 2^q (m < 2^53,
 * -127 < q <= 0) and 0 <= k <= 22: exact, m * 10^k < 2^127.
 */
static uint64_t scaled(uint64_t m, int q, int k)
{
	u128 n = (u128)m * pow10_u128(k), r, half;
	int s = -q;

	if (!s)
		return (uint64_t)n;
	r = n & (((u128)1 << s) - 1);
	half = (u128)1 << (s - 1);
	n >>= s;
	if (r > half || (r == half && (n & 1)))
		n++;
	return (uint64_t)n;
}

/*
 * The prec (15 or 17) significant digits of d > 0 into dig, and its
 * decimal exponent; false where d is out of the exact range.
 */
static bool digits_of(double d, int prec, char *dig, int *exp10)
{
	uint64_t m, d_lo = 1, n;
	int ex, q, e, tries;

	if (!(d >= 1e-6 && d < 9007199254740992.0))
		return false;
	m = (uint64_t)ldexp(frexp(d, &ex), 53);
	q = ex - 53;
	e = (int)floor(log10(d));
	for (tries = 0; tries < prec - 1; tries++)
		d_lo *= 10;
	for (tries = 0; tries < 3; tries++) {
		if (prec - 1 - e < 0 || prec - 1 - e > 22)
			return false;
		n = scaled(m, q, prec - 1 - e);
		if (n >= d_lo * 10)
			e++;
		else if (n < d_lo)
			e--;
		else
			break;
	}
	if (tries == 3)
		return false;
	/* n has prec digits: d_lo <= n < 10 * d_lo */
	for (tries = prec - 1; tries >= 0; tries--, n /= 10)
		dig[tries] = (char)('0' + n % 10);
	dig[prec] = '\0';
	*exp10 = e;
	return true;
}

/* "%1.<prec>g" of d (finite) into buf: its digits formatted as %g does. */
static int format_g(double d, int prec, char *buf, size_t len)
{
	char dig[24], *p = buf;
	int e, i, last;

	if (!digits_of(fabs(d), prec, dig, &e))
		return snprintf(buf, len, "%1.*g", prec, d);
	if (d < 0)
		*p++ = '-';
	for (last = prec - 1; last > 0 && dig[last] == '0'; last--)
		;	/* %g drops the fraction's trailing zeros */
	if (e < -4 || e >= prec) {
		*p++ = dig[0];
		if (last > 0) {
			*p++ = '.';
			memcpy(p, dig + 1, (size_t)last);
			p += last;
		}
		return (int)(p - buf) + snprintf(p, len - (size_t)(p - buf),
						 "e%c%02d", e < 0 ? '-' : '+',
						 abs(e));
	}
	if (e < 0) {
		memcpy(p, "0.", 2);
		p += 2;
		for (i = -1; i > e; i--)
			*p++ = '0';
		memcpy(p, dig, (size_t)last + 1);
		p += last + 1;
	} else {
		memcpy(p, dig, (size_t)e + 1);
		p += e + 1;
		if (last > e) {
			*p++ = '.';
			memcpy(p, dig + e + 1, (size_t)(last - e));
			p += last - e;
		}
	}
	*p = '\0';
	return (int)(p - buf);
}

/* cJSON's compare_double: within DBL_EPSILON of the larger. */
static bool close_enough(double a, double b)
{
	double max = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

	return fabs(a - b) <= max * DBL_EPSILON;
}

int report_json_number(double d, char *buf, size_t len)
{
	double back;
	int n;

	if (isnan(d) || isinf(d))
		return snprintf(buf, len, "null");
	n = format_g(d, 15, buf, len);
	back = strtod(buf, NULL);
	if (!close_enough(back, d))
		n = format_g(d, 17, buf, len);
	return n;
}
