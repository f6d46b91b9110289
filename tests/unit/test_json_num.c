/*
 * reports/json_num.c against the linked cJSON: a number's text the same
 * bytes as cJSON_PrintUnformatted gives for it, over edge values and a
 * few million random doubles of every magnitude (the exact 128-bit path,
 * its edges at 1e-6 and 2^53, and snprintf's past them).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "reports/format.h"
#include "tap.h"

#define RANDOM_N 300000

static unsigned bad;

static void check(double d)
{
	cJSON *n = cJSON_CreateNumber(d);
	char *want = n ? cJSON_PrintUnformatted(n) : NULL;
	char got[32];

	report_json_number(d, got, sizeof(got));
	if (!want || strcmp(got, want)) {
		if (bad++ < 10)
			printf("# %a: ours '%s', cJSON's '%s'\n", d, got,
			       want ? want : "(none)");
	}
	free(want);
	cJSON_Delete(n);
}

static uint64_t rnd_state = 0x2545f4914f6cdd1dull;

static uint64_t rnd(void)
{
	return tap_xorshift(&rnd_state);
}

static void edges(void)
{
	static const double t[] = {
		0.0, -0.0, 1, -1, 0.5, 0.1, 0.3, 1e-6, 9.999999999999999e-7,
		1.0000000000000002e-6, 1e-5, 1e-4, 1e-3, 123.456, 1e15, 1e16,
		1e17, 9007199254740991.0, 9007199254740992.0,
		9007199254740993.0, 4503599627370495.5, 2147483647.0,
		2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5,
		1e300, 1e-300, 5e-324, DBL_MAX, DBL_MIN, 0.99999999999999989,
		9.9999999999999982, 99999.999999999985, 1.0000000000000002,
		0.1234567890123456789, 6652.4537, 1170000.123, 13.83e3,
	};
	size_t i;

	bad = 0;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		check(t[i]);
		check(-t[i]);
		check(nextafter(t[i], 0));
		check(nextafter(t[i], INFINITY));
	}
	OK(!bad, "%zu edge values and their neighbours: %u differ",
	   sizeof(t) / sizeof(t[0]), bad);
}

/* Any bits; then magnitudes around the exact range and inside it. */
static void random_values(void)
{
	unsigned i;
	uint64_t u;
	double x;

	bad = 0;
	for (i = 0; i < RANDOM_N; i++) {
		u = rnd();
		memcpy(&x, &u, sizeof(x));
		if (isfinite(x))
			check(x);
		x = (double)(rnd() >> 11) / 9007199254740992.0 *
		    pow(10, (double)(int)(rnd() % 30) - 10);
		check(x);
		/* a boot median of a few ns-valued samples */
		check((double)(rnd() % 100000000) / (double)(1 + rnd() % 8));
	}
	OK(!bad, "%u random doubles of three kinds: %u differ", 3 * RANDOM_N,
	   bad);
}

int main(void)
{
	char buf[32];

	tap_plan(4);
	edges();
	random_values();
	report_json_number(NAN, buf, sizeof(buf));
	STREQ(buf, "null", "NaN");
	report_json_number(-INFINITY, buf, sizeof(buf));
	STREQ(buf, "null", "an infinity");
	return tap_done();
}
