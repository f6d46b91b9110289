/*
 * `bench merge`: the runs of other machines' result databases into one.
 * Runs are keyed by their uuid, and every other row travels under its run
 * (cases, samples, values, kernel warnings, uploads, and whatever table a
 * later schema adds with a foreign key to them), so merging twice adds
 * nothing.
 */
#ifndef FB_MERGE_H
#define FB_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "db.h"

#define DB_MERGE_MAX_TABLES 32

struct db_merge_stats {
	int64_t runs_present;		/* uuid already in the output */
	int ntables;
	struct {
		char name[64];
		int64_t added;
	} table[DB_MERGE_MAX_TABLES];	/* "runs" first, in copy order */
	int in_version;			/* schema version of the input */
	bool in_migrated;		/* read from a copy migrated in memory */
};

/*
 * Merge the database at in_path into out (open, current schema).  The
 * input is never written and nothing is made beside it or in TMPDIR: it is
 * attached read-only (immutable when it is a WAL database with an empty or
 * no -wal), an older schema copied into memory and migrated there.
 * Returns DB_OK, DB_MISSING, DB_NOT_DB (also a table or column of the
 * schema missing from it: db_errmsg(out) names them), DB_TOO_NEW (it says
 * which version) or DB_ERR; the output is unchanged unless DB_OK.
 */
int db_merge(struct db *out, const char *in_path, struct db_merge_stats *st);

/*
 * The output a merge made, when no input could be merged into it: removed
 * with its -wal, -shm and -journal if it holds no run (checked under an
 * exclusive lock, so that a merge beside this one that wrote runs into it
 * keeps them).  Nothing is said: a failed merge already said why.
 */
void db_merge_drop_new(const char *path);

#endif
