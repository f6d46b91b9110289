/*
 * A map from a key of one or more strings (a series' workload, params and
 * metric; a boot id) to a number the caller gives it, mostly the key's
 * index in the caller's own array: open addressing in 2^k slots, each
 * holding the key's FNV-1a hash (compared before any string) and its own
 * copy of the key, the strings one after the other with their NULs.
 * What compare, export and their loads look series up by.
 */
#ifndef FB_STRMAP_H
#define FB_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct strmap_slot {
	uint64_t hash;
	char *key;		/* NULL: the slot is free */
	size_t len;		/* of key, its NULs counted */
	size_t val;
};

struct strmap {
	struct strmap_slot *slot;
	size_t size, n;
};

#define STRMAP_INIT { NULL, 0, 0 }
#define STRMAP_NONE SIZE_MAX

/* The number of the key of nkey (at most 8) strings, or STRMAP_NONE. */
size_t strmap_get(const struct strmap *m, const char *const *key,
		  size_t nkey);
/*
 * The number of the key, added with val where the map lacks it (then val
 * is returned: a caller that gives its array's count knows a new key).
 */
size_t strmap_put(struct strmap *m, const char *const *key, size_t nkey,
		  size_t val);
/*
 * The map's own copy of the string s, added where the map lacks it: a
 * pool of strings that many hold (a side's runs' hosts, kernels, command
 * lines), alive until strmap_release.
 */
const char *strmap_intern(struct strmap *m, const char *s);
/* The same for a key of one string of len bytes, not NUL-terminated. */
size_t strmap_get_len(const struct strmap *m, const char *s, size_t len);
size_t strmap_put_len(struct strmap *m, const char *s, size_t len,
		      size_t val);
void strmap_release(struct strmap *m);

#endif
