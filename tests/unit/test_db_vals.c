/*
 * schema/db_vals.c's reader of a sample's values (samples.vals, schema 15)
 * against the linked SQLite's json_each, which the SQL readers of the
 * values go through: the same type and the same bits for each item,
 * whatever digits wrote it (the runner's fewest, quote()'s 15 or 20, 16
 * and 17, integers at int64's ends, -0, infinities, denormals), and what
 * it leaves to SQLite (strings, objects, true, text that is no JSON).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/db_priv.h"
#include "tap.h"

#define RANDOM_N 100000

static sqlite3_stmt *st;

/* json_each's atom of the one item of json: its type and value. */
static int sqlite_item(const char *json, double *v)
{
	int type;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		return -2;
	type = sqlite3_column_type(st, 0);
	*v = sqlite3_column_double(st, 0);
	return type;
}

/* Ours, of the same array; -2 where it reads more than one item. */
static int our_item(const char *json, double *v)
{
	const char *p = json, *end = json + strlen(json);
	double rest;
	int type = db_vals_next(&p, end, v);

	if (type > 0 && db_vals_next(&p, end, &rest) != 0)
		return -2;
	return type;
}

/* Does text read the same both ways?  Said where it does not. */
static bool same(const char *text)
{
	char json[128];
	double a = 0, b = 0;
	int ta, tb;

	snprintf(json, sizeof(json), "[%s]", text);
	ta = sqlite_item(json, &a);
	tb = our_item(json, &b);
	if (ta == tb && (ta == SQLITE_NULL || !memcmp(&a, &b, sizeof(a))))
		return true;
	printf("# %s: SQLite type %d %.17g, ours type %d %.17g\n", text, ta,
	       a, tb, b);
	return false;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	return tap_xorshift(&rnd_state);
}

/* Random doubles: any bits, and ones of measured magnitudes. */
static double random_double(unsigned i)
{
	uint64_t u = rnd();
	double x;

	if (i % 2) {
		memcpy(&x, &u, sizeof(x));
		return isfinite(x) ? x : 1.5;
	}
	return (double)(u >> 11) / 9007199254740992.0 *
	       pow(10, (double)(int)(rnd() % 40) - 20);
}

static void random_numbers(void)
{
	static const char *const fmt[] = { "%.15g", "%.16g", "%.17g",
					   "%.20g", "%.15e", "%.17e" };
	unsigned i, k, bad = 0;
	char text[64];

	for (i = 0; i < RANDOM_N; i++) {
		double x = random_double(i);

		for (k = 0; k < sizeof(fmt) / sizeof(fmt[0]); k++) {
			snprintf(text, sizeof(text), fmt[k], x);
			bad += !same(text);
		}
	}
	OK(!bad, "%u random doubles in 6 formats: %u differ", RANDOM_N, bad);
}

static void edges(void)
{
	static const char *const t[] = {
		"0", "-0", "0.0", "-0.0", "1", "-1", "1.0", "1e0", "1E+2",
		"2.5e-3", "9e999", "-9e999", "1e-400", "-1e-400",
		"4.9406564584124654e-324", "2.2250738585072014e-308",
		"1.7976931348623157e308", "1.7976931348623159e308",
		"9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809",
		"92233720368547758070", "123456789012345678901234567890",
		"0.1234567890123456789012345", "1e308", "1e309", "1e-308",
		"1e-320", "123.456e-310", "17.5e300", "0.000001",
		"100000000000000000000000.0", "3.0000000000000004",
		"11.3430771120028", "0.880864218530859", "null",
	};
	size_t i;
	unsigned bad = 0;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		bad += !same(t[i]);
	OK(!bad, "%zu edge cases: %u differ", sizeof(t) / sizeof(t[0]), bad);
}

/* One item of text: what db_vals_next says of it. */
static int first(const char *text)
{
	const char *p = text;
	double v;

	return db_vals_next(&p, text + strlen(text), &v);
}

/* The second item of text, after its first. */
static int second(const char *text)
{
	const char *p = text, *end = text + strlen(text);
	double v;

	if (db_vals_next(&p, end, &v) <= 0)
		return -2;
	return db_vals_next(&p, end, &v);
}

/* Several items, spaces, and what the caller must ask SQLite about. */
static void arrays(void)
{
	const char *json = "[ 1.5 ,null,-2e-3, 7 ]", *p = json;
	const char *end = json + strlen(json);
	double v[5];
	int t[5], i;

	for (i = 0; i < 5; i++)
		t[i] = db_vals_next(&p, end, &v[i]);
	OK(t[0] == SQLITE_FLOAT && v[0] == 1.5 && t[1] == SQLITE_NULL &&
	   t[2] == SQLITE_FLOAT && v[2] == -2e-3 && t[3] == SQLITE_INTEGER &&
	   v[3] == 7 && t[4] == 0, "four items, then the end");
	OK(first("[]") == 0, "an empty array");
	OK(first("[\"x\"]") == -1, "a string: SQLite's");
	OK(first("[{\"blob\":\"00\"}]") == -1, "an object: SQLite's");
	OK(first("[true]") == -1, "true: SQLite's");
	OK(first("[1.5 2]") == -1 && first("[01]") == -1 &&
	   first("[1.]") == -1 && first("[-]") == -1 && first("[1e]") == -1 &&
	   first("[1.5") == -1 && first("[") == -1 && first("[,1]") == -1,
	   "no JSON: SQLite's");
	OK(second("[1,]") == -1, "a trailing comma: SQLite's");
}

int main(void)
{
	sqlite3 *h;

	tap_plan(9);
	if (sqlite3_open(":memory:", &h) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT atom FROM json_each(?1)", -1, &st,
			       NULL) != SQLITE_OK) {
		printf("# cannot open SQLite in memory\n");
		return 1;
	}
	edges();
	random_numbers();
	arrays();
	sqlite3_finalize(st);
	sqlite3_close(h);
	return tap_done();
}
