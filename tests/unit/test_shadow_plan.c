/*
 * shadow-truncate's memory arithmetic: what the cgroup must hold per keep
 * method, and the rule that shrinks a case that does not fit.
 */
#include <errno.h>
#include <string.h>

#include "workloads/shadow_truncate.h"

#include "tap.h"

#define G	(1ull << 30)
#define M	(1ull << 20)

static struct plan plan_for(enum keep k, uint64_t asked, uint64_t total,
			    uint64_t avail, uint64_t limit, uint64_t ballast,
			    int *r)
{
	struct plan p;

	memset(&p, 0, sizeof(p));
	p.asked = asked;
	p.keep = k;
	*r = shadow_plan_size(&p, total, avail, limit, ballast);
	return p;
}

int main(void)
{
	struct plan p;
	int r;

	tap_plan(22);
	OK(shadow_pow2_floor(1) == 1 && shadow_pow2_floor(200) == 128 &&
	   shadow_pow2_floor(256) == 256, "pow2_floor: 1, 200 -> 128, 256");

	/* one pinned page per 64 and a page-table page per 2 MiB mapped */
	OK(shadow_pin_bytes(200 * G) == 200 * G / 64 + 200 * G / 512,
	   "pins for 200G: 3.125 GiB of pages + 400 MiB of page tables");
	OK(shadow_node_bytes(8 * G) == 32 * M, "shadow nodes for 8G: 32 MiB");
	OK(shadow_ballast_bytes(8 * G, 0) == G &&
	   shadow_ballast_bytes(8 * G, 3 * G) == 3 * G,
	   "ballast: auto is 1/8 of the file, or as given");
	OK(shadow_auto_limit(KEEP_NONE, 8 * G, 0) == 32 * M + 256 * M,
	   "keep=none: nodes and 256 MiB of cache");
	OK(shadow_least_limit(KEEP_PIN, 8 * G, 0) ==
	   shadow_pin_bytes(8 * G) + 32 * M + 64 * M,
	   "least limit of pins at 8G");

	/* this VM: 24 GiB, 22 available; budget min(12, 16.5) */
	p = plan_for(KEEP_PIN, 200 * G, 24 * G, 22 * G, 0, 0, &r);
	OK(r == 0 && p.size == 200 * G, "pins: 200G fits in 24 GiB");
	OK(p.budget == 12 * G, "budget is half of MemTotal (12 GiB)");
	OK(p.limit == shadow_pin_bytes(200 * G) + shadow_node_bytes(200 * G) +
		      256 * M,
	   "limit = pins + nodes + 256 MiB (%llu)",
	   (unsigned long long)p.limit);
	OK(p.why[0] == '\0', "no reason when nothing is shrunk");

	p = plan_for(KEEP_BALLAST, 200 * G, 24 * G, 22 * G, 0, 0, &r);
	OK(r == 0 && p.size == 64 * G,
	   "ballast: 200G shrinks to 64G (got %llu GiB)",
	   (unsigned long long)(p.size / G));
	OK(p.ballast == 8 * G && p.limit == 8 * G + 256 * M + 256 * M,
	   "the ballast and limit follow the used size");
	STREQ(p.why, "the cgroup would need 26.0 GiB (ballast, shadow nodes, "
	      "256 MiB of cache), more than the 12 GiB it may take here (half "
	      "of MemTotal in whole GiB)",
	      "the reason names both");

	/*
	 * The size follows from MemTotal alone: boots of one machine whose
	 * MemTotal moves by a few MiB with the kernel image, and whose
	 * MemAvailable moves with what else runs, shrink to the same size.
	 */
	p = plan_for(KEEP_BALLAST, 200 * G, 24 * G - 3 * M, 22 * G, 0, 0, &r);
	OK(r == 0 && p.size == 64 * G && p.budget == 23 * G / 2,
	   "MemTotal 3 MiB short of 24 GiB: whole 23 GiB, budget 11.5, 64G");
	p = plan_for(KEEP_BALLAST, 200 * G, 24 * G - 100 * M, 12 * G, 0, 0,
		     &r);
	OK(r == 0 && p.size == 64 * G,
	   "another boot, 100 MiB less MemTotal, 12 GiB available: still 64G "
	   "(got %llu GiB)", (unsigned long long)(p.size / G));

	/* too little available now: refused, not run at another size */
	p = plan_for(KEEP_BALLAST, 200 * G, 24 * G, 11 * G, 0, 0, &r);
	OK(r == -EBUSY && p.size == 64 * G && p.avail == 11 * G / 4 * 3,
	   "11 GiB available (3/4 is 8.25 < 8.5 needed): -EBUSY at 64G");
	p = plan_for(KEEP_BALLAST, 200 * G, 128 * G, 8 * G, 0, 0, &r);
	OK(r == -EBUSY && p.size == 200 * G,
	   "128 GiB machine with 8 available: 200G fits MemTotal, refused now "
	   "(got %llu)", (unsigned long long)(p.size / G));

	/* asked sizes that are not whole GiB shrink to powers of two too */
	p = plan_for(KEEP_BALLAST, 3 * G / 2, 4 * G, 4 * G, 0, 0, &r);
	OK(r == 0 && p.size == 3 * G / 2, "1.5G that fits is kept as is");
	p = plan_for(KEEP_BALLAST, 100 * G, 2 * G, 2 * G, 0, 0, &r);
	OK(r == 0 && p.size == 4 * G,
	   "1 GiB budget: 100G ballast case shrinks to 4G (got %llu MiB)",
	   (unsigned long long)(p.size / M));

	/* not even 1 GiB fits */
	p = plan_for(KEEP_BALLAST, 200 * G, 512 * M, 256 * M, 0, 0, &r);
	OK(r == -ENOMEM && p.size == G, "too small a machine: -ENOMEM at 1G");

	/* a limit given is what the cgroup takes: no shrinking */
	p = plan_for(KEEP_PIN, 200 * G, 24 * G, 22 * G, 20 * G, 0, &r);
	OK(r == -ENOMEM && p.size == 200 * G && p.limit == 20 * G,
	   "a limit above the budget is refused, size kept");
	p = plan_for(KEEP_PIN, 8 * G, 24 * G, 22 * G, 2 * G, 0, &r);
	OK(r == 0 && p.limit == 2 * G, "a limit that fits is used as given");
	return tap_done();
}
