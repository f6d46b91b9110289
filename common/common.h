/* Small helpers every folder may use: sizes, durations, strings, time. */
#ifndef FB_COMMON_H
#define FB_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct strbuf;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Parse "8G", "64M", "4k", "4096", "1.5G" into bytes (binary suffixes,
 * case-insensitive, optional trailing "B" or "iB").  Returns 0 or -EINVAL
 * (not a size) / -ERANGE (overflow).
 */
int parse_size(const char *s, uint64_t *out);
/* Shortest exact form: 8589934592 -> "8G", 4096 -> "4k", 1000 -> "1000". */
void format_size(uint64_t bytes, char *buf, size_t n);
/* Human form for messages: "8.0 GiB", "512 MiB". */
void human_size(uint64_t bytes, char *buf, size_t n);
/*
 * "10s", "300ms", "2m", "1.5s", "10" (seconds) into nanoseconds: digits
 * and a point only (no sign, exponent or hex).  -EINVAL or -ERANGE.
 */
int parse_duration(const char *s, uint64_t *ns_out);
/* v units of mul ns each, rounded; -ERANGE past 2^63 ns, -EINVAL below 0. */
int duration_from_double(double v, double mul, uint64_t *ns_out);
void format_duration(uint64_t ns, char *buf, size_t n);
/* Strict unsigned integer: whole string, base 10. */
int parse_u64(const char *s, uint64_t *out);

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Read a small file (sysfs, procfs) into buf, newline stripped; -errno. */
int read_file_str(const char *path, char *buf, size_t n);
int read_file_u64(const char *path, uint64_t *out);
/* CPU time (user + system) a process or thread has used, in ns; 0 if gone. */
uint64_t proc_cpu_ns(int pid);
/* Write a string to a file (sysfs knob, cgroup file); -errno. */
int write_file_str(const char *path, const char *s);
/* Value of "Key:" from /proc/meminfo in bytes, or -errno. */
int meminfo_bytes(const char *key, uint64_t *out);
/*
 * This boot's id: /proc/sys/kernel/random/boot_id, or $FOLIOBENCH_BOOT_ID
 * where set (tests and simulated labs inject boots that way).  The one
 * source of the boot id that runs are stored under and that `bench
 * nightly` checks; "unknown" when neither can be read.
 */
void boot_id_get(char *buf, size_t n);
/*
 * The value of a variable that holds a secret (the dashboard token), taken
 * out of the environment the first time it is asked for, so that no child
 * (gnuplot, a boot command, a workload's helper) inherits it; later calls
 * get the value kept.  NULL when it was never set.
 */
const char *secret_env(const char *name);
/* Levenshtein distance, for "did you mean" suggestions. */
unsigned edit_distance(const char *a, const char *b);

/*
 * Text that reaches a terminal, a table or a file: valid UTF-8, no control
 * characters, at most max bytes.  0, or -errno with why added to err.
 */
int check_text(const char *s, size_t max, struct strbuf *err);
/*
 * Write s as it may reach a terminal: control characters (C0 but those in
 * keep, DEL, C1: U+0080..U+009F) and bytes that are not UTF-8 are written
 * as \xNN, so that text from a database, a file or the kernel can neither
 * move the cursor nor change the terminal; all else as it is.  The one
 * way such text reaches a terminal.  0, or -EIO when f has failed.
 */
int fputs_term(const char *s, FILE *f, const char *keep);
/* Drop a UTF-8 sequence cut short at the end of s (by snprintf). */
void utf8_trim(char *s);

/*
 * A label names a kernel in tables and, later, files: 1 to LABEL_MAX of
 * letters, digits and . _ + ~ : @ -, not starting with '.' or '-', no "..".
 */
#define LABEL_MAX 128
/* 0, or -errno with why added to err. */
int label_check(const char *s, struct strbuf *err);
/* Make a label of uname -r's text: other bytes become '_'. */
void label_sanitize(char *s);

/*
 * Allocation that cannot fail, as git's xmalloc: on failure the process
 * says so and exits 70 (what it changed on the system stays journalled and
 * is mended by the next start).  Use these wherever a NULL is not handled.
 */
void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* xrealloc of nmemb elements of size bytes; dies if the product overflows. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* open_memstream(3), which fails only for want of memory. */
FILE *xopen_memstream(char **buf, size_t *len);
void die_oom(size_t n) __attribute__((noreturn));

/*
 * Make room for nr elements in the array x of alloc elements, as git's
 * ALLOC_GROW: grows by half again (at least to nr, at least 16), so n
 * appends cost O(n) copies.  x, nr and alloc are evaluated more than once.
 */
#define alloc_nr(x) (((x) + 16) * 3 / 2)
#define ALLOC_GROW(x, nr, alloc) do {					\
	if ((size_t)(nr) > (size_t)(alloc)) {				\
		size_t ag_n_ = alloc_nr((size_t)(alloc));		\
									\
		if (ag_n_ < (size_t)(nr))				\
			ag_n_ = (size_t)(nr);				\
		(x) = xreallocarray((x), ag_n_, sizeof(*(x)));		\
		(alloc) = ag_n_;					\
	}								\
} while (0)

/*
 * A growable string, as git's: buf is always NUL-terminated once anything
 * was added (strbuf_str() reads "" before that), len bytes long.
 */
struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { NULL, 0, 0 }
/* Room for extra more bytes (and the NUL) without another allocation. */
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Cut (or keep) the string at len bytes, len <= sb->len. */
void strbuf_setlen(struct strbuf *sb, size_t len);
static inline void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}
/* The string, now the caller's to free (never NULL); sb is left empty. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_release(struct strbuf *sb);
/* The whole of a file added to sb (of any size, as git's): 0 or -errno. */
int strbuf_read_file(struct strbuf *sb, const char *path);
/*
 * A string made as printf makes it, the caller's to free, as git's: a
 * path of any length (PATH_MAX is no limit the kernel keeps).
 */
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Append s as a JSON string literal, quoted and escaped. */
void strbuf_json_str(struct strbuf *sb, const char *s);
static inline const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}

/*
 * What went wrong, on its way up from the layers below bench/ (common/,
 * the sys helpers, the workloads, the runner, upload/, reports/): a
 * struct strbuf *err, as git's, filled where the failure is known and
 * passed up as it is; bench/ says it.  Written only when something
 * fails, so that a timed call that succeeds allocates nothing for it.
 * err_setf says what failed, replacing what err held (an argument may
 * point into err itself); returns -1.
 */
int err_setf(struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A URL for messages: a password before the host, the value of each query
 * parameter and a fragment shown as "***" (they may hold a credential).
 */
void url_masked(struct strbuf *sb, const char *url);
/* Does the URL's query name a credential (key, token, secret, ...)? */
bool url_query_secret(const char *url);

#endif
