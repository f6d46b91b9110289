/*
 * The kernel-warning scan: the kernel log lines printed while a run ran
 * that show a kernel problem (WARNING:, BUG:, Oops, a hung task, an OOM
 * kill, ...), read from /dev/kmsg between the run's start and its end.
 */
#ifndef FB_KMSG_H
#define FB_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kmsg_line {
	uint64_t seq, at_us;	/* sequence number, microseconds since boot */
	int prio;		/* facility * 8 + level */
	char *text;		/* the message, as /dev/kmsg escapes it */
};

struct kmsg_scan {
	int fd;			/* /dev/kmsg positioned at the run's start */
	uint64_t start_seq;	/* first sequence number that counts */
	bool seq_known;
	struct kmsg_line *lines;
	size_t n, alloc;
	uint64_t lost;		/* records overwritten before they were read */
	int err;		/* errno of a failed open, else 0 */
	size_t said;		/* lines already shown to the user */
	bool said_err;		/* an unreadable log already shown */
};

#define KMSG_SCAN_INIT { .fd = -1 }

/* The message shows a kernel problem (the patterns are in kmsg.c). */
bool kmsg_is_problem(const char *text);

/*
 * Open /dev/kmsg and go to its end: what is printed from now on belongs to
 * the run.  Never fails the run: on error s->err says why and the scan
 * finds nothing (the run then records NULL, "not scanned").
 */
void kmsg_begin(struct kmsg_scan *s);
/*
 * Read every record printed since kmsg_begin (non-blocking) and keep those
 * that show a problem.  Returns 0, or -errno when the log could not be
 * read at all.
 */
int kmsg_end(struct kmsg_scan *s);
void kmsg_release(struct kmsg_scan *s);

/*
 * Parse one /dev/kmsg record, "prio,seq,ts_usec,flags;message\n" followed
 * by " KEY=value" lines; text points into rec (terminated at the end of the
 * message).  -EINVAL for a record that is not in this form.
 */
int kmsg_parse(char *rec, struct kmsg_line *out);

#endif
