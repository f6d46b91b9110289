/*
 * Minimal TAP for the C unit tests: ok/not ok lines and a plan that
 * mk/test.sh checks (and the exit status: a crash is a failure).
 */
#ifndef FB_TAP_H
#define FB_TAP_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

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

/* The plan comes last ("1..N"): mk/test.sh checks it against the lines. */
static inline int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
