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

#endif
