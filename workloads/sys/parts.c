/* Work over a range split among threads (parts.h). */
#include "parts.h"

void parts_run(void *parts, size_t stride, int n, uint64_t size,
	       uint64_t unit, void *(*fn)(void *))
{
	/* rounded up twice: n parts always hold the whole range */
	uint64_t each = (size + (uint64_t)n - 1) / (uint64_t)n;
	uint64_t len = (each + unit - 1) / unit * unit;
	struct part *p;
	int i;

	for (i = 0; i < n; i++) {
		p = (struct part *)((char *)parts + (size_t)i * stride);
		p->off = (uint64_t)i * len < size ? (uint64_t)i * len : size;
		p->len = size - p->off < len ? size - p->off : len;
		p->started = false;
		if (i == n - 1 || pthread_create(&p->th, NULL, fn, p))
			fn(p);
		else
			p->started = true;
	}
	for (i = 0; i < n; i++) {
		p = (struct part *)((char *)parts + (size_t)i * stride);
		if (p->started)
			pthread_join(p->th, NULL);
	}
}
