/*
 * shadow-truncate's memory arithmetic: what the cgroup holds per keep
 * method, and the size rule that shrinks a case that does not fit
 * (shadow_truncate.h says why each is so).
 */
#include "shadow_truncate.h"

#include <errno.h>
#include <stdio.h>

#include "common/common.h"

uint64_t shadow_pin_bytes(uint64_t size)
{
	return size / 64 + size / 512;
}

uint64_t shadow_node_bytes(uint64_t size)
{
	return size / 256;
}

uint64_t shadow_ballast_bytes(uint64_t size, uint64_t given)
{
	return given ? given : size / 8;
}

static uint64_t keep_bytes(enum keep k, uint64_t size, uint64_t ballast)
{
	if (k == KEEP_PIN)
		return shadow_pin_bytes(size);
	if (k == KEEP_BALLAST)
		return shadow_ballast_bytes(size, ballast);
	return 0;
}

uint64_t shadow_least_limit(enum keep k, uint64_t size, uint64_t ballast)
{
	return keep_bytes(k, size, ballast) + shadow_node_bytes(size) +
	       64 * MiB;
}

uint64_t shadow_auto_limit(enum keep k, uint64_t size, uint64_t ballast)
{
	return keep_bytes(k, size, ballast) + shadow_node_bytes(size) +
	       HEADROOM;
}

uint64_t shadow_pow2_floor(uint64_t x)
{
	uint64_t p = 1;

	while (p <= x / 2)
		p <<= 1;
	return p;
}

void shadow_plan_fill(struct plan *p, uint64_t size, uint64_t limit_given,
		      uint64_t ballast_given)
{
	p->size = size;
	p->ballast = p->keep == KEEP_BALLAST ?
		     shadow_ballast_bytes(size, ballast_given) : 0;
	p->keep_bytes = keep_bytes(p->keep, size, ballast_given);
	p->nodes = shadow_node_bytes(size);
	p->limit = limit_given ? limit_given :
		   shadow_auto_limit(p->keep, size, ballast_given);
}

int shadow_plan_size(struct plan *p, uint64_t mem_total, uint64_t mem_avail,
		     uint64_t limit_given, uint64_t ballast_given)
{
	uint64_t budget = mem_total / GiB * GiB / 2, size = p->asked;
	char a[32], b[32];

	p->budget = budget;
	p->avail = mem_avail / 4 * 3;
	p->why[0] = '\0';
	if (!limit_given &&
	    shadow_auto_limit(p->keep, size, ballast_given) > budget) {
		/* what the cgroup needs grows with size: halve until it fits */
		size = shadow_pow2_floor(size / GiB ? size / GiB : 1) * GiB;
		while (size > GiB &&
		       shadow_auto_limit(p->keep, size, ballast_given) > budget)
			size /= 2;
		human_size(shadow_auto_limit(p->keep, p->asked,
					     ballast_given), a, sizeof(a));
		human_size(budget, b, sizeof(b));
		snprintf(p->why, sizeof(p->why), "the cgroup would need %s "
			 "(%sshadow nodes, 256 MiB of cache), more than the "
			 "%s it may take here (half of MemTotal in whole GiB)",
			 a, p->keep == KEEP_PIN ? "pins, " :
			 p->keep == KEEP_BALLAST ? "ballast, " : "", b);
	}
	shadow_plan_fill(p, size, limit_given, ballast_given);
	if (p->limit > budget)
		return -ENOMEM;
	return p->limit > p->avail ? -EBUSY : 0;
}
