/* Work over a range split among threads: [0, size) in parts, one a thread. */
#ifndef FB_PARTS_H
#define FB_PARTS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first member of the caller's own per-part struct. */
struct part {
	uint64_t off, len;	/* this part of [0, size) */
	pthread_t th;
	bool started;		/* a thread of its own, to be joined */
};

/*
 * Split [0, size) into n parts of whole units (the last may be shorter;
 * parts past the end are empty) in parts, an array of n structs of stride
 * bytes that each begin with a struct part, and run fn on each: in a
 * thread of its own, but the last part, and any whose thread cannot start,
 * in this thread.  Returns once every part is done.
 */
void parts_run(void *parts, size_t stride, int n, uint64_t size,
	       uint64_t unit, void *(*fn)(void *));

#endif
