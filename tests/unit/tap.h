/*
 * Minimal TAP for the C unit tests: a plan declared first, then ok/not ok
 * lines; mk/test.sh checks the count against the plan (and the exit
 * status: a crash is a failure).
 */
#ifndef FB_TAP_H
#define FB_TAP_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed, tap_planned = -1;

/*
 * The plan comes first ("1..N"), from the test's own count of what it
 * checks: a test that stops early or checks less than it meant prints
 * fewer results than it planned, and mk/test.sh says so.
 */
/* Marsaglia's xorshift64: the same numbers on every run from one seed. */
static inline uint64_t tap_xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
	fflush(stdout);
}

/*
 * The group of the checks being made (git's TEST(fn(), "what")): each
 * check's line starts with it, so that a failure names what it tested.
 */
static const char *tap_group;
#define TEST(call, what) do {						\
	tap_group = (what);						\
	call;								\
	tap_group = NULL;						\
} while (0)

/* The condition is evaluated once: it may have side effects. */
#define OK(cond, ...) do {						\
	int tap_ok_ = !!(cond);						\
	tap_n++;							\
	if (tap_ok_) {							\
		printf("ok %d - ", tap_n);				\
	} else {							\
		tap_failed++;						\
		printf("not ok %d - ", tap_n);				\
	}								\
	if (tap_group)							\
		printf("%s: ", tap_group);				\
	printf(__VA_ARGS__);						\
	printf("\n");							\
	if (!tap_ok_)							\
		printf("#   failed at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	fflush(stdout);							\
} while (0)

/* Equal within a relative tolerance (or absolute, near zero). */
#define NEAR(got, want, tol, name) do {					\
	double g_ = (got), w_ = (want);					\
	int ok_ = fabs(g_ - w_) <= (tol) * (fabs(w_) > 1 ? fabs(w_) : 1); \
	OK(ok_, "%s (got %.10g, want %.10g)", name, g_, w_);		\
} while (0)

#define STREQ(got, want, name) do {					\
	const char *g_ = (got), *w_ = (want);				\
	OK(g_ && !strcmp(g_, w_), "%s (got '%s', want '%s')", name,	\
	   g_ ? g_ : "(null)", w_);					\
} while (0)

/* The exit status: 1 if a check failed or the count is not the plan's. */
static inline int tap_done(void)
{
	if (tap_planned < 0) {
		printf("# no plan: call tap_plan() before the first check\n");
		return 1;
	}
	if (tap_n != tap_planned) {
		printf("# planned %d tests, ran %d\n", tap_planned, tap_n);
		return 1;
	}
	return tap_failed ? 1 : 0;
}

#endif
