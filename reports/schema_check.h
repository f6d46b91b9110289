/*
 * The run document (db_run_doc) checked against schema/run.schema.json
 * before it is printed (export --run) or sent (the json dashboard).
 */
#ifndef FB_SCHEMA_CHECK_H
#define FB_SCHEMA_CHECK_H

#include "common/common.h"

struct db;

/* 0, or -1 with the first violation in err ("/path: value why"). */
int report_run_doc_check(const char *doc, struct strbuf *err);

/*
 * db_run_doc(), then the check: DB_BADROW with db_errmsg() naming the
 * violation where the document would break the schema, and *json NULL.
 */
int report_run_doc(struct db *db, const char *uuid, char **json);

#endif
