/* Whether a report may go where -o says: never over the database. */
#ifndef FB_OUTFILE_H
#define FB_OUTFILE_H

#include "common/common.h"

/*
 * May a report replace path?  Not when path is the database db (the same
 * file by any name or link, or its -wal, -shm or -journal), a directory,
 * or anything but a regular file (a device, a FIFO); db may be NULL.
 * 0, or -1 with err saying why ("refusing to write P: it is ...").
 */
int out_file_check(const char *path, const char *db, struct strbuf *err);

/*
 * A name inside a directory given with -o: it must not be a symbolic link
 * (one left there would have us write its target, another database or any
 * file).  0, or -1 with err saying "refusing to write [into] P: ...".
 */
int out_no_link(const char *path, bool is_dir, struct strbuf *err);

/*
 * Create or truncate path for writing, never through a link in its last
 * component; NULL with err set (a link: "refusing to write P: ...").
 */
FILE *out_file_create(const char *path, struct strbuf *err);

#endif
