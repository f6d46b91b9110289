/*
 * Placement on the lab's machines, tested here on their topologies loaded
 * from XML (tests/fixtures/topo, made with lstopo --input): a 2-socket
 * 32-vCPU VM (2 packages, 2 NUMA nodes, 16 cores each, no SMT) and a
 * 1-socket 16-core SMT machine (32 PUs, siblings P#n and P#n+16).
 */
#include "runner/topo.h"

#include <stdlib.h>

#include "tap.h"

#define VM32	"tests/fixtures/topo/vm-2s32.xml"
#define SMT16	"tests/fixtures/topo/smt-1s16c.xml"

static void list(const int *v, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d",
					 i ? "," : "", v[i]);
}

/* The PUs of count workers, as "a,b,c", or "refused: why". */
static const char *pick(hwloc_topology_t t, const char *allowed,
			enum place p, const char *explicit_list, int count)
{
	static char out[512];
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	struct strbuf why = STRBUF_INIT;
	int pus[64], lst[64], nl = 0;

	if (allowed)
		hwloc_bitmap_list_sscanf(set, allowed);
	else
		hwloc_bitmap_copy(set, hwloc_topology_get_allowed_cpuset(t));
	if (explicit_list)
		nl = cpulist_parse(explicit_list, lst, 64, 4095, &why);
	strbuf_reset(&why);
	if (topo_pick(t, set, p, lst, nl, count, pus, &why))
		snprintf(out, sizeof(out), "refused: %s", strbuf_str(&why));
	else
		list(pus, count, out, sizeof(out));
	strbuf_release(&why);
	hwloc_bitmap_free(set);
	return out;
}

static void test_cpulist(void)
{
	struct strbuf why = STRBUF_INIT;
	int v[16], n;
	char buf[128];

	n = cpulist_parse("2-5,18,0", v, 16, 4095, &why);
	list(v, n > 0 ? n : 0, buf, sizeof(buf));
	STREQ(buf, "2,3,4,5,18,0", "a list keeps its order, ranges ascend");
	OK(cpulist_parse("3-1", v, 16, 4095, &why) < 0 &&
	   !strcmp(why.buf, "the range 3-1 runs backwards"), "backwards range");
	OK(cpulist_parse("1,2,1", v, 16, 4095, &why) < 0 &&
	   !strcmp(why.buf, "CPU 1 is listed twice"), "a repeated CPU");
	OK(cpulist_parse("1,x", v, 16, 4095, &why) < 0 &&
	   !strcmp(why.buf, "not a CPU list (such as 2-15,18)"), "garbage");
	OK(cpulist_parse("1,", v, 16, 4095, &why) < 0,
	   "a trailing comma");
	OK(cpulist_parse("99999", v, 16, 4095, &why) < 0 &&
	   !strcmp(why.buf, "a CPU number over 4095"), "too large");
	OK(cpulist_parse("", v, 16, 4095, &why) < 0, "empty");
	OK(cpulist_parse("0-4095", NULL, 0, 4095, &why) == 4096,
	   "counting only");
	strbuf_release(&why);
}

static void test_vm32(void)
{
	hwloc_topology_t t;
	char shape[128];

	if (topo_load_xml(&t, VM32)) {
		OK(0, "load %s", VM32);
		return;
	}
	topo_shape(t, shape, sizeof(shape));
	STREQ(shape, "2 packages, 2 NUMA nodes, 32 cores, 32 PUs, no SMT",
	      "the 32-vCPU VM's shape");
	OK(topo_node_of(t, 0) == 0 && topo_node_of(t, 15) == 0 &&
	   topo_node_of(t, 16) == 1 && topo_node_of(t, 31) == 1,
	   "PUs 0-15 on node 0, 16-31 on node 1");
	/* scatter: across the packages (and their NUMA nodes) first */
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 1), "0", "scatter 1");
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 2), "0,16",
	      "scatter 2: one a package");
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 4), "0,16,1,17",
	      "scatter 4");
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 32),
	      "0,16,1,17,2,18,3,19,4,20,5,21,6,22,7,23,8,24,9,25,10,26,11,"
	      "27,12,28,13,29,14,30,15,31", "scatter 32: every PU once");
	/* compact: fill package 0 before package 1 */
	STREQ(pick(t, NULL, PLACE_COMPACT, NULL, 2), "0,1", "compact 2");
	STREQ(pick(t, NULL, PLACE_COMPACT, NULL, 17),
	      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16",
	      "compact 17: package 0, then the first of package 1");
	/* a restricted set (taskset, cgroup cpuset, cpus) */
	STREQ(pick(t, "2-15,18", PLACE_SCATTER, NULL, 3), "2,18,3",
	      "scatter in 2-15,18");
	STREQ(pick(t, "2-15,18", PLACE_COMPACT, NULL, 3), "2,3,4",
	      "compact in 2-15,18");
	STREQ(pick(t, "16-31", PLACE_SCATTER, NULL, 2), "16,17",
	      "scatter within node 1");
	STREQ(pick(t, "1", PLACE_SCATTER, NULL, 2),
	      "refused: 2 workers need 2 PUs, 1 is usable here",
	      "more workers than usable PUs");
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 33),
	      "refused: 33 workers need 33 PUs, 32 are usable here",
	      "33 workers on 32 PUs");
	/* explicit: the list, in order, each allowed */
	STREQ(pick(t, NULL, PLACE_EXPLICIT, "31,0,7", 3), "31,0,7",
	      "explicit keeps the order");
	STREQ(pick(t, "0-15", PLACE_EXPLICIT, "3,20", 2),
	      "refused: PU 20 of the explicit list is not one this process "
	      "may use", "explicit outside the allowed set");
	STREQ(pick(t, NULL, PLACE_EXPLICIT, "3", 2),
	      "refused: 2 workers need 2 PUs, the explicit list in cpus "
	      "names 1", "explicit list too short");
	hwloc_topology_destroy(t);
}

static void test_smt16(void)
{
	hwloc_topology_t t;
	char shape[128];

	if (topo_load_xml(&t, SMT16)) {
		OK(0, "load %s", SMT16);
		return;
	}
	topo_shape(t, shape, sizeof(shape));
	STREQ(shape, "1 package, 1 NUMA node, 16 cores, 32 PUs, 2-way SMT",
	      "the SMT machine's shape");
	/* compact: both siblings of a core, then the next core */
	STREQ(pick(t, NULL, PLACE_COMPACT, NULL, 4), "0,16,1,17",
	      "compact 4 on SMT");
	/* scatter: one PU a core, siblings only after every core */
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 4), "0,1,2,3",
	      "scatter 4 on SMT");
	STREQ(pick(t, NULL, PLACE_SCATTER, NULL, 18),
	      "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
	      "scatter 18: siblings after all 16 cores");
	/* a core whose first sibling is not allowed gives its second */
	STREQ(pick(t, "16,1-2", PLACE_SCATTER, NULL, 3), "16,1,2",
	      "scatter where only a sibling is allowed");
	STREQ(pick(t, "0,16,1", PLACE_COMPACT, NULL, 3), "0,16,1",
	      "compact within a restricted set");
	hwloc_topology_destroy(t);
}

int main(void)
{
	tap_plan(30);
	test_cpulist();
	test_vm32();
	test_smt16();
	return tap_done();
}
