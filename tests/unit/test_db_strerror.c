/*
 * db_strerror(): the words every message about a database puts after its
 * name, one place for bench/ and the runner.  bats pins the messages made
 * of them; this pins that every code has words of its own.
 */
#include "schema/db.h"
#include "tap.h"

int main(void)
{
	static const int codes[] = {
		DB_OK, DB_ERR, DB_TOO_NEW, DB_MISSING, DB_NOT_DB, DB_FULL,
		DB_BUSY, DB_READONLY, DB_CORRUPT, DB_BADROW,
	};
	size_t i, j, same = 0;

	tap_plan(6);
	STREQ(db_strerror(DB_BUSY), "another process holds it locked, still "
	      "after 10 s", "DB_BUSY: the lock, and how long it was waited for");
	STREQ(db_strerror(DB_FULL), "the disk is full", "DB_FULL");
	STREQ(db_strerror(DB_READONLY), "it cannot be written", "DB_READONLY");
	STREQ(db_strerror(DB_NOT_DB), "not a foliobench database",
	      "DB_NOT_DB");
	OK(db_strerror(12345) && !strcmp(db_strerror(12345),
					 db_strerror(DB_ERR)),
	   "a code of another layer: the words of DB_ERR, never NULL");
	/* NOT_DB and CORRUPT share theirs: the only pair */
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		for (j = i + 1; j < sizeof(codes) / sizeof(codes[0]); j++)
			same += !strcmp(db_strerror(codes[i]),
					db_strerror(codes[j]));
	OK(same == 1, "every other code has words of its own (pairs alike: "
	   "%zu)", same);
	return tap_done();
}
