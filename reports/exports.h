/*
 * Samples in the formats of the user's own tools: ministat (one value a
 * line, one file per kernel and case) and Go's benchmark format, which
 * benchstat reads (golang.org/design/14313-benchmark-format).
 */
#ifndef FB_EXPORTS_H
#define FB_EXPORTS_H

#include <stdbool.h>
#include <stdio.h>

#include "reports/compare.h"

/*
 * A label, a row name as a file name: letters, digits and . _ + - = , kept,
 * spaces as ',', anything else '_'; never empty, never starting with '.'.
 */
void report_file_name(const char *s, struct strbuf *out);

/*
 * For each row of c measured on both sides, DIR/CASE/BASE and DIR/CASE/PATCH
 * (labels as file names) with the boot medians, or every sample, one a
 * line, so that `cd DIR/CASE && ministat BASE PATCH` compares them.  DIR
 * is made when missing.  0, or -errno with err saying on what; -EPERM
 * when a file is the database db (or not a regular file): none written.
 */
int report_write_ministat(const char *dir, const struct report_cmp *c,
			  bool samples, const char *db, struct strbuf *err);

/*
 * Every valid sample of s in Go's benchmark format, one line a sample with
 * all its metrics.  Configuration lines carry only what is the same for
 * every kernel on one machine; what differs between kernels (label,
 * kernel, boots) goes in '#' lines, which the format ignores, so that
 * `benchstat base.txt patch.txt` puts both in one table.  One read of the
 * values; s needs its runs only (report_load_opts.runs_only).  0,
 * REPORT_EDB or REPORT_EDATA (err says: the rows report_side_load
 * refuses), REPORT_ENOMEM, or -errno when the stream fails.
 */
int report_print_benchstat(FILE *f, struct db *db, const struct report_side *s,
			   bool (*primary)(const char *workload,
					   const char *metric),
			   const char *tool_version, struct strbuf *err);

/*
 * The kernel profiles of label's complete runs (`bench run --profile`) as
 * folded stacks, "frame;frame;... count" a line, the form Brendan Gregg's
 * flamegraph.pl and difffolded.pl read: each case's stacks summed over the
 * runs, under a first frame that names the case ("shmem-remove op=unlink
 * size=256M ..."), so that one file holds every case (one flame a case) and
 * `grep '^shmem-remove op=unlink'` picks one.  *lines: how many; 0, or
 * REPORT_EDB/REPORT_EDATA with err set, or -errno when the stream fails.
 */
int report_print_folded(FILE *f, struct db *db, const char *label,
			size_t *lines, struct strbuf *err);

#endif
