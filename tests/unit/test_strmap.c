/*
 * common/strmap.c: keys of one or more strings to numbers, keys of a
 * length, the pool of strings; each group of checks a named TEST.
 */
#include "common/common.h"
#include "common/strmap.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>

static void t_keys(void)
{
	struct strmap m = STRMAP_INIT;
	const char *ab_c[] = { "ab", "c" }, *a_bc[] = { "a", "bc" };
	const char *empty[] = { "", "" }, *one[] = { "" };

	OK(strmap_get(&m, ab_c, 2) == STRMAP_NONE, "an empty map has nothing");
	OK(strmap_put(&m, ab_c, 2, 7) == 7, "a new key takes the number given");
	OK(strmap_put(&m, ab_c, 2, 9) == 7, "a key met before keeps its number");
	OK(strmap_get(&m, a_bc, 2) == STRMAP_NONE,
	   "(\"a\", \"bc\") is not (\"ab\", \"c\")");
	OK(strmap_put(&m, a_bc, 2, 8) == 8 && strmap_get(&m, ab_c, 2) == 7,
	   "both kept apart");
	OK(strmap_get(&m, ab_c, 1) == STRMAP_NONE,
	   "(\"ab\") is not (\"ab\", \"c\")");
	OK(strmap_put(&m, empty, 2, 1) == 1 && strmap_put(&m, one, 1, 2) == 2 &&
	   strmap_get(&m, empty, 2) == 1 && strmap_get(&m, one, 1) == 2,
	   "empty strings are keys: (\"\", \"\") is not (\"\")");
	OK(m.n == 4, "four keys (%zu)", m.n);
	strmap_release(&m);
	OK(!m.slot && !m.size && !m.n && strmap_get(&m, ab_c, 2) == STRMAP_NONE,
	   "release leaves an empty map");
}

/* 10^4 keys: the map grows past its first 64 slots many times. */
static void t_grow(void)
{
	struct strmap m = STRMAP_INIT;
	size_t i, bad = 0;
	char w[32], p[32];
	const char *k[] = { w, p };

	for (i = 0; i < 10000; i++) {
		snprintf(w, sizeof(w), "w%zu", i % 97);
		snprintf(p, sizeof(p), "p%zu", i);
		bad += strmap_put(&m, k, 2, i) != i;
	}
	for (i = 0; i < 10000; i++) {
		snprintf(w, sizeof(w), "w%zu", i % 97);
		snprintf(p, sizeof(p), "p%zu", i);
		bad += strmap_get(&m, k, 2) != i;
	}
	snprintf(w, sizeof(w), "w1");
	snprintf(p, sizeof(p), "p0");
	OK(!bad && m.n == 10000 && strmap_get(&m, k, 2) == STRMAP_NONE,
	   "10^4 keys put and found (%zu wrong), none made up", bad);
	OK(m.size >= 2 * m.n && !(m.size & (m.size - 1)),
	   "at most half the slots taken, 2^k of them (%zu)", m.size);
	strmap_release(&m);
}

static void t_len_and_pool(void)
{
	struct strmap m = STRMAP_INIT, pool = STRMAP_INIT;
	const char *stack = "vfs_read;filemap_read;copy_page", *fn = "filemap_read";
	char *a = xstrdup("6.18.0-lab00"), *b = xstrdup("6.18.0-lab00");
	const char *x, *y;

	OK(strmap_put_len(&m, stack + 9, 12, 3) == 3 &&
	   strmap_get(&m, &fn, 1) == 3,
	   "a key of a length is the same key as that string");
	OK(strmap_get_len(&m, stack + 9, 11) == STRMAP_NONE &&
	   strmap_get_len(&m, stack, 8) == STRMAP_NONE,
	   "a shorter slice is another key");
	x = strmap_intern(&pool, a);
	y = strmap_intern(&pool, b);
	OK(x == y && x != a && !strcmp(x, a),
	   "equal strings are one copy of the pool's own");
	free(a);
	free(b);
	OK(!strcmp(x, "6.18.0-lab00") && strmap_intern(&pool, "other") != x,
	   "the pool's copy outlives the strings it was given");
	strmap_release(&m);
	strmap_release(&pool);
}

int main(void)
{
	tap_plan(15);
	TEST(t_keys(), "keys of strings");
	TEST(t_grow(), "growth");
	TEST(t_len_and_pool(), "keys of a length and the pool");
	return tap_done();
}
