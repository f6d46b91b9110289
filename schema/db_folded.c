/* A label's profile stacks for the folded export (db_folded.h). */
#include "db_folded.h"
#include "db_priv.h"

struct folded_walk {
	int (*fn)(const char *, const char *, const char *, int64_t, void *);
	void *arg;
};

static int row(struct db *db, sqlite3_stmt *st, void *arg)
{
	const struct folded_walk *w = arg;

	(void)db;
	return w->fn(db_col_text(st, 0), db_col_text(st, 1),
		     db_col_text(st, 2), sqlite3_column_int64(st, 3), w->arg);
}

int db_folded_each(struct db *db, const char *label,
		   int (*fn)(const char *workload, const char *params,
			     const char *stack, int64_t count, void *arg),
		   void *arg)
{
	struct folded_walk w = { fn, arg };

	return db_each(db, "cannot read the profiles", row, &w,
		       "SELECT c.workload, c.params, p.stack, sum(p.count) "
		       "FROM runs r JOIN cases c ON c.run_id = r.id "
		       "JOIN profile_stacks p ON p.case_id = c.id "
		       "WHERE r.label = ?1 AND r.status = 'complete' "
		       "GROUP BY c.workload, c.params, p.stack "
		       "ORDER BY c.workload, c.params, p.stack", "t", label);
}
