/*
 * Placement with hwloc on this machine: the usable PUs (config, affinity
 * mask, cgroup cpuset), the PUs of each worker count, binding of threads
 * and their memory, the topology summary and its XML.
 */
#include "runner.h"

#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static hwloc_topology_t topo;
static hwloc_bitmap_t usable;

/* The affinity mask of this process (taskset). */
static int affinity(hwloc_bitmap_t out)
{
	size_t ncpu = CPU_MAX + 1, sz = CPU_ALLOC_SIZE(ncpu), i;
	cpu_set_t *set = CPU_ALLOC(ncpu);

	if (!set)
		return -1;
	if (sched_getaffinity(0, sz, set)) {
		CPU_FREE(set);
		return -1;
	}
	hwloc_bitmap_zero(out);
	for (i = 0; i < ncpu; i++)
		if (CPU_ISSET_S(i, sz, set))
			hwloc_bitmap_set(out, (unsigned)i);
	CPU_FREE(set);
	return 0;
}

/* A cgroup file holding a CPU list into out; -1 if absent or not a list. */
static int read_cpulist(const char *path, hwloc_bitmap_t out)
{
	struct strbuf err = STRBUF_INIT;	/* never said: the kernel's */
	struct strbuf buf = STRBUF_INIT;
	int *v = NULL, n = 0, i;

	if (strbuf_read_file(&buf, path)) {
		strbuf_release(&buf);
		return -1;
	}
	strbuf_setlen(&buf, strcspn(buf.buf, "\n"));
	hwloc_bitmap_zero(out);
	if (buf.len)	/* else an empty cpuset: nothing allowed */
		n = cpulist_parse(buf.buf, NULL, 0, CPU_MAX, &err);
	if (n > 0) {
		v = xcalloc((size_t)n, sizeof(*v));
		cpulist_parse(buf.buf, v, n, CPU_MAX, &err);
	}
	for (i = 0; i < n; i++)
		hwloc_bitmap_set(out, (unsigned)v[i]);
	free(v);
	strbuf_release(&err);
	strbuf_release(&buf);
	return n < 0 ? -1 : 0;
}

/*
 * The cpuset file of the cgroup cg of /proc/self/cgroup's line whose
 * controllers are ctl ("" for v2), the caller's to free; NULL where there
 * is none to read.
 */
static char *cpuset_file(const char *ctl, const char *cg)
{
	const char *c = strcmp(cg, "/") ? cg : "";
	char *p;

	if (!*ctl) {
		p = xstrfmt("/sys/fs/cgroup%s/cpuset.cpus.effective", c);
	} else if (strstr(ctl, "cpuset")) {
		p = xstrfmt("/sys/fs/cgroup/cpuset%s/cpuset.effective_cpus",
			    c);
		if (access(p, R_OK)) {
			free(p);
			p = xstrfmt("/sys/fs/cgroup/cpuset%s/cpuset.cpus", c);
		}
	} else {
		return NULL;
	}
	if (access(p, R_OK)) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * The cpuset of this process's cgroup: v2 cpuset.cpus.effective, or v1
 * cpuset.effective_cpus (cpuset.cpus on old kernels).  1 when there is
 * none to honour (no cpuset controller), 0 with out set, -1 on error.
 */
static int cgroup_cpuset(hwloc_bitmap_t out)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char *line = NULL, *path;
	size_t cap = 0;
	int r = 1;

	if (!f)
		return 1;
	while (r == 1 && getline(&line, &cap, f) > 0) {
		char *ctl = strchr(line, ':'), *cg;

		if (!ctl)
			continue;
		cg = strchr(++ctl, ':');
		if (!cg)
			continue;
		*cg++ = '\0';
		cg[strcspn(cg, "\n")] = '\0';
		path = cpuset_file(ctl, cg);
		if (path)
			r = read_cpulist(path, out);
		free(path);
	}
	free(line);
	fclose(f);
	return r;
}

static void add_source(struct placement *p, const char *name,
		       hwloc_const_bitmap_t set)
{
	char list[256];
	size_t used = strlen(p->sources);

	cpulist_format(set, list, sizeof(list));
	snprintf(p->sources + used, sizeof(p->sources) - used, "%s%s %s",
		 used ? ", " : "", name, list);
}

/* cpus of the config as a bitmap; -1 with err for a node not there. */
static int config_set(const struct config *cfg, hwloc_bitmap_t out,
		      struct strbuf *err)
{
	hwloc_obj_t node;
	int i;

	if (cfg->cpus_node >= 0) {
		node = hwloc_get_numanode_obj_by_os_index(topo,
						(unsigned)cfg->cpus_node);
		if (!node || !node->cpuset) {
			strbuf_addf(err, "cpus: node:%d is not a NUMA node of "
				    "this machine (it has %d)", cfg->cpus_node,
				    hwloc_get_nbobjs_by_type(topo,
						HWLOC_OBJ_NUMANODE));
			return -1;
		}
		hwloc_bitmap_copy(out, node->cpuset);
	} else if (cfg->cpu_list) {
		hwloc_bitmap_zero(out);
		for (i = 0; i < cfg->ncpu_list; i++)
			hwloc_bitmap_set(out, (unsigned)cfg->cpu_list[i]);
	} else {
		hwloc_bitmap_copy(out, hwloc_topology_get_complete_cpuset(topo));
	}
	return 0;
}

static int fill_cpus(struct placement *p, const struct config *cfg)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), i;

	p->cpus = calloc((size_t)(n > 0 ? n : 1) + (size_t)cfg->ncpu_list,
			 sizeof(int));
	if (!p->cpus)
		return -1;
	if (p->place == PLACE_EXPLICIT) {
		for (i = 0; i < cfg->ncpu_list; i++)
			if (hwloc_bitmap_isset(usable,
					       (unsigned)cfg->cpu_list[i]))
				p->cpus[p->ncpus++] = cfg->cpu_list[i];
		return 0;
	}
	p->ncpus = topo_order(topo, usable, p->place, p->cpus, n);
	return 0;
}

/* The single measuring PU: `cpu`, else the last usable one. */
static int pick_single(struct placement *p, const struct config *cfg,
		       struct strbuf *err)
{
	int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU), i;
	hwloc_obj_t pu;

	for (i = 0; i < n; i++) {
		pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
		if (!hwloc_bitmap_isset(usable, pu->os_index))
			continue;
		/* auto: the last usable PU, away from CPU 0's interrupts */
		if (cfg->cpu < 0 || (int)pu->logical_index == cfg->cpu) {
			p->cpu = (int)pu->os_index;
			p->logical = (int)pu->logical_index;
		}
	}
	if (cfg->cpu >= 0 && p->logical != cfg->cpu) {
		strbuf_addf(err, "cpu: %d is not a logical CPU this process "
			    "may use (usable: %s)", cfg->cpu, p->usable);
		p->cpu = -1;
		return -1;
	}
	return 0;
}

int placement_init(struct placement *p, const struct config *cfg,
		   struct strbuf *err)
{
	hwloc_bitmap_t set = NULL;
	struct strbuf sb = STRBUF_INIT;
	int r = -1, cg;

	memset(p, 0, sizeof(*p));
	p->cpu = -1;
	p->logical = -1;
	p->place = cfg->placement;
	if (hwloc_topology_init(&topo) || hwloc_topology_load(topo)) {
		strbuf_addf(err, "cannot read the CPU topology with hwloc");
		return -1;
	}
	usable = hwloc_bitmap_alloc();
	set = hwloc_bitmap_alloc();
	if (!usable || !set)
		goto out;
	if (config_set(cfg, usable, err))
		goto out;
	add_source(p, "cpus", usable);
	/* hwloc's allowed set honours the cgroup, not taskset: ask both */
	if (!affinity(set)) {
		hwloc_bitmap_and(usable, usable, set);
		add_source(p, "affinity", set);
	}
	cg = cgroup_cpuset(set);
	if (!cg) {
		hwloc_bitmap_and(usable, usable, set);
		add_source(p, "cgroup cpuset", set);
	}
	hwloc_bitmap_and(usable, usable,
			 hwloc_topology_get_allowed_cpuset(topo));
	cpulist_format(usable, p->usable, sizeof(p->usable));
	topo_shape(topo, p->shape, sizeof(p->shape));
	p->nnodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
	if (hwloc_bitmap_iszero(usable)) {
		strbuf_addf(err, "no PU is left to measure on: %s have none "
			    "in common", p->sources);
		r = -2;
		goto out;
	}
	if (pick_single(p, cfg, err) || fill_cpus(p, cfg))
		goto out;
	strbuf_addf(&sb, "{\"packages\":%d,\"numa_nodes\":%d,\"cores\":%d,"
		    "\"pus\":%d,\"allowed_pus\":%d,\"measuring_pu\":%d,"
		    "\"usable\":\"%s\",\"placement\":\"%s\",\"shape\":",
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE),
		    p->nnodes, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE),
		    hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU),
		    hwloc_bitmap_weight(usable), p->cpu, p->usable,
		    place_name(p->place));
	strbuf_json_str(&sb, p->shape);
	strbuf_addf(&sb, "}");
	p->summary = sb.buf;
	r = 0;
out:
	hwloc_bitmap_free(set);
	return r;
}

int placement_workers(const struct placement *p, const struct config *cfg,
		      int n, int *out, struct strbuf *err)
{
	if (n == 1 && (p->place != PLACE_EXPLICIT || cfg->cpu >= 0)) {
		out[0] = p->cpu;
		return 0;
	}
	return topo_pick(topo, usable, p->place, cfg->cpu_list,
			 cfg->ncpu_list, n, out, err);
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

int placement_bind_spare(const struct placement *p, const int *busy, int n)
{
	hwloc_bitmap_t set = hwloc_bitmap_dup(usable);
	int i, r;

	(void)p;
	if (!set)
		return -1;
	for (i = 0; i < n; i++)
		hwloc_bitmap_clr(set, (unsigned)busy[i]);
	if (hwloc_bitmap_iszero(set))
		hwloc_bitmap_copy(set, usable);	/* no spare PU */
	r = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
	hwloc_bitmap_free(set);
	return r ? -1 : 0;
}

int placement_node_of(int os_cpu)
{
	return topo_node_of(topo, os_cpu);
}

int placement_membind(int os_cpu)
{
	hwloc_bitmap_t nodes;
	int node, r;

	if (hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) < 2)
		return 0;	/* one node: nothing to choose */
	node = os_cpu < 0 ? -1 : topo_node_of(topo, os_cpu);
	if (node < 0)
		return hwloc_set_membind(topo,
				hwloc_topology_get_topology_nodeset(topo),
				HWLOC_MEMBIND_DEFAULT,
				HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET)
		       ? -1 : 0;
	nodes = hwloc_bitmap_alloc();
	if (!nodes)
		return -1;
	hwloc_bitmap_only(nodes, (unsigned)node);
	r = hwloc_set_membind(topo, nodes, HWLOC_MEMBIND_BIND,
			      HWLOC_MEMBIND_THREAD | HWLOC_MEMBIND_BYNODESET);
	hwloc_bitmap_free(nodes);
	return r ? -1 : 0;
}

char *placement_xml(size_t *len)
{
	char *xml = NULL, *copy;
	int n = 0;

	if (!topo || hwloc_topology_export_xmlbuffer(topo, &xml, &n, 0) ||
	    n <= 0)
		return NULL;
	copy = malloc((size_t)n);
	if (copy) {
		memcpy(copy, xml, (size_t)n);
		*len = (size_t)n - 1;	/* n counts the final NUL */
	}
	hwloc_free_xmlbuffer(topo, xml);
	return copy;
}

void placement_release(struct placement *p)
{
	free(p->cpus);
	free(p->summary);
	memset(p, 0, sizeof(*p));
	if (usable)
		hwloc_bitmap_free(usable);
	usable = NULL;
	if (topo)
		hwloc_topology_destroy(topo);
	topo = NULL;
}
