/* What journal.c lends changes.c: its entries and their verbs. */
#ifndef FB_SYS_JOURNAL_PRIV_H
#define FB_SYS_JOURNAL_PRIV_H

#include <stdbool.h>
#include <sys/types.h>

struct entry {
	int id;
	char kind[16];
	char *a;		/* what changed: a path, a device, a pid */
	char *b;		/* what undoes it: an old value, a file; "" */
	bool done;
	bool told;		/* its failure was reported */
	int err;		/* last undo failed: -errno */
	char why[512];		/* and what failed, for people */
};

/* Record an intended change (appended and fsync'ed first); NULL if not. */
struct entry *journal_record(const char *kind, const char *a, const char *b);
/* The newest entry of kind for a not yet undone; NULL if none. */
struct entry *journal_find(const char *kind, const char *a);
/* Undone: said in the journal and forgotten. */
void journal_mark_done(struct entry *e);
/* Undo e now: done and forgotten, or kept with its error; 0 or -errno. */
int journal_undo(struct entry *e);
/* Remove the cgroup at path, its processes moved to its parent first
 * (tried for a second while it is busy); 0 or -errno. */
int journal_undo_cgroup(const char *path);
/* pid's start time (clock ticks after boot); 0 if it is gone. */
unsigned long long journal_starttime(pid_t pid);

#endif
