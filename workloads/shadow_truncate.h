/*
 * What the files of shadow-truncate share: shadow_truncate.c (the
 * workload), shadow_plan.c (its memory arithmetic), shadow_reader.c (the
 * child that reads the file in the cgroup), and their unit test.
 */
#ifndef FB_SHADOW_TRUNCATE_H
#define FB_SHADOW_TRUNCATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct memcg;

#define PAGE		4096ull
#define GiB		(1ull << 30)
#define MiB		(1ull << 20)
/* page cache the cgroup may hold beside what it keeps, during the read */
#define HEADROOM	(256 * MiB)
/* one xarray leaf node covers 64 slots: one pin per node */
#define PIN_STRIDE	(64 * PAGE)
#define READ_BUF	(1u << 20)

/* What keeps the shadow entries; auto is resolved by the file system. */
enum keep { KEEP_AUTO, KEEP_PIN, KEEP_BALLAST, KEEP_NONE };

/* What a case will do, from its params and the machine's memory. */
struct plan {
	uint64_t asked, size;	/* file size asked and used */
	enum keep keep;
	uint64_t keep_bytes;	/* pins and their page tables, or ballast */
	uint64_t ballast;
	uint64_t nodes;		/* xarray nodes of the shadow entries */
	uint64_t limit;		/* the cgroup's limit during the read */
	uint64_t budget;	/* what the cgroup may take of this machine */
	uint64_t avail;		/* 3/4 of MemAvailable at preflight */
	char why[224];		/* why size < asked */
};

/*
 * What the cgroup holds besides page cache, per byte of file: pins are one
 * page per 64 and need a page-table page per 2 MiB mapped; the shadow
 * entries sit in 576-byte leaf nodes of 64 slots (0.22%, taken as 1/256
 * for the inner nodes and slab slack).  Charged to the cgroup, so they
 * count against its limit.  A ballast is as given, or 1/8 of the file.
 */
uint64_t shadow_pin_bytes(uint64_t size);
uint64_t shadow_node_bytes(uint64_t size);
uint64_t shadow_ballast_bytes(uint64_t size, uint64_t given);
/* The least limit under which the reader is not OOM-killed. */
uint64_t shadow_least_limit(enum keep k, uint64_t size, uint64_t ballast);
/* The limit keep=k needs at size with limit=auto: HEADROOM of cache. */
uint64_t shadow_auto_limit(enum keep k, uint64_t size, uint64_t ballast);
/* Largest power of two not above x (x > 0). */
uint64_t shadow_pow2_floor(uint64_t x);
/* Everything in p that follows from the size used (0 given: auto). */
void shadow_plan_fill(struct plan *p, uint64_t size, uint64_t limit_given,
		      uint64_t ballast_given);
/*
 * The size rule.  The size follows from MemTotal alone, rounded down to
 * whole GiB (the kernel image moves it by a few MiB, what runs does not):
 * the cgroup may take half of that.  When the asked size needs more (with
 * limit=auto), the largest power of two of GiB that fits is used.  Every
 * boot of one machine therefore picks the same size, which anyone can
 * check from the MemTotal the run records, and the rows of two kernels
 * pair up.  MemAvailable decides nothing about the size: when what the
 * cgroup needs is more than 3/4 of it, memory is held by something else
 * now and the case is refused (-EBUSY) rather than run at another size.
 * Returns 0, -ENOMEM when not even 1 GiB fits (or a given limit does not).
 */
int shadow_plan_size(struct plan *p, uint64_t mem_total, uint64_t mem_avail,
		     uint64_t limit_given, uint64_t ballast_given);

/* ---- the reader: a child in the cgroup that reads and reclaims ---- */

enum msg_kind { MSG_PROGRESS, MSG_READY, MSG_ERROR };

/* One message from the reader; smaller than PIPE_BUF, so writes are whole. */
struct msg {
	int kind;
	uint64_t done, total;
	uint64_t ns;		/* the read took, with the last "reading" */
	uint64_t cpu_ns;	/* the reader's CPU time (all threads) then */
	uint64_t pin_ns;	/* of which pinning took */
	char what[24];
	char text[200];
};

/* What the reader is to do, set up by the runner's side before the fork. */
struct reader_args {
	const char *path;
	uint64_t size;
	enum keep keep;
	uint64_t ballast;
	const struct memcg *m;
	bool memory_reclaim;
	bool ra;		/* fill with readahead(2): the window fits */
	int threads;		/* for pinning */
	bool pin_vmas;		/* pin as the read goes, a mapping per pin */
	uint64_t step;		/* memory.reclaim after this many bytes */
	int ctl, out;
	pid_t parent;
	const int *cpus;
	int ncpus;
};

/*
 * The reader's body, in the child: wait on ctl until moved into the
 * cgroup, read (pinning or holding the ballast), reclaim what is left,
 * unpin, say MSG_READY on out, then hold on until ctl is closed.  Never
 * returns; a failure is said as MSG_ERROR.
 */
void shadow_reader(const struct reader_args *a) __attribute__((noreturn));

#endif
