/*
 * A map of string keys to numbers (strmap.h): open addressing, linear
 * probing, at most half the slots taken.
 */
#include "common/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/common.h"

#define FNV_BASIS 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

/* Each string's end is hashed too: ("ab", "c") is not ("a", "bc"). */
static uint64_t key_hash(const char *const *key, size_t nkey)
{
	uint64_t h = FNV_BASIS;
	const char *p;
	size_t i;

	for (i = 0; i < nkey; i++) {
		for (p = key[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * FNV_PRIME;
		h = (h ^ 0xff) * FNV_PRIME;
	}
	return h;
}

/* Is the slot's key the strings of key? */
static bool key_same(const struct strmap_slot *s, const char *const *key,
		     size_t nkey)
{
	const char *p = s->key, *end = s->key + s->len;
	size_t i, n;

	for (i = 0; i < nkey; i++) {
		n = strlen(key[i]) + 1;
		if ((size_t)(end - p) < n || memcmp(p, key[i], n))
			return false;
		p += n;
	}
	return p == end;
}

/* The slot of key: its own, or the free one it would take. */
static struct strmap_slot *find(const struct strmap *m, uint64_t h,
				const char *const *key, size_t nkey)
{
	size_t mask = m->size - 1, i;

	for (i = h & mask; m->slot[i].key; i = (i + 1) & mask)
		if (m->slot[i].hash == h && key_same(&m->slot[i], key, nkey))
			break;
	return &m->slot[i];
}

size_t strmap_get(const struct strmap *m, const char *const *key,
		  size_t nkey)
{
	const struct strmap_slot *s;

	if (!m->size)
		return STRMAP_NONE;
	s = find(m, key_hash(key, nkey), key, nkey);
	return s->key ? s->val : STRMAP_NONE;
}

/* Twice the slots, each key moved by the hash it keeps. */
static void grow(struct strmap *m)
{
	struct strmap_slot *old = m->slot;
	size_t n = m->size, i, k, mask;

	m->size = n ? 2 * n : 64;
	m->slot = xcalloc(m->size, sizeof(*m->slot));
	mask = m->size - 1;
	for (i = 0; i < n; i++) {
		if (!old[i].key)
			continue;
		for (k = old[i].hash & mask; m->slot[k].key; k = (k + 1) & mask)
			;
		m->slot[k] = old[i];
	}
	free(old);
}

size_t strmap_put(struct strmap *m, const char *const *key, size_t nkey,
		  size_t val)
{
	uint64_t h = key_hash(key, nkey);
	struct strmap_slot *s;
	size_t i, len = 0;
	char *p;

	if (2 * (m->n + 1) > m->size)
		grow(m);
	s = find(m, h, key, nkey);
	if (s->key)
		return s->val;
	for (i = 0; i < nkey; i++)
		len += strlen(key[i]) + 1;
	s->key = p = xcalloc(len ? len : 1, 1);
	for (i = 0; i < nkey; i++)
		p = stpcpy(p, key[i]) + 1;
	s->hash = h;
	s->len = len;
	s->val = val;
	m->n++;
	return val;
}

void strmap_release(struct strmap *m)
{
	size_t i;

	for (i = 0; i < m->size; i++)
		free(m->slot[i].key);
	free(m->slot);
	m->slot = NULL;
	m->size = m->n = 0;
}
