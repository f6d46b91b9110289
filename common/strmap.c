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
#define KEY_MAX 8		/* strings a key */

/* A key's strings, each of n bytes (no NUL among them). */
struct piece {
	const char *p;
	size_t n;
};

/* Each string's end is hashed too: ("ab", "c") is not ("a", "bc"). */
static uint64_t key_hash(const struct piece *k, size_t nk)
{
	uint64_t h = FNV_BASIS;
	size_t i, j;

	for (i = 0; i < nk; i++) {
		for (j = 0; j < k[i].n; j++)
			h = (h ^ (unsigned char)k[i].p[j]) * FNV_PRIME;
		h = (h ^ 0xff) * FNV_PRIME;
	}
	return h;
}

/* Is the slot's key these strings? */
static bool key_same(const struct strmap_slot *s, const struct piece *k,
		     size_t nk)
{
	const char *p = s->key, *end = s->key + s->len;
	size_t i;

	for (i = 0; i < nk; i++) {
		if ((size_t)(end - p) < k[i].n + 1 ||
		    memcmp(p, k[i].p, k[i].n) || p[k[i].n])
			return false;
		p += k[i].n + 1;
	}
	return p == end;
}

/* The slot of the key: its own, or the free one it would take. */
static struct strmap_slot *find(const struct strmap *m, uint64_t h,
				const struct piece *k, size_t nk)
{
	size_t mask = m->size - 1, i;

	for (i = h & mask; m->slot[i].key; i = (i + 1) & mask)
		if (m->slot[i].hash == h && key_same(&m->slot[i], k, nk))
			break;
	return &m->slot[i];
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

static size_t get(const struct strmap *m, const struct piece *k, size_t nk)
{
	const struct strmap_slot *s;

	if (!m->size)
		return STRMAP_NONE;
	s = find(m, key_hash(k, nk), k, nk);
	return s->key ? s->val : STRMAP_NONE;
}

/* The slot of the key, the key added with val where the map lacks it. */
static struct strmap_slot *put(struct strmap *m, const struct piece *k,
			       size_t nk, size_t val)
{
	uint64_t h = key_hash(k, nk);
	struct strmap_slot *s;
	size_t i, len = 0;
	char *p;

	if (2 * (m->n + 1) > m->size)
		grow(m);
	s = find(m, h, k, nk);
	if (s->key)
		return s;
	for (i = 0; i < nk; i++)
		len += k[i].n + 1;
	s->key = p = xcalloc(len ? len : 1, 1);
	for (i = 0; i < nk; i++) {
		memcpy(p, k[i].p, k[i].n);
		p += k[i].n + 1;
	}
	s->hash = h;
	s->len = len;
	s->val = val;
	m->n++;
	return s;
}

/* The strings of key as pieces; nkey at most KEY_MAX (a caller's bug). */
static size_t pieces(struct piece *k, const char *const *key, size_t nkey)
{
	size_t i;

	if (nkey > KEY_MAX)
		abort();	/* keys are a caller's few fields */
	for (i = 0; i < nkey; i++)
		k[i] = (struct piece){ key[i], strlen(key[i]) };
	return nkey;
}

size_t strmap_get(const struct strmap *m, const char *const *key,
		  size_t nkey)
{
	struct piece k[KEY_MAX];

	return get(m, k, pieces(k, key, nkey));
}

size_t strmap_put(struct strmap *m, const char *const *key, size_t nkey,
		  size_t val)
{
	struct piece k[KEY_MAX];

	return put(m, k, pieces(k, key, nkey), val)->val;
}

size_t strmap_get_len(const struct strmap *m, const char *s, size_t len)
{
	struct piece k = { s, len };

	return get(m, &k, 1);
}

size_t strmap_put_len(struct strmap *m, const char *s, size_t len,
		      size_t val)
{
	struct piece k = { s, len };

	return put(m, &k, 1, val)->val;
}

const char *strmap_intern(struct strmap *m, const char *s)
{
	struct piece k = { s, strlen(s) };

	return put(m, &k, 1, m->n)->key;
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
