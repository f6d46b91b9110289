/*
 * Topology-aware placement, as pure functions of an hwloc topology and a
 * set of allowed PUs, so that the logic for the lab's 32-vCPU machines is
 * unit-tested on synthetic topologies loaded from XML.
 */
#ifndef FB_TOPO_H
#define FB_TOPO_H

#include <hwloc.h>
#include <stddef.h>

#include "common/common.h"

enum place {
	PLACE_SCATTER,	/* one worker a core, over packages and NUMA nodes first */
	PLACE_COMPACT,	/* fill one core's PUs, then the next core */
	PLACE_EXPLICIT,	/* the list in `cpus`, in its order */
};

/* "scatter", "compact", "explicit"; -1 for another name. */
int place_parse(const char *name, enum place *p);
const char *place_name(enum place p);

/*
 * A CPU list such as "2-15,18" into OS indexes, in the order written
 * (ranges ascending).  Returns how many, or -1 with why in err (the
 * text is not a list, a number is over max_cpu, an index repeats).  out
 * may be NULL to count only.
 */
int cpulist_parse(const char *s, int *out, int max, int max_cpu,
		  struct strbuf *err);
/* "0-3,8" from a bitmap, for messages. */
void cpulist_format(hwloc_const_bitmap_t set, char *buf, size_t n);

/*
 * The usable PUs in placement order: compact is the PUs in hwloc's
 * logical order (a core's PUs next to each other); scatter interleaves the
 * cores of the topology tree level by level (package, NUMA node, cache,
 * core) and takes the first allowed PU of every core before the second
 * of any.  Returns how many PUs were written (at most max); explicit
 * placement is not ordered here (the list is the order).
 */
int topo_order(hwloc_topology_t t, hwloc_const_bitmap_t allowed,
	       enum place p, int *out, int max);

/*
 * The PUs of count workers: the first count of topo_order, or of the
 * explicit list (each must be allowed).  Returns 0, or -1 with why added
 * to err (fewer usable PUs than workers, an explicit PU not allowed).
 */
int topo_pick(hwloc_topology_t t, hwloc_const_bitmap_t allowed, enum place p,
	      const int *list, int nlist, int count, int *out,
	      struct strbuf *err);

/* The NUMA node (OS index) of a PU; -1 when unknown. */
int topo_node_of(hwloc_topology_t t, int pu);

/*
 * The shape, for people and for comparing runs: "2 packages, 2 NUMA
 * nodes, 32 cores, 32 PUs, no SMT".
 */
void topo_shape(hwloc_topology_t t, char *buf, size_t n);

/* Load a topology from an XML file (tests, and bench check --topology). */
int topo_load_xml(hwloc_topology_t *t, const char *path);

#endif
