/* The migrations compiled into the tool (build/gen/schema_sql.c). */
#ifndef FB_SCHEMA_SQL_H
#define FB_SCHEMA_SQL_H

struct schema_step {
	int version;		/* becomes PRAGMA user_version once applied */
	const char *file;
	const char *sql;
};

extern const struct schema_step schema_steps[];
extern const int schema_nsteps;

#endif
