/*
 * The progress line's estimate of the time left: measured reps over
 * estimates, the scale learned from measured cases, the running rep, and
 * the log of estimates against the real time left.
 */
#include "runner/eta.h"

#include <stdlib.h>
#include <unistd.h>

#include "tap.h"

#define S	1000000000ull	/* ns */

int main(void)
{
	struct eta e;
	const char *names[] = { "a", "b", "c" };
	char path[] = "/tmp/fb-eta-XXXXXX", line[256];
	FILE *f;
	int fd, lines = 0;

	tap_plan(18);
	fd = eta_init(&e, 3);
	OK(fd == 0, "init");
	/* a: 2 reps, no estimate; b: 4 reps of 10 s; c: 1 rep of 30 s, same
	 * workload as b */
	e.c[0] = (struct eta_case){ .reps = 2, .wl = 0 };
	e.c[1] = (struct eta_case){ .prior_s = 10, .reps = 4, .wl = 1 };
	e.c[2] = (struct eta_case){ .prior_s = 30, .reps = 1, .wl = 1 };
	OK(eta_left(&e, 0) < 0, "a case with no estimate and nothing "
	   "measured: unknown");

	eta_rep_begin(&e, 0, 0);
	OK(e.c[0].eta_at_start_s < 0 && e.c[0].began,
	   "the estimate at a's start is recorded as unknown");
	eta_rep_end(&e, 0, 4 * S);
	/* a: 1 more at 4 s; b and c at their estimates, no scale yet */
	NEAR(eta_left(&e, 4 * S), 4 + 40 + 30, 1e-9,
	     "a's mean for a, the estimates for b and c");
	eta_rep_begin(&e, 0, 4 * S);
	NEAR(eta_left(&e, 5 * S), 3 + 40 + 30, 1e-9,
	     "the running rep counts what it has done");
	NEAR(eta_left(&e, 20 * S), 0 + 40 + 30, 1e-9,
	     "a rep running past its mean counts as done, never negative");
	eta_rep_end(&e, 0, 6 * S);

	eta_rep_begin(&e, 1, 6 * S);
	NEAR(e.c[1].eta_at_start_s, 70, 1e-9, "the estimate at b's start");
	eta_rep_end(&e, 1, 26 * S);	/* 20 s: twice the estimate */
	NEAR(eta_left(&e, 26 * S), 3 * 20 + 2 * 30, 1e-9,
	     "b at its mean, c scaled by b's measured/estimated (x2)");
	eta_rep_begin(&e, 1, 26 * S);
	eta_rep_end(&e, 1, 56 * S);	/* 30 s */
	NEAR(eta_left(&e, 56 * S), 2 * 25 + 30 * 2.5, 1e-9,
	     "the scale over both reps: 50 s for 2 x 10 s");
	eta_case_drop(&e, 1);		/* b failed */
	NEAR(eta_left(&e, 56 * S), 30 * 2.5, 1e-9,
	     "a dropped case has nothing left");

	eta_rep_begin(&e, 2, 56 * S);
	eta_rep_end(&e, 2, 126 * S);
	NEAR(eta_left(&e, 126 * S), 0, 1e-9, "all done: nothing left");

	fd = mkstemp(path);
	OK(fd >= 0, "a temporary log");
	close(fd);
	fd = eta_log_write(&e, path, names, 126 * S);
	OK(fd == 0, "the log is written");
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		lines++;
		if (lines == 2)
			OK(!strcmp(line, "a  -1.0  126.0  ?\n"),
			   "a: no estimate at its start (got %s)", line);
		if (lines == 3)
			OK(!strcmp(line, "b  70.0  120.0  0.583\n"),
			   "b: 70 s estimated, 120 s real (got %s)", line);
		if (lines == 4)
			OK(!strcmp(line, "c  75.0  70.0  1.071\n"),
			   "c: 75 s estimated, 70 s real (got %s)", line);
	}
	OK(lines == 4, "a header and one line per case begun (%d)", lines);
	if (f)
		fclose(f);
	unlink(path);
	eta_release(&e);
	/* a table that could not be made: nothing known, nothing touched */
	eta_rep_begin(&e, 0, 0);
	eta_rep_end(&e, 0, S);
	eta_case_drop(&e, 0);
	OK(eta_left(&e, S) < 0, "no table: the time left is unknown");
	return tap_done();
}
