/*
 * A label's kernel profiles (profile_stacks, schema 11) read for `bench
 * export --format folded`: each case's stacks summed over its complete runs.
 */
#ifndef FB_DB_FOLDED_H
#define FB_DB_FOLDED_H

#include <stdint.h>

#include "db.h"

/*
 * For each case (workload, canonical params) of label's complete runs and
 * each of its stacks: the samples summed over the runs.  Cases and stacks
 * in order; fn's nonzero value stops the walk and is returned.
 */
int db_folded_each(struct db *db, const char *label,
		   int (*fn)(const char *workload, const char *params,
			     const char *stack, int64_t count, void *arg),
		   void *arg);

#endif
