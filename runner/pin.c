/* Placement with hwloc: which PU measures, binding, the topology summary. */
#include "runner.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static hwloc_topology_t topo;

int placement_init(struct placement *p, int want_logical, struct strbuf *err)
{
	hwloc_bitmap_t allowed = NULL;
	hwloc_obj_t pu;
	struct strbuf sb = STRBUF_INIT;
	int n, i, r = -1;

	memset(p, 0, sizeof(*p));
	p->cpu = -1;
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		strbuf_addf(err, "cannot read the CPU topology with hwloc");
		return -1;
	}
	/* the PUs this process may run on (cpuset cgroup, taskset) */
	allowed = hwloc_bitmap_alloc();
	if (!allowed || hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS))
		hwloc_bitmap_copy(allowed, hwloc_topology_get_allowed_cpuset(topo));
	n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
	if (n <= 0) {
		strbuf_addf(err, "hwloc found no processing unit");
		goto out;
	}
	p->cpus = calloc((size_t)n, sizeof(int));
	if (!p->cpus)
		goto out;
	for (i = 0; i < n; i++) {
		pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		if (!hwloc_bitmap_isset(allowed, pu->os_index))
			continue;
		p->cpus[p->ncpus++] = (int)pu->os_index;
		/* auto: the last allowed PU, away from CPU 0's interrupts */
		if (want_logical < 0 || (int)pu->logical_index == want_logical) {
			p->cpu = (int)pu->os_index;
			p->logical = (int)pu->logical_index;
		}
	}
	if (!p->ncpus) {
		strbuf_addf(err, "no CPU is available to this process");
		goto out;
	}
	if (want_logical >= 0 && (int)p->logical != want_logical) {
		strbuf_addf(err, "cpu: %d is not a logical CPU this process may "
			    "use (allowed: %d PUs, logical 0 to %d)",
			    want_logical, p->ncpus, n - 1);
		p->cpu = -1;
		goto out;
	}
	if (p->cpu < 0) {
		strbuf_addf(err, "cpu: %d is not allowed to this process",
			    want_logical);
		goto out;
	}
	strbuf_addf(&sb, "{\"packages\":%d,\"numa_nodes\":%d,\"cores\":%d,"
		    "\"pus\":%d,\"allowed_pus\":%d,\"measuring_pu\":%d}",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE),
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), n,
		    p->ncpus, p->cpu);
	p->summary = sb.buf;
	r = 0;
out:
	hwloc_bitmap_free(allowed);
	return r;
}

int placement_bind(int os_cpu)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();
	int r;

	if (!set)
		return -1;
	hwloc_bitmap_only(set, (unsigned)os_cpu);
	r = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD |
			      HWLOC_CPUBIND_STRICT);
	hwloc_bitmap_free(set);
	return r ? -1 : 0;
}

void placement_release(struct placement *p)
{
	free(p->cpus);
	free(p->summary);
	memset(p, 0, sizeof(*p));
	if (topo)
		hwloc_topology_destroy(topo);
	topo = NULL;
}
