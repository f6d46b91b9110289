/*
 * What the bare probes share (bare_read, bare_remove, bare_truncate,
 * bare_shadow): the clock, a number from the command line, pinning, dying
 * with the cause.
 * Each probe is one file built on its own; this header is all they share.
 */
#ifndef FB_PROBE_H
#define FB_PROBE_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char *program_invocation_short_name;

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
		strerror(errno));
	exit(1);
}

/*
 * A path made from fmt, on the heap: no length is too long, and the probes
 * make theirs before their timed calls.  Dies if there is no memory.
 */
static inline __attribute__((format(printf, 1, 2))) char *
path_of(const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&p, fmt, ap);
	va_end(ap);
	if (n < 0)
		die("vasprintf");
	return p;
}

/* A positive decimal number, or exit 64 naming what it was for. */
static inline uint64_t number(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || !v) {
		fprintf(stderr, "%s: %s: '%s' is not a positive number\n",
			program_invocation_short_name, what, s);
		exit(64);
	}
	return v;
}

/* The calling thread onto PU pu only. */
static inline void pin(int pu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(pu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

#endif
